/*
 * agent_quiet.h - when the agent's next cycle is due.  Pure (no Slurm
 * header), so that it is unit tested on its own (check_agent_window.c,
 * check_agent_due.c); dl_agent.c feeds it slurmctld's change stamps.
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
 *   - the gate holds of the jobs outside the window (agent_gate.h,
 *     renewals between cycles): renewed when due, by id, without a cycle
 *     ("renew"); a hold found run out asks for a cycle;
 *   - a running job reaching its estimated end (dl_agent.c adds it to
 *     the snapshot's clocks);
 *   - an inventory file rewritten on a node: looked at every
 *     AGENT_QUIET_MAX_MS ("check": dl_agent.c stats the nodes' files),
 *     a cycle only when one changed, due until one plans
 *     (agent_quiet_between());
 *   - anything else: a cycle at least every AGENT_QUIET_FULL_MS.  (It was
 *     every AGENT_QUIET_MAX_MS: with a 100,000-task array pending, those
 *     cycles and the gate's were all an idle agent cost, several times
 *     what sched/backfill costs slurmctld then.)
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
#define AGENT_QUIET_FULL_MS 300000
#define AGENT_QUIET_PACE 20
/*
 * While the job stamp moves for nothing (jobs_noise), a cycle for it waits
 * for the stamp's second to end, but for less than this many seconds from
 * the first poll that put it off: a stamp moved in every second would
 * otherwise put the cycle off for ever.
 */
#define AGENT_QUIET_NOISE_WAIT_S 2

/*
 * Why a cycle is due when only Slurm's job stamp moved: dl_agent.c's
 * _unchanged() asks for it by this name.
 */
#define AGENT_QUIET_WHY_JOBS "change (jobs)"
/* Why a cycle is due when a "check" found an inventory file changed. */
#define AGENT_QUIET_WHY_INVENTORY "change (inventory)"

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
	int64_t renew;          /* wall second the next hold is renewed
				 * between cycles, or AGENT_QUIET_NEVER */
	int64_t checked_ms;     /* the last "check" or cycle, monotonic */
	/*
	 * The last cycle due for the job stamp alone stopped at its
	 * snapshot (agent_quiet_seen()) and none has planned since: the
	 * stamp moves for nothing the agent reads (sched/backfill's passes
	 * setting expected starts again), so its moves no longer bring the
	 * poll back to its shortest (agent_quiet_poll_reset()), and a move
	 * in the current second waits for the second to be over (less than
	 * AGENT_QUIET_NOISE_WAIT_S from noise_wait_s): the stamp's own
	 * second (above) would otherwise make a second walk after every
	 * pass.
	 */
	bool jobs_noise;
	int64_t noise_wait_s;   /* wall second a poll first put such a
				 * cycle off (agent_quiet_polled()), or 0 */
	/*
	 * A "check" found an inventory changed (agent_quiet_inventory())
	 * and no cycle has planned since: a cycle is due for it
	 * (agent_quiet_between()) until one plans (agent_quiet_ran()).  A
	 * cycle that stops at its snapshot (agent_quiet_seen()) does not
	 * clear it: before 15036a8, one due for the job stamp alone took
	 * the inventory's place, stopped unplanned and cleared it, and the
	 * file waited for the next cycle, up to AGENT_QUIET_FULL_MS.
	 */
	bool inv_due;
} agent_quiet_t;

/*
 * agent_quiet_due - whether a cycle is due at monotonic now_ms, wall
 * second now_s, with slurmctld's stamps cur.  RET a short reason ("jobs",
 * "nodes", "change (...)" saying what changed, "clock", "quiet") or NULL:
 * not due; or what is due instead of a cycle: "renew" (holds to renew,
 * then agent_quiet_renewed()) or "check" (the inventories to look at,
 * then agent_quiet_checked() if none changed).
 */
const char *agent_quiet_due(const agent_quiet_t *q, const agent_stamps_t *cur,
			    int64_t now_ms, int64_t now_s);

/*
 * agent_quiet_between - why a cycle is due, between cycles: why is what
 * agent_quiet_due() returned, renew_why what renewing the holds due
 * found, done first whatever else is due (NULL: none was due, or none
 * asks for a cycle).  An inventory found changed comes first (inv_due),
 * then why if it is a cycle's reason, then renew_why.  RET why a cycle
 * is due, or NULL; or "check" itself when the inventories are to be
 * looked at: then agent_quiet_inventory() if one changed, else
 * agent_quiet_checked() and renew_why is due.
 */
const char *agent_quiet_between(const agent_quiet_t *q, const char *why,
				const char *renew_why);

/*
 * agent_quiet_inventory - the "check" agent_quiet_between() asked for
 * found an inventory changed: a cycle is due for it until one plans
 * (inv_due).  RET AGENT_QUIET_WHY_INVENTORY.
 */
const char *agent_quiet_inventory(agent_quiet_t *q);

/*
 * agent_quiet_ran - a cycle began at monotonic start_ms and planned (one
 * that stopped at its snapshot calls agent_quiet_seen() instead); its
 * snapshot, in wall second snap_s, took snap_ms and saw the stamps at
 * and the clocks wake.  again: it changed jobs or left jobs unread, so
 * the next one must look again.  An inventory found changed is no longer
 * due.
 */
void agent_quiet_ran(agent_quiet_t *q, const agent_stamps_t *at,
		     int64_t snap_s, double snap_ms, int64_t wake, bool again,
		     int64_t start_ms);

/*
 * agent_quiet_jobs_only - whether, of the stamps, only Slurm's job stamp
 * may have moved since the last cycle's snapshot, as cur (read at wall
 * second now_s) shows them, and that cycle left nothing to look at again.
 */
bool agent_quiet_jobs_only(const agent_quiet_t *q, const agent_stamps_t *cur,
			   int64_t now_s);
/*
 * agent_quiet_seen - a cycle due for the job stamp alone found nothing it
 * reads changed (agent_snapfp.h) in its snapshot of wall second snap_s:
 * the stamps at count as seen; its clocks stay the last cycle's, and an
 * inventory found changed stays due (it did not plan).
 */
void agent_quiet_seen(agent_quiet_t *q, const agent_stamps_t *at,
		      int64_t snap_s);
/*
 * agent_quiet_renewed - the holds are renewed (after a cycle: listed) up
 * to wall second next (the next renewal due, AGENT_QUIET_NEVER: none).
 */
void agent_quiet_renewed(agent_quiet_t *q, int64_t next);

/*
 * agent_quiet_polled - after agent_quiet_due() at wall second now_s with
 * the stamps cur: note when a cycle for the job stamp was first put off
 * (jobs_noise), which bounds how long it may be.
 */
void agent_quiet_polled(agent_quiet_t *q, const agent_stamps_t *cur,
			int64_t now_s);

/* agent_quiet_checked - a "check" at monotonic now_ms found no change. */
void agent_quiet_checked(agent_quiet_t *q, int64_t now_ms);

/*
 * agent_quiet_poll_reset - whether the agent's poll goes back to its
 * shortest: the stamps moved from prev (the last poll's) to cur, or a
 * cycle is due (why, agent_quiet_due()).  Not for the job stamp, or a
 * cycle due for it alone, while it moves for nothing (jobs_noise): such
 * a cycle stops at its snapshot anyway, and a poll back at 10 ms after
 * each of sched/backfill's passes kept an agent with a long array
 * pending at a dozen wakeups a second.  A job submitted (njobs) and the
 * nodes still reset it: a new job waits at its gate for a cycle.
 */
bool agent_quiet_poll_reset(const agent_quiet_t *q, const agent_stamps_t *cur,
			    const agent_stamps_t *prev, const char *why);

#endif /* AGENT_QUIET_H */
