/*
 * fuzz_filelist.c - libFuzzer target for the line-based parsers of
 * files.c: list files (dl_files_parse_list()), burst-buffer specs
 * (dl_files_bb_stage_in()) and sizes (dl_files_parse_size()).
 *
 * fuzz_files.c feeds the same bytes to every parser of files.c from a
 * corpus of job comments; this target starts from list files and
 * burst-buffer specs, into empty lists, and checks what a parse that
 * succeeded means:
 *   - the list holds only normalised absolute paths, none twice;
 *   - reading the same text again changes nothing (a list file named
 *     twice is harmless);
 *   - the list written back as a list file, as a files: annotation or as
 *     stage_in directives parses to exactly the same list (same order,
 *     same sizes): the three forms agree on what a path and a size are;
 *   - a size written back in decimal parses to the same number.
 * A failed call must leave the list as it was and say why.
 *
 * Build: clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE \
 *	-I src/libdatalocality src/libdatalocality/{files,error,log}.c \
 *	test/fuzz/fuzz_filelist.c -o fuzz_filelist
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dl_error.h"
#include "dl_files.h"
#include "dl_script.h"
#include "fuzz.h"

static void _check_path(const char *p)
{
	size_t len = strlen(p), i;

	CHECK(p[0] == '/');
	CHECK(len >= 2 && len < DL_PATH_MAX);
	CHECK(p[len - 1] != '/');
	CHECK(!strstr(p, "//"));
	CHECK(!strstr(p, "/./"));
	CHECK(!strstr(p, "/../"));
	CHECK(strcmp(p + len - 2, "/."));
	CHECK(len < 3 || strcmp(p + len - 3, "/.."));
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

static void _check_list(const dl_filelist_t *list)
{
	char **tmp;
	size_t i;

	CHECK(list);
	CHECK(list->count <= DL_FILES_MAX);
	CHECK(!list->count || list->files);
	/* Neither a list file nor a spec can name another list file. */
	CHECK(!list->nlists);
	for (i = 0; i < list->count; i++)
		_check_path(list->files[i].path);
	if (list->count < 2)
		return;
	tmp = malloc(list->count * sizeof(*tmp));
	CHECK(tmp);
	for (i = 0; i < list->count; i++)
		tmp[i] = list->files[i].path;
	qsort(tmp, list->count, sizeof(*tmp), _cmp_str);
	for (i = 1; i < list->count; i++)
		CHECK(strcmp(tmp[i - 1], tmp[i]));
	free(tmp);
}

static void _check_same(const dl_filelist_t *a, const dl_filelist_t *b)
{
	size_t i;

	CHECK(a->count == b->count);
	CHECK(a->nlists == b->nlists);
	for (i = 0; i < a->count; i++) {
		CHECK(!strcmp(a->files[i].path, b->files[i].path));
		CHECK(a->files[i].size == b->files[i].size);
	}
}

static void _check_err(const char *err, size_t errlen, int rc)
{
	CHECK(memchr(err, '\0', errlen));
	if (rc == DL_ESYNTAX || rc == DL_ERANGE || rc == DL_ETOOBIG)
		CHECK(err[0]);
	if (!rc)
		CHECK(!err[0]);
	/* Every message says where: the line, or the list as a whole. */
	if (rc == DL_ESYNTAX || rc == DL_ERANGE)
		CHECK(strstr(err, "list line ") || strstr(err, "files: "));
}

/* Write a list as text in one of three forms; free() the result. */
enum form { LIST_FILE, ANNOTATION, BB_SPEC };

static char *_render(const dl_filelist_t *list, enum form form)
{
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);

	CHECK(f);
	if (form == ANNOTATION)
		fputs("run; files:", f);
	for (i = 0; i < list->count; i++) {
		const dl_file_ref_t *r = &list->files[i];
		int known = r->size != DL_SIZE_UNKNOWN;

		switch (form) {
		case LIST_FILE:
			fprintf(f, "%s", r->path);
			if (known)
				fprintf(f, "\t%" PRIu64, r->size);
			fputs("\n# comment\n", f);
			break;
		case ANNOTATION:
			fprintf(f, "%s %s", i ? "," : "", r->path);
			if (known)
				fprintf(f, "=%" PRIu64, r->size);
			break;
		case BB_SPEC:
			fprintf(f, "#%s stage_in %s=%s destination=/bb/%zu%s\n",
				i % 2 ? "BB" : "DW", i % 3 ? "source" : "src",
				r->path, i, i % 4 ? "" : " type=file");
			break;
		}
	}
	CHECK(!fclose(f));
	return buf;
}

static void _fuzz_list(const uint8_t *data, size_t size)
{
	dl_filelist_t *list = dl_filelist_new(), *back;
	char err[256], *text;
	size_t count;
	int rc;

	CHECK(list);
	memset(err, 'Z', sizeof(err));
	rc = dl_files_parse_list((const char *)data, size, list, err,
				 sizeof(err));
	CHECK(rc == 0 || rc == DL_ESYNTAX || rc == DL_ERANGE ||
	      rc == DL_ETOOBIG || rc == DL_ENOMEM);
	_check_err(err, sizeof(err), rc);
	if (memchr(data, '\0', size))
		CHECK(rc == DL_ESYNTAX);
	_check_list(list);
	if (rc) {
		CHECK(!list->count && !list->files);
		dl_filelist_free(list);
		return;
	}

	/* Idempotent: every entry is now a duplicate with the same size. */
	count = list->count;
	back = dl_filelist_new();
	CHECK(back);
	CHECK(!dl_files_parse_list((const char *)data, size, back, NULL, 0));
	_check_same(list, back);
	CHECK(!dl_files_parse_list((const char *)data, size, back, err,
				   sizeof(err)));
	CHECK(back->count == count);
	_check_same(list, back);
	dl_filelist_free(back);

	/* The same list written as a list file. */
	text = _render(list, LIST_FILE);
	back = dl_filelist_new();
	CHECK(back);
	rc = dl_files_parse_list(text, strlen(text), back, err, sizeof(err));
	CHECK(!rc);
	_check_same(list, back);
	dl_filelist_free(back);
	free(text);

	/* ... and as a files: annotation, if there is anything to say. */
	if (count) {
		text = _render(list, ANNOTATION);
		rc = dl_files_parse(text, &back, err, sizeof(err));
		CHECK(!rc);
		_check_same(list, back);
		dl_filelist_free(back);
		free(text);
	}
	dl_filelist_free(list);
}

static void _fuzz_bb(const uint8_t *data, size_t size)
{
	dl_filelist_t *list = dl_filelist_new(), *back;
	char *spec = fuzz_strdup(data, size), *text;
	size_t i;
	int rc;

	CHECK(list && spec);
	rc = dl_files_bb_stage_in(spec, list);
	CHECK(rc == 0 || rc == DL_ETOOBIG || rc == DL_ENOMEM);
	_check_list(list);
	if (rc) {
		CHECK(!list->count);
		goto out;
	}
	/* A spec gives no sizes. */
	for (i = 0; i < list->count; i++)
		CHECK(list->files[i].size == DL_SIZE_UNKNOWN);

	/* Parsing it again adds nothing. */
	CHECK(!dl_files_bb_stage_in(spec, list));
	_check_list(list);

	text = _render(list, BB_SPEC);
	back = dl_filelist_new();
	CHECK(back);
	CHECK(!dl_files_bb_stage_in(text, back));
	_check_same(list, back);
	dl_filelist_free(back);
	free(text);
out:
	dl_filelist_free(list);
	free(spec);
}

/* Every blank-separated word of the input as a size. */
static void _fuzz_sizes(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data, *end = s + size, *w;
	char dec[32];
	size_t ndig;
	uint64_t bytes, again;
	int rc, nwords = 0;

	/* The whole input first: a size is never more than one word. */
	rc = dl_files_parse_size(s, size, &bytes);
	CHECK(rc == 0 || rc == DL_ESYNTAX || rc == DL_ERANGE);
	while (s < end && nwords < 64) {
		while (s < end && strchr(" \t\n", *s) && *s)
			s++;
		for (w = s; s < end && !(strchr(" \t\n", *s) && *s); s++)
			;
		if (s == w)
			break;
		nwords++;
		bytes = 12345;
		rc = dl_files_parse_size(w, (size_t)(s - w), &bytes);
		CHECK(rc == 0 || rc == DL_ESYNTAX || rc == DL_ERANGE);
		if (rc) {
			CHECK(bytes == 12345);
			continue;
		}
		CHECK(bytes != DL_SIZE_UNKNOWN);
		snprintf(dec, sizeof(dec), "%" PRIu64, bytes);
		CHECK(!dl_files_parse_size(dec, strlen(dec), &again));
		CHECK(again == bytes);
		/* A plain decimal number is its own value. */
		for (ndig = 0; w + ndig < s && w[ndig] >= '0' && w[ndig] <= '9';
		     ndig++)
			;
		if (ndig == (size_t)(s - w) && (w[0] != '0' || ndig == 1))
			CHECK((size_t)(s - w) == strlen(dec) &&
			      !memcmp(w, dec, strlen(dec)));
	}
}

/*
 * The input as a batch script: its #DL directives either fail with a
 * message naming where, or join into an annotation that parses.
 */
static void _fuzz_script(const uint8_t *data, size_t size)
{
	char err[512], *ann = NULL;
	dl_filelist_t *list = NULL;
	int rc = dl_script_files((const char *)data, size, &ann, err,
				 sizeof(err));

	if (rc) {
		if (ann || (rc != DL_ENOMEM && !err[0]))
			abort();
		return;
	}
	if (!ann)
		return;
	if (strncmp(ann, "files:", 6) ||
	    strlen(ann) > DL_SCRIPT_ANNOTATION_MAX ||
	    dl_files_parse(ann, &list, NULL, 0))
		abort();
	dl_filelist_free(list);
	free(ann);
}

/*
 * The input as a batch script: its #BB/#DW header lines are a spec of
 * directive lines only, no longer than the script, that the burst-buffer
 * parser reads without error.
 */
static void _fuzz_script_bb(const uint8_t *data, size_t size)
{
	dl_filelist_t *list = dl_filelist_new();
	char *spec = NULL;
	const char *l;

	CHECK(list);
	if (dl_script_bb((const char *)data, size, &spec)) {
		CHECK(!spec);
		dl_filelist_free(list);
		return;
	}
	if (spec) {
		CHECK(strlen(spec) <= size);
		for (l = spec; l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
			CHECK(!strncmp(l, "#BB", 3) || !strncmp(l, "#DW", 3));
		CHECK(dl_files_bb_stage_in(spec, list) != DL_EINVAL);
	}
	free(spec);
	dl_filelist_free(list);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	_fuzz_script(data, size);
	_fuzz_script_bb(data, size);
	_fuzz_list(data, size);
	_fuzz_bb(data, size);
	_fuzz_sizes(data, size);
	return 0;
}
