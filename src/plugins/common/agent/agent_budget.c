/* agent_budget.c - a planning cycle's reading budget; see agent_budget.h. */
#include <stdlib.h>
#include <string.h>

#include "agent_budget.h"

void agent_budget_end(agent_budget_t *b)
{
	free(b->user);
	memset(b, 0, sizeof(*b));
}

void agent_budget_begin(agent_budget_t *b, const agent_budget_conf_t *c,
			int64_t start_ms)
{
	agent_budget_end(b);
	b->conf = *c;
	b->deadline_ms = c->cycle_ms ? start_ms + c->cycle_ms : INT64_MAX;
}

void agent_budget_clock(agent_budget_t *b, int64_t start_ms)
{
	b->deadline_ms = b->conf.cycle_ms ? start_ms + b->conf.cycle_ms :
					    INT64_MAX;
}

static uint32_t _hash(uid_t uid, uint32_t cap)
{
	return ((uint32_t)uid * 2654435761u) & (cap - 1);
}

/* Double the table (cap a power of 2); false when out of memory. */
static bool _grow(agent_budget_t *b)
{
	uint32_t cap = b->cap ? b->cap * 2 : 64, i, h;
	agent_budget_user_t *u = calloc(cap, sizeof(*u));

	if (!u)
		return false;
	for (i = 0; i < b->cap; i++) {
		if (!b->user[i].used)
			continue;
		for (h = _hash(b->user[i].uid, cap); u[h].used;
		     h = (h + 1) & (cap - 1))
			;
		u[h] = b->user[i];
	}
	free(b->user);
	b->user = u;
	b->cap = cap;
	return true;
}

/*
 * The user's account, created if new; NULL only when out of memory (the
 * caller then applies no per-user bound: placement goes on).
 */
static agent_budget_user_t *_user(agent_budget_t *b, uid_t uid)
{
	uint32_t h;

	if ((b->nuser + 1) * 2 > b->cap && !_grow(b))
		return NULL;
	for (h = _hash(uid, b->cap); b->user[h].used; h = (h + 1) & (b->cap - 1))
		if (b->user[h].uid == uid)
			return &b->user[h];
	b->user[h].used = true;
	b->user[h].uid = uid;
	b->nuser++;
	return &b->user[h];
}

bool agent_budget_may_read(agent_budget_t *b, uid_t uid, int64_t now_ms)
{
	agent_budget_user_t *u;

	/*
	 * The first read of a cycle is never refused by the clock: a cycle
	 * whose snapshot alone took the budget (a loaded host, a huge queue)
	 * would otherwise read nothing, ever, and keep every new job at its
	 * submit gate until the gate's bound let it go unplaced.
	 */
	if (now_ms >= b->deadline_ms && b->reads) {
		b->spent = true;
		return false;
	}
	if (!(u = _user(b, uid)))
		return true;
	if (b->conf.cycle_ms &&
	    2 * (u->ms + u->ms_max) > (int64_t)b->conf.cycle_ms)
		return false;
	return !b->conf.user_list || u->list < b->conf.user_list;
}

void agent_budget_charge_read(agent_budget_t *b, uid_t uid, uint64_t bytes,
			      int64_t ms)
{
	agent_budget_user_t *u = _user(b, uid);

	b->reads++;
	if (!u)
		return;
	u->list += bytes;
	u->ms += ms > 0 ? ms : 0;
	if (ms > u->ms_max)
		u->ms_max = ms;
}

bool agent_budget_user_full(agent_budget_t *b, uid_t uid)
{
	agent_budget_user_t *u = _user(b, uid);

	return u && b->conf.user_files && u->files >= b->conf.user_files;
}

bool agent_budget_admit(agent_budget_t *b, uid_t uid, uint64_t nfiles)
{
	agent_budget_user_t *u = _user(b, uid);

	if (!u)
		return true;
	if (b->conf.user_files && u->files + nfiles > b->conf.user_files)
		return false;
	u->files += nfiles;
	return true;
}

int64_t agent_budget_gap_ms(int64_t cycle_ms)
{
	int64_t gap = cycle_ms > 0 ? AGENT_BUDGET_GAP_FACTOR * cycle_ms : 0;

	return gap < AGENT_BUDGET_MAX_GAP_MS ? gap : AGENT_BUDGET_MAX_GAP_MS;
}

static int _cmp(const void *a, const void *b)
{
	const agent_budget_job_t *x = a, *y = b;

	if (x->priority != y->priority)
		return x->priority > y->priority ? -1 : 1;
	if (x->submit != y->submit)
		return x->submit < y->submit ? -1 : 1;
	if (x->job_id != y->job_id)
		return x->job_id < y->job_id ? -1 : 1;
	return 0;
}

void agent_budget_order(agent_budget_job_t *jobs, uint32_t n)
{
	if (n > 1)
		qsort(jobs, n, sizeof(*jobs), _cmp);
}
