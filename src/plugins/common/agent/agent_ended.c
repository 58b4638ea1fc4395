/* agent_ended.c - which ended jobs a walk copies; see agent_ended.h. */
#include "agent_ended.h"

bool agent_ended_copy(const agent_ended_job_t *j, time_t last_walk)
{
	/* Cancelled before it started: nothing ran anywhere. */
	if (!j->start)
		return false;
	if (j->known)
		return !j->read || !j->start_logged || !j->finished;
	/* Ran unseen between the last walk and this one. */
	return last_walk > 0 && j->end >= last_walk;
}
