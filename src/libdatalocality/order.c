/*
 * order.c - job ordering with storage Gantt charts (online-hps-khanna
 * section 4.3); the model, and why the shortcuts below are exact, are in
 * dl_order.h.
 *
 * Layout: the ordered jobs are grouped by node.  Each job keeps the list
 * of the files it still has to transfer (its files once each, minus those
 * its node caches, those a job running there brings and those a job
 * scheduled before it there brought), with where each sat in its last
 * ECT; each file keeps the list of the jobs that may transfer it, grouped
 * by node, so that when a file reaches a node the jobs of that node that
 * need it are found by binary search.  One indexed binary heap type serves
 * the groups (by their best ECT or a lower bound of it) and, when a job is
 * evaluated, its files' runs per storage node (_eval()).
 */
#include <float.h>
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
	if (h->tie && h->tie[x] != h->tie[y])
		return h->tie[x] < h->tie[y];
	return x < y;
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

/* A file a job still has to transfer: where from and how long. */
typedef struct {
	uint32_t file, storage;
	double d;
	double s;           /* its start in the job's last ECT */
} _need_t;

/* A transfer of the job being evaluated, kept to be reserved. */
typedef struct {
	uint32_t file, storage;
	double s, e;
} _xfer_t;

/*
 * A group: the jobs mapped to one node not scheduled yet, in two sorted
 * lists.  Those with nothing left to transfer complete exactly at
 * "available + tail", so l0, sorted by tail, has its best job first.  The
 * others complete no earlier than "frontier + c" (see _frontier()), so
 * l1, sorted by c, can be scanned until that bound passes the best ECT
 * found (a threshold scan): this is what keeps the number of ECTs
 * computed per pick small even when every reservation delays every job.
 */
typedef struct {
	uint32_t *l0, n0;   /* by (tail, rank) */
	uint32_t *l1, n1;   /* by (c, rank) */
	double dmin;        /* shortest transfer any job of l1 may need */
	double front;       /* _frontier() at front_epoch */
	uint64_t front_epoch;
	uint64_t epoch;     /* when gkey was last set, 0: never */
	int fresh;          /* gkey is the exact ECT of best (at epoch) */
	uint32_t best;      /* NIL: none since the last job scheduled */
	uint64_t gen;       /* jobs scheduled on the node, + 1 */
} _group_t;

typedef struct {
	const dl_state_t *st;
	const uint32_t *storage_of; /* NULL: round-robin */
	uint32_t nstorage;
	_gantt_t *gantt;            /* [nstorage] */
	/* Times are kept relative to st->now, for precision. */
	double *avail;              /* [nnodes] node free from */

	/* Per job of the state; meaningful for the ordered ones. */
	int32_t *node_of;           /* the node, -1: not ordered */
	uint8_t *done;              /* scheduled already */
	uint32_t *rank;             /* tie-break: priority order */
	double *tail;               /* read + compute on its node */
	uint64_t *rem;              /* bytes it still has to transfer */
	double *c;                  /* transfer_time(rem) + tail */
	double *last;               /* last ECT computed, -inf: none valid */
	uint64_t *vgen;             /* its group's gen then, 0: invalid */
	size_t *jf_off;             /* [njobs + 1] into jf */
	uint32_t *jn;               /* files it still has to transfer */
	_need_t *jf;                /* those files: jf[jf_off[k] .. + jn[k]] */

	/* Per file: the jobs needing it, grouped by node. */
	size_t *inv_off;            /* [nfiles + 1] into inv */
	uint32_t *inv;

	/* Groups, and the heap of groups by gkey (ties: gtie, then id). */
	_group_t *group;            /* [nnodes] */
	uint32_t *gbuf0, *gbuf1;    /* l0 and l1 arrays of all groups */
	double *gkey;               /* lower bound or exact best ECT */
	uint32_t *gtie;             /* 0 unless fresh: rank of best + 1 */
	uint32_t *gpos, *gheap;
	_heap_t top;

	/* Scratch of one evaluation, sized for the longest file list. */
	uint32_t *cpos, *cheap;     /* the heap of its files by TCT */
	double *ct;                 /* their TCTs (lower bounds when stale) */
	/*
	 * _eval() works on runs: the files of one storage node sorted by
	 * transfer time.  On one chart a shorter transfer never completes
	 * later (any slot that fits a longer one fits it), so each run's
	 * first file is its best, and only runs compete.
	 */
	uint32_t *ridx;             /* the job's files by storage, d, index */
	uint32_t *rlo, *rhi, *rst;  /* per run: cursor, end, storage node */
	uint32_t *rtie;             /* per run: index of its first file */
	uint32_t *fpos, *fheap;     /* runs on storage idle from t, by d */
	double *dk;                 /* their first file's transfer time */
	_xfer_t *xf;
	uint32_t nxf;
	uint32_t maxc;              /* the longest list of files */
	uint64_t now_epoch;         /* bumped by each scheduled job */
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
/* Whether a storage's chart has nothing at or after t: TCT = t + d. */
static int _idle_from(const _gantt_t *g, double t)
{
	return _gantt_after(g, t) == g->n;
}

static int _cmp_need(const void *a, const void *b, void *arg)
{
	const _need_t *need = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (need[x].storage != need[y].storage)
		return need[x].storage < need[y].storage ? -1 : 1;
	if (need[x].d != need[y].d)
		return need[x].d < need[y].d ? -1 : 1;
	return (x > y) - (x < y);
}

/* Split job i's files into runs, one per storage node; RET the runs. */
static uint32_t _runs(_order_t *o, const _need_t *need, uint32_t n)
{
	uint32_t c, r = 0;

	for (c = 0; c < n; c++)
		o->ridx[c] = c;
	qsort_r(o->ridx, n, sizeof(*o->ridx), _cmp_need, (void *)need);
	for (c = 0; c < n; c++) {
		if (!c || need[o->ridx[c]].storage != o->rst[r - 1]) {
			o->rst[r] = need[o->ridx[c]].storage;
			o->rlo[r] = c;
			r++;
		}
		o->rhi[r - 1] = c + 1;
	}
	return r;
}

/* Put run r, whose cursor moved or which is new, back in its heap. */
static void _run_key(_order_t *o, const _need_t *need, _heap_t *busy,
		     _heap_t *idle, uint32_t r, double t)
{
	uint32_t c = o->ridx[o->rlo[r]];

	o->rtie[r] = c;
	if (_idle_from(&o->gantt[o->rst[r]], t)) {
		o->dk[r] = need[c].d;
		if (idle->pos[r] == NIL)
			_hpush(idle, r);
		else
			_hfix(idle, r);
		return;
	}
	o->ct[r] = t + need[c].d; /* a lower bound of its TCT */
	if (busy->pos[r] == NIL)
		_hpush(busy, r);
	else
		_hfix(busy, r);
}

/*
 * The run whose first file completes first (then the lowest file index),
 * its start in *s and TCT in *tct.  Busy runs' keys are lower bounds,
 * made exact when they reach the top; idle runs' TCT is t + d exactly.
 */
static uint32_t _next_run(_order_t *o, const _need_t *need, _heap_t *busy,
			  _heap_t *idle, double t, double *s, double *tct)
{
	*s = t;
	while (busy->n) {
		uint32_t r = busy->a[0], c = o->ridx[o->rlo[r]];
		const _gantt_t *g = &o->gantt[o->rst[r]];

		if (_idle_from(g, t)) {
			_hremove(busy, r);
			_run_key(o, need, busy, idle, r, t);
			continue;
		}
		*s = _gantt_fit(g, t, need[c].d);
		if (*s + need[c].d <= o->ct[r])
			break;
		o->ct[r] = *s + need[c].d;
		_hdown(busy, 0);
	}
	if (idle->n &&
	    (!busy->n || t + o->dk[idle->a[0]] < o->ct[busy->a[0]] ||
	     (t + o->dk[idle->a[0]] == o->ct[busy->a[0]] &&
	      o->rtie[idle->a[0]] < o->rtie[busy->a[0]]))) {
		*s = t;
		*tct = t + o->dk[idle->a[0]];
		return idle->a[0];
	}
	*tct = o->ct[busy->a[0]];
	return busy->a[0];
}

/*
 * The ECT of job i on its node given the charts and the files its node
 * holds or will hold (online-hps-khanna section 4.3): the file with the
 * minimum TCT goes next (ties: the lower index), the greedy of section
 * 4.3, in O(n log n) for n files.  With record set, the chosen transfers
 * are left in o->xf for _commit().
 */
static double _eval(_order_t *o, uint32_t i, int record, double *staged)
{
	_need_t *need = &o->jf[o->jf_off[i]];
	double t = o->avail[o->node_of[i]], s, tct;
	_heap_t busy = { o->cheap, 0, o->cpos, o->ct, o->rtie };
	_heap_t idle = { o->fheap, 0, o->fpos, o->dk, o->rtie };
	uint32_t r, nr = _runs(o, need, o->jn[i]);

	o->nxf = 0;
	for (r = 0; r < nr; r++) {
		o->cpos[r] = o->fpos[r] = NIL;
		_run_key(o, need, &busy, &idle, r, t);
	}
	while (busy.n || idle.n) {
		uint32_t c;

		r = _next_run(o, need, &busy, &idle, t, &s, &tct);
		c = o->ridx[o->rlo[r]++];
		need[c].s = s;
		if (record) {
			_xfer_t *x = &o->xf[o->nxf++];

			x->file = need[c].file;
			x->storage = need[c].storage;
			x->s = s;
			x->e = tct;
		}
		t = tct;
		if (o->rlo[r] == o->rhi[r])
			_hremove(busy.pos[r] != NIL ? &busy : &idle, r);
		else
			_run_key(o, need, &busy, &idle, r, t);
	}
	if (staged)
		*staged = t;
	o->vgen[i] = o->group[o->node_of[i]].gen;
	o->last[i] = t + o->tail[i];
	return o->last[i];
}

/* Whether [a, b) is free on a chart. */
static int _gantt_free(const _gantt_t *g, double a, double b)
{
	size_t i = _gantt_after(g, a);

	return i == g->n || g->v[i].s >= b;
}

/*
 * Whether job k's last ECT still holds: its node has run nothing since,
 * it still needs the same files, and every slot its staging took is still
 * free.  Reservations only remove free time, so each first fit it made
 * gives the same slot, and the other files' TCTs can only have grown: the
 * greedy makes the same choices (ties included).  Exact, whatever the
 * greedy's anomalies.
 */
static int _valid(const _order_t *o, uint32_t k)
{
	const _need_t *need = &o->jf[o->jf_off[k]];
	uint32_t x;

	if (o->vgen[k] != o->group[o->node_of[k]].gen)
		return 0;
	for (x = 0; x < o->jn[k]; x++)
		if (!_gantt_free(&o->gantt[need[x].storage], need[x].s,
				 need[x].s + need[x].d))
			return 0;
	return 1;
}

/*
 * Lower a bound by more than the rounding its exact counterpart may have
 * gathered (one rounding per addition, at most maxc + 4 of them), so that
 * a bound never exceeds the value _eval() computes.  The same factor for
 * every job keeps the bounds in the order of the c they come from.
 */
static double _lower(const _order_t *o, double b)
{
	if (!isfinite(b))
		return b;
	return b - fabs(b) * DBL_EPSILON * 4.0 * ((double)o->maxc + 4);
}

/*
 * The group's frontier: no transfer of its jobs can start before the
 * first gap, on any storage node, at or after the node is available and
 * long enough for the group's shortest transfer.  From there the node
 * receives one file at a time, so a job of l1 completes no earlier than
 * frontier + c (c = transfer_time(rem) + tail).  Computed once per
 * scheduled job; the loop stops at the first storage node free at once.
 */
static double _frontier(_order_t *o, uint32_t g)
{
	_group_t *gr = &o->group[g];
	double t = o->avail[g], f = INFINITY;
	uint32_t s;

	if (gr->front_epoch == o->now_epoch)
		return gr->front;
	for (s = 0; s < o->nstorage && f > t; s++) {
		double v = _gantt_fit(&o->gantt[s], t, gr->dmin);

		if (v < f)
			f = v;
	}
	gr->front = f;
	gr->front_epoch = o->now_epoch;
	return f;
}

/* A lower bound of the best ECT of a non-empty group, without an ECT. */
static double _group_bound(_order_t *o, uint32_t g)
{
	_group_t *gr = &o->group[g];
	double b = INFINITY;

	if (gr->n0)
		b = o->avail[g] + o->tail[gr->l0[0]];
	if (gr->n1) {
		uint32_t k = gr->l1[0];
		double v = _lower(o, _frontier(o, g) + o->c[k]);

		if (v < b)
			b = v;
	}
	return b;
}

/* Whether ECT e of job a beats ECT f of job b: lower, then by rank. */
static int _before(const _order_t *o, double e, uint32_t a, double f,
		   uint32_t b)
{
	return e < f || (e == f && o->rank[a] < o->rank[b]);
}

/*
 * The exact best job of a non-empty group: l0's first, or better, the
 * best of l1 found by the threshold scan.  A job's last ECT, when still
 * valid (nothing of its node's changed but later reservations and a
 * later start), is a lower bound too and spares recomputing it.
 */
static void _group_scan(_order_t *o, uint32_t g)
{
	_group_t *gr = &o->group[g];
	uint32_t best = NIL, x;
	double be = INFINITY, front = gr->n1 ? _frontier(o, g) : 0;

	if (gr->n0) {
		best = gr->l0[0];
		be = o->avail[g] + o->tail[best];
	}
	for (x = 0; x < gr->n1; x++) {
		uint32_t k = gr->l1[x];
		double lb = _lower(o, front + o->c[k]), e;

		if (best != NIL && be < lb)
			break; /* l1 is sorted by c: no later job can win */
		if (_valid(o, k)) {
			e = o->last[k];
		} else {
			if (o->last[k] > lb)
				lb = o->last[k];
			if (best != NIL && !_before(o, lb, k, be, best))
				continue;
			e = _eval(o, k, 0, NULL);
		}
		if (best == NIL || _before(o, e, k, be, best)) {
			best = k;
			be = e;
		}
	}
	gr->best = best;
	gr->fresh = 1;
	gr->epoch = o->now_epoch;
	o->gkey[g] = be;
	o->gtie[g] = o->rank[best] + 1;
}

/* Put a group in the heap of groups, or fix its place, or drop it. */
static void _gsync(_order_t *o, uint32_t g)
{
	const _group_t *gr = &o->group[g];

	if (!gr->n0 && !gr->n1) {
		if (o->gpos[g] != NIL)
			_hremove(&o->top, g);
	} else if (o->gpos[g] == NIL) {
		_hpush(&o->top, g);
	} else {
		_hfix(&o->top, g);
	}
}

static int _cmp_l0(const void *a, const void *b, void *arg)
{
	const _order_t *o = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (o->tail[x] != o->tail[y])
		return o->tail[x] < o->tail[y] ? -1 : 1;
	return (o->rank[x] > o->rank[y]) - (o->rank[x] < o->rank[y]);
}

static int _cmp_l1(const void *a, const void *b, void *arg)
{
	const _order_t *o = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (o->c[x] != o->c[y])
		return o->c[x] < o->c[y] ? -1 : 1;
	return (o->rank[x] > o->rank[y]) - (o->rank[x] < o->rank[y]);
}

/* Set job k's c; \return whether it has a file left to transfer. */
static int _needs(_order_t *o, uint32_t k)
{
	o->c[k] = dl_cost_transfer_time(o->st, o->rem[k]) + o->tail[k];
	return o->jn[k] > 0;
}

/* Remove id from a list, keeping the order. */
static void _list_remove(uint32_t *l, uint32_t *n, uint32_t id)
{
	uint32_t x;

	for (x = 0; x < *n && l[x] != id; x++)
		;
	if (x == *n)
		return;
	memmove(&l[x], &l[x + 1], (*n - x - 1) * sizeof(*l));
	(*n)--;
}

/* Job k has file f now: drop it from its list, keeping the order. */
static void _need_remove(_order_t *o, uint32_t k, uint32_t f)
{
	_need_t *need = &o->jf[o->jf_off[k]];
	uint32_t x;

	for (x = 0; x < o->jn[k] && need[x].file != f; x++)
		;
	if (x == o->jn[k])
		return;
	memmove(&need[x], &need[x + 1], (o->jn[k] - x - 1) * sizeof(*need));
	o->jn[k]--;
}

/*
 * Schedule job i: reserve its transfers and move its node's availability
 * to its ECT.  The jobs of that node needing a file it brought have less
 * to transfer: their c drops (and they may move to l0), and their last
 * ECT is no bound any more (the greedy staging may even finish earlier).
 */
static int _commit(_order_t *o, uint32_t i, dl_order_item_t *item)
{
	uint32_t n = (uint32_t)o->node_of[i], x, y;
	_group_t *gr = &o->group[n];
	double staged, ect;
	int rc, changed = 0;

	ect = _eval(o, i, 1, &staged);
	for (x = 0; x < o->nxf; x++) {
		const _xfer_t *xf = &o->xf[x];

		rc = _gantt_reserve(&o->gantt[xf->storage], xf->s, xf->e);
		if (rc < 0)
			return rc;
	}
	item->job = i;
	item->node = n;
	item->transfers = o->nxf;
	item->start = o->st->now + o->avail[n];
	item->staged = o->st->now + staged;
	item->end = o->st->now + ect;
	o->avail[n] = ect;
	o->done[i] = 1;
	_list_remove(gr->l0, &gr->n0, i);
	_list_remove(gr->l1, &gr->n1, i);

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
			if (o->done[k])
				continue;
			_need_remove(o, k, f);
			o->rem[k] -= bytes;
			o->last[k] = -INFINITY;
			o->vgen[k] = 0;
			changed = 1;
		}
	}
	if (changed) {
		for (x = 0, y = 0; x < gr->n1; x++) {
			uint32_t k = gr->l1[x];

			if (_needs(o, k))
				gr->l1[y++] = k;
			else
				gr->l0[gr->n0++] = k;
		}
		gr->n1 = y;
		qsort_r(gr->l0, gr->n0, sizeof(*gr->l0), _cmp_l0, o);
		qsort_r(gr->l1, gr->n1, sizeof(*gr->l1), _cmp_l1, o);
	}
	/* Its old key is no bound now: the group starts over. */
	gr->epoch = 0;
	gr->fresh = 0;
	gr->best = NIL;
	gr->gen++;
	o->gkey[n] = -INFINITY;
	o->gtie[n] = 0;
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
	free(o->node_of);
	free(o->done);
	free(o->rank);
	free(o->tail);
	free(o->rem);
	free(o->c);
	free(o->last);
	free(o->vgen);
	free(o->jf_off);
	free(o->jn);
	free(o->jf);
	free(o->inv_off);
	free(o->inv);
	free(o->group);
	free(o->gbuf0);
	free(o->gbuf1);
	free(o->gkey);
	free(o->gtie);
	free(o->gpos);
	free(o->gheap);
	free(o->cpos);
	free(o->cheap);
	free(o->ct);
	free(o->fpos);
	free(o->fheap);
	free(o->dk);
	free(o->ridx);
	free(o->rlo);
	free(o->rhi);
	free(o->rst);
	free(o->rtie);
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

#define ALLOC(p, n) ((p) = malloc(((n) ? (size_t)(n) : 1) * sizeof(*(p))))

/*
 * The files job i has to transfer: its files once each, but those its
 * node caches, those a job running there brings (held) and those that
 * take no time.  Fills need when not NULL.  \return how many.
 * IN/OUT seen - per file id: 1 + the last job that listed the file
 */
static uint32_t _collect(const _order_t *o, uint32_t i,
			 const dl__u64set_t *held, size_t *seen,
			 _need_t *need)
{
	const dl_state_t *st = o->st;
	const dl_job_t *j = &st->jobs[i];
	uint32_t n = (uint32_t)o->node_of[i], f, c = 0;

	for (f = 0; f < j->nfiles; f++) {
		uint32_t id = j->files[f];
		double d = dl_cost_transfer_time(st, dl_file_bytes(st, id));

		if (seen[id] == (size_t)i + 1 ||
		    dl_cache_contains(st->cache, n, id) ||
		    dl__u64set_has(held, _nf_key(n, id)) || !(d > 0))
			continue;
		seen[id] = (size_t)i + 1;
		if (need) {
			need[c].file = id;
			need[c].storage = _storage(o, id);
			need[c].d = d;
		}
		c++;
	}
	return c;
}

/*
 * Node availability and the files of running jobs (into held), the
 * ordered jobs' nodes, counted per node in gcount, and their tie-break
 * ranks.  \return the number of ordered jobs, or DL_ENOMEM.
 */
static int64_t _setup_jobs(_order_t *o, const int32_t *assign,
			   dl__u64set_t *held, uint32_t *gcount,
			   uint32_t *byprio)
{
	const dl_state_t *st = o->st;
	uint32_t i, f, nord = 0;

	for (i = 0; i < st->nnodes; i++) {
		o->avail[i] = 0;
		o->gkey[i] = -INFINITY;
		o->gtie[i] = 0;
		o->gpos[i] = NIL;
		o->group[i].dmin = INFINITY;
		o->group[i].best = NIL;
		o->group[i].gen = 1;
	}
	for (i = 0; i < st->njobs; i++) {
		const dl_job_t *j = &st->jobs[i];
		double end;

		o->node_of[i] = -1;
		o->last[i] = -INFINITY;
		if (j->state != DL_JOB_RUNNING) {
			if (assign[i] >= 0) {
				o->node_of[i] = assign[i];
				byprio[nord++] = i;
				gcount[assign[i]]++;
			}
			continue;
		}
		end = dl_cost_job_remaining(st, j);
		if (end > o->avail[j->node])
			o->avail[j->node] = end;
		for (f = 0; f < j->nfiles; f++)
			if (dl__u64set_add(held, _nf_key((uint32_t)j->node,
							 j->files[f])) < 0)
				return DL_ENOMEM;
	}
	/* Ranks break ties: higher priority, earlier arrival, lower id. */
	qsort_r(byprio, nord, sizeof(*byprio), _cmp_prio, (void *)st);
	for (i = 0; i < nord; i++)
		o->rank[byprio[i]] = i;
	return nord;
}

/*
 * The groups' lists, and the per-file lists of jobs, grouped by node:
 * the jobs are sorted by node (a counting sort over gcount, stable in job
 * index), and the per-file lists filled in that order.
 * IN cursor - scratch of nfiles entries; IN bynode - scratch of nord
 */
static void _setup_groups(_order_t *o, uint32_t nord, uint32_t *gcount,
			  size_t *cursor, uint32_t *bynode)
{
	uint32_t nn = o->st->nnodes, nfiles = dl_cache_file_count(o->st->cache);
	uint32_t g, i;
	size_t k;

	for (g = 1; g <= nn; g++)
		gcount[g] += gcount[g - 1];
	for (g = nn; g > 0; g--)
		gcount[g] = gcount[g - 1];
	gcount[0] = 0;
	for (g = 0; g < nn; g++) {
		o->group[g].l0 = o->gbuf0 + gcount[g];
		o->group[g].l1 = o->gbuf1 + gcount[g];
	}
	for (i = 0; i < o->st->njobs; i++)
		if (o->node_of[i] >= 0)
			bynode[gcount[o->node_of[i]]++] = i;
	for (k = 0; k < nfiles; k++)
		o->inv_off[k + 1] += o->inv_off[k];
	memcpy(cursor, o->inv_off, nfiles * sizeof(*cursor));
	for (i = 0; i < nord; i++) {
		uint32_t jb = bynode[i];
		_group_t *gr = &o->group[o->node_of[jb]];

		for (k = 0; k < o->jn[jb]; k++)
			o->inv[cursor[o->jf[o->jf_off[jb] + k].file]++] = jb;
		if (_needs(o, jb))
			gr->l1[gr->n1++] = jb;
		else
			gr->l0[gr->n0++] = jb;
	}
	o->now_epoch = 1;
	o->top = (_heap_t){ o->gheap, 0, o->gpos, o->gkey, o->gtie };
	for (g = 0; g < nn; g++) {
		_group_t *gr = &o->group[g];

		qsort_r(gr->l0, gr->n0, sizeof(*gr->l0), _cmp_l0, o);
		qsort_r(gr->l1, gr->n1, sizeof(*gr->l1), _cmp_l1, o);
		_gsync(o, g);
	}
}

/* The per-node and per-job arrays of o.  \return 0 or DL_ENOMEM (what
 * was made is o's, freed with it). */
static int _alloc_jobs(_order_t *o)
{
	uint32_t nn = o->st->nnodes, nj = (uint32_t)o->st->njobs;
	uint32_t nfiles = dl_cache_file_count(o->st->cache);

	o->gantt = calloc(o->nstorage, sizeof(*o->gantt));
	o->group = calloc(nn ? nn : 1, sizeof(*o->group));
	o->done = calloc(nj ? nj : 1, sizeof(*o->done));
	o->rem = calloc(nj ? nj : 1, sizeof(*o->rem));
	o->jn = calloc(nj ? nj : 1, sizeof(*o->jn));
	o->vgen = calloc(nj ? nj : 1, sizeof(*o->vgen));
	o->jf_off = calloc((size_t)nj + 1, sizeof(*o->jf_off));
	o->inv_off = calloc((size_t)nfiles + 1, sizeof(*o->inv_off));
	ALLOC(o->avail, nn);
	ALLOC(o->gkey, nn);
	ALLOC(o->gtie, nn);
	ALLOC(o->gpos, nn);
	ALLOC(o->gheap, nn);
	ALLOC(o->node_of, nj);
	ALLOC(o->rank, nj);
	ALLOC(o->tail, nj);
	ALLOC(o->c, nj);
	ALLOC(o->last, nj);
	return o->gantt && o->group && o->done && o->rem && o->jn &&
			       o->vgen && o->jf_off && o->inv_off && o->avail &&
			       o->gkey && o->gtie && o->gpos && o->gheap &&
			       o->node_of && o->rank && o->tail && o->c &&
			       o->last ?
		       0 :
		       DL_ENOMEM;
}

/* The arrays sized by the files to transfer (o->jf_off, o->maxc) and by
 * the nord ordered jobs.  \return 0 or DL_ENOMEM. */
static int _alloc_needs(_order_t *o, uint32_t nord)
{
	uint32_t nj = (uint32_t)o->st->njobs, maxc = o->maxc;

	ALLOC(o->jf, o->jf_off[nj]);
	ALLOC(o->inv, o->jf_off[nj]);
	ALLOC(o->cpos, maxc);
	ALLOC(o->cheap, maxc);
	ALLOC(o->ct, maxc);
	ALLOC(o->fpos, maxc);
	ALLOC(o->fheap, maxc);
	ALLOC(o->dk, maxc);
	ALLOC(o->ridx, maxc);
	ALLOC(o->rlo, maxc);
	ALLOC(o->rhi, maxc);
	ALLOC(o->rst, maxc);
	ALLOC(o->rtie, maxc);
	ALLOC(o->xf, maxc);
	ALLOC(o->gbuf0, nord);
	ALLOC(o->gbuf1, nord);
	return o->jf && o->inv && o->cpos && o->cheap && o->ct && o->xf &&
			       o->fpos && o->fheap && o->dk && o->ridx &&
			       o->rlo && o->rhi && o->rst && o->rtie &&
			       o->gbuf0 && o->gbuf1 ?
		       0 :
		       DL_ENOMEM;
}

/* How many files each placed job has to transfer (o->jn, o->jf_off,
 * o->maxc). */
static void _count_needs(_order_t *o, const dl__u64set_t *held, size_t *seen)
{
	uint32_t nj = (uint32_t)o->st->njobs, i;

	o->maxc = 0;
	for (i = 0; i < nj; i++) {
		o->jf_off[i + 1] = o->jf_off[i];
		if (o->node_of[i] < 0)
			continue;
		o->jn[i] = _collect(o, i, held, seen, NULL);
		o->jf_off[i + 1] += o->jn[i];
		if (o->jn[i] > o->maxc)
			o->maxc = o->jn[i];
	}
}

/* Those files (o->jf), the per-file job counts, the bytes left per job,
 * each group's nearest storage and each job's read and compute time. */
static void _fill_needs(_order_t *o, const dl__u64set_t *held, size_t *seen)
{
	const dl_state_t *st = o->st;
	uint32_t i, x;

	for (i = 0; i < (uint32_t)st->njobs; i++) {
		const dl_job_t *j = &st->jobs[i];
		_need_t *need = &o->jf[o->jf_off[i]];
		uint32_t n = (uint32_t)o->node_of[i];

		if (o->node_of[i] < 0)
			continue;
		_collect(o, i, held, seen, need);
		for (x = 0; x < o->jn[i]; x++) {
			o->inv_off[need[x].file + 1]++;
			o->rem[i] += dl_file_bytes(st, need[x].file);
			if (need[x].d < o->group[n].dmin)
				o->group[n].dmin = need[x].d;
		}
		o->tail[i] = dl_cost_read_time(st, n, dl_job_bytes(st, j)) +
			     dl_cost_job_compute(st, j);
	}
}

/*
 * Everything but the picks: node availability and files of running jobs,
 * the tie-break ranks, the per-job lists of files to transfer and the
 * per-file lists of jobs, and the groups.
 * \return the number of ordered jobs (>= 0) or DL_ENOMEM.
 */
static int64_t _setup(_order_t *o, const int32_t *assign)
{
	const dl_state_t *st = o->st;
	uint32_t nn = st->nnodes, nfiles = dl_cache_file_count(st->cache);
	uint32_t nj = (uint32_t)st->njobs, nord = 0;
	uint32_t *gcount = calloc((size_t)nn + 1, sizeof(*gcount));
	size_t *seen = calloc(nfiles ? nfiles : 1, sizeof(*seen));
	uint32_t *byprio, *bynode;
	dl__u64set_t held; /* node << 32 | file: a running job's files */
	int64_t rc = DL_ENOMEM;

	dl__u64set_init(&held);
	ALLOC(byprio, nj);
	ALLOC(bynode, nj);
	if (!gcount || !seen || !byprio || !bynode || _alloc_jobs(o))
		goto out;
	if ((rc = _setup_jobs(o, assign, &held, gcount, byprio)) < 0)
		goto out;
	nord = (uint32_t)rc;
	rc = DL_ENOMEM;
	_count_needs(o, &held, seen);
	if (_alloc_needs(o, nord))
		goto out;
	memset(seen, 0, (nfiles ? nfiles : 1) * sizeof(*seen));
	_fill_needs(o, &held, seen);
	_setup_groups(o, nord, gcount, seen, bynode);
	rc = nord;
out:
	dl__u64set_fini(&held);
	free(gcount);
	free(seen);
	free(byprio);
	free(bynode);
	return rc;
}

/*
 * The next job to schedule: the lowest ECT over the groups in the heap.
 * A group's key is a lower bound until it is fresh: a stale group first
 * gets the cheap bound of _group_bound() (it keeps its older exact key
 * when higher: reservations and a later start only delay a job), and if
 * still on top, the exact scan of _group_scan().  A group on top with a
 * fresh key holds the answer, since no other group can do better.
 */
static uint32_t _pick(_order_t *o)
{
	for (;;) {
		uint32_t g = o->top.a[0];
		_group_t *gr = &o->group[g];

		if (gr->epoch == o->now_epoch && gr->fresh)
			return gr->best;
		if (gr->epoch != o->now_epoch && gr->best != NIL &&
		    (!o->jn[gr->best] || _valid(o, gr->best))) {
			/* Its best still completes when it did, and the
			 * others no earlier: nothing to recompute. */
			uint32_t k = gr->best;

			o->gkey[g] = o->jn[k] ? o->last[k]
					      : o->avail[g] + o->tail[k];
			o->gtie[g] = o->rank[k] + 1;
			gr->epoch = o->now_epoch;
			gr->fresh = 1;
		} else if (gr->epoch == o->now_epoch) {
			_group_scan(o, g);
		} else {
			double b = _group_bound(o, g);

			if (b > o->gkey[g])
				o->gkey[g] = b;
			o->gtie[g] = 0;
			gr->epoch = o->now_epoch;
			gr->fresh = 0;
		}
		_hfix(&o->top, g);
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
	n = _setup(&o, assign);
	if (n < 0) {
		rc = (int)n;
		goto fail;
	}
	nord = (uint32_t)n;
	if (nord && !ALLOC(items, nord)) {
		rc = DL_ENOMEM;
		goto fail;
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
		o.now_epoch++;
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
