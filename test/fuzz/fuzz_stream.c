/*
 * fuzz_stream.c - libFuzzer target for dl-submit's stream format
 * (src/submit/stream.c): a stream file, template lines, --time values.
 *
 * Every input is read as a stream (with arrivals) and as templates
 * (without).  Checked for every stream read:
 *   - the jobs are consistent: arrivals finite, >= 0 and not decreasing;
 *     exactly one of a wrapped command (non-empty, no newline, no
 *     trailing blank) and a script path; fields without blanks; nodes
 *     min <= max; line numbers increasing;
 *   - round trip: dl_sub_job_write() of every job parses back to the same
 *     job (arrivals to the writer's microsecond);
 *   - a refused input leaves a one-line message and an empty stream.
 * Every blank-separated word of the input that dl_sub_parse_time()
 * accepts is a positive number of minutes.
 *
 * Build: clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE \
 *	-I src/libdatalocality -I src/submit src/submit/stream.c \
 *	src/libdatalocality/error.c test/fuzz/fuzz_stream.c -o fuzz_stream -lm
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dl_error.h"
#include "fuzz.h"
#include "submit.h"

static void _no_blank(const char *s)
{
	if (s)
		CHECK(*s && !strpbrk(s, " \t\r\n\v\f"));
}

static void _check_job(const dl_sub_job_t *j)
{
	size_t n;

	CHECK(isfinite(j->at) && j->at >= 0);
	CHECK(!j->wrap != !j->script);
	if (j->wrap) {
		n = strlen(j->wrap);
		CHECK(n && !strchr(j->wrap, '\n'));
		CHECK(!strchr(" \t\r\v\f", j->wrap[n - 1]));
	}
	_no_blank(j->script);
	_no_blank(j->name);
	_no_blank(j->comment);
	_no_blank(j->partition);
	_no_blank(j->array);
	_no_blank(j->output);
	_no_blank(j->error);
	_no_blank(j->chdir);
	_no_blank(j->nodelist);
	_no_blank(j->uid);
	_no_blank(j->gid);
	CHECK(j->nodes_min <= j->nodes_max);
	CHECK(!j->nodes_min == !j->nodes_max);
}

static int _str_eq(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static void _same(const dl_sub_job_t *a, const dl_sub_job_t *b)
{
	CHECK(fabs(a->at - b->at) <= 1e-6 + 1e-12 * fabs(a->at));
	CHECK(_str_eq(a->name, b->name) && _str_eq(a->comment, b->comment));
	CHECK(_str_eq(a->partition, b->partition));
	CHECK(_str_eq(a->array, b->array) && _str_eq(a->output, b->output));
	CHECK(_str_eq(a->error, b->error) && _str_eq(a->chdir, b->chdir));
	CHECK(_str_eq(a->nodelist, b->nodelist));
	CHECK(_str_eq(a->uid, b->uid) && _str_eq(a->gid, b->gid));
	CHECK(_str_eq(a->wrap, b->wrap) && _str_eq(a->script, b->script));
	CHECK(a->time_limit == b->time_limit);
	CHECK(a->nodes_min == b->nodes_min && a->nodes_max == b->nodes_max);
	CHECK(a->ntasks == b->ntasks);
	CHECK(a->cpus_per_task == b->cpus_per_task);
	CHECK(a->exclusive == b->exclusive);
}

static void _round_trip(const dl_sub_stream_t *s)
{
	dl_sub_stream_t t;
	char *buf = NULL, err[512];
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);

	CHECK(f);
	for (i = 0; i < s->njobs; i++)
		CHECK(!dl_sub_job_write(f, &s->jobs[i]));
	CHECK(!fclose(f));
	CHECK(!dl_sub_stream_parse(buf, len, 1, &t, err, sizeof(err)));
	CHECK(t.njobs == s->njobs);
	for (i = 0; i < s->njobs; i++)
		_same(&s->jobs[i], &t.jobs[i]);
	dl_sub_stream_clear(&t);
	free(buf);
}

static void _read(const uint8_t *data, size_t size, int with_at)
{
	dl_sub_stream_t s;
	char err[512] = "";
	size_t i;
	int rc = dl_sub_stream_parse((const char *)data, size, with_at, &s,
				     err, sizeof(err));

	if (rc) {
		CHECK(rc == DL_ESYNTAX || rc == DL_ENOMEM);
		CHECK(rc != DL_ESYNTAX || (err[0] && !strchr(err, '\n')));
		CHECK(!s.njobs && !s.jobs);
		return;
	}
	for (i = 0; i < s.njobs; i++) {
		_check_job(&s.jobs[i]);
		if (i) {
			CHECK(s.jobs[i].line > s.jobs[i - 1].line);
			CHECK(!with_at || s.jobs[i].at >= s.jobs[i - 1].at);
		}
	}
	if (with_at)
		_round_trip(&s);
	dl_sub_stream_clear(&s);
}

static void _times(const char *text)
{
	char *copy = strdup(text), *tok, *save = NULL;
	uint32_t m;

	CHECK(copy);
	for (tok = strtok_r(copy, " \t\r\n\v\f=", &save); tok;
	     tok = strtok_r(NULL, " \t\r\n\v\f=", &save))
		if (!dl_sub_parse_time(tok, &m))
			CHECK(m > 0 || !strcmp(tok, "0") || strspn(tok, "0:-") ==
				       strlen(tok));
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text;

	_read(data, size, 1);
	_read(data, size, 0);
	if ((text = fuzz_strdup(data, size))) {
		_times(text);
		free(text);
	}
	return 0;
}
