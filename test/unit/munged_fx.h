/*
 * munged_fx.h - a private munged for unit tests (own key and socket in a
 * fresh directory under /tmp, as test/cluster/cluster.sh starts one).
 * Needs root and /usr/sbin/munged; without them tests that need it pass
 * vacuously and say so on stderr (fx_munged_ok()).
 */
#ifndef MUNGED_FX_H
#define MUNGED_FX_H

/* Its socket, once started. */
extern char fx_munge_socket[128];

/* Start it (once per process); \return 0, -1 if not possible. */
int fx_munged_start(void);
/* Stop it and remove its directory. */
void fx_munged_stop(void);
/* Whether it runs; if not, say on stderr that suite's test is skipped. */
int fx_munged_ok(const char *suite);

#endif /* MUNGED_FX_H */
