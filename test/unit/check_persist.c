/* check_persist.c - the state file: round trip, and refusal of bad files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_suites.h"
#include "dl_error.h"
#include "dl_files.h"
#include "dl_persist.h"

#define MB (1ULL << 20)

static char dir[64];
static char path[128];

static void _mkdir(void)
{
	strcpy(dir, "/tmp/dl_persist.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/state", dir);
}

static void _rmdir(void)
{
	char cmd[160];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static const char *names3[] = { "n1", "n2", "n3" };

/* A tracker with a few files on two nodes and some access history. */
static dl_cache_t *_sample(void)
{
	dl_cache_t *c = dl_cache_create(3, DL_EVICT_VALUE, 1);
	int64_t a = dl_cache_file_intern(c, "/data/a", 4 * MB);
	int64_t b = dl_cache_file_intern(c, "/data/b", 64 * MB);

	dl_cache_file_intern(c, "/data/unknown", DL_SIZE_UNKNOWN);
	dl_cache_set_capacity(c, 1, 200 * MB);
	ck_assert_int_eq(dl_cache_insert(c, 0, a, 1, NULL, NULL), 0);
	ck_assert_int_eq(dl_cache_insert(c, 1, a, 2, NULL, NULL), 0);
	ck_assert_int_eq(dl_cache_insert(c, 1, b, 3, NULL, NULL), 0);
	ck_assert_int_eq(dl_cache_access(c, 1, b, 4), 0);
	return c;
}

START_TEST(test_roundtrip)
{
	dl_cache_t *c = _sample(), *d;
	dl_node_stats_t st[3] = { { 1, 2, 3, 4 }, { 5, 6, 7, 8 }, { 0 } };
	dl_node_stats_t back[3];
	dl_persist_t p = { .nnodes = 3, .node_names = names3, .stats = st };
	char err[128];
	int64_t a, b;

	_mkdir();
	ck_assert_int_eq(dl_persist_save(path, c, &p), 0);
	ck_assert_int_ne(access(path, R_OK), -1);
	d = dl_cache_create(3, DL_EVICT_VALUE, 1);
	memset(back, 0xff, sizeof(back));
	p.stats = back;
	ck_assert_int_eq(dl_persist_load(path, d, &p, err, sizeof(err)), 0);
	a = dl_cache_file_lookup(d, "/data/a");
	b = dl_cache_file_lookup(d, "/data/b");
	ck_assert_int_ge(a, 0);
	ck_assert_int_ge(b, 0);
	/* Only files cached somewhere are kept: the others cost nothing to
	 * forget. */
	ck_assert_int_eq(dl_cache_file_lookup(d, "/data/unknown"), DL_ENOENT);
	ck_assert_uint_eq(dl_cache_file_size(d, b), 64 * MB);
	ck_assert_int_eq(dl_cache_contains(d, 0, a), 1);
	ck_assert_int_eq(dl_cache_contains(d, 1, a), 1);
	ck_assert_int_eq(dl_cache_contains(d, 1, b), 1);
	ck_assert_int_eq(dl_cache_contains(d, 2, a), 0);
	ck_assert_uint_eq(dl_cache_copies(d, a), 2);
	ck_assert_uint_eq(dl_cache_used(d, 1), 68 * MB);
	/* Access counts survive (the restore itself may add its own). */
	ck_assert_uint_ge(dl_cache_access_count(d, b),
			  dl_cache_access_count(c, b));
	ck_assert_uint_eq(back[1].misses, 6);
	ck_assert_uint_eq(back[0].hit_bytes, 3);
	ck_assert_uint_eq(back[2].hits, 0);
	dl_cache_destroy(c);
	dl_cache_destroy(d);
	_rmdir();
}
END_TEST

/* Nodes are matched by name; a node that is gone loses its contents. */
START_TEST(test_nodes_by_name)
{
	dl_cache_t *c = _sample(), *d;
	dl_persist_t p = { .nnodes = 3, .node_names = names3 };
	const char *renamed[] = { "n2", "other" };
	char err[128];
	int64_t a, b;

	_mkdir();
	ck_assert_int_eq(dl_persist_save(path, c, &p), 0);
	d = dl_cache_create(2, DL_EVICT_VALUE, 1);
	p.nnodes = 2;
	p.node_names = renamed;
	ck_assert_int_eq(dl_persist_load(path, d, &p, err, sizeof(err)), 0);
	a = dl_cache_file_lookup(d, "/data/a");
	b = dl_cache_file_lookup(d, "/data/b");
	/* old n2 is now index 0; old n1 is gone. */
	ck_assert_int_eq(dl_cache_contains(d, 0, a), 1);
	ck_assert_int_eq(dl_cache_contains(d, 0, b), 1);
	ck_assert_int_eq(dl_cache_contains(d, 1, a), 0);
	ck_assert_uint_eq(dl_cache_copies(d, a), 1);
	dl_cache_destroy(c);
	dl_cache_destroy(d);
	_rmdir();
}
END_TEST

static void _corrupt_and_check(const char *how)
{
	dl_cache_t *c = _sample(), *d;
	dl_persist_t p = { .nnodes = 3, .node_names = names3 };
	char err[128] = "", cmd[256];
	FILE *f;

	_mkdir();
	ck_assert_int_eq(dl_persist_save(path, c, &p), 0);
	if (!strcmp(how, "flip")) {
		f = fopen(path, "r+");
		fseek(f, 40, SEEK_SET);
		fputc('#', f);
		fclose(f);
	} else if (!strcmp(how, "truncate")) {
		ck_assert_int_eq(truncate(path, 60), 0);
	} else if (!strcmp(how, "foreign")) {
		snprintf(cmd, sizeof(cmd), "cp /etc/hostname %s", path);
		ck_assert_int_eq(system(cmd), 0);
	} else if (!strcmp(how, "empty")) {
		ck_assert_int_eq(truncate(path, 0), 0);
	}
	d = dl_cache_create(3, DL_EVICT_VALUE, 1);
	ck_assert_int_eq(dl_persist_load(path, d, &p, err, sizeof(err)),
			 DL_EFORMAT);
	ck_assert(strlen(err) > 0);
	/* Nothing half-restored. */
	ck_assert_uint_eq(dl_cache_file_count(d), 0);
	dl_cache_destroy(c);
	dl_cache_destroy(d);
	_rmdir();
}

START_TEST(test_corrupt)
{
	_corrupt_and_check("flip");
	_corrupt_and_check("truncate");
	_corrupt_and_check("foreign");
	_corrupt_and_check("empty");
}
END_TEST

START_TEST(test_missing_and_atomic)
{
	dl_cache_t *c = _sample();
	dl_persist_t p = { .nnodes = 3, .node_names = names3 };
	char err[128], tmp[160];

	_mkdir();
	ck_assert_int_eq(dl_persist_load(path, c, &p, err, sizeof(err)),
			 DL_ENOENT);
	ck_assert_int_eq(dl_persist_save(path, c, &p), 0);
	ck_assert_int_eq(dl_persist_save(path, c, &p), 0);
	snprintf(tmp, sizeof(tmp), "%s.new", path);
	ck_assert_int_eq(access(tmp, F_OK), -1); /* no temporary left */
	/* An unwritable place fails cleanly and keeps the old file. */
	ck_assert_int_eq(dl_persist_save("/nonexistent/dir/state", c, &p),
			 DL_EIO);
	dl_cache_destroy(c);
	_rmdir();
}
END_TEST

START_TEST(test_crc)
{
	/* The standard check value of CRC-32. */
	ck_assert_uint_eq(dl_crc32(0, "123456789", 9), 0xCBF43926u);
	ck_assert_uint_eq(dl_crc32(dl_crc32(0, "1234", 4), "56789", 5),
			  0xCBF43926u);
}
END_TEST

Suite *make_persist_suite(void)
{
	Suite *s = suite_create("persist");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_roundtrip);
	tcase_add_test(tc, test_nodes_by_name);
	tcase_add_test(tc, test_corrupt);
	tcase_add_test(tc, test_missing_and_atomic);
	tcase_add_test(tc, test_crc);
	suite_add_tcase(s, tc);
	return s;
}
