/* agent_inv.c - one node service's reported inventory; see agent_inv.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dl_error.h"
#include "dl_files.h"
#include "agent_fnv.h"
#include "agent_inv.h"

/* Path -> size, open addressing with linear probing. */
typedef struct {
	char *path;             /* malloc'd; NULL: free slot */
	uint64_t size;
	uint64_t hash;
} slot_t;

typedef struct {
	slot_t *s;
	size_t cap;             /* a power of two, or 0 */
	uint32_t n;
	uint64_t path_bytes;
} map_t;

struct agent_inv {
	map_t cur;              /* the inventory */
	map_t parts;            /* an INV being collected */
	uint32_t next_part;     /* expected part number */
	bool collecting;        /* a HELLO arrived, parts expected */
	bool complete;
	uint64_t gen;
	uint32_t max_files;
	uint64_t max_bytes;
	agent_inv_counters_t c;
};

static int _fail(char *err, size_t errlen, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int _fail(char *err, size_t errlen, int rc, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return rc;
}

uint64_t agent_inv_hash(const char *p, size_t len)
{
	return agent_fnv_bytes(AGENT_FNV_BASIS, p, len);
}

static void _map_free(map_t *m)
{
	size_t i;

	for (i = 0; i < m->cap; i++)
		free(m->s[i].path);
	free(m->s);
	memset(m, 0, sizeof(*m));
}

/* The slot of path, or of the free slot where it would go. */
static size_t _find(const map_t *m, const char *p, size_t len, uint64_t h)
{
	size_t i = (size_t)h & (m->cap - 1);

	while (m->s[i].path && (m->s[i].hash != h ||
				strncmp(m->s[i].path, p, len) ||
				m->s[i].path[len]))
		i = (i + 1) & (m->cap - 1);
	return i;
}

static int _grow(map_t *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64, i, j;
	slot_t *s = calloc(cap, sizeof(*s));

	if (!s)
		return DL_ENOMEM;
	for (i = 0; i < m->cap; i++) {
		if (!m->s[i].path)
			continue;
		j = (size_t)m->s[i].hash & (cap - 1);
		while (s[j].path)
			j = (j + 1) & (cap - 1);
		s[j] = m->s[i];
	}
	free(m->s);
	m->s = s;
	m->cap = cap;
	return 0;
}

/* Insert or update; RET 0, DL_ETOOBIG, DL_ENOMEM. */
static int _put(const agent_inv_t *inv, map_t *m, const char *p, size_t len,
		uint64_t size)
{
	uint64_t h = agent_inv_hash(p, len);
	size_t i;

	if (m->cap) {
		i = _find(m, p, len, h);
		if (m->s[i].path) {
			m->s[i].size = size;
			return 0;
		}
	}
	if (m->n >= inv->max_files || m->path_bytes + len > inv->max_bytes)
		return DL_ETOOBIG;
	/* At most half full: probes stay short. */
	if ((m->n + 1) * 2 > m->cap && _grow(m))
		return DL_ENOMEM;
	i = _find(m, p, len, h);
	if (!(m->s[i].path = strndup(p, len)))
		return DL_ENOMEM;
	m->s[i].size = size;
	m->s[i].hash = h;
	m->n++;
	m->path_bytes += len;
	return 0;
}

/* Remove, shifting later entries of the run back (no tombstones). */
static void _del(map_t *m, const char *p, size_t len)
{
	size_t i, j, k;

	if (!m->cap)
		return;
	i = _find(m, p, len, agent_inv_hash(p, len));
	if (!m->s[i].path)
		return;
	m->path_bytes -= len;
	m->n--;
	free(m->s[i].path);
	m->s[i].path = NULL;
	for (j = (i + 1) & (m->cap - 1); m->s[j].path;
	     j = (j + 1) & (m->cap - 1)) {
		k = (size_t)m->s[j].hash & (m->cap - 1);
		/* Move j to the hole unless its home lies in (i, j]. */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		m->s[i] = m->s[j];
		m->s[j].path = NULL;
		i = j;
	}
}

agent_inv_t *agent_inv_create(uint32_t max_files, uint64_t max_bytes)
{
	agent_inv_t *inv = calloc(1, sizeof(*inv));

	if (!inv)
		return NULL;
	inv->max_files = max_files ? max_files : AGENT_INV_MAX_FILES;
	inv->max_bytes = max_bytes ? max_bytes : AGENT_INV_MAX_PATH_BYTES;
	inv->c.capacity = AGENT_INV_UNLIMITED;
	return inv;
}

void agent_inv_destroy(agent_inv_t *inv)
{
	if (!inv)
		return;
	_map_free(&inv->cur);
	_map_free(&inv->parts);
	free(inv);
}

static void _not_complete(agent_inv_t *inv)
{
	if (inv->complete)
		inv->gen++;
	inv->complete = false;
	_map_free(&inv->parts);
	inv->next_part = 0;
}

void agent_inv_begin(agent_inv_t *inv)
{
	_not_complete(inv);
	inv->collecting = true;
}

void agent_inv_lost(agent_inv_t *inv)
{
	_not_complete(inv);
	inv->collecting = false;
}

bool agent_inv_valid_path(const char *p, size_t len)
{
	size_t i;

	if (!len || p[0] != '/' || len >= DL_PATH_MAX || p[len - 1] == '/')
		return false;
	for (i = 0; i < len; i++) {
		if ((unsigned char)p[i] <= ' ' || p[i] == 0x7f)
			return false;
		if (p[i] == '/' && i + 1 < len && p[i + 1] == '.' &&
		    (i + 2 == len || p[i + 2] == '/' ||
		     (p[i + 2] == '.' && (i + 3 == len || p[i + 3] == '/'))))
			return false;
	}
	return true;
}

/* A file line of a message: RET 0 or DL_EFORMAT. */
static int _check_path(const dl_msg_file_t *f, size_t line, char *err,
		       size_t errlen)
{
	if (!f->path || !agent_inv_valid_path(f->path, strlen(f->path)))
		return _fail(err, errlen, DL_EFORMAT,
			     "file line %zu: not a path the cache stores",
			     line + 1);
	return 0;
}

static int _inv(agent_inv_t *inv, const dl_msg_t *m, char *err,
		size_t errlen)
{
	size_t i;
	int rc;

	if (!inv->collecting || m->part != inv->next_part || m->last > 1)
		return _fail(err, errlen, DL_EFORMAT,
			     "INV part %llu out of order (expected %s%u)",
			     (unsigned long long)m->part,
			     inv->collecting ? "" : "a HELLO first, then ",
			     inv->next_part);
	for (i = 0; i < m->nfiles; i++) {
		if ((rc = _check_path(&m->files[i], i, err, errlen)))
			return rc;
		if ((rc = _put(inv, &inv->parts, m->files[i].path,
			       strlen(m->files[i].path), m->files[i].size)))
			return _fail(err, errlen, rc, "INV: %s",
				     rc == DL_ETOOBIG ?
					     "over the bound of files or path bytes per node" :
					     dl_strerror(rc));
	}
	inv->next_part++;
	if (m->last) {
		_map_free(&inv->cur);
		inv->cur = inv->parts;
		memset(&inv->parts, 0, sizeof(inv->parts));
		inv->collecting = false;
		inv->complete = true;
		inv->gen++;
	}
	return 0;
}

int agent_inv_apply_inv(agent_inv_t *inv, const dl_msg_t *m, char *err,
			size_t errlen)
{
	int rc = _inv(inv, m, err, errlen);

	if (rc) {
		_not_complete(inv);
		inv->collecting = false;
	}
	return rc;
}

int agent_inv_apply_delta(agent_inv_t *inv, const dl_msg_t *m, char *err,
			  size_t errlen)
{
	const dl_msg_file_t *f;
	size_t i;
	int rc;

	if (!inv->complete)
		return _fail(err, errlen, DL_EINVAL,
			     "DELTA before a full INV");
	/* The whole message first: a bad frame changes nothing. */
	for (i = 0; i < m->nfiles; i++) {
		if ((rc = _check_path(&m->files[i], i, err, errlen)))
			return rc;
		if (m->files[i].op != '+' && m->files[i].op != '-')
			return _fail(err, errlen, DL_EFORMAT,
				     "DELTA line %zu: neither + nor -", i + 1);
	}
	inv->c.storage_bytes = m->storage_bytes;
	inv->c.peer_bytes = m->peer_bytes;
	inv->c.used = m->used;
	if (!m->nfiles)
		return 0;
	for (i = 0; i < m->nfiles; i++) {
		f = &m->files[i];
		if (f->op == '-') {
			_del(&inv->cur, f->path, strlen(f->path));
		} else if ((rc = _put(inv, &inv->cur, f->path,
				      strlen(f->path), f->size))) {
			_not_complete(inv);
			return _fail(err, errlen, rc,
				     "DELTA: %s; a resync is needed",
				     rc == DL_ETOOBIG ?
					     "over the bound of files or path bytes per node" :
					     dl_strerror(rc));
		}
	}
	inv->gen++;
	return 0;
}

void agent_inv_set_counters(agent_inv_t *inv, const agent_inv_counters_t *c)
{
	inv->c = *c;
}

const agent_inv_counters_t *agent_inv_counters(const agent_inv_t *inv)
{
	return &inv->c;
}

bool agent_inv_complete(const agent_inv_t *inv)
{
	return inv->complete;
}

uint64_t agent_inv_generation(const agent_inv_t *inv)
{
	return inv->gen;
}

uint32_t agent_inv_count(const agent_inv_t *inv)
{
	return inv->cur.n;
}

bool agent_inv_size(const agent_inv_t *inv, const char *path, uint64_t *size)
{
	size_t len = strlen(path), i;

	if (!inv->cur.cap)
		return false;
	i = _find(&inv->cur, path, len, agent_inv_hash(path, len));
	if (!inv->cur.s[i].path)
		return false;
	*size = inv->cur.s[i].size;
	return true;
}

void agent_inv_foreach(const agent_inv_t *inv,
		       void (*fn)(const char *path, uint64_t size, void *arg),
		       void *arg)
{
	size_t i;

	for (i = 0; i < inv->cur.cap; i++)
		if (inv->cur.s[i].path)
			fn(inv->cur.s[i].path, inv->cur.s[i].size, arg);
}
