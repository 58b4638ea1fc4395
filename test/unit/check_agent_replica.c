/*
 * check_agent_replica.c - replicas from a plan's copies (agent_replica.h)
 * on hand-made cases: every skip rule (held, node unusable, size unknown,
 * in force, budget), the job a copy is sent for (pending not placed on
 * the node first by priority, else running not on the node, else none),
 * one message per (node, job) naming the job's replicas in force there,
 * the per-node and per-cycle bounds, and the table (refresh at half the
 * timeout, a reconnected node's entries forgotten, a failed send
 * forgotten).
 */
#include <stdio.h>
#include <stdlib.h>

#include "check_suites.h"
#include "dl_error.h"
#include "agent_replica.h"

#define NN 3
static dl_cache_t *cache;
static pf_node_t nodes[NN];
static uint32_t f[8];           /* f[i] is /f<i>, 100 * (i + 1) bytes;
				   f[7]'s size is unknown */
static rp_table_t t;
static rp_msg_t *msgs;
static int64_t nmsgs;

static void _setup(void)
{
	char path[16];
	uint32_t i;

	cache = dl_cache_create(NN, DL_EVICT_LRU, 1);
	ck_assert_ptr_nonnull(cache);
	for (i = 0; i < 8; i++) {
		snprintf(path, sizeof(path), "/f%u", i);
		f[i] = (uint32_t)dl_cache_file_intern(
			cache, path, i == 7 ? DL_CACHE_SIZE_UNKNOWN :
					      100 * (i + 1));
	}
	for (i = 0; i < NN; i++) {
		nodes[i].usable = true;
		nodes[i].epoch = 1;
		nodes[i].budget = 10000;
	}
}

static void _teardown(void)
{
	agent_replica_msgs_free(msgs, nmsgs > 0 ? (size_t)nmsgs : 0);
	msgs = NULL;
	nmsgs = 0;
	agent_replica_table_free(&t);
	dl_cache_destroy(cache);
}

static pf_job_t _job(uint32_t id, int32_t node, bool running, uint32_t prio,
		     const uint32_t *files, uint32_t n)
{
	pf_job_t j = { .job_id = id, .node = node, .running = running,
		       .priority = prio, .files = files, .nfiles = n };

	return j;
}

static void _select(const dl_copy_t *c, size_t nc, const pf_job_t *jobs,
		    size_t nj, time_t now)
{
	agent_replica_msgs_free(msgs, nmsgs > 0 ? (size_t)nmsgs : 0);
	nmsgs = agent_replica_select(cache, c, nc, jobs, nj, nodes, NN, &t,
				     now, 100, &msgs);
	ck_assert_int_ge(nmsgs, 0);
}

static const rp_msg_t *_msg(uint32_t node, uint32_t job)
{
	int64_t i;

	for (i = 0; i < nmsgs; i++)
		if (msgs[i].node == node && msgs[i].job_id == job)
			return &msgs[i];
	return NULL;
}

START_TEST(test_rp_skip_rules)
{
	uint32_t a[] = { f[0], f[1], f[2], f[3], f[7] };
	pf_job_t jobs[] = { _job(1, 0, false, 5, a, 5) };
	dl_copy_t c[] = {
		{ f[0], 1 },    /* held by node 1 */
		{ f[1], 2 },    /* node 2 unusable */
		{ f[7], 1 },    /* size unknown */
		{ f[2], 1 },    /* made */
		{ f[3], 7 },    /* no such node */
		{ 99, 1 },      /* no such file */
	};

	ck_assert_int_eq(dl_cache_insert(cache, 1, f[0], 1, NULL, NULL), 0);
	nodes[2].usable = false;
	_select(c, 6, jobs, 1, 1000);
	ck_assert_int_eq(nmsgs, 1);
	ck_assert_uint_eq(msgs[0].node, 1);
	ck_assert_uint_eq(msgs[0].job_id, 1);
	ck_assert_uint_eq(msgs[0].nnew, 1);
	ck_assert_uint_eq(msgs[0].nfiles, 1);
	ck_assert_uint_eq(msgs[0].files[0], f[2]);
	ck_assert_uint_eq(msgs[0].bytes, 300);
	ck_assert_ptr_nonnull(agent_replica_find(&t, 1, f[2]));
	ck_assert_uint_eq(t.n, 1);
	/* In force now: not sent again. */
	_select(c, 6, jobs, 1, 1010);
	ck_assert_int_eq(nmsgs, 0);
}
END_TEST

START_TEST(test_rp_attribution)
{
	uint32_t a[] = { f[0] };
	pf_job_t jobs[] = {
		_job(1, 1, false, 50, a, 1),    /* placed on 1: not for 1 */
		_job(2, 0, false, 10, a, 1),
		_job(3, -1, false, 20, a, 1),   /* unplaced, first for 1 */
		_job(4, 2, true, 90, a, 1),     /* running */
		_job(5, 1, true, 99, a, 1),     /* running on 1 */
	};
	dl_copy_t c1 = { f[0], 1 }, c2 = { f[0], 2 };

	_select(&c1, 1, jobs, 5, 1000);
	ck_assert_int_eq(nmsgs, 1);
	ck_assert_uint_eq(msgs[0].job_id, 3);
	ck_assert_uint_eq(msgs[0].job, 2);
	/* To node 2: job 1 (placed on 1) is the first pending one. */
	_select(&c2, 1, jobs, 5, 1000);
	ck_assert_int_eq(nmsgs, 1);
	ck_assert_uint_eq(msgs[0].job_id, 1);
	agent_replica_table_free(&t);
	/* No pending job off node 1: a running one not on 1. */
	_select(&c1, 1, jobs + 3, 2, 1000);
	ck_assert_int_eq(nmsgs, 1);
	ck_assert_uint_eq(msgs[0].job_id, 4);
	agent_replica_table_free(&t);
	/* Only jobs on node 1: nobody to send it for. */
	jobs[1].node = 1;
	jobs[2].node = 1;
	_select(&c1, 1, jobs + 4, 1, 1000);
	ck_assert_int_eq(nmsgs, 0);
	_select(&c1, 1, jobs, 3, 1000);
	ck_assert_int_eq(nmsgs, 0);
	ck_assert_uint_eq(t.n, 0);
	/* Same priority: the lower job id. */
	jobs[1] = _job(8, 0, false, 7, a, 1);
	jobs[2] = _job(6, 0, false, 7, a, 1);
	_select(&c1, 1, jobs + 1, 2, 1000);
	ck_assert_int_eq(nmsgs, 1);
	ck_assert_uint_eq(msgs[0].job_id, 6);
}
END_TEST

START_TEST(test_rp_grouping)
{
	uint32_t a[] = { f[0], f[1] }, b[] = { f[2] };
	pf_job_t jobs[] = { _job(1, 0, false, 5, a, 2),
			    _job(2, 0, false, 1, b, 1) };
	dl_copy_t c[] = { { f[0], 1 }, { f[2], 1 }, { f[1], 1 },
			  { f[0], 2 }, { f[0], 1 } /* twice */ };
	const rp_msg_t *m;

	_select(c, 5, jobs, 2, 1000);
	ck_assert_int_eq(nmsgs, 3);
	m = _msg(1, 1);
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(m->nfiles, 2);
	ck_assert_uint_eq(m->nnew, 2);
	ck_assert_uint_eq(m->files[0], f[0]);
	ck_assert_uint_eq(m->files[1], f[1]);
	ck_assert_uint_eq(m->bytes, 300);
	m = _msg(1, 2);
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(m->nfiles, 1);
	ck_assert_uint_eq(m->files[0], f[2]);
	ck_assert_ptr_nonnull(_msg(2, 1));
	ck_assert_uint_eq(t.n, 4);
}
END_TEST

START_TEST(test_rp_budget)
{
	uint32_t a[] = { f[0], f[1], f[2], f[3] };
	pf_job_t jobs[] = { _job(1, 0, false, 5, a, 4) };
	dl_copy_t c[] = { { f[1], 1 }, { f[3], 1 }, { f[0], 1 } };
	dl_copy_t c2[] = { { f[2], 1 } };

	/* 200, then 400 would pass 450, then 100 fits. */
	nodes[1].budget = 450;
	_select(c, 3, jobs, 1, 1000);
	ck_assert_int_eq(nmsgs, 1);
	ck_assert_uint_eq(msgs[0].nnew, 2);
	ck_assert_uint_eq(msgs[0].files[0], f[1]);
	ck_assert_uint_eq(msgs[0].files[1], f[0]);
	ck_assert_uint_eq(msgs[0].bytes, 300);
	/* The replicas in force count: 300 + 300 > 450. */
	_select(c2, 1, jobs, 1, 1001);
	ck_assert_int_eq(nmsgs, 0);
	nodes[1].budget = 600;
	_select(c2, 1, jobs, 1, 1002);
	ck_assert_int_eq(nmsgs, 1);
	/* The job's replicas in force there are named again. */
	ck_assert_uint_eq(msgs[0].nnew, 1);
	ck_assert_uint_eq(msgs[0].nfiles, 3);
	ck_assert_uint_eq(msgs[0].files[0], f[2]);
	ck_assert_uint_eq(msgs[0].bytes, 300);
	/* A file larger than the whole budget. */
	agent_replica_table_free(&t);
	nodes[1].budget = 399;
	_select(c + 1, 1, jobs, 1, 1003);
	ck_assert_int_eq(nmsgs, 0);
}
END_TEST

START_TEST(test_rp_bounds)
{
	uint32_t a[] = { f[0], f[1], f[2], f[3], f[4], f[5] };
	pf_job_t jobs[] = { _job(1, 0, false, 5, a, 6) };
	dl_copy_t c[6], *many;
	size_t i;

	for (i = 0; i < 6; i++) {
		c[i].file = f[i];
		c[i].node = 1;
	}
	_select(c, 6, jobs, 1, 1000);
	ck_assert_int_eq(nmsgs, 1);
	ck_assert_uint_eq(msgs[0].nnew, RP_NODE_MAX);
	/* The rest next cycle, the first ones named again. */
	_select(c, 6, jobs, 1, 1001);
	ck_assert_int_eq(nmsgs, 1);
	ck_assert_uint_eq(msgs[0].nnew, 6 - RP_NODE_MAX);
	ck_assert_uint_eq(msgs[0].nfiles, 6);
	/* Only the first RP_COPIES_MAX copies of a plan are looked at. */
	agent_replica_table_free(&t);
	many = calloc(RP_COPIES_MAX + 1, sizeof(*many));
	ck_assert_ptr_nonnull(many);
	for (i = 0; i < RP_COPIES_MAX; i++)
		many[i] = c[0];
	many[RP_COPIES_MAX] = c[1];
	_select(many, RP_COPIES_MAX + 1, jobs, 1, 1000);
	ck_assert_int_eq(nmsgs, 1);
	ck_assert_uint_eq(msgs[0].nnew, 1);
	ck_assert_uint_eq(msgs[0].files[0], f[0]);
	free(many);
}
END_TEST

START_TEST(test_rp_table)
{
	uint32_t a[] = { f[0], f[1] };
	pf_job_t jobs[] = { _job(1, 0, false, 5, a, 2) };
	dl_copy_t c[] = { { f[0], 1 }, { f[1], 2 } };

	_select(c, 2, jobs, 1, 1000);
	ck_assert_int_eq(nmsgs, 2);
	/* In force until half the timeout (100 s). */
	_select(c, 2, jobs, 1, 1049);
	ck_assert_int_eq(nmsgs, 0);
	_select(c, 2, jobs, 1, 1050);
	ck_assert_int_eq(nmsgs, 2);
	/* Node 1 reconnects: its entry goes, node 2's stays. */
	nodes[1].epoch = 2;
	_select(c, 2, jobs, 1, 1051);
	ck_assert_int_eq(nmsgs, 1);
	ck_assert_uint_eq(msgs[0].node, 1);
	ck_assert_uint_eq(agent_replica_find(&t, 1, f[0])->epoch, 2);
	/* A node that goes unusable loses its entries too. */
	nodes[2].usable = false;
	_select(NULL, 0, jobs, 1, 1052);
	ck_assert_ptr_null(agent_replica_find(&t, 2, f[1]));
	ck_assert_ptr_nonnull(agent_replica_find(&t, 1, f[0]));
	/* A message not sent is forgotten: tried again. */
	agent_replica_table_free(&t);
	_select(c, 1, jobs, 1, 1100);
	ck_assert_int_eq(nmsgs, 1);
	agent_replica_forget(&t, &msgs[0]);
	ck_assert_uint_eq(t.n, 0);
	_select(c, 1, jobs, 1, 1100);
	ck_assert_int_eq(nmsgs, 1);
}
END_TEST

Suite *make_agent_replica_suite(void)
{
	Suite *s = suite_create("agent_replica");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, _setup, _teardown);
	tcase_add_test(tc, test_rp_skip_rules);
	tcase_add_test(tc, test_rp_attribution);
	tcase_add_test(tc, test_rp_grouping);
	tcase_add_test(tc, test_rp_budget);
	tcase_add_test(tc, test_rp_bounds);
	tcase_add_test(tc, test_rp_table);
	suite_add_tcase(s, tc);
	return s;
}
