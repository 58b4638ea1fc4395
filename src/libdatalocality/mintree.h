/*
 * mintree.h - internal: n values under updates, and the questions the
 * guard's estimate asks of its nodes' queues at every waiting job (which
 * node is free by a time, which frees first) in O(log n) instead of a
 * scan of every node: at 16,000 pending jobs on 64 nodes that scan was
 * 10% of dl-sim's time on data-diffusion-raicu's ramp.
 *
 * A segment tree of minima over a power-of-two number of leaves; values
 * start at +infinity ("no such node").  Ties go to the lowest index, as
 * in the scans it replaces.
 */
#ifndef DL_MINTREE_H
#define DL_MINTREE_H

#include <stdint.h>

typedef struct {
	double *v;     /* [2 * size]: v[1] the root, leaves at size + i */
	uint32_t n;    /* values */
	uint32_t size; /* leaves, a power of two >= n */
} dl__mintree_t;

/* dl__mintree_init - n values, all +infinity.  \return 0 or DL_ENOMEM
 * (then *t is empty; fini is still safe). */
int dl__mintree_init(dl__mintree_t *t, uint32_t n);

/* dl__mintree_fini - free t's memory (owned by t). */
void dl__mintree_fini(dl__mintree_t *t);

/* dl__mintree_set - value i is now x (i >= n is ignored). */
void dl__mintree_set(dl__mintree_t *t, uint32_t i, double x);

/*
 * dl__mintree_put - value i is now x, in its leaf only (i >= n is
 * ignored): after puts, dl__mintree_build() before any question or set.
 */
void dl__mintree_put(dl__mintree_t *t, uint32_t i, double x);

/* dl__mintree_build - the minima above the leaves, in O(size): n puts and
 * one build cost what n sets cost in O(n log n) (the guard loads every
 * node's queue at every estimate). */
void dl__mintree_build(dl__mintree_t *t);

/* dl__mintree_get - value i (+infinity if i >= n). */
double dl__mintree_get(const dl__mintree_t *t, uint32_t i);

/* dl__mintree_first_le - the lowest index other than skip whose value is
 * at most x, or -1. */
int64_t dl__mintree_first_le(const dl__mintree_t *t, double x, uint32_t skip);

/* dl__mintree_argmin - the lowest index other than skip with the least
 * finite value, or -1 if there is none. */
int64_t dl__mintree_argmin(const dl__mintree_t *t, uint32_t skip);

#endif /* DL_MINTREE_H */
