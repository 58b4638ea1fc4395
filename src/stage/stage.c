/*
 * stage.c - the node-local cache: opening it, and a job's staging and end.
 * The other modules are listed in stage_int.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "dl_error.h"
#include "opener.h"
#include "stage_int.h"


/* ------------------------------------------------------------------ */
/* small helpers                                                       */

void dl__stage_log(dl_stage_t *st, int level, const char *fmt, ...)
{
	char buf[1536];
	va_list ap;

	if (!st->log)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	st->log(level, buf, st->log_arg);
}

int dl__stage_fail(dl_stage_report_t *rep, bool user, int rc,
		   const char *fmt, ...)
{
	va_list ap;

	if (rep && !rep->msg[0]) {
		va_start(ap, fmt);
		vsnprintf(rep->msg, sizeof(rep->msg), fmt, ap);
		va_end(ap);
		rep->user_fault = user;
	}
	return rc;
}

int64_t dl__now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t dl__ts_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;
}

bool dl__is_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		      (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

int dl__hexval(char c)
{
	return c <= '9' ? c - '0' : c - 'a' + 10;
}

ssize_t dl__write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	size_t done = 0;

	while (done < len) {
		ssize_t n = write(fd, p + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

bool dl__nospace(int e)
{
	return e == ENOSPC || e == EDQUOT || e == EMLINK;
}

int dl_stage_store_name(const char *path, char *buf, size_t len)
{
	char hex[DL_SHA256_HEX_LEN];
	int n;

	if (!path || !buf)
		return DL_EINVAL;
	dl_sha256_hex(path, strlen(path), hex);
	n = snprintf(buf, len, "store/%.2s/%s", hex, hex);
	return n < 0 || (size_t)n >= len ? DL_ERANGE : 0;
}

const char *dl_stage_dir(const dl_stage_t *st)
{
	return st ? st->dir : NULL;
}

int dl_stage_acl(const dl_stage_t *st)
{
	return st ? st->acl : -1;
}

/* ------------------------------------------------------------------ */
/* opening and checking the cache directory                            */

/*
 * A directory of the cache must be ours, a real directory, on the cache's
 * file system and not writable by anyone else.  A looser mode that nobody
 * else can write through is tightened to mode.
 */
static int _check_dir(dl_stage_t *st, int fd, const char *what, mode_t mode,
		      char *err, size_t errlen)
{
	struct stat sb;

	if (fstat(fd, &sb)) {
		snprintf(err, errlen, "%s: %s", what, strerror(errno));
		return DL_EIO;
	}
	if (!S_ISDIR(sb.st_mode)) {
		snprintf(err, errlen, "%s is not a directory", what);
		return DL_EPERM;
	}
	if (sb.st_uid != st->euid) {
		snprintf(err, errlen,
			 "%s is owned by uid %u, not by uid %u: refusing an unsafe cache directory",
			 what, (unsigned)sb.st_uid, (unsigned)st->euid);
		return DL_EPERM;
	}
	if (sb.st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(err, errlen,
			 "%s is writable by group or others (mode %04o): refusing an unsafe cache directory",
			 what, (unsigned)(sb.st_mode & 07777));
		return DL_EPERM;
	}
	if (st->dfd >= 0 && sb.st_dev != st->dev) {
		snprintf(err, errlen,
			 "%s is on another file system than the cache directory",
			 what);
		return DL_EPERM;
	}
	if ((sb.st_mode & 07777) != mode && fchmod(fd, mode)) {
		snprintf(err, errlen, "chmod %s: %s", what, strerror(errno));
		return DL_EIO;
	}
	return 0;
}

static int _open_sub(dl_stage_t *st, const char *name, mode_t mode,
		     bool create, int *out, char *err, size_t errlen)
{
	char what[DL_PATH_MAX + 64];
	int fd, rc;

	snprintf(what, sizeof(what), "%s/%s", st->dir, name);
	fd = openat(st->dfd, name,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && create) {
		if (mkdirat(st->dfd, name, mode) && errno != EEXIST) {
			snprintf(err, errlen, "mkdir %s: %s", what,
				 strerror(errno));
			return DL_EIO;
		}
		fd = openat(st->dfd, name,
			    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0) {
		rc = errno;
		if (rc == ELOOP || rc == ENOTDIR) {
			snprintf(err, errlen,
				 "%s is not a directory (a symbolic link?): refusing an unsafe cache directory",
				 what);
			return DL_EPERM;
		}
		snprintf(err, errlen, "%s: %s", what, strerror(rc));
		return rc == ENOENT ? DL_ENOENT : DL_EIO;
	}
	rc = _check_dir(st, fd, what, mode, err, errlen);
	if (rc) {
		close(fd);
		return rc;
	}
	*out = fd;
	return 0;
}

/* mkdir -p of the parents of dir (not dir itself), mode 0755. */
static int _mkparents(const char *dir, char *err, size_t errlen)
{
	char *p = strdup(dir), *s;

	if (!p)
		return DL_ENOMEM;
	for (s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (mkdir(p, 0755) && errno != EEXIST) {
			snprintf(err, errlen, "mkdir %s: %s", p,
				 strerror(errno));
			free(p);
			return DL_EIO;
		}
		*s = '/';
	}
	free(p);
	return 0;
}

/*
 * The unit in which the cache's file system hands out space: what a
 * cached file costs is counted in it (dl__charge()).
 */
static uint64_t _block_size(int fd)
{
	struct statvfs vfs;

	if (fstatvfs(fd, &vfs))
		return 4096;
	if (vfs.f_frsize >= 512 && vfs.f_frsize <= (1 << 20))
		return vfs.f_frsize;
	if (vfs.f_bsize >= 512 && vfs.f_bsize <= (1 << 20))
		return vfs.f_bsize;
	return 4096;
}

void dl_stage_close(dl_stage_t *st)
{
	if (!st)
		return;
	for (int i = 0; i < 256; i++)
		if (st->bucket[i] >= 0)
			close(st->bucket[i]);
	if (st->glocked)
		flock(st->gfd, LOCK_UN);
	if (st->vdirfd >= 0)
		close(st->vdirfd);
	if (st->viewfd >= 0)
		close(st->viewfd);
	if (st->pinsfd >= 0)
		close(st->pinsfd);
	for (int *fd = &st->dfd; fd <= &st->locks; fd++)
		if (*fd >= 0)
			close(*fd);
	if (st->gfd >= 0)
		close(st->gfd);
	dl_cache_destroy(st->trk);
	free(st->owner);
	free(st->victims);
	free(st->vdir);
	free(st->node);
	free(st->dir);
	free(st->emu_lockdir);
	free(st);
}

/* A new cache object with opts applied, nothing opened yet; NULL: memory. */
static dl_stage_t *_new(const char *dir, const dl_stage_opts_t *opts)
{
	static const dl_stage_opts_t none = {.capacity = DL_CACHE_UNLIMITED,
					     .policy = DL_EVICT_VALUE};
	dl_stage_t *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	if (!opts)
		opts = &none;
	st->dfd = st->store = st->jobs = st->tmp = st->locks = -1;
	st->gfd = st->viewfd = st->vdirfd = st->pinsfd = -1;
	for (int i = 0; i < 256; i++)
		st->bucket[i] = -1;
	st->euid = geteuid();
	st->acl = -1;
	st->capacity = opts->capacity;
	st->policy = opts->policy;
	st->max_files = opts->max_files;
	if (opts->user_share > 0 && opts->user_share <= 1)
		st->user_share = opts->user_share;
	st->open_timeout = opts->open_timeout;
	st->inventory_reader = opts->inventory_reader;
	if (opts->emu_bw && opts->emu_lockdir) {
		st->emu_bw = opts->emu_bw;
		st->emu_servers = opts->emu_servers ? opts->emu_servers : 1;
		st->emu_lockdir = strdup(opts->emu_lockdir);
	}
	st->log = opts->log;
	st->log_arg = opts->log_arg;
	st->fetch = opts->fetch;
	st->fetch_arg = opts->fetch_arg;
	st->dir = strdup(dir);
	st->node = strdup(opts->node ? opts->node : "");
	if (!st->dir || !st->node || (st->emu_bw && !st->emu_lockdir)) {
		dl_stage_close(st);
		return NULL;
	}
	return st;
}

/*
 * Open DIR itself, with O_NOFOLLOW: the last component must be the
 * directory itself (symbolic links in the parents are the
 * administrator's choice), and check it.
 */
static int _open_top(dl_stage_t *st, char *err, size_t errlen)
{
	struct stat sb;
	int fd, rc;

	fd = open(st->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		rc = errno;
		snprintf(err, errlen, "cache directory %s: %s", st->dir,
			 rc == ELOOP ? "is a symbolic link, refused"
				     : strerror(rc));
		return rc == ENOENT		     ? DL_ENOENT
		       : rc == ELOOP || rc == ENOTDIR ? DL_EPERM
						      : DL_EIO;
	}
	if (fstat(fd, &sb)) {
		snprintf(err, errlen, "%s: %s", st->dir, strerror(errno));
		close(fd);
		return DL_EIO;
	}
	st->dev = sb.st_dev;
	st->bsize = _block_size(fd);
	/* Jobs need search permission on DIR to reach their view. */
	rc = _check_dir(st, fd, st->dir,
			(sb.st_mode & 07777) | S_IXGRP | S_IXOTH, err, errlen);
	if (rc) {
		close(fd);
		return rc;
	}
	st->dfd = fd;
	return 0;
}

/* The subdirectories and the global lock. */
static int _open_subs(dl_stage_t *st, bool create, char *err, size_t errlen)
{
	struct stat sb;
	int rc;

	rc = _open_sub(st, "store", 0700, create, &st->store, err, errlen);
	if (!rc)
		rc = _open_sub(st, ".jobs", 0711, create, &st->jobs, err,
			       errlen);
	if (!rc)
		rc = _open_sub(st, ".tmp", 0700, create, &st->tmp, err, errlen);
	if (!rc)
		rc = _open_sub(st, ".locks", 0700, create, &st->locks, err,
			       errlen);
	if (rc)
		return rc;
	st->gfd = openat(st->locks, "global",
			 O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (st->gfd < 0 || fstat(st->gfd, &sb) || !S_ISREG(sb.st_mode) ||
	    sb.st_uid != st->euid) {
		snprintf(err, errlen, "%s/.locks/global: %s", st->dir,
			 st->gfd < 0 ? strerror(errno)
				     : "not a regular file of ours");
		return DL_EPERM;
	}
	return 0;
}

int dl_stage_open(const char *dir, const dl_stage_opts_t *opts, int create,
		  dl_stage_t **out, char *err, size_t errlen)
{
	dl_stage_t *st;
	int rc = 0;

	if (!out)
		return DL_EINVAL;
	*out = NULL;
	if (!dir || dir[0] != '/' || strlen(dir) >= DL_PATH_MAX) {
		snprintf(err, errlen, "cache directory must be an absolute path");
		return DL_EINVAL;
	}
	st = _new(dir, opts);
	if (!st)
		return DL_ENOMEM;
	if (create) {
		rc = _mkparents(dir, err, errlen);
		if (!rc && mkdir(dir, 0711) && errno != EEXIST) {
			snprintf(err, errlen, "mkdir %s: %s", dir,
				 strerror(errno));
			rc = DL_EIO;
		}
	}
	if (!rc)
		rc = _open_top(st, err, errlen);
	if (!rc)
		rc = _open_subs(st, create, err, errlen);
	if (rc) {
		dl_stage_close(st);
		return rc;
	}
	*out = st;
	return 0;
}

/* ------------------------------------------------------------------ */
/* a job                                                               */

/*
 * The helper that opens files as the job's user was killed or stopped,
 * which only that user (or root) can do: the job's fault, not the node's.
 */
int dl__helper_failed(const dl_stage_job_t *job, const char *why,
		      dl_stage_report_t *rep)
{
	return dl__stage_fail(
		rep, true, DL_ETIMEDOUT,
		"the helper opening files as user %s (uid %u) %s; only the job's user or root can do that: staging stopped",
		job->user ? job->user : "?", (unsigned)job->uid, why);
}

/* Read the '@' list files as the job's user and add their entries. */
static int _read_lists(dl_filelist_t *files, dl_opener_t *op,
		       const dl_stage_job_t *job, dl_stage_report_t *rep)
{
	for (size_t i = 0; i < files->nlists; i++) {
		const char *lp = files->lists[i];
		char perr[512], *text;
		size_t got;
		unsigned need;
		int err, rc;

		rc = dl__list_read(op, lp, &text, &got, &err);
		if (rc == DL_ETIMEDOUT)
			return dl__helper_failed(job, dl_opener_failure(op),
						 rep);
		if (rc == DL_ETOOBIG)
			return dl__stage_fail(
				rep, true, DL_EINVAL,
				"list file %s is not a regular file of at most 64 MiB",
				lp);
		if (rc == DL_ENOMEM)
			return rc;
		if (rc)
			return dl__stage_fail(
				rep, true, rc,
				"user %s (uid %u) cannot read list file %s: %s",
				job->user ? job->user : "?",
				(unsigned)job->uid, lp, strerror(err));
		/* values are looked up only for lines that use them */
		if (job->pattern && job->pattern_need &&
		    (need = dl__list_text_fields(text, got) &
			    dl_pattern_unknown(job->pattern)))
			job->pattern_need(job, need);
		rc = job->pattern ? dl_pattern_parse_list(text, got, files,
							  job->pattern, perr,
							  sizeof(perr))
				  : dl_files_parse_list(text, got, files, perr,
							sizeof(perr));
		free(text);
		if (rc)
			return dl__stage_fail(rep, true, rc, "list file %s: %s",
					      lp,
					      rc == DL_ENOMEM ? dl_strerror(rc)
							      : perr);
	}
	return 0;
}

/*
 * Open the pins of the staging: DIR/.jobs/<job>.pins for the job itself,
 * <job>.pf.pins for a prefetch (which must never touch the job's own: the
 * job may start on the node while its prefetch is still copying).
 * \return 0, DL_ENOSPC.
 */
static int _pins_open(dl_stage_t *st, uint32_t job_id,
		      dl_stage_report_t *rep)
{
	char name[32];

	snprintf(name, sizeof(name), "%" PRIu32 "%s", job_id,
		 st->prefetching ? ".pf.pins" : ".pins");
	st->pinsfd = openat(st->jobs, name,
			    O_WRONLY | O_CREAT | O_TRUNC | O_APPEND |
				    O_NOFOLLOW | O_CLOEXEC,
			    0600);
	if (st->pinsfd >= 0)
		return 0;
	if (dl__nospace(errno))
		return DL_ENOSPC;
	return dl__stage_fail(rep, false, DL_EIO, "%s/.jobs/%s: %s", st->dir,
			      name, strerror(errno));
}

/* Remove what this staging made: a job's view and pins, or a prefetch's
 * pins (its files are no longer in use). */
static void _job_undo(dl_stage_t *st, uint32_t job_id)
{
	char name[32];

	if (!st->prefetching)
		dl__view_remove(st, job_id);
	dl__glock(st);
	snprintf(name, sizeof(name), "%" PRIu32 "%s", job_id,
		 st->prefetching ? ".pf.pins" : ".pins");
	unlinkat(st->jobs, name, 0);
	dl__gbump(st, false);
	dl__gunlock(st);
}

/*
 * A file could not be staged for a reason of the node's (its view, the
 * store, a copy that went wrong): the job reads it from its source
 * instead, as it does when the cache is full.  Logged and counted.
 * \return 0, or DL_ENOSPC when even the view's link to the source cannot
 *         be made (the job then gets no view at all).
 */
static int _fallback(dl_stage_t *st, const dl_stage_job_t *job,
		     const char *path, int rc, dl_stage_report_t *rep)
{
	dl__stage_log(st, DL_LOG_ERROR,
		      "%s: job %" PRIu32 "%s: %s: %s", st->dir, job->job_id,
		      st->prefetching ? " (prefetch)" : "", path,
		      rep->msg[0] ? rep->msg : dl_strerror(rc));
	rep->msg[0] = '\0';
	rep->user_fault = 0;
	rep->fallbacks++;
	if (st->prefetching)
		return 0; /* the job's own staging tries it again */
	if (dl__view_add(st, path, NULL, rep)) {
		rep->msg[0] = '\0';
		return DL_ENOSPC;
	}
	rep->uncached++;
	return 0;
}

/* Stage the files into a new view; \return 0, DL_ENOSPC, or a failure. */
static int _stage_all(dl_stage_t *st, const dl_stage_job_t *job,
		      dl_filelist_t *files, dl_opener_t *op,
		      dl_stage_report_t *rep)
{
	int rc = _read_lists(files, op, job, rep);

	rep->files = files->count;
	if (!rc)
		rc = _pins_open(st, job->job_id, rep);
	if (!rc && !st->prefetching)
		rc = dl__view_begin(st, job, rep);
	for (size_t i = 0; !rc && i < files->count; i++) {
		rc = dl__stage_file(st, job, op, files->files[i].path, rep);
		if (rc && rc != DL_ENOSPC && rc != DL_ENOMEM &&
		    !rep->user_fault)
			rc = _fallback(st, job, files->files[i].path, rc, rep);
	}
	if (!rc && !st->prefetching && dl__view_protect(st, st->viewfd))
		rc = dl__nospace(errno)
			     ? DL_ENOSPC
			     : dl__stage_fail(rep, false, DL_EIO,
					      "%s: cannot open the view to uid %u: %s",
					      st->dir, (unsigned)job->uid,
					      strerror(errno));
	return rc;
}

/*
 * A view that cannot be made whole (the file system is full, or it
 * fails) gives the job none: it reads its sources, and runs.  Only the
 * job's own faults and a failed prefetch fail anything.
 * \return 0 if the job goes on without a view, rc if not.
 */
static int _no_view(dl_stage_t *st, const dl_stage_job_t *job, int rc,
		    dl_stage_report_t *rep)
{
	if (st->prefetching || (rc != DL_ENOSPC && rep->user_fault))
		return rc;
	_job_undo(st, job->job_id);
	rep->bypassed = 1;
	if (rc == DL_ENOSPC) {
		dl__stage_log(st, DL_LOG_INFO,
			      "%s: the cache's file system is full: job %" PRIu32
			      " gets no view and reads its files from their sources",
			      st->dir, job->job_id);
	} else {
		rep->fallbacks++;
		dl__stage_log(st, DL_LOG_ERROR,
			      "%s: job %" PRIu32 " gets no view and reads its files from their sources: %s",
			      st->dir, job->job_id,
			      rep->msg[0] ? rep->msg : dl_strerror(rc));
	}
	rep->msg[0] = '\0';
	return 0;
}

/*
 * Close what the staging left open and settle its outcome: a view that
 * cannot be built gives the job none (it reads its sources), a failure
 * leaves no trace of the job but, for its own faults, the note for its
 * user.
 */
static int _stage_end(dl_stage_t *st, const dl_stage_job_t *job, int rc,
		      dl_stage_report_t *rep)
{
	dl__view_close(st);
	if (st->pinsfd >= 0)
		close(st->pinsfd);
	st->pinsfd = -1;
	if (!rc || !(rc = _no_view(st, job, rc, rep)))
		return 0;
	_job_undo(st, job->job_id);
	if (!rep->msg[0])
		dl__stage_fail(rep, false, rc, "%s", dl_strerror(rc));
	/* a prefetch's failure is not the job's: the job stages again */
	if (!st->prefetching && rep->user_fault &&
	    dl_stage_job_fail(st, job, rep->msg))
		dl__stage_log(st, DL_LOG_ERROR,
			      "%s: cannot write the failure note of job %" PRIu32,
			      st->dir, job->job_id);
	return rc;
}

int dl__stage_run(dl_stage_t *st, const dl_stage_job_t *job,
		  dl_filelist_t *files, dl_stage_report_t *rep)
{
	dl_opener_t *op = NULL;
	char name[32], err[512] = "";
	int rc;

	/* A stale failure note (a requeued job) must not fail this run; a
	 * prefetch leaves the running job's note alone. */
	snprintf(name, sizeof(name), "%" PRIu32 ".failed", job->job_id);
	if (!st->prefetching)
		unlinkat(st->jobs, name, 0);

	rc = dl_opener_start(job->uid, job->gid, job->user, st->open_timeout,
			     &op, err, sizeof(err));
	if (rc == DL_ETIMEDOUT)
		rc = dl__helper_failed(job, err, rep);
	else if (rc)
		rc = dl__stage_fail(rep, false, rc, "%s", err);
	else {
		st->cur_job = job;
		rc = _stage_all(st, job, files, op, rep);
		st->cur_job = NULL;
	}
	dl_opener_stop(op);
	rc = _stage_end(st, job, rc, rep);
	dl__glock(st);
	if (dl_stage_write_inventory(st) && !dl__nospace(errno))
		dl__stage_log(st, DL_LOG_ERROR,
			      "%s: cannot write .inventory: %s", st->dir,
			      strerror(errno));
	dl__gunlock(st);
	return rc;
}

int dl_stage_job(dl_stage_t *st, const dl_stage_job_t *job,
		 dl_filelist_t *files, dl_stage_report_t *rep)
{
	dl_stage_report_t dummy;
	int rc;

	if (!rep)
		rep = &dummy;
	memset(rep, 0, sizeof(*rep));
	if (!st || !job || !files)
		return DL_EINVAL;
	if (!files->count && !files->nlists)
		return 0;
	rc = dl__stage_run(st, job, files, rep);
	/* The job's own pins now hold what a prefetch pinned for it. */
	if (!rc)
		dl__prefetch_forget(st, job->job_id);
	return rc;
}

int dl_stage_generation(dl_stage_t *st, uint64_t *gen)
{
	uint64_t g = 0;
	ssize_t n = pread(st->gfd, &g, sizeof(g), 0);

	if (n < 0)
		return DL_EIO;
	*gen = n == sizeof(g) ? g : 0;
	return 0;
}

int dl_stage_bytes(dl_stage_t *st, uint64_t *storage, uint64_t *peer)
{
	if (dl__glock(st))
		return DL_EIO;
	dl__bytes_read(st, storage, peer);
	dl__gunlock(st);
	return 0;
}

/* Whether the cache knows the job: a view, pins or a note. */
bool dl__job_known(dl_stage_t *st, uint32_t job_id)
{
	static const char *const sfx[] = {"view", "pins", "failed"};
	char name[32];
	struct stat sb;

	for (int i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "%" PRIu32 ".%s", job_id, sfx[i]);
		if (!fstatat(st->jobs, name, &sb, AT_SYMLINK_NOFOLLOW))
			return true;
	}
	return false;
}

int dl_stage_job_end(dl_stage_t *st, uint32_t job_id, dl_stage_report_t *rep)
{
	char name[32];
	int rc = 0;

	if (rep)
		memset(rep, 0, sizeof(*rep));
	if (!st)
		return DL_EINVAL;
	if (!dl__job_known(st, job_id))
		return 0;
	/* Logged by dl__view_remove(); what is left is the user's doing. */
	dl__view_remove(st, job_id);
	snprintf(name, sizeof(name), "%" PRIu32 ".failed", job_id);
	unlinkat(st->jobs, name, 0);
	dl__glock(st);
	snprintf(name, sizeof(name), "%" PRIu32 ".pins", job_id);
	if (unlinkat(st->jobs, name, 0) && errno != ENOENT)
		rc = DL_EIO;
	dl__gbump(st, false);
	/* Evict down to a capacity that was lowered since. */
	if (!dl__ensure_tracker(st) &&
	    dl_cache_used(st->trk, 0) > st->capacity) {
		st->nvict = 0;
		dl_cache_trim(st->trk, 0, dl__victim_cb, st);
		dl__evict_victims(st, rep);
		dl__gbump(st, true);
	}
	if (dl_stage_write_inventory(st))
		dl__stage_log(st, DL_LOG_ERROR,
			      "%s: cannot write .inventory: %s", st->dir,
			      strerror(errno));
	dl__gunlock(st);
	return rc;
}
