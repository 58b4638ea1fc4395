/*
 * submit.h - private to dl-submit, which submits a job stream from one
 * process at the stream's arrival times through Slurm's C API (issue 29:
 * one sbatch process per job cannot keep a Poisson clock on a busy host).
 *
 *   dl-submit.c  options and wiring only
 *   stream.c     the stream format: one job a line, its arrival offset and
 *                sbatch-like --key=value fields (doc/dl-submit.1)
 *   poisson.c    a generated stream: Poisson arrivals of a rate, from a
 *                seed, over template lines
 *   lag.c        how well the arrivals were kept: rates, lags, verdict
 *   run.c        the clock: sleep until each job's time, submit, record
 *   opts.c       the command line
 *   report.c     what a run prints: job ids, records, the summary and
 *                its verdict (the exit status)
 *   slurm.c      the one module that includes Slurm's header: a job as a
 *                job_desc_msg_t, slurm_submit_batch_job()
 *
 * All but slurm.c and dl-submit.c need no Slurm and are unit tested
 * (test/unit/check_submit.c).  Errors follow dl_error.h: 0 or a negative
 * DL_E* code; a parser also writes a one-line message into the caller's
 * buffer.  Strings of a job are malloc()ed and owned by the job
 * (dl_sub_job_clear() frees them); a stream owns its jobs.
 */
#ifndef DL_SUBMIT_H
#define DL_SUBMIT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One job of a stream. */
typedef struct dl_sub_job {
	double at;           /* arrival, seconds after the stream's start */
	size_t line;         /* line of the stream file (0: generated) */
	char *name;          /* --job-name (NULL: "wrap" or the script's) */
	char *comment;       /* --comment, e.g. files:/a,/b */
	char *partition;     /* --partition */
	char *array;         /* --array, e.g. 0-9%2 */
	char *output;        /* --output */
	char *error;         /* --error */
	char *chdir;         /* --chdir (NULL: dl-submit's directory) */
	char *nodelist;      /* --nodelist */
	char *uid;           /* --uid, a name or a number (root only) */
	char *gid;           /* --gid, likewise */
	char *wrap;          /* --wrap: a command run by /bin/sh, or */
	char *script;        /* the path of a batch script */
	uint32_t time_limit; /* --time in minutes (0: the partition's) */
	uint32_t nodes_min;  /* --nodes N or N-M (0: unset) */
	uint32_t nodes_max;
	uint32_t ntasks;        /* --ntasks (0: unset) */
	uint32_t cpus_per_task; /* --cpus-per-task (0: unset) */
	uint32_t mem_mb;        /* --mem in MB per node (0: unset) */
	int exclusive;          /* --exclusive */
	int hold;               /* --hold: submitted held (priority 0) */
} dl_sub_job_t;

typedef struct dl_sub_stream {
	dl_sub_job_t *jobs; /* sorted by at, as read or generated */
	size_t njobs;
	size_t cap;
} dl_sub_stream_t;

/* ---- stream.c ---------------------------------------------------------- */

/* Free the job's strings and zero it. */
void dl_sub_job_clear(dl_sub_job_t *job);

/* Free the stream's jobs and zero it (not the stream itself). */
void dl_sub_stream_clear(dl_sub_stream_t *s);

/*
 * Parse one job from text (one line, no newline): with with_at, an
 * arrival offset first (seconds, finite, >= 0), then fields
 *   --job-name=S --comment=S --partition=S --array=S --output=S
 *   --error=S --chdir=S --nodelist=S --uid=S --gid=S --time=T
 *   --nodes=N[-M] --ntasks=N --cpus-per-task=N --exclusive --hold
 * and last either --wrap=COMMAND (the rest of the line) or a script path.
 * Values have no blanks (but the wrapped command).  \return 0 (*job
 * filled; clear it with dl_sub_job_clear()), DL_ESYNTAX (message in err),
 * DL_ENOMEM; *job is left zeroed on error.
 */
int dl_sub_job_parse(const char *text, int with_at, dl_sub_job_t *job,
		     char *err, size_t errlen);

/*
 * Parse a stream: one job a line (as dl_sub_job_parse() with with_at; a
 * file of templates has no arrivals); blank lines and lines whose first
 * non-blank is '#' are skipped; arrivals must not decrease.  buf need not
 * end with a newline; a NUL before len is an error.  \return 0 (*s
 * filled, clear with dl_sub_stream_clear()), DL_ESYNTAX (err names the
 * line), DL_ENOMEM; *s zeroed on error.
 */
int dl_sub_stream_parse(const char *buf, size_t len, int with_at,
			dl_sub_stream_t *s, char *err, size_t errlen);

/* Read and parse a whole file ("-": stdin); as dl_sub_stream_parse(), and
 * DL_EIO if it cannot be read. */
int dl_sub_stream_read(const char *path, int with_at, dl_sub_stream_t *s,
		       char *err, size_t errlen);

/* Write the job as a stream line (with its arrival) that parses back to
 * the same job.  \return 0 or DL_EIO. */
int dl_sub_job_write(FILE *f, const dl_sub_job_t *job);

/* Slurm's --time forms (minutes, M:S, H:M:S, D-H, D-H:M, D-H:M:S,
 * UNLIMITED) as minutes, seconds rounded up.  \return 0 or DL_ESYNTAX. */
int dl_sub_parse_time(const char *s, uint32_t *minutes);

/* ---- poisson.c --------------------------------------------------------- */

/*
 * A stream of njobs jobs arriving as a Poisson process of rate jobs/s
 * (exponential gaps from a PRNG seeded with seed; the first at 0): job i
 * is a copy of templ[i % ntempl] with every "%i" in its strings replaced
 * by i.  \return 0 (*s filled), DL_EINVAL (rate not > 0, no template,
 * njobs 0), DL_ENOMEM; *s zeroed on error.
 */
int dl_sub_poisson(const dl_sub_job_t *templ, size_t ntempl, double rate,
		   size_t njobs, uint64_t seed, dl_sub_stream_t *s);

/* ---- lag.c ------------------------------------------------------------- */

typedef struct dl_sub_lag {
	size_t n;               /* submissions */
	double intended_span;   /* last intended - first intended (s) */
	double achieved_span;   /* last actual - first actual (s) */
	double intended_rate;   /* (n - 1) / intended_span, 0 if no span */
	double achieved_rate;   /* (n - 1) / achieved_span, 0 if no span */
	double lag_max;         /* max(actual - intended), at least 0 */
	double lag_p95;         /* nearest rank */
	double lag_pct;         /* 100 (achieved / intended span - 1) */
	int valid;              /* lag_pct <= tolerance, or no span */
} dl_sub_lag_t;

/*
 * The statistics of n submissions whose intended and actual times (s, on
 * one clock) are given; tolerance_pct is the lag of the span still valid
 * (10).  \return 0, DL_EINVAL (n 0), DL_ENOMEM.
 */
int dl_sub_lag_compute(const double *intended, const double *actual,
		       size_t n, double tolerance_pct, dl_sub_lag_t *out);

/* ---- run.c ------------------------------------------------------------- */

/*
 * Submit one job; \return 0 and *job_id, or non-zero with a message in
 * err.  The Slurm one is dl_sub_slurm_submit().
 */
typedef int (*dl_sub_submit_fn)(const dl_sub_job_t *job, void *arg,
				uint32_t *job_id, char *err, size_t errlen);

/* What happened to one job. */
typedef struct dl_sub_record {
	uint32_t job_id;   /* 0: its submission failed */
	double intended;   /* epoch seconds it was meant to be submitted */
	double actual;     /* epoch seconds the submission began */
	double call;       /* seconds the submission took */
} dl_sub_record_t;

/*
 * Submit every job of s through fn: at its arrival after the start (on
 * the monotonic clock), or at once one after another with burst.  Writes
 * one record per job into rec (n = s->njobs); a failed submission is
 * reported on stderr and the run goes on.  \return the number of failed
 * submissions.
 */
size_t dl_sub_run(const dl_sub_stream_t *s, int burst, dl_sub_submit_fn fn,
		  void *arg, dl_sub_record_t *rec);

/* ---- opts.c ------------------------------------------------------------ */

/* Exit statuses of dl-submit. */
#define DL_SUB_EXIT_OK 0        /* every job submitted, arrivals valid */
#define DL_SUB_EXIT_FAILED 1    /* a submission failed */
#define DL_SUB_EXIT_USAGE 2     /* bad options or stream */
#define DL_SUB_EXIT_NOT_VALID 3 /* arrivals lagged beyond the tolerance */

typedef struct dl_sub_opts {
	const char *stream;   /* stream file, "-" stdin; NULL: generate */
	double rate;          /* --rate jobs/s (generate) */
	size_t njobs;         /* --jobs (generate) */
	uint64_t seed;        /* --seed (1) */
	dl_sub_stream_t templ; /* --template lines and --template-file */
	int burst;            /* --burst: as fast as possible */
	int dry_run;          /* --dry-run: print the stream, submit nothing */
	const char *ids;      /* --ids FILE (NULL: stdout) */
	const char *record;   /* --record FILE */
	double tolerance;     /* --tolerance percent (10) */
	int help;             /* --help */
} dl_sub_opts_t;

/*
 * The command line into *o (templ owned by *o: dl_sub_opts_clear()).
 * \return 0, or DL_EINVAL with a message in err (usage errors, a bad
 * template, a stream file together with --rate, ...).
 */
int dl_sub_opts_parse(int argc, char **argv, dl_sub_opts_t *o, char *err,
		      size_t errlen);
void dl_sub_opts_clear(dl_sub_opts_t *o);
/* The usage text. */
void dl_sub_usage(FILE *f);

/* ---- report.c ---------------------------------------------------------- */

/* The ids of the jobs submitted, one a line, into path (NULL: stdout).
 * \return 0 or DL_EIO (a message on stderr). */
int dl_sub_write_ids(const char *path, const dl_sub_record_t *rec, size_t n);

/* One line per job "INDEX JOBID INTENDED ACTUAL CALL" (JOBID - if it
 * failed; epoch seconds; the call's seconds) after a # header.  \return 0
 * or DL_EIO (a message on stderr). */
int dl_sub_write_records(const char *path, const dl_sub_record_t *rec,
			 size_t n);

/*
 * The summary on f: jobs submitted and failed; for a stream the intended
 * and achieved arrival rates and spans, the max and p95 lag, the calls'
 * mean and max, and "VALID" or "NOT VALID (arrivals lagged by X%)"; for a
 * burst the submissions per second.  \return the exit status
 * (DL_SUB_EXIT_*).
 */
int dl_sub_report(FILE *f, const dl_sub_record_t *rec, size_t n,
		  size_t failed, int burst, double tolerance_pct);

/* ---- slurm.c (built only with Slurm) ----------------------------------- */

/* slurm_init() with the SLURM_CONF of the environment. */
void dl_sub_slurm_init(void);
void dl_sub_slurm_fini(void);

/* A dl_sub_submit_fn: the job as sbatch would describe it, submitted with
 * slurm_submit_batch_job(); arg unused.  Retries as sbatch does while
 * slurmctld answers EAGAIN. */
int dl_sub_slurm_submit(const dl_sub_job_t *job, void *arg, uint32_t *job_id,
			char *err, size_t errlen);

#endif /* DL_SUBMIT_H */
