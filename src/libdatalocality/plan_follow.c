/*
 * plan_follow.c - move a planned job to the node holding its data when
 * waiting for that node is sooner (plan_follow.h).
 */
#include <stdlib.h>

#include "dl_cache.h"
#include "dl_error.h"
#include "plan_follow.h"
#include "policy_util.h"
#include "u64set.h"

/* Candidate nodes per file looked at: a popular file's first holders. */
#define FOLLOW_HOLDERS 16

/*
 * The eligible node other than cur that caches some of j's first
 * max_files files and holds most of j's bytes (cache and overlay), the
 * lowest index on ties; -1 if none holds more than cur does.
 */
static int32_t _data_node(const dl_state_t *st, const dl_job_t *j,
			  uint32_t cur, const dl__u64set_t *ov,
			  uint32_t max_files)
{
	uint64_t best_bytes = dl__bytes_on_node(st, j, cur, ov);
	uint32_t holders[FOLLOW_HOLDERS], k, h, nh;
	int32_t best = -1;

	/*
	 * Only a job placed where none of its input is: there the partition
	 * chose by balance alone.  Moving jobs that share part of their
	 * input with their node towards the holders of the rest piled the
	 * readers of a few large shared files onto their holders in dl-sim
	 * (zoo class heavy: up to 34% worse mean response).
	 */
	if (best_bytes)
		return -1;
	for (k = 0; k < j->nfiles && k < max_files; k++) {
		nh = dl_cache_holders(st->cache, j->files[k], holders,
				      FOLLOW_HOLDERS);
		if (nh > FOLLOW_HOLDERS)
			nh = FOLLOW_HOLDERS;
		for (h = 0; h < nh; h++) {
			uint32_t n = holders[h];
			uint64_t b;

			if (n == cur || (int32_t)n == best ||
			    !dl_state_job_eligible(st, j, n))
				continue;
			b = dl__bytes_on_node(st, j, n, ov);
			if (b > best_bytes ||
			    (b == best_bytes && best >= 0 && (int32_t)n < best)) {
				best = (int32_t)n;
				best_bytes = b;
			}
		}
	}
	return best;
}

/* Where j completes sooner by the queues: cur, or the data node. */
static uint32_t _choose(const dl_state_t *st, const dl_job_t *j, uint32_t cur,
			const dl__queues_t *q, const dl__u64set_t *ov,
			uint32_t max_files)
{
	int32_t alt = _data_node(st, j, cur, ov, max_files);
	double here, there;

	if (alt < 0)
		return cur;
	here = dl__queues_start(q, cur, j->cpus) +
	       dl__exec_on_node(st, j, cur, ov);
	there = dl__queues_start(q, (uint32_t)alt, j->cpus) +
		dl__exec_on_node(st, j, (uint32_t)alt, ov);
	return dl__time_cmp(there, here) < 0 ? (uint32_t)alt : cur;
}

static int _running_overlay(const dl_state_t *st, dl__u64set_t *ov)
{
	size_t i;

	for (i = 0; i < st->njobs; i++) {
		const dl_job_t *j = &st->jobs[i];

		if (j->state == DL_JOB_RUNNING && j->node >= 0 &&
		    (uint32_t)j->node < st->nnodes &&
		    dl__overlay_add_job(ov, (uint32_t)j->node, j))
			return DL_ENOMEM;
	}
	return 0;
}

int dl__plan_follow_data(const dl_state_t *st, dl_plan_t *plan,
			 size_t max_pending, uint32_t max_files,
			 size_t *moved)
{
	size_t *ord = NULL, i, n = 0, nmoved = 0;
	dl__queues_t q;
	dl__u64set_t ov;
	int rc = DL_ENOMEM;

	if (moved)
		*moved = 0;
	if (!st || !plan || plan->n != st->njobs)
		return DL_EINVAL;
	if (!st->cache)
		return 0;
	dl__u64set_init(&ov);
	if (dl__queues_init(&q, st))
		return DL_ENOMEM;
	if (dl__plan_order(st, plan, &ord, &n))
		goto out;
	if (max_pending && n > max_pending) {
		rc = 0;
		goto out;
	}
	if (_running_overlay(st, &ov))
		goto out;
	for (i = 0; i < n; i++) {
		const dl_job_t *j = &st->jobs[ord[i]];
		uint32_t node = (uint32_t)plan->a[ord[i]].node;
		uint32_t to = _choose(st, j, node, &q, &ov, max_files);

		if (to != node) {
			plan->a[ord[i]].node = (int32_t)to;
			nmoved++;
		}
		dl__queues_push(&q, to, j->cpus, dl__exec_on_node(st, j, to, &ov));
		if (dl__overlay_add_job(&ov, to, j))
			goto out;
	}
	rc = 0;
out:
	if (moved)
		*moved = nmoved;
	free(ord);
	dl__queues_fini(&q);
	dl__u64set_fini(&ov);
	return rc;
}
