/*
 * dl_svc_client.c - a test-only client of the node cache service protocol
 * (PROTOCOL.md), speaking it through src/net, for the hostile checks of
 * test_service.sh.  It is NOT part of the product: it builds from the
 * source tree when the test runs.
 *
 *   dl_svc_client fetch HOST PORT UID GID USER PATH
 *       a signed FETCH of PATH (its identity from stat() here: the shared
 *       storage) for that user, sent to a node's peer port; prints
 *       "ok SIZE SHA256" (the streamed bytes hash to what FETCH_OK says),
 *       "refused WHY", or "closed ERROR" (the peer hung up: credential
 *       refused).  Run as a non-root user it shows what the service does
 *       with a credential of that user.
 *   dl_svc_client replay HOST PORT UID GID USER PATH
 *       one FETCH of PATH for that user, signed by hand and kept; then the very
 *       same frame (header, credential, body) again on the same
 *       connection, and on a new one; prints "first: ...", "same: ...",
 *       "new: ..." with the outcomes as above.
 *   dl_svc_client oversized HOST PORT
 *       after the NONCE exchange, a FETCH header announcing a body of
 *       DL_NET_BODY_MAX + 1 bytes; prints "closed ERROR" or "open".
 *   dl_svc_client inv HOST PORT NODE PATH SIZE
 *       as a node service would: HELLO for NODE and a one-part INV that
 *       lists PATH, to the controller's ServicePort; then waits 3 s for
 *       the other side and prints "closed ERROR" or "open".
 *
 * The munge socket comes from DL_MUNGE_SOCKET (libmunge's default if
 * unset).  Exit status 0 when the outcome was printed, 2 on usage and
 * setup errors.
 */
#include <errno.h>
#include <inttypes.h>
#include <munge.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dl_error.h"
#include "dl_net.h"
#include "dl_net_auth.h"
#include "dl_net_msg.h"
#include "sha256.h"

#define TIMEOUT_MS 10000

static dl_net_auth_t auth;

static int _die(const char *what, const char *err)
{
	fprintf(stderr, "dl_svc_client: %s: %s\n", what, err);
	return 2;
}

static int _connect(const char *host, const char *port, dl_net_conn_t *c,
		    char *err, size_t errlen)
{
	int fd, rc;

	rc = dl_net_connect(host, (uint16_t)atoi(port), TIMEOUT_MS, &fd, err,
			    errlen);
	if (rc)
		return rc;
	dl_net_conn_init(c, fd, &auth, TIMEOUT_MS);
	rc = dl_net_conn_handshake(c, err, errlen);
	/* the server (a peer, the controller) proves itself first */
	if (!rc)
		rc = dl_net_conn_await_proof(c, TIMEOUT_MS, err, errlen);
	if (rc)
		close(fd);
	return rc;
}

/*
 * A FETCH body from "UID GID USER PATH" at av (identity of PATH from
 * stat()).
 */
static int _fetch_body(char **av, char **body, size_t *len)
{
	const char *path = av[3];
	char err[256] = "";
	struct stat sb;
	dl_msg_t m;
	int rc;

	if (stat(path, &sb))
		return _die(path, strerror(errno));
	dl_msg_init(&m, DL_NET_FETCH);
	m.uid = strtoull(av[0], NULL, 10);
	m.gid = strtoull(av[1], NULL, 10);
	snprintf(m.user, sizeof(m.user), "%s", av[2]);
	m.size = (uint64_t)sb.st_size;
	m.ino = (uint64_t)sb.st_ino;
	m.mtime_ns = (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec;
	m.ctime_ns = (int64_t)sb.st_ctim.tv_sec * 1000000000 + sb.st_ctim.tv_nsec;
	if (dl_msg_set_path(&m, path)) {
		dl_msg_free(&m);
		return _die("path", "no memory");
	}
	rc = dl_msg_encode(&m, body, len, err, sizeof(err));
	dl_msg_free(&m);
	return rc ? _die("encode", err) : 0;
}

/* The answer to a FETCH, printed as "ok SIZE SHA", "refused WHY", ... */
static void _print_reply(dl_net_conn_t *c, const char *label)
{
	char err[512] = "", hex[DL_SHA256_HEX_LEN];
	dl_net_frame_t f = { 0 };
	dl_sha256_ctx_t h;
	uint64_t left;
	char buf[65536];
	dl_msg_t m;
	int rc;

	rc = dl_net_conn_recv(c, TIMEOUT_MS, &f, err, sizeof(err));
	if (rc) {
		printf("%s%sclosed %s %s\n", label, *label ? " " : "",
		       dl_err_name(rc), err);
		return;
	}
	if (dl_msg_decode(f.type, f.body, f.body_len, &m, err, sizeof(err))) {
		printf("%s%sbad %s\n", label, *label ? " " : "", err);
		dl_net_frame_free(&f);
		return;
	}
	if (f.type == DL_NET_FETCH_OK) {
		dl_sha256_init(&h);
		for (left = m.size; left; ) {
			size_t n = left < sizeof(buf) ? left : sizeof(buf);

			if (dl_net_read_full(c->fd, buf, n, TIMEOUT_MS))
				break;
			dl_sha256_update(&h, buf, n);
			left -= n;
		}
		dl_sha256_final_hex(&h, hex);
		printf("%s%s%s %" PRIu64 " %s\n", label, *label ? " " : "",
		       left == 0 && !strcmp(hex, m.sha256) ? "ok" : "short",
		       m.size, hex);
	} else if (f.type == DL_NET_FETCH_REFUSED) {
		printf("%s%srefused %s\n", label, *label ? " " : "",
		       m.text ? m.text : "");
	} else {
		printf("%s%sreply %s\n", label, *label ? " " : "",
		       dl_net_type_name(f.type));
	}
	dl_msg_free(&m);
	dl_net_frame_free(&f);
}

static int _fetch(char **av)
{
	char err[512] = "", *body = NULL;
	dl_net_conn_t c;
	size_t len;
	int rc;

	rc = _fetch_body(av + 2, &body, &len);
	if (rc)
		return rc;
	if (_connect(av[0], av[1], &c, err, sizeof(err))) {
		free(body);
		return _die("connect", err);
	}
	rc = dl_net_conn_send(&c, DL_NET_FETCH, body, len, err, sizeof(err));
	if (rc)
		printf("closed %s %s\n", dl_err_name(rc), err);
	else
		_print_reply(&c, "");
	close(c.fd);
	free(body);
	return 0;
}

/*
 * A FETCH frame signed by hand (what dl_net_conn_send() would send as
 * the connection's first frame), so that its exact bytes can be sent
 * again.
 */
static int _signed(dl_net_conn_t *c, const char *body, size_t len,
		   char **cred)
{
	char payload[256];
	munge_ctx_t ctx = munge_ctx_create();
	int n;

	n = dl_net_cred_payload(payload, sizeof(payload), DL_NET_FETCH,
				c->peer_nonce, 1, body, len);
	if (!ctx || n < 0)
		return _die("sign", "no munge context or payload");
	if (auth.munge_socket &&
	    munge_ctx_set(ctx, MUNGE_OPT_SOCKET, auth.munge_socket) !=
		    EMUNGE_SUCCESS) {
		munge_ctx_destroy(ctx);
		return _die("munge socket", auth.munge_socket);
	}
	if (munge_encode(cred, ctx, payload, n) != EMUNGE_SUCCESS) {
		n = _die("munge_encode", munge_ctx_strerror(ctx));
		munge_ctx_destroy(ctx);
		return n;
	}
	munge_ctx_destroy(ctx);
	return 0;
}

/* Send the kept frame as it is and print what comes back. */
static void _resend(dl_net_conn_t *c, const char *label, const char *cred,
		    const char *body, size_t len)
{
	char err[512] = "";
	int rc;

	rc = dl_net_frame_write(c->fd, TIMEOUT_MS, DL_NET_FETCH, cred,
				strlen(cred), body, len, err, sizeof(err));
	if (rc)
		printf("%s closed %s %s\n", label, dl_err_name(rc), err);
	else
		_print_reply(c, label);
}

static int _replay(char **av)
{
	char err[512] = "", *body = NULL, *cred = NULL;
	dl_net_conn_t c;
	size_t len;
	int rc;

	rc = _fetch_body(av + 2, &body, &len);
	if (rc)
		return rc;
	if (_connect(av[0], av[1], &c, err, sizeof(err)))
		return _die("connect", err);
	if ((rc = _signed(&c, body, len, &cred)))
		return rc;
	_resend(&c, "first:", cred, body, len);
	/* The same bytes again: the peer must not serve them twice. */
	_resend(&c, "same:", cred, body, len);
	close(c.fd);
	/* And on a new connection, which has another nonce. */
	if (_connect(av[0], av[1], &c, err, sizeof(err)))
		return _die("connect", err);
	_resend(&c, "new:", cred, body, len);
	close(c.fd);
	free(cred);
	free(body);
	return 0;
}

static int _oversized(char **av)
{
	uint8_t hdr[DL_NET_HDR_LEN];
	char err[512] = "";
	dl_net_frame_t f = { 0 };
	dl_net_conn_t c;
	int rc;

	if (_connect(av[0], av[1], &c, err, sizeof(err)))
		return _die("connect", err);
	dl_net_frame_put_header(hdr, DL_NET_FETCH, 100, DL_NET_BODY_MAX + 1);
	if (dl_net_write_full(c.fd, hdr, sizeof(hdr), TIMEOUT_MS)) {
		printf("closed DL_EIO while sending the header\n");
	} else {
		rc = dl_net_conn_recv(&c, 3000, &f, err, sizeof(err));
		if (rc == DL_ETIMEDOUT)
			printf("open\n");
		else if (rc)
			printf("closed %s %s\n", dl_err_name(rc), err);
		else
			printf("reply %s\n", dl_net_type_name(f.type));
		dl_net_frame_free(&f);
	}
	close(c.fd);
	return 0;
}

static int _send_msg(dl_net_conn_t *c, dl_msg_t *m)
{
	char err[512] = "", *body = NULL;
	size_t len;
	int rc;

	if (dl_msg_encode(m, &body, &len, err, sizeof(err)))
		return _die("encode", err);
	rc = dl_net_conn_send(c, m->type, body, len, err, sizeof(err));
	free(body);
	if (rc)
		printf("closed %s %s\n", dl_err_name(rc), err);
	return rc ? 1 : 0;
}

static int _inv(char **av)
{
	char err[512] = "";
	dl_net_frame_t f = { 0 };
	dl_net_conn_t c;
	dl_msg_t m;
	int rc;

	if (_connect(av[0], av[1], &c, err, sizeof(err)))
		return _die("connect", err);
	dl_msg_init(&m, DL_NET_HELLO);
	snprintf(m.node, sizeof(m.node), "%s", av[2]);
	snprintf(m.peer_host, sizeof(m.peer_host), "127.0.0.1");
	m.peer_port = 1;
	m.capacity = DL_MSG_UNLIMITED;
	rc = _send_msg(&c, &m);
	dl_msg_free(&m);
	if (rc)
		goto out;
	dl_msg_init(&m, DL_NET_INV);
	m.last = 1;
	if (!dl_msg_add_file(&m, av[3], strtoull(av[4], NULL, 10), 0)) {
		dl_msg_free(&m);
		close(c.fd);
		return _die("inv", "no memory");
	}
	rc = _send_msg(&c, &m);
	dl_msg_free(&m);
	if (rc)
		goto out;
	/* The controller says nothing to a good HELLO; a refused one is
	 * closed at once. */
	for (;;) {
		rc = dl_net_conn_recv(&c, 3000, &f, err, sizeof(err));
		if (rc == DL_ETIMEDOUT) {
			printf("open\n");
			break;
		}
		if (rc) {
			printf("closed %s %s\n", dl_err_name(rc), err);
			break;
		}
		dl_net_frame_free(&f);
	}
out:
	close(c.fd);
	return 0;
}

int main(int argc, char **argv)
{
	auth.munge_socket = getenv("DL_MUNGE_SOCKET");
	auth.slurm_uid = 0;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 8 && !strcmp(argv[1], "fetch"))
		return _fetch(argv + 2);
	if (argc == 8 && !strcmp(argv[1], "replay"))
		return _replay(argv + 2);
	if (argc == 4 && !strcmp(argv[1], "oversized"))
		return _oversized(argv + 2);
	if (argc == 7 && !strcmp(argv[1], "inv"))
		return _inv(argv + 2);
	fprintf(stderr,
		"usage: dl_svc_client fetch HOST PORT UID GID USER PATH\n"
		"       dl_svc_client replay HOST PORT UID GID USER PATH\n"
		"       dl_svc_client oversized HOST PORT\n"
		"       dl_svc_client inv HOST PORT NODE PATH SIZE\n");
	return 2;
}
