/*
 * view.c - a job's view of the cache: DIR/.jobs/<job>.view mirrors the
 * source paths of the job's files with hard links into the store (or
 * symbolic links to the sources), readable by the job's user alone.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "dl_error.h"
#include "stage_int.h"

/*
 * Give uid (alone) access perm to fd's file by a POSIX ACL, written as the
 * "system.posix_acl_access" value (little-endian, as the kernel's
 * posix_acl_xattr_header): u::<owner>, u:<uid>:<perm>, g::---, m::<perm>,
 * o::---.  Directories: owner rwx, perm r-x; notes: owner r--, perm r--.
 */
int dl__set_acl_perm(int fd, uid_t uid, uint16_t owner, uint16_t named)
{
	static const uint16_t tag[5] = {0x01, 0x02, 0x04, 0x10, 0x20};
	const uint16_t perm[5] = {owner, named, 0, named, 0};
	unsigned char b[4 + 5 * 8];
	uint32_t v;

	b[0] = 2, b[1] = b[2] = b[3] = 0; /* version */
	for (int i = 0; i < 5; i++) {
		unsigned char *p = b + 4 + 8 * i;

		v = tag[i] == 0x02 ? (uint32_t)uid : UINT32_MAX;
		p[0] = (unsigned char)tag[i];
		p[1] = (unsigned char)(tag[i] >> 8);
		p[2] = (unsigned char)perm[i];
		p[3] = 0;
		p[4] = (unsigned char)v;
		p[5] = (unsigned char)(v >> 8);
		p[6] = (unsigned char)(v >> 16);
		p[7] = (unsigned char)(v >> 24);
	}
	return fsetxattr(fd, "system.posix_acl_access", b, sizeof(b), 0);
}

static int _set_acl(int fd, uid_t uid)
{
	return dl__set_acl_perm(fd, uid, 7, 5);
}

/*
 * Open a view directory to the job's user alone.  With POSIX ACLs the
 * directory stays root's (mode 0750 shown: the mask) and the user gets
 * r-x by a named entry: the user can read and list but never write,
 * chmod or add anything.  Without ACL support the directory is given to
 * the user with mode 0500 instead; the user could then chmod it, which
 * only shares files the user may read anyway (see doc/dl-stage.8).
 */
int dl__view_protect(dl_stage_t *st, int fd)
{
	if (st->view_uid == 0)
		return 0; /* root's job: root's 0700 directories */
	if (st->acl != 0) {
		if (!_set_acl(fd, st->view_uid)) {
			st->acl = 1;
			return 0;
		}
		if (errno != EOPNOTSUPP && errno != ENOTSUP)
			return -1;
		if (st->acl == -1)
			dl__stage_log(st, DL_LOG_INFO,
				      "%s: no POSIX ACLs on this file system: views are owned by their job's user",
				      st->dir);
		st->acl = 0;
	}
	if (fchown(fd, st->view_uid, st->view_gid) || fchmod(fd, 0500))
		return -1;
	return 0;
}

/*
 * Remove name under parent, never following a symbolic link and never
 * descending into a directory that is not ours or the job user's, or on
 * another file system: what a job user may have put in a view (without
 * ACLs) is removed only as far as that user could remove it.
 */
static int _rm_tree(dl_stage_t *st, int parent, const char *name,
		    uid_t user, int depth)
{
	struct stat sb, sb2;
	struct dirent *de;
	DIR *d;
	int fd, rc = 0;

	if (fstatat(parent, name, &sb, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : DL_EIO;
	if (!S_ISDIR(sb.st_mode))
		return unlinkat(parent, name, 0) && errno != ENOENT ? DL_EIO
								     : 0;
	if ((sb.st_uid != st->euid && sb.st_uid != user) ||
	    sb.st_dev != st->dev || depth > DL_STAGE_MAX_DEPTH + 8)
		return DL_EPERM;
	fd = openat(parent, name,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &sb2) || sb2.st_ino != sb.st_ino ||
	    sb2.st_dev != sb.st_dev) {
		if (fd >= 0)
			close(fd);
		return DL_EIO;
	}
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return DL_EIO;
	}
	while ((de = readdir(d))) {
		int r;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		r = _rm_tree(st, dirfd(d), de->d_name, user, depth + 1);
		if (r && !rc)
			rc = r;
	}
	closedir(d);
	if (!rc && unlinkat(parent, name, AT_REMOVEDIR) && errno != ENOENT)
		rc = DL_EIO;
	return rc;
}

/* Remove a job's view, whoever owns it now. */
int dl__view_remove(dl_stage_t *st, uint32_t job_id)
{
	char name[32];
	struct stat sb;
	int rc;

	snprintf(name, sizeof(name), "%" PRIu32 ".view", job_id);
	if (fstatat(st->jobs, name, &sb, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : DL_EIO;
	rc = _rm_tree(st, st->jobs, name,
		      S_ISDIR(sb.st_mode) ? sb.st_uid : st->euid, 0);
	if (rc)
		dl__stage_log(st, DL_LOG_ERROR,
			      "%s: cannot remove all of .jobs/%s: %s", st->dir,
			      name, dl_strerror(rc));
	return rc;
}

void dl__view_close(dl_stage_t *st)
{
	if (st->vdirfd >= 0 && st->vdirfd != st->viewfd)
		close(st->vdirfd);
	st->vdirfd = -1;
	free(st->vdir);
	st->vdir = NULL;
	if (st->viewfd >= 0)
		close(st->viewfd);
	st->viewfd = -1;
}

/* \return 0, DL_ENOSPC (the file system is full: rep untouched), DL_EIO. */
int dl__view_begin(dl_stage_t *st, const dl_stage_job_t *job,
		   dl_stage_report_t *rep)
{
	char name[32];

	snprintf(name, sizeof(name), "%" PRIu32 ".view", job->job_id);
	dl__view_remove(st, job->job_id);
	st->view_uid = job->uid;
	st->view_gid = job->gid;
	/* Built as root's 0700 directory, opened to the user when complete. */
	if (mkdirat(st->jobs, name, 0700))
		return dl__nospace(errno)
			       ? DL_ENOSPC
			       : dl__stage_fail(rep, false, DL_EIO,
						"mkdir %s/.jobs/%s: %s",
						st->dir, name,
						strerror(errno));
	st->viewfd = openat(st->jobs, name,
			    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (st->viewfd < 0)
		return dl__stage_fail(rep, false, DL_EIO, "%s/.jobs/%s: %s",
				      st->dir, name, strerror(errno));
	return 0;
}

/*
 * The view directory that will hold path (its dirname), made as needed.
 * \return a descriptor owned by st, or -1 with *rc set (and rep filled,
 *         unless *rc is DL_ENOSPC: the file system is full).
 */
static int _view_dir(dl_stage_t *st, const char *path, int *rc,
		     dl_stage_report_t *rep)
{
	const char *slash = strrchr(path, '/');
	size_t dlen = (size_t)(slash - path);
	char comp[DL_PATH_MAX];
	const char *p = path + 1;
	int fd = st->viewfd, depth = 0;

	if (st->vdir && strlen(st->vdir) == dlen &&
	    !strncmp(st->vdir, path, dlen))
		return st->vdirfd;
	if (st->vdirfd >= 0 && st->vdirfd != st->viewfd)
		close(st->vdirfd);
	free(st->vdir);
	st->vdir = NULL;
	st->vdirfd = -1;
	while (p < slash) {
		const char *e = strchr(p, '/');
		size_t n = (size_t)(e - p);
		int nfd;

		if (++depth > DL_STAGE_MAX_DEPTH) {
			*rc = dl__stage_fail(rep, true, DL_EINVAL,
					     "%s: more than %d directories deep",
					     path, DL_STAGE_MAX_DEPTH);
			goto fail;
		}
		memcpy(comp, p, n);
		comp[n] = '\0';
		nfd = openat(fd, comp,
			     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (nfd < 0 && errno == ENOENT) {
			if (mkdirat(fd, comp, 0700)) {
				*rc = dl__nospace(errno)
					      ? DL_ENOSPC
					      : dl__stage_fail(
							rep, false, DL_EIO,
							"view of %s: mkdir: %s",
							path, strerror(errno));
				goto fail;
			}
			nfd = openat(fd, comp,
				     O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
					     O_CLOEXEC);
			if (nfd >= 0 && dl__view_protect(st, nfd)) {
				*rc = dl__nospace(errno)
					      ? DL_ENOSPC
					      : dl__stage_fail(
							rep, false, DL_EIO,
							"view of %s: cannot set permissions: %s",
							path, strerror(errno));
				close(nfd);
				goto fail;
			}
		}
		if (nfd < 0) {
			*rc = errno == ENOTDIR || errno == ELOOP
				      ? dl__stage_fail(
						rep, true, DL_EINVAL,
						"%s conflicts with another file of the job",
						path)
				      : dl__stage_fail(rep, false, DL_EIO,
						       "view of %s: %s", path,
						       strerror(errno));
			goto fail;
		}
		if (fd != st->viewfd)
			close(fd);
		fd = nfd;
		p = e + 1;
	}
	st->vdir = strndup(path, dlen);
	if (!st->vdir) {
		*rc = DL_ENOMEM;
		goto fail;
	}
	st->vdirfd = fd;
	return fd;
fail:
	if (fd != st->viewfd)
		close(fd);
	return -1;
}

/*
 * Show a store file (hard link) or the source (symbolic link) in the view.
 * \return 0, DL_ENOSPC if the file system (or the store file's link count)
 *         is full, leaving rep untouched, or another error with rep filled.
 */
int dl__view_add(dl_stage_t *st, const char *path, const char *hash,
		 dl_stage_report_t *rep)
{
	const char *base = strrchr(path, '/') + 1;
	int rc = 0, dfd, r;

	if (st->prefetching)
		return 0; /* a prefetch only fills the store */
	dfd = _view_dir(st, path, &rc, rep);
	if (dfd < 0)
		return rc ? rc : DL_EIO;
	if (hash)
		r = linkat(dl__bucket(st, hash, false), hash, dfd, base, 0);
	else
		r = symlinkat(path, dfd, base);
	if (r && errno == EEXIST)
		return dl__stage_fail(rep, true, DL_EINVAL,
				      "%s conflicts with another file of the job",
				      path);
	if (r && dl__nospace(errno))
		return DL_ENOSPC;
	if (r)
		return dl__stage_fail(rep, false, DL_EIO, "view of %s: %s",
				      path, strerror(errno));
	return 0;
}

int dl_stage_probe_acl(dl_stage_t *st)
{
	char name[64];
	int fd, rc;

	if (!st)
		return DL_EINVAL;
	snprintf(name, sizeof(name), "acl-probe.%ld.%u", (long)getpid(),
		 st->seq++);
	if (mkdirat(st->tmp, name, 0700))
		return DL_EIO;
	fd = openat(st->tmp, name,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		rc = DL_EIO;
	else if (!_set_acl(fd, 65534))
		rc = 1;
	else
		rc = errno == EOPNOTSUPP || errno == ENOTSUP ? 0 : DL_EIO;
	if (fd >= 0)
		close(fd);
	unlinkat(st->tmp, name, AT_REMOVEDIR);
	return rc;
}
