/*
 * sdatalocality - show what sched/datalocality knows: per-node cache use
 * and contents, hit rates, the last plan, and why a job was placed where
 * it is.  It reads the plugin's state file (dl_persist.h) under
 * StateSaveLocation, so it runs where that directory is visible (the
 * controller, or any host sharing it) and needs no running slurmctld.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dl_error.h"
#include "dl_persist.h"

typedef struct {
	char *name, *cap;
	uint64_t hits, misses, hit_bytes, miss_bytes;
	uint64_t used, nfiles;
} node_t;

typedef struct {
	char *size, *path;
	uint64_t acc, copies;
} file_t;

typedef struct {
	char *id, *node, *order, *cached, *nfiles, *bcached, *btotal;
} job_t;

typedef struct {
	node_t *nodes;
	size_t nnodes;
	file_t *files;
	size_t nfiles;
	uint32_t (*cached)[2]; /* node index, file index */
	size_t ncached;
	char *plan[6];         /* policy time cut imbalance seconds jobs */
	int have_plan;
	job_t *jobs;
	size_t njobs;
	char *saved;
} state_t;

static int json;

static void *_grow(void *p, size_t n, size_t size)
{
	void *q = realloc(p, (n + 1) * size);

	if (!q) {
		fprintf(stderr, "sdatalocality: out of memory\n");
		exit(1);
	}
	return q;
}

/* Split line into at most max blank-separated fields (last takes the rest). */
static int _split(char *line, char **f, int max)
{
	int n = 0;

	while (*line && n < max) {
		f[n++] = line;
		if (n == max)
			break;
		line = strchr(line, ' ');
		if (!line)
			break;
		*line++ = '\0';
	}
	return n;
}

static int64_t _node_index(const state_t *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->nnodes; i++)
		if (!strcmp(s->nodes[i].name, name))
			return (int64_t)i;
	return -1;
}

static void _parse(char *text, state_t *s)
{
	char *line, *next, *f[9];
	int n;

	for (line = text; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!strncmp(line, "file ", 5)) {
			n = _split(line, f, 4);
			if (n != 4)
				continue;
			s->files = _grow(s->files, s->nfiles, sizeof(file_t));
			s->files[s->nfiles].size = f[1];
			s->files[s->nfiles].acc = strtoull(f[2], NULL, 10);
			s->files[s->nfiles].path = f[3];
			s->files[s->nfiles++].copies = 0;
			continue;
		}
		n = _split(line, f, 9);
		if (n == 7 && !strcmp(f[0], "node")) {
			node_t *nd;

			s->nodes = _grow(s->nodes, s->nnodes, sizeof(node_t));
			nd = &s->nodes[s->nnodes++];
			memset(nd, 0, sizeof(*nd));
			nd->name = f[1];
			nd->cap = f[2];
			nd->hits = strtoull(f[3], NULL, 10);
			nd->misses = strtoull(f[4], NULL, 10);
			nd->hit_bytes = strtoull(f[5], NULL, 10);
			nd->miss_bytes = strtoull(f[6], NULL, 10);
		} else if (n == 3 && !strcmp(f[0], "cached")) {
			int64_t ni = _node_index(s, f[1]);
			unsigned long fi = strtoul(f[2], NULL, 10);

			if (ni < 0 || fi >= s->nfiles)
				continue;
			s->cached = _grow(s->cached, s->ncached,
					  sizeof(*s->cached));
			s->cached[s->ncached][0] = (uint32_t)ni;
			s->cached[s->ncached++][1] = (uint32_t)fi;
			s->files[fi].copies++;
			s->nodes[ni].nfiles++;
			if (strcmp(s->files[fi].size, "-"))
				s->nodes[ni].used +=
					strtoull(s->files[fi].size, NULL, 10);
		} else if (n == 7 && !strcmp(f[0], "plan")) {
			memcpy(s->plan, f + 1, sizeof(s->plan));
			s->have_plan = 1;
		} else if (n == 8 && !strcmp(f[0], "job")) {
			job_t *j;

			s->jobs = _grow(s->jobs, s->njobs, sizeof(job_t));
			j = &s->jobs[s->njobs++];
			j->id = f[1];
			j->node = f[2];
			j->order = f[3];
			j->cached = f[4];
			j->nfiles = f[5];
			j->bcached = f[6];
			j->btotal = f[7];
		} else if (n == 2 && !strcmp(f[0], "saved")) {
			s->saved = f[1];
		}
	}
}

static void _bytes(uint64_t b, char *buf, size_t len)
{
	static const char *unit[] = { "B", "K", "M", "G", "T", "P" };
	double v = (double)b;
	int u = 0;

	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, u ? "%.1f%s" : "%.0f%s", v, unit[u]);
}

static double _pct(uint64_t a, uint64_t b)
{
	return a + b ? 100.0 * (double)a / (double)(a + b) : 0.0;
}

/* JSON string: the paths are absolute and blank-free, but be safe. */
static void _jstr(const char *s)
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

static void _show_plan(const state_t *s)
{
	char when[64] = "-";
	time_t t;

	if (!s->have_plan) {
		if (json)
			printf("null");
		else
			printf("no plan yet\n");
		return;
	}
	t = (time_t)strtoll(s->plan[1], NULL, 10);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", localtime(&t));
	if (json) {
		printf("{\"policy\":");
		_jstr(s->plan[0]);
		printf(",\"time\":\"%s\",\"cut_bytes\":%s,\"imbalance\":%s,"
		       "\"seconds\":%s,\"jobs\":%s}",
		       when, s->plan[2], s->plan[3], s->plan[4], s->plan[5]);
		return;
	}
	printf("last plan: policy %s at %s, %s jobs, cut %s bytes, imbalance %s, took %.3f ms\n",
	       s->plan[0], when, s->plan[5], s->plan[2], s->plan[3],
	       strtod(s->plan[4], NULL) * 1e3);
}

static void _show_nodes(const state_t *s)
{
	char used[16], cap[16];
	size_t i;

	if (json) {
		printf("[");
		for (i = 0; i < s->nnodes; i++) {
			const node_t *n = &s->nodes[i];

			printf("%s{\"name\":", i ? "," : "");
			_jstr(n->name);
			printf(",\"files\":%" PRIu64 ",\"used_bytes\":%" PRIu64
			       ",\"capacity_bytes\":%s,\"hits\":%" PRIu64
			       ",\"misses\":%" PRIu64 ",\"hit_bytes\":%" PRIu64
			       ",\"miss_bytes\":%" PRIu64
			       ",\"hit_rate_files\":%.4f,\"hit_rate_bytes\":%.4f}",
			       n->nfiles, n->used,
			       strcmp(n->cap, "-") ? n->cap : "null", n->hits,
			       n->misses, n->hit_bytes, n->miss_bytes,
			       _pct(n->hits, n->misses) / 100,
			       _pct(n->hit_bytes, n->miss_bytes) / 100);
		}
		printf("]");
		return;
	}
	printf("%-12s %7s %9s %9s %8s %8s %8s\n", "NODE", "FILES", "USED",
	       "CAPACITY", "LOCAL%", "MISS%", "BYTES%");
	for (i = 0; i < s->nnodes; i++) {
		const node_t *n = &s->nodes[i];

		_bytes(n->used, used, sizeof(used));
		if (strcmp(n->cap, "-"))
			_bytes(strtoull(n->cap, NULL, 10), cap, sizeof(cap));
		else
			strcpy(cap, "unlimited");
		printf("%-12s %7" PRIu64 " %9s %9s %7.1f%% %7.1f%% %7.1f%%\n",
		       n->name, n->nfiles, used, cap, _pct(n->hits, n->misses),
		       _pct(n->misses, n->hits),
		       _pct(n->hit_bytes, n->miss_bytes));
	}
}

static int _show_files(const state_t *s, const char *node)
{
	int64_t ni = _node_index(s, node);
	size_t i, k = 0;

	if (ni < 0) {
		fprintf(stderr, "sdatalocality: no node %s in the state\n",
			node);
		return 1;
	}
	if (json)
		printf("{\"node\":");
	if (json) {
		_jstr(node);
		printf(",\"files\":[");
	} else {
		printf("%-12s %10s %8s %6s  %s\n", "NODE", "SIZE", "ACCESSES",
		       "COPIES", "PATH");
	}
	for (i = 0; i < s->ncached; i++) {
		const file_t *f;

		if (s->cached[i][0] != (uint32_t)ni)
			continue;
		f = &s->files[s->cached[i][1]];
		if (json) {
			printf("%s{\"path\":", k++ ? "," : "");
			_jstr(f->path);
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

static int _show_job(const state_t *s, const char *id)
{
	size_t i;

	for (i = 0; i < s->njobs; i++) {
		const job_t *j = &s->jobs[i];
		char bc[16], bt[16];

		if (strcmp(j->id, id))
			continue;
		if (json) {
			printf("{\"job_id\":%s,\"node\":", j->id);
			if (strcmp(j->node, "-"))
				_jstr(j->node);
			else
				printf("null");
			printf(",\"order\":%s,\"files_cached\":%s,\"files\":%s,"
			       "\"bytes_cached\":%s,\"bytes\":%s,\"plan\":",
			       j->order, j->cached, j->nfiles, j->bcached,
			       j->btotal);
			_show_plan(s);
			printf("}\n");
			return 0;
		}
		_bytes(strtoull(j->bcached, NULL, 10), bc, sizeof(bc));
		_bytes(strtoull(j->btotal, NULL, 10), bt, sizeof(bt));
		if (!strcmp(j->node, "-"))
			printf("JobId=%s: no data preference in the last plan (no usable node, or nothing to gain)\n",
			       j->id);
		else
			printf("JobId=%s: planned on %s, where %s of its %s files (%s of %s) are cached; place %s in the plan's order\n",
			       j->id, j->node, j->cached, j->nfiles, bc, bt,
			       j->order);
		_show_plan(s);
		return 0;
	}
	if (json)
		printf("{\"job_id\":%s,\"node\":null,\"in_plan\":false}\n", id);
	else
		printf("JobId=%s is not in the last plan: it is running or finished, has no files: annotation, or was submitted since\n",
		       id);
	return 0;
}

/* StateSaveLocation from slurm.conf ($SLURM_CONF or /etc/slurm). */
static char *_default_state(void)
{
	const char *conf = getenv("SLURM_CONF");
	char line[4096], *res = NULL;
	FILE *f;

	f = fopen(conf ? conf : "/etc/slurm/slurm.conf", "r");
	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		char *p = line, *e;

		while (*p == ' ' || *p == '\t')
			p++;
		if (strncasecmp(p, "StateSaveLocation=", 18))
			continue;
		p += 18;
		for (e = p; *e && *e != '\n' && *e != ' ' && *e != '#'; e++)
			;
		*e = '\0';
		free(res);
		if (asprintf(&res, "%s/datalocality_state", p) < 0)
			res = NULL;
	}
	fclose(f);
	return res;
}

static void _usage(FILE *to)
{
	fprintf(to,
		"usage: sdatalocality [--json] [--state FILE] [COMMAND]\n"
		"  (none)        the last plan and every node's cache use and hit rates\n"
		"  nodes         per-node cache use and hit rates\n"
		"  files NODE    what NODE caches\n"
		"  job JOBID     why a pending job is planned where it is\n"
		"  plan          the last plan\n"
		"The state is read from StateSaveLocation/datalocality_state\n"
		"(StateSaveLocation from $SLURM_CONF or /etc/slurm/slurm.conf).\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "state", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *path = NULL, *text = NULL, err[256] = "";
	state_t s = { 0 };
	const char *cmd;
	int c, rc = 0;

	while ((c = getopt_long(argc, argv, "js:h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = 1;
			break;
		case 's':
			path = strdup(optarg);
			break;
		case 'h':
			_usage(stdout);
			return 0;
		default:
			_usage(stderr);
			return 2;
		}
	}
	cmd = optind < argc ? argv[optind] : "summary";
	if (!path)
		path = _default_state();
	if (!path) {
		fprintf(stderr, "sdatalocality: cannot find StateSaveLocation in slurm.conf; use --state FILE\n");
		return 1;
	}
	rc = dl_persist_read(path, &text, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "sdatalocality: %s: %s\n", path,
			err[0] ? err : dl_strerror(rc));
		free(path);
		return 1;
	}
	_parse(text, &s);
	if (!strcmp(cmd, "summary")) {
		if (json) {
			printf("{\"plan\":");
			_show_plan(&s);
			printf(",\"nodes\":");
			_show_nodes(&s);
			printf("}\n");
		} else {
			_show_plan(&s);
			_show_nodes(&s);
		}
	} else if (!strcmp(cmd, "nodes")) {
		_show_nodes(&s);
		if (json)
			printf("\n");
	} else if (!strcmp(cmd, "plan")) {
		_show_plan(&s);
		if (json)
			printf("\n");
	} else if (!strcmp(cmd, "files") && optind + 1 < argc) {
		rc = _show_files(&s, argv[optind + 1]);
	} else if (!strcmp(cmd, "job") && optind + 1 < argc &&
		   argv[optind + 1][0] &&
		   strspn(argv[optind + 1], "0123456789") ==
			   strlen(argv[optind + 1])) {
		rc = _show_job(&s, argv[optind + 1]);
	} else {
		_usage(stderr);
		rc = 2;
	}
	free(s.nodes);
	free(s.files);
	free(s.cached);
	free(s.jobs);
	free(text);
	free(path);
	return rc;
}
