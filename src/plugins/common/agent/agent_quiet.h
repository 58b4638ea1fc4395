/*
 * agent_quiet.h - when the agent's next cycle is due.  Pure (no Slurm
 * header), so that it is unit tested on its own (check_agent_window.c);
 * dl_agent.c feeds it slurmctld's change stamps.
 *
 * A cycle copies slurmctld's jobs, nodes, partitions and reservations,
 * reads the node services' reports and plans.  When none of them changed
 * since the last cycle and no clock of the agent's runs out, a cycle would
 * plan what the last one planned and change nothing: it is skipped, so
 * that an idle agent costs next to nothing however long the queue (issue
 * 25: a cycle a second walking a long queue was most of its cost).
 *
 * What the agent follows, and how soon:
 *   - the number of job records (a job submitted waits at its submit gate
 *     for its node): at once;
 *   - the nodes (what a snapshot reads of them, hashed when
 *     last_node_update moves): at most every AGENT_QUIET_NODE_MS;
 *   - last_job_update, last_part_update, last_resv_update, the services'
 *     reports, a cycle that applied changes or left jobs unread: at most
 *     every AGENT_QUIET_CHANGE_MS, as cycles ran before, or every
 *     AGENT_QUIET_PACE times the last snapshot's time if longer (at most
 *     AGENT_QUIET_MAX_MS): a long queue's walk takes at most a
 *     twentieth of a core then;
 *   - the clocks of the last snapshot (agent_snapshot.h, wake): "live"
 *     (a node has free CPUs, so a placed job's wait may run out; a job is
 *     held at its submit gate; a node is powering up or down; a prefetch
 *     is in force) keeps a cycle every AGENT_QUIET_CHANGE_MS; a time (a
 *     begin time, a reservation's start or end) asks for a cycle then;
 *   - anything else (an inventory file rewritten on a node, a running
 *     job outliving its estimate): at least every AGENT_QUIET_MAX_MS.
 * Slurm's stamps count whole seconds: a change in the second of the last
 * snapshot, after it, leaves the stamp as the snapshot saw it, so a stamp
 * equal to that second counts as changed once the second is over.
 */
#ifndef AGENT_QUIET_H
#define AGENT_QUIET_H

#include <stdbool.h>
#include <stdint.h>

#define AGENT_QUIET_NODE_MS 100
#define AGENT_QUIET_CHANGE_MS 1000
#define AGENT_QUIET_MAX_MS 10000
#define AGENT_QUIET_PACE 20

/* wake of a snapshot: clocks run that need a cycle every second. */
#define AGENT_QUIET_LIVE 0
/* wake of a snapshot: no clock of the agent's runs. */
#define AGENT_QUIET_NEVER INT64_MAX

/* What a cycle depends on, as slurmctld stamps it. */
typedef struct agent_stamps {
	int64_t njobs;          /* job records */
	/*
	 * Slurm's last_*_update, seconds, but node: the nodes' generation
	 * (dl_agent.c), moved when what a snapshot reads of them changed.
	 */
	int64_t job, node, part, resv;
	uint64_t services;      /* fingerprint of the services' reports */
} agent_stamps_t;

typedef struct agent_quiet {
	bool ran;               /* a cycle ran since the agent started */
	agent_stamps_t seen;    /* as the last cycle's snapshot saw them */
	int64_t seen_at;        /* wall second of that snapshot */
	int64_t wake;           /* its clocks: AGENT_QUIET_LIVE, a wall
				 * second, or AGENT_QUIET_NEVER */
	bool again;             /* it applied changes or left work */
	int64_t last_ms;        /* when it began, monotonic ms */
	int64_t pace_ms;        /* changes and clocks wait this long */
} agent_quiet_t;

/*
 * agent_quiet_due - whether a cycle is due at monotonic now_ms, wall
 * second now_s, with slurmctld's stamps cur.  RET a short reason ("jobs",
 * "nodes", "change (...)" saying what changed, "clock", "quiet") or NULL:
 * not due.
 */
const char *agent_quiet_due(const agent_quiet_t *q, const agent_stamps_t *cur,
			    int64_t now_ms, int64_t now_s);

/*
 * agent_quiet_ran - a cycle began at monotonic start_ms; its snapshot, in
 * wall second snap_s, took snap_ms and saw the stamps at and the clocks
 * wake.  again: it changed jobs or left jobs unread, so the next one must
 * look again.
 */
void agent_quiet_ran(agent_quiet_t *q, const agent_stamps_t *at,
		     int64_t snap_s, double snap_ms, int64_t wake, bool again,
		     int64_t start_ms);

#endif /* AGENT_QUIET_H */
