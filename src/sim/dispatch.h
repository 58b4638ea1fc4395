/*
 * dispatch.h - how dl-sim turns plans into job starts.
 *
 * Two rules, chosen with dl_sim_config_t.dispatch:
 *
 *   plan  - the paper's (online-hps-khanna §4): dl_plan_starts(), every
 *           node takes the jobs planned on it in plan order, so the plan
 *           overrules priority.
 *   slurm - what slurmctld does with the deployed plugin, "Slurm decides
 *           when, we decide where": every pending job carries a placement
 *           record (dl_place.h) that the latest plan advances, and a pass
 *           modelled on Slurm's main scheduler (_schedule() in
 *           src/slurmctld/job_scheduler.c of Slurm 22.05) starts jobs in
 *           priority order (dl_state_priority_order()):
 *             - a restricted job starts on its node when the node has room;
 *               when it has not, the node is kept from lower-priority jobs
 *               for the rest of the pass (Slurm takes a failed job's
 *               required nodes out of the available ones and goes on: it
 *               does not block the partition);
 *             - an unrestricted job (no preference, or widened) starts on
 *               the lowest-index eligible usable node with room that no
 *               higher-priority job kept; when there is none, the pass
 *               stops (ESLURM_NODES_BUSY without a required node list
 *               blocks the job's partition, and dl-sim has one).  With
 *               jobs of one size this costs nothing: no later job could
 *               start either.  Backfill, which could start smaller jobs
 *               that delay no one, is not modelled.
 *
 * The functions below only read the state; records are the caller's.
 * Errors follow dl_error.h.
 */
#ifndef DL_SIM_DISPATCH_H
#define DL_SIM_DISPATCH_H

#include <stddef.h>
#include <stdint.h>

#include "dl_place.h"
#include "dl_policy.h"
#include "dl_state.h"

typedef enum dl_dispatch {
	DL_DISPATCH_SLURM = 0, /* the default: what slurmctld does */
	DL_DISPATCH_PLAN,      /* dl_plan_starts(): plan order per node */
} dl_dispatch_t;

/* What dl_dispatch_place_steps() did, added up over a run. */
typedef struct dl_dispatch_count {
	size_t set;     /* first restrictions */
	size_t moved;   /* restrictions moved to another node */
	size_t widened; /* restrictions lifted for good */
} dl_dispatch_count_t;

/* dl_dispatch_from_name - "slurm" or "plan". \return 0 or DL_EINVAL. */
int dl_dispatch_from_name(const char *name, dl_dispatch_t *out);

/* dl_dispatch_name - \return "slurm", "plan", or "?". */
const char *dl_dispatch_name(dl_dispatch_t d);

/*
 * What dl_dispatch_place_steps() and dl_dispatch_place_expiry() compute
 * of st and its records before they look at any job: the room and the
 * blocked-job quota.  dl-sim asks for the expiry after a pass and for
 * steps on the same state at the next instant, before anything moved:
 * one quota for both instead of two (a third of the quotas at 1,024
 * nodes).  Fill with dl_dispatch_judge(), free with
 * dl_dispatch_judge_free().
 */
typedef struct dl_dispatch_judge {
	dl_place_room_t room;
	dl_place_quota_t q; /* empty on ENOMEM: every blocked job counts */
} dl_dispatch_judge_t;

/* dl_dispatch_judge - j for st and rec (as dl_dispatch_place_steps()
 * takes them), valid while neither changes but for st->now and the
 * records' clocks (rec->last). */
void dl_dispatch_judge(const dl_state_t *st, dl_place_t *const *rec,
		       dl_dispatch_judge_t *j);

/* dl_dispatch_judge_free - free what j holds; j is empty after. */
void dl_dispatch_judge_free(dl_dispatch_judge_t *j);

/**
 * dl_dispatch_place_steps - dl_place_step() for every job of st that has
 * a record, at st->now.  A step that keeps a restriction and cannot
 * widen it (the job not blocked, or blocked for less than min_wait in
 * all) leaves rec->bound as an earlier step set it (dl-sim does not read
 * it between steps).
 * IN planned - per job of st: the plan's node, -1: none; NULL: -1 for
 *              every job (a step between plans that only counts waiting)
 * IN/OUT rec - per job of st: its record, NULL for a job to leave alone
 * IN/OUT count - the actions are added to it
 */
void dl_dispatch_place_steps(const dl_state_t *st, const int32_t *planned,
			     const dl_place_params_t *p, dl_place_t *const *rec,
			     dl_dispatch_count_t *count);

/* dl_dispatch_place_steps_judged - dl_dispatch_place_steps() given j,
 * dl_dispatch_judge() of st and rec as they are. */
void dl_dispatch_place_steps_judged(const dl_state_t *st,
				    const int32_t *planned,
				    const dl_place_params_t *p,
				    dl_place_t *const *rec,
				    const dl_dispatch_judge_t *j,
				    dl_dispatch_count_t *count);

/**
 * dl_dispatch_slurm_pass - the jobs Slurm's main scheduler starts now.
 * IN rec - per job of st: its record, NULL for an unrestricted job; rec
 *          itself NULL: every job is unrestricted
 * OUT out - a new array of *n starts in start order, free with free()
 * \return 0, DL_EINVAL (NULL argument), DL_ENOMEM (outputs unchanged).
 */
int dl_dispatch_slurm_pass(const dl_state_t *st, dl_place_t *const *rec,
			   dl_start_t **out, size_t *n);

/**
 * dl_dispatch_place_expiry - seconds from st->now until the first bounded
 * wait ends if nothing changes: the least bound - waited over the jobs
 * restricted to a node that blocks them (dl_place_blocked()).
 * \return seconds (0 when one is due already), INFINITY when no wait is
 *         bounded (none blocked, strict, or rec NULL).
 */
double dl_dispatch_place_expiry(const dl_state_t *st,
				const dl_place_params_t *p,
				dl_place_t *const *rec);

/* dl_dispatch_place_expiry_judged - dl_dispatch_place_expiry() given j,
 * dl_dispatch_judge() of st and rec as they are. */
double dl_dispatch_place_expiry_judged(const dl_state_t *st,
				       const dl_place_params_t *p,
				       dl_place_t *const *rec,
				       const dl_dispatch_judge_t *j);

/**
 * dl_dispatch_policy_params - the policy parameters a run uses under
 * dispatch d: under slurm, where jobs start in priority order and a plan
 * only says where, dl_policy_mapping_params(), as the plugin's agent does
 * (dl_agent.c): Online-HPS gets order=priority unless params set an
 * order (its ECT ordering would be computed and thrown away, and in that
 * mapping-only mode its cheaper re-planning defaults apply), and the
 * run's placement rule pp, which its guard models.  Under both
 * dispatches Online-HPS also gets timeout_ms=0 unless params set one: its
 * partitioner helper then has no wall-clock deadline, so that a run's
 * result does not depend on the host's load.
 * \return a new string to free() (possibly empty), NULL on ENOMEM.
 */
char *dl_dispatch_policy_params(dl_dispatch_t d, const char *policy,
				const char *params,
				const dl_place_params_t *pp);

#endif /* DL_SIM_DISPATCH_H */
