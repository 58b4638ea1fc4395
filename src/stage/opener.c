/* opener.c - a helper process that opens files as the job's user. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dl_error.h"
#include "opener.h"

/* Longest request: a path of DL_PATH_MAX (4096) bytes with its NUL. */
#define REQ_MAX 4096
#define MAX_GROUPS 65536

struct dl_opener {
	pid_t pid;
	int sock;
};

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

int dl_opener_start(uid_t uid, gid_t gid, const char *user,
		    dl_opener_t **out, char *err, size_t errlen)
{
	gid_t *groups = NULL;
	int ngroups = 1, sv[2], e;
	dl_opener_t *op;
	char status[sizeof(int)];
	pid_t pid, parent;

	if (!out)
		return DL_EINVAL;
	*out = NULL;
	if (geteuid() != 0 && uid != geteuid()) {
		snprintf(err, errlen,
			 "must run as root to open files as uid %u",
			 (unsigned)uid);
		return DL_EPERM;
	}
	/*
	 * Supplementary groups are looked up here, not in the child: the
	 * child then does nothing but drop privileges and open files.
	 */
	if (user && *user) {
		ngroups = 64;
		for (;;) {
			gid_t *g = realloc(groups, sizeof(*g) * ngroups);
			int n = ngroups;

			if (!g) {
				free(groups);
				return DL_ENOMEM;
			}
			groups = g;
			if (getgrouplist(user, gid, groups, &n) >= 0) {
				ngroups = n;
				break;
			}
			if (n <= ngroups || n > MAX_GROUPS) {
				ngroups = 1; /* unknown user: only gid */
				groups[0] = gid;
				break;
			}
			ngroups = n;
		}
	} else {
		groups = malloc(sizeof(*groups));
		if (!groups)
			return DL_ENOMEM;
		groups[0] = gid;
	}
	op = calloc(1, sizeof(*op));
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
	parent = getpid();
	pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		close(sv[0]);
		close(sv[1]);
		free(groups);
		free(op);
		return DL_EIO;
	}
	if (pid == 0) {
		/*
		 * Keep nothing of the caller but the socket: no cache
		 * directory descriptors, no locks.
		 */
		int keep = sv[1];

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
	free(groups);
	close(sv[1]);
	op->pid = pid;
	op->sock = sv[0];
	/* The child's first message says whether it could drop privileges. */
	if (recv(op->sock, status, sizeof(status), 0) != sizeof(status)) {
		snprintf(err, errlen, "opener process died at start-up");
		dl_opener_stop(op);
		return DL_EIO;
	}
	memcpy(&e, status, sizeof(e));
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

int dl_opener_open(dl_opener_t *op, const char *path, int *fd,
		   int *sys_errno)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} cm;
	struct msghdr mh = {0};
	struct cmsghdr *c;
	struct iovec iov;
	size_t len;
	int e = 0, got = -1, fl;
	ssize_t n;

	if (sys_errno)
		*sys_errno = 0;
	if (!op || !path || !fd)
		return DL_EINVAL;
	*fd = -1;
	len = strlen(path);
	if (len == 0 || len >= REQ_MAX)
		return DL_EINVAL;
	if (send(op->sock, path, len, MSG_NOSIGNAL) != (ssize_t)len)
		return DL_EIO;
	iov.iov_base = &e;
	iov.iov_len = sizeof(e);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cm.buf;
	mh.msg_controllen = sizeof(cm.buf);
	do
		n = recvmsg(op->sock, &mh, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n != sizeof(e))
		return DL_EIO;
	for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
		    c->cmsg_len == CMSG_LEN(sizeof(int)))
			memcpy(&got, CMSG_DATA(c), sizeof(int));
	if (e) {
		if (got >= 0)
			close(got);
		if (sys_errno)
			*sys_errno = e;
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
	if (got < 0)
		return DL_EIO;
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
	while (waitpid(op->pid, &status, 0) < 0 && errno == EINTR)
		;
	free(op);
}
