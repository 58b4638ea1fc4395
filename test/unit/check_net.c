/*
 * check_net.c - unit tests of libdlnet (src/net): frames and their
 * limits, short and slow frames; MUNGE-signed frames against a private
 * munged started here (own key and socket, as test/cluster/cluster.sh
 * does): accepted in order, refused when replayed on the same or another
 * connection, tampered, unsigned or signed by a user who is neither root
 * nor the SlurmUser; and every message body type, round trip and hostile.
 *
 * The authentication tests need /usr/sbin/munged and root (to start it
 * and to sign as another uid); without them they pass vacuously and say
 * so on stderr.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check_suites.h"
#include "dl_error.h"
#include "dl_net.h"
#include "dl_net_auth.h"
#include "dl_net_door.h"
#include "dl_net_msg.h"
#include "munged_fx.h"
#include "sha256.h"

static dl_net_auth_t auth;

static void munged_start(void)
{
	if (fx_munged_start() == 0) {
		auth.munge_socket = fx_munge_socket;
		auth.slurm_uid = 64030;
	}
}

static void munged_stop(void)
{
	fx_munged_stop();
}

static int _have_munge(void)
{
	return fx_munged_ok("check_net");
}

/* ---- the door's deadlines ---------------------------------------------- */

/* Poll the door as a listener thread would, for at most ms; RET revents. */
static int _door_turn(dl_net_door_t *d, int ms)
{
	struct pollfd p[1 + DL_NET_DOOR_MAX];
	int fd[DL_NET_DOOR_MAX], any = 0;
	char who[DL_NET_DOOR_MAX][96];
	size_t n = dl_net_door_poll(d, p);

	ck_assert_int_ge(poll(n ? p : NULL, n, ms), 0);
	for (size_t i = 0; i < n; i++)
		any |= p[i].revents;
	/* a caller that hands no connection over: none may speak here */
	ck_assert_uint_eq(dl_net_door_input(d, p, fd, who, DL_NET_DOOR_MAX),
			  0);
	dl_net_door_tick(d);
	return any;
}

/*
 * dl_net_door_timeout_ms(): a listener that sleeps only until the door's
 * next deadline still closes the silent (never before their time), and
 * takes a squatted port once free; with nothing waiting it has no
 * deadline at all (-1), so an idle listener never wakes.  Turns are
 * counted, not timed: a thread polling with the timeout does a few turns
 * for one deadline, where a zero or a stale timeout would spin.
 */
START_TEST(test_door_deadlines)
{
	enum { GREET = 300 };
	dl_net_door_t d;
	struct timespec t0, t1;
	char err[256], b;
	int sq, c, t, turns;
	uint16_t port;

	ck_assert_int_eq(dl_net_listen(NULL, 0, &sq, err, sizeof(err)), 0);
	port = dl_net_local_port(sq);
	dl_net_door_init(&d, port, "test port", GREET, NULL, NULL);
	ck_assert_int_eq(dl_net_door_timeout_ms(&d), 0); /* never tried */
	dl_net_door_tick(&d);
	ck_assert(!dl_net_door_listening(&d));
	/* squatted: the next try is the deadline (the first backoff, 1 s) */
	t = dl_net_door_timeout_ms(&d);
	ck_assert_int_gt(t, 0);
	ck_assert_int_le(t, 1000);
	close(sq);
	for (turns = 0; !dl_net_door_listening(&d); turns++) {
		ck_assert_int_lt(turns, 20);
		_door_turn(&d, dl_net_door_timeout_ms(&d));
	}
	ck_assert_int_eq(dl_net_door_timeout_ms(&d), -1); /* idle: none */

	ck_assert_int_eq(dl_net_connect("127.0.0.1", port, 10000, &c, err,
					sizeof(err)), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* the listener is readable: accepted, then it waits to speak */
	for (turns = 0; !d.n; turns++) {
		ck_assert_int_lt(turns, 20);
		_door_turn(&d, 10000);
	}
	t = dl_net_door_timeout_ms(&d);
	ck_assert_int_gt(t, 0);
	ck_assert_int_le(t, GREET);
	for (turns = 0; d.n; turns++) {
		ck_assert_int_lt(turns, 20);
		ck_assert_int_eq(_door_turn(&d, dl_net_door_timeout_ms(&d)),
				 0);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	/*
	 * Closed at its deadline, not before.  The door counts whole
	 * milliseconds (dl__net_now_ms() truncates): accepted at x.999 ms
	 * and closed at x + 300.000 ms it waited 299.001 ms, so the bound
	 * is GREET less one millisecond of resolution (299 ms measured
	 * once under ASan on a loaded host).
	 */
	ck_assert_int_ge((t1.tv_sec - t0.tv_sec) * 1000 +
				 (t1.tv_nsec - t0.tv_nsec) / 1000000,
			 GREET - 1);
	ck_assert_int_eq(dl_net_door_timeout_ms(&d), -1);
	ck_assert_int_eq(dl_net_read_full(c, &b, 1, 10000), DL_EIO);
	close(c);
	dl_net_door_close(&d);
}
END_TEST

/* ---- frames ---------------------------------------------------------- */

static void _pair(int sv[2])
{
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
}

START_TEST(test_frame_roundtrip)
{
	int sv[2];
	dl_net_frame_t f;
	char err[256];

	_pair(sv);
	ck_assert_int_eq(dl_net_frame_write(sv[0], 1000, DL_NET_END, "cr", 2,
					    "job=5\n", 6, err, sizeof(err)), 0);
	ck_assert_int_eq(dl_net_frame_read(sv[1], 1000, 1000, &f, err,
					   sizeof(err)), 0);
	ck_assert_uint_eq(f.type, DL_NET_END);
	ck_assert_str_eq(f.cred, "cr");
	ck_assert_str_eq(f.body, "job=5\n");
	dl_net_frame_free(&f);
	/* the peer closing between frames is the normal end */
	close(sv[0]);
	ck_assert_int_eq(dl_net_frame_read(sv[1], 1000, 1000, &f, err,
					   sizeof(err)), DL_ENOENT);
	close(sv[1]);
}
END_TEST

START_TEST(test_frame_hostile)
{
	uint8_t hdr[DL_NET_HDR_LEN];
	uint32_t t, c, b;
	int sv[2];
	dl_net_frame_t f;
	char err[256];
	size_t used;

	dl_net_frame_put_header(hdr, DL_NET_HELLO, 10, 20);
	ck_assert_int_eq(dl_net_frame_header(hdr, &t, &c, &b, err,
					     sizeof(err)), 0);
	memcpy(hdr, "DLM2", 4);
	ck_assert_int_eq(dl_net_frame_header(hdr, &t, &c, &b, err,
					     sizeof(err)), DL_EFORMAT);
	dl_net_frame_put_header(hdr, 0, 0, 0);
	ck_assert_int_eq(dl_net_frame_header(hdr, &t, &c, &b, err,
					     sizeof(err)), DL_EFORMAT);
	dl_net_frame_put_header(hdr, DL_NET_TYPE_MAX + 1, 0, 0);
	ck_assert_int_eq(dl_net_frame_header(hdr, &t, &c, &b, err,
					     sizeof(err)), DL_EFORMAT);
	dl_net_frame_put_header(hdr, DL_NET_INV, DL_NET_CRED_MAX + 1, 0);
	ck_assert_int_eq(dl_net_frame_header(hdr, &t, &c, &b, err,
					     sizeof(err)), DL_EFORMAT);
	dl_net_frame_put_header(hdr, DL_NET_INV, 0, DL_NET_BODY_MAX + 1);
	ck_assert_int_eq(dl_net_frame_header(hdr, &t, &c, &b, err,
					     sizeof(err)), DL_EFORMAT);
	/* a header promising more than the buffer holds */
	dl_net_frame_put_header(hdr, DL_NET_INV, 0, 5);
	ck_assert_int_eq(dl_net_frame_parse(hdr, sizeof(hdr), &f, &used, err,
					    sizeof(err)), DL_EIO);
	/* the writer refuses to exceed the limits itself */
	_pair(sv);
	ck_assert_int_eq(dl_net_frame_write(sv[0], 100, DL_NET_INV, "x",
					    DL_NET_CRED_MAX + 1, "", 0, err,
					    sizeof(err)), DL_EINVAL);
	/* a short frame then close: an error, not the normal end */
	ck_assert_int_eq(write(sv[0], hdr, sizeof(hdr)), (ssize_t)sizeof(hdr));
	ck_assert_int_eq(write(sv[0], "ab", 2), 2);
	close(sv[0]);
	ck_assert_int_eq(dl_net_frame_read(sv[1], 1000, 1000, &f, err,
					   sizeof(err)), DL_EIO);
	close(sv[1]);
}
END_TEST

START_TEST(test_frame_timeouts)
{
	uint8_t hdr[DL_NET_HDR_LEN];
	int sv[2];
	dl_net_frame_t f;
	char err[256];

	_pair(sv);
	/* nothing comes */
	ck_assert_int_eq(dl_net_frame_read(sv[1], 50, 1000, &f, err,
					   sizeof(err)), DL_ETIMEDOUT);
	/* a frame that stops in the middle and never ends */
	dl_net_frame_put_header(hdr, DL_NET_END, 0, 100);
	ck_assert_int_eq(write(sv[0], hdr, sizeof(hdr)), (ssize_t)sizeof(hdr));
	ck_assert_int_eq(dl_net_frame_read(sv[1], 1000, 100, &f, err,
					   sizeof(err)), DL_ETIMEDOUT);
	/* a reader that never reads: the writer gives up */
	{
		static char big[4 << 20];

		ck_assert_int_eq(dl_net_frame_write(sv[0], 100, DL_NET_INV,
						    NULL, 0, big, sizeof(big),
						    err, sizeof(err)),
				 DL_ETIMEDOUT);
	}
	close(sv[0]);
	close(sv[1]);
}
END_TEST

START_TEST(test_tcp_and_unix)
{
	int l, c, a;
	uint16_t port;
	char who[64], err[256], path[128];
	uid_t uid;

	ck_assert_int_eq(dl_net_listen("127.0.0.1", 0, &l, err, sizeof(err)),
			 0);
	port = dl_net_local_port(l);
	ck_assert_uint_ne(port, 0);
	ck_assert_int_eq(dl_net_accept(l, 50, &a, who, sizeof(who)),
			 DL_ETIMEDOUT);
	ck_assert_int_eq(dl_net_connect("127.0.0.1", port, 1000, &c, err,
					sizeof(err)), 0);
	ck_assert_int_eq(dl_net_accept(l, 1000, &a, who, sizeof(who)), 0);
	ck_assert(!strncmp(who, "127.0.0.1:", 10));
	ck_assert_int_eq(dl_net_write_full(c, "abc", 3, 1000), 0);
	ck_assert_int_eq(dl_net_read_full(a, who, 3, 1000), 0);
	ck_assert(!memcmp(who, "abc", 3));
	close(c);
	ck_assert_int_eq(dl_net_read_full(a, who, 1, 1000), DL_EIO);
	close(a);
	close(l);
	/* nobody listens there any more */
	ck_assert_int_ne(dl_net_connect("127.0.0.1", port, 1000, &c, err,
					sizeof(err)), 0);

	snprintf(path, sizeof(path), "/tmp/dl_check_net.%d.sock",
		 (int)getpid());
	ck_assert_int_eq(dl_net_listen_unix(path, 0600, &l, err, sizeof(err)),
			 0);
	ck_assert_int_eq(dl_net_connect_unix(path, 1000, &c, err,
					     sizeof(err)), 0);
	ck_assert_int_eq(dl_net_accept(l, 1000, &a, NULL, 0), 0);
	ck_assert_int_eq(dl_net_peer_uid(a, &uid), 0);
	ck_assert_uint_eq(uid, geteuid());
	close(a);
	close(c);
	close(l);
	unlink(path);
	ck_assert_int_eq(dl_net_connect_unix(path, 1000, &c, err,
					     sizeof(err)), DL_ENOENT);
}
END_TEST

/* ---- authentication -------------------------------------------------- */

typedef struct hs {
	dl_net_conn_t *c;
	int rc;
} hs_t;

static void *_hs_thread(void *arg)
{
	hs_t *h = arg;
	char err[256];

	h->rc = dl_net_conn_handshake(h->c, err, sizeof(err));
	return NULL;
}

/* Two ends of a fresh connection, nonces exchanged. */
static void _conn_pair(dl_net_conn_t *a, dl_net_conn_t *b)
{
	int sv[2];
	pthread_t t;
	hs_t h;
	char err[256];

	_pair(sv);
	/* The other end is another thread: on a busy host it may not run for
	 * seconds.  Nothing here waits this long unless something is wrong. */
	dl_net_conn_init(a, sv[0], &auth, 60000);
	dl_net_conn_init(b, sv[1], &auth, 60000);
	h.c = a;
	ck_assert_int_eq(pthread_create(&t, NULL, _hs_thread, &h), 0);
	ck_assert_int_eq(dl_net_conn_handshake(b, err, sizeof(err)), 0);
	pthread_join(t, NULL);
	ck_assert_int_eq(h.rc, 0);
	ck_assert_str_eq(a->peer_nonce, b->nonce);
	ck_assert_str_ne(a->nonce, b->nonce);
}

START_TEST(test_auth_accepts_in_order)
{
	dl_net_conn_t a, b;
	dl_net_frame_t f;
	char err[256];

	if (!_have_munge())
		return;
	_conn_pair(&a, &b);
	for (int i = 1; i <= 3; i++) {
		ck_assert_int_eq(dl_net_conn_send(&a, DL_NET_CANCEL, "job=7\n",
						  6, err, sizeof(err)), 0);
		ck_assert_int_eq(dl_net_conn_recv(&b, 1000, &f, err,
						  sizeof(err)), 0);
		ck_assert_uint_eq(f.type, DL_NET_CANCEL);
		ck_assert_str_eq(f.body, "job=7\n");
		ck_assert_uint_eq(b.recv_seq, (uint64_t)i);
		ck_assert_uint_eq(b.peer_uid, 0);
		dl_net_frame_free(&f);
	}
	/* and the other way round */
	ck_assert_int_eq(dl_net_conn_send(&b, DL_NET_END, "job=1", 5, err,
					  sizeof(err)), 0);
	ck_assert_int_eq(dl_net_conn_recv(&a, 1000, &f, err, sizeof(err)), 0);
	dl_net_frame_free(&f);
	close(a.fd);
	close(b.fd);
}
END_TEST

START_TEST(test_auth_refuses_replay)
{
	dl_net_conn_t a, b, a2, b2;
	dl_net_frame_t raw, f;
	char err[256];

	if (!_have_munge())
		return;
	_conn_pair(&a, &b);
	ck_assert_int_eq(dl_net_conn_send(&a, DL_NET_CANCEL, "job=7", 5, err,
					  sizeof(err)), 0);
	/* capture the signed frame as it travels */
	ck_assert_int_eq(dl_net_frame_read(b.fd, 1000, 1000, &raw, err,
					   sizeof(err)), 0);
	ck_assert_uint_gt(raw.cred_len, 0);
	ck_assert_int_eq(dl_net_frame_write(a.fd, 1000, raw.type, raw.cred,
					    raw.cred_len, raw.body,
					    raw.body_len, err, sizeof(err)), 0);
	ck_assert_int_eq(dl_net_conn_recv(&b, 1000, &f, err, sizeof(err)), 0);
	dl_net_frame_free(&f);
	/* the same frame again on the same connection */
	ck_assert_int_eq(dl_net_frame_write(a.fd, 1000, raw.type, raw.cred,
					    raw.cred_len, raw.body,
					    raw.body_len, err, sizeof(err)), 0);
	ck_assert_int_eq(dl_net_conn_recv(&b, 1000, &f, err, sizeof(err)),
			 DL_EPERM);
	/* and on another connection (another nonce) */
	_conn_pair(&a2, &b2);
	ck_assert_int_eq(dl_net_frame_write(a2.fd, 1000, raw.type, raw.cred,
					    raw.cred_len, raw.body,
					    raw.body_len, err, sizeof(err)), 0);
	ck_assert_int_eq(dl_net_conn_recv(&b2, 1000, &f, err, sizeof(err)),
			 DL_EPERM);
	dl_net_frame_free(&raw);
	close(a.fd);
	close(b.fd);
	close(a2.fd);
	close(b2.fd);
}
END_TEST

START_TEST(test_auth_refuses_tampered)
{
	dl_net_conn_t a, b;
	dl_net_frame_t raw, f;
	char err[256];

	if (!_have_munge())
		return;
	_conn_pair(&a, &b);
	ck_assert_int_eq(dl_net_conn_send(&a, DL_NET_CANCEL, "job=7", 5, err,
					  sizeof(err)), 0);
	ck_assert_int_eq(dl_net_frame_read(b.fd, 1000, 1000, &raw, err,
					   sizeof(err)), 0);
	/* another body under the same credential */
	ck_assert_int_eq(dl_net_frame_write(a.fd, 1000, raw.type, raw.cred,
					    raw.cred_len, "job=8", 5, err,
					    sizeof(err)), 0);
	ck_assert_int_eq(dl_net_conn_recv(&b, 1000, &f, err, sizeof(err)),
			 DL_EPERM);
	/* another type under the same credential (fresh connection) */
	dl_net_frame_free(&raw);
	close(a.fd);
	close(b.fd);
	_conn_pair(&a, &b);
	ck_assert_int_eq(dl_net_conn_send(&a, DL_NET_CANCEL, "job=7", 5, err,
					  sizeof(err)), 0);
	ck_assert_int_eq(dl_net_frame_read(b.fd, 1000, 1000, &raw, err,
					   sizeof(err)), 0);
	ck_assert_int_eq(dl_net_frame_write(a.fd, 1000, DL_NET_END, raw.cred,
					    raw.cred_len, raw.body,
					    raw.body_len, err, sizeof(err)), 0);
	ck_assert_int_eq(dl_net_conn_recv(&b, 1000, &f, err, sizeof(err)),
			 DL_EPERM);
	dl_net_frame_free(&raw);
	close(a.fd);
	close(b.fd);
	/* no credential at all, and garbage for one */
	_conn_pair(&a, &b);
	ck_assert_int_eq(dl_net_frame_write(a.fd, 1000, DL_NET_END, NULL, 0,
					    "job=1", 5, err, sizeof(err)), 0);
	ck_assert_int_eq(dl_net_conn_recv(&b, 1000, &f, err, sizeof(err)),
			 DL_EPERM);
	close(a.fd);
	close(b.fd);
	_conn_pair(&a, &b);
	ck_assert_int_eq(dl_net_frame_write(a.fd, 1000, DL_NET_END,
					    "MUNGE:xyz:", 10, "job=1", 5, err,
					    sizeof(err)), 0);
	ck_assert_int_eq(dl_net_conn_recv(&b, 1000, &f, err, sizeof(err)),
			 DL_EPERM);
	close(a.fd);
	close(b.fd);
}
END_TEST

START_TEST(test_auth_refuses_other_uid)
{
	dl_net_conn_t a, b;
	dl_net_frame_t f;
	char err[256];
	pid_t pid;
	int st;

	if (!_have_munge())
		return;
	_conn_pair(&a, &b);
	/* a user who is neither root nor the SlurmUser signs the frame */
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(2);
		_exit(dl_net_conn_send(&a, DL_NET_END, "job=1", 5, err,
				       sizeof(err)) ? 1 : 0);
	}
	waitpid(pid, &st, 0);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	ck_assert_int_eq(dl_net_conn_recv(&b, 1000, &f, err, sizeof(err)),
			 DL_EPERM);
	ck_assert(strstr(err, "uid 65534"));
	/* the SlurmUser is fine (checked without munged: same rule) */
	ck_assert_int_eq(dl_net_cred_check(&auth, 64030, "x", 1, DL_NET_END,
					   a.peer_nonce, 1, "", 0, err,
					   sizeof(err)), DL_EPERM);
	{
		char p[160];
		int n = dl_net_cred_payload(p, sizeof(p), DL_NET_END, "n", 4,
					    "job=1", 5);

		ck_assert_int_gt(n, 0);
		ck_assert_int_eq(dl_net_cred_check(&auth, 64030, p, (size_t)n,
						   DL_NET_END, "n", 4, "job=1",
						   5, err, sizeof(err)), 0);
		ck_assert_int_eq(dl_net_cred_check(&auth, 1000, p, (size_t)n,
						   DL_NET_END, "n", 4, "job=1",
						   5, err, sizeof(err)),
				 DL_EPERM);
		ck_assert_int_eq(dl_net_cred_check(&auth, 0, p, (size_t)n,
						   DL_NET_END, "n", 5, "job=1",
						   5, err, sizeof(err)),
				 DL_EPERM);
	}
	close(a.fd);
	close(b.fd);
}
END_TEST

START_TEST(test_local_conn)
{
	int sv[2];
	dl_net_conn_t a, b;
	dl_net_frame_t f;
	char err[256];

	_pair(sv);
	dl_net_conn_init(&a, sv[0], NULL, 1000);
	dl_net_conn_init(&b, sv[1], NULL, 1000);
	ck_assert_int_eq(dl_net_conn_handshake(&a, err, sizeof(err)), 0);
	ck_assert_int_eq(dl_net_conn_send(&a, DL_NET_END, "job=1", 5, err,
					  sizeof(err)), 0);
	ck_assert_int_eq(dl_net_conn_recv(&b, 1000, &f, err, sizeof(err)), 0);
	ck_assert_uint_eq(f.cred_len, 0);
	dl_net_frame_free(&f);
	/* a credential where none belongs */
	ck_assert_int_eq(dl_net_frame_write(sv[0], 1000, DL_NET_END, "c", 1,
					    "job=1", 5, err, sizeof(err)), 0);
	ck_assert_int_eq(dl_net_conn_recv(&b, 1000, &f, err, sizeof(err)),
			 DL_EFORMAT);
	close(sv[0]);
	close(sv[1]);
}
END_TEST

/* ---- message bodies -------------------------------------------------- */

/* Encode m, decode the body, encode again: the same bytes. */
static void _roundtrip(const dl_msg_t *m, dl_msg_t *out)
{
	char *b1, *b2, err[256];
	size_t l1, l2;

	ck_assert_msg(!dl_msg_encode(m, &b1, &l1, err, sizeof(err)), "%s",
		      err);
	ck_assert_msg(!dl_msg_decode(m->type, b1, l1, out, err, sizeof(err)),
		      "%s: %s", b1, err);
	ck_assert_int_eq(dl_msg_encode(out, &b2, &l2, err, sizeof(err)), 0);
	ck_assert_str_eq(b1, b2);
	free(b1);
	free(b2);
}

static int _dec(uint32_t type, const char *body, dl_msg_t *m)
{
	char err[256];

	return dl_msg_decode(type, body, strlen(body), m, err, sizeof(err));
}

START_TEST(test_msg_hello_inv_delta)
{
	dl_msg_t m, o;

	dl_msg_init(&m, DL_NET_HELLO);
	strcpy(m.node, "n1");
	strcpy(m.peer_host, "127.0.0.1");
	m.peer_port = 6831;
	m.capacity = DL_MSG_UNLIMITED;
	m.used = 5;
	m.peer_bytes = 7;
	_roundtrip(&m, &o);
	ck_assert_str_eq(o.node, "n1");
	ck_assert_uint_eq(o.capacity, DL_MSG_UNLIMITED);
	ck_assert_uint_eq(o.peer_port, 6831);
	dl_msg_free(&o);

	dl_msg_init(&m, DL_NET_INV);
	m.part = 2;
	m.last = 1;
	for (int i = 0; i < 100; i++) {
		char p[32];

		snprintf(p, sizeof(p), "/d/f%d", i);
		ck_assert_ptr_nonnull(dl_msg_add_file(&m, p, (uint64_t)i, 0));
	}
	_roundtrip(&m, &o);
	ck_assert_uint_eq(o.nfiles, 100);
	ck_assert_str_eq(o.files[99].path, "/d/f99");
	ck_assert_uint_eq(o.files[99].size, 99);
	dl_msg_free(&o);
	dl_msg_free(&m);

	ck_assert_int_eq(_dec(DL_NET_DELTA, "storage_bytes=1 peer_bytes=2 "
			      "used=3\n+ /a 4\n- /b\n", &o), 0);
	ck_assert_uint_eq(o.nfiles, 2);
	ck_assert_int_eq(o.files[0].op, '+');
	ck_assert_uint_eq(o.files[0].size, 4);
	ck_assert_int_eq(o.files[1].op, '-');
	dl_msg_free(&o);
	/* a removal has no size, an addition needs one */
	ck_assert_int_eq(_dec(DL_NET_DELTA, "storage_bytes=1 peer_bytes=2 "
			      "used=3\n- /b 4\n", &o), DL_EFORMAT);
	ck_assert_int_eq(_dec(DL_NET_DELTA, "storage_bytes=1 peer_bytes=2 "
			      "used=3\n+ /b\n", &o), DL_EFORMAT);
	/* the count of an INV part must match its lines */
	ck_assert_int_eq(_dec(DL_NET_INV, "part=0 last=1 files=2\n/a 1\n",
			      &o), DL_EFORMAT);
	ck_assert_int_eq(_dec(DL_NET_INV, "part=0 last=2 files=0\n", &o),
			 DL_EFORMAT);
}
END_TEST

START_TEST(test_msg_prefetch_locate)
{
	dl_msg_t m, o;
	dl_msg_file_t *f;

	dl_msg_init(&m, DL_NET_PREFETCH);
	m.job = 42;
	m.uid = 1000;
	m.gid = 100;
	strcpy(m.user, "alice@example.org");
	m.expires = 1800000000;
	f = dl_msg_add_file(&m, "/data/x", 1024, 0);
	ck_assert_int_eq(dl_msg_file_add_peer(f, "n2", "127.0.0.1", 7001), 0);
	ck_assert_int_eq(dl_msg_file_add_peer(f, "n3", "::1", 7002), 0);
	ck_assert_ptr_nonnull(dl_msg_add_file(&m, "/data/y", 0, 0));
	_roundtrip(&m, &o);
	ck_assert_uint_eq(o.nfiles, 2);
	ck_assert_uint_eq(o.files[0].npeers, 2);
	ck_assert_str_eq(o.files[0].peers[1].host, "::1");
	ck_assert_uint_eq(o.files[0].peers[1].port, 7002);
	ck_assert_str_eq(o.user, "alice@example.org");
	dl_msg_free(&o);
	dl_msg_free(&m);

	ck_assert_int_eq(_dec(DL_NET_LOCATED, "req=3\n/a n1@h:1 n2@h:2\n", &o),
			 0);
	ck_assert_uint_eq(o.req, 3);
	ck_assert_uint_eq(o.files[0].npeers, 2);
	dl_msg_free(&o);
	/* LOCATED without peers, bad peers, LOCATE with extra tokens */
	ck_assert_int_eq(_dec(DL_NET_LOCATED, "req=3\n/a\n", &o), DL_EFORMAT);
	ck_assert_int_eq(_dec(DL_NET_LOCATED, "req=3\n/a n1@h:0\n", &o),
			 DL_EFORMAT);
	ck_assert_int_eq(_dec(DL_NET_LOCATED, "req=3\n/a n1@h:65536\n", &o),
			 DL_EFORMAT);
	ck_assert_int_eq(_dec(DL_NET_LOCATED, "req=3\n/a n1h:5\n", &o),
			 DL_EFORMAT);
	ck_assert_int_eq(_dec(DL_NET_LOCATE, "req=3\n/a 5\n", &o), DL_EFORMAT);
	ck_assert_int_eq(_dec(DL_NET_LOCATE, "req=3\n/a\n/b\n", &o), 0);
	ck_assert_uint_eq(o.nfiles, 2);
	dl_msg_free(&o);
	/* more than 16 peers on one line */
	{
		char b[1024] = "job=1 uid=1 gid=1 user=u expires=1\n/a 1";

		for (int i = 0; i < DL_MSG_PEERS_MAX + 1; i++)
			strcat(b, " n@h:1");
		ck_assert_int_eq(_dec(DL_NET_PREFETCH, b, &o), DL_EFORMAT);
	}
}
END_TEST

START_TEST(test_msg_locate_bounded)
{
	size_t n = DL_MSG_LOCATE_MAX + 1, len = 0;
	char *b = malloc(16 + n * 4);
	dl_msg_t o;
	char err[256];

	len += (size_t)sprintf(b, "req=1\n");
	for (size_t i = 0; i < n; i++)
		len += (size_t)sprintf(b + len, "/a\n");
	ck_assert_int_eq(dl_msg_decode(DL_NET_LOCATE, b, len, &o, err,
				       sizeof(err)), DL_ETOOBIG);
	free(b);
}
END_TEST

START_TEST(test_msg_fetch_stage_report)
{
	dl_msg_t m, o;

	dl_msg_init(&m, DL_NET_FETCH);
	m.uid = 1000;
	m.gid = 1000;
	strcpy(m.user, "bob");
	dl_msg_set_path(&m, "/data/f");
	m.size = 10;
	m.ino = 99;
	m.mtime_ns = 1700000000123456789;
	m.ctime_ns = -5;
	_roundtrip(&m, &o);
	ck_assert_str_eq(o.path, "/data/f");
	ck_assert_int_eq(o.ctime_ns, -5);
	dl_msg_free(&o);
	dl_msg_free(&m);

	dl_msg_init(&m, DL_NET_FETCH_OK);
	m.size = 3;
	strcpy(m.sha256, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410"
			 "ff61f20015ad");
	_roundtrip(&m, &o);
	dl_msg_free(&o);
	strcpy(m.sha256, "BA7816BF");
	{
		char *b;
		size_t l;

		ck_assert_int_eq(dl_msg_encode(&m, &b, &l, NULL, 0),
				 DL_EINVAL);
	}

	dl_msg_init(&m, DL_NET_FETCH_REFUSED);
	dl_msg_set_text(&m, "not\ncached here");
	_roundtrip(&m, &o);
	ck_assert_str_eq(o.text, "not cached here");
	dl_msg_free(&o);
	dl_msg_free(&m);

	ck_assert_int_eq(_dec(DL_NET_STAGE, "job=5 uid=1 gid=2 user=u\n"
			      "files:/a,/b\n\tmore\n", &o), 0);
	ck_assert_str_eq(o.text, "files:/a,/b\n\tmore\n");
	ck_assert_uint_eq(o.patterns, 0);
	dl_msg_free(&o);
	/* the values of the list lines' patterns, the job name left out
	 * when it is not known */
	dl_msg_init(&m, DL_NET_STAGE);
	m.job = 12;
	strcpy(m.user, "u");
	m.patterns = 1;
	m.task = 7;
	m.array = 10;
	strcpy(m.jobname, "sim");
	dl_msg_set_text(&m, "files:@/l");
	_roundtrip(&m, &o);
	ck_assert_uint_eq(o.patterns, 1);
	ck_assert_uint_eq(o.task, 7);
	ck_assert_uint_eq(o.array, 10);
	ck_assert_str_eq(o.jobname, "sim");
	dl_msg_free(&o);
	m.jobname[0] = '\0';
	m.task = 0xfffffffeu;
	_roundtrip(&m, &o);
	ck_assert_str_eq(o.jobname, "");
	ck_assert_uint_eq(o.task, 0xfffffffeu);
	dl_msg_free(&o);
	dl_msg_free(&m);
	ck_assert_int_ne(_dec(DL_NET_STAGE, "job=5 uid=1 gid=2 user=u "
			      "jobname=\nfiles:/a\n", &o), 0);

	dl_msg_init(&m, DL_NET_REPORT);
	m.count.files = 3;
	m.count.hits = 1;
	m.count.bytes_copied = 12345;
	m.count.user_fault = 1;
	dl_msg_set_text(&m, "no such file: /a");
	_roundtrip(&m, &o);
	ck_assert_uint_eq(o.count.bytes_copied, 12345);
	ck_assert_str_eq(o.text, "no such file: /a");
	dl_msg_free(&o);
	dl_msg_free(&m);

	ck_assert_int_eq(_dec(DL_NET_PREFETCH_DONE, "job=1 files=2 cached=1 "
			      "from_peers=1 failed=0 user_fault=0\n", &o), 0);
	ck_assert_ptr_null(o.text);
	ck_assert_uint_eq(o.count.peer_us, 0); /* an older service's */
	dl_msg_free(&o);

	/* A prefetch's copies and their time, for the controller's rates. */
	dl_msg_init(&m, DL_NET_PREFETCH_DONE);
	m.job = 9;
	m.count.files = 2;
	m.count.cached = 2;
	m.count.from_peers = 1;
	m.count.storage_bytes = 4194304;
	m.count.storage_us = 81234;
	m.count.peer_bytes = 1048576;
	m.count.peer_us = 20481;
	_roundtrip(&m, &o);
	ck_assert_uint_eq(o.count.storage_bytes, 4194304);
	ck_assert_uint_eq(o.count.storage_us, 81234);
	ck_assert_uint_eq(o.count.peer_bytes, 1048576);
	ck_assert_uint_eq(o.count.peer_us, 20481);
	dl_msg_free(&o);
	dl_msg_free(&m);
}
END_TEST

START_TEST(test_msg_hostile_numbers)
{
	dl_msg_t o;

	ck_assert_int_eq(_dec(DL_NET_END, "job=5", &o), 0);
	ck_assert_uint_eq(o.job, 5);
	ck_assert_int_eq(_dec(DL_NET_END, "job=05", &o), DL_EFORMAT);
	ck_assert_int_eq(_dec(DL_NET_END, "job=+5", &o), DL_EFORMAT);
	ck_assert_int_eq(_dec(DL_NET_END, "job=-5", &o), DL_EFORMAT);
	ck_assert_int_eq(_dec(DL_NET_END, "job= 5", &o), DL_EFORMAT);
	ck_assert_int_eq(_dec(DL_NET_END, "job=4294967296", &o), DL_EFORMAT);
	ck_assert_int_eq(_dec(DL_NET_END, "job=5 job=6", &o), DL_EFORMAT);
	ck_assert_int_eq(_dec(DL_NET_END, "", &o), DL_EFORMAT);
	ck_assert_int_eq(_dec(DL_NET_END, "job=5  x=1", &o), DL_EFORMAT);
	ck_assert_int_eq(_dec(DL_NET_END, "job=5 ", &o), DL_EFORMAT);
	ck_assert_int_eq(_dec(DL_NET_END, "job=5\nextra", &o), DL_EFORMAT);
	/* unknown keys are ignored */
	ck_assert_int_eq(_dec(DL_NET_END, "later=x job=5", &o), 0);
	ck_assert_int_eq(_dec(DL_NET_DELTA, "storage_bytes=18446744073709551615"
			      " peer_bytes=0 used=0", &o), 0);
	ck_assert_int_eq(_dec(DL_NET_DELTA, "storage_bytes=18446744073709551616"
			      " peer_bytes=0 used=0", &o), DL_EFORMAT);
	ck_assert_int_eq(_dec(DL_NET_CANCEL, "job=1\0", &o), 0);
	{
		dl_msg_t m;
		char err[256];

		ck_assert_int_eq(dl_msg_decode(DL_NET_CANCEL, "job=1\0", 6, &m,
					       err, sizeof(err)), DL_EFORMAT);
	}
	ck_assert_int_eq(_dec(DL_NET_FETCH, "uid=4294967295 gid=1 user=u "
			      "path=/a size=1 ino=1 mtime_ns=1 ctime_ns=1",
			      &o), DL_EFORMAT);
	ck_assert_int_eq(_dec(DL_NET_FETCH, "uid=1 gid=1 user=u path=a "
			      "size=1 ino=1 mtime_ns=1 ctime_ns=1", &o),
			 DL_EFORMAT);
	ck_assert_int_eq(_dec(DL_NET_FETCH, "uid=1 gid=1 user=u path=/a "
			      "size=1 ino=1 mtime_ns=-0 ctime_ns=1", &o),
			 DL_EFORMAT);
	ck_assert_int_eq(_dec(DL_NET_HELLO, "node=n@1 peer=h:1 capacity=1 "
			      "used=0 storage_bytes=0 peer_bytes=0", &o),
			 DL_EFORMAT);
	ck_assert_int_eq(_dec(DL_NET_FETCH_REFUSED, "because", &o),
			 DL_EFORMAT);
	ck_assert_int_eq(_dec(99, "job=1", &o), DL_EFORMAT);
}
END_TEST

/* ------------------------------------------------------------------ */
/* SHA-256: the SHA-NI blocks and the portable ones agree with FIPS
 * 180-4's examples and with each other, however the input is split. */

static void _digest_split(const uint8_t *p, size_t n, size_t step,
			  char hex[DL_SHA256_HEX_LEN])
{
	dl_sha256_ctx_t c;

	dl_sha256_init(&c);
	for (size_t o = 0; o < n; o += step)
		dl_sha256_update(&c, p + o, n - o < step ? n - o : step);
	dl_sha256_final_hex(&c, hex);
}

static void _sha256_vectors(void)
{
	char hex[DL_SHA256_HEX_LEN];
	char *a = malloc(1000000);

	ck_assert_ptr_nonnull(a);
	dl_sha256_hex("", 0, hex);
	ck_assert_str_eq(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	dl_sha256_hex("abc", 3, hex);
	ck_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	dl_sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		      56, hex);
	ck_assert_str_eq(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	memset(a, 'a', 1000000);
	_digest_split((const uint8_t *)a, 1000000, 4099, hex);
	ck_assert_str_eq(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	free(a);
}

START_TEST(test_sha256_both_ways)
{
	uint8_t buf[1200];
	char fast[DL_SHA256_HEX_LEN], slow[DL_SHA256_HEX_LEN];
	uint32_t x = 12345;
	int was = dl__sha256_portable(1);

	_sha256_vectors();
	dl__sha256_portable(0);
	_sha256_vectors();
	for (size_t i = 0; i < sizeof(buf); i++) {
		x = x * 1103515245u + 12345u;
		buf[i] = (uint8_t)(x >> 16);
	}
	/* every length around the block and padding boundaries, odd splits */
	for (size_t n = 0; n < sizeof(buf); n += (n < 200 ? 1 : 37)) {
		dl__sha256_portable(1);
		_digest_split(buf, n, 64, slow);
		dl__sha256_portable(0);
		_digest_split(buf, n, 1 + n % 97, fast);
		ck_assert_str_eq(fast, slow);
	}
	dl__sha256_portable(was);
}
END_TEST

Suite *make_net_suite(void)
{
	Suite *s = suite_create("net");
	TCase *tc = tcase_create("frame");

	tcase_add_test(tc, test_frame_roundtrip);
	tcase_add_test(tc, test_frame_hostile);
	tcase_add_test(tc, test_frame_timeouts);
	tcase_add_test(tc, test_tcp_and_unix);
	tcase_add_test(tc, test_local_conn);
	tcase_add_test(tc, test_door_deadlines);
	suite_add_tcase(s, tc);
	tc = tcase_create("auth");
	tcase_add_unchecked_fixture(tc, munged_start, munged_stop);
	tcase_add_test(tc, test_auth_accepts_in_order);
	tcase_add_test(tc, test_auth_refuses_replay);
	tcase_add_test(tc, test_auth_refuses_tampered);
	tcase_add_test(tc, test_auth_refuses_other_uid);
	suite_add_tcase(s, tc);
	tc = tcase_create("msg");
	tcase_add_test(tc, test_msg_hello_inv_delta);
	tcase_add_test(tc, test_msg_prefetch_locate);
	tcase_add_test(tc, test_msg_locate_bounded);
	tcase_add_test(tc, test_msg_fetch_stage_report);
	tcase_add_test(tc, test_msg_hostile_numbers);
	suite_add_tcase(s, tc);
	tc = tcase_create("sha256");
	tcase_add_test(tc, test_sha256_both_ways);
	suite_add_tcase(s, tc);
	return s;
}
