/*
 * lists.c - reading a job's '@' list files as its user, and which of
 * Slurm's filename patterns their lines need (stage_int.h).
 *
 * Why the second: dl-stage learns %a, %A and %x of a job from slurmctld
 * (one squeue) when slurmd does not pass them.  Most lists hold plain
 * paths, and asking slurmctld for every job that names a list would load
 * it for nothing (issue 25): the lines are looked at first.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dl_error.h"
#include "stage_int.h"

#define LIST_MAX ((size_t)64 << 20) /* list files, as slurmctld reads them */

int dl__list_read(dl_opener_t *op, const char *path, char **text,
		  size_t *len, int *sys_errno)
{
	struct stat sb;
	size_t got = 0;
	char *buf;
	int fd, rc;

	*text = NULL;
	*len = 0;
	*sys_errno = 0;
	if ((rc = dl_opener_open(op, path, &fd, sys_errno)))
		return rc;
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) ||
	    (size_t)sb.st_size > LIST_MAX) {
		close(fd);
		return DL_ETOOBIG;
	}
	if (!(buf = malloc((size_t)sb.st_size + 1))) {
		close(fd);
		return DL_ENOMEM;
	}
	while (got < (size_t)sb.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)sb.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	buf[got] = '\0';
	*text = buf;
	*len = got;
	return 0;
}

unsigned dl__list_text_fields(const char *text, size_t len)
{
	dl_filelist_t *tmp;
	unsigned f = 0;
	char err[8];

	/* the common case, a list of plain paths, costs one memchr() */
	if (!memchr(text, '%', len))
		return 0;
	/* only the paths count: a '%' in a comment line needs nothing */
	if (!(tmp = dl_filelist_new()))
		return DL_PATTERN_TASK | DL_PATTERN_ARRAY | DL_PATTERN_NAME;
	/* a list that does not parse fails later, where it is expanded */
	if (!dl_files_parse_list(text, len, tmp, err, sizeof(err)))
		f = dl_pattern_list_fields(tmp);
	dl_filelist_free(tmp);
	return f;
}

int dl_stage_list_fields(const dl_stage_job_t *job,
			 const dl_filelist_t *files, unsigned want,
			 unsigned timeout_s, unsigned *need)
{
	dl_opener_t *op = NULL;
	char err[256];
	int rc;

	*need = 0;
	if (!files->nlists || !want)
		return 0;
	rc = dl_opener_start(job->uid, job->gid, job->user, timeout_s, &op,
			     err, sizeof(err));
	for (size_t i = 0; !rc && i < files->nlists && !(*need & want); i++) {
		char *text;
		size_t len;
		int e;

		/* an unreadable list is the staging's to report, as the user
		 * reads it then; it needs no value to fail */
		if (dl__list_read(op, files->lists[i], &text, &len, &e))
			continue;
		*need |= dl__list_text_fields(text, len);
		free(text);
	}
	dl_opener_stop(op);
	*need &= want;
	return rc;
}
