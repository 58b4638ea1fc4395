/*
 * dl_net_auth.h - one connection of the service protocol: the NONCE
 * exchange, MUNGE-signed frames and their checks (PROTOCOL.md
 * "Authentication").
 *
 * Over TCP every frame after the NONCE carries a MUNGE credential whose
 * payload is "dlm1 <type> <receiver's nonce> <seq> <sha256 of body>";
 * the receiver accepts it only from uid 0 or the SlurmUser, for this
 * type, this connection's nonce, the next sequence number and this body.
 * A replayed frame thus fails on the same connection (seq, munged's
 * replay cache) and on any other (nonce).  On the local Unix socket
 * (auth NULL) frames carry no credential: the listener checked the
 * peer's uid with SO_PEERCRED.
 *
 * Threads: one thread may send while another receives on the same
 * connection (they touch disjoint fields); two senders (or receivers)
 * need the caller's lock.
 */
#ifndef DL_NET_AUTH_H
#define DL_NET_AUTH_H

#include <stdint.h>
#include <sys/types.h>

#include "dl_net.h"

#define DL_NET_NONCE_LEN 32

/* Whom to trust and how to reach munged; the caller owns the strings. */
typedef struct dl_net_auth {
	const char *munge_socket; /* NULL: libmunge's default socket */
	uid_t slurm_uid;          /* accepted besides uid 0 */
} dl_net_auth_t;

/* A connection; a plain value, the caller closes fd. */
typedef struct dl_net_conn {
	int fd;
	int timeout_ms;             /* deadline of one frame, once begun */
	const dl_net_auth_t *auth;  /* NULL: local socket, no credentials */
	char nonce[DL_NET_NONCE_LEN + 1];      /* the one we sent */
	char peer_nonce[DL_NET_NONCE_LEN + 1]; /* the one we received */
	uint64_t send_seq;          /* of the last frame sent */
	uint64_t recv_seq;          /* of the last frame received */
	uid_t peer_uid;             /* of the last credential accepted */
} dl_net_conn_t;

/* dl_net_conn_init - set up c for fd (auth is kept by reference). */
void dl_net_conn_init(dl_net_conn_t *c, int fd, const dl_net_auth_t *auth,
		      int timeout_ms);

/**
 * dl_net_conn_handshake - exchange NONCE frames (TCP only; a no-op for a
 * local connection).  Both sides call it right after connect/accept.
 * \return 0, DL_ETIMEDOUT, DL_EIO, DL_EFORMAT (err says why).
 */
int dl_net_conn_handshake(dl_net_conn_t *c, char *err, size_t errlen);

/**
 * dl_net_conn_prove, dl_net_conn_await_proof - the side that is asked
 * for something (the controller, a peer serving copies) proves itself
 * first: right after the NONCE exchange it sends a WELCOME, signed like
 * every frame (its credential bound to the other side's fresh nonce);
 * the other side sends nothing more, not even its HELLO or FETCH, until
 * that WELCOME came with a credential of root or SlurmUser.  So whoever
 * holds a port instead of the real server (a user's listener on a free
 * ServicePort or PeerPort) learns nothing.  No-ops on local connections.
 * \return 0, or as dl_net_conn_send() / dl_net_conn_recv(); a frame
 *         other than WELCOME is DL_EFORMAT (err says so).
 */
int dl_net_conn_prove(dl_net_conn_t *c, char *err, size_t errlen);
int dl_net_conn_await_proof(dl_net_conn_t *c, int timeout_ms, char *err,
			    size_t errlen);

/**
 * dl_net_conn_send - send one frame, signed for the peer over TCP.
 * \return 0, DL_EPERM (munged refused to sign: err has its message),
 *         DL_EINVAL, DL_ETIMEDOUT, DL_EIO.
 */
int dl_net_conn_send(dl_net_conn_t *c, uint32_t type, const void *body,
		     size_t len, char *err, size_t errlen);

/**
 * dl_net_conn_recv - receive one frame and check its credential (TCP).
 * IN idle_ms - wait for its first byte (negative: for ever); the rest
 *              must come within c->timeout_ms
 * OUT f - the frame (dl_net_frame_free()); untouched on error
 * \return 0, DL_ENOENT (closed between frames), DL_EPERM (credential
 *         refused: err says why), DL_EFORMAT, DL_ETIMEDOUT, DL_EIO,
 *         DL_ENOMEM.  After any error the connection is to be closed.
 */
int dl_net_conn_recv(dl_net_conn_t *c, int idle_ms, dl_net_frame_t *f,
		     char *err, size_t errlen);

/**
 * dl_net_nonce - 32 lower-case hex digits from getrandom().
 * \return 0, DL_EIO.
 */
int dl_net_nonce(char out[DL_NET_NONCE_LEN + 1]);

/**
 * dl_net_cred_payload - the payload a credential signs.
 * \return its length, or DL_ERANGE if it does not fit in len.
 */
int dl_net_cred_payload(char *buf, size_t len, uint32_t type,
			const char *nonce, uint64_t seq, const void *body,
			size_t blen);

/**
 * dl_net_cred_check - whether a decoded credential is acceptable: from
 * uid 0 or auth->slurm_uid, payload naming this type, our nonce, the
 * expected seq and this body's digest.
 * \return 0, DL_EPERM (err says why).
 */
int dl_net_cred_check(const dl_net_auth_t *auth, uid_t uid,
		      const char *payload, size_t plen, uint32_t type,
		      const char *nonce, uint64_t seq, const void *body,
		      size_t blen, char *err, size_t errlen);

#endif /* DL_NET_AUTH_H */
