/* provision.c - the node pool of dl-sim; see provision.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dl_error.h"
#include "provision.h"
#include "sim.h"

/* Bounds of what a spec may say: a week of latency or idle time. */
#define PROV_SECONDS_MAX (7.0 * 86400.0)
#define PROV_NODES_MAX 1000000u

static const char *const alloc_names[] = { "one", "additive", "exponential",
					   "all" };

void dl_prov_config_default(dl_prov_config_t *c)
{
	memset(c, 0, sizeof(*c));
	c->alloc = DL_PROV_ADDITIVE;
	c->step = 1;
	c->latency_min = 30;
	c->latency_max = 60;
	c->idle = 60;
	c->interval = 5;
}

const char *dl_prov_alloc_name(dl_prov_alloc_t a)
{
	if ((unsigned)a < sizeof(alloc_names) / sizeof(alloc_names[0]))
		return alloc_names[a];
	return "?";
}

static void _err(char *err, size_t len, const char *what, const char *val)
{
	if (err && len)
		snprintf(err, len, "--provision: bad %s '%s'", what, val);
}

static int _seconds(const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || !(v >= 0 && v <= PROV_SECONDS_MAX))
		return -1;
	*out = v;
	return 0;
}

static int _nodes(const char *s, uint32_t *out)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (end == s || *end || *s == '-' || v > PROV_NODES_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

static int _latency(const char *s, dl_prov_config_t *c)
{
	char a[64], *colon;

	snprintf(a, sizeof(a), "%s", s);
	colon = strchr(a, ':');
	if (colon)
		*colon = '\0';
	if (_seconds(a, &c->latency_min))
		return -1;
	c->latency_max = c->latency_min;
	if (colon && (_seconds(colon + 1, &c->latency_max) ||
		      c->latency_max < c->latency_min))
		return -1;
	return 0;
}

/* One "key" of the spec, its value in val; -1 with err set when bad. */
static int _key(dl_prov_config_t *c, const char *key, const char *val,
		char *err, size_t len)
{
	size_t i;

	if (!strcmp(key, "alloc")) {
		for (i = 0; i < 4; i++)
			if (!strcmp(val, alloc_names[i])) {
				c->alloc = (dl_prov_alloc_t)i;
				return 0;
			}
	} else if (!strcmp(key, "step")) {
		if (!_nodes(val, &c->step) && c->step)
			return 0;
	} else if (!strcmp(key, "min")) {
		if (!_nodes(val, &c->min_nodes))
			return 0;
	} else if (!strcmp(key, "max")) {
		if (!_nodes(val, &c->max_nodes))
			return 0;
	} else if (!strcmp(key, "latency")) {
		if (!_latency(val, c))
			return 0;
	} else if (!strcmp(key, "idle")) {
		if (!_seconds(val, &c->idle))
			return 0;
	} else if (!strcmp(key, "interval")) {
		if (!_seconds(val, &c->interval) && c->interval > 0)
			return 0;
	} else if (!strcmp(key, "cache")) {
		if (!strcmp(val, "lost") || !strcmp(val, "kept")) {
			c->keep_cache = !strcmp(val, "kept");
			return 0;
		}
	} else {
		_err(err, len, "key", key);
		return -1;
	}
	_err(err, len, key, val);
	return -1;
}

int dl_prov_parse(const char *spec, dl_prov_config_t *c, char *err,
		  size_t errlen)
{
	dl_prov_config_t t;
	const char *p;

	if (!spec || !c)
		return DL_EINVAL;
	t = *c;
	if (!strcmp(spec, "off")) {
		c->enabled = 0;
		return 0;
	}
	/* "key=value" items separated by commas; a later key wins. */
	for (p = spec; *p;) {
		const char *eq = strchr(p, '='), *comma = strchr(p, ',');
		const char *end = comma ? comma : p + strlen(p);
		char key[32], val[64];
		size_t klen, vlen;

		if (!eq || eq > end || eq == p ||
		    (klen = (size_t)(eq - p)) >= sizeof(key) ||
		    (vlen = (size_t)(end - eq - 1)) >= sizeof(val)) {
			_err(err, errlen, "item in", spec);
			return DL_EINVAL;
		}
		memcpy(key, p, klen);
		key[klen] = '\0';
		memcpy(val, eq + 1, vlen);
		val[vlen] = '\0';
		if (_key(&t, key, val, err, errlen))
			return DL_EINVAL;
		p = comma ? comma + 1 : end;
	}
	if (t.max_nodes && t.min_nodes > t.max_nodes) {
		if (err && errlen)
			snprintf(err, errlen,
				 "--provision: min (%u) above max (%u)",
				 t.min_nodes, t.max_nodes);
		return DL_EINVAL;
	}
	t.enabled = 1;
	*c = t;
	return 0;
}

void dl_prov_format(const dl_prov_config_t *c, char *buf, size_t len)
{
	if (!c->enabled) {
		snprintf(buf, len, "off");
		return;
	}
	snprintf(buf, len,
		 "alloc=%s,step=%u,min=%u,max=%u,latency=%g:%g,idle=%g,"
		 "interval=%g,cache=%s",
		 dl_prov_alloc_name(c->alloc), c->step, c->min_nodes,
		 c->max_nodes, c->latency_min, c->latency_max, c->idle,
		 c->interval, c->keep_cache ? "kept" : "lost");
}

uint32_t dl_prov_request(const dl_prov_config_t *c, size_t queued,
			 uint32_t cores, uint32_t on, uint32_t booting,
			 uint32_t nodes, uint32_t *round)
{
	uint32_t max = c->max_nodes && c->max_nodes < nodes ? c->max_nodes :
							       nodes;
	uint64_t need, room, ask;

	if (!cores)
		cores = 1;
	need = ((uint64_t)queued + cores - 1) / cores;
	need = need > booting ? need - booting : 0;
	room = max > on + booting ? max - on - booting : 0;
	if (need > room)
		need = room;
	if (!need) {
		*round = 0;
		return 0;
	}
	(*round)++;
	switch (c->alloc) {
	case DL_PROV_ONE:
		ask = 1;
		break;
	case DL_PROV_ADDITIVE:
		ask = (uint64_t)c->step * *round;
		break;
	case DL_PROV_EXPONENTIAL:
		ask = *round > 32 ? UINT64_MAX : 1ULL << (*round - 1);
		break;
	default:
		ask = need;
		break;
	}
	return (uint32_t)(ask < need ? ask : need);
}

int dl_prov_release_due(const dl_prov_config_t *c, double idle_since,
			double now, uint32_t on_or_booting)
{
	return idle_since >= 0 && now - idle_since >= c->idle &&
	       on_or_booting > c->min_nodes;
}

/* splitmix64: small, seedable, the same sequence on every platform. */
static uint64_t _rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

int dl_prov_pool_init(dl_prov_pool_t *p, const dl_prov_config_t *c,
		      uint32_t nodes, uint64_t seed, double t0)
{
	uint32_t n;

	memset(p, 0, sizeof(*p));
	if (!c || !nodes)
		return DL_EINVAL;
	p->cfg = *c;
	if (!p->cfg.max_nodes || p->cfg.max_nodes > nodes)
		p->cfg.max_nodes = nodes;
	if (p->cfg.min_nodes > p->cfg.max_nodes)
		return DL_EINVAL;
	p->state = calloc(nodes, sizeof(*p->state));
	p->since = calloc(nodes, sizeof(*p->since));
	p->idle_since = calloc(nodes, sizeof(*p->idle_since));
	if (!p->state || !p->since || !p->idle_since) {
		dl_prov_pool_fini(p);
		return DL_ENOMEM;
	}
	p->nodes = nodes;
	p->rng = seed;
	p->t0 = t0;
	for (n = 0; n < nodes; n++) {
		p->idle_since[n] = -1;
		if (!c->enabled) {
			p->state[n] = DL_PROV_ON;
			p->since[n] = t0;
		}
	}
	if (!c->enabled)
		p->on = p->peak = nodes;
	return 0;
}

void dl_prov_pool_fini(dl_prov_pool_t *p)
{
	free(p->state);
	free(p->since);
	free(p->idle_since);
	memset(p, 0, sizeof(*p));
}

uint32_t dl_prov_pool_allocate(dl_prov_pool_t *p, double now, size_t queued,
			       uint32_t cores, uint32_t *node, double *ready)
{
	uint32_t ask, k = 0, n;

	if (!p->cfg.enabled)
		return 0;
	ask = dl_prov_request(&p->cfg, queued, cores, p->on, p->booting,
			      p->nodes, &p->round);
	/* The minimum is kept whatever the queue says. */
	if (p->on + p->booting + ask < p->cfg.min_nodes)
		ask = p->cfg.min_nodes - p->on - p->booting;
	for (n = 0; n < p->nodes && k < ask; n++) {
		double span = p->cfg.latency_max - p->cfg.latency_min, u;

		if (p->state[n] != DL_PROV_OFF)
			continue;
		/* 53 random bits: uniform in [0, 1). */
		u = (double)(_rand(&p->rng) >> 11) / 9007199254740992.0;
		p->state[n] = DL_PROV_BOOTING;
		p->booting++;
		p->allocations++;
		node[k] = n;
		ready[k++] = now + p->cfg.latency_min + (span > 0 ? u * span : 0);
	}
	return k;
}

int dl_prov_pool_ready(dl_prov_pool_t *p, uint32_t n, double now)
{
	if (n >= p->nodes || p->state[n] != DL_PROV_BOOTING)
		return DL_EINVAL;
	p->state[n] = DL_PROV_ON;
	p->booting--;
	p->on++;
	if (p->on > p->peak)
		p->peak = p->on;
	p->since[n] = now;
	p->idle_since[n] = now;
	return 0;
}

void dl_prov_pool_busy(dl_prov_pool_t *p, uint32_t n)
{
	if (n < p->nodes)
		p->idle_since[n] = -1;
}

void dl_prov_pool_idle(dl_prov_pool_t *p, uint32_t n, double now)
{
	if (n < p->nodes && p->idle_since[n] < 0)
		p->idle_since[n] = now;
}

/* Seconds of [from, to] inside [t0, end]. */
static double _clip(double from, double to, double t0, double end)
{
	from = fmax(from, t0);
	to = fmin(to, end);
	return to > from ? to - from : 0;
}

int dl_prov_pool_release(dl_prov_pool_t *p, uint32_t n, double now)
{
	if (!p->cfg.enabled || n >= p->nodes || p->state[n] != DL_PROV_ON ||
	    !dl_prov_release_due(&p->cfg, p->idle_since[n], now,
				 p->on + p->booting))
		return 0;
	p->node_seconds += _clip(p->since[n], now, p->t0, INFINITY);
	p->state[n] = DL_PROV_OFF;
	p->on--;
	p->idle_since[n] = -1;
	p->releases++;
	return 1;
}

int dl_prov_pool_usable(const dl_prov_pool_t *p, uint32_t n)
{
	return n < p->nodes && p->state[n] == DL_PROV_ON;
}

double dl_prov_pool_node_seconds(const dl_prov_pool_t *p, double end)
{
	double s = p->node_seconds;
	uint32_t n;

	for (n = 0; n < p->nodes; n++)
		if (p->state[n] == DL_PROV_ON)
			s += _clip(p->since[n], end, p->t0, end);
	return s;
}

double dl_prov_cpu_hours(double node_seconds, uint32_t cores)
{
	return node_seconds * cores / 3600.0;
}

double dl_prov_speedup(double wet_base, double wet)
{
	return wet > 0 ? wet_base / wet : 0;
}

double dl_prov_perf_index(double speedup, double cpu_hours)
{
	return cpu_hours > 0 ? speedup / cpu_hours : 0;
}

void dl_prov_pi_normalize(double *pi, size_t n)
{
	double max = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (pi[i] > max)
			max = pi[i];
	if (max <= 0)
		return;
	for (i = 0; i < n; i++)
		pi[i] /= max;
}

int dl_prov_timeline_csv(const char *path, const struct dl_sim_sample *x,
			 size_t n)
{
	FILE *f = fopen(path, "w");
	size_t i;

	if (!f)
		return DL_EIO;
	fprintf(f, "t,nodes_on,nodes_booting,queued,running,busy_slots,"
		   "arrived,completed,hit_local,hit_peer,miss\n");
	for (i = 0; i < n; i++) {
		const struct dl_sim_sample *p = i ? &x[i - 1] : NULL;

		fprintf(f, "%.3f,%u,%u,%zu,%zu,%llu,%zu,%zu,%llu,%llu,%llu\n",
			x[i].t, x[i].on, x[i].booting, x[i].queued,
			x[i].running, (unsigned long long)x[i].busy_slots,
			x[i].arrived - (p ? p->arrived : 0),
			x[i].completed - (p ? p->completed : 0),
			(unsigned long long)(x[i].hit_local -
					     (p ? p->hit_local : 0)),
			(unsigned long long)(x[i].hit_peer -
					     (p ? p->hit_peer : 0)),
			(unsigned long long)(x[i].miss - (p ? p->miss : 0)));
	}
	return fclose(f) ? DL_EIO : 0;
}
