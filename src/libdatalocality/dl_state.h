/*
 * dl_state.h - a snapshot of the system that a policy plans on.
 *
 * The hosts (the slurmctld plugin, the simulator) fill one dl_state_t per
 * scheduling event: compute nodes, pending and running jobs, the cost-model
 * parameters, and a borrowed pointer to the long-lived cache tracker whose
 * file ids the jobs use.  Policies only read it.
 */
#ifndef DL_STATE_H
#define DL_STATE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "dl_cache.h"

struct dl__u64set;

typedef struct dl_node {
	char *name;      /* owned by the state */
	uint32_t cpus;   /* job slots on the node */
	uint32_t busy;   /* slots taken by running jobs */
	int usable;      /* 0: down, drained, ... takes no new job */
	double lbw;      /* local-disk bytes/s; 0 = dl_params_t.lbw */
	/*
	 * Seconds before the node can start a job because it is powered
	 * down or still resuming (power saving, cloud nodes); 0: it is up.
	 * A usable node with wake > 0 is "cold": a job placed there wakes
	 * it (dl_cost_node_wait(), dl_place_warm()).
	 */
	double wake;
	/*
	 * Host clock since which the node has had a free slot, as far as
	 * the host knows; 0: unknown, as if long ago.  A placed job counts
	 * as held back by its restriction (dl_place.h) only from then: a
	 * node between two jobs, which the batch system is about to fill,
	 * holds nobody back.
	 */
	double freed;
} dl_node_t;

typedef enum dl_job_state {
	DL_JOB_PENDING = 0,
	DL_JOB_RUNNING = 1,
} dl_job_state_t;

typedef struct dl_job {
	uint32_t id;           /* the host's job id */
	dl_job_state_t state;
	uint32_t nfiles;
	uint32_t *files;       /* file ids in the tracker; owned by the state
				* (in its blocks: never freed alone) */
	uint32_t cpus;         /* slots needed on one node (>= 1) */
	uint64_t priority;     /* larger runs first; ties: arrival, then id */
	double arrival;        /* seconds, host's clock */
	double compute;        /* seconds of CPU, < 0: cost model (eq. 6) */
	double start;          /* running: start time */
	int32_t node;          /* running: its node; pending: -1 */
	uint8_t *eligible;     /* pending: per-node 0/1, NULL = all usable;
				* owned by the state */
	/* Set by dl_state_add_job() for dl_job_bytes(), which the cost
	 * model asks for at every step of every estimate: the job's input
	 * bytes, summed under tracker size generation bytes_gen - 1 (0:
	 * never summed) and params.unknown_size bytes_unknown. */
	uint64_t bytes, bytes_gen, bytes_unknown;
} dl_job_t;

/* Cost-model parameters (online-hps-khanna §4.2, eqs. 5-6). */
typedef struct dl_params {
	double rbw;             /* storage -> compute bytes/s (RBW) */
	double lbw;             /* local disk bytes/s (LBW) */
	double cpb;             /* compute seconds per byte (C) */
	uint64_t unknown_size;  /* bytes assumed for a file of unknown size */
	uint32_t nstorage;      /* storage nodes, files spread round-robin */
} dl_params_t;

typedef struct dl_state {
	uint32_t nnodes;
	dl_node_t *nodes;       /* owned */
	uint32_t nodes_cap;     /* room in nodes (dl_state_reserve()) */
	size_t njobs;
	dl_job_t *jobs;         /* owned; pending and running, any order */
	size_t jobs_cap;
	dl_cache_t *cache;      /* borrowed: outlives the state */
	dl_params_t params;
	double now;             /* seconds, host's clock */
	/*
	 * A pending job the batch system keeps nodes idle for: it needs
	 * more nodes than are free (-N 4 on a busy cluster), so everything
	 * of lower priority waits and the nodes drain for it.  While one
	 * waits (wide_waiting), a job of higher priority than wide_priority
	 * runs before it and an idle node is time lost to every job behind
	 * it: such a job does not wait for its planned node
	 * (dl_place_bound() is 0).  The host sets both; 0: none.
	 */
	int wide_waiting;
	uint64_t wide_priority; /* the highest of such jobs' priorities */
	/* Where the jobs' files arrays live: blocks of file ids, each
	 * starting with a link to the previous block; owned.  One allocation
	 * per block instead of one per job: hosts build a state of
	 * thousands of jobs at every event (dl-sim). */
	void *fblock;
	size_t fblock_used, fblock_cap;
	/*
	 * While dl_policy_plan() runs: dl_cost_job_remaining() of each
	 * running job, by job index (NULL otherwise; hosts leave it NULL).
	 * Nothing changes the state or the cache during a plan, and its
	 * modules (queues, hypergraph weights, the guard's base) ask for each
	 * running job's remaining time several times: 6-10% of dl-sim's
	 * instructions on bench_sim's trace.  Owned by that call, and set
	 * only on its own view of the state, never on the host's.
	 */
	const double *remaining;
	/*
	 * (node << 32 | file) of each running job's input, for
	 * dl_state_node_reads(); NULL while no running job reads a file.
	 * Owned; dl_state_add_job() fills it.
	 */
	struct dl__u64set *reads;
} dl_state_t;

/* dl_params_default - 100 MB/s storage, 500 MB/s disk, 1 ns/byte CPU. */
void dl_params_default(dl_params_t *p);

/**
 * dl_state_create - an empty state over a tracker.
 * IN cache - borrowed; must outlive the state
 * \return a state to free with dl_state_destroy(), NULL on ENOMEM/EINVAL.
 */
dl_state_t *dl_state_create(dl_cache_t *cache, const dl_params_t *params);

/* dl_state_destroy - free the state and what it owns; NULL is a no-op. */
void dl_state_destroy(dl_state_t *st);

/**
 * dl_state_add_node - append a node; its index is the previous nnodes.
 * \return the node index (>= 0), DL_EINVAL or DL_ENOMEM.
 */
int dl_state_add_node(dl_state_t *st, const char *name, uint32_t cpus,
		      int usable);

/**
 * dl_state_reserve - room for nodes nodes, jobs jobs and reads (node,
 * file) pairs of running jobs, so that adding them does not grow the
 * arrays and the reads index step by step: a host that builds a state of
 * thousands of nodes and jobs at every event (dl-sim at 1,024 nodes) spent
 * 7% of its time there.  Optional; what is added beyond it still fits.
 * \return 0, DL_EINVAL or DL_ENOMEM (the state is usable either way).
 */
int dl_state_reserve(dl_state_t *st, uint32_t nodes, size_t jobs,
		     size_t reads);

/**
 * dl_state_clear_jobs - remove every job, keeping the nodes as they are
 * (their fields are the host's to set again) and the room the state took,
 * so that a host can build its next state in this one: dl-sim at 1,024
 * nodes spent 5% of its time making and freeing a state per event.
 * now, wide_waiting, wide_priority and remaining are reset to 0.
 */
void dl_state_clear_jobs(dl_state_t *st);

/**
 * dl_state_add_job - append a copy of *job (files and eligible are copied,
 * eligible must have nnodes entries, so add every node first).
 * A job whose bytes_gen and bytes_unknown are those of the tracker's size
 * generation and of params.unknown_size (a host that kept them from the
 * record an earlier state made of the same job, same files) keeps its
 * bytes; otherwise they are summed anew.
 * \return the job index (>= 0), DL_EINVAL (bad node index or file id) or
 *         DL_ENOMEM; the state is unchanged on error.
 */
int dl_state_add_job(dl_state_t *st, const dl_job_t *job);

/*
 * dl_state_job_eligible - whether pending job j may run on node n.
 * Inline: the planners ask it for every node of every job (5% of dl-sim's
 * time as a call); state.c holds the external definition.
 */
inline int dl_state_job_eligible(const dl_state_t *st, const dl_job_t *j,
				 uint32_t n)
{
	if (n >= st->nnodes || !st->nodes[n].usable)
		return 0;
	if (st->nodes[n].cpus < j->cpus)
		return 0;
	return j->eligible ? j->eligible[n] != 0 : 1;
}

/*
 * dl_state_job_next - the first node >= n that j's eligibility list does
 * not exclude (n itself for a job without one), or st->nnodes: a job the
 * host pinned to a node has one 1 among nnodes bytes (stored as 0/1),
 * found at memchr()'s pace.  Usability and CPUs are left to
 * dl_state_job_eligible().  Inline, as it: planners walk every node of
 * every job with it.
 */
inline uint32_t dl_state_job_next(const dl_state_t *st, const dl_job_t *j,
				  uint32_t n)
{
	const uint8_t *e;

	if (n >= st->nnodes || !j->eligible)
		return n < st->nnodes ? n : st->nnodes;
	e = memchr(j->eligible + n, 1, st->nnodes - n);
	return e ? (uint32_t)(e - j->eligible) : st->nnodes;
}

/**
 * dl_state_node_reads - whether a job running on node n reads file: the
 * file is on n or on its way there (its job stages it into n's cache
 * before it runs), so a pending job that reads it too gets it there
 * without a new fetch.  O(1).
 */
int dl_state_node_reads(const dl_state_t *st, uint32_t n, uint32_t file);

/* dl_job_bytes - total input bytes of a job (unknown sizes as params). */
uint64_t dl_job_bytes(const dl_state_t *st, const dl_job_t *j);

/**
 * dl_state_priority_order - the indices of the pending jobs, highest
 * priority first (ties: earlier arrival, then lower id).
 * OUT idx - a new array of *n indices into st->jobs, free with free()
 * \return 0 or DL_ENOMEM.
 */
int dl_state_priority_order(const dl_state_t *st, size_t **idx, size_t *n);

/* dl_file_bytes - a file's size, or params.unknown_size when unknown. */
uint64_t dl_file_bytes(const dl_state_t *st, uint32_t file);

#endif /* DL_STATE_H */
