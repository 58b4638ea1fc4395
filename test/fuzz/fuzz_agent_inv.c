/*
 * fuzz_agent_inv.c - libFuzzer target for the controller's copy of a node
 * service's inventory (agent_inv.c) fed with messages decoded by libdlnet,
 * as the node channel does.
 *
 * The input is a sequence of steps separated by "\n%%\n"; a step's first
 * byte says what it is: 'H' a HELLO (a resync begins), 'L' the connection
 * is lost, 'I' an INV body, 'D' a DELTA body (the rest of the step).  A
 * plain reference model (arrays, linear search) is kept beside it, and
 * after every step the inventory must hold exactly the reference's files
 * with their sizes, be complete exactly when the reference is, and change
 * its generation whenever its contents or completeness change.  Small
 * bounds (8 files, 256 path bytes) make the bound paths reachable.
 *
 * Build: see contrib/test.sh (with src/net/msg.c, src/libdatalocality's
 * error.c and files.c).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dl_error.h"
#include "dl_net.h"
#include "dl_net_msg.h"
#include "agent_inv.h"
#include "fuzz.h"

#define MAXF 8
#define MAXB 256

typedef struct {
	char *path[64];
	uint64_t size[64];
	int n;
} ref_t;

static void _ref_clear(ref_t *r)
{
	int i;

	for (i = 0; i < r->n; i++)
		free(r->path[i]);
	r->n = 0;
}

static int _ref_find(const ref_t *r, const char *p)
{
	int i;

	for (i = 0; i < r->n; i++)
		if (!strcmp(r->path[i], p))
			return i;
	return -1;
}

static void _ref_put(ref_t *r, const char *p, uint64_t size)
{
	int i = _ref_find(r, p);

	if (i >= 0) {
		r->size[i] = size;
		return;
	}
	CHECK(r->n < 64);
	r->path[r->n] = strdup(p);
	CHECK(r->path[r->n]);
	r->size[r->n++] = size;
}

static void _ref_del(ref_t *r, const char *p)
{
	int i = _ref_find(r, p);

	if (i < 0)
		return;
	free(r->path[i]);
	r->path[i] = r->path[--r->n];
	r->size[i] = r->size[r->n];
}

static const ref_t *cmp_ref;
static int seen;

static void _each(const char *path, uint64_t size, void *arg)
{
	int i = _ref_find(cmp_ref, path);

	(void)arg;
	CHECK(i >= 0);
	CHECK(cmp_ref->size[i] == size);
	seen++;
}

/* The reference's idea of the connection. */
typedef struct {
	ref_t cur, parts;
	int known;              /* cur mirrors the inventory */
	int complete, collecting;
	uint64_t next;
} model_t;

static void _inv(agent_inv_t *inv, model_t *m, const dl_msg_t *msg)
{
	char err[256];
	uint64_t bytes = 0;
	size_t i;
	int rc = agent_inv_apply_inv(inv, msg, err, sizeof(err)), ok = 1;

	if (!m->collecting || msg->part != m->next)
		ok = 0;
	for (i = 0; ok && i < msg->nfiles; i++)
		if (!agent_inv_valid_path(msg->files[i].path,
					  strlen(msg->files[i].path)))
			ok = 0;
	for (i = 0; ok && i < msg->nfiles; i++) {
		if (_ref_find(&m->parts, msg->files[i].path) < 0 &&
		    m->parts.n >= MAXF)
			ok = 0;
		else
			_ref_put(&m->parts, msg->files[i].path,
				 msg->files[i].size);
	}
	for (i = 0; ok && i < (size_t)m->parts.n; i++)
		bytes += strlen(m->parts.path[i]);
	if (bytes > MAXB)
		ok = 0;
	CHECK(ok == !rc);
	if (!ok) {
		_ref_clear(&m->parts);
		m->complete = m->collecting = 0;
		return;
	}
	m->next++;
	if (msg->last) {
		_ref_clear(&m->cur);
		m->cur = m->parts;
		m->parts.n = 0;
		m->known = m->complete = 1;
		m->collecting = 0;
	}
}

static void _delta(agent_inv_t *inv, model_t *m, const dl_msg_t *msg)
{
	char err[256];
	size_t i;
	int rc = agent_inv_apply_delta(inv, msg, err, sizeof(err));

	if (!m->complete) {
		CHECK(rc == DL_EINVAL);
		return;
	}
	for (i = 0; i < msg->nfiles; i++)
		if (!agent_inv_valid_path(msg->files[i].path,
					  strlen(msg->files[i].path))) {
			CHECK(rc == DL_EFORMAT);
			return;
		}
	if (rc == DL_ETOOBIG) {
		/* Partly applied: not complete, contents unknown. */
		m->complete = 0;
		m->known = 0;
		return;
	}
	CHECK(!rc);
	for (i = 0; i < msg->nfiles; i++) {
		if (msg->files[i].op == '-')
			_ref_del(&m->cur, msg->files[i].path);
		else
			_ref_put(&m->cur, msg->files[i].path,
				 msg->files[i].size);
	}
}

static void _step(agent_inv_t *inv, model_t *m, const char *s, size_t len)
{
	char err[256];
	dl_msg_t msg;

	if (!len)
		return;
	if (s[0] == 'H') {
		agent_inv_begin(inv);
		_ref_clear(&m->parts);
		m->complete = 0;
		m->collecting = 1;
		m->next = 0;
	} else if (s[0] == 'L') {
		agent_inv_lost(inv);
		_ref_clear(&m->parts);
		m->complete = m->collecting = 0;
	} else if (s[0] == 'I' || s[0] == 'D') {
		uint32_t type = s[0] == 'I' ? DL_NET_INV : DL_NET_DELTA;

		if (dl_msg_decode(type, s + 1, len - 1, &msg, err,
				  sizeof(err)))
			return; /* the channel closes the connection */
		if (type == DL_NET_INV)
			_inv(inv, m, &msg);
		else
			_delta(inv, m, &msg);
		dl_msg_free(&msg);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	agent_inv_t *inv = agent_inv_create(MAXF, MAXB);
	model_t m = { 0 };
	const char *p = (const char *)data, *end = p + size, *sep;
	uint64_t gen = agent_inv_generation(inv);
	int was_complete = 0;

	CHECK(inv);
	while (p < end) {
		sep = memmem(p, (size_t)(end - p), "\n%%\n", 4);
		if (!sep)
			sep = end;
		_step(inv, &m, p, (size_t)(sep - p));
		p = sep == end ? end : sep + 4;
		CHECK(agent_inv_complete(inv) == m.complete);
		if (agent_inv_complete(inv) != was_complete)
			CHECK(agent_inv_generation(inv) != gen);
		if (m.known && m.complete) {
			cmp_ref = &m.cur;
			seen = 0;
			agent_inv_foreach(inv, _each, NULL);
			CHECK(seen == m.cur.n);
			CHECK(agent_inv_count(inv) == (uint32_t)m.cur.n);
		}
		was_complete = agent_inv_complete(inv);
		gen = agent_inv_generation(inv);
	}
	_ref_clear(&m.cur);
	_ref_clear(&m.parts);
	agent_inv_destroy(inv);
	return 0;
}
