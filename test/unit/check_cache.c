/*
 * check_cache.c - unit tests of the cache tracker (dl_cache.h).
 *
 * Besides hand-computed cases, a brute-force reference model replays long
 * random sequences of calls and checks every eviction, return code and
 * counter against the tracker, for every policy.
 */
#include <check.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dl_cache.h"
#include "dl_error.h"

/*
 * Check records every ck_assert*() it passes, which in fork mode costs a
 * write to a pipe: the random tests make millions of checks, so they go
 * through these, which call Check only on failure.  Each argument is
 * evaluated once.
 */
#define EXPECT(cond)                                            \
	do {                                                    \
		if (!(cond))                                    \
			ck_abort_msg("Assertion '%s' failed", #cond); \
	} while (0)
#define EXPECT_OP(T, FMT, x, OP, y)                                   \
	do {                                                          \
		T x_ = (x), y_ = (y);                                 \
		if (!(x_ OP y_))                                      \
			ck_abort_msg("Assertion '%s %s %s' failed: "  \
				     "%s == " FMT ", %s == " FMT,     \
				     #x, #OP, #y, #x, x_, #y, y_);    \
	} while (0)
#define EXPECT_INT_EQ(x, y) EXPECT_OP(intmax_t, "%jd", x, ==, y)
#define EXPECT_INT_GE(x, y) EXPECT_OP(intmax_t, "%jd", x, >=, y)
#define EXPECT_UINT_EQ(x, y) EXPECT_OP(uintmax_t, "%ju", x, ==, y)
#define EXPECT_UINT_LE(x, y) EXPECT_OP(uintmax_t, "%ju", x, <=, y)
#define EXPECT_UINT_LT(x, y) EXPECT_OP(uintmax_t, "%ju", x, <, y)
#define EXPECT_UINT_GE(x, y) EXPECT_OP(uintmax_t, "%ju", x, >=, y)
#define EXPECT_UINT_GT(x, y) EXPECT_OP(uintmax_t, "%ju", x, >, y)

/* Evictions reported through the callback, in order. */
struct evlog {
	uint32_t n;
	uint32_t node[4096];
	uint32_t file[4096];
};

static void _log_evict(uint32_t node, uint32_t file, void *arg)
{
	struct evlog *log = arg;

	EXPECT_UINT_LT(log->n, 4096);
	log->node[log->n] = node;
	log->file[log->n] = file;
	log->n++;
}

/* Intern n files named /f<i> with the given sizes; ids are 0..n-1. */
static void _files(dl_cache_t *c, const uint64_t *sizes, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		char path[32];

		snprintf(path, sizeof(path), "/f%u", i);
		EXPECT_INT_EQ(dl_cache_file_intern(c, path, sizes[i]), i);
	}
}

static uint64_t _sum_sizes(const dl_cache_t *c, uint32_t node)
{
	uint64_t sum = 0;

	for (uint32_t f = 0; f < dl_cache_file_count(c); f++)
		if (dl_cache_contains(c, node, f))
			sum += dl_cache_file_size(c, f);
	return sum;
}

/* ---------------------------------------------------------------------- */

START_TEST(test_policy_names)
{
	dl_evict_t p = DL_EVICT_LRU;
	const char *names[] = { "value", "lru",	  "lfu",
				"fifo",	 "random", "node-value" };

	for (int i = 0; i < 6; i++) {
		EXPECT_INT_EQ(dl_evict_from_name(names[i], &p), 0);
		EXPECT_INT_EQ(p, i);
		ck_assert_str_eq(dl_evict_name(p), names[i]);
	}
	EXPECT_INT_EQ(dl_evict_from_name("LRU", &p), 0);
	EXPECT_INT_EQ(p, DL_EVICT_LRU);
	EXPECT_INT_EQ(dl_evict_from_name("Value", &p), 0);
	EXPECT_INT_EQ(p, DL_EVICT_VALUE);
	p = DL_EVICT_FIFO;
	EXPECT_INT_EQ(dl_evict_from_name("mru", &p), DL_ENOPOLICY);
	EXPECT_INT_EQ(dl_evict_from_name("", &p), DL_ENOPOLICY);
	EXPECT_INT_EQ(dl_evict_from_name("lru ", &p), DL_ENOPOLICY);
	EXPECT_INT_EQ(p, DL_EVICT_FIFO);
	EXPECT_INT_EQ(dl_evict_from_name(NULL, &p), DL_EINVAL);
	EXPECT_INT_EQ(dl_evict_from_name("lru", NULL), DL_EINVAL);
	ck_assert_ptr_null(dl_evict_name((dl_evict_t)6));
	ck_assert_ptr_null(dl_evict_name((dl_evict_t)-1));
}
END_TEST

START_TEST(test_create)
{
	dl_cache_t *c;

	ck_assert_ptr_null(dl_cache_create(0, DL_EVICT_LRU, 0));
	ck_assert_ptr_null(dl_cache_create(4, (dl_evict_t)6, 0));
	c = dl_cache_create(3, DL_EVICT_LFU, 1);
	ck_assert_ptr_nonnull(c);
	EXPECT_INT_EQ(dl_cache_policy(c), DL_EVICT_LFU);
	EXPECT_UINT_EQ(dl_cache_node_count(c), 3);
	EXPECT_UINT_EQ(dl_cache_file_count(c), 0);
	for (uint32_t n = 0; n < 3; n++) {
		EXPECT_UINT_EQ(dl_cache_capacity(c, n), DL_CACHE_UNLIMITED);
		EXPECT_UINT_EQ(dl_cache_used(c, n), 0);
		EXPECT_UINT_EQ(dl_cache_node_files(c, n), 0);
	}
	EXPECT_UINT_GT(dl_cache_memory(c), 0);
	dl_cache_destroy(c);
	dl_cache_destroy(NULL);
}
END_TEST

START_TEST(test_intern)
{
	dl_cache_t *c = dl_cache_create(2, DL_EVICT_LRU, 0);
	const char *p0;
	char longpath[5000];
	char path[64];

	EXPECT_INT_EQ(dl_cache_file_intern(c, "/data/a", 100), 0);
	EXPECT_INT_EQ(dl_cache_file_intern(c, "/data/b",
					      DL_CACHE_SIZE_UNKNOWN), 1);
	EXPECT_INT_EQ(dl_cache_file_intern(c, "/data/c", 0), 2);
	/* Idempotent: same id, known size kept, unknown size filled in. */
	EXPECT_INT_EQ(dl_cache_file_intern(c, "/data/a", 100), 0);
	EXPECT_INT_EQ(dl_cache_file_intern(c, "/data/a", 999), 0);
	EXPECT_UINT_EQ(dl_cache_file_size(c, 0), 100);
	EXPECT_INT_EQ(dl_cache_file_intern(c, "/data/a",
					      DL_CACHE_SIZE_UNKNOWN), 0);
	EXPECT_UINT_EQ(dl_cache_file_size(c, 0), 100);
	EXPECT_UINT_EQ(dl_cache_file_size(c, 1), DL_CACHE_SIZE_UNKNOWN);
	EXPECT_INT_EQ(dl_cache_file_intern(c, "/data/b", 7), 1);
	EXPECT_UINT_EQ(dl_cache_file_size(c, 1), 7);
	EXPECT_UINT_EQ(dl_cache_file_count(c), 3);

	EXPECT_INT_EQ(dl_cache_file_lookup(c, "/data/b"), 1);
	EXPECT_INT_EQ(dl_cache_file_lookup(c, "/data/d"), DL_ENOENT);
	EXPECT_INT_EQ(dl_cache_file_lookup(c, "/data"), DL_ENOENT);
	EXPECT_INT_EQ(dl_cache_file_lookup(c, "/data/a/"), DL_ENOENT);
	EXPECT_INT_EQ(dl_cache_file_lookup(c, ""), DL_ENOENT);
	EXPECT_INT_EQ(dl_cache_file_lookup(c, NULL), DL_EINVAL);
	EXPECT_INT_EQ(dl_cache_file_lookup(NULL, "/data/a"), DL_EINVAL);
	ck_assert_str_eq(dl_cache_file_path(c, 2), "/data/c");
	ck_assert_ptr_null(dl_cache_file_path(c, 3));
	EXPECT_UINT_EQ(dl_cache_file_size(c, 3), DL_CACHE_SIZE_UNKNOWN);

	EXPECT_INT_EQ(dl_cache_file_intern(c, "", 1), DL_EINVAL);
	EXPECT_INT_EQ(dl_cache_file_intern(c, NULL, 1), DL_EINVAL);
	EXPECT_INT_EQ(dl_cache_file_intern(NULL, "/x", 1), DL_EINVAL);
	memset(longpath, 'x', sizeof(longpath) - 1);
	longpath[sizeof(longpath) - 1] = '\0';
	EXPECT_INT_EQ(dl_cache_file_intern(c, longpath, 1), DL_EINVAL);
	longpath[4095] = '\0'; /* 4095 bytes: the longest accepted */
	EXPECT_INT_EQ(dl_cache_file_intern(c, longpath, 1), 3);
	EXPECT_UINT_EQ(dl_cache_file_count(c), 4);

	/* Path pointers stay valid while the tables and arena grow. */
	p0 = dl_cache_file_path(c, 0);
	for (int i = 0; i < 50000; i++) {
		snprintf(path, sizeof(path), "/data/patient%06d/img.dcm", i);
		EXPECT_INT_EQ(dl_cache_file_intern(c, path, i), 4 + i);
	}
	ck_assert_ptr_eq(dl_cache_file_path(c, 0), p0);
	ck_assert_str_eq(p0, "/data/a");
	for (int i = 0; i < 50000; i += 997) {
		snprintf(path, sizeof(path), "/data/patient%06d/img.dcm", i);
		EXPECT_INT_EQ(dl_cache_file_lookup(c, path), 4 + i);
		ck_assert_str_eq(dl_cache_file_path(c, 4 + i), path);
		EXPECT_UINT_EQ(dl_cache_file_size(c, 4 + i), i);
	}
	dl_cache_destroy(c);
}
END_TEST

START_TEST(test_set_size)
{
	dl_cache_t *c = dl_cache_create(2, DL_EVICT_LRU, 0);

	EXPECT_INT_EQ(dl_cache_file_intern(c, "/a", 10), 0);
	EXPECT_INT_EQ(dl_cache_file_set_size(c, 0, 20), 0);
	EXPECT_UINT_EQ(dl_cache_file_size(c, 0), 20);
	EXPECT_INT_EQ(dl_cache_insert(c, 1, 0, 0, NULL, NULL), 0);
	EXPECT_INT_EQ(dl_cache_file_set_size(c, 0, 30), DL_EBUSY);
	EXPECT_INT_EQ(dl_cache_file_set_size(c, 0, 20), 0);
	EXPECT_UINT_EQ(dl_cache_file_size(c, 0), 20);
	EXPECT_UINT_EQ(dl_cache_used(c, 1), 20);
	EXPECT_INT_EQ(dl_cache_remove(c, 1, 0), 0);
	EXPECT_INT_EQ(dl_cache_file_set_size(c, 0, 30), 0);
	EXPECT_INT_EQ(dl_cache_file_set_size(c, 1, 30), DL_EINVAL);
	EXPECT_INT_EQ(dl_cache_file_set_size(NULL, 0, 30), DL_EINVAL);
	dl_cache_destroy(c);
}
END_TEST

START_TEST(test_insert_basic)
{
	dl_cache_t *c = dl_cache_create(3, DL_EVICT_LRU, 0);
	uint64_t sizes[] = { 10, 20, DL_CACHE_SIZE_UNKNOWN, 0 };
	uint32_t nodes[3];

	_files(c, sizes, 4);
	EXPECT_INT_EQ(dl_cache_insert(c, 0, 0, 1, NULL, NULL), 0);
	EXPECT_INT_EQ(dl_cache_insert(c, 2, 0, 2, NULL, NULL), 0);
	EXPECT_INT_EQ(dl_cache_insert(c, 0, 1, 3, NULL, NULL), 0);
	EXPECT_INT_EQ(dl_cache_insert(c, 0, 3, 3, NULL, NULL), 0);
	EXPECT(dl_cache_contains(c, 0, 0));
	EXPECT(!dl_cache_contains(c, 1, 0));
	EXPECT(dl_cache_contains(c, 2, 0));
	EXPECT(dl_cache_contains(c, 0, 3));
	EXPECT_UINT_EQ(dl_cache_used(c, 0), 30);
	EXPECT_UINT_EQ(dl_cache_used(c, 2), 10);
	EXPECT_UINT_EQ(dl_cache_node_files(c, 0), 3);
	EXPECT_UINT_EQ(dl_cache_copies(c, 0), 2);
	EXPECT_UINT_EQ(dl_cache_copies(c, 1), 1);
	EXPECT_UINT_EQ(dl_cache_holders(c, 0, nodes, 3), 2);
	EXPECT((nodes[0] == 0 && nodes[1] == 2) ||
		  (nodes[0] == 2 && nodes[1] == 0));
	EXPECT_UINT_EQ(dl_cache_holders(c, 0, nodes, 1), 2);
	EXPECT_UINT_EQ(dl_cache_holders(c, 0, NULL, 0), 2);
	EXPECT_UINT_EQ(dl_cache_holders(c, 2, nodes, 3), 0);

	/* AccessFreq: inserts (new or present) and accesses, all nodes. */
	EXPECT_UINT_EQ(dl_cache_access_count(c, 0), 2);
	EXPECT_INT_EQ(dl_cache_insert(c, 0, 0, 4, NULL, NULL), 0);
	EXPECT_INT_EQ(dl_cache_access(c, 2, 0, 5), 0);
	EXPECT_UINT_EQ(dl_cache_access_count(c, 0), 4);
	EXPECT_UINT_EQ(dl_cache_copies(c, 0), 2);
	EXPECT_UINT_EQ(dl_cache_used(c, 0), 30);
	EXPECT_INT_EQ(dl_cache_access(c, 1, 0, 5), DL_ENOENT);
	EXPECT_UINT_EQ(dl_cache_access_count(c, 0), 4);

	/* Unknown sizes and invalid ids. */
	EXPECT_INT_EQ(dl_cache_insert(c, 0, 2, 6, NULL, NULL), DL_EINVAL);
	EXPECT(!dl_cache_contains(c, 0, 2));
	EXPECT_INT_EQ(dl_cache_insert(c, 3, 0, 6, NULL, NULL), DL_EINVAL);
	EXPECT_INT_EQ(dl_cache_insert(c, 0, 4, 6, NULL, NULL), DL_EINVAL);
	EXPECT_INT_EQ(dl_cache_insert(NULL, 0, 0, 6, NULL, NULL),
			 DL_EINVAL);
	EXPECT_INT_EQ(dl_cache_access(c, 0, 9, 6), DL_EINVAL);
	EXPECT_INT_EQ(dl_cache_remove(c, 9, 0), DL_EINVAL);
	EXPECT_INT_EQ(dl_cache_pin(c, 0, 9), DL_EINVAL);
	EXPECT_INT_EQ(dl_cache_unpin(NULL, 0, 0), DL_EINVAL);
	EXPECT_INT_EQ(dl_cache_set_capacity(c, 3, 1), DL_EINVAL);
	EXPECT_INT_EQ(dl_cache_trim(c, 3, NULL, NULL), DL_EINVAL);
	EXPECT(!dl_cache_contains(c, 3, 0));
	EXPECT(!dl_cache_contains(NULL, 0, 0));
	EXPECT_UINT_EQ(dl_cache_copies(c, 4), 0);
	EXPECT_UINT_EQ(dl_cache_used(c, 3), 0);
	EXPECT_UINT_EQ(dl_cache_access_count(c, 4), 0);

	/* Remove. */
	EXPECT_INT_EQ(dl_cache_remove(c, 0, 0), 0);
	EXPECT_INT_EQ(dl_cache_remove(c, 0, 0), DL_ENOENT);
	EXPECT(!dl_cache_contains(c, 0, 0));
	EXPECT_UINT_EQ(dl_cache_copies(c, 0), 1);
	EXPECT_UINT_EQ(dl_cache_used(c, 0), 20);
	EXPECT_UINT_EQ(dl_cache_node_files(c, 0), 2);
	EXPECT_UINT_EQ(dl_cache_access_count(c, 0), 4);
	dl_cache_destroy(c);
}
END_TEST

/*
 * Eviction order of eq. 7 in online-hps-khanna:
 *   Value = AccessFreq * size / Numcopies, lowest first.
 * Node 0 has capacity 10; node 1 is unlimited.
 *   A: size 4, inserted on nodes 0 and 1, accessed once on 0
 *      -> AccessFreq 3, copies 2, Value = 3 * 4 / 2 = 6
 *   B: size 2, inserted on node 0, accessed 3 times
 *      -> AccessFreq 4, copies 1, Value = 4 * 2 / 1 = 8
 *   C: size 3, inserted on node 0 -> Value = 1 * 3 / 1 = 3
 * used(0) = 4 + 2 + 3 = 9.  Inserting E (size 5) needs used <= 5, so 4
 * bytes must go: C (3) first -> used 6, still > 5; then A (6) -> used 2.
 * B (8) stays.
 */
START_TEST(test_value_order)
{
	dl_cache_t *c = dl_cache_create(2, DL_EVICT_VALUE, 0);
	uint64_t sizes[] = { 4, 2, 3, 5 };
	struct evlog log = { 0 };

	_files(c, sizes, 4);
	dl_cache_set_capacity(c, 0, 10);
	EXPECT_INT_EQ(dl_cache_insert(c, 0, 0, 1, NULL, NULL), 0);
	EXPECT_INT_EQ(dl_cache_insert(c, 1, 0, 2, NULL, NULL), 0);
	EXPECT_INT_EQ(dl_cache_access(c, 0, 0, 3), 0);
	EXPECT_INT_EQ(dl_cache_insert(c, 0, 1, 4, NULL, NULL), 0);
	for (int i = 0; i < 3; i++)
		EXPECT_INT_EQ(dl_cache_access(c, 0, 1, 5 + i), 0);
	EXPECT_INT_EQ(dl_cache_insert(c, 0, 2, 9, NULL, NULL), 0);
	EXPECT_UINT_EQ(dl_cache_used(c, 0), 9);
	EXPECT_UINT_EQ(dl_cache_access_count(c, 0), 3);
	EXPECT_UINT_EQ(dl_cache_access_count(c, 1), 4);

	EXPECT_INT_EQ(dl_cache_insert(c, 0, 3, 10, _log_evict, &log), 0);
	EXPECT_UINT_EQ(log.n, 2);
	EXPECT_UINT_EQ(log.file[0], 2);
	EXPECT_UINT_EQ(log.file[1], 0);
	EXPECT_UINT_EQ(log.node[0], 0);
	EXPECT_UINT_EQ(log.node[1], 0);
	EXPECT_UINT_EQ(dl_cache_used(c, 0), 7);
	EXPECT(dl_cache_contains(c, 0, 1));
	EXPECT(dl_cache_contains(c, 0, 3));
	EXPECT(dl_cache_contains(c, 1, 0));
	EXPECT_UINT_EQ(dl_cache_copies(c, 0), 1);
	dl_cache_destroy(c);
}
END_TEST

/*
 * More copies elsewhere lower a file's Value; ties go by LRU.
 * Node 0 has capacity 10.
 *   X: size 6, inserted on node 0 at t=1 -> Value 1 * 6 / 1 = 6
 *   Y: size 4, inserted on node 0 at t=2, accessed at t=3
 *      -> Value 2 * 4 / 1 = 8
 * Inserting Z (size 1) would evict X (6 < 8).  But first X is copied to
 * nodes 1, 2 and 3 (each insert is a use): AccessFreq 4, copies 4,
 * Value = 4 * 6 / 4 = 6 still; one more access on node 2 makes it
 * 5 * 6 / 4 = 7.5 < 8: X still goes.  Then Y is copied to node 1:
 * Value(Y) = 3 * 4 / 2 = 6 < 7.5, so Y goes first and X stays.
 */
START_TEST(test_value_copies)
{
	dl_cache_t *c = dl_cache_create(4, DL_EVICT_VALUE, 0);
	uint64_t sizes[] = { 6, 4, 1 };
	struct evlog log = { 0 };

	_files(c, sizes, 3);
	dl_cache_set_capacity(c, 0, 10);
	EXPECT_INT_EQ(dl_cache_insert(c, 0, 0, 1, NULL, NULL), 0);
	EXPECT_INT_EQ(dl_cache_insert(c, 0, 1, 2, NULL, NULL), 0);
	EXPECT_INT_EQ(dl_cache_access(c, 0, 1, 3), 0);
	for (uint32_t n = 1; n < 4; n++)
		EXPECT_INT_EQ(dl_cache_insert(c, n, 0, 3 + n, NULL, NULL),
				 0);
	EXPECT_INT_EQ(dl_cache_access(c, 2, 0, 7), 0);
	EXPECT_INT_EQ(dl_cache_insert(c, 1, 1, 8, NULL, NULL), 0);
	EXPECT_UINT_EQ(dl_cache_copies(c, 0), 4);
	EXPECT_UINT_EQ(dl_cache_access_count(c, 0), 5);
	EXPECT_UINT_EQ(dl_cache_copies(c, 1), 2);
	EXPECT_UINT_EQ(dl_cache_access_count(c, 1), 3);

	EXPECT_INT_EQ(dl_cache_insert(c, 0, 2, 9, _log_evict, &log), 0);
	EXPECT_UINT_EQ(log.n, 1);
	EXPECT_UINT_EQ(log.file[0], 1);
	EXPECT(dl_cache_contains(c, 0, 0));
	EXPECT_UINT_EQ(dl_cache_used(c, 0), 7);
	dl_cache_destroy(c);

	/*
	 * Equal Values: P (size 2, 1 use) and Q (size 1, 2 uses) both have
	 * Value 2: the least recently used (in call order) goes first.
	 * First Q is inserted and used, then P is inserted: Q goes.
	 */
	c = dl_cache_create(1, DL_EVICT_VALUE, 0);
	uint64_t sizes2[] = { 2, 1, 3 };
	_files(c, sizes2, 3);
	dl_cache_set_capacity(c, 0, 5);
	EXPECT_INT_EQ(dl_cache_insert(c, 0, 1, 1, NULL, NULL), 0);
	EXPECT_INT_EQ(dl_cache_access(c, 0, 1, 4), 0);
	EXPECT_INT_EQ(dl_cache_insert(c, 0, 0, 5, NULL, NULL), 0);
	log.n = 0;
	EXPECT_INT_EQ(dl_cache_insert(c, 0, 2, 6, _log_evict, &log), 0);
	EXPECT_UINT_EQ(log.n, 1);
	EXPECT_UINT_EQ(log.file[0], 1);
	dl_cache_destroy(c);

	/*
	 * Then P is inserted, Q inserted and used: P goes, although the
	 * caller's clock says otherwise (value ignores it).
	 */
	c = dl_cache_create(1, DL_EVICT_VALUE, 0);
	_files(c, sizes2, 3);
	dl_cache_set_capacity(c, 0, 5);
	EXPECT_INT_EQ(dl_cache_insert(c, 0, 0, 9, NULL, NULL), 0);
	EXPECT_INT_EQ(dl_cache_insert(c, 0, 1, 1, NULL, NULL), 0);
	EXPECT_INT_EQ(dl_cache_access(c, 0, 1, 5), 0);
	log.n = 0;
	EXPECT_INT_EQ(dl_cache_insert(c, 0, 2, 6, _log_evict, &log), 0);
	EXPECT_UINT_EQ(log.n, 1);
	EXPECT_UINT_EQ(log.file[0], 0);
	dl_cache_destroy(c);
}
END_TEST

/*
 * node-value against value on the same calls.  Node 0 (room for 2 of
 * size 1) holds f (used once there) and g (used twice there); node 1
 * holds f and uses it 4 times more.  value: f has Value 6 * 1 / 2 = 3,
 * g 2 * 1 / 1 = 2, so g goes; node-value sees node 0's uses only (f 1,
 * g 2) and no copies, so f goes, its last copy there or not.  Sizes
 * weigh in: a file of size 3 used once (3) outlives one of size 1 used
 * twice (2).
 */
START_TEST(test_node_value)
{
	uint64_t sizes[] = { 1, 1, 1 }, sizes2[] = { 3, 1, 1 };
	dl_evict_t pol[] = { DL_EVICT_VALUE, DL_EVICT_NODE_VALUE };
	uint32_t want[] = { 1, 0 };
	struct evlog log;

	for (int k = 0; k < 2; k++) {
		dl_cache_t *c = dl_cache_create(2, pol[k], 0);

		_files(c, sizes, 3);
		dl_cache_set_capacity(c, 0, 2);
		EXPECT_INT_EQ(dl_cache_insert(c, 0, 0, 1, NULL, NULL), 0);
		EXPECT_INT_EQ(dl_cache_insert(c, 0, 1, 2, NULL, NULL), 0);
		EXPECT_INT_EQ(dl_cache_access(c, 0, 1, 3), 0);
		EXPECT_INT_EQ(dl_cache_insert(c, 1, 0, 4, NULL, NULL), 0);
		for (int i = 0; i < 4; i++)
			EXPECT_INT_EQ(dl_cache_access(c, 1, 0, 5), 0);
		memset(&log, 0, sizeof(log));
		EXPECT_INT_EQ(dl_cache_insert(c, 0, 2, 6, _log_evict, &log), 0);
		EXPECT_UINT_EQ(log.n, 1);
		EXPECT_UINT_EQ(log.file[0], want[k]);
		dl_cache_destroy(c);
	}
	dl_cache_t *c = dl_cache_create(1, DL_EVICT_NODE_VALUE, 0);

	_files(c, sizes2, 3);
	dl_cache_set_capacity(c, 0, 4);
	EXPECT_INT_EQ(dl_cache_insert(c, 0, 0, 1, NULL, NULL), 0);
	EXPECT_INT_EQ(dl_cache_insert(c, 0, 1, 2, NULL, NULL), 0);
	EXPECT_INT_EQ(dl_cache_access(c, 0, 1, 3), 0);
	memset(&log, 0, sizeof(log));
	EXPECT_INT_EQ(dl_cache_insert(c, 0, 2, 4, _log_evict, &log), 0);
	EXPECT_UINT_EQ(log.n, 1);
	EXPECT_UINT_EQ(log.file[0], 1);
	dl_cache_destroy(c);
}
END_TEST

/* Fill one node of capacity 4 with files 0..3 (size 1), apply a few
 * accesses, insert file 4 and return the victim. */
static uint32_t _victim_after(dl_evict_t policy, const uint32_t *acc,
			      const uint64_t *when, int nacc)
{
	dl_cache_t *c = dl_cache_create(1, policy, 0);
	uint64_t sizes[] = { 1, 1, 1, 1, 1 };
	struct evlog log = { 0 };

	_files(c, sizes, 5);
	dl_cache_set_capacity(c, 0, 4);
	for (uint32_t f = 0; f < 4; f++)
		EXPECT_INT_EQ(dl_cache_insert(c, 0, f, 10 + f, NULL, NULL),
				 0);
	for (int i = 0; i < nacc; i++)
		EXPECT_INT_EQ(dl_cache_access(c, 0, acc[i], when[i]), 0);
	EXPECT_INT_EQ(dl_cache_insert(c, 0, 4, 100, _log_evict, &log), 0);
	EXPECT_UINT_EQ(log.n, 1);
	EXPECT_UINT_EQ(dl_cache_used(c, 0), 4);
	dl_cache_destroy(c);
	return log.file[0];
}

START_TEST(test_lru_lfu_fifo)
{
	/* Inserted at t = 10..13; then 0 at t=20, 1 at t=21, 0 at t=22. */
	uint32_t acc[] = { 0, 1, 0 };
	uint64_t when[] = { 20, 21, 22 };
	/* Same, but 2 is used at an earlier clock value than its insertion. */
	uint32_t acc2[] = { 0, 1, 3, 2 };
	uint64_t when2[] = { 20, 21, 22, 5 };
	/* Uses with all 5 accesses: 0:3, 1:2, 2:2, 3:2: 1, 2 and 3 tie and
	 * the least recent (1, at t=21) goes; with the first 4, 3 has 1. */
	uint32_t acc3[] = { 0, 0, 1, 2, 3, 0 };
	uint64_t when3[] = { 20, 21, 21, 22, 23, 24 };

	EXPECT_UINT_EQ(_victim_after(DL_EVICT_LRU, acc, when, 3), 2);
	EXPECT_UINT_EQ(_victim_after(DL_EVICT_LRU, acc, when, 0), 0);
	EXPECT_UINT_EQ(_victim_after(DL_EVICT_LRU, acc2, when2, 4), 2);
	EXPECT_UINT_EQ(_victim_after(DL_EVICT_FIFO, acc, when, 3), 0);
	EXPECT_UINT_EQ(_victim_after(DL_EVICT_FIFO, acc2, when2, 4), 0);
	EXPECT_UINT_EQ(_victim_after(DL_EVICT_LFU, acc, when, 3), 2);
	EXPECT_UINT_EQ(_victim_after(DL_EVICT_LFU, acc3, when3, 5), 1);
	EXPECT_UINT_EQ(_victim_after(DL_EVICT_LFU, acc3, when3, 4), 3);
	/* Equal clocks: call order decides (1 then 0 at t=20: 1 goes). */
	uint32_t acc4[] = { 1, 0, 2, 3 };
	uint64_t when4[] = { 20, 20, 20, 20 };
	EXPECT_UINT_EQ(_victim_after(DL_EVICT_LRU, acc4, when4, 4), 1);
	/* Value with equal sizes and copies: like lfu (0 has 2 uses). */
	uint32_t acc5[] = { 1, 2, 3 };
	uint64_t when5[] = { 1, 1, 1 };
	EXPECT_UINT_EQ(_victim_after(DL_EVICT_VALUE, acc5, when5, 3), 0);
}
END_TEST

START_TEST(test_random_seed)
{
	uint32_t seq[3][400];
	uint64_t seeds[3] = { 42, 42, 43 };

	for (int r = 0; r < 3; r++) {
		dl_cache_t *c = dl_cache_create(2, DL_EVICT_RANDOM, seeds[r]);
		struct evlog log = { 0 };

		for (int f = 0; f < 500; f++) {
			char path[16];

			snprintf(path, sizeof(path), "/r%d", f);
			dl_cache_file_intern(c, path, 1 + f % 3);
		}
		dl_cache_set_capacity(c, 0, 50);
		for (uint32_t f = 0; f < 500 && log.n < 400; f++) {
			EXPECT_INT_EQ(dl_cache_insert(c, 0, f, f, _log_evict,
							 &log),
					 0);
			EXPECT_UINT_LE(dl_cache_used(c, 0), 50);
		}
		EXPECT_UINT_GE(log.n, 400);
		memcpy(seq[r], log.file, sizeof(seq[r]));
		dl_cache_destroy(c);
	}
	ck_assert_mem_eq(seq[0], seq[1], sizeof(seq[0]));
	EXPECT(memcmp(seq[0], seq[2], sizeof(seq[0])) != 0);
}
END_TEST

/* Snapshot of everything observable, to check "unchanged on error". */
struct snap {
	uint64_t used[4], pinned[4];
	uint32_t nfiles[4];
	bool has[4][8];
	uint32_t pins[4][8];
	uint32_t copies[8];
	uint64_t acc[8];
};

static void _snap(const dl_cache_t *c, struct snap *s)
{
	memset(s, 0, sizeof(*s));
	for (uint32_t n = 0; n < 4 && n < dl_cache_node_count(c); n++) {
		s->used[n] = dl_cache_used(c, n);
		s->pinned[n] = dl_cache_pinned(c, n);
		s->nfiles[n] = dl_cache_node_files(c, n);
		for (uint32_t f = 0; f < 8; f++) {
			s->has[n][f] = dl_cache_contains(c, n, f);
			s->pins[n][f] = dl_cache_pins(c, n, f);
		}
	}
	for (uint32_t f = 0; f < 8; f++) {
		s->copies[f] = dl_cache_copies(c, f);
		s->acc[f] = dl_cache_access_count(c, f);
	}
}

START_TEST(test_pin)
{
	dl_evict_t policy = (dl_evict_t)_i;
	dl_cache_t *c = dl_cache_create(2, policy, 7);
	uint64_t sizes[] = { 3, 3, 3, 4, 11, 2, 0, 1 };
	struct evlog log = { 0 };
	struct snap a, b;

	_files(c, sizes, 8);
	dl_cache_set_capacity(c, 0, 10);
	EXPECT_INT_EQ(dl_cache_insert(c, 0, 0, 1, NULL, NULL), 0);
	EXPECT_INT_EQ(dl_cache_insert(c, 0, 1, 2, NULL, NULL), 0);
	EXPECT_INT_EQ(dl_cache_insert(c, 0, 2, 3, NULL, NULL), 0);
	EXPECT_INT_EQ(dl_cache_pin(c, 0, 0), 0);
	EXPECT_INT_EQ(dl_cache_pin(c, 0, 0), 0);
	EXPECT_INT_EQ(dl_cache_pin(c, 0, 1), 0);
	EXPECT_UINT_EQ(dl_cache_pins(c, 0, 0), 2);
	EXPECT_UINT_EQ(dl_cache_pinned(c, 0), 6);
	EXPECT_INT_EQ(dl_cache_pin(c, 0, 3), DL_ENOENT);
	EXPECT_INT_EQ(dl_cache_unpin(c, 0, 2), DL_EINVAL);
	EXPECT_INT_EQ(dl_cache_unpin(c, 1, 2), DL_ENOENT);
	EXPECT_INT_EQ(dl_cache_remove(c, 0, 0), DL_EBUSY);
	EXPECT(dl_cache_contains(c, 0, 0));

	/* 4 bytes fit only if file 2 goes: pinned 0 and 1 stay. */
	EXPECT_INT_EQ(dl_cache_insert(c, 0, 3, 4, _log_evict, &log), 0);
	EXPECT_UINT_EQ(log.n, 1);
	EXPECT_UINT_EQ(log.file[0], 2);
	EXPECT_UINT_EQ(dl_cache_used(c, 0), 10);
	EXPECT_INT_EQ(dl_cache_pin(c, 0, 3), 0);

	/* Everything is pinned: no room, and nothing changes. */
	_snap(c, &a);
	log.n = 0;
	EXPECT_INT_EQ(dl_cache_insert(c, 0, 7, 5, _log_evict, &log),
			 DL_ENOSPC);
	EXPECT_INT_EQ(dl_cache_insert(c, 0, 5, 5, _log_evict, &log),
			 DL_ENOSPC);
	EXPECT_INT_EQ(dl_cache_insert(c, 0, 4, 5, _log_evict, &log),
			 DL_ENOSPC);
	EXPECT_INT_EQ(dl_cache_trim(c, 0, _log_evict, &log), 0);
	EXPECT_UINT_EQ(log.n, 0);
	_snap(c, &b);
	ck_assert_mem_eq(&a, &b, sizeof(a));
	/* An empty file always fits. */
	EXPECT_INT_EQ(dl_cache_insert(c, 0, 6, 5, _log_evict, &log), 0);
	EXPECT_UINT_EQ(log.n, 0);

	/* Unpinning makes a file evictable again; pins nest. */
	EXPECT_INT_EQ(dl_cache_unpin(c, 0, 0), 0);
	EXPECT_INT_EQ(dl_cache_insert(c, 0, 5, 6, _log_evict, &log),
			 DL_ENOSPC);
	EXPECT_INT_EQ(dl_cache_unpin(c, 0, 0), 0);
	EXPECT_UINT_EQ(dl_cache_pins(c, 0, 0), 0);
	EXPECT_UINT_EQ(dl_cache_pinned(c, 0), 7);
	EXPECT_INT_EQ(dl_cache_insert(c, 0, 5, 7, _log_evict, &log), 0);
	/* File 0 is the only unpinned file that frees bytes. */
	EXPECT(!dl_cache_contains(c, 0, 0));
	EXPECT(dl_cache_contains(c, 0, 1));
	EXPECT(dl_cache_contains(c, 0, 3));
	EXPECT(dl_cache_contains(c, 0, 5));
	EXPECT_UINT_LE(dl_cache_used(c, 0), 10);
	EXPECT_UINT_EQ(dl_cache_used(c, 0), _sum_sizes(c, 0));

	/* A file larger than the capacity never fits. */
	EXPECT_INT_EQ(dl_cache_unpin(c, 0, 1), 0);
	EXPECT_INT_EQ(dl_cache_unpin(c, 0, 3), 0);
	_snap(c, &a);
	EXPECT_INT_EQ(dl_cache_insert(c, 0, 4, 8, _log_evict, &log),
			 DL_ENOSPC);
	_snap(c, &b);
	ck_assert_mem_eq(&a, &b, sizeof(a));
	dl_cache_set_capacity(c, 1, 0);
	EXPECT_INT_EQ(dl_cache_insert(c, 1, 7, 9, NULL, NULL), DL_ENOSPC);
	EXPECT_INT_EQ(dl_cache_insert(c, 1, 6, 9, NULL, NULL), 0);
	EXPECT_UINT_EQ(dl_cache_used(c, 1), 0);
	dl_cache_destroy(c);
}
END_TEST

static int _collect(uint32_t file, void *arg)
{
	uint32_t *seen = arg;

	seen[file]++;
	return 0;
}

static int _stop_at_two(uint32_t file, void *arg)
{
	int *calls = arg;

	(void)file;
	return ++*calls == 2 ? 77 : 0;
}

START_TEST(test_evict_callback)
{
	dl_evict_t policy = (dl_evict_t)_i;
	dl_cache_t *c = dl_cache_create(3, policy, 3);
	uint64_t sizes[64];
	uint32_t rng = 12345;

	for (int i = 0; i < 64; i++)
		sizes[i] = 1 + i % 7;
	_files(c, sizes, 64);
	for (uint32_t n = 0; n < 3; n++)
		dl_cache_set_capacity(c, n, 20 + 5 * n);
	for (int step = 0; step < 3000; step++) {
		uint32_t node, file, before[64] = { 0 }, after[64] = { 0 };
		struct evlog log = { 0 };
		uint64_t used;
		int rc;

		rng = rng * 1103515245u + 12345u;
		node = (rng >> 16) % 3;
		rng = rng * 1103515245u + 12345u;
		file = (rng >> 16) % 64;
		EXPECT_INT_EQ(dl_cache_foreach(c, node, _collect, before),
				 0);
		used = dl_cache_used(c, node);
		rc = dl_cache_insert(c, node, file, step, _log_evict, &log);
		EXPECT_INT_EQ(rc, 0);
		EXPECT_INT_EQ(dl_cache_foreach(c, node, _collect, after),
				 0);
		/* before - evicted + inserted == after, exactly. */
		for (uint32_t i = 0; i < log.n; i++) {
			EXPECT_UINT_EQ(log.node[i], node);
			EXPECT_UINT_EQ(before[log.file[i]], 1);
			before[log.file[i]] = 0;
			used -= sizes[log.file[i]];
		}
		if (!before[file])
			used += sizes[file];
		before[file] = 1;
		ck_assert_mem_eq(before, after, sizeof(before));
		EXPECT_UINT_EQ(dl_cache_used(c, node), used);
		EXPECT_UINT_LE(used, dl_cache_capacity(c, node));
	}
	{
		int calls = 0;

		EXPECT_UINT_GE(dl_cache_node_files(c, 0), 2);
		EXPECT_INT_EQ(dl_cache_foreach(c, 0, _stop_at_two, &calls),
				 77);
		EXPECT_INT_EQ(calls, 2);
		EXPECT_INT_EQ(dl_cache_foreach(c, 0, NULL, NULL),
				 DL_EINVAL);
		EXPECT_INT_EQ(dl_cache_foreach(c, 3, _stop_at_two, &calls),
				 DL_EINVAL);
	}
	dl_cache_destroy(c);
}
END_TEST

START_TEST(test_shrink_capacity)
{
	dl_evict_t policy = (dl_evict_t)_i;
	dl_cache_t *c = dl_cache_create(1, policy, 1);
	uint64_t sizes[] = { 4, 4, 4, 4, 4, 1 };
	struct evlog log = { 0 };
	struct snap a, b;

	_files(c, sizes, 6);
	dl_cache_set_capacity(c, 0, 20);
	for (uint32_t f = 0; f < 5; f++)
		EXPECT_INT_EQ(dl_cache_insert(c, 0, f, f, NULL, NULL), 0);
	EXPECT_UINT_EQ(dl_cache_used(c, 0), 20);

	/* Allowed below used: nothing moves until the next insert. */
	EXPECT_INT_EQ(dl_cache_set_capacity(c, 0, 9), 0);
	EXPECT_UINT_EQ(dl_cache_capacity(c, 0), 9);
	EXPECT_UINT_EQ(dl_cache_used(c, 0), 20);
	EXPECT_UINT_EQ(dl_cache_node_files(c, 0), 5);
	/* An access to a cached file evicts nothing either. */
	EXPECT_INT_EQ(dl_cache_insert(c, 0, 2, 9, _log_evict, &log), 0);
	EXPECT_UINT_EQ(log.n, 0);
	/* Inserting 1 byte evicts down to used <= 8: 3 files go. */
	EXPECT_INT_EQ(dl_cache_insert(c, 0, 5, 10, _log_evict, &log), 0);
	EXPECT_UINT_EQ(log.n, 3);
	EXPECT_UINT_EQ(dl_cache_used(c, 0), 9);

	/* trim(): pinned bytes above the capacity -> ENOSPC, unchanged. */
	EXPECT_INT_EQ(dl_cache_set_capacity(c, 0, 3), 0);
	for (uint32_t f = 0; f < 5; f++)
		if (dl_cache_contains(c, 0, f))
			EXPECT_INT_EQ(dl_cache_pin(c, 0, f), 0);
	_snap(c, &a);
	log.n = 0;
	EXPECT_INT_EQ(dl_cache_trim(c, 0, _log_evict, &log), DL_ENOSPC);
	EXPECT_UINT_EQ(log.n, 0);
	_snap(c, &b);
	ck_assert_mem_eq(&a, &b, sizeof(a));
	EXPECT_INT_EQ(dl_cache_set_capacity(c, 0, 8), 0);
	EXPECT_INT_EQ(dl_cache_trim(c, 0, _log_evict, &log), 0);
	EXPECT_UINT_EQ(log.n, 1);
	EXPECT_UINT_EQ(log.file[0], 5);
	EXPECT_UINT_EQ(dl_cache_used(c, 0), 8);
	EXPECT_INT_EQ(dl_cache_trim(c, 0, _log_evict, &log), 0);
	EXPECT_UINT_EQ(log.n, 1);
	dl_cache_destroy(c);
}
END_TEST

START_TEST(test_bytes_cached)
{
	dl_cache_t *c = dl_cache_create(2, DL_EVICT_VALUE, 0);
	uint64_t sizes[] = { 10, 20, 30, 40 };
	uint32_t list[] = { 0, 2, 3, 99, 2 };

	_files(c, sizes, 4);
	dl_cache_insert(c, 1, 0, 0, NULL, NULL);
	dl_cache_insert(c, 1, 2, 0, NULL, NULL);
	dl_cache_insert(c, 0, 3, 0, NULL, NULL);
	EXPECT_UINT_EQ(dl_cache_bytes_cached(c, 1, list, 3), 40);
	EXPECT_UINT_EQ(dl_cache_bytes_cached(c, 1, list, 5), 70);
	EXPECT_UINT_EQ(dl_cache_bytes_cached(c, 0, list, 5), 40);
	EXPECT_UINT_EQ(dl_cache_bytes_cached(c, 0, NULL, 0), 0);
	EXPECT_UINT_EQ(dl_cache_bytes_cached(c, 0, NULL, 2), 0);
	EXPECT_UINT_EQ(dl_cache_bytes_cached(c, 2, list, 3), 0);
	dl_cache_destroy(c);
}
END_TEST

/* ---------------------------------------------------------------------- */
/* Brute-force reference model                                            */

#define RN 5  /* nodes */
#define RF 40 /* files */

struct ref {
	dl_evict_t policy;
	uint64_t cap[RN], used[RN], pinned[RN];
	bool has[RN][RF];
	uint64_t t[RN][RF], seq[RN][RF], cnt[RN][RF];
	uint32_t pins[RN][RF];
	uint64_t size[RF], acc[RF];
	uint32_t copies[RF];
	uint64_t clock;
};

/* Whether (n, a) goes before (n, b): the policy's order, exactly. */
static bool _ref_before(const struct ref *r, int n, int a, int b)
{
	if (r->policy == DL_EVICT_VALUE) {
		/* acc * size / copies, cross-multiplied (small numbers). */
		uint64_t va = r->acc[a] * r->size[a] * r->copies[b];
		uint64_t vb = r->acc[b] * r->size[b] * r->copies[a];

		if (va != vb)
			return va < vb;
	}
	if (r->policy == DL_EVICT_NODE_VALUE &&
	    r->cnt[n][a] * r->size[a] != r->cnt[n][b] * r->size[b])
		return r->cnt[n][a] * r->size[a] < r->cnt[n][b] * r->size[b];
	if (r->policy == DL_EVICT_LFU && r->cnt[n][a] != r->cnt[n][b])
		return r->cnt[n][a] < r->cnt[n][b];
	/* lru, fifo: the caller's clock first; value, node-value, lfu:
	 * call order. */
	if ((r->policy == DL_EVICT_LRU || r->policy == DL_EVICT_FIFO) &&
	    r->t[n][a] != r->t[n][b])
		return r->t[n][a] < r->t[n][b];
	return r->seq[n][a] < r->seq[n][b];
}

static void _ref_drop(struct ref *r, int n, int f)
{
	r->has[n][f] = false;
	r->used[n] -= r->size[f];
	r->copies[f]--;
}

static void _ref_touch(struct ref *r, int n, int f, uint64_t now)
{
	r->acc[f]++;
	r->clock++;
	if (r->policy == DL_EVICT_FIFO)
		return;
	r->t[n][f] = now;
	r->seq[n][f] = r->clock;
	r->cnt[n][f]++;
}

/*
 * The model's eviction: until used + size fits, drop the first unpinned
 * file in policy order and check it is the one the tracker logged.  For
 * random the victims cannot be predicted: they are taken from the log and
 * checked to be legal instead.
 */
static void _ref_evict(struct ref *r, int n, uint64_t size,
		       const struct evlog *log)
{
	uint32_t k = 0;

	while (r->used[n] + size > r->cap[n]) {
		int v = -1;

		EXPECT_UINT_LT(k, log->n);
		if (r->policy == DL_EVICT_RANDOM) {
			v = (int)log->file[k];
			EXPECT(r->has[n][v] && !r->pins[n][v]);
		} else {
			for (int g = 0; g < RF; g++)
				if (r->has[n][g] && !r->pins[n][g] &&
				    (v < 0 || _ref_before(r, n, g, v)))
					v = g;
			EXPECT_INT_GE(v, 0);
		}
		EXPECT_UINT_EQ(log->file[k], (uint32_t)v);
		EXPECT_UINT_EQ(log->node[k], (uint32_t)n);
		k++;
		_ref_drop(r, n, v);
	}
	EXPECT_UINT_EQ(k, log->n);
}

static int _ref_insert(struct ref *r, int n, int f, uint64_t now,
		       const struct evlog *log)
{
	if (r->has[n][f]) {
		_ref_touch(r, n, f, now);
		return 0;
	}
	if (r->pinned[n] + r->size[f] > r->cap[n])
		return DL_ENOSPC;
	_ref_evict(r, n, r->size[f], log);
	r->has[n][f] = true;
	r->used[n] += r->size[f];
	r->copies[f]++;
	r->acc[f]++;
	r->clock++;
	r->t[n][f] = now;
	r->seq[n][f] = r->clock;
	r->cnt[n][f] = 1;
	r->pins[n][f] = 0;
	return 0;
}

static void _ref_check(const struct ref *r, const dl_cache_t *c)
{
	for (int n = 0; n < RN; n++) {
		uint32_t count = 0;

		EXPECT_UINT_EQ(dl_cache_used(c, n), r->used[n]);
		EXPECT_UINT_EQ(dl_cache_pinned(c, n), r->pinned[n]);
		for (int f = 0; f < RF; f++) {
			EXPECT_INT_EQ(dl_cache_contains(c, n, f),
					 r->has[n][f]);
			EXPECT_UINT_EQ(dl_cache_pins(c, n, f),
					  r->has[n][f] ? r->pins[n][f] : 0);
			count += r->has[n][f];
		}
		EXPECT_UINT_EQ(dl_cache_node_files(c, n), count);
	}
	for (int f = 0; f < RF; f++) {
		uint32_t nodes[RN], got;
		bool seen[RN] = { false };

		EXPECT_UINT_EQ(dl_cache_copies(c, f), r->copies[f]);
		EXPECT_UINT_EQ(dl_cache_access_count(c, f), r->acc[f]);
		got = dl_cache_holders(c, f, nodes, RN);
		EXPECT_UINT_EQ(got, r->copies[f]);
		for (uint32_t i = 0; i < got; i++) {
			EXPECT_UINT_LT(nodes[i], RN);
			EXPECT(!seen[nodes[i]]);
			seen[nodes[i]] = true;
			EXPECT(r->has[nodes[i]][f]);
		}
	}
}

START_TEST(test_reference_model)
{
	dl_evict_t policy = (dl_evict_t)_i;
	uint64_t rng = 0x1234567ULL + (uint64_t)_i;

	for (int round = 0; round < 8; round++) {
		dl_cache_t *c = dl_cache_create(RN, policy, round);
		struct ref *r = calloc(1, sizeof(*r));

		r->policy = policy;
#define RND(m) ((rng = rng * 6364136223846793005ULL + 1442695040888963407ULL), \
		(uint32_t)((rng >> 33) % (m)))
		for (int f = 0; f < RF; f++) {
			char path[16];

			/* Some empty files, mostly small ones. */
			r->size[f] = RND(8) == 0 ? 0 : 1 + RND(round < 4 ? 6 : 3);
			snprintf(path, sizeof(path), "/m%d", f);
			EXPECT_INT_EQ(dl_cache_file_intern(c, path,
							      r->size[f]),
					 f);
		}
		for (int n = 0; n < RN; n++) {
			r->cap[n] = 4 + RND(16);
			dl_cache_set_capacity(c, n, r->cap[n]);
		}
		for (int step = 0; step < 4000; step++) {
			uint32_t op = RND(100);
			int n = (int)RND(RN);
			/* Skewed popularity, so some files get many copies. */
			int f = (int)(RND(2) ? RND(8) : RND(RF));
			/* A coarse clock with ties and some steps back. */
			uint64_t now = step / 4 + RND(3);
			struct evlog log = { 0 };
			int rc, want;

			if (op < 50) {
				bool had = r->has[n][f];

				rc = dl_cache_insert(c, n, f, now, _log_evict,
						     &log);
				want = _ref_insert(r, n, f, now, &log);
				EXPECT_INT_EQ(rc, want);
				/* The invariant (an access evicts nothing). */
				if (!rc && !had)
					EXPECT_UINT_LE(r->used[n], r->cap[n]);
			} else if (op < 70) {
				rc = dl_cache_access(c, n, f, now);
				want = r->has[n][f] ? 0 : DL_ENOENT;
				if (!want)
					_ref_touch(r, n, f, now);
				EXPECT_INT_EQ(rc, want);
			} else if (op < 80) {
				rc = dl_cache_pin(c, n, f);
				want = r->has[n][f] ? 0 : DL_ENOENT;
				if (!want && r->pins[n][f]++ == 0)
					r->pinned[n] += r->size[f];
				EXPECT_INT_EQ(rc, want);
			} else if (op < 92) {
				rc = dl_cache_unpin(c, n, f);
				want = !r->has[n][f]    ? DL_ENOENT
				       : !r->pins[n][f] ? DL_EINVAL
							: 0;
				if (!want && --r->pins[n][f] == 0)
					r->pinned[n] -= r->size[f];
				EXPECT_INT_EQ(rc, want);
			} else if (op < 96) {
				rc = dl_cache_remove(c, n, f);
				want = !r->has[n][f]   ? DL_ENOENT
				       : r->pins[n][f] ? DL_EBUSY
						       : 0;
				if (!want)
					_ref_drop(r, n, f);
				EXPECT_INT_EQ(rc, want);
			} else if (op < 98) {
				r->cap[n] = 2 + RND(20);
				EXPECT_INT_EQ(dl_cache_set_capacity(
							 c, n, r->cap[n]),
						 0);
			} else {
				rc = dl_cache_trim(c, n, _log_evict, &log);
				if (r->pinned[n] > r->cap[n]) {
					EXPECT_INT_EQ(rc, DL_ENOSPC);
					EXPECT_UINT_EQ(log.n, 0);
				} else {
					EXPECT_INT_EQ(rc, 0);
					_ref_evict(r, n, 0, &log);
				}
			}
			if (step % 16 == 0)
				_ref_check(r, c);
		}
#undef RND
		_ref_check(r, c);
		free(r);
		dl_cache_destroy(c);
	}
}
END_TEST

/* Invariants under a long random sequence with a larger population. */
START_TEST(test_random_invariants)
{
	dl_evict_t policy = (dl_evict_t)_i;
	const uint32_t nn = 16, nf = 2000;
	dl_cache_t *c = dl_cache_create(nn, policy, 99);
	uint64_t rng = 77;
	uint32_t *nodes = malloc(nn * sizeof(*nodes));

#define RND(m) ((rng = rng * 6364136223846793005ULL + 1442695040888963407ULL), \
		(uint32_t)((rng >> 33) % (m)))
	for (uint32_t f = 0; f < nf; f++) {
		char path[32];

		snprintf(path, sizeof(path), "/big/%u", f);
		dl_cache_file_intern(c, path, (uint64_t)(1 + RND(100)) << 20);
	}
	for (uint32_t n = 0; n < nn; n++)
		dl_cache_set_capacity(c, n, (uint64_t)(200 + RND(800)) << 20);
	for (uint32_t step = 0; step < 60000; step++) {
		uint32_t n = RND(nn), op = RND(10);
		/* Zipf-like: low ids are much more popular. */
		uint32_t span = 1 + RND(nf);
		uint32_t f = RND(span);
		int rc;

		if (op < 7) {
			rc = dl_cache_insert(c, n, f, step, NULL, NULL);
			EXPECT(rc == 0 || rc == DL_ENOSPC);
			if (!rc)
				EXPECT_UINT_LE(dl_cache_used(c, n),
						  dl_cache_capacity(c, n));
		} else if (op < 8) {
			if (!dl_cache_pin(c, n, f) && RND(2))
				dl_cache_unpin(c, n, f);
		} else if (op < 9) {
			dl_cache_unpin(c, n, f);
		} else {
			dl_cache_remove(c, n, f);
		}
		if (step % 5000 == 0) {
			uint64_t total = 0;

			for (uint32_t m = 0; m < nn; m++) {
				EXPECT_UINT_EQ(dl_cache_used(c, m),
						  _sum_sizes(c, m));
				total += dl_cache_node_files(c, m);
			}
			for (uint32_t g = 0; g < nf; g++) {
				uint32_t k = 0, got;

				for (uint32_t m = 0; m < nn; m++)
					k += dl_cache_contains(c, m, g);
				EXPECT_UINT_EQ(dl_cache_copies(c, g), k);
				got = dl_cache_holders(c, g, nodes, nn);
				EXPECT_UINT_EQ(got, k);
				for (uint32_t i = 0; i < got; i++)
					EXPECT(dl_cache_contains(c, nodes[i],
								    g));
				total -= k;
			}
			EXPECT_UINT_EQ(total, 0);
		}
	}
#undef RND
	free(nodes);
	dl_cache_destroy(c);
}
END_TEST

START_TEST(test_memory)
{
	dl_cache_t *c = dl_cache_create(8, DL_EVICT_VALUE, 0);
	size_t m0 = dl_cache_memory(c), m1;

	for (uint32_t f = 0; f < 5000; f++) {
		char path[32];

		snprintf(path, sizeof(path), "/mem/%u", f);
		dl_cache_file_intern(c, path, 1);
		dl_cache_insert(c, f % 8, f, f, NULL, NULL);
	}
	m1 = dl_cache_memory(c);
	EXPECT_UINT_GT(m1, m0);
	/* Records, tables and one arena chunk: well under 2 MiB here. */
	EXPECT_UINT_LT(m1, (size_t)2 << 20);
	EXPECT_UINT_EQ(dl_cache_memory(NULL), 0);
	dl_cache_destroy(c);
}
END_TEST

Suite *make_cache_suite(void)
{
	Suite *s = suite_create("cache");
	TCase *tc = tcase_create("core");
	TCase *tp = tcase_create("policies");

	tcase_add_test(tc, test_policy_names);
	tcase_add_test(tc, test_create);
	tcase_add_test(tc, test_intern);
	tcase_add_test(tc, test_set_size);
	tcase_add_test(tc, test_insert_basic);
	tcase_add_test(tc, test_node_value);
	tcase_add_test(tc, test_value_order);
	tcase_add_test(tc, test_value_copies);
	tcase_add_test(tc, test_lru_lfu_fifo);
	tcase_add_test(tc, test_random_seed);
	tcase_add_test(tc, test_bytes_cached);
	tcase_add_test(tc, test_memory);
	suite_add_tcase(s, tc);

	tcase_add_loop_test(tp, test_pin, DL_EVICT_VALUE, DL_EVICT_NODE_VALUE + 1);
	tcase_add_loop_test(tp, test_evict_callback, DL_EVICT_VALUE,
			    DL_EVICT_NODE_VALUE + 1);
	tcase_add_loop_test(tp, test_shrink_capacity, DL_EVICT_VALUE,
			    DL_EVICT_NODE_VALUE + 1);
	tcase_add_loop_test(tp, test_reference_model, DL_EVICT_VALUE,
			    DL_EVICT_NODE_VALUE + 1);
	tcase_add_loop_test(tp, test_random_invariants, DL_EVICT_VALUE,
			    DL_EVICT_NODE_VALUE + 1);
	suite_add_tcase(s, tp);
	return s;
}
