/*
 * check_pattern.c - unit tests of Slurm's filename patterns in file lists
 * and of the array index reader (pattern.c).
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dl_error.h"
#include "dl_files.h"
#include "dl_pattern.h"

#define ERRLEN 512
#define NONE DL_PATTERN_NONE
#define UNK DL_PATTERN_UNKNOWN

/* One case: a path, the values, and the path or error it must give. */
struct pcase {
	const char *path;
	uint32_t task, array, job;
	const char *user, *name;
	int rc;
	const char *want; /* the expansion, or a piece of the message */
};

static const struct pcase cases[] = {
	/* no pattern: the path itself */
	{ "/data/in", 5, 100, 105, "bob", "job", 0, "/data/in" },
	{ "/data/in_%a", 5, 100, 105, "bob", "job", 0, "/data/in_5" },
	{ "/data/in_%a", 0, 100, 100, "bob", "job", 0, "/data/in_0" },
	{ "/data/in_%4a", 7, 100, 107, "bob", "job", 0, "/data/in_0007" },
	{ "/data/in_%04a", 7, 100, 107, "bob", "job", 0, "/data/in_0007" },
	{ "/data/in_%1a", 123, 1, 2, "bob", "job", 0, "/data/in_123" },
	{ "/data/in_%0a", 3, 1, 2, "bob", "job", 0, "/data/in_3" },
	/* Slurm caps the width at 10, however wide it is written */
	{ "/d/%12a", 7, 1, 2, "u", "x", 0, "/d/0000000007" },
	{ "/d/%99999999999999999999a", 7, 1, 2, "u", "x", 0,
	  "/d/0000000007" },
	/* large ids, up to the largest a task can have */
	{ "/d/%a", 4000000, 1, 2, "u", "x", 0, "/d/4000000" },
	{ "/d/%a_%j", 4294967293u, 1, 4294967293u, "u", "x", 0,
	  "/d/4294967293_4294967293" },
	{ "/d/%A/%a", 3, 4242, 4245, "u", "x", 0, "/d/4242/3" },
	{ "/d/%8A", 3, 4242, 4245, "u", "x", 0, "/d/00004242" },
	{ "/d/%j", 3, 4242, 4245, "u", "x", 0, "/d/4245" },
	{ "/home/%u/%x.in", 1, 2, 3, "alice", "run.1", 0,
	  "/home/alice/run.1.in" },
	/* width means nothing to names, as in Slurm */
	{ "/home/%8u", 1, 2, 3, "al", "x", 0, "/home/al" },
	/* %% is a literal %, also right before a letter */
	{ "/d/50%%", 1, 2, 3, "u", "x", 0, "/d/50%" },
	{ "/d/%%a", 1, 2, 3, "u", "x", 0, "/d/%a" },
	{ "/d/%%%a", 1, 2, 3, "u", "x", 0, "/d/%1" },
	{ "/d/%a%a%a", 1, 2, 3, "u", "x", 0, "/d/111" },
	/* not an array: %A is the job id, as in Slurm; %a is refused */
	{ "/d/%A", NONE, NONE, 77, "u", "x", 0, "/d/77" },
	{ "/d/%A", NONE, 0, 77, "u", "x", 0, "/d/77" },
	{ "/d/%a", NONE, NONE, 77, "u", "x", DL_ESYNTAX, "not an array job" },
	/* unknown and incomplete patterns */
	{ "/d/%t", 1, 2, 3, "u", "x", DL_ESYNTAX, "unknown pattern '%t'" },
	{ "/d/%N", 1, 2, 3, "u", "x", DL_ESYNTAX, "unknown pattern '%N'" },
	{ "/d/%4q", 1, 2, 3, "u", "x", DL_ESYNTAX, "unknown pattern '%4q'" },
	{ "/d/%", 1, 2, 3, "u", "x", DL_ESYNTAX, "incomplete pattern" },
	{ "/d/in%4", 1, 2, 3, "u", "x", DL_ESYNTAX, "incomplete pattern" },
	{ "/d/%/x", 1, 2, 3, "u", "x", DL_ESYNTAX, "unknown pattern '%/'" },
	/* values not known yet (at submit) */
	{ "/d/%j", 1, 2, UNK, "u", "x", DL_ENOENT, "job id is not known" },
	{ "/d/%A", 1, UNK, UNK, "u", "x", DL_ENOENT, "job id is not known" },
	{ "/d/%a", UNK, UNK, UNK, "u", "x", DL_ENOENT,
	  "array task id is not known" },
	{ "/d/%u", 1, 2, 3, NULL, "x", DL_ENOENT, "user name is not known" },
	{ "/d/%x", 1, 2, 3, "u", NULL, DL_ENOENT, "job name is not known" },
	/* names that would escape their path component */
	{ "/d/%x/in", 1, 2, 3, "u", "../../etc", DL_ESYNTAX, "character" },
	{ "/d/%x/in", 1, 2, 3, "u", "a/b", DL_ESYNTAX, "character" },
	{ "/d/%x/in", 1, 2, 3, "u", "..", DL_ESYNTAX, "'..' component" },
	{ "/d/%x/in", 1, 2, 3, "u", ".", DL_ESYNTAX, "'.' component" },
	{ "/d/.%x", 1, 2, 3, "u", ".", DL_ESYNTAX, "'..' component" },
	{ "/d/%x", 1, 2, 3, "u", "", DL_ESYNTAX, "empty" },
	{ "/d/%x", 1, 2, 3, "u", "a b", DL_ESYNTAX, "character" },
	{ "/d/%x", 1, 2, 3, "u", "a,b", DL_ESYNTAX, "character" },
	{ "/d/%x", 1, 2, 3, "u", "a\nb", DL_ESYNTAX, "character" },
	/* a name holding a pattern is not expanded again */
	{ "/d/%x", 1, 2, 3, "u", "%u", DL_ESYNTAX, "character" },
	{ "/d/%u", 1, 2, 3, "a@b", "x", DL_ESYNTAX, "character" },
	/* a dotted name inside a component is fine */
	{ "/d/%x", 1, 2, 3, "u", "..x", 0, "/d/..x" },
};

START_TEST(test_expand_table)
{
	const struct pcase *c = &cases[_i];
	dl_pattern_ctx_t ctx = { c->task, c->array, c->job, c->user,
				 c->name };
	char err[ERRLEN] = "untouched", *out = (char *)&out;
	int rc = dl_pattern_expand(c->path, &ctx, &out, err, sizeof(err));

	ck_assert_msg(rc == c->rc, "case %d \"%s\": %s, want %s (%s)", _i,
		      c->path, dl_err_name(rc), dl_err_name(c->rc), err);
	if (!rc) {
		ck_assert_str_eq(out, c->want);
		ck_assert_str_eq(err, "");
		free(out);
	} else {
		ck_assert_ptr_null(out);
		ck_assert_msg(strstr(err, c->want),
			      "case %d: message \"%s\" lacks \"%s\"", _i, err,
			      c->want);
	}
}
END_TEST

/* A long path that a wide expansion would push over DL_PATH_MAX. */
START_TEST(test_expand_too_long)
{
	dl_pattern_ctx_t ctx = { 1, 2, 3, "u", "x" };
	char path[DL_PATH_MAX], err[ERRLEN], *out = NULL;

	memset(path, 'a', sizeof(path));
	path[0] = '/';
	memcpy(path + DL_PATH_MAX - 5, "%10a", 5);
	ck_assert_int_eq(dl_pattern_expand(path, &ctx, &out, err,
					   sizeof(err)),
			 DL_ESYNTAX);
	ck_assert_ptr_null(out);
	ck_assert_ptr_nonnull(strstr(err, "more than"));
	/* the message quotes the path cut short */
	ck_assert_uint_lt(strlen(err), 400);
	ck_assert_int_eq(dl_pattern_expand(NULL, &ctx, &out, err, 10),
			 DL_EINVAL);
	ck_assert_int_eq(dl_pattern_expand("/a", NULL, &out, err, 10),
			 DL_EINVAL);
}
END_TEST

START_TEST(test_fields)
{
	dl_filelist_t *list = NULL;
	char err[ERRLEN];

	ck_assert_uint_eq(dl_pattern_fields("/d/in"), 0);
	ck_assert_uint_eq(dl_pattern_fields("/d/%%a"), 0);
	ck_assert_uint_eq(dl_pattern_fields("/d/%4a"), DL_PATTERN_TASK);
	ck_assert_uint_eq(dl_pattern_fields("/%A/%j/%u/%x"),
			  DL_PATTERN_ARRAY | DL_PATTERN_JOB | DL_PATTERN_USER |
				  DL_PATTERN_NAME);
	ck_assert_uint_eq(dl_pattern_fields("/d/%q%"), 0);
	ck_assert_uint_eq(dl_pattern_fields(NULL), 0);
	ck_assert_int_eq(dl_files_parse("files:/d/s,/d/%a,@/l/%u", &list, err,
					sizeof(err)),
			 0);
	ck_assert_uint_eq(dl_pattern_list_fields(list),
			  DL_PATTERN_TASK | DL_PATTERN_USER);
	dl_filelist_free(list);
}
END_TEST

static dl_filelist_t *_parse(const char *comment)
{
	dl_filelist_t *list = NULL;
	char err[ERRLEN];

	ck_assert_msg(!dl_files_parse(comment, &list, err, sizeof(err)),
		      "%s: %s", comment, err);
	return list;
}

/* Files, sizes and list files expand; equal results collapse. */
START_TEST(test_expand_list)
{
	dl_pattern_ctx_t ctx = { 3, 100, 103, "bob", "run" };
	dl_filelist_t *list =
		_parse("files:/s/shared=10,/d/in_%a=5,/d/in_3,@/l/%u_%x,"
		       "/d/%%x,@/l/bob_run");
	char err[ERRLEN];
	size_t skipped = 99;

	ck_assert_int_eq(dl_pattern_expand_list(list, &ctx, 0, &skipped, err,
						sizeof(err)),
			 0);
	ck_assert_uint_eq(skipped, 0);
	ck_assert_uint_eq(list->count, 3);
	ck_assert_str_eq(list->files[0].path, "/s/shared");
	ck_assert_uint_eq(list->files[0].size, 10);
	ck_assert_str_eq(list->files[1].path, "/d/in_3");
	ck_assert_uint_eq(list->files[1].size, 5);
	ck_assert_str_eq(list->files[2].path, "/d/%x");
	ck_assert_uint_eq(list->nlists, 1);
	ck_assert_str_eq(list->lists[0], "/l/bob_run");
	dl_filelist_free(list);
}
END_TEST

/* A failure leaves the list as it was and names the path. */
START_TEST(test_expand_list_fail)
{
	dl_pattern_ctx_t ctx = { 3, 100, 103, "bob", "run" };
	dl_filelist_t *list = _parse("files:/s/a,/d/in_%a=5,/d/in_3=6,/d/%q");
	char err[ERRLEN];

	/* the size clash appears only once %a is expanded */
	list->count = 3;
	ck_assert_int_eq(dl_pattern_expand_list(list, &ctx, 0, NULL, err,
						sizeof(err)),
			 DL_ESYNTAX);
	ck_assert_ptr_nonnull(strstr(err, "once patterns are expanded"));
	ck_assert_str_eq(list->files[1].path, "/d/in_%a");
	list->count = 4;
	ck_assert_int_eq(dl_pattern_expand_list(list, &ctx, 0, NULL, err,
						sizeof(err)),
			 DL_ESYNTAX);
	ck_assert_ptr_nonnull(strstr(err, "\"/d/%q\": unknown pattern"));
	ck_assert_uint_eq(list->count, 4);
	ck_assert_str_eq(list->files[1].path, "/d/in_%a");
	ck_assert_str_eq(list->files[3].path, "/d/%q");
	dl_filelist_free(list);
}
END_TEST

/* At submit: what needs the job id is left out, the rest expanded. */
START_TEST(test_expand_list_skip)
{
	dl_pattern_ctx_t ctx;
	dl_filelist_t *list = _parse("files:/d/%j.in,/d/%a,@/l/%A");
	char err[ERRLEN];
	size_t skipped = 0;

	dl_pattern_ctx_init(&ctx);
	ctx.task_id = 9;
	ctx.user = "u";
	ck_assert_int_eq(dl_pattern_expand_list(list, &ctx, 0, &skipped, err,
						sizeof(err)),
			 DL_ENOENT);
	ck_assert_ptr_nonnull(strstr(err, "not known yet"));
	ck_assert_uint_eq(list->count, 2);
	ck_assert_int_eq(dl_pattern_expand_list(list, &ctx,
						DL_PATTERN_SKIP_UNKNOWN,
						&skipped, err, sizeof(err)),
			 0);
	ck_assert_uint_eq(skipped, 2);
	ck_assert_uint_eq(list->count, 1);
	ck_assert_str_eq(list->files[0].path, "/d/9");
	ck_assert_uint_eq(list->nlists, 0);
	dl_filelist_free(list);
}
END_TEST

/* A list file's lines expand too, and no message quotes one. */
START_TEST(test_parse_list)
{
	dl_pattern_ctx_t ctx = { 4, 10, 14, "bob", "run" };
	dl_filelist_t *list = _parse("files:/d/in_4");
	const char good[] = "# inputs\n/d/in_%a 7\n/d/%u/x\n";
	const char bad[] = "/d/ok\n/secret/%q\n";
	char err[ERRLEN];

	ck_assert_int_eq(dl_pattern_parse_list(good, strlen(good), list, &ctx,
					       err, sizeof(err)),
			 0);
	ck_assert_uint_eq(list->count, 2);
	ck_assert_str_eq(list->files[0].path, "/d/in_4");
	ck_assert_uint_eq(list->files[0].size, 7);
	ck_assert_str_eq(list->files[1].path, "/d/bob/x");
	ck_assert_int_eq(dl_pattern_parse_list(bad, strlen(bad), list, &ctx,
					       err, sizeof(err)),
			 DL_ESYNTAX);
	ck_assert_ptr_null(strstr(err, "secret"));
	ck_assert_ptr_nonnull(strstr(err, "list file"));
	ck_assert_uint_eq(list->count, 2);
	dl_filelist_free(list);
}
END_TEST

/* An array expression and the tasks it gives. */
struct acase {
	const char *inx;
	uint32_t max;
	size_t limit;
	int rc;
	uint64_t total;
	const char *ids; /* the ids picked, space-separated */
};

static const struct acase acases[] = {
	{ "0-9", 1001, 64, 0, 10, "0 1 2 3 4 5 6 7 8 9" },
	{ "1,3,5-7:2", 1001, 64, 0, 4, "1 3 5 7" },
	{ "0-99%4", 1001, 64, 0, 100, NULL },
	{ "[0-4]", 1001, 64, 0, 5, "0 1 2 3 4" },
	{ "[2,5]", 1001, 64, 0, 2, "2 5" },
	{ "7", 1001, 64, 0, 1, "7" },
	{ "3-5,4-6", 1001, 64, 0, 4, "3 4 5 6" },
	/* a sample: first, last, evenly spread */
	{ "0-9", 1001, 4, 0, 10, "0 3 6 9" },
	{ "0-99", 1001, 3, 0, 100, "0 49 99" },
	{ "10-20", 1001, 1, 0, 11, "10" },
	{ "0-999999", 1000001, 2, 0, 1000000, "0 999999" },
	/* what Slurm refuses */
	{ "0-1000", 1000, 64, DL_ESYNTAX, 0, NULL },
	{ "5-3", 1001, 64, DL_ESYNTAX, 0, NULL },
	{ "-1", 1001, 64, DL_ESYNTAX, 0, NULL },
	{ "a", 1001, 64, DL_ESYNTAX, 0, NULL },
	{ "1-5:0", 1001, 64, DL_ESYNTAX, 0, NULL },
	{ "1x", 1001, 64, DL_ESYNTAX, 0, NULL },
	{ "", 1001, 64, DL_ESYNTAX, 0, NULL },
	{ "99999999999999999999", 1001, 64, DL_ESYNTAX, 0, NULL },
	{ "1", 0, 64, DL_EINVAL, 0, NULL },
	{ "1", 1001, 0, DL_EINVAL, 0, NULL },
};

START_TEST(test_array_table)
{
	const struct acase *c = &acases[_i];
	uint32_t ids[64];
	size_t n = 99, k;
	uint64_t total = 0;
	char buf[512] = "";
	int rc = dl_pattern_array_tasks(c->inx, c->max, c->limit, ids, &n,
					&total);

	ck_assert_msg(rc == c->rc, "\"%s\": %s, want %s", c->inx,
		      dl_err_name(rc), dl_err_name(c->rc));
	if (rc)
		return;
	ck_assert_uint_eq(total, c->total);
	ck_assert_uint_eq(n, total < c->limit ? total : c->limit);
	for (k = 0; k < n; k++) {
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%u",
			 k ? " " : "", ids[k]);
		if (k)
			ck_assert_uint_gt(ids[k], ids[k - 1]);
	}
	if (c->ids)
		ck_assert_str_eq(buf, c->ids);
	else
		ck_assert_uint_eq(ids[n - 1], 99);
}
END_TEST

Suite *make_pattern_suite(void)
{
	Suite *s = suite_create("pattern");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_expand_table, 0,
			    (int)(sizeof(cases) / sizeof(cases[0])));
	tcase_add_test(tc, test_expand_too_long);
	tcase_add_test(tc, test_fields);
	tcase_add_test(tc, test_expand_list);
	tcase_add_test(tc, test_expand_list_fail);
	tcase_add_test(tc, test_expand_list_skip);
	tcase_add_test(tc, test_parse_list);
	tcase_add_loop_test(tc, test_array_table, 0,
			    (int)(sizeof(acases) / sizeof(acases[0])));
	suite_add_tcase(s, tc);
	return s;
}
