/*
 * agent_array.h - job arrays placed task by task.  A pending array is one
 * job record in slurmctld (the "meta" record) until Slurm starts a task:
 * only then is that task split off into a record of its own.  A placement
 * is a restriction of one record, so the tasks the planning window reaches
 * are split off ahead of time, as scontrol update does for one task
 * (update_job() in job_mgr.c) and Slurm's scheduler does for a burst
 * buffer's (job_scheduler.c): each then has its own files (its %a
 * inputs), placement, Reason and SystemComment.  The meta record itself is
 * never placed; the submit gate keeps it held while it stands for tasks,
 * and a split task inherits that hold until it is placed.
 */
#ifndef AGENT_ARRAY_H
#define AGENT_ARRAY_H

#include <stdbool.h>
#include <stdint.h>

struct job_record;

/*
 * agent_array_meta - whether a job record is a pending array's own record
 * that still stands for tasks not split off.  Caller holds the job lock.
 */
bool agent_array_meta(struct job_record *job_ptr);

/*
 * agent_array_split - split off the lowest pending tasks of the arrays
 * whose own records (job ids ids[0..n-1]) are in the planning window, so
 * that at most room tasks of each are pending records of their own, and
 * at most room are split in all (the cost of an array is what its tasks
 * split off cost, however many it has; room is what Slurm could start of
 * them soon, agent_window_array_room()).  Caller holds the job write
 * lock.  RET how many tasks were split off.
 */
uint32_t agent_array_split(const uint32_t *ids, uint32_t n, uint32_t room,
			   const char *pfx);

/*
 * Slurm's schedulers take an array's tasks as one: in a pass, once one
 * task of an array cannot start, every later task of the same array (and
 * partition and reservation) is skipped ("already rejected array
 * element", schedule() and sched/backfill, 22.05 and 24.11).  A task
 * placed on a busy node so kept its array's later tasks off their own
 * free nodes, where single jobs would have started; the free nodes made
 * the waiting tasks count as blocked, and they were widened away from the
 * inputs copied ahead for them.  agent_array_pace() holds back the placed
 * tasks whose node cannot take them now and that come before a task whose
 * node can, in Slurm's order: a begin time AGENT_ARRAY_HOLD seconds ahead
 * (Slurm's Reason: BeginTime), renewed each cycle, the begin time they
 * had given back when that no longer holds.  The agent still plans them
 * (agent_snapshot.c counts a job beginning within 5 s as runnable).
 */
#define AGENT_ARRAY_HOLD 3

struct snapshot;

/*
 * agent_array_pace - hold back or let go the pending array tasks of the
 * snapshot's jobs that the plugin restricted to one node, walking each
 * array's tasks in Slurm's order (priority, then job id) against the free
 * CPUs of their nodes at the snapshot.  Tasks after the last one with
 * room are left in Slurm's queue: the first starts when its node frees.
 * Caller holds the job write lock and the node read lock.  RET how many
 * tasks were let go.
 */
uint32_t agent_array_pace(const struct snapshot *s, const char *pfx);

/*
 * agent_array_pace_due - whether agent_array_pace() has work: tasks held
 * back, or pending array tasks in the snapshot.  No lock needed.
 */
bool agent_array_pace_due(const struct snapshot *s);

/*
 * agent_array_pace_fini - forget the tasks held back (the agent stops):
 * their begin times, AGENT_ARRAY_HOLD seconds ahead at most, run out by
 * themselves; only the age the task had is lost.  No lock needed.
 */
void agent_array_pace_fini(void);

#endif /* AGENT_ARRAY_H */
