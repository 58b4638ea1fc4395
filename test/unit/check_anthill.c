/* check_anthill.c - AnthillSched (anthillsched-goes §4), dl_anthill.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_suites.h"
#include "dl_anthill.h"
#include "dl_error.h"

#define TOL 1e-9

static void _copies(uint32_t n, const double *b, const double *e,
		    const uint8_t *bc, uint32_t p, uint32_t m, uint32_t *out)
{
	ck_assert_int_eq(dl_anthill_copies(n, b, e, bc, p, m, out), 0);
}

/*
 * B = (600, 200, 200), E = (2, 4, 4), p = 8:
 *   B / sum B = (0.6, 0.2, 0.2), E / sum E = (0.2, 0.4, 0.4),
 *   halves summed: (0.4, 0.3, 0.3), times 8: (3.2, 2.4, 2.4);
 *   floors (3, 2, 2) = 7, one left: remainders (0.2, 0.4, 0.4), the tie
 *   goes to the lower index: (3, 3, 2).
 */
START_TEST(test_fig2)
{
	static const double b[3] = { 600, 200, 200 }, e[3] = { 2, 4, 4 };
	uint32_t c[3];

	_copies(3, b, e, NULL, 8, 10, c);
	ck_assert_uint_eq(c[0], 3);
	ck_assert_uint_eq(c[1], 3);
	ck_assert_uint_eq(c[2], 2);
}

END_TEST

/*
 * B = (100, 100, 800), E = (1, 1, 1), p = 12, filter 0 broadcasts to 1.
 * Iteration 1: B shares (0.1, 0.1, 0.8), E shares 1/3 each:
 *   C = 12 * (0.21667, 0.21667, 0.56667) = (2.6, 2.6, 6.8): floors
 *   (2, 2, 6) = 10; remainders (0.6, 0.6, 0.8): filter 2, then filter 0
 *   (tie with 1, lower index): (3, 2, 7).
 * Broadcast: B'1 = 100 * 2 = 200; B' = (100, 200, 800), sum 1100:
 *   C = 12 * ((1/11 + 1/3) / 2, (2/11 + 1/3) / 2, (8/11 + 1/3) / 2)
 *     = (2.5455, 3.0909, 6.3636): floors (2, 3, 6) = 11; remainders
 *   (0.545, 0.091, 0.364): filter 0: (3, 3, 6).
 * Broadcast: B'1 = 300; B' = (100, 300, 800), sum 1200:
 *   C = 12 * ((1/12 + 1/3) / 2, (1/4 + 1/3) / 2, (2/3 + 1/3) / 2)
 *     = (2.5, 3.5, 6): floors (2, 3, 6) = 11; remainders (0.5, 0.5, 0):
 *   tie, filter 0: (3, 3, 6), as before: a fixed point.
 * Without the broadcast, or with m = 1: (3, 2, 7).
 */
START_TEST(test_broadcast)
{
	static const double b[3] = { 100, 100, 800 }, e[3] = { 1, 1, 1 };
	static const uint8_t bc[3] = { 1, 0, 0 };
	uint32_t c[3];

	_copies(3, b, e, bc, 12, 10, c);
	ck_assert_uint_eq(c[0], 3);
	ck_assert_uint_eq(c[1], 3);
	ck_assert_uint_eq(c[2], 6);
	_copies(3, b, e, bc, 12, 2, c);
	ck_assert_uint_eq(c[1], 3);
	_copies(3, b, e, bc, 12, 1, c);
	ck_assert_uint_eq(c[0], 3);
	ck_assert_uint_eq(c[1], 2);
	ck_assert_uint_eq(c[2], 7);
	_copies(3, b, e, NULL, 12, 10, c);
	ck_assert_uint_eq(c[0], 3);
	ck_assert_uint_eq(c[1], 2);
	ck_assert_uint_eq(c[2], 7);
}

END_TEST

/*
 * Rounding at the edges.
 *   p = 4, shares (0.9, 0.05, 0.05): C = (3.6, 0.2, 0.2), floors with at
 *   least one copy (3, 1, 1) = 5 > 4: take one back from the only filter
 *   with more than one copy: (2, 1, 1).
 *   p = 2 < n = 3: one copy each.
 *   sum B = 0: E alone, (1, 3) / 4 * 4 = (1, 3).
 *   sum B = sum E = 0: p / n = 2 each.
 *   The last filter broadcasting to the first (q = (j + 1) mod n) works.
 */
START_TEST(test_rounding)
{
	static const double b1[3] = { 900, 50, 50 }, e1[3] = { 9, 0.5, 0.5 };
	static const double zero[3] = { 0, 0, 0 }, e2[2] = { 1, 3 };
	static const uint8_t last[2] = { 0, 1 };
	uint32_t c[3];

	_copies(3, b1, e1, NULL, 4, 10, c);
	ck_assert_uint_eq(c[0], 2);
	ck_assert_uint_eq(c[1], 1);
	ck_assert_uint_eq(c[2], 1);
	_copies(3, b1, e1, NULL, 2, 10, c);
	ck_assert_uint_eq(c[0] + c[1] + c[2], 3);
	_copies(2, zero, e2, NULL, 4, 10, c);
	ck_assert_uint_eq(c[0], 1);
	ck_assert_uint_eq(c[1], 3);
	_copies(3, zero, zero, NULL, 6, 10, c);
	ck_assert_uint_eq(c[0], 2);
	ck_assert_uint_eq(c[1], 2);
	ck_assert_uint_eq(c[2], 2);
	/*
	 * B = (100, 100), E = (1, 1), p = 4, 1 -> 0 broadcast: (2, 2), then
	 * B' = (200, 100): 4 * ((2/3 + 1/2) / 2, (1/3 + 1/2) / 2) =
	 * (2.33, 1.67) -> (2, 2) after the remainder: fixed.
	 */
	_copies(2, (const double[]){ 100, 100 }, (const double[]){ 1, 1 }, last,
		4, 10, c);
	ck_assert_uint_eq(c[0], 2);
	ck_assert_uint_eq(c[1], 2);
}

END_TEST

START_TEST(test_copies_errors)
{
	double b[2] = { 1, 2 }, e[2] = { 1, 1 };
	uint32_t c[2] = { 7, 7 };

	ck_assert_int_eq(dl_anthill_copies(0, b, e, NULL, 4, 1, c), DL_EINVAL);
	ck_assert_int_eq(dl_anthill_copies(2, b, e, NULL, 0, 1, c), DL_EINVAL);
	ck_assert_int_eq(dl_anthill_copies(2, b, e, NULL, 4, 0, c), DL_EINVAL);
	ck_assert_int_eq(dl_anthill_copies(2, NULL, e, NULL, 4, 1, c),
			 DL_EINVAL);
	b[1] = -1;
	ck_assert_int_eq(dl_anthill_copies(2, b, e, NULL, 4, 1, c), DL_EINVAL);
	b[1] = NAN;
	ck_assert_int_eq(dl_anthill_copies(2, b, e, NULL, 4, 1, c), DL_EINVAL);
	b[1] = INFINITY;
	ck_assert_int_eq(dl_anthill_copies(2, b, e, NULL, 4, 1, c), DL_EINVAL);
	ck_assert_uint_eq(c[0], 7);
}

END_TEST

/*
 * The profile of the interpolation tests: three filters, one parameter,
 * runs at minsize 1, 2 and 10.  Run 1 gives its wall time (2.5 s), the
 * others take the sum of their filters' times (16 s each).
 */
static const char profile[] = "# ID3 on the 911 calls\n"
			      "filter read\n"
			      "filter split   # per attribute\n"
			      "filter count\n"
			      "\n"
			      "run minsize=1\n"
			      "read 100 1\n"
			      "split 100 1\n"
			      "count 100 1\n"
			      "wall 2.5\n"
			      "run minsize=2\n"
			      "count 160 0\n"
			      "read 800 8\n"
			      "split 160 8\n"
			      "run minsize=10\n"
			      "\tread 0 0\n"
			      "  split 800 0\n"
			      "count 0 16\r\n";

static dl_anthill_profile_t *_parse(const char *text)
{
	dl_anthill_profile_t *p = NULL;
	unsigned line = 0;
	int rc = dl_anthill_profile_parse(text, strlen(text), &p, &line);

	ck_assert_msg(rc == 0, "parse: %d at line %u", rc, line);
	return p;
}

static void _estimate(const dl_anthill_profile_t *p, const char *params,
		      const double *b, const double *e, double wall)
{
	double gb[3], ge[3], gw = -1;
	int j;

	ck_assert_int_eq(dl_anthill_estimate(p, params, gb, ge, &gw), 0);
	for (j = 0; j < 3; j++) {
		ck_assert_msg(fabs(gb[j] - b[j]) < TOL, "%s: B%d %g, not %g",
			      params, j, gb[j], b[j]);
		ck_assert_msg(fabs(ge[j] - e[j]) < TOL, "%s: E%d %g, not %g",
			      params, j, ge[j], e[j]);
	}
	ck_assert_msg(fabs(gw - wall) < TOL, "%s: wall %g, not %g", params, gw,
		      wall);
}

/*
 * Estimates; minsize spans 1..10, so distances are |x - r| / 9.
 *   minsize=2: the run itself.
 *   minsize=5: nearest 2 (3/9); beyond it, seen from 2, only 10; t =
 *     (5 - 2) / (10 - 2) = 3/8: B = 5/8 (800, 160, 160) + 3/8 (0, 800, 0)
 *     = (500, 400, 100); E = 5/8 (8, 8, 0) + 3/8 (0, 0, 16) = (5, 5, 6);
 *     wall 5/8 16 + 3/8 16 = 16.
 *   minsize=1.5: 1 and 2 tie at 0.5/9, the first in the file (1) wins;
 *     beyond it 2 and 10, 2 nearer; t = 1/2: B = (450, 130, 130), E =
 *     (4.5, 4.5, 0.5), wall (2.5 + 16) / 2 = 9.25.
 *   minsize=0.5 and 20: outside the profile, the nearest run, no
 *     extrapolation.
 */
START_TEST(test_estimate)
{
	dl_anthill_profile_t *p = _parse(profile);

	ck_assert_uint_eq(dl_anthill_filter_count(p), 3);
	ck_assert_str_eq(dl_anthill_filter_name(p, 1), "split");
	ck_assert_ptr_null(dl_anthill_filter_name(p, 3));
	_estimate(p, "minsize=2", (const double[]){ 800, 160, 160 },
		  (const double[]){ 8, 8, 0 }, 16);
	_estimate(p, "minsize=5", (const double[]){ 500, 400, 100 },
		  (const double[]){ 5, 5, 6 }, 16);
	_estimate(p, "minsize=1.5", (const double[]){ 450, 130, 130 },
		  (const double[]){ 4.5, 4.5, 0.5 }, 9.25);
	_estimate(p, "minsize=0.5", (const double[]){ 100, 100, 100 },
		  (const double[]){ 1, 1, 1 }, 2.5);
	_estimate(p, "minsize=20", (const double[]){ 0, 800, 0 },
		  (const double[]){ 0, 0, 16 }, 16);
	dl_anthill_profile_free(p);
}

END_TEST

/*
 * Two parameters, scaled by their ranges (a: 2, b: 4).  Runs (0, 0),
 * (2, 0), (0, 4) are at (0, 0), (1, 0), (0, 1) once scaled.  x = (1, 0)
 * scaled (0.5, 0): runs 1 and 2 tie at 0.25, run 1 wins; run 2 lies beyond
 * x ((0.5, 0).(1, 0) > 0), run 3 does not ((0.5, 0).(0, 1) = 0); t = 0.5:
 * B = (10 + 30) / 2 = 20.
 */
START_TEST(test_estimate_2d)
{
	static const char text[] = "filter only\n"
				   "run a=0 b=0\nonly 10 1\n"
				   "run b=0 a=2\nonly 30 3\n"
				   "run a=0 b=4\nonly 1000 100\n";
	dl_anthill_profile_t *p = _parse(text);
	double b, e, w;

	ck_assert_int_eq(dl_anthill_estimate(p, "a=1,b=0", &b, &e, &w), 0);
	ck_assert(fabs(b - 20) < TOL);
	ck_assert(fabs(e - 2) < TOL);
	ck_assert(fabs(w - 2) < TOL);
	ck_assert_int_eq(dl_anthill_estimate(p, "b=0,a=2", &b, &e, NULL), 0);
	ck_assert(fabs(b - 30) < TOL);
	dl_anthill_profile_free(p);
}

END_TEST

START_TEST(test_estimate_errors)
{
	dl_anthill_profile_t *p = _parse(profile);
	double b[3] = { -1, -1, -1 }, e[3];

	ck_assert_int_eq(dl_anthill_estimate(p, NULL, b, e, NULL), DL_EINVAL);
	ck_assert_int_eq(dl_anthill_estimate(p, "", b, e, NULL), DL_EINVAL);
	ck_assert_int_eq(dl_anthill_estimate(p, "minsize=x", b, e, NULL),
			 DL_EINVAL);
	ck_assert_int_eq(dl_anthill_estimate(p, "minsize=1,minsize=2", b, e,
					     NULL),
			 DL_EINVAL);
	ck_assert_int_eq(dl_anthill_estimate(p, "minsize=1,k=2", b, e, NULL),
			 DL_EINVAL);
	ck_assert_int_eq(dl_anthill_estimate(p, "size=1", b, e, NULL),
			 DL_EINVAL);
	ck_assert_int_eq(dl_anthill_estimate(p, "minsize", b, e, NULL),
			 DL_EINVAL);
	ck_assert(b[0] == -1); /* unchanged */
	ck_assert_int_eq(dl_anthill_estimate(NULL, "minsize=1", b, e, NULL),
			 DL_EINVAL);
	dl_anthill_profile_free(p);
}

END_TEST

/*
 * OAS.  minsize=1 ran 2.5 s < 5: one copy each; with threshold 0 (plain
 * AnthillSched) equal shares: 16 / 3 = 5.33 each, floors 5 + 5 + 5, the
 * last processor to filter 0 on the tie: (6, 5, 5).
 * minsize=5 (16 s): B shares (0.5, 0.4, 0.1), E shares (5, 5, 6) / 16 =
 * (0.3125, 0.3125, 0.375); halves summed (0.40625, 0.35625, 0.2375), times
 * 16: (6.5, 5.7, 3.8); floors (6, 5, 3) = 14; remainders (0.5, 0.7, 0.8):
 * filters 2 then 1: (6, 6, 4).  With a threshold of 20 s: sequential.
 */
START_TEST(test_schedule)
{
	dl_anthill_profile_t *p = _parse(profile);
	dl_anthill_opts_t o;
	uint32_t c[3];
	int par = -1;

	dl_anthill_opts_default(&o);
	ck_assert(o.threshold == 5.0);
	o.procs = 16;
	ck_assert_int_eq(dl_anthill_schedule(p, "minsize=1", &o, c, &par), 0);
	ck_assert_int_eq(par, 0);
	ck_assert_uint_eq(c[0] + c[1] + c[2], 3);
	o.threshold = 0;
	ck_assert_int_eq(dl_anthill_schedule(p, "minsize=1", &o, c, &par), 0);
	ck_assert_int_eq(par, 1);
	ck_assert_uint_eq(c[0], 6);
	ck_assert_uint_eq(c[1], 5);
	ck_assert_uint_eq(c[2], 5);
	o.threshold = 5;
	ck_assert_int_eq(dl_anthill_schedule(p, "minsize=5", &o, c, &par), 0);
	ck_assert_int_eq(par, 1);
	ck_assert_uint_eq(c[0], 6);
	ck_assert_uint_eq(c[1], 6);
	ck_assert_uint_eq(c[2], 4);
	o.threshold = 20;
	ck_assert_int_eq(dl_anthill_schedule(p, "minsize=5", &o, c, &par), 0);
	ck_assert_int_eq(par, 0);
	ck_assert_uint_eq(c[0], 1);
	o.procs = 0;
	ck_assert_int_eq(dl_anthill_schedule(p, "minsize=5", &o, c, &par),
			 DL_EINVAL);
	o.procs = 4;
	o.threshold = -1;
	ck_assert_int_eq(dl_anthill_schedule(p, "minsize=5", &o, c, &par),
			 DL_EINVAL);
	dl_anthill_profile_free(p);
}

END_TEST

/* The broadcast case of test_broadcast through a profile (30 s wall). */
START_TEST(test_schedule_broadcast)
{
	static const char text[] = "filter a broadcast\nfilter b\nfilter c\n"
				   "run\na 100 10\nb 100 10\nc 800 10\n";
	dl_anthill_profile_t *p = _parse(text);
	dl_anthill_opts_t o;
	uint32_t c[3];

	dl_anthill_opts_default(&o);
	o.procs = 12;
	ck_assert_int_eq(dl_anthill_schedule(p, NULL, &o, c, NULL), 0);
	ck_assert_uint_eq(c[0], 3);
	ck_assert_uint_eq(c[1], 3);
	ck_assert_uint_eq(c[2], 6);
	ck_assert_int_eq(dl_anthill_schedule(p, "x=1", &o, c, NULL), DL_EINVAL);
	dl_anthill_profile_free(p);
}

END_TEST

/* Malformed profiles and the line reported. */
START_TEST(test_parse_errors)
{
	static const struct {
		const char *text;
		unsigned line;
	} bad[] = {
		{ "", 0 },
		{ "# nothing\n\n", 0 },
		{ "filter a\n", 0 }, /* no run */
		{ "run\n", 1 }, /* no filter */
		{ "filter a\nrun\na 1 2\nfilter b\n", 4 }, /* filter late */
		{ "filter a\nfilter a\n", 2 }, /* twice */
		{ "filter a b\n", 1 }, /* not broadcast */
		{ "filter a/b\n", 1 }, /* bad name */
		{ "filter run\n", 1 }, /* keyword */
		{ "filter a\nfilter b\nrun\na 1 1\nrun\nb 1 1\n", 3 },
		{ "filter a\nfilter b\nrun\na 1 1\n", 3 }, /* b missing */
		{ "filter a\nrun\na 1 1\na 1 1\n", 4 }, /* a twice */
		{ "filter a\nrun\nc 1 1\n", 3 }, /* unknown */
		{ "filter a\nrun\na -1 1\n", 3 },
		{ "filter a\nrun\na 1 nan\n", 3 },
		{ "filter a\nrun\na 1\n", 3 },
		{ "filter a\nrun\na 1 2 3\n", 3 },
		{ "filter a\na 1 2\n", 2 }, /* outside a run */
		{ "filter a\nrun\na 1 2\nwall 1\nwall 2\n", 5 },
		{ "filter a\nrun x=1\na 1 2\nrun y=1\na 1 2\n", 4 },
		{ "filter a\nrun x=1\na 1 2\nrun\na 1 2\n", 4 },
		{ "filter a\nrun x=1\na 1 2\nrun x=1\na 3 4\n", 4 }, /* dup */
		{ "filter a\nrun x=1 x=2\n", 2 },
		{ "filter a\nrun x\n", 2 },
		{ "filter a\nrun x=abc\n", 2 },
		{ "filter a\nrun\na 1 2\nrun\na 1 2\n", 4 }, /* dup, no param */
	};

	dl_anthill_profile_t *p = NULL;
	static const char nul[] = "filter a\nrun\0\na 1 1\n";
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		unsigned line = 999;
		int rc = dl_anthill_profile_parse(bad[i].text,
						  strlen(bad[i].text), &p,
						  &line);

		ck_assert_msg(rc == DL_EFORMAT, "case %zu: rc %d", i, rc);
		ck_assert_msg(line == bad[i].line, "case %zu: line %u, not %u",
			      i, line, bad[i].line);
		ck_assert_ptr_null(p);
	}
	ck_assert_int_eq(dl_anthill_profile_parse(nul, sizeof(nul) - 1, &p,
						  NULL),
			 DL_EFORMAT);
	ck_assert_int_eq(dl_anthill_profile_parse(NULL, 0, &p, NULL),
			 DL_EINVAL);
}

END_TEST

START_TEST(test_load)
{
	char path[] = "/tmp/check_anthill.XXXXXX";
	dl_anthill_profile_t *p = NULL;
	unsigned line = 0;
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	ck_assert(write(fd, profile, sizeof(profile) - 1) ==
		  (ssize_t) (sizeof(profile) - 1));
	close(fd);
	ck_assert_int_eq(dl_anthill_profile_load(path, &p, &line), 0);
	ck_assert_uint_eq(dl_anthill_filter_count(p), 3);
	dl_anthill_profile_free(p);
	unlink(path);
	p = NULL;
	ck_assert_int_eq(dl_anthill_profile_load(path, &p, &line), DL_EIO);
	ck_assert_ptr_null(p);
	dl_anthill_profile_free(NULL);
}

END_TEST

/* dl-anthill's output and exit status for args (the built binary,
 * $DL_ANTHILL, set by make check); out: its stdout and stderr. */
static int _cli(const char *args, char *out, size_t len)
{
	char cmd[1024];
	size_t n;
	FILE *f;
	int st;

	snprintf(cmd, sizeof(cmd), "'%s' %s 2>&1", getenv("DL_ANTHILL"),
		 args);
	f = popen(cmd, "r");
	ck_assert_ptr_nonnull(f);
	n = fread(out, 1, len - 1, f);
	out[n] = '\0';
	st = pclose(f);
	ck_assert(WIFEXITED(st));
	return WEXITSTATUS(st);
}

/* The man page's example, end to end, and its command-line errors. */
START_TEST(test_cli)
{
	static const struct {
		const char *args; /* after "-f PROFILE" */
		int rc;
		const char *out;  /* what the output holds */
		int whole;        /* ... and nothing else */
	} cases[] = {
		{ "-p 16 -a minsize=5", 0, "read 10\nsplit 3\ncount 3\n", 1 },
		/* below the threshold: sequential, one copy each */
		{ "-p 16 -a minsize=5 -t 100", 0,
		  "read 1\nsplit 1\ncount 1\n", 1 },
		{ "-p 16 -a minsize=5 -v", 0, ": parallel\n", 0 },
		{ "-p x", 2, "bad --procs 'x'", 0 },
		{ "-p 4 -t -1", 2, "bad --threshold '-1'", 0 },
		{ "-p 4 -m 0", 2, "bad --iterations '0'", 0 },
		{ "", 2, "Usage: dl-anthill", 0 }, /* no --procs */
		{ "-p 16", 1, "--params must give", 0 },
	};
	char path[] = "/tmp/check_anthill_cliXXXXXX", args[256], out[4096];
	size_t i;
	int fd;
	FILE *f;

	if (!getenv("DL_ANTHILL")) {
		fprintf(stderr, "test_cli: DL_ANTHILL unset (make check sets "
				"it): dl-anthill not run\n");
		return;
	}
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	fputs("# ID3 decision trees: read -> split -> count -> (read)\n"
	      "filter read\nfilter split\nfilter count broadcast\n"
	      "run minsize=2\nread  800 8\nsplit 160 8\ncount 160 0\n"
	      "run minsize=10\nread  0   0\nsplit 800 0\ncount 0   16\n",
	      f);
	fclose(f);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(args, sizeof(args), "-f %s %s", path, cases[i].args);
		ck_assert_int_eq(_cli(args, out, sizeof(out)), cases[i].rc);
		if (cases[i].whole)
			ck_assert_str_eq(out, cases[i].out);
		else
			ck_assert_msg(strstr(out, cases[i].out), "%s: %s",
				      cases[i].args, out);
	}
	ck_assert_int_eq(_cli("-h", out, sizeof(out)), 0);
	unlink(path);
	ck_assert_int_eq(_cli("-f /nonexistent/x.prof -p 2", out,
			      sizeof(out)),
			 1);
	ck_assert_ptr_nonnull(strstr(out, "cannot use the profile"));
}

END_TEST

Suite *make_anthill_suite(void)
{
	Suite *s = suite_create("anthill");
	TCase *tc_core = tcase_create("core");

	tcase_add_test(tc_core, test_fig2);
	tcase_add_test(tc_core, test_broadcast);
	tcase_add_test(tc_core, test_rounding);
	tcase_add_test(tc_core, test_copies_errors);
	tcase_add_test(tc_core, test_estimate);
	tcase_add_test(tc_core, test_estimate_2d);
	tcase_add_test(tc_core, test_estimate_errors);
	tcase_add_test(tc_core, test_schedule);
	tcase_add_test(tc_core, test_schedule_broadcast);
	tcase_add_test(tc_core, test_parse_errors);
	tcase_add_test(tc_core, test_load);
	tcase_add_test(tc_core, test_cli);
	suite_add_tcase(s, tc_core);
	return s;
}
