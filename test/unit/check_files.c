/*
 * check_files.c - unit tests of the files: annotation, list-file and
 * burst-buffer parsers (files.c).
 */
/* strdup() and clock_gettime() are POSIX, not C11. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dl_error.h"
#include "dl_files.h"

#define ERRLEN 512

/* Parse a comment that must parse; the caller frees the list. */
static dl_filelist_t *_parse_ok(const char *comment)
{
	char err[ERRLEN] = "untouched";
	dl_filelist_t *list = NULL;
	int rc = dl_files_parse(comment, &list, err, sizeof(err));

	ck_assert_msg(rc == 0, "parse of \"%.80s\" failed: %s (%s)", comment,
		      dl_err_name(rc), err);
	ck_assert_ptr_nonnull(list);
	ck_assert_str_eq(err, "");
	return list;
}

/*
 * A comment that must fail with code, leaving *out NULL, and a message
 * holding substr.
 */
static void _parse_fail(const char *comment, int code, const char *substr,
			int line)
{
	char err[ERRLEN] = "";
	/* Any non-NULL value, to see that a failing call resets it. */
	dl_filelist_t *list = (dl_filelist_t *)&list;
	int rc = dl_files_parse(comment, &list, err, sizeof(err));

	ck_assert_msg(rc == code, "line %d: \"%.80s\" gave %s, want %s (%s)",
		      line, comment, dl_err_name(rc), dl_err_name(code), err);
	ck_assert_msg(list == NULL, "line %d: *out not NULL on error", line);
	ck_assert_msg(strstr(err, substr),
		      "line %d: message \"%s\" lacks \"%s\"", line, err,
		      substr);
}
#define PARSE_FAIL(c, code, sub) _parse_fail(c, code, sub, __LINE__)

/* A list-file text that must fail with code, leaving list as it was. */
static void _list_fail(const char *text, dl_filelist_t *list, int code,
		       const char *substr, int line)
{
	char err[ERRLEN] = "";
	size_t count = list->count, i;
	char **before = malloc((count + 1) * sizeof(*before));
	uint64_t *sizes = malloc((count + 1) * sizeof(*sizes));
	int rc;

	for (i = 0; i < count; i++) {
		before[i] = strdup(list->files[i].path);
		sizes[i] = list->files[i].size;
	}
	rc = dl_files_parse_list(text, strlen(text), list, err, sizeof(err));
	ck_assert_msg(rc == code, "line %d: gave %s, want %s (%s)", line,
		      dl_err_name(rc), dl_err_name(code), err);
	ck_assert_msg(strstr(err, substr),
		      "line %d: message \"%s\" lacks \"%s\"", line, err,
		      substr);
	ck_assert_uint_eq(list->count, count);
	for (i = 0; i < count; i++) {
		ck_assert_str_eq(list->files[i].path, before[i]);
		ck_assert_uint_eq(list->files[i].size, sizes[i]);
		free(before[i]);
	}
	free(before);
	free(sizes);
}
#define LIST_FAIL(t, l, code, sub) _list_fail(t, l, code, sub, __LINE__)

/* Why path breaks the invariants of a list, or NULL if it keeps them. */
static const char *_bad_path(const char *p)
{
	size_t len = strlen(p), j;

	if (p[0] != '/')
		return "not absolute";
	if (len >= DL_PATH_MAX)
		return "too long";
	if (p[len - 1] == '/')
		return "trailing '/'";
	if (strstr(p, "//") || strstr(p, "/./") || strstr(p, "/../") ||
	    (len >= 2 && !strcmp(p + len - 2, "/.")) ||
	    (len >= 3 && !strcmp(p + len - 3, "/..")))
		return "not normalised";
	for (j = 0; j < len; j++) {
		unsigned char c = p[j];

		if (c < 0x20 || c == 0x7f || strchr(" ,;=@", c))
			return "forbidden character";
	}
	return NULL;
}

/*
 * The invariants every list must keep, whatever the input was.  One
 * assertion per list: Check records every passing assertion, which would
 * dominate the run time over 100,000 paths.
 */
static void _check_invariants(const dl_filelist_t *list)
{
	const char *why = NULL;
	size_t i;

	for (i = 0; i < list->count && !why; i++)
		why = _bad_path(list->files[i].path);
	for (i = 0; i < list->nlists && !why; i++)
		why = _bad_path(list->lists[i]);
	ck_assert_msg(!why, "path %zu: %s", i - 1, why);
}

/* Only for small lists: compare against the expected paths in order. */
static void _expect_paths(const dl_filelist_t *list, const char *const *want,
			  size_t n)
{
	size_t i;

	ck_assert_uint_eq(list->count, n);
	for (i = 0; i < n; i++)
		ck_assert_str_eq(list->files[i].path, want[i]);
	_check_invariants(list);
}

START_TEST(test_single)
{
	dl_filelist_t *list = _parse_ok("files:/data/input.h5");

	ck_assert_uint_eq(list->count, 1);
	ck_assert_str_eq(list->files[0].path, "/data/input.h5");
	ck_assert_uint_eq(list->files[0].size, DL_SIZE_UNKNOWN);
	ck_assert_uint_eq(list->nlists, 0);
	dl_filelist_free(list);
}
END_TEST

START_TEST(test_multiple)
{
	static const char *const want[] = { "/a", "/b/c", "/d" };
	dl_filelist_t *list = _parse_ok("files:/a,/b/c=4K,/d=0");

	_expect_paths(list, want, 3);
	ck_assert_uint_eq(list->files[0].size, DL_SIZE_UNKNOWN);
	ck_assert_uint_eq(list->files[1].size, 4096);
	ck_assert_uint_eq(list->files[2].size, 0);
	dl_filelist_free(list);
}
END_TEST

static const struct {
	const char *text;
	uint64_t bytes;
} good_sizes[] = {
	{ "0", 0 },
	{ "4096", 4096 },
	{ "007", 7 },
	{ "100B", 100 },
	{ "100b", 100 },
	{ "4K", 4096ULL },
	{ "4k", 4096ULL },
	{ "4KB", 4096ULL },
	{ "4KiB", 4096ULL },
	{ "4kib", 4096ULL },
	{ "4Ki", 4096ULL },
	{ "64M", 64ULL << 20 },
	{ "64MiB", 64ULL << 20 },
	{ "2G", 2ULL << 30 },
	{ "2GiB", 2ULL << 30 },
	{ "2gb", 2ULL << 30 },
	{ "3T", 3ULL << 40 },
	{ "3TIB", 3ULL << 40 },
	{ "5P", 5ULL << 50 },
	{ "5PiB", 5ULL << 50 },
	{ "16383P", 16383ULL << 50 },
	{ "18446744073709551614", UINT64_MAX - 1 },
};

START_TEST(test_size_units)
{
	const char *text = good_sizes[_i].text;
	uint64_t bytes = 1;
	char comment[64];
	dl_filelist_t *list;

	ck_assert_int_eq(dl_files_parse_size(text, strlen(text), &bytes), 0);
	ck_assert_uint_eq(bytes, good_sizes[_i].bytes);

	/* The same size inside an annotation. */
	snprintf(comment, sizeof(comment), "files:/f=%s", text);
	list = _parse_ok(comment);
	ck_assert_uint_eq(list->count, 1);
	ck_assert_uint_eq(list->files[0].size, good_sizes[_i].bytes);
	dl_filelist_free(list);
}
END_TEST

START_TEST(test_size_bad)
{
	static const char *const bad[] = {
		"", "K", "B", "4Q", "4i", "4iB", "4 K", "-1", "+1", "4KK",
		"4KiBB", "0x10", "4.5G", " 4", "4 ", "4KBi",
	};
	uint64_t bytes = 42;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(dl_files_parse_size(bad[i], strlen(bad[i]),
						  &bytes) == DL_ESYNTAX,
			      "\"%s\" accepted", bad[i]);
		ck_assert_uint_eq(bytes, 42);
	}
	ck_assert_int_eq(dl_files_parse_size("4K", 2, NULL), DL_EINVAL);
	ck_assert_int_eq(dl_files_parse_size(NULL, 2, &bytes), DL_EINVAL);
	ck_assert_int_eq(dl_files_parse_size(NULL, 0, &bytes), DL_ESYNTAX);
	/* Only len bytes count: the text need not be NUL-terminated. */
	ck_assert_int_eq(dl_files_parse_size("4Kxyz", 2, &bytes), 0);
	ck_assert_uint_eq(bytes, 4096);
	ck_assert_int_eq(dl_files_parse_size("4\0K", 3, &bytes), DL_ESYNTAX);
}
END_TEST

START_TEST(test_size_overflow)
{
	static const char *const big[] = {
		"18446744073709551616", /* 2^64 */
		"18446744073709551615", /* 2^64 - 1 means "unknown" */
		"99999999999999999999999999999999",
		"16384P",		/* 2^64 */
		"16777216T",		/* 2^64 */
		"18446744073709551615K",
	};
	uint64_t bytes = 42;
	size_t i;

	for (i = 0; i < sizeof(big) / sizeof(big[0]); i++) {
		ck_assert_msg(dl_files_parse_size(big[i], strlen(big[i]),
						  &bytes) == DL_ERANGE,
			      "\"%s\" not out of range", big[i]);
		ck_assert_uint_eq(bytes, 42);
	}
	PARSE_FAIL("files:/a=16384P", DL_ERANGE,
		   "files: entry 1 \"/a=16384P\": size \"16384P\" is too large");
	/* Syntax is checked before range. */
	PARSE_FAIL("files:/a=99999999999999999999999Q", DL_ESYNTAX, "bad size");
}
END_TEST

START_TEST(test_whitespace)
{
	static const char *const want[] = { "/a", "/b", "/c" };
	dl_filelist_t *list =
		_parse_ok("  files:  /a , \t/b=1M\t,\n/c \r\n ");

	_expect_paths(list, want, 3);
	ck_assert_uint_eq(list->files[1].size, 1 << 20);
	dl_filelist_free(list);
}
END_TEST

START_TEST(test_other_segments)
{
	static const char *const want[] = { "/a", "/b" };
	static const char *const comments[] = {
		"run 7; files:/a,/b",
		"files:/a,/b; run 7",
		"run 7;files:/a,/b;note: files are big",
		"x;  files: /a , /b ;y;;",
		";;files:/a,/b",
	};
	size_t i;

	for (i = 0; i < sizeof(comments) / sizeof(comments[0]); i++) {
		dl_filelist_t *list = _parse_ok(comments[i]);

		_expect_paths(list, want, 2);
		dl_filelist_free(list);
	}
}
END_TEST

START_TEST(test_no_annotation)
{
	static const char *const comments[] = {
		"",
		"just a comment",
		"Files:/a",
		"FILES:/a",
		"see files:/a",
		"files /a",
		"file:/a",
		"run 7; x=files:/a",
		";;;",
	};
	dl_filelist_t *list;
	size_t i;

	for (i = 0; i < sizeof(comments) / sizeof(comments[0]); i++) {
		list = _parse_ok(comments[i]);
		ck_assert_uint_eq(list->count, 0);
		ck_assert_uint_eq(list->nlists, 0);
		ck_assert_int_eq(dl_files_has_annotation(comments[i]), 0);
		dl_filelist_free(list);
	}
	list = _parse_ok(NULL);
	ck_assert_uint_eq(list->count, 0);
	dl_filelist_free(list);
	ck_assert_int_eq(dl_files_parse("files:/a", NULL, NULL, 0), DL_EINVAL);
	/* No message buffer is fine too. */
	ck_assert_int_eq(dl_files_parse("files:a", &list, NULL, 0),
			 DL_ESYNTAX);
	ck_assert_ptr_null(list);
}
END_TEST

START_TEST(test_has_annotation)
{
	ck_assert_int_eq(dl_files_has_annotation("files:/a"), 1);
	ck_assert_int_eq(dl_files_has_annotation("  files:/a"), 1);
	ck_assert_int_eq(dl_files_has_annotation("run 7; \tfiles:/a"), 1);
	/* Only whether the segment is there, not whether it is valid. */
	ck_assert_int_eq(dl_files_has_annotation("files:"), 1);
	ck_assert_int_eq(dl_files_has_annotation("x;files:bad"), 1);
	ck_assert_int_eq(dl_files_has_annotation("x files:/a"), 0);
	ck_assert_int_eq(dl_files_has_annotation("Files:/a"), 0);
	ck_assert_int_eq(dl_files_has_annotation(""), 0);
	ck_assert_int_eq(dl_files_has_annotation(NULL), 0);
}
END_TEST

START_TEST(test_bad_paths)
{
	PARSE_FAIL("files:/a,/b,data/x.img", DL_ESYNTAX,
		   "files: entry 3 \"data/x.img\": path must be absolute "
		   "(start with '/')");
	PARSE_FAIL("files:/a,/a/../b", DL_ESYNTAX,
		   "files: entry 2 \"/a/../b\": '..' is not allowed in a path");
	PARSE_FAIL("files:/..", DL_ESYNTAX, "'..' is not allowed");
	PARSE_FAIL("files:/a/..", DL_ESYNTAX, "'..' is not allowed");
	PARSE_FAIL("files:/a/./b", DL_ESYNTAX,
		   "entry 1 \"/a/./b\": '.' is not allowed as a path component");
	PARSE_FAIL("files:/a/.", DL_ESYNTAX, "'.' is not allowed");
	PARSE_FAIL("files:/a/b/", DL_ESYNTAX,
		   "entry 1 \"/a/b/\": a path must not end with '/'");
	PARSE_FAIL("files:/", DL_ESYNTAX, "must name a file, not '/'");
	PARSE_FAIL("files:///", DL_ESYNTAX, "must name a file, not '/'");
	PARSE_FAIL("files:/a\x01z", DL_ESYNTAX,
		   "entry 1 \"/a\\x01z\": control character \\x01 is not "
		   "allowed in a path");
	PARSE_FAIL("files:/a\x7f", DL_ESYNTAX, "control character \\x7f");
	PARSE_FAIL("files:/a\nb", DL_ESYNTAX, "control character \\x0a");
	PARSE_FAIL("files:/my file", DL_ESYNTAX,
		   "blanks are not allowed in a path");
	PARSE_FAIL("files:/a@b", DL_ESYNTAX, "'@' is not allowed in a path");
	PARSE_FAIL("files:~/a", DL_ESYNTAX, "path must be absolute");
	PARSE_FAIL("files:./a", DL_ESYNTAX, "path must be absolute");
	/* '.' and '..' inside a name are ordinary characters. */
	{
		static const char *const want[] = { "/a/..b", "/.a", "/a..",
						    "/.../x" };
		dl_filelist_t *list =
			_parse_ok("files:/a/..b,/.a,/a..,/.../x");

		_expect_paths(list, want, 4);
		dl_filelist_free(list);
	}
}
END_TEST

START_TEST(test_long_path)
{
	size_t n = DL_PATH_MAX + 16;
	char *c = malloc(n);
	dl_filelist_t *list;

	/* "files:" + '/' + 4094 'x' = a path of exactly DL_PATH_MAX - 1. */
	memcpy(c, "files:/", 7);
	memset(c + 7, 'x', DL_PATH_MAX - 2);
	c[7 + DL_PATH_MAX - 2] = '\0';
	list = _parse_ok(c);
	ck_assert_uint_eq(strlen(list->files[0].path), DL_PATH_MAX - 1);
	dl_filelist_free(list);

	c[7 + DL_PATH_MAX - 2] = 'y';
	c[7 + DL_PATH_MAX - 1] = '\0';
	PARSE_FAIL(c, DL_ESYNTAX, "path is longer than 4095 bytes");
	/* The message quotes only the first 60 bytes of the entry. */
	{
		char want[80];

		want[0] = '"';
		want[1] = '/';
		memset(want + 2, 'x', 59);
		strcpy(want + 61, "...\": path");
		PARSE_FAIL(c, DL_ESYNTAX, want);
	}

	/* Collapsing '/' happens before the length is checked. */
	memcpy(c, "files:", 6);
	memset(c + 6, '/', DL_PATH_MAX + 8);
	c[DL_PATH_MAX + 14] = 'z';
	c[DL_PATH_MAX + 15] = '\0';
	list = _parse_ok(c);
	ck_assert_str_eq(list->files[0].path, "/z");
	dl_filelist_free(list);
	free(c);
}
END_TEST

START_TEST(test_bad_entries)
{
	PARSE_FAIL("files:", DL_ESYNTAX, "files: no file listed");
	PARSE_FAIL("files:  \t ", DL_ESYNTAX, "files: no file listed");
	PARSE_FAIL("files: ; run 7", DL_ESYNTAX, "files: no file listed");
	PARSE_FAIL("files:/a,/b,/c,/d,,/e", DL_ESYNTAX,
		   "files: entry 5: empty entry (two commas in a row?)");
	PARSE_FAIL("files:/a, ,/e", DL_ESYNTAX,
		   "files: entry 2: empty entry (two commas in a row?)");
	PARSE_FAIL("files:/a,/b,", DL_ESYNTAX,
		   "files: entry 3: empty entry (trailing comma?)");
	PARSE_FAIL("files:,/a", DL_ESYNTAX,
		   "files: entry 1: empty entry (comma right after files:?)");
	PARSE_FAIL("files:/a=12Q", DL_ESYNTAX,
		   "files: entry 1 \"/a=12Q\": bad size \"12Q\" (use e.g. "
		   "4096, 64M, 2GiB)");
	PARSE_FAIL("files:/a=", DL_ESYNTAX, "bad size \"\"");
	PARSE_FAIL("files:/a=4M=5", DL_ESYNTAX, "bad size \"4M=5\"");
	PARSE_FAIL("files:/a = 4M", DL_ESYNTAX,
		   "blanks are not allowed in a path");
	PARSE_FAIL("files:=4M", DL_ESYNTAX, "missing path before '='");
	PARSE_FAIL("files:/a;files:/b", DL_ESYNTAX,
		   "more than one files: segment");
	PARSE_FAIL("files:/a; run; files:", DL_ESYNTAX,
		   "more than one files: segment");
	PARSE_FAIL("files:@", DL_ESYNTAX, "'@' must be followed by the path");
	PARSE_FAIL("files:@/l=4M", DL_ESYNTAX, "a list file takes no size");
	PARSE_FAIL("files:/a,@lists/x", DL_ESYNTAX,
		   "entry 2 \"@lists/x\": path must be absolute");
	PARSE_FAIL("files:@/l/../x", DL_ESYNTAX, "'..' is not allowed");
	PARSE_FAIL("files:a\"\\b", DL_ESYNTAX,
		   "files: entry 1 \"a\\\"\\\\b\": ");
}
END_TEST

START_TEST(test_err_buffer)
{
	char err[12];
	dl_filelist_t *list;
	const char *c = "files:relative/path/that/is/long";

	memset(err, 'Z', sizeof(err));
	ck_assert_int_eq(dl_files_parse(c, &list, err, sizeof(err)),
			 DL_ESYNTAX);
	ck_assert_uint_eq(strlen(err), sizeof(err) - 1);
	ck_assert_str_eq(err, "files: entr");

	/* errlen 0 must not touch the buffer at all. */
	memset(err, 'Z', sizeof(err));
	ck_assert_int_eq(dl_files_parse(c, &list, err, 0), DL_ESYNTAX);
	ck_assert_int_eq(err[0], 'Z');

	/* Non-ASCII bytes are shown escaped, so UTF-8 is never cut. */
	{
		char big[ERRLEN];

		ck_assert_int_eq(dl_files_parse("files:r\xc3\xa9sum\xc3\xa9",
						&list, big, sizeof(big)),
				 DL_ESYNTAX);
		ck_assert_ptr_nonnull(
			strstr(big, "\"r\\xc3\\xa9sum\\xc3\\xa9\""));
	}
}
END_TEST

START_TEST(test_normalise)
{
	static const char *const want[] = { "/a/b", "/c" };
	dl_filelist_t *list;

	/* A trailing '/' stays an error even when it is doubled. */
	PARSE_FAIL("files://a///b,/c//", DL_ESYNTAX, "must not end with '/'");
	list = _parse_ok("files://a///b,///c");
	_expect_paths(list, want, 2);
	dl_filelist_free(list);
}
END_TEST

START_TEST(test_duplicates)
{
	static const char *const want[] = { "/a", "/b", "/c" };
	dl_filelist_t *list;

	list = _parse_ok("files:/a,/b,/a,/c,/b,//a");
	_expect_paths(list, want, 3);
	dl_filelist_free(list);

	list = _parse_ok("files:/a=1M,/b,/a=1M,/c,/a=1024K");
	_expect_paths(list, want, 3);
	ck_assert_uint_eq(list->files[0].size, 1 << 20);
	dl_filelist_free(list);

	/* A later duplicate may supply the size the first one lacked. */
	list = _parse_ok("files:/a,/b,/c,/a=4K");
	_expect_paths(list, want, 3);
	ck_assert_uint_eq(list->files[0].size, 4096);
	ck_assert_uint_eq(list->files[1].size, DL_SIZE_UNKNOWN);
	dl_filelist_free(list);

	PARSE_FAIL("files:/a=1M,/b,/a=2M", DL_ESYNTAX,
		   "files: entry 3 \"/a=2M\": same path as entry 1 \"/a=1M\" "
		   "with another size");
	/* The message names the first size given, not the first entry. */
	PARSE_FAIL("files:/x,/a,/a=1M,/a=2M", DL_ESYNTAX,
		   "entry 4 \"/a=2M\": same path as entry 3 \"/a=1M\"");
	/* The first clash in entry order is the one reported. */
	PARSE_FAIL("files:/z=1,/a=1,/z=2,/a=2", DL_ESYNTAX,
		   "entry 3 \"/z=2\"");
}
END_TEST

START_TEST(test_list_refs)
{
	static const char *const want[] = { "/a", "/b" };
	dl_filelist_t *list =
		_parse_ok("files:@/l1,/a,@//x//l2, @/l1 ,/b,@/x/l2");

	_expect_paths(list, want, 2);
	ck_assert_uint_eq(list->nlists, 2);
	ck_assert_str_eq(list->lists[0], "/l1");
	ck_assert_str_eq(list->lists[1], "/x/l2");
	dl_filelist_free(list);

	/* Only list files is fine. */
	list = _parse_ok("files:@/l");
	ck_assert_uint_eq(list->count, 0);
	ck_assert_uint_eq(list->nlists, 1);
	dl_filelist_free(list);
}
END_TEST

static const char list_text[] =
	"# inputs of run 7\n"
	"\n"
	"/data/a 4M\n"
	"   /data/b\t\t1GiB  \n"
	"  # an indented comment\n"
	"//data//c\r\n"
	"/data/a\n"
	"\t\n"
	"/x 0";

START_TEST(test_list_parse)
{
	static const char *const want[] = { "/first", "/data/a", "/data/b",
					    "/data/c", "/x" };
	dl_filelist_t *list = _parse_ok("files:/first,@/l");
	char err[ERRLEN] = "untouched";

	ck_assert_int_eq(dl_files_parse_list(list_text, strlen(list_text),
					     list, err, sizeof(err)),
			 0);
	ck_assert_str_eq(err, "");
	_expect_paths(list, want, 5);
	ck_assert_uint_eq(list->files[0].size, DL_SIZE_UNKNOWN);
	ck_assert_uint_eq(list->files[1].size, 4 << 20);
	ck_assert_uint_eq(list->files[2].size, 1 << 30);
	ck_assert_uint_eq(list->files[3].size, DL_SIZE_UNKNOWN);
	ck_assert_uint_eq(list->files[4].size, 0);
	/* The '@' references are left alone. */
	ck_assert_uint_eq(list->nlists, 1);
	ck_assert_str_eq(list->lists[0], "/l");

	/* Parsing it again adds nothing. */
	ck_assert_int_eq(dl_files_parse_list(list_text, strlen(list_text),
					     list, err, sizeof(err)),
			 0);
	_expect_paths(list, want, 5);

	/* Empty text is a no-op; NULL list is not. */
	ck_assert_int_eq(dl_files_parse_list("", 0, list, err, sizeof(err)),
			 0);
	ck_assert_int_eq(dl_files_parse_list(NULL, 0, list, NULL, 0), 0);
	ck_assert_uint_eq(list->count, 5);
	ck_assert_int_eq(dl_files_parse_list("/a", 2, NULL, NULL, 0),
			 DL_EINVAL);
	ck_assert_int_eq(dl_files_parse_list(NULL, 2, list, NULL, 0),
			 DL_EINVAL);
	dl_filelist_free(list);
}
END_TEST

START_TEST(test_list_not_terminated)
{
	/* Only len bytes count: the rest of the buffer must be ignored. */
	static const char buf[] = "/a 1K\n/b 2K/garbage";
	dl_filelist_t *list = dl_filelist_new();

	ck_assert_int_eq(dl_files_parse_list(buf, 11, list, NULL, 0), 0);
	ck_assert_uint_eq(list->count, 2);
	ck_assert_str_eq(list->files[1].path, "/b");
	ck_assert_uint_eq(list->files[1].size, 2048);
	dl_filelist_free(list);
}
END_TEST

START_TEST(test_list_dedup_existing)
{
	static const char *const want[] = { "/a", "/b", "/c" };
	dl_filelist_t *list = _parse_ok("files:/a,/b=1K");
	const char *text = "/c\n/b 1K\n/a 2K\n/c 5\n";

	ck_assert_int_eq(dl_files_parse_list(text, strlen(text), list, NULL,
					     0),
			 0);
	_expect_paths(list, want, 3);
	/* /a had no size: the list file gives it one. */
	ck_assert_uint_eq(list->files[0].size, 2048);
	ck_assert_uint_eq(list->files[1].size, 1024);
	ck_assert_uint_eq(list->files[2].size, 5);

	LIST_FAIL("/d\n/b 2K\n", list, DL_ESYNTAX,
		  "list line 2: this path already has another size "
		  "(1024 bytes)");
	LIST_FAIL("/d\n/e 1\n\n/e 2\n", list, DL_ESYNTAX,
		  "list line 4: same path as line 2 with "
		  "another size");
	dl_filelist_free(list);
}
END_TEST

START_TEST(test_list_errors)
{
	dl_filelist_t *list = _parse_ok("files:/keep=1K,/also");
	char err[ERRLEN];
	/* Valid lines before the bad one must not reach the list. */
	static const char nul_text[] = "/n1\n# c\n/n2\0/n3\n";

	LIST_FAIL("/new1\n\n# comment\n/new2\n\n\ndata/rel\n/new3\n", list,
		  DL_ESYNTAX,
		  "list line 7: path must be absolute");
	LIST_FAIL("/a\n@/other\n", list, DL_ESYNTAX,
		  "list line 2: a list file may not name another "
		  "list file");
	LIST_FAIL("/a=4M\n", list, DL_ESYNTAX,
		  "list line 1: '=' is not allowed in a path");
	LIST_FAIL("/a 4M extra\n", list, DL_ESYNTAX,
		  "unexpected text after the size");
	LIST_FAIL("/a 4X\n", list, DL_ESYNTAX,
		  "list line 1: bad size (of the line)");
	LIST_FAIL("/a 99999999999999999999\n", list, DL_ERANGE,
		  "is too large");
	LIST_FAIL("/x/../etc/passwd", list, DL_ESYNTAX, "'..' is not allowed");
	LIST_FAIL("/ok\n/a/./b\n", list, DL_ESYNTAX,
		  "list line 2: '.' is not allowed");
	LIST_FAIL("/dir/\n", list, DL_ESYNTAX, "must not end with '/'");
	LIST_FAIL("/a,/b\n", list, DL_ESYNTAX, "',' is not allowed in a path");
	LIST_FAIL("/a;b\n", list, DL_ESYNTAX, "';' is not allowed in a path");
	LIST_FAIL("/a\x1b[31m\n", list, DL_ESYNTAX,
		  "list line 1: control character \\x1b");
	LIST_FAIL("/keep 2K\n", list, DL_ESYNTAX, "another size (1024 bytes)");

	ck_assert_int_eq(dl_files_parse_list(nul_text, sizeof(nul_text) - 1,
					     list, err, sizeof(err)),
			 DL_ESYNTAX);
	ck_assert_ptr_nonnull(strstr(err, "list line 3: NUL byte"));
	ck_assert_uint_eq(list->count, 2);
	/* Even a trailing NUL counts: len must not include a terminator. */
	ck_assert_int_eq(dl_files_parse_list("/n\n", 4, list, err,
					     sizeof(err)),
			 DL_ESYNTAX);
	ck_assert_ptr_nonnull(strstr(err, "list line 2: NUL byte"));
	ck_assert_uint_eq(list->count, 2);
	ck_assert_str_eq(list->files[0].path, "/keep");
	ck_assert_str_eq(list->files[1].path, "/also");
	dl_filelist_free(list);
}
END_TEST

/*
 * CPU time of this process: what the parser spent, however busy the host
 * (wall-clock time on a loaded 2-core host is many times longer).
 */
static double _cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * An O(n^2) duplicate search over 100,000 entries takes minutes of CPU;
 * the sort-based one takes a few tens of milliseconds natively.  The
 * bound, in CPU seconds, leaves room for sanitizers and valgrind.
 */
#define BIG_N 100000
#define BIG_SECONDS 10.0

START_TEST(test_big)
{
	size_t cap = 64 + (size_t)BIG_N * 24, off, i;
	char *c = malloc(cap);
	dl_filelist_t *list;
	char want[32];
	double t0, dt;

	off = (size_t)snprintf(c, cap, "run 7; files:");
	for (i = 0; i < BIG_N; i++)
		off += (size_t)snprintf(c + off, cap - off, "%s/d/f%zu=%zuK",
					i ? "," : "", i, i % 97);
	/* Repeat the first thousand entries so dedup has work to do. */
	for (i = 0; i < 1000; i++)
		off += (size_t)snprintf(c + off, cap - off, ",/d//f%zu", i);

	t0 = _cpu();
	list = _parse_ok(c);
	dt = _cpu() - t0;
	ck_assert_uint_eq(list->count, BIG_N);
	ck_assert_msg(dt < BIG_SECONDS, "100k entries took %.2f CPU s", dt);
	for (i = 0; i < BIG_N; i++) {
		snprintf(want, sizeof(want), "/d/f%zu", i);
		if (strcmp(list->files[i].path, want) ||
		    list->files[i].size != (i % 97) * 1024)
			break;
	}
	ck_assert_msg(i == BIG_N, "entry %zu is wrong", i);
	_check_invariants(list);

	/* The same through a list file, on top of the list (all dups). */
	off = 0;
	for (i = 0; i < BIG_N; i++)
		off += (size_t)snprintf(c + off, cap - off, "/d/f%zu %zuK\n",
					BIG_N - 1 - i, (BIG_N - 1 - i) % 97);
	off += (size_t)snprintf(c + off, cap - off, "/d/new\n");
	t0 = _cpu();
	ck_assert_int_eq(dl_files_parse_list(c, off, list, NULL, 0), 0);
	dt = _cpu() - t0;
	ck_assert_msg(dt < BIG_SECONDS, "100k list lines took %.2f CPU s", dt);
	ck_assert_uint_eq(list->count, BIG_N + 1);
	ck_assert_str_eq(list->files[BIG_N].path, "/d/new");
	dl_filelist_free(list);
	free(c);
}
END_TEST

START_TEST(test_too_many)
{
	size_t n = DL_FILES_MAX + 1, cap = 16 + n * 3, off, i;
	char *c = malloc(cap);
	char err[ERRLEN];
	dl_filelist_t *list = (dl_filelist_t *)&list;

	memcpy(c, "files:", 6);
	off = 6;
	for (i = 0; i < n; i++) {
		memcpy(c + off, "/a,", 3);
		off += 3;
	}
	c[off - 1] = '\0';
	ck_assert_int_eq(dl_files_parse(c, &list, err, sizeof(err)),
			 DL_ETOOBIG);
	ck_assert_ptr_null(list);
	ck_assert_str_eq(err, "files: more than 1048576 entries");

	/* Exactly DL_FILES_MAX entries are allowed (they dedup to one). */
	c[off - 4] = '\0';
	list = _parse_ok(c);
	ck_assert_uint_eq(list->count, 1);

	/* A list file has the same bound, and the list stays as it was. */
	for (i = 0; i < n; i++)
		memcpy(c + i * 3, "/b\n", 3);
	ck_assert_int_eq(dl_files_parse_list(c, n * 3, list, err,
					     sizeof(err)),
			 DL_ETOOBIG);
	ck_assert_ptr_nonnull(
		strstr(err, "list line 1048577: more than 1048576"));
	ck_assert_uint_eq(list->count, 1);
	ck_assert_str_eq(list->files[0].path, "/a");
	dl_filelist_free(list);
	free(c);
}
END_TEST

/* Deterministic bytes for the garbage tests. */
static uint64_t _rand_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

#define GARBAGE_LEN (5 * 1024 * 1024)

static void _garbage_run(char *g, size_t len, const char *alphabet)
{
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	size_t i, alen = strlen(alphabet);
	char err[ERRLEN];
	dl_filelist_t *list = NULL;
	int rc;

	for (i = 0; i < len; i++) {
		uint64_t r = _rand_next(&seed);

		g[i] = alen ? alphabet[r % alen] : (char)(r % 255 + 1);
	}
	g[len] = '\0';
	rc = dl_files_parse(g, &list, err, sizeof(err));
	ck_assert_msg(rc == 0 || rc == DL_ESYNTAX || rc == DL_ERANGE, "%s",
		      dl_err_name(rc));
	ck_assert_uint_lt(strlen(err), sizeof(err));
	if (rc) {
		ck_assert_ptr_null(list);
		list = dl_filelist_new();
	}
	_check_invariants(list);
	rc = dl_files_parse_list(g, len, list, err, sizeof(err));
	ck_assert_msg(rc == 0 || rc == DL_ESYNTAX || rc == DL_ERANGE, "%s",
		      dl_err_name(rc));
	_check_invariants(list);
	ck_assert_int_eq(dl_files_bb_stage_in(g, list), 0);
	_check_invariants(list);
	dl_filelist_free(list);
}

START_TEST(test_garbage)
{
	char *g = malloc(GARBAGE_LEN + 8);

	/* Any byte but NUL. */
	_garbage_run(g, GARBAGE_LEN, "");
	/* Annotation-shaped noise, so the parsers get deep. */
	memcpy(g, "files:", 6);
	_garbage_run(g, GARBAGE_LEN, "/a.,=@;: \n#K9");
	_garbage_run(g, GARBAGE_LEN, "/ab\n \t#1K");
	free(g);
}
END_TEST

START_TEST(test_garbage_shaped)
{
	/* Path-shaped noise: it must fail cleanly, naming an entry. */
	char *g = malloc(GARBAGE_LEN + 8);
	dl_filelist_t *list = NULL;
	char err[ERRLEN];
	int rc;

	memcpy(g, "files:", 6);
	{
		uint64_t seed = 12345;
		size_t i;

		for (i = 6; i < GARBAGE_LEN; i++) {
			uint64_t r = _rand_next(&seed) % 8;

			g[i] = r < 3 ? '/' : r < 4 ? ',' : "abcd"[r - 4];
		}
		g[GARBAGE_LEN] = '\0';
	}
	rc = dl_files_parse(g, &list, err, sizeof(err));
	/* Trailing '/' or an empty entry somewhere is near certain. */
	ck_assert_int_eq(rc, DL_ESYNTAX);
	ck_assert_ptr_null(list);
	ck_assert_ptr_nonnull(strstr(err, "files: entry "));
	free(g);
}
END_TEST

START_TEST(test_bb_stage_in)
{
	static const char *const want[] = { "/exists", "/lustre/in.dat",
					    "/scratch/data", "/lustre/b" };
	static const char spec[] =
		"#!/bin/bash\n"
		"#DW jobdw type=scratch capacity=1GiB access_mode=striped\n"
		"#DW stage_in source=/lustre//in.dat "
		"destination=$DW_JOB_STRIPED/in.dat type=file\n"
		"#DW stage_in source=/lustre/dir destination=$DW_JOB_STRIPED "
		"type=directory\n"
		"#DW stage_in source=/lustre/l destination=x type=list\n"
		"  #BB   stage_in\tsrc=/scratch/data dst=/bb/data\n"
		"#BB stage_in source=s3://bucket/obj destination=/bb/obj\n"
		"#BB stage_in source=data/rel destination=/bb/rel\n"
		"#BB stage_in source=/a/../etc destination=/bb/x\n"
		"#BB stage_in source=/a/ destination=/bb/x\n"
		"#BB stage_in source=\n"
		"#BB stage_in source=/x garbage\n"
		"#BB stage_in source=/x source=/y\n"
		"#BB stage_out source=/out destination=/o\n"
		"#BBstage_in source=/nospace\n"
		"#BB stage_inx source=/bad\n"
		"#BB_LUA stage_in source=/lua\n"
		"# BB stage_in source=/comment\n"
		"#DW stage_in source=/exists destination=/bb/e\n"
		"#BB stage_in destination=/bb/b source=/lustre/b\r\n"
		"echo done";
	dl_filelist_t *list = _parse_ok("files:/exists=1K");

	ck_assert_int_eq(dl_files_bb_stage_in(spec, list), 0);
	_expect_paths(list, want, 4);
	/* The duplicate kept the size the annotation gave. */
	ck_assert_uint_eq(list->files[0].size, 1024);
	ck_assert_uint_eq(list->files[1].size, DL_SIZE_UNKNOWN);

	ck_assert_int_eq(dl_files_bb_stage_in(NULL, list), 0);
	ck_assert_int_eq(dl_files_bb_stage_in("", list), 0);
	ck_assert_int_eq(dl_files_bb_stage_in(spec, list), 0);
	_expect_paths(list, want, 4);
	ck_assert_int_eq(dl_files_bb_stage_in(spec, NULL), DL_EINVAL);
	dl_filelist_free(list);
}
END_TEST

START_TEST(test_bb_variants)
{
	dl_filelist_t *list = dl_filelist_new();

	ck_assert_int_eq(dl_files_bb_stage_in("#DW stage_in type=file "
					      "source=/t1 destination=/d",
					      list),
			 0);
	ck_assert_int_eq(dl_files_bb_stage_in("#DW stage_in type=directory "
					      "source=/t2 destination=/d",
					      list),
			 0);
	ck_assert_int_eq(dl_files_bb_stage_in("#BB stage_in src=/t3", list),
			 0);
	ck_assert_int_eq(dl_files_bb_stage_in("#BB stage_in "
					      "src=s3://b/t4 dst=/d",
					      list),
			 0);
	ck_assert_int_eq(dl_files_bb_stage_in("#BB stage_in src=t5 dst=/d",
					      list),
			 0);
	ck_assert_uint_eq(list->count, 2);
	ck_assert_str_eq(list->files[0].path, "/t1");
	ck_assert_str_eq(list->files[1].path, "/t3");
	dl_filelist_free(list);
}
END_TEST

Suite *make_files_suite(void)
{
	Suite *s = suite_create("files");
	TCase *tc = tcase_create("annotation");
	TCase *tl = tcase_create("list");
	TCase *tb = tcase_create("bb");
	TCase *tx = tcase_create("stress");

	tcase_add_test(tc, test_single);
	tcase_add_test(tc, test_multiple);
	tcase_add_loop_test(tc, test_size_units, 0,
			    sizeof(good_sizes) / sizeof(good_sizes[0]));
	tcase_add_test(tc, test_size_bad);
	tcase_add_test(tc, test_size_overflow);
	tcase_add_test(tc, test_whitespace);
	tcase_add_test(tc, test_other_segments);
	tcase_add_test(tc, test_no_annotation);
	tcase_add_test(tc, test_has_annotation);
	tcase_add_test(tc, test_bad_paths);
	tcase_add_test(tc, test_long_path);
	tcase_add_test(tc, test_bad_entries);
	tcase_add_test(tc, test_err_buffer);
	tcase_add_test(tc, test_normalise);
	tcase_add_test(tc, test_duplicates);
	tcase_add_test(tc, test_list_refs);
	suite_add_tcase(s, tc);

	tcase_add_test(tl, test_list_parse);
	tcase_add_test(tl, test_list_not_terminated);
	tcase_add_test(tl, test_list_dedup_existing);
	tcase_add_test(tl, test_list_errors);
	suite_add_tcase(s, tl);

	tcase_add_test(tb, test_bb_stage_in);
	tcase_add_test(tb, test_bb_variants);
	suite_add_tcase(s, tb);

	tcase_add_test(tx, test_big);
	tcase_add_test(tx, test_too_many);
	tcase_add_test(tx, test_garbage);
	tcase_add_test(tx, test_garbage_shaped);
	suite_add_tcase(s, tx);
	return s;
}
