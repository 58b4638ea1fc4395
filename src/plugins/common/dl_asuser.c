/* dl_asuser.c - work done as a user, from slurmctld; see dl_asuser.h. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "src/common/slurm_xlator.h"

#include "src/common/xmalloc.h"

#include "dl_error.h"
#include "dl_log.h"
#include "dl_asuser.h"

#define MAX_GROUPS 1024

/* The user's supplementary groups, looked up before fork (NSS locks). */
static int _groups(uid_t uid, gid_t gid, gid_t *groups, int *n)
{
	struct passwd pw, *pwp = NULL;
	char buf[8192];

	if (getpwuid_r(uid, &pw, buf, sizeof(buf), &pwp) || !pwp) {
		groups[0] = gid;
		*n = 1;
		return 0;
	}
	if (getgrouplist(pwp->pw_name, gid, groups, n) < 0)
		return -1;
	return 0;
}

static void _child(uid_t uid, gid_t gid, const gid_t *groups, int ngroups,
		   dl_asuser_fn fn, void *arg, int fd)
{
	dl_log_set(NULL, NULL);
	if (setgroups(ngroups, groups) || setresgid(gid, gid, gid) ||
	    setresuid(uid, uid, uid) || getuid() != uid || geteuid() != uid)
		_exit(125);
	_exit(fn(arg, fd));
}

/* Read what the child writes; RET 0, DL_ETOOBIG, DL_ETIMEDOUT, DL_EIO. */
static int _collect(int fd, size_t max, int timeout, char **out, size_t *len)
{
	time_t end = time(NULL) + timeout;
	size_t cap = 4096;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t n;

	*out = xmalloc(cap + 1);
	*len = 0;
	while (true) {
		int left = (int)(end - time(NULL)), r;

		if (left <= 0)
			return DL_ETIMEDOUT;
		r = poll(&p, 1, left * 1000);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r ? DL_EIO : DL_ETIMEDOUT;
		if (*len == cap) {
			if (cap >= max)
				return DL_ETOOBIG;
			cap = cap * 2 > max ? max : cap * 2;
			xrealloc(*out, cap + 1);
		}
		n = read(fd, *out + *len, cap - *len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		*len += n;
	}
	(*out)[*len] = '\0';
	return 0;
}

int dl_asuser_run(uid_t uid, gid_t gid, dl_asuser_fn fn, void *arg,
		  size_t max, int timeout, char **out, size_t *len)
{
	gid_t groups[MAX_GROUPS];
	int ngroups = MAX_GROUPS, pfd[2], status = 0, rc;
	pid_t pid;

	*out = NULL;
	*len = 0;
	if (geteuid() != 0)
		return DL_EPERM;
	if (_groups(uid, gid, groups, &ngroups) || pipe2(pfd, O_CLOEXEC))
		return DL_EIO;
	if ((pid = fork()) < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return DL_ENOMEM;
	}
	if (pid == 0) {
		close(pfd[0]);
		_child(uid, gid, groups, ngroups, fn, arg, pfd[1]);
	}
	close(pfd[1]);
	rc = _collect(pfd[0], max, timeout, out, len);
	close(pfd[0]);
	if (rc)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!rc && (!WIFEXITED(status) || WEXITSTATUS(status)))
		rc = DL_EIO;
	if (rc)
		xfree(*out);
	return rc;
}
