/*
 * log.c - dl-cached's log: one line per event, to stderr when in the
 * foreground (test scripts read it), else to syslog (daemon facility).
 * Levels are syslog's (3 error, 4 warning, 6 info, 7 debug).
 *
 * Anyone who can reach the peer port can make the service refuse
 * something, as often as they like: such lines are limited per kind to
 * CACHED_LOG_BURST a second, counted across the parent and its children
 * in a page they share (mapped before the first fork), so that a flood of
 * connections cannot flood the log (issue 27: 47,444 lines in 25 s).
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <syslog.h>
#include <time.h>

#include "cached.h"
#include "dl_log.h"

typedef struct limit {
	int64_t second;    /* the second being counted */
	uint32_t lines;    /* let through in it */
	uint32_t dropped;  /* since the last line let through */
} limit_t;

typedef struct shared {
	char busy;         /* a spin lock: held for a few instructions */
	limit_t kind[CACHED_LOG_KINDS];
} shared_t;

static bool to_stderr = true;
static shared_t *shared;
static shared_t fallback; /* if the page cannot be mapped: this process */

void cached_log_init(bool foreground)
{
	to_stderr = foreground;
	if (!foreground)
		openlog("dl-cached", LOG_PID, LOG_DAEMON);
	if (!shared) {
		void *p = mmap(NULL, sizeof(shared_t), PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

		shared = p == MAP_FAILED ? &fallback : p;
	}
}

static void _emit(int level, const char *msg)
{
	if (to_stderr) {
		if (level <= 6)
			fprintf(stderr, "dl-cached: %s\n", msg);
	} else {
		syslog(level, "%s", msg);
	}
}

void cached_log(int level, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	_emit(level, msg);
}

/* \return whether a line of kind may go now; *dropped: those before it. */
static bool _admit(int kind, uint32_t *dropped)
{
	shared_t *s = shared ? shared : &fallback;
	limit_t *l = &s->kind[kind];
	struct timespec now;
	bool ok;

	clock_gettime(CLOCK_MONOTONIC, &now);
	/* a holder killed in these few instructions must not stop the rest */
	for (unsigned spins = 0;
	     __atomic_test_and_set(&s->busy, __ATOMIC_ACQUIRE) &&
	     spins < (1u << 22);
	     spins++)
		;
	if (l->second != (int64_t)now.tv_sec) {
		l->second = (int64_t)now.tv_sec;
		l->lines = 0;
	}
	ok = l->lines < CACHED_LOG_BURST;
	if (ok) {
		l->lines++;
		*dropped = l->dropped;
		l->dropped = 0;
	} else {
		l->dropped++;
	}
	__atomic_clear(&s->busy, __ATOMIC_RELEASE);
	return ok;
}

void cached_log_limited(int kind, int level, const char *fmt, ...)
{
	char msg[2048];
	uint32_t dropped = 0;
	va_list ap;
	int n;

	if (kind < 0 || kind >= CACHED_LOG_KINDS || !_admit(kind, &dropped))
		return;
	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (dropped && n >= 0 && (size_t)n < sizeof(msg))
		snprintf(msg + n, sizeof(msg) - (size_t)n,
			 " (and %u such lines not logged)", dropped);
	_emit(level, msg);
}

void cached_log_cb(int level, const char *msg, void *arg)
{
	(void)arg;
	if (level == DL_LOG_DEBUG)
		return;
	cached_log(level == DL_LOG_ERROR ? 3 : 6, "%s", msg);
}
