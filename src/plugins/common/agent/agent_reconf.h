/*
 * agent_reconf.h - whether a move of slurm.conf's stamp is a
 * reconfiguration the agent has to apply.
 *
 * Under the plugstack entry points (slurmctld/datalocality,
 * job_submit/datalocality_agent) Slurm tells the plugin of no
 * reconfiguration: the agent notices one when slurm_conf.last_update
 * moves.  But Slurm moves that stamp for more than a reconfiguration:
 * scontrol setdebug, setdebugflags, setschedloglevel and
 * fsdampeningfactor move it too (proc_req.c, 22.05 and 24.11).  Taken for
 * a reconfiguration, each of those read datalocality.conf again, made the
 * policy anew (its memory of earlier plans gone, the partitioner helper
 * restarted), reloaded the state file and restarted the node channel: an
 * admin raising the log level to look at a problem changed what the agent
 * did, and the cycle after it took 300 ms at 100,000 pending jobs
 * (doc/benchmarks.md, 2026-12-01).
 *
 * Nor is sched/datalocality's sched_p_reconfig() a reconfiguration
 * alone: Slurm calls every scheduler plugin's at scontrol setdebugflags
 * too (_slurm_rpc_set_debug_flags(): sched_g_reconfig()).
 *
 * So the agent keeps a fingerprint of what a reconfiguration reads
 * (dl_agent.c's _conf_fp(): datalocality.conf's bytes, the node table's
 * names, SchedulerParameters, JobSubmitPlugins, SlurmUser) and applies a
 * stamp's move or a sched_p_reconfig() only when the fingerprint moved.
 * scontrol reconfigure with none of them changed changes nothing the
 * agent would have done differently: its node connections stay up, and
 * so do the policy's memory and its partitioner helper (which the
 * partitioner restarts itself when it dies, dl_partition.h).
 *
 * Pure (no Slurm header): unit tested in check_agent_reconf.c.
 */
#ifndef AGENT_RECONF_H
#define AGENT_RECONF_H

#include <stdint.h>

/*
 * agent_reconf_file - the bytes of the file at path into fingerprint h
 * (agent_fnv.h), with their count; a file that cannot be opened or read
 * hashes as a marker that no content gives (a file removed is a change).
 */
uint64_t agent_reconf_file(uint64_t h, const char *path);

/*
 * agent_reconf_str - s into fingerprint h, with its length, so that a
 * list of strings hashes as the list (["ab", "c"] is not ["a", "bc"]);
 * NULL hashes apart from "".
 */
uint64_t agent_reconf_str(uint64_t h, const char *s);

#endif /* AGENT_RECONF_H */
