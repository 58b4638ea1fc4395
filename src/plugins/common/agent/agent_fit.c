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

/*
 * The tasks select/cons_tres lays out on the job's k nodes when it starts
 * (dist_tasks.c, _dist_tasks_compute_c_b() and, from 24.11.1,
 * _get_task_count()), or 0 when it lays out one per CPU that node
 * selection gave the job, which then takes all it needed (at least
 * pn_min_cpus on each node: _allocate_sc() and
 * eval_nodes_cpus_to_use(), 22.05's cons_common.c and _cpus_to_use(), the
 * same rule).  Read in the two sources and in SchedMD/slurm's history:
 *  - 22.05 up to 24.11.0 (dist_tasks.c of 23.02.0, 23.11.0, 24.05.0,
 *    24.05.8 and 24.11.0 too): the task count is job_res->ncpus, the CPUs
 *    selected;
 *  - 24.11.1 (dd07218fbb, "Use task count in dist_tasks instead of cpu
 *    count"; NEWS: "jobs requesting cpus-per-gpu hang in queue"):
 *    num_tasks if set (slurmctld sets it for every job), else
 *    ntasks_per_node per node;
 *  - 24.11.4 (e44dd33442, "Recalculate tasks if the task count was not
 *    requested by the user"): num_tasks only if the user gave it
 *    (JOB_NTASKS_SET, -n), else as 24.11.1; so 25.05;
 *  - 25.11.0 (b1100f8b74): ntasks_per_node first, then -n.
 * Run on 22.05.8 and 24.11.5 only (scontrol show job -d under
 * sched/backfill): -N 2 -n 2 --mincpus=2 needs 2 free CPUs on each node
 * under both; 22.05 gives it 2 on each (NumCPUs=4), 24.11.5 one on each
 * (CPU_IDs=0, NumCPUs=2); -N 2 --mincpus=2 is given 2 on each under both.
 */
static uint32_t _layout_tasks(job_record_t *job_ptr, uint32_t k)
{
#if SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(24, 11, 1)
	(void)job_ptr;
	(void)k;
	return 0;
#else
	job_details_t *d = job_ptr->details;
	uint32_t per_node = d->ntasks_per_node < NO_VAL16 ?
				    d->ntasks_per_node : 0;
	uint32_t tasks = d->num_tasks < NO_VAL ? d->num_tasks : 0;
	bool asked = job_ptr->bit_flags & JOB_NTASKS_SET;

#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(25, 11, 0)
	if (per_node)
		return per_node * k;
	return asked ? tasks : 0;
#else
#if SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(24, 11, 4)
	asked = true; /* any task count, the user's or slurmctld's */
#endif
	if (tasks && asked)
		return tasks;
	return per_node * k;
#endif
#endif
}

uint32_t agent_fit_node_take(job_record_t *job_ptr, uint32_t need)
{
	job_details_t *d = job_ptr->details;
	uint32_t k, tasks, cpt, take;

	if (!d || d->min_nodes < 2 || d->min_nodes == NO_VAL)
		return need;
	k = d->min_nodes;
	if (!(tasks = _layout_tasks(job_ptr, k)))
		return need;
	cpt = d->cpus_per_task && d->cpus_per_task < NO_VAL16 ?
		      d->cpus_per_task : 1;
	/*
	 * A task a node first, the rest dealt out a node at a time: an
	 * uneven count gives the first nodes one more.  The smaller share
	 * for every node, so that the quota never holds a job back that
	 * backfill would start beside this one.
	 */
	take = (tasks >= k ? tasks / k : 1) * cpt;
	return take < need ? take : need;
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
