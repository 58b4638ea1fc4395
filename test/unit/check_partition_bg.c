/*
 * check_partition_bg.c - from-scratch partitions in the background
 * (partition/partition_bg.h) and Online-HPS's use of them (background=).
 *
 * The real helper answers: $DL_PARTITIOND, or ./dl-partitiond in the
 * build directory (the partitioner's own default).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_suites.h"
#include "dl_error.h"
#include "dl_hgraph.h"
#include "dl_log.h"
#include "dl_partition.h"
#include "dl_policy.h"
#include "fixture.h"
#include "partition/partition_bg.h"

/* As check_partition.c's: a loaded 2-core host under sanitizers can take
 * tens of seconds for the helper's start and answer. */
#define HELPER_WAIT_MS 120000

static const char *_helper(void)
{
	const char *p = getenv("DL_PARTITIOND");

	return p && *p ? p : "./dl-partitiond";
}

/*
 * nodes nodes of one slot and groups x per pending jobs, ids 1000 + i,
 * job i reading its group's two files (group i % groups), so that the
 * jobs of a group are interleaved with the others in id order.
 */
static void _clusters(uint32_t nodes, uint32_t groups, uint32_t per)
{
	uint32_t files[16][2], g, i;
	char path[64];

	ck_assert_uint_le(groups, 16);
	fx_setup(nodes, 1, NULL, DL_EVICT_VALUE);
	for (g = 0; g < groups; g++)
		for (i = 0; i < 2; i++) {
			snprintf(path, sizeof(path), "/data/g%u.%u", g, i);
			files[g][i] = fx_file(path, 1ULL << 30);
		}
	for (i = 0; i < groups * per; i++)
		fx_job(1000 + i, files[i % groups], 2, DL_JOB_PENDING, -1);
}

/* A background whose helper is helper, with HELPER_WAIT_MS to answer. */
static dl__bg_t *_bg(const char *helper)
{
	dl_partition_opts_t o;
	dl__bg_t *b;

	dl_partition_opts_default(&o);
	o.helper = helper;
	o.timeout_ms = HELPER_WAIT_MS;
	ck_assert_ptr_nonnull(b = dl__bg_create(&o));
	return b;
}

static dl_hgraph_t *_graph(void)
{
	dl_hgraph_t *g = NULL;

	ck_assert_int_eq(dl_hgraph_build(fx_state, &g), 0);
	return g;
}

/*
 * Two groups of four jobs on two nodes: the helper's partition puts each
 * group on a node of its own, and that is what dl__bg_node() answers,
 * per job id, once adopted; nothing before, nothing for an unknown job,
 * nothing once forgotten.  A second start while one runs is refused (and
 * its graph freed: ASan's leak check).
 */
START_TEST(test_bg_adopt_waits)
{
	dl__bg_adopted_t a;
	dl__bg_t *b;
	int32_t n0, n1;

	_clusters(2, 2, 4);
	b = _bg(_helper());
	ck_assert_int_eq(dl__bg_adopt(b, 1, &a), 0); /* none asked for */
	ck_assert_int_eq(dl__bg_busy(b), 0);
	ck_assert_int_eq(dl__bg_start(b, _graph(), fx_state, 1.1), 0);
	ck_assert_int_eq(dl__bg_busy(b), 1);
	ck_assert_int_eq(dl__bg_start(b, _graph(), fx_state, 1.1), DL_EBUSY);
	ck_assert_int_eq(dl__bg_node(b, 1000), -1); /* not adopted yet */
	ck_assert_int_eq(dl__bg_adopt(b, 1, &a), 1);
	ck_assert_int_eq(dl__bg_busy(b), 0);
	ck_assert_uint_eq(dl__bg_runs(b), 1);
	ck_assert_uint_eq(a.jobs, 8);
	ck_assert(a.cut == 0 && a.ratio == 0);
	n0 = dl__bg_node(b, 1000);
	n1 = dl__bg_node(b, 1001);
	ck_assert(n0 >= 0 && n1 >= 0 && n0 != n1);
	for (uint32_t i = 0; i < 8; i++)
		ck_assert_int_eq(dl__bg_node(b, 1000 + i), i % 2 ? n1 : n0);
	ck_assert_int_eq(dl__bg_node(b, 999), -1);
	ck_assert_int_eq(dl__bg_node(b, 1008), -1);
	ck_assert_int_eq(dl__bg_adopt(b, 1, &a), 0); /* nothing new */
	dl__bg_forget(b);
	ck_assert_int_eq(dl__bg_node(b, 1000), -1);
	dl__bg_destroy(b);
	fx_teardown();
}
END_TEST

/*
 * Without waiting, a look before the partition is done adopts nothing,
 * and one after it adopts it; the state may change as soon as the start
 * returns (the job ids were taken then).  Destroying the object with a
 * partition running waits for it (no thread or helper left: ASan, and
 * Check's fork would report a crash).
 */
START_TEST(test_bg_adopt_polls)
{
	dl__bg_adopted_t a;
	dl__bg_t *b;
	int rc = 0;

	_clusters(2, 2, 4);
	b = _bg(_helper());
	ck_assert_int_eq(dl__bg_start(b, _graph(), fx_state, 1.1), 0);
	fx_teardown();
	for (unsigned ms = 0; ms < HELPER_WAIT_MS && rc == 0; ms += 10) {
		rc = dl__bg_adopt(b, 0, &a);
		if (!rc)
			usleep(10000);
	}
	ck_assert_int_eq(rc, 1);
	ck_assert_int_ne(dl__bg_node(b, 1000), dl__bg_node(b, 1001));
	_clusters(2, 2, 4);
	ck_assert_int_eq(dl__bg_start(b, _graph(), fx_state, 1.1), 0);
	dl__bg_destroy(b);
	fx_teardown();
}
END_TEST

static char fblog[512];

static void _fallback_log(int level, const char *msg, void *arg)
{
	(void)arg;
	if (level == DL_LOG_ERROR && strstr(msg, "background partition"))
		snprintf(fblog, sizeof(fblog), "%s", msg);
}

/* A background partition whose helper cannot start is greedy's: it is
 * finished but not adopted (said at ERROR level): refines go on from the
 * last plan, which no greedy partition beats. */
START_TEST(test_bg_fallback)
{
	dl__bg_adopted_t a;
	dl__bg_t *b;

	_clusters(2, 2, 4);
	b = _bg("/nonexistent/dl-partitiond");
	fblog[0] = '\0';
	dl_log_set(_fallback_log, NULL);
	ck_assert_int_eq(dl__bg_start(b, _graph(), fx_state, 1.1), 0);
	ck_assert_int_eq(dl__bg_adopt(b, 1, &a), 0);
	dl_log_set(NULL, NULL);
	ck_assert_uint_eq(dl__bg_runs(b), 1);
	ck_assert_int_eq(dl__bg_busy(b), 0);
	ck_assert_ptr_nonnull(strstr(fblog, "greedy fallback"));
	ck_assert_int_eq(dl__bg_node(b, 1000), -1);
	dl__bg_destroy(b);
	fx_teardown();
}
END_TEST

/* ---- Online-HPS with background= ---------------------------------------- */

static unsigned adopted, started;

/* Counts adoptions, and refines that start all 120 jobs from one. */
static void _count_adopted(int level, const char *msg, void *arg)
{
	(void)level;
	(void)arg;
	if (strstr(msg, "background partition adopted"))
		adopted++;
	if (strstr(msg, "refine of 120 pending jobs starts 120 from the "
			"background partition"))
		started++;
}

/*
 * Plans of a 120-job queue (over refine_above=100, so refined) with a
 * from-scratch partition due at every plan after the first; into
 * nodes[k][i], the node of job i at plan k; seen[k], the adoptions
 * logged by then, and by then the refines started from one in
 * seen[k + 4].
 */
static void _plans(const char *params, int32_t nodes[4][120],
		   unsigned seen[8])
{
	dl_policy_t *p;
	int err = 1;

	p = dl_policy_create("online-hps", params, &err);
	ck_assert_ptr_nonnull(p);
	adopted = started = 0;
	dl_log_set(_count_adopted, NULL);
	for (int k = 0; k < 4; k++) {
		dl_plan_t *plan = NULL;

		ck_assert_int_eq(dl_policy_plan(p, fx_state, &plan), 0);
		ck_assert_int_eq(plan->fallback, 0);
		for (uint32_t i = 0; i < 120; i++) {
			nodes[k][i] = plan->a[i].node;
			ck_assert(nodes[k][i] >= 0 && nodes[k][i] < 4);
		}
		dl_plan_free(plan);
		seen[k] = adopted;
		seen[k + 4] = started;
	}
	dl_log_set(NULL, NULL);
	dl_policy_destroy(p);
}

/*
 * background=1 with timeout_ms=0 (dl-sim's deterministic mode): the first
 * plan partitions from scratch itself (nothing to refine), the second
 * refines and starts one in the background, and every later plan adopts
 * the one the plan before it started, waiting for it, and refines from
 * it; so the plans are the same in two runs.  background=0: no adoption
 * at all.
 */
START_TEST(test_hps_background)
{
	static int32_t a[4][120], b[4][120];
	unsigned sa[8], sb[8];
	const char *bg = "order=priority,full_every=1,timeout_ms=0,"
			 "background=1";

	_clusters(4, 4, 30);
	_plans(bg, a, sa);
	ck_assert_uint_eq(sa[0], 0);
	ck_assert_uint_eq(sa[1], 0);
	ck_assert_uint_eq(sa[2], 1);
	ck_assert_uint_eq(sa[3], 2);
	ck_assert_uint_eq(sa[5], 0);
	ck_assert_uint_eq(sa[6], 1);
	ck_assert_uint_eq(sa[7], 2);
	_plans(bg, b, sb);
	ck_assert_mem_eq(a, b, sizeof(a));
	_plans("order=priority,full_every=1,timeout_ms=0,background=0", b, sb);
	ck_assert_uint_eq(sb[3], 0);
	ck_assert_uint_eq(sb[7], 0);
	ck_assert_ptr_null(dl_policy_create("online-hps", "background=2",
					    NULL));
	fx_teardown();
}
END_TEST

/*
 * The new-jobs rule, renew= and renew_gap=: 120 jobs planned, then 40
 * more arrive (a quarter of the 160 pending), then, at plan 4, 60 more
 * (27% of 220).  Each time the share passes renew=0.2 a fresh partition
 * starts in the background and the next plan adopts it: two adoptions
 * in five plans, unless renew_gap= seconds of the state's clock have not
 * passed since the first (one; a clock set back counts as passed), or
 * renew= is off or over 27% (none).
 */
START_TEST(test_hps_renew)
{
	static const struct {
		const char *params;
		double later;	/* seconds on the clock before plan 4 */
		unsigned adopted;
	} rows[] = {
		{ "renew=0.2,renew_gap=0", 0, 2 },
		{ "renew=0.2,renew_gap=1", 0, 1 },
		{ "renew=0.2,renew_gap=1", 1, 2 },
		{ "renew=0.2,renew_gap=1", -100, 2 },
		{ "renew=0", 1, 0 },
		{ "renew=0.3,renew_gap=0", 1, 0 },
	};
	uint32_t f[2];

	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		char params[256];
		dl_policy_t *p;
		int err = 1;

		snprintf(params, sizeof(params),
			 "order=priority,full_every=1000,drift=0,"
			 "timeout_ms=0,background=1,%s",
			 rows[r].params);
		_clusters(4, 4, 30);
		f[0] = fx_file("/data/new.0", 1ULL << 30);
		f[1] = fx_file("/data/new.1", 1ULL << 30);
		ck_assert_ptr_nonnull(p = dl_policy_create("online-hps",
							   params, &err));
		adopted = 0;
		dl_log_set(_count_adopted, NULL);
		for (int k = 0; k < 5; k++) {
			dl_plan_t *plan = NULL;
			uint32_t n = k == 1 ? 40 : k == 3 ? 60 : 0;

			for (uint32_t i = 0; i < n; i++)
				fx_job(2000 + 100 * k + i, f, 2,
				       DL_JOB_PENDING, -1);
			if (k == 3)
				fx_state->now += rows[r].later;
			ck_assert_int_eq(dl_policy_plan(p, fx_state, &plan),
					 0);
			ck_assert_int_eq(plan->fallback, 0);
			dl_plan_free(plan);
		}
		dl_log_set(NULL, NULL);
		ck_assert_msg(adopted == rows[r].adopted, "%s, +%.0f s: %u adopted",
			      rows[r].params, rows[r].later, adopted);
		dl_policy_destroy(p);
		fx_teardown();
	}
	ck_assert_ptr_null(dl_policy_create("online-hps", "renew=1.5", NULL));
	ck_assert_ptr_null(dl_policy_create("online-hps", "renew_gap=-1",
					    NULL));
}
END_TEST

Suite *make_partition_bg_suite(void)
{
	Suite *s = suite_create("partition_bg");
	TCase *tc = tcase_create("bg");

	tcase_add_test(tc, test_bg_adopt_waits);
	tcase_add_test(tc, test_bg_adopt_polls);
	tcase_add_test(tc, test_bg_fallback);
	tcase_add_test(tc, test_hps_background);
	tcase_add_test(tc, test_hps_renew);
	suite_add_tcase(s, tc);
	return s;
}
