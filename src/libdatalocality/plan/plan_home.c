/* plan_home.c - nodes of their own for each large shared file; see
 * plan_home.h. */
#include <stdint.h>
#include <stdlib.h>

#include "dl_cache.h"
#include "dl_error.h"
#include "plan/plan_home.h"
#include "policy/policy_util.h"

#define NO_HOME UINT32_MAX

/* What the pass works on; arrays per node, owned by _home_fini(). */
typedef struct {
	const dl_state_t *st;
	uint32_t *home;  /* the node's home file, NO_HOME: none */
	double *load;    /* slots taken (running, planned) / slots */
	uint64_t large;  /* bytes from which a file is large */
} _home_t;

uint64_t dl__plan_large_bytes(const dl_state_t *st, double large)
{
	double sum = 0;
	uint32_t n, k = 0;

	if (!st || !st->cache)
		return 0;
	for (n = 0; n < st->nnodes; n++) {
		uint64_t c = dl_cache_capacity(st->cache, n);

		if (!st->nodes[n].usable || c == DL_CACHE_UNLIMITED)
			continue;
		sum += (double)c;
		k++;
	}
	return k ? (uint64_t)(large * sum / k) : 0;
}

/* j's anchor: its largest file if large and at least half its input;
 * NO_HOME otherwise. */
static uint32_t _anchor(const _home_t *h, const dl_job_t *j)
{
	uint64_t best = 0, b;
	uint32_t k, f = NO_HOME;

	for (k = 0; k < j->nfiles; k++) {
		b = dl_file_bytes(h->st, j->files[k]);
		if (b > best) {
			best = b;
			f = j->files[k];
		}
	}
	if (f == NO_HOME || best < h->large ||
	    2 * (double)best < (double)dl_job_bytes(h->st, j))
		return NO_HOME;
	return f;
}

/*
 * Homes and loads from what runs and what is cached: a node's home is
 * its first running job's anchor, else the anchor of the first pending
 * job in ord that it caches.  Loads count the running jobs and plan's
 * pending ones.
 */
static void _homes(_home_t *h, const dl_plan_t *plan, const size_t *ord,
		   size_t n)
{
	const dl_state_t *st = h->st;
	uint32_t node, f;
	size_t i;

	for (node = 0; node < st->nnodes; node++) {
		h->home[node] = NO_HOME;
		h->load[node] = st->nodes[node].busy;
	}
	for (i = 0; i < st->njobs; i++) {
		const dl_job_t *j = &st->jobs[i];

		if (j->state == DL_JOB_RUNNING && j->node >= 0 &&
		    (uint32_t)j->node < st->nnodes &&
		    h->home[j->node] == NO_HOME)
			h->home[j->node] = _anchor(h, j);
	}
	for (i = 0; i < n; i++) {
		const dl_job_t *j = &st->jobs[ord[i]];

		h->load[plan->a[ord[i]].node] += j->cpus;
		if ((f = _anchor(h, j)) == NO_HOME)
			continue;
		for (node = 0; node < st->nnodes; node++)
			if (h->home[node] == NO_HOME &&
			    dl_cache_contains(st->cache, node, f))
				h->home[node] = f;
	}
	for (node = 0; node < st->nnodes; node++)
		h->load[node] /= st->nodes[node].cpus ? st->nodes[node].cpus
						       : 1;
}

/* The least loaded eligible usable node of j whose home is f (NO_HOME:
 * homeless), ties to the lowest index; -1: none. */
static int32_t _least(const _home_t *h, const dl_job_t *j, uint32_t f)
{
	int32_t best = -1;
	uint32_t n;

	for (n = 0; n < h->st->nnodes; n++)
		if (h->home[n] == f && dl_state_job_eligible(h->st, j, n) &&
		    (best < 0 || h->load[n] < h->load[best]))
			best = (int32_t)n;
	return best;
}

/* Where j (anchor f, planned on node) goes, per plan_home.h. */
static uint32_t _choose(_home_t *h, const dl_job_t *j, uint32_t f,
			uint32_t node, double slack)
{
	int32_t to;

	if (h->home[node] == f)
		return node;
	to = _least(h, j, f);
	if (to >= 0 && h->load[to] < h->load[node] + slack)
		return (uint32_t)to;
	if (h->home[node] == NO_HOME) {
		h->home[node] = f;
		return node;
	}
	to = _least(h, j, NO_HOME);
	if (to < 0)
		return node;
	h->home[to] = f;
	return (uint32_t)to;
}

static void _walk(_home_t *h, dl_plan_t *plan, const size_t *ord, size_t n,
		  double slack, size_t *moved)
{
	const dl_state_t *st = h->st;
	size_t i;

	for (i = 0; i < n; i++) {
		const dl_job_t *j = &st->jobs[ord[i]];
		uint32_t node = (uint32_t)plan->a[ord[i]].node, to;
		uint32_t f = _anchor(h, j);

		if (f == NO_HOME)
			continue;
		to = _choose(h, j, f, node, slack);
		if (to == node)
			continue;
		h->load[node] -= (double)j->cpus / st->nodes[node].cpus;
		h->load[to] += (double)j->cpus / st->nodes[to].cpus;
		plan->a[ord[i]].node = (int32_t)to;
		(*moved)++;
	}
}

int dl__plan_home(const dl_state_t *st, dl_plan_t *plan, double large,
		  double slack, size_t *moved)
{
	_home_t h = { .st = st };
	size_t *ord = NULL, n = 0, nmoved = 0;
	int rc = DL_ENOMEM;

	if (moved)
		*moved = 0;
	if (!st || !plan || plan->n != st->njobs || !(large > 0))
		return DL_EINVAL;
	if (!st->cache || !st->nnodes ||
	    !(h.large = dl__plan_large_bytes(st, large)))
		return 0;
	h.home = malloc(st->nnodes * sizeof(*h.home));
	h.load = malloc(st->nnodes * sizeof(*h.load));
	if (h.home && h.load && !dl__plan_order(st, plan, &ord, &n)) {
		_homes(&h, plan, ord, n);
		_walk(&h, plan, ord, n, slack, &nmoved);
		rc = 0;
	}
	if (moved)
		*moved = nmoved;
	free(ord);
	free(h.home);
	free(h.load);
	return rc;
}
