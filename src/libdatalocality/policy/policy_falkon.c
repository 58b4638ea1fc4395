/*
 * policy_falkon.c - the task dispatch policies of Falkon's data-aware
 * scheduler (data-diffusion-raicu §3.2 and §4.2).
 *
 * Falkon dispatches one task at a time from its wait queue to an
 * executor; here every plan walks the pending jobs in priority order (the
 * order dl_plan_starts() serves them) and gives each a node or none.  A
 * job's "data on a node" is the bytes of its files the node caches now
 * (dl_cache_bytes_cached(); §3.2 counts files, bytes weigh them by what a
 * miss costs).  A node is "free" for a job when dl_plan_starts() would
 * start the job there now, after the jobs planned before it.
 *
 *   first-available   ignore data: no job gets a node; dl_plan_starts()
 *                     starts them in priority order on the first nodes
 *                     with room (the baseline without data diffusion).
 *   max-cache-hit     the eligible node with the most bytes of the job,
 *                     free or not: a job whose node is busy waits for it
 *                     ("task dispatch is delayed until the executor
 *                     becomes available").  Ties: a free node, then the
 *                     lowest index.  A job whose data no eligible node
 *                     holds has nothing to wait for and gets none (-1):
 *                     "send notification to the next free executor".
 *   max-compute-util  among the eligible nodes free for the job, the one
 *                     with the most bytes of it (ties: lowest index): a
 *                     job never waits while a node it may use is free.
 *                     With none free it gets no node and starts wherever
 *                     a slot frees first.
 *   good-cache-compute  max-compute-util while the CPU utilisation is
 *                     below cpu_threshold, max-cache-hit from there on.
 *                     Utilisation = busy slots / slots of the usable
 *                     nodes (§3.2 counts busy executors), updated as the
 *                     plan fills free slots, as each Falkon dispatch
 *                     does.  Only the first W pending jobs (priority
 *                     order) are placed this way, §3.2's scheduling
 *                     window; the others get no node.
 *
 * Params (good-cache-compute only): cpu_threshold=<0..1> (0.8, as in
 * §5.1), window=<whole number of jobs >= 1> (100 per usable node, as
 * in §5.1).
 */
#include <stdlib.h>

#include "dl_error.h"
#include "dl_policy.h"
#include "policy/policy_util.h"

typedef enum {
	FALKON_FIRST_AVAILABLE = 0,
	FALKON_MAX_CACHE_HIT,
	FALKON_MAX_COMPUTE_UTIL,
	FALKON_GOOD_CACHE_COMPUTE,
} falkon_kind_t;

typedef struct {
	falkon_kind_t kind;
	double cpu_threshold;
	double window;  /* 0: 100 per usable node */
} falkon_t;

static int _create_kind(falkon_kind_t kind, const char *params, void **priv)
{
	falkon_t *f = calloc(1, sizeof(*f));

	if (!f)
		return DL_ENOMEM;
	f->kind = kind;
	f->cpu_threshold = 0.8;
	if (kind == FALKON_GOOD_CACHE_COMPUTE &&
	    (dl_params_double(params, "cpu_threshold", 0.0, 1.0,
			      &f->cpu_threshold) ||
	     dl_params_double(params, "window", 1.0, 4294967295.0,
			      &f->window) ||
	     f->window != (double)(uint64_t)f->window)) {
		free(f);
		return DL_EINVAL;
	}
	*priv = f;
	return 0;
}

static int _create_fa(const char *params, void **priv)
{
	return _create_kind(FALKON_FIRST_AVAILABLE, params, priv);
}

static int _create_mch(const char *params, void **priv)
{
	return _create_kind(FALKON_MAX_CACHE_HIT, params, priv);
}

static int _create_mcu(const char *params, void **priv)
{
	return _create_kind(FALKON_MAX_COMPUTE_UTIL, params, priv);
}

static int _create_gcc(const char *params, void **priv)
{
	return _create_kind(FALKON_GOOD_CACHE_COMPUTE, params, priv);
}

static void _destroy(void *priv)
{
	free(priv);
}

/*
 * The node for j under max-cache-hit (free_only = 0) or max-compute-util
 * (free_only = 1); -1 for none.
 */
static int32_t _pick(const dl_state_t *st, const dl_job_t *j,
		     const dl__room_t *room, int free_only)
{
	uint64_t best_bytes = 0;
	int32_t best = -1;
	int best_free = 0;
	uint32_t n;

	for (n = 0; n < st->nnodes; n++) {
		int fr;
		uint64_t b;

		if (!dl_state_job_eligible(st, j, n))
			continue;
		fr = dl__room_fits(room, n, j->cpus);
		if (free_only && !fr)
			continue;
		b = dl_cache_bytes_cached(st->cache, n, j->files, j->nfiles);
		if (best >= 0 &&
		    (b < best_bytes || (b == best_bytes && fr <= best_free)))
			continue; /* ties keep the lower index */
		best = (int32_t)n;
		best_bytes = b;
		best_free = fr;
	}
	if (!free_only && !best_bytes)
		return -1; /* no data anywhere: the next free node */
	return best;
}

static int _plan(void *priv, const dl_state_t *st, dl_plan_t *plan)
{
	falkon_t *f = priv;
	dl__room_t room;
	uint64_t slots = 0, busy = 0, window = UINT64_MAX;
	size_t *idx = NULL, n = 0, r;
	uint32_t k, usable = 0;
	int rc;

	if ((rc = dl_state_priority_order(st, &idx, &n)))
		return rc;
	if ((rc = dl__room_init(&room, st))) {
		free(idx);
		return rc;
	}
	for (k = 0; k < st->nnodes; k++) {
		if (!st->nodes[k].usable)
			continue;
		usable++;
		slots += st->nodes[k].cpus;
		busy += st->nodes[k].busy < st->nodes[k].cpus ?
				st->nodes[k].busy :
				st->nodes[k].cpus;
	}
	if (f->kind == FALKON_GOOD_CACHE_COMPUTE)
		window = f->window > 0 ? (uint64_t)f->window :
					 100 * (uint64_t)(usable ? usable : 1);
	for (r = 0; r < n; r++) {
		const dl_job_t *j = &st->jobs[idx[r]];
		int free_only = f->kind == FALKON_MAX_COMPUTE_UTIL;
		int32_t node;

		plan->a[idx[r]].order = (double)r;
		plan->a[idx[r]].node = -1;
		if (f->kind == FALKON_FIRST_AVAILABLE || r >= window)
			continue;
		if (f->kind == FALKON_GOOD_CACHE_COMPUTE)
			free_only = slots && (double)busy / (double)slots <
						     f->cpu_threshold;
		node = _pick(st, j, &room, free_only);
		if (node < 0)
			continue;
		plan->a[idx[r]].node = node;
		if (dl__room_fits(&room, (uint32_t)node, j->cpus))
			busy += j->cpus; /* it starts now: utilisation rises */
		dl__room_take(&room, (uint32_t)node, j->cpus);
	}
	dl__room_fini(&room);
	free(idx);
	return 0;
}

const dl_policy_ops_t dl__policy_first_available = {
	.name = "first-available",
	.summary = "Falkon: first free node, data ignored (baseline)",
	.create = _create_fa,
	.destroy = _destroy,
	.plan = _plan,
};

const dl_policy_ops_t dl__policy_max_cache_hit = {
	.name = "max-cache-hit",
	.summary = "Falkon: node caching most of the job's bytes, waits for it",
	.create = _create_mch,
	.destroy = _destroy,
	.plan = _plan,
};

const dl_policy_ops_t dl__policy_max_compute_util = {
	.name = "max-compute-util",
	.summary = "Falkon: free node caching most of the job's bytes",
	.create = _create_mcu,
	.destroy = _destroy,
	.plan = _plan,
};

const dl_policy_ops_t dl__policy_good_cache_compute = {
	.name = "good-cache-compute",
	.summary = "Falkon: compute-util below cpu_threshold, else cache-hit",
	.create = _create_gcc,
	.destroy = _destroy,
	.plan = _plan,
};
