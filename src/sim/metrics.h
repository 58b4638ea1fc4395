/*
 * metrics.h - what a simulated run is judged by, and how it is written
 * out: a one-screen summary, one CSV row, one JSON object.
 *
 * Definitions (doc/dl-sim.1 lists them for users):
 *   response  = end - arrival (eq. 2 in online-hps-khanna), over completed
 *               jobs: mean (eq. 4), median, 95th percentile, max;
 *   wait      = start - arrival (eq. 1), start being the first transfer of
 *               the job (or its dispatch if it transferred nothing);
 *   slowdown  = response / exec, exec = end - start;
 *   makespan  = last completion - first arrival;
 *   hits      = per file access: local (cached on the node, or already
 *               coming for another job there), peer (fetched from another
 *               node's cache), miss (fetched from storage), in percent;
 *   slot util = slot-seconds held by jobs (dispatch to end) over
 *               slots * makespan; cpu util = the same for the compute part;
 *   efficiency and speedup: data-diffusion-raicu §4.3, with |T| the
 *               slots, |K| the jobs, A = |K| / (last - first arrival),
 *               B = mean of mu (local read + compute: the task with its
 *               data in place), Y = mean of the time a job held its slot
 *               (dispatch to end: mu plus the copy time zeta, contention
 *               included), V = max(B/|T|, 1/A) |K|, W = max(Y/|T|, 1/A) |K|,
 *               E = V / W, S = E |T|;
 *   ideal WET = the workload execution time with infinite resources and
 *               free communication (data-diffusion-raicu §5.2.5):
 *               max(arrival + mu) - first arrival; WET slowdown = makespan /
 *               ideal WET;
 *   CPU hours = node seconds on within [first arrival, last completion]
 *               times cores / 3600 (CPU_T, data-diffusion-raicu §5.2.4);
 *               every node the whole time without provisioning;
 *   copies    = the plans' copies (dl_copy_t) begun, completed, dropped
 *               without effect, and bytes moved by them;
 *   efficiency (§5) = ideal WET / makespan = 1 / WET slowdown: what the
 *               paper's §5 figures report; the §4.3 efficiency above is
 *               1 whenever arrivals bound the run, whatever the queueing;
 *   fallback  = plans the policy made by its fallback method
 *               (dl_plan_t.fallback): such a run is not the policy's;
 *   placement = under the slurm dispatch (dispatch.h), restrictions set on
 *               jobs, moved to another node, and widened because a job
 *               waited past its bound (each job is widened at most once).
 */
#ifndef DL_SIM_METRICS_H
#define DL_SIM_METRICS_H

#include <stdio.h>

#include "sim.h"

typedef struct dl_metrics {
	size_t jobs, completed;
	double resp_mean, resp_median, resp_p95, resp_max;
	double wait_mean, wait_median, wait_p95;
	double slowdown_mean, slowdown_median;
	double exec_mean;
	double makespan;
	double throughput;       /* completed jobs per second of makespan */
	double throughput_bytes; /* input bytes per second of makespan */
	uint64_t accesses;
	double hit_local_pct, hit_peer_pct, miss_pct;
	uint64_t remote_transfers, remote_bytes;
	uint64_t peer_transfers, peer_bytes;
	uint64_t evictions, bypass;
	double slot_util, cpu_util, storage_util;
	double storage_util_max;  /* the busiest storage node's */
	double storage_queue_mean; /* s a transfer from storage queued */
	double eff_A, eff_B, eff_Y;
	double efficiency, speedup;
	double wet_ideal, wet_slowdown;
	double efficiency_wet; /* wet_ideal / makespan (§5) */
	size_t fallback_plans; /* plans made by the policy's fallback */
	size_t plans, carried;
	size_t restricted, moved, widened; /* placement, slurm dispatch */
	double plan_total, plan_mean, plan_max;
	size_t max_pending;
	uint64_t events;
	double wall;
	/* Provisioning (provision.h): node seconds on over the run, CPU time
	 * CPU_T of data-diffusion-raicu §5.2.4 in hours, pool activity. */
	double node_seconds, cpu_hours;
	uint64_t allocations, releases;
	uint32_t peak_nodes;
	/* The plans' copies (dl_copy_t): begun, done, dropped, bytes, and
	 * of the bytes those from peers (the rest came from storage). */
	uint64_t copies, copies_done, copies_dropped, copy_bytes;
	uint64_t copy_bytes_peer;
} dl_metrics_t;

/* One column of the run's description (policy, workload, platform...). */
typedef struct dl_kv {
	const char *key;
	char val[256];
} dl_kv_t;

/**
 * dl_metrics_compute - the metrics of a result.
 * \return 0, DL_EINVAL, DL_ENOMEM.
 */
int dl_metrics_compute(const dl_sim_result_t *r, dl_metrics_t *m);

/* dl_metrics_print - the one-screen summary, after the kv lines. */
void dl_metrics_print(FILE *out, const dl_kv_t *kv, size_t nkv,
		      const dl_metrics_t *m);

/**
 * dl_metrics_csv_append - append one row to path, writing the header first
 * if the file is new or empty.
 * \return 0 or DL_EIO.
 */
int dl_metrics_csv_append(const char *path, const dl_kv_t *kv, size_t nkv,
			  const dl_metrics_t *m);

/**
 * dl_metrics_json_append - append the run as one JSON object on one line
 * (JSON Lines): {"run": {kv...}, "metrics": {...}}.
 * \return 0 or DL_EIO.
 */
int dl_metrics_json_append(const char *path, const dl_kv_t *kv, size_t nkv,
			   const dl_metrics_t *m);

/**
 * dl_metrics_jobs_csv - one row per job of r (times, node, hits, bytes).
 * \return 0 or DL_EIO.
 */
int dl_metrics_jobs_csv(const char *path, const dl_sim_result_t *r);

/* dl_metrics_fmt_bytes - "1.5 GiB" into buf. \return buf. */
char *dl_metrics_fmt_bytes(double bytes, char *buf, size_t len);

#endif /* DL_SIM_METRICS_H */
