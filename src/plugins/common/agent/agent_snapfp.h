/*
 * agent_snapfp.h - a hash of what a cycle plans from (agent_snapshot.h),
 * so that a cycle woken only by Slurm's job stamp can tell whether
 * anything it reads changed.
 *
 * Why: last_job_update moves for much the agent never reads.  Above all,
 * sched/backfill clears every pending job's expected start at the start
 * of each pass and sets it again, moving the stamp at every pass in which
 * it reserves anything (backfill.c, _clear_job_estimates() and
 * "start_res > job_ptr->start_time").  With one 100,000-task array
 * pending, that woke two full cycles every bf_interval (the second for the
 * stamp's own second, agent_quiet.h), each planning, applying and saving
 * what the last one had: 2.7x sched/backfill's CPU (doc/benchmarks.md).
 * Pure: no Slurm header, unit tested in check_agent_window.c.
 */
#ifndef AGENT_SNAPFP_H
#define AGENT_SNAPFP_H

#include <stdint.h>

#include "agent_snapshot.h"

/*
 * agent_snapfp - a hash of *s as a plan and the cycle's decisions read it:
 * the nodes, every job copied with what the cycle reads of it, the window
 * and the arrays to split, and the clocks (wake).  Left out: the
 * snapshot's own times (now, clock, took_ms, agent_cycle: time alone wakes
 * a cycle through wake); a pending job's start (Slurm's estimate, which
 * backfill rewrites; the plan reads start of running jobs only,
 * dl_state.h); how the walk went (full, skipped: a full walk and one that
 * skips the jobs below the floors copy the same jobs, and count the
 * skipped ones in pending); and the gate's bookkeeping of the jobs outside the window
 * (regate, the holds to renew by id now; renew and renew_wake, those to
 * renew between cycles), which no plan reads: a cycle stopped at its
 * snapshot still renews and keeps them (dl_agent.c, _unchanged()).  With
 * them in the hash, the gate hold of a long array's record, renewed every
 * quarter of GateMaxHold, made two full cycles each time.
 */
uint64_t agent_snapfp(const snapshot_t *s);

#endif /* AGENT_SNAPFP_H */
