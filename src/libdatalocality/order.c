/*
 * order.c - job ordering with storage Gantt charts (online-hps-khanna
 * section 4.3); the model and the lazy evaluation are in dl_order.h.
 *
 * Layout: the ordered jobs are grouped by node; each job keeps the list of
 * files it may have to transfer (its files, deduplicated, minus those its
 * node cached when the snapshot was taken), and each such file the list of
 * those jobs, grouped by node, so that when a file reaches a node the jobs
 * of that node that need it are found by binary search.  Three kinds of
 * binary heap share one implementation: the files of the job being
 * evaluated (by TCT), the jobs of each group (by ECT) and the groups (by
 * their best job's ECT).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dl_cost.h"
#include "dl_error.h"
#include "dl_order.h"
#include "u64set.h"

#define NIL UINT32_MAX

/* ---------------------------------------------------------------------- */
/* An indexed binary min-heap of ids keyed by key[id], ties by tie[id]. */

typedef struct {
	uint32_t *a;         /* ids in heap order */
	uint32_t n;
	uint32_t *pos;       /* pos[id]: index in a, NIL when absent */
	const double *key;
	const uint32_t *tie; /* NULL: the id itself */
} _heap_t;

static int _hless(const _heap_t *h, uint32_t x, uint32_t y)
{
	if (h->key[x] != h->key[y])
		return h->key[x] < h->key[y];
	return h->tie ? h->tie[x] < h->tie[y] : x < y;
}

static void _hset(_heap_t *h, uint32_t i, uint32_t id)
{
	h->a[i] = id;
	h->pos[id] = i;
}

static void _hup(_heap_t *h, uint32_t i)
{
	uint32_t id = h->a[i];

	while (i > 0) {
		uint32_t p = (i - 1) / 2;

		if (!_hless(h, id, h->a[p]))
			break;
		_hset(h, i, h->a[p]);
		i = p;
	}
	_hset(h, i, id);
}

static void _hdown(_heap_t *h, uint32_t i)
{
	uint32_t id = h->a[i];

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && _hless(h, h->a[c + 1], h->a[c]))
			c++;
		if (!_hless(h, h->a[c], id))
			break;
		_hset(h, i, h->a[c]);
		i = c;
	}
	_hset(h, i, id);
}

/* The caller guarantees room for one more id. */
static void _hpush(_heap_t *h, uint32_t id)
{
	h->a[h->n] = id;
	h->pos[id] = h->n;
	_hup(h, h->n++);
}

/* Restore the order after key[id] changed either way. */
static void _hfix(_heap_t *h, uint32_t id)
{
	uint32_t i = h->pos[id];

	_hup(h, i);
	_hdown(h, h->pos[id]);
}

static void _hremove(_heap_t *h, uint32_t id)
{
	uint32_t i = h->pos[id], last = h->a[--h->n];

	h->pos[id] = NIL;
	if (i == h->n)
		return;
	_hset(h, i, last);
	_hfix(h, last);
}

/* ---------------------------------------------------------------------- */
/* A storage node's Gantt chart: sorted, disjoint, merged busy intervals. */

typedef struct {
	double s, e;
} _iv_t;

typedef struct {
	_iv_t *v;
	size_t n, cap;
} _gantt_t;

/* The first interval ending after t (g->n if none). */
static size_t _gantt_after(const _gantt_t *g, double t)
{
	size_t lo = 0, hi = g->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (g->v[mid].e > t)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* First fit: the earliest start >= t of a free slot d long (d > 0). */
static double _gantt_fit(const _gantt_t *g, double t, double d)
{
	size_t i = _gantt_after(g, t);
	double s = t;

	for (; i < g->n; i++) {
		if (s + d <= g->v[i].s)
			break;
		if (g->v[i].e > s)
			s = g->v[i].e;
	}
	return s;
}

/* Reserve [s, e), which _gantt_fit() found free. */
static int _gantt_reserve(_gantt_t *g, double s, double e)
{
	size_t p = _gantt_after(g, s);
	int left = p > 0 && g->v[p - 1].e == s;
	int right = p < g->n && g->v[p].s == e;

	if (left && right) {
		g->v[p - 1].e = g->v[p].e;
		memmove(&g->v[p], &g->v[p + 1], (g->n - p - 1) * sizeof(*g->v));
		g->n--;
		return 0;
	}
	if (left) {
		g->v[p - 1].e = e;
		return 0;
	}
	if (right) {
		g->v[p].s = s;
		return 0;
	}
	if (g->n == g->cap) {
		size_t ncap = g->cap ? 2 * g->cap : 16;
		_iv_t *nv = realloc(g->v, ncap * sizeof(*nv));

		if (!nv)
			return DL_ENOMEM;
		g->v = nv;
		g->cap = ncap;
	}
	memmove(&g->v[p + 1], &g->v[p], (g->n - p) * sizeof(*g->v));
	g->v[p].s = s;
	g->v[p].e = e;
	g->n++;
	return 0;
}

/* ---------------------------------------------------------------------- */

/* A transfer of the job being evaluated, kept to be reserved. */
typedef struct {
	uint32_t file, storage;
	double s, e;
} _xfer_t;

typedef struct {
	const dl_state_t *st;
	const uint32_t *storage_of; /* NULL: round-robin */
	uint32_t nstorage;
	_gantt_t *gantt;            /* [nstorage] */
	double *avail;              /* [nnodes] node free from */
	dl__u64set_t fetched;       /* node << 32 | file, brought by jobs */

	/* Per job of the state; meaningful for the ordered ones. */
	int32_t *node_of;           /* the node, -1: not ordered */
	uint32_t *rank;             /* tie-break: priority order */
	double *tail;               /* read + compute on its node */
	uint64_t *rem;              /* bytes it still has to transfer */
	uint64_t *shared;           /* epoch a job of its node brought one */
	double *key;                /* ECT, or a lower bound when stale */
	uint64_t *epoch;            /* when key was computed exactly */
	size_t *jf_off;             /* [njobs + 1] into jf */
	uint32_t *jf;               /* files it may have to transfer */

	/* Per file: the jobs needing it, grouped by node. */
	size_t *inv_off;            /* [nfiles + 1] into inv */
	uint32_t *inv;

	/* Groups and their heaps. */
	uint32_t *gbuf;             /* heap arrays of all groups */
	uint32_t *jpos;             /* [njobs] heap positions */
	_heap_t *group;             /* [nnodes] */
	double *gkey;               /* [nnodes] key of the group's best */
	uint32_t *grank;            /* [nnodes] rank of the group's best */
	uint32_t *gpos;             /* [nnodes] */
	uint32_t *gheap;            /* [nnodes] */
	_heap_t top;

	/* Scratch of one evaluation, sized for the longest file list. */
	uint32_t *cf, *cst, *cpos, *cheap;
	double *cd, *ct;
	_xfer_t *xf;
	uint32_t nxf;
	uint64_t now_epoch;
} _order_t;

static uint32_t _storage(const _order_t *o, uint32_t file)
{
	return o->storage_of ? o->storage_of[file] : file % o->nstorage;
}

static uint64_t _nf_key(uint32_t node, uint32_t file)
{
	return (uint64_t)node << 32 | file;
}

/*
 * The ECT of job i on its node given the charts and the files its node
 * holds or will hold (online-hps-khanna section 4.3).  With record set,
 * the chosen transfers are left in o->xf for _commit().
 */
static double _eval(_order_t *o, uint32_t i, int record, double *staged)
{
	uint32_t n = (uint32_t)o->node_of[i];
	double t = o->avail[n];
	_heap_t h = { o->cheap, 0, o->cpos, o->ct, NULL };
	size_t k;
	uint32_t c = 0;

	o->nxf = 0;
	for (k = o->jf_off[i]; k < o->jf_off[i + 1]; k++) {
		uint32_t f = o->jf[k];
		double d;

		if (dl__u64set_has(&o->fetched, _nf_key(n, f)))
			continue;
		d = dl_cost_transfer_time(o->st, dl_file_bytes(o->st, f));
		if (!(d > 0))
			continue; /* instantaneous: nothing to reserve */
		o->cf[c] = f;
		o->cd[c] = d;
		o->cst[c] = _storage(o, f);
		o->ct[c] = _gantt_fit(&o->gantt[o->cst[c]], t, d) + d;
		_hpush(&h, c++);
	}
	/*
	 * The file with the minimum TCT goes next.  A TCT only grows as t
	 * does, so a key is a lower bound: recompute the top, and take it
	 * if it did not move; this is the greedy of section 4.3 in
	 * O(m log m) recomputations instead of O(m^2).
	 */
	while (h.n) {
		uint32_t top = h.a[0];
		double s = _gantt_fit(&o->gantt[o->cst[top]], t, o->cd[top]);
		double tct = s + o->cd[top];

		if (tct > o->ct[top]) {
			o->ct[top] = tct;
			_hdown(&h, 0);
			continue;
		}
		_hremove(&h, top);
		if (record) {
			_xfer_t *x = &o->xf[o->nxf++];

			x->file = o->cf[top];
			x->storage = o->cst[top];
			x->s = s;
			x->e = tct;
		}
		t = tct;
	}
	if (staged)
		*staged = t;
	return t + o->tail[i];
}

/* Make the group's best job its key in the heap of groups. */
static void _gsync(_order_t *o, uint32_t g)
{
	_heap_t *gh = &o->group[g];

	if (!gh->n) {
		if (o->gpos[g] != NIL)
			_hremove(&o->top, g);
		return;
	}
	o->gkey[g] = o->key[gh->a[0]];
	o->grank[g] = o->rank[gh->a[0]];
	if (o->gpos[g] == NIL)
		_hpush(&o->top, g);
	else
		_hfix(&o->top, g);
}

/*
 * A lower bound of job k's ECT on its node: the node's files arrive one
 * at a time, so staging takes at least the sum of the transfers still
 * needed.  It is lowered by a relative 1e-9 so that rounding (the ECT adds
 * the transfers one by one) can never lift it above the exact value.
 */
static double _bound(const _order_t *o, uint32_t k)
{
	double b = o->avail[o->node_of[k]] +
		   dl_cost_transfer_time(o->st, o->rem[k]) + o->tail[k];

	return b - fabs(b) * 1e-9;
}

/*
 * Schedule job i: reserve its transfers and move its node's availability
 * to its ECT.  The other jobs of that node then start later, and those
 * that need a file it brought have less to fetch (and their greedy
 * staging may even finish earlier than their key said): every one of
 * them is re-keyed, in one pass and one heapify, with _bound(), keeping
 * its old key when higher unless it shared a file.
 */
static int _commit(_order_t *o, uint32_t i, dl_order_item_t *item)
{
	uint32_t n = (uint32_t)o->node_of[i], x;
	_heap_t *gh = &o->group[n];
	double staged, ect;
	int rc;

	ect = _eval(o, i, 1, &staged);
	for (x = 0; x < o->nxf; x++) {
		const _xfer_t *xf = &o->xf[x];

		rc = _gantt_reserve(&o->gantt[xf->storage], xf->s, xf->e);
		if (rc < 0)
			return rc;
		rc = dl__u64set_add(&o->fetched, _nf_key(n, xf->file));
		if (rc < 0)
			return rc;
	}
	item->job = i;
	item->node = n;
	item->transfers = o->nxf;
	item->start = o->avail[n];
	item->staged = staged;
	item->end = ect;
	o->avail[n] = ect;
	_hremove(gh, i);

	for (x = 0; x < o->nxf; x++) {
		uint32_t f = o->xf[x].file;
		uint64_t bytes = dl_file_bytes(o->st, f);
		size_t lo = o->inv_off[f], hi = o->inv_off[f + 1];

		/* The first job of node n in f's list (grouped by node). */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if ((uint32_t)o->node_of[o->inv[mid]] < n)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < o->inv_off[f + 1]; lo++) {
			uint32_t k = o->inv[lo];

			if ((uint32_t)o->node_of[k] != n)
				break;
			o->rem[k] -= bytes;
			o->shared[k] = o->now_epoch;
		}
	}
	for (x = 0; x < gh->n; x++) {
		uint32_t k = gh->a[x];
		double b = _bound(o, k);

		if (o->shared[k] == o->now_epoch || b > o->key[k])
			o->key[k] = b;
	}
	for (x = gh->n / 2; x-- > 0;)
		_hdown(gh, x);
	_gsync(o, n);
	return 0;
}

/* Pending jobs by descending priority, then arrival, then id, then index. */
static int _cmp_prio(const void *a, const void *b, void *arg)
{
	const dl_state_t *st = arg;
	uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;
	const dl_job_t *x = &st->jobs[ia];
	const dl_job_t *y = &st->jobs[ib];

	if (x->priority != y->priority)
		return x->priority > y->priority ? -1 : 1;
	if (x->arrival != y->arrival)
		return x->arrival < y->arrival ? -1 : 1;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return (ia > ib) - (ia < ib);
}

static void _free(_order_t *o)
{
	uint32_t s;

	if (o->gantt)
		for (s = 0; s < o->nstorage; s++)
			free(o->gantt[s].v);
	free(o->gantt);
	free(o->avail);
	dl__u64set_fini(&o->fetched);
	free(o->node_of);
	free(o->rank);
	free(o->tail);
	free(o->rem);
	free(o->shared);
	free(o->key);
	free(o->epoch);
	free(o->jf_off);
	free(o->jf);
	free(o->inv_off);
	free(o->inv);
	free(o->gbuf);
	free(o->jpos);
	free(o->group);
	free(o->gkey);
	free(o->grank);
	free(o->gpos);
	free(o->gheap);
	free(o->cf);
	free(o->cst);
	free(o->cpos);
	free(o->cheap);
	free(o->cd);
	free(o->ct);
	free(o->xf);
}

static int _check_args(const dl_state_t *st, const int32_t *assign,
		       const uint32_t *storage_of, uint32_t nstorage)
{
	uint32_t nf, f;
	size_t i;

	if (!isfinite(st->now) || !isfinite(st->params.cpb) ||
	    st->params.cpb < 0)
		return DL_EINVAL;
	if (st->njobs >= UINT32_MAX)
		return DL_ETOOBIG;
	for (i = 0; i < st->njobs; i++) {
		const dl_job_t *j = &st->jobs[i];

		if (j->state == DL_JOB_RUNNING) {
			if (j->node < 0 || (uint32_t)j->node >= st->nnodes)
				return DL_EINVAL;
		} else if (assign[i] < -1 ||
			   (assign[i] >= 0 &&
			    (uint32_t)assign[i] >= st->nnodes)) {
			return DL_EINVAL;
		}
	}
	if (storage_of) {
		nf = dl_cache_file_count(st->cache);
		for (f = 0; f < nf; f++)
			if (storage_of[f] >= nstorage)
				return DL_EINVAL;
	}
	return 0;
}

/*
 * Everything but the picks: node availability and files of running jobs,
 * the groups, the tie-break ranks, the per-job file lists and per-file job
 * lists, and the initial ECTs.  \return the number of ordered jobs (>= 0)
 * or DL_ENOMEM.
 */
static int64_t _setup(_order_t *o, const int32_t *assign)
{
	const dl_state_t *st = o->st;
	uint32_t nn = st->nnodes, nfiles = dl_cache_file_count(st->cache);
	uint32_t nj = (uint32_t)st->njobs, i, g, maxc = 0, nord = 0;
	uint32_t *gcount = NULL, *byprio = NULL, *bynode = NULL;
	size_t *last = NULL, k, total = 0;
	int64_t rc = DL_ENOMEM;

	o->gantt = calloc(o->nstorage, sizeof(*o->gantt));
	o->avail = malloc((nn ? nn : 1) * sizeof(*o->avail));
	o->node_of = malloc((nj ? nj : 1) * sizeof(*o->node_of));
	o->rank = malloc((nj ? nj : 1) * sizeof(*o->rank));
	o->tail = calloc(nj ? nj : 1, sizeof(*o->tail));
	o->rem = calloc(nj ? nj : 1, sizeof(*o->rem));
	o->shared = calloc(nj ? nj : 1, sizeof(*o->shared));
	o->key = calloc(nj ? nj : 1, sizeof(*o->key));
	o->epoch = calloc(nj ? nj : 1, sizeof(*o->epoch));
	o->jf_off = calloc((size_t)nj + 1, sizeof(*o->jf_off));
	o->inv_off = calloc((size_t)nfiles + 1, sizeof(*o->inv_off));
	o->jpos = malloc((nj ? nj : 1) * sizeof(*o->jpos));
	o->group = calloc(nn ? nn : 1, sizeof(*o->group));
	o->gkey = calloc(nn ? nn : 1, sizeof(*o->gkey));
	o->grank = calloc(nn ? nn : 1, sizeof(*o->grank));
	o->gpos = malloc((nn ? nn : 1) * sizeof(*o->gpos));
	o->gheap = malloc((nn ? nn : 1) * sizeof(*o->gheap));
	gcount = calloc((size_t)nn + 1, sizeof(*gcount));
	last = calloc(nfiles ? nfiles : 1, sizeof(*last));
	byprio = malloc((nj ? nj : 1) * sizeof(*byprio));
	bynode = malloc((nj ? nj : 1) * sizeof(*bynode));
	if (!o->gantt || !o->avail || !o->node_of || !o->rank || !o->tail ||
	    !o->key || !o->epoch || !o->rem || !o->shared || !o->jf_off || !o->inv_off || !o->jpos ||
	    !o->group || !o->gkey || !o->grank || !o->gpos || !o->gheap ||
	    !gcount || !last || !byprio || !bynode)
		goto out;

	/* Running jobs hold their node and bring their files to it. */
	for (g = 0; g < nn; g++) {
		o->avail[g] = st->now;
		o->gpos[g] = NIL;
	}
	for (i = 0; i < nj; i++) {
		const dl_job_t *j = &st->jobs[i];
		double end;
		uint32_t f;

		o->node_of[i] = -1;
		o->jpos[i] = NIL;
		if (j->state != DL_JOB_RUNNING) {
			if (assign[i] >= 0) {
				o->node_of[i] = assign[i];
				byprio[nord++] = i;
				gcount[assign[i]]++;
			}
			continue;
		}
		end = st->now + dl_cost_job_remaining(st, j);
		if (end > o->avail[j->node])
			o->avail[j->node] = end;
		for (f = 0; f < j->nfiles; f++)
			if (dl__u64set_add(&o->fetched,
					   _nf_key((uint32_t)j->node,
						   j->files[f])) < 0)
				goto out;
	}

	/* Ranks break ties: higher priority, earlier arrival, lower id. */
	qsort_r(byprio, nord, sizeof(*byprio), _cmp_prio, (void *)st);
	for (i = 0; i < nord; i++)
		o->rank[byprio[i]] = i;

	/* Each job's files that may need a transfer, deduplicated. */
	for (i = 0; i < nj; i++) {
		const dl_job_t *j = &st->jobs[i];
		uint32_t f, c = 0;

		o->jf_off[i + 1] = o->jf_off[i];
		if (o->node_of[i] < 0)
			continue;
		for (f = 0; f < j->nfiles; f++) {
			uint32_t id = j->files[f];

			if (last[id] == (size_t)i + 1 ||
			    dl_cache_contains(st->cache,
					      (uint32_t)o->node_of[i], id))
				continue;
			last[id] = (size_t)i + 1;
			c++;
		}
		o->jf_off[i + 1] += c;
		if (c > maxc)
			maxc = c;
	}
	total = o->jf_off[nj];
	o->jf = malloc((total ? total : 1) * sizeof(*o->jf));
	o->inv = malloc((total ? total : 1) * sizeof(*o->inv));
	o->cf = malloc((maxc ? maxc : 1) * sizeof(*o->cf));
	o->cst = malloc((maxc ? maxc : 1) * sizeof(*o->cst));
	o->cpos = malloc((maxc ? maxc : 1) * sizeof(*o->cpos));
	o->cheap = malloc((maxc ? maxc : 1) * sizeof(*o->cheap));
	o->cd = malloc((maxc ? maxc : 1) * sizeof(*o->cd));
	o->ct = malloc((maxc ? maxc : 1) * sizeof(*o->ct));
	o->xf = malloc((maxc ? maxc : 1) * sizeof(*o->xf));
	o->gbuf = malloc((nord ? nord : 1) * sizeof(*o->gbuf));
	if (!o->jf || !o->inv || !o->cf || !o->cst || !o->cpos ||
	    !o->cheap || !o->cd || !o->ct || !o->xf || !o->gbuf)
		goto out;
	memset(last, 0, (nfiles ? nfiles : 1) * sizeof(*last));
	for (i = 0; i < nj; i++) {
		const dl_job_t *j = &st->jobs[i];
		size_t at = o->jf_off[i];
		uint32_t f;

		if (o->node_of[i] < 0)
			continue;
		for (f = 0; f < j->nfiles; f++) {
			uint32_t id = j->files[f];

			if (last[id] == (size_t)i + 1 ||
			    dl_cache_contains(st->cache,
					      (uint32_t)o->node_of[i], id))
				continue;
			last[id] = (size_t)i + 1;
			o->jf[at++] = id;
			o->inv_off[id + 1]++;
			if (!dl__u64set_has(&o->fetched,
					    _nf_key((uint32_t)o->node_of[i], id)))
				o->rem[i] += dl_file_bytes(st, id);
		}
		o->tail[i] = dl_cost_read_time(st, (uint32_t)o->node_of[i],
					       dl_job_bytes(st, j)) +
			     dl_cost_job_compute(st, j);
	}

	/*
	 * Jobs by node (a counting sort, stable in job index), then the
	 * per-file lists filled in that order come out grouped by node.
	 */
	for (g = 1; g <= nn; g++)
		gcount[g] += gcount[g - 1];
	for (g = nn; g > 0; g--)
		gcount[g] = gcount[g - 1];
	gcount[0] = 0;
	for (i = 0; i < nj; i++)
		if (o->node_of[i] >= 0)
			bynode[gcount[o->node_of[i]]++] = i;
	for (k = 0; k < nfiles; k++)
		o->inv_off[k + 1] += o->inv_off[k];
	memcpy(last, o->inv_off, nfiles * sizeof(*last)); /* fill cursors */
	for (i = 0; i < nord; i++) {
		uint32_t jb = bynode[i];

		for (k = o->jf_off[jb]; k < o->jf_off[jb + 1]; k++)
			o->inv[last[o->jf[k]]++] = jb;
	}

	/* Initial ECTs (all exact at epoch 1), group heaps, group heap. */
	o->now_epoch = 1;
	o->top = (_heap_t){ o->gheap, 0, o->gpos, o->gkey, o->grank };
	for (g = 0; g < nn; g++) /* gcount[g] is now where group g ends */
		o->group[g] = (_heap_t){ o->gbuf + (g ? gcount[g - 1] : 0), 0,
					 o->jpos, o->key, o->rank };
	for (i = 0; i < nord; i++) {
		uint32_t jb = bynode[i];

		o->key[jb] = _eval(o, jb, 0, NULL);
		o->epoch[jb] = o->now_epoch;
		_hpush(&o->group[o->node_of[jb]], jb);
	}
	for (g = 0; g < nn; g++)
		_gsync(o, g);
	rc = nord;
out:
	free(gcount);
	free(last);
	free(byprio);
	free(bynode);
	return rc;
}

/*
 * The next job to schedule: the lowest ECT over the groups, the excluded
 * one aside.  Stale keys are lower bounds, so the top group's best job is
 * recomputed until a group's best is exact and on top.
 */
static uint32_t _pick(_order_t *o)
{
	for (;;) {
		uint32_t g = o->top.a[0];
		_heap_t *gh = &o->group[g];
		uint32_t i = gh->a[0];

		if (o->epoch[i] == o->now_epoch)
			return i;
		o->key[i] = _eval(o, i, 0, NULL);
		o->epoch[i] = o->now_epoch;
		_hfix(gh, i);
		_gsync(o, g);
	}
}

int dl_order_ect_ex(const dl_state_t *st, const int32_t *assign,
		    const uint32_t *storage_of, dl_order_item_t **out,
		    size_t *nout, double *order_key)
{
	_order_t o;
	dl_order_item_t *items = NULL;
	uint32_t excl = NIL, nord, step;
	int64_t n;
	int rc;

	if (!st || !assign || !out || !nout)
		return DL_EINVAL;
	memset(&o, 0, sizeof(o));
	o.st = st;
	o.storage_of = storage_of;
	o.nstorage = st->params.nstorage ? st->params.nstorage : 1;
	if ((rc = _check_args(st, assign, storage_of, o.nstorage)))
		return rc;
	dl__u64set_init(&o.fetched);
	n = _setup(&o, assign);
	if (n < 0) {
		rc = (int)n;
		goto fail;
	}
	nord = (uint32_t)n;
	if (nord) {
		items = malloc(nord * sizeof(*items));
		if (!items) {
			rc = DL_ENOMEM;
			goto fail;
		}
	}
	for (step = 0; step < nord; step++) {
		int hidden = 0;
		uint32_t i;

		/* The paper's rule: the next job comes from another group. */
		if (excl != NIL && o.gpos[excl] != NIL && o.top.n > 1) {
			_hremove(&o.top, excl);
			hidden = 1;
		}
		i = _pick(&o);
		if ((rc = _commit(&o, i, &items[step])) < 0)
			goto fail;
		if (hidden)
			_gsync(&o, excl);
		excl = items[step].node;
		o.now_epoch++; /* every key is now a lower bound */
	}
	if (order_key)
		for (step = 0; step < nord; step++)
			order_key[items[step].job] = step;
	_free(&o);
	*out = items;
	*nout = nord;
	return 0;
fail:
	free(items);
	_free(&o);
	return rc;
}

int dl_order_ect(const dl_state_t *st, const int32_t *assign,
		 dl_order_item_t **out, size_t *nout, double *order_key)
{
	return dl_order_ect_ex(st, assign, NULL, out, nout, order_key);
}
