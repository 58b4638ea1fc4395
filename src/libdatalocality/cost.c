/* cost.c - the cost model of online-hps-khanna section 4.2; see dl_cost.h. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "dl_cost.h"
#include "dl_error.h"

/*
 * Seconds per unit for a bandwidth: a bandwidth that is not a positive
 * number is infinite, so that a host can switch a term off with 0.
 */
static double _inv(double bw)
{
	return (bw > 0 && isfinite(bw)) ? 1.0 / bw : 0.0;
}

/* The local-disk bandwidth of node: its own if set, else the default. */
static double _node_lbw(const dl_state_t *st, uint32_t node)
{
	if (node < st->nnodes && st->nodes[node].lbw > 0)
		return st->nodes[node].lbw;
	return st->params.lbw;
}

double dl_cost_transfer_per_byte(const dl_params_t *p, uint32_t sharers,
				 uint32_t nparts)
{
	double fne, fe, inv;

	if (!p)
		return 0.0;
	inv = _inv(p->rbw);
	fne = 1.0 / (sharers ? sharers : 1);
	fe = 1.0 / (nparts ? nparts : 1);
	/* eq. 5 in online-hps-khanna */
	return fne * inv + (1.0 - fne) * (1.0 - fe) * inv;
}

double dl_cost_job_estimate(const dl_state_t *st, const dl_job_t *j,
			    const uint32_t *sharers, uint32_t nparts)
{
	double total = 0.0, per_byte_local, cpb;
	uint32_t i;

	if (!st || !j)
		return 0.0;
	per_byte_local = _inv(st->params.lbw);
	cpb = j->compute >= 0 ? 0.0 : st->params.cpb;
	for (i = 0; i < j->nfiles; i++) {
		uint32_t f = j->files[i];
		double size = (double)dl_file_bytes(st, f);
		double tr = dl_cost_transfer_per_byte(
			&st->params, sharers ? sharers[f] : 1, nparts);

		/* eq. 6 in online-hps-khanna */
		total += size * (tr + per_byte_local + cpb);
	}
	if (j->compute >= 0)
		total += j->compute;
	return total;
}

/* A count's top bit: its file was counted for the job being counted. */
#define SHARER_SEEN 0x80000000u

int dl_cost_sharers(const dl_state_t *st, uint32_t **out)
{
	uint32_t nf, *count, k;
	size_t i;

	if (!st || !out)
		return DL_EINVAL;
	nf = dl_cache_file_count(st->cache);
	/* One array: no second one to tell a job's repeated files (this
	 * runs twice per plan, for a few thousand files). */
	count = calloc(nf ? nf : 1, sizeof(*count));
	if (!count)
		return DL_ENOMEM;
	for (i = 0; i < st->njobs; i++) {
		const dl_job_t *j = &st->jobs[i];

		if (j->state != DL_JOB_PENDING)
			continue;
		for (k = 0; k < j->nfiles; k++) {
			uint32_t f = j->files[k], c;

			if (f >= nf || ((c = count[f]) & SHARER_SEEN))
				continue;
			/* Saturating below the bit (2^31 jobs: never). */
			count[f] = (c + (c < SHARER_SEEN - 1)) | SHARER_SEEN;
		}
		for (k = 0; k < j->nfiles; k++)
			if (j->files[k] < nf)
				count[j->files[k]] &= ~SHARER_SEEN;
	}
	*out = count;
	return 0;
}

double dl_cost_job_compute(const dl_state_t *st, const dl_job_t *j)
{
	if (!st || !j)
		return 0.0;
	if (j->compute >= 0)
		return j->compute;
	return st->params.cpb * (double)dl_job_bytes(st, j);
}

void dl_runtime_learn(double *mean, double seconds)
{
	if (!mean || !(seconds >= 0))
		return;
	if (*mean < 0)
		*mean = seconds;
	else
		*mean += DL_RUNTIME_ALPHA * (seconds - *mean);
}

double dl_runtime_estimate(double mean, double limit)
{
	if (mean < 0)
		return limit;
	return limit > 0 && limit < mean ? limit : mean;
}

double dl_runtime_running(double estimate, double elapsed)
{
	if (estimate > 0)
		return estimate;
	if (!(elapsed > 0))
		elapsed = 0.0; /* a start in the future (clock skew) or NaN */
	return elapsed + fmax(elapsed, DL_RUNTIME_RUNNING_MIN);
}

double dl_cost_read_time(const dl_state_t *st, uint32_t node, uint64_t bytes)
{
	if (!st)
		return 0.0;
	return (double)bytes * _inv(_node_lbw(st, node));
}

double dl_cost_transfer_time(const dl_state_t *st, uint64_t bytes)
{
	if (!st)
		return 0.0;
	return (double)bytes * _inv(st->params.rbw);
}

double dl_cost_job_on_node(const dl_state_t *st, const dl_job_t *j,
			   uint32_t node)
{
	uint64_t all = 0, remote = 0;
	uint32_t i;

	if (!st || !j)
		return 0.0;
	for (i = 0; i < j->nfiles; i++) {
		uint64_t b = dl_file_bytes(st, j->files[i]);

		all += b;
		if (!dl_cache_contains(st->cache, node, j->files[i]))
			remote += b;
	}
	return dl_cost_transfer_time(st, remote) +
	       dl_cost_read_time(st, node, all) + dl_cost_job_compute(st, j);
}

double dl_cost_job_remaining(const dl_state_t *st, const dl_job_t *j)
{
	double exec, ran;

	if (!st || !j || j->node < 0 || (uint32_t)j->node >= st->nnodes)
		return 0.0;
	if (st->remaining && (uintptr_t)j >= (uintptr_t)st->jobs &&
	    (uintptr_t)j < (uintptr_t)(st->jobs + st->njobs))
		return st->remaining[j - st->jobs];
	exec = dl_cost_job_on_node(st, j, (uint32_t)j->node);
	ran = st->now - j->start;
	if (!(ran > 0))
		ran = 0.0; /* a start in the future (clock skew) or NaN */
	return exec > ran ? exec - ran : 0.0;
}

uint32_t dl_cost_storage_of(const dl_state_t *st, uint32_t file)
{
	if (!st)
		return 0;
	return file % (st->params.nstorage ? st->params.nstorage : 1);
}

static int _end_cmp(const void *a, const void *b)
{
	const dl_cost_end_t *x = a, *y = b;

	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	return (x->left > y->left) - (x->left < y->left);
}

int dl_cost_ends(const dl_state_t *st, dl_cost_end_t **out, size_t *n)
{
	dl_cost_end_t *e;
	size_t i, k = 0;

	if (!st || !out || !n)
		return DL_EINVAL;
	if (!(e = malloc((st->njobs ? st->njobs : 1) * sizeof(*e))))
		return DL_ENOMEM;
	for (i = 0; i < st->njobs; i++) {
		const dl_job_t *j = &st->jobs[i];

		if (j->state != DL_JOB_RUNNING || j->node < 0 ||
		    (uint32_t)j->node >= st->nnodes)
			continue;
		e[k].node = (uint32_t)j->node;
		e[k].cpus = j->cpus;
		e[k].left = dl_cost_job_remaining(st, j);
		k++;
	}
	qsort(e, k, sizeof(*e), _end_cmp);
	*out = e;
	*n = k;
	return 0;
}

/* The first entry of node n in sorted ends (nends if none). */
static size_t _first_end(const dl_cost_end_t *ends, size_t nends, uint32_t n)
{
	size_t lo = 0, hi = nends;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ends[mid].node < n)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Seconds until n has cpus free slots, its jobs ending as ends says. */
static double _slots_free(const dl_node_t *nd, uint32_t n, uint32_t cpus,
			  const dl_cost_end_t *ends, size_t nends)
{
	/* Signed: a node may be oversubscribed (busy above cpus). */
	int64_t held = nd->busy;
	size_t i;

	if ((int64_t)nd->cpus - held >= (int64_t)cpus)
		return 0.0;
	for (i = _first_end(ends, nends, n); i < nends && ends[i].node == n;
	     i++) {
		held -= ends[i].cpus;
		if ((int64_t)nd->cpus - held >= (int64_t)cpus)
			return ends[i].left;
	}
	return INFINITY;
}

double dl_cost_node_wait(const dl_state_t *st, uint32_t n, uint32_t cpus,
			 const dl_cost_end_t *ends, size_t nends)
{
	dl_cost_end_t *own = NULL;
	const dl_node_t *nd;
	double slots, wake;

	if (!st)
		return 0.0;
	if (n >= st->nnodes || !st->nodes[n].usable ||
	    st->nodes[n].cpus < (cpus ? cpus : 1))
		return INFINITY;
	nd = &st->nodes[n];
	wake = nd->wake > 0 && !isnan(nd->wake) ? nd->wake : 0.0;
	if (!ends && nd->cpus > nd->busy && nd->cpus - nd->busy >= cpus)
		return wake; /* room now: no need to look at its jobs */
	if (!ends && dl_cost_ends(st, &own, &nends))
		return INFINITY; /* out of memory: as if it never freed */
	slots = _slots_free(nd, n, cpus ? cpus : 1, ends ? ends : own, nends);
	free(own);
	return slots > wake ? slots : wake;
}

double dl_cost_job_ready(const dl_state_t *st, const dl_job_t *j, uint32_t n,
			 const dl_cost_end_t *ends, size_t nends)
{
	uint64_t missing = 0;
	uint32_t i;

	if (!st || !j)
		return 0.0;
	for (i = 0; i < j->nfiles; i++)
		if (!dl_cache_contains(st->cache, n, j->files[i]))
			missing += dl_file_bytes(st, j->files[i]);
	return dl_cost_node_wait(st, n, j->cpus, ends, nends) +
	       dl_cost_transfer_time(st, missing);
}
