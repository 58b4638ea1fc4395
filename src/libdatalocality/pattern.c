/*
 * pattern.c - expand Slurm's filename patterns (%a, %A, %j, %u, %x, %%)
 * in the paths of a file list, and read a job array's index expression.
 * See dl_pattern.h for the rules and where they differ from Slurm's.
 *
 * The paths, and the user and job names, come from users: every step is
 * linear in its input, an expansion never adds a path component, and a
 * list is expanded aside and replaces the caller's only once nothing can
 * fail any more.  One function, dl_pattern_expand(), serves job_submit,
 * the planning agent and dl-stage, so they can never disagree on a name.
 *
 * Ownership: strings returned are malloc'd for the caller to free().
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dl_error.h"
#include "dl_files.h"
#include "dl_pattern.h"

/* Bytes of a path quoted in a message before "..." cuts it. */
#define QUOTE_MAX 60
#define QUOTE_BUF (QUOTE_MAX * 4 + 8)
#define WHY_BUF 256

/* One pattern as written: '%', an optional width, one letter. */
struct pat {
	char conv;      /* the letter, '%' for "%%", '\0' if incomplete */
	unsigned width; /* zero padding, at most DL_PATTERN_WIDTH_MAX */
	size_t len;     /* bytes from the '%' to the letter inclusive */
};

void dl_pattern_ctx_init(dl_pattern_ctx_t *ctx)
{
	if (!ctx)
		return;
	ctx->task_id = DL_PATTERN_UNKNOWN;
	ctx->array_job_id = DL_PATTERN_UNKNOWN;
	ctx->job_id = DL_PATTERN_UNKNOWN;
	ctx->user = NULL;
	ctx->name = NULL;
}

/*
 * Read the pattern at p (p[0] == '%').  The width is read as Slurm reads
 * it: all the digits, a larger value counting as the largest width.
 */
static void _scan(const char *p, struct pat *pt)
{
	unsigned long w = 0;
	size_t i = 1;

	pt->width = 0;
	if (p[1] == '%') {
		pt->conv = '%';
		pt->len = 2;
		return;
	}
	for (; p[i] >= '0' && p[i] <= '9'; i++)
		if (w <= DL_PATTERN_WIDTH_MAX)
			w = w * 10 + (unsigned long)(p[i] - '0');
	pt->width = w > DL_PATTERN_WIDTH_MAX ? DL_PATTERN_WIDTH_MAX :
					       (unsigned)w;
	pt->conv = p[i];
	pt->len = p[i] ? i + 1 : i;
}

static bool _known(char c)
{
	return c && strchr("aAjux%", c);
}

static unsigned _field(char c)
{
	switch (c) {
	case 'a':
		return DL_PATTERN_TASK;
	case 'A':
		return DL_PATTERN_ARRAY;
	case 'j':
		return DL_PATTERN_JOB;
	case 'u':
		return DL_PATTERN_USER;
	case 'x':
		return DL_PATTERN_NAME;
	default:
		return 0;
	}
}

unsigned dl_pattern_fields(const char *path)
{
	const char *p = path;
	struct pat pt;
	unsigned f = 0;

	while (p && (p = strchr(p, '%'))) {
		_scan(p, &pt);
		f |= _field(pt.conv);
		p += pt.len;
	}
	return f;
}

unsigned dl_pattern_list_fields(const dl_filelist_t *list)
{
	unsigned f = 0;
	size_t i;

	if (!list)
		return 0;
	for (i = 0; i < list->count; i++)
		f |= dl_pattern_fields(list->files[i].path);
	for (i = 0; i < list->nlists; i++)
		f |= dl_pattern_fields(list->lists[i]);
	return f;
}

unsigned dl_pattern_unknown(const dl_pattern_ctx_t *ctx)
{
	unsigned f = 0;

	if (ctx->task_id == DL_PATTERN_UNKNOWN)
		f |= DL_PATTERN_TASK;
	if (ctx->array_job_id == DL_PATTERN_UNKNOWN)
		f |= DL_PATTERN_ARRAY;
	if (ctx->job_id == DL_PATTERN_UNKNOWN)
		f |= DL_PATTERN_JOB;
	if (!ctx->user)
		f |= DL_PATTERN_USER;
	if (!ctx->name)
		f |= DL_PATTERN_NAME;
	return f;
}

/* Quote s for a message: cut, with every unusual byte as \xNN. */
static void _quote(char *buf, const char *s)
{
	size_t n = strnlen(s, QUOTE_MAX + 1), i, o = 0;

	buf[o++] = '"';
	for (i = 0; i < n && i < QUOTE_MAX; i++) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\' || c < 0x20 || c >= 0x7f)
			o += (size_t)snprintf(buf + o, 5, "\\x%02x", c);
		else
			buf[o++] = c;
	}
	if (n > QUOTE_MAX) {
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	buf[o++] = '"';
	buf[o] = '\0';
}

/*
 * Whether a name may go into a path as it is: one component's worth of
 * the characters a path may hold (dl_files.h), without '%' so that the
 * output holds no pattern of its own.
 */
static bool _safe_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++) {
		unsigned char c = *s;

		if (c < 0x20 || c == 0x7f || strchr("/% \t,;=@", c))
			return false;
	}
	return true;
}

/* What a pattern stands for, written to buf. */
struct val {
	char buf[32];
	const char *s; /* buf, or the user or job name */
};

/*
 * Find the value of a known pattern.
 * OUT why - on error, the reason for the user
 * RET 0, DL_ESYNTAX (no such value here, unsafe name) or DL_ENOENT
 */
static int _value(const struct pat *pt, const dl_pattern_ctx_t *c,
		  struct val *v, char *why)
{
	uint32_t n = c->job_id;
	const char *what = pt->conv == 'u' ? "user name" : "job name";

	v->s = v->buf;
	switch (pt->conv) {
	case '%':
		v->s = "%";
		return 0;
	case 'u':
	case 'x':
		v->s = pt->conv == 'u' ? c->user : c->name;
		if (!v->s) {
			snprintf(why, WHY_BUF, "%%%c: the %s is not known yet",
				 pt->conv, what);
			return DL_ENOENT;
		}
		if (_safe_name(v->s))
			return 0;
		snprintf(why, WHY_BUF,
			 "%%%c: the %s is empty or holds a character that cannot be in a file name ('/', '%%', a blank, ',', ';', '=', '@')",
			 pt->conv, what);
		return DL_ESYNTAX;
	case 'a':
		if (c->task_id == DL_PATTERN_NONE) {
			snprintf(why, WHY_BUF,
				 "%%a: the job is not an array job (submit with --array)");
			return DL_ESYNTAX;
		}
		n = c->task_id;
		break;
	case 'A':
		/* As in Slurm: outside an array, %A is the job id. */
		if (c->task_id != DL_PATTERN_NONE &&
		    c->array_job_id != DL_PATTERN_NONE && c->array_job_id)
			n = c->array_job_id;
		break;
	}
	if (n == DL_PATTERN_UNKNOWN || n == DL_PATTERN_NONE) {
		snprintf(why, WHY_BUF, "%%%c: the %s is not known yet",
			 pt->conv, pt->conv == 'a' ? "array task id" : "job id");
		return DL_ENOENT;
	}
	snprintf(v->buf, sizeof(v->buf), "%0*u", (int)pt->width, n);
	return 0;
}

/* Refuse a "." or ".." component, which expansion alone can make. */
static int _check_components(const char *p, char *why)
{
	const char *s, *e;

	for (s = p; *s; s = *e ? e + 1 : e) {
		e = s + strcspn(s, "/");
		if ((e - s == 1 && s[0] == '.') ||
		    (e - s == 2 && s[0] == '.' && s[1] == '.')) {
			snprintf(why, WHY_BUF,
				 "expands to a path with a '%.*s' component",
				 (int)(e - s), s);
			return DL_ESYNTAX;
		}
	}
	return 0;
}

/* Why a pattern is malformed, for the user. */
static void _why_malformed(const char *p, const struct pat *pt, char *why)
{
	if (!pt->conv)
		snprintf(why, WHY_BUF,
			 "incomplete pattern at the end (write %%%% for a literal %%)");
	else if ((unsigned char)pt->conv < 0x20 || pt->conv == 0x7f ||
		 (unsigned char)pt->conv >= 0x80)
		snprintf(why, WHY_BUF,
			 "unknown pattern (known: %%a %%A %%j %%u %%x; write %%%% for a literal %%)");
	else
		snprintf(why, WHY_BUF,
			 "unknown pattern '%.*s' (known: %%a %%A %%j %%u %%x; write %%%% for a literal %%)",
			 (int)pt->len, p);
}

/*
 * Expand path into a new string; on error, why says what is wrong (it
 * names at most the pattern, never the rest of the path).
 */
static int _expand(const char *path, const dl_pattern_ctx_t *ctx,
		   char **out, char *why)
{
	char buf[DL_PATH_MAX];
	const char *p = path, *q;
	size_t o = 0, n;
	struct pat pt;
	struct val v;
	int rc;

	while ((q = strchr(p, '%'))) {
		_scan(q, &pt);
		if (!_known(pt.conv)) {
			_why_malformed(q, &pt, why);
			return DL_ESYNTAX;
		}
		if ((rc = _value(&pt, ctx, &v, why)))
			return rc;
		n = (size_t)(q - p);
		if (o + n + strlen(v.s) >= sizeof(buf))
			goto toolong;
		memcpy(buf + o, p, n);
		memcpy(buf + o + n, v.s, strlen(v.s));
		o += n + strlen(v.s);
		p = q + pt.len;
	}
	if (o + strlen(p) >= sizeof(buf))
		goto toolong;
	memcpy(buf + o, p, strlen(p) + 1);
	if (p != path && (rc = _check_components(buf, why)))
		return rc;
	return (*out = strdup(buf)) ? 0 : DL_ENOMEM;
toolong:
	snprintf(why, WHY_BUF, "expands to more than %d bytes",
		 DL_PATH_MAX - 1);
	return DL_ESYNTAX;
}

int dl_pattern_expand(const char *path, const dl_pattern_ctx_t *ctx,
		      char **out, char *err, size_t errlen)
{
	char why[WHY_BUF], quoted[QUOTE_BUF];
	int rc;

	if (err && errlen)
		err[0] = '\0';
	if (!out)
		return DL_EINVAL;
	*out = NULL;
	if (!path || !ctx)
		return DL_EINVAL;
	rc = _expand(path, ctx, out, why);
	if ((rc == DL_ESYNTAX || rc == DL_ENOENT) && err && errlen) {
		_quote(quoted, path);
		snprintf(err, errlen, "files: %s: %s", quoted, why);
	}
	return rc;
}

/* A list's paths as one list-file text: "path [size]" lines. */
struct text {
	char *s;
	size_t len, cap;
};

static int _text_add(struct text *t, const char *path, uint64_t size)
{
	size_t need = strlen(path) + 24;

	if (t->len + need > t->cap) {
		size_t cap = t->cap ? t->cap : 4096;
		char *s;

		while (cap < t->len + need)
			cap *= 2;
		if (!(s = realloc(t->s, cap)))
			return DL_ENOMEM;
		t->s = s;
		t->cap = cap;
	}
	if (size == DL_SIZE_UNKNOWN)
		t->len += (size_t)sprintf(t->s + t->len, "%s\n", path);
	else
		t->len += (size_t)sprintf(t->s + t->len, "%s %llu\n", path,
					  (unsigned long long)size);
	return 0;
}

/* How expand_list tells the user, and whether it may show paths. */
struct how {
	unsigned flags;
	bool quiet; /* the paths came from a list file: never quote them */
	size_t skipped;
	char *err;
	size_t errlen;
};

/* Expand one path into a "path [size]" line of t. */
static int _expand_one(const char *p, uint64_t size,
		       const dl_pattern_ctx_t *ctx, struct how *h,
		       struct text *t)
{
	char why[WHY_BUF], quoted[QUOTE_BUF], *x;
	int rc = _expand(p, ctx, &x, why);

	if (rc == DL_ENOENT && (h->flags & DL_PATTERN_SKIP_UNKNOWN)) {
		h->skipped++;
		return 0;
	}
	if ((rc == DL_ESYNTAX || rc == DL_ENOENT) && h->err && h->errlen) {
		_quote(quoted, p);
		snprintf(h->err, h->errlen, "files: %s%s%s",
			 h->quiet ? "an entry of a list file: " : quoted,
			 h->quiet ? "" : ": ", why);
	}
	if (rc)
		return rc;
	rc = _text_add(t, x, size);
	free(x);
	return rc;
}

/*
 * dl_files_parse_list() of expanded paths: its messages speak of lines,
 * which the user never wrote here.
 */
static int _reparse(const struct text *t, dl_filelist_t *into, struct how *h)
{
	char msg[WHY_BUF];
	int rc = dl_files_parse_list(t->s, t->len, into, msg, sizeof(msg));

	if (rc && rc != DL_ENOMEM && h->err && h->errlen)
		snprintf(h->err, h->errlen, "files: once patterns are expanded, %s",
			 msg);
	return rc;
}

/* Give list what fresh holds; fresh's husk is freed. */
static void _swap_in(dl_filelist_t *list, dl_filelist_t *fresh)
{
	dl_filelist_t old = *list;

	*list = *fresh;
	*fresh = old;
	dl_filelist_free(fresh);
}

/*
 * Expand list's paths aside: files and list paths each become list-file
 * text that dl_files_parse_list() checks and deduplicates again, so that
 * whatever an expansion made, only paths the grammar allows come out.
 */
static int _expand_list(dl_filelist_t *list, const dl_pattern_ctx_t *ctx,
			struct how *h)
{
	struct text tf = { 0 }, tl = { 0 };
	dl_filelist_t *fresh = NULL, *lists = NULL;
	int rc = 0;

	for (size_t i = 0; !rc && i < list->count; i++)
		rc = _expand_one(list->files[i].path, list->files[i].size, ctx,
				 h, &tf);
	for (size_t i = 0; !rc && i < list->nlists; i++)
		rc = _expand_one(list->lists[i], DL_SIZE_UNKNOWN, ctx, h, &tl);
	if (!rc && (!(fresh = dl_filelist_new()) ||
		    !(lists = dl_filelist_new())))
		rc = DL_ENOMEM;
	if (!rc)
		rc = _reparse(&tf, fresh, h);
	if (!rc)
		rc = _reparse(&tl, lists, h);
	if (!rc && lists->count &&
	    !(fresh->lists = calloc(lists->count, sizeof(char *))))
		rc = DL_ENOMEM;
	if (!rc) {
		/* Nothing below can fail. */
		for (size_t i = 0; i < lists->count; i++) {
			fresh->lists[i] = lists->files[i].path;
			lists->files[i].path = NULL;
		}
		fresh->nlists = lists->count;
		lists->count = 0;
		_swap_in(list, fresh);
		fresh = NULL;
	}
	dl_filelist_free(fresh);
	dl_filelist_free(lists);
	free(tf.s);
	free(tl.s);
	return rc;
}

/* Whether any path holds a '%': if none, there is nothing to do. */
static bool _has_pct(const dl_filelist_t *list)
{
	size_t i;

	for (i = 0; i < list->count; i++)
		if (strchr(list->files[i].path, '%'))
			return true;
	for (i = 0; i < list->nlists; i++)
		if (strchr(list->lists[i], '%'))
			return true;
	return false;
}

static int _expand_list_how(dl_filelist_t *list, const dl_pattern_ctx_t *ctx,
			    struct how *h, size_t *nskipped)
{
	int rc;

	if (h->err && h->errlen)
		h->err[0] = '\0';
	if (nskipped)
		*nskipped = 0;
	if (!list || !ctx)
		return DL_EINVAL;
	if (!_has_pct(list))
		return 0;
	rc = _expand_list(list, ctx, h);
	if (rc == DL_ENOMEM && h->err && h->errlen)
		snprintf(h->err, h->errlen, "files: out of memory");
	if (!rc && nskipped)
		*nskipped = h->skipped;
	return rc;
}

int dl_pattern_expand_list(dl_filelist_t *list, const dl_pattern_ctx_t *ctx,
			   unsigned flags, size_t *nskipped, char *err,
			   size_t errlen)
{
	struct how h = { flags, false, 0, err, errlen };

	return _expand_list_how(list, ctx, &h, nskipped);
}

int dl_pattern_parse_list(const char *text, size_t len, dl_filelist_t *list,
			  const dl_pattern_ctx_t *ctx, char *err,
			  size_t errlen)
{
	struct how h = { 0, true, 0, err, errlen };
	dl_filelist_t *tmp;
	int rc;

	if (!list || !ctx)
		return DL_EINVAL;
	if (!(tmp = dl_filelist_new()))
		return DL_ENOMEM;
	rc = dl_files_parse_list(text, len, tmp, err, errlen);
	if (!rc)
		rc = _expand_list_how(tmp, ctx, &h, NULL);
	if (!rc)
		rc = dl_files_merge(list, tmp, err, errlen);
	dl_filelist_free(tmp);
	return rc;
}

/*
 * One token of an array expression, read as slurmctld's _parse_array_tok()
 * (src/slurmctld/job_mgr.c) reads it: "[first", "-last", ":step", "]"
 * around the numbers, and a '%' ends it.
 * OUT first, last, step - the range
 * RET whether Slurm would take the token
 */
static bool _array_tok(const char *tok, uint32_t max, long *first,
		       long *last, long *step)
{
	char *end = NULL;

	*step = 1;
	if (tok[0] == '[')
		tok++;
	errno = 0;
	*first = strtol(tok, &end, 10);
	if (end[0] == ']')
		end++;
	if (*first < 0 || errno)
		return false;
	*last = *first;
	if (end[0] == '-') {
		*last = strtol(end + 1, &end, 10);
		if (end[0] == ']')
			end++;
		if (end[0] == ':') {
			*step = strtol(end + 1, &end, 10);
			if (end[0] == ']')
				end++;
			if (*step <= 0 || (unsigned long)*step >= max)
				return false;
		}
		if (*last < *first || errno)
			return false;
	}
	if (end[0] != '\0' && end[0] != '%')
		return false;
	return (unsigned long)*last < max;
}

/*
 * Walk the tokens of inx; with bits, set every task's bit; else only
 * find the highest task id.  RET 0 or DL_ESYNTAX.
 */
static int _array_walk(char *inx, uint32_t max, unsigned char *bits,
		       long *high)
{
	char *save = NULL, *tok;
	long first, last, step, i;

	*high = -1;
	for (tok = strtok_r(inx, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!_array_tok(tok, max, &first, &last, &step))
			return DL_ESYNTAX;
		if (last > *high)
			*high = last;
		for (i = first; bits && i <= last; i += step)
			bits[i / 8] |= (unsigned char)(1u << (i % 8));
	}
	return *high < 0 ? DL_ESYNTAX : 0;
}

/* The set tasks, or limit of them evenly spread (first and last kept). */
static void _array_pick(const unsigned char *bits, long high, uint64_t total,
			size_t limit, uint32_t *ids, size_t *nids)
{
	uint64_t rank = 0, want = 0;
	size_t k = 0;
	long i;

	for (i = 0; i <= high && k < limit; i++) {
		if (!(bits[i / 8] & (1u << (i % 8))))
			continue;
		if (total > limit)
			want = limit == 1 ? 0 :
					    (uint64_t)k * (total - 1) / (limit - 1);
		if (total <= limit || rank == want)
			ids[k++] = (uint32_t)i;
		rank++;
	}
	*nids = k;
}

int dl_pattern_array_tasks(const char *inx, uint32_t max_size, size_t limit,
			   uint32_t *ids, size_t *nids, uint64_t *total)
{
	unsigned char *bits = NULL;
	uint64_t n = 0;
	char *copy;
	long high, i;
	int rc;

	if (!inx || !ids || !nids || !limit || !max_size ||
	    max_size > DL_PATTERN_NONE)
		return DL_EINVAL;
	*nids = 0;
	if (!(copy = strdup(inx)))
		return DL_ENOMEM;
	/* The first walk bounds the bitmap by the ids named, not MaxArraySize. */
	rc = _array_walk(copy, max_size, NULL, &high);
	if (!rc && !(bits = calloc((size_t)high / 8 + 1, 1)))
		rc = DL_ENOMEM;
	if (!rc) {
		strcpy(copy, inx);
		rc = _array_walk(copy, max_size, bits, &high);
	}
	if (!rc) {
		for (i = 0; i <= high; i++)
			n += (bits[i / 8] >> (i % 8)) & 1u;
		_array_pick(bits, high, n, limit, ids, nids);
		if (total)
			*total = n;
	}
	free(bits);
	free(copy);
	return rc;
}
