/*
 * policy_util.c - internal helpers of the baseline policies and the MET /
 * MCT / SA mapper of online-hps-khanna §5; see policy_util.h.
 */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "dl_cost.h"
#include "dl_error.h"
#include "policy/policy_util.h"

int dl__time_cmp(double a, double b)
{
	double eps = 1e-9 * fmax(1.0, fmax(fabs(a), fabs(b)));

	if (a < b - eps)
		return -1;
	if (a > b + eps)
		return 1;
	return 0;
}

/* Pending jobs by arrival, then id, then index (a total order). */
static int _cmp_arrival(const void *a, const void *b, void *arg)
{
	const dl_state_t *st = arg;
	size_t ia = *(const size_t *)a, ib = *(const size_t *)b;
	const dl_job_t *x = &st->jobs[ia], *y = &st->jobs[ib];

	if (x->arrival != y->arrival)
		return x->arrival < y->arrival ? -1 : 1;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return (ia > ib) - (ia < ib);
}

int dl__pending_by_arrival(const dl_state_t *st, size_t **idx, size_t *n)
{
	size_t *ix = malloc((st->njobs ? st->njobs : 1) * sizeof(*ix));
	size_t i, k = 0;

	if (!ix)
		return DL_ENOMEM;
	for (i = 0; i < st->njobs; i++)
		if (st->jobs[i].state == DL_JOB_PENDING)
			ix[k++] = i;
	/* glibc's qsort_r, as dl_state_priority_order(): it needs the state. */
	qsort_r(ix, k, sizeof(*ix), _cmp_arrival, (void *)st);
	*idx = ix;
	*n = k;
	return 0;
}

/* ------------------------------------------------------------------ */
/* room tracker                                                        */

int dl__room_init(dl__room_t *r, const dl_state_t *st)
{
	uint32_t k;

	memset(r, 0, sizeof(*r));
	r->room = calloc(st->nnodes ? st->nnodes : 1, sizeof(*r->room));
	r->blocked = calloc(st->nnodes ? st->nnodes : 1, 1);
	if (!r->room || !r->blocked) {
		dl__room_fini(r);
		return DL_ENOMEM;
	}
	r->n = st->nnodes;
	/* The same free slots as dl_plan_starts() counts. */
	for (k = 0; k < st->nnodes; k++) {
		const dl_node_t *nd = &st->nodes[k];

		if (nd->usable && nd->cpus > nd->busy)
			r->room[k] = nd->cpus - nd->busy;
	}
	return 0;
}

void dl__room_fini(dl__room_t *r)
{
	free(r->room);
	free(r->blocked);
	memset(r, 0, sizeof(*r));
}

int dl__room_fits(const dl__room_t *r, uint32_t node, uint32_t cpus)
{
	return node < r->n && !r->blocked[node] && r->room[node] >= cpus;
}

void dl__room_take(dl__room_t *r, uint32_t node, uint32_t cpus)
{
	if (node >= r->n)
		return;
	if (dl__room_fits(r, node, cpus))
		r->room[node] -= cpus;
	else
		r->blocked[node] = 1; /* it waits, and so do the jobs behind */
}

/* ------------------------------------------------------------------ */
/* queue model                                                         */

static uint32_t _nslots(const dl__queues_t *q, uint32_t node)
{
	return (uint32_t)(q->off[node + 1] - q->off[node]);
}

/*
 * The c earliest-free slots of node are taken from start to start + dur.
 * The slots stay sorted: the taken ones, now all free at start + dur
 * (which is not before any of them), move behind the untaken slots that
 * free up no later.
 */
static void _occupy(dl__queues_t *q, uint32_t node, uint32_t c, double start,
		    double dur)
{
	double *s = q->slot + q->off[node], v = start + dur;
	uint32_t ns = _nslots(q, node), p = c, i;

	while (p < ns && s[p] <= v)
		p++;
	memmove(s, s + c, (p - c) * sizeof(*s));
	for (i = p - c; i < p; i++)
		s[i] = v;
	if (v > q->ready[node])
		q->ready[node] = v;
}

/* Slots a job of cpus needs on node: at least 1, at most the node's. */
static uint32_t _clamp_cpus(const dl__queues_t *q, uint32_t node,
			    uint32_t cpus)
{
	uint32_t ns = _nslots(q, node);

	if (cpus > ns)
		cpus = ns;
	return cpus ? cpus : 1;
}

int dl__queues_init(dl__queues_t *q, const dl_state_t *st)
{
	size_t total = 0, i;
	uint32_t k;

	memset(q, 0, sizeof(*q));
	for (k = 0; k < st->nnodes; k++)
		total += st->nodes[k].cpus ? st->nodes[k].cpus : 1;
	q->slot = calloc(total ? total : 1, sizeof(*q->slot));
	q->off = calloc((size_t)st->nnodes + 1, sizeof(*q->off));
	q->last_start = calloc(st->nnodes ? st->nnodes : 1,
			       sizeof(*q->last_start));
	q->ready = calloc(st->nnodes ? st->nnodes : 1, sizeof(*q->ready));
	if (!q->slot || !q->off || !q->last_start || !q->ready) {
		dl__queues_fini(q);
		return DL_ENOMEM;
	}
	q->n = st->nnodes;
	for (k = 0; k < st->nnodes; k++)
		q->off[k + 1] = q->off[k] +
				(st->nodes[k].cpus ? st->nodes[k].cpus : 1);
	/*
	 * Running jobs hold their slots from now for the time they still
	 * need; one that oversubscribes its node queues behind the others.
	 */
	for (i = 0; i < st->njobs; i++) {
		const dl_job_t *j = &st->jobs[i];
		uint32_t node, c;

		if (j->state != DL_JOB_RUNNING || j->node < 0 ||
		    (uint32_t)j->node >= st->nnodes)
			continue;
		node = (uint32_t)j->node;
		c = _clamp_cpus(q, node, j->cpus);
		_occupy(q, node, c, q->slot[q->off[node] + c - 1],
			dl_cost_job_remaining(st, j));
	}
	return 0;
}

void dl__queues_fini(dl__queues_t *q)
{
	free(q->slot);
	free(q->off);
	free(q->last_start);
	free(q->ready);
	memset(q, 0, sizeof(*q));
}

double dl__queues_start(const dl__queues_t *q, uint32_t node, uint32_t cpus)
{
	double t;

	if (node >= q->n)
		return 0.0;
	t = q->slot[q->off[node] + _clamp_cpus(q, node, cpus) - 1];
	/* No overtaking: not before the job queued ahead of it. */
	return t > q->last_start[node] ? t : q->last_start[node];
}

void dl__queues_push(dl__queues_t *q, uint32_t node, uint32_t cpus,
		     double exec)
{
	double start;

	if (node >= q->n)
		return;
	start = dl__queues_start(q, node, cpus);
	_occupy(q, node, _clamp_cpus(q, node, cpus), start, exec);
	q->last_start[node] = start;
}

double dl__queues_ready(const dl__queues_t *q, uint32_t node)
{
	return node < q->n ? q->ready[node] : 0.0;
}

/* ------------------------------------------------------------------ */
/* staging overlay                                                     */

int dl__overlay_add_job(dl__u64set_t *ov, uint32_t node, const dl_job_t *j)
{
	uint32_t k;
	int rc;

	for (k = 0; k < j->nfiles; k++) {
		rc = dl__u64set_add(ov, dl__nf_key(node, j->files[k]));
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int _on_node(const dl_state_t *st, uint32_t node, uint32_t file,
		    const dl__u64set_t *ov)
{
	return dl_cache_contains(st->cache, node, file) ||
	       (ov && dl__u64set_has(ov, dl__nf_key(node, file)));
}

int dl__overlay_add_running(dl__u64set_t *ov, const dl_state_t *st)
{
	size_t i;

	/* The state indexes exactly these pairs (dl_state_node_reads()):
	 * into an empty overlay, a copy of that index (no rehash). */
	if (!ov->count && st->reads)
		return dl__u64set_copy(ov, st->reads);
	for (i = 0; i < st->njobs; i++) {
		const dl_job_t *j = &st->jobs[i];

		if (j->state == DL_JOB_RUNNING && j->node >= 0 &&
		    (uint32_t)j->node < st->nnodes &&
		    dl__overlay_add_job(ov, (uint32_t)j->node, j))
			return DL_ENOMEM;
	}
	return 0;
}

uint64_t dl__bytes_on_node(const dl_state_t *st, const dl_job_t *j,
			   uint32_t node, const dl__u64set_t *ov)
{
	uint64_t bytes = 0;
	uint32_t k;

	for (k = 0; k < j->nfiles; k++)
		if (_on_node(st, node, j->files[k], ov))
			bytes += dl_file_bytes(st, j->files[k]);
	return bytes;
}

/*
 * The terms of dl_cost_job_on_node(), with the overlay as cached, and with
 * reads also the state's index of running jobs' reads
 * (dl_state_node_reads()), where an overlay would have held its copy.
 */
static double _exec_bytes(const dl_state_t *st, const dl_job_t *j,
			  uint32_t node, const dl__u64set_t *ov, bool reads,
			  uint64_t *on)
{
	uint64_t all = 0, here = 0;
	uint32_t k;

	for (k = 0; k < j->nfiles; k++) {
		uint64_t b = dl_file_bytes(st, j->files[k]);

		all += b;
		if (_on_node(st, node, j->files[k], ov) ||
		    (reads && dl_state_node_reads(st, node, j->files[k])))
			here += b;
	}
	*on = here;
	return dl_cost_transfer_time(st, all - here) +
	       dl_cost_read_time(st, node, all) + dl_cost_job_compute(st, j);
}

double dl__exec_bytes_on_node(const dl_state_t *st, const dl_job_t *j,
			      uint32_t node, const dl__u64set_t *ov,
			      uint64_t *on)
{
	return _exec_bytes(st, j, node, ov, false, on);
}

double dl__exec_bytes_on_node_reads(const dl_state_t *st, const dl_job_t *j,
				    uint32_t node, const dl__u64set_t *ov,
				    uint64_t *on)
{
	return _exec_bytes(st, j, node, ov, true, on);
}

double dl__exec_on_node(const dl_state_t *st, const dl_job_t *j,
			uint32_t node, const dl__u64set_t *ov)
{
	uint64_t on;

	if (!ov)
		return dl_cost_job_on_node(st, j, node);
	return dl__exec_bytes_on_node(st, j, node, ov, &on);
}

/* ------------------------------------------------------------------ */
/* sticky map                                                          */

void dl__stick_init(dl__stick_t *s)
{
	memset(s, 0, sizeof(*s));
}

void dl__stick_fini(dl__stick_t *s)
{
	free(s->id);
	free(s->node);
	memset(s, 0, sizeof(*s));
}

int32_t dl__stick_get(const dl__stick_t *s, uint32_t id)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->id[mid] == id)
			return s->node[mid];
		if (s->id[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

typedef struct {
	uint32_t id;
	int32_t node;
} _idnode_t;

static int _cmp_idnode(const void *a, const void *b)
{
	const _idnode_t *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return (x->node > y->node) - (x->node < y->node);
}

int dl__stick_save(dl__stick_t *s, const dl_state_t *st,
		   const dl_plan_t *plan)
{
	size_t cap = st->njobs ? st->njobs : 1, n = 0, i;
	_idnode_t *tmp = malloc(cap * sizeof(*tmp));
	uint32_t *ids = malloc(cap * sizeof(*ids));
	int32_t *nodes = malloc(cap * sizeof(*nodes));

	if (!tmp || !ids || !nodes) {
		free(tmp);
		free(ids);
		free(nodes);
		return DL_ENOMEM;
	}
	for (i = 0; i < st->njobs; i++) {
		if (st->jobs[i].state != DL_JOB_PENDING || plan->a[i].node < 0)
			continue;
		tmp[n].id = st->jobs[i].id;
		tmp[n++].node = plan->a[i].node;
	}
	qsort(tmp, n, sizeof(*tmp), _cmp_idnode);
	for (i = 0; i < n; i++) {
		ids[i] = tmp[i].id;
		nodes[i] = tmp[i].node;
	}
	free(tmp);
	dl__stick_fini(s);
	s->id = ids;
	s->node = nodes;
	s->n = n;
	return 0;
}

/* ------------------------------------------------------------------ */
/* the MET / MCT / SA mapper                                           */

dl__mapper_t *dl__mapper_create(dl__map_mode_t mode, double l, double h)
{
	dl__mapper_t *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->mode = mode;
	m->l = l;
	m->h = h;
	dl__stick_init(&m->stick);
	return m;
}

void dl__mapper_destroy(dl__mapper_t *m)
{
	if (!m)
		return;
	dl__stick_fini(&m->stick);
	free(m);
}

/*
 * SA's mode before mapping the next job.  ib = load_min / load_max over
 * the usable nodes, load = completion time of the last job on the node
 * (online-hps-khanna §5, after Maheswaran et al.): MCT until ib reaches h,
 * then MET until ib drops below l.  With every node idle ib is 0 / 0 and
 * says nothing, so the mode is kept.
 */
static void _sa_switch(dl__mapper_t *m, const dl_state_t *st,
		       const dl__queues_t *q)
{
	double lmin = -1.0, lmax = 0.0, ib;
	uint32_t n;

	for (n = 0; n < st->nnodes; n++) {
		double load = dl__queues_ready(q, n);

		if (!st->nodes[n].usable)
			continue;
		if (lmin < 0 || load < lmin)
			lmin = load;
		if (load > lmax)
			lmax = load;
	}
	if (lmin < 0 || !(lmax > 0))
		return;
	ib = lmin / lmax;
	if (!m->sa_met && ib >= m->h)
		m->sa_met = 1;
	else if (m->sa_met && ib < m->l)
		m->sa_met = 0;
}

/*
 * The node for a job seen for the first time.
 *   MET: least execution time on the node (dl_cost_job_on_node(): only
 *        files cached there now are cheaper; under SA, files the running
 *        and queued jobs there stage count too, §5 point 3).  Ties: a
 *        node with a free slot now, then the one whose queue frees first
 *        (both: "the first available node"), then the lowest index.
 *   MCT: least completion time = start in the node's queue + execution
 *        time counting the files the running and queued jobs there stage.
 *        Ties: a node with a free slot now, then the lowest index.
 * \return the node, or -1 if no node can take the job.
 */
static int32_t _choose(const dl__mapper_t *m, int met, const dl_state_t *st,
		       const dl_job_t *j, const dl__room_t *room,
		       const dl__queues_t *q, const dl__u64set_t *ov)
{
	const dl__u64set_t *met_ov = m->mode == DL__MAP_SA ? ov : NULL;
	double best_key = 0.0, best_start = 0.0;
	int32_t best = -1;
	int best_free = 0;
	uint32_t n;

	for (n = 0; n < st->nnodes; n++) {
		double key, start;
		int free_now, c;

		if (!dl_state_job_eligible(st, j, n))
			continue;
		start = dl__queues_start(q, n, j->cpus);
		free_now = dl__room_fits(room, n, j->cpus);
		if (met)
			key = dl__exec_on_node(st, j, n, met_ov);
		else
			key = start + dl__exec_on_node(st, j, n, ov);
		if (best >= 0) {
			c = dl__time_cmp(key, best_key);
			if (!c)
				c = best_free - free_now;
			if (!c && met)
				c = dl__time_cmp(start, best_start);
			if (c >= 0)
				continue; /* ties keep the lower index */
		}
		best = (int32_t)n;
		best_key = key;
		best_start = start;
		best_free = free_now;
	}
	return best;
}

int dl__mapper_plan(dl__mapper_t *m, const dl_state_t *st, dl_plan_t *plan)
{
	int sa_met = m->sa_met;
	dl__room_t room;
	dl__queues_t q;
	dl__u64set_t ov;
	size_t *idx = NULL, n = 0, r, i;
	int rc;

	dl__u64set_init(&ov);
	memset(&room, 0, sizeof(room));
	memset(&q, 0, sizeof(q));
	if ((rc = dl__pending_by_arrival(st, &idx, &n)) ||
	    (rc = dl__room_init(&room, st)) || (rc = dl__queues_init(&q, st)))
		goto out;
	/* What the running jobs stage will be on their nodes (MCT). */
	for (i = 0; i < st->njobs && !rc; i++) {
		const dl_job_t *j = &st->jobs[i];

		if (j->state == DL_JOB_RUNNING && j->node >= 0)
			rc = dl__overlay_add_job(&ov, (uint32_t)j->node, j);
	}
	/*
	 * In arrival order: a node's queue is FIFO, and a job seen for the
	 * first time is mapped against the queues of the jobs that arrived
	 * before it, exactly as if it had been mapped on arrival.
	 */
	for (r = 0; r < n && !rc; r++) {
		const dl_job_t *j = &st->jobs[idx[r]];
		int32_t node = dl__stick_get(&m->stick, j->id);

		plan->a[idx[r]].order = (double)r;
		plan->a[idx[r]].node = -1;
		if (node < 0 || !dl_state_job_eligible(st, j, (uint32_t)node)) {
			int met = m->mode == DL__MAP_MET;

			if (m->mode == DL__MAP_SA) {
				_sa_switch(m, st, &q);
				met = m->sa_met;
			}
			node = _choose(m, met, st, j, &room, &q, &ov);
		}
		if (node < 0)
			continue; /* no node can take it now */
		plan->a[idx[r]].node = node;
		dl__queues_push(&q, (uint32_t)node, j->cpus,
				dl__exec_on_node(st, j, (uint32_t)node, &ov));
		dl__room_take(&room, (uint32_t)node, j->cpus);
		rc = dl__overlay_add_job(&ov, (uint32_t)node, j);
	}
	if (!rc)
		rc = dl__stick_save(&m->stick, st, plan);
out:
	if (rc)
		m->sa_met = sa_met;
	dl__u64set_fini(&ov);
	dl__queues_fini(&q);
	dl__room_fini(&room);
	free(idx);
	return rc;
}

/* ------------------------------------------------------------------ */
/* prefetch: the copy hook for the plan's queues                       */

/*
 * A job of a node's slice: under the agent's rule the node's running jobs
 * come first (they bound its room), then its planned pending jobs in plan
 * order.
 */
typedef struct {
	uint32_t node;
	int running;
	double order;
	size_t job;
} _queued_t;

static int _cmp_queued(const void *a, const void *b)
{
	const _queued_t *x = a, *y = b;

	if (x->node != y->node)
		return (x->node > y->node) - (x->node < y->node);
	if (x->running != y->running)
		return y->running - x->running;
	if (x->order != y->order)
		return (x->order > y->order) - (x->order < y->order);
	return (x->job > y->job) - (x->job < y->job);
}

/* One dl__plan_prefetch() call. */
typedef struct {
	const dl_state_t *st;
	dl_plan_t *plan;
	uint32_t per_node;
	uint64_t budget;    /* 0: none */
	dl__pf_rule_t rule;
	uint32_t *stamp;    /* [nf]: 1 + the node that counted a file */
	uint32_t *pinned;   /* [nf]: 1 + the node that pinned a file */
	uint32_t nf;
} _pf_t;

/*
 * The bytes the rule accounts file f at; 0: it is left out.  The agent
 * leaves out a file whose size is unknown, as agent_pfplan.c's _fill()
 * does (it could not be counted against the budget), and an empty one
 * (nothing to copy); Online-HPS's rule takes every file.
 */
static uint64_t _pf_size(const _pf_t *p, uint32_t f)
{
	uint64_t size = dl_cache_file_size(p->st->cache, f);

	if (size != DL_CACHE_SIZE_UNKNOWN)
		return size;
	return p->rule == DL__PF_QUEUE ? p->st->params.unknown_size : 0;
}

/*
 * Whether f is counted on node n now, and mark it counted: a file two
 * jobs of the node read counts once there.  Nodes come one after the
 * other, so one stamp per file is enough.
 */
static int _pf_first(_pf_t *p, uint32_t f, uint32_t n)
{
	if (f >= p->nf || p->stamp[f] == n + 1)
		return 0;
	p->stamp[f] = n + 1;
	return 1;
}

/*
 * Node n's room for prefetches: the budget, and under the agent's rule
 * no more than its capacity less the bytes its running jobs (run[0..nrun)
 * of its slice) hold there (pinned: a prefetch cannot evict them), as
 * agent_prefetch.c's _nodes() sets pf_node_t.budget.  A file two running
 * jobs read counts once.
 */
static uint64_t _pf_limit(_pf_t *p, uint32_t n, const _queued_t *run,
			  size_t nrun)
{
	uint64_t limit = p->budget ? p->budget : UINT64_MAX, held = 0, cap;
	const dl_state_t *st = p->st;
	size_t i;
	uint32_t k;

	if (p->rule != DL__PF_AGENT)
		return limit;
	for (i = 0; i < nrun; i++) {
		const dl_job_t *j = &st->jobs[run[i].job];

		for (k = 0; k < j->nfiles; k++)
			if (dl_cache_contains(st->cache, n, j->files[k]) &&
			    _pf_first(p, j->files[k], n))
				held += _pf_size(p, j->files[k]);
	}
	cap = dl_cache_capacity(st->cache, n);
	cap = cap > held ? cap - held : 0;
	return cap < limit ? cap : limit;
}

/*
 * The bytes of j's files that node n lacks and no job before it there
 * lacked; *nfiles: how many of its files the rule accounts for.
 */
static uint64_t _pf_missing(_pf_t *p, const dl_job_t *j, uint32_t n,
			    uint32_t *nfiles)
{
	uint64_t missing = 0, size;
	uint32_t k, f;

	*nfiles = 0;
	for (k = 0; k < j->nfiles; k++) {
		f = j->files[k];
		if (!(size = _pf_size(p, f)) && p->rule == DL__PF_AGENT)
			continue;
		(*nfiles)++;
		if (!dl_cache_contains(p->st->cache, n, f) &&
		    _pf_first(p, f, n))
			missing += size;
	}
	return missing;
}

/*
 * Copies for the files of job j that node n lacks, in the job's order;
 * under the agent's rule, a pin for each of its files, cached or not: the
 * agent's PREFETCH names them all and dl-stage pins them all for the job,
 * so that a later copy cannot evict them before the job starts.
 */
static int _pf_copies(_pf_t *p, const dl_job_t *j, uint32_t n)
{
	uint32_t k, f;
	int rc;

	for (k = 0; k < j->nfiles; k++) {
		f = j->files[k];
		if (p->rule == DL__PF_AGENT && !_pf_size(p, f))
			continue;
		if (p->rule == DL__PF_AGENT && f < p->nf &&
		    p->pinned[f] != n + 1) {
			p->pinned[f] = n + 1; /* nodes come one by one */
			if ((rc = dl__plan_add_pin(p->plan, f, n)))
				return rc;
		}
		if (!dl_cache_contains(p->st->cache, n, f) &&
		    (rc = dl_plan_add_copy(p->plan, f, n)))
			return rc;
	}
	return 0;
}

/*
 * The prefetch of one node from its slice q[0..n): its running jobs, then
 * its planned jobs in plan order.
 */
static int _pf_node(_pf_t *p, const _queued_t *q, size_t n)
{
	const dl_node_t *nd = &p->st->nodes[q[0].node];
	uint32_t node = q[0].node, took = 0, nfiles;
	uint32_t room = nd->cpus > nd->busy ? nd->cpus - nd->busy : 0;
	uint64_t limit, used = 0, missing;
	size_t i, nrun;
	int rc = 0;

	for (nrun = 0; nrun < n && q[nrun].running; nrun++)
		;
	if (nrun == n)
		return 0; /* nothing planned there */
	limit = _pf_limit(p, node, q, nrun);
	for (i = nrun; i < n && took < p->per_node && !rc; i++) {
		const dl_job_t *j = &p->st->jobs[q[i].job];

		if (p->rule == DL__PF_QUEUE) {
			/* One that starts now fetches its files itself. */
			if (j->cpus <= room) {
				room -= j->cpus;
				continue;
			}
			room = 0; /* dispatch stops at the first misfit */
		}
		missing = _pf_missing(p, j, node, &nfiles);
		if (!nfiles && p->rule == DL__PF_AGENT)
			continue; /* nothing to pin: not one of the head */
		if (missing > limit - used)
			break; /* nobody overtakes it: the list ends */
		used += missing;
		took++;
		rc = _pf_copies(p, j, node);
	}
	return rc;
}

int dl__plan_prefetch(const dl_state_t *st, dl_plan_t *plan,
		      uint32_t per_node, uint64_t budget, dl__pf_rule_t rule)
{
	_pf_t p = { st, plan, per_node, budget, rule, NULL, NULL, 0 };
	_queued_t *q;
	size_t i, k, nq = 0;
	int rc = 0;

	if (!per_node || !st->njobs)
		return 0;
	p.nf = dl_cache_file_count(st->cache);
	q = malloc(st->njobs * sizeof(*q));
	p.stamp = calloc(p.nf ? p.nf : 1, sizeof(*p.stamp));
	/* Only the agent's rule pins (_pf_copies()). */
	if (rule == DL__PF_AGENT)
		p.pinned = calloc(p.nf ? p.nf : 1, sizeof(*p.pinned));
	if (!q || !p.stamp || (rule == DL__PF_AGENT && !p.pinned)) {
		free(q);
		free(p.stamp);
		free(p.pinned);
		return DL_ENOMEM;
	}
	for (i = 0; i < st->njobs; i++) {
		const dl_job_t *j = &st->jobs[i];
		int running = j->state == DL_JOB_RUNNING;
		int32_t n = running ? j->node : plan->a[i].node;

		/* Running jobs count only for the agent's room (_pf_limit). */
		if ((running ? rule != DL__PF_AGENT :
			       j->state != DL_JOB_PENDING) ||
		    n < 0 || (uint32_t)n >= st->nnodes ||
		    (!running && !st->nodes[n].usable))
			continue;
		q[nq].node = (uint32_t)n;
		q[nq].running = running;
		q[nq].order = running ? 0 : plan->a[i].order;
		q[nq++].job = i;
	}
	qsort(q, nq, sizeof(*q), _cmp_queued);
	for (i = 0; i < nq && !rc; i = k) {
		for (k = i; k < nq && q[k].node == q[i].node; k++)
			;
		rc = _pf_node(&p, q + i, k - i);
	}
	free(q);
	free(p.stamp);
	free(p.pinned);
	return rc;
}

/* ------------------------------------------------------------------ */
/* a plan's cost                                                        */

typedef struct {
	size_t job;
	double order;
} _ord_t;

static int _cmp_ord(const void *a, const void *b)
{
	const _ord_t *x = a, *y = b;

	if (x->order != y->order)
		return x->order < y->order ? -1 : 1;
	return (x->job > y->job) - (x->job < y->job);
}

int dl__plan_order(const dl_state_t *st, const dl_plan_t *plan, size_t **idx,
		   size_t *n)
{
	_ord_t *ord = malloc((st->njobs ? st->njobs : 1) * sizeof(*ord));
	size_t i;

	*n = 0;
	*idx = malloc((st->njobs ? st->njobs : 1) * sizeof(**idx));
	if (!ord || !*idx) {
		free(ord);
		free(*idx);
		*idx = NULL;
		return DL_ENOMEM;
	}
	for (i = 0; i < st->njobs; i++)
		if (st->jobs[i].state == DL_JOB_PENDING &&
		    plan->a[i].node >= 0 &&
		    (uint32_t)plan->a[i].node < st->nnodes) {
			ord[*n].job = i;
			ord[(*n)++].order = plan->a[i].order;
		}
	qsort(ord, *n, sizeof(*ord), _cmp_ord);
	for (i = 0; i < *n; i++)
		(*idx)[i] = ord[i].job;
	free(ord);
	return 0;
}

/* Staging of j on node from t: when its last missing file has arrived. */
static double _staged(const dl_state_t *st, const dl_job_t *j, uint32_t node,
		      const dl__u64set_t *ov, double t, double *sfree)
{
	uint32_t k;

	for (k = 0; k < j->nfiles; k++) {
		uint32_t f = j->files[k], s;

		if (_on_node(st, node, f, ov))
			continue;
		s = dl_cost_storage_of(st, f);
		if (sfree[s] > t)
			t = sfree[s];
		t += dl_cost_transfer_time(st, dl_file_bytes(st, f));
		sfree[s] = t;
	}
	return t;
}

int dl__plan_estimate(const dl_state_t *st, const dl_plan_t *plan,
		      double *sum, size_t *nplanned)
{
	uint32_t nst = st && st->params.nstorage ? st->params.nstorage : 1;
	size_t *ord = NULL;
	double *sfree = NULL, total = 0;
	dl__queues_t q;
	dl__u64set_t ov;
	size_t i, n = 0;
	int rc = DL_ENOMEM;

	if (!st || !plan || !sum || plan->n != st->njobs)
		return DL_EINVAL;
	dl__u64set_init(&ov);
	if (dl__queues_init(&q, st))
		return DL_ENOMEM;
	sfree = calloc(nst, sizeof(*sfree));
	if (!sfree || dl__plan_order(st, plan, &ord, &n) ||
	    dl__overlay_add_running(&ov, st))
		goto out;
	for (i = 0; i < n; i++) {
		const dl_job_t *j = &st->jobs[ord[i]];
		uint32_t node = (uint32_t)plan->a[ord[i]].node;
		double start = dl__queues_start(&q, node, j->cpus);
		double end = _staged(st, j, node, &ov, start, sfree) +
			     dl_cost_read_time(st, node, dl_job_bytes(st, j)) +
			     dl_cost_job_compute(st, j);

		dl__queues_push(&q, node, j->cpus, end - start);
		if (dl__overlay_add_job(&ov, node, j))
			goto out;
		total += end;
	}
	*sum = total;
	if (nplanned)
		*nplanned = n;
	rc = 0;
out:
	free(ord);
	free(sfree);
	dl__queues_fini(&q);
	dl__u64set_fini(&ov);
	return rc;
}
