/*
 * dl_policy.h - one interface for every scheduling policy.
 *
 * A policy reads a dl_state_t and produces a dl_plan_t: for every pending
 * job, the node it should run on (or none) and its place in that node's
 * queue.  The Slurm plugin and the simulator call policies only through
 * this interface, so both drivers run the same decisions.
 *
 * Adding a policy: one policy_<name>.c defining a dl_policy_ops_t, and one
 * line in the registry in policy.c.
 */
#ifndef DL_POLICY_H
#define DL_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include "dl_state.h"

struct dl_place_params;

/* The decision for one job of the state (same index as state->jobs). */
typedef struct dl_assign {
	uint32_t job_id;
	int32_t node;           /* chosen node; -1: no preference */
	double order;           /* lower starts first among its node's jobs */
	uint32_t files_cached;  /* of its files, how many node holds now */
	uint32_t nfiles;
	uint64_t bytes_cached;  /* bytes of its files node holds now */
	uint64_t bytes_total;
} dl_assign_t;

/*
 * A copy a plan asks for, apart from any job: "put file on node now".
 * The replication and prefetch hook: JDP-DLL's DataLeastLoaded replicas
 * (online-hps-khanna §3), Online-HPS's prefetch for the jobs it queued on
 * a node.  The host executes a copy off the critical path: dl-sim when the
 * node's link and the file's source are idle (sim.h); the Slurm plugin's
 * agent as a replica (agent_replica.h): a PREFETCH to the node's dl-cached
 * in the name of a job that reads the file and is not placed on that node,
 * so that dl-cached copies it as that job's user and pins it until the
 * PREFETCH expires (PrefetchTimeout), within the prefetch budget the
 * node's own prefetches leave; a copy no such job reads is dropped.  A
 * copy is a hint: the host may drop it (node gone, file already there, no
 * room without evicting a pinned file), and a job that needs the file
 * meanwhile simply waits for it or fetches it itself.
 */
typedef struct dl_copy {
	uint32_t file;          /* file id in the state's tracker */
	uint32_t node;          /* node index in the state */
} dl_copy_t;

/* At most this many copies in one plan (dl_plan_add_copy()). */
#define DL_PLAN_COPIES_MAX 65536

typedef struct dl_plan {
	size_t n;               /* == state->njobs */
	dl_assign_t *a;         /* owned */
	dl_copy_t *copies;      /* owned; in the order they should be made */
	size_t ncopies, copies_cap;
	char policy[32];        /* name of the policy that made it */
	uint64_t cut_bytes;     /* connectivity-1 cut of the plan, bytes */
	double imbalance;       /* max node load / mean node load - 1 */
	double seconds;         /* wall time the policy took */
	int fallback;           /* 1: the policy's own method failed and a
				 * simpler one made this plan (e.g. greedy
				 * for online-hps without its helper) */
	/*
	 * dl_plan_prefetch(): every file of the jobs the agent's prefetch
	 * selected, on their node, cached there already or among the
	 * copies (owned; once per pair).  The plugin's PREFETCH pins them
	 * all until the job starts there or is no longer selected: a
	 * driver that models the node caches pins them as long as the next
	 * plan lists them, or a later copy evicts them unused.
	 */
	dl_copy_t *pins;
	size_t npins, pins_cap;
} dl_plan_t;

typedef struct dl_policy_ops {
	const char *name;
	const char *summary;    /* one line, for --help and man pages */
	/* Parse "key=value,..." params; *priv is the policy's own state. */
	int (*create)(const char *params, void **priv);
	void (*destroy)(void *priv);
	/* Fill plan->a[i].node and .order for every pending job i. */
	int (*plan)(void *priv, const dl_state_t *st, dl_plan_t *plan);
	/* Optional: get ready for the first plan (start helpers). */
	void (*warm)(void *priv);
} dl_policy_ops_t;

typedef struct dl_policy dl_policy_t;

/**
 * dl_policy_create - instantiate a policy by name.
 * IN name - e.g. "locality"; IN params - "key=value,..." or NULL
 * OUT err - optional: DL_ENOPOLICY, DL_EINVAL (bad params), DL_ENOMEM
 * \return a policy to free with dl_policy_destroy(), NULL on error.
 */
dl_policy_t *dl_policy_create(const char *name, const char *params, int *err);

/**
 * dl_policy_mapping_params - the parameters a policy runs with under a
 * host that uses only the plan's nodes and starts jobs in its own order
 * (slurmctld, dl-sim's slurm dispatch): online-hps gets order=priority
 * unless params set an order (its ECT ordering would be computed and
 * thrown away, and that mode selects its cheaper re-planning defaults),
 * and, unless params set order=ect, the host's placement rule, which its
 * guard models and its hysteresis follows: hysteresis=, wait_factor=,
 * min_wait=, max_wait= and strict= from pp, each unless params set it.
 * Other policies' params are returned as they are.
 * IN params - "key=value,..." or NULL
 * IN pp - the host's placement rule (dl_place.h); NULL: its defaults
 * \return a new string (free()), NULL on ENOMEM.
 */
char *dl_policy_mapping_params(const char *policy, const char *params,
			       const struct dl_place_params *pp);

/* dl_policy_destroy - free a policy; NULL is a no-op. */
void dl_policy_destroy(dl_policy_t *p);

/*
 * dl_policy_warm - let p start what its first plan would otherwise wait
 * for (online-hps: the partitioner helper).  A long-running host calls it
 * once after dl_policy_create(), so that the first job submitted is not
 * the one that pays; failures are left for dl_policy_plan() to meet.
 * NULL, or a policy with nothing to start, is a no-op.
 */
void dl_policy_warm(dl_policy_t *p);

/*
 * dl_policy_set_annotate - whether dl_policy_plan() fills in each plan's
 * figures for people (per-job files and bytes cached, cut, imbalance; on
 * by default).  They change no decision; a host that reads none of them
 * (dl-sim) turns them off: on a 5,000-job trace they were 19% of its CPU.
 * Off, those fields are 0 and imbalance NAN.  NULL is a no-op.
 */
void dl_policy_set_annotate(dl_policy_t *p, int on);

/* dl_policy_name - the registered name of p. */
const char *dl_policy_name(const dl_policy_t *p);

/**
 * dl_policy_plan - plan the state.  On success *out is a new plan (free
 * with dl_plan_free()) whose per-job cache figures, cut and imbalance are
 * filled in by the library whatever the policy (unless
 * dl_policy_set_annotate() turned them off).
 * \return 0, or the policy's error (then *out is NULL).
 */
int dl_policy_plan(dl_policy_t *p, const dl_state_t *st, dl_plan_t **out);

/**
 * dl_plan_add_copy - ask for file to be copied to node (dl_copy_t), once:
 * a copy already in the plan is not added again.
 * \return 0, DL_EINVAL (NULL plan), DL_ETOOBIG (DL_PLAN_COPIES_MAX copies
 *         already), DL_ENOMEM; the plan is unchanged on error.
 */
int dl_plan_add_copy(dl_plan_t *plan, uint32_t file, uint32_t node);

/**
 * dl_plan_prefetch - add to plan the prefetch the Slurm plugin's agent
 * does (agent_pfplan.h), for any policy: on every usable node, the
 * pending jobs plan put there, in plan order (ascending .order, then
 * index), from the first one on, those that start at once on the node's
 * free slots included (the agent selects before Slurm starts them).  For
 * the first per_node of them (the agent takes 2 x the node's CPUs), every
 * file the node does not cache becomes a copy (dl_plan_add_copy()) to that
 * node, as long as the bytes they miss there (a file two of them need
 * counts once) stay within the node's budget; the first job that would
 * exceed it ends the node's list, so that no job further down the queue
 * takes the room of one that starts earlier.  The budget is budget bytes
 * (0: no limit; the agent's PrefetchMaxBytes, half the cache by default),
 * and at most the node's capacity less the bytes its running jobs' files
 * hold there, as the agent's.  Files of unknown size (and empty ones) are
 * left out, and a job with no other file does not count among the
 * per_node.  Every file of the jobs selected (those the node caches
 * included) goes into plan->pins, once per node: the agent's PREFETCH
 * pins them on the node (dl_stage_prefetch()).  Not modelled: the
 * agent's rule that a file no node holds is fetched from storage by one
 * node only.
 * The copies and pins belong to the plan (freed by dl_plan_free()); st
 * is only read.
 * \return 0; DL_EINVAL (NULL argument, or plan does not match st),
 *         DL_ETOOBIG (DL_PLAN_COPIES_MAX copies or pins), DL_ENOMEM: then
 *         the plan's copies and pins are those it had before the call.
 */
int dl_plan_prefetch(const dl_state_t *st, dl_plan_t *plan, uint32_t per_node,
		     uint64_t budget);

/* dl_plan_free - free a plan (and its copies); NULL is a no-op. */
void dl_plan_free(dl_plan_t *plan);

/* One job to start now on one node (indices into the state). */
typedef struct dl_start {
	uint32_t job;
	uint32_t node;
} dl_start_t;

/**
 * dl_plan_starts - what to start now, the way every driver dispatches a
 * plan: each node with free slots (cpus - busy) takes the jobs planned on
 * it in plan order while they fit, stopping at the first that does not;
 * then jobs without a preference (node -1), in priority order, go to the
 * lowest-index eligible node with room.
 * OUT out - a new array of *n starts in start order, free with free()
 * \return 0 or DL_ENOMEM, DL_EINVAL if plan does not match st.
 */
int dl_plan_starts(const dl_state_t *st, const dl_plan_t *plan,
		   dl_start_t **out, size_t *n);

/**
 * dl_policy_list - the registered policies, NULL-terminated, in the order
 * they should be shown to users.
 */
const dl_policy_ops_t *const *dl_policy_list(void);

/**
 * dl_params_get - find key in a "key=value,..." string.
 * OUT val - the value, NUL-terminated, truncated to vallen - 1
 * \return 1 if found, 0 if not.
 */
int dl_params_get(const char *params, const char *key, char *val,
		  size_t vallen);

/**
 * dl_params_double - a numeric parameter within [min, max].
 * \return 0 (with *out set, or left at its default when key is absent),
 *         DL_EINVAL when the value is not a number or out of range.
 */
int dl_params_double(const char *params, const char *key, double min,
		     double max, double *out);

#endif /* DL_POLICY_H */
