/*
 * ctl.c - dl-cached's connection to the controller agent (PROTOCOL.md):
 * connect with backoff (1 s doubling to 30 s), NONCE, HELLO, the full
 * inventory in INV parts, then a DELTA within about a second of every
 * change of the store (whoever made it: the store's change counter moves
 * on every change, also by a dl-stage running without the service).
 * Incoming PREFETCH, CANCEL and LOCATED go to the loop's callbacks.
 * What the loop sends (REPORT, STAGING, PREFETCH_DONE) waits in the
 * outbox while the connection is down, and follows the next inventory.
 * All of it runs in the parent, with deadlines on every frame.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cached.h"
#include "dl_error.h"

#define BACKOFF_MIN 1
#define BACKOFF_MAX 30
/* Store changes are looked for this often (ms). */
#define WATCH_MS 300
/* An INV part is cut past this many body bytes. */
#define INV_PART_BYTES (DL_NET_BODY_MAX / 2)

typedef struct item {
	char *path;
	uint64_t size;
} item_t;

typedef struct model {
	item_t *v;
	size_t n, cap;
	uint64_t used;
} model_t;

struct cached_ctl {
	const cached_conf_t *conf;
	dl_stage_t *st;
	cached_ctl_ops_t ops;
	int fd;
	dl_net_conn_t conn;
	int64_t next_try;     /* ms, monotonic */
	unsigned backoff;     /* s */
	bool said_down;       /* logged the failure already */
	model_t sent;         /* what the controller was told */
	uint64_t gen;         /* the store's counter when last looked */
	int64_t next_watch;
	uint64_t base_storage, base_peer; /* at service start */
	uint64_t last_storage, last_peer;
	uint64_t req;
	cached_outbox_t *out;  /* owned; empty while connected */
	uint64_t said_dropped; /* out->dropped when last logged */
};

int64_t cached_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void _model_free(model_t *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i].path);
	free(m->v);
	memset(m, 0, sizeof(*m));
}

static int _collect(const dl_stage_entry_t *e, void *arg)
{
	model_t *m = arg;
	item_t *v;

	if (!e->complete)
		return 0;
	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 256;

		if (!(v = realloc(m->v, cap * sizeof(*v))))
			return DL_ENOMEM;
		m->v = v;
		m->cap = cap;
	}
	if (!(m->v[m->n].path = strdup(e->path)))
		return DL_ENOMEM;
	m->v[m->n++].size = e->size;
	return 0;
}

static int _cmp_item(const void *a, const void *b)
{
	return strcmp(((const item_t *)a)->path, ((const item_t *)b)->path);
}

/* What the store holds now, sorted by path. */
static int _snapshot(cached_ctl_t *c, model_t *m)
{
	memset(m, 0, sizeof(*m));
	if (dl_stage_generation(c->st, &c->gen) ||
	    dl_stage_foreach(c->st, _collect, m, &m->used)) {
		_model_free(m);
		return -1;
	}
	qsort(m->v, m->n, sizeof(*m->v), _cmp_item);
	return 0;
}

static void _counters(cached_ctl_t *c, uint64_t *storage, uint64_t *peer)
{
	uint64_t s = 0, p = 0;

	dl_stage_bytes(c->st, &s, &p);
	*storage = s >= c->base_storage ? s - c->base_storage : 0;
	*peer = p >= c->base_peer ? p - c->base_peer : 0;
}

static int _send_msg(cached_ctl_t *c, dl_msg_t *m)
{
	char *body, err[256] = "";
	size_t n;
	int rc = dl_msg_encode(m, &body, &n, err, sizeof(err));

	if (!rc) {
		rc = dl_net_conn_send(&c->conn, m->type, body, n, err,
				      sizeof(err));
		free(body);
	}
	if (rc)
		cached_log(4, "controller: cannot send %s: %s",
			   dl_net_type_name(m->type), err);
	return rc;
}

static void _drop(cached_ctl_t *c, const char *why)
{
	if (c->fd >= 0) {
		cached_log(4, "controller connection lost: %s", why);
		close(c->fd);
	}
	c->fd = -1;
	c->backoff = BACKOFF_MIN;
	c->next_try = cached_now_ms() + 1000 * BACKOFF_MIN;
	_model_free(&c->sent);
}

/*
 * After the inventory: what was kept while disconnected, oldest first.  A
 * frame leaves the outbox once sent; a failed send drops the connection
 * and keeps it (the controller reads whole frames only, so it never saw
 * it).
 */
static void _flush(cached_ctl_t *c)
{
	const cached_out_t *e;
	size_t sent = 0;
	char err[256] = "";

	if (c->out->dropped != c->said_dropped) {
		cached_log(4, "controller: %" PRIu64 " messages made while "
			   "disconnected were dropped (more than %d, or %u "
			   "bytes, waited)", c->out->dropped - c->said_dropped,
			   CACHED_OUTBOX_MAX, CACHED_OUTBOX_BYTES);
		c->said_dropped = c->out->dropped;
	}
	while ((e = cached_outbox_peek(c->out))) {
		if (dl_net_conn_send(&c->conn, e->type, e->body, e->n, err,
				     sizeof(err))) {
			_drop(c, err);
			return;
		}
		cached_outbox_pop(c->out);
		sent++;
	}
	if (sent)
		cached_log(6, "controller: sent %zu messages made while "
			   "disconnected", sent);
}

/* HELLO and the inventory in parts; \return 0 or -1. */
static int _hello(cached_ctl_t *c)
{
	model_t m;
	dl_msg_t msg;
	size_t part = 0, bytes = 0, i = 0;
	int rc;

	if (_snapshot(c, &m))
		return -1;
	dl_msg_init(&msg, DL_NET_HELLO);
	snprintf(msg.node, sizeof(msg.node), "%s", c->conf->node);
	snprintf(msg.peer_host, sizeof(msg.peer_host), "%s",
		 c->conf->peer_host);
	msg.peer_port = c->conf->peer_port;
	msg.capacity = c->conf->opts.capacity == DL_CACHE_UNLIMITED ?
			       DL_MSG_UNLIMITED :
			       c->conf->opts.capacity;
	msg.used = m.used;
	_counters(c, &msg.storage_bytes, &msg.peer_bytes);
	c->last_storage = msg.storage_bytes;
	c->last_peer = msg.peer_bytes;
	rc = _send_msg(c, &msg);
	do {
		dl_msg_init(&msg, DL_NET_INV);
		msg.part = part++;
		for (bytes = 0; !rc && i < m.n && bytes < INV_PART_BYTES &&
				msg.nfiles < DL_MSG_FILES_MAX; i++) {
			dl_msg_file_t *f = dl_msg_add_file(&msg, m.v[i].path,
							   m.v[i].size, 0);

			if (!f)
				rc = -1;
			else
				bytes += dl_msg_line_bytes(f);
		}
		msg.last = i >= m.n;
		if (!rc)
			rc = _send_msg(c, &msg);
		dl_msg_free(&msg);
	} while (!rc && i < m.n);
	if (rc) {
		_model_free(&m);
		return -1;
	}
	c->sent = m;
	return 0;
}

static void _connect(cached_ctl_t *c)
{
	char err[256] = "";
	int fd;

	if (dl_net_connect(c->conf->controller, c->conf->service_port,
			   CACHED_CONNECT_TIMEOUT, &fd, err, sizeof(err)))
		goto fail;
	dl_net_conn_init(&c->conn, fd, &c->conf->auth, CACHED_NET_TIMEOUT);
	c->fd = fd;
	/* nothing of this node's cache goes to a controller unproven */
	if (dl_net_conn_handshake(&c->conn, err, sizeof(err)) ||
	    dl_net_conn_await_proof(&c->conn, CACHED_NET_TIMEOUT, err,
				    sizeof(err)) ||
	    _hello(c)) {
		close(fd);
		c->fd = -1;
		goto fail;
	}
	cached_log(6, "connected to controller %s:%u (%zu files in the "
		   "inventory)", c->conf->controller, c->conf->service_port,
		   c->sent.n);
	c->said_down = false;
	c->backoff = BACKOFF_MIN;
	_flush(c);
	return;
fail:
	if (!c->said_down)
		cached_log(4, "cannot reach controller %s:%u: %s (retrying "
			   "with backoff up to %d s)", c->conf->controller,
			   c->conf->service_port, err[0] ? err : "refused",
			   BACKOFF_MAX);
	c->said_down = true;
	c->next_try = cached_now_ms() + 1000 * (int64_t)c->backoff;
	c->backoff = c->backoff * 2 > BACKOFF_MAX ? BACKOFF_MAX :
						    c->backoff * 2;
}

/* Lines for the differences between two sorted models into a DELTA. */
static int _diff(const model_t *old, const model_t *now, dl_msg_t *d)
{
	size_t i = 0, j = 0;
	int cmp;

	while (i < old->n || j < now->n) {
		cmp = i >= old->n ? 1 :
		      j >= now->n ? -1 :
				    strcmp(old->v[i].path, now->v[j].path);
		if (cmp < 0) {
			if (!dl_msg_add_file(d, old->v[i++].path, 0, '-'))
				return -1;
		} else if (cmp > 0 || old->v[i].size != now->v[j].size) {
			if (!dl_msg_add_file(d, now->v[j].path,
					     now->v[j].size, '+'))
				return -1;
			i += cmp == 0;
			j++;
		} else {
			i++;
			j++;
		}
	}
	return 0;
}

/* The store moved: tell the controller what changed. */
static void _delta(cached_ctl_t *c)
{
	model_t now;
	dl_msg_t d;

	if (_snapshot(c, &now))
		return;
	dl_msg_init(&d, DL_NET_DELTA);
	_counters(c, &d.storage_bytes, &d.peer_bytes);
	d.used = now.used;
	if (_diff(&c->sent, &now, &d)) {
		/* too many changes for one DELTA: resynchronise */
		dl_msg_free(&d);
		_model_free(&now);
		_drop(c, "too many changes for one DELTA, reconnecting");
		return;
	}
	if ((d.nfiles || d.storage_bytes != c->last_storage ||
	     d.peer_bytes != c->last_peer || now.used != c->sent.used) &&
	    _send_msg(c, &d)) {
		dl_msg_free(&d);
		_model_free(&now);
		_drop(c, "cannot send DELTA");
		return;
	}
	c->last_storage = d.storage_bytes;
	c->last_peer = d.peer_bytes;
	dl_msg_free(&d);
	_model_free(&c->sent);
	c->sent = now;
}

cached_ctl_t *cached_ctl_create(const cached_conf_t *conf, dl_stage_t *st,
				const cached_ctl_ops_t *ops)
{
	cached_ctl_t *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->conf = conf;
	c->st = st;
	c->ops = *ops;
	c->fd = -1;
	c->backoff = BACKOFF_MIN;
	/* 4096 frames: on the heap, allocated once */
	if (!(c->out = calloc(1, sizeof(*c->out)))) {
		free(c);
		return NULL;
	}
	dl_stage_bytes(st, &c->base_storage, &c->base_peer);
	return c;
}

void cached_ctl_destroy(cached_ctl_t *c)
{
	if (!c)
		return;
	if (c->fd >= 0)
		close(c->fd);
	_model_free(&c->sent);
	cached_outbox_clear(c->out);
	free(c->out);
	free(c);
}

int cached_ctl_fd(const cached_ctl_t *c)
{
	return c->fd;
}

void cached_ctl_tick(cached_ctl_t *c)
{
	int64_t now = cached_now_ms();
	uint64_t gen;

	if (c->fd < 0) {
		if (now >= c->next_try)
			_connect(c);
		return;
	}
	if (now < c->next_watch)
		return;
	c->next_watch = now + WATCH_MS;
	if (!dl_stage_generation(c->st, &gen) && gen != c->gen)
		_delta(c);
}

void cached_ctl_input(cached_ctl_t *c)
{
	dl_net_frame_t f;
	dl_msg_t m;
	char err[256] = "";
	int rc;

	rc = dl_net_conn_recv(&c->conn, 0, &f, err, sizeof(err));
	if (rc == DL_ETIMEDOUT && !err[0])
		return;
	if (rc) {
		_drop(c, err);
		return;
	}
	if (f.type == DL_NET_LOCATED) {
		dl_msg_t l;

		/* the req only, the child decodes the rest */
		if (dl_msg_decode(f.type, f.body, f.body_len, &l, err,
				  sizeof(err)))
			cached_log(4, "controller: rejected LOCATED: %s", err);
		else
			c->ops.located(c->ops.arg, l.req, f.body, f.body_len);
		dl_msg_free(&l);
	} else if (f.type != DL_NET_PREFETCH && f.type != DL_NET_CANCEL) {
		cached_log(4, "controller: rejected unexpected %s",
			   dl_net_type_name(f.type));
	} else if (dl_msg_decode(f.type, f.body, f.body_len, &m, err,
				 sizeof(err))) {
		cached_log(4, "controller: rejected %s: %s",
			   dl_net_type_name(f.type), err);
	} else if (f.type == DL_NET_CANCEL) {
		c->ops.cancel(c->ops.arg, (uint32_t)m.job);
		dl_msg_free(&m);
	} else {
		c->ops.prefetch(c->ops.arg, &m);
		dl_msg_free(&m);
	}
	dl_net_frame_free(&f);
}

uint64_t cached_ctl_locate(cached_ctl_t *c, const char *paths, size_t n)
{
	dl_msg_t m;
	const char *p = paths, *end = paths + n, *nl;
	uint64_t req = 0;

	if (c->fd < 0)
		return 0;
	dl_msg_init(&m, DL_NET_LOCATE);
	m.req = ++c->req;
	for (; p < end; p = nl + 1) {
		char path[DL_MSG_PATH_MAX];

		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		if ((size_t)(nl - p) >= sizeof(path) || nl == p)
			continue;
		memcpy(path, p, (size_t)(nl - p));
		path[nl - p] = '\0';
		if (!dl_msg_add_file(&m, path, 0, 0))
			break;
	}
	if (m.nfiles && !_send_msg(c, &m))
		req = m.req;
	dl_msg_free(&m);
	return req;
}

/*
 * Whether the controller closed its end: a send into a connection whose
 * peer is gone succeeds and is lost, so a restarting slurmctld is noticed
 * here rather than by the next poll of the loop.
 */
static bool _peer_closed(const cached_ctl_t *c)
{
	struct pollfd p = { .fd = c->fd, .events = POLLRDHUP };

	return poll(&p, 1, 0) > 0 &&
	       (p.revents & (POLLRDHUP | POLLHUP | POLLERR));
}

void cached_ctl_send(cached_ctl_t *c, uint32_t type, const char *body,
		     size_t n)
{
	char err[256] = "";

	if (c->fd >= 0 && _peer_closed(c))
		_drop(c, "the controller closed the connection");
	if (c->fd >= 0 &&
	    !dl_net_conn_send(&c->conn, type, body, n, err, sizeof(err)))
		return;
	if (c->fd >= 0)
		_drop(c, err);
	if (!cached_outbox_put(c->out, type, body, n) &&
	    c->out->dropped == c->said_dropped + 1)
		cached_log(4, "controller: not connected and %zu messages "
			   "waiting: a %s dropped", c->out->n,
			   dl_net_type_name(type));
}
