/* zoo.c - workload classes beyond the papers'; see zoo.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "dl_error.h"
#include "zoo.h"

#define MIB (1ULL << 20)
#define GIB (1ULL << 30)
#define ZOO_MAX_FILES 64 /* per job, any class */

static const char *const names[DL_ZOO_NCLASSES] = {
	[DL_ZOO_HEAVY] = "heavy", [DL_ZOO_ZIPF] = "zipf",
	[DL_ZOO_SHIFT] = "shift", [DL_ZOO_BURSTY] = "bursty",
	[DL_ZOO_MIXED] = "mixed",
};

int dl_zoo_class_from_name(const char *name, dl_zoo_class_t *out)
{
	int i;

	for (i = 0; name && i < DL_ZOO_NCLASSES; i++)
		if (!strcmp(name, names[i])) {
			*out = (dl_zoo_class_t)i;
			return 0;
		}
	return DL_EINVAL;
}

const char *dl_zoo_class_name(dl_zoo_class_t c)
{
	return (unsigned)c < DL_ZOO_NCLASSES ? names[c] : "?";
}

void dl_zoo_opts_default(dl_zoo_opts_t *o, dl_zoo_class_t cls)
{
	memset(o, 0, sizeof(*o));
	o->cls = cls;
	o->jobs = 2000;
	o->load = 1.0;
	o->heavy_files = 4;
	o->heavy_size = 4 * GIB;
	o->heavy_share = 0.9;
	o->private_min = 2;
	o->private_max = 4;
	o->private_size = 128 * MIB;
	o->zipf_s = 1.1;
	o->burst = 50;
}

/* Files of the pool, defaulting to jobs / 2 (at least 16). */
static uint32_t _pool(const dl_zoo_opts_t *o)
{
	if (o->pool)
		return o->pool;
	return o->jobs / 2 > 16 ? (uint32_t)(o->jobs / 2) : 16;
}

/* Cumulative Zipf(s) weights of ranks 1..n, normalised to 1. */
static double *_zipf_cdf(uint32_t n, double s)
{
	double *c = malloc(n * sizeof(*c)), sum = 0;
	uint32_t i;

	if (!c)
		return NULL;
	for (i = 0; i < n; i++)
		c[i] = (sum += pow((double)(i + 1), -s));
	for (i = 0; i < n; i++)
		c[i] /= sum;
	return c;
}

static uint32_t _zipf_draw(const double *cdf, uint32_t n, gsl_rng *r)
{
	double u = gsl_rng_uniform(r);
	uint32_t lo = 0, hi = n - 1;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (cdf[mid] < u)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* A log-uniform size in [lo, hi] bytes, rounded to MiB. */
static uint64_t _logu(gsl_rng *r, uint64_t lo, uint64_t hi)
{
	double x = exp(log((double)lo) +
		       gsl_rng_uniform(r) * (log((double)hi) - log((double)lo)));
	uint64_t b = (uint64_t)x / MIB * MIB;

	return b < lo ? lo : b;
}

static int _add_files(dl_workload_t *wl, const char *prefix, uint32_t n,
		      gsl_rng *r, uint64_t lo, uint64_t hi)
{
	char path[64];
	uint32_t i;

	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/zoo/%s/%06u", prefix, i);
		if (dl_workload_add_file(wl, path, lo == hi ? lo : _logu(r, lo, hi),
					 DL_WL_STORAGE_RR) < 0)
			return DL_ENOMEM;
	}
	return 0;
}

/* Add a job reading files[0..n-1] (duplicates dropped by the workload). */
static int _add_job(dl_workload_t *wl, uint32_t *files, uint32_t n,
		    uint32_t cpus)
{
	dl_wl_job_t j = { 0 };

	j.id = (uint32_t)wl->njobs + 1;
	j.compute = -1;
	j.cpus = cpus;
	j.nfiles = n;
	j.files = files;
	return dl_workload_add_job(wl, &j);
}

/* heavy: heavy files first (indices 0..H-1), then private ones. */
static int _gen_heavy(const dl_zoo_opts_t *o, dl_workload_t *wl, gsl_rng *r)
{
	uint32_t f[ZOO_MAX_FILES], next, k, n;
	size_t i;
	char path[64];

	if (_add_files(wl, "heavy", o->heavy_files, r, o->heavy_size,
		       o->heavy_size))
		return DL_ENOMEM;
	next = o->heavy_files;
	for (i = 0; i < o->jobs; i++) {
		n = 0;
		if (o->heavy_files && gsl_rng_uniform(r) < o->heavy_share)
			f[n++] = (uint32_t)gsl_rng_uniform_int(r, o->heavy_files);
		k = o->private_min + (uint32_t)gsl_rng_uniform_int(
					     r, o->private_max - o->private_min + 1);
		for (; k > 0; k--) {
			snprintf(path, sizeof(path), "/zoo/private/%08u", next);
			if (dl_workload_add_file(wl, path, o->private_size,
						 DL_WL_STORAGE_RR) < 0)
				return DL_ENOMEM;
			f[n++] = next++;
		}
		if (_add_job(wl, f, n, 1))
			return DL_ENOMEM;
	}
	return 0;
}

/*
 * zipf, bursty (Zipf too), shift and mixed: each job reads lo..hi files;
 * zipf-like classes draw by popularity rank, shift uniformly within its
 * window, mixed uniformly over the whole pool.
 */
static int _gen_pool(const dl_zoo_opts_t *o, const dl_wl_platform_t *pf,
		     dl_workload_t *wl, gsl_rng *r)
{
	uint32_t pool = _pool(o), f[ZOO_MAX_FILES], n, k, lo = 2, hi = 8;
	uint32_t win = o->window ? o->window : (pool / 10 > 8 ? pool / 10 : 8);
	uint32_t cores = pf->slots / (pf->nodes ? pf->nodes : 1);
	double *cdf = NULL;
	size_t i;
	int rc = DL_ENOMEM;

	if (win > pool)
		win = pool;
	if (o->cls == DL_ZOO_MIXED) {
		lo = 1;
		hi = 32;
		rc = _add_files(wl, "pool", pool, r, 4 * MIB, 4 * GIB);
	} else {
		rc = _add_files(wl, "pool", pool, r, 16 * MIB, 1 * GIB);
	}
	if (rc)
		return rc;
	if ((o->cls == DL_ZOO_ZIPF || o->cls == DL_ZOO_BURSTY) &&
	    !(cdf = _zipf_cdf(pool, o->zipf_s)))
		return DL_ENOMEM;
	for (i = 0; i < o->jobs && !rc; i++) {
		/* The window's start moves from 0 to pool - win. */
		uint32_t base = (uint32_t)((double)(pool - win) * (double)i /
					   (double)(o->jobs > 1 ? o->jobs - 1 : 1));
		uint32_t cpus = 1;

		n = lo + (uint32_t)gsl_rng_uniform_int(r, hi - lo + 1);
		if (n > pool)
			n = pool;
		for (k = 0; k < n; k++) {
			if (cdf)
				f[k] = _zipf_draw(cdf, pool, r);
			else if (o->cls == DL_ZOO_SHIFT)
				f[k] = base + (uint32_t)gsl_rng_uniform_int(r, win);
			else
				f[k] = (uint32_t)gsl_rng_uniform_int(r, pool);
		}
		if (o->cls == DL_ZOO_MIXED && cores > 1)
			cpus = 1 + (uint32_t)gsl_rng_uniform_int(r, cores);
		rc = _add_job(wl, f, n, cpus) ? DL_ENOMEM : 0;
	}
	free(cdf);
	return rc;
}

/* Group consecutive jobs into bursts arriving with the burst's first. */
static void _burstify(dl_workload_t *wl, uint32_t burst)
{
	size_t i;

	for (i = 0; burst > 1 && i < wl->njobs; i++)
		if (i % burst)
			wl->jobs[i].arrival = wl->jobs[i - i % burst].arrival;
}

dl_workload_t *dl_zoo_gen(const dl_zoo_opts_t *o, const dl_wl_platform_t *pf,
			  uint64_t seed)
{
	dl_wl_arrival_opts_t ao;
	dl_workload_t *wl;
	gsl_rng *r;
	int rc;

	if (!o || !pf || !o->jobs || !(o->load > 0) ||
	    (unsigned)o->cls >= DL_ZOO_NCLASSES || !pf->nodes ||
	    o->private_min > o->private_max ||
	    o->private_max + 1 > ZOO_MAX_FILES || !(o->zipf_s > 0) ||
	    !(o->heavy_share >= 0 && o->heavy_share <= 1))
		return NULL;
	wl = dl_workload_create(names[o->cls]);
	r = gsl_rng_alloc(gsl_rng_mt19937);
	if (!wl || !r) {
		dl_workload_destroy(wl);
		if (r)
			gsl_rng_free(r);
		return NULL;
	}
	gsl_rng_set(r, (unsigned long)(seed ^ (seed >> 32)));
	if (o->cls == DL_ZOO_HEAVY)
		rc = _gen_heavy(o, wl, r);
	else
		rc = _gen_pool(o, pf, wl, r);
	dl_wl_arrival_opts_default(&ao);
	ao.load = o->load;
	if (!rc)
		rc = dl_workload_set_arrivals(wl, pf, &ao,
					      seed ^ 0x9e3779b97f4a7c15ULL,
					      NULL);
	if (!rc && o->cls == DL_ZOO_BURSTY)
		_burstify(wl, o->burst);
	gsl_rng_free(r);
	if (rc) {
		dl_workload_destroy(wl);
		return NULL;
	}
	return wl;
}
