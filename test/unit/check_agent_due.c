/*
 * check_agent_due.c - what is due between the agent's cycles
 * (agent_quiet.h: agent_quiet_between(), agent_quiet_inventory()): the
 * order of an inventory found changed, a cycle's own reason and what the
 * renewal of the holds found, and an inventory found changed staying due
 * until a cycle plans.  Commit 15036a8 fixed that without a test: a cycle
 * due for Slurm's job stamp alone took the inventory's place, stopped at
 * its snapshot unplanned and cleared it, and the file waited for the next
 * cycle, up to AGENT_QUIET_FULL_MS.
 */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "check_suites.h"
#include "agent_quiet.h"

#define RENEW_WHY "clock (gate holds run out)"

/*
 * dl_agent.c's _between() after its renewal step, its look at the
 * inventory files faked: changed is what the look finds, *looks counts
 * the looks (each stats every node's file).  Kept as close to the agent's
 * wiring as the pure calls allow.
 */
static const char *_between(agent_quiet_t *q, const char *why,
			    const char *renew_why, bool changed, int *looks,
			    int64_t now_ms)
{
	why = agent_quiet_between(q, why, renew_why);
	if (!why || strcmp(why, "check"))
		return why;
	(*looks)++;
	if (changed)
		return agent_quiet_inventory(q);
	agent_quiet_checked(q, now_ms);
	return renew_why;
}

/*
 * Nothing found changed: a cycle's own reason first, then what the
 * renewal found; "renew" and "check" are not a cycle's reasons, "check"
 * asks for a look at the inventories.
 */
START_TEST(test_due_order)
{
	agent_quiet_t q = { 0 };

	ck_assert_ptr_null(agent_quiet_between(&q, NULL, NULL));
	ck_assert_str_eq(agent_quiet_between(&q, NULL, RENEW_WHY), RENEW_WHY);
	ck_assert_ptr_null(agent_quiet_between(&q, "renew", NULL));
	ck_assert_str_eq(agent_quiet_between(&q, "renew", RENEW_WHY),
			 RENEW_WHY);
	/* A cycle's reason wins over the renewal's (both come to a cycle). */
	ck_assert_str_eq(agent_quiet_between(&q, "nodes", RENEW_WHY), "nodes");
	ck_assert_str_eq(agent_quiet_between(&q, AGENT_QUIET_WHY_JOBS,
					     RENEW_WHY),
			 AGENT_QUIET_WHY_JOBS);
	ck_assert_str_eq(agent_quiet_between(&q, "first", NULL), "first");
	ck_assert_str_eq(agent_quiet_between(&q, "quiet", NULL), "quiet");
	/* "check": look first; the renewal's reason only if none changed. */
	ck_assert_str_eq(agent_quiet_between(&q, "check", NULL), "check");
	ck_assert_str_eq(agent_quiet_between(&q, "check", RENEW_WHY),
			 "check");
}
END_TEST

/*
 * An inventory found changed comes before anything else due: a cycle's
 * own reason (the job stamp's, which may stop unplanned, above all), the
 * renewal's, another "check".
 */
START_TEST(test_due_inventory_first)
{
	static const char *const whys[] = {
		AGENT_QUIET_WHY_JOBS, "nodes", "jobs", "first", "clock",
		"quiet", "change (services)", "renew", "check", NULL,
	};
	agent_quiet_t q = { 0 };
	size_t i;

	ck_assert(!q.inv_due);
	ck_assert_str_eq(agent_quiet_inventory(&q), AGENT_QUIET_WHY_INVENTORY);
	ck_assert(q.inv_due);
	for (i = 0; i < sizeof(whys) / sizeof(whys[0]); i++) {
		ck_assert_str_eq(agent_quiet_between(&q, whys[i], NULL),
				 AGENT_QUIET_WHY_INVENTORY);
		ck_assert_str_eq(agent_quiet_between(&q, whys[i], RENEW_WHY),
				 AGENT_QUIET_WHY_INVENTORY);
	}
	/* Asking does not clear it. */
	ck_assert(q.inv_due);
}
END_TEST

/*
 * The inventories are looked at only for a "check" with nothing else due
 * or found; a look that finds none changed counts as the check
 * (agent_quiet_checked()), the next one AGENT_QUIET_MAX_MS later.
 */
START_TEST(test_due_check_looks)
{
	agent_quiet_t q = { 0 };
	agent_stamps_t at = { 10, 100, 100, 50, 40, 7 };
	int64_t t0 = 5000, t1 = t0 + AGENT_QUIET_MAX_MS;
	int looks = 0;

	agent_quiet_ran(&q, &at, 200, 1.0, AGENT_QUIET_NEVER, false, t0);
	ck_assert_ptr_null(_between(&q, agent_quiet_due(&q, &at, t1 - 1, 209),
				    NULL, true, &looks, t1 - 1));
	ck_assert_str_eq(agent_quiet_due(&q, &at, t1, 210), "check");
	/* A cycle's reason: no look (the cycle reads the files anyway). */
	ck_assert_str_eq(_between(&q, "nodes", NULL, true, &looks, t1),
			 "nodes");
	ck_assert_int_eq(looks, 0);
	/* None changed: the renewal's reason, and checked until t1 + MAX. */
	ck_assert_ptr_null(_between(&q, "check", NULL, false, &looks, t1));
	ck_assert_int_eq(looks, 1);
	ck_assert_str_eq(_between(&q, "check", RENEW_WHY, false, &looks, t1),
			 RENEW_WHY);
	ck_assert_int_eq(looks, 2);
	ck_assert(!q.inv_due);
	ck_assert_ptr_null(
		agent_quiet_due(&q, &at, t1 + AGENT_QUIET_MAX_MS - 1, 219));
	ck_assert_str_eq(agent_quiet_due(&q, &at, t1 + AGENT_QUIET_MAX_MS, 220),
			 "check");
	/* One changed: due, and no more looks while it is. */
	ck_assert_str_eq(_between(&q, "check", RENEW_WHY, true, &looks,
				  t1 + AGENT_QUIET_MAX_MS),
			 AGENT_QUIET_WHY_INVENTORY);
	ck_assert_int_eq(looks, 3);
	ck_assert_str_eq(_between(&q, "check", NULL, false, &looks,
				  t1 + AGENT_QUIET_MAX_MS + 10),
			 AGENT_QUIET_WHY_INVENTORY);
	ck_assert_int_eq(looks, 3);
}
END_TEST

/*
 * The bug of 15036a8: a "check" finds an inventory changed; the cycle
 * waits (the last one was slow, or sched/backfill runs); meanwhile
 * Slurm's job stamp moves for nothing the agent reads.  The inventory
 * stays the reason due, and a cycle that stops at its snapshot
 * (agent_quiet_seen(): due for the job stamp alone, or peeked) leaves it
 * due; only a cycle that plans (agent_quiet_ran()) clears it.
 */
START_TEST(test_due_inventory_until_planned)
{
	agent_quiet_t q = { 0 };
	agent_stamps_t at = { 10, 100, 100, 50, 40, 7 }, cur = at;
	int64_t t0 = 5000, t1 = t0 + AGENT_QUIET_MAX_MS;
	int looks = 0;

	agent_quiet_ran(&q, &at, 200, 1.0, AGENT_QUIET_NEVER, false, t0);
	ck_assert_str_eq(_between(&q, agent_quiet_due(&q, &cur, t1, 210),
				  NULL, true, &looks, t1),
			 AGENT_QUIET_WHY_INVENTORY);
	ck_assert_int_eq(looks, 1);
	/* The next poll: the job stamp moved alone. */
	cur.job = 209;
	ck_assert_str_eq(agent_quiet_due(&q, &cur, t1 + 10, 210),
			 AGENT_QUIET_WHY_JOBS);
	ck_assert_str_eq(_between(&q, agent_quiet_due(&q, &cur, t1 + 10, 210),
				  NULL, false, &looks, t1 + 10),
			 AGENT_QUIET_WHY_INVENTORY);
	/* A cycle for the job stamp alone stopped unplanned. */
	agent_quiet_seen(&q, &cur, 210);
	ck_assert(q.inv_due);
	ck_assert_str_eq(_between(&q, agent_quiet_due(&q, &cur, t1 + 20, 210),
				  NULL, false, &looks, t1 + 20),
			 AGENT_QUIET_WHY_INVENTORY);
	ck_assert_str_eq(_between(&q, AGENT_QUIET_WHY_JOBS, NULL, false,
				  &looks, t1 + 20),
			 AGENT_QUIET_WHY_INVENTORY);
	/* Peeked and stopped again: still due, and no look meanwhile. */
	cur.job = 211;
	agent_quiet_seen(&q, &cur, 212);
	ck_assert_str_eq(_between(&q, "check", NULL, false, &looks, t1 + 30),
			 AGENT_QUIET_WHY_INVENTORY);
	ck_assert_int_eq(looks, 1);
	/* A cycle planned: cleared; the job stamp is a reason again. */
	agent_quiet_ran(&q, &cur, 212, 1.0, AGENT_QUIET_NEVER, false,
			t1 + 40);
	ck_assert(!q.inv_due);
	ck_assert_ptr_null(_between(&q, agent_quiet_due(&q, &cur, t1 + 50, 212),
				    NULL, false, &looks, t1 + 50));
	ck_assert_str_eq(_between(&q, AGENT_QUIET_WHY_JOBS, NULL, false,
				  &looks, t1 + 50),
			 AGENT_QUIET_WHY_JOBS);
	ck_assert_str_eq(_between(&q, NULL, RENEW_WHY, false, &looks,
				  t1 + 50),
			 RENEW_WHY);
	ck_assert_int_eq(looks, 1);
}
END_TEST

Suite *make_agent_due_suite(void)
{
	Suite *s = suite_create("agent_due");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_due_order);
	tcase_add_test(tc, test_due_inventory_first);
	tcase_add_test(tc, test_due_check_looks);
	tcase_add_test(tc, test_due_inventory_until_planned);
	suite_add_tcase(s, tc);
	return s;
}
