/*
 * dl_agent.h - the planning agent of slurm-datalocality, shared by the two
 * entry points (sched/datalocality and slurmctld/datalocality).
 *
 * Slurm decides when, the agent decides where: a thread plans the pending
 * annotated jobs with the configured policy and turns the plan into
 * placement restrictions Slurm's own schedulers honour (agent_place.h).
 * It never starts a job itself.
 */
#ifndef DL_AGENT_H
#define DL_AGENT_H

/*
 * dl_agent_start - start the thread.
 * IN pfx - the entry point's plugin_type, for log lines (kept, not copied)
 * RET SLURM_SUCCESS or SLURM_ERROR (already running).
 */
int dl_agent_start(const char *pfx);

/* dl_agent_stop - ask the thread to stop, join it, save the state. */
void dl_agent_stop(void);

/*
 * dl_agent_submitted - a job was just gated at submit: wake the thread,
 * which looks for the job's record until it is there instead of at its
 * quiet poll.  Called by job_submit/datalocality (another plugin: found by
 * name, DL_AGENT_SUBMITTED_SYM) in an RPC thread before Slurm makes the
 * record; cheap, takes no slurmctld lock.
 */
void dl_agent_submitted(void);
#define DL_AGENT_SUBMITTED_SYM "dl_agent_submitted"

/* dl_agent_reconfig - re-read datalocality.conf at the next cycle. */
void dl_agent_reconfig(void);

#endif /* DL_AGENT_H */
