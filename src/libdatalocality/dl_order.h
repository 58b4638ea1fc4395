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
 *     duration) goes next; the TCT of the last one is the staging time.
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
 * Running jobs occupy their node from st->now for dl_cost_job_remaining()
 * (several on one node: until the last ends) and their files count as on
 * that node; their transfers still in progress are not on the charts.
 *
 * Errors follow dl_error.h.  The state is only read.
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
 * Complexity: with n ordered jobs, m files per job, k the intervals on a
 * storage chart and g the gaps a first-fit search skips, one ECT costs
 * O(m log m + m (log k + g)) (the files sit in a heap keyed by their last
 * TCT, refreshed when they reach the top: a TCT never decreases as the
 * node's transfers go on).  Each group keeps its jobs in a heap keyed by
 * their last ECT, and the groups sit in a heap keyed by their best job's:
 * reservations and a later node availability only delay a job, so a key
 * is a lower bound and only the jobs reaching the top are recomputed (a
 * job in the scheduled job's group that needs one of the files it brought
 * is re-keyed to the bound "node available + read + compute").  All n ECTs
 * are computed once at the start; then each pick recomputes a handful, in
 * place of the n ECTs a naive recomputation would take.  Adjacent busy
 * intervals are merged, so the charts stay short while a storage node is
 * busy without a break.
 * Caveat: the greedy staging is not monotone in every case (a reservation
 * that delays one file can let a better transfer order through and make a
 * job finish earlier); such a job keeps its older, higher key until it
 * reaches the top of its group, so the lazy order may then differ from a
 * full recomputation.  The result is deterministic either way.
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
