/* dispatch.c - the slurm dispatch rule of dl-sim; see dispatch.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch.h"
#include "dl_error.h"
#include "dl_policy.h"

static const char *const names[] = {
	[DL_DISPATCH_SLURM] = "slurm",
	[DL_DISPATCH_PLAN] = "plan",
};

int dl_dispatch_from_name(const char *name, dl_dispatch_t *out)
{
	size_t i;

	if (!name || !out)
		return DL_EINVAL;
	for (i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (!strcmp(name, names[i])) {
			*out = (dl_dispatch_t) i;
			return 0;
		}
	return DL_EINVAL;
}

const char *dl_dispatch_name(dl_dispatch_t d)
{
	return (unsigned) d < sizeof(names) / sizeof(*names) ? names[d] : "?";
}

/* The node a restricted job must run on, -1 if it may run anywhere. */
static int32_t _restriction(const dl_state_t *st, dl_place_t *const *rec,
			    size_t job)
{
	const dl_place_t *r = rec ? rec[job] : NULL;

	if (!r || r->node < 0 || r->node >= (int32_t) st->nnodes)
		return -1;
	return r->node;
}

/*
 * dl_place_step_free() without the bound, where the bound cannot matter:
 * a restriction kept (no other node planned) on a node the job may use,
 * and the job either not blocked (no waiting counts) or blocked for less
 * than the bound's floor in all (no widening).  The step would refresh
 * rec->bound, a cache lookup per input file; dl-sim reads the bound only
 * in steps and dl_dispatch_place_expiry(), which compute it afresh, and
 * at thousands of pending jobs two such steps per event led the profile
 * of a deep queue.  \return 1 if done (rec advanced as the step would),
 * 0 if the step is due.
 */
static int _step_fast(const dl_state_t *st, size_t job, int32_t planned,
		      const dl_place_params_t *p, dl_place_t *r,
		      const dl_place_room_t *room, const dl_place_quota_t *q)
{
	const dl_job_t *j = &st->jobs[job];
	double dt;
	uint32_t cur;

	if (r->widened || r->node < 0 || r->node >= (int32_t) st->nnodes)
		return 0;
	cur = (uint32_t) r->node;
	if (planned >= 0 && planned != r->node)
		return 0;
	if (st->nodes[cur].cpus < j->cpus || (j->eligible && !j->eligible[cur]))
		return 0; /* not _allowed(): the step widens or moves */
	dt = dl_place_quota_over(q, job) ?
		     -1 : dl_place_blocked_for(st, j, cur, room, r->last);
	if (dt >= 0) {
		/* The bound is at least min_wait, infinite when strict. */
		if (!p->strict && !(r->waited + dt < p->min_wait))
			return 0;
		r->waited += dt;
	}
	r->last = st->now;
	return 1;
}

/*
 * The blocked-job quota of st (dl_place_quota()) from each pending job's
 * current restriction.  Without a node with a free CPU no job is blocked
 * and nothing is computed.  Out of memory, q stays empty: every blocked
 * job counts, as before the quota.  Free q with dl_place_quota_free().
 */
static void _quota(const dl_state_t *st, dl_place_t *const *rec,
		   const dl_place_room_t *room, dl_place_quota_t *q)
{
	int32_t *node;
	size_t i;

	memset(q, 0, sizeof(*q));
	if (!room->max_free ||
	    !(node = malloc((st->njobs ? st->njobs : 1) * sizeof(*node))))
		return;
	for (i = 0; i < st->njobs; i++)
		node[i] = st->jobs[i].state == DL_JOB_PENDING && rec[i] &&
				  !rec[i]->widened ?
				  _restriction(st, rec, i) : -1;
	dl_place_quota(st, node, room, NULL, NULL, q);
	free(node);
}

void dl_dispatch_judge(const dl_state_t *st, dl_place_t *const *rec,
		       dl_dispatch_judge_t *j)
{
	dl_place_room(st, &j->room);
	_quota(st, rec, &j->room, &j->q);
}

void dl_dispatch_judge_free(dl_dispatch_judge_t *j)
{
	dl_place_quota_free(&j->q);
}

void dl_dispatch_place_steps(const dl_state_t *st, const int32_t *planned,
			     const dl_place_params_t *p, dl_place_t *const *rec,
			     dl_dispatch_count_t *count)
{
	dl_dispatch_judge_t j;

	if (!st || !p || !rec)
		return;
	dl_dispatch_judge(st, rec, &j);
	dl_dispatch_place_steps_judged(st, planned, p, rec, &j, count);
	dl_dispatch_judge_free(&j);
}

void dl_dispatch_place_steps_judged(const dl_state_t *st,
				    const int32_t *planned,
				    const dl_place_params_t *p,
				    dl_place_t *const *rec,
				    const dl_dispatch_judge_t *j,
				    dl_dispatch_count_t *count)
{
	const dl_place_room_t *room = &j->room;
	const dl_place_quota_t *q = &j->q;
	size_t i;

	if (!st || !p || !rec)
		return;
	for (i = 0; i < st->njobs; i++) {
		int had;

		if (!rec[i] || st->jobs[i].state != DL_JOB_PENDING)
			continue;
		if (_step_fast(st, i, planned ? planned[i] : -1, p, rec[i],
			       room, q))
			continue;
		had = rec[i]->node >= 0;
		switch (dl_place_step_quota(st, i, planned ? planned[i] : -1, p,
					    rec[i], room, q)) {
		case DL_PLACE_SET:
			if (count && had)
				count->moved++;
			else if (count)
				count->set++;
			break;
		case DL_PLACE_WIDEN:
			if (count)
				count->widened++;
			break;
		default:
			break;
		}
	}
}

/*
 * One job of the pass.  \return 1 if it started (*node set), 0 if it did
 * not but the pass goes on, -1 if the pass stops here.
 */
static int _try(const dl_state_t *st, const dl_job_t *j, int32_t req,
		uint32_t *room, uint8_t *kept, uint32_t *node)
{
	uint32_t k;

	if (req >= 0) {
		k = (uint32_t) req;
		if (!kept[k] && room[k] >= j->cpus &&
		    dl_state_job_eligible(st, j, k)) {
			*node = k;
			return 1;
		}
		/* Its required node is not for lower-priority jobs either,
		 * but the others may still start (job_scheduler.c). */
		kept[k] = 1;
		return 0;
	}
	for (k = 0; k < st->nnodes; k++)
		if (!kept[k] && room[k] >= j->cpus &&
		    dl_state_job_eligible(st, j, k)) {
			*node = k;
			return 1;
		}
	/* Nodes busy and no required node list: Slurm blocks the job's
	 * partition for this pass. */
	return -1;
}

int dl_dispatch_slurm_pass(const dl_state_t *st, dl_place_t *const *rec,
			   dl_start_t **out, size_t *n)
{
	size_t *prio = NULL, nprio = 0, i, k = 0;
	uint32_t *room, node;
	uint8_t *kept;
	dl_start_t *starts;
	int rc = 0;

	if (!st || !out || !n)
		return DL_EINVAL;
	room = calloc(st->nnodes ? st->nnodes : 1, sizeof(*room));
	kept = calloc(st->nnodes ? st->nnodes : 1, 1);
	starts = malloc((st->njobs ? st->njobs : 1) * sizeof(*starts));
	if (!room || !kept || !starts ||
	    dl_state_priority_order(st, &prio, &nprio)) {
		free(room);
		free(kept);
		free(starts);
		return DL_ENOMEM;
	}
	for (node = 0; node < st->nnodes; node++) {
		const dl_node_t *nd = &st->nodes[node];

		if (nd->usable && nd->cpus > nd->busy)
			room[node] = nd->cpus - nd->busy;
	}
	for (i = 0; i < nprio && rc >= 0; i++) {
		const dl_job_t *j = &st->jobs[prio[i]];

		rc = _try(st, j, _restriction(st, rec, prio[i]), room, kept,
			  &node);
		if (rc <= 0)
			continue;
		room[node] -= j->cpus;
		starts[k].job = (uint32_t) prio[i];
		starts[k++].node = node;
	}
	free(prio);
	free(room);
	free(kept);
	*out = starts;
	*n = k;
	return 0;
}

double dl_dispatch_place_expiry(const dl_state_t *st,
				const dl_place_params_t *p,
				dl_place_t *const *rec)
{
	dl_dispatch_judge_t j;
	double best;

	if (!st || !p || !rec || p->strict)
		return INFINITY;
	dl_dispatch_judge(st, rec, &j);
	best = dl_dispatch_place_expiry_judged(st, p, rec, &j);
	dl_dispatch_judge_free(&j);
	return best;
}

double dl_dispatch_place_expiry_judged(const dl_state_t *st,
				       const dl_place_params_t *p,
				       dl_place_t *const *rec,
				       const dl_dispatch_judge_t *jd)
{
	const dl_place_room_t *room = &jd->room;
	double best = INFINITY;
	size_t i;

	if (!st || !p || !rec || p->strict)
		return INFINITY;
	/* A job beyond the quota waits no nearer to its bound. */
	for (i = 0; i < st->njobs; i++) {
		const dl_job_t *j = &st->jobs[i];
		int32_t node = _restriction(st, rec, i);
		double left;

		if (node < 0 || rec[i]->widened ||
		    j->state != DL_JOB_PENDING ||
		    dl_place_quota_over(&jd->q, i) ||
		    !dl_place_blocked_free(st, j, (uint32_t) node, room))
			continue;
		/* The bound as the next step will compute it. */
		left = dl_place_bound(st, j, (uint32_t) node, p) -
		       rec[i]->waited;
		if (left < best)
			best = left > 0 ? left : 0;
	}
	return best;
}

/*
 * Online-HPS's partitioner helper gets as long as it needs (timeout_ms=0)
 * unless the user set a limit: a wall-clock deadline would make the
 * simulated plan depend on the host's load (issue 30, item 4).  params is
 * malloc'd; on ENOMEM it is freed and NULL returned.
 */
static char *_no_deadline(const char *policy, char *params)
{
	size_t n;
	char *out;

	if (!params || !policy || strcmp(policy, "online-hps") ||
	    dl_params_get(params, "timeout_ms", NULL, 0))
		return params;
	n = strlen(params) + sizeof(",timeout_ms=0");
	out = malloc(n);
	if (out)
		snprintf(out, n, "%s%stimeout_ms=0", params,
			 *params ? "," : "");
	free(params);
	return out;
}

char *dl_dispatch_policy_params(dl_dispatch_t d, const char *policy,
				const char *params,
				const dl_place_params_t *pp)
{
	if (d != DL_DISPATCH_SLURM)
		return _no_deadline(policy, strdup(params ? params : ""));
	return _no_deadline(policy,
			    dl_policy_mapping_params(policy, params, pp));
}
