/*
 * agent_het.c - placing hetjob components; see agent_het.h.
 */
#include <stdlib.h>
#include <string.h>

#include "src/common/slurm_xlator.h"

#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "dl_slurm.h"
#include "agent_gate.h"
#include "agent_het.h"
#include "agent_jobs.h"

/* The pending components of a snapshot, grouped by hetjob. */
typedef struct {
	const snapshot_t *s;
	uint32_t *idx;          /* snapshot indices, by hetjob then job id */
	uint32_t n;
} comps_t;

static const snapshot_t *sort_s; /* for _by_het() only */

static int _by_het(const void *a, const void *b)
{
	const snap_job_t *x = &sort_s->jobs[*(const uint32_t *)a];
	const snap_job_t *y = &sort_s->jobs[*(const uint32_t *)b];

	if (x->het_job_id != y->het_job_id)
		return x->het_job_id < y->het_job_id ? -1 : 1;
	return x->job_id < y->job_id ? -1 : x->job_id > y->job_id;
}

/* RET whether s has pending components; c->idx xmalloc'd if so. */
static bool _comps(const snapshot_t *s, comps_t *c)
{
	uint32_t i;

	memset(c, 0, sizeof(*c));
	c->s = s;
	for (i = 0; i < s->njobs; i++)
		if (s->jobs[i].het_job_id && !s->jobs[i].running)
			c->n++;
	if (c->n < 2)
		return false;
	c->idx = xcalloc(c->n, sizeof(uint32_t));
	c->n = 0;
	for (i = 0; i < s->njobs; i++)
		if (s->jobs[i].het_job_id && !s->jobs[i].running)
			c->idx[c->n++] = i;
	/* The agent thread alone sorts: sort_s is not shared. */
	sort_s = s;
	qsort(c->idx, c->n, sizeof(uint32_t), _by_het);
	return true;
}

/* The end of the group starting at c->idx[g]. */
static uint32_t _group_end(const comps_t *c, uint32_t g)
{
	uint32_t e = g + 1;

	while (e < c->n && c->s->jobs[c->idx[e]].het_job_id ==
				   c->s->jobs[c->idx[g]].het_job_id)
		e++;
	return e;
}

void agent_het_exclude(snapshot_t *s)
{
	comps_t c;
	uint32_t g, e, a, b;

	if (!_comps(s, &c))
		return;
	for (g = 0; g < c.n; g = e) {
		e = _group_end(&c, g);
		for (a = g; a < e; a++) {
			int32_t n = s->jobs[c.idx[a]].ours;

			if (n < 0 || (uint32_t)n >= s->nnodes)
				continue;
			for (b = g; b < e; b++) {
				snap_job_t *o = &s->jobs[c.idx[b]];

				if (b == a)
					continue;
				if (o->eligible)
					o->eligible[n] = 0;
				if (o->fits)
					o->fits[n] = 0;
			}
		}
	}
	xfree(c.idx);
}

void agent_het_sync(const snapshot_t *s)
{
	comps_t c;
	uint32_t g, e, a;
	agent_job_t *ji;
	double most;

	if (!_comps(s, &c))
		return;
	for (g = 0; g < c.n; g = e) {
		e = _group_end(&c, g);
		most = 0;
		for (a = g; a < e; a++)
			if ((ji = agent_jobs_get(s->jobs[c.idx[a]].job_id,
						 false)) &&
			    ji->place.node >= 0 && ji->place.waited > most)
				most = ji->place.waited;
		for (a = g; a < e; a++)
			if ((ji = agent_jobs_get(s->jobs[c.idx[a]].job_id,
						 false)) &&
			    ji->place.node >= 0)
				ji->place.waited = most;
	}
	xfree(c.idx);
}

/* The last operation of this cycle on job_id, or NULL. */
static place_op_t *_op_of(place_ops_t *ops, uint32_t first, uint32_t job_id)
{
	uint32_t i;

	for (i = ops->n; i > first; i--)
		if (ops->op[i - 1].job_id == job_id)
			return &ops->op[i - 1];
	return NULL;
}

/* An operation made to do nothing but its gate part (agent_apply.c). */
static void _blank(place_op_t *op, const char *desc)
{
	xfree(op->desc);
	xfree(op->sc);
	xfree(op->log);
	xfree(op->nodes);
	xfree(op->set);
	op->nset = 0;
	op->kind = OP_REASON;
	op->desc = desc ? xstrdup(desc) : NULL;
}


/* Whether the agent would place component sj and has not yet. */
static bool _unplaced(const snapshot_t *s, const snap_job_t *sj,
		      const agent_job_t *ji)
{
	uint32_t n;

	if (!sj->placeable || !sj->runnable || sj->outside || !sj->eligible ||
	    sj->widened || !ji || !ji->parsed || !ji->nfiles ||
	    ji->too_many || ji->user_bound || ji->place.widened ||
	    ji->place.node >= 0)
		return false;
	/* Other components may hold every node it was eligible for. */
	for (n = 0; n < s->nnodes; n++)
		if (sj->eligible[n])
			return true;
	return false;
}

/*
 * Not this cycle's restriction of component sj onto a node another
 * component holds: a move keeps its old node, a new placement is made at
 * the next cycle, its eligible nodes without that one.
 */
static void _cancel(const snapshot_t *s, const snap_job_t *sj,
		    agent_job_t *ji, place_op_t *op, uint32_t holder,
		    dl_sched_stats_t *stats, const char *pfx)
{
	const char *node = s->names[op->node];
	char *desc;

	info("%s: JobId=%u not placed on %s: JobId=%u of its hetjob %u holds it",
	     pfx, sj->job_id, node, holder, sj->het_job_id);
	if (op->from >= 0) {
		ji->place.node = op->from;
		ji->planned = op->from;
		_blank(op, NULL);
		return;
	}
	desc = xstrdup_printf("DataLocality: not placed on %s, which JobId=%u of its hetjob holds",
			      node, holder);
	_blank(op, desc);
	xfree(desc);
	dl_place_init(&ji->place);
	ji->planned = -1;
	if (stats->placed)
		stats->placed--;
	if (stats->pending_placed)
		stats->pending_placed--;
}

/* The group's components restricted this cycle onto a taken node. */
static void _conflicts(const comps_t *c, uint32_t g, uint32_t e,
		       place_ops_t *ops, uint32_t first,
		       dl_sched_stats_t *stats, const char *pfx)
{
	const snapshot_t *s = c->s;
	uint32_t *holder = xcalloc(s->nnodes ? s->nnodes : 1, sizeof(uint32_t));
	uint32_t a;
	int pass;

	/* Kept restrictions first, then this cycle's, by job id. */
	for (pass = 0; pass < 2; pass++)
		for (a = g; a < e; a++) {
			const snap_job_t *sj = &s->jobs[c->idx[a]];
			agent_job_t *ji = agent_jobs_get(sj->job_id, false);
			place_op_t *op = _op_of(ops, first, sj->job_id);
			bool fresh = op && op->kind == OP_RESTRICT &&
				     !op->nodes && op->node >= 0 &&
				     (uint32_t)op->node < s->nnodes;
			int32_t n = ji ? ji->place.node : -1;

			if (n < 0 || (uint32_t)n >= s->nnodes ||
			    fresh != (pass == 1))
				continue;
			if (fresh && holder[n])
				_cancel(s, sj, ji, op, holder[n], stats, pfx);
			else
				holder[n] = sj->job_id;
		}
	xfree(holder);
}

/* Lift component sj's restriction with its hetjob: why names the cause. */
static void _widen_one(const snapshot_t *s, const snap_job_t *sj,
		       agent_job_t *ji, place_ops_t *ops, uint32_t first,
		       const char *why, const char *pfx)
{
	place_op_t *op = _op_of(ops, first, sj->job_id);
	int32_t from = sj->ours;

	ji->place.node = -1;
	ji->place.widened = 1;
	if (op && op->kind == OP_RESTRICT && from < 0) {
		/* Placed this cycle only: nothing set yet to lift. */
		_blank(op, NULL);
		return;
	}
	if (op)
		_blank(op, NULL);
	else
		op = agent_place_add(ops, OP_WIDEN, sj->job_id);
	op->kind = OP_WIDEN;
	op->from = from;
	op->desc = xstrdup_printf("DataLocality: %s, any node now", why);
	op->sc = xstrdup_printf("%s to any node with its hetjob: %s",
				DL_SC_WIDENED, why);
	op->log = xstrdup_printf("%s: widened JobId=%u from %s with its hetjob %u: %s",
				 pfx, sj->job_id,
				 from >= 0 && (uint32_t)from < s->nnodes ?
					 s->names[from] : "?",
				 sj->het_job_id, why);
}

/* One component widened: every other one still placed is too. */
static void _widen_all(const comps_t *c, uint32_t g, uint32_t e,
		       place_ops_t *ops, uint32_t first,
		       dl_sched_stats_t *stats, const char *pfx)
{
	const snapshot_t *s = c->s;
	uint32_t a, by = 0;
	agent_job_t *ji;
	char why[96];

	for (a = g; a < e && !by; a++)
		if ((ji = agent_jobs_get(s->jobs[c->idx[a]].job_id, false)) &&
		    ji->place.widened)
			by = ji->job_id;
	if (!by)
		return;
	snprintf(why, sizeof(why), "JobId=%u of the hetjob was widened", by);
	for (a = g; a < e; a++) {
		const snap_job_t *sj = &s->jobs[c->idx[a]];

		if (!(ji = agent_jobs_get(sj->job_id, false)) ||
		    ji->place.node < 0)
			continue;
		_widen_one(s, sj, ji, ops, first, why, pfx);
		stats->widened++;
		if (stats->pending_placed)
			stats->pending_placed--;
	}
}

/*
 * The gate (agent_gate.h) releases no component while another is still
 * to be placed, and all of them once none is: each is released from its
 * own mark, for as long as its hold may last.
 */
static void _gate(const comps_t *c, uint32_t g, uint32_t e,
		  const agent_conf_t *conf, place_ops_t *ops, uint32_t first)
{
	const snapshot_t *s = c->s;
	bool all = true;
	place_op_t *op;
	uint32_t a;

	for (a = g; a < e && all; a++)
		all = !_unplaced(s, &s->jobs[c->idx[a]],
				 agent_jobs_get(s->jobs[c->idx[a]].job_id,
						false));
	for (a = g; a < e; a++) {
		const snap_job_t *sj = &s->jobs[c->idx[a]];

		op = _op_of(ops, first, sj->job_id);
		if (!all) {
			if (op)
				op->gated = false;
			continue;
		}
		/* Unmarked, or its hold is over: nothing to release. */
		if (!sj->gate_bound ||
		    sj->submit + (time_t)sj->gate_bound + 1 < s->now)
			continue;
		if (!op)
			op = agent_place_add(ops, OP_UNGATE, sj->job_id);
		op->gated = true;
		op->release_to = agent_gate_release_to(sj->ubegin, sj->submit);
		op->hold = conf->gate_max;
	}
}

void agent_het_decide(const snapshot_t *s, const agent_conf_t *c,
		      place_ops_t *ops, uint32_t first,
		      dl_sched_stats_t *stats, const char *pfx)
{
	comps_t cs;
	uint32_t g, e;

	if (!_comps(s, &cs))
		return;
	for (g = 0; g < cs.n; g = e) {
		e = _group_end(&cs, g);
		if (e - g < 2)
			continue;
		_conflicts(&cs, g, e, ops, first, stats, pfx);
		_widen_all(&cs, g, e, ops, first, stats, pfx);
		_gate(&cs, g, e, c, ops, first);
	}
	xfree(cs.idx);
}
