/*
 * stats.h - the statistics of repeated runs: mean, sample standard
 * deviation, the Student-t confidence interval of the mean, and Welch's
 * t-test of two means with unequal variances.  contrib/experiments.sh
 * uses them (through dl-simstat) to put confidence intervals in the
 * tables and to call a difference significant or not.
 *
 * Errors follow dl_error.h: 0 or a negative DL_E* code; a failed call
 * leaves its output unchanged.
 */
#ifndef DL_SIM_STATS_H
#define DL_SIM_STATS_H

#include <stddef.h>

/* A sample and the confidence interval of its mean. */
typedef struct dl_stats_summary {
	size_t n;
	double mean;
	double sd;   /* sample standard deviation (n - 1); 0 when n < 2 */
	double half; /* half-width of the interval: t(1-(1-level)/2, n-1) *
		      * sd / sqrt(n); 0 when n < 2 */
} dl_stats_summary_t;

/* Welch's test of mean(a) = mean(b). */
typedef struct dl_stats_welch {
	double diff; /* mean(a) - mean(b) */
	double t;    /* diff / sqrt(va/na + vb/nb) */
	double df;   /* Welch-Satterthwaite degrees of freedom */
	double p;    /* two-sided p-value */
} dl_stats_welch_t;

/**
 * dl_stats_summarize - mean, sd and the level (e.g. 0.95) confidence
 * interval of the mean of x[0..n-1].
 * \return 0, DL_EINVAL (n == 0, level outside (0, 1), a value not finite).
 */
int dl_stats_summarize(const double *x, size_t n, double level,
		       dl_stats_summary_t *out);

/**
 * dl_stats_t_quantile - the p-quantile of Student's t with df degrees of
 * freedom (df > 0, 0 < p < 1); NAN otherwise.
 */
double dl_stats_t_quantile(double p, double df);

/**
 * dl_stats_welch - Welch's two-sample t-test.  Two samples without any
 * variance are equal (p = 1) when their means are, and different (p = 0)
 * when they are not.
 * \return 0, DL_EINVAL (a sample of fewer than 2 values, a value not
 *         finite).
 */
int dl_stats_welch(const double *a, size_t na, const double *b, size_t nb,
		   dl_stats_welch_t *out);

#endif /* DL_SIM_STATS_H */
