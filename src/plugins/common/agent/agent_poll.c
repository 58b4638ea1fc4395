/* agent_poll.c - the agent thread's poll; see agent_poll.h. */
#include "agent_poll.h"

int64_t agent_poll_max(const agent_quiet_t *q, int64_t now_ms)
{
	if (q->ran && q->wake != AGENT_QUIET_LIVE &&
	    now_ms - q->last_ms >= AGENT_QUIET_MAX_MS)
		return AGENT_POLL_QUIET_MS;
	return AGENT_POLL_IDLE_MS;
}

static int64_t _capped(const agent_quiet_t *q, int64_t poll_ms,
		       int64_t now_ms)
{
	int64_t max = agent_poll_max(q, now_ms);

	return poll_ms > max ? max : poll_ms;
}

int64_t agent_poll_next(const agent_quiet_t *q, int64_t poll_ms, bool reset,
			int64_t now_ms)
{
	return reset ? AGENT_POLL_MS : _capped(q, poll_ms * 2, now_ms);
}

int64_t agent_poll_after_cycle(const agent_quiet_t *q, int64_t poll_ms,
			       int64_t now_ms)
{
	return _capped(q, poll_ms, now_ms);
}
