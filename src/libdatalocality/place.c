/* place.c - placement restrictions with hysteresis and a bounded wait;
 * see dl_place.h. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "dl_cache.h"
#include "dl_error.h"
#include "dl_cost.h"
#include "dl_place.h"

void dl_place_params_default(dl_place_params_t *p)
{
	p->wait_factor = 1.0;
	p->min_wait = 2.0;
	p->max_wait = 300.0;
	p->hysteresis = 0.25;
	p->strict = 0;
	p->peer_bw = 0.0;
	p->peer_src = NULL;
}

void dl_place_init(dl_place_t *rec)
{
	rec->node = -1;
	rec->widened = 0;
	rec->waited = 0;
	rec->bound = 0;
	rec->last = 0;
}

uint64_t dl_place_cached_bytes(const dl_state_t *st, const dl_job_t *j,
			       uint32_t n)
{
	uint64_t b = 0;
	uint32_t i;

	if (!st || !j || n >= st->nnodes)
		return 0;
	for (i = 0; i < j->nfiles; i++)
		if (dl_cache_contains(st->cache, n, j->files[i]))
			b += dl_file_bytes(st, j->files[i]);
	return b;
}

/* Whether j may ever run on n, up or down (dl_state_job_eligible() also
 * asks that n be usable now). */
static int _allowed(const dl_state_t *st, const dl_job_t *j, uint32_t n)
{
	return n < st->nnodes && st->nodes[n].cpus >= j->cpus &&
	       (!j->eligible || j->eligible[n]);
}

static int _room(const dl_state_t *st, uint32_t n, uint32_t cpus)
{
	const dl_node_t *nd = &st->nodes[n];

	return nd->usable && nd->busy + cpus <= nd->cpus;
}

uint32_t dl_place_max_free(const dl_state_t *st)
{
	uint32_t n, best = 0;

	for (n = 0; st && n < st->nnodes; n++) {
		const dl_node_t *nd = &st->nodes[n];

		if (nd->usable && nd->cpus > nd->busy &&
		    nd->cpus - nd->busy > best)
			best = nd->cpus - nd->busy;
	}
	return best;
}

void dl_place_room(const dl_state_t *st, dl_place_room_t *r)
{
	uint32_t n;

	r->max_free = dl_place_max_free(st);
	r->first = r->second = -1;
	r->f1 = r->f2 = 0;
	for (n = 0; st && n < st->nnodes; n++) {
		double f = st->nodes[n].freed > 0 ? st->nodes[n].freed : 0;

		if (!_room(st, n, 1))
			continue;
		if (r->first < 0 || f < r->f1) {
			r->second = r->first;
			r->f2 = r->f1;
			r->first = (int32_t)n;
			r->f1 = f;
		} else if (r->second < 0 || f < r->f2) {
			r->second = (int32_t)n;
			r->f2 = f;
		}
	}
}

int dl_place_blocked(const dl_state_t *st, const dl_job_t *j, uint32_t n)
{
	dl_place_room_t r;

	dl_place_room(st, &r);
	return dl_place_blocked_free(st, j, n, &r);
}

/*
 * The earliest dl_node_t.freed of the nodes other than n with room for j
 * (0 if one is unknown), or -1 if j is not blocked on n.
 */
static double _blocked_since(const dl_state_t *st, const dl_job_t *j,
			     uint32_t n, const dl_place_room_t *room)
{
	double since = -1;
	uint32_t k;

	if (!st || !j || n >= st->nnodes || _room(st, n, j->cpus))
		return -1;
	/* No node has room for it: nothing holds it back but the load. */
	if (room->max_free < j->cpus)
		return -1;
	/* Any node with a free CPU will do: the summary has the answer. */
	if (j->cpus == 1 && !j->eligible) {
		if (room->first >= 0 && (uint32_t)room->first != n)
			return room->f1;
		return room->second >= 0 ? room->f2 : -1;
	}
	for (k = 0; k < st->nnodes; k++) {
		double f = st->nodes[k].freed > 0 ? st->nodes[k].freed : 0;

		if (k == n || !_room(st, k, j->cpus) ||
		    (j->eligible && !dl_state_job_eligible(st, j, k)))
			continue;
		if (since < 0 || f < since)
			since = f;
		if (since == 0)
			break;
	}
	return since;
}

int dl_place_blocked_free(const dl_state_t *st, const dl_job_t *j, uint32_t n,
			  const dl_place_room_t *room)
{
	return _blocked_since(st, j, n, room) >= 0;
}

/* Seconds from the later of since and last (0: never) to st->now. */
static double _held(const dl_state_t *st, double since, double last)
{
	if (last <= 0)
		return 0;
	if (since < last)
		since = last;
	return st->now > since ? st->now - since : 0;
}

double dl_place_blocked_for(const dl_state_t *st, const dl_job_t *j,
			    uint32_t n, const dl_place_room_t *room,
			    double last)
{
	double since = _blocked_since(st, j, n, room);

	return since < 0 ? -1 : _held(st, since, last);
}

uint64_t dl_place_coming_bytes(const dl_state_t *st, const dl_job_t *j,
			       uint32_t n)
{
	uint64_t b = 0, sz;
	uint32_t i;

	if (!st || !j || n >= st->nnodes)
		return 0;
	for (i = 0; i < j->nfiles; i++) {
		sz = dl_file_bytes(st, j->files[i]);
		/* A file larger than the cache is read past it, never kept. */
		if (dl_cache_contains(st->cache, n, j->files[i]) ||
		    (dl_state_node_reads(st, n, j->files[i]) &&
		     sz <= dl_cache_capacity(st->cache, n)))
			b += sz;
	}
	return b;
}

/* The wait fetching bytes to n would be worth, before the floor and cap. */
static double _wait_for(const dl_state_t *st, uint32_t n, uint64_t bytes,
			const dl_place_params_t *p)
{
	if (st->params.rbw > 0 && p->peer_bw > st->params.rbw &&
	    (!p->peer_src || p->peer_src[n]))
		return p->wait_factor * (double)bytes / p->peer_bw;
	return p->wait_factor * dl_cost_transfer_time(st, bytes);
}

double dl_place_bound(const dl_state_t *st, const dl_job_t *j, uint32_t n,
		      const dl_place_params_t *p)
{
	double b;

	if (p->strict)
		return INFINITY;
	/* Ahead of a draining wide job, an idle node is everyone's loss. */
	if (st->wide_waiting && j->priority > st->wide_priority)
		return 0;
	/*
	 * The wait is worth what fetching the node's copy would cost, priced
	 * by the cost model: a bandwidth that is not positive is infinite
	 * there (dl_cost.h), so such a fetch is free and the floor applies.
	 * A copy a running job is still staging counts: the job that waits
	 * for it reads it there, where moving on would fetch the file a
	 * second time (on heavy, doc/experiments/robustness-notes.md, the
	 * jobs queued behind a 43-s fetch were widened after the 2-s floor
	 * and fetched their 4 GiB file again elsewhere).
	 *
	 * The wait grows with the bytes (a product and a quotient of
	 * positive numbers, monotone in floating point too), and n's copies
	 * are at most all of j's input: if all of it would not lift the wait
	 * above the floor, n's share does not either, and the caches need
	 * not be asked (a third of the calls of dl-sim's 1,024-node run,
	 * each a look-up per file in two hash tables).
	 */
	if (p->wait_factor >= 0 &&
	    _wait_for(st, n, dl_job_bytes(st, j), p) <= p->min_wait)
		return p->min_wait < p->max_wait ? p->min_wait : p->max_wait;
	b = _wait_for(st, n, dl_place_coming_bytes(st, j, n), p);
	if (b < p->min_wait)
		b = p->min_wait;
	return b < p->max_wait ? b : p->max_wait;
}

int dl_place_worth_moving(const dl_state_t *st, const dl_job_t *j,
			  uint32_t cur, uint32_t planned,
			  const dl_place_params_t *p)
{
	double have = (double)dl_place_cached_bytes(st, j, cur);
	double gain = (double)dl_place_cached_bytes(st, j, planned) - have;

	return gain > 0 && gain >= p->hysteresis * (double)dl_job_bytes(st, j);
}

/* Bytes of j's input each node caches; RET calloc'd [nnodes] or NULL. */
static uint64_t *_bytes_per_node(const dl_state_t *st, const dl_job_t *j)
{
	uint64_t *b = calloc(st->nnodes ? st->nnodes : 1, sizeof(*b));
	uint32_t *h = malloc((st->nnodes ? st->nnodes : 1) * sizeof(*h));
	uint32_t i, k, n;

	if (!b || !h) {
		free(b);
		free(h);
		return NULL;
	}
	for (i = 0; i < j->nfiles; i++) {
		n = dl_cache_holders(st->cache, j->files[i], h, st->nnodes);
		for (k = 0; k < n && k < st->nnodes; k++)
			if (h[k] < st->nnodes)
				b[h[k]] += dl_file_bytes(st, j->files[i]);
	}
	free(h);
	return b;
}

/*
 * dl_place_pin()'s test for a job of one input file, without a per-node
 * array: the nodes holding more of it than cur are its holders, if cur
 * is not one.  \return 1 if another node is worth moving to, 0 if not,
 * -1 if the holders do not fit the buffer (the general test decides).
 * Its size is read only when cur lacks the file.
 */
static int _better_one(const dl_state_t *st, const dl_job_t *j, uint32_t cur,
		       double hysteresis)
{
	uint32_t h[64], nh, k;
	uint64_t b;
	double need;

	if (dl_cache_contains(st->cache, cur, j->files[0]))
		return 0; /* no node holds more than all of it */
	nh = dl_cache_holders(st->cache, j->files[0], h, 64);
	if (nh > 64)
		return -1;
	b = dl_file_bytes(st, j->files[0]);
	need = hysteresis * (double)b; /* dl_job_bytes() of one file */
	for (k = 0; k < nh; k++)
		if (b > 0 && (double)b >= need && h[k] < st->nnodes &&
		    h[k] != cur && dl_state_job_eligible(st, j, h[k]))
			return 1;
	return 0;
}

/* A node and the bytes of a job's input it caches. */
typedef struct {
	uint32_t node;
	uint64_t bytes;
} _nb_t;

static int _nb_cmp(const void *a, const void *b)
{
	uint32_t x = ((const _nb_t *)a)->node, y = ((const _nb_t *)b)->node;

	return (x > y) - (x < y);
}

/*
 * _bytes_per_node() for the nodes that cache some of j's input only, from
 * the files' holder lists: one (node, bytes) per such node, by node.
 * OUT out - malloc'd, the caller frees it (NULL when none)
 * 
eturn how many, or DL_ENOMEM.
 */
static int64_t _holder_bytes(const dl_state_t *st, const dl_job_t *j,
			     _nb_t **out)
{
	size_t total = 0, n = 0, k, m;
	uint32_t i, c, h, most = 0, *hs;
	_nb_t *nb;

	*out = NULL;
	for (i = 0; i < j->nfiles; i++) {
		c = dl_cache_copies(st->cache, j->files[i]);
		total += c;
		most = c > most ? c : most;
	}
	if (!total)
		return 0;
	nb = malloc(total * sizeof(*nb));
	hs = malloc(most * sizeof(*hs));
	if (!nb || !hs) {
		free(nb);
		free(hs);
		return DL_ENOMEM;
	}
	for (i = 0; i < j->nfiles; i++) {
		uint64_t b = dl_file_bytes(st, j->files[i]);

		c = dl_cache_holders(st->cache, j->files[i], hs, most);
		for (h = 0; h < c && h < most && n < total; h++)
			nb[n++] = (_nb_t){ hs[h], b };
	}
	free(hs);
	qsort(nb, n, sizeof(*nb), _nb_cmp);
	for (k = m = 0; k < n; k++) {
		if (nb[k].node >= st->nnodes)
			continue;
		if (m && nb[m - 1].node == nb[k].node)
			nb[m - 1].bytes += nb[k].bytes;
		else
			nb[m++] = nb[k];
	}
	*out = nb;
	return (int64_t)m;
}

/*
 * Whether another node holds enough more of j's input than cur to move
 * (the test of dl_place_worth_moving()); RET 1, 0 or DL_ENOMEM.  Only a
 * node that caches some of it can hold more than cur: the holders of its
 * files are looked at, not every node (this runs for every restricted
 * job before every plan; per node, it led dl-sim's profile at 1,024).
 */
static int _better(const dl_state_t *st, const dl_job_t *j, uint32_t cur,
		   double hysteresis)
{
	uint64_t have = 0;
	_nb_t *nb;
	int64_t n, k;
	double need;
	int r;

	/* Most jobs of large queues read one file. */
	if (j->nfiles == 1 && (r = _better_one(st, j, cur, hysteresis)) >= 0)
		return r;
	if ((n = _holder_bytes(st, j, &nb)) < 0)
		return DL_ENOMEM;
	for (k = 0; k < n; k++)
		if (nb[k].node == cur)
			have = nb[k].bytes;
	need = hysteresis * (double)dl_job_bytes(st, j);
	for (k = 0; k < n; k++)
		if (nb[k].bytes > have &&
		    (double)(nb[k].bytes - have) >= need && nb[k].node != cur &&
		    dl_state_job_eligible(st, j, nb[k].node))
			break;
	free(nb);
	return k < n;
}

int dl_place_pin(dl_state_t *st, size_t k, uint32_t cur,
		 const dl_place_params_t *p)
{
	dl_job_t *j;
	int r;

	if (!st || !p || k >= st->njobs || cur >= st->nnodes ||
	    !_allowed(st, &st->jobs[k], cur))
		return DL_EINVAL;
	j = &st->jobs[k];
	r = _better(st, j, cur, p->hysteresis);
	if (r)
		return r < 0 ? r : 0;
	if (!j->eligible && !(j->eligible = malloc(st->nnodes)))
		return DL_ENOMEM;
	memset(j->eligible, 0, st->nnodes);
	j->eligible[cur] = 1;
	return 1;
}

static int _cold(const dl_state_t *st, uint32_t n)
{
	return n < st->nnodes && st->nodes[n].wake > 0;
}

int32_t dl_place_warm(const dl_state_t *st, const dl_job_t *j, uint32_t n,
		      const dl_cost_end_t *ends, size_t nends)
{
	dl_cost_end_t *own = NULL;
	uint64_t *cached, all;
	double best, t;
	int32_t pick = (int32_t)n;
	uint32_t w;

	if (!st || !j || !_cold(st, n))
		return (int32_t)n;
	if (!ends && dl_cost_ends(st, &own, &nends))
		return (int32_t)n;
	if (!ends)
		ends = own;
	if (!(cached = _bytes_per_node(st, j))) {
		free(own);
		return (int32_t)n;
	}
	all = dl_job_bytes(st, j);
	best = dl_cost_node_wait(st, n, j->cpus, ends, nends) +
	       dl_cost_transfer_time(st, all - cached[n]);
	for (w = 0; w < st->nnodes; w++) {
		if (_cold(st, w) || !dl_state_job_eligible(st, j, w))
			continue;
		t = dl_cost_node_wait(st, w, j->cpus, ends, nends) +
		    dl_cost_transfer_time(st, all - cached[w]);
		if (t < best) {
			best = t;
			pick = (int32_t)w;
		}
	}
	free(cached);
	free(own);
	return pick;
}

static dl_place_action_t _set(const dl_state_t *st, const dl_job_t *j,
			       const dl_place_params_t *p, dl_place_t *rec,
			       int32_t node)
{
	/*
	 * The time already waited stays: the bound is on the job's whole
	 * wait for data, however often a better node turns up.
	 */
	rec->node = node;
	rec->bound = dl_place_bound(st, j, (uint32_t)node, p);
	return DL_PLACE_SET;
}

static dl_place_action_t _widen(dl_place_t *rec)
{
	rec->node = -1;
	rec->widened = 1;
	return DL_PLACE_WIDEN;
}

dl_place_action_t dl_place_step(const dl_state_t *st, size_t job,
				int32_t planned, const dl_place_params_t *p,
				dl_place_t *rec)
{
	dl_place_room_t r;

	dl_place_room(st, &r);
	return dl_place_step_free(st, job, planned, p, rec, &r);
}

dl_place_action_t dl_place_step_free(const dl_state_t *st, size_t job,
				     int32_t planned,
				     const dl_place_params_t *p,
				     dl_place_t *rec,
				     const dl_place_room_t *room)
{
	return dl_place_step_quota(st, job, planned, p, rec, room, NULL);
}

dl_place_action_t dl_place_step_quota(const dl_state_t *st, size_t job,
				      int32_t planned,
				      const dl_place_params_t *p,
				      dl_place_t *rec,
				      const dl_place_room_t *room,
				      const dl_place_quota_t *q)
{
	const dl_job_t *j;
	double last, since;
	uint32_t cur;

	if (!st || !p || !rec || job >= st->njobs)
		return DL_PLACE_KEEP;
	j = &st->jobs[job];
	last = rec->last;
	rec->last = st->now;
	if (planned >= (int32_t)st->nnodes ||
	    (planned >= 0 && !dl_state_job_eligible(st, j, (uint32_t)planned)))
		planned = -1;
	if (rec->widened)
		return DL_PLACE_KEEP;
	/* Waking a node only where that beats every warm one. */
	if (planned >= 0)
		planned = dl_place_warm(st, j, (uint32_t)planned, NULL, 0);
	if (rec->node < 0 || rec->node >= (int32_t)st->nnodes)
		return planned >= 0 ? _set(st, j, p, rec, planned) :
				      DL_PLACE_KEEP;
	cur = (uint32_t)rec->node;
	/*
	 * A node that left the job's partitions.  A node that is down is
	 * only full: the job waits as for a busy one, bounded, and does not
	 * lose its place when every node is briefly unusable (a slurmctld
	 * restart, before the nodes register again).
	 */
	if (!_allowed(st, j, cur)) {
		if (planned >= 0 && (uint32_t)planned != cur)
			return _set(st, j, p, rec, planned);
		return p->strict ? DL_PLACE_KEEP : _widen(rec);
	}
	/*
	 * Its node was powered down since it was placed (with its cache
	 * lost, or kept): a warm node where it begins sooner takes it,
	 * whatever the hysteresis, which weighs cached bytes only.
	 */
	if (_cold(st, cur)) {
		int32_t w = dl_place_warm(st, j, cur, NULL, 0);

		if (w != (int32_t)cur)
			return _set(st, j, p, rec, w);
	}
	if (planned >= 0 && (uint32_t)planned != cur &&
	    dl_place_worth_moving(st, j, cur, (uint32_t)planned, p))
		return _set(st, j, p, rec, planned);
	rec->bound = dl_place_bound(st, j, cur, p);
	/* Beyond the quota, backfill would not start it either. */
	since = dl_place_quota_over(q, job) ? -1 :
					       _blocked_since(st, j, cur, room);
	if (since >= 0) {
		rec->waited += _held(st, since, last);
		if (rec->waited >= rec->bound)
			return _widen(rec);
	}
	return DL_PLACE_KEEP;
}
