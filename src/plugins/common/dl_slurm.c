/* dl_slurm.c - see dl_slurm.h. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/common/slurm_xlator.h"

#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "dl_error.h"
#include "dl_log.h"
#include "dl_slurm.h"

static void _log(int level, const char *msg, void *arg)
{
	(void)arg;
	if (level == DL_LOG_ERROR)
		error("datalocality: %s", msg);
	else if (level == DL_LOG_INFO)
		info("datalocality: %s", msg);
	else
		debug("datalocality: %s", msg);
}

void dl_slurm_log_init(void)
{
	dl_log_set(_log, NULL);
}

/* Whether uid (primary group gid) may read a file with this stat. */
static int _may_read(const struct stat *sb, uid_t uid, gid_t gid)
{
	struct passwd pw, *pwp = NULL;
	char buf[4096];
	gid_t groups[256];
	int ngroups = 256, i;

	if (uid == 0)
		return 1;
	if (sb->st_uid == uid)
		return (sb->st_mode & S_IRUSR) != 0;
	if (sb->st_gid == gid)
		return (sb->st_mode & S_IRGRP) != 0;
	if ((sb->st_mode & S_IRGRP) &&
	    !getpwuid_r(uid, &pw, buf, sizeof(buf), &pwp) && pwp &&
	    getgrouplist(pwp->pw_name, gid, groups, &ngroups) >= 0) {
		for (i = 0; i < ngroups; i++)
			if (groups[i] == sb->st_gid)
				return 1;
	}
	return (sb->st_mode & S_IROTH) != 0;
}

/*
 * Read a list file on behalf of uid.  slurmctld runs as root or SlurmUser,
 * so the permission check is ours: a user must not learn, through an error
 * message or through the placement of their jobs, what a file they cannot
 * read contains.
 */
static int _read_list(const char *path, uid_t uid, gid_t gid,
		      dl_filelist_t *list, char **err_msg)
{
	char err[512];
	struct stat sb;
	char *buf = NULL;
	size_t got = 0;
	ssize_t n;
	int fd, rc;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		*err_msg = xstrdup_printf("files: list file %s: %s", path,
					  strerror(errno));
		return DL_EIO;
	}
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
		close(fd);
		*err_msg = xstrdup_printf("files: list file %s: not a regular file",
					  path);
		return DL_EIO;
	}
	if (!_may_read(&sb, uid, gid)) {
		close(fd);
		*err_msg = xstrdup_printf("files: list file %s: permission denied",
					  path);
		return DL_EPERM;
	}
	if (sb.st_size > DL_LIST_FILE_MAX) {
		close(fd);
		*err_msg = xstrdup_printf("files: list file %s is larger than %d MiB",
					  path, DL_LIST_FILE_MAX >> 20);
		return DL_ETOOBIG;
	}
	buf = xmalloc(sb.st_size + 1);
	while (got < (size_t)sb.st_size &&
	       (n = read(fd, buf + got, sb.st_size - got)) > 0)
		got += n;
	close(fd);
	err[0] = '\0';
	rc = dl_files_parse_list(buf, got, list, err, sizeof(err));
	xfree(buf);
	if (rc)
		*err_msg = xstrdup_printf("files: list file %s: %s", path,
					  err[0] ? err : dl_strerror(rc));
	return rc;
}

int dl_slurm_job_files(const char *comment, const char *bb_spec, uid_t uid,
		       gid_t gid, dl_filelist_t **out, char **err_msg)
{
	dl_filelist_t *list = NULL;
	char err[512];
	size_t i;
	int rc;

	*out = NULL;
	err[0] = '\0';
	rc = dl_files_parse(comment, &list, err, sizeof(err));
	if (rc) {
		*err_msg = xstrdup(err[0] ? err : dl_strerror(rc));
		return rc;
	}
	for (i = 0; i < list->nlists; i++) {
		if ((rc = _read_list(list->lists[i], uid, gid, list, err_msg))) {
			dl_filelist_free(list);
			return rc;
		}
	}
	if ((rc = dl_files_bb_stage_in(bb_spec, list))) {
		*err_msg = xstrdup_printf("burst buffer stage_in: %s",
					  dl_strerror(rc));
		dl_filelist_free(list);
		return rc;
	}
	if (!list->count) {
		dl_filelist_free(list);
		return 0;
	}
	*out = list;
	return 0;
}
