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
 * A job of k nodes (the agent's, dl_place_multi_t) is judged in the same
 * walk and takes its room on k nodes at once: otherwise every blocked
 * multi-node job counted its wait, whoever the free room would start.
 * What it needs free on a node and what it then takes there are apart
 * (node_need, job.cpus): a --mincpus job of fewer tasks needs more than
 * Slurm 24.11 gives it, and leaves the rest to the jobs behind it.
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
 * Where a job of cpus CPUs starts looking for room: the nodes before
 * first have none left (rem[] only goes down), so a job of at least one
 * CPU finds none there; one of none (a host's zero) may take any node.
 */
static uint32_t _from(uint32_t first, uint32_t cpus)
{
	return cpus ? first : 0;
}

/*
 * Take job k's CPUs from the first node other than cur that it could
 * start on and that still has them in rem[] (what the jobs before it in
 * Slurm's order left), looking from node first on (_from()).  RET 1 if it
 * got them, 0 if not.
 */
static int _take(const dl_state_t *st, size_t k, uint32_t cur, uint32_t *rem,
		 uint32_t first, dl_place_fits_fn fits, const void *arg)
{
	uint32_t n, cpus = st->jobs[k].cpus;

	for (n = _from(first, cpus); n < st->nnodes; n++)
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

/*
 * Slurm's order of two jobs, as dl_state_priority_order() sorts st's:
 * priority first, then earlier submission, then job id.  The multi-node
 * jobs are not in st, so they are sorted and merged with this.
 */
static int _cmp_jobs(const dl_job_t *x, const dl_job_t *y)
{
	if (x->priority != y->priority)
		return x->priority > y->priority ? -1 : 1;
	if (x->arrival != y->arrival)
		return x->arrival < y->arrival ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

static int _cmp_multi(const void *a, const void *b, void *arg)
{
	const dl_place_multi_t *m = arg;

	return _cmp_jobs(&m[*(const size_t *)a].job,
			 &m[*(const size_t *)b].job);
}

/*
 * CPUs a node must have free for multi-node job m to start there: its
 * node_need, never less than what it takes (job.cpus), so that a node's
 * room cannot go below none.
 */
static uint32_t _need(const dl_place_multi_t *m)
{
	return m->node_need > m->job.cpus ? m->node_need : m->job.cpus;
}

/* Whether multi-node job m could start on node n now (dl_place.h). */
static int _multi_can(const dl_state_t *st, const dl_place_multi_t *m,
		      uint32_t n)
{
	const dl_node_t *nd = &st->nodes[n];

	if (m->fits)
		return m->fits[n] != 0;
	return nd->usable && nd->busy + _need(m) <= nd->cpus &&
	       (!m->job.eligible || m->job.eligible[n]);
}

/* Whether m is to be judged: restricted to a set of k nodes of st. */
static int _multi_judged(const dl_state_t *st, const dl_place_multi_t *m)
{
	uint32_t i;

	if (!m->set || !m->k)
		return 0;
	for (i = 0; i < m->k; i++)
		if (m->set[i] >= st->nnodes)
			return 0;
	return 1;
}

int dl_place_multi_blocked(const dl_state_t *st, const dl_place_multi_t *m)
{
	uint32_t i, n, can = 0;
	int held = 0;

	if (!st || !m || !_multi_judged(st, m))
		return 0;
	for (i = 0; i < m->k && !held; i++)
		held = !_multi_can(st, m, m->set[i]);
	for (n = 0; held && n < st->nnodes && can < m->k; n++)
		can += _multi_can(st, m, n) != 0;
	return held && can >= m->k;
}

/*
 * Take m's CPUs (job.cpus) on each of the first k nodes it could start on
 * that still have its need (_need()) in rem[], all or nothing (Slurm
 * starts it whole or not at all), looking from node first on (_from()).
 * Its own set's nodes that could take it count: the job would run on them
 * too.  RET 1 if it got them, 0 if not (rem[] unchanged).
 */
static int _take_multi(const dl_state_t *st, const dl_place_multi_t *m,
		       uint32_t *rem, uint32_t first)
{
	uint32_t n, got = 0, need = _need(m);

	for (n = _from(first, need); n < st->nnodes && got < m->k; n++)
		got += rem[n] >= need && _multi_can(st, m, n);
	if (got < m->k)
		return 0;
	for (n = _from(first, need), got = 0; n < st->nnodes && got < m->k;
	     n++)
		if (rem[n] >= need && _multi_can(st, m, n)) {
			rem[n] -= m->job.cpus;
			got++;
		}
	return 1;
}

/*
 * The blocked multi-node jobs (indices into multi), in Slurm's order;
 * RET count, DL_EINVAL for an invalid entry, or DL_ENOMEM.
 */
static int64_t _blocked_multi(const dl_state_t *st,
			      const dl_place_multi_t *multi, size_t nmulti,
			      size_t **out)
{
	size_t i, m = 0, *b = malloc((nmulti ? nmulti : 1) * sizeof(*b));

	if (!b)
		return DL_ENOMEM;
	for (i = 0; i < nmulti; i++) {
		if (multi[i].set && !_multi_judged(st, &multi[i])) {
			free(b);
			return DL_EINVAL;
		}
		if (dl_place_multi_blocked(st, &multi[i]))
			b[m++] = i;
	}
	/* glibc's qsort_r: the comparator needs the array. */
	qsort_r(b, m, sizeof(*b), _cmp_multi, (void *)multi);
	*out = b;
	return (int64_t)m;
}

/* The free CPUs of st's usable nodes into rem[]; RET their sum. */
static uint64_t _free_cpus(const dl_state_t *st, uint32_t *rem)
{
	uint64_t left = 0;
	uint32_t n;

	for (n = 0; n < st->nnodes; n++) {
		const dl_node_t *nd = &st->nodes[n];

		if (nd->usable && nd->cpus > nd->busy)
			left += rem[n] = nd->cpus - nd->busy;
	}
	return left;
}

/* The two sorted lists of blocked jobs and what the walk needs. */
typedef struct {
	const dl_state_t *st;
	const int32_t *node;
	const dl_place_multi_t *multi;
	dl_place_fits_fn fits;
	const void *arg;
	uint32_t *rem;          /* free CPUs per node left by the walk */
	uint64_t left;          /* sum of rem[] */
	/*
	 * rem[n] is 0 for every n < first: each job's search for room
	 * starts there.  From node 0, the searches of a walk cost blocked
	 * jobs x nodes: at 1,024 nodes 19% of a paced dl-sim run.
	 */
	uint32_t first;
} walk_t;

/* Move w->first past the nodes with no room left. */
static void _first(walk_t *w)
{
	while (w->first < w->st->nnodes && !w->rem[w->first])
		w->first++;
}

/* One blocked job of st (k) or multi-node job (multi[i]): RET 1 if it
 * got its room. */
static int _walk_one(walk_t *w, int multi, size_t k)
{
	const dl_state_t *st = w->st;
	const dl_place_multi_t *m = multi ? &w->multi[k] : NULL;
	uint64_t need, take;

	if (m) {
		need = (uint64_t)m->k * _need(m);
		take = (uint64_t)m->k * m->job.cpus;
		/* Once the room is gone, no node need be looked at. */
		if (w->left < need || !_take_multi(st, m, w->rem, w->first))
			return 0;
	} else {
		need = take = st->jobs[k].cpus;
		if (w->left < need ||
		    !_take(st, k, (uint32_t)w->node[k], w->rem, w->first,
			   w->fits, w->arg))
			return 0;
	}
	w->left -= take;
	_first(w);
	return 1;
}

/*
 * Walk both lists merged in Slurm's order: each job takes its room or is
 * over (q->over of st's job k, or of multi-node job njobs + i).
 */
static void _walk(walk_t *w, const size_t *b, size_t nb, const size_t *mb,
		  size_t nmb, dl_place_quota_t *q)
{
	size_t i = 0, j = 0, k;
	int multi;

	while (i < nb || j < nmb) {
		multi = i == nb ||
			(j < nmb && _cmp_jobs(&w->multi[mb[j]].job,
					      &w->st->jobs[b[i]]) < 0);
		k = multi ? mb[j++] : b[i++];
		if (_walk_one(w, multi, k))
			q->counted++;
		else
			q->over[multi ? q->njobs + k : k] = 1;
	}
}

int dl_place_quota_multi(const dl_state_t *st, const int32_t *node,
			 const dl_place_multi_t *multi, size_t nmulti,
			 const dl_place_room_t *room, dl_place_fits_fn fits,
			 const void *arg, dl_place_quota_t *q)
{
	walk_t w = { st, node, multi, fits, arg, NULL, 0, 0 };
	size_t *b = NULL, *mb = NULL;
	int64_t nb, nmb;

	if (!q)
		return DL_EINVAL;
	memset(q, 0, sizeof(*q));
	if (!st || !node || !room || (nmulti && !multi))
		return DL_EINVAL;
	if ((nb = _blocked_jobs(st, node, room, fits, arg, &b)) < 0)
		return (int)nb;
	if ((nmb = _blocked_multi(st, multi, nmulti, &mb)) < 0) {
		free(b);
		return (int)nmb;
	}
	w.rem = calloc(st->nnodes ? st->nnodes : 1, sizeof(*w.rem));
	q->over = calloc(st->njobs + nmulti ? st->njobs + nmulti : 1, 1);
	if (!w.rem || !q->over) {
		free(b);
		free(mb);
		free(w.rem);
		dl_place_quota_free(q);
		return DL_ENOMEM;
	}
	q->njobs = st->njobs;
	q->nmulti = nmulti;
	q->blocked = (size_t)nb + (size_t)nmb;
	w.left = _free_cpus(st, w.rem);
	_first(&w);
	_walk(&w, b, (size_t)nb, mb, (size_t)nmb, q);
	free(b);
	free(mb);
	free(w.rem);
	return 0;
}

int dl_place_quota(const dl_state_t *st, const int32_t *node,
		   const dl_place_room_t *room, dl_place_fits_fn fits,
		   const void *arg, dl_place_quota_t *q)
{
	return dl_place_quota_multi(st, node, NULL, 0, room, fits, arg, q);
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

int dl_place_quota_multi_over(const dl_place_quota_t *q, size_t i)
{
	return q && q->over && i < q->nmulti && q->over[q->njobs + i];
}
