/*
 * auth.c - NONCE exchange and MUNGE-signed frames (dl_net_auth.h).
 * A munge context is made per call: contexts must not be shared between
 * threads, and making one costs a malloc.
 */
#include <errno.h>
#include <inttypes.h>
#include <munge.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "dl_error.h"
#include "dl_net_auth.h"
#include "net_int.h"
#include "sha256.h"

void dl_net_conn_init(dl_net_conn_t *c, int fd, const dl_net_auth_t *auth,
		      int timeout_ms)
{
	memset(c, 0, sizeof(*c));
	c->fd = fd;
	c->auth = auth;
	c->timeout_ms = timeout_ms;
	c->peer_uid = (uid_t)-1;
}

int dl_net_nonce(char out[DL_NET_NONCE_LEN + 1])
{
	unsigned char r[DL_NET_NONCE_LEN / 2];
	size_t got = 0;
	ssize_t n;

	while (got < sizeof(r)) {
		n = getrandom(r + got, sizeof(r) - got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return DL_EIO;
		got += (size_t)n;
	}
	for (size_t i = 0; i < sizeof(r); i++)
		sprintf(out + 2 * i, "%02x", r[i]);
	return 0;
}

static int _is_nonce(const char *s, size_t len)
{
	if (len != DL_NET_NONCE_LEN)
		return 0;
	for (size_t i = 0; i < len; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		      (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}

int dl_net_conn_handshake(dl_net_conn_t *c, char *err, size_t errlen)
{
	dl_net_frame_t f;
	int rc;

	if (!c->auth)
		return 0;
	if (dl_net_nonce(c->nonce)) {
		dl__net_err(err, errlen, "getrandom failed");
		return DL_EIO;
	}
	rc = dl_net_frame_write(c->fd, c->timeout_ms, DL_NET_NONCE, NULL, 0,
				c->nonce, DL_NET_NONCE_LEN, err, errlen);
	if (rc)
		return rc;
	rc = dl_net_frame_read(c->fd, c->timeout_ms, c->timeout_ms, &f, err,
			       errlen);
	if (rc)
		return rc == DL_ENOENT ? DL_EIO : rc;
	if (f.type != DL_NET_NONCE || f.cred_len ||
	    !_is_nonce(f.body, f.body_len)) {
		dl__net_err(err, errlen, "expected a NONCE, got %s",
			    dl_net_type_name(f.type));
		dl_net_frame_free(&f);
		return DL_EFORMAT;
	}
	memcpy(c->peer_nonce, f.body, DL_NET_NONCE_LEN + 1);
	dl_net_frame_free(&f);
	return 0;
}

int dl_net_conn_prove(dl_net_conn_t *c, char *err, size_t errlen)
{
	if (!c->auth)
		return 0;
	return dl_net_conn_send(c, DL_NET_WELCOME, "", 0, err, errlen);
}

int dl_net_conn_await_proof(dl_net_conn_t *c, int timeout_ms, char *err,
			    size_t errlen)
{
	dl_net_frame_t f;
	uint32_t type;
	int rc;

	if (!c->auth)
		return 0;
	rc = dl_net_conn_recv(c, timeout_ms, &f, err, errlen);
	if (rc)
		return rc == DL_ENOENT ? DL_EIO : rc;
	type = f.type;
	dl_net_frame_free(&f);
	if (type != DL_NET_WELCOME) {
		dl__net_err(err, errlen,
			    "a %s before the other side proved itself",
			    dl_net_type_name(type));
		return DL_EFORMAT;
	}
	return 0;
}

int dl_net_cred_payload(char *buf, size_t len, uint32_t type,
			const char *nonce, uint64_t seq, const void *body,
			size_t blen)
{
	char hex[DL_SHA256_HEX_LEN];
	int n;

	dl_sha256_hex(body, blen, hex);
	n = snprintf(buf, len, "dlm1 %u %s %" PRIu64 " %s", type, nonce, seq,
		     hex);
	return n < 0 || (size_t)n >= len ? DL_ERANGE : n;
}

int dl_net_cred_check(const dl_net_auth_t *auth, uid_t uid,
		      const char *payload, size_t plen, uint32_t type,
		      const char *nonce, uint64_t seq, const void *body,
		      size_t blen, char *err, size_t errlen)
{
	char want[160];
	int n;

	if (uid != 0 && uid != auth->slurm_uid) {
		dl__net_err(err, errlen, "%s: credential of uid %u, not root "
			    "nor SlurmUser", dl_net_type_name(type),
			    (unsigned)uid);
		return DL_EPERM;
	}
	n = dl_net_cred_payload(want, sizeof(want), type, nonce, seq, body,
				blen);
	if (n < 0 || (size_t)n != plen || memcmp(want, payload, plen)) {
		dl__net_err(err, errlen, "%s: credential payload does not "
			    "match (type, nonce, seq %" PRIu64 " or body)",
			    dl_net_type_name(type), seq);
		return DL_EPERM;
	}
	return 0;
}

static munge_ctx_t _ctx(const dl_net_auth_t *auth, char *err, size_t errlen)
{
	munge_ctx_t ctx = munge_ctx_create();

	if (!ctx) {
		dl__net_err(err, errlen, "munge_ctx_create failed");
		return NULL;
	}
	if (auth->munge_socket && auth->munge_socket[0] &&
	    munge_ctx_set(ctx, MUNGE_OPT_SOCKET, auth->munge_socket) !=
		    EMUNGE_SUCCESS) {
		dl__net_err(err, errlen, "munge socket %s: %s",
			    auth->munge_socket, munge_ctx_strerror(ctx));
		munge_ctx_destroy(ctx);
		return NULL;
	}
	return ctx;
}

int dl_net_conn_send(dl_net_conn_t *c, uint32_t type, const void *body,
		     size_t len, char *err, size_t errlen)
{
	char payload[160];
	char *cred = NULL;
	munge_ctx_t ctx;
	munge_err_t me;
	int n, rc;

	if (!c->auth)
		return dl_net_frame_write(c->fd, c->timeout_ms, type, NULL, 0,
					  body, len, err, errlen);
	n = dl_net_cred_payload(payload, sizeof(payload), type,
				c->peer_nonce, c->send_seq + 1, body, len);
	if (n < 0)
		return DL_EINVAL;
	if (!(ctx = _ctx(c->auth, err, errlen)))
		return DL_EPERM;
	me = munge_encode(&cred, ctx, payload, n);
	if (me != EMUNGE_SUCCESS) {
		dl__net_err(err, errlen, "munge_encode: %s",
			    munge_ctx_strerror(ctx));
		munge_ctx_destroy(ctx);
		return DL_EPERM;
	}
	munge_ctx_destroy(ctx);
	rc = dl_net_frame_write(c->fd, c->timeout_ms, type, cred,
				strlen(cred), body, len, err, errlen);
	free(cred);
	if (!rc)
		c->send_seq++;
	return rc;
}

/* Decode and check f's credential. */
static int _verify(dl_net_conn_t *c, const dl_net_frame_t *f, char *err,
		   size_t errlen)
{
	void *payload = NULL;
	int plen = 0, rc;
	uid_t uid;
	gid_t gid;
	munge_ctx_t ctx;
	munge_err_t me;

	if (!(ctx = _ctx(c->auth, err, errlen)))
		return DL_EPERM;
	me = munge_decode(f->cred, ctx, &payload, &plen, &uid, &gid);
	if (me != EMUNGE_SUCCESS) {
		dl__net_err(err, errlen, "%s: credential refused: %s",
			    dl_net_type_name(f->type),
			    munge_ctx_strerror(ctx));
		munge_ctx_destroy(ctx);
		free(payload);
		return DL_EPERM;
	}
	munge_ctx_destroy(ctx);
	rc = dl_net_cred_check(c->auth, uid, payload ? payload : "",
			       (size_t)plen, f->type, c->nonce,
			       c->recv_seq + 1, f->body, f->body_len, err,
			       errlen);
	free(payload);
	if (!rc) {
		c->recv_seq++;
		c->peer_uid = uid;
	}
	return rc;
}

int dl_net_conn_recv(dl_net_conn_t *c, int idle_ms, dl_net_frame_t *f,
		     char *err, size_t errlen)
{
	dl_net_frame_t nf;
	int rc;

	rc = dl_net_frame_read(c->fd, idle_ms, c->timeout_ms, &nf, err,
			       errlen);
	if (rc)
		return rc;
	if (!c->auth) {
		if (nf.cred_len || nf.type == DL_NET_NONCE) {
			dl__net_err(err, errlen, "%s: unexpected on the "
				    "local socket", dl_net_type_name(nf.type));
			rc = DL_EFORMAT;
		}
	} else if (nf.type == DL_NET_NONCE || !nf.cred_len ||
		   !c->nonce[0]) {
		dl__net_err(err, errlen, "%s: %s", dl_net_type_name(nf.type),
			    nf.type == DL_NET_NONCE ? "a second NONCE" :
						      "no credential");
		rc = DL_EPERM;
	} else {
		rc = _verify(c, &nf, err, errlen);
	}
	if (rc) {
		dl_net_frame_free(&nf);
		return rc;
	}
	*f = nf;
	return 0;
}
