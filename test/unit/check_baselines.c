/*
 * check_baselines.c - the baseline policies: met, mct, sa (online-hps-khanna
 * §5), jdp-dll (§3), Falkon's dispatchers (data-diffusion-raicu §3.2) and
 * delay scheduling.
 *
 * Every case is small enough to work out by hand; the arithmetic is in the
 * comments.  The cost fixture: RBW = 100 B/s, LBW = 500 B/s, files of
 * 1000 B and jobs of 10 s compute, so a job reading one file runs
 *   12 s where the file is cached (1000 / 500 read + 10 compute),
 *   22 s where it is not (1000 / 100 transfer + 2 + 10).
 * What would start is checked with dl_plan_starts(), the rule every
 * driver applies.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_suites.h"
#include "dl_error.h"
#include "dl_policy.h"

static const char *const all_names[] = {
	"met",		 "mct",		     "sa",
	"jdp-dll",	 "first-available", "max-cache-hit",
	"max-compute-util", "good-cache-compute", "delay",
	NULL,
};

static dl_cache_t *tc;
static dl_state_t *ts;

/* A tracker for nnodes; states come and go over it (policies remember). */
static void _cache(uint32_t nnodes, dl_evict_t ev)
{
	tc = dl_cache_create(nnodes, ev, 1);
	ck_assert_ptr_nonnull(tc);
}

/* A new empty state of nnodes nodes with cpus slots each, at time now. */
static void _state(uint32_t nnodes, uint32_t cpus, double now)
{
	dl_params_t p;
	char name[16];
	uint32_t i;

	dl_state_destroy(ts);
	dl_params_default(&p);
	p.rbw = 100;
	p.lbw = 500;
	p.cpb = 0.001;
	ts = dl_state_create(tc, &p);
	ck_assert_ptr_nonnull(ts);
	ts->now = now;
	for (i = 0; i < nnodes; i++) {
		snprintf(name, sizeof(name), "n%u", i);
		ck_assert_int_eq(dl_state_add_node(ts, name, cpus, 1), (int)i);
	}
}

static void _fini(void)
{
	dl_state_destroy(ts);
	dl_cache_destroy(tc);
	ts = NULL;
	tc = NULL;
}

static uint32_t _file(const char *path)
{
	int64_t id = dl_cache_file_intern(tc, path, 1000);

	ck_assert_int_ge(id, 0);
	return (uint32_t)id;
}

static void _cached(uint32_t node, uint32_t file)
{
	ck_assert_int_eq(dl_cache_insert(tc, node, file, 1, NULL, NULL), 0);
}

/* A pending one-CPU job of 10 s compute; \return its index. */
static size_t _pend(uint32_t id, const uint32_t *files, uint32_t n,
		    double arrival, uint64_t prio, const uint8_t *eligible)
{
	dl_job_t j = { 0 };
	int rc;

	j.id = id;
	j.state = DL_JOB_PENDING;
	j.files = (uint32_t *)files;
	j.nfiles = n;
	j.cpus = 1;
	j.priority = prio;
	j.arrival = arrival;
	j.compute = 10;
	j.node = -1;
	j.eligible = (uint8_t *)eligible;
	rc = dl_state_add_job(ts, &j);
	ck_assert_int_ge(rc, 0);
	return (size_t)rc;
}

/* A running one-CPU job started at 0 (its remaining time is its cost on
 * node minus now); it takes the node's slot. */
static size_t _run(uint32_t id, uint32_t node, const uint32_t *files,
		   uint32_t n, double compute)
{
	dl_job_t j = { 0 };
	int rc;

	j.id = id;
	j.state = DL_JOB_RUNNING;
	j.files = (uint32_t *)files;
	j.nfiles = n;
	j.cpus = 1;
	j.compute = compute;
	j.node = (int32_t)node;
	rc = dl_state_add_job(ts, &j);
	ck_assert_int_ge(rc, 0);
	ts->nodes[node].busy++;
	return (size_t)rc;
}

static dl_policy_t *_policy(const char *name, const char *params)
{
	int err = 1;
	dl_policy_t *p = dl_policy_create(name, params, &err);

	ck_assert_msg(p != NULL, "policy %s (%s): %s", name,
		      params ? params : "", dl_strerror(err));
	ck_assert_int_eq(err, 0);
	return p;
}

static dl_plan_t *_plan(dl_policy_t *p)
{
	dl_plan_t *plan = NULL;

	ck_assert_int_eq(dl_policy_plan(p, ts, &plan), 0);
	ck_assert_ptr_nonnull(plan);
	return plan;
}

static dl_plan_t *_plan_once(const char *name, const char *params)
{
	dl_policy_t *p = _policy(name, params);
	dl_plan_t *plan = _plan(p);

	dl_policy_destroy(p);
	return plan;
}

/* The node job index i would start on now, -1 if it would not start. */
static int32_t _started(const dl_plan_t *plan, size_t i, size_t *nstarts)
{
	dl_start_t *s = NULL;
	size_t n = 0, k;
	int32_t node = -1;

	ck_assert_int_eq(dl_plan_starts(ts, plan, &s, &n), 0);
	for (k = 0; k < n; k++)
		if (s[k].job == i)
			node = (int32_t)s[k].node;
	if (nstarts)
		*nstarts = n;
	free(s);
	return node;
}

static const dl_policy_ops_t *_ops(const char *name)
{
	const dl_policy_ops_t *const *o;

	for (o = dl_policy_list(); *o; o++)
		if (!strcmp((*o)->name, name))
			return *o;
	ck_abort_msg("policy %s is not registered", name);
	return NULL;
}

/* ------------------------------------------------------------------ */
/* met, mct                                                            */

/*
 * Two 1-CPU nodes, a cached on n0, four jobs reading a (arrival 1..4).
 * MET: every job runs in 12 s on n0 and 22 s on n1, so all four queue on
 * n0 and n1 idles: only job 1 starts.
 * MCT, completion = start in the node's queue + exec (a counts as on n1
 * once a job queued there staged it):
 *   j1: n0 0 + 12 = 12, n1 0 + 22 = 22            -> n0 (runs 0..12)
 *   j2: n0 12 + 12 = 24, n1 0 + 22 = 22           -> n1 (runs 0..22)
 *   j3: n0 12 + 12 = 24, n1 22 + 12 = 34          -> n0 (runs 12..24)
 *   j4: n0 24 + 12 = 36, n1 22 + 12 = 34          -> n1
 * Jobs 1 and 2 start at once, on n0 and n1.
 */
START_TEST(test_met_piles_mct_spreads)
{
	static const int32_t mct_want[4] = { 0, 1, 0, 1 };
	dl_plan_t *met, *mct;
	uint32_t a;
	size_t i, n;

	_cache(2, DL_EVICT_VALUE);
	a = _file("/d/a");
	_cached(0, a);
	_state(2, 1, 0);
	for (i = 0; i < 4; i++)
		_pend((uint32_t)i + 1, &a, 1, (double)i + 1, 0, NULL);
	met = _plan_once("met", NULL);
	mct = _plan_once("mct", NULL);
	for (i = 0; i < 4; i++) {
		ck_assert_int_eq(met->a[i].node, 0);
		ck_assert_int_eq(mct->a[i].node, mct_want[i]);
	}
	/* Queues are FIFO by arrival. */
	ck_assert(met->a[0].order < met->a[1].order);
	ck_assert(met->a[2].order < met->a[3].order);
	ck_assert_int_eq(_started(met, 0, &n), 0);
	ck_assert_uint_eq(n, 1); /* n1 idles: MET ignores load */
	ck_assert_int_eq(_started(mct, 0, &n), 0);
	ck_assert_int_eq(_started(mct, 1, NULL), 1);
	ck_assert_uint_eq(n, 2);
	dl_plan_free(met);
	dl_plan_free(mct);
	_fini();
}
END_TEST

/*
 * MET ties (no node caches b, 22 s everywhere) go to the first available
 * node.  n0 runs a job with 5 s left, n1 is free:
 *   j1: n1 has a free slot                        -> n1 (queue 0..22)
 *   j2: none free; n0 frees at 5, n1 at 22        -> n0 (5..27)
 *   j3: n0 frees at 27, n1 at 22                  -> n1
 */
START_TEST(test_met_tie_first_available)
{
	dl_plan_t *plan;
	uint32_t b;
	size_t j1, j2, j3;

	_cache(2, DL_EVICT_VALUE);
	b = _file("/d/b");
	_state(2, 1, 0);
	_run(100, 0, NULL, 0, 5);
	j1 = _pend(1, &b, 1, 1, 0, NULL);
	j2 = _pend(2, &b, 1, 2, 0, NULL);
	j3 = _pend(3, &b, 1, 3, 0, NULL);
	plan = _plan_once("met", NULL);
	ck_assert_int_eq(plan->a[j1].node, 1);
	ck_assert_int_eq(plan->a[j2].node, 0);
	ck_assert_int_eq(plan->a[j3].node, 1);
	dl_plan_free(plan);
	_fini();
}
END_TEST

/*
 * A mapping is made on arrival and sticks while the job pends; a job that
 * started (or ended) is forgotten.
 *   plan 1: a on n0, job 1 reads a                -> n0
 *   plan 2: a moved to n1; job 1 stays on n0, new job 2 -> n1 (12 < 22)
 *   plan 3: job 1 runs on n0, job 2 still pends   -> n1
 *   plan 4: job 1 pends again (requeued): mapped anew -> n1; job 2 n1
 *   plan 5: n1 goes down: both are mapped again   -> n0
 */
START_TEST(test_met_sticky)
{
	dl_policy_t *p;
	dl_plan_t *plan;
	uint32_t a;
	size_t j1, j2;

	_cache(2, DL_EVICT_VALUE);
	a = _file("/d/a");
	_cached(0, a);
	p = _policy("met", NULL);

	_state(2, 1, 0);
	j1 = _pend(1, &a, 1, 1, 0, NULL);
	plan = _plan(p);
	ck_assert_int_eq(plan->a[j1].node, 0);
	dl_plan_free(plan);

	ck_assert_int_eq(dl_cache_remove(tc, 0, a), 0);
	_cached(1, a);
	_state(2, 1, 1);
	j1 = _pend(1, &a, 1, 1, 0, NULL);
	j2 = _pend(2, &a, 1, 2, 0, NULL);
	plan = _plan(p);
	ck_assert_int_eq(plan->a[j1].node, 0);
	ck_assert_int_eq(plan->a[j2].node, 1);
	dl_plan_free(plan);

	_state(2, 1, 2);
	_run(1, 0, &a, 1, 10);
	j2 = _pend(2, &a, 1, 2, 0, NULL);
	plan = _plan(p);
	ck_assert_int_eq(plan->a[j2].node, 1);
	dl_plan_free(plan);

	_state(2, 1, 3);
	j2 = _pend(2, &a, 1, 2, 0, NULL);
	j1 = _pend(1, &a, 1, 3, 0, NULL);
	plan = _plan(p);
	ck_assert_int_eq(plan->a[j1].node, 1);
	ck_assert_int_eq(plan->a[j2].node, 1);
	ck_assert(plan->a[j2].order < plan->a[j1].order); /* arrival 2 < 3 */
	dl_plan_free(plan);

	_state(2, 1, 4);
	ts->nodes[1].usable = 0;
	j2 = _pend(2, &a, 1, 2, 0, NULL);
	j1 = _pend(1, &a, 1, 3, 0, NULL);
	plan = _plan(p);
	ck_assert_int_eq(plan->a[j1].node, 0);
	ck_assert_int_eq(plan->a[j2].node, 0);
	dl_plan_free(plan);

	dl_policy_destroy(p);
	_fini();
}
END_TEST

/*
 * MCT counts the files a running job stages as on its node; MET does not.
 * now = 10; n1 runs job 100 (reads a, not cached yet, compute 3): it
 * needs 10 + 2 + 3 = 15 s and ran 10, so 5 s are left.  Job 1 reads a:
 *   MCT: n0 0 + 22 = 22, n1 5 + 12 = 17 (a staged by job 100) -> n1
 *   MET: 22 on both (a is cached nowhere), n0 has a free slot -> n0
 */
START_TEST(test_mct_counts_staging)
{
	dl_plan_t *plan;
	uint32_t a;
	size_t j1;

	_cache(2, DL_EVICT_VALUE);
	a = _file("/d/a");
	_state(2, 1, 10);
	_run(100, 1, &a, 1, 3);
	j1 = _pend(1, &a, 1, 5, 0, NULL);
	plan = _plan_once("mct", NULL);
	ck_assert_int_eq(plan->a[j1].node, 1);
	dl_plan_free(plan);
	plan = _plan_once("met", NULL);
	ck_assert_int_eq(plan->a[j1].node, 0);
	dl_plan_free(plan);
	_fini();
}
END_TEST

/*
 * MCT ties go to a node with a free slot.  a is cached on n0, which runs
 * a job with 10 s left; n1 is free.  Job 1 reads a:
 *   n0: 10 + 12 = 22, n1: 0 + 22 = 22: a tie    -> n1, free now
 */
START_TEST(test_mct_tie_free)
{
	dl_plan_t *plan;
	uint32_t a;
	size_t j1;

	_cache(2, DL_EVICT_VALUE);
	a = _file("/d/a");
	_cached(0, a);
	_state(2, 1, 0);
	_run(100, 0, NULL, 0, 10);
	j1 = _pend(1, &a, 1, 1, 0, NULL);
	plan = _plan_once("mct", NULL);
	ck_assert_int_eq(plan->a[j1].node, 1);
	ck_assert_int_eq(_started(plan, j1, NULL), 1);
	dl_plan_free(plan);
	_fini();
}
END_TEST

/* ------------------------------------------------------------------ */
/* sa                                                                  */

/*
 * Two 1-CPU nodes, a cached on n0, n0 busy for 50 s, n1 for 36 s; seven
 * jobs reading a.  ib = min load / max load, evaluated before each job:
 *   j1: ib = 36/50  = 0.72 >= h -> MET: 12 on n0 < 22 -> n0 (load 62)
 *       (MCT would say n0 50 + 12 = 62 > n1 36 + 22 = 58 -> n1)
 *   j2: 36/62  = 0.58 -> MET -> n0 (74)
 *   j3: 36/74  = 0.49 -> n0 (86)      j4: 36/86  = 0.42 -> n0 (98)
 *   j5: 36/98  = 0.37 -> n0 (110)     j6: 36/110 = 0.33 -> n0 (122)
 *   j7: 36/122 = 0.295 < l -> MCT: n0 122 + 12 = 134, n1 36 + 22 = 58
 *       -> n1
 * With n1 busy for 30 s instead, ib = 30/50 = 0.6 < h: SA stays with MCT
 * and j1 goes to n1 (n0 62, n1 30 + 22 = 52), as "mct" does.
 */
START_TEST(test_sa_switches)
{
	dl_plan_t *plan;
	uint32_t a;
	size_t i, j[7];

	_cache(2, DL_EVICT_VALUE);
	a = _file("/d/a");
	_cached(0, a);
	_state(2, 1, 0);
	_run(100, 0, NULL, 0, 50);
	_run(101, 1, NULL, 0, 36);
	for (i = 0; i < 7; i++)
		j[i] = _pend((uint32_t)i + 1, &a, 1, (double)i + 1, 0, NULL);
	plan = _plan_once("sa", NULL);
	for (i = 0; i < 6; i++)
		ck_assert_int_eq(plan->a[j[i]].node, 0);
	ck_assert_int_eq(plan->a[j[6]].node, 1);
	dl_plan_free(plan);
	plan = _plan_once("mct", NULL);
	ck_assert_int_eq(plan->a[j[0]].node, 1);
	dl_plan_free(plan);
	/* The paper's thresholds are the defaults. */
	plan = _plan_once("sa", "l=0.3,h=0.7");
	ck_assert_int_eq(plan->a[j[0]].node, 0);
	dl_plan_free(plan);
	/* h = 0.75: ib = 0.72 does not reach it, MCT maps j1 to n1. */
	plan = _plan_once("sa", "h=0.75");
	ck_assert_int_eq(plan->a[j[0]].node, 1);
	dl_plan_free(plan);

	_state(2, 1, 0);
	_run(100, 0, NULL, 0, 50);
	_run(101, 1, NULL, 0, 30);
	j[0] = _pend(1, &a, 1, 1, 0, NULL);
	plan = _plan_once("sa", NULL);
	ck_assert_int_eq(plan->a[j[0]].node, 1);
	dl_plan_free(plan);
	_fini();
}
END_TEST

/*
 * The mode survives between plans.  Plan 1 is the case above with six
 * jobs: SA is in MET mode after j6.  Plan 2 (jobs 1-6 ended): n0 busy
 * 50 s, n1 25 s, ib = 0.5, between l and h, so the mode is kept; a new
 * job reading a goes
 *   to n0 under MET (12 < 22),
 *   to n1 under MCT (n0 50 + 12 = 62, n1 25 + 22 = 47): what a fresh SA,
 *   which starts with MCT, does.
 */
START_TEST(test_sa_mode_persists)
{
	dl_policy_t *p;
	dl_plan_t *plan;
	uint32_t a;
	size_t i, j8;

	_cache(2, DL_EVICT_VALUE);
	a = _file("/d/a");
	_cached(0, a);
	p = _policy("sa", NULL);
	_state(2, 1, 0);
	_run(100, 0, NULL, 0, 50);
	_run(101, 1, NULL, 0, 36);
	for (i = 0; i < 6; i++)
		_pend((uint32_t)i + 1, &a, 1, (double)i + 1, 0, NULL);
	dl_plan_free(_plan(p));

	_state(2, 1, 0);
	_run(100, 0, NULL, 0, 50);
	_run(101, 1, NULL, 0, 25);
	j8 = _pend(8, &a, 1, 8, 0, NULL);
	plan = _plan(p);
	ck_assert_int_eq(plan->a[j8].node, 0);
	dl_plan_free(plan);
	plan = _plan_once("sa", NULL);
	ck_assert_int_eq(plan->a[j8].node, 1);
	dl_plan_free(plan);
	dl_policy_destroy(p);
	_fini();
}
END_TEST

/* ------------------------------------------------------------------ */
/* jdp-dll                                                             */

/*
 * Three 1-CPU nodes; a cached on n0 (one use so far), n0 busy.  Five jobs
 * read a; load = queued jobs per CPU; popularity = uses + earlier jobs of
 * the plan reading a; threshold 2 (replicate when popularity > 2):
 *   j1: holder n0 has no slot; pop 1 + 0 = 1  -> waits on n0 (load 2)
 *   j2: pop 1 + 1 = 2, not > 2               -> n0 (load 3)
 *   j3: pop 1 + 2 = 3 > 2, least loaded n1 (0 < 3) -> n1: a replica
 *   j4: holders n0 (load 3), n1 (replica, load 1) -> n1, no slot;
 *       pop 4 > 2, n2 (0 < 1)                -> n2
 *   j5: holders n0 (3), n1 (1), n2 (1) -> n1; least loaded n1 itself
 *                                            -> n1 (waits behind j3)
 * j3 starts on n1, j4 on n2.  With threshold=10 nothing replicates: all
 * five wait for n0 while n1 and n2 idle.
 */
START_TEST(test_jdpdll_replicates)
{
	static const int32_t want[5] = { 0, 0, 1, 2, 1 };
	dl_plan_t *plan;
	uint32_t a;
	size_t i, j[5], n;

	_cache(3, DL_EVICT_LRU);
	a = _file("/d/a");
	_cached(0, a);
	ck_assert_uint_eq(dl_cache_access_count(tc, a), 1);
	_state(3, 1, 0);
	_run(100, 0, NULL, 0, 50);
	for (i = 0; i < 5; i++)
		j[i] = _pend((uint32_t)i + 1, &a, 1, (double)i + 1, 0, NULL);
	plan = _plan_once("jdp-dll", NULL);
	for (i = 0; i < 5; i++)
		ck_assert_int_eq(plan->a[j[i]].node, want[i]);
	ck_assert_int_eq(_started(plan, j[2], &n), 1);
	ck_assert_int_eq(_started(plan, j[3], NULL), 2);
	ck_assert_uint_eq(n, 2);
	dl_plan_free(plan);

	plan = _plan_once("jdp-dll", "threshold=10");
	for (i = 0; i < 5; i++)
		ck_assert_int_eq(plan->a[j[i]].node, 0);
	ck_assert_int_eq(_started(plan, j[0], &n), -1);
	ck_assert_uint_eq(n, 0);
	dl_plan_free(plan);
	_fini();
}
END_TEST

/*
 * Past uses count: a was used three times already (insert + 2 accesses),
 * past threshold 2.  Three nodes, n1 with 2 CPUs; n0 (the holder) busy.
 *   j1 (a): n0 has no slot, popularity 3 > 2, n1 least loaded (0 < 1)
 *           -> n1: a replica (n1 load 1/2, one slot left)
 *   j2 (a): holders n0 (load 1) and n1 (the replica, 1/2) -> n1, which
 *           still has a slot: it follows the replica instead of making
 *           another on n2
 *   j3 (b, held nowhere): least loaded: n0 1, n1 2/2, n2 0 -> n2
 * A free holder is always used (JobDataPresent), however popular.
 */
START_TEST(test_jdpdll_popular_and_absent)
{
	dl_plan_t *plan;
	uint32_t a, b;
	size_t j1, j2, j3, n;

	_cache(3, DL_EVICT_LRU);
	a = _file("/d/a");
	b = _file("/d/b");
	_cached(0, a);
	ck_assert_int_eq(dl_cache_access(tc, 0, a, 2), 0);
	ck_assert_int_eq(dl_cache_access(tc, 0, a, 3), 0);
	_state(3, 1, 0);
	ts->nodes[1].cpus = 2;
	_run(100, 0, NULL, 0, 50);
	j1 = _pend(1, &a, 1, 1, 0, NULL);
	j2 = _pend(2, &a, 1, 2, 0, NULL);
	j3 = _pend(3, &b, 1, 3, 0, NULL);
	plan = _plan_once("jdp-dll", NULL);
	ck_assert_int_eq(plan->a[j1].node, 1);
	ck_assert_int_eq(plan->a[j2].node, 1);
	ck_assert_int_eq(plan->a[j3].node, 2);
	_started(plan, j1, &n);
	ck_assert_uint_eq(n, 3);
	dl_plan_free(plan);

	_state(3, 1, 0);
	j1 = _pend(1, &a, 1, 1, 0, NULL);
	plan = _plan_once("jdp-dll", NULL);
	ck_assert_int_eq(plan->a[j1].node, 0);
	dl_plan_free(plan);
	_fini();
}
END_TEST

/* ------------------------------------------------------------------ */
/* data diffusion (Falkon)                                              */

/*
 * Four 1-CPU nodes: n1 and n2 busy, n0 and n3 free.  a is cached on n1
 * and n3, b on n2, c nowhere.  Jobs by priority: j1 reads a, j2 b, j3 c.
 */
static void _falkon_fixture(uint32_t *a, uint32_t *b, uint32_t *c)
{
	_cache(4, DL_EVICT_VALUE);
	*a = _file("/d/a");
	*b = _file("/d/b");
	*c = _file("/d/c");
	_cached(1, *a);
	_cached(3, *a);
	_cached(2, *b);
	_state(4, 1, 0);
	_run(100, 1, NULL, 0, 50);
	_run(101, 2, NULL, 0, 50);
}

/* first-available: no preferences; j1 and j2 take n0 and n3. */
START_TEST(test_first_available)
{
	dl_plan_t *plan;
	uint32_t a, b, c;
	size_t j1, j2, j3, i, n;

	_falkon_fixture(&a, &b, &c);
	j1 = _pend(1, &a, 1, 1, 3, NULL);
	j2 = _pend(2, &b, 1, 2, 2, NULL);
	j3 = _pend(3, &c, 1, 3, 1, NULL);
	plan = _plan_once("first-available", NULL);
	for (i = 0; i < plan->n; i++)
		if (ts->jobs[i].state == DL_JOB_PENDING)
			ck_assert_int_eq(plan->a[i].node, -1);
	ck_assert_int_eq(_started(plan, j1, &n), 0);
	ck_assert_int_eq(_started(plan, j2, NULL), 3);
	ck_assert_int_eq(_started(plan, j3, NULL), -1);
	ck_assert_uint_eq(n, 2);
	dl_plan_free(plan);
	_fini();
}
END_TEST

/*
 * max-cache-hit: j1 (a) -> n3, the free one of its two holders; j2 (b) ->
 * n2 although it is busy: it waits; j3 (c, cached nowhere) -> -1, starts
 * on n0.  j4 (b) also waits for n2.
 */
START_TEST(test_max_cache_hit_waits)
{
	dl_plan_t *plan;
	uint32_t a, b, c;
	size_t j1, j2, j3, j4, n;

	_falkon_fixture(&a, &b, &c);
	j1 = _pend(1, &a, 1, 1, 4, NULL);
	j2 = _pend(2, &b, 1, 2, 3, NULL);
	j3 = _pend(3, &c, 1, 3, 2, NULL);
	j4 = _pend(4, &b, 1, 4, 1, NULL);
	plan = _plan_once("max-cache-hit", NULL);
	ck_assert_int_eq(plan->a[j1].node, 3);
	ck_assert_int_eq(plan->a[j2].node, 2);
	ck_assert_int_eq(plan->a[j3].node, -1);
	ck_assert_int_eq(plan->a[j4].node, 2);
	ck_assert_int_eq(_started(plan, j1, &n), 3);
	ck_assert_int_eq(_started(plan, j2, NULL), -1); /* waits for n2 */
	ck_assert_int_eq(_started(plan, j3, NULL), 0);
	ck_assert_uint_eq(n, 2);
	dl_plan_free(plan);
	_fini();
}
END_TEST

/*
 * max-compute-util: j1 (a) -> n3, the free node holding a; j2 (b) -> n0:
 * its holder n2 is busy, and a free node is never left idle; j3, j4 find
 * no free node left -> -1.  Both free nodes start a job.
 */
START_TEST(test_max_compute_util_no_idle)
{
	dl_plan_t *plan;
	uint32_t a, b, c;
	size_t j1, j2, j3, j4, n;

	_falkon_fixture(&a, &b, &c);
	j1 = _pend(1, &a, 1, 1, 4, NULL);
	j2 = _pend(2, &b, 1, 2, 3, NULL);
	j3 = _pend(3, &c, 1, 3, 2, NULL);
	j4 = _pend(4, &b, 1, 4, 1, NULL);
	plan = _plan_once("max-compute-util", NULL);
	ck_assert_int_eq(plan->a[j1].node, 3);
	ck_assert_int_eq(plan->a[j2].node, 0);
	ck_assert_int_eq(plan->a[j3].node, -1);
	ck_assert_int_eq(plan->a[j4].node, -1);
	ck_assert_int_eq(_started(plan, j1, &n), 3);
	ck_assert_int_eq(_started(plan, j2, NULL), 0);
	ck_assert_uint_eq(n, 2);
	dl_plan_free(plan);
	_fini();
}
END_TEST

/*
 * The same property on bigger nodes: three 4-CPU nodes, all data on n0,
 * which has 1 free slot; n1 has 2, n2 has 4.  Ten jobs read the data:
 * max-compute-util starts 1 + 2 + 4 = 7 of them at once, max-cache-hit
 * only the one that fits on n0.
 */
START_TEST(test_max_compute_util_fills_slots)
{
	dl_plan_t *plan;
	uint32_t a;
	size_t i, n;

	_cache(3, DL_EVICT_VALUE);
	a = _file("/d/a");
	_cached(0, a);
	_state(3, 4, 0);
	ts->nodes[0].busy = 3;
	ts->nodes[1].busy = 2;
	for (i = 0; i < 10; i++)
		_pend((uint32_t)i + 1, &a, 1, (double)i, 0, NULL);
	plan = _plan_once("max-compute-util", NULL);
	ck_assert_int_eq(plan->a[0].node, 0); /* the data node first */
	_started(plan, 0, &n);
	ck_assert_uint_eq(n, 7);
	dl_plan_free(plan);
	plan = _plan_once("max-cache-hit", NULL);
	_started(plan, 0, &n);
	ck_assert_uint_eq(n, 1);
	dl_plan_free(plan);
	_fini();
}
END_TEST

/*
 * good-cache-compute, four 1-CPU nodes, n0 and n1 busy (2/4 = 0.5), a on
 * n1 only; four jobs read a.
 * cpu_threshold 0.8: j1 at 0.50 -> compute-util -> n2 (now 0.75)
 *                    j2 at 0.75 -> compute-util -> n3 (now 1.0)
 *                    j3, j4 at 1.0 -> cache-hit -> n1 (wait)
 * cpu_threshold 0.6: j1 at 0.50 -> n2; j2..j4 at 0.75 -> n1; n3 idles.
 * window=1 (0.8): only j1 is placed (n2); j2..j4 get -1 and j2 takes n3.
 */
START_TEST(test_good_cache_compute)
{
	static const int32_t w08[4] = { 2, 3, 1, 1 }, w06[4] = { 2, 1, 1, 1 };
	static const int32_t win[4] = { 2, -1, -1, -1 };
	dl_plan_t *plan;
	uint32_t a;
	size_t i, j[4], n;

	_cache(4, DL_EVICT_VALUE);
	a = _file("/d/a");
	_cached(1, a);
	_state(4, 1, 0);
	_run(100, 0, NULL, 0, 50);
	_run(101, 1, NULL, 0, 50);
	for (i = 0; i < 4; i++)
		j[i] = _pend((uint32_t)i + 1, &a, 1, (double)i, 0, NULL);
	plan = _plan_once("good-cache-compute", NULL);
	for (i = 0; i < 4; i++)
		ck_assert_int_eq(plan->a[j[i]].node, w08[i]);
	_started(plan, j[0], &n);
	ck_assert_uint_eq(n, 2);
	dl_plan_free(plan);
	plan = _plan_once("good-cache-compute", "cpu_threshold=0.6");
	for (i = 0; i < 4; i++)
		ck_assert_int_eq(plan->a[j[i]].node, w06[i]);
	_started(plan, j[0], &n);
	ck_assert_uint_eq(n, 1);
	dl_plan_free(plan);
	plan = _plan_once("good-cache-compute", "window=1");
	for (i = 0; i < 4; i++)
		ck_assert_int_eq(plan->a[j[i]].node, win[i]);
	ck_assert_int_eq(_started(plan, j[1], &n), 3);
	ck_assert_uint_eq(n, 2);
	dl_plan_free(plan);
	_fini();
}
END_TEST

/* ------------------------------------------------------------------ */
/* delay                                                               */

/*
 * Two 1-CPU nodes, a on n1 which is busy; now = 100, wait = 5 s.
 *   j2 (arrived 95, pending 5 s, not < 5)  -> gives up: -1, starts on n0
 *   j1 (arrived 96, pending 4 s)           -> waits for n1
 * With wait=10 both wait and nothing starts; once n1 is free the job
 * that waits starts there.
 */
START_TEST(test_delay)
{
	dl_plan_t *plan;
	uint32_t a;
	size_t j1, j2, n;

	_cache(2, DL_EVICT_VALUE);
	a = _file("/d/a");
	_cached(1, a);
	_state(2, 1, 100);
	_run(100, 1, NULL, 0, 500);
	j2 = _pend(2, &a, 1, 95, 0, NULL);
	j1 = _pend(1, &a, 1, 96, 0, NULL);
	plan = _plan_once("delay", NULL);
	ck_assert_int_eq(plan->a[j2].node, -1);
	ck_assert_int_eq(plan->a[j1].node, 1);
	ck_assert_int_eq(_started(plan, j2, &n), 0);
	ck_assert_int_eq(_started(plan, j1, NULL), -1);
	ck_assert_uint_eq(n, 1);
	dl_plan_free(plan);

	plan = _plan_once("delay", "wait=10");
	ck_assert_int_eq(plan->a[j2].node, 1);
	ck_assert_int_eq(plan->a[j1].node, 1);
	_started(plan, j1, &n);
	ck_assert_uint_eq(n, 0);
	dl_plan_free(plan);

	/* A second later j1 has waited 5 s too. */
	ts->now = 101;
	plan = _plan_once("delay", NULL);
	ck_assert_int_eq(plan->a[j1].node, -1);
	dl_plan_free(plan);

	/* n1 free: the first job (j2) takes it, j1 waits behind it. */
	_state(2, 1, 100);
	j2 = _pend(2, &a, 1, 95, 0, NULL);
	j1 = _pend(1, &a, 1, 96, 0, NULL);
	plan = _plan_once("delay", NULL);
	ck_assert_int_eq(plan->a[j2].node, 1);
	ck_assert_int_eq(plan->a[j1].node, 1);
	ck_assert_int_eq(_started(plan, j2, &n), 1);
	ck_assert_uint_eq(n, 1);
	dl_plan_free(plan);
	_fini();
}
END_TEST

/* ------------------------------------------------------------------ */
/* every policy                                                        */

/*
 * Three 1-CPU nodes, n2 down; a cached on n0.  Job 1 may only run on n1,
 * job 2 only on n2 (down), job 3 anywhere.  Running job 100 on n0.  No
 * policy may plan a job on a node it cannot use, nor start one there,
 * nor touch a running job's entry.
 */
START_TEST(test_eligibility)
{
	static const uint8_t only1[3] = { 0, 1, 0 }, only2[3] = { 0, 0, 1 };
	const char *const *name;
	uint32_t a;

	_cache(3, DL_EVICT_VALUE);
	a = _file("/d/a");
	_cached(0, a);
	_state(3, 1, 0);
	ts->nodes[2].usable = 0;
	_pend(1, &a, 1, 1, 3, only1);
	_pend(2, &a, 1, 2, 2, only2);
	_pend(3, &a, 1, 3, 1, NULL);
	_run(100, 0, &a, 1, 50);
	for (name = all_names; *name; name++) {
		const dl_policy_ops_t *ops = _ops(*name);
		dl_plan_t *plan;
		dl_start_t *s;
		void *priv = NULL;
		uint32_t node;
		size_t i, n;

		plan = _plan_once(*name, NULL);
		for (i = 0; i < ts->njobs; i++) {
			const dl_job_t *j = &ts->jobs[i];

			if (j->state != DL_JOB_PENDING || plan->a[i].node < 0)
				continue;
			node = (uint32_t)plan->a[i].node;
			ck_assert_msg(dl_state_job_eligible(ts, j, node),
				      "%s: job %u on node %u", *name, j->id,
				      node);
		}
		ck_assert_int_eq(dl_plan_starts(ts, plan, &s, &n), 0);
		for (i = 0; i < n; i++)
			ck_assert(dl_state_job_eligible(ts, &ts->jobs[s[i].job],
							s[i].node));
		free(s);
		dl_plan_free(plan);

		/* Straight through the vtable: running entries untouched. */
		plan = calloc(1, sizeof(*plan));
		ck_assert_ptr_nonnull(plan);
		plan->n = ts->njobs;
		plan->a = calloc(ts->njobs, sizeof(*plan->a));
		ck_assert_ptr_nonnull(plan->a);
		for (i = 0; i < ts->njobs; i++) {
			plan->a[i].job_id = ts->jobs[i].id;
			plan->a[i].node = ts->jobs[i].state == DL_JOB_RUNNING ?
						  77 : -1;
			plan->a[i].order = -5;
		}
		ck_assert_int_eq(ops->create(NULL, &priv), 0);
		ck_assert_int_eq(ops->plan(priv, ts, plan), 0);
		ops->destroy(priv);
		ck_assert_int_eq(plan->a[3].node, 77);
		ck_assert(plan->a[3].order == -5);
		ck_assert_int_eq(plan->a[1].node, -1); /* only n2, down */
		dl_plan_free(plan);
	}
	_fini();
}
END_TEST

/*
 * Same inputs, same plans: two instances of each policy fed the same two
 * states agree on every node and order.
 */
START_TEST(test_deterministic)
{
	const char *const *name;
	uint32_t f[4]; /* jobs read f[i % 3] and maybe the next */
	size_t i;

	_cache(3, DL_EVICT_LRU);
	f[0] = _file("/d/a");
	f[1] = _file("/d/b");
	f[2] = _file("/d/c");
	f[3] = f[0];
	_cached(0, f[0]);
	_cached(1, f[1]);
	for (name = all_names; *name; name++) {
		dl_policy_t *p = _policy(*name, NULL);
		dl_policy_t *q = _policy(*name, NULL);
		int round;

		for (round = 0; round < 2; round++) {
			dl_plan_t *x, *y;

			_state(3, 2, 10.0 * round);
			_run(100, 0, &f[0], 1, 30);
			for (i = 0; i < 8; i++)
				_pend((uint32_t)(i + 1 + round), &f[i % 3],
				      1 + (i % 2), (double)i, i % 3, NULL);
			x = _plan(p);
			y = _plan(q);
			for (i = 0; i < ts->njobs; i++) {
				ck_assert_int_eq(x->a[i].node, y->a[i].node);
				ck_assert(x->a[i].order == y->a[i].order);
			}
			dl_plan_free(x);
			dl_plan_free(y);
		}
		dl_policy_destroy(p);
		dl_policy_destroy(q);
	}
	_fini();
}
END_TEST

START_TEST(test_bad_params)
{
	static const struct {
		const char *name, *params;
	} bad[] = {
		{ "sa", "l=abc" },
		{ "sa", "h=1.5" },
		{ "sa", "l=0.8,h=0.5" },
		{ "sa", "l=-0.1" },
		{ "jdp-dll", "threshold=-1" },
		{ "jdp-dll", "threshold=two" },
		{ "good-cache-compute", "cpu_threshold=1.5" },
		{ "good-cache-compute", "cpu_threshold=" },
		{ "good-cache-compute", "window=0" },
		{ "good-cache-compute", "window=2.5" },
		{ "delay", "wait=-1" },
		{ "delay", "wait=soon" },
	};
	static const struct {
		const char *name, *params;
	} good[] = {
		{ "met", NULL },
		{ "mct", NULL },
		{ "sa", "l=0.5,h=0.5" },
		{ "jdp-dll", "threshold=0" },
		{ "first-available", NULL },
		{ "max-cache-hit", NULL },
		{ "max-compute-util", NULL },
		{ "good-cache-compute", "cpu_threshold=0.9,window=3200" },
		{ "delay", "wait=0" },
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int err = 0;
		dl_policy_t *p = dl_policy_create(bad[i].name, bad[i].params,
						  &err);

		ck_assert_msg(!p, "%s accepted %s", bad[i].name,
			      bad[i].params);
		ck_assert_int_eq(err, DL_EINVAL);
	}
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		dl_policy_destroy(_policy(good[i].name, good[i].params));
}
END_TEST

/* A state with no usable node or no job plans nothing and fails nothing. */
START_TEST(test_empty)
{
	const char *const *name;
	uint32_t a;

	_cache(2, DL_EVICT_VALUE);
	a = _file("/d/a");
	for (name = all_names; *name; name++) {
		dl_plan_t *plan;

		_state(2, 1, 0);
		plan = _plan_once(*name, NULL);
		ck_assert_uint_eq(plan->n, 0);
		dl_plan_free(plan);
		ts->nodes[0].usable = ts->nodes[1].usable = 0;
		_pend(1, &a, 1, 0, 0, NULL);
		plan = _plan_once(*name, NULL);
		ck_assert_int_eq(plan->a[0].node, -1);
		dl_plan_free(plan);
	}
	_fini();
}
END_TEST

Suite *make_baselines_suite(void)
{
	Suite *s = suite_create("baselines");
	TCase *tc_met = tcase_create("met-mct-sa");
	TCase *tc_jdp = tcase_create("jdp-dll");
	TCase *tc_falkon = tcase_create("data-diffusion");
	TCase *tc_delay = tcase_create("delay");
	TCase *tc_all = tcase_create("all");

	tcase_add_test(tc_met, test_met_piles_mct_spreads);
	tcase_add_test(tc_met, test_met_tie_first_available);
	tcase_add_test(tc_met, test_met_sticky);
	tcase_add_test(tc_met, test_mct_counts_staging);
	tcase_add_test(tc_met, test_mct_tie_free);
	tcase_add_test(tc_met, test_sa_switches);
	tcase_add_test(tc_met, test_sa_mode_persists);
	tcase_add_test(tc_jdp, test_jdpdll_replicates);
	tcase_add_test(tc_jdp, test_jdpdll_popular_and_absent);
	tcase_add_test(tc_falkon, test_first_available);
	tcase_add_test(tc_falkon, test_max_cache_hit_waits);
	tcase_add_test(tc_falkon, test_max_compute_util_no_idle);
	tcase_add_test(tc_falkon, test_max_compute_util_fills_slots);
	tcase_add_test(tc_falkon, test_good_cache_compute);
	tcase_add_test(tc_delay, test_delay);
	tcase_add_test(tc_all, test_eligibility);
	tcase_add_test(tc_all, test_deterministic);
	tcase_add_test(tc_all, test_bad_params);
	tcase_add_test(tc_all, test_empty);
	suite_add_tcase(s, tc_met);
	suite_add_tcase(s, tc_jdp);
	suite_add_tcase(s, tc_falkon);
	suite_add_tcase(s, tc_delay);
	suite_add_tcase(s, tc_all);
	return s;
}
