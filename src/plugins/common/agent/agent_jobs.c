/* agent_jobs.c - the agent's per-job records; see agent_jobs.h. */
#include <stdio.h>
#include <string.h>

#include "src/common/slurm_xlator.h"

#include "src/common/log.h"
#include "src/common/xhash.h"
#include "src/common/xmalloc.h"

#include "agent_fnv.h"
#include "agent_jobs.h"

static xhash_t *jobs;
static uint64_t generation;

static void _id(void *item, const char **key, uint32_t *len)
{
	agent_job_t *ji = item;

	*key = ji->key;
	*len = strlen(ji->key);
}

static void _free(void *item)
{
	agent_job_t *ji = item;

	xfree(ji->files);
	xfree(ji);
}

void agent_jobs_init(void)
{
	agent_jobs_fini();
	jobs = xhash_init(_id, _free);
	generation++;
}

uint64_t agent_jobs_generation(void)
{
	return generation;
}

void agent_jobs_fini(void)
{
	if (jobs)
		xhash_free_ptr(&jobs);
}

agent_job_t *agent_jobs_get(uint32_t job_id, bool create)
{
	char key[12];
	agent_job_t *ji;

	snprintf(key, sizeof(key), "%u", job_id);
	ji = xhash_get_str(jobs, key);
	if (ji || !create)
		return ji;
	ji = xmalloc(sizeof(*ji));
	ji->job_id = job_id;
	memcpy(ji->key, key, sizeof(key));
	ji->cached_on = -1;
	ji->planned = -1;
	dl_place_init(&ji->place);
	xhash_add(jobs, ji);
	return ji;
}

typedef struct {
	uint64_t cycle;
	uint32_t *stale;
	uint32_t nstale, cap;
} stale_arg_t;

static void _find_stale(void *item, void *arg)
{
	agent_job_t *ji = item;
	stale_arg_t *sa = arg;

	if (ji->seen == sa->cycle)
		return;
	if (sa->nstale == sa->cap) {
		sa->cap = sa->cap ? sa->cap * 2 : 64;
		xrecalloc(sa->stale, sa->cap, sizeof(uint32_t));
	}
	sa->stale[sa->nstale++] = ji->job_id;
}

void agent_jobs_forget(uint64_t cycle)
{
	stale_arg_t sa = { .cycle = cycle };
	char key[12];
	uint32_t i;

	xhash_walk(jobs, _find_stale, &sa);
	for (i = 0; i < sa.nstale; i++) {
		snprintf(key, sizeof(key), "%u", sa.stale[i]);
		xhash_delete_str(jobs, key);
	}
	xfree(sa.stale);
}

typedef struct {
	void (*fn)(agent_job_t *ji, void *arg);
	void *arg;
} each_arg_t;

static void _each(void *item, void *arg)
{
	each_arg_t *e = arg;

	e->fn(item, e->arg);
}

void agent_jobs_foreach(void (*fn)(agent_job_t *ji, void *arg), void *arg)
{
	each_arg_t e = { fn, arg };

	if (jobs)
		xhash_walk(jobs, _each, &e);
}

uint32_t agent_jobs_count(void)
{
	return jobs ? xhash_count(jobs) : 0;
}

/* A comment's hash; 0 stands for none, so a comment's is never 0. */
static uint64_t _hash(const char *s)
{
	uint64_t h;

	if (!s)
		return 0;
	h = agent_fnv_str(AGENT_FNV_BASIS_SHORT, s);
	return h ? h : 1;
}

bool agent_jobs_changed(agent_job_t *ji, const char *comment)
{
	if (ji->parsed && !ji->reread && ji->comment_hash != _hash(comment)) {
		ji->reread = true;
		ji->task_id = AGENT_JOBS_REREAD;
	}
	return ji->reread;
}

void agent_jobs_parsed(agent_job_t *ji, const char *comment,
		       const char *pfx)
{
	if (ji->reread)
		info("%s: JobId=%u: its annotation changed, its files read again (%u files)",
		     pfx, ji->job_id, ji->nfiles);
	ji->reread = false;
	ji->comment_hash = _hash(comment);
}
