/* log.c - forwards library messages to the host's callback. */
#include <stdio.h>

#include "dl_log.h"

static dl_log_fn log_fn;
static void *log_arg;

void dl_log_set(dl_log_fn fn, void *arg)
{
	log_fn = fn;
	log_arg = arg;
}

void dl__log(int level, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	if (!log_fn)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	log_fn(level, buf, log_arg);
}
