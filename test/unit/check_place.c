/*
 * check_place.c - placement restrictions (dl_place.h) on hand-computed
 * cases: the first restriction, hysteresis, the wait bound, waiting only
 * while blocked (and only since a free node freed), widening for good,
 * lost nodes, invalid indices, and warm nodes preferred over waking cold
 * ones when that is sooner.
 *
 * The fixture's default parameters move 1e8 bytes per second from storage,
 * so a bound is the cached bytes / 1e8 seconds before clamping.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_suites.h"
#include "dl_error.h"
#include "dl_place.h"
#include "fixture.h"

#define ts fx_state

/* n nodes of cpus slots each, every one usable and idle. */
static void _setup(uint32_t n, uint32_t cpus)
{
	fx_setup(n, cpus, NULL, DL_EVICT_VALUE);
}

/* A pending job reading files; eligible may be NULL (every node). */
static size_t _job(uint32_t id, const uint32_t *files, uint32_t n,
		   uint32_t cpus, const uint8_t *eligible)
{
	dl_job_t j = { 0 };
	int idx;

	j.id = id;
	j.state = DL_JOB_PENDING;
	j.files = (uint32_t *)files;
	j.nfiles = n;
	j.cpus = cpus;
	j.arrival = id;
	j.compute = -1;
	j.node = -1;
	j.eligible = (uint8_t *)eligible;
	idx = dl_state_add_job(ts, &j);
	ck_assert_int_ge(idx, 0);
	return (size_t)idx;
}

static void _cache(uint32_t node, uint32_t file)
{
	ck_assert_int_eq(dl_cache_insert(fx_cache, node, file, 1, NULL, NULL),
			 0);
}

/* One step at time now. */
static dl_place_action_t _step(size_t job, int32_t planned,
			       const dl_place_params_t *p, dl_place_t *rec,
			       double now)
{
	ts->now = now;
	return dl_place_step(ts, job, planned, p, rec);
}

START_TEST(test_defaults)
{
	dl_place_params_t p;
	dl_place_t rec;

	dl_place_params_default(&p);
	ck_assert_double_eq(p.wait_factor, 1.0);
	ck_assert_double_eq(p.min_wait, 2.0);
	ck_assert_double_eq(p.max_wait, 300.0);
	ck_assert_double_eq(p.hysteresis, 0.25);
	ck_assert_int_eq(p.strict, 0);
	memset(&rec, 0xff, sizeof(rec));
	dl_place_init(&rec);
	ck_assert_int_eq(rec.node, -1);
	ck_assert_int_eq(rec.widened, 0);
	ck_assert_double_eq(rec.waited, 0);
	ck_assert_double_eq(rec.last, 0);
}

END_TEST

/* The first step restricts to the plan's node; no plan, no restriction. */
START_TEST(test_first_step)
{
	dl_place_params_t p;
	dl_place_t rec;
	uint32_t f;
	size_t j;

	_setup(3, 1);
	f = fx_file("/a", 100000000);
	j = _job(1, &f, 1, 1, NULL);
	dl_place_params_default(&p);

	dl_place_init(&rec);
	ck_assert_int_eq(_step(j, -1, &p, &rec, 100), DL_PLACE_KEEP);
	ck_assert_int_eq(rec.node, -1);
	ck_assert_int_eq(rec.widened, 0);
	/* Whatever the cache says: the plan decides the first node. */
	_cache(0, f);
	ck_assert_int_eq(_step(j, 2, &p, &rec, 101), DL_PLACE_SET);
	ck_assert_int_eq(rec.node, 2);
	ck_assert_double_eq(rec.waited, 0);
	ck_assert_double_eq(rec.last, 101);
	/* The same plan again changes nothing. */
	ck_assert_int_eq(_step(j, 2, &p, &rec, 102), DL_PLACE_KEEP);
	ck_assert_int_eq(rec.node, 2);
	fx_teardown();
}

END_TEST

/*
 * A job of 400e6 bytes (a 300e6, b 60e6, c 40e6): with hysteresis 0.25 a
 * move needs 100e6 more bytes cached on the new node than on the current.
 */
START_TEST(test_hysteresis)
{
	dl_place_params_t p;
	dl_place_t rec;
	uint32_t f[3];
	size_t j;

	_setup(3, 1);
	f[0] = fx_file("/a", 300000000);
	f[1] = fx_file("/b", 60000000);
	f[2] = fx_file("/c", 40000000);
	j = _job(1, f, 3, 1, NULL);
	dl_place_params_default(&p);
	dl_place_init(&rec);
	ck_assert_int_eq(_step(j, 0, &p, &rec, 10), DL_PLACE_SET);

	/* 60e6 more on node 1: not enough. */
	_cache(1, f[1]);
	ck_assert_int_eq(_step(j, 1, &p, &rec, 11), DL_PLACE_KEEP);
	ck_assert_int_eq(rec.node, 0);
	/* 100e6 more: exactly enough. */
	_cache(1, f[2]);
	ck_assert_int_eq(_step(j, 1, &p, &rec, 12), DL_PLACE_SET);
	ck_assert_int_eq(rec.node, 1);
	/* Node 2 holds as much as node 1 now: no gain, no move, even
	 * without hysteresis. */
	_cache(2, f[1]);
	_cache(2, f[2]);
	p.hysteresis = 0;
	ck_assert_int_eq(_step(j, 2, &p, &rec, 13), DL_PLACE_KEEP);
	ck_assert_int_eq(rec.node, 1);
	/* Back to node 0 once it holds 300e6: 200e6 more than node 1. */
	p.hysteresis = 0.25;
	_cache(0, f[0]);
	ck_assert_int_eq(_step(j, 0, &p, &rec, 14), DL_PLACE_SET);
	ck_assert_int_eq(rec.node, 0);
	/* A hysteresis of 1 asks for the whole input more: never here. */
	p.hysteresis = 1.0;
	_cache(2, f[0]);
	ck_assert_int_eq(_step(j, 2, &p, &rec, 15), DL_PLACE_KEEP);
	ck_assert_int_eq(rec.node, 0);
	fx_teardown();
}

END_TEST

/* bound = factor x cached / rbw within [min, max]; infinite if strict. */
START_TEST(test_bound)
{
	dl_place_params_t p;
	uint32_t f[4];
	size_t j;

	_setup(2, 1);
	f[0] = fx_file("/small", 100000000); /* 1 s */
	f[1] = fx_file("/mid", 900000000);   /* 9 s */
	f[2] = fx_file("/big", 50000000000); /* 500 s */
	f[3] = fx_file("/other", 200000000);
	j = _job(1, f, 4, 1, NULL);
	dl_place_params_default(&p);

	/* Nothing cached: the floor. */
	ck_assert_double_eq(dl_place_bound(ts, &ts->jobs[j], 0, &p), 2.0);
	_cache(0, f[0]);
	ck_assert_double_eq(dl_place_bound(ts, &ts->jobs[j], 0, &p), 2.0);
	_cache(0, f[1]);
	ck_assert_double_eq_tol(dl_place_bound(ts, &ts->jobs[j], 0, &p), 10.0,
				1e-12);
	p.wait_factor = 2.5;
	ck_assert_double_eq_tol(dl_place_bound(ts, &ts->jobs[j], 0, &p), 25.0,
				1e-12);
	p.min_wait = 30;
	ck_assert_double_eq(dl_place_bound(ts, &ts->jobs[j], 0, &p), 30.0);
	/* Other nodes' copies do not count. */
	_cache(1, f[2]);
	ck_assert_double_eq(dl_place_bound(ts, &ts->jobs[j], 0, &p), 30.0);
	/* The cap. */
	ck_assert_double_eq(dl_place_bound(ts, &ts->jobs[j], 1, &p), 300.0);
	p.max_wait = 2000;
	ck_assert_double_eq_tol(dl_place_bound(ts, &ts->jobs[j], 1, &p),
				1250.0, 1e-9);
	p.strict = 1;
	ck_assert(isinf(dl_place_bound(ts, &ts->jobs[j], 0, &p)));
	ck_assert(isinf(dl_place_bound(ts, &ts->jobs[j], 1, &p)));
	/* Node 0 serves its copy to peers at 2e8 B/s: 1e9 bytes, 5 s. */
	{
		uint8_t src[3] = { 1, 0, 1 };

		p.strict = 0;
		p.min_wait = 2;
		p.wait_factor = 1;
		p.peer_bw = 2e8;
		ck_assert_double_eq_tol(dl_place_bound(ts, &ts->jobs[j], 0, &p),
					5.0, 1e-12);
		p.peer_src = src;
		ck_assert_double_eq_tol(dl_place_bound(ts, &ts->jobs[j], 0, &p),
					5.0, 1e-12);
		src[0] = 0; /* its service is gone: the storage's price */
		ck_assert_double_eq_tol(dl_place_bound(ts, &ts->jobs[j], 0, &p),
					10.0, 1e-12);
		src[0] = 1;
		p.peer_bw = 5e7; /* slower than the storage: not used */
		ck_assert_double_eq_tol(dl_place_bound(ts, &ts->jobs[j], 0, &p),
					10.0, 1e-12);
		p.peer_src = NULL;
		p.min_wait = 30;
	}
	/* A storage bandwidth of 0 is infinite (dl_cost.h): fetching costs
	 * nothing, so the wait is the floor, not the cap. */
	p.strict = 0;
	ts->params.rbw = 0;
	ck_assert_double_eq(dl_place_bound(ts, &ts->jobs[j], 1, &p), 30.0);
	ck_assert_uint_eq(dl_place_cached_bytes(ts, &ts->jobs[j], 0),
			  1000000000);
	ck_assert_uint_eq(dl_place_cached_bytes(ts, &ts->jobs[j], 2), 0);
	ck_assert_uint_eq(dl_place_cached_bytes(NULL, &ts->jobs[j], 0), 0);
	fx_teardown();
}

END_TEST

/*
 * A job whose whole input would not lift the wait above the floor gets the
 * floor without its node's copies being looked up; the floor and cap keep
 * their order, and a job over the floor is still priced by its node's
 * copies, not by all of its input.
 */
START_TEST(test_bound_floor)
{
	dl_place_params_t p;
	uint32_t f[3];
	size_t small, big;

	_setup(2, 1);
	f[0] = fx_file("/a", 50000000);  /* 0.5 s */
	f[1] = fx_file("/b", 100000000); /* 1 s */
	f[2] = fx_file("/c", 300000000); /* 3 s */
	small = _job(1, f, 2, 1, NULL);  /* 1.5 s in all */
	big = _job(2, f, 3, 1, NULL);    /* 4.5 s in all */
	dl_place_params_default(&p);
	_cache(0, f[0]);
	_cache(0, f[1]);
	/* Under the 2-s floor with all of its input: the floor. */
	ck_assert_double_eq(dl_place_bound(ts, &ts->jobs[small], 0, &p), 2.0);
	ck_assert_double_eq(dl_place_bound(ts, &ts->jobs[small], 1, &p), 2.0);
	/* A floor under it: what node 0 holds, 1.5 s; node 1: the floor. */
	p.min_wait = 1.0;
	ck_assert_double_eq_tol(dl_place_bound(ts, &ts->jobs[small], 0, &p),
				1.5, 1e-12);
	ck_assert_double_eq(dl_place_bound(ts, &ts->jobs[small], 1, &p), 1.0);
	/* Exactly at the floor: the floor. */
	p.min_wait = 1.5;
	ck_assert_double_eq(dl_place_bound(ts, &ts->jobs[small], 0, &p), 1.5);
	/* The cap under the floor wins, as before. */
	p.min_wait = 2.0;
	p.max_wait = 1.0;
	ck_assert_double_eq(dl_place_bound(ts, &ts->jobs[small], 0, &p), 1.0);
	/* Over the floor in all (4.5 s), 1.5 s on node 0: the floor there;
	 * with node 0 holding /c too, 4.5 s. */
	p.max_wait = 300;
	ck_assert_double_eq(dl_place_bound(ts, &ts->jobs[big], 0, &p), 2.0);
	_cache(0, f[2]);
	ck_assert_double_eq_tol(dl_place_bound(ts, &ts->jobs[big], 0, &p),
				4.5, 1e-12);
	/* A factor of 0 prices nothing: the floor. */
	p.wait_factor = 0;
	ck_assert_double_eq(dl_place_bound(ts, &ts->jobs[big], 0, &p), 2.0);
	fx_teardown();
}

END_TEST

/* A running job on n staging its files: the pending job's wait for n is
 * worth them (they will be there), unless they cannot fit n's cache. */
START_TEST(test_bound_coming)
{
	dl_place_params_t p;
	dl_job_t r = { 0 };
	uint32_t f[3];
	size_t j;

	_setup(3, 1);
	f[0] = fx_file("/heavy", 4000000000);  /* 40 s */
	f[1] = fx_file("/private", 100000000); /* 1 s */
	f[2] = fx_file("/huge", 9000000000);   /* 90 s, above node 2's cache */
	r.id = 1;
	r.state = DL_JOB_RUNNING;
	r.node = 1;
	r.files = f;
	r.nfiles = 1;
	r.compute = -1;
	ck_assert_int_ge(dl_state_add_job(ts, &r), 0);
	r.id = 2;
	r.node = 2;
	r.files = &f[2];
	ck_assert_int_ge(dl_state_add_job(ts, &r), 0);
	ck_assert_int_eq(dl_cache_set_capacity(fx_cache, 2, 5000000000), 0);
	j = _job(3, f, 3, 1, NULL);
	dl_place_params_default(&p);

	ck_assert(dl_state_node_reads(ts, 1, f[0]));
	ck_assert(!dl_state_node_reads(ts, 0, f[0]));
	ck_assert(!dl_state_node_reads(ts, 1, f[1]));
	ck_assert(!dl_state_node_reads(NULL, 1, f[0]));
	/* Node 1 is fetching /heavy: 40 s; nobody fetches for node 0. */
	ck_assert_uint_eq(dl_place_coming_bytes(ts, &ts->jobs[j], 1),
			  4000000000);
	ck_assert_double_eq_tol(dl_place_bound(ts, &ts->jobs[j], 1, &p), 40.0,
				1e-9);
	ck_assert_double_eq(dl_place_bound(ts, &ts->jobs[j], 0, &p), 2.0);
	/* /huge is read past node 2's 5 GB cache: it never arrives. */
	ck_assert_uint_eq(dl_place_coming_bytes(ts, &ts->jobs[j], 2), 0);
	ck_assert_double_eq(dl_place_bound(ts, &ts->jobs[j], 2, &p), 2.0);
	/* Cached and coming bytes add up, each once. */
	_cache(1, f[1]);
	_cache(1, f[0]);
	ck_assert_uint_eq(dl_place_coming_bytes(ts, &ts->jobs[j], 1),
			  4100000000);
	ck_assert_uint_eq(dl_place_cached_bytes(ts, &ts->jobs[j], 1),
			  4100000000);
	ck_assert_uint_eq(dl_place_coming_bytes(ts, &ts->jobs[j], 3), 0);
	ck_assert_uint_eq(dl_place_coming_bytes(NULL, &ts->jobs[j], 1), 0);
	fx_teardown();
}

END_TEST

/* Blocked: the job's node has no room while another eligible one has. */
START_TEST(test_blocked)
{
	uint8_t elig[3] = { 1, 1, 0 };
	uint32_t f;
	size_t j, k;

	_setup(3, 2);
	f = fx_file("/a", 1000);
	j = _job(1, &f, 1, 2, NULL);
	k = _job(2, &f, 1, 2, elig);
	ck_assert_int_eq(dl_place_blocked(ts, &ts->jobs[j], 0), 0);
	ts->nodes[0].busy = 1; /* one slot left, the job needs two */
	ck_assert_int_eq(dl_place_blocked(ts, &ts->jobs[j], 0), 1);
	ts->nodes[1].busy = 1;
	ck_assert_int_eq(dl_place_blocked(ts, &ts->jobs[j], 0), 1); /* n2 */
	/* Node 2 has room but job k may not run there. */
	ck_assert_int_eq(dl_place_blocked(ts, &ts->jobs[k], 0), 0);
	ts->nodes[2].usable = 0;
	ck_assert_int_eq(dl_place_blocked(ts, &ts->jobs[j], 0), 0);
	ck_assert_int_eq(dl_place_blocked(NULL, &ts->jobs[j], 0), 0);
	ck_assert_int_eq(dl_place_blocked(ts, &ts->jobs[j], 3), 0);
	fx_teardown();
}

END_TEST

/* dl_place_room(st), in a static for one-line checks. */
static const dl_place_room_t *_room_of(const dl_state_t *st)
{
	static dl_place_room_t r;

	dl_place_room(st, &r);
	return &r;
}

/* dl_place_blocked_free() of job j on node n, the summary made now. */
static int _bf(size_t j, uint32_t n)
{
	return dl_place_blocked_free(ts, &ts->jobs[j], n, _room_of(ts));
}

/* The *_free() variants answer as the plain ones, from one scan. */
START_TEST(test_blocked_free)
{
	uint8_t elig[3] = { 1, 1, 0 };
	dl_place_params_t p;
	dl_place_t r1, r2;
	uint32_t f;
	size_t j, k;

	_setup(3, 2);
	dl_place_params_default(&p);
	f = fx_file("/a", 1000);
	j = _job(1, &f, 1, 2, NULL);
	k = _job(2, &f, 1, 2, elig);
	ck_assert_uint_eq(dl_place_max_free(ts), 2);
	ts->nodes[0].busy = 1;
	ck_assert_uint_eq(dl_place_max_free(ts), 2);
	ck_assert_int_eq(_bf(j, 0), 1);
	ck_assert_int_eq(_bf(k, 0), 1);
	ts->nodes[1].busy = 1;
	ck_assert_int_eq(_bf(j, 0), 1);
	ck_assert_int_eq(_bf(k, 0), 0);
	ts->nodes[2].busy = 2; /* full everywhere: blocked nowhere */
	ck_assert_uint_eq(dl_place_max_free(ts), 1);
	ck_assert_int_eq(_bf(j, 0), 0);
	ck_assert_int_eq(dl_place_blocked(ts, &ts->jobs[j], 0), 0);
	ts->nodes[2].busy = 0;
	ts->nodes[2].usable = 0;
	ck_assert_uint_eq(dl_place_max_free(ts), 1);
	ck_assert_int_eq(_bf(j, 0), 0);
	ck_assert_uint_eq(dl_place_max_free(NULL), 0);
	/* A step with the hint is the step without it. */
	ts->nodes[2].usable = 1;
	dl_place_init(&r1);
	dl_place_init(&r2);
	ts->now = 10;
	ck_assert_int_eq(dl_place_step(ts, j, 0, &p, &r1),
			 dl_place_step_free(ts, j, 0, &p, &r2, _room_of(ts)));
	ts->now = 20;
	ck_assert_int_eq(dl_place_step(ts, j, 0, &p, &r1),
			 dl_place_step_free(ts, j, 0, &p, &r2, _room_of(ts)));
	ck_assert_double_eq(r1.waited, r2.waited);
	ck_assert_double_eq(r1.waited, 10);
	fx_teardown();
}
END_TEST

/*
 * n nodes of one slot, a job of one 500e6-byte file cached on node 0
 * (bound 5 s), node 0 busy, and its first step at 100, restricting it to
 * node 0.  RET the job's index.
 */
static size_t _placed_on_busy_0(uint32_t n, dl_place_params_t *p,
				dl_place_t *rec)
{
	uint32_t f;
	size_t j;

	_setup(n, 1);
	f = fx_file("/a", 500000000);
	j = _job(1, &f, 1, 1, NULL);
	_cache(0, f);
	dl_place_params_default(p);
	dl_place_init(rec);
	ts->nodes[0].busy = 1;
	ck_assert_int_eq(_step(j, 0, p, rec, 100), DL_PLACE_SET);
	return j;
}

/*
 * A one-CPU job eligible everywhere takes its answer from the summary
 * (dl_place_room()); the same job with an eligibility list of all nodes
 * scans them.  Both agree on random states, every node and clock.
 */
START_TEST(test_room_summary)
{
	uint8_t all[6] = { 1, 1, 1, 1, 1, 1 };
	unsigned seed = 7;
	uint32_t f, n;
	size_t a, b;
	int round;

	_setup(6, 1);
	f = fx_file("/a", 1000);
	a = _job(1, &f, 1, 1, NULL);
	b = _job(2, &f, 1, 1, all);
	for (round = 0; round < 500; round++) {
		const dl_place_room_t *r;

		for (n = 0; n < 6; n++) {
			ts->nodes[n].busy = rand_r(&seed) % 3 ? 1 : 0;
			ts->nodes[n].usable = rand_r(&seed) % 5 != 0;
			ts->nodes[n].freed = (rand_r(&seed) % 4) * 10.0 - 5;
		}
		ts->now = 50;
		r = _room_of(ts);
		for (n = 0; n < 6; n++) {
			double last = (rand_r(&seed) % 3) * 10.0;

			ck_assert_double_eq(
				dl_place_blocked_for(ts, &ts->jobs[a], n, r,
						     last),
				dl_place_blocked_for(ts, &ts->jobs[b], n, r,
						     last));
		}
	}
	fx_teardown();
}
END_TEST

/*
 * A node that freed after the job's last step holds it back only from
 * the moment it freed (dl_node_t.freed): a node between two jobs, which
 * the batch system is about to fill, costs the job no wait.  Of several
 * free nodes the first to free counts; 0 counts as long ago.
 */
START_TEST(test_freed)
{
	dl_place_params_t p;
	dl_place_t rec;
	size_t j;

	j = _placed_on_busy_0(3, &p, &rec);
	ts->nodes[1].busy = 1;
	ts->nodes[2].busy = 1;
	/* Node 2 freed at 100.9: 0.1 s of the second counts. */
	ts->nodes[2].busy = 0;
	ts->nodes[2].freed = 100.9;
	ck_assert_int_eq(_step(j, 0, &p, &rec, 101), DL_PLACE_KEEP);
	ck_assert_double_eq_tol(rec.waited, 0.1, 1e-9);
	/* Still free at the next step: all of the interval counts. */
	ck_assert_int_eq(_step(j, 0, &p, &rec, 102), DL_PLACE_KEEP);
	ck_assert_double_eq_tol(rec.waited, 1.1, 1e-9);
	ck_assert_double_eq_tol(dl_place_blocked_for(ts, &ts->jobs[j], 0,
						     _room_of(ts), 101.5),
				0.5, 1e-9);
	/* Node 1 too, at 102.5; node 2 has room since earlier: it counts. */
	ts->nodes[1].busy = 0;
	ts->nodes[1].freed = 102.5;
	ck_assert_int_eq(_step(j, 0, &p, &rec, 103), DL_PLACE_KEEP);
	ck_assert_double_eq_tol(rec.waited, 2.1, 1e-9);
	/* Refilled and freed again at 103.95: 0.05 s. */
	ts->nodes[1].busy = 1;
	ts->nodes[2].freed = 103.95;
	ck_assert_int_eq(_step(j, 0, &p, &rec, 104), DL_PLACE_KEEP);
	ck_assert_double_eq_tol(rec.waited, 2.15, 1e-9);
	/* Unknown: as long ago, the whole interval. */
	ts->nodes[2].freed = 0;
	ck_assert_int_eq(_step(j, 0, &p, &rec, 105), DL_PLACE_KEEP);
	ck_assert_double_eq_tol(rec.waited, 3.15, 1e-9);
	/* Not blocked: -1; a node that is full does not count however
	 * long ago it freed. */
	ts->nodes[2].busy = 1;
	ck_assert_double_eq(dl_place_blocked_for(ts, &ts->jobs[j], 0,
						 _room_of(ts), 104),
			    -1);
	ck_assert_int_eq(_step(j, 0, &p, &rec, 106), DL_PLACE_KEEP);
	ck_assert_double_eq_tol(rec.waited, 3.15, 1e-9);
	fx_teardown();
}

END_TEST

/*
 * A wide job waits for the nodes to drain: a job ahead of it (higher
 * priority) widens as soon as it is blocked, whatever its node caches;
 * one behind it, or with no wide job waiting, keeps the usual bound.
 */
START_TEST(test_wide_waiting)
{
	dl_place_params_t p;
	dl_place_t rec;
	size_t j;

	j = _placed_on_busy_0(2, &p, &rec);
	ts->jobs[j].priority = 10;
	ck_assert_double_eq(dl_place_bound(ts, &ts->jobs[j], 0, &p), 5);
	ts->wide_waiting = 1;
	ts->wide_priority = 10; /* not ahead of it: a tie is Slurm's call */
	ck_assert_double_eq(dl_place_bound(ts, &ts->jobs[j], 0, &p), 5);
	ck_assert_int_eq(_step(j, 0, &p, &rec, 100.5), DL_PLACE_KEEP);
	ck_assert_double_eq(rec.waited, 0.5);
	ts->wide_priority = 9;
	ck_assert_double_eq(dl_place_bound(ts, &ts->jobs[j], 0, &p), 0);
	ck_assert_int_eq(_step(j, 0, &p, &rec, 100.6), DL_PLACE_WIDEN);
	ck_assert_int_eq(rec.node, -1);
	ck_assert_int_eq(rec.widened, 1);
	/* Strict placement still never widens. */
	p.strict = 1;
	ck_assert(isinf(dl_place_bound(ts, &ts->jobs[j], 0, &p)));
	fx_teardown();
}
END_TEST

/*
 * Restricted to node 0, which holds 500e6 of its bytes (bound 5 s): it
 * waits only while node 0 is full and node 1 is free, and is widened when
 * the waiting reaches 5 s, for good.
 */
START_TEST(test_wait_only_while_blocked)
{
	dl_place_params_t p;
	dl_place_t rec;
	size_t j;

	j = _placed_on_busy_0(2, &p, &rec);
	ck_assert_int_eq(_step(j, 0, &p, &rec, 102), DL_PLACE_KEEP);
	ck_assert_double_eq(rec.waited, 2);
	ck_assert_double_eq(rec.bound, 5);
	/* A step at the same time adds nothing. */
	ck_assert_int_eq(_step(j, 0, &p, &rec, 102), DL_PLACE_KEEP);
	ck_assert_double_eq(rec.waited, 2);
	/* Node 1 full too: not blocked, the time does not count. */
	ts->nodes[1].busy = 1;
	ck_assert_int_eq(_step(j, 0, &p, &rec, 150), DL_PLACE_KEEP);
	ck_assert_double_eq(rec.waited, 2);
	/* Its own node free: not blocked either. */
	ts->nodes[0].busy = 0;
	ck_assert_int_eq(_step(j, 0, &p, &rec, 160), DL_PLACE_KEEP);
	ck_assert_double_eq(rec.waited, 2);
	/* Blocked again; a clock going back counts nothing. */
	ts->nodes[0].busy = 1;
	ts->nodes[1].busy = 0;
	ck_assert_int_eq(_step(j, 0, &p, &rec, 155), DL_PLACE_KEEP);
	ck_assert_double_eq(rec.waited, 2);
	ck_assert_int_eq(_step(j, 0, &p, &rec, 157.5), DL_PLACE_KEEP);
	ck_assert_double_eq(rec.waited, 4.5);
	ck_assert_int_eq(rec.node, 0);
	/* Exactly at the bound: widened. */
	ck_assert_int_eq(_step(j, 0, &p, &rec, 158), DL_PLACE_WIDEN);
	ck_assert_int_eq(rec.node, -1);
	ck_assert_int_eq(rec.widened, 1);
	/* Never restricted again, whatever the plan and the nodes say. */
	ts->nodes[0].busy = 0;
	ck_assert_int_eq(_step(j, 0, &p, &rec, 159), DL_PLACE_KEEP);
	ck_assert_int_eq(_step(j, 1, &p, &rec, 160), DL_PLACE_KEEP);
	ck_assert_int_eq(rec.node, -1);
	ck_assert_int_eq(rec.widened, 1);
	fx_teardown();
}

END_TEST

/* Moving to another node starts the wait over. */
START_TEST(test_move_keeps_wait)
{
	dl_place_params_t p;
	dl_place_t rec;
	uint32_t f;
	size_t j;

	_setup(3, 1);
	f = fx_file("/a", 100000000);
	j = _job(1, &f, 1, 1, NULL);
	dl_place_params_default(&p);
	dl_place_init(&rec);
	ts->nodes[0].busy = 1;
	ts->nodes[1].busy = 1;
	ck_assert_int_eq(_step(j, 0, &p, &rec, 10), DL_PLACE_SET);
	ck_assert_int_eq(_step(j, 0, &p, &rec, 11.5), DL_PLACE_KEEP);
	ck_assert_double_eq(rec.waited, 1.5);
	_cache(1, f);
	ck_assert_int_eq(_step(j, 1, &p, &rec, 12), DL_PLACE_SET);
	ck_assert_int_eq(rec.node, 1);
	ck_assert_double_eq(rec.waited, 1.5);
	ck_assert_double_eq(rec.bound, 2);
	/* 0.4 s more stays below node 1's 2 s bound; 0.1 s more reaches it. */
	ck_assert_int_eq(_step(j, 1, &p, &rec, 12.4), DL_PLACE_KEEP);
	ck_assert_int_eq(rec.node, 1);
	ck_assert_int_eq(_step(j, 1, &p, &rec, 12.5), DL_PLACE_WIDEN);
	fx_teardown();
}

END_TEST

/* Strict: blocked for ever, never widened. */
START_TEST(test_strict)
{
	dl_place_params_t p;
	dl_place_t rec;
	uint32_t f;
	size_t j;

	_setup(2, 1);
	f = fx_file("/a", 100000000);
	j = _job(1, &f, 1, 1, NULL);
	dl_place_params_default(&p);
	p.strict = 1;
	dl_place_init(&rec);
	ts->nodes[0].busy = 1;
	ck_assert_int_eq(_step(j, 0, &p, &rec, 10), DL_PLACE_SET);
	ck_assert_int_eq(_step(j, 0, &p, &rec, 1e6), DL_PLACE_KEEP);
	ck_assert_double_eq(rec.waited, 1e6 - 10);
	ck_assert(isinf(rec.bound));
	ck_assert_int_eq(rec.node, 0);
	/* A node that went down is only full: it keeps the job, and a plan
	 * moves it only past the hysteresis. */
	ts->nodes[0].usable = 0;
	ck_assert_int_eq(_step(j, -1, &p, &rec, 2e6), DL_PLACE_KEEP);
	ck_assert_int_eq(_step(j, 1, &p, &rec, 2e6 + 1), DL_PLACE_KEEP);
	ck_assert_int_eq(rec.node, 0);
	ck_assert_int_eq(rec.widened, 0);
	_cache(1, f);
	ck_assert_int_eq(_step(j, 1, &p, &rec, 2e6 + 2), DL_PLACE_SET);
	ck_assert_int_eq(rec.node, 1);
	fx_teardown();
}

END_TEST

/*
 * A node that left the job's partitions: to the plan's node (no
 * hysteresis: there is nothing to keep), else widened.  A node that went
 * down is only full: the job waits for it as for a busy one, bounded.
 */
START_TEST(test_lost_node)
{
	uint8_t elig[3] = { 1, 1, 1 };
	dl_place_params_t p;
	dl_place_t rec;
	uint32_t f;
	size_t j;

	_setup(3, 1);
	f = fx_file("/a", 100000000);
	j = _job(1, &f, 1, 1, elig);
	_cache(0, f);
	dl_place_params_default(&p);

	/* Down, with a plan elsewhere and 1e8 bytes cached there: blocked,
	 * bound 2 s (the floor), then widened. */
	dl_place_init(&rec);
	ck_assert_int_eq(_step(j, 0, &p, &rec, 10), DL_PLACE_SET);
	ts->nodes[0].usable = 0;
	ck_assert_int_eq(dl_place_blocked(ts, &ts->jobs[j], 0), 1);
	ck_assert_int_eq(_step(j, 2, &p, &rec, 11), DL_PLACE_KEEP);
	ck_assert_int_eq(rec.node, 0);
	ck_assert_double_eq(rec.waited, 1);
	ck_assert_int_eq(_step(j, 2, &p, &rec, 12), DL_PLACE_WIDEN);
	ck_assert_int_eq(rec.node, -1);
	ts->nodes[0].usable = 1;

	/* Ineligible now, and the plan still says node 0 (which the step
	 * cannot use): widened. */
	dl_place_init(&rec);
	ck_assert_int_eq(_step(j, 0, &p, &rec, 20), DL_PLACE_SET);
	ts->jobs[j].eligible[0] = 0;
	ck_assert_int_eq(_step(j, 0, &p, &rec, 21), DL_PLACE_WIDEN);
	ck_assert_int_eq(rec.node, -1);
	ck_assert_int_eq(rec.widened, 1);

	/* Out of its partitions with a plan elsewhere: moved there, whatever
	 * the node holds. */
	ts->jobs[j].eligible[0] = 1;
	dl_place_init(&rec);
	ck_assert_int_eq(_step(j, 0, &p, &rec, 30), DL_PLACE_SET);
	ts->jobs[j].eligible[0] = 0;
	ck_assert_int_eq(_step(j, 2, &p, &rec, 31), DL_PLACE_SET);
	ck_assert_int_eq(rec.node, 2);
	fx_teardown();
}

END_TEST

/* A running job of cpus slots on node, with secs left at now 0. */
static void _running(uint32_t id, uint32_t node, double secs)
{
	dl_job_t r = { 0 };

	r.id = id;
	r.state = DL_JOB_RUNNING;
	r.node = (int32_t)node;
	r.cpus = 1;
	r.compute = secs;
	r.start = 0;
	ck_assert_int_ge(dl_state_add_job(ts, &r), 0);
	ts->nodes[node].busy++;
}

/* Three 1-slot nodes and three files of 1e9 bytes each, into f. */
static void _setup_three(uint32_t f[3])
{
	_setup(3, 1);
	f[0] = fx_file("/a", 1000000000);
	f[1] = fx_file("/b", 1000000000);
	f[2] = fx_file("/c", 1000000000);
}

/*
 * Power saving.  Three 1-slot nodes; a job reads three files of 1e9 bytes
 * (10 s each at the fixture's 1e8 B/s: 30 s from storage).  n3 is
 * powered down, ResumeCost 60 s.
 */
START_TEST(test_warm)
{
	uint8_t elig[3] = { 1, 1, 1 }, only3[3] = { 0, 0, 1 };
	dl_place_params_t p;
	dl_place_t rec;
	uint32_t f[3];
	size_t j, k;

	_setup_three(f);
	dl_place_params_default(&p);
	ts->now = 0;
	ts->nodes[2].wake = 60;

	/* Cache lost: 60 + 30 s on n3 against 30 s on n1 or n2: n1 (ties:
	 * the lowest index), and the step places it there. */
	j = _job(1, f, 3, 1, elig);
	ck_assert_int_eq(dl_place_warm(ts, &ts->jobs[j], 2, NULL, 0), 0);
	dl_place_init(&rec);
	ck_assert_int_eq(_step(j, 2, &p, &rec, 1), DL_PLACE_SET);
	ck_assert_int_eq(rec.node, 0);
	/* A warm node is its own answer. */
	ck_assert_int_eq(dl_place_warm(ts, &ts->jobs[j], 1, NULL, 0), 1);

	/* Cache kept: 60 s against 30 s, still n1; resuming in 20 s: n3. */
	_cache(2, f[0]);
	_cache(2, f[1]);
	_cache(2, f[2]);
	ck_assert_int_eq(dl_place_warm(ts, &ts->jobs[j], 2, NULL, 0), 0);
	ts->nodes[2].wake = 20;
	ck_assert_int_eq(dl_place_warm(ts, &ts->jobs[j], 2, NULL, 0), 2);
	dl_place_init(&rec);
	ck_assert_int_eq(_step(j, 2, &p, &rec, 2), DL_PLACE_SET);
	ck_assert_int_eq(rec.node, 2);
	ts->nodes[2].wake = 60;

	/* Only n3 eligible: nothing warm to prefer. */
	k = _job(2, f, 3, 1, only3);
	ck_assert_int_eq(dl_place_warm(ts, &ts->jobs[k], 2, NULL, 0), 2);
	fx_teardown();
}

END_TEST

/*
 * Waiting for a warm node against waking a cold one that kept the files
 * (60 s): n1 and n2 run jobs with 100 s and 10 s left: n2, 10 + 30 = 40 s.
 * With 100 s left on both, 130 s: n3.  With a job the state does not list
 * holding n2, n2 never frees as far as the model knows.
 */
START_TEST(test_warm_busy)
{
	uint8_t elig[3] = { 1, 1, 1 };
	dl_cost_end_t *ends = NULL;
	size_t j, nends = 0;
	uint32_t f[3];

	_setup_three(f);
	_cache(2, f[0]);
	_cache(2, f[1]);
	_cache(2, f[2]);
	ts->now = 0;
	ts->nodes[2].wake = 60;
	_running(10, 0, 100);
	_running(11, 1, 10);
	j = _job(1, f, 3, 1, elig);
	ck_assert_int_eq(dl_place_warm(ts, &ts->jobs[j], 2, NULL, 0), 1);
	ck_assert_int_eq(dl_cost_ends(ts, &ends, &nends), 0);
	ck_assert_int_eq(dl_place_warm(ts, &ts->jobs[j], 2, ends, nends), 1);
	free(ends);
	ts->jobs[1].compute = 100;
	ck_assert_int_eq(dl_place_warm(ts, &ts->jobs[j], 2, NULL, 0), 2);
	/* Job 11 is on n1 after all: n2's slot is held by a job the state
	 * does not list, n1 frees at 100 s. */
	ts->jobs[1].node = 0;
	ck_assert(isinf(dl_cost_node_wait(ts, 1, 1, NULL, 0)));
	ck_assert_int_eq(dl_place_warm(ts, &ts->jobs[j], 2, NULL, 0), 2);
	fx_teardown();
}

END_TEST

/*
 * A job placed on n1, whose node then powers down and loses its cache
 * (wake 60 s, nothing cached): it moves to the idle warm n2 at once,
 * although no node holds more of its input (the hysteresis would keep
 * it).  Powering down without a warm alternative: it stays.
 */
START_TEST(test_went_cold)
{
	uint8_t elig[3] = { 1, 1, 0 };
	dl_place_params_t p;
	dl_place_t rec;
	uint32_t f;
	size_t j;

	_setup(3, 1);
	f = fx_file("/a", 1000000000);
	dl_place_params_default(&p);
	j = _job(1, &f, 1, 1, elig);
	dl_place_init(&rec);
	ck_assert_int_eq(_step(j, 0, &p, &rec, 1), DL_PLACE_SET);
	ck_assert_int_eq(rec.node, 0);
	ts->nodes[0].wake = 60;
	ck_assert_int_eq(_step(j, 0, &p, &rec, 2), DL_PLACE_SET);
	ck_assert_int_eq(rec.node, 1);
	ck_assert_int_eq(rec.widened, 0);
	/* Back on n1 (say, by hand); n2 now full with a job of unknown end:
	 * waking n1 is the only way. */
	rec.node = 0;
	ts->nodes[1].busy = 1;
	ck_assert_int_eq(_step(j, 0, &p, &rec, 3), DL_PLACE_KEEP);
	ck_assert_int_eq(rec.node, 0);
	/* Powering down (Slurm cannot use it now): any warm node with room
	 * is sooner. */
	ts->nodes[1].busy = 0;
	ts->nodes[0].usable = 0;
	ck_assert_int_eq(_step(j, -1, &p, &rec, 4), DL_PLACE_SET);
	ck_assert_int_eq(rec.node, 1);
	fx_teardown();
}

END_TEST

/* Invalid arguments: KEEP, the record untouched. */
START_TEST(test_invalid)
{
	dl_place_params_t p;
	dl_place_t rec, copy;
	uint32_t f;
	size_t j;

	_setup(2, 1);
	f = fx_file("/a", 100000000);
	j = _job(1, &f, 1, 1, NULL);
	dl_place_params_default(&p);
	dl_place_init(&rec);
	ck_assert_int_eq(_step(j, 1, &p, &rec, 10), DL_PLACE_SET);
	copy = rec;
	ck_assert_int_eq(_step(j + 1, 0, &p, &rec, 20), DL_PLACE_KEEP);
	ck_assert_int_eq(_step(99, 0, &p, &rec, 20), DL_PLACE_KEEP);
	ck_assert_int_eq(dl_place_step(NULL, j, 0, &p, &rec), DL_PLACE_KEEP);
	ck_assert_int_eq(dl_place_step(ts, j, 0, NULL, &rec), DL_PLACE_KEEP);
	ck_assert_int_eq(memcmp(&rec, &copy, sizeof(rec)), 0);
	ck_assert_int_eq(dl_place_step(ts, j, 0, &p, NULL), DL_PLACE_KEEP);

	/* A planned node out of range is no preference: no move... */
	ck_assert_int_eq(_step(j, 2, &p, &rec, 21), DL_PLACE_KEEP);
	ck_assert_int_eq(_step(j, 1000, &p, &rec, 22), DL_PLACE_KEEP);
	ck_assert_int_eq(rec.node, 1);
	/* ...and no first restriction. */
	dl_place_init(&rec);
	ck_assert_int_eq(_step(j, 2, &p, &rec, 23), DL_PLACE_KEEP);
	ck_assert_int_eq(_step(j, -7, &p, &rec, 24), DL_PLACE_KEEP);
	ck_assert_int_eq(rec.node, -1);
	ck_assert_int_eq(rec.widened, 0);
	/* A record holding a node out of range has no restriction. */
	rec.node = 5;
	ck_assert_int_eq(_step(j, 0, &p, &rec, 25), DL_PLACE_SET);
	ck_assert_int_eq(rec.node, 0);
	fx_teardown();
}

END_TEST

/*
 * Pinning: a job of 2e8 bytes restricted to n0 stays there unless another
 * node holds 5e7 bytes more (hysteresis 0.25), so the plan may as well
 * know it can run only there.
 */
START_TEST(test_pin)
{
	dl_place_params_t p;
	uint32_t f[2];
	size_t j, k;

	_setup(3, 1);
	f[0] = fx_file("/f", 100000000);
	f[1] = fx_file("/g", 100000000);
	j = _job(1, f, 2, 1, NULL);
	k = _job(2, f, 2, 1, NULL);
	dl_place_params_default(&p);
	ck_assert_int_eq(dl_place_pin(ts, j, 0, &p), 1);
	ck_assert_ptr_nonnull(ts->jobs[j].eligible);
	ck_assert_int_eq(dl_state_job_eligible(ts, &ts->jobs[j], 0), 1);
	ck_assert_int_eq(dl_state_job_eligible(ts, &ts->jobs[j], 1), 0);
	ck_assert_int_eq(dl_state_job_eligible(ts, &ts->jobs[j], 2), 0);
	/* Node 1 holds 1e8 more: the job may still move, nothing done. */
	_cache(1, f[0]);
	ck_assert_int_eq(dl_place_pin(ts, k, 0, &p), 0);
	ck_assert_ptr_null(ts->jobs[k].eligible);
	/* Unless node 0 holds as much. */
	_cache(0, f[0]);
	ck_assert_int_eq(dl_place_pin(ts, k, 0, &p), 1);
	/* Bad indices, or a node the job may not use: nothing done. */
	ck_assert_int_eq(dl_place_pin(ts, 5, 0, &p), DL_EINVAL);
	ck_assert_int_eq(dl_place_pin(ts, j, 3, &p), DL_EINVAL);
	ck_assert_int_eq(dl_place_pin(ts, j, 1, &p), DL_EINVAL);
	ck_assert_int_eq(dl_place_pin(NULL, j, 0, &p), DL_EINVAL);
	fx_teardown();
}

END_TEST

/*
 * A job of one file is decided from the file's holders (no per-node
 * array), with the general test's answers: pinned unless an eligible
 * node holds the file and its node does not; past 64 holders the
 * general test decides.
 */
START_TEST(test_pin_one_file)
{
	static const uint8_t not1[3] = { 1, 0, 1 };
	dl_place_params_t p;
	uint32_t f, z, n;
	size_t a, b, c, d;

	_setup(3, 1);
	f = fx_file("/f", 100000000);
	z = fx_file("/z", 0);
	a = _job(1, &f, 1, 1, NULL);
	b = _job(2, &f, 1, 1, NULL);
	c = _job(3, &f, 1, 1, not1);
	d = _job(4, &z, 1, 1, NULL);
	dl_place_params_default(&p);
	/* Cached nowhere: nothing to move to. */
	ck_assert_int_eq(dl_place_pin(ts, a, 0, &p), 1);
	/* Node 1 holds it: the job may move, unless it may not use node 1. */
	_cache(1, f);
	ck_assert_int_eq(dl_place_pin(ts, b, 0, &p), 0);
	ck_assert_ptr_null(ts->jobs[b].eligible);
	ck_assert_int_eq(dl_place_pin(ts, c, 0, &p), 1);
	/* Its node holds it too: no node holds more. */
	_cache(0, f);
	ck_assert_int_eq(dl_place_pin(ts, b, 0, &p), 1);
	/* A file of 0 bytes gains nothing anywhere. */
	_cache(1, z);
	ck_assert_int_eq(dl_place_pin(ts, d, 0, &p), 1);
	fx_teardown();

	/* 70 holders but the job's node: the general test, same answer. */
	_setup(71, 1);
	f = fx_file("/f", 100000000);
	a = _job(1, &f, 1, 1, NULL);
	b = _job(2, &f, 1, 1, NULL);
	for (n = 1; n < 71; n++)
		_cache(n, f);
	ck_assert_int_eq(dl_place_pin(ts, a, 0, &p), 0);
	_cache(0, f);
	ck_assert_int_eq(dl_place_pin(ts, b, 0, &p), 1);
	fx_teardown();
}

END_TEST

/*
 * dl_place_pin() looks only at the nodes caching some of the job's input
 * (their holder lists); on random caches, jobs of several files (some
 * repeated), eligibility lists and usable nodes, it must pin exactly when
 * dl_place_worth_moving(), asked of every other eligible node, finds none
 * worth moving to.
 */
START_TEST(test_pin_random)
{
	enum { NODES = 9, FILES = 7 };
	uint32_t fid[FILES], files[6], f, n, k, nf;
	uint8_t elig[NODES];
	dl_place_params_t p;
	unsigned seed = 11;
	int round, pins = 0, moves = 0;

	dl_place_params_default(&p);
	for (round = 0; round < 400; round++) {
		size_t j;
		uint32_t cur;
		int want, got;

		_setup(NODES, 1 + round % 2);
		for (f = 0; f < FILES; f++) {
			char path[16];

			snprintf(path, sizeof(path), "/f%u", f);
			fid[f] = fx_file(path, (uint64_t)(rand_r(&seed) % 4) *
						       25000000);
			for (n = 0; n < NODES; n++)
				if (rand_r(&seed) % 3 == 0)
					_cache(n, fid[f]);
		}
		for (n = 0; n < NODES; n++) {
			ts->nodes[n].usable = rand_r(&seed) % 6 != 0;
			elig[n] = rand_r(&seed) % 4 != 0;
		}
		nf = 1 + (uint32_t)rand_r(&seed) % 6;
		for (k = 0; k < nf; k++)
			files[k] = fid[rand_r(&seed) % FILES];
		p.hysteresis = (rand_r(&seed) % 4) * 0.2;
		j = _job(1, files, nf, 1, rand_r(&seed) % 2 ? elig : NULL);
		cur = (uint32_t)rand_r(&seed) % NODES;
		if (ts->jobs[j].eligible)
			ts->jobs[j].eligible[cur] = 1; /* pin wants it allowed */
		for (want = 1, n = 0; n < NODES; n++)
			if (n != cur && dl_state_job_eligible(ts, &ts->jobs[j], n) &&
			    dl_place_worth_moving(ts, &ts->jobs[j], cur, n, &p))
				want = 0;
		got = dl_place_pin(ts, j, cur, &p);
		ck_assert_int_eq(got, want);
		if (got) {
			pins++;
			for (n = 0; n < NODES; n++)
				ck_assert_int_eq(ts->jobs[j].eligible[n],
						 n == cur);
		} else {
			moves++;
		}
		fx_teardown();
	}
	/* Both answers were tried, many times. */
	ck_assert_int_gt(pins, 50);
	ck_assert_int_gt(moves, 50);
}
END_TEST

/* The blocked-job quota (dl_place_quota(), issue 30). */

/* Slurm's order for the references: priority, arrival, id. */
static int _before_jobs(const dl_job_t *x, const dl_job_t *y)
{
	if (x->priority != y->priority)
		return x->priority > y->priority;
	if (x->arrival != y->arrival)
		return x->arrival < y->arrival;
	return x->id < y->id;
}

static int _before(size_t a, size_t b)
{
	return _before_jobs(&ts->jobs[a], &ts->jobs[b]);
}

/* Whether job k may start on node n now, computed directly. */
static int _fits_now(size_t k, uint32_t n)
{
	const dl_job_t *j = &ts->jobs[k];
	const dl_node_t *nd = &ts->nodes[n];

	return nd->usable && nd->busy + j->cpus <= nd->cpus &&
	       (!j->eligible || j->eligible[n]);
}

/* Blocked, computed directly: not on its node, on another it may use. */
static int _blocked_ref(size_t k, int32_t cur)
{
	uint32_t n;

	if (cur < 0 || _fits_now(k, (uint32_t)cur))
		return 0;
	for (n = 0; n < ts->nnodes; n++)
		if ((int32_t)n != cur && _fits_now(k, n))
			return 1;
	return 0;
}

/*
 * A random state: nodes of 1-4 CPUs, some busy, some unusable; jobs of
 * 1 CPU (or 1-3 if multi), priorities and arrivals drawn from few values
 * (ties), ids a shuffle, so that index order is not Slurm's order; a
 * few restricted nowhere, some with eligible lists if elig.
 */
static void _random_state(unsigned *seed, uint32_t nodes, size_t jobs,
			  int multi, int elig, int32_t *node)
{
	uint32_t ids[64], n, t;
	uint8_t e[16];
	size_t k;

	ck_assert_uint_le(jobs, 64);
	_setup(nodes, 4);
	for (n = 0; n < nodes; n++) {
		ts->nodes[n].cpus = 1 + (uint32_t)rand_r(seed) % 4;
		ts->nodes[n].busy = (uint32_t)rand_r(seed) %
				    (ts->nodes[n].cpus + 1);
		ts->nodes[n].usable = rand_r(seed) % 8 != 0;
	}
	for (k = 0; k < jobs; k++)
		ids[k] = (uint32_t)k + 1;
	for (k = jobs; k > 1; k--) {
		n = (uint32_t)rand_r(seed) % k;
		t = ids[k - 1], ids[k - 1] = ids[n], ids[n] = t;
	}
	for (k = 0; k < jobs; k++) {
		int32_t cur = rand_r(seed) % 6 ? (int32_t)(rand_r(seed) % nodes) :
						  -1;
		size_t j;

		for (n = 0; n < nodes; n++)
			e[n] = rand_r(seed) % 3 != 0;
		if (cur >= 0)
			e[cur] = 1; /* a host restricts to allowed nodes */
		j = _job(ids[k], NULL, 0,
			 multi ? 1 + (uint32_t)rand_r(seed) % 3 : 1,
			 elig && rand_r(seed) % 2 ? e : NULL);
		ts->jobs[j].priority = (uint64_t)(rand_r(seed) % 3);
		ts->jobs[j].arrival = rand_r(seed) % 4;
		node[j] = cur;
	}
}

/* The blocked jobs in Slurm's order (insertion sort); RET count. */
static size_t _blocked_order(const int32_t *node, size_t *b)
{
	size_t k, m = 0, i;

	for (k = 0; k < ts->njobs; k++) {
		if (!_blocked_ref(k, node[k]))
			continue;
		for (i = m++; i > 0 && _before(k, b[i - 1]); i--)
			b[i] = b[i - 1];
		b[i] = k;
	}
	return m;
}

/*
 * One-CPU jobs on any node: the first S blocked jobs in Slurm's order
 * count, S the free slots of the usable nodes; the others do not.
 */
START_TEST(test_quota_slots)
{
	unsigned seed = 29;
	int round, over = 0, all = 0;

	for (round = 0; round < 300; round++) {
		int32_t node[64];
		size_t b[64], m, i, jobs = 1 + (size_t)round % 40;
		uint32_t n, slots = 0;
		dl_place_quota_t q;

		_random_state(&seed, 6, jobs, 0, 0, node);
		for (n = 0; n < ts->nnodes; n++)
			if (ts->nodes[n].usable)
				slots += ts->nodes[n].cpus - ts->nodes[n].busy;
		m = _blocked_order(node, b);
		ck_assert_int_eq(dl_place_quota(ts, node, _room_of(ts), NULL,
						NULL, &q), 0);
		ck_assert_uint_eq(q.blocked, m);
		ck_assert_uint_eq(q.counted, m < slots ? m : slots);
		for (i = 0; i < m; i++)
			ck_assert_int_eq(dl_place_quota_over(&q, b[i]),
					 i >= slots);
		for (i = 0; i < ts->njobs; i++)
			if (!_blocked_ref(i, node[i]))
				ck_assert_int_eq(dl_place_quota_over(&q, i), 0);
		over += m > slots;
		all += m && m <= slots;
		dl_place_quota_free(&q);
		ck_assert_ptr_null(q.over);
		fx_teardown();
	}
	/* Both kinds of state were drawn, many times. */
	ck_assert_int_gt(over, 30);
	ck_assert_int_gt(all, 30);
}
END_TEST

/*
 * Jobs of 1-3 CPUs and eligible lists: walking the blocked jobs in
 * Slurm's order, a job counts if a node other than its own that it may
 * use still has its CPUs after the jobs before it took theirs (first
 * fit); when the free CPUs cover every blocked job's, and every node
 * has a CPU, one-CPU jobs all count.
 */
START_TEST(test_quota_cpus)
{
	unsigned seed = 31;
	int round, over = 0;

	for (round = 0; round < 300; round++) {
		int32_t node[64];
		size_t b[64], m, i;
		uint32_t rem[16], n;
		dl_place_quota_t q;

		_random_state(&seed, 8, 1 + (size_t)round % 30, 1, 1, node);
		for (n = 0; n < ts->nnodes; n++)
			rem[n] = ts->nodes[n].usable ?
					 ts->nodes[n].cpus - ts->nodes[n].busy :
					 0;
		m = _blocked_order(node, b);
		ck_assert_int_eq(dl_place_quota(ts, node, _room_of(ts), NULL,
						NULL, &q), 0);
		ck_assert_uint_eq(q.blocked, m);
		for (i = 0; i < m; i++) {
			uint32_t c = ts->jobs[b[i]].cpus;

			for (n = 0; n < ts->nnodes; n++)
				if ((int32_t)n != node[b[i]] && rem[n] >= c &&
				    _fits_now(b[i], n))
					break;
			if (n < ts->nnodes)
				rem[n] -= c;
			ck_assert_int_eq(dl_place_quota_over(&q, b[i]),
					 n == ts->nnodes);
			over += n == ts->nnodes;
		}
		dl_place_quota_free(&q);
		fx_teardown();
	}
	ck_assert_int_gt(over, 30);
}
END_TEST

/* The host's own test (memory, GRES) adds blocked jobs and room. */
static int _host_fits(const void *arg, const dl_state_t *st, size_t job,
		      uint32_t node)
{
	const uint8_t *f = arg;

	(void)st;
	return f[job * 3 + node];
}

START_TEST(test_quota_fits)
{
	/* Node 0 has CPUs but not the memory of jobs a and b; node 1 has
	 * room for one (1 CPU); node 2 is full. */
	uint8_t f[3 * 3] = { 0, 1, 0, 0, 1, 0, 0, 1, 0 };
	int32_t node[3] = { 0, 0, 2 };
	dl_place_quota_t q;
	size_t a, b, c;

	_setup(3, 2);
	ts->nodes[1].busy = 1;
	ts->nodes[2].busy = 2;
	a = _job(7, NULL, 0, 1, NULL);
	b = _job(5, NULL, 0, 1, NULL);
	c = _job(9, NULL, 0, 1, NULL);
	ts->jobs[c].priority = 1; /* first in Slurm's order */
	/* Library test alone: a and b fit node 0, c is blocked on 2. */
	ck_assert_int_eq(dl_place_quota(ts, node, _room_of(ts), NULL, NULL,
					&q), 0);
	ck_assert_uint_eq(q.blocked, 1);
	ck_assert_int_eq(dl_place_quota_over(&q, c), 0);
	dl_place_quota_free(&q);
	/* The host's test: a and b are blocked too, c counts first (node
	 * 0's CPUs), then b (arrival 5 < 7) on node 1; a is over. */
	ck_assert_int_eq(dl_place_quota(ts, node, _room_of(ts), _host_fits,
					f, &q), 0);
	ck_assert_uint_eq(q.blocked, 3);
	ck_assert_uint_eq(q.counted, 2);
	ck_assert_int_eq(dl_place_quota_over(&q, c), 0);
	ck_assert_int_eq(dl_place_quota_over(&q, b), 0);
	ck_assert_int_eq(dl_place_quota_over(&q, a), 1);
	dl_place_quota_free(&q);
	/* Invalid arguments: an empty quota, every job counts. */
	ck_assert_int_eq(dl_place_quota(NULL, node, _room_of(ts), NULL, NULL,
					&q), DL_EINVAL);
	ck_assert_int_eq(dl_place_quota_over(&q, a), 0);
	ck_assert_int_eq(dl_place_quota(ts, node, _room_of(ts), NULL, NULL,
					NULL), DL_EINVAL);
	ck_assert_int_eq(dl_place_quota_over(NULL, a), 0);
	fx_teardown();
}
END_TEST

/*
 * The step: of three jobs restricted to full node 0 while one slot of
 * node 1 is free, only the first in Slurm's order counts its wait and
 * is widened at the bound; the others' clocks move on.  Without the
 * quota (dl_place_step_free()), all three would be widened.
 */
START_TEST(test_quota_step)
{
	dl_place_params_t p;
	dl_place_t rec[3], old[3];
	dl_place_quota_t q;
	int32_t node[3];
	size_t k, first;
	double t;

	dl_place_params_default(&p);
	_setup(2, 2);
	ts->nodes[0].busy = 2;
	ts->nodes[1].busy = 1;
	for (k = 0; k < 3; k++)
		_job((uint32_t)(10 - k), NULL, 0, 1, NULL);
	/* Equal priorities and arrivals: the lowest id, index 2, first. */
	for (k = 0; k < 3; k++)
		ts->jobs[k].arrival = 1;
	first = 2;
	for (k = 0; k < 3; k++) {
		dl_place_init(&rec[k]);
		ck_assert_int_eq(_step(k, 0, &p, &rec[k], 1), DL_PLACE_SET);
		old[k] = rec[k];
		node[k] = 0;
	}
	for (t = 2; t <= 3; t += 1) {
		ts->now = t;
		ck_assert_int_eq(dl_place_quota(ts, node, _room_of(ts), NULL,
						NULL, &q), 0);
		ck_assert_uint_eq(q.blocked, 3);
		ck_assert_uint_eq(q.counted, 1);
		for (k = 0; k < 3; k++) {
			dl_place_action_t a = dl_place_step_quota(
				ts, k, 0, &p, &rec[k], _room_of(ts), &q);

			ck_assert_int_eq(a, k == first && t == 3 ?
						    DL_PLACE_WIDEN : DL_PLACE_KEEP);
			ck_assert_double_eq(rec[k].last, t);
			if (k != first)
				ck_assert_double_eq(rec[k].waited, 0);
		}
		dl_place_quota_free(&q);
	}
	/* The widened job no longer takes the slot: the next in order
	 * (id 9, index 1) counts from now on, the last one still not. */
	node[first] = -1;
	ts->now = 4;
	ck_assert_int_eq(dl_place_quota(ts, node, _room_of(ts), NULL, NULL,
					&q), 0);
	for (k = 0; k < 2; k++)
		ck_assert_int_eq(dl_place_step_quota(ts, k, 0, &p, &rec[k],
						     _room_of(ts), &q),
				 DL_PLACE_KEEP);
	ck_assert_double_eq(rec[0].waited, 0);
	ck_assert_double_eq_tol(rec[1].waited, 1, 1e-9);
	dl_place_quota_free(&q);
	/* The old rule on the same records: everyone counts. */
	for (k = 0; k < 3; k++)
		ck_assert_int_eq(dl_place_step_free(ts, k, 0, &p, &old[k],
						    _room_of(ts)),
				 DL_PLACE_WIDEN);
	fx_teardown();
}
END_TEST

/* Free slots for every blocked job: the quota changes nothing. */
START_TEST(test_quota_room_for_all)
{
	unsigned seed = 37;
	int round, seen = 0;

	for (round = 0; round < 200; round++) {
		int32_t node[64];
		size_t k, m, b[64];
		dl_place_quota_t q;
		uint32_t n;

		_random_state(&seed, 6, 1 + (size_t)round % 12, 0, 0, node);
		/* Room on every usable node other than node 0 for all. */
		for (n = 1; n < ts->nnodes; n++) {
			ts->nodes[n].cpus = 64;
			ts->nodes[n].busy = 0;
		}
		ts->nodes[0].busy = ts->nodes[0].cpus;
		for (k = 0; k < ts->njobs; k++)
			node[k] = 0;
		m = _blocked_order(node, b);
		ck_assert_int_eq(dl_place_quota(ts, node, _room_of(ts), NULL,
						NULL, &q), 0);
		ck_assert_uint_eq(q.counted, m);
		for (k = 0; k < ts->njobs; k++)
			ck_assert_int_eq(dl_place_quota_over(&q, k), 0);
		seen += m > 0;
		dl_place_quota_free(&q);
		fx_teardown();
	}
	ck_assert_int_gt(seen, 100);
}
END_TEST

/*
 * Multi-node jobs in the quota (dl_place_quota_multi()).  A random set of
 * them beside the single-node jobs of _random_state(): ids interleaved
 * (single even, multi odd) so that ties mix the two kinds; 2-3 nodes of
 * 1-2 CPUs each, sets of distinct nodes, some with eligible lists, some
 * with a host test (fits), a few not judged (set NULL); some needing more
 * free on a node than they take there (node_need), some less (which
 * counts as job.cpus).
 */
#define MAXM 8
typedef struct {
	dl_place_multi_t m[MAXM];
	uint32_t set[MAXM][3];
	uint8_t elig[MAXM][16], fit[MAXM][16];
	size_t n;
} multi_fx_t;

static void _random_multi(unsigned *seed, multi_fx_t *f)
{
	uint32_t nn = ts->nnodes, i, n, x;
	size_t k, used[MAXM];

	for (k = 0; k < ts->njobs; k++)
		ts->jobs[k].id *= 2;
	f->n = (size_t)rand_r(seed) % (MAXM + 1);
	for (k = 0; k < f->n; k++) {
		dl_place_multi_t *m = &f->m[k];
		int dup;

		memset(m, 0, sizeof(*m));
		do { /* distinct odd ids */
			used[k] = 2 * ((size_t)rand_r(seed) % 40) + 1;
			for (dup = 0, i = 0; i < k; i++)
				dup |= used[i] == used[k];
		} while (dup);
		m->job.id = (uint32_t)used[k];
		m->job.state = DL_JOB_PENDING;
		m->job.node = -1;
		m->job.cpus = 1 + (uint32_t)rand_r(seed) % 2;
		m->node_need = rand_r(seed) % 2 ? 0 :
						   (uint32_t)rand_r(seed) % 3;
		m->job.priority = (uint64_t)(rand_r(seed) % 3);
		m->job.arrival = rand_r(seed) % 4;
		m->k = 2 + (uint32_t)rand_r(seed) % 2;
		for (i = 0; i < m->k; i++) { /* distinct nodes */
			do {
				x = (uint32_t)rand_r(seed) % nn;
				for (dup = 0, n = 0; n < i; n++)
					dup |= f->set[k][n] == x;
			} while (dup);
			f->set[k][i] = x;
		}
		for (n = 0; n < nn; n++) {
			f->elig[k][n] = rand_r(seed) % 4 != 0;
			f->fit[k][n] = rand_r(seed) % 2;
		}
		for (i = 0; i < m->k; i++)
			f->elig[k][f->set[k][i]] = 1;
		m->job.eligible = rand_r(seed) % 2 ? f->elig[k] : NULL;
		m->fits = rand_r(seed) % 3 == 0 ? f->fit[k] : NULL;
		m->set = rand_r(seed) % 8 ? f->set[k] : NULL;
	}
}

/* What multi-node job m needs free on a node: node_need, or job.cpus. */
static uint32_t _mneed(const dl_place_multi_t *m)
{
	return m->node_need > m->job.cpus ? m->node_need : m->job.cpus;
}

/* Whether multi-node job m may start on node n now, computed directly. */
static int _mfits(const dl_place_multi_t *m, uint32_t n)
{
	const dl_node_t *nd = &ts->nodes[n];

	if (m->fits)
		return m->fits[n];
	return nd->usable && nd->busy + _mneed(m) <= nd->cpus &&
	       (!m->job.eligible || m->job.eligible[n]);
}

/* Blocked, directly: a node of its set cannot take it, k nodes can. */
static int _mblocked_ref(const dl_place_multi_t *m)
{
	uint32_t i, n, can = 0;
	int held = 0;

	if (!m->set)
		return 0;
	for (i = 0; i < m->k; i++)
		held |= !_mfits(m, m->set[i]);
	for (n = 0; n < ts->nnodes; n++)
		can += _mfits(m, n);
	return held && can >= m->k;
}

/*
 * Whether the reference's job may take room on node n: multi-node job mj
 * (NULL: st's job k, restricted to node[k]) could start there.
 */
static int _ref_can(const dl_place_multi_t *mj, size_t k,
		    const int32_t *node, uint32_t n)
{
	if (mj)
		return _mfits(mj, n);
	return (int32_t)n != node[k] && _fits_now(k, n);
}

/*
 * Random states of single- and multi-node jobs against a direct walk:
 * every blocked job of either kind in one Slurm's order (insertion sort),
 * a single-node job taking its CPUs first-fit on a node other than its
 * own, a multi-node job its CPUs on each of the first k nodes it may
 * start on that still have its need free, all or nothing.
 */
START_TEST(test_quota_multi)
{
	unsigned seed = 41;
	int round, mover = 0, mcount = 0, passed = 0;

	for (round = 0; round < 400; round++) {
		int32_t node[64];
		const dl_job_t *jb[64 + MAXM];
		size_t id[64 + MAXM], m = 0, i, j, counted = 0;
		uint32_t rem[16], take[3], n, got;
		multi_fx_t f;
		dl_place_quota_t q;

		_random_state(&seed, 8, 1 + (size_t)round % 24, 1, 1, node);
		_random_multi(&seed, &f);
		for (n = 0; n < ts->nnodes; n++)
			rem[n] = ts->nodes[n].usable ?
					 ts->nodes[n].cpus - ts->nodes[n].busy :
					 0;
		/* id[]: st's job k as k, multi-node job i as 64 + i. */
		for (j = 0; j < ts->njobs + f.n; j++) {
			const dl_job_t *x = j < ts->njobs ? &ts->jobs[j] :
							    &f.m[j - ts->njobs].job;

			if (j < ts->njobs ? !_blocked_ref(j, node[j]) :
					    !_mblocked_ref(&f.m[j - ts->njobs]))
				continue;
			for (i = m++; i > 0 && _before_jobs(x, jb[i - 1]); i--)
				jb[i] = jb[i - 1], id[i] = id[i - 1];
			jb[i] = x;
			id[i] = j < ts->njobs ? j : 64 + j - ts->njobs;
		}
		ck_assert_int_eq(dl_place_quota_multi(ts, node, f.m, f.n,
						      _room_of(ts), NULL, NULL,
						      &q), 0);
		ck_assert_uint_eq(q.blocked, m);
		for (i = 0; i < m; i++) {
			const dl_place_multi_t *mj = id[i] >= 64 ?
							     &f.m[id[i] - 64] :
							     NULL;
			uint32_t c = jb[i]->cpus, k = mj ? mj->k : 1;
			uint32_t need = mj ? _mneed(mj) : c;
			int over;

			/* The first k nodes with room, all or nothing. */
			for (got = 0, n = 0; n < ts->nnodes && got < k; n++)
				if (rem[n] >= need &&
				    _ref_can(mj, id[i], node, n))
					take[got++] = n;
			over = got < k;
			for (n = 0; !over && n < k; n++)
				rem[take[n]] -= c;
			counted += !over;
			if (mj) {
				ck_assert_int_eq(dl_place_quota_multi_over(
							 &q, id[i] - 64),
						 over);
				ck_assert_int_eq(
					dl_place_multi_blocked(ts, mj), 1);
				mover += over;
				mcount += !over;
			} else {
				ck_assert_int_eq(dl_place_quota_over(&q, id[i]),
						 over);
			}
		}
		ck_assert_uint_eq(q.counted, counted);
		/* Not blocked: never over; blocked as the reference says. */
		for (i = 0; i < f.n; i++) {
			ck_assert_int_eq(dl_place_multi_blocked(ts, &f.m[i]),
					 _mblocked_ref(&f.m[i]));
			if (!_mblocked_ref(&f.m[i]))
				ck_assert_int_eq(dl_place_quota_multi_over(&q, i),
						 0);
		}
		for (i = 0; i < ts->njobs; i++)
			if (!_blocked_ref(i, node[i]))
				ck_assert_int_eq(dl_place_quota_over(&q, i), 0);
		passed += m > 0;
		dl_place_quota_free(&q);
		fx_teardown();
	}
	/* Multi-node jobs both within and beyond the quota, many times. */
	ck_assert_int_gt(mover, 50);
	ck_assert_int_gt(mcount, 50);
	ck_assert_int_gt(passed, 200);
}
END_TEST

/*
 * Two 2-node jobs restricted to full nodes 2 and 3 while nodes 0 and 1
 * have one CPU each: only the first in Slurm's order counts its wait
 * (it takes both free CPUs); a one-node job ahead of them in Slurm's
 * order takes node 0's CPU and leaves neither room.  Without the quota
 * both would count.
 */
START_TEST(test_quota_multi_two)
{
	const uint32_t set[2] = { 2, 3 };
	dl_place_multi_t m[2];
	dl_place_quota_t q;
	int32_t node[1];
	size_t k, one;

	_setup(4, 2);
	ts->nodes[0].busy = ts->nodes[1].busy = 1;
	ts->nodes[2].busy = ts->nodes[3].busy = 2;
	memset(m, 0, sizeof(m));
	for (k = 0; k < 2; k++) {
		m[k].job.id = 20 - (uint32_t)k; /* index 1 first: id 19 */
		m[k].job.cpus = 1;
		m[k].job.arrival = 5;
		m[k].k = 2;
		m[k].set = set;
		ck_assert_int_eq(dl_place_multi_blocked(ts, &m[k]), 1);
	}
	one = _job(30, NULL, 0, 1, NULL);
	ts->jobs[one].arrival = 9; /* behind both */
	node[one] = 2;
	ck_assert_int_eq(dl_place_quota_multi(ts, node, m, 2, _room_of(ts),
					      NULL, NULL, &q), 0);
	ck_assert_uint_eq(q.blocked, 3);
	ck_assert_uint_eq(q.counted, 1);
	ck_assert_int_eq(dl_place_quota_multi_over(&q, 1), 0);
	ck_assert_int_eq(dl_place_quota_multi_over(&q, 0), 1);
	ck_assert_int_eq(dl_place_quota_over(&q, one), 1);
	dl_place_quota_free(&q);
	/* The one-node job first: it takes node 0's CPU; neither 2-node
	 * job finds two nodes (all or nothing: node 1's CPU stays). */
	ts->jobs[one].priority = 1;
	ck_assert_int_eq(dl_place_quota_multi(ts, node, m, 2, _room_of(ts),
					      NULL, NULL, &q), 0);
	ck_assert_uint_eq(q.counted, 1);
	ck_assert_int_eq(dl_place_quota_over(&q, one), 0);
	ck_assert_int_eq(dl_place_quota_multi_over(&q, 0), 1);
	ck_assert_int_eq(dl_place_quota_multi_over(&q, 1), 1);
	dl_place_quota_free(&q);
	/* A node of the set free: it may run there, so with node 0 it
	 * needs one more; the set's own free node counts as room. */
	ts->jobs[one].priority = 0;
	ts->nodes[2].busy = 1;
	ts->nodes[0].busy = 2;
	ck_assert_int_eq(dl_place_quota_multi(ts, node, m, 2, _room_of(ts),
					      NULL, NULL, &q), 0);
	/* Blocked: n3 is full; n1 and n2 can take one: the first counts. */
	ck_assert_int_eq(dl_place_quota_multi_over(&q, 1), 0);
	ck_assert_int_eq(dl_place_quota_multi_over(&q, 0), 1);
	dl_place_quota_free(&q);
	fx_teardown();
}
END_TEST

/*
 * A --mincpus job (test_multinode.sh (c)): nodes 0 and 1 idle with 2 CPUs
 * each, 2 and 3 full; job A of 2 nodes needs 2 free CPUs on each node
 * (node_need), job B of 2 nodes 1, both restricted to {2, 3}, A first in
 * Slurm's order.  Where Slurm gives A what it needs (22.05: job.cpus 2),
 * no room is left for B; where it gives A one CPU a node (24.11), B
 * starts beside it and counts too.  A's need is what makes a node with
 * one CPU free no room for it.
 */
START_TEST(test_quota_multi_need)
{
	const uint32_t set[2] = { 2, 3 };
	dl_place_multi_t m[2];
	dl_place_quota_t q;
	int32_t node[1] = { -1 };
	size_t k;

	_setup(4, 2);
	ts->nodes[2].busy = ts->nodes[3].busy = 2;
	memset(m, 0, sizeof(m));
	for (k = 0; k < 2; k++) {
		m[k].job.id = 10 + (uint32_t)k;
		m[k].job.arrival = (double)k;
		m[k].job.cpus = 1;
		m[k].k = 2;
		m[k].set = set;
	}
	m[0].node_need = 2;
	/* 24.11: A needs 2, takes 1 on each; B takes the CPU left. */
	ck_assert_int_eq(dl_place_multi_blocked(ts, &m[0]), 1);
	ck_assert_int_eq(dl_place_quota_multi(ts, node, m, 2, _room_of(ts),
					      NULL, NULL, &q), 0);
	ck_assert_uint_eq(q.blocked, 2);
	ck_assert_uint_eq(q.counted, 2);
	ck_assert_int_eq(dl_place_quota_multi_over(&q, 0), 0);
	ck_assert_int_eq(dl_place_quota_multi_over(&q, 1), 0);
	dl_place_quota_free(&q);
	/* 22.05: A takes what it needs; nothing is left for B. */
	m[0].job.cpus = 2;
	ck_assert_int_eq(dl_place_quota_multi(ts, node, m, 2, _room_of(ts),
					      NULL, NULL, &q), 0);
	ck_assert_uint_eq(q.counted, 1);
	ck_assert_int_eq(dl_place_quota_multi_over(&q, 0), 0);
	ck_assert_int_eq(dl_place_quota_multi_over(&q, 1), 1);
	dl_place_quota_free(&q);
	/* B first in Slurm's order: it takes a CPU of nodes 0 and 1, and
	 * A, needing 2 free, finds no room (it would take one). */
	m[0].job.cpus = 1;
	m[1].job.priority = 1;
	ck_assert_int_eq(dl_place_quota_multi(ts, node, m, 2, _room_of(ts),
					      NULL, NULL, &q), 0);
	ck_assert_uint_eq(q.counted, 1);
	ck_assert_int_eq(dl_place_quota_multi_over(&q, 1), 0);
	ck_assert_int_eq(dl_place_quota_multi_over(&q, 0), 1);
	dl_place_quota_free(&q);
	/* The library's own test asks for the need: with one CPU free on
	 * nodes 0 and 1, A cannot start anywhere, so it is not blocked. */
	ts->nodes[0].busy = ts->nodes[1].busy = 1;
	ck_assert_int_eq(dl_place_multi_blocked(ts, &m[0]), 0);
	ck_assert_int_eq(dl_place_multi_blocked(ts, &m[1]), 1);
	/* A need below what it takes counts as what it takes. */
	m[0].node_need = 0;
	ck_assert_int_eq(dl_place_multi_blocked(ts, &m[0]), 1);
	fx_teardown();
}
END_TEST

/* The quota of multi-node job m alone: blocked jobs, m within it. */
static void _quota_one(const dl_place_multi_t *m, size_t blocked)
{
	int32_t node[1] = { -1 };
	dl_place_quota_t q;

	ck_assert_int_eq(dl_place_quota_multi(ts, node, m, 1, _room_of(ts),
					      NULL, NULL, &q), 0);
	ck_assert_uint_eq(q.blocked, blocked);
	ck_assert_int_eq(dl_place_quota_multi_over(&q, 0), 0);
	ck_assert_int_eq(dl_place_quota_multi_over(&q, 1), 0); /* no such */
	dl_place_quota_free(&q);
}

/* The host's test decides for a multi-node job; invalid input. */
START_TEST(test_quota_multi_fits)
{
	const uint32_t set[2] = { 0, 1 }, bad[2] = { 0, 9 };
	uint8_t fit[4] = { 1, 0, 1, 0 };
	dl_place_multi_t m;
	dl_place_quota_t q;
	int32_t node[1] = { -1 };

	_setup(4, 2);
	memset(&m, 0, sizeof(m));
	m.job.id = 1;
	m.job.cpus = 1;
	m.k = 2;
	m.set = set;
	/* The library's test: every node has room, nothing blocks it. */
	ck_assert_int_eq(dl_place_multi_blocked(ts, &m), 0);
	/* The host's: node 1 cannot take it (memory), nodes 0 and 2 can. */
	m.fits = fit;
	ck_assert_int_eq(dl_place_multi_blocked(ts, &m), 1);
	_quota_one(&m, 1);
	/* One node fits only: not blocked (no room for it anywhere). */
	fit[2] = 0;
	ck_assert_int_eq(dl_place_multi_blocked(ts, &m), 0);
	/* Not judged, or invalid. */
	m.set = NULL;
	ck_assert_int_eq(dl_place_multi_blocked(ts, &m), 0);
	_quota_one(&m, 0);
	m.set = bad;
	ck_assert_int_eq(dl_place_quota_multi(ts, node, &m, 1, _room_of(ts),
					      NULL, NULL, &q), DL_EINVAL);
	ck_assert_ptr_null(q.over);
	m.set = set;
	m.k = 0;
	ck_assert_int_eq(dl_place_quota_multi(ts, node, &m, 1, _room_of(ts),
					      NULL, NULL, &q), DL_EINVAL);
	ck_assert_int_eq(dl_place_quota_multi(ts, node, NULL, 1, _room_of(ts),
					      NULL, NULL, &q), DL_EINVAL);
	ck_assert_int_eq(dl_place_quota_multi_over(NULL, 0), 0);
	fx_teardown();
}
END_TEST

Suite *make_place_suite(void)
{
	Suite *s = suite_create("place");
	TCase *tc = tcase_create("place");

	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_first_step);
	tcase_add_test(tc, test_hysteresis);
	tcase_add_test(tc, test_bound);
	tcase_add_test(tc, test_bound_floor);
	tcase_add_test(tc, test_bound_coming);
	tcase_add_test(tc, test_blocked);
	tcase_add_test(tc, test_blocked_free);
	tcase_add_test(tc, test_wait_only_while_blocked);
	tcase_add_test(tc, test_freed);
	tcase_add_test(tc, test_room_summary);
	tcase_add_test(tc, test_wide_waiting);
	tcase_add_test(tc, test_move_keeps_wait);
	tcase_add_test(tc, test_strict);
	tcase_add_test(tc, test_lost_node);
	tcase_add_test(tc, test_invalid);
	tcase_add_test(tc, test_pin);
	tcase_add_test(tc, test_warm);
	tcase_add_test(tc, test_warm_busy);
	tcase_add_test(tc, test_went_cold);
	tcase_add_test(tc, test_pin_one_file);
	tcase_add_test(tc, test_pin_random);
	tcase_add_test(tc, test_quota_slots);
	tcase_add_test(tc, test_quota_cpus);
	tcase_add_test(tc, test_quota_fits);
	tcase_add_test(tc, test_quota_step);
	tcase_add_test(tc, test_quota_room_for_all);
	tcase_add_test(tc, test_quota_multi);
	tcase_add_test(tc, test_quota_multi_two);
	tcase_add_test(tc, test_quota_multi_need);
	tcase_add_test(tc, test_quota_multi_fits);
	suite_add_tcase(s, tc);
	return s;
}
