/*
 * jobs.c - what the cache records about jobs in DIR/.jobs: the store
 * entries each active job pins, the failure notes its TaskProlog reads,
 * and the leftovers of jobs whose Epilog never ran.
 *
 * Everything here is read strictly and within a size limit: a pin line is
 * 64 hex digits, a note starts with the line that names its job and user,
 * a job's name is its id in canonical decimal; anything else is ignored,
 * never taken for a hash, a message or a job.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dl_error.h"
#include "dl_files.h"
#include "stage_int.h"

#define PIN_LINE (DL_SHA256_HEX_LEN) /* 64 hex digits and '\n' */
/* A job pins at most DL_FILES_MAX entries: a longer record is not ours. */
#define PINS_MAX ((off_t)(DL_FILES_MAX + 1) * PIN_LINE)
#define NOTE_HEAD "# dl-stage note 1 job="

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

int dl__pins_add(dl_stage_t *st, const char *hash)
{
	char line[PIN_LINE];

	memcpy(line, hash, 64);
	line[64] = '\n';
	return dl__write_all(st->pinsfd, line, PIN_LINE) < 0 ? DL_EIO : 0;
}

/* Count the pin lines of one record; \return the lines that were not. */
static size_t _count_file(FILE *f, dl__entries_t *es)
{
	char line[PIN_LINE + 2];
	size_t bad = 0;

	while (fgets(line, sizeof(line), f)) {
		size_t len = strlen(line);
		dl_stage_entry_t key, *e;

		if (len != PIN_LINE || line[64] != '\n' ||
		    !dl__is_hex(line, 64)) {
			bad++;
			/* skip the rest of an over-long line */
			while (len && line[len - 1] != '\n' &&
			       fgets(line, sizeof(line), f))
				len = strlen(line);
			continue;
		}
		memcpy(key.hash, line, 64);
		key.hash[64] = '\0';
		e = es->n ? bsearch(&key, es->v, es->n, sizeof(*e),
				    dl__cmp_entry_hash)
			  : NULL;
		if (e)
			e->pins++;
	}
	return bad;
}

void dl__count_pins(dl_stage_t *st, dl__entries_t *es)
{
	DIR *d;
	struct dirent *de;
	int dfd = openat(st->jobs, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (dfd < 0 || !(d = fdopendir(dfd))) {
		if (dfd >= 0)
			close(dfd);
		return;
	}
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name), bad;
		struct stat sb;
		FILE *f;
		int fd;

		bool prefetch = len > 9 &&
				!strcmp(de->d_name + len - 9, ".prefetch");

		/* a prefetch record pins until its mtime (the expiry) */
		if (!prefetch &&
		    (len < 6 || strcmp(de->d_name + len - 5, ".pins")))
			continue;
		fd = openat(st->jobs, de->d_name,
			    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (!fstat(fd, &sb) && prefetch && sb.st_mtime <= time(NULL)) {
			close(fd);
			continue;
		}
		if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) ||
		    sb.st_uid != st->euid || sb.st_size > PINS_MAX ||
		    !(f = fdopen(fd, "r"))) {
			dl__stage_log(st, DL_LOG_ERROR,
				      "%s: .jobs/%s is not a pin record, ignored",
				      st->dir, de->d_name);
			close(fd);
			continue;
		}
		bad = _count_file(f, es);
		fclose(f);
		if (bad)
			dl__stage_log(st, DL_LOG_ERROR,
				      "%s: .jobs/%s: %zu lines are not pins, ignored",
				      st->dir, de->d_name, bad);
	}
	closedir(d);
}

/* ------------------------------------------------------------------ */
/* failure notes                                                       */

int dl_stage_job_fail(dl_stage_t *st, const dl_stage_job_t *job,
		      const char *msg)
{
	char name[32], tmpname[64], head[96];
	size_t mlen;
	int fd, hl;

	if (!st || !job || !msg)
		return DL_EINVAL;
	snprintf(name, sizeof(name), "%" PRIu32 ".failed", job->job_id);
	snprintf(tmpname, sizeof(tmpname), "failed.%ld.%u", (long)getpid(),
		 st->seq++);
	hl = snprintf(head, sizeof(head), NOTE_HEAD "%" PRIu32 " uid=%u\n",
		      job->job_id, (unsigned)job->uid);
	mlen = strlen(msg);
	if (mlen > DL_STAGE_NOTE_MAX - 1 - (size_t)hl)
		mlen = DL_STAGE_NOTE_MAX - 1 - (size_t)hl;
	fd = openat(st->tmp, tmpname,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0400);
	if (fd < 0)
		return DL_EIO;
	/*
	 * The job's own user reads it, from the TaskProlog: root's file with
	 * an ACL letting that user read it, or, without ACLs, the user's own
	 * (who could then chmod and write it, in their job's last moments).
	 */
	if (dl__write_all(fd, head, (size_t)hl) < 0 ||
	    dl__write_all(fd, msg, mlen) < 0 ||
	    dl__write_all(fd, "\n", 1) < 0 ||
	    (job->uid != 0 && dl__set_acl_perm(fd, job->uid, 4, 4) &&
	     (fchown(fd, job->uid, job->gid) || fchmod(fd, 0400))) ||
	    close(fd) || renameat(st->tmp, tmpname, st->jobs, name)) {
		unlinkat(st->tmp, tmpname, 0);
		return DL_EIO;
	}
	return 0;
}

/* A canonical decimal uint32 of exactly n bytes at s. */
static bool _u32(const char *s, size_t n, uint32_t *v)
{
	uint64_t x = 0;

	if (!n || n > 10 || (n > 1 && s[0] == '0'))
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		x = x * 10 + (uint64_t)(s[i] - '0');
	}
	if (x > UINT32_MAX)
		return false;
	*v = (uint32_t)x;
	return true;
}

int dl_stage_note_parse(const char *text, size_t len, uint32_t job_id,
			uid_t uid, const char **msg)
{
	const char *nl, *p, *sp;
	uint32_t j, u;

	if (!text || len > DL_STAGE_NOTE_MAX || memchr(text, '\0', len) ||
	    !(nl = memchr(text, '\n', len)) ||
	    (size_t)(nl - text) < strlen(NOTE_HEAD) ||
	    strncmp(text, NOTE_HEAD, strlen(NOTE_HEAD)))
		return DL_EFORMAT;
	p = text + strlen(NOTE_HEAD);
	sp = memchr(p, ' ', (size_t)(nl - p));
	if (!sp || strncmp(sp, " uid=", 5) ||
	    !_u32(p, (size_t)(sp - p), &j) ||
	    !_u32(sp + 5, (size_t)(nl - sp - 5), &u))
		return DL_EFORMAT;
	if (j != job_id || u != (uint32_t)uid)
		return DL_ENOENT;
	if (msg)
		*msg = nl + 1;
	return 0;
}

/* ------------------------------------------------------------------ */
/* leftovers                                                           */

typedef struct {
	uint32_t id;
	int64_t newest; /* seconds */
} seen_t;

static int _cmp_seen(const void *a, const void *b)
{
	uint32_t x = ((const seen_t *)a)->id, y = ((const seen_t *)b)->id;

	return x < y ? -1 : x > y;
}

/* The job id of a record name ("<id>.view|pins|failed"), strictly. */
static bool _job_name(const char *name, uint32_t *id)
{
	const char *dot = strchr(name, '.');

	return dot &&
	       (!strcmp(dot, ".view") || !strcmp(dot, ".pins") ||
		!strcmp(dot, ".failed")) &&
	       _u32(name, (size_t)(dot - name), id);
}

static int _seen_add(seen_t **v, size_t *n, size_t *cap, uint32_t id,
		     int64_t t)
{
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 32;
		seen_t *nv = realloc(*v, c * sizeof(*nv));

		if (!nv)
			return DL_ENOMEM;
		*v = nv;
		*cap = c;
	}
	(*v)[(*n)++] = (seen_t){.id = id, .newest = t};
	return 0;
}

int dl_stage_leftovers(dl_stage_t *st, int64_t min_age, uint32_t **ids,
		       size_t *n)
{
	int dfd = st ? openat(st->jobs, ".", O_RDONLY | O_DIRECTORY |
						    O_CLOEXEC) : -1;
	int64_t now = (int64_t)time(NULL);
	seen_t *v = NULL;
	size_t nv = 0, cap = 0, k = 0;
	struct dirent *de;
	int rc = 0;
	DIR *d;

	if (!ids || !n || dfd < 0 || !(d = fdopendir(dfd))) {
		if (dfd >= 0)
			close(dfd);
		return !st || !ids || !n ? DL_EINVAL : DL_EIO;
	}
	*ids = NULL;
	*n = 0;
	while (!rc && (de = readdir(d))) {
		struct stat sb;
		uint32_t id;

		if (!_job_name(de->d_name, &id) ||
		    fstatat(dirfd(d), de->d_name, &sb, AT_SYMLINK_NOFOLLOW))
			continue;
		rc = _seen_add(&v, &nv, &cap, id, (int64_t)sb.st_mtime);
	}
	closedir(d);
	if (nv)
		qsort(v, nv, sizeof(*v), _cmp_seen);
	/* One entry per job, old enough in all its records. */
	for (size_t i = 0; !rc && i < nv;) {
		size_t j = i;
		int64_t newest = v[i].newest;

		char pf[32];
		struct stat sb;

		for (; j < nv && v[j].id == v[i].id; j++)
			if (v[j].newest > newest)
				newest = v[j].newest;
		/*
		 * A job being prefetched for is pending, not dead.  No minimum
		 * age lists a record stamped a second ahead of time(), whose
		 * coarse clock a file's finer time passes at a second's edge.
		 */
		snprintf(pf, sizeof(pf), "%" PRIu32 ".prefetch", v[i].id);
		if ((min_age <= 0 || now - newest >= min_age) &&
		    fstatat(st->jobs, pf, &sb, AT_SYMLINK_NOFOLLOW))
			v[k++].id = v[i].id;
		i = j;
	}
	if (!rc && k) {
		*ids = malloc(k * sizeof(**ids));
		if (!*ids)
			rc = DL_ENOMEM;
		for (size_t i = 0; !rc && i < k; i++)
			(*ids)[i] = v[i].id;
		if (!rc)
			*n = k;
	}
	free(v);
	return rc;
}

int dl_stage_reap_due(dl_stage_t *st, int64_t interval)
{
	struct timespec now[2];
	struct stat sb;
	int fd, due;

	if (!st)
		return DL_EINVAL;
	clock_gettime(CLOCK_REALTIME, &now[0]);
	now[1] = now[0];
	fd = openat(st->locks, "reaped",
		    O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	due = fd >= 0; /* the first time */
	if (fd < 0)
		fd = openat(st->locks, "reaped",
			    O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
		if (fd >= 0)
			close(fd);
		return DL_EIO;
	}
	if (!due)
		due = now[0].tv_sec - sb.st_mtim.tv_sec >= interval ||
		      sb.st_mtim.tv_sec > now[0].tv_sec;
	if (due && futimens(fd, now))
		due = DL_EIO;
	close(fd);
	return due;
}
