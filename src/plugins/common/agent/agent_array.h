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
 * that at most window tasks of each are pending records of their own, and
 * at most window are split in all (the cost of an array is what its tasks
 * in the window cost, however many it has).  Caller holds the job write
 * lock.  RET how many tasks were split off.
 */
uint32_t agent_array_split(const uint32_t *ids, uint32_t n, uint32_t window,
			   const char *pfx);

#endif /* AGENT_ARRAY_H */
