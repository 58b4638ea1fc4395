/* check_zoo.c - the robustness zoo's generators (zoo.h). */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check_suites.h"
#include "dl_error.h"
#include "zoo.h"

static void _pf(dl_wl_platform_t *pf, uint32_t nodes, uint32_t cores)
{
	pf->nodes = nodes;
	pf->slots = nodes * cores;
	dl_params_default(&pf->params);
	pf->params.nstorage = 4;
}

static dl_workload_t *_gen(dl_zoo_class_t c, size_t jobs, uint64_t seed)
{
	dl_zoo_opts_t o;
	dl_wl_platform_t pf;

	_pf(&pf, 16, 2);
	dl_zoo_opts_default(&o, c);
	o.jobs = jobs;
	return dl_zoo_gen(&o, &pf, seed);
}

/* Whether two workloads are the same job for job, file for file. */
static int _same(const dl_workload_t *a, const dl_workload_t *b)
{
	size_t i;

	if (a->njobs != b->njobs || a->nfiles != b->nfiles)
		return 0;
	for (i = 0; i < a->nfiles; i++)
		if (a->files[i].size != b->files[i].size ||
		    strcmp(a->files[i].path, b->files[i].path))
			return 0;
	for (i = 0; i < a->njobs; i++) {
		const dl_wl_job_t *x = &a->jobs[i], *y = &b->jobs[i];

		if (x->id != y->id || x->arrival != y->arrival ||
		    x->cpus != y->cpus || x->nfiles != y->nfiles ||
		    memcmp(x->files, y->files, x->nfiles * sizeof(*x->files)))
			return 0;
	}
	return 1;
}

START_TEST(test_deterministic)
{
	dl_zoo_class_t c = (dl_zoo_class_t)_i;
	dl_workload_t *a = _gen(c, 300, 7), *b = _gen(c, 300, 7),
		      *d = _gen(c, 300, 8);
	size_t i;

	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_ptr_nonnull(d);
	ck_assert_str_eq(a->name, dl_zoo_class_name(c));
	ck_assert_uint_eq(a->njobs, 300);
	ck_assert(_same(a, b));
	ck_assert(!_same(a, d));
	/* Arrivals sorted, from 0, ids 1..n, every job reads something. */
	ck_assert_double_eq(a->jobs[0].arrival, 0);
	for (i = 0; i < a->njobs; i++) {
		ck_assert_uint_eq(a->jobs[i].id, i + 1);
		ck_assert_uint_gt(a->jobs[i].nfiles, 0);
		ck_assert_double_lt(a->jobs[i].compute, 0);
		if (i)
			ck_assert(a->jobs[i].arrival >= a->jobs[i - 1].arrival);
	}
	dl_workload_destroy(a);
	dl_workload_destroy(b);
	dl_workload_destroy(d);
}
END_TEST

/* heavy: <= 1 heavy file per job, ~share of jobs read one; private files
 * are read by exactly one job, private_min..max of them. */
START_TEST(test_heavy)
{
	dl_zoo_opts_t o;
	dl_workload_t *wl = _gen(DL_ZOO_HEAVY, 1000, 3);
	uint32_t *readers;
	size_t i, with = 0;
	uint32_t k;

	dl_zoo_opts_default(&o, DL_ZOO_HEAVY);
	ck_assert_ptr_nonnull(wl);
	readers = calloc(wl->nfiles, sizeof(*readers));
	for (i = 0; i < wl->njobs; i++) {
		uint32_t heavy = 0, priv = 0;

		for (k = 0; k < wl->jobs[i].nfiles; k++) {
			uint32_t f = wl->jobs[i].files[k];

			readers[f]++;
			if (f < o.heavy_files) {
				heavy++;
				ck_assert_uint_eq(wl->files[f].size,
						  o.heavy_size);
			} else {
				priv++;
				ck_assert_uint_eq(wl->files[f].size,
						  o.private_size);
			}
		}
		ck_assert_uint_le(heavy, 1);
		ck_assert_uint_ge(priv, o.private_min);
		ck_assert_uint_le(priv, o.private_max);
		with += heavy;
	}
	for (i = o.heavy_files; i < wl->nfiles; i++)
		ck_assert_uint_eq(readers[i], 1);
	/* 90% of 1000 jobs: binomial sd 9.5, so 5 sd either side. */
	ck_assert_uint_ge(with, 850);
	ck_assert_uint_le(with, 950);
	for (i = 0; i < o.heavy_files; i++)
		ck_assert_uint_gt(readers[i], 150);
	free(readers);
	dl_workload_destroy(wl);
}
END_TEST

/* zipf: the most popular file (index 0) is read far more than the median
 * one, and popularity falls with the rank. */
START_TEST(test_zipf)
{
	dl_workload_t *wl = _gen(DL_ZOO_ZIPF, 2000, 5);
	uint32_t *n;
	size_t i;
	uint32_t k, head = 0, tail = 0;

	ck_assert_ptr_nonnull(wl);
	n = calloc(wl->nfiles, sizeof(*n));
	for (i = 0; i < wl->njobs; i++) {
		ck_assert_uint_ge(wl->jobs[i].nfiles, 1);
		ck_assert_uint_le(wl->jobs[i].nfiles, 8);
		for (k = 0; k < wl->jobs[i].nfiles; k++)
			n[wl->jobs[i].files[k]]++;
	}
	for (i = 0; i < 10; i++)
		head += n[i];
	for (i = wl->nfiles - 10; i < wl->nfiles; i++)
		tail += n[i];
	ck_assert_uint_gt(n[0], 20 * (n[wl->nfiles / 2] + 1));
	ck_assert_uint_gt(head, 20 * (tail + 1));
	free(n);
	dl_workload_destroy(wl);
}
END_TEST

/* shift: job i reads only files of its window, which moves forward. */
START_TEST(test_shift)
{
	dl_workload_t *wl = _gen(DL_ZOO_SHIFT, 1000, 9);
	uint32_t pool, win, k;
	size_t i;

	ck_assert_ptr_nonnull(wl);
	pool = (uint32_t)wl->nfiles;
	win = pool / 10;
	ck_assert_uint_eq(pool, 500);
	for (i = 0; i < wl->njobs; i++) {
		uint32_t base = (uint32_t)((double)(pool - win) * (double)i /
					   (double)(wl->njobs - 1));

		for (k = 0; k < wl->jobs[i].nfiles; k++) {
			ck_assert_uint_ge(wl->jobs[i].files[k], base);
			ck_assert_uint_lt(wl->jobs[i].files[k], base + win);
		}
	}
	/* The first and last jobs share no file. */
	for (k = 0; k < wl->jobs[0].nfiles; k++)
		ck_assert_uint_lt(wl->jobs[0].files[k], win);
	for (k = 0; k < wl->jobs[999].nfiles; k++)
		ck_assert_uint_ge(wl->jobs[999].files[k], pool - win);
	dl_workload_destroy(wl);
}
END_TEST

/* bursty: jobs arrive in groups of 50 at one instant each. */
START_TEST(test_bursty)
{
	dl_workload_t *wl = _gen(DL_ZOO_BURSTY, 1000, 2);
	size_t i, distinct = 1;

	ck_assert_ptr_nonnull(wl);
	for (i = 1; i < wl->njobs; i++) {
		if (i % 50)
			ck_assert_double_eq(wl->jobs[i].arrival,
					    wl->jobs[i - 1].arrival);
		distinct += wl->jobs[i].arrival != wl->jobs[i - 1].arrival;
	}
	ck_assert_uint_eq(distinct, 20);
	ck_assert_double_gt(wl->jobs[999].arrival, 0);
	dl_workload_destroy(wl);
}
END_TEST

/* mixed: file counts span 1..32, sizes 4 MiB..4 GiB, cpus 1..cores. */
START_TEST(test_mixed)
{
	dl_workload_t *wl = _gen(DL_ZOO_MIXED, 2000, 4);
	uint32_t fmin = 99, fmax = 0, cmax = 0;
	uint64_t smin = UINT64_MAX, smax = 0;
	size_t i;

	ck_assert_ptr_nonnull(wl);
	for (i = 0; i < wl->njobs; i++) {
		fmin = wl->jobs[i].nfiles < fmin ? wl->jobs[i].nfiles : fmin;
		fmax = wl->jobs[i].nfiles > fmax ? wl->jobs[i].nfiles : fmax;
		cmax = wl->jobs[i].cpus > cmax ? wl->jobs[i].cpus : cmax;
		ck_assert_uint_ge(wl->jobs[i].cpus, 1);
	}
	for (i = 0; i < wl->nfiles; i++) {
		smin = wl->files[i].size < smin ? wl->files[i].size : smin;
		smax = wl->files[i].size > smax ? wl->files[i].size : smax;
	}
	ck_assert_uint_eq(fmin, 1);
	ck_assert_uint_ge(fmax, 30); /* some of the ~60 jobs of 31-32 files */
	ck_assert_uint_le(fmax, 32);
	ck_assert_uint_eq(cmax, 2);  /* 2 cores per node in _gen() */
	ck_assert_uint_ge(smin, 4ULL << 20);
	ck_assert_uint_lt(smin, 8ULL << 20);
	ck_assert_uint_le(smax, 4ULL << 30);
	ck_assert_uint_gt(smax, 2ULL << 30);
	dl_workload_destroy(wl);
}
END_TEST

/* Load 2 halves the arrival span of load 1; bad options are refused. */
START_TEST(test_load_and_bad)
{
	dl_zoo_opts_t o;
	dl_wl_platform_t pf;
	dl_workload_t *a, *b;

	_pf(&pf, 16, 1);
	dl_zoo_opts_default(&o, DL_ZOO_ZIPF);
	o.jobs = 200;
	a = dl_zoo_gen(&o, &pf, 1);
	o.load = 2;
	b = dl_zoo_gen(&o, &pf, 1);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_double_eq_tol(b->jobs[199].arrival * 2,
				a->jobs[199].arrival, 1e-6);
	dl_workload_destroy(a);
	dl_workload_destroy(b);
	o.load = 0;
	ck_assert_ptr_null(dl_zoo_gen(&o, &pf, 1));
	o.load = 1;
	o.jobs = 0;
	ck_assert_ptr_null(dl_zoo_gen(&o, &pf, 1));
	dl_zoo_opts_default(&o, DL_ZOO_HEAVY);
	o.private_min = 5;
	o.private_max = 4;
	ck_assert_ptr_null(dl_zoo_gen(&o, &pf, 1));
	o.cls = DL_ZOO_NCLASSES;
	ck_assert_ptr_null(dl_zoo_gen(&o, &pf, 1));
}
END_TEST

START_TEST(test_names)
{
	dl_zoo_class_t c;
	int i;

	for (i = 0; i < DL_ZOO_NCLASSES; i++) {
		ck_assert_int_eq(dl_zoo_class_from_name(
					 dl_zoo_class_name((dl_zoo_class_t)i), &c),
				 0);
		ck_assert_int_eq(c, i);
	}
	ck_assert_int_eq(dl_zoo_class_from_name("nope", &c), DL_EINVAL);
	ck_assert_int_eq(dl_zoo_class_from_name(NULL, &c), DL_EINVAL);
}
END_TEST

Suite *make_zoo_suite(void)
{
	Suite *s = suite_create("zoo");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_deterministic, 0, DL_ZOO_NCLASSES);
	tcase_add_test(tc, test_heavy);
	tcase_add_test(tc, test_zipf);
	tcase_add_test(tc, test_shift);
	tcase_add_test(tc, test_bursty);
	tcase_add_test(tc, test_mixed);
	tcase_add_test(tc, test_load_and_bad);
	tcase_add_test(tc, test_names);
	suite_add_tcase(s, tc);
	return s;
}
