/*
 * plan_head.h - internal: the head of the queue, as a state of its own.
 *
 * A guard (plan_guard.h) judges a plan by simulating every pending job it
 * places and by making a greedy plan of the same jobs.  On a deep queue
 * (data diffusion's 250K-task ramp keeps 6,400 jobs in the window) that
 * costs more than the partition itself, for jobs that will be planned
 * again many times before they start.  Slurm judges a deep queue the same
 * way: its backfill tests at most bf_max_job_test jobs (500) per cycle.
 * The head is the running jobs and the first n pending jobs in priority
 * order (dl_state_priority_order()): the guards judge the plan there, and
 * the jobs behind keep the policy's nodes.
 *
 * The view shares everything with the state it was taken of (nodes, file
 * blocks, the cache, the running jobs' reads): that state must outlive it
 * and not change meanwhile.
 */
#ifndef DL_PLAN_HEAD_H
#define DL_PLAN_HEAD_H

#include <stddef.h>

#include "dl_policy.h"
#include "dl_state.h"

typedef struct dl__head {
	dl_state_t view;   /* view.jobs and view.remaining owned, the rest
			      borrowed from the state */
	dl_plan_t plan;    /* plan.a owned: the plan's entries of the view's
			      jobs; no copies or pins */
	size_t *idx;       /* owned: [view.njobs] the state's index of each */
} dl__head_t;

/**
 * dl__head_init - the head of st: its running jobs and its first n
 * pending jobs in priority order, in st's order, with plan's entries.
 * \return 1 when st has more than n pending jobs (h filled: free with
 *         dl__head_fini()), 0 when it has at most n (h untouched: judge
 *         st itself), DL_ENOMEM, or DL_EINVAL (plan does not match st).
 */
int dl__head_init(dl__head_t *h, const dl_state_t *st, const dl_plan_t *plan,
		  size_t n);

/* The head plan's nodes for its pending jobs back into plan (of st). */
void dl__head_store(const dl__head_t *h, const dl_state_t *st,
		    dl_plan_t *plan);

void dl__head_fini(dl__head_t *h);

#endif /* DL_PLAN_HEAD_H */
