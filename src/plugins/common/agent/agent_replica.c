/* agent_replica.c - replicas from a plan's copies; see agent_replica.h. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "dl_error.h"
#include "agent_replica.h"

/* A copy that passed the cheap skip rules, and who may carry it. */
typedef struct {
	uint32_t file, node;
	uint64_t bytes;
	size_t pending;         /* best pending job + 1, 0: none */
	size_t running;         /* best running job + 1, 0: none */
} cand_t;

static int _cmp_entry(const void *a, const void *b)
{
	const rp_entry_t *x = a, *y = b;

	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	return x->file < y->file ? -1 : x->file > y->file;
}

rp_entry_t *agent_replica_find(const rp_table_t *t, uint32_t node,
			       uint32_t file)
{
	rp_entry_t key = { .node = node, .file = file };

	if (!t->n)
		return NULL;
	return bsearch(&key, t->e, t->n, sizeof(rp_entry_t), _cmp_entry);
}

void agent_replica_table_free(rp_table_t *t)
{
	free(t->e);
	memset(t, 0, sizeof(*t));
}

void agent_replica_msgs_free(rp_msg_t *msgs, size_t n)
{
	size_t i;

	for (i = 0; msgs && i < n; i++)
		free(msgs[i].files);
	free(msgs);
}

static void _remove(rp_table_t *t, uint32_t node, uint32_t file)
{
	rp_entry_t *e = agent_replica_find(t, node, file);
	size_t i;

	if (!e)
		return;
	i = (size_t)(e - t->e);
	memmove(e, e + 1, (t->n - i - 1) * sizeof(*e));
	t->n--;
}

void agent_replica_forget(rp_table_t *t, const rp_msg_t *m)
{
	uint32_t i;

	for (i = 0; i < m->nnew; i++)
		_remove(t, m->node, m->files[i]);
}

/* Insert e in order; the room was reserved by the caller. */
static void _insert(rp_table_t *t, const rp_entry_t *e)
{
	size_t lo = 0, hi = t->n, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (_cmp_entry(&t->e[mid], e) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	memmove(&t->e[lo + 1], &t->e[lo], (t->n - lo) * sizeof(*e));
	t->e[lo] = *e;
	t->n++;
}

/*
 * Drop the entries no longer in force: past half their lifetime (they
 * are sent again if the plan still asks, as agent_pfplan refreshes its
 * prefetches), or of a node that is gone, unusable or reconnected (its
 * pins went with its connection).
 */
static void _prune(rp_table_t *t, const pf_node_t *nodes, uint32_t nnodes,
		   time_t now, uint32_t timeout)
{
	size_t i, k = 0;

	for (i = 0; i < t->n; i++) {
		const rp_entry_t *e = &t->e[i];

		if (e->node >= nnodes || !nodes[e->node].usable ||
		    nodes[e->node].epoch != e->epoch ||
		    now - e->sent >= (time_t)(timeout / 2))
			continue;
		t->e[k++] = *e;
	}
	t->n = k;
}

/* The cheap skip rules (see agent_replica.h); RET its size, 0: skip. */
static uint64_t _wanted(const dl_cache_t *cache, const dl_copy_t *c,
			const pf_node_t *nodes, uint32_t nnodes,
			const rp_table_t *t)
{
	uint64_t size;

	if (c->node >= nnodes || !nodes[c->node].usable ||
	    c->file >= dl_cache_file_count(cache) ||
	    dl_cache_contains(cache, c->node, c->file) ||
	    agent_replica_find(t, c->node, c->file))
		return 0;
	size = dl_cache_file_size(cache, c->file);
	return size == DL_CACHE_SIZE_UNKNOWN ? 0 : size;
}

/* Whether job a comes before job b: higher priority, then lower id. */
static bool _before(const pf_job_t *a, const pf_job_t *b)
{
	if (a->priority != b->priority)
		return a->priority > b->priority;
	return a->job_id < b->job_id;
}

static int _cmp_cand_file(const void *a, const void *b, void *arg)
{
	const cand_t *c = arg;
	uint32_t x = c[*(const size_t *)a].file, y = c[*(const size_t *)b].file;

	return x < y ? -1 : x > y;
}

/* The first index in by (sorted by file) whose candidate reads file. */
static size_t _first(const cand_t *c, const size_t *by, size_t n,
		     uint32_t file)
{
	size_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (c[by[mid]].file < file)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Each candidate's best pending and running job not on its node: one
 * pass over the jobs' files, a binary search each.  RET 0 or DL_ENOMEM.
 */
static int _attribute(cand_t *c, size_t nc, const pf_job_t *jobs,
		      size_t njobs)
{
	size_t *by = malloc((nc ? nc : 1) * sizeof(size_t)), i, k, *best;
	uint32_t x;

	if (!by)
		return DL_ENOMEM;
	for (i = 0; i < nc; i++)
		by[i] = i;
	qsort_r(by, nc, sizeof(size_t), _cmp_cand_file, c);
	for (i = 0; i < njobs; i++) {
		const pf_job_t *j = &jobs[i];

		for (x = 0; x < j->nfiles; x++) {
			for (k = _first(c, by, nc, j->files[x]);
			     k < nc && c[by[k]].file == j->files[x]; k++) {
				cand_t *cd = &c[by[k]];

				if (j->node == (int32_t)cd->node)
					continue;
				best = j->running ? &cd->running : &cd->pending;
				if (!*best || _before(j, &jobs[*best - 1]))
					*best = i + 1;
			}
		}
	}
	free(by);
	return 0;
}

/* The message of (node, job), added if new. */
static rp_msg_t *_msg(rp_msg_t *m, size_t *nm, uint32_t node, size_t job,
		      const pf_job_t *jobs)
{
	size_t i;

	for (i = 0; i < *nm; i++)
		if (m[i].node == node && m[i].job == job)
			return &m[i];
	m = &m[(*nm)++];
	memset(m, 0, sizeof(*m));
	m->node = node;
	m->job = job;
	m->job_id = jobs[job].job_id;
	return m;
}

/*
 * Append to each message the job's replicas in force on its node (not
 * among the new ones): the new PREFETCH replaces the one that pinned
 * them.  Files are allocated here.  RET 0 or DL_ENOMEM.
 */
static int _files(rp_msg_t *m, size_t nm, const cand_t *c,
		  const size_t *job_of, size_t nc, const rp_table_t *t,
		  const pf_node_t *nodes)
{
	size_t i, k;
	uint32_t x;

	for (i = 0; i < nm; i++) {
		m[i].files = malloc((m[i].nnew + t->n + 1) * sizeof(uint32_t));
		if (!m[i].files)
			return DL_ENOMEM;
		for (k = 0; k < nc; k++)
			if (job_of[k] == m[i].job + 1 && c[k].node == m[i].node)
				m[i].files[m[i].nfiles++] = c[k].file;
		for (k = 0; k < t->n; k++) {
			const rp_entry_t *e = &t->e[k];

			if (e->node != m[i].node || e->job_id != m[i].job_id ||
			    e->epoch != nodes[e->node].epoch)
				continue;
			for (x = 0; x < m[i].nnew && m[i].files[x] != e->file;)
				x++;
			if (x == m[i].nnew)
				m[i].files[m[i].nfiles++] = e->file;
		}
	}
	return 0;
}

/* Per-node bytes pinned by the replicas in force. */
static void _pinned(const rp_table_t *t, uint64_t *used, uint32_t nnodes)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (t->e[i].node < nnodes)
			used[t->e[i].node] += t->e[i].bytes;
}

/*
 * Accept candidates in plan order within the per-node bounds and
 * budgets; job_of[k] = accepted job + 1 (0: skipped).  RET messages.
 */
static size_t _accept(const cand_t *c, size_t nc, const pf_job_t *jobs,
		      const pf_node_t *nodes, uint64_t *used, uint32_t *count,
		      size_t *job_of, rp_msg_t *m)
{
	size_t k, nm = 0, job;
	rp_msg_t *msg;

	for (k = 0; k < nc; k++) {
		const cand_t *cd = &c[k];

		job = cd->pending ? cd->pending : cd->running;
		if (!job || count[cd->node] >= RP_NODE_MAX ||
		    used[cd->node] + cd->bytes > nodes[cd->node].budget ||
		    cd->bytes > nodes[cd->node].budget)
			continue;
		used[cd->node] += cd->bytes;
		count[cd->node]++;
		job_of[k] = job;
		msg = _msg(m, &nm, cd->node, job - 1, jobs);
		msg->nnew++;
		msg->bytes += cd->bytes;
	}
	return nm;
}

/* Candidates from the plan's first RP_COPIES_MAX copies. */
static size_t _candidates(const dl_cache_t *cache, const dl_copy_t *copies,
			  size_t ncopies, const pf_node_t *nodes,
			  uint32_t nnodes, const rp_table_t *t, cand_t *c)
{
	size_t i, k, nc = 0;
	uint64_t size;

	for (i = 0; i < ncopies && i < RP_COPIES_MAX; i++) {
		if (!(size = _wanted(cache, &copies[i], nodes, nnodes, t)))
			continue;
		for (k = 0; k < nc && (c[k].file != copies[i].file ||
				       c[k].node != copies[i].node);)
			k++;
		if (k < nc)
			continue; /* asked for twice */
		memset(&c[nc], 0, sizeof(c[nc]));
		c[nc].file = copies[i].file;
		c[nc].node = copies[i].node;
		c[nc++].bytes = size;
	}
	return nc;
}

int64_t agent_replica_select(const dl_cache_t *cache, const dl_copy_t *copies,
			     size_t ncopies, const pf_job_t *jobs, size_t njobs,
			     const pf_node_t *nodes, uint32_t nnodes,
			     rp_table_t *t, time_t now, uint32_t timeout,
			     rp_msg_t **msgs)
{
	size_t nmax = ncopies < RP_COPIES_MAX ? ncopies : RP_COPIES_MAX;
	cand_t *c = calloc(nmax + 1, sizeof(cand_t));
	size_t *job_of = calloc(nmax + 1, sizeof(size_t));
	uint64_t *used = calloc(nnodes + 1, sizeof(uint64_t));
	uint32_t *count = calloc(nnodes + 1, sizeof(uint32_t));
	rp_entry_t *grown = NULL;
	size_t nc, nm = 0, k;
	int rc = DL_ENOMEM;

	*msgs = calloc(nmax + 1, sizeof(rp_msg_t));
	if (!c || !job_of || !used || !count || !*msgs)
		goto out;
	if (t->cap < t->n + nmax) { /* all the room: no failure midway */
		if (!(grown = realloc(t->e, (t->n + nmax + 1) * sizeof(*grown))))
			goto out;
		t->e = grown;
		t->cap = t->n + nmax + 1;
	}
	_prune(t, nodes, nnodes, now, timeout);
	nc = _candidates(cache, copies, ncopies, nodes, nnodes, t, c);
	if ((rc = _attribute(c, nc, jobs, njobs)))
		goto out;
	_pinned(t, used, nnodes);
	nm = _accept(c, nc, jobs, nodes, used, count, job_of, *msgs);
	if ((rc = _files(*msgs, nm, c, job_of, nc, t, nodes)))
		goto out;
	for (k = 0; k < nc; k++) {
		rp_entry_t e = { .node = c[k].node, .file = c[k].file,
				 .epoch = nodes[c[k].node].epoch,
				 .bytes = c[k].bytes, .sent = now };

		if (!job_of[k])
			continue;
		e.job_id = jobs[job_of[k] - 1].job_id;
		_insert(t, &e);
	}
out:
	free(c);
	free(job_of);
	free(used);
	free(count);
	if (rc) {
		agent_replica_msgs_free(*msgs, nm);
		*msgs = NULL;
		return rc;
	}
	return (int64_t)nm;
}
