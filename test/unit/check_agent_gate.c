/*
 * check_agent_gate.c - the submit gate's bound and marks (agent_gate.h):
 * the bound follows the measured cycle time between its floor and
 * ceiling, one slow cycle raises it at once and fast ones bring it down
 * again; marks round-trip and bad ones are refused; a job's gate state
 * from its record (held, let go by the clock, released by the agent,
 * requeue delays not taken for the gate).
 */
#include <limits.h>
#include <string.h>

#include "check_suites.h"
#include "agent_gate.h"

START_TEST(test_gate_bound_scales)
{
	agent_gate_t g = { 0 };
	int i;

	/* Nothing measured yet: the floor. */
	ck_assert_uint_eq(agent_gate_bound(&g, 3, 30), 3);
	for (i = 0; i < 50; i++)
		agent_gate_observe(&g, 0.05);
	ck_assert_uint_eq(agent_gate_bound(&g, 3, 30), 3);
	/* A 2.4 s cycle: five of them, 12 s, at once. */
	agent_gate_observe(&g, 2.4);
	ck_assert_double_eq_tol(agent_gate_cycle(&g), 2.4, 1e-9);
	ck_assert_uint_eq(agent_gate_bound(&g, 3, 30), 12);
	/* The ceiling holds. */
	agent_gate_observe(&g, 20);
	ck_assert_uint_eq(agent_gate_bound(&g, 3, 30), 30);
	/* Fast cycles bring it back to the floor. */
	for (i = 0; i < 200; i++)
		agent_gate_observe(&g, 0.05);
	ck_assert_uint_eq(agent_gate_bound(&g, 3, 30), 3);
	ck_assert_uint_eq(g.cycles, 252);
}
END_TEST

START_TEST(test_gate_bound_clamps)
{
	agent_gate_t g = { 0 };

	agent_gate_observe(&g, 1000);
	/* The ceiling never beyond AGENT_GATE_HOLD_MAX, nor below 1. */
	ck_assert_uint_eq(agent_gate_bound(&g, 3, 600), AGENT_GATE_HOLD_MAX);
	ck_assert_uint_eq(agent_gate_bound(&g, 0, 0), 1);
	/* A floor above the ceiling is the ceiling. */
	memset(&g, 0, sizeof(g));
	agent_gate_observe(&g, 0);
	ck_assert_uint_eq(agent_gate_bound(&g, 40, 10), 10);
	/* Negative or NaN durations count as 0. */
	agent_gate_observe(&g, -5);
	agent_gate_observe(&g, 0.0 / 0.0);
	ck_assert_uint_eq(agent_gate_bound(&g, 2, 10), 2);
	/* Rounded up: 5 x 0.61 s is 3.05 s, held 4 s. */
	memset(&g, 0, sizeof(g));
	agent_gate_observe(&g, 0.61);
	ck_assert_uint_eq(agent_gate_bound(&g, 1, 30), 4);
}
END_TEST

START_TEST(test_gate_marks)
{
	char buf[48];
	uint32_t b = 99;
	time_t t = 99;

	ck_assert(agent_gate_mark_format(buf, sizeof(buf), 12, 1700000000));
	ck_assert_str_eq(buf, "12,1700000000");
	ck_assert(agent_gate_mark_parse(buf, &b, &t));
	ck_assert_uint_eq(b, 12);
	ck_assert_int_eq((long long)t, 1700000000LL);
	ck_assert(agent_gate_mark_format(buf, sizeof(buf), 3, -4));
	ck_assert_str_eq(buf, "3,0");
	ck_assert(!agent_gate_mark_format(buf, 4, 3, 1700000000));
	b = 99;
	t = 99;
	ck_assert(!agent_gate_mark_parse(NULL, &b, &t));
	ck_assert(!agent_gate_mark_parse("", &b, &t));
	ck_assert(!agent_gate_mark_parse("12", &b, &t));
	ck_assert(!agent_gate_mark_parse("12,", &b, &t));
	ck_assert(!agent_gate_mark_parse("0,5", &b, &t));
	ck_assert(!agent_gate_mark_parse("61,5", &b, &t));
	ck_assert(!agent_gate_mark_parse("3,5x", &b, &t));
	ck_assert(!agent_gate_mark_parse("-3,5", &b, &t));
	ck_assert(!agent_gate_mark_parse("3,99999999999999999999", &b, &t));
	ck_assert_uint_eq(b, 99);
	ck_assert_int_eq((long long)t, 99);
}
END_TEST

START_TEST(test_gate_state)
{
	const time_t sub = 1000;

	/* No mark: never the gate's. */
	ck_assert_int_eq(agent_gate_state(false, 0, sub + 5, sub, sub + 1),
			 AGENT_GATE_NONE);
	/* Held: begin time ahead, within the hold. */
	ck_assert_int_eq(agent_gate_state(true, 0, sub + 5, sub, sub + 1),
			 AGENT_GATE_HELD);
	/* Let go by the clock, unplaced. */
	ck_assert_int_eq(agent_gate_state(true, 0, sub + 5, sub, sub + 5),
			 AGENT_GATE_EXPIRED);
	ck_assert_int_eq(agent_gate_state(true, 0, sub + 5, sub, sub + 500),
			 AGENT_GATE_EXPIRED);
	/* Released by the agent: back to its submission. */
	ck_assert_int_eq(agent_gate_state(true, 0, sub, sub, sub + 1),
			 AGENT_GATE_NONE);
	/* ... or to the user's own begin time, ahead or not. */
	ck_assert_int_eq(agent_gate_state(true, sub + 2, sub + 2, sub, sub + 1),
			 AGENT_GATE_NONE);
	ck_assert_int_eq(agent_gate_state(true, sub + 2, sub + 2, sub, sub + 9),
			 AGENT_GATE_NONE);
	ck_assert_int_eq(agent_gate_state(true, sub + 2, sub + 5, sub, sub + 1),
			 AGENT_GATE_HELD);
	/* A requeue delay (121 s) is not the gate's hold. */
	ck_assert_int_eq(agent_gate_state(true, 0, sub + 200, sub, sub + 79),
			 AGENT_GATE_NONE);
	ck_assert_int_eq(agent_gate_state(true, 0, sub + 60, sub, sub),
			 AGENT_GATE_HELD);
	ck_assert_int_eq(agent_gate_release_to(0, sub), sub);
	ck_assert_int_eq(agent_gate_release_to(sub + 7, sub), sub + 7);
}
END_TEST

/*
 * A cycle about to place a gated job renews its hold only if less than two
 * of its cycles are left, to five cycles from now, never beyond
 * GateMaxHold from the submission; and never a hold not the gate's.
 */
START_TEST(test_gate_hurry)
{
	const time_t sub = 1000;
	/* begin, release_to, now, cycle, ceiling (after sub), expected */
	static const struct {
		time_t begin, rel, now;
		double cycle;
		uint32_t ceiling;
		time_t want;
	} c[] = {
		/* The CI case: 3 s bound, cycles of 1.148 s, 1 s left. */
		{ 3, 0, 2, 1.148, 30, 2 + 6 },
		/* Two cycles or more left: untouched. */
		{ 3, 0, 1, 1.0, 30, 3 },
		/* Fast cycles: a whole second left is always enough. */
		{ 3, 0, 2, 0.2, 30, 3 },
		/* Capped at GateMaxHold after the submission ... */
		{ 8, 0, 7, 4.0, 10, 10 },
		/* ... so with GateMaxHold the bound already, never renewed. */
		{ 3, 0, 2, 5.0, 3, 3 },
		/* Run out, released, or not the gate's: left alone. */
		{ 3, 0, 3, 5.0, 30, 3 },
		{ 0, 0, 1, 5.0, 30, 0 },
		{ 200, 0, 1, 5.0, 30, 200 },
		/* A user's begin time counts as a release, not a hold. */
		{ 4, 4, 3, 5.0, 30, 4 },
	};
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		ck_assert_msg(agent_gate_hurry_to(sub + c[i].begin,
						  sub + c[i].rel, sub,
						  sub + c[i].now, c[i].cycle,
						  c[i].ceiling) ==
				      sub + c[i].want,
			      "case %zu", i);
}
END_TEST

Suite *make_agent_gate_suite(void)
{
	Suite *s = suite_create("agent_gate");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_gate_bound_scales);
	tcase_add_test(tc, test_gate_bound_clamps);
	tcase_add_test(tc, test_gate_marks);
	tcase_add_test(tc, test_gate_state);
	tcase_add_test(tc, test_gate_hurry);
	suite_add_tcase(s, tc);
	return s;
}
