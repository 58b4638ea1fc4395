/* check_hgraph.c - the hypergraph of online-hps-khanna §4.2. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_suites.h"
#include "fixture.h"
#include "dl_error.h"
#include "dl_hgraph.h"

#define MB (1ULL << 20)

#define hc fx_cache
#define hs fx_state
#define _file fx_file
#define _teardown fx_teardown

static void _setup(uint32_t n)
{
	fx_setup(n, 1, NULL, DL_EVICT_VALUE);
}

static void _job(uint32_t id, const uint32_t *f, uint32_t n,
		 dl_job_state_t state, int32_t node)
{
	dl_job_t j = { 0 };

	j.id = id;
	j.state = state;
	j.files = (uint32_t *)f;
	j.nfiles = n;
	j.node = node;
	j.compute = -1;
	ck_assert_int_ge(dl_state_add_job(hs, &j), 0);
}

/* The vertex of state job index i, or -1. */
static int _vertex_of(const dl_hgraph_t *g, uint32_t i)
{
	uint32_t v;

	for (v = 0; v < g->nvtx; v++)
		if (g->vjob[v] == i)
			return (int)v;
	return -1;
}

static int _net_has(const dl_hgraph_t *g, uint32_t net, uint32_t v)
{
	uint32_t k;

	for (k = g->xpins[net]; k < g->xpins[net + 1]; k++)
		if (g->pins[k] == v)
			return 1;
	return 0;
}

static int _net_of_file(const dl_hgraph_t *g, uint32_t file)
{
	uint32_t e;

	for (e = 0; e < g->nnets; e++)
		if (g->net_file[e] == file)
			return (int)e;
	return -1;
}

/*
 * Fig. 3 of the paper in small: node 0 runs job 1 (file a), node 1 caches
 * file b but runs nothing, node 2 is down.  Pending job 2 needs a and b,
 * pending job 3 needs c.
 */
START_TEST(test_build_shape)
{
	uint32_t a, b, c, f1[1], f2[2], f3[1];
	dl_hgraph_t *g;
	int v1, v2, v3, e;
	uint32_t v, anchors = 0;

	_setup(3);
	hs->nodes[2].usable = 0;
	a = _file("/a", 10 * MB);
	b = _file("/b", 20 * MB);
	c = _file("/c", 30 * MB);
	ck_assert_int_eq(dl_cache_insert(hc, 1, b, 1, NULL, NULL), 0);
	ck_assert_int_eq(dl_cache_insert(hc, 2, c, 1, NULL, NULL), 0);
	f1[0] = a;
	f2[0] = a;
	f2[1] = b;
	f3[0] = c;
	_job(1, f1, 1, DL_JOB_RUNNING, 0);
	_job(2, f2, 2, DL_JOB_PENDING, -1);
	_job(3, f3, 1, DL_JOB_PENDING, -1);
	ck_assert_int_eq(dl_hgraph_build(hs, &g), 0);

	ck_assert_uint_eq(g->nparts, 2); /* node 2 is down */
	ck_assert_int_eq(g->node_part[2], -1);
	v1 = _vertex_of(g, 0);
	v2 = _vertex_of(g, 1);
	v3 = _vertex_of(g, 2);
	ck_assert(v1 >= 0 && v2 >= 0 && v3 >= 0);
	ck_assert_int_eq(g->fixed[v1], g->node_part[0]);
	ck_assert_int_eq(g->fixed[v2], -1);
	ck_assert_int_eq(g->fixed[v3], -1);
	ck_assert(g->vwgt[v2] > 0);
	/* One anchor, for node 1's cached b; node 2 is down, so no anchor. */
	for (v = 0; v < g->nvtx; v++)
		if (g->vjob[v] == DL_HG_ANCHOR) {
			anchors++;
			ck_assert_int_eq(g->fixed[v], g->node_part[1]);
			ck_assert(g->vwgt[v] == 0);
		}
	ck_assert_uint_eq(anchors, 1);
	ck_assert_uint_eq(g->nvtx, 4);
	/* Nets a, b, c, each with the right pins and cost. */
	ck_assert_uint_eq(g->nnets, 3);
	e = _net_of_file(g, a);
	ck_assert_int_ge(e, 0);
	ck_assert(g->ncost[e] == 10.0 * MB);
	ck_assert(_net_has(g, e, v1) && _net_has(g, e, v2));
	ck_assert_uint_eq(g->xpins[e + 1] - g->xpins[e], 2);
	e = _net_of_file(g, b);
	ck_assert_uint_eq(g->xpins[e + 1] - g->xpins[e], 2); /* job 2, anchor */
	e = _net_of_file(g, c);
	ck_assert_uint_eq(g->xpins[e + 1] - g->xpins[e], 1);
	dl_hgraph_free(g);
	_teardown();
}
END_TEST

/* A running job's files that no pending job needs make no net. */
START_TEST(test_build_drops_idle_nets)
{
	uint32_t a, b, fa[1], fb[1];
	dl_hgraph_t *g;

	_setup(2);
	a = _file("/a", MB);
	b = _file("/b", MB);
	fa[0] = a;
	fb[0] = b;
	_job(1, fa, 1, DL_JOB_RUNNING, 0);
	_job(2, fb, 1, DL_JOB_PENDING, -1);
	ck_assert_int_eq(dl_hgraph_build(hs, &g), 0);
	ck_assert_uint_eq(g->nnets, 1);
	ck_assert_uint_eq(g->net_file[0], b);
	dl_hgraph_free(g);
	_teardown();
}
END_TEST

/* A job eligible on one node only is fixed there; on none, left out; on
 * two, free; on two of which one is down, fixed on the other. */
START_TEST(test_build_eligibility)
{
	/* Jobs 1-4: only node 1, none, nodes 0 and 2, nodes 1 and 2. */
	uint8_t elig[4][3] = {
		{ 0, 1, 0 }, { 0, 0, 0 }, { 1, 0, 1 }, { 0, 1, 1 }
	};
	dl_job_t j = { 0 };
	dl_hgraph_t *g;
	uint32_t k;

	_setup(3);
	for (k = 0; k < 4; k++) {
		j.id = k + 1;
		j.eligible = elig[k];
		ck_assert_int_ge(dl_state_add_job(hs, &j), 0);
	}
	hs->nodes[1].usable = 0;
	ck_assert_int_eq(dl_hgraph_build(hs, &g), 0);
	ck_assert_uint_eq(g->nvtx, 2); /* job 1: its only node is down */
	ck_assert_int_eq(g->fixed[0], -1);
	ck_assert_int_eq(g->fixed[1], g->node_part[2]);
	dl_hgraph_free(g);
	hs->nodes[1].usable = 1;
	ck_assert_int_eq(dl_hgraph_build(hs, &g), 0);
	ck_assert_uint_eq(g->nvtx, 3);
	ck_assert_int_eq(g->fixed[0], g->node_part[1]);
	ck_assert_int_eq(g->fixed[1], -1);
	ck_assert_int_eq(g->fixed[2], -1);
	dl_hgraph_free(g);
	_teardown();
}
END_TEST

START_TEST(test_build_no_nodes)
{
	dl_hgraph_t *g = (dl_hgraph_t *)1;

	_setup(1);
	hs->nodes[0].usable = 0;
	ck_assert_int_eq(dl_hgraph_build(hs, &g), DL_EINVAL);
	ck_assert_ptr_null(g);
	_teardown();
}
END_TEST

/* Connectivity-1 and imbalance on a hand-made graph. */
START_TEST(test_cut_imbalance)
{
	uint32_t xpins[] = { 0, 3, 5 };
	uint32_t pins[] = { 0, 1, 2, 2, 3 };
	double ncost[] = { 100, 7 };
	double vwgt[] = { 1, 1, 1, 3 };
	int32_t parts_a[] = { 0, 1, 2, 2 }, parts_b[] = { 0, 0, 0, 0 };
	dl_hgraph_t g = { 0 };

	g.nvtx = 4;
	g.vwgt = vwgt;
	g.nnets = 2;
	g.ncost = ncost;
	g.xpins = xpins;
	g.pins = pins;
	g.nparts = 3;
	/* Net 0 spans parts 0, 1, 2: 100 * 2; net 1 lies in part 2: 0. */
	ck_assert(dl_hgraph_cut(&g, parts_a) == 200.0);
	ck_assert(dl_hgraph_cut(&g, parts_b) == 0.0);
	/* Weights per part 1, 1, 4 of mean 2: imbalance 4/2 - 1 = 1. */
	ck_assert(dl_hgraph_imbalance(&g, parts_a) == 1.0);
	/* All in part 0: 6 / 2 - 1 = 2. */
	ck_assert(dl_hgraph_imbalance(&g, parts_b) == 2.0);
}
END_TEST

Suite *make_hgraph_suite(void)
{
	Suite *s = suite_create("hgraph");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_build_shape);
	tcase_add_test(tc, test_build_drops_idle_nets);
	tcase_add_test(tc, test_build_eligibility);
	tcase_add_test(tc, test_build_no_nodes);
	tcase_add_test(tc, test_cut_imbalance);
	suite_add_tcase(s, tc);
	return s;
}
