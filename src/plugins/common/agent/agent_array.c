/* agent_array.c - job arrays placed task by task; see agent_array.h. */
#include <stdbool.h>
#include <stdint.h>

#include "src/common/slurm_xlator.h"

#include "src/common/bitstring.h"
#include "src/common/log.h"
#include "src/slurmctld/slurmctld.h"

#include "dl_compat.h"
#include "agent_array.h"

bool agent_array_meta(job_record_t *job_ptr)
{
	return IS_JOB_PENDING(job_ptr) && job_ptr->array_recs &&
	       job_ptr->array_recs->task_id_bitmap &&
	       job_ptr->array_recs->task_cnt >= 1 &&
	       job_ptr->array_task_id == NO_VAL;
}

/*
 * Split up to room tasks off one array's own record, lowest task ids
 * first (the order Slurm starts them in).  As in update_job(): the record
 * given job_array_split() becomes the task (under a new job id) and the
 * one returned is the array's own record, which keeps the array's job id;
 * when one task is left, job_array_split() makes the record that task.
 * A lone task (an array of one) becomes its record's task the way
 * Slurm's scheduler does it, with job_array_post_sched().
 */
static uint32_t _split_one(job_record_t *meta, uint32_t room,
			   const char *pfx)
{
	job_record_t *next;
	uint32_t n = 0;
	int i;

	while (n < room && agent_array_meta(meta)) {
		if ((i = bit_ffs(meta->array_recs->task_id_bitmap)) < 0)
			break;
		meta->array_task_id = i;
		if (meta->array_recs->task_cnt == 1) {
			(void)dl_compat_array_post_sched(meta);
			n++;
			break;
		}
		if (!(next = dl_compat_array_split(meta))) {
			meta->array_task_id = NO_VAL;
			error("%s: could not split task %d off JobId=%u",
			      pfx, i, meta->array_job_id);
			break;
		}
		debug("%s: split %pJ off its array for its own placement",
		      pfx, meta);
		n++;
		meta = next;
	}
	return n;
}

uint32_t agent_array_split(const uint32_t *ids, uint32_t n, uint32_t window,
			   const char *pfx)
{
	uint32_t done = 0, k;

	for (k = 0; k < n && done < window; k++) {
		job_record_t *meta = find_job_record(ids[k]);
		int pending;
		uint32_t room;

		if (!meta || !agent_array_meta(meta))
			continue;
		/* Its tasks already split and still pending (not itself). */
		pending = num_pending_job_array_tasks(meta->array_job_id) - 1;
		if (pending < 0)
			pending = 0;
		if ((uint32_t)pending >= window)
			continue;
		room = window - (uint32_t)pending;
		if (room > window - done)
			room = window - done;
		done += _split_one(meta, room, pfx);
	}
	if (done)
		last_job_update = time(NULL);
	return done;
}
