/*
 * cli_show.c - sdatalocality's views of the node caches and the last
 * plan: summary, nodes, files, job, plan; see cli.h.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "dl_files.h"

void dl_cli_bytes(uint64_t b, char *buf, size_t len)
{
	dl_files_format_size(b, 0, buf, len);
}

double dl_cli_pct(uint64_t a, uint64_t b)
{
	return a + b ? 100.0 * (double)a / (double)(a + b) : 0.0;
}

/* JSON string: the paths are absolute and blank-free, but be safe. */
void dl_cli_jstr(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

void dl_cli_time(int64_t t, char *buf, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!localtime_r(&tt, &tm) ||
	    !strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm))
		snprintf(buf, len, "-");
}

/* The last plan, without a final newline in JSON: it nests in others. */
static void _plan(const dl_cli_state_t *s, int json)
{
	char when[64];

	if (!s->have_plan) {
		if (json)
			printf("null");
		else
			printf("no plan yet\n");
		return;
	}
	dl_cli_time(strtoll(s->plan[1], NULL, 10), when, sizeof(when));
	if (json) {
		printf("{\"policy\":");
		dl_cli_jstr(s->plan[0]);
		printf(",\"time\":\"%s\",\"cut_bytes\":%s,\"imbalance\":%s,"
		       "\"seconds\":%s,\"jobs\":%s}",
		       when, s->plan[2], s->plan[3], s->plan[4], s->plan[5]);
		return;
	}
	printf("last plan: policy %s at %s, %s jobs, cut %s bytes, imbalance %s, took %.3f ms\n",
	       s->plan[0], when, s->plan[5], s->plan[2], s->plan[3],
	       strtod(s->plan[4], NULL) * 1e3);
}

static void _nodes_json(const dl_cli_state_t *s)
{
	size_t i;

	printf("[");
	for (i = 0; i < s->nnodes; i++) {
		const dl_cli_node_t *n = &s->nodes[i];

		printf("%s{\"name\":", i ? "," : "");
		dl_cli_jstr(n->name);
		printf(",\"files\":%" PRIu64 ",\"used_bytes\":%" PRIu64
		       ",\"capacity_bytes\":%s,\"hits\":%" PRIu64
		       ",\"misses\":%" PRIu64 ",\"hit_bytes\":%" PRIu64
		       ",\"miss_bytes\":%" PRIu64
		       ",\"hit_rate_files\":%.4f,\"hit_rate_bytes\":%.4f",
		       n->nfiles, n->used,
		       strcmp(n->cap, "-") ? n->cap : "null", n->hits,
		       n->misses, n->hit_bytes, n->miss_bytes,
		       dl_cli_pct(n->hits, n->misses) / 100,
		       dl_cli_pct(n->hit_bytes, n->miss_bytes) / 100);
		if (n->have_power)
			printf(",\"power\":\"%s\",\"power_down_cache\":\"%s\",\"emptied_by_power_down\":%" PRIu64 "}",
			       dl_cli_power_name(n->power.state),
			       n->power.kept ? "kept" : "lost",
			       n->power.emptied);
		else
			printf(",\"power\":null,\"power_down_cache\":null,\"emptied_by_power_down\":null}");
	}
	printf("]");
}

/*
 * "up", "powered_down (cache lost, model emptied 2x)", "-" (no power line:
 * saved by a plugin without power state).
 */
static void _power(const dl_cli_node_t *n, char *buf, size_t len)
{
	if (!n->have_power)
		snprintf(buf, len, "-");
	else if (n->power.state == DL_POWER_UP && !n->power.emptied)
		snprintf(buf, len, "up");
	else
		snprintf(buf, len, "%s (cache %s, model emptied %" PRIu64 "x)",
			 dl_cli_power_name(n->power.state),
			 n->power.kept ? "kept" : "lost", n->power.emptied);
}

/* The per-node table, without a final newline in JSON. */
static void _nodes(const dl_cli_state_t *s, int json)
{
	char used[16], cap[16], power[96];
	size_t i;

	if (json) {
		_nodes_json(s);
		return;
	}
	printf("%-12s %7s %9s %9s %8s %8s %8s  %s\n", "NODE", "FILES", "USED",
	       "CAPACITY", "LOCAL%", "MISS%", "BYTES%", "POWER");
	for (i = 0; i < s->nnodes; i++) {
		const dl_cli_node_t *n = &s->nodes[i];

		dl_cli_bytes(n->used, used, sizeof(used));
		if (strcmp(n->cap, "-"))
			dl_cli_bytes(strtoull(n->cap, NULL, 10), cap,
				     sizeof(cap));
		else
			strcpy(cap, "unlimited");
		_power(n, power, sizeof(power));
		printf("%-12s %7" PRIu64 " %9s %9s %7.1f%% %7.1f%% %7.1f%%  %s\n",
		       n->name, n->nfiles, used, cap,
		       dl_cli_pct(n->hits, n->misses),
		       dl_cli_pct(n->misses, n->hits),
		       dl_cli_pct(n->hit_bytes, n->miss_bytes), power);
	}
}

int dl_cli_show_summary(const dl_cli_state_t *s, const char *arg, int json)
{
	(void)arg;
	if (json) {
		printf("{\"plan\":");
		_plan(s, json);
		printf(",\"nodes\":");
		_nodes(s, json);
		printf("}\n");
	} else {
		_plan(s, json);
		_nodes(s, json);
	}
	return 0;
}

int dl_cli_show_nodes(const dl_cli_state_t *s, const char *arg, int json)
{
	(void)arg;
	_nodes(s, json);
	if (json)
		printf("\n");
	return 0;
}

int dl_cli_show_plan(const dl_cli_state_t *s, const char *arg, int json)
{
	(void)arg;
	_plan(s, json);
	if (json)
		printf("\n");
	return 0;
}

/*
 * Where the model of a node comes from (JSON only: the text table stays
 * one header and one line per file, for scripts; "stats" says it in
 * words).  State files before version 3 do not say.
 */
static void _files_source_json(const dl_cli_node_t *n)
{
	if (!n->have_svc) {
		printf(",\"source\":null,\"connected\":null");
		return;
	}
	printf(",\"source\":\"%s\",\"connected\":%s",
	       dl_cli_source_name(n->svc.source),
	       n->svc.connected ? "true" : "false");
}

int dl_cli_show_files(const dl_cli_state_t *s, const char *node, int json)
{
	int64_t ni = dl_cli_node_index(s, node);
	size_t i, k = 0;

	if (ni < 0) {
		fprintf(stderr, "sdatalocality: no node %s in the state\n",
			node);
		return 1;
	}
	if (json) {
		printf("{\"node\":");
		dl_cli_jstr(node);
		_files_source_json(&s->nodes[ni]);
		printf(",\"files\":[");
	} else {
		printf("%-12s %10s %8s %6s  %s\n", "NODE", "SIZE", "ACCESSES",
		       "COPIES", "PATH");
	}
	for (i = 0; i < s->ncached; i++) {
		const dl_cli_file_t *f;

		if (s->cached[i][0] != (uint32_t)ni)
			continue;
		f = &s->files[s->cached[i][1]];
		if (json) {
			printf("%s{\"path\":", k++ ? "," : "");
			dl_cli_jstr(f->path);
			printf(",\"size\":%s,\"accesses\":%" PRIu64
			       ",\"copies\":%" PRIu64 "}",
			       strcmp(f->size, "-") ? f->size : "null", f->acc,
			       f->copies);
		} else {
			printf("%-12s %10s %8" PRIu64 " %6" PRIu64 "  %s\n",
			       node, f->size, f->acc, f->copies, f->path);
		}
	}
	if (json)
		printf("]}\n");
	return 0;
}

static void _job(const dl_cli_state_t *s, const dl_cli_job_t *j, int json)
{
	char bc[16], bt[16];

	if (json) {
		printf("{\"job_id\":%s,\"node\":", j->id);
		if (strcmp(j->node, "-"))
			dl_cli_jstr(j->node);
		else
			printf("null");
		printf(",\"order\":%s,\"files_cached\":%s,\"files\":%s,"
		       "\"bytes_cached\":%s,\"bytes\":%s,\"plan\":",
		       j->order, j->cached, j->nfiles, j->bcached, j->btotal);
		_plan(s, json);
		printf("}\n");
		return;
	}
	dl_cli_bytes(strtoull(j->bcached, NULL, 10), bc, sizeof(bc));
	dl_cli_bytes(strtoull(j->btotal, NULL, 10), bt, sizeof(bt));
	if (!strcmp(j->node, "-"))
		printf("JobId=%s: no data preference in the last plan (no usable node, or nothing to gain)\n",
		       j->id);
	else
		printf("JobId=%s: planned on %s, where %s of its %s files (%s of %s) are cached; place %s in the plan's order\n",
		       j->id, j->node, j->cached, j->nfiles, bc, bt, j->order);
	_plan(s, json);
}

int dl_cli_show_job(const dl_cli_state_t *s, const char *id, int json)
{
	size_t i;

	if (!id[0] || strspn(id, "0123456789") != strlen(id))
		return DL_CLI_USAGE;
	for (i = 0; i < s->njobs; i++) {
		if (!strcmp(s->jobs[i].id, id)) {
			_job(s, &s->jobs[i], json);
			return 0;
		}
	}
	if (json)
		printf("{\"job_id\":%s,\"node\":null,\"in_plan\":false}\n", id);
	else
		printf("JobId=%s is not in the last plan: it is running or finished, has no files: annotation, or was submitted since\n",
		       id);
	return 0;
}
