/*
 * cached.h - private to dl-cached, the node cache service (doc/design.md
 * "Node cache service", PROTOCOL in the same section): its modules and
 * what they share.
 *
 *   dl-cached.c  options and wiring only
 *   conf.c       settings: datalocality.conf, slurm.conf, the command line
 *   log.c        one line per event to stderr (foreground) or syslog;
 *                lines strangers can cause are rate-limited
 *   loop.c       the parent's event loop: listeners, children, timers
 *   ctl.c        the connection to the controller: HELLO, INV, DELTA,
 *                PREFETCH/CANCEL in, LOCATE relayed for children
 *   outbox.c     REPORT, STAGING, PREFETCH_DONE kept while disconnected
 *   work.c       the children: STAGE and END for dl-stage, PREFETCH
 *   peer.c       FETCH: serving peers (child) and fetching from them
 *                (the stage library's fetch hook, in STAGE and PREFETCH
 *                children)
 *
 * Processes: the parent never opens a user's file nor talks to a peer; it
 * forks one child per request (a STAGE, an END, a PREFETCH, an incoming
 * FETCH), so a slow peer or a hung user opener blocks only that child.
 * Children that need the controller (LOCATE, PREFETCH_DONE) talk to the
 * parent over a socketpair in local frames (no credential); the parent
 * relays.  The parent alone holds the controller connection.
 */
#ifndef DL_CACHED_H
#define DL_CACHED_H

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "dl_net_auth.h"
#include "dl_net_door.h"
#include "dl_net_msg.h"
#include "stage.h"

#define CACHED_SERVICE_PORT 6830
#define CACHED_PEER_PORT 6831
#define CACHED_PREFETCH_TIMEOUT 600
/* Prefetches copying at once on a node; the rest queue in arrival order. */
#define CACHED_PREFETCH_PARALLEL 1
/* Frame deadlines (ms): between daemons, and on the local socket. */
#define CACHED_NET_TIMEOUT 10000
#define CACHED_CONNECT_TIMEOUT 2000
/* A peer's NONCE and authenticated FETCH must come within this (ms). */
#define CACHED_AUTH_TIMEOUT 5000
/* A LOCATE unanswered this long: copy from storage. */
#define CACHED_LOCATE_TIMEOUT 2000
/*
 * How long a peer server waits for a copy under way here before refusing
 * (below CACHED_NET_TIMEOUT, the requester's patience for an answer).
 */
#define CACHED_INFLIGHT_WAIT 5000
/* Peers tried per file at most. */
#define CACHED_PEER_TRIES 3
/* Slowest peer stream accepted: bytes/s (and at least 10 s). */
#define CACHED_PEER_MIN_RATE (8u << 20)

/* ---- conf.c ---- */
typedef struct cached_conf {
	char node[256];
	char *cache_dir;           /* expanded */
	dl_stage_opts_t opts;      /* capacity, policy, ... (node set) */
	char controller[256];      /* ServiceController */
	uint16_t service_port;     /* ServicePort */
	uint16_t peer_port;        /* PeerPort (or -P) */
	char peer_host[256];       /* how peers reach us (PeerAddr) */
	char munge_socket[4096];   /* MungeSocket, "" for libmunge's */
	uid_t slurm_uid;           /* SlurmUser's uid */
	uint64_t prefetch_max;     /* PrefetchMaxBytes, 0: half capacity */
	unsigned prefetch_timeout; /* PrefetchTimeout, s */
	unsigned prefetch_parallel; /* PrefetchParallel, 0: no limit */
	dl_net_auth_t auth;        /* points into this struct */
} cached_conf_t;

/**
 * cached_conf_load - settings from datalocality.conf (conf_path, or next
 * to $SLURM_CONF), slurm.conf (SlurmUser, SlurmctldHost) and the options
 * already in c (node, peer_port if nonzero).  Writes why it failed to err.
 * \return 0 or -1.
 */
int cached_conf_load(cached_conf_t *c, const char *conf_path, char *err,
		     size_t errlen);

/* ---- log.c ---- */
/* Kinds of lines that others can cause at will, limited each. */
enum { CACHED_LOG_PEER, CACHED_LOG_LISTEN, CACHED_LOG_KINDS };
/* Lines of a kind per second, across the parent and its children. */
#define CACHED_LOG_BURST 5
/* Before the first fork: the limits are shared with the children. */
void cached_log_init(bool foreground);
void cached_log(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * cached_log_limited - as cached_log(), at most CACHED_LOG_BURST lines of
 * kind per second over all of dl-cached's processes; the lines dropped
 * are counted and said by the next line let through.
 */
void cached_log_limited(int kind, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* For dl_stage_opts_t.log. */
void cached_log_cb(int level, const char *msg, void *arg);

/* ---- the peer port (a dl_net_door_t of libdlnet) ---- */
/* How long a connection to the peer port may stay silent (ms). */
#define CACHED_GREET_MS 1000

/* ---- peer.c ---- */
/* Peers that hold a path, as LOCATED or PREFETCH name them. */
typedef struct cached_source {
	const dl_msg_t *located;   /* files[] with peers; NULL: ask parent */
	int relay;                 /* socketpair to the parent, or -1 */
	const cached_conf_t *conf;
	dl_msg_t cache;            /* LOCATED answers got so far (owned) */
} cached_source_t;

/**
 * cached_peer_fetch - dl_stage_fetch_fn: copy path from a peer named by
 * the source (cached_source_t), verifying length and SHA-256.
 */
int cached_peer_fetch(void *arg, const dl_stage_job_t *job, const char *path,
		      const struct stat *sb, int out,
		      char sha[DL_SHA256_HEX_LEN], int64_t *verified_ns);

/**
 * cached_peer_check - whether this node may serve req (FETCH): a
 * complete entry with the requested identity and a known digest, and the
 * requester's uid/gid can open the source here with that identity too.
 * OUT fd - the cached copy to stream (caller closes), on 0
 * OUT sha - its digest
 * OUT verified_ns - when the copy was last known to be its source's
 *                   content (the requester judges it, see peer.c)
 * OUT why - on refusal, one line
 * \return 0 or -1 (refused).
 */
int cached_peer_check(dl_stage_t *st, const dl_msg_t *req, unsigned timeout_s,
		      int *fd, char sha[DL_SHA256_HEX_LEN],
		      int64_t *verified_ns, char *why, size_t whylen);

/* Whether a prefetch queued on this node will copy path. */
typedef bool (*cached_queued_fn)(void *arg, const char *path);

/**
 * cached_peer_serve - one incoming peer connection (in a child): nonce
 * exchange when auth is not NULL, one FETCH, FETCH_OK and the bytes, or
 * FETCH_REFUSED.  A file not cached here yet but being copied here
 * (dl_stage_copying(), or queued(qarg, path) says a prefetch will) is
 * waited for, CACHED_INFLIGHT_WAIT ms at most: the controller names this
 * node to peers from the moment it asked it for the file.
 * IN queued - NULL: no queue to look at
 * \return 0 served, -1 refused or failed (logged).
 */
int cached_peer_serve(const cached_conf_t *c, const dl_net_auth_t *auth,
		      int fd, const char *who, cached_queued_fn queued,
		      void *qarg);

/**
 * cached_peer_stream - after a FETCH_OK of size bytes and digest sha on
 * fd: read exactly those bytes into out, hashing, within deadline.
 * \return 0 if all came and hash to sha, -1 otherwise (out then holds
 *         junk: the caller empties it).
 */
int cached_peer_stream(int fd, int out, uint64_t size, const char *sha,
		       int timeout_ms);

/* ---- work.c: the children's work ---- */
/* STAGE or END from dl-stage on conn (local); relay to the parent. */
int cached_work_local(const cached_conf_t *c, int fd, const dl_msg_t *req,
		      int relay);
/* PREFETCH from the controller; PREFETCH_DONE goes to relay. */
int cached_work_prefetch(const cached_conf_t *c, const dl_msg_t *req,
			 int relay);
/* The files of req to prefetch into st: those cached there, and the
 * missing ones in order while their sizes stay within c->prefetch_max.
 * OUT files - dl_filelist_free(); \return 0, DL_ENOENT (none), DL_ENOMEM. */
int cached_prefetch_list(const cached_conf_t *c, dl_stage_t *st,
			 const dl_msg_t *req, dl_filelist_t **files);

/* ---- ctl.c: the controller connection (parent) ---- */
typedef struct cached_ctl cached_ctl_t;
/* Callbacks of the connection into the loop. */
typedef struct cached_ctl_ops {
	void (*prefetch)(void *arg, dl_msg_t *m); /* takes m's contents */
	void (*cancel)(void *arg, uint32_t job);
	/* LOCATED for req: the loop finds the child that asked */
	void (*located)(void *arg, uint64_t req, const char *body, size_t n);
	void *arg;
} cached_ctl_ops_t;

cached_ctl_t *cached_ctl_create(const cached_conf_t *c, dl_stage_t *st,
				const cached_ctl_ops_t *ops);
void cached_ctl_destroy(cached_ctl_t *ctl);
/* The descriptor to poll for input, or -1 while not connected. */
int cached_ctl_fd(const cached_ctl_t *ctl);
/* Input is ready: read and dispatch one frame (drops on errors). */
void cached_ctl_input(cached_ctl_t *ctl);
/* Timers: reconnect with backoff, DELTA when the store changed. */
void cached_ctl_tick(cached_ctl_t *ctl);
/* Send a LOCATE of paths (body lines after req); \return its req or 0. */
uint64_t cached_ctl_locate(cached_ctl_t *ctl, const char *paths, size_t n);
/* CLOCK_MONOTONIC in milliseconds (deadlines of the service). */
int64_t cached_now_ms(void);

/*
 * Forward a REPORT, STAGING or PREFETCH_DONE body.  Not connected (or the
 * send fails), it waits in the outbox and goes after the next HELLO and
 * inventory, so that a job staged while slurmctld restarts keeps its
 * staging record and its credit.
 */
void cached_ctl_send(cached_ctl_t *ctl, uint32_t type, const char *body,
		     size_t n);

/* ---- pfqueue.c: PREFETCHes waiting for a copying slot ---- */
#define CACHED_PFQ_MAX 128
typedef struct cached_pfq {
	dl_msg_t m[CACHED_PFQ_MAX]; /* oldest first; owned */
	size_t n;
} cached_pfq_t;

/*
 * cached_pfq_put - queue m, taking its contents (m is left empty).  A
 * request for a job already queued replaces that one in its place.
 * \return false when the queue is full (m is left as it was).
 */
bool cached_pfq_put(cached_pfq_t *q, dl_msg_t *m);

/* cached_pfq_drop - forget job's request; \return whether one was queued. */
bool cached_pfq_drop(cached_pfq_t *q, uint32_t job);

/* cached_pfq_pop - the oldest request into *out (the caller frees it). */
bool cached_pfq_pop(cached_pfq_t *q, dl_msg_t *out);

/* cached_pfq_clear - free every queued request. */
void cached_pfq_clear(cached_pfq_t *q);

/* ---- outbox.c: frames for the controller kept while disconnected ---- */
/*
 * At most this many frames and body bytes wait (a day of jobs on a busy
 * node; a REPORT is about 200 bytes).  Past that, new ones are dropped and
 * counted: their jobs keep no staging record, as before the outbox.
 */
#define CACHED_OUTBOX_MAX 4096
#define CACHED_OUTBOX_BYTES (4u << 20)
typedef struct cached_out {
	uint32_t type; /* DL_NET_REPORT, DL_NET_STAGING, ... */
	char *body;    /* owned */
	size_t n;
} cached_out_t;
typedef struct cached_outbox {
	cached_out_t v[CACHED_OUTBOX_MAX]; /* a ring from head */
	size_t head, n, bytes;
	uint64_t dropped; /* refused since created; the caller reads it */
} cached_outbox_t;

/* cached_outbox_put - keep a copy of body; \return false (counted in
 * dropped) when full or out of memory. */
bool cached_outbox_put(cached_outbox_t *o, uint32_t type, const char *body,
		       size_t n);

/* cached_outbox_peek - the oldest frame (still owned by o), or NULL. */
const cached_out_t *cached_outbox_peek(const cached_outbox_t *o);

/* cached_outbox_pop - forget the oldest frame (once it is sent). */
void cached_outbox_pop(cached_outbox_t *o);

/* cached_outbox_clear - free every frame. */
void cached_outbox_clear(cached_outbox_t *o);

/* ---- loop.c ---- */
/* Run until SIGTERM/SIGINT; \return the exit status. */
int cached_loop_run(const cached_conf_t *c);

#endif /* DL_CACHED_H */
