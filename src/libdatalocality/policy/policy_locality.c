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
#include <string.h>

#include "dl_error.h"
#include "dl_cache.h"
#include "dl_policy.h"
#include "mintree.h"

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

/*
 * Where each file is, or will be once the jobs planned so far ran: the
 * nodes caching it (the tracker's holder list) and the nodes it was
 * planned to (a file -> list of nodes map), so that a job's bytes on every
 * node cost one pass over its files' holders, not a lookup per node and
 * file (the guard of online-hps runs this plan at every event).
 */
typedef struct {
	uint32_t node, next; /* next: entry index + 1, 0 = end */
} _ent_t;

typedef struct {
	uint32_t *key;   /* file + 1, 0 = empty */
	uint32_t *head;  /* entry index + 1 */
	size_t cap, count;
	_ent_t *ent;
	size_t nent, capent;
} _planned_t;

static size_t _pslot(const _planned_t *m, uint32_t file)
{
	size_t i = ((size_t)file * 0x9e3779b1u) & (m->cap - 1);

	while (m->key[i] && m->key[i] != file + 1)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static uint32_t _phead(const _planned_t *m, uint32_t file)
{
	size_t i;

	if (!m->cap)
		return 0;
	i = _pslot(m, file);
	return m->key[i] ? m->head[i] : 0;
}

static int _pgrow(_planned_t *m)
{
	_planned_t n = *m;
	size_t k;

	n.cap = m->cap ? m->cap * 2 : 64;
	n.key = calloc(n.cap, sizeof(*n.key));
	n.head = calloc(n.cap, sizeof(*n.head));
	if (!n.key || !n.head) {
		free(n.key);
		free(n.head);
		return DL_ENOMEM;
	}
	for (k = 0; k < m->cap; k++)
		if (m->key[k]) {
			size_t i = _pslot(&n, m->key[k] - 1);

			n.key[i] = m->key[k];
			n.head[i] = m->head[k];
		}
	free(m->key);
	free(m->head);
	*m = n;
	return 0;
}

static int _padd(_planned_t *m, uint32_t file, uint32_t node)
{
	size_t i;

	if ((m->count + 1) * 2 > m->cap && _pgrow(m))
		return DL_ENOMEM;
	if (m->nent == m->capent) {
		size_t c = m->capent ? m->capent * 2 : 64;
		_ent_t *e = realloc(m->ent, c * sizeof(*e));

		if (!e)
			return DL_ENOMEM;
		m->ent = e;
		m->capent = c;
	}
	i = _pslot(m, file);
	m->count += !m->key[i];
	m->key[i] = file + 1;
	m->ent[m->nent].node = node;
	m->ent[m->nent].next = m->head[i];
	m->head[i] = (uint32_t)++m->nent;
	return 0;
}

static void _pfree(_planned_t *m)
{
	free(m->key);
	free(m->head);
	free(m->ent);
}

/* Whether node is already in file's list of planned nodes. */
static int _planned_on(const _planned_t *m, uint32_t file, uint32_t node)
{
	uint32_t e;

	for (e = _phead(m, file); e; e = m->ent[e - 1].next)
		if (m->ent[e - 1].node == node)
			return 1;
	return 0;
}

typedef struct {
	uint64_t *bytes;  /* [nnodes] j's bytes on each node */
	uint32_t *mark;   /* [nnodes] last file pass that counted the node */
	uint32_t *hold;   /* [nnodes] holder list buffer */
	uint32_t *touch;  /* [nnodes] nodes holding some of j's files */
	uint8_t *in;      /* [nnodes] whether a node is in touch */
	uint32_t *cand;   /* [nnodes] _choose()'s eligible nodes */
	uint32_t ntouch, pass;
} _scratch_t;

static void _count(_scratch_t *w, uint32_t node, uint64_t b)
{
	if (w->mark[node] == w->pass)
		return; /* cached and planned there: once */
	w->mark[node] = w->pass;
	/* Listed once even if its files are empty (bytes stay 0). */
	if (!w->in[node]) {
		w->in[node] = 1;
		w->touch[w->ntouch++] = node;
	}
	w->bytes[node] += b;
}

/* Forget the last job's bytes (the touched nodes only). */
static void _untouch(_scratch_t *w)
{
	while (w->ntouch) {
		uint32_t k = w->touch[--w->ntouch];

		w->bytes[k] = 0;
		w->in[k] = 0;
	}
}

/* w->bytes[k]: j's bytes cached on k or planned there. */
static void _job_bytes(const dl_state_t *st, const _planned_t *pl,
		       const dl_job_t *j, _scratch_t *w)
{
	uint32_t f, h, n, e;

	for (f = 0; f < j->nfiles; f++) {
		uint64_t b = dl_file_bytes(st, j->files[f]);

		if (!++w->pass) { /* wrapped: forget every mark */
			memset(w->mark, 0, st->nnodes * sizeof(*w->mark));
			w->pass = 1;
		}
		n = dl_cache_holders(st->cache, j->files[f], w->hold,
				     st->nnodes);
		for (h = 0; h < n && h < st->nnodes; h++)
			if (w->hold[h] < st->nnodes)
				_count(w, w->hold[h], b);
		for (e = _phead(pl, j->files[f]); e; e = pl->ent[e - 1].next)
			_count(w, pl->ent[e - 1].node, b);
	}
}

/*
 * The node locality picks for j, or -1 (none eligible).
 * cand: [nnodes] scratch for the eligible nodes.
 */
static int32_t _choose(const locality_t *l, const dl_state_t *st,
		       const dl_job_t *j, const double *load,
		       const uint64_t *bytes, uint32_t *cand)
{
	double min_load = -1;
	uint64_t best_bytes = 0;
	int32_t best = -1;
	uint32_t k, n = 0, c;

	/* The eligible nodes, in order (a pinned job's one at once). */
	for (k = dl_state_job_next(st, j, 0); k < st->nnodes;
	     k = dl_state_job_next(st, j, k + 1)) {
		if (!dl_state_job_eligible(st, j, k))
			continue;
		cand[n++] = k;
		if (min_load < 0 || load[k] < min_load)
			min_load = load[k];
	}
	for (c = 0; c < n; c++) {
		k = cand[c];
		if (load[k] > min_load + l->slack)
			continue;
		/* Most bytes wins; then the lighter node; then index. */
		if (best < 0 || bytes[k] > best_bytes ||
		    (bytes[k] == best_bytes && load[k] < load[best])) {
			best = (int32_t)k;
			best_bytes = bytes[k];
		}
	}
	return best;
}

/*
 * _choose() for a one-CPU job any usable node may run (most jobs), without
 * a scan of every node: the least loaded usable node from lt (the loads
 * of the usable nodes; ties to the lowest index), and among the nodes
 * holding some of j's files (w->touch) the one _choose() would prefer to
 * it.  Only a node with bytes of j can beat the least loaded one there.
 */
static int32_t _choose_one(const locality_t *l, const dl_state_t *st,
			   const double *load, const _scratch_t *w,
			   const dl__mintree_t *lt)
{
	int64_t m = dl__mintree_argmin(lt, UINT32_MAX);
	uint64_t best_bytes = 0;
	int32_t best = -1;
	uint32_t t;

	if (m < 0)
		return -1;
	for (t = 0; t < w->ntouch; t++) {
		uint32_t k = w->touch[t];
		uint64_t b = w->bytes[k];

		if (!st->nodes[k].usable || load[k] > load[m] + l->slack ||
		    !b)
			continue;
		/* _choose()'s order: bytes, then load, then index. */
		if (best < 0 || b > best_bytes ||
		    (b == best_bytes &&
		     (load[k] < load[best] ||
		      (load[k] == load[best] && k < (uint32_t)best)))) {
			best = (int32_t)k;
			best_bytes = b;
		}
	}
	return best >= 0 ? best : (int32_t)m;
}

static int _plan(void *priv, const dl_state_t *st, dl_plan_t *plan)
{
	locality_t *l = priv;
	_planned_t planned = { 0 };
	size_t nn = st->nnodes ? st->nnodes : 1, *idx = NULL, n = 0, i;
	_scratch_t w = { 0 };
	dl__mintree_t lt = { 0 };
	double *load = calloc(nn, sizeof(*load));
	uint32_t k, f;
	int rc = DL_ENOMEM;

	w.bytes = calloc(nn, sizeof(*w.bytes));
	w.mark = calloc(nn, sizeof(*w.mark));
	w.hold = malloc(nn * sizeof(*w.hold));
	w.touch = malloc(nn * sizeof(*w.touch));
	w.in = calloc(nn, 1);
	w.cand = malloc(nn * sizeof(*w.cand));
	if (!load || !w.bytes || !w.mark || !w.hold || !w.touch || !w.in ||
	    !w.cand || dl__mintree_init(&lt, st->nnodes) ||
	    dl_state_priority_order(st, &idx, &n))
		goto out;
	for (i = 0; i < st->njobs; i++)
		if (st->jobs[i].state == DL_JOB_RUNNING)
			load[st->jobs[i].node] += st->jobs[i].cpus;
	for (k = 0; k < st->nnodes; k++) {
		load[k] /= st->nodes[k].cpus;
		if (st->nodes[k].usable)
			dl__mintree_set(&lt, k, load[k]);
	}
	rc = 0;
	for (i = 0; i < n && !rc; i++) {
		const dl_job_t *j = &st->jobs[idx[i]];
		int32_t best;

		if (!j->nfiles)
			continue; /* no data: no preference, runs anywhere */
		_job_bytes(st, &planned, j, &w);
		best = j->cpus == 1 && !j->eligible ?
			       _choose_one(l, st, load, &w, &lt) :
			       _choose(l, st, j, load, w.bytes, w.cand);
		_untouch(&w);
		if (best < 0)
			continue; /* no node can take it now */
		plan->a[idx[i]].node = best;
		load[best] += (double)j->cpus / st->nodes[best].cpus;
		if (st->nodes[best].usable)
			dl__mintree_set(&lt, (uint32_t)best, load[best]);
		for (f = 0; f < j->nfiles && !rc; f++)
			if (!_planned_on(&planned, j->files[f], (uint32_t)best))
				rc = _padd(&planned, j->files[f],
					   (uint32_t)best);
	}
out:
	_pfree(&planned);
	dl__mintree_fini(&lt);
	free(w.bytes);
	free(w.mark);
	free(w.hold);
	free(w.touch);
	free(w.in);
	free(w.cand);
	free(load);
	free(idx);
	return rc;
}

const dl_policy_ops_t dl__policy_locality = {
	.name = "locality",
	.summary = "node holding most of the job's bytes, within a load slack",
	.create = _create,
	.destroy = _destroy,
	.plan = _plan,
};
