/*
 * bench_bigjob.c - what one job naming very many files costs a plan: the
 * plan time of a stream of ordinary jobs, with and without one pending job
 * of N files, side by side in one run, for Online-HPS as slurmctld runs it
 * (order=priority: Slurm orders) and as dl-sim runs it (ECT ordering).
 *
 *   make bench            (runs this with the other benchmarks)
 *   contrib/bench_bigjob [FILES...]      (default 1000 4000 16000)
 *
 * Target (issue "hostile input"): a 16k-file job adds at most 50 ms.  In
 * slurmctld, MaxFilesPerJob (default 10000) keeps such a job out of the
 * plan altogether; this measures the plan should a site raise it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dl_policy.h"

#define NODES 16
#define JOBS 400
#define MB (1ULL << 20)

static double _now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* JOBS jobs of 3 files out of 100 groups of 4, plus a job of big files. */
static dl_state_t *_state(dl_cache_t *c, uint32_t big)
{
	dl_state_t *st = dl_state_create(c, NULL);
	uint32_t *files = calloc(big ? big : 3, sizeof(*files));
	char path[64];
	uint32_t i, k;

	for (i = 0; i < NODES; i++) {
		snprintf(path, sizeof(path), "n%u", i + 1);
		dl_state_add_node(st, path, 4, 1);
	}
	for (i = 0; i < JOBS; i++) {
		dl_job_t j = { .id = i + 1, .state = DL_JOB_PENDING,
			       .nfiles = 3, .files = files, .cpus = 1,
			       .priority = JOBS - i, .arrival = i,
			       .compute = 60, .node = -1 };

		for (k = 0; k < 3; k++) {
			snprintf(path, sizeof(path), "/data/g%u/f%u",
				 (i * 7) % 100, (i + k) % 4);
			files[k] = (uint32_t)dl_cache_file_intern(c, path,
								  64 * MB);
		}
		dl_state_add_job(st, &j);
	}
	if (big) {
		dl_job_t j = { .id = 100000, .state = DL_JOB_PENDING,
			       .nfiles = big, .files = files, .cpus = 1,
			       .priority = 1, .arrival = JOBS,
			       .compute = 60, .node = -1 };

		for (k = 0; k < big; k++) {
			snprintf(path, sizeof(path), "/huge/f%07u", k);
			files[k] = (uint32_t)dl_cache_file_intern(
				c, path, 1 + (k * 7919) % MB);
		}
		dl_state_add_job(st, &j);
	}
	free(files);
	return st;
}

static double _median5(double *t)
{
	double x;
	int i, k;

	for (i = 1; i < 5; i++)
		for (k = i; k > 0 && t[k] < t[k - 1]; k--) {
			x = t[k];
			t[k] = t[k - 1];
			t[k - 1] = x;
		}
	return t[2];
}

/*
 * Median plan time of 5 plans with and without the big job, seconds,
 * alternating, on one policy object (its helper process is started once,
 * as in slurmctld).
 */
static void _plan(const char *params, uint32_t big, double *without,
		  double *with)
{
	dl_policy_t *p;
	double t[2][5];
	int i, w, err;

	p = dl_policy_create("online-hps", params, &err);
	for (i = 0; i < 6; i++) {
		for (w = 0; w < 2; w++) {
			dl_cache_t *c = dl_cache_create(NODES, DL_EVICT_VALUE, 1);
			dl_state_t *st = _state(c, w ? big : 0);
			dl_plan_t *plan = NULL;
			double t0 = _now();

			if (!p || dl_policy_plan(p, st, &plan))
				fprintf(stderr, "bench_bigjob: plan failed\n");
			if (i) /* the first round warms the helper up */
				t[w][i - 1] = _now() - t0;
			dl_plan_free(plan);
			dl_state_destroy(st);
			dl_cache_destroy(c);
		}
	}
	dl_policy_destroy(p);
	*without = _median5(t[0]);
	*with = _median5(t[1]);
}

int main(int argc, char **argv)
{
	static const char *how[2][2] = {
		{ "slurmctld (order=priority)", "order=priority" },
		{ "dl-sim (ECT ordering)", "order=ect" },
	};
	uint32_t sizes[16] = { 1000, 4000, 16000 };
	int nsizes = 3, i, h;

	if (argc > 1)
		for (nsizes = 0; nsizes + 1 < argc && nsizes < 16; nsizes++)
			sizes[nsizes] = (uint32_t)atol(argv[nsizes + 1]);
	printf("plan time of %d pending jobs on %d nodes, online-hps, median of 5\n",
	       JOBS, NODES);
	printf("%-28s %8s %12s %12s %10s\n", "as in", "files", "without ms",
	       "with ms", "added ms");
	for (h = 0; h < 2; h++) {
		for (i = 0; i < nsizes; i++) {
			double base, with;

			_plan(how[h][1], sizes[i], &base, &with);
			printf("%-28s %8u %12.1f %12.1f %10.1f%s\n", how[h][0],
			       sizes[i], base * 1e3, with * 1e3,
			       (with - base) * 1e3,
			       sizes[i] != 16000 ? "" :
			       with - base <= 0.05 ? "  (target <= 50: met)" :
						     "  (target <= 50: MISSED)");
		}
	}
	return 0;
}
