/*
 * agent_peek.h - a hash of the job records as slurmctld keeps them, taken
 * without copying anything, so that a cycle woken by Slurm's job stamp
 * alone can often tell that no job changed without a walk.
 *
 * Why: with one 100,000-task array pending, sched/backfill moves
 * last_job_update at every pass (agent_snapfp.h), and each pass cost a
 * walk that copied the ~100 jobs of the window (their eligible nodes,
 * where they fit, their agent records) only to hash the copy and find it
 * unchanged: most of what the agent thread still cost
 * (contrib/bench_wakeups.sh, perf; doc/benchmarks.md, 2026-11-30).
 *
 * The hash covers what a walk's copy is made of in each record read
 * (states, numbers, pointers to partitions and reservations, strings,
 * the node bitmaps' extent), not what the copy derives from the nodes,
 * partitions, reservations or clocks, which have stamps of their own
 * (agent_quiet.h).  It is a shortcut, not the truth: a field it leaves
 * out, or a long string edited in place to the same length at the same
 * address, is seen at the next walk, at most AGENT_PEEK_WALK_MAX_S later
 * (dl_agent.c).  Call under slurmctld's job read lock.
 */
#ifndef AGENT_PEEK_H
#define AGENT_PEEK_H

#include <stdint.h>

/*
 * A cycle stopped by a peek walks anyway when the last walk is this old:
 * Slurm's default bf_interval, so that the agent walks at least as often
 * as backfill's passes would wake it at Slurm's defaults.
 */
#define AGENT_PEEK_WALK_MAX_S 30

struct job_record;

/* h with what a walk copies of *job_ptr mixed in. */
uint64_t agent_peek_job(uint64_t h, struct job_record *job_ptr);

#endif /* AGENT_PEEK_H */
