/*
 * plan_keep.h - internal: a plan as the host will apply it.
 *
 * The host's placement rule (dl_place.h) moves a restricted job to a
 * newly planned node only when that node caches clearly more of its input
 * (the hysteresis), so restrictions do not flip between cycles.  A policy
 * that plans from scratch at every event (Online-HPS's partition) gives
 * many jobs a new node that the rule then ignores: what runs is a mix of
 * the old plan and the new one.  A guard that compares such a plan with a
 * greedy one (plan_guard.h) compares a plan that will not happen.  This
 * pass gives each such job back its previous node first, so the plan the
 * policy judges, keeps and remembers is the one the host applies.
 */
#ifndef DL_PLAN_KEEP_H
#define DL_PLAN_KEEP_H

#include <stddef.h>
#include <stdint.h>

#include "dl_place.h"
#include "dl_policy.h"
#include "dl_state.h"

/**
 * dl__plan_keep - every pending job of plan that had node prev[i] and is
 * now planned on another node gets prev[i] back, unless
 * dl_place_worth_moving() says the new node is worth the move, or the job
 * may no longer run on prev[i] (not eligible, not usable, too small).
 * A job the plan leaves without a node keeps none.
 * IN prev - [st->njobs] the node each job had, -1: none
 * IN p - the placement rule (its hysteresis)
 * \return the jobs given back their node; 0 for a NULL argument or a plan
 *         that does not match st.
 */
size_t dl__plan_keep(const dl_state_t *st, dl_plan_t *plan,
		     const int32_t *prev, const dl_place_params_t *p);

#endif /* DL_PLAN_KEEP_H */
