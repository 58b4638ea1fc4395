/*
 * policy_jdpdll.c - JobDataPresent + DataLeastLoaded (Ranganathan and
 * Foster, as used in online-hps-khanna §3 and §5).
 *
 * JobDataPresent takes jobs from a FIFO queue (here: every plan, the
 * pending jobs in arrival order) and sends each to the least loaded of
 * the nodes that hold its data.  A job reads several files here, so "hold
 * its data" means: hold the most bytes of its files (a node with fewer
 * bytes is no candidate, however idle; online-hps-khanna §3 reads it as
 * minimising the bytes to stage).  If no eligible node holds any of them,
 * the least loaded eligible node overall.  Load = slots taken by running
 * jobs plus those of the jobs this plan queued there, per CPU; ties go
 * to the lowest index.
 *
 * DataLeastLoaded, in the paper, runs beside the scheduler: a site counts
 * the requests for each file it holds, and once a file's count exceeds
 * the replication threshold it copies the file to the least loaded site.
 * Two readings, chosen with replicate=:
 *
 *   copy - as in the paper, through the plan's copy hook (dl_copy_t): for
 *   a job J whose best holder H (as above) has no free slot for it, each
 *   of J's files on H whose popularity (below) exceeds the threshold is
 *   copied to the least loaded eligible node M, if M is strictly less
 *   loaded than H and lacks it.  J itself stays with JobDataPresent: it
 *   goes to H and waits; once the copy is done, a later plan sees M
 *   holding the file and may send J there.  The host makes the copy off
 *   the critical path (sim.h: in idle storage slots; the plugin: a
 *   PREFETCH as J's user, agent_replica.h).
 *
 *   job (the default, for hosts without copies) - a file reaches a node
 *   only with a job that runs there, so replication becomes a placement
 *   decision, taken for a job J whose best holder H is loaded:
 *
 *   if H has no free slot for J now (J would wait there, in the sense of
 *   dl_plan_starts()), and the popularity of J's data on H exceeds the
 *   threshold, and the least loaded eligible node M is strictly less
 *   loaded than H, J goes to M: starting there copies its files to M,
 *   the replica DataLeastLoaded would have made.  Otherwise J goes to H
 *   (and waits for it).
 *
 * popularity = max over J's files f held on H of
 *   dl_cache_access_count(f)    uses of f so far, every node (AccessFreq)
 *   + jobs before J in this plan that need f (requests not yet run),
 * compared with ">" (the paper: "exceeds the threshold").  The replica
 * "made" by placing J on M counts at once: later jobs of the same plan
 * see M as holding J's files, as JobDataPresent sees a finished copy.
 *
 * The paper pairs JDP-DLL with LRU eviction (online-hps-khanna §4.4): a
 * host should create its tracker with DL_EVICT_LRU for this policy; the
 * policy logs once if it is not.
 *
 * Params: threshold=<n >= 0> replication threshold (2, the paper's best);
 * replicate=job|copy (job).
 */
#include <stdlib.h>
#include <string.h>

#include "dl_error.h"
#include "dl_log.h"
#include "dl_policy.h"
#include "policy/policy_util.h"

typedef struct {
	double threshold;
	int copy;       /* replicate=copy: background copies */
	int told_lru;   /* the LRU advice was logged */
} jdpdll_t;

static int _create(const char *params, void **priv)
{
	jdpdll_t *p = calloc(1, sizeof(*p));
	char v[16];

	if (!p)
		return DL_ENOMEM;
	p->threshold = 2.0;
	if (dl_params_double(params, "threshold", 0.0, 1e15, &p->threshold)) {
		free(p);
		return DL_EINVAL;
	}
	if (dl_params_get(params, "replicate", v, sizeof(v))) {
		if (!strcmp(v, "copy") || !strcmp(v, "job")) {
			p->copy = !strcmp(v, "copy");
		} else {
			free(p);
			return DL_EINVAL;
		}
	}
	*priv = p;
	return 0;
}

static void _destroy(void *priv)
{
	free(priv);
}

/* Popularity of file f: its uses so far plus this plan's demand. */
static uint64_t _file_pop(const dl_state_t *st, uint32_t f,
			  const uint32_t *demand)
{
	return dl_cache_access_count(st->cache, f) + demand[f];
}

/*
 * DataLeastLoaded through the copy hook: J's files on hold that are
 * popular beyond the threshold go to least, which lacks them.
 */
static int _replicate(const jdpdll_t *p, const dl_state_t *st,
		      const dl_job_t *j, uint32_t hold, uint32_t least,
		      const uint32_t *demand, dl_plan_t *plan)
{
	uint32_t k;
	int rc;

	for (k = 0; k < j->nfiles; k++) {
		uint32_t f = j->files[k];

		if (!dl_cache_contains(st->cache, hold, f) ||
		    dl_cache_contains(st->cache, least, f) ||
		    (double)_file_pop(st, f, demand) <= p->threshold)
			continue;
		if ((rc = dl_plan_add_copy(plan, f, least)))
			return rc;
	}
	return 0;
}

/* Popularity of j's data on node (see the top of the file). */
static uint64_t _popularity(const dl_state_t *st, const dl_job_t *j,
			    uint32_t node, const dl__u64set_t *ov,
			    const uint32_t *demand)
{
	uint64_t best = 0;
	uint32_t k;

	for (k = 0; k < j->nfiles; k++) {
		uint32_t f = j->files[k];
		uint64_t pop;

		if (!dl_cache_contains(st->cache, node, f) &&
		    !dl__u64set_has(ov, dl__nf_key(node, f)))
			continue;
		pop = _file_pop(st, f, demand);
		if (pop > best)
			best = pop;
	}
	return best;
}

/* For j: the eligible node holding most of its bytes (caches and this
 * plan's stagings; the lighter on ties), -1 if none holds any, and the
 * least loaded eligible node, -1 if none is eligible. */
static void _hold_least(const dl_state_t *st, const dl_job_t *j,
			const double *load, const dl__u64set_t *ov,
			int32_t *hold, int32_t *least)
{
	uint64_t best_bytes = 0;
	uint32_t k;

	*hold = *least = -1;
	for (k = 0; k < st->nnodes; k++) {
		uint64_t b;

		if (!dl_state_job_eligible(st, j, k))
			continue;
		if (*least < 0 || load[k] < load[*least])
			*least = (int32_t)k;
		b = dl__bytes_on_node(st, j, k, ov);
		if (b > best_bytes ||
		    (b && b == best_bytes && load[k] < load[*hold])) {
			*hold = (int32_t)k;
			best_bytes = b;
		}
	}
}

/* j's files counted once more in demand (last: per file, 1 + the last
 * job position r that counted it). */
static void _count_demand(const dl_job_t *j, size_t r, size_t *last,
			  uint32_t *demand)
{
	uint32_t k;

	for (k = 0; k < j->nfiles; k++) {
		uint32_t f = j->files[k];

		if (last[f] != r + 1) {
			last[f] = r + 1;
			demand[f]++;
		}
	}
}

static int _plan(void *priv, const dl_state_t *st, dl_plan_t *plan)
{
	jdpdll_t *p = priv;
	dl__u64set_t ov; /* replicas and stagings this plan decided */
	dl__room_t room;
	uint32_t nf = dl_cache_file_count(st->cache), k;
	uint32_t *demand = NULL; /* per file: jobs of this plan needing it */
	size_t *last = NULL;     /* per file: 1 + last job that counted it */
	size_t *idx = NULL, n = 0, r;
	double *load = NULL;
	int rc;

	if (!p->told_lru && dl_cache_policy(st->cache) != DL_EVICT_LRU) {
		dl__log(DL_LOG_INFO,
			"jdp-dll: the paper evicts by LRU, this tracker by %s",
			dl_evict_name(dl_cache_policy(st->cache)));
		p->told_lru = 1;
	}
	dl__u64set_init(&ov);
	memset(&room, 0, sizeof(room));
	demand = calloc(nf ? nf : 1, sizeof(*demand));
	last = calloc(nf ? nf : 1, sizeof(*last));
	load = calloc(st->nnodes ? st->nnodes : 1, sizeof(*load));
	if (!demand || !last || !load) {
		rc = DL_ENOMEM;
		goto out;
	}
	if ((rc = dl__pending_by_arrival(st, &idx, &n)) ||
	    (rc = dl__room_init(&room, st)))
		goto out;
	for (k = 0; k < st->nnodes; k++)
		load[k] = (double)st->nodes[k].busy / st->nodes[k].cpus;

	for (r = 0; r < n && !rc; r++) {
		const dl_job_t *j = &st->jobs[idx[r]];
		int32_t hold, least, node;

		plan->a[idx[r]].order = (double)r;
		plan->a[idx[r]].node = -1;
		_hold_least(st, j, load, &ov, &hold, &least);
		if (least < 0)
			continue; /* no node can take it now */
		node = hold;
		if (hold < 0)
			node = least; /* nobody holds its data */
		else if (p->copy) {
			if (!dl__room_fits(&room, (uint32_t)hold, j->cpus) &&
			    load[least] < load[hold])
				rc = _replicate(p, st, j, (uint32_t)hold,
						(uint32_t)least, demand, plan);
		} else if (!dl__room_fits(&room, (uint32_t)hold, j->cpus) &&
			 (double)_popularity(st, j, (uint32_t)hold, &ov,
					     demand) > p->threshold &&
			 load[least] < load[hold])
			node = least; /* DataLeastLoaded: replicate there */
		plan->a[idx[r]].node = node;
		dl__room_take(&room, (uint32_t)node, j->cpus);
		load[node] += (double)j->cpus / st->nodes[node].cpus;
		if (!rc)
			rc = dl__overlay_add_job(&ov, (uint32_t)node, j);
		_count_demand(j, r, last, demand);
	}
out:
	dl__room_fini(&room);
	dl__u64set_fini(&ov);
	free(idx);
	free(load);
	free(last);
	free(demand);
	return rc;
}

const dl_policy_ops_t dl__policy_jdpdll = {
	.name = "jdp-dll",
	.summary = "JobDataPresent + DataLeastLoaded replication (threshold=2)",
	.create = _create,
	.destroy = _destroy,
	.plan = _plan,
};
