/*
 * dl_net_door.h - a listening port that strangers can reach, kept cheap
 * (libdlnet).  Used by dl-cached's peer port and the controller's
 * ServicePort.
 *
 * A connection costs a file descriptor and no process or thread until
 * its first bytes arrive: the real clients of both ports speak at once
 * (their NONCE).  The silent are closed after greet_ms, the oldest first
 * when DL_NET_DOOR_MAX wait, so idle connections held by a user (issue
 * 27: 16 sockets kept a restarted node service out of the controller)
 * delay a real client by no more than the time it takes to speak.  A
 * port taken by another process (a user who bound it first) is tried
 * again with a backoff instead of being given up.
 *
 * Not thread-safe: one thread polls and feeds a door.
 */
#ifndef DL_NET_DOOR_H
#define DL_NET_DOOR_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>

/* Connections waiting to speak, at most. */
#define DL_NET_DOOR_MAX 128
/* The longest wait between two tries to listen on a taken port (ms). */
#define DL_NET_DOOR_BACKOFF_MAX 8000

/* What the door has to say: level 3 error, 4 warning, 6 info.  Lines
 * about strangers (DL_NET_DOOR_STRANGER) are for the caller to limit. */
enum { DL_NET_DOOR_SELF, DL_NET_DOOR_STRANGER };
typedef void (*dl_net_door_log_fn)(void *arg, int kind, int level,
				   const char *msg);

typedef struct dl_net_door_greet {
	int fd;
	int64_t until; /* ms (monotonic): closed if still silent then */
	char who[96];  /* address:port */
} dl_net_door_greet_t;

typedef struct dl_net_door {
	uint16_t port;
	const char *what;  /* "peer port", "ServicePort": for messages */
	int greet_ms;
	int lfd;           /* -1 while not listening */
	int64_t next_try;  /* ms */
	int backoff;       /* ms */
	dl_net_door_log_fn log;
	void *log_arg;
	dl_net_door_greet_t g[DL_NET_DOOR_MAX];
	size_t n;
} dl_net_door_t;

/* dl_net_door_init - a door on port (all addresses); nothing opened. */
void dl_net_door_init(dl_net_door_t *d, uint16_t port, const char *what,
		      int greet_ms, dl_net_door_log_fn log, void *log_arg);
/* dl_net_door_tick - listen if due, close the silent; every turn. */
void dl_net_door_tick(dl_net_door_t *d);
/*
 * dl_net_door_timeout_ms - how long the caller may sleep in poll() before
 * dl_net_door_tick() has something to do: until the oldest waiting
 * connection's deadline, or the next try to listen while the port is not
 * ours.  \return ms (0: due now), or -1 when nothing is due (listening,
 * nobody waiting): an idle door needs no timed wakeups.
 */
int dl_net_door_timeout_ms(const dl_net_door_t *d);
/* dl_net_door_listening - \return whether the port is ours. */
int dl_net_door_listening(const dl_net_door_t *d);
/*
 * dl_net_door_poll - the descriptors to poll for reading: the listener
 * (if listening), then the waiting connections.
 * OUT p - room for 1 + DL_NET_DOOR_MAX entries
 * \return how many were written.
 */
size_t dl_net_door_poll(const dl_net_door_t *d, struct pollfd *p);
/*
 * dl_net_door_input - after poll() on what dl_net_door_poll() gave (and
 * before the door is used otherwise): accept newcomers, and hand over
 * the connections that spoke.
 * OUT fd, who - up to max of those; the caller owns the descriptors
 * \return how many were handed over.
 */
size_t dl_net_door_input(dl_net_door_t *d, const struct pollfd *p, int *fd,
			 char (*who)[96], size_t max);
/* dl_net_door_forget - close the door's descriptors but keep (a child's). */
void dl_net_door_forget(dl_net_door_t *d, int keep);
/* dl_net_door_close - close everything; the door may be ticked again. */
void dl_net_door_close(dl_net_door_t *d);

#endif /* DL_NET_DOOR_H */
