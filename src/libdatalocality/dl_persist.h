/*
 * dl_persist.h - the scheduler's state on disk: what each node caches,
 * access counts, per-node hit counters and the last plan.
 *
 * slurmctld saves it under StateSaveLocation so a restart loses nothing;
 * the sdatalocality CLI reads the same file to show it.  The format is
 * text, one record per line, versioned, and closed by a CRC-32 of
 * everything before the last line, so a truncated, corrupt or foreign file
 * is recognised and refused as a whole (DL_EFORMAT) rather than half read:
 *
 *   slurm-datalocality-state 2
 *   saved <unix time>
 *   stats <since> <cycles> <plans> <plan s total> <plan s max>
 *         <plan s last> <placed> <moved> <widened> <started planned>
 *         <started widened> <started unplaced> <pending placed>
 *                                              (one line, at most one;
 *                                               only if p->sched is set)
 *   node <name> <capacity|-> <hits> <misses> <hit bytes> <miss bytes>
 *   file <size|-> <access count> <path>        (numbered from 0 in order;
 *                                               files cached somewhere)
 *   cached <node name> <file number>
 *   service <node name> <source> <connected> <since> <files> <used>
 *           <capacity|-> <storage bytes> <peer bytes> <prefetches sent>
 *           <cancelled> <done> <active> <replicas>
 *                                             (one line per node; only
 *                                              if p->service is set)
 *   power <node name> <state> <since> <emptied> <lost|kept>
 *                                             (one line per node; only
 *                                              if p->power is set)
 *   plan <policy> <unix time> <cut bytes> <imbalance> <seconds> <jobs>
 *   job <id> <node name|-> <order> <files cached> <files> <bytes cached>
 *       <bytes>                                (one line)
 *   crc <8 hex digits>
 *
 * Nodes are matched by name on load: node indices may change when
 * slurm.conf does, names do not.
 *
 * Version 2 added the stats line.  Version-1 files still load (they have
 * no stats line); a stats line in a version-1 file is refused like any
 * other unknown record, and so is a second stats line.  Version 3 added
 * the service lines (what each node's cache service reports, and where
 * the model of the node comes from: DL_SOURCE_NAMES); they are checked
 * on load but not restored (a connection does not survive a restart).
 * Version 4 added the power lines (power saving: the node's power state,
 * DL_POWER_NAMES, since when, how often a power-down emptied its model,
 * and what the configuration says a powered-down node's cache is);
 * checked on load, not restored (slurmctld's node table says it anew).
 * A version-4 service line may lack its last field, the replica counter
 * (added without a version: older readers of such lines report the
 * services as unreadable, as for any newer line); one without it loads.
 */
#ifndef DL_PERSIST_H
#define DL_PERSIST_H

#include <stddef.h>
#include <stdint.h>

#include "dl_cache.h"
#include "dl_policy.h"

#define DL_PERSIST_VERSION 4

/* Hit counters of one node: jobs' input found cached (hits) or not. */
typedef struct dl_node_stats {
	uint64_t hits, misses;          /* files */
	uint64_t hit_bytes, miss_bytes;
} dl_node_stats_t;

/*
 * Scheduler counters, as sdiag shows them for Slurm's own schedulers.
 * The scheduler owns and updates them; the state file only carries them
 * across a slurmctld restart, and sdatalocality shows them.
 */
typedef struct dl_sched_stats {
	int64_t since;             /* unix time the counters started */
	uint64_t cycles;           /* agent cycles run */
	uint64_t plans;            /* plans made (policy runs) */
	double plan_sec_total;     /* sum of plan wall times, seconds */
	double plan_sec_max;       /* longest plan, seconds */
	double plan_sec_last;      /* latest plan, seconds */
	uint64_t placed;           /* jobs given a placement restriction */
	uint64_t moved;            /* restrictions moved to a better node */
	uint64_t widened;          /* restrictions lifted at the wait bound */
	uint64_t started_planned;  /* jobs started on their planned node */
	uint64_t started_widened;  /* jobs started elsewhere after widening */
	uint64_t started_unplaced; /* annotated jobs started, no placement */
	uint32_t pending_placed;   /* pending jobs restricted at last cycle */
} dl_sched_stats_t;

/* Where the model of a node comes from (the service line's <source>). */
typedef enum {
	DL_SOURCE_JOBS,         /* "cached where the job ran" */
	DL_SOURCE_INVENTORY,    /* its inventory file, read by the controller */
	DL_SOURCE_SERVICE,      /* its cache service, connected */
	DL_SOURCE_UNKNOWN,      /* its service was lost: last model kept */
	DL_SOURCE_COUNT
} dl_source_t;

/* The words for dl_source_t, in its order. */
#define DL_SOURCE_NAMES { "jobs", "inventory", "service", "unknown" }

/* What a node's cache service reports, and the prefetch counters. */
typedef struct dl_service_stats {
	dl_source_t source;
	int connected;             /* 0 or 1 */
	int64_t since;             /* unix time (dis)connected, 0: never */
	uint64_t files, used;      /* as the service reports them */
	uint64_t capacity;         /* DL_CACHE_UNLIMITED: unlimited */
	uint64_t storage_bytes;    /* copied from shared storage */
	uint64_t peer_bytes;       /* copied from peer nodes */
	uint64_t prefetch_sent, prefetch_cancelled, prefetch_done;
	uint64_t prefetch_active;  /* jobs with a prefetch in force */
	uint64_t replicas;         /* a plan's copies sent to the node; a
				      file of 14 fields (before them): 0 */
} dl_service_stats_t;

/*
 * A node's power state (power saving, cloud nodes).  Slurm's flags map
 * to them in the plugin: POWERING_DOWN after its SuspendProgram ran,
 * POWERED_DOWN, POWERING_UP while it resumes.
 */
typedef enum {
	DL_POWER_UP,
	DL_POWER_DOWN,          /* powered down */
	DL_POWER_RESUMING,      /* powering up */
	DL_POWER_SUSPENDING,    /* powering down */
	DL_POWER_COUNT
} dl_power_t;

/* The words for dl_power_t, in its order. */
#define DL_POWER_NAMES { "up", "powered_down", "powering_up", "powering_down" }

/* A node's power record (the power line). */
typedef struct dl_power_stats {
	dl_power_t state;
	int64_t since;             /* unix time it entered state, 0: unknown */
	uint64_t emptied;          /* power-downs that emptied its model */
	int kept;                  /* 1: PowerDownCache=kept */
} dl_power_stats_t;

/* Everything saved besides the tracker; arrays are the caller's. */
typedef struct dl_persist {
	uint32_t nnodes;
	const char *const *node_names;  /* [nnodes] */
	dl_node_stats_t *stats;         /* [nnodes], may be NULL */
	const dl_plan_t *plan;          /* may be NULL */
	const char *const *plan_nodes;  /* names for plan node indices */
	uint32_t plan_nnodes;
	int64_t plan_time;              /* unix time of the plan */
	/* May be NULL: saved if set, restored into on load if set. */
	dl_sched_stats_t *sched;
	/* [nnodes], may be NULL: saved if set, never restored. */
	const dl_service_stats_t *service;
	/* [nnodes], may be NULL: saved if set, never restored. */
	const dl_power_stats_t *power;
} dl_persist_t;

/**
 * dl_persist_save - write the state to path atomically: a temporary file
 * in the same directory, fsync, rename, fsync of the directory.  On error
 * the previous file is left as it was.  The scheduler counters are saved
 * if p->sched is set; a plan time that is not a finite number >= 0 is
 * saved as 0, so that one bad counter cannot make the whole file
 * unreadable.
 * \return 0, DL_EIO (errno tells why), DL_EINVAL.
 */
int dl_persist_save(const char *path, const dl_cache_t *cache,
		    const dl_persist_t *p);

/**
 * dl_persist_load - restore the tracker (files, sizes, access counts, the
 * contents of every node whose name is in p->node_names) and, if
 * p->stats is given, the hit counters, and if p->sched is given and the
 * file has a stats line, the scheduler counters (without one, as in a
 * version-1 file, *p->sched is left as it was).  Files cached on nodes
 * that no longer exist are dropped.  The plan is not restored (a new one
 * is made at once).  All or nothing: the file is verified completely
 * before the tracker, p->stats or p->sched is touched.
 * OUT err - a one-line reason on failure
 * \return 0, DL_ENOENT (no file), DL_EIO, DL_ETOOBIG (over 512 MiB: not
 *         read at all), DL_EFORMAT (corrupt, truncated,
 *         foreign or of another version), DL_ENOMEM; a failed restore of
 *         a single entry (capacity) is skipped, not an error.
 */
int dl_persist_load(const char *path, dl_cache_t *cache, dl_persist_t *p,
		    char *err, size_t errlen);

/**
 * dl_persist_read - the verified text of a state file (header and records,
 * without the crc line), for tools that show it.
 * OUT text - NUL-terminated, free with free()
 * \return as dl_persist_load().
 */
int dl_persist_read(const char *path, char **text, char *err,
		    size_t errlen);

/* dl_crc32 - CRC-32 (IEEE) of buf, continuing from crc (start with 0). */
uint32_t dl_crc32(uint32_t crc, const void *buf, size_t len);

#endif /* DL_PERSIST_H */
