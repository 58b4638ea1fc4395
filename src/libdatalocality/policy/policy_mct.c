/*
 * policy_mct.c - Minimum Completion Time (online-hps-khanna §5, after
 * Maheswaran et al.).
 *
 * When a job arrives (the first plan that sees it) it goes to the node
 * where it would complete first: the time that node's queue lets it start
 * (the remaining time of its running jobs and the estimates of the jobs
 * queued there before it, on the node's slots) plus its execution time
 * there, where the files cached on the node and those the running and
 * queued jobs there will have staged cost no transfer.  Ties: a node with
 * a free slot now, then the lowest index.  The job stays there while it
 * pends and the node can take it (else it is mapped again, as if new);
 * each node runs its jobs in arrival order.
 *
 * Estimates come from the cost model (dl_cost.h); the remote-transfer
 * Gantt chart of §4.3, which the paper also grafts onto MCT, is not used.
 *
 * Params: none.
 */
#include "dl_error.h"
#include "dl_policy.h"
#include "policy/policy_util.h"

static int _create(const char *params, void **priv)
{
	(void)params;
	*priv = dl__mapper_create(DL__MAP_MCT, 0.0, 0.0);
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

const dl_policy_ops_t dl__policy_mct = {
	.name = "mct",
	.summary = "minimum completion time on arrival (baseline)",
	.create = _create,
	.destroy = _destroy,
	.plan = _plan,
};
