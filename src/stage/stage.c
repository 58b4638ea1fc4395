/*
 * stage.c - the node-local cache: store, locks, eviction, views.
 *
 * Where the tracker of libdatalocality (dl_cache.h) serves slurmctld's view
 * of every node, here one tracker with a single node models this node's
 * cache.  It is rebuilt from the store (the .meta files and the pin
 * records of active jobs) whenever another process changed the store since
 * this one last looked: every change is made under the global lock and
 * bumps a counter kept in the lock file, so a process that finds the
 * counter where it left it knows its tracker is still exact.
 *
 * Eviction by the tracker's policies: value is eq. 7 of online-hps-khanna
 * (section 4.4) with Numcopies = 1, as a node only sees its own copy;
 * lru, lfu, fifo and random are the local policies of data-diffusion-raicu
 * (section 3.1).  Like data diffusion we assume inputs are not modified in
 * place, but we do not rely on it: a cached copy is used only if the
 * source still has the identity (device, inode, size, mtime, ctime) it had
 * when copied; ctime cannot be set by users, so a rewritten file is always
 * copied again.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "dl_error.h"
#include "opener.h"
#include "stage.h"

#define META_VERSION 1
#define META_MAX (DL_PATH_MAX + 256)
#define LIST_MAX ((size_t)64 << 20) /* list files, as slurmctld reads them */
#define COPY_BUF ((size_t)1 << 20)
#define LOG_ROTATE ((off_t)1 << 20)
/* lfu and value replay at most this many uses per file into the tracker. */
#define HITS_REPLAY_MAX 1000

enum { ST_ABSENT, ST_COMPLETE, ST_RESERVED };

struct dl_stage {
	char *dir;
	int dfd, store, jobs, tmp, locks;
	dev_t dev;
	int bucket[256];
	uint64_t capacity;
	dl_evict_t policy;
	char *node;
	dl_log_fn log;
	void *log_arg;
	uid_t euid;

	int gfd;          /* .locks/global; holds the change counter */
	bool glocked;
	uint64_t gen;     /* the counter, read at the last _glock() */

	dl_cache_t *trk;  /* this node's cache, node 0 */
	uint64_t trk_gen; /* the counter the tracker is exact for */
	bool trk_ok;
	uint32_t *victims;
	size_t nvict, capvict;

	unsigned seq;     /* makes temporary names unique */
	uint64_t emu_bw;  /* shared-storage emulation, see dl_stage_opts_t */
	unsigned emu_servers;
	char *emu_lockdir;
	int acl;          /* views: 1 ACLs, 0 ownership, -1 not known */

	/* the view being built */
	int viewfd;
	uid_t view_uid;
	gid_t view_gid;
	char *vdir;       /* directory of the last file linked, "/a/b" */
	int vdirfd;
	int pinsfd;
};

/* ------------------------------------------------------------------ */
/* small helpers                                                       */

static void _log(dl_stage_t *st, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void _log(dl_stage_t *st, int level, const char *fmt, ...)
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

/* Record a failure in rep; \return rc. */
static int _fail(dl_stage_report_t *rep, bool user, int rc, const char *fmt,
		 ...) __attribute__((format(printf, 4, 5)));

static int _fail(dl_stage_report_t *rep, bool user, int rc, const char *fmt,
		 ...)
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

static int64_t _now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t _ts_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;
}

static bool _is_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		      (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

static int _hexval(char c)
{
	return c <= '9' ? c - '0' : c - 'a' + 10;
}

static ssize_t _write_all(int fd, const void *buf, size_t len)
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

int dl_stage_view_path(const char *dir, uint32_t job_id, char *buf,
		       size_t len)
{
	int n = snprintf(buf, len, "%s/.jobs/%" PRIu32 ".view", dir, job_id);

	return n < 0 || (size_t)n >= len ? DL_ERANGE : 0;
}

int dl_stage_failed_path(const char *dir, uint32_t job_id, char *buf,
			 size_t len)
{
	int n = snprintf(buf, len, "%s/.jobs/%" PRIu32 ".failed", dir, job_id);

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
	free(st->victims);
	free(st->vdir);
	free(st->node);
	free(st->dir);
	free(st->emu_lockdir);
	free(st);
}

int dl_stage_open(const char *dir, const dl_stage_opts_t *opts, int create,
		  dl_stage_t **out, char *err, size_t errlen)
{
	dl_stage_t *st;
	struct stat sb;
	int rc;

	if (!out)
		return DL_EINVAL;
	*out = NULL;
	if (!dir || dir[0] != '/' || strlen(dir) >= DL_PATH_MAX) {
		snprintf(err, errlen, "cache directory must be an absolute path");
		return DL_EINVAL;
	}
	st = calloc(1, sizeof(*st));
	if (!st)
		return DL_ENOMEM;
	st->dfd = st->store = st->jobs = st->tmp = st->locks = -1;
	st->gfd = st->viewfd = st->vdirfd = st->pinsfd = -1;
	for (int i = 0; i < 256; i++)
		st->bucket[i] = -1;
	st->euid = geteuid();
	st->acl = -1;
	st->capacity = opts ? opts->capacity : DL_CACHE_UNLIMITED;
	st->policy = opts ? opts->policy : DL_EVICT_VALUE;
	if (opts && opts->emu_bw && opts->emu_lockdir) {
		st->emu_bw = opts->emu_bw;
		st->emu_servers = opts->emu_servers ? opts->emu_servers : 1;
		st->emu_lockdir = strdup(opts->emu_lockdir);
	}
	st->log = opts ? opts->log : NULL;
	st->log_arg = opts ? opts->log_arg : NULL;
	st->dir = strdup(dir);
	st->node = strdup(opts && opts->node ? opts->node : "");
	if (!st->dir || !st->node) {
		dl_stage_close(st);
		return DL_ENOMEM;
	}
	if (create) {
		rc = _mkparents(dir, err, errlen);
		if (rc) {
			dl_stage_close(st);
			return rc;
		}
		if (mkdir(dir, 0711) && errno != EEXIST) {
			snprintf(err, errlen, "mkdir %s: %s", dir,
				 strerror(errno));
			dl_stage_close(st);
			return DL_EIO;
		}
	}
	/*
	 * O_NOFOLLOW: the last component must be the directory itself.
	 * Symbolic links in the parents are the administrator's choice.
	 */
	st->dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (st->dfd < 0) {
		rc = errno;
		snprintf(err, errlen, "cache directory %s: %s", dir,
			 rc == ELOOP ? "is a symbolic link, refused"
				     : strerror(rc));
		dl_stage_close(st);
		return rc == ENOENT ? DL_ENOENT
		       : rc == ELOOP || rc == ENOTDIR ? DL_EPERM
						       : DL_EIO;
	}
	if (fstat(st->dfd, &sb)) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		dl_stage_close(st);
		return DL_EIO;
	}
	st->dev = sb.st_dev;
	/* Jobs need search permission on DIR to reach their view. */
	{
		int fd = st->dfd;

		st->dfd = -1; /* no file system comparison with itself */
		rc = _check_dir(st, fd, dir,
				(sb.st_mode & 07777) | S_IXGRP | S_IXOTH, err,
				errlen);
		st->dfd = fd;
	}
	if (!rc)
		rc = _open_sub(st, "store", 0700, create, &st->store, err,
			       errlen);
	if (!rc)
		rc = _open_sub(st, ".jobs", 0711, create, &st->jobs, err,
			       errlen);
	if (!rc)
		rc = _open_sub(st, ".tmp", 0700, create, &st->tmp, err, errlen);
	if (!rc)
		rc = _open_sub(st, ".locks", 0700, create, &st->locks, err,
			       errlen);
	if (!rc) {
		st->gfd = openat(st->locks, "global",
				 O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
				 0600);
		if (st->gfd < 0 || fstat(st->gfd, &sb) ||
		    !S_ISREG(sb.st_mode) || sb.st_uid != st->euid) {
			snprintf(err, errlen, "%s/.locks/global: %s", dir,
				 st->gfd < 0 ? strerror(errno)
					     : "not a regular file of ours");
			rc = DL_EPERM;
		}
	}
	if (rc) {
		dl_stage_close(st);
		return rc;
	}
	*out = st;
	return 0;
}

/* ------------------------------------------------------------------ */
/* locks                                                               */

static int _glock(dl_stage_t *st)
{
	uint64_t g = 0;

	while (flock(st->gfd, LOCK_EX))
		if (errno != EINTR)
			return DL_EIO;
	st->glocked = true;
	if (pread(st->gfd, &g, sizeof(g), 0) != sizeof(g))
		g = 0;
	st->gen = g;
	return 0;
}

/*
 * The store changed.  applied: this process made the same change to its
 * tracker, which therefore stays exact.
 */
static void _gbump(dl_stage_t *st, bool applied)
{
	bool exact = st->trk_ok && st->trk_gen == st->gen;

	st->gen++;
	if (pwrite(st->gfd, &st->gen, sizeof(st->gen), 0) != sizeof(st->gen))
		st->trk_ok = false; /* others will rebuild: so must we */
	if (exact && applied)
		st->trk_gen = st->gen;
}

static void _gunlock(dl_stage_t *st)
{
	flock(st->gfd, LOCK_UN);
	st->glocked = false;
}

/*
 * Lock a file's entry.  A lock file may be unlinked by its holder (after
 * an eviction), so after the lock is granted the name must still lead to
 * the locked inode; if not, start again.
 * IN nonblock - fail with -EWOULDBLOCK instead of waiting
 * IN create - without it, a missing lock file gives -ENOENT
 * \return the descriptor, or a negative errno.
 */
static int _lock_entry(dl_stage_t *st, const char *hash, bool nonblock,
		       bool create)
{
	for (;;) {
		struct stat a, b;
		int fd = openat(st->locks, hash,
				O_RDWR | O_NOFOLLOW | O_CLOEXEC |
					(create ? O_CREAT : 0),
				0600);

		if (fd < 0)
			return -errno;
		while (flock(fd, LOCK_EX | (nonblock ? LOCK_NB : 0))) {
			int e = errno;

			if (e == EINTR)
				continue;
			close(fd);
			return -e;
		}
		if (!fstat(fd, &a) &&
		    !fstatat(st->locks, hash, &b, AT_SYMLINK_NOFOLLOW) &&
		    a.st_ino == b.st_ino && a.st_dev == b.st_dev)
			return fd;
		close(fd);
		if (!create)
			return -ENOENT;
	}
}

/* Release an entry lock; with drop, remove the lock file first. */
static void _unlock_entry(dl_stage_t *st, const char *hash, int fd, bool drop)
{
	if (fd < 0)
		return;
	if (drop)
		unlinkat(st->locks, hash, 0);
	close(fd);
}

/* Whether a copy of hash is in progress: someone holds its lock. */
static bool _entry_busy(dl_stage_t *st, const char *hash, bool drop_if_free)
{
	int fd = _lock_entry(st, hash, true, false);

	if (fd == -EWOULDBLOCK)
		return true;
	if (fd >= 0)
		_unlock_entry(st, hash, fd, drop_if_free);
	return false;
}

/* ------------------------------------------------------------------ */
/* store entries                                                       */

static int _bucket(dl_stage_t *st, const char *hash, bool create)
{
	int i = _hexval(hash[0]) * 16 + _hexval(hash[1]);
	char name[3] = {hash[0], hash[1], '\0'};
	struct stat sb;
	int fd;

	if (st->bucket[i] >= 0)
		return st->bucket[i];
	fd = openat(st->store, name,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && create) {
		if (mkdirat(st->store, name, 0700) && errno != EEXIST)
			return -1;
		fd = openat(st->store, name,
			    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0)
		return -1;
	if (fstat(fd, &sb) || sb.st_uid != st->euid ||
	    (sb.st_mode & (S_IWGRP | S_IWOTH)) || sb.st_dev != st->dev) {
		close(fd);
		errno = EPERM;
		return -1;
	}
	st->bucket[i] = fd;
	return fd;
}

static void _entry_free(dl_stage_entry_t *e)
{
	free(e->path);
	e->path = NULL;
}

/*
 * Read hash's .meta into e.
 * \return 0, DL_ENOENT, DL_EFORMAT (unreadable, foreign or not ours).
 */
static int _meta_read(dl_stage_t *st, int bfd, const char *hash,
		      dl_stage_entry_t *e)
{
	char name[DL_SHA256_HEX_LEN + 8], buf[META_MAX + 1];
	char check[DL_SHA256_HEX_LEN];
	unsigned long long v[9];
	struct stat sb;
	ssize_t n;
	int fd, off = 0;
	char *nl;

	memset(e, 0, sizeof(*e));
	snprintf(name, sizeof(name), "%s.meta", hash);
	fd = openat(bfd, name,
		    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? DL_ENOENT : DL_EFORMAT;
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) ||
	    sb.st_uid != st->euid) {
		close(fd);
		return DL_EFORMAT;
	}
	n = read(fd, buf, META_MAX);
	close(fd);
	if (n <= 0)
		return DL_EFORMAT;
	buf[n] = '\0';
	nl = strchr(buf, '\n');
	if (!nl)
		return DL_EFORMAT;
	*nl = '\0';
	if (sscanf(buf, "%llu %llu %llu %llu %lld %lld %lld %lld %llu %n",
		   &v[0], &v[1], &v[2], &v[3], (long long *)&v[4],
		   (long long *)&v[5], (long long *)&v[6], (long long *)&v[7],
		   &v[8], &off) != 9 ||
	    v[0] != META_VERSION || buf[off] != '/')
		return DL_EFORMAT;
	dl_sha256_hex(buf + off, strlen(buf + off), check);
	if (strcmp(check, hash))
		return DL_EFORMAT;
	e->path = strdup(buf + off);
	if (!e->path)
		return DL_ENOMEM;
	memcpy(e->hash, hash, DL_SHA256_HEX_LEN);
	e->size = v[1];
	e->dev = v[2];
	e->ino = v[3];
	e->mtime_ns = (int64_t)v[4];
	e->ctime_ns = (int64_t)v[5];
	e->inserted_ns = (int64_t)v[6];
	e->last_used_ns = (int64_t)v[7];
	e->hits = v[8];
	return 0;
}

/* Write e's .meta atomically (temporary file, fsync, rename). */
static int _meta_write(dl_stage_t *st, const dl_stage_entry_t *e)
{
	char tmpname[DL_SHA256_HEX_LEN + 48], name[DL_SHA256_HEX_LEN + 8];
	char buf[META_MAX + 1];
	int bfd = _bucket(st, e->hash, true), fd, n;

	if (bfd < 0)
		return DL_EIO;
	n = snprintf(buf, sizeof(buf),
		     "%d %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRId64
		     " %" PRId64 " %" PRId64 " %" PRId64 " %" PRIu64 " %s\n",
		     META_VERSION, e->size, e->dev, e->ino, e->mtime_ns,
		     e->ctime_ns, e->inserted_ns, e->last_used_ns, e->hits,
		     e->path);
	if (n < 0 || n >= (int)sizeof(buf))
		return DL_EINVAL;
	snprintf(tmpname, sizeof(tmpname), "%s.meta.%ld.%u", e->hash,
		 (long)getpid(), st->seq++);
	snprintf(name, sizeof(name), "%s.meta", e->hash);
	fd = openat(st->tmp, tmpname,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return DL_EIO;
	if (_write_all(fd, buf, (size_t)n) < 0 || fsync(fd) ||
	    close(fd) ||
	    renameat(st->tmp, tmpname, bfd, name)) {
		int e2 = errno;

		unlinkat(st->tmp, tmpname, 0);
		errno = e2;
		return DL_EIO;
	}
	return 0;
}

/* Remove an entry's data and metadata (and its lock file, if free). */
static void _entry_remove(dl_stage_t *st, const char *hash, bool drop_lock)
{
	char name[DL_SHA256_HEX_LEN + 8];
	int bfd = _bucket(st, hash, false);

	if (bfd >= 0) {
		unlinkat(bfd, hash, 0); /* data first: see _scan() */
		snprintf(name, sizeof(name), "%s.meta", hash);
		unlinkat(bfd, name, 0);
	}
	if (drop_lock)
		_entry_busy(st, hash, true);
}

/*
 * The state of one entry, under the global lock.  A data file that is not
 * a regular file of ours with the recorded size (a planted symbolic link,
 * a truncated file) is removed, never followed.
 * OUT e - the metadata (for ST_COMPLETE and ST_RESERVED)
 */
static int _entry_get(dl_stage_t *st, const char *hash, dl_stage_entry_t *e)
{
	int bfd = _bucket(st, hash, false);
	struct stat sb;
	int rc;

	memset(e, 0, sizeof(*e));
	if (bfd < 0)
		return ST_ABSENT;
	rc = _meta_read(st, bfd, hash, e);
	if (rc == DL_EFORMAT) {
		_log(st, DL_LOG_ERROR, "%s: removing corrupt entry store/%.2s/%s",
		     st->dir, hash, hash);
		_entry_remove(st, hash, false);
		return ST_ABSENT;
	}
	if (rc) {
		/* no metadata: any data file is a left-over */
		unlinkat(bfd, hash, 0);
		return ST_ABSENT;
	}
	if (fstatat(bfd, hash, &sb, AT_SYMLINK_NOFOLLOW))
		return ST_RESERVED;
	if (!S_ISREG(sb.st_mode) || sb.st_uid != st->euid ||
	    (uint64_t)sb.st_size != e->size) {
		_log(st, DL_LOG_ERROR,
		     "%s: store/%.2s/%s is not the file recorded (%s), removed",
		     st->dir, hash, hash,
		     S_ISLNK(sb.st_mode) ? "a symbolic link" : "wrong type, owner or size");
		unlinkat(bfd, hash, 0);
		return ST_RESERVED;
	}
	return ST_COMPLETE;
}

/* ------------------------------------------------------------------ */
/* scanning the store and the pins                                     */

typedef struct {
	char hash[DL_SHA256_HEX_LEN];
	bool meta, data;
} scan_name_t;

typedef struct {
	dl_stage_entry_t *v;
	size_t n, cap;
} entries_t;

static void _entries_free(entries_t *es)
{
	for (size_t i = 0; i < es->n; i++)
		_entry_free(&es->v[i]);
	free(es->v);
	es->v = NULL;
	es->n = es->cap = 0;
}

static int _cmp_scan_name(const void *a, const void *b)
{
	return strcmp(((const scan_name_t *)a)->hash,
		      ((const scan_name_t *)b)->hash);
}

static int _cmp_entry_hash(const void *a, const void *b)
{
	return strcmp(((const dl_stage_entry_t *)a)->hash,
		      ((const dl_stage_entry_t *)b)->hash);
}

/* Open a directory for reading through a new descriptor. */
static DIR *_opendir_at(int dirfd, const char *name)
{
	int fd = openat(dirfd, name,
			O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d;

	if (fd < 0)
		return NULL;
	d = fdopendir(fd);
	if (!d)
		close(fd);
	return d;
}

/* Remove temporary files whose writer (the pid in the name) is gone. */
static void _clean_tmp(dl_stage_t *st)
{
	DIR *d = _opendir_at(st->tmp, ".");
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		char *last, *pid_s;
		long pid;

		if (de->d_name[0] == '.')
			continue;
		last = strrchr(de->d_name, '.');
		if (!last || last == de->d_name)
			continue;
		*last = '\0';
		pid_s = strrchr(de->d_name, '.');
		pid = pid_s ? strtol(pid_s + 1, NULL, 10) : 0;
		*last = '.';
		if (pid > 0 && kill((pid_t)pid, 0) && errno == ESRCH &&
		    unlinkat(st->tmp, de->d_name, 0) && errno == EISDIR)
			unlinkat(st->tmp, de->d_name, AT_REMOVEDIR);
	}
	closedir(d);
}

/*
 * Every entry of the store, sorted by hash, under the global lock.
 * IN clean - also remove what is left over from crashed processes: data
 *            without metadata, corrupt metadata, reservations whose copier
 *            is gone, stale temporary files
 */
static int _scan(dl_stage_t *st, bool clean, entries_t *out)
{
	scan_name_t *names = NULL;
	size_t nn = 0, capn = 0;
	DIR *sd = _opendir_at(st->store, ".");
	struct dirent *de;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (!sd)
		return DL_EIO;
	while ((de = readdir(sd))) {
		DIR *bd;
		struct dirent *be;

		if (de->d_name[0] == '.')
			continue;
		if (strlen(de->d_name) != 2 || !_is_hex(de->d_name, 2) ||
		    _bucket(st, de->d_name, false) < 0) {
			_log(st, DL_LOG_ERROR,
			     "%s: unexpected store/%s, ignored", st->dir,
			     de->d_name);
			continue;
		}
		bd = _opendir_at(st->bucket[_hexval(de->d_name[0]) * 16 +
					   _hexval(de->d_name[1])],
				 ".");
		if (!bd)
			continue;
		while ((be = readdir(bd))) {
			size_t len = strlen(be->d_name);
			bool meta = len == 69 && !strcmp(be->d_name + 64, ".meta");

			if (be->d_name[0] == '.')
				continue;
			if ((len != 64 && !meta) || !_is_hex(be->d_name, 64) ||
			    strncmp(be->d_name, de->d_name, 2))
				continue;
			if (nn == capn) {
				scan_name_t *nv;

				capn = capn ? 2 * capn : 256;
				nv = realloc(names, capn * sizeof(*nv));
				if (!nv) {
					rc = DL_ENOMEM;
					break;
				}
				names = nv;
			}
			memcpy(names[nn].hash, be->d_name, 64);
			names[nn].hash[64] = '\0';
			names[nn].meta = meta;
			names[nn].data = !meta;
			nn++;
		}
		closedir(bd);
		if (rc)
			break;
	}
	closedir(sd);
	if (rc) {
		free(names);
		return rc;
	}
	if (nn)
		qsort(names, nn, sizeof(*names), _cmp_scan_name);
	for (size_t i = 0; i < nn && !rc;) {
		bool meta = false, data = false;
		const char *hash = names[i].hash;
		dl_stage_entry_t e;
		size_t j = i;
		int state;

		for (; j < nn && !strcmp(names[j].hash, hash); j++) {
			meta |= names[j].meta;
			data |= names[j].data;
		}
		i = j;
		if (!meta) {
			if (clean)
				unlinkat(_bucket(st, hash, false), hash, 0);
			continue;
		}
		if (clean) {
			state = _entry_get(st, hash, &e);
		} else {
			int bfd = _bucket(st, hash, false);
			struct stat sb;

			if (_meta_read(st, bfd, hash, &e))
				continue;
			state = !fstatat(bfd, hash, &sb, AT_SYMLINK_NOFOLLOW) &&
					S_ISREG(sb.st_mode)
				? ST_COMPLETE
				: ST_RESERVED;
		}
		if (state == ST_RESERVED && !_entry_busy(st, hash, clean)) {
			/* its copier is gone */
			if (clean)
				_entry_remove(st, hash, false);
			state = ST_ABSENT;
		}
		if (state == ST_ABSENT) {
			_entry_free(&e);
			continue;
		}
		e.complete = state == ST_COMPLETE;
		if (out->n == out->cap) {
			dl_stage_entry_t *nv;

			out->cap = out->cap ? 2 * out->cap : 64;
			nv = realloc(out->v, out->cap * sizeof(*nv));
			if (!nv) {
				_entry_free(&e);
				rc = DL_ENOMEM;
				break;
			}
			out->v = nv;
		}
		out->v[out->n++] = e;
	}
	free(names);
	if (clean)
		_clean_tmp(st);
	if (rc)
		_entries_free(out);
	return rc;
}

/* Count the pins of the active jobs into the entries (sorted by hash). */
static void _count_pins(dl_stage_t *st, entries_t *es)
{
	DIR *d = _opendir_at(st->jobs, ".");
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		char line[128];
		FILE *f;
		int fd;

		if (len < 6 || strcmp(de->d_name + len - 5, ".pins"))
			continue;
		fd = openat(st->jobs, de->d_name,
			    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			continue;
		f = fdopen(fd, "r");
		if (!f) {
			close(fd);
			continue;
		}
		while (fgets(line, sizeof(line), f)) {
			dl_stage_entry_t key, *e;

			line[strcspn(line, "\n")] = '\0';
			if (strlen(line) != 64 || !_is_hex(line, 64))
				continue;
			memcpy(key.hash, line, DL_SHA256_HEX_LEN);
			e = es->n ? bsearch(&key, es->v, es->n, sizeof(*e),
					    _cmp_entry_hash)
				  : NULL;
			if (e)
				e->pins++;
		}
		fclose(f);
	}
	closedir(d);
}

/* ------------------------------------------------------------------ */
/* the tracker                                                         */

static void _victim_cb(uint32_t node, uint32_t file, void *arg)
{
	dl_stage_t *st = arg;

	(void)node;
	if (st->nvict == st->capvict) {
		size_t cap = st->capvict ? 2 * st->capvict : 16;
		uint32_t *nv = realloc(st->victims, cap * sizeof(*nv));

		if (!nv)
			return; /* then the file stays on disk, over budget */
		st->victims = nv;
		st->capvict = cap;
	}
	st->victims[st->nvict++] = file;
}

/* Delete the files the tracker evicted. */
static void _evict_victims(dl_stage_t *st, dl_stage_report_t *rep)
{
	for (size_t i = 0; i < st->nvict; i++) {
		const char *path = dl_cache_file_path(st->trk, st->victims[i]);
		uint64_t size = dl_cache_file_size(st->trk, st->victims[i]);
		char hash[DL_SHA256_HEX_LEN];

		if (!path)
			continue;
		dl_sha256_hex(path, strlen(path), hash);
		_entry_remove(st, hash, true);
		_log(st, DL_LOG_DEBUG, "evicted %s (%" PRIu64 " bytes, %s)",
		     path, size, dl_evict_name(st->policy));
		if (rep) {
			rep->evicted++;
			rep->bytes_evicted += size;
		}
	}
	st->nvict = 0;
}

static dl_evict_t _sort_policy;

/* Replay order: fifo by insertion, the others by last use. */
static int _cmp_replay(const void *a, const void *b)
{
	const dl_stage_entry_t *x = a, *y = b;
	int64_t kx = _sort_policy == DL_EVICT_FIFO ? x->inserted_ns
						   : x->last_used_ns;
	int64_t ky = _sort_policy == DL_EVICT_FIFO ? y->inserted_ns
						   : y->last_used_ns;

	if (kx != ky)
		return kx < ky ? -1 : 1;
	return strcmp(x->hash, y->hash);
}

/*
 * Rebuild the tracker from the store, under the global lock: every entry
 * (copies in progress too) replayed in the order of its policy, with its
 * uses for lfu and value, then pinned for each active job using it and
 * for each copy in progress.
 */
static int _rebuild(dl_stage_t *st)
{
	entries_t es;
	dl_cache_t *c;
	int rc;

	rc = _scan(st, true, &es);
	if (rc)
		return rc;
	_count_pins(st, &es);
	c = dl_cache_create(1, st->policy,
			    (uint64_t)_now_ns() ^ (uint64_t)getpid());
	if (!c) {
		_entries_free(&es);
		return DL_ENOMEM;
	}
	_sort_policy = st->policy;
	if (es.n)
		qsort(es.v, es.n, sizeof(*es.v), _cmp_replay);
	for (size_t i = 0; i < es.n && !rc; i++) {
		dl_stage_entry_t *e = &es.v[i];
		int64_t id = dl_cache_file_intern(c, e->path, e->size);
		uint64_t now = (uint64_t)(st->policy == DL_EVICT_FIFO
						  ? e->inserted_ns
						  : e->last_used_ns);

		if (id < 0) {
			rc = (int)id;
			break;
		}
		rc = dl_cache_insert(c, 0, (uint32_t)id, now, NULL, NULL);
		if (st->policy == DL_EVICT_LFU || st->policy == DL_EVICT_VALUE)
			for (uint64_t h = 1;
			     !rc && h < e->hits && h < HITS_REPLAY_MAX; h++)
				rc = dl_cache_access(c, 0, (uint32_t)id, now);
		for (uint32_t p = 0; !rc && p < e->pins; p++)
			rc = dl_cache_pin(c, 0, (uint32_t)id);
		if (!rc && !e->complete)
			rc = dl_cache_pin(c, 0, (uint32_t)id);
	}
	_entries_free(&es);
	if (!rc)
		rc = dl_cache_set_capacity(c, 0, st->capacity);
	if (rc) {
		dl_cache_destroy(c);
		return rc;
	}
	dl_cache_destroy(st->trk);
	st->trk = c;
	st->trk_gen = st->gen;
	st->trk_ok = true;
	return 0;
}

static int _ensure_tracker(dl_stage_t *st)
{
	if (st->trk && st->trk_ok && st->trk_gen == st->gen)
		return 0;
	return _rebuild(st);
}

/* ------------------------------------------------------------------ */
/* views                                                               */

/*
 * Give uid (alone) access perm to fd's file by a POSIX ACL, written as the
 * "system.posix_acl_access" value (little-endian, as the kernel's
 * posix_acl_xattr_header): u::<owner>, u:<uid>:<perm>, g::---, m::<perm>,
 * o::---.  Directories: owner rwx, perm r-x; notes: owner r--, perm r--.
 */
static int _set_acl_perm(int fd, uid_t uid, uint16_t owner, uint16_t named)
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
	return _set_acl_perm(fd, uid, 7, 5);
}

/*
 * Open a view directory to the job's user alone.  With POSIX ACLs the
 * directory stays root's (mode 0750 shown: the mask) and the user gets
 * r-x by a named entry: the user can read and list but never write,
 * chmod or add anything.  Without ACL support the directory is given to
 * the user with mode 0500 instead; the user could then chmod it, which
 * only shares files the user may read anyway (see doc/dl-stage.8).
 */
static int _view_protect(dl_stage_t *st, int fd)
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
			_log(st, DL_LOG_INFO,
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
static int _view_remove(dl_stage_t *st, uint32_t job_id)
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
		_log(st, DL_LOG_ERROR, "%s: cannot remove all of .jobs/%s: %s",
		     st->dir, name, dl_strerror(rc));
	return rc;
}

static void _view_close(dl_stage_t *st)
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

static int _view_begin(dl_stage_t *st, const dl_stage_job_t *job,
		       dl_stage_report_t *rep)
{
	char name[32];

	snprintf(name, sizeof(name), "%" PRIu32 ".view", job->job_id);
	_view_remove(st, job->job_id);
	st->view_uid = job->uid;
	st->view_gid = job->gid;
	/* Built as root's 0700 directory, opened to the user when complete. */
	if (mkdirat(st->jobs, name, 0700))
		return _fail(rep, false, DL_EIO, "mkdir %s/.jobs/%s: %s",
			     st->dir, name, strerror(errno));
	st->viewfd = openat(st->jobs, name,
			    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (st->viewfd < 0)
		return _fail(rep, false, DL_EIO, "%s/.jobs/%s: %s", st->dir,
			     name, strerror(errno));
	return 0;
}

/*
 * The view directory that will hold path (its dirname), made as needed.
 * \return a descriptor owned by st, or -1 with rep filled.
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
			*rc = _fail(rep, true, DL_EINVAL,
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
				*rc = _fail(rep, false, DL_EIO,
					    "view of %s: mkdir: %s", path,
					    strerror(errno));
				goto fail;
			}
			nfd = openat(fd, comp,
				     O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
					     O_CLOEXEC);
			if (nfd >= 0 && _view_protect(st, nfd)) {
				*rc = _fail(rep, false, DL_EIO,
					    "view of %s: cannot set permissions: %s",
					    path, strerror(errno));
				close(nfd);
				goto fail;
			}
		}
		if (nfd < 0) {
			*rc = errno == ENOTDIR || errno == ELOOP
				? _fail(rep, true, DL_EINVAL,
					"%s conflicts with another file of the job",
					path)
				: _fail(rep, false, DL_EIO, "view of %s: %s",
					path, strerror(errno));
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

/* Show a store file (hard link) or the source (symbolic link) in the view. */
static int _view_add(dl_stage_t *st, const char *path, const char *hash,
		     dl_stage_report_t *rep)
{
	const char *base = strrchr(path, '/') + 1;
	int rc = 0, dfd = _view_dir(st, path, &rc, rep);
	int r;

	if (dfd < 0)
		return rc ? rc : DL_EIO;
	if (hash)
		r = linkat(_bucket(st, hash, false), hash, dfd, base, 0);
	else
		r = symlinkat(path, dfd, base);
	if (r && errno == EEXIST)
		return _fail(rep, true, DL_EINVAL,
			     "%s conflicts with another file of the job", path);
	if (r)
		return _fail(rep, false, DL_EIO, "view of %s: %s", path,
			     strerror(errno));
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

/* ------------------------------------------------------------------ */
/* staging                                                             */

/*
 * Shared-storage emulation for benchmarks: on one machine the "shared
 * storage" is as fast as the local disk.  A copy takes the lock of the
 * file's storage server (one copy at a time per server, as in the papers'
 * end-point contention model) and is paced at emu_bw bytes/s.
 * RET the lock's fd, or -1 when not emulating.
 */
static int _emu_begin(dl_stage_t *st, const char *hash, struct timespec *t0)
{
	char path[PATH_MAX];
	unsigned server;
	int fd;

	if (!st->emu_bw)
		return -1;
	server = (unsigned)strtoul((char[]){ hash[0], hash[1], 0 }, NULL, 16) %
		 st->emu_servers;
	snprintf(path, sizeof(path), "%s/server-%u.lock", st->emu_lockdir,
		 server);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd >= 0)
		while (flock(fd, LOCK_EX) && errno == EINTR)
			;
	clock_gettime(CLOCK_MONOTONIC, t0);
	return fd;
}

/* Sleep until done bytes took done / emu_bw seconds since t0. */
static void _emu_pace(dl_stage_t *st, uint64_t done, const struct timespec *t0)
{
	struct timespec now, d;
	double due = (double)done / (double)st->emu_bw, el;

	clock_gettime(CLOCK_MONOTONIC, &now);
	el = (now.tv_sec - t0->tv_sec) + (now.tv_nsec - t0->tv_nsec) / 1e9;
	if (due <= el)
		return;
	d.tv_sec = (time_t)(due - el);
	d.tv_nsec = (long)((due - el - (double)d.tv_sec) * 1e9);
	while (nanosleep(&d, &d) && errno == EINTR)
		;
}

/*
 * Copy size bytes of src into a new file in .tmp, fsync it, make it 0444.
 * OUT tmpname - its name in .tmp
 */
static int _copy(dl_stage_t *st, int src, uint64_t size, const char *path,
		 const char *hash, char *tmpname, size_t tlen,
		 dl_stage_report_t *rep)
{
	char *buf = malloc(COPY_BUF);
	uint64_t left = size;
	struct timespec t0;
	int out, rc = 0, emu;

	if (!buf)
		return DL_ENOMEM;
	snprintf(tmpname, tlen, "%s.%ld.%u", hash, (long)getpid(), st->seq++);
	out = openat(st->tmp, tmpname,
		     O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		     0400);
	if (out < 0) {
		free(buf);
		return _fail(rep, false, DL_EIO, "%s/.tmp/%s: %s", st->dir,
			     tmpname, strerror(errno));
	}
	posix_fadvise(src, 0, 0, POSIX_FADV_SEQUENTIAL);
	emu = _emu_begin(st, hash, &t0);
	while (left && !rc) {
		size_t want = left < COPY_BUF ? (size_t)left : COPY_BUF;
		ssize_t n = read(src, buf, want);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			rc = _fail(rep, true, DL_EIO, "cannot read %s: %s",
				   path, strerror(errno));
		else if (n == 0)
			rc = _fail(rep, true, DL_EIO,
				   "%s shrank while it was copied", path);
		else if (_write_all(out, buf, (size_t)n) < 0)
			rc = _fail(rep, false, DL_EIO,
				   "cannot write to %s/.tmp: %s", st->dir,
				   strerror(errno));
		else
			left -= (uint64_t)n;
		if (emu >= 0)
			_emu_pace(st, size - left, &t0);
	}
	if (emu >= 0)
		close(emu); /* releases the server's lock */
	free(buf);
	if (!rc && (fsync(out) || fchmod(out, 0444)))
		rc = _fail(rep, false, DL_EIO, "cannot write to %s/.tmp: %s",
			   st->dir, strerror(errno));
	if (close(out) && !rc)
		rc = _fail(rep, false, DL_EIO, "cannot write to %s/.tmp: %s",
			   st->dir, strerror(errno));
	if (rc)
		unlinkat(st->tmp, tmpname, 0);
	return rc;
}

static int _pins_add(dl_stage_t *st, const char *hash)
{
	char line[DL_SHA256_HEX_LEN + 1];

	memcpy(line, hash, 64);
	line[64] = '\n';
	return _write_all(st->pinsfd, line, 65) < 0 ? DL_EIO : 0;
}

/* The source is the version the store holds. */
static bool _same_version(const dl_stage_entry_t *e, const struct stat *sb,
			  const char *path)
{
	return e->size == (uint64_t)sb->st_size &&
	       e->dev == (uint64_t)sb->st_dev &&
	       e->ino == (uint64_t)sb->st_ino &&
	       e->mtime_ns == _ts_ns(&sb->st_mtim) &&
	       e->ctime_ns == _ts_ns(&sb->st_ctim) && !strcmp(e->path, path);
}

/* Undo a reservation whose copy failed. */
static void _unreserve(dl_stage_t *st, const char *hash, const char *path)
{
	_glock(st);
	_entry_remove(st, hash, false);
	if (st->trk_ok && st->trk_gen == st->gen) {
		int64_t id = dl_cache_file_lookup(st->trk, path);

		if (id < 0 || dl_cache_unpin(st->trk, 0, (uint32_t)id) ||
		    dl_cache_remove(st->trk, 0, (uint32_t)id))
			st->trk_ok = false;
	}
	_gbump(st, true);
	_gunlock(st);
}

static int _stage_file(dl_stage_t *st, const dl_stage_job_t *job,
		       dl_opener_t *op, const char *path,
		       dl_stage_report_t *rep)
{
	char hash[DL_SHA256_HEX_LEN], tmpname[DL_SHA256_HEX_LEN + 32];
	dl_stage_entry_t e;
	struct stat sb;
	bool waited = false;
	int fd, lk, rc, err, state;
	int64_t id, now;

	dl_sha256_hex(path, strlen(path), hash);
	rc = dl_opener_open(op, path, &fd, &err);
	if (rc == DL_EIO)
		return _fail(rep, false, rc, "the opener process died");
	if (rc)
		return _fail(rep, true, rc,
			     "user %s (uid %u) cannot read %s: %s",
			     job->user ? job->user : "?", (unsigned)job->uid,
			     path, strerror(err));
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
		close(fd);
		return _fail(rep, true, DL_EINVAL, "%s is not a regular file",
			     path);
	}

	lk = _lock_entry(st, hash, true, true);
	if (lk == -EWOULDBLOCK) {
		waited = true; /* another job is copying it: wait */
		lk = _lock_entry(st, hash, false, true);
	}
	if (lk < 0) {
		close(fd);
		return _fail(rep, false, DL_EIO, "%s/.locks/%s: %s", st->dir,
			     hash, strerror(-lk));
	}
	_glock(st);
	now = _now_ns();
	state = _entry_get(st, hash, &e);
	if (state == ST_COMPLETE && _same_version(&e, &sb, path)) {
		rc = _pins_add(st, hash);
		if (rc) {
			_gunlock(st);
			rc = _fail(rep, false, rc, "%s/.jobs: %s", st->dir,
				   strerror(errno));
			goto out;
		}
		e.hits++;
		e.last_used_ns = now;
		if (_meta_write(st, &e))
			_log(st, DL_LOG_ERROR, "%s: cannot update %s.meta: %s",
			     st->dir, hash, strerror(errno));
		if (st->trk_ok && st->trk_gen == st->gen) {
			id = dl_cache_file_lookup(st->trk, path);
			if (id < 0 ||
			    dl_cache_access(st->trk, 0, (uint32_t)id,
					    (uint64_t)now) ||
			    dl_cache_pin(st->trk, 0, (uint32_t)id))
				st->trk_ok = false;
		}
		_gbump(st, true);
		_gunlock(st);
		rc = _view_add(st, path, hash, rep);
		if (!rc) {
			rep->hits++;
			rep->waited += waited;
			rep->bytes_hit += e.size;
		}
		goto out;
	}
	if (state != ST_ABSENT) {
		/*
		 * An older version, or a copy whose copier died: replace it.
		 * Jobs that use the old version keep their hard link to it.
		 */
		_entry_remove(st, hash, false);
		st->trk_ok = false;
		_gbump(st, false);
	}
	_entry_free(&e);

	/* a miss: make room, reserve, copy */
	rc = _ensure_tracker(st);
	id = rc ? rc :
		  dl_cache_file_intern(st->trk, path, (uint64_t) sb.st_size);
	if (id >= 0 &&
	    dl_cache_file_size(st->trk, (uint32_t)id) != (uint64_t)sb.st_size)
		dl_cache_file_set_size(st->trk, (uint32_t)id,
				       (uint64_t)sb.st_size);
	if (id < 0) {
		_gunlock(st);
		rc = _fail(rep, false, (int)id, "cache tracker: %s",
			   dl_strerror((int)id));
		goto out;
	}
	st->nvict = 0;
	rc = dl_cache_insert(st->trk, 0, (uint32_t)id, (uint64_t)now,
			     _victim_cb, st);
	if (rc == DL_ENOSPC) {
		/* larger than what unused files free: read from the source */
		_gunlock(st);
		rc = _view_add(st, path, NULL, rep);
		if (!rc) {
			rep->uncached++;
			rep->bytes_uncached += (uint64_t)sb.st_size;
			_log(st, DL_LOG_INFO,
			     "%s (%" PRIu64 " bytes) does not fit in the cache: job %" PRIu32 " reads it from its source",
			     path, (uint64_t)sb.st_size, job->job_id);
		}
		_unlock_entry(st, hash, lk, true);
		lk = -1;
		goto out;
	}
	if (!rc)
		rc = dl_cache_pin(st->trk, 0, (uint32_t)id);
	if (rc) {
		st->trk_ok = false;
		_gunlock(st);
		rc = _fail(rep, false, rc, "cache tracker: %s",
			   dl_strerror(rc));
		goto out;
	}
	_evict_victims(st, rep);
	memset(&e, 0, sizeof(e));
	memcpy(e.hash, hash, sizeof(hash));
	e.path = (char *)path;
	e.size = (uint64_t)sb.st_size;
	e.dev = (uint64_t)sb.st_dev;
	e.ino = (uint64_t)sb.st_ino;
	e.mtime_ns = _ts_ns(&sb.st_mtim);
	e.ctime_ns = _ts_ns(&sb.st_ctim);
	e.inserted_ns = e.last_used_ns = now;
	e.hits = 1;
	rc = _meta_write(st, &e); /* the reservation */
	e.path = NULL;
	if (rc) {
		rc = _fail(rep, false, DL_EIO, "%s: cannot write metadata: %s",
			   st->dir, strerror(errno));
		st->trk_ok = false;
		_gbump(st, false);
		_gunlock(st);
		goto out;
	}
	_gbump(st, true);
	_gunlock(st);

	rc = _copy(st, fd, (uint64_t)sb.st_size, path, hash, tmpname,
		   sizeof(tmpname), rep);
	if (rc) {
		_unreserve(st, hash, path);
		goto out;
	}
	_glock(st);
	if (renameat(st->tmp, tmpname, _bucket(st, hash, false), hash) ||
	    fsync(_bucket(st, hash, false)) || _pins_add(st, hash)) {
		rc = _fail(rep, false, DL_EIO, "%s: cannot store %s: %s",
			   st->dir, path, strerror(errno));
		unlinkat(st->tmp, tmpname, 0);
		_gunlock(st);
		_unreserve(st, hash, path);
		goto out;
	}
	_gbump(st, true);
	_gunlock(st);
	rc = _view_add(st, path, hash, rep);
	if (!rc) {
		rep->copied++;
		rep->bytes_copied += (uint64_t)sb.st_size;
	}
out:
	_entry_free(&e);
	close(fd);
	/* a failed file leaves no lock file behind (it is made on demand) */
	_unlock_entry(st, hash, lk, rc != 0);
	return rc;
}

/* Read the '@' list files as the job's user and add their entries. */
static int _read_lists(dl_filelist_t *files, dl_opener_t *op,
		       const dl_stage_job_t *job, dl_stage_report_t *rep)
{
	for (size_t i = 0; i < files->nlists; i++) {
		const char *lp = files->lists[i];
		char perr[512];
		struct stat sb;
		size_t got = 0;
		char *text;
		int fd, err, rc;

		rc = dl_opener_open(op, lp, &fd, &err);
		if (rc == DL_EIO)
			return _fail(rep, false, rc, "the opener process died");
		if (rc)
			return _fail(rep, true, rc,
				     "user %s (uid %u) cannot read list file %s: %s",
				     job->user ? job->user : "?",
				     (unsigned)job->uid, lp, strerror(err));
		if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) ||
		    (size_t)sb.st_size > LIST_MAX) {
			close(fd);
			return _fail(rep, true, DL_EINVAL,
				     "list file %s is not a regular file of at most 64 MiB",
				     lp);
		}
		text = malloc((size_t)sb.st_size + 1);
		if (!text) {
			close(fd);
			return DL_ENOMEM;
		}
		while (got < (size_t)sb.st_size) {
			ssize_t n = read(fd, text + got,
					 (size_t)sb.st_size - got);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			got += (size_t)n;
		}
		close(fd);
		rc = dl_files_parse_list(text, got, files, perr, sizeof(perr));
		free(text);
		if (rc)
			return _fail(rep, true, rc, "list file %s: %s", lp,
				     rc == DL_ENOMEM ? dl_strerror(rc) : perr);
	}
	return 0;
}

int dl_stage_job_fail(dl_stage_t *st, const dl_stage_job_t *job,
		      const char *msg)
{
	char name[32], tmpname[64];
	int fd;

	if (!st || !job || !msg)
		return DL_EINVAL;
	snprintf(name, sizeof(name), "%" PRIu32 ".failed", job->job_id);
	snprintf(tmpname, sizeof(tmpname), "failed.%ld.%u", (long)getpid(),
		 st->seq++);
	fd = openat(st->tmp, tmpname,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0400);
	if (fd < 0)
		return DL_EIO;
	/*
	 * The job's own user reads it, from the TaskProlog: root's file with
	 * an ACL letting that user read it, or, without ACLs, the user's own
	 * (who could then chmod and write it, in their job's last moments).
	 */
	if (_write_all(fd, msg, strlen(msg)) < 0 ||
	    _write_all(fd, "\n", 1) < 0 ||
	    (job->uid != 0 && _set_acl_perm(fd, job->uid, 4, 4) &&
	     (fchown(fd, job->uid, job->gid) || fchmod(fd, 0400))) ||
	    close(fd) || renameat(st->tmp, tmpname, st->jobs, name)) {
		unlinkat(st->tmp, tmpname, 0);
		return DL_EIO;
	}
	return 0;
}

int dl_stage_job(dl_stage_t *st, const dl_stage_job_t *job,
		 dl_filelist_t *files, dl_stage_report_t *rep)
{
	dl_stage_report_t dummy;
	dl_opener_t *op = NULL;
	char name[32], err[512] = "";
	int rc;

	if (!rep)
		rep = &dummy;
	memset(rep, 0, sizeof(*rep));
	if (!st || !job || !files)
		return DL_EINVAL;
	if (!files->count && !files->nlists)
		return 0;
	/* A stale failure note (a requeued job) must not fail this run. */
	snprintf(name, sizeof(name), "%" PRIu32 ".failed", job->job_id);
	unlinkat(st->jobs, name, 0);

	rc = dl_opener_start(job->uid, job->gid, job->user, &op, err,
			     sizeof(err));
	if (rc)
		return _fail(rep, false, rc, "%s", err);
	rc = _read_lists(files, op, job, rep);
	rep->files = files->count;
	if (!rc) {
		snprintf(name, sizeof(name), "%" PRIu32 ".pins", job->job_id);
		st->pinsfd = openat(st->jobs, name,
				    O_WRONLY | O_CREAT | O_TRUNC | O_APPEND |
					    O_NOFOLLOW | O_CLOEXEC,
				    0600);
		if (st->pinsfd < 0)
			rc = _fail(rep, false, DL_EIO, "%s/.jobs/%s: %s",
				   st->dir, name, strerror(errno));
	}
	if (!rc)
		rc = _view_begin(st, job, rep);
	for (size_t i = 0; !rc && i < files->count; i++)
		rc = _stage_file(st, job, op, files->files[i].path, rep);
	dl_opener_stop(op);
	if (!rc && _view_protect(st, st->viewfd))
		rc = _fail(rep, false, DL_EIO,
			   "%s: cannot open the view to uid %u: %s", st->dir,
			   (unsigned)job->uid, strerror(errno));
	_view_close(st);
	if (st->pinsfd >= 0)
		close(st->pinsfd);
	st->pinsfd = -1;
	if (rc) {
		/* leave no trace of the job but the note for its user */
		_view_remove(st, job->job_id);
		_glock(st);
		snprintf(name, sizeof(name), "%" PRIu32 ".pins", job->job_id);
		unlinkat(st->jobs, name, 0);
		_gbump(st, false);
		_gunlock(st);
		if (!rep->msg[0])
			_fail(rep, false, rc, "%s", dl_strerror(rc));
		if (rep->user_fault &&
		    dl_stage_job_fail(st, job, rep->msg))
			_log(st, DL_LOG_ERROR,
			     "%s: cannot write the failure note of job %" PRIu32,
			     st->dir, job->job_id);
	}
	_glock(st);
	if (dl_stage_write_inventory(st))
		_log(st, DL_LOG_ERROR, "%s: cannot write .inventory: %s",
		     st->dir, strerror(errno));
	_gunlock(st);
	return rc;
}

int dl_stage_job_end(dl_stage_t *st, uint32_t job_id, dl_stage_report_t *rep)
{
	char name[32];
	int rc, r;

	if (rep)
		memset(rep, 0, sizeof(*rep));
	if (!st)
		return DL_EINVAL;
	{
		static const char *const sfx[] = {"view", "pins", "failed"};
		struct stat sb;
		bool known = false;

		for (int i = 0; i < 3 && !known; i++) {
			snprintf(name, sizeof(name), "%" PRIu32 ".%s", job_id,
				 sfx[i]);
			known = !fstatat(st->jobs, name, &sb,
					 AT_SYMLINK_NOFOLLOW);
		}
		if (!known)
			return 0;
	}
	rc = _view_remove(st, job_id);
	snprintf(name, sizeof(name), "%" PRIu32 ".failed", job_id);
	unlinkat(st->jobs, name, 0);
	_glock(st);
	snprintf(name, sizeof(name), "%" PRIu32 ".pins", job_id);
	if (unlinkat(st->jobs, name, 0) && errno != ENOENT && !rc)
		rc = DL_EIO;
	_gbump(st, false);
	/* Evict down to a capacity that was lowered since. */
	r = _ensure_tracker(st);
	if (!r && dl_cache_used(st->trk, 0) > st->capacity) {
		st->nvict = 0;
		dl_cache_trim(st->trk, 0, _victim_cb, st);
		_evict_victims(st, rep);
		_gbump(st, true);
	}
	if (!r)
		r = dl_stage_write_inventory(st);
	_gunlock(st);
	return rc ? rc : r;
}

int dl_stage_evict_to(dl_stage_t *st, uint64_t bytes, dl_stage_report_t *rep)
{
	int rc;

	if (rep)
		memset(rep, 0, sizeof(*rep));
	if (!st)
		return DL_EINVAL;
	_glock(st);
	rc = _ensure_tracker(st);
	if (!rc) {
		st->nvict = 0;
		dl_cache_set_capacity(st->trk, 0, bytes);
		rc = dl_cache_trim(st->trk, 0, _victim_cb, st);
		if (rc == DL_ENOSPC) {
			/* pinned files stay: evict everything else */
			dl_cache_set_capacity(st->trk, 0,
					      dl_cache_pinned(st->trk, 0));
			dl_cache_trim(st->trk, 0, _victim_cb, st);
		}
		dl_cache_set_capacity(st->trk, 0, st->capacity);
		_evict_victims(st, rep);
		_gbump(st, true);
		if (dl_stage_write_inventory(st) && !rc)
			rc = DL_EIO;
	}
	_gunlock(st);
	return rc;
}

/* ------------------------------------------------------------------ */
/* listing and inventory                                               */

static int _cmp_entry_path(const void *a, const void *b)
{
	return strcmp(((const dl_stage_entry_t *)a)->path,
		      ((const dl_stage_entry_t *)b)->path);
}

/* Entries sorted by path, with pin counts; the global lock is held. */
static int _listing(dl_stage_t *st, entries_t *es, uint64_t *used)
{
	int rc = _scan(st, false, es);

	if (rc)
		return rc;
	_count_pins(st, es);
	if (es->n)
		qsort(es->v, es->n, sizeof(*es->v), _cmp_entry_path);
	if (used) {
		*used = 0;
		for (size_t i = 0; i < es->n; i++)
			if (es->v[i].complete)
				*used += es->v[i].size;
	}
	return 0;
}

int dl_stage_foreach(dl_stage_t *st,
		     int (*fn)(const dl_stage_entry_t *e, void *arg),
		     void *arg, uint64_t *used)
{
	entries_t es;
	bool held;
	int rc;

	if (!st || !fn)
		return DL_EINVAL;
	held = st->glocked;
	if (!held)
		_glock(st);
	rc = _listing(st, &es, used);
	if (!held)
		_gunlock(st);
	for (size_t i = 0; !rc && i < es.n; i++)
		rc = fn(&es.v[i], arg);
	_entries_free(&es);
	return rc;
}

int dl_stage_write_inventory(dl_stage_t *st)
{
	char tmpname[64];
	entries_t es;
	uint64_t used;
	size_t files = 0;
	bool held;
	FILE *f;
	int fd, rc;

	if (!st)
		return DL_EINVAL;
	held = st->glocked;
	if (!held)
		_glock(st);
	rc = _listing(st, &es, &used);
	if (rc)
		goto out;
	snprintf(tmpname, sizeof(tmpname), "inventory.%ld.%u", (long)getpid(),
		 st->seq++);
	fd = openat(st->tmp, tmpname,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		if (fd >= 0)
			close(fd);
		rc = DL_EIO;
		goto out_free;
	}
	for (size_t i = 0; i < es.n; i++)
		files += es.v[i].complete;
	fprintf(f, "# dl-stage inventory 1 node=%s capacity=", st->node);
	if (st->capacity == DL_CACHE_UNLIMITED)
		fprintf(f, "unlimited");
	else
		fprintf(f, "%" PRIu64, st->capacity);
	fprintf(f, " used=%" PRIu64 " files=%zu time=%lld\n", used, files,
		(long long)time(NULL));
	for (size_t i = 0; i < es.n; i++)
		if (es.v[i].complete)
			fprintf(f, "%s %" PRIu64 "\n", es.v[i].path,
				es.v[i].size);
	if (fflush(f) || fchmod(fileno(f), 0644) || fsync(fileno(f)))
		rc = DL_EIO;
	if (fclose(f) && !rc)
		rc = DL_EIO;
	if (!rc && renameat(st->tmp, tmpname, st->dfd, ".inventory"))
		rc = DL_EIO;
	if (rc)
		unlinkat(st->tmp, tmpname, 0);
out_free:
	_entries_free(&es);
out:
	if (!held)
		_gunlock(st);
	return rc;
}

int dl_stage_log_line(dl_stage_t *st, const char *line)
{
	struct stat sb;
	int fd, rc = 0;

	if (!st || !line)
		return DL_EINVAL;
	fd = openat(st->dfd, ".log",
		    O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC,
		    0600);
	if (fd < 0)
		return DL_EIO;
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) || sb.st_uid != st->euid) {
		close(fd);
		return DL_EIO;
	}
	if (_write_all(fd, line, strlen(line)) < 0 ||
	    _write_all(fd, "\n", 1) < 0)
		rc = DL_EIO;
	/* Rotation races are harmless: at worst a line lands in .log.1. */
	if (sb.st_size > LOG_ROTATE)
		renameat(st->dfd, ".log", st->dfd, ".log.1");
	close(fd);
	return rc;
}
