/*
 * stage_file.c - staging one file of a job: a hit (the store holds this
 * version of it), a copy into the store, or the source itself.
 *
 * Like data diffusion (data-diffusion-raicu) we assume inputs are not
 * modified in place, but we do not rely on it: a cached copy is used only
 * if the source still has the identity (device, inode, size, mtime,
 * ctime) it had when copied.  ctime cannot be set by users, so a rewritten
 * file is copied again, except where timestamps are too coarse to tell: a
 * same-size rewrite within the same second on a file system that keeps
 * whole seconds.  So a copy taken within DL__GRANULARITY_NS of the
 * source's last change also records the SHA-256 of its content, and a hit
 * on it compares the source's content with it first, until a check long
 * enough after the change lets the times vouch for the copy again.  Other
 * copies are not hashed: a later change of their source falls in a later
 * tick, and hashing every byte copied would halve the copying speed.
 *
 * The cache's file system may be full in spite of the charges (other
 * files on it, a capacity set too high): then a file is read from its
 * source (a symbolic link in the view) instead of failing anything, and
 * DL_ENOSPC goes up only when even the view cannot take that link.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dl_error.h"
#include "opener.h"
#include "stage_int.h"

#define COPY_BUF ((size_t)1 << 20)

/* What one step decided, besides errors (negative DL_E* codes). */
enum { SERVED = 1, MISS = 2, NO_ROOM = 3, NO_SPACE = 4 };

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
	server = (unsigned)strtoul((char[]){hash[0], hash[1], 0}, NULL, 16) %
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

/* A failed write to the cache: the file system is full, or it fails. */
static int _write_err(dl_stage_t *st, int e, dl_stage_report_t *rep)
{
	if (dl__nospace(e))
		return DL_ENOSPC;
	return dl__stage_fail(rep, false, DL_EIO, "cannot write to %s/.tmp: %s",
			      st->dir, strerror(e));
}

/*
 * Copy size bytes from src to out and, if sha is not NULL, hash them.
 * \return 0 or an error.
 */
static int _copy_data(dl_stage_t *st, int src, int out, uint64_t size,
		      const char *path, const char *hash, char *sha,
		      dl_stage_report_t *rep)
{
	char *buf = malloc(COPY_BUF);
	uint64_t left = size;
	dl_sha256_ctx_t c;
	struct timespec t0;
	int rc = 0, emu;

	if (!buf)
		return DL_ENOMEM;
	dl_sha256_init(&c);
	posix_fadvise(src, 0, 0, POSIX_FADV_SEQUENTIAL);
	emu = _emu_begin(st, hash, &t0);
	while (left && !rc) {
		size_t want = left < COPY_BUF ? (size_t)left : COPY_BUF;
		ssize_t n = read(src, buf, want);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			rc = dl__stage_fail(rep, true, DL_EIO,
					    "cannot read %s: %s", path,
					    strerror(errno));
		else if (n == 0)
			rc = dl__stage_fail(rep, true, DL_EIO,
					    "%s shrank while it was copied",
					    path);
		else if (dl__write_all(out, buf, (size_t)n) < 0)
			rc = _write_err(st, errno, rep);
		else if (sha)
			dl_sha256_update(&c, buf, (size_t)n);
		if (n > 0 && !rc)
			left -= (uint64_t)n;
		if (emu >= 0)
			_emu_pace(st, size - left, &t0);
	}
	if (emu >= 0)
		close(emu); /* releases the server's lock */
	free(buf);
	if (!rc && sha)
		dl_sha256_final_hex(&c, sha);
	return rc;
}

static int _hash_fd(int fd, uint64_t size, char *sha);

/*
 * Whether a peer's copy (digest sha, known to be its source's content at
 * verified, 0 if not known) is the version of the source the job sees
 * now: as for a local hit, the times vouch for it unless the source last
 * changed within DL__GRANULARITY_NS of verified (a same-size rewrite in
 * the same timestamp tick looks the same); then the source's content is
 * hashed and compared.  A stale copy is never kept, nor passed on.
 */
static bool _peer_current(dl_stage_t *st, int src, const struct stat *sb,
			  const char *path, const char *sha, int64_t verified,
			  dl_stage_report_t *rep)
{
	int64_t m = dl__ts_ns(&sb->st_mtim), c = dl__ts_ns(&sb->st_ctim);
	int64_t changed = m > c ? m : c;
	char mine[DL_SHA256_HEX_LEN];

	if (changed <= INT64_MAX - DL__GRANULARITY_NS &&
	    changed + DL__GRANULARITY_NS <= verified)
		return true;
	rep->verified++;
	if (!_hash_fd(src, (uint64_t)sb->st_size, mine) && !strcmp(mine, sha))
		return true;
	dl__stage_log(st, DL_LOG_INFO,
		      "%s: a peer's copy is of another version of it (changed within the timestamps' granularity): copied from storage",
		      path);
	return false;
}

/* Microseconds of CLOCK_MONOTONIC since *t0 (0 if the clock failed). */
static uint64_t _us_since(const struct timespec *t0)
{
	struct timespec t;
	int64_t us;

	if (clock_gettime(CLOCK_MONOTONIC, &t))
		return 0;
	us = (int64_t)(t.tv_sec - t0->tv_sec) * 1000000 +
	     (t.tv_nsec - t0->tv_nsec) / 1000;
	return us > 0 ? (uint64_t)us : 0;
}

/*
 * Copy size bytes of src into a new file in .tmp, fsync it, make it 0444.
 * OUT tmpname - its name in .tmp
 * OUT sha - if not NULL, the SHA-256 of what was copied
 * OUT us - microseconds the copy that succeeded took, from its source's
 *          first byte to the fsync (a failed peer attempt not included)
 * \return 0, DL_ENOSPC (the file system is full: rep untouched), or an
 *         error with rep filled.
 */
static int _copy(dl_stage_t *st, int src, const struct stat *sb,
		 const char *path, const char *hash, char *tmpname,
		 size_t tlen, char *sha, bool *from_peer, uint64_t *us,
		 dl_stage_report_t *rep)
{
	uint64_t size = (uint64_t)sb->st_size;
	char psha[DL_SHA256_HEX_LEN];
	struct timespec t0;
	int64_t pver = 0;
	int out, rc = -1;

	*us = 0;

	snprintf(tmpname, tlen, "%s.%ld.%u", hash, (long)getpid(), st->seq++);
	out = openat(st->tmp, tmpname,
		     O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		     0400);
	if (out < 0)
		return dl__nospace(errno)
			       ? DL_ENOSPC
			       : dl__stage_fail(rep, false, DL_EIO,
						"%s/.tmp/%s: %s", st->dir,
						tmpname, strerror(errno));
	/* Another source first (a peer); any doubt and storage it is. */
	*from_peer = false;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (st->fetch && st->cur_job)
		rc = st->fetch(st->fetch_arg, st->cur_job, path, sb, out, psha,
			       &pver);
	if (!rc && !_peer_current(st, src, sb, path, psha, pver, rep))
		rc = -1;
	if (!rc) {
		*from_peer = true;
		if (sha)
			memcpy(sha, psha, DL_SHA256_HEX_LEN);
	} else if (st->fetch && (ftruncate(out, 0) ||
				 lseek(out, 0, SEEK_SET))) {
		rc = _write_err(st, errno, rep);
	} else {
		clock_gettime(CLOCK_MONOTONIC, &t0); /* the storage copy's */
		rc = _copy_data(st, src, out, size, path, hash, sha, rep);
	}
	if (!rc && (fsync(out) || fchmod(out, 0444)))
		rc = _write_err(st, errno, rep);
	if (!rc)
		*us = _us_since(&t0);
	if (close(out) && !rc)
		rc = _write_err(st, errno, rep);
	if (rc)
		unlinkat(st->tmp, tmpname, 0);
	return rc;
}

/* The SHA-256 of size bytes of fd from its start (the position stays). */
static int _hash_fd(int fd, uint64_t size, char *sha)
{
	char *buf = malloc(COPY_BUF);
	dl_sha256_ctx_t c;
	uint64_t off = 0;

	if (!buf)
		return DL_ENOMEM;
	dl_sha256_init(&c);
	while (off < size) {
		size_t want = size - off < COPY_BUF ? (size_t)(size - off)
						    : COPY_BUF;
		ssize_t n = pread(fd, buf, want, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		dl_sha256_update(&c, buf, (size_t)n);
		off += (uint64_t)n;
	}
	free(buf);
	if (off != size)
		return DL_EIO;
	dl_sha256_final_hex(&c, sha);
	return 0;
}

/* The source is the version the store holds, as far as its stat tells. */
static bool _same_version(const dl_stage_entry_t *e, const struct stat *sb,
			  const char *path)
{
	return e->size == (uint64_t)sb->st_size &&
	       e->dev == (uint64_t)sb->st_dev &&
	       e->ino == (uint64_t)sb->st_ino &&
	       e->mtime_ns == dl__ts_ns(&sb->st_mtim) &&
	       e->ctime_ns == dl__ts_ns(&sb->st_ctim) && !strcmp(e->path, path);
}

/* When the source last changed, by its times. */
static int64_t _changed_ns(const dl_stage_entry_t *e)
{
	return e->mtime_ns > e->ctime_ns ? e->mtime_ns : e->ctime_ns;
}

/*
 * Whether times cannot vouch for the copy: it was taken (or last checked)
 * so soon after the source's last change that a rewrite in the same
 * timestamp tick would look the same.
 */
static bool _needs_check(const dl_stage_entry_t *e)
{
	return _changed_ns(e) > INT64_MAX - DL__GRANULARITY_NS ||
	       _changed_ns(e) + DL__GRANULARITY_NS > e->verified_ns;
}

/*
 * Compare the source's content with the copy's, without the global lock
 * (reading takes time); then re-read the entry under it.
 * \return true if the entry is still this version and the content the same.
 */
static bool _check_content(dl_stage_t *st, int fd, const struct stat *sb,
			   const char *path, const char *hash,
			   dl_stage_entry_t *e, dl_stage_report_t *rep)
{
	char sha[DL_SHA256_HEX_LEN] = "", want[DL_SHA256_HEX_LEN];
	int64_t t0 = dl__now_ns(), inserted = e->inserted_ns;
	bool same;

	snprintf(want, sizeof(want), "%s", e->sha);
	dl__gunlock(st);
	same = want[0] && !_hash_fd(fd, (uint64_t)sb->st_size, sha) &&
	       !strcmp(sha, want);
	dl__glock(st);
	dl__entry_free(e);
	if (dl__entry_get(st, hash, e) != DL__COMPLETE ||
	    e->inserted_ns != inserted || !_same_version(e, sb, path) ||
	    strcmp(e->sha, want))
		return false;
	rep->verified++;
	if (same && t0 - DL__GRANULARITY_NS >= _changed_ns(e))
		e->verified_ns = t0; /* from now on the times tell */
	if (!same)
		dl__stage_log(st, DL_LOG_INFO,
			      "%s changed without changing its times: copied again",
			      path);
	return same;
}

/* Count a use and pin e in the tracker, if it is exact. */
static void _track_hit(dl_stage_t *st, const char *path, int64_t now)
{
	int64_t id;

	if (!st->trk_ok || st->trk_gen != st->gen)
		return;
	id = dl_cache_file_lookup(st->trk, path);
	if (id < 0 ||
	    dl_cache_access(st->trk, 0, (uint32_t)id, (uint64_t)now) ||
	    dl_cache_pin(st->trk, 0, (uint32_t)id))
		st->trk_ok = false;
}

/*
 * A hit, under the global lock (released on return): pin the entry for
 * the job, count the use, link it into the view.
 */
static int _serve_hit(dl_stage_t *st, dl_stage_entry_t *e, const char *path,
		      bool waited, dl_stage_report_t *rep)
{
	int64_t now = dl__now_ns();
	int rc = dl__pins_add(st, e->hash);

	if (rc) {
		int err = errno;

		dl__gunlock(st);
		if (dl__nospace(err))
			return NO_SPACE;
		return dl__stage_fail(rep, false, rc, "%s/.jobs: %s", st->dir,
				      strerror(err));
	}
	e->hits++;
	e->last_used_ns = now;
	/* Only bookkeeping: the hit does not depend on it. */
	if (dl__meta_write(st, e) && !dl__nospace(errno))
		dl__stage_log(st, DL_LOG_ERROR, "%s: cannot update %s.meta: %s",
			      st->dir, e->hash, strerror(errno));
	_track_hit(st, path, now);
	dl__gbump(st, true);
	dl__gunlock(st);
	rc = dl__view_add(st, path, e->hash, rep);
	if (rc == DL_ENOSPC)
		return NO_SPACE;
	if (rc)
		return rc;
	rep->hits++;
	rep->waited += waited;
	rep->bytes_hit += e->size;
	return SERVED;
}

/*
 * Look for this version of the file in the store.  An older version, or a
 * copy whose copier died, is removed (jobs that use it keep their hard
 * link to it).  \return SERVED, MISS, NO_SPACE or an error.
 */
static int _try_hit(dl_stage_t *st, int fd, const struct stat *sb,
		    const char *path, const char *hash, bool waited,
		    dl_stage_report_t *rep)
{
	dl_stage_entry_t e;
	int state, rc = MISS;

	dl__glock(st);
	state = dl__entry_get(st, hash, &e);
	if (state == DL__COMPLETE && _same_version(&e, sb, path) &&
	    (!_needs_check(&e) ||
	     _check_content(st, fd, sb, path, hash, &e, rep))) {
		rc = _serve_hit(st, &e, path, waited, rep);
		dl__entry_free(&e);
		return rc;
	}
	if (state != DL__ABSENT) {
		dl__entry_remove(st, hash, false);
		st->trk_ok = false;
		dl__gbump(st, false);
	}
	dl__gunlock(st);
	dl__entry_free(&e);
	return rc;
}

/* Undo a reservation whose copy failed. */
static void _unreserve(dl_stage_t *st, const char *hash, const char *path)
{
	dl__glock(st);
	dl__entry_remove(st, hash, false);
	if (st->trk_ok && st->trk_gen == st->gen) {
		int64_t id = dl_cache_file_lookup(st->trk, path);

		if (id < 0 || dl_cache_unpin(st->trk, 0, (uint32_t)id) ||
		    dl_cache_remove(st->trk, 0, (uint32_t)id))
			st->trk_ok = false;
	}
	dl__gbump(st, true);
	dl__gunlock(st);
}

/*
 * Under the global lock: make room for path (charge bytes), insert it in
 * the tracker pinned, evict the victims, and write the reservation (its
 * .meta without data).  The lock is released on return.
 * \return 0, NO_ROOM (it cannot fit), NO_SPACE, or an error.
 */
static int _reserve(dl_stage_t *st, const dl_stage_job_t *job,
		    dl_stage_entry_t *e, dl_stage_report_t *rep)
{
	int64_t id;
	int rc;

	dl__glock(st);
	rc = dl__ensure_tracker(st);
	id = rc ? rc : dl_cache_file_intern(st->trk, e->path, e->charge);
	if (id >= 0 && dl_cache_file_size(st->trk, (uint32_t)id) != e->charge)
		dl_cache_file_set_size(st->trk, (uint32_t)id, e->charge);
	st->nvict = 0;
	rc = id < 0 ? (int)id : dl__stage_make_room(st, job->uid, e->charge);
	if (!rc)
		rc = dl_cache_insert(st->trk, 0, (uint32_t)id,
				     (uint64_t)e->inserted_ns, dl__victim_cb,
				     st);
	if (rc == DL_ENOSPC) {
		st->nvict = 0;
		dl__gunlock(st);
		return NO_ROOM;
	}
	if (!rc)
		rc = dl_cache_pin(st->trk, 0, (uint32_t)id);
	if (!rc)
		rc = dl__set_owner(st, (uint32_t)id, job->uid);
	if (rc) {
		st->trk_ok = false;
		st->nvict = 0;
		dl__gunlock(st);
		return dl__stage_fail(rep, false, rc, "cache tracker: %s",
				      dl_strerror(rc));
	}
	dl__evict_victims(st, rep);
	if (dl__meta_write(st, e)) {
		int err = errno;

		st->trk_ok = false;
		dl__gbump(st, false);
		dl__gunlock(st);
		if (dl__nospace(err))
			return NO_SPACE;
		return dl__stage_fail(rep, false, DL_EIO,
				      "%s: cannot write metadata: %s", st->dir,
				      strerror(err));
	}
	dl__gbump(st, true);
	dl__gunlock(st);
	return 0;
}

/* Move the copy into the store and pin it for the job. */
static int _store(dl_stage_t *st, dl_stage_entry_t *e, const char *tmpname,
		  bool from_peer, dl_stage_report_t *rep)
{
	int bfd, err;

	dl__glock(st);
	bfd = dl__bucket(st, e->hash, false);
	if (!renameat(st->tmp, tmpname, bfd, e->hash) && !fsync(bfd) &&
	    !dl__pins_add(st, e->hash)) {
		/* the digest; without it the copy is merely checked again */
		if (dl__meta_write(st, e) && !dl__nospace(errno))
			dl__stage_log(st, DL_LOG_ERROR,
				      "%s: cannot update %s.meta: %s",
				      st->dir, e->hash, strerror(errno));
		dl__bytes_add(st, from_peer ? 0 : e->size,
			      from_peer ? e->size : 0);
		dl__gbump(st, true);
		dl__gunlock(st);
		return 0;
	}
	err = errno;
	unlinkat(st->tmp, tmpname, 0);
	dl__gunlock(st);
	_unreserve(st, e->hash, e->path);
	if (dl__nospace(err))
		return NO_SPACE;
	return dl__stage_fail(rep, false, DL_EIO, "%s: cannot store %s: %s",
			      st->dir, e->path, strerror(err));
}

/* A miss: reserve, copy, store, link.  \return SERVED, NO_*, an error. */
static int _copy_in(dl_stage_t *st, const dl_stage_job_t *job, int fd,
		    const struct stat *sb, const char *path, const char *hash,
		    dl_stage_report_t *rep)
{
	char tmpname[DL_SHA256_HEX_LEN + 32];
	dl_stage_entry_t e = {0};
	bool from_peer = false;
	uint64_t us = 0;
	int rc;

	memcpy(e.hash, hash, DL_SHA256_HEX_LEN);
	e.path = (char *)path;
	e.size = (uint64_t)sb->st_size;
	e.charge = dl__charge(st, e.size);
	e.dev = (uint64_t)sb->st_dev;
	e.ino = (uint64_t)sb->st_ino;
	e.mtime_ns = dl__ts_ns(&sb->st_mtim);
	e.ctime_ns = dl__ts_ns(&sb->st_ctim);
	e.inserted_ns = e.last_used_ns = e.verified_ns = dl__now_ns();
	e.hits = 1;
	e.owner = job->uid;
	rc = _reserve(st, job, &e, rep);
	if (rc)
		return rc;
	/* with a fetch source, every copy's digest is kept: peers ask */
	rc = _copy(st, fd, sb, path, hash, tmpname, sizeof(tmpname),
		   st->fetch || _needs_check(&e) ? e.sha : NULL, &from_peer,
		   &us, rep);
	if (rc) {
		_unreserve(st, hash, path);
		return rc == DL_ENOSPC ? NO_SPACE : rc;
	}
	rc = _store(st, &e, tmpname, from_peer, rep);
	if (rc)
		return rc;
	rc = dl__view_add(st, path, hash, rep);
	if (rc)
		return rc == DL_ENOSPC ? NO_SPACE : rc;
	rep->copied++;
	rep->bytes_copied += e.size;
	if (from_peer) {
		rep->from_peers++;
		rep->bytes_peer += e.size;
		rep->us_peer += us;
	} else {
		rep->us_storage += us;
	}
	return SERVED;
}

/* The job reads path from its source: a symbolic link in the view. */
static int _from_source(dl_stage_t *st, const dl_stage_job_t *job,
			const char *path, uint64_t size, int why,
			dl_stage_report_t *rep)
{
	int rc = dl__view_add(st, path, NULL, rep);

	if (rc)
		return rc; /* DL_ENOSPC: not even a link fits */
	rep->uncached++;
	rep->bytes_uncached += size;
	if (why == NO_SPACE)
		rep->nospace++;
	dl__stage_log(st, why == NO_SPACE ? DL_LOG_DEBUG : DL_LOG_INFO,
		      "%s (%" PRIu64 " bytes) %s: job %" PRIu32
		      " reads it from its source",
		      path, size,
		      why == NO_SPACE ? "finds the cache's file system full"
				      : "does not fit in the cache",
		      job->job_id);
	return 0;
}

/* Open the source as the job's user; \return 0 or a fault of the job. */
static int _open_source(const dl_stage_job_t *job, dl_opener_t *op,
			const char *path, int *fd, struct stat *sb,
			dl_stage_report_t *rep)
{
	int err, rc = dl_opener_open(op, path, fd, &err);

	if (rc == DL_ETIMEDOUT)
		return dl__helper_failed(job, dl_opener_failure(op), rep);
	if (rc)
		return dl__stage_fail(rep, true, rc,
				      "user %s (uid %u) cannot read %s: %s",
				      job->user ? job->user : "?",
				      (unsigned)job->uid, path, strerror(err));
	if (fstat(*fd, sb) || !S_ISREG(sb->st_mode)) {
		close(*fd);
		return dl__stage_fail(rep, true, DL_EINVAL,
				      "%s is not a regular file", path);
	}
	return 0;
}

/*
 * Stage one file for the job.  \return 0, DL_ENOSPC if not even its view
 * can be written (the caller gives the job no view), or a failure with
 * rep filled.
 */
int dl__stage_file(dl_stage_t *st, const dl_stage_job_t *job,
		   dl_opener_t *op, const char *path,
		   dl_stage_report_t *rep)
{
	char hash[DL_SHA256_HEX_LEN];
	struct stat sb;
	bool waited = false;
	int fd, lk, rc;

	rc = _open_source(job, op, path, &fd, &sb, rep);
	if (rc)
		return rc;
	dl_sha256_hex(path, strlen(path), hash);
	lk = dl__lock_entry(st, hash, true, true);
	if (lk == -EWOULDBLOCK) {
		waited = true; /* another job is copying it: wait */
		lk = dl__lock_entry(st, hash, false, true);
	}
	if (lk < 0)
		rc = dl__nospace(-lk) ? NO_SPACE
				      : dl__stage_fail(rep, false, DL_EIO,
						       "%s/.locks/%s: %s",
						       st->dir, hash,
						       strerror(-lk));
	else
		rc = _try_hit(st, fd, &sb, path, hash, waited, rep);
	if (rc == MISS)
		rc = _copy_in(st, job, fd, &sb, path, hash, rep);
	if (rc == NO_ROOM || rc == NO_SPACE)
		rc = _from_source(st, job, path, (uint64_t)sb.st_size, rc,
				  rep);
	close(fd);
	/* Lock files are made on demand: none is kept, to spare inodes. */
	dl__unlock_entry(st, hash, lk, true);
	return rc == SERVED ? 0 : rc;
}
