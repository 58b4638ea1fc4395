/*
 * evict.c - what the cache holds, as the tracker of libdatalocality sees
 * it, and making room in it.
 *
 * Where the tracker (dl_cache.h) serves slurmctld's view of every node,
 * here one tracker with a single node models this node's cache.  It is
 * rebuilt from the store (the .meta files and the pin records of active
 * jobs) whenever another process changed the store since this one last
 * looked (locks.c).
 *
 * The tracker counts each file at its charge, not its size: the blocks it
 * takes and one block for its .meta.  A job of 3,000 tiny files otherwise
 * filled a cache file system twice the capacity while the inventory said
 * 23 of 24 MiB were used.
 *
 * Eviction by the tracker's policies: value is eq. 7 of online-hps-khanna
 * (section 4.4) with Numcopies = 1, as a node only sees its own copy;
 * lru, lfu, fifo and random are the local policies of data-diffusion-raicu
 * (section 3.1).  On top of them, CacheUserShare keeps one user's files
 * from evicting another's below that share of the capacity, and room is
 * also made for what the file system itself has left.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "dl_error.h"
#include "stage_int.h"

/* lfu and value replay at most this many uses per file into the tracker. */
#define HITS_REPLAY_MAX 1000
/* Left free on the file system for pins, views, notes and the inventory. */
#define RESERVE_BLOCKS 64
#define RESERVE_INODES 64

/*
 * Its data's blocks, its .meta's block, and the two entries naming them in
 * their bucket directory (8 bytes and the name rounded up to 4: 72 and 80
 * bytes on ext4), by which that directory grows.  The 257 directories of
 * the store themselves are a fixed cost, left to the file system's reserve.
 */
uint64_t dl__charge(const dl_stage_t *st, uint64_t size)
{
	uint64_t bs = st->bsize ? st->bsize : 4096;

	if (size > UINT64_MAX - 2 * bs - DL__DIRENT_CHARGE)
		return UINT64_MAX;
	return (size + bs - 1) / bs * bs + bs + DL__DIRENT_CHARGE;
}

int dl__set_owner(dl_stage_t *st, uint32_t file, uid_t uid)
{
	if (file >= st->nowner) {
		size_t n = (size_t)file + 1 + st->nowner / 2;
		uid_t *nv = realloc(st->owner, n * sizeof(*nv));

		if (!nv)
			return DL_ENOMEM;
		for (size_t i = st->nowner; i < n; i++)
			nv[i] = DL__NO_OWNER;
		st->owner = nv;
		st->nowner = n;
	}
	st->owner[file] = uid;
	return 0;
}

void dl__victim_cb(uint32_t node, uint32_t file, void *arg)
{
	dl_stage_t *st = arg;

	(void)node;
	if (st->nvict == st->capvict) {
		size_t cap = st->capvict ? 2 * st->capvict : 16;
		uint32_t *nv = realloc(st->victims, cap * sizeof(*nv));

		if (!nv)
			return; /* then the file stays on disk, over budget */
		st->victims = nv;
		st->capvict = cap;
	}
	st->victims[st->nvict++] = file;
}

/* Delete the files the tracker evicted. */
void dl__evict_victims(dl_stage_t *st, dl_stage_report_t *rep)
{
	for (size_t i = 0; i < st->nvict; i++) {
		const char *path = dl_cache_file_path(st->trk, st->victims[i]);
		uint64_t charge = dl_cache_file_size(st->trk, st->victims[i]);
		char hash[DL_SHA256_HEX_LEN];

		if (!path)
			continue;
		dl_sha256_hex(path, strlen(path), hash);
		dl__entry_remove(st, hash, true);
		dl__stage_log(st, DL_LOG_DEBUG,
			      "evicted %s (%" PRIu64 " bytes charged, %s)", path,
			      charge, dl_evict_name(st->policy));
		if (rep) {
			rep->evicted++;
			rep->bytes_evicted += charge;
		}
	}
	st->nvict = 0;
}

static dl_evict_t _sort_policy;

/* Replay order: fifo by insertion, the others by last use. */
static int _cmp_replay(const void *a, const void *b)
{
	const dl_stage_entry_t *x = a, *y = b;
	int64_t kx = _sort_policy == DL_EVICT_FIFO ? x->inserted_ns
						   : x->last_used_ns;
	int64_t ky = _sort_policy == DL_EVICT_FIFO ? y->inserted_ns
						   : y->last_used_ns;

	if (kx != ky)
		return kx < ky ? -1 : 1;
	return strcmp(x->hash, y->hash);
}

/* Replay one entry into c: its uses, its pins, its owner. */
static int _replay(dl_stage_t *st, dl_cache_t *c, const dl_stage_entry_t *e)
{
	int64_t id = dl_cache_file_intern(c, e->path, e->charge);
	uint64_t now = (uint64_t)(st->policy == DL_EVICT_FIFO
					  ? e->inserted_ns
					  : e->last_used_ns);
	int rc;

	if (id < 0)
		return (int)id;
	rc = dl_cache_insert(c, 0, (uint32_t)id, now, NULL, NULL);
	if (st->policy == DL_EVICT_LFU || st->policy == DL_EVICT_VALUE ||
	    st->policy == DL_EVICT_NODE_VALUE)
		for (uint64_t h = 1; !rc && h < e->hits && h < HITS_REPLAY_MAX;
		     h++)
			rc = dl_cache_access(c, 0, (uint32_t)id, now);
	for (uint32_t p = 0; !rc && p < e->pins; p++)
		rc = dl_cache_pin(c, 0, (uint32_t)id);
	if (!rc && !e->complete)
		rc = dl_cache_pin(c, 0, (uint32_t)id);
	if (!rc)
		rc = dl__set_owner(st, (uint32_t)id, e->owner);
	return rc;
}

/*
 * Rebuild the tracker from the store, under the global lock: every entry
 * (copies in progress too) replayed in the order of its policy, with its
 * uses for lfu and value, then pinned for each active job using it and
 * for each copy in progress.
 */
static int _rebuild(dl_stage_t *st)
{
	dl__entries_t es;
	dl_cache_t *c;
	int rc;

	rc = dl__scan(st, true, &es);
	if (rc)
		return rc;
	dl__count_pins(st, &es);
	c = dl_cache_create(1, st->policy,
			    (uint64_t)dl__now_ns() ^ (uint64_t)getpid());
	if (!c) {
		dl__entries_free(&es);
		return DL_ENOMEM;
	}
	_sort_policy = st->policy;
	if (es.n)
		qsort(es.v, es.n, sizeof(*es.v), _cmp_replay);
	for (size_t i = 0; i < st->nowner; i++)
		st->owner[i] = DL__NO_OWNER;
	for (size_t i = 0; i < es.n && !rc; i++)
		rc = _replay(st, c, &es.v[i]);
	dl__entries_free(&es);
	if (!rc)
		rc = dl_cache_set_capacity(c, 0, st->capacity);
	if (rc) {
		dl_cache_destroy(c);
		st->trk_ok = false;
		return rc;
	}
	dl_cache_destroy(st->trk);
	st->trk = c;
	st->trk_gen = st->gen;
	st->trk_ok = true;
	return 0;
}

int dl__ensure_tracker(dl_stage_t *st)
{
	if (st->trk && st->trk_ok && st->trk_gen == st->gen)
		return 0;
	return _rebuild(st);
}

/* ------------------------------------------------------------------ */
/* making room                                                         */

typedef struct {
	uid_t uid;
	uint64_t bytes;
	bool held; /* within its share: its files are pinned for now */
} use_t;

typedef struct {
	const dl_cache_t *trk;
	const dl__room_t *r;
	use_t *u;          /* per owner */
	size_t nu;
	uint32_t *ids;     /* scratch: files, victims or temporary pins */
	size_t n, cap;
	uid_t only;        /* for _collect(): whose files */
	bool nomem;
} room_t;

static uid_t _owner(const dl__room_t *r, uint32_t f)
{
	return f < r->nowner ? r->owner[f] : DL__NO_OWNER;
}

static use_t *_use(room_t *rm, uid_t uid)
{
	use_t *nv;

	for (size_t i = 0; i < rm->nu; i++)
		if (rm->u[i].uid == uid)
			return &rm->u[i];
	nv = realloc(rm->u, (rm->nu + 1) * sizeof(*nv));
	if (!nv) {
		rm->nomem = true;
		return NULL;
	}
	rm->u = nv;
	rm->u[rm->nu] = (use_t){.uid = uid};
	return &rm->u[rm->nu++];
}

static void _push(room_t *rm, uint32_t f)
{
	if (rm->n == rm->cap) {
		size_t cap = rm->cap ? 2 * rm->cap : 64;
		uint32_t *nv = realloc(rm->ids, cap * sizeof(*nv));

		if (!nv) {
			rm->nomem = true;
			return;
		}
		rm->ids = nv;
		rm->cap = cap;
	}
	rm->ids[rm->n++] = f;
}

static int _sum(uint32_t f, void *arg)
{
	room_t *rm = arg;
	uid_t o = _owner(rm->r, f);
	use_t *u = o == DL__NO_OWNER ? NULL : _use(rm, o);

	if (u)
		u->bytes += dl_cache_file_size(rm->trk, f);
	return rm->nomem;
}

static int _collect(uint32_t f, void *arg)
{
	room_t *rm = arg;

	if (_owner(rm->r, f) == rm->only && !dl_cache_pins(rm->trk, 0, f))
		_push(rm, f);
	return rm->nomem;
}

static void _victim(uint32_t node, uint32_t f, void *arg)
{
	(void)node;
	_push(arg, f);
}

/*
 * A user other than the one making room, at or below the share: pin its
 * unpinned files for the time of this call (pins[] records them).
 */
static int _hold(dl_cache_t *trk, room_t *rm, use_t *u, room_t *pins)
{
	double limit = rm->r->share * (double)rm->r->capacity;

	if (u->held || u->uid == rm->r->uid || rm->r->share <= 0 ||
	    rm->r->capacity == DL_CACHE_UNLIMITED || (double)u->bytes > limit)
		return 0;
	u->held = true;
	rm->only = u->uid;
	rm->n = 0;
	dl_cache_foreach(trk, 0, _collect, rm);
	for (size_t i = 0; i < rm->n && !rm->nomem; i++) {
		if (dl_cache_pin(trk, 0, rm->ids[i]))
			continue;
		_push(pins, rm->ids[i]);
	}
	return rm->nomem || pins->nomem ? DL_ENOMEM : 0;
}

static uint64_t _sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static bool _fits(const dl_cache_t *trk, const dl__room_t *r, uint64_t freed,
		  size_t nvict)
{
	uint64_t used = dl_cache_used(trk, 0);

	if (r->capacity != DL_CACHE_UNLIMITED &&
	    (used > r->capacity || r->need > r->capacity - used))
		return false;
	if (r->max_files && dl_cache_node_files(trk, 0) + 1 > r->max_files)
		return false;
	if (r->fs_free != UINT64_MAX && _sat_add(r->fs_free, freed) < r->need)
		return false;
	return r->fs_ifree == UINT64_MAX ||
	       _sat_add(r->fs_ifree, 2 * (uint64_t)nvict) >= 2;
}

/*
 * Evict one victim (or, for empty files, a few) by the policy: trim to
 * one byte below what is used.  \return 0, or DL_ENOSPC if every file left
 * is pinned.
 */
static int _evict_one(dl_cache_t *trk, room_t *vict)
{
	uint64_t used = dl_cache_used(trk, 0), cap = dl_cache_capacity(trk, 0);
	size_t before = vict->n;
	int rc;

	if (!used)
		return DL_ENOSPC;
	dl_cache_set_capacity(trk, 0, used - 1);
	rc = dl_cache_trim(trk, 0, _victim, vict);
	dl_cache_set_capacity(trk, 0, cap);
	if (vict->nomem)
		return DL_ENOMEM;
	return rc || vict->n == before ? DL_ENOSPC : 0;
}

/* Evict until the file fits; the owners' uses follow the victims. */
static int _room_loop(dl_cache_t *trk, room_t *rm, room_t *vict,
		      room_t *pins, bool *touched)
{
	uint64_t freed = 0;
	int rc = 0;

	while (!rc && !_fits(trk, rm->r, freed, vict->n)) {
		size_t before = vict->n;

		rc = _evict_one(trk, vict);
		if (vict->n > before)
			*touched = true;
		for (size_t i = before; !rc && i < vict->n; i++) {
			uint32_t f = vict->ids[i];
			uint64_t sz = dl_cache_file_size(trk, f);
			uid_t o = _owner(rm->r, f);
			use_t *u = o == DL__NO_OWNER ? NULL : _use(rm, o);

			freed = _sat_add(freed, sz);
			if (!u)
				continue;
			u->bytes -= sz < u->bytes ? sz : u->bytes;
			rc = _hold(trk, rm, u, pins);
		}
	}
	return rc;
}

int dl__room_evict(dl_cache_t *trk, const dl__room_t *r, uint32_t **victims,
		   size_t *nvict, bool *touched)
{
	room_t rm = {.trk = trk, .r = r}, vict = {.trk = trk, .r = r};
	room_t pins = {.trk = trk, .r = r};
	int rc = 0;

	*victims = NULL;
	*nvict = 0;
	*touched = false;
	if (_fits(trk, r, 0, 0))
		return 0;
	/* Pinned files alone leave no room: fail without touching trk. */
	if (r->capacity != DL_CACHE_UNLIMITED &&
	    _sat_add(dl_cache_pinned(trk, 0), r->need) > r->capacity)
		return DL_ENOSPC;
	if (r->share > 0 && dl_cache_foreach(trk, 0, _sum, &rm))
		rc = DL_ENOMEM;
	for (size_t i = 0; !rc && i < rm.nu; i++)
		rc = _hold(trk, &rm, &rm.u[i], &pins);
	if (!rc)
		rc = _room_loop(trk, &rm, &vict, &pins, touched);
	for (size_t i = 0; i < pins.n; i++)
		dl_cache_unpin(trk, 0, pins.ids[i]);
	free(rm.u);
	free(rm.ids);
	free(pins.ids);
	if (rc) {
		free(vict.ids);
		return rc;
	}
	*victims = vict.ids;
	*nvict = vict.n;
	return 0;
}

int dl__stage_make_room(dl_stage_t *st, uid_t uid, uint64_t charge)
{
	dl__room_t r = {.uid = uid, .need = charge,
			.capacity = st->capacity, .max_files = st->max_files,
			.share = st->user_share, .owner = st->owner,
			.nowner = st->nowner, .fs_free = UINT64_MAX,
			.fs_ifree = UINT64_MAX};
	struct statvfs vfs;
	uint32_t *v;
	size_t n;
	bool touched;
	int rc;

	if (!fstatvfs(st->dfd, &vfs)) {
		uint64_t fr = vfs.f_frsize ? vfs.f_frsize : vfs.f_bsize;
		uint64_t avail = (uint64_t)vfs.f_bavail * fr;
		uint64_t reserve = RESERVE_BLOCKS * fr;

		r.fs_free = avail > reserve ? avail - reserve : 0;
		/* Some file systems (btrfs) have no inode count: 0. */
		if (vfs.f_files)
			r.fs_ifree = vfs.f_favail > RESERVE_INODES
					     ? vfs.f_favail - RESERVE_INODES
					     : 0;
	}
	rc = dl__room_evict(st->trk, &r, &v, &n, &touched);
	if (rc) {
		if (touched)
			st->trk_ok = false; /* the files are still there */
		return rc;
	}
	free(st->victims);
	st->victims = v;
	st->nvict = st->capvict = n;
	return 0;
}

int dl_stage_evict_to(dl_stage_t *st, uint64_t bytes, dl_stage_report_t *rep)
{
	int rc;

	if (rep)
		memset(rep, 0, sizeof(*rep));
	if (!st)
		return DL_EINVAL;
	dl__glock(st);
	rc = dl__ensure_tracker(st);
	if (!rc) {
		st->nvict = 0;
		dl_cache_set_capacity(st->trk, 0, bytes);
		rc = dl_cache_trim(st->trk, 0, dl__victim_cb, st);
		if (rc == DL_ENOSPC) {
			/* pinned files stay: evict everything else */
			dl_cache_set_capacity(st->trk, 0,
					      dl_cache_pinned(st->trk, 0));
			dl_cache_trim(st->trk, 0, dl__victim_cb, st);
		}
		dl_cache_set_capacity(st->trk, 0, st->capacity);
		dl__evict_victims(st, rep);
		dl__gbump(st, true);
		if (dl_stage_write_inventory(st) && !rc)
			rc = DL_EIO;
	}
	dl__gunlock(st);
	return rc;
}
