/*
 * check_simscale.c - the speedups of dl-sim at 1,024 nodes against the
 * slow paths they replace, on random states:
 *
 * - dl__plan_follow_data() judges a job's node and its candidates in one
 *   pass over its files each (bytes there and execution time together);
 *   the reference below is the two-pass code it replaced
 *   (dl__bytes_on_node() then dl__exec_on_node()): same plans.
 * - dl_state_reserve(), dl_state_clear_jobs() and the input bytes a host
 *   keeps across states
 *   (dl_state_add_job()): the same state as one built without them, and a
 *   kept sum from before a size changed is summed anew.
 * - dl__exec_bytes_on_node_reads() asks the state's running jobs' reads
 *   index in place of an overlay holding a copy of it (plan_follow.c's
 *   overlay has only the planned jobs' files): the same bytes and times
 *   as dl__exec_bytes_on_node() with the copy, for every job and node.
 * - dl__mintree_set() stops climbing where a minimum is unchanged: the
 *   tree after random sets is the one built from its leaves.
 * - dl-sim keeps running jobs' execution times across plans
 *   (_remaining() in sim.c); with checks on it compares each kept time
 *   against dl_cost_job_remaining() and fails the run on a difference:
 *   runs with evictions, peer fetch, the agent's estimates and both
 *   dispatches must succeed.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check_suites.h"
#include "dl_cache.h"
#include "dl_cost.h"
#include "dl_error.h"
#include "dl_policy.h"
#include "dl_state.h"
#include "mintree.h"
#include "plan/plan_follow.h"
#include "policy/policy_util.h"
#include "sim.h"
#include "sim_fx.h"
#include "u64set.h"
#include "workload.h"

/* ------------------------------------------------------------------ */
/* a random state                                                       */

static uint64_t rng;

static uint32_t _rand(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

/*
 * nodes nodes (some unusable, some of 2 slots), nfiles files of random
 * sizes (some unknown) cached at random, running and pending jobs of 1-5
 * files, some pending jobs restricted to a few nodes.
 */
static dl_state_t *_random_state(dl_cache_t **cache, uint32_t nodes,
				 uint32_t nfiles, uint32_t njobs)
{
	dl_params_t p;
	dl_state_t *st;
	uint32_t n, f, i;

	*cache = dl_cache_create(nodes, DL_EVICT_LRU, 1);
	ck_assert_ptr_nonnull(*cache);
	for (n = 0; n < nodes; n++)
		ck_assert_int_eq(dl_cache_set_capacity(*cache, n,
						       DL_CACHE_UNLIMITED),
				 0);
	for (f = 0; f < nfiles; f++) {
		char path[32];

		uint64_t size = _rand(4) ? 1000 + _rand(9000) :
					   DL_CACHE_SIZE_UNKNOWN;

		snprintf(path, sizeof(path), "/r/%u", f);
		ck_assert_int_eq(dl_cache_file_intern(*cache, path, size), f);
		/* The tracker caches no file of unknown size. */
		for (n = 0; n < nodes; n++)
			if (size != DL_CACHE_SIZE_UNKNOWN && !_rand(4))
				ck_assert_int_eq(dl_cache_insert(*cache, n, f,
								 0, NULL,
								 NULL),
						 0);
	}
	dl_params_default(&p);
	p.rbw = 100;
	p.lbw = 500;
	p.cpb = 1e-3;
	p.unknown_size = 3000;
	p.nstorage = 1 + _rand(3);
	st = dl_state_create(*cache, &p);
	ck_assert_ptr_nonnull(st);
	for (n = 0; n < nodes; n++) {
		char name[16];

		snprintf(name, sizeof(name), "n%u", n);
		ck_assert_int_ge(dl_state_add_node(st, name, 1 + !_rand(4),
						   _rand(8) != 0),
				 0);
	}
	for (i = 0; i < njobs; i++) {
		uint32_t files[5], k, nf = 1 + _rand(5);
		uint8_t *el = NULL;
		dl_job_t j = { 0 };

		for (k = 0; k < nf; k++)
			files[k] = _rand(nfiles);
		j.id = i + 1;
		j.state = _rand(3) ? DL_JOB_PENDING : DL_JOB_RUNNING;
		j.nfiles = nf;
		j.files = files;
		j.cpus = 1;
		j.arrival = i;
		j.compute = _rand(2) ? -1.0 : (double)_rand(20);
		j.node = j.state == DL_JOB_RUNNING ? (int32_t)_rand(nodes) : -1;
		if (j.state == DL_JOB_PENDING && !_rand(4)) {
			el = calloc(nodes, 1);
			ck_assert_ptr_nonnull(el);
			for (k = 0; k < 3; k++)
				el[_rand(nodes)] = 1;
			j.eligible = el;
		}
		ck_assert_int_ge(dl_state_add_job(st, &j), 0);
		free(el);
	}
	return st;
}

/* ------------------------------------------------------------------ */
/* dl__plan_follow_data() against the two-pass reference                 */

#define REF_CANDIDATES 16

/* The reference's candidates: plan_follow.c's _candidates(), as it was. */
static uint32_t _ref_candidates(const dl_state_t *st, const dl_job_t *j,
				uint32_t cur, uint32_t max_files,
				uint32_t *cand)
{
	uint32_t holders[REF_CANDIDATES], k, h, c, nh, nc = 0;

	for (k = 0; k < j->nfiles && k < max_files && nc < REF_CANDIDATES;
	     k++) {
		nh = dl_cache_holders(st->cache, j->files[k], holders,
				      REF_CANDIDATES);
		if (nh > REF_CANDIDATES)
			nh = REF_CANDIDATES;
		for (h = 0; h < nh && nc < REF_CANDIDATES; h++) {
			for (c = 0; c < nc && cand[c] != holders[h]; c++)
				;
			if (c == nc && holders[h] != cur &&
			    dl_state_job_eligible(st, j, holders[h]))
				cand[nc++] = holders[h];
		}
	}
	return nc;
}

/* The node the reference moves j to (cur: none), its exec in *exec. */
static uint32_t _ref_choose(const dl_state_t *st, const dl_job_t *j,
			    uint32_t cur, const dl__queues_t *q,
			    const dl__u64set_t *ov, uint32_t max_files,
			    double *exec)
{
	uint32_t cand[REF_CANDIDATES], nc, c;
	uint64_t best_bytes = 0;
	int32_t best = -1;
	double there;

	*exec = dl__exec_on_node(st, j, cur, ov);
	if (dl__bytes_on_node(st, j, cur, ov))
		return cur;
	nc = _ref_candidates(st, j, cur, max_files, cand);
	for (c = 0; c < nc; c++) {
		uint64_t b = dl__bytes_on_node(st, j, cand[c], ov);

		if (b > best_bytes ||
		    (b == best_bytes && best >= 0 && (int32_t)cand[c] < best)) {
			best = (int32_t)cand[c];
			best_bytes = b;
		}
	}
	if (best < 0)
		return cur;
	there = dl__exec_on_node(st, j, (uint32_t)best, ov);
	if (dl__time_cmp(dl__queues_start(q, (uint32_t)best, j->cpus) + there,
			 dl__queues_start(q, cur, j->cpus) + *exec) >= 0)
		return cur;
	*exec = there;
	return (uint32_t)best;
}

/* The reference pass over plan (no max_pending); \return jobs moved. */
static size_t _ref_follow(const dl_state_t *st, dl_plan_t *plan,
			  uint32_t max_files)
{
	size_t *ord = NULL, i, n = 0, moved = 0;
	dl__queues_t q;
	dl__u64set_t ov;

	dl__u64set_init(&ov);
	ck_assert_int_eq(dl__queues_init(&q, st), 0);
	ck_assert_int_eq(dl__plan_order(st, plan, &ord, &n), 0);
	ck_assert_int_eq(dl__overlay_add_running(&ov, st), 0);
	for (i = 0; i < n; i++) {
		const dl_job_t *j = &st->jobs[ord[i]];
		uint32_t node = (uint32_t)plan->a[ord[i]].node, to;
		double exec;

		to = _ref_choose(st, j, node, &q, &ov, max_files, &exec);
		if (to != node) {
			plan->a[ord[i]].node = (int32_t)to;
			moved++;
		}
		dl__queues_push(&q, to, j->cpus, exec);
		ck_assert_int_eq(dl__overlay_add_job(&ov, to, j), 0);
	}
	free(ord);
	dl__queues_fini(&q);
	dl__u64set_fini(&ov);
	return moved;
}

/* A plan of st: pending jobs on a random eligible node (or none). */
static void _random_plan(const dl_state_t *st, dl_plan_t *plan)
{
	size_t i;

	plan->n = st->njobs;
	plan->a = calloc(st->njobs ? st->njobs : 1, sizeof(*plan->a));
	ck_assert_ptr_nonnull(plan->a);
	for (i = 0; i < st->njobs; i++) {
		const dl_job_t *j = &st->jobs[i];
		uint32_t n = _rand(st->nnodes);

		plan->a[i].job_id = j->id;
		plan->a[i].order = (double)_rand(8);
		plan->a[i].node = j->state == DL_JOB_RUNNING ? j->node : -1;
		if (j->state == DL_JOB_PENDING && _rand(6) &&
		    dl_state_job_eligible(st, j, n))
			plan->a[i].node = (int32_t)n;
	}
}

START_TEST(test_follow_random)
{
	size_t round, moved_total = 0;

	rng = 0x9e3779b97f4a7c15ULL;
	for (round = 0; round < 300; round++) {
		dl_cache_t *cache;
		uint32_t nodes = 2 + _rand(14), max_files = 1 + _rand(6);
		dl_state_t *st = _random_state(&cache, nodes, 3 + _rand(20),
					       1 + _rand(40));
		dl_plan_t fast = { 0 }, ref = { 0 };
		size_t moved = 0, i;

		_random_plan(st, &fast);
		ref.n = fast.n;
		ref.a = malloc((fast.n ? fast.n : 1) * sizeof(*ref.a));
		ck_assert_ptr_nonnull(ref.a);
		memcpy(ref.a, fast.a, fast.n * sizeof(*ref.a));
		ck_assert_int_eq(dl__plan_follow_data(st, &fast, 0, max_files,
						      &moved),
				 0);
		ck_assert_uint_eq(moved, _ref_follow(st, &ref, max_files));
		for (i = 0; i < fast.n; i++)
			ck_assert_msg(fast.a[i].node == ref.a[i].node,
				      "round %zu job %zu: %d, reference %d",
				      round, i, fast.a[i].node,
				      ref.a[i].node);
		moved_total += moved;
		free(fast.a);
		free(ref.a);
		dl_state_destroy(st);
		dl_cache_destroy(cache);
	}
	/* The states move some jobs, or the comparison tells little. */
	ck_assert_uint_gt(moved_total, 20);
}
END_TEST

/* ------------------------------------------------------------------ */
/* the reads index asked in place of an overlay's copy                  */

START_TEST(test_exec_reads_random)
{
	size_t round, i, differ = 0;

	rng = 0x2545f4914f6cdd1dULL;
	for (round = 0; round < 200; round++) {
		dl_cache_t *cache;
		uint32_t nodes = 2 + _rand(14), n;
		dl_state_t *st = _random_state(&cache, nodes, 3 + _rand(20),
					       1 + _rand(40));
		dl__u64set_t full, adds;

		/* full: the running jobs' pairs then some pending jobs on
		 * random nodes, as plan_follow.c's overlay was; adds: the
		 * pending jobs' pairs only, as it is now. */
		dl__u64set_init(&full);
		dl__u64set_init(&adds);
		ck_assert_int_eq(dl__overlay_add_running(&full, st), 0);
		for (i = 0; i < st->njobs; i++)
			if (st->jobs[i].state == DL_JOB_PENDING && _rand(2)) {
				n = _rand(nodes);
				ck_assert_int_eq(dl__overlay_add_job(
							 &full, n, &st->jobs[i]),
						 0);
				ck_assert_int_eq(dl__overlay_add_job(
							 &adds, n, &st->jobs[i]),
						 0);
			}
		for (i = 0; i < st->njobs; i++)
			for (n = 0; n < nodes; n++) {
				const dl_job_t *j = &st->jobs[i];
				uint64_t a, b, c;
				double x = dl__exec_bytes_on_node(st, j, n,
								  &full, &a);
				double y = dl__exec_bytes_on_node_reads(
					st, j, n, &adds, &b);

				ck_assert_uint_eq(a, b);
				ck_assert(x == y);
				/* The reads index matters here, or the
				 * comparison tells little. */
				(void)dl__exec_bytes_on_node(st, j, n, &adds,
							     &c);
				differ += c != a;
			}
		dl__u64set_fini(&full);
		dl__u64set_fini(&adds);
		dl_state_destroy(st);
		dl_cache_destroy(cache);
	}
	ck_assert_uint_gt(differ, 100);
}
END_TEST

/* ------------------------------------------------------------------ */
/* dl__mintree_set() against a tree built from its leaves               */

START_TEST(test_mintree_set_random)
{
	size_t round, step;

	rng = 0x853c49e6748fea9bULL;
	for (round = 0; round < 300; round++) {
		uint32_t n = 1 + _rand(70), i;
		dl__mintree_t a, b;

		ck_assert_int_eq(dl__mintree_init(&a, n), 0);
		ck_assert_int_eq(dl__mintree_init(&b, n), 0);
		for (step = 0; step < 200; step++) {
			/* Few distinct values: ties, repeats, a value set
			 * to what it was, +infinity. */
			double x = _rand(6) ? (double)_rand(9) : INFINITY;

			i = _rand(n);
			dl__mintree_set(&a, i, x);
			for (i = 0; i < n; i++)
				dl__mintree_put(&b, i, dl__mintree_get(&a, i));
			dl__mintree_build(&b);
			for (i = 1; i < 2 * a.size; i++)
				ck_assert_msg(!memcmp(&a.v[i], &b.v[i],
						      sizeof(a.v[i])),
					      "round %zu step %zu entry %u",
					      round, step, i);
		}
		dl__mintree_fini(&a);
		dl__mintree_fini(&b);
	}
}
END_TEST

/* ------------------------------------------------------------------ */
/* dl_state_reserve() and kept input bytes                              */

/* A copy of every node and of the first njobs jobs of a into a new state
 * of the same tracker, reserved and with a's bytes when keep, plain
 * otherwise. */
static dl_state_t *_copy_first(const dl_state_t *a, int keep, size_t njobs)
{
	dl_state_t *b = dl_state_create(a->cache, &a->params);
	size_t i, reads = 0;
	uint32_t n;

	ck_assert_ptr_nonnull(b);
	for (i = 0; i < a->njobs; i++)
		reads += a->jobs[i].nfiles;
	if (keep)
		ck_assert_int_eq(dl_state_reserve(b, a->nnodes, a->njobs,
						  reads),
				 0);
	for (n = 0; n < a->nnodes; n++)
		ck_assert_int_eq(dl_state_add_node(b, a->nodes[n].name,
						   a->nodes[n].cpus,
						   a->nodes[n].usable),
				 (int)n);
	for (i = 0; i < njobs; i++) {
		dl_job_t j = a->jobs[i];

		if (!keep)
			j.bytes = j.bytes_gen = j.bytes_unknown = 0;
		ck_assert_int_eq(dl_state_add_job(b, &j), (int)i);
	}
	return b;
}

static dl_state_t *_copy_state(const dl_state_t *a, int keep)
{
	return _copy_first(a, keep, a->njobs);
}

/* b, a copy of a's nodes, refilled with a's jobs after
 * dl_state_clear_jobs() (as dl-sim builds a snapshot in the last one). */
static void _refill(dl_state_t *b, const dl_state_t *a, size_t n)
{
	size_t i;

	dl_state_clear_jobs(b);
	ck_assert_uint_eq(b->njobs, 0);
	ck_assert_ptr_null(b->remaining);
	for (i = 0; i < n; i++) {
		dl_job_t j = a->jobs[i];

		j.bytes = j.bytes_gen = j.bytes_unknown = 0;
		ck_assert_int_eq(dl_state_add_job(b, &j), (int)i);
	}
}

/* a and b hold the same nodes, jobs, sums and reads. */
static void _same_state(const dl_state_t *a, const dl_state_t *b,
			uint32_t nfiles)
{
	uint32_t n, f;
	size_t i;

	ck_assert_uint_eq(a->nnodes, b->nnodes);
	ck_assert_uint_eq(a->njobs, b->njobs);
	for (n = 0; n < a->nnodes; n++) {
		ck_assert_str_eq(a->nodes[n].name, b->nodes[n].name);
		ck_assert_uint_eq(a->nodes[n].cpus, b->nodes[n].cpus);
		for (f = 0; f < nfiles; f++)
			ck_assert_int_eq(dl_state_node_reads(a, n, f),
					 dl_state_node_reads(b, n, f));
	}
	for (i = 0; i < a->njobs; i++) {
		ck_assert_uint_eq(a->jobs[i].id, b->jobs[i].id);
		ck_assert_uint_eq(a->jobs[i].nfiles, b->jobs[i].nfiles);
		ck_assert_mem_eq(a->jobs[i].files, b->jobs[i].files,
				 a->jobs[i].nfiles * sizeof(uint32_t));
		ck_assert_int_eq(!a->jobs[i].eligible, !b->jobs[i].eligible);
		if (a->jobs[i].eligible)
			ck_assert_mem_eq(a->jobs[i].eligible,
					 b->jobs[i].eligible, a->nnodes);
		ck_assert_uint_eq(dl_job_bytes(a, &a->jobs[i]),
				  dl_job_bytes(b, &b->jobs[i]));
		/* The sums the states hold are the sums now. */
		ck_assert_uint_eq(a->jobs[i].bytes,
				  dl_job_bytes(a, &a->jobs[i]));
		ck_assert_uint_eq(b->jobs[i].bytes,
				  dl_job_bytes(b, &b->jobs[i]));
	}
}

START_TEST(test_state_reserve_random)
{
	size_t round;

	rng = 0x2545f4914f6cdd1dULL;
	for (round = 0; round < 200; round++) {
		dl_cache_t *cache;
		uint32_t nfiles = 3 + _rand(20);
		dl_state_t *a = _random_state(&cache, 2 + _rand(30), nfiles,
					      _rand(60));
		dl_state_t *kept = _copy_state(a, 1), *plain = _copy_state(a, 0);
		dl_state_t *later, *fresh, *half;
		uint32_t f;

		_same_state(kept, plain, nfiles);
		_same_state(a, kept, nfiles);
		/* Built again in a used state, with fewer jobs: what a
		 * state of those jobs alone is (no read, file or
		 * eligibility left of the earlier jobs), then all again. */
		half = _copy_first(a, 0, a->njobs / 2);
		_refill(kept, a, a->njobs / 2);
		_same_state(kept, half, nfiles);
		_refill(kept, a, a->njobs);
		_same_state(kept, plain, nfiles);
		dl_state_destroy(half);
		/* A size changes (a file no node caches: the tracker keeps
		 * a cached file's size): a sum kept from before is not the
		 * sum. */
		for (f = 0; f < nfiles && dl_cache_copies(cache, f); f++)
			;
		if (f < nfiles)
			ck_assert_int_eq(dl_cache_file_set_size(cache, f,
							500 + _rand(100000)),
					 0);
		later = _copy_state(a, 1);
		fresh = _copy_state(a, 0);
		_same_state(later, fresh, nfiles);
		dl_state_destroy(a);
		dl_state_destroy(kept);
		dl_state_destroy(plain);
		dl_state_destroy(later);
		dl_state_destroy(fresh);
		dl_cache_destroy(cache);
	}
}
END_TEST

/* ------------------------------------------------------------------ */
/* dl-sim's kept remaining times, checked by the run itself              */

/* A biomed trace of jobs jobs for nodes nodes at load 2 (long queues). */
static dl_workload_t *_biomed(size_t jobs, uint32_t nodes, uint64_t seed)
{
	dl_wl_biomed_opts_t o;
	dl_wl_arrival_opts_t a;
	dl_wl_platform_t pf;
	dl_workload_t *wl;

	dl_wl_biomed_opts_default(&o);
	dl_wl_arrival_opts_default(&a);
	o.jobs = jobs;
	o.patients = 40;
	wl = dl_workload_gen_biomed(&o, seed);
	ck_assert_ptr_nonnull(wl);
	pf.nodes = nodes;
	pf.slots = nodes;
	dl_params_default(&pf.params);
	a.load = 2;
	ck_assert_int_eq(dl_workload_set_arrivals(wl, &pf, &a, seed, NULL), 0);
	return wl;
}

START_TEST(test_sim_remaining_checked)
{
	static const char *policies[] = { "online-hps", "mct", "locality" };
	size_t k;

	for (k = 0; k < 12; k++) {
		dl_workload_t *wl = _biomed(150, 6, k + 1);
		dl_sim_config_t c;
		dl_sim_result_t *r;

		fx_sim_config(&c, 6, 1 + (uint32_t)(k % 2), 2);
		c.policy = policies[k % 3];
		/* Small caches: evictions change what a running job's node
		 * holds while it runs. */
		c.cache_bytes = (k % 4 + 1) * (128ULL << 20);
		c.peer_fetch = (k / 3) % 2;
		c.dispatch = k % 2 ? DL_DISPATCH_SLURM : DL_DISPATCH_PLAN;
		c.agent_limit = k % 4 == 3 ? 60 : 0;
		c.params.cpb = 1e-9;
		r = fx_sim_run(&c, wl);
		ck_assert_uint_eq(r->completed, r->njobs);
		ck_assert_uint_gt(r->evictions, 0);
		dl_sim_result_free(r);
		dl_workload_destroy(wl);
	}
}
END_TEST

Suite *make_simscale_suite(void)
{
	Suite *s = suite_create("simscale");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_follow_random);
	tcase_add_test(tc, test_exec_reads_random);
	tcase_add_test(tc, test_mintree_set_random);
	tcase_add_test(tc, test_state_reserve_random);
	tcase_add_test(tc, test_sim_remaining_checked);
	suite_add_tcase(s, tc);
	return s;
}
