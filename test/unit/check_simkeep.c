/*
 * check_simkeep.c - dl-sim keeps a snapshot's running jobs for the next
 * one (src/sim/snapkeep.h, _snapshot() in sim.c):
 *
 * - dl_snapkeep_truncate() takes a state back to its marked jobs: the
 *   pending jobs added again after it give the state a fresh build gives
 *   (jobs, files, reads), also when their files took a new block;
 * - it refuses a state not marked, one cleared since, and one with a
 *   running job after the mark, and leaves it unchanged;
 * - dl-sim with checks on compares every kept running job with the one it
 *   would add (_snap_check()), and the room and blocked-job quota a pass
 *   kept for the next instant's steps with those computed then
 *   (_place_judge_check(), dispatch.h's dl_dispatch_judge()): runs where
 *   jobs start and end between snapshots, under both dispatches and the
 *   agent's estimates, keep running jobs in many snapshots and pass.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_suites.h"
#include "dl_cache.h"
#include "dl_error.h"
#include "dl_state.h"
#include "sim.h"
#include "sim_fx.h"
#include "snapkeep.h"
#include "workload.h"

#define NODES 4
#define FILES 64

/* A tracker of FILES files of 1000 bytes on NODES nodes. */
static dl_cache_t *_cache(void)
{
	dl_cache_t *c = dl_cache_create(NODES, DL_EVICT_LRU, 1);
	uint32_t f;

	ck_assert_ptr_nonnull(c);
	for (f = 0; f < FILES; f++) {
		char path[32];

		snprintf(path, sizeof(path), "/k/%u", f);
		ck_assert_int_eq(dl_cache_file_intern(c, path, 1000), f);
	}
	return c;
}

static dl_state_t *_state(dl_cache_t *c)
{
	dl_state_t *st = dl_state_create(c, NULL);
	uint32_t n;

	ck_assert_ptr_nonnull(st);
	for (n = 0; n < NODES; n++) {
		char name[16];

		snprintf(name, sizeof(name), "n%u", n);
		ck_assert_int_ge(dl_state_add_node(st, name, 2, 1), 0);
	}
	return st;
}

/*
 * Job id: running on node id % NODES with 3 files, or pending with
 * nfiles files (from id on, FILES apart: a new block once they pass
 * 4,096 ids) and, for an even id, an eligibility array.
 */
static void _add(dl_state_t *st, uint32_t id, int running, uint32_t nfiles)
{
	uint32_t *files = malloc((nfiles ? nfiles : 1) * sizeof(*files));
	uint8_t el[NODES] = { 1, 0, 1, 0 };
	dl_job_t j = { 0 };
	uint32_t k;

	ck_assert_ptr_nonnull(files);
	for (k = 0; k < nfiles; k++)
		files[k] = (id + k) % FILES;
	j.id = id;
	j.state = running ? DL_JOB_RUNNING : DL_JOB_PENDING;
	j.nfiles = nfiles;
	j.files = files;
	j.cpus = 1;
	j.arrival = id;
	j.compute = 10;
	j.node = running ? (int32_t)(id % NODES) : -1;
	j.eligible = !running && id % 2 == 0 ? el : NULL;
	ck_assert_int_ge(dl_state_add_job(st, &j), 0);
	free(files);
}

/* a and b hold the same jobs, files and reads. */
static void _same(const dl_state_t *a, const dl_state_t *b)
{
	uint32_t n, f;
	size_t i;

	ck_assert_uint_eq(a->njobs, b->njobs);
	for (i = 0; i < a->njobs; i++) {
		const dl_job_t *x = &a->jobs[i], *y = &b->jobs[i];

		ck_assert_uint_eq(x->id, y->id);
		ck_assert_int_eq(x->state, y->state);
		ck_assert_int_eq(x->node, y->node);
		ck_assert_uint_eq(x->nfiles, y->nfiles);
		ck_assert_uint_eq(x->bytes, y->bytes);
		ck_assert(!memcmp(x->files, y->files,
				  x->nfiles * sizeof(*x->files)));
		ck_assert_int_eq(!x->eligible, !y->eligible);
		if (x->eligible)
			ck_assert(!memcmp(x->eligible, y->eligible, NODES));
	}
	for (n = 0; n < NODES; n++)
		for (f = 0; f < FILES; f++)
			ck_assert_int_eq(dl_state_node_reads(a, n, f),
					 dl_state_node_reads(b, n, f));
}

/*
 * Three running jobs marked; pending jobs added, the state truncated and
 * other pending jobs added (pending files past a block's 4,096 ids when
 * big): the state is the one built from scratch with those jobs, and the
 * blocks are the mark's.
 */
static void _truncate_case(uint32_t big)
{
	dl_cache_t *c = _cache();
	dl_state_t *st = _state(c), *ref = _state(c);
	dl_snapkeep_t k = { 0 };
	void *block;
	size_t used;
	uint32_t id;

	for (id = 1; id <= 3; id++) {
		_add(st, id, 1, 3);
		_add(ref, id, 1, 3);
	}
	dl_snapkeep_mark(&k, st);
	block = st->fblock;
	used = st->fblock_used;
	ck_assert(dl_snapkeep_holds(&k, st));
	for (id = 10; id < 14; id++)
		_add(st, id, 0, big ? 3000 : 2);
	st->now = 5;
	st->wide_waiting = 1;
	ck_assert_int_eq(dl_snapkeep_truncate(&k, st), 0);
	ck_assert_uint_eq(st->njobs, 3);
	ck_assert_ptr_eq(st->fblock, block);
	ck_assert_uint_eq(st->fblock_used, used);
	ck_assert(st->now == 0);
	ck_assert_int_eq(st->wide_waiting, 0);
	ck_assert(dl_snapkeep_holds(&k, st));
	for (id = 20; id < 23; id++) {
		_add(st, id, 0, big ? 2000 : 4);
		_add(ref, id, 0, big ? 2000 : 4);
	}
	_same(st, ref);
	dl_state_destroy(st);
	dl_state_destroy(ref);
	dl_cache_destroy(c);
}

START_TEST(test_truncate_as_fresh)
{
	_truncate_case(0);
}
END_TEST

START_TEST(test_truncate_new_block)
{
	_truncate_case(1);
}
END_TEST

/* What truncation refuses, the state left as it was. */
START_TEST(test_truncate_refused)
{
	dl_cache_t *c = _cache();
	dl_state_t *st = _state(c), *other = _state(c);
	dl_snapkeep_t k = { 0 };

	_add(st, 1, 1, 3);
	dl_snapkeep_mark(&k, st);
	/* Another state: refused, the mark stays. */
	_add(other, 5, 0, 2);
	ck_assert_int_eq(dl_snapkeep_truncate(&k, other), DL_EINVAL);
	ck_assert_uint_eq(other->njobs, 1);
	ck_assert(dl_snapkeep_holds(&k, st));
	/* A running job after the mark: refused, the mark forgotten. */
	_add(st, 2, 0, 2);
	_add(st, 3, 1, 3);
	ck_assert_int_eq(dl_snapkeep_truncate(&k, st), DL_EINVAL);
	ck_assert_uint_eq(st->njobs, 3);
	ck_assert(!dl_snapkeep_holds(&k, st));
	/* Cleared since the mark: refused. */
	dl_snapkeep_mark(&k, st);
	dl_state_clear_jobs(st);
	ck_assert_int_eq(dl_snapkeep_truncate(&k, st), DL_EINVAL);
	ck_assert_uint_eq(st->njobs, 0);
	ck_assert(!dl_snapkeep_holds(&k, st));
	/* Marked empty with no block, then a pending job: back to none. */
	dl_state_destroy(st);
	st = _state(c);
	dl_snapkeep_mark(&k, st);
	_add(st, 4, 0, 2);
	ck_assert_int_eq(dl_snapkeep_truncate(&k, st), 0);
	ck_assert_uint_eq(st->njobs, 0);
	ck_assert_ptr_null(st->fblock);
	dl_state_destroy(st);
	dl_state_destroy(other);
	dl_cache_destroy(c);
}
END_TEST

/*
 * A biomed trace with small caches (evictions), 16 nodes, arrivals close
 * enough that jobs start and end between most snapshots: with checks on,
 * each kept running job is compared with the one dl-sim would add
 * (a difference fails the run).  At 16 nodes 27-46% of the snapshots
 * keep (70 of 263 under the plan dispatch, 157 of 344 per event under
 * slurm's), the others rebuild.
 */
static void _sim_case(int dispatch, double cycle, double agent_limit)
{
	dl_wl_biomed_opts_t o;
	dl_wl_arrival_opts_t ao;
	dl_wl_platform_t pf;
	dl_workload_t *wl;
	dl_sim_config_t c;
	dl_sim_result_t *r;

	dl_wl_biomed_opts_default(&o);
	o.jobs = 200;
	wl = dl_workload_gen_biomed(&o, 5);
	ck_assert_ptr_nonnull(wl);
	dl_wl_arrival_opts_default(&ao);
	ao.load = 2;
	pf.nodes = 16;
	pf.slots = 16;
	dl_params_default(&pf.params);
	ck_assert_int_eq(dl_workload_set_arrivals(wl, &pf, &ao, 7, NULL), 0);
	fx_sim_config(&c, 16, 1, 2);
	c.policy = "locality";
	c.dispatch = dispatch;
	c.replan_min_interval = cycle;
	c.agent_limit = agent_limit;
	c.cache_bytes = 3ULL << 30;
	r = fx_sim_run(&c, wl);
	ck_assert_uint_eq(r->completed, 200);
	ck_assert_msg(r->snapshots_kept > r->snapshots / 5 &&
			      r->snapshots_kept < r->snapshots,
		      "%zu of %zu snapshots kept", r->snapshots_kept,
		      r->snapshots);
	dl_sim_result_free(r);
	dl_workload_destroy(wl);
}

START_TEST(test_sim_kept_checked)
{
	_sim_case(DL_DISPATCH_SLURM, 0, 0);
	_sim_case(DL_DISPATCH_SLURM, 1, 0);
	_sim_case(DL_DISPATCH_PLAN, 0, 0);
	_sim_case(DL_DISPATCH_SLURM, 0, 3600);
}
END_TEST

Suite *make_simkeep_suite(void)
{
	Suite *s = suite_create("simkeep");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_truncate_as_fresh);
	tcase_add_test(tc, test_truncate_new_block);
	tcase_add_test(tc, test_truncate_refused);
	tcase_add_test(tc, test_sim_kept_checked);
	suite_add_tcase(s, tc);
	return s;
}
