/*
 * msg.c - encoding and decoding the message bodies (dl_net_msg.h).
 * The first line of every body is described by a table of keys per type,
 * so that the encoder and the decoder cannot disagree on it; the lines
 * after it come in a few shapes (file lines, a msg= line, free text).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dl_decimal.h"
#include "dl_error.h"
#include "dl_net_msg.h"
#include "net_int.h"

enum kind {
	K_U64,      /* plain decimal */
	K_U32,      /* job ids */
	K_ID,       /* uid, gid: below (uid_t)-1 */
	K_I64,      /* nanosecond times */
	K_BOOL,     /* 0 or 1 */
	K_CAP,      /* a number or "unlimited" */
	K_NAME,     /* node name: a token without '@' */
	K_USER,     /* user name: a token */
	K_PATH,     /* m->path */
	K_PEER,     /* peer_host:peer_port */
	K_SHA,      /* 64 lower-case hex digits */
	K_NFILES,   /* the number of file lines that follow */
};

/* What follows the first line. */
enum rest { R_NONE, R_INV, R_DELTA, R_PREFETCH, R_LOCATE, R_LOCATED,
	    R_MSG, R_TEXT, R_WHY };

typedef struct field {
	const char *key;
	enum kind kind;
	size_t off;
	int required;
} field_t;

#define F(k, kind, member, req) { k, kind, offsetof(dl_msg_t, member), req }
#define C(k, member) F(#k, K_U64, count.member, 0)
#define MAX_FIELDS 24 /* with room for the NULL key that ends a list */

typedef struct spec {
	enum rest rest;
	field_t f[MAX_FIELDS];
} spec_t;

static const spec_t _specs[DL_NET_TYPE_MAX + 1] = {
	[DL_NET_HELLO] = { R_NONE,
		{ F("node", K_NAME, node, 1), F("peer", K_PEER, peer_host, 1),
		  F("capacity", K_CAP, capacity, 1), F("used", K_U64, used, 1),
		  F("storage_bytes", K_U64, storage_bytes, 1),
		  F("peer_bytes", K_U64, peer_bytes, 1) } },
	[DL_NET_INV] = { R_INV,
		{ F("part", K_U64, part, 1), F("last", K_BOOL, last, 1),
		  F("files", K_NFILES, nfiles, 1) } },
	[DL_NET_DELTA] = { R_DELTA,
		{ F("storage_bytes", K_U64, storage_bytes, 1),
		  F("peer_bytes", K_U64, peer_bytes, 1),
		  F("used", K_U64, used, 1) } },
	[DL_NET_PREFETCH] = { R_PREFETCH,
		{ F("job", K_U32, job, 1), F("uid", K_ID, uid, 1),
		  F("gid", K_ID, gid, 1), F("user", K_USER, user, 1),
		  F("expires", K_U64, expires, 1) } },
	[DL_NET_CANCEL] = { R_NONE, { F("job", K_U32, job, 1) } },
	[DL_NET_PREFETCH_DONE] = { R_MSG,
		{ F("job", K_U32, job, 1), F("files", K_U64, count.files, 1),
		  F("cached", K_U64, count.cached, 1),
		  F("from_peers", K_U64, count.from_peers, 1),
		  F("failed", K_U64, count.failed, 1),
		  F("user_fault", K_BOOL, count.user_fault, 1),
		  C(storage_bytes, storage_bytes), C(storage_us, storage_us),
		  C(peer_bytes, peer_bytes), C(peer_us, peer_us) } },
	[DL_NET_LOCATE] = { R_LOCATE, { F("req", K_U64, req, 1) } },
	[DL_NET_LOCATED] = { R_LOCATED, { F("req", K_U64, req, 1) } },
	[DL_NET_FETCH] = { R_NONE,
		{ F("uid", K_ID, uid, 1), F("gid", K_ID, gid, 1),
		  F("user", K_USER, user, 1), F("path", K_PATH, path, 1),
		  F("size", K_U64, size, 1), F("ino", K_U64, ino, 1),
		  F("mtime_ns", K_I64, mtime_ns, 1),
		  F("ctime_ns", K_I64, ctime_ns, 1) } },
	[DL_NET_FETCH_OK] = { R_NONE,
		{ F("size", K_U64, size, 1), F("sha256", K_SHA, sha256, 1),
		  F("verified_ns", K_I64, verified_ns, 0) } },
	[DL_NET_FETCH_REFUSED] = { R_WHY, { { 0 } } },
	[DL_NET_STAGE] = { R_TEXT,
		{ F("job", K_U32, job, 1), F("uid", K_ID, uid, 1),
		  F("gid", K_ID, gid, 1), F("user", K_USER, user, 1),
		  F("patterns", K_BOOL, patterns, 0),
		  F("task", K_U32, task, 0), F("array", K_U32, array, 0),
		  F("jobname", K_USER, jobname, 0) } },
	[DL_NET_END] = { R_NONE, { F("job", K_U32, job, 1) } },
	[DL_NET_REPORT] = { R_MSG,
		{ F("job", K_U32, job, 0), C(staged_ms, staged_ms),
		  C(files, files), C(hits, hits), C(copied, copied),
		  C(waited, waited), C(uncached, uncached),
		  C(nospace, nospace), C(verified, verified),
		  C(evicted, evicted), F("bypassed", K_BOOL, count.bypassed, 0),
		  C(bytes_hit, bytes_hit), C(bytes_copied, bytes_copied),
		  C(bytes_uncached, bytes_uncached),
		  C(bytes_evicted, bytes_evicted),
		  C(from_peers, from_peers),
		  C(storage_bytes, storage_bytes),
		  C(peer_bytes, peer_bytes), C(fallbacks, fallbacks),
		  F("user_fault", K_BOOL, count.user_fault, 0),
		  C(storage_us, storage_us), C(peer_us, peer_us) } },
	[DL_NET_STAGING] = { R_NONE,
		{ F("job", K_U32, job, 1), F("done", K_BOOL, done, 1),
		  F("secs", K_U64, secs, 0) } },
};

/* ---- checks shared by both directions -------------------------------- */

static int _token_ok(const char *s, size_t n)
{
	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] <= ' ' || s[i] == 0x7f)
			return 0;
	return 1;
}

static int _path_ok(const char *s, size_t n)
{
	return n < DL_MSG_PATH_MAX && n && s[0] == '/' && _token_ok(s, n);
}

static int _name_ok(const char *s, size_t n, int at_ok)
{
	return n < DL_MSG_NAME_MAX && _token_ok(s, n) &&
	       (at_ok || !memchr(s, '@', n));
}

static int _i64(const char *s, size_t n, int64_t *out)
{
	int neg = n && s[0] == '-';
	uint64_t v;

	if (dl_decimal_u64(s + neg, n - neg, &v) || v > INT64_MAX ||
	    (neg && !v))
		return -1;
	*out = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

static int _is_sha(const char *s, size_t n)
{
	if (n != 64)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		      (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}

/* "node@host:port" */
static int _peer_parse(const char *s, size_t n, dl_msg_peer_t *p)
{
	const char *at = memchr(s, '@', n), *colon = NULL;
	uint64_t port;

	if (!at)
		return -1;
	for (const char *q = s + n; q > at; q--)
		if (q[-1] == ':') {
			colon = q - 1;
			break;
		}
	if (!colon || !_name_ok(s, (size_t)(at - s), 0) ||
	    !_name_ok(at + 1, (size_t)(colon - at - 1), 0) ||
	    dl_decimal_u64(colon + 1, (size_t)(s + n - colon - 1), &port) ||
	    !port || port > 65535)
		return -1;
	memcpy(p->node, s, (size_t)(at - s));
	p->node[at - s] = '\0';
	memcpy(p->host, at + 1, (size_t)(colon - at - 1));
	p->host[colon - at - 1] = '\0';
	p->port = (uint16_t)port;
	return 0;
}

/* ---- building messages ----------------------------------------------- */

void dl_msg_init(dl_msg_t *m, uint32_t type)
{
	memset(m, 0, sizeof(*m));
	m->type = type;
}

void dl_msg_free(dl_msg_t *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nfiles; i++) {
		free(m->files[i].path);
		free(m->files[i].peers);
	}
	free(m->files);
	free(m->path);
	free(m->text);
	memset(m, 0, sizeof(*m));
}

dl_msg_file_t *dl_msg_add_file(dl_msg_t *m, const char *path, uint64_t size,
			       char op)
{
	dl_msg_file_t *f, *v;
	size_t cap = m->nfiles ? m->nfiles * 2 : 16;

	if (m->nfiles >= DL_MSG_FILES_MAX)
		return NULL;
	/* capacity is the next power of two times 16: grow when full */
	if (!(m->nfiles & (m->nfiles - 1)) && m->nfiles >= 16) {
		v = realloc(m->files, cap * sizeof(*v));
		if (!v)
			return NULL;
		m->files = v;
	} else if (!m->files) {
		if (!(m->files = malloc(16 * sizeof(*m->files))))
			return NULL;
	}
	f = &m->files[m->nfiles];
	memset(f, 0, sizeof(*f));
	if (!(f->path = strdup(path)))
		return NULL;
	f->size = size;
	f->op = op;
	m->nfiles++;
	return f;
}

int dl_msg_file_add_peer(dl_msg_file_t *f, const char *node,
			 const char *host, uint16_t port)
{
	dl_msg_peer_t *v;

	if (f->npeers >= DL_MSG_PEERS_MAX || strlen(node) >= DL_MSG_NAME_MAX ||
	    strlen(host) >= DL_MSG_NAME_MAX)
		return DL_ERANGE;
	v = realloc(f->peers, (f->npeers + 1) * sizeof(*v));
	if (!v)
		return DL_ENOMEM;
	f->peers = v;
	strcpy(v[f->npeers].node, node);
	strcpy(v[f->npeers].host, host);
	v[f->npeers].port = port;
	f->npeers++;
	return 0;
}

static int _set(char **dst, const char *s)
{
	char *c = NULL;

	if (s && !(c = strdup(s)))
		return DL_ENOMEM;
	free(*dst);
	*dst = c;
	return 0;
}

int dl_msg_set_text(dl_msg_t *m, const char *s)
{
	return _set(&m->text, s);
}

int dl_msg_set_path(dl_msg_t *m, const char *s)
{
	return _set(&m->path, s);
}

size_t dl_msg_line_bytes(const dl_msg_file_t *f)
{
	return strlen(f->path) + 24;
}

/* ---- encoding -------------------------------------------------------- */

typedef struct buf {
	char *p;
	size_t len, cap;
	int rc;
} buf_t;

static void _add(buf_t *b, const char *s, size_t n)
{
	char *p;
	size_t cap;

	if (b->rc)
		return;
	if (b->len + n + 1 > DL_NET_BODY_MAX + 1) {
		b->rc = DL_ETOOBIG;
		return;
	}
	if (b->len + n + 1 > b->cap) {
		cap = b->cap ? b->cap : 256;
		while (cap < b->len + n + 1)
			cap *= 2;
		if (!(p = realloc(b->p, cap))) {
			b->rc = DL_ENOMEM;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

__attribute__((format(printf, 2, 3)))
static void _addf(buf_t *b, const char *fmt, ...)
{
	char s[DL_MSG_NAME_MAX * 2 + 64];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(s, sizeof(s), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(s)) {
		b->rc = b->rc ? b->rc : DL_EINVAL;
		return;
	}
	_add(b, s, (size_t)n);
}

static void _adds(buf_t *b, const char *s)
{
	_add(b, s, strlen(s));
}

/* One line of text: control characters flattened to blanks. */
static void _add_line(buf_t *b, const char *key, const char *s)
{
	size_t start, n = strlen(s);

	if (n > DL_MSG_TEXT_MAX)
		n = DL_MSG_TEXT_MAX;
	_adds(b, key);
	start = b->len;
	_add(b, s, n);
	for (size_t i = start; !b->rc && i < b->len; i++)
		if ((unsigned char)b->p[i] < ' ' || b->p[i] == 0x7f)
			b->p[i] = ' ';
	_add(b, "\n", 1);
}

static int _enc_field(buf_t *b, const dl_msg_t *m, const field_t *f)
{
	const char *at = (const char *)m + f->off;
	uint64_t v;

	switch (f->kind) {
	case K_U64:
	case K_U32:
	case K_ID:
	case K_BOOL:
		memcpy(&v, at, sizeof(v));
		if ((f->kind == K_U32 && v > UINT32_MAX) ||
		    (f->kind == K_ID && v >= UINT32_MAX) ||
		    (f->kind == K_BOOL && v > 1))
			return -1;
		_addf(b, "%s=%" PRIu64, f->key, v);
		break;
	case K_I64:
		_addf(b, "%s=%" PRId64, f->key, *(const int64_t *)at);
		break;
	case K_CAP:
		memcpy(&v, at, sizeof(v));
		if (v == DL_MSG_UNLIMITED)
			_addf(b, "%s=unlimited", f->key);
		else
			_addf(b, "%s=%" PRIu64, f->key, v);
		break;
	case K_NAME:
	case K_USER:
		if (!_name_ok(at, strlen(at), f->kind == K_USER))
			return -1;
		_addf(b, "%s=%s", f->key, at);
		break;
	case K_PATH:
		if (!m->path || !_path_ok(m->path, strlen(m->path)))
			return -1;
		_adds(b, f->key);
		_adds(b, "=");
		_adds(b, m->path);
		break;
	case K_PEER:
		if (!_name_ok(m->peer_host, strlen(m->peer_host), 0) ||
		    !m->peer_port)
			return -1;
		_addf(b, "%s=%s:%u", f->key, m->peer_host, m->peer_port);
		break;
	case K_SHA:
		if (!_is_sha(at, strlen(at)))
			return -1;
		_addf(b, "%s=%s", f->key, at);
		break;
	case K_NFILES:
		_addf(b, "%s=%zu", f->key, m->nfiles);
		break;
	}
	return 0;
}

static int _enc_file(buf_t *b, enum rest rest, const dl_msg_file_t *f)
{
	if (!f->path || !_path_ok(f->path, strlen(f->path)))
		return -1;
	if (rest == R_DELTA) {
		if (f->op != '+' && f->op != '-')
			return -1;
		_add(b, f->op == '+' ? "+ " : "- ", 2);
	}
	_adds(b, f->path);
	if (rest == R_INV || rest == R_PREFETCH ||
	    (rest == R_DELTA && f->op == '+'))
		_addf(b, " %" PRIu64, f->size);
	if (rest == R_PREFETCH || rest == R_LOCATED) {
		if (f->npeers > DL_MSG_PEERS_MAX ||
		    (rest == R_LOCATED && !f->npeers))
			return -1;
		for (size_t i = 0; i < f->npeers; i++) {
			const dl_msg_peer_t *p = &f->peers[i];

			if (!_name_ok(p->node, strlen(p->node), 0) ||
			    !_name_ok(p->host, strlen(p->host), 0) || !p->port)
				return -1;
			_addf(b, " %s@%s:%u", p->node, p->host, p->port);
		}
	}
	_add(b, "\n", 1);
	return 0;
}

static int _enc_rest(buf_t *b, const dl_msg_t *m, enum rest rest,
		     char *err, size_t errlen)
{
	size_t max = rest == R_LOCATE ? DL_MSG_LOCATE_MAX : DL_MSG_FILES_MAX;

	switch (rest) {
	case R_NONE:
		return 0;
	case R_MSG:
		if (m->text)
			_add_line(b, "msg=", m->text);
		return 0;
	case R_TEXT:
		if (m->text) {
			size_t n = strlen(m->text);

			if (n > DL_MSG_TEXT_MAX) {
				dl__net_err(err, errlen, "text too long");
				return -1;
			}
			_add(b, m->text, n);
		}
		return 0;
	case R_WHY:
		return 0;
	default:
		break;
	}
	if (m->nfiles > max) {
		dl__net_err(err, errlen, "%zu file lines, at most %zu",
			    m->nfiles, max);
		return -1;
	}
	for (size_t i = 0; i < m->nfiles; i++)
		if (_enc_file(b, rest, &m->files[i])) {
			dl__net_err(err, errlen, "bad file line %zu", i + 1);
			return -1;
		}
	return 0;
}

int dl_msg_encode(const dl_msg_t *m, char **body, size_t *len, char *err,
		  size_t errlen)
{
	const spec_t *s;
	buf_t b = { 0 };
	int first = 1;

	if (m->type < DL_NET_HELLO || m->type > DL_NET_TYPE_MAX) {
		dl__net_err(err, errlen, "no body for type %u", m->type);
		return DL_EINVAL;
	}
	s = &_specs[m->type];
	if (s->rest == R_WHY)
		_add_line(&b, "why=", m->text ? m->text : "");
	for (const field_t *f = s->f; f->key; f++) {
		/* An optional name left empty is left out: absent, as decoded. */
		if (!f->required && f->kind == K_USER &&
		    !*((const char *)m + f->off))
			continue;
		if (!first)
			_add(&b, " ", 1);
		first = 0;
		if (_enc_field(&b, m, f)) {
			dl__net_err(err, errlen, "%s: bad %s",
				    dl_net_type_name(m->type), f->key);
			free(b.p);
			return DL_EINVAL;
		}
	}
	if (s->rest != R_WHY)
		_add(&b, "\n", 1);
	if (_enc_rest(&b, m, s->rest, err, errlen)) {
		free(b.p);
		return DL_EINVAL;
	}
	if (!b.rc && !b.p)
		_add(&b, "", 0);
	if (b.rc) {
		dl__net_err(err, errlen, "%s: %s", dl_net_type_name(m->type),
			    dl_strerror(b.rc));
		free(b.p);
		return b.rc;
	}
	*body = b.p;
	*len = b.len;
	return 0;
}

/* ---- decoding -------------------------------------------------------- */

typedef struct line {
	const char *p;
	size_t n;
} line_t;

/* The next line of [*p, end); 0 at the end. */
static int _next_line(const char **p, const char *end, line_t *l)
{
	const char *nl;

	if (*p >= end)
		return 0;
	nl = memchr(*p, '\n', (size_t)(end - *p));
	l->p = *p;
	l->n = nl ? (size_t)(nl - *p) : (size_t)(end - *p);
	*p = nl ? nl + 1 : end;
	return 1;
}

/* Split a line on single blanks into at most max tokens; -1 if more. */
static int _split(line_t l, line_t *tok, int max)
{
	int n = 0;
	const char *p = l.p, *end = l.p + l.n, *sp;

	if (!l.n)
		return 0;
	for (;;) {
		sp = memchr(p, ' ', (size_t)(end - p));
		if (n == max)
			return -1;
		tok[n].p = p;
		tok[n].n = sp ? (size_t)(sp - p) : (size_t)(end - p);
		if (!tok[n].n)
			return -1;
		n++;
		if (!sp)
			return n;
		p = sp + 1;
		if (p == end)
			return -1;
	}
}

static int _dec_field(dl_msg_t *m, const field_t *f, const char *v,
		      size_t n, uint64_t *nfiles)
{
	char *at = (char *)m + f->off;
	uint64_t u;
	int64_t i;

	switch (f->kind) {
	case K_U64:
	case K_U32:
	case K_ID:
	case K_BOOL:
		if (dl_decimal_u64(v, n, &u) ||
		    (f->kind == K_U32 && u > UINT32_MAX) ||
		    (f->kind == K_ID && u >= UINT32_MAX) ||
		    (f->kind == K_BOOL && u > 1))
			return -1;
		memcpy(at, &u, sizeof(u));
		return 0;
	case K_I64:
		if (_i64(v, n, &i))
			return -1;
		memcpy(at, &i, sizeof(i));
		return 0;
	case K_CAP:
		if (n == 9 && !memcmp(v, "unlimited", 9))
			u = DL_MSG_UNLIMITED;
		else if (dl_decimal_u64(v, n, &u))
			return -1;
		memcpy(at, &u, sizeof(u));
		return 0;
	case K_NAME:
	case K_USER:
		if (!_name_ok(v, n, f->kind == K_USER))
			return -1;
		memcpy(at, v, n);
		at[n] = '\0';
		return 0;
	case K_PATH:
		if (!_path_ok(v, n) || !(m->path = strndup(v, n)))
			return -1;
		return 0;
	case K_PEER: {
		dl_msg_peer_t p;
		char tmp[DL_MSG_NAME_MAX * 2 + 8];

		/* reuse the peer parser with a dummy node name */
		if (n + 3 > sizeof(tmp))
			return -1;
		tmp[0] = 'x';
		tmp[1] = '@';
		memcpy(tmp + 2, v, n);
		if (_peer_parse(tmp, n + 2, &p))
			return -1;
		strcpy(m->peer_host, p.host);
		m->peer_port = p.port;
		return 0;
	}
	case K_SHA:
		if (!_is_sha(v, n))
			return -1;
		memcpy(at, v, n);
		at[n] = '\0';
		return 0;
	case K_NFILES:
		if (dl_decimal_u64(v, n, nfiles) || *nfiles > DL_MSG_FILES_MAX)
			return -1;
		return 0;
	}
	return -1;
}

static int _dec_first(dl_msg_t *m, const spec_t *s, line_t l,
		      uint64_t *nfiles, char *err, size_t errlen)
{
	uint32_t seen = 0;
	const char *p = l.p, *end = l.p + l.n, *sp, *eq;
	int i;

	while (p < end) {
		sp = memchr(p, ' ', (size_t)(end - p));
		if (!sp)
			sp = end;
		eq = memchr(p, '=', (size_t)(sp - p));
		if (sp == p || !eq || eq == p || (sp < end && sp + 1 == end)) {
			dl__net_err(err, errlen, "%s: malformed first line",
				    dl_net_type_name(m->type));
			return DL_EFORMAT;
		}
		for (i = 0; s->f[i].key; i++)
			if (strlen(s->f[i].key) == (size_t)(eq - p) &&
			    !memcmp(s->f[i].key, p, (size_t)(eq - p)))
				break;
		if (s->f[i].key) {
			if ((seen & (1u << i)) ||
			    _dec_field(m, &s->f[i], eq + 1,
				       (size_t)(sp - eq - 1), nfiles)) {
				dl__net_err(err, errlen, "%s: bad or repeated "
					    "%s", dl_net_type_name(m->type),
					    s->f[i].key);
				return DL_EFORMAT;
			}
			seen |= 1u << i;
		}
		p = sp < end ? sp + 1 : end;
	}
	for (i = 0; s->f[i].key; i++)
		if (s->f[i].required && !(seen & (1u << i))) {
			dl__net_err(err, errlen, "%s: no %s",
				    dl_net_type_name(m->type), s->f[i].key);
			return DL_EFORMAT;
		}
	return 0;
}

static int _dec_file(dl_msg_t *m, enum rest rest, line_t l)
{
	line_t t[2 + DL_MSG_PEERS_MAX];
	int n = _split(l, t, 2 + DL_MSG_PEERS_MAX), k = 0, minp = 0;
	char op = 0, *path;
	uint64_t size = 0;
	dl_msg_file_t *f;

	if (n < 1)
		return -1;
	if (rest == R_DELTA) {
		if (t[0].n != 1 || (t[0].p[0] != '+' && t[0].p[0] != '-'))
			return -1;
		op = t[0].p[0];
		k = 1;
		if (n != (op == '+' ? 3 : 2))
			return -1;
	}
	if (k >= n || !_path_ok(t[k].p, t[k].n))
		return -1;
	path = strndup(t[k].p, t[k].n);
	if (!path)
		return -1;
	k++;
	if (rest == R_INV || rest == R_PREFETCH || op == '+') {
		if (k >= n || dl_decimal_u64(t[k].p, t[k].n, &size)) {
			free(path);
			return -1;
		}
		k++;
	}
	if (rest == R_INV || rest == R_LOCATE)
		minp = n != k ? -1 : 0;
	if (rest == R_LOCATED)
		minp = k < n ? 0 : -1;
	f = minp < 0 ? NULL : dl_msg_add_file(m, path, size, op);
	free(path);
	if (!f)
		return -1;
	for (; k < n; k++) {
		dl_msg_peer_t p;

		if (_peer_parse(t[k].p, t[k].n, &p) ||
		    dl_msg_file_add_peer(f, p.node, p.host, p.port))
			return -1;
	}
	return 0;
}

/* Control characters other than newline (and tab in text) are refused. */
static int _body_ok(const char *body, size_t len, int tab_ok)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)body[i];

		if ((c < ' ' && c != '\n' && !(tab_ok && c == '\t')) ||
		    c == 0x7f)
			return 0;
	}
	return 1;
}

static int _dec_text(char **dst, const char *p, size_t n)
{
	if (n > DL_MSG_TEXT_MAX)
		return DL_ETOOBIG;
	return (*dst = strndup(p, n)) ? 0 : DL_ENOMEM;
}

static int _dec_rest(dl_msg_t *m, enum rest rest, const char *p,
		     const char *end, char *err, size_t errlen)
{
	size_t max = rest == R_LOCATE ? DL_MSG_LOCATE_MAX : DL_MSG_FILES_MAX;
	line_t l;

	if (rest == R_TEXT)
		return _dec_text(&m->text, p, (size_t)(end - p));
	while (_next_line(&p, end, &l)) {
		if (rest == R_MSG && !m->text && l.n >= 4 &&
		    !memcmp(l.p, "msg=", 4)) {
			if (_dec_text(&m->text, l.p + 4, l.n - 4))
				return DL_ETOOBIG;
			continue;
		}
		if (rest == R_NONE || rest == R_MSG || rest == R_WHY) {
			dl__net_err(err, errlen, "%s: unexpected line",
				    dl_net_type_name(m->type));
			return DL_EFORMAT;
		}
		if (m->nfiles >= max) {
			dl__net_err(err, errlen, "%s: more than %zu lines",
				    dl_net_type_name(m->type), max);
			return DL_ETOOBIG;
		}
		if (_dec_file(m, rest, l)) {
			dl__net_err(err, errlen, "%s: bad line %zu",
				    dl_net_type_name(m->type), m->nfiles + 1);
			return DL_EFORMAT;
		}
	}
	return 0;
}

int dl_msg_decode(uint32_t type, const char *body, size_t len, dl_msg_t *m,
		  char *err, size_t errlen)
{
	const char *p = body, *end = body + len;
	const spec_t *s;
	uint64_t nfiles = 0;
	line_t first = { body, 0 };
	int rc;

	dl_msg_init(m, type);
	if (type < DL_NET_HELLO || type > DL_NET_TYPE_MAX) {
		dl__net_err(err, errlen, "no body for type %u", type);
		return DL_EFORMAT;
	}
	s = &_specs[type];
	if (!_body_ok(body, len, s->rest == R_TEXT || s->rest == R_MSG ||
					 s->rest == R_WHY)) {
		dl__net_err(err, errlen, "%s: control character in the body",
			    dl_net_type_name(type));
		return DL_EFORMAT;
	}
	_next_line(&p, end, &first);
	if (s->rest == R_WHY) {
		if (first.n < 4 || memcmp(first.p, "why=", 4)) {
			dl__net_err(err, errlen, "FETCH_REFUSED: no why=");
			return DL_EFORMAT;
		}
		rc = _dec_text(&m->text, first.p + 4, first.n - 4);
	} else {
		rc = _dec_first(m, s, first, &nfiles, err, errlen);
	}
	if (!rc)
		rc = _dec_rest(m, s->rest, p, end, err, errlen);
	if (!rc && s->rest == R_INV && nfiles != m->nfiles) {
		dl__net_err(err, errlen, "INV: files=%" PRIu64 " but %zu lines",
			    nfiles, m->nfiles);
		rc = DL_EFORMAT;
	}
	if (rc) {
		if (rc == DL_ETOOBIG || rc == DL_ENOMEM)
			dl__net_err(err, errlen, "%s: %s",
				    dl_net_type_name(type), dl_strerror(rc));
		dl_msg_free(m);
		dl_msg_init(m, type);
	}
	return rc;
}
