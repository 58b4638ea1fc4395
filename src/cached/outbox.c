/*
 * outbox.c - what dl-cached has to tell the controller while it cannot:
 * the frames of job REPORTs, STAGING and PREFETCH_DONE made while the
 * connection is down (slurmctld restarting, `scontrol reconfigure` on
 * 24.11 re-executing it), kept in order until the next HELLO; see
 * cached.h.  Pure bookkeeping, so that it is tested without a loop.
 */
#include <stdlib.h>
#include <string.h>

#include "cached.h"

bool cached_outbox_put(cached_outbox_t *o, uint32_t type, const char *body,
		       size_t n)
{
	cached_out_t *e;
	char *copy;

	if (o->n == CACHED_OUTBOX_MAX || n > CACHED_OUTBOX_BYTES - o->bytes ||
	    !(copy = malloc(n ? n : 1))) {
		o->dropped++;
		return false;
	}
	memcpy(copy, body, n);
	e = &o->v[(o->head + o->n++) % CACHED_OUTBOX_MAX];
	*e = (cached_out_t){ .type = type, .body = copy, .n = n };
	o->bytes += n;
	return true;
}

const cached_out_t *cached_outbox_peek(const cached_outbox_t *o)
{
	return o->n ? &o->v[o->head] : NULL;
}

void cached_outbox_pop(cached_outbox_t *o)
{
	cached_out_t *e = &o->v[o->head];

	if (!o->n)
		return;
	o->bytes -= e->n;
	free(e->body);
	e->body = NULL;
	o->head = (o->head + 1) % CACHED_OUTBOX_MAX;
	o->n--;
}

void cached_outbox_clear(cached_outbox_t *o)
{
	while (o->n)
		cached_outbox_pop(o);
}
