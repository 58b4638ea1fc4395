/* agent_model.c - the controller's cache model; see agent_model.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "src/common/slurm_xlator.h"

#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "dl_error.h"
#include "dl_files.h"
#include "u64set.h"
#include "dl_slurm.h"
#include "agent_channel.h"
#include "agent_inv.h"
#include "agent_model.h"

/* Largest inventory read: 1M files of long paths. */
#define INVENTORY_MAX (256 << 20)

static dl_cache_t *cache;
static uint32_t cache_nodes;
static dl_node_stats_t *node_stats;   /* [cache_nodes] */
/* Change stamp (mtime, size, inode) of each node's inventory when read. */
static struct stat *inv_seen;         /* [cache_nodes] */
static bool *inv_ok;                  /* [cache_nodes]: has an inventory */
static dl_source_t *src;        /* [cache_nodes] */
static uint8_t *peer_ok;        /* [cache_nodes]: serves peers now */
static uint64_t *chan_gen;            /* [cache_nodes]: service's, applied */
static uint64_t resets;               /* agent_model_resets() */
static dl_power_stats_t *pw;        /* [cache_nodes] */
static bool *off;               /* [cache_nodes]: cache lost, model empty */

bool agent_model_setup(uint32_t nnodes, const agent_conf_t *c)
{
	bool fresh = false;
	uint32_t n;

	if (!cache || cache_nodes != nnodes) {
		agent_model_fini();
		cache_nodes = nnodes;
		cache = dl_cache_create(nnodes, c->evict, 1);
		node_stats = xcalloc(nnodes ? nnodes : 1, sizeof(*node_stats));
		inv_seen = xcalloc(nnodes ? nnodes : 1, sizeof(*inv_seen));
		inv_ok = xcalloc(nnodes ? nnodes : 1, sizeof(*inv_ok));
		src = xcalloc(nnodes ? nnodes : 1, sizeof(*src));
		peer_ok = xcalloc(nnodes ? nnodes : 1, sizeof(*peer_ok));
		chan_gen = xcalloc(nnodes ? nnodes : 1, sizeof(*chan_gen));
		memset(chan_gen, 0xff, (nnodes ? nnodes : 1) * sizeof(*chan_gen));
		pw = xcalloc(nnodes ? nnodes : 1, sizeof(*pw));
		off = xcalloc(nnodes ? nnodes : 1, sizeof(*off));
		fresh = cache != NULL;
	}
	for (n = 0; cache && n < cache_nodes; n++)
		dl_cache_set_capacity(cache, n, c->capacity);
	resets++;
	return fresh;
}

uint64_t agent_model_resets(void)
{
	return resets;
}

void agent_model_fini(void)
{
	dl_cache_destroy(cache);
	cache = NULL;
	cache_nodes = 0;
	xfree(node_stats);
	xfree(inv_seen);
	xfree(inv_ok);
	xfree(src);
	xfree(peer_ok);
	xfree(chan_gen);
	xfree(pw);
	xfree(off);
}

bool agent_model_has_inventory(uint32_t node)
{
	return node < cache_nodes && inv_ok[node];
}

dl_cache_t *agent_model_cache(void)
{
	return cache;
}

uint32_t agent_model_nodes(void)
{
	return cache_nodes;
}

dl_node_stats_t *agent_model_stats(void)
{
	return node_stats;
}

void agent_model_parse_job(agent_job_t *ji, const char *comment,
			   const char *script_files, const char *bb,
			   uid_t uid, gid_t gid, const dl_pattern_ctx_t *ctx,
			   uint32_t max_files, const char *pfx)
{
	dl_filelist_t *files = NULL;
	char *msg = NULL;
	size_t i, total = 0;

	ji->parsed = true;
	ji->task_id = ctx->task_id;
	if (dl_slurm_job_files_max(comment, script_files, bb, uid, gid, ctx,
				   max_files, &files, &total, &msg)) {
		/*
		 * job_submit/datalocality rejects bad annotations at submit;
		 * getting here means a list file changed or vanished since.
		 * The job still runs, without a data preference.
		 */
		error("%s: JobId=%u: %s; scheduling it without data preference",
		      pfx, ji->job_id, msg);
		xfree(msg);
		return;
	}
	/* Bounded cost per job: a plan is no place for a huge job. */
	if (total > max_files) {
		ji->too_many = total > UINT32_MAX ? UINT32_MAX : total;
		info("%s: JobId=%u names %u files, above MaxFilesPerJob=%u: no placement",
		     pfx, ji->job_id, ji->too_many, max_files);
		return;
	}
	if (!files)
		return;
	ji->files = xcalloc(files->count ? files->count : 1, sizeof(uint32_t));
	/* Sizes are what the job's user may see (dl_slurm_job_files()). */
	for (i = 0; i < files->count; i++) {
		uint64_t size = files->files[i].size;
		int64_t id;

		id = dl_cache_file_intern(cache, files->files[i].path, size);
		if (id < 0) {
			error("%s: JobId=%u: %s: %s", pfx, ji->job_id,
			      files->files[i].path, dl_strerror((int)id));
			continue;
		}
		ji->files[ji->nfiles++] = (uint32_t)id;
	}
	dl_filelist_free(files);
}

/* Files of a node's model that its inventory does not list. */
typedef struct {
	const dl__u64set_t *listed;
	uint32_t *drop;         /* xmalloc'd, room for every file of the node */
	uint32_t ndrop;
} unlisted_t;

static int _collect_unlisted(uint32_t file, void *arg)
{
	unlisted_t *u = arg;

	if (!dl__u64set_has(u->listed, file))
		u->drop[u->ndrop++] = file;
	return 0;
}

/* dl-stage's cache directory of a node: CacheDir with %n expanded. */
static char *_node_cache_dir(const char *cache_dir, const char *node)
{
	char *dir = NULL;
	const char *p;

	for (p = cache_dir; *p; p++) {
		if (p[0] == '%' && p[1] == 'n') {
			xstrcat(dir, node);
			p++;
		} else {
			xstrfmtcat(dir, "%c", *p);
		}
	}
	return dir;
}

char *agent_model_inventory_path(const char *cache_dir, const char *node)
{
	char *path = _node_cache_dir(cache_dir, node);

	xstrcat(path, "/.inventory");
	return path;
}

static bool _unchanged(const struct stat *a, const struct stat *b)
{
	return a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_size == b->st_size && a->st_ino == b->st_ino;
}

/* "<path> <size>\n" exactly; RET false for anything else. */
static bool _parse_line(char *line, size_t len, uint64_t *size)
{
	char *sp, *end;

	if (!len || line[len - 1] != '\n')
		return false;
	line[--len] = '\0';
	if (!(sp = strchr(line, ' ')) || !agent_inv_valid_path(line, sp - line) ||
	    !sp[1] || strspn(sp + 1, "0123456789") != strlen(sp + 1) ||
	    strlen(sp + 1) > 19)
		return false;
	*sp = '\0';
	errno = 0;
	*size = strtoull(sp + 1, &end, 10);
	return !errno && !*end;
}

/* Read the inventory's files into listed; RET rejected lines. */
static uint64_t _read_lines(FILE *f, dl__u64set_t *listed)
{
	char line[DL_PATH_MAX + 64];
	uint64_t size, bad = 0;
	bool skip = false;

	while (fgets(line, sizeof(line), f)) {
		size_t len = strlen(line);
		bool cont = skip;
		int64_t id;

		/* The rest of an over-long line is no line of its own. */
		skip = !len || line[len - 1] != '\n';
		if (cont || line[0] == '#')
			continue; /* the header, or comments */
		if (!_parse_line(line, len, &size)) {
			bad++;
			continue;
		}
		id = dl_cache_file_intern(cache, line, size);
		if (id >= 0)
			dl__u64set_add(listed, (uint64_t)id);
	}
	return bad;
}

/* Put a listed file in the model of node *arg. */
static void _insert_listed(uint64_t file, void *arg)
{
	uint32_t node = *(const uint32_t *)arg;

	if (!dl_cache_contains(cache, node, (uint32_t)file))
		dl_cache_insert(cache, node, (uint32_t)file,
				(uint64_t)time(NULL), NULL, NULL);
}

/*
 * One truth about the cache: where the controller can read a node's
 * inventory (dl-stage rewrites DIR/.inventory atomically after every
 * staging and eviction; shared file system, or one host), the model of
 * that node becomes exactly its list.
 */
static bool _sync(uint32_t node, const char *name, const char *cache_dir);

/* Make node's model exactly the listed files. */
static void _replace(uint32_t node, const dl__u64set_t *listed)
{
	unlisted_t u = { .listed = listed };
	uint32_t i;

	/* Drop what the node does not report. */
	u.drop = xcalloc(dl_cache_node_files(cache, node) + 1,
			 sizeof(uint32_t));
	dl_cache_foreach(cache, node, _collect_unlisted, &u);
	for (i = 0; i < u.ndrop; i++)
		dl_cache_remove(cache, node, u.drop[i]);
	xfree(u.drop);
	/*
	 * Then what it does: adding first could overflow the model's
	 * capacity with files about to go, and evict listed ones.
	 */
	dl__u64set_foreach(listed, _insert_listed, &node);
}

bool agent_model_sync_node(uint32_t node, const char *name,
			   const char *cache_dir)
{
	if (!cache || node >= cache_nodes || off[node])
		return false;
	/* The service's word is the truth while it is connected. */
	if (src[node] == DL_SOURCE_SERVICE)
		return true;
	inv_ok[node] = cache_dir && _sync(node, name, cache_dir);
	if (inv_ok[node])
		src[node] = DL_SOURCE_INVENTORY;
	else if (src[node] == DL_SOURCE_INVENTORY)
		src[node] = DL_SOURCE_JOBS;
	return inv_ok[node];
}

/* A file a node service reports, into the set *arg. */
static void _listed_service(const char *path, uint64_t size, void *arg)
{
	int64_t id = dl_cache_file_intern(cache, path, size);

	if (id >= 0)
		dl__u64set_add(arg, (uint64_t)id);
}

bool agent_model_sync_service(uint32_t node, const agent_conf_t *c)
{
	agent_channel_view_t v;
	dl__u64set_t listed;

	if (!cache || node >= cache_nodes || off[node])
		return false;
	if (!agent_channel_view(node, &v) || !v.complete) {
		if (src[node] == DL_SOURCE_SERVICE) {
			/* Lost: keep the model, flag it, re-read at resync. */
			src[node] = DL_SOURCE_UNKNOWN;
			inv_ok[node] = false;
			chan_gen[node] = UINT64_MAX;
			memset(&inv_seen[node], 0, sizeof(inv_seen[node]));
		}
		return false;
	}
	/* Its store's capacity, so that the model never evicts on its own. */
	dl_cache_set_capacity(cache, node,
			      v.c.capacity == AGENT_INV_UNLIMITED ?
				      c->capacity : v.c.capacity);
	dl__u64set_init(&listed);
	if (agent_channel_inventory(node, &chan_gen[node], _listed_service,
				    &listed))
		_replace(node, &listed);
	dl__u64set_fini(&listed);
	src[node] = DL_SOURCE_SERVICE;
	inv_ok[node] = true;
	return true;
}

static const char *const power_names[] = DL_POWER_NAMES;

/*
 * Forget that the node's inventory and its service's were applied, so
 * that the first ones after it is up again replace the model.
 */
static void _forget_inventory(uint32_t node)
{
	chan_gen[node] = UINT64_MAX;
	memset(&inv_seen[node], 0, sizeof(inv_seen[node]));
	inv_ok[node] = false;
}

bool agent_model_power(uint32_t node, const char *name, int power,
		       bool kept, const char *pfx)
{
	bool lost = power != DL_POWER_UP && !kept, emptied = false;
	dl__u64set_t none;
	uint32_t files;

	if (!cache || node >= cache_nodes || power < 0 ||
	    power >= DL_POWER_COUNT)
		return false;
	pw[node].kept = kept;
	if ((dl_power_t)power != pw[node].state) {
		pw[node].state = (dl_power_t)power;
		pw[node].since = time(NULL);
		info("%s: node %s is %s%s", pfx, name, power_names[power],
		     power == DL_POWER_UP ? "" :
		     kept ? ": its cache model is kept (PowerDownCache=kept)" :
			    ": its cache is lost (PowerDownCache=lost)");
	}
	/*
	 * Emptied once, when it goes: files of a job Slurm starts on it while
	 * it resumes are recorded as for any node, the job stages them.
	 */
	if (lost && !off[node]) {
		if ((files = dl_cache_node_files(cache, node))) {
			dl__u64set_init(&none);
			_replace(node, &none);
			dl__u64set_fini(&none);
			info("%s: node %s: cache model emptied (%u files) by the power-down",
			     pfx, name, files);
			emptied = true;
		}
		pw[node].emptied++;
		_forget_inventory(node);
	}
	/* Lost or back (with _forget_inventory() above): a sync is due. */
	if (off[node] != lost)
		resets++;
	off[node] = lost;
	return emptied;
}

void agent_model_power_info(uint32_t node, dl_power_stats_t *out)
{
	memset(out, 0, sizeof(*out));
	if (node < cache_nodes)
		*out = pw[node];
}

dl_source_t agent_model_source(uint32_t node)
{
	return node < cache_nodes ? src[node] : DL_SOURCE_JOBS;
}

const uint8_t *agent_model_peer_sources(void)
{
	uint32_t n;

	for (n = 0; n < cache_nodes; n++)
		peer_ok[n] = src[n] == DL_SOURCE_SERVICE;
	return peer_ok;
}

static bool _sync(uint32_t node, const char *name, const char *cache_dir)
{
	char *path;
	dl__u64set_t listed;
	struct stat sb;
	uint64_t bad;
	FILE *f;

	path = agent_model_inventory_path(cache_dir, name);
	if (stat(path, &sb) || !S_ISREG(sb.st_mode)) {
		xfree(path);
		return false;
	}
	if (sb.st_size > INVENTORY_MAX) {
		if (sb.st_mtime != inv_seen[node].st_mtime)
			error("datalocality: %s is %lld bytes, above %d MiB: not read; the node's cache is modelled from its jobs",
			      path, (long long)sb.st_size, INVENTORY_MAX >> 20);
		inv_seen[node].st_mtime = sb.st_mtime;
		xfree(path);
		return false;
	}
	if (_unchanged(&sb, &inv_seen[node]) || !(f = fopen(path, "re"))) {
		xfree(path);
		return inv_seen[node].st_ino != 0;
	}
	xfree(path);
	dl__u64set_init(&listed);
	if ((bad = _read_lines(f, &listed)))
		error("datalocality: %s/.inventory: %" PRIu64 " lines are not \"<path> <size>\", ignored",
		      name, bad);
	fclose(f);
	inv_seen[node] = sb;
	_replace(node, &listed);
	dl__u64set_fini(&listed);
	return true;
}

/* Record ji's files (those of known size) as cached on node at now. */
static void _insert_files(const agent_job_t *ji, int32_t node, uint64_t now,
			  const char *pfx)
{
	uint32_t i;
	int rc;

	for (i = 0; i < ji->nfiles; i++) {
		if (dl_cache_file_size(cache, ji->files[i]) == DL_SIZE_UNKNOWN)
			continue; /* cannot be accounted against capacity */
		rc = dl_cache_insert(cache, node, ji->files[i], now, NULL, NULL);
		if (rc)
			debug("%s: JobId=%u: not caching %s on node %d: %s",
			      pfx, ji->job_id,
			      dl_cache_file_path(cache, ji->files[i]), node,
			      dl_strerror(rc));
	}
}

void agent_model_job_started(agent_job_t *ji, int32_t node, bool has_inv,
			     const char *pfx)
{
	uint64_t now = (uint64_t)time(NULL);
	dl_node_stats_t *ns;
	uint32_t i;

	if (ji->cached_on == node || node < 0 || (uint32_t)node >= cache_nodes)
		return;
	ns = &node_stats[node];
	ji->hit_files = 0;
	ji->hit_bytes = 0;
	for (i = 0; i < ji->nfiles; i++) {
		uint64_t sz = dl_cache_file_size(cache, ji->files[i]);

		if (sz == DL_SIZE_UNKNOWN)
			sz = 0;
		if (dl_cache_contains(cache, node, ji->files[i])) {
			ns->hits++;
			ns->hit_bytes += sz;
			ji->hit_files++;
			ji->hit_bytes += sz;
		} else {
			ns->misses++;
			ns->miss_bytes += sz;
		}
	}
	ji->cached_on = node;
	if (!has_inv)
		_insert_files(ji, node, now, pfx);
}

void agent_model_job_ran_on(const agent_job_t *ji, int32_t node, bool has_inv,
			    const char *pfx)
{
	if (has_inv || node < 0 || (uint32_t)node >= cache_nodes)
		return;
	_insert_files(ji, node, (uint64_t)time(NULL), pfx);
}

/* Compaction: old file id -> new, interning on first use. */
typedef struct {
	dl_cache_t *old, *nc;
	uint32_t *map;          /* [old file count], UINT32_MAX: not yet */
	uint32_t live;
	uint32_t node;
	bool failed;
} compact_t;

static uint32_t _remap(compact_t *k, uint32_t f)
{
	int64_t id;

	if (k->map[f] != UINT32_MAX)
		return k->map[f];
	id = dl_cache_file_intern(k->nc, dl_cache_file_path(k->old, f),
				  dl_cache_file_size(k->old, f));
	if (id < 0) {
		k->failed = true;
		return 0;
	}
	k->live++;
	return k->map[f] = (uint32_t)id;
}

static int _copy_cached(uint32_t file, void *arg)
{
	compact_t *k = arg;
	uint32_t f = _remap(k, file);

	if (!k->failed)
		dl_cache_insert(k->nc, k->node, f, (uint64_t)time(NULL), NULL,
				NULL);
	return 0;
}

static void _remap_job(agent_job_t *ji, void *arg)
{
	uint32_t i;

	for (i = 0; i < ji->nfiles; i++)
		ji->files[i] = _remap(arg, ji->files[i]);
}

static void _sum_files(agent_job_t *ji, void *arg)
{
	*(uint64_t *)arg += ji->nfiles;
}

/* Live files: job records' and cached ones, an upper bound. */
static uint32_t _live_bound(void)
{
	uint64_t n = 0;
	uint32_t node;

	for (node = 0; node < cache_nodes; node++)
		n += dl_cache_node_files(cache, node);
	agent_jobs_foreach(_sum_files, &n);
	return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

bool agent_model_compact(const agent_conf_t *c, const char *pfx)
{
	uint32_t total = cache ? dl_cache_file_count(cache) : 0, n;
	compact_t k = { .old = cache };

	/* Rare and cheap enough: only when most interned paths are dead. */
	if (total < 100000 || total < 4 * (uint64_t)_live_bound())
		return false;
	if (!(k.nc = dl_cache_create(cache_nodes, c->evict, 1)))
		return false;
	k.map = xcalloc(total, sizeof(uint32_t));
	memset(k.map, 0xff, total * sizeof(uint32_t));
	for (n = 0; n < cache_nodes; n++) {
		dl_cache_set_capacity(k.nc, n, c->capacity);
		k.node = n;
		dl_cache_foreach(cache, n, _copy_cached, &k);
	}
	agent_jobs_foreach(_remap_job, &k);
	if (k.failed) {
		/* Ids in job records may be half translated: start over. */
		error("%s: compacting the cache model failed; starting it afresh",
		      pfx);
		agent_jobs_init();
	}
	info("%s: cache model compacted: %u paths, %u still referred to",
	     pfx, total, k.live);
	dl_cache_destroy(cache);
	cache = k.nc;
	xfree(k.map);
	malloc_trim(0);
	return true;
}
