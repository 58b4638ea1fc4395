/*
 * agent_acct.h - what staging found for each job, from the node services'
 * REPORTs, kept in the job's AdminComment (dl_acct.h) so that slurmdbd
 * stores it with the job and sacct shows it.
 *
 * Threads: the channel's connection threads put reports in a bounded
 * queue under its own mutex (never a slurmctld lock); the agent thread
 * takes them out and writes the job records under the job write lock.
 *
 * When it is written: a report is sent when a node's staging ends, before
 * the job's script runs, and the agent applies it within a poll of its
 * loop, so it is in the job record when slurmctld sends the job's
 * completion to the accounting storage (which stores AdminComment).  A
 * job that ended before (a very short one, or a busy controller) has its
 * completion sent again with the record, as Slurm itself does when it
 * learns something about a finished job.
 */
#ifndef AGENT_ACCT_H
#define AGENT_ACCT_H

#include <stdint.h>

#include "dl_acct.h"
#include "dl_net_msg.h"

/* Reports waiting for the agent, at most; more are counted and dropped. */
#define AGENT_ACCT_QUEUE_MAX 65536

/*
 * agent_acct_from_report - a node's REPORT as one node's record
 * (nodes=1).  This and the queue (agent_acct_queue.c) need no Slurm and
 * are unit-tested; agent_acct.c writes the job records.
 */
void agent_acct_from_report(const dl_msg_count_t *c, dl_acct_t *a);

/*
 * agent_acct_put - queue node's report for job (job 0 is not queued).
 * Any thread; copies what it needs.
 * RET 0, DL_EINVAL (job 0), DL_ETOOBIG (queue full: dropped).
 */
int agent_acct_put(uint32_t job, const dl_msg_count_t *c);

/* A queued report. */
typedef struct agent_acct_item {
	uint32_t job;
	dl_acct_t a;
} agent_acct_item_t;

/*
 * agent_acct_take - everything queued, oldest first, and empty the queue.
 * OUT items - malloc'd (the caller frees it with free()), NULL if none
 * OUT dropped - reports dropped since the last call (queue full)
 * RET how many.
 */
size_t agent_acct_take(agent_acct_item_t **items, uint64_t *dropped);

/*
 * agent_acct_on_put - call wake (any thread, no lock of the queue's
 * held; NULL: none) after each report queued: the agent thread, asleep
 * in a long idle poll, takes it at once instead of at its next poll.
 */
void agent_acct_on_put(void (*wake)(void));

/*
 * agent_acct_apply - write the queued reports into their jobs'
 * AdminComments (agent thread; takes and releases the job write lock
 * itself, only if something is queued).
 * RET how many job records were written.
 */
uint32_t agent_acct_apply(const char *pfx);

struct agent_conf;

/*
 * agent_acct_rates - the copy rates the reports taught (agent_rates.h)
 * into c's cost model: c->params.rbw and c->place.peer_bw become the
 * rates plans use; the log says when a learned rate replaces a prior (or
 * stops to); StateSaveLocation/datalocality_rates, which sdatalocality
 * shows, is rewritten when something changed, at most once a second;
 * the first call restores what that file says was learned (a restart of
 * slurmctld).  Agent thread, before a cycle plans.
 */
void agent_acct_rates(struct agent_conf *c, const char *pfx);

#endif /* AGENT_ACCT_H */
