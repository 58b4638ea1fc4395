/*
 * check_cached.c - unit tests of dl-cached's peer copies (src/cached/
 * peer.c) on hand-made cases: a peer refuses a request whose identity
 * differs from its copy, a file not cached, a root request, or a user who
 * cannot open the source there; a stream that does not hash to the
 * promised digest or ends short is refused (and the stage library then
 * copies from storage); a real fetch between two caches through a peer
 * server authenticated by a private munged.
 *
 * Needs root (jobs run as uid 65534, "nobody"); without root the tests
 * pass vacuously and say so on stderr.
 */
#include <check.h>
#include <grp.h>
#include <sys/prctl.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cached.h"
#include "client.h"
#include "check_suites.h"
#include "dl_error.h"
#include "munged_fx.h"
#include "sha256.h"

#define NOBODY 65534
#define OTHER_UID 65533

static char base[64], src[128], dir_a[128], dir_b[128];
static cached_conf_t conf_b;

static int _no_fetch(void *arg, const dl_stage_job_t *job, const char *path,
		     const struct stat *sb, int out, char *sha, int64_t *ver)
{
	(void)arg, (void)job, (void)path, (void)sb, (void)out, (void)sha;
	(void)ver;
	return -1;
}

static int _root(void)
{
	if (geteuid() == 0)
		return 1;
	fprintf(stderr, "check_cached: not root, test skipped\n");
	return 0;
}

static void _write(const char *name, size_t size, mode_t mode, uid_t uid)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", src, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	ck_assert_int_ge(fd, 0);
	for (size_t i = 0; i < size; i++) {
		char c = (char)(i * 7 + name[0]);

		ck_assert_int_eq(write(fd, &c, 1), 1);
	}
	ck_assert_int_eq(fchmod(fd, mode), 0);
	ck_assert_int_eq(fchown(fd, uid, uid), 0);
	close(fd);
}

static void setup(void)
{
	if (geteuid() != 0)
		return;
	snprintf(base, sizeof(base), "/tmp/dl_check_cached.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(base));
	ck_assert_int_eq(chmod(base, 0755), 0);
	snprintf(src, sizeof(src), "%s/src", base);
	snprintf(dir_a, sizeof(dir_a), "%s/cache_a", base);
	snprintf(dir_b, sizeof(dir_b), "%s/cache_b", base);
	ck_assert_int_eq(mkdir(src, 0755), 0);
	_write("f", 300000, 0644, 0);
	_write("g", 100, 0644, 0);
	_write("mine", 1000, 0600, NOBODY); /* only nobody reads it */
	memset(&conf_b, 0, sizeof(conf_b));
	snprintf(conf_b.node, sizeof(conf_b.node), "nB");
	conf_b.cache_dir = dir_b;
	conf_b.opts.capacity = DL_CACHE_UNLIMITED;
	conf_b.opts.node = "nB";
	conf_b.opts.fetch = _no_fetch; /* every copy's digest kept */
	conf_b.auth.munge_socket = fx_munge_socket;
}

static void teardown(void)
{
	char cmd[128];

	if (!base[0])
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", base);
	ck_assert_int_eq(system(cmd), 0);
	base[0] = '\0';
}

/* Stage names (relative to src) into the cache at dir for nobody. */
static dl_stage_t *_stage(const char *dir, const dl_stage_opts_t *o,
			  const char *names, dl_stage_report_t *rep)
{
	dl_stage_job_t job = { .job_id = 7, .uid = NOBODY, .gid = NOBODY };
	char spec[1024] = "files:", err[256];
	dl_filelist_t *files;
	dl_stage_t *st;
	char *copy = strdup(names), *tok, *save;

	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save))
		snprintf(spec + strlen(spec), sizeof(spec) - strlen(spec),
			 "%s%s/%s", spec[6] ? "," : "", src, tok);
	free(copy);
	ck_assert_int_eq(dl_stage_open(dir, o, 1, &st, err, sizeof(err)), 0);
	ck_assert_int_eq(dl_files_parse(spec, &files, err, sizeof(err)), 0);
	ck_assert_msg(!dl_stage_job(st, &job, files, rep), "%s", rep->msg);
	dl_filelist_free(files);
	return st;
}

static void _fetch_req(dl_msg_t *m, const char *name, uid_t uid)
{
	char path[256];
	struct stat sb;

	snprintf(path, sizeof(path), "%s/%s", src, name);
	ck_assert_int_eq(stat(path, &sb), 0);
	dl_msg_init(m, DL_NET_FETCH);
	m->uid = uid;
	m->gid = uid;
	dl_msg_set_path(m, path);
	m->size = (uint64_t)sb.st_size;
	m->ino = (uint64_t)sb.st_ino;
	m->mtime_ns = (int64_t)sb.st_mtim.tv_sec * 1000000000 +
		      sb.st_mtim.tv_nsec;
	m->ctime_ns = (int64_t)sb.st_ctim.tv_sec * 1000000000 +
		      sb.st_ctim.tv_nsec;
}

START_TEST(test_peer_check)
{
	char sha[DL_SHA256_HEX_LEN], why[512], want[DL_SHA256_HEX_LEN];
	char path[256], *buf;
	dl_stage_report_t rep;
	dl_stage_t *st;
	dl_msg_t m;
	int64_t ver = 0;
	int fd, in;

	if (!_root())
		return;
	st = _stage(dir_b, &conf_b.opts, "f,mine", &rep);
	ck_assert_uint_eq(rep.copied, 2);
	/* the version asked for, by a user who can read it: served */
	_fetch_req(&m, "f", NOBODY);
	ck_assert_msg(!cached_peer_check(st, &m, 10, &fd, sha, &ver, why,
					 sizeof(why)), "%s", why);
	/* the requester is told when the copy was last known current */
	ck_assert_int_gt(ver, 0);
	buf = malloc(300000);
	snprintf(path, sizeof(path), "%s/f", src);
	in = open(path, O_RDONLY);
	ck_assert_int_eq(read(in, buf, 300000), 300000);
	close(in);
	dl_sha256_hex(buf, 300000, want);
	free(buf);
	ck_assert_str_eq(sha, want);
	close(fd);
	/* another identity: refused */
	m.ino++;
	ck_assert_int_eq(cached_peer_check(st, &m, 10, &fd, sha, &ver, why,
					   sizeof(why)), -1);
	ck_assert(strstr(why, "another version"));
	m.ino--;
	m.mtime_ns++;
	ck_assert_int_eq(cached_peer_check(st, &m, 10, &fd, sha, &ver, why,
					   sizeof(why)), -1);
	m.mtime_ns--;
	/* root: refused (root jobs read their storage) */
	m.uid = 0;
	ck_assert_int_eq(cached_peer_check(st, &m, 10, &fd, sha, &ver, why,
					   sizeof(why)), -1);
	dl_msg_free(&m);
	/* not cached here */
	_fetch_req(&m, "g", NOBODY);
	ck_assert_int_eq(cached_peer_check(st, &m, 10, &fd, sha, &ver, why,
					   sizeof(why)), -1);
	ck_assert(strstr(why, "not cached"));
	dl_msg_free(&m);
	/* cached, same version, but this user cannot open it here */
	_fetch_req(&m, "mine", OTHER_UID);
	ck_assert_int_eq(cached_peer_check(st, &m, 10, &fd, sha, &ver, why,
					   sizeof(why)), -1);
	ck_assert(strstr(why, "cannot open"));
	dl_msg_free(&m);
	_fetch_req(&m, "mine", NOBODY);
	ck_assert_int_eq(cached_peer_check(st, &m, 10, &fd, sha, &ver, why,
					   sizeof(why)), 0);
	close(fd);
	dl_msg_free(&m);
	dl_stage_close(st);
}
END_TEST

START_TEST(test_peer_stream)
{
	char sha[DL_SHA256_HEX_LEN], path[128];
	int sv[2], out;

	snprintf(path, sizeof(path), "/tmp/dl_check_stream.%d", (int)getpid());
	out = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(out, 0);
	unlink(path);
	dl_sha256_hex("0123456789", 10, sha);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	ck_assert_int_eq(write(sv[0], "0123456789", 10), 10);
	ck_assert_int_eq(cached_peer_stream(sv[1], out, 10, sha, 1000), 0);
	/* other bytes than promised */
	ck_assert_int_eq(write(sv[0], "0123456780", 10), 10);
	ck_assert_int_eq(cached_peer_stream(sv[1], out, 10, sha, 1000), -1);
	/* fewer bytes than promised, then silence */
	ck_assert_int_eq(write(sv[0], "01234", 5), 5);
	ck_assert_int_eq(cached_peer_stream(sv[1], out, 10, sha, 200), -1);
	/* fewer, then the end */
	ck_assert_int_eq(write(sv[0], "01234", 5), 5);
	close(sv[0]);
	ck_assert_int_eq(cached_peer_stream(sv[1], out, 10, sha, 1000), -1);
	close(sv[1]);
	close(out);
}
END_TEST

/*
 * How long a child here waits for the other end of a test's connection:
 * only a broken test waits that long, and a busy host (or ASan) may be
 * seconds late.
 */
#define PEER_WAIT_MS 120000

/* A peer server for one connection, in a child; \return its pid. */
static pid_t _serve_one(int lfd)
{
	pid_t pid = fork();
	int fd;

	if (pid == 0) {
		if (dl_net_accept(lfd, PEER_WAIT_MS, &fd, NULL, 0))
			_exit(2);
		_exit(cached_peer_serve(&conf_b, &conf_b.auth, fd, "test",
					NULL, NULL) ?
			      1 : 0);
	}
	return pid;
}

START_TEST(test_peer_fetch)
{
	cached_conf_t conf_a = { .node = "nA" };
	cached_source_t s = { .relay = -1, .conf = &conf_a };
	dl_stage_report_t rep;
	dl_stage_opts_t oa = { .capacity = DL_CACHE_UNLIMITED, .node = "nA" };
	dl_stage_t *st;
	dl_msg_t loc;
	dl_msg_file_t *f;
	char path[256], err[256];
	uint16_t port;
	int lfd, status;
	pid_t pid;

	if (!_root() || !fx_munged_ok("check_cached"))
		return;
	st = _stage(dir_b, &conf_b.opts, "f", &rep);
	dl_stage_close(st);
	conf_a.auth = conf_b.auth;
	ck_assert_int_eq(dl_net_listen("127.0.0.1", 0, &lfd, err,
				       sizeof(err)), 0);
	port = dl_net_local_port(lfd);
	snprintf(path, sizeof(path), "%s/f", src);
	dl_msg_init(&loc, DL_NET_LOCATED);
	f = dl_msg_add_file(&loc, path, 0, 0);
	/* ourselves first: skipped; then B */
	dl_msg_file_add_peer(f, "nA", "127.0.0.1", 1);
	dl_msg_file_add_peer(f, "nB", "127.0.0.1", port);
	s.located = &loc;
	oa.fetch = cached_peer_fetch;
	oa.fetch_arg = &s;

	pid = _serve_one(lfd);
	st = _stage(dir_a, &oa, "f", &rep);
	waitpid(pid, &status, 0);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_uint_eq(rep.copied, 1);
	ck_assert_uint_eq(rep.from_peers, 1);
	ck_assert_uint_eq(rep.bytes_peer, 300000);
	dl_stage_close(st);

	/* the source changed since B cached it: B refuses, A uses storage */
	{
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir_a);
		ck_assert_int_eq(system(cmd), 0);
	}
	_write("f", 300000, 0644, 0);
	pid = _serve_one(lfd);
	st = _stage(dir_a, &oa, "f", &rep);
	waitpid(pid, &status, 0);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 1);
	ck_assert_uint_eq(rep.copied, 1);
	ck_assert_uint_eq(rep.from_peers, 0);
	dl_stage_close(st);
	close(lfd);
	dl_msg_free(&loc);
	dl_msg_free(&s.cache);
}
END_TEST

/* cached_queued_fn: a prefetch of ".../g" is queued here. */
/*
 * Whether path is queued for a prefetch here: g is.  The first time it is
 * asked (a request for g came in, g is not cached yet), one byte on the
 * pipe *arg tells the copier it may start.
 */
static bool _g_queued(void *arg, const char *path)
{
	size_t n = strlen(path);
	int *go = arg;

	if (*go >= 0) {
		ck_assert_int_eq(write(*go, "", 1), 1);
		close(*go);
		*go = -1;
	}
	return n >= 2 && !strcmp(path + n - 2, "/g");
}

/*
 * A peer asked for a file it is about to copy (a queued prefetch, then
 * its copy) waits for it and serves it, rather than sending the requester
 * to the storage; dl_stage_copying() sees the copy while it runs.
 */
START_TEST(test_peer_waits_for_copy)
{
	cached_conf_t conf_a = { .node = "nA" };
	cached_source_t s = { .relay = -1, .conf = &conf_a };
	dl_stage_report_t rep;
	dl_stage_opts_t oa = { .capacity = DL_CACHE_UNLIMITED, .node = "nA" };
	dl_msg_t loc;
	dl_msg_file_t *f;
	dl_stage_t *st;
	char path[256], err[256], byte;
	uint16_t port;
	int lfd, status, go[2];
	pid_t server, copier;

	if (!_root() || !fx_munged_ok("check_cached"))
		return;
	_write("g", 300000, 0644, 0);
	/* B's cache exists, without g */
	ck_assert_int_eq(dl_stage_open(dir_b, &conf_b.opts, 1, &st, err,
				       sizeof(err)), 0);
	dl_stage_close(st);
	conf_a.auth = conf_b.auth;
	ck_assert_int_eq(dl_net_listen("127.0.0.1", 0, &lfd, err,
				       sizeof(err)), 0);
	port = dl_net_local_port(lfd);
	snprintf(path, sizeof(path), "%s/g", src);
	dl_msg_init(&loc, DL_NET_LOCATED);
	f = dl_msg_add_file(&loc, path, 0, 0);
	dl_msg_file_add_peer(f, "nB", "127.0.0.1", port);
	s.located = &loc;
	oa.fetch = cached_peer_fetch;
	oa.fetch_arg = &s;

	/* The copier starts once B's server has A's request and waits for
	 * g: B can serve g only if it waited for its copy. */
	ck_assert_int_eq(pipe(go), 0);
	server = fork();
	if (server == 0) {
		int fd;

		close(go[0]);
		if (dl_net_accept(lfd, PEER_WAIT_MS, &fd, NULL, 0))
			_exit(2);
		_exit(cached_peer_serve(&conf_b, &conf_b.auth, fd, "test",
					_g_queued, &go[1]) ? 1 : 0);
	}
	close(go[1]);
	copier = fork();
	if (copier == 0) {
		if (read(go[0], &byte, 1) != 1)
			_exit(2);
		dl_stage_close(_stage(dir_b, &conf_b.opts, "g", &rep));
		_exit(rep.copied == 1 ? 0 : 1);
	}
	close(go[0]);
	st = _stage(dir_a, &oa, "g", &rep);
	waitpid(copier, &status, 0);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	waitpid(server, &status, 0);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_uint_eq(rep.copied, 1);
	ck_assert_uint_eq(rep.from_peers, 1);
	ck_assert_uint_eq(rep.bytes_peer, 300000);
	/* nothing is being copied into A now */
	ck_assert(!dl_stage_copying(st, path));
	dl_stage_close(st);
	close(lfd);
	dl_msg_free(&loc);
	dl_msg_free(&s.cache);
}
END_TEST

/* The controller's side, in a child: HELLO, INV, then one DELTA adding
 * the path "want"; exits 0 if all came as they should. */
static int _fake_ctld(int lfd, const char *want)
{
	dl_net_auth_t a = { .munge_socket = fx_munge_socket };
	dl_net_frame_t f;
	dl_net_conn_t c;
	dl_msg_t m;
	int fd, ok = 0;

	if (dl_net_accept(lfd, PEER_WAIT_MS, &fd, NULL, 0))
		return 2;
	dl_net_conn_init(&c, fd, &a, PEER_WAIT_MS);
	if (dl_net_conn_handshake(&c, NULL, 0) ||
	    dl_net_conn_prove(&c, NULL, 0) ||
	    dl_net_conn_recv(&c, PEER_WAIT_MS, &f, NULL, 0) ||
	    f.type != DL_NET_HELLO ||
	    dl_msg_decode(f.type, f.body, f.body_len, &m, NULL, 0) ||
	    strcmp(m.node, "nB") || m.peer_port != 7777)
		return 3;
	dl_net_frame_free(&f);
	dl_msg_free(&m);
	if (dl_net_conn_recv(&c, PEER_WAIT_MS, &f, NULL, 0) ||
	    f.type != DL_NET_INV ||
	    dl_msg_decode(f.type, f.body, f.body_len, &m, NULL, 0) ||
	    !m.last || m.nfiles != 1)
		return 4;
	dl_net_frame_free(&f);
	dl_msg_free(&m);
	/* the store changes: a DELTA follows (the test ticks until then) */
	if (dl_net_conn_recv(&c, PEER_WAIT_MS, &f, NULL, 0) ||
	    f.type != DL_NET_DELTA ||
	    dl_msg_decode(f.type, f.body, f.body_len, &m, NULL, 0))
		return 5;
	for (size_t i = 0; i < m.nfiles; i++)
		ok |= m.files[i].op == '+' && !strcmp(m.files[i].path, want) &&
		      m.files[i].size == 100;
	return ok && m.storage_bytes == 100 ? 0 : 6;
}

static void _no_prefetch(void *arg, dl_msg_t *m)
{
	(void)arg, (void)m;
}

static void _no_cancel(void *arg, uint32_t job)
{
	(void)arg, (void)job;
}

static void _no_located(void *arg, uint64_t req, const char *b, size_t n)
{
	(void)arg, (void)req, (void)b, (void)n;
}

START_TEST(test_ctl_inventory_delta)
{
	cached_ctl_ops_t ops = { _no_prefetch, _no_cancel, _no_located, NULL };
	dl_stage_report_t rep;
	cached_ctl_t *ctl;
	dl_stage_t *st, *other;
	char err[256], want[256];
	int lfd, status;
	pid_t pid;

	if (!_root() || !fx_munged_ok("check_cached"))
		return;
	st = _stage(dir_b, &conf_b.opts, "f", &rep);
	ck_assert_int_eq(dl_net_listen("127.0.0.1", 0, &lfd, err,
				       sizeof(err)), 0);
	snprintf(conf_b.controller, sizeof(conf_b.controller), "127.0.0.1");
	conf_b.service_port = dl_net_local_port(lfd);
	snprintf(conf_b.peer_host, sizeof(conf_b.peer_host), "127.0.0.1");
	conf_b.peer_port = 7777;
	snprintf(want, sizeof(want), "%s/g", src);
	pid = fork();
	if (pid == 0)
		_exit(_fake_ctld(lfd, want));
	ctl = cached_ctl_create(&conf_b, st, &ops);
	cached_ctl_tick(ctl);
	ck_assert_int_ge(cached_ctl_fd(ctl), 0);
	/* another process (a direct-path dl-stage) changes the store */
	other = _stage(dir_b, &conf_b.opts, "g", &rep);
	dl_stage_close(other);
	/* Tick until the controller has seen what it waits for (or given
	 * up after PEER_WAIT_MS): however long a busy host takes. */
	while (waitpid(pid, &status, WNOHANG) == 0) {
		usleep(100000);
		cached_ctl_tick(ctl);
	}
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "fake controller: %d", WEXITSTATUS(status));
	cached_ctl_destroy(ctl);
	dl_stage_close(st);
	close(lfd);
}
END_TEST

/* Receive HELLO and the inventory's parts; \return 0 or 1. */
static int _fake_hello(dl_net_conn_t *c)
{
	dl_net_frame_t f;
	dl_msg_t m;
	bool last = false;

	if (dl_net_conn_handshake(c, NULL, 0) || dl_net_conn_prove(c, NULL, 0) ||
	    dl_net_conn_recv(c, PEER_WAIT_MS, &f, NULL, 0) ||
	    f.type != DL_NET_HELLO)
		return 1;
	dl_net_frame_free(&f);
	while (!last) {
		if (dl_net_conn_recv(c, PEER_WAIT_MS, &f, NULL, 0) ||
		    f.type != DL_NET_INV ||
		    dl_msg_decode(f.type, f.body, f.body_len, &m, NULL, 0))
			return 1;
		last = m.last;
		dl_msg_free(&m);
		dl_net_frame_free(&f);
	}
	return 0;
}

/*
 * A controller that restarts: the first connection ends after the
 * inventory; the second must bring, after its inventory, the REPORT of
 * job 77 that dl-cached made while the controller was gone.
 */
static int _restarting_ctld(int lfd)
{
	dl_net_auth_t a = { .munge_socket = fx_munge_socket };
	dl_net_frame_t f;
	dl_net_conn_t c;
	dl_msg_t m;
	int fd, rc;

	if (dl_net_accept(lfd, PEER_WAIT_MS, &fd, NULL, 0))
		return 2;
	dl_net_conn_init(&c, fd, &a, PEER_WAIT_MS);
	if (_fake_hello(&c))
		return 3;
	close(fd);
	if (dl_net_accept(lfd, PEER_WAIT_MS, &fd, NULL, 0))
		return 4;
	dl_net_conn_init(&c, fd, &a, PEER_WAIT_MS);
	if (_fake_hello(&c))
		return 5;
	if (dl_net_conn_recv(&c, PEER_WAIT_MS, &f, NULL, 0) ||
	    f.type != DL_NET_REPORT ||
	    dl_msg_decode(f.type, f.body, f.body_len, &m, NULL, 0))
		return 6;
	rc = m.job == 77 && m.count.files == 3 ? 0 : 7;
	dl_msg_free(&m);
	dl_net_frame_free(&f);
	return rc;
}

/*
 * A job's REPORT made while the controller is gone (it closed the
 * connection, as a restarting slurmctld does) is kept and sent after the
 * next inventory, not lost: its job would have no staging record.  The
 * send comes after the close and before the loop read the connection's
 * end, where a send alone "succeeds" into a dead connection.
 */
START_TEST(test_ctl_outbox_across_restart)
{
	cached_ctl_ops_t ops = { _no_prefetch, _no_cancel, _no_located, NULL };
	dl_stage_report_t rep;
	struct pollfd p;
	cached_ctl_t *ctl;
	dl_stage_t *st;
	dl_msg_t m;
	char err[256], *body;
	size_t n;
	int lfd, status;
	pid_t pid;

	if (!_root() || !fx_munged_ok("check_cached"))
		return;
	st = _stage(dir_b, &conf_b.opts, "f", &rep);
	ck_assert_int_eq(dl_net_listen("127.0.0.1", 0, &lfd, err,
				       sizeof(err)), 0);
	snprintf(conf_b.controller, sizeof(conf_b.controller), "127.0.0.1");
	conf_b.service_port = dl_net_local_port(lfd);
	snprintf(conf_b.peer_host, sizeof(conf_b.peer_host), "127.0.0.1");
	conf_b.peer_port = 7777;
	pid = fork();
	if (pid == 0)
		_exit(_restarting_ctld(lfd));
	ctl = cached_ctl_create(&conf_b, st, &ops);
	cached_ctl_tick(ctl);
	ck_assert_int_ge(cached_ctl_fd(ctl), 0);
	/* the controller has closed its end */
	p = (struct pollfd){ .fd = cached_ctl_fd(ctl), .events = POLLRDHUP };
	ck_assert_int_eq(poll(&p, 1, PEER_WAIT_MS), 1);
	dl_msg_init(&m, DL_NET_REPORT);
	m.job = 77;
	m.count.files = 3;
	ck_assert_int_eq(dl_msg_encode(&m, &body, &n, NULL, 0), 0);
	cached_ctl_send(ctl, DL_NET_REPORT, body, n);
	free(body);
	dl_msg_free(&m);
	ck_assert_int_lt(cached_ctl_fd(ctl), 0);
	while (waitpid(pid, &status, WNOHANG) == 0) {
		usleep(100000);
		cached_ctl_tick(ctl);
	}
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "restarting controller: %d", WEXITSTATUS(status));
	cached_ctl_destroy(ctl);
	dl_stage_close(st);
	close(lfd);
}
END_TEST

/* The outbox keeps order, frees what it sends, and refuses past its
 * bounds (counted), then takes frames again once emptied. */
START_TEST(test_outbox)
{
	static cached_outbox_t o; /* 4096 entries: not on the stack */
	static char big[CACHED_OUTBOX_BYTES / 2];
	const cached_out_t *e;
	char b[16];

	ck_assert_ptr_null(cached_outbox_peek(&o));
	for (int i = 0; i < CACHED_OUTBOX_MAX; i++) {
		snprintf(b, sizeof(b), "%d", i);
		ck_assert(cached_outbox_put(&o, DL_NET_REPORT, b, strlen(b)));
	}
	ck_assert(!cached_outbox_put(&o, DL_NET_STAGING, "x", 1));
	ck_assert_uint_eq(o.dropped, 1);
	for (int i = 0; i < CACHED_OUTBOX_MAX - 1; i++) {
		snprintf(b, sizeof(b), "%d", i);
		e = cached_outbox_peek(&o);
		ck_assert_uint_eq(e->n, strlen(b));
		ck_assert(!memcmp(e->body, b, e->n));
		cached_outbox_pop(&o);
	}
	/* wrapped around the ring; order kept */
	ck_assert(cached_outbox_put(&o, DL_NET_STAGING, "y", 1));
	ck_assert_int_eq(cached_outbox_peek(&o)->body[0], '4');
	cached_outbox_pop(&o);
	e = cached_outbox_peek(&o);
	ck_assert_uint_eq(e->type, DL_NET_STAGING);
	ck_assert_int_eq(e->body[0], 'y');
	cached_outbox_clear(&o);
	ck_assert_uint_eq(o.n + o.bytes, 0);
	/* the byte bound */
	ck_assert(cached_outbox_put(&o, DL_NET_REPORT, big, sizeof(big)));
	ck_assert(cached_outbox_put(&o, DL_NET_REPORT, big, sizeof(big)));
	ck_assert(!cached_outbox_put(&o, DL_NET_REPORT, "z", 1));
	ck_assert_uint_eq(o.dropped, 2);
	cached_outbox_clear(&o);
}
END_TEST

/* Whether DIR/.jobs/<name> exists in cache b. */
static int _job_rec(const char *name)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/.jobs/%s", dir_b, name);
	return access(p, F_OK) == 0;
}

static dl_filelist_t *_list(const char *name)
{
	char spec[300], err[256];
	dl_filelist_t *l;

	snprintf(spec, sizeof(spec), "files:%s/%s", src, name);
	ck_assert_int_eq(dl_files_parse(spec, &l, err, sizeof(err)), 0);
	return l;
}

/*
 * A PREFETCH's budget counts the bytes to copy: a file already cached is
 * listed (to be pinned) at no cost, so that a job's large cached input
 * does not push its small missing ones out of every prefetch.
 */
START_TEST(test_prefetch_budget)
{
	dl_stage_job_t job = { .job_id = 53, .uid = NOBODY, .gid = NOBODY };
	cached_conf_t c = conf_b;
	dl_stage_report_t rep;
	dl_filelist_t *l;
	dl_stage_t *st;
	dl_msg_t req;
	char p[256], err[256];

	if (!_root())
		return;
	ck_assert_int_eq(dl_stage_open(dir_b, &conf_b.opts, 1, &st, err,
				       sizeof(err)), 0);
	dl_stage_evict_to(st, 0, &rep); /* nothing cached but what we put */
	l = _list("f");
	ck_assert_int_eq(dl_stage_job(st, &job, l, &rep), 0);
	ck_assert_int_eq(dl_stage_job_end(st, 53, &rep), 0);
	dl_filelist_free(l);
	dl_msg_init(&req, DL_NET_PREFETCH);
	snprintf(p, sizeof(p), "%s/f", src);
	ck_assert_ptr_nonnull(dl_msg_add_file(&req, p, 1000, 0));
	snprintf(p, sizeof(p), "%s/g", src);
	ck_assert_ptr_nonnull(dl_msg_add_file(&req, p, 1000, 0));
	/* f is cached: g alone counts, and fits */
	c.prefetch_max = 1500;
	ck_assert_int_eq(cached_prefetch_list(&c, st, &req, &l), 0);
	ck_assert_uint_eq(l->count, 2);
	dl_filelist_free(l);
	/* g does not fit: f alone, still listed to be pinned */
	c.prefetch_max = 500;
	ck_assert_int_eq(cached_prefetch_list(&c, st, &req, &l), 0);
	ck_assert_uint_eq(l->count, 1);
	dl_filelist_free(l);
	/* without the cache's view, both count: g is over the budget */
	c.prefetch_max = 1500;
	ck_assert_int_eq(cached_prefetch_list(&c, NULL, &req, &l), 0);
	ck_assert_uint_eq(l->count, 1);
	dl_filelist_free(l);
	dl_msg_free(&req);
	dl_stage_evict_to(st, 0, &rep);
	dl_stage_close(st);
}
END_TEST

START_TEST(test_prefetch_pins)
{
	dl_stage_job_t job = { .job_id = 50, .uid = NOBODY, .gid = NOBODY };
	dl_stage_report_t rep;
	dl_filelist_t *l;
	dl_stage_t *st;
	uint32_t *left;
	size_t nleft;
	char err[256];

	if (!_root())
		return;
	ck_assert_int_eq(dl_stage_open(dir_b, &conf_b.opts, 1, &st, err,
				       sizeof(err)), 0);
	l = _list("f");
	ck_assert_int_eq(dl_stage_prefetch(st, &job, l, time(NULL) + 60,
					   &rep), 0);
	ck_assert_uint_eq(rep.copied, 1);
	/* pinned by the prefetch record, no view, no job pins */
	ck_assert(_job_rec("50.prefetch"));
	ck_assert(!_job_rec("50.view") && !_job_rec("50.pins"));
	ck_assert_int_eq(dl_stage_evict_to(st, 0, &rep), DL_ENOSPC);
	ck_assert_uint_eq(rep.evicted, 0);
	/* not a leftover of a dead job: the job is pending */
	ck_assert_int_eq(dl_stage_leftovers(st, 0, &left, &nleft), 0);
	ck_assert_uint_eq(nleft, 0);
	free(left);
	/* a prefetch in progress (its view and pins being built) is not
	 * reaped either; the same records without the prefetch are */
	{
		char p[256];
		int fd;

		snprintf(p, sizeof(p), "%s/.jobs/51.pins", dir_b);
		ck_assert_int_ge(fd = open(p, O_WRONLY | O_CREAT, 0600), 0);
		close(fd);
		snprintf(p, sizeof(p), "%s/.jobs/51.prefetch", dir_b);
		ck_assert_int_ge(fd = open(p, O_WRONLY | O_CREAT, 0600), 0);
		close(fd);
		ck_assert_int_eq(dl_stage_leftovers(st, 0, &left, &nleft), 0);
		ck_assert_uint_eq(nleft, 0);
		free(left);
		unlink(p);
		ck_assert_int_eq(dl_stage_leftovers(st, 0, &left, &nleft), 0);
		ck_assert_uint_eq(nleft, 1);
		ck_assert_uint_eq(left[0], 51);
		free(left);
		ck_assert_int_eq(dl_stage_job_end(st, 51, NULL), 0);
	}
	/* the job's Prolog takes the pins over */
	ck_assert_int_eq(dl_stage_job(st, &job, l, &rep), 0);
	ck_assert_uint_eq(rep.hits, 1);
	ck_assert(!_job_rec("50.prefetch") && _job_rec("50.pins"));
	ck_assert_int_eq(dl_stage_job_end(st, 50, &rep), 0);
	ck_assert_int_eq(dl_stage_evict_to(st, 0, &rep), 0);
	ck_assert_uint_eq(rep.evicted, 1);

	/* an expired prefetch pins nothing, and is cleaned away */
	ck_assert_int_eq(dl_stage_prefetch(st, &job, l, time(NULL) - 1, &rep),
			 0);
	ck_assert(_job_rec("50.prefetch"));
	ck_assert_int_eq(dl_stage_evict_to(st, 0, &rep), 0);
	ck_assert_uint_eq(rep.evicted, 1);
	ck_assert_uint_eq(dl_stage_prefetch_expire(st), 1);
	ck_assert(!_job_rec("50.prefetch"));

	/* CANCEL drops the pins */
	ck_assert_int_eq(dl_stage_prefetch(st, &job, l, time(NULL) + 60, &rep),
			 0);
	dl_stage_prefetch_drop(st, 50);
	ck_assert(!_job_rec("50.prefetch"));
	ck_assert_int_eq(dl_stage_evict_to(st, 0, &rep), 0);
	ck_assert_uint_eq(rep.evicted, 1);
	dl_filelist_free(l);

	/* a user who cannot read the file: nothing pinned, no note left */
	job.uid = job.gid = OTHER_UID;
	l = _list("mine");
	ck_assert_int_ne(dl_stage_prefetch(st, &job, l, time(NULL) + 60,
					   &rep), 0);
	ck_assert(rep.user_fault);
	ck_assert(!_job_rec("50.prefetch") && !_job_rec("50.failed") &&
		  !_job_rec("50.pins"));
	dl_filelist_free(l);
	dl_stage_close(st);
}
END_TEST

/* A fake service answering one request on dir's socket, in a child. */
static pid_t _fake_service(const char *dir, int lfd, int die)
{
	pid_t pid = fork();

	(void)dir;
	if (pid == 0) {
		dl_net_conn_t c;
		dl_net_frame_t f;
		dl_msg_t m;
		const char *rep = "files=2 hits=1 copied=1 from_peers=1 "
				  "peer_bytes=300000\n";
		int fd;

		if (dl_net_accept(lfd, PEER_WAIT_MS, &fd, NULL, 0))
			_exit(2);
		dl_net_conn_init(&c, fd, NULL, PEER_WAIT_MS);
		if (dl_net_conn_recv(&c, PEER_WAIT_MS, &f, NULL, 0) ||
		    f.type != DL_NET_STAGE ||
		    dl_msg_decode(f.type, f.body, f.body_len, &m, NULL, 0) ||
		    m.job != 8 || m.uid != NOBODY || strcmp(m.user, "-") ||
		    strcmp(m.text, "files:/a,/b"))
			_exit(3);
		if (die)
			_exit(0); /* gone mid-request */
		_exit(dl_net_conn_send(&c, DL_NET_REPORT, rep, strlen(rep),
				       NULL, 0) ? 4 : 0);
	}
	return pid;
}

START_TEST(test_client)
{
	dl_stage_job_t job = { .job_id = 8, .uid = NOBODY, .gid = NOBODY };
	dl_stage_report_t rep;
	char sock[200], why[256], err[256];
	int failed = -1, lfd, status;
	pid_t pid;

	if (!_root())
		return;
	ck_assert_int_eq(mkdir(dir_a, 0700), 0);
	/* no service: the caller stages directly */
	ck_assert_int_eq(dl_stage_client_request(dir_a, &job, "files:/a,/b",
						 &rep, &failed, why,
						 sizeof(why)), DL_ENOENT);
	snprintf(sock, sizeof(sock), "%s/.sock", dir_a);
	ck_assert_int_eq(dl_net_listen_unix(sock, 0600, &lfd, err,
					    sizeof(err)), 0);
	pid = _fake_service(dir_a, lfd, 0);
	ck_assert_int_eq(dl_stage_client_request(dir_a, &job, "files:/a,/b",
						 &rep, &failed, why,
						 sizeof(why)), 0);
	waitpid(pid, &status, 0);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_int_eq(failed, 0);
	ck_assert_uint_eq(rep.files, 2);
	ck_assert_uint_eq(rep.from_peers, 1);
	ck_assert_uint_eq(rep.bytes_peer, 300000);
	/* the service dies mid-request: fall back */
	pid = _fake_service(dir_a, lfd, 1);
	ck_assert_int_eq(dl_stage_client_request(dir_a, &job, "files:/a,/b",
						 &rep, &failed, why,
						 sizeof(why)), DL_EIO);
	waitpid(pid, &status, 0);
	/* a socket nobody listens on: fall back */
	close(lfd);
	ck_assert_int_ne(dl_stage_client_request(dir_a, &job, "files:/a,/b",
						 &rep, &failed, why,
						 sizeof(why)), 0);
}
END_TEST

static void _munged_up(void)
{
	fx_munged_start();
}

/* A PREFETCH of job naming one file, as the controller sends it. */
static dl_msg_t _pf(uint32_t job, const char *path)
{
	dl_msg_t m;

	dl_msg_init(&m, DL_NET_PREFETCH);
	m.job = job;
	ck_assert_ptr_nonnull(dl_msg_add_file(&m, path, 1, 0));
	return m;
}

/*
 * The prefetch queue: arrival order; a replacement keeps its place and
 * its new contents; drops from the middle keep the others' order; a full
 * queue refuses and leaves the message to its owner.
 */
START_TEST(test_pfq)
{
	static cached_pfq_t q; /* 128 messages: not on the stack */
	dl_msg_t m, out;
	uint32_t j;

	memset(&q, 0, sizeof(q));
	ck_assert(!cached_pfq_pop(&q, &out));
	for (j = 1; j <= 4; j++) {
		m = _pf(j, "/s/a");
		ck_assert(cached_pfq_put(&q, &m));
		ck_assert_uint_eq(m.nfiles, 0); /* taken */
	}
	m = _pf(2, "/s/b");
	ck_assert(cached_pfq_put(&q, &m));
	ck_assert_uint_eq(q.n, 4);
	ck_assert(cached_pfq_drop(&q, 3));
	ck_assert(!cached_pfq_drop(&q, 3));
	ck_assert(cached_pfq_pop(&q, &out));
	ck_assert_uint_eq(out.job, 1);
	dl_msg_free(&out);
	ck_assert(cached_pfq_pop(&q, &out));
	ck_assert_uint_eq(out.job, 2);
	ck_assert_str_eq(out.files[0].path, "/s/b");
	dl_msg_free(&out);
	ck_assert(cached_pfq_pop(&q, &out));
	ck_assert_uint_eq(out.job, 4);
	dl_msg_free(&out);
	ck_assert(!cached_pfq_pop(&q, &out));
	for (j = 0; j < CACHED_PFQ_MAX; j++) {
		m = _pf(100 + j, "/s/c");
		ck_assert(cached_pfq_put(&q, &m));
	}
	m = _pf(7, "/s/d");
	ck_assert(!cached_pfq_put(&q, &m));
	ck_assert_uint_eq(m.nfiles, 1);
	dl_msg_free(&m);
	m = _pf(100 + 5, "/s/e"); /* a replacement still fits */
	ck_assert(cached_pfq_put(&q, &m));
	ck_assert_str_eq(q.m[5].files[0].path, "/s/e");
	cached_pfq_clear(&q);
	ck_assert_uint_eq(q.n, 0);
}
END_TEST

/* A port nothing listens on now (bound, then released). */
static uint16_t _free_port(void)
{
	char err[256];
	uint16_t port;
	int fd;

	ck_assert_int_eq(dl_net_listen("127.0.0.1", 0, &fd, err, sizeof(err)),
			 0);
	port = dl_net_local_port(fd);
	close(fd);
	return port;
}

/* Lines of the file at path holding needle. */
static int _count_lines(const char *path, const char *needle)
{
	char line[4096];
	FILE *f = fopen(path, "r");
	int n = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		n += strstr(line, needle) != NULL;
	fclose(f);
	return n;
}

/*
 * A hostile user: holds n idle connections to port as nobody, opening a
 * new one as soon as one is closed, until killed.
 */
static pid_t _flood(uint16_t port, int n, int ready)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
		_exit(2);
	for (int round = 0;; round++) {
		int fd[256];
		char x;

		for (int i = 0; i < n; i++)
			if (dl_net_connect("127.0.0.1", port, 2000, &fd[i],
					   NULL, 0))
				fd[i] = -1;
		if (round == 0 && write(ready, "r", 1) != 1)
			_exit(3);
		/* the service closes them; open as many again */
		for (int i = 0; i < n; i++)
			if (fd[i] >= 0) {
				if (read(fd[i], &x, 1) < 0)
					x = 0;
				close(fd[i]);
			}
	}
}

/*
 * The service for node nB, as dl-cached runs it, its log in log; the
 * squatter's socket is not its own.  It dies with the test.
 */
static pid_t _service(const char *log, int squat)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	close(squat);
	if (!freopen(log, "w", stderr))
		_exit(2);
	setvbuf(stderr, NULL, _IOLBF, 0);
	cached_log_init(true);
	_exit(cached_loop_run(&conf_b));
}

/*
 * Issue 27, findings 3 and 4.  A peer port squatted when the service
 * starts is taken as soon as it is free (the service does not exit); a
 * user flooding it with idle connections, reopened as soon as closed,
 * neither keeps a real peer's copy out nor floods the log.
 */
START_TEST(test_peer_door)
{
	cached_conf_t conf_a = { .node = "nA" };
	cached_source_t s = { .relay = -1, .conf = &conf_a };
	dl_stage_opts_t oa = { .capacity = DL_CACHE_UNLIMITED, .node = "nA" };
	char path[256], log[300], err[256];
	struct timespec t0, t1;
	dl_stage_report_t rep;
	int squat, fd, ready[2], lines;
	pid_t svc, att;
	dl_stage_t *st;
	dl_msg_t loc;
	dl_msg_file_t *f;
	double secs;
	char x;

	if (!_root() || !fx_munged_ok("check_cached"))
		return;
	dl_stage_close(_stage(dir_b, &conf_b.opts, "f", &rep));
	snprintf(conf_b.controller, sizeof(conf_b.controller), "127.0.0.1");
	conf_b.service_port = _free_port();
	conf_b.peer_port = _free_port();
	ck_assert_int_eq(dl_net_listen(NULL, conf_b.peer_port, &squat, err,
				       sizeof(err)), 0);
	snprintf(log, sizeof(log), "%s/service.log", base);
	svc = _service(log, squat);
	/* squatted: the service says so and keeps running */
	while (!_count_lines(log, "trying again")) {
		ck_assert_int_eq(waitpid(svc, NULL, WNOHANG), 0);
		usleep(20000);
	}
	close(squat);
	while (dl_net_connect("127.0.0.1", conf_b.peer_port, 2000, &fd, NULL,
			      0)) {
		ck_assert_int_eq(waitpid(svc, NULL, WNOHANG), 0);
		usleep(50000);
	}
	close(fd);
	while (!_count_lines(log, "listening on peer port")) {
		ck_assert_int_eq(waitpid(svc, NULL, WNOHANG), 0);
		usleep(20000);
	}

	/* 200 idle connections, reopened as soon as closed */
	ck_assert_int_eq(pipe(ready), 0);
	att = _flood(conf_b.peer_port, 200, ready[1]);
	ck_assert_int_eq(read(ready[0], &x, 1), 1);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	conf_a.auth = conf_b.auth;
	snprintf(path, sizeof(path), "%s/f", src);
	dl_msg_init(&loc, DL_NET_LOCATED);
	f = dl_msg_add_file(&loc, path, 0, 0);
	dl_msg_file_add_peer(f, "nB", "127.0.0.1", conf_b.peer_port);
	s.located = &loc;
	oa.fetch = cached_peer_fetch;
	oa.fetch_arg = &s;
	/* a real peer's copy goes through the flood */
	st = _stage(dir_a, &oa, "f", &rep);
	ck_assert_uint_eq(rep.from_peers, 1);
	dl_stage_close(st);
	sleep(3); /* the flood goes on; what matters is what it logged */
	kill(att, SIGKILL);
	ck_assert_int_eq(waitpid(att, NULL, 0), att);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (double)(t1.tv_sec - t0.tv_sec) +
	       (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	lines = _count_lines(log, "silent for") +
		_count_lines(log, "rejected") +
		_count_lines(log, "wait to speak");
	/*
	 * At most CACHED_LOG_BURST a second: the seconds begun count, and
	 * the connections left when the flood stopped close within 1 s
	 * more.  Some are logged: the flood is seen.
	 */
	ck_assert_msg(lines >= 1 &&
			      lines <= CACHED_LOG_BURST * ((int)secs + 4),
		      "%d lines about the flood in %.1f s", lines, secs);
	ck_assert_int_ge(_count_lines(log, "not logged"), 1);
	ck_assert_int_eq(waitpid(svc, NULL, WNOHANG), 0);
	kill(svc, SIGTERM);
	ck_assert_int_eq(waitpid(svc, NULL, 0), svc);
	close(ready[0]);
	close(ready[1]);
	dl_msg_free(&loc);
	dl_msg_free(&s.cache);
}
END_TEST

Suite *make_cached_suite(void)
{
	Suite *s = suite_create("cached");
	TCase *tc = tcase_create("peer");

	tcase_add_unchecked_fixture(tc, _munged_up, fx_munged_stop);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_peer_check);
	tcase_add_test(tc, test_peer_stream);
	tcase_add_test(tc, test_peer_fetch);
	tcase_add_test(tc, test_ctl_inventory_delta);
	tcase_add_test(tc, test_ctl_outbox_across_restart);
	tcase_add_test(tc, test_outbox);
	tcase_add_test(tc, test_prefetch_pins);
	tcase_add_test(tc, test_prefetch_budget);
	tcase_add_test(tc, test_client);
	tcase_add_test(tc, test_pfq);
	tcase_add_test(tc, test_peer_waits_for_copy);
	suite_add_tcase(s, tc);
	/* a service, a squatter and a flood: waits on conditions only */
	tc = tcase_create("door");
	tcase_add_unchecked_fixture(tc, _munged_up, fx_munged_stop);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_peer_door);
	suite_add_tcase(s, tc);
	return s;
}
