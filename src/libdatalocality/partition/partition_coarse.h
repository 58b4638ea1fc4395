/*
 * partition_coarse.h - internal to partition.c: a smaller graph with the
 * same cuts, for a from-scratch partition over the helper's work budget
 * (dl_partition_opts_t.work_budget).
 *
 * Free vertices with the same shared nets (nets of two or more pins; a
 * net of one pin never adds to the cut) are interchangeable for the cut:
 * job arrays reading one set of inputs, jobs of one private input each
 * beside a shared reference.  They are merged into one vertex of their
 * summed weight, in chunks of at most a fraction of the mean part weight
 * so that the helper can still balance the parts; fixed vertices stay as
 * they are, nets left with one pin are dropped.  Every partition of the
 * coarse graph, read back through map[], is a partition of the fine one
 * with the same cut, so the helper's multilevel partition of the coarse
 * graph (within budget) replaces the library's initial partition, which
 * cut 1.56x PHG's at 200,000 jobs x 1,024 nodes (doc/benchmarks.md).
 * O(pins log pins); deterministic.
 */
#ifndef DL_PARTITION_COARSE_H
#define DL_PARTITION_COARSE_H

#include <stdint.h>

#include "dl_hgraph.h"

/* A chunk of identical vertices weighs at most the mean part weight over
 * this (plus one vertex).  Zoltan's recursive bisection misses its
 * balance tolerance with coarser chunks: on contrib/bench_replan's
 * 200,000 jobs x 1,024 nodes PHG's parts of the coarse graph were 28.6%
 * over the mean with 4, 11.1% with 8, 9.9% (within 1.1) with 16 and 32;
 * the cut was 0.94-0.98x PHG's on the whole graph with any of them. */
#define DL__COARSE_CHUNK_DIV 32.0

/**
 * dl__coarsen - merge the free vertices of h that have the same shared
 * nets, in chunks of weight about mean part weight / chunk_div at most.
 * h must be valid (partition.c checks it).
 * OUT c - the coarse graph: nvtx, vwgt, fixed, nnets, ncost, xpins, pins
 *         and nparts are set, the other pointers NULL; free its arrays
 *         with dl__coarse_free(); zeroed on error
 * OUT map - [h->nvtx] the coarse vertex of every vertex of h
 * \return 0 or DL_ENOMEM.
 */
int dl__coarsen(const dl_hgraph_t *h, double chunk_div, dl_hgraph_t *c,
		uint32_t *map);

/* dl__coarse_free - free the arrays dl__coarsen() allocated in c (not c
 * itself) and zero it. */
void dl__coarse_free(dl_hgraph_t *c);

#endif /* DL_PARTITION_COARSE_H */
