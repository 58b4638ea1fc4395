/*
 * plan_follow.c - move a planned job to the node holding its data when
 * waiting for that node is sooner (plan_follow.h).
 */
#include <stdlib.h>

#include "dl_cache.h"
#include "dl_error.h"
#include "plan/plan_follow.h"
#include "policy/policy_util.h"
#include "u64set.h"

/* Candidate nodes looked at per job: the first holders found. */
#define FOLLOW_CANDIDATES 16

/*
 * Up to FOLLOW_CANDIDATES distinct eligible nodes other than cur caching
 * some of j's first max_files files, in the order found.  \return how many.
 */
static uint32_t _candidates(const dl_state_t *st, const dl_job_t *j,
			    uint32_t cur, uint32_t max_files, uint32_t *cand)
{
	uint32_t holders[FOLLOW_CANDIDATES], k, h, c, nh, nc = 0;

	for (k = 0; k < j->nfiles && k < max_files && nc < FOLLOW_CANDIDATES;
	     k++) {
		nh = dl_cache_holders(st->cache, j->files[k], holders,
				      FOLLOW_CANDIDATES);
		if (nh > FOLLOW_CANDIDATES)
			nh = FOLLOW_CANDIDATES;
		for (h = 0; h < nh && nc < FOLLOW_CANDIDATES; h++) {
			for (c = 0; c < nc && cand[c] != holders[h]; c++)
				;
			if (c == nc && holders[h] != cur &&
			    dl_state_job_eligible(st, j, holders[h]))
				cand[nc++] = holders[h];
		}
	}
	return nc;
}

/*
 * The candidate holding most of j's bytes (cache and overlay), the lowest
 * index on ties, with its execution time in *exec; -1 if none.  Each
 * candidate costs one pass over j's files, so a job of 10,000 files costs
 * at most 16 such passes, not one per (file, holder).
 */
static int32_t _data_node(const dl_state_t *st, const dl_job_t *j,
			  uint32_t cur, const dl__u64set_t *ov,
			  uint32_t max_files, double *exec)
{
	uint32_t cand[FOLLOW_CANDIDATES], nc, c;
	uint64_t best_bytes = 0;
	int32_t best = -1;

	nc = _candidates(st, j, cur, max_files, cand);
	for (c = 0; c < nc; c++) {
		uint64_t b;
		double e = dl__exec_bytes_on_node_reads(st, j, cand[c], ov,
							&b);

		if (b > best_bytes ||
		    (b == best_bytes && best >= 0 && (int32_t)cand[c] < best)) {
			best = (int32_t)cand[c];
			best_bytes = b;
			*exec = e;
		}
	}
	return best;
}

/*
 * Where j completes sooner by the queues: cur, or the data node.
 * OUT exec - j's execution time on the node returned
 */
static uint32_t _choose(const dl_state_t *st, const dl_job_t *j, uint32_t cur,
			const dl__queues_t *q, const dl__u64set_t *ov,
			uint32_t max_files, double *exec)
{
	uint64_t on;
	int32_t alt;
	double there = 0;

	*exec = dl__exec_bytes_on_node_reads(st, j, cur, ov, &on);
	/*
	 * Only a job placed where none of its input is: there the partition
	 * chose by balance alone.  Moving jobs that share part of their
	 * input with their node towards the holders of the rest piled the
	 * readers of a few large shared files onto their holders in dl-sim
	 * (zoo class heavy: up to 34% worse mean response).
	 */
	if (on)
		return cur;
	alt = _data_node(st, j, cur, ov, max_files, &there);
	if (alt < 0)
		return cur;
	if (dl__time_cmp(dl__queues_start(q, (uint32_t)alt, j->cpus) + there,
			 dl__queues_start(q, cur, j->cpus) + *exec) >= 0)
		return cur;
	*exec = there;
	return (uint32_t)alt;
}

int dl__plan_follow_data(const dl_state_t *st, dl_plan_t *plan,
			 size_t max_pending, uint32_t max_files,
			 size_t *moved)
{
	size_t *ord = NULL, i, n = 0, nmoved = 0, nf;
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
	/* ov: the planned jobs' files only, with room for all of them at
	 * once; the running jobs' are the state's reads index, asked in
	 * place (dl__exec_bytes_on_node_reads()) instead of copied into ov
	 * at every plan and rehashed as ov grew past the copy's room. */
	for (i = 0, nf = 0; i < n; i++)
		nf += st->jobs[ord[i]].nfiles;
	if (dl__u64set_reserve(&ov, nf))
		goto out;
	for (i = 0; i < n; i++) {
		const dl_job_t *j = &st->jobs[ord[i]];
		uint32_t node = (uint32_t)plan->a[ord[i]].node, to;
		double exec;

		to = _choose(st, j, node, &q, &ov, max_files, &exec);
		if (to != node) {
			plan->a[ord[i]].node = (int32_t)to;
			nmoved++;
		}
		dl__queues_push(&q, to, j->cpus, exec);
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
