/*
 * jsub_pattern.h - Slurm's filename patterns (%a %A %j %u %x, dl_pattern.h)
 * in a job's files, checked at submit: an array's annotation is expanded
 * for its tasks and each task's files are opened as the job's user, so a
 * task whose input is missing is refused at submit, never at run time.
 *
 * Bounded: every task of an array of at most JSUB_TASKS_CHECKED tasks,
 * else that many (the first, the last, evenly spread between); per task at
 * most JSUB_ENTRIES_CHECKED entries that hold a pattern.  Only entries
 * that hold a pattern are opened (a plain path is not checked at submit,
 * as before), and only as the user: when slurmctld cannot take the user's
 * identity, only the patterns themselves are checked.  What needs a value
 * not known at submit (%j, %A: the job id) is checked when the job runs.
 * List files are read here (for the lines with patterns that the nodes do
 * not expand yet, see _check_list()) when their path holds a pattern or
 * the job is an array: not for every job with a list file.
 */
#ifndef JSUB_PATTERN_H
#define JSUB_PATTERN_H

#include "src/slurmctld/slurmctld.h"

#define JSUB_TASKS_CHECKED 64
#define JSUB_ENTRIES_CHECKED 1024

typedef struct jsub_pattern jsub_pattern_t;

/**
 * jsub_pattern_new - the values the patterns of a job being submitted
 * expand to, and the tasks to check.
 * \return NULL when neither its comment, nor its script, nor its
 *         burst-buffer spec holds a '%' (nothing to do); else a new
 *         object, freed with jsub_pattern_free().
 */
jsub_pattern_t *jsub_pattern_new(const job_desc_msg_t *d);

/* jsub_pattern_job - the same for a job record (job_modify). */
jsub_pattern_t *jsub_pattern_job(const job_record_t *job_ptr);

void jsub_pattern_free(jsub_pattern_t *p);

/**
 * jsub_pattern_first - an annotation as its first task (or a job outside
 * an array) sees it, for the checks that read its list files: "@/l/%a"
 * names no file as written.  What needs a value not known yet is left out.
 * IN p - NULL: *out stays NULL
 * OUT out - NULL (use ann as it is) or a malloc'd annotation (free())
 * OUT err_msg - on SLURM_ERROR, an xmalloc'd message for the user
 * \return SLURM_SUCCESS, SLURM_ERROR for a malformed pattern or %a outside
 *         an array.
 */
int jsub_pattern_first(const jsub_pattern_t *p, const char *ann, char **out,
		       char **err_msg);

/**
 * jsub_pattern_check - expand the job's annotations (its comment and the
 * DL_FILES entry _script() put in its SPANK environment) for every task
 * checked and open what the patterns name, as the user.
 * OUT err_msg - on SLURM_ERROR, "files: task 5: /data/in_5: No such file
 *               or directory" and the like (xmalloc'd)
 * \return SLURM_SUCCESS (also for p NULL) or SLURM_ERROR.
 */
int jsub_pattern_check(const jsub_pattern_t *p, const job_desc_msg_t *d,
		       char **err_msg);

#endif /* JSUB_PATTERN_H */
