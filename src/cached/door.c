/*
 * door.c - the peer port, in dl-cached's parent (cached.h: cached_door_t).
 *
 * Anyone may connect to the peer port.  Before, every connection got a
 * root child at once, which waited up to CACHED_NET_TIMEOUT for a first
 * frame: 70 idle connections held 64 children and a real peer's copy
 * failed (issue 27).  Here a connection is a descriptor in a bounded list
 * until its first bytes arrive, which a real peer sends at once (its
 * NONCE); the silent are closed after CACHED_GREET_MS, the oldest first
 * when the list is full, so a flood delays a real peer by at most the
 * time it takes to speak.  A port taken when the service starts (another
 * process bound it first) is retried with a backoff, not given up.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "cached.h"
#include "dl_error.h"
#include "dl_net.h"

void cached_door_init(cached_door_t *d, uint16_t port)
{
	memset(d, 0, sizeof(*d));
	d->port = port;
	d->lfd = -1;
}

static void _listen(cached_door_t *d, int64_t now)
{
	char err[256] = "";

	if (d->lfd >= 0 || now < d->next_try)
		return;
	if (!dl_net_listen(NULL, d->port, &d->lfd, err, sizeof(err))) {
		if (d->backoff)
			cached_log(6, "listening on peer port %u at last",
				   (unsigned)d->port);
		d->backoff = 0;
		return;
	}
	d->lfd = -1;
	d->backoff = d->backoff ? 2 * d->backoff : 1000;
	if (d->backoff > CACHED_LISTEN_BACKOFF_MAX)
		d->backoff = CACHED_LISTEN_BACKOFF_MAX;
	d->next_try = now + d->backoff;
	cached_log_limited(CACHED_LOG_LISTEN, 3,
			   "%s: peers cannot fetch from this node; trying "
			   "again in %d s", err, d->backoff / 1000);
}

/* Drop the i-th waiting connection (order kept: oldest first). */
static void _drop(cached_door_t *d, size_t i, bool close_it)
{
	if (close_it)
		close(d->g[i].fd);
	memmove(&d->g[i], &d->g[i + 1], (d->n - i - 1) * sizeof(d->g[0]));
	d->n--;
}

void cached_door_tick(cached_door_t *d)
{
	int64_t now = cached_now_ms();

	_listen(d, now);
	while (d->n && d->g[0].until <= now) {
		cached_log_limited(CACHED_LOG_PEER, 4,
				   "peer %s: silent for %d ms: closed",
				   d->g[0].who, CACHED_GREET_MS);
		_drop(d, 0, true);
	}
}

size_t cached_door_poll(const cached_door_t *d, struct pollfd *p)
{
	size_t n = 0;

	if (d->lfd >= 0)
		p[n++] = (struct pollfd){ .fd = d->lfd, .events = POLLIN };
	for (size_t i = 0; i < d->n; i++)
		p[n++] = (struct pollfd){ .fd = d->g[i].fd, .events = POLLIN };
	return n;
}

/* Take newcomers while the listener has them (it is non-blocking). */
static void _accept(cached_door_t *d)
{
	for (int k = 0; k < CACHED_GREET_MAX; k++) {
		cached_greet_t g = { .until = cached_now_ms() + CACHED_GREET_MS };

		if (dl_net_accept(d->lfd, 0, &g.fd, g.who, sizeof(g.who)))
			return;
		if (d->n == CACHED_GREET_MAX) {
			cached_log_limited(CACHED_LOG_PEER, 4,
					   "peer %s: %d connections wait to "
					   "speak: the oldest closed",
					   d->g[0].who, CACHED_GREET_MAX);
			_drop(d, 0, true);
		}
		d->g[d->n++] = g;
	}
}

size_t cached_door_input(cached_door_t *d, const struct pollfd *p, int *fd,
			 char (*who)[96], size_t max)
{
	size_t k = 0, base = d->lfd >= 0 ? 1 : 0, n = d->n;
	bool ready[CACHED_GREET_MAX];

	/* p describes the list as it was polled: mark before it moves */
	for (size_t i = 0; i < n; i++)
		ready[i] = p[base + i].revents != 0;
	for (size_t i = n; i-- > 0;) {
		if (!ready[i] || k == max)
			continue;
		fd[k] = d->g[i].fd;
		memcpy(who[k++], d->g[i].who, sizeof(who[0]));
		_drop(d, i, false);
	}
	if (base && p[0].revents)
		_accept(d);
	return k;
}

void cached_door_forget(cached_door_t *d, int keep)
{
	if (d->lfd >= 0)
		close(d->lfd);
	for (size_t i = 0; i < d->n; i++)
		if (d->g[i].fd != keep)
			close(d->g[i].fd);
	d->lfd = -1;
	d->n = 0;
}

void cached_door_close(cached_door_t *d)
{
	cached_door_forget(d, -1);
}
