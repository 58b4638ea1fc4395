/*
 * agent_prefetch.h - prefetching the files of pending jobs onto the node
 * they are placed on, through the node channel (agent_channel.h): once a
 * cycle, after the placements are decided, the agent asks each connected
 * node service to stage the missing files of the jobs at the head of that
 * node's queue (agent_pfplan.h says which), with peers that hold them,
 * and cancels what no longer applies.  Also answers nothing itself:
 * LOCATE is the channel's.  Owned by the agent thread alone.
 */
#ifndef AGENT_PREFETCH_H
#define AGENT_PREFETCH_H

#include <stdint.h>

#include "dl_policy.h"

#include "agent_conf.h"
#include "agent_place.h"
#include "agent_snapshot.h"

/* Counters per node, since the agent started. */
typedef struct agent_pf_stats {
	uint64_t sent;          /* PREFETCH messages sent */
	uint64_t cancelled;     /* CANCEL messages sent */
	uint32_t active;        /* jobs with a prefetch in force now */
	uint64_t replicas;      /* files sent as replicas (a plan's copies,
				   agent_replica.h) */
} agent_pf_stats_t;

/*
 * agent_prefetch_cycle - send the PREFETCHes and CANCELs this cycle
 * needs, and make the Reason of each placed job still waiting for
 * prefetched files say so ("DataLocality: prefetching 3/5 files on n3";
 * only in ops that already carry a Reason, so the rules of agent_apply.c
 * about which reasons may be replaced hold).  Needs the cycle's placement
 * decisions (agent_place_decide()) made.  Then the plan's copies
 * (plan->copies) are sent as replicas (agent_replica.h), within the
 * prefetch budget the picks left.
 * IN plan - the cycle's plan, made over agent_model_cache() and s's
 *           nodes in order; NULL when there is none or its nodes are not
 *           s's (no replica then)
 */
void agent_prefetch_cycle(const snapshot_t *s, const agent_conf_t *c,
			  const dl_plan_t *plan, place_ops_t *ops,
			  const char *pfx);

/*
 * agent_prefetch_files_renumbered - the model's file ids changed
 * (agent_model_compact()): forget the replicas in force, which name files
 * by id (at worst one is sent again).
 */
void agent_prefetch_files_renumbered(void);

/*
 * agent_prefetch_stats - the counters of node (zeroes for an unknown
 * node).
 */
agent_pf_stats_t agent_prefetch_stats(uint32_t node);

/* agent_prefetch_fini - forget every prefetch and counter. */
void agent_prefetch_fini(void);

#endif /* AGENT_PREFETCH_H */
