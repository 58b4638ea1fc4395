/*
 * fuzz_files.c - libFuzzer target for the parsers of files.c.
 *
 * The input is used three ways: as a job comment, as the bytes of a list
 * file and as a burst-buffer spec.  After each step the list must still
 * hold only normalised absolute paths without duplicates, and a failing
 * call must have left it as it was.  A broken invariant traps, so the
 * fuzzer reports it as a crash.
 *
 * Build: clang -g -O1 -fsanitize=fuzzer,address,undefined \
 *	-I src/libdatalocality src/libdatalocality/{files,error,log}.c \
 *	test/fuzz/fuzz_files.c -o fuzz_files
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dl_error.h"
#include "dl_files.h"

#define CHECK(cond)                      \
	do {                             \
		if (!(cond))             \
			__builtin_trap(); \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void _check_path(const char *p)
{
	size_t len = strlen(p), i;

	CHECK(p[0] == '/');
	CHECK(len < DL_PATH_MAX);
	CHECK(p[len - 1] != '/');
	CHECK(!strstr(p, "//"));
	CHECK(!strstr(p, "/./"));
	CHECK(!strstr(p, "/../"));
	CHECK(!(len >= 2 && !strcmp(p + len - 2, "/.")));
	CHECK(!(len >= 3 && !strcmp(p + len - 3, "/..")));
	for (i = 0; i < len; i++) {
		unsigned char c = p[i];

		CHECK(c >= 0x20 && c != 0x7f);
		CHECK(!strchr(" ,;=@", c));
	}
}

static int _cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every path well formed, none twice: sort a copy, compare neighbours. */
static void _check_unique(char **paths, size_t n)
{
	size_t i;

	if (n < 2)
		return;
	qsort(paths, n, sizeof(*paths), _cmp_str);
	for (i = 1; i < n; i++)
		CHECK(strcmp(paths[i - 1], paths[i]));
}

static void _check_list(const dl_filelist_t *list)
{
	char **tmp;
	size_t i;

	CHECK(list);
	CHECK(list->count <= DL_FILES_MAX);
	CHECK(!list->count || list->files);
	CHECK(!list->nlists || list->lists);
	for (i = 0; i < list->count; i++)
		_check_path(list->files[i].path);
	for (i = 0; i < list->nlists; i++)
		_check_path(list->lists[i]);

	tmp = malloc((list->count + list->nlists + 1) * sizeof(*tmp));
	if (!tmp)
		return;
	for (i = 0; i < list->count; i++)
		tmp[i] = list->files[i].path;
	_check_unique(tmp, list->count);
	for (i = 0; i < list->nlists; i++)
		tmp[i] = list->lists[i];
	_check_unique(tmp, list->nlists);
	free(tmp);
}

static void _check_err(const char *err, size_t errlen, int rc)
{
	CHECK(memchr(err, '\0', errlen));
	/* A parse error always tells the user something. */
	if (rc == DL_ESYNTAX || rc == DL_ERANGE || rc == DL_ETOOBIG)
		CHECK(err[0]);
	if (!rc)
		CHECK(!err[0]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256], *copy;
	dl_filelist_t *list = NULL;
	dl_file_ref_t *before;
	size_t count, i;
	uint64_t bytes;
	int rc, has;

	if (!(copy = malloc(size + 1)))
		return 0;
	memcpy(copy, data, size);
	copy[size] = '\0';

	rc = dl_files_parse_size((const char *)data, size, &bytes);
	CHECK(rc == 0 || rc == DL_ESYNTAX || rc == DL_ERANGE);
	CHECK(rc || bytes != DL_SIZE_UNKNOWN);

	/* The comment ends at the first NUL, as a C string does. */
	has = dl_files_has_annotation(copy);
	CHECK(has == 0 || has == 1);
	memset(err, 'Z', sizeof(err));
	rc = dl_files_parse(copy, &list, err, sizeof(err));
	CHECK(rc == 0 || rc == DL_ESYNTAX || rc == DL_ERANGE ||
	      rc == DL_ETOOBIG || rc == DL_ENOMEM);
	_check_err(err, sizeof(err), rc);
	/* Without a files: segment there is nothing to get wrong. */
	if (!has)
		CHECK(rc == 0 && !list->count && !list->nlists);
	if (rc) {
		CHECK(!list);
		if (!(list = dl_filelist_new()))
			goto out;
	}
	_check_list(list);

	/* A failed call must leave the list exactly as it was. */
	count = list->count;
	before = malloc((count + 1) * sizeof(*before));
	if (!before)
		goto out;
	for (i = 0; i < count; i++)
		before[i] = list->files[i];
	rc = dl_files_parse_list((const char *)data, size, list, err,
				 sizeof(err));
	CHECK(rc == 0 || rc == DL_ESYNTAX || rc == DL_ERANGE ||
	      rc == DL_ETOOBIG || rc == DL_ENOMEM);
	_check_err(err, sizeof(err), rc);
	if (memchr(data, '\0', size))
		CHECK(rc == DL_ESYNTAX);
	CHECK(rc ? list->count == count : list->count >= count);
	for (i = 0; i < count; i++) {
		CHECK(list->files[i].path == before[i].path);
		/* Success may only fill in a size that was unknown. */
		if (rc || before[i].size != DL_SIZE_UNKNOWN)
			CHECK(list->files[i].size == before[i].size);
	}
	free(before);
	_check_list(list);

	count = list->count;
	rc = dl_files_bb_stage_in(copy, list);
	CHECK(rc == 0 || rc == DL_ETOOBIG || rc == DL_ENOMEM);
	CHECK(rc ? list->count == count : list->count >= count);
	_check_list(list);
out:
	dl_filelist_free(list);
	free(copy);
	return 0;
}
