/* pace.c - when dl-sim's next full plan is due (pace.h). */
#include "pace.h"

#include <math.h>
#include <string.h>

void dl_sim_pace_init(dl_sim_pace_t *p, double interval, int agent)
{
	memset(p, 0, sizeof(*p));
	p->interval = interval;
	p->agent = agent && interval > 0;
}

void dl_sim_pace_arrival(dl_sim_pace_t *p, double now)
{
	if (!p->arrived)
		p->arrived_at = now;
	p->arrived = 1;
}

void dl_sim_pace_moved(dl_sim_pace_t *p)
{
	p->moved = 1;
}

void dl_sim_pace_planned(dl_sim_pace_t *p, double now)
{
	p->have = 1;
	p->last = now;
	p->arrived = 0;
	p->moved = 0;
}

/* The node pace never waits longer than the interval itself. */
static double _node_pace(const dl_sim_pace_t *p)
{
	return p->interval < DL_SIM_PACE_NODE_S ? p->interval :
						  DL_SIM_PACE_NODE_S;
}

/* When the agent's rules make a plan due for an arrival, for a job that
 * moved (INFINITY: not at all).  _rule() and dl_sim_pace_next() both
 * read them. */
static double _arrival_at(const dl_sim_pace_t *p)
{
	return p->agent && p->arrived ? p->arrived_at + DL_SIM_PACE_POLL_S :
					INFINITY;
}

static double _node_at(const dl_sim_pace_t *p)
{
	return p->agent && p->moved ? p->last + _node_pace(p) : INFINITY;
}

/*
 * The first rule that makes a plan due at now (pace.h), or -1: none.
 * dl_sim_pace_due() and dl_sim_pace_why() both read it, so that what is
 * counted is what was due.
 */
static int _rule(const dl_sim_pace_t *p, double now)
{
	if (!p->have || p->interval <= 0)
		return DL_SIM_PACE_EVENT;
	if (now >= p->last + p->interval)
		return DL_SIM_PACE_INTERVAL;
	if (now >= _arrival_at(p))
		return DL_SIM_PACE_ARRIVAL;
	if (now >= _node_at(p))
		return DL_SIM_PACE_NODE;
	return -1;
}

int dl_sim_pace_due(const dl_sim_pace_t *p, double now, int force)
{
	return force || _rule(p, now) >= 0;
}

size_t dl_sim_pace_window(const dl_sim_pace_t *p, size_t window,
			  size_t free_slots)
{
	if (window || !p->agent)
		return window;
	return DL_SIM_PACE_WINDOW + free_slots;
}

dl_sim_pace_why_t dl_sim_pace_why(const dl_sim_pace_t *p, double now)
{
	int r = _rule(p, now);

	return r >= 0 ? (dl_sim_pace_why_t)r : DL_SIM_PACE_EVENT;
}

double dl_sim_pace_next(const dl_sim_pace_t *p)
{
	return fmin(p->last + p->interval, fmin(_node_at(p), _arrival_at(p)));
}
