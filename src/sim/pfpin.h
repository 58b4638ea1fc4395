/*
 * pfpin.h - the pins of the Slurm plugin agent's prefetches, in dl-sim.
 *
 * The agent's PREFETCH makes the node's dl-stage pin every file it names
 * for the pending job (dl_stage_prefetch()): those it copies and those
 * the node caches already.  The pins hold until the job starts there (its
 * Prolog takes them over), the agent cancels the prefetch (the job left
 * the head of the node's queue) or they expire.  So a prefetched file is
 * never evicted by the next copy before its job reads it: the cache
 * evicts older, unpinned files instead, possibly the last copy of a file
 * in the cluster, which the next job reading it then gets from storage.
 *
 * dl-sim holds the pins each full plan lists (dl_plan_t.pins, filled by
 * dl_plan_prefetch()) until the next full plan: a cached file's at once,
 * a file still to be copied when its copy is inserted.
 */
#ifndef DL_SIM_PFPIN_H
#define DL_SIM_PFPIN_H

#include <stddef.h>
#include <stdint.h>

#include "dl_cache.h"
#include "dl_policy.h"

typedef struct dl_pfpin {
	dl_cache_t *cache;  /* the simulator's, not owned */
	uint32_t nnodes, nfiles;
	/* (node, file) -> wanted / held, open addressing: only the pairs of
	 * the plans so far, not nodes x files (a workload of 10^6 files on
	 * 1,000 nodes would need 1 GB).  Compacted by dl_pfpin_apply(). */
	uint64_t *key;      /* [cap]: dl__nf_key() + 1, 0 = empty */
	uint8_t *val;       /* [cap] */
	size_t mcap, mcount;
	dl_copy_t *pairs;   /* the last dl_pfpin_apply()'s, valid ones */
	size_t n, cap;
	uint64_t taken;     /* pins taken in all (a file cached or
			     * inserted while its plan wanted it) */
} dl_pfpin_t;

/*
 * dl_pfpin_init - no pins, for the tracker's nodes [0, nnodes) and files
 * [0, nfiles).  \return 0 (no allocation yet; kept for its callers'
 * error path).
 */
int dl_pfpin_init(dl_pfpin_t *p, dl_cache_t *cache, uint32_t nnodes,
		  uint32_t nfiles);

/* dl_pfpin_fini - free p; the pins it holds are left in the tracker. */
void dl_pfpin_fini(dl_pfpin_t *p);

/*
 * dl_pfpin_apply - a full plan's pins replace the last one's: the pairs
 * no longer listed are unpinned, the listed files the node caches are
 * pinned (once), the others wanted until dl_pfpin_inserted().  Pairs out
 * of range are ignored.  \return 0 or DL_ENOMEM (the pins are then the
 * last plan's).
 */
int dl_pfpin_apply(dl_pfpin_t *p, const dl_copy_t *pins, size_t n);

/*
 * dl_pfpin_inserted - node has just inserted file: pin it if the last
 * plan wants it there.
 */
void dl_pfpin_inserted(dl_pfpin_t *p, uint32_t node, uint32_t file);

/* dl_pfpin_drop_node - release every pin on node (it goes off). */
void dl_pfpin_drop_node(dl_pfpin_t *p, uint32_t node);

#endif /* DL_SIM_PFPIN_H */
