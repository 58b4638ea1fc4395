/*
 * check_agent_pfplan.c - prefetch selection and reconciling
 * (agent_pfplan.h) on hand-made cases: which jobs (priority order per
 * node, the head of the queue, disconnected nodes), which files (known
 * sizes, one storage read of a file cached nowhere), the byte budget (shared files count once, the first job that
 * does not fit ends the list), peer hints (usable holders, lower load
 * first), and what is sent again or cancelled (unchanged, moved, file
 * list changed, node reconnected, refresh at half the timeout, started on
 * its node, started elsewhere, gone).
 */
#include <stdio.h>
#include <stdlib.h>

#include "check_suites.h"
#include "dl_error.h"
#include "agent_pfplan.h"

#define NN 3
static dl_cache_t *cache;
static pf_node_t nodes[NN];
static uint32_t f[8];           /* f[i] is /f<i>, 100 * (i + 1) bytes */

static void _setup(void)
{
	char path[16];
	uint32_t i;

	cache = dl_cache_create(NN, DL_EVICT_LRU, 1);
	ck_assert_ptr_nonnull(cache);
	for (i = 0; i < 8; i++) {
		snprintf(path, sizeof(path), "/f%u", i);
		f[i] = (uint32_t)dl_cache_file_intern(cache, path,
						      100 * (i + 1));
	}
	for (i = 0; i < NN; i++) {
		nodes[i].usable = true;
		nodes[i].epoch = 1;
		nodes[i].budget = 10000;
		nodes[i].max_jobs = 10;
		nodes[i].load = 0;
	}
}

static pf_pick_t *picks;
static int64_t npicks;

static void _teardown(void)
{
	agent_pfplan_picks_free(picks, npicks > 0 ? (size_t)npicks : 0);
	picks = NULL;
	npicks = 0;
	dl_cache_destroy(cache);
}

static pf_job_t _job(uint32_t id, int32_t node, uint32_t prio,
		     const uint32_t *files, uint32_t n)
{
	pf_job_t j = { .job_id = id, .node = node, .priority = prio,
		       .files = files, .nfiles = n };

	return j;
}

static void _select(const pf_job_t *jobs, size_t n)
{
	agent_pfplan_picks_free(picks, npicks > 0 ? (size_t)npicks : 0);
	npicks = agent_pfplan_select(cache, jobs, n, nodes, NN, NULL, &picks);
	ck_assert_int_ge(npicks, 0);
}

static const pf_pick_t *_pick(uint32_t job)
{
	int64_t i;

	for (i = 0; i < npicks; i++)
		if (picks[i].job_id == job)
			return &picks[i];
	return NULL;
}

START_TEST(test_pf_priority_budget)
{
	uint32_t a[] = { f[0], f[1] }, b[] = { f[1], f[2] }, c[] = { f[3] };
	uint32_t d[] = { f[0] };
	pf_job_t jobs[] = {
		_job(1, 0, 10, a, 2),   /* 300 missing */
		_job(2, 0, 30, b, 2),   /* 500 missing, first by priority */
		_job(3, 0, 20, c, 1),   /* 400 */
		_job(4, 0, 5, d, 1),    /* shares f0 with job 1 */
	};

	nodes[0].budget = 1000;
	_select(jobs, 4);
	/*
	 * 2 (500), 3 (900), then 1 needs f0 (100, f1 counted): 1000; job
	 * 4's f0 is counted already: it costs nothing and fits.
	 */
	ck_assert_int_eq(npicks, 4);
	ck_assert_uint_eq(_pick(2)->missing, 500);
	ck_assert_uint_eq(_pick(3)->missing, 400);
	ck_assert_uint_eq(_pick(1)->missing, 100);
	ck_assert_uint_eq(_pick(4)->missing, 0);
	nodes[0].budget = 899;
	_select(jobs, 4);
	/* 2 fits (500), 3 does not (900): the list ends there. */
	ck_assert_int_eq(npicks, 1);
	ck_assert_ptr_nonnull(_pick(2));
}
END_TEST

START_TEST(test_pf_shared_counts_once)
{
	uint32_t a[] = { f[0], f[1] }, b[] = { f[0] };
	pf_job_t jobs[] = { _job(1, 0, 2, a, 2), _job(2, 0, 1, b, 1) };

	nodes[0].budget = 300;
	_select(jobs, 2);
	ck_assert_int_eq(npicks, 2);
	ck_assert_uint_eq(_pick(2)->missing, 0);
}
END_TEST

START_TEST(test_pf_cached_unknown_nodes)
{
	uint32_t a[] = { f[0], f[1], 0 }, b[] = { f[2] }, c[] = { f[3] };
	pf_job_t jobs[4];
	int64_t unk;

	unk = dl_cache_file_intern(cache, "/unknown", DL_CACHE_SIZE_UNKNOWN);
	a[2] = (uint32_t)unk;
	ck_assert_int_eq(dl_cache_insert(cache, 0, f[0], 1, NULL, NULL), 0);
	jobs[0] = _job(1, 0, 1, a, 3);
	jobs[1] = _job(2, 1, 1, b, 1);  /* node 1 is not usable */
	jobs[2] = _job(3, -1, 1, c, 1); /* not placed */
	jobs[3] = _job(4, 2, 1, c, 1);
	jobs[3].running = true;         /* running: not prefetched */
	nodes[1].usable = false;
	_select(jobs, 4);
	ck_assert_int_eq(npicks, 1);
	/* The file of unknown size is left out; f0 is cached already. */
	ck_assert_uint_eq(_pick(1)->nfiles, 2);
	ck_assert_uint_eq(_pick(1)->ncached, 1);
	ck_assert_uint_eq(_pick(1)->missing, 200);
}
END_TEST

START_TEST(test_pf_max_jobs)
{
	uint32_t a[] = { f[0] };
	pf_job_t jobs[] = { _job(1, 0, 1, a, 1), _job(2, 0, 3, a, 1),
			    _job(3, 0, 2, a, 1) };

	nodes[0].max_jobs = 2;
	_select(jobs, 3);
	ck_assert_int_eq(npicks, 2);
	ck_assert_ptr_nonnull(_pick(2));
	ck_assert_ptr_nonnull(_pick(3));
	ck_assert_ptr_null(_pick(1));
}
END_TEST

/*
 * A file no usable node holds comes from storage to one node only: the
 * node of a job still staging it, else of the first job by priority at
 * the head of a queue; the others leave it out until it is cached.
 */
START_TEST(test_pf_one_storage_read)
{
	uint32_t a[] = { f[0], f[1] }, b[] = { f[0], f[2] }, c[] = { f[3] };
	pf_job_t jobs[] = {
		_job(1, 0, 10, a, 2), _job(2, 1, 20, b, 2),
		_job(3, 2, 1, c, 1), _job(4, 0, 5, c, 1),
	};

	jobs[2].running = jobs[2].staging = true;
	_select(jobs, 4);
	/* f0 is node 1's (job 2 first), f3 node 2's (job 3 stages it). */
	ck_assert_int_eq(npicks, 2);
	ck_assert_uint_eq(_pick(1)->nfiles, 1);
	ck_assert_uint_eq(_pick(1)->files[0], f[1]);
	ck_assert_uint_eq(_pick(1)->missing, 200);
	ck_assert_uint_eq(_pick(2)->nfiles, 2);
	ck_assert_ptr_null(_pick(4));
	/* Once node 1 holds f0, node 0 copies it from there. */
	ck_assert_int_eq(dl_cache_insert(cache, 1, f[0], 1, NULL, NULL), 0);
	_select(jobs, 4);
	ck_assert_uint_eq(_pick(1)->nfiles, 2);
	ck_assert_uint_eq(_pick(1)->missing, 300);
	/* A holder that is not usable holds nothing; job 3 staged: f3 is
	 * job 4's to fetch. */
	nodes[1].usable = false;
	jobs[2].staging = false;
	_select(jobs, 4);
	ck_assert_int_eq(npicks, 2);
	ck_assert_uint_eq(_pick(1)->nfiles, 2);
	ck_assert_uint_eq(_pick(4)->nfiles, 1);
	/* Beyond the head of node 0's queue, job 1 claims nothing: node 1's
	 * job 2 is back and takes f0 again. */
	nodes[1].usable = true;
	dl_cache_remove(cache, 1, f[0]);
	nodes[0].max_jobs = 1;
	jobs[0].priority = 1;
	_select(jobs, 4);
	ck_assert_ptr_null(_pick(1));
	ck_assert_uint_eq(_pick(2)->nfiles, 2);
	ck_assert_uint_eq(_pick(4)->nfiles, 1);
}
END_TEST

/* A file given to a node stays its while a job there reads it. */
START_TEST(test_pf_owner_kept)
{
	uint32_t a[] = { f[0] };
	pf_job_t jobs[] = { _job(2, 1, 20, a, 1), _job(1, 0, 10, a, 1) };
	pf_table_t t = { 0 };
	pf_pick_t *p = NULL;
	int64_t n;

	/* Job 1 alone: node 0 fetches f0. */
	n = agent_pfplan_select(cache, jobs + 1, 1, nodes, NN, &t, &p);
	ck_assert_int_eq(n, 1);
	ck_assert_uint_eq(p[0].node, 0);
	agent_pfplan_picks_free(p, (size_t)n);
	ck_assert_uint_eq(t.owner[f[0]], 1);
	/* Job 2, first by priority, arrives on node 1 while node 0's copy
	 * may be under way: node 0 keeps it, job 2 gets nothing to fetch. */
	n = agent_pfplan_select(cache, jobs, 2, nodes, NN, &t, &p);
	ck_assert_int_eq(n, 1);
	ck_assert_uint_eq(p[0].job_id, 1);
	agent_pfplan_picks_free(p, (size_t)n);
	/* Without the last selection, job 2's node would take it. */
	_select(jobs, 2);
	ck_assert_int_eq(npicks, 1);
	ck_assert_uint_eq(picks[0].job_id, 2);
	/* Job 1 gone: node 1 takes it over. */
	n = agent_pfplan_select(cache, jobs, 1, nodes, NN, &t, &p);
	ck_assert_int_eq(n, 1);
	ck_assert_uint_eq(p[0].job_id, 2);
	ck_assert_uint_eq(t.owner[f[0]], 2);
	agent_pfplan_picks_free(p, (size_t)n);
	agent_pfplan_table_free(&t);
	ck_assert_ptr_null(t.owner);
}
END_TEST

START_TEST(test_pf_peers)
{
	uint32_t out[4];

	ck_assert_int_eq(dl_cache_insert(cache, 0, f[0], 1, NULL, NULL), 0);
	ck_assert_int_eq(dl_cache_insert(cache, 1, f[0], 1, NULL, NULL), 0);
	ck_assert_int_eq(dl_cache_insert(cache, 2, f[0], 1, NULL, NULL), 0);
	nodes[1].load = 0.5;
	nodes[2].load = 0.1;
	/* For node 0: 2 (less loaded), then 1; not 0 itself. */
	ck_assert_uint_eq(agent_pfplan_peers(cache, f[0], 0, nodes, NN, out,
					     4),
			  2);
	ck_assert_uint_eq(out[0], 2);
	ck_assert_uint_eq(out[1], 1);
	ck_assert_uint_eq(agent_pfplan_peers(cache, f[0], 0, nodes, NN, out,
					     1),
			  1);
	ck_assert_uint_eq(out[0], 2);
	/* A disconnected holder is no peer. */
	nodes[2].usable = false;
	ck_assert_uint_eq(agent_pfplan_peers(cache, f[0], 0, nodes, NN, out,
					     4),
			  1);
	ck_assert_uint_eq(out[0], 1);
	ck_assert_uint_eq(agent_pfplan_peers(cache, f[1], 0, nodes, NN, out,
					     4),
			  0);
}
END_TEST

/* Select and reconcile at time now; RET the actions (free them). */
static pf_action_t *_round(pf_table_t *t, pf_job_t *jobs, size_t n,
			   time_t now, int64_t *nacts)
{
	pf_action_t *acts = NULL;

	_select(jobs, n);
	*nacts = agent_pfplan_reconcile(t, picks, (size_t)npicks, jobs, n,
					nodes, NN, now, 600, &acts);
	ck_assert_int_ge(*nacts, 0);
	return acts;
}

START_TEST(test_pf_reconcile)
{
	uint32_t a[] = { f[0] }, b[] = { f[1] };
	pf_job_t jobs[] = { _job(1, 0, 1, a, 1), _job(2, 1, 1, b, 1) };
	pf_table_t t = { 0 };
	pf_action_t *x;
	int64_t n;

	/* Cached on node 1: job 1 may fetch it too when it reads it below
	 * (a file cached nowhere is one node's to fetch). */
	ck_assert_int_eq(dl_cache_insert(cache, 1, f[1], 1, NULL, NULL), 0);
	x = _round(&t, jobs, 2, 1000, &n);
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(x[0].kind, PF_SEND);
	ck_assert_int_eq(x[1].kind, PF_SEND);
	free(x);
	ck_assert_uint_eq(t.n, 2);
	/* Unchanged: nothing is sent again. */
	x = _round(&t, jobs, 2, 1001, &n);
	ck_assert_int_eq(n, 0);
	free(x);
	/* Job 1 moves to node 2: cancel on 0, then send to 2. */
	jobs[0].node = 2;
	x = _round(&t, jobs, 2, 1002, &n);
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(x[0].kind, PF_CANCEL);
	ck_assert_uint_eq(x[0].node, 0);
	ck_assert_uint_eq(x[0].job_id, 1);
	ck_assert_int_eq(x[1].kind, PF_SEND);
	ck_assert_uint_eq(x[1].node, 2);
	free(x);
	/* Its file list changes: sent again (replaces), no cancel. */
	jobs[0].files = b;
	x = _round(&t, jobs, 2, 1003, &n);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(x[0].kind, PF_SEND);
	free(x);
	/* Node 2 reconnected (its pins are gone): sent again. */
	nodes[2].epoch++;
	x = _round(&t, jobs, 2, 1004, &n);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(x[0].kind, PF_SEND);
	free(x);
	/* Half the timeout after it was sent, each one is refreshed. */
	x = _round(&t, jobs, 2, 1000 + 299, &n);
	ck_assert_int_eq(n, 0);
	free(x);
	x = _round(&t, jobs, 2, 1000 + 300, &n);
	ck_assert_int_eq(n, 1);
	ck_assert_uint_eq(x[0].job_id, 2);
	free(x);
	x = _round(&t, jobs, 2, 1004 + 300, &n);
	ck_assert_int_eq(n, 1);
	ck_assert_uint_eq(x[0].job_id, 1);
	free(x);
	agent_pfplan_table_free(&t);
}
END_TEST

START_TEST(test_pf_cancel)
{
	uint32_t a[] = { f[0] };
	pf_job_t jobs[] = { _job(1, 0, 1, a, 1), _job(2, 0, 1, a, 1),
			    _job(3, 1, 1, a, 1), _job(4, 2, 1, a, 1) };
	pf_table_t t = { 0 };
	pf_action_t *x;
	int64_t n, i;

	/* Cached on node 0: every node may fetch it. */
	ck_assert_int_eq(dl_cache_insert(cache, 0, f[0], 1, NULL, NULL), 0);
	x = _round(&t, jobs, 4, 1000, &n);
	ck_assert_int_eq(n, 4);
	free(x);
	/* 1 starts on its node (no cancel), 2 starts elsewhere (cancel),
	 * 3 is widened (no placement: cancel), 4's node went away. */
	jobs[0].running = true;
	jobs[1].running = true;
	jobs[1].node = 1;
	jobs[2].node = -1;
	nodes[2].usable = false;
	x = _round(&t, jobs, 4, 1001, &n);
	ck_assert_int_eq(n, 2);
	for (i = 0; i < n; i++) {
		ck_assert_int_eq(x[i].kind, PF_CANCEL);
		ck_assert(x[i].job_id == 2 || x[i].job_id == 3);
		ck_assert_uint_eq(x[i].node, x[i].job_id == 2 ? 0 : 1);
	}
	free(x);
	ck_assert_uint_eq(t.n, 0);
	/* A job that is gone altogether is cancelled too. */
	nodes[2].usable = true;
	x = _round(&t, jobs + 3, 1, 1002, &n);
	ck_assert_int_eq(n, 1);
	free(x);
	x = _round(&t, jobs, 0, 1003, &n);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(x[0].kind, PF_CANCEL);
	ck_assert_uint_eq(x[0].job_id, 4);
	free(x);
	agent_pfplan_table_free(&t);
}
END_TEST

Suite *make_agent_pfplan_suite(void)
{
	Suite *s = suite_create("agent_pfplan");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, _setup, _teardown);
	tcase_add_test(tc, test_pf_priority_budget);
	tcase_add_test(tc, test_pf_shared_counts_once);
	tcase_add_test(tc, test_pf_cached_unknown_nodes);
	tcase_add_test(tc, test_pf_max_jobs);
	tcase_add_test(tc, test_pf_one_storage_read);
	tcase_add_test(tc, test_pf_owner_kept);
	tcase_add_test(tc, test_pf_peers);
	tcase_add_test(tc, test_pf_reconcile);
	tcase_add_test(tc, test_pf_cancel);
	suite_add_tcase(s, tc);
	return s;
}
