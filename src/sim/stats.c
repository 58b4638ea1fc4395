/* stats.c - statistics of repeated runs; see stats.h. */
#include <math.h>

#include <gsl/gsl_cdf.h>

#include "dl_error.h"
#include "stats.h"

/* Mean and sum of squared deviations, in two passes (stable enough for
 * the few values of a point). \return DL_EINVAL if a value is not finite. */
static int _moments(const double *x, size_t n, double *mean, double *ss)
{
	double s = 0, d;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!isfinite(x[i]))
			return DL_EINVAL;
		s += x[i];
	}
	*mean = s / (double) n;
	for (s = 0, i = 0; i < n; i++) {
		d = x[i] - *mean;
		s += d * d;
	}
	*ss = s;
	return 0;
}

double dl_stats_t_quantile(double p, double df)
{
	if (!(df > 0) || !(p > 0 && p < 1))
		return NAN;
	return gsl_cdf_tdist_Pinv(p, df);
}

int dl_stats_summarize(const double *x, size_t n, double level,
		       dl_stats_summary_t *out)
{
	dl_stats_summary_t r = { 0 };
	double ss;

	if (!x || !n || !out || !(level > 0 && level < 1))
		return DL_EINVAL;
	if (_moments(x, n, &r.mean, &ss))
		return DL_EINVAL;
	r.n = n;
	if (n > 1) {
		r.sd = sqrt(ss / (double) (n - 1));
		r.half = dl_stats_t_quantile(1 - (1 - level) / 2,
					     (double) (n - 1)) *
			 r.sd / sqrt((double) n);
	}
	*out = r;
	return 0;
}

int dl_stats_welch(const double *a, size_t na, const double *b, size_t nb,
		   dl_stats_welch_t *out)
{
	dl_stats_welch_t r = { 0 };
	double ma, mb, ssa, ssb, va, vb, se2;

	if (!a || !b || !out || na < 2 || nb < 2 ||
	    _moments(a, na, &ma, &ssa) || _moments(b, nb, &mb, &ssb))
		return DL_EINVAL;
	va = ssa / (double) (na - 1) / (double) na;
	vb = ssb / (double) (nb - 1) / (double) nb;
	se2 = va + vb;
	r.diff = ma - mb;
	if (se2 <= 0) {
		/* Deterministic samples: equal or not, without doubt. */
		r.t = r.diff == 0 ? 0 : copysign(INFINITY, r.diff);
		r.df = (double) (na + nb - 2);
		r.p = r.diff == 0 ? 1 : 0;
		*out = r;
		return 0;
	}
	r.t = r.diff / sqrt(se2);
	/* Welch-Satterthwaite. */
	r.df = se2 * se2 /
	       (va * va / (double) (na - 1) + vb * vb / (double) (nb - 1));
	r.p = 2 * gsl_cdf_tdist_Q(fabs(r.t), r.df);
	if (r.p > 1)
		r.p = 1;
	*out = r;
	return 0;
}
