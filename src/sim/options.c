/* options.c - dl-sim's table of options; see options.h. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dl_error.h"
#include "dl_policy.h"
#include "options.h"
#include "provision.h"

typedef enum {
	T_SECTION, /* not an option: a heading of --help */
	T_FLAG,    /* no argument: store (int) min */
	T_DOUBLE,  /* a number within [min, max] */
	T_UINT,    /* an integer within [min, max], 4 or 8 bytes wide */
	T_SIZE,    /* bytes: 4096, 64M, 15G */
	T_BW,      /* bytes per second, not 0: 100e6, 100M, 100M/s */
	T_STR,     /* the argument itself (argv outlives the args) */
	T_FN,      /* anything else: fn */
} _type_t;

typedef int (*_setter_t)(dl_sim_args_t *a, const char *arg, FILE *out,
			 char *err, size_t len);

typedef struct {
	const char *name; /* long option; T_SECTION: NULL */
	int key;          /* short option, 0 if none */
	_type_t type;
	const char *arg; /* the argument's name in --help; NULL: none */
	size_t off, width;
	double min, max;
	_setter_t fn;   /* T_FN */
	unsigned kinds; /* bit per dl_sim_wl_t that takes it; 0: all */
	int place;      /* restrictions, prefetch: --dispatch slurm only */
	const char *help; /* lines after the first indented under it */
} _opt_t;

#define F(m) .off = offsetof(dl_sim_args_t, m), .width = sizeof(((dl_sim_args_t *) 0)->m)
#define K(k) (1u << DL_SIM_WL_##k)
#define GEN (K(BIOMED) | K(DIFFUSION))

#define SECTION(title) { .type = T_SECTION, .help = title }
#define FLAG(n, field, value, h) \
	{ .name = n, .type = T_FLAG, F(field), .min = value, .help = h }
#define NUM(n, a, field, lo, hi, k, h)                                      \
	{ .name = n, .type = T_DOUBLE, .arg = a, F(field), .min = lo,       \
	  .max = hi, .kinds = k, .help = h }
#define UINT(n, a, field, lo, hi, k, h)                                     \
	{ .name = n, .type = T_UINT, .arg = a, F(field), .min = lo,         \
	  .max = hi, .kinds = k, .help = h }
#define SIZE(n, a, field, k, h) \
	{ .name = n, .type = T_SIZE, .arg = a, F(field), .kinds = k, .help = h }
#define BW(n, field, h) \
	{ .name = n, .type = T_BW, .arg = "BW", F(field), .help = h }
#define STR(n, a, field, k, h) \
	{ .name = n, .type = T_STR, .arg = a, F(field), .kinds = k, .help = h }
#define FN(n, a, f, k, h) \
	{ .name = n, .type = T_FN, .arg = a, .fn = f, .kinds = k, .help = h }

/* ---------------------------------------------------------------------- */
/* Setters of the options that are not a plain field                     */

static int _fail(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int _fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return DL_EINVAL;
}

static int _num(const char *opt, const char *s, double min, double max,
		double *out, char *err, size_t len)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end || errno || !isfinite(v) || v < min || v > max)
		return _fail(err, len,
			     "--%s: expected a number in [%g, %g], got '%s'",
			     opt, min, max, s);
	*out = v;
	return 0;
}

static int _uint(const char *opt, const char *s, double min, double max,
		 uint64_t *out, char *err, size_t len)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	/* max may be UINT64_MAX, which a double rounds up to 2^64. */
	if (end == s || *end || errno || *s == '-' || (double) v < min ||
	    (max < 18446744073709551615.0 && (double) v > max))
		return _fail(err, len,
			     "--%s: expected an integer in [%.0f, %.0f], got '%s'",
			     opt, min, max, s);
	*out = v;
	return 0;
}

static int _size(const char *opt, const char *s, uint64_t *out, char *err,
		 size_t len)
{
	if (dl_wl_parse_size(s, out))
		return _fail(err, len,
			     "--%s: expected a size such as 4096, 64M, 15G, got '%s'",
			     opt, s);
	return 0;
}

/* Bandwidth: a size per second, "/s" allowed. */
static int _bw(const char *opt, const char *s, double *out, char *err,
	       size_t len)
{
	char buf[64];
	size_t n = strlen(s);
	uint64_t v;

	if (n >= sizeof(buf))
		return _fail(err, len, "--%s: '%s' is too long", opt, s);
	memcpy(buf, s, n + 1);
	if (n > 2 && !strcmp(buf + n - 2, "/s"))
		buf[n - 2] = '\0';
	if (dl_wl_parse_size(buf, &v) || !v)
		return _fail(err, len,
			     "--%s: expected bytes per second such as 100e6 or 100M, got '%s'",
			     opt, s);
	*out = (double) v;
	return 0;
}

static const char *const wl_names[DL_SIM_WL_COUNT] = { "biomed", "diffusion",
						       "swf", "file" };

const char *dl_sim_wl_name(dl_sim_wl_t kind)
{
	return (unsigned) kind < DL_SIM_WL_COUNT ? wl_names[kind] : "?";
}

static int _set_workload(dl_sim_args_t *a, const char *s, FILE *out,
			 char *err, size_t len)
{
	unsigned i;

	(void) out;
	for (i = 0; i < DL_SIM_WL_COUNT && strcmp(s, wl_names[i]); i++)
		;
	if (i == DL_SIM_WL_COUNT)
		return _fail(err, len,
			     "--workload: expected biomed, diffusion, swf or file, got '%s'",
			     s);
	a->kind = (dl_sim_wl_t) i;
	a->kind_set = 1;
	return 0;
}

static int _set_jobs(dl_sim_args_t *a, const char *s, FILE *out, char *err,
		     size_t len)
{
	uint64_t v;

	(void) out;
	if (_uint("jobs", s, 1, 1e8, &v, err, len))
		return DL_EINVAL;
	a->bio.jobs = a->dif.jobs = (size_t) v;
	return 0;
}

static int _set_overlap(dl_sim_args_t *a, const char *s, FILE *out,
			char *err, size_t len)
{
	(void) out;
	if (!strcasecmp(s, "high"))
		a->bio.overlap = 0.85;
	else if (!strcasecmp(s, "medium"))
		a->bio.overlap = 0.40;
	else if (!strcasecmp(s, "low"))
		a->bio.overlap = 0.10;
	else
		return _num("overlap", s, 0, 0.99, &a->bio.overlap, err, len);
	return 0;
}

static int _set_order(dl_sim_args_t *a, const char *s, FILE *out, char *err,
		      size_t len)
{
	(void) out;
	if (!strcmp(s, "clustered"))
		a->bio.clustered = 1;
	else if (!strcmp(s, "random"))
		a->bio.clustered = 0;
	else
		return _fail(err, len,
			     "--order: expected clustered or random, got '%s'",
			     s);
	return 0;
}

static int _set_arrivals(dl_sim_args_t *a, const char *s, FILE *out,
			 char *err, size_t len)
{
	(void) out;
	if (dl_wl_arrivals_from_name(s, &a->arr.model))
		return _fail(err, len,
			     "--arrivals: expected poisson, lublin, burst or steps, got '%s'",
			     s);
	a->arrivals_set = 1;
	return 0;
}

static int _set_pattern(dl_sim_args_t *a, const char *s, FILE *out,
			char *err, size_t len)
{
	(void) out;
	if (dl_wl_pattern_from_name(s, &a->access.pattern))
		return _fail(err, len,
			     "--pattern: expected uniform, sequential, gaussian or zipf, got '%s'",
			     s);
	return 0;
}

static int _set_cache(dl_sim_args_t *a, const char *s, FILE *out, char *err,
		      size_t len)
{
	(void) out;
	if (!strcasecmp(s, "unlimited")) {
		a->cfg.cache_bytes = DL_CACHE_UNLIMITED;
		return 0;
	}
	return _size("cache-size", s, &a->cfg.cache_bytes, err, len);
}

static int _set_eviction(dl_sim_args_t *a, const char *s, FILE *out,
			 char *err, size_t len)
{
	(void) out;
	if (dl_evict_from_name(s, &a->cfg.eviction))
		return _fail(err, len,
			     "--eviction: expected value, node-value, lru, lfu, fifo or random, got '%s'",
			     s);
	return 0;
}

static int _set_dispatch(dl_sim_args_t *a, const char *s, FILE *out,
			 char *err, size_t len)
{
	(void) out;
	if (dl_dispatch_from_name(s, &a->cfg.dispatch))
		return _fail(err, len,
			     "--dispatch: expected slurm or plan, got '%s'", s);
	return 0;
}

/* 0 stands for "no limit" in the config: a budget of 0 bytes would be
 * --prefetch 0, and is refused to say so. */
static int _set_prefetch_budget(dl_sim_args_t *a, const char *s, FILE *out,
				char *err, size_t len)
{
	uint64_t v;

	(void) out;
	if (!strcasecmp(s, "unlimited")) {
		a->cfg.prefetch_budget = 0;
		return 0;
	}
	if (_size("prefetch-budget", s, &v, err, len))
		return DL_EINVAL;
	if (!v)
		return _fail(err, len,
			     "--prefetch-budget: 0 would prefetch nothing (use --prefetch 0)");
	a->cfg.prefetch_budget = v;
	return 0;
}

static int _set_provision(dl_sim_args_t *a, const char *s, FILE *out,
			  char *err, size_t len)
{
	char perr[160];

	(void) out;
	if (dl_prov_parse(s, &a->cfg.prov, perr, sizeof(perr)))
		return _fail(err, len, "%s", perr);
	return 0;
}

/* The run samples the system only when its timeline is asked for. */
static int _set_timeline(dl_sim_args_t *a, const char *s, FILE *out,
			 char *err, size_t len)
{
	(void) out;
	(void) err;
	(void) len;
	a->timeline = s;
	a->cfg.timeline_every = DL_PROV_TIMELINE_EVERY;
	return 0;
}

static int _list_policies(dl_sim_args_t *a, const char *s, FILE *out,
			  char *err, size_t len)
{
	const dl_policy_ops_t *const *o;

	(void) a;
	(void) s;
	(void) err;
	(void) len;
	for (o = dl_policy_list(); *o; o++)
		fprintf(out, "%-14s %s\n", (*o)->name,
			(*o)->summary ? (*o)->summary : "");
	return DL_SIM_ARGS_DONE;
}

static int _help(dl_sim_args_t *a, const char *s, FILE *out, char *err,
		 size_t len)
{
	(void) a;
	(void) s;
	(void) err;
	(void) len;
	dl_sim_args_usage(out, "dl-sim");
	return DL_SIM_ARGS_DONE;
}

static int _version(dl_sim_args_t *a, const char *s, FILE *out, char *err,
		    size_t len)
{
	(void) a;
	(void) s;
	(void) err;
	(void) len;
	fprintf(out, "dl-sim %s\n", DL_SIM_VERSION);
	return DL_SIM_ARGS_DONE;
}

/* ---------------------------------------------------------------------- */
/* The table                                                              */

static const _opt_t opts[] = {
	SECTION("Policy:"),
	{ .name = "policy", .key = 'p', .type = T_STR, .arg = "NAME",
	  F(policy), .help = "a registered policy (--list-policies)" },
	STR("policy-params", "P", policy_params, 0,
	    "key=value,... passed to the policy"),
	FN("list-policies", NULL, _list_policies, 0,
	   "list the policies and exit"),
	FLAG("tolerate-fallback", tolerate_fallback, 1,
	     "exit 0 even if the policy fell back to a\n"
	     "simpler method (labelled so either way)"),

	SECTION("Workload:"),
	{ .name = "workload", .key = 'w', .type = T_FN, .arg = "KIND",
	  .fn = _set_workload,
	  .help = "biomed (default), diffusion, swf, file" },
	STR("workload-file", "FILE", wl_file, K(FILE),
	    "read a saved workload (implies file)"),
	STR("swf", "FILE", swf, K(SWF), "SWF trace (implies swf)"),
	STR("swf-files", "FILE", swf_files, K(SWF),
	    "the SWF jobs' input files, one line per job:\n"
	    "'JOBID PATH[,PATH...] [SIZE]' or 'JOBID -'"),
	SIZE("unknown-size", "SIZE", cfg.params.unknown_size, K(SWF),
	     "size of an SWF file whose size is not given (64M)"),
	FLAG("skip-bad-lines", skip_bad_lines, 1,
	     "run a trace whose malformed records were\n"
	     "skipped (by default such a trace is refused)"),
	STR("save-workload", "FILE", save, 0,
	    "write the workload used, then run it"),
	FN("jobs", "N", _set_jobs, GEN,
	   "jobs to generate (biomed 1000, diffusion 250000)"),
	UINT("seed", "N", seed, 0, 18446744073709551615.0, 0,
	     "seed of every random choice (1)"),
	NUM("time-scale", "X", time_scale, 1e-9, 1e9, 0,
	    "multiply every arrival time by X"),

	SECTION("  biomed (online-hps-khanna 6.1):"),
	FN("overlap", "high|medium|low|F", _set_overlap, K(BIOMED),
	   "target overlap .85/.40/.10 or 0..0.99"),
	FN("order", "clustered|random", _set_order, K(BIOMED),
	   "a patient's jobs together or not (clustered)"),
	NUM("load", "X", arr.load, 1e-6, 1e6, K(BIOMED),
	    "eqs. 9-11: arrival rate for this load (1.0)"),
	FN("arrivals", "MODEL", _set_arrivals, GEN,
	   "poisson, lublin or burst (poisson); diffusion:\n"
	   "steps (default) or poisson"),
	UINT("lublin-start-hour", "H", arr.lublin_start_hour, 0, 23,
	     K(BIOMED), "hour of day of the first Lublin arrival (0)"),
	UINT("patients", "N", bio.patients, 1, 1e7, K(BIOMED),
	     "patients (2000)"),
	UINT("images", "N", bio.images, 1, 1e5, K(BIOMED),
	     "images per patient (30)"),
	NUM("mri-fraction", "F", bio.mri_fraction, 0, 1, K(BIOMED),
	    "share of 4 MB MRI images, others 64 MB CT (.5)"),
	UINT("files-min", "N", bio.files_min, 1, 64, K(BIOMED),
	     "fewest files of a job (4)"),
	UINT("files-max", "N", bio.files_max, 1, 64, K(BIOMED),
	     "most files of a job (10)"),
	NUM("files-mean", "X", bio.files_mean, 1, 64, K(BIOMED),
	    "mean files of a job (6)"),

	SECTION("  diffusion (data-diffusion-raicu 5.2):"),
	UINT("files", "N", dif.files, 1, 1e8, K(DIFFUSION), "files (10000)"),
	SIZE("file-size", "SIZE", dif.file_size, K(DIFFUSION),
	     "size of every file (10M)"),
	NUM("task-compute", "S", dif.compute, 0, 1e9, K(DIFFUSION),
	    "compute seconds of a task (0.010)"),
	NUM("rate-start", "R", dif.rate_start, 1e-9, 1e9, K(DIFFUSION),
	    "first arrival rate, tasks/s (1)"),
	NUM("rate-factor", "F", dif.rate_factor, 1, 1e3, K(DIFFUSION),
	    "rate multiplied by F every interval (1.3)"),
	NUM("rate-interval", "S", dif.rate_interval, 1e-6, 1e9, K(DIFFUSION),
	    "seconds between rate increases (60)"),
	NUM("rate-max", "R", dif.rate_max, 1e-9, 1e9, K(DIFFUSION),
	    "highest arrival rate, tasks/s (1000)"),

	SECTION("  access pattern (hjs-mansouri 4.1) of patients or files:"),
	FN("pattern", "NAME", _set_pattern, GEN,
	   "uniform, sequential, gaussian or zipf (uniform)"),
	NUM("sigma", "X", access.sigma, 1e-9, 1e12, GEN,
	    "gaussian walk step, items (n/100)"),
	NUM("zipf-s", "X", access.zipf_s, 0, 100, GEN,
	    "zipf exponent S (1.0)"),

	SECTION("Platform (the same for every policy unless given):"),
	UINT("nodes", "P", cfg.nodes, 1, 100000, 0, "compute nodes (4)"),
	UINT("storage", "S", cfg.storage, 1, 100000, 0, "storage nodes (4)"),
	UINT("cores", "C", cfg.cores, 1, 4096, 0,
	     "job slots per compute node (1)"),
	FN("cache-size", "SIZE|unlimited", _set_cache, 0,
	   "cache per compute node (15G)"),
	FN("eviction", "NAME", _set_eviction, 0,
	   "value, lru, lfu, fifo, random or node-value\n"
	   "(value; lru for jdp-dll and the Falkon policies,\n"
	   "as their papers; node-value: value as the nodes'\n"
	   "dl-stage computes it, without Numcopies)"),
	BW("rbw", cfg.params.rbw,
	   "storage bandwidth, bytes/s (100e6; K/M/G binary)"),
	BW("lbw", cfg.params.lbw, "local disk bandwidth, bytes/s (500e6)"),
	NUM("cpb", "S", cfg.params.cpb, 0, 1e6, 0,
	    "compute seconds per input byte (1e-9)"),
	FLAG("peer-fetch", cfg.peer_fetch, 1,
	     "fetch files from other nodes' caches too, for\n"
	     "every policy (off)"),
	FLAG("no-peer-fetch", cfg.peer_fetch, 0,
	     "files come from storage only (the default)"),
	BW("peer-bw", cfg.peer_bw, "bandwidth of a peer fetch (the rbw)"),
	NUM("launch-overhead", "S", cfg.launch, 0, 1e6, 0,
	    "seconds a job holds its slot besides its\n"
	    "staging and compute: launch, Prolog, Epilog (0)"),
	NUM("agent-estimates", "LIMIT", cfg.agent_limit, 0, 1e9, 0,
	    "the policies see the plugin agent's run times\n"
	    "(Slurm's whole seconds, its history of the\n"
	    "jobs with files, LIMIT s before the first),\n"
	    "not the workload's; 0: off (the default)"),

	SECTION("Simulation:"),
	UINT("window", "N", cfg.window, 0, 18446744073709551615.0, 0,
	     "pending jobs shown to a plan, 0 = all\n"
	     "(0; diffusion: 100 x nodes)"),
	NUM("replan-min-interval", "S", cfg.replan_min_interval, 0, 1e9, 0,
	    "seconds between full plans (0)"),
	NUM("agent-cycle", "S", agent_cycle, 0.001, DL_SIM_AGENT_CYCLE_MAX, 0,
	    "plan as the plugin's agent paces its cycles: a\n"
	    "new job at the agent's next poll (0.01 s), a\n"
	    "job's start or end within 0.1 s, anything else\n"
	    "(a file staged, a wait run out) at most every\n"
	    "S s (the agent's 1 s); in between, Slurm\n"
	    "starts jobs under the last plan's restrictions\n"
	    "(S <= 3, the gate's least bound).\n"
	    "Sets --replan-min-interval; --dispatch slurm only"),
	FLAG("check", cfg.check, 1,
	     "verify invariants (cache capacity) as it runs"),
	FN("dispatch", "slurm|plan", _set_dispatch, 0,
	   "start jobs as slurmctld does with the plugin:\n"
	   "priority order, the plan as per-job node\n"
	   "restrictions (slurm, default); or each node\n"
	   "its planned jobs in plan order (plan)"),

	SECTION("  restrictions (--dispatch slurm; see dl_place.h):"),
	{ .name = "wait-factor", .type = T_DOUBLE, .arg = "X",
	  F(cfg.place.wait_factor), .min = 0, .max = 1e6, .place = 1,
	  .help = "a job waits for its node X x (bytes cached\n"
		  "there / rbw) (1)" },
	{ .name = "min-wait", .type = T_DOUBLE, .arg = "S",
	  F(cfg.place.min_wait), .min = 0, .max = 1e9, .place = 1,
	  .help = "shortest such wait, seconds (2)" },
	{ .name = "max-wait", .type = T_DOUBLE, .arg = "S",
	  F(cfg.place.max_wait), .min = 0, .max = 1e9, .place = 1,
	  .help = "longest such wait, seconds (300)" },
	{ .name = "hysteresis", .type = T_DOUBLE, .arg = "X",
	  F(cfg.place.hysteresis), .min = 0, .max = 1e6, .place = 1,
	  .help = "move a job only for X x its input more\n"
		  "cached on the new node (0.25)" },
	{ .name = "strict", .type = T_FLAG, F(cfg.place.strict), .min = 1,
	  .place = 1, .help = "never widen: wait for the node for ever" },

	SECTION("  prefetch (--dispatch slurm; the plugin's agent, off):"),
	{ .name = "prefetch", .type = T_UINT, .arg = "N", F(cfg.prefetch),
	  .min = 0, .max = 65536, .place = 1,
	  .help = "after every full plan, copy ahead the missing\n"
		  "files of the first N jobs planned on each node\n"
		  "(0; the plugin: 2 x the node's CPUs)" },
	{ .name = "prefetch-budget", .type = T_FN, .arg = "SIZE|unlimited",
	  .fn = _set_prefetch_budget, .place = 1,
	  .help = "bytes missing per node those jobs may bring\n"
		  "(half the --cache-size: PrefetchMaxBytes)" },

	SECTION("Provisioning (data-diffusion-raicu 3.1, 5.2; off by default):"),
	FN("provision", "SPEC", _set_provision, 0,
	   "grow and shrink the pool of --nodes: key=value,...\n"
	   "alloc=one|additive|exponential|all (additive),\n"
	   "step=N (1), min=N (0), max=N (all),\n"
	   "latency=S[:S2] (30:60), idle=S (60),\n"
	   "interval=S (5), cache=lost|kept (lost);\n"
	   "\"off\" to disable"),

	SECTION("Output:"),
	STR("csv", "FILE", csv, 0,
	    "append one row (header if the file is new)"),
	STR("json", "FILE", json, 0, "append one JSON object per line"),
	STR("jobs-csv", "FILE", jobs_csv, 0, "write one row per job"),
	FLAG("progress", progress, 1, "progress on stderr"),
	FN("timeline", "FILE", _set_timeline, 0,
	   "the system every 10 s of simulated time, CSV"),
	{ .name = "quiet", .key = 'q', .type = T_FLAG, F(quiet), .min = 1,
	  .help = "no summary" },
	{ .name = "help", .key = 'h', .type = T_FN, .fn = _help,
	  .help = "this text" },
	{ .name = "version", .key = 'V', .type = T_FN, .fn = _version,
	  .help = "the version" },
};

#define NOPTS (sizeof(opts) / sizeof(*opts))

_Static_assert(NOPTS <= DL_SIM_OPTS_MAX, "raise DL_SIM_OPTS_MAX");

static int _find(const char *name)
{
	size_t i;

	for (i = 0; i < NOPTS; i++)
		if (opts[i].name && !strcmp(opts[i].name, name))
			return (int) i;
	return -1;
}

size_t dl_sim_args_count(void)
{
	return NOPTS;
}

const char *dl_sim_args_name(size_t i)
{
	return i < NOPTS ? opts[i].name : NULL;
}

int dl_sim_args_given(const dl_sim_args_t *a, const char *name)
{
	int i = _find(name);

	return i >= 0 && a->given[i];
}

/* Store the argument of option o into a. \return 0, DL_SIM_ARGS_DONE or
 * DL_EINVAL with err set. */
static int _apply(const _opt_t *o, dl_sim_args_t *a, const char *arg,
		  FILE *out, char *err, size_t len)
{
	char *field = (char *) a + o->off;
	uint64_t u = 0;
	double d = 0;
	int rc = 0;

	switch (o->type) {
	case T_FLAG:
	{
		int v = (int) o->min;

		memcpy(field, &v, sizeof(v));
		return 0;
	}
	case T_DOUBLE:
		rc = _num(o->name, arg, o->min, o->max, &d, err, len);
		break;
	case T_BW:
		rc = _bw(o->name, arg, &d, err, len);
		break;
	case T_UINT:
		rc = _uint(o->name, arg, o->min, o->max, &u, err, len);
		break;
	case T_SIZE:
		rc = _size(o->name, arg, &u, err, len);
		break;
	case T_STR:
		memcpy(field, &arg, sizeof(arg));
		return 0;
	case T_FN:
		return o->fn(a, arg, out, err, len);
	default:
		return 0;
	}
	if (rc)
		return rc;
	if (o->type == T_DOUBLE || o->type == T_BW) {
		memcpy(field, &d, sizeof(d));
	} else if (o->width == sizeof(uint32_t)) {
		uint32_t v = (uint32_t) u;

		memcpy(field, &v, sizeof(v));
	} else {
		memcpy(field, &u, sizeof(u));
	}
	return 0;
}

static int _takes_arg(const _opt_t *o)
{
	return o->type != T_FLAG && !(o->type == T_FN && !o->arg);
}

/* The getopt_long tables, built from opts: long options return their
 * index in opts + 256, short ones their letter. */
static void _getopt_tables(struct option *lo, char *shortopts)
{
	size_t i, n = 0, s = 0;

	for (i = 0; i < NOPTS; i++) {
		if (opts[i].type == T_SECTION)
			continue;
		lo[n].name = opts[i].name;
		lo[n].has_arg = _takes_arg(&opts[i]) ? required_argument :
							no_argument;
		lo[n].flag = NULL;
		lo[n].val = 256 + (int) i;
		n++;
		if (opts[i].key) {
			shortopts[s++] = (char) opts[i].key;
			if (lo[n - 1].has_arg == required_argument)
				shortopts[s++] = ':';
		}
	}
	memset(&lo[n], 0, sizeof(lo[n]));
	shortopts[s] = '\0';
}

/* What getopt_long refused, in words (opterr is 0: it said nothing). */
static int _getopt_error(const struct option *lo, const char *bad, char *err,
			 size_t len)
{
	size_t i;

	if (optopt >= 256) {
		const _opt_t *o = &opts[optopt - 256];

		if (!_takes_arg(o))
			return _fail(err, len, "--%s takes no argument",
				     o->name);
		return _fail(err, len, "--%s needs an argument (%s)", o->name,
			     o->arg);
	}
	for (i = 0; optopt && lo[i].name; i++)
		if (lo[i].val >= 256 && opts[lo[i].val - 256].key == optopt)
			return _fail(err, len, "-%c needs an argument (%s)",
				     optopt, opts[lo[i].val - 256].arg);
	if (optopt)
		return _fail(err, len, "unknown option '-%c'", optopt);
	return _fail(err, len, "unknown or ambiguous option '%s'", bad);
}

static void _defaults(dl_sim_args_t *a)
{
	memset(a, 0, sizeof(*a));
	a->kind = DL_SIM_WL_BIOMED;
	a->seed = 1;
	a->time_scale = 1.0;
	dl_wl_biomed_opts_default(&a->bio);
	dl_wl_diffusion_opts_default(&a->dif);
	dl_wl_arrival_opts_default(&a->arr);
	a->access.pattern = DL_WL_PATTERN_UNIFORM;
	a->access.zipf_s = 1.0;
	dl_sim_config_default(&a->cfg);
	a->cfg.policy = NULL;
	a->cfg.params.unknown_size = 64ULL << 20;
}

static int _check_all(dl_sim_args_t *a, char *err, size_t len);

int dl_sim_args_parse(int argc, char **argv, dl_sim_args_t *a, FILE *out,
		      char *err, size_t errlen)
{
	struct option lo[NOPTS + 1];
	char shortopts[2 * NOPTS + 2];
	int c, rc;

	_defaults(a);
	_getopt_tables(lo, shortopts);
	/* Errors are ours to word; getopt's own message would go to stderr
	 * with no way for the caller to see it. */
	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, shortopts, lo, NULL)) != -1) {
		size_t i;

		if (c == '?' || c == ':')
			return _getopt_error(lo, argv[optind - 1], err, errlen);
		if (c >= 256) {
			i = (size_t) (c - 256);
		} else {
			for (i = 0; i < NOPTS && opts[i].key != c; i++)
				;
			if (i == NOPTS)
				return _fail(err, errlen,
					     "unknown option '-%c'", c);
		}
		a->given[i] = 1;
		rc = _apply(&opts[i], a, optarg, out, err, errlen);
		if (rc)
			return rc;
	}
	if (optind < argc)
		return _fail(err, errlen, "unexpected argument '%s'",
			     argv[optind]);
	return _check_all(a, err, errlen);
}

/* ---------------------------------------------------------------------- */
/* Checks across options                                                  */

/*
 * What a policy's paper assumes of the cache, unless the user says
 * otherwise: JobDataPresent + DataLeastLoaded runs with LRU eviction
 * (online-hps-khanna §4.4), and so do Falkon's executors
 * (data-diffusion-raicu §3.1: "the experiments in this paper all use
 * LRU").  Peer fetch is not among these: it is the platform, the same for
 * every policy of a comparison, so it is off unless asked for.
 */
static const struct {
	const char *policy;
	const char *eviction;
} policy_defaults[] = {
	{ "jdp-dll", "lru" },
	{ "first-available", "lru" },
	{ "max-cache-hit", "lru" },
	{ "max-compute-util", "lru" },
	{ "good-cache-compute", "lru" },
};

static void _policy_defaults(dl_sim_args_t *a)
{
	size_t i;

	for (i = 0; i < sizeof(policy_defaults) / sizeof(*policy_defaults);
	     i++)
		if (!strcmp(a->policy, policy_defaults[i].policy) &&
		    !dl_sim_args_given(a, "eviction"))
			dl_evict_from_name(policy_defaults[i].eviction,
					   &a->cfg.eviction);
}

/* --workload-file and --swf name their kind; every option given must
 * apply to the kind. */
static int _check_kind(dl_sim_args_t *a, char *err, size_t len)
{
	size_t i;

	if (a->wl_file && a->swf)
		return _fail(err, len,
			     "--workload-file and --swf exclude each other");
	if (a->wl_file) {
		if (a->kind_set && a->kind != DL_SIM_WL_FILE)
			return _fail(err, len,
				     "--workload-file needs --workload file");
		a->kind = DL_SIM_WL_FILE;
	} else if (a->swf) {
		if (a->kind_set && a->kind != DL_SIM_WL_SWF)
			return _fail(err, len, "--swf needs --workload swf");
		a->kind = DL_SIM_WL_SWF;
	}
	if (a->kind == DL_SIM_WL_FILE && !a->wl_file)
		return _fail(err, len,
			     "--workload file needs --workload-file FILE");
	if (a->kind == DL_SIM_WL_SWF && !a->swf)
		return _fail(err, len, "--workload swf needs --swf FILE");
	for (i = 0; i < NOPTS; i++)
		if (a->given[i] && opts[i].kinds &&
		    !(opts[i].kinds & (1u << a->kind)))
			return _fail(err, len,
				     "--%s does not apply to --workload %s",
				     opts[i].name, wl_names[a->kind]);
	return 0;
}

static int _check_generators(dl_sim_args_t *a, char *err, size_t len)
{
	if (a->kind == DL_SIM_WL_BIOMED) {
		if (a->arr.model == DL_WL_ARRIVALS_STEPS)
			return _fail(err, len,
				     "--arrivals steps is the diffusion workload's");
		if (a->bio.files_min > a->bio.files_max ||
		    a->bio.files_mean < a->bio.files_min ||
		    a->bio.files_mean > a->bio.files_max)
			return _fail(err, len,
				     "need --files-min <= --files-mean <= --files-max");
		if (a->bio.images < a->bio.files_max)
			return _fail(err, len,
				     "--images (%u) must be at least --files-max (%u)",
				     a->bio.images, a->bio.files_max);
		a->bio.access = a->access;
	}
	if (a->kind == DL_SIM_WL_DIFFUSION) {
		if (a->arrivals_set && a->arr.model != DL_WL_ARRIVALS_STEPS &&
		    a->arr.model != DL_WL_ARRIVALS_POISSON)
			return _fail(err, len,
				     "--workload diffusion takes --arrivals steps or poisson");
		a->dif.poisson = a->arr.model == DL_WL_ARRIVALS_POISSON &&
				 a->arrivals_set;
		if (a->dif.rate_max < a->dif.rate_start)
			return _fail(err, len,
				     "--rate-max must be at least --rate-start");
		a->dif.access = a->access;
		/* Falkon's scheduling window (data-diffusion-raicu §5.1): the
		 * queue of this workload grows to 10^5 jobs. */
		if (!dl_sim_args_given(a, "window"))
			a->cfg.window = 100 * (size_t) a->cfg.nodes;
	}
	return 0;
}

/* The restrictions' options make sense together and with the rule. */
static int _check_place(const dl_sim_args_t *a, char *err, size_t len)
{
	size_t i;

	if (a->cfg.dispatch == DL_DISPATCH_PLAN)
		for (i = 0; i < NOPTS; i++)
			if (a->given[i] && opts[i].place)
				return _fail(err, len,
					     "--%s applies to --dispatch slurm only",
					     opts[i].name);
	if (a->cfg.place.max_wait < a->cfg.place.min_wait)
		return _fail(err, len,
			     "--max-wait (%g) must be at least --min-wait (%g)",
			     a->cfg.place.max_wait, a->cfg.place.min_wait);
	return 0;
}

/*
 * --agent-cycle is --replan-min-interval under the slurm dispatch, whose
 * carried passes hold an unplaced job with input as the submit gate does.
 * The plan dispatch's carried plans start no unplaced job at all, which
 * is not the agent's.
 */
static int _check_agent_cycle(dl_sim_args_t *a, char *err, size_t len)
{
	if (!dl_sim_args_given(a, "agent-cycle"))
		return 0;
	if (a->cfg.dispatch != DL_DISPATCH_SLURM)
		return _fail(err, len,
			     "--agent-cycle models the plugin's agent over Slurm's dispatch: it needs --dispatch slurm (under --dispatch plan, use --replan-min-interval)");
	if (dl_sim_args_given(a, "replan-min-interval"))
		return _fail(err, len,
			     "--agent-cycle sets --replan-min-interval: give one of them");
	a->cfg.replan_min_interval = a->agent_cycle;
	a->cfg.agent_pace = 1;
	return 0;
}

static int _check_all(dl_sim_args_t *a, char *err, size_t len)
{
	int rc;

	if ((rc = _check_kind(a, err, len)))
		return rc;
	if (!a->policy)
		return _fail(err, len,
			     "--policy NAME is required (see --list-policies)");
	if ((rc = _check_generators(a, err, len)))
		return rc;
	if (dl_sim_args_given(a, "peer-fetch") &&
	    dl_sim_args_given(a, "no-peer-fetch"))
		return _fail(err, len,
			     "--peer-fetch and --no-peer-fetch exclude each other");
	if ((rc = _check_agent_cycle(a, err, len)) ||
	    (rc = _check_place(a, err, len)))
		return rc;
	/* The plugin's PrefetchMaxBytes defaults to half the cache. */
	if (!dl_sim_args_given(a, "prefetch-budget"))
		a->cfg.prefetch_budget =
			a->cfg.cache_bytes == DL_CACHE_UNLIMITED ?
				0 :
				a->cfg.cache_bytes / 2;
	_policy_defaults(a);
	a->cfg.policy = a->policy;
	a->cfg.policy_params = a->policy_params;
	a->cfg.seed = a->seed;
	return 0;
}

/* ---------------------------------------------------------------------- */
/* --help                                                                 */

#define HELP_COL 30

void dl_sim_args_usage(FILE *out, const char *prog)
{
	size_t i;

	fprintf(out,
		"Usage: %s --policy NAME [--policy-params P] --workload KIND [options]\n"
		"       %s --list-policies\n"
		"\n"
		"Simulate a data-locality-aware scheduling policy on a cluster of compute\n"
		"nodes fed by storage nodes (see dl-sim(1) and doc/workloads.md).\n",
		prog, prog);
	for (i = 0; i < NOPTS; i++) {
		const _opt_t *o = &opts[i];
		const char *h = o->help, *nl;
		char lhs[80];
		int n;

		if (o->type == T_SECTION) {
			fprintf(out, "%s%s\n", o->help[0] == ' ' ? "" : "\n",
				o->help);
			continue;
		}
		if (o->key)
			n = snprintf(lhs, sizeof(lhs), "  -%c, --%s", o->key,
				     o->name);
		else
			n = snprintf(lhs, sizeof(lhs), "      --%s", o->name);
		if (o->arg)
			snprintf(lhs + n, sizeof(lhs) - (size_t) n, " %s",
				 o->arg);
		fprintf(out, "%-*s", HELP_COL - 1, lhs);
		/* A long left side gets the help on its own line. */
		if (strlen(lhs) >= HELP_COL - 1)
			fprintf(out, "\n%*s", HELP_COL - 1, "");
		for (;;) {
			nl = strchr(h, '\n');
			fprintf(out, " %.*s\n", nl ? (int) (nl - h) : (int) strlen(h),
				h);
			if (!nl)
				break;
			h = nl + 1;
			fprintf(out, "%*s", HELP_COL - 1, "");
		}
	}
}
