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
#include "dl_pattern.h"

/*
 * How the plugins mark a job record.  SystemComment (shown by scontrol and
 * saved with the job, so it survives a slurmctld restart; nothing else in
 * Slurm 22.05 sets it) says which part of the job's required node list is
 * the plugin's: "datalocality: ReqNodeList=<node> ..." while the plugin's
 * restriction is in force.  The job_submit plugin holds a new annotated job
 * back with a begin time a bound ahead until the agent has placed it (the
 * bound follows the agent's cycle time, DL_GATE_SECONDS at first; the hold
 * is noted in the job's SPANK environment, see agent_gate.h); a job the
 * gate let go unplaced says so: "datalocality: released unplaced ...".  (details->extra,
 * the obvious place for a mark, is a dangling pointer in Slurm 22.05.)
 */
#define DL_SC_PREFIX "datalocality: "
#define DL_SC_PLACED "datalocality: ReqNodeList="
#define DL_SC_WIDENED "datalocality: widened"
#define DL_SC_RELEASED "datalocality: released unplaced"
#define DL_GATE_SECONDS 3
/*
 * The gate's bound now, in seconds, as the agent measures it (agent_gate.h):
 * a file of StateSaveLocation the agent rewrites when the bound changes,
 * read by job_submit (before the agent first wrote it: DL_GATE_SECONDS).
 */
#define DL_GATE_FILE "datalocality_gate"
/*
 * The job's SPANK environment entry holding the files: annotation of its
 * batch script's #DL directives (dl_script.h), set by job_submit.
 */
#define DL_ENV_FILES "DL_FILES"

/* Largest list file read for one job; bigger ones are rejected. */
#define DL_LIST_FILE_MAX (64 << 20)

/* dl_slurm_log_init - send libdatalocality's messages to Slurm's log. */
void dl_slurm_log_init(void);

/**
 * dl_slurm_job_files - every input file of one job.
 * IN comment, bb_spec - the job's comment and burst-buffer spec (NULL ok)
 * IN script_files - the annotation of its script's #DL directives (the
 *     DL_ENV_FILES entry of its SPANK environment), or NULL
 * IN uid, gid - the job's user: list files are read and sizes learnt with
 *     that user's identity (dl_asuser.h); no message quotes a file, and a
 *     missing file gets the same answer as one the user may not read
 * OUT out - the files with the sizes its user may see, free with
 *     dl_filelist_free(); NULL when the job names no file.  NULL: only
 *     validate (nothing is stat()ed)
 * OUT err_msg - on error, an xmalloc'd message for the user (xfree it)
 * \return 0 or a DL_E* code.
 */
int dl_slurm_job_files(const char *comment, const char *script_files,
		       const char *bb_spec, uid_t uid, gid_t gid,
		       dl_filelist_t **out, char **err_msg);

/**
 * dl_slurm_job_files_max - dl_slurm_job_files() for a job that may name
 * more files than anyone should hold for it: when it names more than max,
 * *out stays NULL and only their number comes back (the files never reach
 * slurmctld's memory).
 * IN ctx - the job's values for the patterns of its paths (dl_pattern.h:
 *     %a %A %j %u %x), expanded in the annotation, the script's #DL
 *     files, the list files' paths and contents and the stage_in
 *     sources; task_id DL_PATTERN_UNKNOWN (a pending array's own record)
 *     leaves out the paths that need it.  NULL: nothing is expanded.
 * OUT total - how many files the job names
 */
int dl_slurm_job_files_max(const char *comment, const char *script_files,
			   const char *bb_spec, uid_t uid, gid_t gid,
			   const dl_pattern_ctx_t *ctx, size_t max,
			   dl_filelist_t **out, size_t *total, char **err_msg);

#endif /* DL_SLURM_H */
