/* jsub_pattern.c - see jsub_pattern.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/common/slurm_xlator.h"

#include "slurm/slurm_errno.h"
#include "src/common/uid.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "dl_asuser.h"
#include "dl_error.h"
#include "dl_files.h"
#include "dl_pattern.h"
#include "dl_slurm.h"
#include "jsub_pattern.h"

/* Bytes of list files read for all the tasks checked, at most. */
#define LIST_BYTES_CHECKED (256 << 20)
#define MSG_MAX 1024

struct jsub_pattern {
	dl_pattern_ctx_t ctx;               /* task_id: the first task's */
	uint32_t tasks[JSUB_TASKS_CHECKED]; /* the tasks checked */
	size_t ntasks;                      /* 0: not an array job */
	char *user, *name;                  /* xmalloc'd */
};

/* What the checks of one job work on (also in the forked child). */
typedef struct {
	const jsub_pattern_t *p;
	const dl_filelist_t *raw; /* the job's entries, as written */
	bool open;                /* open the files: we are the user */
	size_t list_bytes;        /* list-file bytes read so far */
	char msg[MSG_MAX];        /* the first failure, "" if none */
} check_t;

static bool _has_pct(const char *s)
{
	return s && strchr(s, '%');
}

jsub_pattern_t *jsub_pattern_new(const job_desc_msg_t *d)
{
	jsub_pattern_t *p;

	/* An array's list files may hold patterns its comment does not. */
	if (!_has_pct(d->comment) && !_has_pct(d->script) &&
	    !_has_pct(d->burst_buffer) && !(d->array_inx && d->array_inx[0]))
		return NULL;
	p = xmalloc(sizeof(*p));
	dl_pattern_ctx_init(&p->ctx);
	p->user = uid_to_string_or_null(d->user_id);
	p->name = xstrdup(d->name);
	p->ctx.user = p->user;
	p->ctx.name = p->name;
	/* Known at submit only when the user asked for an id (--jobid). */
	if (d->job_id && d->job_id != NO_VAL)
		p->ctx.job_id = d->job_id;
	if (!d->array_inx || !d->array_inx[0]) {
		p->ctx.task_id = p->ctx.array_job_id = DL_PATTERN_NONE;
	} else if (!dl_pattern_array_tasks(d->array_inx,
					   slurm_conf.max_array_sz,
					   JSUB_TASKS_CHECKED, p->tasks,
					   &p->ntasks, NULL)) {
		p->ctx.task_id = p->tasks[0];
		p->ctx.array_job_id = p->ctx.job_id;
	}
	/* else slurmctld refuses the array itself: %a stays unknown */
	return p;
}

jsub_pattern_t *jsub_pattern_job(const job_record_t *job_ptr)
{
	jsub_pattern_t *p = xmalloc(sizeof(*p));

	dl_pattern_ctx_init(&p->ctx);
	p->user = uid_to_string_or_null(job_ptr->user_id);
	p->name = xstrdup(job_ptr->name);
	p->ctx.user = p->user;
	p->ctx.name = p->name;
	p->ctx.job_id = job_ptr->job_id;
	if (job_ptr->array_task_id != NO_VAL) {
		p->ctx.task_id = job_ptr->array_task_id;
		p->ctx.array_job_id = job_ptr->array_job_id;
	} else if (!job_ptr->array_recs) {
		p->ctx.task_id = p->ctx.array_job_id = DL_PATTERN_NONE;
	} else {
		/* the record of an array's pending tasks: %a is unknown */
		p->ctx.array_job_id = job_ptr->array_job_id;
	}
	return p;
}

void jsub_pattern_free(jsub_pattern_t *p)
{
	if (!p)
		return;
	xfree(p->user);
	xfree(p->name);
	xfree(p);
}

/* "files: task 5: <what>" for an array's task, else "files: <what>". */
static void _say(char *msg, size_t len, const jsub_pattern_t *p,
		 uint32_t task, const char *what)
{
	if (!strncmp(what, "files: ", 7))
		what += 7;
	if (p->ntasks)
		snprintf(msg, len, "files: task %u: %s", task, what);
	else
		snprintf(msg, len, "files: %s", what);
}

int jsub_pattern_first(const jsub_pattern_t *p, const char *ann, char **out,
		       char **err_msg)
{
	dl_filelist_t *l = NULL;
	char err[512], msg[MSG_MAX];
	int rc;

	*out = NULL;
	if (!p || !_has_pct(ann))
		return SLURM_SUCCESS;
	/* A malformed annotation: the caller's check says what is wrong. */
	if (dl_files_parse(ann, &l, NULL, 0))
		return SLURM_SUCCESS;
	err[0] = '\0';
	rc = dl_pattern_expand_list(l, &p->ctx, DL_PATTERN_SKIP_UNKNOWN, NULL,
				    err, sizeof(err));
	if (rc && rc != DL_ENOMEM) {
		_say(msg, sizeof(msg), p, p->ctx.task_id, err);
		*err_msg = xstrdup(msg);
		dl_filelist_free(l);
		return SLURM_ERROR;
	}
	if (!rc)
		*out = dl_files_format(l);
	dl_filelist_free(l);
	return SLURM_SUCCESS;
}

/*
 * Expand one entry for a task and, as the user, open what it names.
 * IN list - the list file the entry is a line of, NULL for the annotation
 * RET true if the task must be refused (c->msg says why)
 */
static bool _check_path(check_t *c, const dl_pattern_ctx_t *ctx,
			const char *path, const char *list)
{
	char err[512], what[MSG_MAX], in[MSG_MAX / 2] = "", *x = NULL;
	int rc = dl_pattern_expand(path, ctx, &x, err, sizeof(err)), fd;

	if (list)
		snprintf(in, sizeof(in), "list file %s, line %s: ", list,
			 path);
	if (rc == DL_ENOENT)
		return false; /* needs the job id: checked when it runs */
	if (rc) {
		snprintf(what, sizeof(what), "%s%s", in,
			 rc == DL_ENOMEM ? dl_strerror(rc) : err);
		_say(c->msg, sizeof(c->msg), c->p, ctx->task_id, what);
		return true;
	}
	if (c->open) {
		fd = open(x, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		if (fd < 0) {
			snprintf(what, sizeof(what), "%s%s: %s", in, x,
				 strerror(errno));
			_say(c->msg, sizeof(c->msg), c->p, ctx->task_id, what);
			free(x);
			return true;
		}
		close(fd);
	}
	free(x);
	return false;
}

/* Read a list file as the user into list, its entries as written. */
static bool _read_list(check_t *c, const dl_pattern_ctx_t *ctx,
		       const char *path, dl_filelist_t *list)
{
	char err[512], what[MSG_MAX], *buf;
	struct stat sb;
	size_t got = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC), rc;

	if (fd < 0 || fstat(fd, &sb) || !S_ISREG(sb.st_mode) ||
	    sb.st_size > DL_LIST_FILE_MAX) {
		snprintf(what, sizeof(what),
			 "list file %s does not exist, is larger than %d MiB or you may not read it",
			 path, DL_LIST_FILE_MAX >> 20);
		if (fd >= 0)
			close(fd);
		_say(c->msg, sizeof(c->msg), c->p, ctx->task_id, what);
		return true;
	}
	buf = xmalloc(sb.st_size + 1);
	while (got < (size_t)sb.st_size &&
	       (n = read(fd, buf + got, sb.st_size - got)) > 0)
		got += n;
	close(fd);
	c->list_bytes += got;
	err[0] = '\0';
	if ((rc = dl_files_parse_list(buf, got, list, err, sizeof(err)))) {
		snprintf(what, sizeof(what), "list file %s: %s", path,
			 err[0] ? err : dl_strerror(rc));
		_say(c->msg, sizeof(c->msg), c->p, ctx->task_id, what);
	}
	xfree(buf);
	return rc != 0;
}

/*
 * A list file of one task: its path expanded and, as the user, read, and
 * its lines that hold patterns expanded for the task and opened as the
 * user (dl-stage and the agent expand them with the task's values), at
 * most JSUB_ENTRIES_CHECKED of them per task.
 * IN/OUT kept - a list path without a pattern names the same file for
 *	every task: it is read for the first task and kept here (owned by
 *	the caller, dl_filelist_free()), so that later tasks only expand its
 *	lines; NULL if it could not be read (nothing to check)
 * IN first - the first task checked
 */
static bool _check_list(check_t *c, const dl_pattern_ctx_t *ctx,
			const char *lpath, bool first, dl_filelist_t **kept)
{
	dl_filelist_t *list = *kept;
	char err[512], *x = NULL;
	size_t budget = JSUB_ENTRIES_CHECKED;
	bool bad = false, fixed = !_has_pct(lpath);
	int rc = dl_pattern_expand(lpath, ctx, &x, err, sizeof(err));

	if (rc == DL_ENOENT)
		return false;
	if (rc) {
		_say(c->msg, sizeof(c->msg), c->p, ctx->task_id,
		     rc == DL_ENOMEM ? dl_strerror(rc) : err);
		return true;
	}
	/* Without the user's identity no list file is read here. */
	if (!list && (!c->open || (fixed && !first) ||
		      c->list_bytes > LIST_BYTES_CHECKED ||
		      !(list = dl_filelist_new()))) {
		free(x);
		return false;
	}
	if (!*kept)
		bad = _read_list(c, ctx, x, list);
	for (size_t i = 0; !bad && budget && i < list->count; i++) {
		if (!_has_pct(list->files[i].path))
			continue;
		budget--;
		bad = _check_path(c, ctx, list->files[i].path, x);
	}
	if (fixed && !*kept)
		*kept = list;
	else if (list != *kept)
		dl_filelist_free(list);
	free(x);
	return bad;
}

/* Every task checked, until the first that fails. */
static void _checks(check_t *c)
{
	const dl_filelist_t *raw = c->raw;
	size_t ntasks = c->p->ntasks ? c->p->ntasks : 1;
	dl_filelist_t **kept = xcalloc(raw->nlists ? raw->nlists : 1,
				       sizeof(*kept));
	bool bad = false;

	c->msg[0] = '\0';
	for (size_t k = 0; k < ntasks && !bad; k++) {
		dl_pattern_ctx_t ctx = c->p->ctx;
		size_t budget = JSUB_ENTRIES_CHECKED;

		if (c->p->ntasks)
			ctx.task_id = c->p->tasks[k];
		for (size_t i = 0; i < raw->count && budget && !bad; i++) {
			if (!_has_pct(raw->files[i].path))
				continue;
			budget--;
			bad = _check_path(c, &ctx, raw->files[i].path, NULL);
		}
		for (size_t i = 0; i < raw->nlists && !bad; i++)
			bad = _check_list(c, &ctx, raw->lists[i], !k,
					  &kept[i]);
	}
	for (size_t i = 0; i < raw->nlists; i++)
		dl_filelist_free(kept[i]);
	xfree(kept);
}

/* The forked child, as the user: the first failure, or nothing. */
static int _child(void *arg, int fd)
{
	check_t *c = arg;
	size_t len, off = 0;
	ssize_t n;

	_checks(c);
	len = strlen(c->msg);
	while (off < len) {
		n = write(fd, c->msg + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 1;
		off += (size_t)n;
	}
	return 0;
}

/* The job's entries as written: its comment's and its script's. */
static dl_filelist_t *_raw(const job_desc_msg_t *d)
{
	dl_filelist_t *raw = NULL, *more = NULL;
	const char *env = NULL;
	size_t plen = strlen(DL_ENV_FILES "=");

	for (uint32_t i = 0; i < d->spank_job_env_size; i++)
		if (!strncmp(d->spank_job_env[i], DL_ENV_FILES "=", plen))
			env = d->spank_job_env[i] + plen;
	if (dl_files_parse(d->comment, &raw, NULL, 0))
		return NULL;
	if (env && (dl_files_parse(env, &more, NULL, 0) ||
		    dl_files_merge(raw, more, NULL, 0))) {
		dl_filelist_free(raw);
		raw = NULL;
	}
	dl_filelist_free(more);
	return raw;
}

int jsub_pattern_check(const jsub_pattern_t *p, const job_desc_msg_t *d,
		       char **err_msg)
{
	check_t *c;
	char *buf = NULL, *msg = NULL;
	size_t len = 0;
	int rc;

	if (!p)
		return SLURM_SUCCESS;
	c = xmalloc(sizeof(*c));
	c->p = p;
	c->open = true;
	/*
	 * One more fork of slurmctld only where patterns are: entries that
	 * hold one, or the list files of an array.
	 */
	if (!(c->raw = _raw(d)) || (!dl_pattern_list_fields(c->raw) &&
				    !(c->raw->nlists && p->ntasks))) {
		dl_filelist_free((dl_filelist_t *)c->raw);
		xfree(c);
		return SLURM_SUCCESS;
	}
	rc = dl_asuser_run(d->user_id, d->group_id, _child, c, MSG_MAX, 60,
			   &buf, &len);
	if (rc == DL_EPERM) {
		/* slurmctld is not root: the patterns only, nothing opened */
		c->open = false;
		_checks(c);
		if (c->msg[0])
			msg = xstrdup(c->msg);
	} else if (rc) {
		msg = xstrdup_printf("files: the job's files could not be checked as its user: %s",
				     dl_strerror(rc));
	} else if (len) {
		msg = xstrdup(buf);
	}
	xfree(buf);
	dl_filelist_free((dl_filelist_t *)c->raw);
	xfree(c);
	if (!msg)
		return SLURM_SUCCESS;
	*err_msg = msg;
	return SLURM_ERROR;
}
