/*
 * dl_pattern.h - Slurm's filename patterns in the paths of a file list,
 * so that the tasks of a job array can each name their own input.
 *
 * Patterns (documented for users in doc/files-annotation.md):
 *
 *   %a   array task id            %A   array (master) job id
 *   %j   job id                   %u   user name
 *   %x   job name                 %%   a literal '%'
 *
 * A number may carry a zero-padding width: "%4a" is task 7 as "0007".
 * As in slurmstepd's fname_create() (src/slurmd/common/fname.c), the
 * width is decimal digits right after '%', at most 10 (a wider one counts
 * as 10), and it is ignored for %u and %x.  For a job that is not an array
 * task, %A is the job id, as in Slurm.
 *
 * Where this differs from Slurm's output names, it is stricter, because a
 * file list is checked at submit while an output name is only created at
 * run time:
 *  - %a of a job that is not an array task is refused (Slurm writes
 *    4294967294, its NO_VAL, a file nobody means to read);
 *  - an unknown pattern ("%t", "%N", "%q", ...) or an incomplete one (a
 *    '%' or "%4" at the end) is refused; Slurm leaves it as written.  A
 *    literal '%' is written "%%";
 *  - '\' has no meaning (Slurm turns expansion off for a name with one).
 *
 * Safety: an expansion never adds a path component.  A user or job name
 * that is empty or holds '/', '%', a blank, a control character, ',',
 * ';', '=' or '@' is refused rather than inserted, and an expanded path
 * whose component becomes "." or ".." (a job named "..") is refused too.
 * Expansion is done exactly once on text the user wrote: its output is a
 * plain path, not a pattern ("%%" gives a lone '%').
 */
#ifndef DL_PATTERN_H
#define DL_PATTERN_H

#include <stddef.h>
#include <stdint.h>

#include "dl_files.h"

/* A job that is not an array task (Slurm's NO_VAL, as in job records). */
#define DL_PATTERN_NONE 0xfffffffeu
/* A value not known yet, such as the job id before submission ends. */
#define DL_PATTERN_UNKNOWN 0xffffffffu
/* The widest zero padding, as in Slurm. */
#define DL_PATTERN_WIDTH_MAX 10

/* What a path's patterns need, from dl_pattern_fields(). */
#define DL_PATTERN_TASK 0x01u   /* %a */
#define DL_PATTERN_ARRAY 0x02u  /* %A */
#define DL_PATTERN_JOB 0x04u    /* %j */
#define DL_PATTERN_USER 0x08u   /* %u */
#define DL_PATTERN_NAME 0x10u   /* %x */

/* Flags of dl_pattern_expand_list(). */
/* Drop the entries that need a value not known yet instead of failing. */
#define DL_PATTERN_SKIP_UNKNOWN 0x01u

/*
 * The values patterns expand to.  Numbers are DL_PATTERN_UNKNOWN when not
 * known; task_id and array_job_id are DL_PATTERN_NONE for a job that is
 * not an array task (array_job_id 0 means the same, as in Slurm's job
 * records).  Strings are NULL when not known; they are not copied.
 */
typedef struct dl_pattern_ctx {
	uint32_t task_id;      /* %a */
	uint32_t array_job_id; /* %A */
	uint32_t job_id;       /* %j */
	const char *user;      /* %u */
	const char *name;      /* %x */
} dl_pattern_ctx_t;

/* dl_pattern_ctx_init - every value unknown. */
void dl_pattern_ctx_init(dl_pattern_ctx_t *ctx);

/**
 * dl_pattern_fields - which values the patterns of a path need.
 * \return an OR of DL_PATTERN_TASK..DL_PATTERN_NAME; 0 for a path without
 *         any (also for "%%" alone).  Malformed patterns are ignored here:
 *         dl_pattern_expand() reports them.
 */
unsigned dl_pattern_fields(const char *path);

/**
 * dl_pattern_list_fields - dl_pattern_fields() of every file and list
 * path of a list, ORed.
 */
unsigned dl_pattern_list_fields(const dl_filelist_t *list);

/**
 * dl_pattern_unknown - which values ctx does not know (a number that is
 * DL_PATTERN_UNKNOWN, a NULL string): an OR of DL_PATTERN_TASK..NAME, to
 * be ANDed with what dl_pattern_fields() says a path needs.
 */
unsigned dl_pattern_unknown(const dl_pattern_ctx_t *ctx);

/**
 * dl_pattern_expand - expand the patterns of one path.
 * IN path - an absolute path as a file list holds it
 * IN ctx - the values
 * OUT out - a new string (free() it), the path itself when it holds no
 *           pattern; NULL on error
 * OUT err, errlen - on DL_ESYNTAX or DL_ENOENT, a one-line message for the
 *           user naming the path and the pattern; may be NULL/0
 * \return 0; DL_ESYNTAX for an unknown or incomplete pattern, %a outside
 *         an array, a value that cannot be put in a path, or a result that
 *         is not a valid path (too long, a "." or ".." component);
 *         DL_ENOENT when a value is not known (DL_PATTERN_UNKNOWN, NULL);
 *         DL_ENOMEM; DL_EINVAL.
 */
int dl_pattern_expand(const char *path, const dl_pattern_ctx_t *ctx,
		      char **out, char *err, size_t errlen);

/**
 * dl_pattern_expand_list - expand every file and list path of a list, in
 * place.  Paths that become equal collapse into one entry as
 * dl_files_merge() does (the same path with two sizes is an error).
 * IN/OUT list - unchanged on error
 * IN flags - DL_PATTERN_SKIP_UNKNOWN or 0
 * OUT nskipped - entries dropped for DL_PATTERN_SKIP_UNKNOWN (may be NULL)
 * OUT err, errlen - as for dl_pattern_expand()
 * \return as for dl_pattern_expand(), DL_ETOOBIG.
 */
int dl_pattern_expand_list(dl_filelist_t *list, const dl_pattern_ctx_t *ctx,
			   unsigned flags, size_t *nskipped, char *err,
			   size_t errlen);

/**
 * dl_pattern_parse_list - dl_files_parse_list() whose entries are then
 * expanded with ctx before they join list: what a host calls for the text
 * of a list file that a job names.
 * \return as for dl_files_parse_list() and dl_pattern_expand(); list is
 *         unchanged on error.
 */
int dl_pattern_parse_list(const char *text, size_t len, dl_filelist_t *list,
			  const dl_pattern_ctx_t *ctx, char *err,
			  size_t errlen);

/**
 * dl_pattern_array_tasks - the task ids of a job array's index expression
 * (Slurm's --array: "0-9", "1,3,5-7:2", "[0-99]%4"), all of them or, when
 * there are more than limit, a sample of limit of them: the first, the
 * last and ones evenly spread between, ascending.
 * IN inx - the expression; what follows a '%' in a token is the limit of
 *          tasks running at once and is ignored
 * IN max_size - Slurm's MaxArraySize: every id must be below it (at most
 *          DL_PATTERN_NONE)
 * OUT ids - room for limit ids; OUT nids - how many were written
 * OUT total - how many tasks the expression names (may be NULL)
 * \return 0, DL_ESYNTAX for an expression Slurm would refuse, DL_ENOMEM,
 *         DL_EINVAL (limit 0, max_size 0 or NULL arguments).
 */
int dl_pattern_array_tasks(const char *inx, uint32_t max_size, size_t limit,
			   uint32_t *ids, size_t *nids, uint64_t *total);

#endif /* DL_PATTERN_H */
