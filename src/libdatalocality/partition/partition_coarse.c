/*
 * partition_coarse.c - identical free vertices merged into chunks
 * (partition_coarse.h), so that a graph over the helper's work budget can
 * still be partitioned by the helper, whole.
 */
#include <stdlib.h>
#include <string.h>

#include "dl_error.h"
#include "partition_coarse.h"

/* A free vertex's signature hash, for sorting. */
struct sig {
	uint64_t hash;
	uint32_t v;
};

/* The scratch of one coarsening; every array owned here, freed by
 * _scratch_free(). */
struct scratch {
	uint32_t *vx;		/* [nvtx + 1] offsets into vn */
	uint32_t *vn;		/* shared nets of each vertex, ascending */
	struct sig *sig;	/* [free vertices] */
	uint32_t *chunk;	/* [nvtx] chunk label, UINT32_MAX: none yet */
	uint32_t *stamp;	/* [coarse nvtx] net stamp for dedup */
};

static void _scratch_free(struct scratch *s)
{
	free(s->vx);
	free(s->vn);
	free(s->sig);
	free(s->chunk);
	free(s->stamp);
}

/*
 * The vertex -> shared nets transpose.  Nets are visited in index order,
 * so each vertex's list comes out ascending: equal lists are equal sets.
 * \return 0 or DL_ENOMEM.
 */
static int _shared_nets(const dl_hgraph_t *h, struct scratch *s)
{
	uint32_t total = 0, *fill;

	s->vx = calloc((size_t)h->nvtx + 1, sizeof(*s->vx));
	fill = calloc(h->nvtx ? h->nvtx : 1, sizeof(*fill));
	if (!s->vx || !fill) {
		free(fill);
		return DL_ENOMEM;
	}
	for (uint32_t n = 0; n < h->nnets; n++) {
		if (h->xpins[n + 1] - h->xpins[n] < 2)
			continue;
		for (uint32_t i = h->xpins[n]; i < h->xpins[n + 1]; i++)
			s->vx[h->pins[i] + 1]++;
	}
	for (uint32_t v = 0; v < h->nvtx; v++)
		s->vx[v + 1] += s->vx[v];
	total = s->vx[h->nvtx];
	s->vn = malloc((total ? total : 1) * sizeof(*s->vn));
	if (!s->vn) {
		free(fill);
		return DL_ENOMEM;
	}
	for (uint32_t n = 0; n < h->nnets; n++) {
		if (h->xpins[n + 1] - h->xpins[n] < 2)
			continue;
		for (uint32_t i = h->xpins[n]; i < h->xpins[n + 1]; i++) {
			uint32_t v = h->pins[i];

			s->vn[s->vx[v] + fill[v]++] = n;
		}
	}
	free(fill);
	return 0;
}

/* 64-bit mix of a vertex's shared nets (splitmix64 steps). */
static uint64_t _hash(const struct scratch *s, uint32_t v)
{
	uint64_t x = 0x9e3779b97f4a7c15ull * (s->vx[v + 1] - s->vx[v] + 1);

	for (uint32_t j = s->vx[v]; j < s->vx[v + 1]; j++) {
		x ^= s->vn[j] + 0x9e3779b97f4a7c15ull + (x << 6) + (x >> 2);
		x ^= x >> 31;
		x *= 0xbf58476d1ce4e5b9ull;
	}
	return x ^ (x >> 29);
}

static int _sig_cmp(const void *a, const void *b)
{
	const struct sig *x = a, *y = b;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	return x->v < y->v ? -1 : x->v > y->v;
}

static int _same(const struct scratch *s, uint32_t a, uint32_t b)
{
	uint32_t la = s->vx[a + 1] - s->vx[a];

	return la == s->vx[b + 1] - s->vx[b] &&
	       !memcmp(s->vn + s->vx[a], s->vn + s->vx[b],
		       la * sizeof(*s->vn));
}

/*
 * Label the chunks of one run of equal hashes, sig[lo..hi) (sorted by
 * vertex): each class of equal nets (a hash collision makes two), in
 * vertex order, cut before a vertex that would take the chunk past maxw.
 * *label counts the chunks.
 */
static void _chunk_run(const dl_hgraph_t *h, struct scratch *s, uint32_t lo,
		       uint32_t hi, double maxw, uint32_t *label)
{
	for (uint32_t i = lo; i < hi; i++) {
		uint32_t lead = s->sig[i].v;
		double w = 0;

		if (s->chunk[lead] != UINT32_MAX)
			continue;
		for (uint32_t k = i; k < hi; k++) {
			uint32_t v = s->sig[k].v;

			if (s->chunk[v] != UINT32_MAX || !_same(s, lead, v))
				continue;
			if (w > 0 && w + h->vwgt[v] > maxw) {
				(*label)++;
				w = 0;
			}
			s->chunk[v] = *label;
			w += h->vwgt[v];
		}
		(*label)++;
	}
}

/*
 * Chunk labels of the free vertices, then map[]: coarse ids in the order
 * of each chunk's first vertex, fixed vertices one each.  Labels are
 * reused as the chunk -> coarse id table (ids < labels, assigned in
 * increasing vertex order).  \return the number of coarse vertices, or 0
 * on ENOMEM.
 */
static uint32_t _label(const dl_hgraph_t *h, struct scratch *s, double maxw,
		       uint32_t *map)
{
	uint32_t nfree = 0, label = 0, next = 0, *id;

	s->sig = malloc((h->nvtx ? h->nvtx : 1) * sizeof(*s->sig));
	s->chunk = malloc((h->nvtx ? h->nvtx : 1) * sizeof(*s->chunk));
	if (!s->sig || !s->chunk)
		return 0;
	for (uint32_t v = 0; v < h->nvtx; v++) {
		s->chunk[v] = UINT32_MAX;
		if (h->fixed[v] < 0)
			s->sig[nfree++] = (struct sig){ _hash(s, v), v };
	}
	qsort(s->sig, nfree, sizeof(*s->sig), _sig_cmp);
	for (uint32_t lo = 0, hi; lo < nfree; lo = hi) {
		for (hi = lo + 1;
		     hi < nfree && s->sig[hi].hash == s->sig[lo].hash; hi++)
			;
		_chunk_run(h, s, lo, hi, maxw, &label);
	}
	id = malloc((label ? label : 1) * sizeof(*id));
	if (!id)
		return 0;
	for (uint32_t l = 0; l < label; l++)
		id[l] = UINT32_MAX;
	for (uint32_t v = 0; v < h->nvtx; v++) {
		if (h->fixed[v] >= 0) {
			map[v] = next++;
		} else {
			if (id[s->chunk[v]] == UINT32_MAX)
				id[s->chunk[v]] = next++;
			map[v] = id[s->chunk[v]];
		}
	}
	free(id);
	return next;
}

/* The coarse nets: each net's pins through map[], once each; nets left
 * with fewer than two pins are dropped.  \return 0 or DL_ENOMEM. */
static int _nets(const dl_hgraph_t *h, struct scratch *s,
		 const uint32_t *map, dl_hgraph_t *c)
{
	uint32_t npins = h->nnets ? h->xpins[h->nnets] : 0, k = 0, m = 0;

	s->stamp = calloc(c->nvtx ? c->nvtx : 1, sizeof(*s->stamp));
	c->ncost = malloc((h->nnets ? h->nnets : 1) * sizeof(*c->ncost));
	c->xpins = malloc(((size_t)h->nnets + 1) * sizeof(*c->xpins));
	c->pins = malloc((npins ? npins : 1) * sizeof(*c->pins));
	if (!s->stamp || !c->ncost || !c->xpins || !c->pins)
		return DL_ENOMEM;
	c->xpins[0] = 0;
	for (uint32_t n = 0; n < h->nnets; n++) {
		uint32_t start = k;

		for (uint32_t i = h->xpins[n]; i < h->xpins[n + 1]; i++) {
			uint32_t u = map[h->pins[i]];

			if (s->stamp[u] == n + 1)
				continue;
			s->stamp[u] = n + 1;
			c->pins[k++] = u;
		}
		if (k - start < 2) {
			k = start;
			continue;
		}
		c->ncost[m] = h->ncost[n];
		c->xpins[++m] = k;
	}
	c->nnets = m;
	return 0;
}

int dl__coarsen(const dl_hgraph_t *h, double chunk_div, dl_hgraph_t *c,
		uint32_t *map)
{
	struct scratch s = { 0 };
	double total = 0, maxw;
	int rc = DL_ENOMEM;

	memset(c, 0, sizeof(*c));
	for (uint32_t v = 0; v < h->nvtx; v++)
		total += h->vwgt[v];
	maxw = total / h->nparts / (chunk_div > 1 ? chunk_div : 1);
	if (_shared_nets(h, &s))
		goto out;
	c->nparts = h->nparts;
	c->nvtx = _label(h, &s, maxw, map);
	if (h->nvtx && !c->nvtx)
		goto out;
	c->vwgt = calloc(c->nvtx ? c->nvtx : 1, sizeof(*c->vwgt));
	c->fixed = malloc((c->nvtx ? c->nvtx : 1) * sizeof(*c->fixed));
	if (!c->vwgt || !c->fixed)
		goto out;
	for (uint32_t v = 0; v < h->nvtx; v++) {
		c->vwgt[map[v]] += h->vwgt[v];
		c->fixed[map[v]] = h->fixed[v];
	}
	rc = _nets(h, &s, map, c);
out:
	_scratch_free(&s);
	if (rc)
		dl__coarse_free(c);
	return rc;
}

void dl__coarse_free(dl_hgraph_t *c)
{
	free(c->vwgt);
	free(c->fixed);
	free(c->ncost);
	free(c->xpins);
	free(c->pins);
	memset(c, 0, sizeof(*c));
}
