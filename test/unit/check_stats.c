/*
 * check_stats.c - the statistics of repeated runs (src/sim/stats.c) on
 * cases computed by hand (t quantiles from the tables of Student's t).
 */
#include <math.h>

#include "check_suites.h"
#include "dl_error.h"
#include "stats.h"

START_TEST(test_summary)
{
	/* Mean 5, squared deviations 32: sd sqrt(32/7) = 2.138090; the
	 * 95% half-width t(.975, 7) = 2.364624 times sd / sqrt(8). */
	static const double x[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	dl_stats_summary_t s;

	ck_assert_int_eq(dl_stats_summarize(x, 8, 0.95, &s), 0);
	ck_assert_uint_eq(s.n, 8);
	ck_assert_double_eq_tol(s.mean, 5.0, 1e-12);
	ck_assert_double_eq_tol(s.sd, 2.138090, 1e-6);
	ck_assert_double_eq_tol(s.half, 1.787488, 1e-5);
	/* One value: no spread, no interval. */
	ck_assert_int_eq(dl_stats_summarize(x + 7, 1, 0.95, &s), 0);
	ck_assert_double_eq(s.mean, 9);
	ck_assert_double_eq(s.sd, 0);
	ck_assert_double_eq(s.half, 0);
}

END_TEST

START_TEST(test_t_quantile)
{
	ck_assert_double_eq_tol(dl_stats_t_quantile(0.975, 1), 12.706205,
				1e-5);
	ck_assert_double_eq_tol(dl_stats_t_quantile(0.975, 4), 2.776445,
				1e-5);
	ck_assert_double_eq_tol(dl_stats_t_quantile(0.975, 7), 2.364624,
				1e-5);
	ck_assert_double_eq_tol(dl_stats_t_quantile(0.5, 3), 0, 1e-12);
	ck_assert_double_eq_tol(dl_stats_t_quantile(0.025, 4), -2.776445,
				1e-5);
	ck_assert(isnan(dl_stats_t_quantile(1, 4)));
	ck_assert(isnan(dl_stats_t_quantile(0.5, 0)));
}

END_TEST

START_TEST(test_welch)
{
	/* Means 3 and 6, variances of the means 0.5 and 2: t = -3 /
	 * sqrt(2.5) = -1.897367, df = 2.5^2 / (0.5^2/4 + 2^2/4) =
	 * 5.882353, two-sided p = 0.107531 (by numerical integration of
	 * the t density). */
	static const double a[] = { 1, 2, 3, 4, 5 };
	static const double b[] = { 2, 4, 6, 8, 10 };
	/* Means 12 and 20, variances of the means 0.5 each: t = -8,
	 * df = 8, p = 4.3668e-5. */
	static const double c[] = { 10, 12, 11, 13, 14 };
	static const double d[] = { 20, 21, 19, 22, 18 };
	static const double k3[] = { 3, 3, 3 }, k4[] = { 4, 4 };
	dl_stats_welch_t w;

	ck_assert_int_eq(dl_stats_welch(a, 5, b, 5, &w), 0);
	ck_assert_double_eq_tol(w.diff, -3, 1e-12);
	ck_assert_double_eq_tol(w.t, -1.897367, 1e-6);
	ck_assert_double_eq_tol(w.df, 5.882353, 1e-6);
	ck_assert_double_eq_tol(w.p, 0.107531, 1e-5);
	ck_assert_int_eq(dl_stats_welch(c, 5, d, 5, &w), 0);
	ck_assert_double_eq_tol(w.t, -8, 1e-12);
	ck_assert_double_eq_tol(w.df, 8, 1e-9);
	ck_assert_double_eq_tol(w.p, 4.3668e-5, 1e-8);
	/* Symmetric. */
	ck_assert_int_eq(dl_stats_welch(d, 5, c, 5, &w), 0);
	ck_assert_double_eq_tol(w.t, 8, 1e-12);
	ck_assert_double_eq_tol(w.p, 4.3668e-5, 1e-8);
	/* Without spread: certain either way. */
	ck_assert_int_eq(dl_stats_welch(k3, 3, k4, 2, &w), 0);
	ck_assert_double_eq(w.p, 0);
	ck_assert_int_eq(dl_stats_welch(k3, 3, k3, 2, &w), 0);
	ck_assert_double_eq(w.p, 1);
}

END_TEST

START_TEST(test_refused)
{
	static const double x[] = { 1, 2, NAN };
	dl_stats_summary_t s = { .n = 42 };
	dl_stats_welch_t w = { .p = 42 };

	ck_assert_int_eq(dl_stats_summarize(x, 0, 0.95, &s), DL_EINVAL);
	ck_assert_int_eq(dl_stats_summarize(x, 2, 1.0, &s), DL_EINVAL);
	ck_assert_int_eq(dl_stats_summarize(x, 3, 0.95, &s), DL_EINVAL);
	ck_assert_uint_eq(s.n, 42); /* unchanged */
	ck_assert_int_eq(dl_stats_welch(x, 1, x, 2, &w), DL_EINVAL);
	ck_assert_int_eq(dl_stats_welch(x, 2, x, 3, &w), DL_EINVAL);
	ck_assert_double_eq(w.p, 42);
}

END_TEST

Suite *make_stats_suite(void)
{
	Suite *s = suite_create("stats");
	TCase *tc = tcase_create("stats");

	tcase_add_test(tc, test_summary);
	tcase_add_test(tc, test_t_quantile);
	tcase_add_test(tc, test_welch);
	tcase_add_test(tc, test_refused);
	suite_add_tcase(s, tc);
	return s;
}
