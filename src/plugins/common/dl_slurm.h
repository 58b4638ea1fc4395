/*
 * dl_slurm.h - what both Slurm plugins share: routing the library's log to
 * Slurm's, and reading a job's input files from its comment, its list
 * files and its burst-buffer stage_in directives.
 *
 * Runs inside slurmctld: allocations are Slurm's (xmalloc/xfree) except
 * for library objects, freed with the library's own calls.
 */
#ifndef DL_SLURM_H
#define DL_SLURM_H

#include <sys/types.h>

#include "dl_files.h"

/* Largest list file read for one job; bigger ones are rejected. */
#define DL_LIST_FILE_MAX (64 << 20)

/* dl_slurm_log_init - send libdatalocality's messages to Slurm's log. */
void dl_slurm_log_init(void);

/**
 * dl_slurm_job_files - every input file of one job.
 * IN comment, bb_spec - the job's comment and burst-buffer spec (NULL ok)
 * IN uid, gid - the job's user: a list file is read only if that user may
 *     read it (checked on the opened file's mode, owner and groups)
 * OUT out - the files, free with dl_filelist_free(); NULL when the job
 *     names no file
 * OUT err_msg - on error, an xmalloc'd message for the user (xfree it)
 * \return 0 or a DL_E* code.
 */
int dl_slurm_job_files(const char *comment, const char *bb_spec, uid_t uid,
		       gid_t gid, dl_filelist_t **out, char **err_msg);

#endif /* DL_SLURM_H */
