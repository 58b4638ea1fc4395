/*
 * check_provision.c - dl-sim's node pool (src/sim/provision.c), the
 * plans' copy hook (dl_copy_t) as dl-sim executes it, the plugin agent's
 * prefetch as plan copies and pins (dl_plan_prefetch(), src/sim/pfpin.h)
 * and its run-time estimates (dl_runtime_*()), on hand-computed cases.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_suites.h"
#include "dl_cost.h"
#include "dl_error.h"
#include "dl_policy.h"
#include "fixture.h"
#include "metrics.h"
#include "pfpin.h"
#include "provision.h"
#include "sim.h"
#include "sim_fx.h"
#include "workload.h"

#define EPS 1e-9

/*
 * The queue asks for need = ceil(10 / 2) - 1 booting = 4 nodes; the pool
 * of 8 has room for 8 - (1 + 1) = 6 more.
 */
static uint32_t _ask(dl_prov_alloc_t a, uint32_t step, uint32_t *round)
{
	dl_prov_config_t c;

	dl_prov_config_default(&c);
	c.alloc = a;
	c.step = step;
	return dl_prov_request(&c, 10, 2, 1, 1, 8, round);
}

START_TEST(test_alloc_one)
{
	uint32_t r = 0, i;

	for (i = 0; i < 5; i++)
		ck_assert_uint_eq(_ask(DL_PROV_ONE, 1, &r), 1);
	ck_assert_uint_eq(r, 5);
}
END_TEST

START_TEST(test_alloc_additive)
{
	static const uint32_t step1[] = { 1, 2, 3, 4, 4 };
	static const uint32_t step2[] = { 2, 4, 4 };
	uint32_t r = 0, i;

	for (i = 0; i < 5; i++)
		ck_assert_uint_eq(_ask(DL_PROV_ADDITIVE, 1, &r), step1[i]);
	r = 0;
	for (i = 0; i < 3; i++)
		ck_assert_uint_eq(_ask(DL_PROV_ADDITIVE, 2, &r), step2[i]);
}
END_TEST

START_TEST(test_alloc_exponential)
{
	static const uint32_t want[] = { 1, 2, 4, 4 };
	uint32_t r = 0, i;

	for (i = 0; i < 4; i++)
		ck_assert_uint_eq(_ask(DL_PROV_EXPONENTIAL, 1, &r), want[i]);
	/* A huge round neither overflows nor exceeds the need. */
	r = 200;
	ck_assert_uint_eq(_ask(DL_PROV_EXPONENTIAL, 1, &r), 4);
}
END_TEST

START_TEST(test_alloc_all)
{
	dl_prov_config_t c;
	uint32_t r = 0;

	ck_assert_uint_eq(_ask(DL_PROV_ALL, 1, &r), 4);
	/* max 3: room for 3 - 2 = 1 only. */
	dl_prov_config_default(&c);
	c.alloc = DL_PROV_ALL;
	c.max_nodes = 3;
	ck_assert_uint_eq(dl_prov_request(&c, 10, 2, 1, 1, 8, &r), 1);
	/* An odd queue rounds up: 7 jobs on 2 cores need 4 nodes. */
	c.max_nodes = 0;
	ck_assert_uint_eq(dl_prov_request(&c, 7, 2, 0, 0, 8, &r), 4);
}
END_TEST

START_TEST(test_alloc_round_resets)
{
	dl_prov_config_t c;
	uint32_t r = 0;

	dl_prov_config_default(&c);
	c.alloc = DL_PROV_EXPONENTIAL;
	ck_assert_uint_eq(dl_prov_request(&c, 100, 1, 0, 0, 64, &r), 1);
	ck_assert_uint_eq(dl_prov_request(&c, 100, 1, 0, 1, 64, &r), 2);
	/* The booting nodes cover the queue: no need, the round resets. */
	ck_assert_uint_eq(dl_prov_request(&c, 3, 1, 0, 3, 64, &r), 0);
	ck_assert_uint_eq(r, 0);
	ck_assert_uint_eq(dl_prov_request(&c, 100, 1, 3, 0, 64, &r), 1);
	/* A full pool asks for nothing. */
	ck_assert_uint_eq(dl_prov_request(&c, 100, 1, 60, 4, 64, &r), 0);
}
END_TEST

START_TEST(test_release_due)
{
	dl_prov_config_t c;

	dl_prov_config_default(&c);
	c.idle = 60;
	ck_assert_int_eq(dl_prov_release_due(&c, 100, 159.5, 3), 0);
	ck_assert_int_eq(dl_prov_release_due(&c, 100, 160, 3), 1);
	ck_assert_int_eq(dl_prov_release_due(&c, -1, 1e9, 3), 0); /* busy */
	c.min_nodes = 3;
	ck_assert_int_eq(dl_prov_release_due(&c, 100, 500, 3), 0);
	ck_assert_int_eq(dl_prov_release_due(&c, 100, 500, 4), 1);
}
END_TEST

/*
 * A pool of 4, all-at-once, latency 30 exactly, idle 60.  At 0 a queue of
 * 3 on 1 core asks for nodes 0, 1, 2, ready at 30.  Node 0 idles from 30
 * and goes at 100 (70 s on); nodes 1 and 2 work from 30 to the end, 200
 * (170 s each): 410 node seconds, 0.2278 CPU hours on 2 cores.
 */
START_TEST(test_pool_accounting)
{
	dl_prov_config_t c;
	dl_prov_pool_t p;
	uint32_t node[4], k;
	double ready[4];

	dl_prov_config_default(&c);
	c.enabled = 1;
	c.alloc = DL_PROV_ALL;
	c.latency_min = c.latency_max = 30;
	c.idle = 60;
	ck_assert_int_eq(dl_prov_pool_init(&p, &c, 4, 1, 0.0), 0);
	ck_assert_uint_eq(p.on, 0);
	k = dl_prov_pool_allocate(&p, 0, 3, 1, node, ready);
	ck_assert_uint_eq(k, 3);
	for (k = 0; k < 3; k++) {
		ck_assert_uint_eq(node[k], k);
		ck_assert_double_eq_tol(ready[k], 30, EPS);
		ck_assert_int_eq(dl_prov_pool_usable(&p, k), 0);
		ck_assert_int_eq(dl_prov_pool_ready(&p, k, 30), 0);
	}
	ck_assert_int_eq(dl_prov_pool_ready(&p, 3, 30), DL_EINVAL);
	ck_assert_uint_eq(p.on, 3);
	dl_prov_pool_busy(&p, 1);
	dl_prov_pool_busy(&p, 2);
	ck_assert_int_eq(dl_prov_pool_release(&p, 0, 89), 0);
	ck_assert_int_eq(dl_prov_pool_release(&p, 1, 100), 0); /* busy */
	ck_assert_int_eq(dl_prov_pool_release(&p, 0, 100), 1);
	ck_assert_int_eq(dl_prov_pool_usable(&p, 0), 0);
	ck_assert_uint_eq(p.on, 2);
	ck_assert_double_eq_tol(dl_prov_pool_node_seconds(&p, 200), 410, EPS);
	ck_assert_double_eq_tol(dl_prov_cpu_hours(410, 2), 820.0 / 3600, EPS);
	ck_assert_uint_eq(p.allocations, 3);
	ck_assert_uint_eq(p.releases, 1);
	ck_assert_uint_eq(p.peak, 3);
	/* The next allocation takes the lowest free node again: 0. */
	ck_assert_uint_eq(dl_prov_pool_allocate(&p, 120, 1, 1, node, ready), 1);
	ck_assert_uint_eq(node[0], 0);
	dl_prov_pool_fini(&p);
}
END_TEST

START_TEST(test_pool_latency_and_min)
{
	dl_prov_config_t c;
	dl_prov_pool_t p, q;
	uint32_t node[64], n1, n2, i;
	double ready[64], r2[64];

	dl_prov_config_default(&c);
	c.enabled = 1;
	c.alloc = DL_PROV_ALL;
	ck_assert_int_eq(dl_prov_pool_init(&p, &c, 64, 7, 0), 0);
	ck_assert_int_eq(dl_prov_pool_init(&q, &c, 64, 7, 0), 0);
	n1 = dl_prov_pool_allocate(&p, 5, 64, 1, node, ready);
	n2 = dl_prov_pool_allocate(&q, 5, 64, 1, node, r2);
	ck_assert_uint_eq(n1, 64);
	ck_assert_uint_eq(n2, 64);
	for (i = 0; i < n1; i++) {
		ck_assert(ready[i] >= 35 && ready[i] <= 65);
		ck_assert_double_eq(ready[i], r2[i]); /* same seed */
	}
	ck_assert(ready[0] != ready[1]);
	dl_prov_pool_fini(&p);
	dl_prov_pool_fini(&q);
	/* The minimum is asked for with no queue; min > max is refused. */
	c.min_nodes = 2;
	ck_assert_int_eq(dl_prov_pool_init(&p, &c, 4, 1, 0), 0);
	ck_assert_uint_eq(dl_prov_pool_allocate(&p, 0, 0, 1, node, ready), 2);
	dl_prov_pool_fini(&p);
	c.min_nodes = 5;
	ck_assert_int_eq(dl_prov_pool_init(&p, &c, 4, 1, 0), DL_EINVAL);
	/* Disabled: every node on from t0, nothing allocated. */
	c.enabled = 0;
	c.min_nodes = 0;
	ck_assert_int_eq(dl_prov_pool_init(&p, &c, 4, 1, 10), 0);
	ck_assert_uint_eq(p.on, 4);
	ck_assert_uint_eq(dl_prov_pool_allocate(&p, 0, 99, 1, node, ready), 0);
	ck_assert_double_eq_tol(dl_prov_pool_node_seconds(&p, 110), 400, EPS);
	dl_prov_pool_fini(&p);
}
END_TEST

START_TEST(test_parse)
{
	dl_prov_config_t c;
	char err[160], buf[200];

	dl_prov_config_default(&c);
	ck_assert_int_eq(dl_prov_parse("alloc=exponential,min=1,max=32,"
				       "latency=10:20,idle=30,interval=2,"
				       "cache=kept",
				       &c, err, sizeof(err)),
			 0);
	ck_assert_int_eq(c.enabled, 1);
	ck_assert_int_eq(c.alloc, DL_PROV_EXPONENTIAL);
	ck_assert_uint_eq(c.min_nodes, 1);
	ck_assert_uint_eq(c.max_nodes, 32);
	ck_assert_double_eq(c.latency_min, 10);
	ck_assert_double_eq(c.latency_max, 20);
	ck_assert_double_eq(c.idle, 30);
	ck_assert_double_eq(c.interval, 2);
	ck_assert_int_eq(c.keep_cache, 1);
	dl_prov_format(&c, buf, sizeof(buf));
	ck_assert_str_eq(buf, "alloc=exponential,step=1,min=1,max=32,"
			      "latency=10:20,idle=30,interval=2,cache=kept");
	ck_assert_int_eq(dl_prov_parse("latency=45", &c, err, sizeof(err)),
			 0);
	ck_assert_double_eq(c.latency_min, 45);
	ck_assert_double_eq(c.latency_max, 45);
	ck_assert_int_eq(dl_prov_parse("off", &c, err, sizeof(err)), 0);
	ck_assert_int_eq(c.enabled, 0);
	/* Bad specs leave c alone. */
	ck_assert_int_eq(dl_prov_parse("alloc=fast", &c, err, sizeof(err)),
			 DL_EINVAL);
	ck_assert_int_eq(dl_prov_parse("speed=1", &c, err, sizeof(err)),
			 DL_EINVAL);
	ck_assert(strstr(err, "speed") != NULL);
	ck_assert_int_eq(dl_prov_parse("min=4,max=2", &c, err, sizeof(err)),
			 DL_EINVAL);
	ck_assert_int_eq(dl_prov_parse("latency=20:10", &c, err, sizeof(err)),
			 DL_EINVAL);
	ck_assert_int_eq(dl_prov_parse("idle=-1", &c, err, sizeof(err)),
			 DL_EINVAL);
	ck_assert_int_eq(dl_prov_parse("interval=0", &c, err, sizeof(err)),
			 DL_EINVAL);
	ck_assert_int_eq(dl_prov_parse("step=0", &c, err, sizeof(err)),
			 DL_EINVAL);
	ck_assert_int_eq(dl_prov_parse("min", &c, err, sizeof(err)),
			 DL_EINVAL);
	ck_assert_int_eq(dl_prov_parse("max=-3", &c, err, sizeof(err)),
			 DL_EINVAL);
	ck_assert_int_eq(dl_prov_parse("idle=1e99", &c, err, sizeof(err)),
			 DL_EINVAL);
	ck_assert_int_eq(c.enabled, 0);
	ck_assert_double_eq(c.latency_min, 45);
}
END_TEST

/*
 * §5.2.4 with the paper's own figures: first-available 5011 s, good-cache-
 * compute 4 GB 1427 s on 17 CPU hours, 2 GB 1436 s on 24: SP 3.51 and
 * 3.49, PI normalised 1 and 0.704 ("a higher performance index of 1 as
 * opposed to 0.7 for the 2GB case").
 */
START_TEST(test_speedup_pi)
{
	double sp4 = dl_prov_speedup(5011, 1427), sp2 = dl_prov_speedup(5011, 1436);
	double pi[3];

	ck_assert_double_eq_tol(sp4, 3.5116, 1e-4);
	pi[0] = dl_prov_perf_index(sp4, 17);
	pi[1] = dl_prov_perf_index(sp2, 24);
	pi[2] = dl_prov_perf_index(1, 0); /* no CPU time: 0, not inf */
	ck_assert_double_eq(pi[2], 0);
	dl_prov_pi_normalize(pi, 3);
	ck_assert_double_eq_tol(pi[0], 1, EPS);
	ck_assert_double_eq_tol(pi[1], 0.7039, 1e-4);
	ck_assert_double_eq(dl_prov_speedup(1, 0), 0);
}
END_TEST

/* ---------------------------------------------------------------------- */
/* In the event loop                                                      */

/* sim_fx.h's platform with one storage node, dispatched by the plan. */
static void _cfg(dl_sim_config_t *c, uint32_t nodes, uint32_t cores)
{
	fx_sim_config(c, nodes, cores, 1);
	c->dispatch = DL_DISPATCH_PLAN;
}

static void _prov(dl_sim_config_t *c, double idle, int keep)
{
	dl_prov_config_default(&c->prov);
	c->prov.enabled = 1;
	c->prov.alloc = DL_PROV_ALL;
	c->prov.latency_min = c->prov.latency_max = 10;
	c->prov.idle = idle;
	c->prov.interval = 1;
	c->prov.keep_cache = keep;
}

/*
 * A pool of 2 nodes, latency 10, decisions every second, idle 3.
 * Job 1 (no input, 5 s) arrives at 0: a node is asked for at 0, is on at
 * 10, runs the job [10, 15].  Idle from 15, it goes at the decision of 18.
 * Job 2 arrives at 20: again a node, on at 30, job [30, 35].  Node time
 * in [0, 35]: [10, 18] + [30, 35] = 13 s.
 */
START_TEST(test_sim_allocation_latency_release)
{
	dl_workload_t *wl = dl_workload_create("test");
	dl_sim_config_t c;
	dl_sim_result_t *r;
	dl_metrics_t m;

	fx_sim_job(wl, 1, 0, 5, NULL, 0);
	fx_sim_job(wl, 2, 20, 5, NULL, 0);
	_cfg(&c, 2, 1);
	_prov(&c, 3, 0);
	c.timeline_every = 10;
	r = fx_sim_run(&c, wl);
	ck_assert_uint_eq(r->completed, 2);
	ck_assert_double_eq_tol(r->jobs[0].dispatch, 10, EPS);
	ck_assert_double_eq_tol(r->jobs[0].end, 15, EPS);
	ck_assert_double_eq_tol(r->jobs[1].dispatch, 30, EPS);
	ck_assert_double_eq_tol(r->jobs[1].end, 35, EPS);
	ck_assert_int_eq(r->jobs[1].node, 0);
	ck_assert_uint_eq(r->allocations, 2);
	ck_assert_uint_eq(r->releases, 1);
	ck_assert_uint_eq(r->peak_nodes, 1);
	ck_assert_double_eq_tol(r->node_seconds, 13, EPS);
	ck_assert_int_eq(dl_metrics_compute(r, &m), 0);
	ck_assert_double_eq_tol(m.cpu_hours, 13.0 / 3600, EPS);
	/* Timeline at 0, 10, 20, 30 and the end: at 10 the node is booting
	 * (its registration is an event of 10, after the sample). */
	ck_assert_uint_ge(r->ntimeline, 4);
	ck_assert_double_eq(r->timeline[1].t, 10);
	ck_assert_uint_eq(r->timeline[1].booting, 1);
	ck_assert_uint_eq(r->timeline[1].queued, 1);
	ck_assert_uint_eq(r->timeline[2].on, 0); /* released at 18 */
	dl_sim_result_free(r);

	/* Without provisioning both nodes count the whole run: 2 x 25 s. */
	c.prov.enabled = 0;
	r = fx_sim_run(&c, wl);
	ck_assert_double_eq_tol(r->jobs[1].end, 25, EPS);
	ck_assert_double_eq_tol(r->node_seconds, 50, EPS);
	dl_sim_result_free(r);
	dl_workload_destroy(wl);
}
END_TEST

/*
 * The same pool with a 100 MB file f read by both jobs: job 1 fetches it
 * [10, 11], reads [11, 11.2], computes 5 s: end 16.2; the node goes at
 * the decision of 20 (idle 3 from 16.2).  Job 2 at 25: node on at 35.
 * Cache lost: it fetches f again, end 35 + 1 + 0.2 + 5 = 41.2.  Kept: a
 * local hit, end 40.2.
 */
START_TEST(test_sim_cache_lost_or_kept)
{
	dl_workload_t *wl = dl_workload_create("test");
	dl_sim_config_t c;
	dl_sim_result_t *r;
	uint32_t f = 0;

	ck_assert_int_eq(dl_workload_add_file(wl, "/f", 100000000, -1), 0);
	fx_sim_job(wl, 1, 0, 5, &f, 1);
	fx_sim_job(wl, 2, 25, 5, &f, 1);
	_cfg(&c, 2, 1);
	_prov(&c, 3, 0);
	r = fx_sim_run(&c, wl);
	ck_assert_uint_eq(r->releases, 1);
	ck_assert_double_eq_tol(r->jobs[0].end, 16.2, EPS);
	ck_assert_double_eq_tol(r->jobs[1].end, 41.2, EPS);
	ck_assert_uint_eq(r->remote_transfers, 2);
	dl_sim_result_free(r);
	_prov(&c, 3, 1);
	r = fx_sim_run(&c, wl);
	ck_assert_double_eq_tol(r->jobs[1].end, 40.2, EPS);
	ck_assert_uint_eq(r->remote_transfers, 1);
	ck_assert_uint_eq(r->jobs[1].hit_local, 1);
	dl_sim_result_free(r);
	dl_workload_destroy(wl);
}
END_TEST

/*
 * The copy hook through jdp-dll replicate=copy, threshold 0, 2 nodes of 1
 * slot, one storage node, f of 100 MB (1 s to fetch, 0.2 s to read).
 * Job 1 (f, 10 s) at 0 goes to node 0: fetch [0, 1], ends 11.2.  Job 2
 * (f) at 2: its holder node 0 is full, f was used once (> 0), node 1 is
 * less loaded: the plan copies f to node 1 and keeps job 2 on node 0.
 * The copy runs [2, 3] in the idle storage slot; at 3 node 1 holds f and
 * the next plan sends job 2 there: a local hit, end 3 + 0.2 + 10 = 13.2.
 */
START_TEST(test_copy_executed)
{
	dl_workload_t *wl = dl_workload_create("test");
	dl_sim_config_t c;
	dl_sim_result_t *r;
	dl_metrics_t m;
	uint32_t f = 0;

	ck_assert_int_eq(dl_workload_add_file(wl, "/f", 100000000, -1), 0);
	fx_sim_job(wl, 1, 0, 10, &f, 1);
	fx_sim_job(wl, 2, 2, 10, &f, 1);
	_cfg(&c, 2, 1);
	c.policy = "jdp-dll";
	c.policy_params = "threshold=0,replicate=copy";
	c.eviction = DL_EVICT_LRU;
	r = fx_sim_run(&c, wl);
	ck_assert_uint_eq(r->copies, 1);
	ck_assert_uint_eq(r->copies_done, 1);
	ck_assert_uint_eq(r->copy_bytes, 100000000);
	ck_assert_uint_eq(r->remote_transfers, 1); /* job 1's miss only */
	ck_assert_int_eq(r->jobs[1].node, 1);
	ck_assert_double_eq_tol(r->jobs[1].dispatch, 3, EPS);
	ck_assert_uint_eq(r->jobs[1].hit_local, 1);
	ck_assert_double_eq_tol(r->jobs[1].end, 13.2, EPS);
	/* The copy took the storage node 1 s: 2 s busy in all. */
	ck_assert_double_eq_tol(r->storage_busy, 2, EPS);
	ck_assert_int_eq(dl_metrics_compute(r, &m), 0);
	ck_assert_uint_eq(m.copies_done, 1);
	dl_sim_result_free(r);

	/* replicate=job (no copies): job 2 starts on node 1 at 2, fetching. */
	c.policy_params = "threshold=0";
	r = fx_sim_run(&c, wl);
	ck_assert_uint_eq(r->copies, 0);
	ck_assert_double_eq_tol(r->jobs[1].end, 13.2, EPS);
	ck_assert_uint_eq(r->remote_transfers, 2);
	dl_sim_result_free(r);
	dl_workload_destroy(wl);
}
END_TEST

/*
 * A copy occupies its source: 3 nodes of 1 slot, one storage node.  As
 * above, the plan of 2 copies f to node 1 [2, 3].  Job 3 (h, 100 MB) at
 * 2.5 goes to node 1 (nobody holds h; nodes 1 and 2 are idle, 1 first)
 * and starts there, but its fetch waits for the copy: it begins at 3
 * (eq. 1: the job's start) and h is staged at 4.
 */
START_TEST(test_copy_occupies_slot)
{
	dl_workload_t *wl = dl_workload_create("test");
	dl_sim_config_t c;
	dl_sim_result_t *r;
	uint32_t f = 0, h = 1;

	ck_assert_int_eq(dl_workload_add_file(wl, "/f", 100000000, -1), 0);
	ck_assert_int_eq(dl_workload_add_file(wl, "/h", 100000000, -1), 1);
	fx_sim_job(wl, 1, 0, 10, &f, 1);
	fx_sim_job(wl, 2, 2, 10, &f, 1);
	fx_sim_job(wl, 3, 2.5, 1, &h, 1);
	_cfg(&c, 3, 1);
	c.policy = "jdp-dll";
	c.policy_params = "threshold=0,replicate=copy";
	c.eviction = DL_EVICT_LRU;
	r = fx_sim_run(&c, wl);
	ck_assert_uint_ge(r->copies_done, 1);
	ck_assert_int_eq(r->jobs[2].node, 1);
	ck_assert_double_eq_tol(r->jobs[2].dispatch, 2.5, EPS);
	ck_assert_double_eq_tol(r->jobs[2].start, 3, EPS);
	ck_assert_double_eq_tol(r->jobs[2].staged, 4, EPS);
	ck_assert_uint_eq(r->completed, 3);
	dl_sim_result_free(r);
	dl_workload_destroy(wl);
}
END_TEST

/*
 * A copy never evicts a pinned file: 2 nodes of 2 slots, caches of
 * 100 MB (one file).  Jobs 1 and 2 (f, 10 s) go to node 0, job 3 (g,
 * 10 s) to node 1, all at 0; f arrives at 1, g at 2.  Job 4 (f) at 3:
 * node 0 is full, node 1 less loaded, so f is copied to node 1, whose
 * only file g is pinned by job 3: the insert finds no room and the copy
 * is dropped, again at every plan until node 0 frees; g stays (no
 * eviction), and every job completes.
 */
START_TEST(test_copy_never_evicts_pinned)
{
	dl_workload_t *wl = dl_workload_create("test");
	dl_sim_config_t c;
	dl_sim_result_t *r;
	uint32_t f = 0, g = 1;

	ck_assert_int_eq(dl_workload_add_file(wl, "/f", 100000000, -1), 0);
	ck_assert_int_eq(dl_workload_add_file(wl, "/g", 100000000, -1), 1);
	fx_sim_job(wl, 1, 0, 10, &f, 1);
	fx_sim_job(wl, 2, 0, 10, &f, 1);
	fx_sim_job(wl, 3, 0, 10, &g, 1);
	fx_sim_job(wl, 4, 3, 1, &f, 1);
	_cfg(&c, 2, 2);
	c.cache_bytes = 100000000;
	c.policy = "jdp-dll";
	c.policy_params = "threshold=0,replicate=copy";
	c.eviction = DL_EVICT_LRU;
	r = fx_sim_run(&c, wl);
	ck_assert_uint_eq(r->completed, 4);
	ck_assert_int_eq(r->jobs[2].node, 1);
	ck_assert_uint_ge(r->copies, 1);
	ck_assert_uint_eq(r->copies_done, 0);
	ck_assert_uint_ge(r->copies_dropped, r->copies);
	ck_assert_uint_eq(r->evictions, 0);
	ck_assert_uint_eq(r->capacity_violations, 0);
	dl_sim_result_free(r);
	dl_workload_destroy(wl);
}
END_TEST

/* dl_plan_add_copy: once per (file, node), bounded, NULL refused. */
START_TEST(test_plan_add_copy)
{
	dl_plan_t *p = calloc(1, sizeof(*p));
	size_t i;

	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(dl_plan_add_copy(NULL, 1, 2), DL_EINVAL);
	ck_assert_int_eq(dl_plan_add_copy(p, 1, 2), 0);
	ck_assert_int_eq(dl_plan_add_copy(p, 1, 2), 0);
	ck_assert_int_eq(dl_plan_add_copy(p, 2, 1), 0);
	ck_assert_uint_eq(p->ncopies, 2);
	ck_assert_uint_eq(p->copies[1].file, 2);
	ck_assert_uint_eq(p->copies[1].node, 1);
	for (i = 0; i < 40; i++)
		ck_assert_int_eq(dl_plan_add_copy(p, 100 + (uint32_t)i, 0), 0);
	ck_assert_uint_eq(p->ncopies, 42);
	dl_plan_free(p);
}
END_TEST

/* Whether plan copies file to node. */
static int _pf_has(const dl_plan_t *p, uint32_t file, uint32_t node)
{
	size_t i;

	for (i = 0; i < p->ncopies; i++)
		if (p->copies[i].file == file && p->copies[i].node == node)
			return 1;
	return 0;
}

/* dl_plan_prefetch() on a fresh copy of the plan's assignments. */
static dl_plan_t *_pf_run(const dl_plan_t *base, uint32_t per_node,
			  uint64_t budget)
{
	dl_plan_t *p = calloc(1, sizeof(*p));

	ck_assert_ptr_nonnull(p);
	p->n = base->n;
	p->a = calloc(base->n, sizeof(*p->a));
	ck_assert_ptr_nonnull(p->a);
	memcpy(p->a, base->a, base->n * sizeof(*p->a));
	ck_assert_int_eq(dl_plan_prefetch(fx_state, p, per_node, budget), 0);
	return p;
}

/*
 * The plugin agent's prefetch as plan copies, by hand.  2 nodes of 1
 * slot, both idle; MB = 1e6 bytes.  Files a 10, b 20, c 30, d 40, s 50,
 * e 60, u of unknown size; node 0 caches a, node 1 caches e, which the
 * running job R reads there.  The plan puts, in its order:
 *   node 0: J1 (a, b)  J2 (s, c)  J3 (s, d)
 *   node 1: J4 (s, u)  J5 (u)     J6 (b)
 * J1 and J4 would start at once on the free slots; the agent counts them
 * all the same (it selects before Slurm starts them).  Missing bytes:
 * J1 20 (a is there), J2 80, J3 40 (s counted once on node 0), J4 50 (u
 * left out), J5 none to account for (not one of the head), J6 20.
 */
START_TEST(test_plan_prefetch)
{
	const uint64_t MB = 1000000;
	uint32_t a, b, c, d, sh, e, u, f1[2], f2[2], f3[2], f4[2], f5[1],
		f6[1], fr[1];
	dl_plan_t *base, *p;
	size_t i;

	fx_setup(2, 1, NULL, DL_EVICT_LRU);
	a = fx_file("/a", 10 * MB);
	b = fx_file("/b", 20 * MB);
	c = fx_file("/c", 30 * MB);
	d = fx_file("/d", 40 * MB);
	sh = fx_file("/s", 50 * MB);
	e = fx_file("/e", 60 * MB);
	u = fx_file("/u", DL_CACHE_SIZE_UNKNOWN);
	ck_assert_int_eq(dl_cache_insert(fx_cache, 0, a, 1, NULL, NULL), 0);
	ck_assert_int_eq(dl_cache_insert(fx_cache, 1, e, 1, NULL, NULL), 0);
	f1[0] = a, f1[1] = b, f2[0] = sh, f2[1] = c, f3[0] = sh, f3[1] = d;
	f4[0] = sh, f4[1] = u, f5[0] = u, f6[0] = b, fr[0] = e;
	fx_job(1, f1, 2, DL_JOB_PENDING, -1);
	fx_job(2, f2, 2, DL_JOB_PENDING, -1);
	fx_job(3, f3, 2, DL_JOB_PENDING, -1);
	fx_job(4, f4, 2, DL_JOB_PENDING, -1);
	fx_job(5, f5, 1, DL_JOB_PENDING, -1);
	fx_job(6, f6, 1, DL_JOB_PENDING, -1);
	fx_job(7, fr, 1, DL_JOB_RUNNING, 1);
	base = calloc(1, sizeof(*base));
	ck_assert_ptr_nonnull(base);
	base->n = fx_state->njobs;
	base->a = calloc(base->n, sizeof(*base->a));
	ck_assert_ptr_nonnull(base->a);
	for (i = 0; i < 6; i++) {
		base->a[i].node = i < 3 ? 0 : 1;
		base->a[i].order = (double)(i % 3);
	}
	base->a[6].node = 1; /* running: never prefetched for */

	/* Argument checks, and 0 jobs per node: nothing. */
	ck_assert_int_eq(dl_plan_prefetch(NULL, base, 1, 0), DL_EINVAL);
	ck_assert_int_eq(dl_plan_prefetch(fx_state, NULL, 1, 0), DL_EINVAL);
	p = _pf_run(base, 0, 0);
	ck_assert_uint_eq(p->ncopies, 0);
	dl_plan_free(p);

	/* 1 per node: J1's b on node 0, J4's s on node 1 (u left out). */
	p = _pf_run(base, 1, 0);
	ck_assert_uint_eq(p->ncopies, 2);
	ck_assert_uint_eq(p->copies[0].file, b);
	ck_assert_uint_eq(p->copies[0].node, 0);
	ck_assert_uint_eq(p->copies[1].file, sh);
	ck_assert_uint_eq(p->copies[1].node, 1);
	dl_plan_free(p);

	/* 2 per node: + J2's s, c on node 0; J5 does not count, J6's b on
	 * node 1.  In queue order, node by node. */
	p = _pf_run(base, 2, 0);
	ck_assert_uint_eq(p->ncopies, 5);
	ck_assert(p->copies[0].file == b && p->copies[0].node == 0);
	ck_assert(p->copies[1].file == sh && p->copies[1].node == 0);
	ck_assert(p->copies[2].file == c && p->copies[2].node == 0);
	ck_assert(p->copies[3].file == sh && p->copies[3].node == 1);
	ck_assert(p->copies[4].file == b && p->copies[4].node == 1);
	ck_assert(!_pf_has(p, u, 1) && !_pf_has(p, a, 0));
	/* Pinned: every file of J1, J2 on node 0 (a, cached, too; s once),
	 * of J4, J6 on node 1 (u, of unknown size, not), node by node. */
	ck_assert_uint_eq(p->npins, 6);
	ck_assert(p->pins[0].file == a && p->pins[0].node == 0);
	ck_assert(p->pins[1].file == b && p->pins[1].node == 0);
	ck_assert(p->pins[2].file == sh && p->pins[2].node == 0);
	ck_assert(p->pins[3].file == c && p->pins[3].node == 0);
	ck_assert(p->pins[4].file == sh && p->pins[4].node == 1);
	ck_assert(p->pins[5].file == b && p->pins[5].node == 1);
	dl_plan_free(p);

	/* 3 per node, 140 MB: 20 + 80 + 40 fit (s once); 139 MB cuts J3. */
	p = _pf_run(base, 3, 140 * MB);
	ck_assert_uint_eq(p->ncopies, 6);
	ck_assert(_pf_has(p, d, 0));
	dl_plan_free(p);
	p = _pf_run(base, 3, 139 * MB);
	ck_assert_uint_eq(p->ncopies, 5);
	ck_assert(!_pf_has(p, d, 0));
	dl_plan_free(p);

	/* 90 MB: J2 (20 + 80) ends node 0's list, and J3 (40, which would
	 * fit) is not taken past it; node 1: 50 + 20 fit. */
	p = _pf_run(base, 3, 90 * MB);
	ck_assert_uint_eq(p->ncopies, 3);
	ck_assert(_pf_has(p, b, 0) && !_pf_has(p, c, 0) && !_pf_has(p, d, 0));
	ck_assert(_pf_has(p, sh, 1) && _pf_has(p, b, 1));
	dl_plan_free(p);

	/* Node 1 of 100 MB, 60 of them R's e: 40 MB left, J4's 50 do not
	 * fit and nothing goes to node 1 (the agent's budget is at most the
	 * room the running jobs leave). */
	ck_assert_int_eq(dl_cache_set_capacity(fx_cache, 1, 100 * MB), 0);
	p = _pf_run(base, 3, 0);
	ck_assert_uint_eq(p->ncopies, 4);
	for (i = 0; i < p->ncopies; i++)
		ck_assert_uint_eq(p->copies[i].node, 0);
	dl_plan_free(p);
	dl_plan_free(base);
	fx_teardown();
}
END_TEST

/*
 * The agent's prefetch pins as dl-sim holds them (pfpin.h), on one node
 * of 2 files' room (LRU): x cached, y to be copied.  A plan pins x at
 * once and y when it is inserted; a third file then finds no room.  The
 * next plan keeps y (still one pin) and drops x, which z then evicts.
 */
START_TEST(test_prefetch_pins)
{
	dl_cache_t *c = dl_cache_create(1, DL_EVICT_LRU, 1);
	dl_copy_t both[2], only_y[1];
	dl_pfpin_t pp;
	uint32_t x, y, z;

	ck_assert_ptr_nonnull(c);
	x = (uint32_t)dl_cache_file_intern(c, "/x", 10);
	y = (uint32_t)dl_cache_file_intern(c, "/y", 10);
	z = (uint32_t)dl_cache_file_intern(c, "/z", 10);
	ck_assert_int_eq(dl_cache_set_capacity(c, 0, 20), 0);
	ck_assert_int_eq(dl_pfpin_init(&pp, c, 1, 3), 0);
	ck_assert_int_eq(dl_cache_insert(c, 0, x, 1, NULL, NULL), 0);
	both[0] = (dl_copy_t){ .file = x, .node = 0 };
	both[1] = (dl_copy_t){ .file = y, .node = 0 };
	only_y[0] = both[1];

	ck_assert_int_eq(dl_pfpin_apply(&pp, both, 2), 0);
	ck_assert_uint_eq(dl_cache_pins(c, 0, x), 1);
	ck_assert_int_eq(dl_cache_insert(c, 0, y, 2, NULL, NULL), 0);
	dl_pfpin_inserted(&pp, 0, y);
	dl_pfpin_inserted(&pp, 0, y); /* once only */
	ck_assert_uint_eq(dl_cache_pins(c, 0, y), 1);
	/* Both prefetched files pinned: no room for z. */
	ck_assert_int_eq(dl_cache_insert(c, 0, z, 3, NULL, NULL), DL_ENOSPC);

	ck_assert_int_eq(dl_pfpin_apply(&pp, only_y, 1), 0);
	ck_assert_uint_eq(dl_cache_pins(c, 0, x), 0);
	ck_assert_uint_eq(dl_cache_pins(c, 0, y), 1);
	ck_assert_int_eq(dl_cache_insert(c, 0, z, 4, NULL, NULL), 0);
	ck_assert(!dl_cache_contains(c, 0, x) && dl_cache_contains(c, 0, y));
	ck_assert_uint_eq(pp.taken, 2);

	/* A node going off releases its pins; an empty plan releases all. */
	dl_pfpin_drop_node(&pp, 0);
	ck_assert_uint_eq(dl_cache_pins(c, 0, y), 0);
	ck_assert_int_eq(dl_pfpin_apply(&pp, both, 2), 0);
	ck_assert_uint_eq(dl_cache_pins(c, 0, y), 1); /* x is gone */
	ck_assert_int_eq(dl_pfpin_apply(&pp, NULL, 0), 0);
	ck_assert_uint_eq(dl_cache_pins(c, 0, y), 0);
	dl_pfpin_fini(&pp);
	dl_cache_destroy(c);
}
END_TEST

/*
 * The agent's run-time estimates (dl_sim_config_t.agent_limit) drive a
 * policy as the plugin's do.  mct, 2 nodes of 1 slot, files of 100 MB
 * (1 s from storage, 0.2 s to read): job 1 (f, 10 s) at 0 on node 0,
 * job 2 (g, 1 s) at 0.2 on node 1, job 3 (f, 1 s) at 1.5.  Knowing the
 * times, node 1 frees at 2.4 and job 3 ends there first (3.4 + 1.2, f
 * fetched) rather than after job 1 on node 0 (11.2).  With the agent's
 * estimates nothing is learnt by 1.5: both running jobs look like 120 s
 * jobs started in second 0, the nodes equally busy, and node 0, which
 * has f, wins.  Job 2 spans Slurm's seconds 0 to 2 and is learnt: 2 s.
 */
START_TEST(test_agent_estimates)
{
	dl_workload_t *wl = dl_workload_create("test");
	dl_sim_config_t c;
	dl_sim_result_t *r;
	uint32_t f = 0, g = 1;

	ck_assert_int_eq(dl_workload_add_file(wl, "/f", 100000000, -1), 0);
	ck_assert_int_eq(dl_workload_add_file(wl, "/g", 100000000, -1), 1);
	fx_sim_job(wl, 1, 0, 10, &f, 1);
	fx_sim_job(wl, 2, 0.2, 1, &g, 1);
	fx_sim_job(wl, 3, 1.5, 1, &f, 1);
	fx_sim_config(&c, 2, 1, 1);
	c.policy = "mct";
	c.place.strict = 1;
	r = fx_sim_run(&c, wl);
	ck_assert_int_eq(r->jobs[0].node, 0);
	ck_assert_int_eq(r->jobs[1].node, 1);
	ck_assert_int_eq(r->jobs[2].node, 1);
	dl_sim_result_free(r);

	c.agent_limit = 120;
	r = fx_sim_run(&c, wl);
	ck_assert_int_eq(r->jobs[1].node, 1);
	ck_assert_int_eq(r->jobs[2].node, 0);
	ck_assert_double_eq_tol(r->jobs[2].dispatch, 11.2, EPS);
	dl_sim_result_free(r);
	dl_workload_destroy(wl);
}
END_TEST

/* The run-time history the agent and dl-sim share (dl_cost.h). */
START_TEST(test_runtime_history)
{
	double mean = -1;

	ck_assert_double_eq(dl_runtime_estimate(mean, 120), 120);
	ck_assert_double_eq(dl_runtime_estimate(mean, -1), -1);
	dl_runtime_learn(&mean, -2); /* ignored */
	ck_assert_double_eq(mean, -1);
	dl_runtime_learn(&mean, 2);
	ck_assert_double_eq_tol(mean, 2, EPS);
	dl_runtime_learn(&mean, 1);
	ck_assert_double_eq_tol(mean, 2 - DL_RUNTIME_ALPHA, EPS);
	ck_assert_double_eq_tol(dl_runtime_estimate(mean, 120), 1.7, EPS);
	ck_assert_double_eq_tol(dl_runtime_estimate(mean, 1), 1, EPS);
	ck_assert_double_eq_tol(dl_runtime_estimate(mean, 0), 1.7, EPS);
	dl_runtime_learn(NULL, 1); /* no crash */
	/* Running: the estimate if known, else as long again, >= 1 s more. */
	ck_assert_double_eq(dl_runtime_running(120, 30), 120);
	ck_assert_double_eq(dl_runtime_running(-1, 30), 60);
	ck_assert_double_eq(dl_runtime_running(-1, 0.25),
			    0.25 + DL_RUNTIME_RUNNING_MIN);
	ck_assert_double_eq(dl_runtime_running(-1, -5), DL_RUNTIME_RUNNING_MIN);
	ck_assert_double_eq(dl_runtime_running(-1, 0.0 / 0.0),
			    DL_RUNTIME_RUNNING_MIN);
}
END_TEST

Suite *make_provision_suite(void)
{
	Suite *s = suite_create("provision");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_alloc_one);
	tcase_add_test(tc, test_alloc_additive);
	tcase_add_test(tc, test_alloc_exponential);
	tcase_add_test(tc, test_alloc_all);
	tcase_add_test(tc, test_alloc_round_resets);
	tcase_add_test(tc, test_release_due);
	tcase_add_test(tc, test_pool_accounting);
	tcase_add_test(tc, test_pool_latency_and_min);
	tcase_add_test(tc, test_parse);
	tcase_add_test(tc, test_speedup_pi);
	tcase_add_test(tc, test_sim_allocation_latency_release);
	tcase_add_test(tc, test_sim_cache_lost_or_kept);
	tcase_add_test(tc, test_copy_executed);
	tcase_add_test(tc, test_copy_occupies_slot);
	tcase_add_test(tc, test_copy_never_evicts_pinned);
	tcase_add_test(tc, test_plan_add_copy);
	tcase_add_test(tc, test_plan_prefetch);
	tcase_add_test(tc, test_prefetch_pins);
	tcase_add_test(tc, test_agent_estimates);
	tcase_add_test(tc, test_runtime_history);
	suite_add_tcase(s, tc);
	return s;
}
