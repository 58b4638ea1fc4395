/*
 * agent_ended.h - which jobs no longer pending a cycle's walk copies
 * (agent_snapshot.c): the model records a job's files on the nodes it ran
 * on, and the history its run time, from the cycle that sees it.
 *
 * A running job is always copied; one that ended is copied while the
 * agent still has its start or its end to record, or its files to read
 * (a record a cycle left unread, agent_budget.h).  And any that ended at
 * or after the last walk: one the agent has no record of started and
 * ended between two cycles; one recorded already is copied to no effect,
 * which keeps its record (agent_jobs_forget() drops every record a cycle
 * did not copy), so that a later walk in the second it ended in does not
 * take it for unseen and record it twice.  Before, a job the agent had
 * no record of was left out, so its files were never recorded where it
 * ran: a short job pinned to a node (-w, not gated at submit, so nothing
 * wakes the agent) that ran while the agent slept through a quiet spell's
 * 5-s poll (agent_poll.h) left its node's cache unknown to the model, and
 * the next job of the same files was let go unplaced (test_multinode.sh
 * (c), CI 2026-11-30).  Pure: unit tested in check_agent_ended.c.
 */
#ifndef AGENT_ENDED_H
#define AGENT_ENDED_H

#include <stdbool.h>
#include <time.h>

/* What the walk knows of a job that is not pending. */
typedef struct agent_ended_job {
	bool known;             /* the agent has a record of it */
	bool read;              /* and has read its files */
	bool start_logged;      /* its start was recorded (model, log) */
	bool finished;          /* its end was recorded (history) */
	time_t start, end;      /* Slurm's start and end times (0: none) */
} agent_ended_job_t;

/*
 * agent_ended_copy - whether the walk copies j, a job that ended (not
 * running, not pending), in a walk after one at last_walk, the agent's
 * first walk since it started having been at first_walk (both 0: this is
 * that first walk, which reads only the jobs the agent knows, not every
 * job still in Slurm's list).  A job the agent has no record of is taken
 * for unseen only if it ended after the first walk's second: one that
 * ended before may have been recorded by the agent before it started
 * again (Slurm 24.11's scontrol reconfigure re-executes slurmctld), and
 * would be recorded twice (test_dispatch.sh (f), CI run 2026-11-30).
 */
bool agent_ended_copy(const agent_ended_job_t *j, time_t last_walk,
		      time_t first_walk);

#endif
