/*
 * plan_guard.h - internal: keep the better of a policy's plan and a
 * greedy plan of the same state, judged by a cost model that knows the
 * caches are finite.
 *
 * Online-HPS partitions the file-sharing hypergraph: it minimises the
 * bytes that cross nodes, as if a file, once on a node, stayed there.
 * When the inputs of the jobs queued on a node exceed its cache (a mixed
 * workload of files up to 4 GiB on a 15 GiB cache), the files it groups
 * are evicted before the later jobs read them, and a greedy plan that
 * balances the queues does better (doc/experiments/robustness-notes.md).
 * The guard makes the greedy plan too and keeps it when
 * dl__plan_estimate_lru() says it completes the pending jobs sooner.
 */
#ifndef DL_PLAN_GUARD_H
#define DL_PLAN_GUARD_H

#include <stddef.h>
#include <stdint.h>

#include "dl_place.h"
#include "dl_policy.h"
#include "dl_state.h"

/**
 * dl__plan_estimate_lru - dl__plan_estimate() (policy_util.h) with each
 * node's cache modelled as LRU of its capacity: the jobs start in plan
 * order on their nodes' queues, fetch the files their node does not hold
 * (one transfer at a time per storage node), read and compute; a file
 * counts as held on a node while it and the bytes fetched there since it
 * was last read there fit in the node's capacity (files cached now or
 * read by running jobs: as if read when the estimate began).  With
 * unlimited caches it is dl__plan_estimate().
 * IN pp - optional: the host's placement rule (dl_place.h) to model: a
 *      job whose node cannot start it within its bound (dl_place_bound(),
 *      counted from st->now) starts at the bound, or when one frees, on
 *      the eligible node that frees first, if that is sooner (its files
 *      are then fetched there); NULL: every job waits for its node
 * OUT sum - sum over the planned pending jobs of their estimated
 *           completion, seconds from st->now
 * OUT nplanned - optional: pending jobs with a node (the others are left
 *           out of the sum)
 * \return 0, DL_EINVAL (plan does not match st) or DL_ENOMEM.
 */
int dl__plan_estimate_lru(const dl_state_t *st, const dl_plan_t *plan,
			  const dl_place_params_t *pp, double *sum,
			  size_t *nplanned);

typedef struct dl__guard dl__guard_t;

/**
 * dl__guard_create - a guard whose greedy plans are those of the policies
 * in names, separated by '+' (e.g. "locality+met"; at most 4), each
 * created with params; pp: the placement rule its estimates model (NULL:
 * dl_place_params_default(), the plugin's and dl-sim's defaults).
 * \return a guard to free with dl__guard_destroy(), or NULL (unknown
 *         policy, more than 4, empty name, bad params, no memory).
 */
dl__guard_t *dl__guard_create(const char *names, const char *params,
			      const dl_place_params_t *pp);

/* dl__guard_destroy - free a guard; NULL is a no-op. */
void dl__guard_destroy(dl__guard_t *g);

/**
 * dl__guard_pressure - whether the partition's premise fails for plan:
 * on some node, the distinct input files of the running jobs there and of
 * the pending jobs plan gives it weigh more than its cache holds, so
 * files fetched for one job are evicted before the later ones read them.
 * \return 1 if so (or out of memory), 0 if every node's inputs fit.
 */
int dl__guard_pressure(const dl_state_t *st, const dl_plan_t *plan);

/**
 * dl__guard_set_every - compare only at every n-th dl__guard_apply() (the
 * first call compares); the calls in between give plan the nodes of the
 * last comparison's winner (its policy plans again, nothing is estimated;
 * if plan won, plan is left alone).  n 0 or 1: compare at every call.
 */
void dl__guard_set_every(dl__guard_t *g, uint32_t n);

/**
 * dl__guard_set_margin - take an alternative only if the model says it
 * completes the pending jobs at least this fraction sooner than the plan
 * (0, the default: any amount; 0.05: 5%).  At 1 or more no alternative
 * can win: dl__guard_apply() then plans and estimates nothing.
 */
void dl__guard_set_margin(dl__guard_t *g, double margin);

/**
 * dl__guard_set_unbounded - 1: the estimates let every job wait for its
 * planned node however long (dl__plan_estimate_lru() with no placement
 * rule), the model a greedy plan like mct's is made with; 0 (the
 * default): the guard's placement rule bounds the waits.
 */
void dl__guard_set_unbounded(dl__guard_t *g, int unbounded);

/**
 * dl__guard_apply - plan st with each of the guard's policies and give
 * plan's pending jobs the nodes of the plan that the cost model
 * (dl__plan_estimate_lru() with the guard's placement rule, every plan
 * in plan's order) says completes
 * them soonest.  A job a greedy plan leaves without a node (one without
 * input files, which runs anywhere) keeps plan's node there.  Ties keep
 * the earlier plan, plan itself first.
 * INOUT plan - the policy's plan of st; its .order is kept
 * OUT switched - optional: 0 if plan was kept, else 1 + the index of the
 *       policy (in names) whose nodes were taken
 * \return 0, DL_ENOMEM or a greedy policy's error (plan unchanged).
 */
int dl__guard_apply(dl__guard_t *g, const dl_state_t *st, dl_plan_t *plan,
		    int *switched);

#endif /* DL_PLAN_GUARD_H */
