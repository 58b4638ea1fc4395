/*
 * door.c - a listening port that strangers can reach (dl_net_door.h).
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "dl_net.h"
#include "dl_net_door.h"
#include "net_int.h"

static void _say(dl_net_door_t *d, int kind, int level, const char *fmt,
		 ...) __attribute__((format(printf, 4, 5)));

static void _say(dl_net_door_t *d, int kind, int level, const char *fmt,
		 ...)
{
	char msg[512];
	va_list ap;

	if (!d->log)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	d->log(d->log_arg, kind, level, msg);
}

void dl_net_door_init(dl_net_door_t *d, uint16_t port, const char *what,
		      int greet_ms, dl_net_door_log_fn log, void *log_arg)
{
	memset(d, 0, sizeof(*d));
	d->port = port;
	d->what = what;
	d->greet_ms = greet_ms;
	d->log = log;
	d->log_arg = log_arg;
	d->lfd = -1;
}

int dl_net_door_listening(const dl_net_door_t *d)
{
	return d->lfd >= 0;
}

static void _listen(dl_net_door_t *d, int64_t now)
{
	char err[256] = "";

	if (d->lfd >= 0 || now < d->next_try)
		return;
	if (!dl_net_listen(NULL, d->port, &d->lfd, err, sizeof(err))) {
		_say(d, DL_NET_DOOR_SELF, 6, "listening on %s %u%s", d->what,
		     (unsigned)d->port, d->backoff ? " at last" : "");
		d->backoff = 0;
		return;
	}
	d->lfd = -1;
	d->backoff = d->backoff ? 2 * d->backoff : 1000;
	if (d->backoff > DL_NET_DOOR_BACKOFF_MAX)
		d->backoff = DL_NET_DOOR_BACKOFF_MAX;
	d->next_try = now + d->backoff;
	_say(d, DL_NET_DOOR_SELF, 3, "%s %u: %s: trying again in %d s",
	     d->what, (unsigned)d->port, err, d->backoff / 1000);
}

/* Drop the i-th waiting connection (order kept: oldest first). */
static void _drop(dl_net_door_t *d, size_t i, int close_it)
{
	if (close_it)
		close(d->g[i].fd);
	memmove(&d->g[i], &d->g[i + 1], (d->n - i - 1) * sizeof(d->g[0]));
	d->n--;
}

void dl_net_door_tick(dl_net_door_t *d)
{
	int64_t now = dl__net_now_ms();

	_listen(d, now);
	while (d->n && d->g[0].until <= now) {
		_say(d, DL_NET_DOOR_STRANGER, 4,
		     "%s: %s silent for %d ms: closed", d->what, d->g[0].who,
		     d->greet_ms);
		_drop(d, 0, 1);
	}
}

int dl_net_door_timeout_ms(const dl_net_door_t *d)
{
	int64_t now = dl__net_now_ms(), next = -1, left;

	/* the list is oldest first, and every wait is greet_ms long */
	if (d->n)
		next = d->g[0].until;
	if (d->lfd < 0 && (next < 0 || d->next_try < next))
		next = d->next_try;
	if (next < 0)
		return -1;
	left = next - now;
	if (left <= 0)
		return 0;
	return left > INT_MAX ? INT_MAX : (int)left;
}

size_t dl_net_door_poll(const dl_net_door_t *d, struct pollfd *p)
{
	size_t n = 0;

	if (d->lfd >= 0)
		p[n++] = (struct pollfd){ .fd = d->lfd, .events = POLLIN };
	for (size_t i = 0; i < d->n; i++)
		p[n++] = (struct pollfd){ .fd = d->g[i].fd, .events = POLLIN };
	return n;
}

/* Take newcomers while the listener has them (without waiting). */
static void _accept(dl_net_door_t *d)
{
	for (int k = 0; k < DL_NET_DOOR_MAX; k++) {
		dl_net_door_greet_t g = { .until = dl__net_now_ms() +
						   d->greet_ms };

		if (dl_net_accept(d->lfd, 0, &g.fd, g.who, sizeof(g.who)))
			return;
		if (d->n == DL_NET_DOOR_MAX) {
			_say(d, DL_NET_DOOR_STRANGER, 4,
			     "%s: %d connections wait to speak: %s, the "
			     "oldest, closed", d->what, DL_NET_DOOR_MAX,
			     d->g[0].who);
			_drop(d, 0, 1);
		}
		d->g[d->n++] = g;
	}
}

size_t dl_net_door_input(dl_net_door_t *d, const struct pollfd *p, int *fd,
			 char (*who)[96], size_t max)
{
	size_t k = 0, base = d->lfd >= 0 ? 1 : 0, n = d->n;
	char ready[DL_NET_DOOR_MAX];

	/* p describes the list as it was polled: mark before it moves */
	for (size_t i = 0; i < n; i++)
		ready[i] = p[base + i].revents != 0;
	for (size_t i = n; i-- > 0;) {
		if (!ready[i] || k == max)
			continue;
		fd[k] = d->g[i].fd;
		memcpy(who[k++], d->g[i].who, sizeof(who[0]));
		_drop(d, i, 0);
	}
	if (base && p[0].revents)
		_accept(d);
	return k;
}

void dl_net_door_forget(dl_net_door_t *d, int keep)
{
	if (d->lfd >= 0)
		close(d->lfd);
	for (size_t i = 0; i < d->n; i++)
		if (d->g[i].fd != keep)
			close(d->g[i].fd);
	d->lfd = -1;
	d->n = 0;
}

void dl_net_door_close(dl_net_door_t *d)
{
	dl_net_door_forget(d, -1);
	d->next_try = 0;
	d->backoff = 0;
}
