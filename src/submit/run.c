/*
 * run.c - dl-submit's clock (submit.h): sleep until each job's arrival,
 * submit it, write down when.  Sleeps are absolute on the monotonic clock
 * so that a late submission does not push the later ones back: the stream
 * catches up by itself when the controller answers faster again.  Times
 * are recorded on the same clock, shifted to the epoch once at the start,
 * so that a step of the wall clock neither shows as lag nor hides it.
 */
#include <errno.h>
#include <stdio.h>
#include <time.h>

#include "submit.h"

static double _mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double _epoch(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Sleep until the monotonic time t (seconds). */
static void _sleep_until(double t)
{
	struct timespec ts;

	if (t <= _mono())
		return;
	ts.tv_sec = (time_t)t;
	ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
	if (ts.tv_nsec >= 1000000000L)
		ts.tv_nsec = 999999999L;
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		;
}

size_t dl_sub_run(const dl_sub_stream_t *s, int burst, dl_sub_submit_fn fn,
		  void *arg, dl_sub_record_t *rec)
{
	double t0 = _mono(), e0 = _epoch(), start, due;
	char err[512];
	size_t i, failed = 0;

	for (i = 0; i < s->njobs; i++) {
		const dl_sub_job_t *job = &s->jobs[i];

		due = t0 + (burst ? 0 : job->at);
		_sleep_until(due);
		start = _mono();
		err[0] = '\0';
		rec[i].job_id = 0;
		if (fn(job, arg, &rec[i].job_id, err, sizeof(err))) {
			fprintf(stderr, "dl-submit: job %zu (line %zu): %s\n",
				i, job->line, err[0] ? err : "failed");
			rec[i].job_id = 0;
			failed++;
		}
		rec[i].intended = e0 + (due - t0);
		rec[i].actual = e0 + (start - t0);
		rec[i].call = _mono() - start;
	}
	return failed;
}
