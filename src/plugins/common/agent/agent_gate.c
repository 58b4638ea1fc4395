/* agent_gate.c - the submit gate's bound and its marks; see agent_gate.h. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent_gate.h"

/*
 * The longest recent cycle loses this share per cycle: a 2 s cycle still
 * counts for 1 s some 14 cycles later.
 */
#define MAX_DECAY 0.05

void agent_gate_observe(agent_gate_t *g, double sec)
{
	if (!(sec >= 0))
		sec = 0;
	g->last = sec;
	g->ewma = g->cycles ? g->ewma + AGENT_GATE_EWMA * (sec - g->ewma) :
			      sec;
	g->max_recent *= 1 - MAX_DECAY;
	if (sec > g->max_recent)
		g->max_recent = sec;
	g->cycles++;
}

double agent_gate_cycle(const agent_gate_t *g)
{
	return g->ewma > g->max_recent ? g->ewma : g->max_recent;
}

uint32_t agent_gate_bound(const agent_gate_t *g, uint32_t floor,
			  uint32_t ceiling)
{
	double b = ceil(AGENT_GATE_CYCLES * agent_gate_cycle(g));

	if (ceiling < 1)
		ceiling = 1;
	if (ceiling > AGENT_GATE_HOLD_MAX)
		ceiling = AGENT_GATE_HOLD_MAX;
	if (floor < 1)
		floor = 1;
	if (floor > ceiling)
		floor = ceiling;
	if (!(b >= floor))
		return floor;
	return b > ceiling ? ceiling : (uint32_t)b;
}

bool agent_gate_mark_format(char *buf, size_t len, uint32_t bound,
			    time_t begin)
{
	int n = snprintf(buf, len, "%" PRIu32 ",%lld", bound,
			 (long long)(begin > 0 ? begin : 0));

	return n > 0 && (size_t)n < len;
}

/* A decimal number of at most 19 digits; RET the end, or NULL. */
static const char *_number(const char *s, long long *out)
{
	size_t n = strspn(s, "0123456789");
	char *end;

	if (!n || n > 19)
		return NULL;
	errno = 0;
	*out = strtoll(s, &end, 10);
	return errno || end != s + n ? NULL : end;
}

bool agent_gate_mark_parse(const char *val, uint32_t *bound, time_t *begin)
{
	long long b, t;
	const char *p;

	if (!val || !(p = _number(val, &b)) || *p != ',' ||
	    !(p = _number(p + 1, &t)) || *p)
		return false;
	if (b < 1 || b > AGENT_GATE_HOLD_MAX)
		return false;
	*bound = (uint32_t)b;
	*begin = (time_t)t;
	return true;
}

time_t agent_gate_release_to(time_t ubegin, time_t submit)
{
	return ubegin > submit ? ubegin : submit;
}

agent_gate_state_t agent_gate_state(bool marked, time_t ubegin, time_t begin,
				     time_t submit, time_t now)
{
	time_t released = agent_gate_release_to(ubegin, submit);

	if (!marked || begin <= released)
		return AGENT_GATE_NONE;
	if (begin > now)
		return begin <= now + AGENT_GATE_HOLD_MAX ? AGENT_GATE_HELD :
							    AGENT_GATE_NONE;
	return AGENT_GATE_EXPIRED;
}

int64_t agent_gate_renew_due(time_t begin, uint32_t hold)
{
	return (int64_t)begin - hold / 2 + hold / 6;
}

time_t agent_gate_renew_to(time_t begin, time_t release_to, time_t now,
			   uint32_t hold)
{
	if (agent_gate_state(true, 0, begin, release_to, now) !=
	    AGENT_GATE_HELD)
		return begin;
	if (begin < now + 1 + (time_t)(hold / 2))
		return now + (time_t)hold;
	return begin;
}

time_t agent_gate_hurry_to(time_t begin, time_t release_to, time_t submit,
			   time_t now, double cycle, uint32_t ceiling)
{
	time_t to, cap = submit + (time_t)ceiling;

	if (agent_gate_state(true, 0, begin, release_to, now) !=
	    AGENT_GATE_HELD)
		return begin;
	if (!((double)(begin - now) < AGENT_GATE_HURRY * cycle))
		return begin;
	to = now + (time_t)ceil(AGENT_GATE_CYCLES * cycle);
	if (to > cap)
		to = cap;
	return to > begin ? to : begin;
}
