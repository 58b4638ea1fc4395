/*
 * plan_follow.h - internal: a pending job waits for the node that holds
 * its data when the cost model says that is sooner than where a policy
 * put it.
 *
 * Online-HPS's partition keeps every part within its balance constraint
 * (largest part at most imbalance x the mean).  With deep queues that is
 * what spreads the load; with fewer pending jobs than nodes, as when
 * slurmctld starts each job as soon as it is placed and arrivals are
 * planned one at a time, no part may take a second job, however much the
 * job shares with the running one there.  Then a job whose 6 MiB are on a
 * node that frees in a second is sent to an idle node that must read them
 * all from storage (test/integration/test_dispatch.sh).  This pass, run on
 * the partition's mapping, moves such a job to its data when that
 * completes it sooner, counting the wait behind the node's queue.
 */
#ifndef DL_PLAN_FOLLOW_H
#define DL_PLAN_FOLLOW_H

#include "dl_policy.h"
#include "dl_state.h"

/**
 * dl__plan_follow_data - walk the planned pending jobs in plan order
 * (ascending .order, then index; the queues of dl__plan_estimate(): running
 * jobs first, files an earlier job there brings count as held).  A job
 * whose node holds none of its bytes moves to the eligible node caching
 * most of them (ties: the lowest index) when its estimated completion
 * there (queue start plus dl__exec_on_node()) is strictly sooner.  At most max_files of a job's
 * files name the candidate nodes, so a job costs O(max_files x copies).
 * IN max_pending - do nothing when more pending jobs than this are
 *      planned (0: no limit): the partition balances deep queues on its
 *      own, and this greedy pass would undo its grouping there
 * OUT moved - optional: the jobs moved
 * \return 0, DL_EINVAL (plan does not match st) or DL_ENOMEM (then plan
 *         may be partly changed, each job on a node eligible for it).
 */
int dl__plan_follow_data(const dl_state_t *st, dl_plan_t *plan,
			 size_t max_pending, uint32_t max_files,
			 size_t *moved);

#endif /* DL_PLAN_FOLLOW_H */
