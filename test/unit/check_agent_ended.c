/*
 * check_agent_ended.c - which jobs no longer pending a cycle's walk copies
 * (agent_ended.h).  The case that matters: a job the agent never saw,
 * which started and ended between two cycles, is copied once so that its
 * files are recorded where it ran (CI 2026-11-30: a -w job run during a
 * quiet spell's 5-s poll was lost, and the next job of its files let go
 * unplaced, test_multinode.sh (c)).
 */
#include <stdbool.h>
#include <time.h>

#include "check_suites.h"
#include "agent_ended.h"

/* The agent's first walk since it started: long before the jobs here. */
#define FIRST 50

/* A job that ran from 100 to 110, of which the agent knows nothing. */
static agent_ended_job_t _unseen(void)
{
	agent_ended_job_t j = { .start = 100, .end = 110 };

	return j;
}

START_TEST(test_ended_unseen)
{
	agent_ended_job_t j = _unseen();

	/* Ended after the last walk, or in its second: ran unseen. */
	ck_assert(agent_ended_copy(&j, 105, FIRST));
	ck_assert(agent_ended_copy(&j, 110, FIRST));
	/* Ended before it: that walk saw it end, or it was never ours. */
	ck_assert(!agent_ended_copy(&j, 111, FIRST));
	/* The first walk reads no job it does not know. */
	ck_assert(!agent_ended_copy(&j, 0, 0));
	/* Cancelled before it started: nothing ran anywhere. */
	j.start = 0;
	ck_assert(!agent_ended_copy(&j, 105, FIRST));
}
END_TEST

START_TEST(test_ended_known)
{
	agent_ended_job_t j = _unseen();

	j.known = true;
	/* A record left unread (budget): copied until read, at any time. */
	ck_assert(agent_ended_copy(&j, 500, FIRST));
	j.read = true;
	/* Its start, then its end, still to record. */
	ck_assert(agent_ended_copy(&j, 500, FIRST));
	j.start_logged = true;
	ck_assert(agent_ended_copy(&j, 500, FIRST));
	j.finished = true;
	ck_assert(!agent_ended_copy(&j, 500, FIRST));
	/* Kept through the second it ended in (see the next case). */
	ck_assert(agent_ended_copy(&j, 110, FIRST));
	ck_assert(!agent_ended_copy(&j, 111, FIRST));
}
END_TEST

/*
 * Three walks in the second the job ended in (cycles come 10 ms apart):
 * the first copies it unseen and records it; the record must survive the
 * second (agent_jobs_forget() drops what a cycle did not copy), else the
 * third takes it for unseen again and records its start twice.
 */
START_TEST(test_ended_recorded_once)
{
	agent_ended_job_t j = _unseen();
	int records = 0, walk;

	for (walk = 0; walk < 3; walk++) {
		if (!agent_ended_copy(&j, 110, FIRST)) {
			j.known = j.read = j.start_logged = j.finished = false;
			continue; /* not copied: its record forgotten */
		}
		if (!j.start_logged)
			records++;
		j.known = j.read = j.start_logged = j.finished = true;
	}
	ck_assert_int_eq(records, 1);
	ck_assert(j.known);
}
END_TEST

/*
 * The agent started again (24.11's scontrol reconfigure re-executes
 * slurmctld) in the second the job ended in: the agent before it may
 * have recorded the job, so it is not taken for unseen.  After that
 * second, unseen jobs are copied as ever.
 */
START_TEST(test_ended_restart)
{
	agent_ended_job_t j = _unseen();

	ck_assert(!agent_ended_copy(&j, 110, 110));
	ck_assert(!agent_ended_copy(&j, 111, 110));
	j.end = 111;
	ck_assert(agent_ended_copy(&j, 111, 110));
	/* A record of its own is followed whatever the first walk. */
	j.end = 110;
	j.known = true;
	ck_assert(agent_ended_copy(&j, 110, 110));
}
END_TEST

Suite *make_agent_ended_suite(void)
{
	Suite *s = suite_create("agent_ended");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_ended_unseen);
	tcase_add_test(tc, test_ended_known);
	tcase_add_test(tc, test_ended_recorded_once);
	tcase_add_test(tc, test_ended_restart);
	suite_add_tcase(s, tc);
	return s;
}
