/*
 * partition_fill.h - internal to partition.c: a cheap initial partition
 * for a graph whose from-scratch partition by the helper would exceed its
 * work budget (dl_partition_opts_t.work_budget).
 *
 * The free vertices are ordered breadth-first over the nets (from a
 * vertex to the other vertices of its nets, costliest nets first), so
 * that jobs sharing files are neighbours, and the order is cut into
 * consecutive runs of about the mean part weight, one part each; fixed
 * vertices stay.  O(pins + nparts) but for a tail that does not fit, and
 * deterministic.  The caller refines the result (k-way moves): on the
 * 100,000-job x 1,024-node graph of contrib/bench_replan (budget=5e6) the
 * refined fill cut 1.46x Zoltan's, refined greedy 2.8x (doc/benchmarks.md).
 */
#ifndef DL_PARTITION_FILL_H
#define DL_PARTITION_FILL_H

#include <stdint.h>

#include "dl_hgraph.h"

/**
 * dl__partition_fill - out[v] for every vertex: its fixed part, or the
 * part of its run.  h must be valid (partition.c checks it).
 * \return 0 or DL_ENOMEM (out partly written).
 */
int dl__partition_fill(const dl_hgraph_t *h, int32_t *out);

#endif /* DL_PARTITION_FILL_H */
