/*
 * agent_channel.h - the controller's end of the node channel
 * (PROTOCOL.md): a listener on ServicePort that node cache services
 * (dl-cached) connect to, MUNGE-authenticated (uid 0 or SlurmUser only).
 *
 * Threads: a listener thread accepts connections (at most nodes + 16 at a
 * time); each connection has its own thread, which reads the node's
 * frames and writes what the agent queued for it, so a slow or hostile
 * client only ever holds up its own connection, never the agent's cycle
 * nor another node.  Those threads only *store* what arrives (the node's
 * inventory and counters, agent_inv.h) under the node's own mutex, and
 * answer LOCATE from the other nodes' stored inventories; the agent
 * thread reads the stored state (agent_channel_view(),
 * agent_channel_inventory()) and queues PREFETCH/CANCEL
 * (agent_channel_send()), so the cache model stays the agent thread's
 * alone.
 *
 * A HELLO naming a node slurmctld does not know is refused with a log
 * line; a second connection of the same node replaces the first (the
 * service restarted).  A lost connection leaves the node's inventory
 * kept but not complete: the agent marks the node's cache unknown until
 * the next HELLO and full INV.
 */
#ifndef AGENT_CHANNEL_H
#define AGENT_CHANNEL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "agent_inv.h"

/* What the channel needs to run; strings are copied. */
typedef struct agent_channel_conf {
	uint16_t port;          /* ServicePort */
	const char *munge_socket; /* MungeSocket, NULL: libmunge's default */
	uid_t slurm_uid;        /* SlurmUser, accepted besides root */
	uint32_t nnodes;
	char **names;           /* [nnodes], slurmctld's node table order */
} agent_channel_conf_t;

/* One node as stored, copied out for the agent thread. */
typedef struct agent_channel_view {
	bool connected;         /* a service is connected (HELLO accepted) */
	bool complete;          /* ... and its full inventory arrived */
	bool ever;              /* a service has ever connected */
	uint64_t epoch;         /* the connection's number, 0: none yet */
	uint64_t generation;    /* of the inventory (agent_inv.h) */
	uint32_t files;
	agent_inv_counters_t c;
	char peer_host[256];
	uint16_t peer_port;
	time_t since;           /* connected or disconnected since */
	time_t changed;         /* last change of the inventory */
	uint64_t prefetch_done; /* PREFETCH_DONE messages */
	uint64_t locates;       /* LOCATE requests answered */
} agent_channel_view_t;

/*
 * agent_channel_start - listen and serve.  If the same settings are in
 * force already, nothing changes; otherwise a running channel is stopped
 * first (every connection closed; the services reconnect).
 * RET 0, or a negative DL_E* (the port cannot be bound: logged; the agent
 * then runs without the channel, as before it existed).
 */
int agent_channel_start(const agent_channel_conf_t *c, const char *pfx);

/* agent_channel_stop - close everything, join every thread. */
void agent_channel_stop(void);

/* agent_channel_running - whether the listener runs. */
bool agent_channel_running(void);

/*
 * agent_channel_changes - a count that moves whenever anything
 * agent_channel_view() or agent_channel_inventory() reads may have moved
 * (a report stored, a prefetch done, a service connected or lost): the
 * agent syncs its model with the services only when it moved, instead of
 * touching every node's state once a second for nothing.  Read it before
 * reading the views: a change during the read moves it again.
 */
uint64_t agent_channel_changes(void);

/*
 * agent_channel_on_change - call wake (or nothing: NULL) from the channel's
 * threads each time agent_channel_changes() moves, so that an agent asleep
 * in a long quiet poll follows a service's report at once.  wake must be
 * quick and take no lock the caller of agent_channel_stop() holds.
 */
void agent_channel_on_change(void (*wake)(void));

/*
 * agent_channel_view - copy what is stored about node into *v.
 * RET false if there is no such node (or no channel): *v is zeroed.
 */
bool agent_channel_view(uint32_t node, agent_channel_view_t *v);

/*
 * agent_channel_inventory - call fn for every file of node's inventory,
 * under the node's mutex (fn must not call the channel), if it is
 * complete and its generation is not *gen; *gen is then updated.
 * RET true if fn was called for the inventory (possibly zero times).
 */
bool agent_channel_inventory(uint32_t node, uint64_t *gen,
			     void (*fn)(const char *path, uint64_t size,
					void *arg),
			     void *arg);

/*
 * agent_channel_send - queue a message body for node's connection of
 * epoch (a connection that has gone since does not get it).  body is
 * copied.
 * RET 0, DL_ENOENT (not connected on that epoch), DL_ETOOBIG (the node
 * does not read what it is sent: the connection is closed), DL_ENOMEM.
 */
int agent_channel_send(uint32_t node, uint64_t epoch, uint32_t type,
		       const char *body, size_t len);

/*
 * agent_channel_set_fetching - the files (paths[i]) no node holds that
 * the agent has given node nodes[i] to bring in (the prefetch owners),
 * replacing the last list; copied.  LOCATED answers name those nodes
 * after the holders: their services wait for the copy under way.
 */
void agent_channel_set_fetching(const char *const *paths,
				const uint32_t *nodes, size_t n);

/*
 * agent_channel_set_load - how busy node is (0 idle .. 1 full), used to
 * order the peers of LOCATED answers.
 */
void agent_channel_set_load(uint32_t node, double load);

#endif /* AGENT_CHANNEL_H */
