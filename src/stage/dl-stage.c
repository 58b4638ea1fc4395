/*
 * dl-stage - node-side staging of a job's input files into the node-local
 * cache, as slurmd's Prolog, Epilog and TaskProlog.  See doc/dl-stage.8.
 *
 * slurmd runs Prolog=, Epilog= and TaskProlog= without arguments, so with
 * no mode on the command line the mode comes from SLURM_SCRIPT_CONTEXT
 * (prolog_slurmd, epilog_slurmd, prolog_task), which slurmd 22.05 sets.
 *
 * Exit status in the Prolog: 0 when the job's files are staged, and also
 * when staging failed because of the job (a file its user cannot read,
 * the helper opening files as its user killed or stopped): then the
 * TaskProlog fails the job with the message, and the node stays in
 * service.  A full cache file system fails nothing: the job reads its
 * sources; nor does any other staging fault of the node's (a view or a
 * copy that goes wrong, even a cache directory refused as unsafe or
 * broken): the file, or the whole job, is read from its sources, and the
 * fallback is logged.  Non-zero only when the node truly cannot run the
 * job: the cache is unusable and not one of the job's first files is
 * reachable as root (its storage is not there), which slurmctld answers
 * by draining the node with "Prolog error", as it should.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "client.h"
#include "dl_error.h"
#include "dl_files.h"
#include "dl_log.h"
#include "dl_pattern.h"
#include "squeue.h"
#include "stage.h"
#include "stage_conf.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "0.1"
#endif

/* Leftovers of jobs whose Epilog never ran are looked for this often. */
#define REAP_INTERVAL 300
/* Records this recent may belong to a job whose Prolog is starting. */
#define REAP_MIN_AGE 60

enum mode {
	M_NONE,
	M_PROLOG,
	M_EPILOG,
	M_TASK_PROLOG,
	M_INVENTORY,
	M_EVICT,
	M_CHECK,
};

static struct {
	const char *cache_dir;  /* --cache-dir, else CacheDir */
	const char *capacity;   /* --capacity */
	const char *eviction;   /* --eviction */
	const char *node;       /* --node, else SLURMD_NODENAME */
	const char *conf;       /* --conf, else next to $SLURM_CONF */
	const char *job;        /* --job, else SLURM_JOB_ID */
	const char *to;         /* evict --to */
	bool json;
	bool quiet;
} opt;

static dl_stage_t *log_st; /* the cache whose .log receives messages */
static char log_prefix[300];

static void _msg_line(bool to_stderr, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A message for the slurmd log (stderr) and the cache's .log. */
static void _msg_line(bool to_stderr, const char *fmt, ...)
{
	char msg[2048], line[2048 + 300 + 64], ts[32];
	time_t now = time(NULL);
	struct tm tm;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (to_stderr)
		fprintf(stderr, "dl-stage: %s%s\n", log_prefix, msg);
	if (log_st) {
		localtime_r(&now, &tm);
		strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", &tm);
		snprintf(line, sizeof(line), "%s %s%s", ts, log_prefix, msg);
		dl_stage_log_line(log_st, line);
	}
}

static void _log_cb(int level, const char *msg, void *arg)
{
	(void)arg;
	if (level == DL_LOG_DEBUG)
		return;
	_msg_line(level == DL_LOG_ERROR || !opt.quiet, "%s", msg);
}

static void _warn_cb(const char *msg, void *arg)
{
	(void)arg;
	fprintf(stderr, "dl-stage: %s\n", msg);
}

static void _usage(FILE *f)
{
	fprintf(f,
		"Usage: dl-stage [OPTIONS] MODE\n"
		"Stage Slurm jobs' input files into the node-local cache.\n"
		"\n"
		"Modes (without one, SLURM_SCRIPT_CONTEXT chooses the first three):\n"
		"  prolog        stage the job's files and build its view (slurmd Prolog)\n"
		"  epilog        remove the job's view and pins (slurmd Epilog)\n"
		"  task-prolog   print DL_CACHE_VIEW/DL_CACHE_DIR, or fail the task if\n"
		"                staging failed (slurmd TaskProlog, runs as the user)\n"
		"  inventory [--json]   list the cached files\n"
		"  evict --to SIZE      evict unused files down to SIZE bytes\n"
		"  check         check that the cache directory is safe\n"
		"\n"
		"Options:\n"
		"  --cache-dir DIR     cache directory (%%n: node name); default CacheDir\n"
		"                      of datalocality.conf\n"
		"  --capacity SIZE     bytes (4096, 512M, 200G) or unlimited; default\n"
		"                      CacheCapacity\n"
		"  --eviction POLICY   value, lru, lfu, fifo or random; default\n"
		"                      EvictionPolicy\n"
		"  --node NAME         node name; default $SLURMD_NODENAME, else the host\n"
		"  --conf FILE         datalocality.conf; default next to $SLURM_CONF\n"
		"  --job ID            job id; default $SLURM_JOB_ID\n"
		"  -q, --quiet         only errors on stderr\n"
		"  -h, --help, -V, --version\n");
}

/* ------------------------------------------------------------------ */
/* settings                                                            */

typedef struct {
	char *dir;        /* expanded cache directory, NULL: none configured */
	char node[256];
	dl_stage_opts_t opts;
} settings_t;

/* Who reads the settings: root (quietly for jobs naming no files), or the
 * job's user in the TaskProlog (quietly, trusting nothing). */
enum { AS_ROOT, AS_ROOT_QUIET, AS_USER };

/*
 * Settings from the command line, then datalocality.conf.  As root, an
 * unsafe configuration file is refused (root would act on what it says).
 * \return 0, 1 on a bad option, 2 when the configuration is refused.
 */
static int _settings(settings_t *s, int who)
{
	bool as_user = who == AS_USER, quiet = who != AS_ROOT;
	dl_stage_conf_t conf = {0};
	char path[PATH_MAX], err[512] = "";
	const char *node = opt.node ? opt.node : getenv("SLURMD_NODENAME");
	const char *pattern;
	int rc;

	memset(s, 0, sizeof(*s));
	if (node && *node)
		snprintf(s->node, sizeof(s->node), "%s", node);
	else if (gethostname(s->node, sizeof(s->node) - 1) == 0)
		s->node[strcspn(s->node, ".")] = '\0';
	if (opt.conf)
		snprintf(path, sizeof(path), "%s", opt.conf);
	else if (dl_stage_conf_path(getenv("SLURM_CONF"), path, sizeof(path)))
		path[0] = '\0';
	rc = path[0] ? dl_stage_conf_read(path, !as_user && geteuid() == 0,
					  &conf, quiet ? NULL : _warn_cb,
					  NULL, err, sizeof(err))
		     : 0;
	if (rc) {
		if (!quiet)
			fprintf(stderr, "dl-stage: %s\n", err);
		return 2;
	}
	/* Its lock directory is kept for the process' life. */
	dl_stage_conf_to_opts(&conf, &s->opts);
	s->opts.inventory_reader = dl_stage_slurm_user(getenv("SLURM_CONF"));
	if (opt.capacity) {
		uint64_t v;

		if (!strcasecmp(opt.capacity, "unlimited"))
			s->opts.capacity = DL_CACHE_UNLIMITED;
		else if (dl_files_parse_size(opt.capacity,
					     strlen(opt.capacity), &v)) {
			fprintf(stderr, "dl-stage: --capacity %s is not a size\n",
				opt.capacity);
			dl_stage_conf_clear(&conf);
			return 1;
		}
		else
			s->opts.capacity = v;
	}
	if (opt.eviction && dl_evict_from_name(opt.eviction, &s->opts.policy)) {
		fprintf(stderr,
			"dl-stage: --eviction %s: not one of value, lru, lfu, fifo, random\n",
			opt.eviction);
		dl_stage_conf_clear(&conf);
		return 1;
	}
	pattern = opt.cache_dir ? opt.cache_dir : conf.cache_dir;
	if (pattern) {
		s->dir = dl_stage_expand_dir(pattern, s->node);
		if (!s->dir) {
			if (!quiet)
				fprintf(stderr,
					"dl-stage: cache directory %s: not an absolute path, or bad node name '%s'\n",
					pattern, s->node);
			dl_stage_conf_clear(&conf);
			return 2;
		}
	}
	dl_stage_conf_clear(&conf);
	s->opts.node = s->node;
	s->opts.log = _log_cb;
	return 0;
}

static bool _env_u32(const char *name, const char *over, uint32_t *out)
{
	const char *v = over ? over : getenv(name);
	char *end;
	unsigned long x;

	if (!v || !*v || !isdigit((unsigned char)*v))
		return false;
	errno = 0;
	x = strtoul(v, &end, 10);
	if (errno || *end || x > UINT32_MAX)
		return false;
	*out = (uint32_t)x;
	return true;
}

static const char *_human(uint64_t b, char *buf, size_t len)
{
	static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB",
					   "PiB"};
	double v = (double)b;
	int u = 0;

	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%" PRIu64 " B", b);
	else
		snprintf(buf, len, "%.1f %s", v, unit[u]);
	return buf;
}

/* ------------------------------------------------------------------ */
/* leftovers of jobs whose Epilog never ran                            */

/*
 * Remove the views, pins and notes of jobs slurmctld does not know as
 * alive on this node (their Epilog never ran: slurmd died, the node
 * rebooted), at most every REAP_INTERVAL seconds.  Pins of dead jobs keep
 * files from eviction forever, and their notes could fail a later job.
 */
static void _reap(dl_stage_t *st, const char *node, uint32_t self)
{
	uint32_t *left = NULL, *alive = NULL;
	size_t nleft = 0, nalive = 0;

	if (dl_stage_reap_due(st, REAP_INTERVAL) != 1 ||
	    dl_stage_leftovers(st, REAP_MIN_AGE, &left, &nleft) || !nleft ||
	    dl_squeue_alive(node, self, &alive, &nalive)) {
		free(left);
		return;
	}
	for (size_t i = 0; i < nleft; i++) {
		bool live = left[i] == self;

		for (size_t j = 0; !live && j < nalive; j++)
			live = alive[j] == left[i];
		if (live)
			continue;
		if (dl_stage_job_end(st, left[i], NULL))
			_msg_line(true, "cannot reap what job %" PRIu32
					" left behind",
				  left[i]);
		else
			_msg_line(!opt.quiet,
				  "reaped what job %" PRIu32
				  " left behind (slurmctld does not know it on this node)",
				  left[i]);
	}
	free(left);
	free(alive);
}

/* ------------------------------------------------------------------ */
/* modes                                                               */

/*
 * A job naming no files: only forget what an earlier job with its id left
 * here (its Epilog never ran), whose note would fail this job.  Nothing
 * here may fail the job or the node.
 */
static int _prolog_plain(uint32_t job_id)
{
	dl_stage_t *st = NULL;
	settings_t s;
	char err[256];

	if (_settings(&s, AS_ROOT_QUIET) || !s.dir)
		return 0;
	if (!dl_stage_open(s.dir, &s.opts, 0, &st, err, sizeof(err)))
		dl_stage_job_end(st, job_id, NULL);
	dl_stage_close(st);
	free(s.dir);
	return 0;
}

/* Whom the job runs as, from the Prolog's environment; \return 0 or 1. */
static int _prolog_job(dl_stage_job_t *job)
{
	struct passwd *pw;
	uint32_t v;

	if (!_env_u32("SLURM_JOB_UID", NULL, &v)) {
		fprintf(stderr, "dl-stage: %sSLURM_JOB_UID is not set\n",
			log_prefix);
		return 1;
	}
	job->uid = (uid_t)v;
	job->gid = _env_u32("SLURM_JOB_GID", NULL, &v) ? (gid_t)v : (gid_t)-1;
	job->user = getenv("SLURM_JOB_USER");
	pw = !job->user || !*job->user || job->gid == (gid_t)-1
		     ? getpwuid(job->uid)
		     : NULL;
	if (!job->user || !*job->user)
		job->user = pw ? pw->pw_name : NULL;
	if (job->gid == (gid_t)-1) {
		if (!pw) {
			fprintf(stderr,
				"dl-stage: %sSLURM_JOB_GID is not set\n",
				log_prefix);
			return 1;
		}
		job->gid = pw->pw_gid;
	}
	return 0;
}

static void _prolog_summary(const dl_stage_report_t *rep)
{
	char h1[32], h2[32], h3[32], h4[32], more[400] = "";

	if (rep->bypassed)
		snprintf(more, sizeof(more), "; %s: no view, the job reads its sources",
			 rep->fallbacks ? "the view could not be built on this node"
					: "the cache's file system is full");
	else if (rep->nospace)
		snprintf(more, sizeof(more),
			 "; %zu read from source as the cache's file system is full",
			 rep->nospace);
	if (rep->verified)
		snprintf(more + strlen(more), sizeof(more) - strlen(more),
			 "; %zu recently changed checked by content",
			 rep->verified);
	if (rep->fallbacks)
		snprintf(more + strlen(more), sizeof(more) - strlen(more),
			 "; %zu fell back to the source after a fault of this node (see the cache's log)",
			 rep->fallbacks);
	_msg_line(!opt.quiet,
		  "%zu files: %zu cached (%s%s), %zu copied (%s), %zu read from source (%s); evicted %zu (%s)%s",
		  rep->files, rep->hits, _human(rep->bytes_hit, h1, 32),
		  rep->waited ? ", some after waiting for a copy" : "",
		  rep->copied, _human(rep->bytes_copied, h2, 32),
		  rep->uncached, _human(rep->bytes_uncached, h3, 32),
		  rep->evicted, _human(rep->bytes_evicted, h4, 32), more);
}

/* squeue's answer about one job: "jobid arrayjobid taskid name" lines. */
static void _squeue_line(const char *line, uint32_t job_id,
			 dl_pattern_ctx_t *ctx, char *name, size_t namelen)
{
	unsigned int id, array;
	char task[32], *end;
	unsigned long t;
	int n = 0;

	if (sscanf(line, "%u %u %31s %n", &id, &array, task, &n) < 3 || !n ||
	    id != job_id)
		return;
	errno = 0;
	t = strtoul(task, &end, 10);
	/* "N/A" outside an array; a pending range is never this job */
	ctx->task_id = (isdigit((unsigned char)task[0]) && !*end && !errno &&
			t < DL_PATTERN_NONE) ?
			       (uint32_t)t :
			       DL_PATTERN_NONE;
	ctx->array_job_id = ctx->task_id == DL_PATTERN_NONE ? DL_PATTERN_NONE :
							      array;
	snprintf(name, namelen, "%.*s", (int)strcspn(line + n, "\n"),
		 line + n);
	ctx->name = name;
}

/*
 * The array ids and the name of this job, for which slurmd 22.05 gives
 * the Prolog no variable (prep/script sets SLURM_JOB_ID and
 * SLURM_JOB_USER): asked from slurmctld with squeue, and only for a job
 * whose files name them.  Unknown stays unknown if squeue cannot tell:
 * the expansion then fails with a message rather than guess.
 */
static void _squeue_ids(uint32_t job_id, dl_pattern_ctx_t *ctx, char *name,
			size_t namelen)
{
	char id[16], buf[8192], *line, *save = NULL;
	size_t got = 0;
	ssize_t r;
	int p[2], st;
	pid_t pid;

	snprintf(id, sizeof(id), "%" PRIu32, job_id);
	if (pipe2(p, O_CLOEXEC))
		return;
	if ((pid = fork()) == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(p[1], 1);
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 2);
		}
		execlp(DL_SQUEUE_BIN, "squeue", "-h", "-t", "all", "-j", id, "-o",
		       "%A %F %K %j", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	while (pid > 0 && got < sizeof(buf) - 1 &&
	       ((r = read(p[0], buf + got, sizeof(buf) - 1 - got)) > 0 ||
		(r < 0 && errno == EINTR)))
		got += r > 0 ? (size_t)r : 0;
	close(p[0]);
	while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	buf[got] = '\0';
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		_squeue_line(line, job_id, ctx, name, namelen);
}

/*
 * Expand Slurm's filename patterns (dl_pattern.h) in the job's paths with
 * the job's own values, before anything is staged or handed to dl-cached
 * as text.  A later Slurm's SLURM_ARRAY_* and SLURM_JOB_NAME win.
 */
/* The job's values, kept for the lines of its list files (read later, as
 * the user, by the library or dl-cached): one job per process. */
static dl_pattern_ctx_t job_pattern;
static char job_name[1024];
/* What squeue can tell (_squeue_ids()), and whether it was asked. */
#define SQUEUE_FIELDS (DL_PATTERN_TASK | DL_PATTERN_ARRAY | DL_PATTERN_NAME)
static bool squeue_asked;

/*
 * The values a list's lines need and job_pattern lacks (dl_stage_job_t's
 * pattern_need, called once the list was read as the user): squeue is
 * asked only then, at most once, so that a job whose lists hold plain
 * paths costs slurmctld nothing (issue 25).
 */
static void _pattern_need(const dl_stage_job_t *job, unsigned need)
{
	(void)job;
	if (!(need & SQUEUE_FIELDS) || squeue_asked ||
	    job_pattern.job_id == DL_PATTERN_UNKNOWN)
		return;
	squeue_asked = true;
	_squeue_ids(job_pattern.job_id, &job_pattern, job_name,
		    sizeof(job_name));
	if (job_pattern.name && !*job_pattern.name)
		job_pattern.name = NULL;
}

static int _expand(dl_filelist_t *files, char *err, size_t errlen)
{
	/* The lines of list files are looked at when they are read
	 * (_pattern_need()): only the annotation's own paths here. */
	unsigned need = dl_pattern_list_fields(files);
	dl_pattern_ctx_t ctx;
	char *name = job_name;
	size_t namelen = sizeof(job_name);
	uint32_t v;

	dl_pattern_ctx_init(&ctx);
	if (_env_u32("SLURM_JOB_ID", opt.job, &v))
		ctx.job_id = v;
	ctx.user = getenv("SLURM_JOB_USER");
	ctx.name = getenv("SLURM_JOB_NAME");
	if (_env_u32("SLURM_ARRAY_TASK_ID", NULL, &v))
		ctx.task_id = v;
	if (_env_u32("SLURM_ARRAY_JOB_ID", NULL, &v))
		ctx.array_job_id = v;
	if ((need & (DL_PATTERN_TASK | DL_PATTERN_ARRAY | DL_PATTERN_NAME)) &&
	    ctx.job_id != DL_PATTERN_UNKNOWN &&
	    (ctx.task_id == DL_PATTERN_UNKNOWN || !ctx.name)) {
		squeue_asked = true;
		_squeue_ids(ctx.job_id, &ctx, name, namelen);
	}
	if (!ctx.name || !*ctx.name)
		ctx.name = NULL;
	job_pattern = ctx;
	return dl_pattern_expand_list(files, &ctx, 0, NULL, err, errlen);
}

/*
 * The job's files: its comment's annotation and the #DL directives of its
 * script (job_submit/datalocality passes them as SPANK_DL_FILES), with
 * their patterns expanded.
 */
static int _job_files(const char *comment, const char *script,
		      dl_filelist_t **files, char *err, size_t errlen)
{
	dl_filelist_t *more = NULL;
	int rc;

	if ((rc = dl_files_parse(comment, files, err, errlen)))
		return rc;
	if (script && !(rc = dl_files_parse(script, &more, err, errlen)))
		rc = dl_files_merge(*files, more, err, errlen);
	dl_filelist_free(more);
	if (!rc)
		rc = _expand(*files, err, errlen);
	if (rc) {
		dl_filelist_free(*files);
		*files = NULL;
	}
	return rc;
}

/* Files looked at by _sources_reachable(), at most. */
#define REACH_MAX 16

/* Whether the directory of an absolute path is there, for root. */
static bool _dir_reachable(const char *path)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	struct stat sb;

	if (!slash || slash == path || (size_t)(slash - path) >= sizeof(dir))
		return false;
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	return !stat(dir, &sb) && S_ISDIR(sb.st_mode);
}

/*
 * The cache cannot serve the job on this node.  The node can still run it
 * if the job's sources are there: root stats the first few of them or
 * their directories (the job's user may not be able to read them all, or
 * may have removed one, but then the job fails on its own, not the node).  \return the Prolog's exit status: 0 (the job
 * reads its sources), 1 if none is reachable (the node is broken).
 */
static int _sources_reachable(const char *comment, const char *script,
			      const char *why)
{
	dl_filelist_t *files = NULL;
	char err[256];
	size_t seen = 0;
	bool any = false;
	struct stat sb;

	if (_job_files(comment, script, &files, err, sizeof(err)))
		any = true; /* the job's fault: its TaskProlog says so */
	/* a file's directory will do: the file may be gone by the user */
	for (size_t i = 0; files && !any && i < files->count &&
			   seen < REACH_MAX; i++, seen++)
		any = !stat(files->files[i].path, &sb) ||
		      _dir_reachable(files->files[i].path);
	for (size_t i = 0; files && !any && i < files->nlists &&
			   seen < REACH_MAX; i++, seen++)
		any = !stat(files->lists[i], &sb) ||
		      _dir_reachable(files->lists[i]);
	dl_filelist_free(files);
	/* slurmd logs a successful Prolog's words at debug2 only: the
	 * administrator must hear of a node that stages nothing */
	openlog("dl-stage", LOG_PID, LOG_DAEMON);
	if (any || !seen) {
		_msg_line(true, "%s: the job reads its sources, not staged (the node stays in service)",
			  why);
		syslog(LOG_ERR, "%s%s: the job reads its sources", log_prefix,
		       why);
		return 0;
	}
	_msg_line(true, "%s, and none of the first %zu of the job's files is reachable as root: this node cannot run the job",
		  why, seen);
	syslog(LOG_ERR, "%s%s: none of the job's files is reachable: this node cannot run the job",
	       log_prefix, why);
	return 1;
}

/* Parse the annotation and stage it; \return the Prolog's exit status. */
static int _prolog_stage(dl_stage_t *st, const dl_stage_job_t *job,
			 const char *comment, const char *script)
{
	dl_filelist_t *files = NULL;
	dl_stage_report_t rep;
	char err[1024] = "";
	int rc;

	/* What an earlier job with this id left must not touch this one. */
	dl_stage_job_end(st, job->job_id, NULL);
	rc = _job_files(comment, script, &files, err, sizeof(err));
	if (rc) {
		/* job_submit/datalocality refuses these; an edit may not */
		memset(&rep, 0, sizeof(rep));
		snprintf(rep.msg, sizeof(rep.msg), "%s", err);
		rep.user_fault = 1;
		dl_stage_job_fail(st, job, rep.msg);
	} else {
		dl_stage_job_t j = *job;

		j.pattern = &job_pattern;
		j.pattern_need = _pattern_need;
		rc = dl_stage_job(st, &j, files, &rep);
	}
	dl_filelist_free(files);
	if (!rc) {
		_prolog_summary(&rep);
		return 0;
	}
	if (rep.user_fault) {
		_msg_line(true,
			  "staging failed: %s (the job fails in its TaskProlog; the node stays in service)",
			  rep.msg);
		return 0;
	}
	{
		char why[sizeof(rep.msg) + 40];

		snprintf(why, sizeof(why), "staging failed on this node: %s",
			 rep.msg);
		return _sources_reachable(comment, script, why);
	}
}

/*
 * dl-cached reads the job's list files and expands their lines with the
 * values sent: they are looked up beforehand only if a line needs one
 * (the lists are read here as the user too, which costs a read of files
 * that are then in the page cache; a squeue costs slurmctld).
 */
static void _service_lists(const settings_t *s, const dl_stage_job_t *job,
			   const dl_filelist_t *files)
{
	unsigned want = dl_pattern_unknown(&job_pattern) & SQUEUE_FIELDS;
	unsigned need = 0;

	if (!files->nlists || !want || squeue_asked ||
	    job_pattern.job_id == DL_PATTERN_UNKNOWN)
		return;
	/* a list that cannot be read needs no value: dl-cached says why */
	dl_stage_list_fields(job, files, want, s->opts.open_timeout, &need);
	if (need)
		_pattern_need(job, need);
}

/*
 * Staging through dl-cached, which also copies from other nodes.
 * \return 1 if the service did it (*status: the Prolog's exit status),
 *         0 if the direct path must.
 */
static int _prolog_service(const settings_t *s, const dl_stage_job_t *job,
			   const char *comment, const char *script,
			   int *status)
{
	dl_filelist_t *files = NULL;
	dl_stage_report_t rep;
	dl_stage_t *st = NULL;
	dl_stage_job_t j = *job;
	char err[1024] = "", *text;
	int failed = 0, rc;

	/* a malformed annotation: the direct path writes the note */
	if (_job_files(comment, script, &files, err, sizeof(err)))
		return 0;
	j.pattern = &job_pattern;
	_service_lists(s, &j, files);
	text = dl_files_format(files);
	dl_filelist_free(files);
	if (!text)
		return 0;
	rc = dl_stage_client_request(s->dir, &j, text, &rep, &failed, err,
				     sizeof(err));
	free(text);
	if (rc) {
		if (rc != DL_ENOENT || !opt.quiet)
			fprintf(stderr, "dl-stage: %s%s: staging directly\n",
				log_prefix, err);
		return 0;
	}
	*status = 0;
	/* The job's line goes into the cache's .log as on the direct path:
	 * it is the node's record of what each job found and copied. */
	if (!dl_stage_open(s->dir, &s->opts, 0, &st, err, sizeof(err)))
		log_st = st;
	if (!failed) {
		_prolog_summary(&rep);
		if (rep.from_peers)
			_msg_line(!opt.quiet, "%zu of the copies from other "
				  "nodes' caches (%" PRIu64 " bytes)",
				  rep.from_peers, rep.bytes_peer);
	} else if (rep.user_fault) {
		_msg_line(true,
			  "staging failed: %s (the job fails in its TaskProlog; the node stays in service)",
			  rep.msg);
	} else {
		/* the direct path reads the sources if the cache cannot */
		fprintf(stderr, "dl-stage: %sthe node service failed: %s: staging directly\n",
			log_prefix, rep.msg);
		log_st = NULL;
		dl_stage_close(st);
		return 0;
	}
	log_st = NULL;
	dl_stage_close(st);
	return 1;
}

static int _prolog(void)
{
	const char *comment = getenv("SLURM_JOB_COMMENT");
	const char *script = getenv("SPANK_DL_FILES");
	dl_stage_job_t job = {0};
	dl_stage_t *st = NULL;
	settings_t s;
	char err[1024] = "";
	int rc, status = 0;

	if (!_env_u32("SLURM_JOB_ID", opt.job, &job.job_id)) {
		fprintf(stderr, "dl-stage: prolog: SLURM_JOB_ID is not set\n");
		return 1;
	}
	/* Most jobs name no files: touch nothing but their own records. */
	if (!dl_files_has_annotation(comment) &&
	    !dl_files_has_annotation(script))
		return _prolog_plain(job.job_id);
	if (_settings(&s, AS_ROOT))
		return 1;
	snprintf(log_prefix, sizeof(log_prefix), "job %" PRIu32 " on %s: ",
		 job.job_id, s.node);
	if (!s.dir) {
		fprintf(stderr,
			"dl-stage: %sno CacheDir in datalocality.conf: files not staged\n",
			log_prefix);
		return 0;
	}
	rc = _prolog_job(&job);
	if (!rc && _prolog_service(&s, &job, comment, script, &status)) {
		/* leftovers are still reaped here: dl-cached does not */
		if (!dl_stage_open(s.dir, &s.opts, 0, &st, err, sizeof(err))) {
			log_st = st;
			_reap(st, s.node, job.job_id);
			log_st = NULL;
		}
		dl_stage_close(st);
		free(s.dir);
		return status;
	}
	if (!rc && dl_stage_open(s.dir, &s.opts, 1, &st, err, sizeof(err))) {
		char why[1200];

		snprintf(why, sizeof(why),
			 "staging impossible, cache directory refused: %s", err);
		rc = _sources_reachable(comment, script, why);
		free(s.dir);
		return rc;
	}
	if (!rc) {
		log_st = st;
		rc = _prolog_stage(st, &job, comment, script);
		_reap(st, s.node, job.job_id);
		log_st = NULL;
	}
	dl_stage_close(st);
	free(s.dir);
	return rc ? 1 : 0;
}

static int _epilog(void)
{
	dl_stage_report_t rep;
	dl_stage_t *st = NULL;
	settings_t s;
	char err[1024] = "", h[32];
	uint32_t job_id;
	int rc;

	if (!_env_u32("SLURM_JOB_ID", opt.job, &job_id)) {
		fprintf(stderr, "dl-stage: epilog: SLURM_JOB_ID is not set\n");
		return 1;
	}
	if (_settings(&s, AS_ROOT))
		return 1;
	if (!s.dir)
		return 0;
	snprintf(log_prefix, sizeof(log_prefix), "job %" PRIu32 " on %s: ",
		 job_id, s.node);
	{
		dl_stage_job_t job = { .job_id = job_id };
		int failed = 0;

		/* through dl-cached if it answers; else directly */
		rc = dl_stage_client_request(s.dir, &job, NULL, &rep, &failed,
					     err, sizeof(err));
		if (!rc && failed)
			_msg_line(true, "epilog: %s", rep.msg);
		else if (rc && rc != DL_ENOENT)
			fprintf(stderr, "dl-stage: %s%s: cleaning up "
				"directly\n", log_prefix, err);
		if (!rc) {
			free(s.dir);
			return failed ? 1 : 0;
		}
	}
	rc = dl_stage_open(s.dir, &s.opts, 0, &st, err, sizeof(err));
	if (rc == DL_ENOENT) {
		free(s.dir);
		return 0; /* nothing was ever staged here */
	}
	if (rc) {
		/* nothing was staged in it: nothing to clean, and the node
		 * still runs jobs from their sources (its Prolog said so) */
		fprintf(stderr, "dl-stage: %scache directory refused: %s: nothing to clean up\n",
			log_prefix, err);
		openlog("dl-stage", LOG_PID, LOG_DAEMON);
		syslog(LOG_ERR, "%scache directory refused: %s", log_prefix,
		       err);
		free(s.dir);
		return 0;
	}
	log_st = st;
	rc = dl_stage_job_end(st, job_id, &rep);
	if (rc)
		_msg_line(true, "epilog: %s", dl_strerror(rc));
	else if (rep.evicted)
		_msg_line(!opt.quiet, "epilog: evicted %zu (%s) to fit CacheCapacity",
			  rep.evicted, _human(rep.bytes_evicted, h, sizeof(h)));
	_reap(st, s.node, job_id);
	log_st = NULL;
	dl_stage_close(st);
	free(s.dir);
	return rc ? 1 : 0;
}

/*
 * The failure note of this job, if there is one and it is this job's
 * (dl_stage_note_parse()): read within DL_STAGE_NOTE_MAX bytes, control
 * characters replaced.  \return where its message starts in buf, or NULL.
 */
static const char *_read_note(const char *dir, uint32_t job_id, char *buf)
{
	char path[PATH_MAX + 64];
	const char *msg = NULL;
	struct stat sb;
	size_t got = 0;
	int fd;

	if (dl_stage_failed_path(dir, job_id, path, sizeof(path)))
		return NULL;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (!fstat(fd, &sb) && S_ISREG(sb.st_mode) &&
	    sb.st_size <= DL_STAGE_NOTE_MAX) {
		ssize_t n;

		while (got < DL_STAGE_NOTE_MAX &&
		       (n = read(fd, buf + got, DL_STAGE_NOTE_MAX - got)) > 0)
			got += (size_t)n;
		buf[got] = '\0';
		if (dl_stage_note_parse(buf, got, job_id, getuid(), &msg))
			msg = NULL;
	}
	close(fd);
	for (char *p = buf; msg && *p; p++)
		if (*p != '\n' && iscntrl((unsigned char)*p))
			*p = '?';
	return msg;
}

/*
 * TaskProlog: runs as the job's user, with the job's environment; its
 * stdout is read by slurmstepd ("export", "unset", "print" lines).  It
 * trusts nothing it reads: a user who edits the environment only changes
 * what their own job sees.
 */
static int _task_prolog(void)
{
	char path[PATH_MAX + 64], note[DL_STAGE_NOTE_MAX + 1];
	const char *msg;
	struct stat sb;
	settings_t s;
	uint32_t job_id;

	if (!_env_u32("SLURM_JOB_ID", opt.job, &job_id))
		return 0;
	if (_settings(&s, AS_USER) || !s.dir)
		return 0;
	msg = _read_note(s.dir, job_id, note);
	if (msg) {
		char *line, *next, *m = (char *)msg;

		printf("print dl-stage: staging the input files of job %" PRIu32
		       " on %s failed:\n",
		       job_id, s.node);
		for (line = m; line && *line; line = next) {
			next = strchr(line, '\n');
			if (next)
				*next++ = '\0';
			printf("print dl-stage: %s\n", line);
		}
		fflush(stdout);
		free(s.dir);
		return 1;
	}
	if (!dl_stage_view_path(s.dir, job_id, path, sizeof(path)) &&
	    !stat(path, &sb) && S_ISDIR(sb.st_mode)) {
		printf("export DL_CACHE_VIEW=%s\n", path);
		printf("export DL_CACHE_DIR=%s\n", s.dir);
	}
	fflush(stdout);
	free(s.dir);
	return 0;
}

static void _json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

typedef struct {
	size_t n;
} inv_arg_t;

static int _inv_text(const dl_stage_entry_t *e, void *arg)
{
	char ts[32];
	time_t t = (time_t)(e->last_used_ns / 1000000000);
	struct tm tm;

	(void)arg;
	localtime_r(&t, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", &tm);
	printf("%12" PRIu64 " %6" PRIu64 " %s %4" PRIu32 " %s%s\n", e->size,
	       e->hits, ts, e->pins, e->path,
	       e->complete ? "" : " (copy in progress)");
	return 0;
}

static int _inv_json(const dl_stage_entry_t *e, void *arg)
{
	inv_arg_t *a = arg;

	printf("%s\n    {\"path\": ", a->n++ ? "," : "");
	_json_str(e->path);
	printf(", \"size\": %" PRIu64 ", \"hits\": %" PRIu64
	       ", \"inserted\": %" PRId64 ", \"last_used\": %" PRId64
	       ", \"pins\": %" PRIu32 ", \"complete\": %s}",
	       e->size, e->hits, e->inserted_ns / 1000000000,
	       e->last_used_ns / 1000000000, e->pins,
	       e->complete ? "true" : "false");
	return 0;
}

static int _open_existing(settings_t *s, dl_stage_t **st)
{
	char err[1024] = "";
	int rc;

	if (_settings(s, AS_ROOT))
		return 2;
	if (!s->dir) {
		fprintf(stderr,
			"dl-stage: no cache directory: give --cache-dir or set CacheDir in datalocality.conf\n");
		return 2;
	}
	rc = dl_stage_open(s->dir, &s->opts, 0, st, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "dl-stage: %s\n", err);
		free(s->dir);
		return 1;
	}
	return 0;
}

static int _inventory(void)
{
	dl_stage_t *st = NULL;
	inv_arg_t a = {0};
	settings_t s;
	uint64_t used = 0, from_storage = 0, from_peers = 0;
	char h[32];
	int rc = _open_existing(&s, &st);

	if (rc)
		return rc;
	dl_stage_bytes(st, &from_storage, &from_peers);
	if (opt.json) {
		printf("{\"node\": ");
		_json_str(s.node);
		printf(", \"cache_dir\": ");
		_json_str(s.dir);
		printf(", \"capacity\": ");
		if (s.opts.capacity == DL_CACHE_UNLIMITED)
			printf("null");
		else
			printf("%" PRIu64, s.opts.capacity);
		printf(", \"policy\": \"%s\", \"files\": [",
		       dl_evict_name(s.opts.policy));
		rc = dl_stage_foreach(st, _inv_json, &a, &used);
		printf("%s], \"used\": %" PRIu64 ", \"storage_bytes\": %"
		       PRIu64 ", \"peer_bytes\": %" PRIu64 "}\n",
		       a.n ? "\n  " : "", used, from_storage, from_peers);
	} else {
		printf("%12s %6s %-19s %4s %s\n", "SIZE", "HITS", "LAST_USED",
		       "PINS", "PATH");
		rc = dl_stage_foreach(st, _inv_text, NULL, &used);
		printf("# %s used of %s, eviction %s\n",
		       _human(used, h, sizeof(h)),
		       s.opts.capacity == DL_CACHE_UNLIMITED
			       ? "unlimited"
			       : _human(s.opts.capacity, (char[32]){0}, 32),
		       dl_evict_name(s.opts.policy));
		printf("# copied in since the cache was made: %s from the "
		       "storage, %s from other nodes\n",
		       _human(from_storage, h, sizeof(h)),
		       _human(from_peers, (char[32]){0}, 32));
	}
	if (rc)
		fprintf(stderr, "dl-stage: inventory: %s\n", dl_strerror(rc));
	dl_stage_close(st);
	free(s.dir);
	return rc ? 1 : 0;
}

static int _inv_noop(const dl_stage_entry_t *e, void *arg)
{
	(void)e;
	(void)arg;
	return 0;
}

static int _evict(void)
{
	dl_stage_report_t rep;
	dl_stage_t *st = NULL;
	settings_t s;
	uint64_t to, used = 0;
	char h1[32], h2[32];
	int rc;

	if (!opt.to || dl_files_parse_size(opt.to, strlen(opt.to), &to)) {
		fprintf(stderr, "dl-stage: evict needs --to SIZE (e.g. 10G)\n");
		return 2;
	}
	rc = _open_existing(&s, &st);
	if (rc)
		return rc;
	log_st = st;
	snprintf(log_prefix, sizeof(log_prefix), "%s: ", s.node);
	rc = dl_stage_evict_to(st, to, &rep);
	dl_stage_foreach(st, _inv_noop, NULL, &used);
	_msg_line(false, "evict --to %" PRIu64 ": evicted %zu files (%s)", to,
		  rep.evicted, _human(rep.bytes_evicted, h1, 32));
	printf("evicted %zu files (%s); the cache holds %s\n", rep.evicted,
	       _human(rep.bytes_evicted, h1, 32), _human(used, h2, 32));
	if (rc == DL_ENOSPC)
		fprintf(stderr,
			"dl-stage: files in use by running jobs hold more than %s\n",
			opt.to);
	else if (rc)
		fprintf(stderr, "dl-stage: evict: %s\n", dl_strerror(rc));
	log_st = NULL;
	dl_stage_close(st);
	free(s.dir);
	return rc ? 1 : 0;
}

/* Prints one finding of "check"; \return 1 for a failure. */
static int _finding(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int _finding(int level, const char *fmt, ...)
{
	static const char *const tag[] = {"ok:     ", "warning:", "FAIL:   "};
	va_list ap;

	printf("%s ", tag[level]);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	return level == 2;
}

/*
 * Parents: whoever may rename them may swap the cache directory; dl-stage
 * then refuses the impostor (not root's), so this is a warning.  Jobs need
 * search permission on every parent to reach their view.
 */
static void _check_parents(const char *dir)
{
	char *prefix = strdup(dir);

	for (char *p = prefix; p && (p = strchr(p + 1, '/'));) {
		struct stat sb;

		*p = '\0';
		if (!stat(prefix, &sb)) {
			if (sb.st_uid != 0)
				_finding(1, "%s is owned by uid %u, who can replace the cache directory",
					 prefix, (unsigned)sb.st_uid);
			if ((sb.st_mode & S_IWOTH) && !(sb.st_mode & S_ISVTX))
				_finding(1, "%s is writable by everyone without the sticky bit",
					 prefix);
			if (!(sb.st_mode & S_IXOTH))
				_finding(1, "%s is not searchable by others: jobs cannot reach their view",
					 prefix);
		}
		*p = '/';
	}
	free(prefix);
}

/* A user must not keep a hard link to a cached file after the job. */
static void _check_hardlinks(void)
{
	FILE *f;

	f = fopen("/proc/sys/fs/protected_hardlinks", "r");
	if (f) {
		int v = -1;

		if (fscanf(f, "%d", &v) == 1 && v == 1)
			_finding(0, "fs.protected_hardlinks = 1: users cannot keep links to cached files");
		else
			_finding(
				1,
				"fs.protected_hardlinks = %d: a user could hard-link a cached file to keep it after the job (set it to 1)",
				v);
		fclose(f);
	}
}

/* How the views are protected; RET 1 if they cannot be made. */
static int _check_acl(dl_stage_t *st, const char *dir)
{
	int rc = dl_stage_probe_acl(st);

	if (rc == 1)
		_finding(0, "views are protected by POSIX ACLs (root-owned, readable by the job's user only)");
	else if (rc == 0)
		_finding(1, "no POSIX ACLs on this file system: views are owned by their job's user (mode 0500)");
	else
		return _finding(2,
				"cannot create a scratch directory in %s/.tmp",
				dir);
	return 0;
}

/* What the store holds against its capacity; RET 1 if unreadable. */
static int _check_used(dl_stage_t *st, uint64_t capacity)
{
	uint64_t used = 0;
	int rc = dl_stage_foreach(st, _inv_noop, NULL, &used);

	if (rc)
		return _finding(2, "cannot list the store: %s",
				dl_strerror(rc));
	if (used > capacity)
		_finding(1, "the cache holds %" PRIu64 " bytes, more than its capacity %" PRIu64 " (files in use, or the capacity was lowered)",
			 used, capacity);
	else
		_finding(0, "the cache holds %" PRIu64 " bytes", used);
	return 0;
}

static int _check(void)
{
	char err[1024] = "";
	dl_stage_t *st = NULL;
	settings_t s;
	int fails = 0, rc;

	rc = _settings(&s, AS_ROOT);
	if (rc) {
		_finding(2, "configuration refused (see above)");
		return 1;
	}
	if (!s.dir) {
		_finding(2, "no cache directory: give --cache-dir or set CacheDir in datalocality.conf");
		return 1;
	}
	_finding(0, "cache directory %s (node %s, capacity %s, eviction %s)",
		 s.dir, s.node,
		 s.opts.capacity == DL_CACHE_UNLIMITED
			 ? "unlimited"
			 : _human(s.opts.capacity, (char[32]){0}, 32),
		 dl_evict_name(s.opts.policy));
	_check_parents(s.dir);
	rc = dl_stage_open(s.dir, &s.opts, 0, &st, err, sizeof(err));
	if (rc == DL_ENOENT) {
		_finding(1, "%s (the first Prolog creates it)", err);
		free(s.dir);
		return 0;
	}
	if (rc) {
		fails += _finding(2, "%s", err);
		free(s.dir);
		return 1;
	}
	_finding(0, "owned by uid %u, not writable by group or others, no symbolic links",
		 (unsigned)geteuid());
	fails += _check_acl(st, s.dir);
	_check_hardlinks();
	fails += _check_used(st, s.opts.capacity);
	dl_stage_close(st);
	free(s.dir);
	return fails ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"cache-dir", required_argument, NULL, 'd'},
		{"capacity", required_argument, NULL, 'c'},
		{"eviction", required_argument, NULL, 'e'},
		{"node", required_argument, NULL, 'n'},
		{"conf", required_argument, NULL, 'f'},
		{"job", required_argument, NULL, 'j'},
		{"to", required_argument, NULL, 't'},
		{"json", no_argument, NULL, 'J'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	static const struct {
		const char *name;
		enum mode mode;
	} modes[] = {
		{"prolog", M_PROLOG},       {"epilog", M_EPILOG},
		{"task-prolog", M_TASK_PROLOG}, {"inventory", M_INVENTORY},
		{"evict", M_EVICT},         {"check", M_CHECK},
		{"prolog_slurmd", M_PROLOG}, {"epilog_slurmd", M_EPILOG},
		{"prolog_task", M_TASK_PROLOG},
	};
	const char *name = NULL;
	enum mode mode = M_NONE;
	int c;

	while ((c = getopt_long(argc, argv, "qhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': opt.cache_dir = optarg; break;
		case 'c': opt.capacity = optarg; break;
		case 'e': opt.eviction = optarg; break;
		case 'n': opt.node = optarg; break;
		case 'f': opt.conf = optarg; break;
		case 'j': opt.job = optarg; break;
		case 't': opt.to = optarg; break;
		case 'J': opt.json = true; break;
		case 'q': opt.quiet = true; break;
		case 'h': _usage(stdout); return 0;
		case 'V': printf("dl-stage %s\n", PACKAGE_VERSION); return 0;
		default: _usage(stderr); return 2;
		}
	}
	if (optind < argc)
		name = argv[optind++];
	else
		name = getenv("SLURM_SCRIPT_CONTEXT");
	if (optind < argc || !name) {
		_usage(stderr);
		return 2;
	}
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (!strcmp(name, modes[i].name))
			mode = modes[i].mode;
	/* Files dl-stage creates get exactly the modes it asks for. */
	umask(022);
	switch (mode) {
	case M_PROLOG: return _prolog();
	case M_EPILOG: return _epilog();
	case M_TASK_PROLOG: return _task_prolog();
	case M_INVENTORY: return _inventory();
	case M_EVICT: return _evict();
	case M_CHECK: return _check();
	case M_NONE: break;
	}
	fprintf(stderr, "dl-stage: unknown mode '%s'\n", name);
	_usage(stderr);
	return 2;
}
