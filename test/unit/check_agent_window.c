/*
 * check_agent_window.c - the planning window (agent_window.h): Slurm's
 * settings read from SchedulerParameters (defaults, whole keys only, bad
 * values), the window's size (PlanWindow, backfill's per-partition share,
 * the free CPUs), and the jobs in it (per partition, by priority, submit
 * time and job id; a job of several partitions in if it is in any).
 */
#include <stdlib.h>
#include <string.h>

#include "check_suites.h"
#include "agent_budget.h"
#include "agent_gate.h"
#include "agent_quiet.h"
#include "agent_window.h"

START_TEST(test_window_params)
{
	agent_window_sched_t s;

	agent_window_sched_parse(NULL, &s);
	ck_assert_uint_eq(s.queue_depth, 100);
	ck_assert_uint_eq(s.bf_test, 500);
	ck_assert_uint_eq(s.bf_part, 0);
	ck_assert_uint_eq(s.array_resv, 20);
	agent_window_sched_parse("bf_interval=1,default_queue_depth=40,"
				 "BF_MAX_JOB_TEST=70,bf_max_job_part=20,"
				 "bf_max_job_array_resv=7", &s);
	ck_assert_uint_eq(s.queue_depth, 40);
	ck_assert_uint_eq(s.bf_test, 70);
	ck_assert_uint_eq(s.bf_part, 20);
	ck_assert_uint_eq(s.array_resv, 7);
	/* 0 is a value here, as in Slurm (no task reserved); 1001 is not. */
	agent_window_sched_parse("bf_max_job_array_resv=0", &s);
	ck_assert_uint_eq(s.array_resv, 0);
	agent_window_sched_parse("bf_max_job_array_resv=1001", &s);
	ck_assert_uint_eq(s.array_resv, 20);
	agent_window_sched_parse("bf_max_job_array_resv=-1", &s);
	ck_assert_uint_eq(s.array_resv, 20);
	/* Whole keys; bad values are the defaults. */
	agent_window_sched_parse("xbf_max_job_test=7,bf_max_job_test_x=8,"
				 "default_queue_depth=abc,bf_max_job_part=0",
				 &s);
	ck_assert_uint_eq(s.queue_depth, 100);
	ck_assert_uint_eq(s.bf_test, 500);
	ck_assert_uint_eq(s.bf_part, 0);
	agent_window_sched_parse("default_queue_depth=12x", &s);
	ck_assert_uint_eq(s.queue_depth, 100);
}
END_TEST

START_TEST(test_window_size)
{
	agent_window_sched_t s = { 100, 500, 0, 20 };

	ck_assert_uint_eq(agent_window_size(&s, 0, 0), 500);
	ck_assert_uint_eq(agent_window_size(&s, 0, 16), 516);
	ck_assert_uint_eq(agent_window_size(&s, 7, 16), 7);
	s.bf_part = 50;
	ck_assert_uint_eq(agent_window_size(&s, 0, 4), 104);
	s.queue_depth = 10;
	ck_assert_uint_eq(agent_window_size(&s, 0, 0), 50);
	s.bf_part = 900;
	ck_assert_uint_eq(agent_window_size(&s, 0, 0), 500);
}
END_TEST

/*
 * What an array may have split off: twice the usable CPUs, at least the
 * tasks of one array sched/backfill plans in a pass, at most the window
 * (an explicit PlanWindow too).
 */
START_TEST(test_window_array_room)
{
	agent_window_sched_t s = { 100, 500, 0, 20 };

	ck_assert_uint_eq(agent_window_array_room(&s, 500, 4), 20);
	ck_assert_uint_eq(agent_window_array_room(&s, 500, 0), 20);
	ck_assert_uint_eq(agent_window_array_room(&s, 500, 16), 32);
	ck_assert_uint_eq(agent_window_array_room(&s, 500, 60), 120);
	ck_assert_uint_eq(agent_window_array_room(&s, 516, 1000), 516);
	ck_assert_uint_eq(agent_window_array_room(&s, 5, 4), 5);
	ck_assert_uint_eq(agent_window_array_room(&s, UINT32_MAX, UINT32_MAX),
			  UINT32_MAX);
	s.array_resv = 10;
	ck_assert_uint_eq(agent_window_array_room(&s, 500, 4), 10);
	s.array_resv = 0;
	ck_assert_uint_eq(agent_window_array_room(&s, 500, 4), 8);
}
END_TEST

START_TEST(test_window_select)
{
	/* Partition 1: jobs 0-5; partition 2: jobs 6-7; job 5 in both. */
	agent_window_cand_t c[] = {
		{ 1, 10, 100, 10, 0 }, { 1, 30, 100, 11, 1 },
		{ 1, 20, 90, 12, 2 },  { 1, 20, 90, 9, 3 },
		{ 1, 20, 80, 13, 4 },  { 1, 1, 50, 14, 5 },
		{ 2, 5, 100, 15, 6 },  { 2, 1, 100, 16, 7 },
		{ 2, 9, 100, 14, 5 },
	};
	uint8_t in[8] = { 0 };
	uint32_t n = sizeof(c) / sizeof(c[0]);

	/*
	 * Partition 1 by priority, submit time, job id: 1 (30), 4 (20,
	 * 80), 3 (20, 90, id 9), 2, 0, 5; partition 2: 5 (9), 6, 7.
	 */
	ck_assert_uint_eq(agent_window_select(c, n, 3, in), 6);
	ck_assert_mem_eq(in, ((uint8_t[]){ 0, 1, 0, 1, 1, 1, 1, 1 }), 8);
	memset(in, 0, sizeof(in));
	ck_assert_uint_eq(agent_window_select(c, n, 1, in), 2);
	ck_assert_mem_eq(in, ((uint8_t[]){ 0, 1, 0, 0, 0, 1, 0, 0 }), 8);
	memset(in, 0, sizeof(in));
	ck_assert_uint_eq(agent_window_select(c, n, 100, in), 8);
	ck_assert_uint_eq(agent_window_select(c, 0, 100, in), 0);
	ck_assert_uint_eq(agent_window_select(c, n, 0, in), 0);
}
END_TEST

/* The window of one partition by the definition: job i's rank in it. */
static uint32_t _rank(const agent_window_cand_t *c, uint32_t n, uint32_t i)
{
	uint32_t j, r = 0;

	for (j = 0; j < n; j++)
		if (c[j].part == c[i].part &&
		    (c[j].priority > c[i].priority ||
		     (c[j].priority == c[i].priority &&
		      (c[j].submit < c[i].submit ||
		       (c[j].submit == c[i].submit &&
			c[j].job_id < c[i].job_id)))))
			r++;
	return r;
}

/*
 * Long queues, few partitions (selected without sorting) and many
 * (sorted): the same window as by the definition, every time; queues in
 * order, in reverse and shuffled, with ties of priority and submit time.
 */
START_TEST(test_window_select_long)
{
	enum { N = 3000 };
	static agent_window_cand_t c[N], orig[N];
	static uint8_t in[N], want[N];
	uint32_t nparts[] = { 1, 3, 200 }, per[] = { 1, 7, 500, 2999 };
	uint32_t a, b, i, order, expect;

	srand(7);
	for (a = 0; a < 3; a++)
		for (order = 0; order < 3; order++) {
			for (i = 0; i < N; i++) {
				uint32_t k = order == 0 ? i :
					     order == 1 ? N - 1 - i :
							  (uint32_t)rand();

				orig[i] = (agent_window_cand_t){
					.part = 100 + k % nparts[a],
					.priority = 1000 - (k / 10) % 50,
					.submit = 5000 + (k / 3) % 700,
					.job_id = 10 + i,
					.idx = i,
				};
			}
			for (b = 0; b < 4; b++) {
				expect = 0;
				for (i = 0; i < N; i++) {
					want[i] = _rank(orig, N, i) < per[b];
					expect += want[i];
				}
				memcpy(c, orig, sizeof(c));
				memset(in, 0, sizeof(in));
				ck_assert_uint_eq(
					agent_window_select(c, N, per[b], in),
					expect);
				ck_assert_mem_eq(in, want, N);
			}
		}
}
END_TEST

/*
 * The cycle's reading budget (agent_budget.h): the deadline, UserMaxFiles
 * (a job that would take its user above it is refused and nothing is
 * counted; users apart), UserMaxListBytes per cycle, 0 for no bound.
 */
START_TEST(test_budget_bounds)
{
	agent_budget_conf_t c = { .cycle_ms = 500, .user_files = 10000,
				  .user_list = 1000 };
	agent_budget_t b = { 0 };
	uid_t u;

	agent_budget_begin(&b, &c, 1000);
	ck_assert(agent_budget_may_read(&b, 1, 1499));
	ck_assert(!b.spent);
	/* past the deadline, the cycle's first read is still allowed */
	ck_assert(agent_budget_may_read(&b, 1, 1500));
	ck_assert(!b.spent);
	agent_budget_charge_read(&b, 1, 10, 0);
	ck_assert(!agent_budget_may_read(&b, 1, 1500));
	ck_assert(b.spent);

	/* A new cycle forgets the old one's account. */
	agent_budget_begin(&b, &c, 2000);
	ck_assert(!b.spent);
	ck_assert(agent_budget_admit(&b, 7, 5000));
	ck_assert(!agent_budget_user_full(&b, 7));
	ck_assert(agent_budget_admit(&b, 7, 5000));
	ck_assert(agent_budget_user_full(&b, 7));
	ck_assert(!agent_budget_admit(&b, 7, 1));
	ck_assert(agent_budget_admit(&b, 8, 9999));
	ck_assert(!agent_budget_admit(&b, 8, 2));
	ck_assert(agent_budget_admit(&b, 8, 1));
	ck_assert(agent_budget_may_read(&b, 7, 2000));
	agent_budget_charge_read(&b, 7, 999, 0);
	ck_assert(agent_budget_may_read(&b, 7, 2000));
	agent_budget_charge_read(&b, 7, 1, 0);
	ck_assert(!agent_budget_may_read(&b, 7, 2000));
	ck_assert(agent_budget_may_read(&b, 8, 2000));
	/*
	 * One user's reads take at most half of the cycle's budget, with
	 * one more as long as its longest: 100 + 100 fits 250, 200 + 100 not.
	 */
	agent_budget_charge_read(&b, 8, 0, 100);
	ck_assert(agent_budget_may_read(&b, 8, 2000));
	agent_budget_charge_read(&b, 8, 0, 25);
	ck_assert(agent_budget_may_read(&b, 8, 2000));
	agent_budget_charge_read(&b, 8, 0, 25);
	ck_assert(agent_budget_may_read(&b, 8, 2000));
	agent_budget_charge_read(&b, 8, 0, 1);
	ck_assert(!agent_budget_may_read(&b, 8, 2000));
	ck_assert(agent_budget_may_read(&b, 9, 2000));
	ck_assert(!b.spent);
	ck_assert(!b.spent);
	/* Many users: the table grows and keeps every account. */
	for (u = 100; u < 1100; u++)
		ck_assert(agent_budget_admit(&b, u, u));
	for (u = 100; u < 1100; u++)
		ck_assert(!agent_budget_admit(&b, u, 10001 - u));
	ck_assert(agent_budget_user_full(&b, 7));
	agent_budget_begin(&b, &c, 3000);
	ck_assert(!agent_budget_user_full(&b, 7));
	ck_assert(agent_budget_may_read(&b, 7, 3000));
	/* 0: no bound. */
	c = (agent_budget_conf_t){ 0 };
	agent_budget_begin(&b, &c, 0);
	ck_assert(agent_budget_may_read(&b, 1, INT64_MAX - 1));
	ck_assert(agent_budget_admit(&b, 1, UINT32_MAX));
	ck_assert(agent_budget_admit(&b, 1, UINT32_MAX));
	ck_assert(!agent_budget_user_full(&b, 1));
	agent_budget_charge_read(&b, 1, UINT32_MAX, 1000000);
	ck_assert(agent_budget_may_read(&b, 1, 0));
	agent_budget_end(&b);
	agent_budget_end(&b);
}
END_TEST

/*
 * Cycle pacing: twice the last cycle, never more than a second after one
 * that ran long (issue 25: a 14-minute cycle was followed by a 28-minute
 * wait); the reading order is Slurm's.
 */
START_TEST(test_budget_gap_order)
{
	agent_budget_job_t j[] = {
		{ 10, 100, 5, 0 }, { 30, 100, 6, 1 }, { 10, 90, 7, 2 },
		{ 10, 100, 4, 3 },
	};

	ck_assert_int_eq(agent_budget_gap_ms(0), 0);
	ck_assert_int_eq(agent_budget_gap_ms(-5), 0);
	ck_assert_int_eq(agent_budget_gap_ms(100), 200);
	ck_assert_int_eq(agent_budget_gap_ms(500), 1000);
	ck_assert_int_eq(agent_budget_gap_ms(14 * 60 * 1000),
			 AGENT_BUDGET_MAX_GAP_MS);
	agent_budget_order(j, 4);
	ck_assert_uint_eq(j[0].idx, 1);
	ck_assert_uint_eq(j[1].idx, 2);
	ck_assert_uint_eq(j[2].idx, 3);
	ck_assert_uint_eq(j[3].idx, 0);
	agent_budget_order(j, 0);
}
END_TEST

/*
 * When a cycle is due (agent_quiet.h): the first at once, a new job at
 * once, node changes after 100 ms, other changes and live clocks after a
 * second, a quiet agent only after AGENT_QUIET_MAX_MS; a stamp of the
 * snapshot's own second counts as moved once that second is over.
 */
START_TEST(test_quiet_due)
{
	agent_quiet_t q = { 0 };
	agent_stamps_t at = { 10, 100, 100, 50, 40, 7 }, cur = at;
	int64_t t0 = 5000;

	ck_assert_str_eq(agent_quiet_due(&q, &cur, t0, 200), "first");
	agent_quiet_ran(&q, &at, 200, 1.0, AGENT_QUIET_NEVER, false, t0);
	/*
	 * Nothing moved: a check of the inventories every
	 * AGENT_QUIET_MAX_MS, a cycle only at the safety net.
	 */
	ck_assert_ptr_null(agent_quiet_due(&q, &cur, t0 + 10, 200));
	ck_assert_ptr_null(agent_quiet_due(&q, &cur, t0 + 5000, 205));
	ck_assert_ptr_null(
		agent_quiet_due(&q, &cur, t0 + AGENT_QUIET_MAX_MS - 1, 209));
	ck_assert_str_eq(
		agent_quiet_due(&q, &cur, t0 + AGENT_QUIET_MAX_MS, 210),
		"check");
	agent_quiet_checked(&q, t0 + AGENT_QUIET_MAX_MS);
	ck_assert_ptr_null(
		agent_quiet_due(&q, &cur, t0 + 2 * AGENT_QUIET_MAX_MS - 1, 219));
	ck_assert_str_eq(
		agent_quiet_due(&q, &cur, t0 + 2 * AGENT_QUIET_MAX_MS, 220),
		"check");
	agent_quiet_checked(&q, t0 + AGENT_QUIET_FULL_MS - 1);
	ck_assert_ptr_null(
		agent_quiet_due(&q, &cur, t0 + AGENT_QUIET_FULL_MS - 1, 499));
	ck_assert_str_eq(
		agent_quiet_due(&q, &cur, t0 + AGENT_QUIET_FULL_MS, 500),
		"quiet");
	/* Holds to renew between cycles: from their second on, no cycle. */
	agent_quiet_renewed(&q, 215);
	ck_assert_ptr_null(agent_quiet_due(&q, &cur, t0 + 999, 215));
	ck_assert_ptr_null(agent_quiet_due(&q, &cur, t0 + 5000, 214));
	ck_assert_str_eq(agent_quiet_due(&q, &cur, t0 + 5000, 215), "renew");
	agent_quiet_renewed(&q, 235);
	ck_assert_ptr_null(agent_quiet_due(&q, &cur, t0 + 6000, 216));
	/* A change still comes first; a cycle forgets the listed ones. */
	cur.job = 201;
	ck_assert_str_eq(agent_quiet_due(&q, &cur, t0 + 6000, 235),
			 "change (jobs)");
	cur.job = 100;
	agent_quiet_ran(&q, &at, 200, 1.0, AGENT_QUIET_NEVER, false, t0);
	ck_assert_ptr_null(agent_quiet_due(&q, &cur, t0 + 6000, 235));
	/* A new job at once. */
	cur.njobs = 11;
	ck_assert_str_eq(agent_quiet_due(&q, &cur, t0 + 1, 200), "jobs");
	cur.njobs = 10;
	/* Nodes after 100 ms. */
	cur.node = 201;
	ck_assert_ptr_null(agent_quiet_due(&q, &cur, t0 + 99, 200));
	ck_assert_str_eq(agent_quiet_due(&q, &cur, t0 + 100, 200), "nodes");
	cur.node = 100;
	/* Jobs, partitions, reservations, services after a second. */
	cur.job = 201;
	ck_assert_ptr_null(agent_quiet_due(&q, &cur, t0 + 999, 200));
	ck_assert_str_eq(agent_quiet_due(&q, &cur, t0 + 1000, 201),
			 "change (jobs)");
	cur = at;
	cur.resv = 41;
	ck_assert_str_eq(agent_quiet_due(&q, &cur, t0 + 1000, 201),
			 "change (reservations)");
	cur = at;
	cur.services = 8;
	ck_assert_str_eq(agent_quiet_due(&q, &cur, t0 + 1000, 201),
			 "change (services)");
	cur = at;
	/* A cycle that changed jobs looks again. */
	agent_quiet_ran(&q, &at, 200, 1.0, AGENT_QUIET_NEVER, true, t0);
	ck_assert_ptr_null(agent_quiet_due(&q, &cur, t0 + 500, 200));
	ck_assert_str_eq(agent_quiet_due(&q, &cur, t0 + 1000, 201),
			 "change (its own)");
	/* Live clocks: a cycle a second; a time: from then on. */
	agent_quiet_ran(&q, &at, 200, 1.0, AGENT_QUIET_LIVE, false, t0);
	ck_assert_str_eq(agent_quiet_due(&q, &cur, t0 + 1000, 201), "clock");
	agent_quiet_ran(&q, &at, 200, 1.0, 204, false, t0);
	ck_assert_ptr_null(agent_quiet_due(&q, &cur, t0 + 3000, 203));
	ck_assert_str_eq(agent_quiet_due(&q, &cur, t0 + 4000, 204), "clock");
	/* A stamp of the snapshot's second: moved once it is over. */
	at.job = 200;
	cur = at;
	agent_quiet_ran(&q, &at, 200, 1.0, AGENT_QUIET_NEVER, false, t0);
	ck_assert_ptr_null(agent_quiet_due(&q, &cur, t0 + 1000, 200));
	ck_assert_str_eq(agent_quiet_due(&q, &cur, t0 + 1000, 201),
			 "change (jobs)");
	agent_quiet_ran(&q, &cur, 201, 1.0, AGENT_QUIET_NEVER, false, t0 + 1000);
	ck_assert_ptr_null(agent_quiet_due(&q, &cur, t0 + 2000, 202));
	/*
	 * A long walk paces changes and clocks, at AGENT_QUIET_PACE times
	 * its time (at most AGENT_QUIET_MAX_MS); new jobs and nodes not.
	 */
	agent_quiet_ran(&q, &cur, 201, 200.0, AGENT_QUIET_LIVE, true, t0);
	ck_assert_ptr_null(agent_quiet_due(&q, &cur, t0 + 1000, 202));
	ck_assert_ptr_null(agent_quiet_due(&q, &cur, t0 + 3999, 205));
	ck_assert_str_eq(agent_quiet_due(&q, &cur, t0 + 4000, 205),
			 "change (its own)");
	cur.njobs++;
	ck_assert_str_eq(agent_quiet_due(&q, &cur, t0 + 1, 201), "jobs");
	cur.njobs--;
	cur.node++;
	ck_assert_str_eq(agent_quiet_due(&q, &cur, t0 + 100, 201), "nodes");
	cur.node--;
	agent_quiet_ran(&q, &cur, 201, 5000.0, AGENT_QUIET_LIVE, false, t0);
	ck_assert_ptr_null(
		agent_quiet_due(&q, &cur, t0 + AGENT_QUIET_MAX_MS - 1, 210));
	ck_assert_str_eq(
		agent_quiet_due(&q, &cur, t0 + AGENT_QUIET_MAX_MS, 211), "clock");
}
END_TEST

/*
 * Renewals between cycles (agent_gate.h): a held job's hold is renewed
 * once less than half is left, from a sixth of it later than half; a job
 * the gate no longer holds (released to its submission or user's begin
 * time, run out, or a begin time too far to be the gate's) is left alone.
 */
/*
 * The poll goes back to its shortest on any stamp's move or a due cycle,
 * but not for the job stamp (or a cycle due for it alone) once a cycle
 * due for it alone stopped at its snapshot, until one plans again; and
 * meanwhile a cycle for the job stamp waits for the stamp's second to end.
 */
START_TEST(test_quiet_poll_reset)
{
	agent_quiet_t q = { 0 };
	agent_stamps_t at = { .njobs = 10, .job = 100, .node = 100,
			      .part = 30, .resv = 40, .services = 7 };
	agent_stamps_t cur = at;

	agent_quiet_ran(&q, &at, 200, 1.0, AGENT_QUIET_NEVER, false, 0);
	ck_assert(!agent_quiet_poll_reset(&q, &cur, &at, NULL));
	cur.job++;
	ck_assert(agent_quiet_poll_reset(&q, &cur, &at, NULL));
	ck_assert(agent_quiet_poll_reset(&q, &at, &at, AGENT_QUIET_WHY_JOBS));
	/* The stamp moved for nothing: its moves no longer count. */
	agent_quiet_seen(&q, &cur, 201);
	ck_assert(q.jobs_noise);
	ck_assert(!agent_quiet_poll_reset(&q, &cur, &at, NULL));
	ck_assert(!agent_quiet_poll_reset(&q, &cur, &at, AGENT_QUIET_WHY_JOBS));
	/* A move in the current second waits for it to be over. */
	cur.job = 203;
	ck_assert_ptr_null(agent_quiet_due(&q, &cur, 5000, 203));
	ck_assert_str_eq(agent_quiet_due(&q, &cur, 5000, 204),
			 AGENT_QUIET_WHY_JOBS);
	/* Long after the last walk too (a pass every bf_interval). */
	agent_quiet_seen(&q, &cur, 204);
	cur.job = 209;
	ck_assert_ptr_null(agent_quiet_due(&q, &cur, 9000, 209));
	agent_quiet_polled(&q, &cur, 209);
	ck_assert_int_eq(q.noise_wait_s, 209);
	/* But not for ever: a stamp moved in every second. */
	cur.job = 210;
	ck_assert_ptr_null(agent_quiet_due(&q, &cur, 9400, 210));
	agent_quiet_polled(&q, &cur, 210);
	ck_assert_int_eq(q.noise_wait_s, 209);
	cur.job = 211;
	ck_assert_str_eq(agent_quiet_due(&q, &cur, 9800, 211),
			 AGENT_QUIET_WHY_JOBS);
	/* A walk starts the count again. */
	agent_quiet_seen(&q, &cur, 211);
	ck_assert_int_eq(q.noise_wait_s, 0);
	agent_quiet_seen(&q, &at, 201);
	cur.job = 101;
	/* Everything else still does. */
	ck_assert(agent_quiet_poll_reset(&q, &cur, &at, "clock"));
	cur = at;
	cur.njobs++;
	ck_assert(agent_quiet_poll_reset(&q, &cur, &at, NULL));
	cur = at;
	cur.node++;
	ck_assert(agent_quiet_poll_reset(&q, &cur, &at, NULL));
	cur = at;
	cur.part++;
	ck_assert(agent_quiet_poll_reset(&q, &cur, &at, NULL));
	cur = at;
	cur.resv++;
	ck_assert(agent_quiet_poll_reset(&q, &cur, &at, NULL));
	cur = at;
	cur.services++;
	ck_assert(agent_quiet_poll_reset(&q, &cur, &at, NULL));
	/* A cycle that plans ends it. */
	cur = at;
	cur.job++;
	agent_quiet_ran(&q, &at, 202, 1.0, AGENT_QUIET_NEVER, false, 2000);
	ck_assert(!q.jobs_noise);
	ck_assert(agent_quiet_poll_reset(&q, &cur, &at, NULL));
	cur.job = 205;
	ck_assert_str_eq(agent_quiet_due(&q, &cur, 5000, 205),
			 AGENT_QUIET_WHY_JOBS);
}
END_TEST

START_TEST(test_gate_renew)
{
	time_t now = 1000;

	ck_assert_int_eq(agent_gate_renew_due(1030, 30), 1020);
	/* 16 s left of 30: not yet; 15: renewed to a full hold. */
	ck_assert_int_eq(agent_gate_renew_to(1016, 900, now, 30), 1016);
	ck_assert_int_eq(agent_gate_renew_to(1015, 900, now, 30), 1030);
	/* At its due time, always renewed. */
	ck_assert_int_eq(agent_gate_renew_to(1030, 900, 1020, 30), 1050);
	/* Released (to its submission, or the user's own begin time). */
	ck_assert_int_eq(agent_gate_renew_to(900, 900, now, 30), 900);
	ck_assert_int_eq(agent_gate_renew_to(1010, 1010, now, 30), 1010);
	/* Run out: a cycle says so, no renewal brings it back. */
	ck_assert_int_eq(agent_gate_renew_to(1000, 900, now, 30), 1000);
	ck_assert_int_eq(agent_gate_renew_to(990, 900, now, 30), 990);
	/* Beyond AGENT_GATE_HOLD_MAX: not the gate's. */
	ck_assert_int_eq(agent_gate_renew_to(now + AGENT_GATE_HOLD_MAX + 1,
					     900, now, 30),
			 now + AGENT_GATE_HOLD_MAX + 1);
}
END_TEST

/*
 * The floors: the first per_part of a partition in Slurm's order are never
 * below it, every later one is; a partition with no more than per_part
 * has none; ties on priority go by submit time, then job id.
 */
START_TEST(test_window_keep_floors)
{
	enum { N = 400, PER = 25 };
	agent_window_cand_t *c = calloc(N + 3, sizeof(*c));
	agent_window_cand_t *orig = calloc(N + 3, sizeof(*c));
	agent_window_keep_t k = { 0 };
	uint32_t i, r;

	srand(11);
	for (i = 0; i < N; i++) {
		c[i].part = 1;
		c[i].priority = (uint32_t)(rand() % 50);
		c[i].submit = 1000 + rand() % 7;
		c[i].job_id = i + 1;
		c[i].idx = i;
	}
	for (i = N; i < N + 3; i++) /* a short partition */
		c[i] = (agent_window_cand_t){ .part = 2, .priority = 1,
					      .submit = 5, .job_id = 900 + i,
					      .idx = i };
	memcpy(orig, c, (N + 3) * sizeof(*c));
	agent_window_keep_floors(&k, c, N + 3, PER);
	ck_assert(k.valid);
	ck_assert_uint_eq(k.nparts, 2);
	for (i = 0; i < N; i++) {
		r = _rank(orig, N, i);
		ck_assert_int_eq(agent_window_keep_below(&k, 1, orig[i].priority,
							 orig[i].submit,
							 orig[i].job_id),
				 r >= PER);
	}
	for (i = N; i < N + 3; i++)
		ck_assert(!agent_window_keep_below(&k, 2, 0, 9999, 99999));
	/* A partition the full walk did not see is never skipped. */
	ck_assert(!agent_window_keep_below(&k, 3, 0, 9999, 99999));
	/* Enough: PER of partition 1 read; one fewer is short. */
	ck_assert(agent_window_keep_enough(&k, orig, N + 3, PER));
	for (r = 0, i = 0; i < N + 3; i++)
		if (orig[i].part == 1 && r++ < PER - 1)
			c[r - 1] = orig[i];
	ck_assert(agent_window_keep_enough(&k, c, PER - 1, PER - 1));
	ck_assert(!agent_window_keep_enough(&k, c, PER - 1, PER));
	/* Partition 2, kept whole, grown past twice a floor's: walk again. */
	for (i = 0; i < 2 * PER + 1; i++)
		c[PER + i] = (agent_window_cand_t){ .part = 2, .job_id = i };
	for (i = 0; i < PER; i++)
		c[i] = orig[i];
	ck_assert(agent_window_keep_enough(&k, c, PER + 2 * PER, PER));
	ck_assert(!agent_window_keep_enough(&k, c, PER + 2 * PER + 1, PER));
	/* A partition the full walk did not see, grown: walk again. */
	for (i = 0; i < 2 * PER + 1; i++)
		c[PER + i].part = 7;
	ck_assert(agent_window_keep_enough(&k, c, PER + 2 * PER, PER));
	ck_assert(!agent_window_keep_enough(&k, c, PER + 2 * PER + 1, PER));
	agent_window_keep_free(&k);
	ck_assert(!k.valid);
	ck_assert(!agent_window_keep_below(&k, 1, 0, 0, 1));
	free(c);
	free(orig);
}
END_TEST

/*
 * The priority alone decides as the full test does, but at the floor's
 * priority (-1: ask with the submit time): a walk that reads a job's
 * submit time only then skips exactly the jobs it skipped before.
 */
START_TEST(test_window_keep_below_prio)
{
	enum { N = 2000, PER = 40 };
	agent_window_cand_t *c = calloc(N, sizeof(*c));
	agent_window_keep_t k = { 0 };
	uint32_t i, prio, part, ties = 0, ones = 0;
	int r, full;

	srand(23);
	for (i = 0; i < N; i++)
		c[i] = (agent_window_cand_t){ .part = 1 + rand() % 3,
					      .priority = rand() % 60,
					      .submit = 100 + rand() % 5,
					      .job_id = i + 1, .idx = i };
	for (i = 0; i < 10; i++) /* partition 4: shorter than PER, no floor */
		c[i].part = 4;
	ck_assert(!agent_window_keep_below_prio(&k, 1, 0)); /* not valid */
	agent_window_keep_floors(&k, c, N, PER);
	ck_assert(k.valid);
	for (part = 1; part <= 5; part++)
		for (prio = 0; prio < 62; prio++)
			for (i = 0; i < 40; i++) {
				time_t sub = 98 + i % 9;
				uint32_t id = 1 + (uint32_t)rand() % (N + 5);

				r = agent_window_keep_below_prio(&k, part,
								 prio);
				full = agent_window_keep_below(&k, part, prio,
							       sub, id);
				if (r < 0) {
					ties++;
					continue;
				}
				ones += r == 1;
				ck_assert_int_eq(r, full);
			}
	/* Each of the three floors ties at its own priority only. */
	ck_assert_uint_eq(ties, 3 * 40);
	ck_assert_uint_gt(ones, 0);
	for (part = 4; part <= 5; part++)
		ck_assert_int_eq(agent_window_keep_below_prio(&k, part, 0), 0);
	agent_window_keep_free(&k);
	free(c);
}
END_TEST

/*
 * A gated job outside the window is renewed once half its hold is gone;
 * one the due list takes over only once a quarter is left (the list's
 * urgent bound), and until then it is due now.  Never left past that.
 */
START_TEST(test_window_renew_now)
{
	const int64_t now = 100000;
	const uint32_t hold = 30;
	int64_t b;
	int due_now, r;

	for (b = now - 5; b <= now + 40; b++) {
		r = agent_window_renew_now(b, now, hold, 0, &due_now);
		ck_assert_int_eq(r, b < now + 1 + 15);
		ck_assert(!due_now);
		r = agent_window_renew_now(b, now, hold, 1, &due_now);
		ck_assert_int_eq(r, b <= now + 8);
		ck_assert_int_eq(due_now, b > now + 8 && b < now + 16);
		/* Urgent for the due list (its bound) exactly when renewed. */
		ck_assert_int_eq(r, b - hold / 2 <= now - hold / 4);
	}
}
END_TEST

/* The due list gives back what is due, keeps the rest, says what is next. */
START_TEST(test_window_keep_due)
{
	agent_window_keep_t k = { 0 };
	uint32_t *ids, n, i;
	int64_t next;

	for (i = 0; i < 1000; i++)
		ck_assert(agent_window_keep_due_add(&k, i + 1, 100 + i % 10));
	n = agent_window_keep_due_take(&k, 99, 0, 10000, &ids, &next);
	ck_assert_uint_eq(n, 0);
	ck_assert_ptr_null(ids);
	ck_assert_int_eq(next, 100);
	n = agent_window_keep_due_take(&k, 104, 0, 10000, &ids, &next);
	ck_assert_uint_eq(n, 500);
	for (i = 0; i < n; i++)
		ck_assert_uint_le((ids[i] - 1) % 10, 4);
	free(ids);
	ck_assert_uint_eq(k.ndue, 500);
	ck_assert_int_eq(next, 105);
	/* At most max: the rest stays, due already; all the urgent ones. */
	n = agent_window_keep_due_take(&k, 1000, 0, 300, &ids, &next);
	ck_assert_uint_eq(n, 300);
	ck_assert_int_le(next, 1000);
	free(ids);
	ck_assert_uint_eq(k.ndue, 200);
	n = agent_window_keep_due_take(&k, 1000, 1000, 10, &ids, &next);
	ck_assert_uint_eq(n, 200);
	ck_assert_int_eq(next, INT64_MAX);
	free(ids);
	ck_assert_uint_eq(k.ndue, 0);
	agent_window_keep_free(&k);
}
END_TEST

Suite *make_agent_window_suite(void)
{
	Suite *s = suite_create("agent_window");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_window_params);
	tcase_add_test(tc, test_window_size);
	tcase_add_test(tc, test_window_array_room);
	tcase_add_test(tc, test_window_select);
	tcase_add_test(tc, test_window_select_long);
	tcase_add_test(tc, test_budget_bounds);
	tcase_add_test(tc, test_budget_gap_order);
	tcase_add_test(tc, test_quiet_due);
	tcase_add_test(tc, test_quiet_poll_reset);
	tcase_add_test(tc, test_gate_renew);
	tcase_add_test(tc, test_window_keep_floors);
	tcase_add_test(tc, test_window_keep_below_prio);
	tcase_add_test(tc, test_window_renew_now);
	tcase_add_test(tc, test_window_keep_due);
	suite_add_tcase(s, tc);
	return s;
}
