/*
 * dl_script.h - input files named in the batch script itself:
 *
 *   #!/bin/bash
 *   #SBATCH -t 10
 *   #DL files:/data/p17/mri1.dcm,/data/p17/ct1.dcm
 *   #DL files:/data/p17/ref=2G,@/home/me/more.list
 *
 * Slurm 22.05 refuses a job comment longer than 1,024 bytes, so a job with
 * many inputs names them here (or in a list file).  Directives are read
 * the way sbatch reads #SBATCH lines: from the top of the script up to the
 * first line that is neither blank nor a comment.  Each "#DL" line holds
 * one files: segment with the grammar of dl_files.h; entries of all lines
 * are joined, duplicates collapse.
 */
#ifndef DL_SCRIPT_H
#define DL_SCRIPT_H

#include <stddef.h>

/* Longest joined annotation: it travels in the Prolog's environment. */
#define DL_SCRIPT_ANNOTATION_MAX (120 * 1024)

/**
 * dl_script_files - the files: annotation of a script's #DL directives.
 * IN script, len - the batch script (need not be NUL-terminated)
 * OUT annotation - a new "files:e1,e2,..." string (free with free()), or
 *     NULL when the script has no #DL directive
 * OUT err, errlen - on error, a message naming the script line
 * \return 0, DL_ESYNTAX (a malformed or unknown directive), DL_ETOOBIG
 *         (longer than DL_SCRIPT_ANNOTATION_MAX), DL_ENOMEM, DL_EINVAL.
 */
int dl_script_files(const char *script, size_t len, char **annotation,
		    char *err, size_t errlen);

/**
 * dl_script_bb - the burst-buffer directives ("#BB ..." and "#DW ...")
 * of a script's header, as a burst-buffer plugin would take them into the
 * job's burst-buffer spec: read from the top up to the first line that is
 * neither blank nor a comment, a line ending in '\\' continued by the
 * next directive line of the same kind.  Slurm translates them only in its
 * burst-buffer plugins, after job_submit ran (and not at all without
 * one), so the stage_in files of a script are found here.
 * IN script, len - the batch script (need not be NUL-terminated)
 * OUT spec - the directives, one per line (free with free()), or NULL
 *     when the script has none
 * \return 0, DL_ETOOBIG (longer than DL_SCRIPT_ANNOTATION_MAX),
 *         DL_ENOMEM, DL_EINVAL.
 */
int dl_script_bb(const char *script, size_t len, char **spec);

#endif /* DL_SCRIPT_H */
