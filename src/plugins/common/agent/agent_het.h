/*
 * agent_het.h - placing the single-node components of heterogeneous jobs
 * (issue 26, item 4), each as a job of its own, under the rules Slurm
 * keeps for hetjobs:
 *
 *  - two components never on one node: Slurm excludes each component's
 *    required nodes from all the others at submit ("to avoid scheduling
 *    deadlock", proc_req.c _exclude_het_job_nodes()), and backfill
 *    reserves whole nodes for a component it plans, so two components
 *    restricted to one node wait for each other for ever.  The nodes a
 *    component is restricted to (by the plugin, the user or an admin,
 *    read from Slurm's records, so a component the snapshot does not hold
 *    counts too) leave the other components' eligible nodes (in the plan
 *    and in the lists set), and a restriction of this cycle onto a node
 *    another component holds is not made (the component is placed at the
 *    next cycle, on other nodes);
 *  - the planning window takes a hetjob whole: every pending component
 *    of a hetjob one of whose components is in the window is in;
 *  - the components start together (backfill starts a hetjob only when
 *    every component can start), so the wait is judged for the hetjob
 *    as a whole: every placed component counts the longest time any of
 *    them was blocked, and once one component is widened (its bound
 *    passed, its node left), every component is (one kept on a free node
 *    could lose it to the widened one: agent_het.c, _widen_all());
 *  - the submit gate holds every component until all are placed, then
 *    releases them together;
 *  - a component Slurm's backfill plans (its sched_nodes) on a node a
 *    sibling is restricted to by the plugin (a component without files,
 *    planned first on the lowest free node) widens the hetjob at the
 *    next cycle: backfill reserves that node whole for it, and the
 *    sibling, its node free, would never count as blocked.
 *
 * A component of several nodes is placed as a multi-node job
 * (agent_multi.h) under the same rules; job_submit does not gate it.
 * Owned by the agent thread; no allocation outlives a call.
 */
#ifndef AGENT_HET_H
#define AGENT_HET_H

#include <stdint.h>

#include "dl_persist.h"
#include "agent_conf.h"
#include "agent_place.h"
#include "agent_snapshot.h"

/*
 * agent_het_exclude - after the snapshot: a pending component's eligible
 * and fits lose the nodes its hetjob's other pending components are
 * required to run on (Slurm's records), and a sibling planned by backfill
 * on its node is noted for agent_het_decide().  Caller holds the job
 * read lock.
 */
void agent_het_exclude(snapshot_t *s);

/*
 * agent_het_window - the planning window of pend[0..n) (in[i] = 1: in)
 * takes every pending component of a hetjob one of whose components is
 * in; RET how many were added.  Caller holds the job read lock.
 */
struct job_record;
uint32_t agent_het_window(struct job_record **pend, uint32_t n,
			  uint8_t *in);

/*
 * agent_het_sync - before this cycle's decisions: every placed component
 * takes the longest wait of its hetjob's placed components.
 */
void agent_het_sync(const snapshot_t *s);

/*
 * agent_het_decide - after this cycle's decisions (ops[first..n)):
 * cancel a new restriction onto a node another component of its hetjob
 * holds, widen every component of a hetjob one of whose components is
 * widened (or is planned by Slurm on a sibling's node), and hold the
 * gate's releases until every component is placed.
 */
void agent_het_decide(const snapshot_t *s, const agent_conf_t *c,
		      place_ops_t *ops, uint32_t first,
		      dl_sched_stats_t *stats, const char *pfx);

#endif /* AGENT_HET_H */
