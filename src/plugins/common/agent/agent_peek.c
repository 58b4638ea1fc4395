/* agent_peek.c - a hash of the job records in place; see agent_peek.h. */
#include <string.h>

#include "src/common/slurm_xlator.h"
#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/slurmctld/slurmctld.h"

#include "dl_compat.h"

#include "agent_fnv.h"
#include "agent_peek.h"

/*
 * Strings up to this long are hashed whole; longer ones (a comment naming
 * thousands of files) by address, length and both ends, so that a peek
 * costs the same whatever users write.  Slurm replaces a string it updates
 * (xfree(), xstrdup()): a new address or length in nearly every case.
 */
#define PEEK_STR_WHOLE 256
#define PEEK_STR_END 64

/*
 * Hashed a word a step (agent_fnv_word()), not a byte: the peek runs at
 * every move of Slurm's job stamp (a backfill pass), and its byte-wise
 * steps were a third of it (contrib/bench_wakeups.sh PROFILE=DIR).  For a
 * given h a step is a bijection of v, so a change of one field still
 * changes the hash; the hash is only compared with another peek's.
 */

/* p[0..n) into h, 8 bytes a step (the last zero-padded: the length was
 * hashed before them). */
static uint64_t _bytes(uint64_t h, const char *p, size_t n)
{
	uint64_t v;

	for (; n >= sizeof(v); n -= sizeof(v), p += sizeof(v)) {
		memcpy(&v, p, sizeof(v));
		h = agent_fnv_word(h, v);
	}
	if (n) {
		v = 0;
		memcpy(&v, p, n);
		h = agent_fnv_word(h, v);
	}
	return h;
}

static uint64_t _str(uint64_t h, const char *s)
{
	size_t n;

	if (!s)
		return agent_fnv_word(h, UINT64_MAX);
	n = strlen(s);
	h = agent_fnv_word(h, n);
	if (n <= PEEK_STR_WHOLE)
		return _bytes(h, s, n);
	h = agent_fnv_word(h, (uintptr_t)s);
	h = _bytes(h, s, PEEK_STR_END);
	return _bytes(h, s + n - PEEK_STR_END, PEEK_STR_END);
}

/* A node bitmap's extent: which nodes, as far as three scans tell. */
static uint64_t _bits(uint64_t h, bitstr_t *b)
{
	if (!b)
		return agent_fnv_word(h, UINT64_MAX);
	h = agent_fnv_word(h, (uint64_t)bit_set_count(b));
	h = agent_fnv_word(h, (uint64_t)(int64_t)bit_ffs(b));
	return agent_fnv_word(h, (uint64_t)(int64_t)bit_fls(b));
}

/* What a pending job asks for (its details), as _copy_job() reads it. */
static uint64_t _details(uint64_t h, job_details_t *d)
{
	if (!d)
		return agent_fnv_word(h, UINT64_MAX);
	h = agent_fnv_word(h, (uint64_t)d->begin_time);
	h = agent_fnv_word(h, (uint64_t)d->submit_time);
	h = agent_fnv_word(h, d->min_cpus);
	h = agent_fnv_word(h, d->max_cpus);
	h = agent_fnv_word(h, d->min_nodes);
	h = agent_fnv_word(h, d->max_nodes);
	h = agent_fnv_word(h, d->num_tasks);
	h = agent_fnv_word(h, d->pn_min_cpus);
	h = agent_fnv_word(h, d->pn_min_memory);
	h = agent_fnv_word(h, d->cpus_per_task);
	h = agent_fnv_word(h, d->ntasks_per_node);
	h = agent_fnv_word(h, d->contiguous);
	h = agent_fnv_word(h, (uint64_t)d->share_res << 8 | d->whole_node);
	h = _str(h, d->features);
	h = _bits(h, d->req_node_bitmap);
	return _bits(h, d->exc_node_bitmap);
}

uint64_t agent_peek_job(uint64_t h, struct job_record *job_ptr)
{
	bool pending = IS_JOB_PENDING(job_ptr);

	h = agent_fnv_word(h, job_ptr->job_id);
	h = agent_fnv_word(h, job_ptr->job_state);
	h = agent_fnv_word(h, job_ptr->state_reason);
	h = agent_fnv_word(h, job_ptr->priority);
	h = agent_fnv_word(h, job_ptr->restart_cnt);
	h = agent_fnv_word(h, job_ptr->array_task_id);
	h = agent_fnv_word(h, job_ptr->array_job_id);
	h = agent_fnv_word(h, job_ptr->het_job_id);
	h = agent_fnv_word(h, job_ptr->user_id);
	h = agent_fnv_word(h, job_ptr->group_id);
	h = agent_fnv_word(h, job_ptr->time_limit);
	h = agent_fnv_word(h, (uintptr_t)job_ptr->part_ptr);
	h = agent_fnv_word(h, job_ptr->part_ptr_list ?
				   (uint64_t)list_count(job_ptr->part_ptr_list) :
				   UINT64_MAX);
	h = agent_fnv_word(h, (uintptr_t)job_ptr->resv_ptr);
	h = agent_fnv_word(h, (uintptr_t)job_ptr->qos_ptr);
	h = agent_fnv_word(h, job_ptr->array_recs ?
				   job_ptr->array_recs->task_cnt :
				   UINT64_MAX);
	/* Backfill's estimate of a pending job's start: what moves. */
	h = agent_fnv_word(h, pending ? 0 : (uint64_t)job_ptr->start_time);
	h = agent_fnv_word(h, pending ? 0 : (uint64_t)job_ptr->end_time);
	h = _bits(h, job_ptr->node_bitmap);
	h = _str(h, job_ptr->comment);
	h = _str(h, job_ptr->name);
	h = _str(h, job_ptr->burst_buffer);
	h = _str(h, job_ptr->system_comment);
	h = _str(h, job_ptr->tres_per_node);
	return _details(h, job_ptr->details);
}
