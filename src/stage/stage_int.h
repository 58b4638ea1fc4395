/*
 * stage_int.h - private to the node-local cache (src/stage): the cache
 * object and the helpers its modules share.  Not installed, not for
 * dl-stage.c (which uses stage.h only) but for the unit tests.
 *
 *   stage.c       opening the cache, a job's staging and end
 *   stage_file.c  staging one file: a hit, a copy, or the source
 *   store.c       store entries (.meta), scans, inventory, log
 *   locks.c       the global lock and change counter, entry locks
 *   evict.c       the tracker, what a file costs, making room
 *   view.c        the jobs' views and their permissions
 *   jobs.c        records of jobs in .jobs: pins, notes, leftovers
 *   prefetch.c    a job's files staged before it starts, in names of
 *                 its own (the job may start meanwhile)
 *   lists.c       reading '@' list files as the user; the patterns
 *                 their lines need
 * and, beside the cache, squeue.c (squeue.h): which jobs slurmctld knows
 * as alive on the node, for dl-stage to reap the leftovers of the others.
 */
#ifndef DL_STAGE_INT_H
#define DL_STAGE_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "dl_cache.h"
#include "opener.h"
#include "stage.h"

#define DL__META_VERSION 2
#define DL__META_MAX (DL_PATH_MAX + 512)
/* An owner that is nobody's in particular: its files have no share. */
#define DL__NO_OWNER ((uid_t)-1)
/*
 * Timestamp granularity assumed of source file systems (some keep whole
 * seconds, FAT two): a copy taken this close to the source's last change
 * may not tell two versions apart by their times, so its content is
 * checked again on a hit.
 */
#define DL__GRANULARITY_NS ((int64_t)2000000000)
/* Directory entries of a store entry ("<hash>", "<hash>.meta"), charged. */
#define DL__DIRENT_CHARGE 160

struct dl_stage {
	char *dir;
	int dfd, store, jobs, tmp, locks;
	dev_t dev;
	int bucket[256];
	uint64_t capacity;
	uint64_t bsize;     /* block size of the cache's file system */
	uint32_t max_files; /* 0: no limit */
	double user_share;  /* 0: off */
	unsigned open_timeout;
	dl_evict_t policy;
	char *node;
	dl_log_fn log;
	void *log_arg;
	uid_t euid;
	uid_t inventory_reader; /* dl_stage_opts_t */

	int gfd;          /* .locks/global; holds the change counter */
	bool glocked;
	uint64_t gen;     /* the counter, read at the last glock */

	dl_cache_t *trk;  /* this node's cache, node 0; sizes are charges */
	uint64_t trk_gen; /* the counter the tracker is exact for */
	bool trk_ok;
	uid_t *owner;     /* owner[file id]: who staged it */
	size_t nowner;
	uint32_t *victims;
	size_t nvict, capvict;

	unsigned seq;     /* makes temporary names unique */
	uint64_t emu_bw;  /* shared-storage emulation, see dl_stage_opts_t */
	unsigned emu_servers;
	char *emu_lockdir;
	int acl;          /* views: 1 ACLs, 0 ownership, -1 not known */
	dl_stage_fetch_fn fetch; /* another source than storage, or NULL */
	void *fetch_arg;
	const dl_stage_job_t *cur_job; /* the job being staged, for fetch */
	bool prefetching; /* staging ahead of the job: no view, no note, its
			     pins in <job>.pf.pins (prefetch.c) */

	/* the view being built */
	int viewfd;
	uid_t view_uid;
	gid_t view_gid;
	char *vdir;       /* directory of the last file linked, "/a/b" */
	int vdirfd;
	int pinsfd;
};

/* Store entries, listed. */
typedef struct dl__entries {
	dl_stage_entry_t *v;
	size_t n, cap;
} dl__entries_t;

enum { DL__ABSENT, DL__COMPLETE, DL__RESERVED };

/* ---- stage.c: small helpers ---- */
void dl__stage_log(dl_stage_t *st, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Record a failure in rep (the first one wins); \return rc. */
int dl__stage_fail(dl_stage_report_t *rep, bool user, int rc,
		   const char *fmt, ...) __attribute__((format(printf, 4, 5)));
int64_t dl__now_ns(void);
int64_t dl__ts_ns(const struct timespec *ts);
bool dl__is_hex(const char *s, size_t n);
int dl__hexval(char c);
ssize_t dl__write_all(int fd, const void *buf, size_t len);
/* errno says the cache's file system is full (or a link count is). */
bool dl__nospace(int e);
/* The helper opening files as the job's user failed: the job's fault. */
int dl__helper_failed(const dl_stage_job_t *job, const char *why,
		      dl_stage_report_t *rep);

/*
 * Stage the job's files (the job's own staging, or a prefetch's if
 * st->prefetching): the work of dl_stage_job() and dl_stage_prefetch().
 * rep must be zeroed.  \return 0 or a failure with rep filled.
 */
int dl__stage_run(dl_stage_t *st, const dl_stage_job_t *job,
		  dl_filelist_t *files, dl_stage_report_t *rep);
/* Whether the job started on this node: a view, pins or a note. */
bool dl__job_known(dl_stage_t *st, uint32_t job_id);

/* ---- prefetch.c ---- */
/* The job staged: drop its prefetch record (a running prefetch's pins
 * stay until it ends). */
void dl__prefetch_forget(dl_stage_t *st, uint32_t job_id);

/* ---- locks.c ---- */
/* Count a copy's bytes in .locks/bytes; the global lock is held. */
void dl__bytes_add(dl_stage_t *st, uint64_t storage, uint64_t peer);
/* Read .locks/bytes (zeros if missing). */
void dl__bytes_read(dl_stage_t *st, uint64_t *storage, uint64_t *peer);
int dl__glock(dl_stage_t *st);
/* The store changed; applied: this process's tracker made the change. */
void dl__gbump(dl_stage_t *st, bool applied);
void dl__gunlock(dl_stage_t *st);
/* \return the lock's descriptor, or a negative errno (-EWOULDBLOCK...). */
int dl__lock_entry(dl_stage_t *st, const char *hash, bool nonblock,
		   bool create);
void dl__unlock_entry(dl_stage_t *st, const char *hash, int fd, bool drop);
bool dl__entry_busy(dl_stage_t *st, const char *hash, bool drop_if_free);

/* ---- store.c ---- */
int dl__bucket(dl_stage_t *st, const char *hash, bool create);
void dl__entry_free(dl_stage_entry_t *e);
int dl__meta_parse(const char *buf, size_t len, const char *hash,
		   dl_stage_entry_t *e);
int dl__meta_write(dl_stage_t *st, const dl_stage_entry_t *e);
void dl__entry_remove(dl_stage_t *st, const char *hash, bool drop_lock);
/* DL__ABSENT, DL__COMPLETE, DL__RESERVED; the global lock is held. */
int dl__entry_get(dl_stage_t *st, const char *hash, dl_stage_entry_t *e);
int dl__scan(dl_stage_t *st, bool clean, dl__entries_t *out);
void dl__entries_free(dl__entries_t *es);
int dl__cmp_entry_hash(const void *a, const void *b);

/* ---- evict.c ---- */
/* What a file of size bytes costs the cache: its blocks and its .meta. */
uint64_t dl__charge(const dl_stage_t *st, uint64_t size);
int dl__ensure_tracker(dl_stage_t *st);
int dl__set_owner(dl_stage_t *st, uint32_t file, uid_t uid);
void dl__victim_cb(uint32_t node, uint32_t file, void *arg);
void dl__evict_victims(dl_stage_t *st, dl_stage_report_t *rep);
/*
 * Make room in the tracker for one more file of charge bytes staged for
 * uid, by the policy, the capacity, CacheMaxFiles, CacheUserShare and the
 * free space of the file system; the victims are left in st->victims for
 * dl__evict_victims().  On DL_ENOSPC nothing is to be evicted (the tracker
 * is marked for a rebuild if it had to be touched).
 */
int dl__stage_make_room(dl_stage_t *st, uid_t uid, uint64_t charge);

/* The rules of dl__stage_make_room(), on a tracker alone (node 0). */
typedef struct dl__room {
	uid_t uid;           /* whose file needs room */
	uint64_t need;       /* its charge */
	uint64_t capacity;   /* bytes, DL_CACHE_UNLIMITED */
	uint32_t max_files;  /* 0: no limit */
	double share;        /* CacheUserShare, 0: off */
	const uid_t *owner;  /* owner[file id]; DL__NO_OWNER or beyond nowner:
				nobody's */
	size_t nowner;
	uint64_t fs_free;    /* bytes the file system can still take beyond
				a reserve, UINT64_MAX: not known */
	uint64_t fs_ifree;   /* inodes likewise */
} dl__room_t;

/**
 * dl__room_evict - remove from trk, in policy order, the unpinned files
 * that must go so that one more file of r->need bytes fits: used + need
 * <= capacity, files + 1 <= max_files, and the file system's free space
 * plus what the victims free covers need (and two inodes).  A file of
 * another user V than r->uid goes only while V's cached bytes exceed
 * share * capacity.
 * OUT victims, nvict - the files removed, in order; malloc'd, caller frees
 * OUT touched - whether trk was changed (also on failure)
 * \return 0, DL_ENOSPC if even so the file does not fit (some files may
 *         have been removed from trk: rebuild it), DL_ENOMEM.
 */
int dl__room_evict(dl_cache_t *trk, const dl__room_t *r, uint32_t **victims,
		   size_t *nvict, bool *touched);

/* ---- view.c ---- */
int dl__set_acl_perm(int fd, uid_t uid, uint16_t owner, uint16_t named);
int dl__view_protect(dl_stage_t *st, int fd);
int dl__view_remove(dl_stage_t *st, uint32_t job_id);
void dl__view_close(dl_stage_t *st);
int dl__view_begin(dl_stage_t *st, const dl_stage_job_t *job,
		   dl_stage_report_t *rep);
/* Show a store file (hash) or, with hash NULL, the source in the view. */
int dl__view_add(dl_stage_t *st, const char *path, const char *hash,
		 dl_stage_report_t *rep);

/* ---- jobs.c ---- */
int dl__pins_add(dl_stage_t *st, const char *hash);
/* Count the pins of the active jobs into es (sorted by hash). */
void dl__count_pins(dl_stage_t *st, dl__entries_t *es);

/* ---- stage_file.c ---- */
int dl__stage_file(dl_stage_t *st, const dl_stage_job_t *job,
		   dl_opener_t *op, const char *path,
		   dl_stage_report_t *rep);

/* lists.c */
/*
 * Read a list file as the job's user through op.
 * OUT text, len - the bytes, NUL-terminated (free()); NULL on failure
 * OUT sys_errno - the errno of a failed open, else 0
 * \return 0, dl_opener_open()'s failures, DL_ETOOBIG for a file that is
 *         not regular or larger than 64 MiB, DL_ENOMEM.
 */
int dl__list_read(dl_opener_t *op, const char *path, char **text,
		  size_t *len, int *sys_errno);
/* Which pattern values the paths of a list's text need (0 for none). */
unsigned dl__list_text_fields(const char *text, size_t len);

#endif /* DL_STAGE_INT_H */
