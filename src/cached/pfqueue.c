/*
 * pfqueue.c - dl-cached's PREFETCH requests waiting for a copying slot,
 * in arrival order (the controller sends them in Slurm's priority order);
 * see cached.h.  Pure bookkeeping, so that it is tested without a loop.
 */
#include <string.h>

#include "cached.h"

/* Remove entry i, keeping the order of the rest. */
static void _cut(cached_pfq_t *q, size_t i)
{
	memmove(&q->m[i], &q->m[i + 1], (q->n - i - 1) * sizeof(q->m[0]));
	q->n--;
}

bool cached_pfq_put(cached_pfq_t *q, dl_msg_t *m)
{
	size_t i;

	for (i = 0; i < q->n && q->m[i].job != m->job; i++)
		;
	if (i < q->n)
		dl_msg_free(&q->m[i]); /* a replacement keeps its place */
	else if (q->n == CACHED_PFQ_MAX)
		return false;
	else
		q->n++;
	q->m[i] = *m;
	dl_msg_init(m, m->type);
	return true;
}

bool cached_pfq_drop(cached_pfq_t *q, uint32_t job)
{
	for (size_t i = 0; i < q->n; i++)
		if ((uint32_t)q->m[i].job == job) {
			dl_msg_free(&q->m[i]);
			_cut(q, i);
			return true;
		}
	return false;
}

bool cached_pfq_pop(cached_pfq_t *q, dl_msg_t *out)
{
	if (!q->n)
		return false;
	*out = q->m[0];
	_cut(q, 0);
	return true;
}

void cached_pfq_clear(cached_pfq_t *q)
{
	for (size_t i = 0; i < q->n; i++)
		dl_msg_free(&q->m[i]);
	q->n = 0;
}
