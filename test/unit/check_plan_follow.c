/*
 * check_plan_follow.c - dl__plan_follow_data(): a planned job that holds
 * nothing where it was put waits for the node caching its input when the
 * cost model says that is sooner; and Online-HPS's follow= using it.
 * dl__plan_keep() (plan_keep.h): a job keeps its last node unless the
 * placement rule would move it.  dl__plan_home() (plan_home.h): each
 * large shared file gets nodes of its own.
 *
 * Platform of every case: RBW 100 B/s, LBW 500 B/s, cpb 1e-3, one storage
 * node, files of 1000 B: a job transfers a missing file in 10 s, reads it
 * in 2 s and computes 1 s.  st->now = 0 and running jobs start at 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_suites.h"
#include "fixture.h"
#include "dl_cache.h"
#include "dl_error.h"
#include "dl_policy.h"
#include "plan/plan_follow.h"
#include "plan/plan_home.h"
#include "plan/plan_keep.h"

static void _setup(uint32_t nnodes)
{
	fx_setup_toy(nnodes, DL_EVICT_LRU);
}

/* A fresh plan of nodes, followed; \return the jobs moved. */
static size_t _run(dl_plan_t *plan, dl_assign_t *a, const int32_t *nodes,
		   size_t max_pending, uint32_t max_files)
{
	size_t moved = 99;

	fx_plan(plan, a, nodes);
	ck_assert_int_eq(dl__plan_follow_data(fx_state, plan, max_pending,
					      max_files, &moved),
			 0);
	return moved;
}

/*
 * Node 1 caches f1 and runs R (f1: read 2 + compute 1 = 3 s left).
 * Pending P reads f1 and was put on idle node 0: 10 + 3 = 13 s there,
 * 3 + 3 = 6 s behind R on node 1: it moves.  With R's compute at 100 s,
 * node 1 frees at 102: P stays on node 0.
 */
START_TEST(test_follow_moves_when_sooner)
{
	int32_t nodes[2] = { -1, 0 };
	dl_assign_t a[2];
	dl_plan_t plan;
	uint32_t f1, fa[1], r;

	_setup(2);
	f1 = fx_file("/f1", 1000);
	fa[0] = f1;
	ck_assert_int_eq(dl_cache_insert(fx_cache, 1, f1, 0, NULL, NULL), 0);
	r = fx_job(1, fa, 1, DL_JOB_RUNNING, 1);
	fx_job(2, fa, 1, DL_JOB_PENDING, -1);
	ck_assert_uint_eq(_run(&plan, a, nodes, 0, 64), 1);
	ck_assert_int_eq(a[1].node, 1);

	fx_state->jobs[r].compute = 100;
	ck_assert_uint_eq(_run(&plan, a, nodes, 0, 64), 0);
	ck_assert_int_eq(a[1].node, 0);
	fx_teardown();
}
END_TEST

/*
 * A job holding part of its input where it is stays there (f2 on node 0,
 * f1 on node 1), and so does the job after it reading f1 alone: job 2
 * brings f1 to node 0 first.  A plan of another state is refused.
 */
START_TEST(test_follow_leaves_alone)
{
	int32_t nodes[3] = { -1, 0, 0 };
	dl_assign_t a[3];
	dl_plan_t plan;
	uint32_t f1, f2, fa[1], fab[2];

	_setup(2);
	f1 = fx_file("/f1", 1000);
	f2 = fx_file("/f2", 1000);
	fa[0] = f1;
	fab[0] = f1;
	fab[1] = f2;
	ck_assert_int_eq(dl_cache_insert(fx_cache, 1, f1, 0, NULL, NULL), 0);
	ck_assert_int_eq(dl_cache_insert(fx_cache, 0, f2, 0, NULL, NULL), 0);
	fx_job(1, fa, 1, DL_JOB_RUNNING, 1);
	fx_job(2, fab, 2, DL_JOB_PENDING, -1);
	fx_job(3, fa, 1, DL_JOB_PENDING, -1);
	ck_assert_uint_eq(_run(&plan, a, nodes, 0, 64), 0);
	ck_assert_int_eq(a[1].node, 0);
	ck_assert_int_eq(a[2].node, 0);

	plan.n = 2;
	ck_assert_int_eq(dl__plan_follow_data(fx_state, &plan, 0, 64, NULL),
			 DL_EINVAL);
	fx_teardown();
}
END_TEST

/*
 * Two pending jobs read f1 (cached on busy node 1, 3 s left).  The first
 * follows it (6 s, against 13 s on idle node 0); the second would start
 * behind it at 6 and end at 9 there, still sooner than 13 on node 0: it
 * follows too.  With max_files 0 no file names a node, and with more
 * pending jobs than max_pending nothing is looked at: nothing moves.
 */
START_TEST(test_follow_queue_and_files)
{
	int32_t nodes[3] = { -1, 0, 0 };
	dl_assign_t a[3];
	dl_plan_t plan;
	uint32_t f1, fa[1];

	_setup(2);
	f1 = fx_file("/f1", 1000);
	fa[0] = f1;
	ck_assert_int_eq(dl_cache_insert(fx_cache, 1, f1, 0, NULL, NULL), 0);
	fx_job(1, fa, 1, DL_JOB_RUNNING, 1);
	fx_job(2, fa, 1, DL_JOB_PENDING, -1);
	fx_job(3, fa, 1, DL_JOB_PENDING, -1);
	ck_assert_uint_eq(_run(&plan, a, nodes, 0, 64), 2);
	ck_assert_int_eq(a[1].node, 1);
	ck_assert_int_eq(a[2].node, 1);

	ck_assert_uint_eq(_run(&plan, a, nodes, 0, 0), 0);
	ck_assert_uint_eq(_run(&plan, a, nodes, 1, 64), 0);
	ck_assert_int_eq(a[1].node, 0);
	fx_teardown();
}
END_TEST

/*
 * Online-HPS as slurmctld runs it (order=priority): four nodes, each of
 * nodes 1-3 running a job on its own cached group of three files, node 0
 * idle and empty.  A job of group 1 arrives alone.  Behind node 1's job
 * (3 x 2 + 3 = 9 s left) it ends at 18 s; on node 0 it would fetch 3
 * files (30 s) first: 39 s.  follow=1 (the default) puts it on node 1.
 */
START_TEST(test_ohps_follows_data)
{
	uint32_t g[3][3], n, k;
	dl_policy_t *p;
	dl_plan_t *plan = NULL;
	char path[32];
	int err = 1;

	_setup(4);
	for (n = 0; n < 3; n++) {
		for (k = 0; k < 3; k++) {
			snprintf(path, sizeof(path), "/g%u/f%u", n + 1, k);
			g[n][k] = fx_file(path, 1000);
			ck_assert_int_eq(dl_cache_insert(fx_cache, n + 1,
							 g[n][k], 0, NULL,
							 NULL),
					 0);
		}
		fx_job(n + 1, g[n], 3, DL_JOB_RUNNING, (int32_t)n + 1);
	}
	fx_job(10, g[0], 3, DL_JOB_PENDING, -1);
	p = dl_policy_create("online-hps", "order=priority", &err);
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(dl_policy_plan(p, fx_state, &plan), 0);
	ck_assert_int_eq(plan->fallback, 0);
	ck_assert_int_eq(plan->a[3].node, 1);
	dl_plan_free(plan);
	dl_policy_destroy(p);
	ck_assert_ptr_null(dl_policy_create("online-hps", "follow=-1", &err));
	fx_teardown();
}
END_TEST

/*
 * Pending P reads f1 and f2 (2000 B); nodes 0 and 1 cache f1, node 2
 * both.  P was on node 0.  Planned on node 1 (as much cached: no gain) it
 * goes back to node 0; planned on node 2 (1000 B more, at least 0.25 x
 * 2000) it moves, unless the hysteresis is 0.6 (1200 B needed).  A job
 * that may no longer run on its old node, one without an old node, one
 * the plan leaves without a node and a running job are left alone, and a
 * plan of another state is not touched.
 */
START_TEST(test_plan_keep)
{
	int32_t nodes[4] = { -1, 1, 1, -1 }, prev[4] = { 0, 0, -1, 0 };
	dl_place_params_t pp;
	dl_assign_t a[4];
	dl_plan_t plan;
	uint32_t f1, f2, fab[2], n, p;

	_setup(3);
	f1 = fx_file("/f1", 1000);
	f2 = fx_file("/f2", 1000);
	fab[0] = f1;
	fab[1] = f2;
	for (n = 0; n < 3; n++)
		ck_assert_int_eq(dl_cache_insert(fx_cache, n, f1, 0, NULL,
						 NULL),
				 0);
	ck_assert_int_eq(dl_cache_insert(fx_cache, 2, f2, 0, NULL, NULL), 0);
	fx_job(1, fab, 2, DL_JOB_RUNNING, 0);
	p = fx_job(2, fab, 2, DL_JOB_PENDING, -1);
	fx_job(3, fab, 2, DL_JOB_PENDING, -1);
	fx_job(4, fab, 2, DL_JOB_PENDING, -1);
	dl_place_params_default(&pp);
	fx_plan(&plan, a, nodes);
	ck_assert_uint_eq(dl__plan_keep(fx_state, &plan, prev, &pp), 1);
	ck_assert_int_eq(a[p].node, 0);
	ck_assert_int_eq(a[0].node, -1); /* running */
	ck_assert_int_eq(a[2].node, 1);  /* no old node */
	ck_assert_int_eq(a[3].node, -1); /* no node now */

	nodes[1] = 2;
	fx_plan(&plan, a, nodes);
	ck_assert_uint_eq(dl__plan_keep(fx_state, &plan, prev, &pp), 0);
	ck_assert_int_eq(a[p].node, 2);
	pp.hysteresis = 0.6;
	ck_assert_uint_eq(dl__plan_keep(fx_state, &plan, prev, &pp), 1);
	ck_assert_int_eq(a[p].node, 0);

	nodes[1] = 1;
	/* The state owns and frees it. */
	fx_state->jobs[p].eligible = malloc(3);
	ck_assert_ptr_nonnull(fx_state->jobs[p].eligible);
	memset(fx_state->jobs[p].eligible, 1, 3);
	fx_state->jobs[p].eligible[0] = 0;
	fx_plan(&plan, a, nodes);
	ck_assert_uint_eq(dl__plan_keep(fx_state, &plan, prev, &pp), 0);
	ck_assert_int_eq(a[p].node, 1);

	plan.n = 2;
	ck_assert_uint_eq(dl__plan_keep(fx_state, &plan, prev, &pp), 0);
	fx_teardown();
}
END_TEST

/*
 * dl__plan_home() (plan_home.h).  Caches of 10000 B, large = 0.125: a
 * file of 4000 B is large (1250 B and more), private files of 100 B are
 * not.  Node 0 caches A, node 1 caches B, nodes 2 and 3 nothing.  Plan:
 * J1 (B) and J2 (A) on node 0, J3 (A) on node 2, J4 (private only) on
 * node 3, J5 (A) on node 1; loads 2, 1, 1, 1.  With slack 1: J1 goes to
 * B's node 1 (load 1 < 2 + 1), J2 stays home, J3 goes to A's node 0
 * (1 < 1 + 1), J4 has no anchor, J5 leaves B's node for node 0 (2 <
 * 2 + 1).  With slack 0, J3 does not (1 < 1 fails) and homeless node 2
 * takes A; J5 then goes to node 0 (A's least loaded, the lower index of
 * the tie with node 2).
 */
static void _home_state(uint32_t *fa, uint32_t *fb, uint32_t p[5][2])
{
	uint32_t n;

	_setup(4);
	for (n = 0; n < 4; n++)
		ck_assert_int_eq(dl_cache_set_capacity(fx_cache, n, 10000), 0);
	*fa = fx_file("/A", 4000);
	*fb = fx_file("/B", 4000);
	for (n = 0; n < 5; n++) {
		char name[8];

		snprintf(name, sizeof(name), "/p%u", n + 1);
		p[n][0] = n == 0 ? *fb : *fa;
		p[n][1] = fx_file(name, 100);
	}
	ck_assert_int_eq(dl_cache_insert(fx_cache, 0, *fa, 0, NULL, NULL), 0);
	ck_assert_int_eq(dl_cache_insert(fx_cache, 1, *fb, 0, NULL, NULL), 0);
	fx_job(1, p[0], 2, DL_JOB_PENDING, -1);
	fx_job(2, p[1], 2, DL_JOB_PENDING, -1);
	fx_job(3, p[2], 2, DL_JOB_PENDING, -1);
	fx_job(4, &p[3][1], 1, DL_JOB_PENDING, -1);
	fx_job(5, p[4], 2, DL_JOB_PENDING, -1);
}

START_TEST(test_home_moves)
{
	const int32_t nodes[5] = { 0, 0, 2, 3, 1 };
	const int32_t slack1[5] = { 1, 0, 0, 3, 0 };
	const int32_t slack0[5] = { 1, 0, 2, 3, 0 };
	uint32_t fa, fb, p[5][2];
	dl_assign_t a[5];
	dl_plan_t plan;
	size_t moved = 99, i;

	_home_state(&fa, &fb, p);
	fx_plan(&plan, a, nodes);
	ck_assert_int_eq(dl__plan_home(fx_state, &plan, 0.125, 1, &moved), 0);
	ck_assert_uint_eq(moved, 3);
	for (i = 0; i < 5; i++)
		ck_assert_int_eq(a[i].node, slack1[i]);

	fx_plan(&plan, a, nodes);
	ck_assert_int_eq(dl__plan_home(fx_state, &plan, 0.125, 0, &moved), 0);
	ck_assert_uint_eq(moved, 2);
	for (i = 0; i < 5; i++)
		ck_assert_int_eq(a[i].node, slack0[i]);

	/* 4000 B is below half of a 10000-B cache: nothing is large. */
	fx_plan(&plan, a, nodes);
	ck_assert_int_eq(dl__plan_home(fx_state, &plan, 0.5, 1, &moved), 0);
	ck_assert_uint_eq(moved, 0);
	ck_assert_int_eq(dl__plan_home(fx_state, &plan, 0, 1, NULL),
			 DL_EINVAL);
	fx_teardown();
}
END_TEST

/*
 * A replica: nodes 0 (A, running R reading it), 1 (B), 2 (nothing).  J0
 * reads B, J1 and J2 read A; all three are planned on node 1 (loads 1,
 * 3, 0).  Slack 0: J0 is home; J1 goes to node 0 (1 < 3; loads 2, 2);
 * J2 would find node 0 no less loaded than node 1, whose home is B, so
 * it goes to homeless node 2, A's second node.  A file is large from
 * 1250 B (dl__plan_large_bytes()); with unlimited caches nothing is
 * evicted, no file is large and nothing moves.
 */
START_TEST(test_home_replica)
{
	const int32_t nodes[4] = { -1, 1, 1, 1 };
	uint32_t fa, fb, n;
	dl_assign_t a[4];
	dl_plan_t plan;
	size_t moved = 99;

	_setup(3);
	for (n = 0; n < 3; n++)
		ck_assert_int_eq(dl_cache_set_capacity(fx_cache, n, 10000), 0);
	fa = fx_file("/A", 4000);
	fb = fx_file("/B", 4000);
	ck_assert_int_eq(dl_cache_insert(fx_cache, 0, fa, 0, NULL, NULL), 0);
	ck_assert_int_eq(dl_cache_insert(fx_cache, 1, fb, 0, NULL, NULL), 0);
	fx_job(1, &fa, 1, DL_JOB_RUNNING, 0);
	fx_state->nodes[0].busy = 1;
	fx_job(2, &fb, 1, DL_JOB_PENDING, -1);
	fx_job(3, &fa, 1, DL_JOB_PENDING, -1);
	fx_job(4, &fa, 1, DL_JOB_PENDING, -1);
	fx_plan(&plan, a, nodes);
	ck_assert_uint_eq(dl__plan_large_bytes(fx_state, 0.125), 1250);
	ck_assert_int_eq(dl__plan_home(fx_state, &plan, 0.125, 0, &moved), 0);
	ck_assert_uint_eq(moved, 2);
	ck_assert_int_eq(a[1].node, 1);
	ck_assert_int_eq(a[2].node, 0);
	ck_assert_int_eq(a[3].node, 2);

	for (n = 0; n < 3; n++)
		ck_assert_int_eq(dl_cache_set_capacity(fx_cache, n,
						       DL_CACHE_UNLIMITED),
				 0);
	ck_assert_uint_eq(dl__plan_large_bytes(fx_state, 0.125), 0);
	fx_plan(&plan, a, nodes);
	ck_assert_int_eq(dl__plan_home(fx_state, &plan, 0.125, 0, &moved), 0);
	ck_assert_uint_eq(moved, 0);
	fx_teardown();
}
END_TEST

Suite *make_plan_follow_suite(void)
{
	Suite *s = suite_create("plan_follow");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_follow_moves_when_sooner);
	tcase_add_test(tc, test_follow_leaves_alone);
	tcase_add_test(tc, test_follow_queue_and_files);
	tcase_add_test(tc, test_ohps_follows_data);
	tcase_add_test(tc, test_plan_keep);
	tcase_add_test(tc, test_home_moves);
	tcase_add_test(tc, test_home_replica);
	suite_add_tcase(s, tc);
	return s;
}
