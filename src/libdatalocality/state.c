/* state.c - the snapshot a policy plans on; see dl_state.h. */
#include <stdlib.h>
#include <string.h>

#include "dl_error.h"
#include "dl_files.h"
#include "dl_state.h"
#include "u64set.h"

void dl_params_default(dl_params_t *p)
{
	p->rbw = 100e6;
	p->lbw = 500e6;
	p->cpb = 1e-9;
	p->unknown_size = 64ULL << 20;
	p->nstorage = 1;
}

dl_state_t *dl_state_create(dl_cache_t *cache, const dl_params_t *params)
{
	dl_state_t *st;

	if (!cache)
		return NULL;
	st = calloc(1, sizeof(*st));
	if (!st)
		return NULL;
	st->cache = cache;
	if (params)
		st->params = *params;
	else
		dl_params_default(&st->params);
	return st;
}

void dl_state_destroy(dl_state_t *st)
{
	size_t i;

	if (!st)
		return;
	for (i = 0; i < st->nnodes; i++)
		free(st->nodes[i].name);
	for (i = 0; i < st->njobs; i++)
		free(st->jobs[i].eligible);
	while (st->fblock) {
		void *prev = *(void **)st->fblock;

		free(st->fblock);
		st->fblock = prev;
	}
	if (st->reads) {
		dl__u64set_fini(st->reads);
		free(st->reads);
	}
	free(st->nodes);
	free(st->jobs);
	free(st);
}

void dl_state_clear_jobs(dl_state_t *st)
{
	size_t i;

	if (!st)
		return;
	for (i = 0; i < st->njobs; i++)
		free(st->jobs[i].eligible);
	st->njobs = 0;
	/* The newest block of file ids stays, emptied; the older go. */
	while (st->fblock && *(void **)st->fblock) {
		void *prev = *(void **)st->fblock;

		*(void **)st->fblock = *(void **)prev;
		free(prev);
	}
	st->fblock_used = 0;
	if (st->reads) {
		if (st->reads->cap)
			memset(st->reads->slots, 0,
			       st->reads->cap * sizeof(*st->reads->slots));
		st->reads->count = 0;
	}
	st->now = 0;
	st->wide_waiting = 0;
	st->wide_priority = 0;
	st->remaining = NULL;
}

int dl_state_add_node(dl_state_t *st, const char *name, uint32_t cpus,
		      int usable)
{
	dl_node_t *nn;
	char *copy;

	if (!st || !name || st->njobs)
		return DL_EINVAL; /* jobs' eligible[] is sized by nnodes */
	if (st->nnodes >= INT32_MAX)
		return DL_ETOOBIG;
	copy = strdup(name);
	if (!copy)
		return DL_ENOMEM;
	if (st->nnodes == st->nodes_cap) {
		nn = realloc(st->nodes, (st->nnodes + 1) * sizeof(*nn));
		if (!nn) {
			free(copy);
			return DL_ENOMEM;
		}
		st->nodes = nn;
		st->nodes_cap = st->nnodes + 1;
	}
	nn = st->nodes;
	memset(&nn[st->nnodes], 0, sizeof(*nn));
	nn[st->nnodes].name = copy;
	nn[st->nnodes].cpus = cpus ? cpus : 1;
	nn[st->nnodes].usable = usable;
	return (int)st->nnodes++;
}

/* Room for n file ids in the state's blocks; RET NULL on ENOMEM. */
static uint32_t *_files_alloc(dl_state_t *st, uint32_t n)
{
	const size_t hdr = sizeof(void *) / sizeof(uint32_t);
	uint32_t *ids;

	if (!st->fblock || st->fblock_cap - st->fblock_used < n) {
		size_t cap = n > 4096 ? n : 4096;
		void **b = malloc(hdr * sizeof(uint32_t) +
				  cap * sizeof(uint32_t));

		if (!b)
			return NULL;
		*b = st->fblock;
		st->fblock = b;
		st->fblock_used = 0;
		st->fblock_cap = cap;
	}
	ids = (uint32_t *)st->fblock + hdr + st->fblock_used;
	st->fblock_used += n;
	return ids;
}

/* Room in st->reads for a running job's n files, so that adding them
 * after the job is in cannot fail. */
static int _reads_reserve(dl_state_t *st, uint32_t n)
{
	if (!st->reads) {
		st->reads = malloc(sizeof(*st->reads));
		if (!st->reads)
			return DL_ENOMEM;
		dl__u64set_init(st->reads);
	}
	return dl__u64set_reserve(st->reads, st->reads->count + n);
}

int dl_state_reserve(dl_state_t *st, uint32_t nodes, size_t jobs,
		     size_t reads)
{
	if (!st)
		return DL_EINVAL;
	if (nodes > st->nodes_cap) {
		dl_node_t *nn = realloc(st->nodes, nodes * sizeof(*nn));

		if (!nn)
			return DL_ENOMEM;
		st->nodes = nn;
		st->nodes_cap = nodes;
	}
	if (jobs > st->jobs_cap) {
		dl_job_t *nj = realloc(st->jobs, jobs * sizeof(*nj));

		if (!nj)
			return DL_ENOMEM;
		st->jobs = nj;
		st->jobs_cap = jobs;
	}
	return reads ? _reads_reserve(st, (uint32_t)(reads > UINT32_MAX ?
							     UINT32_MAX :
							     reads)) :
		       0;
}

int dl_state_node_reads(const dl_state_t *st, uint32_t n, uint32_t file)
{
	return st && st->reads &&
	       dl__u64set_has(st->reads, dl__nf_key(n, file));
}

static uint64_t _job_bytes_now(const dl_state_t *st, const dl_job_t *j);

int dl_state_add_job(dl_state_t *st, const dl_job_t *job)
{
	dl_job_t j;
	uint32_t i, nfiles_total;

	if (!st || !job || (job->nfiles && !job->files))
		return DL_EINVAL;
	if (job->state == DL_JOB_RUNNING &&
	    (job->node < 0 || (uint32_t)job->node >= st->nnodes))
		return DL_EINVAL;
	nfiles_total = dl_cache_file_count(st->cache);
	for (i = 0; i < job->nfiles; i++)
		if (job->files[i] >= nfiles_total)
			return DL_EINVAL;
	if (job->state == DL_JOB_RUNNING && job->nfiles &&
	    _reads_reserve(st, job->nfiles))
		return DL_ENOMEM;
	if (st->njobs == st->jobs_cap) {
		size_t ncap = st->jobs_cap ? st->jobs_cap * 2 : 64;
		dl_job_t *nj = realloc(st->jobs, ncap * sizeof(*nj));

		if (!nj)
			return DL_ENOMEM;
		st->jobs = nj;
		st->jobs_cap = ncap;
	}
	j = *job;
	j.files = NULL;
	j.eligible = NULL;
	if (job->eligible && st->nnodes) {
		j.eligible = malloc(st->nnodes);
		if (!j.eligible)
			return DL_ENOMEM;
		/* 0/1 exactly: the planners find the 1s with memchr(). */
		for (i = 0; i < st->nnodes; i++)
			j.eligible[i] = job->eligible[i] != 0;
	}
	/* Last: a block's room taken is not given back on error. */
	if (job->nfiles) {
		j.files = _files_alloc(st, job->nfiles);
		if (!j.files) {
			free(j.eligible);
			return DL_ENOMEM;
		}
		memcpy(j.files, job->files, job->nfiles * sizeof(*j.files));
	}
	if (!j.cpus)
		j.cpus = 1;
	if (j.state == DL_JOB_PENDING)
		j.node = -1;
	/* A sum the host kept under the same sizes is the sum (dl_state.h):
	 * one file-size lookup per file of every job of every state saved. */
	if (j.bytes_gen != dl_cache_size_gen(st->cache) + 1 ||
	    j.bytes_unknown != st->params.unknown_size) {
		j.bytes = _job_bytes_now(st, &j);
		j.bytes_gen = dl_cache_size_gen(st->cache) + 1;
		j.bytes_unknown = st->params.unknown_size;
	}
	/* Cannot fail: _reads_reserve() made the room. */
	for (i = 0; j.state == DL_JOB_RUNNING && i < j.nfiles; i++)
		(void)dl__u64set_add(st->reads,
				     dl__nf_key((uint32_t)j.node, j.files[i]));
	st->jobs[st->njobs] = j;
	return (int)st->njobs++;
}

/* The external definitions of dl_state.h's inline functions. */
extern inline int dl_state_job_eligible(const dl_state_t *st,
					const dl_job_t *j, uint32_t n);
extern inline uint32_t dl_state_job_next(const dl_state_t *st,
					 const dl_job_t *j, uint32_t n);

uint64_t dl_file_bytes(const dl_state_t *st, uint32_t file)
{
	uint64_t sz = dl_cache_file_size(st->cache, file);

	return sz == DL_SIZE_UNKNOWN ? st->params.unknown_size : sz;
}

/* The sum of j's file sizes as the tracker has them now. */
static uint64_t _job_bytes_now(const dl_state_t *st, const dl_job_t *j)
{
	uint64_t total = 0;
	uint32_t i;

	for (i = 0; i < j->nfiles; i++)
		total += dl_file_bytes(st, j->files[i]);
	return total;
}

uint64_t dl_job_bytes(const dl_state_t *st, const dl_job_t *j)
{
	if (j->bytes_gen == dl_cache_size_gen(st->cache) + 1 &&
	    j->bytes_unknown == st->params.unknown_size)
		return j->bytes;
	return _job_bytes_now(st, j);
}

/* Pending jobs by descending priority, then arrival, then id. */
static int _cmp_prio(const void *a, const void *b, void *arg)
{
	const dl_state_t *st = arg;
	const dl_job_t *x = &st->jobs[*(const size_t *)a];
	const dl_job_t *y = &st->jobs[*(const size_t *)b];

	if (x->priority != y->priority)
		return x->priority > y->priority ? -1 : 1;
	if (x->arrival != y->arrival)
		return x->arrival < y->arrival ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

int dl_state_priority_order(const dl_state_t *st, size_t **idx, size_t *n)
{
	size_t *ix = malloc((st->njobs ? st->njobs : 1) * sizeof(*ix));
	size_t i, k = 0;

	if (!ix)
		return DL_ENOMEM;
	for (i = 0; i < st->njobs; i++)
		if (st->jobs[i].state == DL_JOB_PENDING)
			ix[k++] = i;
	/*
	 * Hosts add jobs in queue order, often already the priority order
	 * (dl-sim: arrival order at equal priority), and the dispatch asks
	 * for it at every event: a linear check first saves the sort.
	 * glibc's qsort_r: the comparator needs the state.
	 */
	for (i = 1; i < k; i++)
		if (_cmp_prio(&ix[i - 1], &ix[i], (void *)st) > 0)
			break;
	if (i < k)
		qsort_r(ix, k, sizeof(*ix), _cmp_prio, (void *)st);
	*idx = ix;
	*n = k;
	return 0;
}
