/*
 * dl_place.h - where a pending job may run, while the batch system decides
 * when.
 *
 * A plan says which node each pending job should run on.  The host turns
 * that into a placement restriction its scheduler honours (in Slurm, a
 * required node list), so priority order, reservations and backfill stay
 * the scheduler's.  This module decides, job by job and cycle by cycle,
 * what the restriction should be:
 *
 *   - a job gets the plan's node the first time it is seen;
 *   - it moves to a newly planned node only when that node holds clearly
 *     more of its input (hysteresis), so restrictions, reservations and
 *     reasons do not flip between cycles;
 *   - it waits for its node only as long as the data there is worth:
 *     delay scheduling (Zaharia et al., EuroSys'10) with the bound set by
 *     the cost model, WaitFactor x (bytes of its input on the node, cached
 *     or being staged there by a running job, / storage bandwidth), at
 *     least MinWait (a node freed a moment ago is not a
 *     lost chance: Slurm fills it at its next pass) and at most MaxWait.
 *     Waiting counts only while the job is blocked, i.e. its node has no
 *     room (or is down) and another usable eligible node has, and only
 *     since that node freed (dl_node_t.freed): a node between two jobs
 *     holds nobody back; and only for as many blocked jobs, in Slurm's
 *     order, as the free room would start (dl_place_quota()).
 *     Past the bound the restriction is widened to every eligible node and
 *     never set again (unless strict).  The bound is 0 for a job ahead of
 *     a wide job the nodes drain for (dl_state_t.wide_waiting): nothing
 *     behind that job may use a node the job leaves idle.  The time waited
 *     is the job's, not the node's: a move does not start it afresh.
 *
 *   - a cold node (powered down or resuming, dl_node_t.wake > 0) is
 *     chosen only while no warm node would let the job begin sooner
 *     (dl_place_warm()): its files kept on a cold node may be worth a
 *     resume, an empty cold node is not worth one while a warm node has
 *     room.
 *
 * The plugin and dl-sim call the same functions, so the simulator measures
 * what slurmctld does.  Errors: none; invalid indices leave the record
 * unchanged and return DL_PLACE_KEEP.
 */
#ifndef DL_PLACE_H
#define DL_PLACE_H

#include <stdint.h>

#include "dl_cost.h"
#include "dl_state.h"

typedef struct dl_place_params {
	double wait_factor;     /* bound = factor x coming bytes / rbw */
	double min_wait;        /* floor of the bound, seconds */
	double max_wait;        /* cap on the bound, seconds */
	double hysteresis;      /* a move needs this share of the job's
				 * input more cached on the new node */
	int strict;             /* never widen: wait for the node forever */
	/*
	 * Copies between nodes' caches (a node cache service serving its
	 * peers): a job that leaves its node then gets that node's copy at
	 * peer_bw instead of from the storage, and the wait is priced so.
	 */
	double peer_bw;         /* bytes/s; 0: no peer copies */
	const uint8_t *peer_src;/* [nnodes]: 1 if the node serves peers;
				 * NULL: every node does; borrowed */
} dl_place_params_t;

/* Per-job placement record; the host keeps one per pending job. */
typedef struct dl_place {
	int32_t node;           /* current restriction, -1: none */
	int widened;            /* the bound passed: any eligible node */
	double waited;          /* seconds blocked on node */
	double bound;           /* seconds it may wait (last computed) */
	double last;            /* host clock at the last step, 0: never */
} dl_place_t;

typedef enum dl_place_action {
	DL_PLACE_KEEP = 0,      /* restriction unchanged */
	DL_PLACE_SET,           /* restrict to rec->node (new or moved) */
	DL_PLACE_WIDEN,         /* lift the restriction */
} dl_place_action_t;

/**
 * dl_place_worth_moving - whether a job restricted to cur moves to the
 * planned node, as dl_place_step() decides: the planned node caches at
 * least p->hysteresis of the job's input more than cur (and more at all).
 */
int dl_place_worth_moving(const dl_state_t *st, const dl_job_t *j,
			  uint32_t cur, uint32_t planned,
			  const dl_place_params_t *p);

/* dl_place_params_default - factor 1, min 2 s, max 300 s, hysteresis 0.25. */
void dl_place_params_default(dl_place_params_t *p);

/* dl_place_init - a record with no restriction. */
void dl_place_init(dl_place_t *rec);

/* dl_place_cached_bytes - bytes of job j's input cached on node n. */
uint64_t dl_place_cached_bytes(const dl_state_t *st, const dl_job_t *j,
			       uint32_t n);

/**
 * dl_place_blocked - whether pending job j, restricted to node n, is held
 * back by that restriction: n has no room for it now while another usable
 * node it is eligible for has.
 */
int dl_place_blocked(const dl_state_t *st, const dl_job_t *j, uint32_t n);

/**
 * dl_place_max_free - the free slots of the roomiest usable node of st.
 */
uint32_t dl_place_max_free(const dl_state_t *st);

/*
 * What the blocked checks need to know of every node, computed once per
 * state: a host stepping many jobs on one state passes it to the *_free()
 * variants below; otherwise each check scans every node, which made the
 * step of all pending jobs O(jobs x nodes) per scheduling event (and, for
 * the one-CPU jobs of data-diffusion-raicu's ramp, 27% of dl-sim's time
 * at 16,000 pending jobs while a node had room).
 */
typedef struct {
	uint32_t max_free; /* dl_place_max_free() */
	/* The two nodes with room for one CPU whose room came first
	 * (dl_node_t.freed, unknown as 0), or -1; f1 <= f2. */
	int32_t first, second;
	double f1, f2;
} dl_place_room_t;

/* dl_place_room - fill *r for st (NULL: no room anywhere). */
void dl_place_room(const dl_state_t *st, dl_place_room_t *r);

/* dl_place_blocked_free - dl_place_blocked() given dl_place_room(st). */
int dl_place_blocked_free(const dl_state_t *st, const dl_job_t *j, uint32_t n,
			  const dl_place_room_t *room);

/**
 * dl_place_blocked_for - the seconds job j, restricted to node n, has been
 * held back since the host clock last (its previous step; 0: never), or
 * -1 if it is not blocked now: from the later of last and the moment
 * the first of the nodes with room for it got that room
 * (dl_node_t.freed) to st->now.  A job is not held back by a node that
 * freed a moment ago and that the batch system is about to fill.
 * room: dl_place_room(st).
 */
double dl_place_blocked_for(const dl_state_t *st, const dl_job_t *j,
			    uint32_t n, const dl_place_room_t *room,
			    double last);

/*
 * dl_place_coming_bytes - bytes of job j's input on node n or on their
 * way there: cached, or read by a job running on n
 * (dl_state_node_reads()) and no larger than n's cache.
 */
uint64_t dl_place_coming_bytes(const dl_state_t *st, const dl_job_t *j,
			       uint32_t n);

/**
 * dl_place_bound - how long job j may wait for node n, in seconds:
 * wait_factor x dl_place_coming_bytes() / rbw within [min_wait, max_wait];
 * infinite if strict; 0 if j is ahead of a waiting wide job
 * (st->wide_waiting and j->priority > st->wide_priority).  Where n serves
 * peers at a peer_bw above rbw, the bytes are priced at peer_bw: moving
 * would copy them from n.
 */
double dl_place_bound(const dl_state_t *st, const dl_job_t *j, uint32_t n,
		      const dl_place_params_t *p);

/**
 * dl_place_pin - tell the policy about a restriction it cannot undo: when
 * no other node holds enough more of pending job k's input for a move to
 * pass the hysteresis, make node cur the only node the job is eligible
 * for, so that the plan places the other jobs around it instead of
 * planning on a node the job will not go to.
 * \return 1 if pinned, 0 if the job may still move, DL_EINVAL (bad index
 *         or cur not eligible: nothing done) or DL_ENOMEM.
 */
int dl_place_pin(dl_state_t *st, size_t k, uint32_t cur,
		 const dl_place_params_t *p);

/**
 * dl_place_warm - the node job j should go to instead of node n when
 * waking n is dearer: among n and the warm (wake 0) nodes j is eligible
 * for, the one where j could begin soonest (dl_cost_job_ready(): the
 * node's resume or queue wait plus copying what it does not cache).  A
 * warm node must be strictly sooner to be chosen over n; among warm nodes
 * equally soon, the lowest index.
 * IN ends - dl_cost_ends(st) (nends entries), or NULL: found here
 * \return a node index: n itself when n is warm, or when no warm node is
 *         sooner, or on invalid arguments or lack of memory.
 */
int32_t dl_place_warm(const dl_state_t *st, const dl_job_t *j, uint32_t n,
		      const dl_cost_end_t *ends, size_t nends);

/**
 * dl_place_step - advance job's record to st->now given the plan's choice.
 * IN job - index into st->jobs (a pending job)
 * IN planned - the plan's node for it, -1: no preference; a cold one is
 *              first weighed against the warm ones (dl_place_warm())
 * IN/OUT rec - the job's record; a job restricted to a node that went
 *              cold moves to a warm one when that is sooner
 * \return what changed: DL_PLACE_SET (restrict to rec->node),
 *         DL_PLACE_WIDEN (lift it) or DL_PLACE_KEEP.
 */
dl_place_action_t dl_place_step(const dl_state_t *st, size_t job,
				int32_t planned, const dl_place_params_t *p,
				dl_place_t *rec);

/* dl_place_step_free - dl_place_step() given dl_place_room(st). */
dl_place_action_t dl_place_step_free(const dl_state_t *st, size_t job,
				     int32_t planned,
				     const dl_place_params_t *p,
				     dl_place_t *rec,
				     const dl_place_room_t *room);

/*
 * The blocked-job quota (issue 30): per placement step, at most as many
 * blocked restricted jobs count their wait as the free room would start,
 * chosen in Slurm's order (priority, then earlier arrival, then job id),
 * not in the order the host steps its jobs.  Walking the blocked jobs in
 * that order, each takes its CPUs from the first node, other than its
 * own, that it could start on and that the jobs before it left room on;
 * one that finds none is "over": it is not held back by our restriction
 * (backfill would not start it either), so its wait does not count this
 * step, and its clock moves on (rec->last).  One node freed with nobody
 * restricted to it thus widens one job, not the whole queue.  CPUs are
 * counted per job, not one slot per job: a job of 4 CPUs takes 4 of the
 * node's slots under Slurm's select too.
 *
 * A job of k nodes (dl_place_multi_t) takes its CPUs on each of k nodes
 * in the same walk, all or nothing: it shares the one quota of the step
 * with the single-node jobs (dl_place_quota_multi()).
 *
 * The host computes the quota once per step, from the state and every
 * job's current restriction, and passes it to dl_place_step_quota() for
 * every job; both hosts (dl-sim and the plugin's agent) do so.  The
 * agent's multi-node jobs, which the library does not step, count their
 * wait only while dl_place_multi_blocked() and not
 * dl_place_quota_multi_over(); dl-sim has none.
 */
typedef struct dl_place_quota {
	uint8_t *over;          /* [njobs + nmulti]: 1 for a blocked job
				 * beyond the quota, multi-node job i at
				 * njobs + i; malloc'd, dl_place_quota_free() */
	size_t njobs;
	size_t nmulti;
	size_t blocked;         /* blocked restricted jobs, of either kind */
	size_t counted;         /* of them, the ones within the quota */
} dl_place_quota_t;

/*
 * A pending job that runs on k nodes at once, restricted by the host to a
 * set of k nodes (the agent's multi-node jobs, agent_multi.h): it is not
 * in st->jobs, whose jobs run on one node.  It is blocked while it cannot
 * start on its set now (a node of the set cannot take it) and could on k
 * nodes; in the quota it takes job.cpus from each of the first k nodes
 * (by index) it could start on that the jobs before it left node_need
 * free on, all or nothing, as Slurm allocates it: one that finds no k
 * such nodes is over.  What a node must have free (node_need) may exceed
 * what the job then takes there (job.cpus): Slurm asks a node for at
 * least --mincpus free, and since 24.11.1 allocates only what the job's
 * tasks use.  "Could start on n": fits[n] if the host gave its test
 * (Slurm's, which also weighs memory and GRES), else the library's
 * (usable, node_need free CPUs, job.eligible).
 */
typedef struct dl_place_multi {
	dl_job_t job;           /* id, priority, arrival (Slurm's order);
				 * cpus: it takes on each node; eligible:
				 * NULL, all; its pointers borrowed */
	uint32_t node_need;     /* CPUs a node must have free for it to
				 * start there; 0 (or less than job.cpus):
				 * job.cpus */
	uint32_t k;             /* nodes it runs on, >= 1 */
	const uint32_t *set;    /* [k] its restriction's nodes, borrowed;
				 * NULL: not to be judged (widened, or
				 * leaving a node that serves nobody) */
	const uint8_t *fits;    /* [st->nnodes] 0/1, the host's test, or
				 * NULL; borrowed */
} dl_place_multi_t;

/*
 * The host's own test of whether job (an index into st->jobs) could
 * start on node now, for resources the library does not model (memory,
 * GRES, node state); arg is the host's.
 */
typedef int (*dl_place_fits_fn)(const void *arg, const dl_state_t *st,
				size_t job, uint32_t node);

/**
 * dl_place_quota - which blocked jobs count their wait this step.
 * IN node - [st->njobs] each job's current restriction, -1: none (not
 *           placed, widened, or not to be judged)
 * IN room - dl_place_room(st)
 * IN fits - NULL, or the host's test: a job is then also blocked when it
 *           cannot start on its node but could on another by that test,
 *           and may take room on the nodes either test allows
 * OUT q - filled; free with dl_place_quota_free() (also on error: then
 *         empty, every job counts)
 * \return 0, DL_EINVAL or DL_ENOMEM.
 */
int dl_place_quota(const dl_state_t *st, const int32_t *node,
		   const dl_place_room_t *room, dl_place_fits_fn fits,
		   const void *arg, dl_place_quota_t *q);

/**
 * dl_place_quota_multi - dl_place_quota() where the multi-node jobs
 * multi[0..nmulti) share the quota with st's jobs: all are walked in one
 * Slurm's order (priority, arrival, id), one free room taken by both.
 * IN multi - NULL when nmulti is 0; each entry as dl_place_multi_t says
 * \return 0, DL_EINVAL (also for a judged entry with k = 0 or a node
 *         of its set not in st) or DL_ENOMEM; q as dl_place_quota() says.
 */
int dl_place_quota_multi(const dl_state_t *st, const int32_t *node,
			 const dl_place_multi_t *multi, size_t nmulti,
			 const dl_place_room_t *room, dl_place_fits_fn fits,
			 const void *arg, dl_place_quota_t *q);

/*
 * dl_place_multi_blocked - whether multi-node job m is blocked now, as
 * dl_place_multi_t says (0 for one not to be judged or invalid).
 */
int dl_place_multi_blocked(const dl_state_t *st, const dl_place_multi_t *m);

/* dl_place_quota_free - free q's array; q may be NULL. */
void dl_place_quota_free(dl_place_quota_t *q);

/* dl_place_quota_over - 1 if job is beyond quota q (NULL: never). */
int dl_place_quota_over(const dl_place_quota_t *q, size_t job);

/*
 * dl_place_quota_multi_over - 1 if multi-node job i (its index in the
 * multi array given to dl_place_quota_multi()) is beyond quota q (NULL:
 * never).
 */
int dl_place_quota_multi_over(const dl_place_quota_t *q, size_t i);

/**
 * dl_place_step_quota - dl_place_step_free() where a job over quota q
 * (NULL: none) does not count its wait this step.
 */
dl_place_action_t dl_place_step_quota(const dl_state_t *st, size_t job,
				      int32_t planned,
				      const dl_place_params_t *p,
				      dl_place_t *rec,
				      const dl_place_room_t *room,
				      const dl_place_quota_t *q);

#endif /* DL_PLACE_H */
