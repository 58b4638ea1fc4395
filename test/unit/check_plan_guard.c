/*
 * check_plan_guard.c - the LRU cost model (dl__plan_estimate_lru) and the
 * guard that keeps the better of a plan and locality's, by hand.
 *
 * Platform of every case: RBW 100 B/s, LBW 500 B/s, cpb 1e-3, one storage
 * node, files of 1000 B: a job transfers a missing file in 10 s (one
 * transfer at a time), reads it in 2 s and computes 1 s.
 */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "check_suites.h"
#include "fixture.h"
#include "dl_cache.h"
#include "dl_cost.h"
#include "dl_error.h"
#include "dl_policy.h"
#include "mintree.h"
#include "plan/plan_guard.h"
#include "plan/plan_head.h"
#include "policy/policy_util.h"

static void _setup(uint32_t nnodes)
{
	fx_setup_toy(nnodes, DL_EVICT_LRU);
}

static void _job(uint32_t id, const uint32_t *f, uint32_t n)
{
	dl_job_t j = { 0 };

	j.id = id;
	j.state = DL_JOB_PENDING;
	j.files = (uint32_t *)f;
	j.nfiles = n;
	j.node = -1;
	j.arrival = id;
	j.compute = -1;
	ck_assert_int_ge(dl_state_add_job(fx_state, &j), 0);
}

/* The estimate of plan, asserting success. */
static double _est(const dl_plan_t *plan, const dl_place_params_t *pp)
{
	double sum = -1;

	ck_assert_int_eq(dl__plan_estimate_lru(fx_state, plan, pp, &sum, NULL),
			 0);
	return sum;
}

/*
 * Jobs A (f1), B (f2), C (f1) all on node 0, in that order.  Unlimited
 * cache: A ends 13, B 13+10+3 = 26, C finds f1: 29; sum 68, as
 * dl__plan_estimate() says.  Cache of 1500 B: B's f2 evicts f1 (1000 +
 * 1000 > 1500), so C transfers again: 26+13 = 39, sum 78.  2000 B hold
 * both: 68.  B on node 1 instead: it waits for the storage node until 10,
 * ends 23; C on node 0 starts at 13 and still finds f1 (only it was
 * fetched there): 16; sum 52.
 */
START_TEST(test_estimate_lru)
{
	int32_t same[3] = { 0, 0, 0 }, split[3] = { 0, 1, 0 };
	dl_assign_t a[3];
	dl_plan_t plan;
	uint32_t f1, f2, fa[1], fb[1];
	double sum = -1, ref = -1;
	size_t n = 0;

	_setup(2);
	f1 = fx_file("/f1", 1000);
	f2 = fx_file("/f2", 1000);
	fa[0] = f1;
	fb[0] = f2;
	_job(1, fa, 1);
	_job(2, fb, 1);
	_job(3, fa, 1);
	fx_plan(&plan, a, same);
	ck_assert_int_eq(dl__plan_estimate_lru(fx_state, &plan, NULL, &sum, &n),
			 0);
	ck_assert_double_eq_tol(sum, 68.0, 1e-9);
	ck_assert_uint_eq(n, 3);
	ck_assert_int_eq(dl__plan_estimate(fx_state, &plan, &ref, NULL), 0);
	ck_assert_double_eq_tol(ref, sum, 1e-9);
	ck_assert_int_eq(dl_cache_set_capacity(fx_cache, 0, 1500), 0);
	ck_assert_double_eq_tol(_est(&plan, NULL), 78.0, 1e-9);
	ck_assert_int_eq(dl_cache_set_capacity(fx_cache, 0, 2000), 0);
	ck_assert_double_eq_tol(_est(&plan, NULL), 68.0, 1e-9);
	ck_assert_int_eq(dl_cache_set_capacity(fx_cache, 0, 1500), 0);
	fx_plan(&plan, a, split);
	ck_assert_double_eq_tol(_est(&plan, NULL), 52.0, 1e-9);
	/* Unplanned jobs are left out; a plan of another state is refused. */
	a[2].node = -1;
	ck_assert_int_eq(dl__plan_estimate_lru(fx_state, &plan, NULL, &sum, &n),
			 0);
	ck_assert_double_eq_tol(sum, 36.0, 1e-9);
	ck_assert_uint_eq(n, 2);
	plan.n = 2;
	ck_assert_int_eq(dl__plan_estimate_lru(fx_state, &plan, NULL, &sum, &n),
			 DL_EINVAL);
	fx_teardown();
}
END_TEST

/*
 * A file cached now counts as just read: on a 1500 B cache holding f1,
 * job A (f2) evicts it, so B (f1) on the same node transfers: A ends 13,
 * B 26, sum 39; with B first it hits: B 3, A 16, sum 19.
 */
START_TEST(test_estimate_lru_cached)
{
	int32_t same[2] = { 0, 0 };
	dl_assign_t a[2];
	dl_plan_t plan;
	uint32_t f1, f2;

	_setup(1);
	f1 = fx_file("/f1", 1000);
	f2 = fx_file("/f2", 1000);
	ck_assert_int_eq(dl_cache_set_capacity(fx_cache, 0, 1500), 0);
	ck_assert_int_eq(dl_cache_insert(fx_cache, 0, f1, 0, NULL, NULL), 0);
	_job(1, &f2, 1);
	_job(2, &f1, 1);
	fx_plan(&plan, a, same);
	ck_assert_double_eq_tol(_est(&plan, NULL), 39.0, 1e-9);
	a[0].order = 5;
	ck_assert_double_eq_tol(_est(&plan, NULL), 19.0, 1e-9);
	fx_teardown();
}
END_TEST

/*
 * The placement rule: A (f1) and B (f2) both on node 0 of two.  Waiting
 * for their node, A ends 13 and B 26: 39.  With the default rule B's
 * bound is the 2 s floor (node 0 caches none of its input): at 2 it
 * takes node 1, waits for the storage node until 10, ends 23: sum 36.
 * Strict: 39 again.
 */
START_TEST(test_estimate_widen)
{
	int32_t same[2] = { 0, 0 };
	dl_place_params_t pp;
	dl_assign_t a[2];
	dl_plan_t plan;
	uint32_t f1, f2;

	_setup(2);
	f1 = fx_file("/f1", 1000);
	f2 = fx_file("/f2", 1000);
	_job(1, &f1, 1);
	_job(2, &f2, 1);
	fx_plan(&plan, a, same);
	ck_assert_double_eq_tol(_est(&plan, NULL), 39.0, 1e-9);
	dl_place_params_default(&pp);
	ck_assert_double_eq_tol(_est(&plan, &pp), 36.0, 1e-9);
	pp.strict = 1;
	ck_assert_double_eq_tol(_est(&plan, &pp), 39.0, 1e-9);
	fx_teardown();
}
END_TEST

/*
 * The estimate of a plan of 40 one-CPU jobs on 6 nodes (one unusable)
 * whose waits outlast their bounds: with jobs any node may run, _widen()
 * asks the queues' tree (mintree.h); with an eligibility list naming
 * every node, it scans the nodes.  Both give the same sum, on 30 random
 * states.
 */
static double _est_random(unsigned seed, const uint8_t *elig)
{
	dl_assign_t a[40];
	int32_t nodes[40];
	dl_place_params_t pp;
	dl_plan_t plan;
	uint32_t f[8], i;
	double sum;

	_setup(6);
	fx_state->nodes[4].usable = 0;
	for (i = 0; i < 8; i++) {
		char path[16];

		snprintf(path, sizeof(path), "/f%u", i);
		f[i] = fx_file(path, 200 + 100 * (rand_r(&seed) % 8));
	}
	for (i = 0; i < 40; i++) {
		dl_job_t j = { 0 };

		j.id = i + 1;
		j.state = DL_JOB_PENDING;
		j.files = &f[rand_r(&seed) % 7];
		j.nfiles = 2;
		j.node = -1;
		j.arrival = i;
		j.compute = -1;
		j.eligible = (uint8_t *)elig;
		ck_assert_int_ge(dl_state_add_job(fx_state, &j), 0);
		nodes[i] = (int32_t)(rand_r(&seed) % 4); /* 0-3 only */
	}
	fx_plan(&plan, a, nodes);
	dl_place_params_default(&pp);
	pp.min_wait = 0.5;
	pp.wait_factor = 0.2;
	sum = _est(&plan, &pp);
	fx_teardown();
	return sum;
}

START_TEST(test_estimate_widen_tree)
{
	static const uint8_t all[6] = { 1, 1, 1, 1, 1, 1 };
	/* Without the unusable node 4: _widen() skips it by the list
	 * (dl_state_job_next()) rather than by asking it; same sums. */
	static const uint8_t but4[6] = { 1, 1, 1, 1, 0, 1 };
	unsigned seed;

	for (seed = 1; seed <= 30; seed++) {
		ck_assert_double_eq(_est_random(seed, NULL),
				    _est_random(seed, all));
		ck_assert_double_eq(_est_random(seed, all),
				    _est_random(seed, but4));
	}
}
END_TEST

/*
 * The estimate loads every node's queue with dl__mintree_put() and one
 * dl__mintree_build(): on random values (some infinite, ties), the tree is
 * the one dl__mintree_set() of each value gives, entry for entry.
 */
START_TEST(test_mintree_build)
{
	unsigned seed = 5;
	uint32_t n, i;

	for (n = 0; n <= 70; n++) {
		dl__mintree_t a, b;

		ck_assert_int_eq(dl__mintree_init(&a, n), 0);
		ck_assert_int_eq(dl__mintree_init(&b, n), 0);
		for (i = 0; i < n; i++) {
			double x = rand_r(&seed) % 5 ? rand_r(&seed) % 7 :
						       INFINITY;

			if (rand_r(&seed) % 4 == 0)
				continue; /* left at +infinity */
			dl__mintree_set(&a, i, x);
			dl__mintree_put(&b, i, x);
		}
		dl__mintree_put(&b, n + 3, 0); /* ignored */
		dl__mintree_build(&b);
		for (i = 1; i < 2 * a.size; i++)
			ck_assert(a.v[i] == b.v[i]);
		ck_assert_int_eq(dl__mintree_argmin(&a, n),
				 dl__mintree_argmin(&b, n));
		dl__mintree_fini(&a);
		dl__mintree_fini(&b);
	}
}
END_TEST

/*
 * Three jobs with their own files on two nodes.  All on node 0 costs 13 +
 * 26 + 39 = 78; locality balances them (0, 1, 0): 13, 23 (B waits for the
 * storage node until 10), 33 (C starts at 13, transfers 20-30): 69, so
 * the guard (with a strict placement rule: jobs wait for their nodes)
 * takes locality's nodes and keeps the plan's order.  Given
 * locality's own plan, a tie keeps it.  A job without files (first, 0 s
 * on node 1), which locality leaves unplanned, keeps the plan's node.
 */
START_TEST(test_guard_apply)
{
	int32_t same[4] = { 0, 0, 0, 1 }, want[4] = { 0, 1, 0, 1 };
	dl_place_params_t strict;
	dl__guard_t *g;
	dl_assign_t a[4];
	dl_plan_t plan;
	uint32_t f[3];
	int sw = -1;
	size_t i;

	_setup(2);
	f[0] = fx_file("/a", 1000);
	f[1] = fx_file("/b", 1000);
	f[2] = fx_file("/c", 1000);
	_job(1, &f[0], 1);
	_job(2, &f[1], 1);
	_job(3, &f[2], 1);
	_job(4, NULL, 0);
	dl_place_params_default(&strict);
	strict.strict = 1; /* jobs wait for their node: the sums above */
	ck_assert_ptr_null(dl__guard_create("no-such-policy", NULL, &strict));
	ck_assert_ptr_null(dl__guard_create("locality+", NULL, &strict));
	ck_assert_ptr_null(dl__guard_create("locality", "slack=-1", &strict));
	g = dl__guard_create("locality", NULL, &strict);
	ck_assert_ptr_nonnull(g);
	fx_plan(&plan, a, same);
	a[3].order = -1; /* first: 0 s on node 1, delays nobody */
	ck_assert_int_eq(dl__guard_apply(g, fx_state, &plan, &sw), 0);
	ck_assert_int_eq(sw, 1);
	for (i = 0; i < 4; i++)
		ck_assert_int_eq(a[i].node, want[i]);
	ck_assert_double_eq(a[3].order, -1); /* the guard moves, never reorders */
	ck_assert_double_eq(a[1].order, 1);
	ck_assert_int_eq(dl__guard_apply(g, fx_state, &plan, &sw), 0);
	ck_assert_int_eq(sw, 0);
	for (i = 0; i < 4; i++)
		ck_assert_int_eq(a[i].node, want[i]);
	dl__guard_destroy(g);
	dl__guard_destroy(NULL);
	fx_teardown();
}
END_TEST

/*
 * Two nodes, jobs 1-3 reading their own files /a, /b, /c (1000 B each),
 * and a guard against locality whose jobs wait for their nodes (strict):
 * the case of test_guard_apply without its file-less job.
 * \return the guard, free with dl__guard_destroy().
 */
static dl__guard_t *_three_jobs_strict(void)
{
	dl_place_params_t strict;
	dl__guard_t *g;
	uint32_t f[3], i;

	_setup(2);
	f[0] = fx_file("/a", 1000);
	f[1] = fx_file("/b", 1000);
	f[2] = fx_file("/c", 1000);
	for (i = 0; i < 3; i++)
		_job(i + 1, &f[i], 1);
	dl_place_params_default(&strict);
	strict.strict = 1;
	g = dl__guard_create("locality", NULL, &strict);
	ck_assert_ptr_nonnull(g);
	return g;
}

/* g applied to plan at margin: which plan won (0: plan, k + 1: policy k). */
static int _apply_at(dl__guard_t *g, dl_plan_t *plan, double margin)
{
	int sw = -1;

	dl__guard_set_margin(g, margin);
	ck_assert_int_eq(dl__guard_apply(g, fx_state, plan, &sw), 0);
	return sw;
}

/*
 * guard_margin: test_guard_apply's plans, all on node 0 (78) against
 * locality's (69, 11.5% sooner).  With a margin of 12% the plan stays;
 * with 10% locality's nodes are taken.  At 1 or more (no alternative can
 * be that much sooner: nothing is estimated) the plan stays, and the
 * next call at 10% takes locality's nodes again.
 */
START_TEST(test_guard_margin)
{
	int32_t same[3] = { 0, 0, 0 };
	dl__guard_t *g;
	dl_assign_t a[3];
	dl_plan_t plan;
	size_t i;

	g = _three_jobs_strict();
	fx_plan(&plan, a, same);
	ck_assert_int_eq(_apply_at(g, &plan, 0.12), 0);
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(a[i].node, 0);
	ck_assert_int_eq(_apply_at(g, &plan, 0.10), 1);
	ck_assert_int_eq(a[1].node, 1);
	fx_plan(&plan, a, same);
	ck_assert_int_eq(_apply_at(g, &plan, 1), 0);
	ck_assert_int_eq(_apply_at(g, &plan, 2), 0);
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(a[i].node, 0);
	ck_assert_int_eq(_apply_at(g, &plan, 0.10), 1);
	ck_assert_int_eq(a[1].node, 1);
	dl__guard_destroy(g);
	fx_teardown();
}
END_TEST

/*
 * guard_every: with every=3 the first call compares (a tie: the plan,
 * already locality's, is kept), the next two repeat that verdict without
 * comparing, so a worse plan (all on node 0) is left alone; the fourth
 * compares again and takes locality's nodes.
 */
START_TEST(test_guard_every)
{
	int32_t same[3] = { 0, 0, 0 }, want[3] = { 0, 1, 0 };
	dl__guard_t *g;
	dl_assign_t a[3];
	dl_plan_t plan;
	int sw = -1, call;
	size_t i;

	g = _three_jobs_strict();
	dl__guard_set_every(g, 3);
	fx_plan(&plan, a, want);
	ck_assert_int_eq(dl__guard_apply(g, fx_state, &plan, &sw), 0);
	ck_assert_int_eq(sw, 0);
	for (call = 2; call <= 3; call++) {
		fx_plan(&plan, a, same);
		ck_assert_int_eq(dl__guard_apply(g, fx_state, &plan, &sw), 0);
		ck_assert_int_eq(sw, 0);
		for (i = 0; i < 3; i++)
			ck_assert_int_eq(a[i].node, 0);
	}
	ck_assert_int_eq(dl__guard_apply(g, fx_state, &plan, &sw), 0);
	ck_assert_int_eq(sw, 1);
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(a[i].node, want[i]);
	dl__guard_destroy(g);
	fx_teardown();
}
END_TEST

/*
 * Cache pressure: node 0 holds 1500 B.  Two jobs reading f1 (1000 B) on
 * it need 1000 B (a shared file counts once): no pressure; a third
 * reading f2 makes 2000 B: pressure.  With the third on node 1 (1500 B
 * too) neither node is short; unlimited caches never are.
 */
START_TEST(test_guard_pressure)
{
	int32_t shared[3] = { 0, 0, 1 }, all0[3] = { 0, 0, 0 };
	dl_assign_t a[3];
	dl_plan_t plan;
	uint32_t f1, f2;

	_setup(2);
	f1 = fx_file("/f1", 1000);
	f2 = fx_file("/f2", 1000);
	_job(1, &f1, 1);
	_job(2, &f1, 1);
	_job(3, &f2, 1);
	fx_plan(&plan, a, all0);
	ck_assert_int_eq(dl__guard_pressure(fx_state, &plan), 0);
	ck_assert_int_eq(dl_cache_set_capacity(fx_cache, 0, 1500), 0);
	ck_assert_int_eq(dl_cache_set_capacity(fx_cache, 1, 1500), 0);
	ck_assert_int_eq(dl__guard_pressure(fx_state, &plan), 1);
	fx_plan(&plan, a, shared);
	ck_assert_int_eq(dl__guard_pressure(fx_state, &plan), 0);
	a[2].node = -1; /* unplanned jobs weigh nothing */
	ck_assert_int_eq(dl__guard_pressure(fx_state, &plan), 0);
	fx_teardown();
}
END_TEST

/* online-hps takes guard=locality (and still refuses unknown guards). */
START_TEST(test_ohps_guard_locality)
{
	dl_policy_t *p;
	int err = 1;

	p = dl_policy_create("online-hps",
			     "guard=locality,guard_every=2,guard_pressure=0",
			     &err);
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(err, 0);
	dl_policy_destroy(p);
	ck_assert_ptr_null(dl_policy_create("online-hps", "guard=best", &err));
	ck_assert_int_eq(err, DL_EINVAL);
	ck_assert_ptr_null(dl_policy_create("online-hps", "guard_every=0", &err));
	ck_assert_ptr_null(dl_policy_create("online-hps", "guard_pressure=2",
					    &err));
	ck_assert_ptr_null(dl_policy_create("online-hps", "guard_margin=1",
					    &err));
}
END_TEST

/*
 * Online-HPS as slurmctld runs it (order=priority) has the guard on at
 * every plan.  Two idle nodes, node 0 caching f1, two pending jobs
 * reading it.  The partition balances them, one per node: 3 s on node 0,
 * 10 + 3 s on node 1, sum 16.  locality's plan, both on node 0, ends
 * them at 3 and 6: sum 9, so the guard takes it.  So does guard_wait's
 * mct (both on node 0 too, judged with unbounded waits), on by default
 * with order=priority where one file is most of the jobs' input (here
 * all of it).  With guard=none,guard_wait=none, or the paper's order
 * (order=ect, where both stay off), the partition's split stands.
 * follow=0 keeps plan_follow.h out of it.
 */
static int _ohps_on_node0(const char *params)
{
	dl_plan_t *plan = NULL;
	dl_policy_t *p;
	int err = 1, n = 0;
	size_t i;

	p = dl_policy_create("online-hps", params, &err);
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(dl_policy_plan(p, fx_state, &plan), 0);
	ck_assert_int_eq(plan->fallback, 0);
	for (i = 0; i < plan->n; i++)
		n += fx_state->jobs[i].state == DL_JOB_PENDING &&
		     plan->a[i].node == 0;
	dl_plan_free(plan);
	dl_policy_destroy(p);
	return n;
}

/* Two idle nodes, node 0 caching f1, pending jobs 1 and 2 reading it. */
static void _two_jobs_f1(void)
{
	uint32_t f1;

	_setup(2);
	f1 = fx_file("/f1", 1000);
	ck_assert_int_eq(dl_cache_insert(fx_cache, 0, f1, 0, NULL, NULL), 0);
	_job(1, &f1, 1);
	_job(2, &f1, 1);
}

START_TEST(test_ohps_guard_default)
{
	_two_jobs_f1();
	ck_assert_int_eq(_ohps_on_node0("order=priority,follow=0"), 2);
	/* guard_wait's mct (on here: one file is all of each job's input)
	 * also takes node 0; without either guard the split stands. */
	ck_assert_int_eq(_ohps_on_node0("order=priority,follow=0,guard=none"),
			 2);
	ck_assert_int_eq(_ohps_on_node0("order=priority,follow=0,guard=none,"
					"guard_wait=none,imbalance_wide=0"),
			 1);
	ck_assert_int_eq(_ohps_on_node0("order=priority,follow=0,guard=none,"
					"guard_wait_file=1.5,imbalance_wide=0"),
			 1);

	ck_assert_int_eq(_ohps_on_node0("order=ect,follow=0"), 1);
	ck_assert_int_eq(_ohps_on_node0("order=ect,follow=0,guard=locality,"
					"guard_pressure=0"),
			 2);
	fx_teardown();
}
END_TEST

/* Two idle nodes, node 0 caching four 250-B files, pending jobs 1 and 2
 * reading all four. */
static void _two_jobs_four_files(void)
{
	uint32_t f[4], k;
	char path[8];

	_setup(2);
	for (k = 0; k < 4; k++) {
		snprintf(path, sizeof(path), "/f%u", k);
		f[k] = fx_file(path, 250);
		ck_assert_int_eq(dl_cache_insert(fx_cache, 0, f[k], 0, NULL,
						 NULL),
				 0);
	}
	_job(1, f, 4);
	_job(2, f, 4);
}

/*
 * guard_margin_shared: the same two jobs, each now reading four files of
 * 250 B that node 0 caches.  No file is large (the caches are unlimited)
 * or dominates the jobs' input (a quarter of it), and all of it is read
 * by both jobs: guard_margin_small's share test fails, so the plan is in
 * guard_margin_shared's step.  At 0 the locality guard there takes node 0
 * for both, as above; at 0.99 and at 1, the default with order=priority,
 * it keeps the partition's split.
 * imbalance_wide=0 keeps the partition's split balanced.
 */
START_TEST(test_ohps_guard_margin_shared)
{
	const char *base = "order=priority,follow=0,imbalance_wide=0";
	char params[256];
	int err = 1;

	_two_jobs_four_files();
	snprintf(params, sizeof(params), "%s,guard_margin_shared=0", base);
	ck_assert_int_eq(_ohps_on_node0(params), 2);
	/* The default with order=priority: 1 (off, nothing estimated). */
	ck_assert_int_eq(_ohps_on_node0(base), 1);
	snprintf(params, sizeof(params), "%s,guard_margin_shared=0.99", base);
	ck_assert_int_eq(_ohps_on_node0(params), 1);
	snprintf(params, sizeof(params), "%s,guard_margin_shared=1", base);
	ck_assert_int_eq(_ohps_on_node0(params), 1);
	/* Without the share test the plan is in guard_margin_small's step. */
	snprintf(params, sizeof(params),
		 "%s,guard_margin_shared=0.99,guard_margin_small_share=0",
		 base);
	ck_assert_int_eq(_ohps_on_node0(params), 2);
	ck_assert_ptr_null(dl_policy_create("online-hps",
					    "guard_margin_shared=1.01", &err));
	ck_assert_ptr_null(dl_policy_create("online-hps",
					    "guard_margin_shared=-0.1", &err));
	fx_teardown();
}
END_TEST

/*
 * guard_margin_shared_large: the same two jobs and four 250-B files, with
 * finite caches on both nodes.  At 1,600 B a file is an eighth of a cache
 * (large, guard_margin_cache) but the partition's split puts 1,000 B on
 * each node: no pressure, so the guard stays off as where no file is
 * large, and the split stands; guard_margin_shared_large=0 gives the plan
 * to the plain comparison, which takes node 0 for both.  At 900 B each
 * node of the split holds more input than its cache: the guard compares,
 * as with guard_margin_shared_large=0.
 */
START_TEST(test_ohps_guard_shared_large)
{
	const char *base = "order=priority,follow=0,imbalance_wide=0";
	char params[256];
	uint32_t k;
	int err = 1, off;

	_two_jobs_four_files();
	for (k = 0; k < 2; k++)
		ck_assert_int_eq(dl_cache_set_capacity(fx_cache, k, 1600), 0);
	ck_assert_int_eq(_ohps_on_node0(base), 1);
	snprintf(params, sizeof(params), "%s,guard_margin_shared_large=0",
		 base);
	ck_assert_int_eq(_ohps_on_node0(params), 2);
	for (k = 0; k < 2; k++)
		ck_assert_int_eq(dl_cache_set_capacity(fx_cache, k, 900), 0);
	off = _ohps_on_node0(params);
	ck_assert_int_eq(_ohps_on_node0(base), off);
	ck_assert_int_eq(off, 2);
	ck_assert_ptr_null(dl_policy_create("online-hps",
					    "guard_margin_shared_large=0.5",
					    &err));
	fx_teardown();
}
END_TEST

/*
 * imbalance_wide (on with order=priority): where the host widens a job
 * blocked on a busy node, the partition may load a node up to twice the
 * mean, so the two readers of f1 share node 0 (the cut is lower) where
 * imbalance=1.1 splits them; imbalance_wide=0, the paper's order, and a
 * few large files dominating the input (guard_margin_big's test: f1
 * is all of the jobs' input, and with 4000-B caches at least an eighth
 * of one, not half) keep the split.  The guards are off to show the
 * partition's own plan.
 */
START_TEST(test_ohps_imbalance_wide)
{
	const char *off = "follow=0,guard=none,guard_wait=none";
	char params[256];
	int err = 1;

	_two_jobs_f1();
	snprintf(params, sizeof(params), "order=priority,%s", off);
	ck_assert_int_eq(_ohps_on_node0(params), 2);
	snprintf(params, sizeof(params), "order=priority,%s,imbalance=2,"
		 "imbalance_wide=0", off);
	ck_assert_int_eq(_ohps_on_node0(params), 2);
	snprintf(params, sizeof(params), "order=priority,%s,imbalance_wide=0",
		 off);
	ck_assert_int_eq(_ohps_on_node0(params), 1);
	snprintf(params, sizeof(params), "order=ect,%s", off);
	ck_assert_int_eq(_ohps_on_node0(params), 1);
	snprintf(params, sizeof(params), "order=ect,%s,imbalance_wide=2", off);
	ck_assert_int_eq(_ohps_on_node0(params), 2);
	/* 4000-B caches: f1 is at least an eighth of one. */
	ck_assert_int_eq(dl_cache_set_capacity(fx_cache, 0, 4000), 0);
	ck_assert_int_eq(dl_cache_set_capacity(fx_cache, 1, 4000), 0);
	snprintf(params, sizeof(params), "order=priority,%s", off);
	ck_assert_int_eq(_ohps_on_node0(params), 1);
	snprintf(params, sizeof(params), "order=priority,%s,"
		 "guard_margin_cache=0.5", off);
	ck_assert_int_eq(_ohps_on_node0(params), 2);
	ck_assert_ptr_null(dl_policy_create("online-hps", "imbalance_wide=0.5",
					    &err));
	ck_assert_int_eq(err, DL_EINVAL);
	fx_teardown();
}
END_TEST

/* The same state with guard_wait=mct, which takes mct's plan (both jobs
 * on node 0) in either order, unless the jobs' largest file is too small
 * a share of their input (guard_wait_file); bad values are refused. */
START_TEST(test_ohps_guard_wait)
{
	int err = 1;

	_two_jobs_f1();
	ck_assert_int_eq(_ohps_on_node0("order=priority,follow=0,guard=none,"
					"guard_wait=mct,hysteresis=0.25"),
			 2);
	ck_assert_int_eq(_ohps_on_node0("order=ect,follow=0,guard_wait=mct"),
			 2);
	/*
	 * guard_wait_file: both jobs read one 1000-B file, as much as the
	 * mean job's input, so a threshold up to 1 keeps the step and one
	 * above turns it off (the partition's split stands).
	 */
	ck_assert_int_eq(_ohps_on_node0("order=priority,follow=0,guard=none,"
					"guard_wait=mct,guard_wait_file=1"),
			 2);
	ck_assert_int_eq(_ohps_on_node0("order=priority,follow=0,guard=none,"
					"guard_wait=mct,guard_wait_file=1.5,"
					"imbalance_wide=0"),
			 1);
	ck_assert_ptr_null(dl_policy_create("online-hps", "guard_wait_file=-1",
					    &err));
	ck_assert_ptr_null(dl_policy_create("online-hps", "guard_wait=nosuch",
					    &err));
	ck_assert_ptr_null(dl_policy_create("online-hps", "hysteresis=-1",
					    &err));
	fx_teardown();
}
END_TEST

/*
 * Three nodes busy with jobs whose files are cached there (as the agent
 * records a started job's files), one idle; a fourth job reads files no
 * node holds.  With compute < 0 the running jobs' remaining time is only
 * a local read, so every node looks free; as the agent estimates a
 * running job of unknown run time (dl_runtime_running()), the idle node
 * is the only one free now, and every policy must send the job there.
 * (With compute < 0, Online-HPS's partition sent it to busy node 3, and
 * test_dispatch.sh saw it widened after waiting there: CI of stop 19.)
 */
static int32_t _idle_case(const char *policy, const char *params,
			  double running_compute)
{
	uint32_t f[4][3], k, idx;
	dl_plan_t *plan = NULL;
	dl_policy_t *p;
	int err = 1, g;
	const int32_t busy[3] = { 2, 3, 1 };
	int32_t node;

	_setup(4);
	for (g = 0; g < 4; g++)
		for (k = 0; k < 3; k++) {
			char path[32];

			snprintf(path, sizeof(path), "/g%d/f%u", g, k);
			f[g][k] = fx_file(path, 1000 * (k + 1));
		}
	for (g = 0; g < 3; g++) {
		idx = fx_job((uint32_t)g + 1, f[g], 3, DL_JOB_RUNNING, busy[g]);
		fx_state->jobs[idx].compute = running_compute;
		for (k = 0; k < 3; k++)
			ck_assert_int_eq(dl_cache_insert(fx_cache,
							 (uint32_t)busy[g],
							 f[g][k], 0, NULL,
							 NULL), 0);
	}
	fx_state->now = 0.5;
	fx_state->params.cpb = 0;
	fx_state->params.lbw = 1e9;
	idx = fx_job(4, f[3], 3, DL_JOB_PENDING, -1);
	p = dl_policy_create(policy, params, &err);
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(dl_policy_plan(p, fx_state, &plan), 0);
	/* The plan's memo of remaining times was on its own view. */
	ck_assert_ptr_null(fx_state->remaining);
	node = plan->a[idx].node;
	dl_plan_free(plan);
	dl_policy_destroy(p);
	fx_teardown();
	return node;
}

START_TEST(test_idle_node)
{
	double est = dl_runtime_running(-1, 0.5);
	const char *pol[] = { "online-hps", "locality", "mct", "met" };
	size_t i;

	ck_assert_double_eq(est, 1.5);
	for (i = 0; i < 4; i++)
		ck_assert_int_eq(_idle_case(pol[i], NULL, est), 0);
	ck_assert_int_eq(_idle_case("online-hps", "guard=none", est), 0);
}
END_TEST

/*
 * Bounded or unbounded waits.  Node 0 caches f1 and runs R, 5 s left (f1
 * read 2 s, compute 3 s); pending J reads f1, planned on idle node 1:
 * fetch 10 + 3, ends at 13.  Locality puts it on node 0.  With a bound of
 * 2 s (wait factor 0.2) J waits 2 s there, then runs on node 1 at 15: the
 * plan stays.  Waiting for node 0 however long, it ends at 5 + 3 = 8:
 * the unbounded guard takes locality's node.
 */
START_TEST(test_guard_unbounded)
{
	int32_t nodes[2] = { -1, 1 };
	dl_place_params_t pp;
	dl__guard_t *g;
	dl_assign_t a[2];
	dl_plan_t plan;
	uint32_t f1, r;
	int sw = -1;

	_setup(2);
	f1 = fx_file("/f1", 1000);
	ck_assert_int_eq(dl_cache_insert(fx_cache, 0, f1, 0, NULL, NULL), 0);
	r = fx_job(1, &f1, 1, DL_JOB_RUNNING, 0);
	fx_state->jobs[r].compute = 3;
	_job(2, &f1, 1);
	dl_place_params_default(&pp);
	pp.wait_factor = 0.2;
	g = dl__guard_create("locality", NULL, &pp);
	ck_assert_ptr_nonnull(g);
	fx_plan(&plan, a, nodes);
	ck_assert_int_eq(dl__guard_apply(g, fx_state, &plan, &sw), 0);
	ck_assert_int_eq(sw, 0);
	ck_assert_int_eq(a[1].node, 1);
	dl__guard_set_unbounded(g, 1);
	ck_assert_int_eq(dl__guard_apply(g, fx_state, &plan, &sw), 0);
	ck_assert_int_eq(sw, 1);
	ck_assert_int_eq(a[1].node, 0);
	dl__guard_destroy(g);
	fx_teardown();
}
END_TEST

/*
 * The head of the queue (plan_head.h).  State order: pending P10 (arrived
 * 10), running R1 on node 0, pending P3 (priority 5), P4 (arrived 4), P2
 * (arrived 2).  Priority order: P3, P2, P4, P10.  The head of two pending
 * jobs is R1, P3, P2, in the state's order, with their plan entries and
 * remaining times; storing writes back only the pending jobs' nodes.
 */
START_TEST(test_head_view)
{
	int32_t nodes[5] = { 2, -1, 1, 0, 2 };
	double rem[5] = { 0, 7.5, 0, 0, 0 };
	const size_t want[3] = { 1, 2, 4 };
	dl_assign_t a[5];
	dl__head_t h;
	dl_plan_t plan;
	uint32_t f1;
	size_t i;

	_setup(3);
	f1 = fx_file("/f1", 1000);
	fx_job(10, &f1, 1, DL_JOB_PENDING, -1);
	fx_job(1, &f1, 1, DL_JOB_RUNNING, 0);
	fx_state->jobs[fx_job(3, &f1, 1, DL_JOB_PENDING, -1)].priority = 5;
	fx_job(4, &f1, 1, DL_JOB_PENDING, -1);
	fx_job(2, &f1, 1, DL_JOB_PENDING, -1);
	fx_plan(&plan, a, nodes);
	fx_state->remaining = rem;
	ck_assert_int_eq(dl__head_init(&h, fx_state, &plan, 4), 0);
	ck_assert_int_eq(dl__head_init(&h, fx_state, &plan, 2), 1);
	ck_assert_uint_eq(h.view.njobs, 3);
	ck_assert_uint_eq(h.plan.n, 3);
	ck_assert_ptr_eq(h.view.nodes, fx_state->nodes);
	for (i = 0; i < 3; i++) {
		ck_assert_uint_eq(h.idx[i], want[i]);
		ck_assert_uint_eq(h.view.jobs[i].id, fx_state->jobs[want[i]].id);
		ck_assert_int_eq(h.plan.a[i].node, a[want[i]].node);
		ck_assert_double_eq(h.plan.a[i].order, a[want[i]].order);
		ck_assert_double_eq(h.view.remaining[i], rem[want[i]]);
		h.plan.a[i].node = 1;
	}
	dl__head_store(&h, fx_state, &plan);
	dl__head_fini(&h);
	ck_assert_int_eq(a[0].node, 2); /* not in the head */
	ck_assert_int_eq(a[1].node, -1); /* running: not written */
	ck_assert_int_eq(a[2].node, 1);
	ck_assert_int_eq(a[3].node, 0);
	ck_assert_int_eq(a[4].node, 1);
	fx_state->remaining = NULL;
	ck_assert_int_eq(dl__head_init(&h, fx_state, &plan, 3), 1);
	ck_assert_ptr_null(h.view.remaining);
	ck_assert_uint_eq(h.view.njobs, 4); /* R1, P3, P4, P2 */
	ck_assert_uint_eq(h.idx[2], 3);
	dl__head_fini(&h);
	plan.n = 4;
	ck_assert_int_eq(dl__head_init(&h, fx_state, &plan, 1), DL_EINVAL);
	fx_teardown();
}
END_TEST

/* Pending job id's node in a plan of online-hps with params. */
static int32_t _ohps_node(const char *params, uint32_t id)
{
	dl_plan_t *plan = NULL;
	dl_policy_t *p;
	int err = 1;
	int32_t node = -2;
	size_t i;

	p = dl_policy_create("online-hps", params, &err);
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(dl_policy_plan(p, fx_state, &plan), 0);
	for (i = 0; i < plan->n; i++)
		if (fx_state->jobs[i].id == id)
			node = plan->a[i].node;
	dl_plan_free(plan);
	dl_policy_destroy(p);
	return node;
}

/*
 * guard_horizon: test_ohps_guard_default's state, where the partition
 * splits jobs 1 and 2 over the nodes (job 2 on node 0, which caches
 * their file) and the guards put both on node 0.  Job 2 first in
 * priority: with a horizon of one job the guards judge job 2 alone,
 * whose node is already the best, and job 1, behind the horizon, keeps
 * the partition's node 1.  A horizon of both jobs judges them both.
 */
START_TEST(test_ohps_guard_horizon)
{
	const char *none = "order=priority,follow=0,guard=none,"
			   "guard_wait=none,imbalance_wide=0";
	int err = 1;

	_two_jobs_f1();
	fx_state->jobs[1].priority = 1;
	ck_assert_int_eq(_ohps_node(none, 1), 1);
	ck_assert_int_eq(_ohps_node(none, 2), 0);
	ck_assert_int_eq(_ohps_node("order=priority,follow=0,"
				    "imbalance_wide=0", 1), 0);
	ck_assert_int_eq(_ohps_node("order=priority,follow=0,imbalance_wide=0,"
				    "guard_horizon=1", 1), 1);
	ck_assert_int_eq(_ohps_node("order=priority,follow=0,imbalance_wide=0,"
				    "guard_horizon=1", 2), 0);
	ck_assert_int_eq(_ohps_node("order=priority,follow=0,imbalance_wide=0,"
				    "guard_horizon=2", 1), 0);
	ck_assert_int_eq(_ohps_node("order=priority,follow=0,imbalance_wide=0,"
				    "guard_horizon=0", 1), 0);
	ck_assert_ptr_null(dl_policy_create("online-hps", "guard_horizon=-1",
					    &err));
	fx_teardown();
}
END_TEST

Suite *make_plan_guard_suite(void)
{
	Suite *s = suite_create("plan_guard");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_estimate_lru);
	tcase_add_test(tc, test_estimate_lru_cached);
	tcase_add_test(tc, test_estimate_widen);
	tcase_add_test(tc, test_estimate_widen_tree);
	tcase_add_test(tc, test_mintree_build);
	tcase_add_test(tc, test_guard_apply);
	tcase_add_test(tc, test_guard_every);
	tcase_add_test(tc, test_guard_margin);
	tcase_add_test(tc, test_guard_unbounded);
	tcase_add_test(tc, test_guard_pressure);
	tcase_add_test(tc, test_ohps_guard_locality);
	tcase_add_test(tc, test_ohps_guard_default);
	tcase_add_test(tc, test_ohps_guard_margin_shared);
	tcase_add_test(tc, test_ohps_guard_shared_large);
	tcase_add_test(tc, test_ohps_imbalance_wide);
	tcase_add_test(tc, test_ohps_guard_wait);
	tcase_add_test(tc, test_idle_node);
	tcase_add_test(tc, test_head_view);
	tcase_add_test(tc, test_ohps_guard_horizon);
	suite_add_tcase(s, tc);
	return s;
}
