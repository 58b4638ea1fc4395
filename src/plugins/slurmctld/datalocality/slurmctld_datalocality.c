/*
 * slurmctld_datalocality.c - SlurmctldPlugstack=datalocality.
 *
 * The same planning agent as sched/datalocality, for sites that keep
 * SchedulerType=sched/backfill: slurmctld accepts heterogeneous jobs only
 * when SchedulerType is literally sched/backfill.  Slurm calls only
 * init() and fini() (and get_config for scontrol show config).
 */
#include <stdint.h>

#include "src/common/slurm_xlator.h"

#include "slurm/slurm_errno.h"
#include "src/common/log.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "dl_agent.h"
#include "dl_slurm.h"

const char plugin_name[] = "Data locality aware placement";
const char plugin_type[] = "slurmctld/datalocality";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

int init(void)
{
	dl_slurm_log_init();
	if (xstrcmp(slurm_conf.schedtype, "sched/backfill") &&
	    xstrcmp(slurm_conf.schedtype, "sched/builtin"))
		error("%s: SchedulerType=%s: use this plugin with sched/backfill, or SchedulerType=sched/datalocality alone",
		      plugin_type, slurm_conf.schedtype);
	if (!xstrcmp(slurm_conf.schedtype, "sched/datalocality")) {
		error("%s: sched/datalocality already runs the agent; not starting a second one",
		      plugin_type);
		return SLURM_SUCCESS;
	}
	verbose("%s: loaded beside %s", plugin_type, slurm_conf.schedtype);
	return dl_agent_start(plugin_type);
}

void fini(void)
{
	dl_agent_stop();
}

extern void slurmctld_plugstack_p_get_config(config_plugin_params_t *p)
{
	p->name = xstrdup(plugin_type);
}
