/*
 * agent_credit.c - the staging records of agent_credit.h: a flat array
 * under one mutex.  Jobs staging at one time are few (one per CPU of a
 * node at most), so a linear search is cheaper than any index.  The
 * array is malloc'd here and freed by agent_credit_clear().
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "agent_credit.h"

static agent_credit_rec_t *recs;
static size_t nrecs, cap;
static pthread_mutex_t credit_lock = PTHREAD_MUTEX_INITIALIZER;

/* Caller holds credit_lock.  RET the record, created if asked, or NULL. */
static agent_credit_rec_t *_find(uint32_t node, uint32_t job_id, bool make)
{
	agent_credit_rec_t *n;

	for (size_t i = 0; i < nrecs; i++)
		if (recs[i].job_id == job_id && recs[i].node == node)
			return &recs[i];
	if (!make || nrecs >= AGENT_CREDIT_MAX_RECORDS)
		return NULL;
	if (nrecs == cap) {
		size_t c = cap ? cap * 2 : 16;

		if (!(n = realloc(recs, c * sizeof(*recs))))
			return NULL;
		recs = n;
		cap = c;
	}
	n = &recs[nrecs++];
	memset(n, 0, sizeof(*n));
	n->job_id = job_id;
	n->node = node;
	/* A new node of a job already credited keeps the job's credit. */
	for (size_t i = 0; i + 1 < nrecs; i++)
		if (recs[i].job_id == job_id) {
			n->applied = recs[i].applied;
			n->set_end = recs[i].set_end;
			break;
		}
	return n;
}

void agent_credit_note(uint32_t node, uint32_t job_id, bool done,
		       uint64_t secs, time_t now)
{
	agent_credit_rec_t *r;

	if (secs > UINT32_MAX)
		secs = UINT32_MAX;
	pthread_mutex_lock(&credit_lock);
	if ((r = _find(node, job_id, true))) {
		if (!done) {
			r->begin = now;
			r->end = 0;
			r->secs = 0;
			r->said = false;
		} else {
			if (!r->begin || r->end)
				r->begin = now - (time_t)secs;
			r->end = now;
			r->secs = (uint32_t)secs;
		}
	}
	pthread_mutex_unlock(&credit_lock);
}

size_t agent_credit_copy(agent_credit_rec_t **out)
{
	size_t n;

	*out = NULL;
	pthread_mutex_lock(&credit_lock);
	n = nrecs;
	if (n && (*out = malloc(n * sizeof(**out))))
		memcpy(*out, recs, n * sizeof(**out));
	else
		n = 0;
	pthread_mutex_unlock(&credit_lock);
	return n;
}

uint32_t agent_credit_owed(const agent_credit_rec_t *r, time_t now,
			   time_t start)
{
	time_t begin = r->begin > start ? r->begin : start;
	int64_t s;

	/*
	 * Ended: the node's own measure (no channel delay in it), but never
	 * more than the job has run; staging: the seconds so far.
	 */
	if (r->end) {
		s = r->end - start;
		if ((int64_t)r->secs < s)
			s = r->secs;
	} else {
		s = now - begin;
	}
	return s > 0 ? (uint32_t)(s < UINT32_MAX ? s : UINT32_MAX) : 0;
}

void agent_credit_set(uint32_t job_id, uint32_t applied, time_t set_end,
		      bool said)
{
	pthread_mutex_lock(&credit_lock);
	for (size_t i = 0; i < nrecs; i++)
		if (recs[i].job_id == job_id) {
			recs[i].applied = applied;
			recs[i].set_end = set_end;
			recs[i].said = recs[i].said || said;
		}
	pthread_mutex_unlock(&credit_lock);
}

void agent_credit_forget(uint32_t job_id)
{
	pthread_mutex_lock(&credit_lock);
	for (size_t i = 0; i < nrecs;)
		if (recs[i].job_id == job_id)
			recs[i] = recs[--nrecs];
		else
			i++;
	pthread_mutex_unlock(&credit_lock);
}

void agent_credit_clear(void)
{
	pthread_mutex_lock(&credit_lock);
	free(recs);
	recs = NULL;
	nrecs = cap = 0;
	pthread_mutex_unlock(&credit_lock);
}
