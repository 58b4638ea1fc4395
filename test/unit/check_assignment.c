/*
 * check_assignment.c - the Hungarian solver (dl_hungarian.h) and the
 * "assignment" policy (metadata-scheduling-golubev).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_suites.h"
#include "dl_error.h"
#include "dl_hungarian.h"
#include "dl_policy.h"

#define INF INFINITY
#define MIB (1ULL << 20)

/* ---- the solver -------------------------------------------------------- */

static double _solve(const double *c, size_t nr, size_t nc, int32_t *rc)
{
	double total = NAN;

	ck_assert_int_eq(dl_hungarian_solve(c, nr, nc, rc, &total), 0);
	return total;
}

/*
 * 4 1 3
 * 2 0 5     the six permutations cost 6, 7, 5, 9, 11, 6 (rows 0-2 to
 * 3 2 2     columns 012, 021, 102, 120, 201, 210): 1 + 2 + 2 = 5.
 */
START_TEST(test_square)
{
	static const double c[9] = { 4, 1, 3, 2, 0, 5, 3, 2, 2 };
	int32_t rc[3];

	ck_assert(_solve(c, 3, 3, rc) == 5);
	ck_assert_int_eq(rc[0], 1);
	ck_assert_int_eq(rc[1], 0);
	ck_assert_int_eq(rc[2], 2);
}

END_TEST

/*
 * 1 2 3     pairs of distinct columns: (0,1) 5, (0,2) 7, (1,0) 4, (1,2) 8,
 * 2 4 6     (2,0) 5, (2,1) 7: row 0 -> 1, row 1 -> 0, total 4.
 * Transposed (3 rows, 2 columns) with a third row 9 9: the same pairs, and
 * any use of the third row costs at least 9 + 1: it is left out.
 */
START_TEST(test_rectangular)
{
	static const double wide[6] = { 1, 2, 3, 2, 4, 6 };
	static const double tall[6] = { 1, 2, 2, 4, 9, 9 };
	int32_t rc[3];

	ck_assert(_solve(wide, 2, 3, rc) == 4);
	ck_assert_int_eq(rc[0], 1);
	ck_assert_int_eq(rc[1], 0);
	ck_assert(_solve(tall, 3, 2, rc) == 4);
	ck_assert_int_eq(rc[0], 1);
	ck_assert_int_eq(rc[1], 0);
	ck_assert_int_eq(rc[2], -1);
}

END_TEST

/* Ties: any optimum, but always the same one. */
START_TEST(test_ties)
{
	static const double ones[9] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 };
	/* Rows 0 and 1 are alike: 0+2 (=2) either way round. */
	static const double twin[6] = { 0, 1, 0, 1, 5, 2 };
	int32_t a[3], b[3], i;
	uint8_t used[3] = { 0 };

	ck_assert(_solve(ones, 3, 3, a) == 3);
	for (i = 0; i < 3; i++) {
		ck_assert(a[i] >= 0 && a[i] < 3);
		ck_assert(!used[a[i]]);
		used[a[i]] = 1;
	}
	ck_assert(_solve(ones, 3, 3, b) == 3);
	ck_assert(!memcmp(a, b, sizeof(a)));
	/*
	 * 0 1       columns for rows (0,1,2): (0,1,-) 1, (1,0,-) 1,
	 * 0 1       (0,-,1) 2, (-,0,1) 2, (1,-,0) 6, (-,1,0) 6: a tie at 1.
	 * 5 2
	 */
	ck_assert(_solve(twin, 3, 2, a) == 1);
	ck_assert_int_eq(a[2], -1);
	ck_assert(_solve(twin, 3, 2, b) == 1);
	ck_assert(!memcmp(a, b, sizeof(a)));
}

END_TEST

/*
 * Forbidden pairs.  INF 1 / INF 2: column 0 is forbidden to both rows, so
 * one row is left out: row 0 -> 1 (cost 1).  With a third column 10: rows
 * 0 -> 1, 1 -> 2 (1 + 10 = 11) rather than leaving a row out.  A 2x2 of
 * INF: nothing assigned, total 0.  Negative costs: -1 0 / 0 -1 -> -2.
 */
START_TEST(test_forbidden)
{
	static const double two[4] = { INF, 1, INF, 2 };
	static const double three[6] = { INF, 1, INF, INF, 2, 10 };
	static const double none[4] = { INF, INF, INF, INF };
	static const double neg[4] = { -1, 0, 0, -1 };
	int32_t rc[2];

	ck_assert(_solve(two, 2, 2, rc) == 1);
	ck_assert_int_eq(rc[0], 1);
	ck_assert_int_eq(rc[1], -1);
	ck_assert(_solve(three, 2, 3, rc) == 11);
	ck_assert_int_eq(rc[0], 1);
	ck_assert_int_eq(rc[1], 2);
	ck_assert(_solve(none, 2, 2, rc) == 0);
	ck_assert_int_eq(rc[0], -1);
	ck_assert_int_eq(rc[1], -1);
	ck_assert(_solve(neg, 2, 2, rc) == -2);
	ck_assert_int_eq(rc[0], 0);
	ck_assert_int_eq(rc[1], 1);
}

END_TEST

START_TEST(test_solver_errors)
{
	double c[4] = { 1, NAN, 2, 3 }, total = 7;
	int32_t rc[2] = { 5, 5 };

	ck_assert_int_eq(dl_hungarian_solve(c, 2, 2, rc, &total), DL_EINVAL);
	ck_assert_int_eq(rc[0], 5); /* unchanged */
	ck_assert(total == 7);
	c[1] = -INF;
	ck_assert_int_eq(dl_hungarian_solve(c, 2, 2, rc, NULL), DL_EINVAL);
	c[1] = 0;
	ck_assert_int_eq(dl_hungarian_solve(NULL, 2, 2, rc, NULL), DL_EINVAL);
	ck_assert_int_eq(dl_hungarian_solve(c, 2, 2, NULL, NULL), DL_EINVAL);
	c[0] = -1e308;
	c[3] = 1e308;
	ck_assert_int_eq(dl_hungarian_solve(c, 2, 2, rc, NULL), DL_ERANGE);
	/* Empty dimensions: nothing to assign. */
	ck_assert_int_eq(dl_hungarian_solve(NULL, 2, 0, rc, &total), 0);
	ck_assert_int_eq(rc[0], -1);
	ck_assert_int_eq(rc[1], -1);
	ck_assert(total == 0);
	ck_assert_int_eq(dl_hungarian_solve(NULL, 0, 3, NULL, NULL), 0);
}

END_TEST

/* Brute force: the best (most allowed pairs, then least cost) matching. */
static void _brute(const double *c, size_t nr, size_t nc, size_t r,
		   uint8_t *used, int pairs, double cost, int *best_pairs,
		   double *best_cost)
{
	size_t k;

	if (r == nr) {
		if (pairs > *best_pairs ||
		    (pairs == *best_pairs && cost < *best_cost)) {
			*best_pairs = pairs;
			*best_cost = cost;
		}
		return;
	}
	_brute(c, nr, nc, r + 1, used, pairs, cost, best_pairs, best_cost);
	for (k = 0; k < nc; k++) {
		if (used[k] || isinf(c[r * nc + k]))
			continue;
		used[k] = 1;
		_brute(c, nr, nc, r + 1, used, pairs + 1, cost + c[r * nc + k],
		       best_pairs, best_cost);
		used[k] = 0;
	}
}

START_TEST(test_brute_force)
{
	unsigned seed = 12345;
	int trial;

	for (trial = 0; trial < 3000; trial++) {
		size_t nr = 1 + rand_r(&seed) % 6, nc = 1 + rand_r(&seed) % 6;
		double c[36], total, check = 0, best_cost = INF;
		int32_t rc[6];
		uint8_t used[6] = { 0 };
		int pairs = 0, best_pairs = -1, forbid = trial % 3;
		size_t i;

		for (i = 0; i < nr * nc; i++) {
			/* Small integers: many ties. */
			c[i] = (double) (rand_r(&seed) % 10) - 3;
			if (forbid && rand_r(&seed) % 4 == 0)
				c[i] = INF;
		}
		total = _solve(c, nr, nc, rc);
		for (i = 0; i < nr; i++) {
			if (rc[i] < 0)
				continue;
			ck_assert(rc[i] < (int32_t) nc);
			ck_assert(!used[rc[i]]);
			ck_assert(!isinf(c[i * nc + rc[i]]));
			used[rc[i]] = 1;
			check += c[i * nc + rc[i]];
			pairs++;
		}
		memset(used, 0, sizeof(used));
		_brute(c, nr, nc, 0, used, 0, 0, &best_pairs, &best_cost);
		ck_assert_msg(
			pairs == best_pairs && total == best_cost &&
				check == total,
			"trial %d (%zux%zu): %d pairs cost %g, best %d %g",
			trial, nr, nc, pairs, total, best_pairs, best_cost);
	}
}

END_TEST

/* ---- the policy -------------------------------------------------------- */

static dl_cache_t *tc;
static dl_params_t tp;

static void _setup(uint32_t nnodes, double rbw)
{
	tc = dl_cache_create(nnodes, DL_EVICT_LRU, 1);
	ck_assert_ptr_nonnull(tc);
	dl_params_default(&tp);
	tp.rbw = rbw; /* 0: transfers are free */
	tp.lbw = 0;
	tp.cpb = 0;
	tp.nstorage = 1;
}

static void _teardown(void)
{
	dl_cache_destroy(tc);
	tc = NULL;
}

static uint32_t _file(const char *path, uint64_t size)
{
	int64_t id = dl_cache_file_intern(tc, path, size);

	ck_assert_int_ge(id, 0);
	return (uint32_t) id;
}

static dl_state_t *_state(uint32_t nnodes, uint32_t cpus, double now)
{
	dl_state_t *st = dl_state_create(tc, &tp);
	char name[16];
	uint32_t i;

	ck_assert_ptr_nonnull(st);
	for (i = 0; i < nnodes; i++) {
		snprintf(name, sizeof(name), "n%u", i);
		ck_assert_int_eq(dl_state_add_node(st, name, cpus, 1), (int) i);
	}
	st->now = now;
	return st;
}

static int _pending(dl_state_t *st, uint32_t id, const uint32_t *files,
		    uint32_t nfiles, uint64_t prio)
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
	j.compute = 0;
	idx = dl_state_add_job(st, &j);
	ck_assert_int_ge(idx, 0);
	return idx;
}

static void _running(dl_state_t *st, uint32_t id, const uint32_t *files,
		     uint32_t nfiles, int32_t node, double start)
{
	dl_job_t j = { 0 };

	j.id = id;
	j.state = DL_JOB_RUNNING;
	j.files = (uint32_t *) files;
	j.nfiles = nfiles;
	j.cpus = 1;
	j.node = node;
	j.start = start;
	j.compute = 0;
	ck_assert_int_ge(dl_state_add_job(st, &j), 0);
	st->nodes[node].busy++;
}

static dl_policy_t *_policy(const char *params)
{
	int err = 1;
	dl_policy_t *p = dl_policy_create("assignment", params, &err);

	ck_assert_msg(p != NULL, "assignment rejected '%s'", params);
	ck_assert_int_eq(err, 0);
	return p;
}

/* Plan st with p, return the node of job index idx (-2 if idx < 0). */
static int32_t _plan_node(dl_policy_t *p, const dl_state_t *st, int idx)
{
	dl_plan_t *plan = NULL;
	int32_t node;

	ck_assert_int_eq(dl_policy_plan(p, st, &plan), 0);
	node = idx >= 0 ? plan->a[idx].node : -2;
	dl_plan_free(plan);
	return node;
}

/*
 * No history: the cost model.  RBW 100 B/s, no read or compute cost.
 * x (100 B) and z (10000 B) are cached on node 0; y (100 B) nowhere.
 *   j1 {x, y}: node 0: 100 / 100 = 1 s; node 1: 200 / 100 = 2 s;
 *   j2 {z}:    node 0: 0;                node 1: 100 s.
 * Greedy by priority would put j1 on node 0 and j2 on node 1 (101 s); the
 * optimum is j1 -> 1, j2 -> 0 (2 s).
 */
START_TEST(test_cold_optimal)
{
	uint32_t x, y, z, j1f[2];
	dl_policy_t *p;
	dl_state_t *st;
	dl_plan_t *plan = NULL;
	int j1, j2;

	_setup(2, 100);
	x = _file("/d/x", 100);
	y = _file("/d/y", 100);
	z = _file("/d/z", 10000);
	ck_assert_int_eq(dl_cache_insert(tc, 0, x, 0, NULL, NULL), 0);
	ck_assert_int_eq(dl_cache_insert(tc, 0, z, 0, NULL, NULL), 0);
	j1f[0] = x;
	j1f[1] = y;
	st = _state(2, 1, 0);
	j1 = _pending(st, 1, j1f, 2, 2);
	j2 = _pending(st, 2, &z, 1, 1);
	p = _policy(NULL);
	ck_assert_int_eq(dl_policy_plan(p, st, &plan), 0);
	ck_assert_int_eq(plan->a[j1].node, 1);
	ck_assert_int_eq(plan->a[j2].node, 0);
	dl_plan_free(plan);
	dl_policy_destroy(p);
	dl_state_destroy(st);
	_teardown();
}

END_TEST

/*
 * kNN on the history, transfers free (RBW 0).  Two nodes of 4 slots.
 * Completions, all started at 0 (rest = run time):
 *   A  {p} (1 MiB) node 0, at 10  -> rest 10  (oldest)
 *   C  {p}         node 1, at 25  -> 25
 *   C' {p}         node 1, at 25  -> 25
 *   A' {p}         node 0, at 30  -> 30
 *   B  {q1,q2,q3} (7 MiB) node 0, at 1000 -> 1000
 * The query Q {p} is at distance 0 from A, A', C, C' and 2 + 2 + 1 = 5
 * from B (lb 1 vs 3, 1 vs 3 files, no file shared).
 *   k=1: node 0: the newer of A and A' -> 30; node 1: C' -> 25: node 1.
 *   k=2: node 0: (30 + 10) / 2 = 20; node 1: 25: node 0.
 *   k=3: node 0: (30 + 10 + 1000) / 3; node 1: 25 (two entries): node 1.
 */
START_TEST(test_knn)
{
	static const struct {
		uint32_t id;
		int32_t node;
		double end;
		int big;
	} jobs[] = {
		{ 1, 0, 10, 0 }, { 2, 1, 25, 0 },   { 3, 1, 25, 0 },
		{ 4, 0, 30, 0 }, { 5, 0, 1000, 1 },
	};

	static const double ends[] = { 0, 10, 25, 30, 1000 };
	static const char *params[] = { "k=1", "k=2", "k=3" };
	static const int32_t want[] = { 1, 0, 1 };
	uint32_t pf, q[3];
	dl_policy_t *pol[3];
	dl_state_t *st;
	size_t e, i, k;
	int qi;

	_setup(2, 0);
	pf = _file("/d/p", MIB);
	q[0] = _file("/d/q1", 2 * MIB);
	q[1] = _file("/d/q2", 2 * MIB);
	q[2] = _file("/d/q3", 3 * MIB);
	for (k = 0; k < 3; k++)
		pol[k] = _policy(params[k]);
	for (e = 0; e < sizeof(ends) / sizeof(ends[0]); e++) {
		st = _state(2, 4, ends[e]);
		for (i = 0; i < sizeof(jobs) / sizeof(jobs[0]); i++)
			if (jobs[i].end > ends[e])
				_running(st, jobs[i].id, jobs[i].big ? q : &pf,
					 jobs[i].big ? 3 : 1, jobs[i].node, 0);
		for (k = 0; k < 3; k++)
			_plan_node(pol[k], st, -1);
		dl_state_destroy(st);
	}
	st = _state(2, 4, 1000);
	qi = _pending(st, 10, &pf, 1, 1);
	for (k = 0; k < 3; k++) {
		ck_assert_msg(_plan_node(pol[k], st, qi) == want[k], "%s",
			      params[k]);
		dl_policy_destroy(pol[k]);
	}
	dl_state_destroy(st);
	_teardown();
}

END_TEST

/*
 * The execution metric subtracts the staging: RBW 100 B/s, f 1000 B.
 *   t=0: S {f} pending, f cached nowhere.
 *   t=0: S runs on node 0 (f now there: it had to fetch 1000 B = 10 s);
 *        R {f} runs on node 1, first seen running, f already there (0 s).
 *   t=25: R is gone: rest 25 - 0 = 25 on node 1.
 *   t=30: S is gone: rest 30 - 10 = 20 on node 0.
 * Q {f}, f on both nodes (no transfer): node 0 20 < node 1 25: node 0.
 * Without the subtraction node 0 would cost 30 and lose.
 */
START_TEST(test_staging_subtracted)
{
	uint32_t f;
	dl_policy_t *p;
	dl_state_t *st;
	int qi;

	_setup(2, 100);
	f = _file("/d/f", 1000);
	p = _policy("k=1");
	st = _state(2, 1, 0);
	_pending(st, 1, &f, 1, 1);
	_plan_node(p, st, -1);
	dl_state_destroy(st);

	ck_assert_int_eq(dl_cache_insert(tc, 0, f, 0, NULL, NULL), 0);
	ck_assert_int_eq(dl_cache_insert(tc, 1, f, 0, NULL, NULL), 0);
	st = _state(2, 1, 0);
	_running(st, 1, &f, 1, 0, 0);
	_running(st, 2, &f, 1, 1, 0);
	_plan_node(p, st, -1);
	dl_state_destroy(st);

	st = _state(2, 1, 25);
	_running(st, 1, &f, 1, 0, 0);
	_plan_node(p, st, -1);
	dl_state_destroy(st);

	st = _state(2, 1, 30);
	_plan_node(p, st, -1);
	dl_state_destroy(st);

	st = _state(2, 1, 30);
	qi = _pending(st, 3, &f, 1, 1);
	ck_assert_int_eq(_plan_node(p, st, qi), 0);
	dl_state_destroy(st);
	dl_policy_destroy(p);
	_teardown();
}

END_TEST

/*
 * Only completions teach.  RBW 100 B/s; f (1000 B) on node 0, g (1000 B)
 * on node 1.
 *   t=45: X {f} runs on node 0 since 0; Z {g} runs on node 1 since 45;
 *         Y {f} is pending.
 *   t=50: X is pending again (requeued), Y is gone (cancelled), Z is gone:
 *         one observation, Z: rest 5 on node 1.
 * X now: node 0 has no history, so the nearest anywhere, Z: 0 + 5 = 5;
 * node 1: 10 (transfer) + 5 = 15: node 0.  Had X's requeue counted as a
 * completion (rest 50 on node 0), node 0 would cost 50 and lose.
 */
START_TEST(test_requeue_not_learned)
{
	uint32_t f, g;
	dl_policy_t *p;
	dl_state_t *st;
	int xi;

	_setup(2, 100);
	f = _file("/d/f", 1000);
	g = _file("/d/g", 1000);
	ck_assert_int_eq(dl_cache_insert(tc, 0, f, 0, NULL, NULL), 0);
	ck_assert_int_eq(dl_cache_insert(tc, 1, g, 0, NULL, NULL), 0);
	p = _policy("k=1");
	st = _state(2, 1, 45);
	_running(st, 1, &f, 1, 0, 0);
	_running(st, 3, &g, 1, 1, 45);
	_pending(st, 2, &f, 1, 1);
	_plan_node(p, st, -1);
	dl_state_destroy(st);

	st = _state(2, 1, 50);
	xi = _pending(st, 1, &f, 1, 1);
	ck_assert_int_eq(_plan_node(p, st, xi), 0);
	dl_state_destroy(st);
	dl_policy_destroy(p);
	_teardown();
}

END_TEST

/*
 * Rows are the first free-slots + lookahead pending jobs.  One node, one
 * slot, RBW 100 B/s: A (high priority) needs big (10000 B, nowhere: 100
 * s), B needs small (cached: 0 s).
 *   lookahead=0: A is the only row: A -> 0, B -1.
 *   lookahead=1: both rows, one column: B (0 s) -> 0, A -1.
 * With the slot busy, nobody is matched.
 */
START_TEST(test_lookahead)
{
	uint32_t big, small;
	dl_policy_t *p0, *p1;
	dl_state_t *st;
	dl_plan_t *plan = NULL;
	int a, b;

	_setup(1, 100);
	big = _file("/d/big", 10000);
	small = _file("/d/small", 10);
	ck_assert_int_eq(dl_cache_insert(tc, 0, small, 0, NULL, NULL), 0);
	st = _state(1, 1, 0);
	a = _pending(st, 1, &big, 1, 2);
	b = _pending(st, 2, &small, 1, 1);
	p0 = _policy("lookahead=0");
	p1 = _policy("lookahead=1");
	ck_assert_int_eq(dl_policy_plan(p0, st, &plan), 0);
	ck_assert_int_eq(plan->a[a].node, 0);
	ck_assert_int_eq(plan->a[b].node, -1);
	dl_plan_free(plan);
	ck_assert_int_eq(dl_policy_plan(p1, st, &plan), 0);
	ck_assert_int_eq(plan->a[a].node, -1);
	ck_assert_int_eq(plan->a[b].node, 0);
	dl_plan_free(plan);
	st->nodes[0].busy = 1;
	ck_assert_int_eq(dl_policy_plan(p1, st, &plan), 0);
	ck_assert_int_eq(plan->a[a].node, -1);
	ck_assert_int_eq(plan->a[b].node, -1);
	dl_plan_free(plan);
	dl_policy_destroy(p0);
	dl_policy_destroy(p1);
	dl_state_destroy(st);
	_teardown();
}

END_TEST

/*
 * Slots and fit, RBW 100 B/s.  Node 0 has 3 free slots, node 1 one (of
 * 2), so 4 columns and the first 4 of the 5 pending jobs are rows:
 *   w (2 CPUs, no file): node 0: 0; node 1: forbidden (1 free slot);
 *   v (no file, eligible on node 1 only): node 0 forbidden; node 1: 0;
 *   j3, j4 (f, 1000 B, nowhere): 10 s anywhere;
 *   j5: not a row, no preference.
 * The optimum (20 s) puts v on node 1 and w, j3, j4 on node 0, and
 * dl_plan_starts() starts 3 CPUs' worth on node 0 and 1 on node 1.
 */
START_TEST(test_slots_and_fit)
{
	uint8_t only1[2] = { 0, 1 };
	dl_job_t j = { 0 };
	dl_policy_t *p;
	dl_state_t *st;
	dl_plan_t *plan = NULL;
	dl_start_t *starts = NULL;
	size_t nstarts = 0, i;
	uint32_t f, on0 = 0, on1 = 0;
	int w, v, idx[3];

	_setup(2, 100);
	f = _file("/d/f", 1000);
	st = dl_state_create(tc, &tp);
	ck_assert_int_eq(dl_state_add_node(st, "n0", 3, 1), 0);
	ck_assert_int_eq(dl_state_add_node(st, "n1", 2, 1), 1);
	_running(st, 99, NULL, 0, 1, 0);
	j.id = 1;
	j.cpus = 2;
	j.priority = 10;
	j.node = -1;
	w = dl_state_add_job(st, &j);
	j.id = 2;
	j.cpus = 1;
	j.priority = 9;
	j.eligible = only1;
	v = dl_state_add_job(st, &j);
	ck_assert_int_ge(w, 0);
	ck_assert_int_ge(v, 0);
	for (i = 0; i < 3; i++)
		idx[i] = _pending(st, 3 + (uint32_t) i, &f, 1, 5 - i);
	p = _policy(NULL);
	ck_assert_int_eq(dl_policy_plan(p, st, &plan), 0);
	ck_assert_int_eq(plan->a[w].node, 0);
	ck_assert_int_eq(plan->a[v].node, 1);
	ck_assert_int_eq(plan->a[idx[0]].node, 0);
	ck_assert_int_eq(plan->a[idx[1]].node, 0);
	ck_assert_int_eq(plan->a[idx[2]].node, -1);
	ck_assert_int_eq(dl_plan_starts(st, plan, &starts, &nstarts), 0);
	for (i = 0; i < nstarts; i++) {
		if (starts[i].node == 0)
			on0 += st->jobs[starts[i].job].cpus;
		else
			on1 += st->jobs[starts[i].job].cpus;
	}
	ck_assert_uint_le(on0, 3);
	ck_assert_uint_le(on1, 1);
	free(starts);
	dl_plan_free(plan);
	dl_policy_destroy(p);
	dl_state_destroy(st);
	_teardown();
}

END_TEST

START_TEST(test_policy_bad_params)
{
	static const char *bad[] = {
		"k=0",       "k=1.5",      "k=65",       "history=0",
		"history=x", "batch=0",    "batch=5000", "lookahead=-1",
		"wshare=-1", "wbytes=abc",
	};
	size_t i;
	int err;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err = 0;
		ck_assert_msg(dl_policy_create("assignment", bad[i], &err) ==
				      NULL,
			      "accepted '%s'", bad[i]);
		ck_assert_int_eq(err, DL_EINVAL);
	}
	dl_policy_destroy(_policy("k=5,history=10,batch=8,lookahead=2,"
				  "wbytes=0.5,wfiles=0,wshare=3"));
}

END_TEST

/*
 * The same sequence of states gives the same plans; a history ring of 2
 * keeps working past its size.
 */
START_TEST(test_policy_deterministic)
{
	uint32_t f[4], t, k;
	dl_policy_t *p1, *p2;
	char path[16];

	_setup(3, 1000);
	for (k = 0; k < 4; k++) {
		snprintf(path, sizeof(path), "/d/%u", k);
		f[k] = _file(path, 1000 * (k + 1));
	}
	p1 = _policy("history=2,k=2");
	p2 = _policy("history=2,k=2");
	for (t = 0; t < 12; t++) {
		dl_state_t *st = _state(3, 2, 10.0 * t);
		dl_plan_t *a = NULL, *b = NULL;

		/* Job t runs from 10t to 10t + 10 + 5 (t % 3) on t % 3. */
		for (k = t > 2 ? t - 2 : 0; k < t; k++)
			if (10.0 * k + 10 + 5 * (k % 3) > 10.0 * t)
				_running(st, k, &f[k % 4], 1, (int32_t) (k % 3),
					 10.0 * k);
		for (k = t; k < t + 6; k++)
			_pending(st, 100 + k, &f[k % 4], 1, k % 3);
		ck_assert_int_eq(dl_policy_plan(p1, st, &a), 0);
		ck_assert_int_eq(dl_policy_plan(p2, st, &b), 0);
		for (k = 0; k < a->n; k++)
			ck_assert_int_eq(a->a[k].node, b->a[k].node);
		dl_plan_free(a);
		dl_plan_free(b);
		dl_state_destroy(st);
	}
	dl_policy_destroy(p1);
	dl_policy_destroy(p2);
	_teardown();
}

END_TEST

Suite *make_assignment_suite(void)
{
	Suite *s = suite_create("assignment");
	TCase *th = tcase_create("hungarian");
	TCase *tp_ = tcase_create("policy");

	tcase_add_test(th, test_square);
	tcase_add_test(th, test_rectangular);
	tcase_add_test(th, test_ties);
	tcase_add_test(th, test_forbidden);
	tcase_add_test(th, test_solver_errors);
	tcase_add_test(th, test_brute_force);
	suite_add_tcase(s, th);
	tcase_add_test(tp_, test_cold_optimal);
	tcase_add_test(tp_, test_knn);
	tcase_add_test(tp_, test_staging_subtracted);
	tcase_add_test(tp_, test_requeue_not_learned);
	tcase_add_test(tp_, test_lookahead);
	tcase_add_test(tp_, test_slots_and_fit);
	tcase_add_test(tp_, test_policy_bad_params);
	tcase_add_test(tp_, test_policy_deterministic);
	suite_add_tcase(s, tp_);
	return s;
}
