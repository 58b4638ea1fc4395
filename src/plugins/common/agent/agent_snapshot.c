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

#include "dl_slurm.h"
#include "agent_jobs.h"
#include "agent_snapshot.h"

/*
 * A pending job whose begin time is this close is planned already, so
 * that it has its node before Slurm may start it.
 */
#define SOON_SECONDS 5

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
	struct job_details *d = job_ptr->details;
	const char *sc = job_ptr->system_comment;
	node_record_t *node_ptr;
	size_t len;
	int i;

	if (!d || !d->req_node_bitmap || !sc ||
	    strncmp(sc, DL_SC_PLACED, strlen(DL_SC_PLACED)))
		return -1;
	if ((i = bit_ffs(d->req_node_bitmap)) < 0 ||
	    bit_set_count(d->req_node_bitmap) != 1 ||
	    !(node_ptr = node_record_table_ptr[i]))
		return -1;
	sc += strlen(DL_SC_PLACED);
	len = strlen(node_ptr->name);
	/* The user changed the list since: it is theirs now. */
	if (strncmp(sc, node_ptr->name, len) || (sc[len] && sc[len] != ' '))
		return -1;
	return i;
}

/* Single node, not a hetjob, no required nodes of the user's own. */
static bool _single_node(job_record_t *job_ptr, int32_t ours)
{
	struct job_details *d = job_ptr->details;

	if (!d || job_ptr->het_job_id || job_ptr->array_recs ||
	    job_ptr->array_task_id != NO_VAL ||
	    (d->req_node_bitmap && ours < 0))
		return false;
	if (d->min_nodes > 1 || (d->max_nodes && d->max_nodes != NO_VAL &&
				 d->max_nodes > 1))
		return false;
	return true;
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
	ListIterator it;

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
	struct job_details *d = job_ptr->details;
	node_record_t *node_ptr;
	part_record_t *part_ptr;
	ListIterator it;
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
		    d->min_cpus <= node_ptr->cpus)
			sj->eligible[i] = 1;
	FREE_NULL_BITMAP(b);
}

/* Whether nothing but Slurm's choice of a moment keeps it from starting. */
static bool _runnable(job_record_t *job_ptr, time_t now)
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
	       job_ptr->details->begin_time <= now + SOON_SECONDS;
}

/* Held back at submit until placed (see dl_slurm.h). */
static void _gate(job_record_t *job_ptr, snap_job_t *sj, time_t now)
{
	time_t b = job_ptr->details->begin_time;

	sj->gated = sj->ours < 0 && !sj->widened && b > now &&
		    b <= now + DL_GATE_SECONDS;
}

/* Add a running job's allocated CPUs to its nodes' busy counts. */
static void _count_busy(snapshot_t *s, job_record_t *job_ptr)
{
	job_resources_t *jr = job_ptr->job_resrcs;
	int i, k = 0;

	if (!jr || !jr->node_bitmap || !jr->cpus)
		return;
	for (i = 0; i < (int)s->nnodes && k < (int)jr->nhosts; i++)
		if (bit_test(jr->node_bitmap, i))
			s->busy[i] += jr->cpus[k++];
}

/* FNV-1a: a job name as a history key. */
static uint64_t _hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/* The #DL annotation job_submit left in the job's SPANK environment. */
static char *_script_files(job_record_t *job_ptr)
{
	size_t len = strlen(DL_ENV_FILES "=");
	uint32_t i;

	for (i = 0; i < job_ptr->spank_job_env_size; i++) {
		const char *e = job_ptr->spank_job_env[i];

		if (!xstrncmp(e, "SPANK_", 6))
			e += 6;
		if (!xstrncmp(e, DL_ENV_FILES "=", len))
			return xstrdup(e + len);
	}
	return NULL;
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

static void _copy_job(snapshot_t *s, job_record_t *job_ptr, snap_job_t *sj)
{
	agent_job_t *ji = agent_jobs_get(job_ptr->job_id, false);

	sj->job_id = job_ptr->job_id;
	sj->running = !IS_JOB_PENDING(job_ptr);
	sj->ended = !IS_JOB_PENDING(job_ptr) && !IS_JOB_RUNNING(job_ptr);
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
	sj->limit = _limit(job_ptr);
	sj->ours = agent_snapshot_ours(job_ptr);
	sj->widened = job_ptr->system_comment &&
		      !strncmp(job_ptr->system_comment, DL_SC_WIDENED,
			       strlen(DL_SC_WIDENED));
	if (!ji || !ji->parsed) {
		sj->comment = xstrdup(job_ptr->comment);
		sj->bb = xstrdup(job_ptr->burst_buffer);
		sj->script_files = _script_files(job_ptr);
	}
	if (sj->running || !job_ptr->details)
		return;
	_gate(job_ptr, sj, s->now);
	sj->min_nodes = job_ptr->details->min_nodes;
	sj->for_resources = job_ptr->state_reason == WAIT_RESOURCES ||
			    job_ptr->state_reason == WAIT_NO_REASON;
	sj->failed = job_ptr->state_reason == FAIL_BAD_CONSTRAINTS;
	sj->runnable = _runnable(job_ptr, s->now);
	sj->placeable = _single_node(job_ptr, sj->ours);
	if (sj->placeable && sj->runnable)
		_eligible(job_ptr, sj, s->nnodes);
}

/*
 * A job that ended since the last cycle: its run time is learnt, and if it
 * started and ended between two cycles, its start is reported and its
 * files recorded all the same.
 */
static bool _ended_since(job_record_t *job_ptr)
{
	agent_job_t *ji;

	if (!job_ptr->start_time || IS_JOB_PENDING(job_ptr))
		return false;
	ji = agent_jobs_get(job_ptr->job_id, false);
	return ji && ji->parsed && (!ji->start_logged || !ji->finished);
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
	for (i = 0; (node_ptr = next_node(&i)); i++) {
		s->names[i] = xstrdup(node_ptr->name);
		s->cpus[i] = node_ptr->cpus_efctv ? node_ptr->cpus_efctv :
						    node_ptr->cpus;
		s->usable[i] = _node_usable(node_ptr);
		s->power[i] = _node_power(node_ptr);
		s->boot_req[i] = node_ptr->boot_req_time;
		s->resume_timeout[i] = _resume_timeout(node_ptr);
	}
	for (i = 0; i < (int)s->nnodes; i++)
		if (!s->names[i])
			s->names[i] = xstrdup("?");
}

void agent_snapshot_take(snapshot_t *s)
{
	ListIterator it;
	job_record_t *job_ptr;
	uint32_t cap;
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	s->now = ts.tv_sec;
	s->clock = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
	_copy_nodes(s);
	cap = list_count(job_list);
	s->jobs = xcalloc(cap ? cap : 1, sizeof(snap_job_t));
	it = list_iterator_create(job_list);
	while ((job_ptr = list_next(it)) && s->njobs < cap) {
		if (!IS_JOB_PENDING(job_ptr) && !IS_JOB_RUNNING(job_ptr) &&
		    !_ended_since(job_ptr))
			continue;
		if (!IS_JOB_PENDING(job_ptr) &&
		    (!job_ptr->node_bitmap || bit_ffs(job_ptr->node_bitmap) < 0))
			continue;
		if (IS_JOB_RUNNING(job_ptr))
			_count_busy(s, job_ptr);
		_copy_job(s, job_ptr, &s->jobs[s->njobs++]);
	}
	list_iterator_destroy(it);
}

void agent_snapshot_free(snapshot_t *s)
{
	uint32_t i;

	for (i = 0; i < s->nnodes; i++)
		xfree(s->names[i]);
	for (i = 0; i < s->njobs; i++) {
		xfree(s->jobs[i].comment);
		xfree(s->jobs[i].bb);
		xfree(s->jobs[i].script_files);
		xfree(s->jobs[i].eligible);
	}
	xfree(s->names);
	xfree(s->cpus);
	xfree(s->busy);
	xfree(s->usable);
	xfree(s->power);
	xfree(s->boot_req);
	xfree(s->resume_timeout);
	xfree(s->jobs);
	memset(s, 0, sizeof(*s));
}
