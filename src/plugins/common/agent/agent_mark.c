/*
 * agent_mark.c - the jobs whose list the plugin set; see agent_mark.h.
 * A chained hash of job ids; entries are malloc'd here and freed by
 * agent_mark_forget() (a job cancelled while pending under a list of the
 * plugin's keeps its few bytes until slurmctld exits).
 */
#include <pthread.h>
#include <stdlib.h>

#include "agent_mark.h"

#define MARK_BUCKETS 4096

typedef struct mark {
	uint32_t job_id;
	struct mark *next;
} mark_t;

static mark_t *buckets[MARK_BUCKETS];
static pthread_mutex_t mark_lock = PTHREAD_MUTEX_INITIALIZER;

/* Caller holds mark_lock. */
static mark_t **_slot(uint32_t job_id)
{
	mark_t **p = &buckets[job_id % MARK_BUCKETS];

	while (*p && (*p)->job_id != job_id)
		p = &(*p)->next;
	return p;
}

void agent_mark_set(uint32_t job_id)
{
	mark_t **p;

	pthread_mutex_lock(&mark_lock);
	p = _slot(job_id);
	/* Out of memory: no mark, the SystemComment judges. */
	if (!*p && (*p = calloc(1, sizeof(mark_t))))
		(*p)->job_id = job_id;
	pthread_mutex_unlock(&mark_lock);
}

void agent_mark_forget(uint32_t job_id)
{
	mark_t **p, *m;

	pthread_mutex_lock(&mark_lock);
	p = _slot(job_id);
	if ((m = *p)) {
		*p = m->next;
		free(m);
	}
	pthread_mutex_unlock(&mark_lock);
}

bool agent_mark_known(uint32_t job_id)
{
	bool known;

	pthread_mutex_lock(&mark_lock);
	known = *_slot(job_id) != NULL;
	pthread_mutex_unlock(&mark_lock);
	return known;
}
