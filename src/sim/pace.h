/*
 * pace.h - when dl-sim's next full plan is due.
 *
 * By default dl-sim plans at every instant in which something changed
 * (the papers' rule).  --replan-min-interval S spaces full plans at
 * least S simulated seconds apart, whatever changed; in between the last
 * plan is carried over.
 *
 * --agent-cycle S paces plans as the plugin's agent paces its cycles
 * (src/plugins/common/agent/agent_quiet.h), not uniformly:
 *   - a new job record makes a cycle due at once (the job waits at its
 *     submit gate), seen at the agent's next poll: job_submit wakes the
 *     agent before Slurm makes the job's record, so the agent looks
 *     again AGENT_POLL_MS later (agent_poll.h).  An arrival plans
 *     DL_SIM_PACE_POLL_S after it, with the jobs that arrived in
 *     between (until 2026-12-01, in its own instant: one plan per
 *     arrival however close they came, at 1,024 nodes 4,999 plans for
 *     5,000 jobs);
 *   - a node's state (a job started or ended on it) is followed at most
 *     every AGENT_QUIET_NODE_MS: DL_SIM_PACE_NODE_S after the last plan;
 *   - anything else (a file staged, a bounded wait running out, the
 *     clock): at most every AGENT_QUIET_CHANGE_MS, which is S;
 * and a plan sees the agent's window of pending jobs (DL_SIM_PACE_WINDOW).
 * Until 2026-12-01 --agent-cycle paced arrivals and ends at S too, and
 * so modelled an agent that cycles far less often than the plugin's under
 * arrivals.  The agent's budget gap (no cycle sooner than twice the last
 * one's wall time, agent_budget_gap_ms()) depends on the host, so it is
 * not modelled: dl-sim plans at least as often as the agent.
 *
 * Pure (no simulator state): sim.c tells it what happened, unit tested in
 * check_simpace.c.
 */
#ifndef DL_SIM_PACE_H
#define DL_SIM_PACE_H

#include <stddef.h>

/* AGENT_QUIET_NODE_MS of agent_quiet.h, in seconds. */
#define DL_SIM_PACE_NODE_S 0.1

/* AGENT_POLL_MS of agent_poll.h, in seconds. */
#define DL_SIM_PACE_POLL_S 0.01

/*
 * The agent's planning window (agent_window.h, agent_window_size()) with
 * Slurm's default SchedulerParameters: max(default_queue_depth 100,
 * bf_max_job_test 500) pending jobs, plus one per free CPU.  Under
 * --agent-cycle a plan sees the first that many pending jobs in arrival
 * order (equal priorities: Slurm's order is submit time), unless --window
 * says otherwise; the agent neither reads nor plans the jobs behind.
 */
#define DL_SIM_PACE_WINDOW 500

typedef struct dl_sim_pace {
	double interval; /* seconds between plans; <= 0: every event */
	int agent;       /* --agent-cycle: the agent's rules above */
	int have;        /* a full plan was made */
	double last;     /* when, simulated seconds */
	int arrived;     /* a job arrived since that plan */
	double arrived_at; /* the first such arrival, simulated seconds */
	int moved;       /* a job started or ended since that plan */
} dl_sim_pace_t;

/* Why a full plan is due (dl_sim_pace_why()), counted in the result. */
typedef enum {
	DL_SIM_PACE_EVENT,    /* not paced, the first plan, or forced */
	DL_SIM_PACE_INTERVAL, /* the interval since the last plan is over */
	DL_SIM_PACE_ARRIVAL,  /* the agent's rules: a job arrived */
	DL_SIM_PACE_NODE,     /* the agent's rules: a job started or ended */
	DL_SIM_PACE_WHY_N
} dl_sim_pace_why_t;

/*
 * dl_sim_pace_window - how many pending jobs a plan sees: window if not 0
 * (--window), else under the agent's rules DL_SIM_PACE_WINDOW plus
 * free_slots, else 0 (all).
 */
size_t dl_sim_pace_window(const dl_sim_pace_t *p, size_t window,
			  size_t free_slots);

/* dl_sim_pace_init - no plan yet, interval seconds apart (<= 0: every
 * event), the agent's rules if agent. */
void dl_sim_pace_init(dl_sim_pace_t *p, double interval, int agent);

/* dl_sim_pace_arrival - a job arrived at now. */
void dl_sim_pace_arrival(dl_sim_pace_t *p, double now);

/* dl_sim_pace_moved - a job started or ended. */
void dl_sim_pace_moved(dl_sim_pace_t *p);

/* dl_sim_pace_planned - a full plan was made at now. */
void dl_sim_pace_planned(dl_sim_pace_t *p, double now);

/* dl_sim_pace_due - 1 if a full plan is due at now (force: always). */
int dl_sim_pace_due(const dl_sim_pace_t *p, double now, int force);

/*
 * dl_sim_pace_why - why a plan made at now was due (the first rule of
 * dl_sim_pace_due() that holds; DL_SIM_PACE_EVENT if none does: forced).
 */
dl_sim_pace_why_t dl_sim_pace_why(const dl_sim_pace_t *p, double now);

/*
 * dl_sim_pace_next - the earliest time a full plan becomes due if nothing
 * else happens, for a wake-up: the last plan plus DL_SIM_PACE_NODE_S when
 * a job moved under the agent's rules, else plus the interval.  Only
 * meaningful once a plan was made and none is due.
 */
double dl_sim_pace_next(const dl_sim_pace_t *p);

#endif
