/*
 * dl_agent.c - the dispatch thread of sched/datalocality.
 *
 * Each cycle has three phases, so that slurmctld's locks are held only
 * for copying and for applying:
 *   1. snapshot (read locks): nodes, pending and running jobs, and the
 *      comments of jobs not seen before;
 *   2. plan (no lock): parse new annotations, stat file sizes, update the
 *      cache tracker with the jobs that started, run the policy;
 *   3. apply (write locks): start jobs - planned ones on their node, in the
 *      order of the plan, then every other eligible job in priority order -
 *      and explain in each waiting job's Reason why it waits.
 * A cycle runs when job or node records changed, and at least once a second.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "src/common/slurm_xlator.h"

#include "slurm/slurm_errno.h"
#include "src/common/bitstring.h"
#include "src/common/job_resources.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/parse_config.h"
#include "src/common/read_config.h"
#include "src/common/xhash.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/acct_policy.h"
#include "src/slurmctld/job_scheduler.h"
#include "src/slurmctld/licenses.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/node_scheduler.h"
#include "src/slurmctld/slurmctld.h"
#include "src/slurmctld/srun_comm.h"

#include "dl_cache.h"
#include "dl_error.h"
#include "dl_files.h"
#include "dl_persist.h"
#include "dl_policy.h"
#include "dl_state.h"
#include "u64set.h"
#include "dl_agent.h"
#include "dl_slurm.h"

#define PFX "sched/datalocality"
/* How often the thread looks for changes, in milliseconds. */
#define POLL_MS 100
/* _start_job(): the job may not start now (limits, licenses); it waits. */
#define RC_NOT_RUNNABLE (-100)
/* The policy when datalocality.conf names none, or one that fails. */
#define DL_DEFAULT_POLICY "online-hps"

/* Settings from datalocality.conf; see doc/datalocality.dl_conf.5. */
typedef struct {
	char *policy;           /* xmalloc'd */
	char *policy_params;    /* xmalloc'd, may be NULL */
	dl_evict_t evict;
	uint64_t capacity;      /* per node, bytes; UINT64_MAX = unlimited */
	char *cache_dir;        /* dl-stage's CacheDir (%n: node), or NULL */
	dl_params_t params;
} agent_conf_t;

/* What the agent remembers about one job across cycles. */
typedef struct {
	uint32_t job_id;
	char key[12];           /* decimal job id, the xhash key */
	uint32_t nfiles;        /* 0: no annotation */
	uint32_t *files;        /* tracker ids, xmalloc'd */
	int32_t cached_on;      /* node its files were recorded on, or -1 */
	uint64_t seen;          /* cycle in which it was last seen */
	bool parsed;
} seen_job_t;

/* One job as copied under the read lock. */
typedef struct {
	uint32_t job_id;
	bool running;
	bool placeable;         /* single node, no -w, not a hetjob */
	int32_t node;           /* running: first node */
	uint32_t cpus;
	uint32_t priority;
	time_t submit;
	time_t start;           /* running: when it started */
	uid_t uid;
	gid_t gid;
	char *comment;          /* only for jobs the agent has not parsed */
	char *bb;
	uint8_t *eligible;      /* per node, xmalloc'd */
} snap_job_t;

typedef struct {
	uint32_t nnodes;
	char **names;
	uint32_t *cpus;
	uint32_t *busy;         /* CPUs allocated to running jobs */
	uint8_t *usable;
	uint32_t njobs;
	snap_job_t *jobs;
} snapshot_t;

static pthread_t agent_tid;
static pthread_mutex_t term_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t term_cond = PTHREAD_COND_INITIALIZER;
static bool stop_agent;
static bool reconfig_pending = true;

/* Owned by the agent thread alone. */
static agent_conf_t dl_conf;
static dl_policy_t *policy;
static dl_cache_t *cache;
static uint32_t cache_nodes;
static xhash_t *jobs_seen;
static uint64_t cycle_no;
static dl_node_stats_t *node_stats;   /* [cache_nodes], xmalloc'd */
/* Change stamp (mtime, size) of each node's inventory when last read. */
static struct stat *inv_seen;         /* [cache_nodes], xmalloc'd */
static time_t last_inv_read;
static time_t last_save;
static dl_plan_t *last_plan;          /* of the last cycle, for saving */
static dl_state_t *last_st;

static void _job_info_id(void *item, const char **key, uint32_t *len)
{
	seen_job_t *ji = item;

	*key = ji->key;
	*len = strlen(ji->key);
}

static void _job_info_free(void *item)
{
	seen_job_t *ji = item;

	xfree(ji->files);
	xfree(ji);
}

static seen_job_t *_job_info(uint32_t job_id, bool create)
{
	char key[12];
	seen_job_t *ji;

	snprintf(key, sizeof(key), "%u", job_id);
	ji = xhash_get_str(jobs_seen, key);
	if (ji || !create)
		return ji;
	ji = xmalloc(sizeof(*ji));
	ji->job_id = job_id;
	memcpy(ji->key, key, sizeof(key));
	ji->cached_on = -1;
	xhash_add(jobs_seen, ji);
	return ji;
}

/* ------------------------------------------------------------------ */
/* configuration                                                       */

static void _conf_defaults(agent_conf_t *c)
{
	xfree(c->policy);
	xfree(c->policy_params);
	xfree(c->cache_dir);
	c->policy = xstrdup(DL_DEFAULT_POLICY);
	c->evict = DL_EVICT_VALUE;
	c->capacity = UINT64_MAX;
	dl_params_default(&c->params);
}

/* A size setting; bad values are logged and leave *out unchanged. */
static void _conf_size(s_p_hashtbl_t *tbl, const char *key, uint64_t *out)
{
	char *val = NULL;
	uint64_t v;

	if (!s_p_get_string(&val, key, tbl))
		return;
	if (!xstrcasecmp(val, "unlimited"))
		*out = UINT64_MAX;
	else if (dl_files_parse_size(val, strlen(val), &v))
		error("%s: datalocality.conf: %s=%s is not a size, keeping the default",
		      PFX, key, val);
	else
		*out = v;
	xfree(val);
}

static void _conf_double(s_p_hashtbl_t *tbl, const char *key, double min,
			 double *out)
{
	double v;

	if (!s_p_get_double(&v, key, tbl))
		return;
	if (!(v > min))
		error("%s: datalocality.conf: %s=%g must be above %g, keeping %g",
		      PFX, key, v, min, *out);
	else
		*out = v;
}

/*
 * Read datalocality.conf next to slurm.conf.  A missing file means the
 * defaults; a bad value is logged and replaced by its default, never fatal.
 */
static void _conf_read(agent_conf_t *c)
{
	static const s_p_options_t options[] = {
		{.key = "Policy", .type = S_P_STRING},
		{.key = "PolicyParameters", .type = S_P_STRING},
		{.key = "EvictionPolicy", .type = S_P_STRING},
		{.key = "CacheCapacity", .type = S_P_STRING},
		{.key = "UnknownFileSize", .type = S_P_STRING},
		{.key = "StorageBandwidth", .type = S_P_DOUBLE},
		{.key = "LocalDiskBandwidth", .type = S_P_DOUBLE},
		{.key = "ComputeCostPerByte", .type = S_P_DOUBLE},
		{.key = "CacheDir", .type = S_P_STRING},
		/* dl-stage's own settings: known here so they are not typos */
		{.key = "EmulateStorageBandwidth", .type = S_P_STRING},
		{.key = "EmulateStorageServers", .type = S_P_STRING},
		{.key = "EmulateStorageLockDir", .type = S_P_STRING},
		{.key = NULL}
	};
	char *path = get_extra_conf_path("datalocality.conf");
	s_p_hashtbl_t *tbl;
	struct stat sb;
	char *val = NULL;

	_conf_defaults(c);
	if (stat(path, &sb)) {
		debug("%s: no %s, using defaults", PFX, path);
		xfree(path);
		return;
	}
	/*
	 * Strict first, so that a typo in a key is reported; then lenient,
	 * so that one bad line does not throw away the good ones.
	 */
	tbl = s_p_hashtbl_create(options);
	if (s_p_parse_file(tbl, NULL, path, false, NULL) != SLURM_SUCCESS) {
		s_p_hashtbl_destroy(tbl);
		tbl = s_p_hashtbl_create(options);
		if (s_p_parse_file(tbl, NULL, path, true, NULL) !=
		    SLURM_SUCCESS) {
			error("%s: cannot parse %s, using defaults", PFX, path);
			s_p_hashtbl_destroy(tbl);
			xfree(path);
			return;
		}
		error("%s: cannot parse %s fully (see the error above), using the settings that could be read",
		      PFX, path);
	}
	if (s_p_get_string(&val, "Policy", tbl)) {
		xfree(c->policy);
		c->policy = val;
		val = NULL;
	}
	s_p_get_string(&c->policy_params, "PolicyParameters", tbl);
	s_p_get_string(&c->cache_dir, "CacheDir", tbl);
	if (s_p_get_string(&val, "EvictionPolicy", tbl)) {
		if (dl_evict_from_name(val, &c->evict))
			error("%s: datalocality.conf: unknown EvictionPolicy=%s, using value",
			      PFX, val);
		xfree(val);
	}
	_conf_size(tbl, "CacheCapacity", &c->capacity);
	_conf_size(tbl, "UnknownFileSize", &c->params.unknown_size);
	_conf_double(tbl, "StorageBandwidth", 0, &c->params.rbw);
	_conf_double(tbl, "LocalDiskBandwidth", 0, &c->params.lbw);
	_conf_double(tbl, "ComputeCostPerByte", -1e-300, &c->params.cpb);
	s_p_hashtbl_destroy(tbl);
	xfree(path);
}

/* ------------------------------------------------------------------ */
/* state file                                                          */

static char *_state_path(void)
{
	return xstrdup_printf("%s/datalocality_state",
			      slurm_conf.state_save_location);
}

/* Node names by index.  Caller holds the node read lock; xfree each. */
static char **_node_names(uint32_t *n)
{
	node_record_t *node_ptr;
	char **names = xcalloc(node_record_count ? node_record_count : 1,
			       sizeof(char *));
	int i;

	for (i = 0; (node_ptr = next_node(&i)); i++)
		names[i] = xstrdup(node_ptr->name);
	for (i = 0; i < node_record_count; i++)
		if (!names[i])
			names[i] = xstrdup("");
	*n = node_record_count;
	return names;
}

static void _free_names(char **names, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		xfree(names[i]);
	xfree(names);
}

/*
 * Restore what the nodes cache and the hit counters from the last run.  A
 * missing file is a first start; a bad one is reported and ignored: the
 * plugin then starts with an empty cache model, never fails.
 * Caller holds the node read lock.
 */
static void _state_load(void)
{
	char *path = _state_path(), err[256] = "";
	uint32_t nn;
	char **names = _node_names(&nn);
	dl_persist_t p = { .nnodes = nn, .node_names = (const char **)names,
			   .stats = node_stats };
	int rc = dl_persist_load(path, cache, &p, err, sizeof(err));

	if (!rc)
		info("%s: restored the cache model from %s: %u files", PFX,
		     path, dl_cache_file_count(cache));
	else if (rc != DL_ENOENT)
		error("%s: ignoring %s: %s (%s); starting with an empty cache model",
		      PFX, path, err[0] ? err : dl_strerror(rc), dl_strerror(rc));
	_free_names(names, nn);
	xfree(path);
}

/* Save the cache model, counters and the last plan (st names its nodes). */
static void _state_save(const dl_plan_t *plan, const dl_state_t *st)
{
	char *path = _state_path();
	const char **names = xcalloc(cache_nodes ? cache_nodes : 1,
				     sizeof(char *));
	dl_persist_t p = { 0 };
	uint32_t n;
	int rc;

	if (!st || st->nnodes != cache_nodes) {
		xfree(names);
		xfree(path);
		return;
	}
	for (n = 0; n < cache_nodes; n++)
		names[n] = st->nodes[n].name;
	p.nnodes = cache_nodes;
	p.node_names = names;
	p.stats = node_stats;
	p.plan = plan;
	p.plan_nodes = names;
	p.plan_nnodes = cache_nodes;
	p.plan_time = (int64_t)time(NULL);
	if ((rc = dl_persist_save(path, cache, &p)))
		error("%s: cannot save %s: %s (%m)", PFX, path,
		      dl_strerror(rc));
	last_save = time(NULL);
	xfree(names);
	xfree(path);
}

/* Apply configuration: policy object, tracker sized to the node table. */
static void _reconfigure(void)
{
	dl_policy_t *p;
	int err;
	uint32_t n;

	_conf_read(&dl_conf);
	p = dl_policy_create(dl_conf.policy, dl_conf.policy_params, &err);
	if (!p) {
		error("%s: policy %s(%s): %s; using %s with its defaults", PFX,
		      dl_conf.policy,
		      dl_conf.policy_params ? dl_conf.policy_params : "",
		      dl_strerror(err), DL_DEFAULT_POLICY);
		p = dl_policy_create(DL_DEFAULT_POLICY, NULL, &err);
		xfree(dl_conf.policy);
		xfree(dl_conf.policy_params);
		dl_conf.policy = xstrdup(DL_DEFAULT_POLICY);
	}
	if (p) {
		dl_policy_destroy(policy);
		policy = p;
	}
	/*
	 * The tracker is indexed by node_record_table_ptr index; a changed
	 * node count means the indices moved, so start from an empty cache.
	 */
	if (!cache || cache_nodes != (uint32_t)node_record_count) {
		dl_cache_destroy(cache);
		cache_nodes = node_record_count;
		cache = dl_cache_create(cache_nodes, dl_conf.evict, 1);
		xhash_clear(jobs_seen);
		xfree(node_stats);
		node_stats = xcalloc(cache_nodes ? cache_nodes : 1,
				     sizeof(*node_stats));
		xfree(inv_seen);
		inv_seen = xcalloc(cache_nodes ? cache_nodes : 1,
				   sizeof(*inv_seen));
		for (n = 0; cache && n < cache_nodes; n++)
			dl_cache_set_capacity(cache, n, dl_conf.capacity);
		if (cache)
			_state_load();
	}
	for (n = 0; cache && n < cache_nodes; n++)
		dl_cache_set_capacity(cache, n, dl_conf.capacity);
	if (!xstrcasestr(slurm_conf.sched_params, "sched_interval=-1") ||
	    !xstrcasestr(slurm_conf.sched_params, "defer"))
		error("%s: SchedulerParameters lacks sched_interval=-1,defer: Slurm's main scheduler will also start jobs, on nodes of its own choosing, and data placement will be lost. Add SchedulerParameters=sched_interval=-1,defer to slurm.conf.",
		      PFX);
	info("%s: policy %s%s%s, eviction %s, cache capacity %s per node",
	     PFX, dl_policy_name(policy), dl_conf.policy_params ? " " : "",
	     dl_conf.policy_params ? dl_conf.policy_params : "",
	     dl_evict_name(dl_conf.evict),
	     dl_conf.capacity == UINT64_MAX ? "unlimited" : "set");
}

/* ------------------------------------------------------------------ */
/* phase 1: snapshot                                                   */

/*
 * Slurm's own notion of a node that can take work: avail_node_bitmap
 * (up, not drained, responding: after a slurmctld restart, a node is in it
 * only once it registered again), plus the states it does not cover.
 */
static bool _node_usable(node_record_t *node_ptr)
{
	return avail_node_bitmap &&
	       bit_test(avail_node_bitmap, node_ptr->index) &&
	       !IS_NODE_FUTURE(node_ptr) && !IS_NODE_POWERED_DOWN(node_ptr);
}

static void _eligible_from(uint8_t *elig, bitstr_t *b)
{
	int i;

	if (!b)
		return;
	for (i = 0; i < node_record_count; i++)
		if (bit_test(b, i))
			elig[i] = 1;
}

static bool _job_placeable(job_record_t *job_ptr)
{
	struct job_details *d = job_ptr->details;

	if (!d || job_ptr->het_job_id || d->req_node_bitmap)
		return false;
	if (d->min_nodes > 1 || (d->max_nodes && d->max_nodes != NO_VAL &&
				 d->max_nodes > 1))
		return false;
	return true;
}

/* Add a running job's allocated CPUs to its nodes' busy counts. */
static void _count_busy(snapshot_t *s, job_record_t *job_ptr)
{
	job_resources_t *jr = job_ptr->job_resrcs;
	int i, k = 0;

	if (!jr || !jr->node_bitmap || !jr->cpus)
		return;
	for (i = 0; i < (int)s->nnodes && k < (int)jr->nhosts; i++)
		if (bit_test(jr->node_bitmap, i))
			s->busy[i] += jr->cpus[k++];
}

/* Copy what the plan needs.  Caller holds job, node and part read locks. */
static void _snapshot(snapshot_t *s)
{
	ListIterator it;
	job_record_t *job_ptr;
	node_record_t *node_ptr;
	uint32_t cap;
	int i;

	s->nnodes = node_record_count;
	s->names = xcalloc(s->nnodes, sizeof(char *));
	s->cpus = xcalloc(s->nnodes, sizeof(uint32_t));
	s->busy = xcalloc(s->nnodes ? s->nnodes : 1, sizeof(uint32_t));
	s->usable = xcalloc(s->nnodes, sizeof(uint8_t));
	for (i = 0; (node_ptr = next_node(&i)); i++) {
		s->names[i] = xstrdup(node_ptr->name);
		s->cpus[i] = node_ptr->cpus_efctv ? node_ptr->cpus_efctv :
						    node_ptr->cpus;
		s->usable[i] = _node_usable(node_ptr);
	}
	for (i = 0; i < (int)s->nnodes; i++)
		if (!s->names[i])
			s->names[i] = xstrdup("?");

	cap = list_count(job_list);
	s->jobs = xcalloc(cap ? cap : 1, sizeof(snap_job_t));
	it = list_iterator_create(job_list);
	while ((job_ptr = list_next(it)) && s->njobs < cap) {
		snap_job_t *sj;
		seen_job_t *ji;

		if (!IS_JOB_PENDING(job_ptr) && !IS_JOB_RUNNING(job_ptr))
			continue;
		if (IS_JOB_RUNNING(job_ptr) &&
		    (!job_ptr->node_bitmap || bit_ffs(job_ptr->node_bitmap) < 0))
			continue;
		if (IS_JOB_RUNNING(job_ptr))
			_count_busy(s, job_ptr);
		sj = &s->jobs[s->njobs++];
		sj->job_id = job_ptr->job_id;
		sj->running = IS_JOB_RUNNING(job_ptr);
		sj->priority = job_ptr->priority;
		sj->submit = job_ptr->details ? job_ptr->details->submit_time : 0;
		sj->start = job_ptr->start_time;
		sj->uid = job_ptr->user_id;
		sj->gid = job_ptr->group_id;
		sj->cpus = job_ptr->details && job_ptr->details->min_cpus ?
				   job_ptr->details->min_cpus : 1;
		sj->node = sj->running ? bit_ffs(job_ptr->node_bitmap) : -1;
		sj->placeable = sj->running || _job_placeable(job_ptr);
		ji = _job_info(job_ptr->job_id, false);
		if (!ji || !ji->parsed) {
			sj->comment = xstrdup(job_ptr->comment);
			sj->bb = xstrdup(job_ptr->burst_buffer);
		}
		if (!sj->running) {
			sj->eligible = xcalloc(s->nnodes ? s->nnodes : 1, 1);
			if (job_ptr->part_ptr_list) {
				part_record_t *part_ptr;
				ListIterator pit =
					list_iterator_create(job_ptr->part_ptr_list);

				while ((part_ptr = list_next(pit)))
					_eligible_from(sj->eligible,
						       part_ptr->node_bitmap);
				list_iterator_destroy(pit);
			} else if (job_ptr->part_ptr) {
				_eligible_from(sj->eligible,
					       job_ptr->part_ptr->node_bitmap);
			}
			if (job_ptr->details &&
			    job_ptr->details->exc_node_bitmap) {
				for (i = 0; i < (int)s->nnodes; i++)
					if (bit_test(job_ptr->details->exc_node_bitmap, i))
						sj->eligible[i] = 0;
			}
		}
	}
	list_iterator_destroy(it);
}

static void _snapshot_free(snapshot_t *s)
{
	uint32_t i;

	for (i = 0; i < s->nnodes; i++)
		xfree(s->names[i]);
	for (i = 0; i < s->njobs; i++) {
		xfree(s->jobs[i].comment);
		xfree(s->jobs[i].bb);
		xfree(s->jobs[i].eligible);
	}
	xfree(s->names);
	xfree(s->cpus);
	xfree(s->busy);
	xfree(s->usable);
	xfree(s->jobs);
}

/* ------------------------------------------------------------------ */
/* phase 2: plan                                                       */

/* Parse a job's annotation once and intern its files in the tracker. */
static void _parse_job(seen_job_t *ji, snap_job_t *sj)
{
	dl_filelist_t *files = NULL;
	char *msg = NULL;
	size_t i;

	ji->parsed = true;
	if (dl_slurm_job_files(sj->comment, sj->bb, sj->uid, sj->gid, &files,
			       &msg)) {
		/*
		 * job_submit/datalocality rejects bad annotations at submit;
		 * getting here means a list file changed or vanished since.
		 * The job still runs, without a data preference.
		 */
		error("%s: JobId=%u: %s; scheduling it without data preference",
		      PFX, ji->job_id, msg);
		xfree(msg);
		return;
	}
	if (!files)
		return;
	ji->files = xcalloc(files->count, sizeof(uint32_t));
	for (i = 0; i < files->count; i++) {
		uint64_t size = files->files[i].size;
		struct stat sb;
		int64_t id;

		/* The real size wins over the annotation's, when visible. */
		if (!stat(files->files[i].path, &sb) && S_ISREG(sb.st_mode))
			size = sb.st_size;
		id = dl_cache_file_intern(cache, files->files[i].path, size);
		if (id < 0) {
			error("%s: JobId=%u: %s: %s", PFX, ji->job_id,
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
static char *_node_cache_dir(const char *node)
{
	char *dir = NULL;
	const char *p;

	for (p = dl_conf.cache_dir; *p; p++) {
		if (p[0] == '%' && p[1] == 'n') {
			xstrcat(dir, node);
			p++;
		} else {
			xstrfmtcat(dir, "%c", *p);
		}
	}
	return dir;
}

/*
 * One truth about the cache: where the controller can read a node's
 * inventory (dl-stage rewrites DIR/.inventory atomically after every
 * staging and eviction; shared file system, or one host), the model of
 * that node becomes exactly its list.  Files the model had but the node
 * no longer holds are dropped (unless a running job pins them).
 * RET true if the node reports an inventory.
 */
static bool _read_inventory(uint32_t node, const char *name)
{
	char *dir = _node_cache_dir(name), *path, line[DL_PATH_MAX + 64];
	uint64_t now = (uint64_t)time(NULL);
	dl__u64set_t listed;
	unlisted_t u = { .listed = &listed };
	struct stat sb;
	uint32_t i;
	FILE *f;

	path = xstrdup_printf("%s/.inventory", dir);
	xfree(dir);
	if (stat(path, &sb) || !S_ISREG(sb.st_mode)) {
		xfree(path);
		return false;
	}
	if (sb.st_mtim.tv_sec == inv_seen[node].st_mtim.tv_sec &&
	    sb.st_mtim.tv_nsec == inv_seen[node].st_mtim.tv_nsec &&
	    sb.st_size == inv_seen[node].st_size && sb.st_ino ==
	    inv_seen[node].st_ino) {
		xfree(path);
		return true; /* unchanged since the last read */
	}
	if (!(f = fopen(path, "re"))) {
		xfree(path);
		return false;
	}
	dl__u64set_init(&listed);
	while (fgets(line, sizeof(line), f)) {
		char *sp = strchr(line, ' ');
		int64_t id;

		if (line[0] != '/' || !sp)
			continue;
		*sp = '\0';
		id = dl_cache_file_intern(cache, line,
					  strtoull(sp + 1, NULL, 10));
		if (id < 0)
			continue;
		if (!dl_cache_contains(cache, node, (uint32_t)id))
			dl_cache_insert(cache, node, (uint32_t)id, now, NULL,
					NULL);
		dl__u64set_add(&listed, (uint64_t)id);
	}
	fclose(f);
	inv_seen[node] = sb;
	/* Drop what the node does not report. */
	u.drop = xcalloc(dl_cache_node_files(cache, node) + 1, sizeof(uint32_t));
	dl_cache_foreach(cache, node, _collect_unlisted, &u);
	for (i = 0; i < u.ndrop; i++)
		dl_cache_remove(cache, node, u.drop[i]);
	xfree(u.drop);
	dl__u64set_fini(&listed);
	xfree(path);
	return true;
}

/*
 * Without an inventory from the node, a job's files are taken to be cached
 * on its node from the moment it starts there.
 */
static void _record_running(seen_job_t *ji, int32_t node)
{
	uint64_t now = (uint64_t)time(NULL);
	uint32_t i;
	int rc;

	if (ji->cached_on == node || node < 0 || (uint32_t)node >= cache_nodes)
		return;
	ji->cached_on = node;
	for (i = 0; i < ji->nfiles; i++) {
		if (dl_cache_file_size(cache, ji->files[i]) == DL_SIZE_UNKNOWN)
			continue; /* cannot be accounted against capacity */
		rc = dl_cache_insert(cache, node, ji->files[i], now, NULL, NULL);
		if (rc)
			debug("%s: JobId=%u: not caching %s on node %d: %s",
			      PFX, ji->job_id,
			      dl_cache_file_path(cache, ji->files[i]), node,
			      dl_strerror(rc));
	}
}

typedef struct {
	uint64_t cycle;
	uint32_t *stale;
	uint32_t nstale, cap;
} stale_arg_t;

static void _find_stale(void *item, void *arg)
{
	seen_job_t *ji = item;
	stale_arg_t *sa = arg;

	if (ji->seen == sa->cycle)
		return;
	if (sa->nstale == sa->cap) {
		sa->cap = sa->cap ? sa->cap * 2 : 64;
		xrecalloc(sa->stale, sa->cap, sizeof(uint32_t));
	}
	sa->stale[sa->nstale++] = ji->job_id;
}

/* Forget jobs that ended: they are no longer in the snapshot. */
static void _forget_stale(void)
{
	stale_arg_t sa = { .cycle = cycle_no };
	char key[12];
	uint32_t i;

	xhash_walk(jobs_seen, _find_stale, &sa);
	for (i = 0; i < sa.nstale; i++) {
		snprintf(key, sizeof(key), "%u", sa.stale[i]);
		xhash_delete_str(jobs_seen, key);
	}
	xfree(sa.stale);
}

/* Build the library's state from the snapshot and run the policy. */
static dl_plan_t *_plan(snapshot_t *s, dl_state_t **stp)
{
	dl_state_t *st = dl_state_create(cache, &dl_conf.params);
	dl_plan_t *plan = NULL;
	bool *has_inv;
	uint32_t i;
	int rc;

	*stp = NULL;
	if (!st)
		return NULL;
	/* The cost model's clock: remaining time of running jobs. */
	st->now = (double)time(NULL);
	for (i = 0; i < s->nnodes; i++)
		if (dl_state_add_node(st, s->names[i], s->cpus[i],
				      s->usable[i]) >= 0)
			st->nodes[i].busy = s->busy[i];
	/*
	 * Inventories are read at most once a second: on a shared file
	 * system, a stat per node at every cycle would be felt.
	 */
	has_inv = xcalloc(s->nnodes ? s->nnodes : 1, sizeof(bool));
	for (i = 0; dl_conf.cache_dir && i < s->nnodes && i < cache_nodes; i++)
		has_inv[i] = (time(NULL) == last_inv_read && inv_seen[i].st_ino) ?
				     true : _read_inventory(i, s->names[i]);
	last_inv_read = time(NULL);
	for (i = 0; i < s->njobs; i++) {
		snap_job_t *sj = &s->jobs[i];
		seen_job_t *ji = _job_info(sj->job_id, true);
		dl_job_t j = { 0 };

		ji->seen = cycle_no;
		if (!ji->parsed)
			_parse_job(ji, sj);
		if (sj->running && sj->node >= 0 &&
		    (uint32_t)sj->node < s->nnodes && !has_inv[sj->node])
			_record_running(ji, sj->node);
		if (!sj->running && (!sj->placeable || !ji->nfiles))
			continue; /* dispatched in priority order, anywhere */
		j.id = sj->job_id;
		j.state = sj->running ? DL_JOB_RUNNING : DL_JOB_PENDING;
		j.nfiles = ji->nfiles;
		j.files = ji->files;
		j.cpus = sj->cpus;
		j.priority = sj->priority;
		j.arrival = (double)sj->submit;
		j.compute = -1;
		j.start = (double)sj->start;
		j.node = sj->node;
		j.eligible = sj->eligible;
		if ((rc = dl_state_add_job(st, &j)) < 0)
			error("%s: JobId=%u left out of the plan: %s", PFX,
			      sj->job_id, dl_strerror(rc));
	}
	_forget_stale();
	xfree(has_inv);
	if ((rc = dl_policy_plan(policy, st, &plan))) {
		error("%s: policy %s failed: %s; starting jobs in priority order",
		      PFX, dl_policy_name(policy), dl_strerror(rc));
		dl_state_destroy(st);
		return NULL;
	}
	*stp = st;
	return plan;
}

/* ------------------------------------------------------------------ */
/* phase 3: apply                                                      */

static void _fmt_bytes(uint64_t b, char *buf, size_t len)
{
	static const char *unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double v = (double)b;
	int u = 0;

	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", v, unit[u]);
}

/*
 * Start one job, on node (>= 0) or anywhere (-1), the way sched/backfill's
 * _start_job() does: restrict the job's excluded nodes for select_nodes()
 * and put them back afterwards.
 * RET select_nodes()' code.  Caller holds the job and node write locks.
 */
static int _start_job(job_record_t *job_ptr, int32_t node)
{
	bitstr_t *orig_exc = NULL;
	bool array_head = job_ptr->array_recs != NULL;
	int rc;

	if (!IS_JOB_PENDING(job_ptr) || !job_ptr->details)
		return RC_NOT_RUNNABLE; /* never start a job twice */
	if (!acct_policy_job_runnable_state(job_ptr) &&
	    !acct_policy_job_runnable_pre_select(job_ptr, false))
		return RC_NOT_RUNNABLE;
	if (license_job_test(job_ptr, time(NULL), true) != SLURM_SUCCESS) {
		job_ptr->state_reason = WAIT_LICENSES;
		xfree(job_ptr->state_desc);
		return RC_NOT_RUNNABLE;
	}
	if (node >= 0) {
		bitstr_t *others = bit_alloc(node_record_count);

		bit_nset(others, 0, node_record_count - 1);
		bit_clear(others, node);
		if (job_ptr->details->exc_node_bitmap) {
			orig_exc = bit_copy(job_ptr->details->exc_node_bitmap);
			bit_or(job_ptr->details->exc_node_bitmap, others);
			FREE_NULL_BITMAP(others);
		} else {
			job_ptr->details->exc_node_bitmap = others;
		}
	}
	rc = select_nodes(job_ptr, false, NULL, NULL, false,
			  SLURMDB_JOB_FLAG_SCHED);
	if (node >= 0) {
		/* A started array task leaves a new pending head behind. */
		if (array_head && job_ptr->details) {
			job_record_t *base = find_job_record(job_ptr->array_job_id);

			if (base && base != job_ptr && base->array_recs &&
			    base->details) {
				FREE_NULL_BITMAP(base->details->exc_node_bitmap);
				if (orig_exc)
					base->details->exc_node_bitmap =
						bit_copy(orig_exc);
			}
		}
		if (job_ptr->details) {
			FREE_NULL_BITMAP(job_ptr->details->exc_node_bitmap);
			job_ptr->details->exc_node_bitmap = orig_exc;
		} else {
			FREE_NULL_BITMAP(orig_exc);
		}
	}
	if (rc == SLURM_SUCCESS) {
		last_job_update = time(NULL);
		if (job_ptr->batch_flag == 0)
			srun_allocate(job_ptr);
		else if (!IS_JOB_CONFIGURING(job_ptr))
			launch_job(job_ptr);
	}
	return rc;
}

/*
 * Whether the last plan saw this job.  A job submitted between the
 * snapshot and now has no decision yet; starting it "anywhere" would throw
 * its data preference away, so it waits for the next cycle (100 ms).
 */
static bool _was_planned(job_record_t *job_ptr)
{
	seen_job_t *ji = _job_info(job_ptr->job_id, false);

	if (ji && ji->parsed)
		return true;
	/* A pending array's head record stands for its tasks. */
	if (job_ptr->array_task_id != NO_VAL &&
	    (ji = _job_info(job_ptr->array_job_id, false)) && ji->parsed)
		return true;
	return false;
}

static void _set_reason(job_record_t *job_ptr, const char *desc)
{
	if (job_ptr->state_reason == WAIT_RESOURCES && job_ptr->state_desc &&
	    !xstrcmp(job_ptr->state_desc, desc))
		return;
	job_ptr->state_reason = WAIT_RESOURCES;
	xfree(job_ptr->state_desc);
	job_ptr->state_desc = xstrdup(desc);
}

/* A pending job of the queue, with its decision. */
typedef struct {
	job_queue_rec_t *rec;
	const dl_assign_t *a;   /* NULL: no data preference */
	size_t rank;            /* position in the priority queue */
} cand_t;

static int _cmp_cand(const void *x, const void *y)
{
	const cand_t *a = x, *b = y;

	/* Planned jobs first, grouped by node, in plan order. */
	if (!a->a != !b->a)
		return a->a ? -1 : 1;
	if (a->a) {
		if (a->a->node != b->a->node)
			return a->a->node < b->a->node ? -1 : 1;
		if (a->a->order != b->a->order)
			return a->a->order < b->a->order ? -1 : 1;
	}
	return (a->rank > b->rank) - (a->rank < b->rank);
}

static int _cmp_assign_id(const void *x, const void *y)
{
	const dl_assign_t *a = *(const dl_assign_t *const *)x;
	const dl_assign_t *b = *(const dl_assign_t *const *)y;

	return (a->job_id > b->job_id) - (a->job_id < b->job_id);
}

/*
 * The plan's decisions with a node, sorted by job id for lookups from the
 * job queue.  RET an xmalloc'd array of *n pointers into plan.
 */
static const dl_assign_t **_index_plan(const dl_plan_t *plan, size_t *n)
{
	const dl_assign_t **idx;
	size_t i;

	*n = 0;
	if (!plan)
		return NULL;
	idx = xcalloc(plan->n ? plan->n : 1, sizeof(*idx));
	for (i = 0; i < plan->n; i++)
		if (plan->a[i].node >= 0)
			idx[(*n)++] = &plan->a[i];
	qsort(idx, *n, sizeof(*idx), _cmp_assign_id);
	return idx;
}

static const dl_assign_t *_find_assign(const dl_assign_t **idx, size_t n,
				       uint32_t id)
{
	dl_assign_t key = { .job_id = id };
	const dl_assign_t *kp = &key, **hit;

	if (!n)
		return NULL;
	hit = bsearch(&kp, idx, n, sizeof(*idx), _cmp_assign_id);
	return hit ? *hit : NULL;
}

static void _apply(const dl_plan_t *plan, const dl_state_t *st)
{
	List queue = build_job_queue(false, false);
	size_t nidx;
	const dl_assign_t **idx = _index_plan(plan, &nidx);
	dl__u64set_t queued;
	job_queue_rec_t *rec;
	cand_t *cand;
	uint8_t *node_full;
	size_t n = 0, cap, i;
	char cached[32], desc[256];

	sort_job_queue(queue);
	cap = list_count(queue);
	cand = xcalloc(cap ? cap : 1, sizeof(*cand));
	node_full = xcalloc(node_record_count ? node_record_count : 1, 1);
	dl__u64set_init(&queued);
	while ((rec = list_pop(queue))) {
		/*
		 * A job queued in several partitions: its first (best) record
		 * only; an array's pending tasks share the head's record.
		 */
		if (!IS_JOB_PENDING(rec->job_ptr) ||
		    dl__u64set_add(&queued, (uintptr_t)rec->job_ptr) != 1) {
			xfree(rec);
			continue;
		}
		cand[n].rec = rec;
		cand[n].a = _find_assign(idx, nidx, rec->job_id);
		cand[n].rank = n;
		n++;
	}
	dl__u64set_fini(&queued);
	qsort(cand, n, sizeof(*cand), _cmp_cand);

	for (i = 0; i < n; i++) {
		job_record_t *job_ptr = cand[i].rec->job_ptr;
		const dl_assign_t *a = cand[i].a;
		int32_t node = a ? a->node : -1;
		int rc;

		if (!IS_JOB_PENDING(job_ptr))
			continue; /* an array task started since */
		if (!a && !_was_planned(job_ptr))
			continue; /* arrived after the snapshot: next cycle */
		if (node >= node_record_count)
			node = -1; /* plan from before a reconfiguration */
		if (node >= 0 && node_full[node]) {
			_fmt_bytes(a->bytes_cached, cached, sizeof(cached));
			snprintf(desc, sizeof(desc),
				 "DataLocality: waiting for %s (%u/%u files, %s cached)",
				 st->nodes[node].name, a->files_cached,
				 a->nfiles, cached);
			_set_reason(job_ptr, desc);
			continue;
		}
		job_ptr->part_ptr = cand[i].rec->part_ptr;
		rc = _start_job(job_ptr, node);
		if (rc == SLURM_SUCCESS && node >= 0) {
			dl_node_stats_t *ns = &node_stats[node];

			ns->hits += a->files_cached;
			ns->misses += a->nfiles - a->files_cached;
			ns->hit_bytes += a->bytes_cached;
			ns->miss_bytes += a->bytes_total - a->bytes_cached;
			_fmt_bytes(a->bytes_cached, cached, sizeof(cached));
			info("%s: started JobId=%u on %s (planned %s: %u/%u files, %s cached, policy %s)",
			     PFX, job_ptr->job_id, job_ptr->nodes,
			     st->nodes[node].name, a->files_cached, a->nfiles,
			     cached, plan->policy);
		} else if (rc == SLURM_SUCCESS) {
			info("%s: started JobId=%u on %s (no data preference)",
			     PFX, job_ptr->job_id, job_ptr->nodes);
		} else if (node >= 0 && rc == ESLURM_NODES_BUSY) {
			/* Its node is full: it and the jobs after it wait. */
			node_full[node] = 1;
			i--;
		} else if (node >= 0 && rc != RC_NOT_RUNNABLE &&
			   rc != ESLURM_ACCOUNTING_POLICY) {
			/*
			 * The planned node cannot ever take it (memory,
			 * features, ...): rather than wait forever, run it
			 * wherever Slurm can.
			 */
			debug("%s: JobId=%u cannot run on %s (%s), trying any node",
			      PFX, job_ptr->job_id, st->nodes[node].name,
			      slurm_strerror(rc));
			if (_start_job(job_ptr, -1) == SLURM_SUCCESS)
				info("%s: started JobId=%u on %s (planned %s unusable: %s)",
				     PFX, job_ptr->job_id, job_ptr->nodes,
				     st->nodes[node].name, slurm_strerror(rc));
		}
		if (rc == SLURM_SUCCESS && job_ptr->array_task_id != NO_VAL) {
			/*
			 * The started task left its pending siblings in a new
			 * head record: offer the same decision to them.
			 */
			job_record_t *head = find_job_record(job_ptr->array_job_id);

			if (head && head != job_ptr && IS_JOB_PENDING(head) &&
			    head->array_recs) {
				cand[i].rec->job_ptr = head;
				i--;
			}
		}
	}
	for (i = 0; i < n; i++)
		xfree(cand[i].rec);
	xfree(cand);
	xfree(idx);
	xfree(node_full);
	FREE_NULL_LIST(queue);
}

/* ------------------------------------------------------------------ */
/* the thread                                                          */

static void _cycle(void)
{
	/* Copying needs only read locks: nothing changes under us. */
	slurmctld_lock_t read_lock = {
		.conf = READ_LOCK, .job = READ_LOCK, .node = READ_LOCK,
		.part = READ_LOCK
	};
	/* select_nodes() needs what sched/backfill holds to start jobs. */
	slurmctld_lock_t write_lock = {
		.conf = READ_LOCK, .job = WRITE_LOCK, .node = WRITE_LOCK,
		.part = READ_LOCK, .fed = READ_LOCK
	};
	snapshot_t snap = { 0 };
	dl_state_t *st = NULL;
	dl_plan_t *plan;

	cycle_no++;
	lock_slurmctld(read_lock);
	_snapshot(&snap);
	unlock_slurmctld(read_lock);

	plan = _plan(&snap, &st);
	if (plan)
		debug("%s: plan %s: %zu jobs, cut %" PRIu64 " bytes, imbalance %.3f, %.3f ms",
		      PFX, plan->policy, plan->n, plan->cut_bytes,
		      plan->imbalance, plan->seconds * 1e3);

	lock_slurmctld(write_lock);
	if (st && st->nnodes == (uint32_t)node_record_count)
		_apply(plan, st);
	else
		_apply(NULL, st);
	unlock_slurmctld(write_lock);

	/*
	 * At most once a second: the file is for restarts and for people.
	 * The last plan and state are kept for the save at shutdown.
	 */
	if (time(NULL) - last_save >= 1)
		_state_save(plan, st);
	dl_plan_free(last_plan);
	dl_state_destroy(last_st);
	last_plan = plan;
	last_st = st;
	_snapshot_free(&snap);
}

static void *_agent(void *arg)
{
	time_t last_plan = 0, seen_job = 0, seen_node = 0;
	struct timespec ts;

	(void)arg;
	while (true) {
		time_t now;
		bool reconf, stop;

		slurm_mutex_lock(&term_lock);
		if (!stop_agent) {
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += POLL_MS * 1000000L;
			if (ts.tv_nsec >= 1000000000L) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000L;
			}
			slurm_cond_timedwait(&term_cond, &term_lock, &ts);
		}
		reconf = reconfig_pending;
		reconfig_pending = false;
		stop = stop_agent;
		slurm_mutex_unlock(&term_lock);
		if (stop)
			break;
		if (reconf) {
			slurmctld_lock_t conf_lock = { .conf = READ_LOCK,
						       .node = READ_LOCK };
			lock_slurmctld(conf_lock);
			_reconfigure();
			unlock_slurmctld(conf_lock);
		}
		if (!cache || !policy)
			continue;
		/*
		 * last_*_update have a one-second resolution: a change made
		 * in the second of the last plan shows no new value, so keep
		 * planning while the stamps are not older than that plan.
		 */
		now = time(NULL);
		if (!reconf && now - last_plan < 1 &&
		    last_job_update == seen_job &&
		    last_node_update == seen_node &&
		    seen_job < last_plan && seen_node < last_plan)
			continue;
		seen_job = last_job_update;
		seen_node = last_node_update;
		last_plan = now;
		_cycle();
	}
	return NULL;
}

int dl_agent_start(void)
{
	slurm_mutex_lock(&term_lock);
	if (agent_tid) {
		slurm_mutex_unlock(&term_lock);
		return SLURM_ERROR;
	}
	stop_agent = false;
	reconfig_pending = true;
	jobs_seen = xhash_init(_job_info_id, _job_info_free);
	slurm_thread_create(&agent_tid, _agent, NULL);
	slurm_mutex_unlock(&term_lock);
	return SLURM_SUCCESS;
}

void dl_agent_stop(void)
{
	slurm_mutex_lock(&term_lock);
	if (!agent_tid) {
		slurm_mutex_unlock(&term_lock);
		return;
	}
	stop_agent = true;
	slurm_cond_broadcast(&term_cond);
	slurm_mutex_unlock(&term_lock);
	pthread_join(agent_tid, NULL);
	agent_tid = 0;
	/* Whatever changed since the last save must survive the restart. */
	if (cache && last_st)
		_state_save(last_plan, last_st);
	dl_plan_free(last_plan);
	last_plan = NULL;
	dl_state_destroy(last_st);
	last_st = NULL;
	dl_policy_destroy(policy);
	policy = NULL;
	dl_cache_destroy(cache);
	cache = NULL;
	xhash_free_ptr(&jobs_seen);
	xfree(node_stats);
	xfree(inv_seen);
	xfree(dl_conf.cache_dir);
	xfree(dl_conf.policy);
	xfree(dl_conf.policy_params);
}

void dl_agent_reconfig(void)
{
	slurm_mutex_lock(&term_lock);
	reconfig_pending = true;
	slurm_mutex_unlock(&term_lock);
}
