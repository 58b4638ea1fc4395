/*
 * partition_bg.h - a from-scratch partition made in the background
 * (issue 30, item 3).
 *
 * Online-HPS refines its last plan at most plans and partitions from
 * scratch now and then (full_every=, drift=, many new jobs).  Done in the
 * plan, it makes the plan wait, and slurmctld's agent places nothing
 * while its plan runs: at 1,024 nodes, a third of bench_sim's plans are
 * from scratch, and moved here they took the policy's time in its plans
 * from 14 s to 8 s (doc/benchmarks.md).  Here it runs on a thread of its own,
 * with a partitioner (and a dl-partitiond helper) of its own, on a graph
 * the plan hands over, while plans go on refining; once it is done, its
 * parts, as each pending job's node, are where the next refine starts
 * (a job it did not know starts from the last plan, as before).
 *
 * When the host asks for plans that do not depend on its load (dl-sim:
 * no helper timeout), the next plan waits for the partition instead of
 * looking whether it is done: it is then adopted exactly one plan after
 * it was asked for, whatever the host's speed.
 *
 * Threads: the object is used from one thread (the policy's); the
 * partition's own thread touches only what it was handed and its
 * partitioner until it says it is done (under the object's mutex).
 * Errors follow dl_error.h.
 */
#ifndef DL_PARTITION_BG_H
#define DL_PARTITION_BG_H

#include <stdint.h>

#include "dl_hgraph.h"
#include "dl_partition.h"
#include "dl_state.h"

typedef struct dl__bg dl__bg_t;

/* What a finished partition said of itself when it was adopted. */
typedef struct dl__bg_adopted {
	double ratio;		/* its cut / the graph's net costs */
	double cut;
	uint32_t jobs;		/* pending jobs it placed */
	double seconds;		/* wall time of the partition */
} dl__bg_adopted_t;

/**
 * dl__bg_create - nothing running, nothing adopted; the helper is started
 * by the first partition.
 * IN o - options of the partitioner the background uses (copied)
 * \return the object, free with dl__bg_destroy(); NULL on DL_ENOMEM or
 * invalid options.
 */
dl__bg_t *dl__bg_create(const dl_partition_opts_t *o);

/* dl__bg_destroy - wait for a running partition, stop its helper, free
 * everything.  NULL is a no-op. */
void dl__bg_destroy(dl__bg_t *b);

/* dl__bg_busy - whether a partition runs or waits to be adopted. */
int dl__bg_busy(const dl__bg_t *b);

/**
 * dl__bg_start - partition g from scratch in the background.
 * IN g - taken over (freed by the object, also on error); the state's
 *        job ids of its vertices are recorded from st here, so st may
 *        change as soon as this returns
 * IN imbalance - the tolerance the plan would have asked for
 * \return 0; DL_EBUSY (one is running: g is freed, nothing started);
 * DL_ENOMEM; DL_EINVAL.
 */
int dl__bg_start(dl__bg_t *b, dl_hgraph_t *g, const dl_state_t *st,
		 double imbalance);

/**
 * dl__bg_adopt - take a finished partition's parts as each of its pending
 * jobs' node, for dl__bg_node(), replacing what was adopted before.
 * IN wait - 1: wait for a running one (deterministic hosts)
 * OUT a - filled when one is adopted
 * \return 1 adopted; 0 none finished, none asked for, or it failed or
 * fell back to greedy because the helper failed (logged, dropped);
 * DL_ENOMEM.
 */
int dl__bg_adopt(dl__bg_t *b, int wait, dl__bg_adopted_t *a);

/* dl__bg_node - the node the adopted partition gave job id, or -1. */
int32_t dl__bg_node(const dl__bg_t *b, uint32_t id);

/* dl__bg_forget - drop the adopted parts (they served their refine, or a
 * plan from scratch made them stale). */
void dl__bg_forget(dl__bg_t *b);

/* For tests: partitions finished in the background so far. */
unsigned dl__bg_runs(const dl__bg_t *b);

#endif /* DL_PARTITION_BG_H */
