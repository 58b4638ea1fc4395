/*
 * agent_timelimit.c - moving running jobs' end times by the staging they
 * are owed; see agent_timelimit.h and agent_credit.h.
 *
 * Why the end time: slurmctld's job_time_limit() (job_mgr.c, 22.05 and
 * 24.11 alike) kills a running job once end_time + OverTimeLimit is past;
 * slurmstepd enforces no limit of its own on a batch job.  The end time is
 * also what sched/backfill plans the job's nodes free at, so moving it by
 * the staging keeps backfill's reservations true.  The time limit itself
 * stays the user's (sacct and squeue show what was asked), and Slurm
 * recomputes the end time from it when an admin changes the limit or the
 * job is resumed: the credit is then given again (set_end tells).
 *
 * While a job's staging runs its end time follows the clock (it gains
 * what the staging took so far, every CREDIT_STEP seconds), so that the
 * limit cannot strike in the middle of a long staging; when the staging
 * ended the node's own measure replaces the estimate.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "src/common/slurm_xlator.h"

#include "src/common/bitstring.h"
#include "src/common/log.h"
#include "src/common/parse_time.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"

#include "dl_compat.h"
#include "dl_slurm.h"
#include "agent_credit.h"
#include "agent_jobs.h"
#include "agent_model.h"
#include "agent_timelimit.h"

/* Seconds of credit gained before a staging job's end time is moved. */
#define CREDIT_STEP 5
/* The bound by the job's bytes: twice their time at StorageBandwidth,
 * plus a minute for opening, verifying and a busy node. */
#define BW_FACTOR 2.0
#define BW_SLACK 60.0
/* What the SystemComment says of a credit. */
#define SC_CREDIT "not charged to the time limit"

/*
 * The most credit a job may get: StagingCreditMax, and what its files take
 * at StorageBandwidth (only if the agent knows all their sizes).
 */
static uint32_t _bound(const agent_conf_t *c, uint32_t job_id)
{
	agent_job_t *ji = agent_jobs_get(job_id, false);
	dl_cache_t *cache = agent_model_cache();
	double b = c->credit_max, bw;
	uint64_t bytes = 0, sz;

	if (ji && ji->parsed && ji->nfiles && cache && c->params.rbw > 0) {
		for (uint32_t i = 0; i < ji->nfiles; i++) {
			if ((sz = dl_cache_file_size(cache, ji->files[i])) ==
			    DL_SIZE_UNKNOWN)
				break;
			bytes += sz;
			if (i + 1 == ji->nfiles) {
				bw = BW_FACTOR * (double)bytes /
				     c->params.rbw + BW_SLACK;
				b = bw < b ? bw : b;
			}
		}
	}
	return b < UINT32_MAX ? (uint32_t)b : UINT32_MAX;
}

/*
 * When the job's staging ended everywhere: logged once, and appended to
 * the SystemComment unless it says it already (the placement's note at
 * the job's start, written after a short staging, replaces it).
 */
static void _say(job_record_t *job_ptr, uint32_t secs, bool bounded,
		 const char *nodes, bool log, const char *pfx)
{
	char *s = xstrdup_printf("staging %u s on %s %s%s", secs, nodes,
				 SC_CREDIT, bounded ? " (bounded)" : "");
	char when[32];

	slurm_make_time_str(&job_ptr->end_time, when, sizeof(when));
	if (log)
		info("%s: %pJ: %s: end time %s", pfx, job_ptr, s, when);
	if (!job_ptr->system_comment)
		job_ptr->system_comment = xstrdup_printf("%s%s", DL_SC_PREFIX,
							 s);
	else if (!xstrstr(job_ptr->system_comment, SC_CREDIT))
		xstrfmtcat(job_ptr->system_comment, "; %s", s);
	xfree(s);
}

/*
 * The records r[first..n) of one job (those of other jobs skipped): give
 * it what it is owed if apply, else only tell whether it is due.  Caller
 * holds the node read lock and the job lock, a write lock if apply.
 * RET whether the job's end time or SystemComment is to change.
 */
static bool _job(const agent_conf_t *c, const agent_credit_rec_t *r,
		 size_t n, size_t first, time_t now, bool apply,
		 const char *pfx)
{
	uint32_t id = r[first].job_id, owed = 0, o, applied, bound;
	job_record_t *job_ptr = find_job_record(id);
	bool done = true, bounded = false, told;
	char *nodes = NULL;
	int64_t delta;

	if (!job_ptr || IS_JOB_PENDING(job_ptr) || IS_JOB_FINISHED(job_ptr)) {
		agent_credit_forget(id); /* ended, or requeued */
		return false;
	}
	if (!IS_JOB_RUNNING(job_ptr) || !job_ptr->node_bitmap ||
	    job_ptr->time_limit == INFINITE || job_ptr->time_limit == NO_VAL)
		return false;
	for (size_t k = first; k < n; k++) {
		/* Only a node that runs the job speaks for it. */
		if (r[k].job_id != id ||
		    r[k].node >= (uint32_t)node_record_count ||
		    !bit_test(job_ptr->node_bitmap, r[k].node))
			continue;
		o = agent_credit_owed(&r[k], now, job_ptr->start_time);
		owed = o > owed ? o : owed;
		done = done && r[k].end;
		xstrfmtcat(nodes, "%s%s", nodes ? "," : "",
			   node_record_table_ptr[r[k].node]->name);
	}
	if (!nodes)
		return false;
	if ((bound = _bound(c, id)) < owed) {
		owed = bound;
		bounded = true;
	}
	applied = r[first].applied;
	/* Slurm set the end time from the limit again: credit it again. */
	if (r[first].set_end && job_ptr->end_time != r[first].set_end)
		applied = 0;
	delta = (int64_t)owed - (int64_t)applied;
	told = !owed || xstrstr(job_ptr->system_comment, SC_CREDIT);
	if (!(done && (delta || !r[first].said || !told)) &&
	    !(!done && delta >= CREDIT_STEP)) {
		xfree(nodes);
		return false;
	}
	if (apply) {
		if (!applied && !done)
			info("%s: %pJ stages on %s: its end time follows the staging (not charged to its time limit)",
			     pfx, job_ptr, nodes);
		job_ptr->end_time += delta;
		last_job_update = now;
		if (done && owed && (!r[first].said || !told))
			_say(job_ptr, owed, bounded, nodes, !r[first].said,
			     pfx);
		agent_credit_set(id, owed, job_ptr->end_time, done);
	}
	xfree(nodes);
	return true;
}

/* Every job of the records once.  RET whether one is due (see _job()). */
static bool _pass(const agent_conf_t *c, const agent_credit_rec_t *r,
		  size_t n, time_t now, bool apply, const char *pfx)
{
	bool due = false;

	for (size_t i = 0; i < n; i++) {
		bool seen = false;

		/* Each job once, at its first record. */
		for (size_t k = 0; k < i && !seen; k++)
			seen = r[k].job_id == r[i].job_id;
		if (!seen && _job(c, r, n, i, now, apply, pfx))
			due = true;
	}
	return due;
}

void agent_timelimit_apply(const agent_conf_t *c, const char *pfx)
{
	/*
	 * Most seconds nothing is due (a staging moves its job every
	 * CREDIT_STEP s, an ended one once): a read lock tells, and only
	 * then the write lock edits end times and SystemComments.
	 */
	slurmctld_lock_t read_lock = { .job = READ_LOCK, .node = READ_LOCK };
	slurmctld_lock_t write_lock = { .job = WRITE_LOCK,
					.node = READ_LOCK };
	bool due;
	static time_t last;
	time_t now = time(NULL);
	agent_credit_rec_t *r;
	size_t n;

	if (c->credit_max <= 0) {
		agent_credit_clear(); /* off: nothing is kept */
		return;
	}
	if (now == last)
		return;
	last = now;
	if (!(n = agent_credit_copy(&r)))
		return;
	lock_slurmctld(read_lock);
	due = _pass(c, r, n, now, false, pfx);
	unlock_slurmctld(read_lock);
	if (due) {
		lock_slurmctld(write_lock);
		_pass(c, r, n, now, true, pfx);
		unlock_slurmctld(write_lock);
	}
	free(r);
}
