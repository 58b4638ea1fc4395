/*
 * dl_hgraph.h - the file-sharing hypergraph of online-hps-khanna §4.2.
 *
 * Vertices: pending jobs (weight = eq. 6 estimate), running jobs (weight =
 * remaining time, fixed to their node's part), and one zero-weight vertex
 * per node that caches files, fixed to that node, so cached files attract
 * jobs even to a node with no running job.  Nets: files, cost = size in
 * bytes, pinning the pending jobs that need the file, the running jobs
 * that need it, and the anchor vertex of every node caching it.  Parts:
 * the usable nodes, part p is node part_node[p].
 *
 * Arrays use compressed sparse rows; every array is owned by the graph.
 */
#ifndef DL_HGRAPH_H
#define DL_HGRAPH_H

#include <stdint.h>

#include "dl_state.h"

/* vjob[] value of a node's anchor vertex. */
#define DL_HG_ANCHOR UINT32_MAX

typedef struct dl_hgraph {
	uint32_t nvtx;
	double *vwgt;        /* [nvtx] vertex weights, seconds */
	int32_t *fixed;      /* [nvtx] part a vertex is fixed to, or -1 */
	uint32_t *vjob;      /* [nvtx] index into state->jobs or DL_HG_ANCHOR */
	uint32_t nnets;
	uint32_t *net_file;  /* [nnets] tracker file id of each net */
	double *ncost;       /* [nnets] net cost: file size in bytes */
	uint32_t *xpins;     /* [nnets + 1] offsets into pins */
	uint32_t *pins;      /* [xpins[nnets]] vertex ids */
	uint32_t nparts;
	uint32_t *part_node; /* [nparts] node index of each part */
	int32_t *node_part;  /* [state->nnodes] part of each node, or -1 */
} dl_hgraph_t;

/**
 * dl_hgraph_build - the hypergraph of a state.  Only nets with at least
 * one pending pin are kept (others cannot change the cut).  Pending jobs
 * that can run nowhere are left out.
 * OUT out - a new graph, free with dl_hgraph_free()
 * \return 0, DL_EINVAL (no usable node), DL_ENOMEM.
 */
int dl_hgraph_build(const dl_state_t *st, dl_hgraph_t **out);

/* dl_hgraph_free - free a graph; NULL is a no-op. */
void dl_hgraph_free(dl_hgraph_t *h);

/**
 * dl_hgraph_cut - connectivity-1 cut, sum over nets of cost * (lambda - 1)
 * where lambda is the number of distinct parts among a net's pins.
 * IN part - [nvtx] part of every vertex (all in [0, nparts))
 */
double dl_hgraph_cut(const dl_hgraph_t *h, const int32_t *part);

/**
 * dl_hgraph_cut_share - a cut as a share of the sum of h's net costs (the
 * cut of a partition that put every net's pins in parts of their own), 0
 * when the nets cost nothing; comparable across graphs of other sizes.
 */
double dl_hgraph_cut_share(const dl_hgraph_t *h, double cut);

/**
 * dl_hgraph_imbalance - max part weight / mean part weight - 1.
 */
double dl_hgraph_imbalance(const dl_hgraph_t *h, const int32_t *part);

#endif /* DL_HGRAPH_H */
