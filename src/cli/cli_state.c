/* cli_state.c - the state file's text split into records; see cli.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* One field more than the longest record (service) tells a longer line. */
#define MAX_FIELDS 16

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

int64_t dl_cli_node_index(const dl_cli_state_t *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->nnodes; i++)
		if (!strcmp(s->nodes[i].name, name))
			return (int64_t)i;
	return -1;
}

static void _add_file(dl_cli_state_t *s, char **f)
{
	dl_cli_file_t *fl;

	s->files = _grow(s->files, s->nfiles, sizeof(*s->files));
	fl = &s->files[s->nfiles++];
	fl->size = f[1];
	fl->acc = strtoull(f[2], NULL, 10);
	fl->path = f[3];
	fl->copies = 0;
}

static void _add_node(dl_cli_state_t *s, char **f)
{
	dl_cli_node_t *nd;

	s->nodes = _grow(s->nodes, s->nnodes, sizeof(*s->nodes));
	nd = &s->nodes[s->nnodes++];
	memset(nd, 0, sizeof(*nd));
	nd->name = f[1];
	nd->cap = f[2];
	nd->hits = strtoull(f[3], NULL, 10);
	nd->misses = strtoull(f[4], NULL, 10);
	nd->hit_bytes = strtoull(f[5], NULL, 10);
	nd->miss_bytes = strtoull(f[6], NULL, 10);
}

/* A cached record counts towards its node's use and its file's copies. */
static void _add_cached(dl_cli_state_t *s, char **f)
{
	int64_t ni = dl_cli_node_index(s, f[1]);
	unsigned long fi = strtoul(f[2], NULL, 10);

	if (ni < 0 || fi >= s->nfiles)
		return;
	s->cached = _grow(s->cached, s->ncached, sizeof(*s->cached));
	s->cached[s->ncached][0] = (uint32_t)ni;
	s->cached[s->ncached++][1] = (uint32_t)fi;
	s->files[fi].copies++;
	s->nodes[ni].nfiles++;
	if (strcmp(s->files[fi].size, "-"))
		s->nodes[ni].used += strtoull(s->files[fi].size, NULL, 10);
}

static void _add_job(dl_cli_state_t *s, char **f)
{
	dl_cli_job_t *j;

	s->jobs = _grow(s->jobs, s->njobs, sizeof(*s->jobs));
	j = &s->jobs[s->njobs++];
	j->id = f[1];
	j->node = f[2];
	j->order = f[3];
	j->cached = f[4];
	j->nfiles = f[5];
	j->bcached = f[6];
	j->btotal = f[7];
}

static int _u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 10);
	return (errno || *end || *s == '-') ? -1 : 0;
}

static const char *const source_names[] = DL_SOURCE_NAMES;

const char *dl_cli_source_name(dl_source_t src)
{
	return src < DL_SOURCE_COUNT ? source_names[src] : "?";
}

/*
 * A service record, fields in the order of dl_persist.h; one this
 * program cannot read marks all of them unavailable.
 */
static void _set_service(dl_cli_state_t *s, char **f, int nf)
{
	int64_t ni = dl_cli_node_index(s, f[1]);
	dl_service_stats_t v = { 0 };
	uint64_t *u[] = { &v.files, &v.used, &v.capacity, &v.storage_bytes,
			  &v.peer_bytes, &v.prefetch_sent,
			  &v.prefetch_cancelled, &v.prefetch_done,
			  &v.prefetch_active, &v.replicas };
	char *end;
	size_t i;
	int k;

	if (s->have_svc < 0 || ni < 0)
		return;
	s->have_svc = -1;
	for (k = 0; k < DL_SOURCE_COUNT && strcmp(f[2], source_names[k]); k++)
		;
	errno = 0;
	v.since = strtoll(f[4], &end, 10);
	if (k == DL_SOURCE_COUNT || errno || *end ||
	    (strcmp(f[3], "0") && strcmp(f[3], "1")))
		return;
	v.source = (dl_source_t)k;
	v.connected = f[3][0] == '1';
	/* 14 fields before the replica counter (then 0), 15 since. */
	for (i = 0; i < sizeof(u) / sizeof(u[0]) && 5 + (int)i < nf; i++) {
		if (i == 2 && !strcmp(f[7], "-"))
			v.capacity = UINT64_MAX;
		else if (_u64(f[5 + i], u[i]))
			return;
	}
	s->nodes[ni].svc = v;
	s->nodes[ni].have_svc = 1;
	s->have_svc = 1;
}

static const char *const power_names[] = DL_POWER_NAMES;

const char *dl_cli_power_name(dl_power_t p)
{
	return p < DL_POWER_COUNT ? power_names[p] : "?";
}

/* A power record, fields in the order of dl_persist.h; as _set_service. */
static void _set_power(dl_cli_state_t *s, char **f)
{
	int64_t ni = dl_cli_node_index(s, f[1]);
	dl_power_stats_t v = { 0 };
	char *end;
	int k;

	if (s->have_power < 0 || ni < 0)
		return;
	s->have_power = -1;
	for (k = 0; k < DL_POWER_COUNT && strcmp(f[2], power_names[k]); k++)
		;
	errno = 0;
	v.since = strtoll(f[3], &end, 10);
	if (k == DL_POWER_COUNT || errno || *end || _u64(f[4], &v.emptied) ||
	    (strcmp(f[5], "lost") && strcmp(f[5], "kept")))
		return;
	v.state = (dl_power_t)k;
	v.kept = !strcmp(f[5], "kept");
	s->nodes[ni].power = v;
	s->nodes[ni].have_power = 1;
	s->have_power = 1;
}

static int _sec(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return (errno || *end || !isfinite(*v) || *v < 0) ? -1 : 0;
}

/*
 * The stats record, fields in the order of dl_persist.h.  The file's
 * checksum held, so a bad number means a writer we do not understand:
 * then the counters are shown as not available rather than as garbage.
 */
static void _set_sched(dl_cli_state_t *s, char **f)
{
	dl_sched_stats_t *st = &s->sched;
	uint64_t *u[] = { &st->cycles,          &st->plans,
			  &st->placed,          &st->moved,
			  &st->widened,         &st->started_planned,
			  &st->started_widened, &st->started_unplaced };
	const int ui[] = { 2, 3, 7, 8, 9, 10, 11, 12 };
	uint64_t pending;
	char *end;
	size_t i;

	s->have_sched = -1;
	errno = 0;
	st->since = strtoll(f[1], &end, 10);
	if (errno || *end || _sec(f[4], &st->plan_sec_total) ||
	    _sec(f[5], &st->plan_sec_max) || _sec(f[6], &st->plan_sec_last) ||
	    _u64(f[13], &pending) || pending > UINT32_MAX)
		return;
	for (i = 0; i < sizeof(u) / sizeof(u[0]); i++)
		if (_u64(f[ui[i]], u[i]))
			return;
	st->pending_placed = (uint32_t)pending;
	s->have_sched = 1;
}

void dl_cli_state_parse(char *text, dl_cli_state_t *s)
{
	char *line, *next, *f[MAX_FIELDS];
	int n;

	for (line = text; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!strncmp(line, "file ", 5)) {
			/* The path is the rest of the line, blanks and all. */
			if (_split(line, f, 4) == 4)
				_add_file(s, f);
			continue;
		}
		n = _split(line, f, MAX_FIELDS);
		if (n == 7 && !strcmp(f[0], "node")) {
			_add_node(s, f);
		} else if (n == 3 && !strcmp(f[0], "cached")) {
			_add_cached(s, f);
		} else if (n == 7 && !strcmp(f[0], "plan")) {
			memcpy(s->plan, f + 1, sizeof(s->plan));
			s->have_plan = 1;
		} else if (n == 8 && !strcmp(f[0], "job")) {
			_add_job(s, f);
		} else if (n == 2 && !strcmp(f[0], "saved")) {
			s->saved = f[1];
		} else if (n == 14 && !strcmp(f[0], "stats")) {
			_set_sched(s, f);
		} else if (n && !strcmp(f[0], "stats")) {
			s->have_sched = -1; /* from a newer plugin? */
		} else if ((n == 14 || n == 15) && !strcmp(f[0], "service")) {
			_set_service(s, f, n);
		} else if (n && !strcmp(f[0], "service")) {
			s->have_svc = -1;
		} else if (n == 6 && !strcmp(f[0], "power")) {
			_set_power(s, f);
		} else if (n && !strcmp(f[0], "power")) {
			s->have_power = -1;
		}
	}
}

void dl_cli_state_free(dl_cli_state_t *s)
{
	free(s->nodes);
	free(s->files);
	free(s->cached);
	free(s->jobs);
	memset(s, 0, sizeof(*s));
}
