/*
 * job_submit_datalocality_agent.c - JobSubmitPlugins=datalocality,
 * datalocality_agent: the planning agent beside SchedulerType=sched/backfill
 * on a Slurm without SlurmctldPlugstack (24.11), where slurmctld/datalocality
 * has no plugin type to load as.  Heterogeneous jobs need SchedulerType to be
 * sched/backfill literally, so sched/datalocality cannot host the agent for
 * them; a job_submit plugin is loaded by slurmctld alone, once, and stays
 * until it ends, as a plugstack entry did.
 *
 * Only init() and fini() matter: job_submit() and job_modify() take every job
 * as it is (job_submit/datalocality, listed before this one, does the checks
 * and the submit gate).
 */
#include <stdint.h>

#include "src/common/slurm_xlator.h"

#include "slurm/slurm_errno.h"
#include "src/common/log.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "dl_agent.h"
#include "dl_slurm.h"

const char plugin_name[] = "Data locality aware placement (agent beside the scheduler)";
const char plugin_type[] = "job_submit/datalocality_agent";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

int init(void)
{
	dl_slurm_log_init();
	if (!xstrcmp(slurm_conf.schedtype, "sched/datalocality")) {
		error("%s: sched/datalocality already runs the agent; not starting a second one",
		      plugin_type);
		return SLURM_SUCCESS;
	}
	if (xstrcmp(slurm_conf.schedtype, "sched/backfill") &&
	    xstrcmp(slurm_conf.schedtype, "sched/builtin"))
		error("%s: SchedulerType=%s: use this plugin with sched/backfill, or SchedulerType=sched/datalocality alone",
		      plugin_type, slurm_conf.schedtype);
	verbose("%s: loaded beside %s", plugin_type, slurm_conf.schedtype);
	return dl_agent_start(plugin_type);
}

void fini(void)
{
	dl_agent_stop();
}

extern int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid,
		      char **err_msg)
{
	(void)job_desc;
	(void)submit_uid;
	(void)err_msg;
	return SLURM_SUCCESS;
}

extern int job_modify(job_desc_msg_t *job_desc, job_record_t *job_ptr,
		      uint32_t submit_uid, char **err_msg)
{
	(void)job_desc;
	(void)job_ptr;
	(void)submit_uid;
	(void)err_msg;
	return SLURM_SUCCESS;
}
