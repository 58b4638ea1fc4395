/*
 * job_submit_datalocality.c - reject a malformed files: annotation at
 * submit time, with a message that says what is wrong (sbatch prints it),
 * and hold a new annotated single-node job back until the planning agent
 * has placed it: Slurm may try a job the moment it is submitted, or when
 * any other job ends, and a job started before it has its node would lose
 * its data.  The hold is a begin time DL_GATE_SECONDS ahead (dl_slurm.h);
 * the agent lifts it within a cycle (100 ms), and if the agent is not
 * running the job only starts a little later.
 *
 * The same parser as sched/datalocality reads the annotation, so a job
 * that gets past this plugin is one the scheduler understands.
 */
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "src/common/slurm_xlator.h"

#include "slurm/slurm_errno.h"
#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "dl_files.h"
#include "dl_slurm.h"

/*
 * slurmd hands the comment to dl-stage in the Prolog's environment, where
 * one string may not exceed the kernel's MAX_ARG_STRLEN (128 KiB); longer
 * annotations belong in a list file.
 */
#define DL_COMMENT_MAX (120 * 1024)

const char plugin_name[] = "Data locality: validate files: annotations";
const char plugin_type[] = "job_submit/datalocality";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

int init(void)
{
	dl_slurm_log_init();
	return SLURM_SUCCESS;
}

void fini(void)
{
}

/*
 * IN comment, bb - the job's (new) comment and burst-buffer spec
 * IN uid, gid - whose permissions list files are read with
 * OUT err_msg - set on rejection
 * RET SLURM_SUCCESS or an error that makes slurmctld refuse the request
 */
static int _validate(const char *comment, const char *bb, uid_t uid,
		     gid_t gid, uint32_t job_id, char **err_msg, bool *files_out)
{
	char *msg = NULL;

	if (comment && strlen(comment) > DL_COMMENT_MAX &&
	    dl_files_has_annotation(comment)) {
		*err_msg = xstrdup_printf("files: annotation of %zu bytes is longer than %d: put the paths in a file and use files:@/path/to/list",
					  strlen(comment), DL_COMMENT_MAX);
		info("%s: rejecting job %u of uid %u: comment of %zu bytes",
		     plugin_type, job_id, (unsigned)uid, strlen(comment));
		return SLURM_ERROR;
	}
	/* Validation only: the agent learns sizes when the job may run. */
	if (dl_slurm_job_files(comment, bb, uid, gid, NULL, &msg)) {
		info("%s: rejecting job %u of uid %u: %s", plugin_type,
		     job_id, (unsigned)uid, msg);
		*err_msg = msg;
		return SLURM_ERROR;
	}
	if (files_out)
		*files_out = dl_files_has_annotation(comment) ||
			     (bb && strstr(bb, "stage_in"));
	return SLURM_SUCCESS;
}

/* Whether a planning agent runs to place (and release) gated jobs. */
static bool _agent_configured(void)
{
	return !xstrcmp(slurm_conf.schedtype, "sched/datalocality") ||
	       xstrcasestr(slurm_conf.slurmctld_plugstack, "datalocality");
}

/* What the agent may restrict to one node: see agent_snapshot.c. */
static bool _placeable(const job_desc_msg_t *d)
{
	if (d->req_nodes || d->array_inx || d->het_job_offset != NO_VAL)
		return false;
	if (d->min_nodes != NO_VAL && d->min_nodes > 1)
		return false;
	if (d->max_nodes != NO_VAL && d->max_nodes > 1)
		return false;
	return true;
}

static void _gate(job_desc_msg_t *d)
{
	time_t now = time(NULL);

	/* A job that begins later anyway is placed before then. */
	if (d->begin_time > now + DL_GATE_SECONDS)
		return;
	d->begin_time = now + DL_GATE_SECONDS;
}

extern int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid,
		      char **err_msg)
{
	bool files = false;
	int rc;

	(void)submit_uid;
	rc = _validate(job_desc->comment, job_desc->burst_buffer,
		       job_desc->user_id, job_desc->group_id, 0, err_msg,
		       &files);
	if (rc == SLURM_SUCCESS && files && _agent_configured() &&
	    _placeable(job_desc))
		_gate(job_desc);
	return rc;
}

extern int job_modify(job_desc_msg_t *job_desc, job_record_t *job_ptr,
		      uint32_t submit_uid, char **err_msg)
{
	(void)submit_uid;
	/* Only a changed comment can make the annotation invalid. */
	if (!job_desc->comment)
		return SLURM_SUCCESS;
	return _validate(job_desc->comment, job_ptr->burst_buffer,
			 job_ptr->user_id, job_ptr->group_id, job_ptr->job_id,
			 err_msg, NULL);
}
