/* squeue.c - which jobs slurmctld knows as alive on this node (squeue.h) */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dl_error.h"
#include "squeue.h"

/*
 * Run squeue with its output into a pipe, stdin and stderr /dev/null.
 * \return its pid (OUT fd the pipe's read end), or -1.
 */
static pid_t _start(const char *node, int *fd)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(p[1], 1);
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 2);
		}
		/* All states: whether a job is alive is decided here. */
		execlp(DL_SQUEUE_BIN, "squeue", "-h", "-t", "all", "-w", node, "-o",
		       "%A %t", (char *)NULL);
		execl("/usr/bin/squeue", "squeue", "-h", "-t", "all", "-w",
		      node, "-o", "%A %t", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return -1;
	}
	*fd = p[0];
	return pid;
}

/* Read all of fd within the deadline; \return bytes, or -1. */
static ssize_t _read_all(int fd, char *buf, size_t max, int timeout_ms)
{
	struct timespec t0, now;
	size_t got = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct pollfd pf = {.fd = fd, .events = POLLIN};
		long el;
		ssize_t n;

		clock_gettime(CLOCK_MONOTONIC, &now);
		el = (now.tv_sec - t0.tv_sec) * 1000 +
		     (now.tv_nsec - t0.tv_nsec) / 1000000;
		if (el >= timeout_ms || got == max)
			return -1;
		if (poll(&pf, 1, (int)(timeout_ms - el)) <= 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		n = read(fd, buf + got, max - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			return (ssize_t)got;
		got += (size_t)n;
	}
}

/* A state squeue prints for a job that is over, here at least. */
static bool _job_over(const char *st, size_t len)
{
	static const char *const over[] = {"PD", "CD", "CA", "F",  "TO",
					   "PR", "NF", "RV", "BF", "DL",
					   "OOM", "RD", "RF", "RH", "RQ",
					   "SE"};

	for (size_t i = 0; i < sizeof(over) / sizeof(over[0]); i++)
		if (strlen(over[i]) == len && !strncmp(st, over[i], len))
			return true;
	return false; /* alive, or a state we do not know: keep it */
}

/* One "<id> <state>\n" line at p (up to end); \return the next or NULL. */
static const char *_line(const char *p, const char *end, uint32_t *id,
			 bool *alive)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	size_t nd = strspn(p, "0123456789"), ns;
	uint64_t x = 0;

	if (!nl || !nd || nd > 10 || (nd > 1 && *p == '0') || p[nd] != ' ')
		return NULL;
	for (size_t i = 0; i < nd; i++)
		x = x * 10 + (uint64_t)(p[i] - '0');
	ns = strspn(p + nd + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZ");
	if (x > UINT32_MAX || !ns || ns > 3 || p + nd + 1 + ns != nl)
		return NULL;
	*id = (uint32_t)x;
	*alive = !_job_over(p + nd + 1, ns);
	return nl + 1;
}

int dl_squeue_parse(const char *text, size_t len, uint32_t **alive,
		    size_t *n)
{
	const char *p = text, *end = text + len;
	size_t cap = len / 4 + 1;

	*alive = NULL;
	*n = 0;
	if (memchr(text, '\0', len))
		return DL_EFORMAT;
	*alive = malloc(cap * sizeof(**alive));
	if (!*alive)
		return DL_ENOMEM;
	while (p < end) {
		uint32_t id;
		bool live;

		p = _line(p, end, &id, &live);
		if (!p) {
			free(*alive);
			*alive = NULL;
			*n = 0;
			return DL_EFORMAT;
		}
		if (live && *n < cap)
			(*alive)[(*n)++] = id;
	}
	return 0;
}

int dl_squeue_alive(const char *node, uint32_t self, uint32_t **alive,
		    size_t *n)
{
	char *buf = malloc(DL_SQUEUE_MAX + 1);
	int fd = -1, status = 0, rc = DL_EIO;
	pid_t pid = buf ? _start(node, &fd) : -1;
	ssize_t got = pid > 0 ? _read_all(fd, buf, DL_SQUEUE_MAX,
					  DL_SQUEUE_TIMEOUT_MS)
			      : -1;
	bool found = false;

	*alive = NULL;
	*n = 0;
	if (fd >= 0)
		close(fd);
	if (pid > 0) {
		if (got < 0)
			kill(pid, SIGKILL);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	if (got >= 0 && WIFEXITED(status) && !WEXITSTATUS(status)) {
		buf[got] = '\0';
		rc = dl_squeue_parse(buf, (size_t)got, alive, n) ? DL_EIO : 0;
	}
	free(buf);
	for (size_t i = 0; !rc && i < *n; i++)
		found |= (*alive)[i] == self;
	/* An answer that does not see this very job sees wrongly. */
	if (!rc && !found) {
		free(*alive);
		*alive = NULL;
		*n = 0;
		rc = DL_EIO;
	}
	return rc;
}
