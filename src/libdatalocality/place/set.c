/*
 * set.c - choosing the k nodes of a multi-node job; see dl_place_set.h.
 */
#include <math.h>
#include <stdlib.h>

#include "dl_error.h"
#include "place/dl_place_set.h"

typedef struct {
	uint32_t node;
	uint64_t bytes;
} cand_t;

/* Most cached bytes first, then the lower index: a stable choice. */
static int _by_bytes(const void *a, const void *b)
{
	const cand_t *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node;
}

static int _by_index(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Whether j may start on n as the host sees it now (any slot count). */
static int _candidate(const dl_state_t *st, const dl_job_t *j, uint32_t n)
{
	const dl_node_t *nd = &st->nodes[n];

	return nd->usable && nd->cpus >= j->cpus &&
	       (!j->eligible || j->eligible[n]);
}

int dl_place_set_choose(const dl_state_t *st, const dl_job_t *j, uint32_t k,
			uint32_t *set)
{
	cand_t *c;
	uint32_t n, m = 0, i;
	int held = 0;

	if (!st || !j || !set || k == 0 || k > st->nnodes)
		return DL_EINVAL;
	/* Owned here, freed before return. */
	if (!(c = malloc(st->nnodes * sizeof(*c))))
		return DL_ENOMEM;
	for (n = 0; n < st->nnodes; n++)
		if (_candidate(st, j, n))
			c[m++] = (cand_t){ n, dl_place_cached_bytes(st, j, n) };
	if (m < k) {
		free(c);
		return DL_EINVAL;
	}
	qsort(c, m, sizeof(*c), _by_bytes);
	for (i = 0; i < k; i++) {
		set[i] = c[i].node;
		held += c[i].bytes > 0;
	}
	free(c);
	qsort(set, k, sizeof(*set), _by_index);
	return held;
}

double dl_place_set_bound(const dl_state_t *st, const dl_job_t *j,
			  const uint32_t *set, uint32_t k,
			  const dl_place_params_t *p)
{
	double b = INFINITY, x;
	uint32_t i;

	if (p->strict)
		return INFINITY;
	for (i = 0; i < k; i++)
		if ((x = dl_place_bound(st, j, set[i], p)) < b)
			b = x;
	return k ? b : p->min_wait;
}

uint64_t dl_place_set_cached_bytes(const dl_state_t *st, const dl_job_t *j,
				   const uint32_t *set, uint32_t k)
{
	uint64_t b = UINT64_MAX, x;
	uint32_t i;

	for (i = 0; i < k; i++)
		if ((x = dl_place_cached_bytes(st, j, set[i])) < b)
			b = x;
	return k ? b : 0;
}
