/*
 * check_acct.c - unit tests of the staging record kept in a job's
 * AdminComment (acct.c).
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agent_acct.h"
#include "dl_acct.h"
#include "dl_error.h"

static const dl_acct_t sample = {
	.files = 12, .cached = 10, .cached_bytes = 1288490188,
	.peer = 1, .peer_bytes = 104857600, .storage = 1,
	.storage_bytes = 52428800, .direct = 0, .direct_bytes = 0,
	.staged_ms = 3140, .nodes = 1
};

#define SAMPLE_TEXT                                                        \
	"datalocality: files=12 cached=10/1288490188 peer=1/104857600 "    \
	"storage=1/52428800 direct=0/0 staged_s=3.140 nodes=1"

START_TEST(test_format)
{
	char buf[DL_ACCT_LEN_MAX], small[16];
	dl_acct_t big;

	ck_assert_int_eq(dl_acct_format(&sample, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, SAMPLE_TEXT);
	ck_assert_int_eq(dl_acct_format(&sample, small, sizeof(small)),
			 DL_ERANGE);
	ck_assert_str_eq(small, "");
	/* The longest record fits the documented bound. */
	memset(&big, 0xff, sizeof(big));
	big.staged_ms = UINT64_MAX - 100;
	ck_assert_int_eq(dl_acct_format(&big, buf, sizeof(buf)), 0);
	/* To the millisecond. */
	big = sample;
	big.staged_ms = 7;
	dl_acct_format(&big, buf, sizeof(buf));
	ck_assert_ptr_nonnull(strstr(buf, " staged_s=0.007 "));
}
END_TEST

START_TEST(test_parse_round_trip)
{
	dl_acct_t a;

	ck_assert_int_eq(dl_acct_parse(SAMPLE_TEXT, &a), 0);
	ck_assert_uint_eq(a.files, 12);
	ck_assert_uint_eq(a.cached, 10);
	ck_assert_uint_eq(a.cached_bytes, 1288490188);
	ck_assert_uint_eq(a.peer_bytes, 104857600);
	ck_assert_uint_eq(a.storage, 1);
	ck_assert_uint_eq(a.storage_bytes, 52428800);
	ck_assert_uint_eq(a.staged_ms, 3140);
	ck_assert_uint_eq(a.nodes, 1);
	/* Inside other text, up to a ';'; unknown keys skipped. */
	ck_assert_int_eq(dl_acct_parse("audit ok; datalocality: files=2 "
				       "cached=1/5 peer=0/0 storage=1/7 "
				       "future=x staged_s=0.25; more", &a),
			 0);
	ck_assert_uint_eq(a.files, 2);
	ck_assert_uint_eq(a.storage_bytes, 7);
	ck_assert_uint_eq(a.staged_ms, 250);
	ck_assert_uint_eq(a.nodes, 0);
}
END_TEST

START_TEST(test_parse_refuses)
{
	static const char *const bad[] = {
		"datalocality: files=1 cached=1/1 peer=0/0",     /* no storage */
		"datalocality: files=01 cached=1/1 peer=0/0 storage=0/0",
		"datalocality: files=-1 cached=1/1 peer=0/0 storage=0/0",
		"datalocality: files=1 cached=1 peer=0/0 storage=0/0",
		"datalocality: files=1 cached=1/x peer=0/0 storage=0/0",
		"datalocality: files=1 cached=1/1 peer=0/0 storage=0/0 "
		"staged_s=1.",
		"datalocality: files=1 cached=1/1 peer=0/0 storage=0/0 "
		"staged_s=1.2345",
		"datalocality: files=18446744073709551616 cached=1/1 "
		"peer=0/0 storage=0/0",
		"datalocality: files=1 cached=1/1 peer=0/0 storage=0/0 junk",
		"datalocality: files=1 cached=1/1 peer=0/0 storage=0/0 "
		"staged_s=18446744073709551.999",
	};
	dl_acct_t a;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(dl_acct_parse(bad[i], &a) == DL_EFORMAT,
			      "accepted: %s", bad[i]);
		ck_assert_uint_eq(a.files, 0);
	}
	ck_assert_int_eq(dl_acct_parse(NULL, &a), DL_ENOENT);
	ck_assert_int_eq(dl_acct_parse("", &a), DL_ENOENT);
	ck_assert_int_eq(dl_acct_parse("nothing here", &a), DL_ENOENT);
}
END_TEST

START_TEST(test_add)
{
	dl_acct_t sum = sample, b = sample;

	b.staged_ms = 5000;
	dl_acct_add(&sum, &b);
	ck_assert_uint_eq(sum.files, 24);
	ck_assert_uint_eq(sum.cached_bytes, 2 * 1288490188ull);
	ck_assert_uint_eq(sum.nodes, 2);
	ck_assert_uint_eq(sum.staged_ms, 5000); /* the slowest node */
	b.files = UINT64_MAX;
	dl_acct_add(&sum, &b);
	ck_assert_uint_eq(sum.files, UINT64_MAX);
}
END_TEST

START_TEST(test_merge)
{
	dl_acct_t b = sample;
	char *s;

	s = dl_acct_merge(NULL, &sample);
	ck_assert_str_eq(s, SAMPLE_TEXT);
	free(s);
	s = dl_acct_merge("checked by admin", &sample);
	ck_assert_str_eq(s, "checked by admin; " SAMPLE_TEXT);
	free(s);
	/* A second record replaces the first, in place. */
	b.files = 13;
	s = dl_acct_merge("a; datalocality: files=1 cached=0/0 peer=0/0 "
			  "storage=1/1 direct=0/0 staged_s=0.1 nodes=1; b",
			  &b);
	ck_assert_ptr_nonnull(strstr(s, "a; datalocality: files=13 "));
	ck_assert_ptr_nonnull(strstr(s, " nodes=1; b"));
	ck_assert_ptr_null(strstr(s, "files=1 "));
	free(s);
}
END_TEST

/* A node's REPORT as the agent queues it (agent_acct_queue.c). */
START_TEST(test_agent_queue)
{
	dl_msg_count_t c = { .files = 5, .hits = 2, .copied = 3,
			     .from_peers = 1, .uncached = 0,
			     .bytes_hit = 20, .bytes_copied = 70,
			     .peer_bytes = 30, .storage_bytes = 40,
			     .staged_ms = 1234 };
	agent_acct_item_t *items;
	uint64_t dropped;

	ck_assert_int_eq(agent_acct_put(0, &c), DL_EINVAL);
	ck_assert_uint_eq(agent_acct_take(&items, &dropped), 0);
	ck_assert_ptr_null(items);
	ck_assert_int_eq(agent_acct_put(7, &c), 0);
	c.files = 6;
	ck_assert_int_eq(agent_acct_put(8, &c), 0);
	ck_assert_uint_eq(agent_acct_take(&items, &dropped), 2);
	ck_assert_uint_eq(dropped, 0);
	ck_assert_uint_eq(items[0].job, 7);
	ck_assert_uint_eq(items[0].a.files, 5);
	ck_assert_uint_eq(items[0].a.cached, 2);
	ck_assert_uint_eq(items[0].a.cached_bytes, 20);
	ck_assert_uint_eq(items[0].a.peer, 1);
	ck_assert_uint_eq(items[0].a.peer_bytes, 30);
	ck_assert_uint_eq(items[0].a.storage, 2);
	ck_assert_uint_eq(items[0].a.storage_bytes, 40);
	ck_assert_uint_eq(items[0].a.staged_ms, 1234);
	ck_assert_uint_eq(items[0].a.nodes, 1);
	ck_assert_uint_eq(items[1].job, 8);
	ck_assert_uint_eq(items[1].a.files, 6);
	free(items);
	/* Bounded: past the limit, reports are counted and dropped. */
	for (uint32_t i = 0; i < AGENT_ACCT_QUEUE_MAX; i++)
		ck_assert_int_eq(agent_acct_put(i + 1, &c), 0);
	ck_assert_int_eq(agent_acct_put(1, &c), DL_ETOOBIG);
	ck_assert_uint_eq(agent_acct_take(&items, &dropped),
			  AGENT_ACCT_QUEUE_MAX);
	ck_assert_uint_eq(dropped, 1);
	free(items);
}
END_TEST

/* agent_acct_on_put(): the agent is woken once per report, even dropped. */
static int wakes;
static void _count_wake(void)
{
	wakes++;
}

START_TEST(test_agent_queue_wake)
{
	dl_msg_count_t c = { .files = 1 };
	agent_acct_item_t *items;
	uint64_t dropped;

	wakes = 0;
	agent_acct_on_put(_count_wake);
	ck_assert_int_eq(agent_acct_put(0, &c), DL_EINVAL);
	ck_assert_int_eq(wakes, 0);
	ck_assert_int_eq(agent_acct_put(3, &c), 0);
	ck_assert_int_eq(agent_acct_put(4, &c), 0);
	ck_assert_int_eq(wakes, 2);
	agent_acct_on_put(NULL);
	ck_assert_int_eq(agent_acct_put(5, &c), 0);
	ck_assert_int_eq(wakes, 2);
	ck_assert_uint_eq(agent_acct_take(&items, &dropped), 3);
	free(items);
}
END_TEST

Suite *make_acct_suite(void)
{
	Suite *s = suite_create("acct");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_format);
	tcase_add_test(tc, test_parse_round_trip);
	tcase_add_test(tc, test_parse_refuses);
	tcase_add_test(tc, test_add);
	tcase_add_test(tc, test_merge);
	tcase_add_test(tc, test_agent_queue);
	tcase_add_test(tc, test_agent_queue_wake);
	suite_add_tcase(s, tc);
	return s;
}
