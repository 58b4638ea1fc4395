/*
 * poisson.c - a generated stream: Poisson arrivals at a rate over template
 * jobs (submit.h).  The generator is splitmix64, written out here so that
 * a seed gives the same stream on every machine and libc (rand() and
 * random() differ between them, and dl-submit must not need GSL).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dl_error.h"
#include "submit.h"

/* splitmix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number
 * generators", OOPSLA 2014), as in Vigna's reference code. */
static uint64_t _next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, 1) with 53 random bits. */
static double _uniform(uint64_t *state)
{
	return (double)(_next(state) >> 11) * 0x1.0p-53;
}

/* A copy of s with every "%i" replaced by i; NULL stays NULL.  \return 0
 * or DL_ENOMEM. */
static int _subst(const char *s, size_t i, char **out)
{
	char num[24];
	size_t n = 0, len, k;
	const char *p;
	char *r;

	*out = NULL;
	if (!s)
		return 0;
	len = (size_t)snprintf(num, sizeof(num), "%zu", i);
	for (p = s; (p = strstr(p, "%i")); p += 2)
		n++;
	if (!(r = malloc(strlen(s) + n * len + 1)))
		return DL_ENOMEM;
	for (k = 0, p = s; *p;) {
		if (p[0] == '%' && p[1] == 'i') {
			memcpy(r + k, num, len);
			k += len;
			p += 2;
		} else {
			r[k++] = *p++;
		}
	}
	r[k] = '\0';
	*out = r;
	return 0;
}

/* job = templ with its strings substituted for index i. */
static int _instance(const dl_sub_job_t *templ, size_t i, dl_sub_job_t *job)
{
	char *const *src[] = { &templ->name,   &templ->comment,
			       &templ->partition, &templ->array,
			       &templ->output, &templ->error,
			       &templ->chdir,  &templ->nodelist,
			       &templ->uid,    &templ->gid,
			       &templ->wrap,   &templ->script };
	char **dst[] = { &job->name,   &job->comment, &job->partition,
			 &job->array,  &job->output,  &job->error,
			 &job->chdir,  &job->nodelist, &job->uid,
			 &job->gid,    &job->wrap,    &job->script };
	size_t k;

	*job = *templ;
	for (k = 0; k < sizeof(dst) / sizeof(dst[0]); k++)
		*dst[k] = NULL;
	for (k = 0; k < sizeof(dst) / sizeof(dst[0]); k++) {
		if (_subst(*src[k], i, dst[k])) {
			dl_sub_job_clear(job);
			return DL_ENOMEM;
		}
	}
	return 0;
}

int dl_sub_poisson(const dl_sub_job_t *templ, size_t ntempl, double rate,
		   size_t njobs, uint64_t seed, dl_sub_stream_t *s)
{
	uint64_t state = seed;
	double t = 0;
	size_t i;

	memset(s, 0, sizeof(*s));
	if (!templ || !ntempl || !njobs || !(rate > 0) || !isfinite(rate))
		return DL_EINVAL;
	if (!(s->jobs = calloc(njobs, sizeof(*s->jobs))))
		return DL_ENOMEM;
	s->cap = njobs;
	for (i = 0; i < njobs; i++) {
		if (_instance(&templ[i % ntempl], i, &s->jobs[i])) {
			dl_sub_stream_clear(s);
			return DL_ENOMEM;
		}
		s->njobs++;
		s->jobs[i].at = t;
		s->jobs[i].line = 0;
		/* Exponential gaps of mean 1 / rate: inversion of the CDF
		 * (log1p keeps precision for small u). */
		t += -log1p(-_uniform(&state)) / rate;
	}
	return 0;
}
