/*
 * dl-sim.c - the simulator's command line: build or read a workload, run
 * it under one policy, print a summary and append CSV/JSON rows.
 * See doc/dl-sim.1.  Exit status: 0 success, 1 run failed or left jobs
 * unfinished, 2 bad arguments.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dl_error.h"
#include "dl_log.h"
#include "dl_policy.h"
#include "metrics.h"
#include "sim.h"
#include "workload.h"

#define DL_SIM_VERSION "0.1.0"

static const char *prog = "dl-sim";

static void _usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

static void _usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help'.\n", prog);
	exit(2);
}

static void _usage(FILE *out)
{
	fprintf(out,
		"Usage: %s --policy NAME [--policy-params P] --workload KIND [options]\n"
		"       %s --list-policies\n"
		"\n"
		"Simulate a data-locality-aware scheduling policy on a cluster of compute\n"
		"nodes fed by storage nodes (see dl-sim(1) and doc/workloads.md).\n"
		"\n"
		"Policy:\n"
		"  -p, --policy NAME          a registered policy (--list-policies)\n"
		"      --policy-params P      key=value,... passed to the policy\n"
		"      --list-policies        list the policies and exit\n"
		"Workload:\n"
		"  -w, --workload KIND        biomed (default), diffusion, swf, file\n"
		"      --workload-file FILE   read a saved workload (implies file)\n"
		"      --swf FILE             SWF trace (implies swf); --swf-files FILE: its\n"
		"                             input files ('JOBID PATH[,PATH...] [SIZE]')\n"
		"      --save-workload FILE   write the workload used, then run it\n"
		"      --jobs N               jobs to generate (biomed 1000, diffusion 250000)\n"
		"      --seed N               seed of every random choice (1)\n"
		"      --time-scale X         multiply every arrival time by X\n"
		"  biomed (online-hps-khanna 6.1):\n"
		"      --overlap high|medium|low|F   target overlap .85/.40/.10 or 0..1\n"
		"      --order clustered|random      a patient's jobs together or not\n"
		"      --load X               eqs. 9-11: arrival rate for this load (1.0)\n"
		"      --arrivals poisson|lublin|burst  arrival process (poisson)\n"
		"      --lublin-start-hour H  hour of day of the first Lublin arrival (0)\n"
		"      --patients N (2000)  --images N per patient (30)  --mri-fraction F (.5)\n"
		"      --files-min N (4)  --files-max N (10)  --files-mean X (6)\n"
		"  diffusion (data-diffusion-raicu 5.2):\n"
		"      --files N (10000)  --file-size SIZE (10M)  --task-compute S (0.010)\n"
		"      --rate-start R (1)  --rate-factor F (1.3)  --rate-interval S (60)\n"
		"      --rate-max R (1000)  --arrivals steps|poisson (steps)\n"
		"  access pattern (hjs-mansouri 4.1) of patients (biomed) or files:\n"
		"      --pattern uniform|sequential|gaussian|zipf (uniform)\n"
		"      --sigma X              gaussian walk step, items (n/100)\n"
		"      --zipf-s X             zipf exponent S (1.0)\n"
		"Platform:\n"
		"      --nodes P (4)  --storage S (4)  --cores C (1)\n"
		"      --cache-size SIZE|unlimited   per compute node (15G)\n"
		"      --eviction value|lru|lfu|fifo|random (value; lru for jdp-dll and\n"
		"                             the Falkon policies)\n"
		"      --rbw BW (100e6)  --lbw BW (500e6)  bytes/s, K/M/G suffixes binary\n"
		"      --cpb S                compute seconds per input byte (1e-9)\n"
		"      --peer-fetch, --no-peer-fetch  fetch from other nodes' caches too\n"
		"                             (on for max-cache-hit, max-compute-util,\n"
		"                             good-cache-compute and hjs; off otherwise)\n"
		"      --peer-bw BW           bandwidth of a peer fetch (the rbw)\n"
		"      --unknown-size SIZE    size of an SWF file whose size is not given (64M)\n"
		"Simulation:\n"
		"      --window N             pending jobs shown to a plan, 0 = all\n"
		"                             (0; diffusion: 100 x nodes)\n"
		"      --replan-min-interval S  seconds between full plans (0)\n"
		"      --check                verify invariants (cache capacity) as it runs\n"
		"      --dispatch slurm|plan  start jobs as slurmctld does with the plugin:\n"
		"                             priority order, the plan as per-job node\n"
		"                             restrictions (slurm, default); or each node\n"
		"                             its planned jobs in plan order (plan)\n"
		"  restrictions (--dispatch slurm; see dl_place.h):\n"
		"      --wait-factor X        a job waits for its node X x (bytes cached\n"
		"                             there / rbw) (1)\n"
		"      --min-wait S (2)  --max-wait S (300)  bounds of that wait, seconds\n"
		"      --hysteresis X         move a job only for X x its input more\n"
		"                             cached on the new node (0.25)\n"
		"      --strict               never widen: wait for the node for ever\n"
		"Output:\n"
		"      --csv FILE             append one row (header if the file is new)\n"
		"      --json FILE            append one JSON object per line\n"
		"      --jobs-csv FILE        write one row per job\n"
		"      --progress             progress on stderr\n"
		"      --timeline FILE        the system every 10 s of simulated time, CSV\n"
		"Provisioning (data-diffusion-raicu 3.1, 5.2; off by default):\n"
		"      --provision SPEC       grow and shrink the pool of --nodes: key=value,...\n"
		"                             alloc=one|additive|exponential|all (additive),\n"
		"                             step=N (1), min=N (0), max=N (all), latency=S[:S2]\n"
		"                             (30:60), idle=S (60), interval=S (5),\n"
		"                             cache=lost|kept (lost); \"off\" to disable\n"
		"  -q, --quiet                no summary\n"
		"  -h, --help  -V, --version\n",
		prog, prog);
}

/* ---------------------------------------------------------------------- */
/* Argument parsing                                                       */

static double _num(const char *opt, const char *s, double min, double max)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end || errno || !isfinite(v) || v < min || v > max)
		_usage_error("%s: expected a number in [%g, %g], got '%s'", opt,
			     min, max, s);
	return v;
}

static uint64_t _uint(const char *opt, const char *s, uint64_t min,
		      uint64_t max)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (end == s || *end || errno || *s == '-' || v < min || v > max)
		_usage_error(
			"%s: expected an integer in [%llu, %llu], got '%s'",
			opt, (unsigned long long) min, (unsigned long long) max,
			s);
	return v;
}

static uint64_t _size(const char *opt, const char *s)
{
	uint64_t v;

	if (dl_wl_parse_size(s, &v))
		_usage_error(
			"%s: expected a size such as 4096, 64M, 15G, got '%s'",
			opt, s);
	return v;
}

/* Bandwidth: a size per second, "/s" allowed. */
static double _bw(const char *opt, const char *s)
{
	char buf[64];
	size_t n = strlen(s);
	uint64_t v;

	if (n >= sizeof(buf))
		_usage_error("%s: '%s' is too long", opt, s);
	memcpy(buf, s, n + 1);
	if (n > 2 && !strcmp(buf + n - 2, "/s"))
		buf[n - 2] = '\0';
	if (dl_wl_parse_size(buf, &v) || !v)
		_usage_error(
			"%s: expected bytes per second such as 100e6 or 100M, got '%s'",
			opt, s);
	return (double) v;
}

enum {
	O_POLICY_PARAMS = 256,
	O_LIST,
	O_WLFILE,
	O_SWF,
	O_SWF_FILES,
	O_SAVE,
	O_JOBS,
	O_SEED,
	O_TIME_SCALE,
	O_OVERLAP,
	O_ORDER,
	O_LOAD,
	O_ARRIVALS,
	O_LUBLIN_HOUR,
	O_PATIENTS,
	O_IMAGES,
	O_MRI,
	O_FMIN,
	O_FMAX,
	O_FMEAN,
	O_FILES,
	O_FILE_SIZE,
	O_TASK_COMPUTE,
	O_RSTART,
	O_RFACTOR,
	O_RINTERVAL,
	O_RMAX,
	O_PATTERN,
	O_SIGMA,
	O_ZIPF,
	O_NODES,
	O_STORAGE,
	O_CORES,
	O_CACHE,
	O_EVICTION,
	O_RBW,
	O_LBW,
	O_CPB,
	O_PEER,
	O_PEER_BW,
	O_NO_PEER,
	O_UNKNOWN,
	O_WINDOW,
	O_REPLAN,
	O_DISPATCH,
	O_WAIT_FACTOR,
	O_MIN_WAIT,
	O_MAX_WAIT,
	O_HYSTERESIS,
	O_STRICT,
	O_CHECK,
	O_CSV,
	O_JSON,
	O_JOBS_CSV,
	O_PROGRESS,
	O_PROVISION,
	O_TIMELINE,
	O_MAX
};

static const struct option longopts[] = {
	{ "policy", required_argument, NULL, 'p' },
	{ "policy-params", required_argument, NULL, O_POLICY_PARAMS },
	{ "list-policies", no_argument, NULL, O_LIST },
	{ "workload", required_argument, NULL, 'w' },
	{ "workload-file", required_argument, NULL, O_WLFILE },
	{ "swf", required_argument, NULL, O_SWF },
	{ "swf-files", required_argument, NULL, O_SWF_FILES },
	{ "save-workload", required_argument, NULL, O_SAVE },
	{ "jobs", required_argument, NULL, O_JOBS },
	{ "seed", required_argument, NULL, O_SEED },
	{ "time-scale", required_argument, NULL, O_TIME_SCALE },
	{ "overlap", required_argument, NULL, O_OVERLAP },
	{ "order", required_argument, NULL, O_ORDER },
	{ "load", required_argument, NULL, O_LOAD },
	{ "arrivals", required_argument, NULL, O_ARRIVALS },
	{ "lublin-start-hour", required_argument, NULL, O_LUBLIN_HOUR },
	{ "patients", required_argument, NULL, O_PATIENTS },
	{ "images", required_argument, NULL, O_IMAGES },
	{ "mri-fraction", required_argument, NULL, O_MRI },
	{ "files-min", required_argument, NULL, O_FMIN },
	{ "files-max", required_argument, NULL, O_FMAX },
	{ "files-mean", required_argument, NULL, O_FMEAN },
	{ "files", required_argument, NULL, O_FILES },
	{ "file-size", required_argument, NULL, O_FILE_SIZE },
	{ "task-compute", required_argument, NULL, O_TASK_COMPUTE },
	{ "rate-start", required_argument, NULL, O_RSTART },
	{ "rate-factor", required_argument, NULL, O_RFACTOR },
	{ "rate-interval", required_argument, NULL, O_RINTERVAL },
	{ "rate-max", required_argument, NULL, O_RMAX },
	{ "pattern", required_argument, NULL, O_PATTERN },
	{ "sigma", required_argument, NULL, O_SIGMA },
	{ "zipf-s", required_argument, NULL, O_ZIPF },
	{ "nodes", required_argument, NULL, O_NODES },
	{ "storage", required_argument, NULL, O_STORAGE },
	{ "cores", required_argument, NULL, O_CORES },
	{ "cache-size", required_argument, NULL, O_CACHE },
	{ "eviction", required_argument, NULL, O_EVICTION },
	{ "rbw", required_argument, NULL, O_RBW },
	{ "lbw", required_argument, NULL, O_LBW },
	{ "cpb", required_argument, NULL, O_CPB },
	{ "peer-fetch", no_argument, NULL, O_PEER },
	{ "no-peer-fetch", no_argument, NULL, O_NO_PEER },
	{ "peer-bw", required_argument, NULL, O_PEER_BW },
	{ "unknown-size", required_argument, NULL, O_UNKNOWN },
	{ "window", required_argument, NULL, O_WINDOW },
	{ "replan-min-interval", required_argument, NULL, O_REPLAN },
	{ "dispatch", required_argument, NULL, O_DISPATCH },
	{ "wait-factor", required_argument, NULL, O_WAIT_FACTOR },
	{ "min-wait", required_argument, NULL, O_MIN_WAIT },
	{ "max-wait", required_argument, NULL, O_MAX_WAIT },
	{ "hysteresis", required_argument, NULL, O_HYSTERESIS },
	{ "strict", no_argument, NULL, O_STRICT },
	{ "check", no_argument, NULL, O_CHECK },
	{ "csv", required_argument, NULL, O_CSV },
	{ "json", required_argument, NULL, O_JSON },
	{ "jobs-csv", required_argument, NULL, O_JOBS_CSV },
	{ "progress", no_argument, NULL, O_PROGRESS },
	{ "provision", required_argument, NULL, O_PROVISION },
	{ "timeline", required_argument, NULL, O_TIMELINE },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

enum {
	WL_BIOMED,
	WL_DIFFUSION,
	WL_SWF,
	WL_FILE
};

static const char *const wl_names[] = { "biomed", "diffusion", "swf", "file" };

/* Options that only some workloads take: which, by option. */
static const struct {
	int opt;
	unsigned kinds; /* bit per WL_* */
} scoped[] = {
	{ O_OVERLAP, 1u << WL_BIOMED },
	{ O_ORDER, 1u << WL_BIOMED },
	{ O_LOAD, 1u << WL_BIOMED },
	{ O_LUBLIN_HOUR, 1u << WL_BIOMED },
	{ O_PATIENTS, 1u << WL_BIOMED },
	{ O_IMAGES, 1u << WL_BIOMED },
	{ O_MRI, 1u << WL_BIOMED },
	{ O_FMIN, 1u << WL_BIOMED },
	{ O_FMAX, 1u << WL_BIOMED },
	{ O_FMEAN, 1u << WL_BIOMED },
	{ O_FILES, 1u << WL_DIFFUSION },
	{ O_FILE_SIZE, 1u << WL_DIFFUSION },
	{ O_TASK_COMPUTE, 1u << WL_DIFFUSION },
	{ O_RSTART, 1u << WL_DIFFUSION },
	{ O_RFACTOR, 1u << WL_DIFFUSION },
	{ O_RINTERVAL, 1u << WL_DIFFUSION },
	{ O_RMAX, 1u << WL_DIFFUSION },
	{ O_JOBS, (1u << WL_BIOMED) | (1u << WL_DIFFUSION) },
	{ O_ARRIVALS, (1u << WL_BIOMED) | (1u << WL_DIFFUSION) },
	{ O_PATTERN, (1u << WL_BIOMED) | (1u << WL_DIFFUSION) },
	{ O_SIGMA, (1u << WL_BIOMED) | (1u << WL_DIFFUSION) },
	{ O_ZIPF, (1u << WL_BIOMED) | (1u << WL_DIFFUSION) },
	{ O_SWF, 1u << WL_SWF },
	{ O_SWF_FILES, 1u << WL_SWF },
	{ O_UNKNOWN, 1u << WL_SWF },
	{ O_WLFILE, 1u << WL_FILE },
};

static const char *_optname(int opt)
{
	size_t i;

	for (i = 0; longopts[i].name; i++)
		if (longopts[i].val == opt)
			return longopts[i].name;
	return "?";
}

typedef struct {
	const char *policy, *policy_params;
	int kind;
	const char *wl_file, *swf, *swf_files, *save;
	uint64_t seed;
	double time_scale;
	dl_wl_biomed_opts_t bio;
	dl_wl_diffusion_opts_t dif;
	dl_wl_arrival_opts_t arr;
	int arrivals_set;
	dl_wl_access_t access;
	dl_sim_config_t cfg;
	const char *csv, *json, *jobs_csv, *timeline;
	int progress, quiet;
	double overlap_target;
	const char *order;
	uint8_t given[O_MAX];
} _args_t;

static double _overlap(const char *s)
{
	if (!strcasecmp(s, "high"))
		return 0.85;
	if (!strcasecmp(s, "medium"))
		return 0.40;
	if (!strcasecmp(s, "low"))
		return 0.10;
	return _num("--overlap", s, 0, 0.99);
}

/*
 * What a policy's paper assumes of the system, unless the user says
 * otherwise: JobDataPresent + DataLeastLoaded runs with LRU eviction
 * (online-hps-khanna §4.4), Falkon's executors too (data-diffusion-raicu
 * §3.1: "the experiments in this paper all use LRU") and they fetch from
 * each other's caches (§3.1), as HJS reads from any replica (hjs-mansouri
 * §3.1).  First-available is the baseline without data diffusion.
 */
static const struct {
	const char *policy;
	const char *eviction;
	int peer_fetch;
} policy_defaults[] = {
	{ "jdp-dll", "lru", 0 },
	{ "first-available", "lru", 0 },
	{ "max-cache-hit", "lru", 1 },
	{ "max-compute-util", "lru", 1 },
	{ "good-cache-compute", "lru", 1 },
	{ "hjs", "value", 1 },
};

static void _policy_defaults(_args_t *a)
{
	size_t i;

	for (i = 0; i < sizeof(policy_defaults) / sizeof(*policy_defaults);
	     i++) {
		if (strcmp(a->policy, policy_defaults[i].policy))
			continue;
		if (!a->given[O_EVICTION])
			dl_evict_from_name(policy_defaults[i].eviction,
					   &a->cfg.eviction);
		if (!a->given[O_PEER] && !a->given[O_NO_PEER])
			a->cfg.peer_fetch = policy_defaults[i].peer_fetch;
	}
}

static void _list_policies(void)
{
	const dl_policy_ops_t *const *o;

	for (o = dl_policy_list(); *o; o++)
		printf("%-14s %s\n", (*o)->name,
		       (*o)->summary ? (*o)->summary : "");
}

/*
 * The dispatch rule and the restrictions' parameters.  \return 1 if c was
 * one of their options, 0 if not.
 */
static int _place_option(_args_t *a, int c, const char *arg)
{
	dl_place_params_t *p = &a->cfg.place;

	switch (c) {
	case O_DISPATCH:
		if (dl_dispatch_from_name(arg, &a->cfg.dispatch))
			_usage_error(
				"--dispatch: expected slurm or plan, got '%s'",
				arg);
		return 1;
	case O_WAIT_FACTOR:
		p->wait_factor = _num("--wait-factor", arg, 0, 1e6);
		return 1;
	case O_MIN_WAIT:
		p->min_wait = _num("--min-wait", arg, 0, 1e9);
		return 1;
	case O_MAX_WAIT:
		p->max_wait = _num("--max-wait", arg, 0, 1e9);
		return 1;
	case O_HYSTERESIS:
		p->hysteresis = _num("--hysteresis", arg, 0, 1e6);
		return 1;
	case O_STRICT:
		p->strict = 1;
		return 1;
	default:
		return 0;
	}
}

/* The restrictions' options make sense together and with the rule. */
static void _place_check(const _args_t *a)
{
	static const int opts[] = { O_WAIT_FACTOR, O_MIN_WAIT, O_MAX_WAIT,
				    O_HYSTERESIS, O_STRICT };
	size_t i;

	if (a->cfg.dispatch == DL_DISPATCH_PLAN)
		for (i = 0; i < sizeof(opts) / sizeof(*opts); i++)
			if (a->given[opts[i]])
				_usage_error(
					"--%s applies to --dispatch slurm only",
					_optname(opts[i]));
	if (a->cfg.place.max_wait < a->cfg.place.min_wait)
		_usage_error("--max-wait (%g) must be at least --min-wait (%g)",
			     a->cfg.place.max_wait, a->cfg.place.min_wait);
}

static void _parse(int argc, char **argv, _args_t *a)
{
	int c, kind_set = 0;
	size_t i;

	memset(a, 0, sizeof(*a));
	a->kind = WL_BIOMED;
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

	while ((c = getopt_long(argc, argv, "p:w:qhV", longopts, NULL)) != -1) {
		if (c >= O_POLICY_PARAMS && c < O_MAX)
			a->given[c] = 1;
		if (_place_option(a, c, optarg))
			continue;
		switch (c) {
		case 'p':
			a->policy = optarg;
			break;
		case O_POLICY_PARAMS:
			a->policy_params = optarg;
			break;
		case O_LIST:
			_list_policies();
			exit(0);
		case 'w':
			for (i = 0; i < 4 && strcmp(optarg, wl_names[i]); i++)
				;
			if (i == 4)
				_usage_error(
					"--workload: expected biomed, diffusion, swf or file, got '%s'",
					optarg);
			a->kind = (int) i;
			kind_set = 1;
			break;
		case O_WLFILE:
			a->wl_file = optarg;
			break;
		case O_SWF:
			a->swf = optarg;
			break;
		case O_SWF_FILES:
			a->swf_files = optarg;
			break;
		case O_SAVE:
			a->save = optarg;
			break;
		case O_JOBS:
			a->bio.jobs = a->dif.jobs =
				_uint("--jobs", optarg, 1, 100000000);
			break;
		case O_SEED:
			a->seed = _uint("--seed", optarg, 0, UINT64_MAX);
			break;
		case O_TIME_SCALE:
			a->time_scale = _num("--time-scale", optarg, 1e-9, 1e9);
			break;
		case O_OVERLAP:
			a->bio.overlap = _overlap(optarg);
			break;
		case O_ORDER:
			if (!strcmp(optarg, "clustered"))
				a->bio.clustered = 1;
			else if (!strcmp(optarg, "random"))
				a->bio.clustered = 0;
			else
				_usage_error(
					"--order: expected clustered or random, got '%s'",
					optarg);
			break;
		case O_LOAD:
			a->arr.load = _num("--load", optarg, 1e-6, 1e6);
			break;
		case O_ARRIVALS:
			if (dl_wl_arrivals_from_name(optarg, &a->arr.model))
				_usage_error(
					"--arrivals: expected poisson, lublin, burst or steps, got '%s'",
					optarg);
			a->arrivals_set = 1;
			break;
		case O_LUBLIN_HOUR:
			a->arr.lublin_start_hour =
				(int) _uint("--lublin-start-hour", optarg, 0,
					    23);
			break;
		case O_PATIENTS:
			a->bio.patients = (uint32_t) _uint("--patients", optarg,
							   1, 10000000);
			break;
		case O_IMAGES:
			a->bio.images =
				(uint32_t) _uint("--images", optarg, 1, 100000);
			break;
		case O_MRI:
			a->bio.mri_fraction =
				_num("--mri-fraction", optarg, 0, 1);
			break;
		case O_FMIN:
			a->bio.files_min =
				(uint32_t) _uint("--files-min", optarg, 1, 64);
			break;
		case O_FMAX:
			a->bio.files_max =
				(uint32_t) _uint("--files-max", optarg, 1, 64);
			break;
		case O_FMEAN:
			a->bio.files_mean = _num("--files-mean", optarg, 1, 64);
			break;
		case O_FILES:
			a->dif.files = (uint32_t) _uint("--files", optarg, 1,
							100000000);
			break;
		case O_FILE_SIZE:
			a->dif.file_size = _size("--file-size", optarg);
			break;
		case O_TASK_COMPUTE:
			a->dif.compute = _num("--task-compute", optarg, 0, 1e9);
			break;
		case O_RSTART:
			a->dif.rate_start =
				_num("--rate-start", optarg, 1e-9, 1e9);
			break;
		case O_RFACTOR:
			a->dif.rate_factor =
				_num("--rate-factor", optarg, 1, 1e3);
			break;
		case O_RINTERVAL:
			a->dif.rate_interval =
				_num("--rate-interval", optarg, 1e-6, 1e9);
			break;
		case O_RMAX:
			a->dif.rate_max = _num("--rate-max", optarg, 1e-9, 1e9);
			break;
		case O_PATTERN:
			if (dl_wl_pattern_from_name(optarg, &a->access.pattern))
				_usage_error(
					"--pattern: expected uniform, sequential, gaussian or zipf, got '%s'",
					optarg);
			break;
		case O_SIGMA:
			a->access.sigma = _num("--sigma", optarg, 1e-9, 1e12);
			break;
		case O_ZIPF:
			a->access.zipf_s = _num("--zipf-s", optarg, 0, 100);
			break;
		case O_NODES:
			a->cfg.nodes =
				(uint32_t) _uint("--nodes", optarg, 1, 100000);
			break;
		case O_STORAGE:
			a->cfg.storage = (uint32_t) _uint("--storage", optarg,
							  1, 100000);
			break;
		case O_CORES:
			a->cfg.cores =
				(uint32_t) _uint("--cores", optarg, 1, 4096);
			break;
		case O_CACHE:
			a->cfg.cache_bytes =
				!strcasecmp(optarg, "unlimited") ?
					DL_CACHE_UNLIMITED :
					_size("--cache-size", optarg);
			break;
		case O_EVICTION:
			if (dl_evict_from_name(optarg, &a->cfg.eviction))
				_usage_error(
					"--eviction: expected value, lru, lfu, fifo or random, got '%s'",
					optarg);
			break;
		case O_RBW:
			a->cfg.params.rbw = _bw("--rbw", optarg);
			break;
		case O_LBW:
			a->cfg.params.lbw = _bw("--lbw", optarg);
			break;
		case O_CPB:
			a->cfg.params.cpb = _num("--cpb", optarg, 0, 1e6);
			break;
		case O_PEER:
			a->cfg.peer_fetch = 1;
			break;
		case O_NO_PEER:
			a->cfg.peer_fetch = 0;
			break;
		case O_PEER_BW:
			a->cfg.peer_bw = _bw("--peer-bw", optarg);
			break;
		case O_UNKNOWN:
			a->cfg.params.unknown_size =
				_size("--unknown-size", optarg);
			break;
		case O_WINDOW:
			a->cfg.window =
				(size_t) _uint("--window", optarg, 0, SIZE_MAX);
			break;
		case O_REPLAN:
			a->cfg.replan_min_interval =
				_num("--replan-min-interval", optarg, 0, 1e9);
			break;
		case O_CHECK:
			a->cfg.check = 1;
			break;
		case O_CSV:
			a->csv = optarg;
			break;
		case O_JSON:
			a->json = optarg;
			break;
		case O_JOBS_CSV:
			a->jobs_csv = optarg;
			break;
		case O_PROGRESS:
			a->progress = 1;
			break;
		case O_PROVISION: {
			char perr[160];

			if (dl_prov_parse(optarg, &a->cfg.prov, perr,
					  sizeof(perr)))
				_usage_error("%s", perr);
			break;
		}
		case O_TIMELINE:
			a->timeline = optarg;
			a->cfg.timeline_every = DL_PROV_TIMELINE_EVERY;
			break;
		case 'q':
			a->quiet = 1;
			break;
		case 'h':
			_usage(stdout);
			exit(0);
		case 'V':
			printf("dl-sim %s\n", DL_SIM_VERSION);
			exit(0);
		default:
			fprintf(stderr, "Try '%s --help'.\n", prog);
			exit(2);
		}
	}
	if (optind < argc)
		_usage_error("unexpected argument '%s'", argv[optind]);

	/* --workload-file and --swf name their kind. */
	if (a->wl_file && a->swf)
		_usage_error("--workload-file and --swf exclude each other");
	if (a->wl_file) {
		if (kind_set && a->kind != WL_FILE)
			_usage_error("--workload-file needs --workload file");
		a->kind = WL_FILE;
	} else if (a->swf) {
		if (kind_set && a->kind != WL_SWF)
			_usage_error("--swf needs --workload swf");
		a->kind = WL_SWF;
	}
	if (a->kind == WL_FILE && !a->wl_file)
		_usage_error("--workload file needs --workload-file FILE");
	if (a->kind == WL_SWF && !a->swf)
		_usage_error("--workload swf needs --swf FILE");
	for (i = 0; i < sizeof(scoped) / sizeof(*scoped); i++)
		if (a->given[scoped[i].opt] &&
		    !(scoped[i].kinds & (1u << a->kind)))
			_usage_error("--%s does not apply to --workload %s",
				     _optname(scoped[i].opt),
				     wl_names[a->kind]);
	if (!a->policy)
		_usage_error("--policy NAME is required (see --list-policies)");
	if (a->kind == WL_BIOMED) {
		if (a->arr.model == DL_WL_ARRIVALS_STEPS)
			_usage_error(
				"--arrivals steps is the diffusion workload's");
		if (a->bio.files_min > a->bio.files_max ||
		    a->bio.files_mean < a->bio.files_min ||
		    a->bio.files_mean > a->bio.files_max)
			_usage_error(
				"need --files-min <= --files-mean <= --files-max");
		if (a->bio.images < a->bio.files_max)
			_usage_error(
				"--images (%u) must be at least --files-max (%u)",
				a->bio.images, a->bio.files_max);
		a->bio.access = a->access;
	}
	if (a->kind == WL_DIFFUSION) {
		if (a->arrivals_set && a->arr.model != DL_WL_ARRIVALS_STEPS &&
		    a->arr.model != DL_WL_ARRIVALS_POISSON)
			_usage_error(
				"--workload diffusion takes --arrivals steps or poisson");
		a->dif.poisson = a->arr.model == DL_WL_ARRIVALS_POISSON &&
				 a->arrivals_set;
		if (a->dif.rate_max < a->dif.rate_start)
			_usage_error(
				"--rate-max must be at least --rate-start");
		a->dif.access = a->access;
		/* Falkon's scheduling window (data-diffusion-raicu §5.1): the
		 * queue of this workload grows to 10^5 jobs. */
		if (!a->given[O_WINDOW])
			a->cfg.window = 100 * (size_t) a->cfg.nodes;
	}
	if (a->given[O_PEER] && a->given[O_NO_PEER])
		_usage_error(
			"--peer-fetch and --no-peer-fetch exclude each other");
	_place_check(a);
	_policy_defaults(a);
	a->cfg.policy = a->policy;
	a->cfg.policy_params = a->policy_params;
	a->cfg.seed = a->seed;
}

/* ---------------------------------------------------------------------- */
/* Run                                                                    */

static void _diag_print(const char *msg, void *arg)
{
	size_t *shown = arg;

	if ((*shown)++ < 20)
		fprintf(stderr, "%s: %s\n", prog, msg);
	else if (*shown == 21)
		fprintf(stderr, "%s: (more problems not shown)\n", prog);
}

/* The library's errors: the first few shown, the rest counted (a policy
 * may log the same complaint at every plan). */
static size_t log_errors;

static void _log(int level, const char *msg, void *arg)
{
	(void) arg;
	if (level > DL_LOG_ERROR)
		return;
	if (log_errors++ < 5)
		fprintf(stderr, "%s: %s\n", prog, msg);
	else if (log_errors == 6)
		fprintf(stderr,
			"%s: (further library errors counted, not shown)\n",
			prog);
}

static void _progress(const dl_sim_progress_t *p, void *arg)
{
	(void) arg;
	fprintf(stderr,
		"\r%s: t=%.1f s  done %zu/%zu  arrived %zu  pending %zu  running %zu  plans %zu  wall %.1f s ",
		prog, p->now, p->completed, p->total, p->arrived, p->pending,
		p->running, p->plans, p->wall);
	fflush(stderr);
}

static FILE *_open(const char *path, const char *mode, const char *what)
{
	FILE *f = fopen(path, mode);

	if (!f) {
		fprintf(stderr, "%s: cannot open %s %s: %s\n", prog, what, path,
			strerror(errno));
		exit(errno == ENOENT ? 2 : 1);
	}
	return f;
}

static dl_workload_t *_workload(_args_t *a, double *tlast)
{
	dl_workload_t *wl = NULL;
	dl_wl_diag_t diag = { 0 };
	size_t shown = 0;
	FILE *f, *g = NULL;

	diag.fn = _diag_print;
	diag.arg = &shown;
	*tlast = -1;
	switch (a->kind) {
	case WL_BIOMED:
	{
		dl_wl_platform_t pf;

		wl = dl_workload_gen_biomed(&a->bio, a->seed);
		if (!wl) {
			fprintf(stderr,
				"%s: cannot generate the biomed workload with these options\n",
				prog);
			exit(2);
		}
		pf.nodes = a->cfg.nodes;
		pf.slots = a->cfg.nodes * a->cfg.cores;
		pf.params = a->cfg.params;
		pf.params.nstorage = a->cfg.storage;
		/* Arrivals draw from their own stream: changing the arrival
		 * model keeps the jobs' files. */
		if (dl_workload_set_arrivals(wl, &pf, &a->arr,
					     a->seed ^ 0x9e3779b97f4a7c15ULL,
					     tlast)) {
			fprintf(stderr, "%s: cannot set arrival times\n", prog);
			exit(1);
		}
		break;
	}
	case WL_DIFFUSION:
		wl = dl_workload_gen_diffusion(&a->dif, a->seed);
		if (!wl) {
			fprintf(stderr,
				"%s: cannot generate the diffusion workload with these options\n",
				prog);
			exit(2);
		}
		break;
	case WL_SWF:
		f = _open(a->swf, "r", "SWF trace");
		if (a->swf_files)
			g = _open(a->swf_files, "r", "files list");
		wl = dl_workload_read_swf(f, g, a->cfg.params.unknown_size,
					  a->cfg.cores, &diag);
		fclose(f);
		if (g)
			fclose(g);
		if (diag.bad_lines || diag.warnings)
			fprintf(stderr,
				"%s: %s: %zu malformed lines skipped, %zu warnings\n",
				prog, a->swf, diag.bad_lines, diag.warnings);
		if (!wl) {
			fprintf(stderr, "%s: no usable job in %s\n", prog,
				a->swf);
			exit(1);
		}
		break;
	default:
		f = _open(a->wl_file, "r", "workload");
		wl = dl_workload_read(f, &diag);
		fclose(f);
		if (diag.bad_lines)
			fprintf(stderr, "%s: %s: %zu malformed lines skipped\n",
				prog, a->wl_file, diag.bad_lines);
		if (!wl || !wl->njobs) {
			fprintf(stderr, "%s: no usable job in %s\n", prog,
				a->wl_file);
			exit(1);
		}
		break;
	}
	if (a->time_scale != 1.0)
		dl_workload_scale_time(wl, a->time_scale);
	return wl;
}

static void _kv_add(dl_kv_t *kv, size_t *n, const char *key, const char *fmt,
		    ...) __attribute__((format(printf, 4, 5)));

static void _kv_add(dl_kv_t *kv, size_t *n, const char *key, const char *fmt,
		    ...)
{
	va_list ap;

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
	size_t i;

	_kv_add(kv, n, "dispatch", "%s", dl_dispatch_name(cfg->dispatch));
	_kv_add(kv, n, "wait_factor", "%g", p->wait_factor);
	_kv_add(kv, n, "min_wait", "%g", p->min_wait);
	_kv_add(kv, n, "max_wait", "%g", p->max_wait);
	_kv_add(kv, n, "hysteresis", "%g", p->hysteresis);
	_kv_add(kv, n, "strict", "%d", p->strict);
	if (cfg->dispatch != DL_DISPATCH_SLURM)
		for (i = *n - 5; i < *n; i++)
			snprintf(kv[i].val, sizeof(kv[i].val), "-");
}

int main(int argc, char **argv)
{
	_args_t a;
	dl_workload_t *wl;
	dl_wl_stats_t ws;
	dl_sim_result_t *res = NULL;
	dl_metrics_t m;
	dl_kv_t kv[40];
	size_t nkv = 0;
	char err[512], b1[32], b2[32], b3[32], pspec[160];
	double tlast;
	int rc, status = 0;

	dl_log_set(_log, NULL);
	_parse(argc, argv, &a);
	/* An unknown policy is an argument error: say so before any work. */
	{
		int perr = 0;
		dl_policy_t *p =
			dl_policy_create(a.policy, a.policy_params, &perr);

		if (!p) {
			if (perr == DL_ENOPOLICY)
				_usage_error(
					"--policy: unknown policy '%s' (see --list-policies)",
					a.policy);
			_usage_error("--policy-params: '%s' rejected by %s: %s",
				     a.policy_params ? a.policy_params : "",
				     a.policy, dl_strerror(perr));
		}
		dl_policy_destroy(p);
	}
	wl = _workload(&a, &tlast);
	dl_workload_stats(wl, &ws);
	if (a.save) {
		FILE *f = _open(a.save, "w", "workload");
		char comment[512];

		snprintf(comment, sizeof(comment),
			 "generated by dl-sim --workload %s --seed %llu\n"
			 "%zu jobs, %zu files, %.2f files/job, overlap %.4f",
			 wl_names[a.kind], (unsigned long long) a.seed, ws.jobs,
			 ws.files, ws.files_mean, ws.overlap);
		if (dl_workload_write(wl, f, comment) || fclose(f)) {
			fprintf(stderr, "%s: cannot write %s\n", prog, a.save);
			return 1;
		}
	}
	if (a.progress) {
		a.cfg.progress = _progress;
		a.cfg.progress_every = 1.0;
	}
	rc = dl_sim_run(&a.cfg, wl, &res, err, sizeof(err));
	if (a.progress)
		fputc('\n', stderr);
	if (rc) {
		fprintf(stderr, "%s: simulation failed: %s\n", prog, err);
		dl_workload_destroy(wl);
		return rc == DL_EINVAL ? 2 : 1;
	}
	dl_metrics_compute(res, &m);

	_kv_add(kv, &nkv, "policy", "%s", a.policy);
	_kv_add(kv, &nkv, "policy_params", "%s",
		a.policy_params ? a.policy_params : "");
	_kv_add(kv, &nkv, "workload", "%s", wl_names[a.kind]);
	_kv_add(kv, &nkv, "source", "%s",
		a.kind == WL_SWF  ? a.swf :
		a.kind == WL_FILE ? a.wl_file :
				    "");
	_kv_add(kv, &nkv, "seed", "%llu", (unsigned long long) a.seed);
	_kv_add(kv, &nkv, "overlap_target", "%s",
		a.kind == WL_BIOMED ? "" : "-");
	if (a.kind == WL_BIOMED)
		snprintf(kv[nkv - 1].val, sizeof(kv[nkv - 1].val), "%.4f",
			 a.bio.overlap);
	_kv_add(kv, &nkv, "overlap", "%.4f", ws.overlap);
	_kv_add(kv, &nkv, "shared", "%.4f", ws.shared);
	_kv_add(kv, &nkv, "files_per_job", "%.4f", ws.files_mean);
	_kv_add(kv, &nkv, "order", "%s",
		a.kind == WL_BIOMED ?
			(a.bio.clustered ? "clustered" : "random") :
			"-");
	_kv_add(kv, &nkv, "arrivals", "%s",
		a.kind == WL_BIOMED    ? dl_wl_arrivals_name(a.arr.model) :
		a.kind == WL_DIFFUSION ? (a.dif.poisson ? "poisson" : "steps") :
					 "trace");
	_kv_add(kv, &nkv, "load", "%s", "-");
	if (a.kind == WL_BIOMED)
		snprintf(kv[nkv - 1].val, sizeof(kv[nkv - 1].val), "%.4f",
			 a.arr.load);
	_kv_add(kv, &nkv, "pattern", "%s",
		(a.kind == WL_BIOMED || a.kind == WL_DIFFUSION) ?
			dl_wl_pattern_name(a.access.pattern) :
			"-");
	_kv_add(kv, &nkv, "time_scale", "%g", a.time_scale);
	_kv_add(kv, &nkv, "nodes", "%u", a.cfg.nodes);
	_kv_add(kv, &nkv, "cores", "%u", a.cfg.cores);
	_kv_add(kv, &nkv, "storage", "%u", a.cfg.storage);
	if (a.cfg.cache_bytes == DL_CACHE_UNLIMITED)
		_kv_add(kv, &nkv, "cache_bytes", "unlimited");
	else
		_kv_add(kv, &nkv, "cache_bytes", "%llu",
			(unsigned long long) a.cfg.cache_bytes);
	_kv_add(kv, &nkv, "eviction", "%s", dl_evict_name(a.cfg.eviction));
	_kv_add(kv, &nkv, "rbw", "%.0f", a.cfg.params.rbw);
	_kv_add(kv, &nkv, "lbw", "%.0f", a.cfg.params.lbw);
	_kv_add(kv, &nkv, "cpb", "%g", a.cfg.params.cpb);
	_kv_add(kv, &nkv, "peer_fetch", "%d", a.cfg.peer_fetch);
	_kv_add(kv, &nkv, "peer_bw", "%.0f",
		a.cfg.peer_bw > 0 ? a.cfg.peer_bw : a.cfg.params.rbw);
	_kv_add(kv, &nkv, "window", "%zu", a.cfg.window);
	_kv_add(kv, &nkv, "replan_min_interval", "%g",
		a.cfg.replan_min_interval);
	_kv_place(kv, &nkv, &a.cfg);
	dl_prov_format(&a.cfg.prov, pspec, sizeof(pspec));
	_kv_add(kv, &nkv, "provision", "%s", pspec);
	_kv_add(kv, &nkv, "workload_desc",
		"%s: %zu jobs, %zu files (%s), %.2f files/job [%u-%u], overlap %.1f%%%s, shared %.1f%%, arrivals %.1f-%.1f s",
		wl_names[a.kind], ws.jobs, ws.files_used,
		dl_metrics_fmt_bytes((double) ws.bytes_used, b1, sizeof(b1)),
		ws.files_mean, ws.files_min, ws.files_max, 100 * ws.overlap, "",
		100 * ws.shared, ws.first_arrival, ws.last_arrival);
	if (a.kind == WL_BIOMED) {
		size_t used = strlen(kv[nkv - 1].val);

		snprintf(kv[nkv - 1].val + used, sizeof(kv[nkv - 1].val) - used,
			 "; target %.0f%%, %s, %s load %.2f",
			 100 * a.bio.overlap,
			 a.bio.clustered ? "clustered" : "random",
			 dl_wl_arrivals_name(a.arr.model), a.arr.load);
	}
	_kv_add(kv, &nkv, "platform_desc",
		"%u nodes x %u cores, %u storage, cache %s/node (%s), rbw %s/s, lbw %s/s, cpb %g s/B%s",
		a.cfg.nodes, a.cfg.cores, a.cfg.storage,
		a.cfg.cache_bytes == DL_CACHE_UNLIMITED ?
			"unlimited" :
			dl_metrics_fmt_bytes((double) a.cfg.cache_bytes, b1,
					     sizeof(b1)),
		dl_evict_name(a.cfg.eviction),
		dl_metrics_fmt_bytes(a.cfg.params.rbw, b2, sizeof(b2)),
		dl_metrics_fmt_bytes(a.cfg.params.lbw, b3, sizeof(b3)),
		a.cfg.params.cpb, a.cfg.peer_fetch ? ", peer fetch" : "");

	if (!a.quiet)
		dl_metrics_print(stdout, kv, nkv, &m);
	if (a.csv && dl_metrics_csv_append(a.csv, kv, nkv, &m)) {
		fprintf(stderr, "%s: cannot append to %s\n", prog, a.csv);
		status = 1;
	}
	if (a.json && dl_metrics_json_append(a.json, kv, nkv, &m)) {
		fprintf(stderr, "%s: cannot append to %s\n", prog, a.json);
		status = 1;
	}
	if (a.timeline &&
	    dl_prov_timeline_csv(a.timeline, res->timeline, res->ntimeline)) {
		fprintf(stderr, "%s: cannot write %s\n", prog, a.timeline);
		status = 1;
	}
	if (a.jobs_csv && dl_metrics_jobs_csv(a.jobs_csv, res)) {
		fprintf(stderr, "%s: cannot write %s\n", prog, a.jobs_csv);
		status = 1;
	}
	if (m.completed < m.jobs) {
		fprintf(stderr,
			"%s: %zu of %zu jobs never completed: the policy left them waiting\n",
			prog, m.jobs - m.completed, m.jobs);
		status = 1;
	}
	if (log_errors > 5)
		fprintf(stderr, "%s: the library logged %zu errors in all\n",
			prog, log_errors);
	if (res->capacity_violations) {
		fprintf(stderr, "%s: cache capacity exceeded %llu times\n",
			prog, (unsigned long long) res->capacity_violations);
		status = 1;
	}
	dl_sim_result_free(res);
	dl_workload_destroy(wl);
	return status;
}
