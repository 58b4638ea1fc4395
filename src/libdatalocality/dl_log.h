/*
 * dl_log.h - how the library talks to its host.
 *
 * The library never prints.  A host (slurmctld plugin, simulator, CLI)
 * installs one callback; without one, messages are dropped.  The callback
 * may be called from any thread that calls into the library, so it must be
 * thread-safe (Slurm's log functions are).
 */
#ifndef DL_LOG_H
#define DL_LOG_H

#include <stdarg.h>

enum dl_log_level {
	DL_LOG_ERROR = 0,
	DL_LOG_INFO = 1,
	DL_LOG_DEBUG = 2,
};

/* IN level - one of enum dl_log_level; IN msg - formatted, no newline. */
typedef void (*dl_log_fn)(int level, const char *msg, void *arg);

/**
 * dl_log_set - install the host's log callback (NULL drops messages).
 * Not thread-safe itself: call it once at start-up, before other threads
 * use the library.
 */
void dl_log_set(dl_log_fn fn, void *arg);

/* For the library's own modules: format and forward to the callback. */
void dl__log(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* DL_LOG_H */
