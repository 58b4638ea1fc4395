/* check_policy.c - the state model, the policy registry and "locality". */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_suites.h"
#include "fixture.h"
#include "dl_error.h"
#include "dl_place.h"
#include "dl_policy.h"
#include "policy/policy_util.h"
#include "mintree.h"
#include "u64set.h"

#define MB (1ULL << 20)

#define tc fx_cache
#define ts fx_state
#define _file fx_file
#define _teardown fx_teardown

/* A tracker and a state with n nodes of one CPU each. */
static void _setup(uint32_t n)
{
	fx_setup(n, 1, NULL, DL_EVICT_VALUE);
}

static int _add_job(uint32_t id, const uint32_t *files, uint32_t n,
		    dl_job_state_t state, int32_t node, uint64_t prio)
{
	dl_job_t j = { 0 };

	j.id = id;
	j.state = state;
	j.files = (uint32_t *)files;
	j.nfiles = n;
	j.node = node;
	j.priority = prio;
	j.arrival = id;
	j.compute = -1;
	return dl_state_add_job(ts, &j);
}

static dl_plan_t *_plan_with(const char *name, const char *params)
{
	int err = 1;
	dl_policy_t *p = dl_policy_create(name, params, &err);
	dl_plan_t *plan = NULL;

	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(err, 0);
	ck_assert_int_eq(dl_policy_plan(p, ts, &plan), 0);
	dl_policy_destroy(p);
	return plan;
}

static dl_plan_t *_plan(const char *params)
{
	return _plan_with("locality", params);
}

START_TEST(test_u64set)
{
	dl__u64set_t s, c;
	uint64_t k;

	dl__u64set_init(&s);
	ck_assert_int_eq(dl__u64set_has(&s, 5), 0);
	for (k = 0; k < 10000; k++)
		ck_assert_int_eq(dl__u64set_add(&s, k * 7919), 1);
	ck_assert_int_eq(dl__u64set_add(&s, 7919), 0);
	ck_assert_uint_eq(s.count, 10000);
	for (k = 0; k < 10000; k++) {
		ck_assert_int_eq(dl__u64set_has(&s, k * 7919), 1);
		ck_assert_int_eq(dl__u64set_has(&s, k * 7919 + 1), 0);
	}
	/* A copy holds the same keys and is its own: adding to it leaves
	 * the original as it was; an empty source empties the copy. */
	dl__u64set_init(&c);
	ck_assert_int_eq(dl__u64set_add(&c, 3), 1);
	ck_assert_int_eq(dl__u64set_copy(&c, &s), 0);
	ck_assert_uint_eq(c.count, 10000);
	ck_assert_int_eq(dl__u64set_has(&c, 3), 0);
	for (k = 0; k < 10000; k++)
		ck_assert_int_eq(dl__u64set_has(&c, k * 7919), 1);
	ck_assert_int_eq(dl__u64set_add(&c, 1), 1);
	ck_assert_int_eq(dl__u64set_has(&s, 1), 0);
	dl__u64set_fini(&s);
	ck_assert_int_eq(dl__u64set_has(&s, 0), 0);
	ck_assert_int_eq(dl__u64set_copy(&c, &s), 0);
	ck_assert_uint_eq(c.count, 0);
	ck_assert_int_eq(dl__u64set_has(&c, 1), 0);
	dl__u64set_fini(&c);
}
END_TEST

/* mintree.h against scans of the same values: random updates, every
 * skip (one past the end too), thresholds between and at the values. */
START_TEST(test_mintree)
{
	unsigned seed = 3;
	uint32_t n, i, k;

	for (n = 0; n <= 37; n++) {
		dl__mintree_t t;
		double v[37];

		ck_assert_int_eq(dl__mintree_init(&t, n), 0);
		for (i = 0; i < n; i++)
			v[i] = INFINITY;
		for (k = 0; k < 200; k++) {
			uint32_t skip = rand_r(&seed) % (n + 2);
			double x = (rand_r(&seed) % 12) - 1.5, lo = INFINITY;
			int64_t first = -1, arg = -1;

			if (n) {
				i = rand_r(&seed) % n;
				v[i] = rand_r(&seed) % 9 ? rand_r(&seed) % 10 :
							   INFINITY;
				dl__mintree_set(&t, i, v[i]);
			}
			for (i = 0; i < n; i++) {
				if (i == skip)
					continue;
				if (first < 0 && v[i] <= x)
					first = i;
				if (v[i] < lo) {
					lo = v[i];
					arg = i;
				}
			}
			ck_assert_int_eq(dl__mintree_first_le(&t, x, skip),
					 first);
			ck_assert_int_eq(dl__mintree_argmin(&t, skip), arg);
			for (i = 0; i < n; i++)
				ck_assert(dl__mintree_get(&t, i) == v[i]);
			ck_assert(isinf(dl__mintree_get(&t, n)));
		}
		dl__mintree_set(&t, n + 5, 0); /* ignored */
		dl__mintree_fini(&t);
	}
}
END_TEST

START_TEST(test_registry)
{
	int err = 0;

	ck_assert_ptr_null(dl_policy_create("no-such-policy", NULL, &err));
	ck_assert_int_eq(err, DL_ENOPOLICY);
	ck_assert_ptr_null(dl_policy_create("locality", "slack=abc", &err));
	ck_assert_int_eq(err, DL_EINVAL);
	ck_assert_ptr_null(dl_policy_create("locality", "slack=-1", &err));
	ck_assert_int_eq(err, DL_EINVAL);
	ck_assert_ptr_nonnull(dl_policy_list()[0]);
	ck_assert_str_eq(dl_policy_list()[0]->name, "online-hps");
	ck_assert_ptr_null(dl_policy_create("online-hps", "refine=maybe", &err));
	ck_assert_int_eq(err, DL_EINVAL);
	ck_assert_ptr_null(dl_policy_create("online-hps", "imbalance=0.5", &err));
	ck_assert_int_eq(err, DL_EINVAL);
}
END_TEST

START_TEST(test_params)
{
	char v[8];
	double d = 3;

	ck_assert_int_eq(dl_params_get("a=1,bb=22,c=3", "bb", v, sizeof(v)), 1);
	ck_assert_str_eq(v, "22");
	ck_assert_int_eq(dl_params_get("a=1,bb=22", "b", v, sizeof(v)), 0);
	ck_assert_int_eq(dl_params_get(NULL, "b", v, sizeof(v)), 0);
	ck_assert_int_eq(dl_params_get("k=123456789", "k", v, sizeof(v)), 1);
	ck_assert_str_eq(v, "1234567"); /* truncated to the buffer */
	ck_assert_int_eq(dl_params_double("x=2.5", "x", 0, 10, &d), 0);
	ck_assert_double_eq(d, 2.5);
	ck_assert_int_eq(dl_params_double("x=25", "x", 0, 10, &d), DL_EINVAL);
	ck_assert_int_eq(dl_params_double("y=1", "x", 0, 10, &d), 0);
	ck_assert_double_eq(d, 2.5); /* absent: default kept */
}
END_TEST

/* What a mapping-only host (slurmctld, dl-sim's slurm dispatch) passes. */
static void _mapping_is(const char *policy, const char *params,
			const dl_place_params_t *pp, const char *want)
{
	char *got = dl_policy_mapping_params(policy, params, pp);

	ck_assert_ptr_nonnull(got);
	ck_assert_str_eq(got, want);
	free(got);
}

#define RULE "hysteresis=0.25,wait_factor=1,min_wait=2,max_wait=300,strict=0"

START_TEST(test_mapping_params)
{
	dl_place_params_t pp;
	dl_policy_t *p;

	_mapping_is("online-hps", NULL, NULL, "order=priority," RULE);
	_mapping_is("online-hps", "", NULL, "order=priority," RULE);
	_mapping_is("online-hps", "seed=3", NULL,
		    "seed=3,order=priority," RULE);
	_mapping_is("online-hps", "order=ect", NULL, "order=ect");
	_mapping_is("online-hps", "seed=1,order=ect", NULL,
		    "seed=1,order=ect");
	_mapping_is("mct", "x=1", NULL, "x=1");
	_mapping_is("mct", NULL, NULL, "");
	_mapping_is(NULL, NULL, NULL, "");
	/* The host's rule; what params set stays as set. */
	dl_place_params_default(&pp);
	pp.hysteresis = 0.5;
	pp.wait_factor = 4;
	pp.max_wait = 60;
	pp.strict = 1;
	_mapping_is("online-hps", "order=priority", &pp,
		    "order=priority,hysteresis=0.5,wait_factor=4,min_wait=2,"
		    "max_wait=60,strict=1");
	_mapping_is("online-hps", "hysteresis=0,min_wait=9", &pp,
		    "hysteresis=0,min_wait=9,order=priority,wait_factor=4,"
		    "max_wait=60,strict=1");
	_mapping_is("mct", "x=1", &pp, "x=1");
	/* Online-HPS takes them, and refuses a bad one. */
	p = dl_policy_create("online-hps",
			     "order=priority,wait_factor=4,max_wait=inf,"
			     "strict=1", NULL);
	ck_assert_ptr_nonnull(p);
	dl_policy_destroy(p);
	ck_assert_ptr_null(dl_policy_create("online-hps", "wait_factor=0",
					    NULL));
	ck_assert_ptr_null(dl_policy_create("online-hps", "min_wait=-1",
					    NULL));
	ck_assert_ptr_null(dl_policy_create("online-hps", "strict=2", NULL));
}
END_TEST

START_TEST(test_state_rejects)
{
	uint32_t bad = 12345;
	dl_job_t j = { 0 };

	_setup(2);
	j.id = 1;
	j.files = &bad;
	j.nfiles = 1;
	ck_assert_int_eq(dl_state_add_job(ts, &j), DL_EINVAL);
	j.nfiles = 0;
	j.state = DL_JOB_RUNNING;
	j.node = 7;
	ck_assert_int_eq(dl_state_add_job(ts, &j), DL_EINVAL);
	ck_assert_uint_eq(ts->njobs, 0);
	j.node = 1;
	ck_assert_int_eq(dl_state_add_job(ts, &j), 0);
	/* Nodes cannot be added once jobs sized eligible[] by nnodes. */
	ck_assert_int_eq(dl_state_add_node(ts, "late", 1, 1), DL_EINVAL);
	_teardown();
}
END_TEST

/*
 * The jobs' file ids across the state's blocks (4096 ids each) stay each
 * job's own, and the priority order is the same whether the jobs come in
 * order (no sort) or not.
 */
START_TEST(test_state_files_and_order)
{
	uint32_t f[3], i;
	size_t *idx = NULL, n = 0;

	_setup(2);
	f[0] = fx_file("/a", 1);
	f[1] = fx_file("/b", 1);
	f[2] = fx_file("/c", 1);
	/* 3000 jobs of 1-3 files: 6000 ids, over one block. */
	for (i = 0; i < 3000; i++) {
		uint32_t k = i % 3;

		ck_assert_int_eq(_add_job(i + 1, &f[k], 3 - k, DL_JOB_PENDING,
					  -1, 0),
				 (int)i);
	}
	for (i = 0; i < 3000; i++) {
		uint32_t k = i % 3, m;

		ck_assert_uint_eq(ts->jobs[i].nfiles, 3 - k);
		for (m = 0; m < 3 - k; m++)
			ck_assert_uint_eq(ts->jobs[i].files[m], f[k + m]);
	}
	/* Equal priorities: arrival order, already the jobs' order. */
	ck_assert_int_eq(dl_state_priority_order(ts, &idx, &n), 0);
	ck_assert_uint_eq(n, 3000);
	for (i = 0; i < 3000; i++)
		ck_assert_uint_eq(idx[i], i);
	free(idx);
	/* One job of higher priority at the end goes first. */
	ck_assert_int_eq(_add_job(9999, f, 1, DL_JOB_PENDING, -1, 5), 3000);
	ck_assert_int_eq(dl_state_priority_order(ts, &idx, &n), 0);
	ck_assert_uint_eq(n, 3001);
	ck_assert_uint_eq(idx[0], 3000);
	for (i = 1; i < 3001; i++)
		ck_assert_uint_eq(idx[i], i - 1);
	free(idx);
	ck_assert_uint_eq(ts->jobs[3000].files[0], f[0]);
	ck_assert_uint_eq(ts->jobs[0].files[2], f[2]);
	_teardown();
}
END_TEST

/* Jobs sharing a file follow the node its cached copy is on. */
START_TEST(test_locality_follows_cache)
{
	uint32_t a, b, fa[1], fb[1];
	dl_plan_t *plan;

	_setup(4);
	a = _file("/d/a", 64 * MB);
	b = _file("/d/b", 64 * MB);
	ck_assert_int_eq(dl_cache_insert(tc, 2, a, 1, NULL, NULL), 0);
	ck_assert_int_eq(dl_cache_insert(tc, 1, b, 1, NULL, NULL), 0);
	fa[0] = a;
	fb[0] = b;
	_add_job(10, fa, 1, DL_JOB_PENDING, -1, 5);
	_add_job(11, fb, 1, DL_JOB_PENDING, -1, 5);
	plan = _plan(NULL);
	ck_assert_int_eq(plan->a[0].node, 2);
	ck_assert_int_eq(plan->a[1].node, 1);
	ck_assert_uint_eq(plan->a[0].files_cached, 1);
	ck_assert_uint_eq(plan->a[0].bytes_cached, 64 * MB);
	ck_assert_uint_eq(plan->cut_bytes, 0);
	dl_plan_free(plan);
	_teardown();
}
END_TEST

/* Without the figures for people, the same nodes and no figures. */
START_TEST(test_plan_bare)
{
	uint32_t a, b, fa[1], fb[1];
	dl_policy_t *p = dl_policy_create("locality", NULL, NULL);
	dl_plan_t *plan;

	ck_assert_ptr_nonnull(p);
	_setup(4);
	a = _file("/d/a", 64 * MB);
	b = _file("/d/b", 64 * MB);
	ck_assert_int_eq(dl_cache_insert(tc, 2, a, 1, NULL, NULL), 0);
	fa[0] = a;
	fb[0] = b;
	_add_job(10, fa, 1, DL_JOB_PENDING, -1, 5);
	_add_job(11, fb, 1, DL_JOB_RUNNING, 1, 5);
	dl_policy_set_annotate(p, 0);
	ck_assert_int_eq(dl_policy_plan(p, ts, &plan), 0);
	ck_assert_int_eq(plan->a[0].node, 2);
	ck_assert_int_eq(plan->a[1].node, 1);
	ck_assert_uint_eq(plan->a[0].files_cached, 0);
	ck_assert_uint_eq(plan->a[0].bytes_total, 0);
	ck_assert(isnan(plan->imbalance));
	dl_plan_free(plan);
	dl_policy_set_annotate(p, 1);
	ck_assert_int_eq(dl_policy_plan(p, ts, &plan), 0);
	ck_assert_int_eq(plan->a[0].node, 2);
	ck_assert_uint_eq(plan->a[0].files_cached, 1);
	ck_assert_uint_eq(plan->a[0].bytes_total, 64 * MB);
	ck_assert(!isnan(plan->imbalance));
	dl_plan_free(plan);
	dl_policy_set_annotate(NULL, 0); /* a no-op */
	dl_policy_destroy(p);
	_teardown();
}
END_TEST

/*
 * A burst of jobs sharing files, nothing cached yet: the first two go
 * together (slack 1 lets a node queue one job more than the emptiest),
 * the third spills to another node; every job gets exactly one node.
 */
START_TEST(test_locality_groups_burst)
{
	uint32_t f[3];
	dl_plan_t *plan;
	size_t i;

	_setup(4);
	f[0] = _file("/d/x", 100 * MB);
	f[1] = _file("/d/y", 100 * MB);
	f[2] = _file("/d/z", 100 * MB);
	_add_job(1, f, 3, DL_JOB_PENDING, -1, 9);
	_add_job(2, f, 3, DL_JOB_PENDING, -1, 8);
	_add_job(3, f, 3, DL_JOB_PENDING, -1, 7);
	plan = _plan(NULL);
	for (i = 0; i < 3; i++) {
		ck_assert_int_ge(plan->a[i].node, 0);
		ck_assert_int_lt(plan->a[i].node, 4);
	}
	ck_assert_int_eq(plan->a[0].node, plan->a[1].node);
	ck_assert_int_ne(plan->a[2].node, plan->a[0].node);
	/* The files go to two nodes: one transfer of 300 MB beyond the first. */
	ck_assert_uint_eq(plan->cut_bytes, 300 * MB);
	ck_assert(plan->a[0].order < plan->a[1].order);
	dl_plan_free(plan);

	/* With a larger slack all three share one node and the cut is 0. */
	plan = _plan("slack=3");
	ck_assert_int_eq(plan->a[0].node, plan->a[2].node);
	ck_assert_uint_eq(plan->cut_bytes, 0);
	dl_plan_free(plan);
	_teardown();
}
END_TEST

/* Running jobs stay put, ineligible and unusable nodes are never chosen. */
START_TEST(test_locality_constraints)
{
	uint32_t a, fa[1];
	uint8_t elig[3] = { 0, 1, 1 };
	dl_job_t j = { 0 };
	dl_plan_t *plan;

	_setup(3);
	ts->nodes[2].usable = 0;
	a = _file("/d/a", 10 * MB);
	ck_assert_int_eq(dl_cache_insert(tc, 0, a, 1, NULL, NULL), 0);
	fa[0] = a;
	_add_job(1, fa, 1, DL_JOB_RUNNING, 0, 1);
	j.id = 2;
	j.files = fa;
	j.nfiles = 1;
	j.eligible = elig;
	j.priority = 1;
	ck_assert_int_eq(dl_state_add_job(ts, &j), 1);
	_add_job(3, NULL, 0, DL_JOB_PENDING, -1, 1);
	plan = _plan(NULL);
	ck_assert_int_eq(plan->a[0].node, 0); /* running: fixed */
	ck_assert_int_eq(plan->a[1].node, 1); /* n1 excluded, n3 down */
	ck_assert_int_eq(plan->a[2].node, -1); /* no files: no preference */
	dl_plan_free(plan);
	_teardown();
}
END_TEST

/*
 * A one-CPU job any node may run is placed without a scan of every node
 * (_choose_one()); the same job with an all-ones eligibility list takes
 * the scan.  Both must agree on every job, over random caches, running
 * jobs, unusable nodes and slacks.
 */
START_TEST(test_locality_fast_path_matches_scan)
{
	static const char *slacks[] = { "slack=0", NULL, "slack=2.5" };
	uint32_t files[30], fj[3], seed = 12345, i, k, t, s;
	uint8_t ones[16];
	char path[32];

	memset(ones, 1, sizeof(ones));
	for (t = 0; t < 12; t++) {
		dl_plan_t *fast, *scan;
		dl_job_t j = { 0 };

		_setup(16);
		for (i = 0; i < 30; i++) {
			snprintf(path, sizeof(path), "/d/f%u", i);
			/* some empty files: ties on 0 bytes */
			files[i] = _file(path, (i % 7) * MB);
		}
		for (i = 0; i < 40; i++) {
			seed = seed * 1103515245u + 12345u;
			ck_assert_int_eq(dl_cache_insert(tc, (seed >> 8) % 16,
							 files[(seed >> 16) %
							       30],
							 1, NULL, NULL),
					 0);
		}
		ts->nodes[(t * 5) % 16].usable = 0;
		for (i = 0; i < 10; i++) /* running jobs: the loads */
			_add_job(1 + i, &files[i], 1, DL_JOB_RUNNING,
				 (int32_t)((i * t + 3) % 16), 1);
		for (i = 0; i < 60; i++) {
			seed = seed * 1103515245u + 12345u;
			for (k = 0; k < 3; k++)
				fj[k] = files[(seed >> (8 + 5 * k)) % 30];
			j.id = 100 + i;
			j.files = fj;
			j.nfiles = 1 + (seed >> 28) % 3;
			j.priority = i * 7 % 11;
			j.arrival = i;
			j.compute = -1;
			ck_assert_int_ge(dl_state_add_job(ts, &j), 0);
		}
		s = (uint32_t)ts->njobs;
		fast = _plan_with("locality", slacks[t % 3]);
		/* The same jobs again, in a state where they take the scan. */
		for (i = 10; i < s; i++)
			ts->jobs[i].eligible = ones;
		scan = _plan_with("locality", slacks[t % 3]);
		for (i = 10; i < s; i++)
			ts->jobs[i].eligible = NULL;
		for (i = 0; i < fast->n; i++)
			ck_assert_int_eq(fast->a[i].node, scan->a[i].node);
		dl_plan_free(fast);
		dl_plan_free(scan);
		_teardown();
	}
}
END_TEST

/* A job reading more empty files than there are nodes, all cached on one
 * node: each node is listed once (the list holds nnodes entries). */
START_TEST(test_locality_many_empty_files)
{
	uint32_t files[12], i;
	char path[32];
	dl_plan_t *plan;

	_setup(2);
	for (i = 0; i < 12; i++) {
		snprintf(path, sizeof(path), "/d/empty%u", i);
		files[i] = _file(path, 0);
		ck_assert_int_eq(dl_cache_insert(tc, 1, files[i], 1, NULL,
						 NULL),
				 0);
	}
	ts->params.unknown_size = 0;
	_add_job(1, files, 12, DL_JOB_PENDING, -1, 1);
	_add_job(2, files, 12, DL_JOB_PENDING, -1, 1);
	plan = _plan(NULL);
	/* No bytes anywhere: the least loaded node, the lowest index. */
	ck_assert_int_eq(plan->a[0].node, 0);
	ck_assert_int_eq(plan->a[1].node, 1);
	dl_plan_free(plan);
	_teardown();
}
END_TEST

/* Whether online-hps (order=priority, params p, no helper) planned the
 * state greedily: a plan the helper should have made. */
static int _hps_fell_back(const char *p)
{
	char params[256];
	dl_plan_t *plan;
	int fb;

	snprintf(params, sizeof(params),
		 "order=priority,helper=/nonexistent/dl-partitiond%s%s",
		 p ? "," : "", p ? p : "");
	plan = _plan_with("online-hps", params);
	fb = plan->fallback;
	ck_assert_int_ge(plan->a[0].node, 0);
	dl_plan_free(plan);
	return fb;
}

/*
 * Under the host's order, a plan with one or two jobs to place is solved
 * exactly in the library (no helper asked), unless one pending or running
 * job's input file is at least exact_file (0.5) of the mean such job's
 * input: then the helper partitions it, as before (here it is missing,
 * so the plan is the greedy fallback's).
 */
START_TEST(test_online_hps_exact_gate)
{
	uint32_t f[4], big, i;
	char path[32];

	_setup(4);
	for (i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "/d/small%u", i);
		f[i] = _file(path, 10 * MB);
	}
	_add_job(1, f, 4, DL_JOB_PENDING, -1, 1); /* largest file: 1/4 */
	ck_assert_int_eq(_hps_fell_back(NULL), 0);
	ck_assert_int_eq(_hps_fell_back("exact_free=0"), 1);
	ck_assert_int_eq(_hps_fell_back("exact_file=0.2"), 1);
	/* A running job's big file counts too: one short queue alone
	 * does not tell a workload of large shared files. */
	big = _file("/d/big", 400 * MB);
	_add_job(2, &big, 1, DL_JOB_RUNNING, 0, 1);
	ck_assert_int_eq(_hps_fell_back(NULL), 1);
	ck_assert_int_eq(_hps_fell_back("exact_file=0"), 0);
	_teardown();

	_setup(4);
	big = _file("/d/big", 400 * MB);
	f[0] = _file("/d/small", 10 * MB);
	f[1] = big;
	_add_job(1, f, 2, DL_JOB_PENDING, -1, 1); /* largest file: 40/41 */
	ck_assert_int_eq(_hps_fell_back(NULL), 1);
	ck_assert_int_eq(_hps_fell_back("exact_file=0"), 0);
	ck_assert_int_eq(_hps_fell_back("exact_file=0.97"), 1);
	ck_assert_int_eq(_hps_fell_back("exact_file=0.98"), 0);
	ck_assert_int_eq(_hps_fell_back("exact_file=0.98,exact_free=1"), 0);
	ck_assert_int_eq(_hps_fell_back("exact_file=0.98,exact_free=0"), 1);
	_teardown();
}
END_TEST

/* Any non-zero eligibility byte allows the node (the state stores 1):
 * the planners' memchr() scans find it. */
START_TEST(test_eligible_nonzero)
{
	uint8_t elig[4] = { 0, 0, 7, 0 };
	uint32_t a;
	dl_job_t j = { 0 };
	dl_plan_t *plan;

	_setup(4);
	a = _file("/d/a", 10 * MB);
	ck_assert_int_eq(dl_cache_insert(tc, 0, a, 1, NULL, NULL), 0);
	j.id = 1;
	j.files = &a;
	j.nfiles = 1;
	j.eligible = elig;
	j.compute = -1;
	ck_assert_int_eq(dl_state_add_job(ts, &j), 0);
	ck_assert_uint_eq(ts->jobs[0].eligible[2], 1);
	plan = _plan(NULL);
	ck_assert_int_eq(plan->a[0].node, 2);
	dl_plan_free(plan);
	plan = _plan_with("online-hps", "order=priority,exact_free=0");
	ck_assert_int_eq(plan->a[0].node, 2);
	dl_plan_free(plan);
	_teardown();
}
END_TEST

/* The same state gives the same plan. */
START_TEST(test_locality_deterministic)
{
	uint32_t files[40], fj[3];
	dl_plan_t *p1, *p2;
	char path[32];
	uint32_t i;

	_setup(8);
	for (i = 0; i < 40; i++) {
		snprintf(path, sizeof(path), "/d/f%u", i);
		files[i] = _file(path, (i % 5 + 1) * MB);
	}
	for (i = 0; i < 200; i++) {
		fj[0] = files[i % 40];
		fj[1] = files[(i * 7) % 40];
		fj[2] = files[(i * 13 + 1) % 40];
		_add_job(100 + i, fj, fj[0] == fj[1] ? 1 : 3, DL_JOB_PENDING,
			 -1, i % 3);
	}
	p1 = _plan(NULL);
	p2 = _plan(NULL);
	for (i = 0; i < p1->n; i++) {
		ck_assert_int_eq(p1->a[i].node, p2->a[i].node);
		ck_assert_int_ge(p1->a[i].node, 0);
	}
	ck_assert_uint_eq(p1->cut_bytes, p2->cut_bytes);
	dl_plan_free(p1);
	dl_plan_free(p2);
	_teardown();
}
END_TEST

/*
 * Online-HPS on four clusters of ten jobs, each cluster sharing its own
 * three files: PHG (in the real dl-partitiond, $DL_PARTITIOND) keeps every
 * cluster on one node, so the plan's cut is 0, while spreading the jobs
 * round-robin would cut every file three times.
 */
static void _four_clusters(void)
{
	uint32_t f[4][3], c, k, id = 1;
	char path[32];

	_setup(4);
	for (c = 0; c < 4; c++)
		for (k = 0; k < 3; k++) {
			snprintf(path, sizeof(path), "/c%u/f%u", c, k);
			f[c][k] = _file(path, 64 * MB);
		}
	for (k = 0; k < 10; k++)
		for (c = 0; c < 4; c++)
			_add_job(id++, f[c], 3, DL_JOB_PENDING, -1, 1);
}

START_TEST(test_ohps_groups_clusters)
{
	dl_plan_t *plan;
	int32_t node_of[4];
	size_t i;
	int per_node[4] = { 0 };

	_four_clusters();
	plan = _plan_with("online-hps", "imbalance=1.1");
	for (i = 0; i < 4; i++)
		node_of[i] = plan->a[i].node;
	for (i = 0; i < plan->n; i++) {
		ck_assert_int_ge(plan->a[i].node, 0);
		ck_assert_int_lt(plan->a[i].node, 4);
		/* job i belongs to cluster i % 4 */
		ck_assert_int_eq(plan->a[i].node, node_of[i % 4]);
		per_node[plan->a[i].node]++;
	}
	for (i = 0; i < 4; i++)
		ck_assert_int_eq(per_node[i], 10);
	ck_assert_uint_eq(plan->cut_bytes, 0);
	dl_plan_free(plan);
	_teardown();
}
END_TEST

/* Running jobs stay, and cached files pull jobs to an idle node. */
START_TEST(test_ohps_fixed_and_cached)
{
	uint32_t a, b, fa[1], fb[1];
	dl_plan_t *plan;

	_setup(4);
	a = _file("/a", 512 * MB);
	b = _file("/b", 512 * MB);
	ck_assert_int_eq(dl_cache_insert(tc, 3, b, 1, NULL, NULL), 0);
	fa[0] = a;
	fb[0] = b;
	_add_job(1, fa, 1, DL_JOB_RUNNING, 2, 1);
	_add_job(2, fa, 1, DL_JOB_PENDING, -1, 1);
	_add_job(3, fb, 1, DL_JOB_PENDING, -1, 1);
	/*
	 * The running job is about done (it started long ago), so its node
	 * is as free as the others: balance does not push job 2 away.
	 */
	ts->now = 1000;
	ts->jobs[0].start = 0;
	plan = _plan_with("online-hps", NULL);
	ck_assert_int_eq(plan->a[0].node, 2);
	ck_assert_int_eq(plan->a[1].node, 2); /* shares a with the running job */
	ck_assert_int_eq(plan->a[2].node, 3); /* b is cached on node 3 */
	ck_assert_uint_eq(plan->a[2].files_cached, 1);
	dl_plan_free(plan);
	_teardown();
}
END_TEST

/* Without its helper the policy still plans every job (greedy). */
START_TEST(test_ohps_helper_missing)
{
	dl_plan_t *plan;
	size_t i;

	_four_clusters();
	plan = _plan_with("online-hps",
			  "helper=/nonexistent/dl-partitiond,timeout_ms=500");
	for (i = 0; i < plan->n; i++) {
		ck_assert_int_ge(plan->a[i].node, 0);
		ck_assert_int_lt(plan->a[i].node, 4);
	}
	dl_plan_free(plan);
	_teardown();
}
END_TEST

/*
 * Same state, same plan, for both ECT and priority order: the
 * partition's nodes.  The clusters' jobs share their files, so
 * guard_margin_small (order=priority) does not apply; without its
 * sharing and file tests it would, and the guard keeps locality's plan
 * on this near tie.
 */
START_TEST(test_ohps_deterministic)
{
	dl_plan_t *p1, *p2, *p3, *p4, *p5, *p6;
	size_t i, differ = 0;
	int err;

	_four_clusters();
	p1 = _plan_with("online-hps", NULL);
	p2 = _plan_with("online-hps", NULL);
	p3 = _plan_with("online-hps", "order=priority");
	p4 = _plan_with("online-hps", "order=priority,guard_margin_small_share=0,"
					"guard_margin_small_file=0");
	p5 = _plan_with("online-hps", "order=priority,guard_margin_small_share=0,"
					"guard_margin_small_file=0");
	p6 = _plan_with("locality", NULL);
	for (i = 0; i < p1->n; i++) {
		ck_assert_int_eq(p1->a[i].node, p2->a[i].node);
		ck_assert(p1->a[i].order == p2->a[i].order);
		ck_assert_int_eq(p1->a[i].node, p3->a[i].node);
		ck_assert(p3->a[i].order == (double)i); /* equal priorities */
		ck_assert_int_eq(p4->a[i].node, p5->a[i].node);
		ck_assert_int_eq(p4->a[i].node, p6->a[i].node);
		ck_assert(p4->a[i].order == (double)i);
		differ += p3->a[i].node != p4->a[i].node;
	}
	ck_assert_uint_gt(differ, 0); /* the margin decided */
	ck_assert_ptr_null(dl_policy_create("online-hps",
					    "guard_margin_small=-0.6", &err));
	dl_plan_free(p1);
	dl_plan_free(p2);
	dl_plan_free(p3);
	dl_plan_free(p4);
	dl_plan_free(p5);
	dl_plan_free(p6);
	_teardown();
}
END_TEST

/* A job restricted to some nodes never gets another. */
START_TEST(test_ohps_eligibility)
{
	uint8_t elig[4] = { 0, 0, 1, 1 };
	uint32_t a, fa[1];
	dl_job_t j = { 0 };
	dl_plan_t *plan;
	uint32_t i;

	_setup(4);
	a = _file("/a", 64 * MB);
	ck_assert_int_eq(dl_cache_insert(tc, 0, a, 1, NULL, NULL), 0);
	fa[0] = a;
	for (i = 0; i < 8; i++) {
		j.id = i + 1;
		j.files = fa;
		j.nfiles = 1;
		j.eligible = elig;
		j.compute = -1;
		ck_assert_int_ge(dl_state_add_job(ts, &j), 0);
	}
	plan = _plan_with("online-hps", NULL);
	for (i = 0; i < plan->n; i++)
		ck_assert(plan->a[i].node == 2 || plan->a[i].node == 3);
	dl_plan_free(plan);
	_teardown();
}
END_TEST

/*
 * dl_plan_starts: node 0 (2 slots, 1 busy) has queue [job 0 (1 cpu),
 * job 1]; node 1 (1 slot) has [job 2 (2 cpus), job 3]: job 2 does not fit
 * and job 3 may not overtake it; jobs 4 and 5 have no preference and
 * take the first nodes with room left: node 1's idle slot, then node 2.
 */
START_TEST(test_plan_starts)
{
	dl_plan_t *plan;
	dl_start_t *st = NULL;
	size_t n = 0;
	uint32_t i;

	_setup(3);
	ts->nodes[0].cpus = 2;
	ts->nodes[0].busy = 1;
	for (i = 0; i < 6; i++)
		_add_job(i + 1, NULL, 0, DL_JOB_PENDING, -1, 100 - i);
	ts->jobs[2].cpus = 2;
	plan = _plan(NULL); /* no files: every node -1; set by hand */
	plan->a[0].node = 0;
	plan->a[0].order = 0;
	plan->a[1].node = 0;
	plan->a[1].order = 1;
	plan->a[2].node = 1;
	plan->a[2].order = 0;
	plan->a[3].node = 1;
	plan->a[3].order = 1;
	ck_assert_int_eq(dl_plan_starts(ts, plan, &st, &n), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(st[0].job, 0);
	ck_assert_uint_eq(st[0].node, 0);
	ck_assert_uint_eq(st[1].job, 4);
	ck_assert_uint_eq(st[1].node, 1);
	ck_assert_uint_eq(st[2].job, 5);
	ck_assert_uint_eq(st[2].node, 2);
	free(st);
	dl_plan_free(plan);
	_teardown();
}
END_TEST

/*
 * One node: a big job waiting since t=0 and a small one arrived at t=999.
 * ECT alone runs the small one first; once the big one has waited longer
 * than starve_after it goes first.
 */
START_TEST(test_ohps_starvation)
{
	uint32_t big[3], small[1];
	dl_plan_t *p1, *p2;

	_setup(1);
	big[0] = _file("/b1", 512 * MB);
	big[1] = _file("/b2", 512 * MB);
	big[2] = _file("/b3", 512 * MB);
	small[0] = _file("/s", MB);
	_add_job(1, big, 3, DL_JOB_PENDING, -1, 1);
	_add_job(2, small, 1, DL_JOB_PENDING, -1, 1);
	ts->jobs[0].arrival = 0;
	ts->jobs[1].arrival = 999;
	ts->now = 1000;
	p1 = _plan_with("online-hps", "starve_after=0");
	ck_assert(p1->a[1].order < p1->a[0].order); /* shortest first */
	p2 = _plan_with("online-hps", "starve_after=600");
	ck_assert(p2->a[0].order < p2->a[1].order); /* it waited too long */
	dl_plan_free(p1);
	dl_plan_free(p2);
	_teardown();
}
END_TEST


/*
 * dl__plan_estimate by hand: RBW 100 B/s, LBW 500 B/s, 1 storage node,
 * two jobs reading the same file of 1000 B (cost model compute: cpb 1e-3,
 * 1 s).  Both on node 0: the first transfers (10 s), reads (2 s) and
 * computes (1 s): 13; the second finds the file there: 13 + 3 = 16; sum
 * 29.  Spread: the second waits for the storage node until 10, transfers
 * until 20, ends at 23; sum 36.  Unplanned jobs are left out.
 */
START_TEST(test_plan_estimate)
{
	dl_params_t p;
	dl_plan_t plan = { 0 };
	dl_assign_t a[2];
	uint32_t f;
	double sum = -1;
	size_t n = 9;

	dl_params_default(&p);
	p.rbw = 100;
	p.lbw = 500;
	p.cpb = 1e-3;
	p.nstorage = 1;
	fx_setup(2, 1, &p, DL_EVICT_VALUE);
	f = _file("/shared", 1000);
	ck_assert_int_eq(_add_job(1, &f, 1, DL_JOB_PENDING, -1, 0), 0);
	ck_assert_int_eq(_add_job(2, &f, 1, DL_JOB_PENDING, -1, 0), 1);
	memset(a, 0, sizeof(a));
	plan.n = 2;
	plan.a = a;
	a[0].node = 0;
	a[0].order = 0;
	a[1].node = 0;
	a[1].order = 1;
	ck_assert_int_eq(dl__plan_estimate(ts, &plan, &sum, &n), 0);
	ck_assert_double_eq_tol(sum, 29.0, 1e-9);
	ck_assert_uint_eq(n, 2);
	a[1].node = 1;
	ck_assert_int_eq(dl__plan_estimate(ts, &plan, &sum, &n), 0);
	ck_assert_double_eq_tol(sum, 36.0, 1e-9);
	/* Order decides who goes first: the second job now transfers. */
	a[0].order = 2;
	ck_assert_int_eq(dl__plan_estimate(ts, &plan, &sum, &n), 0);
	ck_assert_double_eq_tol(sum, 36.0, 1e-9);
	a[1].node = -1;
	ck_assert_int_eq(dl__plan_estimate(ts, &plan, &sum, &n), 0);
	ck_assert_double_eq_tol(sum, 13.0, 1e-9);
	ck_assert_uint_eq(n, 1);
	plan.n = 1;
	ck_assert_int_eq(dl__plan_estimate(ts, &plan, &sum, &n), DL_EINVAL);
	_teardown();
}
END_TEST

/*
 * guard=mct keeps whichever of its own plan and mct's the cost model
 * prefers, so its plan never costs more by that model than the plain
 * policy's, on a state where every job reads one large shared file and a
 * private one.
 */
START_TEST(test_ohps_guard)
{
	dl_plan_t *plain, *guarded;
	uint32_t heavy, f[2];
	double c1, c2;
	char path[32];
	uint32_t k;

	_setup(4);
	heavy = _file("/heavy", 4096 * MB);
	f[0] = heavy;
	for (k = 0; k < 12; k++) {
		snprintf(path, sizeof(path), "/private/%u", k);
		f[1] = _file(path, 64 * MB);
		_add_job(k + 1, f, 2, DL_JOB_PENDING, -1, 1);
	}
	plain = _plan_with("online-hps", "guard=none");
	guarded = _plan_with("online-hps", "guard=mct");
	ck_assert_int_eq(dl__plan_estimate(ts, plain, &c1, NULL), 0);
	ck_assert_int_eq(dl__plan_estimate(ts, guarded, &c2, NULL), 0);
	ck_assert(c2 <= c1 * (1 + 1e-9));
	for (k = 0; k < guarded->n; k++)
		ck_assert_int_ge(guarded->a[k].node, 0);
	dl_plan_free(plain);
	dl_plan_free(guarded);
	ck_assert_ptr_null(dl_policy_create("online-hps", "guard=maybe", NULL));
	_teardown();
}
END_TEST

/*
 * reuse: with no new pending job, the mapping of the last plan stays even
 * when the caches changed so that a new plan would differ (with reuse=0
 * this test fails: cluster 0 follows its files); a new job ends the
 * reuse.  Four clusters of jobs as in test_ohps_groups_clusters; from-
 * scratch partitions (refine_above) so that a real plan does move it.
 */
START_TEST(test_ohps_reuse)
{
	dl_policy_t *p = dl_policy_create("online-hps", "order=priority,refine_above=1000,reuse=4", NULL);
	dl_plan_t *p1 = NULL, *p2 = NULL;
	uint32_t extra[1];
	size_t i;

	ck_assert_ptr_nonnull(p);
	_four_clusters();
	ck_assert_int_eq(dl_policy_plan(p, ts, &p1), 0);
	/* Cluster 0's files now sit on another node than its jobs'. */
	for (i = 0; i < ts->jobs[0].nfiles; i++)
		ck_assert_int_eq(dl_cache_insert(tc,
						 (uint32_t)(p1->a[0].node + 1) % 4,
						 ts->jobs[0].files[i], 1, NULL,
						 NULL),
				 0);
	ck_assert_int_eq(dl_policy_plan(p, ts, &p2), 0);
	for (i = 0; i < p1->n; i++)
		ck_assert_int_eq(p2->a[i].node, p1->a[i].node);
	dl_plan_free(p2);
	/* A new job: a real plan, which maps it. */
	extra[0] = ts->jobs[0].files[0];
	_add_job(1000, extra, 1, DL_JOB_PENDING, -1, 1);
	ck_assert_int_eq(dl_policy_plan(p, ts, &p2), 0);
	ck_assert_int_ge(p2->a[p2->n - 1].node, 0);
	dl_plan_free(p1);
	dl_plan_free(p2);
	dl_policy_destroy(p);
	/* reuse=0 plans every time; bad values are refused. */
	ck_assert_ptr_null(dl_policy_create("online-hps", "reuse=-1", NULL));
	_teardown();
}
END_TEST

Suite *make_policy_suite(void)
{
	Suite *s = suite_create("policy");
	TCase *tc_core = tcase_create("core");

	tcase_add_test(tc_core, test_u64set);
	tcase_add_test(tc_core, test_mintree);
	tcase_add_test(tc_core, test_registry);
	tcase_add_test(tc_core, test_params);
	tcase_add_test(tc_core, test_state_rejects);
	tcase_add_test(tc_core, test_state_files_and_order);
	tcase_add_test(tc_core, test_locality_follows_cache);
	tcase_add_test(tc_core, test_plan_bare);
	tcase_add_test(tc_core, test_locality_groups_burst);
	tcase_add_test(tc_core, test_locality_constraints);
	tcase_add_test(tc_core, test_locality_deterministic);
	tcase_add_test(tc_core, test_locality_fast_path_matches_scan);
	tcase_add_test(tc_core, test_locality_many_empty_files);
	tcase_add_test(tc_core, test_online_hps_exact_gate);
	tcase_add_test(tc_core, test_eligible_nonzero);
	tcase_add_test(tc_core, test_plan_starts);
	tcase_add_test(tc_core, test_ohps_groups_clusters);
	tcase_add_test(tc_core, test_ohps_fixed_and_cached);
	tcase_add_test(tc_core, test_ohps_helper_missing);
	tcase_add_test(tc_core, test_plan_estimate);
	tcase_add_test(tc_core, test_ohps_guard);
	tcase_add_test(tc_core, test_ohps_reuse);
	tcase_add_test(tc_core, test_ohps_deterministic);
	tcase_add_test(tc_core, test_ohps_eligibility);
	tcase_add_test(tc_core, test_ohps_starvation);
	tcase_add_test(tc_core, test_mapping_params);
	suite_add_tcase(s, tc_core);
	return s;
}
