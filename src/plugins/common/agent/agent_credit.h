/*
 * agent_credit.h - staging kept out of a job's time limit: what the node
 * services said of each job's staging (STAGING, PROTOCOL.md), and the
 * seconds of it a job is owed.
 *
 * A node's dl-cached says when a job's STAGE arrived (done=0) and when its
 * staging ended (done=1, with the seconds it took there).  The channel's
 * connection threads note both here (agent_credit_note()); the agent
 * thread reads the records (agent_credit_copy()) and moves the running
 * job's end time by what it is owed (agent_credit_apply.c), so that
 * slurmctld's time limit check, which compares the end time with the
 * clock, does not count the staging.
 *
 * A job is owed, per node that staged it, the seconds from its STAGE to
 * its end as the node measured them, never more than the job has run;
 * while staging still runs, the seconds so far.  The job's credit is the
 * longest of its nodes', bounded by the caller (StagingCreditMax, what
 * its files take at StorageBandwidth).
 *
 * Pure: no Slurm header, malloc()/free() and a mutex of its own, so that
 * it is unit tested on its own and called from any thread.
 */
#ifndef AGENT_CREDIT_H
#define AGENT_CREDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* Records kept at most (jobs staging or staged, times nodes). */
#define AGENT_CREDIT_MAX_RECORDS 65536

/* One job's staging on one node. */
typedef struct agent_credit_rec {
	uint32_t job_id;
	uint32_t node;          /* slurmctld's node index */
	time_t begin;           /* STAGE arrived (as the agent heard it) */
	time_t end;             /* staging ended, 0: still staging */
	uint32_t secs;          /* with end: the node's measure */
	uint32_t applied;       /* seconds of credit the job's end time
				 * holds (the same in every record of a
				 * job) */
	time_t set_end;         /* the end time the credit was applied to
				 * give, 0: none yet */
	bool said;              /* the final credit was logged and told */
} agent_credit_rec_t;

/*
 * agent_credit_note - a node's STAGING message, heard at now.  A begin
 * starts the job's record on the node anew; an end without a begin (the
 * service reconnected meanwhile) dates the begin back by secs.  Out of
 * memory or past AGENT_CREDIT_MAX_RECORDS the message is dropped (the job
 * is then charged for its staging, as without this module).
 */
void agent_credit_note(uint32_t node, uint32_t job_id, bool done,
		       uint64_t secs, time_t now);

/*
 * agent_credit_copy - the records as they are now.
 * OUT recs - malloc'd (the caller frees it with free()); NULL if none
 * RET how many.
 */
size_t agent_credit_copy(agent_credit_rec_t **recs);

/*
 * agent_credit_owed - the seconds of staging a record says the job is
 * owed at now, for a job that started at start.
 */
uint32_t agent_credit_owed(const agent_credit_rec_t *r, time_t now,
			   time_t start);

/*
 * agent_credit_set - remember for every record of job that its end time
 * holds applied seconds of credit, set to give set_end; said marks the
 * final credit as logged.
 */
void agent_credit_set(uint32_t job_id, uint32_t applied, time_t set_end,
		      bool said);

/* agent_credit_forget - drop every record of job (it ended). */
void agent_credit_forget(uint32_t job_id);

/* agent_credit_clear - drop every record (tests, plugin unload). */
void agent_credit_clear(void);

#endif /* AGENT_CREDIT_H */
