/*
 * agent_poll.h - how long the agent thread sleeps between its looks at
 * slurmctld's stamps (dl_agent.c's loop).  Pure (no Slurm header), so
 * that it is unit tested on its own (check_agent_poll.c); agent_quiet.h
 * says when a cycle is due, this says how soon the thread looks again.
 *
 * A submitted job waits at its submit hold until a cycle places it, so
 * the thread looks often while anything moves (AGENT_POLL_MS); while
 * nothing moves (no stamp changed, no cycle due) the poll doubles up to
 * AGENT_POLL_IDLE_MS: 100 wakeups a second of an idle agent were most of
 * what it cost slurmctld with nothing to do (contrib/bench_pending.sh
 * ARRAY=1: about 3 ms of CPU a second).  Any change brings it back to
 * AGENT_POLL_MS.
 *
 * And up to AGENT_POLL_QUIET_MS once no cycle ran for AGENT_QUIET_MAX_MS
 * and the last one saw no clock running (no free CPU: a job submitted
 * then cannot start before a change the poll sees anyway): with a long
 * array pending and no cycle for minutes, the 12 wakeups a second were
 * most of what the agent still cost.  What would otherwise wait for that
 * poll wakes the thread instead: a job gated at submit
 * (dl_agent_submitted(), from job_submit/datalocality; the poll then goes
 * back to AGENT_POLL_MS until the job is in Slurm's list), nodes' staging
 * reports (agent_acct_on_put()), the node services' reports
 * (agent_channel_on_change()), a reconfigure.  So what waits for it is
 * what no submit hold waits on and what Slurm tells no plugin of: a
 * node's state or a job's start seen up to AGENT_POLL_QUIET_MS later,
 * only while no CPU is free and nothing else moves.
 *
 * A cycle that plans ends the quiet spell (agent_quiet_ran()), and the
 * poll with it (agent_poll_after_cycle()): the jobs it placed start in
 * Slurm's next pass, a change to see within AGENT_POLL_IDLE_MS.  Without
 * that (tried 2026-11-30), a cycle due for the job stamp alone kept the
 * poll it had before, 5 s after a quiet spell, and the 2-s jobs it placed
 * were seen to start only once they had ended (test_state.sh).
 *
 * Each wakeup costs the thread 100-200 us of CPU with a 100,000-task
 * array pending (the wait, the services' sync, the staging queue, the
 * clocks: contrib/bench_wakeups.sh PROFILE=DIR BF_INTERVAL=5): at a
 * wakeup a second the poll was most of what the agent cost over
 * sched/backfill (contrib/bench_pending.sh ARRAY=1, the per-thread
 * lines).  The quiet poll was 500 ms, then 1 s, then 2 s (doc/
 * benchmarks.md).
 */
#ifndef AGENT_POLL_H
#define AGENT_POLL_H

#include <stdbool.h>
#include <stdint.h>

#include "agent_quiet.h"

#define AGENT_POLL_MS 10
#define AGENT_POLL_IDLE_MS 80
#define AGENT_POLL_QUIET_MS 5000

/*
 * agent_poll_max - the longest poll at monotonic now_ms, after the cycles
 * q records: AGENT_POLL_QUIET_MS in a quiet spell (above), else
 * AGENT_POLL_IDLE_MS.
 */
int64_t agent_poll_max(const agent_quiet_t *q, int64_t now_ms);

/*
 * agent_poll_next - the poll after one of poll_ms at now_ms: AGENT_POLL_MS
 * if reset (something moved, or work is left: the caller's judgement,
 * agent_quiet_poll_reset() among it), else twice poll_ms within
 * agent_poll_max().
 */
int64_t agent_poll_next(const agent_quiet_t *q, int64_t poll_ms, bool reset,
			int64_t now_ms);

/*
 * agent_poll_after_cycle - the poll once a cycle is over at now_ms:
 * poll_ms within agent_poll_max() as the cycle left q (a planned cycle
 * ended the quiet spell; one that stopped unplanned did not).
 */
int64_t agent_poll_after_cycle(const agent_quiet_t *q, int64_t poll_ms,
			       int64_t now_ms);

#endif
