/*
 * check_simquota.c - the blocked-job quota (place/quota.c) looks for each
 * blocked job's room from the first node with any left, not from node 0
 * (at 1,024 nodes dl-sim's searches from node 0 were a fifth of a paced
 * run): the same jobs over the quota as the walk from node 0, kept here
 * as the reference, on random states with jobs of 0-2 CPUs, eligibility
 * arrays and the host's fits test, and on the cases where the first node
 * with room is the job's own or too small for it.
 */
#include <stdlib.h>
#include <string.h>

#include "check_suites.h"
#include "dl_cache.h"
#include "dl_place.h"
#include "dl_state.h"

static uint64_t rng = 88172645463325252ULL;

static uint32_t _rand(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

/* The host's test: job k may also use node n when (k + n) % 5 == 0. */
static int _fits(const void *arg, const dl_state_t *st, size_t k, uint32_t n)
{
	(void)arg;
	(void)st;
	return (k + n) % 5 == 0;
}

/* quota.c's _can(), as it is. */
static int _ref_can(const dl_state_t *st, size_t k, uint32_t n,
		    dl_place_fits_fn fits)
{
	const dl_job_t *j = &st->jobs[k];
	const dl_node_t *nd = &st->nodes[n];

	if (nd->usable && nd->busy + j->cpus <= nd->cpus &&
	    dl_state_job_eligible(st, j, n))
		return 1;
	return fits && fits(NULL, st, k, n);
}

/* quota.c's _blocked(), as it is. */
static int _ref_blocked(const dl_state_t *st, size_t k, uint32_t cur,
			const dl_place_room_t *room, dl_place_fits_fn fits)
{
	uint32_t n;

	if (dl_place_blocked_free(st, &st->jobs[k], cur, room))
		return 1;
	if (!fits || fits(NULL, st, k, cur))
		return 0;
	for (n = 0; n < st->nnodes; n++)
		if (n != cur && fits(NULL, st, k, n))
			return 1;
	return 0;
}

/*
 * The quota's over[] as the walk from node 0 gave it: the blocked jobs
 * in Slurm's order, each taking its CPUs from the first node other than
 * its own with room left that it could start on.
 */
static uint8_t *_ref_over(const dl_state_t *st, const int32_t *node,
			  dl_place_fits_fn fits)
{
	uint8_t *over = calloc(st->njobs + 1, 1);
	uint32_t *rem = calloc(st->nnodes, sizeof(*rem));
	dl_place_room_t room;
	uint64_t left = 0;
	size_t *order, n, i;
	uint32_t m;

	ck_assert(over && rem);
	dl_place_room(st, &room);
	ck_assert_int_eq(dl_state_priority_order(st, &order, &n), 0);
	for (m = 0; m < st->nnodes; m++)
		if (st->nodes[m].usable && st->nodes[m].cpus > st->nodes[m].busy)
			left += rem[m] = st->nodes[m].cpus - st->nodes[m].busy;
	for (i = 0; i < n; i++) {
		size_t k = order[i];
		uint32_t cpus = st->jobs[k].cpus;
		int got = 0;

		if (node[k] < 0 ||
		    !_ref_blocked(st, k, (uint32_t)node[k], &room, fits))
			continue;
		for (m = 0; left >= cpus && !got && m < st->nnodes; m++)
			if (m != (uint32_t)node[k] && rem[m] >= cpus &&
			    _ref_can(st, k, m, fits)) {
				rem[m] -= cpus;
				left -= cpus;
				got = 1;
			}
		over[k] = !got;
	}
	free(order);
	free(rem);
	return over;
}

/* dl_place_quota() on st against the reference: the same over[]. */
static void _check(const dl_state_t *st, const int32_t *node,
		   dl_place_fits_fn fits)
{
	dl_place_room_t room;
	dl_place_quota_t q;
	uint8_t *ref = _ref_over(st, node, fits);
	size_t k;

	dl_place_room(st, &room);
	ck_assert_int_eq(dl_place_quota(st, node, &room, fits, NULL, &q), 0);
	for (k = 0; k < st->njobs; k++)
		ck_assert_msg(dl_place_quota_over(&q, k) == ref[k],
			      "job %zu: over %d, from node 0 %d", k,
			      dl_place_quota_over(&q, k), ref[k]);
	dl_place_quota_free(&q);
	free(ref);
}

static dl_state_t *_state(dl_cache_t *c, uint32_t nodes)
{
	dl_state_t *st = dl_state_create(c, NULL);
	uint32_t n;

	ck_assert_ptr_nonnull(st);
	for (n = 0; n < nodes; n++)
		ck_assert_int_ge(dl_state_add_node(st, "n", 2, 1), 0);
	return st;
}

/* A pending job of cpus CPUs (0: set after adding; the state makes 0 a
 * 1), eligible where el says (NULL: everywhere). */
static void _job(dl_state_t *st, uint32_t id, uint32_t cpus,
		 const uint8_t *el)
{
	dl_job_t j = { 0 };
	int k;

	j.id = id;
	j.state = DL_JOB_PENDING;
	j.cpus = cpus ? cpus : 1;
	j.arrival = id;
	j.node = -1;
	j.eligible = (uint8_t *)el;
	k = dl_state_add_job(st, &j);
	ck_assert_int_ge(k, 0);
	if (!cpus)
		st->jobs[k].cpus = 0;
}

START_TEST(test_quota_random)
{
	dl_cache_t *c = dl_cache_create(64, DL_EVICT_LRU, 1);
	int round;

	ck_assert_ptr_nonnull(c);
	for (round = 0; round < 300; round++) {
		uint32_t nodes = 4 + _rand(60), njobs = 1 + _rand(80), n, i;
		dl_state_t *st = _state(c, nodes);
		uint8_t *el = malloc(nodes);
		int32_t *node = malloc(njobs * sizeof(*node));

		ck_assert(el && node);
		for (n = 0; n < nodes; n++) {
			/* Mostly full: room is rare and scattered. */
			st->nodes[n].busy = _rand(4) ? 2 : _rand(2);
			st->nodes[n].usable = _rand(10) != 0;
		}
		for (i = 0; i < njobs; i++) {
			for (n = 0; n < nodes; n++)
				el[n] = _rand(3) != 0;
			_job(st, i + 1, _rand(8) ? 1 + _rand(2) : 0,
			     _rand(3) ? NULL : el);
			node[i] = _rand(6) ? (int32_t)_rand(nodes) : -1;
		}
		_check(st, node, NULL);
		_check(st, node, _fits);
		dl_state_destroy(st);
		free(el);
		free(node);
	}
	dl_cache_destroy(c);
}
END_TEST

/*
 * Nodes 0-1 full, 2 with one CPU left, 3 with two: the search starts at
 * node 2.  Job 1 (2 CPUs, restricted to full node 0) is blocked and
 * passes node 2, too small, for node 3; job 2, restricted to node 2 with
 * its free CPU, is not blocked; job 3 (1 CPU, restricted to node 0) takes
 * node 2's CPU; job 4 (0 CPUs, eligible on node 1 only) is judged as from
 * node 0.  None is over the quota.
 */
START_TEST(test_quota_cases)
{
	dl_cache_t *c = dl_cache_create(4, DL_EVICT_LRU, 1);
	dl_state_t *st;
	const uint8_t only1[4] = { 0, 1, 0, 0 };
	int32_t node[4] = { 0, 2, 0, 1 };
	uint8_t *ref;

	ck_assert_ptr_nonnull(c);
	st = _state(c, 4);
	st->nodes[0].busy = 2;
	st->nodes[1].busy = 2;
	st->nodes[2].busy = 1;
	st->nodes[3].busy = 0;
	_job(st, 1, 2, NULL);
	_job(st, 2, 1, NULL);
	_job(st, 3, 1, NULL);
	_job(st, 4, 0, only1);
	ref = _ref_over(st, node, NULL);
	ck_assert_int_eq(ref[0], 0);
	ck_assert_int_eq(ref[1], 0);
	ck_assert_int_eq(ref[2], 0);
	ck_assert_int_eq(ref[3], 0);
	_check(st, node, NULL);
	free(ref);
	dl_state_destroy(st);
	dl_cache_destroy(c);
}
END_TEST

Suite *make_simquota_suite(void)
{
	Suite *s = suite_create("simquota");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_quota_random);
	tcase_add_test(tc, test_quota_cases);
	suite_add_tcase(s, tc);
	return s;
}
