/* check_persist.c - the state file: round trip, and refusal of bad files. */
#include <math.h>
#include <stdint.h>
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

/* Write body and the crc line that closes it, as dl_persist_save() does. */
static void _write_state(const char *body)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fprintf(f, "%scrc %08x\n", body,
		dl_crc32(0, body, strlen(body)));
	ck_assert_int_eq(fclose(f), 0);
}

/* The text of the state file, verified; free with free(). */
static char *_text(void)
{
	char *text = NULL, err[128];

	ck_assert_int_eq(dl_persist_read(path, &text, err, sizeof(err)), 0);
	return text;
}

static const dl_sched_stats_t sched_sample = {
	.since = 1700000000,
	.cycles = 12345,
	.plans = 678,
	/* Not representable in a few decimal digits: the round trip must
	 * still be exact. */
	.plan_sec_total = 12.345678901234567,
	.plan_sec_max = 0.1,
	.plan_sec_last = 1e-7,
	.placed = 90,
	.moved = 7,
	.widened = 3,
	.started_planned = 80,
	.started_widened = 2,
	.started_unplaced = UINT64_MAX,
	.pending_placed = UINT32_MAX,
};

static void _assert_sched_eq(const dl_sched_stats_t *a,
			     const dl_sched_stats_t *b)
{
	ck_assert_int_eq(a->since, b->since);
	ck_assert_uint_eq(a->cycles, b->cycles);
	ck_assert_uint_eq(a->plans, b->plans);
	ck_assert(a->plan_sec_total == b->plan_sec_total);
	ck_assert(a->plan_sec_max == b->plan_sec_max);
	ck_assert(a->plan_sec_last == b->plan_sec_last);
	ck_assert_uint_eq(a->placed, b->placed);
	ck_assert_uint_eq(a->moved, b->moved);
	ck_assert_uint_eq(a->widened, b->widened);
	ck_assert_uint_eq(a->started_planned, b->started_planned);
	ck_assert_uint_eq(a->started_widened, b->started_widened);
	ck_assert_uint_eq(a->started_unplaced, b->started_unplaced);
	ck_assert_uint_eq(a->pending_placed, b->pending_placed);
}

START_TEST(test_sched_roundtrip)
{
	dl_cache_t *c = _sample(), *d;
	dl_sched_stats_t st = sched_sample, back;
	dl_persist_t p = { .nnodes = 3, .node_names = names3, .sched = &st };
	char err[128], *text;
	int64_t b;

	_mkdir();
	ck_assert_int_eq(dl_persist_save(path, c, &p), 0);
	text = _text();
	ck_assert(!strncmp(text, "slurm-datalocality-state 4\n", 27));
	ck_assert_ptr_nonnull(strstr(text, "\nstats 1700000000 12345 678 "));
	/* One stats line only. */
	ck_assert_ptr_null(strstr(strstr(text, "\nstats ") + 1, "\nstats "));
	free(text);
	d = dl_cache_create(3, DL_EVICT_VALUE, 1);
	memset(&back, 0xff, sizeof(back));
	p.sched = &back;
	ck_assert_int_eq(dl_persist_load(path, d, &p, err, sizeof(err)), 0);
	_assert_sched_eq(&back, &sched_sample);
	/* The tracker comes back with the counters. */
	b = dl_cache_file_lookup(d, "/data/b");
	ck_assert_int_ge(b, 0);
	ck_assert_int_eq(dl_cache_contains(d, 1, b), 1);

	/* A plan time that is not a number is saved as 0, not as a record
	 * that would make the whole file unreadable. */
	st.plan_sec_last = NAN;
	st.plan_sec_max = -1;
	p.sched = &st;
	ck_assert_int_eq(dl_persist_save(path, c, &p), 0);
	p.sched = &back;
	ck_assert_int_eq(dl_persist_load(path, d, &p, err, sizeof(err)), 0);
	ck_assert(back.plan_sec_last == 0 && back.plan_sec_max == 0);
	ck_assert(back.plan_sec_total == sched_sample.plan_sec_total);

	/* Without counters to save there is no stats line, and a load
	 * leaves the caller's counters as they were. */
	p.sched = NULL;
	ck_assert_int_eq(dl_persist_save(path, c, &p), 0);
	text = _text();
	ck_assert_ptr_null(strstr(text, "\nstats "));
	free(text);
	back = sched_sample;
	p.sched = &back;
	ck_assert_int_eq(dl_persist_load(path, d, &p, err, sizeof(err)), 0);
	_assert_sched_eq(&back, &sched_sample);
	dl_cache_destroy(c);
	dl_cache_destroy(d);
	_rmdir();
}
END_TEST

/* A file written before the stats line existed still loads. */
START_TEST(test_v1_loads)
{
	dl_cache_t *d = dl_cache_create(3, DL_EVICT_VALUE, 1);
	dl_node_stats_t st[3];
	dl_sched_stats_t sched = sched_sample;
	dl_persist_t p = { .nnodes = 3, .node_names = names3, .stats = st,
			   .sched = &sched };
	char err[128] = "";
	int64_t a;

	_mkdir();
	_write_state("slurm-datalocality-state 1\n"
		     "saved 1700000000\n"
		     "node n1 - 1 2 3 4\n"
		     "node n2 209715200 5 6 7 8\n"
		     "node n3 - 0 0 0 0\n"
		     "file 4194304 3 /data/a\n"
		     "cached n1 0\n"
		     "cached n2 0\n"
		     "plan online-hps 1700000000 0 0.000000 0.001000 1\n"
		     "job 7 n2 0 1 1 4194304 4194304\n");
	ck_assert_int_eq(dl_persist_load(path, d, &p, err, sizeof(err)), 0);
	a = dl_cache_file_lookup(d, "/data/a");
	ck_assert_int_ge(a, 0);
	ck_assert_uint_eq(dl_cache_copies(d, a), 2);
	ck_assert_uint_eq(st[1].miss_bytes, 8);
	_assert_sched_eq(&sched, &sched_sample);
	dl_cache_destroy(d);
	_rmdir();
}
END_TEST

/* Each of these makes the whole file DL_EFORMAT, and nothing is restored. */
static const char *const bad_stats[] = {
	/* too few fields, too many */
	"slurm-datalocality-state 2\nstats 1 2 3 0.5 0.5 0.5 1 2 3 4 5 6\n",
	"slurm-datalocality-state 2\nstats 1 2 3 0.5 0.5 0.5 1 2 3 4 5 6 7 8\n",
	/* a negative count, a count that is not a number */
	"slurm-datalocality-state 2\nstats 1 -2 3 0.5 0.5 0.5 1 2 3 4 5 6 7\n",
	"slurm-datalocality-state 2\nstats 1 2 x 0.5 0.5 0.5 1 2 3 4 5 6 7\n",
	/* plan times: not a number, infinite, negative, trailing junk */
	"slurm-datalocality-state 2\nstats 1 2 3 nan 0.5 0.5 1 2 3 4 5 6 7\n",
	"slurm-datalocality-state 2\nstats 1 2 3 0.5 inf 0.5 1 2 3 4 5 6 7\n",
	"slurm-datalocality-state 2\nstats 1 2 3 0.5 0.5 -1 1 2 3 4 5 6 7\n",
	"slurm-datalocality-state 2\nstats 1 2 3 0.5s 0.5 0.5 1 2 3 4 5 6 7\n",
	/* pending_placed beyond 32 bits */
	"slurm-datalocality-state 2\n"
	"stats 1 2 3 0.5 0.5 0.5 1 2 3 4 5 6 4294967296\n",
	/* two stats lines */
	"slurm-datalocality-state 2\nstats 1 2 3 0.5 0.5 0.5 1 2 3 4 5 6 7\n"
	"stats 1 2 3 0.5 0.5 0.5 1 2 3 4 5 6 7\n",
	/* a stats line in a version-1 file; a version from the future */
	"slurm-datalocality-state 1\nstats 1 2 3 0.5 0.5 0.5 1 2 3 4 5 6 7\n",
	"slurm-datalocality-state 5\nsaved 1\n",
	/* service lines: not before version 3, and checked */
	"slurm-datalocality-state 2\n"
	"service n1 service 1 5 2 10 - 1 2 3 4 5 6\n",
	"slurm-datalocality-state 3\n"
	"service n1 elsewhere 1 5 2 10 - 1 2 3 4 5 6\n",
	"slurm-datalocality-state 3\n"
	"service n1 service 2 5 2 10 - 1 2 3 4 5 6\n",
	"slurm-datalocality-state 3\n"
	"service n1 service 1 5 2 10 x 1 2 3 4 5 6\n",
	"slurm-datalocality-state 3\n"
	"service n1 service 1 5 2 10 - 1 2 3 4 5\n",
	"slurm-datalocality-state 3\n"
	"service n1 service 1 5 2 -10 - 1 2 3 4 5 6\n",
	/* 16 fields; a bad replica counter (the 15th) */
	"slurm-datalocality-state 4\n"
	"service n1 service 1 5 2 10 - 1 2 3 4 5 6 7 8\n",
	"slurm-datalocality-state 4\n"
	"service n1 service 1 5 2 10 - 1 2 3 4 5 6 -7\n",
	/* power lines: not before version 4, and checked */
	"slurm-datalocality-state 3\npower n1 powered_down 5 1 lost\n",
	"slurm-datalocality-state 4\npower n1 asleep 5 1 lost\n",
	"slurm-datalocality-state 4\npower n1 powered_down 5 1 gone\n",
	"slurm-datalocality-state 4\npower n1 powered_down x 1 lost\n",
	"slurm-datalocality-state 4\npower n1 powered_down 5 -1 lost\n",
	"slurm-datalocality-state 4\npower n1 powered_down 5 1\n",
	"slurm-datalocality-state 4\npower n1 powered_down 5 1 lost 9\n",
};

START_TEST(test_bad_stats)
{
	dl_cache_t *d = dl_cache_create(3, DL_EVICT_VALUE, 1);
	dl_sched_stats_t sched = sched_sample;
	dl_persist_t p = { .nnodes = 3, .node_names = names3,
			   .sched = &sched };
	char body[512], err[128];
	size_t i;

	_mkdir();
	/* The same file, well formed, loads: the failures below are the
	 * stats line's alone. */
	_write_state("slurm-datalocality-state 2\n"
		     "stats 1 2 3 0.5 0.5 0.5 1 2 3 4 5 6 7\n"
		     "file 10 1 /data/a\ncached n1 0\n");
	ck_assert_int_eq(dl_persist_load(path, d, &p, err, sizeof(err)), 0);
	ck_assert_uint_eq(sched.pending_placed, 7);
	ck_assert(sched.plan_sec_max == 0.5);
	dl_cache_destroy(d);
	for (i = 0; i < sizeof(bad_stats) / sizeof(bad_stats[0]); i++) {
		d = dl_cache_create(3, DL_EVICT_VALUE, 1);
		sched = sched_sample;
		snprintf(body, sizeof(body),
			 "%sfile 10 1 /data/a\ncached n1 0\n", bad_stats[i]);
		_write_state(body);
		err[0] = '\0';
		ck_assert_msg(dl_persist_load(path, d, &p, err, sizeof(err)) ==
				      DL_EFORMAT,
			      "bad stats case %zu loaded", i);
		ck_assert(strlen(err) > 0);
		ck_assert_uint_eq(dl_cache_file_count(d), 0);
		_assert_sched_eq(&sched, &sched_sample);
		dl_cache_destroy(d);
	}
	_rmdir();
}
END_TEST

/*
 * Save the sample with p, find every string of want (NULL-terminated) in
 * the file, and load it back.
 */
static void _save_has_load(dl_persist_t *p, const char *const *want)
{
	dl_cache_t *c = _sample(), *d = dl_cache_create(3, DL_EVICT_VALUE, 1);
	char err[128], *text;

	_mkdir();
	ck_assert_int_eq(dl_persist_save(path, c, p), 0);
	text = _text();
	for (; *want; want++)
		ck_assert_msg(strstr(text, *want), "no \"%s\" in the file",
			      *want);
	free(text);
	ck_assert_int_eq(dl_persist_load(path, d, p, err, sizeof(err)), 0);
	ck_assert_int_ge(dl_cache_file_lookup(d, "/data/b"), 0);
	dl_cache_destroy(c);
	dl_cache_destroy(d);
	_rmdir();
}

/*
 * Service lines are written per node, with the replica counter, and a
 * version-3 file loads; so does a line of 14 fields (before the counter).
 */
START_TEST(test_service_lines)
{
	dl_service_stats_t sv[3] = {
		{ .source = DL_SOURCE_SERVICE, .connected = 1, .since = 9,
		  .files = 2, .used = 30, .capacity = 100,
		  .storage_bytes = 7, .peer_bytes = 8, .prefetch_sent = 3,
		  .prefetch_cancelled = 1, .prefetch_done = 2,
		  .prefetch_active = 1, .replicas = 4 },
		{ .source = DL_SOURCE_UNKNOWN, .capacity = DL_CACHE_UNLIMITED },
		{ .source = DL_SOURCE_JOBS, .capacity = DL_CACHE_UNLIMITED },
	};
	dl_persist_t p = { .nnodes = 3, .node_names = names3, .service = sv };
	const char *want[] = {
		"\nservice n1 service 1 9 2 30 100 7 8 3 1 2 1 4\n",
		"\nservice n2 unknown 0 0 0 0 - 0 0 0 0 0 0 0\n",
		"\nservice n3 jobs 0 ", NULL
	};
	dl_cache_t *d = dl_cache_create(3, DL_EVICT_VALUE, 1);
	char err[128];

	_save_has_load(&p, want);
	_mkdir();
	_write_state("slurm-datalocality-state 4\n"
		     "service n1 service 1 5 2 10 - 1 2 3 4 5 6\n"
		     "file 10 1 /data/a\ncached n1 0\n");
	ck_assert_int_eq(dl_persist_load(path, d, &p, err, sizeof(err)), 0);
	ck_assert_int_ge(dl_cache_file_lookup(d, "/data/a"), 0);
	dl_cache_destroy(d);
	_rmdir();
}
END_TEST

/* Power lines are written per node, and a version-4 file loads. */
START_TEST(test_power_lines)
{
	dl_power_stats_t pw[3] = {
		{ .state = DL_POWER_DOWN, .since = 9, .emptied = 2 },
		{ .state = DL_POWER_RESUMING, .since = 10, .kept = 1 },
		{ .state = DL_POWER_UP },
	};
	dl_persist_t p = { .nnodes = 3, .node_names = names3, .power = pw };
	const char *want[] = { "\npower n1 powered_down 9 2 lost\n",
			       "\npower n2 powering_up 10 0 kept\n",
			       "\npower n3 up 0 0 lost\n", NULL };

	_save_has_load(&p, want);
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
	tcase_add_test(tc, test_sched_roundtrip);
	tcase_add_test(tc, test_v1_loads);
	tcase_add_test(tc, test_bad_stats);
	tcase_add_test(tc, test_service_lines);
	tcase_add_test(tc, test_power_lines);
	tcase_add_test(tc, test_crc);
	suite_add_tcase(s, tc);
	return s;
}
