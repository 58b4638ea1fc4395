/*
 * cli_stats.c - sdatalocality stats: the scheduler's counters, as sdiag
 * shows them for Slurm's own schedulers, and the cache hits of all nodes
 * together; see cli.h.
 *
 * The counters come from the state file's stats line, which only a
 * version-2 file written by a plugin that keeps them has.  Without it the
 * cache figures, summed from the node records every version has, are
 * still shown.  The node services' figures (bytes from storage and from
 * peers, prefetches) come from the service lines of a version-3 file.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* The job counters, in the order they are shown. */
static const struct {
	const char *key, *label;
	size_t off;
} job_counters[] = {
	{ "placed", "Jobs placed", offsetof(dl_sched_stats_t, placed) },
	{ "moved", "Moved to a better node",
	  offsetof(dl_sched_stats_t, moved) },
	{ "widened", "Widened after the wait bound",
	  offsetof(dl_sched_stats_t, widened) },
	{ "started_planned", "Started on the planned node",
	  offsetof(dl_sched_stats_t, started_planned) },
	{ "started_widened", "Started elsewhere, widened",
	  offsetof(dl_sched_stats_t, started_widened) },
	{ "started_unplaced", "Started without placement",
	  offsetof(dl_sched_stats_t, started_unplaced) },
};

#define NJOB_COUNTERS (sizeof(job_counters) / sizeof(job_counters[0]))
/* The width of the longest label and its colon, for aligned values. */
#define LABEL_W 30

typedef struct {
	uint64_t hits, misses, hit_bytes, miss_bytes;
} hits_t;

static uint64_t _counter(const dl_sched_stats_t *st, size_t i)
{
	return *(const uint64_t *)((const char *)st + job_counters[i].off);
}

/* The hit counters of all nodes together. */
static hits_t _sum_hits(const dl_cli_state_t *s)
{
	hits_t h = { 0 };
	size_t i;

	for (i = 0; i < s->nnodes; i++) {
		h.hits += s->nodes[i].hits;
		h.misses += s->nodes[i].misses;
		h.hit_bytes += s->nodes[i].hit_bytes;
		h.miss_bytes += s->nodes[i].miss_bytes;
	}
	return h;
}

static void _label(const char *label)
{
	printf("\t%s:%*s", label, (int)(LABEL_W - strlen(label) - 1), "");
}

static void _text_sched(const dl_sched_stats_t *st)
{
	char since[64];
	size_t i;

	dl_cli_time(st->since, since, sizeof(since));
	printf("Scheduler counters since %s:\n", since);
	_label("Cycles");
	printf("%" PRIu64 "\n", st->cycles);
	_label("Plans");
	printf("%" PRIu64 "\n", st->plans);
	_label("Plan time (ms)");
	if (st->plans)
		printf("mean %.3f, max %.3f, last %.3f\n",
		       st->plan_sec_total / (double)st->plans * 1e3,
		       st->plan_sec_max * 1e3, st->plan_sec_last * 1e3);
	else
		printf("no plan yet\n");
	for (i = 0; i < NJOB_COUNTERS; i++) {
		_label(job_counters[i].label);
		printf("%" PRIu64 "\n", _counter(st, i));
	}
	_label("Pending jobs placed now");
	printf("%" PRIu32 "\n", st->pending_placed);
}

/* When the file was saved, as the plan's time is shown; "-" if unknown. */
static void _saved(const dl_cli_state_t *s, char *buf, size_t len)
{
	if (s->saved)
		dl_cli_time(strtoll(s->saved, NULL, 10), buf, len);
	else
		snprintf(buf, len, "-");
}

/* "connected since ...", "unknown since ...", "none". */
static void _svc_state(const dl_service_stats_t *v, char *buf, size_t len)
{
	char since[64];

	if (!v->since) {
		snprintf(buf, len, "model from %s, no service",
			 dl_cli_source_name(v->source));
		return;
	}
	dl_cli_time(v->since, since, sizeof(since));
	snprintf(buf, len, "model from %s, service %s since %s",
		 dl_cli_source_name(v->source),
		 v->connected ? "connected" : "disconnected", since);
}

static void _text_services(const dl_cli_state_t *s)
{
	char st[128], used[16], cap[16], sb[16], pb[16];
	uint64_t tsb = 0, tpb = 0;
	size_t i;

	if (s->have_svc <= 0) {
		printf("Node services: not available (%s)\n",
		       s->have_svc ? "the state file's service lines are not ones this sdatalocality can read" :
				     "the state file has none: the plugin that saved it has no node channel");
		return;
	}
	printf("Node services (model source, service, cache, bytes copied, prefetches, replicas):\n");
	for (i = 0; i < s->nnodes; i++) {
		const dl_service_stats_t *v = &s->nodes[i].svc;

		if (!s->nodes[i].have_svc)
			continue;
		_svc_state(v, st, sizeof(st));
		dl_cli_bytes(v->used, used, sizeof(used));
		if (v->capacity == UINT64_MAX)
			snprintf(cap, sizeof(cap), "unlimited");
		else
			dl_cli_bytes(v->capacity, cap, sizeof(cap));
		dl_cli_bytes(v->storage_bytes, sb, sizeof(sb));
		dl_cli_bytes(v->peer_bytes, pb, sizeof(pb));
		printf("\t%s: %s; %" PRIu64 " files, %s of %s; %s from storage, %s from peers; %" PRIu64 " sent, %" PRIu64 " cancelled, %" PRIu64 " done, %" PRIu64 " active; %" PRIu64 " replicas\n",
		       s->nodes[i].name, st, v->files, used, cap, sb, pb,
		       v->prefetch_sent, v->prefetch_cancelled,
		       v->prefetch_done, v->prefetch_active, v->replicas);
		tsb += v->storage_bytes;
		tpb += v->peer_bytes;
	}
	dl_cli_bytes(tsb, sb, sizeof(sb));
	dl_cli_bytes(tpb, pb, sizeof(pb));
	_label("Bytes from storage");
	printf("%" PRIu64 " (%s)\n", tsb, sb);
	_label("Bytes from peers");
	printf("%" PRIu64 " (%s)\n", tpb, pb);
}

/* Nodes not up, and those whose model a power-down emptied. */
static void _text_power(const dl_cli_state_t *s)
{
	char since[64];
	size_t i, k = 0;

	if (s->have_power <= 0) {
		printf("Power saving: not available (%s)\n",
		       s->have_power ? "the state file's power lines are not ones this sdatalocality can read" :
				       "the state file has none: the plugin that saved it does not track power state");
		return;
	}
	printf("Power saving (nodes not up, or whose model a power-down emptied):\n");
	for (i = 0; i < s->nnodes; i++) {
		const dl_power_stats_t *v = &s->nodes[i].power;

		if (!s->nodes[i].have_power ||
		    (v->state == DL_POWER_UP && !v->emptied))
			continue;
		dl_cli_time(v->since, since, sizeof(since));
		printf("\t%s: %s since %s; cache %s at power-down, model emptied %" PRIu64 " times\n",
		       s->nodes[i].name, dl_cli_power_name(v->state),
		       v->since ? since : "-", v->kept ? "kept" : "lost",
		       v->emptied);
		k++;
	}
	if (!k)
		printf("\tevery node up, no model emptied\n");
}

static void _text(const dl_cli_state_t *s, const hits_t *h)
{
	char hb[16], mb[16], saved[64];

	_saved(s, saved, sizeof(saved));
	printf("Data-locality scheduler statistics, saved %s\n", saved);
	if (s->have_sched > 0)
		_text_sched(&s->sched);
	else if (!s->have_sched)
		printf("Scheduler counters: not available (the state file has none: the plugin that saved it does not keep them)\n");
	else
		printf("Scheduler counters: not available (the state file's stats line is not one this sdatalocality can read)\n");
	dl_cli_bytes(h->hit_bytes, hb, sizeof(hb));
	dl_cli_bytes(h->miss_bytes, mb, sizeof(mb));
	printf("Cache, all nodes:\n");
	_label("Hits");
	printf("%" PRIu64 " files, %s served from cache\n", h->hits, hb);
	_label("Misses");
	printf("%" PRIu64 " files, %s fetched\n", h->misses, mb);
	_label("Hit rate");
	if (h->hits + h->misses)
		printf("%.1f%% of files, %.1f%% of bytes\n",
		       dl_cli_pct(h->hits, h->misses),
		       dl_cli_pct(h->hit_bytes, h->miss_bytes));
	else
		printf("- (no job input seen yet)\n");
	_text_services(s);
	_text_power(s);
}

/* ,"key":value or ,"key":null: a JSON reader sees every key, always. */
static void _json_ms(const char *key, int have, double sec)
{
	if (have)
		printf(",\"%s\":%.3f", key, sec * 1e3);
	else
		printf(",\"%s\":null", key);
}

static void _json_u64(const char *key, int have, uint64_t v)
{
	if (have)
		printf(",\"%s\":%" PRIu64, key, v);
	else
		printf(",\"%s\":null", key);
}

static void _json_sched(const dl_cli_state_t *s)
{
	const dl_sched_stats_t *st = &s->sched;
	int have = s->have_sched > 0, planned = have && st->plans;
	char since[64];
	size_t i;

	dl_cli_time(st->since, since, sizeof(since));
	if (have)
		printf(",\"since\":\"%s\"", since);
	else
		printf(",\"since\":null");
	_json_u64("cycles", have, st->cycles);
	_json_u64("plans", have, st->plans);
	/* Without a plan there is no plan time, not a time of 0. */
	_json_ms("plan_ms_mean", planned,
		 planned ? st->plan_sec_total / (double)st->plans : 0);
	_json_ms("plan_ms_max", planned, st->plan_sec_max);
	_json_ms("plan_ms_last", planned, st->plan_sec_last);
	for (i = 0; i < NJOB_COUNTERS; i++)
		_json_u64(job_counters[i].key, have, _counter(st, i));
	_json_u64("pending_placed", have, st->pending_placed);
}

static void _json_node_svc(const dl_cli_node_t *n)
{
	const dl_service_stats_t *v = &n->svc;

	printf("{\"name\":");
	dl_cli_jstr(n->name);
	printf(",\"source\":\"%s\",\"connected\":%s,\"since\":",
	       dl_cli_source_name(v->source), v->connected ? "true" : "false");
	if (v->since)
		printf("%lld", (long long)v->since);
	else
		printf("null");
	printf(",\"files\":%" PRIu64 ",\"used\":%" PRIu64 ",\"capacity\":",
	       v->files, v->used);
	if (v->capacity == UINT64_MAX)
		printf("null");
	else
		printf("%" PRIu64, v->capacity);
	printf(",\"storage_bytes\":%" PRIu64 ",\"peer_bytes\":%" PRIu64
	       ",\"prefetch_sent\":%" PRIu64 ",\"prefetch_cancelled\":%" PRIu64
	       ",\"prefetch_done\":%" PRIu64 ",\"prefetch_active\":%" PRIu64
	       ",\"replicas\":%" PRIu64 "}",
	       v->storage_bytes, v->peer_bytes, v->prefetch_sent,
	       v->prefetch_cancelled, v->prefetch_done, v->prefetch_active,
	       v->replicas);
}

/* ,"storage_bytes":..,"peer_bytes":..,"nodes":[...] or nulls. */
static void _json_services(const dl_cli_state_t *s)
{
	uint64_t tsb = 0, tpb = 0;
	size_t i, k = 0;

	if (s->have_svc <= 0) {
		printf(",\"storage_bytes\":null,\"peer_bytes\":null,\"nodes\":null");
		return;
	}
	for (i = 0; i < s->nnodes; i++) {
		tsb += s->nodes[i].svc.storage_bytes;
		tpb += s->nodes[i].svc.peer_bytes;
	}
	printf(",\"storage_bytes\":%" PRIu64 ",\"peer_bytes\":%" PRIu64
	       ",\"nodes\":[",
	       tsb, tpb);
	for (i = 0; i < s->nnodes; i++) {
		if (!s->nodes[i].have_svc)
			continue;
		printf("%s", k++ ? "," : "");
		_json_node_svc(&s->nodes[i]);
	}
	printf("]");
}

/* ,"power":[{"name":..,"state":..,...}] or null. */
static void _json_power(const dl_cli_state_t *s)
{
	size_t i, k = 0;

	if (s->have_power <= 0) {
		printf(",\"power\":null");
		return;
	}
	printf(",\"power\":[");
	for (i = 0; i < s->nnodes; i++) {
		const dl_power_stats_t *v = &s->nodes[i].power;

		if (!s->nodes[i].have_power)
			continue;
		printf("%s{\"name\":", k++ ? "," : "");
		dl_cli_jstr(s->nodes[i].name);
		printf(",\"state\":\"%s\",\"since\":",
		       dl_cli_power_name(v->state));
		if (v->since)
			printf("%lld", (long long)v->since);
		else
			printf("null");
		printf(",\"cache\":\"%s\",\"emptied\":%" PRIu64 "}",
		       v->kept ? "kept" : "lost", v->emptied);
	}
	printf("]");
}

static void _json(const dl_cli_state_t *s, const hits_t *h)
{
	int seen = h->hits + h->misses > 0;
	char saved[64];

	_saved(s, saved, sizeof(saved));
	if (s->saved)
		printf("{\"saved\":\"%s\"", saved);
	else
		printf("{\"saved\":null");
	_json_sched(s);
	printf(",\"hits\":%" PRIu64 ",\"misses\":%" PRIu64
	       ",\"hit_bytes\":%" PRIu64 ",\"miss_bytes\":%" PRIu64,
	       h->hits, h->misses, h->hit_bytes, h->miss_bytes);
	/* In percent, as the text shows it. */
	if (seen)
		printf(",\"hit_rate\":%.2f,\"byte_hit_rate\":%.2f",
		       dl_cli_pct(h->hits, h->misses),
		       dl_cli_pct(h->hit_bytes, h->miss_bytes));
	else
		printf(",\"hit_rate\":null,\"byte_hit_rate\":null");
	_json_services(s);
	_json_power(s);
	printf("}\n");
}

int dl_cli_show_stats(const dl_cli_state_t *s, const char *arg, int json)
{
	hits_t h = _sum_hits(s);

	(void)arg;
	if (json)
		_json(s, &h);
	else
		_text(s, &h);
	return 0;
}
