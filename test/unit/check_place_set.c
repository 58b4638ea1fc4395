/*
 * check_place_set.c - the nodes of a multi-node job (place/dl_place_set.h)
 * on hand-computed cases: the k nodes caching the most of its input, ties
 * to the lower index, eligibility, usability and slots, too few nodes,
 * nothing cached, and the bound of a set (its least-cached node's).
 *
 * The fixture's default parameters move 1e8 bytes per second from storage,
 * so a node's bound is its cached bytes / 1e8 seconds before clamping.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check_suites.h"
#include "dl_error.h"
#include "fixture.h"
#include "place/dl_place_set.h"

#define ts fx_state

/* A pending job of cpus slots per node reading files (not in the state). */
static dl_job_t _job(const uint32_t *files, uint32_t n, uint32_t cpus,
		     const uint8_t *eligible)
{
	dl_job_t j = { 0 };

	j.id = 1;
	j.state = DL_JOB_PENDING;
	j.files = (uint32_t *)files;
	j.nfiles = n;
	j.cpus = cpus;
	j.compute = -1;
	j.node = -1;
	j.eligible = (uint8_t *)eligible;
	return j;
}

static void _cache(uint32_t node, uint32_t file)
{
	ck_assert_int_eq(dl_cache_insert(fx_cache, node, file, 1, NULL, NULL),
			 0);
}

/* Files cached on n3 and n4 (indices 2, 3): those two, in order. */
START_TEST(test_most_cached)
{
	uint32_t f[2], set[3] = { 99, 99, 99 };
	dl_job_t j;

	fx_setup(4, 2, NULL, DL_EVICT_VALUE);
	f[0] = fx_file("/a", 100000000);
	f[1] = fx_file("/b", 200000000);
	_cache(3, f[0]);
	_cache(3, f[1]);
	_cache(2, f[0]);
	_cache(2, f[1]);
	_cache(0, f[0]);
	j = _job(f, 2, 1, NULL);
	ck_assert_int_eq(dl_place_set_choose(ts, &j, 2, set), 2);
	ck_assert_uint_eq(set[0], 2);
	ck_assert_uint_eq(set[1], 3);
	/* Three nodes: n1 holds 1e8 bytes, the third most. */
	ck_assert_int_eq(dl_place_set_choose(ts, &j, 3, set), 3);
	ck_assert_uint_eq(set[0], 0);
	ck_assert_uint_eq(set[1], 2);
	ck_assert_uint_eq(set[2], 3);
	/* Four: one of them caches nothing. */
	{
		uint32_t all[4];

		ck_assert_int_eq(dl_place_set_choose(ts, &j, 4, all), 3);
		ck_assert_uint_eq(all[0], 0);
		ck_assert_uint_eq(all[3], 3);
	}
	ck_assert_uint_eq(dl_place_set_cached_bytes(ts, &j, set, 3),
			  100000000);
	fx_teardown();
}

END_TEST

/* Equal bytes: the lower indices; nothing cached anywhere: 0. */
START_TEST(test_ties_and_none)
{
	uint32_t f, set[2];
	dl_job_t j;

	fx_setup(4, 2, NULL, DL_EVICT_VALUE);
	f = fx_file("/a", 100000000);
	j = _job(&f, 1, 1, NULL);
	ck_assert_int_eq(dl_place_set_choose(ts, &j, 2, set), 0);
	ck_assert_uint_eq(set[0], 0);
	ck_assert_uint_eq(set[1], 1);
	_cache(3, f);
	_cache(1, f);
	ck_assert_int_eq(dl_place_set_choose(ts, &j, 2, set), 2);
	ck_assert_uint_eq(set[0], 1);
	ck_assert_uint_eq(set[1], 3);
	/* One of two cached: the other is the lowest empty node. */
	ck_assert_int_eq(dl_place_set_choose(ts, &j, 3, (uint32_t[3]){ 0 }),
			 2);
	fx_teardown();
}

END_TEST

/*
 * Ineligible, unusable and too small nodes are never chosen, even when
 * they cache the most; fewer candidates than k is DL_EINVAL and leaves
 * the output alone.
 */
START_TEST(test_candidates)
{
	uint8_t el[4] = { 1, 1, 0, 1 };
	uint32_t f, set[2] = { 99, 99 };
	dl_job_t j;

	fx_setup(4, 2, NULL, DL_EVICT_VALUE);
	f = fx_file("/a", 100000000);
	_cache(2, f);
	_cache(3, f);
	j = _job(&f, 1, 1, el);
	ck_assert_int_eq(dl_place_set_choose(ts, &j, 2, set), 1);
	ck_assert_uint_eq(set[0], 0);
	ck_assert_uint_eq(set[1], 3);
	ts->nodes[3].usable = 0;
	ck_assert_int_eq(dl_place_set_choose(ts, &j, 2, set), 0);
	ck_assert_uint_eq(set[0], 0);
	ck_assert_uint_eq(set[1], 1);
	set[0] = set[1] = 99;
	ck_assert_int_eq(dl_place_set_choose(ts, &j, 3, set), DL_EINVAL);
	ck_assert_uint_eq(set[0], 99);
	/* Three slots per node: none has them. */
	j = _job(&f, 1, 3, NULL);
	ck_assert_int_eq(dl_place_set_choose(ts, &j, 1, set), DL_EINVAL);
	ck_assert_int_eq(dl_place_set_choose(ts, &j, 0, set), DL_EINVAL);
	ck_assert_int_eq(dl_place_set_choose(NULL, &j, 1, set), DL_EINVAL);
	ck_assert_uint_eq(set[0], 99);
	fx_teardown();
}

END_TEST

/* The set is worth its least-cached node's bound; strict: forever. */
START_TEST(test_bound)
{
	uint32_t f[2], set[2] = { 2, 3 };
	dl_place_params_t p;
	dl_job_t j;

	fx_setup(4, 2, NULL, DL_EVICT_VALUE);
	f[0] = fx_file("/a", 1000000000);
	f[1] = fx_file("/b", 2000000000);
	_cache(2, f[0]);
	_cache(2, f[1]);
	_cache(3, f[1]);
	j = _job(f, 2, 1, NULL);
	dl_place_params_default(&p);
	/* n3: 30 s, n4: 20 s. */
	ck_assert_double_eq_tol(dl_place_set_bound(ts, &j, set, 2, &p), 20,
				1e-9);
	ck_assert_double_eq_tol(dl_place_set_bound(ts, &j, set, 1, &p), 30,
				1e-9);
	p.max_wait = 10;
	ck_assert_double_eq_tol(dl_place_set_bound(ts, &j, set, 2, &p), 10,
				1e-9);
	ck_assert_double_eq(dl_place_set_bound(ts, &j, set, 0, &p),
			    p.min_wait);
	/* n1 caches nothing: the floor. */
	set[0] = 0;
	ck_assert_double_eq(dl_place_set_bound(ts, &j, set, 2, &p),
			    p.min_wait);
	ck_assert_uint_eq(dl_place_set_cached_bytes(ts, &j, set, 2), 0);
	p.strict = 1;
	ck_assert(isinf(dl_place_set_bound(ts, &j, set, 2, &p)));
	fx_teardown();
}

END_TEST

Suite *make_place_set_suite(void)
{
	Suite *s = suite_create("place_set");
	TCase *tc = tcase_create("place_set");

	tcase_add_test(tc, test_most_cached);
	tcase_add_test(tc, test_ties_and_none);
	tcase_add_test(tc, test_candidates);
	tcase_add_test(tc, test_bound);
	suite_add_tcase(s, tc);
	return s;
}
