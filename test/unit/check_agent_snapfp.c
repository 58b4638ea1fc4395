/*
 * check_agent_snapfp.c - whether a cycle woken by Slurm's job stamp alone
 * may stop at its snapshot: the snapshot's hash (agent_snapfp.h) moves
 * with everything a cycle reads and not with what sched/backfill rewrites
 * at every pass (a pending job's expected start), the snapshot's own
 * times or the gate's bookkeeping of the jobs outside the window; agent_quiet_jobs_only() says when the job stamp alone moved.
 */
#include <stdlib.h>
#include <string.h>

#include "check_suites.h"
#include "agent_quiet.h"
#include "agent_snapfp.h"

#define NN 3

/* A snapshot of NN nodes, a running job and a pending one (static). */
typedef struct {
	snapshot_t s;
	snap_job_t jobs[2];
	char *names[NN];
	uint32_t cpus[NN], busy[NN];
	uint8_t usable[NN], eligible[NN], fits[NN];
	uint32_t arrays[1];
	agent_gate_renew_t regate[1];
} fx_t;

static void _fx(fx_t *f)
{
	static char n0[] = "n1", n1[] = "n2", n2[] = "n3";
	static char comment[] = "files:/data/a,/data/b";
	uint32_t i;

	memset(f, 0, sizeof(*f));
	f->names[0] = n0;
	f->names[1] = n1;
	f->names[2] = n2;
	for (i = 0; i < NN; i++) {
		f->cpus[i] = 4;
		f->usable[i] = 1;
		f->eligible[i] = 1;
	}
	f->busy[0] = 4;
	f->fits[1] = 1;
	f->s.now = 1000;
	f->s.clock = 1000.25;
	f->s.nnodes = NN;
	f->s.names = f->names;
	f->s.cpus = f->cpus;
	f->s.busy = f->busy;
	f->s.usable = f->usable;
	f->jobs[0] = (snap_job_t){ .job_id = 7, .running = true, .node = 0,
				   .cpus = 4, .priority = 10, .submit = 900,
				   .start = 950, .limit = 600, .ours = -1 };
	f->jobs[1] = (snap_job_t){ .job_id = 8, .runnable = true,
				   .placeable = true, .node = -1, .cpus = 1,
				   .priority = 9, .submit = 990, .start = 0,
				   .limit = 600, .ours = 1, .comment = comment,
				   .eligible = f->eligible, .fits = f->fits };
	f->s.jobs = f->jobs;
	f->s.njobs = 2;
	f->s.arrays = f->arrays;
	f->s.wake = AGENT_QUIET_NEVER;
	f->s.renew_wake = AGENT_QUIET_NEVER;
}

/* What backfill and the clock move leave the hash as it was. */
START_TEST(test_snapfp_ignores)
{
	fx_t a, b;

	_fx(&a);
	_fx(&b);
	ck_assert_uint_eq(agent_snapfp(&a.s), agent_snapfp(&b.s));
	/* sched/backfill's estimate of a pending job, at every pass. */
	b.jobs[1].start = 86400 + 1000;
	b.jobs[1].end = 86400 + 1600;
	/* The snapshot's own times. */
	b.s.now = 1005;
	b.s.clock = 1005.5;
	b.s.took_ms = 3.5;
	b.s.agent_cycle = 0.2;
	ck_assert_uint_eq(agent_snapfp(&a.s), agent_snapfp(&b.s));
	/* The gate's bookkeeping: a stopped cycle still acts on it. */
	b.regate[0] = (agent_gate_renew_t){ .job_id = 9, .release_to = 5 };
	b.s.regate = b.regate;
	b.s.nregate = 1;
	b.s.renew = b.regate;
	b.s.nrenew = 1;
	b.s.renew_wake = 1030;
	ck_assert_uint_eq(agent_snapfp(&a.s), agent_snapfp(&b.s));
	/* How the walk went: full, or skipping (counted in pending). */
	b.s.full = true;
	b.s.skipped = 40;
	ck_assert_uint_eq(agent_snapfp(&a.s), agent_snapfp(&b.s));
}
END_TEST

typedef void (*mutate_fn)(fx_t *f);

static void _m_run_start(fx_t *f) { f->jobs[0].start = 951; }
static void _m_prio(fx_t *f) { f->jobs[1].priority = 11; }
static void _m_elig(fx_t *f) { f->eligible[2] = 0; }
static void _m_fits(fx_t *f) { f->fits[2] = 1; }
static void _m_busy(fx_t *f) { f->busy[1] = 1; }
static void _m_usable(fx_t *f) { f->usable[2] = 0; }
static void _m_ours(fx_t *f) { f->jobs[1].ours = 2; }
static void _m_gated(fx_t *f) { f->jobs[1].gated = true; }
static void _m_runnable(fx_t *f) { f->jobs[1].runnable = false; }
static void _m_comment(fx_t *f) { f->jobs[1].comment = "files:/data/c"; }
static void _m_limit(fx_t *f) { f->jobs[1].limit = 601; }
static void _m_wake(fx_t *f) { f->s.wake = 1200; }
static void _m_window(fx_t *f) { f->s.in_window = 1; }
static void _m_njobs(fx_t *f) { f->s.njobs = 1; }
static void _m_arrays(fx_t *f)
{
	f->arrays[0] = 12;
	f->s.narrays = 1;
}
static void _m_leave(fx_t *f) { f->jobs[1].leave_why = "memory"; }
static void _m_task(fx_t *f) { f->jobs[1].task_id = 3; }

/* Whatever a cycle reads moves the hash. */
START_TEST(test_snapfp_moves)
{
	static const mutate_fn m[] = {
		_m_run_start, _m_prio, _m_elig, _m_fits, _m_busy,
		_m_usable, _m_ours, _m_gated, _m_runnable, _m_comment,
		_m_limit, _m_wake, _m_window, _m_njobs, _m_arrays,
		_m_leave, _m_task
	};
	fx_t a, b;
	uint64_t base;
	size_t i;

	_fx(&a);
	base = agent_snapfp(&a.s);
	for (i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		_fx(&b);
		m[i](&b);
		ck_assert_msg(agent_snapfp(&b.s) != base,
			      "change %zu left the hash as it was", i);
	}
}
END_TEST

/* Only Slurm's job stamp moved, or something else too. */
START_TEST(test_quiet_jobs_only)
{
	agent_quiet_t q = { 0 };
	agent_stamps_t at = { 10, 100, 3, 50, 40, 7 }, cur = at;

	/* No cycle yet: nothing to compare with. */
	ck_assert(!agent_quiet_jobs_only(&q, &cur, 200));
	agent_quiet_ran(&q, &at, 200, 1.0, AGENT_QUIET_NEVER, false, 5000);
	cur.job = 205;
	ck_assert(agent_quiet_jobs_only(&q, &cur, 205));
	/* Anything else moved as well. */
	cur.njobs = 11;
	ck_assert(!agent_quiet_jobs_only(&q, &cur, 205));
	cur.njobs = 10;
	cur.node = 4;
	ck_assert(!agent_quiet_jobs_only(&q, &cur, 205));
	cur.node = 3;
	cur.part = 201;
	ck_assert(!agent_quiet_jobs_only(&q, &cur, 205));
	cur.part = 50;
	cur.resv = 203;
	ck_assert(!agent_quiet_jobs_only(&q, &cur, 205));
	cur.resv = 40;
	cur.services = 8;
	ck_assert(!agent_quiet_jobs_only(&q, &cur, 205));
	cur.services = 7;
	ck_assert(agent_quiet_jobs_only(&q, &cur, 205));
	/* A stamp of the snapshot's own second counts as moved after it. */
	at.part = 200;
	agent_quiet_ran(&q, &at, 200, 1.0, AGENT_QUIET_NEVER, false, 5000);
	cur.part = 200;
	ck_assert(agent_quiet_jobs_only(&q, &cur, 200));
	ck_assert(!agent_quiet_jobs_only(&q, &cur, 201));
	/* Seen: the stamps as this snapshot saw them, clocks kept. */
	agent_quiet_seen(&q, &cur, 201);
	ck_assert(agent_quiet_jobs_only(&q, &cur, 202));
	ck_assert_int_eq(q.seen_at, 201);
	ck_assert_int_eq(q.last_ms, 5000);
	/* A cycle that changed jobs itself is to be looked at again. */
	agent_quiet_ran(&q, &cur, 202, 1.0, AGENT_QUIET_NEVER, true, 6000);
	ck_assert(!agent_quiet_jobs_only(&q, &cur, 203));
}
END_TEST

Suite *make_agent_snapfp_suite(void)
{
	Suite *s = suite_create("agent_snapfp");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_snapfp_ignores);
	tcase_add_test(tc, test_snapfp_moves);
	tcase_add_test(tc, test_quiet_jobs_only);
	suite_add_tcase(s, tc);
	return s;
}
