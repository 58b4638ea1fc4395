/*
 * store.c - the store's entries: a data file and its .meta under
 * store/xx/, read strictly (a .meta that is not exactly what dl-stage
 * writes is corrupt, and its entry is removed), scanned, listed, and
 * summed up in the inventory; and the cache's log.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dl_error.h"
#include "stage_int.h"

#define LOG_ROTATE ((off_t)1 << 20)

int dl__bucket(dl_stage_t *st, const char *hash, bool create)
{
	int i = dl__hexval(hash[0]) * 16 + dl__hexval(hash[1]);
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

void dl__entry_free(dl_stage_entry_t *e)
{
	free(e->path);
	e->path = NULL;
}

/*
 * One field of a .meta: a canonical decimal number (no sign, no leading
 * zero but "0"; for a signed one an optional '-') followed by one blank.
 * \return the next field, or NULL if this one is not exactly that.
 */
static const char *_num(const char *p, bool sign, uint64_t *v, bool *neg)
{
	const char *d = p + (sign && *p == '-');
	uint64_t x = 0;
	size_t n = strspn(d, "0123456789");

	if (!n || n > 20 || (n > 1 && *d == '0') || d[n] != ' ')
		return NULL;
	for (size_t i = 0; i < n; i++) {
		uint64_t digit = (uint64_t)(d[i] - '0');

		if (x > (UINT64_MAX - digit) / 10)
			return NULL;
		x = x * 10 + digit;
	}
	if (sign && x > INT64_MAX)
		return NULL;
	*v = x;
	if (neg)
		*neg = d != p;
	return d + n + 1;
}

static const char *_i64(const char *p, int64_t *v)
{
	uint64_t x;
	bool neg;

	p = _num(p, true, &x, &neg);
	if (p)
		*v = neg ? -(int64_t)x : (int64_t)x;
	return p;
}

/* The fields after the version, for version 2 (v2) or 1. */
static const char *_meta_fields(const char *p, bool v2, dl_stage_entry_t *e)
{
	uint64_t owner = DL__NO_OWNER;

	if (!(p = _num(p, false, &e->size, NULL)) ||
	    !(p = _num(p, false, &e->dev, NULL)) ||
	    !(p = _num(p, false, &e->ino, NULL)) ||
	    !(p = _i64(p, &e->mtime_ns)) || !(p = _i64(p, &e->ctime_ns)) ||
	    !(p = _i64(p, &e->inserted_ns)) ||
	    !(p = _i64(p, &e->last_used_ns)) ||
	    !(p = _num(p, false, &e->hits, NULL)))
		return NULL;
	e->verified_ns = e->inserted_ns;
	e->owner = DL__NO_OWNER;
	e->sha[0] = '\0';
	if (!v2)
		return p;
	if (!(p = _num(p, false, &owner, NULL)) || owner > UINT32_MAX ||
	    !(p = _i64(p, &e->verified_ns)))
		return NULL;
	e->owner = (uid_t)owner;
	if (!strncmp(p, "- ", 2))
		return p + 2;
	if (!dl__is_hex(p, 64) || p[64] != ' ')
		return NULL;
	memcpy(e->sha, p, 64);
	e->sha[64] = '\0';
	return p + 65;
}

/*
 * Parse a .meta, strictly: one line, exactly the fields dl-stage writes,
 * then the source path, whose SHA-256 must be hash.  Version 1 (before
 * owners and content digests) is read too.
 * IN buf, len - the file's bytes (NUL-terminated at len)
 * \return 0, DL_EFORMAT, DL_ENOMEM.
 */
int dl__meta_parse(const char *buf, size_t len, const char *hash,
		   dl_stage_entry_t *e)
{
	char check[DL_SHA256_HEX_LEN];
	const char *p = buf, *path;
	size_t plen;

	memset(e, 0, sizeof(*e));
	if (len < 4 || strlen(buf) != len || buf[len - 1] != '\n')
		return DL_EFORMAT;
	if (!strncmp(p, "2 ", 2))
		p = _meta_fields(p + 2, true, e);
	else if (!strncmp(p, "1 ", 2))
		p = _meta_fields(p + 2, false, e);
	else
		p = NULL;
	if (!p || *p != '/')
		return DL_EFORMAT;
	path = p;
	plen = (size_t)(buf + len - 1 - path);
	for (size_t i = 0; i < plen; i++)
		if ((unsigned char)path[i] <= ' ' || path[i] == 0x7f)
			return DL_EFORMAT;
	dl_sha256_hex(path, plen, check);
	if (strcmp(check, hash))
		return DL_EFORMAT;
	e->path = strndup(path, plen);
	if (!e->path)
		return DL_ENOMEM;
	memcpy(e->hash, hash, DL_SHA256_HEX_LEN);
	return 0;
}

/*
 * Read hash's .meta into e.
 * \return 0, DL_ENOENT, DL_EFORMAT (unreadable, foreign or not ours).
 */
static int _meta_read(dl_stage_t *st, int bfd, const char *hash,
		      dl_stage_entry_t *e)
{
	char name[DL_SHA256_HEX_LEN + 8], buf[DL__META_MAX + 1];
	struct stat sb;
	ssize_t n;
	int fd, rc;

	memset(e, 0, sizeof(*e));
	snprintf(name, sizeof(name), "%s.meta", hash);
	fd = openat(bfd, name,
		    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? DL_ENOENT : DL_EFORMAT;
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) ||
	    sb.st_uid != st->euid || sb.st_size > DL__META_MAX) {
		close(fd);
		return DL_EFORMAT;
	}
	n = read(fd, buf, DL__META_MAX);
	close(fd);
	if (n <= 0 || n != sb.st_size)
		return DL_EFORMAT;
	buf[n] = '\0';
	rc = dl__meta_parse(buf, (size_t)n, hash, e);
	if (!rc)
		e->charge = dl__charge(st, e->size);
	return rc;
}

/* Write e's .meta atomically (temporary file, fsync, rename). */
int dl__meta_write(dl_stage_t *st, const dl_stage_entry_t *e)
{
	char tmpname[DL_SHA256_HEX_LEN + 48], name[DL_SHA256_HEX_LEN + 8];
	char buf[DL__META_MAX + 1];
	int bfd = dl__bucket(st, e->hash, true), fd, n;

	if (bfd < 0)
		return DL_EIO;
	n = snprintf(buf, sizeof(buf),
		     "%d %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRId64
		     " %" PRId64 " %" PRId64 " %" PRId64 " %" PRIu64
		     " %" PRIu64 " %" PRId64 " %s %s\n",
		     DL__META_VERSION, e->size, e->dev, e->ino, e->mtime_ns,
		     e->ctime_ns, e->inserted_ns, e->last_used_ns, e->hits,
		     (uint64_t)e->owner, e->verified_ns,
		     e->sha[0] ? e->sha : "-", e->path);
	if (n < 0 || n >= (int)sizeof(buf))
		return DL_EINVAL;
	snprintf(tmpname, sizeof(tmpname), "%s.meta.%ld.%u", e->hash,
		 (long)getpid(), st->seq++);
	snprintf(name, sizeof(name), "%s.meta", e->hash);
	fd = openat(st->tmp, tmpname,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return DL_EIO;
	if (dl__write_all(fd, buf, (size_t)n) < 0 || fsync(fd) ||
	    close(fd) || renameat(st->tmp, tmpname, bfd, name)) {
		int e2 = errno;

		unlinkat(st->tmp, tmpname, 0);
		errno = e2;
		return DL_EIO;
	}
	return 0;
}

/* Remove an entry's data and metadata (and its lock file, if free). */
void dl__entry_remove(dl_stage_t *st, const char *hash, bool drop_lock)
{
	char name[DL_SHA256_HEX_LEN + 8];
	int bfd = dl__bucket(st, hash, false);

	if (bfd >= 0) {
		unlinkat(bfd, hash, 0); /* data first: see dl__scan() */
		snprintf(name, sizeof(name), "%s.meta", hash);
		unlinkat(bfd, name, 0);
	}
	if (drop_lock)
		dl__entry_busy(st, hash, true);
}

/*
 * The state of one entry, under the global lock.  A data file that is not
 * a regular file of ours with the recorded size (a planted symbolic link,
 * a truncated file) is removed, never followed.
 * OUT e - the metadata (for DL__COMPLETE and DL__RESERVED)
 */
int dl__entry_get(dl_stage_t *st, const char *hash, dl_stage_entry_t *e)
{
	int bfd = dl__bucket(st, hash, false);
	struct stat sb;
	int rc;

	memset(e, 0, sizeof(*e));
	if (bfd < 0)
		return DL__ABSENT;
	rc = _meta_read(st, bfd, hash, e);
	if (rc == DL_EFORMAT) {
		dl__stage_log(st, DL_LOG_ERROR,
			      "%s: removing corrupt entry store/%.2s/%s",
			      st->dir, hash, hash);
		dl__entry_remove(st, hash, false);
		return DL__ABSENT;
	}
	if (rc) {
		/* no metadata: any data file is a left-over */
		unlinkat(bfd, hash, 0);
		return DL__ABSENT;
	}
	if (fstatat(bfd, hash, &sb, AT_SYMLINK_NOFOLLOW))
		return DL__RESERVED;
	if (!S_ISREG(sb.st_mode) || sb.st_uid != st->euid ||
	    (uint64_t)sb.st_size != e->size) {
		dl__stage_log(st, DL_LOG_ERROR,
			      "%s: store/%.2s/%s is not the file recorded (%s), removed",
			      st->dir, hash, hash,
			      S_ISLNK(sb.st_mode) ? "a symbolic link"
						  : "wrong type, owner or size");
		unlinkat(bfd, hash, 0);
		return DL__RESERVED;
	}
	return DL__COMPLETE;
}

/* ------------------------------------------------------------------ */
/* scanning                                                            */

typedef struct {
	char hash[DL_SHA256_HEX_LEN];
	bool meta, data;
} scan_name_t;

typedef struct {
	scan_name_t *v;
	size_t n, cap;
} names_t;

void dl__entries_free(dl__entries_t *es)
{
	for (size_t i = 0; i < es->n; i++)
		dl__entry_free(&es->v[i]);
	free(es->v);
	es->v = NULL;
	es->n = es->cap = 0;
}

static int _cmp_scan_name(const void *a, const void *b)
{
	return strcmp(((const scan_name_t *)a)->hash,
		      ((const scan_name_t *)b)->hash);
}

int dl__cmp_entry_hash(const void *a, const void *b)
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

static int _names_add(names_t *ns, const char *name, bool meta)
{
	if (ns->n == ns->cap) {
		size_t cap = ns->cap ? 2 * ns->cap : 256;
		scan_name_t *nv = realloc(ns->v, cap * sizeof(*nv));

		if (!nv)
			return DL_ENOMEM;
		ns->v = nv;
		ns->cap = cap;
	}
	memcpy(ns->v[ns->n].hash, name, 64);
	ns->v[ns->n].hash[64] = '\0';
	ns->v[ns->n].meta = meta;
	ns->v[ns->n].data = !meta;
	ns->n++;
	return 0;
}

/* The entry names of one bucket (data "<hash>", metadata "<hash>.meta"). */
static int _scan_bucket(dl_stage_t *st, const char *xx, names_t *ns)
{
	DIR *bd = _opendir_at(st->bucket[dl__hexval(xx[0]) * 16 +
					 dl__hexval(xx[1])],
			      ".");
	struct dirent *be;
	int rc = 0;

	if (!bd)
		return 0;
	while (!rc && (be = readdir(bd))) {
		size_t len = strlen(be->d_name);
		bool meta = len == 69 && !strcmp(be->d_name + 64, ".meta");

		if (be->d_name[0] == '.')
			continue;
		if ((len != 64 && !meta) || !dl__is_hex(be->d_name, 64) ||
		    strncmp(be->d_name, xx, 2))
			continue;
		rc = _names_add(ns, be->d_name, meta);
	}
	closedir(bd);
	return rc;
}

static int _scan_names(dl_stage_t *st, names_t *ns)
{
	DIR *sd = _opendir_at(st->store, ".");
	struct dirent *de;
	int rc = 0;

	if (!sd)
		return DL_EIO;
	while (!rc && (de = readdir(sd))) {
		if (de->d_name[0] == '.')
			continue;
		if (strlen(de->d_name) != 2 || !dl__is_hex(de->d_name, 2) ||
		    dl__bucket(st, de->d_name, false) < 0) {
			dl__stage_log(st, DL_LOG_ERROR,
				      "%s: unexpected store/%s, ignored",
				      st->dir, de->d_name);
			continue;
		}
		rc = _scan_bucket(st, de->d_name, ns);
	}
	closedir(sd);
	if (!rc && ns->n)
		qsort(ns->v, ns->n, sizeof(*ns->v), _cmp_scan_name);
	return rc;
}

/* The state of an entry with metadata; \return DL__ABSENT to skip it. */
static int _scan_one(dl_stage_t *st, bool clean, const char *hash,
		     dl_stage_entry_t *e)
{
	int state;

	if (clean) {
		state = dl__entry_get(st, hash, e);
	} else {
		int bfd = dl__bucket(st, hash, false);
		struct stat sb;

		if (_meta_read(st, bfd, hash, e))
			return DL__ABSENT;
		state = !fstatat(bfd, hash, &sb, AT_SYMLINK_NOFOLLOW) &&
				S_ISREG(sb.st_mode)
			? DL__COMPLETE
			: DL__RESERVED;
	}
	if (state == DL__RESERVED && !dl__entry_busy(st, hash, clean)) {
		/* its copier is gone */
		if (clean)
			dl__entry_remove(st, hash, false);
		state = DL__ABSENT;
	}
	if (state == DL__ABSENT)
		dl__entry_free(e);
	return state;
}

static int _entries_add(dl__entries_t *es, dl_stage_entry_t *e)
{
	if (es->n == es->cap) {
		size_t cap = es->cap ? 2 * es->cap : 64;
		dl_stage_entry_t *nv = realloc(es->v, cap * sizeof(*nv));

		if (!nv)
			return DL_ENOMEM;
		es->v = nv;
		es->cap = cap;
	}
	es->v[es->n++] = *e;
	return 0;
}

/*
 * Every entry of the store, sorted by hash, under the global lock.
 * IN clean - also remove what is left over from crashed processes: data
 *            without metadata, corrupt metadata, reservations whose copier
 *            is gone, stale temporary files
 */
int dl__scan(dl_stage_t *st, bool clean, dl__entries_t *out)
{
	names_t ns = {0};
	int rc;

	memset(out, 0, sizeof(*out));
	rc = _scan_names(st, &ns);
	for (size_t i = 0; i < ns.n && !rc;) {
		const char *hash = ns.v[i].hash;
		bool meta = false;
		dl_stage_entry_t e;
		size_t j = i;
		int state;

		for (; j < ns.n && !strcmp(ns.v[j].hash, hash); j++)
			meta |= ns.v[j].meta;
		i = j;
		if (!meta) {
			if (clean)
				unlinkat(dl__bucket(st, hash, false), hash, 0);
			continue;
		}
		state = _scan_one(st, clean, hash, &e);
		if (state == DL__ABSENT)
			continue;
		e.complete = state == DL__COMPLETE;
		rc = _entries_add(out, &e);
		if (rc)
			dl__entry_free(&e);
	}
	free(ns.v);
	if (clean)
		_clean_tmp(st);
	if (rc)
		dl__entries_free(out);
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
static int _listing(dl_stage_t *st, dl__entries_t *es, uint64_t *used)
{
	int rc = dl__scan(st, false, es);

	if (rc)
		return rc;
	dl__count_pins(st, es);
	if (es->n)
		qsort(es->v, es->n, sizeof(*es->v), _cmp_entry_path);
	if (used) {
		*used = 0;
		for (size_t i = 0; i < es->n; i++)
			if (es->v[i].complete)
				*used += es->v[i].charge;
	}
	return 0;
}

int dl_stage_foreach(dl_stage_t *st,
		     int (*fn)(const dl_stage_entry_t *e, void *arg),
		     void *arg, uint64_t *used)
{
	dl__entries_t es;
	bool held;
	int rc;

	if (!st || !fn)
		return DL_EINVAL;
	held = st->glocked;
	if (!held)
		dl__glock(st);
	rc = _listing(st, &es, used);
	if (!held)
		dl__gunlock(st);
	for (size_t i = 0; !rc && i < es.n; i++)
		rc = fn(&es.v[i], arg);
	dl__entries_free(&es);
	return rc;
}

static int _inventory_print(dl_stage_t *st, FILE *f, const dl__entries_t *es,
			    uint64_t used)
{
	size_t files = 0;
	uint64_t storage, peer;

	for (size_t i = 0; i < es->n; i++)
		files += es->v[i].complete;
	fprintf(f, "# dl-stage inventory 1 node=%s capacity=", st->node);
	if (st->capacity == DL_CACHE_UNLIMITED)
		fprintf(f, "unlimited");
	else
		fprintf(f, "%" PRIu64, st->capacity);
	dl__bytes_read(st, &storage, &peer);
	fprintf(f, " used=%" PRIu64 " files=%zu time=%lld storage_bytes=%" PRIu64
		" peer_bytes=%" PRIu64 "\n", used, files, (long long)time(NULL),
		storage, peer);
	for (size_t i = 0; i < es->n; i++)
		if (es->v[i].complete)
			fprintf(f, "%s %" PRIu64 "\n", es->v[i].path,
				es->v[i].size);
	/* its mode is the one it was made with (0600, an ACL maybe) */
	if (fflush(f) || fsync(fileno(f)))
		return DL_EIO;
	return 0;
}

/*
 * The inventory lists every user's cached paths and sizes: root's alone
 * (0600), and SlurmUser's to read too if slurmctld reads it (a POSIX ACL;
 * without ACL support, slurmctld must run as root or use dl-cached).
 */
static void _inventory_protect(dl_stage_t *st, int fd)
{
	static bool said;

	if (!st->inventory_reader || st->inventory_reader == st->euid)
		return;
	if (!dl__set_acl_perm(fd, st->inventory_reader, 6, 4) || said)
		return;
	said = true;
	dl__stage_log(st, DL_LOG_ERROR,
		      "%s: no POSIX ACL on this file system: .inventory stays root's alone, SlurmUser (uid %u) cannot read it",
		      st->dir, (unsigned)st->inventory_reader);
}

int dl_stage_write_inventory(dl_stage_t *st)
{
	char tmpname[64];
	dl__entries_t es;
	uint64_t used;
	bool held;
	FILE *f;
	int fd, rc;

	if (!st)
		return DL_EINVAL;
	held = st->glocked;
	if (!held)
		dl__glock(st);
	rc = _listing(st, &es, &used);
	if (rc)
		goto out;
	snprintf(tmpname, sizeof(tmpname), "inventory.%ld.%u", (long)getpid(),
		 st->seq++);
	fd = openat(st->tmp, tmpname,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0)
		_inventory_protect(st, fd);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		if (fd >= 0)
			close(fd);
		rc = DL_EIO;
		goto out_free;
	}
	rc = _inventory_print(st, f, &es, used);
	if (fclose(f) && !rc)
		rc = DL_EIO;
	if (!rc && renameat(st->tmp, tmpname, st->dfd, ".inventory"))
		rc = DL_EIO;
	if (rc)
		unlinkat(st->tmp, tmpname, 0);
out_free:
	dl__entries_free(&es);
out:
	if (!held)
		dl__gunlock(st);
	return rc;
}

int dl_stage_log_line(dl_stage_t *st, const char *line)
{
	struct stat sb;
	size_t len;
	char *buf;
	int fd, rc = 0;

	if (!st || !line)
		return DL_EINVAL;
	/*
	 * One write of the line with its newline: O_APPEND makes a single
	 * write atomic against the other jobs' dl-stage appending to the
	 * same file, two writes are not (two jobs' lines merged into one,
	 * then an empty one).
	 */
	len = strlen(line);
	if (!(buf = malloc(len + 1)))
		return DL_ENOMEM;
	memcpy(buf, line, len);
	buf[len] = '\n';
	fd = openat(st->dfd, ".log",
		    O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC,
		    0600);
	if (fd < 0) {
		free(buf);
		return DL_EIO;
	}
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) || sb.st_uid != st->euid) {
		free(buf);
		close(fd);
		return DL_EIO;
	}
	if (dl__write_all(fd, buf, len + 1) < 0)
		rc = DL_EIO;
	free(buf);
	/* Rotation races are harmless: at worst a line lands in .log.1. */
	if (sb.st_size > LOG_ROTATE)
		renameat(st->dfd, ".log", st->dfd, ".log.1");
	close(fd);
	return rc;
}

int dl_stage_lookup(dl_stage_t *st, const char *path, dl_stage_entry_t *e,
		    int *fd)
{
	char hash[DL_SHA256_HEX_LEN];
	int rc = DL_ENOENT, bfd;

	if (!st || !path || !e || !fd)
		return DL_EINVAL;
	dl_sha256_hex(path, strlen(path), hash);
	if (dl__glock(st))
		return DL_EIO;
	if (dl__entry_get(st, hash, e) == DL__COMPLETE && e->path &&
	    !strcmp(e->path, path)) {
		bfd = dl__bucket(st, hash, false);
		*fd = bfd < 0 ? -1 : openat(bfd, hash, O_RDONLY | O_NOFOLLOW |
							      O_CLOEXEC);
		rc = *fd < 0 ? DL_EIO : 0;
	}
	dl__gunlock(st);
	if (rc)
		dl__entry_free(e);
	return rc;
}

bool dl_stage_copying(dl_stage_t *st, const char *path)
{
	char hash[DL_SHA256_HEX_LEN];

	if (!st || !path)
		return false;
	dl_sha256_hex(path, strlen(path), hash);
	return dl__entry_busy(st, hash, false);
}

void dl_stage_entry_clear(dl_stage_entry_t *e)
{
	if (e)
		dl__entry_free(e);
}
