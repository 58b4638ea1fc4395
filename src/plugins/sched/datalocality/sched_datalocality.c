/*
 * sched_datalocality.c - SchedulerType=sched/datalocality.
 *
 * Slurm decides when, we decide where: this plugin loads sched/backfill
 * and forwards to it, so Slurm's main scheduler and backfill order and
 * start every job exactly as under SchedulerType=sched/backfill (every
 * bf_* parameter, reservations, QOS, preemption, time limits), and beside
 * it runs the planning agent, which only sets where annotated jobs may run.
 * The wrapper owns no policy, only wiring, as select/other does for
 * select/cray_aries.
 *
 * Heterogeneous jobs need SchedulerType=sched/backfill literally: use
 * SlurmctldPlugstack=datalocality (slurmctld_datalocality.c) for them.
 */
#include <stdint.h>

#include "src/common/slurm_xlator.h"

#include "slurm/slurm_errno.h"
#include "src/common/log.h"
#include "src/common/plugin.h"
#include "src/slurmctld/slurmctld.h"

#include "dl_agent.h"
#include "dl_slurm.h"

const char plugin_name[] = "Data locality aware placement over backfill";
const char plugin_type[] = "sched/datalocality";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/* The wrapped scheduler: sched/backfill's own entry points. */
typedef struct {
	int (*reconfig)(void);
} sched_ops_t;

static const char *syms[] = {
	"sched_p_reconfig",
};

static sched_ops_t ops;
static plugin_context_t *backfill;

int init(void)
{
	dl_slurm_log_init();
	/* plugin_context_create() runs backfill's init(): its thread starts. */
	backfill = plugin_context_create("sched", "sched/backfill",
					 (void **)&ops, syms, sizeof(syms));
	if (!backfill) {
		error("%s: cannot load sched/backfill", plugin_type);
		return SLURM_ERROR;
	}
	verbose("%s: loaded, scheduling by sched/backfill", plugin_type);
	return dl_agent_start(plugin_type);
}

void fini(void)
{
	dl_agent_stop();
	if (backfill)
		plugin_context_destroy(backfill);
	backfill = NULL;
}

extern int sched_p_reconfig(void)
{
	dl_agent_reconfig();
	return backfill ? (*(ops.reconfig))() : SLURM_SUCCESS;
}
