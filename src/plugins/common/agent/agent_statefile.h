/*
 * agent_statefile.h - the agent's state under StateSaveLocation: the cache
 * model, hit counters, scheduler counters and the last plan (dl_persist.h),
 * so that a restart loses nothing and sdatalocality can show it.
 */
#ifndef AGENT_STATEFILE_H
#define AGENT_STATEFILE_H

#include "dl_persist.h"
#include "dl_policy.h"
#include "dl_state.h"

/*
 * agent_statefile_names - node names by index, for a load.  Caller holds
 * the node read lock.  RET *n xmalloc'd names (agent_statefile_load frees).
 */
char **agent_statefile_names(uint32_t *n);

/*
 * agent_statefile_load - restore the model and counters into the agent's
 * model (sized already) and *stats; nodes are matched by name.  A missing
 * file is a first start; a bad or oversized one is reported and ignored.
 * Needs no slurmctld lock: a big file delays only the agent.  Frees names.
 */
void agent_statefile_load(char **names, uint32_t nn, dl_sched_stats_t *stats,
			  const char *pfx);

/*
 * agent_statefile_save - save the model, counters and plan (st names the
 * plan's nodes; nothing is saved if st does not match the model).
 */
void agent_statefile_save(const dl_plan_t *plan, const dl_state_t *st,
			  dl_sched_stats_t *stats, const char *pfx);

#endif /* AGENT_STATEFILE_H */
