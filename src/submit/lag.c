/*
 * lag.c - how well a run kept its stream's clock (submit.h).  The verdict
 * is on the span of the arrivals, the figure a benchmark's load rests on:
 * a stream meant to arrive over 36 s that took 50 s offered 28% less load
 * than it claims, however small each single lag was.
 */
#include <stdlib.h>
#include <string.h>

#include "dl_error.h"
#include "submit.h"

static int _cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Nearest-rank percentile q (0..1] of the sorted v[0..n-1]. */
static double _rank(const double *v, size_t n, double q)
{
	size_t k = (size_t)(q * (double)n + 0.999999);

	if (k < 1)
		k = 1;
	if (k > n)
		k = n;
	return v[k - 1];
}

int dl_sub_lag_compute(const double *intended, const double *actual,
		       size_t n, double tolerance_pct, dl_sub_lag_t *out)
{
	double *lag;
	size_t i;

	memset(out, 0, sizeof(*out));
	if (!n || !intended || !actual)
		return DL_EINVAL;
	if (!(lag = malloc(n * sizeof(*lag))))
		return DL_ENOMEM;
	for (i = 0; i < n; i++) {
		lag[i] = actual[i] - intended[i];
		if (lag[i] < 0) /* early by the clock's grain: on time */
			lag[i] = 0;
	}
	qsort(lag, n, sizeof(*lag), _cmp);
	out->n = n;
	out->lag_max = lag[n - 1];
	out->lag_p95 = _rank(lag, n, 0.95);
	free(lag);
	out->intended_span = intended[n - 1] - intended[0];
	out->achieved_span = actual[n - 1] - actual[0];
	if (out->intended_span > 0) {
		out->intended_rate = (double)(n - 1) / out->intended_span;
		out->lag_pct = 100 * (out->achieved_span /
				      out->intended_span - 1);
	}
	if (out->achieved_span > 0)
		out->achieved_rate = (double)(n - 1) / out->achieved_span;
	/* A stream of one instant has no rate to keep. */
	out->valid = !(out->intended_span > 0) ||
		     out->lag_pct <= tolerance_pct;
	return 0;
}
