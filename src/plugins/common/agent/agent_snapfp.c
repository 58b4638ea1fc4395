/* agent_snapfp.c - a hash of what a cycle plans from; see agent_snapfp.h. */
#include <string.h>

#include "agent_fnv.h"
#include "agent_snapfp.h"

/*
 * The length first (all ones for none), so that NULL and "" differ and
 * one field's bytes cannot pass for the next one's.
 */
static uint64_t _bytes(uint64_t h, const void *p, size_t n)
{
	h = agent_fnv_u64(h, p ? n : UINT64_MAX);
	return p ? agent_fnv_bytes(h, p, n) : h;
}

static uint64_t _str(uint64_t h, const char *s)
{
	return _bytes(h, s, s ? strlen(s) : 0);
}

static uint64_t _nodes(uint64_t h, const snapshot_t *s)
{
	uint32_t i, n = s->nnodes;

	h = agent_fnv_u64(h, n);
	for (i = 0; i < n; i++) {
		h = _str(h, s->names ? s->names[i] : NULL);
		h = agent_fnv_u64(h, s->cpus ? s->cpus[i] : 0);
		h = agent_fnv_u64(h, s->busy ? s->busy[i] : 0);
		h = agent_fnv_u64(h, s->usable ? s->usable[i] : 0);
		h = agent_fnv_u64(h, s->power ? s->power[i] : 0);
		h = agent_fnv_u64(h, s->boot_req ?
					     (uint64_t)s->boot_req[i] : 0);
		h = agent_fnv_u64(h, s->resume_timeout ?
					     s->resume_timeout[i] : 0);
		h = agent_fnv_u64(h, s->mem_alloc ? s->mem_alloc[i] : 0);
		h = _str(h, s->unserving ? s->unserving[i] : NULL);
	}
	return h;
}

/* The flags and numbers of a job, as the cycle reads them. */
static uint64_t _job_fields(uint64_t h, const snap_job_t *j)
{
	uint64_t flags = (uint64_t)j->running | (uint64_t)j->ended << 1 |
			 (uint64_t)j->runnable << 2 |
			 (uint64_t)j->placeable << 3 |
			 (uint64_t)j->gated << 4 |
			 (uint64_t)j->gate_expired << 5 |
			 (uint64_t)j->gate_noted << 6 |
			 (uint64_t)j->outside << 7 |
			 (uint64_t)j->widened << 8 |
			 (uint64_t)j->sc_stale << 9 |
			 (uint64_t)j->failed << 10 |
			 (uint64_t)j->for_resources << 11;
	double limit = j->limit;
	uint64_t lbits;

	memcpy(&lbits, &limit, sizeof(lbits));
	h = agent_fnv_u64(h, j->job_id);
	h = agent_fnv_u64(h, flags);
	h = agent_fnv_u64(h, j->set_k);
	h = agent_fnv_u64(h, j->gate_bound);
	h = agent_fnv_u64(h, (uint64_t)j->ubegin);
	h = agent_fnv_u64(h, (uint64_t)(int64_t)j->ours);
	h = agent_fnv_u64(h, (uint64_t)(int64_t)j->node);
	h = agent_fnv_u64(h, j->cpus);
	h = agent_fnv_u64(h, j->min_nodes);
	h = agent_fnv_u64(h, j->node_need);
	h = agent_fnv_u64(h, j->node_take);
	h = agent_fnv_u64(h, j->priority);
	h = agent_fnv_u64(h, (uint64_t)j->submit);
	/* Backfill's estimate for a pending job; the plan reads neither. */
	h = agent_fnv_u64(h, j->running ? (uint64_t)j->start : 0);
	h = agent_fnv_u64(h, j->running ? (uint64_t)j->end : 0);
	h = agent_fnv_u64(h, j->name);
	h = agent_fnv_u64(h, lbits);
	h = agent_fnv_u64(h, j->uid);
	h = agent_fnv_u64(h, j->gid);
	h = agent_fnv_u64(h, j->task_id);
	h = agent_fnv_u64(h, j->array_job_id);
	return agent_fnv_u64(h, j->het_job_id);
}

static uint64_t _job(uint64_t h, const snap_job_t *j, uint32_t nnodes)
{
	h = _job_fields(h, j);
	h = _bytes(h, j->req, j->req ? nnodes : 0);
	h = _bytes(h, j->ran, j->ran ? j->nran * sizeof(*j->ran) : 0);
	h = _str(h, j->comment);
	h = _str(h, j->jname);
	h = _str(h, j->bb);
	h = _str(h, j->script_files);
	h = _bytes(h, j->eligible, j->eligible ? nnodes : 0);
	h = _bytes(h, j->fits, j->fits ? nnodes : 0);
	return _str(h, j->leave_why);
}

uint64_t agent_snapfp(const snapshot_t *s)
{
	uint64_t h = _nodes(AGENT_FNV_BASIS_SHORT, s);
	uint32_t i;

	h = agent_fnv_u64(h, s->njobs);
	for (i = 0; i < s->njobs; i++)
		h = _job(h, &s->jobs[i], s->nnodes);
	h = agent_fnv_u64(h, s->pending);
	h = agent_fnv_u64(h, s->window);
	h = agent_fnv_u64(h, s->in_window);
	h = _bytes(h, s->arrays, s->narrays * sizeof(*s->arrays));
	h = agent_fnv_u64(h, s->array_room);
	return agent_fnv_u64(h, (uint64_t)s->wake);
}
