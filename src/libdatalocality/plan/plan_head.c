/*
 * plan_head.c - the head of the queue, as a state of its own.
 */
#include <stdlib.h>
#include <string.h>

#include "dl_error.h"
#include "plan/plan_head.h"

/* Which jobs of st the head holds: running ones and the first n pending
 * ones in priority order.  \return a new [njobs] 0/1 array, or NULL. */
static unsigned char *_members(const dl_state_t *st, size_t n)
{
	unsigned char *in = calloc(st->njobs ? st->njobs : 1, 1);
	size_t *prio, nprio, i;

	if (!in || dl_state_priority_order(st, &prio, &nprio)) {
		free(in);
		return NULL;
	}
	for (i = 0; i < st->njobs; i++)
		in[i] = st->jobs[i].state == DL_JOB_RUNNING;
	for (i = 0; i < nprio && i < n; i++)
		in[prio[i]] = 1;
	free(prio);
	return in;
}

static size_t _pending(const dl_state_t *st)
{
	size_t i, n = 0;

	for (i = 0; i < st->njobs; i++)
		n += st->jobs[i].state == DL_JOB_PENDING;
	return n;
}

/* The view's arrays for its m jobs.  \return 0 or DL_ENOMEM. */
static int _alloc(dl__head_t *h, const dl_state_t *st, size_t m)
{
	size_t sz = m ? m : 1;

	h->view.jobs = malloc(sz * sizeof(*h->view.jobs));
	h->plan.a = malloc(sz * sizeof(*h->plan.a));
	h->idx = malloc(sz * sizeof(*h->idx));
	if (st->remaining)
		h->view.remaining = malloc(sz * sizeof(*h->view.remaining));
	if (!h->view.jobs || !h->plan.a || !h->idx ||
	    (st->remaining && !h->view.remaining)) {
		dl__head_fini(h);
		return DL_ENOMEM;
	}
	return 0;
}

int dl__head_init(dl__head_t *h, const dl_state_t *st, const dl_plan_t *plan,
		  size_t n)
{
	unsigned char *in;
	size_t i, m = 0;
	double *rem;

	if (!h || !st || !plan || plan->n != st->njobs)
		return DL_EINVAL;
	if (_pending(st) <= n)
		return 0;
	if (!(in = _members(st, n)))
		return DL_ENOMEM;
	for (i = 0; i < st->njobs; i++)
		m += in[i];
	memset(h, 0, sizeof(*h));
	h->view = *st;
	h->view.jobs = NULL;
	h->view.remaining = NULL;
	h->view.jobs_cap = 0;
	if (_alloc(h, st, m)) {
		free(in);
		return DL_ENOMEM;
	}
	rem = (double *)h->view.remaining;
	for (i = m = 0; i < st->njobs; i++) {
		if (!in[i])
			continue;
		h->view.jobs[m] = st->jobs[i];
		h->plan.a[m] = plan->a[i];
		if (rem)
			rem[m] = st->remaining[i];
		h->idx[m++] = i;
	}
	h->view.njobs = h->plan.n = m;
	memcpy(h->plan.policy, plan->policy, sizeof(h->plan.policy));
	free(in);
	return 1;
}

void dl__head_store(const dl__head_t *h, const dl_state_t *st,
		    dl_plan_t *plan)
{
	size_t i;

	for (i = 0; i < h->view.njobs; i++)
		if (st->jobs[h->idx[i]].state == DL_JOB_PENDING)
			plan->a[h->idx[i]].node = h->plan.a[i].node;
}

void dl__head_fini(dl__head_t *h)
{
	if (!h)
		return;
	free(h->view.jobs);
	free((double *)h->view.remaining);
	free(h->plan.a);
	free(h->idx);
	h->view.jobs = NULL;
	h->view.remaining = NULL;
	h->plan.a = NULL;
	h->idx = NULL;
}
