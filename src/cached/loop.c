/*
 * loop.c - dl-cached's parent: one poll() loop over the local socket
 * (dl-stage), the peer listener, the controller connection and the
 * children's relays, plus timers.  Every request is served by a child
 * (cached.h says why); the parent only reads the request, forks, relays
 * LOCATE/LOCATED and PREFETCH_DONE, and reaps.
 *
 * Prefetches copy PrefetchParallel at a time (default one); the others
 * wait in arrival order, which is the controller's priority order.  With
 * all of them copying at once, a node's later jobs took storage and peer
 * bandwidth from its next one, whose Prolog then waited: in a cold start
 * the second job's files arrived before the first's.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cached.h"
#include "dl_error.h"

#define MAX_CHILDREN 128
/* How long the parent waits for a local client's request frame. */
#define LOCAL_READ_MS 2000
#define EXPIRE_EVERY 10

enum kind { K_LOCAL, K_PREFETCH, K_PEER };

typedef struct child {
	pid_t pid;
	enum kind kind;
	uint32_t job;
	int relay;     /* parent's end, -1 if none */
	uint64_t req;  /* LOCATE awaiting its LOCATED */
	int64_t stage_ms; /* a job's STAGE: when it arrived; else 0 */
} child_t;

/* A job's STAGE waiting for the prefetch of its files to finish. */
typedef struct pending {
	int fd;
	dl_msg_t m;
	int64_t stage_ms; /* when it arrived */
} pending_t;

typedef struct loop {
	const cached_conf_t *conf;
	dl_stage_t *st;
	cached_ctl_t *ctl;
	int lfd;
	dl_net_door_t door; /* the peer port */
	child_t ch[MAX_CHILDREN];
	size_t nch;
	pending_t pend[MAX_CHILDREN];
	size_t npend;
	cached_pfq_t queue; /* PREFETCHes not started yet */
} loop_t;

static volatile sig_atomic_t stop;

static void _on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* In a new child: let go of what belongs to the parent. */
static void _child_init(loop_t *l, int keep)
{
	for (size_t i = 0; i < l->npend; i++)
		if (l->pend[i].fd != keep)
			close(l->pend[i].fd);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	close(l->lfd);
	dl_net_door_forget(&l->door, keep);
	if (cached_ctl_fd(l->ctl) >= 0)
		close(cached_ctl_fd(l->ctl));
	for (size_t i = 0; i < l->nch; i++)
		if (l->ch[i].relay >= 0 && l->ch[i].relay != keep)
			close(l->ch[i].relay);
}

/*
 * Fork a child of a kind; in the child run fn and exit with its status.
 * fd is the request's connection (closed in the parent).
 */
static int _spawn(loop_t *l, enum kind kind, uint32_t job, int fd,
		  int (*fn)(loop_t *l, int fd, int relay, void *arg),
		  void *arg)
{
	int sv[2] = { -1, -1 };
	pid_t pid;

	if (l->nch == MAX_CHILDREN) {
		cached_log(4, "%d requests in progress: one refused",
			   MAX_CHILDREN);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (kind != K_PEER &&
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		cached_log(3, "socketpair: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		if (sv[0] >= 0)
			close(sv[0]);
		_child_init(l, fd);
		_exit(fn(l, fd, sv[1], arg));
	}
	if (sv[1] >= 0)
		close(sv[1]);
	if (fd >= 0)
		close(fd);
	if (pid < 0) {
		cached_log(3, "fork: %s", strerror(errno));
		if (sv[0] >= 0)
			close(sv[0]);
		return -1;
	}
	l->ch[l->nch++] = (child_t){ .pid = pid, .kind = kind, .job = job,
				     .relay = sv[0] };
	return 0;
}

static int _run_local(loop_t *l, int fd, int relay, void *arg);

static int64_t _mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Tell the controller a job's staging began here (done=0) or ended
 * (done=1, with the seconds since its STAGE arrived, its wait for a
 * prefetch included), so that the time is not charged to the job's
 * limit (design.md, "Staging outside the time limit").  Not connected:
 * the message waits in the outbox (ctl.c) for the next connection.
 */
static void _tell_staging(loop_t *l, uint32_t job, int64_t since_ms)
{
	dl_msg_t m;
	char *body;
	size_t n;

	dl_msg_init(&m, DL_NET_STAGING);
	m.job = job;
	m.done = since_ms ? 1 : 0;
	if (since_ms)
		m.secs = (uint64_t)((_mono_ms() - since_ms + 500) / 1000);
	if (!dl_msg_encode(&m, &body, &n, NULL, 0)) {
		cached_ctl_send(l->ctl, DL_NET_STAGING, body, n);
		free(body);
	}
	dl_msg_free(&m);
}

/* Serve a job's STAGE that arrived at stage_ms; a refused one ends here. */
static void _spawn_stage(loop_t *l, int fd, dl_msg_t *m, int64_t stage_ms)
{
	uint32_t job = (uint32_t)m->job;

	if (_spawn(l, K_LOCAL, job, fd, _run_local, m))
		_tell_staging(l, job, stage_ms);
	else if (m->type == DL_NET_STAGE)
		l->ch[l->nch - 1].stage_ms = stage_ms;
}

/* The STAGE of job waited for its prefetch, which ended: serve it now. */
static void _release(loop_t *l, uint32_t job)
{
	for (size_t i = 0; i < l->npend; i++)
		if ((uint32_t)l->pend[i].m.job == job) {
			pending_t p = l->pend[i];

			l->pend[i] = l->pend[--l->npend];
			_spawn_stage(l, p.fd, &p.m, p.stage_ms);
			dl_msg_free(&p.m);
			return;
		}
}

static void _relay_input(loop_t *l, child_t *ch);

/*
 * What a child wrote to its relay just before it ended, which the poll
 * may not have seen yet: read before the relay is closed.
 */
static void _relay_drain(loop_t *l, child_t *ch)
{
	struct pollfd p = { .fd = ch->relay, .events = POLLIN };

	while (ch->relay >= 0 && poll(&p, 1, 0) > 0 && p.revents)
		_relay_input(l, ch);
}

static void _reap(loop_t *l)
{
	pid_t pid;

	while ((pid = waitpid(-1, NULL, WNOHANG)) > 0)
		for (size_t i = 0; i < l->nch; i++)
			if (l->ch[i].pid == pid) {
				child_t c;

				_relay_drain(l, &l->ch[i]);
				c = l->ch[i];

				if (c.relay >= 0)
					close(c.relay);
				l->ch[i] = l->ch[--l->nch];
				if (c.kind == K_PREFETCH)
					_release(l, c.job);
				if (c.stage_ms)
					_tell_staging(l, c.job, c.stage_ms);
				break;
			}
}

static bool _prefetching(const loop_t *l, uint32_t job)
{
	for (size_t i = 0; i < l->nch; i++)
		if (l->ch[i].kind == K_PREFETCH && l->ch[i].job == job)
			return true;
	return false;
}

/* Whether the job's own staging (STAGE) runs here or waits to. */
static bool _staging(const loop_t *l, uint32_t job)
{
	for (size_t i = 0; i < l->nch; i++)
		if (l->ch[i].kind == K_LOCAL && l->ch[i].job == job)
			return true;
	for (size_t i = 0; i < l->npend; i++)
		if ((uint32_t)l->pend[i].m.job == job)
			return true;
	return false;
}

/*
 * Stop a running prefetch of job (replaced, cancelled, or it starts).
 * \return whether one ran: its view and pins are then half made.
 */
static bool _kill_prefetch(loop_t *l, uint32_t job)
{
	for (size_t i = 0; i < l->nch; i++)
		if (l->ch[i].kind == K_PREFETCH && l->ch[i].job == job) {
			kill(l->ch[i].pid, SIGKILL);
			waitpid(l->ch[i].pid, NULL, 0);
			if (l->ch[i].relay >= 0)
				close(l->ch[i].relay);
			l->ch[i] = l->ch[--l->nch];
			return true;
		}
	return false;
}

/* ---- the prefetch queue ---------------------------------------------- */

static int _run_prefetch(loop_t *l, int fd, int relay, void *arg);

/* Start queued prefetches, oldest first, while slots are free. */
static void _pump(loop_t *l)
{
	unsigned max = l->conf->prefetch_parallel, running = 0;
	dl_msg_t m;

	for (size_t i = 0; i < l->nch; i++)
		running += l->ch[i].kind == K_PREFETCH;
	while ((!max || running < max) && cached_pfq_pop(&l->queue, &m)) {
		if (!_spawn(l, K_PREFETCH, (uint32_t)m.job, -1, _run_prefetch,
			    &m))
			running++;
		dl_msg_free(&m);
	}
}

/* ---- children's work ------------------------------------------------- */

static int _run_local(loop_t *l, int fd, int relay, void *arg)
{
	return cached_work_local(l->conf, fd, arg, relay);
}

static int _run_prefetch(loop_t *l, int fd, int relay, void *arg)
{
	(void)fd;
	return cached_work_prefetch(l->conf, arg, relay);
}

/* cached_queued_fn: in a peer child, the queue as it was at the fork. */
static bool _queued(void *arg, const char *path)
{
	const loop_t *l = arg;

	for (size_t i = 0; i < l->queue.n; i++)
		for (size_t k = 0; k < l->queue.m[i].nfiles; k++)
			if (!strcmp(l->queue.m[i].files[k].path, path))
				return true;
	return false;
}

static int _run_peer(loop_t *l, int fd, int relay, void *arg)
{
	(void)relay;
	return cached_peer_serve(l->conf, &l->conf->auth, fd, arg, _queued,
				 l) ? 1 : 0;
}

/* ---- listeners -------------------------------------------------------- */

static void _local_accept(loop_t *l)
{
	dl_net_frame_t f;
	dl_net_conn_t c;
	dl_msg_t m;
	char err[256] = "";
	uid_t uid = (uid_t)-1;
	int64_t stage_ms = 0;
	int fd;

	if (dl_net_accept(l->lfd, 0, &fd, NULL, 0))
		return;
	if (dl_net_peer_uid(fd, &uid) || uid != 0) {
		cached_log(4, "local socket: rejected a client of uid %d (only "
			   "root)", (int)uid);
		close(fd);
		return;
	}
	dl_net_conn_init(&c, fd, NULL, LOCAL_READ_MS);
	if (dl_net_conn_recv(&c, LOCAL_READ_MS, &f, err, sizeof(err))) {
		cached_log(4, "local socket: rejected: %s", err);
		close(fd);
		return;
	}
	if ((f.type != DL_NET_STAGE && f.type != DL_NET_END) ||
	    dl_msg_decode(f.type, f.body, f.body_len, &m, err, sizeof(err))) {
		cached_log(4, "local socket: rejected %s: %s",
			   dl_net_type_name(f.type), err[0] ? err :
						     "not STAGE or END");
		dl_net_frame_free(&f);
		close(fd);
		return;
	}
	dl_net_frame_free(&f);
	if (m.type == DL_NET_STAGE) {
		stage_ms = _mono_ms();
		_tell_staging(l, (uint32_t)m.job, 0);
	}
	/*
	 * The job starts while its files are being prefetched: its staging
	 * waits for the prefetch (which copies the same files, the ones in
	 * flight included) and then finds them cached.
	 */
	if (m.type == DL_NET_STAGE && _prefetching(l, (uint32_t)m.job) &&
	    l->npend < MAX_CHILDREN) {
		cached_log(6, "job %" PRIu64 " starts: waiting for its "
			   "prefetch to finish", m.job);
		l->pend[l->npend++] = (pending_t){ .fd = fd, .m = m,
						   .stage_ms = stage_ms };
		return;
	}
	_kill_prefetch(l, (uint32_t)m.job);
	cached_pfq_drop(&l->queue, (uint32_t)m.job); /* the STAGE copies */
	_spawn_stage(l, fd, &m, stage_ms);
	dl_msg_free(&m);
}

/* Peers that spoke at the door: a child each, within their half. */
static void _peer_input(loop_t *l, const struct pollfd *p)
{
	int fd[DL_NET_DOOR_MAX];
	char who[DL_NET_DOOR_MAX][96];
	size_t n = dl_net_door_input(&l->door, p, fd, who, DL_NET_DOOR_MAX);

	for (size_t k = 0; k < n; k++) {
		size_t peers = 0;

		/* anyone can connect: half the slots stay for this node's jobs */
		for (size_t i = 0; i < l->nch; i++)
			peers += l->ch[i].kind == K_PEER;
		if (peers >= MAX_CHILDREN / 2) {
			cached_log_limited(CACHED_LOG_PEER, 4,
					   "peer %s: rejected, %zu peer "
					   "requests in progress", who[k],
					   peers);
			close(fd[k]);
			continue;
		}
		_spawn(l, K_PEER, 0, fd[k], _run_peer, who[k]);
	}
}

/* ---- relays ----------------------------------------------------------- */

static void _relay_reply_empty(int fd)
{
	dl_net_conn_t c;

	dl_net_conn_init(&c, fd, NULL, 1000);
	dl_net_conn_send(&c, DL_NET_LOCATED, "req=0\n", 6, NULL, 0);
}

static void _relay_input(loop_t *l, child_t *ch)
{
	dl_net_frame_t f;
	dl_net_conn_t c;
	const char *nl;

	dl_net_conn_init(&c, ch->relay, NULL, 1000);
	if (dl_net_conn_recv(&c, 0, &f, NULL, 0)) {
		close(ch->relay); /* the child is done with it */
		ch->relay = -1;
		return;
	}
	if (f.type == DL_NET_LOCATE) {
		nl = memchr(f.body, '\n', f.body_len);
		ch->req = nl ? cached_ctl_locate(l->ctl, nl + 1,
						 f.body_len -
							 (size_t)(nl + 1 -
								  f.body)) :
			       0;
		if (!ch->req)
			_relay_reply_empty(ch->relay);
	} else if (f.type == DL_NET_PREFETCH_DONE ||
		   f.type == DL_NET_REPORT) {
		/* REPORT: what a job's staging found, for its accounting */
		cached_ctl_send(l->ctl, f.type, f.body, f.body_len);
	}
	dl_net_frame_free(&f);
}

/* ---- controller callbacks -------------------------------------------- */

static void _on_prefetch(void *arg, dl_msg_t *m)
{
	loop_t *l = arg;

	cached_log(6, "prefetch for job %" PRIu64 ": %zu files", m->job,
		   m->nfiles);
	/* the controller's word can come after the job started here */
	if (_staging(l, (uint32_t)m->job)) {
		cached_log(6, "job %" PRIu64 " is starting here: its prefetch "
			   "is not needed", m->job);
		return;
	}
	/* a new request replaces a running one, and starts again at once */
	if (_kill_prefetch(l, (uint32_t)m->job) &&
	    !_spawn(l, K_PREFETCH, (uint32_t)m->job, -1, _run_prefetch, m))
		return;
	if (!cached_pfq_put(&l->queue, m))
		cached_log(4, "%d prefetches queued: job %" PRIu64 "'s dropped",
			   CACHED_PFQ_MAX, m->job);
	_pump(l);
}

static void _on_cancel(void *arg, uint32_t job)
{
	loop_t *l = arg;

	/* a prefetch stopped midway leaves its pins, which the drop below
	 * removes; the job's own records are not the prefetch's to touch */
	_kill_prefetch(l, job);
	cached_pfq_drop(&l->queue, job);
	dl_stage_prefetch_drop(l->st, job);
	_release(l, job); /* a STAGE that waited for it goes ahead */
	cached_log(6, "prefetch for job %" PRIu32 " cancelled", job);
}

static void _on_located(void *arg, uint64_t req, const char *body, size_t n)
{
	loop_t *l = arg;
	dl_net_conn_t c;

	for (size_t i = 0; i < l->nch; i++)
		if (l->ch[i].req == req && l->ch[i].relay >= 0) {
			l->ch[i].req = 0;
			dl_net_conn_init(&c, l->ch[i].relay, NULL, 1000);
			dl_net_conn_send(&c, DL_NET_LOCATED, body, n, NULL, 0);
			return;
		}
}

/* ---- the loop --------------------------------------------------------- */

/* dl_net_door_log_fn: what strangers cause is rate-limited. */
static void _door_log(void *arg, int kind, int level, const char *msg)
{
	(void)arg;
	cached_log_limited(kind == DL_NET_DOOR_STRANGER ? CACHED_LOG_PEER
							: CACHED_LOG_LISTEN,
			   level, "%s", msg);
}

static int _setup(loop_t *l, const cached_conf_t *conf)
{
	char err[512] = "", sock[4200];
	cached_ctl_ops_t ops = { _on_prefetch, _on_cancel, _on_located, l };

	memset(l, 0, sizeof(*l));
	l->conf = conf;
	l->lfd = -1;
	dl_net_door_init(&l->door, conf->peer_port, "peer port",
			 CACHED_GREET_MS, _door_log, NULL);
	if (dl_stage_open(conf->cache_dir, &conf->opts, 1, &l->st, err,
			  sizeof(err))) {
		cached_log(3, "cache directory %s refused: %s",
			   conf->cache_dir, err);
		return -1;
	}
	snprintf(sock, sizeof(sock), "%s/.sock", conf->cache_dir);
	if (dl_net_listen_unix(sock, 0600, &l->lfd, err, sizeof(err))) {
		cached_log(3, "%s", err);
		return -1;
	}
	/* a peer port taken by someone else is tried again, not fatal */
	dl_net_door_tick(&l->door);
	if (!(l->ctl = cached_ctl_create(conf, l->st, &ops)))
		return -1;
	cached_log(6, "serving %s for node %s: local socket %s, peers on "
		   "port %u, controller %s:%u", conf->cache_dir, conf->node,
		   sock, conf->peer_port, conf->controller,
		   conf->service_port);
	return 0;
}

static void _teardown(loop_t *l)
{
	char sock[4200];

	for (size_t i = 0; i < l->npend; i++) {
		close(l->pend[i].fd); /* dl-stage then stages directly */
		dl_msg_free(&l->pend[i].m);
	}
	l->npend = 0;
	cached_pfq_clear(&l->queue);
	for (size_t i = 0; i < l->nch; i++)
		kill(l->ch[i].pid, SIGTERM);
	while (l->nch) {
		_reap(l);
		if (l->nch)
			usleep(10000);
	}
	if (l->lfd >= 0) {
		snprintf(sock, sizeof(sock), "%s/.sock", l->conf->cache_dir);
		unlink(sock);
		close(l->lfd);
	}
	dl_net_door_close(&l->door);
	cached_ctl_destroy(l->ctl);
	dl_stage_close(l->st);
}

static void _poll_once(loop_t *l)
{
	struct pollfd p[3 + DL_NET_DOOR_MAX + MAX_CHILDREN];
	child_t *who[MAX_CHILDREN];
	size_t n = 0, nrel = 0, door, rel;

	p[n++] = (struct pollfd){ .fd = l->lfd, .events = POLLIN };
	p[n++] = (struct pollfd){ .fd = cached_ctl_fd(l->ctl),
				  .events = POLLIN };
	door = n;
	n += dl_net_door_poll(&l->door, p + n);
	rel = n;
	for (size_t i = 0; i < l->nch; i++)
		if (l->ch[i].relay >= 0) {
			who[nrel++] = &l->ch[i];
			p[n++] = (struct pollfd){ .fd = l->ch[i].relay,
						  .events = POLLIN };
		}
	if (poll(p, n, 200) <= 0)
		return;
	if (p[0].revents)
		_local_accept(l);
	if (p[1].revents && cached_ctl_fd(l->ctl) >= 0)
		cached_ctl_input(l->ctl);
	_peer_input(l, p + door);
	/* relays last: the spawns above may have moved l->ch */
	for (size_t i = 0; i < nrel; i++)
		if (p[rel + i].revents && who[i] < l->ch + l->nch &&
		    who[i]->relay == p[rel + i].fd)
			_relay_input(l, who[i]);
}

int cached_loop_run(const cached_conf_t *conf)
{
	struct sigaction sa = { .sa_handler = _on_signal };
	time_t last_expire = 0;
	loop_t l;

	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (_setup(&l, conf)) {
		_teardown(&l);
		return 1;
	}
	while (!stop) {
		_poll_once(&l);
		dl_net_door_tick(&l.door);
		_reap(&l);
		_pump(&l);
		cached_ctl_tick(l.ctl);
		if (time(NULL) - last_expire >= EXPIRE_EVERY) {
			last_expire = time(NULL);
			dl_stage_prefetch_expire(l.st);
		}
	}
	cached_log(6, "stopping");
	_teardown(&l);
	return 0;
}
