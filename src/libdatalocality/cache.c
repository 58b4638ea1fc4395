/*
 * cache.c - the tracker of node-local cache contents (see dl_cache.h).
 *
 * Layout, chosen so that memory grows with the cached copies and not with
 * nnodes * nfiles:
 *   - files[]: one 48-byte record per interned file; the path strings live
 *     in 1 MiB chunks that never move, so dl_cache_file_path() pointers stay
 *     valid; ftab[] maps path -> id (open addressing, linear probing).
 *   - ents[]: one 24-byte record per cached copy (node, file), in a pool
 *     recycled through a free list; etab[] maps (node, file) -> entry for
 *     O(1) contains(), each slot holding the key's hash beside the entry
 *     id so that a probe reads no entry but the one it finds (most
 *     lookups, the cost model's, miss: at 70% load a miss probes about
 *     six slots, one random entry each without the hash); the copies of
 *     a file form a doubly linked list through the entries, so
 *     copies/holders/removal need no per-file allocation.
 *   - each node keeps an array of slots, one per entry, holding the entry's
 *     eviction key: the unpinned ones first, as a binary min-heap in
 *     eviction order (any order for random), then the pinned ones, which
 *     can never be chosen.  Keys live in the slots, not in the entries, so
 *     that sifting reads contiguous memory instead of one random entry per
 *     comparison.  Pinning moves a slot from one part to the other.
 *
 * Every modifying call first reserves all the memory it may need, so that
 * a failed allocation returns DL_ENOMEM before anything changed.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dl_cache.h"
#include "dl_error.h"
#include "dl_files.h"

_Static_assert(DL_CACHE_SIZE_UNKNOWN == DL_SIZE_UNKNOWN,
	       "dl_cache.h and dl_files.h must agree on unknown sizes");

#define NIL UINT32_MAX
/*
 * Files and cached copies are capped so that their tables, kept at most 70%
 * full, never need more than 2^31 slots (masks and ids fit a uint32_t).
 */
#define MAX_IDS 1500000000u
#define ARENA_CHUNK ((size_t)1 << 20)
#define TAB_MIN 1024u
#define NODE_ARR_MIN 16u

struct cfile {
	const char *path; /* in an arena chunk */
	uint64_t size;
	uint64_t acc;    /* AccessFreq of eq. 7 */
	uint32_t hash;   /* of the path, kept for rehashing */
	uint32_t copies; /* Numcopies of eq. 7 */
	uint32_t head;   /* first entry of the list of copies, or NIL */
	uint32_t bound;  /* value: see "Policy: value" below */
	uint32_t xhead;  /* value: first exception, or NIL */
};

struct centry {
	uint32_t node; /* NIL while the slot is free */
	uint32_t file;
	uint32_t next; /* next copy of the file, or next free slot */
	uint32_t prev; /* previous copy of the file, or NIL */
	uint32_t pos;  /* index of its slot in the node's array */
	uint32_t pins;
};

/*
 * An entry's place in its node's eviction order: lowest (k1, k2) first.
 *   lru, fifo: k1 = caller's clock at the last use (fifo: at insertion)
 *   lfu:       k1 = uses on this node
 *   node-value: k1 = bits of uses on this node * size (a non-negative
 *              double, whose bits sort like its value)
 *   value:     k1 = bits of a lower bound of eq. 7 (a non-negative double,
 *              whose bits sort like its value)
 *   k2 = call order of the last use (fifo: of the insertion), unique.
 */
struct cslot {
	uint64_t k1;
	uint64_t k2;
	uint32_t e;
	uint32_t file; /* a copy of ents[e].file, which fills the padding */
};

/* value only, per entry: see "Policy: value" below. */
struct cvext {
	uint32_t bound; /* copies for which the slot's lower bound holds */
	uint32_t xnext; /* exception list */
	uint32_t xprev; /* NOT_LISTED when not in it */
};

struct cnode {
	struct cslot *arr; /* [0, nh) unpinned heap, [nh, n) pinned */
	uint32_t n;
	uint32_t nh;
	uint32_t cap;
	uint64_t used;
	uint64_t pinned;
	uint64_t capacity;
};

/* An etab[] slot: entry id (NIL = empty) and _ent_hash() of its key. */
struct eslot {
	uint32_t e;
	uint32_t h;
};

struct dl_cache {
	dl_evict_t policy;
	bool heap; /* every policy but random keeps [0, nh) as a heap */
	uint32_t nnodes;
	struct cnode *nodes;
	uint64_t rng;
	uint64_t seq;

	struct cfile *files;
	uint32_t nfiles;
	uint64_t size_gen; /* dl_cache_size_gen() */
	uint32_t fcap;
	uint32_t *ftab; /* file ids, NIL = empty; fmask + 1 slots */
	uint32_t fmask;
	char **chunks;
	size_t nchunks;
	size_t chunks_cap;
	char *cur; /* free part of the last chunk */
	size_t cur_left;

	struct centry *ents;
	struct cvext *vx; /* value only */
	uint32_t ecap;  /* slots allocated in ents[] (and vx[]) */
	uint32_t ehigh; /* slots ever used */
	uint32_t efree; /* head of the free list */
	uint32_t nents; /* live entries */
	struct eslot *etab; /* emask + 1 slots */
	uint32_t emask;
};

static const char *const policy_names[] = {
	[DL_EVICT_VALUE] = "value", [DL_EVICT_LRU] = "lru",
	[DL_EVICT_LFU] = "lfu",     [DL_EVICT_FIFO] = "fifo",
	[DL_EVICT_RANDOM] = "random", [DL_EVICT_NODE_VALUE] = "node-value",
};
#define NPOLICIES (sizeof(policy_names) / sizeof(policy_names[0]))

/* ASCII case-insensitive equality, independent of the locale. */
static bool _name_eq(const char *a, const char *b)
{
	for (;; a++, b++) {
		unsigned char x = (unsigned char)*a, y = (unsigned char)*b;

		if (x >= 'A' && x <= 'Z')
			x += 'a' - 'A';
		if (x != y)
			return false;
		if (!x)
			return true;
	}
}

int dl_evict_from_name(const char *name, dl_evict_t *out)
{
	if (!name || !out)
		return DL_EINVAL;
	for (size_t i = 0; i < NPOLICIES; i++) {
		if (_name_eq(name, policy_names[i])) {
			*out = (dl_evict_t)i;
			return 0;
		}
	}
	return DL_ENOPOLICY;
}

const char *dl_evict_name(dl_evict_t policy)
{
	if ((unsigned)policy >= NPOLICIES)
		return NULL;
	return policy_names[policy];
}

/* ---------------------------------------------------------------------- */
/* Hashing and arithmetic                                                 */

/* The splitmix64 finalizer: a cheap, well-mixed 64-bit hash. */
static inline uint64_t _mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

/* FNV-1a, then mixed, since FNV's low bits are weak for similar paths. */
static uint32_t _path_hash(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ULL;
	}
	return (uint32_t)_mix64(h);
}

static inline uint32_t _ent_hash(uint32_t node, uint32_t file)
{
	return (uint32_t)_mix64(((uint64_t)node << 32) | file);
}

/* splitmix64: the random policy's PRNG, deterministic for a seed. */
static uint64_t _rand64(struct dl_cache *c)
{
	c->rng += 0x9e3779b97f4a7c15ULL;
	return _mix64(c->rng);
}

/* A number in [0, n), n > 0, by multiply-shift (Lemire). */
static uint32_t _rand_below(struct dl_cache *c, uint32_t n)
{
	return (uint32_t)(((_rand64(c) >> 32) * (uint64_t)n) >> 32);
}

/* Whether used + size fits in capacity, without overflow. */
static inline bool _fits(uint64_t used, uint64_t size, uint64_t capacity)
{
	return used <= capacity && size <= capacity - used;
}

/* ---------------------------------------------------------------------- */
/* Files: path table and arena                                            */

static uint32_t _ftab_find(const struct dl_cache *c, const char *path,
			   size_t len, uint32_t h)
{
	if (!c->ftab)
		return NIL;
	for (uint32_t i = h & c->fmask;; i = (i + 1) & c->fmask) {
		uint32_t id = c->ftab[i];

		if (id == NIL)
			return NIL;
		if (c->files[id].hash == h &&
		    !memcmp(c->files[id].path, path, len) &&
		    c->files[id].path[len] == '\0')
			return id;
	}
}

static void _ftab_place(uint32_t *tab, uint32_t mask, uint32_t h,
			uint32_t id)
{
	uint32_t i = h & mask;

	while (tab[i] != NIL)
		i = (i + 1) & mask;
	tab[i] = id;
}

/* Make room for one more file: records, table slots and path bytes. */
static int _file_reserve(struct dl_cache *c, size_t need)
{
	if (c->nfiles == c->fcap) {
		uint32_t ncap = c->fcap ? c->fcap + c->fcap / 2 : 1024;
		struct cfile *p;

		if (ncap > MAX_IDS)
			ncap = MAX_IDS;
		p = realloc(c->files, (size_t)ncap * sizeof(*p));
		if (!p)
			return DL_ENOMEM;
		c->files = p;
		c->fcap = ncap;
	}
	/* Keep the load factor at most 0.7. */
	if (!c->ftab || (uint64_t)(c->nfiles + 1) * 10 >
				(uint64_t)(c->fmask + 1) * 7) {
		uint32_t nslots = c->ftab ? (c->fmask + 1) * 2 : TAB_MIN;
		uint32_t *tab = malloc((size_t)nslots * sizeof(*tab));

		if (!tab)
			return DL_ENOMEM;
		memset(tab, 0xff, (size_t)nslots * sizeof(*tab));
		for (uint32_t id = 0; id < c->nfiles; id++)
			_ftab_place(tab, nslots - 1, c->files[id].hash, id);
		free(c->ftab);
		c->ftab = tab;
		c->fmask = nslots - 1;
	}
	if (c->cur_left < need) {
		char *chunk;

		if (c->nchunks == c->chunks_cap) {
			size_t ncap = c->chunks_cap ? c->chunks_cap * 2 : 16;
			char **p = realloc(c->chunks, ncap * sizeof(*p));

			if (!p)
				return DL_ENOMEM;
			c->chunks = p;
			c->chunks_cap = ncap;
		}
		chunk = malloc(ARENA_CHUNK);
		if (!chunk)
			return DL_ENOMEM;
		/* The rest of the previous chunk is given up. */
		c->chunks[c->nchunks++] = chunk;
		c->cur = chunk;
		c->cur_left = ARENA_CHUNK;
	}
	return 0;
}

/* Length of a valid path, or 0 for an empty or too long one. */
static size_t _path_len(const char *path)
{
	size_t len = 0;

	while (len < DL_PATH_MAX && path[len])
		len++;
	return len >= DL_PATH_MAX ? 0 : len;
}

int64_t dl_cache_file_intern(dl_cache_t *c, const char *path, uint64_t size)
{
	struct cfile *f;
	size_t len;
	uint32_t h, id;
	int rc;

	if (!c || !path || !(len = _path_len(path)))
		return DL_EINVAL;
	h = _path_hash(path, len);
	id = _ftab_find(c, path, len, h);
	if (id != NIL) {
		/* An unknown size means no node caches it: safe to set. */
		if (c->files[id].size == DL_CACHE_SIZE_UNKNOWN &&
		    size != DL_CACHE_SIZE_UNKNOWN) {
			c->files[id].size = size;
			c->size_gen++;
		}
		return id;
	}
	if (c->nfiles >= MAX_IDS)
		return DL_ETOOBIG;
	rc = _file_reserve(c, len + 1);
	if (rc)
		return rc;
	id = c->nfiles++;
	f = &c->files[id];
	memcpy(c->cur, path, len + 1);
	f->path = c->cur;
	c->cur += len + 1;
	c->cur_left -= len + 1;
	f->size = size;
	f->acc = 0;
	f->hash = h;
	f->copies = 0;
	f->head = NIL;
	f->bound = 0;
	f->xhead = NIL;
	_ftab_place(c->ftab, c->fmask, h, id);
	return id;
}

int64_t dl_cache_file_lookup(const dl_cache_t *c, const char *path)
{
	size_t len;
	uint32_t id;

	if (!c || !path)
		return DL_EINVAL;
	len = _path_len(path);
	if (!len)
		return DL_ENOENT;
	id = _ftab_find(c, path, len, _path_hash(path, len));
	return id == NIL ? DL_ENOENT : (int64_t)id;
}

int dl_cache_file_set_size(dl_cache_t *c, uint32_t file, uint64_t size)
{
	if (!c || file >= c->nfiles)
		return DL_EINVAL;
	if (c->files[file].size == size)
		return 0;
	if (c->files[file].copies)
		return DL_EBUSY;
	c->files[file].size = size;
	c->size_gen++;
	return 0;
}

uint64_t dl_cache_size_gen(const dl_cache_t *c)
{
	return c ? c->size_gen : 0;
}

const char *dl_cache_file_path(const dl_cache_t *c, uint32_t file)
{
	if (!c || file >= c->nfiles)
		return NULL;
	return c->files[file].path;
}

uint64_t dl_cache_file_size(const dl_cache_t *c, uint32_t file)
{
	if (!c || file >= c->nfiles)
		return DL_CACHE_SIZE_UNKNOWN;
	return c->files[file].size;
}

uint32_t dl_cache_file_count(const dl_cache_t *c)
{
	return c ? c->nfiles : 0;
}

uint64_t dl_cache_access_count(const dl_cache_t *c, uint32_t file)
{
	if (!c || file >= c->nfiles)
		return 0;
	return c->files[file].acc;
}

/* ---------------------------------------------------------------------- */
/* Entries: (node, file) table                                            */

static uint32_t _find(const struct dl_cache *c, uint32_t node, uint32_t file)
{
	if (!c->etab)
		return NIL;
	uint32_t h = _ent_hash(node, file);

	for (uint32_t i = h & c->emask;; i = (i + 1) & c->emask) {
		uint32_t e = c->etab[i].e;

		if (e == NIL)
			return NIL;
		if (c->etab[i].h == h && c->ents[e].file == file &&
		    c->ents[e].node == node)
			return e;
	}
}

static void _etab_place(struct eslot *tab, uint32_t mask, uint32_t h,
			uint32_t e)
{
	uint32_t i = h & mask;

	while (tab[i].e != NIL)
		i = (i + 1) & mask;
	tab[i].e = e;
	tab[i].h = h;
}

/* Linear-probing deletion by backward shift: no tombstones accumulate. */
static void _etab_delete(struct dl_cache *c, uint32_t e)
{
	const struct centry *en = &c->ents[e];
	uint32_t mask = c->emask;
	uint32_t i = _ent_hash(en->node, en->file) & mask;
	uint32_t j;

	while (c->etab[i].e != e)
		i = (i + 1) & mask;
	for (j = (i + 1) & mask; c->etab[j].e != NIL; j = (j + 1) & mask) {
		uint32_t home = c->etab[j].h & mask;

		/* Move it back unless its home lies cyclically in (i, j]. */
		if (((j - home) & mask) >= ((j - i) & mask)) {
			c->etab[i] = c->etab[j];
			i = j;
		}
	}
	c->etab[i].e = NIL;
}

/* Make room for one more entry on nd: a pool slot, table slots, array. */
static int _ent_reserve(struct dl_cache *c, struct cnode *nd)
{
	if (c->efree == NIL && c->ehigh == c->ecap) {
		uint32_t ncap = c->ecap ? c->ecap + c->ecap / 2 : 1024;
		void *p;

		if (ncap > MAX_IDS)
			ncap = MAX_IDS;
		/*
		 * Each array is committed as soon as it grew; ecap moves only
		 * when all did, so a failure leaves the extra room unused.
		 */
		p = realloc(c->ents, (size_t)ncap * sizeof(*c->ents));
		if (!p)
			return DL_ENOMEM;
		c->ents = p;
		if (c->policy == DL_EVICT_VALUE) {
			p = realloc(c->vx, (size_t)ncap * sizeof(*c->vx));
			if (!p)
				return DL_ENOMEM;
			c->vx = p;
		}
		c->ecap = ncap;
	}
	if (!c->etab || (uint64_t)(c->nents + 1) * 10 >
				(uint64_t)(c->emask + 1) * 7) {
		uint32_t nslots = c->etab ? (c->emask + 1) * 2 : TAB_MIN;
		struct eslot *tab = malloc((size_t)nslots * sizeof(*tab));

		if (!tab)
			return DL_ENOMEM;
		memset(tab, 0xff, (size_t)nslots * sizeof(*tab));
		for (uint32_t i = 0; c->etab && i <= c->emask; i++)
			if (c->etab[i].e != NIL)
				_etab_place(tab, nslots - 1, c->etab[i].h,
					    c->etab[i].e);
		free(c->etab);
		c->etab = tab;
		c->emask = nslots - 1;
	}
	if (nd->n == nd->cap) {
		uint32_t ncap = nd->cap ? nd->cap + nd->cap / 2 : NODE_ARR_MIN;
		struct cslot *p = realloc(nd->arr, (size_t)ncap * sizeof(*p));

		if (!p)
			return DL_ENOMEM;
		nd->arr = p;
		nd->cap = ncap;
	}
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Per-node heap of unpinned entries                                      */

/* Whether slot a goes before slot b in eviction order. */
static inline bool _before(const struct cslot *a, const struct cslot *b)
{
	return a->k1 < b->k1 || (a->k1 == b->k1 && a->k2 < b->k2);
}

static inline void _set(struct dl_cache *c, struct cnode *nd, uint32_t i,
			const struct cslot *s)
{
	nd->arr[i] = *s;
	c->ents[s->e].pos = i;
}

static void _sift_up(struct dl_cache *c, struct cnode *nd, uint32_t i)
{
	struct cslot s = nd->arr[i];

	while (i > 0) {
		uint32_t p = (i - 1) / 2;

		if (!_before(&s, &nd->arr[p]))
			break;
		_set(c, nd, i, &nd->arr[p]);
		i = p;
	}
	_set(c, nd, i, &s);
}

static void _sift_down(struct dl_cache *c, struct cnode *nd, uint32_t i)
{
	struct cslot s = nd->arr[i];

	for (;;) {
		uint32_t l = 2 * i + 1, m;

		if (l >= nd->nh)
			break;
		m = l;
		if (l + 1 < nd->nh && _before(&nd->arr[l + 1], &nd->arr[l]))
			m = l + 1;
		if (!_before(&nd->arr[m], &s))
			break;
		_set(c, nd, i, &nd->arr[m]);
		i = m;
	}
	_set(c, nd, i, &s);
}

/* Restore the heap after the key of the slot at i < nh changed. */
static void _sift(struct dl_cache *c, struct cnode *nd, uint32_t i)
{
	if (!c->heap)
		return;
	if (i > 0 && _before(&nd->arr[i], &nd->arr[(i - 1) / 2]))
		_sift_up(c, nd, i);
	else
		_sift_down(c, nd, i);
}

static void _swap(struct dl_cache *c, struct cnode *nd, uint32_t i,
		  uint32_t j)
{
	struct cslot s = nd->arr[i];

	_set(c, nd, i, &nd->arr[j]);
	_set(c, nd, j, &s);
}

/* Move the unpinned slot at i out of the heap, to index nh (first pinned). */
static void _heap_take(struct dl_cache *c, struct cnode *nd, uint32_t i)
{
	uint32_t last = nd->nh - 1;

	nd->nh--;
	if (i != last) {
		_swap(c, nd, i, last);
		_sift(c, nd, i);
	}
}

/* Move the pinned slot at i >= nh into the heap. */
static void _heap_put(struct dl_cache *c, struct cnode *nd, uint32_t i)
{
	if (i != nd->nh)
		_swap(c, nd, i, nd->nh);
	nd->nh++;
	if (c->heap)
		_sift_up(c, nd, nd->nh - 1);
}

/* ---------------------------------------------------------------------- */
/* Policy: value (eq. 7 in online-hps-khanna)                             */

/*
 * Value(f) = AccessFreq(f) * size(f) / Numcopies(f) changes whenever any
 * node uses or copies f, which would mean re-sorting every copy of f in
 * every node's heap.  Instead each slot keeps a lower bound,
 * D(acc * size / vbound[e]) for some past acc and some vbound[e] >= copies
 * (D: computed in double precision, which is monotonic, so the bound
 * survives the rounding).  The bound stays valid while AccessFreq grows
 * (an old acc is smaller) and while copies disappear; it only breaks when
 * copies grow past vbound[e].  _value_victim() trusts the top entry of a
 * heap only once its bound is exact (every other entry's true Value is at
 * least its stored bound, which is at least the top's), and otherwise
 * raises it, so stale bounds cost one re-key each when they surface.
 *
 * To keep a new copy from re-keying all the others, every file keeps
 * bound >= copies, and every copy has vbound[e] >= bound except the
 * "exceptions", made exact at the top of a heap (vbound[e] = copies) and
 * kept in a list from xhead through vxnext[]/vxprev[].  A new copy re-keys
 * the exceptions only; when copies outgrow bound, bound grows by half and
 * the copies under it are re-keyed: amortized O(1) re-keys per new copy,
 * plus one per exception, which is an entry at the bottom of some heap.
 */
#define NOT_LISTED (NIL - 1)

static inline uint64_t _value_bits(const struct cfile *f, uint32_t copies)
{
	double v = (double)f->acc * (double)f->size / (double)copies;
	uint64_t bits;

	/* v >= 0 and finite: its bits sort like its value. */
	memcpy(&bits, &v, sizeof(bits));
	return bits;
}

/* Give entry e the lower bound of its file's Value valid for kc copies. */
static void _value_rekey(struct dl_cache *c, uint32_t e, uint32_t kc)
{
	const struct centry *en = &c->ents[e];
	struct cnode *nd = &c->nodes[en->node];

	c->vx[e].bound = kc;
	nd->arr[en->pos].k1 = _value_bits(&c->files[en->file], kc);
	if (en->pos < nd->nh)
		_sift(c, nd, en->pos);
}

static void _value_list(struct dl_cache *c, struct cfile *f, uint32_t e)
{
	if (c->vx[e].xprev != NOT_LISTED)
		return;
	c->vx[e].xprev = NIL;
	c->vx[e].xnext = f->xhead;
	if (f->xhead != NIL)
		c->vx[f->xhead].xprev = e;
	f->xhead = e;
}

static void _value_unlist(struct dl_cache *c, struct cfile *f, uint32_t e)
{
	struct cvext *x = &c->vx[e];

	if (x->xprev == NOT_LISTED)
		return;
	if (x->xprev != NIL)
		c->vx[x->xprev].xnext = x->xnext;
	else
		f->xhead = x->xnext;
	if (x->xnext != NIL)
		c->vx[x->xnext].xprev = x->xprev;
	x->xprev = NOT_LISTED;
}

/* Before f gets one more copy: keep every stored bound valid. */
static void _value_new_copy(struct dl_cache *c, struct cfile *f)
{
	uint32_t want = f->copies + 1;
	uint32_t e, next;

	if (want <= f->bound) {
		/*
		 * Only the exceptions can break.  They sit near the bottom of
		 * some heap, so they stay exact (for want copies) rather than
		 * loosen and come back up: a small sift, usually none.
		 */
		for (e = f->xhead; e != NIL; e = c->vx[e].xnext)
			if (c->vx[e].bound < want)
				_value_rekey(c, e, want);
		return;
	}
	for (e = f->xhead; e != NIL; e = next) {
		next = c->vx[e].xnext;
		c->vx[e].xprev = NOT_LISTED;
	}
	f->xhead = NIL;
	f->bound = want + want / 2;
	for (e = f->head; e != NIL; e = c->ents[e].next)
		if (c->vx[e].bound < f->bound)
			_value_rekey(c, e, f->bound);
}

static uint32_t _value_victim(struct dl_cache *c, struct cnode *nd)
{
	for (;;) {
		struct cslot *top = &nd->arr[0];
		uint32_t e = top->e;
		struct cfile *f = &c->files[top->file];
		uint64_t exact = _value_bits(f, f->copies);
		uint64_t looser;
		uint32_t m = 1;

		if (exact == top->k1)
			return e;
		/*
		 * Also the lowest if its exact key is below the stored key of
		 * both children, which bound every other entry from below.
		 */
		if (m + 1 < nd->nh && _before(&nd->arr[2], &nd->arr[1]))
			m = 2;
		if (m >= nd->nh || exact < nd->arr[m].k1 ||
		    (exact == nd->arr[m].k1 && top->k2 < nd->arr[m].k2))
			return e;
		/*
		 * Raise the bound: first within its own vbound (AccessFreq may
		 * have grown), which keeps the file's bound; if that gains
		 * nothing, make it exact and list it as an exception.
		 */
		looser = _value_bits(f, c->vx[e].bound);
		if (looser > top->k1) {
			top->k1 = looser;
		} else {
			top->k1 = exact;
			c->vx[e].bound = f->copies;
			if (f->copies < f->bound)
				_value_list(c, f, e);
		}
		_sift_down(c, nd, 0);
	}
}

/* ---------------------------------------------------------------------- */
/* Entry life cycle                                                       */

static uint32_t _victim(struct dl_cache *c, struct cnode *nd)
{
	switch (c->policy) {
	case DL_EVICT_VALUE:
		return _value_victim(c, nd);
	case DL_EVICT_RANDOM:
		return nd->arr[_rand_below(c, nd->nh)].e;
	default:
		return nd->arr[0].e;
	}
}

/* Drop an unpinned entry from its node, its file and the tables. */
static void _detach(struct dl_cache *c, uint32_t e)
{
	struct centry *en = &c->ents[e];
	struct cnode *nd = &c->nodes[en->node];
	struct cfile *f = &c->files[en->file];
	uint32_t last;

	_etab_delete(c, e);
	_heap_take(c, nd, en->pos);
	/* The slot is now at nh, the first pinned one: fill the hole. */
	last = nd->n - 1;
	if (nd->nh != last)
		_set(c, nd, nd->nh, &nd->arr[last]);
	nd->n--;
	nd->used -= f->size;
	if (en->prev != NIL)
		c->ents[en->prev].next = en->next;
	else
		f->head = en->next;
	if (en->next != NIL)
		c->ents[en->next].prev = en->prev;
	if (c->policy == DL_EVICT_VALUE)
		_value_unlist(c, f, e);
	if (--f->copies == 0)
		f->bound = 0;
	en->node = NIL;
	en->next = c->efree;
	c->efree = e;
	c->nents--;
}

/*
 * node-value's key after one more use: uses * size as a double, whose bits
 * sort like its value (non-negative); exact below 2^53 bytes of uses.
 */
static uint64_t _node_value_add(uint64_t k1, uint64_t size)
{
	double v;

	memcpy(&v, &k1, sizeof(v));
	v += (double)size;
	memcpy(&k1, &v, sizeof(k1));
	return k1;
}

/* A use of a cached entry. */
static void _touch(struct dl_cache *c, uint32_t e, uint64_t now)
{
	struct centry *en = &c->ents[e];
	struct cnode *nd = &c->nodes[en->node];
	struct cslot *s = &nd->arr[en->pos];

	c->files[en->file].acc++;
	c->seq++;
	if (c->policy == DL_EVICT_FIFO)
		return;
	if (c->policy == DL_EVICT_LRU)
		s->k1 = now;
	else if (c->policy == DL_EVICT_LFU && s->k1 != UINT64_MAX)
		s->k1++;
	else if (c->policy == DL_EVICT_NODE_VALUE)
		s->k1 = _node_value_add(s->k1, c->files[en->file].size);
	s->k2 = c->seq;
	if (en->pos < nd->nh)
		_sift(c, nd, en->pos);
}

/* Validate (node, file) and find its entry; NIL if absent. */
static int _lookup(const struct dl_cache *c, uint32_t node, uint32_t file,
		   uint32_t *e)
{
	if (!c || node >= c->nnodes || file >= c->nfiles)
		return DL_EINVAL;
	*e = _find(c, node, file);
	return 0;
}

/*
 * Evict in policy order until used + size fits; the caller checked that
 * pinned + size fits, so unpinned entries remain while it does not.
 */
static void _evict_until(struct dl_cache *c, uint32_t node, uint64_t size,
			 dl_cache_evict_cb cb, void *arg)
{
	struct cnode *nd = &c->nodes[node];

	while (!_fits(nd->used, size, nd->capacity)) {
		uint32_t e = _victim(c, nd);
		uint32_t file = c->ents[e].file;

		_detach(c, e);
		if (cb)
			cb(node, file, arg);
	}
}

int dl_cache_insert(dl_cache_t *c, uint32_t node, uint32_t file,
		    uint64_t now, dl_cache_evict_cb cb, void *arg)
{
	struct cnode *nd;
	struct cfile *f;
	struct centry *en;
	struct cslot s;
	uint32_t e;
	int rc;

	if ((rc = _lookup(c, node, file, &e)))
		return rc;
	f = &c->files[file];
	if (f->size == DL_CACHE_SIZE_UNKNOWN)
		return DL_EINVAL;
	if (e != NIL) {
		_touch(c, e, now);
		return 0;
	}
	nd = &c->nodes[node];
	if (!_fits(nd->pinned, f->size, nd->capacity))
		return DL_ENOSPC;
	if (c->nents >= MAX_IDS)
		return DL_ETOOBIG;
	if ((rc = _ent_reserve(c, nd)))
		return rc;

	_evict_until(c, node, f->size, cb, arg);

	if (c->efree != NIL) {
		e = c->efree;
		c->efree = c->ents[e].next;
	} else {
		e = c->ehigh++;
	}
	c->nents++;
	f->acc++;
	c->seq++;
	en = &c->ents[e];
	en->node = node;
	en->file = file;
	en->pins = 0;
	s.e = e;
	s.file = file;
	s.k2 = c->seq;
	switch (c->policy) {
	case DL_EVICT_LFU:
		s.k1 = 1;
		break;
	case DL_EVICT_NODE_VALUE:
		s.k1 = _node_value_add(0, f->size); /* 0.0 has bits 0 */
		break;
	case DL_EVICT_VALUE:
		/* Before linking e: only the other copies need re-keying. */
		_value_new_copy(c, f);
		c->vx[e].bound = f->bound;
		c->vx[e].xprev = NOT_LISTED;
		s.k1 = _value_bits(f, f->bound);
		break;
	default:
		s.k1 = now;
		break;
	}
	en->prev = NIL;
	en->next = f->head;
	if (f->head != NIL)
		c->ents[f->head].prev = e;
	f->head = e;
	f->copies++;
	_etab_place(c->etab, c->emask, _ent_hash(node, file), e);
	nd->used += f->size;
	/* Append as pinned, then move into the heap. */
	_set(c, nd, nd->n++, &s);
	_heap_put(c, nd, nd->n - 1);
	return 0;
}

int dl_cache_access(dl_cache_t *c, uint32_t node, uint32_t file, uint64_t now)
{
	uint32_t e;
	int rc;

	if ((rc = _lookup(c, node, file, &e)))
		return rc;
	if (e == NIL)
		return DL_ENOENT;
	_touch(c, e, now);
	return 0;
}

int dl_cache_remove(dl_cache_t *c, uint32_t node, uint32_t file)
{
	uint32_t e;
	int rc;

	if ((rc = _lookup(c, node, file, &e)))
		return rc;
	if (e == NIL)
		return DL_ENOENT;
	if (c->ents[e].pins)
		return DL_EBUSY;
	_detach(c, e);
	return 0;
}

int dl_cache_trim(dl_cache_t *c, uint32_t node, dl_cache_evict_cb cb,
		  void *arg)
{
	if (!c || node >= c->nnodes)
		return DL_EINVAL;
	if (c->nodes[node].pinned > c->nodes[node].capacity)
		return DL_ENOSPC;
	_evict_until(c, node, 0, cb, arg);
	return 0;
}

int dl_cache_pin(dl_cache_t *c, uint32_t node, uint32_t file)
{
	struct centry *en;
	uint32_t e;
	int rc;

	if ((rc = _lookup(c, node, file, &e)))
		return rc;
	if (e == NIL)
		return DL_ENOENT;
	en = &c->ents[e];
	if (en->pins == UINT32_MAX)
		return DL_ERANGE;
	if (en->pins++ == 0) {
		_heap_take(c, &c->nodes[node], en->pos);
		c->nodes[node].pinned += c->files[file].size;
	}
	return 0;
}

int dl_cache_unpin(dl_cache_t *c, uint32_t node, uint32_t file)
{
	struct centry *en;
	uint32_t e;
	int rc;

	if ((rc = _lookup(c, node, file, &e)))
		return rc;
	if (e == NIL)
		return DL_ENOENT;
	en = &c->ents[e];
	if (en->pins == 0)
		return DL_EINVAL;
	if (--en->pins == 0) {
		_heap_put(c, &c->nodes[node], en->pos);
		c->nodes[node].pinned -= c->files[file].size;
	}
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Creation and queries                                                   */

dl_cache_t *dl_cache_create(uint32_t nnodes, dl_evict_t policy, uint64_t seed)
{
	struct dl_cache *c;

	if (!nnodes || (unsigned)policy >= NPOLICIES)
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->nodes = calloc(nnodes, sizeof(*c->nodes));
	if (!c->nodes) {
		free(c);
		return NULL;
	}
	for (uint32_t i = 0; i < nnodes; i++)
		c->nodes[i].capacity = DL_CACHE_UNLIMITED;
	c->policy = policy;
	c->heap = policy != DL_EVICT_RANDOM;
	c->nnodes = nnodes;
	c->rng = seed;
	c->efree = NIL;
	return c;
}

void dl_cache_destroy(dl_cache_t *c)
{
	if (!c)
		return;
	for (uint32_t i = 0; i < c->nnodes; i++)
		free(c->nodes[i].arr);
	free(c->nodes);
	free(c->files);
	free(c->ftab);
	for (size_t i = 0; i < c->nchunks; i++)
		free(c->chunks[i]);
	free(c->chunks);
	free(c->ents);
	free(c->vx);
	free(c->etab);
	free(c);
}

dl_evict_t dl_cache_policy(const dl_cache_t *c)
{
	return c ? c->policy : DL_EVICT_VALUE;
}

uint32_t dl_cache_node_count(const dl_cache_t *c)
{
	return c ? c->nnodes : 0;
}

int dl_cache_set_capacity(dl_cache_t *c, uint32_t node, uint64_t bytes)
{
	if (!c || node >= c->nnodes)
		return DL_EINVAL;
	c->nodes[node].capacity = bytes;
	return 0;
}

int dl_cache_contains(const dl_cache_t *c, uint32_t node, uint32_t file)
{
	uint32_t e;

	return !_lookup(c, node, file, &e) && e != NIL;
}

uint32_t dl_cache_pins(const dl_cache_t *c, uint32_t node, uint32_t file)
{
	uint32_t e;

	if (_lookup(c, node, file, &e) || e == NIL)
		return 0;
	return c->ents[e].pins;
}

uint32_t dl_cache_copies(const dl_cache_t *c, uint32_t file)
{
	if (!c || file >= c->nfiles)
		return 0;
	return c->files[file].copies;
}

uint32_t dl_cache_holders(const dl_cache_t *c, uint32_t file, uint32_t *nodes,
			  uint32_t max)
{
	uint32_t i = 0;

	if (!c || file >= c->nfiles || (!nodes && max))
		return 0;
	for (uint32_t e = c->files[file].head; e != NIL && i < max;
	     e = c->ents[e].next)
		nodes[i++] = c->ents[e].node;
	return c->files[file].copies;
}

uint64_t dl_cache_used(const dl_cache_t *c, uint32_t node)
{
	return c && node < c->nnodes ? c->nodes[node].used : 0;
}

uint64_t dl_cache_pinned(const dl_cache_t *c, uint32_t node)
{
	return c && node < c->nnodes ? c->nodes[node].pinned : 0;
}

uint64_t dl_cache_capacity(const dl_cache_t *c, uint32_t node)
{
	return c && node < c->nnodes ? c->nodes[node].capacity : 0;
}

uint32_t dl_cache_node_files(const dl_cache_t *c, uint32_t node)
{
	return c && node < c->nnodes ? c->nodes[node].n : 0;
}

int dl_cache_foreach(const dl_cache_t *c, uint32_t node,
		     int (*fn)(uint32_t file, void *arg), void *arg)
{
	const struct cnode *nd;

	if (!c || !fn || node >= c->nnodes)
		return DL_EINVAL;
	nd = &c->nodes[node];
	for (uint32_t i = 0; i < nd->n; i++) {
		int rc = fn(nd->arr[i].file, arg);

		if (rc)
			return rc;
	}
	return 0;
}

uint64_t dl_cache_bytes_cached(const dl_cache_t *c, uint32_t node,
			       const uint32_t *files, size_t n)
{
	uint64_t sum = 0;

	if (!c || node >= c->nnodes || (!files && n))
		return 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t size;

		if (files[i] >= c->nfiles || _find(c, node, files[i]) == NIL)
			continue;
		size = c->files[files[i]].size;
		sum = size > UINT64_MAX - sum ? UINT64_MAX : sum + size;
	}
	return sum;
}

size_t dl_cache_memory(const dl_cache_t *c)
{
	size_t per_ent = sizeof(struct centry);
	size_t sum;

	if (!c)
		return 0;
	if (c->policy == DL_EVICT_VALUE)
		per_ent += sizeof(struct cvext);
	sum = sizeof(*c) + (size_t)c->nnodes * sizeof(struct cnode);
	for (uint32_t i = 0; i < c->nnodes; i++)
		sum += (size_t)c->nodes[i].cap * sizeof(struct cslot);
	sum += (size_t)c->fcap * sizeof(struct cfile);
	sum += c->ftab ? ((size_t)c->fmask + 1) * sizeof(uint32_t) : 0;
	sum += c->nchunks * ARENA_CHUNK + c->chunks_cap * sizeof(char *);
	sum += (size_t)c->ecap * per_ent;
	sum += c->etab ? ((size_t)c->emask + 1) * sizeof(struct eslot) : 0;
	return sum;
}

int dl_cache_file_raise_access(dl_cache_t *cache, uint32_t file,
			       uint64_t count)
{
	if (!cache || file >= cache->nfiles)
		return DL_EINVAL;
	if (count > cache->files[file].acc)
		cache->files[file].acc = count;
	return 0;
}
