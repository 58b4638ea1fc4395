/*
 * peer.c - copies between the caches of two nodes (PROTOCOL "Peer
 * copies").  The fetching side has already opened the source as the
 * job's user (the stage library did, and fstat()ed it): a user who cannot
 * read a file gets nothing from anyone.  The serving side refuses unless
 * its copy is of exactly that version (size, inode, mtime, ctime) with a
 * known digest, and it can open the source as that uid/gid itself with
 * the same identity.  The fetcher hashes what comes and keeps it only if
 * length and digest match; any doubt and the copy comes from storage.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cached.h"
#include "dl_error.h"
#include "opener.h"
#include "sha256.h"

#define BUF (256 * 1024)

static int64_t _ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;
}

int cached_peer_stream(int fd, int out, uint64_t size, const char *sha,
		       int timeout_ms)
{
	char *buf = malloc(BUF), hex[DL_SHA256_HEX_LEN];
	dl_sha256_ctx_t c;
	uint64_t left = size;
	int rc = 0;

	if (!buf)
		return -1;
	dl_sha256_init(&c);
	while (left && !rc) {
		size_t n = left < BUF ? (size_t)left : BUF;

		/* the deadline is per buffer: a stalled peer gives up soon */
		if (dl_net_read_full(fd, buf, n, timeout_ms) ||
		    write(out, buf, n) != (ssize_t)n)
			rc = -1;
		else
			dl_sha256_update(&c, buf, n);
		left -= n;
	}
	free(buf);
	if (rc)
		return -1;
	dl_sha256_final_hex(&c, hex);
	return strcmp(hex, sha) ? -1 : 0;
}

/* One FETCH to one peer; \return 0 with out filled and sha set. */
static int _fetch_one(const cached_conf_t *conf, const dl_msg_peer_t *p,
		      const char *body, size_t blen, const struct stat *sb,
		      int out, char *sha, int64_t *verified_ns)
{
	dl_net_conn_t c;
	dl_net_frame_t f = { 0 };
	dl_msg_t m;
	char err[256] = "";
	int fd, rc = -1;

	if (dl_net_connect(p->host, p->port, CACHED_CONNECT_TIMEOUT, &fd, err,
			   sizeof(err))) {
		cached_log(4, "peer %s: %s", p->node, err);
		return -1;
	}
	dl_net_conn_init(&c, fd, &conf->auth, CACHED_NET_TIMEOUT);
	/* not even the path goes to a peer that did not prove itself */
	if (dl_net_conn_handshake(&c, err, sizeof(err)) ||
	    dl_net_conn_await_proof(&c, CACHED_NET_TIMEOUT, err,
				    sizeof(err)) ||
	    dl_net_conn_send(&c, DL_NET_FETCH, body, blen, err, sizeof(err)) ||
	    dl_net_conn_recv(&c, CACHED_NET_TIMEOUT, &f, err, sizeof(err)) ||
	    dl_msg_decode(f.type, f.body, f.body_len, &m, err, sizeof(err))) {
		cached_log(4, "peer %s: %s", p->node, err);
		goto out;
	}
	if (f.type == DL_NET_FETCH_REFUSED) {
		cached_log(6, "peer %s refused: %s", p->node,
			   m.text ? m.text : "");
	} else if (f.type != DL_NET_FETCH_OK ||
		   m.size != (uint64_t)sb->st_size) {
		cached_log(4, "peer %s: answered %s of %" PRIu64 " bytes, "
			   "not the %lld wanted", p->node,
			   dl_net_type_name(f.type), m.size,
			   (long long)sb->st_size);
	} else if (cached_peer_stream(fd, out, m.size, m.sha256,
				      CACHED_NET_TIMEOUT)) {
		cached_log(4, "peer %s: short, slow or wrong content "
			   "(length or SHA-256 mismatch)", p->node);
	} else {
		memcpy(sha, m.sha256, DL_SHA256_HEX_LEN);
		*verified_ns = m.verified_ns;
		rc = 0;
	}
	dl_msg_free(&m);
out:
	dl_net_frame_free(&f);
	close(fd);
	return rc;
}

/* The peers of path: from what we were given, or a LOCATE via relay. */
static const dl_msg_file_t *_peers_of(cached_source_t *s, const char *path)
{
	const dl_msg_t *lists[2] = { s->located, &s->cache };
	dl_net_conn_t rc;
	dl_net_frame_t f;
	dl_msg_t m;
	char body[DL_MSG_PATH_MAX + 16];
	int n;

	for (int l = 0; l < 2; l++)
		for (size_t i = 0; lists[l] && i < lists[l]->nfiles; i++)
			if (!strcmp(lists[l]->files[i].path, path))
				return &lists[l]->files[i];
	if (s->located || s->relay < 0)
		return NULL;
	n = snprintf(body, sizeof(body), "req=0\n%s\n", path);
	dl_net_conn_init(&rc, s->relay, NULL, CACHED_LOCATE_TIMEOUT);
	if (n < 0 || (size_t)n >= sizeof(body) ||
	    dl_net_conn_send(&rc, DL_NET_LOCATE, body, (size_t)n, NULL, 0) ||
	    dl_net_conn_recv(&rc, CACHED_LOCATE_TIMEOUT, &f, NULL, 0))
		return NULL;
	if (f.type == DL_NET_LOCATED &&
	    !dl_msg_decode(f.type, f.body, f.body_len, &m, NULL, 0)) {
		for (size_t i = 0; i < m.nfiles; i++) {
			dl_msg_file_t *d = dl_msg_add_file(&s->cache,
							   m.files[i].path, 0,
							   0);

			for (size_t j = 0; d && j < m.files[i].npeers; j++)
				dl_msg_file_add_peer(d, m.files[i].peers[j].node,
						     m.files[i].peers[j].host,
						     m.files[i].peers[j].port);
		}
		dl_msg_free(&m);
	}
	dl_net_frame_free(&f);
	for (size_t i = 0; i < s->cache.nfiles; i++)
		if (!strcmp(s->cache.files[i].path, path))
			return &s->cache.files[i];
	return NULL;
}

int cached_peer_fetch(void *arg, const dl_stage_job_t *job, const char *path,
		      const struct stat *sb, int out,
		      char sha[DL_SHA256_HEX_LEN], int64_t *verified_ns)
{
	cached_source_t *s = arg;
	const dl_msg_file_t *f = _peers_of(s, path);
	dl_msg_t req;
	char *body;
	size_t blen;
	int tries = 0, rc = -1;

	if (!f || !f->npeers)
		return -1;
	dl_msg_init(&req, DL_NET_FETCH);
	req.uid = job->uid;
	req.gid = job->gid;
	/* "-": no name known (the peer then uses the uid's own groups) */
	snprintf(req.user, sizeof(req.user), "%s",
		 job->user && *job->user ? job->user : "-");
	req.size = (uint64_t)sb->st_size;
	req.ino = (uint64_t)sb->st_ino;
	req.mtime_ns = _ns(&sb->st_mtim);
	req.ctime_ns = _ns(&sb->st_ctim);
	if (dl_msg_set_path(&req, path) ||
	    dl_msg_encode(&req, &body, &blen, NULL, 0)) {
		cached_log(4, "%s: cannot ask peers for it", path);
		dl_msg_free(&req);
		return -1;
	}
	dl_msg_free(&req);
	for (size_t i = 0; rc && i < f->npeers && tries < CACHED_PEER_TRIES;
	     i++) {
		if (!strcmp(f->peers[i].node, s->conf->node))
			continue; /* the controller's model may lag */
		if (tries++ && (ftruncate(out, 0) || lseek(out, 0, SEEK_SET)))
			break;
		rc = _fetch_one(s->conf, &f->peers[i], body, blen, sb, out,
				sha, verified_ns);
		if (!rc)
			cached_log(6, "%s: %lld bytes from peer %s", path,
				   (long long)sb->st_size, f->peers[i].node);
	}
	free(body);
	return rc;
}

/* The requested identity of the source, against a stat of it. */
static bool _same(const dl_msg_t *req, uint64_t size, uint64_t ino,
		  int64_t mtime_ns, int64_t ctime_ns)
{
	return req->size == size && req->ino == ino &&
	       req->mtime_ns == mtime_ns && req->ctime_ns == ctime_ns;
}

/* Whether the requester's uid/gid can open the source here, unchanged. */
static int _user_can_read(const dl_msg_t *req, unsigned timeout_s, char *why,
			  size_t whylen)
{
	dl_opener_t *op = NULL;
	struct stat sb;
	char err[256] = "";
	int fd = -1, e = 0, rc = -1;

	if (dl_opener_start((uid_t)req->uid, (gid_t)req->gid,
			    strcmp(req->user, "-") ? req->user : NULL, timeout_s, &op,
			    err, sizeof(err))) {
		snprintf(why, whylen, "cannot act as uid %" PRIu64 ": %s",
			 req->uid, err);
		return -1;
	}
	if (dl_opener_open(op, req->path, &fd, &e))
		snprintf(why, whylen, "uid %" PRIu64 " cannot open %s here: %s",
			 req->uid, req->path, strerror(e));
	else if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) ||
		 !_same(req, (uint64_t)sb.st_size, (uint64_t)sb.st_ino,
			_ns(&sb.st_mtim), _ns(&sb.st_ctim)))
		snprintf(why, whylen, "%s here is another version",
			 req->path);
	else
		rc = 0;
	if (fd >= 0)
		close(fd);
	dl_opener_stop(op);
	return rc;
}

int cached_peer_check(dl_stage_t *st, const dl_msg_t *req, unsigned timeout_s,
		      int *fd, char sha[DL_SHA256_HEX_LEN],
		      int64_t *verified_ns, char *why, size_t whylen)
{
	dl_stage_entry_t e;
	int cfd;

	if (req->uid == 0 || req->gid == 0) {
		snprintf(why, whylen, "no copies for root");
		return -1;
	}
	if (dl_stage_lookup(st, req->path, &e, &cfd)) {
		snprintf(why, whylen, "%s is not cached here", req->path);
		return -1;
	}
	if (!_same(req, e.size, e.ino, e.mtime_ns, e.ctime_ns) || !e.sha[0]) {
		snprintf(why, whylen, "the copy of %s here is of another "
			 "version or has no digest", req->path);
		goto refuse;
	}
	if (_user_can_read(req, timeout_s, why, whylen))
		goto refuse;
	memcpy(sha, e.sha, DL_SHA256_HEX_LEN);
	*verified_ns = e.verified_ns;
	dl_stage_entry_clear(&e);
	*fd = cfd;
	return 0;
refuse:
	dl_stage_entry_clear(&e);
	close(cfd);
	return -1;
}

/* Stream the copy after FETCH_OK. */
static int _send_copy(int sock, int fd, uint64_t size)
{
	char *buf = malloc(BUF);
	uint64_t left = size;
	ssize_t n;

	if (!buf)
		return -1;
	while (left) {
		n = read(fd, buf, left < BUF ? (size_t)left : BUF);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || dl_net_write_full(sock, buf, (size_t)n,
						 CACHED_NET_TIMEOUT))
			break;
		left -= (uint64_t)n;
	}
	free(buf);
	return left ? -1 : 0;
}

/*
 * Wait while req's file is not cached here but on its way (copied now, or
 * by a queued prefetch), CACHED_INFLIGHT_WAIT ms at most; the check that
 * follows decides.  Root's requests are refused anyway: no wait.
 */
static void _await_copy(dl_stage_t *st, const dl_msg_t *req,
			cached_queued_fn queued, void *qarg)
{
	int64_t until = cached_now_ms() + CACHED_INFLIGHT_WAIT;
	dl_stage_entry_t e;
	int fd;

	if (req->uid == 0 || req->gid == 0)
		return;
	while (dl_stage_lookup(st, req->path, &e, &fd)) {
		if (cached_now_ms() >= until ||
		    (!dl_stage_copying(st, req->path) &&
		     !(queued && queued(qarg, req->path))))
			return;
		usleep(10000);
	}
	dl_stage_entry_clear(&e);
	close(fd);
}

int cached_peer_serve(const cached_conf_t *c, const dl_net_auth_t *auth,
		      int fd, const char *who, cached_queued_fn queued,
		      void *qarg)
{
	char err[256] = "", why[512] = "", sha[DL_SHA256_HEX_LEN] = "";
	int64_t verified = 0;
	char *body;
	dl_net_frame_t f = { 0 };
	dl_stage_t *st = NULL;
	dl_net_conn_t conn;
	dl_msg_t req, ans;
	size_t blen;
	int cfd = -1, rc = -1;

	/* a real peer sends its FETCH at once: strangers get little time */
	dl_net_conn_init(&conn, fd, auth, CACHED_AUTH_TIMEOUT);
	if (dl_net_conn_handshake(&conn, err, sizeof(err)) ||
	    dl_net_conn_prove(&conn, err, sizeof(err)) ||
	    dl_net_conn_recv(&conn, CACHED_AUTH_TIMEOUT, &f, err,
			     sizeof(err))) {
		cached_log_limited(CACHED_LOG_PEER, 4, "peer %s: rejected: %s",
				   who, err);
		return -1;
	}
	if (f.type != DL_NET_FETCH ||
	    dl_msg_decode(f.type, f.body, f.body_len, &req, err,
			  sizeof(err))) {
		cached_log_limited(CACHED_LOG_PEER, 4,
				   "peer %s: rejected %s: %s", who,
				   dl_net_type_name(f.type),
				   err[0] ? err : "not FETCH");
		dl_net_frame_free(&f);
		return -1;
	}
	dl_net_frame_free(&f);
	conn.timeout_ms = CACHED_NET_TIMEOUT;
	if (dl_stage_open(c->cache_dir, &c->opts, 0, &st, err, sizeof(err)))
		snprintf(why, sizeof(why), "no cache here: %s", err);
	else {
		_await_copy(st, &req, queued, qarg);
		rc = cached_peer_check(st, &req, c->opts.open_timeout ?
							 c->opts.open_timeout :
							 60,
				       &cfd, sha, &verified, why,
				       sizeof(why));
	}
	dl_stage_close(st);
	dl_msg_init(&ans, rc ? DL_NET_FETCH_REFUSED : DL_NET_FETCH_OK);
	ans.size = req.size;
	ans.verified_ns = verified;
	memcpy(ans.sha256, sha, sizeof(sha));
	if (rc)
		dl_msg_set_text(&ans, why);
	if (!dl_msg_encode(&ans, &body, &blen, err, sizeof(err))) {
		if (dl_net_conn_send(&conn, ans.type, body, blen, err,
				     sizeof(err)))
			rc = -1;
		free(body);
	}
	if (!rc)
		rc = _send_copy(fd, cfd, req.size);
	cached_log(6, "peer %s: %s %s%s%s", who, req.path,
		   rc ? "refused" : "served", rc ? ": " : "", rc ? why : "");
	if (cfd >= 0)
		close(cfd);
	dl_msg_free(&ans);
	dl_msg_free(&req);
	return rc;
}
