/* agent_quiet.c - when the agent's next cycle is due; see agent_quiet.h. */
#include <stddef.h>
#include <string.h>

#include "agent_quiet.h"

/*
 * Whether a stamp moved since the snapshot of second seen_at saw it as
 * seen: it differs, or it was that very second (a later change in it
 * left it equal) and that second is over.
 */
static bool _moved(int64_t cur, int64_t seen, int64_t seen_at, int64_t now_s)
{
	return cur != seen || (seen >= seen_at && now_s > seen_at);
}

/*
 * Whether a cycle for the job stamp waits for the stamp's second to end
 * (agent_quiet_t.jobs_noise), for less than AGENT_QUIET_NOISE_WAIT_S.
 */
static bool _put_off(const agent_quiet_t *q, const agent_stamps_t *cur,
		     int64_t now_s)
{
	return q->jobs_noise && cur->job >= now_s &&
	       (!q->noise_wait_s ||
		now_s - q->noise_wait_s < AGENT_QUIET_NOISE_WAIT_S);
}

const char *agent_quiet_due(const agent_quiet_t *q, const agent_stamps_t *cur,
			    int64_t now_ms, int64_t now_s)
{
	const agent_stamps_t *s = &q->seen;
	int64_t since = now_ms - q->last_ms;

	if (!q->ran)
		return "first";
	if (cur->njobs != s->njobs)
		return "jobs";
	if (since >= AGENT_QUIET_NODE_MS &&
	    _moved(cur->node, s->node, q->seen_at, now_s))
		return "nodes";
	if (since < AGENT_QUIET_CHANGE_MS || since < q->pace_ms)
		return NULL;
	if (q->again)
		return "change (its own)";
	if (cur->services != s->services)
		return "change (services)";
	if (_moved(cur->job, s->job, q->seen_at, now_s) &&
	    !_put_off(q, cur, now_s))
		return AGENT_QUIET_WHY_JOBS;
	if (_moved(cur->part, s->part, q->seen_at, now_s))
		return "change (partitions)";
	if (_moved(cur->resv, s->resv, q->seen_at, now_s))
		return "change (reservations)";
	if (q->wake == AGENT_QUIET_LIVE || now_s >= q->wake)
		return "clock";
	if (since >= AGENT_QUIET_FULL_MS)
		return "quiet";
	if (now_s >= q->renew)
		return "renew";
	if (now_ms - q->checked_ms >= AGENT_QUIET_MAX_MS)
		return "check";
	return NULL;
}

void agent_quiet_ran(agent_quiet_t *q, const agent_stamps_t *at,
		     int64_t snap_s, double snap_ms, int64_t wake, bool again,
		     int64_t start_ms)
{
	double pace = AGENT_QUIET_PACE * snap_ms;

	q->ran = true;
	q->seen = *at;
	q->seen_at = snap_s;
	q->wake = wake;
	q->again = again;
	q->last_ms = start_ms;
	q->checked_ms = start_ms;
	q->renew = AGENT_QUIET_NEVER;
	q->jobs_noise = false;
	q->noise_wait_s = 0;
	q->pace_ms = pace < AGENT_QUIET_MAX_MS ? (int64_t)pace :
						 AGENT_QUIET_MAX_MS;
	/* Only here: a cycle that stopped unplanned leaves it due. */
	q->inv_due = false;
}

const char *agent_quiet_between(const agent_quiet_t *q, const char *why,
				const char *renew_why)
{
	/* First: a cycle due for the job stamp alone may stop unplanned. */
	if (q->inv_due)
		return AGENT_QUIET_WHY_INVENTORY;
	if (why && strcmp(why, "renew") && strcmp(why, "check"))
		return why;
	if (!why || !strcmp(why, "renew"))
		return renew_why;
	return why;
}

const char *agent_quiet_inventory(agent_quiet_t *q)
{
	q->inv_due = true;
	return AGENT_QUIET_WHY_INVENTORY;
}

bool agent_quiet_jobs_only(const agent_quiet_t *q, const agent_stamps_t *cur,
			   int64_t now_s)
{
	const agent_stamps_t *s = &q->seen;

	return q->ran && !q->again && cur->njobs == s->njobs &&
	       cur->node == s->node && cur->services == s->services &&
	       !_moved(cur->part, s->part, q->seen_at, now_s) &&
	       !_moved(cur->resv, s->resv, q->seen_at, now_s);
}

void agent_quiet_seen(agent_quiet_t *q, const agent_stamps_t *at,
		      int64_t snap_s)
{
	q->seen = *at;
	q->seen_at = snap_s;
	q->jobs_noise = true;
	q->noise_wait_s = 0;
}

void agent_quiet_polled(agent_quiet_t *q, const agent_stamps_t *cur,
			int64_t now_s)
{
	if (!q->noise_wait_s && _put_off(q, cur, now_s) &&
	    _moved(cur->job, q->seen.job, q->seen_at, now_s))
		q->noise_wait_s = now_s;
}

void agent_quiet_renewed(agent_quiet_t *q, int64_t next)
{
	q->renew = next;
}

void agent_quiet_checked(agent_quiet_t *q, int64_t now_ms)
{
	q->checked_ms = now_ms;
}

bool agent_quiet_poll_reset(const agent_quiet_t *q, const agent_stamps_t *cur,
			    const agent_stamps_t *prev, const char *why)
{
	if (cur->njobs != prev->njobs || cur->node != prev->node ||
	    cur->part != prev->part || cur->resv != prev->resv ||
	    cur->services != prev->services)
		return true;
	if (q->jobs_noise)
		return why && strcmp(why, AGENT_QUIET_WHY_JOBS);
	return cur->job != prev->job || why;
}
