/* mintree.c - minima of n values under updates; see mintree.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dl_error.h"
#include "mintree.h"

int dl__mintree_init(dl__mintree_t *t, uint32_t n)
{
	uint32_t i;

	t->n = n;
	t->size = 1;
	while (t->size < n)
		t->size *= 2;
	t->v = malloc(2 * (size_t)t->size * sizeof(*t->v));
	if (!t->v) {
		t->n = t->size = 0;
		return DL_ENOMEM;
	}
	for (i = 0; i < 2 * t->size; i++)
		t->v[i] = INFINITY;
	return 0;
}

void dl__mintree_fini(dl__mintree_t *t)
{
	free(t->v);
	t->v = NULL;
	t->n = t->size = 0;
}

void dl__mintree_set(dl__mintree_t *t, uint32_t i, double x)
{
	size_t k;

	if (i >= t->n)
		return;
	k = (size_t)t->size + i;
	t->v[k] = x;
	for (k /= 2; k >= 1; k /= 2) {
		double m = t->v[2 * k] < t->v[2 * k + 1] ? t->v[2 * k] :
							    t->v[2 * k + 1];

		/* Every minimum above is made of the same values (bit for
		 * bit) as before: the whole tree is what a walk to the root
		 * would leave, at a few levels per set instead of log n. */
		if (!memcmp(&m, &t->v[k], sizeof(m)))
			return;
		t->v[k] = m;
	}
}

void dl__mintree_put(dl__mintree_t *t, uint32_t i, double x)
{
	if (i < t->n)
		t->v[(size_t)t->size + i] = x;
}

void dl__mintree_build(dl__mintree_t *t)
{
	size_t k;

	/* The same comparison as dl__mintree_set(): the same tree. */
	for (k = t->size; k-- > 1;)
		t->v[k] = t->v[2 * k] < t->v[2 * k + 1] ? t->v[2 * k] :
							   t->v[2 * k + 1];
}

double dl__mintree_get(const dl__mintree_t *t, uint32_t i)
{
	return i < t->n ? t->v[(size_t)t->size + i] : INFINITY;
}

/* The least value of indices [lo, hi) under tree node k, covering [l, r). */
static double _min(const dl__mintree_t *t, size_t k, uint32_t l, uint32_t r,
		   uint32_t lo, uint32_t hi)
{
	uint32_t m = l + (r - l) / 2;
	double a, b;

	if (hi <= l || r <= lo)
		return INFINITY;
	if (lo <= l && r <= hi)
		return t->v[k];
	a = _min(t, 2 * k, l, m, lo, hi);
	b = _min(t, 2 * k + 1, m, r, lo, hi);
	return a < b ? a : b;
}

/* The lowest index >= lo under node k (covering [l, r)) with a value of
 * at most x, or -1: subtrees whose minimum is above x are skipped. */
static int64_t _first(const dl__mintree_t *t, size_t k, uint32_t l,
		      uint32_t r, uint32_t lo, double x)
{
	uint32_t m = l + (r - l) / 2;
	int64_t a;

	if (r <= lo || !(t->v[k] <= x))
		return -1;
	if (r - l == 1)
		return l;
	a = _first(t, 2 * k, l, m, lo, x);
	return a >= 0 ? a : _first(t, 2 * k + 1, m, r, lo, x);
}

int64_t dl__mintree_first_le(const dl__mintree_t *t, double x, uint32_t skip)
{
	int64_t i;

	if (!t->n)
		return -1;
	i = _first(t, 1, 0, t->size, 0, x);
	if (i >= 0 && (uint32_t)i == skip)
		i = _first(t, 1, 0, t->size, skip + 1, x);
	return i >= 0 && (uint32_t)i < t->n ? i : -1;
}

int64_t dl__mintree_argmin(const dl__mintree_t *t, uint32_t skip)
{
	double a, b, m;

	if (!t->n)
		return -1;
	a = skip < t->n ? _min(t, 1, 0, t->size, 0, skip) : t->v[1];
	b = skip < t->n ? _min(t, 1, 0, t->size, skip + 1, t->size) :
			  INFINITY;
	m = a < b ? a : b;
	if (!isfinite(m))
		return -1;
	/* The first index other than skip holding m holds the minimum. */
	return dl__mintree_first_le(t, m, skip);
}
