/*
 * dl_agent.h - the dispatch thread of sched/datalocality.
 *
 * With SchedulerParameters=sched_interval=-1,defer the main scheduler never
 * starts a job, so this thread starts all of them: annotated jobs on the
 * node the policy chose, every other eligible job in priority order.
 */
#ifndef DL_AGENT_H
#define DL_AGENT_H

/* Start the thread; SLURM_SUCCESS or SLURM_ERROR. */
int dl_agent_start(void);
/* Ask the thread to stop and join it. */
void dl_agent_stop(void);
/* Re-read datalocality.conf and slurm.conf settings at the next cycle. */
void dl_agent_reconfig(void);

#endif /* DL_AGENT_H */
