/*
 * agent_multi.c - placing multi-node jobs; see agent_multi.h.
 */
#include <math.h>
#include <string.h>

#include "src/common/slurm_xlator.h"

#include "src/common/hostlist.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "dl_files.h"
#include "dl_slurm.h"
#include "place/dl_place_set.h"
#include "agent_jobs.h"
#include "agent_multi.h"

char *agent_multi_names(const snapshot_t *s, const int32_t *nodes,
			uint32_t n)
{
	/* Not hostlist_t: a pointer in 22.05, the struct in 24.11. */
	struct hostlist *hl = hostlist_create(NULL);
	char *out;
	uint32_t i;

	for (i = 0; i < n; i++)
		if (nodes[i] >= 0 && (uint32_t)nodes[i] < s->nnodes)
			hostlist_push_host(hl, s->names[nodes[i]]);
	hostlist_sort(hl);
	out = hostlist_ranged_string_xmalloc(hl);
	hostlist_destroy(hl);
	return out;
}

/*
 * The job as the library sees it: CPUs per node (what Slurm gives it on
 * each, node_take; its share of its CPUs for a snapshot without it),
 * files, eligibility, and its place in Slurm's order as the single-node
 * jobs of the state have it (dl_agent.c: the submit time as arrival), for
 * the quota.
 */
static dl_job_t _job(const snap_job_t *sj, const agent_job_t *ji)
{
	dl_job_t j = { 0 };

	j.id = sj->job_id;
	j.state = DL_JOB_PENDING;
	j.files = ji->files;
	j.nfiles = ji->nfiles;
	j.cpus = sj->node_take ? sj->node_take :
				 (sj->cpus + sj->set_k - 1) / sj->set_k;
	j.priority = sj->priority;
	j.arrival = (double)sj->submit;
	j.node = -1;
	j.compute = -1;
	j.eligible = sj->eligible;
	return j;
}

/* A job's set: the nodes of its list (cur) into set; RET their count. */
static uint32_t _current(const snapshot_t *s, const snap_job_t *sj,
			 int32_t *set)
{
	uint32_t n, k = 0;

	for (n = 0; sj->req && n < s->nnodes && k < sj->set_k; n++)
		if (sj->req[n])
			set[k++] = (int32_t)n;
	return k;
}

/* A node of the set that serves nobody while k others could: its name. */
static const char *_unserving(const snapshot_t *s, const snap_job_t *sj,
			      const int32_t *set, uint32_t k, int32_t *which)
{
	uint32_t i, n, ok = 0;

	if (!s->unserving)
		return NULL;
	for (n = 0; n < s->nnodes; n++)
		ok += sj->eligible[n] && !s->unserving[n];
	for (i = 0; i < k && ok >= sj->set_k; i++)
		if (s->unserving[set[i]]) {
			*which = set[i];
			return s->unserving[set[i]];
		}
	return NULL;
}

/* "2/2 files, 6.0 MiB cached on each" for the set's least-cached node. */
static void _cached(const dl_state_t *st, const dl_job_t *j,
		    const uint32_t *set, uint32_t k, char *buf, size_t len)
{
	uint64_t b = dl_place_set_cached_bytes(st, j, set, k);
	uint32_t i, f, files = j->nfiles;
	char bytes[32];

	for (f = 0; f < j->nfiles; f++)
		for (i = 0; i < k; i++)
			if (!dl_cache_contains(st->cache, set[i], j->files[f])) {
				files--;
				break;
			}
	dl_files_format_size(b, 1, bytes, sizeof(bytes));
	snprintf(buf, len, "%u/%u files, %s cached on each", files,
		 j->nfiles, bytes);
}

static char *_waiting(const char *names, const dl_place_t *rec,
		      const char *cached)
{
	if (isinf(rec->bound))
		return xstrdup_printf("DataLocality: waiting for %s (%s; strict)",
				      names, cached);
	return xstrdup_printf("DataLocality: waiting for %s (%s; any node after %.0f s blocked, %.0f s so far)",
			      names, cached, rec->bound, rec->waited);
}

/* Restrict a job to the set its input is cached on best; RET false: no. */
static bool _place(const snapshot_t *s, const dl_state_t *st,
		   const snap_job_t *sj, agent_job_t *ji,
		   const agent_conf_t *c, place_ops_t *ops, const char *pfx)
{
	dl_job_t j = _job(sj, ji);
	uint32_t *set = xcalloc(sj->set_k, sizeof(uint32_t)), i;
	int32_t *idx = xcalloc(sj->set_k, sizeof(int32_t));
	char cached[160], *names;
	place_op_t *op;
	int held = dl_place_set_choose(st, &j, sj->set_k, set);

	if (held <= 0) {
		xfree(set);
		xfree(idx);
		return false;
	}
	for (i = 0; i < sj->set_k; i++)
		idx[i] = (int32_t)set[i];
	names = agent_multi_names(s, idx, sj->set_k);
	ji->place.node = idx[0];
	ji->place.waited = 0;
	ji->place.last = st->now;
	ji->place.bound = dl_place_set_bound(st, &j, set, sj->set_k, &c->place);
	_cached(st, &j, set, sj->set_k, cached, sizeof(cached));
	op = agent_place_add(ops, OP_RESTRICT, sj->job_id);
	op->node = idx[0];
	op->nodes = xstrdup(names);
	op->set = idx;
	op->nset = sj->set_k;
	idx = NULL;
	op->sc = xstrdup_printf("%s%s is the plugin's placement (%s when placed, %u nodes)",
				DL_SC_PLACED, names, cached, sj->set_k);
	op->desc = _waiting(names, &ji->place, cached);
	op->log = xstrdup_printf("%s: placed JobId=%u on %s (%s, %u nodes)",
				 pfx, sj->job_id, names, cached, sj->set_k);
	xfree(names);
	xfree(set);
	xfree(idx);
	return true;
}

/* Lift a job's list for good; why: the Reason's and log's cause. */
static void _widen(const snap_job_t *sj, agent_job_t *ji, const char *names,
		   const char *why, place_ops_t *ops, const char *pfx)
{
	place_op_t *op = agent_place_add(ops, OP_WIDEN, sj->job_id);

	op->from = ji->place.node;
	ji->place.node = -1;
	ji->place.widened = 1;
	op->desc = xstrdup_printf("DataLocality: %s, any nodes now", why);
	op->sc = xstrdup_printf("%s to any nodes: %s (bound %.0f s)",
				DL_SC_WIDENED, why, ji->place.bound);
	op->log = xstrdup_printf("%s: widened JobId=%u from %s: %s", pfx,
				 sj->job_id, names, why);
}

/*
 * A job placed before: count the time blocked since the last cycle if the
 * free room would start it (m: its entry in the cycle's quota, over: the
 * quota's verdict), widen past the bound or off a node that cannot serve,
 * else refresh its Reason.
 */
static void _step(const snapshot_t *s, const dl_state_t *st,
		  const snap_job_t *sj, agent_job_t *ji,
		  const dl_place_multi_t *m, bool over, const agent_conf_t *c,
		  place_ops_t *ops, dl_sched_stats_t *stats, const char *pfx)
{
	int32_t *set = xcalloc(sj->set_k, sizeof(int32_t)), bad = -1;
	uint32_t *uset = xcalloc(sj->set_k, sizeof(uint32_t));
	uint32_t k = _current(s, sj, set), i;
	dl_job_t j = _job(sj, ji);
	char *names = agent_multi_names(s, set, k), why[128], cached[160];
	const char *down = _unserving(s, sj, set, k, &bad);
	place_op_t *op;

	for (i = 0; i < k; i++)
		uset[i] = (uint32_t)set[i];
	ji->place.node = set[0];
	ji->place.bound = dl_place_set_bound(st, &j, uset, k, &c->place);
	/* Beyond the quota, backfill would not start it either. */
	if (!over && dl_place_multi_blocked(st, m) && ji->place.last > 0 &&
	    st->now > ji->place.last)
		ji->place.waited += st->now - ji->place.last;
	ji->place.last = st->now;
	if (down) {
		snprintf(why, sizeof(why), "%s is %s", s->names[bad], down);
		_widen(sj, ji, names, why, ops, pfx);
		stats->widened++;
	} else if (!c->place.strict && ji->place.waited >= ji->place.bound) {
		snprintf(why, sizeof(why), "blocked %.0f s waiting for %s",
			 ji->place.waited, names);
		_widen(sj, ji, names, why, ops, pfx);
		stats->widened++;
	} else {
		_cached(st, &j, uset, k, cached, sizeof(cached));
		op = agent_place_add(ops, OP_REASON, sj->job_id);
		op->desc = _waiting(names, &ji->place, cached);
		stats->pending_placed++;
	}
	xfree(names);
	xfree(set);
	xfree(uset);
}

/* Whether the job is one of ours to place or follow this cycle. */
static agent_job_t *_ours(const snap_job_t *sj)
{
	agent_job_t *ji;

	if (!sj->set_k || sj->running || sj->outside || !sj->runnable ||
	    !sj->eligible || sj->widened)
		return NULL;
	if (!(ji = agent_jobs_get(sj->job_id, false)) || !ji->parsed ||
	    !ji->nfiles || ji->too_many)
		return NULL;
	/* Lifted by us, or by an admin: never set again. */
	if (sj->ours < 0 && ji->place.node >= 0)
		ji->place.widened = 1;
	return ji->place.widened ? NULL : ji;
}

/*
 * A restricted job, stepped by agent_multi_step() once the quota is
 * known: its entry in the quota's input, set[] its list's nodes (not to
 * be judged while a node of it serves nobody: it is widened at once,
 * whatever the quota, as agent_place.c's _leave() for one node).
 */
static void _defer(const snapshot_t *s, uint32_t i, const agent_job_t *ji,
		   agent_multi_t *mu)
{
	const snap_job_t *sj = &s->jobs[i];
	int32_t *set = xcalloc(sj->set_k, sizeof(int32_t)), bad = -1;
	uint32_t k = _current(s, sj, set), n;
	dl_place_multi_t *m;

	if (mu->n == mu->cap) {
		mu->cap = mu->cap ? mu->cap * 2 : 16;
		xrecalloc(mu->idx, mu->cap, sizeof(*mu->idx));
		xrecalloc(mu->sets, mu->cap, sizeof(*mu->sets));
		xrecalloc(mu->in, mu->cap, sizeof(*mu->in));
	}
	mu->idx[mu->n] = i;
	mu->sets[mu->n] = xcalloc(k ? k : 1, sizeof(uint32_t));
	for (n = 0; n < k; n++)
		mu->sets[mu->n][n] = (uint32_t)set[n];
	m = &mu->in[mu->n++];
	m->job = _job(sj, ji);
	/*
	 * A node must have --mincpus free for it (node_need) even where
	 * Slurm then gives it less (24.11, agent_fit_node_take()): the
	 * quota leaves the rest to the jobs behind it, as backfill does.
	 */
	m->node_need = sj->node_need;
	m->k = k;
	m->fits = sj->fits;
	/* Without Slurm's test (not runnable) it never counted a wait. */
	m->set = k && sj->fits && !_unserving(s, sj, set, k, &bad) ?
			 mu->sets[mu->n - 1] : NULL;
	xfree(set);
}

void agent_multi_free(agent_multi_t *mu)
{
	uint32_t i;

	for (i = 0; i < mu->n; i++)
		xfree(mu->sets[i]);
	xfree(mu->sets);
	xfree(mu->idx);
	xfree(mu->in);
	memset(mu, 0, sizeof(*mu));
}

/* The gate's fields on the job's operations from first on. */
static void _gate_ops(place_ops_t *ops, uint32_t first, const snap_job_t *sj,
		      agent_job_t *ji, const agent_conf_t *c)
{
	for (; first < ops->n; first++)
		agent_place_gate_op(&ops->op[first], sj, c);
	if (ji->place.node >= 0)
		ji->planned = ji->place.node;
}

void agent_multi_decide(const snapshot_t *s, const dl_state_t *st,
			const agent_conf_t *c, uint8_t *handled,
			agent_multi_t *mu, place_ops_t *ops,
			dl_sched_stats_t *stats, const char *pfx)
{
	uint32_t i, first;

	for (i = 0; st && i < s->njobs; i++) {
		const snap_job_t *sj = &s->jobs[i];
		agent_job_t *ji = _ours(sj);

		if (!ji)
			continue;
		first = ops->n;
		if (sj->ours >= 0 && sj->req) {
			_defer(s, i, ji, mu);
			handled[i] = 1;
			continue;
		}
		if (!_place(s, st, sj, ji, c, ops, pfx))
			continue;
		stats->placed++;
		stats->pending_placed++;
		handled[i] = 1;
		_gate_ops(ops, first, sj, ji, c);
	}
}

void agent_multi_step(const snapshot_t *s, const dl_state_t *st,
		      const agent_conf_t *c, const agent_multi_t *mu,
		      const dl_place_quota_t *q, place_ops_t *ops,
		      dl_sched_stats_t *stats, const char *pfx)
{
	uint32_t i, first;

	for (i = 0; st && i < mu->n; i++) {
		const snap_job_t *sj = &s->jobs[mu->idx[i]];
		agent_job_t *ji = agent_jobs_get(sj->job_id, false);

		if (!ji)
			continue;
		first = ops->n;
		_step(s, st, sj, ji, &mu->in[i],
		      dl_place_quota_multi_over(q, i), c, ops, stats, pfx);
		_gate_ops(ops, first, sj, ji, c);
	}
}
