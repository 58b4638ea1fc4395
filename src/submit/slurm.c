/*
 * slurm.c - the one module of dl-submit that includes Slurm's header
 * (submit.h): a stream's job described as sbatch 22.05 describes it
 * (src/sbatch/sbatch.c _fill_job_desc_from_opts and slurm_opt.c
 * slurm_opt_create_job_desc with their defaults) and handed to
 * slurm_submit_batch_job(), one RPC, no process per job.
 */
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "submit.h"

extern char **environ;

/* As sbatch: MAX_RETRIES of src/sbatch/sbatch.c. */
#define SUB_RETRIES 15

static char sub_cwd[PATH_MAX];

void dl_sub_slurm_init(void)
{
	char host[256];

	if (!getcwd(sub_cwd, sizeof(sub_cwd)))
		strcpy(sub_cwd, "/tmp");
	/* sbatch puts these into the job's environment; jobs and Prologs
	 * may read them. */
	setenv("SLURM_SUBMIT_DIR", sub_cwd, 1);
	if (!gethostname(host, sizeof(host))) {
		host[sizeof(host) - 1] = '\0';
		setenv("SLURM_SUBMIT_HOST", host, 1);
	}
	slurm_init(NULL);
}

void dl_sub_slurm_fini(void)
{
	slurm_fini();
}

/* *id from a decimal s; \return 0, or -1 if s is not one (a name). */
static int _id(const char *s, uint32_t *id)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (*s && !*end && !errno && v < UINT32_MAX) {
		*id = (uint32_t)v;
		return 0;
	}
	return -1;
}

/* The job's user and group: --uid/--gid (a user's primary group unless
 * --gid), else ours. */
static int _owner(const dl_sub_job_t *job, job_desc_msg_t *d, char *err,
		  size_t errlen)
{
	struct passwd *pw;
	struct group *gr;

	d->user_id = getuid();
	d->group_id = getgid();
	if (job->uid) {
		pw = _id(job->uid, &d->user_id) ? getpwnam(job->uid)
						 : getpwuid(d->user_id);
		if (!pw) {
			snprintf(err, errlen, "unknown user '%s'", job->uid);
			return -1;
		}
		d->user_id = pw->pw_uid;
		d->group_id = pw->pw_gid;
	}
	if (job->gid && _id(job->gid, &d->group_id)) {
		if (!(gr = getgrnam(job->gid))) {
			snprintf(err, errlen, "unknown group '%s'", job->gid);
			return -1;
		}
		d->group_id = gr->gr_gid;
	}
	return 0;
}

/* The batch script: the file's text (it must start with #!, as sbatch
 * requires), or the wrapped command as sbatch --wrap writes it.  \return a
 * malloc()ed string (the caller frees) or NULL with err set. */
static char *_script(const dl_sub_job_t *job, char *err, size_t errlen)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	if (job->wrap) {
		if (asprintf(&text, "#!/bin/sh\n# This script was created by "
				    "dl-submit --wrap.\n\n%s\n",
			     job->wrap) < 0)
			text = NULL;
		return text;
	}
	if (!(f = fopen(job->script, "re"))) {
		snprintf(err, errlen, "%s: %s", job->script, strerror(errno));
		return NULL;
	}
	if (getdelim(&text, &len, '\0', f) < 0 || strncmp(text, "#!", 2)) {
		snprintf(err, errlen, "%s: not a script (no #! line)",
			 job->script);
		free(text);
		text = NULL;
	}
	fclose(f);
	return text;
}

/* The sizes and shape sbatch would send for the job's options. */
static void _shape(const dl_sub_job_t *job, job_desc_msg_t *d)
{
	uint32_t ntasks = job->ntasks ? job->ntasks : 1;

	d->contiguous = 0;
	if (job->time_limit)
		d->time_limit = job->time_limit == UINT32_MAX ? INFINITE
							      : job->time_limit;
	if (job->nodes_min) {
		d->min_nodes = job->nodes_min;
		d->max_nodes = job->nodes_max;
	}
	if (job->ntasks) {
		d->bitflags |= JOB_NTASKS_SET;
		d->num_tasks = job->ntasks;
	}
	if (job->cpus_per_task) {
		d->bitflags |= JOB_CPUS_SET;
		d->cpus_per_task = (uint16_t)job->cpus_per_task;
		d->min_cpus = ntasks * job->cpus_per_task;
	} else {
		d->min_cpus = ntasks;
	}
	if (job->mem_mb) /* as sbatch --mem=N: MB per node */
		d->pn_min_memory = job->mem_mb;
	if (job->exclusive)
		d->shared = JOB_SHARED_NONE;
	/* As sbatch --hold: a user hold, lifted by scontrol release. */
	if (job->hold)
		d->priority = 0;
}

/* The default name: "wrap", or the script's file name, as sbatch. */
static const char *_name(const dl_sub_job_t *job)
{
	const char *slash;

	if (job->name)
		return job->name;
	if (job->wrap)
		return "wrap";
	slash = strrchr(job->script, '/');
	return slash ? slash + 1 : job->script;
}

/* One call, retried while slurmctld asks for it.  \return 0 or errno. */
static int _call(job_desc_msg_t *d, uint32_t *job_id)
{
	submit_response_msg_t *resp = NULL;
	int retries = 0, e;

	for (;;) {
		if (!slurm_submit_batch_job(d, &resp)) {
			*job_id = resp->job_id;
			slurm_free_submit_response_response_msg(resp);
			return 0;
		}
		e = errno;
		if ((e != EAGAIN && e != ESLURM_ERROR_ON_DESC_TO_RECORD_COPY) ||
		    retries >= SUB_RETRIES)
			return e ? e : SLURM_ERROR;
		retries++;
		/* Shorter than sbatch's retries-many seconds: the lag this
		 * costs is measured, and a stream should catch up soon. */
		usleep(200000u * (useconds_t)(retries < 5 ? retries : 5));
	}
}

int dl_sub_slurm_submit(const dl_sub_job_t *job, void *arg, uint32_t *job_id,
			char *err, size_t errlen)
{
	job_desc_msg_t d;
	char *script, *argv[2];
	int e;

	(void)arg;
	slurm_init_job_desc_msg(&d);
	if (_owner(job, &d, err, errlen) ||
	    !(script = _script(job, err, errlen)))
		return -1;
	d.script = script;
	d.name = (char *)_name(job);
	d.comment = job->comment;
	d.partition = job->partition;
	d.array_inx = job->array;
	d.std_out = job->output;
	d.std_err = job->error;
	d.req_nodes = job->nodelist;
	d.work_dir = job->chdir ? job->chdir : sub_cwd;
	d.environment = environ;
	for (d.env_size = 0; environ[d.env_size]; d.env_size++)
		;
	if (job->script) {
		argv[0] = job->script;
		argv[1] = NULL;
		d.argc = 1;
		d.argv = argv;
	}
	_shape(job, &d);
	e = _call(&d, job_id);
	free(script);
	if (e)
		snprintf(err, errlen, "slurm_submit_batch_job: %s",
			 slurm_strerror(e));
	return e ? -1 : 0;
}
