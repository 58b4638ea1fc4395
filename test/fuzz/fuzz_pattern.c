/*
 * fuzz_pattern.c - libFuzzer target for the filename patterns of
 * pattern.c (%a %A %j %u %x %%) and its array index reader.
 *
 * Input: 13 bytes of values (task id, array job id, job id, and a byte
 * that turns some of them into "none" or "unknown"), then a user name and
 * a job name each ended by '\n', then the text.  The text is expanded as
 * one path, as a job comment's list and as a list file; it is also read
 * as an array index expression.  Invariants: an expansion never adds a
 * path component nor makes a '.' or '..' one, a list stays normalised and
 * free of duplicates, a failed call leaves the list as it was, the same
 * values give the same paths, and an array's sample is ascending, within
 * MaxArraySize and within the limit.  A broken one traps.
 *
 * Build: clang -g -O1 -fsanitize=fuzzer,address,undefined \
 *	-I src/libdatalocality src/libdatalocality/{pattern,files,error,log}.c \
 *	test/fuzz/fuzz_pattern.c -o fuzz_pattern
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dl_error.h"
#include "dl_files.h"
#include "dl_pattern.h"

#define CHECK(cond)                      \
	do {                             \
		if (!(cond))             \
			__builtin_trap(); \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t _count(const char *s, char c)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == c;
	return n;
}

/* One expanded path: as many components as the pattern had, none dots. */
static void _check_expanded(const char *in, const char *out)
{
	const char *s, *e;

	CHECK(strlen(out) < DL_PATH_MAX);
	CHECK(_count(out, '/') == _count(in, '/'));
	if (!strchr(in, '%'))
		CHECK(!strcmp(in, out));
	for (s = out; *s; s = *e ? e + 1 : e) {
		e = s + strcspn(s, "/");
		if (strchr(in, '%'))
			CHECK(!(e - s == 1 && s[0] == '.') &&
			      !(e - s == 2 && s[0] == '.' && s[1] == '.'));
	}
}

static void _check_path(const char *p)
{
	size_t len = strlen(p), i;

	CHECK(p[0] == '/' && len < DL_PATH_MAX && p[len - 1] != '/');
	CHECK(!strstr(p, "//") && !strstr(p, "/./") && !strstr(p, "/../"));
	CHECK(!(len >= 2 && !strcmp(p + len - 2, "/.")));
	CHECK(!(len >= 3 && !strcmp(p + len - 3, "/..")));
	for (i = 0; i < len; i++)
		CHECK((unsigned char)p[i] >= 0x20 && p[i] != 0x7f &&
		      !strchr(" ,;=@", p[i]));
}

static void _check_list(const dl_filelist_t *l)
{
	size_t i, j;

	for (i = 0; i < l->count; i++) {
		_check_path(l->files[i].path);
		/* lists here are small: a quadratic check is fine */
		for (j = 0; j < i && l->count < 256; j++)
			CHECK(strcmp(l->files[i].path, l->files[j].path));
	}
	for (i = 0; i < l->nlists; i++)
		_check_path(l->lists[i]);
}

/* Read the values; RET the bytes used, or 0 if the input is too short. */
static size_t _ctx(const uint8_t *d, size_t n, dl_pattern_ctx_t *c,
		   char *user, char *name, size_t room)
{
	const uint8_t *nl1, *nl2;
	uint8_t k;

	if (n < 13)
		return 0;
	memcpy(&c->task_id, d, 4);
	memcpy(&c->array_job_id, d + 4, 4);
	memcpy(&c->job_id, d + 8, 4);
	k = d[12];
	if (k & 1)
		c->task_id = DL_PATTERN_NONE;
	if (k & 2)
		c->job_id = DL_PATTERN_UNKNOWN;
	if (k & 4)
		c->task_id %= 1000;
	if (!(nl1 = memchr(d + 13, '\n', n - 13)) ||
	    !(nl2 = memchr(nl1 + 1, '\n', n - (size_t)(nl1 + 1 - d))) ||
	    (size_t)(nl1 - d - 13) >= room || (size_t)(nl2 - nl1 - 1) >= room)
		return 0;
	memcpy(user, d + 13, (size_t)(nl1 - d - 13));
	user[nl1 - d - 13] = '\0';
	memcpy(name, nl1 + 1, (size_t)(nl2 - nl1 - 1));
	name[nl2 - nl1 - 1] = '\0';
	c->user = (k & 8) ? NULL : user;
	c->name = (k & 16) ? NULL : name;
	return (size_t)(nl2 + 1 - d);
}

static void _one_path(const char *text, const dl_pattern_ctx_t *c)
{
	char err[256], *a = NULL, *b = NULL;
	int rc = dl_pattern_expand(text, c, &a, err, sizeof(err));

	CHECK(rc == 0 || rc == DL_ESYNTAX || rc == DL_ENOENT ||
	      rc == DL_ENOMEM);
	CHECK(memchr(err, '\0', sizeof(err)));
	if (rc) {
		CHECK(!a);
		CHECK(rc == DL_ENOMEM || err[0]);
		return;
	}
	_check_expanded(text, a);
	CHECK(!dl_pattern_expand(text, c, &b, NULL, 0) && !strcmp(a, b));
	free(a);
	free(b);
}

static void _list(const char *text, size_t len, const dl_pattern_ctx_t *c)
{
	dl_filelist_t *l = NULL;
	char **before;
	size_t n, i, skipped;
	char err[256];
	int rc;

	if (dl_files_parse(text, &l, NULL, 0))
		return;
	n = l->count;
	if (!(before = malloc((n + 1) * sizeof(*before))))
		goto out;
	for (i = 0; i < n; i++)
		before[i] = l->files[i].path;
	rc = dl_pattern_expand_list(l, c, len & 1 ? DL_PATTERN_SKIP_UNKNOWN : 0,
				    &skipped, err, sizeof(err));
	CHECK(rc == 0 || rc == DL_ESYNTAX || rc == DL_ENOENT ||
	      rc == DL_ETOOBIG || rc == DL_ENOMEM);
	if (rc) {
		CHECK(l->count == n);
		for (i = 0; i < n; i++)
			CHECK(l->files[i].path == before[i]);
	} else {
		/* expansion can only merge or drop entries, never add one */
		CHECK(l->count <= n);
	}
	_check_list(l);
	free(before);
	rc = dl_pattern_parse_list(text, len, l, c, err, sizeof(err));
	CHECK(rc == 0 || rc == DL_ESYNTAX || rc == DL_ENOENT ||
	      rc == DL_ERANGE || rc == DL_ETOOBIG || rc == DL_ENOMEM);
	_check_list(l);
out:
	dl_filelist_free(l);
}

static void _array(const char *text, const uint8_t *d)
{
	uint32_t ids[64], max = 1 + (uint32_t)(d[0] | d[1] << 8) * 16;
	size_t limit = 1 + d[2] % 64, n = 0, i;
	uint64_t total = 0;
	int rc = dl_pattern_array_tasks(text, max, limit, ids, &n, &total);

	CHECK(rc == 0 || rc == DL_ESYNTAX || rc == DL_ENOMEM);
	if (rc)
		return;
	CHECK(n == (total < limit ? total : limit) && n > 0);
	for (i = 0; i < n; i++) {
		CHECK(ids[i] < max);
		CHECK(!i || ids[i] > ids[i - 1]);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char user[64], name[64], *text;
	dl_pattern_ctx_t c;
	size_t used = _ctx(data, size, &c, user, name, sizeof(user));

	if (!used)
		return 0;
	if (!(text = malloc(size - used + 1)))
		return 0;
	memcpy(text, data + used, size - used);
	text[size - used] = '\0';
	_one_path(text, &c);
	_list(text, strlen(text), &c);
	_array(text, data);
	free(text);
	return 0;
}
