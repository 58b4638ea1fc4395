/*
 * report.c - what dl-submit prints after a run (submit.h): the ids for
 * scripts that wait on the jobs, one record per job for benchmarks that
 * join them with the jobs' own clocks, and a summary whose verdict is
 * also the exit status, so that no script can miss a lagging run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dl_error.h"
#include "submit.h"

/* f opened on path, or stdout for NULL or "-". */
static FILE *_open(const char *path)
{
	FILE *f;

	if (!path || !strcmp(path, "-"))
		return stdout;
	if (!(f = fopen(path, "we")))
		fprintf(stderr, "dl-submit: %s: %s\n", path, strerror(errno));
	return f;
}

static int _close(FILE *f, const char *path)
{
	int bad = ferror(f);

	bad |= (f == stdout) ? fflush(f) : fclose(f);
	if (bad) {
		fprintf(stderr, "dl-submit: %s: write error\n",
			path ? path : "stdout");
		return DL_EIO;
	}
	return 0;
}

int dl_sub_write_ids(const char *path, const dl_sub_record_t *rec, size_t n)
{
	FILE *f = _open(path);
	size_t i;

	if (!f)
		return DL_EIO;
	for (i = 0; i < n; i++)
		if (rec[i].job_id)
			fprintf(f, "%u\n", rec[i].job_id);
	return _close(f, path);
}

int dl_sub_write_records(const char *path, const dl_sub_record_t *rec,
			 size_t n)
{
	FILE *f = _open(path);
	size_t i;

	if (!f)
		return DL_EIO;
	fprintf(f, "# index jobid intended actual call (epoch s, s)\n");
	for (i = 0; i < n; i++) {
		fprintf(f, "%zu ", i);
		if (rec[i].job_id)
			fprintf(f, "%u", rec[i].job_id);
		else
			fputc('-', f);
		fprintf(f, " %.6f %.6f %.6f\n", rec[i].intended,
			rec[i].actual, rec[i].call);
	}
	return _close(f, path);
}

/* The calls' mean and max (s). */
static void _calls(const dl_sub_record_t *rec, size_t n, double *mean,
		   double *max)
{
	double sum = 0;
	size_t i;

	*max = 0;
	for (i = 0; i < n; i++) {
		sum += rec[i].call;
		if (rec[i].call > *max)
			*max = rec[i].call;
	}
	*mean = n ? sum / (double)n : 0;
}

/* The stream's rates, lags and verdict; \return the exit status. */
static int _stream(FILE *f, const dl_sub_record_t *rec, size_t n,
		   double tolerance_pct)
{
	double *in = malloc(n * sizeof(*in)), *ac = malloc(n * sizeof(*ac));
	dl_sub_lag_t l;
	size_t i;
	int rc;

	for (i = 0; in && ac && i < n; i++) {
		in[i] = rec[i].intended;
		ac[i] = rec[i].actual;
	}
	rc = (in && ac) ? dl_sub_lag_compute(in, ac, n, tolerance_pct, &l)
			: DL_ENOMEM;
	free(in);
	free(ac);
	if (rc) {
		fprintf(f, "dl-submit: no statistics: %s\n", dl_strerror(rc));
		return DL_SUB_EXIT_FAILED;
	}
	fprintf(f, "dl-submit: arrival rate intended %.3f jobs/s over %.2f s,"
		   " achieved %.3f jobs/s over %.2f s\n",
		l.intended_rate, l.intended_span, l.achieved_rate,
		l.achieved_span);
	fprintf(f, "dl-submit: lag max %.3f s, p95 %.3f s\n", l.lag_max,
		l.lag_p95);
	if (l.valid) {
		fprintf(f, "VALID\n");
		return DL_SUB_EXIT_OK;
	}
	fprintf(f, "NOT VALID (arrivals lagged by %.1f%%)\n", l.lag_pct);
	return DL_SUB_EXIT_NOT_VALID;
}

int dl_sub_report(FILE *f, const dl_sub_record_t *rec, size_t n,
		  size_t failed, int burst, double tolerance_pct)
{
	double mean, max, span;
	int rc;

	_calls(rec, n, &mean, &max);
	fprintf(f, "dl-submit: %zu jobs submitted, %zu failed; each call "
		   "mean %.4f s, max %.4f s\n",
		n - failed, failed, mean, max);
	if (!n)
		return failed ? DL_SUB_EXIT_FAILED : DL_SUB_EXIT_OK;
	if (burst) {
		span = rec[n - 1].actual + rec[n - 1].call - rec[0].actual;
		fprintf(f, "dl-submit: burst: %zu submissions in %.2f s, "
			   "%.1f submissions/s\n",
			n, span, span > 0 ? (double)n / span : 0.0);
		rc = DL_SUB_EXIT_OK;
	} else {
		rc = _stream(f, rec, n, tolerance_pct);
	}
	return failed ? DL_SUB_EXIT_FAILED : rc;
}
