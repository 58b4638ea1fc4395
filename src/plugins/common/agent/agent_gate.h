/*
 * agent_gate.h - the submit gate's bound and its marks.  Pure (no Slurm
 * header, no allocation), so that it is unit tested on its own.
 *
 * job_submit/datalocality holds a new annotated single-node job back with
 * a begin time a bound ahead until the planning agent has placed it.  The
 * bound is a few of the agent's cycles, as it measures them, between a
 * floor and a ceiling (GateMinHold, GateMaxHold in datalocality.conf): a
 * job submitted just after a cycle took its snapshot waits for the rest of
 * that cycle, the pause after it (twice its length) and the next cycle,
 * so AGENT_GATE_CYCLES cycles cover it with one to spare.  The agent
 * publishes the bound in a small file; job_submit reads it (when it
 * changed) for every job it gates and notes it, with the begin time the
 * user asked for, in the job's SPANK environment as DL_GATE=<bound>,<begin>.
 *
 * From that mark and the job record alone, the agent tells a job held by
 * the gate (its begin time still ahead, at most AGENT_GATE_HOLD_MAX: Slurm
 * defers requeued jobs by 120 s or more, which are never taken for gated)
 * from one the gate let go by its clock, unplaced: its begin time passed
 * and is neither its submission nor the user's own (which is what the
 * agent restores when it releases a job).
 */
#ifndef AGENT_GATE_H
#define AGENT_GATE_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* Cycles of the agent a gated job waits for at most (see above). */
#define AGENT_GATE_CYCLES 5
/* Defaults of GateMinHold and GateMaxHold, seconds. */
#define AGENT_GATE_MIN_DEFAULT 3
#define AGENT_GATE_MAX_DEFAULT 30
/* No hold is longer: below Slurm's requeue delay (cred_expire, 120 s). */
#define AGENT_GATE_HOLD_MAX 60
/* Weight of the newest cycle in the moving average. */
#define AGENT_GATE_EWMA 0.2
/* The environment entry holding the mark (DL_GATE=<bound>,<begin>). */
#define AGENT_GATE_ENV "DL_GATE"

/* The agent's measure of its own cycles. */
typedef struct agent_gate {
	double last;            /* seconds the last cycle took */
	double ewma;            /* their moving average */
	double max_recent;      /* the longest of the last cycles, decaying */
	uint32_t cycles;        /* cycles seen */
} agent_gate_t;

/* agent_gate_observe - account for a cycle that took sec seconds. */
void agent_gate_observe(agent_gate_t *g, double sec);

/*
 * agent_gate_cycle - the cycle time the bound is made of: the larger of
 * the moving average and the longest recent cycle, so that one slow cycle
 * raises it at once and it comes down over a few dozen fast ones.
 */
double agent_gate_cycle(const agent_gate_t *g);

/*
 * agent_gate_bound - whole seconds a new job is held at most:
 * AGENT_GATE_CYCLES cycles, rounded up, within [floor, ceiling] (ceiling
 * itself within [1, AGENT_GATE_HOLD_MAX], floor within [1, ceiling]).
 */
uint32_t agent_gate_bound(const agent_gate_t *g, uint32_t floor,
			  uint32_t ceiling);

/*
 * agent_gate_mark_format - "<bound>,<begin>" into buf (the value of
 * AGENT_GATE_ENV).  RET false if it does not fit.
 */
bool agent_gate_mark_format(char *buf, size_t len, uint32_t bound,
			    time_t begin);

/*
 * agent_gate_mark_parse - read a mark.  RET false (outputs unchanged) for
 * anything but two decimal numbers, the bound within 1..
 * AGENT_GATE_HOLD_MAX.
 */
bool agent_gate_mark_parse(const char *val, uint32_t *bound, time_t *begin);

typedef enum {
	AGENT_GATE_NONE,        /* not gated, or released by the agent */
	AGENT_GATE_HELD,        /* held back by the gate now */
	AGENT_GATE_EXPIRED,     /* let go by the gate's clock, not placed */
} agent_gate_state_t;

/*
 * agent_gate_state - what the gate does to a pending or just started job
 * with a mark of user begin time ubegin, begin time begin and submit time
 * submit, at now.  A job without a mark is AGENT_GATE_NONE.
 */
agent_gate_state_t agent_gate_state(bool marked, time_t ubegin, time_t begin,
				     time_t submit, time_t now);

/*
 * agent_gate_release_to - the begin time a released job gets back: its
 * user's if later than its submission, else its submission (eligible
 * since then, for the age factor of its priority).
 */
time_t agent_gate_release_to(time_t ubegin, time_t submit);

/*
 * A cycle under way.  The bound a job got at submit is made of the cycles
 * measured until then; when cycles grow (the first of a burst of heavy
 * jobs), a job gated just before may have less of its hold left than the
 * cycle that is to place it takes, and Slurm's clock lets it go unplaced
 * moments before that cycle's end (a CI run, 2026-12-03: gated with 3 s
 * at 35.378, the cycle that read it from 36.628 to 38.960, let go at
 * 38.378, started by backfill at 38.941).  So a cycle renews, before it
 * plans, the hold of each gated job of its window with less than
 * AGENT_GATE_HURRY of its cycles left.
 */
#define AGENT_GATE_HURRY 2.0

/*
 * agent_gate_hurry_to - the begin time of a gated job of the window
 * (begin, release_to as for agent_gate_renew_to(), submitted at submit)
 * when a cycle that is to place it begins at now and the agent's cycles
 * take cycle seconds (agent_gate_cycle()): now + AGENT_GATE_CYCLES cycles
 * if the gate holds it with less than AGENT_GATE_HURRY cycles left, never
 * later than submit + ceiling (GateMaxHold: no job is held longer than
 * the admin allows), else begin.  The cycle releases it when it places it.
 */
time_t agent_gate_hurry_to(time_t begin, time_t release_to, time_t submit,
			   time_t now, double cycle, uint32_t ceiling);

/* A hold agent_gate_hurry_to() moves: to, if begin is still the job's. */
typedef struct agent_gate_hurry {
	uint32_t job_id;
	time_t begin;           /* the begin time the snapshot read */
	time_t to;              /* agent_gate_hurry_to() of it */
} agent_gate_hurry_t;

/*
 * agent_apply_hurry - (the agent only, agent_apply.c) move the holds of
 * h[0..n) whose jobs are still pending with the begin time the snapshot
 * read, still ahead.  Caller holds the job write lock.  RET the holds
 * moved.
 */
uint32_t agent_apply_hurry(const agent_gate_hurry_t *h, uint32_t n);

/*
 * Renewals between cycles.  A gated job outside the planning window has
 * its hold renewed once half gone, from a point a sixth of the hold later
 * than that (agent_snapshot.c gathers the renewals that fall within it).
 * Those renewals are the only thing an idle agent with a long array
 * pending must do: the snapshot lists such jobs (up to a bound), and the
 * agent renews them by id under the job write lock without a cycle
 * (agent_apply_renew()), so a clock of its own no longer costs a snapshot
 * and a plan every 20 s.
 */
typedef struct agent_gate_renew {
	uint32_t job_id;
	time_t release_to;      /* agent_gate_release_to() of it: a begin
				 * time at or below it is no hold of ours */
} agent_gate_renew_t;

/* agent_gate_renew_due - when a hold ending at begin is to be renewed. */
int64_t agent_gate_renew_due(time_t begin, uint32_t hold);

/*
 * agent_gate_renew_to - the begin time of a marked job beginning at begin
 * after a renewal at now of hold seconds: now + hold if the gate holds it
 * (agent_gate_state() AGENT_GATE_HELD) and less than half of hold is left
 * (the rule of a renewal within a cycle, agent_apply.c), else begin.
 */
time_t agent_gate_renew_to(time_t begin, time_t release_to, time_t now,
			   uint32_t hold);

/*
 * agent_apply_renew - (the agent only, agent_apply.c) renew the holds of
 * r[0..n) by agent_gate_renew_to() at now; *next: the earliest renewal
 * due among those still held (agent_gate_renew_due()), INT64_MAX if none;
 * *expired: those whose hold ran out unrenewed (a cycle must say so at
 * once).  Caller holds the job write lock.  RET the holds renewed.
 */
uint32_t agent_apply_renew(const agent_gate_renew_t *r, uint32_t n,
			   uint32_t hold, int64_t *next, uint32_t *expired);

#endif /* AGENT_GATE_H */
