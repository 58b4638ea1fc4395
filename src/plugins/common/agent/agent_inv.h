/*
 * agent_inv.h - the controller's copy of what one node cache service
 * reports (PROTOCOL.md): its inventory (path -> size) as the last full INV
 * and the DELTAs since made it, and its counters.
 *
 * The node channel (agent_channel.h) keeps one per node under that node's
 * mutex; the agent thread copies a complete inventory out of it into the
 * cache model.  Pure: no Slurm header, malloc()/free(), errors as 0 or a
 * negative DL_E* with a one-line reason in err, so that it is unit tested
 * on its own.  It takes messages decoded by libdlnet (dl_net_msg.h, which
 * checks every line and number); it checks what the model needs besides
 * (paths as the node side stores them, parts in order) and bounds the
 * size (files and path bytes per node).
 *
 * Resync: agent_inv_begin() at every HELLO starts a new full inventory;
 * INV parts are collected apart and replace the inventory only when the
 * part with last=1 arrives.  Until then, and after agent_inv_lost(), the
 * inventory is *not complete*: the last one is kept, but the controller
 * must not believe it.
 */
#ifndef AGENT_INV_H
#define AGENT_INV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dl_net_msg.h"

/* Bounds per node: files reported, and bytes of their paths. */
#define AGENT_INV_MAX_FILES 1000000
#define AGENT_INV_MAX_PATH_BYTES (256u << 20)

/* A capacity of "unlimited". */
#define AGENT_INV_UNLIMITED UINT64_MAX

/* The counters a node service reports in HELLO and DELTA. */
typedef struct agent_inv_counters {
	uint64_t capacity;      /* bytes, AGENT_INV_UNLIMITED */
	uint64_t used;          /* bytes in the store */
	uint64_t storage_bytes; /* copied from shared storage, cumulative */
	uint64_t peer_bytes;    /* copied from peers, cumulative */
} agent_inv_counters_t;

typedef struct agent_inv agent_inv_t;

/*
 * agent_inv_create - an empty, not complete inventory.
 * IN max_files, max_bytes - bounds (0: the defaults above)
 * RET free with agent_inv_destroy(), or NULL (out of memory).
 */
agent_inv_t *agent_inv_create(uint32_t max_files, uint64_t max_bytes);
void agent_inv_destroy(agent_inv_t *inv);

/* agent_inv_begin - a HELLO arrived: expect part 0 of a full INV. */
void agent_inv_begin(agent_inv_t *inv);

/*
 * agent_inv_lost - the connection is gone: the inventory is kept but no
 * longer complete, and parts collected so far are dropped.
 */
void agent_inv_lost(agent_inv_t *inv);

/*
 * agent_inv_apply_inv - one decoded INV.  Parts must come in order from 0 after
 * agent_inv_begin(); the part with last=1 replaces the inventory and makes
 * it complete.
 * RET 0; DL_EFORMAT (bad line, number, part out of order; err says which),
 *     DL_ETOOBIG (over the bounds), DL_ENOMEM.  On error the parts so far
 *     are dropped and the inventory is not complete.
 */
int agent_inv_apply_inv(agent_inv_t *inv, const dl_msg_t *m, char *err,
			size_t errlen);

/*
 * agent_inv_apply_delta - one decoded DELTA: its counters, then its '+'
 * and '-' lines in order.  Only on a complete inventory.
 * RET 0; DL_EFORMAT, DL_EINVAL (no complete inventory yet), DL_ETOOBIG,
 *     DL_ENOMEM.  The message is checked as a whole before anything is
 *     applied; a bound hit while applying leaves the inventory not
 *     complete (a resync is needed).
 */
int agent_inv_apply_delta(agent_inv_t *inv, const dl_msg_t *m, char *err,
			  size_t errlen);

/* agent_inv_set_counters - take the counters of a HELLO. */
void agent_inv_set_counters(agent_inv_t *inv, const agent_inv_counters_t *c);
const agent_inv_counters_t *agent_inv_counters(const agent_inv_t *inv);

/* Whether a full INV arrived since the last begin or loss. */
bool agent_inv_complete(const agent_inv_t *inv);

/*
 * agent_inv_generation - a number that changes whenever the inventory,
 * or whether it is complete, changes (not the counters).
 */
uint64_t agent_inv_generation(const agent_inv_t *inv);

/* agent_inv_count - files in the inventory. */
uint32_t agent_inv_count(const agent_inv_t *inv);

/* agent_inv_hash - FNV-1a (64 bits) of p[0..len), the tables' key hash. */
uint64_t agent_inv_hash(const char *p, size_t len);

/* agent_inv_size - the size of path in the inventory; RET false if absent. */
bool agent_inv_size(const agent_inv_t *inv, const char *path, uint64_t *size);

/*
 * agent_inv_foreach - call fn for every file, in no particular order.  fn
 * must not change inv.
 */
void agent_inv_foreach(const agent_inv_t *inv,
		       void (*fn)(const char *path, uint64_t size, void *arg),
		       void *arg);

/*
 * agent_inv_valid_path - a path as the node side stores it: absolute, no
 * "." or ".." component, no control character, blank or trailing '/',
 * shorter than DL_PATH_MAX.  Anything else is garbage, not a path.
 */
bool agent_inv_valid_path(const char *p, size_t len);

#endif /* AGENT_INV_H */
