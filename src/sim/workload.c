/* workload.c - job streams for the simulator; see workload.h. */
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "dl_cache.h"
#include "dl_cost.h"
#include "dl_error.h"
#include "dl_files.h"
#include "grow.h"
#include "workload.h"

#define MB (1ULL << 20)

/* ---------------------------------------------------------------------- */
/* Path index: open addressing, FNV-1a                                     */

typedef struct {
	size_t cap; /* power of two */
	size_t n;
	int64_t *slot; /* file index, -1 empty */
} _index_t;

static uint64_t _hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	while (*s) {
		h ^= (unsigned char) *s++;
		h *= 1099511628211ULL;
	}
	return h;
}

static int64_t _index_find(const dl_workload_t *wl, const char *path)
{
	const _index_t *ix = wl->index;
	size_t i;

	if (!ix || !ix->cap)
		return DL_ENOENT;
	for (i = _hash(path) & (ix->cap - 1); ix->slot[i] >= 0;
	     i = (i + 1) & (ix->cap - 1))
		if (!strcmp(wl->files[ix->slot[i]].path, path))
			return ix->slot[i];
	return DL_ENOENT;
}

static void _index_put(_index_t *ix, const dl_workload_t *wl, int64_t file)
{
	size_t i = _hash(wl->files[file].path) & (ix->cap - 1);

	while (ix->slot[i] >= 0)
		i = (i + 1) & (ix->cap - 1);
	ix->slot[i] = file;
	ix->n++;
}

/* Make room for one more entry: keep the load at most one half. */
static int _index_reserve(dl_workload_t *wl)
{
	_index_t *ix = wl->index, nix;
	size_t i;

	if (!ix) {
		ix = calloc(1, sizeof(*ix));
		if (!ix)
			return DL_ENOMEM;
		wl->index = ix;
	}
	if ((ix->n + 1) * 2 <= ix->cap)
		return 0;
	nix.cap = ix->cap ? ix->cap * 2 : 64;
	nix.n = 0;
	nix.slot = malloc(nix.cap * sizeof(*nix.slot));
	if (!nix.slot)
		return DL_ENOMEM;
	for (i = 0; i < nix.cap; i++)
		nix.slot[i] = -1;
	for (i = 0; i < ix->cap; i++)
		if (ix->slot[i] >= 0)
			_index_put(&nix, wl, ix->slot[i]);
	free(ix->slot);
	*ix = nix;
	return 0;
}

/* ---------------------------------------------------------------------- */
/* The tables                                                             */

dl_workload_t *dl_workload_create(const char *name)
{
	dl_workload_t *wl = calloc(1, sizeof(*wl));

	if (wl)
		snprintf(wl->name, sizeof(wl->name), "%s", name ? name : "");
	return wl;
}

void dl_workload_destroy(dl_workload_t *wl)
{
	size_t i;

	if (!wl)
		return;
	for (i = 0; i < wl->nfiles; i++)
		free(wl->files[i].path);
	for (i = 0; i < wl->njobs; i++)
		free(wl->jobs[i].files);
	if (wl->index)
		free(((_index_t *) wl->index)->slot);
	free(wl->index);
	free(wl->files);
	free(wl->jobs);
	free(wl);
}

int64_t dl_workload_find_file(const dl_workload_t *wl, const char *path)
{
	if (!wl || !path)
		return DL_EINVAL;
	return _index_find(wl, path);
}

int64_t dl_workload_add_file(dl_workload_t *wl, const char *path, uint64_t size,
			     int32_t storage)
{
	const char *p;
	char *copy;
	int rc;

	if (!wl || !path || !*path || storage < DL_WL_STORAGE_RR)
		return DL_EINVAL;
	for (p = path; *p; p++)
		if (isspace((unsigned char) *p) || *p == ',')
			return DL_EINVAL;
	if (_index_find(wl, path) >= 0)
		return DL_EEXIST;
	if ((rc = _index_reserve(wl)))
		return rc;
	if (wl->nfiles == wl->files_cap) {
		size_t ncap = wl->files_cap ? wl->files_cap * 2 : 64;
		dl_wl_file_t *nf = realloc(wl->files, ncap * sizeof(*nf));

		if (!nf)
			return DL_ENOMEM;
		wl->files = nf;
		wl->files_cap = ncap;
	}
	copy = strdup(path);
	if (!copy)
		return DL_ENOMEM;
	wl->files[wl->nfiles].path = copy;
	wl->files[wl->nfiles].size = size;
	wl->files[wl->nfiles].storage = storage;
	_index_put(wl->index, wl, (int64_t) wl->nfiles);
	return (int64_t) wl->nfiles++;
}

static int _cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *) a, y = *(const uint32_t *) b;

	return (x > y) - (x < y);
}

int dl_workload_add_job(dl_workload_t *wl, const dl_wl_job_t *job)
{
	dl_wl_job_t j;
	uint32_t i, k;

	if (!wl || !job || !job->cpus || (job->nfiles && !job->files) ||
	    !isfinite(job->arrival))
		return DL_EINVAL;
	for (i = 0; i < job->nfiles; i++)
		if (job->files[i] >= wl->nfiles)
			return DL_EINVAL;
	if (wl->njobs == wl->jobs_cap) {
		size_t ncap = wl->jobs_cap ? wl->jobs_cap * 2 : 64;
		dl_wl_job_t *nj = realloc(wl->jobs, ncap * sizeof(*nj));

		if (!nj)
			return DL_ENOMEM;
		wl->jobs = nj;
		wl->jobs_cap = ncap;
	}
	j = *job;
	j.files = NULL;
	if (job->nfiles) {
		uint32_t *sorted = malloc(job->nfiles * sizeof(*sorted));
		uint8_t *taken = calloc(job->nfiles, 1);

		j.files = malloc(job->nfiles * sizeof(*j.files));
		if (!j.files || !sorted || !taken) {
			free(j.files);
			free(sorted);
			free(taken);
			return DL_ENOMEM;
		}
		/*
		 * Keep the job's order and drop repeats: equal ids share the
		 * lower bound of their value in a sorted copy, which the first
		 * of them marks taken.
		 */
		memcpy(sorted, job->files, job->nfiles * sizeof(*sorted));
		qsort(sorted, job->nfiles, sizeof(*sorted), _cmp_u32);
		j.nfiles = 0;
		for (i = 0; i < job->nfiles; i++) {
			uint32_t f = job->files[i], lo = 0, hi = job->nfiles;

			while (lo < hi) {
				k = lo + (hi - lo) / 2;
				if (sorted[k] < f)
					lo = k + 1;
				else
					hi = k;
			}
			if (taken[lo])
				continue;
			taken[lo] = 1;
			j.files[j.nfiles++] = f;
		}
		free(sorted);
		free(taken);
	}
	wl->jobs[wl->njobs++] = j;
	return 0;
}

static int _cmp_job(const void *a, const void *b)
{
	const dl_wl_job_t *x = a, *y = b;

	if (x->arrival != y->arrival)
		return x->arrival < y->arrival ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

void dl_workload_sort(dl_workload_t *wl)
{
	if (wl && wl->njobs > 1)
		qsort(wl->jobs, wl->njobs, sizeof(*wl->jobs), _cmp_job);
}

/* a + b, or UINT64_MAX where the sum would wrap (a generated workload
 * is not checked as the readers check theirs). */
static uint64_t _add_sat(uint64_t a, uint64_t b)
{
	return b > UINT64_MAX - a ? UINT64_MAX : a + b;
}

void dl_workload_stats(const dl_workload_t *wl, dl_wl_stats_t *st)
{
	uint32_t *count;
	size_t i, k;
	uint64_t shared = 0;

	memset(st, 0, sizeof(*st));
	if (!wl)
		return;
	st->jobs = wl->njobs;
	st->files = wl->nfiles;
	count = calloc(wl->nfiles ? wl->nfiles : 1, sizeof(*count));
	for (i = 0; i < wl->njobs; i++) {
		const dl_wl_job_t *j = &wl->jobs[i];

		st->accesses += j->nfiles;
		if (!i || j->nfiles < st->files_min)
			st->files_min = j->nfiles;
		if (j->nfiles > st->files_max)
			st->files_max = j->nfiles;
		for (k = 0; k < j->nfiles && count; k++) {
			count[j->files[k]]++;
			st->bytes_accessed = _add_sat(st->bytes_accessed,
						      wl->files[j->files[k]].size);
		}
	}
	for (i = 0; i < wl->nfiles && count; i++) {
		if (!count[i])
			continue;
		st->files_used++;
		st->bytes_used = _add_sat(st->bytes_used, wl->files[i].size);
		if (count[i] >= 2)
			shared += count[i];
	}
	free(count);
	if (wl->njobs) {
		st->files_mean = (double) st->accesses / (double) wl->njobs;
		st->first_arrival = wl->jobs[0].arrival;
		st->last_arrival = wl->jobs[0].arrival;
		for (i = 1; i < wl->njobs; i++) {
			if (wl->jobs[i].arrival < st->first_arrival)
				st->first_arrival = wl->jobs[i].arrival;
			if (wl->jobs[i].arrival > st->last_arrival)
				st->last_arrival = wl->jobs[i].arrival;
		}
	}
	if (st->accesses) {
		st->overlap =
			1.0 - (double) st->files_used / (double) st->accesses;
		st->shared = (double) shared / (double) st->accesses;
	}
}

/* ---------------------------------------------------------------------- */
/* Access patterns (hjs-mansouri §4.1)                                     */

typedef struct {
	dl_wl_pattern_t pattern;
	uint32_t n;
	int64_t cur; /* the last item, -1 before the first */
	double sigma;
	double *cdf; /* zipf: cdf[i] = P(rank <= i + 1) */
} _sampler_t;

static int _sampler_init(_sampler_t *s, const dl_wl_access_t *a, uint32_t n)
{
	uint32_t i;
	double sum = 0;

	memset(s, 0, sizeof(*s));
	s->pattern = a->pattern;
	s->n = n ? n : 1;
	s->cur = -1;
	s->sigma = a->sigma > 0 ? a->sigma : (double) s->n / 100.0;
	if (s->sigma < 1.0)
		s->sigma = 1.0;
	if (s->pattern != DL_WL_PATTERN_ZIPF)
		return 0;
	if (!(a->zipf_s >= 0) || !isfinite(a->zipf_s))
		return DL_EINVAL;
	s->cdf = malloc(s->n * sizeof(*s->cdf));
	if (!s->cdf)
		return DL_ENOMEM;
	/* P_i = K / i^S (hjs-mansouri §4.1); K normalizes the sum to 1. */
	for (i = 0; i < s->n; i++) {
		sum += 1.0 / pow((double) i + 1.0, a->zipf_s);
		s->cdf[i] = sum;
	}
	for (i = 0; i < s->n; i++)
		s->cdf[i] /= sum;
	return 0;
}

static void _sampler_fini(_sampler_t *s)
{
	free(s->cdf);
	s->cdf = NULL;
}

static uint32_t _sampler_next(_sampler_t *s, gsl_rng *r)
{
	int64_t v;

	switch (s->pattern) {
	case DL_WL_PATTERN_SEQUENTIAL:
		v = (s->cur + 1) % s->n;
		break;
	case DL_WL_PATTERN_GAUSSIAN:
		if (s->cur < 0) {
			v = (int64_t) gsl_rng_uniform_int(r, s->n);
			break;
		}
		/* A random walk: the next item is near the last one. */
		v = s->cur + (int64_t) llround(gsl_ran_gaussian(r, s->sigma));
		v %= (int64_t) s->n;
		if (v < 0)
			v += s->n;
		break;
	case DL_WL_PATTERN_ZIPF:
	{
		double u = gsl_rng_uniform(r);
		uint32_t lo = 0, hi = s->n - 1;

		/* The first rank whose cdf exceeds u. */
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;

			if (s->cdf[mid] > u)
				hi = mid;
			else
				lo = mid + 1;
		}
		v = lo;
		break;
	}
	default:
		v = (int64_t) gsl_rng_uniform_int(r, s->n);
		break;
	}
	s->cur = v;
	return (uint32_t) v;
}

/* ---------------------------------------------------------------------- */
/* Generators                                                             */

void dl_wl_biomed_opts_default(dl_wl_biomed_opts_t *o)
{
	memset(o, 0, sizeof(*o));
	o->jobs = 1000;
	o->patients = 2000;
	o->images = 30;
	o->mri_fraction = 0.5;
	o->mri_size = 4 * MB;
	o->ct_size = 64 * MB;
	o->files_min = 4;
	o->files_max = 10;
	o->files_mean = 6.0;
	o->overlap = 0.85;
	o->clustered = 1;
	o->access.pattern = DL_WL_PATTERN_UNIFORM;
	o->access.zipf_s = 1.0;
}

void dl_wl_diffusion_opts_default(dl_wl_diffusion_opts_t *o)
{
	memset(o, 0, sizeof(*o));
	o->jobs = 250000;
	o->files = 10000;
	o->file_size = 10 * MB;
	o->compute = 0.010;
	o->rate_start = 1.0;
	o->rate_factor = 1.3;
	o->rate_interval = 60.0;
	o->rate_max = 1000.0;
	o->access.pattern = DL_WL_PATTERN_UNIFORM;
	o->access.zipf_s = 1.0;
}

void dl_wl_arrival_opts_default(dl_wl_arrival_opts_t *o)
{
	memset(o, 0, sizeof(*o));
	o->model = DL_WL_ARRIVALS_POISSON;
	o->load = 1.0;
}

static gsl_rng *_rng(uint64_t seed)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);

	if (r)
		gsl_rng_set(r, (unsigned long) (seed ^ (seed >> 32)));
	return r;
}

/* One generated biomed job before files get their final indices. */
typedef struct {
	uint32_t patient;
	uint32_t n;
	uint32_t img[64];
} _bjob_t;

/*
 * The overlap controller.  A request is "new" when no earlier job asked
 * for the image.  After each job the running share of new requests is
 * driven to 1 - overlap (error diffusion), so the trace lands on the
 * target whatever the order of its jobs: overlap is a property of the
 * multiset of requests.  A job reads one patient's images: its new images
 * are the next ones never requested (the patient's "frontier", images are
 * in acquisition order), its old ones a date range among those already
 * requested.  The generator stays with a patient while the patient can
 * supply the new images wanted, then moves to the next patient the access
 * pattern gives.
 */
/* Whether o describes a workload the generator can make. */
static int _biomed_ok(const dl_wl_biomed_opts_t *o)
{
	return o && o->jobs && o->patients && o->files_min >= 1 &&
	       o->files_max >= o->files_min && o->files_max <= 64 &&
	       o->images >= o->files_max && o->overlap >= 0 &&
	       o->overlap < 1 && o->files_mean >= o->files_min &&
	       o->files_mean <= o->files_max && o->mri_fraction >= 0 &&
	       o->mri_fraction <= 1 &&
	       (uint64_t) o->patients * o->images <= UINT32_MAX;
}

/* The generator's walk over the patients (see dl_workload_gen_biomed()). */
typedef struct {
	const dl_wl_biomed_opts_t *o;
	gsl_rng *r;
	_sampler_t smp;
	uint32_t *frontier; /* [patients] images requested so far */
	uint32_t cur, span;
	double pbin;
	uint64_t A, D; /* files requested, distinct files requested */
} _walk_t;

/* The next job's request into b: n images of the current patient (or of
 * the next one the access pattern gives, if this one cannot supply the
 * new images wanted), that many new ones as keeps the overlap. */
static void _biomed_request(_walk_t *w, _bjob_t *b)
{
	const dl_wl_biomed_opts_t *o = w->o;
	uint32_t n, k, reuse, f, start, lo, hi, tries, i, p = w->cur;
	int64_t want;

	/* 4-10 files, mean 6: min + Binomial(max - min, p). */
	n = o->files_min + (w->span ? gsl_ran_binomial(w->r, w->pbin, w->span) :
				      0);
	want = llround((1.0 - o->overlap) * (double) (w->A + n) -
		       (double) w->D);
	if (want < 0)
		want = 0;
	if (want > n)
		want = n;
	if ((uint32_t) want > o->images - w->frontier[w->cur]) {
		/* This patient is (nearly) exhausted: move on. */
		for (tries = 0; tries < 64; tries++) {
			p = _sampler_next(&w->smp, w->r);
			if (o->images - w->frontier[p] >= (uint32_t) want)
				break;
		}
		w->cur = p;
	}
	f = w->frontier[w->cur];
	lo = n > f ? n - f : 0; /* too few old images */
	hi = n < o->images - f ? n : o->images - f;
	k = (uint32_t) want;
	if (k < lo)
		k = lo;
	if (k > hi)
		k = hi;
	reuse = n - k;
	start = reuse ? (uint32_t) gsl_rng_uniform_int(w->r, f - reuse + 1) : 0;
	b->patient = w->cur;
	b->n = n;
	for (i = 0; i < reuse; i++)
		b->img[i] = start + i;
	for (i = 0; i < k; i++)
		b->img[reuse + i] = f + i;
	w->frontier[w->cur] = f + k;
	w->A += n;
	w->D += k;
}

/*
 * Every image below a frontier was requested: number them densely,
 * patient by patient, so a patient's images are consecutive ids and
 * round-robin placement spreads them over the storage nodes.
 * base[p]: patient p's first file id.  \return 0 or DL_ENOMEM.
 */
static int _biomed_files(const dl_wl_biomed_opts_t *o, dl_workload_t *wl,
			 const uint32_t *frontier, const uint8_t *mri,
			 uint32_t *base)
{
	size_t total = 0;
	uint32_t p, i;

	for (p = 0; p < o->patients; p++) {
		base[p] = (uint32_t) total;
		for (i = 0; i < frontier[p]; i++) {
			char path[96];
			int is_mri = mri[(size_t) p * o->images + i];

			snprintf(path, sizeof(path),
				 "/data/biomed/p%04u/%s%03u.img", p,
				 is_mri ? "mri" : "ct", i);
			if (dl_workload_add_file(wl, path,
						 is_mri ? o->mri_size :
							  o->ct_size,
						 DL_WL_STORAGE_RR) < 0)
				return DL_ENOMEM;
			total++;
		}
	}
	return 0;
}

/* The requests as jobs 1, 2, ... of wl.  \return 0 or DL_ENOMEM. */
static int _biomed_jobs(const dl_wl_biomed_opts_t *o, dl_workload_t *wl,
			const _bjob_t *jobs, const uint32_t *base)
{
	size_t j;
	uint32_t i;

	for (j = 0; j < o->jobs; j++) {
		dl_wl_job_t job = { 0 };
		uint32_t files[64];

		for (i = 0; i < jobs[j].n; i++)
			files[i] = base[jobs[j].patient] + jobs[j].img[i];
		job.id = (uint32_t) j + 1;
		job.compute = -1.0;
		job.cpus = 1;
		job.nfiles = jobs[j].n;
		job.files = files;
		if (dl_workload_add_job(wl, &job))
			return DL_ENOMEM;
	}
	return 0;
}

dl_workload_t *dl_workload_gen_biomed(const dl_wl_biomed_opts_t *o,
				      uint64_t seed)
{
	_walk_t w = { .o = o };
	dl_workload_t *wl = NULL;
	_bjob_t *jobs = NULL;
	uint32_t *base = NULL;
	uint8_t *mri = NULL;
	size_t j;
	uint32_t i;
	int ok = 0;

	if (!_biomed_ok(o))
		return NULL;
	w.r = _rng(seed);
	jobs = malloc(o->jobs * sizeof(*jobs));
	w.frontier = calloc(o->patients, sizeof(*w.frontier));
	base = calloc(o->patients, sizeof(*base));
	mri = malloc((size_t) o->patients * o->images);
	wl = dl_workload_create("biomed");
	if (!w.r || !jobs || !w.frontier || !base || !mri || !wl ||
	    _sampler_init(&w.smp, &o->access, o->patients))
		goto out;
	/* Modality of every image, drawn up front: independent of requests. */
	for (i = 0; i < o->patients * o->images; i++)
		mri[i] = gsl_rng_uniform(w.r) < o->mri_fraction;
	w.span = o->files_max - o->files_min;
	w.pbin = w.span ? (o->files_mean - o->files_min) / w.span : 0.0;
	w.cur = _sampler_next(&w.smp, w.r);
	for (j = 0; j < o->jobs; j++)
		_biomed_request(&w, &jobs[j]);
	if (!o->clustered)
		gsl_ran_shuffle(w.r, jobs, o->jobs, sizeof(*jobs));
	ok = !_biomed_files(o, wl, w.frontier, mri, base) &&
	     !_biomed_jobs(o, wl, jobs, base);
out:
	_sampler_fini(&w.smp);
	if (w.r)
		gsl_rng_free(w.r);
	free(jobs);
	free(w.frontier);
	free(base);
	free(mri);
	if (!ok) {
		dl_workload_destroy(wl);
		return NULL;
	}
	return wl;
}

/*
 * data-diffusion-raicu §5.2: A_i = min(ceil(A_{i-1} * 1.3), 1000) tasks/s
 * for 60 s each, one file of 10 MB per task, 10 ms of compute.
 */
dl_workload_t *dl_workload_gen_diffusion(const dl_wl_diffusion_opts_t *o,
					 uint64_t seed)
{
	dl_workload_t *wl;
	_sampler_t smp = { 0 };
	gsl_rng *r;
	double rate, t0, t;
	size_t j = 0;
	uint32_t i;
	int ok = 0;

	if (!o || !o->jobs || !o->files || !(o->rate_start > 0) ||
	    !(o->rate_factor >= 1) || !(o->rate_interval > 0) ||
	    !(o->rate_max >= o->rate_start) || !(o->compute >= 0))
		return NULL;
	wl = dl_workload_create("diffusion");
	r = _rng(seed);
	if (!wl || !r || _sampler_init(&smp, &o->access, o->files))
		goto out;
	for (i = 0; i < o->files; i++) {
		char path[64];

		snprintf(path, sizeof(path), "/data/diffusion/f%05u", i);
		if (dl_workload_add_file(wl, path, o->file_size,
					 DL_WL_STORAGE_RR) < 0)
			goto out;
	}
	rate = o->rate_start;
	for (t0 = 0; j < o->jobs; t0 += o->rate_interval) {
		size_t k, per = (size_t) floor(rate * o->rate_interval + 1e-9);

		t = t0;
		for (k = 0; j < o->jobs; k++) {
			dl_wl_job_t job = { 0 };
			uint32_t f;

			if (o->poisson) {
				t += gsl_ran_exponential(r, 1.0 / rate);
				if (t >= t0 + o->rate_interval)
					break;
			} else {
				if (k >= per)
					break;
				t = t0 + (double) k / rate;
			}
			f = _sampler_next(&smp, r);
			job.id = (uint32_t) ++j;
			job.arrival = t;
			job.compute = o->compute;
			job.cpus = 1;
			job.nfiles = 1;
			job.files = &f;
			if (dl_workload_add_job(wl, &job))
				goto out;
		}
		rate = ceil(rate * o->rate_factor);
		if (rate > o->rate_max)
			rate = o->rate_max;
	}
	ok = 1;
out:
	_sampler_fini(&smp);
	if (r)
		gsl_rng_free(r);
	if (!ok) {
		dl_workload_destroy(wl);
		return NULL;
	}
	return wl;
}

/* ---------------------------------------------------------------------- */
/* Arrivals from the load (online-hps-khanna §6.2, §6.3)                    */

int dl_workload_est_exec(const dl_workload_t *wl, const dl_wl_platform_t *pf,
			 double *est)
{
	dl_cache_t *c;
	dl_state_t *st;
	uint32_t *sharers;
	size_t i, k;
	int rc = 0;

	if (!wl || !pf || !est)
		return DL_EINVAL;
	c = dl_cache_create(1, DL_EVICT_VALUE, 0);
	st = c ? dl_state_create(c, &pf->params) : NULL;
	sharers = calloc(wl->nfiles ? wl->nfiles : 1, sizeof(*sharers));
	if (!c || !st || !sharers) {
		rc = DL_ENOMEM;
		goto out;
	}
	for (i = 0; i < wl->nfiles; i++) {
		int64_t id = dl_cache_file_intern(c, wl->files[i].path,
						  wl->files[i].size);

		if (id != (int64_t) i) {
			rc = id < 0 ? (int) id : DL_EINVAL;
			goto out;
		}
	}
	/* s_j over the whole trace: the jobs that will ever share file j. */
	for (i = 0; i < wl->njobs; i++)
		for (k = 0; k < wl->jobs[i].nfiles; k++)
			sharers[wl->jobs[i].files[k]]++;
	for (i = 0; i < wl->njobs; i++) {
		dl_job_t j = { 0 };

		j.nfiles = wl->jobs[i].nfiles;
		j.files = wl->jobs[i].files;
		j.compute = wl->jobs[i].compute;
		j.cpus = wl->jobs[i].cpus;
		est[i] = dl_cost_job_estimate(st, &j, sharers,
					      pf->nodes ? pf->nodes : 1) *
			 j.cpus;
	}
out:
	free(sharers);
	dl_state_destroy(st);
	dl_cache_destroy(c);
	return rc;
}

/*
 * The Lublin-Feitelson arrival model (J. Parallel Distrib. Comput. 63(11),
 * 2003), typeless parameters: the log of the rush-hour inter-arrival time
 * is gamma(AARR * ARAR, BARR); the day is cut into 48 buckets of half an
 * hour whose share of the arrivals is the mass of gamma(ANUM, BNUM) around
 * the bucket, the day starting at hour 11 of that distribution.  A drawn
 * gap is a number of "points" that buys buckets in turn, a busy bucket
 * costing more points than a quiet one, so gaps stretch at night.
 */
#define LF_BUCKETS 48
#define LF_BUCKET_SECS (86400.0 / LF_BUCKETS)
#define LF_DAY_START 11
#define LF_AARR (10.2303 * 1.0225)
#define LF_BARR 0.4871
#define LF_ANUM 8.1737
#define LF_BNUM 3.9631
#define LF_MAX_LOG_GAP 13.0 /* larger draws are redrawn, as in the model */

static void _lublin(gsl_rng *r, size_t n, int start_hour, double *t)
{
	double w[LF_BUCKETS], mean = 0, points = 0, rem = 0, now = 0;
	int i, bucket;
	size_t k;

	for (i = LF_DAY_START; i < LF_BUCKETS + LF_DAY_START; i++) {
		int idx = (i - 1) % LF_BUCKETS;

		w[idx] = gsl_cdf_gamma_P(i + 0.5, LF_ANUM, LF_BNUM) -
			 gsl_cdf_gamma_P(i - 0.5, LF_ANUM, LF_BNUM);
		mean += w[idx];
	}
	mean /= LF_BUCKETS;
	for (i = 0; i < LF_BUCKETS; i++)
		w[i] /= mean;
	bucket = ((start_hour % 24 + 24) % 24) * LF_BUCKETS / 24;
	for (k = 0; k < n; k++) {
		double g, gap = 0, nrem;

		t[k] = now;
		do
			g = gsl_ran_gamma(r, LF_AARR, LF_BARR);
		while (g > LF_MAX_LOG_GAP);
		points += exp(g) / LF_BUCKET_SECS;
		while (points > w[bucket]) {
			points -= w[bucket];
			bucket = (bucket + 1) % LF_BUCKETS;
			gap += LF_BUCKET_SECS;
		}
		nrem = points / w[bucket];
		gap += LF_BUCKET_SECS * (nrem - rem);
		rem = nrem;
		now += gap;
	}
}

int dl_workload_set_arrivals(dl_workload_t *wl, const dl_wl_platform_t *pf,
			     const dl_wl_arrival_opts_t *o, uint64_t seed,
			     double *tlast)
{
	double *est, *t, avg = 0, tl, scale;
	gsl_rng *r;
	size_t i, n;
	int rc;

	if (!wl || !pf || !o || !wl->njobs || !(o->load > 0) ||
	    o->model == DL_WL_ARRIVALS_STEPS)
		return DL_EINVAL;
	n = wl->njobs;
	est = malloc(n * sizeof(*est));
	t = malloc(n * sizeof(*t));
	r = _rng(seed);
	if (!est || !t || !r) {
		rc = DL_ENOMEM;
		goto out;
	}
	if ((rc = dl_workload_est_exec(wl, pf, est)))
		goto out;
	/* eq. 10 */
	for (i = 0; i < n; i++)
		avg += est[i];
	avg /= (double) n;
	/* eq. 11 for load 1, stretched by 1 / load (eq. 9) */
	tl = avg * (double) n /
	     ((double) (pf->slots ? pf->slots : 1) * o->load);
	switch (o->model) {
	case DL_WL_ARRIVALS_LUBLIN:
		_lublin(r, n, o->lublin_start_hour, t);
		break;
	case DL_WL_ARRIVALS_BURST:
		for (i = 0; i < n; i++)
			t[i] = 0;
		break;
	default:
		t[0] = 0;
		for (i = 1; i < n; i++)
			t[i] = t[i - 1] + gsl_ran_exponential(r, 1.0);
		break;
	}
	scale = (n > 1 && t[n - 1] > 0) ? tl / t[n - 1] : 0.0;
	for (i = 0; i < n; i++)
		wl->jobs[i].arrival = t[i] * scale;
	if (n > 1 && o->model != DL_WL_ARRIVALS_BURST)
		wl->jobs[n - 1].arrival = tl; /* exactly, despite rounding */
	if (tlast)
		*tlast = tl;
	rc = 0;
out:
	if (r)
		gsl_rng_free(r);
	free(est);
	free(t);
	return rc;
}

void dl_workload_scale_time(dl_workload_t *wl, double factor)
{
	size_t i;

	if (!wl || !(factor > 0))
		return;
	for (i = 0; i < wl->njobs; i++)
		wl->jobs[i].arrival *= factor;
}

/* ---------------------------------------------------------------------- */
/* Parsers                                                                */

static void _diag(dl_wl_diag_t *d, int bad, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void _diag(dl_wl_diag_t *d, int bad, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (!d)
		return;
	if (bad)
		d->bad_lines++;
	else
		d->warnings++;
	if (!d->fn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	d->fn(msg, d->arg);
}

/* Read one line of any length; \return it (owned by *buf) or NULL at EOF. */
static char *_getline(FILE *in, char **buf, size_t *cap)
{
	ssize_t n = getline(buf, cap, in);

	if (n < 0)
		return NULL;
	while (n > 0 && ((*buf)[n - 1] == '\n' || (*buf)[n - 1] == '\r'))
		(*buf)[--n] = '\0';
	return *buf;
}

/* Split s at blanks into at most max tokens; \return how many (max + 1 if
 * there were more). */
static int _split(char *s, char **tok, int max)
{
	int n = 0;
	char *save = NULL, *p;

	for (p = strtok_r(s, " \t", &save); p;
	     p = strtok_r(NULL, " \t", &save)) {
		if (n == max)
			return max + 1;
		tok[n++] = p;
	}
	return n;
}

static int _parse_double(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	/* A subnormal would not read back once written (strtod: ERANGE). */
	if (end == s || *end || errno || !isfinite(v) ||
	    (v != 0 && fabs(v) < DBL_MIN))
		return DL_EINVAL;
	*out = v;
	return 0;
}

static int _parse_u32(const char *s, uint32_t *out)
{
	char *end;
	unsigned long long v;

	if (!isdigit((unsigned char) *s))
		return DL_EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end || errno || v > UINT32_MAX)
		return DL_EINVAL;
	*out = (uint32_t) v;
	return 0;
}

int dl_wl_parse_size(const char *s, uint64_t *out)
{
	char *end;
	double v, mult = 1;

	if (!s || !out || !isdigit((unsigned char) *s))
		return DL_EINVAL;
	/* Whole numbers exactly, as annotations read them. */
	if (!dl_files_parse_size(s, strlen(s), out))
		return 0;
	errno = 0;
	v = strtod(s, &end);
	if (errno || !isfinite(v) || v < 0)
		return DL_EINVAL;
	switch (toupper((unsigned char) *end)) {
	case 'K':
		mult = 1024.0;
		end++;
		break;
	case 'M':
		mult = 1024.0 * 1024;
		end++;
		break;
	case 'G':
		mult = 1024.0 * 1024 * 1024;
		end++;
		break;
	case 'T':
		mult = 1024.0 * 1024 * 1024 * 1024;
		end++;
		break;
	default:
		break;
	}
	if (mult > 1 && (!strcmp(end, "iB") || !strcmp(end, "ib")))
		end += 2;
	else if (toupper((unsigned char) *end) == 'B')
		end++;
	/* Below 2^64 after rounding, or no uint64_t holds it. */
	if (*end || !(v * mult + 0.5 < 18446744073709551616.0))
		return DL_EINVAL;
	*out = (uint64_t) (v * mult + 0.5);
	return 0;
}

/* A job of the SWF trace, before its files are known. */
typedef struct {
	uint32_t id;
	int named; /* a sidecar line names it */
	size_t line;
	double submit, run;
	uint32_t cpus;
	uint32_t nfiles, cap;
	uint32_t *files;
} _swfjob_t;

static int _cmp_swf_id(const void *a, const void *b)
{
	const _swfjob_t *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

/* By id, then by line: the first record of a job number comes first. */
static int _cmp_swf_id_line(const void *a, const void *b)
{
	const _swfjob_t *x = a, *y = b;

	if (x->id != y->id)
		return (x->id > y->id) - (x->id < y->id);
	return (x->line > y->line) - (x->line < y->line);
}

static int _swf_add_file(_swfjob_t *j, uint32_t f)
{
	uint32_t k;

	for (k = 0; k < j->nfiles; k++)
		if (j->files[k] == f)
			return 0;
	if (j->nfiles == j->cap) {
		uint32_t ncap = j->cap ? j->cap * 2 : 8;
		uint32_t *nf = realloc(j->files, ncap * sizeof(*nf));

		if (!nf)
			return DL_ENOMEM;
		j->files = nf;
		j->cap = ncap;
	}
	j->files[j->nfiles++] = f;
	return 0;
}

/*
 * The sidecar: "JOBID PATH[,PATH...] [SIZE]" per line, '#' comments.  A
 * job may have several lines.  SIZE applies to every path of the line.
 */
static int _read_sidecar(FILE *in, dl_workload_t *wl, _swfjob_t *jobs,
			 size_t njobs, uint8_t **known, dl_wl_diag_t *diag)
{
	char *buf = NULL, *line, *tok[4];
	size_t cap = 0, lineno = 0, kcap = 0;
	int rc = 0;

	while (rc == 0 && (line = _getline(in, &buf, &cap))) {
		_swfjob_t key = { 0 }, *j;
		uint64_t size = 0;
		int n, has_size;
		char *save = NULL, *path;

		lineno++;
		while (isspace((unsigned char) *line))
			line++;
		if (!*line || *line == '#')
			continue;
		n = _split(line, tok, 3);
		/* An empty element (",a", "a,", "a,,b") is a typo, not no
		 * file. */
		if (n < 2 || n > 3 || _parse_u32(tok[0], &key.id) ||
		    (n == 3 && dl_wl_parse_size(tok[2], &size)) ||
		    tok[1][0] == ',' || strstr(tok[1], ",,") ||
		    tok[1][strlen(tok[1]) - 1] == ',') {
			_diag(diag, 1,
			      "files line %zu: malformed (want 'JOBID PATH[,PATH...] [SIZE]')",
			      lineno);
			continue;
		}
		has_size = n == 3;
		j = bsearch(&key, jobs, njobs, sizeof(*jobs), _cmp_swf_id);
		if (!j) {
			_diag(diag, 0,
			      "files line %zu: job %u is not in the trace, ignored",
			      lineno, key.id);
			continue;
		}
		j->named = 1;
		/* "JOBID -": the job reads no file, and says so. */
		if (!strcmp(tok[1], "-") && !has_size)
			continue;
		for (path = strtok_r(tok[1], ",", &save); path && rc == 0;
		     path = strtok_r(NULL, ",", &save)) {
			int64_t f = dl_workload_find_file(wl, path);

			if (f < 0) {
				f = dl_workload_add_file(wl, path, size,
							 DL_WL_STORAGE_RR);
				if (f < 0) {
					if (f == DL_ENOMEM) {
						rc = DL_ENOMEM;
						break;
					}
					_diag(diag, 1,
					      "files line %zu: bad path '%s'",
					      lineno, path);
					continue;
				}
				if ((size_t) f >= kcap) {
					size_t ncap = kcap ? kcap * 2 : 1024;
					uint8_t *nk = realloc(*known, ncap);

					if (!nk) {
						rc = DL_ENOMEM;
						break;
					}
					memset(nk + kcap, 0, ncap - kcap);
					*known = nk;
					kcap = ncap;
				}
				(*known)[f] = (uint8_t) has_size;
			} else if (has_size && !(*known)[f]) {
				wl->files[f].size = size;
				(*known)[f] = 1;
			} else if (has_size && wl->files[f].size != size) {
				_diag(diag, 0,
				      "files line %zu: %s was %llu bytes before, size %llu ignored",
				      lineno, path,
				      (unsigned long long) wl->files[f].size,
				      (unsigned long long) size);
			}
			rc = _swf_add_file(j, (uint32_t) f);
		}
	}
	free(buf);
	return rc;
}

/*
 * One SWF record (its n fields in tok) into j.  Field 1: job number, 2:
 * submit, 4: run time, 5: allocated processors, 8: requested processors.
 * \return 1 if taken, 0 if malformed (diagnosed).
 */
static int _swf_record(char **tok, int n, size_t lineno, uint32_t max_cpus,
		       dl_wl_diag_t *diag, _swfjob_t *j)
{
	double v[18];
	int fi;

	for (fi = 0; fi < n; fi++)
		if (_parse_double(tok[fi], &v[fi]))
			break;
	if (fi < n || v[0] < 1 || v[0] > UINT32_MAX || v[0] != floor(v[0])) {
		_diag(diag, 1,
		      "swf line %zu: malformed (bad number or job number)",
		      lineno);
		return 0;
	}
	if (v[1] < 0 || v[1] > DL_WL_TIME_MAX) {
		_diag(diag, 1,
		      "swf line %zu: job %.0f: submit time %g outside [0, %g]",
		      lineno, v[0], v[1], DL_WL_TIME_MAX);
		return 0;
	}
	/* -1 is SWF's "unknown"; other negatives are corrupt. */
	if ((v[3] < 0 && v[3] != -1) || v[3] > DL_WL_TIME_MAX) {
		_diag(diag, 1,
		      "swf line %zu: job %.0f: run time %g neither -1 nor in [0, %g]",
		      lineno, v[0], v[3], DL_WL_TIME_MAX);
		return 0;
	}
	memset(j, 0, sizeof(*j));
	j->id = (uint32_t) v[0];
	j->line = lineno;
	j->submit = v[1];
	j->run = v[3] >= 0 ? v[3] : -1.0;
	j->cpus = v[4] >= 1 ? (uint32_t) fmin(v[4], UINT32_MAX) :
		  (n >= 8 && v[7] >= 1) ? (uint32_t) fmin(v[7], UINT32_MAX) :
					  1;
	if (max_cpus && j->cpus > max_cpus) {
		_diag(diag, 0,
		      "swf line %zu: job %u wants %u processors, a node has %u: cut down",
		      lineno, j->id, j->cpus, max_cpus);
		j->cpus = max_cpus;
	}
	return 1;
}

/* The trace's records into *jobs (*njobs of them; owned by the caller).
 * \return 0 or DL_ENOMEM. */
static int _swf_records(FILE *swf, uint32_t max_cpus, dl_wl_diag_t *diag,
			_swfjob_t **jobs, size_t *njobs)
{
	char *buf = NULL, *line, *tok[19];
	size_t cap = 0, jcap = 0, lineno = 0;
	void *a;
	int rc = 0;

	while ((line = _getline(swf, &buf, &cap))) {
		int n;

		lineno++;
		while (isspace((unsigned char) *line))
			line++;
		if (!*line || *line == ';')
			continue;
		n = _split(line, tok, 18);
		if (n < 5 || n > 18) {
			_diag(diag, 1, "swf line %zu: %d fields (want 5 to 18)",
			      lineno, n);
			continue;
		}
		a = *jobs;
		if ((rc = dl__grow(&a, *njobs, 1, &jcap, sizeof(**jobs), 256)))
			break;
		*jobs = a;
		*njobs += (size_t)_swf_record(tok, n, lineno, max_cpus, diag,
					      &(*jobs)[*njobs]);
	}
	free(buf);
	return rc;
}

/* Jobs sorted by number, the repeats after the first dropped (said).
 * \return how many are left. */
static size_t _swf_dedupe(_swfjob_t *jobs, size_t njobs, dl_wl_diag_t *diag)
{
	size_t i, k;

	qsort(jobs, njobs, sizeof(*jobs), _cmp_swf_id_line);
	for (i = k = 1; i < njobs; i++) {
		if (jobs[i].id == jobs[k - 1].id) {
			_diag(diag, 1,
			      "swf line %zu: job number %u repeated (first on line %zu), dropped",
			      jobs[i].line, jobs[i].id, jobs[k - 1].line);
			free(jobs[i].files);
			continue;
		}
		jobs[k++] = jobs[i];
	}
	return k;
}

/* The jobs into wl, the trace's clock starting at its first submission.
 * \return 0 or DL_ENOMEM. */
static int _swf_jobs(dl_workload_t *wl, const _swfjob_t *jobs, size_t njobs)
{
	double t0 = jobs[0].submit;
	size_t i;

	for (i = 1; i < njobs; i++)
		if (jobs[i].submit < t0)
			t0 = jobs[i].submit;
	for (i = 0; i < njobs; i++) {
		dl_wl_job_t job = { 0 };

		job.id = jobs[i].id;
		job.arrival = jobs[i].submit - t0;
		job.compute = jobs[i].run;
		job.cpus = jobs[i].cpus;
		job.nfiles = jobs[i].nfiles;
		job.files = jobs[i].files;
		if (dl_workload_add_job(wl, &job))
			return DL_ENOMEM;
	}
	return 0;
}

dl_workload_t *dl_workload_read_swf(FILE *swf, FILE *sidecar,
				    uint64_t default_size, uint32_t max_cpus,
				    dl_wl_diag_t *diag)
{
	_swfjob_t *jobs = NULL;
	dl_workload_t *wl = NULL;
	size_t njobs = 0, i;
	uint8_t *known = NULL;
	uint64_t bytes = 0;
	int ok = 0;

	if (!swf || !(wl = dl_workload_create("swf")))
		return NULL;
	if (_swf_records(swf, max_cpus, diag, &jobs, &njobs))
		goto out;
	if (!njobs) {
		_diag(diag, 0, "swf: no job in the trace");
		goto out;
	}
	njobs = _swf_dedupe(jobs, njobs, diag);
	if (sidecar && _read_sidecar(sidecar, wl, jobs, njobs, &known, diag))
		goto out;
	for (i = 0; sidecar && i < njobs; i++)
		if (!jobs[i].named)
			_diag(diag, 1,
			      "swf line %zu: job %u has no line in the files list (write 'JOBID -' for a job without files)",
			      jobs[i].line, jobs[i].id);
	for (i = 0; i < wl->nfiles; i++) {
		if (!known || !known[i])
			wl->files[i].size = default_size;
		/* Sums of sizes (a job's input, the trace's bytes) must not
		 * wrap. */
		if (wl->files[i].size > UINT64_MAX - bytes) {
			_diag(diag, 1,
			      "files: %s brings the files' total past 2^64 bytes",
			      wl->files[i].path);
			goto out;
		}
		bytes += wl->files[i].size;
	}
	if (_swf_jobs(wl, jobs, njobs))
		goto out;
	dl_workload_sort(wl);
	ok = 1;
out:
	for (i = 0; i < njobs; i++)
		free(jobs[i].files);
	free(jobs);
	free(known);
	if (!ok) {
		dl_workload_destroy(wl);
		return NULL;
	}
	return wl;
}

/* Job ids seen by the reader, with their line: open addressing on the id
 * (ids are > 0, so 0 marks an empty slot). */
typedef struct {
	size_t cap, n; /* cap a power of two */
	uint32_t *id;
	size_t *line;
} _idset_t;

/* \return the line id was first seen on, 0 if new (then it is added),
 * or DL_ENOMEM as (size_t) -1. */
static size_t _idset_put(_idset_t *s, uint32_t id, size_t line)
{
	size_t i;

	if ((s->n + 1) * 2 > s->cap) {
		_idset_t ns = { .cap = s->cap ? 2 * s->cap : 1024 };

		ns.id = calloc(ns.cap, sizeof(*ns.id));
		ns.line = calloc(ns.cap, sizeof(*ns.line));
		if (!ns.id || !ns.line) {
			free(ns.id);
			free(ns.line);
			return (size_t) -1;
		}
		for (i = 0; i < s->cap; i++)
			if (s->id[i])
				_idset_put(&ns, s->id[i], s->line[i]);
		free(s->id);
		free(s->line);
		*s = ns;
	}
	for (i = (id * 2654435761u) & (s->cap - 1); s->id[i];
	     i = (i + 1) & (s->cap - 1))
		if (s->id[i] == id)
			return s->line[i];
	s->id[i] = id;
	s->line[i] = line;
	s->n++;
	return 0;
}

/* A job record's numbers: \return 0 if they are sound, else DL_EINVAL
 * with what is wrong in why. */
static int _job_numbers(char **tok, dl_wl_job_t *job, char *why, size_t len)
{
	const char *c = tok[3];

	if (_parse_u32(tok[1], &job->id) || !job->id) {
		snprintf(why, len, "bad job id '%s'", tok[1]);
		return DL_EINVAL;
	}
	if (_parse_double(tok[2], &job->arrival) || job->arrival < 0 ||
	    job->arrival > DL_WL_TIME_MAX) {
		snprintf(why, len, "job %u: arrival '%s' is not in [0, %g] s",
			 job->id, tok[2], DL_WL_TIME_MAX);
		return DL_EINVAL;
	}
	job->compute = -1.0;
	if (strcmp(c, "-") &&
	    (_parse_double(c, &job->compute) || job->compute < 0 ||
	     job->compute > DL_WL_TIME_MAX)) {
		snprintf(why, len,
			 "job %u: compute '%s' is not in [0, %g] s ('-': the cost model)",
			 job->id, c, DL_WL_TIME_MAX);
		return DL_EINVAL;
	}
	if (_parse_u32(tok[4], &job->cpus) || !job->cpus) {
		snprintf(why, len, "job %u: bad cpus '%s'", job->id, tok[4]);
		return DL_EINVAL;
	}
	return 0;
}

/* A file record that was bad: its index is taken, its file is not. */
#define RD_LOST UINT32_MAX

/* dl_workload_read()'s state: the workload so far, the job ids seen
 * (lines of their first record), a file list buffer, and for every file
 * record index its file (or RD_LOST), so that one bad file record is
 * reported once, not again as "index expected" on every later one
 * (owned). */
typedef struct {
	dl_workload_t *wl;
	dl_wl_diag_t *diag;
	_idset_t ids;
	uint32_t *files;
	size_t fcap;
	uint32_t *map; /* [nrec] record index -> file index or RD_LOST */
	size_t nrec, mcap;
	uint64_t bytes; /* sum of the files' sizes so far */
} _rd_t;

/* What is wrong with a file record's SIZE, STORAGE and PATH fields (its
 * index is right), into why; \return 0 if nothing. */
static int _rd_file_why(_rd_t *r, char **tok, uint64_t *size, uint32_t *st,
			char *why, size_t len)
{
	if (dl_wl_parse_size(tok[2], size)) {
		snprintf(why, len, "size '%s' is %s", tok[2],
			 tok[2][0] == '-' ? "negative" :
					    "not a size (bytes, or with K, M, G, T)");
		return 1;
	}
	/* Sums of sizes (a job's input, the trace's bytes) must not wrap. */
	if (*size > UINT64_MAX - r->bytes) {
		snprintf(why, len, "size %s brings the files' total past 2^64 bytes",
			 tok[2]);
		return 1;
	}
	if (strcmp(tok[3], "-") &&
	    (_parse_u32(tok[3], st) || *st > INT32_MAX)) {
		snprintf(why, len, "bad storage node '%s'", tok[3]);
		return 1;
	}
	return 0;
}

/* "file INDEX SIZE STORAGE|- PATH".  \return 0 (taken, or a bad record
 * diagnosed) or DL_ENOMEM. */
static int _rd_file(_rd_t *r, char **tok, size_t lineno)
{
	uint32_t idx, st = 0;
	uint64_t size = 0;
	void *a = r->map;
	char why[160];
	int64_t rc;

	if (_parse_u32(tok[1], &idx) || idx != r->nrec) {
		_diag(r->diag, 1,
		      "workload line %zu: file index '%s' out of order (%zu expected)",
		      lineno, tok[1], r->nrec);
		return 0;
	}
	if (dl__grow(&a, r->nrec, 1, &r->mcap, sizeof(*r->map), 64))
		return DL_ENOMEM;
	r->map = a;
	r->map[r->nrec++] = RD_LOST;
	if (_rd_file_why(r, tok, &size, &st, why, sizeof(why))) {
		_diag(r->diag, 1, "workload line %zu: file %u: %s", lineno, idx,
		      why);
		return 0;
	}
	rc = dl_workload_add_file(r->wl, tok[4], size,
				  strcmp(tok[3], "-") ? (int32_t) st :
							DL_WL_STORAGE_RR);
	if (rc == DL_ENOMEM)
		return DL_ENOMEM;
	if (rc < 0) {
		_diag(r->diag, 1, "workload line %zu: file %u: bad or repeated path",
		      lineno, idx);
		return 0;
	}
	r->map[idx] = (uint32_t) rc;
	r->bytes += size;
	return 0;
}

/* The file list "F,F,...|-" into r->files, *n entries; every element a
 * file record's index ("0," and "0,,1" have an empty one).  \return 0,
 * 1 (a bad element) or DL_ENOMEM. */
static int _rd_files(_rd_t *r, char *list, uint32_t *n)
{
	char *p = list, *end;

	*n = 0;
	if (!strcmp(list, "-"))
		return 0;
	for (; p; p = end ? end + 1 : NULL) {
		void *a = r->files;
		uint32_t f;

		end = strchr(p, ',');
		if (end)
			*end = '\0';
		if (_parse_u32(p, &f) || f >= r->nrec || r->map[f] == RD_LOST)
			return 1;
		if (dl__grow(&a, *n, 1, &r->fcap, sizeof(*r->files), 16))
			return DL_ENOMEM;
		r->files = a;
		r->files[(*n)++] = r->map[f];
	}
	return 0;
}

/* "job ID ARRIVAL COMPUTE|- CPUS FILE,FILE,...|-".  \return 0 (taken,
 * or a bad record diagnosed) or DL_ENOMEM. */
static int _rd_job(_rd_t *r, char **tok, size_t lineno)
{
	dl_wl_job_t job = { 0 };
	char why[160];
	size_t first;
	int bad;

	if (_job_numbers(tok, &job, why, sizeof(why))) {
		_diag(r->diag, 1, "workload line %zu: %s", lineno, why);
		return 0;
	}
	first = _idset_put(&r->ids, job.id, lineno);
	if (first == (size_t) -1)
		return DL_ENOMEM;
	if (first) {
		_diag(r->diag, 1,
		      "workload line %zu: job %u repeated (first on line %zu)",
		      lineno, job.id, first);
		return 0;
	}
	if ((bad = _rd_files(r, tok[5], &job.nfiles)) == DL_ENOMEM)
		return DL_ENOMEM;
	job.files = r->files;
	if (bad || dl_workload_add_job(r->wl, &job))
		_diag(r->diag, 1, "workload line %zu: job %u: bad file list",
		      lineno, job.id);
	return 0;
}

/*
 * The simulator's own format, one record per line, '#' comments:
 *   file INDEX SIZE STORAGE|- PATH
 *   job ID ARRIVAL COMPUTE|- CPUS FILE,FILE,...|-
 * Files come before the jobs that read them, indices 0, 1, 2, ... in order.
 */
dl_workload_t *dl_workload_read(FILE *in, dl_wl_diag_t *diag)
{
	_rd_t r = { .diag = diag };
	char *buf = NULL, *line, *tok[7];
	size_t cap = 0, lineno = 0;
	int rc = 0;

	if (!in || !(r.wl = dl_workload_create("file")))
		return NULL;
	while (!rc && (line = _getline(in, &buf, &cap))) {
		int n;

		lineno++;
		while (isspace((unsigned char) *line))
			line++;
		if (!*line || *line == '#')
			continue;
		n = _split(line, tok, 6);
		if (n == 5 && !strcmp(tok[0], "file"))
			rc = _rd_file(&r, tok, lineno);
		else if (n == 6 && !strcmp(tok[0], "job"))
			rc = _rd_job(&r, tok, lineno);
		else
			_diag(diag, 1,
			      "workload line %zu: not a file or job record",
			      lineno);
	}
	free(r.ids.id);
	free(r.ids.line);
	free(r.files);
	free(r.map);
	free(buf);
	if (rc) {
		dl_workload_destroy(r.wl);
		return NULL;
	}
	dl_workload_sort(r.wl);
	return r.wl;
}

int dl_workload_write(const dl_workload_t *wl, FILE *out, const char *comment)
{
	size_t i, k;

	if (!wl || !out)
		return DL_EINVAL;
	fprintf(out, "# dl-sim workload 1 (doc/workloads.md)\n");
	while (comment && *comment) {
		const char *nl = strchr(comment, '\n');
		int len = nl ? (int) (nl - comment) : (int) strlen(comment);

		fprintf(out, "# %.*s\n", len, comment);
		comment = nl ? nl + 1 : NULL;
	}
	for (i = 0; i < wl->nfiles; i++) {
		const dl_wl_file_t *f = &wl->files[i];

		if (f->storage >= 0)
			fprintf(out, "file %zu %llu %d %s\n", i,
				(unsigned long long) f->size, f->storage,
				f->path);
		else
			fprintf(out, "file %zu %llu - %s\n", i,
				(unsigned long long) f->size, f->path);
	}
	for (i = 0; i < wl->njobs; i++) {
		const dl_wl_job_t *j = &wl->jobs[i];

		/* %.17g: arrivals read back bit for bit, the runs match. */
		fprintf(out, "job %u %.17g ", j->id, j->arrival);
		if (j->compute >= 0)
			fprintf(out, "%.17g", j->compute);
		else
			fputc('-', out);
		fprintf(out, " %u ", j->cpus);
		if (!j->nfiles)
			fputc('-', out);
		for (k = 0; k < j->nfiles; k++)
			fprintf(out, "%s%u", k ? "," : "", j->files[k]);
		fputc('\n', out);
	}
	return ferror(out) ? DL_EIO : 0;
}

/* ---------------------------------------------------------------------- */
/* Names                                                                  */

static const char *const pattern_names[] = {
	[DL_WL_PATTERN_UNIFORM] = "uniform",
	[DL_WL_PATTERN_SEQUENTIAL] = "sequential",
	[DL_WL_PATTERN_GAUSSIAN] = "gaussian",
	[DL_WL_PATTERN_ZIPF] = "zipf",
};

static const char *const arrivals_names[] = {
	[DL_WL_ARRIVALS_POISSON] = "poisson",
	[DL_WL_ARRIVALS_LUBLIN] = "lublin",
	[DL_WL_ARRIVALS_STEPS] = "steps",
	[DL_WL_ARRIVALS_BURST] = "burst",
};

int dl_wl_pattern_from_name(const char *name, dl_wl_pattern_t *out)
{
	size_t i;

	for (i = 0; name && i < sizeof(pattern_names) / sizeof(*pattern_names);
	     i++)
		if (!strcasecmp(name, pattern_names[i])) {
			*out = (dl_wl_pattern_t) i;
			return 0;
		}
	return DL_EINVAL;
}

const char *dl_wl_pattern_name(dl_wl_pattern_t p)
{
	return (size_t) p < sizeof(pattern_names) / sizeof(*pattern_names) ?
		       pattern_names[p] :
		       "?";
}

int dl_wl_arrivals_from_name(const char *name, dl_wl_arrivals_t *out)
{
	size_t i;

	for (i = 0;
	     name && i < sizeof(arrivals_names) / sizeof(*arrivals_names); i++)
		if (!strcasecmp(name, arrivals_names[i])) {
			*out = (dl_wl_arrivals_t) i;
			return 0;
		}
	return DL_EINVAL;
}

const char *dl_wl_arrivals_name(dl_wl_arrivals_t a)
{
	return (size_t) a < sizeof(arrivals_names) / sizeof(*arrivals_names) ?
		       arrivals_names[a] :
		       "?";
}
