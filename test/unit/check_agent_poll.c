/*
 * check_agent_poll.c - the agent thread's poll (agent_poll.h): doubling
 * up to the idle poll, up to the quiet poll in a quiet spell only, back
 * to the shortest on a reset, and capped again once a planned cycle ended
 * the spell.  That last one is the bug of the first 5-s quiet poll
 * (2026-11-30): the poll was capped before the cycle, by the spell the
 * cycle ended, so a cycle due for the job stamp alone left it at 5 s and
 * the starts of the jobs it placed were seen late (test_state.sh).
 */
#include <stdbool.h>
#include <stdint.h>

#include "check_suites.h"
#include "agent_poll.h"

/* A cycle that planned at monotonic start_ms, with clocks wake. */
static void _ran(agent_quiet_t *q, int64_t start_ms, int64_t wake)
{
	agent_stamps_t at = { .njobs = 3 };

	agent_quiet_ran(q, &at, 100 + start_ms / 1000, 5.0, wake, false,
			start_ms);
}

/* Polls from the shortest, nothing moving, at now_ms each. */
static int64_t _polls(const agent_quiet_t *q, int n, int64_t now_ms)
{
	int64_t poll = AGENT_POLL_MS;

	while (n-- > 0)
		poll = agent_poll_next(q, poll, false, now_ms);
	return poll;
}

START_TEST(test_poll_idle_doubles)
{
	agent_quiet_t q = { 0 };

	_ran(&q, 1000, AGENT_QUIET_NEVER);
	ck_assert_int_eq(agent_poll_next(&q, AGENT_POLL_MS, false, 1100),
			 2 * AGENT_POLL_MS);
	ck_assert_int_eq(_polls(&q, 2, 1100), 4 * AGENT_POLL_MS);
	/* Within AGENT_QUIET_MAX_MS of the cycle: the idle poll at most. */
	ck_assert_int_eq(_polls(&q, 20, 1000 + AGENT_QUIET_MAX_MS - 1),
			 AGENT_POLL_IDLE_MS);
	/* A reset: the shortest again, whatever it was. */
	ck_assert_int_eq(agent_poll_next(&q, AGENT_POLL_IDLE_MS, true, 1100),
			 AGENT_POLL_MS);
}
END_TEST

START_TEST(test_poll_quiet_spell)
{
	agent_quiet_t q = { 0 };
	int64_t spell = 1000 + AGENT_QUIET_MAX_MS;

	/* No cycle yet: no spell. */
	ck_assert_int_eq(_polls(&q, 20, spell), AGENT_POLL_IDLE_MS);
	_ran(&q, 1000, AGENT_QUIET_NEVER);
	ck_assert_int_eq(agent_poll_max(&q, spell - 1), AGENT_POLL_IDLE_MS);
	ck_assert_int_eq(agent_poll_max(&q, spell), AGENT_POLL_QUIET_MS);
	ck_assert_int_eq(_polls(&q, 20, spell), AGENT_POLL_QUIET_MS);
	ck_assert_int_eq(agent_poll_next(&q, AGENT_POLL_QUIET_MS, true, spell),
			 AGENT_POLL_MS);
	/* A clock running (a free CPU, a held job): never a spell. */
	_ran(&q, 1000, AGENT_QUIET_LIVE);
	ck_assert_int_eq(_polls(&q, 20, spell * 10), AGENT_POLL_IDLE_MS);
	/* A clock at a time: a spell (the time asks for a cycle itself). */
	_ran(&q, 1000, 500);
	ck_assert_int_eq(_polls(&q, 20, spell), AGENT_POLL_QUIET_MS);
}
END_TEST

START_TEST(test_poll_after_cycle)
{
	agent_quiet_t q = { 0 };
	agent_stamps_t at = { .njobs = 3 };
	int64_t t = 1000 + 3 * AGENT_QUIET_MAX_MS, poll;

	_ran(&q, 1000, AGENT_QUIET_NEVER);
	/* The job stamp moving for nothing keeps the poll growing. */
	poll = _polls(&q, 20, t);
	ck_assert_int_eq(poll, AGENT_POLL_QUIET_MS);
	/* A cycle that stopped at its snapshot: the spell goes on. */
	agent_quiet_seen(&q, &at, 100 + t / 1000);
	ck_assert_int_eq(agent_poll_after_cycle(&q, poll, t + 40),
			 AGENT_POLL_QUIET_MS);
	/* One that planned ended it: the idle poll at most, at once. */
	_ran(&q, t, AGENT_QUIET_NEVER);
	ck_assert_int_eq(agent_poll_after_cycle(&q, poll, t + 40),
			 AGENT_POLL_IDLE_MS);
	ck_assert_int_eq(agent_poll_after_cycle(&q, 20, t + 40), 20);
	/* And the spell comes back AGENT_QUIET_MAX_MS after it. */
	ck_assert_int_eq(_polls(&q, 20, t + AGENT_QUIET_MAX_MS),
			 AGENT_POLL_QUIET_MS);
}
END_TEST

Suite *make_agent_poll_suite(void)
{
	Suite *s = suite_create("agent_poll");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_poll_idle_doubles);
	tcase_add_test(tc, test_poll_quiet_spell);
	tcase_add_test(tc, test_poll_after_cycle);
	suite_add_tcase(s, tc);
	return s;
}
