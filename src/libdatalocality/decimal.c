/* decimal.c - strict decimal numbers (dl_decimal.h). */
#include "dl_decimal.h"

int dl_decimal_u64(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;

	/* 20 digits hold UINT64_MAX; a longer text overflows or has a
	 * leading zero, either way refused. */
	if (!n || n > 20 || (n > 1 && s[0] == '0'))
		return -1;
	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned)(s[i] - '0');

		if (d > 9 || v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}
