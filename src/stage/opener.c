/* opener.c - a helper process that opens files as the job's user. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dl_error.h"
#include "opener.h"

/* Longest request: a path of DL_PATH_MAX (4096) bytes with its NUL. */
#define REQ_MAX 4096
#define MAX_GROUPS 65536
#define DEFAULT_TIMEOUT_S 60

struct dl_opener {
	pid_t pid;          /* -1 once reaped */
	int sock;
	unsigned timeout_s;
	bool failed;        /* killed, stopped or gone: no more requests */
	char why[160];      /* what happened, for dl_opener_failure() */
};

/*
 * Wait until the helper's answer (or its end) can be read.
 * \return 1 readable, 0 timed out, -1 on a poll() error.
 */
static int _wait_reply(dl_opener_t *op)
{
	struct timespec t0, now;
	long left_ms = (long)op->timeout_s * 1000;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct pollfd p = {.fd = op->sock, .events = POLLIN};
		int n = poll(&p, 1, (int)left_ms);

		if (n > 0)
			return 1;
		if (n == 0)
			return 0;
		if (errno != EINTR)
			return -1;
		clock_gettime(CLOCK_MONOTONIC, &now);
		left_ms = (long)op->timeout_s * 1000 -
			  ((now.tv_sec - t0.tv_sec) * 1000 +
			   (now.tv_nsec - t0.tv_nsec) / 1000000);
		if (left_ms <= 0)
			return 0;
	}
}

/*
 * The helper failed a request: end it for good (it runs as the user, who
 * may have stopped it) and say what happened.
 * IN timed_out - it did not answer in time (else it was gone)
 */
static void _finish(dl_opener_t *op, bool timed_out)
{
	int status = 0;
	pid_t r;

	op->failed = true;
	if (op->pid > 0) {
		kill(op->pid, SIGKILL);
		while ((r = waitpid(op->pid, &status, 0)) < 0 && errno == EINTR)
			;
		op->pid = -1;
		if (r < 0)
			status = 0;
	}
	if (timed_out)
		snprintf(op->why, sizeof(op->why),
			 "did not answer within %u s (stopped?)",
			 op->timeout_s);
	else if (WIFSIGNALED(status))
		snprintf(op->why, sizeof(op->why),
			 "was killed by signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	else
		snprintf(op->why, sizeof(op->why),
			 "ended unexpectedly (exit status %d)",
			 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

const char *dl_opener_failure(const dl_opener_t *op)
{
	return op && op->failed ? op->why : "";
}

/*
 * The helper: answer each request (a path) with its errno as an int, and
 * on success the descriptor attached.  Runs until the caller closes the
 * socket.
 */
static void _serve(int sock)
{
	char path[REQ_MAX + 1];

	for (;;) {
		ssize_t n = recv(sock, path, REQ_MAX, 0);
		struct msghdr mh = {0};
		struct iovec iov;
		union {
			struct cmsghdr h;
			char buf[CMSG_SPACE(sizeof(int))];
		} cm;
		int fd, e = 0;

		if (n <= 0)
			_exit(0);
		path[n] = '\0';
		fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		if (fd < 0)
			e = errno;
		iov.iov_base = &e;
		iov.iov_len = sizeof(e);
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		if (fd >= 0) {
			memset(&cm, 0, sizeof(cm));
			mh.msg_control = cm.buf;
			mh.msg_controllen = sizeof(cm.buf);
			cm.h.cmsg_level = SOL_SOCKET;
			cm.h.cmsg_type = SCM_RIGHTS;
			cm.h.cmsg_len = CMSG_LEN(sizeof(int));
			memcpy(CMSG_DATA(&cm.h), &fd, sizeof(int));
		}
		if (sendmsg(sock, &mh, MSG_NOSIGNAL) < 0)
			_exit(1);
		if (fd >= 0)
			close(fd);
	}
}

/* In the child: become the user for good.  \return 0 or an errno. */
static int _drop(uid_t uid, gid_t gid, const gid_t *groups, int ngroups)
{
	if (geteuid() != 0)
		return 0; /* the caller checked that uid is our own */
	if (setgroups((size_t)ngroups, groups) || setresgid(gid, gid, gid) ||
	    setresuid(uid, uid, uid))
		return errno;
	if (uid != 0 && (setuid(0) == 0 || seteuid(0) == 0))
		return EPERM; /* privileges must be gone for good */
	/*
	 * The kernel already made us non-dumpable when the ids changed; say
	 * it anyway: the user must not ptrace the helper into handing the
	 * caller other descriptors than those it asked for.
	 */
	prctl(PR_SET_DUMPABLE, 0);
	return 0;
}

/*
 * The child's first message says whether it could drop its privileges.
 * A child that died of a signal or did not answer was killed or stopped,
 * which after the drop its user can do: DL_ETIMEDOUT, not the node's fault.
 */
static int _started(dl_opener_t *op, uid_t uid, gid_t gid, dl_opener_t **out,
		    char *err, size_t errlen)
{
	int e = 0, w = _wait_reply(op);
	ssize_t n = w > 0 ? recv(op->sock, &e, sizeof(e), 0) : -1;

	if (n != (ssize_t)sizeof(e)) {
		bool sig;

		_finish(op, w == 0);
		sig = w == 0 || !strncmp(op->why, "was killed", 10);
		snprintf(err, errlen, "%s at start-up", op->why);
		dl_opener_stop(op);
		return sig ? DL_ETIMEDOUT : DL_EIO;
	}
	if (e) {
		snprintf(err, errlen,
			 "cannot switch to uid %u gid %u: %s", (unsigned)uid,
			 (unsigned)gid, strerror(e));
		dl_opener_stop(op);
		return DL_EIO;
	}
	*out = op;
	return 0;
}

/*
 * The user's groups.  Looked up here, not in the child: the child then
 * does nothing but drop privileges and open files.
 * \return a malloc'd array of *n groups, or NULL (no memory).
 */
static gid_t *_groups(const char *user, gid_t gid, int *n)
{
	gid_t *groups = NULL;
	int ngroups = 64;

	if (!user || !*user) {
		groups = malloc(sizeof(*groups));
		if (groups)
			groups[0] = gid;
		*n = 1;
		return groups;
	}
	for (;;) {
		gid_t *g = realloc(groups, sizeof(*g) * (size_t)ngroups);
		int want = ngroups;

		if (!g) {
			free(groups);
			return NULL;
		}
		groups = g;
		if (getgrouplist(user, gid, groups, &want) >= 0) {
			*n = want;
			return groups;
		}
		if (want <= ngroups || want > MAX_GROUPS) {
			*n = 1; /* unknown user: only gid */
			groups[0] = gid;
			return groups;
		}
		ngroups = want;
	}
}

/* In the child: keep only the socket, drop to the user, serve. */
static void _child(int keep, pid_t parent, uid_t uid, gid_t gid,
		   const gid_t *groups, int ngroups)
{
	int e;

	/* No cache directory descriptors, no locks of the caller. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1); /* the caller died before prctl() */
	for (int fd = 3; fd < keep; fd++)
		close(fd);
#ifdef SYS_close_range
	syscall(SYS_close_range, keep + 1, ~0U, 0);
#else
	for (int fd = keep + 1; fd < 1024; fd++)
		close(fd);
#endif
	e = _drop(uid, gid, groups, ngroups);
	if (send(keep, &e, sizeof(e), MSG_NOSIGNAL) < 0 || e)
		_exit(1);
	_serve(keep);
	_exit(0);
}

int dl_opener_start(uid_t uid, gid_t gid, const char *user,
		    unsigned timeout_s, dl_opener_t **out, char *err,
		    size_t errlen)
{
	gid_t *groups;
	int ngroups = 1, sv[2];
	dl_opener_t *op;
	pid_t pid, parent = getpid();

	if (!out)
		return DL_EINVAL;
	*out = NULL;
	if (geteuid() != 0 && uid != geteuid()) {
		snprintf(err, errlen,
			 "must run as root to open files as uid %u",
			 (unsigned)uid);
		return DL_EPERM;
	}
	groups = _groups(user, gid, &ngroups);
	op = groups ? calloc(1, sizeof(*op)) : NULL;
	if (!op) {
		free(groups);
		return DL_ENOMEM;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
		snprintf(err, errlen, "socketpair: %s", strerror(errno));
		free(groups);
		free(op);
		return DL_EIO;
	}
	pid = fork();
	if (pid == 0)
		_child(sv[1], parent, uid, gid, groups, ngroups);
	free(groups);
	close(sv[1]);
	if (pid < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		close(sv[0]);
		free(op);
		return DL_EIO;
	}
	op->pid = pid;
	op->sock = sv[0];
	op->timeout_s = timeout_s ? timeout_s : DEFAULT_TIMEOUT_S;
	return _started(op, uid, gid, out, err, errlen);
}

/* The status for a failed open() in the helper. */
static int _open_errno(int e)
{
	switch (e) {
	case EACCES:
	case EPERM:
		return DL_EPERM;
	case ENOENT:
	case ENOTDIR:
		return DL_ENOENT;
	default:
		return DL_EINVAL;
	}
}

/* Receive one answer: its errno and the descriptor (or -1) attached. */
static ssize_t _recv_answer(dl_opener_t *op, int *e, int *got)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} cm;
	struct msghdr mh = {0};
	struct cmsghdr *c;
	struct iovec iov = {.iov_base = e, .iov_len = sizeof(*e)};
	ssize_t n;

	*got = -1;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cm.buf;
	mh.msg_controllen = sizeof(cm.buf);
	do
		n = recvmsg(op->sock, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return n;
	for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
		    c->cmsg_len == CMSG_LEN(sizeof(int)))
			memcpy(got, CMSG_DATA(c), sizeof(int));
	return n;
}

int dl_opener_open(dl_opener_t *op, const char *path, int *fd,
		   int *sys_errno)
{
	size_t len;
	int e = 0, got = -1, fl, w;
	ssize_t n;

	if (sys_errno)
		*sys_errno = 0;
	if (!op || !path || !fd)
		return DL_EINVAL;
	*fd = -1;
	len = strlen(path);
	if (len == 0 || len >= REQ_MAX)
		return DL_EINVAL;
	if (op->failed)
		return DL_ETIMEDOUT;
	/* One request at a time: the socket's buffer always has room. */
	if (send(op->sock, path, len, MSG_NOSIGNAL | MSG_DONTWAIT) !=
	    (ssize_t)len) {
		_finish(op, errno == EAGAIN);
		return DL_ETIMEDOUT;
	}
	w = _wait_reply(op);
	n = w > 0 ? _recv_answer(op, &e, &got) : -1;
	if (n != sizeof(e) || (!e && got < 0)) {
		if (got >= 0)
			close(got);
		_finish(op, w == 0);
		return DL_ETIMEDOUT;
	}
	if (e) {
		if (got >= 0)
			close(got);
		if (sys_errno)
			*sys_errno = e;
		return _open_errno(e);
	}
	fl = fcntl(got, F_GETFL);
	if (fl >= 0)
		fcntl(got, F_SETFL, fl & ~O_NONBLOCK);
	*fd = got;
	return 0;
}

void dl_opener_stop(dl_opener_t *op)
{
	int status;

	if (!op)
		return;
	close(op->sock);
	if (op->pid > 0) {
		kill(op->pid, SIGKILL);
		while (waitpid(op->pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	free(op);
}
