/* metrics.c - metrics of a run and their output; see metrics.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dl_error.h"
#include "metrics.h"

static int _cmp_double(const void *a, const void *b)
{
	double x = *(const double *) a, y = *(const double *) b;

	return (x > y) - (x < y);
}

/* The q-quantile of sorted v[0..n-1], by linear interpolation. */
static double _quantile(const double *v, size_t n, double q)
{
	double pos, frac;
	size_t i;

	if (!n)
		return 0.0;
	pos = q * (double) (n - 1);
	i = (size_t) floor(pos);
	frac = pos - (double) i;
	if (i + 1 >= n)
		return v[n - 1];
	return v[i] + frac * (v[i + 1] - v[i]);
}

/* The sums over the completed jobs, and the span of the arrivals. */
typedef struct {
	double *resp, *wait, *slow; /* [n] per completed job */
	size_t n;
	double first, last_arr, last_end, ideal_end;
	double sum_resp, sum_wait, sum_slow, sum_exec, sum_mu, sum_y;
	double held, cpu;
	uint64_t bytes;
} _sums_t;

/* Every job of r into su (its arrays sized r->njobs). */
static void _sum_jobs(const dl_sim_result_t *r, _sums_t *su)
{
	size_t i;
	int have = 0;

	for (i = 0; i < r->njobs; i++) {
		const dl_sim_job_t *j = &r->jobs[i];
		double mu = j->read + j->compute, exec;
		size_t n = su->n;

		if (!i || j->arrival < su->first)
			su->first = j->arrival;
		if (!i || j->arrival > su->last_arr)
			su->last_arr = j->arrival;
		if (!i || j->arrival + mu > su->ideal_end)
			su->ideal_end = j->arrival + mu;
		if (j->completions != 1)
			continue;
		exec = j->end - j->start;
		su->resp[n] = j->end - j->arrival;
		su->wait[n] = j->start - j->arrival;
		/* A job that took no time cannot be slowed down. */
		su->slow[n] = exec > 0 ? su->resp[n] / exec : 1.0;
		su->sum_resp += su->resp[n];
		su->sum_wait += su->wait[n];
		su->sum_slow += su->slow[n];
		su->sum_exec += exec;
		su->sum_mu += mu;
		su->sum_y += j->end - j->dispatch;
		su->held += (j->end - j->dispatch) * j->cpus;
		su->cpu += j->compute * j->cpus;
		su->bytes += j->bytes;
		if (!have || j->end > su->last_end)
			su->last_end = j->end;
		have = 1;
		su->n++;
	}
}

/* Means, quantiles (the arrays get sorted), makespan and utilisations. */
static void _response(const dl_sim_result_t *r, _sums_t *su,
		      dl_metrics_t *m)
{
	size_t n = su->n;

	m->jobs = r->njobs;
	m->completed = n;
	if (n) {
		m->resp_mean = su->sum_resp / (double) n;
		m->wait_mean = su->sum_wait / (double) n;
		m->slowdown_mean = su->sum_slow / (double) n;
		m->exec_mean = su->sum_exec / (double) n;
		qsort(su->resp, n, sizeof(*su->resp), _cmp_double);
		qsort(su->wait, n, sizeof(*su->wait), _cmp_double);
		qsort(su->slow, n, sizeof(*su->slow), _cmp_double);
		m->resp_median = _quantile(su->resp, n, 0.5);
		m->resp_p95 = _quantile(su->resp, n, 0.95);
		m->resp_max = su->resp[n - 1];
		m->wait_median = _quantile(su->wait, n, 0.5);
		m->wait_p95 = _quantile(su->wait, n, 0.95);
		m->slowdown_median = _quantile(su->slow, n, 0.5);
		m->makespan = su->last_end - su->first;
	}
	if (m->makespan > 0) {
		m->throughput = (double) n / m->makespan;
		m->throughput_bytes = (double) su->bytes / m->makespan;
		if (r->slots) {
			m->slot_util = su->held / (r->slots * m->makespan);
			m->cpu_util = su->cpu / (r->slots * m->makespan);
		}
		if (r->storage)
			m->storage_util =
				r->storage_busy / (r->storage * m->makespan);
		m->storage_util_max = r->storage_busy_max / m->makespan;
	}
	if (r->remote_transfers) {
		m->storage_queue_mean =
			r->storage_queued / (double) r->remote_transfers;
	}
}

/* data-diffusion-raicu's efficiencies: §4.3's and §5's. */
static void _efficiency(const dl_sim_result_t *r, const _sums_t *su,
			dl_metrics_t *m)
{
	if (su->n && r->slots) {
		double T = r->slots, K = (double) su->n, V, W, inv_a;

		m->eff_B = su->sum_mu / K;
		m->eff_Y = su->sum_y / K;
		m->eff_A = su->last_arr > su->first ?
				   K / (su->last_arr - su->first) :
				   INFINITY;
		inv_a = isfinite(m->eff_A) ? 1.0 / m->eff_A : 0.0;
		V = fmax(m->eff_B / T, inv_a) * K;
		W = fmax(m->eff_Y / T, inv_a) * K;
		m->efficiency = W > 0 ? V / W : 1.0;
		m->speedup = m->efficiency * T;
	}
	m->wet_ideal = su->ideal_end - su->first;
	m->wet_slowdown = m->wet_ideal > 0 ? m->makespan / m->wet_ideal : 0.0;
	/* §5: efficiency as ideal over actual run time; unlike §4.3's it
	 * falls when jobs wait, even if arrivals bound the run. */
	m->efficiency_wet = m->makespan > 0 ? m->wet_ideal / m->makespan : 0.0;
}

/* The counters r carries as they are. */
static void _counters(const dl_sim_result_t *r, dl_metrics_t *m)
{
	m->accesses = r->accesses;
	if (r->accesses) {
		m->hit_local_pct = 100.0 * (double) r->hit_local / r->accesses;
		m->hit_peer_pct = 100.0 * (double) r->hit_peer / r->accesses;
		m->miss_pct = 100.0 * (double) r->miss / r->accesses;
	}
	m->remote_transfers = r->remote_transfers;
	m->remote_bytes = r->remote_bytes;
	m->peer_transfers = r->peer_transfers;
	m->peer_bytes = r->peer_bytes;
	m->evictions = r->evictions;
	m->bypass = r->bypass;
	m->fallback_plans = r->fallback_plans;
	m->plans = r->plans;
	m->carried = r->carried;
	m->restricted = r->place.set;
	m->moved = r->place.moved;
	m->widened = r->place.widened;
	m->plan_total = r->plan_seconds;
	m->plan_mean = r->plans ? r->plan_seconds / (double) r->plans : 0.0;
	m->plan_max = r->plan_seconds_max;
	m->max_pending = r->max_pending;
	m->node_seconds = r->node_seconds;
	m->cpu_hours = dl_prov_cpu_hours(r->node_seconds, r->nodes ?
					 r->slots / r->nodes : 0);
	m->allocations = r->allocations;
	m->releases = r->releases;
	m->peak_nodes = r->peak_nodes;
	m->copies = r->copies;
	m->copies_done = r->copies_done;
	m->copies_dropped = r->copies_dropped;
	m->copy_bytes = r->copy_bytes;
	m->copy_bytes_peer = r->copy_bytes_peer;
	m->events = r->events;
	m->wall = r->wall_seconds;
}

int dl_metrics_compute(const dl_sim_result_t *r, dl_metrics_t *m)
{
	_sums_t su = { 0 };
	size_t nj;
	int rc = DL_ENOMEM;

	if (!r || !m)
		return DL_EINVAL;
	memset(m, 0, sizeof(*m));
	nj = r->njobs ? r->njobs : 1;
	su.resp = malloc(nj * sizeof(*su.resp));
	su.wait = malloc(nj * sizeof(*su.wait));
	su.slow = malloc(nj * sizeof(*su.slow));
	if (su.resp && su.wait && su.slow) {
		_sum_jobs(r, &su);
		_response(r, &su, m);
		_counters(r, m);
		_efficiency(r, &su, m);
		rc = 0;
	}
	free(su.resp);
	free(su.wait);
	free(su.slow);
	return rc;
}

char *dl_metrics_fmt_bytes(double bytes, char *buf, size_t len)
{
	static const char *const unit[] = { "B",   "KiB", "MiB",
					    "GiB", "TiB", "PiB" };
	int u = 0;

	while (fabs(bytes) >= 1024.0 && u < 5) {
		bytes /= 1024.0;
		u++;
	}
	if (u)
		snprintf(buf, len, "%.1f %s", bytes, unit[u]);
	else
		snprintf(buf, len, "%.0f B", bytes);
	return buf;
}

static const char *_kv(const dl_kv_t *kv, size_t nkv, const char *key)
{
	size_t i;

	for (i = 0; i < nkv; i++)
		if (!strcmp(kv[i].key, key))
			return kv[i].val;
	return "";
}

/* The agent's prefetch, only when on: summaries without it are as were. */
static void _print_prefetch(FILE *out, const dl_kv_t *kv, size_t nkv)
{
	const char *n = _kv(kv, nkv, "prefetch");
	const char *b = _kv(kv, nkv, "prefetch_budget");
	char buf[32];

	if (!*n || !strcmp(n, "0"))
		return;
	if (strcmp(b, "unlimited"))
		b = dl_metrics_fmt_bytes(strtod(b, NULL), buf, sizeof(buf));
	fprintf(out,
		"prefetch  the plugin's agent: %s jobs per node, budget %s%s\n",
		n, b, strcmp(b, "unlimited") ? " per node" : "");
}

void dl_metrics_print(FILE *out, const dl_kv_t *kv, size_t nkv,
		      const dl_metrics_t *m)
{
	char b1[32], b2[32], b3[32];

	fprintf(out, "policy    %s%s%s\n", _kv(kv, nkv, "policy"),
		*_kv(kv, nkv, "policy_params") ? " " : "",
		_kv(kv, nkv, "policy_params"));
	fprintf(out, "workload  %s\n", _kv(kv, nkv, "workload_desc"));
	fprintf(out, "platform  %s\n", _kv(kv, nkv, "platform_desc"));
	fprintf(out,
		"jobs      %zu completed of %zu, makespan %.2f s, throughput %.3f jobs/s (%s/s)\n",
		m->completed, m->jobs, m->makespan, m->throughput,
		dl_metrics_fmt_bytes(m->throughput_bytes, b1, sizeof(b1)));
	fprintf(out,
		"response  mean %.3f s   median %.3f   p95 %.3f   max %.3f\n",
		m->resp_mean, m->resp_median, m->resp_p95, m->resp_max);
	fprintf(out, "wait      mean %.3f s   median %.3f   p95 %.3f\n",
		m->wait_mean, m->wait_median, m->wait_p95);
	fprintf(out,
		"slowdown  mean %.3f     median %.3f   (response / exec, exec mean %.3f s)\n",
		m->slowdown_mean, m->slowdown_median, m->exec_mean);
	fprintf(out,
		"accesses  %llu: local %.1f%%  peer %.1f%%  miss %.1f%%   evictions %llu, bypass %llu\n",
		(unsigned long long) m->accesses, m->hit_local_pct,
		m->hit_peer_pct, m->miss_pct, (unsigned long long) m->evictions,
		(unsigned long long) m->bypass);
	fprintf(out,
		"transfers remote %llu (%s)   peer %llu (%s)   storage busy %.1f%% (busiest node %.1f%%, queued %.3f s per transfer)\n",
		(unsigned long long) m->remote_transfers,
		dl_metrics_fmt_bytes((double) m->remote_bytes, b2, sizeof(b2)),
		(unsigned long long) m->peer_transfers,
		dl_metrics_fmt_bytes((double) m->peer_bytes, b3, sizeof(b3)),
		100.0 * m->storage_util, 100.0 * m->storage_util_max,
		m->storage_queue_mean);
	fprintf(out, "util      slots %.1f%%   cpu %.1f%%\n",
		100.0 * m->slot_util, 100.0 * m->cpu_util);
	fprintf(out,
		"model     efficiency (s5: ideal / actual WET) %.3f   ideal WET %.1f s, slowdown %.2f\n",
		m->efficiency_wet, m->wet_ideal, m->wet_slowdown);
	fprintf(out,
		"          efficiency (s4.3) %.3f  speedup %.2f  (A %.3f/s, B %.3f s, Y %.3f s)\n",
		m->efficiency, m->speedup, m->eff_A, m->eff_B, m->eff_Y);
	fprintf(out,
		"policy    %zu plans (+%zu carried) in %.3f s: mean %.3f ms, max %.3f ms\n",
		m->plans, m->carried, m->plan_total, 1e3 * m->plan_mean,
		1e3 * m->plan_max);
	if (m->fallback_plans)
		fprintf(out,
			"FALLBACK  %zu of %zu plans made by a fallback method, not by %s\n",
			m->fallback_plans, m->plans, _kv(kv, nkv, "policy"));
	if (!strcmp(_kv(kv, nkv, "dispatch"), "plan"))
		fprintf(out, "dispatch  plan: each node in plan order\n");
	else
		fprintf(out,
			"dispatch  %s: priority order, %zu jobs restricted, %zu moved, %zu widened\n",
			_kv(kv, nkv, "dispatch"), m->restricted, m->moved,
			m->widened);
	_print_prefetch(out, kv, nkv);
	fprintf(out,
		"nodes     %.2f CPU hours (%.0f node s), peak %u, %llu allocated, %llu released\n",
		m->cpu_hours, m->node_seconds, m->peak_nodes,
		(unsigned long long) m->allocations,
		(unsigned long long) m->releases);
	if (m->copies || m->copies_dropped)
		fprintf(out,
			"copies    %llu begun (%s), %llu done, %llu dropped\n",
			(unsigned long long) m->copies,
			dl_metrics_fmt_bytes((double) m->copy_bytes, b2,
					     sizeof(b2)),
			(unsigned long long) m->copies_done,
			(unsigned long long) m->copies_dropped);
	fprintf(out, "sim       %llu events, queue max %zu, %.2f s wall\n",
		(unsigned long long) m->events, m->max_pending, m->wall);
}

/* The metric columns, in CSV and JSON order. */
#define METRIC_COLUMNS(X) \
	X(jobs, "%zu", m->jobs) \
	X(completed, "%zu", m->completed) \
	X(resp_mean, "%.6f", m->resp_mean) \
	X(resp_median, "%.6f", m->resp_median) \
	X(resp_p95, "%.6f", m->resp_p95) \
	X(resp_max, "%.6f", m->resp_max) \
	X(wait_mean, "%.6f", m->wait_mean) \
	X(wait_median, "%.6f", m->wait_median) \
	X(wait_p95, "%.6f", m->wait_p95) \
	X(slowdown_mean, "%.6f", m->slowdown_mean) \
	X(slowdown_median, "%.6f", m->slowdown_median) \
	X(exec_mean, "%.6f", m->exec_mean) \
	X(makespan, "%.6f", m->makespan) \
	X(throughput, "%.6f", m->throughput) \
	X(throughput_bytes, "%.0f", m->throughput_bytes) \
	X(accesses, "%llu", (unsigned long long) m->accesses) \
	X(hit_local_pct, "%.4f", m->hit_local_pct) \
	X(hit_peer_pct, "%.4f", m->hit_peer_pct) \
	X(miss_pct, "%.4f", m->miss_pct) \
	X(remote_transfers, "%llu", (unsigned long long) m->remote_transfers) \
	X(remote_bytes, "%llu", (unsigned long long) m->remote_bytes) \
	X(peer_transfers, "%llu", (unsigned long long) m->peer_transfers) \
	X(peer_bytes, "%llu", (unsigned long long) m->peer_bytes) \
	X(evictions, "%llu", (unsigned long long) m->evictions) \
	X(bypass, "%llu", (unsigned long long) m->bypass) \
	X(slot_util, "%.6f", m->slot_util) \
	X(cpu_util, "%.6f", m->cpu_util) \
	X(storage_util, "%.6f", m->storage_util) \
	X(efficiency, "%.6f", m->efficiency) \
	X(speedup, "%.6f", m->speedup) \
	X(arrival_rate, "%.6f", m->eff_A) \
	X(task_time_B, "%.6f", m->eff_B) \
	X(task_time_Y, "%.6f", m->eff_Y) \
	X(wet_ideal, "%.6f", m->wet_ideal) \
	X(wet_slowdown, "%.6f", m->wet_slowdown) \
	X(efficiency_wet, "%.6f", m->efficiency_wet) \
	X(plans, "%zu", m->plans) \
	X(fallback_plans, "%zu", m->fallback_plans) \
	X(plans_carried, "%zu", m->carried) \
	X(plan_seconds, "%.6f", m->plan_total) \
	X(plan_mean_ms, "%.6f", 1e3 * m->plan_mean) \
	X(plan_max_ms, "%.6f", 1e3 * m->plan_max) \
	X(restricted, "%zu", m->restricted) \
	X(moved, "%zu", m->moved) \
	X(widened, "%zu", m->widened) \
	X(max_pending, "%zu", m->max_pending) \
	X(events, "%llu", (unsigned long long) m->events) \
	X(wall_seconds, "%.3f", m->wall) \
	X(node_seconds, "%.3f", m->node_seconds) \
	X(cpu_hours, "%.6f", m->cpu_hours) \
	X(allocations, "%llu", (unsigned long long) m->allocations) \
	X(releases, "%llu", (unsigned long long) m->releases) \
	X(peak_nodes, "%u", m->peak_nodes) \
	X(copies, "%llu", (unsigned long long) m->copies) \
	X(copies_done, "%llu", (unsigned long long) m->copies_done) \
	X(copies_dropped, "%llu", (unsigned long long) m->copies_dropped) \
	X(copy_bytes, "%llu", (unsigned long long) m->copy_bytes) \
	X(copy_bytes_peer, "%llu", (unsigned long long) m->copy_bytes_peer)

/* Descriptions ("..._desc") are for the summary, not for tables. */
static int _skip(const char *key)
{
	size_t n = strlen(key);

	return n >= 5 && !strcmp(key + n - 5, "_desc");
}

/* A CSV field: quoted when it holds a comma, a quote or a newline. */
static void _csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

int dl_metrics_csv_append(const char *path, const dl_kv_t *kv, size_t nkv,
			  const dl_metrics_t *m)
{
	struct stat sb;
	int header = stat(path, &sb) != 0 || sb.st_size == 0;
	FILE *f = fopen(path, "a");
	size_t i;
	int first = 1;

	if (!f)
		return DL_EIO;
	if (header) {
		for (i = 0; i < nkv; i++) {
			if (_skip(kv[i].key))
				continue;
			fprintf(f, "%s%s", first ? "" : ",", kv[i].key);
			first = 0;
		}
#define X_HEAD(name, fmt, expr) \
	fprintf(f, "%s" #name, first ? "" : ","), first = 0;
		METRIC_COLUMNS(X_HEAD)
#undef X_HEAD
		fputc('\n', f);
	}
	first = 1;
	for (i = 0; i < nkv; i++) {
		if (_skip(kv[i].key))
			continue;
		if (!first)
			fputc(',', f);
		_csv_field(f, kv[i].val);
		first = 0;
	}
#define X_ROW(name, fmt, expr) \
	fprintf(f, "%s" fmt, first ? "" : ",", expr), first = 0;
	METRIC_COLUMNS(X_ROW)
#undef X_ROW
	fputc('\n', f);
	return fclose(f) ? DL_EIO : 0;
}

static void _json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char) *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* A number for JSON: non-finite values become null. */
static void _json_num(FILE *f, const char *fmt, double v)
{
	if (isfinite(v))
		fprintf(f, fmt, v);
	else
		fputs("null", f);
}

int dl_metrics_json_append(const char *path, const dl_kv_t *kv, size_t nkv,
			   const dl_metrics_t *m)
{
	FILE *f = fopen(path, "a");
	size_t i;
	int first = 1;

	if (!f)
		return DL_EIO;
	fputs("{\"run\":{", f);
	for (i = 0; i < nkv; i++) {
		if (_skip(kv[i].key))
			continue;
		if (!first)
			fputc(',', f);
		first = 0;
		_json_str(f, kv[i].key);
		fputc(':', f);
		_json_str(f, kv[i].val);
	}
	fputs("},\"metrics\":{", f);
	first = 1;
#define X_JSON(name, fmt, expr) \
	fprintf(f, "%s\"" #name "\":", first ? "" : ","); \
	first = 0; \
	_json_num(f, "%.17g", (double) (expr));
	METRIC_COLUMNS(X_JSON)
#undef X_JSON
	fputs("}}\n", f);
	return fclose(f) ? DL_EIO : 0;
}

int dl_metrics_jobs_csv(const char *path, const dl_sim_result_t *r)
{
	FILE *f = fopen(path, "w");
	size_t i;

	if (!f)
		return DL_EIO;
	fputs("id,node,cpus,arrival,dispatch,start,staged,end,response,wait,"
	      "read,compute,nfiles,hit_local,hit_peer,miss,bypass,bytes,"
	      "bytes_remote,bytes_peer\n",
	      f);
	for (i = 0; i < r->njobs; i++) {
		const dl_sim_job_t *j = &r->jobs[i];

		fprintf(f,
			"%u,%d,%u,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%u,%u,%u,%u,%u,%llu,%llu,%llu\n",
			j->id, j->node, j->cpus, j->arrival, j->dispatch,
			j->start, j->staged, j->end,
			j->completions ? j->end - j->arrival : -1.0,
			j->completions ? j->start - j->arrival : -1.0, j->read,
			j->compute, j->nfiles, j->hit_local, j->hit_peer,
			j->miss, j->bypass, (unsigned long long) j->bytes,
			(unsigned long long) j->bytes_remote,
			(unsigned long long) j->bytes_peer);
	}
	return fclose(f) ? DL_EIO : 0;
}
