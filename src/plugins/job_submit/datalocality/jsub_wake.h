/*
 * jsub_wake.h - wake the planning agent when job_submit/datalocality
 * gates a job, so that the agent, which polls every 5 s while nothing
 * moves (agent_poll.h, AGENT_POLL_QUIET_MS), places it well within the gate's
 * bound (GateMinHold, 3 s at least).
 *
 * The agent runs in another plugin of the same slurmctld: sched/
 * datalocality, slurmctld/datalocality (SlurmctldPlugstack) or
 * job_submit/datalocality_agent (Slurm 24.11).  Slurm loads plugins
 * RTLD_LOCAL, so their symbols are not visible here: the loaded file is
 * found by name in PluginDir (dlopen RTLD_NOLOAD, which never loads one)
 * and its dl_agent_submitted() called (dl_agent.h).
 */
#ifndef JSUB_WAKE_H
#define JSUB_WAKE_H

/*
 * Seconds between two searches when no plugin of the agent is loaded (a
 * site with the gate but no agent): a search opens a few files.
 */
#define JSUB_WAKE_SEARCH_S 60

/*
 * jsub_wake_agent - wake the agent if one is loaded; nothing otherwise.
 * Thread-safe (job_submit runs in several RPC threads at once); takes no
 * slurmctld lock.
 */
void jsub_wake_agent(void);

/* jsub_wake_fini - forget the plugin found (the plugin's fini()). */
void jsub_wake_fini(void);

#endif /* JSUB_WAKE_H */
