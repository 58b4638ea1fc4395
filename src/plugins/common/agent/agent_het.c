/*
 * agent_het.c - placing hetjob components; see agent_het.h.
 */
#include <stdlib.h>
#include <string.h>

#include "src/common/slurm_xlator.h"

#include "src/common/bitstring.h"
#include "src/common/hostlist.h"
#include "src/common/list.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "dl_compat.h"
#include "dl_slurm.h"
#include "agent_gate.h"
#include "agent_het.h"
#include "agent_jobs.h"
#include "agent_multi.h"

/* The pending components of a snapshot, grouped by hetjob. */
typedef struct {
	const snapshot_t *s;
	uint32_t *idx;          /* snapshot indices, by hetjob then job id */
	uint32_t n;
} comps_t;

static const snapshot_t *sort_s; /* for _by_het() only */

/*
 * A component Slurm's backfill plans (job_record_t.sched_nodes) on a node
 * a sibling is restricted to by the plugin: backfill reserves the node
 * whole for it, the sibling cannot start there, and since the node looks
 * free the sibling never counts as blocked: the hetjob would wait for
 * ever.  Found at the snapshot (agent_het_exclude()), acted on by
 * agent_het_decide() of the same cycle; the agent thread's alone.
 */
typedef struct {
	uint32_t het_job_id;
	uint32_t planned;       /* the component planned there */
	uint32_t restricted;    /* the sibling restricted to it */
	int32_t node;
} het_clash_t;

static het_clash_t *clash;      /* xmalloc'd, replaced at each snapshot */
static uint32_t nclash;

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

/*
 * Clear in bytes[] (of nnodes) the nodes of b, a sibling's required list.
 */
static void _clear_nodes(uint8_t *bytes, bitstr_t *b, uint32_t nnodes)
{
	int64_t n, last;

	if (!bytes || !b || (n = bit_ffs(b)) < 0)
		return;
	last = bit_fls(b);
	for (; n <= last && (uint64_t)n < nnodes; n++)
		if (bit_test(b, n))
			bytes[n] = 0;
}

/*
 * Whether Slurm plans sib (its sched_nodes) on a node own's list (the
 * plugin's, ours >= 0) names; RET that node, or -1.
 */
static int32_t _planned_on(const snapshot_t *s, const snap_job_t *own,
			   job_record_t *own_ptr, job_record_t *sib)
{
	bitstr_t *b = own_ptr->details ? own_ptr->details->req_node_bitmap :
					 NULL;
	/* Not hostlist_t: a pointer in 22.05, the struct in 24.11. */
	struct hostlist *hl;
	int32_t n, hit = -1;

	if (own->ours < 0 || !b || !sib->sched_nodes || !sib->sched_nodes[0])
		return -1;
	hl = hostlist_create(sib->sched_nodes);
	for (n = 0; hl && hit < 0 && (uint32_t)n < s->nnodes &&
		    n < (int32_t)bit_size(b); n++)
		if (bit_test(b, n) && hostlist_find(hl, s->names[n]) >= 0)
			hit = n;
	if (hl)
		hostlist_destroy(hl);
	return hit;
}

static void _note_clash(const snap_job_t *own, job_record_t *sib,
			int32_t node)
{
	uint32_t i;

	for (i = 0; i < nclash; i++)
		if (clash[i].het_job_id == own->het_job_id)
			return;
	xrecalloc(clash, nclash + 1, sizeof(*clash));
	clash[nclash].het_job_id = own->het_job_id;
	clash[nclash].planned = sib->job_id;
	clash[nclash].restricted = own->job_id;
	clash[nclash].node = node;
	nclash++;
}

/*
 * From Slurm's own records, not the snapshot: a sibling outside the
 * planning window, or not queued, holds its required nodes all the same
 * (Slurm never starts two components on one node), and a list of the
 * user's or an admin's counts as the plugin's.
 */
void agent_het_exclude(snapshot_t *s)
{
	job_record_t *leader, *sib, *own_ptr;
	list_itr_t *it;
	uint32_t i;
	int32_t n;

	xfree(clash);
	nclash = 0;
	for (i = 0; i < s->njobs; i++) {
		snap_job_t *sj = &s->jobs[i];

		if (!sj->het_job_id || sj->running ||
		    (!sj->eligible && !sj->fits))
			continue;
		leader = find_job_record(sj->het_job_id);
		own_ptr = find_job_record(sj->job_id);
		if (!leader || !leader->het_job_list || !own_ptr)
			continue;
		it = list_iterator_create(leader->het_job_list);
		while ((sib = list_next(it))) {
			if (sib->job_id == sj->job_id ||
			    !IS_JOB_PENDING(sib) || !sib->details)
				continue;
			_clear_nodes(sj->eligible, sib->details->req_node_bitmap,
				     s->nnodes);
			_clear_nodes(sj->fits, sib->details->req_node_bitmap,
				     s->nnodes);
			if ((n = _planned_on(s, sj, own_ptr, sib)) >= 0)
				_note_clash(sj, sib, n);
		}
		list_iterator_destroy(it);
	}
}

static int _by_id(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The window's hetjobs whole: every pending component of a hetjob one of
 * whose components is in.  Components have priorities and partitions of
 * their own, so the window's edge may fall between them: a component
 * placed while in and then pushed out (by a job of higher priority) was
 * no longer seen by its siblings' wait, widening and gate.
 */
uint32_t agent_het_window(struct job_record **pend, uint32_t n, uint8_t *in)
{
	uint32_t *ids, nids = 0, i, added = 0, id;

	for (i = 0; i < n; i++)
		nids += in[i] && pend[i]->het_job_id;
	if (!nids)
		return 0;
	ids = xcalloc(nids, sizeof(uint32_t));
	nids = 0;
	for (i = 0; i < n; i++)
		if (in[i] && pend[i]->het_job_id)
			ids[nids++] = pend[i]->het_job_id;
	qsort(ids, nids, sizeof(uint32_t), _by_id);
	for (i = 0; i < n; i++) {
		id = pend[i]->het_job_id;
		if (in[i] || !id ||
		    !bsearch(&id, ids, nids, sizeof(uint32_t), _by_id))
			continue;
		in[i] = 1;
		added++;
	}
	xfree(ids);
	return added;
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


/*
 * Whether the agent would place component sj and has not yet.  One of
 * several nodes (agent_multi.h) was offered its set before this, in the
 * same cycle (agent_multi_decide()): unplaced now, it has nothing to gain
 * from a set and must not hold its siblings, unless _cancel() undid its
 * set this cycle (op blanked to OP_REASON): it is placed at the next.
 */
static bool _unplaced(const snapshot_t *s, const snap_job_t *sj,
		      const agent_job_t *ji, const place_op_t *op)
{
	uint32_t n, k = 0;

	if ((!sj->placeable && !sj->set_k) || !sj->runnable || sj->outside ||
	    !sj->eligible || sj->widened || !ji || !ji->parsed ||
	    !ji->nfiles || ji->too_many || ji->user_bound ||
	    ji->place.widened || ji->place.node >= 0)
		return false;
	if (sj->set_k && (!op || op->kind != OP_REASON))
		return false;
	/* Other components may hold every node it was eligible for. */
	for (n = 0; n < s->nnodes; n++)
		k += sj->eligible[n] != 0;
	return k >= (sj->set_k ? sj->set_k : 1);
}

/*
 * Not this cycle's restriction of component sj onto a node another
 * component holds: a move keeps its old node, a new placement is made at
 * the next cycle, its eligible nodes without that one (a set of several
 * nodes, agent_multi.h, without all the nodes its siblings hold then).
 */
static void _cancel(const snapshot_t *s, const snap_job_t *sj,
		    agent_job_t *ji, place_op_t *op, int32_t node,
		    uint32_t holder, dl_sched_stats_t *stats, const char *pfx)
{
	char *desc;

	info("%s: JobId=%u not placed on %s: JobId=%u of its hetjob %u holds %s",
	     pfx, sj->job_id, op->nodes ? op->nodes : s->names[node], holder,
	     sj->het_job_id, s->names[node]);
	if (op->from >= 0 && !op->nodes) {
		ji->place.node = op->from;
		ji->planned = op->from;
		_blank(op, NULL);
		return;
	}
	desc = xstrdup_printf("DataLocality: not placed on %s, which JobId=%u of its hetjob holds",
			      s->names[node], holder);
	_blank(op, desc);
	xfree(desc);
	dl_place_init(&ji->place);
	ji->planned = -1;
	if (stats->placed)
		stats->placed--;
	if (stats->pending_placed)
		stats->pending_placed--;
}

/*
 * The nodes component sj holds: this cycle's restriction (fresh) or the
 * one it keeps; into out (room for s->nnodes); RET their count.
 */
static uint32_t _holds(const snapshot_t *s, const snap_job_t *sj,
		       const agent_job_t *ji, const place_op_t *op,
		       bool fresh, int32_t *out)
{
	uint32_t n, k = 0;

	if (fresh && op->set) {
		for (n = 0; n < op->nset; n++)
			if (op->set[n] >= 0 && (uint32_t)op->set[n] < s->nnodes)
				out[k++] = op->set[n];
		return k;
	}
	if (!fresh && sj->set_k && sj->req) {
		for (n = 0; n < s->nnodes; n++)
			if (sj->req[n])
				out[k++] = (int32_t)n;
		return k;
	}
	if (ji && ji->place.node >= 0 && (uint32_t)ji->place.node < s->nnodes)
		out[k++] = ji->place.node;
	return k;
}

/*
 * The group's components restricted this cycle onto a taken node: the
 * kept restrictions (excluded from the others' eligible nodes by
 * agent_het_exclude() already) first, then this cycle's, by job id.
 */
static void _conflicts(const comps_t *c, uint32_t g, uint32_t e,
		       place_ops_t *ops, uint32_t first,
		       dl_sched_stats_t *stats, const char *pfx)
{
	const snapshot_t *s = c->s;
	uint32_t *holder = xcalloc(s->nnodes ? s->nnodes : 1, sizeof(uint32_t));
	int32_t *nodes = xcalloc(s->nnodes ? s->nnodes : 1, sizeof(int32_t));
	uint32_t a, k, i;
	int32_t taken;
	int pass;

	for (pass = 0; pass < 2; pass++)
		for (a = g; a < e; a++) {
			const snap_job_t *sj = &s->jobs[c->idx[a]];
			agent_job_t *ji = agent_jobs_get(sj->job_id, false);
			place_op_t *op = _op_of(ops, first, sj->job_id);
			bool fresh = op && op->kind == OP_RESTRICT &&
				     op->node >= 0 &&
				     (uint32_t)op->node < s->nnodes;

			if (!ji || fresh != (pass == 1) ||
			    !(k = _holds(s, sj, ji, op, fresh, nodes)))
				continue;
			for (taken = -1, i = 0; fresh && i < k && taken < 0;
			     i++)
				if (holder[nodes[i]])
					taken = nodes[i];
			if (taken >= 0) {
				_cancel(s, sj, ji, op, taken, holder[taken],
					stats, pfx);
				continue;
			}
			for (i = 0; i < k; i++)
				holder[nodes[i]] = sj->job_id;
		}
	xfree(nodes);
	xfree(holder);
}

/* The nodes component sj's list names, for the log, xmalloc'd. */
static char *_names(const snapshot_t *s, const snap_job_t *sj, int32_t from)
{
	int32_t *nodes;
	uint32_t n, k = 0;
	char *out;

	if (!sj->set_k || !sj->req)
		return xstrdup(from >= 0 && (uint32_t)from < s->nnodes ?
				       s->names[from] : "?");
	nodes = xcalloc(s->nnodes ? s->nnodes : 1, sizeof(int32_t));
	for (n = 0; n < s->nnodes; n++)
		if (sj->req[n])
			nodes[k++] = (int32_t)n;
	out = agent_multi_names(s, nodes, k);
	xfree(nodes);
	return out;
}

/* Lift component sj's restriction with its hetjob: why names the cause. */
static void _widen_one(const snapshot_t *s, const snap_job_t *sj,
		       agent_job_t *ji, place_ops_t *ops, uint32_t first,
		       const char *why, const char *pfx)
{
	place_op_t *op = _op_of(ops, first, sj->job_id);
	int32_t from = sj->ours;
	char *names;

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
	names = _names(s, sj, from);
	op->kind = OP_WIDEN;
	op->from = from;
	op->desc = xstrdup_printf("DataLocality: %s, any node now", why);
	op->sc = xstrdup_printf("%s to any node with its hetjob: %s",
				DL_SC_WIDENED, why);
	op->log = xstrdup_printf("%s: widened JobId=%u from %s with its hetjob %u: %s",
				 pfx, sj->job_id, names, sj->het_job_id, why);
	xfree(names);
}

/*
 * One component widened: every other one still placed is too, even one
 * whose own node is free.  Slurm starts a hetjob only when every
 * component can start (backfill's _het_job_start_test()), so one that
 * waits holds the whole hetjob back; and a widened component has no list
 * while Slurm keeps components apart only by the exclusions it makes at
 * submit (_exclude_het_job_nodes()), so backfill may plan it on the node
 * a sibling keeps, reserving that node whole: the sibling then cannot
 * start until the widened one's old node frees.  Measured (22.05.8,
 * test_hetjob.sh (w) with the free sibling kept on n4): backfill planned
 * the widened component on n4 ("JobId=4+0(4) to start at <now> ... on
 * nodes n4") and the hetjob started after 61 s, when the blocker on n3
 * ended, against 7 s with both widened.
 */
static void _widen_all(const comps_t *c, uint32_t g, uint32_t e,
		       place_ops_t *ops, uint32_t first,
		       dl_sched_stats_t *stats, const char *pfx)
{
	const snapshot_t *s = c->s;
	uint32_t a, by = 0;
	agent_job_t *ji;
	char why[160];

	for (a = g; a < e && !by; a++)
		if ((ji = agent_jobs_get(s->jobs[c->idx[a]].job_id, false)) &&
		    ji->place.widened)
			by = ji->job_id;
	if (by)
		snprintf(why, sizeof(why), "JobId=%u of the hetjob was widened",
			 by);
	for (a = 0; !by && a < nclash; a++)
		if (clash[a].het_job_id == s->jobs[c->idx[g]].het_job_id) {
			by = clash[a].planned;
			snprintf(why, sizeof(why),
				 "Slurm plans JobId=%u of the hetjob on %s, JobId=%u's node",
				 clash[a].planned,
				 clash[a].node >= 0 &&
						 (uint32_t)clash[a].node <
							 s->nnodes ?
					 s->names[clash[a].node] :
					 "?",
				 clash[a].restricted);
		}
	if (!by)
		return;
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

	for (a = g; a < e && all; a++) {
		const snap_job_t *sj = &s->jobs[c->idx[a]];

		all = !_unplaced(s, sj, agent_jobs_get(sj->job_id, false),
				 _op_of(ops, first, sj->job_id));
	}
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
