/*
 * agent_rates.c - the copy rates learned from the nodes' reports; see
 * agent_rates.h.  State: per kind a few numbers under one mutex.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent_rates.h"

static struct {
	pthread_mutex_t lock;
	agent_rate_t r[AGENT_RATE_KINDS];
	uint64_t min_bytes;                     /* of the last apply */
	uint64_t version;
	agent_rate_source_t last[AGENT_RATE_KINDS]; /* of the last apply */
	int applied;                            /* last[] is set */
} g = { .lock = PTHREAD_MUTEX_INITIALIZER,
	.min_bytes = AGENT_RATES_MIN_BYTES };

static const char *const kind_names[] = { "storage", "peer" };
static const char *const source_names[] = { "prior", "learned", "cap",
					     "off" };

const char *agent_rates_kind_name(agent_rate_kind_t k)
{
	return k < AGENT_RATE_KINDS ? kind_names[k] : "?";
}

const char *agent_rates_source_name(agent_rate_source_t s)
{
	return s <= AGENT_RATE_OFF ? source_names[s] : "?";
}

int agent_rates_note(agent_rate_kind_t k, uint64_t bytes, uint64_t us)
{
	agent_rate_t *r;
	int taken = 0;

	if (k >= AGENT_RATE_KINDS || !bytes)
		return 0;
	pthread_mutex_lock(&g.lock);
	r = &g.r[k];
	g.version++;
	if (bytes < g.min_bytes) {
		r->small++;
	} else if (!us) {
		r->unknown++;
	} else if ((double)bytes / ((double)us / 1e6) > AGENT_RATES_MAX) {
		r->bogus++;
	} else {
		/* The older reports weigh less: the rate follows a change. */
		r->bytes = r->bytes * AGENT_RATES_DECAY + (double)bytes;
		r->secs = r->secs * AGENT_RATES_DECAY + (double)us / 1e6;
		if (r->taken < UINT64_MAX)
			r->taken++;
		r->learned = r->bytes / r->secs;
		taken = 1;
	}
	pthread_mutex_unlock(&g.lock);
	return taken;
}

void agent_rates_get(agent_rate_kind_t k, agent_rate_t *out)
{
	memset(out, 0, sizeof(*out));
	if (k >= AGENT_RATE_KINDS)
		return;
	pthread_mutex_lock(&g.lock);
	*out = g.r[k];
	pthread_mutex_unlock(&g.lock);
}

uint64_t agent_rates_version(void)
{
	uint64_t v;

	pthread_mutex_lock(&g.lock);
	v = g.version;
	pthread_mutex_unlock(&g.lock);
	return v;
}

double agent_rates_pick(const agent_rate_t *r, agent_rate_kind_t k,
			const agent_rates_conf_t *c, agent_rate_source_t *src)
{
	double prior = k < AGENT_RATE_KINDS ? c->prior[k] : 0;
	agent_rate_source_t s = AGENT_RATE_LEARNED;
	uint32_t need = c->min_reports ? c->min_reports : 1;

	if (c->mode == AGENT_RATES_OFF)
		s = AGENT_RATE_OFF;
	else if (r->taken < need || !(r->learned > 0))
		s = AGENT_RATE_PRIOR;
	else if (c->mode == AGENT_RATES_CAPPED && prior > 0 &&
		 r->learned > prior)
		s = AGENT_RATE_CAP;
	if (src)
		*src = s;
	return s == AGENT_RATE_LEARNED ? r->learned : prior;
}

/* One kind's change of source, for the log. */
static size_t _say(char *msg, size_t len, size_t at, agent_rate_kind_t k,
		   agent_rate_source_t s, const agent_rate_t *r,
		   const agent_rates_conf_t *c)
{
	int n;

	if (at >= len)
		return at;
	n = snprintf(msg + at, len - at, "%s%s rate for plans: %s %.0f B/s "
		     "(learned %.0f B/s from %" PRIu64 " reports, configured "
		     "%.0f B/s)", at ? "; " : "", kind_names[k], source_names[s],
		     s == AGENT_RATE_LEARNED ? r->learned : c->prior[k],
		     r->learned, r->taken, c->prior[k]);
	return n < 0 ? at : at + (size_t)n;
}

int agent_rates_apply(const agent_rates_conf_t *c,
		      double used[AGENT_RATE_KINDS], char *msg, size_t len)
{
	size_t at = 0;
	int changed = 0;

	if (msg && len)
		msg[0] = '\0';
	pthread_mutex_lock(&g.lock);
	g.min_bytes = c->min_bytes;
	for (int k = 0; k < AGENT_RATE_KINDS; k++) {
		agent_rate_source_t s;

		used[k] = agent_rates_pick(&g.r[k], k, c, &s);
		if (g.applied && s == g.last[k])
			continue;
		/* The first apply logs only a rate that is not the prior. */
		if (g.applied || s == AGENT_RATE_LEARNED ||
		    s == AGENT_RATE_CAP) {
			changed = 1;
			if (msg)
				at = _say(msg, len, at, k, s, &g.r[k], c);
		}
		g.last[k] = s;
	}
	g.applied = 1;
	pthread_mutex_unlock(&g.lock);
	return changed;
}

/* One line of the rates file (sdatalocality(1) says the format). */
static void _line(FILE *f, agent_rate_kind_t k, const agent_rate_t *r,
		  const agent_rates_conf_t *c)
{
	agent_rate_source_t s;
	double used = agent_rates_pick(r, k, c, &s);

	/* The sums exactly: the next start restores them. */
	fprintf(f, "rate %s used=%.0f source=%s prior=%.0f learned=%.0f "
		"bytes=%.17g secs=%.17g reports=%" PRIu64 " small=%" PRIu64
		" unknown=%" PRIu64 " bogus=%" PRIu64 " min_bytes=%" PRIu64
		" min_reports=%" PRIu32 " decay=%g\n", kind_names[k], used,
		source_names[s], c->prior[k], r->learned, r->bytes, r->secs,
		r->taken, r->small, r->unknown, r->bogus, c->min_bytes,
		c->min_reports, AGENT_RATES_DECAY);
}

int agent_rates_write(const char *path, const agent_rates_conf_t *c,
		      long long now)
{
	static const char *const modes[] = { "no", "yes", "capped" };
	agent_rate_t r[AGENT_RATE_KINDS];
	char tmp[4096];
	FILE *f;
	int err = 0;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return ENAMETOOLONG;
	for (int k = 0; k < AGENT_RATE_KINDS; k++)
		agent_rates_get(k, &r[k]);
	if (!(f = fopen(tmp, "w")))
		return errno;
	fprintf(f, "# datalocality rates 1 time=%lld learn=%s\n", now,
		c->mode <= AGENT_RATES_CAPPED ? modes[c->mode] : "?");
	for (int k = 0; k < AGENT_RATE_KINDS; k++)
		_line(f, k, &r[k], c);
	if (fflush(f) || ferror(f))
		err = errno ? errno : EIO;
	if (fclose(f) && !err)
		err = errno ? errno : EIO;
	if (!err && rename(tmp, path))
		err = errno;
	if (err)
		remove(tmp);
	return err;
}

/* The number after " key=" in line; RET 0, -1 if absent or malformed. */
static int _num(const char *line, const char *key, double *v)
{
	char pat[32], *end;
	const char *at;

	snprintf(pat, sizeof(pat), " %s=", key);
	if (!(at = strstr(line, pat)))
		return -1;
	at += strlen(pat);
	if (*at < '0' || *at > '9')
		return -1;
	errno = 0;
	*v = strtod(at, &end);
	return errno || end == at || (*end != ' ' && *end != '\n' && *end) ||
	       !isfinite(*v) ? -1 : 0;
}

/* A "rate KIND ..." line's sums into *r; RET its kind, or -1. */
static int _parse(const char *line, agent_rate_t *r)
{
	double b, s, n;
	int k;

	if (strncmp(line, "rate ", 5))
		return -1;
	for (k = 0; k < AGENT_RATE_KINDS; k++)
		if (!strncmp(line + 5, kind_names[k], strlen(kind_names[k])) &&
		    line[5 + strlen(kind_names[k])] == ' ')
			break;
	if (k == AGENT_RATE_KINDS || _num(line, "bytes", &b) ||
	    _num(line, "secs", &s) || _num(line, "reports", &n))
		return -1;
	/* Both sums or neither; a rate a disk or a network could have. */
	if ((b > 0) != (s > 0) || (b > 0) != (n >= 1) || n > 1e18 ||
	    (s > 0 && b / s > AGENT_RATES_MAX))
		return -1;
	memset(r, 0, sizeof(*r));
	r->bytes = b;
	r->secs = s;
	r->taken = (uint64_t)n;
	r->learned = s > 0 ? b / s : 0;
	return k;
}

int agent_rates_load(const char *path)
{
	char line[1024];
	agent_rate_t r;
	FILE *f = fopen(path, "r");
	int n = 0, k;

	if (!f)
		return -errno;
	if (!fgets(line, sizeof(line), f) ||
	    strncmp(line, "# datalocality rates 1 ", 23)) {
		fclose(f);
		return -EINVAL;
	}
	while (fgets(line, sizeof(line), f)) {
		if ((k = _parse(line, &r)) < 0 || !r.taken)
			continue;
		pthread_mutex_lock(&g.lock);
		/* What this run learned already is newer. */
		if (!g.r[k].taken) {
			g.r[k] = r;
			g.version++;
			n++;
		}
		pthread_mutex_unlock(&g.lock);
	}
	fclose(f);
	return n;
}

void agent_rates_reset(void)
{
	pthread_mutex_lock(&g.lock);
	memset(g.r, 0, sizeof(g.r));
	memset(g.last, 0, sizeof(g.last));
	g.applied = 0;
	g.min_bytes = AGENT_RATES_MIN_BYTES;
	g.version++;
	pthread_mutex_unlock(&g.lock);
}
