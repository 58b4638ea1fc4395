/*
 * partition_exact.h - the partition of a hypergraph in which at most two
 * vertices are free, solved exactly by trying every choice of parts.
 *
 * Such graphs are most of the from-scratch partitions of a short queue:
 * the running jobs and cache anchors are fixed, and one or two jobs
 * arrived since the last plan.  PHG would spend nparts - 1 bisections of
 * ten tries each on a choice that takes nparts (or nparts^2) sums here.
 */
#ifndef DL_PARTITION_EXACT_H
#define DL_PARTITION_EXACT_H

#include <stdint.h>

#include "dl_hgraph.h"

/* Largest nparts for which two free vertices are tried pairwise. */
#define DL__EXACT_PAIR_MAX_PARTS 1024

/**
 * dl__exact_small - the best parts of h's one or two free vertices.
 * Best: every part they enter stays within cap (in vertex weight) if any
 * choice allows it, else the heaviest part they enter is as light as
 * possible; then the lowest connectivity-1 cut; then the lightest
 * heaviest part, the lightest pair, the lowest part numbers.  With one
 * free vertex that is the greedy partitioner's choice (partition.c).
 * OUT out - [nvtx]: fixed vertices their part, the free ones the best;
 *           untouched unless 1 is returned
 * IN max_free - solve only graphs with at most this many (1 or 2)
 * \return 1 (solved), 0 (no free vertex, more than max_free or 2, or 2
 * with more than DL__EXACT_PAIR_MAX_PARTS parts), DL_ENOMEM.
 */
int dl__exact_small(const dl_hgraph_t *h, double cap, uint32_t max_free,
		    int32_t *out);

/*
 * dl__exact_small_scan - dl__exact_small() with prune 1; with prune 0
 * every choice is tried (K^2 with two free vertices), for the test that
 * the pruned search gives the same parts (check_partition.c).
 * OUT rows - if not NULL, the rows of choices tried (a's parts)
 */
int dl__exact_small_scan(const dl_hgraph_t *h, double cap, uint32_t max_free,
			 int prune, int32_t *out, uint32_t *rows);

#endif /* DL_PARTITION_EXACT_H */
