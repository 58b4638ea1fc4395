/*
 * agent_history.h - how long similar jobs ran: a moving average of the run
 * time of completed annotated jobs per (user, job name), so that the plan
 * estimates running and pending jobs better than by their time limits,
 * which users set generously.  Owned by the agent thread alone.
 */
#ifndef AGENT_HISTORY_H
#define AGENT_HISTORY_H

#include <stdint.h>
#include <sys/types.h>

/* agent_history_add - a job of (uid, name hash) ran for seconds. */
void agent_history_add(uid_t uid, uint64_t name, double seconds);

/*
 * agent_history_estimate - expected run time of a job of (uid, name):
 * the average of similar jobs, at most its limit (< 0: none); the limit
 * when there is no history; < 0 when neither is known.
 */
double agent_history_estimate(uid_t uid, uint64_t name, double limit);

/* agent_history_fini - forget everything. */
void agent_history_fini(void);

#endif /* AGENT_HISTORY_H */
