/*
 * dl_cache.h - the tracker of node-local cache contents.
 *
 * One dl_cache_t knows, for a set of compute nodes, which input files each
 * node holds in its local cache, how many bytes they take, which of them an
 * active job is using (pinned), and how often each file has been used.  When
 * a file is staged onto a full node, the tracker chooses what to evict with
 * one of five policies:
 *
 *   value   lowest Value = AccessFreq(f) * size(f) / Numcopies(f) first
 *           (eq. 7 in online-hps-khanna, section 4.4), where AccessFreq is
 *           the global number of uses of f (every dl_cache_insert() and
 *           dl_cache_access() on any node) and Numcopies the number of
 *           nodes holding f;
 *   lru     least recently used on that node first;
 *   lfu     least frequently used on that node first (uses on that node);
 *   fifo    first inserted first;
 *   random  uniformly among the evictable files, from the tracker's own
 *           PRNG seeded at creation (data-diffusion-raicu, section 3.1);
 *   node-value
 *           lowest uses on that node * size(f) first: Value as a node's
 *           own cache computes it (dl-stage keeps a tracker of one node,
 *           so its AccessFreq is that node's uses and Numcopies is 1).  A
 *           simulator models real node caches with it: unlike value, it
 *           does not spare the last copy of a file in the cluster.
 *
 * Ties are broken deterministically.  lru and fifo order by the caller's
 * clock ("now" at the last use, for fifo at insertion), then by call order;
 * value, node-value and lfu break ties by least recent use in call order.
 * Given the same seed and the same sequence of calls, every policy evicts
 * the same files.  Values of eq. 7 are compared in double precision (53
 * bits): two Values closer than that count as a tie.
 *
 * Files are interned: a path maps to a dense id (0, 1, 2, ...) that stays
 * valid for the life of the tracker; ids are never reused or released.
 *
 * Errors follow the rule of dl_error.h: int functions return 0 or a
 * negative DL_E* code, pointer functions NULL, and a failed call leaves the
 * tracker unchanged.  Query functions that return counts or sizes
 * (uint32_t, uint64_t) return 0 for an invalid handle, node or file id,
 * except where noted.  Node ids run from 0 to nnodes - 1; file ids are those
 * returned by dl_cache_file_intern().
 *
 * Threads: the tracker has no global state.  It is thread-compatible: one
 * object must be used under the caller's lock (in slurmctld, the plugin's
 * own mutex); functions taking a const pointer never modify the object, so
 * any number of them may run concurrently if no modifying call does.
 *
 * Capacity invariant: after every successful dl_cache_insert() of a file
 * that was not on the node, used(node) <= capacity(node).  Lowering a
 * capacity below the bytes in use is allowed and evicts nothing at once;
 * the next dl_cache_insert() on that node (or dl_cache_trim()) evicts down.
 *
 * Complexities (n = files cached on the node, k = files evicted, c = copies
 * of the file), expected or amortized:
 *   intern, lookup                       O(path length)
 *   contains, copies, pins, used, ...    O(1)
 *   access, remove, pin, unpin           O(log n) (random: O(1))
 *   insert of a new copy                 O((1 + k) log n); random O(1 + k)
 *   holders                              O(c)
 *   foreach                              O(n)
 * value needs care, because a file's Value moves whenever any node uses or
 * copies it.  Each heap keeps lower bounds instead, made exact lazily when
 * they reach the top: a use or a lost copy of a file costs nothing now and
 * at most one O(log n) re-key later for each of its copies that reaches
 * the top of its heap; a new copy re-keys O(1) other copies amortized, plus
 * the copies that were made exact at the top of some heap.  The worst case
 * (a file whose many copies hover at the bottom of many heaps) is
 * O(c log n) per use or new copy of that file, instead of a scan of the
 * node per eviction.  See cache.c.
 *
 * Memory: about 56 bytes per file plus its path, and about 56 bytes per
 * cached copy (value: 68), plus up to 50% while tables grow.  Tables never
 * shrink.  contrib/bench_cache.c measures 1M files on 1000 nodes.
 */
#ifndef DL_CACHE_H
#define DL_CACHE_H

#include <stddef.h>
#include <stdint.h>

/* Size of a file not known yet; the same value as DL_SIZE_UNKNOWN. */
#define DL_CACHE_SIZE_UNKNOWN UINT64_MAX
/* Capacity of a node with no limit (the default). */
#define DL_CACHE_UNLIMITED UINT64_MAX

typedef struct dl_cache dl_cache_t;

typedef enum dl_evict {
	DL_EVICT_VALUE = 0, /* eq. 7 in online-hps-khanna */
	DL_EVICT_LRU,
	DL_EVICT_LFU,
	DL_EVICT_FIFO,
	DL_EVICT_RANDOM,
	DL_EVICT_NODE_VALUE, /* eq. 7 as one node's cache computes it */
} dl_evict_t;

/**
 * dl_evict_from_name - parse a policy name, ignoring case.
 * IN name - "value", "lru", "lfu", "fifo", "random" or "node-value"
 * OUT out - the policy; unchanged on error
 * \return 0 on success,
 *         DL_ENOPOLICY if the name is none of the above,
 *         DL_EINVAL if name or out is NULL.
 */
int dl_evict_from_name(const char *name, dl_evict_t *out);

/**
 * dl_evict_name - the name of a policy ("value", "lru", ...).
 * \return a static string, or NULL for a value outside dl_evict_t.
 */
const char *dl_evict_name(dl_evict_t policy);

/**
 * dl_cache_create - a new tracker with nnodes empty caches of unlimited
 * capacity.
 * IN nnodes - number of nodes, at least 1
 * IN policy - eviction policy, fixed for the life of the tracker
 * IN seed - seed of the PRNG used by DL_EVICT_RANDOM (ignored otherwise)
 * \return the tracker, to be freed with dl_cache_destroy();
 *         NULL if nnodes is 0, policy is not a dl_evict_t, or memory ran out.
 */
dl_cache_t *dl_cache_create(uint32_t nnodes, dl_evict_t policy,
			    uint64_t seed);

/**
 * dl_cache_destroy - free the tracker and everything it owns, including the
 * path strings returned by dl_cache_file_path().  NULL is a no-op.
 */
void dl_cache_destroy(dl_cache_t *cache);

/* dl_cache_policy - \return the tracker's policy (DL_EVICT_VALUE for NULL). */
dl_evict_t dl_cache_policy(const dl_cache_t *cache);

/* dl_cache_node_count - \return nnodes as given to dl_cache_create(). */
uint32_t dl_cache_node_count(const dl_cache_t *cache);

/**
 * dl_cache_set_capacity - set the bytes a node may cache.
 * A capacity below the bytes already cached is accepted: nothing is evicted
 * now, and the next dl_cache_insert() of a new file on the node (or
 * dl_cache_trim()) evicts down to the new capacity.
 * IN bytes - the capacity; DL_CACHE_UNLIMITED for no limit, 0 for a node
 *            that caches nothing (but empty files)
 * \return 0 on success, DL_EINVAL for a NULL tracker or an invalid node.
 */
int dl_cache_set_capacity(dl_cache_t *cache, uint32_t node, uint64_t bytes);

/**
 * dl_cache_file_intern - the id of a path, adding it if new.
 * Re-interning a path returns the same id.  If the recorded size is
 * DL_CACHE_SIZE_UNKNOWN it becomes size; a known size is kept (the first
 * known size wins; see dl_cache_file_set_size() to change it).
 * IN path - any non-empty string shorter than DL_PATH_MAX (4096) bytes; the
 *           tracker keeps its own copy
 * IN size - bytes, or DL_CACHE_SIZE_UNKNOWN
 * \return the id (>= 0) on success,
 *         DL_EINVAL for a NULL tracker or path, an empty or too long path,
 *         DL_ETOOBIG if 1.5e9 files are already interned,
 *         DL_ENOMEM.
 */
int64_t dl_cache_file_intern(dl_cache_t *cache, const char *path,
			     uint64_t size);

/**
 * dl_cache_file_lookup - the id of an interned path.
 * \return the id (>= 0), DL_ENOENT if the path was never interned,
 *         DL_EINVAL for a NULL tracker or path.
 */
int64_t dl_cache_file_lookup(const dl_cache_t *cache, const char *path);

/**
 * dl_cache_file_set_size - change the recorded size of a file.
 * IN size - bytes, or DL_CACHE_SIZE_UNKNOWN
 * \return 0 on success (also when the size is unchanged),
 *         DL_EBUSY if a node caches the file and size differs (the bytes
 *         in use were counted with the old size),
 *         DL_EINVAL for a NULL tracker or an invalid file.
 */
int dl_cache_file_set_size(dl_cache_t *cache, uint32_t file, uint64_t size);

/**
 * dl_cache_file_path - the path of a file.
 * \return the tracker's copy, valid until dl_cache_destroy() (not to be
 *         freed), or NULL for a NULL tracker or an invalid file.
 */
const char *dl_cache_file_path(const dl_cache_t *cache, uint32_t file);

/**
 * dl_cache_file_size - the recorded size of a file.
 * \return bytes, or DL_CACHE_SIZE_UNKNOWN when unknown and also for a NULL
 *         tracker or an invalid file.
 */
uint64_t dl_cache_file_size(const dl_cache_t *cache, uint32_t file);

/*
 * dl_cache_size_gen - a count that changes whenever an interned file's
 * size does (a new file's does not change it), so that a sum of sizes can
 * be kept while the count stands (dl_job_bytes()).
 */
uint64_t dl_cache_size_gen(const dl_cache_t *cache);

/* dl_cache_file_count - \return the number of interned files. */
uint32_t dl_cache_file_count(const dl_cache_t *cache);

/**
 * dl_cache_evict_cb - told of each file evicted to make room, right after
 * it left the node.  It may read the tracker (through const functions) but
 * must not modify it.
 */
typedef void (*dl_cache_evict_cb)(uint32_t node, uint32_t file, void *arg);

/**
 * dl_cache_insert - a job on node staged file: cache it, evicting by the
 * policy to make room, and count one use of the file.
 * If the file is already on the node, this is exactly dl_cache_access()
 * (nothing is evicted, even on a node over capacity).  Otherwise unpinned
 * files are evicted, in policy order, until used + size <= capacity; each
 * is reported through cb.  The new copy is not pinned: a job that stages
 * several files should pin each one right after inserting it, or a later
 * file of the same job may evict it.
 * IN now - the caller's clock (any unit, for LRU/FIFO order)
 * IN cb, arg - eviction callback, may be NULL
 * \return 0 on success,
 *         DL_ENOSPC if the file cannot fit even after evicting every
 *         unpinned file (pinned bytes + size > capacity), and then nothing
 *         is evicted,
 *         DL_EINVAL for a NULL tracker, an invalid node or file, or a file
 *         of unknown size (callers substitute a default size),
 *         DL_ETOOBIG if 1.5e9 copies are already cached,
 *         DL_ENOMEM.
 */
int dl_cache_insert(dl_cache_t *cache, uint32_t node, uint32_t file,
		    uint64_t now, dl_cache_evict_cb cb, void *arg);

/**
 * dl_cache_access - count one use of a file cached on node: its global
 * AccessFreq, its use count on the node (lfu) and its last use (lru).
 * \return 0 on success, DL_ENOENT if the node does not cache the file (and
 *         nothing is counted), DL_EINVAL for a NULL tracker, an invalid
 *         node or file.
 */
int dl_cache_access(dl_cache_t *cache, uint32_t node, uint32_t file,
		    uint64_t now);

/**
 * dl_cache_remove - drop a file from a node's cache (it was deleted outside
 * the tracker's control).  The eviction callback is not called.
 * \return 0 on success, DL_EBUSY if the file is pinned there, DL_ENOENT if
 *         the node does not cache it, DL_EINVAL for a NULL tracker, an
 *         invalid node or file.
 */
int dl_cache_remove(dl_cache_t *cache, uint32_t node, uint32_t file);

/**
 * dl_cache_trim - evict unpinned files, in policy order, until the node's
 * used bytes are within its capacity (after dl_cache_set_capacity() lowered
 * it).  Each evicted file is reported through cb (may be NULL).
 * \return 0 on success (also when nothing had to go),
 *         DL_ENOSPC if the pinned bytes alone exceed the capacity, and then
 *         nothing is evicted,
 *         DL_EINVAL for a NULL tracker or an invalid node.
 */
int dl_cache_trim(dl_cache_t *cache, uint32_t node, dl_cache_evict_cb cb,
		  void *arg);

/**
 * dl_cache_contains - whether a node caches a file.
 * \return 1 if it does, 0 if not or for invalid arguments.
 */
int dl_cache_contains(const dl_cache_t *cache, uint32_t node, uint32_t file);

/**
 * dl_cache_pin - an active job on node uses a file: it is never evicted
 * while its pin count is above 0.  Pins nest: each pin needs one unpin.
 * \return 0 on success, DL_ENOENT if the node does not cache the file,
 *         DL_ERANGE if the pin count is already UINT32_MAX,
 *         DL_EINVAL for a NULL tracker, an invalid node or file.
 */
int dl_cache_pin(dl_cache_t *cache, uint32_t node, uint32_t file);

/**
 * dl_cache_unpin - undo one dl_cache_pin().
 * \return 0 on success, DL_ENOENT if the node does not cache the file,
 *         DL_EINVAL if it is not pinned, for a NULL tracker, an invalid
 *         node or file.
 */
int dl_cache_unpin(dl_cache_t *cache, uint32_t node, uint32_t file);

/* dl_cache_pins - \return the pin count of a file on a node (0 if absent). */
uint32_t dl_cache_pins(const dl_cache_t *cache, uint32_t node, uint32_t file);

/* dl_cache_copies - \return the number of nodes caching the file, O(1). */
uint32_t dl_cache_copies(const dl_cache_t *cache, uint32_t file);

/**
 * dl_cache_holders - which nodes cache a file.
 * OUT nodes - receives min(max, copies) node ids, in no particular (but
 *             deterministic) order; may be NULL if max is 0
 * \return the number of copies (which may exceed max: then the list is
 *         truncated), 0 for invalid arguments.
 */
uint32_t dl_cache_holders(const dl_cache_t *cache, uint32_t file,
			  uint32_t *nodes, uint32_t max);

/* dl_cache_used - \return the bytes cached on a node. */
uint64_t dl_cache_used(const dl_cache_t *cache, uint32_t node);

/* dl_cache_pinned - \return the bytes of the pinned files on a node. */
uint64_t dl_cache_pinned(const dl_cache_t *cache, uint32_t node);

/* dl_cache_capacity - \return a node's capacity (DL_CACHE_UNLIMITED...). */
uint64_t dl_cache_capacity(const dl_cache_t *cache, uint32_t node);

/* dl_cache_node_files - \return the number of files cached on a node. */
uint32_t dl_cache_node_files(const dl_cache_t *cache, uint32_t node);

/**
 * dl_cache_foreach - call fn for every file cached on a node, in no
 * particular (but deterministic) order, until fn returns nonzero.  fn must
 * not modify the tracker.
 * \return 0 once every file was visited, the nonzero value fn returned if
 *         it stopped the walk, DL_EINVAL for a NULL tracker or fn, or an
 *         invalid node.
 */
int dl_cache_foreach(const dl_cache_t *cache, uint32_t node,
		     int (*fn)(uint32_t file, void *arg), void *arg);

/**
 * dl_cache_bytes_cached - how many bytes of a list of files a node already
 * holds (the data a job placed there would not have to stage).
 * IN files, n - file ids; an id listed twice counts twice, invalid ids
 *               count as absent
 * \return the sum of the sizes of the listed files cached on the node
 *         (saturating at UINT64_MAX), 0 for invalid arguments.
 */
uint64_t dl_cache_bytes_cached(const dl_cache_t *cache, uint32_t node,
			       const uint32_t *files, size_t n);

/**
 * dl_cache_file_raise_access - raise a file's AccessFreq to at least count,
 * for a host restoring saved state.  Raising only keeps every eviction
 * bound valid (a value can only grow).
 * \return 0, DL_EINVAL for a NULL cache or unknown file.
 */
int dl_cache_file_raise_access(dl_cache_t *cache, uint32_t file,
			       uint64_t count);

/**
 * dl_cache_access_count - AccessFreq of eq. 7: the number of uses of a
 * file so far, over all nodes (dl_cache_insert() and dl_cache_access()
 * calls that succeeded).  It survives eviction.
 */
uint64_t dl_cache_access_count(const dl_cache_t *cache, uint32_t file);

/**
 * dl_cache_memory - the bytes the tracker has allocated (tables, records,
 * path strings), for benchmarks; malloc's own overhead is not counted.
 * Tables grow but never shrink.
 */
size_t dl_cache_memory(const dl_cache_t *cache);

#endif /* DL_CACHE_H */
