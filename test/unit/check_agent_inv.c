/*
 * check_agent_inv.c - the controller's copy of a node service's inventory
 * (agent_inv.h): full INV in parts, DELTAs, counters, loss of the
 * connection (not complete, last list kept), resync, and the refusal of
 * bad bodies and of more than the bounds.
 */
#include <stdio.h>
#include <string.h>

#include "check_suites.h"
#include "dl_error.h"
#include "dl_net_msg.h"
#include "agent_inv.h"

static char err[256];

/* Decode a body as the channel does, then apply it. */
static int _apply(agent_inv_t *inv, uint32_t type, const char *body)
{
	dl_msg_t m;
	int rc = dl_msg_decode(type, body, strlen(body), &m, err, sizeof(err));

	if (rc)
		return rc;
	rc = type == DL_NET_INV ? agent_inv_apply_inv(inv, &m, err, sizeof(err)) :
				  agent_inv_apply_delta(inv, &m, err,
							sizeof(err));
	dl_msg_free(&m);
	return rc;
}

static int _inv(agent_inv_t *inv, const char *body)
{
	return _apply(inv, DL_NET_INV, body);
}

static int _delta(agent_inv_t *inv, const char *body)
{
	return _apply(inv, DL_NET_DELTA, body);
}

static uint64_t _size(const agent_inv_t *inv, const char *path)
{
	uint64_t s = 0;

	return agent_inv_size(inv, path, &s) ? s : UINT64_MAX;
}

START_TEST(test_inv_parts)
{
	agent_inv_t *inv = agent_inv_create(0, 0);
	uint64_t g;

	ck_assert(!agent_inv_complete(inv));
	/* No HELLO yet: refused. */
	ck_assert_int_eq(_inv(inv, "part=0 last=1 files=0"), DL_EFORMAT);
	agent_inv_begin(inv);
	g = agent_inv_generation(inv);
	ck_assert_int_eq(_inv(inv, "part=0 last=0 files=2\n/a/x 10\n/a/y 20\n"),
			 0);
	/* Parts are not the inventory until the last one. */
	ck_assert(!agent_inv_complete(inv));
	ck_assert_uint_eq(agent_inv_count(inv), 0);
	ck_assert_uint_eq(agent_inv_generation(inv), g);
	ck_assert_int_eq(_inv(inv, "part=1 last=1 files=1\n/b 5"), 0);
	ck_assert(agent_inv_complete(inv));
	ck_assert_uint_eq(agent_inv_count(inv), 3);
	ck_assert_uint_eq(_size(inv, "/a/x"), 10);
	ck_assert_uint_eq(_size(inv, "/b"), 5);
	ck_assert_uint_eq(_size(inv, "/a"), UINT64_MAX);
	ck_assert_uint_ne(agent_inv_generation(inv), g);
	agent_inv_destroy(inv);
}
END_TEST

START_TEST(test_inv_order_and_count)
{
	agent_inv_t *inv = agent_inv_create(0, 0);

	agent_inv_begin(inv);
	ck_assert_int_eq(_inv(inv, "part=1 last=1 files=0"), DL_EFORMAT);
	agent_inv_begin(inv);
	/* files= must match the lines. */
	ck_assert_int_eq(_inv(inv, "part=0 last=1 files=2\n/a 1"), DL_EFORMAT);
	agent_inv_begin(inv);
	ck_assert_int_eq(_inv(inv, "part=0 last=2 files=0"), DL_EFORMAT);
	agent_inv_begin(inv);
	ck_assert_int_eq(_inv(inv, "last=1 files=0"), DL_EFORMAT);
	ck_assert(!agent_inv_complete(inv));
	agent_inv_destroy(inv);
}
END_TEST

START_TEST(test_inv_bad_lines)
{
	const char *bad[] = {
		"part=0 last=1 files=1\nrel/path 1",
		"part=0 last=1 files=1\n/a/../b 1",
		"part=0 last=1 files=1\n/a/./b 1",
		"part=0 last=1 files=1\n/a/ 1",
		"part=0 last=1 files=1\n/a -1",
		"part=0 last=1 files=1\n/a 1x",
		"part=0 last=1 files=1\n/a 99999999999999999999",
		"part=0 last=1 files=1\n/a",
		"part=0 last=1 files=1\n/a\t1",
		"part=0 last=1 files=1\n/a 1 2",
		"part=0 last=1 files=2\n/a 1\n\n",
		"part=x last=1 files=0",
	};
	agent_inv_t *inv = agent_inv_create(0, 0);
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		agent_inv_begin(inv);
		ck_assert_msg(_inv(inv, bad[i]) == DL_EFORMAT, "accepted: %s",
			      bad[i]);
		ck_assert(!agent_inv_complete(inv));
	}
	agent_inv_destroy(inv);
}
END_TEST

START_TEST(test_inv_delta)
{
	agent_inv_t *inv = agent_inv_create(0, 0);
	const agent_inv_counters_t *c;
	uint64_t g;

	/* No DELTA before a full INV. */
	ck_assert_int_eq(_delta(inv, "storage_bytes=1 peer_bytes=0 used=1"),
			 DL_EINVAL);
	agent_inv_begin(inv);
	ck_assert_int_eq(_inv(inv, "part=0 last=1 files=2\n/a 1\n/b 2\n"), 0);
	g = agent_inv_generation(inv);
	ck_assert_int_eq(_delta(inv, "storage_bytes=7 peer_bytes=3 used=5\n"
				     "- /a\n+ /c 4\n+ /b 9\n- /nothing\n"),
			 0);
	ck_assert_uint_eq(agent_inv_count(inv), 2);
	ck_assert_uint_eq(_size(inv, "/a"), UINT64_MAX);
	ck_assert_uint_eq(_size(inv, "/b"), 9);
	ck_assert_uint_eq(_size(inv, "/c"), 4);
	ck_assert_uint_ne(agent_inv_generation(inv), g);
	c = agent_inv_counters(inv);
	ck_assert_uint_eq(c->storage_bytes, 7);
	ck_assert_uint_eq(c->peer_bytes, 3);
	ck_assert_uint_eq(c->used, 5);
	/* Counters only: the inventory's generation stays. */
	g = agent_inv_generation(inv);
	ck_assert_int_eq(_delta(inv, "storage_bytes=8 peer_bytes=3 used=5"), 0);
	ck_assert_uint_eq(agent_inv_generation(inv), g);
	ck_assert_uint_eq(agent_inv_counters(inv)->storage_bytes, 8);
	/* A bad line anywhere changes nothing, not even the counters. */
	ck_assert_int_eq(_delta(inv, "storage_bytes=9 peer_bytes=3 used=5\n"
				     "- /b\n* /c 1"),
			 DL_EFORMAT);
	ck_assert_uint_eq(_size(inv, "/b"), 9);
	ck_assert_uint_eq(agent_inv_counters(inv)->storage_bytes, 8);
	ck_assert_int_eq(_delta(inv, "storage_bytes=9 used=5\n- /b"),
			 DL_EFORMAT);
	ck_assert(agent_inv_complete(inv));
	agent_inv_destroy(inv);
}
END_TEST

/* Many adds and removes: the table stays exact (deletion in runs). */
START_TEST(test_inv_delta_many)
{
	agent_inv_t *inv = agent_inv_create(0, 0);
	char body[64];
	uint64_t s;
	int i;

	agent_inv_begin(inv);
	ck_assert_int_eq(_inv(inv, "part=0 last=1 files=0"), 0);
	for (i = 0; i < 2000; i++) {
		snprintf(body, sizeof(body),
			 "storage_bytes=0 peer_bytes=0 used=0\n+ /f%d %d", i, i);
		ck_assert_int_eq(_delta(inv, body), 0);
	}
	for (i = 0; i < 2000; i += 2) {
		snprintf(body, sizeof(body),
			 "storage_bytes=0 peer_bytes=0 used=0\n- /f%d", i);
		ck_assert_int_eq(_delta(inv, body), 0);
	}
	ck_assert_uint_eq(agent_inv_count(inv), 1000);
	for (i = 0; i < 2000; i++) {
		snprintf(body, sizeof(body), "/f%d", i);
		ck_assert_int_eq(agent_inv_size(inv, body, &s), i % 2 == 1);
		if (i % 2)
			ck_assert_uint_eq(s, (uint64_t)i);
	}
	agent_inv_destroy(inv);
}
END_TEST

START_TEST(test_inv_lost_resync)
{
	agent_inv_t *inv = agent_inv_create(0, 0);
	uint64_t g;

	agent_inv_begin(inv);
	ck_assert_int_eq(_inv(inv, "part=0 last=1 files=2\n/a 1\n/b 2"), 0);
	g = agent_inv_generation(inv);
	agent_inv_lost(inv);
	/* Unknown: kept, flagged, a new generation. */
	ck_assert(!agent_inv_complete(inv));
	ck_assert_uint_eq(agent_inv_count(inv), 2);
	ck_assert_uint_ne(agent_inv_generation(inv), g);
	ck_assert_int_eq(_delta(inv, "storage_bytes=0 peer_bytes=0 used=0"),
			 DL_EINVAL);
	/* Parts of a new INV do not replace it until the last one... */
	agent_inv_begin(inv);
	ck_assert_int_eq(_inv(inv, "part=0 last=0 files=1\n/c 3"), 0);
	ck_assert_uint_eq(_size(inv, "/a"), 1);
	/* ...and a loss in between drops them. */
	agent_inv_lost(inv);
	agent_inv_begin(inv);
	ck_assert_int_eq(_inv(inv, "part=0 last=1 files=1\n/d 4"), 0);
	ck_assert(agent_inv_complete(inv));
	ck_assert_uint_eq(agent_inv_count(inv), 1);
	ck_assert_uint_eq(_size(inv, "/d"), 4);
	ck_assert_uint_eq(_size(inv, "/c"), UINT64_MAX);
	agent_inv_destroy(inv);
}
END_TEST

START_TEST(test_inv_bounds)
{
	agent_inv_t *inv = agent_inv_create(2, 0);

	agent_inv_begin(inv);
	ck_assert_int_eq(_inv(inv, "part=0 last=1 files=3\n/a 1\n/b 1\n/c 1"),
			 DL_ETOOBIG);
	ck_assert(!agent_inv_complete(inv));
	agent_inv_begin(inv);
	/* The same path twice is one file. */
	ck_assert_int_eq(_inv(inv, "part=0 last=1 files=3\n/a 1\n/b 1\n/a 2"),
			 0);
	ck_assert_uint_eq(_size(inv, "/a"), 2);
	/* A DELTA over the bound: not complete any more, resync needed. */
	ck_assert_int_eq(_delta(inv, "storage_bytes=0 peer_bytes=0 used=0\n"
				     "+ /c 1"),
			 DL_ETOOBIG);
	ck_assert(!agent_inv_complete(inv));
	agent_inv_destroy(inv);
	/* Path bytes: "/ab" and "/cd" are 6 bytes. */
	inv = agent_inv_create(0, 5);
	agent_inv_begin(inv);
	ck_assert_int_eq(_inv(inv, "part=0 last=1 files=2\n/ab 1\n/cd 1"),
			 DL_ETOOBIG);
	agent_inv_destroy(inv);
}
END_TEST

START_TEST(test_inv_paths)
{
	ck_assert(agent_inv_valid_path("/a/.b/..c", 9));
	ck_assert(!agent_inv_valid_path("/a/..", 5));
	ck_assert(!agent_inv_valid_path("/a/./b", 6));
	ck_assert(!agent_inv_valid_path("a/b", 3));
	ck_assert(!agent_inv_valid_path("/a/", 3));
	ck_assert(!agent_inv_valid_path("/a\x7f", 3));
}
END_TEST

Suite *make_agent_inv_suite(void)
{
	Suite *s = suite_create("agent_inv");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_inv_parts);
	tcase_add_test(tc, test_inv_order_and_count);
	tcase_add_test(tc, test_inv_bad_lines);
	tcase_add_test(tc, test_inv_delta);
	tcase_add_test(tc, test_inv_delta_many);
	tcase_add_test(tc, test_inv_lost_resync);
	tcase_add_test(tc, test_inv_bounds);
	tcase_add_test(tc, test_inv_paths);
	suite_add_tcase(s, tc);
	return s;
}
