/* setup.c - the workload and the run's description from dl-sim's
 * arguments; see setup.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "dl_error.h"
#include "setup.h"

static int _fail(char *err, size_t len, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int _fail(char *err, size_t len, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return rc;
}

static FILE *_open(const char *path, const char *what, int *rc, char *err,
		   size_t len)
{
	FILE *f = fopen(path, "r");

	if (!f)
		*rc = _fail(err, len, errno == ENOENT ? DL_ENOENT : DL_EIO,
			    "cannot open %s %s: %s", what, path,
			    strerror(errno));
	return f;
}

static int _biomed(const dl_sim_args_t *a, dl_workload_t **out, char *err,
		   size_t len)
{
	dl_wl_platform_t pf;
	dl_workload_t *wl = dl_workload_gen_biomed(&a->bio, a->seed);

	if (!wl)
		return _fail(err, len, DL_EINVAL,
			     "cannot generate the biomed workload with these options");
	pf.nodes = a->cfg.nodes;
	pf.slots = a->cfg.nodes * a->cfg.cores;
	pf.params = a->cfg.params;
	pf.params.nstorage = a->cfg.storage;
	/* Arrivals draw from their own stream: changing the arrival model
	 * keeps the jobs' files. */
	if (dl_workload_set_arrivals(wl, &pf, &a->arr,
				     a->seed ^ 0x9e3779b97f4a7c15ULL, NULL)) {
		dl_workload_destroy(wl);
		return _fail(err, len, DL_EINVAL, "cannot set arrival times");
	}
	*out = wl;
	return 0;
}

/* A trace: SWF with its sidecar, or the simulator's own format. */
static int _trace(const dl_sim_args_t *a, dl_wl_diag_t *diag,
		  dl_workload_t **out, char *err, size_t len)
{
	const char *src = a->kind == DL_SIM_WL_SWF ? a->swf : a->wl_file;
	dl_workload_t *wl;
	FILE *f, *g = NULL;
	int rc = 0;

	if (!(f = _open(src, a->kind == DL_SIM_WL_SWF ? "SWF trace" :
							 "workload",
			&rc, err, len)))
		return rc;
	if (a->kind == DL_SIM_WL_SWF && a->swf_files &&
	    !(g = _open(a->swf_files, "files list", &rc, err, len))) {
		fclose(f);
		return rc;
	}
	wl = a->kind == DL_SIM_WL_SWF ?
		     dl_workload_read_swf(f, g, a->cfg.params.unknown_size,
					  a->cfg.cores, diag) :
		     dl_workload_read(f, diag);
	fclose(f);
	if (g)
		fclose(g);
	if (!wl || !wl->njobs) {
		dl_workload_destroy(wl);
		return _fail(err, len, DL_EINVAL, "no usable job in %s", src);
	}
	if (diag->bad_lines && !a->skip_bad_lines) {
		dl_workload_destroy(wl);
		return _fail(err, len, DL_EINVAL,
			     "%s: %zu malformed records (first ones above); fix the trace or pass --skip-bad-lines to run without them",
			     src, diag->bad_lines);
	}
	*out = wl;
	return 0;
}

int dl_sim_setup_workload(const dl_sim_args_t *a, dl_wl_diag_t *diag,
			  dl_workload_t **out, char *err, size_t errlen)
{
	dl_workload_t *wl = NULL;
	int rc;

	switch (a->kind) {
	case DL_SIM_WL_BIOMED:
		rc = _biomed(a, &wl, err, errlen);
		break;
	case DL_SIM_WL_DIFFUSION:
		wl = dl_workload_gen_diffusion(&a->dif, a->seed);
		rc = wl ? 0 :
			  _fail(err, errlen, DL_EINVAL,
				"cannot generate the diffusion workload with these options");
		break;
	default:
		rc = _trace(a, diag, &wl, err, errlen);
		break;
	}
	if (rc)
		return rc;
	if (a->time_scale != 1.0)
		dl_workload_scale_time(wl, a->time_scale);
	*out = wl;
	return 0;
}

/* ---------------------------------------------------------------------- */
/* The run's description                                                  */

static void _kv_add(dl_kv_t *kv, size_t *n, const char *key, const char *fmt,
		    ...) __attribute__((format(printf, 4, 5)));

static void _kv_add(dl_kv_t *kv, size_t *n, const char *key, const char *fmt,
		    ...)
{
	va_list ap;

	if (*n >= DL_SIM_DESC_MAX)
		return;
	kv[*n].key = key;
	va_start(ap, fmt);
	vsnprintf(kv[*n].val, sizeof(kv[*n].val), fmt, ap);
	va_end(ap);
	(*n)++;
}

/* The dispatch rule, and the restrictions' parameters when it has them. */
static void _kv_place(dl_kv_t *kv, size_t *n, const dl_sim_config_t *cfg)
{
	const dl_place_params_t *p = &cfg->place;
	int slurm = cfg->dispatch == DL_DISPATCH_SLURM;

	_kv_add(kv, n, "dispatch", "%s", dl_dispatch_name(cfg->dispatch));
	if (!slurm) {
		_kv_add(kv, n, "wait_factor", "-");
		_kv_add(kv, n, "min_wait", "-");
		_kv_add(kv, n, "max_wait", "-");
		_kv_add(kv, n, "hysteresis", "-");
		_kv_add(kv, n, "strict", "-");
		return;
	}
	_kv_add(kv, n, "wait_factor", "%g", p->wait_factor);
	_kv_add(kv, n, "min_wait", "%g", p->min_wait);
	_kv_add(kv, n, "max_wait", "%g", p->max_wait);
	_kv_add(kv, n, "hysteresis", "%g", p->hysteresis);
	_kv_add(kv, n, "strict", "%d", p->strict);
}

/* The agent's prefetch: jobs per node, and the budget when it is on. */
static void _kv_prefetch(dl_kv_t *kv, size_t *n, const dl_sim_config_t *cfg)
{
	_kv_add(kv, n, "prefetch", "%u", cfg->prefetch);
	if (!cfg->prefetch)
		_kv_add(kv, n, "prefetch_budget", "-");
	else if (!cfg->prefetch_budget)
		_kv_add(kv, n, "prefetch_budget", "unlimited");
	else
		_kv_add(kv, n, "prefetch_budget", "%llu",
			(unsigned long long) cfg->prefetch_budget);
}

/* What the workload is: its kind's parameters, then what it measures. */
static void _kv_workload(const dl_sim_args_t *a, const dl_workload_t *wl,
			 dl_kv_t *kv, size_t *n)
{
	int bio = a->kind == DL_SIM_WL_BIOMED;
	int gen = bio || a->kind == DL_SIM_WL_DIFFUSION;
	dl_wl_stats_t ws;

	dl_workload_stats(wl, &ws);
	_kv_add(kv, n, "workload", "%s", dl_sim_wl_name(a->kind));
	_kv_add(kv, n, "source", "%s",
		a->kind == DL_SIM_WL_SWF  ? a->swf :
		a->kind == DL_SIM_WL_FILE ? a->wl_file :
					    "");
	_kv_add(kv, n, "seed", "%llu", (unsigned long long) a->seed);
	if (bio)
		_kv_add(kv, n, "overlap_target", "%.4f", a->bio.overlap);
	else
		_kv_add(kv, n, "overlap_target", "-");
	_kv_add(kv, n, "overlap", "%.4f", ws.overlap);
	_kv_add(kv, n, "shared", "%.4f", ws.shared);
	_kv_add(kv, n, "files_per_job", "%.4f", ws.files_mean);
	_kv_add(kv, n, "order", "%s",
		bio ? (a->bio.clustered ? "clustered" : "random") : "-");
	_kv_add(kv, n, "arrivals", "%s",
		bio ? dl_wl_arrivals_name(a->arr.model) :
		gen ? (a->dif.poisson ? "poisson" : "steps") :
		      "trace");
	if (bio)
		_kv_add(kv, n, "load", "%.4f", a->arr.load);
	else
		_kv_add(kv, n, "load", "-");
	_kv_add(kv, n, "pattern", "%s",
		gen ? dl_wl_pattern_name(a->access.pattern) : "-");
	_kv_add(kv, n, "time_scale", "%g", a->time_scale);
}

/* The workload in words, as dl_workload_stats() measures it. */
static void _kv_workload_desc(const dl_sim_args_t *a, const dl_workload_t *wl,
			      dl_kv_t *kv, size_t *n)
{
	int bio = a->kind == DL_SIM_WL_BIOMED;
	dl_wl_stats_t ws;
	char b1[32];

	dl_workload_stats(wl, &ws);
	_kv_add(kv, n, "workload_desc",
		"%s: %zu jobs, %zu files (%s), %.2f files/job [%u-%u], overlap %.1f%%, shared %.1f%%, arrivals %.1f-%.1f s",
		dl_sim_wl_name(a->kind), ws.jobs, ws.files_used,
		dl_metrics_fmt_bytes((double) ws.bytes_used, b1, sizeof(b1)),
		ws.files_mean, ws.files_min, ws.files_max, 100 * ws.overlap,
		100 * ws.shared, ws.first_arrival, ws.last_arrival);
	if (bio) {
		dl_kv_t *d = &kv[*n - 1];
		size_t used = strlen(d->val);

		snprintf(d->val + used, sizeof(d->val) - used,
			 "; target %.0f%%, %s, %s load %.2f",
			 100 * a->bio.overlap,
			 a->bio.clustered ? "clustered" : "random",
			 dl_wl_arrivals_name(a->arr.model), a->arr.load);
	}
}

static void _kv_platform(const dl_sim_config_t *c, dl_kv_t *kv, size_t *n)
{
	char pspec[160];

	_kv_add(kv, n, "nodes", "%u", c->nodes);
	_kv_add(kv, n, "cores", "%u", c->cores);
	_kv_add(kv, n, "storage", "%u", c->storage);
	if (c->cache_bytes == DL_CACHE_UNLIMITED)
		_kv_add(kv, n, "cache_bytes", "unlimited");
	else
		_kv_add(kv, n, "cache_bytes", "%llu",
			(unsigned long long) c->cache_bytes);
	_kv_add(kv, n, "eviction", "%s", dl_evict_name(c->eviction));
	_kv_add(kv, n, "rbw", "%.0f", c->params.rbw);
	_kv_add(kv, n, "lbw", "%.0f", c->params.lbw);
	_kv_add(kv, n, "cpb", "%g", c->params.cpb);
	_kv_add(kv, n, "peer_fetch", "%d", c->peer_fetch);
	_kv_add(kv, n, "peer_bw", "%.0f",
		c->peer_bw > 0 ? c->peer_bw : c->params.rbw);
	_kv_add(kv, n, "launch_overhead", "%g", c->launch);
	_kv_add(kv, n, "window", "%zu", c->window);
	_kv_add(kv, n, "replan_min_interval", "%g", c->replan_min_interval);
	if (c->agent_pace)
		_kv_add(kv, n, "pace", "agent");
	_kv_place(kv, n, c);
	_kv_prefetch(kv, n, c);
	dl_prov_format(&c->prov, pspec, sizeof(pspec));
	_kv_add(kv, n, "provision", "%s", pspec);
}

static void _kv_platform_desc(const dl_sim_config_t *c, dl_kv_t *kv,
			      size_t *n)
{
	char b1[32], b2[32], b3[32];

	/* Peer fetch is stated either way: comparing runs made with and
	 * without it compares platforms, not policies. */
	_kv_add(kv, n, "platform_desc",
		"%u nodes x %u cores, %u storage, cache %s/node (%s), rbw %s/s, lbw %s/s, cpb %g s/B, peer fetch %s",
		c->nodes, c->cores, c->storage,
		c->cache_bytes == DL_CACHE_UNLIMITED ?
			"unlimited" :
			dl_metrics_fmt_bytes((double) c->cache_bytes, b1,
					     sizeof(b1)),
		dl_evict_name(c->eviction),
		dl_metrics_fmt_bytes(c->params.rbw, b2, sizeof(b2)),
		dl_metrics_fmt_bytes(c->params.lbw, b3, sizeof(b3)),
		c->params.cpb, c->peer_fetch ? "on" : "off");
}

size_t dl_sim_setup_describe(const dl_sim_args_t *a, const dl_workload_t *wl,
			     dl_kv_t *kv)
{
	size_t n = 0;

	_kv_add(kv, &n, "policy", "%s", a->policy);
	_kv_add(kv, &n, "policy_params", "%s",
		a->policy_params ? a->policy_params : "");
	_kv_workload(a, wl, kv, &n);
	_kv_platform(&a->cfg, kv, &n);
	_kv_workload_desc(a, wl, kv, &n);
	_kv_platform_desc(&a->cfg, kv, &n);
	return n;
}

/*
 * --check: say so when transfers queued at a few storage nodes while the
 * storage as a whole sat idle (issue 30, item 5: at 1,024 nodes and 256
 * storage nodes, 1.4% busy in all and jobs staging for 1,400 s).  Not an
 * error: every file lives on one storage node, so the node holding the
 * files every node reads serves each node's copy in turn.
 */
static void _hot_storage(const dl_sim_args_t *a, const dl_sim_result_t *r,
			 const dl_metrics_t *m, FILE *err)
{
	if (!a->cfg.check || !err || r->storage < 2 ||
	    !(m->storage_util_max > 0.5 &&
	      m->storage_util_max > 3 * m->storage_util &&
	      m->storage_queue_mean > 1.0))
		return;
	fprintf(err,
		"dl-sim: check: storage %.1f%% busy in all while transfers from it queued %.1f s each: storage node %u was %.1f%% busy (a file lives on one storage node, which serves every node's copy of it; --peer-fetch lets nodes serve each other)\n",
		100.0 * m->storage_util, m->storage_queue_mean,
		r->storage_busiest, 100.0 * m->storage_util_max);
}

int dl_sim_setup_status(const dl_sim_args_t *a, const dl_sim_result_t *r,
			const dl_metrics_t *m, FILE *err)
{
	int status = 0;

	if (m->completed < m->jobs) {
		if (err)
			fprintf(err,
				"dl-sim: %zu of %zu jobs never completed: the policy left them waiting\n",
				m->jobs - m->completed, m->jobs);
		status = 1;
	}
	if (m->fallback_plans) {
		if (err)
			fprintf(err,
				"dl-sim: %s fell back to a simpler method in %zu of %zu plans: this run is not %s's%s\n",
				a->policy, m->fallback_plans, m->plans,
				a->policy,
				a->tolerate_fallback ? " (tolerated)" : "");
		if (!a->tolerate_fallback)
			status = 1;
	}
	if (r->capacity_violations) {
		if (err)
			fprintf(err, "dl-sim: cache capacity exceeded %llu times\n",
				(unsigned long long) r->capacity_violations);
		status = 1;
	}
	if (r->idle_violations) {
		if (err)
			fprintf(err,
				"dl-sim: check: storage or a node's link idle while jobs waited for transfers, %llu times\n",
				(unsigned long long) r->idle_violations);
		status = 1;
	}
	_hot_storage(a, r, m, err);
	return status;
}
