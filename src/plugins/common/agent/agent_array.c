/* agent_array.c - job arrays placed task by task; see agent_array.h. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "src/common/slurm_xlator.h"

#include "src/common/bitstring.h"
#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/slurmctld/job_scheduler.h"
#include "src/slurmctld/slurmctld.h"

#include "dl_compat.h"
#include "dl_pattern.h"
#include "agent_array.h"
#include "agent_fit.h"
#include "agent_snapshot.h"

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

uint32_t agent_array_split(const uint32_t *ids, uint32_t n, uint32_t room,
			   const char *pfx)
{
	uint32_t done = 0, k;

	for (k = 0; k < n && done < room; k++) {
		job_record_t *meta = find_job_record(ids[k]);
		int pending;
		uint32_t more;

		if (!meta || !agent_array_meta(meta))
			continue;
		/* Its tasks already split and still pending (not itself). */
		pending = num_pending_job_array_tasks(meta->array_job_id) - 1;
		if (pending < 0)
			pending = 0;
		if ((uint32_t)pending >= room)
			continue;
		more = room - (uint32_t)pending;
		if (more > room - done)
			more = room - done;
		done += _split_one(meta, more, pfx);
	}
	if (done)
		last_job_update = time(NULL);
	return done;
}

/*
 * The tasks agent_array_pace() holds back, with the begin time each had
 * before (given back when it is let go).  Owned here (xmalloc); at most
 * the tasks in the planning window, so a linear search.
 */
typedef struct {
	uint32_t job_id;
	time_t begin;
	bool seen; /* still held back in this cycle */
} held_t;

static held_t *held;
static uint32_t nheld, held_cap;

typedef struct {
	job_record_t *job_ptr;
	int32_t node;
	bool fits; /* its node has room for it after those before it */
} pace_t;

static held_t *_held_find(uint32_t job_id)
{
	uint32_t i;

	for (i = 0; i < nheld; i++)
		if (held[i].job_id == job_id)
			return &held[i];
	return NULL;
}

/* Slurm's order of an array's tasks: priority, then job id. */
static int _cmp(const void *x, const void *y)
{
	const job_record_t *a = ((const pace_t *)x)->job_ptr;
	const job_record_t *b = ((const pace_t *)y)->job_ptr;

	if (a->array_job_id != b->array_job_id)
		return a->array_job_id < b->array_job_id ? -1 : 1;
	if (a->priority != b->priority)
		return a->priority > b->priority ? -1 : 1;
	return a->job_id < b->job_id ? -1 : a->job_id > b->job_id;
}

static void _forget(held_t *h)
{
	*h = held[--nheld];
}

/*
 * Out of Slurm's queue until the next cycle: a begin time ahead, which
 * the agent still counts as runnable (agent_snapshot.c, SOON_SECONDS).  A
 * begin time of its own ahead is not ours to take, nor one set later than
 * ours since (scontrol update BeginTime).
 */
static bool _hold(job_record_t *job_ptr, time_t now)
{
	job_details_t *d = job_ptr->details;
	held_t *h = _held_find(job_ptr->job_id);

	if (h && d->begin_time > now + AGENT_ARRAY_HOLD) {
		_forget(h);
		return false;
	}
	if (!h) {
		if (d->begin_time > now)
			return false;
		if (nheld == held_cap) {
			held_cap = held_cap ? 2 * held_cap : 64;
			xrecalloc(held, held_cap, sizeof(*held));
		}
		h = &held[nheld++];
		h->job_id = job_ptr->job_id;
		h->begin = d->begin_time;
	}
	h->seen = true;
	d->begin_time = now + AGENT_ARRAY_HOLD;
	return true;
}

/*
 * Give a held task the begin time it had back (also once ours ran out:
 * its age counts from that) and forget it; RET whether it was still held.
 */
static bool _let_go(held_t *h, time_t now)
{
	job_record_t *job_ptr = find_job_record(h->job_id);
	bool was = false;

	if (job_ptr && IS_JOB_PENDING(job_ptr) && job_ptr->details &&
	    job_ptr->details->begin_time <= now + AGENT_ARRAY_HOLD) {
		was = job_ptr->details->begin_time > now;
		job_ptr->details->begin_time = h->begin;
		if (was && job_ptr->state_reason == WAIT_TIME) {
			job_ptr->state_reason = WAIT_NO_REASON;
			xfree(job_ptr->state_desc);
		}
	}
	_forget(h);
	return was;
}

/* The snapshot's pending array tasks restricted by us to one node. */
static uint32_t _collect(const snapshot_t *s, pace_t *c)
{
	uint32_t i, n = 0;

	for (i = 0; i < s->njobs; i++) {
		const snap_job_t *sj = &s->jobs[i];
		job_record_t *job_ptr;
		int32_t node;

		if (sj->running || sj->task_id == DL_PATTERN_NONE ||
		    sj->task_id == DL_PATTERN_UNKNOWN)
			continue;
		job_ptr = find_job_record(sj->job_id);
		if (!job_ptr || !IS_JOB_PENDING(job_ptr) || !job_ptr->details ||
		    job_ptr->array_task_id == NO_VAL ||
		    job_ptr->details->min_nodes > 1)
			continue;
		node = agent_snapshot_ours(job_ptr);
		if (node < 0 || (uint32_t)node >= s->nnodes)
			continue;
		c[n].job_ptr = job_ptr;
		c[n++].node = node;
	}
	return n;
}

uint32_t agent_array_pace(const snapshot_t *s, const char *pfx)
{
	time_t now = time(NULL);
	pace_t *c = xcalloc(s->njobs ? s->njobs : 1, sizeof(*c));
	uint32_t *room = xcalloc(s->nnodes ? s->nnodes : 1, sizeof(*room));
	uint32_t i, n, let = 0, kept = 0;
	bool room_after = false;

	for (i = 0; i < s->nnodes; i++)
		room[i] = s->usable[i] && s->cpus[i] > s->busy[i] ?
				  s->cpus[i] - s->busy[i] : 0;
	for (i = 0; i < nheld; i++)
		held[i].seen = false;
	n = _collect(s, c);
	qsort(c, n, sizeof(*c), _cmp);
	for (i = 0; i < n; i++) {
		uint32_t need = agent_fit_node_cpus(c[i].job_ptr);

		if ((c[i].fits = need <= room[c[i].node]))
			room[c[i].node] -= need;
	}
	/*
	 * Only the tasks that would keep a later one with room from starting
	 * are held back: those after the array's last task with room wait in
	 * Slurm's queue, and the first of them starts the moment its node
	 * frees, without waiting for a cycle.
	 */
	for (i = n; i-- > 0;) {
		bool last = i + 1 == n || c[i + 1].job_ptr->array_job_id !=
						  c[i].job_ptr->array_job_id;

		if (last)
			room_after = false;
		if (c[i].fits)
			room_after = true;
		else if (room_after)
			kept += _hold(c[i].job_ptr, now);
	}
	/* Those not held back this cycle (room, widened, gone) go. */
	for (i = 0; i < nheld;)
		if (held[i].seen)
			i++;
		else
			let += _let_go(&held[i], now);
	xfree(c);
	xfree(room);
	if (let) {
		last_job_update = now;
		schedule(false);
	}
	if (let || kept)
		debug("%s: array tasks: %u held back until their node has room, %u let go",
		      pfx, kept, let);
	return let;
}

bool agent_array_pace_due(const snapshot_t *s)
{
	uint32_t i;

	if (nheld)
		return true;
	for (i = 0; i < s->njobs; i++)
		if (!s->jobs[i].running &&
		    s->jobs[i].task_id != DL_PATTERN_NONE &&
		    s->jobs[i].task_id != DL_PATTERN_UNKNOWN)
			return true;
	return false;
}

void agent_array_pace_fini(void)
{
	xfree(held);
	nheld = held_cap = 0;
}
