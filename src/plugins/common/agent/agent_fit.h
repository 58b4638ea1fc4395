/*
 * agent_fit.h - judging a node for a pending job as Slurm does (issue 26,
 * item 1): whether the job may ever run there (its GRES exist there) and
 * whether it could start there now (free CPUs, free memory under
 * CR_*_Memory, free GRES, node state), with Slurm's own GRES test
 * (gres_job_test(), dl_compat.h) and the select plugin's memory rule.
 * Everything is called with slurmctld's job and node read locks held.
 */
#ifndef AGENT_FIT_H
#define AGENT_FIT_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

struct job_record;
struct node_record;

/*
 * agent_fit_gres_ever - whether the GRES the job asks for exist on the node
 * at all (Slurm would fail a job restricted to a node without them:
 * BadConstraints).  A job asking for none: true.
 */
bool agent_fit_gres_ever(struct job_record *job_ptr,
			 struct node_record *node_ptr);

/*
 * agent_fit_node_mem - memory of the node jobs may be given, MB (its
 * RealMemory less MemSpecLimit), 0 when Slurm does not track memory
 * (no CR_*_Memory in SelectTypeParameters).
 */
uint64_t agent_fit_node_mem(struct node_record *node_ptr);

/*
 * agent_fit_node_cpus - CPUs the job needs on each of its nodes: all of
 * min_cpus for a single-node job, an even share of them (at least
 * pn_min_cpus) for a job of several nodes.
 */
uint32_t agent_fit_node_cpus(struct job_record *job_ptr);

/*
 * agent_fit_node_take - CPUs Slurm allocates the job on each of its nodes
 * once it starts there, where need (its agent_fit_node_cpus(), given by
 * the caller, which has it) must be free for it to start: need before
 * Slurm 24.11.1; from 24.11.1 on, for a job whose tasks Slurm counts (-n,
 * --ntasks-per-node), only what its tasks use, which --mincpus can make
 * less.  Never more than need.
 */
uint32_t agent_fit_node_take(struct job_record *job_ptr, uint32_t need);

/*
 * agent_fit_now - whether Slurm could start the job on the node now: it is
 * usable, has cpus_free CPUs for it, mem_alloc MB allocated leaves it the
 * memory it asks for (a job asking for none takes the whole node's
 * memory, as the select plugin gives it), and its free GRES suffice.
 */
bool agent_fit_now(struct job_record *job_ptr, struct node_record *node_ptr,
		   bool usable, uint32_t cpus_free, uint64_t mem_alloc);

/*
 * agent_fit_cannot_serve - why the node can take no job for a while, as
 * a word for Reasons and logs ("drained", "down", "failing",
 * "powered down": asked to power down, powering down, or off and out of
 * Slurm's available nodes), or NULL.  A node that only has not registered
 * again since a slurmctld restart (not responding) is not counted: it
 * comes back by itself.
 */
const char *agent_fit_cannot_serve(struct node_record *node_ptr);

/*
 * agent_fit_reserved - whether an advance reservation the job is not in
 * holds the node now or starts by until (Slurm keeps the job off it:
 * `scontrol create reservation nodes=n2 users=someoneelse`).
 */
bool agent_fit_reserved(struct job_record *job_ptr,
			struct node_record *node_ptr, time_t until);

/*
 * agent_fit_leave_why - why a job placed on node (an index) should leave
 * it now (issue 26, item 2): agent_fit_cannot_serve() of the node, or
 * "reserved for other jobs" when it is not eligible for the job because
 * of a reservation (agent_fit_reserved()); else NULL.  A static string.
 */
const char *agent_fit_leave_why(struct job_record *job_ptr, int32_t node,
				bool eligible, time_t until);

#endif /* AGENT_FIT_H */
