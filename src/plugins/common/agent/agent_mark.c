/*
 * agent_mark.c - the plugin's own required node lists; see agent_mark.h.
 * A chained hash of job ids; entries are malloc'd here and freed by
 * agent_mark_forget() (a job that ends pending under a list of its own
 * keeps its few bytes until slurmctld exits).
 */
#include <pthread.h>
#include <stdlib.h>

#include "agent_mark.h"

#define MARK_BUCKETS 4096

typedef struct mark {
	uint32_t job_id;
	const void *bitmap;
	time_t conf_time;
	struct mark *next;
} mark_t;

static mark_t *buckets[MARK_BUCKETS];
static pthread_mutex_t mark_lock = PTHREAD_MUTEX_INITIALIZER;

static mark_t **_slot(uint32_t job_id)
{
	mark_t **p = &buckets[job_id % MARK_BUCKETS];

	while (*p && (*p)->job_id != job_id)
		p = &(*p)->next;
	return p;
}

/* Caller holds mark_lock. */
static void _set(uint32_t job_id, const void *bitmap, time_t conf_time)
{
	mark_t **p = _slot(job_id);

	if (!*p) {
		if (!(*p = calloc(1, sizeof(mark_t))))
			return; /* no mark: the SystemComment judges */
		(*p)->job_id = job_id;
	}
	(*p)->bitmap = bitmap;
	(*p)->conf_time = conf_time;
}

void agent_mark_set(uint32_t job_id, const void *bitmap, time_t conf_time)
{
	pthread_mutex_lock(&mark_lock);
	_set(job_id, bitmap, conf_time);
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

bool agent_mark_replaced(uint32_t job_id, const void *bitmap,
			 time_t conf_time)
{
	bool replaced = false;
	mark_t *m;

	pthread_mutex_lock(&mark_lock);
	m = *_slot(job_id);
	if (m && m->conf_time == conf_time)
		replaced = m->bitmap != bitmap;
	else
		_set(job_id, bitmap, conf_time);
	pthread_mutex_unlock(&mark_lock);
	return replaced;
}
