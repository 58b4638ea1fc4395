/* hgraph.c - building the file-sharing hypergraph; see dl_hgraph.h. */
#include <stdlib.h>
#include <string.h>

#include "dl_cost.h"
#include "dl_error.h"
#include "dl_hgraph.h"

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

/* Room for n more entries in *list of *cap, n used; RET 0 or DL_ENOMEM. */
static int _u32_grow(uint32_t **list, size_t used, size_t *cap, size_t n)
{
	size_t ncap = *cap ? *cap : 256;
	uint32_t *tmp;

	if (used + n <= *cap)
		return 0;
	while (ncap < used + n)
		ncap *= 2;
	tmp = realloc(*list, ncap * sizeof(*tmp));
	if (!tmp)
		return DL_ENOMEM;
	*list = tmp;
	*cap = ncap;
	return 0;
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
 * Two passes over the jobs: the first numbers vertices and nets and counts
 * pins, the second fills the CSR arrays.  net_of[file] maps a tracker file
 * id to its net (-1: no pending job needs it, so no net).
 */
int dl_hgraph_build(const dl_state_t *st, dl_hgraph_t **out)
{
	uint32_t nfiles = dl_cache_file_count(st->cache);
	uint32_t *sharers = NULL, *holders = NULL, *fill = NULL, *held = NULL;
	uint32_t *byfile = NULL; /* the files with a net, ascending */
	size_t nheld = 0, heldcap = 0, nbyfile = 0, bycap = 0, c, x;
	int32_t *net_of = NULL, *vtx_of = NULL, *anchor_of = NULL, *only = NULL;
	uint32_t nvtx = 0, nnets = 0, n, k, net;
	size_t npins = 0, i;
	dl_hgraph_t *h;
	int rc = DL_ENOMEM;

	*out = NULL;
	h = calloc(1, sizeof(*h));
	if (!h)
		return DL_ENOMEM;
	h->part_node = calloc(st->nnodes ? st->nnodes : 1, sizeof(uint32_t));
	h->node_part = calloc(st->nnodes ? st->nnodes : 1, sizeof(int32_t));
	net_of = malloc((nfiles ? nfiles : 1) * sizeof(*net_of));
	vtx_of = malloc((st->njobs ? st->njobs : 1) * sizeof(*vtx_of));
	only = malloc((st->njobs ? st->njobs : 1) * sizeof(*only));
	anchor_of = malloc((st->nnodes ? st->nnodes : 1) * sizeof(*anchor_of));
	holders = malloc((st->nnodes ? st->nnodes : 1) * sizeof(*holders));
	if (!h->part_node || !h->node_part || !net_of || !vtx_of || !only ||
	    !anchor_of || !holders)
		goto out;
	for (n = 0; n < st->nnodes; n++) {
		h->node_part[n] = -1;
		anchor_of[n] = -1;
		if (st->nodes[n].usable) {
			h->node_part[n] = (int32_t)h->nparts;
			h->part_node[h->nparts++] = n;
		}
	}
	if (!h->nparts) {
		rc = DL_EINVAL;
		goto out;
	}
	memset(net_of, 0xff, (nfiles ? nfiles : 1) * sizeof(*net_of));

	/* Pass 1: vertices for jobs, nets for files pending jobs need. */
	for (i = 0; i < st->njobs; i++) {
		const dl_job_t *j = &st->jobs[i];

		vtx_of[i] = -1;
		if (j->state == DL_JOB_RUNNING) {
			if (h->node_part[j->node] < 0)
				continue; /* its node takes no new work */
		} else if ((only[i] = _only_part(st, h, j)) == -2) {
			continue; /* can run nowhere now */
		}
		vtx_of[i] = (int32_t)nvtx++;
		if (j->state != DL_JOB_PENDING)
			continue;
		if (_u32_grow(&byfile, nbyfile, &bycap, j->nfiles))
			goto out;
		for (k = 0; k < j->nfiles; k++)
			if (net_of[j->files[k]] < 0) {
				net_of[j->files[k]] = (int32_t)nnets++;
				byfile[nbyfile++] = j->files[k];
			}
	}
	/*
	 * The loops over files below go in file order, as a scan of every
	 * file id would, but over the few files with a net only (a scan was
	 * the tracker's thousands of files, three times per plan).
	 */
	if (nbyfile)
		qsort(byfile, nbyfile, sizeof(*byfile), _u32_cmp);
	/*
	 * Anchors: a vertex per usable node caching a file some net has.
	 * The usable holders are kept (held, in file order) for the pins
	 * below instead of asking the tracker again.
	 */
	for (x = 0; x < nbyfile; x++) {
		uint32_t nh;

		i = byfile[x];
		nh = dl_cache_holders(st->cache, i, holders, st->nnodes);
		if (nh > st->nnodes)
			nh = st->nnodes;
		if (_u32_grow(&held, nheld, &heldcap, nh + 1))
			goto out;
		for (k = 0; k < nh; k++) {
			if (h->node_part[holders[k]] < 0)
				continue;
			if (anchor_of[holders[k]] < 0)
				anchor_of[holders[k]] = (int32_t)nvtx++;
			held[nheld++] = holders[k];
			npins++;
		}
		held[nheld++] = HELD_END;
	}
	for (i = 0; i < st->njobs; i++) {
		const dl_job_t *j = &st->jobs[i];

		if (vtx_of[i] < 0)
			continue;
		for (k = 0; k < j->nfiles; k++)
			if (net_of[j->files[k]] >= 0)
				npins++;
	}
	if ((rc = _alloc(h, nvtx, nnets, npins)))
		goto out;
	h->nvtx = nvtx;
	h->nnets = nnets;
	if ((rc = dl_cost_sharers(st, &sharers)))
		goto out;
	fill = calloc(nnets ? nnets : 1, sizeof(*fill));
	if (!fill) {
		rc = DL_ENOMEM;
		goto out;
	}

	/* Vertex weights and fixed parts. */
	for (n = 0; n < st->nnodes; n++) {
		if (anchor_of[n] < 0)
			continue;
		h->vwgt[anchor_of[n]] = 0;
		h->fixed[anchor_of[n]] = h->node_part[n];
		h->vjob[anchor_of[n]] = DL_HG_ANCHOR;
	}
	for (i = 0; i < st->njobs; i++) {
		const dl_job_t *j = &st->jobs[i];
		int32_t v = vtx_of[i];

		if (v < 0)
			continue;
		h->vjob[v] = (uint32_t)i;
		if (j->state == DL_JOB_RUNNING) {
			h->vwgt[v] = dl_cost_job_remaining(st, j);
			h->fixed[v] = h->node_part[j->node];
		} else {
			h->vwgt[v] = dl_cost_job_estimate(st, j, sharers,
							  h->nparts);
			h->fixed[v] = only[i];
		}
	}

	/* Pass 2: pins.  First count per net, then place. */
	for (i = 0; i < st->njobs; i++) {
		const dl_job_t *j = &st->jobs[i];

		if (vtx_of[i] < 0)
			continue;
		for (k = 0; k < j->nfiles; k++)
			if (net_of[j->files[k]] >= 0)
				h->xpins[net_of[j->files[k]] + 1]++;
	}
	for (x = 0, c = 0; x < nbyfile; x++) {
		i = byfile[x];
		h->net_file[net_of[i]] = (uint32_t)i;
		h->ncost[net_of[i]] = (double)dl_file_bytes(st, (uint32_t)i);
		for (; c < nheld && held[c] != HELD_END; c++)
			h->xpins[net_of[i] + 1]++;
		c++;
	}
	for (net = 0; net < nnets; net++)
		h->xpins[net + 1] += h->xpins[net];
	for (i = 0; i < st->njobs; i++) {
		const dl_job_t *j = &st->jobs[i];

		if (vtx_of[i] < 0)
			continue;
		for (k = 0; k < j->nfiles; k++) {
			int32_t e = net_of[j->files[k]];

			if (e >= 0)
				h->pins[h->xpins[e] + fill[e]++] =
					(uint32_t)vtx_of[i];
		}
	}
	for (x = 0, c = 0; x < nbyfile; x++) {
		int32_t e = net_of[byfile[x]];

		for (; c < nheld && held[c] != HELD_END; c++)
			h->pins[h->xpins[e] + fill[e]++] =
				(uint32_t)anchor_of[held[c]];
		c++;
	}
	rc = 0;
out:
	free(sharers);
	free(fill);
	free(byfile);
	free(net_of);
	free(vtx_of);
	free(only);
	free(held);
	free(anchor_of);
	free(holders);
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
