/*
 * agent_timelimit.h - staging outside the time limit: the agent moves a
 * running job's end time by the seconds its staging took on its nodes
 * (agent_credit.h), so that slurmctld's time limit check does not charge
 * them (doc/design.md, "Staging outside the time limit").
 */
#ifndef AGENT_TIMELIMIT_H
#define AGENT_TIMELIMIT_H

#include "agent_conf.h"

/*
 * agent_timelimit_apply - at most once a second, give every running job
 * with staging records the credit it is owed, bounded by
 * c->credit_max and by twice what its files take at StorageBandwidth
 * plus a minute; log it, and when its staging ended append it to the
 * job's SystemComment.  Agent thread, no slurmctld lock held: it takes
 * the job write lock (node read) only when a record exists.
 */
void agent_timelimit_apply(const agent_conf_t *c, const char *pfx);

#endif /* AGENT_TIMELIMIT_H */
