/*
 * dl-simstat.c - the statistics of stats.h for scripts
 * (contrib/experiments.sh): reads "KEY<TAB>VALUE" lines on stdin.
 *
 *   dl-simstat ci [LEVEL]  per key, in order of first appearance:
 *                          KEY n mean sd half-width (LEVEL 0.95)
 *   dl-simstat welch       exactly two keys A and B:
 *                          A B mean(A) mean(B) t df p (two-sided)
 *
 * Output fields are tab-separated.  Exit status 0, 1 on bad input (a
 * line without a tab or a number, too few values for the test), 2 on bad
 * arguments.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

#define MAX_KEY 256

typedef struct {
	char key[MAX_KEY];
	double *v;
	size_t n, cap;
} _group_t;

typedef struct {
	_group_t *g;
	size_t n, cap;
} _groups_t;

static _group_t *_group(_groups_t *gs, const char *key)
{
	size_t i;

	for (i = 0; i < gs->n; i++)
		if (!strcmp(gs->g[i].key, key))
			return &gs->g[i];
	if (gs->n == gs->cap) {
		size_t nc = gs->cap ? 2 * gs->cap : 64;
		_group_t *ng = realloc(gs->g, nc * sizeof(*ng));

		if (!ng)
			return NULL;
		gs->g = ng;
		gs->cap = nc;
	}
	memset(&gs->g[gs->n], 0, sizeof(gs->g[gs->n]));
	snprintf(gs->g[gs->n].key, MAX_KEY, "%s", key);
	return &gs->g[gs->n++];
}

static int _push(_group_t *g, double v)
{
	if (g->n == g->cap) {
		size_t nc = g->cap ? 2 * g->cap : 8;
		double *nv = realloc(g->v, nc * sizeof(*nv));

		if (!nv)
			return -1;
		g->v = nv;
		g->cap = nc;
	}
	g->v[g->n++] = v;
	return 0;
}

static int _read(FILE *in, _groups_t *gs)
{
	char *line = NULL, *tab, *end;
	size_t cap = 0, lineno = 0;
	ssize_t len;
	int rc = 0;

	while (!rc && (len = getline(&line, &cap, in)) >= 0) {
		_group_t *g;
		double v;

		lineno++;
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		if (!len)
			continue;
		tab = strrchr(line, '\t');
		if (!tab || (size_t) (tab - line) >= MAX_KEY) {
			fprintf(stderr, "dl-simstat: line %zu: want KEY<TAB>VALUE\n",
				lineno);
			rc = 1;
			break;
		}
		*tab = '\0';
		v = strtod(tab + 1, &end);
		if (end == tab + 1 || *end || !isfinite(v)) {
			fprintf(stderr, "dl-simstat: line %zu: '%s' is not a number\n",
				lineno, tab + 1);
			rc = 1;
			break;
		}
		g = _group(gs, line);
		if (!g || _push(g, v)) {
			fprintf(stderr, "dl-simstat: out of memory\n");
			rc = 1;
		}
	}
	free(line);
	return rc;
}

static int _ci(const _groups_t *gs, double level)
{
	size_t i;

	for (i = 0; i < gs->n; i++) {
		dl_stats_summary_t s;

		if (dl_stats_summarize(gs->g[i].v, gs->g[i].n, level, &s))
			return 1;
		printf("%s\t%zu\t%.6g\t%.6g\t%.6g\n", gs->g[i].key, s.n, s.mean,
		       s.sd, s.half);
	}
	return 0;
}

static int _welch(const _groups_t *gs)
{
	dl_stats_summary_t sa, sb;
	dl_stats_welch_t w;
	const _group_t *a, *b;

	if (gs->n != 2) {
		fprintf(stderr, "dl-simstat: welch wants exactly 2 keys, got %zu\n",
			gs->n);
		return 1;
	}
	a = &gs->g[0];
	b = &gs->g[1];
	if (dl_stats_welch(a->v, a->n, b->v, b->n, &w) ||
	    dl_stats_summarize(a->v, a->n, 0.95, &sa) ||
	    dl_stats_summarize(b->v, b->n, 0.95, &sb)) {
		fprintf(stderr,
			"dl-simstat: welch wants 2 values or more per key (%zu, %zu)\n",
			a->n, b->n);
		return 1;
	}
	printf("%s\t%s\t%.6g\t%.6g\t%.4g\t%.4g\t%.4g\n", a->key, b->key,
	       sa.mean, sb.mean, w.t, w.df, w.p);
	return 0;
}

int main(int argc, char **argv)
{
	_groups_t gs = { 0 };
	double level = 0.95;
	int rc;
	size_t i;

	if (argc < 2 || argc > 3 ||
	    (strcmp(argv[1], "ci") && strcmp(argv[1], "welch")) ||
	    (argc == 3 && (strcmp(argv[1], "ci") ||
			   !((level = atof(argv[2])) > 0 && level < 1)))) {
		fprintf(stderr, "usage: dl-simstat ci [LEVEL] | dl-simstat welch  < KEY<TAB>VALUE lines\n");
		return 2;
	}
	rc = _read(stdin, &gs);
	if (!rc)
		rc = !strcmp(argv[1], "ci") ? _ci(&gs, level) : _welch(&gs);
	for (i = 0; i < gs.n; i++)
		free(gs.g[i].v);
	free(gs.g);
	return rc;
}
