/*
 * dl_files.h - the files: annotation that names a job's input files.
 *
 * Grammar (documented for users in doc/files-annotation.md):
 *
 *   comment    := segment { ';' segment }
 *   segment    := [blanks] ( 'files:' entries | any other text ) [blanks]
 *   entries    := entry { ',' entry }
 *   entry      := [blanks] ( path [ '=' size ] | '@' path ) [blanks]
 *   path       := absolute path: starts with '/', no '..' or '.' component,
 *                 no empty component except that repeated '/' collapse,
 *                 no trailing '/', no blank, ',', ';', '=', '@' or control
 *                 character, at most DL_PATH_MAX - 1 bytes
 *   size       := digits [ 'K' | 'M' | 'G' | 'T' | 'P' ] [ 'i' ] [ 'B' ]
 *                 (binary units, case-insensitive: 4M = 4MiB = 4194304)
 *
 * A comment without a files: segment is not an annotation and parses to an
 * empty list.  At most one files: segment may appear.  '@path' names a list
 * file, read by the host (with the job user's permissions) and parsed with
 * dl_files_parse_list(): one entry per line, "path [size]", blank lines and
 * lines starting with '#' ignored.
 *
 * Duplicate paths collapse into one entry (the first position is kept); a
 * path given twice with two different explicit sizes is an error.
 */
#ifndef DL_FILES_H
#define DL_FILES_H

#include <stddef.h>
#include <stdint.h>

#define DL_PATH_MAX 4096
/* Upper bound on the entries of one job, so hostile input stays bounded. */
#define DL_FILES_MAX 1048576
/* Size of a file whose annotation gave none (the host may stat it). */
#define DL_SIZE_UNKNOWN UINT64_MAX

typedef struct dl_file_ref {
	char *path;    /* normalised absolute path, owned by the list */
	uint64_t size; /* bytes, or DL_SIZE_UNKNOWN */
} dl_file_ref_t;

typedef struct dl_filelist {
	size_t count;          /* entries in files[] */
	dl_file_ref_t *files;  /* in order of first appearance */
	size_t nlists;         /* entries in lists[] */
	char **lists;          /* '@' list-file paths, normalised, not read */
} dl_filelist_t;

/**
 * dl_files_parse - parse a job comment.
 * IN comment - the job's comment (NULL or "" give an empty list)
 * OUT out - set to a new list, to be freed with dl_filelist_free(); on
 *           error *out is set to NULL
 * OUT err, errlen - on DL_ESYNTAX/DL_ETOOBIG/DL_ERANGE, a one-line message
 *           for the user saying what is wrong and where (entry number and
 *           the offending text, truncated); may be NULL/0
 * \return 0 on success (also when the comment holds no annotation),
 *         DL_ESYNTAX for a malformed annotation, DL_ETOOBIG for more than
 *         DL_FILES_MAX entries, DL_ERANGE for a size that overflows 64 bits,
 *         DL_ENOMEM, DL_EINVAL if out is NULL.
 */
int dl_files_parse(const char *comment, dl_filelist_t **out, char *err,
		   size_t errlen);

/**
 * dl_files_parse_list - parse the text of a list file and append its
 * entries to list (deduplicated against what list already holds).
 * IN text, len - the file's bytes (need not be NUL-terminated)
 * IN/OUT list - a list from dl_files_parse(); unchanged on error
 * OUT err, errlen - as for dl_files_parse(), naming the line number
 * \return as for dl_files_parse(); a line may not itself name a list file.
 */
int dl_files_parse_list(const char *text, size_t len, dl_filelist_t *list,
			char *err, size_t errlen);

/**
 * dl_files_has_annotation - whether a comment holds a files: segment,
 * without parsing it fully.
 */
int dl_files_has_annotation(const char *comment);

/**
 * dl_files_parse_size - parse a size as in the grammar above.
 * \return 0 and *bytes set, DL_ESYNTAX or DL_ERANGE.
 */
int dl_files_parse_size(const char *s, size_t len, uint64_t *bytes);

/**
 * dl_files_merge - add the entries and list files of another list to
 * list, deduplicated as dl_files_parse_list() does (the same path with two
 * sizes is an error).
 * OUT err, errlen - on DL_ESYNTAX, why
 * \return 0, DL_ESYNTAX, DL_ETOOBIG, DL_ENOMEM (list unchanged on error).
 */
int dl_files_merge(dl_filelist_t *list, const dl_filelist_t *from, char *err,
		   size_t errlen);

/**
 * dl_files_format_size - a size for people, in binary units with one
 * decimal: "6.0 MiB" (long) or "6.0M" (short); bytes as a whole number.
 * OUT buf - NUL-terminated, truncated to len
 */
void dl_files_format_size(uint64_t bytes, int long_units, char *buf,
			  size_t len);

/**
 * dl_files_bb_stage_in - append the source paths of the "#BB stage_in" and
 * "#DW stage_in" directives of a burst-buffer spec to list.  Understood:
 *   #DW stage_in source=/path destination=... type=file
 *   #BB stage_in source=/path destination=...   (also src=... / dst=...)
 * Only absolute local source paths count; type=directory, type=list and
 * sources with a scheme (such as "s3://") are skipped.  Malformed
 * directives are skipped too: the burst-buffer plugin validates them.
 * IN bb_spec - the job's burst-buffer spec (NULL allowed)
 * \return 0, DL_ETOOBIG or DL_ENOMEM; list unchanged on error.
 */
int dl_files_bb_stage_in(const char *bb_spec, dl_filelist_t *list);

/**
 * dl_files_format - a list as one annotation that dl_files_parse() reads
 * back to the same list: "files:/a=123,/b,@/list" (sizes when known).
 * An empty list gives "".
 * \return a malloc'd string for the caller to free, NULL on DL_ENOMEM.
 */
char *dl_files_format(const dl_filelist_t *list);

/* dl_filelist_new - an empty list; free with dl_filelist_free(). */
dl_filelist_t *dl_filelist_new(void);

/* dl_filelist_free - free a list and everything it owns; NULL is a no-op. */
void dl_filelist_free(dl_filelist_t *list);

#endif /* DL_FILES_H */
