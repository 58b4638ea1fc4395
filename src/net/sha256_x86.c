/*
 * sha256_x86.c - SHA-256 blocks with the SHA-NI instructions: four rounds
 * per pair of sha256rnds2, the message schedule by sha256msg1/msg2, state
 * kept as ABEF/CDGH as the instructions want it (Intel's "SHA
 * Extensions" white paper, 2013).  Compiled with a target attribute, so
 * the rest of the program needs no -msha and runs on any x86-64.
 */
#include "sha256_x86.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>

int dl__sha256_x86_ok(void)
{
	unsigned a, b, c, d;

	if (!__get_cpuid(1, &a, &b, &c, &d) ||
	    !(c & (1u << 9)) || !(c & (1u << 19))) /* SSSE3, SSE4.1 */
		return 0;
	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
		return 0;
	return (b >> 29) & 1; /* SHA */
}

#define TGT __attribute__((target("sha,sse4.1,ssse3")))

/*
 * Rounds 4g..4g+3 of one block.  m[] holds the last four groups of the
 * message schedule; group g+1's words are finished here (msg2) and group
 * g-1's started (msg1), as far as the schedule still needs them.
 */
static inline TGT void _group(__m128i *s0, __m128i *s1, __m128i m[4], int g)
{
	const __m128i *k = (const __m128i *)&dl__sha256_k[4 * g];
	__m128i msg = _mm_add_epi32(m[g & 3], _mm_loadu_si128(k));

	*s1 = _mm_sha256rnds2_epu32(*s1, *s0, msg);
	if (g >= 3 && g <= 14) {
		__m128i t = _mm_alignr_epi8(m[g & 3], m[(g - 1) & 3], 4);

		m[(g + 1) & 3] = _mm_add_epi32(m[(g + 1) & 3], t);
		m[(g + 1) & 3] = _mm_sha256msg2_epu32(m[(g + 1) & 3], m[g & 3]);
	}
	msg = _mm_shuffle_epi32(msg, 0x0E);
	*s0 = _mm_sha256rnds2_epu32(*s0, *s1, msg);
	if (g >= 1 && g <= 12)
		m[(g - 1) & 3] = _mm_sha256msg1_epu32(m[(g - 1) & 3], m[g & 3]);
}

TGT void dl__sha256_x86_blocks(uint32_t h[8], const uint8_t *p, size_t n)
{
	const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL,
					     0x0405060700010203ULL);
	__m128i t = _mm_loadu_si128((const __m128i *)&h[0]);
	__m128i s1 = _mm_loadu_si128((const __m128i *)&h[4]);
	__m128i s0, m[4];

	t = _mm_shuffle_epi32(t, 0xB1);          /* CDAB */
	s1 = _mm_shuffle_epi32(s1, 0x1B);        /* EFGH */
	s0 = _mm_alignr_epi8(t, s1, 8);          /* ABEF */
	s1 = _mm_blend_epi16(s1, t, 0xF0);       /* CDGH */
	for (; n; n--, p += 64) {
		__m128i abef = s0, cdgh = s1;

		for (int i = 0; i < 4; i++)
			m[i] = _mm_shuffle_epi8(
				_mm_loadu_si128((const __m128i *)(p + 16 * i)),
				bswap);
#pragma GCC unroll 16
		for (int g = 0; g < 16; g++)
			_group(&s0, &s1, m, g);
		s0 = _mm_add_epi32(s0, abef);
		s1 = _mm_add_epi32(s1, cdgh);
	}
	t = _mm_shuffle_epi32(s0, 0x1B);         /* FEBA */
	s1 = _mm_shuffle_epi32(s1, 0xB1);        /* DCHG */
	s0 = _mm_blend_epi16(t, s1, 0xF0);       /* DCBA */
	s1 = _mm_alignr_epi8(s1, t, 8);          /* HGFE */
	_mm_storeu_si128((__m128i *)&h[0], s0);
	_mm_storeu_si128((__m128i *)&h[4], s1);
}

#else

int dl__sha256_x86_ok(void)
{
	return 0;
}

void dl__sha256_x86_blocks(uint32_t h[8], const uint8_t *p, size_t n)
{
	(void)h;
	(void)p;
	(void)n;
}

#endif
