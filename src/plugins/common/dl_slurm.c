/* dl_slurm.c - see dl_slurm.h. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdint.h>
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
#include "dl_asuser.h"
#include "dl_pattern.h"
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
 * The one answer for a list file the user cannot use: whether it is
 * missing, unreadable or in a directory they may not search must not be
 * told apart (it would reveal what exists where they cannot look).
 */
static char *_unreadable(const char *path)
{
	return xstrdup_printf("files: list file %s does not exist or you may not read it",
			      path);
}

/*
 * Read a list file.  check: the caller is root reading on behalf of uid
 * (the fallback when slurmctld cannot take the user's identity), so the
 * permission check is ours; otherwise the kernel's, as the user.
 */
static int _read_list(const char *path, uid_t uid, gid_t gid, bool check,
		      const dl_pattern_ctx_t *ctx, dl_filelist_t *list,
		      char **err_msg)
{
	char err[512];
	struct stat sb;
	char *buf = NULL;
	size_t got = 0;
	ssize_t n;
	int fd, rc;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &sb) || !S_ISREG(sb.st_mode) ||
	    (check && !_may_read(&sb, uid, gid))) {
		if (fd >= 0)
			close(fd);
		*err_msg = _unreadable(path);
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
	rc = ctx ? dl_pattern_parse_list(buf, got, list, ctx, err, sizeof(err))
		 : dl_files_parse_list(buf, got, list, err, sizeof(err));
	xfree(buf);
	if (rc)
		*err_msg = xstrdup_printf("files: list file %s: %s", path,
					  err[0] ? err : dl_strerror(rc));
	return rc;
}

/*
 * Leave out the files uid may not read.  Their staging would fail the
 * job anyway, and planning with them told the user what they could not
 * look at: "waiting for n1 (1/1 files, 2.9 MiB cached)" for another
 * user's 0600 file said that it exists, how big it is and where it is
 * cached (issue 27).  A file that does not exist (yet: a workflow's
 * earlier job may write it) stays, as a file nobody caches.  As the user,
 * the kernel decides (search permission on the way included); as root on
 * the user's behalf, the file's own mode.
 */
static void _drop_unreadable(dl_filelist_t *list, uid_t uid, gid_t gid,
			     bool check)
{
	struct stat sb;
	size_t i, k = 0;

	for (i = 0; i < list->count; i++) {
		const char *p = list->files[i].path;
		bool ok = check ? stat(p, &sb) || _may_read(&sb, uid, gid)
				: !access(p, R_OK) || errno == ENOENT;

		if (!ok) {
			free(list->files[i].path);
			continue;
		}
		list->files[k++] = list->files[i];
	}
	list->count = k;
}

/* The real size wins over the annotation's, where the reader may see it. */
static void _stat_sizes(dl_filelist_t *list)
{
	struct stat sb;
	size_t i;

	for (i = 0; i < list->count; i++)
		if (!stat(list->files[i].path, &sb) && S_ISREG(sb.st_mode))
			list->files[i].size = sb.st_size;
}

/*
 * Expand the patterns of a list's paths (dl_pattern.h) with the job's
 * values.  A pending array's own record stands for tasks not split off
 * yet (task id DL_PATTERN_UNKNOWN): the paths that name a task are left
 * out of its plan, the ones all its tasks share stay.  No ctx: nothing
 * is expanded (validation at submit has its own, jsub_pattern.c).
 */
static int _expand(dl_filelist_t *list, const dl_pattern_ctx_t *ctx,
		   const char *what, char **err_msg)
{
	char err[512];
	int rc;

	if (!ctx || !list)
		return 0;
	err[0] = '\0';
	rc = dl_pattern_expand_list(list, ctx,
				    ctx->task_id == DL_PATTERN_UNKNOWN ?
					    DL_PATTERN_SKIP_UNKNOWN : 0,
				    NULL, err, sizeof(err));
	if (rc)
		*err_msg = xstrdup_printf("%s%s", what,
					  err[0] ? err : dl_strerror(rc));
	return rc;
}

/* Add the entries of a second annotation (the script's #DL directives). */
static int _merge(dl_filelist_t *list, const char *annotation, uid_t uid,
		  gid_t gid, bool check, const dl_pattern_ctx_t *ctx,
		  char **err_msg)
{
	dl_filelist_t *more = NULL;
	char err[512];
	size_t i, before = list->nlists;
	int rc;

	err[0] = '\0';
	if (!(rc = dl_files_parse(annotation, &more, err, sizeof(err))) &&
	    (rc = _expand(more, ctx, "#DL directives: ", err_msg))) {
		dl_filelist_free(more);
		return rc;
	}
	if (!rc)
		rc = dl_files_merge(list, more, err, sizeof(err));
	if (rc) {
		*err_msg = xstrdup_printf("#DL directives: %s",
					  err[0] ? err : dl_strerror(rc));
		dl_filelist_free(more);
		return rc;
	}
	dl_filelist_free(more);
	for (i = before; !rc && i < list->nlists; i++)
		rc = _read_list(list->lists[i], uid, gid, check, ctx, list,
				err_msg);
	return rc;
}

/* Add the #BB stage_in sources, their patterns expanded. */
static int _bb_sources(dl_filelist_t *list, const char *bb_spec,
		       const dl_pattern_ctx_t *ctx, char **err_msg)
{
	dl_filelist_t *bb;
	char err[512];
	int rc;

	if (!ctx || !bb_spec) {
		if ((rc = dl_files_bb_stage_in(bb_spec, list)))
			*err_msg = xstrdup_printf("burst buffer stage_in: %s",
						  dl_strerror(rc));
		return rc;
	}
	if (!(bb = dl_filelist_new())) {
		*err_msg = xstrdup("burst buffer stage_in: out of memory");
		return DL_ENOMEM;
	}
	err[0] = '\0';
	if ((rc = dl_files_bb_stage_in(bb_spec, bb)))
		*err_msg = xstrdup_printf("burst buffer stage_in: %s",
					  dl_strerror(rc));
	else if (!(rc = _expand(bb, ctx, "burst buffer stage_in: ", err_msg)) &&
		 (rc = dl_files_merge(list, bb, err, sizeof(err))))
		*err_msg = xstrdup_printf("burst buffer stage_in: %s",
					  err[0] ? err : dl_strerror(rc));
	dl_filelist_free(bb);
	return rc;
}

/* Parse, read list files, add stage_in sources, learn sizes. */
static int _collect(const char *comment, const char *script_files,
		    const char *bb_spec, uid_t uid, gid_t gid, bool check,
		    bool sizes, const dl_pattern_ctx_t *ctx,
		    dl_filelist_t **out, char **err_msg)
{
	dl_filelist_t *list = NULL;
	char err[512];
	size_t i;
	int rc;

	*out = NULL;
	err[0] = '\0';
	if ((rc = dl_files_parse(comment, &list, err, sizeof(err)))) {
		*err_msg = xstrdup(err[0] ? err : dl_strerror(rc));
		return rc;
	}
	if ((rc = _expand(list, ctx, "", err_msg))) {
		dl_filelist_free(list);
		return rc;
	}
	for (i = 0; i < list->nlists; i++) {
		if ((rc = _read_list(list->lists[i], uid, gid, check, ctx,
				     list, err_msg))) {
			dl_filelist_free(list);
			return rc;
		}
	}
	if (script_files &&
	    (rc = _merge(list, script_files, uid, gid, check, ctx,
			 err_msg))) {
		dl_filelist_free(list);
		return rc;
	}
	if ((rc = _bb_sources(list, bb_spec, ctx, err_msg))) {
		dl_filelist_free(list);
		return rc;
	}
	/* Planning (sizes) only: validation keeps every name for its say. */
	if (sizes && uid != 0)
		_drop_unreadable(list, uid, gid, check);
	if (!list->count) {
		dl_filelist_free(list);
		return 0;
	}
	/* As root on behalf of a user, a size is not ours to reveal. */
	if (!check && sizes)
		_stat_sizes(list);
	*out = list;
	return 0;
}

/*
 * What the child sends back: "rc\tmessage\n" then "size\tpath\n" per
 * file (paths hold no newline or tab: the grammar forbids control
 * characters).
 */
typedef struct {
	const char *comment, *script_files, *bb_spec;
	uid_t uid;
	gid_t gid;
	bool files;             /* send the files back (else only the rc) */
	size_t max;             /* more files than this: only their count */
	bool has_ctx;
	/* Patterns' values, by value (the strings are the caller's: the
	 * child is a fork and sees them as they were). */
	dl_pattern_ctx_t ctx;
} collect_arg_t;

static int _write_all(int fd, const char *buf, size_t len)
{
	ssize_t n;

	while (len) {
		if ((n = write(fd, buf, len)) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		buf += n;
		len -= n;
	}
	return 0;
}

static int _child_collect(void *arg, int fd)
{
	collect_arg_t *a = arg;
	dl_filelist_t *list = NULL;
	char *msg = NULL, *out, *p;
	size_t i, len = 64;
	int rc = _collect(a->comment, a->script_files, a->bb_spec, a->uid,
			  a->gid, false, a->files, a->has_ctx ? &a->ctx : NULL,
			  &list, &msg);

	/* Validation only, or too many to be planned: no list comes back. */
	if (list && (!a->files || list->count > a->max)) {
		out = xstrdup_printf("0\t\n+%zu\n", list->count);
		rc = _write_all(fd, out, strlen(out)) ? 1 : 0;
		xfree(out);
		dl_filelist_free(list);
		return rc;
	}
	len += msg ? strlen(msg) : 0;
	for (i = 0; list && i < list->count; i++)
		len += strlen(list->files[i].path) + 24;
	p = out = xmalloc(len);
	p += sprintf(p, "%d\t%s\n", rc, msg ? msg : "");
	for (i = 0; list && i < list->count; i++)
		p += sprintf(p, "%llu\t%s\n",
			     (unsigned long long)list->files[i].size,
			     list->files[i].path);
	rc = _write_all(fd, out, p - out) ? 1 : 0;
	xfree(out);
	xfree(msg);
	dl_filelist_free(list);
	return rc;
}

/* Rebuild the child's answer.  RET its rc, DL_EFORMAT or DL_ENOMEM. */
static int _decode(char *buf, dl_filelist_t **out, size_t *total,
		   char **err_msg)
{
	char *line, *nl, *tab, *end;
	dl_filelist_t *list;
	size_t n = 0;
	int rc;

	if (!(nl = strchr(buf, '\n')) || !(tab = strchr(buf, '\t')) ||
	    tab > nl)
		return DL_EFORMAT;
	*nl = '\0';
	if ((rc = (int)strtol(buf, NULL, 10))) {
		*err_msg = xstrdup(tab + 1);
		return rc;
	}
	if (nl[1] == '+') {
		*total = strtoull(nl + 2, NULL, 10);
		return 0;
	}
	for (line = nl + 1; (nl = strchr(line, '\n')); line = nl + 1)
		n++;
	if (!n)
		return 0;
	if (!(list = calloc(1, sizeof(*list))) ||
	    !(list->files = calloc(n, sizeof(*list->files)))) {
		free(list);
		return DL_ENOMEM;
	}
	for (line = strchr(buf, '\0') + 1; (nl = strchr(line, '\n'));
	     line = nl + 1) {
		dl_file_ref_t *f = &list->files[list->count];

		*nl = '\0';
		if (!(tab = strchr(line, '\t')) || tab[1] != '/')
			break;
		*tab = '\0';
		f->size = strtoull(line, &end, 10);
		if (end != tab || !(f->path = strdup(tab + 1)))
			break;
		list->count++;
	}
	if (list->count != n) {
		dl_filelist_free(list);
		return DL_EFORMAT;
	}
	*out = list;
	return 0;
}

int dl_slurm_job_files_max(const char *comment, const char *script_files,
			   const char *bb_spec, uid_t uid, gid_t gid,
			   const dl_pattern_ctx_t *ctx, size_t max,
			   dl_filelist_t **out, size_t *total, char **err_msg)
{
	collect_arg_t a = { comment, script_files, bb_spec, uid, gid,
			    out != NULL, max, ctx != NULL, { 0 } };
	dl_filelist_t *tmp = NULL, **res = out ? out : &tmp;
	char *buf = NULL;
	size_t len;
	int rc;

	*res = NULL;
	*total = 0;
	if (ctx)
		a.ctx = *ctx;
	if (!dl_files_has_annotation(comment) && !script_files && !bb_spec)
		return 0;
	if (uid == 0) {
		rc = _collect(comment, script_files, bb_spec, uid, gid, false,
			      a.files, ctx, res, err_msg);
	} else if ((rc = dl_asuser_run(uid, gid, _child_collect, &a,
				       (size_t)DL_FILES_MAX * 64 + (64 << 20),
				       60, &buf, &len)) == DL_EPERM) {
		/* slurmctld runs as SlurmUser: check ourselves. */
		rc = _collect(comment, script_files, bb_spec, uid, gid, true,
			      a.files, ctx, res, err_msg);
	} else if (rc) {
		*err_msg = xstrdup_printf("files: the job's files could not be read as its user: %s",
					  dl_strerror(rc));
	} else {
		rc = _decode(buf, res, total, err_msg);
	}
	if (*res) {
		*total = (*res)->count;
		if (*total > max) {
			dl_filelist_free(*res);
			*res = NULL;
		}
	}
	xfree(buf);
	dl_filelist_free(tmp);
	return rc;
}

int dl_slurm_job_files(const char *comment, const char *script_files,
		       const char *bb_spec, uid_t uid, gid_t gid,
		       dl_filelist_t **out, char **err_msg)
{
	size_t total;

	return dl_slurm_job_files_max(comment, script_files, bb_spec, uid, gid,
				      NULL, SIZE_MAX, out, &total, err_msg);
}
