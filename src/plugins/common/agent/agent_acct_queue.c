/*
 * agent_acct_queue.c - the reports waiting for the agent thread; see
 * agent_acct.h.  A growing array under its own mutex, bounded by
 * AGENT_ACCT_QUEUE_MAX; taken whole by the agent thread.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "dl_error.h"
#include "agent_acct.h"
#include "agent_rates.h"

static struct {
	pthread_mutex_t lock;
	agent_acct_item_t *v;   /* malloc'd; handed over by _take() */
	size_t n, cap;
	uint64_t dropped;
	void (*wake)(void);     /* agent_acct_on_put()'s */
} q = { .lock = PTHREAD_MUTEX_INITIALIZER };

void agent_acct_on_put(void (*wake)(void))
{
	pthread_mutex_lock(&q.lock);
	q.wake = wake;
	pthread_mutex_unlock(&q.lock);
}

void agent_acct_from_report(const dl_msg_count_t *c, dl_acct_t *a)
{
	memset(a, 0, sizeof(*a));
	a->files = c->files;
	a->cached = c->hits;
	a->cached_bytes = c->bytes_hit;
	a->peer = c->from_peers;
	a->peer_bytes = c->peer_bytes;
	/* Copies not from a peer came from the storage (dl-cached sends
	 * storage_bytes as bytes_copied - peer_bytes). */
	a->storage = c->copied > c->from_peers ? c->copied - c->from_peers : 0;
	a->storage_bytes = c->storage_bytes;
	a->direct = c->uncached;
	a->direct_bytes = c->bytes_uncached;
	a->staged_ms = c->staged_ms;
	a->nodes = 1;
}

int agent_acct_put(uint32_t job, const dl_msg_count_t *c)
{
	int rc = 0;
	void (*wake)(void);

	if (!job)
		return DL_EINVAL;
	/* What the copies took teaches the rates, queue full or not. */
	agent_rates_note(AGENT_RATE_STORAGE, c->storage_bytes, c->storage_us);
	agent_rates_note(AGENT_RATE_PEER, c->peer_bytes, c->peer_us);
	pthread_mutex_lock(&q.lock);
	if (q.n == q.cap) {
		size_t cap = q.cap ? q.cap * 2 : 64;
		agent_acct_item_t *v = NULL;

		if (cap > AGENT_ACCT_QUEUE_MAX)
			cap = AGENT_ACCT_QUEUE_MAX;
		if (cap > q.n)
			v = realloc(q.v, cap * sizeof(*v));
		if (v) {
			q.v = v;
			q.cap = cap;
		}
	}
	if (q.n < q.cap) {
		q.v[q.n].job = job;
		agent_acct_from_report(c, &q.v[q.n].a);
		q.n++;
	} else {
		q.dropped++;
		rc = DL_ETOOBIG;
	}
	wake = q.wake;
	pthread_mutex_unlock(&q.lock);
	/* Outside the queue's lock: the woken thread takes it at once. */
	if (wake)
		wake();
	return rc;
}

size_t agent_acct_take(agent_acct_item_t **items, uint64_t *dropped)
{
	size_t n;

	pthread_mutex_lock(&q.lock);
	n = q.n;
	*items = NULL;
	/* Handed over whole: the next report starts a new array. */
	if (n) {
		*items = q.v;
		q.v = NULL;
		q.n = q.cap = 0;
	}
	*dropped = q.dropped;
	q.dropped = 0;
	pthread_mutex_unlock(&q.lock);
	return n;
}
