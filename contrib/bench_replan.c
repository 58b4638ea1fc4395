/*
 * bench_replan.c - re-plan time and cut of a policy, end to end (state ->
 * hypergraph -> partition -> order), on synthetic workloads with Zipf-like
 * popularity of patients (each with 8 images), next to the cut of a random balanced assignment.
 *
 *   make bench            (runs this with the other benchmarks)
 *   contrib/bench_replan [--policy NAME] [--params P] [--max-jobs N]
 *                        [--jobs N --nodes N]   (one size only)
 *
 * For each size it plans twice: once from nothing ("first"), then again
 * after 1% of the jobs started and 1% new ones arrived ("re-plan"), which
 * is what the plugin does at every scheduling event.  Figures go to
 * stdout; nothing is asserted (benchmarks print, tests check).  "first
 * cpu" is this process's CPU time of the first plan (the helper's is not
 * in it); "replan MiB" the re-plan's cut; "fallback" FALLBACK when the
 * first plan fell back to greedy (helper failed or timed out), fallback2
 * when only the re-plan did.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "dl_hgraph.h"
#include "dl_policy.h"

#define MB (1ULL << 20)

static uint64_t rng = 88172645463325252ULL;

static uint64_t _rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static double _uniform(void)
{
	return (_rand() >> 11) * (1.0 / 9007199254740992.0);
}

/* Zipf(s = 1) over [0, n) by inversion of the harmonic CDF. */
static uint32_t _zipf(const double *cdf, uint32_t n)
{
	double u = _uniform();
	uint32_t lo = 0, hi = n - 1;

	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;

		if (cdf[mid] < u)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static double _now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* CPU seconds of this process (the helper's are not in it). */
static double _cpu(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/*
 * Jobs as in online-hps-khanna §6.1, with skew: a job analyses 4-8 of the
 * 8 images of one patient, and patients are drawn with Zipf(1)
 * popularity, so a few patients' images are wanted by many jobs.
 */
static int _add_jobs(dl_state_t *st, uint32_t first_id, uint32_t n,
		     uint32_t nfiles, const double *cdf)
{
	uint32_t files[8], i, k, m, pat, first;

	for (i = 0; i < n; i++) {
		dl_job_t j = { 0 };

		pat = _zipf(cdf, nfiles / 8);
		m = 4 + (uint32_t)(_rand() % 5);
		first = (uint32_t)(_rand() % (8 - m + 1));
		for (k = 0; k < m; k++)
			files[k] = pat * 8 + first + k;
		j.id = first_id + i;
		j.files = files;
		j.nfiles = m;
		j.arrival = j.id;
		j.compute = -1;
		if (dl_state_add_job(st, &j) < 0)
			return -1;
	}
	return 0;
}

/* Connectivity-1 cut of a random balanced assignment of the same jobs. */
static double _random_cut(const dl_state_t *st)
{
	dl_hgraph_t *g;
	int32_t *part;
	uint32_t v;
	double cut;

	if (dl_hgraph_build(st, &g))
		return -1;
	part = malloc((g->nvtx ? g->nvtx : 1) * sizeof(*part));
	for (v = 0; v < g->nvtx; v++)
		part[v] = g->fixed[v] >= 0 ? g->fixed[v] :
					     (int32_t)(_rand() % g->nparts);
	cut = dl_hgraph_cut(g, part);
	free(part);
	dl_hgraph_free(g);
	return cut;
}

static void _run(const char *policy, const char *params, uint32_t njobs,
		 uint32_t nnodes)
{
	uint32_t nfiles = njobs / 2, i;
	dl_cache_t *cache = dl_cache_create(nnodes, DL_EVICT_VALUE, 1);
	dl_state_t *st = dl_state_create(cache, NULL), *st2;
	dl_policy_t *p;
	dl_plan_t *plan = NULL, *plan2 = NULL;
	double *cdf = malloc(nfiles * sizeof(*cdf)), h = 0, t0, t1, t2,
	       rcut, c0, c1;
	char path[64];
	int err;

	/* Zipf(1) over the nfiles / 8 patients. */
	for (i = 0; i < nfiles / 8; i++) {
		h += 1.0 / (i + 1);
		cdf[i] = h;
	}
	for (i = 0; i < nfiles / 8; i++)
		cdf[i] /= h;
	for (i = 0; i < nfiles; i++) {
		snprintf(path, sizeof(path), "/data/p%06u/img%u.dcm", i / 8,
			 i % 8);
		dl_cache_file_intern(cache, path, i % 5 ? 4 * MB : 64 * MB);
	}
	for (i = 0; i < nnodes; i++) {
		snprintf(path, sizeof(path), "n%u", i);
		dl_state_add_node(st, path, 1, 1);
	}
	if (_add_jobs(st, 1, njobs, nfiles, cdf)) {
		fprintf(stderr, "bench: cannot build the state\n");
		exit(1);
	}
	p = dl_policy_create(policy, params, &err);
	if (!p) {
		fprintf(stderr, "bench: policy %s: error %d\n", policy, err);
		exit(2);
	}
	rcut = _random_cut(st);
	t0 = _now();
	c0 = _cpu();
	if (dl_policy_plan(p, st, &plan)) {
		fprintf(stderr, "bench: plan failed\n");
		exit(1);
	}
	t1 = _now();
	c1 = _cpu();

	/*
	 * The next event: 1% of the jobs started on their planned node (their
	 * files now count as cached there) and 1% new jobs arrived.
	 */
	st2 = dl_state_create(cache, NULL);
	for (i = 0; i < nnodes; i++) {
		snprintf(path, sizeof(path), "n%u", i);
		dl_state_add_node(st2, path, 1, 1);
	}
	for (i = 0; i < st->njobs; i++) {
		dl_job_t j = st->jobs[i];

		if (i % 100 == 0 && plan->a[i].node >= 0) {
			uint32_t k;

			j.state = DL_JOB_RUNNING;
			j.node = plan->a[i].node;
			for (k = 0; k < j.nfiles; k++)
				dl_cache_insert(cache, (uint32_t)j.node,
						j.files[k], 1, NULL, NULL);
		}
		j.eligible = NULL;
		dl_state_add_job(st2, &j);
	}
	_add_jobs(st2, njobs + 1, njobs / 100, nfiles, cdf);
	t2 = _now();
	if (dl_policy_plan(p, st2, &plan2)) {
		fprintf(stderr, "bench: re-plan failed\n");
		exit(1);
	}

	printf("%8u %6u  %9.3f %9.3f %9.3f  %12.1f %12.1f %8.2f  %9.3f %12.1f %s\n",
	       njobs, nnodes, t1 - t0, c1 - c0, _now() - t2,
	       plan->cut_bytes / (double)MB, rcut / MB,
	       rcut / (plan->cut_bytes ? plan->cut_bytes : 1), plan->imbalance,
	       plan2->cut_bytes / (double)MB,
	       plan->fallback ? "FALLBACK" : (plan2->fallback ? "fallback2" : "-"));
	fflush(stdout);
	dl_plan_free(plan);
	dl_plan_free(plan2);
	dl_policy_destroy(p);
	dl_state_destroy(st);
	dl_state_destroy(st2);
	dl_cache_destroy(cache);
	free(cdf);
}

int main(int argc, char **argv)
{
	static const uint32_t jobs[] = { 1000, 10000, 100000 };
	static const uint32_t nodes[] = { 16, 64, 256 };
	const char *policy = "online-hps", *params = NULL;
	uint32_t max_jobs = 100000, one_jobs = 0, one_nodes = 0, a, b;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--policy") && i + 1 < argc)
			policy = argv[++i];
		else if (!strcmp(argv[i], "--params") && i + 1 < argc)
			params = argv[++i];
		else if (!strcmp(argv[i], "--max-jobs") && i + 1 < argc)
			max_jobs = (uint32_t)strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--jobs") && i + 1 < argc)
			one_jobs = (uint32_t)strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--nodes") && i + 1 < argc)
			one_nodes = (uint32_t)strtoul(argv[++i], NULL, 10);
		else {
			fprintf(stderr,
				"usage: %s [--policy NAME] [--params P] [--max-jobs N] [--jobs N --nodes N]\n",
				argv[0]);
			return 2;
		}
	}
	printf("policy %s%s%s; jobs: 4-8 of the 8 images (4 or 64 MiB) of one of jobs/16 patients, patients Zipf(1); 1 CPU per node\n",
	       policy, params ? " " : "", params ? params : "");
	printf("%8s %6s  %9s %9s %9s  %12s %12s %8s  %9s %12s %s\n", "pending",
	       "nodes", "first s", "first cpu", "replan s", "cut MiB",
	       "random MiB",
	       "rand/cut", "imbalance", "replan MiB", "fallback");
	if (one_jobs && one_nodes) {
		/* One size only (issue 30: 100,000 pending x 1,024 nodes). */
		_run(policy, params, one_jobs, one_nodes);
		return 0;
	}
	for (a = 0; a < 3; a++)
		for (b = 0; b < 3; b++)
			if (jobs[a] <= max_jobs)
				_run(policy, params, jobs[a], nodes[b]);
	return 0;
}
