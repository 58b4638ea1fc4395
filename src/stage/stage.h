/*
 * stage.h - the node-local cache of dl-stage: staging a job's input files,
 * per-job views, eviction, inventory.
 *
 * Layout of a cache directory DIR (all of it root-owned; DIR itself must
 * be owned by root and not writable by group or others, or it is refused):
 *
 *   DIR/                    0711  searchable, so that jobs reach their view
 *   DIR/store/xx/<hash>     0444  a cached file; <hash> is the SHA-256 of
 *                                 its normalised source path, xx its first
 *                                 two hex digits
 *   DIR/store/xx/<hash>.meta 0600 its source path, size, identity (device,
 *                                 inode, mtime, ctime), insertion time,
 *                                 last use, hit count, the uid it was
 *                                 staged for, the SHA-256 of its content
 *                                 and when that content was last known to
 *                                 be the source's
 *   DIR/store/              0700  nobody but root reaches a cached file
 *                                 through the store
 *   DIR/.jobs/              0711
 *   DIR/.jobs/<job>.view/   0750 + ACL user:<job uid>:r-x  the job's view:
 *                                 mirrors source paths, holds hard links to
 *                                 the store files the job's user was found
 *                                 able to read (and, for files larger than
 *                                 the cache, symbolic links to the source)
 *   DIR/.jobs/<job>.pins    0600  the store entries the job uses: never
 *                                 evicted while this file exists
 *   DIR/.jobs/<job>.failed  0440 + ACL user:<job uid>:r--  why staging
 *                                 failed, for the job's TaskProlog; its
 *                                 first line names the job and its uid
 *   DIR/.tmp/               0700  copies in progress (then fsync, rename)
 *   DIR/.locks/             0700  "global" (the store lock, holding a
 *                                 counter bumped on every change), <hash>
 *                                 (one lock per file being staged),
 *                                 "reaped" (when leftovers were reaped)
 *   DIR/.inventory          0644  what the node caches, for slurmctld
 *   DIR/.log                0600  one line per prolog/epilog
 *
 * Every operation inside DIR goes through directory descriptors (openat()
 * and friends with O_NOFOLLOW / AT_SYMLINK_NOFOLLOW), never through path
 * strings, and every directory is checked (owner, mode, no symlink) when
 * opened.  Source files are opened by a helper running as the job's user
 * (opener.h): nothing is cached or shown to a user who could not open the
 * source at that moment, also on a cache hit.
 *
 * Concurrency: several dl-stage processes (prologs, epilogs of jobs on
 * the same node) share a cache.  The store's metadata changes only under
 * an exclusive flock() on .locks/global, held briefly; a file is copied
 * under its own lock .locks/<hash>, so that jobs needing the same file
 * make one copy and the others wait for it, while copies of different
 * files run in parallel.  Lock order: a file's lock, then the global lock.
 *
 * Space: every cached file is charged its blocks plus one block for its
 * .meta (dl_stage_entry_t.charge) against the capacity, at most max_files
 * files are kept, and room is also made for what the file system itself
 * still has.  A file system that is full anyway (ENOSPC, EDQUOT) is never
 * the job's failure nor the node's: the file, or if even its view cannot
 * be written the whole job, is read from the source instead.
 *
 * Errors follow dl_error.h.  Functions that can fail because of a job's
 * input (an unreadable source) or its user (who killed or stopped the
 * helper that opens files as that user) say so in the report
 * (user_fault), so that the Prolog can fail the job without draining the
 * node.
 */
#ifndef DL_STAGE_H
#define DL_STAGE_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "dl_cache.h"
#include "dl_files.h"
#include "dl_log.h"
#include "dl_pattern.h"
#include "sha256.h"

typedef struct dl_stage dl_stage_t;
typedef struct dl_stage_job dl_stage_job_t;

/**
 * dl_stage_fetch_fn - a source of a missing file other than the storage
 * (dl-cached: a peer node's cache).  Called for a copy into the store
 * after the source was opened as the job's user (sb is what fstat() said
 * of it, the identity the copy must have).
 * IN out - an empty file in DIR/.tmp to write the content into
 * OUT sha - the SHA-256 (hex) of what was written, which the callback has
 *           checked against what its source promised
 * OUT verified_ns - when that content was last known to be the source's
 *           (CLOCK_REALTIME ns; 0 if not known).  The library judges it
 *           as it judges a local hit: if the source changed so close to
 *           that time that its timestamps cannot tell two versions apart,
 *           the source's content is hashed and compared first.
 * \return 0 if out holds exactly sb->st_size bytes of the file; anything
 *         else and the copy comes from the storage (out is emptied).
 */
typedef int (*dl_stage_fetch_fn)(void *arg, const dl_stage_job_t *job,
				 const char *path, const struct stat *sb,
				 int out, char sha[DL_SHA256_HEX_LEN],
				 int64_t *verified_ns);

typedef struct dl_stage_opts {
	uint64_t capacity;  /* bytes, DL_CACHE_UNLIMITED for no limit */
	uint32_t max_files; /* cached files at most; 0: no limit */
	double user_share;  /* of capacity, protected per user; 0: off */
	unsigned open_timeout; /* seconds per open as the user; 0: 60 */
	dl_evict_t policy;  /* which cached file goes first */
	const char *node;   /* node name for the inventory; may be NULL */
	dl_log_fn log;      /* progress and warnings; may be NULL */
	void *log_arg;
	/* Shared-storage emulation for benchmarks (dl_stage_conf_t). */
	uint64_t emu_bw;
	unsigned emu_servers;
	const char *emu_lockdir;
	/* dl-cached: try this source before the storage on a miss (NULL:
	 * storage only); with it every copy's SHA-256 is recorded, so that
	 * the copy can be served to peers. */
	dl_stage_fetch_fn fetch;
	void *fetch_arg;
	/* Who besides root may read DIR/.inventory (SlurmUser, for a
	 * slurmctld reading caches directly; 0: root alone).  It lists every
	 * user's cached paths: never anyone's to read. */
	uid_t inventory_reader;
} dl_stage_opts_t;

/* Whom a job runs as. */
struct dl_stage_job {
	uint32_t job_id;
	uid_t uid;
	gid_t gid;
	const char *user; /* for supplementary groups; may be NULL */
	/* The values of Slurm's filename patterns (dl_pattern.h) for the
	 * lines of the job's list files, as the agent reads them; NULL:
	 * list lines are taken as written (not owned). */
	const dl_pattern_ctx_t *pattern;
	/* Called, when set, before the lines of a list file are expanded,
	 * with the values they need that *pattern does not know (an OR of
	 * DL_PATTERN_TASK..NAME): it may fill them into *pattern, which the
	 * caller owns (dl-stage asks slurmctld).  Never called for a list
	 * whose lines hold no pattern, so such a job costs slurmctld
	 * nothing.  NULL: unknown values stay unknown. */
	void (*pattern_need)(const struct dl_stage_job *job, unsigned need);
};

/**
 * dl_stage_list_fields - which pattern values the lines of a job's list
 * files need, for a caller that hands the lists to another reader
 * (dl-cached) and must know beforehand whether to look the values up.
 * The lists are read as the job's user (an opener, as dl_stage_job()
 * does); one that cannot be read needs nothing here (its reader reports
 * it).  Reading stops at the first list that needs one of want.
 * IN job, files - the job and its annotation, list paths expanded
 * IN want - the values of interest (an OR of DL_PATTERN_TASK..NAME)
 * IN timeout_s - per open, as dl_stage_opts_t's open_timeout (0: 60 s)
 * OUT need - those of want that some list line needs
 * \return 0, or the opener's failure (DL_EIO, DL_ETIMEDOUT, DL_EPERM...):
 *         then *need holds what was found before.
 */
int dl_stage_list_fields(const dl_stage_job_t *job,
			 const dl_filelist_t *files, unsigned want,
			 unsigned timeout_s, unsigned *need);

/* What one operation did; filled by dl_stage_job() and friends. */
typedef struct dl_stage_report {
	size_t files;            /* files the job named */
	size_t hits;             /* found cached (and readable by the user) */
	size_t copied;           /* copied into the cache now */
	size_t waited;           /* of the hits: another job was copying */
	size_t uncached;         /* not cached (too large, or no room on the
				    file system): linked to the source */
	size_t nospace;          /* of those: the file system was full */
	size_t verified;         /* hits whose content was checked again */
	size_t evicted;          /* files evicted to make room */
	int bypassed;            /* the file system was full: no view, the
				    job reads its sources */
	uint64_t bytes_hit, bytes_copied, bytes_uncached;
	uint64_t bytes_evicted;  /* their charges (data and metadata) */
	size_t from_peers;       /* of the copies: from a peer (opts.fetch) */
	uint64_t bytes_peer;     /* their bytes (included in bytes_copied) */
	/* Microseconds the copies took (data, fsync included), from storage
	 * and from peers: the rates the controller learns (a peer's failed
	 * attempt before a storage copy counts in neither) */
	uint64_t us_storage, us_peer;
	size_t fallbacks;        /* files (or a whole view) the node could
				    not stage for a reason of its own: read
				    from their sources instead, and logged */
	int user_fault;          /* on failure: the job's input is to blame */
	char msg[1024];          /* on failure: what went wrong */
} dl_stage_report_t;

/* One cached file, as listed by dl_stage_foreach(). */
typedef struct dl_stage_entry {
	char hash[DL_SHA256_HEX_LEN];
	char *path;         /* normalised source path */
	uint64_t size;
	uint64_t charge;    /* what it costs the cache (see above) */
	uint64_t dev, ino;  /* identity of the source when it was copied */
	int64_t mtime_ns, ctime_ns;
	int64_t inserted_ns, last_used_ns; /* CLOCK_REALTIME */
	int64_t verified_ns; /* the content was the source's at this time */
	uint64_t hits;      /* uses, the copy included */
	uid_t owner;        /* staged for this uid; (uid_t)-1: not known */
	char sha[DL_SHA256_HEX_LEN]; /* of the content; "" if not known */
	uint32_t pins;      /* active jobs using it */
	int complete;       /* 0: a copy is in progress */
} dl_stage_entry_t;

/* Longest mirrored path: deeper source paths are refused. */
#define DL_STAGE_MAX_DEPTH 512

/**
 * dl_stage_store_name - the store name of a source path:
 * "store/xx/<64 hex digits>".
 * OUT buf - at least 76 bytes
 * \return 0, or DL_ERANGE if len is too small.
 */
int dl_stage_store_name(const char *path, char *buf, size_t len);

/**
 * dl_stage_open - open (and with create, make) a cache directory and
 * check that it is safe: DIR and its subdirectories are real directories
 * (not symbolic links), owned by the caller (root), not writable by group
 * or others, on one file system.  Subdirectories whose mode is looser
 * than the layout above but not writable by others are tightened.
 * IN dir - absolute path; with create, missing parents are made 0755
 * IN opts - capacity, policy, node name, log callback (copied)
 * OUT out - the open cache, for dl_stage_close()
 * OUT err, errlen - why the directory was refused
 * \return 0, DL_ENOENT if dir does not exist (and create is 0), DL_EPERM
 *         if it is not safe, DL_EIO for other system errors, DL_ENOMEM,
 *         DL_EINVAL.
 */
int dl_stage_open(const char *dir, const dl_stage_opts_t *opts, int create,
		  dl_stage_t **out, char *err, size_t errlen);

/* dl_stage_close - release the cache; NULL is a no-op. */
void dl_stage_close(dl_stage_t *st);

/**
 * dl_stage_job - a job starts on this node: stage its files and build
 * its view DIR/.jobs/<job>.view.
 * For each file: open the source as the job's user; if the cache holds
 * the same version (same device, inode, size, mtime and ctime, and, when
 * the copy was taken within two seconds of the source's last change, the
 * same content) link it into the view; otherwise make room by the
 * eviction policy (never evicting a file an active job uses, nor another
 * user's files within their share), copy it to DIR/.tmp, fsync, rename it
 * into the store and link it.  A file that cannot fit, or finds the file
 * system full, is not cached: the view holds a symbolic link to the
 * source, which the job then reads with its own permissions.  So does a
 * file that cannot be staged for a reason of the node's (the view or the
 * store fails, a copy goes wrong): logged and counted in rep->fallbacks.
 * If even the view cannot be written, the job gets none (rep->bypassed)
 * and reads its sources, which the view mirrors: only faults of the job
 * fail it.
 * The '@' list files of the annotation are read as the job's user too.
 * On failure every trace of the job (pins, view) is removed; if the job
 * is at fault (unreadable or missing source, not a regular file, bad list
 * file, the helper opening files as its user killed or stopped)
 * rep->user_fault is set and the message is also written to
 * DIR/.jobs/<job>.failed for dl-stage's TaskProlog to print.
 * IN files - the job's parsed annotation; list files are appended to it
 * OUT rep - what was done, or why it failed (rep->msg)
 * \return 0, DL_EPERM / DL_ENOENT / DL_EINVAL / DL_ESYNTAX / DL_ETOOBIG /
 *         DL_ETIMEDOUT for faults of the job (rep->user_fault = 1), DL_EIO
 *         or DL_ENOMEM for faults of the node that left it unable even to
 *         give up the view (a failed undo, no memory).
 */
int dl_stage_job(dl_stage_t *st, const dl_stage_job_t *job,
		 dl_filelist_t *files, dl_stage_report_t *rep);

/**
 * dl_stage_job_fail - record that staging failed for a job (its user will
 * see msg): DIR/.jobs/<job>.failed, readable by the job's user only (an
 * ACL, or without ACL support the user's own file, mode 0400).
 * dl_stage_job() calls it itself on faults of the job's input.
 * \return 0, DL_EIO, DL_EINVAL.
 */
int dl_stage_job_fail(dl_stage_t *st, const dl_stage_job_t *job,
		      const char *msg);

/**
 * dl_stage_job_end - a job ended on this node: remove its view, pins and
 * failure note, evict down to capacity (if the capacity was lowered), and
 * rewrite the inventory.  A job the cache does not know (no view, pins or
 * note: it named no files) is not an error, and then nothing is done.
 * The Prolog calls it too, for every job, to clear what an earlier job of
 * the same id left behind (its Epilog never ran).
 * A view that cannot be removed entirely (its user may have added to it,
 * without ACLs) is logged, not returned: it is the user's doing.  So is an
 * inventory that cannot be written.
 * \return 0, DL_EIO (the pins cannot be removed).
 */
int dl_stage_job_end(dl_stage_t *st, uint32_t job_id, dl_stage_report_t *rep);

/**
 * dl_stage_evict_to - evict unpinned files by the policy until the cache
 * holds at most bytes (or only pinned files), and rewrite the inventory.
 * \return 0 if the cache now holds at most bytes, DL_ENOSPC if pinned
 *         files alone exceed it (the rest was evicted), DL_EIO.
 */
int dl_stage_evict_to(dl_stage_t *st, uint64_t bytes, dl_stage_report_t *rep);

/**
 * dl_stage_foreach - call fn for each entry of the store (copies in
 * progress included, complete = 0), sorted by path, until fn returns
 * nonzero.  The entry is valid during the call only.
 * OUT used - if not NULL, the charges of the complete entries
 * \return 0, fn's nonzero value, DL_EIO, DL_ENOMEM.
 */
int dl_stage_foreach(dl_stage_t *st,
		     int (*fn)(const dl_stage_entry_t *e, void *arg),
		     void *arg, uint64_t *used);

/**
 * dl_stage_write_inventory - rewrite DIR/.inventory atomically:
 *   # dl-stage inventory 1 node=<name> capacity=<bytes|unlimited>
 *     used=<bytes charged> files=<n> time=<unix seconds>
 *     storage_bytes=<n> peer_bytes=<n>                    (one line)
 *   <path> <size>                                        (one per file)
 * Only complete entries are listed, sorted by path.  Paths never hold
 * blanks (the annotation grammar refuses them).
 * \return 0, DL_EIO, DL_ENOMEM.
 */
int dl_stage_write_inventory(dl_stage_t *st);

/**
 * dl_stage_log_line - append one line to DIR/.log (rotated to .log.1 past
 * 1 MiB).  \return 0 or DL_EIO.
 */
int dl_stage_log_line(dl_stage_t *st, const char *line);

/**
 * dl_stage_view_path, dl_stage_failed_path - where a job's view and
 * failure note are, for the job's own processes (the TaskProlog).
 * \return 0, or DL_ERANGE if buf is too small.
 */
int dl_stage_view_path(const char *dir, uint32_t job_id, char *buf,
		       size_t len);
int dl_stage_failed_path(const char *dir, uint32_t job_id, char *buf,
			 size_t len);

/**
 * dl_stage_note_parse - check a failure note read by the TaskProlog: its
 * first line must be exactly "# dl-stage note 1 job=<job_id> uid=<uid>"
 * for this job and user (a note of another job, left under a job id Slurm
 * reused, or of another user, is not this job's), and the rest text.
 * IN text, len - the note's bytes (at most DL_STAGE_NOTE_MAX)
 * OUT msg - where the message starts in text
 * \return 0, DL_EFORMAT if it is not a note, DL_ENOENT if it is another
 *         job's or user's.
 */
#define DL_STAGE_NOTE_MAX 4096
int dl_stage_note_parse(const char *text, size_t len, uint32_t job_id,
			uid_t uid, const char **msg);

/**
 * dl_stage_leftovers - the jobs that have a view, pins or a note in
 * DIR/.jobs none of which changed for min_age seconds, sorted.
 * OUT ids, n - a malloc'd array, the caller frees it
 * \return 0, DL_EIO, DL_ENOMEM.
 */
int dl_stage_leftovers(dl_stage_t *st, int64_t min_age, uint32_t **ids,
		       size_t *n);

/**
 * dl_stage_reap_due - whether leftovers were last looked for at least
 * interval seconds ago (DIR/.locks/reaped); if so, records now.
 * \return 1 due, 0 not, DL_EIO.
 */
int dl_stage_reap_due(dl_stage_t *st, int64_t interval);

/**
 * dl_stage_probe_acl - whether views on this file system can be protected
 * by POSIX ACLs (tried on a scratch directory in DIR/.tmp).
 * \return 1 yes, 0 no (views are then owned by their job's user), DL_EIO.
 */
int dl_stage_probe_acl(dl_stage_t *st);

/**
 * dl_stage_prefetch - stage a job's files before it starts (dl-cached,
 * told by slurmctld that the job will run here): as dl_stage_job(), as
 * the job's user, but the files are then pinned by DIR/.jobs/<job>.prefetch
 * (its mtime is the expiry) instead of a view.  Such pins hold until
 * expires (unix seconds), dl_stage_prefetch_drop(), or the job's own
 * dl_stage_job() succeeds (it takes them over).  dl-stage's reaping of
 * leftovers never touches them: the job is pending, not dead.  A repeated
 * prefetch of a job replaces its pins; a failed one drops them.
 *
 * The job may start on the node while its prefetch runs, or before the
 * prefetch is asked for: a prefetch never touches the job's view, pins or
 * failure note (it pins in names of its own, see prefetch.c), and one for
 * a job that started here does nothing.  A file it cannot copy for a
 * reason of the node's is skipped (logged, rep->fallbacks).
 * \return as dl_stage_job().
 */
int dl_stage_prefetch(dl_stage_t *st, const dl_stage_job_t *job,
		      dl_filelist_t *files, int64_t expires,
		      dl_stage_report_t *rep);

/* dl_stage_prefetch_drop - drop a job's prefetch pins (none: no-op). */
void dl_stage_prefetch_drop(dl_stage_t *st, uint32_t job_id);

/**
 * dl_stage_prefetch_expire - remove the prefetch pins that expired
 * (they pin nothing already; this frees their records), and the pins of
 * prefetches killed midway whose record is gone or expired.
 * \return the number removed.
 */
size_t dl_stage_prefetch_expire(dl_stage_t *st);

/**
 * dl_stage_generation - the store's change counter (bumped under the
 * global lock on every change, by any process): a watcher that sees it
 * move knows the inventory may have changed.
 * \return 0, DL_EIO.
 */
int dl_stage_generation(dl_stage_t *st, uint64_t *gen);

/**
 * dl_stage_bytes - the bytes copied into this cache since it was made:
 * from the storage and from peers (DIR/.locks/bytes).
 * \return 0, DL_EIO.
 */
int dl_stage_bytes(dl_stage_t *st, uint64_t *storage, uint64_t *peer);

/**
 * dl_stage_lookup - the complete store entry of a source path and its
 * cached copy, opened read-only (dl-cached serving a peer).  The copy
 * stays readable through fd even if the entry is evicted meanwhile.
 * OUT e - the entry; free its path with dl_stage_entry_clear()
 * OUT fd - the copy, for the caller to close
 * \return 0, DL_ENOENT (not cached, or a copy in progress), DL_EIO.
 */
int dl_stage_lookup(dl_stage_t *st, const char *path, dl_stage_entry_t *e,
		    int *fd);

/**
 * dl_stage_copying - whether a copy of path into this cache is under way
 * (another process holds its entry's lock: it is being staged, from the
 * storage or a peer).  dl-cached asked for that file by a peer waits for
 * the copy instead of refusing, so the peer need not read the storage too.
 */
bool dl_stage_copying(dl_stage_t *st, const char *path);

/* dl_stage_entry_clear - free what dl_stage_lookup() put in e. */
void dl_stage_entry_clear(dl_stage_entry_t *e);

/* dl_stage_dir - \return the path the cache was opened with. */
const char *dl_stage_dir(const dl_stage_t *st);

/* dl_stage_acl - \return 1 if views are protected by ACLs, 0 if by
 * ownership (the file system has no POSIX ACLs), -1 if not known yet. */
int dl_stage_acl(const dl_stage_t *st);

#endif /* DL_STAGE_H */
