/*
 * plan_guard.c - the greedy plan beside the policy's, and the better of
 * the two by a cost model with finite (LRU) caches.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dl_cache.h"
#include "dl_cost.h"
#include "dl_error.h"
#include "dl_place.h"
#include "mintree.h"
#include "plan/plan_guard.h"
#include "policy/policy_util.h"
#include "u64set.h"

/* ------------------------------------------------------------------ */
/* (node, file) -> when it was last read there, in bytes fetched there */

typedef struct {
	uint64_t *key; /* key + 1, 0 = empty */
	double *val;
	size_t cap;    /* power of two */
	size_t count;
} _stamps_t;

static size_t _slot(const _stamps_t *m, uint64_t key)
{
	uint64_t x = key;
	size_t i;

	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	for (i = (size_t)x & (m->cap - 1); m->key[i] && m->key[i] != key + 1;
	     i = (i + 1) & (m->cap - 1))
		;
	return i;
}

/* Room for one more key: the table doubles when it would pass half
 * full.  \return 0 or DL_ENOMEM. */
static int _stamp_room(_stamps_t *m)
{
	_stamps_t n = { 0 };
	size_t i, k;

	if ((m->count + 1) * 2 <= m->cap)
		return 0;
	n.cap = m->cap ? m->cap * 2 : 64;
	n.key = calloc(n.cap, sizeof(*n.key));
	n.val = malloc(n.cap * sizeof(*n.val));
	if (!n.key || !n.val) {
		free(n.key);
		free(n.val);
		return DL_ENOMEM;
	}
	for (k = 0; k < m->cap; k++)
		if (m->key[k]) {
			i = _slot(&n, m->key[k] - 1);
			n.key[i] = m->key[k];
			n.val[i] = m->val[k];
		}
	n.count = m->count;
	free(m->key);
	free(m->val);
	*m = n;
	return 0;
}

/* key's stamp is val, at its slot i (_slot()). */
static void _stamp_put(_stamps_t *m, size_t i, uint64_t key, double val)
{
	m->count += !m->key[i];
	m->key[i] = key + 1;
	m->val[i] = val;
}

static void _stamps_fini(_stamps_t *m)
{
	free(m->key);
	free(m->val);
}

/* Empty m, keeping its room: one table serves estimate after estimate. */
static void _stamps_clear(_stamps_t *m)
{
	if (m->cap)
		memset(m->key, 0, m->cap * sizeof(*m->key));
	m->count = 0;
}

/* ------------------------------------------------------------------ */
/* the estimate                                                         */

typedef struct {
	const dl_state_t *st;
	_stamps_t *stamps; /* the keys this estimate read; the caller's */
	double *fetched; /* [nnodes] bytes fetched to each node so far */
	double *sfree;   /* [nstorage] when each storage node is free */
} _model_t;

/*
 * LRU: file (bytes b) is still on node if it and everything fetched there
 * since it was last read fit in the node's cache.  A file cached now, or
 * read by a running job (the state's index of those reads, consulted
 * rather than copied into every estimate), counts as read as the
 * estimate begins.  s: its stamp, or -1 if it has none.
 */
static int _held(const _model_t *m, uint32_t node, uint32_t file, uint64_t b,
		 double s)
{
	uint64_t cap = dl_cache_capacity(m->st->cache, node);

	if (s < 0)
		s = dl_cache_contains(m->st->cache, node, file) ||
				    dl_state_node_reads(m->st, node, file) ?
			    0 :
			    -1;
	if (s < 0)
		return 0;
	return cap == DL_CACHE_UNLIMITED ||
	       m->fetched[node] - s + (double)b <= (double)cap;
}

/* j's files on node: fetch what is not held from t; \return when staged. */
static double _stage(_model_t *m, const dl_job_t *j, uint32_t node, double t,
		     int *err)
{
	_stamps_t *sm = m->stamps;
	uint32_t k;

	for (k = 0; k < j->nfiles; k++) {
		uint32_t f = j->files[k], s;
		uint64_t b = dl_file_bytes(m->st, f), key = dl__nf_key(node, f);
		size_t i;

		if (_stamp_room(sm)) { /* then one probe reads and writes */
			*err = DL_ENOMEM;
			return t;
		}
		i = _slot(sm, key);
		if (!_held(m, node, f, b, sm->key[i] ? sm->val[i] : -1)) {
			s = dl_cost_storage_of(m->st, f);
			if (m->sfree[s] > t)
				t = m->sfree[s];
			t += dl_cost_transfer_time(m->st, b);
			m->sfree[s] = t;
			m->fetched[node] += (double)b;
		}
		_stamp_put(sm, i, key, m->fetched[node]);
	}
	return t;
}

/* A job's last dl_place_bound(): the two plans an estimate compares give
 * most jobs the same node. */
typedef struct {
	uint32_t node; /* node + 1, 0 = none yet */
	double bound;
} _bound_t;

/*
 * Where and when j, planned on *node from start, starts if the host's
 * placement rule is modelled (pp): a job whose node is busy waits there
 * only its bound (dl_place_bound()), then takes the eligible node that
 * frees first.
 */
static double _widen(const dl_state_t *st, const dl__queues_t *q,
		     const dl__mintree_t *free1, const dl_job_t *j,
		     uint32_t *node, double start,
		     const dl_place_params_t *pp, _bound_t *memo)
{
	double bound, best = start;
	uint32_t k, to = *node;
	int64_t i;

	if (!pp || pp->strict || start <= pp->min_wait)
		return start; /* no bound is below min_wait */
	if (memo->node != *node + 1) {
		memo->node = *node + 1;
		memo->bound = dl_place_bound(st, j, *node, pp);
	}
	bound = memo->bound;
	if (start <= bound)
		return start;
	if (j->cpus == 1 && !j->eligible) {
		/* The scan below, from the queues' tree: the first node
		 * free by the bound, else the first to free. */
		if ((i = dl__mintree_first_le(free1, bound, *node)) >= 0) {
			*node = (uint32_t)i;
			return bound;
		}
		i = dl__mintree_argmin(free1, *node);
		if (i >= 0 && dl__mintree_get(free1, (uint32_t)i) < start) {
			*node = (uint32_t)i;
			return dl__mintree_get(free1, (uint32_t)i);
		}
		return start;
	}
	/*
	 * Only the nodes j's list allows, found by dl_state_job_next(): a
	 * job the host pinned allows one, and this ran for every pinned job
	 * of every estimate (a fifth of dl-sim's CPU at 1,024 nodes).
	 */
	for (k = dl_state_job_next(st, j, 0); k < st->nnodes;
	     k = dl_state_job_next(st, j, k + 1)) {
		double t;

		if (k == *node || !dl_state_job_eligible(st, j, k))
			continue;
		t = dl__queues_start(q, k, j->cpus);
		if (t < bound)
			t = bound;
		if (t < best) {
			best = t;
			to = k;
		}
	}
	*node = to;
	return best;
}

/* A copy of src (same state) in dst. */
static int _queues_copy(dl__queues_t *dst, const dl__queues_t *src)
{
	size_t nslots = src->off[src->n], nn = src->n ? src->n : 1;

	memset(dst, 0, sizeof(*dst));
	dst->slot = malloc((nslots ? nslots : 1) * sizeof(*dst->slot));
	dst->off = malloc(((size_t)src->n + 1) * sizeof(*dst->off));
	dst->last_start = malloc(nn * sizeof(*dst->last_start));
	dst->ready = malloc(nn * sizeof(*dst->ready));
	if (!dst->slot || !dst->off || !dst->last_start || !dst->ready) {
		dl__queues_fini(dst);
		return DL_ENOMEM;
	}
	memcpy(dst->slot, src->slot, nslots * sizeof(*dst->slot));
	memcpy(dst->off, src->off, ((size_t)src->n + 1) * sizeof(*dst->off));
	memcpy(dst->last_start, src->last_start,
	       src->n * sizeof(*dst->last_start));
	memcpy(dst->ready, src->ready, src->n * sizeof(*dst->ready));
	dst->n = src->n;
	return 0;
}

/*
 * What two plans of one state share: the running jobs' queues, the plan
 * order (plans that give the same jobs a node, with the same .order, have
 * the same), made once for every estimate, and a stamp table each
 * estimate empties and fills.
 */
typedef struct {
	dl__queues_t q;
	_stamps_t *stamps; /* the caller's: a guard keeps its own across
			      plans, so that no estimate grows (rehashes) a
			      table from empty */
	size_t *ord, n;
	_bound_t *bound; /* [n] by position in ord */
} _base_t;

static void _base_fini(_base_t *b)
{
	dl__queues_fini(&b->q);
	free(b->ord);
	free(b->bound);
}

static int _base_init(_base_t *b, const dl_state_t *st, const dl_plan_t *plan,
		      _stamps_t *stamps)
{
	memset(b, 0, sizeof(*b));
	b->stamps = stamps;
	if (dl__queues_init(&b->q, st))
		return DL_ENOMEM;
	if (dl__plan_order(st, plan, &b->ord, &b->n) ||
	    !(b->bound = calloc(b->n ? b->n : 1, sizeof(*b->bound)))) {
		_base_fini(b);
		return DL_ENOMEM;
	}
	return 0;
}

/* A one-CPU job any node may run: whose nodes free1 holds. */
static const dl_job_t one_cpu = { .cpus = 1 };

/* free1[k] = when node k has a CPU free in q, for the nodes one_cpu may
 * use (+infinity for the others). */
static void _free1_set(dl__mintree_t *free1, const dl_state_t *st,
		       const dl__queues_t *q, uint32_t k)
{
	if (dl_state_job_eligible(st, &one_cpu, k))
		dl__mintree_set(free1, k, dl__queues_start(q, k, 1));
}

/* dl__plan_estimate_lru() of plan, whose jobs and order are base's. */
static int _estimate(const dl_state_t *st, const dl_plan_t *plan,
		     const dl_place_params_t *pp, _base_t *base, double *sum)
{
	uint32_t nst = st->params.nstorage ? st->params.nstorage : 1, k;
	_model_t m = { 0 };
	dl__mintree_t free1 = { 0 };
	double total = 0;
	dl__queues_t q;
	size_t i;
	int rc = DL_ENOMEM;

	if (_queues_copy(&q, &base->q))
		return DL_ENOMEM;
	m.st = st;
	m.stamps = base->stamps;
	_stamps_clear(m.stamps);
	m.fetched = calloc(st->nnodes ? st->nnodes : 1, sizeof(*m.fetched));
	m.sfree = calloc(nst, sizeof(*m.sfree));
	if (!m.fetched || !m.sfree || dl__mintree_init(&free1, st->nnodes))
		goto out;
	/* Every node at once: one build, not a set (log n) per node. */
	for (k = 0; k < st->nnodes; k++)
		if (dl_state_job_eligible(st, &one_cpu, k))
			dl__mintree_put(&free1, k, dl__queues_start(&q, k, 1));
	dl__mintree_build(&free1);
	rc = 0;
	for (i = 0; i < base->n && !rc; i++) {
		const dl_job_t *j = &st->jobs[base->ord[i]];
		uint32_t node = (uint32_t)plan->a[base->ord[i]].node;
		double start = _widen(st, &q, &free1, j, &node,
				      dl__queues_start(&q, node, j->cpus), pp,
				      &base->bound[i]);
		double end = _stage(&m, j, node, start, &rc) +
			     dl_cost_read_time(st, node, dl_job_bytes(st, j)) +
			     dl_cost_job_compute(st, j);

		dl__queues_push(&q, node, j->cpus, end - start);
		_free1_set(&free1, st, &q, node);
		total += end;
	}
	if (!rc)
		*sum = total;
out:
	free(m.fetched);
	free(m.sfree);
	dl__mintree_fini(&free1);
	dl__queues_fini(&q);
	return rc;
}

/*
 * Room in m for the stamps of every file of base's jobs, at once: a table
 * grown from empty by doubling rehashed itself about as often as it was
 * filled (Online-HPS's follow and home checks make two such estimates
 * per plan).  \return 0 or DL_ENOMEM.
 */
static int _stamps_reserve(_stamps_t *m, const dl_state_t *st,
			   const _base_t *base)
{
	size_t i, n = 0, cap = 64;

	for (i = 0; i < base->n; i++)
		n += st->jobs[base->ord[i]].nfiles;
	while ((n + 1) * 2 > cap)
		cap *= 2;
	if (cap <= m->cap)
		return 0;
	_stamps_fini(m);
	m->key = calloc(cap, sizeof(*m->key));
	m->val = malloc(cap * sizeof(*m->val));
	m->cap = cap;
	m->count = 0;
	if (!m->key || !m->val) {
		_stamps_fini(m);
		memset(m, 0, sizeof(*m));
		return DL_ENOMEM;
	}
	return 0;
}

int dl__plan_estimate_lru(const dl_state_t *st, const dl_plan_t *plan,
			  const dl_place_params_t *pp, double *sum,
			  size_t *nplanned)
{
	_stamps_t stamps = { 0 };
	_base_t base;
	int rc;

	if (!st || !plan || !sum || plan->n != st->njobs)
		return DL_EINVAL;
	if (_base_init(&base, st, plan, &stamps))
		return DL_ENOMEM;
	rc = _stamps_reserve(&stamps, st, &base);
	if (!rc)
		rc = _estimate(st, plan, pp, &base, sum);
	if (!rc && nplanned)
		*nplanned = base.n;
	_base_fini(&base);
	_stamps_fini(&stamps);
	return rc;
}

/* ------------------------------------------------------------------ */
/* the guard                                                            */

#define GUARD_MAX 4

struct dl__guard {
	dl_place_params_t pp; /* the placement rule the estimate models */
	uint32_t every;       /* compare at every n-th call (1: always) */
	uint32_t since;       /* calls since the last comparison, 0: none */
	double margin;        /* an alternative must be this much sooner */
	int unbounded;        /* model jobs waiting for their node for ever */
	int last;             /* its winner: 0 the plan, k + 1 policy k */
	_stamps_t stamps;     /* the estimates' table (_base_t), kept */
	size_t n;
	const dl_policy_ops_t *ops[GUARD_MAX];
	void *priv[GUARD_MAX];
};

static const dl_policy_ops_t *_ops(const char *name, size_t len)
{
	const dl_policy_ops_t *const *o;

	for (o = dl_policy_list(); *o; o++)
		if (strlen((*o)->name) == len && !strncmp((*o)->name, name, len))
			return *o;
	return NULL;
}

dl__guard_t *dl__guard_create(const char *names, const char *params,
			      const dl_place_params_t *pp)
{
	dl__guard_t *g;
	const char *p = names;

	if (!names || !*names || !(g = calloc(1, sizeof(*g))))
		return NULL;
	g->every = 1;
	if (pp)
		g->pp = *pp;
	else
		dl_place_params_default(&g->pp);
	for (;;) {
		size_t len = strcspn(p, "+");
		const dl_policy_ops_t *o = _ops(p, len);

		if (!o || g->n == GUARD_MAX ||
		    (o->create && o->create(params, &g->priv[g->n]))) {
			dl__guard_destroy(g);
			return NULL;
		}
		g->ops[g->n++] = o;
		if (!p[len])
			break;
		p += len + 1; /* past the '+': an empty name fails above */
	}
	return g;
}

void dl__guard_destroy(dl__guard_t *g)
{
	size_t k;

	if (!g)
		return;
	for (k = 0; k < g->n; k++)
		if (g->ops[k]->destroy)
			g->ops[k]->destroy(g->priv[k]);
	_stamps_fini(&g->stamps);
	free(g);
}

/*
 * Greedy plan k of st into alt (same jobs, order and running jobs as
 * plan); a job it leaves without a node keeps plan's, and a job plan
 * leaves without one stays so, so that both estimates sum the same jobs.
 */
static int _alt(dl__guard_t *g, size_t k, const dl_state_t *st,
		const dl_plan_t *plan, dl_plan_t *alt)
{
	size_t i;
	int rc;

	for (i = 0; i < plan->n; i++) {
		alt->a[i] = plan->a[i];
		if (st->jobs[i].state == DL_JOB_PENDING)
			alt->a[i].node = -1;
	}
	rc = g->ops[k]->plan(g->priv[k], st, alt);
	for (i = 0; !rc && i < plan->n; i++) {
		alt->a[i].order = plan->a[i].order;
		if (alt->a[i].node < 0 || plan->a[i].node < 0)
			alt->a[i].node = plan->a[i].node;
	}
	return rc;
}

/* Whether alt gives every job the node best (if not NULL) or else plan
 * gives it. */
static int _same_nodes(const dl_plan_t *plan, const int32_t *best,
		       const dl_plan_t *alt)
{
	size_t i;

	for (i = 0; i < plan->n; i++)
		if (alt->a[i].node != (best ? best[i] : plan->a[i].node))
			return 0;
	return 1;
}

/* Node of job i under plan: running jobs' own, pending ones' planned. */
static int32_t _node_of(const dl_state_t *st, const dl_plan_t *plan, size_t i)
{
	const dl_job_t *j = &st->jobs[i];
	int32_t n = j->state == DL_JOB_RUNNING ? j->node :
		    j->state == DL_JOB_PENDING ? plan->a[i].node : -1;

	return n >= 0 && (uint32_t)n < st->nnodes ? n : -1;
}

/* Whether some node's jobs' input bytes, shared files counted once per
 * job, exceed its cache (need: [nnodes] zeroed scratch). */
static int _raw_pressure(const dl_state_t *st, const dl_plan_t *plan,
			 uint64_t *need)
{
	size_t i;
	uint32_t k;

	for (i = 0; i < st->njobs; i++) {
		int32_t n = _node_of(st, plan, i);

		if (n >= 0)
			need[n] += dl_job_bytes(st, &st->jobs[i]);
	}
	for (k = 0; k < st->nnodes; k++)
		if (dl_cache_capacity(st->cache, k) != DL_CACHE_UNLIMITED &&
		    need[k] > dl_cache_capacity(st->cache, k))
			return 1;
	return 0;
}

int dl__guard_pressure(const dl_state_t *st, const dl_plan_t *plan)
{
	uint64_t *need = calloc(st->nnodes ? st->nnodes : 1, sizeof(*need));
	dl__u64set_t seen;
	size_t i;
	uint32_t k;
	int rc = 0;

	if (!need)
		return 1; /* cannot tell: compare */
	if (!_raw_pressure(st, plan, need)) {
		free(need);
		return 0; /* fits even counting shared files once per job */
	}
	memset(need, 0, (st->nnodes ? st->nnodes : 1) * sizeof(*need));
	dl__u64set_init(&seen);
	for (i = 0; i < st->njobs && !rc; i++) {
		const dl_job_t *j = &st->jobs[i];
		int32_t n = _node_of(st, plan, i);
		uint64_t cap;
		int r;

		if (n < 0)
			continue;
		cap = dl_cache_capacity(st->cache, (uint32_t)n);
		for (k = 0; k < j->nfiles && !rc; k++) {
			r = dl__u64set_add(&seen, dl__nf_key((uint32_t)n,
							     j->files[k]));
			if (r < 0)
				rc = 1;
			else if (r)
				need[n] += dl_file_bytes(st, j->files[k]);
		}
		if (cap != DL_CACHE_UNLIMITED && need[n] > cap)
			rc = 1;
	}
	dl__u64set_fini(&seen);
	free(need);
	return rc;
}

void dl__guard_set_margin(dl__guard_t *g, double margin)
{
	g->margin = margin;
}

void dl__guard_set_every(dl__guard_t *g, uint32_t n)
{
	g->every = n ? n : 1;
}

/* Between comparisons: the last winner's nodes, without estimates. */
static int _repeat(dl__guard_t *g, const dl_state_t *st, dl_plan_t *plan,
		   int *switched)
{
	dl_plan_t alt = *plan;
	size_t i;
	int rc;

	g->since++;
	if (switched)
		*switched = g->last;
	if (!g->last)
		return 0;
	alt.a = malloc((plan->n ? plan->n : 1) * sizeof(*alt.a));
	if (!alt.a)
		return DL_ENOMEM;
	rc = _alt(g, (size_t)g->last - 1, st, plan, &alt);
	for (i = 0; !rc && i < plan->n; i++)
		if (st->jobs[i].state == DL_JOB_PENDING)
			plan->a[i].node = alt.a[i].node;
	free(alt.a);
	return rc;
}

void dl__guard_set_unbounded(dl__guard_t *g, int unbounded)
{
	g->unbounded = unbounded != 0;
}

int dl__guard_apply(dl__guard_t *g, const dl_state_t *st, dl_plan_t *plan,
		    int *switched)
{
	const dl_place_params_t *pp;
	dl_plan_t alt = *plan;
	int32_t *best = NULL;
	double ours = NAN, theirs;
	_base_t base;
	size_t i, k;
	int rc, won = 0, have_base = 0;

	if (plan->n != st->njobs)
		return DL_EINVAL;
	if (g->since && g->since < g->every)
		return _repeat(g, st, plan, switched);
	/* No estimate is negative: at a margin of 1 or more no alternative
	 * can win, so none is made or estimated (Online-HPS's
	 * guard_margin_shared=1: at 0.99 those sure losers took 21-28% of
	 * bench_sim's paced runs). */
	if (g->margin >= 1) {
		g->since = 1;
		g->last = 0;
		if (switched)
			*switched = 0;
		return 0;
	}
	pp = g->unbounded ? NULL : &g->pp;
	alt.a = malloc((plan->n ? plan->n : 1) * sizeof(*alt.a));
	best = malloc((plan->n ? plan->n : 1) * sizeof(*best));
	rc = alt.a && best ? 0 : DL_ENOMEM;
	for (k = 0; !rc && k < g->n; k++) {
		rc = _alt(g, k, st, plan, &alt);
		/* The same nodes cannot be sooner: estimate nothing (14% of
		 * the comparisons on bench_sim's 5,000-job trace). */
		if (rc || _same_nodes(plan, won ? best : NULL, &alt))
			continue;
		if (!have_base &&
		    !(rc = _base_init(&base, st, plan, &g->stamps)))
			have_base = 1;
		if (!rc && isnan(ours))
			rc = _estimate(st, plan, pp, &base, &ours);
		if (!rc)
			rc = _estimate(st, &alt, pp, &base, &theirs);
		if (rc || dl__time_cmp(theirs, ours * (1 - g->margin)) >= 0)
			continue; /* ties keep the earlier plan */
		ours = theirs;
		for (i = 0; i < plan->n; i++)
			best[i] = alt.a[i].node;
		won = (int)k + 1;
	}
	if (rc)
		won = 0;
	g->since = 1;
	g->last = won;
	for (i = 0; won && i < plan->n; i++)
		if (st->jobs[i].state == DL_JOB_PENDING)
			plan->a[i].node = best[i];
	if (switched)
		*switched = won;
	free(best);
	free(alt.a);
	if (have_base)
		_base_fini(&base);
	return rc;
}
