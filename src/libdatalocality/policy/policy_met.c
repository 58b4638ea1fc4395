/*
 * policy_met.c - Minimum Execution Time (online-hps-khanna §5, after
 * Maheswaran et al.).
 *
 * When a job arrives (the first plan that sees it) it goes to the node
 * where it would execute fastest, dl_cost_job_on_node(): only the files
 * that node caches now make it cheaper, and the node's queue is ignored.
 * On a tie, e.g. when no node caches any of its files, it goes to "the
 * first available node": one with a free slot now, else the one whose
 * queue frees first, then the lowest index.  The job stays there while it
 * pends and the node can take it (else it is mapped again, as if new);
 * each node runs its jobs in arrival order.
 *
 * MET favours data locality blindly: every job needing a cached file
 * queues behind the node that holds it however long that queue gets, and
 * other nodes may idle meanwhile.  It is a baseline, not a policy to run.
 *
 * Params: none.
 */
#include "dl_error.h"
#include "dl_policy.h"
#include "policy/policy_util.h"

static int _create(const char *params, void **priv)
{
	(void)params;
	*priv = dl__mapper_create(DL__MAP_MET, 0.0, 0.0);
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

const dl_policy_ops_t dl__policy_met = {
	.name = "met",
	.summary = "minimum execution time on arrival (baseline; ignores load)",
	.create = _create,
	.destroy = _destroy,
	.plan = _plan,
};
