/*
 * bench_cache.c - scale benchmark of the cache tracker (dl_cache.h).
 *
 * Build and run (from the top of the tree):
 *   gcc -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -I src/libdatalocality \
 *       contrib/bench_cache.c src/libdatalocality/cache.c \
 *       src/libdatalocality/error.c src/libdatalocality/log.c \
 *       -lm -o /tmp/bench_cache && /tmp/bench_cache [policy ...]
 *
 * Workload: 1,000,000 files named /data/patient%06d/img%02d.dcm (50,000
 * patients x 20 images; every 8th image is 64 MiB, the others 4 MiB, so
 * 11.5 MiB on average), 1000 nodes whose capacities add up to two copies
 * of the whole data set.  Files are drawn from a Zipf(s) popularity (the
 * ranks shuffled over the ids) and nodes uniformly; each draw is one
 * dl_cache_insert() (a hit counts as an access), until 3 copies per file
 * have been placed on average, so about a third of them must be evicted.
 * Then 10,000,000 dl_cache_contains() are timed on random (node, file)
 * pairs (nearly all misses) and 10,000,000 on pairs among the last 2^20
 * inserted (mostly hits).  Each policy runs in its own child process so
 * that peak RSS is per policy.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dl_cache.h"
#include "dl_error.h"

#define NFILES 1000000u
#define NNODES 1000u
#define IMAGES 20u
#define MIB ((uint64_t)1 << 20)
#define COPIES_PLACED 3u
#define NCONTAINS 10000000u
#define NRECENT (1u << 20) /* recent inserts, for contains() that hit */
#define ZIPF_S 0.9

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t _rand64(void)
{
	uint64_t x;

	rng_state += 0x9e3779b97f4a7c15ULL;
	x = rng_state;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static double _now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void _count_evict(uint32_t node, uint32_t file, void *arg)
{
	(void)node;
	(void)file;
	++*(uint64_t *)arg;
}

/* Inverse-CDF Zipf sampler over ranks 0..n-1, ranks mapped to ids. */
struct zipf {
	double *cdf;
	uint32_t *id;
};

static int _zipf_init(struct zipf *z, uint32_t n, double s)
{
	double sum = 0;

	z->cdf = malloc(n * sizeof(*z->cdf));
	z->id = malloc(n * sizeof(*z->id));
	if (!z->cdf || !z->id)
		return -1;
	for (uint32_t r = 0; r < n; r++) {
		sum += 1.0 / pow(r + 1.0, s);
		z->cdf[r] = sum;
	}
	for (uint32_t r = 0; r < n; r++) {
		z->cdf[r] /= sum;
		z->id[r] = r;
	}
	for (uint32_t r = n - 1; r > 0; r--) {
		uint32_t k = _rand64() % (r + 1), t = z->id[r];

		z->id[r] = z->id[k];
		z->id[k] = t;
	}
	return 0;
}

static uint32_t _zipf_draw(const struct zipf *z, uint32_t n)
{
	double u = (_rand64() >> 11) * 0x1.0p-53;
	uint32_t lo = 0, hi = n - 1;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (z->cdf[mid] < u)
			lo = mid + 1;
		else
			hi = mid;
	}
	return z->id[lo];
}

/* What one policy's run counted and timed. */
typedef struct {
	uint64_t total, evictions, inserts, placed, copies, hits;
	uint64_t sink, sink_hit;
	double t_intern, t_insert, t_contains, t_hit;
} run_t;

/* Intern the NFILES files; r->total their bytes.  RET 0 or 1. */
static int _intern(dl_cache_t *c, run_t *r)
{
	double t0 = _now();
	char path[64];

	for (uint32_t i = 0; i < NFILES; i++) {
		uint32_t img = i % IMAGES;
		uint64_t size = (img % 8 == 0 ? 64 : 4) * MIB;
		int64_t id;

		snprintf(path, sizeof(path), "/data/patient%06u/img%02u.dcm",
			 i / IMAGES, img);
		id = dl_cache_file_intern(c, path, size);
		if (id != i) {
			fprintf(stderr, "intern: %s\n", dl_strerror((int)id));
			return 1;
		}
		r->total += size;
	}
	r->t_intern = _now() - t0;
	return 0;
}

/*
 * Insert Zipf-drawn files on random nodes until COPIES_PLACED copies per
 * file were placed; recent[] keeps the last NRECENT (node, file) pairs.
 * RET 0 or 1.
 */
static int _insert(dl_cache_t *c, struct zipf *z, uint32_t *recent,
		   run_t *r)
{
	double t0 = _now();

	while (r->placed < (uint64_t)COPIES_PLACED * NFILES) {
		uint32_t f = _zipf_draw(z, NFILES);
		uint32_t n = _rand64() % NNODES;
		int had = dl_cache_contains(c, n, f);
		int rc = dl_cache_insert(c, n, f, r->inserts, _count_evict,
					 &r->evictions);

		if (rc) {
			fprintf(stderr, "insert: %s\n", dl_strerror(rc));
			return 1;
		}
		recent[2 * (r->inserts % NRECENT)] = n;
		recent[2 * (r->inserts % NRECENT) + 1] = f;
		r->inserts++;
		r->placed += !had;
		r->hits += had;
	}
	r->t_insert = _now() - t0;
	for (uint32_t f = 0; f < NFILES; f++)
		r->copies += dl_cache_copies(c, f);
	return 0;
}

/* Time contains() on random pairs, then on recently inserted ones. */
static void _contains(const dl_cache_t *c, const uint32_t *recent, run_t *r)
{
	double t0 = _now();

	for (uint32_t i = 0; i < NCONTAINS; i++) {
		uint64_t x = _rand64();

		r->sink += dl_cache_contains(c, (uint32_t)(x >> 32) % NNODES,
					     (uint32_t)x % NFILES);
	}
	r->t_contains = _now() - t0;
	t0 = _now();
	for (uint32_t i = 0; i < NCONTAINS; i++) {
		uint32_t k = (uint32_t)_rand64() % NRECENT;

		r->sink_hit += dl_cache_contains(c, recent[2 * k],
						 recent[2 * k + 1]);
	}
	r->t_hit = _now() - t0;
}

static void _print(dl_evict_t policy, const dl_cache_t *c, const run_t *r)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	printf("policy %-6s  files %u  nodes %u  capacity/node %.1f GiB\n",
	       dl_evict_name(policy), NFILES, NNODES,
	       (double)(2 * r->total / NNODES) / (1024.0 * MIB));
	printf("  intern           %.0f ns/file\n", r->t_intern * 1e9 / NFILES);
	printf("  inserts          %" PRIu64 " (%" PRIu64 " hits, %" PRIu64
	       " new copies)\n",
	       r->inserts, r->hits, r->placed);
	printf("  evictions        %" PRIu64 "\n", r->evictions);
	printf("  copies at end    %" PRIu64 " (%.2f per file)\n", r->copies,
	       (double)r->copies / NFILES);
	printf("  insert           %.0f ns/call (evictions included)\n",
	       r->t_insert * 1e9 / r->inserts);
	printf("  contains         %.0f ns/call random pairs (%.1f%% hits), "
	       "%.0f ns/call recent inserts (%.1f%% hits)\n",
	       r->t_contains * 1e9 / NCONTAINS, 100.0 * r->sink / NCONTAINS,
	       r->t_hit * 1e9 / NCONTAINS, 100.0 * r->sink_hit / NCONTAINS);
	printf("  dl_cache_memory  %.1f MiB\n",
	       dl_cache_memory(c) / (double)MIB);
	printf("  peak RSS         %.1f MiB (benchmark's own tables: %.1f)\n",
	       ru.ru_maxrss / 1024.0,
	       ((double)NFILES * (sizeof(double) + sizeof(uint32_t)) +
		2.0 * NRECENT * sizeof(uint32_t)) / MIB);
	fflush(stdout);
}

static int _run(dl_evict_t policy)
{
	dl_cache_t *c = dl_cache_create(NNODES, policy, 1);
	uint32_t *recent = calloc(2 * NRECENT, sizeof(*recent));
	run_t r = { 0 };
	struct zipf z;

	if (!c || !recent || _zipf_init(&z, NFILES, ZIPF_S)) {
		fprintf(stderr, "out of memory\n");
		return 1;
	}
	if (_intern(c, &r))
		return 1;
	for (uint32_t n = 0; n < NNODES; n++)
		dl_cache_set_capacity(c, n, 2 * r.total / NNODES);
	if (_insert(c, &z, recent, &r))
		return 1;
	_contains(c, recent, &r);
	_print(policy, c, &r);
	dl_cache_destroy(c);
	free(z.cdf);
	free(z.id);
	free(recent);
	return 0;
}

int main(int argc, char **argv)
{
	dl_evict_t policies[8] = { DL_EVICT_VALUE, DL_EVICT_LRU };
	int npol = 2, failed = 0;

	if (argc > 1) {
		npol = 0;
		for (int i = 1; i < argc && npol < 8; i++)
			if (dl_evict_from_name(argv[i], &policies[npol++])) {
				fprintf(stderr, "unknown policy %s\n", argv[i]);
				return 2;
			}
	}
	for (int i = 0; i < npol; i++) {
		double t0 = _now();
		pid_t pid;

		fflush(stdout); /* or the child would print it again */
		pid = fork();
		int status;

		if (pid == 0)
			_exit(_run(policies[i]));
		if (pid < 0 || waitpid(pid, &status, 0) != pid ||
		    !WIFEXITED(status) || WEXITSTATUS(status)) {
			failed = 1;
			continue;
		}
		printf("  wall time        %.1f s\n\n", _now() - t0);
		fflush(stdout);
	}
	return failed;
}
