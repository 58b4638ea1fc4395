/*
 * check_agent_fnv.c - the agent's FNV-1a (agent_fnv.h): the published
 * FNV-1a 64 test vectors, and every variant against the formula its call
 * sites wrote out by hand before the header existed (copied below as
 * _old_*), so that no hash the agent keeps or compares across cycles
 * changed value when they moved to it.
 */
#include <stdint.h>
#include <string.h>

#include "check_suites.h"
#include "agent_fnv.h"
#include "agent_inv.h"

/* Values that exercise every byte, the sign bit and the all-ones word. */
static const uint64_t vals[] = {
	0, 1, 0xff, 0x100, 0x7fffffff, 0x80000000, 0xffffffff,
	0x0123456789abcdefULL, 0x8000000000000000ULL, UINT64_MAX,
	(uint64_t)(int64_t)-5, 1764460800,
};
#define NVALS (sizeof(vals) / sizeof(vals[0]))

/* Strings with a high byte, where a plain char would be negative. */
static const char *const strs[] = {
	"", "a", "foobar", "chongo was here!\n", "/data/a/b/c.h5",
	"\xff\x80z", "files:/data/a,/data/b", "gpu:a100:4",
};
#define NSTRS (sizeof(strs) / sizeof(strs[0]))

/* agent_idle.c's _mix() and dl_agent.c's _sync_services(). */
static uint64_t _old_word(uint64_t h, uint64_t v)
{
	return (h ^ v) * 1099511628211ULL;
}

/* agent_snapshot.c's and agent_snapfp.c's _mix(). */
static uint64_t _old_u64(uint64_t h, uint64_t v)
{
	int k;

	for (k = 0; k < 8; k++, v >>= 8)
		h = (h ^ (v & 0xff)) * 1099511628211ULL;
	return h;
}

/* agent_pfplan.c's _fnv(). */
static uint64_t _old_u32(uint64_t h, uint32_t v)
{
	int i;

	for (i = 0; i < 4; i++) {
		h ^= (v >> (8 * i)) & 0xff;
		h *= 1099511628211ULL;
	}
	return h;
}

/* agent_inv.c's agent_inv_hash() (and agent_snapfp.c's _bytes() loop). */
static uint64_t _old_bytes(const char *p, size_t len)
{
	uint64_t h = 14695981039346656037ULL;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)p[i];
		h *= 1099511628211ULL;
	}
	return h;
}

/* agent_snapshot.c's _hash() and agent_jobs.c's (but its 0 and 1). */
static uint64_t _old_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/* The constants, as the FNV reference and the old call sites have them. */
START_TEST(test_fnv_constants)
{
	ck_assert_uint_eq(AGENT_FNV_PRIME, 0x100000001b3ULL);
	ck_assert_uint_eq(AGENT_FNV_BASIS, 0xcbf29ce484222325ULL);
	ck_assert_uint_eq(AGENT_FNV_BASIS_SHORT, 0x14650fb0739d0383ULL);
}
END_TEST

/* The published FNV-1a 64 vectors, through every byte-wise entry. */
START_TEST(test_fnv_vectors)
{
	static const struct {
		const char *s;
		uint64_t h;
	} v[] = {
		{ "", 0xcbf29ce484222325ULL },
		{ "a", 0xaf63dc4c8601ec8cULL },
		{ "foobar", 0x85944171f73967e8ULL },
		{ "chongo was here!\n", 0x46810940eff5f915ULL },
	};
	size_t i, n;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		n = strlen(v[i].s);
		ck_assert_uint_eq(agent_fnv_str(AGENT_FNV_BASIS, v[i].s),
				  v[i].h);
		ck_assert_uint_eq(agent_fnv_bytes(AGENT_FNV_BASIS, v[i].s, n),
				  v[i].h);
		ck_assert_uint_eq(agent_inv_hash(v[i].s, n), v[i].h);
	}
	/* A byte step is the word step given a byte. */
	ck_assert_uint_eq(agent_fnv_word(AGENT_FNV_BASIS, 'a'),
			  0xaf63dc4c8601ec8cULL);
}
END_TEST

/* Word-wise: one step a value, from both starting values. */
START_TEST(test_fnv_word_as_before)
{
	uint64_t h = AGENT_FNV_BASIS_SHORT, old = 1469598103934665603ULL;
	size_t i;

	for (i = 0; i < NVALS; i++) {
		ck_assert_uint_eq(agent_fnv_word(AGENT_FNV_BASIS, vals[i]),
				  _old_word(14695981039346656037ULL, vals[i]));
		h = agent_fnv_word(h, vals[i]);
		old = _old_word(old, vals[i]);
		ck_assert_uint_eq(h, old);
	}
	/* What agent_idle.c takes for a missing inventory file. */
	ck_assert_uint_eq(agent_fnv_word(AGENT_FNV_BASIS_SHORT, 0),
			  1469598103934665603ULL * 1099511628211ULL);
}
END_TEST

/* Byte-wise numbers: 8 bytes (snapshot fingerprints), 4 (prefetch sig). */
START_TEST(test_fnv_ints_as_before)
{
	uint64_t h = AGENT_FNV_BASIS_SHORT, old = h;
	uint64_t s = AGENT_FNV_BASIS, olds = s;
	size_t i;

	for (i = 0; i < NVALS; i++) {
		h = agent_fnv_u64(h, vals[i]);
		old = _old_u64(old, vals[i]);
		ck_assert_uint_eq(h, old);
		s = agent_fnv_u32(s, (uint32_t)vals[i]);
		olds = _old_u32(olds, (uint32_t)vals[i]);
		ck_assert_uint_eq(s, olds);
	}
	/* Low byte first: the same as the little-endian bytes. */
	ck_assert_uint_eq(agent_fnv_u64(AGENT_FNV_BASIS, 0x7261626f6f66ULL),
			  agent_fnv_bytes(AGENT_FNV_BASIS, "foobar\0\0", 8));
	ck_assert_uint_eq(agent_fnv_u32(AGENT_FNV_BASIS, 0x61),
			  agent_fnv_bytes(AGENT_FNV_BASIS, "a\0\0\0", 4));
}
END_TEST

/* Strings and buffers, high bytes included, from both starting values. */
START_TEST(test_fnv_strings_as_before)
{
	size_t i, n;

	for (i = 0; i < NSTRS; i++) {
		n = strlen(strs[i]);
		ck_assert_uint_eq(agent_fnv_str(AGENT_FNV_BASIS_SHORT, strs[i]),
				  _old_str(strs[i]));
		ck_assert_uint_eq(agent_fnv_bytes(AGENT_FNV_BASIS, strs[i], n),
				  _old_bytes(strs[i], n));
		ck_assert_uint_eq(agent_inv_hash(strs[i], n),
				  _old_bytes(strs[i], n));
	}
	/* NULL hashes as "", as agent_snapshot.c's _hash() had it. */
	ck_assert_uint_eq(agent_fnv_str(AGENT_FNV_BASIS_SHORT, NULL),
			  _old_str(NULL));
	/* A buffer goes past a NUL, a string stops at it. */
	ck_assert_uint_eq(agent_fnv_bytes(AGENT_FNV_BASIS, "a\0b", 3),
			  _old_bytes("a\0b", 3));
	ck_assert_uint_ne(agent_fnv_bytes(AGENT_FNV_BASIS, "a\0b", 3),
			  agent_fnv_str(AGENT_FNV_BASIS, "a\0b"));
	ck_assert_uint_eq(agent_fnv_bytes(AGENT_FNV_BASIS, NULL, 0),
			  AGENT_FNV_BASIS);
}
END_TEST

Suite *make_agent_fnv_suite(void)
{
	Suite *s = suite_create("agent_fnv");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_fnv_constants);
	tcase_add_test(tc, test_fnv_vectors);
	tcase_add_test(tc, test_fnv_word_as_before);
	tcase_add_test(tc, test_fnv_ints_as_before);
	tcase_add_test(tc, test_fnv_strings_as_before);
	suite_add_tcase(s, tc);
	return s;
}
