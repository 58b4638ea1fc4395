/* hgraph.c - building the file-sharing hypergraph; see dl_hgraph.h. */
#include <stdlib.h>
#include <string.h>

#include "dl_cost.h"
#include "dl_error.h"
#include "dl_hgraph.h"
#include "grow.h"

void dl_hgraph_free(dl_hgraph_t *h)
{
	if (!h)
		return;
	free(h->vwgt);
	free(h->fixed);
	free(h->vjob);
	free(h->net_file);
	free(h->ncost);
	free(h->xpins);
	free(h->pins);
	free(h->part_node);
	free(h->node_part);
	free(h);
}

/*
 * The one part a pending job can go to, -1 if several, -2 if none.
 * dl_state_job_eligible() inlined (a node with a part is usable): this
 * runs for every pending job at every plan, thousands of times nnodes.
 */
static int32_t _only_part(const dl_state_t *st, const dl_hgraph_t *h,
			  const dl_job_t *j)
{
	int32_t only = -2;
	uint32_t n;

	for (n = dl_state_job_next(st, j, 0); n < st->nnodes;
	     n = dl_state_job_next(st, j, n + 1)) {
		if (h->node_part[n] < 0 || st->nodes[n].cpus < j->cpus)
			continue;
		if (only != -2)
			return -1;
		only = h->node_part[n];
	}
	return only;
}

/* Ends a file's usable holders in dl_hgraph_build()'s list. */
#define HELD_END UINT32_MAX

/* Room for n more entries in *list (used of *cap taken): dl__grow(). */
static int _u32_grow(uint32_t **list, size_t used, size_t *cap, size_t n)
{
	void *a = *list;
	int rc = dl__grow(&a, used, n, cap, sizeof(**list), 256);

	*list = a;
	return rc;
}

static int _u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* Allocation of every array once the sizes are known. */
static int _alloc(dl_hgraph_t *h, uint32_t nvtx, uint32_t nnets,
		  size_t npins)
{
	h->vwgt = calloc(nvtx ? nvtx : 1, sizeof(*h->vwgt));
	h->fixed = calloc(nvtx ? nvtx : 1, sizeof(*h->fixed));
	h->vjob = calloc(nvtx ? nvtx : 1, sizeof(*h->vjob));
	h->net_file = calloc(nnets ? nnets : 1, sizeof(*h->net_file));
	h->ncost = calloc(nnets ? nnets : 1, sizeof(*h->ncost));
	h->xpins = calloc(nnets + 1, sizeof(*h->xpins));
	h->pins = calloc(npins ? npins : 1, sizeof(*h->pins));
	if (!h->vwgt || !h->fixed || !h->vjob || !h->net_file || !h->ncost ||
	    !h->xpins || !h->pins)
		return DL_ENOMEM;
	return 0;
}

/*
 * dl_hgraph_build()'s working state.  net_of[file] maps a tracker file id
 * to its net (-1: no pending job needs it, so no net); byfile lists the
 * files with a net in ascending order, so that the loops over files go in
 * file order, as a scan of every file id would, over the few with a net
 * (a scan was the tracker's thousands of files, three times per plan).
 * Every array is owned here and freed by _b_fini(); h is the result.
 */
typedef struct {
	const dl_state_t *st;
	dl_hgraph_t *h;
	int32_t *net_of, *vtx_of, *anchor_of, *only;
	uint32_t *holders; /* [nnodes] a file's holders, from the tracker */
	uint32_t *held;    /* usable holders per byfile entry, HELD_END */
	uint32_t *byfile;
	uint32_t *fill;    /* [nnets] pins placed per net so far */
	size_t nheld, heldcap, nbyfile, bycap, npins;
	uint32_t nfiles, nvtx, nnets;
} _build_t;

static void _b_fini(_build_t *b)
{
	free(b->net_of);
	free(b->vtx_of);
	free(b->anchor_of);
	free(b->only);
	free(b->holders);
	free(b->held);
	free(b->byfile);
	free(b->fill);
}

/* The arrays, and a part per usable node.  \return 0, DL_ENOMEM or
 * DL_EINVAL (no usable node). */
static int _b_init(_build_t *b, const dl_state_t *st, dl_hgraph_t *h)
{
	size_t nn = st->nnodes ? st->nnodes : 1, nj = st->njobs ? st->njobs : 1;
	uint32_t n;

	memset(b, 0, sizeof(*b));
	b->st = st;
	b->h = h;
	b->nfiles = dl_cache_file_count(st->cache);
	h->part_node = calloc(nn, sizeof(uint32_t));
	h->node_part = calloc(nn, sizeof(int32_t));
	b->net_of = malloc((b->nfiles ? b->nfiles : 1) * sizeof(*b->net_of));
	b->vtx_of = malloc(nj * sizeof(*b->vtx_of));
	b->only = malloc(nj * sizeof(*b->only));
	b->anchor_of = malloc(nn * sizeof(*b->anchor_of));
	b->holders = malloc(nn * sizeof(*b->holders));
	if (!h->part_node || !h->node_part || !b->net_of || !b->vtx_of ||
	    !b->only || !b->anchor_of || !b->holders)
		return DL_ENOMEM;
	for (n = 0; n < st->nnodes; n++) {
		h->node_part[n] = -1;
		b->anchor_of[n] = -1;
		if (st->nodes[n].usable) {
			h->node_part[n] = (int32_t)h->nparts;
			h->part_node[h->nparts++] = n;
		}
	}
	memset(b->net_of, 0xff, (b->nfiles ? b->nfiles : 1) *
					sizeof(*b->net_of));
	return h->nparts ? 0 : DL_EINVAL;
}

/* Pass 1: vertices for jobs, nets for files pending jobs need.
 * \return 0 or DL_ENOMEM. */
static int _b_vertices(_build_t *b)
{
	const dl_state_t *st = b->st;
	uint32_t k;
	size_t i;

	for (i = 0; i < st->njobs; i++) {
		const dl_job_t *j = &st->jobs[i];

		b->vtx_of[i] = -1;
		if (j->state == DL_JOB_RUNNING) {
			if (b->h->node_part[j->node] < 0)
				continue; /* its node takes no new work */
		} else if ((b->only[i] = _only_part(st, b->h, j)) == -2) {
			continue; /* can run nowhere now */
		}
		b->vtx_of[i] = (int32_t)b->nvtx++;
		if (j->state != DL_JOB_PENDING)
			continue;
		if (_u32_grow(&b->byfile, b->nbyfile, &b->bycap, j->nfiles))
			return DL_ENOMEM;
		for (k = 0; k < j->nfiles; k++)
			if (b->net_of[j->files[k]] < 0) {
				b->net_of[j->files[k]] = (int32_t)b->nnets++;
				b->byfile[b->nbyfile++] = j->files[k];
			}
	}
	if (b->nbyfile)
		qsort(b->byfile, b->nbyfile, sizeof(*b->byfile), _u32_cmp);
	return 0;
}

/*
 * Anchors: a vertex per usable node caching a file some net has.  The
 * usable holders are kept (held, in file order) for the pins instead of
 * asking the tracker again.  Then the jobs' pins are counted.
 * \return 0 or DL_ENOMEM.
 */
static int _b_anchors(_build_t *b)
{
	const dl_state_t *st = b->st;
	uint32_t k, nh;
	size_t x, i;

	for (x = 0; x < b->nbyfile; x++) {
		nh = dl_cache_holders(st->cache, b->byfile[x], b->holders,
				      st->nnodes);
		if (nh > st->nnodes)
			nh = st->nnodes;
		if (_u32_grow(&b->held, b->nheld, &b->heldcap, nh + 1))
			return DL_ENOMEM;
		for (k = 0; k < nh; k++) {
			uint32_t n = b->holders[k];

			if (b->h->node_part[n] < 0)
				continue;
			if (b->anchor_of[n] < 0)
				b->anchor_of[n] = (int32_t)b->nvtx++;
			b->held[b->nheld++] = n;
			b->npins++;
		}
		b->held[b->nheld++] = HELD_END;
	}
	for (i = 0; i < st->njobs; i++) {
		const dl_job_t *j = &st->jobs[i];

		if (b->vtx_of[i] < 0)
			continue;
		for (k = 0; k < j->nfiles; k++)
			if (b->net_of[j->files[k]] >= 0)
				b->npins++;
	}
	return 0;
}

/* Vertex weights and fixed parts.  \return 0 or DL_ENOMEM. */
static int _b_weights(_build_t *b)
{
	const dl_state_t *st = b->st;
	dl_hgraph_t *h = b->h;
	uint32_t *sharers, n;
	size_t i;

	if (dl_cost_sharers(st, &sharers))
		return DL_ENOMEM;
	for (n = 0; n < st->nnodes; n++) {
		int32_t a = b->anchor_of[n];

		if (a < 0)
			continue;
		h->vwgt[a] = 0;
		h->fixed[a] = h->node_part[n];
		h->vjob[a] = DL_HG_ANCHOR;
	}
	for (i = 0; i < st->njobs; i++) {
		const dl_job_t *j = &st->jobs[i];
		int32_t v = b->vtx_of[i];

		if (v < 0)
			continue;
		h->vjob[v] = (uint32_t)i;
		if (j->state == DL_JOB_RUNNING) {
			h->vwgt[v] = dl_cost_job_remaining(st, j);
			h->fixed[v] = h->node_part[j->node];
		} else {
			h->vwgt[v] = dl_cost_job_estimate(st, j, sharers,
							  h->nparts);
			h->fixed[v] = b->only[i];
		}
	}
	free(sharers);
	return 0;
}

/* Pass 2, jobs: every job vertex's pins, counted (place = 0) or placed. */
static void _b_job_pins(_build_t *b, int place)
{
	const dl_state_t *st = b->st;
	dl_hgraph_t *h = b->h;
	uint32_t k;
	size_t i;

	for (i = 0; i < st->njobs; i++) {
		const dl_job_t *j = &st->jobs[i];

		if (b->vtx_of[i] < 0)
			continue;
		for (k = 0; k < j->nfiles; k++) {
			int32_t e = b->net_of[j->files[k]];

			if (e < 0)
				continue;
			if (place)
				h->pins[h->xpins[e] + b->fill[e]++] =
					(uint32_t)b->vtx_of[i];
			else
				h->xpins[e + 1]++;
		}
	}
}

/* Pass 2, anchors: the same for the held lists, in file order; counting
 * also fills each net's file and cost. */
static void _b_anchor_pins(_build_t *b, int place)
{
	dl_hgraph_t *h = b->h;
	size_t x, c;

	for (x = 0, c = 0; x < b->nbyfile; x++, c++) {
		uint32_t f = b->byfile[x];
		int32_t e = b->net_of[f];

		if (!place) {
			h->net_file[e] = f;
			h->ncost[e] = (double)dl_file_bytes(b->st, f);
		}
		for (; c < b->nheld && b->held[c] != HELD_END; c++) {
			if (place)
				h->pins[h->xpins[e] + b->fill[e]++] =
					(uint32_t)b->anchor_of[b->held[c]];
			else
				h->xpins[e + 1]++;
		}
	}
}

/* Pass 2: pins.  First count per net, then place.  \return 0 or
 * DL_ENOMEM. */
static int _b_pins(_build_t *b)
{
	dl_hgraph_t *h = b->h;
	uint32_t net;

	b->fill = calloc(b->nnets ? b->nnets : 1, sizeof(*b->fill));
	if (!b->fill)
		return DL_ENOMEM;
	_b_job_pins(b, 0);
	_b_anchor_pins(b, 0);
	for (net = 0; net < b->nnets; net++)
		h->xpins[net + 1] += h->xpins[net];
	_b_job_pins(b, 1);
	_b_anchor_pins(b, 1);
	return 0;
}

/* Two passes over the jobs: the first numbers vertices and nets and
 * counts pins, the second fills the CSR arrays. */
int dl_hgraph_build(const dl_state_t *st, dl_hgraph_t **out)
{
	dl_hgraph_t *h;
	_build_t b;
	int rc;

	*out = NULL;
	h = calloc(1, sizeof(*h));
	if (!h)
		return DL_ENOMEM;
	rc = _b_init(&b, st, h);
	if (!rc)
		rc = _b_vertices(&b);
	if (!rc)
		rc = _b_anchors(&b);
	if (!rc && !(rc = _alloc(h, b.nvtx, b.nnets, b.npins))) {
		h->nvtx = b.nvtx;
		h->nnets = b.nnets;
		rc = _b_weights(&b);
	}
	if (!rc)
		rc = _b_pins(&b);
	_b_fini(&b);
	if (rc) {
		dl_hgraph_free(h);
		return rc;
	}
	*out = h;
	return 0;
}

double dl_hgraph_cut(const dl_hgraph_t *h, const int32_t *part)
{
	/* stamp[p] == net + 1 when part p was already counted for net. */
	uint32_t *stamp = calloc(h->nparts ? h->nparts : 1, sizeof(*stamp));
	double cut = 0;
	uint32_t net, k;

	if (!stamp)
		return -1;
	for (net = 0; net < h->nnets; net++) {
		uint32_t lambda = 0;

		for (k = h->xpins[net]; k < h->xpins[net + 1]; k++) {
			int32_t p = part[h->pins[k]];

			if (p < 0 || (uint32_t)p >= h->nparts ||
			    stamp[p] == net + 1)
				continue;
			stamp[p] = net + 1;
			lambda++;
		}
		if (lambda > 1)
			cut += h->ncost[net] * (lambda - 1);
	}
	free(stamp);
	return cut;
}

double dl_hgraph_cut_share(const dl_hgraph_t *h, double cut)
{
	double total = 0;

	for (uint32_t n = 0; n < h->nnets; n++)
		total += h->ncost[n];
	return total > 0 ? cut / total : 0;
}

double dl_hgraph_imbalance(const dl_hgraph_t *h, const int32_t *part)
{
	double *w = calloc(h->nparts ? h->nparts : 1, sizeof(*w));
	double total = 0, max = 0;
	uint32_t v, p;

	if (!w)
		return -1;
	for (v = 0; v < h->nvtx; v++) {
		if (part[v] < 0 || (uint32_t)part[v] >= h->nparts)
			continue;
		w[part[v]] += h->vwgt[v];
		total += h->vwgt[v];
	}
	for (p = 0; p < h->nparts; p++)
		if (w[p] > max)
			max = w[p];
	free(w);
	return total > 0 ? max / (total / h->nparts) - 1.0 : 0.0;
}
