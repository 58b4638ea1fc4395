/*
 * stream.c - dl-submit's stream format: one job a line, an arrival offset
 * and sbatch-like --key=value fields (submit.h, doc/dl-submit.1).  The
 * format is line-based and blank-separated so that a stream can be written
 * by awk and read back by a person; only the wrapped command, last on its
 * line, may hold blanks.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dl_error.h"
#include "grow.h"
#include "submit.h"

/* Longest line or value taken; a longer one is a syntax error. */
#define SUB_MAX_LINE 65536
#define SUB_MAX_U32 1000000u
/* The longest finite --time, in minutes: 3650 days, the most the D-
 * form takes.  Longer forms (100000:0:0 is 6 million minutes) are
 * refused rather than kept, so that every limit read can be written back
 * in a form that reads again (dl_sub_job_write()). */
#define SUB_MAX_MINUTES (3650u * 1440u)

typedef enum { F_STR, F_TIME, F_NODES, F_U32, F_FLAG } field_kind_t;

typedef struct {
	const char *key;
	field_kind_t kind;
	size_t off;
} field_t;

static const field_t fields[] = {
	{ "job-name", F_STR, offsetof(dl_sub_job_t, name) },
	{ "comment", F_STR, offsetof(dl_sub_job_t, comment) },
	{ "partition", F_STR, offsetof(dl_sub_job_t, partition) },
	{ "array", F_STR, offsetof(dl_sub_job_t, array) },
	{ "output", F_STR, offsetof(dl_sub_job_t, output) },
	{ "error", F_STR, offsetof(dl_sub_job_t, error) },
	{ "chdir", F_STR, offsetof(dl_sub_job_t, chdir) },
	{ "nodelist", F_STR, offsetof(dl_sub_job_t, nodelist) },
	{ "uid", F_STR, offsetof(dl_sub_job_t, uid) },
	{ "gid", F_STR, offsetof(dl_sub_job_t, gid) },
	{ "time", F_TIME, offsetof(dl_sub_job_t, time_limit) },
	{ "nodes", F_NODES, offsetof(dl_sub_job_t, nodes_min) },
	{ "ntasks", F_U32, offsetof(dl_sub_job_t, ntasks) },
	{ "cpus-per-task", F_U32, offsetof(dl_sub_job_t, cpus_per_task) },
	{ "mem", F_U32, offsetof(dl_sub_job_t, mem_mb) },
	{ "exclusive", F_FLAG, offsetof(dl_sub_job_t, exclusive) },
	{ "hold", F_FLAG, offsetof(dl_sub_job_t, hold) },
};
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

static int _fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return DL_ESYNTAX;
}

void dl_sub_job_clear(dl_sub_job_t *job)
{
	size_t i;

	if (!job)
		return;
	for (i = 0; i < NFIELDS; i++)
		if (fields[i].kind == F_STR)
			free(*(char **)((char *)job + fields[i].off));
	free(job->wrap);
	free(job->script);
	memset(job, 0, sizeof(*job));
}

void dl_sub_stream_clear(dl_sub_stream_t *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->njobs; i++)
		dl_sub_job_clear(&s->jobs[i]);
	free(s->jobs);
	memset(s, 0, sizeof(*s));
}

/* An unsigned decimal of at most max, nothing after it. */
static int _u32(const char *s, uint32_t max, uint32_t *v)
{
	unsigned long x;
	char *end;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	x = strtoul(s, &end, 10);
	if (errno || *end || x > max)
		return -1;
	*v = (uint32_t)x;
	return 0;
}

/* Splits "a:b:c" into at most 3 unsigned parts; \return how many, or -1. */
static int _colon_parts(const char *s, uint32_t *p)
{
	char buf[64], *tok, *save = NULL;
	int n = 0;

	if (strlen(s) >= sizeof(buf) || !*s || s[strlen(s) - 1] == ':')
		return -1;
	strcpy(buf, s);
	if (strstr(buf, "::") || buf[0] == ':')
		return -1;
	for (tok = strtok_r(buf, ":", &save); tok;
	     tok = strtok_r(NULL, ":", &save)) {
		if (n == 3 || _u32(tok, SUB_MAX_U32, &p[n]))
			return -1;
		n++;
	}
	return n;
}

int dl_sub_parse_time(const char *s, uint32_t *minutes)
{
	uint32_t d = 0, p[3] = { 0, 0, 0 };
	const char *dash = strchr(s, '-');
	uint64_t secs;
	int n;

	if (!strcasecmp(s, "UNLIMITED") || !strcasecmp(s, "INFINITE")) {
		*minutes = UINT32_MAX; /* Slurm's INFINITE */
		return 0;
	}
	if (dash) {
		char days[16];

		if ((size_t)(dash - s) >= sizeof(days) || dash == s)
			return DL_ESYNTAX;
		memcpy(days, s, (size_t)(dash - s));
		days[dash - s] = '\0';
		if (_u32(days, 3650, &d))
			return DL_ESYNTAX;
	}
	n = _colon_parts(dash ? dash + 1 : s, p);
	if (n < 1)
		return DL_ESYNTAX;
	if (dash) /* D-H, D-H:M, D-H:M:S */
		secs = (uint64_t)d * 86400 + (uint64_t)p[0] * 3600 +
		       (uint64_t)p[1] * 60 + p[2];
	else if (n == 1) /* M */
		secs = (uint64_t)p[0] * 60;
	else if (n == 2) /* M:S */
		secs = (uint64_t)p[0] * 60 + p[1];
	else /* H:M:S */
		secs = (uint64_t)p[0] * 3600 + (uint64_t)p[1] * 60 + p[2];
	if ((secs + 59) / 60 > SUB_MAX_MINUTES)
		return DL_ESYNTAX;
	*minutes = (uint32_t)((secs + 59) / 60);
	return 0;
}

/* "N" or "N-M", N >= 1, M >= N. */
static int _nodes(const char *s, dl_sub_job_t *job)
{
	char buf[32];
	char *dash;

	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	dash = strchr(buf, '-');
	if (dash)
		*dash = '\0';
	if (_u32(buf, SUB_MAX_U32, &job->nodes_min) || !job->nodes_min)
		return -1;
	job->nodes_max = job->nodes_min;
	if (dash && (_u32(dash + 1, SUB_MAX_U32, &job->nodes_max) ||
		     job->nodes_max < job->nodes_min))
		return -1;
	return 0;
}

/* Sets one --key=value (val NULL for a bare --key). */
static int _set(dl_sub_job_t *job, const field_t *f, const char *val,
		char *err, size_t errlen)
{
	void *p = (char *)job + f->off;

	if (f->kind == F_FLAG) {
		if (val)
			return _fail(err, errlen, "--%s takes no value", f->key);
		*(int *)p = 1;
		return 0;
	}
	if (!val || !*val)
		return _fail(err, errlen, "--%s needs a value", f->key);
	switch (f->kind) {
	case F_STR:
		if (*(char **)p)
			return _fail(err, errlen, "--%s given twice", f->key);
		if (!(*(char **)p = strdup(val)))
			return DL_ENOMEM;
		return 0;
	case F_TIME:
		if (dl_sub_parse_time(val, (uint32_t *)p) || !*(uint32_t *)p)
			return _fail(err, errlen, "bad --time '%s'", val);
		return 0;
	case F_NODES:
		if (_nodes(val, job))
			return _fail(err, errlen, "bad --nodes '%s'", val);
		return 0;
	default: /* F_U32 */
		if (_u32(val, SUB_MAX_U32, (uint32_t *)p) || !*(uint32_t *)p)
			return _fail(err, errlen, "bad --%s '%s'", f->key,
				     val);
		return 0;
	}
}

/* One field token tok (blank-free, NUL-ended), not --wrap. */
static int _field(dl_sub_job_t *job, char *tok, char *err, size_t errlen)
{
	char *eq;
	size_t i;

	if (strncmp(tok, "--", 2)) {
		if (job->script)
			return _fail(err, errlen, "a second script '%s'", tok);
		return (job->script = strdup(tok)) ? 0 : DL_ENOMEM;
	}
	if (job->script)
		return _fail(err, errlen, "'%s' after the script path", tok);
	eq = strchr(tok, '=');
	if (eq)
		*eq = '\0';
	for (i = 0; i < NFIELDS; i++)
		if (!strcmp(tok + 2, fields[i].key))
			return _set(job, &fields[i], eq ? eq + 1 : NULL, err,
				    errlen);
	return _fail(err, errlen, "unknown field '%s'", tok);
}

/* The arrival offset at the start of *p; advances *p past it. */
static int _at(const char **p, double *at, char *err, size_t errlen)
{
	char *end;

	errno = 0;
	*at = strtod(*p, &end);
	if (end == *p || errno || !isfinite(*at) || *at < 0 ||
	    (*end && !isblank((unsigned char)*end)))
		return _fail(err, errlen, "no arrival offset (seconds >= 0)");
	*p = end;
	return 0;
}

/* The wrapped command: the rest of the line, trailing blanks cut. */
static int _wrap(dl_sub_job_t *job, const char *cmd, char *err, size_t errlen)
{
	size_t n = strlen(cmd);

	while (n && isspace((unsigned char)cmd[n - 1]))
		n--;
	if (!n)
		return _fail(err, errlen, "--wrap needs a command");
	if (job->script)
		return _fail(err, errlen, "both a script and --wrap");
	if (!(job->wrap = strndup(cmd, n)))
		return DL_ENOMEM;
	return 0;
}

/* The fields of text (after the offset) into job. */
static int _fields(dl_sub_job_t *job, const char *p, char *err, size_t errlen)
{
	char tok[SUB_MAX_LINE];
	size_t n;
	int rc;

	for (;;) {
		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		if (!strncmp(p, "--wrap=", 7))
			return _wrap(job, p + 7, err, errlen);
		n = strcspn(p, " \t\r\n\v\f");
		if (n >= sizeof(tok))
			return _fail(err, errlen, "field too long");
		memcpy(tok, p, n);
		tok[n] = '\0';
		p += n;
		if ((rc = _field(job, tok, err, errlen)))
			return rc;
	}
	if (!job->script)
		return _fail(err, errlen, "no --wrap=COMMAND nor script path");
	return 0;
}

int dl_sub_job_parse(const char *text, int with_at, dl_sub_job_t *job,
		     char *err, size_t errlen)
{
	const char *p = text;
	int rc;

	memset(job, 0, sizeof(*job));
	if (strlen(text) >= SUB_MAX_LINE)
		return _fail(err, errlen, "line too long");
	while (isspace((unsigned char)*p))
		p++;
	if (with_at && (rc = _at(&p, &job->at, err, errlen)))
		return rc;
	if ((rc = _fields(job, p, err, errlen)))
		dl_sub_job_clear(job);
	return rc;
}

/* Parses line number ln (NUL-ended) and appends it to s. */
static int _line(dl_sub_stream_t *s, const char *line, size_t ln,
		 int with_at, char *err, size_t errlen)
{
	dl_sub_job_t job;
	char msg[256];
	const char *p = line;
	int rc;

	while (isspace((unsigned char)*p))
		p++;
	if (!*p || *p == '#')
		return 0;
	if ((rc = dl_sub_job_parse(p, with_at, &job, msg, sizeof(msg))))
		return rc == DL_ESYNTAX ? _fail(err, errlen, "line %zu: %s",
						 ln, msg)
					: rc;
	job.line = ln;
	if (s->njobs && job.at < s->jobs[s->njobs - 1].at) {
		rc = _fail(err, errlen,
			   "line %zu: arrival %.3f before the previous %.3f",
			   ln, job.at, s->jobs[s->njobs - 1].at);
		dl_sub_job_clear(&job);
		return rc;
	}
	if ((rc = dl__grow((void **)&s->jobs, s->njobs, 1, &s->cap,
			   sizeof(*s->jobs), 64))) {
		dl_sub_job_clear(&job);
		return rc;
	}
	s->jobs[s->njobs++] = job;
	return 0;
}

int dl_sub_stream_parse(const char *buf, size_t len, int with_at,
			dl_sub_stream_t *s, char *err, size_t errlen)
{
	const char *p = buf, *end = buf + len, *nl;
	char *line;
	size_t ln = 0, n;
	int rc = 0;

	memset(s, 0, sizeof(*s));
	while (p < end && !rc) {
		nl = memchr(p, '\n', (size_t)(end - p));
		n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		ln++;
		if (memchr(p, '\0', n))
			rc = _fail(err, errlen, "line %zu: a NUL byte", ln);
		else if (!(line = strndup(p, n)))
			rc = DL_ENOMEM;
		else {
			rc = _line(s, line, ln, with_at, err, errlen);
			free(line);
		}
		p += n + 1;
	}
	if (rc)
		dl_sub_stream_clear(s);
	return rc;
}

int dl_sub_stream_read(const char *path, int with_at, dl_sub_stream_t *s,
		       char *err, size_t errlen)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "re") : stdin;
	char *buf = NULL;
	size_t len = 0;
	FILE *mem;
	int rc, c;

	memset(s, 0, sizeof(*s));
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return DL_EIO;
	}
	if (!(mem = open_memstream(&buf, &len))) {
		rc = DL_ENOMEM;
	} else {
		while ((c = getc(f)) != EOF)
			putc(c, mem);
		rc = ferror(f) ? DL_EIO : 0;
		if (fclose(mem))
			rc = DL_ENOMEM;
	}
	if (rc == DL_EIO)
		snprintf(err, errlen, "%s: read error", path);
	if (f != stdin)
		fclose(f);
	if (!rc)
		rc = dl_sub_stream_parse(buf, len, with_at, s, err, errlen);
	free(buf);
	return rc;
}

int dl_sub_job_write(FILE *f, const dl_sub_job_t *job)
{
	size_t i;

	fprintf(f, "%.6f", job->at);
	for (i = 0; i < NFIELDS; i++) {
		const void *p = (const char *)job + fields[i].off;

		if (fields[i].kind == F_STR && *(char *const *)p)
			fprintf(f, " --%s=%s", fields[i].key,
				*(char *const *)p);
	}
	if (job->time_limit == UINT32_MAX)
		fprintf(f, " --time=UNLIMITED");
	else if (job->time_limit > SUB_MAX_U32) /* M takes at most that */
		fprintf(f, " --time=%u-%u:%u:0", job->time_limit / 1440,
			job->time_limit % 1440 / 60, job->time_limit % 60);
	else if (job->time_limit)
		fprintf(f, " --time=%u", job->time_limit);
	if (job->nodes_min)
		fprintf(f, " --nodes=%u-%u", job->nodes_min, job->nodes_max);
	if (job->ntasks)
		fprintf(f, " --ntasks=%u", job->ntasks);
	if (job->cpus_per_task)
		fprintf(f, " --cpus-per-task=%u", job->cpus_per_task);
	if (job->mem_mb)
		fprintf(f, " --mem=%u", job->mem_mb);
	if (job->exclusive)
		fprintf(f, " --exclusive");
	if (job->hold)
		fprintf(f, " --hold");
	if (job->wrap)
		fprintf(f, " --wrap=%s\n", job->wrap);
	else
		fprintf(f, " %s\n", job->script);
	return ferror(f) ? DL_EIO : 0;
}
