/*
 * check_agent_reconf.c - the fingerprint of what a reconfiguration reads
 * (agent_reconf.h): the same bytes give the same value, any change to
 * them (a byte, a line added, the file removed or emptied) another, and
 * a list of strings hashes as a list; and when it is taken and applied.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "check_suites.h"
#include "agent_fnv.h"
#include "agent_reconf.h"

static uint64_t _fp(const char *path)
{
	return agent_reconf_file(AGENT_FNV_BASIS, path);
}

/* Replace the file at path with text. */
static void _rewrite(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

/* Write text to a new temporary file; RET its path (free()). */
static char *_file(const char *text)
{
	char *path = strdup("/tmp/check_reconf.XXXXXX");
	int fd;

	ck_assert_ptr_nonnull(path);
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	_rewrite(path, text);
	return path;
}

/*
 * agent_reconf_look() must say to look at wall second now with the stamp
 * at stamp; RET what agent_reconf_seen() then makes of fingerprint fp.
 */
static agent_reconf_what_t _look(agent_reconf_t *r, bool asked,
				 int64_t stamp, int64_t now, uint64_t fp)
{
	ck_assert(agent_reconf_look(r, asked, stamp, now));
	return agent_reconf_seen(r, asked, stamp, now, fp);
}

START_TEST(test_reconf_file)
{
	const char *conf = "Policy=online-hps\nCacheCapacity=1G\n";
	char *path = _file(conf);
	uint64_t a = _fp(path), big;
	char *large;
	size_t i;

	/* Read twice, unchanged: one value (a setdebug changes nothing). */
	ck_assert_uint_eq(_fp(path), a);
	_rewrite(path, "Policy=online-hps\nCacheCapacity=2G\n");
	ck_assert_uint_ne(_fp(path), a);
	_rewrite(path, conf);
	ck_assert_uint_eq(_fp(path), a);
	_rewrite(path, "Policy=online-hps\nCacheCapacity=1G\n\n");
	ck_assert_uint_ne(_fp(path), a);
	_rewrite(path, "");
	ck_assert_uint_ne(_fp(path), a);
	/* Empty and removed are different changes. */
	big = _fp(path);
	unlink(path);
	ck_assert_uint_ne(_fp(path), big);
	ck_assert_uint_ne(_fp(path), a);
	ck_assert_uint_eq(_fp(NULL), _fp(path));
	free(path);

	/* Past one read's buffer: a change in the last byte counts. */
	large = malloc(10001);
	ck_assert_ptr_nonnull(large);
	for (i = 0; i < 10000; i++)
		large[i] = (char)('a' + i % 26);
	large[10000] = '\0';
	path = _file(large);
	a = _fp(path);
	large[9999] = 'Z';
	_rewrite(path, large);
	ck_assert_uint_ne(_fp(path), a);
	unlink(path);
	free(path);
	free(large);
}

END_TEST

START_TEST(test_reconf_str)
{
	uint64_t h0 = AGENT_FNV_BASIS;

	ck_assert_uint_eq(agent_reconf_str(h0, "node1"),
			  agent_reconf_str(h0, "node1"));
	ck_assert_uint_ne(agent_reconf_str(h0, "node1"),
			  agent_reconf_str(h0, "node2"));
	ck_assert_uint_ne(agent_reconf_str(h0, NULL),
			  agent_reconf_str(h0, ""));
	/* A list, not the concatenation of its strings. */
	ck_assert_uint_ne(agent_reconf_str(agent_reconf_str(h0, "ab"), "c"),
			  agent_reconf_str(agent_reconf_str(h0, "a"), "bc"));
	/* Order counts: node names in another order are another table. */
	ck_assert_uint_ne(agent_reconf_str(agent_reconf_str(h0, "n1"), "n2"),
			  agent_reconf_str(agent_reconf_str(h0, "n2"), "n1"));
}

END_TEST

/*
 * When to take the fingerprint and what to do with it: the first look
 * applies; a stamp's move or a request with the same fingerprint is
 * "same" (said, nothing done); a changed fingerprint applies; a stamp
 * seen in its own second is looked at once more after it, which finds
 * a reconfiguration later in that second (the stamp, in seconds, did
 * not move for it).
 */
START_TEST(test_reconf_decide)
{
	agent_reconf_t r = { 0 };

	ck_assert_int_eq(_look(&r, false, 100, 100, 7), AGENT_RECONF_APPLY);
	/* setdebug in the same second: the stamp did not move. */
	ck_assert(!agent_reconf_look(&r, false, 100, 100));
	/* The second is over: one more look, by the fingerprint alone. */
	ck_assert_int_eq(_look(&r, false, 100, 101, 7), AGENT_RECONF_NONE);
	ck_assert(!agent_reconf_look(&r, false, 100, 102));
	/* setdebug: the stamp moves, nothing changed. */
	ck_assert_int_eq(_look(&r, false, 105, 106, 7), AGENT_RECONF_SAME);
	ck_assert(!agent_reconf_look(&r, false, 105, 107));
	/* setdebugflags: Slurm asks, nothing changed. */
	ck_assert_int_eq(_look(&r, true, 105, 107, 7), AGENT_RECONF_SAME);
	/* A reconfigure that changed the file. */
	ck_assert_int_eq(_look(&r, false, 110, 110, 8), AGENT_RECONF_APPLY);
	/*
	 * Seen in its own second (110), then reconfigured with another
	 * file in that same second: found once the second is over.
	 */
	ck_assert(!agent_reconf_look(&r, false, 110, 110));
	ck_assert_int_eq(_look(&r, false, 110, 111, 9), AGENT_RECONF_APPLY);
	ck_assert(!agent_reconf_look(&r, false, 110, 112));
}

END_TEST

Suite *make_agent_reconf_suite(void)
{
	Suite *s = suite_create("agent_reconf");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_reconf_file);
	tcase_add_test(tc, test_reconf_str);
	tcase_add_test(tc, test_reconf_decide);
	suite_add_tcase(s, tc);
	return s;
}
