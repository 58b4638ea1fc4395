/*
 * files.c - parse the files: annotation, list files and burst-buffer
 * stage_in directives into a deduplicated list of input files.
 *
 * All of this text comes from users, so every parser here is linear in its
 * input apart from one O(n log n) sort that finds duplicates, keeps at most
 * DL_FILES_MAX entries, and builds new entries aside: the caller's list is
 * touched only once nothing can fail any more.
 *
 * Ownership: a list from dl_filelist_new() or dl_files_parse() owns its
 * arrays and every string in them; dl_filelist_free() releases them all.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dl_error.h"
#include "dl_files.h"

/* Bytes of offending text quoted in a message before "..." cuts it. */
#define QUOTE_MAX 60
/* Room for QUOTE_MAX bytes all shown as \xNN, two quotes, "..." and NUL. */
#define QUOTE_BUF (QUOTE_MAX * 4 + 8)
#define REASON_BUF 256

#define FILES_TAG "files:"
#define FILES_TAG_LEN (sizeof(FILES_TAG) - 1)

/*
 * Where a message points: "files: entry 3 ..." or "list line 7 ...".  A
 * list line is never quoted: the list file may be one the user only named,
 * and no message may show what a file contains.
 */
#define LIST_UNIT "list line"
struct where {
	const char *unit; /* "files: entry" or "list line" */
	size_t num;	  /* 1-based entry or line number */
	const char *text; /* the entry or line as written, trimmed */
	size_t len;
};

/* An entry parsed but not yet in the caller's list. */
struct pending {
	char *path;	  /* normalised; owned here until committed */
	uint64_t size;	  /* bytes or DL_SIZE_UNKNOWN */
	size_t num;	  /* entry or line number, for messages */
	const char *text; /* the entry as written, for messages */
	size_t len;
};

struct pendvec {
	struct pending *v;
	size_t n;
	size_t cap;
};

struct sortkey {
	const char *path;
	size_t idx; /* old entries first, then pending ones */
};

/* A size learnt for an entry already in the list. */
struct update {
	size_t idx;
	uint64_t size;
};

/*
 * What merging pending entries into a list will do, worked out before the
 * list is touched.  Indexes number the list's entries 0..nold-1 and the
 * pending ones after them.
 */
struct plan {
	unsigned char *drop;	/* per pending entry: 1 if a duplicate */
	size_t nkeep;		/* pending entries to append */
	struct update *upd;	/* sizes for old entries that had none */
	size_t nupd;
	size_t conflict;	/* first entry whose size clashes, or SIZE_MAX */
	size_t conflict_with;	/* the entry it clashes with */
};

/*
 * Blanks around entries.  Newlines count so that a comment written over
 * several lines still parses; inside a path they are control characters.
 */
static bool _is_blank(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
	       c == '\f';
}

static void _trim(const char **s, const char **e)
{
	while (*s < *e && _is_blank(**s))
		(*s)++;
	while (*e > *s && _is_blank((*e)[-1]))
		(*e)--;
}

static void _clear_err(char *err, size_t errlen)
{
	if (err && errlen)
		err[0] = '\0';
}

/*
 * Render len bytes of s for a message: quoted, cut after QUOTE_MAX bytes,
 * with quotes and backslashes escaped and every byte outside printable
 * ASCII shown as \xNN, so that a hostile entry can neither put control
 * sequences on a terminal or in a log nor split a UTF-8 character.
 * OUT buf - at least QUOTE_BUF bytes
 */
static void _quote(char *buf, const char *s, size_t len)
{
	size_t n = len > QUOTE_MAX ? QUOTE_MAX : len;
	size_t i, o = 0;

	buf[o++] = '"';
	for (i = 0; i < n; i++) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\') {
			buf[o++] = '\\';
			buf[o++] = c;
		} else if (c < 0x20 || c >= 0x7f) {
			snprintf(buf + o, 5, "\\x%02x", c);
			o += 4;
		} else {
			buf[o++] = c;
		}
	}
	if (n < len) {
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	buf[o++] = '"';
	buf[o] = '\0';
}

static void _fail(char *err, size_t errlen, const struct where *w,
		  const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/*
 * Write a message for the user into err: "<unit> <num> "<text>": <reason>",
 * or just the reason when w is NULL.  snprintf() truncates safely and
 * always terminates.
 */
static void _fail(char *err, size_t errlen, const struct where *w,
		  const char *fmt, ...)
{
	char reason[REASON_BUF], quoted[QUOTE_BUF];
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	if (!w) {
		snprintf(err, errlen, "%s", reason);
	} else if (!w->len || !strcmp(w->unit, LIST_UNIT)) {
		snprintf(err, errlen, "%s %zu: %s", w->unit, w->num, reason);
	} else {
		_quote(quoted, w->text, w->len);
		snprintf(err, errlen, "%s %zu %s: %s", w->unit, w->num, quoted,
			 reason);
	}
}

/*
 * Normalise the path in p[0..len): collapse repeated '/', refuse anything
 * the grammar in dl_files.h does not allow.
 * OUT out - on success, a new string the caller frees with free()
 * OUT why - on DL_ESYNTAX, why the path was refused (why may be NULL)
 * RET 0, DL_ESYNTAX or DL_ENOMEM
 */
static int _norm_path(const char *p, size_t len, char **out, char *why,
		      size_t whylen)
{
	char buf[DL_PATH_MAX];
	size_t i = 0, o = 0, start, clen;

	if (!why)
		whylen = 0;
	if (!len || p[0] != '/') {
		snprintf(why, whylen, "path must be absolute (start with '/')");
		return DL_ESYNTAX;
	}
	while (i < len) {
		while (i < len && p[i] == '/')
			i++;
		if (i == len)
			break;
		for (start = i; i < len && p[i] != '/'; i++) {
			unsigned char c = p[i];

			if (c == ' ' || c == '\t') {
				snprintf(why, whylen,
					 "blanks are not allowed in a path");
				return DL_ESYNTAX;
			}
			if (c < 0x20 || c == 0x7f) {
				snprintf(why, whylen,
					 "control character \\x%02x is not allowed in a path",
					 c);
				return DL_ESYNTAX;
			}
			if (c == ',' || c == ';' || c == '=' || c == '@') {
				snprintf(why, whylen,
					 "'%c' is not allowed in a path", c);
				return DL_ESYNTAX;
			}
		}
		clen = i - start;
		if (clen == 2 && p[start] == '.' && p[start + 1] == '.') {
			snprintf(why, whylen,
				 "'..' is not allowed in a path");
			return DL_ESYNTAX;
		}
		if (clen == 1 && p[start] == '.') {
			snprintf(why, whylen,
				 "'.' is not allowed as a path component");
			return DL_ESYNTAX;
		}
		if (o + 1 + clen > DL_PATH_MAX - 1) {
			snprintf(why, whylen, "path is longer than %d bytes",
				 DL_PATH_MAX - 1);
			return DL_ESYNTAX;
		}
		buf[o++] = '/';
		memcpy(buf + o, p + start, clen);
		o += clen;
	}
	if (!o) {
		snprintf(why, whylen, "a path must name a file, not '/'");
		return DL_ESYNTAX;
	}
	if (p[len - 1] == '/') {
		snprintf(why, whylen, "a path must not end with '/'");
		return DL_ESYNTAX;
	}
	buf[o] = '\0';
	if (!(*out = malloc(o + 1)))
		return DL_ENOMEM;
	memcpy(*out, buf, o + 1);
	return 0;
}

static char _upper(char c)
{
	return (c >= 'a' && c <= 'z') ? c - 'a' + 'A' : c;
}

int dl_files_parse_size(const char *s, size_t len, uint64_t *bytes)
{
	static const char units[] = "KMGTP";
	const char *u;
	uint64_t val = 0;
	unsigned int shift = 0;
	size_t i = 0, ndig;

	if (!bytes || (!s && len))
		return DL_EINVAL;
	while (i < len && s[i] >= '0' && s[i] <= '9')
		i++;
	ndig = i;
	if (!ndig)
		return DL_ESYNTAX;
	/*
	 * 'i' is only taken after a unit: "4i" is more likely a typo for
	 * "4Gi" than a way of writing 4 bytes.
	 */
	if (i < len && (u = memchr(units, _upper(s[i]), sizeof(units) - 1))) {
		shift = 10 * (unsigned int)(u - units + 1);
		i++;
		if (i < len && _upper(s[i]) == 'I')
			i++;
	}
	if (i < len && _upper(s[i]) == 'B')
		i++;
	if (i != len)
		return DL_ESYNTAX;

	for (i = 0; i < ndig; i++) {
		unsigned int d = s[i] - '0';

		if (val > (UINT64_MAX - d) / 10)
			return DL_ERANGE;
		val = val * 10 + d;
	}
	if (val > (UINT64_MAX >> shift))
		return DL_ERANGE;
	val <<= shift;
	/* The largest value means "unknown" in a list, so it cannot be one. */
	if (val == DL_SIZE_UNKNOWN)
		return DL_ERANGE;
	*bytes = val;
	return 0;
}

/* _norm_path() for an entry or line, telling the user what is wrong. */
static int _entry_path(const struct where *w, const char *p, size_t len,
		       char **out, char *err, size_t errlen)
{
	char why[REASON_BUF];
	int rc = _norm_path(p, len, out, why, sizeof(why));

	if (rc == DL_ESYNTAX)
		_fail(err, errlen, w, "%s", why);
	return rc;
}

/* dl_files_parse_size() for an entry or line, telling the user too. */
static int _entry_size(const struct where *w, const char *s, size_t len,
		       uint64_t *size, char *err, size_t errlen)
{
	char quoted[QUOTE_BUF];
	int rc = dl_files_parse_size(s, len, size);

	if (!rc)
		return 0;
	_quote(quoted, s, len);
	if (!strcmp(w->unit, LIST_UNIT))
		snprintf(quoted, sizeof(quoted), "(of the line)");
	if (rc == DL_ERANGE)
		_fail(err, errlen, w,
		      "size %s is too large (the limit is 16 EiB)", quoted);
	else
		_fail(err, errlen, w, "bad size %s (use e.g. 4096, 64M, 2GiB)",
		      quoted);
	return rc;
}

/* Append an entry; takes path, freeing it on failure. */
static int _push(struct pendvec *pv, char *path, uint64_t size,
		 const struct where *w)
{
	if (pv->n == pv->cap) {
		size_t cap = pv->cap ? pv->cap * 2 : 16;
		struct pending *v;

		/* DL_FILES_MAX keeps cap far below any overflow. */
		if (!(v = realloc(pv->v, cap * sizeof(*v)))) {
			free(path);
			return DL_ENOMEM;
		}
		pv->v = v;
		pv->cap = cap;
	}
	pv->v[pv->n].path = path;
	pv->v[pv->n].size = size;
	pv->v[pv->n].num = w ? w->num : 0;
	pv->v[pv->n].text = w ? w->text : NULL;
	pv->v[pv->n].len = w ? w->len : 0;
	pv->n++;
	return 0;
}

static void _pend_free(struct pendvec *pv)
{
	size_t i;

	for (i = 0; i < pv->n; i++)
		free(pv->v[i].path);
	free(pv->v);
	pv->v = NULL;
	pv->n = pv->cap = 0;
}

static int _cmp_key(const void *a, const void *b)
{
	const struct sortkey *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	if (c)
		return c;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

static void _plan_free(struct plan *pl)
{
	free(pl->drop);
	free(pl->upd);
}

/*
 * Find the duplicates among old[0..nold) and the pending entries by
 * sorting (path, index) pairs: equal paths end up side by side, the first
 * appearance first, so a single pass decides what to keep.  A duplicate
 * that brings a size where the kept entry had none gives it that size:
 * pending sizes are set in place, old ones recorded in pl->upd.
 * The old entries are assumed to be free of duplicates already.
 * OUT pl - free with _plan_free(), also on error
 * RET 0 or DL_ENOMEM; a size conflict is reported in pl->conflict
 */
static int _plan(const dl_file_ref_t *old, size_t nold, struct pendvec *pv,
		 struct plan *pl)
{
	size_t total = nold + pv->n, ndrop = 0, i, j;
	struct sortkey *keys;

	memset(pl, 0, sizeof(*pl));
	pl->conflict = pl->conflict_with = SIZE_MAX;
	if (!pv->n)
		return 0;
	keys = malloc(total * sizeof(*keys));
	pl->drop = calloc(pv->n, 1);
	pl->upd = malloc(pv->n * sizeof(*pl->upd));
	if (!keys || !pl->drop || !pl->upd) {
		free(keys);
		return DL_ENOMEM;
	}
	for (i = 0; i < nold; i++) {
		keys[i].path = old[i].path;
		keys[i].idx = i;
	}
	for (i = 0; i < pv->n; i++) {
		keys[nold + i].path = pv->v[i].path;
		keys[nold + i].idx = nold + i;
	}
	qsort(keys, total, sizeof(*keys), _cmp_key);

	for (i = 0; i < total; i = j) {
		size_t keep = keys[i].idx, first = SIZE_MAX;
		uint64_t size = keep < nold ? old[keep].size :
					      pv->v[keep - nold].size;

		if (size != DL_SIZE_UNKNOWN)
			first = keep;
		for (j = i + 1;
		     j < total && !strcmp(keys[j].path, keys[i].path); j++) {
			size_t idx = keys[j].idx;
			uint64_t s;

			if (idx < nold)
				continue;
			pl->drop[idx - nold] = 1;
			ndrop++;
			s = pv->v[idx - nold].size;
			if (s == DL_SIZE_UNKNOWN)
				continue;
			if (size == DL_SIZE_UNKNOWN) {
				size = s;
				first = idx;
			} else if (s != size && idx < pl->conflict) {
				pl->conflict = idx;
				pl->conflict_with = first;
			}
		}
		if (keep >= nold) {
			pv->v[keep - nold].size = size;
		} else if (size != old[keep].size) {
			pl->upd[pl->nupd].idx = keep;
			pl->upd[pl->nupd].size = size;
			pl->nupd++;
		}
	}
	free(keys);
	pl->nkeep = pv->n - ndrop;
	return 0;
}

/*
 * Say which entry clashes with which.  The clashing entry is always a
 * pending one; the one it clashes with may already be in the list.
 */
static void _fail_conflict(const struct plan *pl, size_t nold,
			   const dl_file_ref_t *old, const struct pendvec *pv,
			   const char *unit, const char *other, char *err,
			   size_t errlen)
{
	const struct pending *c = &pv->v[pl->conflict - nold];
	struct where w = { unit, c->num, c->text, c->len };
	char quoted[QUOTE_BUF];

	if (pl->conflict_with < nold) {
		_fail(err, errlen, &w,
		      "this path already has another size (%llu bytes)",
		      (unsigned long long)old[pl->conflict_with].size);
	} else if (!strcmp(unit, LIST_UNIT)) {
		_fail(err, errlen, &w, "same path as %s %zu with another size",
		      other, pv->v[pl->conflict_with - nold].num);
	} else {
		const struct pending *f = &pv->v[pl->conflict_with - nold];

		_quote(quoted, f->text, f->len);
		_fail(err, errlen, &w,
		      "same path as %s %zu %s with another size", other,
		      f->num, quoted);
	}
}

/*
 * Move the kept pending entries to the end of list->files and give old
 * entries the sizes their duplicates brought.  Frees the duplicates.
 * RET 0 or DL_ENOMEM, in which case list is unchanged
 */
static int _commit(dl_filelist_t *list, struct pendvec *pv,
		   const struct plan *pl)
{
	size_t i, n = list->count;

	if (pl->nkeep) {
		dl_file_ref_t *files = realloc(
			list->files, (n + pl->nkeep) * sizeof(*files));

		if (!files)
			return DL_ENOMEM;
		list->files = files;
	}
	/* Nothing below can fail. */
	for (i = 0; i < pv->n; i++) {
		if (pl->drop[i]) {
			free(pv->v[i].path);
		} else {
			list->files[n].path = pv->v[i].path;
			list->files[n].size = pv->v[i].size;
			n++;
		}
		pv->v[i].path = NULL;
	}
	for (i = 0; i < pl->nupd; i++)
		list->files[pl->upd[i].idx].size = pl->upd[i].size;
	list->count = n;
	pv->n = 0;
	return 0;
}

/*
 * Merge pending entries into list, all or nothing.
 * RET 0, DL_ESYNTAX (size conflict), DL_ETOOBIG or DL_ENOMEM
 */
static int _merge(dl_filelist_t *list, struct pendvec *pv, const char *unit,
		  const char *other, char *err, size_t errlen)
{
	struct plan pl;
	int rc;

	if ((rc = _plan(list->files, list->count, pv, &pl)))
		goto out;
	if (pl.conflict != SIZE_MAX) {
		_fail_conflict(&pl, list->count, list->files, pv, unit, other,
			       err, errlen);
		rc = DL_ESYNTAX;
		goto out;
	}
	if (pl.nkeep > DL_FILES_MAX - list->count) {
		_fail(err, errlen, NULL,
		      "files: the job would have more than %d files",
		      DL_FILES_MAX);
		rc = DL_ETOOBIG;
		goto out;
	}
	rc = _commit(list, pv, &pl);
out:
	_plan_free(&pl);
	return rc;
}

/*
 * Walk the ';'-separated segments of a comment.
 * OUT seg, seglen - what follows "files:" in the first files: segment, or
 *                   NULL if there is none
 * OUT nseg - how many files: segments there are (stops counting at 2)
 */
static void _find_segment(const char *comment, const char **seg,
			  size_t *seglen, int *nseg)
{
	const char *p = comment, *end, *q;

	*seg = NULL;
	*seglen = 0;
	*nseg = 0;
	for (;;) {
		end = p + strcspn(p, ";");
		for (q = p; q < end && _is_blank(*q); q++)
			;
		if ((size_t)(end - q) >= FILES_TAG_LEN &&
		    !memcmp(q, FILES_TAG, FILES_TAG_LEN)) {
			if (++*nseg == 1) {
				*seg = q + FILES_TAG_LEN;
				*seglen = end - *seg;
			} else {
				return;
			}
		}
		if (!*end)
			return;
		p = end + 1;
	}
}

/* Add from's list-file paths to list, each once; RET 0 or DL_ENOMEM. */
static int _merge_lists(dl_filelist_t *list, const dl_filelist_t *from)
{
	char **v;
	size_t i, k;

	if (!from->nlists)
		return 0;
	v = realloc(list->lists, (list->nlists + from->nlists) * sizeof(*v));
	if (!v)
		return DL_ENOMEM;
	list->lists = v;
	for (i = 0; i < from->nlists; i++) {
		for (k = 0; k < list->nlists; k++)
			if (!strcmp(list->lists[k], from->lists[i]))
				break;
		if (k < list->nlists)
			continue;
		if (!(list->lists[list->nlists] = strdup(from->lists[i])))
			return DL_ENOMEM;
		list->nlists++;
	}
	return 0;
}

/*
 * Entries go through the list-file parser as "path [size]" lines, which
 * brings its deduplication and checks.
 */
int dl_files_merge(dl_filelist_t *list, const dl_filelist_t *from, char *err,
		   size_t errlen)
{
	size_t i, len = 1, at = 0;
	char *text;
	int rc;

	_clear_err(err, errlen);
	if (!list || !from)
		return DL_EINVAL;
	for (i = 0; i < from->count; i++)
		len += strlen(from->files[i].path) + 22;
	if (!(text = malloc(len)))
		return DL_ENOMEM;
	text[0] = '\0';
	for (i = 0; i < from->count; i++)
		at += (from->files[i].size == DL_SIZE_UNKNOWN) ?
			      (size_t)sprintf(text + at, "%s\n",
					      from->files[i].path) :
			      (size_t)sprintf(text + at, "%s %llu\n",
					      from->files[i].path,
					      (unsigned long long)from->files[i].size);
	rc = dl_files_parse_list(text, at, list, err, errlen);
	free(text);
	return rc ? rc : _merge_lists(list, from);
}

void dl_files_format_size(uint64_t bytes, int long_units, char *buf,
			  size_t len)
{
	static const char *lu[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	static const char *su[] = { "B", "K", "M", "G", "T", "P" };
	double v = (double)bytes;
	int u = 0;

	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, u ? (long_units ? "%.1f %s" : "%.1f%s") :
			       (long_units ? "%.0f %s" : "%.0f%s"),
		 v, long_units ? lu[u] : su[u]);
}

int dl_files_has_annotation(const char *comment)
{
	const char *seg;
	size_t seglen;
	int nseg;

	if (!comment)
		return 0;
	_find_segment(comment, &seg, &seglen, &nseg);
	return nseg > 0;
}

/* Parse one trimmed entry of a files: segment into files or lists. */
static int _parse_entry(const struct where *w, struct pendvec *files,
			struct pendvec *lists, char *err, size_t errlen)
{
	const char *s = w->text, *eq;
	char *path = NULL;
	uint64_t size = DL_SIZE_UNKNOWN;
	size_t plen = w->len;
	int rc;

	if (s[0] == '@') {
		if (w->len == 1) {
			_fail(err, errlen, w,
			      "'@' must be followed by the path of a list file");
			return DL_ESYNTAX;
		}
		if (memchr(s, '=', w->len)) {
			_fail(err, errlen, w,
			      "a list file takes no size (put sizes inside it)");
			return DL_ESYNTAX;
		}
		rc = _entry_path(w, s + 1, w->len - 1, &path, err, errlen);
		if (rc)
			return rc;
		return _push(lists, path, DL_SIZE_UNKNOWN, w);
	}

	if ((eq = memchr(s, '=', w->len))) {
		plen = eq - s;
		if (!plen) {
			_fail(err, errlen, w, "missing path before '='");
			return DL_ESYNTAX;
		}
	}
	if ((rc = _entry_path(w, s, plen, &path, err, errlen)))
		return rc;
	if (eq && (rc = _entry_size(w, eq + 1, w->len - plen - 1, &size, err,
				    errlen))) {
		free(path);
		return rc;
	}
	return _push(files, path, size, w);
}

/* Parse what follows "files:" into files and lists. */
static int _parse_entries(const char *seg, size_t seglen,
			  struct pendvec *files, struct pendvec *lists,
			  char *err, size_t errlen)
{
	const char *end = seg + seglen, *p = seg, *s, *e, *comma;
	struct where w = { "files: entry", 0, NULL, 0 };
	size_t n = 1;
	int rc;

	s = seg;
	e = end;
	_trim(&s, &e);
	if (s == e) {
		_fail(err, errlen, NULL, "files: no file listed");
		return DL_ESYNTAX;
	}
	/* Count first, so that a huge list fails before any allocation. */
	for (s = seg; (comma = memchr(s, ',', end - s)); s = comma + 1) {
		if (++n > DL_FILES_MAX) {
			_fail(err, errlen, NULL, "files: more than %d entries",
			      DL_FILES_MAX);
			return DL_ETOOBIG;
		}
	}

	for (;;) {
		if (!(comma = memchr(p, ',', end - p)))
			comma = end;
		s = p;
		e = comma;
		_trim(&s, &e);
		w.num++;
		w.text = s;
		w.len = e - s;
		if (s == e) {
			_fail(err, errlen, &w, "empty entry (%s)",
			      w.num == 1   ? "comma right after files:?" :
			      comma == end ? "trailing comma?" :
					     "two commas in a row?");
			return DL_ESYNTAX;
		}
		if ((rc = _parse_entry(&w, files, lists, err, errlen)))
			return rc;
		if (comma == end)
			return 0;
		p = comma + 1;
	}
}

/* Turn the pending '@' entries into list->lists, dropping repeats. */
static int _set_lists(dl_filelist_t *list, struct pendvec *lists)
{
	struct plan pl;
	size_t i, n = 0;
	int rc;

	if (!lists->n)
		return 0;
	if ((rc = _plan(NULL, 0, lists, &pl)))
		goto out;
	if (!(list->lists = malloc(pl.nkeep * sizeof(*list->lists)))) {
		rc = DL_ENOMEM;
		goto out;
	}
	for (i = 0; i < lists->n; i++) {
		if (pl.drop[i])
			free(lists->v[i].path);
		else
			list->lists[n++] = lists->v[i].path;
		lists->v[i].path = NULL;
	}
	list->nlists = n;
out:
	_plan_free(&pl);
	return rc;
}

int dl_files_parse(const char *comment, dl_filelist_t **out, char *err,
		   size_t errlen)
{
	struct pendvec files = { 0 }, lists = { 0 };
	dl_filelist_t *list;
	const char *seg;
	size_t seglen;
	int nseg, rc;

	_clear_err(err, errlen);
	if (!out)
		return DL_EINVAL;
	*out = NULL;
	if (!(list = dl_filelist_new())) {
		_fail(err, errlen, NULL, "files: out of memory");
		return DL_ENOMEM;
	}
	if (!comment) {
		*out = list;
		return 0;
	}
	_find_segment(comment, &seg, &seglen, &nseg);
	if (nseg > 1) {
		_fail(err, errlen, NULL,
		      "files: more than one files: segment (list all files in one)");
		rc = DL_ESYNTAX;
		goto fail;
	}
	if (!seg) {
		*out = list;
		return 0;
	}
	if ((rc = _parse_entries(seg, seglen, &files, &lists, err, errlen)))
		goto fail;
	if ((rc = _merge(list, &files, "files: entry", "entry", err, errlen)))
		goto fail;
	if ((rc = _set_lists(list, &lists)))
		goto fail;
	_pend_free(&files);
	_pend_free(&lists);
	*out = list;
	return 0;
fail:
	if (rc == DL_ENOMEM)
		_fail(err, errlen, NULL, "files: out of memory");
	_pend_free(&files);
	_pend_free(&lists);
	dl_filelist_free(list);
	return rc;
}

/* Parse one trimmed, non-comment line "path [size]" of a list file. */
static int _parse_line(const struct where *w, struct pendvec *pv, char *err,
		       size_t errlen)
{
	const char *s = w->text, *end = s + w->len, *pe, *z = NULL, *ze = NULL;
	uint64_t size = DL_SIZE_UNKNOWN;
	char *path;
	int rc;

	for (pe = s; pe < end && !_is_blank(*pe); pe++)
		;
	if (pe < end) {
		for (z = pe; _is_blank(*z); z++)
			;
		for (ze = z; ze < end && !_is_blank(*ze); ze++)
			;
		if (ze < end) {
			_fail(err, errlen, w,
			      "unexpected text after the size (a line is \"path [size]\")");
			return DL_ESYNTAX;
		}
	}
	if (s[0] == '@') {
		_fail(err, errlen, w,
		      "a list file may not name another list file");
		return DL_ESYNTAX;
	}
	if (memchr(s, '=', pe - s)) {
		_fail(err, errlen, w,
		      "'=' is not allowed in a path (a line is \"path [size]\")");
		return DL_ESYNTAX;
	}
	if ((rc = _entry_path(w, s, pe - s, &path, err, errlen)))
		return rc;
	if (z && (rc = _entry_size(w, z, ze - z, &size, err, errlen))) {
		free(path);
		return rc;
	}
	return _push(pv, path, size, w);
}

int dl_files_parse_list(const char *text, size_t len, dl_filelist_t *list,
			char *err, size_t errlen)
{
	struct where w = { LIST_UNIT, 0, NULL, 0 };
	struct pendvec pv = { 0 };
	const char *nul, *s, *e;
	size_t pos, eol;
	int rc = 0;

	_clear_err(err, errlen);
	if (!list || (!text && len))
		return DL_EINVAL;
	if (!len)
		return 0;
	/* A NUL byte means a binary file, never a list someone wrote. */
	if ((nul = memchr(text, '\0', len))) {
		const char *p;

		w.num = 1;
		for (p = text; (p = memchr(p, '\n', nul - p)); p++)
			w.num++;
		_fail(err, errlen, &w, "NUL byte (is this a text file?)");
		return DL_ESYNTAX;
	}
	for (pos = 0; pos < len; pos = eol + 1) {
		const char *nl = memchr(text + pos, '\n', len - pos);

		eol = nl ? (size_t)(nl - text) : len;
		w.num++;
		s = text + pos;
		e = text + eol;
		_trim(&s, &e);
		if (s == e || *s == '#')
			continue;
		w.text = s;
		w.len = e - s;
		if (pv.n == DL_FILES_MAX) {
			_fail(err, errlen, &w, "more than %d entries",
			      DL_FILES_MAX);
			rc = DL_ETOOBIG;
			goto out;
		}
		if ((rc = _parse_line(&w, &pv, err, errlen)))
			goto out;
	}
	rc = _merge(list, &pv, LIST_UNIT, "line", err, errlen);
out:
	if (rc == DL_ENOMEM)
		_fail(err, errlen, NULL, "files: out of memory");
	_pend_free(&pv);
	return rc;
}

/*
 * Find the source of a "#BB stage_in" or "#DW stage_in" directive in the
 * line s[0..len), as long as the directive copies a single file.
 * OUT src, srclen - the source as written
 * RET true if the line is such a directive
 */
static bool _bb_source(const char *s, size_t len, const char **src,
		       size_t *srclen)
{
	const char *end = s + len, *tok, *eq, *type = NULL;
	size_t klen, tlen = 0;

	*src = NULL;
	while (s < end && _is_blank(*s))
		s++;
	if (end - s < 3 || (memcmp(s, "#BB", 3) && memcmp(s, "#DW", 3)))
		return false;
	s += 3;
	if (s == end || !_is_blank(*s))
		return false;
	while (s < end && _is_blank(*s))
		s++;
	if (end - s < 8 || memcmp(s, "stage_in", 8))
		return false;
	s += 8;
	if (s < end && !_is_blank(*s))
		return false;

	for (;;) {
		while (s < end && _is_blank(*s))
			s++;
		if (s == end)
			break;
		for (tok = s; s < end && !_is_blank(*s); s++)
			;
		if (!(eq = memchr(tok, '=', s - tok)))
			return false;
		klen = eq - tok;
		eq++;
		if ((klen == 6 && !memcmp(tok, "source", 6)) ||
		    (klen == 3 && !memcmp(tok, "src", 3))) {
			if (*src)
				return false;
			*src = eq;
			*srclen = s - eq;
		} else if (klen == 4 && !memcmp(tok, "type", 4)) {
			if (type)
				return false;
			type = eq;
			tlen = s - eq;
		}
		/*
		 * Other keys (destination, dst, anything newer) do not
		 * matter here; the burst-buffer plugin validates them.
		 */
	}
	if (!*src)
		return false;
	if (type && !(tlen == 4 && !memcmp(type, "file", 4)))
		return false;
	return true;
}

/*
 * Add the file that one line of a burst-buffer spec stages in, if any.
 * RET 0, DL_ETOOBIG or DL_ENOMEM
 */
static int _bb_line(const char *s, size_t len, struct pendvec *pv)
{
	const char *src;
	size_t srclen;
	char *path;
	int rc;

	if (!_bb_source(s, len, &src, &srclen))
		return 0;
	/*
	 * A source with a scheme such as s3:// is not absolute, and a bad
	 * path is skipped like any other malformed directive.
	 */
	rc = _norm_path(src, srclen, &path, NULL, 0);
	if (rc == DL_ESYNTAX)
		return 0;
	if (rc)
		return rc;
	if (pv->n == DL_FILES_MAX) {
		free(path);
		return DL_ETOOBIG;
	}
	return _push(pv, path, DL_SIZE_UNKNOWN, NULL);
}

int dl_files_bb_stage_in(const char *bb_spec, dl_filelist_t *list)
{
	struct pendvec pv = { 0 };
	const char *p;
	size_t len;
	int rc;

	if (!list)
		return DL_EINVAL;
	if (!bb_spec)
		return 0;
	for (p = bb_spec;; p += len + 1) {
		len = strcspn(p, "\n");
		if ((rc = _bb_line(p, len, &pv)))
			goto out;
		if (!p[len])
			break;
	}
	/* Without sizes there can be no conflict, hence no message. */
	rc = _merge(list, &pv, "bb line", "line", NULL, 0);
out:
	_pend_free(&pv);
	return rc;
}

char *dl_files_format(const dl_filelist_t *list)
{
	size_t len = 8, n = 0;
	char *s;

	for (size_t i = 0; i < list->count; i++)
		len += strlen(list->files[i].path) + 24;
	for (size_t i = 0; i < list->nlists; i++)
		len += strlen(list->lists[i]) + 2;
	if (!(s = malloc(len)))
		return NULL;
	s[0] = '\0';
	if (!list->count && !list->nlists)
		return s;
	n = (size_t)sprintf(s, "files:");
	for (size_t i = 0; i < list->count; i++) {
		n += (size_t)sprintf(s + n, "%s%s", i ? "," : "",
				     list->files[i].path);
		if (list->files[i].size != DL_SIZE_UNKNOWN)
			n += (size_t)sprintf(s + n, "=%llu",
					     (unsigned long long)
						     list->files[i].size);
	}
	for (size_t i = 0; i < list->nlists; i++)
		n += (size_t)sprintf(s + n, "%s@%s", n > 6 ? "," : "",
				     list->lists[i]);
	return s;
}

dl_filelist_t *dl_filelist_new(void)
{
	return calloc(1, sizeof(dl_filelist_t));
}

void dl_filelist_free(dl_filelist_t *list)
{
	size_t i;

	if (!list)
		return;
	for (i = 0; i < list->count; i++)
		free(list->files[i].path);
	for (i = 0; i < list->nlists; i++)
		free(list->lists[i]);
	free(list->files);
	free(list->lists);
	free(list);
}
