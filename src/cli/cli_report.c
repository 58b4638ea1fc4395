/*
 * cli_report.c - sdatalocality report: what staging found for the jobs
 * (the record dl_acct.h keeps in their AdminComment), summed per day,
 * user and partition from sacct's output.
 *
 * sacct runs as
 *   sacct -P -n -X -a -o JobID,User,Partition,Start,AdminComment ARGS...
 * (ARGS: the user's, such as -S 2026-11-01 or -u alice; by default the
 * jobs that ran or ended since midnight, _defaults()), or its output is
 * read from a file (--input FILE, "-" for stdin) in that same form.  The
 * day is the job's start day as sacct prints it.  Jobs without a record
 * are not counted; a malformed record is counted apart and said.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "dl_acct.h"
#include "dl_error.h"

#define SACCT_FIELDS "JobID,User,Partition,Start,AdminComment"

typedef struct group {
	char *day, *user, *part;        /* malloc'd */
	uint64_t jobs;
	dl_acct_t sum;                  /* staged_ms: summed, not the max */
} group_t;

typedef struct report {
	group_t *g;
	size_t n, cap;
	uint64_t jobs, bad;
} report_t;

static void *_xrealloc(void *p, size_t n)
{
	if (!(p = realloc(p, n))) {
		fprintf(stderr, "sdatalocality: out of memory\n");
		exit(1);
	}
	return p;
}

static char *_xstrdup(const char *s)
{
	return strcpy(_xrealloc(NULL, strlen(s) + 1), s);
}

static group_t *_group(report_t *r, const char *day, const char *user,
		       const char *part)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->g[i].day, day) && !strcmp(r->g[i].user, user) &&
		    !strcmp(r->g[i].part, part))
			return &r->g[i];
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 16;
		r->g = _xrealloc(r->g, r->cap * sizeof(*r->g));
	}
	memset(&r->g[r->n], 0, sizeof(*r->g));
	r->g[r->n].day = _xstrdup(day);
	r->g[r->n].user = _xstrdup(user);
	r->g[r->n].part = _xstrdup(part);
	return &r->g[r->n++];
}

/* One line of sacct -P: JobID|User|Partition|Start|AdminComment. */
static void _line(report_t *r, char *line)
{
	char *f[5], *p = line;
	dl_acct_t a;
	uint64_t staged;
	group_t *g;
	int i, rc;

	line[strcspn(line, "\n")] = '\0';
	for (i = 0; i < 5 && p; i++) {
		f[i] = p;
		/* The comment is last: it keeps any '|' of its own. */
		if (i < 4 && (p = strchr(p, '|')))
			*p++ = '\0';
	}
	if (i < 5 || strchr(f[0], '.'))
		return; /* not a job's line, or a step's */
	if ((rc = dl_acct_parse(f[4], &a))) {
		r->bad += rc == DL_EFORMAT;
		return;
	}
	/* "2026-11-28T10:00:00": the day; "Unknown" and the like stay. */
	if (strlen(f[3]) > 10 && f[3][10] == 'T')
		f[3][10] = '\0';
	g = _group(r, f[3], f[1][0] ? f[1] : "-", f[2][0] ? f[2] : "-");
	staged = g->sum.staged_ms + a.staged_ms;
	dl_acct_add(&g->sum, &a);
	g->sum.staged_ms = staged; /* time spent, summed over the jobs */
	g->jobs++;
	r->jobs++;
}

static int _read(report_t *r, FILE *in)
{
	char *line = NULL;
	size_t cap = 0;

	while (getline(&line, &cap, in) > 0)
		_line(r, line);
	free(line);
	return ferror(in) ? -1 : 0;
}

/* Whether args give option opt (short "-s", "-sX"; long "--state[=X]"). */
static int _given(int argc, char **argv, const char *shrt, const char *lng)
{
	size_t n = strlen(lng);

	for (int i = 0; i < argc; i++)
		if (!strncmp(argv[i], shrt, 2) ||
		    (!strncmp(argv[i], lng, n) &&
		     (argv[i][n] == '\0' || argv[i][n] == '=')))
			return 1;
	return 0;
}

/*
 * The job selection added to the user's: without states, sacct -S keeps
 * only jobs with an eligible time, which a job that ended seconds before
 * may still lack in the database ("Eligible: Unknown"); by state, it
 * selects the jobs that ran or ended in the window, whatever their
 * eligible time.
 * Without -S, today from midnight, and without -E, now, as sacct's own
 * defaults without states.
 */
static int _defaults(int argc, char **argv, char **av, char *day,
		     size_t len)
{
	int n = 0, jobs = _given(argc, argv, "-j", "--jobs");
	time_t now = time(NULL);
	struct tm tm;

	if (!jobs && !_given(argc, argv, "-s", "--state")) {
		av[n++] = "-s";
		av[n++] = "R,S,CD,F,TO,CA,NF,OOM,DL,PR,BF,RQ,RS";
	}
	if (!jobs && !_given(argc, argv, "-S", "--starttime") &&
	    localtime_r(&now, &tm) &&
	    strftime(day, len, "%Y-%m-%dT00:00:00", &tm)) {
		av[n++] = "-S";
		av[n++] = day;
	}
	/* With states, sacct's end defaults to the start: now instead. */
	if (!jobs && !_given(argc, argv, "-E", "--endtime")) {
		av[n++] = "-E";
		av[n++] = "now";
	}
	return n;
}

/* Run sacct with args and read its output; \return its exit status. */
static int _sacct(report_t *r, int argc, char **argv)
{
	char **av = _xrealloc(NULL, (size_t)(argc + 14) * sizeof(*av));
	char day[32];
	int fd[2], status = 0, n = 0;
	pid_t pid;
	FILE *in;

	av[n++] = "sacct";
	av[n++] = "-P";
	av[n++] = "-n";
	av[n++] = "-X";
	av[n++] = "-a";
	av[n++] = "-o";
	av[n++] = SACCT_FIELDS;
	n += _defaults(argc, argv, av + n, day, sizeof(day));
	for (int i = 0; i < argc; i++)
		av[n++] = argv[i];
	av[n] = NULL;
	if (pipe(fd) || (pid = fork()) < 0) {
		fprintf(stderr, "sdatalocality: cannot run sacct: %s\n",
			strerror(errno));
		free(av);
		return 1;
	}
	if (!pid) {
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		execvp("sacct", av);
		fprintf(stderr, "sdatalocality: sacct: %s\n", strerror(errno));
		_exit(127);
	}
	close(fd[1]);
	free(av);
	in = fdopen(fd[0], "r");
	if (in) {
		_read(r, in);
		fclose(in);
	} else {
		close(fd[0]);
	}
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

static int _cmp(const void *a, const void *b)
{
	const group_t *x = a, *y = b;
	int c = strcmp(x->day, y->day);

	if (!c)
		c = strcmp(x->user, y->user);
	return c ? c : strcmp(x->part, y->part);
}

static void _pair_json(const char *key, uint64_t files, uint64_t bytes)
{
	printf(", \"%s\": {\"files\": %" PRIu64 ", \"bytes\": %" PRIu64 "}",
	       key, files, bytes);
}

static void _print_json(const report_t *r)
{
	printf("{\"jobs\": %" PRIu64 ", \"malformed\": %" PRIu64
	       ", \"groups\": [", r->jobs, r->bad);
	for (size_t i = 0; i < r->n; i++) {
		const group_t *g = &r->g[i];

		printf("%s{\"day\": ", i ? ", " : "");
		dl_cli_jstr(g->day);
		printf(", \"user\": ");
		dl_cli_jstr(g->user);
		printf(", \"partition\": ");
		dl_cli_jstr(g->part);
		printf(", \"jobs\": %" PRIu64 ", \"files\": %" PRIu64, g->jobs,
		       g->sum.files);
		_pair_json("cached", g->sum.cached, g->sum.cached_bytes);
		_pair_json("peer", g->sum.peer, g->sum.peer_bytes);
		_pair_json("storage", g->sum.storage, g->sum.storage_bytes);
		_pair_json("direct", g->sum.direct, g->sum.direct_bytes);
		printf(", \"staged_s\": %.3f}", (double)g->sum.staged_ms / 1e3);
	}
	printf("]}\n");
}

/* "3/1.5M" into buf. */
static const char *_pair(uint64_t files, uint64_t bytes, char *buf,
			 size_t len)
{
	char h[32];

	dl_cli_bytes(bytes, h, sizeof(h));
	snprintf(buf, len, "%" PRIu64 "/%s", files, h);
	return buf;
}

static void _print_text(const report_t *r)
{
	char c[48], p[48], s[48], d[48];

	printf("%-10s %-10s %-10s %5s %7s %14s %14s %14s %14s %9s\n", "DAY",
	       "USER", "PARTITION", "JOBS", "FILES", "CACHED", "PEER",
	       "STORAGE", "DIRECT", "STAGED_S");
	for (size_t i = 0; i < r->n; i++) {
		const group_t *g = &r->g[i];
		const dl_acct_t *a = &g->sum;

		printf("%-10s %-10s %-10s %5" PRIu64 " %7" PRIu64
		       " %14s %14s %14s %14s %9.1f\n", g->day, g->user,
		       g->part, g->jobs, a->files,
		       _pair(a->cached, a->cached_bytes, c, sizeof(c)),
		       _pair(a->peer, a->peer_bytes, p, sizeof(p)),
		       _pair(a->storage, a->storage_bytes, s, sizeof(s)),
		       _pair(a->direct, a->direct_bytes, d, sizeof(d)),
		       (double)a->staged_ms / 1e3);
	}
	if (r->bad)
		fprintf(stderr, "sdatalocality: %" PRIu64 " jobs with a malformed staging record left out\n",
			r->bad);
}

int dl_cli_report(int argc, char **argv, int json)
{
	report_t r = { 0 };
	int rc = 0;

	if (argc >= 2 && !strcmp(argv[0], "--input")) {
		FILE *in = strcmp(argv[1], "-") ? fopen(argv[1], "r") : stdin;

		if (!in || _read(&r, in)) {
			fprintf(stderr, "sdatalocality: %s: %s\n", argv[1],
				strerror(errno));
			rc = 1;
		}
		if (in && in != stdin)
			fclose(in);
	} else {
		rc = _sacct(&r, argc, argv);
	}
	if (!rc) {
		qsort(r.g, r.n, sizeof(*r.g), _cmp);
		if (json)
			_print_json(&r);
		else
			_print_text(&r);
	}
	for (size_t i = 0; i < r.n; i++) {
		free(r.g[i].day);
		free(r.g[i].user);
		free(r.g[i].part);
	}
	free(r.g);
	return rc;
}
