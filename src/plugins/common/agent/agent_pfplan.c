/* agent_pfplan.c - prefetch selection and reconciling; see agent_pfplan.h. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "dl_error.h"
#include "agent_fnv.h"
#include "agent_pfplan.h"

/* Candidates by node, then priority (high first), then id. */
static int _cmp_cand(const void *a, const void *b, void *arg)
{
	const pf_job_t *jobs = arg;
	const pf_job_t *x = &jobs[*(const size_t *)a];
	const pf_job_t *y = &jobs[*(const size_t *)b];

	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	if (x->priority != y->priority)
		return x->priority > y->priority ? -1 : 1;
	return x->job_id < y->job_id ? -1 : x->job_id > y->job_id;
}

void agent_pfplan_picks_free(pf_pick_t *picks, size_t n)
{
	size_t i;

	for (i = 0; picks && i < n; i++)
		free(picks[i].files);
	free(picks);
}

/*
 * Whether a usable node's model holds file (agent_pfplan_peers() without
 * the order: this runs for every file of every head job, every cycle).
 * Out of memory it answers yes: no node is kept from fetching the file.
 */
static bool _held(const dl_cache_t *cache, uint32_t file,
		  const pf_node_t *nodes, uint32_t nnodes)
{
	uint32_t copies = dl_cache_copies(cache, file), buf[16], *h = buf, n, i;
	bool held = false;

	if (!copies)
		return false;
	if (copies > 16 && !(h = malloc(copies * sizeof(uint32_t))))
		return true;
	n = dl_cache_holders(cache, file, h, copies);
	for (i = 0; i < n && i < copies && !held; i++)
		held = h[i] < nnodes && nodes[h[i]].usable;
	if (h != buf)
		free(h);
	return held;
}

/*
 * Claim for j's node every file of j cached nowhere and not claimed yet;
 * with prev, only those prev gave to that node (its copy may be in
 * flight: another node must not fetch it from storage meanwhile).
 */
static void _claim(const dl_cache_t *cache, const pf_job_t *j,
		   const pf_node_t *nodes, uint32_t nnodes, uint32_t nf,
		   const pf_table_t *prev, uint32_t *owner)
{
	uint32_t i, f, me = (uint32_t)j->node + 1;

	for (i = 0; i < j->nfiles; i++) {
		f = j->files[i];
		if (f >= nf || owner[f] ||
		    (prev && (f >= prev->nowner || prev->owner[f] != me)) ||
		    _held(cache, f, nodes, nnodes))
			continue;
		owner[f] = me;
	}
}

/* Candidates by priority (high first), then id, whatever their node. */
static int _cmp_prio(const void *a, const void *b, void *arg)
{
	const pf_job_t *jobs = arg;
	const pf_job_t *x = &jobs[*(const size_t *)a];
	const pf_job_t *y = &jobs[*(const size_t *)b];

	if (x->priority != y->priority)
		return x->priority > y->priority ? -1 : 1;
	return x->job_id < y->job_id ? -1 : x->job_id > y->job_id;
}

/*
 * owner[f] = 1 + the node that brings file f into the cluster, for the
 * files no usable node holds: the node the last selection gave it to, if
 * a job there still reads it (its copy may be under way), else the node
 * of a running job still staging it, else of the first job by priority,
 * among the heads of the nodes' queues (c, sorted by node and priority),
 * that reads it.  The other nodes leave it out of their prefetches until
 * it is cached there: a copy from that node's cache a moment later spares
 * the storage a second read of the same file, on the critical path of
 * every job starting meanwhile.  RET 0 or DL_ENOMEM.
 */
static int _owners(const dl_cache_t *cache, const pf_job_t *jobs,
		   size_t njobs, const size_t *c, size_t n,
		   const pf_node_t *nodes, uint32_t nnodes,
		   const pf_table_t *prev, uint32_t *owner)
{
	uint32_t nf = dl_cache_file_count(cache);
	size_t *head = malloc((njobs + n ? njobs + n : 1) * sizeof(size_t));
	size_t nh = 0, nstage, i, k;
	int pass;

	if (!head)
		return DL_ENOMEM;
	for (i = 0; i < njobs; i++)
		if (jobs[i].staging && jobs[i].node >= 0 &&
		    (uint32_t)jobs[i].node < nnodes)
			head[nh++] = i;
	nstage = nh; /* the staging jobs first, then the heads by priority */
	for (i = 0; i < n; i = k) {
		int32_t node = jobs[c[i]].node;

		for (k = i; k < n && jobs[c[k]].node == node; k++)
			if (k - i < nodes[node].max_jobs)
				head[nh++] = c[k];
	}
	qsort_r(head + nstage, nh - nstage, sizeof(size_t), _cmp_prio,
		(void *)jobs);
	for (pass = prev && prev->owner ? 0 : 1; pass < 2; pass++)
		for (i = 0; i < nh; i++)
			_claim(cache, &jobs[head[i]], nodes, nnodes, nf,
			       pass ? NULL : prev, owner);
	free(head);
	return 0;
}

/*
 * Fill pick with job j's files on node; stamp[] marks the files counted
 * on this node already (stamp == node + 1); owner[] (_owners()) leaves out
 * the files another node brings in.  RET its missing bytes.
 */
static uint64_t _fill(const dl_cache_t *cache, const pf_job_t *j,
		      uint32_t node, uint32_t *stamp, const uint32_t *owner,
		      uint32_t nfiles_all, pf_pick_t *pick)
{
	uint64_t missing = 0, size;
	uint32_t i, f;

	pick->nfiles = pick->ncached = 0;
	pick->sig = agent_fnv_u32(AGENT_FNV_BASIS, node);
	for (i = 0; i < j->nfiles; i++) {
		f = j->files[i];
		size = f < nfiles_all ? dl_cache_file_size(cache, f) :
					DL_CACHE_SIZE_UNKNOWN;
		if (size == DL_CACHE_SIZE_UNKNOWN ||
		    (owner[f] && owner[f] != node + 1))
			continue;
		pick->files[pick->nfiles++] = f;
		pick->sig = agent_fnv_u32(pick->sig, f);
		if (dl_cache_contains(cache, node, f)) {
			pick->ncached++;
		} else if (stamp[f] != node + 1) {
			stamp[f] = node + 1;
			missing += size;
		}
	}
	return missing;
}

/* The picks of one node from its sorted candidates c[0..n). */
static int _select_node(const dl_cache_t *cache, const pf_job_t *jobs,
			const size_t *c, size_t n, const pf_node_t *nd,
			uint32_t node, uint32_t *stamp, const uint32_t *owner,
			pf_pick_t *picks, size_t *npicks)
{
	uint32_t nfiles_all = dl_cache_file_count(cache), taken = 0;
	uint64_t used = 0, missing;
	size_t i;

	for (i = 0; i < n && taken < nd->max_jobs; i++) {
		const pf_job_t *j = &jobs[c[i]];
		pf_pick_t *p = &picks[*npicks];

		p->files = malloc((j->nfiles ? j->nfiles : 1) *
				  sizeof(uint32_t));
		if (!p->files)
			return DL_ENOMEM;
		missing = _fill(cache, j, node, stamp, owner, nfiles_all, p);
		if (missing > nd->budget || used + missing > nd->budget ||
		    !p->nfiles) {
			free(p->files);
			p->files = NULL;
			if (!p->nfiles)
				continue; /* nothing to pin: no prefetch */
			break;
		}
		used += missing;
		p->job_id = j->job_id;
		p->job = c[i];
		p->node = node;
		p->missing = missing;
		(*npicks)++;
		taken++;
	}
	return 0;
}

int64_t agent_pfplan_select(const dl_cache_t *cache, const pf_job_t *jobs,
			    size_t njobs, const pf_node_t *nodes,
			    uint32_t nnodes, pf_table_t *t, pf_pick_t **picks)
{
	uint32_t nf = dl_cache_file_count(cache);
	size_t *cand = malloc((njobs ? njobs : 1) * sizeof(size_t));
	uint32_t *stamp = calloc(nf ? nf : 1, sizeof(uint32_t));
	uint32_t *owner = calloc(nf ? nf : 1, sizeof(uint32_t));
	size_t ncand = 0, npicks = 0, i, k;
	int rc = 0;

	*picks = calloc(njobs ? njobs : 1, sizeof(pf_pick_t));
	if (!cand || !stamp || !owner || !*picks) {
		rc = DL_ENOMEM;
		goto out;
	}
	for (i = 0; i < njobs; i++)
		if (!jobs[i].running && jobs[i].node >= 0 &&
		    (uint32_t)jobs[i].node < nnodes &&
		    nodes[jobs[i].node].usable)
			cand[ncand++] = i;
	qsort_r(cand, ncand, sizeof(size_t), _cmp_cand, (void *)jobs);
	rc = _owners(cache, jobs, njobs, cand, ncand, nodes, nnodes, t, owner);
	for (i = 0; i < ncand && !rc; i = k) {
		uint32_t node = (uint32_t)jobs[cand[i]].node;

		for (k = i; k < ncand && jobs[cand[k]].node == (int32_t)node;)
			k++;
		rc = _select_node(cache, jobs, cand + i, k - i, &nodes[node],
				  node, stamp, owner, *picks, &npicks);
	}
out:
	free(cand);
	free(stamp);
	if (t && !rc) {
		free(t->owner);
		t->owner = owner; /* the next selection's prev */
		t->nowner = nf;
		owner = NULL;
	}
	free(owner);
	if (rc) {
		agent_pfplan_picks_free(*picks, npicks);
		*picks = NULL;
		return rc;
	}
	return (int64_t)npicks;
}

pf_entry_t *agent_pfplan_find(const pf_table_t *t, uint32_t job_id)
{
	size_t lo = 0, hi = t->n, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (t->e[mid].job_id == job_id)
			return &t->e[mid];
		if (t->e[mid].job_id < job_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

void agent_pfplan_forget(pf_table_t *t, uint32_t job_id)
{
	pf_entry_t *e = agent_pfplan_find(t, job_id);
	size_t i;

	if (!e)
		return;
	i = (size_t)(e - t->e);
	memmove(e, e + 1, (t->n - i - 1) * sizeof(*e));
	t->n--;
}

void agent_pfplan_table_free(pf_table_t *t)
{
	free(t->e);
	free(t->owner);
	memset(t, 0, sizeof(*t));
}

static int _cmp_entry(const void *a, const void *b)
{
	uint32_t x = ((const pf_entry_t *)a)->job_id;
	uint32_t y = ((const pf_entry_t *)b)->job_id;

	return x < y ? -1 : x > y;
}

/* Whether the entry's node still has the connection it was sent on. */
static bool _live(const pf_entry_t *e, const pf_node_t *nodes,
		  uint32_t nnodes)
{
	return e->node < nnodes && nodes[e->node].usable &&
	       nodes[e->node].epoch == e->epoch;
}

/* Whether job_id runs on node now. */
static bool _runs_on(const pf_job_t *jobs, size_t njobs, uint32_t job_id,
		     uint32_t node)
{
	size_t i;

	for (i = 0; i < njobs; i++)
		if (jobs[i].job_id == job_id)
			return jobs[i].running && jobs[i].node == (int32_t)node;
	return false;
}

typedef struct {
	pf_action_t *cancel, *send;
	size_t ncancel, nsend;
} acts_t;

static void _act(acts_t *a, pf_kind_t kind, uint32_t job, uint32_t node,
		 size_t pick)
{
	pf_action_t *x = kind == PF_CANCEL ? &a->cancel[a->ncancel++] :
					     &a->send[a->nsend++];

	x->kind = kind;
	x->job_id = job;
	x->node = node;
	x->pick = pick;
}

/* The new entry of pick i, with the actions it takes. */
static void _reconcile_pick(const pf_table_t *t, const pf_pick_t *p,
			    size_t i, const pf_node_t *nodes, uint32_t nnodes,
			    time_t now, uint32_t timeout, acts_t *a,
			    pf_entry_t *ne)
{
	const pf_entry_t *e = agent_pfplan_find(t, p->job_id);
	bool send;

	if (e && e->node != p->node && _live(e, nodes, nnodes))
		_act(a, PF_CANCEL, e->job_id, e->node, 0);
	send = !e || e->node != p->node ||
	       e->epoch != nodes[p->node].epoch || e->sig != p->sig ||
	       now - e->sent >= (time_t)(timeout / 2);
	if (!send) {
		*ne = *e;
		return;
	}
	_act(a, PF_SEND, p->job_id, p->node, i);
	ne->job_id = p->job_id;
	ne->node = p->node;
	ne->epoch = nodes[p->node].epoch;
	ne->sig = p->sig;
	ne->sent = now;
	ne->nfiles = p->nfiles;
}

int64_t agent_pfplan_reconcile(pf_table_t *t, const pf_pick_t *picks,
			       size_t npicks, const pf_job_t *jobs,
			       size_t njobs, const pf_node_t *nodes,
			       uint32_t nnodes, time_t now, uint32_t timeout,
			       pf_action_t **acts)
{
	acts_t a = { 0 };
	pf_table_t nt = { 0 };
	size_t i, k;

	a.cancel = malloc((npicks + t->n + 1) * sizeof(pf_action_t));
	a.send = malloc((npicks + 1) * sizeof(pf_action_t));
	nt.e = malloc((npicks + 1) * sizeof(pf_entry_t));
	if (!a.cancel || !a.send || !nt.e) {
		free(a.cancel);
		free(a.send);
		free(nt.e);
		return DL_ENOMEM;
	}
	nt.cap = npicks + 1;
	for (i = 0; i < npicks; i++)
		_reconcile_pick(t, &picks[i], i, nodes, nnodes, now, timeout,
				&a, &nt.e[nt.n++]);
	qsort(nt.e, nt.n, sizeof(pf_entry_t), _cmp_entry);
	for (i = 0; i < t->n; i++) {
		const pf_entry_t *e = &t->e[i];

		if (agent_pfplan_find(&nt, e->job_id) ||
		    _runs_on(jobs, njobs, e->job_id, e->node) ||
		    !_live(e, nodes, nnodes))
			continue;
		_act(&a, PF_CANCEL, e->job_id, e->node, 0);
	}
	for (k = 0; k < a.nsend; k++)
		a.cancel[a.ncancel++] = a.send[k];
	free(a.send);
	free(t->e);
	nt.owner = t->owner; /* the selection's, kept */
	nt.nowner = t->nowner;
	*t = nt;
	*acts = a.cancel;
	return (int64_t)a.ncancel;
}

/* Peers by load, then index. */
static int _cmp_peer(const void *a, const void *b, void *arg)
{
	const pf_node_t *nodes = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (nodes[x].load != nodes[y].load)
		return nodes[x].load < nodes[y].load ? -1 : 1;
	return x < y ? -1 : x > y;
}

uint32_t agent_pfplan_peers(const dl_cache_t *cache, uint32_t file,
			    uint32_t node, const pf_node_t *nodes,
			    uint32_t nnodes, uint32_t *out, uint32_t max)
{
	uint32_t copies = dl_cache_copies(cache, file), n, i, k = 0;
	uint32_t *h;

	if (!copies || !max)
		return 0;
	if (!(h = malloc(copies * sizeof(uint32_t))))
		return 0;
	n = dl_cache_holders(cache, file, h, copies);
	if (n > copies)
		n = copies;
	for (i = 0; i < n; i++)
		if (h[i] != node && h[i] < nnodes && nodes[h[i]].usable)
			h[k++] = h[i];
	qsort_r(h, k, sizeof(uint32_t), _cmp_peer, (void *)nodes);
	if (k > max)
		k = max;
	memcpy(out, h, k * sizeof(uint32_t));
	free(h);
	return k;
}
