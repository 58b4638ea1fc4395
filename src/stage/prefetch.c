/*
 * prefetch.c - a job's files staged before it starts (dl-cached, for jobs
 * the controller placed on this node).
 *
 * A prefetch and the job's own staging (its Prolog) may run at the same
 * time: the job can start while its prefetch is still copying, and the
 * controller's request may even arrive after the job started.  So a
 * prefetch owns names of its own and touches nothing of the job's:
 *   .jobs/<job>.pf.pins   its pins while it runs (pins like any .pins)
 *   .jobs/<job>.prefetch  its record: made first, so that the reaping of
 *                         leftovers leaves the job alone; when done, the
 *                         pins, held until the record's mtime (expiry)
 * It builds no view and writes no failure note; the job's own staging
 * finds the files cached, waiting on an entry's lock for a copy in
 * flight, and then drops the record.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dl_error.h"
#include "stage_int.h"

static void _name(uint32_t job_id, const char *sfx, char *name, size_t len)
{
	snprintf(name, len, "%" PRIu32 "%s", job_id, sfx);
}

/* Unlink names of the job under the global lock; bump if any went. */
static void _unlink(dl_stage_t *st, uint32_t job_id, bool pins)
{
	char rec[32], pf[32];
	bool gone;

	_name(job_id, ".prefetch", rec, sizeof(rec));
	_name(job_id, ".pf.pins", pf, sizeof(pf));
	dl__glock(st);
	gone = !unlinkat(st->jobs, rec, 0);
	if (pins)
		gone |= !unlinkat(st->jobs, pf, 0);
	if (gone)
		dl__gbump(st, false);
	dl__gunlock(st);
}

void dl__prefetch_forget(dl_stage_t *st, uint32_t job_id)
{
	/* a prefetch still running keeps its pins until it ends */
	_unlink(st, job_id, false);
}

void dl_stage_prefetch_drop(dl_stage_t *st, uint32_t job_id)
{
	_unlink(st, job_id, true);
}

/*
 * The prefetch succeeded: its pins become the record, held until expires,
 * unless the job started here meanwhile (its own pins hold its files).
 */
static int _settle(dl_stage_t *st, uint32_t job_id, int64_t expires,
		   dl_stage_report_t *rep)
{
	struct timespec t[2] = { { .tv_sec = expires }, { .tv_sec = expires } };
	char rec[32], pf[32];
	int rc = 0;

	_name(job_id, ".prefetch", rec, sizeof(rec));
	_name(job_id, ".pf.pins", pf, sizeof(pf));
	dl__glock(st);
	if (dl__job_known(st, job_id)) {
		unlinkat(st->jobs, pf, 0);
		unlinkat(st->jobs, rec, 0);
	} else if (utimensat(st->jobs, pf, t, AT_SYMLINK_NOFOLLOW) ||
		   renameat(st->jobs, pf, st->jobs, rec)) {
		/* The expiry is the record's mtime: readers need no parser. */
		rc = dl__stage_fail(rep, false, DL_EIO, "%s/.jobs/%s: %s",
				    st->dir, rec, strerror(errno));
		unlinkat(st->jobs, pf, 0);
	}
	dl__gbump(st, false);
	dl__gunlock(st);
	return rc;
}

int dl_stage_prefetch(dl_stage_t *st, const dl_stage_job_t *job,
		      dl_filelist_t *files, int64_t expires,
		      dl_stage_report_t *rep)
{
	struct timespec t[2] = { { .tv_sec = expires }, { .tv_sec = expires } };
	dl_stage_report_t dummy;
	char rec[32];
	int fd, rc;

	if (!rep)
		rep = &dummy;
	memset(rep, 0, sizeof(*rep));
	if (!st || !job || !files)
		return DL_EINVAL;
	if (dl__job_known(st, job->job_id)) {
		dl__stage_log(st, DL_LOG_INFO,
			      "%s: job %" PRIu32 " started here already: its prefetch is not needed",
			      st->dir, job->job_id);
		return 0;
	}
	/* the record first (an earlier prefetch's pins stay until replaced) */
	_name(job->job_id, ".prefetch", rec, sizeof(rec));
	fd = openat(st->jobs, rec, O_WRONLY | O_CREAT | O_NOFOLLOW |
					   O_CLOEXEC, 0600);
	if (fd >= 0) {
		futimens(fd, t);
		close(fd);
	}
	if (!files->count && !files->nlists)
		return 0;
	st->prefetching = true;
	rc = dl__stage_run(st, job, files, rep);
	st->prefetching = false;
	if (rc) {
		dl_stage_prefetch_drop(st, job->job_id);
		return rc;
	}
	return _settle(st, job->job_id, expires, rep);
}

/* Whether .jobs/<name> (a "<job>.pf.pins") has no live record any more. */
static bool _orphan_pins(int dfd, const char *name, size_t len, time_t now)
{
	char rec[40];
	struct stat sb;

	if (len - 8 >= sizeof(rec) - 9)
		return false;
	memcpy(rec, name, len - 8);
	memcpy(rec + len - 8, ".prefetch", 10);
	return fstatat(dfd, rec, &sb, AT_SYMLINK_NOFOLLOW) ||
	       sb.st_mtime <= now;
}

size_t dl_stage_prefetch_expire(dl_stage_t *st)
{
	int dfd = openat(st->jobs, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	time_t now = time(NULL);
	struct dirent *de;
	size_t n = 0, len;
	struct stat sb;
	DIR *d;

	if (dfd < 0 || !(d = fdopendir(dfd))) {
		if (dfd >= 0)
			close(dfd);
		return 0;
	}
	while ((de = readdir(d))) {
		len = strlen(de->d_name);
		/* pins of a prefetch killed midway: its record is gone */
		if (len > 8 && !strcmp(de->d_name + len - 8, ".pf.pins")) {
			if (_orphan_pins(dirfd(d), de->d_name, len, now) &&
			    !unlinkat(dirfd(d), de->d_name, 0))
				n++;
			continue;
		}
		if (len < 10 || strcmp(de->d_name + len - 9, ".prefetch") ||
		    fstatat(dirfd(d), de->d_name, &sb, AT_SYMLINK_NOFOLLOW) ||
		    sb.st_mtime > now)
			continue;
		if (!unlinkat(dirfd(d), de->d_name, 0))
			n++;
	}
	closedir(d);
	return n;
}
