/*
 * job_submit_datalocality.c - reject a malformed files: annotation at
 * submit time, with a message that says what is wrong (sbatch prints it),
 * and accept every other job unchanged.
 *
 * The same parser as sched/datalocality reads the annotation, so a job
 * that gets past this plugin is one the scheduler understands.
 */
#include <stdint.h>
#include <string.h>

#include "src/common/slurm_xlator.h"

#include "slurm/slurm_errno.h"
#include "src/common/log.h"
#include "src/common/xmalloc.h"
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
		     gid_t gid, uint32_t job_id, char **err_msg)
{
	dl_filelist_t *files = NULL;
	char *msg = NULL;

	if (comment && strlen(comment) > DL_COMMENT_MAX &&
	    dl_files_has_annotation(comment)) {
		*err_msg = xstrdup_printf("files: annotation of %zu bytes is longer than %d: put the paths in a file and use files:@/path/to/list",
					  strlen(comment), DL_COMMENT_MAX);
		info("%s: rejecting job %u of uid %u: comment of %zu bytes",
		     plugin_type, job_id, (unsigned)uid, strlen(comment));
		return SLURM_ERROR;
	}
	if (dl_slurm_job_files(comment, bb, uid, gid, &files, &msg)) {
		info("%s: rejecting job %u of uid %u: %s", plugin_type,
		     job_id, (unsigned)uid, msg);
		*err_msg = msg;
		return SLURM_ERROR;
	}
	dl_filelist_free(files);
	return SLURM_SUCCESS;
}

extern int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid,
		      char **err_msg)
{
	(void)submit_uid;
	return _validate(job_desc->comment, job_desc->burst_buffer,
			 job_desc->user_id, job_desc->group_id, 0, err_msg);
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
			 err_msg);
}
