/*
 * agent_replica.h - which of a plan's copies (dl_copy_t: "put file f on
 * node n now", e.g. JDP-DLL's replicate=copy) the agent makes as
 * replicas, and in which PREFETCH messages.  Pure like agent_pfplan.h: no
 * Slurm header, malloc()/free(), the cache model read through dl_cache.h
 * only, so that it is unit tested on hand-made cases.  agent_prefetch.c
 * sends the messages.
 *
 * A replica is a PREFETCH to node n in the name of a job that reads f:
 * dl-cached copies as that job's user (a user never gets a file cached
 * that they cannot read at its source) and pins the file for that job
 * until the job starts there or the PREFETCH expires.  Replicas are never
 * cancelled: they lapse at their expiry, the file stays cached (and
 * evictable).
 *
 * A copy (f, n) is skipped if n's model holds f already, n is not usable
 * (not connected, or its inventory incomplete), f's size is unknown (or
 * 0: nothing to account for), a replica of f to n is in force (sent on
 * n's current connection less than timeout / 2 ago), or it would take n
 * past its budget (what remains after this cycle's prefetch picks, less
 * the bytes of the replicas in force on n: they are pinned as well).
 * Otherwise it is attributed to the highest-priority pending job that
 * reads f and is not placed on n (a job placed on n gets its files there
 * through agent_pfplan already, and a second PREFETCH in its name would
 * replace that one), else to a running job that reads f and does not run
 * on n (highest priority first), else it is skipped; ties go to the lower
 * job id.  The copies of one (node, job) make one message, which also
 * names the files of that job's replicas in force on the node: a later
 * PREFETCH with the same job id replaces the earlier one on the node, and
 * their pins must not be dropped by it.
 */
#ifndef AGENT_REPLICA_H
#define AGENT_REPLICA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "dl_cache.h"
#include "dl_policy.h"
#include "agent_pfplan.h"

/*
 * Bounds per cycle.  slurmctld runs the agent beside everything else, and
 * a policy may ask for up to DL_PLAN_COPIES_MAX copies: the work of one
 * cycle (a pass over the jobs' files per candidate set, one message per
 * (node, job)) must not grow with the plan.  Copies beyond these are
 * asked for again by a later plan if they still matter.
 */
#define RP_COPIES_MAX 256       /* copies of the plan looked at */
#define RP_NODE_MAX 4           /* replicas sent to one node */

/* One replica in force. */
typedef struct rp_entry {
	uint32_t node;
	uint32_t file;
	uint32_t job_id;        /* the job it was sent in the name of */
	uint64_t epoch;         /* the node's connection it was sent on */
	uint64_t bytes;
	time_t sent;
} rp_entry_t;

typedef struct rp_table {
	rp_entry_t *e;          /* sorted by node, then file; malloc'd */
	size_t n, cap;
} rp_table_t;

/* One PREFETCH to send. */
typedef struct rp_msg {
	uint32_t node;
	uint32_t job_id;
	size_t job;             /* its index in the jobs selected from */
	uint32_t nnew;          /* files[0..nnew) are this cycle's copies */
	uint32_t nfiles;        /* then the job's replicas in force there */
	uint32_t *files;        /* [nfiles] tracker ids, malloc'd, owned by
				   the message */
	uint64_t bytes;         /* of the new ones */
} rp_msg_t;

/*
 * agent_replica_select - the messages for a plan's copies, recorded in t
 * at once (sent at now; its entries past timeout / 2 or of a node whose
 * connection changed are dropped first).
 * IN copies - the plan's, tracker ids and node indices (plan->copies)
 * IN jobs - as for agent_pfplan_select()
 * IN nodes - usable and epoch as for agent_pfplan_select(); budget: the
 *            bytes the node may still take this cycle
 * IN/OUT t - the replicas in force
 * IN timeout - PrefetchTimeout, seconds
 * OUT msgs - malloc'd array, free with agent_replica_msgs_free()
 * RET the number of messages, or DL_ENOMEM (nothing allocated, no
 *     entry added to t; entries no longer in force may have been dropped).
 */
int64_t agent_replica_select(const dl_cache_t *cache, const dl_copy_t *copies,
			     size_t ncopies, const pf_job_t *jobs, size_t njobs,
			     const pf_node_t *nodes, uint32_t nnodes,
			     rp_table_t *t, time_t now, uint32_t timeout,
			     rp_msg_t **msgs);

void agent_replica_msgs_free(rp_msg_t *msgs, size_t n);

/*
 * agent_replica_forget - drop the new entries of a message that could
 * not be sent: its copies are tried again at the next cycle.
 */
void agent_replica_forget(rp_table_t *t, const rp_msg_t *m);

/* agent_replica_find - the entry of file on node, or NULL. */
rp_entry_t *agent_replica_find(const rp_table_t *t, uint32_t node,
			       uint32_t file);

/* agent_replica_table_free - empty the table. */
void agent_replica_table_free(rp_table_t *t);

#endif /* AGENT_REPLICA_H */
