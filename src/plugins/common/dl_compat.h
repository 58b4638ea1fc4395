/*
 * dl_compat.h - every difference between the Slurm releases the plugins
 * build against, in one place, so that no other file tests a version.
 *
 * Tested: 22.05.8 (Debian 12) and 24.11.5 (Debian 13).  configure probes
 * the Slurm source tree given (--with-slurm-source) for each feature below
 * and defines DL_SLURM_HAVE_* (see configure.ac, "Slurm differences"); the
 * code is written against the newer names and this header supplies them
 * for an older Slurm.  Porting to another release starts here: build,
 * read the first error, add a probe and a mapping.
 *
 * Include after "src/slurmctld/slurmctld.h" (or "src/common/list.h" and
 * "src/common/read_config.h" where no slurmctld header is needed).
 */
#ifndef DL_COMPAT_H
#define DL_COMPAT_H

#include <stddef.h>

#include "src/common/list.h"
#include "src/common/read_config.h"
#include "src/common/xstring.h"

/*
 * Lists: 22.05 has only the pointer typedefs List and ListIterator, 24.11
 * only the struct typedefs list_t and list_itr_t.  The code uses list_t *
 * and list_itr_t *, which are the same pointers in both.
 */
#ifndef DL_SLURM_HAVE_LIST_T
typedef struct xlist list_t;
typedef struct listIterator list_itr_t;
#endif

/*
 * A job's details: 22.05's struct job_details (src/slurmctld/slurmctld.h)
 * is an anonymous struct behind job_details_t in 24.11
 * (src/common/job_record.h).
 */
#ifndef DL_SLURM_HAVE_JOB_DETAILS_T
typedef struct job_details job_details_t;
#endif

/*
 * SlurmctldPlugstack (slurm_conf.slurmctld_plugstack, the plugin type
 * slurmctld/...) is gone in 24.11: the slurmctld/datalocality entry point is
 * built only where it exists (Makefile.am, HAVE_SLURMCTLD_PLUGSTACK); where
 * it does not, the agent beside sched/backfill is the job_submit plugin
 * datalocality_agent (JobSubmitPlugins=datalocality,datalocality_agent).
 * dl_compat_agent_beside - whether slurm.conf runs the agent beside the
 * scheduler, by whichever of the two this Slurm has.
 */
static inline bool dl_compat_agent_beside(void)
{
#ifdef DL_SLURM_HAVE_CTLD_PLUGSTACK
	return xstrcasestr(slurm_conf.slurmctld_plugstack, "datalocality");
#else
	return xstrcasestr(slurm_conf.job_submit_plugins,
			   "datalocality_agent");
#endif
}

/*
 * GRES (used by agent_fit.c, which defines DL_COMPAT_GRES before including
 * this header): gres.h is src/common/ in 22.05, src/interfaces/ in 24.11,
 * and 24.11's gres_job_test() lost the core bitmap and disable_binding
 * arguments.  dl_compat_gres_job_test - Slurm's node-level GRES test as the
 * select plugin makes it (no core restriction): NO_VAL or the usable
 * cores, 0 if the node lacks the job's GRES (all of them if total).
 */
#ifdef DL_COMPAT_GRES
#if __has_include("src/interfaces/gres.h")
#include "src/interfaces/gres.h"
#define DL_COMPAT_GRES_INTERFACES 1
#else
#include "src/common/gres.h"
#endif
static inline uint32_t dl_compat_gres_job_test(list_t *job_gres,
					       list_t *node_gres, bool total,
					       uint32_t job_id, char *node)
{
#ifdef DL_COMPAT_GRES_INTERFACES
	return gres_job_test(job_gres, node_gres, total, 0, 0, job_id, node);
#else
	return gres_job_test(job_gres, node_gres, total, NULL, 0, 0, job_id,
			     node, false);
#endif
}
#endif /* DL_COMPAT_GRES */

/*
 * Accounting storage (agent_acct.c, which defines DL_COMPAT_ACCT):
 * jobacct_storage_g_job_complete() is declared in src/common/ in 22.05,
 * src/interfaces/ in 24.11, with the same arguments.
 */
#ifdef DL_COMPAT_ACCT
#if __has_include("src/interfaces/accounting_storage.h")
#include "src/interfaces/accounting_storage.h"
#else
#include "src/common/slurm_accounting_storage.h"
#endif
#endif /* DL_COMPAT_ACCT */

/*
 * Splitting a task off a job array's own record (agent_array.c): 24.11's
 * job_array_split() and job_array_post_sched() take list_add, whether the
 * new record joins job_list (update_job() passes true, as the agent does:
 * it is not iterating job_list then); 22.05's always add it.
 */
#ifdef DL_SLURM_HAVE_ARRAY_SPLIT_LIST_ADD
#define dl_compat_array_split(job_ptr) job_array_split((job_ptr), true)
#define dl_compat_array_post_sched(job_ptr) \
	job_array_post_sched((job_ptr), true)
#else
#define dl_compat_array_split(job_ptr) job_array_split(job_ptr)
#define dl_compat_array_post_sched(job_ptr) job_array_post_sched(job_ptr)
#endif

#endif /* DL_COMPAT_H */
