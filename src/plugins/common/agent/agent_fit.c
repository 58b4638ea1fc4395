/*
 * agent_fit.c - judging a node for a pending job as Slurm does; see
 * agent_fit.h.  The memory and GRES rules are the node-level checks of the
 * select plugin (cons_common's _valid_node_set... in job_test.c): a job's
 * memory per node is pn_min_memory, times its CPUs per node when given per
 * CPU, against RealMemory less MemSpecLimit less what running jobs hold;
 * GRES by gres_job_test() on the node's GRES state, which the select
 * plugin keeps allocated counts in.
 */
#include "src/common/slurm_xlator.h"

#include <time.h>

#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/read_config.h"
#include "src/slurmctld/slurmctld.h"

#define DL_COMPAT_GRES
#include "dl_compat.h"
#include "agent_fit.h"

bool agent_fit_gres_ever(job_record_t *job_ptr, node_record_t *node_ptr)
{
	if (!job_ptr->gres_list_req)
		return true;
	return dl_compat_gres_job_test(job_ptr->gres_list_req,
				       node_ptr->gres_list, true,
				       job_ptr->job_id, node_ptr->name) != 0;
}

uint64_t agent_fit_node_mem(node_record_t *node_ptr)
{
	if (!(slurm_conf.select_type_param & CR_MEMORY))
		return 0;
	if (node_ptr->real_memory <= node_ptr->mem_spec_limit)
		return 0;
	return node_ptr->real_memory - node_ptr->mem_spec_limit;
}

uint32_t agent_fit_node_cpus(job_record_t *job_ptr)
{
	job_details_t *d = job_ptr->details;
	uint32_t k, cpus;

	if (!d)
		return 1;
	cpus = d->min_cpus ? d->min_cpus : 1;
	k = d->min_nodes && d->min_nodes != NO_VAL ? d->min_nodes : 1;
	if (k > 1) {
		cpus = (cpus + k - 1) / k;
		if (d->pn_min_cpus > cpus)
			cpus = d->pn_min_cpus;
	}
	return cpus;
}

/* MB the job asks for on one node, 0: not given (the check is skipped). */
static uint64_t _job_mem(job_record_t *job_ptr)
{
	job_details_t *d = job_ptr->details;
	uint64_t m = d->pn_min_memory;
	uint32_t cpus;

	if (!(m & MEM_PER_CPU))
		return m;
	m &= ~MEM_PER_CPU;
	cpus = d->pn_min_cpus;
	if (d->ntasks_per_node > cpus)
		cpus = d->ntasks_per_node;
	if (d->cpus_per_task > cpus)
		cpus = d->cpus_per_task;
	/* All its CPUs on the node, a share of them for several nodes. */
	if (agent_fit_node_cpus(job_ptr) > cpus)
		cpus = agent_fit_node_cpus(job_ptr);
	return m * (cpus ? cpus : 1);
}

bool agent_fit_now(job_record_t *job_ptr, node_record_t *node_ptr,
		   bool usable, uint32_t cpus_free, uint64_t mem_alloc)
{
	job_details_t *d = job_ptr->details;
	uint64_t avail = agent_fit_node_mem(node_ptr), need;
	uint32_t cpus = agent_fit_node_cpus(job_ptr);

	if (!usable || !d || cpus_free < cpus)
		return false;
	need = _job_mem(job_ptr);
	if (avail && need && (mem_alloc >= avail || avail - mem_alloc < need))
		return false;
	if (!job_ptr->gres_list_req)
		return true;
	return dl_compat_gres_job_test(job_ptr->gres_list_req,
				       node_ptr->gres_list, false,
				       job_ptr->job_id, node_ptr->name) != 0;
}

/*
 * Being powered down by an admin (POWER_DOWN: Slurm allocates it nothing
 * more and powers it off once idle), powering down, or off and out of
 * Slurm's available nodes: Slurm would have to power it up again for the
 * job, which it does not while the admin's request stands.  A node that
 * power saving turned off and would resume on demand stays in
 * avail_node_bitmap: the plan prices its wake-up (dl_place_warm()).
 */
static bool _powered_down(node_record_t *node_ptr)
{
	if (IS_NODE_POWER_DOWN(node_ptr) || IS_NODE_POWERING_DOWN(node_ptr))
		return true;
	return IS_NODE_POWERED_DOWN(node_ptr) &&
	       !IS_NODE_POWERING_UP(node_ptr) && avail_node_bitmap &&
	       !bit_test(avail_node_bitmap, node_ptr->index);
}

const char *agent_fit_cannot_serve(node_record_t *node_ptr)
{
	if (IS_NODE_DOWN(node_ptr))
		return "down";
	if (IS_NODE_FAIL(node_ptr))
		return "failing";
	if (IS_NODE_DRAIN(node_ptr))
		return "drained";
	if (_powered_down(node_ptr))
		return "powered down";
	return NULL;
}

bool agent_fit_reserved(job_record_t *job_ptr, node_record_t *node_ptr,
			time_t until)
{
	slurmctld_resv_t *resv_ptr;
	time_t now = time(NULL);
	list_itr_t *it;
	bool taken = false;

	if (!resv_list)
		return false;
	it = list_iterator_create(resv_list);
	while (!taken && (resv_ptr = list_next(it)))
		taken = resv_ptr != job_ptr->resv_ptr &&
			resv_ptr->node_bitmap && resv_ptr->end_time > now &&
			resv_ptr->start_time <= until &&
			bit_test(resv_ptr->node_bitmap, node_ptr->index);
	list_iterator_destroy(it);
	return taken;
}

const char *agent_fit_leave_why(job_record_t *job_ptr, int32_t node,
				bool eligible, time_t until)
{
	node_record_t *node_ptr;
	const char *why;

	if (node < 0 || node >= node_record_count ||
	    !(node_ptr = node_record_table_ptr[node]))
		return NULL;
	if ((why = agent_fit_cannot_serve(node_ptr)))
		return why;
	/* Not eligible otherwise (partitions, features): the plan moves it. */
	if (!eligible && agent_fit_reserved(job_ptr, node_ptr, until))
		return "reserved for other jobs";
	return NULL;
}
