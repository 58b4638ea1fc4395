/*
 * bench_partition.c - time and quality of the partitioner (dl_partition.h)
 * on synthetic job/file hypergraphs.
 *
 * Build and run from the top of the source tree (the helper first):
 *
 *   gcc -std=c11 -D_GNU_SOURCE -O2 $(pkg-config --cflags ompi-c) \
 *       -I/usr/include/trilinos -Isrc/libdatalocality \
 *       src/partitiond/dl-partitiond.c -o /tmp/dl-partitiond \
 *       -ltrilinos_zoltan $(pkg-config --libs ompi-c) -lm
 *   gcc -std=c11 -D_GNU_SOURCE -O2 -Isrc/libdatalocality \
 *       contrib/bench_partition.c src/libdatalocality/partition/[a-z]*.c \
 *       src/libdatalocality/error.c src/libdatalocality/log.c \
 *       -lm -o /tmp/bench_partition
 *   /tmp/bench_partition -H /tmp/dl-partitiond
 *
 * Options: -H helper path ($DL_PARTITIOND), -n jobs list (1000,10000,
 * 100000), -k parts list (16,64,256), -P mpi processes (1), -b seconds
 * budget per configuration (60: larger configurations that the previous
 * size suggests would exceed it are skipped), -s seed, -v log to stderr.
 *
 * Workload: N pending jobs, N/2 files, each job reads 4-10 distinct files
 * drawn with Zipf-like popularity (s = 1); a file is 4 MiB (3 in 4) or
 * 64 MiB; a job's weight is its bytes over 80 MB/s (a stand-in for eq. 6
 * of online-hps-khanna).  Each part also holds two running jobs and one
 * zero-weight cache anchor on 8 popular files, all fixed there.
 *
 * Columns: helper wall time of dl_partitioner_run() (warm helper, pipe
 * transfer included), its cut (in GiB moved) and imbalance; the cut of a
 * random balanced assignment and of the greedy partitioner (and greedy's
 * time); then refinement: 5% new jobs are added and the graph partitioned
 * again, from scratch and from the previous parts (REPARTITION, REFINE).
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dl_error.h"
#include "dl_log.h"
#include "dl_partition.h"

#define MIB 1048576.0
#define GIB (1024 * MIB)

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t _rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static double _rngf(void)
{
	return (_rng() >> 11) * (1.0 / 9007199254740992.0);
}

static double _now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void *_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	return p;
}

/* ---- workload ---------------------------------------------------------- */

/* The jobs' file lists, kept so that new jobs can be added later. */
struct workload {
	uint32_t nfiles, njobs, nparts;
	double *fsize;		/* [nfiles] bytes */
	double *cdf;		/* [nfiles] Zipf CDF */
	uint32_t *xfiles;	/* [njobs + 1] */
	uint32_t *files;	/* job file lists */
	size_t cap;
	uint32_t *anchor_files;	/* [nparts * 8] */
};

static uint32_t _zipf(const struct workload *w)
{
	double u = _rngf();
	uint32_t lo = 0, hi = w->nfiles - 1;

	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;

		if (w->cdf[mid] < u)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void _add_jobs(struct workload *w, uint32_t n)
{
	w->xfiles = realloc(w->xfiles, (w->njobs + n + 1) * sizeof(*w->xfiles));
	if (!w->xfiles)
		exit(1);
	for (uint32_t j = w->njobs; j < w->njobs + n; j++) {
		uint32_t k = 4 + _rng() % 7, start = w->xfiles[j], got = 0;

		if (start + k > w->cap) {
			w->cap = 2 * (start + k);
			w->files = realloc(w->files,
					   w->cap * sizeof(*w->files));
			if (!w->files)
				exit(1);
		}
		while (got < k) {
			uint32_t f = _zipf(w), i;

			for (i = 0; i < got; i++)
				if (w->files[start + i] == f)
					break;
			if (i == got)
				w->files[start + got++] = f;
		}
		w->xfiles[j + 1] = start + k;
	}
	w->njobs += n;
}

static void _workload(struct workload *w, uint32_t njobs, uint32_t nparts)
{
	double sum = 0;

	memset(w, 0, sizeof(*w));
	w->nparts = nparts;
	w->nfiles = njobs / 2 > 16 ? njobs / 2 : 16;
	w->fsize = _xmalloc(w->nfiles * sizeof(*w->fsize));
	w->cdf = _xmalloc(w->nfiles * sizeof(*w->cdf));
	for (uint32_t f = 0; f < w->nfiles; f++) {
		w->fsize[f] = (_rng() % 4 ? 4 : 64) * MIB;
		sum += 1.0 / (f + 1);
		w->cdf[f] = sum;
	}
	for (uint32_t f = 0; f < w->nfiles; f++)
		w->cdf[f] /= sum;
	w->xfiles = _xmalloc(sizeof(*w->xfiles));
	w->xfiles[0] = 0;
	_add_jobs(w, njobs);
	w->anchor_files = _xmalloc(nparts * 8 * sizeof(*w->anchor_files));
	for (uint32_t i = 0; i < nparts * 8; i++)
		w->anchor_files[i] = _zipf(w);
}

static void _workload_free(struct workload *w)
{
	free(w->fsize);
	free(w->cdf);
	free(w->xfiles);
	free(w->files);
	free(w->anchor_files);
}

/* Running job i (of 3 per part) reads the files of an early pending job. */
static uint32_t _running_src(const struct workload *w, uint32_t i)
{
	uint32_t span = w->njobs < 1000 ? w->njobs : 1000;

	return (uint32_t)((i * 2654435761u) % span);
}

/* The files of vertex v: a pending job, a running job or an anchor. */
static uint32_t _vfiles(const struct workload *w, uint32_t v,
			const uint32_t **files)
{
	uint32_t src, i;

	if (v < w->njobs)
		src = v;
	else if ((i = v - w->njobs) % 3 < 2)
		src = _running_src(w, i);
	else {
		*files = w->anchor_files + (i / 3) * 8;
		return 8;
	}
	*files = w->files + w->xfiles[src];
	return w->xfiles[src + 1] - w->xfiles[src];
}

/*
 * The hypergraph: vertices 0..njobs-1 are the pending jobs, then per part
 * two running jobs (file lists of early pending jobs, reused) and an
 * anchor.  Only files with a pin are nets.
 */
static dl_hgraph_t *_graph(const struct workload *w)
{
	const uint32_t K = w->nparts, nvtx = w->njobs + 3 * K;
	dl_hgraph_t *h = calloc(1, sizeof(*h));
	uint32_t *cnt = calloc(w->nfiles + 1, sizeof(*cnt));
	uint32_t *netof = _xmalloc(w->nfiles * sizeof(*netof));
	uint32_t *fill, npins = 0, nnets = 0, nf;
	const uint32_t *vf;

	if (!h || !cnt)
		exit(1);
	h->nvtx = nvtx;
	h->nparts = K;
	h->vwgt = _xmalloc(nvtx * sizeof(*h->vwgt));
	h->fixed = _xmalloc(nvtx * sizeof(*h->fixed));
	h->vjob = _xmalloc(nvtx * sizeof(*h->vjob));


	for (uint32_t v = 0; v < nvtx; v++) {
		double bytes = 0;

		h->vjob[v] = v;
		h->fixed[v] = v < w->njobs ? -1 : (int32_t)((v - w->njobs) / 3);
		nf = _vfiles(w, v, &vf);
		for (uint32_t i = 0; i < nf; i++) {
			bytes += w->fsize[vf[i]];
			cnt[vf[i]]++;
		}
		/* Anchors may list a file twice: count it once below. */
		h->vwgt[v] = v >= w->njobs && (v - w->njobs) % 3 == 2 ?
				     0 :
				     bytes / 80e6;
	}
	for (uint32_t f = 0; f < w->nfiles; f++) {
		netof[f] = cnt[f] ? nnets++ : UINT32_MAX;
		npins += cnt[f];
	}
	h->nnets = nnets;
	h->xpins = calloc(nnets + 1, sizeof(*h->xpins));
	h->ncost = _xmalloc(nnets * sizeof(*h->ncost));
	h->net_file = _xmalloc(nnets * sizeof(*h->net_file));
	h->pins = _xmalloc(npins * sizeof(*h->pins));
	fill = calloc(nnets + 1, sizeof(*fill));
	if (!h->xpins || !fill)
		exit(1);
	for (uint32_t f = 0; f < w->nfiles; f++)
		if (netof[f] != UINT32_MAX) {
			h->xpins[netof[f] + 1] = cnt[f];
			h->ncost[netof[f]] = w->fsize[f];
			h->net_file[netof[f]] = f;
		}
	for (uint32_t n = 0; n < nnets; n++)
		h->xpins[n + 1] += h->xpins[n];
	for (uint32_t v = 0; v < nvtx; v++) {
		nf = _vfiles(w, v, &vf);
		for (uint32_t i = 0; i < nf; i++) {
			uint32_t n = netof[vf[i]], at = h->xpins[n] + fill[n];

			/* Skip an anchor's repeated file. */
			if (!fill[n] || h->pins[at - 1] != v) {
				h->pins[at] = v;
				fill[n]++;
			}
		}
	}
	/* Compact nets that lost repeated anchor pins. */
	{
		uint32_t k = 0;

		for (uint32_t n = 0; n < nnets; n++) {
			uint32_t s = h->xpins[n];

			h->xpins[n] = k;
			memmove(h->pins + k, h->pins + s,
				fill[n] * sizeof(*h->pins));
			k += fill[n];
		}
		h->xpins[nnets] = k;
	}
	h->part_node = _xmalloc(K * sizeof(*h->part_node));
	for (uint32_t q = 0; q < K; q++)
		h->part_node[q] = q;
	free(cnt);
	free(netof);
	free(fill);
	return h;
}

static void _graph_free(dl_hgraph_t *h)
{
	free(h->vwgt);
	free(h->fixed);
	free(h->vjob);
	free(h->net_file);
	free(h->ncost);
	free(h->xpins);
	free(h->pins);
	free(h->part_node);
	free(h);
}

/* ---- measures ---------------------------------------------------------- */

static double _cut(const dl_hgraph_t *h, const int32_t *part)
{
	uint32_t *stamp = calloc(h->nparts, sizeof(*stamp));
	double cut = 0;

	for (uint32_t n = 0; n < h->nnets; n++) {
		uint32_t lambda = 0;

		for (uint32_t i = h->xpins[n]; i < h->xpins[n + 1]; i++) {
			uint32_t q = (uint32_t)part[h->pins[i]];

			if (stamp[q] != n + 1) {
				stamp[q] = n + 1;
				lambda++;
			}
		}
		if (lambda > 1)
			cut += h->ncost[n] * (lambda - 1);
	}
	free(stamp);
	return cut;
}

/* Random order, each free vertex to the currently lightest part. */
static void _random_balanced(const dl_hgraph_t *h, int32_t *part)
{
	uint32_t *order = _xmalloc(h->nvtx * sizeof(*order));
	double *pw = calloc(h->nparts, sizeof(*pw));

	for (uint32_t v = 0; v < h->nvtx; v++) {
		order[v] = v;
		part[v] = h->fixed[v];
		if (part[v] >= 0)
			pw[part[v]] += h->vwgt[v];
	}
	for (uint32_t v = h->nvtx; v > 1; v--) {
		uint32_t k = _rng() % v, t = order[v - 1];

		order[v - 1] = order[k];
		order[k] = t;
	}
	for (uint32_t i = 0; i < h->nvtx; i++) {
		uint32_t v = order[i], light = 0;

		if (part[v] >= 0)
			continue;
		for (uint32_t q = 1; q < h->nparts; q++)
			if (pw[q] < pw[light])
				light = q;
		part[v] = (int32_t)light;
		pw[light] += h->vwgt[v];
	}
	free(order);
	free(pw);
}

/* ---- driver ------------------------------------------------------------ */

static int verbose;

static void _log(int level, const char *msg, void *arg)
{
	(void)arg;
	/* The deliberately missing helper of the greedy+refine column. */
	if (strstr(msg, "/nonexistent/"))
		return;
	if (verbose || level == DL_LOG_ERROR)
		fprintf(stderr, "  [log] %s\n", msg);
}

static dl_partitioner_t *_partitioner(const char *helper, unsigned nprocs,
				      int refine, int polish)
{
	dl_partition_opts_t o;
	dl_partitioner_t *p;

	dl_partition_opts_default(&o);
	o.helper = helper;
	o.nprocs = nprocs;
	o.timeout_ms = 600000;
	o.refine = refine;
	o.polish = polish;
	p = dl_partitioner_create(&o);
	if (!p) {
		fprintf(stderr, "dl_partitioner_create failed\n");
		exit(1);
	}
	return p;
}

/* One timed run; exits on error.  \return seconds. */
static double _run(dl_partitioner_t *p, const dl_hgraph_t *h,
		   const int32_t *prev, int32_t *part, dl_partition_stats_t *st)
{
	double t = _now();
	int rc = dl_partitioner_run(p, h, prev, part, st);

	if (rc) {
		fprintf(stderr, "dl_partitioner_run: %s\n", dl_strerror(rc));
		exit(1);
	}
	return _now() - t;
}

/* Percentage of the vertices with a previous part that changed part. */
static double _moved(const dl_hgraph_t *h, const int32_t *prev,
		     const int32_t *part)
{
	uint32_t had = 0, moved = 0;

	for (uint32_t v = 0; v < h->nvtx; v++) {
		if (prev[v] < 0 || h->fixed[v] >= 0)
			continue;
		had++;
		moved += prev[v] != part[v];
	}
	return had ? 100.0 * moved / had : 0;
}

/* Start the helper outside the measurement (MPI_Init, greeting). */
static void _warm(dl_partitioner_t *p)
{
	struct workload w;
	dl_hgraph_t *h;
	int32_t *part;
	dl_partition_stats_t st;

	_workload(&w, 64, 4);
	h = _graph(&w);
	part = _xmalloc(h->nvtx * sizeof(*part));
	dl_partitioner_run(p, h, NULL, part, &st);
	free(part);
	_graph_free(h);
	_workload_free(&w);
}

static int _parse_list(const char *s, uint32_t *out, int max)
{
	int n = 0;

	while (*s && n < max) {
		char *end;
		unsigned long v = strtoul(s, &end, 10);

		if (end == s)
			break;
		out[n++] = (uint32_t)v;
		s = *end == ',' ? end + 1 : end;
	}
	return n;
}

/* The partitioners a row compares (owned: _parts_free()). */
typedef struct {
	dl_partitioner_t *raw, *dflt, *repart, *local, *lib, *fallback;
} parts_t;

static void _parts_new(parts_t *p, const char *helper, unsigned nprocs)
{
	p->raw = _partitioner(helper, nprocs, DL_REFINE_NONE, 0);
	p->dflt = _partitioner(helper, nprocs, DL_REFINE_NONE, 1);
	p->repart = _partitioner(helper, nprocs, DL_REFINE_REPART, 1);
	p->local = _partitioner(helper, nprocs, DL_REFINE_LOCAL, 1);
	p->lib = _partitioner(helper, nprocs, DL_REFINE_LIBRARY, 1);
	p->fallback = _partitioner("/nonexistent/dl-partitiond", 1,
				   DL_REFINE_NONE, 1);
	_warm(p->raw);
	_warm(p->dflt);
	_warm(p->repart);
	_warm(p->local);
}

static void _parts_free(parts_t *p)
{
	dl_partitioner_destroy(p->raw);
	dl_partitioner_destroy(p->dflt);
	dl_partitioner_destroy(p->repart);
	dl_partitioner_destroy(p->local);
	dl_partitioner_destroy(p->lib);
	dl_partitioner_destroy(p->fallback);
}

/*
 * One partition of h2 by p, from the parts from (NULL: from scratch):
 * its time, cut, % of the old jobs moved from prev, and whether greedy
 * or Zoltan won.
 */
typedef struct {
	double t, cut, moved;
	char src;
	dl_partition_stats_t st;
} step_t;

static void _step(dl_partitioner_t *p, const dl_hgraph_t *h2,
		  const int32_t *from, const int32_t *prev, int32_t *z2,
		  step_t *o)
{
	o->t = _run(p, h2, from, z2, &o->st);
	o->cut = o->st.cut;
	o->moved = _moved(h2, prev, z2);
	o->src = o->st.greedy_won ? 'g' : 'z';
}

static void _header(void)
{
	printf("cuts in GiB transferred; times in s; "
	       "mv = %% of old jobs moved\n");
	printf("%6s %4s %7s | %6s %7s %5s | %6s %7s %5s %3s | %7s | %7s %6s "
	       "| %7s %6s || %6s %7s %4s | %6s %7s %4s | %6s %7s %4s | "
	       "%6s %7s %4s\n",
	       "jobs", "K", "pins", "zol_s", "zol_cut", "imb", "dflt_s",
	       "dft_cut", "imb", "src", "random", "greedy", "grdy_s",
	       "grd+ref", "g+r_s", "new_s", "new_cut", "mv", "rep_s",
	       "rep_cut", "mv", "ref_s", "ref_cut", "mv", "lib_s", "lib_cut",
	       "mv");
}

/*
 * 5% new jobs added to w (its parts z, of h's vertices); RET the new
 * graph (owned: _graph_free()), *prev its old parts, -1 for the new jobs
 * (malloc'd).
 */
static dl_hgraph_t *_grow(struct workload *w, const int32_t *z,
			  int32_t **prev)
{
	uint32_t oldn = w->njobs;
	dl_hgraph_t *h2;

	_add_jobs(w, w->njobs / 20);
	h2 = _graph(w);
	*prev = _xmalloc(h2->nvtx * sizeof(**prev));
	for (uint32_t v = 0; v < h2->nvtx; v++)
		(*prev)[v] = v < oldn      ? z[v] :
			     v < w->njobs ? -1 :
					    h2->fixed[v];
	return h2;
}

/*
 * One row: njobs jobs in k parts partitioned from scratch by each of p,
 * then re-partitioned with 5% new jobs.  *t_dflt: the default
 * partitioner's time.  RET 0, or 1 if the greedy partitioner failed.
 */
static int _row(const parts_t *p, uint32_t njobs, uint32_t k, double *t_dflt)
{
	struct workload w;
	dl_hgraph_t *h, *h2;
	int32_t *z, *r, *prev, *z2;
	dl_partition_stats_t raw, fb, d;
	double t_raw, t_fb, tg, cg;
	step_t sn, sr, sl, sb;

	_workload(&w, njobs, k);
	h = _graph(&w);
	z = _xmalloc(h->nvtx * sizeof(*z));
	r = _xmalloc(h->nvtx * sizeof(*r));
	t_raw = _run(p->raw, h, NULL, z, &raw);
	if (raw.used_fallback)
		printf("  (helper failed: raw)\n");
	t_fb = _run(p->fallback, h, NULL, r, &fb);
	tg = _now();
	if (dl_partition_greedy(h, 1.1, r))
		return 1;
	tg = _now() - tg;
	cg = _cut(h, r);
	_random_balanced(h, r);
	*t_dflt = _run(p->dflt, h, NULL, z, &d);

	h2 = _grow(&w, z, &prev);
	z2 = _xmalloc(h2->nvtx * sizeof(*z2));
	_step(p->dflt, h2, NULL, prev, z2, &sn);
	_step(p->repart, h2, prev, prev, z2, &sr);
	_step(p->local, h2, prev, prev, z2, &sl);
	_step(p->lib, h2, prev, prev, z2, &sb);

	printf("%6u %4u %7u | %6.2f %7.1f %5.3f | %6.2f %7.1f "
	       "%5.3f %3s | %7.1f | %7.1f %6.3f | %7.1f %6.3f "
	       "|| %6.2f %7.1f %4.0f | %6.2f %7.1f %4.0f%c | "
	       "%6.2f %7.1f %4.0f%c | %6.2f %7.1f %4.0f%s\n",
	       njobs, k, h->xpins[h->nnets], t_raw, raw.cut / GIB,
	       raw.imbalance, *t_dflt, d.cut / GIB, d.imbalance,
	       d.used_fallback ? "FB" :
	       d.greedy_won    ? "g" :
				 "z",
	       _cut(h, r) / GIB, cg / GIB, tg, fb.cut / GIB, t_fb, sn.t,
	       sn.cut / GIB, sn.moved, sr.t, sr.cut / GIB, sr.moved, sr.src,
	       sl.t, sl.cut / GIB, sl.moved, sl.src, sb.t, sb.cut / GIB,
	       sb.moved, sb.st.used_fallback ? "  (FALLBACK)" : "");
	fflush(stdout);
	free(z);
	free(r);
	free(prev);
	free(z2);
	_graph_free(h);
	_graph_free(h2);
	_workload_free(&w);
	return 0;
}

typedef struct {
	uint32_t ns[8], ks[8];
	int nn, nk;
	unsigned nprocs;
	double budget;
	const char *helper;
} opts_t;

/* RET 0, or 2 after printing the usage. */
static int _options(int argc, char **argv, opts_t *o)
{
	int opt;

	while ((opt = getopt(argc, argv, "H:n:k:P:b:s:v")) != -1) {
		switch (opt) {
		case 'H':
			o->helper = optarg;
			break;
		case 'n':
			o->nn = _parse_list(optarg, o->ns, 8);
			break;
		case 'k':
			o->nk = _parse_list(optarg, o->ks, 8);
			break;
		case 'P':
			o->nprocs = (unsigned)atoi(optarg);
			break;
		case 'b':
			o->budget = atof(optarg);
			break;
		case 's':
			rng_state = strtoull(optarg, NULL, 0) | 1;
			break;
		case 'v':
			verbose = 1;
			break;
		default:
			fprintf(stderr, "usage: %s [-H helper] [-n 1000,...] "
					"[-k 16,...] [-P nprocs] [-b budget] "
					"[-s seed] [-v]\n",
				argv[0]);
			return 2;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	opts_t o = { .ns = { 1000, 10000, 100000 }, .ks = { 16, 64, 256 },
		     .nn = 3, .nk = 3, .nprocs = 1, .budget = 60,
		     .helper = getenv("DL_PARTITIOND") };
	double last_time[8] = { 0 }, predict;
	parts_t p;

	if (_options(argc, argv, &o))
		return 2;
	dl_log_set(_log, NULL);
	_parts_new(&p, o.helper, o.nprocs);
	_header();
	for (int a = 0; a < o.nn; a++) {
		for (int b = 0; b < o.nk; b++) {
			/* Skip what the last size predicts to be too slow. */
			predict = a > 0 ? last_time[b] * o.ns[a] /
						  o.ns[a - 1] * 1.5 :
					  0;
			if (last_time[b] > 0 && a > 0 && predict > o.budget) {
				printf("%6u %4u   skipped: about %.0f s per "
				       "run predicted, over the %.0f s "
				       "budget\n",
				       o.ns[a], o.ks[b], predict, o.budget);
				continue;
			}
			if (_row(&p, o.ns[a], o.ks[b], &last_time[b]))
				return 1;
		}
	}
	_parts_free(&p);
	return 0;
}
