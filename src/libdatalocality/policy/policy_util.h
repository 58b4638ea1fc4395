/*
 * policy_util.h - internal: what the baseline policies (met, mct, sa,
 * jdp-dll, the data-diffusion dispatchers, delay) have in common.
 *
 *   - the pending jobs in arrival order (online-hps-khanna §5 maps jobs
 *     "as a job arrives"; Ranganathan's JobDataPresent takes them from a
 *     FIFO queue);
 *   - a room tracker that mirrors the first pass of dl_plan_starts(), so
 *     that "this node has a free slot for the job" means the same thing to
 *     a policy as to the dispatcher that will apply its plan;
 *   - a per-node queue model (slot free times) giving a node's ready time
 *     and the completion time of a job appended to its queue;
 *   - a staging overlay: (node, file) pairs that will be on a node once the
 *     running and planned jobs there staged them;
 *   - a sticky map, job id -> node, for policies that map a job once, when
 *     it arrives, and keep it there;
 *   - the MET / MCT / SA mapper of online-hps-khanna §5;
 *   - prefetch as plan copies: Online-HPS's and the plugin agent's rule.
 *
 * Private to the library (dl__ prefix, not installed).  Errors follow
 * dl_error.h: 0 or a negative DL_E* code; a failed call changes nothing
 * the caller can see, and every *_fini() may be called after a failed
 * *_init().
 */
#ifndef DL_POLICY_UTIL_H
#define DL_POLICY_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "dl_policy.h"
#include "dl_state.h"
#include "u64set.h"

/**
 * dl__time_cmp - compare two estimates in seconds, treating values within
 * 1e-9 relative (1 ns absolute near 0) as equal, so that sums added in a
 * different order still tie and the documented tie-breaks decide.
 * \return -1 if a < b, 1 if a > b, 0 if they tie.
 */
int dl__time_cmp(double a, double b);

/**
 * dl__pending_by_arrival - the indices of the pending jobs, earliest
 * arrival first (ties: lower id, then lower index).
 * OUT idx - a new array of *n indices into st->jobs, free with free()
 * \return 0 or DL_ENOMEM.
 */
int dl__pending_by_arrival(const dl_state_t *st, size_t **idx, size_t *n);

/*
 * Room tracker.  Jobs must be fed to dl__room_take() in the order they
 * will have in their node's queue (plan order); then a node "fits" a job
 * exactly when dl_plan_starts() would start it there now: free slots
 * (cpus - busy on a usable node) not yet taken by the jobs queued before
 * it, and no earlier job of that queue left waiting (no overtaking).
 */
typedef struct dl__room {
	uint32_t *room;   /* free slots left per node; owned */
	uint8_t *blocked; /* 1: a job queued there waits; owned */
	uint32_t n;
} dl__room_t;

/* \return 0 or DL_ENOMEM (then r is empty; dl__room_fini() is safe). */
int dl__room_init(dl__room_t *r, const dl_state_t *st);
void dl__room_fini(dl__room_t *r);
/* \return 1 if a job of cpus slots queued on node now would start now. */
int dl__room_fits(const dl__room_t *r, uint32_t node, uint32_t cpus);
/* Queue a job on node: it takes its slots if it fits, else blocks node. */
void dl__room_take(dl__room_t *r, uint32_t node, uint32_t cpus);

/*
 * Per-node queue model.  Each node has cpus slots, each free from some
 * time on (seconds from st->now).  Running jobs hold their slots for their
 * remaining time (dl_cost_job_remaining()); a queued job starts when
 * enough slots are free and not before the job queued ahead of it (the
 * node's queue is served in order), and holds them for its execution time.
 */
typedef struct dl__queues {
	double *slot;       /* all nodes' slot free times, each node sorted */
	size_t *off;        /* node n's slots: slot[off[n] .. off[n + 1]) */
	double *last_start; /* start of the last job queued on the node */
	double *ready;      /* completion of the last job on the node */
	uint32_t n;
} dl__queues_t;

/**
 * dl__queues_init - the model with the state's running jobs in it.
 * \return 0 or DL_ENOMEM (then q is empty; dl__queues_fini() is safe).
 */
int dl__queues_init(dl__queues_t *q, const dl_state_t *st);
void dl__queues_fini(dl__queues_t *q);
/* The time a job of cpus slots appended to node's queue would start. */
double dl__queues_start(const dl__queues_t *q, uint32_t node, uint32_t cpus);
/* Append a job of cpus slots running exec seconds to node's queue. */
void dl__queues_push(dl__queues_t *q, uint32_t node, uint32_t cpus,
		     double exec);
/* The load of online-hps-khanna §5: completion of the node's last job. */
double dl__queues_ready(const dl__queues_t *q, uint32_t node);

/**
 * dl__overlay_add_job - record that j's files will be on node.
 * \return 0 or DL_ENOMEM (some of the files may have been added).
 */
int dl__overlay_add_job(dl__u64set_t *ov, uint32_t node, const dl_job_t *j);

/**
 * dl__overlay_add_running - record every running job's files on its node.
 * \return 0 or DL_ENOMEM.
 */
int dl__overlay_add_running(dl__u64set_t *ov, const dl_state_t *st);

/**
 * dl__bytes_on_node - bytes of j's files that node caches now or will
 * hold per the overlay (NULL: the cache alone).
 */
uint64_t dl__bytes_on_node(const dl_state_t *st, const dl_job_t *j,
			   uint32_t node, const dl__u64set_t *ov);

/**
 * dl__exec_bytes_on_node - dl__exec_on_node() (for a NULL overlay, its
 * terms over the cache alone) and dl__bytes_on_node() into *on, in one
 * pass over j's files: plan_follow.c needs both for each candidate.
 */
double dl__exec_bytes_on_node(const dl_state_t *st, const dl_job_t *j,
			      uint32_t node, const dl__u64set_t *ov,
			      uint64_t *on);

/**
 * dl__exec_bytes_on_node_reads - dl__exec_bytes_on_node() with ov plus
 * the running jobs' (node, file) reads of the state (dl_state_node_reads())
 * as the overlay: the same answer as for an overlay made by
 * dl__overlay_add_running() then the additions to ov, without copying the
 * state's index into every overlay (ov: NULL or the additions only).
 */
double dl__exec_bytes_on_node_reads(const dl_state_t *st, const dl_job_t *j,
				    uint32_t node, const dl__u64set_t *ov,
				    uint64_t *on);

/**
 * dl__exec_on_node - dl_cost_job_on_node() where the files in the overlay
 * count as cached too (they are transferred by an earlier job).  With a
 * NULL overlay it is dl_cost_job_on_node().
 */
double dl__exec_on_node(const dl_state_t *st, const dl_job_t *j,
			uint32_t node, const dl__u64set_t *ov);

/* Sticky map job id -> node, sorted by id. */
typedef struct dl__stick {
	uint32_t *id;   /* owned */
	int32_t *node;  /* owned */
	size_t n;
} dl__stick_t;

void dl__stick_init(dl__stick_t *s);
void dl__stick_fini(dl__stick_t *s);
/* \return the node remembered for job id, or -1. */
int32_t dl__stick_get(const dl__stick_t *s, uint32_t id);
/**
 * dl__stick_save - replace the map by the plan's pending jobs that have a
 * node; jobs absent from the state (ended) or running are forgotten.
 * \return 0, or DL_ENOMEM and the map is unchanged.
 */
int dl__stick_save(dl__stick_t *s, const dl_state_t *st,
		   const dl_plan_t *plan);

/*
 * The mapper of online-hps-khanna §5.  Every pending job is mapped once,
 * when a plan first sees it, and stays on that node while it pends and the
 * node can take it; the jobs of a node run in arrival order.
 */
typedef enum dl__map_mode {
	DL__MAP_MET = 0, /* minimum execution time */
	DL__MAP_MCT,     /* minimum completion time */
	DL__MAP_SA,      /* switching between the two */
} dl__map_mode_t;

typedef struct dl__mapper {
	dl__map_mode_t mode;
	double l, h;    /* SA: back to MCT below l, to MET from h */
	int sa_met;     /* SA: 1 while mapping with MET (starts with MCT) */
	dl__stick_t stick;
} dl__mapper_t;

/* dl__mapper_create - \return a mapper to free with dl__mapper_destroy(),
 * NULL on ENOMEM. */
dl__mapper_t *dl__mapper_create(dl__map_mode_t mode, double l, double h);
void dl__mapper_destroy(dl__mapper_t *m);
/**
 * dl__mapper_plan - fill plan->a[i].node and .order for the pending jobs.
 * \return 0 or DL_ENOMEM; on error the mapper's memory of earlier
 *         mappings is unchanged.
 */
int dl__mapper_plan(dl__mapper_t *m, const dl_state_t *st, dl_plan_t *plan);

/* Which pending jobs of a node's plan get their files prefetched. */
typedef enum dl__pf_rule {
	/*
	 * Online-HPS's prefetch=<n>: the jobs that will not start at once
	 * (beyond the node's free slots, in plan order) are its queue, and
	 * the first per_node of them get every file the node lacks.
	 */
	DL__PF_QUEUE = 0,
	/*
	 * The plugin's agent (agent_pfplan.h), dl_plan_prefetch(): the
	 * head of the queue counts from the first job placed on the node,
	 * those that start at once on its free slots included (the agent
	 * selects before Slurm starts them); a file of unknown size (or
	 * empty) is left out, and a job with no other file is not one of
	 * the per_node; the budget is at most the node's capacity less what
	 * its running jobs hold there.
	 */
	DL__PF_AGENT,
} dl__pf_rule_t;

/**
 * dl__plan_prefetch - the copy hook for a plan's queues (dl_copy_t): on
 * every usable node, the pending jobs the plan put there, in plan order
 * (ascending .order, then index), taken by rule; for the first per_node
 * of them, every file the node does not hold becomes a copy to that
 * node, in queue order, as long as the bytes they miss there (a file two
 * of them need counts once) stay within budget (0: no limit): the first
 * job that does not fit ends the node's list.  Running and unplanned jobs
 * get nothing.  Under DL__PF_AGENT every file of the jobs taken (cached
 * or not) also goes into plan->pins, once per node (the agent's PREFETCH
 * pins them).  st and plan must match (plan->n == st->njobs).
 * \return 0, DL_ENOMEM or DL_ETOOBIG (the plan's copies are then partial).
 */
int dl__plan_prefetch(const dl_state_t *st, dl_plan_t *plan,
		      uint32_t per_node, uint64_t budget, dl__pf_rule_t rule);

/*
 * dl__plan_add_pin - append (file, node) to plan->pins (the caller keeps
 * them unique).  \return 0, DL_ETOOBIG (DL_PLAN_COPIES_MAX pins), DL_ENOMEM.
 */
int dl__plan_add_pin(dl_plan_t *plan, uint32_t file, uint32_t node);

/**
 * dl__plan_order - the pending jobs plan gives a node, in plan order
 * (ascending .order, then index).
 * OUT idx - *n indices into st->jobs, free with free()
 * \return 0 or DL_ENOMEM (then *idx is NULL).
 */
int dl__plan_order(const dl_state_t *st, const dl_plan_t *plan, size_t **idx,
		   size_t *n);

/**
 * dl__plan_estimate - what a plan of the pending jobs costs by the cost
 * model, so that two plans of one state can be compared without running
 * them: the jobs start in plan order (ascending .order, then index), each
 * on its node's queue (dl__queues_t, running jobs first); the files its
 * node neither caches nor gets from an earlier job there (the overlay)
 * are transferred one at a time over the node's link, each from its
 * storage node (dl_cost_storage_of()), which serves one transfer at a
 * time in the order they are requested, at RBW; then the job reads its
 * input at LBW and computes (dl_cost.h).  Storage contention is what a
 * plan that spreads many readers of a very large file over many nodes
 * pays, and what a plan that ignores file sharing pays in full.
 * OUT sum - sum over the planned pending jobs of their estimated
 *           completion, seconds from st->now
 * OUT nplanned - optional: how many pending jobs have a node (others are
 *           left out of the sum)
 * \return 0, DL_EINVAL (plan does not match st) or DL_ENOMEM.
 */
int dl__plan_estimate(const dl_state_t *st, const dl_plan_t *plan,
		      double *sum, size_t *nplanned);

#endif /* DL_POLICY_UTIL_H */
