/*
 * sched_datalocality.c - plugin symbols and entry points of
 * sched/datalocality; the work is in dl_agent.c.
 */
#include <stdint.h>

#include "src/common/slurm_xlator.h"

#include "slurm/slurm_errno.h"
#include "src/common/log.h"
#include "src/slurmctld/slurmctld.h"

#include "dl_agent.h"
#include "dl_slurm.h"

const char plugin_name[] = "Data locality aware scheduler";
const char plugin_type[] = "sched/datalocality";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

int init(void)
{
	dl_slurm_log_init();
	verbose("%s: loaded", plugin_type);
	return dl_agent_start();
}

void fini(void)
{
	dl_agent_stop();
}

extern int sched_p_reconfig(void)
{
	dl_agent_reconfig();
	return SLURM_SUCCESS;
}
