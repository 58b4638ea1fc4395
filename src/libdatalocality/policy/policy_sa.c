/*
 * policy_sa.c - the Switching Algorithm (online-hps-khanna §5, after
 * Maheswaran et al.).
 *
 * Jobs are mapped on arrival and stay, as in "mct" and "met"; the
 * heuristic used for each new job switches on the load balance index
 *   ib = load_min / load_max,
 * load = completion time of the last job queued on a usable node (its
 * running jobs' remaining time plus its queued jobs' estimates).  SA
 * starts with MCT; before each new job, if it maps with MCT and ib >= h,
 * it switches to MET; if it maps with MET and ib < l, back to MCT.  When
 * every node is idle ib is 0 / 0 and the mode is kept.  The mode lives
 * across plans, so the cycle continues from one scheduling event to the
 * next.  Following §5 (point 3), both heuristics under SA count the files
 * the running and queued jobs of a node stage as on that node.
 *
 * Params: l=<0..1> (0.3), h=<l..1> (0.7), the paper's values.
 */
#include <stdlib.h>

#include "dl_error.h"
#include "dl_policy.h"
#include "policy/policy_util.h"

static int _create(const char *params, void **priv)
{
	double l = 0.3, h = 0.7;

	if (dl_params_double(params, "l", 0.0, 1.0, &l) ||
	    dl_params_double(params, "h", 0.0, 1.0, &h) || l > h)
		return DL_EINVAL;
	*priv = dl__mapper_create(DL__MAP_SA, l, h);
	return *priv ? 0 : DL_ENOMEM;
}

static void _destroy(void *priv)
{
	dl__mapper_destroy(priv);
}

static int _plan(void *priv, const dl_state_t *st, dl_plan_t *plan)
{
	return dl__mapper_plan(priv, st, plan);
}

const dl_policy_ops_t dl__policy_sa = {
	.name = "sa",
	.summary = "switches MCT/MET on the load balance index (l=0.3,h=0.7)",
	.create = _create,
	.destroy = _destroy,
	.plan = _plan,
};
