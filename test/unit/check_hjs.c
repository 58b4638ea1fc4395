/* check_hjs.c - the "hjs" policy (hjs-mansouri §3). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_suites.h"
#include "fixture.h"
#include "dl_error.h"
#include "dl_log.h"
#include "dl_policy.h"

#define tc fx_cache
#define ts fx_state
#define _file fx_file
#define _teardown fx_teardown

/* n nodes of cpus slots each; RBW as given, LBW and C off. */
static void _setup(uint32_t n, uint32_t cpus, double rbw)
{
	dl_params_t p;

	dl_params_default(&p);
	p.rbw = rbw;
	p.lbw = 0;
	p.cpb = 0;
	p.nstorage = 1;
	fx_setup(n, cpus, &p, DL_EVICT_LRU);
}

/* A job; higher prio plans first.  Returns its index. */
static int _job(uint32_t id, const uint32_t *files, uint32_t nfiles,
		double compute, uint64_t prio, const uint8_t *eligible)
{
	dl_job_t j = { 0 };
	int idx;

	j.id = id;
	j.state = DL_JOB_PENDING;
	j.files = (uint32_t *) files;
	j.nfiles = nfiles;
	j.cpus = 1;
	j.node = -1;
	j.priority = prio;
	j.arrival = id;
	j.compute = compute;
	j.eligible = (uint8_t *) eligible;
	idx = dl_state_add_job(ts, &j);
	ck_assert_int_ge(idx, 0);
	return idx;
}

static int _running(uint32_t id, int32_t node, double compute, double start)
{
	dl_job_t j = { 0 };
	int idx;

	j.id = id;
	j.state = DL_JOB_RUNNING;
	j.cpus = 1;
	j.node = node;
	j.compute = compute;
	j.start = start;
	idx = dl_state_add_job(ts, &j);
	ck_assert_int_ge(idx, 0);
	ts->nodes[node].busy++;
	return idx;
}

static dl_plan_t *_plan(const char *params)
{
	int err = 1;
	dl_policy_t *p = dl_policy_create("hjs", params, &err);
	dl_plan_t *plan = NULL;

	ck_assert_msg(p != NULL, "hjs rejected '%s'", params);
	ck_assert_int_eq(err, 0);
	ck_assert_int_eq(dl_policy_plan(p, ts, &plan), 0);
	dl_policy_destroy(p);
	return plan;
}

/*
 * Replica selection, eqs. 1-3.  Three nodes; file f (1000 B) is cached on
 * node 1 only, whose one slot is busy (P_CPU = 0); the storage node links
 * at 100 B/s with no delay.  Node links: bw 10, 1000, 10000 B/s, delays 0,
 * 5, 92 s.  The job (no compute, so W = 0 and FinalCost = TotalTime) may
 * not run on node 1.
 *   node 0: from node 1: 5 + 0 + 1000 * max(1/1000, 1/10) = 105 s;
 *           from storage: 0 + 0 + 1000 * max(1/100, 1/10) = 100 s;
 *           both at 10 B/s, P_BW 1 and 1.
 *   node 2: from node 1: 5 + 92 + 1000 * max(1/1000, 1/10000) = 98 s;
 *           from storage: 0 + 92 + 1000 * max(1/100, 1/10000) = 102 s;
 *           P_BW: node 1 1000/1000 = 1, storage 100/1000 = 0.1.
 * w = (0.5, 0.5, 0): node 0: node 1 scores 0.5 * 1 + 0.5 * 0 = 0.5,
 * storage 0.5 + 0.5 = 1 -> 100 s; node 2: node 1 0.5, storage 0.05 + 0.5
 * = 0.55 -> 102 s; so node 0 (100 < 102).
 * replica=min: node 0 min(105, 100) = 100, node 2 min(98, 102) = 98: node 2.
 * w = (1, 0, 0): node 0 ties at P_BW 1, the faster (storage, 100) wins;
 * node 2: node 1 (1 > 0.1), 98 s: node 2.
 */
START_TEST(test_replica_score)
{
	static const char *base =
		"bw=10:1000:10000,delay=0:5:92,sbw=100,sdelay=0";
	uint8_t elig[3] = { 1, 0, 1 };
	char params[256];
	dl_plan_t *plan;
	uint32_t f;
	int j;

	_setup(3, 1, 100);
	f = _file("/d/f", 1000);
	ck_assert_int_eq(dl_cache_insert(tc, 1, f, 0, NULL, NULL), 0);
	_running(100, 1, 0, 0);
	j = _job(1, &f, 1, 0, 1, elig);

	snprintf(params, sizeof(params), "%s,w1=0.5,w2=0.5,w3=0", base);
	plan = _plan(params);
	ck_assert_int_eq(plan->a[j].node, 0);
	dl_plan_free(plan);

	snprintf(params, sizeof(params), "%s,w1=0.5,w2=0.5,w3=0,replica=min",
		 base);
	plan = _plan(params);
	ck_assert_int_eq(plan->a[j].node, 2);
	dl_plan_free(plan);

	snprintf(params, sizeof(params), "%s,w1=1,w2=0,w3=0", base);
	plan = _plan(params);
	ck_assert_int_eq(plan->a[j].node, 2);
	dl_plan_free(plan);
	_teardown();
}

END_TEST

/*
 * P_IO: the free part of the holder's cache.  Same as above with w = (0.5,
 * 0, 0.5) and node 1 idle: a holder with an unlimited (empty) cache scores
 * 0.5 * 1 + 0.5 * 1 = 1 at node 0 and ties the storage node (1), so the
 * faster storage (100 s) is used there; at node 2 it scores 1 > 0.55 and
 * gives 98 s: node 2.  With node 1's cache full (capacity = used), it
 * scores 0.5 at node 0 and node 2, storage 1 and 0.55: 100 vs 102: node 0.
 */
START_TEST(test_replica_io)
{
	static const char *params =
		"bw=10:1000:10000,delay=0:5:92,sbw=100,w1=0.5,w2=0,w3=0.5";
	uint8_t elig[3] = { 1, 0, 1 };
	dl_plan_t *plan;
	uint32_t f;
	int j;

	_setup(3, 1, 100);
	f = _file("/d/f", 1000);
	ck_assert_int_eq(dl_cache_insert(tc, 1, f, 0, NULL, NULL), 0);
	j = _job(1, &f, 1, 0, 1, elig);
	plan = _plan(params);
	ck_assert_int_eq(plan->a[j].node, 2);
	dl_plan_free(plan);
	ck_assert_int_eq(dl_cache_set_capacity(tc, 1, 1000), 0);
	plan = _plan(params);
	ck_assert_int_eq(plan->a[j].node, 0);
	dl_plan_free(plan);
	_teardown();
}

END_TEST

/*
 * W and heterogeneous speeds, eqs. 6-11, queue=data (the paper's
 * ComputingScore).  Two nodes of speed 1 and 4 (mean 2.5); RBW = 10 B/s
 * everywhere; file f (1000 B) is cached on node 0 only.  One job at a
 * time, of CP seconds:
 *   JobTime: node 0: 0; node 1: 1000 / 10 = 100 s (either replica);
 *   TT = (0 + 100) / 2 = 50; CC = CP / 2.5; W = CC / (CC + 50)
 *     = CP / (CP + 125);
 *   node 0: (1 - W) * 0 + W * CP; node 1: (1 - W) * 100 + W * CP / 4.
 * CP = 100: W = 4/9: 44.4 vs 55.6 + 11.1 = 66.7: node 0.
 * CP = 1000: W = 8/9: 888.9 vs 11.1 + 222.2 = 233.3: node 1.
 * CP = 131: W = 131/256 = 0.5117: 67.04 vs 48.83 + 16.76 = 65.59: node 1
 *   (a fixed W of 1/2 would give 65.5 vs 50 + 16.38 = 66.38: node 0).
 */
START_TEST(test_w_factor)
{
	static const struct {
		double cp;
		int32_t node;
	} cases[] = { { 100, 0 }, { 1000, 1 }, { 131, 1 } };

	dl_plan_t *plan;
	uint32_t f;
	size_t i;
	int a;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		_setup(2, 1, 10);
		f = _file("/d/f", 1000);
		ck_assert_int_eq(dl_cache_insert(tc, 0, f, 0, NULL, NULL), 0);
		a = _job(1, &f, 1, cases[i].cp, 1, NULL);
		plan = _plan("speed=1:4,queue=data");
		ck_assert_msg(plan->a[a].node == cases[i].node,
			      "CP %g: node %d", cases[i].cp, plan->a[a].node);
		dl_plan_free(plan);
		_teardown();
	}
}

END_TEST

/*
 * TotalTime sums the queue, eq. 5.  Two nodes, RBW 100 B/s, three jobs
 * with no compute (W = 0), files of 1000 B on no node (10 s each):
 *   a {f}: 10 vs 10, tie: node 0 (queue 10);
 *   b {g}: node 0: 10 + 10 = 20, node 1: 10: node 1 (queue 10);
 *   c {f}: node 0: 10 + 0 (a fetches f there) = 10, node 1: 10 + 10 = 20:
 *   node 0.
 */
START_TEST(test_queue_data)
{
	dl_plan_t *plan;
	uint32_t f, g;
	int a, b, c;

	_setup(2, 1, 100);
	f = _file("/d/f", 1000);
	g = _file("/d/g", 1000);
	a = _job(1, &f, 1, 0, 3, NULL);
	b = _job(2, &g, 1, 0, 2, NULL);
	c = _job(3, &f, 1, 0, 1, NULL);
	plan = _plan(NULL);
	ck_assert_int_eq(plan->a[a].node, 0);
	ck_assert_int_eq(plan->a[b].node, 1);
	ck_assert_int_eq(plan->a[c].node, 0);
	/* The order stays the priority order. */
	ck_assert(plan->a[a].order < plan->a[c].order);
	dl_plan_free(plan);
	_teardown();
}

END_TEST

/*
 * The compute backlog of queue=both.  Two one-slot nodes of speed 1,
 * jobs without files (TT = 0, so W = 1 and FinalCost = ComputingScore):
 * a running job on node 0 with CP 100 started 30 s ago leaves 70 s.
 *   queue=both: x (CP 10): node 0: 70 + 10 = 80, node 1: 10: node 1;
 *               y: node 0: 80, node 1: 10 + 10 = 20: node 1;
 *               z: node 0: 80, node 1: 30: node 1.
 *   queue=data: 10 everywhere: node 0 for all three.
 * With speed=1:0.1, x costs 100 on node 1 and 80 on node 0: node 0.
 */
START_TEST(test_queue_both)
{
	dl_plan_t *plan;
	int x, y, z;

	_setup(2, 1, 100);
	ts->now = 130;
	_running(100, 0, 100, 100);
	x = _job(1, NULL, 0, 10, 3, NULL);
	y = _job(2, NULL, 0, 10, 2, NULL);
	z = _job(3, NULL, 0, 10, 1, NULL);
	plan = _plan("queue=both");
	ck_assert_int_eq(plan->a[x].node, 1);
	ck_assert_int_eq(plan->a[y].node, 1);
	ck_assert_int_eq(plan->a[z].node, 1);
	dl_plan_free(plan);
	plan = _plan("queue=data");
	ck_assert_int_eq(plan->a[x].node, 0);
	ck_assert_int_eq(plan->a[y].node, 0);
	ck_assert_int_eq(plan->a[z].node, 0);
	dl_plan_free(plan);
	plan = _plan("speed=1:0.1");
	ck_assert_int_eq(plan->a[x].node, 0);
	dl_plan_free(plan);
	_teardown();
}

END_TEST

/* No usable or eligible node: no preference, and no error. */
START_TEST(test_nowhere)
{
	uint8_t none[2] = { 0, 0 };
	dl_plan_t *plan;
	uint32_t f;
	int a, b;

	_setup(2, 1, 100);
	f = _file("/d/f", 1000);
	a = _job(1, &f, 1, 5, 2, none);
	b = _job(2, &f, 1, 5, 1, NULL);
	plan = _plan(NULL);
	ck_assert_int_eq(plan->a[a].node, -1);
	ck_assert_int_ge(plan->a[b].node, 0);
	dl_plan_free(plan);
	ts->nodes[0].usable = 0;
	ts->nodes[1].usable = 0;
	plan = _plan(NULL);
	ck_assert_int_eq(plan->a[a].node, -1);
	ck_assert_int_eq(plan->a[b].node, -1);
	dl_plan_free(plan);
	_teardown();
}

END_TEST

static int nlogged;

static void _count_log(int level, const char *msg, void *arg)
{
	(void) arg;
	if (level == DL_LOG_ERROR && strstr(msg, "hjs:"))
		nlogged++;
}

/* A list longer or shorter than the nodes is used, and logged once. */
START_TEST(test_list_mismatch)
{
	int err = 1;
	dl_policy_t *p = NULL;
	dl_plan_t *plan = NULL;
	int a;

	_setup(2, 1, 100);
	a = _job(1, NULL, 0, 10, 1, NULL);
	nlogged = 0;
	dl_log_set(_count_log, NULL);
	/* Three speeds for two nodes: 0.5 and 2 are used, 7 is not. */
	p = dl_policy_create("hjs", "speed=0.5:2:7", &err);
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(dl_policy_plan(p, ts, &plan), 0);
	ck_assert_int_eq(plan->a[a].node, 1); /* 10 / 2 < 10 / 0.5 */
	dl_plan_free(plan);
	ck_assert_int_eq(dl_policy_plan(p, ts, &plan), 0);
	dl_plan_free(plan);
	ck_assert_int_eq(nlogged, 1);
	dl_policy_destroy(p);
	/* One value applies to every node and logs nothing. */
	p = dl_policy_create("hjs", "speed=3,bw=2*50", &err);
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(dl_policy_plan(p, ts, &plan), 0);
	dl_plan_free(plan);
	ck_assert_int_eq(nlogged, 1);
	dl_policy_destroy(p);
	dl_log_set(NULL, NULL);
	_teardown();
}

END_TEST

START_TEST(test_bad_params)
{
	static const char *bad[] = {
		"w1=0.5,w2=0.5,w3=0.5", /* eq. 4: sum 1.5 */
		"w1=1", /* 1 + 0.25 + 0.25 */
		"w1=-0.5,w2=1,w3=0.5",
		"w2=abc",
		"speed=1:0",
		"speed=",
		"speed=1::2",
		"speed=x",
		"speed=0*1",
		"bw=-1",
		"delay=-1",
		"sbw=0",
		"sdelay=1:nan",
		"replica=best",
		"queue=none",
	};
	static const char *good[] = {
		NULL,
		"",
		"w1=0.2,w2=0.3,w3=0.5",
		"speed=2*1:2*2.5,bw=1e9,delay=0.001:0.002",
		"replica=min,queue=data",
	};
	size_t i;
	int err;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err = 0;
		ck_assert_msg(dl_policy_create("hjs", bad[i], &err) == NULL,
			      "accepted '%s'", bad[i]);
		ck_assert_int_eq(err, DL_EINVAL);
	}
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		dl_policy_t *p = dl_policy_create("hjs", good[i], &err);

		ck_assert_msg(p != NULL, "rejected '%s'", good[i]);
		dl_policy_destroy(p);
	}
}

END_TEST

/* The same state gives the same plan, whatever the instance. */
START_TEST(test_deterministic)
{
	uint32_t f[6], i, k;
	dl_plan_t *p1, *p2;
	char path[16];

	_setup(4, 2, 1e3);
	for (i = 0; i < 6; i++) {
		snprintf(path, sizeof(path), "/d/%u", i);
		f[i] = _file(path, 1000 * (i + 1));
	}
	ck_assert_int_eq(dl_cache_insert(tc, 1, f[2], 0, NULL, NULL), 0);
	ck_assert_int_eq(dl_cache_insert(tc, 3, f[2], 0, NULL, NULL), 0);
	ck_assert_int_eq(dl_cache_insert(tc, 2, f[4], 0, NULL, NULL), 0);
	for (i = 0; i < 20; i++)
		_job(i + 1, &f[i % 4], 1 + i % 3, (double) (i % 5), i % 3,
		     NULL);
	p1 = _plan("speed=1:2:1:2,bw=1e3:2e3:1e3:500,delay=0.1");
	p2 = _plan("speed=1:2:1:2,bw=1e3:2e3:1e3:500,delay=0.1");
	for (k = 0; k < p1->n; k++) {
		ck_assert_int_eq(p1->a[k].node, p2->a[k].node);
		ck_assert(p1->a[k].order == p2->a[k].order);
		ck_assert_int_ge(p1->a[k].node, 0);
	}
	dl_plan_free(p1);
	dl_plan_free(p2);
	_teardown();
}

END_TEST

Suite *make_hjs_suite(void)
{
	Suite *s = suite_create("hjs");
	TCase *tc_core = tcase_create("core");

	tcase_add_test(tc_core, test_replica_score);
	tcase_add_test(tc_core, test_replica_io);
	tcase_add_test(tc_core, test_w_factor);
	tcase_add_test(tc_core, test_queue_data);
	tcase_add_test(tc_core, test_queue_both);
	tcase_add_test(tc_core, test_nowhere);
	tcase_add_test(tc_core, test_list_mismatch);
	tcase_add_test(tc_core, test_bad_params);
	tcase_add_test(tc_core, test_deterministic);
	suite_add_tcase(s, tc_core);
	return s;
}
