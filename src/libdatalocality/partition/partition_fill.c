/*
 * partition_fill.c - the initial partition of a graph too large for the
 * helper's budget (partition_fill.h): free vertices in breadth-first
 * order over the nets, cut into consecutive runs of one part each.
 */
#include <stdlib.h>
#include <string.h>

#include "dl_error.h"
#include "partition_fill.h"

/* The vertex -> nets transpose: vx[nvtx + 1] offsets into vn[npins]. */
struct adj {
	uint32_t *vx;
	uint32_t *vn;
};

static int _adj(const dl_hgraph_t *h, struct adj *a)
{
	uint32_t npins = h->nnets ? h->xpins[h->nnets] : 0, *fill;

	a->vx = calloc((size_t)h->nvtx + 1, sizeof(*a->vx));
	a->vn = malloc((npins ? npins : 1) * sizeof(*a->vn));
	fill = calloc(h->nvtx ? h->nvtx : 1, sizeof(*fill));
	if (!a->vx || !a->vn || !fill) {
		free(a->vx);
		free(a->vn);
		free(fill);
		return DL_ENOMEM;
	}
	for (uint32_t i = 0; i < npins; i++)
		a->vx[h->pins[i] + 1]++;
	for (uint32_t v = 0; v < h->nvtx; v++)
		a->vx[v + 1] += a->vx[v];
	for (uint32_t n = 0; n < h->nnets; n++)
		for (uint32_t i = h->xpins[n]; i < h->xpins[n + 1]; i++) {
			uint32_t v = h->pins[i];

			a->vn[a->vx[v] + fill[v]++] = n;
		}
	free(fill);
	return 0;
}

/* v's nets, costliest first (insertion sort: a job has a few files). */
static void _sort_nets(const dl_hgraph_t *h, uint32_t *n, uint32_t len)
{
	for (uint32_t i = 1; i < len; i++) {
		uint32_t x = n[i], j = i;

		while (j > 0 && h->ncost[n[j - 1]] < h->ncost[x]) {
			n[j] = n[j - 1];
			j--;
		}
		n[j] = x;
	}
}

/*
 * The free vertices breadth-first: from each vertex not reached yet (in
 * index order), through its nets, costliest first, to the vertices on
 * them, so that jobs sharing files come out next to each other.
 * order[] gets the free vertices; \return how many.
 */
static uint32_t _bfs(const dl_hgraph_t *h, const struct adj *a,
		     uint8_t *vseen, uint8_t *nseen, uint32_t *order)
{
	uint32_t head = 0, tail = 0;

	for (uint32_t s = 0; s < h->nvtx; s++) {
		if (h->fixed[s] >= 0 || vseen[s])
			continue;
		vseen[s] = 1;
		order[tail++] = s;
		while (head < tail) {
			uint32_t v = order[head++];

			_sort_nets(h, a->vn + a->vx[v], a->vx[v + 1] - a->vx[v]);
			for (uint32_t j = a->vx[v]; j < a->vx[v + 1]; j++) {
				uint32_t n = a->vn[j];

				if (nseen[n])
					continue;
				nseen[n] = 1;
				for (uint32_t i = h->xpins[n];
				     i < h->xpins[n + 1]; i++) {
					uint32_t u = h->pins[i];

					if (h->fixed[u] >= 0 || vseen[u])
						continue;
					vseen[u] = 1;
					order[tail++] = u;
				}
			}
		}
	}
	return tail;
}

/*
 * Cut order[] into runs: part q takes vertices while it stays at about
 * the mean part weight (a vertex goes in if at least half of it fits),
 * parts already that heavy with fixed vertices are skipped, and what is
 * left at the end goes to the lightest part at each step.
 */
static void _cut_runs(const dl_hgraph_t *h, const uint32_t *order,
		      uint32_t n, double *pw, int32_t *out)
{
	double total = 0, mean;
	uint32_t q = 0, k = 0;

	for (uint32_t v = 0; v < h->nvtx; v++)
		total += h->vwgt[v];
	mean = total / h->nparts;
	for (; k < n && q < h->nparts; k++) {
		uint32_t v = order[k];
		double w = h->vwgt[v];

		while (q < h->nparts && pw[q] > 0 && pw[q] + w / 2 > mean)
			q++;
		if (q == h->nparts)
			break;
		out[v] = (int32_t)q;
		pw[q] += w;
	}
	for (; k < n; k++) {
		uint32_t v = order[k], light = 0;

		for (uint32_t p = 1; p < h->nparts; p++)
			if (pw[p] < pw[light])
				light = p;
		out[v] = (int32_t)light;
		pw[light] += h->vwgt[v];
	}
}

int dl__partition_fill(const dl_hgraph_t *h, int32_t *out)
{
	uint8_t *vseen = calloc(h->nvtx ? h->nvtx : 1, 1);
	uint8_t *nseen = calloc(h->nnets ? h->nnets : 1, 1);
	uint32_t *order = malloc((h->nvtx ? h->nvtx : 1) * sizeof(*order));
	double *pw = calloc(h->nparts ? h->nparts : 1, sizeof(*pw));
	struct adj a = { 0 };
	int rc = DL_ENOMEM;

	if (!vseen || !nseen || !order || !pw || _adj(h, &a))
		goto out;
	for (uint32_t v = 0; v < h->nvtx; v++) {
		out[v] = h->fixed[v];
		if (h->fixed[v] >= 0)
			pw[h->fixed[v]] += h->vwgt[v];
	}
	_cut_runs(h, order, _bfs(h, &a, vseen, nseen, order), pw, out);
	rc = 0;
out:
	free(a.vx);
	free(a.vn);
	free(vseen);
	free(nseen);
	free(order);
	free(pw);
	return rc;
}
