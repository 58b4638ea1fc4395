/*
 * check_sim.c - the simulator (src/sim): workload generators and parsers,
 * the event model on hand-computed cases, conservation, determinism.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_suites.h"
#include "dispatch.h"
#include "dl_error.h"
#include "dl_policy.h"
#include "fixture.h"
#include "metrics.h"
#include "options.h"
#include "setup.h"
#include "sim.h"
#include "sim_fx.h"
#include "workload.h"

#define MB (1ULL << 20)
#define EPS 1e-9

/* Also in check_suites.h once the suite is registered there. */
Suite *make_sim_suite(void);

/* sim_fx.h's platform, planned by locality. */
static void _cfg(dl_sim_config_t *c, uint32_t nodes, uint32_t cores,
		 uint32_t storage)
{
	fx_sim_config(c, nodes, cores, storage);
	c->policy = "locality";
}

static dl_workload_t *_biomed(size_t jobs, double overlap, int clustered,
			      uint64_t seed, uint32_t nodes)
{
	dl_wl_biomed_opts_t o;
	dl_wl_arrival_opts_t a;
	dl_wl_platform_t pf;
	dl_workload_t *wl;

	dl_wl_biomed_opts_default(&o);
	o.jobs = jobs;
	o.overlap = overlap;
	o.clustered = clustered;
	wl = dl_workload_gen_biomed(&o, seed);
	ck_assert_ptr_nonnull(wl);
	dl_wl_arrival_opts_default(&a);
	a.load = 1.5;
	pf.nodes = nodes;
	pf.slots = nodes;
	dl_params_default(&pf.params);
	ck_assert_int_eq(dl_workload_set_arrivals(wl, &pf, &a, seed + 7, NULL),
			 0);
	return wl;
}

/* ---------------------------------------------------------------------- */
/* Hand-computed cases                                                    */

/*
 * One node with one slot, one storage node, two jobs reading the same
 * file of X = 100e6 bytes, both arriving at 0, 0.5 s of compute each.
 * RBW = 1e8 B/s: the transfer takes 1 s; LBW = 5e8 B/s: the read 0.2 s.
 *   job 1: transfer [0, 1], read [1, 1.2], compute [1.2, 1.7]
 *          response 1.7, wait 0 (its transfer starts at once)
 *   job 2: waits for the slot until 1.7, finds the file cached (a hit):
 *          read [1.7, 1.9], compute [1.9, 2.4]: response 2.4, wait 1.7
 */
/* Two jobs of 0.5 s reading one 100 MB file, on one node of one slot,
 * each holding its slot launch seconds more. */
static dl_sim_result_t *_tiny(dl_workload_t **wl, double launch)
{
	dl_sim_config_t c;
	uint32_t f = 0;

	*wl = dl_workload_create("test");
	ck_assert_int_eq(dl_workload_add_file(*wl, "/x", 100000000, -1), 0);
	fx_sim_job(*wl, 1, 0.0, 0.5, &f, 1);
	fx_sim_job(*wl, 2, 0.0, 0.5, &f, 1);
	_cfg(&c, 1, 1, 1);
	c.launch = launch;
	return fx_sim_run(&c, *wl);
}

START_TEST(test_tiny_shared_file)
{
	dl_workload_t *wl;
	dl_sim_result_t *r = _tiny(&wl, 0);

	ck_assert_uint_eq(r->completed, 2);
	ck_assert_double_eq_tol(r->jobs[0].end - r->jobs[0].arrival, 1.7, EPS);
	ck_assert_double_eq_tol(r->jobs[0].start, 0.0, EPS);
	ck_assert_double_eq_tol(r->jobs[0].staged, 1.0, EPS);
	ck_assert_double_eq_tol(r->jobs[1].dispatch, 1.7, EPS);
	ck_assert_double_eq_tol(r->jobs[1].start, 1.7, EPS);
	ck_assert_double_eq_tol(r->jobs[1].end - r->jobs[1].arrival, 2.4, EPS);
	ck_assert_uint_eq(r->jobs[0].miss, 1);
	ck_assert_uint_eq(r->jobs[1].hit_local, 1);
	ck_assert_uint_eq(r->miss, 1);
	ck_assert_uint_eq(r->hit_local, 1);
	ck_assert_uint_eq(r->remote_bytes, 100000000);
	ck_assert_uint_eq(r->remote_transfers, 1);
	dl_sim_result_free(r);
	dl_workload_destroy(wl);
}

END_TEST

/*
 * test_tiny_shared_file with a launch overhead of 0.3 s: job 1 holds the
 * slot to 2.0 (1.0 staging, 0.2 reading, 0.5 compute, 0.3 launch), job 2
 * starts then and ends at 2.0 + 0.2 + 0.5 + 0.3.
 */
START_TEST(test_launch_overhead)
{
	dl_workload_t *wl;
	dl_sim_result_t *r = _tiny(&wl, 0.3);

	ck_assert_uint_eq(r->completed, 2);
	ck_assert_double_eq_tol(r->jobs[0].end, 2.0, EPS);
	ck_assert_double_eq_tol(r->jobs[1].dispatch, 2.0, EPS);
	ck_assert_double_eq_tol(r->jobs[1].end, 3.0, EPS);
	dl_sim_result_free(r);
	dl_workload_destroy(wl);
}
END_TEST

/*
 * The same with two slots and job 2 arriving at 0.5: it starts at once and
 * waits for the transfer job 1 started (no second transfer): staged at 1,
 * read and compute to 1.7, response 1.2; its access is a local hit.
 */
START_TEST(test_tiny_join_inflight)
{
	dl_workload_t *wl = dl_workload_create("test");
	dl_sim_config_t c;
	dl_sim_result_t *r;
	uint32_t f = 0;

	ck_assert_int_eq(dl_workload_add_file(wl, "/x", 100000000, -1), 0);
	fx_sim_job(wl, 1, 0.0, 0.5, &f, 1);
	fx_sim_job(wl, 2, 0.5, 0.5, &f, 1);
	_cfg(&c, 1, 2, 1);
	r = fx_sim_run(&c, wl);
	ck_assert_double_eq_tol(r->jobs[1].dispatch, 0.5, EPS);
	ck_assert_double_eq_tol(r->jobs[1].staged, 1.0, EPS);
	ck_assert_double_eq_tol(r->jobs[1].end, 1.7, EPS);
	ck_assert_uint_eq(r->remote_transfers, 1);
	ck_assert_uint_eq(r->jobs[1].hit_local, 1);
	dl_sim_result_free(r);
	dl_workload_destroy(wl);
}

END_TEST

/*
 * Two nodes, one storage node, two jobs at 0 reading different files of
 * 100e6 bytes on it: both start at once on their own node, but the storage
 * node serves one transfer at a time: [0, 1] then [1, 2].  Ends: 1.7 and
 * 2.7; the second job's wait (first transfer start) is 1.  With two
 * storage nodes (files 0 and 1 land on different ones) both end at 1.7.
 */
START_TEST(test_storage_contention)
{
	dl_workload_t *wl = dl_workload_create("test");
	dl_sim_config_t c;
	dl_sim_result_t *r;
	uint32_t f0 = 0, f1 = 1;
	double lo, hi;

	ck_assert_int_eq(dl_workload_add_file(wl, "/a", 100000000, -1), 0);
	ck_assert_int_eq(dl_workload_add_file(wl, "/b", 100000000, -1), 1);
	fx_sim_job(wl, 1, 0.0, 0.5, &f0, 1);
	fx_sim_job(wl, 2, 0.0, 0.5, &f1, 1);
	_cfg(&c, 2, 1, 1);
	r = fx_sim_run(&c, wl);
	ck_assert_int_ne(r->jobs[0].node, r->jobs[1].node);
	ck_assert_double_eq_tol(r->jobs[0].dispatch, 0.0, EPS);
	ck_assert_double_eq_tol(r->jobs[1].dispatch, 0.0, EPS);
	lo = fmin(r->jobs[0].end, r->jobs[1].end);
	hi = fmax(r->jobs[0].end, r->jobs[1].end);
	ck_assert_double_eq_tol(lo, 1.7, EPS);
	ck_assert_double_eq_tol(hi, 2.7, EPS);
	ck_assert_double_eq_tol(fmax(r->jobs[0].start, r->jobs[1].start), 1.0,
				EPS);
	dl_sim_result_free(r);

	c.storage = 2;
	r = fx_sim_run(&c, wl);
	ck_assert_double_eq_tol(r->jobs[0].end, 1.7, EPS);
	ck_assert_double_eq_tol(r->jobs[1].end, 1.7, EPS);
	dl_sim_result_free(r);
	dl_workload_destroy(wl);
}

END_TEST

/*
 * A node receives one file at a time: one job of two files of 100e6 bytes
 * on two storage nodes takes 2 s to stage, not 1.
 */
START_TEST(test_node_link_serialized)
{
	dl_workload_t *wl = dl_workload_create("test");
	dl_sim_config_t c;
	dl_sim_result_t *r;
	uint32_t f[2] = { 0, 1 };

	ck_assert_int_eq(dl_workload_add_file(wl, "/a", 100000000, -1), 0);
	ck_assert_int_eq(dl_workload_add_file(wl, "/b", 100000000, -1), 1);
	fx_sim_job(wl, 1, 0.0, 0.0, f, 2);
	_cfg(&c, 1, 1, 2);
	r = fx_sim_run(&c, wl);
	ck_assert_double_eq_tol(r->jobs[0].staged, 2.0, EPS);
	/* read 2e8 bytes at 5e8 B/s */
	ck_assert_double_eq_tol(r->jobs[0].end, 2.4, EPS);
	dl_sim_result_free(r);
	dl_workload_destroy(wl);
}

END_TEST

/*
 * Peer fetch: job 1 (file f, 100 s of compute) runs on n0 and keeps f
 * there; job 2 needs f at t = 5.  With slack=0 the locality policy sends it
 * to the idle n1, which fetches f from n0 at the peer bandwidth 2e8 B/s:
 * [5, 5.5], then read 0.2 and compute 0.5: end 6.2, one peer hit.
 */
START_TEST(test_peer_fetch)
{
	dl_workload_t *wl = dl_workload_create("test");
	dl_sim_config_t c;
	dl_sim_result_t *r;
	uint32_t f = 0;

	ck_assert_int_eq(dl_workload_add_file(wl, "/x", 100000000, -1), 0);
	fx_sim_job(wl, 1, 0.0, 100.0, &f, 1);
	fx_sim_job(wl, 2, 5.0, 0.5, &f, 1);
	_cfg(&c, 2, 1, 1);
	c.policy_params = "slack=0";
	c.peer_fetch = 1;
	c.peer_bw = 2e8;
	r = fx_sim_run(&c, wl);
	ck_assert_int_eq(r->jobs[0].node, 0);
	ck_assert_int_eq(r->jobs[1].node, 1);
	ck_assert_double_eq_tol(r->jobs[1].end, 6.2, EPS);
	ck_assert_uint_eq(r->hit_peer, 1);
	ck_assert_uint_eq(r->peer_bytes, 100000000);
	ck_assert_uint_eq(r->remote_transfers, 1);
	dl_sim_result_free(r);

	/* Without peer fetch the file comes from storage: [5, 6], end 6.7. */
	c.peer_fetch = 0;
	r = fx_sim_run(&c, wl);
	ck_assert_double_eq_tol(r->jobs[1].end, 6.7, EPS);
	ck_assert_uint_eq(r->hit_peer, 0);
	dl_sim_result_free(r);
	dl_workload_destroy(wl);
}

END_TEST

/* A compute time < 0 is the cost model: cpb seconds per input byte. */
START_TEST(test_cost_model_compute)
{
	dl_workload_t *wl = dl_workload_create("test");
	dl_sim_config_t c;
	dl_sim_result_t *r;
	uint32_t f = 0;

	ck_assert_int_eq(dl_workload_add_file(wl, "/x", 100000000, -1), 0);
	fx_sim_job(wl, 1, 0.0, -1.0, &f, 1);
	_cfg(&c, 1, 1, 1);
	c.params.cpb = 1e-8; /* 1 s for 1e8 bytes */
	r = fx_sim_run(&c, wl);
	ck_assert_double_eq_tol(r->jobs[0].compute, 1.0, EPS);
	ck_assert_double_eq_tol(r->jobs[0].end, 1.0 + 0.2 + 1.0, EPS);
	dl_sim_result_free(r);
	dl_workload_destroy(wl);
}

END_TEST

/* ---------------------------------------------------------------------- */
/* The slurm dispatch (dispatch.h)                                        */

static void _add_job_cpus(dl_workload_t *wl, uint32_t id, double arrival,
			  double compute, uint32_t cpus, const uint32_t *files,
			  uint32_t n)
{
	dl_wl_job_t j = { 0 };

	j.id = id;
	j.arrival = arrival;
	j.compute = compute;
	j.cpus = cpus;
	j.files = (uint32_t *) files;
	j.nfiles = n;
	ck_assert_int_eq(dl_workload_add_job(wl, &j), 0);
}

/* A pending job of the fixture's state, priority prio, cpus slots. */
static size_t _pending(uint32_t id, uint64_t prio, uint32_t cpus)
{
	dl_job_t j = { 0 };
	int idx;

	j.id = id;
	j.state = DL_JOB_PENDING;
	j.cpus = cpus;
	j.priority = prio;
	j.arrival = id;
	j.compute = 1;
	j.node = -1;
	idx = dl_state_add_job(fx_state, &j);
	ck_assert_int_ge(idx, 0);
	return (size_t) idx;
}

static void _restrict(dl_place_t *rec, int32_t node)
{
	dl_place_init(rec);
	rec->node = node;
}

static int32_t _started_on(const dl_start_t *st, size_t n, size_t job)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (st[i].job == job)
			return (int32_t) st[i].node;
	return -1;
}

/*
 * Slurm's main scheduler on 3 nodes of 2 slots.  n0 has 1 slot left.
 * In priority order: A (2 slots, restricted to n0) cannot start, so n0 is
 * kept from the jobs after it: B (1 slot, restricted to n0) does not take
 * the slot A waits for; C (unrestricted) goes to the lowest free node, n1;
 * D (2 slots, restricted to n2) starts there, A did not block the queue.
 */
START_TEST(test_slurm_pass_required_nodes)
{
	dl_place_t ra, rb, rd, *rec[4];
	dl_start_t *starts = NULL;
	size_t n = 0, a, b, c, d;

	fx_setup(3, 2, NULL, DL_EVICT_VALUE);
	fx_state->nodes[0].busy = 1;
	/* Added out of priority order on purpose. */
	d = _pending(4, 0, 2);
	b = _pending(2, 2, 1);
	a = _pending(1, 3, 2);
	c = _pending(3, 1, 1);
	rec[a] = &ra;
	rec[b] = &rb;
	rec[c] = NULL;
	rec[d] = &rd;
	_restrict(&ra, 0);
	_restrict(&rb, 0);
	_restrict(&rd, 2);
	ck_assert_int_eq(dl_dispatch_slurm_pass(fx_state, rec, &starts, &n), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(_started_on(starts, n, a), -1);
	ck_assert_int_eq(_started_on(starts, n, b), -1);
	ck_assert_int_eq(_started_on(starts, n, c), 1);
	ck_assert_int_eq(_started_on(starts, n, d), 2);
	/* In priority order. */
	ck_assert_uint_eq(starts[0].job, c);
	free(starts);

	/* Without restrictions: priority order, lowest node with room: A n1
	 * (n0 has 1 slot), B n0, C n2; D fits nowhere and stops the pass. */
	ck_assert_int_eq(dl_dispatch_slurm_pass(fx_state, NULL, &starts, &n),
			 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_int_eq(_started_on(starts, n, a), 1);
	ck_assert_int_eq(_started_on(starts, n, b), 0);
	ck_assert_int_eq(_started_on(starts, n, c), 2);
	ck_assert_int_eq(_started_on(starts, n, d), -1);
	free(starts);
	ck_assert_int_eq(dl_dispatch_slurm_pass(NULL, rec, &starts, &n),
			 DL_EINVAL);
	fx_teardown();
}

END_TEST

/*
 * An unrestricted job that cannot start stops the pass (Slurm blocks its
 * partition): n0 full, n1 has 1 slot, n2 idle.  P (restricted to n2)
 * starts; Q (2 slots, unrestricted) fits nowhere now that n2 has 1 slot
 * left; R (restricted to n1, which has room) is not reached.
 */
START_TEST(test_slurm_pass_stops)
{
	dl_place_t rp, rr, *rec[3];
	dl_start_t *starts = NULL;
	size_t n = 0, p, r;

	fx_setup(3, 2, NULL, DL_EVICT_VALUE);
	fx_state->nodes[0].busy = 2;
	fx_state->nodes[1].busy = 1;
	p = _pending(1, 5, 1);
	(void) _pending(2, 4, 2);
	r = _pending(3, 3, 1);
	_restrict(&rp, 2);
	_restrict(&rr, 1);
	rec[p] = &rp;
	rec[1] = NULL;
	rec[r] = &rr;
	ck_assert_int_eq(dl_dispatch_slurm_pass(fx_state, rec, &starts, &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(_started_on(starts, n, p), 2);
	free(starts);
	fx_teardown();
}

END_TEST

/* The first bounded wait to end: bound - waited of a blocked job. */
START_TEST(test_slurm_expiry)
{
	dl_place_params_t pp;
	dl_place_t ra, rb, *rec[2] = { &ra, &rb };

	fx_setup(2, 1, NULL, DL_EVICT_VALUE);
	dl_place_params_default(&pp);
	(void) _pending(1, 0, 1);
	(void) _pending(2, 0, 1);
	_restrict(&ra, 0);
	_restrict(&rb, 1);
	/* Nobody blocked: both nodes have room. */
	ck_assert(isinf(dl_dispatch_place_expiry(fx_state, &pp, rec)));
	fx_state->nodes[0].busy = 1;
	ra.waited = 0.5;
	ck_assert_double_eq(dl_dispatch_place_expiry(fx_state, &pp, rec), 1.5);
	ra.waited = 7;
	ck_assert_double_eq(dl_dispatch_place_expiry(fx_state, &pp, rec), 0);
	pp.strict = 1;
	ck_assert(isinf(dl_dispatch_place_expiry(fx_state, &pp, rec)));
	fx_teardown();
}

END_TEST

START_TEST(test_dispatch_names)
{
	dl_dispatch_t d;

	ck_assert_int_eq(dl_dispatch_from_name("slurm", &d), 0);
	ck_assert_int_eq(d, DL_DISPATCH_SLURM);
	ck_assert_int_eq(dl_dispatch_from_name("plan", &d), 0);
	ck_assert_int_eq(d, DL_DISPATCH_PLAN);
	ck_assert_int_eq(dl_dispatch_from_name("fifo", &d), DL_EINVAL);
	ck_assert_str_eq(dl_dispatch_name(DL_DISPATCH_SLURM), "slurm");
	ck_assert_str_eq(dl_dispatch_name(DL_DISPATCH_PLAN), "plan");
	ck_assert_str_eq(dl_dispatch_name((dl_dispatch_t) 9), "?");
}

END_TEST

/*
 * Issue 30, item 4: under both dispatches dl-sim gives Online-HPS no
 * wall-clock deadline (timeout_ms=0) unless the user set one; other
 * policies get nothing of it.
 */
START_TEST(test_dispatch_no_deadline)
{
	char v[32], *pp;

	pp = dl_dispatch_policy_params(DL_DISPATCH_PLAN, "online-hps", NULL,
				       NULL);
	ck_assert_ptr_nonnull(pp);
	ck_assert_str_eq(pp, "timeout_ms=0");
	free(pp);
	pp = dl_dispatch_policy_params(DL_DISPATCH_SLURM, "online-hps",
				       "seed=3", NULL);
	ck_assert(dl_params_get(pp, "timeout_ms", v, sizeof(v)));
	ck_assert_str_eq(v, "0");
	ck_assert(dl_params_get(pp, "order", v, sizeof(v)));
	free(pp);
	pp = dl_dispatch_policy_params(DL_DISPATCH_PLAN, "online-hps",
				       "timeout_ms=700", NULL);
	ck_assert_str_eq(pp, "timeout_ms=700");
	free(pp);
	pp = dl_dispatch_policy_params(DL_DISPATCH_PLAN, "mct", "", NULL);
	ck_assert_str_eq(pp, "");
	free(pp);
}
END_TEST

/*
 * 2 nodes of 2 slots, file A of 1e8 bytes (1 s from storage); "locality"
 * with a large slack sends every job to A's node.
 *   job 1: 1 slot, A, 100 s of compute, at 0: n0, A there at 1, ends 101.2
 *   job 2: 2 slots, A, at 2: restricted to n0, which has 1 slot; n1 is
 *          free, so it is blocked, for at most max(2, 1e8 / 1e8) = 2 s
 *   job 3: 1 slot, A, at 3: restricted to n0 too; the slot there fits it
 *          but job 2 came first: n0 is kept for job 2
 * At 4 job 2's wait ends: it starts on n1, and job 3 on n0, not before.
 * Strict, job 2 waits for n0 until 101.2 and job 3 stays behind it.
 */
START_TEST(test_slurm_no_overtaking)
{
	dl_workload_t *wl = dl_workload_create("test");
	dl_sim_config_t c;
	dl_sim_result_t *r;
	uint32_t f = 0;

	ck_assert_int_eq(dl_workload_add_file(wl, "/a", 100000000, -1), 0);
	_add_job_cpus(wl, 1, 0.0, 100.0, 1, &f, 1);
	_add_job_cpus(wl, 2, 2.0, 10.0, 2, &f, 1);
	_add_job_cpus(wl, 3, 3.0, 10.0, 1, &f, 1);
	_cfg(&c, 2, 2, 1);
	c.policy_params = "slack=100";
	r = fx_sim_run(&c, wl);
	ck_assert_uint_eq(r->completed, 3);
	ck_assert_int_eq(r->jobs[0].node, 0);
	ck_assert_int_eq(r->jobs[1].node, 1);
	ck_assert_double_eq_tol(r->jobs[1].dispatch, 4.0, 1e-6);
	ck_assert_int_eq(r->jobs[2].node, 0);
	ck_assert_double_eq_tol(r->jobs[2].dispatch, 4.0, 1e-6);
	ck_assert_uint_eq(r->place.widened, 1);
	ck_assert_uint_eq(r->place.set, 3);
	ck_assert_str_eq(r->dispatch, "slurm");
	dl_sim_result_free(r);

	c.place.strict = 1;
	r = fx_sim_run(&c, wl);
	ck_assert_uint_eq(r->completed, 3);
	ck_assert_int_eq(r->jobs[1].node, 0);
	ck_assert_double_eq_tol(r->jobs[1].dispatch, 101.2, 1e-6);
	ck_assert_int_eq(r->jobs[2].node, 0);
	ck_assert(r->jobs[2].dispatch >= r->jobs[1].end - 1e-9);
	ck_assert_uint_eq(r->place.widened, 0);
	dl_sim_result_free(r);
	dl_workload_destroy(wl);
}

END_TEST

/*
 * 2 nodes of 1 slot, one storage node.  Job 1 reads A (5e8 bytes: 5 s)
 * and computes 100 s on n0: A there at 5, ends 5 + 1 + 100 = 106.  Job 2
 * reads A at 10: restricted to n0, blocked (n1 idle), bound 5e8 / 1e8 =
 * 5 s.  Job 3 reads C (1e7 bytes) at 12 and runs on n1 until 12 + 0.1 +
 * 0.02 + 0.5 = 12.62: meanwhile job 2 is not blocked (no other room) and
 * its wait stops.  Job 2 waited 2 s before, so 3 s more after 12.62: it
 * starts on n1 at 15.62, not at 15, and not at the next event (106).
 */
START_TEST(test_slurm_bounded_wait)
{
	dl_workload_t *wl = dl_workload_create("test");
	dl_sim_config_t c;
	dl_sim_result_t *r;
	dl_metrics_t m;
	uint32_t fa = 0, fc = 1;

	ck_assert_int_eq(dl_workload_add_file(wl, "/a", 500000000, -1), 0);
	ck_assert_int_eq(dl_workload_add_file(wl, "/c", 10000000, -1), 1);
	fx_sim_job(wl, 1, 0.0, 100.0, &fa, 1);
	fx_sim_job(wl, 2, 10.0, 1.0, &fa, 1);
	fx_sim_job(wl, 3, 12.0, 0.5, &fc, 1);
	_cfg(&c, 2, 1, 1);
	c.policy_params = "slack=100";
	r = fx_sim_run(&c, wl);
	ck_assert_uint_eq(r->completed, 3);
	ck_assert_int_eq(r->jobs[2].node, 1);
	ck_assert_double_eq_tol(r->jobs[2].end, 12.62, 1e-9);
	ck_assert_int_eq(r->jobs[1].node, 1);
	ck_assert_double_eq_tol(r->jobs[1].dispatch, 15.62, 1e-5);
	ck_assert(r->jobs[1].dispatch >= 15.62 - 1e-9);
	ck_assert_uint_eq(r->jobs[1].miss, 1);
	ck_assert_uint_eq(r->place.widened, 1);
	ck_assert_int_eq(dl_metrics_compute(r, &m), 0);
	ck_assert_uint_eq(m.widened, 1);
	ck_assert_uint_eq(m.restricted, 3);
	dl_sim_result_free(r);

	/* The bound's parameters: capped at 1 s, 2 s from 10 then the 1 s
	 * floor... min 0.5, max 1: widened at 11, before job 3 comes. */
	c.place.min_wait = 0.5;
	c.place.max_wait = 1;
	r = fx_sim_run(&c, wl);
	ck_assert_double_eq_tol(r->jobs[1].dispatch, 11.0, 1e-5);
	ck_assert_int_eq(r->jobs[1].node, 1);
	dl_sim_result_free(r);

	/* Strict: it waits for n0 and finds A there. */
	dl_place_params_default(&c.place);
	c.place.strict = 1;
	r = fx_sim_run(&c, wl);
	ck_assert_int_eq(r->jobs[1].node, 0);
	ck_assert_double_eq_tol(r->jobs[1].dispatch, 106.0, 1e-9);
	ck_assert_uint_eq(r->jobs[1].hit_local, 1);
	ck_assert_uint_eq(r->place.widened, 0);
	dl_sim_result_free(r);

	/* The paper's dispatch: the plan holds job 2 on n0 as well. */
	c.dispatch = DL_DISPATCH_PLAN;
	r = fx_sim_run(&c, wl);
	ck_assert_int_eq(r->jobs[1].node, 0);
	ck_assert_double_eq_tol(r->jobs[1].dispatch, 106.0, 1e-9);
	ck_assert_str_eq(r->dispatch, "plan");
	ck_assert_uint_eq(r->place.set, 0);
	dl_sim_result_free(r);
	dl_workload_destroy(wl);
}

END_TEST

/*
 * Plans at most every 10 s.  Job 1 is planned at 0 and runs 100 s on n0.
 * Job 2 (a file) comes at 1, when only the last plan may be carried over:
 * it has not been placed, so it is held back, as the plugin's job_submit
 * does, until the plan due at 10, although n1 is idle.  Job 3 (no file,
 * nothing to place) comes at 2 and starts at once on n1, ending at 3.
 */
START_TEST(test_slurm_carried_holds_new_jobs)
{
	dl_workload_t *wl = dl_workload_create("test");
	dl_sim_config_t c;
	dl_sim_result_t *r;
	uint32_t fa = 0, fb = 1;

	ck_assert_int_eq(dl_workload_add_file(wl, "/a", 100000000, -1), 0);
	ck_assert_int_eq(dl_workload_add_file(wl, "/b", 100000000, -1), 1);
	fx_sim_job(wl, 1, 0.0, 100.0, &fa, 1);
	fx_sim_job(wl, 2, 1.0, 1.0, &fb, 1);
	fx_sim_job(wl, 3, 2.0, 1.0, NULL, 0);
	_cfg(&c, 2, 1, 1);
	c.replan_min_interval = 10;
	r = fx_sim_run(&c, wl);
	ck_assert_uint_eq(r->completed, 3);
	ck_assert_int_eq(r->jobs[2].node, 1);
	ck_assert_double_eq_tol(r->jobs[2].dispatch, 2.0, EPS);
	ck_assert_int_eq(r->jobs[1].node, 1);
	ck_assert_double_eq_tol(r->jobs[1].dispatch, 10.0, EPS);
	ck_assert_uint_gt(r->carried, 0);
	dl_sim_result_free(r);
	dl_workload_destroy(wl);
}

END_TEST

START_TEST(test_slurm_bad_params)
{
	dl_workload_t *wl = _biomed(10, 0.85, 1, 1, 2);
	dl_sim_config_t c;
	dl_sim_result_t *r = NULL;
	char err[256];

	_cfg(&c, 2, 1, 2);
	c.place.max_wait = 1;
	c.place.min_wait = 2;
	ck_assert_int_eq(dl_sim_run(&c, wl, &r, err, sizeof(err)), DL_EINVAL);
	ck_assert_ptr_null(r);
	ck_assert_ptr_nonnull(strstr(err, "max_wait"));
	dl_place_params_default(&c.place);
	c.place.hysteresis = NAN;
	ck_assert_int_eq(dl_sim_run(&c, wl, &r, err, sizeof(err)), DL_EINVAL);
	dl_place_params_default(&c.place);
	c.dispatch = (dl_dispatch_t) 7;
	ck_assert_int_eq(dl_sim_run(&c, wl, &r, err, sizeof(err)), DL_EINVAL);
	dl_workload_destroy(wl);
}

END_TEST

/* ---------------------------------------------------------------------- */
/* Whole runs                                                             */

static void _assert_same(const dl_sim_result_t *a, const dl_sim_result_t *b)
{
	ck_assert_uint_eq(a->njobs, b->njobs);
	ck_assert_int_eq(memcmp(a->jobs, b->jobs, a->njobs * sizeof(*a->jobs)),
			 0);
	ck_assert_uint_eq(a->accesses, b->accesses);
	ck_assert_uint_eq(a->hit_local, b->hit_local);
	ck_assert_uint_eq(a->hit_peer, b->hit_peer);
	ck_assert_uint_eq(a->miss, b->miss);
	ck_assert_uint_eq(a->remote_bytes, b->remote_bytes);
	ck_assert_uint_eq(a->evictions, b->evictions);
	ck_assert_uint_eq(a->plans, b->plans);
	ck_assert_uint_eq(a->events, b->events);
}

START_TEST(test_determinism)
{
	dl_workload_t *w1 = _biomed(300, 0.85, 0, 42, 4);
	dl_workload_t *w2 = _biomed(300, 0.85, 0, 42, 4);
	dl_sim_config_t c;
	dl_sim_result_t *r1, *r2;
	size_t i;

	/* Same seed, same workload. */
	ck_assert_uint_eq(w1->njobs, w2->njobs);
	ck_assert_uint_eq(w1->nfiles, w2->nfiles);
	for (i = 0; i < w1->njobs; i++) {
		ck_assert_double_eq(w1->jobs[i].arrival, w2->jobs[i].arrival);
		ck_assert_uint_eq(w1->jobs[i].nfiles, w2->jobs[i].nfiles);
		ck_assert_int_eq(memcmp(w1->jobs[i].files, w2->jobs[i].files,
					w1->jobs[i].nfiles * sizeof(uint32_t)),
				 0);
	}
	_cfg(&c, 4, 2, 4);
	c.cache_bytes = 1ULL << 30;
	c.eviction = DL_EVICT_RANDOM;
	c.peer_fetch = 1;
	c.seed = 9;
	r1 = fx_sim_run(&c, w1);
	r2 = fx_sim_run(&c, w2);
	_assert_same(r1, r2);
	dl_sim_result_free(r1);
	dl_sim_result_free(r2);
	dl_workload_destroy(w1);
	dl_workload_destroy(w2);
}

END_TEST

/*
 * Every job completes exactly once; every access is a local hit, a peer
 * hit or a miss; transferred bytes are the sizes of the misses (all files
 * of the diffusion workload have the same size); per-job counts add up.
 */
START_TEST(test_conservation)
{
	dl_wl_diffusion_opts_t o;
	dl_workload_t *wl;
	dl_sim_config_t c;
	dl_sim_result_t *r;
	uint64_t acc = 0, miss = 0, peer = 0, local = 0, rb = 0;
	size_t i;

	dl_wl_diffusion_opts_default(&o);
	o.jobs = 3000;
	o.files = 500;
	o.rate_start = 20;
	o.rate_max = 200;
	o.rate_interval = 5;
	o.access.pattern = DL_WL_PATTERN_ZIPF;
	wl = dl_workload_gen_diffusion(&o, 3);
	ck_assert_ptr_nonnull(wl);
	ck_assert_uint_eq(wl->njobs, 3000);
	_cfg(&c, 8, 2, 2);
	c.cache_bytes = 400 * MB;
	c.eviction = DL_EVICT_LRU;
	c.peer_fetch = 1;
	/* Peers faster than storage: a file cached elsewhere comes from there. */
	c.params.rbw = 2e8;
	c.peer_bw = 1e9;
	r = fx_sim_run(&c, wl);
	ck_assert_uint_eq(r->completed, wl->njobs);
	for (i = 0; i < r->njobs; i++) {
		const dl_sim_job_t *j = &r->jobs[i];

		ck_assert_uint_eq(j->completions, 1);
		ck_assert_uint_eq(j->hit_local + j->hit_peer + j->miss,
				  j->nfiles);
		ck_assert(j->arrival <= j->dispatch + EPS);
		ck_assert(j->dispatch <= j->start + EPS);
		ck_assert(j->start <= j->staged + EPS);
		ck_assert(j->staged <= j->end + EPS);
		acc += j->nfiles;
		miss += j->miss;
		peer += j->hit_peer;
		local += j->hit_local;
		rb += j->bytes_remote;
	}
	ck_assert_uint_eq(r->accesses, acc);
	ck_assert_uint_eq(r->hit_local + r->hit_peer + r->miss, r->accesses);
	ck_assert_uint_eq(r->miss, miss);
	ck_assert_uint_eq(r->hit_peer, peer);
	ck_assert_uint_eq(r->hit_local, local);
	ck_assert_uint_eq(r->remote_transfers, r->miss);
	ck_assert_uint_eq(r->remote_bytes, rb);
	ck_assert_uint_eq(r->remote_bytes, r->miss * o.file_size);
	ck_assert_uint_eq(r->peer_bytes, r->hit_peer * o.file_size);
	ck_assert_uint_gt(r->hit_peer, 0);
	ck_assert_uint_gt(r->hit_local, 0);
	ck_assert_uint_eq(r->capacity_violations, 0);
	dl_sim_result_free(r);
	dl_workload_destroy(wl);
}

END_TEST

/* A small cache under every eviction policy: never over capacity. */
START_TEST(test_capacity_never_exceeded)
{
	static const dl_evict_t ev[] = { DL_EVICT_VALUE, DL_EVICT_LRU,
					 DL_EVICT_LFU, DL_EVICT_FIFO,
					 DL_EVICT_RANDOM };
	dl_workload_t *wl = _biomed(400, 0.40, 1, 5, 4);
	dl_sim_config_t c;
	size_t i;

	for (i = 0; i < sizeof(ev) / sizeof(*ev); i++) {
		dl_sim_result_t *r;

		_cfg(&c, 4, 2, 4);
		/* Below a 10-CT job (640 MiB): some files cannot be cached. */
		c.cache_bytes = 300 * MB;
		c.eviction = ev[i];
		c.peer_fetch = (int) (i & 1);
		r = fx_sim_run(&c, wl);
		ck_assert_uint_eq(r->completed, wl->njobs);
		ck_assert_uint_eq(r->capacity_violations, 0);
		ck_assert_uint_le(r->peak_cache_bytes, c.cache_bytes);
		ck_assert_uint_gt(r->evictions, 0);
		ck_assert_uint_eq(r->hit_local + r->hit_peer + r->miss,
				  r->accesses);
		dl_sim_result_free(r);
	}
	dl_workload_destroy(wl);
}

END_TEST

/* Any registered policy drives the simulator to the end, both ways. */
START_TEST(test_every_policy)
{
	const dl_policy_ops_t *const *o;
	dl_workload_t *wl = _biomed(60, 0.85, 1, 11, 2);
	int d;

	for (o = dl_policy_list(); *o; o++)
		for (d = DL_DISPATCH_SLURM; d <= DL_DISPATCH_PLAN; d++) {
			dl_sim_config_t c;
			dl_sim_result_t *r;

			_cfg(&c, 2, 1, 2);
			c.policy = (*o)->name;
			c.dispatch = (dl_dispatch_t) d;
			r = fx_sim_run(&c, wl);
			ck_assert_msg(r->completed == wl->njobs,
				      "%s, %s: %zu of %zu", (*o)->name,
				      dl_dispatch_name(c.dispatch),
				      r->completed, wl->njobs);
			ck_assert_uint_gt(r->plans, 0);
			dl_sim_result_free(r);
		}
	dl_workload_destroy(wl);
}

END_TEST

START_TEST(test_unknown_policy)
{
	dl_workload_t *wl = _biomed(10, 0.85, 1, 1, 2);
	dl_sim_config_t c;
	dl_sim_result_t *r = NULL;
	char err[256];

	_cfg(&c, 2, 1, 2);
	c.policy = "no-such-policy";
	ck_assert_int_eq(dl_sim_run(&c, wl, &r, err, sizeof(err)),
			 DL_ENOPOLICY);
	ck_assert_ptr_null(r);
	ck_assert_ptr_nonnull(strstr(err, "no-such-policy"));
	dl_workload_destroy(wl);
}

END_TEST

/* A minimum re-plan interval plans less and still finishes everything. */
START_TEST(test_replan_interval_and_window)
{
	dl_workload_t *wl = _biomed(300, 0.85, 1, 8, 4);
	dl_sim_config_t c;
	dl_sim_result_t *r0, *r1, *r2;

	_cfg(&c, 4, 1, 4);
	r0 = fx_sim_run(&c, wl);
	c.replan_min_interval = 5.0;
	r1 = fx_sim_run(&c, wl);
	ck_assert_uint_eq(r1->completed, wl->njobs);
	ck_assert_uint_lt(r1->plans, r0->plans);
	ck_assert_uint_gt(r1->carried, 0);
	c.replan_min_interval = 0;
	c.window = 3;
	r2 = fx_sim_run(&c, wl);
	ck_assert_uint_eq(r2->completed, wl->njobs);
	dl_sim_result_free(r0);
	dl_sim_result_free(r1);
	dl_sim_result_free(r2);
	dl_workload_destroy(wl);
}

END_TEST

/* ---------------------------------------------------------------------- */
/* Workloads                                                              */

START_TEST(test_biomed_targets)
{
	static const double target[] = { 0.85, 0.40, 0.10 };
	size_t t;
	int clustered;

	for (t = 0; t < 3; t++)
		for (clustered = 0; clustered <= 1; clustered++) {
			dl_wl_biomed_opts_t o;
			dl_workload_t *wl;
			dl_wl_stats_t st;

			dl_wl_biomed_opts_default(&o);
			o.jobs = 1000;
			o.overlap = target[t];
			o.clustered = clustered;
			wl = dl_workload_gen_biomed(&o, 100 + t);
			ck_assert_ptr_nonnull(wl);
			dl_workload_stats(wl, &st);
			ck_assert_uint_eq(st.jobs, 1000);
			ck_assert_msg(fabs(st.files_mean - 6.0) < 0.2,
				      "mean files %.3f", st.files_mean);
			ck_assert_uint_ge(st.files_min, 4);
			ck_assert_uint_le(st.files_max, 10);
			ck_assert_msg(fabs(st.overlap - target[t]) < 0.01,
				      "overlap %.4f, target %.2f", st.overlap,
				      target[t]);
			/* Every file of the table is used; sizes 4 or 64 MB. */
			ck_assert_uint_eq(st.files_used, st.files);
			ck_assert(wl->files[0].size == 4 * MB ||
				  wl->files[0].size == 64 * MB);
			dl_workload_destroy(wl);
		}
}

END_TEST

/* A job reads one patient's images; clustered puts a patient's jobs
 * together, random does not. */
START_TEST(test_biomed_order)
{
	dl_workload_t *c = _biomed(500, 0.85, 1, 4, 4);
	dl_workload_t *r = _biomed(500, 0.85, 0, 4, 4);
	size_t i, same_c = 0, same_r = 0;

	for (i = 1; i < c->njobs; i++) {
		/* Paths start with /data/biomed/pNNNN/ */
		same_c += !strncmp(c->files[c->jobs[i].files[0]].path,
				   c->files[c->jobs[i - 1].files[0]].path, 18);
		same_r += !strncmp(r->files[r->jobs[i].files[0]].path,
				   r->files[r->jobs[i - 1].files[0]].path, 18);
	}
	ck_assert_uint_gt(same_c, 400);
	ck_assert_uint_lt(same_r, 100);
	for (i = 0; i < c->njobs; i++) {
		uint32_t k;

		for (k = 1; k < c->jobs[i].nfiles; k++)
			ck_assert_int_eq(strncmp(c->files[c->jobs[i].files[k]]
							 .path,
						 c->files[c->jobs[i].files[0]]
							 .path,
						 18),
					 0);
	}
	dl_workload_destroy(c);
	dl_workload_destroy(r);
}

END_TEST

/*
 * Arrivals from the load (eqs. 9-11): the last arrival is AvgExecTime * N
 * / (slots * load), the first is 0, and doubling the load halves it.
 */
START_TEST(test_arrivals_load)
{
	static const dl_wl_arrivals_t model[] = { DL_WL_ARRIVALS_POISSON,
						  DL_WL_ARRIVALS_LUBLIN };
	dl_wl_biomed_opts_t o;
	dl_wl_platform_t pf;
	dl_workload_t *wl;
	double *est, avg = 0, tl1, tl2;
	size_t i, m;

	dl_wl_biomed_opts_default(&o);
	o.jobs = 400;
	wl = dl_workload_gen_biomed(&o, 1);
	ck_assert_ptr_nonnull(wl);
	pf.nodes = 4;
	pf.slots = 8;
	dl_params_default(&pf.params);
	est = malloc(wl->njobs * sizeof(*est));
	ck_assert_int_eq(dl_workload_est_exec(wl, &pf, est), 0);
	for (i = 0; i < wl->njobs; i++) {
		ck_assert(est[i] > 0);
		avg += est[i];
	}
	avg /= (double) wl->njobs;
	for (m = 0; m < 2; m++) {
		dl_wl_arrival_opts_t a;

		dl_wl_arrival_opts_default(&a);
		a.model = model[m];
		ck_assert_int_eq(dl_workload_set_arrivals(wl, &pf, &a, 3, &tl1),
				 0);
		ck_assert_double_eq_tol(tl1, avg * 400 / 8, 1e-6);
		ck_assert_double_eq_tol(wl->jobs[0].arrival, 0, EPS);
		ck_assert_double_eq_tol(wl->jobs[399].arrival, tl1, 1e-9);
		for (i = 1; i < wl->njobs; i++)
			ck_assert(wl->jobs[i].arrival >=
				  wl->jobs[i - 1].arrival);
		a.load = 2.0;
		ck_assert_int_eq(dl_workload_set_arrivals(wl, &pf, &a, 3, &tl2),
				 0);
		ck_assert_double_eq_tol(tl2, tl1 / 2, 1e-9);
	}
	free(est);
	dl_workload_destroy(wl);
}

END_TEST

/* data-diffusion-raicu §5.2: 1 task/s for 60 s, then 2, 3, 4, 6, 8, ... */
START_TEST(test_diffusion_rates)
{
	dl_wl_diffusion_opts_t o;
	dl_workload_t *wl;
	dl_wl_stats_t st;
	size_t i, first = 0;

	dl_wl_diffusion_opts_default(&o);
	o.jobs = 60 + 120 + 180 + 240 + 10;
	wl = dl_workload_gen_diffusion(&o, 1);
	ck_assert_ptr_nonnull(wl);
	dl_workload_stats(wl, &st);
	ck_assert_uint_eq(st.jobs, o.jobs);
	ck_assert_uint_eq(st.files, 10000);
	ck_assert_double_eq(st.files_mean, 1.0);
	for (i = 0; i < wl->njobs; i++)
		first += wl->jobs[i].arrival < 60.0;
	ck_assert_uint_eq(first, 60);
	ck_assert_double_eq_tol(wl->jobs[60].arrival, 60.0, EPS);
	ck_assert_double_eq_tol(wl->jobs[61].arrival, 60.5, EPS);
	ck_assert_double_eq_tol(wl->jobs[180].arrival, 120.0, EPS);
	ck_assert_double_eq_tol(wl->jobs[181].arrival, 120.0 + 1.0 / 3, EPS);
	/* then 4 tasks/s (ceil(3 * 1.3)) and 6 tasks/s (ceil(4 * 1.3)) */
	ck_assert_double_eq_tol(wl->jobs[361].arrival, 180.25, EPS);
	ck_assert_double_eq_tol(wl->jobs[601].arrival, 240.0 + 1.0 / 6, EPS);
	ck_assert_double_eq(wl->jobs[0].compute, 0.010);
	ck_assert_uint_eq(wl->files[0].size, 10 * MB);
	dl_workload_destroy(wl);
}

END_TEST

static double _top_share(dl_wl_pattern_t p, uint32_t *first_file)
{
	dl_wl_diffusion_opts_t o;
	dl_workload_t *wl;
	uint32_t *count;
	size_t i, best = 0;
	double share;

	dl_wl_diffusion_opts_default(&o);
	o.jobs = 5000;
	o.files = 1000;
	o.access.pattern = p;
	wl = dl_workload_gen_diffusion(&o, 2);
	ck_assert_ptr_nonnull(wl);
	count = calloc(o.files, sizeof(*count));
	for (i = 0; i < wl->njobs; i++)
		count[wl->jobs[i].files[0]]++;
	for (i = 0; i < o.files; i++)
		if (count[i] > count[best])
			best = i;
	*first_file = wl->jobs[1].files[0];
	share = (double) count[best] / 5000.0;
	free(count);
	dl_workload_destroy(wl);
	return share;
}

/* hjs-mansouri §4.1: sequential, Gaussian random walk, Zipf. */
START_TEST(test_access_patterns)
{
	dl_wl_diffusion_opts_t o;
	dl_workload_t *wl;
	double share;
	uint32_t f;
	size_t i, near = 0;

	dl_wl_diffusion_opts_default(&o);
	o.jobs = 2500;
	o.files = 1000;
	o.access.pattern = DL_WL_PATTERN_SEQUENTIAL;
	wl = dl_workload_gen_diffusion(&o, 1);
	for (i = 0; i < wl->njobs; i++)
		ck_assert_uint_eq(wl->jobs[i].files[0], i % 1000);
	dl_workload_destroy(wl);

	o.access.pattern = DL_WL_PATTERN_GAUSSIAN;
	o.access.sigma = 5;
	wl = dl_workload_gen_diffusion(&o, 1);
	for (i = 1; i < wl->njobs; i++) {
		long d = labs((long) wl->jobs[i].files[0] -
			      (long) wl->jobs[i - 1].files[0]);

		near += d <= 15 || d >= 985; /* within 3 sigma, wrapping */
	}
	ck_assert_uint_gt(near, 2480);
	dl_workload_destroy(wl);

	/* Zipf S = 1 over 1000 items: rank 1 has 1 / H(1000) = 13.4%. */
	share = _top_share(DL_WL_PATTERN_ZIPF, &f);
	ck_assert_msg(share > 0.11 && share < 0.16, "zipf top %.3f", share);
	share = _top_share(DL_WL_PATTERN_UNIFORM, &f);
	ck_assert_msg(share < 0.01, "uniform top %.3f", share);
}

END_TEST

static void _count_msg(const char *msg, void *arg)
{
	if (getenv("CHECK_SIM_VERBOSE"))
		fprintf(stderr, "diag: %s\n", msg);
	(*(int *) arg)++;
}

START_TEST(test_swf_parser)
{
	static const char trace[] =
		"; Version: 2\n"
		";   a comment with fields 1 2 3 4 5\n"
		"\n"
		"1 0 5 100 1 -1 -1 1 -1 -1 1 1 1 1 1 -1 -1 -1\n"
		"2 10 -1 -1 4 -1 -1 4 -1 -1 1 1 1 1 1 -1 -1 -1\n"
		"garbage line here\n"
		"3 abc 1 2 3\n"
		"4 20 0 50\n"
		"   5   30 0 60 -1 -1 -1 2\n"
		"1 40 0 10 1\n"
		"6 25 0 1 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15\n";
	static const char files[] = "# job path[,path] [size]\n"
				    "1 /data/a,/data/b 4M\n"
				    "1 /data/c\n"
				    "5 /data/a\n"
				    "5 /data/b 8M\n"
				    "9 /data/z 1M\n"
				    "bad\n"
				    "2 /x 12Q\n"
				    "2 /y 1K extra\n";
	FILE *t = fmemopen((void *) trace, sizeof(trace) - 1, "r");
	FILE *f = fmemopen((void *) files, sizeof(files) - 1, "r");
	dl_wl_diag_t diag = { 0 };
	dl_workload_t *wl;
	int msgs = 0;
	int64_t a, b, c;

	diag.fn = _count_msg;
	diag.arg = &msgs;
	wl = dl_workload_read_swf(t, f, 64 * MB, 2, &diag);
	fclose(t);
	fclose(f);
	ck_assert_ptr_nonnull(wl);
	/* Malformed: garbage, "3 abc", "4 20 0 50" (4 fields), the repeated
	 * job 1, 19 fields; in the files list "bad", "12Q", extra field;
	 * job 2, which no good line of the files list names. */
	ck_assert_uint_eq(diag.bad_lines, 9);
	/* Warnings: job 2 cut from 4 to 2 processors, job 9 unknown, the
	 * second size of /data/b. */
	ck_assert_uint_eq(diag.warnings, 3);
	ck_assert_int_eq(msgs, 12);
	ck_assert_uint_eq(wl->njobs, 3);
	/* Sorted by submit time: 1 (0), 2 (10), 5 (30). */
	ck_assert_uint_eq(wl->jobs[0].id, 1);
	ck_assert_uint_eq(wl->jobs[1].id, 2);
	ck_assert_uint_eq(wl->jobs[2].id, 5);
	ck_assert_double_eq(wl->jobs[1].arrival, 10);
	ck_assert_double_eq(wl->jobs[0].compute, 100);
	ck_assert_double_lt(wl->jobs[1].compute, 0); /* run time -1 */
	ck_assert_uint_eq(wl->jobs[1].cpus, 2);
	ck_assert_uint_eq(wl->jobs[2].cpus, 2); /* requested processors */
	a = dl_workload_find_file(wl, "/data/a");
	b = dl_workload_find_file(wl, "/data/b");
	c = dl_workload_find_file(wl, "/data/c");
	ck_assert_int_ge(a, 0);
	ck_assert_int_ge(b, 0);
	ck_assert_int_ge(c, 0);
	ck_assert_uint_eq(wl->files[a].size, 4 * MB);
	ck_assert_uint_eq(wl->files[b].size, 4 * MB);
	ck_assert_uint_eq(wl->files[c].size, 64 * MB); /* default */
	ck_assert_int_eq(dl_workload_find_file(wl, "/data/z"), DL_ENOENT);
	ck_assert_uint_eq(wl->jobs[0].nfiles, 3);
	ck_assert_uint_eq(wl->jobs[1].nfiles, 0);
	ck_assert_uint_eq(wl->jobs[2].nfiles, 2);
	dl_workload_destroy(wl);

	/* Nothing usable: NULL, and said why. */
	t = fmemopen((void *) "; only comments\nx y\n", 20, "r");
	memset(&diag, 0, sizeof(diag));
	ck_assert_ptr_null(dl_workload_read_swf(t, NULL, 1, 1, &diag));
	ck_assert_uint_eq(diag.bad_lines, 1);
	fclose(t);
}

END_TEST

/* Written and read back, a workload gives the very same run. */
START_TEST(test_workload_roundtrip)
{
	dl_workload_t *w1 = _biomed(200, 0.40, 0, 13, 4), *w2;
	dl_wl_diag_t diag = { 0 };
	dl_sim_config_t c;
	dl_sim_result_t *r1, *r2;
	FILE *f = tmpfile();
	size_t i;

	ck_assert_ptr_nonnull(f);
	w1->files[3].storage = 2;
	ck_assert_int_eq(dl_workload_write(w1, f, "test\nsecond line"), 0);
	rewind(f);
	w2 = dl_workload_read(f, &diag);
	fclose(f);
	ck_assert_ptr_nonnull(w2);
	ck_assert_uint_eq(diag.bad_lines, 0);
	ck_assert_uint_eq(w2->njobs, w1->njobs);
	ck_assert_uint_eq(w2->nfiles, w1->nfiles);
	ck_assert_int_eq(w2->files[3].storage, 2);
	ck_assert_int_eq(w2->files[4].storage, DL_WL_STORAGE_RR);
	for (i = 0; i < w1->nfiles; i++) {
		ck_assert_str_eq(w1->files[i].path, w2->files[i].path);
		ck_assert_uint_eq(w1->files[i].size, w2->files[i].size);
	}
	for (i = 0; i < w1->njobs; i++) {
		ck_assert_uint_eq(w1->jobs[i].id, w2->jobs[i].id);
		ck_assert_double_eq(w1->jobs[i].arrival, w2->jobs[i].arrival);
		ck_assert_double_eq(w1->jobs[i].compute, w2->jobs[i].compute);
	}
	_cfg(&c, 4, 1, 4);
	r1 = fx_sim_run(&c, w1);
	r2 = fx_sim_run(&c, w2);
	_assert_same(r1, r2);
	dl_sim_result_free(r1);
	dl_sim_result_free(r2);
	dl_workload_destroy(w1);
	dl_workload_destroy(w2);
}

END_TEST

START_TEST(test_workload_read_malformed)
{
	static const char text[] = "# comment\n"
				   "file 0 4M - /a\n"
				   "file 2 4M - /skipped-index\n"
				   "file 1 4M 1 /b\n"
				   "job 1 0.5 - 1 0,1\n"
				   "job 2 0.7 1.5 1 0,7\n"
				   "job 3 x - 1 -\n"
				   "job 4 1.0 - 1 -\n"
				   "what\n";
	FILE *f = fmemopen((void *) text, sizeof(text) - 1, "r");
	dl_wl_diag_t diag = { 0 };
	dl_workload_t *wl = dl_workload_read(f, &diag);

	fclose(f);
	ck_assert_ptr_nonnull(wl);
	ck_assert_uint_eq(diag.bad_lines, 4);
	ck_assert_uint_eq(wl->nfiles, 2);
	ck_assert_uint_eq(wl->njobs, 2);
	ck_assert_uint_eq(wl->jobs[0].nfiles, 2);
	ck_assert_uint_eq(wl->jobs[1].nfiles, 0);
	dl_workload_destroy(wl);
}

END_TEST

/* Every problem's message, one per line, for the tests to search. */
typedef struct {
	char text[4096];
	size_t len;
} _msgs_t;

static void _keep_msg(const char *msg, void *arg)
{
	_msgs_t *m = arg;

	if (m->len < sizeof(m->text))
		m->len += (size_t) snprintf(m->text + m->len,
					    sizeof(m->text) - m->len, "%s\n",
					    msg);
}

/* Bad records of the simulator's own format: each refused, with its line
 * and what was wrong. */
START_TEST(test_workload_read_rejects)
{
	static const char text[] = "file 0 4M - /a\n"          /* 1 */
				   "job 1 0.5 - 1 0\n"         /* 2 */
				   "job 1 0.7 - 1 0\n"         /* 3 dup */
				   "job 2 -1 - 1 0\n"          /* 4 */
				   "job 3 1e300 - 1 0\n"       /* 5 */
				   "job 4 1.0 -5 1 0\n"        /* 6 */
				   "job 5 1.0 1e12 1 0\n"      /* 7 */
				   "# comment\n"               /* 8 */
				   "job 6 1e9 0 1 -\n"         /* 9 ok */
				   "job 7 2.0 0 1 0\n";        /* 10 ok */
	FILE *f = fmemopen((void *) text, sizeof(text) - 1, "r");
	dl_wl_diag_t diag = { 0 };
	_msgs_t m = { .len = 0 };
	dl_workload_t *wl;

	diag.fn = _keep_msg;
	diag.arg = &m;
	wl = dl_workload_read(f, &diag);
	fclose(f);
	ck_assert_ptr_nonnull(wl);
	ck_assert_uint_eq(diag.bad_lines, 5);
	ck_assert_uint_eq(wl->njobs, 3); /* 1 (first), 6, 7 */
	ck_assert_ptr_nonnull(
		strstr(m.text, "workload line 3: job 1 repeated (first on line 2)"));
	ck_assert_ptr_nonnull(strstr(
		m.text, "workload line 4: job 2: arrival '-1' is not in [0, 1e+09] s"));
	ck_assert_ptr_nonnull(strstr(
		m.text, "workload line 5: job 3: arrival '1e300' is not in"));
	ck_assert_ptr_nonnull(strstr(
		m.text, "workload line 6: job 4: compute '-5' is not in [0, 1e+09] s"));
	ck_assert_ptr_nonnull(
		strstr(m.text, "workload line 7: job 5: compute '1e12'"));
	dl_workload_destroy(wl);
}

END_TEST

/*
 * Issue 30, item 6: a negative size is reported as such, once (the later
 * records are not "out of order"); a job naming a bad record's file is
 * refused; an empty element of a file list ("1,", "1,,2", ",1") is
 * refused; a size that takes the files' total past 2^64 is refused.
 */
START_TEST(test_workload_read_gaps)
{
	static const char text[] = "file 0 -5 - /neg\n"            /* 1 */
				   "file 1 4M - /a\n"              /* 2 ok */
				   "file 2 4M - /b\n"              /* 3 ok */
				   "job 1 0.5 - 1 1,\n"            /* 4 */
				   "job 2 0.5 - 1 1,,2\n"          /* 5 */
				   "job 3 0.5 - 1 0\n"             /* 6 */
				   "job 4 0.5 - 1 1,2\n"           /* 7 ok */
				   "file 3 18446744073709551614 - /huge\n" /* 8 */
				   "job 5 1 - 1 ,1\n"              /* 9 */
				   "file 4 1 - /c\n";              /* 10 ok */
	FILE *f = fmemopen((void *) text, sizeof(text) - 1, "r");
	dl_wl_diag_t diag = { 0 };
	_msgs_t m = { .len = 0 };
	dl_wl_stats_t ws;
	dl_workload_t *wl;

	diag.fn = _keep_msg;
	diag.arg = &m;
	wl = dl_workload_read(f, &diag);
	fclose(f);
	ck_assert_ptr_nonnull(wl);
	ck_assert_uint_eq(diag.bad_lines, 6);
	ck_assert_ptr_nonnull(
		strstr(m.text, "workload line 1: file 0: size '-5' is negative"));
	ck_assert_ptr_null(strstr(m.text, "expected"));
	ck_assert_ptr_nonnull(strstr(m.text, "workload line 4: job 1: bad"));
	ck_assert_ptr_nonnull(strstr(m.text, "workload line 5: job 2: bad"));
	ck_assert_ptr_nonnull(strstr(m.text, "workload line 6: job 3: bad"));
	ck_assert_ptr_nonnull(strstr(
		m.text, "workload line 8: file 3: size 18446744073709551614 "
			"brings the files' total past 2^64 bytes"));
	ck_assert_ptr_nonnull(strstr(m.text, "workload line 9: job 5: bad"));
	ck_assert_uint_eq(wl->nfiles, 3); /* /a, /b, /c */
	ck_assert_uint_eq(wl->njobs, 1);
	ck_assert_uint_eq(wl->jobs[0].nfiles, 2);
	ck_assert_str_eq(wl->files[wl->jobs[0].files[0]].path, "/a");
	ck_assert_str_eq(wl->files[wl->jobs[0].files[1]].path, "/b");
	dl_workload_stats(wl, &ws);
	ck_assert_uint_eq(ws.bytes_used, 8 * MB);
	dl_workload_destroy(wl);
}

END_TEST

/* The SWF sidecar: an empty path element is refused; sizes whose sum
 * passes 2^64 refuse the trace. */
START_TEST(test_swf_gaps)
{
	static const char trace[] = "1 0 0 10 1\n2 1 0 10 1\n";
	static const char files[] = "1 /x,,/y 1M\n2 /z,\n";
	static const char huge[] = "1 /x 18446744073709551614\n2 /y 2\n";
	dl_wl_diag_t diag = { 0 };
	_msgs_t m = { .len = 0 };
	dl_workload_t *wl;
	FILE *t, *f;

	t = fmemopen((void *) trace, sizeof(trace) - 1, "r");
	f = fmemopen((void *) files, sizeof(files) - 1, "r");
	wl = dl_workload_read_swf(t, f, MB, 1, &diag);
	fclose(t);
	fclose(f);
	ck_assert_ptr_nonnull(wl);
	ck_assert_uint_eq(wl->nfiles, 0);
	ck_assert_uint_ge(diag.bad_lines, 2);
	dl_workload_destroy(wl);
	memset(&diag, 0, sizeof(diag));
	diag.fn = _keep_msg;
	diag.arg = &m;
	t = fmemopen((void *) trace, sizeof(trace) - 1, "r");
	f = fmemopen((void *) huge, sizeof(huge) - 1, "r");
	wl = dl_workload_read_swf(t, f, MB, 1, &diag);
	fclose(t);
	fclose(f);
	ck_assert_ptr_null(wl);
	ck_assert_ptr_nonnull(
		strstr(m.text, "/y brings the files' total past 2^64 bytes"));
}

END_TEST

/*
 * Issue 30, item 5, in small: the 1,024-node "staging anomaly" (jobs
 * staging for ~1,400 s with storage 1.4% busy) is one storage node
 * serving every node's copy of the files all nodes read, while the other
 * storage nodes idle.  Here 16 nodes each fetch one 1e9-byte file (10 s)
 * from storage node 0 of 4: transfer k waits 10 k s in its queue, so the
 * mean staging (85 s) is the mean queueing (75 s) plus a transfer, the
 * storage is a quarter busy in all and node 0 all the time; --check finds
 * no source or link idle while jobs wait, and points at node 0.
 */
START_TEST(test_hot_storage_node)
{
	const char *argv[] = { "dl-sim", "-p", "mct", "--check", NULL };
	dl_workload_t *wl = dl_workload_create("test");
	char msg[1024] = "", err[256];
	double staging = 0;
	dl_sim_config_t c;
	dl_sim_result_t *r;
	dl_sim_args_t a;
	dl_metrics_t m;
	uint32_t f = 0, j;
	FILE *out;

	ck_assert_int_eq(dl_workload_add_file(wl, "/ref", 1000000000, 0), 0);
	for (j = 1; j <= 16; j++)
		fx_sim_job(wl, j, 0.0, 1.0, &f, 1);
	_cfg(&c, 16, 1, 4);
	c.policy = "mct";
	r = fx_sim_run(&c, wl);
	ck_assert_uint_eq(r->completed, 16);
	ck_assert_uint_eq(r->idle_violations, 0);
	ck_assert_uint_eq(r->storage_busiest, 0);
	ck_assert_double_eq_tol(r->storage_busy_max, 160.0, EPS);
	ck_assert_double_eq_tol(r->storage_queued, 1200.0, 1e-6);
	for (j = 0; j < 16; j++)
		staging += r->jobs[j].staged - r->jobs[j].dispatch;
	ck_assert_double_eq_tol(staging / 16, 85.0, 1e-6);
	ck_assert_int_eq(dl_metrics_compute(r, &m), 0);
	ck_assert_double_eq_tol(m.storage_queue_mean + 10.0, staging / 16,
				1e-6);
	ck_assert(m.storage_util_max > 0.95);
	ck_assert(m.storage_util < 0.3);
	out = fopen("/dev/null", "w");
	ck_assert_int_eq(dl_sim_args_parse(4, (char **) argv, &a, out, err,
					   sizeof(err)),
			 0);
	fclose(out);
	out = fmemopen(msg, sizeof(msg) - 1, "w");
	ck_assert_int_eq(dl_sim_setup_status(&a, r, &m, out), 0);
	fclose(out);
	ck_assert_ptr_nonnull(strstr(msg, "storage node 0 was"));
	dl_sim_result_free(r);
	dl_workload_destroy(wl);
}

END_TEST

/* --check's idle test holds where copies, peers and provisioning move
 * files besides the jobs' own fetches. */
START_TEST(test_check_no_idle)
{
	dl_workload_t *wl = _biomed(300, 0.85, 1, 5, 8);
	dl_sim_config_t c;
	dl_sim_result_t *r;
	int k;

	for (k = 0; k < 3; k++) {
		_cfg(&c, 8, 2, 2);
		c.policy = "mct";
		c.cache_bytes = 2ULL << 30;
		c.peer_fetch = k == 0;
		c.prefetch = k == 1 ? 2 : 0;
		c.prov.enabled = k == 2;
		r = fx_sim_run(&c, wl);
		ck_assert_uint_eq(r->completed, 300);
		ck_assert_uint_eq(r->idle_violations, 0);
		dl_sim_result_free(r);
	}
	dl_workload_destroy(wl);
}

END_TEST

/* Bad SWF records and jobs the sidecar forgot: refused by line. */
START_TEST(test_swf_rejects)
{
	static const char trace[] = "1 0 0 10 1\n"     /* 1 ok */
				    "2 1e300 0 10 1\n" /* 2 absurd submit */
				    "3 -4 0 10 1\n"    /* 3 negative submit */
				    "4 5 0 -5 1\n"     /* 4 negative run */
				    "5 6 0 -1 1\n"     /* 5 ok: unknown run */
				    "6 7 0 2e12 1\n"   /* 6 absurd run */
				    "7 8 0 10 1\n"     /* 7 no sidecar line */
				    "8 9 0 10 1\n";    /* 8 'JOBID -' */
	static const char files[] = "1 /a 1M\n"
				    "5 /b\n"
				    "8 -\n";
	FILE *t = fmemopen((void *) trace, sizeof(trace) - 1, "r");
	FILE *f = fmemopen((void *) files, sizeof(files) - 1, "r");
	dl_wl_diag_t diag = { 0 };
	_msgs_t m = { .len = 0 };
	dl_workload_t *wl;
	size_t i;

	diag.fn = _keep_msg;
	diag.arg = &m;
	wl = dl_workload_read_swf(t, f, MB, 1, &diag);
	fclose(t);
	fclose(f);
	ck_assert_ptr_nonnull(wl);
	ck_assert_uint_eq(diag.bad_lines, 5);
	ck_assert_uint_eq(diag.warnings, 0);
	ck_assert_uint_eq(wl->njobs, 4); /* 1, 5, 7 (no files), 8 */
	ck_assert_ptr_nonnull(
		strstr(m.text, "swf line 2: job 2: submit time 1e+300 outside"));
	ck_assert_ptr_nonnull(
		strstr(m.text, "swf line 3: job 3: submit time -4 outside"));
	ck_assert_ptr_nonnull(
		strstr(m.text, "swf line 4: job 4: run time -5 neither -1"));
	ck_assert_ptr_nonnull(
		strstr(m.text, "swf line 6: job 6: run time 2e+12 neither -1"));
	ck_assert_ptr_nonnull(strstr(
		m.text, "swf line 7: job 7 has no line in the files list"));
	ck_assert_ptr_null(strstr(m.text, "job 8"));
	for (i = 0; i < wl->njobs; i++)
		if (wl->jobs[i].id == 8 || wl->jobs[i].id == 7)
			ck_assert_uint_eq(wl->jobs[i].nfiles, 0);
	ck_assert_int_eq(dl_workload_find_file(wl, "-"), DL_ENOENT);
	dl_workload_destroy(wl);
}

END_TEST

/* dl-sim refuses a trace that lost records unless told to skip them, and
 * says why. */
START_TEST(test_setup_refuses_bad_trace)
{
	char path[] = "/tmp/check_sim_wlXXXXXX", err[512];
	const char *argv[] = { "dl-sim", "-p", "mct", "--workload-file", path,
			       NULL, NULL };
	dl_wl_diag_t diag = { 0 };
	dl_sim_args_t a;
	dl_workload_t *wl = NULL;
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	FILE *devnull = fopen("/dev/null", "w");

	ck_assert_ptr_nonnull(f);
	fputs("file 0 4M - /a\njob 1 0 - 1 0\njob 1 1 - 1 0\n", f);
	fclose(f);
	ck_assert_int_eq(dl_sim_args_parse(5, (char **) argv, &a, devnull, err,
					   sizeof(err)),
			 0);
	ck_assert_int_eq(dl_sim_setup_workload(&a, &diag, &wl, err,
					       sizeof(err)),
			 DL_EINVAL);
	ck_assert_ptr_null(wl);
	ck_assert_ptr_nonnull(strstr(err, "1 malformed records"));
	ck_assert_ptr_nonnull(strstr(err, "--skip-bad-lines"));
	argv[5] = "--skip-bad-lines";
	memset(&diag, 0, sizeof(diag));
	ck_assert_int_eq(dl_sim_args_parse(6, (char **) argv, &a, devnull, err,
					   sizeof(err)),
			 0);
	ck_assert_int_eq(dl_sim_setup_workload(&a, &diag, &wl, err,
					       sizeof(err)),
			 0);
	ck_assert_uint_eq(wl->njobs, 1);
	dl_workload_destroy(wl);
	argv[4] = "/nonexistent/x.wl";
	ck_assert_int_eq(dl_sim_args_parse(5, (char **) argv, &a, devnull, err,
					   sizeof(err)),
			 0);
	ck_assert_int_eq(dl_sim_setup_workload(&a, &diag, &wl, err,
					       sizeof(err)),
			 DL_ENOENT);
	unlink(path);
	fclose(devnull);
}

END_TEST

/* A run of dl-sim's command line on its generated workload. */
static dl_sim_result_t *_run_args(const char **args, int argc)
{
	FILE *devnull = fopen("/dev/null", "w");
	dl_wl_diag_t diag = { 0 };
	dl_workload_t *wl = NULL;
	dl_sim_result_t *r;
	dl_sim_args_t a;
	char err[256];

	ck_assert_ptr_nonnull(devnull);
	ck_assert_int_eq(dl_sim_args_parse(argc, (char **) args, &a, devnull,
					   err, sizeof(err)),
			 DL_SIM_ARGS_RUN);
	fclose(devnull);
	ck_assert_int_eq(dl_sim_setup_workload(&a, &diag, &wl, err,
					       sizeof(err)),
			 0);
	r = fx_sim_run(&a.cfg, wl);
	dl_workload_destroy(wl);
	return r;
}

/*
 * The plugin agent's prefetch (--prefetch), by hand: one node of one
 * slot, one storage node, files x and y of 100 MB (1 s to fetch, 0.2 s
 * to read), jobs 1 (x) and 2 (y) of 5 s, both at 0.  Without prefetch:
 * job 1 fetches x [0, 1], runs to 6.2; job 2 then fetches y [6.2, 7.2],
 * ends at 12.4.  With --prefetch 2 the first plan's copies are x and y
 * (job 1, which starts at once, counts as the agent's does): the copy of
 * x begins at once and job 1 waits for it (a local hit), y's follows in
 * the idle storage slot [1, 2], and job 2 finds y cached at 6.2: ends at
 * 11.4.  Storage reads the same 200 MB either way.  Then the command
 * line: --prefetch 2 makes copies on a biomed run where 0 makes none.
 */
START_TEST(test_prefetch_copies)
{
	dl_workload_t *wl = dl_workload_create("test");
	const char *on[] = { "dl-sim", "-p", "locality", "--jobs", "60",
			     "--nodes", "2", "--prefetch", "2", NULL };
	const char *off[] = { "dl-sim", "-p", "locality", "--jobs", "60",
			      "--nodes", "2", "--prefetch", "0", NULL };
	uint32_t x = 0, y = 1;
	dl_sim_config_t c;
	dl_sim_result_t *r;

	ck_assert_int_eq(dl_workload_add_file(wl, "/x", 100000000, -1), 0);
	ck_assert_int_eq(dl_workload_add_file(wl, "/y", 100000000, -1), 1);
	fx_sim_job(wl, 1, 0, 5, &x, 1);
	fx_sim_job(wl, 2, 0, 5, &y, 1);
	_cfg(&c, 1, 1, 1);
	r = fx_sim_run(&c, wl);
	ck_assert_uint_eq(r->copies, 0);
	ck_assert_double_eq_tol(r->jobs[1].end, 12.4, EPS);
	ck_assert_uint_eq(r->remote_bytes, 200000000);
	dl_sim_result_free(r);
	c.prefetch = 2;
	r = fx_sim_run(&c, wl);
	ck_assert_uint_eq(r->copies, 2);
	ck_assert_uint_eq(r->copies_done, 2);
	ck_assert_uint_eq(r->copy_bytes, 200000000);
	ck_assert_uint_eq(r->copy_bytes_peer, 0);
	ck_assert_uint_eq(r->remote_bytes, 0);
	ck_assert_double_eq_tol(r->jobs[0].staged, 1, EPS);
	ck_assert_double_eq_tol(r->jobs[0].end, 6.2, EPS);
	ck_assert_uint_eq(r->jobs[1].hit_local, 1);
	ck_assert_double_eq_tol(r->jobs[1].end, 11.4, EPS);
	dl_sim_result_free(r);
	dl_workload_destroy(wl);

	r = _run_args(on, 9);
	ck_assert_uint_gt(r->copies, 0);
	ck_assert_uint_eq(r->completed, 60);
	dl_sim_result_free(r);
	r = _run_args(off, 9);
	ck_assert_uint_eq(r->copies, 0);
	ck_assert_uint_eq(r->completed, 60);
	dl_sim_result_free(r);
}

END_TEST

/* Online-HPS without its partitioner helper plans greedily: every plan is
 * counted as a fallback, the CSV says so, and dl-sim's status is 1
 * unless the fallback is tolerated. */
START_TEST(test_fallback_labelled)
{
	dl_workload_t *wl = _biomed(60, 0.85, 1, 3, 4);
	const char *argv[] = { "dl-sim", "-p", "online-hps", NULL };
	char csv[] = "/tmp/check_sim_fbXXXXXX", line[8192], err[256];
	dl_sim_config_t c;
	dl_sim_result_t *r;
	dl_metrics_t m;
	dl_sim_args_t a;
	dl_kv_t kv[1] = { { .key = "policy", .val = "online-hps" } };
	FILE *f, *devnull = fopen("/dev/null", "w");
	char *hdr, *row, *tok, *s1 = NULL, *s2 = NULL;
	int fd = mkstemp(csv), col = -1, i = 0;

	ck_assert_int_ge(fd, 0);
	close(fd);
	unlink(csv);
	_cfg(&c, 4, 1, 4);
	c.policy = "online-hps";
	/* exact_free=0: no plan is solved exactly without the helper. */
	c.policy_params = "helper=/nonexistent/dl-partitiond,exact_free=0";
	r = fx_sim_run(&c, wl);
	ck_assert_uint_gt(r->plans, 0);
	/* Every plan that had a job to place fell back; one whose jobs
	 * were all fixed to their nodes asks no helper (partition.c). */
	ck_assert_uint_gt(r->fallback_plans, r->plans / 2);
	ck_assert_uint_le(r->fallback_plans, r->plans);
	ck_assert_int_eq(dl_metrics_compute(r, &m), 0);
	ck_assert_uint_eq(m.fallback_plans, r->fallback_plans);
	ck_assert_int_eq(dl_metrics_csv_append(csv, kv, 1, &m), 0);
	f = fopen(csv, "r");
	ck_assert_ptr_nonnull(f);
	hdr = strdup(fgets(line, sizeof(line), f));
	row = strdup(fgets(line, sizeof(line), f));
	fclose(f);
	unlink(csv);
	for (tok = strtok_r(hdr, ",\n", &s1); tok;
	     tok = strtok_r(NULL, ",\n", &s1), i++)
		if (!strcmp(tok, "fallback_plans"))
			col = i;
	ck_assert_int_ge(col, 0);
	for (i = 0, tok = strtok_r(row, ",\n", &s2); tok && i < col;
	     tok = strtok_r(NULL, ",\n", &s2), i++)
		;
	ck_assert_ptr_nonnull(tok);
	ck_assert_uint_eq(strtoul(tok, NULL, 10), r->fallback_plans);
	free(hdr);
	free(row);

	ck_assert_int_eq(dl_sim_args_parse(3, (char **) argv, &a, devnull, err,
					   sizeof(err)),
			 0);
	ck_assert_int_eq(dl_sim_setup_status(&a, r, &m, NULL), 1);
	a.tolerate_fallback = 1;
	ck_assert_int_eq(dl_sim_setup_status(&a, r, &m, NULL), 0);
	/* The helper's own plans are not fallbacks. */
	m.fallback_plans = 0;
	a.tolerate_fallback = 0;
	ck_assert_int_eq(dl_sim_setup_status(&a, r, &m, NULL), 0);
	dl_sim_result_free(r);

	/* With the helper (the tests run the built one), none. */
	c.policy_params = NULL;
	r = fx_sim_run(&c, wl);
	ck_assert_uint_eq(r->fallback_plans, 0);
	dl_sim_result_free(r);
	dl_workload_destroy(wl);
	fclose(devnull);
}

END_TEST

START_TEST(test_parse_size)
{
	uint64_t v;

	ck_assert_int_eq(dl_wl_parse_size("4096", &v), 0);
	ck_assert_uint_eq(v, 4096);
	ck_assert_int_eq(dl_wl_parse_size("64M", &v), 0);
	ck_assert_uint_eq(v, 64 * MB);
	ck_assert_int_eq(dl_wl_parse_size("1.5GiB", &v), 0);
	ck_assert_uint_eq(v, 3ULL << 29);
	ck_assert_int_eq(dl_wl_parse_size("100e6", &v), 0);
	ck_assert_uint_eq(v, 100000000);
	ck_assert_int_eq(dl_wl_parse_size("12Q", &v), DL_EINVAL);
	ck_assert_int_eq(dl_wl_parse_size("-1", &v), DL_EINVAL);
	ck_assert_int_eq(dl_wl_parse_size("", &v), DL_EINVAL);
}

END_TEST

START_TEST(test_metrics)
{
	dl_workload_t *wl = dl_workload_create("test");
	dl_sim_config_t c;
	dl_sim_result_t *r;
	dl_metrics_t m;
	uint32_t f = 0;

	ck_assert_int_eq(dl_workload_add_file(wl, "/x", 100000000, -1), 0);
	fx_sim_job(wl, 1, 0.0, 0.5, &f, 1);
	fx_sim_job(wl, 2, 0.0, 0.5, &f, 1);
	_cfg(&c, 1, 1, 1);
	r = fx_sim_run(&c, wl);
	ck_assert_int_eq(dl_metrics_compute(r, &m), 0);
	/* Responses 1.7 and 2.4 (test_tiny_shared_file). */
	ck_assert_double_eq_tol(m.resp_mean, 2.05, EPS);
	ck_assert_double_eq_tol(m.resp_median, 2.05, EPS);
	ck_assert_double_eq_tol(m.resp_max, 2.4, EPS);
	ck_assert_double_eq_tol(m.makespan, 2.4, EPS);
	ck_assert_double_eq_tol(m.wait_mean, 0.85, EPS);
	/* Slowdowns 1.7/1.7 and 2.4/0.7. */
	ck_assert_double_eq_tol(m.slowdown_mean, (1 + 2.4 / 0.7) / 2, EPS);
	ck_assert_double_eq_tol(m.hit_local_pct, 50, EPS);
	ck_assert_double_eq_tol(m.miss_pct, 50, EPS);
	/* Slot held 1.7 + 0.7 s of 2.4: full; compute 1 s of 2.4. */
	ck_assert_double_eq_tol(m.slot_util, 1.0, EPS);
	ck_assert_double_eq_tol(m.cpu_util, 1.0 / 2.4, EPS);
	/* All arrive at once (A infinite): B = 0.7, Y = (1.7 + 0.7) / 2,
	 * |T| = 1: E = B / Y. */
	ck_assert_double_eq_tol(m.efficiency, 0.7 / 1.2, EPS);
	ck_assert_double_eq_tol(m.speedup, 0.7 / 1.2, EPS);
	ck_assert_double_eq_tol(m.wet_ideal, 0.7, EPS);
	dl_sim_result_free(r);
	dl_workload_destroy(wl);
}

END_TEST

Suite *make_sim_suite(void)
{
	Suite *s = suite_create("sim");
	TCase *tc = tcase_create("model");
	TCase *tw = tcase_create("workload");
	TCase *tr = tcase_create("runs");

	tcase_add_test(tc, test_tiny_shared_file);
	tcase_add_test(tc, test_launch_overhead);
	tcase_add_test(tc, test_tiny_join_inflight);
	tcase_add_test(tc, test_storage_contention);
	tcase_add_test(tc, test_node_link_serialized);
	tcase_add_test(tc, test_peer_fetch);
	tcase_add_test(tc, test_cost_model_compute);
	tcase_add_test(tc, test_metrics);
	tcase_add_test(tc, test_slurm_pass_required_nodes);
	tcase_add_test(tc, test_slurm_pass_stops);
	tcase_add_test(tc, test_slurm_expiry);
	tcase_add_test(tc, test_dispatch_names);
	tcase_add_test(tc, test_dispatch_no_deadline);
	tcase_add_test(tc, test_slurm_no_overtaking);
	tcase_add_test(tc, test_slurm_bounded_wait);
	tcase_add_test(tc, test_slurm_carried_holds_new_jobs);
	tcase_add_test(tc, test_slurm_bad_params);
	tcase_add_test(tc, test_prefetch_copies);
	suite_add_tcase(s, tc);

	tcase_add_test(tw, test_biomed_targets);
	tcase_add_test(tw, test_biomed_order);
	tcase_add_test(tw, test_arrivals_load);
	tcase_add_test(tw, test_diffusion_rates);
	tcase_add_test(tw, test_access_patterns);
	tcase_add_test(tw, test_swf_parser);
	tcase_add_test(tw, test_workload_roundtrip);
	tcase_add_test(tw, test_workload_read_malformed);
	tcase_add_test(tw, test_parse_size);
	tcase_add_test(tw, test_workload_read_rejects);
	tcase_add_test(tw, test_swf_rejects);
	tcase_add_test(tw, test_workload_read_gaps);
	tcase_add_test(tw, test_swf_gaps);
	tcase_add_test(tr, test_hot_storage_node);
	tcase_add_test(tr, test_check_no_idle);
	tcase_add_test(tw, test_setup_refuses_bad_trace);
	tcase_add_test(tw, test_fallback_labelled);
	suite_add_tcase(s, tw);

	tcase_add_test(tr, test_determinism);
	tcase_add_test(tr, test_conservation);
	tcase_add_test(tr, test_capacity_never_exceeded);
	tcase_add_test(tr, test_every_policy);
	tcase_add_test(tr, test_unknown_policy);
	tcase_add_test(tr, test_replan_interval_and_window);
	suite_add_tcase(s, tr);
	return s;
}
