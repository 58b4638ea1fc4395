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
#define AGENT_WINDOW_ARRAY_RESV 20      /* bf_max_job_array_resv */
#define AGENT_WINDOW_ARRAY_RESV_MAX 1000 /* above: Slurm takes 20 */

typedef struct agent_window_sched {
	uint32_t queue_depth;   /* default_queue_depth */
	uint32_t bf_test;       /* bf_max_job_test */
	uint32_t bf_part;       /* bf_max_job_part, 0: no limit */
	uint32_t array_resv;    /* bf_max_job_array_resv */
} agent_window_sched_t;

/*
 * agent_window_sched_parse - the four settings from a SchedulerParameters
 * string (NULL: none), Slurm's defaults for those not set or not a
 * positive number (bf_max_job_array_resv: not a number from 0 to 1000,
 * as Slurm's backfill takes it).
 */
void agent_window_sched_parse(const char *params, agent_window_sched_t *out);

/*
 * agent_window_size - jobs per partition in the window: override if not
 * 0, else max(queue_depth, min(bf_test, bf_part)) + free_cpus.
 */
uint32_t agent_window_size(const agent_window_sched_t *s, uint32_t override,
			   uint32_t free_cpus);

/*
 * agent_window_array_room - how many pending tasks of job arrays the
 * window holds split off their arrays' records at a time: what Slurm
 * could start of them soon, a task for every usable CPU and one after it
 * (2 x usable_cpus), at least the tasks of one array sched/backfill plans
 * in a pass (array_resv: it tests an array's record for at most
 * bf_max_job_array_resv tasks, and reserves for no more), at most window.
 * Each task split off is one more job for sched/backfill to test every
 * bf_interval, and one more record for the agent's peek, where the
 * array's own record was one: 499 tasks split off a 100,000-task array on
 * 4 busy CPUs cost backfill most of what the agent added to slurmctld's
 * CPU, and 100 (the main scheduler's depth, the floor until 2026-11-30)
 * still a sixth of backfill's thread.
 */
uint32_t agent_window_array_room(const agent_window_sched_t *s,
				 uint32_t window, uint32_t usable_cpus);

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

/*
 * The cycles between two full walks of the queue.  A full walk reads
 * every queued job and keeps, per partition, the rank of its
 * (window + margin)-th job: its floor.  The walks after it skip, without
 * reading more than a job's priority and partition, every job ranked
 * below the floor of each of its partitions: such a job is not in the
 * window as long as a partition still has window jobs at or above its
 * floor (agent_window_keep_enough()), whatever was submitted, started,
 * held or re-prioritized since, since a job's rank is read at every walk.
 * What a skipped job may still need of the agent is its gate's hold
 * renewed: those jobs and when each is due are kept here too.
 */
#define AGENT_WINDOW_KEEP_PARTS 16

/* A gated job below the floor, due for its hold's renewal at due. */
typedef struct agent_window_due {
	uint32_t job_id;
	int64_t due;
} agent_window_due_t;

typedef struct agent_window_keep {
	int valid;              /* a full walk set the floors */
	uint32_t nparts;
	uint64_t part[AGENT_WINDOW_KEEP_PARTS];
	/* Lowest kept candidate of a partition with more queued jobs than
	 * it kept (deep[p]); a partition that kept all has no floor. */
	agent_window_cand_t floor[AGENT_WINDOW_KEEP_PARTS];
	uint8_t deep[AGENT_WINDOW_KEEP_PARTS];
	uint32_t per_part;      /* candidates kept per partition */
	uint32_t max_id;        /* highest job id of the full walk */
	int64_t full_at;        /* when it ran, s */
	int64_t stamp;          /* the caller's stamp then (partitions) */
	agent_window_due_t *due; /* owned (malloc), ndue of cap */
	uint32_t ndue, due_cap;
} agent_window_keep_t;

/*
 * agent_window_keep_floors - after a full walk: the floors of the
 * first per_part candidates of each partition of cand[0..n) (reorders
 * cand).  More than AGENT_WINDOW_KEEP_PARTS partitions: none kept (k
 * stays invalid, every walk is full).  The due list is left as it is.
 */
void agent_window_keep_floors(agent_window_keep_t *k,
			      agent_window_cand_t *cand, uint32_t n,
			      uint32_t per_part);

/*
 * agent_window_keep_below - whether a job of this priority, submit time
 * and id, in partition part, ranks below that partition's floor (a
 * partition not kept, or with no floor: false).  For a job in several
 * partitions the caller asks for each: it is skipped only if below all.
 */
int agent_window_keep_below(const agent_window_keep_t *k, uint64_t part,
			    uint32_t priority, time_t submit,
			    uint32_t job_id);

/*
 * agent_window_keep_below_prio - agent_window_keep_below() on the
 * priority alone, for a walk that reads a job's submit time (another
 * allocation than its record) only when it decides: 1 below the floor
 * whatever its submit time and id (a lower priority), 0 not below (a
 * higher one, a partition not kept or without a floor), -1 the floor's
 * priority (ask agent_window_keep_below()).
 */
int agent_window_keep_below_prio(const agent_window_keep_t *k, uint64_t part,
				 uint32_t priority);

/*
 * agent_window_keep_enough - after a walk that skipped: whether each
 * partition with a floor still has at least per_part of the candidates
 * cand[0..n) (those read, not skipped), so that the window is the first
 * per_part of them, and each partition without one has not grown past
 * twice what a floor keeps (it needs one now).  If not, the caller walks
 * again in full.
 */
int agent_window_keep_enough(const agent_window_keep_t *k,
			     const agent_window_cand_t *cand, uint32_t n,
			     uint32_t per_part);

/* agent_window_keep_due_add - keep job_id, due at due.  RET 0 if no memory. */
int agent_window_keep_due_add(agent_window_keep_t *k, uint32_t job_id,
			      int64_t due);

/*
 * agent_window_keep_due_take - move the job ids due by now (due <= now)
 * into out (malloc'd, owned by the caller; NULL if none), dropping them
 * from the list (the caller adds back those still held): all those due by
 * urgent (<= now), and of the others at most max, in the list's order;
 * *earliest: the earliest due time left (<= now when some due were left),
 * INT64_MAX if none.  RET their number.
 */
uint32_t agent_window_keep_due_take(agent_window_keep_t *k, int64_t now,
				    int64_t urgent, uint32_t max,
				    uint32_t **out, int64_t *earliest);

/*
 * agent_window_renew_now - whether a gated job outside the window, of
 * begin time begin, is renewed in this cycle (copied for it): once half
 * of its hold is gone (begin < now + 1 + hold / 2), but a job the due
 * list takes over (deferred: a full walk's job below the new floors)
 * only once no more than a quarter is left, as the list's urgent ones;
 * *due_now: it is not renewed and due now (its renewal waits in the due
 * list, a cycle should come at once).
 */
int agent_window_renew_now(int64_t begin, int64_t now, uint32_t hold,
			   int deferred, int *due_now);

/* agent_window_keep_free - free the due list and invalidate k. */
void agent_window_keep_free(agent_window_keep_t *k);

#endif /* AGENT_WINDOW_H */
