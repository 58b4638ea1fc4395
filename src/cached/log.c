/*
 * log.c - dl-cached's log: one line per event, to stderr when in the
 * foreground (test scripts read it), else to syslog (daemon facility).
 * Levels are syslog's (3 error, 4 warning, 6 info, 7 debug).
 */
#include <stdarg.h>
#include <stdio.h>
#include <syslog.h>

#include "cached.h"
#include "dl_log.h"

static bool to_stderr = true;

void cached_log_init(bool foreground)
{
	to_stderr = foreground;
	if (!foreground)
		openlog("dl-cached", LOG_PID, LOG_DAEMON);
}

void cached_log(int level, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (to_stderr) {
		if (level <= 6)
			fprintf(stderr, "dl-cached: %s\n", msg);
	} else {
		syslog(level, "%s", msg);
	}
}

void cached_log_cb(int level, const char *msg, void *arg)
{
	(void)arg;
	if (level == DL_LOG_DEBUG)
		return;
	cached_log(level == DL_LOG_ERROR ? 3 : 6, "%s", msg);
}
