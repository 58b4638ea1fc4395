/*
 * quota.c - the blocked-job quota of the placement rule; see dl_place.h
 * (dl_place_quota()).
 *
 * Why: a restricted job's wait counts while its node is full and another
 * node it may use has room.  When one node frees with nobody restricted
 * to it, every job restricted to a busy node is "blocked" at once, and
 * all reach their bound together: 205-495 of 800 jobs were widened in one
 * instant on biomed-high at 64 nodes (doc/experiments/robustness-issue30.md).
 * Backfill would start only the first jobs (in its order) that fit the
 * free room; the jobs behind them would wait under backfill too, so our
 * restriction holds them back from nothing and their wait must not count.
 */
#include <stdlib.h>
#include <string.h>

#include "dl_error.h"
#include "dl_place.h"

/* Whether job k could start on node n now: CPUs, eligibility (the
 * library's test), or the host's own (memory, GRES, state). */
static int _can(const dl_state_t *st, size_t k, uint32_t n,
		dl_place_fits_fn fits, const void *arg)
{
	const dl_job_t *j = &st->jobs[k];
	const dl_node_t *nd = &st->nodes[n];

	if (nd->usable && nd->busy + j->cpus <= nd->cpus &&
	    dl_state_job_eligible(st, j, n))
		return 1;
	return fits && fits(arg, st, k, n);
}

/* Whether job k, restricted to node cur, is blocked now (dl_place.h). */
static int _blocked(const dl_state_t *st, size_t k, uint32_t cur,
		    const dl_place_room_t *room, dl_place_fits_fn fits,
		    const void *arg)
{
	uint32_t n;

	if (dl_place_blocked_free(st, &st->jobs[k], cur, room))
		return 1;
	if (!fits || fits(arg, st, k, cur))
		return 0;
	for (n = 0; n < st->nnodes; n++)
		if (n != cur && fits(arg, st, k, n))
			return 1;
	return 0;
}

/*
 * Take job k's CPUs from the first node other than cur that it could
 * start on and that still has them in rem[] (what the jobs before it in
 * Slurm's order left).  RET 1 if it got them, 0 if not.
 */
static int _take(const dl_state_t *st, size_t k, uint32_t cur, uint32_t *rem,
		 dl_place_fits_fn fits, const void *arg)
{
	uint32_t n, cpus = st->jobs[k].cpus;

	for (n = 0; n < st->nnodes; n++)
		if (n != cur && rem[n] >= cpus && _can(st, k, n, fits, arg)) {
			rem[n] -= cpus;
			return 1;
		}
	return 0;
}

/*
 * The blocked jobs of st (indices), in Slurm's order (priority, then
 * submission, then job id: dl_state_priority_order()); RET count or <0.
 */
static int64_t _blocked_jobs(const dl_state_t *st, const int32_t *node,
			     const dl_place_room_t *room,
			     dl_place_fits_fn fits, const void *arg,
			     size_t **out)
{
	size_t i, k, n, m = 0, *b;
	int rc;

	if ((rc = dl_state_priority_order(st, &b, &n)))
		return rc;
	/* Filtered in place: the order stays. */
	for (i = 0; i < n; i++) {
		k = b[i];
		if (node[k] >= 0 && (uint32_t)node[k] < st->nnodes &&
		    _blocked(st, k, (uint32_t)node[k], room, fits, arg))
			b[m++] = k;
	}
	*out = b;
	return (int64_t)m;
}

int dl_place_quota(const dl_state_t *st, const int32_t *node,
		   const dl_place_room_t *room, dl_place_fits_fn fits,
		   const void *arg, dl_place_quota_t *q)
{
	size_t *b = NULL, i;
	uint64_t left = 0; /* sum of rem[] */
	uint32_t *rem, n;
	int64_t nb;

	if (!q)
		return DL_EINVAL;
	memset(q, 0, sizeof(*q));
	if (!st || !node || !room)
		return DL_EINVAL;
	if ((nb = _blocked_jobs(st, node, room, fits, arg, &b)) < 0)
		return (int)nb;
	q->blocked = (size_t)nb;
	rem = calloc(st->nnodes ? st->nnodes : 1, sizeof(*rem));
	q->over = calloc(st->njobs ? st->njobs : 1, 1);
	if (!rem || !q->over) {
		free(b);
		free(rem);
		dl_place_quota_free(q);
		return DL_ENOMEM;
	}
	q->njobs = st->njobs;
	for (n = 0; n < st->nnodes; n++)
		if (st->nodes[n].usable && st->nodes[n].cpus > st->nodes[n].busy)
			left += rem[n] = st->nodes[n].cpus - st->nodes[n].busy;
	for (i = 0; i < (size_t)nb; i++) {
		uint32_t cpus = st->jobs[b[i]].cpus;

		/* Once the room is gone, no node need be looked at. */
		if (left >= cpus &&
		    _take(st, b[i], (uint32_t)node[b[i]], rem, fits, arg)) {
			q->counted++;
			left -= cpus;
		} else {
			q->over[b[i]] = 1;
		}
	}
	free(b);
	free(rem);
	return 0;
}

void dl_place_quota_free(dl_place_quota_t *q)
{
	if (!q)
		return;
	free(q->over);
	memset(q, 0, sizeof(*q));
}

int dl_place_quota_over(const dl_place_quota_t *q, size_t job)
{
	return q && q->over && job < q->njobs && q->over[job];
}
