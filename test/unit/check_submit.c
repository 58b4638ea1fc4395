/*
 * check_submit.c - dl-submit's parts that need no Slurm (src/submit):
 * the stream format and --time forms, Poisson arrivals from a seed, the
 * lag statistics and verdict, the clock with a stand-in for the
 * submission, the command line and the report.  Figures by hand.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_suites.h"
#include "dl_error.h"
#include "submit.h"

static char err[512];

START_TEST(test_time_forms)
{
	static const struct {
		const char *s;
		uint32_t min;
	} ok[] = {
		{ "5", 5 },	     { "1:30", 2 },	 { "0:1", 1 },
		{ "1:00:00", 60 },   { "2:03:04", 124 }, { "1-0", 1440 },
		{ "1-2:30", 1590 },  { "1-0:0:1", 1441 }, { "0-1", 60 },
		{ "3650-0", 5256000 },	{ "999999:59", 1000000 },
		{ "UNLIMITED", UINT32_MAX },		 { "infinite", UINT32_MAX },
	};
	static const char *bad[] = { "",    "x",  "1:",	  ":1",	 "1::2",
				     "-1",  "1-", "1:2:3:4", "1.5", "+3",
				     "1-2-3", "99999999999", "3650-0:0:1",
				     "100000:0:0", "3651-0" };
	uint32_t m;
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		m = 0;
		ck_assert_msg(!dl_sub_parse_time(ok[i].s, &m), "%s", ok[i].s);
		ck_assert_msg(m == ok[i].min, "%s: %u", ok[i].s, m);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(dl_sub_parse_time(bad[i], &m) == DL_ESYNTAX,
			      "'%s' taken", bad[i]);
}
END_TEST

START_TEST(test_job_fields)
{
	dl_sub_job_t j;

	ck_assert_int_eq(
		dl_sub_job_parse(
			"  2.5 --job-name=a7 --comment=files:/d/x,/d/y"
			" --partition=debug --array=0-3%2 --output=/dev/null"
			" --error=/tmp/e --chdir=/tmp --nodelist=n[1-2]"
			" --uid=nobody --gid=nogroup --time=1:30 --nodes=2-4"
			" --ntasks=3 --cpus-per-task=2 --mem=600 --exclusive --hold"
			" --wrap=cat $DL_CACHE_VIEW/d/x >/dev/null;  sleep 1  ",
			1, &j, err, sizeof(err)),
		0);
	ck_assert(j.at == 2.5);
	ck_assert_str_eq(j.name, "a7");
	ck_assert_str_eq(j.comment, "files:/d/x,/d/y");
	ck_assert_str_eq(j.partition, "debug");
	ck_assert_str_eq(j.array, "0-3%2");
	ck_assert_str_eq(j.output, "/dev/null");
	ck_assert_str_eq(j.error, "/tmp/e");
	ck_assert_str_eq(j.chdir, "/tmp");
	ck_assert_str_eq(j.nodelist, "n[1-2]");
	ck_assert_str_eq(j.uid, "nobody");
	ck_assert_str_eq(j.gid, "nogroup");
	ck_assert_uint_eq(j.time_limit, 2);
	ck_assert_uint_eq(j.nodes_min, 2);
	ck_assert_uint_eq(j.nodes_max, 4);
	ck_assert_uint_eq(j.ntasks, 3);
	ck_assert_uint_eq(j.cpus_per_task, 2);
	ck_assert_uint_eq(j.mem_mb, 600);
	ck_assert_int_eq(j.exclusive, 1);
	ck_assert_int_eq(j.hold, 1);
	/* The command keeps its inner blanks, loses the trailing ones. */
	ck_assert_str_eq(j.wrap, "cat $DL_CACHE_VIEW/d/x >/dev/null;  sleep 1");
	ck_assert_ptr_null(j.script);
	dl_sub_job_clear(&j);

	/* A script path instead; a template has no arrival. */
	ck_assert_int_eq(dl_sub_job_parse("--nodes=3 /x/job.sh", 0, &j, err,
					  sizeof(err)),
			 0);
	ck_assert_str_eq(j.script, "/x/job.sh");
	ck_assert_uint_eq(j.nodes_min, 3);
	ck_assert_uint_eq(j.nodes_max, 3);
	ck_assert(j.at == 0);
	dl_sub_job_clear(&j);
}
END_TEST

START_TEST(test_job_errors)
{
	static const struct {
		const char *line, *msg;
	} bad[] = {
		{ "x --wrap=true", "no arrival" },
		{ "-1 --wrap=true", "no arrival" },
		{ "nan --wrap=true", "no arrival" },
		{ "1x --wrap=true", "no arrival" },
		{ "1 --time=5", "no --wrap" },
		{ "1 --wrap=   ", "needs a command" },
		{ "1 --bogus=3 --wrap=true", "unknown field '--bogus'" },
		{ "1 --comment=a --comment=b --wrap=true", "given twice" },
		{ "1 --nodes=0 --wrap=true", "bad --nodes" },
		{ "1 --nodes=3-2 --wrap=true", "bad --nodes" },
		{ "1 --ntasks=0 --wrap=true", "bad --ntasks" },
		{ "1 --time=0 --wrap=true", "bad --time" },
		{ "1 --exclusive=yes --wrap=true", "takes no value" },
		{ "1 --comment= --wrap=true", "needs a value" },
		{ "1 a.sh b.sh", "a second script" },
		{ "1 a.sh --time=3", "after the script" },
		{ "1 a.sh --wrap=true", "both a script and --wrap" },
	};
	dl_sub_job_t j;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		ck_assert_msg(dl_sub_job_parse(bad[i].line, 1, &j, err,
					       sizeof(err)) == DL_ESYNTAX,
			      "'%s' taken", bad[i].line);
		ck_assert_msg(strstr(err, bad[i].msg), "'%s': '%s'",
			      bad[i].line, err);
		ck_assert_ptr_null(j.comment);
		ck_assert_ptr_null(j.script);
	}
}
END_TEST

START_TEST(test_stream)
{
	const char *text = "# a stream\n"
			   "\n"
			   "0 --job-name=a --wrap=true\n"
			   "   # indented comment\n"
			   "0.5 --job-name=b --wrap=echo '#not a comment'\n"
			   "0.5 /bin/job.sh"; /* no final newline */
	const char *late = "1 --wrap=true\n2 --wrap=true\n1.5 --wrap=true\n";
	const char *nul = "1 --wrap=true\n2 --wr\0ap=true\n";
	dl_sub_stream_t s;

	ck_assert_int_eq(dl_sub_stream_parse(text, strlen(text), 1, &s, err,
					     sizeof(err)),
			 0);
	ck_assert_uint_eq(s.njobs, 3);
	ck_assert_uint_eq(s.jobs[0].line, 3);
	ck_assert_str_eq(s.jobs[1].wrap, "echo '#not a comment'");
	ck_assert_uint_eq(s.jobs[1].line, 5);
	ck_assert(s.jobs[2].at == 0.5);
	ck_assert_str_eq(s.jobs[2].script, "/bin/job.sh");
	dl_sub_stream_clear(&s);

	ck_assert_int_eq(dl_sub_stream_parse(late, strlen(late), 1, &s, err,
					     sizeof(err)),
			 DL_ESYNTAX);
	ck_assert_msg(strstr(err, "line 3: arrival 1.500 before"), "%s", err);
	ck_assert_uint_eq(s.njobs, 0);
	ck_assert_ptr_null(s.jobs);
	ck_assert_int_eq(dl_sub_stream_parse(nul, 29, 1, &s, err, sizeof(err)),
			 DL_ESYNTAX);
	ck_assert_msg(strstr(err, "line 2: a NUL"), "%s", err);
	ck_assert_int_eq(dl_sub_stream_parse("", 0, 1, &s, err, sizeof(err)),
			 0);
	ck_assert_uint_eq(s.njobs, 0);
}
END_TEST

/* Two jobs equal in every field (arrivals to the writer's microsecond). */
static void _same(const dl_sub_job_t *a, const dl_sub_job_t *b)
{
	const char *const *x[] = { (const char *const *)&a->name,
				   (const char *const *)&a->comment,
				   (const char *const *)&a->wrap,
				   (const char *const *)&a->script,
				   (const char *const *)&a->nodelist };
	const char *const *y[] = { (const char *const *)&b->name,
				   (const char *const *)&b->comment,
				   (const char *const *)&b->wrap,
				   (const char *const *)&b->script,
				   (const char *const *)&b->nodelist };
	size_t k;

	ck_assert(fabs(a->at - b->at) < 1e-6);
	for (k = 0; k < sizeof(x) / sizeof(x[0]); k++) {
		ck_assert_int_eq(!*x[k], !*y[k]);
		if (*x[k])
			ck_assert_str_eq(*x[k], *y[k]);
	}
	ck_assert_uint_eq(a->time_limit, b->time_limit);
	ck_assert_uint_eq(a->nodes_min, b->nodes_min);
	ck_assert_uint_eq(a->nodes_max, b->nodes_max);
	ck_assert_int_eq(a->exclusive, b->exclusive);
	ck_assert_int_eq(a->hold, b->hold);
}

START_TEST(test_round_trip)
{
	const char *text =
		"0.125 --job-name=w --time=UNLIMITED --nodes=4 --exclusive "
		"--wrap=sleep 3\n"
		"1.5 --comment=files:/a --time=2 --nodelist=n1 --hold /s/j.sh\n"
		"2 --time=3000-7:05 --wrap=true\n";
	dl_sub_stream_t s, t;
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_int_eq(dl_sub_stream_parse(text, strlen(text), 1, &s, err,
					     sizeof(err)),
			 0);
	for (i = 0; i < s.njobs; i++)
		ck_assert_int_eq(dl_sub_job_write(f, &s.jobs[i]), 0);
	fclose(f);
	ck_assert_int_eq(dl_sub_stream_parse(buf, len, 1, &t, err,
					     sizeof(err)),
			 0);
	ck_assert_uint_eq(t.njobs, 3);
	ck_assert_uint_eq(t.jobs[2].time_limit, 3000 * 1440 + 7 * 60 + 5);
	for (i = 0; i < s.njobs; i++)
		_same(&s.jobs[i], &t.jobs[i]);
	free(buf);
	dl_sub_stream_clear(&s);
	dl_sub_stream_clear(&t);
}
END_TEST

static void _templates(dl_sub_job_t *t)
{
	ck_assert_int_eq(dl_sub_job_parse("--comment=files:/ref/a,/in/j%i "
					  "--job-name=j%i --wrap=cat %i%i %%i",
					  0, &t[0], err, sizeof(err)),
			 0);
	ck_assert_int_eq(dl_sub_job_parse("--nodes=4 --wrap=sleep 1", 0,
					  &t[1], err, sizeof(err)),
			 0);
}

START_TEST(test_poisson)
{
	dl_sub_job_t t[2];
	dl_sub_stream_t a, b, c;
	double sum = 0;
	size_t i;

	_templates(t);
	ck_assert_int_eq(dl_sub_poisson(t, 2, 2.5, 2000, 7, &a), 0);
	ck_assert_int_eq(dl_sub_poisson(t, 2, 2.5, 2000, 7, &b), 0);
	ck_assert_int_eq(dl_sub_poisson(t, 2, 2.5, 2000, 8, &c), 0);
	ck_assert_uint_eq(a.njobs, 2000);
	ck_assert(a.jobs[0].at == 0);
	for (i = 1; i < a.njobs; i++) {
		ck_assert(a.jobs[i].at >= a.jobs[i - 1].at);
		/* The same seed gives the same stream. */
		ck_assert(a.jobs[i].at == b.jobs[i].at);
		sum += a.jobs[i].at - a.jobs[i - 1].at;
	}
	ck_assert(a.jobs[5].at != c.jobs[5].at);
	/* Mean gap 1/2.5 = 0.4 s: 1999 gaps of standard deviation 0.4
	 * have a mean within 0.4/sqrt(1999) = 0.009 of it; 5 sigma. */
	ck_assert_msg(fabs(sum / 1999 - 0.4) < 0.045, "mean gap %g",
		      sum / 1999);
	/* Template i mod 2, "%i" replaced by the index. */
	ck_assert_str_eq(a.jobs[12].comment, "files:/ref/a,/in/j12");
	ck_assert_str_eq(a.jobs[12].name, "j12");
	ck_assert_str_eq(a.jobs[12].wrap, "cat 1212 %12");
	ck_assert_str_eq(a.jobs[13].wrap, "sleep 1");
	ck_assert_uint_eq(a.jobs[13].nodes_min, 4);
	ck_assert_ptr_null(a.jobs[13].comment);
	dl_sub_stream_clear(&a);
	dl_sub_stream_clear(&b);
	dl_sub_stream_clear(&c);
	ck_assert_int_eq(dl_sub_poisson(t, 2, 0, 10, 7, &a), DL_EINVAL);
	ck_assert_int_eq(dl_sub_poisson(t, 2, 1, 0, 7, &a), DL_EINVAL);
	ck_assert_int_eq(dl_sub_poisson(t, 0, 1, 10, 7, &a), DL_EINVAL);
	ck_assert_int_eq(dl_sub_poisson(t, 2, INFINITY, 10, 7, &a),
			 DL_EINVAL);
	/* The templates are left as they were. */
	ck_assert_str_eq(t[0].name, "j%i");
	dl_sub_job_clear(&t[0]);
	dl_sub_job_clear(&t[1]);
}
END_TEST

START_TEST(test_lag)
{
	const double in[] = { 10, 11, 12, 13, 14 };
	const double on[] = { 10.0, 11.1, 12.5, 13.2, 14.2 };
	const double late[] = { 9.99, 11.3, 12.5, 13.6, 14.8 };
	dl_sub_lag_t l;

	/* Span 4 s intended, 4.2 achieved: 5% late, valid at 10%. */
	ck_assert_int_eq(dl_sub_lag_compute(in, on, 5, 10, &l), 0);
	ck_assert_uint_eq(l.n, 5);
	ck_assert(fabs(l.intended_span - 4) < 1e-9);
	ck_assert(fabs(l.achieved_span - 4.2) < 1e-9);
	ck_assert(fabs(l.intended_rate - 1) < 1e-9);
	ck_assert(fabs(l.achieved_rate - 4 / 4.2) < 1e-9);
	ck_assert(fabs(l.lag_pct - 5) < 1e-6);
	ck_assert(fabs(l.lag_max - 0.5) < 1e-9);
	/* p95 of 5 lags by nearest rank: the 5th (ceil(4.75)). */
	ck_assert(fabs(l.lag_p95 - 0.5) < 1e-9);
	ck_assert_int_eq(l.valid, 1);
	/* Span 14.8 - 9.99 = 4.81: 20.25% late; the early first one counts
	 * as no lag, not as a negative one. */
	ck_assert_int_eq(dl_sub_lag_compute(in, late, 5, 10, &l), 0);
	ck_assert(fabs(l.lag_pct - 20.25) < 1e-6);
	ck_assert(fabs(l.lag_max - 0.8) < 1e-9);
	ck_assert_int_eq(l.valid, 0);
	ck_assert_int_eq(dl_sub_lag_compute(in, late, 5, 25, &l), 0);
	ck_assert_int_eq(l.valid, 1);
	/* One job, or all at one instant: no rate to keep. */
	ck_assert_int_eq(dl_sub_lag_compute(in, late, 1, 10, &l), 0);
	ck_assert_int_eq(l.valid, 1);
	ck_assert(l.intended_rate == 0 && l.achieved_rate == 0);
	ck_assert_int_eq(dl_sub_lag_compute(in, on, 0, 10, &l), DL_EINVAL);
}
END_TEST

START_TEST(test_lag_p95)
{
	double in[40], ac[40];
	dl_sub_lag_t l;
	size_t i;

	/* Lags 0.00, 0.01, ..., 0.39: p95 is the 38th, 0.37. */
	for (i = 0; i < 40; i++) {
		in[i] = (double)i;
		ac[i] = (double)i + 0.01 * (double)((i * 7) % 40);
	}
	ck_assert_int_eq(dl_sub_lag_compute(in, ac, 40, 10, &l), 0);
	ck_assert_msg(fabs(l.lag_p95 - 0.37) < 1e-9, "%g", l.lag_p95);
	ck_assert(fabs(l.lag_max - 0.39) < 1e-9);
}
END_TEST

/* A stand-in for Slurm: ids from 100, the third job refused. */
static int _fake_submit(const dl_sub_job_t *job, void *arg, uint32_t *id,
			char *e, size_t elen)
{
	unsigned *n = arg;

	(void)job;
	if (++*n == 3) {
		snprintf(e, elen, "refused");
		return -1;
	}
	*id = 99 + *n;
	return 0;
}

START_TEST(test_run)
{
	const char *text = "0 --wrap=a\n0.01 --wrap=b\n0.02 --wrap=c\n"
			   "0.03 --wrap=d\n";
	dl_sub_record_t rec[4];
	dl_sub_stream_t s;
	unsigned calls = 0;
	size_t i;
	int burst;

	ck_assert_int_eq(dl_sub_stream_parse(text, strlen(text), 1, &s, err,
					     sizeof(err)),
			 0);
	for (burst = 0; burst <= 1; burst++) {
		calls = 0;
		ck_assert_uint_eq(dl_sub_run(&s, burst, _fake_submit, &calls,
					     rec),
				  1);
		ck_assert_uint_eq(calls, 4);
		ck_assert_uint_eq(rec[0].job_id, 100);
		ck_assert_uint_eq(rec[2].job_id, 0);
		ck_assert_uint_eq(rec[3].job_id, 103);
		for (i = 0; i < 4; i++) {
			/* Never before its time; intended times as the
			 * stream says, or all at the start for a burst. */
			ck_assert(rec[i].actual >= rec[i].intended - 1e-6);
			ck_assert(fabs(rec[i].intended - rec[0].intended -
				       (burst ? 0 : s.jobs[i].at)) < 1e-6);
			ck_assert(rec[i].call >= 0);
		}
	}
	dl_sub_stream_clear(&s);
}
END_TEST

/* dl_sub_report's text and status for 3 records. */
static int _report(const dl_sub_record_t *rec, size_t failed, int burst,
		   char **text)
{
	size_t len = 0;
	FILE *f = open_memstream(text, &len);
	int rc = dl_sub_report(f, rec, 3, failed, burst, 10);

	fclose(f);
	return rc;
}

START_TEST(test_report)
{
	dl_sub_record_t ok[3] = { { 1, 100, 100, 0.01 },
				  { 2, 101, 101.05, 0.02 },
				  { 3, 102, 102.1, 0.03 } };
	dl_sub_record_t slow[3] = { { 1, 100, 100, 0.5 },
				    { 2, 101, 101.5, 0.5 },
				    { 3, 102, 103, 0.5 } };
	char *t = NULL;

	ck_assert_int_eq(_report(ok, 0, 0, &t), DL_SUB_EXIT_OK);
	ck_assert_msg(strstr(t, "intended 1.000 jobs/s over 2.00 s, achieved "
				"0.952 jobs/s over 2.10 s"),
		      "%s", t);
	ck_assert_msg(strstr(t, "\nVALID\n"), "%s", t);
	free(t);
	ck_assert_int_eq(_report(slow, 0, 0, &t), DL_SUB_EXIT_NOT_VALID);
	ck_assert_msg(strstr(t, "NOT VALID (arrivals lagged by 50.0%)"), "%s",
		      t);
	free(t);
	ck_assert_int_eq(_report(slow, 1, 0, &t), DL_SUB_EXIT_FAILED);
	ck_assert_msg(strstr(t, "2 jobs submitted, 1 failed"), "%s", t);
	free(t);
	/* A burst: 3 submissions from 100 to 103.5, no verdict. */
	ck_assert_int_eq(_report(slow, 0, 1, &t), DL_SUB_EXIT_OK);
	ck_assert_msg(strstr(t, "3 submissions in 3.50 s, 0.9 submissions/s"),
		      "%s", t);
	ck_assert_ptr_null(strstr(t, "VALID"));
	free(t);
}
END_TEST

/* dl_sub_opts_parse on a NULL-ended list of words. */
static int _opts(dl_sub_opts_t *o, const char **words)
{
	char *argv[16];
	int argc = 0;

	argv[argc++] = (char *)"dl-submit";
	while (*words && argc < 15)
		argv[argc++] = (char *)*words++;
	argv[argc] = NULL;
	return dl_sub_opts_parse(argc, argv, o, err, sizeof(err));
}

START_TEST(test_opts)
{
	const char *gen[] = { "--rate", "2.5", "-n", "90", "--seed", "3",
			      "-t",	"--wrap=sleep %i", "-t",
			      "--nodes=2 --wrap=x", "--ids", "/tmp/ids",
			      NULL };
	const char *file[] = { "-b", "-R", "/tmp/r", "stream.txt", NULL };
	const char *both[] = { "-r", "1", "stream.txt", NULL };
	const char *none[] = { "-n", "5", NULL };
	const char *rate0[] = { "-r", "0", "-n", "5", "-t", "--wrap=x", NULL };
	const char *badt[] = { "-r", "1", "-n", "5", "-t", "--nope", NULL };
	dl_sub_opts_t o;

	ck_assert_int_eq(_opts(&o, gen), 0);
	ck_assert(o.rate == 2.5);
	ck_assert_uint_eq(o.njobs, 90);
	ck_assert_uint_eq(o.seed, 3);
	ck_assert_uint_eq(o.templ.njobs, 2);
	ck_assert_uint_eq(o.templ.jobs[1].nodes_min, 2);
	ck_assert_str_eq(o.ids, "/tmp/ids");
	ck_assert_ptr_null(o.stream);
	ck_assert(o.tolerance == 10);
	dl_sub_opts_clear(&o);
	ck_assert_int_eq(_opts(&o, file), 0);
	ck_assert_str_eq(o.stream, "stream.txt");
	ck_assert_int_eq(o.burst, 1);
	ck_assert_str_eq(o.record, "/tmp/r");
	dl_sub_opts_clear(&o);
	ck_assert_int_eq(_opts(&o, both), DL_EINVAL);
	ck_assert_msg(strstr(err, "not both"), "%s", err);
	ck_assert_int_eq(_opts(&o, none), DL_EINVAL);
	ck_assert_int_eq(_opts(&o, rate0), DL_EINVAL);
	ck_assert_msg(strstr(err, "--rate"), "%s", err);
	ck_assert_int_eq(_opts(&o, badt), DL_EINVAL);
	ck_assert_msg(strstr(err, "unknown field"), "%s", err);
}
END_TEST

Suite *make_submit_suite(void)
{
	Suite *s = suite_create("submit");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_time_forms);
	tcase_add_test(tc, test_job_fields);
	tcase_add_test(tc, test_job_errors);
	tcase_add_test(tc, test_stream);
	tcase_add_test(tc, test_round_trip);
	tcase_add_test(tc, test_poisson);
	tcase_add_test(tc, test_lag);
	tcase_add_test(tc, test_lag_p95);
	tcase_add_test(tc, test_run);
	tcase_add_test(tc, test_report);
	tcase_add_test(tc, test_opts);
	/* Generous: nothing here waits but test_run's 30 ms of stream, and
	 * the CI host may be loaded. */
	suite_add_tcase(s, tc);
	return s;
}
