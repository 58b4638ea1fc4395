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

#include <stdbool.h>
#include <stdint.h>

/*
 * What the agent has seen of slurm.conf's stamp and of the fingerprint.
 * Slurm's stamp counts whole seconds: a reconfiguration later in the
 * second the stamp was seen in leaves it as it was.  So a stamp seen in
 * its own second is looked at once more when that second is over
 * (recheck), by its fingerprint alone, as agent_quiet.h does with the
 * job stamp; without that, a reconfiguration in the same second as the
 * one before, or as slurmctld's start, waited for the next move of the
 * stamp, under the plugstack entry point possibly for ever.
 */
typedef struct agent_reconf {
	bool known;     /* a stamp was seen (false: apply at once) */
	int64_t seen;   /* the stamp, seconds */
	bool recheck;   /* seen within its own second: look again after */
	uint64_t fp;    /* the fingerprint then */
} agent_reconf_t;

/* What agent_reconf_seen() found. */
typedef enum {
	AGENT_RECONF_NONE,   /* nothing moved: nothing to do */
	AGENT_RECONF_APPLY,  /* what the agent reads changed: reconfigure */
	AGENT_RECONF_SAME,   /* asked, or the stamp moved, and nothing it
			      * reads changed: say so, do nothing */
} agent_reconf_what_t;

/*
 * agent_reconf_look - whether to take the fingerprint at wall second
 * now, with slurm.conf's stamp at stamp: the first time, when asked
 * (sched_p_reconfig()), when the stamp moved, or for the recheck once
 * the stamp's second is over.
 */
bool agent_reconf_look(const agent_reconf_t *r, bool asked, int64_t stamp,
		       int64_t now);

/*
 * agent_reconf_seen - after agent_reconf_look() said so, the fingerprint
 * fp taken at wall second now with the stamp at stamp: r updated, and
 * RET what to do.  The first look applies (the agent reads its
 * configuration at start); a recheck that finds nothing changed is
 * AGENT_RECONF_NONE, not SAME (nothing asked for it).
 */
agent_reconf_what_t agent_reconf_seen(agent_reconf_t *r, bool asked,
				      int64_t stamp, int64_t now,
				      uint64_t fp);

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
