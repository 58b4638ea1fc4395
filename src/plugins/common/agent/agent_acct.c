/*
 * agent_acct.c - the staging records written into the jobs' AdminComment;
 * see agent_acct.h (the queue is agent_acct_queue.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "src/common/slurm_xlator.h"

#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"

#define DL_COMPAT_ACCT 1
#include "dl_compat.h"
#include "agent_acct.h"
#include "agent_conf.h"
#include "agent_rates.h"

/*
 * One node's record into job's AdminComment.  The nodes of a multi-node
 * job add up; a record that already counts all the job's nodes is from an
 * earlier run of the job (requeued): replaced, not added to.
 */
static void _write(job_record_t *job_ptr, const dl_acct_t *a,
		   const char *pfx)
{
	dl_acct_t sum;
	char *merged, rec[DL_ACCT_LEN_MAX];

	if (dl_acct_parse(job_ptr->admin_comment, &sum) ||
	    sum.nodes >= (job_ptr->node_cnt ? job_ptr->node_cnt : 1))
		sum = *a;
	else
		dl_acct_add(&sum, a);
	if (!(merged = dl_acct_merge(job_ptr->admin_comment, &sum)))
		return; /* out of memory: the job keeps what it had */
	xfree(job_ptr->admin_comment);
	job_ptr->admin_comment = xstrdup(merged);
	free(merged);
	dl_acct_format(&sum, rec, sizeof(rec));
	info("%s: %pJ staging: %s", pfx, job_ptr, rec);
	/*
	 * Its completion went to the accounting storage without the record:
	 * sent again (job_completion_logger()'s call; the storage updates
	 * the same row, end time and state unchanged).
	 */
	if (IS_JOB_FINISHED(job_ptr)) {
		jobacct_storage_g_job_complete(acct_db_conn, job_ptr);
		info("%s: %pJ had ended: its completion sent again with the record",
		     pfx, job_ptr);
	}
}

uint32_t agent_acct_apply(const char *pfx)
{
	/* Job records only: AdminComment and the completion record. */
	slurmctld_lock_t job_write = { .job = WRITE_LOCK };
	agent_acct_item_t *items;
	uint64_t dropped;
	uint32_t written = 0;
	size_t n = agent_acct_take(&items, &dropped);

	if (dropped)
		error("%s: %" PRIu64 " staging reports dropped: more than %d waited for the agent",
		      pfx, dropped, AGENT_ACCT_QUEUE_MAX);
	if (!n)
		return 0;
	lock_slurmctld(job_write);
	for (size_t i = 0; i < n; i++) {
		job_record_t *job_ptr = find_job_record(items[i].job);

		if (!job_ptr) {
			debug("%s: staging report for JobId=%u, which slurmctld no longer has",
			      pfx, items[i].job);
			continue;
		}
		_write(job_ptr, &items[i].a, pfx);
		written++;
	}
	unlock_slurmctld(job_write);
	free(items);
	return written;
}

/* Once: what the rates file of the last run says was learned. */
static void _rates_restore(const char *pfx)
{
	static bool done;
	char *path;
	int n;

	if (done || !slurm_conf.state_save_location)
		return;
	done = true;
	path = xstrdup_printf("%s/datalocality_rates",
			      slurm_conf.state_save_location);
	n = agent_rates_load(path);
	if (n > 0)
		info("%s: copy rates learned before restored from %s (%d kinds)",
		     pfx, path, n);
	else if (n < 0 && n != -ENOENT)
		error("%s: %s not restored: %s", pfx, path,
		      n == -EINVAL ? "not a rates file" : strerror(-n));
	xfree(path);
}

void agent_acct_rates(struct agent_conf *c, const char *pfx)
{
	static uint64_t shown = UINT64_MAX;
	static time_t last_write;
	double used[AGENT_RATE_KINDS];
	char msg[1024], *path;
	uint64_t v;
	int changed, err;

	_rates_restore(pfx);
	v = agent_rates_version();
	changed = agent_rates_apply(&c->rates, used, msg, sizeof(msg));

	c->params.rbw = used[AGENT_RATE_STORAGE];
	c->place.peer_bw = used[AGENT_RATE_PEER];
	if (changed) {
		info("%s: %s", pfx, msg);
		shown = UINT64_MAX; /* shown at the next write, whatever v */
	}
	if ((v == shown && !changed) || time(NULL) == last_write ||
	    !slurm_conf.state_save_location)
		return;
	path = xstrdup_printf("%s/datalocality_rates",
			      slurm_conf.state_save_location);
	if ((err = agent_rates_write(path, &c->rates, (long long)time(NULL))))
		error("%s: cannot write %s: %s", pfx, path, strerror(err));
	else
		shown = v;
	last_write = time(NULL);
	xfree(path);
}
