/*
 * sock.c - connecting and accepting: TCP with deadlines for the
 * controller and the peers, a Unix socket for dl-stage.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "dl_error.h"
#include "dl_net.h"
#include "net_int.h"

static int _set_blocking(int fd, int blocking)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0)
		return DL_EIO;
	fl = blocking ? fl & ~O_NONBLOCK : fl | O_NONBLOCK;
	return fcntl(fd, F_SETFL, fl) ? DL_EIO : 0;
}

/* Non-blocking connect() finished before deadline: 0 or an error. */
static int _connect_wait(int fd, const struct sockaddr *sa, socklen_t len,
			 int64_t deadline)
{
	int rc, soerr = 0;
	socklen_t sl = sizeof(soerr);

	if (_set_blocking(fd, 0))
		return DL_EIO;
	if (connect(fd, sa, len) && errno != EINPROGRESS)
		return errno == ENOENT || errno == ECONNREFUSED ? DL_ENOENT :
								  DL_EIO;
	if ((rc = dl__net_wait(fd, POLLOUT, deadline)))
		return rc;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) || soerr) {
		errno = soerr;
		return soerr == ECONNREFUSED ? DL_ENOENT : DL_EIO;
	}
	return _set_blocking(fd, 1);
}

int dl_net_connect(const char *host, uint16_t port, int timeout_ms,
		   int *fd, char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *ai;
	int64_t deadline = dl__net_deadline(timeout_ms);
	char service[8];
	int rc = DL_EIO, s, one = 1, gai;

	snprintf(service, sizeof(service), "%u", port);
	if ((gai = getaddrinfo(host, service, &hints, &res))) {
		dl__net_err(err, errlen, "%s: %s", host, gai_strerror(gai));
		return DL_ENOENT;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		s = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
			   ai->ai_protocol);
		if (s < 0)
			continue;
		rc = _connect_wait(s, ai->ai_addr, ai->ai_addrlen, deadline);
		if (!rc) {
			setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one,
				   sizeof(one));
			*fd = s;
			break;
		}
		dl__net_err(err, errlen, "connect to %s:%u: %s", host, port,
			    rc == DL_ETIMEDOUT ? "timed out" : strerror(errno));
		close(s);
		if (rc == DL_ETIMEDOUT)
			break;
	}
	freeaddrinfo(res);
	return rc == DL_ENOENT ? DL_EIO : rc;
}

/* A listening socket on one address; \return it or -1 (errno set). */
static int _listen_one(const struct addrinfo *ai)
{
	int s = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int one = 1, zero = 0, e;

	if (s < 0)
		return -1;
	/* both families on one socket where the host has IPv6 */
	if (ai->ai_family == AF_INET6)
		setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	if (setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(s, ai->ai_addr, ai->ai_addrlen) || listen(s, 128)) {
		e = errno;
		close(s);
		errno = e;
		return -1;
	}
	return s;
}

int dl_net_listen(const char *addr, uint16_t port, int *fd, char *err,
		  size_t errlen)
{
	/* all addresses: IPv6 (dual stack) first, IPv4 if there is none */
	static const int fams[] = { AF_INET6, AF_INET };
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE };
	struct addrinfo *res;
	char service[8];
	int s = -1, gai = 0, e = 0;

	snprintf(service, sizeof(service), "%u", port);
	for (size_t i = 0; s < 0 && i < (addr ? 1 : 2); i++) {
		hints.ai_family = addr ? AF_UNSPEC : fams[i];
		if ((gai = getaddrinfo(addr, service, &hints, &res)))
			continue;
		s = _listen_one(res);
		e = errno;
		freeaddrinfo(res);
		/* a taken port is taken in both families */
		if (s < 0 && e == EADDRINUSE)
			break;
	}
	if (s < 0) {
		dl__net_err(err, errlen, "listen on %s:%u: %s",
			    addr ? addr : "*", port,
			    gai && !e ? gai_strerror(gai) : strerror(e));
		return DL_EIO;
	}
	*fd = s;
	return 0;
}

uint16_t dl_net_local_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len))
		return 0;
	if (ss.ss_family == AF_INET)
		return ntohs(((struct sockaddr_in *)&ss)->sin_port);
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return 0;
}

/* "address:port" of a peer address; IPv4-mapped addresses as IPv4. */
static void _who(const struct sockaddr_storage *ss, char *who, size_t len)
{
	char a[INET6_ADDRSTRLEN] = "?";
	unsigned port = 0;

	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)ss;

		inet_ntop(AF_INET, &in->sin_addr, a, sizeof(a));
		port = ntohs(in->sin_port);
	} else if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const void *)ss;

		inet_ntop(AF_INET6, &in6->sin6_addr, a, sizeof(a));
		if (!strncmp(a, "::ffff:", 7) && strchr(a + 7, '.'))
			memmove(a, a + 7, strlen(a + 7) + 1);
		port = ntohs(in6->sin6_port);
	} else if (ss->ss_family == AF_UNIX) {
		snprintf(a, sizeof(a), "local");
	}
	snprintf(who, len, "%s:%u", a, port);
}

int dl_net_accept(int lfd, int timeout_ms, int *fd, char *who,
		  size_t who_len)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	int rc, s;

	for (;;) {
		rc = dl__net_wait(lfd, POLLIN, dl__net_deadline(timeout_ms));
		if (rc)
			return rc;
		s = accept4(lfd, (struct sockaddr *)&ss, &len, SOCK_CLOEXEC);
		if (s >= 0)
			break;
		if (errno != EINTR && errno != EAGAIN &&
		    errno != ECONNABORTED)
			return DL_EIO;
	}
	if (ss.ss_family != AF_UNIX) {
		int one = 1;

		setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	}
	if (who && who_len)
		_who(&ss, who, who_len);
	*fd = s;
	return 0;
}

static int _unix_addr(const char *path, struct sockaddr_un *sun)
{
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sun->sun_path))
		return DL_ERANGE;
	strcpy(sun->sun_path, path);
	return 0;
}

int dl_net_listen_unix(const char *path, mode_t mode, int *fd, char *err,
		       size_t errlen)
{
	struct sockaddr_un sun;
	int s;

	if (_unix_addr(path, &sun)) {
		dl__net_err(err, errlen, "%s: path too long", path);
		return DL_ERANGE;
	}
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		goto fail;
	/* The socket file takes the mode of the socket at bind(). */
	if (fchmod(s, mode))
		goto fail;
	if (unlink(path) && errno != ENOENT)
		goto fail;
	if (bind(s, (struct sockaddr *)&sun, sizeof(sun)) ||
	    chmod(path, mode) || listen(s, 64))
		goto fail;
	*fd = s;
	return 0;
fail:
	dl__net_err(err, errlen, "%s: %s", path, strerror(errno));
	if (s >= 0)
		close(s);
	return DL_EIO;
}

int dl_net_connect_unix(const char *path, int timeout_ms, int *fd,
			char *err, size_t errlen)
{
	struct sockaddr_un sun;
	int s, rc;

	if (_unix_addr(path, &sun)) {
		dl__net_err(err, errlen, "%s: path too long", path);
		return DL_ERANGE;
	}
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0) {
		dl__net_err(err, errlen, "socket: %s", strerror(errno));
		return DL_EIO;
	}
	rc = _connect_wait(s, (struct sockaddr *)&sun, sizeof(sun),
			   dl__net_deadline(timeout_ms));
	if (rc) {
		dl__net_err(err, errlen, "%s: %s", path,
			    rc == DL_ETIMEDOUT ? "timed out" : strerror(errno));
		close(s);
		return rc;
	}
	*fd = s;
	return 0;
}

int dl_net_peer_uid(int fd, uid_t *uid)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) ||
	    len != sizeof(cr))
		return DL_EIO;
	*uid = cr.uid;
	return 0;
}
