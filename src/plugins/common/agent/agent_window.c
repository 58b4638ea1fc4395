/* agent_window.c - the planning window; see agent_window.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "agent_window.h"

/*
 * The value of key in a comma-separated "key=value,..." list, a number of
 * 32 bits (0 too); RET whether key is there with such a value.  Keys match
 * whole (bf_max_job_test is not bf_max_job_test_x), case-insensitively
 * as Slurm's own parsing.
 */
static bool _value(const char *params, const char *key, uint32_t *out)
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
			    (*end && *end != ',') || v > UINT32_MAX)
				return false;
			*out = (uint32_t)v;
			return true;
		}
		p = strchr(p, ',');
		if (p)
			p++;
	}
	return false;
}

/* The same as a positive number; RET 0 when absent, 0 or not one. */
static uint32_t _param(const char *params, const char *key)
{
	uint32_t v;

	return _value(params, key, &v) ? v : 0;
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
	/* 0 is Slurm's too (no task reserved): then 2 x the CPUs alone. */
	if (!_value(params, "bf_max_job_array_resv", &out->array_resv) ||
	    out->array_resv > AGENT_WINDOW_ARRAY_RESV_MAX)
		out->array_resv = AGENT_WINDOW_ARRAY_RESV;
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

uint32_t agent_window_array_room(const agent_window_sched_t *s,
				 uint32_t window, uint32_t usable_cpus)
{
	uint64_t room = 2 * (uint64_t)usable_cpus;

	if (room < s->array_resv)
		room = s->array_resv;
	return room < window ? (uint32_t)room : window;
}

/* Slurm's order within a partition: priority, submit time, job id. */
static int _cmp_order(const agent_window_cand_t *x,
		      const agent_window_cand_t *y)
{
	if (x->priority != y->priority)
		return x->priority > y->priority ? -1 : 1;
	if (x->submit != y->submit)
		return x->submit < y->submit ? -1 : 1;
	if (x->job_id != y->job_id)
		return x->job_id < y->job_id ? -1 : 1;
	return 0;
}

/* Partition, then Slurm's order within it. */
static int _cmp(const void *a, const void *b)
{
	const agent_window_cand_t *x = a, *y = b;

	if (x->part != y->part)
		return x->part < y->part ? -1 : 1;
	return _cmp_order(x, y);
}

static void _swap(agent_window_cand_t *a, agent_window_cand_t *b)
{
	agent_window_cand_t t = *a;

	*a = *b;
	*b = t;
}

/*
 * Put the first k of c[0..n) in Slurm's order into c[0..k), in no
 * particular order (quickselect, median of three: linear on average, and
 * on a queue already in order): the window of a long queue without
 * sorting all of it at every cycle.  0 < k < n.
 */
static void _first_k(agent_window_cand_t *c, uint32_t n, uint32_t k)
{
	uint32_t lo = 0, hi = n, mid, i, st;

	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		/* Median of three into c[hi - 1], the pivot. */
		if (_cmp_order(&c[mid], &c[lo]) < 0)
			_swap(&c[mid], &c[lo]);
		if (_cmp_order(&c[hi - 1], &c[lo]) < 0)
			_swap(&c[hi - 1], &c[lo]);
		if (_cmp_order(&c[mid], &c[hi - 1]) < 0)
			_swap(&c[mid], &c[hi - 1]);
		for (st = lo, i = lo; i < hi - 1; i++)
			if (_cmp_order(&c[i], &c[hi - 1]) < 0)
				_swap(&c[i], &c[st++]);
		_swap(&c[st], &c[hi - 1]);
		if (st == k || st + 1 == k)
			return;
		if (st < k)
			lo = st + 1;
		else
			hi = st;
	}
}

/* Few partitions are grouped in one pass; more are sorted. */
#define MAX_PARTS 64

/*
 * Group cand by partition (counting sort into out, stable): RET the
 * number of partitions, with start[p]..start[p + 1] the candidates of
 * partition p in out; 0 if there are more than MAX_PARTS.
 */
static uint32_t _group(const agent_window_cand_t *cand, uint32_t n,
		       agent_window_cand_t *out, uint32_t *start)
{
	uint64_t part[MAX_PARTS];
	uint32_t np = 0, i, p, pos[MAX_PARTS + 1] = { 0 };
	uint8_t *of = malloc(n);

	if (!of)
		return 0;
	for (i = 0; i < n; i++) {
		for (p = 0; p < np && part[p] != cand[i].part; p++)
			;
		if (p == np) {
			if (np == MAX_PARTS) {
				free(of);
				return 0;
			}
			part[np++] = cand[i].part;
		}
		of[i] = (uint8_t)p;
		pos[p + 1]++;
	}
	for (p = 0; p < np; p++)
		pos[p + 1] += pos[p];
	memcpy(start, pos, (np + 1) * sizeof(*start));
	for (i = 0; i < n; i++)
		out[pos[of[i]]++] = cand[i];
	free(of);
	return np;
}

/* The old way, for many partitions: sort all, take the head of each. */
static uint32_t _select_sorted(agent_window_cand_t *cand, uint32_t n,
			       uint32_t per_part, uint8_t *in)
{
	uint32_t i, rank = 0, marked = 0;

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

uint32_t agent_window_select(agent_window_cand_t *cand, uint32_t n,
			     uint32_t per_part, uint8_t *in)
{
	agent_window_cand_t *g;
	uint32_t start[MAX_PARTS + 1], np, p, i, len, marked = 0;

	if (!n || !per_part)
		return 0;
	g = malloc((size_t)n * sizeof(*g));
	if (!g || !(np = _group(cand, n, g, start))) {
		free(g);
		return _select_sorted(cand, n, per_part, in);
	}
	memcpy(cand, g, (size_t)n * sizeof(*g));
	free(g);
	for (p = 0; p < np; p++) {
		len = start[p + 1] - start[p];
		if (len > per_part)
			_first_k(cand + start[p], len, per_part);
		for (i = start[p]; i < start[p] + (len < per_part ? len :
							       per_part); i++)
			if (!in[cand[i].idx]) {
				in[cand[i].idx] = 1;
				marked++;
			}
	}
	return marked;
}

void agent_window_keep_floors(agent_window_keep_t *k,
			      agent_window_cand_t *cand, uint32_t n,
			      uint32_t per_part)
{
	agent_window_cand_t *g = malloc((n ? n : 1) * sizeof(*g));
	uint32_t start[MAX_PARTS + 1], np = 0, p, i, len;

	k->valid = 0;
	k->nparts = 0;
	if (!g)
		return;
	if (n && (!(np = _group(cand, n, g, start)) ||
		  np > AGENT_WINDOW_KEEP_PARTS)) {
		free(g);
		return;
	}
	for (p = 0; p < np; p++) {
		agent_window_cand_t *c = g + start[p];

		len = start[p + 1] - start[p];
		k->part[p] = c[0].part;
		k->deep[p] = per_part && len > per_part;
		if (!k->deep[p])
			continue;
		_first_k(c, len, per_part);
		/* The last of the first per_part, in Slurm's order. */
		k->floor[p] = c[0];
		for (i = 1; i < per_part; i++)
			if (_cmp_order(&c[i], &k->floor[p]) > 0)
				k->floor[p] = c[i];
	}
	free(g);
	k->nparts = np;
	k->per_part = per_part;
	k->valid = 1;
}

/* The index of part's floor in k, or -1 if it has none (or k none). */
static int _floor_of(const agent_window_keep_t *k, uint64_t part)
{
	uint32_t p;

	if (!k->valid)
		return -1;
	for (p = 0; p < k->nparts && k->part[p] != part; p++)
		;
	return p < k->nparts && k->deep[p] ? (int)p : -1;
}

int agent_window_keep_below(const agent_window_keep_t *k, uint64_t part,
			    uint32_t priority, time_t submit, uint32_t job_id)
{
	agent_window_cand_t c = { .part = part, .priority = priority,
				  .submit = submit, .job_id = job_id };
	int p = _floor_of(k, part);

	return p >= 0 && _cmp_order(&c, &k->floor[p]) > 0;
}

int agent_window_keep_below_prio(const agent_window_keep_t *k, uint64_t part,
				 uint32_t priority)
{
	int p = _floor_of(k, part);

	if (p < 0 || priority > k->floor[p].priority)
		return 0;
	return priority < k->floor[p].priority ? 1 : -1;
}

int agent_window_keep_enough(const agent_window_keep_t *k,
			     const agent_window_cand_t *cand, uint32_t n,
			     uint32_t per_part)
{
	uint32_t p, i, cnt;

	for (p = 0; p < k->nparts; p++) {
		uint32_t want = k->deep[p] ? per_part : 2 * k->per_part + 1;

		for (cnt = 0, i = 0; i < n && cnt < want; i++)
			cnt += cand[i].part == k->part[p];
		if (k->deep[p] ? cnt < want : cnt >= want)
			return 0;
	}
	/* Partitions the full walk did not see (it saw none queued), together. */
	for (cnt = 0, i = 0; i < n; i++) {
		for (p = 0; p < k->nparts && k->part[p] != cand[i].part; p++)
			;
		if (p == k->nparts && ++cnt > 2 * k->per_part)
			return 0;
	}
	return 1;
}

int agent_window_keep_due_add(agent_window_keep_t *k, uint32_t job_id,
			      int64_t due)
{
	if (k->ndue == k->due_cap) {
		uint32_t cap = k->due_cap ? 2 * k->due_cap : 256;
		agent_window_due_t *d = realloc(k->due, cap * sizeof(*d));

		if (!d)
			return 0;
		k->due = d;
		k->due_cap = cap;
	}
	k->due[k->ndue].job_id = job_id;
	k->due[k->ndue++].due = due;
	return 1;
}

/* Whether entry d is taken, with *more of the others still to take. */
static int _take(const agent_window_due_t *d, int64_t now, int64_t urgent,
		 uint32_t *more)
{
	if (d->due <= urgent)
		return 1;
	if (d->due > now || !*more)
		return 0;
	(*more)--;
	return 1;
}

uint32_t agent_window_keep_due_take(agent_window_keep_t *k, int64_t now,
				    int64_t urgent, uint32_t max,
				    uint32_t **out, int64_t *earliest)
{
	uint32_t i, kept = 0, n = 0, more = max;

	*out = NULL;
	*earliest = INT64_MAX;
	for (i = 0; i < k->ndue; i++)
		n += _take(&k->due[i], now, urgent, &more);
	if (n && !(*out = malloc(n * sizeof(**out))))
		n = 0; /* no memory: taken at a later cycle */
	more = max;
	for (n = 0, i = 0; i < k->ndue; i++) {
		if (*out && _take(&k->due[i], now, urgent, &more)) {
			(*out)[n++] = k->due[i].job_id;
			continue;
		}
		if (k->due[i].due < *earliest)
			*earliest = k->due[i].due;
		k->due[kept++] = k->due[i];
	}
	k->ndue = kept;
	return n;
}

int agent_window_renew_now(int64_t begin, int64_t now, uint32_t hold,
			   int deferred, int *due_now)
{
	*due_now = 0;
	if (begin >= now + 1 + hold / 2)
		return 0;
	/*
	 * The due list's urgent bound (due = begin - hold / 2 at most
	 * now - hold / 4: _take_due()), the same second exactly.
	 */
	if (!deferred || begin - hold / 2 <= now - hold / 4)
		return 1;
	*due_now = 1;
	return 0;
}

void agent_window_keep_free(agent_window_keep_t *k)
{
	free(k->due);
	memset(k, 0, sizeof(*k));
}
