/*
 * agent_multi.h - placing pending jobs of k > 1 nodes (issue 26, item 4):
 * the job's required node list becomes the k eligible nodes that cache
 * the most of its input (place/dl_place_set.h), since every node of the
 * job stages all of it.  The wait is bounded as for one node: the set is
 * blocked while Slurm cannot start the job on it now
 * (snap_job_t.fits of a node of the set is 0) and could on k eligible
 * nodes (dl_place_multi_blocked()), and the blocked time counts only for
 * as many blocked jobs, in Slurm's order, as the free room would start:
 * the quota single-node jobs share (dl_place_quota_multi()).  Past the
 * set's bound, or when a node of the set can serve nobody (drained,
 * down), the list is lifted for good.  A job
 * nothing of whose input is cached anywhere is not restricted.  These
 * jobs stay outside the policy's plan, which places single-node jobs.
 */
#ifndef AGENT_MULTI_H
#define AGENT_MULTI_H

#include <stdint.h>

#include "dl_place.h"
#include "dl_state.h"
#include "agent_conf.h"
#include "agent_place.h"
#include "agent_snapshot.h"

/*
 * The restricted multi-node jobs of one cycle, between
 * agent_multi_decide() and agent_multi_step(): their wait is judged once
 * the cycle's blocked-job quota, which they share with the single-node
 * jobs, is known (dl_place_quota_multi()).  Zeroed to start; freed by
 * agent_multi_free().
 */
typedef struct agent_multi {
	uint32_t n, cap;
	uint32_t *idx;          /* snapshot index of each job */
	uint32_t **sets;        /* its list's nodes, xmalloc'd each */
	dl_place_multi_t *in;   /* the quota's input (in[i].set: sets[i],
				 * or NULL: not judged) */
} agent_multi_t;

/*
 * agent_multi_decide - the operations of one cycle for the snapshot's
 * multi-node jobs (snap_job_t.set_k) placed now, appended to ops; the
 * ones restricted already go to mu for agent_multi_step(); the jobs it
 * took charge of either way get handled[i] = 1 (the others are left to
 * the single-node rules of agent_place.c: let go if gated, rescued if
 * failed).
 * IN st - the cycle's state, for its cache and parameters
 */
void agent_multi_decide(const snapshot_t *s, const dl_state_t *st,
			const agent_conf_t *c, uint8_t *handled,
			agent_multi_t *mu, place_ops_t *ops,
			dl_sched_stats_t *stats, const char *pfx);

/*
 * agent_multi_step - the operations for the restricted jobs of mu: each
 * counts the time it was blocked since the last cycle unless it is beyond
 * quota q (NULL or empty: none is), then is widened past its bound or off
 * a node that serves nobody, or its Reason refreshed.
 */
void agent_multi_step(const snapshot_t *s, const dl_state_t *st,
		      const agent_conf_t *c, const agent_multi_t *mu,
		      const dl_place_quota_t *q, place_ops_t *ops,
		      dl_sched_stats_t *stats, const char *pfx);

/* agent_multi_free - free what mu holds; it is zeroed. */
void agent_multi_free(agent_multi_t *mu);

/*
 * agent_multi_names - the nodes of nodes[0..n) as Slurm ranges them
 * ("n[3-4]", as bitmap2node_name() does), xmalloc'd.
 */
char *agent_multi_names(const snapshot_t *s, const int32_t *nodes,
			uint32_t n);

#endif /* AGENT_MULTI_H */
