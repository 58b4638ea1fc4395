/* munged_fx.c - a private munged for unit tests (munged_fx.h). */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "munged_fx.h"

#define MUNGED "/usr/sbin/munged"
/* How long it may take to answer, in seconds. */
#define MUNGED_WAIT_S 120

char fx_munge_socket[128];
static char mdir[64];
static pid_t munged_pid;

static int _sh(const char *cmd)
{
	int rc = system(cmd);

	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static void _exec_munged(const char *key, const char *pid, const char *seed,
			 const char *log)
{
	int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	dup2(fd, 1);
	dup2(fd, 2);
	execl(MUNGED, MUNGED, "--foreground", "--force", "--socket",
	      fx_munge_socket, "--key-file", key, "--pid-file", pid,
	      "--seed-file", seed, (char *)NULL);
	_exit(127);
}

int fx_munged_start(void)
{
	char cmd[512], key[128], pid[128], seed[128], log[128];

	if (munged_pid > 0)
		return 0;
	if (geteuid() != 0 || access(MUNGED, X_OK))
		return -1;
	snprintf(mdir, sizeof(mdir), "/tmp/dl_check_munge.XXXXXX");
	/* searchable: tests sign as other uids too */
	if (!mkdtemp(mdir) || chmod(mdir, 0755))
		return -1;
	snprintf(fx_munge_socket, sizeof(fx_munge_socket), "%s/munge.socket",
		 mdir);
	snprintf(key, sizeof(key), "%s/munge.key", mdir);
	snprintf(pid, sizeof(pid), "%s/munged.pid", mdir);
	snprintf(seed, sizeof(seed), "%s/munged.seed", mdir);
	snprintf(log, sizeof(log), "%s/munged.log", mdir);
	snprintf(cmd, sizeof(cmd),
		 "dd if=/dev/urandom of=%s bs=1 count=1024 status=none && "
		 "chmod 0400 %s", key, key);
	if (_sh(cmd))
		return -1;
	munged_pid = fork();
	if (munged_pid == 0)
		_exec_munged(key, pid, seed, log);
	snprintf(cmd, sizeof(cmd),
		 "munge -n -S %s 2>/dev/null | unmunge -S %s >/dev/null 2>&1",
		 fx_munge_socket, fx_munge_socket);
	/* Until it answers or dies: a busy host may take many seconds, and
	 * giving up early would skip the tests that need it. */
	for (time_t end = time(NULL) + MUNGED_WAIT_S; time(NULL) < end;) {
		struct timespec ts = { 0, 50000000 };

		if (!access(fx_munge_socket, F_OK) && !_sh(cmd))
			return 0;
		if (waitpid(munged_pid, NULL, WNOHANG) == munged_pid) {
			munged_pid = 0;
			break;
		}
		nanosleep(&ts, NULL);
	}
	fx_munged_stop();
	return -1;
}

void fx_munged_stop(void)
{
	char cmd[128];

	if (munged_pid > 0) {
		kill(munged_pid, SIGTERM);
		waitpid(munged_pid, NULL, 0);
	}
	munged_pid = 0;
	if (mdir[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf %s", mdir);
		_sh(cmd);
		mdir[0] = '\0';
	}
}

int fx_munged_ok(const char *suite)
{
	if (munged_pid > 0)
		return 1;
	fprintf(stderr, "%s: munged not available (not root, or %s not "
		"installed): authentication test skipped\n", suite, MUNGED);
	return 0;
}
