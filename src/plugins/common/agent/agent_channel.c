/*
 * agent_channel.c - the controller's end of the node channel; see
 * agent_channel.h.
 *
 * Locks: ch.lock guards the list of connections; each node's lock guards
 * that node's record, its current connection pointer and that
 * connection's outbox.  Nobody holds two node locks at once, nor a node
 * lock and ch.lock.  A connection is freed only after its thread has been
 * joined, and its thread clears the node's pointer to it (under the node
 * lock) before it ends, so a pointer read under the node lock is valid.
 */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "src/common/slurm_xlator.h"

#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "dl_error.h"
#include "dl_net.h"
#include "dl_net_auth.h"
#include "dl_net_door.h"
#include "dl_net_msg.h"
#include "agent_acct.h"
#include "agent_channel.h"
#include "agent_credit.h"
#include "agent_rates.h"

/* A frame, once begun, must arrive within this. */
#define FRAME_MS 10000
/* A new connection's first bytes (its NONCE) must come within this. */
#define GREET_MS 1000
/* After the controller's WELCOME, the node's HELLO must come within this. */
#define HELLO_MS 5000
/* Connections that spoke but said no HELLO yet, at most. */
#define EXTRA_CONNS 16
/* Lines about strangers' connections: one per this many seconds. */
#define STRANGER_LOG_EVERY 10
/* What may wait for a node that does not read: then it is dropped. */
#define OUTBOX_MAX (64u << 20)

typedef struct out_msg {
	struct out_msg *next;
	uint32_t type;
	size_t len;
	char body[];
} out_msg_t;

typedef struct conn {
	struct conn *next;      /* ch.conns, under ch.lock */
	pthread_t tid;
	int fd;
	int wake[2];            /* a byte: the outbox has something */
	dl_net_conn_t nc;
	char who[80];           /* address:port */
	int32_t node;           /* after its HELLO, else -1 */
	uint64_t epoch;
	/* Under the node's lock: */
	out_msg_t *out_head, *out_tail;
	size_t out_bytes;
	bool kill;              /* replaced, or overflowing: end it */
	int done;               /* its thread ended (atomic): reap it */
} conn_t;

typedef struct chan_node {
	pthread_mutex_t lock;
	char *name;
	conn_t *conn;           /* the current connection, or NULL */
	agent_inv_t *inv;
	bool ever;
	uint64_t epoch;
	char peer_host[DL_MSG_NAME_MAX];
	uint16_t peer_port;
	time_t since, changed;
	uint64_t prefetch_done, locates;
	double load;
} chan_node_t;

static struct {
	pthread_mutex_t lock;
	bool running;
	int stop;               /* atomic */
	int stop_pipe[2];
	pthread_t tid;
	chan_node_t *nodes;
	uint32_t nnodes;
	conn_t *conns;
	uint32_t nconns;
	dl_net_auth_t auth;
	char *munge_socket;
	uint16_t port;
	uint64_t epochs;        /* atomic */
	uint64_t changes;       /* atomic: agent_channel_changes() */
	void (*wake)(void);     /* atomic: agent_channel_on_change() */
	const char *pfx;
	dl_net_door_t door;     /* ServicePort; the listener thread's */
	time_t stranger_said;   /* the last line about strangers */
	uint64_t stranger_quiet; /* lines not logged since */
} ch = { .lock = PTHREAD_MUTEX_INITIALIZER,
	 .stop_pipe = { -1, -1 }, .pfx = "datalocality" };

/*
 * Files the agent asked nodes to bring into the cluster and no node holds
 * yet (agent_channel_set_fetching()): agent_inv_hash() of the path and the
 * node, sorted by hash.  Own lock: the agent thread writes, LOCATEs read.
 */
typedef struct fetching {
	uint64_t hash;
	uint32_t node;
} fetching_t;

static struct {
	pthread_mutex_t lock;
	fetching_t *v;          /* xmalloc'd */
	size_t n;
} fetch = { .lock = PTHREAD_MUTEX_INITIALIZER };

static int _cmp_fetching(const void *a, const void *b)
{
	const fetching_t *x = a, *y = b;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node;
}

static bool _stopping(void)
{
	return __atomic_load_n(&ch.stop, __ATOMIC_ACQUIRE);
}

static void _poke(int fd)
{
	char b = 1;

	if (fd >= 0 && write(fd, &b, 1) < 0 && errno != EAGAIN)
		debug("%s: wake-up pipe: %m", ch.pfx);
}

static void _drain(int fd)
{
	char buf[64];

	while (read(fd, buf, sizeof(buf)) > 0)
		;
}

static int _pipe(int p[2])
{
	return pipe2(p, O_CLOEXEC | O_NONBLOCK);
}

static void _free_outbox(conn_t *c)
{
	out_msg_t *m;

	while ((m = c->out_head)) {
		c->out_head = m->next;
		xfree(m);
	}
	c->out_tail = NULL;
	c->out_bytes = 0;
}

/* The node a HELLO names, or -1. */
static int32_t _node_index(const char *name)
{
	uint32_t i;

	for (i = 0; i < ch.nnodes; i++)
		if (!xstrcmp(ch.nodes[i].name, name))
			return (int32_t)i;
	return -1;
}

/* Send what the agent queued; RET false if the connection must end. */
static bool _flush(conn_t *c)
{
	chan_node_t *n = &ch.nodes[c->node];
	char err[256] = "";
	out_msg_t *m, *next;
	bool kill;
	int rc = 0;

	slurm_mutex_lock(&n->lock);
	m = c->out_head;
	c->out_head = c->out_tail = NULL;
	c->out_bytes = 0;
	kill = c->kill;
	slurm_mutex_unlock(&n->lock);
	for (; m; m = next) {
		next = m->next;
		if (!rc && !kill)
			rc = dl_net_conn_send(&c->nc, m->type, m->body, m->len,
					      err, sizeof(err));
		xfree(m);
	}
	if (rc)
		error("%s: node %s: sending failed: %s", ch.pfx, n->name, err);
	return !rc && !kill;
}

/* LOCATED for a LOCATE, from the other nodes' complete inventories. */
static int _locate(conn_t *c, const dl_msg_t *q, char *err, size_t errlen);

/* What a view or an inventory reads moved: agent_channel_changes(). */
static void _changed(void)
{
	void (*wake)(void);

	(void)__atomic_add_fetch(&ch.changes, 1, __ATOMIC_RELEASE);
	wake = __atomic_load_n(&ch.wake, __ATOMIC_ACQUIRE);
	if (wake)
		wake();
}

/* Store an INV or DELTA; RET 0 or DL_E* (err says why). */
static int _store(conn_t *c, const dl_msg_t *m, char *err, size_t errlen)
{
	chan_node_t *n = &ch.nodes[c->node];
	bool was, now;
	int rc;

	slurm_mutex_lock(&n->lock);
	if (n->conn != c) {
		/* Replaced: the inventory is the new connection's now. */
		slurm_mutex_unlock(&n->lock);
		snprintf(err, errlen, "from a replaced connection");
		return DL_EINVAL;
	}
	was = agent_inv_complete(n->inv);
	if (m->type == DL_NET_INV)
		rc = agent_inv_apply_inv(n->inv, m, err, errlen);
	else
		rc = agent_inv_apply_delta(n->inv, m, err, errlen);
	now = agent_inv_complete(n->inv);
	if (!rc)
		n->changed = time(NULL);
	slurm_mutex_unlock(&n->lock);
	_changed();
	if (!was && now)
		info("%s: node %s service connected, %u files", ch.pfx,
		     n->name, agent_inv_count(n->inv));
	return rc;
}

static void _prefetch_done(conn_t *c, const dl_msg_t *m)
{
	chan_node_t *n = &ch.nodes[c->node];

	slurm_mutex_lock(&n->lock);
	n->prefetch_done++;
	slurm_mutex_unlock(&n->lock);
	_changed();
	/* A prefetch's copies are copies like a job's: they teach the rates. */
	agent_rates_note(AGENT_RATE_STORAGE, m->count.storage_bytes,
			 m->count.storage_us);
	agent_rates_note(AGENT_RATE_PEER, m->count.peer_bytes,
			 m->count.peer_us);
	info("%s: node %s prefetch job %" PRIu64 " done: %" PRIu64 " files, %" PRIu64 " cached, %" PRIu64 " from peers, %" PRIu64 " failed%s%s",
	     ch.pfx, n->name, m->job, m->count.files, m->count.cached,
	     m->count.from_peers, m->count.failed, m->text ? ": " : "",
	     m->text ? m->text : "");
}

/*
 * A REPORT: what a job's staging found on the node, queued for the agent
 * thread, which writes it into the job's AdminComment (agent_acct.h).
 * RET false if the connection must end (a body that does not decode).
 */
static bool _staged(conn_t *c, const dl_net_frame_t *f)
{
	const char *name = ch.nodes[c->node].name;
	char err[256] = "";
	dl_msg_t m;

	if (dl_msg_decode(f->type, f->body, f->body_len, &m, err,
			  sizeof(err))) {
		error("%s: node %s: bad REPORT: %s: closing", ch.pfx, name,
		      err);
		return false;
	}
	/* Without a job: the service's mistake, not worth the connection. */
	if (!m.job)
		error("%s: node %s sent a REPORT without a job: ignored",
		      ch.pfx, name);
	else if (agent_acct_put((uint32_t)m.job, &m.count))
		error("%s: node %s: the staging report of JobId=%" PRIu64 " dropped (queue full)",
		      ch.pfx, name, m.job);
	dl_msg_free(&m);
	return true;
}

/* One frame after the HELLO; RET false if the connection must end. */
static bool _handle(conn_t *c, const dl_net_frame_t *f)
{
	chan_node_t *n = &ch.nodes[c->node];
	char err[256] = "";
	dl_msg_t m;
	int rc;

	if (f->type == DL_NET_REPORT)
		return _staged(c, f);
	if (f->type != DL_NET_INV && f->type != DL_NET_DELTA &&
	    f->type != DL_NET_PREFETCH_DONE && f->type != DL_NET_LOCATE &&
	    f->type != DL_NET_STAGING) {
		error("%s: node %s sent a %s message, which no node service sends: closing",
		      ch.pfx, n->name, dl_net_type_name(f->type));
		return false;
	}
	if ((rc = dl_msg_decode(f->type, f->body, f->body_len, &m, err,
				sizeof(err)))) {
		error("%s: node %s: bad %s: %s: closing", ch.pfx, n->name,
		      dl_net_type_name(f->type), err);
		return false;
	}
	if (f->type == DL_NET_PREFETCH_DONE)
		_prefetch_done(c, &m);
	else if (f->type == DL_NET_STAGING) /* agent_credit.h */
		agent_credit_note((uint32_t)c->node, (uint32_t)m.job, m.done,
				  m.secs, time(NULL));
	else if (f->type == DL_NET_LOCATE)
		rc = _locate(c, &m, err, sizeof(err));
	else
		rc = _store(c, &m, err, sizeof(err));
	dl_msg_free(&m);
	if (rc)
		error("%s: node %s: %s %s: closing", ch.pfx, n->name,
		      dl_net_type_name(f->type), err);
	return !rc;
}

/* Take over node for c; RET false (logged) if it cannot be. */
static bool _register(conn_t *c, const dl_msg_t *m)
{
	int32_t i = _node_index(m->node);
	chan_node_t *n;
	conn_t *old;

	if (i < 0) {
		error("%s: a node service from %s says it is node %s, which slurmctld does not know: closing",
		      ch.pfx, c->who, m->node);
		return false;
	}
	n = &ch.nodes[i];
	c->node = i;
	c->epoch = __atomic_add_fetch(&ch.epochs, 1, __ATOMIC_RELAXED);
	slurm_mutex_lock(&n->lock);
	if ((old = n->conn)) {
		old->kill = true;
		_poke(old->wake[1]);
	}
	n->conn = c;
	n->epoch = c->epoch;
	n->ever = true;
	n->since = time(NULL);
	agent_inv_begin(n->inv);
	agent_inv_set_counters(n->inv, &(agent_inv_counters_t){
		.capacity = m->capacity, .used = m->used,
		.storage_bytes = m->storage_bytes,
		.peer_bytes = m->peer_bytes });
	strlcpy(n->peer_host, m->peer_host, sizeof(n->peer_host));
	n->peer_port = m->peer_port;
	slurm_mutex_unlock(&n->lock);
	_changed();
	info("%s: node %s service at %s (peers %s:%u)%s, waiting for its inventory",
	     ch.pfx, n->name, c->who, m->peer_host, m->peer_port,
	     old ? " replaces its earlier connection" : "");
	return true;
}

/* NONCE exchange and HELLO; RET false (logged) if refused. */
static bool _hello(conn_t *c)
{
	dl_net_frame_t f = { 0 };
	char err[256] = "";
	dl_msg_t m;
	bool ok;
	int rc;

	/* the controller proves itself before the node says anything */
	if ((rc = dl_net_conn_handshake(&c->nc, err, sizeof(err))) ||
	    (rc = dl_net_conn_prove(&c->nc, err, sizeof(err))) ||
	    (rc = dl_net_conn_recv(&c->nc, HELLO_MS, &f, err, sizeof(err)))) {
		if (rc != DL_ENOENT)
			error("%s: connection from %s refused: %s", ch.pfx,
			      c->who, err[0] ? err : dl_strerror(rc));
		return false;
	}
	if (f.type != DL_NET_HELLO) {
		error("%s: connection from %s refused: a %s before HELLO",
		      ch.pfx, c->who, dl_net_type_name(f.type));
		dl_net_frame_free(&f);
		return false;
	}
	rc = dl_msg_decode(f.type, f.body, f.body_len, &m, err, sizeof(err));
	dl_net_frame_free(&f);
	if (rc) {
		error("%s: connection from %s refused: bad HELLO: %s", ch.pfx,
		      c->who, err);
		return false;
	}
	ok = _register(c, &m);
	dl_msg_free(&m);
	return ok;
}

/* Frames in, queued messages out, until either side ends it. */
static void _loop(conn_t *c)
{
	char err[256] = "";
	dl_net_frame_t f;
	int rc;

	while (!_stopping()) {
		struct pollfd p[2] = { { .fd = c->fd, .events = POLLIN },
				       { .fd = c->wake[0], .events = POLLIN } };

		/*
		 * No timeout: whatever this thread must do comes as a byte
		 * on c->wake (agent_channel_send() queuing, _register()
		 * replacing it, _reap(true) stopping it, which also shuts
		 * the socket down) or on the socket.  Frames are read whole
		 * (no bytes buffered past one), so poll() misses none.
		 */
		if (poll(p, 2, -1) < 0 && errno != EINTR)
			break;
		if (p[1].revents)
			_drain(c->wake[0]);
		if (!_flush(c))
			break;
		if (!(p[0].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		memset(&f, 0, sizeof(f));
		rc = dl_net_conn_recv(&c->nc, 0, &f, err, sizeof(err));
		if (rc) {
			if (rc != DL_ENOENT)
				error("%s: node %s: %s: closing", ch.pfx,
				      ch.nodes[c->node].name,
				      err[0] ? err : dl_strerror(rc));
			break;
		}
		rc = _handle(c, &f);
		dl_net_frame_free(&f);
		if (!rc)
			break;
	}
}

static void _unregister(conn_t *c)
{
	chan_node_t *n;
	bool lost = false;

	if (c->node < 0)
		return;
	n = &ch.nodes[c->node];
	slurm_mutex_lock(&n->lock);
	if (n->conn == c) {
		n->conn = NULL;
		agent_inv_lost(n->inv);
		n->since = time(NULL);
		lost = true;
	}
	_free_outbox(c);
	slurm_mutex_unlock(&n->lock);
	if (lost)
		_changed();
	if (lost && !_stopping())
		info("%s: node %s service disconnected: cache unknown",
		     ch.pfx, n->name);
}

static void *_serve(void *arg)
{
	conn_t *c = arg;

	dl_net_conn_init(&c->nc, c->fd, &ch.auth, FRAME_MS);
	if (_hello(c))
		_loop(c);
	_unregister(c);
	shutdown(c->fd, SHUT_RDWR);
	__atomic_store_n(&c->done, 1, __ATOMIC_RELEASE);
	_poke(ch.stop_pipe[1]); /* the listener reaps it */
	return NULL;
}

static void _free_conn(conn_t *c)
{
	pthread_join(c->tid, NULL);
	close(c->fd);
	close(c->wake[0]);
	close(c->wake[1]);
	_free_outbox(c);
	xfree(c);
}

/* Join and free finished connections (all of them if all). */
static void _reap(bool all)
{
	conn_t **pp, *c;

	slurm_mutex_lock(&ch.lock);
	/* Wake them all first: each may wait up to a frame's deadline. */
	for (c = ch.conns; all && c; c = c->next) {
		shutdown(c->fd, SHUT_RDWR);
		_poke(c->wake[1]);
	}
	for (pp = &ch.conns; (c = *pp);) {
		if (!all && !__atomic_load_n(&c->done, __ATOMIC_ACQUIRE)) {
			pp = &c->next;
			continue;
		}
		*pp = c->next;
		ch.nconns--;
		_free_conn(c);
	}
	slurm_mutex_unlock(&ch.lock);
}

static void _spawn(int fd, const char *who)
{
	conn_t *c = xmalloc(sizeof(*c));
	int err;

	c->fd = fd;
	c->node = -1;
	strlcpy(c->who, who, sizeof(c->who));
	if (_pipe(c->wake)) {
		error("%s: connection from %s: pipe: %m", ch.pfx, who);
		close(fd);
		xfree(c);
		return;
	}
	setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &(int){ 1 }, sizeof(int));
	slurm_mutex_lock(&ch.lock);
	if ((err = pthread_create(&c->tid, NULL, _serve, c))) {
		slurm_mutex_unlock(&ch.lock);
		error("%s: connection from %s: no thread: %s", ch.pfx, who,
		      strerror(err));
		close(fd);
		close(c->wake[0]);
		close(c->wake[1]);
		xfree(c);
		return;
	}
	c->next = ch.conns;
	ch.conns = c;
	ch.nconns++;
	slurm_mutex_unlock(&ch.lock);
}

/*
 * dl_net_door_log_fn.  The port's own troubles are logged as they come
 * (a taken port: once per try, and the tries back off); what strangers
 * cause at most once per STRANGER_LOG_EVERY s, with a count.  Called by
 * the listener thread only.
 */
static void _door_log(void *arg, int kind, int level, const char *msg)
{
	time_t now = time(NULL);

	(void)arg;
	if (kind == DL_NET_DOOR_SELF) {
		if (level <= 3)
			error("%s: %s; caches are modelled without node services until then",
			      ch.pfx, msg);
		else
			info("%s: %s for node services", ch.pfx, msg);
		return;
	}
	if (now - ch.stranger_said < STRANGER_LOG_EVERY) {
		ch.stranger_quiet++;
		return;
	}
	error("%s: %s (and %" PRIu64 " such events not logged)", ch.pfx, msg,
	      ch.stranger_quiet);
	ch.stranger_said = now;
	ch.stranger_quiet = 0;
}

/* Connections that spoke and said no HELLO yet (ch.lock held). */
static uint32_t _unregistered(void)
{
	uint32_t n = 0;

	for (conn_t *c = ch.conns; c; c = c->next)
		n += __atomic_load_n(&c->node, __ATOMIC_RELAXED) < 0 &&
		     !__atomic_load_n(&c->done, __ATOMIC_ACQUIRE);
	return n;
}

/* The connections that spoke at the door: a thread each, within bounds. */
static void _door_input(const struct pollfd *p)
{
	int fd[DL_NET_DOOR_MAX];
	char who[DL_NET_DOOR_MAX][96];
	size_t n = dl_net_door_input(&ch.door, p, fd, who, DL_NET_DOOR_MAX);

	for (size_t k = 0; k < n; k++) {
		uint32_t pending;
		char msg[200];

		slurm_mutex_lock(&ch.lock);
		pending = _unregistered();
		slurm_mutex_unlock(&ch.lock);
		if (pending >= EXTRA_CONNS) {
			snprintf(msg, sizeof(msg),
				 "refusing connection from %.95s: %u connections are authenticating already",
				 who[k], pending);
			_door_log(NULL, DL_NET_DOOR_STRANGER, 4, msg);
			close(fd[k]);
			continue;
		}
		_spawn(fd[k], who[k]);
	}
}

static void *_listen(void *arg)
{
	struct pollfd p[1 + 1 + DL_NET_DOOR_MAX];
	size_t n;

	(void)arg;
	while (!_stopping()) {
		p[0] = (struct pollfd){ .fd = ch.stop_pipe[0],
					.events = POLLIN };
		n = 1 + dl_net_door_poll(&ch.door, p + 1);
		/*
		 * Asleep until the door's next deadline (the silent closed,
		 * the port tried again) or a byte on stop_pipe (stop, a
		 * connection thread ended: reap it); none of either, no
		 * wakeup: with nothing to serve the thread costs nothing
		 * (issue 25, one 100,000-task array: 4 wakeups a second
		 * were most of what the idle controller paid over backfill).
		 */
		if (poll(p, n, dl_net_door_timeout_ms(&ch.door)) < 0 &&
		    errno != EINTR)
			break;
		if (p[0].revents)
			_drain(ch.stop_pipe[0]);
		_reap(false);
		if (_stopping())
			break;
		_door_input(p + 1);
		dl_net_door_tick(&ch.door);
	}
	return NULL;
}

/* Order a file's peers by load, then node index (insertion: <= 16). */
static void _order_peers(uint32_t *p, uint32_t n, const double *load)
{
	uint32_t i, j, x;

	for (i = 1; i < n; i++) {
		x = p[i];
		for (j = i; j > 0 && (load[p[j - 1]] > load[x] ||
				      (load[p[j - 1]] == load[x] &&
				       p[j - 1] > x));
		     j--)
			p[j] = p[j - 1];
		p[j] = x;
	}
}

/*
 * After the holders of path in p[0..*n), the connected nodes fetching it
 * (in node order): a peer's copy a moment from now, which the node's
 * service waits for (cached_peer_serve()), beats a second storage read.
 */
static void _add_fetching(int32_t me, const char *path, uint32_t *p,
			  uint32_t *n)
{
	fetching_t key = { .hash = agent_inv_hash(path, strlen(path)), .node = 0 };
	size_t lo = 0, hi, i;
	uint32_t k, j;

	slurm_mutex_lock(&fetch.lock);
	for (hi = fetch.n; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;

		if (_cmp_fetching(&fetch.v[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < fetch.n && fetch.v[i].hash == key.hash &&
		     *n < DL_MSG_PEERS_MAX;
	     i++) {
		k = fetch.v[i].node;
		for (j = 0; j < *n && p[j] != k; j++)
			;
		if (j < *n || (int32_t)k == me || k >= ch.nnodes)
			continue;
		slurm_mutex_lock(&ch.nodes[k].lock);
		if (ch.nodes[k].conn)
			p[(*n)++] = k;
		slurm_mutex_unlock(&ch.nodes[k].lock);
	}
	slurm_mutex_unlock(&fetch.lock);
}

static int _locate(conn_t *c, const dl_msg_t *q, char *err, size_t errlen)
{
	double *load = xcalloc(ch.nnodes ? ch.nnodes : 1, sizeof(double));
	uint32_t *np, k, i, j;
	uint32_t (*peers)[DL_MSG_PEERS_MAX];
	dl_msg_t a;
	dl_msg_file_t *fl;
	char *body = NULL;
	size_t len = 0;
	uint64_t sz;
	int rc = 0;

	peers = xcalloc(q->nfiles ? q->nfiles : 1, sizeof(*peers));
	np = xcalloc(q->nfiles ? q->nfiles : 1, sizeof(uint32_t));
	for (k = 0; k < ch.nnodes; k++) {
		chan_node_t *n = &ch.nodes[k];

		if (k == (uint32_t)c->node)
			continue;
		slurm_mutex_lock(&n->lock);
		load[k] = n->load;
		if (n->conn && agent_inv_complete(n->inv))
			for (i = 0; i < q->nfiles; i++)
				if (np[i] < DL_MSG_PEERS_MAX &&
				    agent_inv_size(n->inv, q->files[i].path,
						   &sz))
					peers[i][np[i]++] = k;
		slurm_mutex_unlock(&n->lock);
	}
	dl_msg_init(&a, DL_NET_LOCATED);
	a.req = q->req;
	for (i = 0; i < q->nfiles && !rc; i++) {
		_order_peers(peers[i], np[i], load);
		_add_fetching(c->node, q->files[i].path, peers[i], &np[i]);
		if (!np[i])
			continue;
		if (!(fl = dl_msg_add_file(&a, q->files[i].path, 0, 0))) {
			rc = DL_ENOMEM;
			break;
		}
		for (j = 0; j < np[i] && !rc; j++) {
			chan_node_t *n = &ch.nodes[peers[i][j]];

			slurm_mutex_lock(&n->lock);
			rc = dl_msg_file_add_peer(fl, n->name, n->peer_host,
						  n->peer_port);
			slurm_mutex_unlock(&n->lock);
		}
	}
	if (!rc)
		rc = dl_msg_encode(&a, &body, &len, err, errlen);
	if (!rc)
		rc = dl_net_conn_send(&c->nc, DL_NET_LOCATED, body, len, err,
				      errlen);
	free(body);
	dl_msg_free(&a);
	xfree(peers);
	xfree(np);
	xfree(load);
	slurm_mutex_lock(&ch.nodes[c->node].lock);
	ch.nodes[c->node].locates++;
	slurm_mutex_unlock(&ch.nodes[c->node].lock);
	return rc;
}

/* Whether c asks for what runs already. */
static bool _same(const agent_channel_conf_t *c)
{
	uint32_t i;

	if (!ch.running || c->port != ch.port ||
	    xstrcmp(c->munge_socket, ch.munge_socket) ||
	    c->slurm_uid != ch.auth.slurm_uid || c->nnodes != ch.nnodes)
		return false;
	for (i = 0; i < c->nnodes; i++)
		if (xstrcmp(c->names[i], ch.nodes[i].name))
			return false;
	return true;
}

static void _nodes_free(void)
{
	uint32_t i;

	for (i = 0; i < ch.nnodes; i++) {
		slurm_mutex_destroy(&ch.nodes[i].lock);
		xfree(ch.nodes[i].name);
		agent_inv_destroy(ch.nodes[i].inv);
	}
	xfree(ch.nodes);
	ch.nnodes = 0;
}

static void _nodes_init(const agent_channel_conf_t *c)
{
	uint32_t i;

	ch.nnodes = c->nnodes;
	ch.nodes = xcalloc(c->nnodes ? c->nnodes : 1, sizeof(chan_node_t));
	for (i = 0; i < c->nnodes; i++) {
		slurm_mutex_init(&ch.nodes[i].lock);
		ch.nodes[i].name = xstrdup(c->names[i]);
		ch.nodes[i].inv = agent_inv_create(0, 0);
		if (!ch.nodes[i].inv)
			fatal("%s: out of memory", ch.pfx);
	}
}

int agent_channel_start(const agent_channel_conf_t *c, const char *pfx)
{
	ch.pfx = pfx;
	if (_same(c))
		return 0;
	agent_channel_stop();
	if (_pipe(ch.stop_pipe)) {
		error("%s: node channel: pipe: %m", pfx);
		return DL_EIO;
	}
	_nodes_init(c);
	ch.port = c->port;
	/* a port someone else holds is tried again by the listener */
	dl_net_door_init(&ch.door, c->port, "ServicePort", GREET_MS,
			 _door_log, NULL);
	dl_net_door_tick(&ch.door);
	ch.munge_socket = xstrdup(c->munge_socket);
	ch.auth.munge_socket = ch.munge_socket;
	ch.auth.slurm_uid = c->slurm_uid;
	__atomic_store_n(&ch.stop, 0, __ATOMIC_RELEASE);
	slurm_thread_create(&ch.tid, _listen, NULL);
	ch.running = true;
	return 0;
}

void agent_channel_stop(void)
{
	if (!ch.running)
		return;
	__atomic_store_n(&ch.stop, 1, __ATOMIC_RELEASE);
	_poke(ch.stop_pipe[1]);
	pthread_join(ch.tid, NULL);
	_reap(true);
	dl_net_door_close(&ch.door);
	close(ch.stop_pipe[0]);
	close(ch.stop_pipe[1]);
	ch.stop_pipe[0] = ch.stop_pipe[1] = -1;
	_nodes_free();
	agent_channel_set_fetching(NULL, NULL, 0);
	xfree(ch.munge_socket);
	ch.auth.munge_socket = NULL;
	ch.running = false;
}

bool agent_channel_running(void)
{
	return ch.running;
}

uint64_t agent_channel_changes(void)
{
	return __atomic_load_n(&ch.changes, __ATOMIC_ACQUIRE);
}

void agent_channel_on_change(void (*wake)(void))
{
	__atomic_store_n(&ch.wake, wake, __ATOMIC_RELEASE);
}

bool agent_channel_view(uint32_t node, agent_channel_view_t *v)
{
	chan_node_t *n;

	memset(v, 0, sizeof(*v));
	if (!ch.running || node >= ch.nnodes)
		return false;
	n = &ch.nodes[node];
	slurm_mutex_lock(&n->lock);
	v->connected = n->conn != NULL;
	v->complete = v->connected && agent_inv_complete(n->inv);
	v->ever = n->ever;
	v->epoch = n->conn ? n->epoch : 0;
	v->generation = agent_inv_generation(n->inv);
	v->files = agent_inv_count(n->inv);
	v->c = *agent_inv_counters(n->inv);
	strlcpy(v->peer_host, n->peer_host, sizeof(v->peer_host));
	v->peer_port = n->peer_port;
	v->since = n->since;
	v->changed = n->changed;
	v->prefetch_done = n->prefetch_done;
	v->locates = n->locates;
	slurm_mutex_unlock(&n->lock);
	return true;
}

bool agent_channel_inventory(uint32_t node, uint64_t *gen,
			     void (*fn)(const char *path, uint64_t size,
					void *arg),
			     void *arg)
{
	chan_node_t *n;
	bool done = false;

	if (!ch.running || node >= ch.nnodes)
		return false;
	n = &ch.nodes[node];
	slurm_mutex_lock(&n->lock);
	if (n->conn && agent_inv_complete(n->inv) &&
	    agent_inv_generation(n->inv) != *gen) {
		agent_inv_foreach(n->inv, fn, arg);
		*gen = agent_inv_generation(n->inv);
		done = true;
	}
	slurm_mutex_unlock(&n->lock);
	return done;
}

int agent_channel_send(uint32_t node, uint64_t epoch, uint32_t type,
		       const char *body, size_t len)
{
	chan_node_t *n;
	out_msg_t *m;
	conn_t *c;
	int rc = 0;

	if (!ch.running || node >= ch.nnodes)
		return DL_ENOENT;
	n = &ch.nodes[node];
	slurm_mutex_lock(&n->lock);
	c = n->conn;
	if (!c || n->epoch != epoch || c->kill) {
		rc = DL_ENOENT;
	} else if (c->out_bytes + len > OUTBOX_MAX) {
		c->kill = true;
		rc = DL_ETOOBIG;
	} else {
		m = xmalloc(sizeof(*m) + len + 1);
		m->type = type;
		m->len = len;
		memcpy(m->body, body, len);
		if (c->out_tail)
			c->out_tail->next = m;
		else
			c->out_head = m;
		c->out_tail = m;
		c->out_bytes += len;
	}
	if (c && rc != DL_ENOENT)
		_poke(c->wake[1]);
	slurm_mutex_unlock(&n->lock);
	if (rc == DL_ETOOBIG)
		error("%s: node %s does not read what it is sent (%u MiB waiting): closing its connection",
		      ch.pfx, n->name, OUTBOX_MAX >> 20);
	return rc;
}

void agent_channel_set_fetching(const char *const *paths,
				const uint32_t *nodes, size_t n)
{
	fetching_t *v = n ? xcalloc(n, sizeof(*v)) : NULL, *old;
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = (fetching_t){ .hash = agent_inv_hash(paths[i], strlen(paths[i])), .node = nodes[i] };
	if (n > 1)
		qsort(v, n, sizeof(*v), _cmp_fetching);
	slurm_mutex_lock(&fetch.lock);
	old = fetch.v;
	fetch.v = v;
	fetch.n = n;
	slurm_mutex_unlock(&fetch.lock);
	xfree(old);
}

void agent_channel_set_load(uint32_t node, double load)
{
	if (!ch.running || node >= ch.nnodes)
		return;
	slurm_mutex_lock(&ch.nodes[node].lock);
	ch.nodes[node].load = load;
	slurm_mutex_unlock(&ch.nodes[node].lock);
}
