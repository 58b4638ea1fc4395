/*
 * cli_rates.c - "sdatalocality rates": the copy rates the planning agent
 * uses, configured and measured, from StateSaveLocation/datalocality_rates
 * (written by the agent, agent_rates.h; format in sdatalocality(1)).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define RATE_KINDS 2

/* One "rate" line; numbers kept as read (text) and as values. */
typedef struct rate {
	char kind[16], source[16];
	double used, prior, learned, bytes, secs;
	unsigned long long reports, small, unknown, bogus, min_bytes;
	unsigned long long min_reports;
	int ok;
} rate_t;

/* key=value fields of a line into r; unknown keys are skipped. */
static void _fields(char *line, rate_t *r)
{
	struct { const char *k; double *d; unsigned long long *u; } m[] = {
		{ "used", &r->used, NULL }, { "prior", &r->prior, NULL },
		{ "learned", &r->learned, NULL }, { "bytes", &r->bytes, NULL },
		{ "secs", &r->secs, NULL }, { "reports", NULL, &r->reports },
		{ "small", NULL, &r->small }, { "unknown", NULL, &r->unknown },
		{ "bogus", NULL, &r->bogus },
		{ "min_bytes", NULL, &r->min_bytes },
		{ "min_reports", NULL, &r->min_reports },
	};
	char *save = NULL;

	for (char *t = strtok_r(line, " \n", &save); t;
	     t = strtok_r(NULL, " \n", &save)) {
		char *v = strchr(t, '=');

		if (!v)
			continue;
		*v++ = '\0';
		if (!strcmp(t, "source")) {
			snprintf(r->source, sizeof(r->source), "%s", v);
			continue;
		}
		for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
			if (strcmp(t, m[i].k))
				continue;
			if (m[i].d)
				*m[i].d = strtod(v, NULL);
			else
				*m[i].u = strtoull(v, NULL, 10);
		}
	}
	r->ok = r->source[0] != '\0';
}

/* Read path; \return the number of rate lines, -1 (errno) if unreadable. */
static int _read(const char *path, char *learn, long long *when, rate_t *r)
{
	char line[1024];
	FILE *f = fopen(path, "r");
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		const char *l;

		if (!strncmp(line, "# datalocality rates 1 ", 23)) {
			if ((l = strstr(line, "time=")))
				*when = strtoll(l + 5, NULL, 10);
			if ((l = strstr(line, "learn=")))
				sscanf(l + 6, "%15s", learn);
			continue;
		}
		if (n >= RATE_KINDS || strncmp(line, "rate ", 5))
			continue;
		memset(&r[n], 0, sizeof(r[n]));
		sscanf(line + 5, "%15s", r[n].kind);
		_fields(line + 5 + strlen(r[n].kind), &r[n]);
		if (r[n].ok)
			n++;
	}
	fclose(f);
	return n;
}

static void _json(const rate_t *r, int n, const char *learn, long long when)
{
	printf("{\"learn\":");
	dl_cli_jstr(learn);
	printf(",\"time\":%lld,\"rates\":[", when);
	for (int i = 0; i < n; i++) {
		printf("%s{\"kind\":", i ? "," : "");
		dl_cli_jstr(r[i].kind);
		printf(",\"used\":%.0f,\"source\":", r[i].used);
		dl_cli_jstr(r[i].source);
		printf(",\"configured\":%.0f,\"measured\":%.0f,\"bytes\":%.0f,"
		       "\"secs\":%.3f,\"reports\":%llu,\"small\":%llu,"
		       "\"unknown\":%llu,\"bogus\":%llu,\"min_bytes\":%llu,"
		       "\"min_reports\":%llu}", r[i].prior, r[i].learned,
		       r[i].bytes, r[i].secs, r[i].reports, r[i].small,
		       r[i].unknown, r[i].bogus, r[i].min_bytes,
		       r[i].min_reports);
	}
	printf("]}\n");
}

/* "storage: plans use 12345 B/s (learned) ...", one line per kind. */
static void _text(const rate_t *r, int n, const char *learn, long long when)
{
	char t[64];

	dl_cli_time(when, t, sizeof(t));
	printf("copy rates (LearnRates=%s, as of %s):\n", learn, t);
	for (int i = 0; i < n; i++) {
		printf("  %s: plans use %.0f B/s (%s); configured %.0f B/s; ",
		       r[i].kind, r[i].used, r[i].source, r[i].prior);
		if (r[i].reports)
			printf("measured %.0f B/s from %llu reports (decayed "
			       "sums %.0f bytes in %.3f s)", r[i].learned,
			       r[i].reports, r[i].bytes, r[i].secs);
		else
			printf("measured: none yet");
		printf("; ignored: %llu below %llu bytes, %llu without a time, "
		       "%llu implausible; learned after %llu reports\n",
		       r[i].small, r[i].min_bytes, r[i].unknown, r[i].bogus,
		       r[i].min_reports);
	}
}

int dl_cli_rates(const char *path, int json)
{
	rate_t r[RATE_KINDS];
	char learn[16] = "?";
	long long when = 0;
	int n = _read(path, learn, &when, r);

	if (n < 0) {
		fprintf(stderr, "sdatalocality: %s: %s%s\n", path,
			strerror(errno), errno == ENOENT ?
			" (the agent writes it once it runs)" : "");
		return 1;
	}
	if (json)
		_json(r, n, learn, when);
	else
		_text(r, n, learn, when);
	return 0;
}
