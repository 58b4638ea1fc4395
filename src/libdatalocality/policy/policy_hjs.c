/*
 * policy_hjs.c - Hybrid Job Scheduling (hjs-mansouri §3).
 *
 * Pending jobs are placed one at a time, in priority order, on the node
 * with the smallest FinalCost (eq. 11), a mix of the time to stage the
 * job's files there behind the jobs already queued there (eqs. 1, 2, 5) and
 * of its compute time there (eq. 6), weighted by how data- or
 * compute-intensive the job is on an average node (W, eqs. 7-10).
 *
 *   TransferTime(f, r -> n) = delay(r, n) + size(f) * spb(r, n)   (eq. 1)
 *     the paper's size * 8 / B is for bandwidths in bits/s; ours are in
 *     bytes/s.  delay(r, n) is the sum of the two ends' latencies and
 *     spb(r, n) the seconds per byte of the slower of the two links.
 *   A file node n caches, or that a job queued on n before this one will
 *   fetch, costs 0.  Otherwise its replicas are the usable nodes caching it
 *   (dl_cache_holders()) and its storage node (dl_cost_storage_of()); the
 *   one with the largest Score (eq. 3),
 *     Score = P_BW * w1 + P_CPU * w2 + P_IO * w3,  w1 + w2 + w3 = 1 (eq. 4)
 *   is used, ties going to the faster transfer, then to the holders (by
 *   index) before the storage node.  P_BW is the replica's bandwidth to n
 *   over the best replica's; P_CPU the replica's free slots over its slots;
 *   P_IO the free part of its cache capacity (1 when unlimited).  A
 *   storage node runs no job and its free space is not in the state: its
 *   P_CPU and P_IO are 1.  With replica=min the fastest replica is used
 *   instead, eq. 2's Min read literally.
 *   JobTime(x, n) = sum over x's files of their TransferTime  (eq. 2)
 *   TotalTime(x, n) = JobTime(x, n) + the JobTime of the jobs this plan
 *     queued on n before x                                     (eq. 5)
 *   ComputingScore(x, n) = CP_x / CP_n                         (eq. 6)
 *     with CP_x = dl_cost_job_compute() (seconds on a speed-1 node) and
 *     CP_n the node's speed; with queue=both (the default) the compute
 *     backlog of n is added: the remaining compute of its running jobs and
 *     the compute of the jobs queued on it, over its slots.  Without it,
 *     jobs with no data all pile up on the fastest node.
 *   CC = CP_x / mean(CP_n)    (eqs. 7, 9)
 *   TT = mean over nodes of JobTime(x, n)    (eq. 8)
 *     Eqs. 9-10 put a requirement over a mean provision; TT is read, like
 *     CC, as seconds on an average node (the job's own staging, not the
 *     queues'), so that W is the compute share of the job's time.
 *   W = CC / (CC + TT), 1/2 when both are 0    (eq. 10)
 *   FinalCost(x, n) = (1 - W) * TotalTime + W * ComputingScore (eq. 11)
 * The smallest FinalCost wins, the lowest node index on ties.  Means are
 * over the usable nodes; only the nodes a job is eligible for compete.
 *
 * dl_state_t has no per-node speed, bandwidth or latency, so they come
 * from the parameters, as lists of values separated by ':' (',' separates
 * parameters), "n*v" meaning n times v.  One value applies to every node;
 * a longer list gives node i its i-th value, and nodes past its end take
 * the default (logged once).
 *
 * Params:
 *   w1=, w2=, w3=        weights of eq. 3, each in [0, 1], summing to 1
 *                        (0.5, 0.25, 0.25)
 *   speed=<list>         CP_n, relative compute speed (1)
 *   bw=<list>            bytes/s of each node's network link (RBW)
 *   delay=<list>         seconds of latency of each node's link (0)
 *   sbw=<list>           bytes/s of each storage node's link (RBW)
 *   sdelay=<list>        seconds of latency of each storage node (0)
 *   replica=score|min    replica selection (score)
 *   queue=both|data      compute backlog in ComputingScore or not (both)
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dl_cost.h"
#include "dl_error.h"
#include "dl_log.h"
#include "dl_policy.h"
#include "u64set.h"

/* Entries a list may hold, "n*v" expanded. */
#define HJS_LIST_MAX (1u << 20)

typedef struct {
	double *v;
	size_t n;
} list_t;

typedef struct {
	double w[3];
	int replica_min;
	int queue_both;
	list_t speed, bw, delay, sbw, sdelay;
	uint32_t logged; /* 1 + nnodes of the last mismatch logged, 0: none */
} hjs_t;

/* What a plan knows of every node and storage node. */
typedef struct {
	const hjs_t *h;
	const dl_state_t *st;
	double *speed; /* CP_n */
	double *spb; /* seconds per byte of the node's link, 0: infinite */
	double *delay;
	double *idle; /* P_CPU */
	double *free; /* P_IO */
	double *sspb; /* storage nodes */
	double *sdelay;
	uint32_t nstorage;
	uint32_t *holders; /* scratch, nnodes entries */
	dl__u64set_t planned; /* node << 32 | file fetched by queued jobs */
} ctx_t;

static void _list_free(list_t *l)
{
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

/*
 * Parse "v:v:n*v" with every v in [min, max].  An absent key leaves the
 * list empty (the default applies).
 */
static int _list_parse(const char *params, const char *key, double min,
		       double max, list_t *out)
{
	char *buf, *item, *next;
	size_t len = params ? strlen(params) + 1 : 1;
	int rc = DL_EINVAL;

	buf = malloc(len);
	if (!buf)
		return DL_ENOMEM;
	if (!dl_params_get(params, key, buf, len)) {
		free(buf);
		return 0;
	}
	/* Every item must be there: "speed=" and "speed=1::2" are errors. */
	for (item = buf; item; item = next) {
		char *star, *end;
		unsigned long rep = 1;
		double v, *nv;

		if ((next = strchr(item, ':')))
			*next++ = '\0';
		if ((star = strchr(item, '*'))) {
			*star = '\0';
			rep = strtoul(item, &end, 10);
			if (end == item || *end || !rep || rep > HJS_LIST_MAX ||
			    *item == '-')
				goto out;
			item = star + 1;
		}
		v = strtod(item, &end);
		if (end == item || *end || !(v >= min && v <= max))
			goto out;
		if (out->n + rep > HJS_LIST_MAX)
			goto out;
		nv = realloc(out->v, (out->n + rep) * sizeof(*nv));
		if (!nv) {
			rc = DL_ENOMEM;
			goto out;
		}
		out->v = nv;
		while (rep--)
			out->v[out->n++] = v;
	}
	rc = 0;
out:
	if (rc)
		_list_free(out);
	free(buf);
	return rc;
}

static void _destroy(void *priv)
{
	hjs_t *h = priv;

	if (!h)
		return;
	_list_free(&h->speed);
	_list_free(&h->bw);
	_list_free(&h->delay);
	_list_free(&h->sbw);
	_list_free(&h->sdelay);
	free(h);
}

static int _create(const char *params, void **priv)
{
	hjs_t *h = calloc(1, sizeof(*h));
	char v[16];
	int rc;

	if (!h)
		return DL_ENOMEM;
	h->w[0] = 0.5;
	h->w[1] = 0.25;
	h->w[2] = 0.25;
	h->queue_both = 1;
	if ((rc = dl_params_double(params, "w1", 0, 1, &h->w[0])) ||
	    (rc = dl_params_double(params, "w2", 0, 1, &h->w[1])) ||
	    (rc = dl_params_double(params, "w3", 0, 1, &h->w[2])) ||
	    (rc = _list_parse(params, "speed", 1e-9, 1e12, &h->speed)) ||
	    (rc = _list_parse(params, "bw", 1e-9, 1e18, &h->bw)) ||
	    (rc = _list_parse(params, "delay", 0, 1e9, &h->delay)) ||
	    (rc = _list_parse(params, "sbw", 1e-9, 1e18, &h->sbw)) ||
	    (rc = _list_parse(params, "sdelay", 0, 1e9, &h->sdelay)))
		goto bad;
	rc = DL_EINVAL;
	/* eq. 4 in hjs-mansouri */
	if (fabs(h->w[0] + h->w[1] + h->w[2] - 1.0) > 1e-9)
		goto bad;
	if (dl_params_get(params, "replica", v, sizeof(v))) {
		if (!strcmp(v, "min"))
			h->replica_min = 1;
		else if (strcmp(v, "score"))
			goto bad;
	}
	if (dl_params_get(params, "queue", v, sizeof(v))) {
		if (!strcmp(v, "data"))
			h->queue_both = 0;
		else if (strcmp(v, "both"))
			goto bad;
	}
	*priv = h;
	return 0;
bad:
	_destroy(h);
	return rc;
}

/* Entry i of a list of count entries, or def; *short_ if it is too short. */
static double _pick(const list_t *l, uint32_t i, uint32_t count, double def,
		    int *short_)
{
	if (!l->n)
		return def;
	if (l->n == 1)
		return l->v[0];
	if (l->n != count)
		*short_ = 1;
	return i < l->n ? l->v[i] : def;
}

static double _inv(double bw)
{
	return (bw > 0 && isfinite(bw)) ? 1.0 / bw : 0.0;
}

static void _ctx_free(ctx_t *c)
{
	free(c->speed);
	free(c->spb);
	free(c->delay);
	free(c->idle);
	free(c->free);
	free(c->sspb);
	free(c->sdelay);
	free(c->holders);
	dl__u64set_fini(&c->planned);
}

static int _ctx_init(ctx_t *c, hjs_t *h, const dl_state_t *st)
{
	uint32_t n, nn = st->nnodes ? st->nnodes : 1, s;
	int mismatch = 0;

	memset(c, 0, sizeof(*c));
	c->h = h;
	c->st = st;
	dl__u64set_init(&c->planned);
	c->nstorage = st->params.nstorage ? st->params.nstorage : 1;
	c->speed = malloc(nn * sizeof(double));
	c->spb = malloc(nn * sizeof(double));
	c->delay = malloc(nn * sizeof(double));
	c->idle = malloc(nn * sizeof(double));
	c->free = malloc(nn * sizeof(double));
	c->holders = malloc(nn * sizeof(uint32_t));
	c->sspb = malloc(c->nstorage * sizeof(double));
	c->sdelay = malloc(c->nstorage * sizeof(double));
	if (!c->speed || !c->spb || !c->delay || !c->idle || !c->free ||
	    !c->holders || !c->sspb || !c->sdelay) {
		_ctx_free(c);
		return DL_ENOMEM;
	}
	for (n = 0; n < st->nnodes; n++) {
		const dl_node_t *nd = &st->nodes[n];
		uint64_t cap = dl_cache_capacity(st->cache, n);
		uint64_t used = dl_cache_used(st->cache, n);

		c->speed[n] = _pick(&h->speed, n, st->nnodes, 1.0, &mismatch);
		c->spb[n] = _inv(_pick(&h->bw, n, st->nnodes, st->params.rbw,
				       &mismatch));
		c->delay[n] = _pick(&h->delay, n, st->nnodes, 0, &mismatch);
		c->idle[n] = nd->cpus > nd->busy ?
				     (double) (nd->cpus - nd->busy) / nd->cpus :
				     0.0;
		if (cap == DL_CACHE_UNLIMITED)
			c->free[n] = 1.0;
		else
			c->free[n] = cap > used ? (double) (cap - used) /
							  (double) cap :
						  0.0;
	}
	for (s = 0; s < c->nstorage; s++) {
		c->sspb[s] = _inv(_pick(&h->sbw, s, c->nstorage, st->params.rbw,
					&mismatch));
		c->sdelay[s] = _pick(&h->sdelay, s, c->nstorage, 0, &mismatch);
	}
	if (mismatch && h->logged != st->nnodes + 1) {
		h->logged = st->nnodes + 1;
		dl__log(DL_LOG_ERROR,
			"hjs: a per-node list does not match the %u nodes (or a per-storage list the %u storage nodes); the rest use the defaults",
			st->nnodes, c->nstorage);
	}
	return 0;
}

static int _cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *) a, y = *(const uint32_t *) b;

	return (x > y) - (x < y);
}

/* One replica of a file as seen from the node that needs it. */
typedef struct {
	double spb, time, score;
} replica_t;

static replica_t _replica(const ctx_t *c, double rspb, double rdelay,
			  uint32_t n, double size)
{
	replica_t r;

	r.spb = rspb > c->spb[n] ? rspb : c->spb[n];
	/* eq. 1 in hjs-mansouri */
	r.time = rdelay + c->delay[n] + size * r.spb;
	r.score = 0;
	return r;
}

/* Whether a beats b: larger Score, then faster (replica=min: faster). */
static int _better(const ctx_t *c, const replica_t *a, const replica_t *b)
{
	if (!c->h->replica_min && a->score != b->score)
		return a->score > b->score;
	return a->time < b->time;
}

/* eqs. 1-3: the seconds to bring file f to node n. */
static double _file_time(ctx_t *c, uint32_t f, uint32_t n)
{
	const dl_state_t *st = c->st;
	double size = (double) dl_file_bytes(st, f), min_spb;
	uint32_t nh, k, m = 0, s;
	replica_t best, r;

	if (dl_cache_contains(st->cache, n, f) ||
	    dl__u64set_has(&c->planned, ((uint64_t) n << 32) | f))
		return 0;
	nh = dl_cache_holders(st->cache, f, c->holders, st->nnodes);
	if (nh > st->nnodes)
		nh = st->nnodes;
	/* The tracker's order is its own: sort for the tie rule. */
	qsort(c->holders, nh, sizeof(*c->holders), _cmp_u32);
	for (k = 0; k < nh; k++)
		if (c->holders[k] < st->nnodes &&
		    st->nodes[c->holders[k]].usable)
			c->holders[m++] = c->holders[k];
	s = dl_cost_storage_of(st, f) % c->nstorage;
	/* P_BW is relative to the best bandwidth among the replicas. */
	min_spb = _replica(c, c->sspb[s], c->sdelay[s], n, size).spb;
	for (k = 0; k < m; k++) {
		r = _replica(c, c->spb[c->holders[k]], c->delay[c->holders[k]],
			     n, size);
		if (r.spb < min_spb)
			min_spb = r.spb;
	}
	for (k = 0; k <= m; k++) {
		double p_bw, p_cpu = 1, p_io = 1;

		if (k < m) {
			uint32_t h = c->holders[k];

			r = _replica(c, c->spb[h], c->delay[h], n, size);
			p_cpu = c->idle[h];
			p_io = c->free[h];
		} else {
			r = _replica(c, c->sspb[s], c->sdelay[s], n, size);
		}
		p_bw = r.spb > 0 ? min_spb / r.spb : 1.0;
		/* eq. 3 in hjs-mansouri */
		r.score = p_bw * c->h->w[0] + p_cpu * c->h->w[1] +
			  p_io * c->h->w[2];
		if (!k || _better(c, &r, &best))
			best = r;
	}
	return best.time;
}

/* eq. 2: JobTime(x, n). */
static double _job_time(ctx_t *c, const dl_job_t *j, uint32_t n)
{
	double t = 0;
	uint32_t k;

	for (k = 0; k < j->nfiles; k++)
		t += _file_time(c, j->files[k], n);
	return t;
}

/* The compute still ahead of the running jobs, in slot-seconds, per
 * node (qcomp[]). */
static void _backlog(const ctx_t *c, const dl_state_t *st, double *qcomp)
{
	size_t i;

	for (i = 0; i < st->njobs; i++) {
		const dl_job_t *j = &st->jobs[i];
		double rem, ran;

		if (j->state != DL_JOB_RUNNING || j->node < 0 ||
		    (uint32_t) j->node >= st->nnodes)
			continue;
		ran = st->now - j->start;
		rem = dl_cost_job_compute(st, j) / c->speed[j->node] -
		      (ran > 0 ? ran : 0);
		if (rem > 0)
			qcomp[j->node] += rem * j->cpus;
	}
}

/* The queues a plan fills: transfer time (qdata), compute (qcomp), per
 * node; jt[], the job at hand's transfer time there. */
typedef struct {
	double *qdata, *qcomp, *jt;
	double mean_speed;
	uint32_t usable;
} _queues_t;

/* eqs. 5-11 of hjs-mansouri: j's node, the lowest weighted cost of
 * transfer and compute, or -1 if it may run nowhere; the queues take it. */
static int32_t _choose(const hjs_t *h, ctx_t *c, const dl_state_t *st,
		       const dl_job_t *j, _queues_t *q)
{
	double cp = dl_cost_job_compute(st, j), tt = 0, cc, w;
	double best_cost = INFINITY;
	int32_t best = -1;
	uint32_t n;

	for (n = 0; n < st->nnodes; n++)
		if (st->nodes[n].usable) {
			q->jt[n] = _job_time(c, j, n);
			tt += q->jt[n];
		}
	/* eqs. 8-10 in hjs-mansouri, TT and CC as seconds */
	tt /= q->usable;
	cc = cp / q->mean_speed;
	w = cc + tt > 0 ? cc / (cc + tt) : 0.5;
	for (n = 0; n < st->nnodes; n++) {
		double total, cs, cost;

		if (!dl_state_job_eligible(st, j, n))
			continue;
		/* eq. 5 */
		total = q->qdata[n] + q->jt[n];
		/* eq. 6, plus the node's backlog with queue=both */
		cs = cp / c->speed[n];
		if (h->queue_both)
			cs += q->qcomp[n] / st->nodes[n].cpus;
		/* eq. 11 */
		cost = (1.0 - w) * total + w * cs;
		if (cost < best_cost) {
			best_cost = cost;
			best = (int32_t) n;
		}
	}
	if (best >= 0) {
		q->qdata[best] += q->jt[best];
		q->qcomp[best] += cp / c->speed[best] * j->cpus;
	}
	return best;
}

static int _plan(void *priv, const dl_state_t *st, dl_plan_t *plan)
{
	hjs_t *h = priv;
	ctx_t c;
	_queues_t q = { 0 };
	size_t nn = st->nnodes ? st->nnodes : 1, *idx = NULL, nidx = 0, i;
	uint32_t n, k;
	int rc;

	if ((rc = _ctx_init(&c, h, st)))
		return rc;
	rc = DL_ENOMEM;
	q.qdata = calloc(nn, sizeof(*q.qdata));
	q.qcomp = calloc(nn, sizeof(*q.qcomp));
	q.jt = calloc(nn, sizeof(*q.jt));
	if (!q.qdata || !q.qcomp || !q.jt ||
	    dl_state_priority_order(st, &idx, &nidx))
		goto out;
	for (n = 0; n < st->nnodes; n++)
		if (st->nodes[n].usable) {
			q.mean_speed += c.speed[n];
			q.usable++;
		}
	rc = 0;
	if (!q.usable)
		goto out; /* nobody gets a node */
	/* eq. 7 in hjs-mansouri */
	q.mean_speed /= q.usable;
	_backlog(&c, st, q.qcomp);
	for (i = 0; i < nidx && rc >= 0; i++) {
		const dl_job_t *j = &st->jobs[idx[i]];
		int32_t best = _choose(h, &c, st, j, &q);

		if (best < 0)
			continue; /* no node can take it: no preference */
		plan->a[idx[i]].node = best;
		for (k = 0; k < j->nfiles && rc >= 0; k++)
			rc = dl__u64set_add(&c.planned,
					    ((uint64_t) best << 32) |
						    j->files[k]);
	}
	if (rc > 0)
		rc = 0;
out:
	free(idx);
	free(q.qdata);
	free(q.qcomp);
	free(q.jt);
	_ctx_free(&c);
	return rc;
}

const dl_policy_ops_t dl__policy_hjs = {
	.name = "hjs",
	.summary = "HJS: staging vs compute mixed by W, replicas by Score",
	.create = _create,
	.destroy = _destroy,
	.plan = _plan,
};
