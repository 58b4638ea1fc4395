/*
 * agent_place.c - deciding placement operations for one cycle, without
 * slurmctld locks; see agent_place.h.  agent_apply.c applies them.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/common/slurm_xlator.h"

#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "dl_files.h"
#include "dl_place.h"
#include "dl_slurm.h"
#include "agent_gate.h"
#include "agent_het.h"
#include "agent_jobs.h"
#include "agent_model.h"
#include "agent_multi.h"
#include "agent_place.h"

place_op_t *agent_place_add(place_ops_t *ops, op_kind_t kind,
			    uint32_t job_id)
{
	place_op_t *op;

	if (ops->n == ops->cap) {
		ops->cap = ops->cap ? ops->cap * 2 : 64;
		xrecalloc(ops->op, ops->cap, sizeof(place_op_t));
	}
	op = &ops->op[ops->n++];
	memset(op, 0, sizeof(*op));
	op->kind = kind;
	op->job_id = job_id;
	op->node = op->from = -1;
	return op;
}

void agent_place_ops_free(place_ops_t *ops)
{
	uint32_t i;

	for (i = 0; i < ops->n; i++) {
		xfree(ops->op[i].desc);
		xfree(ops->op[i].sc);
		xfree(ops->op[i].log);
		xfree(ops->op[i].nodes);
		xfree(ops->op[i].set);
	}
	xfree(ops->op);
	memset(ops, 0, sizeof(*ops));
}

/* Room for _cached()'s text with a node name of up to 64 bytes. */
#define CACHED_LEN 192

/*
 * Files of job j node n caches; RET their count, bytes as "6.0 MiB" and,
 * if cached is not NULL, as a number.
 */
static uint32_t _held(const dl_state_t *st, const dl_job_t *j, uint32_t n,
		      char *bytes, size_t len, uint64_t *cached)
{
	uint64_t b = dl_place_cached_bytes(st, j, n);
	uint32_t i, files = 0;

	for (i = 0; i < j->nfiles; i++)
		if (dl_cache_contains(st->cache, n, j->files[i]))
			files++;
	dl_files_format_size(b, 1, bytes, len);
	if (cached)
		*cached = b;
	return files;
}

/*
 * "3/3 files, 6.0 MiB cached" for job j on node n, and "4.0 GiB being
 * staged there" when a job running there fetches more of them: the wait
 * bound prices both (dl_place_coming_bytes()).
 */
static void _cached(const dl_state_t *st, const dl_job_t *j, uint32_t n,
		    char *buf, size_t len)
{
	char bytes[32], staged[32];
	uint64_t cached, coming;
	uint32_t files = _held(st, j, n, bytes, sizeof(bytes), &cached);

	coming = dl_place_coming_bytes(st, j, n) - cached;

	/* A cold node: placed there, the job wakes it (power saving). */
	if (st->nodes[n].wake > 0) {
		snprintf(buf, len, "%u/%u files, %s cached; %s is powered down, resume ~%.0f s",
			 files, j->nfiles, bytes, st->nodes[n].name,
			 st->nodes[n].wake);
	} else if (coming) {
		dl_files_format_size(coming, 1, staged, sizeof(staged));
		snprintf(buf, len, "%u/%u files, %s cached, %s being staged there",
			 files, j->nfiles, bytes, staged);
	} else {
		snprintf(buf, len, "%u/%u files, %s cached", files, j->nfiles,
			 bytes);
	}
}

/*
 * The SystemComment's account, which stays with the job: "3/3 files,
 * 6.0 MiB cached when placed" and, for a cold node, that it was cold then.
 */
static char *_placed_sc(const dl_state_t *st, const dl_job_t *j, uint32_t n,
			const dl_plan_t *plan)
{
	const dl_node_t *nd = &st->nodes[n];
	char bytes[32], cold[96] = "";
	uint32_t files = _held(st, j, n, bytes, sizeof(bytes), NULL);

	if (nd->wake > 0)
		snprintf(cold, sizeof(cold), ", powered down then (resume ~%.0f s)",
			 nd->wake);
	return xstrdup_printf("%s%s is the plugin's placement (%u/%u files, %s cached when placed%s, policy %s)",
			      DL_SC_PLACED, nd->name, files, j->nfiles, bytes,
			      cold, plan ? plan->policy : "?");
}

static char *_waiting(const dl_state_t *st, const dl_place_t *rec,
		      const char *cached)
{
	if (isinf(rec->bound))
		return xstrdup_printf("DataLocality: waiting for %s (%s; strict)",
				      st->nodes[rec->node].name, cached);
	return xstrdup_printf("DataLocality: waiting for %s (%s; any node after %.0f s blocked, %.0f s so far)",
			      st->nodes[rec->node].name, cached, rec->bound,
			      rec->waited);
}

static void _restrict(const dl_state_t *st, size_t k, int32_t from,
		      const dl_plan_t *plan, place_ops_t *ops,
		      const agent_job_t *ji, const char *pfx)
{
	const dl_job_t *j = &st->jobs[k];
	place_op_t *op = agent_place_add(ops, OP_RESTRICT, j->id);
	const char *node = st->nodes[ji->place.node].name;
	char cached[CACHED_LEN];

	_cached(st, j, (uint32_t)ji->place.node, cached, sizeof(cached));
	op->node = ji->place.node;
	op->from = from;
	op->sc = _placed_sc(st, j, (uint32_t)ji->place.node, plan);
	op->desc = _waiting(st, &ji->place, cached);
	if (from >= 0 && st->nodes[from].wake > 0)
		op->log = xstrdup_printf("%s: moved JobId=%u from %s (powered down, resume ~%.0f s) to %s (%s)",
					 pfx, j->id, st->nodes[from].name,
					 st->nodes[from].wake, node, cached);
	else if (from >= 0)
		op->log = xstrdup_printf("%s: moved JobId=%u from %s to %s (%s)",
					 pfx, j->id, st->nodes[from].name,
					 node, cached);
	else
		op->log = xstrdup_printf("%s: placed JobId=%u on %s (%s, policy %s)",
					 pfx, j->id, node, cached,
					 plan ? plan->policy : "?");
}

static void _widen(const dl_state_t *st, size_t k, int32_t from,
		   place_ops_t *ops, const agent_job_t *ji, const char *pfx)
{
	const dl_job_t *j = &st->jobs[k];
	place_op_t *op = agent_place_add(ops, OP_WIDEN, j->id);
	const char *node = from >= 0 ? st->nodes[from].name : "?";

	op->from = from;
	op->desc = xstrdup_printf("DataLocality: waited %.0f s for %s, any node now",
				  ji->place.waited, node);
	op->sc = xstrdup_printf("%s to any node after waiting %.0f s for %s (bound %.0f s)",
				DL_SC_WIDENED, ji->place.waited, node,
				ji->place.bound);
	op->log = xstrdup_printf("%s: widened JobId=%u: blocked %.0f s waiting for %s (bound %.0f s)",
				 pfx, j->id, ji->place.waited, node,
				 ji->place.bound);
}

/*
 * Its node can serve nobody for a while (drained, down, failing, powered
 * down) or is reserved for other jobs, while another node it is eligible
 * for can: leave it now, at any bound (issue 26, item 2).  Waiting would
 * hold the job for as long as the admin keeps the node out, which
 * backfill never does.  RET why (agent_fit_leave_why()), or NULL.
 */
static const char *_leave(const snapshot_t *s, const snap_job_t *sj,
			  int32_t cur)
{
	uint32_t k;

	if (cur < 0 || cur != sj->ours || !sj->leave_why || !sj->eligible)
		return NULL;
	for (k = 0; k < s->nnodes; k++)
		if ((int32_t)k != cur && sj->eligible[k] &&
		    !(s->unserving && s->unserving[k]))
			return sj->leave_why;
	return NULL;
}

static void _left(const snapshot_t *s, const snap_job_t *sj, int32_t from,
		  const char *why, place_ops_t *ops, agent_job_t *ji,
		  const char *pfx)
{
	place_op_t *op = agent_place_add(ops, OP_WIDEN, sj->job_id);
	const char *node = s->names[from];

	ji->place.node = -1;
	ji->place.widened = 1;
	op->from = from;
	op->desc = xstrdup_printf("DataLocality: %s is %s, any node now",
				  node, why);
	op->sc = xstrdup_printf("%s to any node: %s was %s", DL_SC_WIDENED,
				node, why);
	op->log = xstrdup_printf("%s: widened JobId=%u: %s is %s", pfx,
				 sj->job_id, node, why);
}

/*
 * Whether Slurm cannot start the job on its node cur now for any reason
 * (CPUs, memory, GRES, state: agent_fit_now()) while it could on another
 * node it is eligible for: then it is blocked, whatever the resource
 * (issue 26, item 1).  The library judges CPUs only.
 */
static bool _blocked(const snapshot_t *s, const snap_job_t *sj, int32_t cur)
{
	uint32_t k;

	if (!sj->fits || cur < 0 || (uint32_t)cur >= s->nnodes ||
	    sj->fits[cur])
		return false;
	for (k = 0; k < s->nnodes; k++)
		if ((int32_t)k != cur && sj->fits[k])
			return true;
	return false;
}

/*
 * Since when the job has been held back: the earliest dl_node_t.freed
 * of the other nodes that could take it now (0: unknown, long ago),
 * clipped to its last step.  The library counts CPUs so
 * (dl_place_blocked_for()); counting the whole time since the last step
 * instead made every node seen free between one job's end and Slurm's
 * next start (freed == now: the step counted 0 s) a full cycle of
 * waiting: on bench_cluster.sh's genomics stream 117-124 of 160 jobs were
 * widened "blocked 2 s" while no node stayed free longer than 0.9 s.
 */
static double _blocked_from(const dl_state_t *st, const snapshot_t *s,
			    const snap_job_t *sj, int32_t cur, double last)
{
	double since = -1;
	uint32_t k;

	for (k = 0; k < st->nnodes && k < s->nnodes; k++) {
		double f = st->nodes[k].freed > 0 ? st->nodes[k].freed : 0;

		if ((int32_t)k != cur && sj->fits[k] && (since < 0 || f < since))
			since = f;
	}
	return since > last ? since : last;
}

/*
 * After a step that kept the restriction: count the time it was held
 * back since the last step as waited if the job was blocked by
 * something other than CPUs, which the step did not count (waited
 * unchanged), and widen past the bound as the step does.
 */
static dl_place_action_t _judge(const dl_state_t *st, const snapshot_t *s,
				const snap_job_t *sj, const agent_conf_t *c,
				agent_job_t *ji, double waited0, double last,
				bool over)
{
	int32_t cur = ji->place.node;
	double from;

	/* Beyond the quota (dl_place_quota()), whatever blocks it. */
	if (over || cur < 0 || ji->place.widened ||
	    ji->place.waited != waited0 || !_blocked(s, sj, cur))
		return DL_PLACE_KEEP;
	from = _blocked_from(st, s, sj, cur, last);
	if (last > 0 && st->now > from)
		ji->place.waited += st->now - from;
	if (c->place.strict || ji->place.waited < ji->place.bound)
		return DL_PLACE_KEEP;
	ji->place.node = -1;
	ji->place.widened = 1;
	return DL_PLACE_WIDEN;
}

void agent_place_gate_op(place_op_t *op, const snap_job_t *sj,
			 const agent_conf_t *c)
{
	op->gated = sj->gated;
	op->release_to = agent_gate_release_to(sj->ubegin, sj->submit);
	op->hold = c->gate_max;
}

/*
 * A job the gate's clock let go before the agent placed it: the log, its
 * SystemComment and (pending) its Reason say after how long and why.
 */
static void _released(const snapshot_t *s, const snap_job_t *sj,
		      place_ops_t *ops, const char *pfx)
{
	place_op_t *op = agent_place_add(ops, OP_RELEASED, sj->job_id);
	char why[96];

	snprintf(why, sizeof(why), "its bound of %u s; agent cycles take %.1f s",
		 sj->gate_bound, s->agent_cycle);
	op->log = xstrdup_printf("%s: JobId=%u released unplaced by the submit gate after %s",
				 pfx, sj->job_id, why);
	op->sc = xstrdup_printf("%s by the submit gate after %s",
				DL_SC_RELEASED, why);
	op->desc = xstrdup_printf("DataLocality: released unplaced after %u s (agent cycles take %.1f s)",
				  sj->gate_bound, s->agent_cycle);
}

/* One planned pending job: advance its record, list what changed. */
static void _decide_job(const snapshot_t *s, const dl_state_t *st, size_t k,
			const snap_job_t *sj, const dl_plan_t *plan,
			const agent_conf_t *c, const dl_place_room_t *room,
			const dl_place_quota_t *q, place_ops_t *ops,
			dl_sched_stats_t *stats, const char *pfx)
{
	agent_job_t *ji = agent_jobs_get(sj->job_id, true);
	int32_t planned = plan ? plan->a[k].node : -1, from;
	dl_place_action_t act;
	double waited0, last;
	place_op_t *op;
	const char *why;
	char cached[CACHED_LEN];

	/* The record says what the job really has (after a restart too). */
	if (sj->ours >= 0)
		ji->place.node = sj->ours;
	else if (ji->place.node >= 0 || sj->widened)
		ji->place.widened = 1; /* lifted by us or an admin */
	if (ji->place.widened)
		ji->place.node = -1;
	from = ji->place.node;
	if (from >= 0)
		ji->planned = from;
	if ((why = _leave(s, sj, from))) {
		_left(s, sj, from, why, ops, ji, pfx);
		stats->widened++;
		agent_place_gate_op(&ops->op[ops->n - 1], sj, c);
		return;
	}
	waited0 = ji->place.waited;
	last = ji->place.last;
	act = dl_place_step_quota(st, k, planned, &c->place, &ji->place, room,
				  q);
	if (act == DL_PLACE_KEEP)
		act = _judge(st, s, sj, c, ji, waited0, last,
			     dl_place_quota_over(q, k));
	switch (act) {
	case DL_PLACE_SET:
		_restrict(st, k, from, plan, ops, ji, pfx);
		stats->placed += from < 0;
		stats->moved += from >= 0;
		break;
	case DL_PLACE_WIDEN:
		_widen(st, k, from, ops, ji, pfx);
		stats->widened++;
		break;
	default:
		if (ji->place.node >= 0) {
			op = agent_place_add(ops, OP_REASON, sj->job_id);
			_cached(st, &st->jobs[k], (uint32_t)ji->place.node,
				cached, sizeof(cached));
			op->desc = _waiting(st, &ji->place, cached);
		} else if (sj->gated) {
			op = agent_place_add(ops, OP_UNGATE, sj->job_id);
			agent_place_gate_op(op, sj, c);
		}
		break;
	}
	if (ops->n && ops->op[ops->n - 1].job_id == sj->job_id)
		agent_place_gate_op(&ops->op[ops->n - 1], sj, c);
	if (ji->place.node >= 0)
		stats->pending_placed++;
}

/*
 * A job on several nodes stages its files on each: the model records
 * them on the others too (its first node's were at its start, with its
 * hits and misses, agent_model_job_started()).
 */
static void _ran_on(const snapshot_t *s, const snap_job_t *sj,
		    const agent_job_t *ji, const char *pfx)
{
	uint32_t i;

	for (i = 0; i < sj->nran; i++)
		if (sj->ran[i] != sj->node && (uint32_t)sj->ran[i] < s->nnodes)
			agent_model_job_ran_on(
				ji, sj->ran[i],
				agent_model_has_inventory(sj->ran[i]), pfx);
}

/* A job that started since the last cycle: report how, lift ours. */
static void _started(const snapshot_t *s, const snap_job_t *sj,
		     place_ops_t *ops, dl_sched_stats_t *stats,
		     const char *pfx)
{
	agent_job_t *ji = agent_jobs_get(sj->job_id, false);
	const char *node = sj->node >= 0 && (uint32_t)sj->node < s->nnodes ?
				   s->names[sj->node] : "?";
	char bytes[32], how[64];
	place_op_t *op;

	if (!ji || ji->start_logged)
		return;
	ji->start_logged = true;
	_ran_on(s, sj, ji, pfx);
	if (sj->ours < 0 && !ji->place.widened && !ji->nfiles &&
	    !ji->too_many)
		return;
	if (sj->ours >= 0) {
		snprintf(how, sizeof(how), "planned %s: strict",
			 s->names[sj->ours]);
		stats->started_planned++;
	} else if (ji->place.widened) {
		snprintf(how, sizeof(how), "planned %s: widened",
			 ji->planned >= 0 && (uint32_t)ji->planned < s->nnodes ?
				 s->names[ji->planned] : "?");
		stats->started_widened++;
	} else {
		snprintf(how, sizeof(how), "no placement");
		stats->started_unplaced++;
	}
	dl_files_format_size(ji->hit_bytes, 1, bytes, sizeof(bytes));
	op = agent_place_add(ops, OP_RESTORE, sj->job_id);
	op->log = xstrdup_printf("%s: started JobId=%u on %s (%s; %u/%u files, %s cached)",
				 pfx, sj->job_id, node, how, ji->hit_files,
				 ji->too_many ? ji->too_many : ji->nfiles,
				 bytes);
	if (sj->ours >= 0 && sj->nran > 1) {
		char *names = agent_multi_names(s, sj->ran, sj->nran);

		op->sc = xstrdup_printf("%sran on %s, the nodes it was placed on (%u/%u files, %s cached on %s)",
					DL_SC_PREFIX, names, ji->hit_files,
					ji->nfiles, bytes, node);
		xfree(names);
	} else if (sj->ours >= 0) {
		op->sc = xstrdup_printf("%sran on %s, the node it was placed on (%u/%u files, %s cached)",
					DL_SC_PREFIX, node, ji->hit_files,
					ji->nfiles, bytes);
	}
}

/*
 * A job whose SystemComment claims a placement its list is not (an update
 * changed, cleared or set it again, agent_mark.h): the list is the
 * admin's or user's, never moved or widened, and the SystemComment says
 * so (issue 26, item 3).
 */
static void _note(const snapshot_t *s, const snap_job_t *sj,
		  place_ops_t *ops, const char *pfx)
{
	place_op_t *op = agent_place_add(ops, OP_NOTE, sj->job_id);

	(void)s;
	op->sc = xstrdup_printf("%snode list changed by an update since the plugin's placement: left alone",
				DL_SC_PREFIX);
	op->log = xstrdup_printf("%s: JobId=%u: its node list was changed by an update: left alone",
				 pfx, sj->job_id);
}

/*
 * Jobs outside the plan: started ones, requeued ones (pending again: placed
 * afresh), gated ones that cannot run yet or have nothing to place, and
 * restricted ones Slurm declared never runnable (rescued: a restriction of
 * ours must never cost a job its life).
 */
static void _decide_others(const snapshot_t *s, const uint8_t *planned,
			   const agent_conf_t *c, place_ops_t *ops,
			   dl_sched_stats_t *stats, const char *pfx)
{
	uint32_t i;

	for (i = 0; i < s->njobs; i++) {
		const snap_job_t *sj = &s->jobs[i];
		agent_job_t *ji = agent_jobs_get(sj->job_id, false);
		place_op_t *op;

		if (sj->gate_expired && !sj->gate_noted && ji &&
		    !ji->gate_noted) {
			_released(s, sj, ops, pfx);
			ji->gate_noted = true;
		}
		if (sj->sc_stale)
			_note(s, sj, ops, pfx);
		if (sj->running) {
			_started(s, sj, ops, stats, pfx);
			continue;
		}
		if (ji && (ji->running || ji->finished)) {
			ji->running = ji->start_logged = ji->finished = false;
			dl_place_init(&ji->place);
			ji->planned = -1;
			agent_place_add(ops, OP_FORGET, sj->job_id);
			continue; /* placed afresh from the next cycle */
		}
		if (planned[i])
			continue;
		if (sj->ours >= 0 && sj->failed) {
			op = agent_place_add(ops, OP_WIDEN, sj->job_id);
			op->from = sj->ours;
			op->sc = xstrdup_printf("%s to any node: Slurm could not use %s",
						DL_SC_WIDENED,
						s->names[sj->ours]);
			op->log = xstrdup_printf("%s: widened JobId=%u: Slurm found it never runnable on %s",
						 pfx, sj->job_id,
						 s->names[sj->ours]);
		} else if (sj->ours >= 0 && ji && ji->parsed && !ji->reread &&
			   !ji->nfiles && !ji->too_many) {
			/*
			 * It names no files any more (its comment changed,
			 * or a list file is gone): nothing to wait for.
			 */
			op = agent_place_add(ops, OP_WIDEN, sj->job_id);
			op->from = sj->ours;
			op->desc = xstrdup("DataLocality: it names no files now, any node");
			op->sc = xstrdup_printf("%s to any node: it names no files now",
						DL_SC_WIDENED);
			op->log = xstrdup_printf("%s: widened JobId=%u: it names no files now",
						 pfx, sj->job_id);
		} else if (ji && ji->too_many && sj->runnable) {
			op = agent_place_add(ops, OP_REASON, sj->job_id);
			op->desc = xstrdup_printf("DataLocality: %u files, above MaxFilesPerJob=%u: no placement",
						  ji->too_many, c->max_files);
			agent_place_gate_op(op, sj, c);
		} else if (ji && ji->user_bound && sj->runnable) {
			op = agent_place_add(ops, OP_REASON, sj->job_id);
			op->desc = xstrdup_printf("DataLocality: not placed: the user's jobs in the window name more than UserMaxFiles=%" PRIu64 " files",
						  ji->user_bound);
			op->sc = xstrdup_printf("%snot placed: the user's jobs in the window name more than UserMaxFiles=%" PRIu64 " files",
						DL_SC_PREFIX, ji->user_bound);
			agent_place_gate_op(op, sj, c);
		} else if (sj->gated) {
			/* Outside the window it stays held until it enters. */
			op = agent_place_add(ops, sj->runnable && !sj->outside ?
							  OP_UNGATE :
							  OP_REGATE,
					     sj->job_id);
			agent_place_gate_op(op, sj, c);
		}
	}
}

/* A pending job placed on a node, for _behind(). */
typedef struct {
	int32_t node;
	uint32_t priority, job_id;
	time_t submit;
	uint32_t ahead;         /* the job it waits behind, 0: none */
} waiter_t;

static int _by_node_rank(const void *a, const void *b)
{
	const waiter_t *x = a, *y = b;

	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	if (x->priority != y->priority)
		return x->priority > y->priority ? -1 : 1;
	if (x->submit != y->submit)
		return x->submit < y->submit ? -1 : 1;
	return x->job_id < y->job_id ? -1 : x->job_id > y->job_id;
}

static int _by_job(const void *a, const void *b)
{
	const waiter_t *x = a, *y = b;

	return x->job_id < y->job_id ? -1 : x->job_id > y->job_id;
}

/*
 * The job each waiter is behind: the waiter of its node ranked just above
 * it (priority, then submission), for the first one a job running there
 * (the one ending first).  *n: count; RET xmalloc'd, sorted by job id.
 */
static waiter_t *_waiters(const snapshot_t *s, uint32_t *n)
{
	waiter_t *w = xcalloc(s->njobs ? s->njobs : 1, sizeof(*w));
	uint32_t i, k, m = 0;

	for (i = 0; i < s->njobs; i++) {
		const snap_job_t *sj = &s->jobs[i];
		agent_job_t *ji = agent_jobs_get(sj->job_id, false);

		if (sj->running || sj->outside || !ji || ji->place.node < 0)
			continue;
		w[m++] = (waiter_t){ ji->place.node, sj->priority, sj->job_id,
				     sj->submit, 0 };
	}
	qsort(w, m, sizeof(*w), _by_node_rank);
	for (k = 0; k < m; k++) {
		time_t end = 0;

		if (k && w[k - 1].node == w[k].node) {
			w[k].ahead = w[k - 1].job_id;
			continue;
		}
		for (i = 0; i < s->njobs; i++) {
			const snap_job_t *sj = &s->jobs[i];

			if (sj->running && !sj->ended && sj->node == w[k].node &&
			    (!w[k].ahead || sj->end < end)) {
				w[k].ahead = sj->job_id;
				end = sj->end;
			}
		}
	}
	qsort(w, m, sizeof(*w), _by_job);
	*n = m;
	return w;
}

/*
 * One readable Reason for every job waiting for the same node (issue 26,
 * item 6): "DataLocality: waiting for n2 behind job 123 (...)".
 */
static void _behind(const snapshot_t *s, place_ops_t *ops, uint32_t from)
{
	static const char pfx[] = "DataLocality: waiting for ";
	uint32_t i, n;
	waiter_t *w = _waiters(s, &n), key, *hit;
	place_op_t *op;
	char *sp;

	for (i = from; i < ops->n; i++) {
		op = &ops->op[i];
		if ((op->kind != OP_RESTRICT && op->kind != OP_REASON) ||
		    !op->desc || strncmp(op->desc, pfx, strlen(pfx)))
			continue;
		key.job_id = op->job_id;
		hit = bsearch(&key, w, n, sizeof(*w), _by_job);
		if (!hit || !hit->ahead ||
		    !(sp = strchr(op->desc + strlen(pfx), ' ')))
			continue;
		*sp = '\0';
		sp = xstrdup_printf("%s behind job %u %s", op->desc,
				    hit->ahead, sp + 1);
		xfree(op->desc);
		op->desc = sp;
	}
	xfree(w);
}

/* The snapshot's jobs, for _fits(). */
typedef struct {
	const snapshot_t *s;
	const uint32_t *map;
} fit_arg_t;

/* dl_place_fits_fn: Slurm's own test, agent_fit_now() (snap_job_t.fits). */
static int _fits(const void *arg, const dl_state_t *st, size_t k, uint32_t n)
{
	const fit_arg_t *a = arg;
	const snap_job_t *sj = &a->s->jobs[a->map[k]];

	(void)st;
	return sj->fits && n < a->s->nnodes && sj->fits[n];
}

/*
 * The blocked-job quota of this cycle (dl_place_quota()), from the
 * restriction each pending job has in Slurm as _decide_job() will judge
 * it: none if widened, or if its node is out of service (_leave(): it is
 * widened at once, whatever the quota).  Both the library's CPU test and
 * Slurm's own (memory, GRES: _judge()) say who is blocked.  The
 * restricted multi-node jobs (mu) share it, in the same Slurm's order.
 * On failure q is empty: every blocked job counts, as before the quota.
 */
static void _quota(const snapshot_t *s, const dl_state_t *st,
		   const uint32_t *map, const dl_place_room_t *room,
		   const agent_multi_t *mu, dl_place_quota_t *q)
{
	int32_t *node = xcalloc(st->njobs ? st->njobs : 1, sizeof(*node));
	fit_arg_t a = { s, map };
	size_t k;

	for (k = 0; k < st->njobs; k++) {
		const snap_job_t *sj = &s->jobs[map[k]];
		agent_job_t *ji = agent_jobs_get(sj->job_id, false);

		node[k] = st->jobs[k].state == DL_JOB_PENDING ? sj->ours : -1;
		if (node[k] >= 0 && ((ji && ji->place.widened) ||
				     (uint32_t)node[k] >= st->nnodes ||
				     _leave(s, sj, node[k])))
			node[k] = -1;
	}
	if (dl_place_quota_multi(st, node, mu->in, mu->n, room, _fits, &a,
				 q))
		dl_place_quota_free(q);
	xfree(node);
}

void agent_place_decide(const snapshot_t *s, const dl_state_t *st,
			const uint32_t *map, const dl_plan_t *plan,
			const agent_conf_t *c, place_ops_t *ops,
			dl_sched_stats_t *stats, const char *pfx)
{
	uint8_t *planned = xcalloc(s->njobs ? s->njobs : 1, 1);
	dl_place_room_t room; /* once for all jobs: see dl_place_room() */
	dl_place_quota_t q = { 0 };
	agent_multi_t mu = { 0 };
	uint32_t first;
	size_t k;

	dl_place_room(st, &room);
	for (k = 0; st && k < st->njobs; k++)
		if (st->jobs[k].state == DL_JOB_PENDING)
			planned[map[k]] = 1;
	stats->pending_placed = 0;
	first = ops->n;
	/* A hetjob waits as a whole: its components start together. */
	agent_het_sync(s);
	/* Before the others: the ones it places are not let go unplaced. */
	agent_multi_decide(s, st, c, planned, &mu, ops, stats, pfx);
	_decide_others(s, planned, c, ops, stats, pfx);
	/* After the others: requeued jobs were forgotten there. */
	if (st)
		_quota(s, st, map, &room, &mu, &q);
	agent_multi_step(s, st, c, &mu, &q, ops, stats, pfx);
	for (k = 0; st && k < st->njobs; k++) {
		const snap_job_t *sj = &s->jobs[map[k]];
		agent_job_t *ji;

		if (st->jobs[k].state != DL_JOB_PENDING)
			continue;
		_decide_job(s, st, k, sj, plan, c, &room, &q, ops, stats,
			    pfx);
		ji = agent_jobs_get(sj->job_id, false);
		if (ji && ji->place.node >= 0)
			ji->planned = ji->place.node;
	}
	agent_het_decide(s, c, ops, first, stats, pfx);
	_behind(s, ops, first);
	dl_place_quota_free(&q);
	agent_multi_free(&mu);
	xfree(planned);
}
