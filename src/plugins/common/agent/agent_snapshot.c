/*
 * agent_snapshot.c - copying what a plan needs from slurmctld; see
 * agent_snapshot.h.
 */
#include <string.h>
#include <stdlib.h>
#include <time.h>

#include "src/common/slurm_xlator.h"

#include "src/common/bitstring.h"
#include "src/common/job_resources.h"
#include "src/common/list.h"
#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "dl_compat.h"
#include "dl_slurm.h"
#include "agent_fit.h"
#include "agent_fnv.h"
#include "agent_array.h"
#include "agent_ended.h"
#include "agent_gate.h"
#include "agent_het.h"
#include "agent_mark.h"
#include "agent_peek.h"
#include "agent_quiet.h"
#include "agent_jobs.h"
#include "agent_snapshot.h"
#include "agent_window.h"

/*
 * A pending job whose begin time is this close is planned already, so
 * that it has its node before Slurm may start it.
 */
#define SOON_SECONDS 5

/*
 * A walk that skips the jobs below the floors (agent_window.h) reads
 * every job in full at least this often, for what a skipped job may need
 * that the walk does not see (a gate let go unplaced since is said then).
 */
#define FULL_WALK_MAX_S 300
/*
 * Gate holds a cycle renews from the due list at most, those with less
 * than a quarter of their hold left aside (renewed whatever the count).
 * The due list is the between-cycles renewer's (agent_snapshot_renew_due()):
 * a cycle takes what came due meanwhile, so that a queue submitted at once
 * is not renewed by the cycle that finds it due (80,000 holds in one
 * cycle: its CPU p99).
 */
#define DUE_PER_CYCLE 2000
/*
 * Holds the due list renews between cycles per step, under the job write
 * lock (agent_snapshot_renew_due()): a look-up and a few fields each,
 * about a millisecond; more due, the next step comes at the next poll.
 */
#define DUE_PER_STEP 2000

/*
 * What the last full walk kept for the walks after it (agent thread
 * only; its due list is malloc'd, freed by agent_snapshot_fini()), and
 * the walk under way: whether it reads every job, and the highest job id
 * the walks before it saw (a job above it is new: read in full once).
 */
static agent_window_keep_t keep;
static struct {
	bool full;
	uint32_t seen_max, max_id;
	time_t last_now;        /* the last snapshot's time (0: none yet) */
	time_t first_now;       /* the first one's since the agent started,
				 * or since its job records were emptied */
	uint64_t records_gen;   /* agent_jobs_generation() then */
	bool taking;            /* reading the jobs the due list gave */
	bool defer;             /* a full walk's job below the new floors */
	uint32_t deferred;      /* of those, half gone, left to the list */
} walk;

/* Time alone may change the plan at t (agent_quiet.h): keep the earliest. */
static void _wake_at(snapshot_t *s, int64_t t)
{
	if (t < s->wake)
		s->wake = t;
}

/* A renewal is due at t: the agent renews it between cycles. */
static void _renew_wake(snapshot_t *s, int64_t t)
{
	if (t < s->renew_wake)
		s->renew_wake = t;
}

/*
 * A gate hold to renew at t: listed for the agent's renewals between
 * cycles (agent_gate.h), up to SNAPSHOT_RENEW_MAX; beyond, a cycle's.
 */
static void _renew_at(snapshot_t *s, job_record_t *job_ptr, time_t ubegin,
		      int64_t t)
{
	agent_gate_renew_t *r;

	if (s->nrenew >= SNAPSHOT_RENEW_MAX) {
		_wake_at(s, t);
		return;
	}
	if (!s->renew)
		s->renew = xcalloc(SNAPSHOT_RENEW_MAX, sizeof(*s->renew));
	r = &s->renew[s->nrenew++];
	r->job_id = job_ptr->job_id;
	r->release_to = agent_gate_release_to(ubegin,
					      job_ptr->details->submit_time);
	_renew_wake(s, t);
}

/*
 * Slurm's own notion of a node that can take work: avail_node_bitmap
 * (up, not drained, responding: after a slurmctld restart, a node is in it
 * only once it registered again), plus the states it does not cover.  A
 * powered-down node is in it (Slurm resumes it for a job it allocates
 * there, avoiding it while it can), one powering down is not: the plan
 * prices the resume (the node's wake time, dl_place_warm()).
 */
static bool _node_usable(node_record_t *node_ptr)
{
	return avail_node_bitmap &&
	       bit_test(avail_node_bitmap, node_ptr->index) &&
	       !IS_NODE_FUTURE(node_ptr) && !IS_NODE_POWERING_DOWN(node_ptr);
}

/* Slurm's ResumeTimeout for a node: its partitions', else slurm.conf's. */
static uint16_t _resume_timeout(node_record_t *node_ptr)
{
	uint16_t t = node_ptr->resume_timeout;

	if (!t || t == NO_VAL16 || t == INFINITE16)
		t = slurm_conf.resume_timeout;
	if (!t || t == NO_VAL16 || t == INFINITE16)
		t = DEFAULT_RESUME_TIMEOUT;
	return t;
}

static dl_power_t _node_power(node_record_t *node_ptr)
{
	if (IS_NODE_POWERING_DOWN(node_ptr))
		return DL_POWER_SUSPENDING;
	if (IS_NODE_POWERING_UP(node_ptr))
		return DL_POWER_RESUMING;
	if (IS_NODE_POWERED_DOWN(node_ptr))
		return DL_POWER_DOWN;
	return DL_POWER_UP;
}

int32_t agent_snapshot_ours(job_record_t *job_ptr)
{
	job_details_t *d = job_ptr->details;
	const char *sc = job_ptr->system_comment;
	node_record_t *node_ptr;
	char *names;
	size_t len;
	bool mine;
	int i;

	if (!d || !d->req_node_bitmap || !sc ||
	    strncmp(sc, DL_SC_PLACED, strlen(DL_SC_PLACED)))
		return -1;
	if ((i = bit_ffs(d->req_node_bitmap)) < 0 ||
	    !(node_ptr = node_record_table_ptr[i]))
		return -1;
	sc += strlen(DL_SC_PLACED);
	/*
	 * A multi-node job's set is named as Slurm ranges it (n[3-4]); a
	 * single node by its name, without an allocation: this runs for
	 * every queued job at every cycle.
	 */
	names = bit_set_count(d->req_node_bitmap) == 1 ?
			NULL :
			bitmap2node_name(d->req_node_bitmap);
	len = strlen(names ? names : node_ptr->name);
	/* The user changed the list since: it is theirs now. */
	mine = !strncmp(sc, names ? names : node_ptr->name, len) &&
	       (!sc[len] || sc[len] == ' ');
	xfree(names);
	if (!mine)
		return -1;
	/* Or set it again, to the same node (agent_mark.h). */
	if (agent_mark_known(job_ptr->job_id) &&
	    (!d->req_nodes || xsize(d->req_nodes) != AGENT_MARK_SIZE))
		return -1;
	return i;
}

/*
 * Single node, no required nodes of the user's own.  A hetjob's
 * component is placed as a job of its own, under agent_het.h's rules.
 */
static bool _single_node(job_record_t *job_ptr, int32_t ours)
{
	job_details_t *d = job_ptr->details;

	/* An array's own record is never placed, its tasks are. */
	if (!d || agent_array_meta(job_ptr) ||
	    (d->req_node_bitmap && ours < 0))
		return false;
	if (d->min_nodes > 1 || (d->max_nodes && d->max_nodes != NO_VAL &&
				 d->max_nodes > 1))
		return false;
	return true;
}

/*
 * A job of a fixed k > 1 nodes (a hetjob's component too, agent_het.h),
 * without a list of the user's own: RET k, the set agent_multi.h may
 * restrict it to; 0 for any other job.
 */
static uint32_t _set_nodes(job_record_t *job_ptr, int32_t ours)
{
	job_details_t *d = job_ptr->details;

	if (!d || agent_array_meta(job_ptr) ||
	    (d->req_node_bitmap && ours < 0) || d->min_nodes < 2 ||
	    d->min_nodes == NO_VAL)
		return 0;
	if (d->max_nodes && d->max_nodes != NO_VAL &&
	    d->max_nodes != d->min_nodes)
		return 0;
	return d->min_nodes;
}

/* The nodes of a job: its plugin's list (pending) or allocation. */
static uint8_t *_node_bytes(bitstr_t *b, uint32_t nnodes)
{
	uint8_t *out = xcalloc(nnodes ? nnodes : 1, 1);
	uint32_t i;

	for (i = 0; b && i < nnodes && i < (uint32_t)bit_size(b); i++)
		out[i] = bit_test(b, i) ? 1 : 0;
	return out;
}

/*
 * Drop the nodes of advance reservations the job is not in that are active
 * or start within RESV_HORIZON: Slurm would keep it off them ("may be
 * reserved for other job"), and since they look idle the wait for them
 * would never count as blocked.  FLEX reservations, which let jobs
 * outside use idle nodes, are left out too: little is lost.
 */
#define RESV_HORIZON 300
static void _not_reserved(job_record_t *job_ptr, bitstr_t *b)
{
	slurmctld_resv_t *resv_ptr;
	time_t now = time(NULL);
	list_itr_t *it;

	if (!resv_list)
		return;
	it = list_iterator_create(resv_list);
	while ((resv_ptr = list_next(it))) {
		if (resv_ptr == job_ptr->resv_ptr || !resv_ptr->node_bitmap ||
		    resv_ptr->end_time <= now ||
		    resv_ptr->start_time > now + RESV_HORIZON)
			continue;
		bit_and_not(b, resv_ptr->node_bitmap);
	}
	list_iterator_destroy(it);
}

/*
 * Nodes the job may be restricted to: those of its partitions (all of
 * them, for a job submitted to several), minus its excluded ones, within
 * its reservation, and with the CPUs, memory and features it asks for.  A
 * restriction Slurm can never satisfy would make the main scheduler fail
 * the job, so anything doubtful is left out.
 */
static void _eligible(job_record_t *job_ptr, snap_job_t *sj, uint32_t nnodes)
{
	bitstr_t *b = bit_alloc(node_record_count);
	job_details_t *d = job_ptr->details;
	node_record_t *node_ptr;
	part_record_t *part_ptr;
	list_itr_t *it;
	int i;

	if (job_ptr->part_ptr_list) {
		it = list_iterator_create(job_ptr->part_ptr_list);
		while ((part_ptr = list_next(it)))
			if (part_ptr->node_bitmap)
				bit_or(b, part_ptr->node_bitmap);
		list_iterator_destroy(it);
	} else if (job_ptr->part_ptr && job_ptr->part_ptr->node_bitmap) {
		bit_or(b, job_ptr->part_ptr->node_bitmap);
	}
	if (d->exc_node_bitmap)
		bit_and_not(b, d->exc_node_bitmap);
	if (job_ptr->resv_ptr && job_ptr->resv_ptr->node_bitmap)
		bit_and(b, job_ptr->resv_ptr->node_bitmap);
	_not_reserved(job_ptr, b);
	if (job_req_node_filter(job_ptr, b, true) != SLURM_SUCCESS)
		bit_clear_all(b);
	sj->eligible = xcalloc(nnodes ? nnodes : 1, 1);
	for (i = 0; (node_ptr = next_node(&i)); i++)
		if ((uint32_t)i < nnodes && bit_test(b, i) &&
		    agent_fit_node_cpus(job_ptr) <= node_ptr->cpus &&
		    agent_fit_gres_ever(job_ptr, node_ptr))
			sj->eligible[i] = 1;
	FREE_NULL_BITMAP(b);
}

/* Where Slurm could start it now (agent_fit.h): eligible nodes only. */
static void _fits(snapshot_t *s, job_record_t *job_ptr, snap_job_t *sj)
{
	node_record_t *node_ptr;
	int i;

	sj->fits = xcalloc(s->nnodes ? s->nnodes : 1, 1);
	for (i = 0; (node_ptr = next_node(&i)); i++)
		if ((uint32_t)i < s->nnodes && sj->eligible[i] &&
		    agent_fit_now(job_ptr, node_ptr, s->usable[i],
				  s->cpus[i] > s->busy[i] ?
					  s->cpus[i] - s->busy[i] : 0,
				  s->mem_alloc[i]))
			sj->fits[i] = 1;
}

/*
 * Whether nothing but Slurm's choice of a moment (or the gate, which
 * holds it for us) keeps it from starting: the jobs Slurm's schedulers
 * queue.
 */
static bool _runnable(job_record_t *job_ptr, bool gated, time_t now)
{
	switch (job_ptr->state_reason) {
	case WAIT_DEPENDENCY:
	case WAIT_HELD:
	case WAIT_HELD_USER:
	case WAIT_DEP_INVALID:
	case FAIL_BAD_CONSTRAINTS:
		return false;
	default:
		break;
	}
	return job_ptr->priority != 0 &&
	       (gated || job_ptr->details->begin_time <= now + SOON_SECONDS);
}

/* The value of a job's SPANK environment entry name (a pointer into it). */
static const char *_env(job_record_t *job_ptr, const char *name)
{
	size_t len = strlen(name);
	uint32_t i;

	for (i = 0; i < job_ptr->spank_job_env_size; i++) {
		const char *e = job_ptr->spank_job_env[i];

		if (!xstrncmp(e, "SPANK_", 6))
			e += 6;
		if (!xstrncmp(e, name, len) && e[len] == '=')
			return e + len + 1;
	}
	return NULL;
}

/*
 * What the gate and the rescue of a failed restriction need of a pending
 * job: read once per cycle, since every queued job is walked (the part of
 * a cycle that grows with the queue).
 */
typedef struct {
	int32_t ours;
	uint32_t gate_bound;
	time_t ubegin;
	bool sc_stale, widened, gated, gate_expired, gate_noted, failed;
} light_t;

/*
 * Held back at submit until placed, or let go unplaced by the gate's clock
 * (agent_gate.h).  A requeued job's gate is long gone.
 */
static void _gate(job_record_t *job_ptr, light_t *sj, time_t now)
{
	job_details_t *d = job_ptr->details;
	const char *sc = job_ptr->system_comment;
	bool marked = d && !job_ptr->restart_cnt &&
		      agent_gate_mark_parse(_env(job_ptr, AGENT_GATE_ENV),
					    &sj->gate_bound, &sj->ubegin);
	agent_gate_state_t st;

	if (!marked || sj->ours >= 0 || sj->widened)
		return;
	/*
	 * A job that is no longer pending was let go by the gate's clock
	 * only if its hold had ended when it started (or was cancelled:
	 * Slurm sets start_time then too); one cancelled while held was
	 * not let go, however its begin time passes after.
	 */
	st = agent_gate_state(true, sj->ubegin, d->begin_time, d->submit_time,
			      IS_JOB_PENDING(job_ptr) ? now :
							job_ptr->start_time);
	sj->gated = st == AGENT_GATE_HELD && IS_JOB_PENDING(job_ptr);
	sj->gate_expired = st == AGENT_GATE_EXPIRED;
	sj->gate_noted = sc && !strncmp(sc, DL_SC_RELEASED,
					strlen(DL_SC_RELEASED));
}

/* Add a running job's allocated CPUs to its nodes' busy counts. */
static void _count_busy(snapshot_t *s, job_record_t *job_ptr)
{
	job_resources_t *jr = job_ptr->job_resrcs;
	int i, k = 0;

	if (!jr || !jr->node_bitmap || !jr->cpus)
		return;
	for (i = 0; i < (int)s->nnodes && k < (int)jr->nhosts; i++)
		if (bit_test(jr->node_bitmap, i)) {
			if (jr->memory_allocated)
				s->mem_alloc[i] += jr->memory_allocated[k];
			s->busy[i] += jr->cpus[k++];
		}
}

/* A job name as a history key; also a node's features and GRES. */
static uint64_t _hash(const char *s)
{
	return agent_fnv_str(AGENT_FNV_BASIS_SHORT, s);
}

/* The #DL annotation job_submit left in the job's SPANK environment. */
static char *_script_files(job_record_t *job_ptr)
{
	return xstrdup(_env(job_ptr, DL_ENV_FILES));
}

static double _limit(job_record_t *job_ptr)
{
	uint32_t m = job_ptr->time_limit;

	if (m == NO_VAL || m == INFINITE) {
		m = job_ptr->part_ptr ? job_ptr->part_ptr->max_time : NO_VAL;
		if (m == NO_VAL || m == INFINITE)
			return -1;
	}
	return 60.0 * m;
}

/* What the gate and the rescue of a failed restriction need of a job. */
static void _light(time_t now, job_record_t *job_ptr, light_t *l)
{
	const char *sc = job_ptr->system_comment;

	memset(l, 0, sizeof(*l));
	l->ours = agent_snapshot_ours(job_ptr);
	l->sc_stale = l->ours < 0 && sc &&
		      !strncmp(sc, DL_SC_PLACED, strlen(DL_SC_PLACED));
	l->widened = sc && !strncmp(sc, DL_SC_WIDENED, strlen(DL_SC_WIDENED));
	_gate(job_ptr, l, now);
	l->failed = job_ptr->state_reason == FAIL_BAD_CONSTRAINTS;
}

/* The light part of a snapshot job, from its light_t l. */
static void _put_light(job_record_t *job_ptr, const light_t *l,
		       snap_job_t *sj)
{
	sj->job_id = job_ptr->job_id;
	sj->running = !IS_JOB_PENDING(job_ptr);
	sj->ended = !IS_JOB_PENDING(job_ptr) && !IS_JOB_RUNNING(job_ptr);
	sj->ours = l->ours;
	sj->sc_stale = l->sc_stale;
	sj->widened = l->widened;
	sj->node = -1;
	sj->task_id = agent_snapshot_task_id(job_ptr);
	sj->array_job_id = job_ptr->array_job_id;
	sj->het_job_id = job_ptr->het_job_id;
	sj->gate_bound = l->gate_bound;
	sj->ubegin = l->ubegin;
	sj->gated = l->gated;
	sj->gate_expired = l->gate_expired;
	sj->gate_noted = l->gate_noted;
	sj->failed = l->failed;
}

/*
 * A gated job of the window whose hold would run out before this cycle
 * places it: listed for agent_apply_hurry() (see agent_gate.h).
 */
static void _hurry(snapshot_t *s, job_record_t *job_ptr, const light_t *l,
		   const snapshot_conf_t *c)
{
	job_details_t *d = job_ptr->details;
	size_t cap = s->hurry ? xsize(s->hurry) / sizeof(*s->hurry) : 0;
	time_t to = agent_gate_hurry_to(
		d->begin_time, agent_gate_release_to(l->ubegin, d->submit_time),
		d->submit_time, s->now, c->gate_cycle, c->gate_hold);

	if (to == d->begin_time)
		return;
	if (s->nhurry >= cap)
		xrecalloc(s->hurry, 2 * cap + 16, sizeof(*s->hurry));
	s->hurry[s->nhurry++] = (agent_gate_hurry_t){
		.job_id = job_ptr->job_id, .begin = d->begin_time, .to = to
	};
}

/* A job's light part; c: for a pending one, of the window. */
static void _copy_light(snapshot_t *s, job_record_t *job_ptr, snap_job_t *sj,
			const snapshot_conf_t *c)
{
	light_t l;

	_light(s->now, job_ptr, &l);
	_put_light(job_ptr, &l, sj);
	/* Held at its gate to be placed, or let go: a cycle a second. */
	if (IS_JOB_PENDING(job_ptr) &&
	    (l.gated || (l.gate_expired && !l.gate_noted)))
		_wake_at(s, AGENT_QUIET_LIVE);
	if (IS_JOB_PENDING(job_ptr) && l.gated && job_ptr->details)
		_hurry(s, job_ptr, &l, c);
}

/*
 * A new job of the snapshot, zeroed: s->jobs grows as needed (xsize() is
 * its capacity), rather than one entry per job record at every cycle.
 * Entries past njobs are zero (xrecalloc(), and _short() zeroes those it
 * gives back).
 */
static snap_job_t *_push(snapshot_t *s)
{
	size_t cap = s->jobs ? xsize(s->jobs) / sizeof(snap_job_t) : 0;

	if (s->njobs >= cap)
		xrecalloc(s->jobs, 2 * cap + 64, sizeof(snap_job_t));
	return &s->jobs[s->njobs++];
}

/*
 * The task id a job's %a patterns expand to: a pending array's own record
 * (tasks not split off yet, array_recs with pending tasks) stands for
 * many, so it is unknown; a job outside an array has none.
 */
uint32_t agent_snapshot_task_id(struct job_record *job_ptr)
{
	if (job_ptr->array_recs && job_ptr->array_recs->task_id_bitmap &&
	    job_ptr->array_task_id == NO_VAL)
		return DL_PATTERN_UNKNOWN;
	return job_ptr->array_task_id == NO_VAL ? DL_PATTERN_NONE :
						  job_ptr->array_task_id;
}

/*
 * Every node a job ran on, for the model (agent_model_job_ran_on()): its
 * allocation's bitmap, which a completing job keeps while node_bitmap
 * loses each node as it is released.
 */
static void _ran_on(snapshot_t *s, job_record_t *job_ptr, snap_job_t *sj)
{
	bitstr_t *b = job_ptr->job_resrcs && job_ptr->job_resrcs->node_bitmap ?
			      job_ptr->job_resrcs->node_bitmap :
			      job_ptr->node_bitmap;
	uint32_t i, n = b ? (uint32_t)bit_size(b) : 0;

	if (!b || bit_set_count(b) < 2)
		return;
	sj->ran = xcalloc(bit_set_count(b), sizeof(int32_t));
	for (i = 0; i < s->nnodes && i < n; i++)
		if (bit_test(b, i))
			sj->ran[sj->nran++] = (int32_t)i;
}

static void _copy_job(snapshot_t *s, job_record_t *job_ptr, snap_job_t *sj,
		      const snapshot_conf_t *c)
{
	agent_job_t *ji = agent_jobs_get(job_ptr->job_id, false);

	_copy_light(s, job_ptr, sj, c);
	sj->priority = job_ptr->priority;
	sj->submit = job_ptr->details ? job_ptr->details->submit_time : 0;
	sj->start = job_ptr->start_time;
	sj->end = job_ptr->end_time;
	sj->name = _hash(job_ptr->name);
	sj->uid = job_ptr->user_id;
	sj->gid = job_ptr->group_id;
	sj->cpus = job_ptr->details && job_ptr->details->min_cpus ?
			   job_ptr->details->min_cpus : 1;
	sj->node = sj->running ? bit_ffs(job_ptr->node_bitmap) : -1;
	if (sj->running)
		_ran_on(s, job_ptr, sj);
	sj->limit = _limit(job_ptr);
	/* A changed comment is read again (issue 26, item 3). */
	if (ji && !sj->running)
		agent_jobs_changed(ji, job_ptr->comment);
	if (!ji || !ji->parsed || ji->task_id != sj->task_id) {
		sj->comment = xstrdup(job_ptr->comment);
		sj->jname = xstrdup(job_ptr->name);
		sj->bb = xstrdup(job_ptr->burst_buffer);
		sj->script_files = _script_files(job_ptr);
	}
	if (sj->running || !job_ptr->details)
		return;
	sj->min_nodes = job_ptr->details->min_nodes;
	sj->for_resources = job_ptr->state_reason == WAIT_RESOURCES ||
			    job_ptr->state_reason == WAIT_NO_REASON;
	sj->runnable = _runnable(job_ptr, sj->gated, s->now);
	sj->placeable = _single_node(job_ptr, sj->ours);
	sj->set_k = sj->placeable ? 0 : _set_nodes(job_ptr, sj->ours);
	sj->node_need = sj->set_k ? agent_fit_node_cpus(job_ptr) : 0;
	sj->node_take = sj->set_k ?
				agent_fit_node_take(job_ptr, sj->node_need) : 0;
	if (sj->set_k && sj->ours >= 0)
		sj->req = _node_bytes(job_ptr->details->req_node_bitmap,
				      s->nnodes);
	if ((sj->placeable || sj->set_k) && sj->runnable) {
		_eligible(job_ptr, sj, s->nnodes);
		_fits(s, job_ptr, sj);
	}
	if (sj->placeable && sj->eligible && sj->ours >= 0 &&
	    (uint32_t)sj->ours < s->nnodes)
		sj->leave_why = agent_fit_leave_why(
			job_ptr, sj->ours, sj->eligible[sj->ours],
			s->now + RESV_HORIZON);
}

/*
 * A job that ended since the last cycle: its run time is learnt, and if it
 * started and ended between two cycles, its start is reported and its
 * files recorded all the same, whether or not a cycle saw it before
 * (agent_ended.h).
 */
static bool _ended_since(job_record_t *job_ptr)
{
	agent_ended_job_t j = { 0 };
	agent_job_t *ji;

	/*
	 * Never started (cancelled while pending): agent_ended_copy() says
	 * no too, but this spares the look-up for each such job at each walk
	 * while Slurm keeps it (MinJobAge).
	 */
	if (IS_JOB_PENDING(job_ptr) || !job_ptr->start_time)
		return false;
	ji = agent_jobs_get(job_ptr->job_id, false);
	j.known = ji != NULL;
	j.read = ji && ji->parsed;
	j.start_logged = ji && ji->start_logged;
	j.finished = ji && ji->finished;
	j.start = job_ptr->start_time;
	j.end = job_ptr->end_time;
	return agent_ended_copy(&j, walk.last_now, walk.first_now);
}

static void _copy_nodes(snapshot_t *s)
{
	node_record_t *node_ptr;
	int i;

	s->nnodes = node_record_count;
	s->names = xcalloc(s->nnodes ? s->nnodes : 1, sizeof(char *));
	s->cpus = xcalloc(s->nnodes ? s->nnodes : 1, sizeof(uint32_t));
	s->busy = xcalloc(s->nnodes ? s->nnodes : 1, sizeof(uint32_t));
	s->usable = xcalloc(s->nnodes ? s->nnodes : 1, sizeof(uint8_t));
	s->power = xcalloc(s->nnodes ? s->nnodes : 1, sizeof(uint8_t));
	s->boot_req = xcalloc(s->nnodes ? s->nnodes : 1, sizeof(time_t));
	s->resume_timeout = xcalloc(s->nnodes ? s->nnodes : 1,
				    sizeof(uint16_t));
	s->mem_alloc = xcalloc(s->nnodes ? s->nnodes : 1, sizeof(uint64_t));
	s->unserving = xcalloc(s->nnodes ? s->nnodes : 1, sizeof(char *));
	for (i = 0; (node_ptr = next_node(&i)); i++) {
		s->names[i] = xstrdup(node_ptr->name);
		s->cpus[i] = node_ptr->cpus_efctv ? node_ptr->cpus_efctv :
						    node_ptr->cpus;
		s->usable[i] = _node_usable(node_ptr);
		s->power[i] = _node_power(node_ptr);
		s->boot_req[i] = node_ptr->boot_req_time;
		s->resume_timeout[i] = _resume_timeout(node_ptr);
		s->unserving[i] = agent_fit_cannot_serve(node_ptr);
		/* The plan prices what is left of a resume. */
		if (s->power[i] == DL_POWER_RESUMING ||
		    s->power[i] == DL_POWER_SUSPENDING)
			_wake_at(s, AGENT_QUIET_LIVE);
	}
	for (i = 0; i < (int)s->nnodes; i++)
		if (!s->names[i])
			s->names[i] = xstrdup("?");
}

/*
 * The pending jobs Slurm queues, each once per partition it may run in, for
 * the planning window (agent_window.h): pend[idx] is the job of idx.
 */
typedef struct {
	job_record_t **pend;    /* xmalloc'd, pcap entries, npend written */
	light_t *light;         /* of pend[idx], read when it was queued */
	uint32_t npend, pcap;
	agent_window_cand_t *cand;
	uint32_t ncand, cap;
} queued_t;

static void _queue(queued_t *q, job_record_t *job_ptr, const light_t *l)
{
	part_record_t *part_ptr;
	list_itr_t *it;
	uint32_t idx = q->npend++;
	agent_window_cand_t c = {
		.priority = job_ptr->priority,
		.submit = job_ptr->details->submit_time,
		.job_id = job_ptr->job_id,
		.idx = idx,
	};

	/*
	 * Grown as jobs are queued, not sized by the whole queue at every
	 * cycle: a walk that skips queues a few thousand of 100,000.
	 */
	if (idx >= q->pcap) {
		q->pcap = 2 * q->pcap + 1024;
		xrealloc_nz(q->pend, q->pcap * sizeof(*q->pend));
		xrealloc_nz(q->light, q->pcap * sizeof(*q->light));
	}
	q->pend[idx] = job_ptr;
	q->light[idx] = *l;
	if (q->ncand + (job_ptr->part_ptr_list ?
			list_count(job_ptr->part_ptr_list) : 1) > q->cap) {
		q->cap = 2 * q->cap + 64 +
			 (job_ptr->part_ptr_list ?
				  list_count(job_ptr->part_ptr_list) : 0);
		xrecalloc(q->cand, q->cap, sizeof(*q->cand));
	}
	if (!job_ptr->part_ptr_list) {
		c.part = (uintptr_t)job_ptr->part_ptr;
		q->cand[q->ncand++] = c;
		return;
	}
	it = list_iterator_create(job_ptr->part_ptr_list);
	while ((part_ptr = list_next(it))) {
		c.part = (uintptr_t)part_ptr;
		q->cand[q->ncand++] = c;
	}
	list_iterator_destroy(it);
}

/*
 * Whether the job ranks below the floor of partition part: its priority
 * decides but at the floor's own, so that its submit time (in its
 * details, another allocation: a cache miss per job of a long queue) is
 * read only then.
 */
static bool _below_part(job_record_t *job_ptr, part_record_t *part_ptr)
{
	int r = agent_window_keep_below_prio(&keep, (uintptr_t)part_ptr,
					     job_ptr->priority);

	if (r >= 0)
		return r;
	return agent_window_keep_below(&keep, (uintptr_t)part_ptr,
				       job_ptr->priority,
				       job_ptr->details->submit_time,
				       job_ptr->job_id);
}

/*
 * Whether a walk that skips may skip the job: ranked below the floor of
 * each of its partitions (agent_window.h), and not new since the last
 * walk.  Reads its priority and partitions, its submit time only on a
 * tie with a floor.
 */
static bool _below(job_record_t *job_ptr, uint32_t max_id)
{
	part_record_t *part_ptr;
	list_itr_t *it;
	bool below = true;

	/* Never skipped: a restriction to rescue, a requeued job. */
	if (!keep.valid || job_ptr->job_id > max_id || !job_ptr->details ||
	    job_ptr->state_reason == FAIL_BAD_CONSTRAINTS ||
	    job_ptr->restart_cnt)
		return false;
	if (!job_ptr->part_ptr_list)
		return _below_part(job_ptr, job_ptr->part_ptr);
	it = list_iterator_create(job_ptr->part_ptr_list);
	while (below && (part_ptr = list_next(it)))
		below = _below_part(job_ptr, part_ptr);
	list_iterator_destroy(it);
	return below;
}

/* What a walk does with a job: _walk() and agent_snapshot_peek() alike. */
typedef enum {
	WALK_READ,	/* read (and hashed) */
	WALK_NONE,	/* a pending job without details: never read */
	WALK_SKIP,	/* below the floors in a walk that skips: counted */
} walk_kind_t;

static walk_kind_t _walk_kind(job_record_t *job_ptr, bool skips,
			      uint32_t max_id)
{
	if (!IS_JOB_PENDING(job_ptr))
		return WALK_READ;
	if (!job_ptr->details)
		return WALK_NONE;
	return skips && _below(job_ptr, max_id) ? WALK_SKIP : WALK_READ;
}

/*
 * A gated job outside the window, in the due list when the walks to come
 * may skip it: its hold is renewed when half gone (when it is copied
 * for that now, renewing, once renewed by this cycle) by looking it up,
 * not by walking the queue.  A full walk keeps every one (the floors come
 * after it), a walk that skips the new jobs below the floors and those
 * the list gave back, still held.
 */
static void _due(snapshot_t *s, job_record_t *job_ptr,
		 const snapshot_conf_t *c, bool renewing)
{
	int64_t begin = job_ptr->details->begin_time;
	int64_t due = renewing ? (int64_t)s->now + c->gate_hold / 2 :
				 begin - c->gate_hold / 2;

	if (walk.full || walk.taking ||
	    (job_ptr->job_id > walk.seen_max && _below(job_ptr, UINT32_MAX)))
		(void)agent_window_keep_due_add(&keep, job_ptr->job_id, due);
}

/*
 * Whether a gated job outside the window is copied for its hold to be
 * renewed now: once half of it is gone.  But a full walk's job below the
 * new floors (walk.defer) only once a quarter is left, as the due list's
 * urgent ones: the others, due, go to the due list and are renewed a
 * step at a time between cycles (agent_snapshot_renew_due()), since a
 * full walk at 100,000 gated jobs
 * found some 60,000 half gone, renewed in one cycle of 250 ms (and due
 * again together, hold / 2 later).  Either is renewed long before its
 * hold runs out.
 */
static bool _renewing(snapshot_t *s, job_record_t *job_ptr,
		      const snapshot_conf_t *c)
{
	int due_now;
	bool r = agent_window_renew_now(job_ptr->details->begin_time, s->now,
					c->gate_hold, walk.defer, &due_now);

	/* Due now: renewed from the list between cycles, at once. */
	if (due_now) {
		_renew_wake(s, s->now);
		walk.deferred++;
	}
	return r;
}

/*
 * Renew job_ptr's hold in this cycle's write lock, by id: a gated job
 * outside the window the gate only keeps holding.  Its way through the
 * cycle as a copied job (an agent record made and forgotten, a sort, an
 * op and its look-up) was most of a cycle that renewed a cohort of
 * 80,000 such holds submitted in one burst.
 */
static void _regate(snapshot_t *s, job_record_t *job_ptr, time_t ubegin)
{
	size_t cap = s->regate ? xsize(s->regate) / sizeof(*s->regate) : 0;
	agent_gate_renew_t *r;

	if (s->nregate >= cap)
		xrecalloc(s->regate, 2 * cap + 256, sizeof(*s->regate));
	r = &s->regate[s->nregate++];
	r->job_id = job_ptr->job_id;
	r->release_to = agent_gate_release_to(ubegin,
					      job_ptr->details->submit_time);
}

/*
 * Whether a pending job outside the window needs the cycle for nothing
 * but its hold's renewal: not ours (restricted, or a stale comment), not
 * let go unnoted, not failed, never seen to run (ji).  The cycle's own
 * decision for such a job is OP_REGATE and nothing more
 * (agent_place.c, _decide_others()).
 */
static bool _only_renew(const light_t *l, const agent_job_t *ji)
{
	return l->ours < 0 && !l->sc_stale &&
	       !(l->gate_expired && !l->gate_noted) && !l->failed &&
	       !(ji && (ji->running || ji->finished));
}

/*
 * A pending job outside the window, or not queued (and a job that ended
 * before the agent saw it), is copied only when the gate must keep
 * holding it (its hold is half gone), its gate let it go unplaced and
 * nobody said so yet, a restriction of ours failed it, or the agent saw
 * it run (requeued).  None of its files is read.  l: its light_t, read
 * already, or NULL.  The agent's own record is looked up only for a job
 * that may have run: not pending, or requeued (every requeue counts in
 * restart_cnt), not for each of a long queue's jobs at every cycle.
 */
static void _outside(snapshot_t *s, job_record_t *job_ptr,
		     const snapshot_conf_t *c, const light_t *l)
{
	agent_job_t *ji = NULL;
	light_t own;
	snap_job_t *sj;
	bool renewing;

	if (!l) {
		_light(s->now, job_ptr, &own);
		l = &own;
	}
	if (!IS_JOB_PENDING(job_ptr) || job_ptr->restart_cnt)
		ji = agent_jobs_get(job_ptr->job_id, false);
	renewing = l->gated && _renewing(s, job_ptr, c);
	/*
	 * Its hold is renewed once half gone, in a cycle up to a sixth of
	 * the hold later: the jobs whose renewals fall in that time are
	 * renewed in one cycle, not one cycle a second for the few of each
	 * second (a queue submitted over many seconds).  A release is to be
	 * said at once.
	 */
	if (IS_JOB_PENDING(job_ptr) && l->gated) {
		_renew_at(s, job_ptr, l->ubegin,
			  agent_gate_renew_due(job_ptr->details->begin_time,
					       c->gate_hold));
		_due(s, job_ptr, c, renewing);
	}
	if (IS_JOB_PENDING(job_ptr) && l->gate_expired && !l->gate_noted)
		_wake_at(s, AGENT_QUIET_LIVE);
	if (renewing && IS_JOB_PENDING(job_ptr) && _only_renew(l, ji)) {
		_regate(s, job_ptr, l->ubegin);
		return;
	}
	if (renewing || (l->gate_expired && !l->gate_noted) ||
	    (l->ours >= 0 && l->failed) ||
	    (ji && (ji->running || ji->finished))) {
		sj = _push(s);
		_put_light(job_ptr, l, sj);
		sj->outside = true;
	}
}

/* CPUs of usable nodes no running job holds: see agent_window.h. */
static uint32_t _free_cpus(const snapshot_t *s)
{
	uint64_t n = 0;
	uint32_t i;

	for (i = 0; i < s->nnodes; i++)
		if (s->usable[i] && s->cpus[i] > s->busy[i])
			n += s->cpus[i] - s->busy[i];
	return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

/* CPUs of usable nodes, free or not. */
static uint32_t _usable_cpus(const snapshot_t *s)
{
	uint64_t n = 0;
	uint32_t i;

	for (i = 0; i < s->nnodes; i++)
		if (s->usable[i])
			n += s->cpus[i];
	return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

/* Copy the window in full, the rest of the queued jobs as _outside(). */
static void _window(snapshot_t *s, queued_t *q, const snapshot_conf_t *c)
{
	agent_window_sched_t sp;
	uint8_t *in = xcalloc(q->npend ? q->npend : 1, 1);
	uint32_t i, free_cpus = _free_cpus(s);

	/* A placed job's wait for its node runs while others are free. */
	if (free_cpus)
		_wake_at(s, AGENT_QUIET_LIVE);
	agent_window_sched_parse(slurm_conf.sched_params, &sp);
	s->pending = q->npend;
	s->window = agent_window_size(&sp, c->plan_window, free_cpus);
	s->in_window = agent_window_select(q->cand, q->ncand, s->window, in);
	s->array_room = agent_window_array_room(&sp, s->window,
						_usable_cpus(s));
	/* The floors of the walks to come, a margin below the window. */
	if (walk.full)
		agent_window_keep_floors(&keep, q->cand, q->ncand,
					 s->window + s->window / 2 + 32);
	s->in_window += agent_het_window(q->pend, q->npend, in);
	s->arrays = xcalloc(s->in_window ? s->in_window : 1, sizeof(uint32_t));
	for (i = 0; i < q->npend; i++) {
		if (in[i] && agent_array_meta(q->pend[i])) {
			/* Its tasks are split off and placed, never itself. */
			if (s->narrays < s->in_window)
				s->arrays[s->narrays++] = q->pend[i]->job_id;
			_outside(s, q->pend[i], c, &q->light[i]);
		} else if (in[i]) {
			_copy_job(s, q->pend[i], _push(s), c);
		} else {
			walk.defer = walk.full &&
				     _below(q->pend[i], UINT32_MAX);
			_outside(s, q->pend[i], c, &q->light[i]);
			walk.defer = false;
		}
	}
	xfree(in);
}

/*
 * A pending job Slurm's schedulers queue (or would, but for the gate);
 * *l is read for it.
 */
static bool _queued(snapshot_t *s, job_record_t *job_ptr, light_t *l)
{
	time_t begin = job_ptr->details->begin_time;

	_light(s->now, job_ptr, l);
	if (_runnable(job_ptr, l->gated, s->now))
		return true;
	/* It is planned SOON_SECONDS before its begin time. */
	if (begin > s->now + SOON_SECONDS)
		_wake_at(s, (int64_t)begin - SOON_SECONDS);
	return false;
}

/*
 * The next time a reservation's edge changes which nodes a job may be
 * placed on (_not_reserved(), and a job in it may start), for
 * agent_quiet.h.
 */
static void _resv_wake(snapshot_t *s)
{
	slurmctld_resv_t *resv_ptr;
	list_itr_t *it;
	int64_t t[3];
	int k;

	if (!resv_list)
		return;
	it = list_iterator_create(resv_list);
	while ((resv_ptr = list_next(it))) {
		t[0] = (int64_t)resv_ptr->start_time - RESV_HORIZON;
		t[1] = resv_ptr->start_time;
		t[2] = resv_ptr->end_time;
		for (k = 0; k < 3; k++)
			if (t[k] > (int64_t)s->now)
				_wake_at(s, t[k]);
	}
	list_iterator_destroy(it);
}

/*
 * Walk every job: running ones (and ended since) copied, pending ones
 * queued for the window or handled as _outside(), but in a walk that
 * skips (walk.full false), the pending jobs below the floors, which are
 * counted in s->skipped and not read further.
 */
static void _walk(snapshot_t *s, const snapshot_conf_t *c, queued_t *q,
		  uint32_t cap)
{
	list_itr_t *it = list_iterator_create(job_list);
	job_record_t *job_ptr;
	walk_kind_t kind;
	light_t l;

	s->peek = AGENT_FNV_BASIS_SHORT;
	while ((job_ptr = list_next(it)) && q->npend < cap) {
		if (job_ptr->job_id > walk.max_id)
			walk.max_id = job_ptr->job_id;
		kind = _walk_kind(job_ptr, !walk.full, walk.seen_max);
		if (kind == WALK_NONE)
			continue;
		if (kind == WALK_SKIP) {
			s->skipped++;
			continue;
		}
		s->peek = agent_peek_job(s->peek, job_ptr);
		if (IS_JOB_PENDING(job_ptr)) {
			if (_queued(s, job_ptr, &l))
				_queue(q, job_ptr, &l);
			else
				_outside(s, job_ptr, c, &l);
			continue;
		}
		if (!IS_JOB_RUNNING(job_ptr) && !_ended_since(job_ptr)) {
			/* It may have run between two cycles, unplaced. */
			if (job_ptr->details)
				_outside(s, job_ptr, c, NULL);
			continue;
		}
		if (!job_ptr->node_bitmap || bit_ffs(job_ptr->node_bitmap) < 0)
			continue;
		if (IS_JOB_RUNNING(job_ptr))
			_count_busy(s, job_ptr);
		_copy_job(s, job_ptr, _push(s), c);
	}
	list_iterator_destroy(it);
	s->peek = agent_fnv_u64(s->peek, s->skipped);
}

static void _free_job(snap_job_t *sj)
{
	xfree(sj->comment);
	xfree(sj->jname);
	xfree(sj->bb);
	xfree(sj->script_files);
	xfree(sj->eligible);
	xfree(sj->fits);
	xfree(sj->req);
	xfree(sj->ran);
}

/*
 * Whether a walk that skipped left a partition short of its window (more
 * jobs left the queue above its floor than the margin): then it is undone,
 * for a full walk.
 */
static bool _short(snapshot_t *s, queued_t *q, const snapshot_conf_t *c)
{
	agent_window_sched_t sp;
	uint32_t i;

	agent_window_sched_parse(slurm_conf.sched_params, &sp);
	if (agent_window_keep_enough(&keep, q->cand, q->ncand,
				     agent_window_size(&sp, c->plan_window,
						       _free_cpus(s))))
		return false;
	for (i = 0; i < s->njobs; i++)
		_free_job(&s->jobs[i]);
	/*
	 * Zeroed for _push(): _copy_job() sets only some fields of a job
	 * (not a running job's pending-only ones: set_k, placeable, ...),
	 * so a reused entry would keep the undone walk's values.
	 */
	memset(s->jobs, 0, s->njobs * sizeof(*s->jobs));
	s->njobs = 0;
	s->skipped = 0;
	s->nrenew = 0; /* listed again by the full walk */
	memset(s->busy, 0, (s->nnodes ? s->nnodes : 1) * sizeof(*s->busy));
	memset(s->mem_alloc, 0,
	       (s->nnodes ? s->nnodes : 1) * sizeof(*s->mem_alloc));
	q->npend = q->ncand = 0;
	return true;
}

/*
 * The gated jobs skipped by this walk whose hold is due for renewal,
 * looked up by id (the due list): read as _outside() would have in a
 * full walk.  A job the walk read (no longer below the floors) was
 * handled there.
 */
static void _take_due(snapshot_t *s, const snapshot_conf_t *c)
{
	uint32_t *ids, n, i;
	int64_t next;
	job_record_t *job_ptr;

	n = agent_window_keep_due_take(&keep, s->now,
					(int64_t)s->now - c->gate_hold / 4,
					DUE_PER_CYCLE, &ids, &next);
	s->due_taken = n;
	walk.taking = true;
	for (i = 0; i < n; i++)
		if ((job_ptr = find_job_record(ids[i])) &&
		    IS_JOB_PENDING(job_ptr) && job_ptr->details &&
		    _below(job_ptr, walk.seen_max))
			_outside(s, job_ptr, c, NULL);
	walk.taking = false;
	free(ids);
	/* The others when due, between cycles (agent_snapshot_renew_due()). */
	if (keep.ndue && next != INT64_MAX)
		_renew_wake(s, next);
}

/*
 * One job the due list gave between cycles: renewed if the gate only keeps
 * holding it, back in the list as due now for a cycle if that has more to
 * do (above a floor now, let go unnoted, ours...), dropped if no longer
 * held.  RET 1 renewed, 0 not, -1 a cycle is to take it.
 */
static int _renew_one(job_record_t *job_ptr, time_t now, uint32_t hold)
{
	job_details_t *d = job_ptr->details;
	light_t l;
	time_t to;

	if (!IS_JOB_PENDING(job_ptr) || !d)
		return 0;
	_light(now, job_ptr, &l);
	if (!_below(job_ptr, keep.max_id) ||
	    (l.gate_expired && !l.gate_noted) ||
	    (l.gated &&
	     !_only_renew(&l, agent_jobs_get(job_ptr->job_id, false)))) {
		(void)agent_window_keep_due_add(&keep, job_ptr->job_id, now);
		return -1;
	}
	if (!l.gated)
		return 0;
	to = agent_gate_renew_to(d->begin_time,
				 agent_gate_release_to(l.ubegin,
						       d->submit_time),
				 now, hold);
	(void)agent_window_keep_due_add(&keep, job_ptr->job_id,
					(int64_t)to - hold / 2);
	if (to == d->begin_time)
		return 0;
	d->begin_time = to;
	return 1;
}

uint32_t agent_snapshot_renew_due(uint32_t hold, int64_t *next, bool *cycle)
{
	time_t now = time(NULL);
	uint32_t *ids, n, i, renewed = 0;
	job_record_t *job_ptr;
	int r;

	*next = AGENT_QUIET_NEVER;
	*cycle = false;
	/* Floors of partitions that changed: the next walk is full. */
	if (!keep.valid || keep.stamp != (int64_t)last_part_update)
		return 0;
	n = agent_window_keep_due_take(&keep, now, INT64_MIN, DUE_PER_STEP,
				       &ids, next);
	for (i = 0; i < n; i++) {
		if (!(job_ptr = find_job_record(ids[i])))
			continue;
		if ((r = _renew_one(job_ptr, now, hold)) < 0)
			*cycle = true;
		else
			renewed += r;
	}
	free(ids);
	if (*next == INT64_MAX)
		*next = AGENT_QUIET_NEVER;
	else if (*next < (int64_t)now)
		*next = now;
	return renewed;
}

/* Whether this cycle's walk reads every job (see FULL_WALK_MAX_S). */
static bool _full_due(time_t now)
{
	return !keep.valid || (int64_t)now - keep.full_at >= FULL_WALK_MAX_S ||
	       keep.stamp != (int64_t)last_part_update;
}

void agent_snapshot_take(snapshot_t *s, const snapshot_conf_t *c)
{
	queued_t q = { 0 };
	uint32_t cap;
	struct timespec ts, t1;

	clock_gettime(CLOCK_REALTIME, &ts);
	s->now = ts.tv_sec;
	s->clock = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
	s->wake = AGENT_QUIET_NEVER;
	s->renew_wake = AGENT_QUIET_NEVER;
	/*
	 * The job records were emptied since the last walk (a reconfigure
	 * that changed the node count, a compaction that failed:
	 * agent_jobs_init()): as after a restart, a job that ended in or
	 * before the last walk's second may have been recorded, so only one
	 * that ended later is taken for unseen (agent_ended.h); before, those
	 * ended in that second had their start logged twice.
	 */
	if (walk.records_gen != agent_jobs_generation()) {
		walk.records_gen = agent_jobs_generation();
		walk.first_now = walk.last_now;
	}
	_copy_nodes(s);
	_resv_wake(s);
	cap = list_count(job_list);
	walk.full = _full_due(s->now);
	walk.deferred = 0;
	walk.seen_max = keep.max_id;
	walk.max_id = 0;
	if (!walk.full) {
		_walk(s, c, &q, cap);
		walk.full = _short(s, &q, c);
	}
	if (walk.full) {
		keep.ndue = 0; /* the full walk lists them again */
		_walk(s, c, &q, cap);
		keep.full_at = s->now;
		keep.stamp = (int64_t)last_part_update;
	}
	_window(s, &q, c);
	s->pending += s->skipped;
	if (!walk.full)
		_take_due(s, c);
	keep.max_id = walk.max_id > walk.seen_max ? walk.max_id : walk.seen_max;
	walk.last_now = s->now;
	if (!walk.first_now)
		walk.first_now = s->now;
	s->full = walk.full;
	/* A full walk reads what the floors skip: nothing to peek against. */
	s->peeked = !walk.full;
	/* Two components of a hetjob never on one node. */
	agent_het_exclude(s);
	xfree(q.pend);
	xfree(q.light);
	xfree(q.cand);
	/*
	 * The part of a cycle that walks the jobs (under slurmctld's read
	 * locks, not waiting for them): contrib/bench_pending.sh reads it.
	 */
	clock_gettime(CLOCK_REALTIME, &t1);
	s->took_ms = (double)(t1.tv_sec - ts.tv_sec) * 1e3 +
		     (double)(t1.tv_nsec - ts.tv_nsec) * 1e-6;
	debug("datalocality: snapshot of %u jobs: %u copied, %u holds to renew by id, %u of %u queued in the window, %u skipped (%s walk), %u due for their gate (%u left to the list), %.3f ms",
	      cap, s->njobs, s->nregate, s->in_window, s->pending, s->skipped,
	      s->full ? "full" : "floor", keep.ndue, walk.deferred,
	      s->took_ms);
}

bool agent_snapshot_peek(uint64_t *fp)
{
	list_itr_t *it;
	job_record_t *job_ptr;
	uint64_t h = AGENT_FNV_BASIS_SHORT;
	uint32_t skipped = 0;
	walk_kind_t kind;

	if (_full_due(time(NULL)))
		return false;
	/* _walk()'s loop, reading nothing it does not hash. */
	it = list_iterator_create(job_list);
	while ((job_ptr = list_next(it))) {
		kind = _walk_kind(job_ptr, true, keep.max_id);
		if (kind == WALK_SKIP)
			skipped++;
		else if (kind == WALK_READ)
			h = agent_peek_job(h, job_ptr);
	}
	list_iterator_destroy(it);
	*fp = agent_fnv_u64(h, skipped);
	return true;
}

uint64_t agent_snapshot_nodes_fp(void)
{
	node_record_t *node_ptr;
	uint64_t h = agent_fnv_u64(AGENT_FNV_BASIS_SHORT, node_record_count);
	int i;

	for (i = 0; (node_ptr = next_node(&i)); i++) {
		h = agent_fnv_u64(h, i);
		h = agent_fnv_u64(h, node_ptr->node_state);
		h = agent_fnv_u64(h, node_ptr->cpus);
		h = agent_fnv_u64(h, node_ptr->cpus_efctv);
		h = agent_fnv_u64(h, node_ptr->real_memory);
		h = agent_fnv_u64(h, node_ptr->boot_req_time);
		h = agent_fnv_u64(h, node_ptr->resume_timeout);
		h = agent_fnv_u64(h, _node_usable(node_ptr));
		h = agent_fnv_u64(h, _hash(node_ptr->features_act));
		h = agent_fnv_u64(h, _hash(node_ptr->gres));
	}
	return h;
}

void agent_snapshot_fini(void)
{
	agent_window_keep_free(&keep);
	memset(&walk, 0, sizeof(walk));
}

void agent_snapshot_free(snapshot_t *s)
{
	uint32_t i;

	for (i = 0; i < s->nnodes; i++)
		xfree(s->names[i]);
	for (i = 0; i < s->njobs; i++)
		_free_job(&s->jobs[i]);
	xfree(s->names);
	xfree(s->cpus);
	xfree(s->busy);
	xfree(s->usable);
	xfree(s->power);
	xfree(s->boot_req);
	xfree(s->resume_timeout);
	xfree(s->mem_alloc);
	xfree(s->unserving);
	xfree(s->jobs);
	xfree(s->arrays);
	xfree(s->renew);
	xfree(s->regate);
	xfree(s->hurry);
	memset(s, 0, sizeof(*s));
}
