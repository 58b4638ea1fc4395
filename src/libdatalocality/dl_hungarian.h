/*
 * dl_hungarian.h - the rectangular assignment problem (Hungarian method).
 *
 * Given an nrows x ncols cost matrix, choose at most one column per row and
 * at most one row per column so that as many rows as possible are assigned
 * (min(nrows, ncols), less any that only forbidden pairs could serve) and,
 * among those assignments, the sum of the chosen costs is the smallest.
 * This is the assignment step of metadata-scheduling-golubev §2, which
 * names Hopcroft-Karp; that algorithm finds a maximum matching but ignores
 * costs, so the minimum-cost version used here is Kuhn-Munkres with
 * potentials (Jonker-Volgenant's shortest augmenting paths).
 *
 * Complexity: O(k^2 * K) time and O(K) memory besides the matrix, with
 * k = min(nrows, ncols) and K = max(nrows, ncols).
 *
 * Errors follow dl_error.h: 0 or a negative DL_E* code, and a failed call
 * leaves its outputs unchanged.  The function has no state and is
 * thread-safe.
 */
#ifndef DL_HUNGARIAN_H
#define DL_HUNGARIAN_H

#include <stddef.h>
#include <stdint.h>

/**
 * dl_hungarian_solve - a minimum-cost assignment of rows to columns.
 * IN cost - nrows * ncols costs, row-major (cost[r * ncols + c]); any
 *           finite value, negative included; +INFINITY forbids the pair
 * IN nrows, ncols - either may be 0 (then no row is assigned)
 * OUT row_col - nrows entries: the column assigned to each row, or -1 for
 *               a row left out (more rows than columns, or every column
 *               the row may take went to another row)
 * OUT total - optional (may be NULL): the sum of the assigned costs
 * Ties are broken deterministically: the same matrix always gives the
 * same assignment.  Fewer forbidden pairs always beat a lower cost: the
 * number of assigned rows is maximised first.
 * \return 0 on success,
 *         DL_EINVAL for a NULL cost (with nrows and ncols > 0) or row_col
 *         (with nrows > 0), a NaN or -INFINITY cost, or a dimension above
 *         INT32_MAX,
 *         DL_ERANGE if the finite costs span so wide a range that the
 *         sums overflow a double,
 *         DL_ENOMEM.
 */
int dl_hungarian_solve(const double *cost, size_t nrows, size_t ncols,
		       int32_t *row_col, double *total);

#endif /* DL_HUNGARIAN_H */
