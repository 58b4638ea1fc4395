/*
 * dl_place_set.h - where a pending job that runs on k nodes at once may
 * run: the k nodes that hold the most of its input.
 *
 * A multi-node job reads all its input on every node it runs on (its
 * staging runs on each of them), so a node of its set saves what that node
 * caches, and the job starts when the node missing the most has fetched
 * it.  dl_place_set_choose() takes the k usable eligible nodes caching
 * the most bytes of the job's input (ties: the lower index), which also
 * maximises the least-cached node of the set.  dl_place_set_bound() is the
 * wait that set is worth under the rule of dl_place.h: the job's start is
 * paced by its least-cached node, so the set is worth the bound of that
 * node (the smallest of the set's single-node bounds).
 *
 * The host keeps the job's dl_place_t as for a single-node job, with node
 * the first of the set, and judges "blocked" for the whole set (Slurm
 * cannot start it on the set now while it could on k other eligible
 * nodes); past the bound it lifts the restriction for good, as for one
 * node.  Errors follow datalocality.h: negative DL_E* codes, nothing
 * changed on failure.
 */
#ifndef DL_PLACE_SET_H
#define DL_PLACE_SET_H

#include <stdint.h>

#include "dl_place.h"
#include "dl_state.h"

/**
 * dl_place_set_choose - the k nodes job j should be restricted to.
 * IN j - the job (j->cpus: the slots it needs on each node; j->eligible
 *        NULL: every node), not necessarily in st->jobs
 * IN k - how many nodes it runs on (at least 1)
 * OUT set - k node indices, in increasing order; unchanged on error
 * \return how many of the k nodes cache some of j's input (0: none does,
 *         a restriction would gain nothing), DL_EINVAL when k is 0 or
 *         fewer than k usable nodes have the slots and are eligible, or
 *         DL_ENOMEM.
 */
int dl_place_set_choose(const dl_state_t *st, const dl_job_t *j, uint32_t k,
			uint32_t *set);

/**
 * dl_place_set_bound - how long job j may wait for the k nodes of set:
 * the smallest dl_place_bound() of its nodes (infinite if p->strict);
 * p->min_wait for an empty set.
 */
double dl_place_set_bound(const dl_state_t *st, const dl_job_t *j,
			  const uint32_t *set, uint32_t k,
			  const dl_place_params_t *p);

/**
 * dl_place_set_cached_bytes - the bytes of j's input the least-cached
 * node of set caches (what placing j on the set saves on every node);
 * 0 for an empty set.
 */
uint64_t dl_place_set_cached_bytes(const dl_state_t *st, const dl_job_t *j,
				   const uint32_t *set, uint32_t k);

#endif /* DL_PLACE_SET_H */
