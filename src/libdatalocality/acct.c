/*
 * acct.c - the staging record of a job's AdminComment (dl_acct.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dl_acct.h"
#include "dl_decimal.h"
#include "dl_error.h"

int dl_acct_format(const dl_acct_t *a, char *buf, size_t len)
{
	int n;

	/* Milliseconds: a warm job stages in a few. */
	n = snprintf(buf, len, DL_ACCT_TAG " files=%" PRIu64
		     " cached=%" PRIu64 "/%" PRIu64 " peer=%" PRIu64
		     "/%" PRIu64 " storage=%" PRIu64 "/%" PRIu64
		     " direct=%" PRIu64 "/%" PRIu64 " staged_s=%" PRIu64
		     ".%03" PRIu64 " nodes=%" PRIu64,
		     a->files, a->cached, a->cached_bytes, a->peer,
		     a->peer_bytes, a->storage, a->storage_bytes, a->direct,
		     a->direct_bytes, a->staged_ms / 1000, a->staged_ms % 1000,
		     a->nodes);
	if (n < 0 || (size_t)n >= len) {
		if (len)
			buf[0] = '\0';
		return DL_ERANGE;
	}
	return 0;
}

/* "N/B" into two numbers. */
static int _pair(const char *s, size_t n, uint64_t *count, uint64_t *bytes)
{
	const char *slash = memchr(s, '/', n);

	if (!slash)
		return -1;
	size_t nc = (size_t)(slash - s);

	return dl_decimal_u64(s, nc, count) ||
	       dl_decimal_u64(slash + 1, n - nc - 1, bytes) ? -1 : 0;
}

/* Seconds with at most three decimals, into milliseconds. */
static int _seconds(const char *s, size_t n, uint64_t *ms)
{
	const char *dot = memchr(s, '.', n);
	size_t ni = dot ? (size_t)(dot - s) : n, nf = dot ? n - ni - 1 : 0;
	uint64_t whole, frac = 0;

	if (dl_decimal_u64(s, ni, &whole) || (dot && (!nf || nf > 3)) ||
	    whole > UINT64_MAX / 1000)
		return -1;
	for (size_t i = 0; i < 3; i++) {
		unsigned d = i < nf ? (unsigned)(dot[1 + i] - '0') : 0;

		if (d > 9)
			return -1;
		frac = frac * 10 + d;
	}
	if (whole * 1000 > UINT64_MAX - frac)
		return -1;
	*ms = whole * 1000 + frac;
	return 0;
}

/* One key=value of a record; unknown keys are skipped. */
static int _token(const char *t, size_t n, dl_acct_t *a, unsigned *seen)
{
	const char *eq = memchr(t, '=', n);
	size_t kn = eq ? (size_t)(eq - t) : n, vn = eq ? n - kn - 1 : 0;
	const char *v = eq ? eq + 1 : t;
	int rc = 0;

#define KEY(k) (kn == sizeof(k) - 1 && !memcmp(t, k, kn))
	if (!eq)
		return -1;
	if (KEY("files"))
		rc = dl_decimal_u64(v, vn, &a->files), *seen |= 1;
	else if (KEY("cached"))
		rc = _pair(v, vn, &a->cached, &a->cached_bytes), *seen |= 2;
	else if (KEY("peer"))
		rc = _pair(v, vn, &a->peer, &a->peer_bytes), *seen |= 4;
	else if (KEY("storage"))
		rc = _pair(v, vn, &a->storage, &a->storage_bytes), *seen |= 8;
	else if (KEY("direct"))
		rc = _pair(v, vn, &a->direct, &a->direct_bytes);
	else if (KEY("staged_s"))
		rc = _seconds(v, vn, &a->staged_ms);
	else if (KEY("nodes"))
		rc = dl_decimal_u64(v, vn, &a->nodes);
#undef KEY
	return rc;
}

int dl_acct_parse(const char *comment, dl_acct_t *a)
{
	const char *p = comment ? strstr(comment, DL_ACCT_TAG) : NULL;
	const char *end;
	unsigned seen = 0;

	memset(a, 0, sizeof(*a));
	if (!p)
		return DL_ENOENT;
	p += strlen(DL_ACCT_TAG);
	end = p + strcspn(p, ";\n");
	while (p < end) {
		size_t n;

		if (*p == ' ') {
			p++;
			continue;
		}
		n = strcspn(p, " ;\n");
		if (_token(p, n, a, &seen)) {
			memset(a, 0, sizeof(*a));
			return DL_EFORMAT;
		}
		p += n;
	}
	if (seen != 15) {
		memset(a, 0, sizeof(*a));
		return DL_EFORMAT;
	}
	return 0;
}

static void _add(uint64_t *x, uint64_t y)
{
	*x = *x > UINT64_MAX - y ? UINT64_MAX : *x + y;
}

void dl_acct_add(dl_acct_t *sum, const dl_acct_t *b)
{
	_add(&sum->files, b->files);
	_add(&sum->cached, b->cached);
	_add(&sum->cached_bytes, b->cached_bytes);
	_add(&sum->peer, b->peer);
	_add(&sum->peer_bytes, b->peer_bytes);
	_add(&sum->storage, b->storage);
	_add(&sum->storage_bytes, b->storage_bytes);
	_add(&sum->direct, b->direct);
	_add(&sum->direct_bytes, b->direct_bytes);
	_add(&sum->nodes, b->nodes);
	if (b->staged_ms > sum->staged_ms)
		sum->staged_ms = b->staged_ms;
}

char *dl_acct_merge(const char *comment, const dl_acct_t *a)
{
	const char *p = comment ? strstr(comment, DL_ACCT_TAG) : NULL;
	char rec[DL_ACCT_LEN_MAX], *out;
	size_t before, after_off, len;

	dl_acct_format(a, rec, sizeof(rec));
	if (!comment)
		comment = "";
	if (p) {
		before = (size_t)(p - comment);
		after_off = before + strcspn(p, ";\n");
	} else {
		before = after_off = strlen(comment);
	}
	len = strlen(comment) + strlen(rec) + 3;
	if (!(out = malloc(len)))
		return NULL;
	/* Kept around the record: what the admin wrote before and after. */
	snprintf(out, len, "%.*s%s%s%s", (int)before, comment,
		 !p && before ? "; " : "", rec, comment + after_off);
	return out;
}
