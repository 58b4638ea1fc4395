/* check_order.c - job ordering with storage Gantt charts (dl_order.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_suites.h"
#include "fixture.h"
#include "dl_cost.h"
#include "dl_error.h"
#include "dl_order.h"

#define TOL 1e-9

#define tc fx_cache
#define ts fx_state
#define _file fx_file
#define _teardown fx_teardown

/*
 * A tracker and a state with nn nodes.  Transfers take size / rbw; reads
 * and compute follow lbw and cpb (0 = free).
 */
static void _mk(uint32_t nn, double rbw, double lbw, double cpb,
		uint32_t nstorage)
{
	dl_params_t p;

	dl_params_default(&p);
	p.rbw = rbw;
	p.lbw = lbw;
	p.cpb = cpb;
	p.nstorage = nstorage;
	fx_setup(nn, 1, &p, DL_EVICT_LRU);
}

/* A pending job (compute < 0: cost model) or, with node >= 0, running. */
static int _job(uint32_t id, const uint32_t *files, uint32_t n,
		double compute, int32_t running_on)
{
	dl_job_t j = { 0 };

	j.id = id;
	j.state = running_on >= 0 ? DL_JOB_RUNNING : DL_JOB_PENDING;
	j.files = (uint32_t *)files;
	j.nfiles = n;
	j.node = running_on;
	j.arrival = id;
	j.compute = compute;
	j.start = ts->now;
	return dl_state_add_job(ts, &j);
}

/* Order with assign and storage map; check the output's consistency. */
static dl_order_item_t *_order(const int32_t *assign, const uint32_t *smap,
			       size_t *n, double *key)
{
	dl_order_item_t *it = NULL;
	size_t k;

	ck_assert_int_eq(dl_order_ect_ex(ts, assign, smap, &it, n, key), 0);
	for (k = 0; k < *n; k++) {
		ck_assert_uint_lt(it[k].job, ts->njobs);
		ck_assert_int_eq(assign[it[k].job], (int32_t)it[k].node);
		ck_assert(it[k].staged >= it[k].start);
		ck_assert(it[k].end >= it[k].staged);
	}
	return it;
}

/*
 * Fig. 4 of online-hps-khanna, reconstructed (the figure's hypergraph is
 * not in the text).  Two compute nodes, four storage nodes (the paper's
 * 1..4 are 0..3 here), six jobs; every file is 1 byte, RBW = 1 B/s (a
 * transfer takes 1), LBW = 1/0.3 B/s (I/O 0.3 per file), C = 0.2 s/B.
 *
 *   group 1 (node 0): job 1 {A, B, C}, job 2 {B, C, D}, job 3 {A, C, D}
 *   group 2 (node 1): job 4 {E, F},    job 5 {E, G, H}, job 6 {F, G, H}
 *   storage (paper's ids): A 1, B 2, C 4, D 3, E 1, F 3, G 2, H 4
 *
 * Job 4 needs two files on storage nodes 1 and 3: its two transfers are
 * serialized on node 1's receive line, 2, + I/O 0.6 + CPU 0.4 = 3.0, the
 * lowest ECT; E takes [0,1) on storage 1 and F [1,2) on storage 3.
 * Group 1's jobs need 3 files each, which still fit in 3 units around
 * those reservations (job 1: B [0,1) on 2, A [1,2) on 1, C [2,3) on 4),
 * 3 + 0.9 + 0.6 = 4.5 each; job 1 wins the tie.  Then group 2 again:
 * E and F are on node 1 already, G [3,4) and H [4,5): 5 + 1.5 = 6.5 for
 * job 5 (and job 6).  Then group 1 from 4.5: only D is missing, on
 * storage 3 free from 2: [4.5,5.5), 5.5 + 1.5 = 7.0 for job 2.  Then job
 * 6 with nothing to fetch, 6.5 + 1.5 = 8.0, and job 3, 7.0 + 1.5 = 8.5.
 */
START_TEST(test_fig4)
{
	enum { A, B, C, D, E, F, G, H, NF };
	static const uint32_t paper_storage[NF] = { 1, 2, 4, 3, 1, 3, 2, 4 };
	static const uint32_t want_job[] = { 4, 1, 5, 2, 6, 3 };
	static const double want_start[] = { 0, 0, 3, 4.5, 6.5, 7 };
	static const double want_staged[] = { 2, 3, 5, 5.5, 6.5, 7 };
	static const double want_end[] = { 3, 4.5, 6.5, 7, 8, 8.5 };
	static const uint32_t want_xfers[] = { 2, 3, 2, 1, 0, 0 };
	uint32_t f[NF], smap[NF], j1[3], j2[3], j3[3], j4[2], j5[3], j6[3];
	int32_t assign[6] = { 0, 0, 0, 1, 1, 1 };
	double key[6];
	dl_order_item_t *it;
	size_t n, k;
	char path[16];

	_mk(2, 1.0, 1.0 / 0.3, 0.2, 4);
	for (k = 0; k < NF; k++) {
		snprintf(path, sizeof(path), "/fig4/%c", (char)('A' + k));
		f[k] = _file(path, 1);
		smap[f[k]] = paper_storage[k] - 1;
	}
	j1[0] = f[A], j1[1] = f[B], j1[2] = f[C];
	j2[0] = f[B], j2[1] = f[C], j2[2] = f[D];
	j3[0] = f[A], j3[1] = f[C], j3[2] = f[D];
	j4[0] = f[E], j4[1] = f[F];
	j5[0] = f[E], j5[1] = f[G], j5[2] = f[H];
	j6[0] = f[F], j6[1] = f[G], j6[2] = f[H];
	ck_assert_int_eq(_job(1, j1, 3, -1, -1), 0);
	ck_assert_int_eq(_job(2, j2, 3, -1, -1), 1);
	ck_assert_int_eq(_job(3, j3, 3, -1, -1), 2);
	ck_assert_int_eq(_job(4, j4, 2, -1, -1), 3);
	ck_assert_int_eq(_job(5, j5, 3, -1, -1), 4);
	ck_assert_int_eq(_job(6, j6, 3, -1, -1), 5);

	it = _order(assign, smap, &n, key);
	ck_assert_uint_eq(n, 6);
	/* Job 4 first with ECT 3, then a job of group 1 (node 0). */
	ck_assert_uint_eq(ts->jobs[it[0].job].id, 4);
	ck_assert_double_eq_tol(it[0].end, 3.0, TOL);
	ck_assert_uint_eq(it[1].node, 0);
	ck_assert_double_eq_tol(it[1].end, 4.5, TOL);
	for (k = 0; k < n; k++) {
		ck_assert_uint_eq(ts->jobs[it[k].job].id, want_job[k]);
		ck_assert_double_eq_tol(it[k].start, want_start[k], TOL);
		ck_assert_double_eq_tol(it[k].staged, want_staged[k], TOL);
		ck_assert_double_eq_tol(it[k].end, want_end[k], TOL);
		ck_assert_uint_eq(it[k].transfers, want_xfers[k]);
		ck_assert_double_eq(key[it[k].job], (double)k);
	}
	free(it);
	_teardown();
}
END_TEST

/*
 * One storage node, two compute nodes: the second transfer waits for the
 * first.  a (node 0) needs 2 B, b (node 1) 3 B; RBW 1, reads and compute
 * free.  a: [0,2) -> 2; b: [2,5) -> 5, not 3.
 */
START_TEST(test_contention)
{
	uint32_t fa, fb;
	int32_t assign[2] = { 0, 1 };
	dl_order_item_t *it;
	size_t n;

	_mk(2, 1.0, 0, 0, 1);
	fa = _file("/c/a", 2);
	fb = _file("/c/b", 3);
	ck_assert_int_eq(_job(1, &fa, 1, -1, -1), 0);
	ck_assert_int_eq(_job(2, &fb, 1, -1, -1), 1);
	it = _order(assign, NULL, &n, NULL);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(it[0].job, 0);
	ck_assert_double_eq(it[0].end, 2.0);
	ck_assert_uint_eq(it[1].job, 1);
	ck_assert_double_eq(it[1].start, 0.0);
	ck_assert_double_eq(it[1].staged - 3.0, it[0].staged);
	ck_assert_double_eq(it[1].end, 5.0);
	free(it);
	_teardown();
}
END_TEST

/*
 * First fit fills a hole in a storage node's chart.  One storage node,
 * three compute nodes, files of 1 B, RBW 1, reads free:
 *   a on node 0 needs f1: [0,1) -> 1;
 *   b on node 1 (busy with a running job until 2) needs f2: [2,3) -> 3;
 *   d on node 2 needs f4 and computes 10: picked last; the hole [1,2)
 *   takes f4, so it is staged at 2 (a FIFO chart would say 4) -> 12.
 */
START_TEST(test_gap_fill)
{
	uint32_t f1, f2, f4;
	int32_t assign[4] = { 0, -1, 1, 2 };
	dl_order_item_t *it;
	size_t n;

	_mk(3, 1.0, 0, 0, 1);
	f1 = _file("/g/1", 1);
	f2 = _file("/g/2", 1);
	f4 = _file("/g/4", 1);
	ck_assert_int_eq(_job(1, &f1, 1, -1, -1), 0);
	ck_assert_int_eq(_job(2, NULL, 0, 2, 1), 1); /* running on node 1 */
	ck_assert_int_eq(_job(3, &f2, 1, -1, -1), 2);
	ck_assert_int_eq(_job(4, &f4, 1, 10, -1), 3);
	it = _order(assign, NULL, &n, NULL);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(it[0].job, 0);
	ck_assert_double_eq(it[0].end, 1.0);
	ck_assert_uint_eq(it[1].job, 2);
	ck_assert_double_eq(it[1].start, 2.0);
	ck_assert_double_eq(it[1].end, 3.0);
	ck_assert_uint_eq(it[2].job, 3);
	ck_assert_double_eq(it[2].staged, 2.0);
	ck_assert_double_eq(it[2].end, 12.0);
	free(it);
	_teardown();
}
END_TEST

/*
 * Files the node caches, or that a running job or an earlier job on the
 * node brings, need no transfer; the running job holds its node.
 * RBW 1, reads free, 1-byte files.  now = 10; r runs on node 0 since 8,
 * fetching f3 (1 s) and computing 5 s: 4 s left, node 0 is free at 14.
 *   s on node 1 {f1}: node 1 does not cache it: [10,11) -> 11;
 *   p on node 0 {f1 cached, f2, f3 from r}: only f2, [14,15) -> 15;
 *   q on node 0 {f2, f1}: nothing left to fetch after p: 15.
 */
START_TEST(test_cached)
{
	uint32_t f1, f2, f3, pf[3], qf[2];
	int32_t assign[4] = { -1, 0, 0, 1 };
	double key[4] = { -7, -7, -7, -7 };
	dl_order_item_t *it;
	size_t n;

	_mk(2, 1.0, 0, 0, 1);
	ts->now = 8;
	f1 = _file("/k/1", 1);
	f2 = _file("/k/2", 1);
	f3 = _file("/k/3", 1);
	ck_assert_int_eq(dl_cache_insert(tc, 0, f1, 1, NULL, NULL), 0);
	pf[0] = f1, pf[1] = f2, pf[2] = f3;
	qf[0] = f2, qf[1] = f1;
	ck_assert_int_eq(_job(1, &f3, 1, 5, 0), 0); /* running, start 8 */
	ts->now = 10;
	ck_assert_int_eq(_job(2, pf, 3, -1, -1), 1);
	ck_assert_int_eq(_job(3, qf, 2, -1, -1), 2);
	ck_assert_int_eq(_job(4, &f1, 1, -1, -1), 3);
	it = _order(assign, NULL, &n, key);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(it[0].job, 3);
	ck_assert_double_eq(it[0].start, 10.0);
	ck_assert_double_eq(it[0].end, 11.0);
	ck_assert_uint_eq(it[1].job, 1);
	ck_assert_uint_eq(it[1].transfers, 1);
	ck_assert_double_eq(it[1].start, 14.0);
	ck_assert_double_eq(it[1].end, 15.0);
	ck_assert_uint_eq(it[2].job, 2);
	ck_assert_uint_eq(it[2].transfers, 0);
	ck_assert_double_eq(it[2].start, 15.0);
	ck_assert_double_eq(it[2].end, 15.0);
	/* Ranks of ordered jobs; the running job's entry is untouched. */
	ck_assert_double_eq(key[0], -7);
	ck_assert_double_eq(key[3], 0);
	ck_assert_double_eq(key[1], 1);
	ck_assert_double_eq(key[2], 2);
	free(it);
	_teardown();
}
END_TEST

/*
 * The greedy staging can make a job's ECT drop when a job of its node
 * brings one of its files, and the job must then be re-keyed.  Two
 * storage nodes (A, Q on 0; B, P on 1), RBW 1, reads and compute free
 * unless given, all files 1 B but P (99 B).
 *   node 0: v {} computes 0.5; x {B} computes 3; y {A, B}; z {} computes 10
 *   node 1: busy until 1.5 with a running job; w {P}
 * v (0.5) goes first, then w from the other group: P takes [1.5, 100.5)
 * on storage 1.  From node 0 at 0.5, y stages A [0.5,1.5) first (a tie
 * with B, A comes first in its list) and B must then wait for 100.5:
 * ECT 101.5, so x, whose B fits [0.5,1.5), goes: 1.5 + 3 = 4.5.  B is now
 * on node 0 and y needs A only: 4.5 + 1 = 5.5, ahead of z at 14.5.
 */
START_TEST(test_shared_rekey)
{
	uint32_t fa, fb, fp, smap[3], yf[2];
	int32_t assign[6] = { 0, 0, 0, 0, -1, 1 };
	static const uint32_t want_job[] = { 0, 5, 1, 2, 3 };
	static const double want_end[] = { 0.5, 100.5, 4.5, 5.5, 15.5 };
	dl_order_item_t *it;
	size_t n, k;

	_mk(2, 1.0, 0, 0, 2);
	fa = _file("/r/A", 1);
	fb = _file("/r/B", 1);
	fp = _file("/r/P", 99);
	smap[fa] = 0;
	smap[fb] = 1;
	smap[fp] = 1;
	yf[0] = fa, yf[1] = fb;
	ck_assert_int_eq(_job(1, NULL, 0, 0.5, -1), 0); /* v */
	ck_assert_int_eq(_job(2, &fb, 1, 3, -1), 1);    /* x */
	ck_assert_int_eq(_job(3, yf, 2, -1, -1), 2);    /* y */
	ck_assert_int_eq(_job(4, NULL, 0, 10, -1), 3);  /* z */
	ck_assert_int_eq(_job(5, NULL, 0, 1.5, 1), 4);  /* running */
	ck_assert_int_eq(_job(6, &fp, 1, -1, -1), 5);   /* w */
	it = _order(assign, smap, &n, NULL);
	ck_assert_uint_eq(n, 5);
	for (k = 0; k < n; k++) {
		ck_assert_uint_eq(it[k].job, want_job[k]);
		ck_assert_double_eq_tol(it[k].end, want_end[k], TOL);
	}
	ck_assert_double_eq(it[1].start, 1.5);
	free(it);
	_teardown();
}
END_TEST

/* When only the last group has jobs left, it keeps being picked. */
START_TEST(test_one_group)
{
	uint32_t f1;
	int32_t assign[3] = { 1, 1, 1 };
	dl_order_item_t *it;
	size_t n, k;

	_mk(2, 1.0, 0, 0, 1);
	f1 = _file("/o/1", 1);
	ck_assert_int_eq(_job(3, &f1, 1, 1, -1), 0);
	ck_assert_int_eq(_job(2, &f1, 1, 1, -1), 1);
	ck_assert_int_eq(_job(1, &f1, 1, 1, -1), 2);
	it = _order(assign, NULL, &n, NULL);
	ck_assert_uint_eq(n, 3);
	/* Job 1 fetches the file (2); 2 and 3 find it there (3, 4). */
	for (k = 0; k < n; k++) {
		ck_assert_uint_eq(it[k].job, 2 - k);
		ck_assert_double_eq(it[k].end, 2.0 + (double)k);
	}
	free(it);
	_teardown();
}
END_TEST

/* A small deterministic PRNG, so the tests do not depend on libc's. */
static uint64_t _rng;

static uint32_t _rand(uint32_t n)
{
	_rng = _rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)((_rng >> 33) % n);
}

/*
 * A random instance: nn nodes, nf files of 1..8 B on nstorage storage
 * nodes, nj pending jobs of up to maxf files (maxf == 1: exactly one),
 * a few cached files and running jobs.  RBW 1, LBW 4, C 0.5: every time
 * is a multiple of 1/4, so sums are exact.
 */
static int32_t *_random(uint64_t seed, uint32_t nn, uint32_t nf, uint32_t nj,
			uint32_t maxf, uint32_t nstorage)
{
	int32_t *assign = malloc(((size_t)nj + nn) * sizeof(*assign));
	uint32_t *files = malloc(maxf * sizeof(*files)), i, k;
	char path[32];

	ck_assert_ptr_nonnull(assign);
	ck_assert_ptr_nonnull(files);
	_rng = seed;
	_mk(nn, 1.0, 4.0, 0.5, nstorage);
	for (i = 0; i < nf; i++) {
		int64_t fid;

		snprintf(path, sizeof(path), "/rand/%u", i);
		fid = dl_cache_file_intern(tc, path, 1 + _rand(8));
		ck_assert_int_eq(fid, (int64_t)i);
	}
	for (i = 0; i < nf / 10; i++)
		ck_assert_int_eq(dl_cache_insert(tc, _rand(nn), _rand(nf), 1,
						 NULL, NULL), 0);
	for (i = 0; i < nn / 2; i++) {
		int idx;

		files[0] = _rand(nf);
		idx = _job(nj + i + 1, files, 1, _rand(5), (int32_t)i);
		ck_assert_int_ge(idx, 0);
		assign[idx] = -1;
	}
	for (i = 0; i < nj; i++) {
		uint32_t m = maxf == 1 ? 1 : _rand(maxf + 1);
		int idx;

		for (k = 0; k < m; k++)
			files[k] = _rand(nf);
		idx = _job(i + 1, files, m, _rand(4) ? -1.0 : (double)_rand(3),
			   -1);
		ck_assert_int_ge(idx, 0);
		ts->jobs[idx].priority = _rand(3);
		assign[idx] = _rand(10) ? (int32_t)_rand(nn) : -1;
	}
	free(files);
	return assign;
}

START_TEST(test_deterministic)
{
	dl_order_item_t *a, *b;
	size_t na, nb;
	int32_t *assign = _random(42, 5, 40, 200, 6, 3);
	double *ka = malloc(ts->njobs * sizeof(*ka));
	double *kb = malloc(ts->njobs * sizeof(*kb));
	size_t k;

	for (k = 0; k < ts->njobs; k++)
		ka[k] = kb[k] = -1;
	a = _order(assign, NULL, &na, ka);
	b = _order(assign, NULL, &nb, kb);
	ck_assert_uint_eq(na, nb);
	for (k = 0; k < na; k++) {
		/* Field by field: the struct has padding. */
		ck_assert_uint_eq(a[k].job, b[k].job);
		ck_assert_uint_eq(a[k].node, b[k].node);
		ck_assert_uint_eq(a[k].transfers, b[k].transfers);
		ck_assert_double_eq(a[k].start, b[k].start);
		ck_assert_double_eq(a[k].staged, b[k].staged);
		ck_assert_double_eq(a[k].end, b[k].end);
	}
	for (k = 0; k < ts->njobs; k++)
		ck_assert_double_eq(ka[k], kb[k]);
	/* Each node runs its jobs back to back; keys are the positions. */
	for (k = 0; k < na; k++) {
		size_t p;

		for (p = k; p-- > 0;)
			if (a[p].node == a[k].node)
				break;
		if (p != (size_t)-1)
			ck_assert_double_eq(a[k].start, a[p].end);
		ck_assert_double_eq(ka[a[k].job], (double)k);
	}
	free(a);
	free(b);
	free(ka);
	free(kb);
	free(assign);
	_teardown();
}
END_TEST

/*
 * The lazy evaluation against a naive one that recomputes every ECT at
 * every pick, on small random instances.  dl_order.h's shortcuts assume
 * that a job's ECT never drops while its node runs nothing new and its
 * files stay the same; the greedy staging breaks that now and then, so
 * the naive run watches for such a drop, and when it sees none the two
 * orders must agree exactly (a handful of seeds in a hundred see one).
 */
#define NV_FILES 24
#define NV_NODES 4
#define NV_STORAGE 4
#define NV_JOBS 48

typedef struct {
	double s[NV_STORAGE][NV_JOBS * 8 + 1], e[NV_STORAGE][NV_JOBS * 8 + 1];
	uint32_t n[NV_STORAGE];
	double avail[NV_NODES];
	uint8_t have[NV_NODES][NV_FILES];
	const int32_t *assign;
} _naive_t;

/* First fit on an unsorted list of busy intervals. */
static double _naive_fit(const _naive_t *nv, uint32_t s, double t, double d)
{
	int moved = 1;
	uint32_t i;

	while (moved) {
		moved = 0;
		for (i = 0; i < nv->n[s]; i++)
			if (nv->s[s][i] < t + d && nv->e[s][i] > t) {
				t = nv->e[s][i];
				moved = 1;
			}
	}
	return t;
}

/* The files job k has to transfer, in list order, once each. */
static uint32_t _naive_needs(const _naive_t *nv, uint32_t k, uint32_t *out)
{
	const dl_job_t *j = &ts->jobs[k];
	uint32_t g = (uint32_t)nv->assign[k], n = 0, x, y;

	for (x = 0; x < j->nfiles; x++) {
		uint32_t f = j->files[x];
		int dup = 0;

		for (y = 0; y < n; y++)
			dup |= out[y] == f;
		if (dup || nv->have[g][f] || dl_cache_contains(tc, g, f) ||
		    dl_file_bytes(ts, f) == 0)
			continue;
		out[n++] = f;
	}
	return n;
}

/* Section 4.3's ECT, the greedy spelled out; commit reserves. */
static double _naive_ect(_naive_t *nv, uint32_t k, int commit,
			 double *staged, uint32_t *nneeds)
{
	const dl_job_t *j = &ts->jobs[k];
	uint32_t f[8], g = (uint32_t)nv->assign[k], n, x, step;
	uint8_t used[8] = { 0 };
	double t = nv->avail[g];

	n = _naive_needs(nv, k, f);
	for (step = 0; step < n; step++) {
		uint32_t best = 0, s;
		double bt = INFINITY, bs = 0;

		for (x = 0; x < n; x++) {
			double d, st;

			if (used[x])
				continue;
			d = dl_cost_transfer_time(ts, dl_file_bytes(ts, f[x]));
			st = _naive_fit(nv, dl_cost_storage_of(ts, f[x]), t, d);
			if (st + d < bt) {
				best = x;
				bt = st + d;
				bs = st;
			}
		}
		used[best] = 1;
		if (commit) {
			s = dl_cost_storage_of(ts, f[best]);
			nv->s[s][nv->n[s]] = bs;
			nv->e[s][nv->n[s]++] = bt;
			nv->have[g][f[best]] = 1;
		}
		t = bt;
	}
	*staged = t;
	*nneeds = n;
	return t + (dl_cost_read_time(ts, g, dl_job_bytes(ts, j)) +
		    dl_cost_job_compute(ts, j));
}

/* Earlier in the tie-break order of dl_order.h. */
static int _naive_before(uint32_t a, uint32_t b)
{
	const dl_job_t *x = &ts->jobs[a], *y = &ts->jobs[b];

	if (x->priority != y->priority)
		return x->priority > y->priority;
	if (x->arrival != y->arrival)
		return x->arrival < y->arrival;
	if (x->id != y->id)
		return x->id < y->id;
	return a < b;
}

/* A random instance: running jobs, cached files, priorities, sizes 0-4. */
static void _naive_instance(uint64_t seed, int32_t *assign, _naive_t *nv)
{
	uint32_t nn, nf, nj, maxf, i, x, files[8];
	char path[32];

	_rng = seed;
	nn = 1 + _rand(NV_NODES);
	nf = 4 + _rand(NV_FILES - 4);
	nj = 2 + _rand(NV_JOBS - 2);
	maxf = 1 + _rand(5);
	_mk(nn, _rand(2) ? 1.0 : 2.0, 4.0, _rand(2) ? 0.5 : 0.25,
	    1 + _rand(NV_STORAGE));
	memset(nv, 0, sizeof(*nv));
	nv->assign = assign;
	for (i = 0; i < nf; i++) {
		snprintf(path, sizeof(path), "/nv/%u", i);
		ck_assert_int_eq(dl_cache_file_intern(tc, path, _rand(5)), i);
	}
	for (i = 0; i < nf / 4; i++)
		ck_assert_int_eq(dl_cache_insert(tc, _rand(nn), _rand(nf), 1,
						 NULL, NULL), 0);
	for (i = _rand(nn + 1); i-- > 0;) {
		int idx;
		double rem;

		files[0] = _rand(nf);
		idx = _job(1000 + i, files, 1, _rand(4), (int32_t)i);
		ck_assert_int_ge(idx, 0);
		assign[idx] = -1;
		rem = dl_cost_job_remaining(ts, &ts->jobs[idx]);
		if (rem > nv->avail[i])
			nv->avail[i] = rem;
		nv->have[i][files[0]] = 1;
	}
	for (i = 0; i < nj; i++) {
		uint32_t m = _rand(maxf + 1);
		int idx;

		for (x = 0; x < m; x++)
			files[x] = _rand(nf);
		idx = _job(i + 1, files, m,
			   _rand(3) ? -1.0 : (double)_rand(3), -1);
		ck_assert_int_ge(idx, 0);
		ts->jobs[idx].arrival = _rand(5);
		ts->jobs[idx].priority = _rand(2);
		assign[idx] = _rand(8) ? (int32_t)_rand(nn) : -1;
	}
}

START_TEST(test_naive)
{
	int32_t assign[NV_JOBS + NV_NODES];
	_naive_t nv;
	double prev[NV_JOBS + NV_NODES];
	uint32_t prevn[NV_JOBS + NV_NODES], last = UINT32_MAX;
	uint8_t done[NV_JOBS + NV_NODES] = { 0 };
	dl_order_item_t *it;
	size_t n, k, i, want = 0;
	int drop = 0, agree = 1;

	_naive_instance(1000 + (uint64_t)_i, assign, &nv);
	for (i = 0; i < ts->njobs; i++) {
		prev[i] = -INFINITY;
		prevn[i] = 0;
		want += ts->jobs[i].state == DL_JOB_PENDING && assign[i] >= 0;
	}
	it = _order(assign, NULL, &n, NULL);
	ck_assert_uint_eq(n, want);
	for (k = 0; k < n && agree; k++) {
		size_t best = SIZE_MAX;
		double be = 0, bst = 0, st;
		uint32_t nneeds;
		int others = 0;

		for (i = 0; i < ts->njobs; i++)
			others |= !done[i] && assign[i] >= 0 &&
				  ts->jobs[i].state == DL_JOB_PENDING &&
				  (uint32_t)assign[i] != last;
		for (i = 0; i < ts->njobs; i++) {
			double e;

			if (done[i] || assign[i] < 0 ||
			    ts->jobs[i].state != DL_JOB_PENDING)
				continue;
			e = _naive_ect(&nv, (uint32_t)i, 0, &st, &nneeds);
			if (nneeds == prevn[i] && e < prev[i])
				drop = 1;
			prev[i] = e;
			prevn[i] = nneeds;
			if ((uint32_t)assign[i] == last && others)
				continue;
			if (best == SIZE_MAX || e < be ||
			    (e == be && _naive_before((uint32_t)i,
						      (uint32_t)best))) {
				best = i;
				be = e;
				bst = st;
			}
		}
		agree = it[k].job == best && it[k].end == be &&
			it[k].staged == bst;
		_naive_ect(&nv, (uint32_t)best, 1, &st, &nneeds);
		nv.avail[assign[best]] = be;
		done[best] = 1;
		last = (uint32_t)assign[best];
	}
	ck_assert_msg(agree || drop, "seed %d: pick %zu differs from naive",
		      _i, k - 1);
	free(it);
	_teardown();
}
END_TEST

/*
 * 10,000 pending jobs on 64 nodes, one storage node (the default): runs
 * through, orders every job once, runs each node's jobs back to back, and
 * prints nothing.
 */
START_TEST(test_large)
{
	int32_t *assign = _random(2024, 64, 20000, 10000, 8, 1);
	dl_order_item_t *it;
	uint8_t *seen = calloc(ts->njobs, 1);
	double *node_end = calloc(64, sizeof(*node_end));
	size_t n, k, want = 0;

	ck_assert_ptr_nonnull(seen);
	ck_assert_ptr_nonnull(node_end);
	for (k = 0; k < ts->njobs; k++)
		if (ts->jobs[k].state == DL_JOB_PENDING && assign[k] >= 0)
			want++;
	for (k = 0; k < ts->njobs; k++)
		if (ts->jobs[k].state == DL_JOB_RUNNING &&
		    ts->now + dl_cost_job_remaining(ts, &ts->jobs[k]) >
			    node_end[ts->jobs[k].node])
			node_end[ts->jobs[k].node] =
				ts->now +
				dl_cost_job_remaining(ts, &ts->jobs[k]);
	it = _order(assign, NULL, &n, NULL);
	ck_assert_uint_eq(n, want);
	for (k = 0; k < n; k++) {
		ck_assert(!seen[it[k].job]);
		seen[it[k].job] = 1;
		ck_assert_double_eq(it[k].start, node_end[it[k].node]);
		node_end[it[k].node] = it[k].end;
	}
	free(node_end);
	free(seen);
	free(it);
	free(assign);
	_teardown();
}
END_TEST

START_TEST(test_errors)
{
	uint32_t f1, smap[1] = { 5 };
	int32_t assign[2] = { 0, 2 };
	dl_order_item_t *it = (dl_order_item_t *)&assign, *none = NULL;
	size_t n = 77;
	double key[2] = { -3, -3 };

	_mk(2, 1.0, 0, 0, 2);
	f1 = _file("/e/1", 1);
	ck_assert_int_eq(_job(1, &f1, 1, -1, -1), 0);
	ck_assert_int_eq(_job(2, &f1, 1, -1, -1), 1);
	/* Node 2 of 2, then -2: out of range; nothing is written. */
	ck_assert_int_eq(dl_order_ect(ts, assign, &it, &n, key), DL_EINVAL);
	assign[1] = -2;
	ck_assert_int_eq(dl_order_ect(ts, assign, &it, &n, key), DL_EINVAL);
	ck_assert_ptr_eq(it, (dl_order_item_t *)&assign);
	ck_assert_uint_eq(n, 77);
	ck_assert_double_eq(key[0], -3);
	assign[1] = 1;
	/* A storage map entry beyond nstorage. */
	ck_assert_int_eq(dl_order_ect_ex(ts, assign, smap, &it, &n, key),
			 DL_EINVAL);
	ck_assert_int_eq(dl_order_ect(NULL, assign, &it, &n, key), DL_EINVAL);
	ck_assert_int_eq(dl_order_ect(ts, NULL, &it, &n, key), DL_EINVAL);
	ck_assert_int_eq(dl_order_ect(ts, assign, NULL, &n, key), DL_EINVAL);
	ck_assert_int_eq(dl_order_ect(ts, assign, &it, NULL, key), DL_EINVAL);
	ts->params.cpb = -1;
	ck_assert_int_eq(dl_order_ect(ts, assign, &it, &n, key), DL_EINVAL);
	ts->params.cpb = 0;
	/* Nothing assigned: an empty order. */
	assign[0] = assign[1] = -1;
	ck_assert_int_eq(dl_order_ect(ts, assign, &none, &n, NULL), 0);
	ck_assert_uint_eq(n, 0);
	ck_assert_ptr_null(none);
	_teardown();
}
END_TEST

Suite *make_order_suite(void)
{
	Suite *s = suite_create("order");
	TCase *tcase = tcase_create("ect");

	tcase_add_test(tcase, test_fig4);
	tcase_add_test(tcase, test_contention);
	tcase_add_test(tcase, test_gap_fill);
	tcase_add_test(tcase, test_cached);
	tcase_add_test(tcase, test_shared_rekey);
	tcase_add_test(tcase, test_one_group);
	tcase_add_test(tcase, test_deterministic);
	tcase_add_loop_test(tcase, test_naive, 0, 200);
	tcase_add_test(tcase, test_large);
	tcase_add_test(tcase, test_errors);
	suite_add_tcase(s, tcase);
	return s;
}
