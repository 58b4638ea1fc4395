/*
 * fuzz_provision.c - libFuzzer target for dl-sim's --provision SPEC
 * (dl_prov_parse() in src/sim/provision.c).
 *
 * Checked for every input: a rejected spec leaves the configuration as it
 * was and says why; an accepted one is within bounds (latency_min <=
 * latency_max, both finite and >= 0, interval > 0, step >= 1, min <= max
 * unless max is 0) and survives the round trip through dl_prov_format()
 * and dl_prov_parse() unchanged; one pool decision on it asks for no more
 * nodes than the pool has room for.
 *
 * Build: clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE \
 *	-I src/libdatalocality -I src/sim src/sim/provision.c \
 *	src/libdatalocality/error.c test/fuzz/fuzz_provision.c -o fuzz_provision -lm
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dl_error.h"
#include "fuzz.h"
#include "provision.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	dl_prov_config_t c, before, again;
	char *spec, err[160], buf[256];
	uint32_t round = 0, ask;

	if (size > 4096)
		return 0;
	spec = malloc(size + 1);
	if (!spec)
		return 0;
	memcpy(spec, data, size);
	spec[size] = '\0';
	dl_prov_config_default(&c);
	before = c;
	err[0] = '\0';
	if (dl_prov_parse(spec, &c, err, sizeof(err))) {
		CHECK(!memcmp(&c, &before, sizeof(c)));
		CHECK(err[0]);
		free(spec);
		return 0;
	}
	free(spec);
	if (!c.enabled)
		return 0;
	CHECK(isfinite(c.latency_min) && c.latency_min >= 0);
	CHECK(isfinite(c.latency_max) && c.latency_max >= c.latency_min);
	CHECK(isfinite(c.idle) && c.idle >= 0);
	CHECK(isfinite(c.interval) && c.interval > 0);
	CHECK(c.step >= 1);
	CHECK(!c.max_nodes || c.min_nodes <= c.max_nodes);
	dl_prov_format(&c, buf, sizeof(buf));
	dl_prov_config_default(&again);
	CHECK(dl_prov_parse(buf, &again, err, sizeof(err)) == 0);
	CHECK(again.alloc == c.alloc && again.step == c.step &&
	      again.min_nodes == c.min_nodes &&
	      again.max_nodes == c.max_nodes &&
	      again.keep_cache == c.keep_cache);
	/* %g keeps 6 digits: the round trip is exact to that. */
	CHECK(fabs(again.latency_min - c.latency_min) <=
	      1e-5 * c.latency_min + 1e-12);
	CHECK(fabs(again.idle - c.idle) <= 1e-5 * c.idle + 1e-12);
	ask = dl_prov_request(&c, 1000, 2, 3, 1, 64, &round);
	CHECK(ask <= 64 - 4);
	return 0;
}
