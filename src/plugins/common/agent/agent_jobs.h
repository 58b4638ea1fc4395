/*
 * agent_jobs.h - what the planning agent remembers about each job it has
 * seen: its files (parsed once), where they were recorded as cached, and
 * its placement record.  Owned by the agent thread alone.
 */
#ifndef AGENT_JOBS_H
#define AGENT_JOBS_H

#include <stdbool.h>
#include <stdint.h>

#include "dl_place.h"

typedef struct agent_job {
	uint32_t job_id;
	char key[12];           /* decimal job id, the hash key */
	uint32_t nfiles;        /* 0: no annotation (or a bad one) */
	uint32_t too_many;      /* files named, above MaxFilesPerJob; or 0 */
	uint32_t *files;        /* tracker ids, xmalloc'd */
	uint64_t seen;          /* cycle in which it was last seen */
	bool parsed;
	uint32_t task_id;       /* array task id its files were expanded for
				 * (dl_pattern.h: DL_PATTERN_NONE, or
				 * DL_PATTERN_UNKNOWN for a pending array's
				 * own record, which stands for many tasks) */
	bool running;           /* running when last seen */
	bool start_logged;      /* its start was reported */
	bool finished;          /* its end was recorded */
	bool gate_noted;        /* its release by the gate's clock logged */
	int32_t cached_on;      /* node its files were recorded on, or -1 */
	dl_place_t place;       /* its placement restriction */
	int32_t planned;        /* node it was last restricted to, or -1 */
	uint64_t user_bound;    /* UserMaxFiles its user's jobs in the window
				 * exceeded at its turn this cycle (it runs
				 * unplaced, agent_budget.h), or 0 */
	bool bound_noted;       /* that was logged */
	uint32_t hit_files;     /* at its start: files cached on its node */
	uint64_t hit_bytes;
	uint64_t comment_hash;  /* of the comment its files were read from */
	bool reread;            /* its comment changed since its files were
				 * read: they are to be read again */
} agent_job_t;

/* agent_jobs_init - an empty registry (again). */
void agent_jobs_init(void);

/*
 * agent_jobs_generation - how many times agent_jobs_init() emptied the
 * registry: a walk that finds it moved knows every record it relied on
 * is gone (agent_snapshot.c).
 */
uint64_t agent_jobs_generation(void);

/* agent_jobs_fini - free the registry and every record. */
void agent_jobs_fini(void);

/* agent_jobs_get - the job's record, created if asked; else NULL. */
agent_job_t *agent_jobs_get(uint32_t job_id, bool create);

/* agent_jobs_foreach - call fn for every record. */
void agent_jobs_foreach(void (*fn)(agent_job_t *ji, void *arg), void *arg);

/* agent_jobs_count - how many records there are. */
uint32_t agent_jobs_count(void);

/* agent_jobs_forget - drop every job not seen in cycle. */
void agent_jobs_forget(uint64_t cycle);

/*
 * A task id no job has: a record whose task_id is this is read again
 * (its files are expanded for another task id than the job's).
 */
#define AGENT_JOBS_REREAD 0xfffffffdu

/*
 * agent_jobs_changed - whether the comment of a pending job whose files
 * were read differs from the one they were read from (`scontrol update
 * jobid=N comment=files:...`, or another @list reference; issue 26, item
 * 3): then ji->reread is set and ji->task_id made AGENT_JOBS_REREAD, so
 * that the snapshot copies the comment and the agent reads the files
 * again, as for a task id that changed, until agent_jobs_parsed().
 * Called for pending jobs at each snapshot: a hash of the comment, no
 * copy.
 */
bool agent_jobs_changed(agent_job_t *ji, const char *comment);

/*
 * agent_jobs_parsed - the job's files were just read from comment: remember
 * it, and log (with pfx) when they were read again because it changed.
 */
void agent_jobs_parsed(agent_job_t *ji, const char *comment,
		       const char *pfx);

#endif /* AGENT_JOBS_H */
