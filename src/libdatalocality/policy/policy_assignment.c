/*
 * policy_assignment.c - metadata-driven optimal assignment
 * (metadata-scheduling-golubev §2-5).
 *
 * At every scheduling event the first pending jobs, in priority order, are
 * matched to the free job slots of the usable nodes so that the sum of
 * their estimated run times is the smallest (§2's assignment problem,
 * solved by dl_hungarian.h).  A job's cost on a node is
 *   c(i, n) = (bytes of i not cached on n) / RBW + rest(i, n)
 * where rest(i, n), the run time beyond staging, is estimated from the
 * jobs that completed before (§3-4):
 *   - the policy only sees states, so it infers completions: a job that
 *     was running in the previous state and is in neither queue now has
 *     completed, and ran about now - start seconds (a job that went back
 *     to pending was requeued and teaches nothing); its execution metric
 *     is rest = that run time - its staged bytes / RBW, floored at 0, with
 *     the staged bytes those of its files not cached on its node in the
 *     last state where it was pending (or, if it was never seen pending,
 *     in the state where it was first seen running);
 *   - the metadata of a job are its input bytes, its number of files and
 *     the set of its files; the distance of two jobs is
 *       wbytes * |lb(a) - lb(b)| + wfiles * |nfiles(a) - nfiles(b)|
 *         + wshare * (1 - |files(a) & files(b)| / |files(a) | files(b)|)
 *     with lb(x) = log2(1 + bytes(x) / 1 MiB) (§4's sum of attribute
 *     differences, bytes on a log scale);
 *   - rest(i, n) is the mean rest of the k completed jobs nearest to i
 *     that ran on n (§4: "the same node k is considered for both tasks"),
 *     of the k nearest on any node if none ran on n, ties going to the
 *     most recent; with no history at all, the cost model's
 *     dl_cost_job_on_node() stands for the whole c(i, n).
 * §3's normalisation (c - c_min) / c_max is an affine map with a positive
 * factor: it does not change which assignment is cheapest and is skipped.
 *
 * Columns are job slots: node n contributes cpus - busy columns (at most
 * as many as there are rows).  A job may take a slot of node n only if it
 * is eligible there and its cpus fit in n's free slots (a job still counts
 * as one column: the dispatch rule, dl_plan_starts(), stops a node's queue
 * at the first job that does not fit).  Rows are the first
 * min(batch, free slots + lookahead) pending jobs: with lookahead 0 the
 * jobs that start are exactly those that strict priority would start, and
 * the matching only decides where; a lookahead lets cheaper jobs further
 * down the queue take a slot instead, at the risk of starving expensive
 * ones.  Matched jobs get their slot's node; every other pending job gets
 * no preference (node -1), which the dispatch rule starts anywhere room
 * is left, in priority order.
 *
 * The history is a ring of the last "history" completions; the nodes are
 * known by their index in the state, which must therefore be stable.
 *
 * Params: k=<1..64> (3), history=<1..1e6> (1024), batch=<1..4096> (256),
 * lookahead=<0..4096> (0), wbytes=, wfiles=, wshare= (>= 0, each 1).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dl_cost.h"
#include "dl_error.h"
#include "dl_hungarian.h"
#include "dl_policy.h"

/* A node and the bytes of a pending job's files it caches. */
typedef struct {
	uint32_t node;
	uint64_t bytes;
} nodebytes_t;

/* A job of the previous state. */
typedef struct {
	uint32_t id;
	int running;
	int32_t node; /* running: its node */
	double start; /* running */
	uint64_t bytes;
	uint32_t nfiles; /* as the job lists them */
	uint32_t nuniq;
	uint32_t *files; /* sorted, distinct; owned */
	uint64_t staged; /* running: bytes it had to fetch */
	nodebytes_t *cached; /* pending: nodes holding some of its files */
	uint32_t ncached;
} track_t;

/* A completed job: its metadata and execution metric. */
typedef struct {
	uint64_t bytes;
	uint32_t nfiles;
	uint32_t nuniq;
	uint32_t *files; /* sorted, distinct; owned */
	uint32_t node;
	double rest; /* observed run time - modelled staging */
	uint64_t seq; /* completion order */
} obs_t;

typedef struct {
	uint32_t k, batch, lookahead;
	size_t cap;
	double wb, wn, wf;
	obs_t *hist; /* ring of cap entries */
	size_t nhist, head; /* head: the slot the next completion takes */
	uint64_t seq;
	track_t *track; /* the previous state's jobs, by id */
	size_t ntrack;
} assign_t;

static void _track_free(track_t *t, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(t[i].files);
		free(t[i].cached);
	}
	free(t);
}

static void _destroy(void *priv)
{
	assign_t *a = priv;
	size_t i;

	if (!a)
		return;
	for (i = 0; i < a->nhist; i++)
		free(a->hist[i].files);
	free(a->hist);
	_track_free(a->track, a->ntrack);
	free(a);
}

static int _create(const char *params, void **priv)
{
	assign_t *a = calloc(1, sizeof(*a));
	double k = 3, cap = 1024, batch = 256, look = 0;

	if (!a)
		return DL_ENOMEM;
	a->wb = a->wn = a->wf = 1.0;
	if (dl_params_double(params, "k", 1, 64, &k) ||
	    dl_params_double(params, "history", 1, 1e6, &cap) ||
	    dl_params_double(params, "batch", 1, 4096, &batch) ||
	    dl_params_double(params, "lookahead", 0, 4096, &look) ||
	    dl_params_double(params, "wbytes", 0, 1e6, &a->wb) ||
	    dl_params_double(params, "wfiles", 0, 1e6, &a->wn) ||
	    dl_params_double(params, "wshare", 0, 1e6, &a->wf) ||
	    k != floor(k) || cap != floor(cap) || batch != floor(batch) ||
	    look != floor(look)) {
		free(a);
		return DL_EINVAL;
	}
	a->k = (uint32_t) k;
	a->cap = (size_t) cap;
	a->batch = (uint32_t) batch;
	a->lookahead = (uint32_t) look;
	a->hist = calloc(a->cap, sizeof(*a->hist));
	if (!a->hist) {
		free(a);
		return DL_ENOMEM;
	}
	*priv = a;
	return 0;
}

static int _cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *) a, y = *(const uint32_t *) b;

	return (x > y) - (x < y);
}

/* A sorted, distinct copy of a job's files (NULL with *n 0 if none). */
static int _files_copy(const dl_job_t *j, uint32_t **out, uint32_t *n)
{
	uint32_t *f, i, m = 0;

	*out = NULL;
	*n = 0;
	if (!j->nfiles)
		return 0;
	f = malloc(j->nfiles * sizeof(*f));
	if (!f)
		return DL_ENOMEM;
	memcpy(f, j->files, j->nfiles * sizeof(*f));
	qsort(f, j->nfiles, sizeof(*f), _cmp_u32);
	for (i = 0; i < j->nfiles; i++)
		if (!m || f[m - 1] != f[i])
			f[m++] = f[i];
	*out = f;
	*n = m;
	return 0;
}

static track_t *_track_find(track_t *t, size_t n, uint32_t id)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t[mid].id == id)
			return &t[mid];
		if (t[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int _cmp_track(const void *a, const void *b)
{
	const track_t *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

/*
 * The nodes caching some of j's files, and how many of its bytes.
 * IN acc, touched - scratch of nnodes entries, acc all 0 (left all 0)
 */
static int _cached_pairs(const dl_state_t *st, const dl_job_t *j, uint64_t *acc,
			 uint32_t *touched, uint32_t *holders, track_t *t)
{
	uint32_t k, h, nh, nt = 0;

	t->cached = NULL;
	t->ncached = 0;
	for (k = 0; k < j->nfiles; k++) {
		uint64_t b = dl_file_bytes(st, j->files[k]);

		if (!b)
			continue; /* an empty file: nothing to stage */
		nh = dl_cache_holders(st->cache, j->files[k], holders,
				      st->nnodes);
		if (nh > st->nnodes)
			nh = st->nnodes;
		for (h = 0; h < nh; h++) {
			if (holders[h] >= st->nnodes)
				continue;
			if (!acc[holders[h]])
				touched[nt++] = holders[h];
			acc[holders[h]] += b;
		}
	}
	if (nt) {
		t->cached = malloc(nt * sizeof(*t->cached));
		for (k = 0; k < nt; k++) {
			if (t->cached) {
				t->cached[k].node = touched[k];
				t->cached[k].bytes = acc[touched[k]];
			}
			acc[touched[k]] = 0;
		}
		if (!t->cached)
			return DL_ENOMEM;
		t->ncached = nt;
	}
	return 0;
}

static uint64_t _cached_on(const track_t *t, int32_t node)
{
	uint32_t k;

	for (k = 0; k < t->ncached; k++)
		if ((int32_t) t->cached[k].node == node)
			return t->cached[k].bytes;
	return 0;
}

/* Record a completion; takes over t->files. */
static void _observe(assign_t *a, const dl_state_t *st, track_t *t)
{
	double ran = st->now - t->start, rest;
	obs_t *o;

	if (!(ran >= 0) || !isfinite(ran) || t->node < 0)
		return; /* clock went back: nothing to learn */
	rest = ran - dl_cost_transfer_time(st, t->staged);
	o = &a->hist[a->head];
	if (a->nhist == a->cap)
		free(o->files); /* the oldest goes */
	else
		a->nhist++;
	o->bytes = t->bytes;
	o->nfiles = t->nfiles;
	o->nuniq = t->nuniq;
	o->files = t->files;
	t->files = NULL;
	o->node = (uint32_t) t->node;
	o->rest = rest > 0 ? rest : 0;
	o->seq = a->seq++;
	a->head = (a->head + 1) % a->cap;
}

/*
 * Bring the tracked jobs up to this state: learn from the jobs that
 * completed since the previous one, remember what the pending jobs would
 * find cached where, and what the newly running ones had to fetch.
 */
static int _track_update(assign_t *a, const dl_state_t *st)
{
	track_t *nt;
	uint64_t *acc = NULL;
	uint32_t *holders = NULL, *touched = NULL;
	size_t i, n = 0;
	int rc = DL_ENOMEM;

	nt = calloc(st->njobs ? st->njobs : 1, sizeof(*nt));
	acc = calloc(st->nnodes ? st->nnodes : 1, sizeof(*acc));
	holders = malloc((st->nnodes ? st->nnodes : 1) * sizeof(*holders));
	touched = malloc((st->nnodes ? st->nnodes : 1) * sizeof(*touched));
	if (!nt || !acc || !holders || !touched)
		goto fail;
	for (i = 0; i < st->njobs; i++) {
		const dl_job_t *j = &st->jobs[i];
		track_t *t = &nt[n++], *old;

		t->id = j->id;
		t->running = j->state == DL_JOB_RUNNING;
		t->node = t->running ? j->node : -1;
		t->start = j->start;
		t->bytes = dl_job_bytes(st, j);
		t->nfiles = j->nfiles;
		old = _track_find(a->track, a->ntrack, j->id);
		if (old && old->files && old->nfiles == j->nfiles) {
			t->files = old->files; /* a job's files do not change */
			t->nuniq = old->nuniq;
			old->files = NULL;
		} else if (_files_copy(j, &t->files, &t->nuniq)) {
			goto fail;
		}
		if (!t->running) {
			if (_cached_pairs(st, j, acc, touched, holders, t))
				goto fail;
		} else if (old && old->running && old->node == t->node) {
			t->staged = old->staged;
		} else {
			uint64_t had;

			if (old && !old->running)
				had = _cached_on(old, t->node);
			else
				had = dl_cache_bytes_cached(st->cache,
							    (uint32_t) j->node,
							    j->files,
							    j->nfiles);
			t->staged = t->bytes > had ? t->bytes - had : 0;
		}
	}
	qsort(nt, n, sizeof(*nt), _cmp_track);
	for (i = 0; i < a->ntrack; i++) {
		track_t *old = &a->track[i];

		if (old->running && !_track_find(nt, n, old->id)) {
			if (!old->files && old->nfiles)
				continue; /* moved: the id came back twice */
			_observe(a, st, old);
		}
	}
	_track_free(a->track, a->ntrack);
	a->track = nt;
	a->ntrack = n;
	free(acc);
	free(holders);
	free(touched);
	return 0;
fail:
	/* Files moved from the old records go back before freeing. */
	for (i = 0; i < n; i++) {
		track_t *old = _track_find(a->track, a->ntrack, nt[i].id);

		if (old && !old->files && nt[i].files) {
			old->files = nt[i].files;
			nt[i].files = NULL;
		}
	}
	if (nt)
		_track_free(nt, n);
	free(acc);
	free(holders);
	free(touched);
	return rc;
}

/* log2(1 + bytes / MiB): input sizes compared on a log scale. */
static double _lb(uint64_t bytes)
{
	return log2(1.0 + (double) bytes / (1024.0 * 1024.0));
}

/* |A & B| / |A | B| of two sorted distinct lists; 1 when both empty. */
static double _jaccard(const uint32_t *a, uint32_t na, const uint32_t *b,
		       uint32_t nb)
{
	uint32_t i = 0, k = 0, both = 0;

	if (!na && !nb)
		return 1.0;
	while (i < na && k < nb) {
		if (a[i] == b[k]) {
			both++;
			i++;
			k++;
		} else if (a[i] < b[k]) {
			i++;
		} else {
			k++;
		}
	}
	return (double) both / (double) (na + nb - both);
}

/* A history entry and its distance to the job being estimated. */
typedef struct {
	double d;
	const obs_t *o;
} near_t;

static int _cmp_near(const void *a, const void *b)
{
	const near_t *x = a, *y = b;

	if (x->d != y->d)
		return x->d < y->d ? -1 : 1;
	return (x->o->seq < y->o->seq) - (x->o->seq > y->o->seq);
}

/*
 * rest(i, n) for every node: sum and count of the k nearest entries per
 * node, and of the k nearest overall for the nodes with no entry.
 */
static void _knn(const assign_t *a, const dl_state_t *st, const track_t *q,
		 near_t *near, double *sum, uint32_t *cnt, double *global)
{
	double gsum = 0, lbq = _lb(q->bytes);
	uint32_t gcnt = 0;
	size_t i;

	for (i = 0; i < a->nhist; i++) {
		const obs_t *o = &a->hist[i];

		/* §4: sum of attribute differences */
		near[i].d = a->wb * fabs(lbq - _lb(o->bytes)) +
			    a->wn * fabs((double) q->nfiles - o->nfiles) +
			    a->wf * (1.0 - _jaccard(q->files, q->nuniq,
						    o->files, o->nuniq));
		near[i].o = o;
	}
	qsort(near, a->nhist, sizeof(*near), _cmp_near);
	memset(sum, 0, st->nnodes * sizeof(*sum));
	memset(cnt, 0, st->nnodes * sizeof(*cnt));
	for (i = 0; i < a->nhist; i++) {
		uint32_t n = near[i].o->node;

		if (gcnt < a->k) {
			gsum += near[i].o->rest;
			gcnt++;
		}
		if (n < st->nnodes && cnt[n] < a->k) {
			sum[n] += near[i].o->rest;
			cnt[n]++;
		}
	}
	*global = gcnt ? gsum / gcnt : 0;
}

/* c(i, n) with a history: staging of the missing bytes, then kNN rest. */
static double _estimate(const dl_state_t *st, const dl_job_t *j,
			const track_t *t, uint32_t n, const double *sum,
			const uint32_t *cnt, double global)
{
	uint64_t have =
		dl_cache_bytes_cached(st->cache, n, j->files, j->nfiles);
	uint64_t missing = t->bytes > have ? t->bytes - have : 0;

	return dl_cost_transfer_time(st, missing) +
	       (cnt[n] ? sum[n] / cnt[n] : global);
}

/* Free slots per usable node, in all. */
static size_t _free_slots(const dl_state_t *st)
{
	size_t total = 0;
	uint32_t n;

	for (n = 0; n < st->nnodes; n++)
		if (st->nodes[n].usable &&
		    st->nodes[n].cpus > st->nodes[n].busy)
			total += st->nodes[n].cpus - st->nodes[n].busy;
	return total;
}

/* The matrix's columns: a free slot each, at most nrows per node, a
 * node's slots adjacent.  col_node has room for them.  \return their
 * number. */
static size_t _columns(const dl_state_t *st, size_t nrows,
		       uint32_t *col_node)
{
	size_t ncols = 0, f, s;
	uint32_t n;

	for (n = 0; n < st->nnodes; n++) {
		if (!st->nodes[n].usable ||
		    st->nodes[n].cpus <= st->nodes[n].busy)
			continue;
		f = st->nodes[n].cpus - st->nodes[n].busy;
		for (s = 0; s < f && s < nrows; s++)
			col_node[ncols++] = n;
	}
	return ncols;
}

/* Scratch of the cost rows: the nearest neighbours and per-node sums. */
typedef struct {
	near_t *near;
	double *sum;
	uint32_t *cnt;
} _knn_t;

/* Row r of the cost matrix: job j's estimated run time on each column's
 * node (infinite where it may not run now). */
static void _cost_row(assign_t *a, const dl_state_t *st, const dl_job_t *j,
		      const uint32_t *col_node, size_t ncols, _knn_t *k,
		      double *row)
{
	const track_t *t = _track_find(a->track, a->ntrack, j->id);
	double global = 0, est = 0;
	uint32_t last = UINT32_MAX, n;
	size_t c;

	if (a->nhist && t)
		_knn(a, st, t, k->near, k->sum, k->cnt, &global);
	for (c = 0; c < ncols; c++) {
		n = col_node[c];
		if (n != last) {
			/* A node's slots are adjacent and cost alike. */
			last = n;
			if (!dl_state_job_eligible(st, j, n) ||
			    j->cpus > st->nodes[n].cpus - st->nodes[n].busy)
				est = INFINITY;
			else if (!a->nhist || !t)
				est = dl_cost_job_on_node(st, j, n);
			else
				est = _estimate(st, j, t, n, k->sum, k->cnt,
						global);
		}
		row[c] = est;
	}
}

static int _plan(void *priv, const dl_state_t *st, dl_plan_t *plan)
{
	assign_t *a = priv;
	size_t *prio = NULL, nprio = 0, nrows, ncols, r, free_total;
	uint32_t *col_node = NULL;
	double *cost = NULL;
	int32_t *match = NULL;
	_knn_t k = { 0 };
	int rc;

	if ((rc = _track_update(a, st)))
		return rc;
	if (dl_state_priority_order(st, &prio, &nprio))
		return DL_ENOMEM;
	free_total = _free_slots(st);
	nrows = free_total + a->lookahead;
	if (nrows > a->batch)
		nrows = a->batch;
	if (nrows > nprio)
		nrows = nprio;
	rc = 0;
	if (!nrows)
		goto out; /* no free slot or no pending job: all wait */
	rc = DL_ENOMEM;
	col_node =
		malloc((free_total < nrows * st->nnodes ? free_total :
							  nrows * st->nnodes) *
		       sizeof(*col_node));
	if (!col_node)
		goto out;
	ncols = _columns(st, nrows, col_node);
	cost = malloc(nrows * ncols * sizeof(*cost));
	match = malloc(nrows * sizeof(*match));
	k.near = malloc((a->nhist ? a->nhist : 1) * sizeof(*k.near));
	k.sum = malloc(st->nnodes * sizeof(*k.sum));
	k.cnt = malloc(st->nnodes * sizeof(*k.cnt));
	if (!cost || !match || !k.near || !k.sum || !k.cnt)
		goto out;
	for (r = 0; r < nrows; r++)
		_cost_row(a, st, &st->jobs[prio[r]], col_node, ncols, &k,
			  &cost[r * ncols]);
	if ((rc = dl_hungarian_solve(cost, nrows, ncols, match, NULL)))
		goto out;
	for (r = 0; r < nrows; r++)
		if (match[r] >= 0)
			plan->a[prio[r]].node = (int32_t) col_node[match[r]];
out:
	free(prio);
	free(col_node);
	free(cost);
	free(match);
	free(k.near);
	free(k.sum);
	free(k.cnt);
	return rc;
}

const dl_policy_ops_t dl__policy_assignment = {
	.name = "assignment",
	.summary = "kNN run-time estimates + Hungarian assignment to slots",
	.create = _create,
	.destroy = _destroy,
	.plan = _plan,
};
