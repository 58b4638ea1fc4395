/* agent_ended.c - which ended jobs a walk copies; see agent_ended.h. */
#include "agent_ended.h"

bool agent_ended_copy(const agent_ended_job_t *j, time_t last_walk,
		      time_t first_walk)
{
	/* Cancelled before it started: nothing ran anywhere. */
	if (!j->start)
		return false;
	if (j->known && (!j->read || !j->start_logged || !j->finished))
		return true;
	/* Maybe recorded by the agent before this one started. */
	if (!j->known && j->end <= first_walk)
		return false;
	/*
	 * Ended since the last walk: unseen, it ran between two cycles;
	 * recorded already, it is copied again (to no effect) so that its
	 * record is not forgotten and the job read anew as unseen by a walk
	 * in the second it ended in.
	 */
	return last_walk > 0 && j->end >= last_walk;
}
