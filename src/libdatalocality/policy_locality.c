/*
 * policy_locality.c - the simplest data-aware policy: send each job to the
 * node that holds (or will hold, once the jobs planned before it ran) most
 * of its bytes, unless that node's queue is already longer than the
 * shortest one by more than "slack" jobs per CPU; then the least loaded.
 *
 * Jobs are planned in priority order, so a job's files count as cached on
 * the node chosen for an earlier job: that is what groups a burst of
 * file-sharing jobs on one node before any of them has run.
 *
 * Params: slack=<jobs per CPU> (default 1).
 */
#include <stdlib.h>

#include "dl_error.h"
#include "dl_policy.h"
#include "u64set.h"

typedef struct {
	double slack;
} locality_t;

static int _create(const char *params, void **priv)
{
	locality_t *l = calloc(1, sizeof(*l));
	int rc;

	if (!l)
		return DL_ENOMEM;
	l->slack = 1.0;
	if ((rc = dl_params_double(params, "slack", 0, 1e9, &l->slack))) {
		free(l);
		return rc;
	}
	*priv = l;
	return 0;
}

static void _destroy(void *priv)
{
	free(priv);
}

static int _plan(void *priv, const dl_state_t *st, dl_plan_t *plan)
{
	locality_t *l = priv;
	dl__u64set_t planned; /* (node << 32 | file) fetched by planned jobs */
	double *load;
	size_t *idx, n, i;
	uint32_t k;
	int rc = 0;

	load = calloc(st->nnodes ? st->nnodes : 1, sizeof(*load));
	if (dl_state_priority_order(st, &idx, &n))
		idx = NULL;
	if (!load || !idx) {
		free(load);
		free(idx);
		return DL_ENOMEM;
	}
	dl__u64set_init(&planned);
	for (i = 0; i < st->njobs; i++)
		if (st->jobs[i].state == DL_JOB_RUNNING)
			load[st->jobs[i].node] += st->jobs[i].cpus;
	for (k = 0; k < st->nnodes; k++)
		load[k] /= st->nodes[k].cpus;

	for (i = 0; i < n && rc >= 0; i++) {
		const dl_job_t *j = &st->jobs[idx[i]];
		double min_load = -1;
		uint64_t best_bytes = 0;
		int32_t best = -1;
		uint32_t f;

		if (!j->nfiles)
			continue; /* no data: no preference, runs anywhere */
		for (k = 0; k < st->nnodes; k++)
			if (dl_state_job_eligible(st, j, k) &&
			    (min_load < 0 || load[k] < min_load))
				min_load = load[k];
		if (min_load < 0)
			continue; /* no node can take it now */
		for (k = 0; k < st->nnodes; k++) {
			uint64_t bytes = 0;

			if (!dl_state_job_eligible(st, j, k) ||
			    load[k] > min_load + l->slack)
				continue;
			for (f = 0; f < j->nfiles; f++)
				if (dl_cache_contains(st->cache, k, j->files[f]) ||
				    dl__u64set_has(&planned,
						   ((uint64_t)k << 32) |
							   j->files[f]))
					bytes += dl_file_bytes(st, j->files[f]);
			/* Most bytes wins; then the lighter node; then index. */
			if (best < 0 || bytes > best_bytes ||
			    (bytes == best_bytes && load[k] < load[best])) {
				best = (int32_t)k;
				best_bytes = bytes;
			}
		}
		plan->a[idx[i]].node = best;
		load[best] += (double)j->cpus / st->nodes[best].cpus;
		for (f = 0; f < j->nfiles && rc >= 0; f++)
			rc = dl__u64set_add(&planned,
					    ((uint64_t)best << 32) | j->files[f]);
	}
	dl__u64set_fini(&planned);
	free(load);
	free(idx);
	return rc < 0 ? rc : 0;
}

const dl_policy_ops_t dl__policy_locality = {
	.name = "locality",
	.summary = "node holding most of the job's bytes, within a load slack",
	.create = _create,
	.destroy = _destroy,
	.plan = _plan,
};
