/*
 * partition_exact.c - see partition_exact.h.
 *
 * A net's term of the cut is cost * (lambda - 1), lambda the number of
 * parts among its pins.  Given the parts P of its fixed pins, a free
 * vertex put in part q adds a part unless q is in P, and the two free
 * vertices of a net put together in a part q outside P add one part, not
 * two.  Maximising what the free vertices save is therefore minimising the
 * cut, with, for free vertices a and b:
 *   gain(qa, qb) = G_a(qa) + G_b(qb) + [qa == qb] * (W_ab - G_ab(qa))
 * G_x(q): cost of x's nets that reach q already; W_ab: cost of the nets of
 * both; G_ab(q): those of them that reach q already.  Gains are summed in
 * net order, as the greedy partitioner sums them, so that one free vertex
 * gets exactly greedy's part.
 */
#include <math.h>
#include <stdlib.h>

#include "dl_error.h"
#include "partition_exact.h"

typedef struct {
	uint32_t n, v[2];	/* free vertices, ascending */
	uint32_t K;
	double *g[2];		/* [K] G_a, G_b */
	double *gab;		/* [K] G_ab */
	double wab;		/* W_ab */
	double *pw;		/* [K] weight of the fixed vertices */
	uint32_t *mark;		/* [K] net + 1 last counting the part */
} _ex_t;

/* A choice of parts and what decides between choices. */
typedef struct {
	uint32_t qa, qb;
	double over;	/* heaviest entered part over cap, or 0 */
	double gain;
	double heavy;	/* heaviest entered part */
	double sum;	/* the entered parts' weights, each once */
} _cand_t;

static void _ex_free(_ex_t *x)
{
	free(x->g[0]);
	free(x->g[1]);
	free(x->gab);
	free(x->pw);
	free(x->mark);
}

/* The free vertices of h (up to 3 counted) and the fixed weights. */
static int _ex_init(_ex_t *x, const dl_hgraph_t *h, uint32_t max_free)
{
	*x = (_ex_t){ .K = h->nparts };
	for (uint32_t v = 0; v < h->nvtx && x->n < 3; v++)
		if (h->fixed[v] < 0 && x->n++ < 2)
			x->v[x->n - 1] = v;
	if (x->n < 1 || x->n > 2 || x->n > max_free ||
	    (x->n == 2 && x->K > DL__EXACT_PAIR_MAX_PARTS))
		return 0;
	x->g[0] = calloc(x->K, sizeof(double));
	x->g[1] = calloc(x->K, sizeof(double));
	x->gab = calloc(x->K, sizeof(double));
	x->pw = calloc(x->K, sizeof(double));
	x->mark = calloc(x->K, sizeof(uint32_t));
	if (!x->g[0] || !x->g[1] || !x->gab || !x->pw || !x->mark) {
		_ex_free(x);
		return DL_ENOMEM;
	}
	for (uint32_t v = 0; v < h->nvtx; v++)
		if (h->fixed[v] >= 0)
			x->pw[h->fixed[v]] += h->vwgt[v];
	return 1;
}

/* G_a, G_b, G_ab and W_ab, one pass over the nets. */
static void _ex_gains(_ex_t *x, const dl_hgraph_t *h)
{
	for (uint32_t n = 0; n < h->nnets; n++) {
		int in[2] = { 0, 0 };
		double c = h->ncost[n];

		for (uint32_t i = h->xpins[n]; i < h->xpins[n + 1]; i++)
			for (uint32_t k = 0; k < x->n; k++)
				in[k] |= h->pins[i] == x->v[k];
		if (!in[0] && !in[1])
			continue;
		if (in[0] && in[1])
			x->wab += c;
		for (uint32_t i = h->xpins[n]; i < h->xpins[n + 1]; i++) {
			int32_t q = h->fixed[h->pins[i]];

			if (q < 0 || x->mark[q] == n + 1)
				continue;
			x->mark[q] = n + 1;
			for (uint32_t k = 0; k < x->n; k++)
				if (in[k])
					x->g[k][q] += c;
			if (in[0] && in[1])
				x->gab[q] += c;
		}
	}
}

/* Choice (qa, qb) of x's vertices (qb unused with one free vertex). */
static _cand_t _cand(const _ex_t *x, const dl_hgraph_t *h, double cap,
		     uint32_t qa, uint32_t qb)
{
	_cand_t c = { .qa = qa, .qb = qb };
	double wa = h->vwgt[x->v[0]], ha = x->pw[qa] + wa;

	c.gain = x->g[0][qa];
	if (x->n == 1) {
		c.heavy = c.sum = ha;
	} else if (qa == qb) {
		c.gain += x->g[1][qb] + (x->wab - x->gab[qa]);
		c.heavy = c.sum = ha + h->vwgt[x->v[1]];
	} else {
		double hb = x->pw[qb] + h->vwgt[x->v[1]];

		c.gain += x->g[1][qb];
		c.heavy = ha > hb ? ha : hb;
		c.sum = ha + hb;
	}
	c.over = c.heavy > cap ? c.heavy - cap : 0;
	return c;
}

/* Whether c beats best (partition_exact.h's order, but for the part
 * numbers of a full tie: _before()). */
static int _better(const _cand_t *c, const _cand_t *best)
{
	if (c->over != best->over)
		return c->over < best->over;
	if (c->gain != best->gain)
		return c->gain > best->gain;
	if (c->heavy != best->heavy)
		return c->heavy < best->heavy;
	return c->sum < best->sum;
}

/*
 * Whether c comes before best in the order of partition_exact.h: better,
 * or as good and first in ascending part numbers (the order of a full
 * scan, in which the earlier keeps a full tie).
 */
static int _before(const _cand_t *c, const _cand_t *best)
{
	if (_better(c, best))
		return 1;
	if (_better(best, c))
		return 0;
	return c->qa < best->qa || (c->qa == best->qa && c->qb < best->qb);
}

/* Try a in qa and b in qb. */
static void _try(const _ex_t *x, const dl_hgraph_t *h, double cap,
		 uint32_t qa, uint32_t qb, _cand_t *best, int *have)
{
	_cand_t c = _cand(x, h, cap, qa, qb);

	if (!*have || _before(&c, best)) {
		*best = c;
		*have = 1;
	}
}

/*
 * What no choice with a in qa and b in another part can beat: over and
 * heavy as low as a's part with a in it (ha: heavy is at least that, and
 * over with it), the gain as high as a's plus g1 (b's best gain in the
 * parts the caller allows), the sum as low as ha plus b's own weight,
 * each computed as _cand() computes it, so that rounding (monotonic)
 * keeps every bound.
 */
static _cand_t _off_bound(const _ex_t *x, const dl_hgraph_t *h, double cap,
			  uint32_t qa, double g1)
{
	double ha = x->pw[qa] + h->vwgt[x->v[0]];
	_cand_t b = { .qa = qa };

	b.heavy = ha;
	b.over = ha > cap ? ha - cap : 0;
	b.gain = x->g[0][qa] + g1;
	b.sum = ha + h->vwgt[x->v[1]];
	return b;
}

/*
 * The best choice.  A full scan is K^2 choices with two free vertices:
 * at 1,024 parts, a million per plan of two arrivals, 7% of a paced
 * dl-sim run at 1,024 nodes.  So the K choices of one part for both go
 * first; then a row of a in qa and b elsewhere is tried only if its bound
 * (_off_bound()) comes before the best so far, since none of its choices
 * comes before that bound.  While the best is within the cap, a choice
 * that puts b in a part it overflows cannot come before it, so the bound
 * takes b's best gain among the parts it fits (g1fit; -inf if none),
 * else among all (g1max).  The answer is the full scan's (prune 0 scans
 * all, for the test that says so).  *rows counts the rows of b elsewhere
 * tried (K with prune 0).
 */
static _cand_t _search(const _ex_t *x, const dl_hgraph_t *h, double cap,
		       int prune, uint32_t *rows)
{
	double g1max = -INFINITY, g1fit = -INFINITY, wb;
	_cand_t best = { 0 };
	int have = 0;

	*rows = 0;
	if (x->n == 1 || !prune) {
		for (uint32_t qa = 0; qa < x->K; qa++, (*rows)++)
			for (uint32_t qb = 0; qb < (x->n == 2 ? x->K : 1); qb++)
				_try(x, h, cap, qa, qb, &best, &have);
		return best;
	}
	wb = h->vwgt[x->v[1]];
	for (uint32_t q = 0; q < x->K; q++) {
		if (x->g[1][q] > g1max)
			g1max = x->g[1][q];
		if (x->pw[q] + wb <= cap && x->g[1][q] > g1fit)
			g1fit = x->g[1][q];
		_try(x, h, cap, q, q, &best, &have);
	}
	for (uint32_t qa = 0; qa < x->K; qa++) {
		_cand_t b = _off_bound(x, h, cap, qa,
				       best.over == 0 ? g1fit : g1max);

		if (!_before(&b, &best))
			continue;
		for (uint32_t qb = 0; qb < x->K; qb++)
			if (qb != qa)
				_try(x, h, cap, qa, qb, &best, &have);
		(*rows)++;
	}
	return best;
}

int dl__exact_small_scan(const dl_hgraph_t *h, double cap, uint32_t max_free,
			 int prune, int32_t *out, uint32_t *rows)
{
	_cand_t best;
	uint32_t n;
	_ex_t x;
	int rc = _ex_init(&x, h, max_free);

	if (rc <= 0)
		return rc;
	_ex_gains(&x, h);
	best = _search(&x, h, cap, prune, &n);
	if (rows)
		*rows = n;
	for (uint32_t v = 0; v < h->nvtx; v++)
		out[v] = h->fixed[v];
	out[x.v[0]] = (int32_t)best.qa;
	if (x.n == 2)
		out[x.v[1]] = (int32_t)best.qb;
	_ex_free(&x);
	return 1;
}

int dl__exact_small(const dl_hgraph_t *h, double cap, uint32_t max_free,
		    int32_t *out)
{
	return dl__exact_small_scan(h, cap, max_free, 1, out, NULL);
}
