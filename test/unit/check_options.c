/*
 * check_options.c - dl-sim's table of options (src/sim/options.c): every
 * option parses and lands in its field, bad values are refused with a
 * message naming the option and the value, options are checked against
 * each other, --help lists every option, the CSV row records what a run
 * was given.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_suites.h"
#include "dl_error.h"
#include "metrics.h"
#include "options.h"
#include "setup.h"
#include "workload.h"

/* A good argument for every option of the table, and what else the
 * command line needs for it to apply; an option missing here fails
 * test_every_option, so that a new option comes with its test. */
static const struct {
	const char *name;
	const char *arg; /* NULL: no argument */
	const char *extra[4];
	int done; /* DL_SIM_ARGS_DONE expected */
} good[] = {
	{ "policy", "mct", { 0 }, 0 },
	{ "policy-params", "threshold=2", { 0 }, 0 },
	{ "list-policies", NULL, { 0 }, 1 },
	{ "tolerate-fallback", NULL, { 0 }, 0 },
	{ "workload", "diffusion", { 0 }, 0 },
	{ "workload-file", "/x.wl", { 0 }, 0 },
	{ "swf", "/x.swf", { 0 }, 0 },
	{ "swf-files", "/x.files", { "--swf", "/x.swf" }, 0 },
	{ "unknown-size", "32M", { "--swf", "/x.swf" }, 0 },
	{ "skip-bad-lines", NULL, { 0 }, 0 },
	{ "save-workload", "/tmp/x.wl", { 0 }, 0 },
	{ "jobs", "500", { 0 }, 0 },
	{ "seed", "18446744073709551615", { 0 }, 0 },
	{ "time-scale", "0.5", { 0 }, 0 },
	{ "overlap", "medium", { 0 }, 0 },
	{ "order", "random", { 0 }, 0 },
	{ "load", "1.5", { 0 }, 0 },
	{ "arrivals", "lublin", { 0 }, 0 },
	{ "lublin-start-hour", "7", { 0 }, 0 },
	{ "patients", "100", { 0 }, 0 },
	{ "images", "40", { 0 }, 0 },
	{ "mri-fraction", "0.25", { 0 }, 0 },
	{ "files-min", "3", { 0 }, 0 },
	{ "files-max", "9", { 0 }, 0 },
	{ "files-mean", "5", { 0 }, 0 },
	{ "files", "100", { "--workload", "diffusion" }, 0 },
	{ "file-size", "1M", { "--workload", "diffusion" }, 0 },
	{ "task-compute", "0.5", { "--workload", "diffusion" }, 0 },
	{ "rate-start", "2", { "--workload", "diffusion" }, 0 },
	{ "rate-factor", "1.5", { "--workload", "diffusion" }, 0 },
	{ "rate-interval", "30", { "--workload", "diffusion" }, 0 },
	{ "rate-max", "50", { "--workload", "diffusion" }, 0 },
	{ "pattern", "zipf", { 0 }, 0 },
	{ "sigma", "3", { 0 }, 0 },
	{ "zipf-s", "1.2", { 0 }, 0 },
	{ "nodes", "8", { 0 }, 0 },
	{ "storage", "2", { 0 }, 0 },
	{ "cores", "4", { 0 }, 0 },
	{ "cache-size", "unlimited", { 0 }, 0 },
	{ "eviction", "lfu", { 0 }, 0 },
	{ "rbw", "100M/s", { 0 }, 0 },
	{ "lbw", "1G", { 0 }, 0 },
	{ "cpb", "2e-9", { 0 }, 0 },
	{ "peer-fetch", NULL, { 0 }, 0 },
	{ "no-peer-fetch", NULL, { 0 }, 0 },
	{ "peer-bw", "50M", { 0 }, 0 },
	{ "launch-overhead", "0.12", { 0 }, 0 },
	{ "agent-estimates", "120", { 0 }, 0 },
	{ "window", "123", { 0 }, 0 },
	{ "replan-min-interval", "5", { 0 }, 0 },
	{ "agent-cycle", "1", { 0 }, 0 },
	{ "check", NULL, { 0 }, 0 },
	{ "dispatch", "plan", { 0 }, 0 },
	{ "wait-factor", "2", { 0 }, 0 },
	{ "min-wait", "1", { 0 }, 0 },
	{ "max-wait", "60", { 0 }, 0 },
	{ "hysteresis", "0.5", { 0 }, 0 },
	{ "strict", NULL, { 0 }, 0 },
	{ "prefetch", "2", { 0 }, 0 },
	{ "prefetch-budget", "24M", { "--prefetch", "2" }, 0 },
	{ "csv", "/tmp/x.csv", { 0 }, 0 },
	{ "json", "/tmp/x.json", { 0 }, 0 },
	{ "jobs-csv", "/tmp/x.jobs", { 0 }, 0 },
	{ "progress", NULL, { 0 }, 0 },
	{ "timeline", "/tmp/x.timeline", { 0 }, 0 },
	{ "provision", "alloc=exponential,max=4", { 0 }, 0 },
	{ "quiet", NULL, { 0 }, 0 },
	{ "help", NULL, { 0 }, 1 },
	{ "version", NULL, { 0 }, 1 },
};

#define NGOOD (sizeof(good) / sizeof(*good))

/* Parse "dl-sim ARGS..." (NULL-terminated); output and message kept. */
static int _parse(dl_sim_args_t *a, char *err, size_t errlen, char **out,
		  const char **args)
{
	char *argv[32];
	size_t n = 0, outlen = 0;
	FILE *f = open_memstream(out, &outlen);
	int rc;

	ck_assert_ptr_nonnull(f);
	argv[n++] = (char *) "dl-sim";
	while (*args && n < 31)
		argv[n++] = (char *) *args++;
	argv[n] = NULL;
	err[0] = '\0';
	rc = dl_sim_args_parse((int) n, argv, a, f, err, errlen);
	fclose(f);
	return rc;
}

static int _run(dl_sim_args_t *a, char *err, size_t errlen,
		const char **args)
{
	char *out = NULL;
	int rc = _parse(a, err, errlen, &out, args);

	free(out);
	return rc;
}

#define ARGS(...) ((const char *[]){ __VA_ARGS__, NULL })

START_TEST(test_every_option)
{
	size_t i, k, seen = 0;

	for (i = 0; i < dl_sim_args_count(); i++) {
		const char *name = dl_sim_args_name(i), *args[12];
		char opt[64], err[256];
		dl_sim_args_t a;
		size_t n = 0, e;
		int rc;

		if (!name)
			continue;
		seen++;
		for (k = 0; k < NGOOD && strcmp(good[k].name, name); k++)
			;
		ck_assert_msg(k < NGOOD, "option --%s has no test", name);
		snprintf(opt, sizeof(opt), "--%s", name);
		if (strcmp(name, "policy")) {
			args[n++] = "--policy";
			args[n++] = "mct";
		}
		for (e = 0; e < 4 && good[k].extra[e]; e++)
			args[n++] = good[k].extra[e];
		args[n++] = opt;
		if (good[k].arg)
			args[n++] = good[k].arg;
		args[n] = NULL;
		rc = _run(&a, err, sizeof(err), args);
		ck_assert_msg(rc == (good[k].done ? DL_SIM_ARGS_DONE :
						    DL_SIM_ARGS_RUN),
			      "--%s %s: rc %d, %s", name,
			      good[k].arg ? good[k].arg : "", rc, err);
		if (!good[k].done)
			ck_assert_msg(dl_sim_args_given(&a, name),
				      "--%s not recorded", name);
	}
	ck_assert_uint_eq(seen, NGOOD);
}

END_TEST

/* Each kind of entry stores into the right field, at the right width. */
START_TEST(test_fields)
{
	dl_sim_args_t a;
	char err[256];

	ck_assert_int_eq(
		_run(&a, err, sizeof(err),
		     ARGS("-p", "online-hps", "--load", "1.5", "--jobs", "77",
			  "--seed", "18446744073709551615", "--nodes", "9",
			  "--window", "4000000000", "--lublin-start-hour",
			  "23", "--rbw", "100M/s", "--cache-size", "2G",
			  "--peer-fetch", "-q", "--strict")),
		DL_SIM_ARGS_RUN);
	ck_assert_str_eq(a.policy, "online-hps");
	ck_assert_str_eq(a.cfg.policy, "online-hps");
	ck_assert_double_eq(a.arr.load, 1.5);
	ck_assert_uint_eq(a.bio.jobs, 77);
	ck_assert_uint_eq(a.dif.jobs, 77);
	ck_assert_uint_eq(a.seed, UINT64_MAX);
	ck_assert_uint_eq(a.cfg.seed, UINT64_MAX);
	ck_assert_uint_eq(a.cfg.nodes, 9);
	ck_assert_uint_eq(a.cfg.window, 4000000000ULL);
	ck_assert_int_eq(a.arr.lublin_start_hour, 23);
	ck_assert_double_eq(a.cfg.params.rbw, 100.0 * 1024 * 1024);
	ck_assert_uint_eq(a.cfg.cache_bytes, 2ULL << 30);
	ck_assert_int_eq(a.cfg.peer_fetch, 1);
	ck_assert_int_eq(a.quiet, 1);
	ck_assert_int_eq(a.cfg.place.strict, 1);
	/* Untouched fields keep their defaults. */
	ck_assert_uint_eq(a.cfg.storage, 4);
	ck_assert_int_eq(a.tolerate_fallback, 0);

	ck_assert_int_eq(_run(&a, err, sizeof(err),
			      ARGS("-p", "mct", "--cache-size", "unlimited",
				   "--overlap", "0.3", "--order", "random")),
			 DL_SIM_ARGS_RUN);
	ck_assert_uint_eq(a.cfg.cache_bytes, DL_CACHE_UNLIMITED);
	ck_assert_double_eq(a.bio.overlap, 0.3);
	ck_assert_int_eq(a.bio.clustered, 0);
	/* Diffusion's scheduling window follows the nodes unless given. */
	ck_assert_int_eq(_run(&a, err, sizeof(err),
			      ARGS("-p", "mct", "-w", "diffusion", "--nodes",
				   "8")),
			 DL_SIM_ARGS_RUN);
	ck_assert_uint_eq(a.cfg.window, 800);
	/* Provisioning and its timeline: off unless asked for. */
	ck_assert_int_eq(a.cfg.prov.enabled, 0);
	ck_assert_ptr_null(a.timeline);
	ck_assert_double_eq(a.cfg.timeline_every, 0);
	ck_assert_int_eq(_run(&a, err, sizeof(err),
			      ARGS("-p", "mct", "--provision",
				   "alloc=exponential,max=4", "--timeline",
				   "/tmp/t.csv")),
			 DL_SIM_ARGS_RUN);
	ck_assert_int_eq(a.cfg.prov.enabled, 1);
	ck_assert_int_eq(a.cfg.prov.alloc, DL_PROV_EXPONENTIAL);
	ck_assert_uint_eq(a.cfg.prov.max_nodes, 4);
	ck_assert_str_eq(a.timeline, "/tmp/t.csv");
	ck_assert_double_eq(a.cfg.timeline_every, DL_PROV_TIMELINE_EVERY);
}

END_TEST

/* One platform for every policy: peer fetch off unless asked for, also
 * for the policies whose papers had it. */
START_TEST(test_same_platform)
{
	static const char *const pols[] = { "max-cache-hit", "hjs",
					    "max-compute-util", "mct",
					    "online-hps" };
	dl_sim_args_t a;
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(pols) / sizeof(*pols); i++) {
		ck_assert_int_eq(_run(&a, err, sizeof(err),
				      ARGS("-p", pols[i])),
				 DL_SIM_ARGS_RUN);
		ck_assert_msg(a.cfg.peer_fetch == 0, "%s: peer fetch on",
			      pols[i]);
		ck_assert_int_eq(_run(&a, err, sizeof(err),
				      ARGS("-p", pols[i], "--peer-fetch")),
				 DL_SIM_ARGS_RUN);
		ck_assert_int_eq(a.cfg.peer_fetch, 1);
	}
	/* Eviction stays the paper's (part of the policy's system). */
	_run(&a, err, sizeof(err), ARGS("-p", "max-cache-hit"));
	ck_assert_int_eq(a.cfg.eviction, DL_EVICT_LRU);
	_run(&a, err, sizeof(err),
	     ARGS("-p", "max-cache-hit", "--eviction", "fifo"));
	ck_assert_int_eq(a.cfg.eviction, DL_EVICT_FIFO);
}

END_TEST

/* Bad values and combinations: refused, and the message says which
 * option and what was wrong. */
START_TEST(test_refused)
{
	static const struct {
		const char *args[10]; /* NULL-terminated: at most 9 */
		const char *msg;
	} bad[] = {
		{ { "-p", "mct", "--load", "x" }, "--load: expected a number in [1e-06, 1e+06], got 'x'" },
		{ { "-p", "mct", "--load", "0" }, "--load: expected a number" },
		{ { "-p", "mct", "--load", "inf" }, "got 'inf'" },
		{ { "-p", "mct", "--nodes", "0" }, "--nodes: expected an integer in [1, 100000], got '0'" },
		{ { "-p", "mct", "--nodes", "-3" }, "--nodes: expected an integer" },
		{ { "-p", "mct", "--nodes", "4x" }, "got '4x'" },
		{ { "-p", "mct", "--seed", "18446744073709551616" }, "--seed: expected an integer" },
		{ { "-p", "mct", "--lublin-start-hour", "24" }, "--lublin-start-hour" },
		{ { "-p", "mct", "--cache-size", "12Q" }, "--cache-size: expected a size such as 4096, 64M, 15G, got '12Q'" },
		{ { "-p", "mct", "--rbw", "0" }, "--rbw: expected bytes per second" },
		{ { "-p", "mct", "--launch-overhead", "-0.1" }, "--launch-overhead: expected a number in [0, 1e+06], got '-0.1'" },
		{ { "-p", "mct", "--provision", "alloc=x" }, "--provision: bad alloc 'x'" },
		{ { "-p", "mct", "--eviction", "mru" }, "--eviction: expected value, node-value, lru, lfu, fifo or random, got 'mru'" },
		{ { "-p", "mct", "--workload", "x" }, "--workload: expected biomed, diffusion, swf or file, got 'x'" },
		{ { "-p", "mct", "--order", "sorted" }, "--order: expected clustered or random, got 'sorted'" },
		{ { "-p", "mct", "--overlap", "1" }, "--overlap: expected a number in [0, 0.99], got '1'" },
		{ { "-p", "mct", "--arrivals", "x" }, "--arrivals: expected" },
		{ { "-p", "mct", "--pattern", "x" }, "--pattern: expected" },
		{ { "-p", "mct", "--dispatch", "x" }, "--dispatch: expected slurm or plan, got 'x'" },
		{ { "-p", "mct", "--load" }, "--load needs an argument (X)" },
		{ { "-p" }, "-p needs an argument (NAME)" },
		{ { "-p", "mct", "--check=1" }, "--check takes no argument" },
		{ { "-p", "mct", "--bogus" }, "unknown or ambiguous option '--bogus'" },
		{ { "-p", "mct", "-z" }, "unknown option '-z'" },
		{ { "-p", "mct", "stray" }, "unexpected argument 'stray'" },
		{ { "--load", "2" }, "--policy NAME is required" },
		{ { "-p", "mct", "--files", "3" }, "--files does not apply to --workload biomed" },
		{ { "-p", "mct", "-w", "diffusion", "--overlap", "high" }, "--overlap does not apply to --workload diffusion" },
		{ { "-p", "mct", "--swf", "a", "--workload-file", "b" }, "exclude each other" },
		{ { "-p", "mct", "-w", "swf" }, "--workload swf needs --swf FILE" },
		{ { "-p", "mct", "-w", "file", "--swf", "a" }, "--swf needs --workload swf" },
		{ { "-p", "mct", "--peer-fetch", "--no-peer-fetch" }, "--peer-fetch and --no-peer-fetch exclude each other" },
		{ { "-p", "mct", "--dispatch", "plan", "--strict" }, "--strict applies to --dispatch slurm only" },
		{ { "-p", "mct", "--dispatch", "plan", "--prefetch", "2" }, "--prefetch applies to --dispatch slurm only" },
		{ { "-p", "mct", "--prefetch-budget", "1G", "--dispatch", "plan" }, "--prefetch-budget applies to --dispatch slurm only" },
		{ { "-p", "mct", "--prefetch", "2", "--prefetch-budget", "0" }, "--prefetch-budget: 0 would prefetch nothing" },
		{ { "-p", "mct", "--prefetch", "-1" }, "--prefetch: expected an integer in [0, 65536], got '-1'" },
		{ { "-p", "mct", "--min-wait", "10", "--max-wait", "5" }, "--max-wait (5) must be at least --min-wait (10)" },
		{ { "-p", "mct", "--files-min", "8", "--files-max", "6" }, "need --files-min <= --files-mean <= --files-max" },
		{ { "-p", "mct", "--arrivals", "steps" }, "--arrivals steps is the diffusion workload's" },
		{ { "-p", "mct", "-w", "diffusion", "--arrivals", "lublin" }, "takes --arrivals steps or poisson" },
		{ { "-p", "mct", "-w", "diffusion", "--rate-start", "9", "--rate-max", "3" }, "--rate-max must be at least --rate-start" },
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		dl_sim_args_t a;
		char err[256];
		int rc = _run(&a, err, sizeof(err),
			      (const char **) bad[i].args);

		ck_assert_msg(rc == DL_EINVAL, "case %zu (%s): rc %d", i,
			      bad[i].msg, rc);
		ck_assert_msg(strstr(err, bad[i].msg), "case %zu: '%s' lacks '%s'",
			      i, err, bad[i].msg);
	}
}

END_TEST

/* --help comes from the table: every option is in it, with its help. */
START_TEST(test_help)
{
	dl_sim_args_t a;
	char err[256], *out = NULL, opt[64];
	size_t i;

	ck_assert_int_eq(_parse(&a, err, sizeof(err), &out, ARGS("--help")),
			 DL_SIM_ARGS_DONE);
	ck_assert_ptr_nonnull(strstr(out, "Usage: dl-sim --policy NAME"));
	for (i = 0; i < dl_sim_args_count(); i++) {
		if (!dl_sim_args_name(i))
			continue;
		snprintf(opt, sizeof(opt), "--%s", dl_sim_args_name(i));
		ck_assert_msg(strstr(out, opt), "%s not in --help", opt);
	}
	ck_assert_ptr_nonnull(strstr(out, "  -p, --policy NAME"));
	ck_assert_ptr_nonnull(strstr(out, "a registered policy"));
	free(out);
	out = NULL;
	ck_assert_int_eq(_parse(&a, err, sizeof(err), &out, ARGS("-V")),
			 DL_SIM_ARGS_DONE);
	ck_assert_str_eq(out, "dl-sim " DL_SIM_VERSION "\n");
	free(out);
	out = NULL;
	ck_assert_int_eq(_parse(&a, err, sizeof(err), &out,
				ARGS("--list-policies")),
			 DL_SIM_ARGS_DONE);
	ck_assert_ptr_nonnull(strstr(out, "online-hps"));
	free(out);
}

END_TEST

/* The CSV row of a run parsed from args (one job, one file, no metric). */
static char *_csv_of(const char **args)
{
	char err[256], path[] = "/tmp/check_options.XXXXXX", *buf;
	dl_kv_t kv[DL_SIM_DESC_MAX];
	dl_workload_t *wl = dl_workload_create("test");
	dl_wl_job_t j = { 0 };
	uint32_t f = 0;
	dl_sim_args_t a;
	dl_metrics_t m;
	size_t nkv;
	FILE *in;
	long len;
	int fd;

	ck_assert_int_eq(_run(&a, err, sizeof(err), args), DL_SIM_ARGS_RUN);
	ck_assert_ptr_nonnull(wl);
	ck_assert_int_eq(dl_workload_add_file(wl, "/f", 1000, -1), 0);
	j.id = 1;
	j.cpus = 1;
	j.files = &f;
	j.nfiles = 1;
	ck_assert_int_eq(dl_workload_add_job(wl, &j), 0);
	nkv = dl_sim_setup_describe(&a, wl, kv);
	memset(&m, 0, sizeof(m));
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	unlink(path); /* a new file: the header is written */
	ck_assert_int_eq(dl_metrics_csv_append(path, kv, nkv, &m), 0);
	in = fopen(path, "r");
	ck_assert_ptr_nonnull(in);
	fseek(in, 0, SEEK_END);
	len = ftell(in);
	rewind(in);
	buf = calloc(1, (size_t)len + 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(fread(buf, 1, (size_t)len, in), (size_t)len);
	fclose(in);
	unlink(path);
	dl_workload_destroy(wl);
	return buf;
}

/* The value of column name in a CSV of a header and one row (no quotes). */
static void _csv_col(const char *csv, const char *name, char *out,
		     size_t len)
{
	const char *row = strchr(csv, '\n') + 1, *h = csv, *v = row;
	size_t n = strlen(name);

	while (!(strncmp(h, name, n) == 0 && (h[n] == ',' || h[n] == '\n'))) {
		h = strchr(h, ',');
		v = strchr(v, ',');
		ck_assert_msg(h && v && h < row, "no column %s", name);
		h++;
		v++;
	}
	n = strcspn(v, ",\n");
	ck_assert_uint_lt(n, len);
	memcpy(out, v, n);
	out[n] = '\0';
}

/*
 * --prefetch: off by default, refused under --dispatch plan (test_refused);
 * its budget is half the cache (the plugin's PrefetchMaxBytes), none for
 * unlimited caches; the CSV row records both.
 */
START_TEST(test_prefetch)
{
	static const struct {
		const char *args[9]; /* NULL-terminated: at most 8 */
		uint32_t prefetch;
		uint64_t budget; /* 0: no limit */
	} cases[] = {
		{ { "-p", "mct" }, 0, 15ULL << 29 },
		{ { "-p", "mct", "--prefetch", "2", "--cache-size", "48M" },
		  2, 24ULL << 20 },
		{ { "-p", "mct", "--prefetch", "2", "--cache-size",
		    "unlimited" }, 2, 0 },
		{ { "-p", "mct", "--prefetch", "4", "--prefetch-budget", "1G",
		    "--cache-size", "48M" }, 4, 1ULL << 30 },
		{ { "-p", "mct", "--prefetch", "4", "--prefetch-budget",
		    "unlimited" }, 4, 0 },
	};
	dl_sim_args_t a;
	char err[256], v[64], *csv;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		ck_assert_int_eq(_run(&a, err, sizeof(err),
				      (const char **)cases[i].args),
				 DL_SIM_ARGS_RUN);
		ck_assert_uint_eq(a.cfg.prefetch, cases[i].prefetch);
		ck_assert_uint_eq(a.cfg.prefetch_budget, cases[i].budget);
	}

	csv = _csv_of(ARGS("-p", "mct", "--prefetch", "2", "--cache-size",
			   "48M"));
	_csv_col(csv, "prefetch", v, sizeof(v));
	ck_assert_str_eq(v, "2");
	_csv_col(csv, "prefetch_budget", v, sizeof(v));
	ck_assert_str_eq(v, "25165824");
	free(csv);
	csv = _csv_of(ARGS("-p", "mct", "--prefetch", "2", "--prefetch-budget",
			   "unlimited"));
	_csv_col(csv, "prefetch_budget", v, sizeof(v));
	ck_assert_str_eq(v, "unlimited");
	free(csv);
	csv = _csv_of(ARGS("-p", "mct"));
	_csv_col(csv, "prefetch", v, sizeof(v));
	ck_assert_str_eq(v, "0");
	_csv_col(csv, "prefetch_budget", v, sizeof(v));
	ck_assert_str_eq(v, "-");
	free(csv);
}

END_TEST

/* A second parse starts from the defaults, not from the first one. */
START_TEST(test_reparse)
{
	dl_sim_args_t a;
	char err[256];

	_run(&a, err, sizeof(err), ARGS("-p", "mct", "--nodes", "9"));
	ck_assert_uint_eq(a.cfg.nodes, 9);
	_run(&a, err, sizeof(err), ARGS("-p", "mct"));
	ck_assert_uint_eq(a.cfg.nodes, 4);
	ck_assert(!dl_sim_args_given(&a, "nodes"));
	ck_assert(!dl_sim_args_given(&a, "no-such-option"));
}

END_TEST

Suite *make_options_suite(void)
{
	Suite *s = suite_create("options");
	TCase *tc = tcase_create("options");

	tcase_add_test(tc, test_every_option);
	tcase_add_test(tc, test_fields);
	tcase_add_test(tc, test_same_platform);
	tcase_add_test(tc, test_refused);
	tcase_add_test(tc, test_help);
	tcase_add_test(tc, test_reparse);
	tcase_add_test(tc, test_prefetch);
	suite_add_tcase(s, tc);
	return s;
}
