/*
 * agent_idle.h - what the agent does between its cycles while nothing
 * changes (agent_quiet.h): it renews the gate holds the last snapshot
 * listed (agent_gate.h, renewals between cycles) by id, and looks at the
 * nodes' inventory files for a change, so that an idle agent runs no
 * cycle for either.  Agent thread only; what it keeps is xmalloc'd here
 * and freed by agent_idle_fini().
 */
#ifndef AGENT_IDLE_H
#define AGENT_IDLE_H

#include <stdbool.h>
#include <stdint.h>

#include "agent_snapshot.h"

/*
 * agent_idle_keep - after a cycle: keep its snapshot's renewals and node
 * names.  RET the earliest renewal due, of those or of the due list
 * (snapshot_t.renew_wake).
 */
int64_t agent_idle_keep(const snapshot_t *s);

/*
 * agent_idle_renew - renew the kept holds now (agent_apply_renew()) and
 * a step of the due list's (agent_snapshot_renew_due()), under the job
 * write lock it takes.  *next: the next renewal due, AGENT_QUIET_NEVER if
 * none; *expired: kept holds found run out; *listed: of the holds
 * renewed, the due list's; *cycle: the due list gave a job a cycle is to
 * take.  RET the holds renewed.
 */
uint32_t agent_idle_renew(uint32_t hold, int64_t *next, uint32_t *expired,
			  uint32_t *listed, bool *cycle);

/*
 * agent_idle_inventory_changed - whether a node's inventory file
 * (cache_dir with %n the node name, "/.inventory") changed since the last
 * call that said so, or since the first call: its stat (inode, size,
 * mtime, or none) hashed over the kept nodes.  A change found is taken as
 * seen: the caller runs a cycle, which reads the files (the last cycle
 * ran AGENT_QUIET_MAX_MS ago, so its once-a-second bound does not stop
 * it).  A file rewritten during a cycle that read it only costs one cycle
 * more.  NULL cache_dir: never.
 */
bool agent_idle_inventory_changed(const char *cache_dir);

/* agent_idle_fini - free what is kept (the agent stops). */
void agent_idle_fini(void);

#endif /* AGENT_IDLE_H */
