/*
 * sim.h - the trace-driven discrete-event simulator of a compute cluster
 * fed by storage nodes (online-hps-khanna §2, §4.3).
 *
 * The system: P compute nodes with a number of job slots (cores) and a
 * local cache of a given capacity each, S storage nodes holding the input
 * files.  A job runs on one node: its files that the node does not cache
 * are transferred (staged), then all its input is read from the local disk
 * at LBW, then it computes (its own seconds, or C seconds per byte).
 *
 * Transfers, as in the paper's model of end-point contention:
 *   - a storage node serves one transfer at a time, in the order the
 *     requests reach it (FIFO), at RBW;
 *   - a compute node receives one file at a time: it requests its next
 *     file only when the previous one has arrived, and serves the jobs it
 *     started in start order; within a job the file with the earliest
 *     estimated completion goes first (the TCT rule of §4.3);
 *   - with peer fetch (data-diffusion-raicu §3), a file cached on another
 *     compute node may come from there instead, at the peer bandwidth,
 *     serialized on that peer like on a storage node; the source with the
 *     earliest estimated completion wins, a peer on ties;
 *   - a file that a job on the same node is already fetching is not
 *     fetched twice: the later job waits for it (a local hit).
 *
 * The simulator owns one dl_cache_t for the whole run: a file is inserted
 * when its transfer completes (evicting by the chosen policy), pinned
 * while a job that reads it runs, unpinned when the job completes.  A file
 * that cannot fit even after evicting every unpinned file is read through
 * without being cached (counted as "bypass").
 *
 * Scheduling: after the events of one instant (arrivals, completions,
 * transfers done) the simulator builds a dl_state_t and asks the policy
 * for a plan, then starts jobs by one of two rules (dispatch.h): "slurm"
 * (the default) models slurmctld running the plugin, which only turns the
 * plan into per-job placement restrictions (dl_place.h) while Slurm starts
 * jobs in priority order; "plan" starts what dl_plan_starts() says, each
 * node taking its planned jobs in plan order, as in the paper.  It plans
 * only when something changed since the last plan, some job waits and
 * some slot is free.  With a minimum re-plan interval, a plan due too
 * early is replaced by the previous plan's decisions for the jobs it
 * covered; new jobs wait for the next plan, due at the end of the
 * interval (under "slurm" only those with input files: the plugin's
 * job_submit holds them back until they are placed).  The wall time of
 * every dl_policy_plan() call is measured.
 *
 * Placement under "slurm": before a plan, restricted jobs no node can win
 * under the hysteresis are pinned to their node (dl_place_pin(), as the
 * plugin does), for the plan only.  A job's waiting for its node counts
 * while the system stays as the last pass left it, i.e. up to the next
 * event, so the records are stepped at the start of every instant, before
 * its events, as the plugin's periodic cycle would; a wake-up event is
 * queued for the moment the first bounded wait ends, so that a job blocked
 * past its bound starts elsewhere then, not at the next unrelated event.
 *
 * Copies (dl_copy_t, the plan's replication and prefetch hook): each full
 * plan states the copies it wants now; they replace the copies an earlier
 * plan queued that have not begun.  A node keeps at most copy_queue of
 * them (the rest are dropped), in plan order, behind its jobs' fetches.
 * A copy begins only when the node's link is free, no job fetch of the
 * node waits, and its source (the cheapest, as for a job's fetch) is idle:
 * it takes the storage or peer bandwidth of a fetch, no slot, and delays
 * a job only by holding its source when the job's request comes.  Its
 * file is inserted like a fetched one (evicting unpinned files only;
 * without room it is dropped).  A job that needs a file being copied
 * waits for it (a local hit); one whose file's copy has not begun takes
 * the copy over as its own fetch.  With cfg->prefetch, every full plan,
 * whatever the policy, also asks for the copies the plugin's agent
 * prefetches (dl_plan_prefetch()): the missing files of the first
 * cfg->prefetch jobs planned on each node, within cfg->prefetch_budget;
 * every file of those jobs is pinned on their node until the next full
 * plan, as dl-stage pins a PREFETCH's files (pfpin.h).
 *
 * Provisioning (provision.h): with cfg->prov enabled the nodes start off
 * and the pool grows and shrinks at decisions every prov.interval
 * seconds (after the events of the instant); a node that is not on takes
 * no job, serves no peer and gets no copy; its cache is cleared when it
 * is released unless prov.keep_cache.
 *
 * Deterministic: the same workload and configuration give the same
 * results (except wall-clock times), provided the policy is deterministic.
 *
 * Errors follow dl_error.h: 0 or a negative DL_E* code, with a message in
 * the caller's buffer.  The simulator never prints.
 */
#ifndef DL_SIM_H
#define DL_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "dispatch.h"
#include "dl_cache.h"
#include "dl_place.h"
#include "dl_state.h"
#include "pace.h"
#include "provision.h"
#include "workload.h"

/*
 * The longest agent cycle dl-sim models (--agent-cycle), seconds: the
 * submit gate's least bound (GateMinHold's default, agent_gate.h).  A job
 * held for its first plan is placed within one cycle, before any bound
 * runs out, so dl-sim models no bound; a longer cycle would let the gate
 * release jobs unplaced, which it does not model.
 */
#define DL_SIM_AGENT_CYCLE_MAX 3.0

typedef struct dl_sim_progress {
	double now; /* simulated seconds */
	size_t arrived, completed, total;
	size_t pending, running;
	size_t plans;
	double wall; /* seconds since the run started */
} dl_sim_progress_t;

typedef struct dl_sim_config {
	uint32_t nodes;             /* compute nodes P (4) */
	uint32_t cores;             /* job slots per node (1) */
	uint32_t storage;           /* storage nodes S (4) */
	uint64_t cache_bytes;       /* per node (15 GiB); DL_CACHE_UNLIMITED */
	dl_evict_t eviction;        /* DL_EVICT_VALUE */
	dl_params_t params;         /* rbw, lbw, cpb, unknown_size; nstorage is
				    * overwritten with storage */
	int peer_fetch;             /* 0: files come from storage only */
	double peer_bw;             /* bytes/s; <= 0: params.rbw */
	/*
	 * > 0: the policies see the Slurm plugin agent's estimates instead
	 * of the workload's compute: Slurm times jobs in whole seconds
	 * (start and end rounded down on the simulated clock), and the
	 * agent's history (dl_runtime_learn()) learns the jobs with files
	 * that lasted at least one such second; every job's compute is
	 * dl_runtime_estimate() of it with this time limit, which is the
	 * estimate until the first is learnt (one history: the jobs are
	 * taken to share user and name).  0: off (the default).
	 */
	double agent_limit;
	double launch;              /* seconds a job holds its slots besides
				    * staging, reading and compute: the
				    * resource manager's launch, Prolog and
				    * Epilog (0) */
	const char *policy;         /* "locality" */
	const char *policy_params;  /* NULL */
	uint64_t seed;              /* the tracker's PRNG (random eviction) */
	size_t window;              /* pending jobs shown to a plan; 0: all */
	/*
	 * Seconds between full plans (0: a plan at every event).  Under
	 * the slurm dispatch this is the plugin agent's cycle (dl-sim
	 * --agent-cycle): between plans, a job with input that no plan
	 * placed is held, as at the submit gate, and Slurm's pass starts
	 * the others under the last plan's restrictions.
	 */
	double replan_min_interval;
	/*
	 * With replan_min_interval: pace the plans as the agent paces its
	 * cycles (pace.h; dl-sim --agent-cycle): an arrival plans one agent
	 * poll later (DL_SIM_PACE_POLL_S), a job's start or end within
	 * DL_SIM_PACE_NODE_S.  0: every change waits for the interval.
	 */
	int agent_pace;
	dl_dispatch_t dispatch;     /* DL_DISPATCH_SLURM */
	dl_place_params_t place;    /* slurm dispatch: the restrictions'
				    * rule (dl_place_params_default()) */
	int check;                  /* verify invariants after every step */
	dl_prov_config_t prov;      /* the node pool (provision.h): off */
	uint32_t copy_queue;        /* copies a node may have waiting (8) */
	uint32_t prefetch;          /* the plugin agent's prefetch after every
				    * full plan (dl_plan_prefetch()): jobs
				    * per node; 0: none (the default) */
	uint64_t prefetch_budget;   /* its bytes per node; 0: no limit */
	double timeline_every;      /* seconds between timeline samples;
				    * 0: no timeline */
	void (*progress)(const dl_sim_progress_t *p, void *arg);
	void *progress_arg;
	double progress_every; /* wall seconds between calls (1.0) */
} dl_sim_config_t;

/* What happened to one job; times in simulated seconds. */
typedef struct dl_sim_job {
	uint32_t id;
	int32_t node; /* -1: never started */
	uint32_t cpus;
	double arrival;
	double dispatch;      /* the plan started it (slot taken) */
	double start;         /* its first own transfer began, or
				    * dispatch if it had none (eq. 1) */
	double staged;        /* all its files were on the node */
	double end;           /* completion (eq. 3) */
	double read, compute; /* seconds of local read and of CPU */
	uint32_t nfiles;
	uint32_t hit_local, hit_peer, miss, bypass;
	uint64_t bytes;        /* input bytes */
	uint64_t bytes_remote; /* its misses, from storage */
	uint64_t bytes_peer;   /* its peer hits */
	uint32_t completions;  /* 1 when all went well */
} dl_sim_job_t;

/* The system at one moment (cfg->timeline_every); counts from the start. */
typedef struct dl_sim_sample {
	double t;
	uint32_t on, booting; /* nodes (all on without provisioning) */
	size_t queued, running;
	size_t arrived, completed;
	uint64_t hit_local, hit_peer, miss;
	uint64_t busy_slots;
} dl_sim_sample_t;

/* At most this many timeline samples; later ones are not taken. */
#define DL_SIM_TIMELINE_MAX 1000000

typedef struct dl_sim_result {
	size_t njobs;
	dl_sim_job_t *jobs; /* in workload order; owned */
	size_t completed;
	/* File accesses: every (job, file) pair of a started job. */
	uint64_t accesses, hit_local, hit_peer, miss;
	uint64_t remote_transfers, remote_bytes; /* from storage */
	uint64_t peer_transfers, peer_bytes;
	uint64_t evictions, evicted_bytes, bypass;
	uint64_t capacity_violations; /* with check: used > capacity seen */
	uint64_t peak_cache_bytes;    /* largest used bytes on one node */
	size_t plans;                 /* dl_policy_plan() calls */
	size_t plans_why[DL_SIM_PACE_WHY_N]; /* by why they were due */
	size_t fallback_plans;        /* plans the policy made by a fallback
				       * method (dl_plan_t.fallback) */
	size_t carried;               /* dispatches from a previous plan */
	size_t snapshots, snapshots_kept; /* states built for plans and
				       * passes; those that kept the last
				       * one's running jobs (snapkeep.h) */
	dl_dispatch_count_t place;    /* slurm dispatch: restrictions set,
				       * moved and widened */
	double plan_seconds;          /* wall time in dl_policy_plan() */
	double plan_seconds_max;
	size_t max_pending;
	size_t max_shown;             /* most pending jobs a snapshot showed
				       * (the window: --window, the agent's) */
	uint64_t events;
	double end_time;     /* last event */
	double storage_busy; /* seconds storage nodes spent serving */
	double storage_busy_max; /* ... the busiest storage node */
	uint32_t storage_busiest; /* its index */
	uint64_t idle_violations; /* with check: a source idle with
				   * transfers queued, or a node's link
				   * idle while its jobs wait for files,
				   * seen at the end of an instant */
	double storage_queued;   /* seconds transfers from storage waited
				  * in a storage node's queue, in all */
	double wall_seconds;
	/* Copies (the plan's hook): begun, inserted, dropped unexecuted;
	 * of the bytes begun, those from peers (the rest: from storage). */
	uint64_t copies, copies_peer, copy_bytes, copies_done, copies_dropped;
	uint64_t copy_bytes_peer;
	/* Provisioning: node seconds on in [first arrival, last completion]
	 * (every node's, without it), allocations and releases, most on. */
	int provisioned;
	double node_seconds;
	uint64_t allocations, releases;
	uint32_t peak_nodes;
	dl_sim_sample_t *timeline; /* owned */
	size_t ntimeline;
	uint32_t nodes, slots, storage;
	char policy[32];
	char dispatch[8]; /* dl_dispatch_name() */
} dl_sim_result_t;

/* dl_sim_config_default - the defaults noted in dl_sim_config_t. */
void dl_sim_config_default(dl_sim_config_t *cfg);

/**
 * dl_sim_run - simulate wl under cfg.
 * OUT out - a new result, free with dl_sim_result_free(); unchanged on
 *           error
 * OUT err - a message on error (may be NULL)
 * \return 0 on success (jobs a policy never started are reported as not
 *         completed, not as an error), DL_EINVAL (bad configuration or
 *         workload: err says which), DL_ENOPOLICY, DL_ENOMEM, or the
 *         policy's error code when a plan fails.
 */
int dl_sim_run(const dl_sim_config_t *cfg, const dl_workload_t *wl,
	       dl_sim_result_t **out, char *err, size_t errlen);

/* dl_sim_result_free - free a result; NULL is a no-op. */
void dl_sim_result_free(dl_sim_result_t *r);

#endif /* DL_SIM_H */
