/*
 * check_agent_credit.c - the staging records behind "staging outside the
 * time limit" (agent_credit.h): what a job is owed while its staging runs
 * and once it ended (the node's measure, never more than the job ran), an
 * end heard without its begin, a new staging of the same job replacing
 * the old, the credit remembered per job across its nodes, and forgetting.
 */
#include <stdlib.h>
#include <string.h>

#include "check_suites.h"
#include "dl_net_msg.h"
#include "agent_credit.h"

/* The record of job on node, copied; fails the test if there is none. */
static agent_credit_rec_t _rec(uint32_t node, uint32_t job)
{
	agent_credit_rec_t *r, out = { 0 };
	size_t n = agent_credit_copy(&r);
	bool found = false;

	for (size_t i = 0; i < n; i++)
		if (r[i].node == node && r[i].job_id == job) {
			out = r[i];
			found = true;
		}
	free(r);
	ck_assert_msg(found, "no record of job %u on node %u", job, node);
	return out;
}

static size_t _count(void)
{
	agent_credit_rec_t *r;
	size_t n = agent_credit_copy(&r);

	free(r);
	return n;
}

START_TEST(test_credit_owed)
{
	agent_credit_rec_t r;
	time_t t0 = 1000000;

	agent_credit_clear();
	/* The job started at t0, its STAGE arrived 2 s later. */
	agent_credit_note(3, 7, false, 0, t0 + 2);
	r = _rec(3, 7);
	ck_assert_int_eq(r.end, 0);
	/* Staging: the seconds so far, from the begin. */
	ck_assert_uint_eq(agent_credit_owed(&r, t0 + 2, t0), 0);
	ck_assert_uint_eq(agent_credit_owed(&r, t0 + 50, t0), 48);
	/* A begin heard before the job's start counts from the start. */
	ck_assert_uint_eq(agent_credit_owed(&r, t0 + 50, t0 + 10), 40);
	/* Ended after 75 s by the node's clock, heard at t0 + 78. */
	agent_credit_note(3, 7, true, 75, t0 + 78);
	r = _rec(3, 7);
	ck_assert_int_eq(r.end, t0 + 78);
	ck_assert_uint_eq(agent_credit_owed(&r, t0 + 200, t0), 75);
	/* A node claiming more than the job ran gets what it ran. */
	agent_credit_note(3, 8, false, 0, t0 + 1);
	agent_credit_note(3, 8, true, 500, t0 + 30);
	ck_assert_uint_eq(agent_credit_owed(&(agent_credit_rec_t){
					    .begin = t0 + 1, .end = t0 + 30,
					    .secs = 500 }, t0 + 40, t0), 30);
	r = _rec(3, 8);
	ck_assert_uint_eq(agent_credit_owed(&r, t0 + 40, t0), 30);
	/* A clock gone backwards owes nothing. */
	r = (agent_credit_rec_t){ .begin = t0 + 10 };
	ck_assert_uint_eq(agent_credit_owed(&r, t0 + 5, t0), 0);
	agent_credit_clear();
	ck_assert_uint_eq(_count(), 0);
}
END_TEST

START_TEST(test_credit_end_without_begin)
{
	agent_credit_rec_t r;
	time_t t0 = 2000000;

	agent_credit_clear();
	/* The service reconnected during the staging: only its end. */
	agent_credit_note(1, 9, true, 40, t0 + 45);
	r = _rec(1, 9);
	ck_assert_int_eq(r.begin, t0 + 5);
	ck_assert_uint_eq(agent_credit_owed(&r, t0 + 50, t0), 40);
	/* The job staged again (requeued on the same node): anew. */
	agent_credit_note(1, 9, false, 0, t0 + 100);
	r = _rec(1, 9);
	ck_assert_int_eq(r.begin, t0 + 100);
	ck_assert_int_eq(r.end, 0);
	ck_assert_uint_eq(r.secs, 0);
	ck_assert(!r.said);
	agent_credit_clear();
}
END_TEST

START_TEST(test_credit_per_job)
{
	time_t t0 = 3000000;

	agent_credit_clear();
	agent_credit_note(1, 5, false, 0, t0);
	agent_credit_note(2, 5, false, 0, t0 + 1);
	agent_credit_note(1, 6, false, 0, t0 + 1);
	ck_assert_uint_eq(_count(), 3);
	/* The credit given is the job's, in all its records. */
	agent_credit_set(5, 12, t0 + 72, false);
	ck_assert_uint_eq(_rec(1, 5).applied, 12);
	ck_assert_uint_eq(_rec(2, 5).applied, 12);
	ck_assert_int_eq(_rec(2, 5).set_end, t0 + 72);
	ck_assert_uint_eq(_rec(1, 6).applied, 0);
	/* A third node of the job starts from the job's credit. */
	agent_credit_note(3, 5, false, 0, t0 + 2);
	ck_assert_uint_eq(_rec(3, 5).applied, 12);
	agent_credit_set(5, 20, t0 + 80, true);
	ck_assert(_rec(1, 5).said && _rec(3, 5).said);
	agent_credit_forget(5);
	ck_assert_uint_eq(_count(), 1);
	ck_assert_uint_eq(_rec(1, 6).job_id, 6);
	agent_credit_forget(6);
	ck_assert_uint_eq(_count(), 0);
}
END_TEST

/* The node's STAGING message (dl_net_msg.h) as the channel decodes it. */
START_TEST(test_credit_message)
{
	dl_msg_t m, d;
	char *body, err[128];
	size_t n;

	dl_msg_init(&m, DL_NET_STAGING);
	m.job = 42;
	m.done = 1;
	m.secs = 75;
	ck_assert_int_eq(dl_msg_encode(&m, &body, &n, err, sizeof(err)), 0);
	ck_assert_int_eq(dl_msg_decode(DL_NET_STAGING, body, n, &d, err,
				       sizeof(err)), 0);
	ck_assert_uint_eq(d.job, 42);
	ck_assert_uint_eq(d.done, 1);
	ck_assert_uint_eq(d.secs, 75);
	free(body);
	dl_msg_free(&d);
	/* A begin needs no secs; done is 0 or 1, and a job is required. */
	ck_assert_int_eq(dl_msg_decode(DL_NET_STAGING, "job=7 done=0\n", 13,
				       &d, err, sizeof(err)), 0);
	ck_assert_uint_eq(d.done, 0);
	ck_assert_uint_eq(d.secs, 0);
	dl_msg_free(&d);
	ck_assert_int_ne(dl_msg_decode(DL_NET_STAGING, "job=7 done=2\n", 13,
				       &d, err, sizeof(err)), 0);
	ck_assert_int_ne(dl_msg_decode(DL_NET_STAGING, "done=1 secs=3\n", 14,
				       &d, err, sizeof(err)), 0);
	ck_assert_str_eq(dl_net_type_name(DL_NET_STAGING), "STAGING");
	dl_msg_free(&m);
}
END_TEST

Suite *make_agent_credit_suite(void)
{
	Suite *s = suite_create("agent_credit");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_credit_owed);
	tcase_add_test(tc, test_credit_end_without_begin);
	tcase_add_test(tc, test_credit_per_job);
	tcase_add_test(tc, test_credit_message);
	suite_add_tcase(s, tc);
	return s;
}
