/*
 * agent_apply.c - applying placement operations to slurmctld's job
 * records under the job write lock; see agent_place.h.
 *
 * The plugin's restriction is the job's required node list
 * (details->req_node_bitmap and req_nodes), which both of Slurm's
 * schedulers honour: the main scheduler keeps lower-priority jobs off a
 * waiting job's required nodes without blocking its partition, and
 * sched/backfill reserves them at its expected start.  The job's
 * SystemComment records that the list is the plugin's, so a restart does
 * not turn it into a user setting.  Only jobs without a list of the
 * user's own are restricted, so lifting ours restores the user's (none).
 */
#include <stdio.h>
#include <string.h>

#include "src/common/slurm_xlator.h"

#include "src/common/bitstring.h"
#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/job_scheduler.h"
#include "src/slurmctld/slurmctld.h"

#include "dl_compat.h"
#include "dl_slurm.h"
#include "agent_fit.h"
#include "agent_gate.h"
#include "agent_mark.h"
#include "agent_place.h"

static bool _sc_ours(job_record_t *job_ptr)
{
	return !job_ptr->system_comment ||
	       !strncmp(job_ptr->system_comment, DL_SC_PREFIX,
			strlen(DL_SC_PREFIX));
}

static void _set_sc(job_record_t *job_ptr, const char *sc)
{
	if (!sc || !_sc_ours(job_ptr))
		return;
	xfree(job_ptr->system_comment);
	job_ptr->system_comment = xstrdup(sc);
}

/*
 * Slurm's "ReqNodeNotAvail, UnavailableNodes:n2" for a job the plugin
 * restricted to a node that is up and serving: it only means that a job
 * ahead waits for the same node, which users read as "node down" (issue
 * 26, item 6).
 */
static bool _healthy_not_avail(job_record_t *job_ptr)
{
	int32_t n;

	if (job_ptr->state_reason != WAIT_NODE_NOT_AVAIL ||
	    (n = agent_snapshot_ours(job_ptr)) < 0 || !avail_node_bitmap ||
	    !bit_test(avail_node_bitmap, n))
		return false;
	return !agent_fit_cannot_serve(node_record_table_ptr[n]);
}

/*
 * Our explanation replaces Slurm's generic "Resources" (and none), and its
 * ReqNodeNotAvail for a healthy node of ours; any other reason (Priority,
 * limits, reservations) is more telling, and kept.
 */
static void _set_desc(job_record_t *job_ptr, const char *desc)
{
	if (!desc || !IS_JOB_PENDING(job_ptr))
		return;
	if (job_ptr->state_reason != WAIT_RESOURCES &&
	    job_ptr->state_reason != WAIT_NO_REASON &&
	    !_healthy_not_avail(job_ptr))
		return;
	if (job_ptr->state_reason == WAIT_RESOURCES && job_ptr->state_desc &&
	    !xstrcmp(job_ptr->state_desc, desc))
		return;
	job_ptr->state_reason = WAIT_RESOURCES;
	xfree(job_ptr->state_desc);
	job_ptr->state_desc = xstrdup(desc);
}

/*
 * Let a job held back at submit go: back to the begin time the user asked
 * for, else its submission (eligible since then, for the age factor of its
 * priority), which also tells the agent it was released (agent_gate.h).
 */
static void _ungate(job_record_t *job_ptr, const place_op_t *op)
{
	job_details_t *d = job_ptr->details;
	time_t now = time(NULL);

	if (!op->gated || d->begin_time <= now ||
	    d->begin_time > now + AGENT_GATE_HOLD_MAX)
		return;
	d->begin_time = op->release_to;
	if (job_ptr->state_reason == WAIT_TIME && op->release_to <= now) {
		job_ptr->state_reason = WAIT_NO_REASON;
		xfree(job_ptr->state_desc);
	}
}

/*
 * Keep a gated job that cannot run yet (held, dependency) or is outside
 * the planning window gated, op->hold seconds at a time.
 */
static void _regate(job_record_t *job_ptr, const place_op_t *op)
{
	job_details_t *d = job_ptr->details;
	time_t now = time(NULL);

	if (d->begin_time > now && d->begin_time < now + 1 + op->hold / 2)
		d->begin_time = now + op->hold;
}

static void _clear_req(job_record_t *job_ptr)
{
	FREE_NULL_BITMAP(job_ptr->details->req_node_bitmap);
	xfree(job_ptr->details->req_nodes);
}

/*
 * A multi-node job's list (agent_multi.h): the nodes of op->nodes, which
 * must read back as the same ranged names, since the SystemComment names
 * the list so (agent_snapshot_ours()).  Caller checked the job is ours.
 */
static bool _restrict_set(job_record_t *job_ptr, const place_op_t *op)
{
	job_details_t *d = job_ptr->details;
	bitstr_t *b = bit_alloc(node_record_count);
	char *names = NULL;
	uint32_t i;
	bool ok = op->nset > 0;

	for (i = 0; ok && i < op->nset; i++)
		if ((ok = op->set[i] >= 0 && op->set[i] < node_record_count))
			bit_set(b, op->set[i]);
	ok = ok && (names = bitmap2node_name(b)) && !xstrcmp(names, op->nodes) &&
	     strlen(names) < AGENT_MARK_SIZE &&
	     (uint32_t)bit_set_count(b) == d->min_nodes;
	if (!ok) {
		error("datalocality: JobId=%u: cannot restrict it to %s (%s)",
		      job_ptr->job_id, op->nodes, names ? names : "?");
		FREE_NULL_BITMAP(b);
		xfree(names);
		return false;
	}
	_clear_req(job_ptr);
	d->req_node_bitmap = b;
	/* Our own size: the mark of the plugin's list (agent_mark.h). */
	d->req_nodes = xmalloc(AGENT_MARK_SIZE);
	snprintf(d->req_nodes, AGENT_MARK_SIZE, "%s", names);
	xfree(names);
	agent_mark_set(job_ptr->job_id);
	_set_sc(job_ptr, op->sc);
	_set_desc(job_ptr, op->desc);
	return true;
}

static bool _restrict(job_record_t *job_ptr, const place_op_t *op)
{
	job_details_t *d = job_ptr->details;
	node_record_t *node_ptr;

	if (!IS_JOB_PENDING(job_ptr) || !_sc_ours(job_ptr) ||
	    op->node >= node_record_count ||
	    !(node_ptr = node_record_table_ptr[op->node]))
		return false;
	/* Never touch a list of the user's own. */
	if (d->req_node_bitmap && agent_snapshot_ours(job_ptr) < 0)
		return false;
	if (op->nodes)
		return _restrict_set(job_ptr, op);
	_clear_req(job_ptr);
	d->req_node_bitmap = bit_alloc(node_record_count);
	bit_set(d->req_node_bitmap, op->node);
	/* Our own size: the mark of the plugin's list (agent_mark.h). */
	d->req_nodes = xmalloc(AGENT_MARK_SIZE);
	snprintf(d->req_nodes, AGENT_MARK_SIZE, "%s", node_ptr->name);
	agent_mark_set(job_ptr->job_id);
	_set_sc(job_ptr, op->sc);
	_set_desc(job_ptr, op->desc);
	return true;
}

/* Lift our restriction: the job keeps what the user asked (no list). */
static bool _lift(job_record_t *job_ptr, const place_op_t *op)
{
	bool rescue = IS_JOB_PENDING(job_ptr) &&
		      job_ptr->state_reason == FAIL_BAD_CONSTRAINTS;

	if (agent_snapshot_ours(job_ptr) < 0)
		return false;
	_clear_req(job_ptr);
	agent_mark_forget(job_ptr->job_id);
	_set_sc(job_ptr, op->sc);
	if (rescue) {
		/* The main scheduler zeroed its priority for our list. */
		job_ptr->state_reason = WAIT_NO_REASON;
		xfree(job_ptr->state_desc);
		set_job_prio(job_ptr);
	}
	if (op->kind == OP_WIDEN) {
		job_ptr->state_reason = WAIT_RESOURCES;
		xfree(job_ptr->state_desc);
		job_ptr->state_desc = xstrdup(op->desc);
	}
	return true;
}

static bool _apply_one(job_record_t *job_ptr, const place_op_t *op)
{
	bool changed = false;

	switch (op->kind) {
	case OP_RESTRICT:
		changed = _restrict(job_ptr, op);
		break;
	case OP_WIDEN:
		changed = IS_JOB_PENDING(job_ptr) && _lift(job_ptr, op);
		break;
	case OP_RESTORE:
		_lift(job_ptr, op);
		agent_mark_forget(job_ptr->job_id);
		return true; /* its log line is due whatever the list was */
	case OP_REASON:
		_set_desc(job_ptr, op->desc);
		/* Slurm's Priority reason is kept: this one stays. */
		if (op->sc && xstrcmp(job_ptr->system_comment, op->sc))
			_set_sc(job_ptr, op->sc);
		break;
	case OP_REGATE:
		_regate(job_ptr, op);
		return false;
	case OP_RELEASED:
		_set_sc(job_ptr, op->sc);
		_set_desc(job_ptr, op->desc);
		return true; /* its log line is due */
	case OP_FORGET:
		if (agent_snapshot_ours(job_ptr) < 0 && _sc_ours(job_ptr))
			xfree(job_ptr->system_comment);
		return false;
	case OP_UNGATE:
		break;
	case OP_NOTE:
		if (!op->sc || !_sc_ours(job_ptr) ||
		    !xstrcmp(job_ptr->system_comment, op->sc))
			return false;
		_set_sc(job_ptr, op->sc);
		return true; /* its log line is due */
	}
	if (IS_JOB_PENDING(job_ptr) && op->gated) {
		_ungate(job_ptr, op);
		changed = true;
	}
	return changed;
}

uint32_t agent_place_apply(const place_ops_t *ops)
{
	uint32_t i, changed = 0;

	for (i = 0; i < ops->n; i++) {
		const place_op_t *op = &ops->op[i];
		job_record_t *job_ptr = find_job_record(op->job_id);

		if (!job_ptr || !job_ptr->details)
			continue;
		if (!_apply_one(job_ptr, op))
			continue;
		changed++;
		if (op->log)
			info("%s", op->log);
	}
	if (changed) {
		last_job_update = time(NULL);
		/*
		 * Jobs placed or let go may start now: wake slurmctld's
		 * scheduling thread at once (schedule() only signals it),
		 * rather than queue_job_scheduler(), which it serves within
		 * a second.  On an idle cluster a placed job then starts
		 * 0.02 s after submission instead of 0.4 s, so arrivals are
		 * often planned one at a time; Online-HPS's follow= pass
		 * (plan_follow.h) keeps such a job with its data.
		 */
		schedule(false);
	}
	return changed;
}

uint32_t agent_apply_renew(const agent_gate_renew_t *r, uint32_t n,
			   uint32_t hold, int64_t *next, uint32_t *expired)
{
	time_t now = time(NULL);
	uint32_t i, renewed = 0;

	*next = INT64_MAX;
	*expired = 0;
	for (i = 0; i < n; i++) {
		job_record_t *job_ptr = find_job_record(r[i].job_id);
		job_details_t *d;
		time_t to;

		if (!job_ptr || !IS_JOB_PENDING(job_ptr) || !job_ptr->details)
			continue;
		d = job_ptr->details;
		/* Released, or a begin time no longer ours: not held. */
		if (d->begin_time <= r[i].release_to ||
		    d->begin_time > now + AGENT_GATE_HOLD_MAX)
			continue;
		if (d->begin_time <= now) {
			(*expired)++;
			continue;
		}
		to = agent_gate_renew_to(d->begin_time, r[i].release_to, now,
					 hold);
		if (to != d->begin_time) {
			d->begin_time = to;
			renewed++;
		}
		if (agent_gate_renew_due(d->begin_time, hold) < *next)
			*next = agent_gate_renew_due(d->begin_time, hold);
	}
	/*
	 * No last_job_update: a begin time moved further ahead lets no job
	 * start, and Slurm's schedulers and the agent would take the stamp
	 * for a change to look at.
	 */
	return renewed;
}

uint32_t agent_apply_hurry(const agent_gate_hurry_t *h, uint32_t n)
{
	time_t now = time(NULL);
	uint32_t i, moved = 0;

	for (i = 0; i < n; i++) {
		job_record_t *job_ptr = find_job_record(h[i].job_id);

		/*
		 * Changed since the snapshot (released, started, an update
		 * of its begin time) or run out meanwhile: not ours to move.
		 */
		if (!job_ptr || !IS_JOB_PENDING(job_ptr) ||
		    !job_ptr->details ||
		    job_ptr->details->begin_time != h[i].begin ||
		    h[i].begin <= now || h[i].to <= h[i].begin)
			continue;
		job_ptr->details->begin_time = h[i].to;
		moved++;
	}
	/* No last_job_update, as for agent_apply_renew(). */
	return moved;
}
