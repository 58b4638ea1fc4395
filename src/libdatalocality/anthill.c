/* anthill.c - AnthillSched (anthillsched-goes §4); see dl_anthill.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dl_anthill.h"
#include "dl_error.h"

/* Remainders closer than this are ties, so that 0.1 + 0.2 rounds alike. */
#define EPS 1e-9
#define PROFILE_MAX (64u << 20)

struct dl_anthill_profile {
	uint32_t n;
	char **names; /* n filter names */
	uint8_t *bcast; /* n: stream j -> j + 1 mod n is a broadcast */
	uint32_t nparams;
	char **params; /* parameter names, in the first run's order */
	size_t nruns;
	double *pval; /* nruns * nparams, in params order */
	double *bytes; /* nruns * n */
	double *secs; /* nruns * n */
	double *wall; /* nruns; < 0 while the run gives none */
	unsigned *line; /* nruns: line of each "run" */
};

void dl_anthill_profile_free(dl_anthill_profile_t *p)
{
	uint32_t i;

	if (!p)
		return;
	for (i = 0; i < p->n; i++)
		free(p->names[i]);
	for (i = 0; i < p->nparams; i++)
		free(p->params[i]);
	free(p->names);
	free(p->bcast);
	free(p->params);
	free(p->pval);
	free(p->bytes);
	free(p->secs);
	free(p->wall);
	free(p->line);
	free(p);
}

uint32_t dl_anthill_filter_count(const dl_anthill_profile_t *p)
{
	return p ? p->n : 0;
}

const char *dl_anthill_filter_name(const dl_anthill_profile_t *p, uint32_t j)
{
	return p && j < p->n ? p->names[j] : NULL;
}

void dl_anthill_opts_default(dl_anthill_opts_t *o)
{
	o->procs = 1;
	o->threshold = DL_ANTHILL_THRESHOLD;
	o->iterations = DL_ANTHILL_ITERATIONS;
}

/* ---- parsing ----------------------------------------------------------- */

static int _name_ok(const char *s)
{
	size_t i, len = strlen(s);

	if (!len || len >= DL_ANTHILL_NAME_MAX)
		return 0;
	for (i = 0; i < len; i++) {
		char ch = s[i];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || ch == '_' || ch == '-' ||
		      ch == '.'))
			return 0;
	}
	return 1;
}

/* A whole token as a finite number, >= min. */
static int _number(const char *s, double min, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end || errno == ERANGE || !isfinite(v) || v < min)
		return 0;
	*out = v;
	return 1;
}

static int _find(char *const *names, uint32_t n, const char *s)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(names[i], s))
			return (int) i;
	return -1;
}

/* Room for one more run in every per-run array. */
static int _grow_runs(dl_anthill_profile_t *p, size_t *cap)
{
	size_t nc = *cap ? *cap * 2 : 8;
	double *pv, *b, *s, *w;
	unsigned *l;

	if (p->nruns < *cap)
		return 0;
	pv = realloc(p->pval, nc * (p->nparams ? p->nparams : 1) * sizeof(*pv));
	if (pv)
		p->pval = pv;
	b = realloc(p->bytes, nc * p->n * sizeof(*b));
	if (b)
		p->bytes = b;
	s = realloc(p->secs, nc * p->n * sizeof(*s));
	if (s)
		p->secs = s;
	w = realloc(p->wall, nc * sizeof(*w));
	if (w)
		p->wall = w;
	l = realloc(p->line, nc * sizeof(*l));
	if (l)
		p->line = l;
	if (!pv || !b || !s || !w || !l)
		return DL_ENOMEM;
	*cap = nc;
	return 0;
}

/* Parse state. */
typedef struct {
	dl_anthill_profile_t *p;
	size_t runs_cap;
	uint32_t names_cap;
	uint8_t *seen; /* n: filter given in the current run */
	int in_run;
	int wall_set;
	unsigned errline; /* the line at fault when not the current one */
} parser_t;

static int _filter_line(parser_t *ps, char **tok, int ntok)
{
	dl_anthill_profile_t *p = ps->p;

	if (ps->in_run || p->nruns || ntok < 2 || ntok > 3 ||
	    !_name_ok(tok[1]) || !strcmp(tok[1], "filter") ||
	    !strcmp(tok[1], "run") || !strcmp(tok[1], "wall") ||
	    _find(p->names, p->n, tok[1]) >= 0 ||
	    (ntok == 3 && strcmp(tok[2], "broadcast")) ||
	    p->n >= DL_ANTHILL_MAX_FILTERS)
		return DL_EFORMAT;
	if (p->n == ps->names_cap) {
		uint32_t nc = ps->names_cap ? ps->names_cap * 2 : 8;
		char **nn = realloc(p->names, nc * sizeof(*nn));
		uint8_t *nb;

		if (!nn)
			return DL_ENOMEM;
		p->names = nn;
		nb = realloc(p->bcast, nc);
		if (!nb)
			return DL_ENOMEM;
		p->bcast = nb;
		ps->names_cap = nc;
	}
	p->names[p->n] = strdup(tok[1]);
	if (!p->names[p->n])
		return DL_ENOMEM;
	p->bcast[p->n++] = ntok == 3;
	return 0;
}

/* The run in progress is complete: every filter given once. */
static int _end_run(parser_t *ps)
{
	dl_anthill_profile_t *p = ps->p;
	size_t r = p->nruns - 1;
	uint32_t j;
	double sum = 0;

	for (j = 0; j < p->n; j++) {
		if (!ps->seen[j]) {
			ps->errline = p->line[r]; /* the incomplete run */
			return DL_EFORMAT;
		}
		sum += p->secs[r * p->n + j];
	}
	if (!ps->wall_set)
		p->wall[r] = sum;
	ps->in_run = 0;
	return 0;
}

static int _run_line(parser_t *ps, char **tok, int ntok, unsigned line)
{
	dl_anthill_profile_t *p = ps->p;
	uint8_t given[DL_ANTHILL_MAX_PARAMS] = { 0 };
	size_t r;
	int i, rc;

	if (!p->n)
		return DL_EFORMAT; /* runs come after the filters */
	if (ps->in_run && (rc = _end_run(ps)))
		return rc;
	if (!ps->seen && !(ps->seen = calloc(p->n, 1)))
		return DL_ENOMEM;
	if (!p->nruns) {
		/* The first run names the parameters. */
		if (ntok - 1 > DL_ANTHILL_MAX_PARAMS)
			return DL_EFORMAT;
		p->params = calloc(ntok > 1 ? ntok - 1 : 1, sizeof(char *));
		if (!p->params)
			return DL_ENOMEM;
		for (i = 1; i < ntok; i++) {
			char *eq = strchr(tok[i], '=');

			if (!eq)
				return DL_EFORMAT;
			*eq = '\0';
			if (!_name_ok(tok[i]) ||
			    _find(p->params, p->nparams, tok[i]) >= 0) {
				*eq = '=';
				return DL_EFORMAT;
			}
			p->params[p->nparams] = strdup(tok[i]);
			*eq = '=';
			if (!p->params[p->nparams])
				return DL_ENOMEM;
			p->nparams++;
		}
	}
	if ((uint32_t) (ntok - 1) != p->nparams)
		return DL_EFORMAT;
	if ((rc = _grow_runs(p, &ps->runs_cap)))
		return rc;
	r = p->nruns;
	for (i = 1; i < ntok; i++) {
		char *eq = strchr(tok[i], '=');
		int k;

		if (!eq)
			return DL_EFORMAT;
		*eq = '\0';
		k = _find(p->params, p->nparams, tok[i]);
		if (k < 0 || given[k] ||
		    !_number(eq + 1, -INFINITY, &p->pval[r * p->nparams + k]))
			return DL_EFORMAT;
		given[k] = 1;
	}
	/* A combination measured twice would make the profile ambiguous. */
	for (r = 0; r < p->nruns; r++) {
		uint32_t k;

		for (k = 0; k < p->nparams; k++)
			if (p->pval[r * p->nparams + k] !=
			    p->pval[p->nruns * p->nparams + k])
				break;
		if (k == p->nparams)
			return DL_EFORMAT;
	}
	p->line[p->nruns] = line;
	p->wall[p->nruns] = -1;
	p->nruns++;
	memset(ps->seen, 0, p->n);
	ps->in_run = 1;
	ps->wall_set = 0;
	return 0;
}

static int _data_line(parser_t *ps, char **tok, int ntok)
{
	dl_anthill_profile_t *p = ps->p;
	size_t r;
	int j;

	if (!ps->in_run)
		return DL_EFORMAT;
	r = p->nruns - 1;
	if (!strcmp(tok[0], "wall")) {
		if (ntok != 2 || ps->wall_set ||
		    !_number(tok[1], 0, &p->wall[r]))
			return DL_EFORMAT;
		ps->wall_set = 1;
		return 0;
	}
	j = _find(p->names, p->n, tok[0]);
	if (j < 0 || ps->seen[j] || ntok != 3 ||
	    !_number(tok[1], 0, &p->bytes[r * p->n + j]) ||
	    !_number(tok[2], 0, &p->secs[r * p->n + j]))
		return DL_EFORMAT;
	ps->seen[j] = 1;
	return 0;
}

int dl_anthill_profile_parse(const char *text, size_t len,
			     dl_anthill_profile_t **out, unsigned *errline)
{
	parser_t ps = { 0 };
	char *buf, *line, *next;
	unsigned lineno = 0;
	int rc = 0;

	if (!text || !out)
		return DL_EINVAL;
	buf = malloc(len + 1);
	ps.p = calloc(1, sizeof(*ps.p));
	if (!buf || !ps.p) {
		free(buf);
		free(ps.p);
		return DL_ENOMEM;
	}
	memcpy(buf, text, len);
	buf[len] = '\0';
	for (line = buf; line && !rc; line = next) {
		char *tok[DL_ANTHILL_MAX_PARAMS + 2], *save = NULL, *t, *hash;
		int ntok = 0;

		lineno++;
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (strlen(line) !=
		    (size_t) (next ? next - 1 - line : buf + len - line)) {
			rc = DL_EFORMAT; /* a NUL byte inside the text */
			break;
		}
		if ((hash = strchr(line, '#')))
			*hash = '\0';
		for (t = strtok_r(line, " \t\r\v\f", &save); t;
		     t = strtok_r(NULL, " \t\r\v\f", &save)) {
			if (ntok == DL_ANTHILL_MAX_PARAMS + 2) {
				rc = DL_EFORMAT;
				break;
			}
			tok[ntok++] = t;
		}
		if (rc || !ntok)
			continue;
		if (!strcmp(tok[0], "filter"))
			rc = _filter_line(&ps, tok, ntok);
		else if (!strcmp(tok[0], "run"))
			rc = _run_line(&ps, tok, ntok, lineno);
		else
			rc = _data_line(&ps, tok, ntok);
	}
	if (!rc && ps.in_run)
		rc = _end_run(&ps);
	if (!rc && (!ps.p->n || !ps.p->nruns)) {
		rc = DL_EFORMAT;
		lineno = 0;
	}
	if (ps.errline)
		lineno = ps.errline;
	free(ps.seen);
	free(buf);
	if (rc) {
		dl_anthill_profile_free(ps.p);
		if (errline && rc == DL_EFORMAT)
			*errline = lineno;
		return rc;
	}
	*out = ps.p;
	return 0;
}

int dl_anthill_profile_load(const char *path, dl_anthill_profile_t **out,
			    unsigned *errline)
{
	FILE *f;
	char *text;
	long size;
	int rc;

	if (!path || !out)
		return DL_EINVAL;
	f = fopen(path, "r");
	if (!f)
		return DL_EIO;
	if (fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET)) {
		fclose(f);
		return DL_EIO;
	}
	if ((unsigned long) size > PROFILE_MAX) {
		fclose(f);
		return DL_ETOOBIG;
	}
	text = malloc((size_t) size + 1);
	if (!text) {
		fclose(f);
		return DL_ENOMEM;
	}
	if (fread(text, 1, (size_t) size, f) != (size_t) size || ferror(f)) {
		free(text);
		fclose(f);
		return DL_EIO;
	}
	fclose(f);
	rc = dl_anthill_profile_parse(text, (size_t) size, out, errline);
	free(text);
	return rc;
}

/* ---- estimating -------------------------------------------------------- */

/* Parse "name=number,..." into x (nparams values, each given once). */
static int _query(const dl_anthill_profile_t *p, const char *params, double *x)
{
	uint8_t given[DL_ANTHILL_MAX_PARAMS] = { 0 };
	char *buf, *item, *save = NULL;
	uint32_t count = 0;
	int rc = 0;

	if (!params || !*params)
		return p->nparams ? DL_EINVAL : 0;
	buf = strdup(params);
	if (!buf)
		return DL_ENOMEM;
	for (item = strtok_r(buf, ",", &save); item && !rc;
	     item = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(item, '=');
		int k;

		if (!eq) {
			rc = DL_EINVAL;
			break;
		}
		*eq = '\0';
		k = _find(p->params, p->nparams, item);
		if (k < 0 || given[k] || !_number(eq + 1, -INFINITY, &x[k]))
			rc = DL_EINVAL;
		else {
			given[k] = 1;
			count++;
		}
	}
	free(buf);
	if (!rc && count != p->nparams)
		rc = DL_EINVAL;
	return rc;
}

int dl_anthill_estimate(const dl_anthill_profile_t *p, const char *params,
			double *bytes, double *secs, double *wall)
{
	double x[DL_ANTHILL_MAX_PARAMS], scale[DL_ANTHILL_MAX_PARAMS];
	double *d, t = 0;
	size_t r, a = 0, b = SIZE_MAX;
	uint32_t k, j;
	int rc;

	if (!p || !bytes || !secs)
		return DL_EINVAL;
	if ((rc = _query(p, params, x)))
		return rc;
	d = calloc(p->nruns, sizeof(*d)); /* calloc: gcc -O1 sees d[a] as unset */
	if (!d)
		return DL_ENOMEM;
	for (k = 0; k < p->nparams; k++) {
		double lo = INFINITY, hi = -INFINITY;

		for (r = 0; r < p->nruns; r++) {
			double v = p->pval[r * p->nparams + k];

			lo = v < lo ? v : lo;
			hi = v > hi ? v : hi;
		}
		scale[k] = hi > lo ? hi - lo : 1.0;
	}
	for (r = 0; r < p->nruns; r++) {
		d[r] = 0;
		for (k = 0; k < p->nparams; k++) {
			double dx =
				(x[k] - p->pval[r * p->nparams + k]) / scale[k];

			d[r] += dx * dx;
		}
		if (d[r] < d[a])
			a = r;
	}
	if (d[a] > 0) {
		/* The nearest run beyond x as seen from a, if any. */
		for (r = 0; r < p->nruns; r++) {
			double dot = 0;

			for (k = 0; k < p->nparams; k++)
				dot += (x[k] - p->pval[a * p->nparams + k]) *
				       (p->pval[r * p->nparams + k] -
					p->pval[a * p->nparams + k]) /
				       (scale[k] * scale[k]);
			if (dot > 0 && (b == SIZE_MAX || d[r] < d[b]))
				b = r;
		}
	}
	if (b != SIZE_MAX) {
		double dot = 0, len2 = 0;

		for (k = 0; k < p->nparams; k++) {
			double u = (p->pval[b * p->nparams + k] -
				    p->pval[a * p->nparams + k]) /
				   scale[k];

			dot += (x[k] - p->pval[a * p->nparams + k]) / scale[k] *
			       u;
			len2 += u * u;
		}
		t = dot / len2;
		t = t < 0 ? 0 : t > 1 ? 1 : t;
	} else {
		b = a;
	}
	free(d);
	for (j = 0; j < p->n; j++) {
		bytes[j] = (1 - t) * p->bytes[a * p->n + j] +
			   t * p->bytes[b * p->n + j];
		secs[j] = (1 - t) * p->secs[a * p->n + j] +
			  t * p->secs[b * p->n + j];
	}
	if (wall)
		*wall = (1 - t) * p->wall[a] + t * p->wall[b];
	return 0;
}

/* ---- Fig. 2 ------------------------------------------------------------ */

/* Whole copies for the real targets t (sum procs); see dl_anthill.h. */
static void _round(uint32_t n, const double *t, uint32_t procs, uint32_t *c)
{
	uint64_t total = 0;
	uint32_t j;

	for (j = 0; j < n; j++) {
		double f = floor(t[j] + EPS);

		c[j] = f < 1 ? 1 : (uint32_t) f;
		total += c[j];
	}
	while (total < procs) {
		uint32_t best = 0;

		for (j = 1; j < n; j++)
			if (t[j] - c[j] > t[best] - c[best] + EPS)
				best = j;
		c[best]++;
		total++;
	}
	while (total > procs) {
		uint32_t best = n;

		for (j = 0; j < n; j++)
			if (c[j] > 1 && (best == n ||
					 c[j] - t[j] > c[best] - t[best] + EPS))
				best = j;
		if (best == n)
			break; /* p < n: one copy each, sharing processors */
		c[best]--;
		total--;
	}
}

int dl_anthill_copies(uint32_t n, const double *bytes, const double *secs,
		      const uint8_t *broadcast, uint32_t procs,
		      uint32_t iterations, uint32_t *copies)
{
	double *bp, *t;
	uint32_t *cur, *prev, j, it;

	if (!n || !bytes || !secs || !copies || !procs || !iterations)
		return DL_EINVAL;
	for (j = 0; j < n; j++)
		if (!(bytes[j] >= 0 && secs[j] >= 0) || !isfinite(bytes[j]) ||
		    !isfinite(secs[j]))
			return DL_EINVAL;
	bp = malloc(n * sizeof(*bp));
	t = malloc(n * sizeof(*t));
	cur = malloc(n * sizeof(*cur));
	prev = malloc(n * sizeof(*prev));
	if (!bp || !t || !cur || !prev) {
		free(bp);
		free(t);
		free(cur);
		free(prev);
		return DL_ENOMEM;
	}
	memcpy(bp, bytes, n * sizeof(*bp));
	for (it = 0; it < iterations; it++) {
		double sb = 0, se = 0;

		for (j = 0; j < n; j++) {
			sb += bp[j];
			se += secs[j];
		}
		for (j = 0; j < n; j++) {
			double share;

			/* Fig. 2 in anthillsched-goes, normalised as in §4 */
			if (sb > 0 && se > 0)
				share = (bp[j] / sb + secs[j] / se) / 2;
			else if (sb > 0)
				share = bp[j] / sb;
			else if (se > 0)
				share = secs[j] / se;
			else
				share = 1.0 / n;
			t[j] = procs * share;
		}
		_round(n, t, procs, cur);
		if (it && !memcmp(cur, prev, n * sizeof(*cur)))
			break; /* a fixed point */
		memcpy(prev, cur, n * sizeof(*cur));
		/* A broadcast feeds every copy of the next filter in full. */
		for (j = 0; j < n; j++)
			if (broadcast && broadcast[j]) {
				uint32_t q = (j + 1) % n;

				bp[q] = bytes[q] * cur[q];
			}
	}
	memcpy(copies, cur, n * sizeof(*cur));
	free(bp);
	free(t);
	free(cur);
	free(prev);
	return 0;
}

int dl_anthill_schedule(const dl_anthill_profile_t *p, const char *params,
			const dl_anthill_opts_t *o, uint32_t *copies,
			int *parallel)
{
	double *b, *s, wall;
	uint32_t j;
	int rc;

	if (!p || !o || !copies || !o->procs || !o->iterations ||
	    !(o->threshold >= 0) || !isfinite(o->threshold))
		return DL_EINVAL;
	b = malloc(p->n * sizeof(*b));
	s = malloc(p->n * sizeof(*s));
	if (!b || !s) {
		free(b);
		free(s);
		return DL_ENOMEM;
	}
	rc = dl_anthill_estimate(p, params, b, s, &wall);
	if (!rc && wall < o->threshold) {
		/* OAS, anthillsched-goes §4: short jobs stay sequential */
		for (j = 0; j < p->n; j++)
			copies[j] = 1;
		if (parallel)
			*parallel = 0;
	} else if (!rc) {
		rc = dl_anthill_copies(p->n, b, s, p->bcast, o->procs,
				       o->iterations, copies);
		if (!rc && parallel)
			*parallel = 1;
	}
	free(b);
	free(s);
	return rc;
}
