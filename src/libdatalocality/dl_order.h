/*
 * dl_order.h - ordering the jobs mapped to each node, with a Gantt chart
 * of the storage nodes (online-hps-khanna section 4.3).
 *
 * Once a policy has mapped pending jobs to nodes, this module decides in
 * which order they run and when their input files are transferred, so
 * that jobs on different nodes do not fight over the same storage node.
 *
 * The model, as in the paper:
 *   - there are S = max(1, dl_params_t.nstorage) storage nodes; each file
 *     lives on one of them (dl_cost_storage_of(), round-robin by id, or a
 *     map given by the caller);
 *   - a storage node serves one transfer at a time: its Gantt chart is a
 *     list of busy intervals, and a new transfer takes the first gap, at
 *     or after the time it may start, that is long enough (first fit, so
 *     later reservations fill holes left by earlier ones, as in Fig. 4);
 *   - a compute node receives one file at a time, and runs one job at a
 *     time: its staging for a job starts when its previous job completes
 *     (the node "becomes available").  Node cpus are ignored: the paper's
 *     model is one job per node, and the order it yields is what matters,
 *     not the absolute times;
 *   - a file takes size / RBW to transfer; a file the node caches in the
 *     tracker, or that a job ordered earlier on the same node (or a job
 *     running there) brings, needs no transfer;
 *   - the earliest completion time (ECT) of a job on its node is the
 *     staging time plus the local read of all its bytes (size / LBW) plus
 *     its compute part (dl_cost_job_compute()).  Staging is greedy: among
 *     the files still to transfer, the one with the minimum transfer
 *     completion time (TCT: first fit on its storage node's chart, no
 *     earlier than the end of the node's previous transfer, plus its
 *     duration) goes next, the one listed first in the job on a tie; the
 *     TCT of the last one is the staging time.
 *
 * The cross-group rule: the job with the lowest ECT of each group (the
 * jobs mapped to one node) is found, the lowest of these is scheduled and
 * its transfers are reserved on the charts; the next job is the lowest
 * among the *other* groups (the exclusion lasts one pick, and is dropped
 * when only the excluded group has jobs left); and so on.  A scheduled job
 * makes its node available at its ECT.  Ties go to the job with the higher
 * priority, then the earlier arrival, then the lower id, then the lower
 * index in the state.
 *
 * The mapping is taken as given: whether a job may run on its node
 * (dl_state_job_eligible()) is the mapping policy's business.  Running
 * jobs occupy their node from st->now for dl_cost_job_remaining()
 * (several on one node: until the last ends) and their files count as on
 * that node; their transfers still in progress are not on the charts.
 *
 * Errors follow dl_error.h.  The state and its tracker are only read and
 * the module has no global state, so calls may run concurrently as long
 * as nothing modifies them.
 */
#ifndef DL_ORDER_H
#define DL_ORDER_H

#include <stddef.h>
#include <stdint.h>

#include "dl_state.h"

/* One scheduled job, with the estimated times of the model above. */
typedef struct dl_order_item {
	uint32_t job;       /* index into st->jobs */
	uint32_t node;      /* node it was mapped to */
	uint32_t transfers; /* files reserved on the storage charts for it */
	double start;       /* its node became available (staging starts) */
	double staged;      /* its last transfer completes (= start if none) */
	double end;         /* its earliest completion time */
} dl_order_item_t;

/**
 * dl_order_ect - order the mapped pending jobs by earliest completion time
 * and reserve their transfers, as described above; files are spread over
 * the storage nodes round-robin by id (dl_cost_storage_of()).
 * IN assign - st->njobs entries: for a pending job, its node or -1 (not
 *             ordered); entries of running jobs are ignored (their own
 *             node counts)
 * OUT out - a new array of *nout items, the ordered jobs in the sequence
 *           they were scheduled, to be freed with free(); NULL when *nout
 *           is 0
 * OUT nout - the number of pending jobs with assign[i] >= 0
 * OUT order_key - optional (NULL), st->njobs entries: order_key[i] is the
 *           rank (0, 1, 2, ...) of job i in the sequence, to be used as
 *           dl_assign_t.order; entries of jobs not ordered are untouched
 * \return 0 on success,
 *         DL_EINVAL for a NULL st, assign, out or nout, an assign entry of
 *         a pending job outside [-1, nnodes), a running job on no node of
 *         the state, or a negative or non-finite cpb or now,
 *         DL_ETOOBIG if the state holds UINT32_MAX jobs or more,
 *         DL_ENOMEM.
 *         On error *out, *nout and order_key are unchanged.
 *
 * Cost: a naive implementation recomputes every pending job's ECT at
 * every pick, O(n^2) ECTs for n jobs.  Here, with m files per job and k
 * busy intervals per chart, one ECT costs O(m log m (log k + g)), g being
 * the too-short gaps a first fit skips (the files sit in a heap keyed by
 * their last TCT, recomputed when on top: a TCT never decreases as the
 * node's transfers go on).  The groups sit in a heap keyed by their best
 * ECT or a lower bound of it, and after each pick only the groups that
 * reach the top are looked at again:
 *   - a group whose best job still finds free every slot its transfers
 *     took keeps it, at the same ECT (first fit gives the same slots, the
 *     other files' TCTs only grew, so the greedy makes the same choices);
 *   - otherwise its key is raised to "frontier + c", a lower bound for
 *     every job of the group (c: the job's remaining transfer time plus
 *     its read and compute; frontier: the first gap on any storage node,
 *     after the node is free, long enough for its shortest transfer);
 *   - if still on top, its jobs are scanned by increasing c until that
 *     bound passes the best ECT found; a job whose slots are all free
 *     keeps its last ECT, and one whose last ECT is already too high is
 *     skipped.
 * Setup is O(F + n log n + nfiles) for F file references.  Measured on
 * 10,000 jobs and 64 nodes, 1-8 files of 1-8 units per job, transfers
 * dominating (compiled with -O2): 0.3 s with one storage node, 0.05 s
 * with 64; about 3 s with 8 storage nodes all saturated and riddled with
 * short gaps, where most reservations move most jobs' ECTs.
 *
 * Exactness: the shortcuts assume that a job's ECT does not drop while
 * its node runs nothing new and it needs the same files.  The greedy
 * staging breaks this now and then (a reservation that delays one file
 * can let a better transfer order through); the order may then differ
 * from the naive one.  A job that needs a file a job of its node brought
 * is recomputed from scratch, so sharing alone never causes this.  The
 * result is deterministic either way.
 */
int dl_order_ect(const dl_state_t *st, const int32_t *assign,
		 dl_order_item_t **out, size_t *nout, double *order_key);

/**
 * dl_order_ect_ex - dl_order_ect() with the storage node of each file
 * given by the caller.
 * IN storage_of - dl_cache_file_count(st->cache) entries indexed by file
 *                 id, each below max(1, st->params.nstorage); NULL:
 *                 round-robin as dl_order_ect()
 * \return as dl_order_ect(); also DL_EINVAL for a storage_of entry out of
 *         range.
 */
int dl_order_ect_ex(const dl_state_t *st, const int32_t *assign,
		    const uint32_t *storage_of, dl_order_item_t **out,
		    size_t *nout, double *order_key);

#endif /* DL_ORDER_H */
