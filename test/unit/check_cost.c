/* check_cost.c - the cost model of online-hps-khanna section 4.2. */
#include <math.h>
#include <stdlib.h>

#include "check_suites.h"
#include "dl_cost.h"
#include "dl_error.h"

#define TOL 1e-9

/*
 * The fixture: two nodes, RBW = 100 B/s, LBW = 500 B/s, C = 0.001 s/B, so
 * per byte: transfer 0.01 s, local read 0.002 s, compute 0.001 s.
 * Files: a = 1000 B, b = 2000 B, c = 500 B, d = 300 B (used by no job).
 */
static dl_cache_t *tc;
static dl_state_t *ts;
static uint32_t fa, fb, fc, fd;

static uint32_t _file(const char *path, uint64_t size)
{
	int64_t id = dl_cache_file_intern(tc, path, size);

	ck_assert_int_ge(id, 0);
	return (uint32_t)id;
}

static void _setup(void)
{
	dl_params_t p;

	tc = dl_cache_create(2, DL_EVICT_LRU, 1);
	ck_assert_ptr_nonnull(tc);
	dl_params_default(&p);
	p.rbw = 100;
	p.lbw = 500;
	p.cpb = 0.001;
	p.nstorage = 4;
	ts = dl_state_create(tc, &p);
	ck_assert_ptr_nonnull(ts);
	ck_assert_int_eq(dl_state_add_node(ts, "n1", 1, 1), 0);
	ck_assert_int_eq(dl_state_add_node(ts, "n2", 1, 1), 1);
	fa = _file("/d/a", 1000);
	fb = _file("/d/b", 2000);
	fc = _file("/d/c", 500);
	fd = _file("/d/d", 300);
}

static void _teardown(void)
{
	dl_state_destroy(ts);
	dl_cache_destroy(tc);
	ts = NULL;
	tc = NULL;
}

static dl_job_t _job(uint32_t id, uint32_t *files, uint32_t n)
{
	dl_job_t j = { 0 };

	j.id = id;
	j.state = DL_JOB_PENDING;
	j.files = files;
	j.nfiles = n;
	j.node = -1;
	j.compute = -1;
	return j;
}

START_TEST(test_transfer_per_byte)
{
	dl_params_t p = ts->params;

	/* s = 4, P = 2: 0.25 / 100 + 0.75 * 0.5 / 100 = 0.0025 + 0.00375 */
	ck_assert_double_eq_tol(dl_cost_transfer_per_byte(&p, 4, 2), 0.00625,
				TOL);
	/* s = 1: ProbFNE = 1, always a full transfer, 1 / 100, whatever P */
	ck_assert_double_eq_tol(dl_cost_transfer_per_byte(&p, 1, 2), 0.01, TOL);
	ck_assert_double_eq_tol(dl_cost_transfer_per_byte(&p, 1, 64), 0.01,
				TOL);
	/* P = 1: ProbFE = 1, only the first of the 4 pays: 0.25 / 100 */
	ck_assert_double_eq_tol(dl_cost_transfer_per_byte(&p, 4, 1), 0.0025,
				TOL);
	/* s = 3, P = 4: 1/300 + (2/3) * (3/4) / 100 = 1/300 + 1/200 = 1/120 */
	ck_assert_double_eq_tol(dl_cost_transfer_per_byte(&p, 3, 4),
				1.0 / 120, TOL);
	/* 0 sharers and 0 parts count as 1 */
	ck_assert_double_eq_tol(dl_cost_transfer_per_byte(&p, 0, 0), 0.01, TOL);
	/* RBW 0 is infinite; NULL params cost nothing */
	p.rbw = 0;
	ck_assert_double_eq(dl_cost_transfer_per_byte(&p, 4, 2), 0.0);
	ck_assert_double_eq(dl_cost_transfer_per_byte(NULL, 4, 2), 0.0);
}
END_TEST

START_TEST(test_job_estimate)
{
	uint32_t files[] = { fa, fb };
	uint32_t sharers[4] = { 0 };
	dl_job_t j = _job(1, files, 2);

	sharers[fa] = 4;
	sharers[fb] = 1;
	/*
	 * eq. 6 with P = 2:
	 *   a: 1000 * (0.00625 + 0.002 + 0.001) = 1000 * 0.00925 =  9.25
	 *   b: 2000 * (0.01    + 0.002 + 0.001) = 2000 * 0.013   = 26
	 *                                                   total 35.25
	 */
	ck_assert_double_eq_tol(dl_cost_job_estimate(ts, &j, sharers, 2),
				35.25, TOL);
	/* No sharers table: every file pays 0.01/B: 13 + 26 = 39 */
	ck_assert_double_eq_tol(dl_cost_job_estimate(ts, &j, NULL, 2), 39.0,
				TOL);
	/*
	 * Explicit compute of 5 s replaces C * size:
	 *   a: 1000 * 0.00825 = 8.25, b: 2000 * 0.012 = 24, + 5 = 37.25
	 */
	j.compute = 5;
	ck_assert_double_eq_tol(dl_cost_job_estimate(ts, &j, sharers, 2),
				37.25, TOL);
	/* A job without files costs its compute only. */
	j.nfiles = 0;
	ck_assert_double_eq_tol(dl_cost_job_estimate(ts, &j, sharers, 2), 5.0,
				TOL);
	j.compute = -1;
	ck_assert_double_eq(dl_cost_job_estimate(ts, &j, sharers, 2), 0.0);
	ck_assert_double_eq(dl_cost_job_estimate(NULL, &j, NULL, 2), 0.0);
	ck_assert_double_eq(dl_cost_job_estimate(ts, NULL, NULL, 2), 0.0);
}
END_TEST

START_TEST(test_unknown_size)
{
	uint32_t fu = _file("/d/unknown", DL_CACHE_SIZE_UNKNOWN);
	uint32_t files[] = { fu };
	dl_job_t j = _job(1, files, 1);

	/* Unknown sizes count as params.unknown_size: 4000 B * 0.013 = 52 */
	ts->params.unknown_size = 4000;
	ck_assert_double_eq_tol(dl_cost_job_estimate(ts, &j, NULL, 2), 52.0,
				TOL);
}
END_TEST

START_TEST(test_sharers)
{
	uint32_t j1f[] = { fa, fb }, j2f[] = { fa }, j3f[] = { fa, fa, fc };
	uint32_t j4f[] = { fb };
	dl_job_t j;
	uint32_t *s = NULL;

	j = _job(1, j1f, 2);
	ck_assert_int_eq(dl_state_add_job(ts, &j), 0);
	j = _job(2, j2f, 1);
	ck_assert_int_eq(dl_state_add_job(ts, &j), 1);
	j = _job(3, j3f, 3); /* names a twice: counts once */
	ck_assert_int_eq(dl_state_add_job(ts, &j), 2);
	j = _job(4, j4f, 1); /* running: not counted */
	j.state = DL_JOB_RUNNING;
	j.node = 0;
	ck_assert_int_eq(dl_state_add_job(ts, &j), 3);

	ck_assert_int_eq(dl_cost_sharers(ts, &s), 0);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(s[fa], 3);
	ck_assert_uint_eq(s[fb], 1);
	ck_assert_uint_eq(s[fc], 1);
	ck_assert_uint_eq(s[fd], 0);
	free(s);

	s = (uint32_t *)&j; /* must stay untouched on error */
	ck_assert_int_eq(dl_cost_sharers(NULL, &s), DL_EINVAL);
	ck_assert_ptr_eq(s, (uint32_t *)&j);
	ck_assert_int_eq(dl_cost_sharers(ts, NULL), DL_EINVAL);
}
END_TEST

START_TEST(test_sharers_empty)
{
	uint32_t *s = NULL;

	/* No pending job: every file has 0 sharers. */
	ck_assert_int_eq(dl_cost_sharers(ts, &s), 0);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(s[fa], 0);
	ck_assert_uint_eq(s[fd], 0);
	free(s);
}
END_TEST

START_TEST(test_on_node)
{
	uint32_t files[] = { fa, fb };
	dl_job_t j = _job(1, files, 2);

	ck_assert_int_eq(dl_cache_insert(tc, 0, fa, 1, NULL, NULL), 0);
	/*
	 * Node 0 caches a: a = 1000 * (0.002 + 0.001) = 3,
	 *                  b = 2000 * (0.01 + 0.002 + 0.001) = 26: 29.
	 * Node 1 caches nothing: a = 1000 * 0.013 = 13, + 26 = 39.
	 */
	ck_assert_double_eq_tol(dl_cost_job_on_node(ts, &j, 0), 29.0, TOL);
	ck_assert_double_eq_tol(dl_cost_job_on_node(ts, &j, 1), 39.0, TOL);
	ck_assert(dl_cost_job_on_node(ts, &j, 0) <
		  dl_cost_job_on_node(ts, &j, 1));
	/* A node out of range caches nothing. */
	ck_assert_double_eq_tol(dl_cost_job_on_node(ts, &j, 7), 39.0, TOL);
	/* Explicit compute 2 s: 1000 * 0.002 + 2000 * 0.012 + 2 = 28 */
	j.compute = 2;
	ck_assert_double_eq_tol(dl_cost_job_on_node(ts, &j, 0), 28.0, TOL);
	/* A node's own LBW of 1000 B/s: reads 3000 B in 3 s: 20 + 3 + 2 */
	ts->nodes[0].lbw = 1000;
	ck_assert_double_eq_tol(dl_cost_job_on_node(ts, &j, 0), 25.0, TOL);
	ck_assert_double_eq(dl_cost_job_on_node(NULL, &j, 0), 0.0);
}
END_TEST

START_TEST(test_remaining)
{
	uint32_t files[] = { fa, fb };
	dl_job_t j = _job(1, files, 2);
	const dl_job_t *r;

	ck_assert_int_eq(dl_cache_insert(tc, 0, fa, 1, NULL, NULL), 0);
	j.state = DL_JOB_RUNNING;
	j.node = 0;
	j.start = 10;
	ck_assert_int_eq(dl_state_add_job(ts, &j), 0);
	r = &ts->jobs[0];
	/* Execution on node 0 is 29 s (see test_on_node); ran 10 s. */
	ts->now = 20;
	ck_assert_double_eq_tol(dl_cost_job_remaining(ts, r), 19.0, TOL);
	/* Ran 39 s > 29 s: floored at 0. */
	ts->now = 49;
	ck_assert_double_eq(dl_cost_job_remaining(ts, r), 0.0);
	/* A start in the future counts as not started. */
	ts->now = 5;
	ck_assert_double_eq_tol(dl_cost_job_remaining(ts, r), 29.0, TOL);
	/* A pending job (no node) has no remaining time. */
	ts->now = 20;
	j = _job(2, files, 2);
	ck_assert_double_eq(dl_cost_job_remaining(ts, &j), 0.0);
	ck_assert_double_eq(dl_cost_job_remaining(NULL, r), 0.0);
	/* While a plan runs (dl_state_t.remaining): the state's own jobs
	 * read the memo, by index; a copy outside its array is computed. */
	{
		const double memo[1] = { 7.5 };
		dl_job_t copy = *r;

		ts->remaining = memo;
		ck_assert_double_eq(dl_cost_job_remaining(ts, r), 7.5);
		ck_assert_double_eq_tol(dl_cost_job_remaining(ts, &copy), 19.0,
					TOL);
		ts->remaining = NULL;
	}
}
END_TEST

START_TEST(test_helpers)
{
	uint32_t files[] = { fa, fb };
	dl_job_t j = _job(1, files, 2);

	/* 3000 B * 0.001 s/B = 3 s; explicit compute wins. */
	ck_assert_double_eq_tol(dl_cost_job_compute(ts, &j), 3.0, TOL);
	j.compute = 0;
	ck_assert_double_eq(dl_cost_job_compute(ts, &j), 0.0);
	ck_assert_double_eq_tol(dl_cost_transfer_time(ts, 250), 2.5, TOL);
	ck_assert_double_eq_tol(dl_cost_read_time(ts, 1, 250), 0.5, TOL);
	ts->nodes[1].lbw = 250;
	ck_assert_double_eq_tol(dl_cost_read_time(ts, 1, 250), 1.0, TOL);
	ck_assert_double_eq_tol(dl_cost_read_time(ts, 0, 250), 0.5, TOL);
	/* Infinite bandwidths cost nothing. */
	ts->params.rbw = 0;
	ts->params.lbw = -1;
	ck_assert_double_eq(dl_cost_transfer_time(ts, 250), 0.0);
	ck_assert_double_eq(dl_cost_read_time(ts, 0, 250), 0.0);
}
END_TEST

START_TEST(test_storage_of)
{
	/* Round-robin by id over 4 storage nodes. */
	ck_assert_uint_eq(dl_cost_storage_of(ts, 0), 0);
	ck_assert_uint_eq(dl_cost_storage_of(ts, 3), 3);
	ck_assert_uint_eq(dl_cost_storage_of(ts, 6), 2);
	ts->params.nstorage = 0; /* as 1 */
	ck_assert_uint_eq(dl_cost_storage_of(ts, 6), 0);
	ck_assert_uint_eq(dl_cost_storage_of(NULL, 6), 0);
}
END_TEST

/* Add a running job of one slot on node 0 reading files (static). */
static void _running0(uint32_t id, uint32_t *files, uint32_t n, double start,
		      double compute)
{
	dl_job_t r = _job(id, files, n);

	r.state = DL_JOB_RUNNING;
	r.node = 0;
	r.start = start;
	r.compute = compute;
	r.cpus = 1;
	ck_assert_int_ge(dl_state_add_job(ts, &r), 0);
}

/* Job A on node 0 (see below), now 10; node 1 resumes in 30 s. */
static void _run_a(void)
{
	static uint32_t fa_only[1];

	fa_only[0] = fa;
	_running0(1, fa_only, 1, 0, 50);
	ts->now = 10;
	ts->nodes[0].busy = 1;
	ts->nodes[1].wake = 30;
}

/*
 * Power saving: node 0 runs job A (file a not cached: 10 s transfer + 2 s
 * read + 50 s compute = 62 s, started at 0, now 10: 52 s left); node 1 is
 * idle and powered down, resuming in 30 s.
 */
START_TEST(test_node_wait)
{
	dl_cost_end_t *ends = NULL;
	size_t nends = 9;

	_run_a();
	/* With and without the ends table, the same answers. */
	ck_assert_int_eq(dl_cost_ends(ts, &ends, &nends), 0);
	ck_assert_uint_eq(nends, 1);
	ck_assert_uint_eq(ends[0].node, 0);
	ck_assert_uint_eq(ends[0].cpus, 1);
	ck_assert_double_eq_tol(ends[0].left, 52.0, TOL);
	ck_assert_double_eq_tol(dl_cost_node_wait(ts, 0, 1, NULL, 0), 52.0,
				TOL);
	ck_assert_double_eq_tol(dl_cost_node_wait(ts, 0, 1, ends, nends), 52.0,
				TOL);
	ck_assert_double_eq_tol(dl_cost_node_wait(ts, 1, 1, ends, nends), 30.0,
				TOL);
	/* More slots than the node has, or slots no listed job frees. */
	ck_assert(isinf(dl_cost_node_wait(ts, 0, 2, ends, nends)));
	ts->nodes[1].busy = 1;
	ck_assert(isinf(dl_cost_node_wait(ts, 1, 1, NULL, 0)));
	ts->nodes[1].busy = 0;
	ts->nodes[1].usable = 0;
	ck_assert(isinf(dl_cost_node_wait(ts, 1, 1, NULL, 0)));
	ck_assert(isinf(dl_cost_node_wait(ts, 5, 1, NULL, 0)));
	ts->nodes[1].usable = 1;
	free(ends);

	/*
	 * Node 0 with 2 slots, both taken: A (52 s left) and B (compute
	 * 25 s, started at 5: 20 s left).  One slot is free after 20 s,
	 * two after 52 s.
	 */
	_running0(2, NULL, 0, 5, 25);
	ts->nodes[0].cpus = 2;
	ts->nodes[0].busy = 2;
	ck_assert_int_eq(dl_cost_ends(ts, &ends, &nends), 0);
	ck_assert_uint_eq(nends, 2);
	ck_assert_double_eq_tol(ends[0].left, 20.0, TOL);
	ck_assert_double_eq_tol(dl_cost_node_wait(ts, 0, 1, ends, nends), 20.0,
				TOL);
	ck_assert_double_eq_tol(dl_cost_node_wait(ts, 0, 2, ends, nends), 52.0,
				TOL);
	/* A resuming node with a job already on it: the later of both. */
	ts->nodes[0].wake = 40;
	ck_assert_double_eq_tol(dl_cost_node_wait(ts, 0, 1, ends, nends), 40.0,
				TOL);
	ck_assert_double_eq_tol(dl_cost_node_wait(ts, 0, 2, ends, nends), 52.0,
				TOL);
	free(ends);
	ck_assert_int_eq(dl_cost_ends(NULL, &ends, &nends), DL_EINVAL);
	ck_assert_double_eq(dl_cost_node_wait(NULL, 0, 1, NULL, 0), 0.0);
}
END_TEST

/*
 * A pending job of a (1000 B) and b (2000 B).  Node 0 runs A, 52 s left
 * (as above), caches nothing: 52 + 3000 / 100 = 82 s.  Node 1 is powered
 * down (30 s to resume) and kept b: 30 + 1000 / 100 = 40 s.
 */
START_TEST(test_job_ready)
{
	uint32_t files[] = { fa, fb };
	dl_job_t j = _job(2, files, 2);

	_run_a();
	j.cpus = 1;
	ck_assert_int_eq(dl_cache_insert(tc, 1, fb, 1, NULL, NULL), 0);
	ck_assert_double_eq_tol(dl_cost_job_ready(ts, &j, 0, NULL, 0), 82.0,
				TOL);
	ck_assert_double_eq_tol(dl_cost_job_ready(ts, &j, 1, NULL, 0), 40.0,
				TOL);
	/* Its cache lost in the power-down: 30 + 30 = 60 s. */
	ck_assert_int_eq(dl_cache_remove(tc, 1, fb), 0);
	ck_assert_double_eq_tol(dl_cost_job_ready(ts, &j, 1, NULL, 0), 60.0,
				TOL);
	ck_assert_double_eq(dl_cost_job_ready(NULL, &j, 1, NULL, 0), 0.0);
	ck_assert_double_eq(dl_cost_job_ready(ts, NULL, 1, NULL, 0), 0.0);
}
END_TEST

Suite *make_cost_suite(void)
{
	Suite *s = suite_create("cost");
	TCase *tcase = tcase_create("model");

	tcase_add_checked_fixture(tcase, _setup, _teardown);
	tcase_add_test(tcase, test_transfer_per_byte);
	tcase_add_test(tcase, test_job_estimate);
	tcase_add_test(tcase, test_unknown_size);
	tcase_add_test(tcase, test_sharers);
	tcase_add_test(tcase, test_sharers_empty);
	tcase_add_test(tcase, test_on_node);
	tcase_add_test(tcase, test_remaining);
	tcase_add_test(tcase, test_helpers);
	tcase_add_test(tcase, test_storage_of);
	tcase_add_test(tcase, test_node_wait);
	tcase_add_test(tcase, test_job_ready);
	suite_add_tcase(s, tcase);
	return s;
}
