/* agent_window.c - the planning window; see agent_window.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "agent_window.h"

/*
 * The value of key in a comma-separated "key=value,..." list, as a
 * positive number; RET 0 when absent or not one.  Keys match whole
 * (bf_max_job_test is not bf_max_job_test_x), case-insensitively as
 * Slurm's own parsing.
 */
static uint32_t _param(const char *params, const char *key)
{
	size_t klen = strlen(key);
	const char *p = params;
	unsigned long v;
	char *end;

	while (p && *p) {
		if (!strncasecmp(p, key, klen) && p[klen] == '=') {
			errno = 0;
			v = strtoul(p + klen + 1, &end, 10);
			if (errno || end == p + klen + 1 ||
			    (*end && *end != ',') || !v || v > UINT32_MAX)
				return 0;
			return (uint32_t)v;
		}
		p = strchr(p, ',');
		if (p)
			p++;
	}
	return 0;
}

void agent_window_sched_parse(const char *params, agent_window_sched_t *out)
{
	out->queue_depth = _param(params, "default_queue_depth");
	if (!out->queue_depth)
		out->queue_depth = AGENT_WINDOW_QUEUE_DEPTH;
	out->bf_test = _param(params, "bf_max_job_test");
	if (!out->bf_test)
		out->bf_test = AGENT_WINDOW_BF_TEST;
	out->bf_part = _param(params, "bf_max_job_part");
}

uint32_t agent_window_size(const agent_window_sched_t *s, uint32_t override,
			   uint32_t free_cpus)
{
	uint64_t w;
	uint32_t bf = s->bf_test;

	if (override)
		return override;
	if (s->bf_part && s->bf_part < bf)
		bf = s->bf_part;
	w = (uint64_t)(s->queue_depth > bf ? s->queue_depth : bf) + free_cpus;
	return w > UINT32_MAX ? UINT32_MAX : (uint32_t)w;
}

/* Partition, then Slurm's order within it. */
static int _cmp(const void *a, const void *b)
{
	const agent_window_cand_t *x = a, *y = b;

	if (x->part != y->part)
		return x->part < y->part ? -1 : 1;
	if (x->priority != y->priority)
		return x->priority > y->priority ? -1 : 1;
	if (x->submit != y->submit)
		return x->submit < y->submit ? -1 : 1;
	if (x->job_id != y->job_id)
		return x->job_id < y->job_id ? -1 : 1;
	return 0;
}

uint32_t agent_window_select(agent_window_cand_t *cand, uint32_t n,
			     uint32_t per_part, uint8_t *in)
{
	uint32_t i, rank = 0, marked = 0;

	if (!n)
		return 0;
	qsort(cand, n, sizeof(*cand), _cmp);
	for (i = 0; i < n; i++) {
		rank = i && cand[i].part == cand[i - 1].part ? rank + 1 : 0;
		if (rank >= per_part || in[cand[i].idx])
			continue;
		in[cand[i].idx] = 1;
		marked++;
	}
	return marked;
}
