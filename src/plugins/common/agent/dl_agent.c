/*
 * dl_agent.c - the planning agent's thread; see dl_agent.h.
 *
 * Each cycle has three phases, so that slurmctld's locks are held only
 * for copying and for applying:
 *   1. snapshot (read locks): nodes, running jobs, pending jobs that may
 *      be placed (agent_snapshot.h);
 *   2. plan (no lock): parse new annotations, keep the cache model in step
 *      (agent_model.h), run the policy, decide placements (agent_place.h);
 *   3. apply (job write lock): set, move or lift restrictions, Reasons and
 *      SystemComments, release jobs held back at submit (agent_apply.c).
 * A cycle runs when a job was submitted, when what it reads changed or a
 * clock of the agent's runs out (agent_quiet.h); an idle agent does not
 * plan again.
 */
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "src/common/slurm_xlator.h"

#include "slurm/slurm_errno.h"
#include "src/common/log.h"
#include "src/common/uid.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"

#include "dl_cost.h"
#include "dl_error.h"
#include "dl_files.h"
#include "dl_place.h"
#include "dl_policy.h"
#include "dl_slurm.h"
#include "agent_acct.h"
#include "agent_channel.h"
#include "agent_array.h"
#include "agent_budget.h"
#include "agent_conf.h"
#include "agent_fnv.h"
#include "agent_gate.h"
#include "agent_history.h"
#include "agent_idle.h"
#include "agent_jobs.h"
#include "agent_model.h"
#include "agent_place.h"
#include "agent_prefetch.h"
#include "agent_quiet.h"
#include "agent_reconf.h"
#include "agent_peek.h"
#include "agent_poll.h"
#include "agent_snapfp.h"
#include "agent_snapshot.h"
#include "agent_statefile.h"
#include "agent_timelimit.h"
#include "dl_agent.h"

/* The node services' reports are followed this often. */
#define SYNC_MS 100
/*
 * A cycle due while sched/backfill runs (slurmctld_diag_stats.bf_active)
 * waits for it to end, at most this long: backfill holds the job write
 * lock for up to bf_yield_interval (2 s) at a stretch on a long queue, so
 * a cycle begun then would wait inside for its locks, and take the read
 * lock backfill wants back when it yields.  The submit gate's bound
 * counts the wait (agent_gate_observe()).
 */
#define BACKFILL_WAIT_MS 5000

static const char *pfx = "datalocality";
static pthread_t agent_tid;
static pthread_mutex_t term_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t term_cond = PTHREAD_COND_INITIALIZER;
static bool stop_agent;
static bool reconfig_pending = true;
static bool submit_pending;           /* dl_agent_submitted() since */

/* Owned by the agent thread alone. */
static agent_conf_t dl_conf;
static dl_policy_t *policy;
static uint64_t cycle_no;
/* Cycles that stopped at their snapshot (_unchanged()). */
static uint64_t cycles_unchanged;
static uint64_t last_fp;              /* the last snapshot's agent_snapfp() */
/*
 * The last walk's agent_snapshot_peek() (if it skipped by the floors),
 * and its wall second: what _peeked() compares with, and how old it is.
 */
static struct {
	uint64_t fp;
	bool ok;
	time_t at;
	uint64_t stopped;       /* cycles it stopped before their walk */
} peek;
static dl_sched_stats_t stats;
static time_t last_inv_read, last_save;
static dl_plan_t *last_plan;          /* of the last cycle, for saving */
static dl_state_t *last_st;
static agent_gate_t gate;             /* the cycle times the gate follows */
static uint32_t gate_published;       /* bound in the gate file, or 0 */
static uint64_t jobs_read;            /* jobs whose files were read */
static uint64_t tasks_split;          /* array tasks split off to place */
static time_t last_window_log;
static agent_budget_t budget;         /* this cycle's reading budget */
static time_t last_budget_log;
static agent_quiet_t quiet;           /* when the next cycle is due */
static uint64_t services_fp;          /* the services' reports, hashed */
static struct {                       /* what services_fp was taken at */
	bool valid;
	uint64_t changes;             /* agent_channel_changes() */
	uint64_t resets;              /* agent_model_resets() */
} synced;
static double last_own_s;             /* the last cycle, from its start */
static double last_wait_s;            /* its wait for backfill before */
static double last_lock_s;            /* its waits for slurmctld's locks */
static double last_cpu_s;             /* its CPU time (the agent thread) */
static double cycle_lock_s;           /* this cycle's, so far */
static int64_t est_wake;              /* a running job's estimated end */

static int64_t _now_ms(void);

/*
 * The policy's parameters as the agent uses them
 * (dl_policy_mapping_params()).  Slurm's priority decides the order jobs
 * start in, so Online-HPS's ECT ordering of each node's queue is skipped
 * (it is what dl-sim's plan dispatch needs), and its guard models the
 * placement rule of datalocality.conf (Hysteresis, WaitFactor, MinWait,
 * MaxWait, StrictPlacement).  RET xmalloc'd.
 */
static char *_policy_params(void)
{
	char *p = dl_policy_mapping_params(dl_conf.policy,
					   dl_conf.policy_params,
					   &dl_conf.place);
	char *x = p ? xstrdup(p) : NULL;

	free(p);
	return x;
}

/*
 * Apply configuration: policy object, model sized to the node table.
 * Caller holds the conf and node read locks.  RET node names to restore
 * the state file with (after the locks are released), or NULL.
 */
static char **_reconfigure(uint32_t *nn)
{
	char **names = NULL;
	char *params;
	dl_policy_t *p;
	int err;

	agent_conf_read(&dl_conf, pfx);
	params = _policy_params();
	p = dl_policy_create(dl_conf.policy, params, &err);
	xfree(params);
	if (!p) {
		error("%s: policy %s(%s): %s; using %s with its defaults", pfx,
		      dl_conf.policy, dl_conf.policy_params ? dl_conf.policy_params : "",
		      dl_strerror(err), AGENT_DEFAULT_POLICY);
		p = dl_policy_create(AGENT_DEFAULT_POLICY, NULL, &err);
		xfree(dl_conf.policy);
		xfree(dl_conf.policy_params);
		dl_conf.policy = xstrdup(AGENT_DEFAULT_POLICY);
	}
	if (p) {
		dl_policy_destroy(policy);
		policy = p;
	}
	if (agent_model_setup(node_record_count, &dl_conf)) {
		agent_jobs_init();
		names = agent_statefile_names(nn);
	}
	if (!xstrcasestr(slurm_conf.job_submit_plugins, "datalocality"))
		error("%s: JobSubmitPlugins lacks datalocality: a job may start before it is placed, and bad files: annotations are not refused at submit",
		      pfx);
	info("%s: policy %s%s%s, eviction %s, cache capacity %s per node, wait for data %s",
	     pfx, dl_policy_name(policy), dl_conf.policy_params ? " " : "",
	     dl_conf.policy_params ? dl_conf.policy_params : "",
	     dl_evict_name(dl_conf.evict),
	     dl_conf.capacity == UINT64_MAX ? "unlimited" : "set",
	     dl_conf.place.strict ? "strict" : "bounded");
	return names;
}

/*
 * Parse a job's files with its values for their patterns (dl_pattern.h).
 * A record parsed for another task id than it has now (a pending array's
 * own record that became its last task) is parsed again, and so is one
 * whose comment changed since (agent_jobs_changed()).  Outside the job
 * lock: the user name may need NSS.
 */
static void _parse_job(agent_job_t *ji, const snap_job_t *sj)
{
	dl_pattern_ctx_t ctx;
	char *user;

	if (ji->parsed) {
		xfree(ji->files);
		ji->nfiles = 0;
		ji->too_many = 0;
	}
	dl_pattern_ctx_init(&ctx);
	ctx.task_id = sj->task_id;
	ctx.array_job_id = sj->task_id == DL_PATTERN_NONE ? DL_PATTERN_NONE :
			   sj->array_job_id;
	ctx.job_id = sj->job_id;
	ctx.user = user = uid_to_string_or_null(sj->uid);
	ctx.name = sj->jname;
	agent_model_parse_job(ji, sj->comment, sj->script_files, sj->bb,
			      sj->uid, sj->gid, &ctx, dl_conf.max_files, pfx);
	agent_jobs_parsed(ji, sj->comment, pfx);
	xfree(user);
}

/* Bytes of file names a parse read: what the job's list files hold. */
static uint64_t _names_read(const agent_job_t *ji)
{
	dl_cache_t *cache = agent_model_cache();
	uint64_t n = 0;
	uint32_t i;

	if (ji->too_many)
		return (uint64_t)ji->too_many * AGENT_BUDGET_NAME_BYTES;
	for (i = 0; i < ji->nfiles; i++) {
		const char *p = dl_cache_file_path(cache, ji->files[i]);

		n += (p ? strlen(p) : 0) + 1;
	}
	return n;
}

/* Whether a job names files at all (without reading them). */
static bool _annotated(const snap_job_t *sj)
{
	return dl_files_has_annotation(sj->comment) || sj->script_files ||
	       sj->bb;
}

/* A pending job of the window that the plan could place. */
static bool _in_window(const snap_job_t *sj)
{
	return !sj->running && !sj->ended && !sj->outside && sj->runnable;
}

/*
 * Read one job's files if it needs it and the budget allows
 * (agent_budget.h), then admit it against its user's UserMaxFiles.  A job
 * left unread is treated as outside the window this cycle: not planned,
 * kept at its submit gate.  A job of a user whose jobs already name
 * UserMaxFiles files is not read at all: it would exceed the bound.
 * RET false when the job's files are still to be read.
 */
static bool _read_job(snap_job_t *sj, agent_job_t *ji)
{
	bool want = (!ji->parsed || ji->task_id != sj->task_id) &&
		    (sj->running || sj->runnable);
	bool window = _in_window(sj);
	int64_t t0;

	ji->user_bound = 0;
	if (want && window && _annotated(sj) &&
	    agent_budget_user_full(&budget, sj->uid)) {
		ji->user_bound = budget.conf.user_files;
	} else if (want) {
		if (!agent_budget_may_read(&budget, sj->uid,
					   (t0 = _now_ms()))) {
			budget.deferred++;
			sj->outside = !sj->running;
			return false;
		}
		_parse_job(ji, sj);
		agent_budget_charge_read(&budget, sj->uid, _names_read(ji),
					 _now_ms() - t0);
		jobs_read++;
	}
	/* A job placed already keeps its node: its list is the plugin's. */
	if (window && ji->nfiles && !ji->user_bound &&
	    !agent_budget_admit(&budget, sj->uid, ji->nfiles) && sj->ours < 0)
		ji->user_bound = budget.conf.user_files;
	if (!ji->user_bound) {
		ji->bound_noted = false;
		return true;
	}
	budget.skipped++;
	if (!ji->bound_noted)
		info("%s: JobId=%u runs without placement: its user's jobs in the window name more than UserMaxFiles=%" PRIu64 " files",
		     pfx, sj->job_id, ji->user_bound);
	ji->bound_noted = true;
	return true;
}

/* Record a job's start (its files on its node) and its end (run time). */
static void _record_job(const snap_job_t *sj, agent_job_t *ji, uint32_t nn)
{
	if (sj->running && !ji->running && !ji->finished) {
		ji->running = true;
		if (sj->node >= 0 && (uint32_t)sj->node < nn)
			agent_model_job_started(
				ji, sj->node,
				agent_model_has_inventory(sj->node), pfx);
	}
	if (sj->ended && !ji->finished) {
		ji->finished = true;
		ji->running = false;
		if (ji->nfiles && sj->end > sj->start)
			agent_history_add(sj->uid, sj->name,
					  (double)(sj->end - sj->start));
	}
}

/*
 * The snapshot's jobs in reading order: running and ended ones first (the
 * model must know what nodes hold), then the pending ones in Slurm's
 * order, so that a cycle out of budget has read the jobs that start
 * first.  RET xmalloc'd.
 */
static agent_budget_job_t *_reading_order(const snapshot_t *s)
{
	agent_budget_job_t *o = xcalloc(s->njobs ? s->njobs : 1, sizeof(*o));
	uint32_t i, n = 0, first;

	for (i = 0; i < s->njobs; i++)
		if (s->jobs[i].running || s->jobs[i].ended)
			o[n++].idx = i;
	first = n;
	for (i = 0; i < s->njobs; i++) {
		const snap_job_t *sj = &s->jobs[i];

		if (sj->running || sj->ended)
			continue;
		o[n].priority = sj->priority;
		o[n].submit = sj->submit;
		o[n].job_id = sj->job_id;
		o[n++].idx = i;
	}
	agent_budget_order(o + first, n - first);
	return o;
}

/* Power states and inventories of the nodes (read once a second). */
static void _update_nodes(const snapshot_t *s)
{
	uint32_t nn = agent_model_nodes(), i;

	/* Before any inventory: a powered-down node's is no longer true. */
	for (i = 0; i < s->nnodes && i < nn; i++)
		agent_model_power(i, s->names[i], s->power[i],
				  dl_conf.power_kept, pfx);
	/*
	 * Inventories are read at most once a second: on a shared file
	 * system, a stat per node at every cycle would be felt.
	 */
	if (dl_conf.cache_dir && time(NULL) != last_inv_read) {
		for (i = 0; i < s->nnodes && i < nn; i++)
			agent_model_sync_node(i, s->names[i], dl_conf.cache_dir);
		last_inv_read = time(NULL);
	}
}

/*
 * Read new jobs' files within the cycle's budget, record started and
 * ended ones, read inventories.  Held or waiting jobs cost nothing until
 * they may run.
 */
static void _update_model(snapshot_t *s)
{
	uint32_t nn = agent_model_nodes(), i;
	agent_budget_job_t *order;

	_update_nodes(s);
	order = _reading_order(s);
	for (i = 0; i < s->njobs; i++) {
		snap_job_t *sj = &s->jobs[order[i].idx];
		agent_job_t *ji = agent_jobs_get(sj->job_id, true);

		ji->seen = cycle_no;
		/* A start is recorded once its files are known. */
		if (_read_job(sj, ji))
			_record_job(sj, ji, nn);
	}
	xfree(order);
	agent_jobs_forget(cycle_no);
}

/* Add one snapshot job to the state; RET its index or < 0 (left out). */
static int _add_job(dl_state_t *st, const snap_job_t *sj,
		    const agent_job_t *ji)
{
	dl_job_t j = { 0 };
	int rc;

	j.id = sj->job_id;
	j.state = sj->running ? DL_JOB_RUNNING : DL_JOB_PENDING;
	j.nfiles = ji->nfiles;
	j.files = ji->files;
	j.cpus = sj->cpus;
	j.priority = sj->priority;
	j.arrival = (double)sj->submit;
	/*
	 * What similar jobs took, or the time limit; not input size alone:
	 * a running job without an estimate would look as if it ended at
	 * once (dl_runtime_running()).
	 */
	j.compute = agent_history_estimate(sj->uid, sj->name, sj->limit);
	if (sj->running) {
		j.compute = dl_runtime_running(j.compute,
					       st->now - (double)sj->start);
		/* Then the plan's idea of its node changes (agent_quiet.h). */
		if ((double)sj->start + j.compute > st->now &&
		    (int64_t)sj->start + (int64_t)j.compute + 1 < est_wake)
			est_wake = (int64_t)sj->start + (int64_t)j.compute + 1;
	} else if (!(j.compute > 0))
		j.compute = -1;
	j.start = (double)sj->start;
	j.node = sj->node;
	j.eligible = sj->eligible;
	if ((rc = dl_state_add_job(st, &j)) < 0)
		error("%s: JobId=%u left out of the plan: %s", pfx, sj->job_id,
		      dl_strerror(rc));
	return rc;
}

/*
 * Seconds before node i of the snapshot can start a job: a resume costs
 * ResumeCost, or Slurm's ResumeTimeout of the node; a resume under way
 * costs what is left of it (at least a second: it is not up yet).
 */
static double _wake(const snapshot_t *s, uint32_t i)
{
	double cost = dl_conf.resume_cost >= 0 ? dl_conf.resume_cost :
						 (double)s->resume_timeout[i];
	double left;

	switch (s->power[i]) {
	case DL_POWER_DOWN:
	case DL_POWER_SUSPENDING:
		return cost > 0 ? cost : 1;
	case DL_POWER_RESUMING:
		left = s->boot_req[i] ? (double)s->boot_req[i] + cost -
						(double)s->now :
					cost;
		return left > 1 ? left : 1;
	default:
		return 0;
	}
}

/*
 * Since when each node has had a free CPU, in snapshot clock, for
 * dl_node_t.freed: from the first snapshot that saw it with one (0 while
 * full or down).  A node seen free only between one job's end and Slurm's
 * next start holds no placed job back.  Reset when the node table
 * changes size (scontrol reconfigure).
 */
static double *node_freed;
static uint32_t node_nfreed;

static void _track_freed(const snapshot_t *s)
{
	uint32_t i;

	if (node_nfreed != s->nnodes) {
		xfree(node_freed);
		node_freed = xcalloc(s->nnodes ? s->nnodes : 1, sizeof(double));
		node_nfreed = s->nnodes;
	}
	for (i = 0; i < s->nnodes; i++)
		if (!s->usable[i] || s->busy[i] >= s->cpus[i])
			node_freed[i] = 0;
		else if (!node_freed[i])
			node_freed[i] = s->clock;
}

/*
 * Whether a pending job Slurm cannot place on the idle nodes keeps them
 * idle (dl_state_t.wide_waiting): one that could run now, waits for
 * resources (not a limit) and needs more nodes than are idle.  Partitions
 * are not told apart: a wide job in another partition only makes jobs
 * ahead of it wait less for data.
 */
static void _wide_waiting(const snapshot_t *s, dl_state_t *st)
{
	uint32_t i, idle = 0;

	for (i = 0; i < s->nnodes; i++)
		idle += s->usable[i] && !s->busy[i];
	for (i = 0; i < s->njobs; i++) {
		const snap_job_t *sj = &s->jobs[i];

		if (sj->running || sj->placeable || !sj->runnable ||
		    !sj->for_resources || sj->min_nodes <= idle)
			continue;
		if (!st->wide_waiting || sj->priority > st->wide_priority)
			st->wide_priority = sj->priority;
		st->wide_waiting = 1;
	}
}

/*
 * The library's state: every node, the running jobs with files, and the
 * pending jobs that may be placed now.  map[k] is the snapshot index of
 * state job k (xmalloc'd).
 */
static dl_state_t *_build_state(snapshot_t *s, uint32_t **map)
{
	dl_state_t *st = dl_state_create(agent_model_cache(), &dl_conf.params);
	uint32_t i;
	int k;

	*map = xcalloc(s->njobs ? s->njobs : 1, sizeof(uint32_t));
	if (!st)
		return NULL;
	st->now = s->clock;
	_track_freed(s);
	for (i = 0; i < s->nnodes; i++)
		if (dl_state_add_node(st, s->names[i], s->cpus[i],
				      s->usable[i]) >= 0) {
			st->nodes[i].busy = s->busy[i];
			st->nodes[i].wake = _wake(s, i);
			st->nodes[i].freed = node_freed[i];
		}
	_wide_waiting(s, st);
	for (i = 0; i < s->njobs; i++) {
		snap_job_t *sj = &s->jobs[i];
		agent_job_t *ji = agent_jobs_get(sj->job_id, false);

		if (!ji || !ji->nfiles)
			continue;
		if (sj->ended)
			continue;
		if (!sj->running && (!sj->placeable || !sj->runnable ||
				     !sj->eligible || ji->place.widened ||
				     sj->widened || ji->user_bound ||
				     sj->outside))
			continue;
		if ((k = _add_job(st, sj, ji)) < 0)
			continue;
		(*map)[k] = i;
		/* Restricted already: the plan works around it. */
		if (!sj->running && sj->ours >= 0)
			dl_place_pin(st, k, (uint32_t)sj->ours, &dl_conf.place);
	}
	return st;
}

/*
 * Pins are for the policy only: whether a job is blocked, and may widen,
 * depends on every node it may run on.
 */
static void _unpin(const snapshot_t *s, dl_state_t *st, const uint32_t *map)
{
	size_t k;

	for (k = 0; k < st->njobs; k++) {
		const snap_job_t *sj = &s->jobs[map[k]];

		if (st->jobs[k].state == DL_JOB_PENDING && sj->eligible &&
		    st->jobs[k].eligible)
			memcpy(st->jobs[k].eligible, sj->eligible, s->nnodes);
	}
}

static void _count_plan(const dl_plan_t *plan)
{
	stats.plans++;
	stats.plan_sec_last = plan->seconds;
	stats.plan_sec_total += plan->seconds;
	if (plan->seconds > stats.plan_sec_max)
		stats.plan_sec_max = plan->seconds;
	debug("%s: plan %s: %zu jobs, cut %" PRIu64 " bytes, imbalance %.3f, %.3f ms",
	      pfx, plan->policy, plan->n, plan->cut_bytes, plan->imbalance,
	      plan->seconds * 1e3);
}

/* Phase 2: RET the plan (NULL if the policy failed); *stp, *map set. */
static dl_plan_t *_plan(snapshot_t *s, dl_state_t **stp, uint32_t **map)
{
	dl_plan_t *plan = NULL;
	int rc;

	_update_model(s);
	*stp = _build_state(s, map);
	if (!*stp)
		return NULL;
	rc = dl_policy_plan(policy, *stp, &plan);
	_unpin(s, *stp, *map);
	if (rc) {
		error("%s: policy %s failed: %s; jobs keep their placements",
		      pfx, dl_policy_name(policy), dl_strerror(rc));
		return NULL;
	}
	_count_plan(plan);
	return plan;
}

/* What glibc holds, all arenas (for issue 25's RSS). */
static void _log_heap(const char *when)
{
	struct mallinfo2 mi = mallinfo2();

	info("%s: heap %s: %zu kB in use, %zu kB free in the arenas, %zu kB mapped",
	     pfx, when, mi.uordblks >> 10, mi.fordblks >> 10, mi.hblkhd >> 10);
}

/*
 * When slurmctld's job table has shrunk to half its peak (at least
 * TRIM_JOBS jobs ago), give glibc's free memory back: Slurm frees the
 * records of ended jobs MinJobAge after they ended, and glibc keeps what
 * they held in its arenas, so that a queue emptied would leave slurmctld
 * at its peak RSS.  Caller: the agent thread, with njobs from job_list.
 */
#define TRIM_JOBS 100
static void _trim_when_shrunk(int njobs)
{
	static int peak;

	if (njobs > peak)
		peak = njobs;
	if (peak < TRIM_JOBS || njobs > peak / 2)
		return;
	malloc_trim(0);
	_log_heap("after the job table shrank");
	peak = njobs;
}

/*
 * Release paths nothing refers to any more.  Everything holding the old
 * file ids goes: the last plan and state, and the policy's own memory of
 * earlier plans.
 */
static void _compact(void)
{
	dl_policy_t *p;
	char *params;
	int err;

	if (!agent_model_compact(&dl_conf, pfx))
		return;
	agent_prefetch_files_renumbered();
	dl_plan_free(last_plan);
	last_plan = NULL;
	dl_state_destroy(last_st);
	last_st = NULL;
	params = _policy_params();
	if ((p = dl_policy_create(dl_policy_name(policy), params, &err))) {
		dl_policy_destroy(policy);
		policy = p;
		dl_policy_warm(policy);
	}
	xfree(params);
	/*
	 * glibc keeps freed memory in its arenas: without this, slurmctld
	 * stays at its peak RSS after a queue of many files is gone.
	 */
	malloc_trim(0);
	_log_heap("after compaction");
}

/*
 * The window's account, when it or the queue changed and at most every
 * 5 s (and always at debug level): how many queued jobs were planned, how
 * many jobs' files were read so far, what cycles take.
 */
static void _log_window(const snapshot_t *s)
{
	static uint32_t seen_in, seen_window, seen_pending;
	time_t now = time(NULL);
	bool changed = s->in_window != seen_in || s->window != seen_window ||
		       s->pending != seen_pending;

	debug("%s: planning window %u per partition: %u of %u queued jobs planned, %" PRIu64 " jobs read, waited %.3f s for backfill, %" PRIu64 " array tasks split off, locks %.3f s, cpu %.3f s, cycle %.3f s",
	      pfx, s->window, s->in_window, s->pending, jobs_read,
	      last_wait_s, tasks_split, last_lock_s, last_cpu_s, last_own_s);
	if (!changed || now - last_window_log < 5)
		return;
	seen_in = s->in_window;
	seen_window = s->window;
	seen_pending = s->pending;
	last_window_log = now;
	info("%s: planning window %u per partition: %u of %u queued jobs planned, %" PRIu64 " jobs read so far, %" PRIu64 " array tasks split off (up to %u pending at a time); cycles take %.3f s (last %.3f s), gate bound %u s",
	     pfx, s->window, s->in_window, s->pending, jobs_read, tasks_split,
	     s->array_room, agent_gate_cycle(&gate), gate.last,
	     agent_gate_bound(&gate, dl_conf.gate_min, dl_conf.gate_max));
}

/*
 * A cycle that spent its reading budget says so (at most every 5 s at
 * info level, every time at debug level): how many jobs' files are left
 * for the next cycles, how many jobs run unplaced by UserMaxFiles.
 */
static void _log_budget(void)
{
	time_t now = time(NULL);

	if (!budget.spent && !budget.deferred && !budget.skipped)
		return;
	debug("%s: cycle %" PRIu64 ": reading budget %s: %u jobs' files left for the next cycles, %u jobs unplaced by UserMaxFiles",
	      pfx, cycle_no, budget.spent ? "spent" : "kept", budget.deferred,
	      budget.skipped);
	if (now - last_budget_log < 5)
		return;
	last_budget_log = now;
	info("%s: CycleBudget=%u ms %s: %u jobs' files left for the next cycles (UserMaxListBytes=%" PRIu64 "), %u jobs run unplaced by UserMaxFiles=%" PRIu64,
	     pfx, budget.conf.cycle_ms, budget.spent ? "spent" : "kept",
	     budget.deferred, budget.conf.user_list, budget.skipped,
	     budget.conf.user_files);
}

/*
 * TestCycleDelay (for tests only): a cycle as slow as on a loaded host,
 * outside slurmctld's locks like the planning it stands for.
 */
static void _test_delay(void)
{
	if (dl_conf.test_cycle_delay > 0)
		usleep((useconds_t)(dl_conf.test_cycle_delay * 1e6));
}

/*
 * The nodes' generation: moves when what a snapshot reads of the nodes
 * changed (agent_snapshot_nodes_fp()), not at every move of
 * last_node_update.  Its hash is taken again while the stamp is of this
 * second or the last (a later change in the same second leaves it
 * equal).  locked: the caller holds the node read lock.
 */
static int64_t _node_gen(bool locked)
{
	static time_t seen_stamp;
	static uint64_t fp_seen;
	static int64_t gen;
	slurmctld_lock_t node_lock = { .node = READ_LOCK };
	time_t t = last_node_update;
	uint64_t fp;

	if (t == seen_stamp && t < time(NULL) - 1)
		return gen;
	if (!locked)
		lock_slurmctld(node_lock);
	fp = agent_snapshot_nodes_fp();
	if (!locked)
		unlock_slurmctld(node_lock);
	seen_stamp = t;
	if (fp != fp_seen) {
		fp_seen = fp;
		gen++;
	}
	return gen;
}

/*
 * What a cycle depends on, as slurmctld stamps it (agent_quiet.h): read
 * under the snapshot's locks for the cycle, and without them between
 * cycles (a stale read only makes the cycle come a poll later), but for
 * the nodes' generation (locked: the caller holds the node read lock).
 */
static void _stamps(agent_stamps_t *st, int njobs, bool locked)
{
	st->njobs = njobs;
	st->job = last_job_update;
	st->node = _node_gen(locked);
	st->part = last_part_update;
	st->resv = last_resv_update;
	st->services = services_fp;
}

/* Whether a prefetch is in force: its timeout is a clock of ours. */
static bool _prefetching(uint32_t nnodes)
{
	uint32_t i;

	for (i = 0; i < nnodes; i++)
		if (agent_prefetch_stats(i).active)
			return true;
	return false;
}

static void _rebase_one(agent_job_t *ji, void *arg)
{
	double since = *(const double *)arg;

	if (ji->place.last > 0 && ji->place.last < since)
		ji->place.last = since;
}

/*
 * Placed jobs count the time since their last step as blocked when they
 * are blocked now (agent_place.c, dl_place_blocked_for()).  A cycle that
 * follows a quiet spell (agent_quiet.h: the last snapshot had no free
 * CPU, so no job could be held back by its node) counts from when the
 * cycle became due, wall clock since, not from the last cycle.
 */
static void _rebase_waits(double since)
{
	agent_jobs_foreach(_rebase_one, &since);
}

/*
 * Take slurmctld's locks l, adding the wait to cycle_lock_s: a cycle's
 * time split into its own work and the waits for Slurm's threads
 * (contrib/bench_pending.sh prints both).
 */
static void _lock(slurmctld_lock_t *l)
{
	int64_t t0 = _now_ms();

	lock_slurmctld(*l);
	cycle_lock_s += (double)(_now_ms() - t0) / 1000.0;
}

/*
 * Renew the holds the snapshot listed for renewal alone (under the job
 * write lock).  Like a cycle's OP_REGATE, a renewal changes nothing
 * Slurm's schedulers or the agent look at (no last_job_update); a hold
 * found run out meanwhile is the next snapshot's to report.
 */
static void _regate(const snapshot_t *s)
{
	int64_t next;
	uint32_t expired;

	if (s->nregate)
		(void)agent_apply_renew(s->regate, s->nregate,
					dl_conf.gate_max, &next, &expired);
}

/*
 * Before the cycle plans: move the holds of the gated jobs of its window
 * that would run out before it ends (agent_gate.h, AGENT_GATE_HURRY), so
 * that it places them instead of Slurm's clock letting them go unplaced
 * moments before.  Said at most once every 5 s, with the count since.
 */
static void _hurry(const snapshot_t *s)
{
	slurmctld_lock_t job_write = { .job = WRITE_LOCK };
	static time_t last_log;
	static uint32_t moved;

	if (!s->nhurry)
		return;
	_lock(&job_write);
	moved += agent_apply_hurry(s->hurry, s->nhurry);
	unlock_slurmctld(job_write);
	if (!moved || time(NULL) - last_log < 5)
		return;
	info("%s: cycle %" PRIu64 ": %u gate holds renewed for the cycle that places them: they would have run out before it ends (agent cycles take %.3f s)",
	     pfx, cycle_no, moved, s->agent_cycle);
	last_log = time(NULL);
	moved = 0;
}

/*
 * A cycle's changes to the job records, under the job write lock: the
 * holds listed for renewal, the ops, the array tasks held back or let go,
 * the tasks split off.  RET whether a job changed (ops that change no job,
 * a Reason as it was, ask for no cycle).
 */
static bool _apply(const snapshot_t *snap, const place_ops_t *ops)
{
	/* Editing job records; nodes and partitions are only read. */
	slurmctld_lock_t write_lock = {
		.conf = READ_LOCK, .job = WRITE_LOCK, .node = READ_LOCK,
		.part = READ_LOCK
	};
	bool changed = false;

	if (!ops->n && !snap->narrays && !snap->nregate &&
	    !agent_array_pace_due(snap))
		return false;
	_lock(&write_lock);
	_regate(snap);
	if (node_record_count == (int)snap->nnodes) {
		changed = agent_place_apply(ops) > 0;
		/* Slurm tries first the tasks that can start. */
		changed = agent_array_pace(snap, pfx) > 0 || changed;
	}
	/* Placed from the next cycle, each on its own. */
	if (snap->narrays) {
		uint32_t n = agent_array_split(snap->arrays, snap->narrays,
					       snap->array_room, pfx);

		tasks_split += n;
		changed = changed || n;
	}
	unlock_slurmctld(write_lock);
	return changed;
}

/*
 * Whether a cycle due for Slurm's job stamp alone (why) would plan from
 * what the last one planned from: no other stamp moved and the snapshot
 * hashes as the last one did (agent_snapfp.h: sched/backfill moves the
 * stamp at every pass, rewriting estimates the agent never reads).  The
 * stamps then count as seen, and the cycle stops there: a walk instead of
 * a plan, its decisions, a save of the state file and a scheduler pass.
 * What the walk found of the gate's jobs outside the window is done as a
 * cycle would: the holds due renewed by id, the list to renew between
 * cycles kept.
 */
static bool _unchanged(const char *why, const snapshot_t *snap,
		       const agent_stamps_t *at)
{
	/* Renewals write begin times; partitions only key the floors. */
	slurmctld_lock_t renew_lock = { .job = WRITE_LOCK,
					.part = READ_LOCK };
	uint64_t fp = agent_snapfp(snap);
	bool same = fp == last_fp && !strcmp(why, AGENT_QUIET_WHY_JOBS) &&
		    agent_quiet_jobs_only(&quiet, at, snap->now);

	last_fp = fp;
	if (!same)
		return false;
	if (snap->nregate) {
		_lock(&renew_lock);
		_regate(snap);
		unlock_slurmctld(renew_lock);
	}
	agent_quiet_renewed(&quiet, agent_idle_keep(snap));
	agent_quiet_seen(&quiet, at, snap->now);
	cycles_unchanged++;
	debug("%s: cycle %" PRIu64 " not planned: only Slurm's job stamp moved, nothing the agent reads (%" PRIu64 " such so far)",
	      pfx, cycle_no + 1, cycles_unchanged);
	return true;
}

/*
 * Whether a cycle due for Slurm's job stamp alone, while it moves for
 * nothing (jobs_noise: a walk found so), may stop before its walk: no
 * other stamp moved and no job record changed since the last walk that
 * skipped by the floors, as agent_snapshot_peek() hashes them in place
 * (agent_peek.h), and that walk is less than AGENT_PEEK_WALK_MAX_S old.
 * The stamps then count as seen.  The holds to renew between cycles stay
 * the last snapshot's: the same jobs, the same holds.
 */
static bool _peeked(const char *why)
{
	slurmctld_lock_t peek_lock = { .job = READ_LOCK, .node = READ_LOCK,
				       .part = READ_LOCK };
	agent_stamps_t at;
	time_t now = time(NULL);
	uint64_t fp;
	bool ok;

	if (!peek.ok || !quiet.jobs_noise || strcmp(why, AGENT_QUIET_WHY_JOBS) ||
	    now - peek.at >= AGENT_PEEK_WALK_MAX_S)
		return false;
	_lock(&peek_lock);
	ok = agent_snapshot_peek(&fp);
	_stamps(&at, list_count(job_list), true);
	unlock_slurmctld(peek_lock);
	if (!ok || fp != peek.fp || !agent_quiet_jobs_only(&quiet, &at, now))
		return false;
	agent_quiet_seen(&quiet, &at, now);
	peek.stopped++;
	debug("%s: cycle %" PRIu64 " not walked: only Slurm's job stamp moved, no job record changed (%" PRIu64 " such so far)",
	      pfx, cycle_no + 1, peek.stopped);
	return true;
}

/*
 * One cycle, begun at monotonic start_ms, due for why since wall second
 * due_s.  RET false if it stopped before or at its snapshot (_peeked(),
 * _unchanged()).
 */
static bool _cycle(int64_t start_ms, const char *why, double due_s)
{
	/* Copying needs only read locks: nothing changes under us. */
	slurmctld_lock_t read_lock = {
		.conf = READ_LOCK, .job = READ_LOCK, .node = READ_LOCK,
		.part = READ_LOCK
	};
	snapshot_t snap = { 0 };
	agent_stamps_t at;
	bool changed;
	snapshot_conf_t sc = { .plan_window = dl_conf.plan_window,
			       .gate_hold = dl_conf.gate_max,
			       .gate_cycle = agent_gate_cycle(&gate) };
	place_ops_t ops = { 0 };
	dl_state_t *st = NULL;
	dl_plan_t *plan;
	uint32_t *map = NULL;

	if (_peeked(why))
		return false;
	agent_budget_begin(&budget, &dl_conf.budget, _now_ms());
	_compact();
	/* A job may leave a node whose service serves peers more cheaply. */
	dl_conf.place.peer_src = agent_model_peer_sources();
	_lock(&read_lock);
	agent_snapshot_take(&snap, &sc);
	_stamps(&at, list_count(job_list), true);
	unlock_slurmctld(read_lock);
	peek.fp = snap.peek;
	peek.ok = snap.peeked;
	peek.at = snap.now;
	if (_unchanged(why, &snap, &at)) {
		agent_snapshot_free(&snap);
		return false;
	}
	/* Not before: a walk of every job the agent keeps. */
	if (quiet.ran && quiet.wake != AGENT_QUIET_LIVE)
		_rebase_waits(due_s);
	cycle_no++;
	stats.cycles++;
	snap.agent_cycle = agent_gate_cycle(&gate);
	_hurry(&snap);
	_test_delay();

	agent_budget_clock(&budget, _now_ms());
	est_wake = AGENT_QUIET_NEVER;
	plan = _plan(&snap, &st, &map);
	if (st && st->nnodes == snap.nnodes)
		agent_place_decide(&snap, st, map, plan, &dl_conf, &ops, &stats,
				   pfx);
	/* The plan's copies name the snapshot's nodes only if all are in. */
	agent_prefetch_cycle(&snap, &dl_conf,
			     st && st->nnodes == snap.nnodes ? plan : NULL,
			     &ops, pfx);
	changed = _apply(&snap, &ops);
	agent_place_ops_free(&ops);
	xfree(map);
	/* At most once a second: the file is for restarts and for people. */
	if (time(NULL) - last_save >= 1) {
		agent_statefile_save(plan, st, &stats, pfx);
		last_save = time(NULL);
	}
	dl_plan_free(last_plan);
	dl_state_destroy(last_st);
	last_plan = plan;
	last_st = st;
	_log_window(&snap);
	_log_budget();
	if (est_wake < snap.wake)
		snap.wake = est_wake;
	agent_quiet_ran(&quiet, &at, snap.now, snap.took_ms,
			_prefetching(snap.nnodes) ? AGENT_QUIET_LIVE : snap.wake,
			changed || budget.deferred, start_ms);
	agent_quiet_renewed(&quiet, agent_idle_keep(&snap));
	agent_snapshot_free(&snap);
	return true;
}

/*
 * Tell job_submit the gate's bound (DL_GATE_FILE, dl_slurm.h) when it
 * changed: written aside and renamed, so that it reads a whole number.
 */
static void _publish_gate(void)
{
	uint32_t b = agent_gate_bound(&gate, dl_conf.gate_min,
				      dl_conf.gate_max);
	char *path, *tmp;
	FILE *f;

	if (b == gate_published || !slurm_conf.state_save_location)
		return;
	path = xstrdup_printf("%s/%s", slurm_conf.state_save_location,
			      DL_GATE_FILE);
	tmp = xstrdup_printf("%s.new", path);
	if (!(f = fopen(tmp, "we")) ||
	    fprintf(f, "%u %.3f\n", b, agent_gate_cycle(&gate)) < 0 ||
	    fclose(f) || rename(tmp, path)) {
		error("%s: cannot write %s: %m; the gate's bound stays %u s",
		      pfx, path, gate_published ? gate_published :
						  DL_GATE_SECONDS);
	} else {
		if (gate_published)
			info("%s: submit gate bound %u s (was %u s): agent cycles take %.3f s",
			     pfx, b, gate_published, agent_gate_cycle(&gate));
		gate_published = b;
	}
	xfree(tmp);
	xfree(path);
}

/*
 * The node channel's settings: node names in slurmctld's table order.
 * Caller holds the conf and node read locks.  Free with _channel_free().
 */
static void _channel_conf(agent_channel_conf_t *cc)
{
	memset(cc, 0, sizeof(*cc));
	cc->port = dl_conf.service_port;
	cc->munge_socket = dl_conf.munge_socket;
	cc->slurm_uid = slurm_conf.slurm_user_id;
	cc->names = agent_statefile_names(&cc->nnodes);
}

static void _channel_start(agent_channel_conf_t *cc)
{
	uint32_t i;

	if (cc->port)
		agent_channel_start(cc, pfx);
	else
		agent_channel_stop();
	for (i = 0; i < cc->nnodes; i++)
		xfree(cc->names[i]);
	xfree(cc->names);
}

/*
 * The model of every node whose service reports, every SYNC_MS: it
 * follows the node within a fraction of a second, and costs
 * a lock and a comparison per node when nothing changed.
 */
static void _sync_services(void)
{
	uint32_t i, nn = agent_model_nodes();
	agent_channel_view_t v;
	uint64_t fp = AGENT_FNV_BASIS_SHORT, x[5];
	uint64_t changes = agent_channel_changes();
	uint64_t resets = agent_model_resets();
	int k;

	if (!agent_channel_running())
		return;
	/*
	 * Nothing a service reports moved and the model undid nothing since
	 * the last sync: the same model and the same hash.  Skipped, a quiet
	 * agent's poll no longer touches every node's state (cold after each
	 * sleep: a fifth of its CPU with 4 nodes, more with a site's).
	 */
	if (synced.valid && changes == synced.changes &&
	    resets == synced.resets)
		return;
	for (i = 0; i < nn; i++) {
		agent_model_sync_service(i, &dl_conf);
		/* A change of what a node reports is a change of the plan's. */
		agent_channel_view(i, &v);
		x[0] = v.epoch;
		x[1] = v.generation;
		x[2] = (uint64_t)v.connected << 1 | v.complete;
		x[3] = v.c.used;
		x[4] = v.prefetch_done;
		for (k = 0; k < 5; k++)
			fp = agent_fnv_word(fp, x[k]);
	}
	services_fp = fp;
	synced.valid = true;
	synced.changes = changes;
	synced.resets = resets;
}

/* A report queued (agent_acct_on_put()): take it now, not at the poll. */
static void _poke(void)
{
	slurm_mutex_lock(&term_lock);
	slurm_cond_broadcast(&term_cond);
	slurm_mutex_unlock(&term_lock);
}

/*
 * Wait poll_ms or until told; RET false when the thread must stop.
 * *reconf: a reconfigure asked; *submitted: a job gated at submit since
 * (dl_agent_submitted()).
 */
static bool _wait(bool *reconf, bool *submitted, int64_t poll_ms)
{
	struct timespec ts;
	bool stop;

	slurm_mutex_lock(&term_lock);
	if (!stop_agent && !submit_pending) {
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += poll_ms / 1000;
		ts.tv_nsec += (poll_ms % 1000) * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		slurm_cond_timedwait(&term_cond, &term_lock, &ts);
	}
	*reconf = reconfig_pending;
	reconfig_pending = false;
	*submitted = submit_pending;
	submit_pending = false;
	stop = stop_agent;
	slurm_mutex_unlock(&term_lock);
	return !stop;
}

/* The wall clock, to the nanosecond: snapshot_t.clock's. */
static double _wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/*
 * The agent thread's CPU time, s: a cycle's own cost apart from the wall
 * time it took, which on a loaded host includes waiting for a CPU.
 */
static double _thread_cpu(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return 0;
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int64_t _now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * The poll after this one, at monotonic now, polled poll_ms after the
 * last: idle, less often each time; any change but the job stamp's moves
 * for nothing (agent_quiet_poll_reset()), a reconfigure, jobs left
 * unread, holds still due after a step (renewed a step a poll), or a
 * service's report not yet followed: at once.
 */
static int64_t _next_poll(int64_t poll_ms, const agent_stamps_t *cur,
			  const agent_stamps_t *prev, const char *why,
			  bool reconf, int64_t now)
{
	bool reset = agent_quiet_poll_reset(&quiet, cur, prev, why) ||
		     reconf || budget.deferred || quiet.again ||
		     quiet.renew <= (int64_t)time(NULL);

	/*
	 * A report stored since the last sync woke no one if it came while
	 * this thread was not waiting (agent_channel_on_change()): follow it
	 * now, not after a quiet poll.
	 */
	if (synced.valid && agent_channel_changes() != synced.changes)
		reset = true;
	return agent_poll_next(&quiet, poll_ms, reset, now);
}

/*
 * Renew the gate holds due (agent_idle_renew()): the last snapshot's
 * list and a step of the due list.  RET why a cycle is due for it (a hold
 * found run out, a held job with more to do than its renewal), or NULL.
 */
static const char *_renew_step(void)
{
	uint32_t renewed, expired, listed;
	int64_t next;
	bool cycle;

	renewed = agent_idle_renew(dl_conf.gate_max, &next, &expired, &listed,
				   &cycle);
	/*
	 * One run out: due again at each poll until a cycle says so.  One
	 * for a cycle: asked again each second until a cycle took it (a
	 * cycle may have to wait: next_ok, backfill).
	 */
	if (expired)
		next = time(NULL);
	else if (cycle && next > (int64_t)time(NULL) + 1)
		next = time(NULL) + 1;
	agent_quiet_renewed(&quiet, next);
	debug("%s: %u gate holds renewed between cycles (%u from the due list), %u run out%s",
	      pfx, renewed, listed, expired,
	      cycle ? ", a held job for a cycle" : "");
	if (expired)
		return "clock (gate holds run out)";
	return cycle ? "clock (a held job for a cycle)" : NULL;
}

/*
 * What is due instead of a cycle (agent_quiet.h), done here: renew the
 * gate holds due, or look at the inventory files.  Renewals are done when
 * due whatever else is (a step is bounded, DUE_PER_STEP): were they left
 * to the cycles that come meanwhile, a queue submitted at once would be
 * renewed by one cycle, 80,000 holds (agent_snapshot_renew_due()).  RET
 * why a cycle is due (why itself if it is one; a hold found run out, an
 * inventory changed, until a cycle ran), or NULL.
 */
static const char *_between(const char *why, int64_t now)
{
	const char *renew_why = NULL;

	/* What agent_quiet_due() calls "renew", ahead of any cycle due. */
	if (quiet.ran && quiet.renew <= (int64_t)time(NULL))
		renew_why = _renew_step();
	/*
	 * An inventory found changed first: a cycle due for the job stamp
	 * alone may stop unplanned (agent_quiet_between()).
	 */
	why = agent_quiet_between(&quiet, why, renew_why);
	if (!why || strcmp(why, "check"))
		return why;
	if (agent_idle_inventory_changed(dl_conf.cache_dir))
		return agent_quiet_inventory(&quiet);
	agent_quiet_checked(&quiet, now);
	return renew_why;
}

/*
 * Run the cycle due since due_since, found due at now: its own time
 * (last_own_s) counts from its start, not from now, before which the
 * loop's once-a-second steps (the services' reports, the time-limit
 * credits, gate renewals between cycles) may have waited for slurmctld's
 * locks on their own; at 100,000 pending, Slurm's background thread held
 * them up to 2 s, which was then counted as the cycle's.  RET when the
 * next cycle may start.
 */
static int64_t _run_due(const char *why, int64_t now, int64_t due_since)
{
	int64_t begin, end;
	double cpu0;

	debug("%s: cycle %" PRIu64 " due: %s", pfx, cycle_no + 1, why);
	begin = _now_ms();
	cpu0 = _thread_cpu();
	cycle_lock_s = 0;
	/*
	 * A cycle that stops before planning (due for the job stamp, found
	 * in the same poll as a changed inventory) leaves the inventory due:
	 * only a planned one clears it (agent_quiet_ran(), in _cycle()).
	 */
	if (!_cycle(begin, why, _wall() - (double)(begin - due_since) / 1000.0))
		return _now_ms();
	end = _now_ms();
	last_lock_s = cycle_lock_s;
	last_cpu_s = _thread_cpu() - cpu0;
	last_own_s = (double)(end - begin) / 1000.0;
	last_wait_s = (double)(now - due_since) / 1000.0;
	/* A gated job waits for the wait and the cycle. */
	agent_gate_observe(&gate, (double)(end - due_since) / 1000.0);
	_publish_gate();
	return end + agent_budget_gap_ms(end - begin);
}

/*
 * The fingerprint of what _apply_reconfig() reads (agent_reconf.h):
 * datalocality.conf's bytes, the node table's names, SchedulerParameters,
 * JobSubmitPlugins and SlurmUser.  Takes the conf and node read locks,
 * and reads the file after them: a slow file system holds no writer of
 * slurmctld's back.
 */
static uint64_t _conf_fp(void)
{
	slurmctld_lock_t conf_lock = { .conf = READ_LOCK, .node = READ_LOCK };
	uint64_t h = AGENT_FNV_BASIS;
	node_record_t *node_ptr;
	char *path;
	int i;

	lock_slurmctld(conf_lock);
	path = get_extra_conf_path("datalocality.conf");
	h = agent_fnv_u64(h, (uint64_t)node_record_count);
	for (i = 0; (node_ptr = next_node(&i)); i++)
		h = agent_reconf_str(h, node_ptr->name);
	h = agent_reconf_str(h, slurm_conf.sched_params);
	h = agent_reconf_str(h, slurm_conf.job_submit_plugins);
	h = agent_fnv_u64(h, (uint64_t)slurm_conf.slurm_user_id);
	unlock_slurmctld(conf_lock);
	h = agent_reconf_file(h, path);
	xfree(path);
	return h;
}

/*
 * Whether a reconfiguration is to be applied (agent_reconf.h): the first
 * time; else when asked (sched_p_reconfig()) or slurm.conf's stamp moved
 * (or its second, seen, is over), and what a reconfiguration reads
 * changed since r last saw it.  Slurm asks for one at scontrol
 * setdebugflags too, and moves the stamp at setdebug: those change
 * nothing the agent reads.
 */
static bool _reconf_due(bool asked, agent_reconf_t *r)
{
	int64_t stamp = (int64_t)slurm_conf.last_update;
	int64_t now = (int64_t)time(NULL);
	agent_reconf_what_t what;

	if (!agent_reconf_look(r, asked, stamp, now))
		return false;
	what = agent_reconf_seen(r, asked, stamp, now, _conf_fp());
	if (what == AGENT_RECONF_SAME)
		debug("%s: %s, but datalocality.conf, the nodes, SchedulerParameters, JobSubmitPlugins and SlurmUser are as they were (scontrol setdebug, setdebugflags): nothing to reconfigure",
		      pfx, asked ? "Slurm reconfigures its plugins" :
				   "slurm.conf's stamp moved");
	return what == AGENT_RECONF_APPLY;
}

/*
 * Read datalocality.conf and the nodes again (the first time, and at a
 * reconfigure), load the state file for them, (re)start the node channel
 * and warm the policy's helper.
 */
static void _apply_reconfig(void)
{
	slurmctld_lock_t conf_lock = { .conf = READ_LOCK, .node = READ_LOCK };
	agent_channel_conf_t cc;
	uint32_t nn = 0;
	char **names;

	lock_slurmctld(conf_lock);
	names = _reconfigure(&nn);
	_channel_conf(&cc);
	unlock_slurmctld(conf_lock);
	if (names)
		agent_statefile_load(names, nn, &stats, pfx);
	_channel_start(&cc);
	/* Outside the locks: a helper takes 0.25 s to start. */
	dl_policy_warm(policy);
}

/*
 * Plan when agent_quiet.h says a cycle is due (a job was submitted: it
 * waits at its submit hold for its node; nodes, jobs, partitions,
 * reservations or the services' reports changed, at most once a second
 * but for nodes; a clock of ours runs out), unless the last cycle was
 * slow (agent_budget_gap_ms(): twice its time, at most a second), and at
 * once after a cycle that left jobs unread.  When nothing changed, no
 * cycle runs, however long the queue.  A due cycle waits for
 * sched/backfill to end (BACKFILL_WAIT_MS at most).
 */
static void *_agent(void *arg)
{
	int64_t next_ok = 0, now, due_since = -1;
	int64_t last_sync = INT64_MIN / 2;
	int64_t poll_ms = AGENT_POLL_MS;
	agent_reconf_t conf_seen = { 0 };
	agent_stamps_t cur, prev = { 0 };
	const char *why;
	int njobs;
	bool reconf, submitted;

	(void)arg;
	/* Its own name: contrib/bench_wakeups.sh finds it in /proc. */
	prctl(PR_SET_NAME, "dl_agent");
	while (_wait(&reconf, &submitted, poll_ms)) {
		/*
		 * scontrol reconfigure: sched/datalocality hears of it through
		 * sched_p_reconfig(), the plugstack entry point only from
		 * slurm.conf's stamp; either is applied only if what it reads
		 * changed (_reconf_due()).
		 */
		reconf = _reconf_due(reconf, &conf_seen);
		if (reconf)
			_apply_reconfig();
		/* What staging found, into AdminComment before jobs end. */
		agent_acct_apply(pfx);
		/* The copy rates they taught, for the next plan. */
		agent_acct_rates(&dl_conf, pfx);
		if (!agent_model_cache() || !policy)
			continue;
		now = _now_ms();
		if (now - last_sync >= SYNC_MS) {
			_sync_services();
			last_sync = now;
			/* Staging is not charged to a limit (once a second). */
			agent_timelimit_apply(&dl_conf, pfx);
		}
		njobs = job_list ? list_count(job_list) : 0;
		_trim_when_shrunk(njobs);
		_stamps(&cur, njobs, false);
		why = _between(agent_quiet_due(&quiet, &cur, now, time(NULL)),
			       now);
		agent_quiet_polled(&quiet, &cur, time(NULL));
		poll_ms = _next_poll(poll_ms, &cur, &prev, why, reconf, now);
		/*
		 * job_submit runs before Slurm makes the job's record: look
		 * again soon, until the record is there (the job count moves,
		 * a cycle is due, agent_quiet_due()).
		 */
		if (submitted) {
			debug("%s: woken by a job gated at submit", pfx);
			poll_ms = AGENT_POLL_MS;
		}
		prev = cur;
		if (reconf)
			why = "reconfigure";
		else if (now < next_ok)
			continue;
		else if (budget.deferred)
			why = "jobs left unread";
		if (!why)
			continue;
		if (due_since < 0)
			due_since = now;
		if (!reconf && slurmctld_diag_stats.bf_active &&
		    now - due_since < BACKFILL_WAIT_MS)
			continue;
		next_ok = _run_due(why, now, due_since);
		due_since = -1;
		/* A planned cycle ended the quiet spell (agent_poll.h). */
		poll_ms = agent_poll_after_cycle(&quiet, poll_ms, _now_ms());
	}
	return NULL;
}

int dl_agent_start(const char *plugin_type)
{
	slurm_mutex_lock(&term_lock);
	if (agent_tid) {
		slurm_mutex_unlock(&term_lock);
		return SLURM_ERROR;
	}
	pfx = plugin_type;
	stop_agent = false;
	reconfig_pending = true;
	submit_pending = false;
	memset(&stats, 0, sizeof(stats));
	memset(&gate, 0, sizeof(gate));
	memset(&quiet, 0, sizeof(quiet));
	services_fp = 0;
	memset(&synced, 0, sizeof(synced));
	last_own_s = last_wait_s = last_lock_s = last_cpu_s = 0;
	gate_published = 0;
	jobs_read = 0;
	tasks_split = 0;
	cycles_unchanged = 0;
	last_fp = 0;
	memset(&peek, 0, sizeof(peek));
	agent_jobs_init();
	agent_acct_on_put(_poke);
	agent_channel_on_change(_poke);
	slurm_thread_create(&agent_tid, _agent, NULL);
	slurm_mutex_unlock(&term_lock);
	return SLURM_SUCCESS;
}

void dl_agent_stop(void)
{
	slurm_mutex_lock(&term_lock);
	if (!agent_tid) {
		slurm_mutex_unlock(&term_lock);
		return;
	}
	stop_agent = true;
	slurm_cond_broadcast(&term_cond);
	slurm_mutex_unlock(&term_lock);
	agent_acct_on_put(NULL);
	agent_channel_on_change(NULL);
	pthread_join(agent_tid, NULL);
	agent_tid = 0;
	agent_channel_stop();
	/* Whatever changed since the last save must survive the restart. */
	if (last_st)
		agent_statefile_save(last_plan, last_st, &stats, pfx);
	dl_plan_free(last_plan);
	last_plan = NULL;
	dl_state_destroy(last_st);
	last_st = NULL;
	dl_policy_destroy(policy);
	policy = NULL;
	agent_prefetch_fini();
	agent_array_pace_fini();
	agent_idle_fini();
	agent_snapshot_fini();
	agent_model_fini();
	agent_jobs_fini();
	agent_history_fini();
	agent_conf_free(&dl_conf);
	agent_budget_end(&budget);
	xfree(node_freed);
	node_nfreed = 0;
}

void dl_agent_submitted(void)
{
	slurm_mutex_lock(&term_lock);
	/* Not agent_tid: dl_agent_stop() clears it without this lock. */
	if (!stop_agent && !submit_pending) {
		submit_pending = true;
		slurm_cond_broadcast(&term_cond);
	}
	slurm_mutex_unlock(&term_lock);
}

void dl_agent_reconfig(void)
{
	slurm_mutex_lock(&term_lock);
	reconfig_pending = true;
	/* Not a quiet poll later: the new settings hold from now. */
	slurm_cond_broadcast(&term_cond);
	slurm_mutex_unlock(&term_lock);
}
