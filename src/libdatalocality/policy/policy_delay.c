/*
 * policy_delay.c - delay scheduling (Zaharia et al., EuroSys 2010): wait
 * a little for a node that holds the job's data before giving up on
 * locality.
 *
 * Every plan walks the pending jobs in priority order.  A job prefers the
 * eligible node caching the most bytes of its files (ties: a node that is
 * free for it now, then the lowest index).  If that node is free for it
 * (dl_plan_starts() would start it there now, after the jobs planned
 * before it), it goes there.  If not, it waits for that node while it has
 * been pending for less than "wait" seconds (st->now - arrival); from
 * then on it has no preference (-1) and starts on any node with room.  A
 * job whose data no eligible node holds has nothing to wait for: -1.
 *
 * While a job waits, jobs behind it may take the other free nodes, which
 * is what makes delay scheduling cheap: only the waiting job pays.
 *
 * Params: wait=<seconds >= 0> (5).
 */
#include <stdlib.h>

#include "dl_error.h"
#include "dl_policy.h"
#include "policy/policy_util.h"

typedef struct {
	double wait;
} delay_t;

static int _create(const char *params, void **priv)
{
	delay_t *d = calloc(1, sizeof(*d));

	if (!d)
		return DL_ENOMEM;
	d->wait = 5.0;
	if (dl_params_double(params, "wait", 0.0, 1e15, &d->wait)) {
		free(d);
		return DL_EINVAL;
	}
	*priv = d;
	return 0;
}

static void _destroy(void *priv)
{
	free(priv);
}

static int _plan(void *priv, const dl_state_t *st, dl_plan_t *plan)
{
	delay_t *d = priv;
	dl__room_t room;
	size_t *idx = NULL, n = 0, r;
	int rc;

	if ((rc = dl_state_priority_order(st, &idx, &n)))
		return rc;
	if ((rc = dl__room_init(&room, st))) {
		free(idx);
		return rc;
	}
	for (r = 0; r < n; r++) {
		const dl_job_t *j = &st->jobs[idx[r]];
		uint64_t best_bytes = 0;
		int32_t best = -1;
		int best_free = 0;
		uint32_t k;

		plan->a[idx[r]].order = (double)r;
		plan->a[idx[r]].node = -1;
		for (k = 0; k < st->nnodes; k++) {
			uint64_t b;
			int fr;

			if (!dl_state_job_eligible(st, j, k))
				continue;
			b = dl_cache_bytes_cached(st->cache, k, j->files,
						  j->nfiles);
			fr = dl__room_fits(&room, k, j->cpus);
			if (!b || b < best_bytes ||
			    (b == best_bytes && fr <= best_free))
				continue;
			best = (int32_t)k;
			best_bytes = b;
			best_free = fr;
		}
		if (best < 0)
			continue; /* no data anywhere: nothing to wait for */
		/* Waited long enough: give up locality, run anywhere. */
		if (!best_free && !(st->now - j->arrival < d->wait))
			continue;
		plan->a[idx[r]].node = best;
		dl__room_take(&room, (uint32_t)best, j->cpus);
	}
	dl__room_fini(&room);
	free(idx);
	return 0;
}

const dl_policy_ops_t dl__policy_delay = {
	.name = "delay",
	.summary = "node caching most of the job's bytes, waited for wait=5 s",
	.create = _create,
	.destroy = _destroy,
	.plan = _plan,
};
