/*
 * agent_window.h - the planning window: which pending jobs a cycle reads
 * and plans.  Pure (no Slurm header, malloc()/free() only), so that it is
 * unit tested on its own; agent_snapshot.c feeds it slurmctld's jobs.
 *
 * Slurm never looks deep into its queue: the main scheduler tries at most
 * default_queue_depth jobs per pass (100 unless set), sched/backfill at
 * most bf_max_job_test (500), and at most bf_max_job_part of one
 * partition (unlimited unless set), all in priority order.  A job deeper
 * than that in its partition cannot start in the next pass, so planning
 * it buys nothing: by the time it can start, the cluster and its caches
 * have changed.  The window of a partition is its first
 * max(default_queue_depth, backfill's share of the partition) pending
 * jobs, by Slurm's order (priority, then submit time, then job id), plus
 * as many as there are free CPUs (each could start a job ahead of it
 * before the next cycle, moving it up by one); PlanWindow in
 * datalocality.conf sets it outright.
 */
#ifndef AGENT_WINDOW_H
#define AGENT_WINDOW_H

#include <stdint.h>
#include <time.h>

/* Slurm 22.05's defaults (job_scheduler.c, backfill.c). */
#define AGENT_WINDOW_QUEUE_DEPTH 100
#define AGENT_WINDOW_BF_TEST 500

typedef struct agent_window_sched {
	uint32_t queue_depth;   /* default_queue_depth */
	uint32_t bf_test;       /* bf_max_job_test */
	uint32_t bf_part;       /* bf_max_job_part, 0: no limit */
} agent_window_sched_t;

/*
 * agent_window_sched_parse - the three settings from a SchedulerParameters
 * string (NULL: none), Slurm's defaults for those not set or not a
 * positive number.
 */
void agent_window_sched_parse(const char *params, agent_window_sched_t *out);

/*
 * agent_window_size - jobs per partition in the window: override if not
 * 0, else max(queue_depth, min(bf_test, bf_part)) + free_cpus.
 */
uint32_t agent_window_size(const agent_window_sched_t *s, uint32_t override,
			   uint32_t free_cpus);

/* A pending job in one of its partitions. */
typedef struct agent_window_cand {
	uint64_t part;          /* partition, any number naming it */
	uint32_t priority;      /* Slurm's priority, higher first */
	time_t submit;          /* then earlier submission */
	uint32_t job_id;        /* then lower job id */
	uint32_t idx;           /* the caller's index of the job */
} agent_window_cand_t;

/*
 * agent_window_select - mark in[c.idx] = 1 for every candidate among the
 * first per_part of its partition (a job in several partitions is in if
 * it is in any).  Reorders cand.  in has room for every idx and is not
 * cleared first.  RET the number of jobs newly marked.
 */
uint32_t agent_window_select(agent_window_cand_t *cand, uint32_t n,
			     uint32_t per_part, uint8_t *in);

#endif /* AGENT_WINDOW_H */
