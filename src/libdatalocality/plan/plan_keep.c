/* plan_keep.c - a plan as the host will apply it; see plan_keep.h. */
#include "plan/plan_keep.h"

size_t dl__plan_keep(const dl_state_t *st, dl_plan_t *plan,
		     const int32_t *prev, const dl_place_params_t *p)
{
	size_t kept = 0, i;

	if (!st || !plan || !prev || !p || plan->n != st->njobs)
		return 0;
	for (i = 0; i < st->njobs; i++) {
		const dl_job_t *j = &st->jobs[i];
		int32_t now = plan->a[i].node, was = prev[i];

		if (j->state != DL_JOB_PENDING || now < 0 || was < 0 ||
		    now == was || (uint32_t)was >= st->nnodes ||
		    (uint32_t)now >= st->nnodes ||
		    !dl_state_job_eligible(st, j, (uint32_t)was) ||
		    dl_place_worth_moving(st, j, (uint32_t)was,
					  (uint32_t)now, p))
			continue;
		plan->a[i].node = was;
		kept++;
	}
	return kept;
}
