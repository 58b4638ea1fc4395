/*
 * dl_cost.h - the cost model: how long a job takes, in seconds.
 *
 * Two kinds of estimate come from online-hps-khanna (section 4.2):
 *
 *   - a node-independent estimate for a job that has no node yet (the
 *     vertex weight of the hypergraph): eq. 5 gives the expected cost of
 *     moving one byte of a file from the storage nodes when it is shared by
 *     s pending jobs spread over P nodes, and eq. 6 sums, over the job's
 *     files, size * (transfer + local read + compute);
 *   - a node-specific estimate, for a job placed on a given node, that
 *     knows which files that node already caches: those cost only the local
 *     read and the compute, the others are transferred at RBW first.  The
 *     remaining time of a running job and the MET/MCT policies use it.
 *
 * Units: sizes in bytes (a file of unknown size counts as
 * dl_params_t.unknown_size, see dl_file_bytes()), bandwidths in bytes per
 * second, dl_params_t.cpb in seconds per byte, results in seconds.  The
 * compute part of a job is j->compute seconds when j->compute >= 0 (the
 * host knows it), and cpb * input bytes otherwise (eq. 6's linear model).
 *
 * A bandwidth that is zero, negative or not a number counts as infinite:
 * the term it divides costs nothing.  A node's own lbw, when above 0,
 * overrides dl_params_t.lbw for reads on that node.
 *
 * Every function only reads the state and the tracker and has no side
 * effect, so any number may run concurrently while nothing modifies them.
 * Functions returning double have no error value: invalid arguments (NULL
 * state or job) give 0, and other special cases are stated per function.
 */
#ifndef DL_COST_H
#define DL_COST_H

#include <stddef.h>
#include <stdint.h>

#include "dl_state.h"

/* A running job's expected end on its node (dl_cost_ends()). */
typedef struct dl_cost_end {
	uint32_t node;
	uint32_t cpus;          /* slots it holds */
	double left;            /* seconds to its end: dl_cost_job_remaining() */
} dl_cost_end_t;

/**
 * dl_cost_transfer_per_byte - eq. 5 in online-hps-khanna: the expected
 * seconds to bring one byte of a file to the node of a job,
 *   Tr = ProbFNE / RBW + (1 - ProbFNE) * (1 - ProbFE) / RBW,
 * with ProbFNE = 1 / sharers (the job is the first of its group to need
 * the file) and ProbFE = 1 / nparts (the file was already brought to the
 * job's node by another group member), i.e. uniform probabilities.
 * IN p - the parameters (only rbw is read)
 * IN sharers - pending jobs that need the file (s_j); 0 counts as 1
 * IN nparts - compute nodes the jobs are spread over (P); 0 counts as 1
 * \return seconds per byte; 0 if p is NULL or rbw is infinite.
 */
double dl_cost_transfer_per_byte(const dl_params_t *p, uint32_t sharers,
				 uint32_t nparts);

/**
 * dl_cost_job_estimate - eq. 6 in online-hps-khanna: the expected
 * execution time of a job not yet placed,
 *   sum over its files f of size(f) * (Tr_f + 1 / LBW + C),
 * where C * size is replaced by j->compute seconds (once, not per file)
 * when j->compute >= 0.  LBW is dl_params_t.lbw.
 * IN sharers - sharers[f] = pending jobs needing file id f, as made by
 *              dl_cost_sharers(); NULL: 1 for every file (no sharing)
 * IN nparts - P of eq. 5
 * \return seconds (>= 0); 0 for a NULL state or job.
 */
double dl_cost_job_estimate(const dl_state_t *st, const dl_job_t *j,
			    const uint32_t *sharers, uint32_t nparts);

/**
 * dl_cost_sharers - s_j of eq. 5 for every file: how many pending jobs of
 * the state list the file (a job naming a file twice counts once).
 * Running jobs are not counted.
 * OUT out - a new array of dl_cache_file_count(st->cache) entries indexed
 *           by file id (at least one entry, so never NULL on success), to
 *           be freed with free(); unchanged on error
 * \return 0 on success, DL_EINVAL for a NULL argument, DL_ENOMEM.
 */
int dl_cost_sharers(const dl_state_t *st, uint32_t **out);

/**
 * dl_cost_job_on_node - the execution time of a job if it ran on node now:
 * each file the node does not cache is transferred (size / RBW), then
 * every file is read from the local disk (size / the node's LBW), then the
 * compute part.  This is the per-node estimate of the MET and MCT
 * heuristics (online-hps-khanna section 5); it ignores storage contention
 * (see dl_order.h for that).
 * IN node - a node of the state; a node out of range caches nothing and
 *           reads at dl_params_t.lbw
 * \return seconds (>= 0); 0 for a NULL state or job.
 */
double dl_cost_job_on_node(const dl_state_t *st, const dl_job_t *j,
			   uint32_t node);

/**
 * dl_cost_job_remaining - the estimated time a running job still needs:
 * dl_cost_job_on_node() on its node (files already cached there cost only
 * the read and compute) minus the time it has run, st->now - j->start
 * (taken as 0 if negative), floored at 0.  This is the weight of a running
 * job's vertex in online-hps-khanna section 4.2.
 * \return seconds (>= 0); 0 for a NULL state or job, or a job whose node
 *         is not a node of the state (a pending job).
 */
double dl_cost_job_remaining(const dl_state_t *st, const dl_job_t *j);

/**
 * dl_cost_job_compute - the compute part of a job: j->compute when it is
 * >= 0, else dl_params_t.cpb * dl_job_bytes() (eq. 6's C term).
 * \return seconds (>= 0); 0 for a NULL state or job.
 */
double dl_cost_job_compute(const dl_state_t *st, const dl_job_t *j);

/*
 * Run-time history: what the Slurm plugin's agent gives a job as its
 * compute (dl_job_t.compute) when users give only time limits, one
 * moving average per kind of job (agent_history.c: per user and job
 * name), shared with dl-sim so that a simulation sees the plugin's
 * estimates.  *mean < 0 means nothing learnt yet.
 */
#define DL_RUNTIME_ALPHA 0.3 /* weight of the newest run in the average */

/*
 * dl_runtime_learn - a job of the kind ran for seconds: the first run
 * sets *mean, each later one moves it by DL_RUNTIME_ALPHA of the gap.
 * seconds < 0 or NaN is ignored.
 */
void dl_runtime_learn(double *mean, double seconds);

/*
 * dl_runtime_estimate - the run time to expect of a job of the kind:
 * mean, at most limit (its time limit; <= 0: none); limit when nothing
 * was learnt (mean < 0), so < 0 when neither is known.
 */
double dl_runtime_estimate(double mean, double limit);

/* The least a running job of unknown run time is assumed to run on. */
#define DL_RUNTIME_RUNNING_MIN 1.0

/*
 * dl_runtime_running - the run time to assume for a job that has run for
 * elapsed seconds and is still running: estimate if above 0, else (no
 * history, no time limit) as long again as it has run, and at least
 * DL_RUNTIME_RUNNING_MIN seconds more.  The cost model alone (input
 * size) would have such a job end at once once its files are cached,
 * and a job with nothing cached anywhere would be queued behind it while
 * another node is idle.  Never < 0.
 */
double dl_runtime_running(double estimate, double elapsed);

/**
 * dl_cost_read_time - seconds to read bytes from node's local disk, at the
 * node's lbw if above 0, else dl_params_t.lbw (node out of range: the
 * latter).
 * \return seconds (>= 0); 0 for a NULL state or infinite bandwidth.
 */
double dl_cost_read_time(const dl_state_t *st, uint32_t node, uint64_t bytes);

/**
 * dl_cost_transfer_time - seconds to move bytes from a storage node to a
 * compute node with nothing else in the way: bytes / RBW.
 * \return seconds (>= 0); 0 for a NULL state or infinite bandwidth.
 */
double dl_cost_transfer_time(const dl_state_t *st, uint64_t bytes);

/**
 * dl_cost_storage_of - the storage node holding a file: files are spread
 * round-robin by id, file % max(1, dl_params_t.nstorage).
 * \return the storage node index; 0 for a NULL state.
 */
uint32_t dl_cost_storage_of(const dl_state_t *st, uint32_t file);

/**
 * dl_cost_ends - the expected ends of the state's running jobs (those
 * whose node is a node of the state), sorted by node, then by time left,
 * for dl_cost_node_wait() to look up many nodes at the cost of one pass.
 * OUT out - a new array of *n entries (at least one allocated, so never
 *           NULL on success), to be freed with free(); unchanged on error
 * \return 0, DL_EINVAL for a NULL argument, DL_ENOMEM.
 */
int dl_cost_ends(const dl_state_t *st, dl_cost_end_t **out, size_t *n);

/**
 * dl_cost_node_wait - seconds from now until node n could start a job of
 * cpus slots: the later of
 *   - its wake time (dl_node_t.wake: powered down or still resuming), and
 *   - when it has fewer than cpus free slots (cpus - busy), the time until
 *     enough are free, its running jobs ending in the order of their time
 *     left, each freeing the slots it holds.
 * A warm node with room waits 0.
 * IN ends - dl_cost_ends(st) (nends entries), or NULL: found here, O(jobs)
 * \return seconds (>= 0); INFINITY when n is not a usable node of the
 *         state, has fewer than cpus slots, or the running jobs the state
 *         lists on it do not free enough (slots of jobs the state does not
 *         list are never counted as freed); 0 for a NULL state.
 */
double dl_cost_node_wait(const dl_state_t *st, uint32_t n, uint32_t cpus,
			 const dl_cost_end_t *ends, size_t nends);

/**
 * dl_cost_job_ready - seconds from now until job j could begin on node n
 * if it were placed there: dl_cost_node_wait() for its slots plus the
 * transfer of the input n does not cache (size / RBW).  The local read
 * and the compute part cost the same on every node and are left out, so
 * ready times of two nodes compare directly.  This is what a job whose
 * files a powered-down node kept weighs against a warm node that needs
 * them copied, and what a warm node's queue weighs against a resume.
 * IN ends - as dl_cost_node_wait()
 * \return seconds (>= 0, INFINITY as dl_cost_node_wait()); 0 for a NULL
 *         state or job.
 */
double dl_cost_job_ready(const dl_state_t *st, const dl_job_t *j, uint32_t n,
			 const dl_cost_end_t *ends, size_t nends);

#endif /* DL_COST_H */
