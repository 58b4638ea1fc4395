/*
 * stage_conf.h - the settings dl-stage takes from datalocality.conf.
 *
 * dl-stage runs on compute nodes without Slurm's config parser, so it
 * reads the keys it needs itself, with Slurm's syntax: one Key=value per
 * line, '#' starts a comment, keys case-insensitive, other keys ignored
 * (they belong to slurmctld's plugin).  A line that is neither blank, a
 * comment nor Key=value is reported and ignored.
 *
 *   CacheDir=/var/cache/dl/%n   the node-local cache; %n is the node name,
 *                               so that several slurmd on one host (test
 *                               clusters, --enable-multiple-slurmd) have
 *                               separate caches; %% is a '%'
 *   CacheCapacity=200G          bytes (binary units) or "unlimited"; each
 *                               cached file counts with its metadata
 *   CacheMaxFiles=100000        cached files at most (each takes two
 *                               inodes); default no limit but the file
 *                               system's
 *   CacheUserShare=0.5          a fraction of CacheCapacity up to which a
 *                               user's cached files are never evicted for
 *                               another user's job; default 0 (off)
 *   EvictionPolicy=lru          value | lru | lfu | fifo | random
 *   StageOpenTimeout=60         seconds one open of a source as the job's
 *                               user may take (1-3600)
 */
#ifndef DL_STAGE_CONF_H
#define DL_STAGE_CONF_H

#include <stddef.h>
#include <stdint.h>

#include "dl_cache.h"
#include "stage.h"

#define DL_STAGE_OPEN_TIMEOUT 60

typedef struct dl_stage_conf {
	char *cache_dir;   /* as written, %n not expanded; NULL if unset */
	uint64_t capacity; /* bytes, DL_CACHE_UNLIMITED by default */
	dl_evict_t policy; /* DL_EVICT_VALUE by default */
	uint64_t max_files;   /* 0 (default): no limit */
	double user_share;    /* 0 (default): off; else in (0, 1] */
	unsigned open_timeout; /* seconds, DL_STAGE_OPEN_TIMEOUT by default */
	/*
	 * Benchmarks only: emulate shared storage of emu_servers servers,
	 * each serving one copy at a time at emu_bw bytes/s, by holding a
	 * lock file in emu_lockdir per server while copying at that pace.
	 * emu_bw 0 (default): copy at full speed.
	 */
	uint64_t emu_bw;
	unsigned emu_servers;
	char *emu_lockdir;
} dl_stage_conf_t;

/* Told of each value that was ignored (msg has no newline). */
typedef void (*dl_stage_warn_fn)(const char *msg, void *arg);

/**
 * dl_stage_conf_path - where datalocality.conf is: next to slurm_conf (the
 * value of $SLURM_CONF), or next to /etc/slurm/slurm.conf if NULL/empty.
 * \return 0, or DL_ERANGE if buf is too small.
 */
int dl_stage_conf_path(const char *slurm_conf, char *buf, size_t len);

/**
 * dl_stage_conf_read - read path into conf (defaults first).
 * A missing file gives the defaults.  A bad value is reported through warn
 * and leaves that setting at its default, as slurmctld's plugin does.
 * IN require_safe - refuse a file not owned by root or writable by group
 *                   or others (dl-stage runs as root on what it says)
 * OUT err, errlen - why the file was refused or could not be read
 * \return 0, DL_EPERM for an unsafe file, DL_EIO if it cannot be read,
 *         DL_ENOMEM, DL_EINVAL.  On error conf holds the defaults.
 */
int dl_stage_conf_read(const char *path, int require_safe,
		       dl_stage_conf_t *conf, dl_stage_warn_fn warn,
		       void *warn_arg, char *err, size_t errlen);

/* dl_stage_conf_clear - free what conf holds and reset it to defaults. */
void dl_stage_conf_clear(dl_stage_conf_t *conf);

/*
 * dl_stage_conf_to_opts - the cache's settings of conf into opts (for
 * dl_stage_open()), the fields conf has no say in left alone.
 * opts->emu_lockdir becomes a malloc'd copy for the caller to free (NULL
 * without one, or out of memory: dl_stage_open() then refuses an
 * emulation without its lock directory).
 */
void dl_stage_conf_to_opts(const dl_stage_conf_t *conf,
			   dl_stage_opts_t *opts);

/* Told of each Key=value of a Slurm-style file (the first on a line). */
typedef void (*dl_stage_key_fn)(const char *key, char *val, void *arg);

/**
 * dl_stage_conf_keys - the Key=value lines of a Slurm-style file (comments
 * and blanks ignored, as slurm.conf is written).
 * \return 0, -1 if the file cannot be read.
 */
int dl_stage_conf_keys(const char *path, dl_stage_key_fn fn, void *arg);

/**
 * dl_stage_user_uid - the uid of a SlurmUser value (a name, else a
 * number), 0 for root, an empty value or an unknown name.
 */
uid_t dl_stage_user_uid(const char *user);

/**
 * dl_stage_slurm_user - the uid of slurm.conf's SlurmUser (a name or a
 * number), 0 when it is root, not set, or the file cannot be read.
 * IN slurm_conf - $SLURM_CONF, or NULL/empty for /etc/slurm/slurm.conf
 */
uid_t dl_stage_slurm_user(const char *slurm_conf);

/**
 * dl_stage_expand_dir - CacheDir with %n replaced by node and %% by '%'.
 * IN node - the node name (SLURMD_NODENAME); must be a plain file name
 *           (no '/', not "." or "..") when the pattern uses %n
 * \return a new string to free(), or NULL: bad node name, a result that is
 *         not an absolute path or longer than 4095 bytes, no memory.
 */
char *dl_stage_expand_dir(const char *pattern, const char *node);

#endif /* DL_STAGE_CONF_H */
