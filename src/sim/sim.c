/* sim.c - the discrete-event simulator; see sim.h for the model. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dl_cost.h"
#include "dl_error.h"
#include "dl_policy.h"
#include "pfpin.h"
#include "sim.h"
#include "pace.h"
#include "snapkeep.h"

enum {
	EV_ARRIVAL = 0,
	EV_XFER_DONE,
	EV_JOB_DONE,
	EV_WAKE,
	EV_ALLOC /* a node asked for registers */
};

/* What an EV_WAKE is for. */
enum {
	WAKE_REPLAN = 0, /* a full plan is due */
	WAKE_PLACE,      /* a bounded wait ends */
	WAKE_PROV        /* a provisioning decision is due */
};

/* The owner of a fetch that is a plan's copy, not a job's. */
#define COPY_OWNER UINT32_MAX

/*
 * The shortest wait before a placement wake-up, seconds: a wait computed
 * as 0 (or rounded to nothing at a large clock) must still move time on,
 * and a microsecond is the cache tracker's clock tick.
 */
#define WAKE_MIN 1e-6

enum {
	J_FUTURE = 0,
	J_PENDING,
	J_RUNNING,
	J_DONE
};

typedef struct {
	double t;
	uint64_t seq; /* ties: first scheduled, first handled */
	uint32_t type;
	uint32_t arg;
} _ev_t;

/* A job of the workload while it runs through the system. */
typedef struct {
	uint32_t state;
	uint32_t missing; /* files not yet on its node */
	uint8_t *pinned;  /* per file of the job: it holds a pin */
	int planned;      /* covered by the last full plan */
	int32_t pnode;    /* that plan's node */
	double porder;    /* that plan's order */
	size_t run_pos;   /* index in the running list */
	dl_place_t place; /* slurm dispatch: its restriction */
	/* The input bytes the first snapshot summed, kept for the next ones
	 * (dl_state_add_job() keeps them while the sizes stand). */
	uint64_t bytes, bytes_gen, bytes_unknown;
	/* Running: its result record's dispatch and node, here where the
	 * snapshot reads the record above: the result's far larger records
	 * cost a cache miss per running job per event (3% at 1,024 nodes). */
	double dispatch;
	int32_t node;
	/*
	 * Running: its execution time on its node by the cost model
	 * (dl_cost_job_on_node()), valid while that node's cache generation
	 * is exec_cgen - 1 (0: none), the tracker's size generation
	 * exec_sgen and its compute time exec_compute (_remaining()).
	 */
	double exec, exec_compute;
	uint64_t exec_cgen, exec_sgen;
} _job_t;

/* A job and the index of the file in its list. */
typedef struct {
	uint32_t job, k;
} _waiter_t;

/* A file a node is fetching or will fetch, for the jobs waiting on it. */
typedef struct {
	uint32_t file;
	uint32_t owner; /* the job that asked first; its access is the
			     * transfer's (miss or peer hit) */
	int issued;
	_waiter_t *w;
	uint32_t nw, wcap;
} _fetch_t;

typedef struct {
	uint32_t busy; /* slots taken */
	double freed;  /* since when it has had a free slot (dl_node_t) */
	int link_busy; /* a request is out: one file at a time */
	_fetch_t *f;   /* FIFO: in the order jobs started */
	size_t nf, fcap;
	uint64_t cgen; /* counts changes to the node's cache contents */
} _node_t;

typedef struct {
	uint32_t node, file, owner;
	uint32_t src; /* < S: storage node; else peer src - S */
	double dur;
	double queued; /* when it was requested */
} _xfer_t;

/* A storage node, or a compute node serving its cache to peers. */
typedef struct {
	double bw;
	int busy;
	double busy_time;   /* seconds spent serving */
	double backlog_end; /* when the queue would drain (estimate) */
	uint32_t *q;        /* waiting transfers, FIFO ring */
	size_t qh, qn, qcap;
} _src_t;

typedef struct {
	const dl_sim_config_t *cfg;
	const dl_workload_t *wl;
	dl_sim_result_t *res;
	dl_cache_t *cache;
	dl_policy_t *policy;
	dl_params_t params;
	uint32_t P, S, slots;
	uint32_t *storage_of;
	char **names;
	double peer_bw;
	/* The placement rule, priced with peer copies when nodes fetch from
	 * each other, as the plugin does with node cache services. */
	dl_place_params_t place;

	_job_t *jobs;
	_node_t *nodes;
	_src_t *src; /* S storage nodes, then P peers */
	_xfer_t *xf;
	size_t nxf, xfcap;
	uint32_t *xfree; /* recycled transfer slots */
	size_t nxfree;

	_ev_t *heap;
	size_t nheap, heapcap;
	uint64_t seq;

	uint32_t *pending; /* job indices in arrival order, from phead on */
	size_t phead, npending;
	uint32_t *running;
	size_t nrunning;

	double now;
	int dirty; /* something changed since the last full plan */
	dl_sim_pace_t pace; /* when a full plan is due (pace.h) */
	size_t win;         /* pending jobs a plan sees now; 0: all */
	double replan_wake; /* earliest WAKE_REPLAN queued; INFINITY: none */
	size_t arrived;
	uint32_t *hold; /* scratch: holders of a file */

	/*
	 * Slurm dispatch: the last pass's snapshot, its nodes' busy slots as
	 * the pass left them, i.e. the system until the next event; pmap[i]
	 * is the job of its index i and prec[i] that job's record while it
	 * waits (NULL once started).  Owned, replaced at every pass.
	 */
	dl_state_t *pst;
	uint32_t *pmap;
	dl_place_t **prec;
	/* While pjudged: the room and quota of pst and prec that the pass's
	 * expiry computed, for the next _place_account()'s steps (nothing
	 * moves them in between); owned. */
	dl_dispatch_judge_t pjudge;
	int pjudged;
	/* A state no longer used, its jobs cleared, for the next snapshot
	 * to be built in (_snap_free()); owned. */
	dl_state_t *spare;
	/*
	 * The last snapshot's running jobs, kept in it for the next one
	 * while they stand (snapkeep.h): no job ended since (run_ends was
	 * keep_ends; a job started is added at the end of the running list,
	 * as in the state), the file sizes at generation keep_sgen and the
	 * agent's history at keep_runtime, which they were added under.
	 */
	dl_snapkeep_t keep;
	uint64_t run_ends, keep_ends, keep_sgen;
	double keep_runtime;
	double place_wake; /* earliest WAKE_PLACE queued; INFINITY: none */
	double place_floor; /* no record waited before: its last step was
			     * then at the latest (_place_account()); 0 */
	double t0;         /* first arrival: the records' clock starts at 1 */

	dl_prov_pool_t pool; /* every node on unless provisioning */
	uint32_t *alloc_node; /* scratch of dl_prov_pool_allocate() */
	double *alloc_ready;
	int prov_wake;       /* a WAKE_PROV is queued */
	int prov_due;        /* a decision is due after this instant */
	size_t ncopyq;       /* copies queued, not begun, on every node */
	dl_pfpin_t pfpin;    /* the agent's prefetch pins (cfg->prefetch) */
	double runtime;      /* the agent's history (cfg->agent_limit): the
			      * mean whole-second run time, < 0: none */
	double next_sample;  /* the timeline's */
	size_t tlcap;

	char *err;
	size_t errlen;
	int rc;
} _sim_t;

static int _fail(_sim_t *s, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Record the first error (rc and its message).  \return s->rc. */
static int _fail(_sim_t *s, int rc, const char *fmt, ...)
{
	va_list ap;

	if (s->rc)
		return s->rc; /* keep the first error */
	s->rc = rc;
	if (!s->err || !s->errlen)
		return s->rc;
	va_start(ap, fmt);
	vsnprintf(s->err, s->errlen, fmt, ap);
	va_end(ap);
	return s->rc;
}

void dl_sim_config_default(dl_sim_config_t *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->nodes = 4;
	cfg->cores = 1;
	cfg->storage = 4;
	cfg->cache_bytes = 15ULL << 30;
	cfg->eviction = DL_EVICT_VALUE;
	dl_params_default(&cfg->params);
	cfg->policy = "locality";
	cfg->seed = 1;
	cfg->progress_every = 1.0;
	cfg->dispatch = DL_DISPATCH_SLURM;
	dl_place_params_default(&cfg->place);
	dl_prov_config_default(&cfg->prov);
	cfg->copy_queue = 8;
}

static double _wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

/* The tracker's clock: microseconds, for LRU and FIFO order. */
static uint64_t _ticks(double t)
{
	return t > 0 ? (uint64_t) llround(t * 1e6) : 0;
}

static double _dur(uint64_t bytes, double bw)
{
	/* A bandwidth that is not positive is infinite, as in dl_cost.h. */
	return (bw > 0 && isfinite(bw)) ? (double) bytes / bw : 0.0;
}

/* ---------------------------------------------------------------------- */
/* Event heap                                                             */

static int _ev_before(const _ev_t *a, const _ev_t *b)
{
	if (a->t != b->t)
		return a->t < b->t;
	return a->seq < b->seq;
}

static void _push(_sim_t *s, double t, uint32_t type, uint32_t arg)
{
	size_t i;

	if (s->nheap == s->heapcap) {
		size_t ncap = s->heapcap ? s->heapcap * 2 : 1024;
		_ev_t *nh = realloc(s->heap, ncap * sizeof(*nh));

		if (!nh) {
			_fail(s, DL_ENOMEM, "out of memory (event queue)");
			return;
		}
		s->heap = nh;
		s->heapcap = ncap;
	}
	i = s->nheap++;
	s->heap[i].t = t;
	s->heap[i].seq = s->seq++;
	s->heap[i].type = type;
	s->heap[i].arg = arg;
	while (i && _ev_before(&s->heap[i], &s->heap[(i - 1) / 2])) {
		_ev_t tmp = s->heap[i];

		s->heap[i] = s->heap[(i - 1) / 2];
		s->heap[(i - 1) / 2] = tmp;
		i = (i - 1) / 2;
	}
}

static _ev_t _pop(_sim_t *s)
{
	_ev_t top = s->heap[0];
	size_t i = 0;

	s->heap[0] = s->heap[--s->nheap];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		_ev_t tmp;

		if (l < s->nheap && _ev_before(&s->heap[l], &s->heap[m]))
			m = l;
		if (r < s->nheap && _ev_before(&s->heap[r], &s->heap[m]))
			m = r;
		if (m == i)
			break;
		tmp = s->heap[i];
		s->heap[i] = s->heap[m];
		s->heap[m] = tmp;
		i = m;
	}
	return top;
}

/* ---------------------------------------------------------------------- */
/* Cache                                                                  */

static void _on_evict(uint32_t node, uint32_t file, void *arg)
{
	_sim_t *s = arg;

	s->nodes[node].cgen++;
	s->res->evictions++;
	s->res->evicted_bytes += s->wl->files[file].size;
}

static void _check_capacity(_sim_t *s, uint32_t node)
{
	uint64_t used = dl_cache_used(s->cache, node);
	uint64_t cap = dl_cache_capacity(s->cache, node);

	if (used > s->res->peak_cache_bytes)
		s->res->peak_cache_bytes = used;
	if (s->cfg->check && cap != DL_CACHE_UNLIMITED && used > cap)
		s->res->capacity_violations++;
}

/* ---------------------------------------------------------------------- */
/* Transfers                                                              */

static uint32_t _xfer_new(_sim_t *s)
{
	if (s->nxfree)
		return s->xfree[--s->nxfree];
	if (s->nxf == s->xfcap) {
		size_t ncap = s->xfcap ? s->xfcap * 2 : 256;
		_xfer_t *nx = realloc(s->xf, ncap * sizeof(*nx));
		uint32_t *nf = realloc(s->xfree, ncap * sizeof(*nf));

		if (nx)
			s->xf = nx;
		if (nf)
			s->xfree = nf;
		if (!nx || !nf) {
			_fail(s, DL_ENOMEM, "out of memory (transfers)");
			return UINT32_MAX;
		}
		s->xfcap = ncap;
	}
	return (uint32_t) s->nxf++;
}

/* The source begins serving transfer x now. */
static void _serve(_sim_t *s, uint32_t x)
{
	_xfer_t *t = &s->xf[x];

	s->src[t->src].busy = 1;
	s->src[t->src].busy_time += t->dur;
	if (t->owner != COPY_OWNER && s->res->jobs[t->owner].start < 0)
		s->res->jobs[t->owner].start = s->now; /* eq. 1 */
	if (t->src < s->S) {
		s->res->storage_busy += t->dur;
		s->res->storage_queued += s->now - t->queued;
	}
	_push(s, s->now + t->dur, EV_XFER_DONE, x);
}

static void _enqueue(_sim_t *s, uint32_t x)
{
	_src_t *src = &s->src[s->xf[x].src];

	s->xf[x].queued = s->now;
	src->backlog_end = fmax(src->backlog_end, s->now) + s->xf[x].dur;
	if (!src->busy) {
		_serve(s, x);
		return;
	}
	if (src->qn == src->qcap) {
		size_t ncap = src->qcap ? src->qcap * 2 : 16, i;
		uint32_t *nq = malloc(ncap * sizeof(*nq));

		if (!nq) {
			_fail(s, DL_ENOMEM, "out of memory (source queue)");
			return;
		}
		for (i = 0; i < src->qn; i++)
			nq[i] = src->q[(src->qh + i) % src->qcap];
		free(src->q);
		src->q = nq;
		src->qh = 0;
		src->qcap = ncap;
	}
	src->q[(src->qh + src->qn++) % src->qcap] = x;
}

/* Whether node n is on (takes jobs, serves peers, gets copies). */
static int _on(const _sim_t *s, uint32_t n)
{
	return dl_prov_pool_usable(&s->pool, n);
}

/*
 * The source of file for node n with the earliest estimated transfer
 * completion (TCT): its storage node, or with peer fetch a node that is on
 * and caches it; a peer wins ties (it spares the storage).  *tct is set.
 */
static uint32_t _source(_sim_t *s, uint32_t n, uint32_t file, double *tct)
{
	uint64_t size = s->wl->files[file].size;
	uint32_t src = s->storage_of[file], h, nh;
	double best = fmax(s->src[src].backlog_end, s->now) +
		      _dur(size, s->src[src].bw);

	if (s->cfg->peer_fetch) {
		nh = dl_cache_holders(s->cache, file, s->hold, s->P);
		for (h = 0; h < nh && h < s->P; h++) {
			uint32_t ps = s->S + s->hold[h];
			double pt;

			if (s->hold[h] == n || !_on(s, s->hold[h]))
				continue;
			pt = fmax(s->src[ps].backlog_end, s->now) +
			     _dur(size, s->peer_bw);
			if (pt < best || (pt == best && src < s->S) ||
			    (pt == best && ps < src)) {
				best = pt;
				src = ps;
			}
		}
	}
	*tct = best;
	return src;
}

/* Count a transfer that begins: the owner job's access, or a copy. */
static void _count_xfer(_sim_t *s, uint32_t owner, uint32_t src,
			uint64_t size)
{
	dl_sim_job_t *o = owner == COPY_OWNER ? NULL : &s->res->jobs[owner];

	if (!o) {
		s->res->copies++;
		s->res->copy_bytes += size;
		s->res->copies_peer += src >= s->S;
		s->res->copy_bytes_peer += src >= s->S ? size : 0;
	} else if (src < s->S) {
		s->res->miss++;
		s->res->remote_transfers++;
		s->res->remote_bytes += size;
		o->miss++;
		o->bytes_remote += size;
	} else {
		s->res->hit_peer++;
		s->res->peer_transfers++;
		s->res->peer_bytes += size;
		o->hit_peer++;
		o->bytes_peer += size;
	}
}

static void _touch(_sim_t *s, uint32_t n);

/* Request fetch i of node n from src now. */
static void _issue(_sim_t *s, uint32_t n, size_t i, uint32_t src)
{
	_node_t *nd = &s->nodes[n];
	uint32_t x = _xfer_new(s);
	uint64_t size;
	_xfer_t *t;

	if (x == UINT32_MAX)
		return;
	t = &s->xf[x];
	t->node = n;
	t->file = nd->f[i].file;
	t->owner = nd->f[i].owner;
	t->src = src;
	size = s->wl->files[t->file].size;
	t->dur = _dur(size, s->src[src].bw);
	nd->f[i].issued = 1;
	nd->link_busy = 1;
	if (t->owner == COPY_OWNER)
		s->ncopyq--;
	_count_xfer(s, t->owner, src, size);
	if (src >= s->S) {
		/* Keep the peer's copy until it is sent. */
		dl_cache_pin(s->cache, src - s->S, t->file);
	}
	_enqueue(s, x);
	_touch(s, n);
	if (src >= s->S)
		_touch(s, src - s->S);
}

/*
 * The node's link is free: request its next file.  Jobs are served in the
 * order they started; among the first job's files still to come, the one
 * with the earliest estimated transfer completion (TCT, online-hps-khanna
 * §4.3) from its cheapest source goes first.  With no job fetch waiting,
 * the first queued copy begins if its source is idle (sim.h).
 */
static void _pump(_sim_t *s, uint32_t n)
{
	_node_t *nd = &s->nodes[n];
	uint32_t owner, bsrc = 0;
	size_t i, best = SIZE_MAX;
	double btct = 0;

	if (nd->link_busy)
		return;
	for (i = 0; i < nd->nf &&
		    (nd->f[i].issued || nd->f[i].owner == COPY_OWNER);
	     i++)
		;
	if (i == nd->nf) {
		for (i = 0; i < nd->nf && nd->f[i].issued; i++)
			;
		if (i == nd->nf)
			return;
		bsrc = _source(s, n, nd->f[i].file, &btct);
		if (!s->src[bsrc].busy && !s->src[bsrc].qn)
			_issue(s, n, i, bsrc);
		return;
	}
	owner = nd->f[i].owner;
	for (; i < nd->nf; i++) {
		_fetch_t *f = &nd->f[i];
		uint32_t src;
		double tct;

		if (f->issued || f->owner != owner)
			continue;
		src = _source(s, n, f->file, &tct);
		if (best == SIZE_MAX || tct < btct) {
			best = i;
			btct = tct;
			bsrc = src;
		}
	}
	_issue(s, n, best, bsrc);
}

/* ---------------------------------------------------------------------- */
/* Jobs                                                                   */

static void _staged(_sim_t *s, uint32_t j)
{
	dl_sim_job_t *r = &s->res->jobs[j];

	r->staged = s->now;
	if (r->start < 0)
		r->start = r->dispatch; /* no transfer of its own */
	/* the launch overhead at the end: same slot time, same response */
	_push(s, s->now + r->read + r->compute + s->cfg->launch, EV_JOB_DONE,
	      j);
}

static int _add_waiter(_sim_t *s, _fetch_t *f, uint32_t j, uint32_t k)
{
	if (f->nw == f->wcap) {
		uint32_t ncap = f->wcap ? f->wcap * 2 : 4;
		_waiter_t *nw = realloc(f->w, ncap * sizeof(*nw));

		if (!nw) {
			_fail(s, DL_ENOMEM, "out of memory (waiters)");
			return -1;
		}
		f->w = nw;
		f->wcap = ncap;
	}
	f->w[f->nw].job = j;
	f->w[f->nw++].k = k;
	return 0;
}

/* A new fetch of file at the end of the node's list; NULL on ENOMEM. */
static _fetch_t *_fetch_add(_sim_t *s, _node_t *nd, uint32_t file,
			    uint32_t owner)
{
	_fetch_t *fe;

	if (nd->nf == nd->fcap) {
		size_t ncap = nd->fcap ? nd->fcap * 2 : 16;
		_fetch_t *nf = realloc(nd->f, ncap * sizeof(*nf));

		if (!nf) {
			_fail(s, DL_ENOMEM, "out of memory (fetches)");
			return NULL;
		}
		nd->f = nf;
		nd->fcap = ncap;
	}
	fe = &nd->f[nd->nf++];
	memset(fe, 0, sizeof(*fe));
	fe->file = file;
	fe->owner = owner;
	return fe;
}

static void _start_job(_sim_t *s, uint32_t j, uint32_t n)
{
	const dl_wl_job_t *wj = &s->wl->jobs[j];
	_job_t *job = &s->jobs[j];
	dl_sim_job_t *r = &s->res->jobs[j];
	_node_t *nd = &s->nodes[n];
	uint64_t tick = _ticks(s->now);
	_fetch_t *fe;
	uint32_t k;

	job->state = J_RUNNING;
	job->missing = 0;
	/* The agent sees the node's state change (pace.h). */
	dl_sim_pace_moved(&s->pace);
	if (s->pace.agent)
		s->dirty = 1;
	job->run_pos = s->nrunning;
	s->running[s->nrunning++] = j;
	nd->busy += wj->cpus;
	r->node = (int32_t) n;
	r->dispatch = s->now;
	job->node = r->node;
	job->dispatch = r->dispatch;
	for (k = 0; k < wj->nfiles; k++) {
		uint32_t f = wj->files[k];
		size_t i;

		s->res->accesses++;
		if (dl_cache_contains(s->cache, n, f)) {
			dl_cache_access(s->cache, n, f, tick);
			if (dl_cache_pin(s->cache, n, f) == 0)
				job->pinned[k] = 1;
			s->res->hit_local++;
			r->hit_local++;
			continue;
		}
		for (i = 0; i < nd->nf && nd->f[i].file != f; i++)
			;
		if (i < nd->nf && nd->f[i].owner == COPY_OWNER &&
		    !nd->f[i].issued) {
			/* A copy not begun: the job fetches the file itself,
			 * in its own turn. */
			free(nd->f[i].w);
			memmove(&nd->f[i], &nd->f[i + 1],
				(nd->nf - i - 1) * sizeof(*nd->f));
			nd->nf--;
			s->ncopyq--;
			s->res->copies_dropped++;
			i = nd->nf;
		}
		if (i < nd->nf) {
			/* Coming for another job on this node, or a copy
			 * under way: wait for it. */
			if (_add_waiter(s, &nd->f[i], j, k))
				return;
			s->res->hit_local++;
			r->hit_local++;
			job->missing++;
			continue;
		}
		fe = _fetch_add(s, nd, f, j);
		if (!fe || _add_waiter(s, fe, j, k))
			return;
		job->missing++;
	}
	if (!job->missing)
		_staged(s, j);
	else
		_pump(s, n);
	_touch(s, n);
}

static void _xfer_done(_sim_t *s, uint32_t x)
{
	_xfer_t t = s->xf[x];
	_src_t *src = &s->src[t.src];
	_node_t *nd = &s->nodes[t.node];
	uint64_t tick = _ticks(s->now);
	_fetch_t f;
	size_t i;
	int rc;

	s->xfree[s->nxfree++] = x;
	src->busy = 0;
	if (src->qn) {
		uint32_t next = src->q[src->qh];

		src->qh = (src->qh + 1) % src->qcap;
		src->qn--;
		_serve(s, next);
	}
	if (t.src >= s->S)
		dl_cache_unpin(s->cache, t.src - s->S, t.file);
	for (i = 0; i < nd->nf && nd->f[i].file != t.file; i++)
		;
	if (i == nd->nf) {
		_fail(s, DL_EINVAL,
		      "internal: transfer of file %u to node %u has no fetch",
		      t.file, t.node);
		return;
	}
	f = nd->f[i];
	memmove(&nd->f[i], &nd->f[i + 1], (nd->nf - i - 1) * sizeof(*nd->f));
	nd->nf--;
	nd->link_busy = 0;

	rc = dl_cache_insert(s->cache, t.node, t.file, tick, _on_evict, s);
	nd->cgen++;
	if (rc == 0)
		dl_pfpin_inserted(&s->pfpin, t.node, t.file);
	_check_capacity(s, t.node);
	if (f.owner == COPY_OWNER) {
		/* The insert counted a use that no job made: the tracker has
		 * no insert without one, so a copied file's AccessFreq is one
		 * more than its uses. */
		s->res->copies_done += rc == 0;
		s->res->copies_dropped += rc != 0;
	}
	for (i = 0; i < f.nw; i++) {
		uint32_t j = f.w[i].job;

		if (rc == 0) {
			/* The insert counted the first use; count the others
			 * (every waiter's for a copy). */
			if (i || f.owner == COPY_OWNER)
				dl_cache_access(s->cache, t.node, t.file, tick);
			if (dl_cache_pin(s->cache, t.node, t.file) == 0)
				s->jobs[j].pinned[f.w[i].k] = 1;
		} else {
			s->res->bypass++;
			s->res->jobs[j].bypass++;
		}
		if (--s->jobs[j].missing == 0)
			_staged(s, j);
	}
	free(f.w);
	if (rc && rc != DL_ENOSPC)
		_fail(s, rc, "cache insert of file %u on node %u: %s", t.file,
		      t.node, dl_strerror(rc));
	s->dirty = 1;
	_pump(s, t.node);
	_touch(s, t.node);
	if (t.src >= s->S)
		_touch(s, t.src - s->S);
}

/*
 * The agent learns a job with files from Slurm's start and end, whole
 * seconds: a shorter run often spans none and is not learnt, so that the
 * history of sub-second jobs is 1 s or more (dl_agent.c).
 */
static void _learn_runtime(_sim_t *s, uint32_t j)
{
	double secs = floor(s->now) - floor(s->res->jobs[j].dispatch);

	if (s->cfg->agent_limit > 0 && s->wl->jobs[j].nfiles && secs > 0)
		dl_runtime_learn(&s->runtime, secs);
}

static void _job_done(_sim_t *s, uint32_t j)
{
	const dl_wl_job_t *wj = &s->wl->jobs[j];
	_job_t *job = &s->jobs[j];
	dl_sim_job_t *r = &s->res->jobs[j];
	uint32_t k, n = (uint32_t) r->node, last;

	for (k = 0; k < wj->nfiles; k++)
		if (job->pinned[k]) {
			dl_cache_unpin(s->cache, n, wj->files[k]);
			job->pinned[k] = 0;
		}
	if (s->nodes[n].busy >= s->cfg->cores)
		s->nodes[n].freed = s->now;
	s->nodes[n].busy -= wj->cpus;
	job->state = J_DONE;
	r->end = s->now;
	_learn_runtime(s, j);
	r->completions++;
	s->res->completed++;
	s->run_ends++; /* the list's order changes (_snap_kept()) */
	dl_sim_pace_moved(&s->pace);
	last = s->running[--s->nrunning];
	s->running[job->run_pos] = last;
	s->jobs[last].run_pos = job->run_pos;
	s->dirty = 1;
	_touch(s, n);
}

/* ---------------------------------------------------------------------- */
/* Provisioning and copies                                                */

/* Node n does nothing: no job, no transfer to it, none served from it. */
static int _idle(const _sim_t *s, uint32_t n)
{
	const _src_t *peer = &s->src[s->S + n];

	return !s->nodes[n].busy && !s->nodes[n].link_busy && !peer->busy &&
	       !peer->qn;
}

/* Tell the pool whether node n works, after anything that may change it. */
static void _touch(_sim_t *s, uint32_t n)
{
	if (!s->cfg->prov.enabled)
		return;
	if (_idle(s, n))
		dl_prov_pool_idle(&s->pool, n, s->now);
	else
		dl_prov_pool_busy(&s->pool, n);
}

/* Drop node n's copies that have not begun, but those keep asks for. */
static void _copies_drop(_sim_t *s, uint32_t n, const dl_plan_t *keep)
{
	_node_t *nd = &s->nodes[n];
	size_t i, k = 0, c;

	for (i = 0; i < nd->nf; i++) {
		_fetch_t *f = &nd->f[i];
		int kept = f->owner != COPY_OWNER || f->issued;

		for (c = 0; !kept && keep && c < keep->ncopies; c++)
			kept = keep->copies[c].node == n &&
			       keep->copies[c].file == f->file;
		if (kept) {
			nd->f[k++] = *f;
			continue;
		}
		free(f->w);
		s->ncopyq--;
		s->res->copies_dropped++;
	}
	nd->nf = k;
}

/* Queue one copy of a plan on its node, unless pointless or no room. */
static void _copy_queue(_sim_t *s, uint32_t file, uint32_t n)
{
	_node_t *nd = &s->nodes[n];
	size_t i, queued = 0;

	for (i = 0; i < nd->nf; i++) {
		if (nd->f[i].file == file)
			return; /* coming already (kept from before) */
		queued += nd->f[i].owner == COPY_OWNER && !nd->f[i].issued;
	}
	if (!_on(s, n) || dl_cache_contains(s->cache, n, file) ||
	    queued >= s->cfg->copy_queue) {
		s->res->copies_dropped++;
		return;
	}
	if (_fetch_add(s, nd, file, COPY_OWNER))
		s->ncopyq++;
}

/*
 * A full plan's copies replace those not begun; ids are the state's,
 * which are the simulator's (nodes in order, files interned in order).
 */
static void _copies_plan(_sim_t *s, const dl_plan_t *plan)
{
	uint32_t n;
	size_t c;

	if (s->ncopyq)
		for (n = 0; n < s->P; n++)
			_copies_drop(s, n, plan);
	for (c = 0; c < plan->ncopies && !s->rc; c++) {
		const dl_copy_t *cp = &plan->copies[c];

		if (cp->node >= s->P || cp->file >= s->wl->nfiles) {
			s->res->copies_dropped++;
			continue;
		}
		_copy_queue(s, cp->file, cp->node);
	}
	for (n = 0; n < s->P && s->ncopyq; n++)
		_pump(s, n);
}

/* Copies wait for idle sources: try every node again after an instant. */
static void _copies_pump(_sim_t *s)
{
	uint32_t n;

	for (n = 0; n < s->P && s->ncopyq; n++)
		if (!s->nodes[n].link_busy && s->nodes[n].nf)
			_pump(s, n);
}

/* Release node n if its idle time is due; its cache goes unless kept. */
static void _release(_sim_t *s, uint32_t n)
{
	if (!_idle(s, n) || !dl_prov_pool_release(&s->pool, n, s->now))
		return;
	_copies_drop(s, n, NULL);
	dl_pfpin_drop_node(&s->pfpin, n);
	if (!s->cfg->prov.keep_cache) {
		dl_cache_set_capacity(s->cache, n, 0);
		dl_cache_trim(s->cache, n, NULL, NULL);
		dl_cache_set_capacity(s->cache, n, s->cfg->cache_bytes);
		s->nodes[n].cgen++;
	}
	s->dirty = 1;
}

/*
 * A decision of the provisioner: release the nodes idle long enough, then
 * ask for what the wait queue needs.  The next decision is queued while
 * it could do something: jobs wait, nodes boot, or more than the minimum
 * are on.
 */
static void _provision(_sim_t *s)
{
	dl_prov_pool_t *p = &s->pool;
	uint32_t n, k;

	s->prov_due = 0;
	for (n = 0; n < s->P; n++)
		if (_on(s, n))
			_release(s, n);
	k = dl_prov_pool_allocate(p, s->now, s->npending, s->cfg->cores,
				  s->alloc_node, s->alloc_ready);
	for (n = 0; n < k; n++)
		_push(s, s->alloc_ready[n], EV_ALLOC, s->alloc_node[n]);
	if (!s->prov_wake && s->res->completed < s->wl->njobs &&
	    (s->npending || p->booting || p->on > p->cfg.min_nodes)) {
		s->prov_wake = 1;
		_push(s, s->now + p->cfg.interval, EV_WAKE, WAKE_PROV);
	}
}

/* Record the system as it is at t (before the events of a later instant). */
static void _sample(_sim_t *s, double t)
{
	dl_sim_result_t *r = s->res;
	dl_sim_sample_t *x;
	uint32_t n;

	if (r->ntimeline >= DL_SIM_TIMELINE_MAX)
		return;
	if (r->ntimeline == s->tlcap) {
		size_t ncap = s->tlcap ? s->tlcap * 2 : 256;
		dl_sim_sample_t *nt = realloc(r->timeline, ncap * sizeof(*nt));

		if (!nt) {
			_fail(s, DL_ENOMEM, "out of memory (timeline)");
			return;
		}
		r->timeline = nt;
		s->tlcap = ncap;
	}
	x = &r->timeline[r->ntimeline++];
	memset(x, 0, sizeof(*x));
	x->t = t;
	x->on = s->pool.on;
	x->booting = s->pool.booting;
	x->queued = s->npending;
	x->running = s->nrunning;
	x->arrived = s->arrived;
	x->completed = r->completed;
	x->hit_local = r->hit_local;
	x->hit_peer = r->hit_peer;
	x->miss = r->miss;
	for (n = 0; n < s->P; n++)
		x->busy_slots += s->nodes[n].busy;
}

/* ---------------------------------------------------------------------- */
/* Planning                                                               */

static uint32_t _free_slots(const _sim_t *s)
{
	uint32_t n, free = 0;

	for (n = 0; n < s->P; n++)
		if (_on(s, n))
			free += s->cfg->cores - s->nodes[n].busy;
	return free;
}

/*
 * How many pending jobs (a prefix in arrival order) a plan may see: the
 * window _schedule() set for this instant's snapshot and starts.
 */
static size_t _visible(const _sim_t *s)
{
	if (s->win && s->npending > s->win)
		return s->win;
	return s->npending;
}

/*
 * Which pending jobs a snapshot holds.  A carried dispatch by the plan
 * only needs the jobs the last plan put on a node with a free slot (or on
 * no node): dl_plan_starts() starts nothing on a full node.  A carried
 * slurm pass leaves out the jobs with input that no plan has seen yet:
 * the plugin's job_submit holds such a job back until it is placed.
 */
enum {
	SNAP_ALL = 0,
	SNAP_CARRIED,
	SNAP_PLACED
};

static int _snap_skip(const _sim_t *s, uint32_t j, int mode)
{
	const _job_t *job = &s->jobs[j];

	if (mode == SNAP_CARRIED)
		return !job->planned ||
		       (job->pnode >= 0 &&
			s->nodes[job->pnode].busy >= s->cfg->cores);
	if (mode == SNAP_PLACED)
		return !job->planned && s->wl->jobs[j].nfiles;
	return 0;
}

/* Node n of a state built before as dl_state_add_node() leaves it (its
 * name is the same). */
static void _snap_node(dl_state_t *st, uint32_t n, uint32_t cpus, int usable)
{
	char *name = st->nodes[n].name;

	memset(&st->nodes[n], 0, sizeof(st->nodes[n]));
	st->nodes[n].name = name;
	st->nodes[n].cpus = cpus ? cpus : 1;
	st->nodes[n].usable = usable;
}

static void _snap_destroy(_sim_t *s, dl_state_t *st)
{
	if (dl_snapkeep_holds(&s->keep, st))
		dl_snapkeep_forget(&s->keep);
	dl_state_destroy(st);
}

/*
 * Done with snapshot st: kept for the next one to be built in, its
 * pending jobs dropped (its running ones too unless it is the last one
 * built), or freed if one is kept already; the last one built is kept
 * rather than an older one.
 */
static void _snap_free(_sim_t *s, dl_state_t *st)
{
	if (!st)
		return;
	if (s->spare && !dl_snapkeep_holds(&s->keep, st)) {
		dl_state_destroy(st);
		return;
	}
	if (dl_snapkeep_truncate(&s->keep, st))
		dl_state_clear_jobs(st);
	if (s->spare)
		_snap_destroy(s, s->spare);
	s->spare = st;
}

/*
 * Whether the running jobs kept in st (_snap_free()) are the first a
 * snapshot would add now: the same list but for jobs started since (at
 * its end), the same sizes and history.
 */
static int _snap_kept(const _sim_t *s, const dl_state_t *st)
{
	return dl_snapkeep_holds(&s->keep, st) &&
	       st->njobs == s->keep.njobs && s->keep.njobs <= s->nrunning &&
	       s->keep_ends == s->run_ends &&
	       s->keep_sgen == dl_cache_size_gen(s->cache) &&
	       !memcmp(&s->keep_runtime, &s->runtime, sizeof(s->runtime));
}

/* The entry of job j (running or pending) as a snapshot adds it. */
static void _snap_job(const _sim_t *s, uint32_t j, int running, dl_job_t *dj)
{
	const dl_wl_job_t *wj = &s->wl->jobs[j];

	memset(dj, 0, sizeof(*dj));
	dj->id = wj->id;
	dj->state = running ? DL_JOB_RUNNING : DL_JOB_PENDING;
	dj->nfiles = wj->nfiles;
	dj->files = wj->files;
	dj->cpus = wj->cpus;
	dj->arrival = wj->arrival;
	dj->compute = wj->compute;
	/* A running job's only: the records of 250K tasks are far apart,
	 * and this loop reads thousands at every event. */
	dj->start = running ? s->jobs[j].dispatch : 0;
	if (s->cfg->agent_limit > 0) {
		/* What the plugin knows: Slurm's whole seconds. */
		dj->compute = dl_runtime_estimate(s->runtime,
						  s->cfg->agent_limit);
		dj->start = floor(dj->start);
	}
	dj->node = running ? s->jobs[j].node : -1;
	dj->bytes = s->jobs[j].bytes;
	dj->bytes_gen = s->jobs[j].bytes_gen;
	dj->bytes_unknown = s->jobs[j].bytes_unknown;
}

/* Add job j to st, keeping the input bytes it summed.  \return 0 or
 * DL_ENOMEM (s->rc not set). */
static int _snap_add(_sim_t *s, dl_state_t *st, uint32_t j, int running)
{
	dl_job_t dj;
	size_t k = st->njobs;

	_snap_job(s, j, running, &dj);
	if (dl_state_add_job(st, &dj) < 0)
		return DL_ENOMEM;
	s->jobs[j].bytes = st->jobs[k].bytes;
	s->jobs[j].bytes_gen = st->jobs[k].bytes_gen;
	s->jobs[j].bytes_unknown = st->jobs[k].bytes_unknown;
	return 0;
}

/*
 * With checks: st's first k jobs, kept from the last snapshot, against
 * the running jobs a snapshot would add now (_snap_job()), and the reads
 * set of each.  \return 0, or DL_EINVAL with s->rc set.
 */
static int _snap_check(_sim_t *s, const dl_state_t *st, size_t k)
{
	size_t i;
	uint32_t f;

	for (i = 0; i < k; i++) {
		const dl_job_t *kj = &st->jobs[i];
		dl_job_t dj;
		int same;

		_snap_job(s, s->running[i], 1, &dj);
		same = kj->id == dj.id && kj->state == dj.state &&
		       kj->node == dj.node &&
		       kj->cpus == (dj.cpus ? dj.cpus : 1) &&
		       kj->nfiles == dj.nfiles && kj->arrival == dj.arrival &&
		       kj->compute == dj.compute && kj->start == dj.start &&
		       kj->bytes == dl_job_bytes(st, kj) && !kj->eligible &&
		       (!dj.nfiles ||
			!memcmp(kj->files, dj.files,
				dj.nfiles * sizeof(*dj.files)));
		for (f = 0; same && f < dj.nfiles; f++)
			same = dl_state_node_reads(st, (uint32_t)dj.node,
						   dj.files[f]);
		if (!same)
			return _fail(s, DL_EINVAL,
				     "internal: kept running job %zu (id %u) of the snapshot at t=%.3f is not the job %u it would add",
				     i, kj->id, s->now, dj.id);
	}
	return 0;
}

/* The running jobs into st after those it has (kept), and the mark that
 * keeps them all (_snap_kept()).  \return 0 or DL_ENOMEM. */
static int _snap_running(_sim_t *s, dl_state_t *st)
{
	size_t i;

	for (i = st->njobs; i < s->nrunning; i++)
		if (_snap_add(s, st, s->running[i], 1))
			return DL_ENOMEM;
	dl_snapkeep_mark(&s->keep, st);
	s->keep_ends = s->run_ends;
	s->keep_sgen = dl_cache_size_gen(s->cache);
	s->keep_runtime = s->runtime;
	return 0;
}

/*
 * The snapshot a plan sees: every node, the running jobs, then the first
 * _visible() pending jobs in arrival order, but those mode leaves out
 * (_snap_skip()).  map[i] is the job of state index i.  The running jobs
 * are those kept from the last snapshot if they stand (_snap_kept()).
 */
static dl_state_t *_snapshot(_sim_t *s, int mode, uint32_t **map)
{
	dl_state_t *st = s->spare ? s->spare :
				    dl_state_create(s->cache, &s->params);
	uint32_t *m, n;
	size_t i, k, npend = _visible(s), reads = 0;
	int fresh = !s->spare, kept = _snap_kept(s, st);

	s->spare = NULL;
	m = malloc((s->nrunning + npend + 1) * sizeof(*m));
	if (!st || !m)
		goto fail;
	if (!kept) {
		dl_snapkeep_forget(&s->keep);
		dl_state_clear_jobs(st);
		for (i = 0; i < s->nrunning; i++)
			reads += s->wl->jobs[s->running[i]].nfiles;
	}
	/* Optional: without it the same state is built, growing as it goes. */
	(void)dl_state_reserve(st, s->P, s->nrunning + npend, reads);
	st->params = s->params;
	for (n = 0; n < s->P; n++) {
		if (fresh && dl_state_add_node(st, s->names[n], s->cfg->cores,
					       _on(s, n)) < 0)
			goto fail;
		if (!fresh)
			_snap_node(st, n, s->cfg->cores, _on(s, n));
		st->nodes[n].busy = s->nodes[n].busy;
		st->nodes[n].freed = s->nodes[n].freed;
	}
	st->now = s->now;
	s->res->snapshots++;
	s->res->snapshots_kept += kept;
	if (npend > s->res->max_shown)
		s->res->max_shown = npend;
	if (kept && s->cfg->check && _snap_check(s, st, st->njobs))
		goto out;
	if (_snap_running(s, st))
		goto fail;
	for (k = 0; k < s->nrunning; k++)
		m[k] = s->running[k];
	for (i = 0; i < npend; i++) {
		uint32_t j = s->pending[s->phead + i];

		if (_snap_skip(s, j, mode))
			continue;
		if (_snap_add(s, st, j, 0))
			goto fail;
		m[k++] = j;
	}
	*map = m;
	return st;
fail:
	_fail(s, DL_ENOMEM, "out of memory (state)");
out:
	_snap_destroy(s, st);
	free(m);
	return NULL;
}

/*
 * Drop the started jobs from the pending list, keeping its order: they all
 * sit in the visible prefix, whose waiting jobs move back to close the
 * gaps; the head moves past what is left in front.
 */
static void _drop_started(_sim_t *s)
{
	size_t i, k, lim = _visible(s);

	for (i = k = lim; i-- > 0;)
		if (s->jobs[s->pending[s->phead + i]].state == J_PENDING)
			s->pending[s->phead + --k] = s->pending[s->phead + i];
	s->phead += k;
	s->npending -= k;
}

static void _dispatch(_sim_t *s, const dl_state_t *st, const dl_plan_t *plan,
		      const uint32_t *map)
{
	dl_start_t *starts = NULL;
	size_t n = 0, i;
	int rc;

	rc = dl_plan_starts(st, plan, &starts, &n);
	if (rc) {
		_fail(s, rc, "dl_plan_starts: %s", dl_strerror(rc));
		return;
	}
	for (i = 0; i < n && !s->rc; i++)
		_start_job(s, map[starts[i].job], starts[i].node);
	free(starts);
	if (n)
		_drop_started(s);
}

/*
 * The running jobs' remaining times in st by the cost model, as
 * dl_policy_plan() computes them (dl_cost_job_remaining()), by state
 * index (0 for a pending job); NULL on ENOMEM.  A running job's execution
 * time on its node is kept from the last plan while nothing it depends on
 * changed (_job_t.exec): at 1,024 nodes, recomputing it for ~1,000
 * running jobs at every plan was 10% of dl-sim's time.
 */
static double *_remaining(_sim_t *s, const dl_state_t *st,
			  const uint32_t *map)
{
	double *rem = malloc((st->njobs ? st->njobs : 1) * sizeof(*rem));
	uint64_t sgen = dl_cache_size_gen(s->cache);
	size_t i;

	for (i = 0; rem && i < st->njobs; i++) {
		const dl_job_t *dj = &st->jobs[i];
		_job_t *j = &s->jobs[map[i]];
		double ran;

		rem[i] = 0.0;
		if (dj->state != DL_JOB_RUNNING || dj->node < 0 ||
		    (uint32_t)dj->node >= st->nnodes)
			continue;
		if (j->exec_cgen != s->nodes[dj->node].cgen + 1 ||
		    j->exec_sgen != sgen || j->exec_compute != dj->compute) {
			j->exec = dl_cost_job_on_node(st, dj,
						      (uint32_t)dj->node);
			j->exec_cgen = s->nodes[dj->node].cgen + 1;
			j->exec_sgen = sgen;
			j->exec_compute = dj->compute;
		}
		/* dl_cost_job_remaining()'s rule, on the kept time. */
		ran = st->now - dj->start;
		if (!(ran > 0))
			ran = 0.0;
		rem[i] = j->exec > ran ? j->exec - ran : 0.0;
		/* With checks, the kept time against the cost model's own
		 * (st has no remaining times: it computes them). */
		if (s->cfg->check && rem[i] != dl_cost_job_remaining(st, dj)) {
			_fail(s, DL_EINVAL,
			      "internal: job %u's kept remaining time %.17g is not the cost model's %.17g",
			      dj->id, rem[i], dl_cost_job_remaining(st, dj));
			free(rem);
			return NULL;
		}
	}
	return rem;
}

/*
 * Ask the policy for a plan of st, timed, and remember its decision for
 * every pending job, for the plans carried over until the next one.
 * \return the plan (free with dl_plan_free()), NULL on error (s->rc set).
 */
static dl_plan_t *_policy_plan(_sim_t *s, const dl_state_t *st,
			       const uint32_t *map)
{
	dl_plan_t *plan = NULL;
	dl_state_t view;
	double t0, dt, *rem;
	size_t i;
	int rc;

	t0 = _wall();
	/* The policy's view carries them (dl_state_t.remaining); on ENOMEM
	 * it computes them itself. */
	if ((rem = _remaining(s, st, map))) {
		view = *st;
		view.remaining = rem;
	}
	if (s->rc)
		return NULL;
	rc = dl_policy_plan(s->policy, rem ? &view : st, &plan);
	free(rem);
	dt = _wall() - t0;
	s->res->plans++;
	s->res->plans_why[dl_sim_pace_why(&s->pace, s->now)]++;
	s->res->plan_seconds += dt;
	if (dt > s->res->plan_seconds_max)
		s->res->plan_seconds_max = dt;
	if (rc) {
		_fail(s, rc, "policy %s failed at t=%.3f: %s",
		      dl_policy_name(s->policy), s->now, dl_strerror(rc));
		dl_plan_free(plan);
		return NULL;
	}
	s->res->fallback_plans += plan->fallback != 0;
	for (i = 0; i < st->njobs; i++) {
		_job_t *j = &s->jobs[map[i]];

		if (st->jobs[i].state != DL_JOB_PENDING)
			continue;
		j->planned = 1;
		j->pnode = plan->a[i].node;
		j->porder = plan->a[i].order;
	}
	dl_sim_pace_planned(&s->pace, s->now);
	s->dirty = 0;
	/* Not timed: the agent prefetches apart from the policy's plan. */
	if (s->cfg->prefetch &&
	    (rc = dl_plan_prefetch(st, plan, s->cfg->prefetch,
				   s->cfg->prefetch_budget))) {
		_fail(s, rc, "prefetch at t=%.3f: %s", s->now,
		      dl_strerror(rc));
		dl_plan_free(plan);
		return NULL;
	}
	if (s->cfg->prefetch &&
	    (rc = dl_pfpin_apply(&s->pfpin, plan->pins, plan->npins))) {
		_fail(s, rc, "prefetch pins at t=%.3f: %s", s->now,
		      dl_strerror(rc));
		dl_plan_free(plan);
		return NULL;
	}
	_copies_plan(s, plan);
	return plan;
}

static void _plan_full(_sim_t *s)
{
	uint32_t *map = NULL;
	dl_state_t *st = _snapshot(s, SNAP_ALL, &map);
	dl_plan_t *plan;

	if (!st)
		return;
	plan = _policy_plan(s, st, map);
	if (plan)
		_dispatch(s, st, plan, map);
	dl_plan_free(plan);
	_snap_free(s, st);
	free(map);
}

/* Dispatch with the last full plan's decisions (a plan due too early). */
static void _plan_carried(_sim_t *s)
{
	uint32_t *map = NULL;
	dl_state_t *st = _snapshot(s, SNAP_CARRIED, &map);
	dl_plan_t *plan;
	size_t i;

	if (!st)
		return;
	plan = calloc(1, sizeof(*plan));
	if (plan)
		plan->a = calloc(st->njobs ? st->njobs : 1, sizeof(*plan->a));
	if (!plan || !plan->a) {
		_fail(s, DL_ENOMEM, "out of memory (plan)");
		goto out;
	}
	plan->n = st->njobs;
	snprintf(plan->policy, sizeof(plan->policy), "%s",
		 dl_policy_name(s->policy));
	for (i = 0; i < st->njobs; i++) {
		const _job_t *j = &s->jobs[map[i]];

		plan->a[i].job_id = st->jobs[i].id;
		if (st->jobs[i].state == DL_JOB_RUNNING) {
			plan->a[i].node = st->jobs[i].node;
		} else {
			plan->a[i].node = j->pnode;
			plan->a[i].order = j->porder;
		}
	}
	s->res->carried++;
	_dispatch(s, st, plan, map);
out:
	dl_plan_free(plan);
	_snap_free(s, st);
	free(map);
}

/* Whether a full plan is due now rather than the last one carried over. */
static int _plan_due(const _sim_t *s, int force)
{
	return dl_sim_pace_due(&s->pace, s->now, force);
}

/* A plan was carried over: make sure one is made when it is due. */
static void _replan_wake(_sim_t *s)
{
	double t = dl_sim_pace_next(&s->pace);

	if (t >= s->replan_wake)
		return;
	s->replan_wake = t;
	_push(s, t, EV_WAKE, WAKE_REPLAN);
}

/* ---------------------------------------------------------------------- */
/* Slurm dispatch (dispatch.h)                                            */

/*
 * The records' clock.  dl_place_t.last reads 0 for "never stepped", so a
 * record stepped at a simulated 0 would lose its first interval of
 * waiting; the records count from 1 at the first arrival instead (only
 * differences matter to them).
 */
static double _place_clock(const _sim_t *s)
{
	return 1.0 + (s->now - s->t0);
}

static void _place_tally(_sim_t *s, const dl_dispatch_count_t *c)
{
	s->res->place.set += c->set;
	s->res->place.moved += c->moved;
	s->res->place.widened += c->widened;
}

/* Wake the simulator in seconds, unless a wake-up is due by then. */
static void _place_wake(_sim_t *s, double in)
{
	double t;

	if (!isfinite(in))
		return;
	t = s->now + fmax(in, WAKE_MIN);
	if (t >= s->place_wake)
		return;
	s->place_wake = t;
	_push(s, t, EV_WAKE, WAKE_PLACE);
}

static void _place_unjudge(_sim_t *s)
{
	if (s->pjudged)
		dl_dispatch_judge_free(&s->pjudge);
	s->pjudged = 0;
}

/*
 * With checks: the kept judge of pst (s->pjudge) against one computed
 * now; the steps must see the room and quota they would compute.
 * \return 0, or DL_EINVAL with s->rc set.
 */
static int _place_judge_check(_sim_t *s)
{
	const dl_place_room_t *r = &s->pjudge.room;
	const dl_place_quota_t *k = &s->pjudge.q;
	dl_dispatch_judge_t now;
	int same;

	dl_dispatch_judge(s->pst, s->prec, &now);
	same = now.room.max_free == r->max_free &&
	       now.room.first == r->first && now.room.second == r->second &&
	       now.room.f1 == r->f1 && now.room.f2 == r->f2 &&
	       now.q.blocked == k->blocked && now.q.counted == k->counted &&
	       now.q.njobs == k->njobs && !now.q.over == !k->over &&
	       (!k->over || !memcmp(now.q.over, k->over, k->njobs));
	dl_dispatch_judge_free(&now);
	if (same)
		return 0;
	return _fail(s, DL_EINVAL,
		     "internal: the quota kept from the pass is not the one of t=%.3f",
		     s->now);
}

static void _place_forget(_sim_t *s)
{
	_place_unjudge(s);
	_snap_free(s, s->pst);
	free(s->pmap);
	free(s->prec);
	s->pst = NULL;
	s->pmap = NULL;
	s->prec = NULL;
}

/*
 * The clocks _place_account() did not move on: a record last stepped
 * before the floor was stepped at the floor, with no waiting counted.
 */
static void _place_floor(_sim_t *s, const dl_state_t *st,
			 dl_place_t *const *prec)
{
	size_t i;

	if (s->place_floor <= 0)
		return;
	for (i = 0; i < st->njobs; i++)
		if (prec[i] && prec[i]->last > 0 &&
		    prec[i]->last < s->place_floor)
			prec[i]->last = s->place_floor;
	s->place_floor = 0;
}

/*
 * At the start of an instant, before its events: count the waiting since
 * the last step against the system as the last pass left it, which it has
 * been since.  A wait that reached its bound is widened, and the instant
 * gets a pass to start the job elsewhere.
 */
static void _place_account(_sim_t *s)
{
	dl_dispatch_count_t c = { 0 };

	if (!s->pst)
		return;
	/*
	 * No node had a free slot: no job was blocked, so every step would
	 * only move its record's clock on (the snapshot's jobs are unpinned
	 * and fit the nodes: none widens for lack of an allowed node).  At
	 * thousands of waiting jobs and an event per arrival, that loop
	 * led the profile; the clocks move on at the next real step instead
	 * (_place_floor()).
	 */
	if (!dl_place_max_free(s->pst)) {
		s->place_floor = _place_clock(s);
		return;
	}
	_place_floor(s, s->pst, s->prec);
	s->pst->now = _place_clock(s);
	if (s->pjudged && s->cfg->check && _place_judge_check(s))
		return;
	if (s->pjudged)
		dl_dispatch_place_steps_judged(s->pst, NULL, &s->place,
					       s->prec, &s->pjudge, &c);
	else
		dl_dispatch_place_steps(s->pst, NULL, &s->place, s->prec, &c);
	/* The steps move records on: the next ones judge afresh. */
	_place_unjudge(s);
	_place_tally(s, &c);
	if (c.widened)
		s->dirty = 1;
}

/*
 * Before a plan, as the plugin does: a job whose restriction no node can
 * win from it under the hysteresis is made eligible for its node only
 * (dl_place_pin()), so that the plan places the others around it.
 */
static int _place_pin(_sim_t *s, dl_state_t *st, const uint32_t *map)
{
	size_t i;
	int rc;

	for (i = 0; i < st->njobs; i++) {
		const dl_place_t *r = &s->jobs[map[i]].place;

		if (st->jobs[i].state != DL_JOB_PENDING || r->node < 0 ||
		    r->widened)
			continue;
		rc = dl_place_pin(st, i, (uint32_t) r->node, &s->place);
		if (rc == DL_ENOMEM) {
			_fail(s, rc, "out of memory (placement)");
			return rc;
		}
	}
	return 0;
}

/*
 * After the plan: every node is eligible again (dl-sim has no partitions).
 * A pin is for the plan only; left in place it would hide the other nodes
 * from dl_place_blocked(), and a pinned job's wait would never count.
 * No array at all rather than one of ones: the placement steps then
 * answer a one-CPU job from their summary of the nodes instead of
 * scanning every node for it (dl_place_blocked_free()).
 */
static void _place_unpin(dl_state_t *st)
{
	size_t i;

	for (i = 0; i < st->njobs; i++) {
		free(st->jobs[i].eligible);
		st->jobs[i].eligible = NULL;
	}
}

/*
 * Slurm's pass over st: start what it says, keep the nodes' busy slots in
 * st up to date, and queue a wake-up for the first bounded wait to end.
 * prec[i] becomes NULL for a job started.
 */
static void _slurm_pass(_sim_t *s, dl_state_t *st, const uint32_t *map,
			dl_place_t **prec)
{
	dl_start_t *starts = NULL;
	size_t n = 0, i;
	int rc;

	rc = dl_dispatch_slurm_pass(st, prec, &starts, &n);
	if (rc) {
		_fail(s, rc, "slurm pass: %s", dl_strerror(rc));
		return;
	}
	for (i = 0; i < n && !s->rc; i++) {
		uint32_t k = starts[i].job;

		_start_job(s, map[k], starts[i].node);
		st->nodes[starts[i].node].busy += st->jobs[k].cpus;
		prec[k] = NULL;
	}
	free(starts);
	if (n)
		_drop_started(s);
	_place_unjudge(s);
	dl_dispatch_judge(st, prec, &s->pjudge);
	s->pjudged = 1;
	_place_wake(s, dl_dispatch_place_expiry_judged(st, &s->place, prec,
							&s->pjudge));
}

/*
 * Plan (or carry the last plan over), step every waiting job's record
 * with the plan's node, run Slurm's pass, and keep the snapshot for the
 * waiting counted until the next event.
 */
static void _schedule_slurm(_sim_t *s, int force)
{
	dl_dispatch_count_t c = { 0 };
	uint32_t *map = NULL;
	int due = _plan_due(s, force);
	dl_state_t *st;
	int32_t *planned = NULL;
	dl_place_t **prec = NULL;
	size_t i, waiting = 0;

	/* The last pass's snapshot is done with (_place_account() stepped
	 * it): freed first, it lends its running jobs to this one. */
	_place_forget(s);
	st = _snapshot(s, due ? SNAP_ALL : SNAP_PLACED, &map);
	if (!st)
		return;
	planned = malloc((st->njobs ? st->njobs : 1) * sizeof(*planned));
	prec = calloc(st->njobs ? st->njobs : 1, sizeof(*prec));
	if (!planned || !prec) {
		_fail(s, DL_ENOMEM, "out of memory (placement)");
		goto out;
	}
	if (due) {
		dl_plan_t *plan;

		if (_place_pin(s, st, map))
			goto out;
		plan = _policy_plan(s, st, map);
		_place_unpin(st);
		if (!plan)
			goto out;
		dl_plan_free(plan);
	} else {
		s->res->carried++;
		_replan_wake(s);
	}
	for (i = 0; i < st->njobs; i++) {
		_job_t *j = &s->jobs[map[i]];

		planned[i] = -1;
		if (st->jobs[i].state != DL_JOB_PENDING)
			continue;
		if (j->planned)
			planned[i] = j->pnode;
		prec[i] = &j->place;
	}
	_place_floor(s, st, prec);
	st->now = _place_clock(s);
	dl_dispatch_place_steps(st, planned, &s->place, prec, &c);
	_place_tally(s, &c);
	_slurm_pass(s, st, map, prec);
	/* Under the agent's pace the pass's starts make a plan due soon. */
	if (s->pace.agent && s->dirty && s->npending)
		_replan_wake(s);
	for (i = 0; i < st->njobs; i++)
		waiting += prec[i] != NULL;
	if (waiting && !s->rc) {
		free(planned);
		s->pst = st;
		s->pmap = map;
		s->prec = prec;
		return;
	}
out:
	_place_unjudge(s); /* st's, if the pass judged it */
	free(planned);
	free(prec);
	_snap_free(s, st);
	free(map);
}

static void _schedule(_sim_t *s, int force)
{
	uint32_t free;

	if (!s->npending || (!s->dirty && !force) || !(free = _free_slots(s)))
		return;
	s->win = dl_sim_pace_window(&s->pace, s->cfg->window, free);
	if (s->cfg->dispatch == DL_DISPATCH_SLURM) {
		_schedule_slurm(s, force);
		return;
	}
	if (!_plan_due(s, force)) {
		_plan_carried(s);
		_replan_wake(s);
		return;
	}
	_plan_full(s);
}

/* ---------------------------------------------------------------------- */
/* The run                                                                */

static void _progress(_sim_t *s, double wall0, double *next)
{
	dl_sim_progress_t p;
	double w;

	if (!s->cfg->progress)
		return;
	w = _wall();
	if (w < *next)
		return;
	*next = w + (s->cfg->progress_every > 0 ? s->cfg->progress_every : 1);
	p.now = s->now;
	p.arrived = s->arrived;
	p.completed = s->res->completed;
	p.total = s->wl->njobs;
	p.pending = s->npending;
	p.running = s->nrunning;
	p.plans = s->res->plans;
	p.wall = w - wall0;
	s->cfg->progress(&p, s->cfg->progress_arg);
}

/* The dispatch rule and its parameters make sense (NaN included). */
static int _check_place(_sim_t *s)
{
	const dl_place_params_t *p = &s->cfg->place;

	if (s->cfg->dispatch != DL_DISPATCH_SLURM &&
	    s->cfg->dispatch != DL_DISPATCH_PLAN)
		_fail(s, DL_EINVAL, "unknown dispatch rule %d",
		      (int) s->cfg->dispatch);
	else if (!(isfinite(p->wait_factor) && p->wait_factor >= 0) ||
		 !(isfinite(p->min_wait) && p->min_wait >= 0) ||
		 !(p->max_wait >= p->min_wait) ||
		 !(isfinite(p->hysteresis) && p->hysteresis >= 0))
		_fail(s, DL_EINVAL,
		      "placement: need wait_factor, min_wait, hysteresis >= 0 "
		      "and max_wait >= min_wait");
	return s->rc;
}

/* Every job fits a node and the jobs come sorted by arrival. */
static int _check_jobs(_sim_t *s)
{
	const dl_workload_t *wl = s->wl;
	size_t i;

	for (i = 0; i < wl->njobs; i++) {
		if (wl->jobs[i].cpus > s->cfg->cores)
			return _fail(s, DL_EINVAL,
				     "job %u needs %u slots, a node has %u",
				     wl->jobs[i].id, wl->jobs[i].cpus,
				     s->cfg->cores);
		if (i && (wl->jobs[i].arrival < wl->jobs[i - 1].arrival))
			return _fail(s, DL_EINVAL,
				     "jobs are not sorted by arrival (job %u)",
				     wl->jobs[i].id);
	}
	return 0;
}

/* The platform's figures and the policy, with the dispatch's params. */
static int _setup_policy(_sim_t *s)
{
	const dl_sim_config_t *cfg = s->cfg;
	char *pp;
	int err = 0;

	s->P = cfg->nodes;
	s->S = cfg->storage;
	s->slots = cfg->nodes * cfg->cores;
	s->params = cfg->params;
	s->params.nstorage = cfg->storage;
	s->peer_bw = cfg->peer_bw > 0 ? cfg->peer_bw : cfg->params.rbw;
	s->place = cfg->place;
	if (cfg->peer_fetch && !s->place.peer_bw)
		s->place.peer_bw = s->peer_bw;
	pp = dl_dispatch_policy_params(cfg->dispatch, cfg->policy,
				       cfg->policy_params, &s->place);
	s->policy = pp ? dl_policy_create(cfg->policy, pp, &err) : NULL;
	free(pp);
	if (!s->policy)
		return _fail(s, err ? err : DL_ENOPOLICY, "policy '%s'%s%s: %s",
			     cfg->policy ? cfg->policy : "(none)",
			     cfg->policy_params ? " with params " : "",
			     cfg->policy_params ? cfg->policy_params : "",
			     dl_strerror(err ? err : DL_ENOPOLICY));
	/* dl-sim reads no plan's figures for people: skip them. */
	dl_policy_set_annotate(s->policy, 0);
	return 0;
}

/* The tracker and the per-node, per-job and per-source arrays. */
static int _setup_arrays(_sim_t *s)
{
	const dl_workload_t *wl = s->wl;
	size_t nj = wl->njobs ? wl->njobs : 1;

	s->cache = dl_cache_create(s->P, s->cfg->eviction, s->cfg->seed);
	s->storage_of =
		malloc((wl->nfiles ? wl->nfiles : 1) * sizeof(*s->storage_of));
	s->names = calloc(s->P, sizeof(*s->names));
	s->jobs = calloc(nj, sizeof(*s->jobs));
	s->nodes = calloc(s->P, sizeof(*s->nodes));
	s->src = calloc(s->S + s->P, sizeof(*s->src));
	s->pending = malloc(nj * sizeof(*s->pending));
	s->running = malloc(nj * sizeof(*s->running));
	s->hold = malloc(s->P * sizeof(*s->hold));
	s->alloc_node = malloc(s->P * sizeof(*s->alloc_node));
	s->alloc_ready = malloc(s->P * sizeof(*s->alloc_ready));
	if (!s->cache || !s->storage_of || !s->names || !s->jobs || !s->nodes ||
	    !s->src || !s->pending || !s->running || !s->hold ||
	    !s->alloc_node || !s->alloc_ready)
		return _fail(s, DL_ENOMEM, "out of memory");
	return 0;
}

/* Nodes n0..: names and cache sizes; the sources' bandwidths; file i of
 * the workload as file id i of the tracker, on its storage node. */
static int _setup_nodes_files(_sim_t *s)
{
	const dl_workload_t *wl = s->wl;
	size_t i;
	uint32_t n;

	for (n = 0; n < s->P; n++) {
		char name[16];

		snprintf(name, sizeof(name), "n%u", n);
		s->names[n] = strdup(name);
		if (!s->names[n] ||
		    dl_cache_set_capacity(s->cache, n, s->cfg->cache_bytes))
			return _fail(s, DL_ENOMEM, "out of memory");
	}
	for (i = 0; i < s->S + s->P; i++)
		s->src[i].bw = i < s->S ? s->cfg->params.rbw : s->peer_bw;
	for (i = 0; i < wl->nfiles; i++) {
		int64_t id = dl_cache_file_intern(s->cache, wl->files[i].path,
						  wl->files[i].size);

		if (id != (int64_t) i)
			return _fail(s, id < 0 ? (int) id : DL_EINVAL,
				     "file %zu (%s) cannot be tracked", i,
				     wl->files[i].path);
		s->storage_of[i] =
			wl->files[i].storage >= 0 ?
				(uint32_t) wl->files[i].storage % s->S :
				(uint32_t) (i % s->S);
	}
	return 0;
}

/* Every job's result record and its arrival event. */
static int _setup_jobs(_sim_t *s)
{
	const dl_workload_t *wl = s->wl;
	size_t i;

	for (i = 0; i < wl->njobs; i++) {
		const dl_wl_job_t *wj = &wl->jobs[i];
		dl_sim_job_t *r = &s->res->jobs[i];
		uint32_t k;

		dl_place_init(&s->jobs[i].place);
		s->jobs[i].pinned = calloc(wj->nfiles ? wj->nfiles : 1, 1);
		if (!s->jobs[i].pinned)
			return _fail(s, DL_ENOMEM, "out of memory");
		r->id = wj->id;
		r->node = -1;
		r->cpus = wj->cpus;
		r->arrival = wj->arrival;
		r->dispatch = r->start = r->staged = r->end = -1;
		r->nfiles = wj->nfiles;
		for (k = 0; k < wj->nfiles; k++)
			r->bytes += wl->files[wj->files[k]].size;
		r->read = _dur(r->bytes, s->params.lbw);
		/* As dl_cost_job_compute(): its seconds, or C per byte. */
		r->compute = wj->compute >= 0 ?
				     wj->compute :
				     s->params.cpb * (double) r->bytes;
		_push(s, wj->arrival, EV_ARRIVAL, (uint32_t) i);
	}
	return 0;
}

static int _setup(_sim_t *s)
{
	const dl_sim_config_t *cfg = s->cfg;
	int err;

	if (!cfg->nodes || !cfg->cores || !cfg->storage)
		return _fail(s, DL_EINVAL,
			     "nodes, cores and storage must be at least 1");
	if (_check_place(s))
		return s->rc;
	err = dl_prov_pool_init(&s->pool, &cfg->prov, cfg->nodes, cfg->seed,
				s->t0);
	if (err)
		return _fail(s, err, "provisioning: %s (min above max?)",
			     dl_strerror(err));
	if (_check_jobs(s) || _setup_policy(s) || _setup_arrays(s) ||
	    _setup_nodes_files(s))
		return s->rc;
	if (cfg->prefetch &&
	    dl_pfpin_init(&s->pfpin, s->cache, s->P, (uint32_t)s->wl->nfiles))
		return _fail(s, DL_ENOMEM, "out of memory (prefetch pins)");
	_setup_jobs(s);
	return s->rc;
}

static void _teardown(_sim_t *s)
{
	size_t i;

	if (s->nodes)
		for (i = 0; i < s->P; i++) {
			size_t k;

			for (k = 0; k < s->nodes[i].nf; k++)
				free(s->nodes[i].f[k].w);
			free(s->nodes[i].f);
		}
	if (s->src)
		for (i = 0; i < s->S + s->P; i++)
			free(s->src[i].q);
	if (s->jobs)
		for (i = 0; i < s->wl->njobs; i++)
			free(s->jobs[i].pinned);
	if (s->names)
		for (i = 0; i < s->P; i++)
			free(s->names[i]);
	free(s->names);
	free(s->storage_of);
	free(s->jobs);
	free(s->nodes);
	free(s->src);
	free(s->xf);
	free(s->xfree);
	free(s->heap);
	free(s->pending);
	free(s->running);
	free(s->hold);
	free(s->alloc_node);
	free(s->alloc_ready);
	dl_pfpin_fini(&s->pfpin);
	dl_prov_pool_fini(&s->pool);
	_place_forget(s);
	_snap_destroy(s, s->spare);
	dl_policy_destroy(s->policy);
	dl_cache_destroy(s->cache);
}

/* The pool's figures, measured up to the last completion. */
static void _finish(_sim_t *s)
{
	dl_sim_result_t *r = s->res;
	double end = s->t0;
	size_t i;

	for (i = 0; i < r->njobs; i++)
		if (r->jobs[i].completions && r->jobs[i].end > end)
			end = r->jobs[i].end;
	if (s->cfg->timeline_every > 0)
		_sample(s, s->now);
	r->provisioned = s->cfg->prov.enabled;
	r->node_seconds = dl_prov_pool_node_seconds(&s->pool, end);
	r->allocations = s->pool.allocations;
	r->releases = s->pool.releases;
	r->peak_nodes = s->pool.peak;
}

/* One event of the instant s->now. */
static void _event(_sim_t *s, _ev_t ev)
{
	const dl_sim_config_t *cfg = s->cfg;

	s->res->events++;
	switch (ev.type) {
	case EV_ARRIVAL:
		dl_sim_pace_arrival(&s->pace, s->now);
		s->jobs[ev.arg].state = J_PENDING;
		s->pending[s->phead + s->npending++] = ev.arg;
		s->arrived++;
		s->dirty = 1;
		/* A provisioner gone quiet looks again. */
		if (cfg->prov.enabled && !s->prov_wake)
			s->prov_due = 1;
		break;
	case EV_XFER_DONE:
		_xfer_done(s, ev.arg);
		break;
	case EV_JOB_DONE:
		_job_done(s, ev.arg);
		break;
	case EV_ALLOC:
		dl_prov_pool_ready(&s->pool, ev.arg, s->now);
		s->dirty = 1;
		_touch(s, ev.arg);
		break;
	default:
		if (ev.arg == WAKE_PROV) {
			s->prov_wake = 0;
			s->prov_due = 1;
		} else if (ev.arg == WAKE_REPLAN) {
			if (s->now >= s->replan_wake)
				s->replan_wake = INFINITY;
		} else {
			if (s->now >= s->place_wake)
				s->place_wake = INFINITY;
			s->dirty = 1;
		}
		break;
	}
}

/*
 * --check, at the end of every instant: no source idle with transfers
 * queued at it, and no node's link idle while a job on the node waits for
 * a file it has not requested yet: storage idle while jobs wait for
 * transfers would be the simulator's fault, not the workload's (issue
 * 30, item 5; a hot file's one storage node busy while the others idle
 * is the workload's, and the summary shows it: "busiest node").
 */
static void _check_idle(_sim_t *s)
{
	uint32_t i, n;
	size_t k;

	for (i = 0; i < s->S + s->P; i++)
		if (!s->src[i].busy && s->src[i].qn)
			s->res->idle_violations++;
	for (n = 0; n < s->P; n++) {
		const _node_t *nd = &s->nodes[n];

		for (k = 0; !nd->link_busy && k < nd->nf; k++)
			if (!nd->f[k].issued && nd->f[k].owner != COPY_OWNER) {
				s->res->idle_violations++;
				break;
			}
	}
}

/*
 * The next instant with events: samples due by then, the dispatch's
 * accounting of waits, every event of the instant, then scheduling,
 * provisioning and copies.  \return 0 when no event is left.
 */
static int _instant(_sim_t *s)
{
	const dl_sim_config_t *cfg = s->cfg;

	if (!s->nheap)
		return 0;
	s->now = s->heap[0].t;
	while (cfg->timeline_every > 0 && s->next_sample <= s->now &&
	       s->res->ntimeline < DL_SIM_TIMELINE_MAX) {
		_sample(s, s->next_sample);
		s->next_sample += cfg->timeline_every;
	}
	if (cfg->dispatch == DL_DISPATCH_SLURM)
		_place_account(s);
	while (s->nheap && s->heap[0].t == s->now && !s->rc)
		_event(s, _pop(s));
	if (s->npending > s->res->max_pending)
		s->res->max_pending = s->npending;
	_schedule(s, 0);
	if (s->prov_due && !s->rc)
		_provision(s);
	if (s->ncopyq && !s->rc)
		_copies_pump(s);
	if (cfg->check)
		_check_idle(s);
	return 1;
}

/* The event loop, to the last event.  Nothing will happen any more once
 * the heap is empty: one last chance then for the policy to start what
 * waits. */
static void _loop(_sim_t *s, double wall0)
{
	double next_progress = wall0;
	uint64_t instants = 0;

	while (!s->rc) {
		if (!_instant(s)) {
			size_t before = s->res->completed + s->nrunning;

			if (!s->npending)
				break;
			s->dirty = 1;
			_schedule(s, 1);
			if (s->res->completed + s->nrunning == before)
				break;
			continue;
		}
		if ((++instants & 255) == 0)
			_progress(s, wall0, &next_progress);
	}
}

/* A result for wl's jobs, or NULL (err says so). */
static dl_sim_result_t *_result_new(const dl_workload_t *wl, char *err,
				    size_t errlen)
{
	dl_sim_result_t *res = calloc(1, sizeof(*res));

	if (res && !(res->jobs = calloc(wl->njobs ? wl->njobs : 1,
					sizeof(*res->jobs)))) {
		free(res);
		res = NULL;
	}
	if (!res && err && errlen)
		snprintf(err, errlen, "out of memory");
	if (res)
		res->njobs = wl->njobs;
	return res;
}

int dl_sim_run(const dl_sim_config_t *cfg, const dl_workload_t *wl,
	       dl_sim_result_t **out, char *err, size_t errlen)
{
	_sim_t s;
	dl_sim_result_t *res;
	double wall0 = _wall();

	if (err && errlen)
		err[0] = '\0';
	if (!cfg || !wl || !out) {
		if (err && errlen)
			snprintf(err, errlen, "invalid argument");
		return DL_EINVAL;
	}
	if (!(res = _result_new(wl, err, errlen)))
		return DL_ENOMEM;
	memset(&s, 0, sizeof(s));
	s.runtime = -1; /* the agent has learnt nothing yet */
	s.cfg = cfg;
	s.wl = wl;
	s.err = err;
	s.errlen = errlen;
	s.place_wake = INFINITY;
	s.replan_wake = INFINITY;
	dl_sim_pace_init(&s.pace, cfg->replan_min_interval, cfg->agent_pace);
	s.t0 = wl->njobs ? wl->jobs[0].arrival : 0;
	s.res = res;
	if (!_setup(&s)) {
		/* The first decision comes with the first arrival. */
		s.prov_due = cfg->prov.enabled;
		s.next_sample = s.t0;
		res->nodes = s.P;
		res->slots = s.slots;
		res->storage = s.S;
		snprintf(res->policy, sizeof(res->policy), "%s",
			 dl_policy_name(s.policy));
		snprintf(res->dispatch, sizeof(res->dispatch), "%s",
			 dl_dispatch_name(cfg->dispatch));
		_loop(&s, wall0);
		res->end_time = s.now;
		for (uint32_t i = 0; i < s.S; i++)
			if (s.src[i].busy_time > res->storage_busy_max) {
				res->storage_busy_max = s.src[i].busy_time;
				res->storage_busiest = i;
			}
		_finish(&s);
	}
	res->wall_seconds = _wall() - wall0;
	_teardown(&s);
	if (s.rc) {
		dl_sim_result_free(res);
		return s.rc;
	}
	*out = res;
	return 0;
}

void dl_sim_result_free(dl_sim_result_t *r)
{
	if (!r)
		return;
	free(r->jobs);
	free(r->timeline);
	free(r);
}
