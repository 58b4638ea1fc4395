/*
 * agent_budget.h - what one planning cycle may spend reading jobs' files:
 * a time budget for the whole cycle (CycleBudget) and per-user bounds on
 * what all of one user's jobs in the window may cost (UserMaxFiles,
 * UserMaxListBytes).  Pure (no Slurm header, malloc()/free() only), so
 * that it is unit tested on its own; dl_agent.c applies it.
 *
 * Reading a job's files (its @list files, a stat of every file, as its
 * user) is the one cost of a cycle that the window does not bound: one
 * user's 500 jobs of 9,000 files each once made a cycle take 14 minutes.
 * So the files are read in Slurm's order (priority, submit time, job id),
 * until the cycle's budget is spent; the jobs not read yet are planned
 * by a later cycle (held at their submit gate meanwhile), and a cycle
 * that spent its budget is followed by the next one after at most
 * AGENT_BUDGET_MAX_GAP_MS.  One user's jobs may not take the whole
 * budget: a user whose jobs in the window name UserMaxFiles files has
 * the rest of them run without placement (their Reason says so), and at
 * most UserMaxListBytes of a user's file names, and half of the budget,
 * are spent on one user's jobs per cycle.
 */
#ifndef AGENT_BUDGET_H
#define AGENT_BUDGET_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

/* Defaults of datalocality.conf (see datalocality.conf(5)). */
#define AGENT_BUDGET_CYCLE_MS 500
#define AGENT_BUDGET_USER_FILES 200000
#define AGENT_BUDGET_USER_LIST_BYTES (4ULL << 20)

/*
 * After a cycle of d ms the next waits CYCLE_GAP_FACTOR * d (the agent
 * takes at most a third of a core and of slurmctld's lock time), but
 * never more than this: a cycle that ran long (a burst of new jobs read)
 * must not keep everyone's jobs from placement for twice as long again.
 */
#define AGENT_BUDGET_GAP_FACTOR 2
#define AGENT_BUDGET_MAX_GAP_MS 1000

/*
 * Bytes of file names charged for each file of a job above
 * MaxFilesPerJob, whose names are not kept: a typical path and newline.
 */
#define AGENT_BUDGET_NAME_BYTES 64

/* The bounds, from datalocality.conf; 0 in any: that bound is off. */
typedef struct agent_budget_conf {
	uint32_t cycle_ms;      /* CycleBudget */
	uint64_t user_files;    /* UserMaxFiles */
	uint64_t user_list;     /* UserMaxListBytes */
} agent_budget_conf_t;

typedef struct agent_budget_user {
	uid_t uid;
	bool used;              /* slot taken */
	uint64_t files;         /* files named by its jobs admitted so far */
	uint64_t list;          /* bytes of file names read this cycle */
	int64_t ms;             /* time its reads took this cycle */
	int64_t ms_max;         /* the longest of them */
} agent_budget_user_t;

/* One cycle's account.  Zero it, then agent_budget_begin(). */
typedef struct agent_budget {
	agent_budget_conf_t conf;
	int64_t deadline_ms;    /* monotonic ms; INT64_MAX: no budget */
	agent_budget_user_t *user;   /* open addressing, malloc'd */
	uint32_t cap, nuser;
	uint32_t deferred;      /* jobs left unread for the next cycle */
	uint32_t skipped;       /* jobs run unplaced by a user bound */
	uint32_t reads;         /* jobs read this cycle */
	bool spent;             /* the deadline passed during the cycle */
} agent_budget_t;

/*
 * agent_budget_begin - start a cycle's account at start_ms (monotonic
 * ms).  Frees what b held from an earlier cycle.
 */
void agent_budget_begin(agent_budget_t *b, const agent_budget_conf_t *c,
			int64_t start_ms);

/*
 * agent_budget_clock - count the cycle's budget from start_ms (monotonic
 * ms), when its reading starts: the snapshot before it is not reading,
 * and a snapshot that took the budget must not leave none for reading.
 */
void agent_budget_clock(agent_budget_t *b, int64_t start_ms);

/* agent_budget_end - free what b holds; it may be begun again. */
void agent_budget_end(agent_budget_t *b);

/*
 * agent_budget_may_read - whether one more job of uid may have its files
 * read at now_ms: the cycle's budget is not spent, the user's reads
 * would stay within half of it with one more as long as its longest so
 * far (so that one user's jobs, first in Slurm's order, never leave the
 * others' unread), and its names read this cycle are below
 * UserMaxListBytes.  false when the budget is spent sets b->spent.
 */
bool agent_budget_may_read(agent_budget_t *b, uid_t uid, int64_t now_ms);

/*
 * agent_budget_charge_read - uid's job had bytes of file names read, in
 * ms milliseconds.
 */
void agent_budget_charge_read(agent_budget_t *b, uid_t uid, uint64_t bytes,
			      int64_t ms);

/*
 * agent_budget_user_full - whether uid's jobs admitted so far name
 * UserMaxFiles files already (so that any more of its annotated jobs
 * would exceed it, and need not be read to know).
 */
bool agent_budget_user_full(agent_budget_t *b, uid_t uid);

/*
 * agent_budget_admit - admit a job of uid naming nfiles files to the
 * plan: RET true and count them if the user's total stays within
 * UserMaxFiles, false (nothing counted) otherwise.
 */
bool agent_budget_admit(agent_budget_t *b, uid_t uid, uint64_t nfiles);

/*
 * agent_budget_gap_ms - how long after a cycle of cycle_ms ms the next
 * may start at the earliest: AGENT_BUDGET_GAP_FACTOR times it, at most
 * AGENT_BUDGET_MAX_GAP_MS.
 */
int64_t agent_budget_gap_ms(int64_t cycle_ms);

/* A job to read, for agent_budget_order(). */
typedef struct agent_budget_job {
	uint32_t priority;      /* Slurm's, higher first */
	time_t submit;          /* then earlier submission */
	uint32_t job_id;        /* then lower job id */
	uint32_t idx;           /* the caller's index */
} agent_budget_job_t;

/* agent_budget_order - sort jobs into Slurm's order (reading order). */
void agent_budget_order(agent_budget_job_t *jobs, uint32_t n);

#endif /* AGENT_BUDGET_H */
