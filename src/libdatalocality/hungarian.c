/* hungarian.c - minimum-cost rectangular assignment; see dl_hungarian.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dl_error.h"
#include "dl_hungarian.h"

/*
 * The problem as the solver sees it: k rows no more than K columns, with
 * the caller's matrix transposed when it has more rows than columns, and
 * every cost shifted by the smallest finite one and forbidden pairs priced
 * at "big" (see _solve_k()).
 */
typedef struct {
	const double *cost;
	size_t ncols; /* of the caller's matrix */
	int transposed; /* solver row i is the caller's column i */
	double min; /* smallest finite cost */
	double big; /* the price of a forbidden pair */
} matrix_t;

static double _at(const matrix_t *m, size_t i, size_t j)
{
	double c = m->transposed ? m->cost[j * m->ncols + i] :
				   m->cost[i * m->ncols + j];

	return isinf(c) ? m->big : c - m->min;
}

/*
 * Shortest augmenting paths with potentials u (rows) and v (columns), the
 * O(k^2 K) form of Kuhn-Munkres; 1-based, column 0 is the virtual start.
 * match[j] is the row of column j (0: none).  The strict comparisons pick
 * the lowest column index among equal candidates: that is the tie rule.
 */
static int _solve_k(const matrix_t *m, size_t k, size_t K, size_t *match)
{
	double *u, *v, *minv;
	size_t *way, i, j;
	char *used;
	int rc = DL_ENOMEM;

	u = calloc(k + 1, sizeof(*u));
	v = calloc(K + 1, sizeof(*v));
	minv = malloc((K + 1) * sizeof(*minv));
	way = calloc(K + 1, sizeof(*way));
	used = malloc(K + 1);
	if (!u || !v || !minv || !way || !used)
		goto out;
	memset(match, 0, (K + 1) * sizeof(*match));
	for (i = 1; i <= k; i++) {
		size_t j0 = 0;

		match[0] = i;
		for (j = 0; j <= K; j++) {
			minv[j] = INFINITY;
			used[j] = 0;
		}
		do {
			size_t i0 = match[j0], j1 = 0;
			double delta = INFINITY;

			used[j0] = 1;
			for (j = 1; j <= K; j++) {
				double cur;

				if (used[j])
					continue;
				cur = _at(m, i0 - 1, j - 1) - u[i0] - v[j];
				if (cur < minv[j]) {
					minv[j] = cur;
					way[j] = j0;
				}
				if (minv[j] < delta) {
					delta = minv[j];
					j1 = j;
				}
			}
			/*
			 * Every cost is finite after the substitution and k <=
			 * K, so an unused column always exists here.
			 */
			for (j = 0; j <= K; j++) {
				if (used[j]) {
					u[match[j]] += delta;
					v[j] -= delta;
				} else {
					minv[j] -= delta;
				}
			}
			j0 = j1;
		} while (match[j0]);
		do {
			size_t j1 = way[j0];

			match[j0] = match[j1];
			j0 = j1;
		} while (j0);
	}
	rc = 0;
out:
	free(u);
	free(v);
	free(minv);
	free(way);
	free(used);
	return rc;
}

int dl_hungarian_solve(const double *cost, size_t nrows, size_t ncols,
		       int32_t *row_col, double *total)
{
	matrix_t m = { 0 };
	size_t k, K, i, j, *match;
	double max = -INFINITY, sum = 0;
	int rc, any = 0;

	if ((nrows && !row_col) || nrows > INT32_MAX || ncols > INT32_MAX)
		return DL_EINVAL;
	if (!nrows || !ncols) {
		for (i = 0; i < nrows; i++)
			row_col[i] = -1;
		if (total)
			*total = 0;
		return 0;
	}
	if (!cost)
		return DL_EINVAL;
	m.min = INFINITY;
	for (i = 0; i < nrows * ncols; i++) {
		double c = cost[i];

		if (isnan(c) || c == -INFINITY)
			return DL_EINVAL;
		if (isinf(c))
			continue;
		any = 1;
		if (c < m.min)
			m.min = c;
		if (c > max)
			max = c;
	}
	if (!any)
		m.min = max = 0;
	m.cost = cost;
	m.ncols = ncols;
	m.transposed = nrows > ncols;
	k = m.transposed ? ncols : nrows;
	K = m.transposed ? nrows : ncols;
	/*
	 * A forbidden pair costs more than any k allowed pairs together, so
	 * that an assignment with one forbidden pair fewer is always cheaper:
	 * the solver then maximises the allowed pairs before the cost.
	 */
	m.big = (max - m.min) * (double) k + 1.0;
	if (!isfinite(m.big * (double) (k + 1)) ||
	    !isfinite((max - m.min) * (double) (k + 1)))
		return DL_ERANGE;
	match = malloc((K + 1) * sizeof(*match));
	if (!match)
		return DL_ENOMEM;
	if ((rc = _solve_k(&m, k, K, match))) {
		free(match);
		return rc;
	}
	for (i = 0; i < nrows; i++)
		row_col[i] = -1;
	for (j = 1; j <= K; j++) {
		size_t r, c;

		if (!match[j])
			continue;
		r = m.transposed ? j - 1 : match[j] - 1;
		c = m.transposed ? match[j] - 1 : j - 1;
		if (isinf(cost[r * ncols + c]))
			continue; /* only a forbidden pair was left for it */
		row_col[r] = (int32_t) c;
		sum += cost[r * ncols + c];
	}
	free(match);
	if (total)
		*total = sum;
	return 0;
}
