/*
 * bench_sim.c - how long dl-sim takes to run Online-HPS on a 5,000-job
 * trace on 64 nodes, and what its speedups cost in plan quality: the same
 * traces (biomed, online-hps-khanna §6.1, arrivals stretched x10 so the
 * queue stays short, as on a real cluster), several seeds, side by side
 * in one run:
 *
 *   mct         the greedy baseline, for scale
 *   hps-before  Online-HPS as dl-sim ran it before: a helper round trip
 *               (Zoltan from scratch) at every scheduling event below
 *               2000 vertices, a full plan at every event, an ECT order
 *               that the slurm dispatch never uses
 *               (order=ect,refine_above=2000,reuse=0)
 *   hps-after   Online-HPS as dl-sim runs it now under the slurm
 *               dispatch (order=priority, as the plugin: the previous
 *               partition refined in the library, the last plan reused
 *               while no pending job is new)
 *
 * CPU seconds count dl-sim and its partitioner helper.  The placement
 * speedup (dl_place_max_free(), one scan per pass instead of one per job)
 * is in both columns: it has no switch.
 *
 *   make bench
 *   contrib/bench_sim [-j JOBS] [-s SEEDS] [-H dl-partitiond] [-a]
 *                     [-p PARAMS] [-N NODES] [-c S]
 *                     [-n N1,N2,... [-r ROUNDS] [-c S]]
 *
 * The helper is the build's dl-partitiond unless -H or $DL_PARTITIOND
 * names another; a run that made any plan without it (the greedy
 * fallback) fails instead of printing a figure.
 *
 * -a and -n print a digest of each run's decisions (every job's node,
 * times and hits, and the plans made): a speed change must leave it as it
 * was (the same digest from the build before and after).
 *
 * -a runs hps-after alone (to profile it; with -c S, paced as below:
 * perf record contrib/bench_sim -a -N 1024 -c 1 -s 1); -p PARAMS gives
 * it policy params (e.g. -a -p guard=none: the cost of Online-HPS's
 * guard); -N NODES runs it on that many nodes (scaled as below).
 *
 * Targets (issue 11, item 5): hps-after <= 5 s; mean response within 2%
 * (the p95 is printed beside it).
 *
 * -n 64,256,1024 measures how hps-after's cost grows with the nodes
 * (issue 25: within 3x the CPU of the first count, 64): for each seed,
 * -r rounds (3) of one run per node count, in turn forwards and
 * backwards (64,256,1024 then 1024,256,64), so that a change in the
 * host's load falls on every count alike; it prints each run, then per
 * count the median CPU s and its spread (min-max over seeds and rounds)
 * and the ratio to the first count within each round (median, min-max);
 * policy_s is the wall time of the policy's plans (dl_policy_plan(),
 * the helper's round trips in it); the rest of CPU_s is mostly dl-sim's
 * own work at every event (snapshot, placement steps, Slurm's pass).
 * The trace is the same (same seeds, same jobs and files); what scales
 * with the nodes P is what the generator scales: the arrivals are
 * compressed by P (eq. 11 of online-hps-khanna: TLarrival = AvgExecTime
 * x N / (P x load), at load 1), so the offered load per node stays the
 * same, and the storage nodes are P/16 (4 at 64, as above; 64 at 1,024),
 * so that the storage's load per node stays the same too (with 4, 1,024
 * nodes would queue on storage, not on slots).  Cache per node and the
 * cost model's parameters do not change.
 *
 * Those rows make a full plan at every event, as dl-sim does by default:
 * at 1,024 nodes about 16 times the events fall in each simulated second,
 * and each plan sees more running jobs.  -c S runs every (seed, round,
 * count) a second time paced as the plugin's agent paces its cycles
 * (dl-sim --agent-cycle S, src/sim/pace.h): an arrival plans at the
 * agent's next poll (0.01 s later, with the jobs arriving meanwhile), a
 * job's start or end 0.1 s after the last plan at the earliest, anything
 * else (a file staged, a wait run out) S after it; Slurm's pass starts
 * jobs under the last plan's restrictions in between.  It runs right
 * after or before the per-event run (the order flips with the rounds, as
 * the counts' does).  Rows are marked "event" and "cycle" (a cycle row
 * also says what made its plans due: arrival/node/interval/other); the
 * summary has a table per kind, each count's ratio to the first taken
 * within its own kind, with the median mean and p95 response, and for
 * the paced rows their mean response over the per-event run's of the
 * same trace (median, min-max): what pacing costs in plan quality.  The
 * paced figure is dl-sim's for a scheduler that plans when the agent
 * would; it is not the agent's CPU (dl-sim simulates Slurm's passes too).
 * Until 2026-12-01 -c paced arrivals and ends at S too (dl-sim
 * --dispatch slurm --replan-min-interval S), far fewer plans than the
 * agent makes under arrivals.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "sim.h"
#include "workload.h"

#define NODES 64

/* Storage nodes for P compute nodes: 4 at 64 (see above). */
static uint32_t _storage(uint32_t nodes)
{
	return nodes >= 32 ? nodes / 16 : 2;
}

static double _cpu(void)
{
	struct rusage s, c;

	getrusage(RUSAGE_SELF, &s);
	getrusage(RUSAGE_CHILDREN, &c);
	return s.ru_utime.tv_sec + s.ru_utime.tv_usec / 1e6 +
	       s.ru_stime.tv_sec + s.ru_stime.tv_usec / 1e6 +
	       c.ru_utime.tv_sec + c.ru_utime.tv_usec / 1e6 +
	       c.ru_stime.tv_sec + c.ru_stime.tv_usec / 1e6;
}

static dl_workload_t *_trace(size_t jobs, uint64_t seed, uint32_t nodes)
{
	dl_wl_biomed_opts_t o;
	dl_wl_arrival_opts_t a;
	dl_wl_platform_t pf;
	dl_workload_t *wl;

	dl_wl_biomed_opts_default(&o);
	dl_wl_arrival_opts_default(&a);
	o.jobs = jobs;
	wl = dl_workload_gen_biomed(&o, seed);
	pf.nodes = nodes;
	pf.slots = nodes;
	dl_params_default(&pf.params);
	pf.params.nstorage = _storage(nodes);
	if (!wl || dl_workload_set_arrivals(wl, &pf, &a,
					    seed ^ 0x9e3779b97f4a7c15ULL,
					    NULL)) {
		dl_workload_destroy(wl);
		return NULL;
	}
	dl_workload_scale_time(wl, 10.0);
	return wl;
}

static int _cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The 95th percentile of the n responses in resp (sorted here). */
static double _p95(double *resp, size_t n)
{
	if (!n)
		return 0;
	qsort(resp, n, sizeof(*resp), _cmp_double);
	return resp[(size_t)(0.95 * (double)(n - 1))];
}

/* FNV-1a of n bytes at p into h. */
static uint64_t _fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	while (n--)
		h = (h ^ *b++) * 0x100000001b3ULL;
	return h;
}

/*
 * A digest of every decision and its outcome: each job's node, dispatch,
 * start, staging and end times (their bits) and its hits and misses, and
 * the plans made; two runs that print the same digest made the same
 * decisions (a speed change must leave it as it was).
 */
static uint64_t _digest(const dl_sim_result_t *r)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < r->njobs; i++) {
		const dl_sim_job_t *j = &r->jobs[i];

		h = _fnv(h, &j->node, sizeof(j->node));
		h = _fnv(h, &j->dispatch, sizeof(j->dispatch));
		h = _fnv(h, &j->start, sizeof(j->start));
		h = _fnv(h, &j->staged, sizeof(j->staged));
		h = _fnv(h, &j->end, sizeof(j->end));
		h = _fnv(h, &j->hit_local, sizeof(j->hit_local));
		h = _fnv(h, &j->hit_peer, sizeof(j->hit_peer));
		h = _fnv(h, &j->miss, sizeof(j->miss));
		h = _fnv(h, &j->bypass, sizeof(j->bypass));
	}
	return _fnv(h, &r->plans, sizeof(r->plans));
}

/* The digest of the last _run() (_digest()). */
static uint64_t last_digest;
/* Why the last run's plans were due (pace.h, dl_sim_pace_why_t), as
 * "arrival/node/interval/other" for a paced run. */
static char last_why[64];

/* One run, full plans at most every cycle s (0: at every event, as
 * dl-sim by default): CPU seconds into *cpu, mean and p95 response, the
 * most jobs pending at once, the plans made, the policy's wall seconds in
 * them and in the longest one into q[0..5]. */
static int _run(const dl_workload_t *wl, uint32_t nodes, const char *policy,
		const char *params, double cycle, double *cpu, double q[6])
{
	dl_sim_config_t cfg;
	dl_sim_result_t *r = NULL;
	char err[256];
	double t0, sum = 0, *resp;
	size_t i;

	dl_sim_config_default(&cfg);
	cfg.nodes = nodes;
	cfg.storage = _storage(nodes);
	cfg.dispatch = DL_DISPATCH_SLURM; /* the plugin's */
	cfg.policy = policy;
	cfg.policy_params = params;
	/* dl-sim --agent-cycle: the same setting, under the slurm dispatch. */
	cfg.replan_min_interval = cycle;
	cfg.agent_pace = cycle > 0;
	t0 = _cpu();
	if (dl_sim_run(&cfg, wl, &r, err, sizeof(err))) {
		fprintf(stderr, "bench_sim: %s: %s\n", policy, err);
		return -1;
	}
	*cpu = _cpu() - t0;
	resp = malloc((r->njobs ? r->njobs : 1) * sizeof(*resp));
	if (!resp) {
		dl_sim_result_free(r);
		return -1;
	}
	for (i = 0; i < r->njobs; i++) {
		resp[i] = r->jobs[i].end - r->jobs[i].arrival;
		sum += resp[i];
	}
	q[0] = r->njobs ? sum / (double)r->njobs : 0;
	q[1] = _p95(resp, r->njobs);
	free(resp);
	if (r->completed != r->njobs)
		fprintf(stderr, "bench_sim: %s: %zu of %zu jobs completed\n",
			policy, r->completed, r->njobs);
	q[2] = (double)r->max_pending;
	q[3] = (double)r->plans;
	q[4] = r->plan_seconds;
	q[5] = r->plan_seconds_max;
	last_digest = _digest(r);
	snprintf(last_why, sizeof(last_why), "%zu/%zu/%zu/%zu",
		 r->plans_why[DL_SIM_PACE_ARRIVAL],
		 r->plans_why[DL_SIM_PACE_NODE],
		 r->plans_why[DL_SIM_PACE_INTERVAL],
		 r->plans_why[DL_SIM_PACE_EVENT]);
	/*
	 * A helper that is missing, failed or timed out makes greedy plans:
	 * cheaper, and not Online-HPS's (issue 11, item 8).  Such a run
	 * once read 3.76 s here for a missing helper; it measures nothing.
	 */
	if (r->fallback_plans) {
		fprintf(stderr,
			"bench_sim: %s: %zu of %zu plans by the greedy fallback "
			"(is %s the partitioner helper? -H names it): no figure\n",
			policy, r->fallback_plans, r->plans,
			getenv("DL_PARTITIOND") ? getenv("DL_PARTITIOND") :
						  "the installed one");
		dl_sim_result_free(r);
		return -1;
	}
	dl_sim_result_free(r);
	return 0;
}

/* -a: hps-after alone, to profile it (perf record contrib/bench_sim -a). */
static int _after(size_t jobs, unsigned seeds, uint32_t nodes,
		  const char *policy, const char *params, double cycle)
{
	unsigned s;

	for (s = 1; s <= seeds; s++) {
		dl_workload_t *wl = _trace(jobs, s, nodes);
		double cpu, q[6];
		int rc;

		if (!wl)
			return 1;
		rc = _run(wl, nodes, policy, params, cycle, &cpu, q);
		dl_workload_destroy(wl);
		if (rc)
			return 1;
		printf("seed %u: %u nodes%s: hps-after %.2f CPU s, response mean %.2f p95 %.2f, at most %.0f pending, %.0f plans%s%s%s (%.2f s in them, the longest %.1f ms), digest %016llx\n",
		       s, nodes, cycle > 0 ? " paced" : "", cpu, q[0], q[1],
		       q[2], q[3], cycle > 0 ? " (arrival/node/interval/other " : "",
		       cycle > 0 ? last_why : "", cycle > 0 ? ")" : "", q[4],
		       q[5] * 1e3, (unsigned long long)last_digest);
	}
	return 0;
}

#define SCALE_MAX 8

/* The node counts of -n ("64,256,1024") into n[]; RET how many, 0: bad. */
static size_t _counts(const char *arg, uint32_t n[SCALE_MAX])
{
	size_t k = 0;
	char *end;

	while (*arg && k < SCALE_MAX) {
		unsigned long v = strtoul(arg, &end, 10);

		if (end == arg || !v || v > 100000 || (*end && *end != ','))
			return 0;
		n[k++] = (uint32_t)v;
		arg = *end ? end + 1 : end;
	}
	return *arg ? 0 : k;
}

/* Median, min and max of the n values of v (sorted here). */
static void _spread(double *v, size_t n, double out[3])
{
	qsort(v, n, sizeof(*v), _cmp_double);
	out[0] = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	out[1] = v[0];
	out[2] = v[n - 1];
}

/*
 * What -n measures, per run: CPU s, mean and p95 response, by round (row),
 * mode (0: a full plan at every event; 1, with -c: at most every cycle s)
 * and node count, at index _at().
 */
typedef struct {
	size_t nn, nm; /* node counts; modes: 1, or 2 with -c */
	double cycle;  /* -c S */
	double *cpu, *mean, *p95;
} _scale_t;

static size_t _at(const _scale_t *t, size_t row, size_t m, size_t c)
{
	return (row * t->nm + m) * t->nn + c;
}

/*
 * One round of -n: a run per count and mode, backwards when back (counts
 * and modes both), into row of t.
 */
static int _round(size_t jobs, unsigned seed, const uint32_t *n,
		  _scale_t *t, size_t row, int back, const char *params)
{
	size_t i, j;

	for (i = 0; i < t->nn; i++) {
		size_t c = back ? t->nn - 1 - i : i;
		dl_workload_t *wl = _trace(jobs, seed, n[c]);

		if (!wl)
			return -1;
		for (j = 0; j < t->nm; j++) {
			size_t m = back ? t->nm - 1 - j : j, k = _at(t, row, m, c);
			double q[6];

			if (_run(wl, n[c], "online-hps", params,
				 m ? t->cycle : 0, &t->cpu[k], q)) {
				dl_workload_destroy(wl);
				return -1;
			}
			t->mean[k] = q[0];
			t->p95[k] = q[1];
			printf("%4u %5u %6s %10.2f %9.2f %9.2f %8.0f %6.0f %8.2f %016llx %s\n",
			       seed, n[c], m ? "cycle" : "event", t->cpu[k],
			       q[0], q[1], q[2], q[3], q[4],
			       (unsigned long long)last_digest,
			       m ? last_why : "-");
			fflush(stdout);
		}
		dl_workload_destroy(wl);
	}
	return 0;
}

/*
 * The spread over rows of x at (mode m, count c), each divided by div at
 * (mode dm, count dc) when div is given; v is scratch of rows entries.
 */
static void _column(const _scale_t *t, size_t rows, const double *x,
		    size_t m, size_t c, const double *div, size_t dm,
		    size_t dc, double *v, double out[3])
{
	size_t i;

	for (i = 0; i < rows; i++)
		v[i] = x[_at(t, i, m, c)] / (div ? div[_at(t, i, dm, dc)] : 1);
	_spread(v, rows, out);
}

/* One mode's summary of -n (median over rows; v: scratch of rows). */
static void _mode_report(const uint32_t *n, const _scale_t *t, size_t rows,
			 size_t m, double *v)
{
	double a[3], r[3], mean[3], p95[3], d[3];
	size_t c;
	int met = 1;

	if (m)
		printf("paced as the agent, other changes at most every %g s (dl-sim --agent-cycle %g)\n",
		       t->cycle, t->cycle);
	else
		printf("full plans at every event (dl-sim's default)\n");
	printf("nodes   CPU s median [  min -   max]   CPU/CPU(%u) median [ min -  max]  resp mean    p95%s\n",
	       n[0], m ? "  mean/per-event [ min -  max]" : "");
	for (c = 0; c < t->nn; c++) {
		_column(t, rows, t->cpu, m, c, NULL, 0, 0, v, a);
		_column(t, rows, t->cpu, m, c, t->cpu, m, 0, v, r);
		_column(t, rows, t->mean, m, c, NULL, 0, 0, v, mean);
		_column(t, rows, t->p95, m, c, NULL, 0, 0, v, p95);
		if (m)
			_column(t, rows, t->mean, m, c, t->mean, 0, c, v, d);
		if (c && r[0] > 3)
			met = 0;
		printf("%5u  %14.2f [%6.2f - %6.2f]  %19.2f [%5.2f - %5.2f]  %9.2f %6.2f",
		       n[c], a[0], a[1], a[2], r[0], r[1], r[2], mean[0],
		       p95[0]);
		if (m)
			printf("  %15.3f [%5.3f - %5.3f]", d[0], d[1], d[2]);
		printf("\n");
	}
	printf("target (issue 25): every count within 3x the CPU of %u nodes (median ratio): %s\n",
	       n[0], met ? "met" : "not met");
}

/* Prints the summary of -n, each mode's table (responses: medians). */
static void _scale_report(const uint32_t *n, const _scale_t *t, size_t rows)
{
	double *v = malloc(rows * sizeof(*v));
	size_t m;

	if (!v)
		return;
	for (m = 0; m < t->nm; m++)
		_mode_report(n, t, rows, m, v);
	free(v);
}

/* -n: hps-after at each node count, rounds alternated (see the top); with
 * cycle > 0 (-c), also paced at that cycle, alternated with the others. */
static int _scale(size_t jobs, unsigned seeds, unsigned rounds,
		  const uint32_t *n, size_t nn, const char *params,
		  double cycle)
{
	_scale_t t = { .nn = nn, .nm = cycle > 0 ? 2 : 1, .cycle = cycle };
	size_t row = 0, len = (size_t)seeds * rounds * t.nm * nn;
	unsigned s, k;
	int rc = 1;

	t.cpu = malloc(len * sizeof(*t.cpu));
	t.mean = malloc(len * sizeof(*t.mean));
	t.p95 = malloc(len * sizeof(*t.p95));
	if (!t.cpu || !t.mean || !t.p95)
		goto out;
	printf("dl-sim, biomed %zu jobs (arrivals x10, compressed by the nodes), online-hps, slurm dispatch (order=priority), storage nodes = nodes/16; CPU s incl. the helper; plans: event = a full plan at every event, cycle = paced as the agent, other changes at most every %g s\n",
	       jobs, cycle);
	printf("seed nodes   mode      CPU_s resp_mean  resp_p95  pending  plans policy_s digest           why (arrival/node/interval/other)\n");
	for (s = 1; s <= seeds; s++)
		for (k = 0; k < rounds; k++, row++)
			if (_round(jobs, s, n, &t, row, (int)(k % 2), params))
				goto out;
	_scale_report(n, &t, row);
	rc = 0;
out:
	free(t.cpu);
	free(t.mean);
	free(t.p95);
	return rc;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *label, *policy, *params;
	} runs[] = {
		{ "mct", "mct", NULL },
		{ "hps-before", "online-hps", "order=ect,refine_above=2000,reuse=0" },
		{ "hps-after", "online-hps", NULL },
	};
	double cpu[3], q[3][5], tsum[3] = { 0 }, dq = 0, dqmax = 0, dp = 0;
	size_t jobs = 5000, k, nn = 0;
	unsigned seeds = 3, s, rounds = 3;
	uint32_t nodes = NODES, counts[SCALE_MAX];
	int c, only_after = 0;
	const char *params = NULL;
	double cycle = 0;

	while ((c = getopt(argc, argv, "j:s:H:ap:n:r:N:c:")) != -1) {
		if (c == 'a')
			only_after = 1;
		else if (c == 'p')
			params = optarg;
		else if (c == 'j')
			jobs = strtoul(optarg, NULL, 10);
		else if (c == 's')
			seeds = (unsigned)strtoul(optarg, NULL, 10);
		else if (c == 'r')
			rounds = (unsigned)strtoul(optarg, NULL, 10);
		else if (c == 'N')
			nodes = (uint32_t)strtoul(optarg, NULL, 10);
		else if (c == 'c')
			cycle = strtod(optarg, NULL);
		else if (c == 'n') {
			if (!(nn = _counts(optarg, counts)))
				return 2;
		} else if (c == 'H')
			setenv("DL_PARTITIOND", optarg, 1);
		else
			return 2;
	}
	if (!jobs || !seeds || !rounds || !nodes ||
	    !(cycle >= 0 && cycle <= DL_SIM_AGENT_CYCLE_MAX) ||
	    (cycle && !nn && !only_after))
		return 2;
#ifdef BENCH_PARTITIOND
	/* The helper built beside this benchmark, unless told otherwise. */
	setenv("DL_PARTITIOND", BENCH_PARTITIOND, 0);
#endif
	if (nn)
		return _scale(jobs, seeds, rounds, counts, nn, params, cycle);
	if (only_after)
		return _after(jobs, seeds, nodes, runs[2].policy, params,
			      cycle);
	printf("dl-sim, biomed %zu jobs (arrivals x10), %d nodes x 1 core, slurm dispatch; CPU s incl. the helper; response mean / p95 s\n",
	       jobs, NODES);
	printf("seed   mct_s mct_mean | before_s   mean    p95 | after_s   mean    p95 | speedup  d_mean   d_p95\n");
	for (s = 1; s <= seeds; s++) {
		dl_workload_t *wl = _trace(jobs, s, NODES);
		double d, e;

		if (!wl)
			return 1;
		for (k = 0; k < 3; k++)
			if (_run(wl, NODES, runs[k].policy, runs[k].params, 0,
				 &cpu[k], q[k])) {
				dl_workload_destroy(wl);
				return 1;
			}
		dl_workload_destroy(wl);
		d = q[2][0] / q[1][0] - 1;
		e = q[2][1] / q[1][1] - 1;
		dq += d;
		dp += e;
		dqmax = d > dqmax ? d : (-d > dqmax ? -d : dqmax);
		for (k = 0; k < 3; k++)
			tsum[k] += cpu[k];
		printf("%4u %7.2f %8.2f | %8.2f %6.2f %6.2f | %7.2f %6.2f %6.2f | %6.1fx %+6.2f%% %+6.2f%%\n",
		       s, cpu[0], q[0][0], cpu[1], q[1][0], q[1][1], cpu[2],
		       q[2][0], q[2][1], cpu[1] / cpu[2], 100 * d, 100 * e);
		fflush(stdout);
	}
	printf("mean CPU s: mct %.2f, hps-before %.2f, hps-after %.2f (%.1fx; target <= 5 s: %s); response after/before: mean %+.2f%% (worst seed %.2f%%; target within 2%%), p95 %+.2f%%\n",
	       tsum[0] / seeds, tsum[1] / seeds, tsum[2] / seeds,
	       tsum[1] / tsum[2], tsum[2] / seeds <= 5 ? "met" : "not met",
	       100 * dq / seeds, 100 * dqmax, 100 * dp / seeds);
	return 0;
}
