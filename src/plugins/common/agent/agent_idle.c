/* agent_idle.c - the agent's work between cycles; see agent_idle.h. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

#include "src/common/slurm_xlator.h"

#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/locks.h"

#include "agent_fnv.h"
#include "agent_gate.h"
#include "agent_idle.h"
#include "agent_model.h"
#include "agent_quiet.h"

static agent_gate_renew_t *renew;    /* the last snapshot's, nrenew */
static uint32_t nrenew;
static char **names;                 /* node names, nnames */
static uint32_t nnames;
static uint64_t inv_fp;              /* hash of the files' stats */
static bool inv_known;               /* inv_fp was taken */

/* Keep the snapshot's node names when they changed (rarely). */
static void _keep_names(const snapshot_t *s)
{
	uint32_t i;
	bool same = nnames == s->nnodes;

	for (i = 0; same && i < nnames; i++)
		same = !strcmp(names[i], s->names[i]);
	if (same)
		return;
	for (i = 0; i < nnames; i++)
		xfree(names[i]);
	xfree(names);
	nnames = s->nnodes;
	names = xcalloc(nnames ? nnames : 1, sizeof(*names));
	for (i = 0; i < nnames; i++)
		names[i] = xstrdup(s->names[i]);
	inv_known = false; /* other files: one cycle more */
}

int64_t agent_idle_keep(const snapshot_t *s)
{
	xfree(renew);
	nrenew = s->nrenew;
	if (nrenew) {
		renew = xcalloc(nrenew, sizeof(*renew));
		memcpy(renew, s->renew, nrenew * sizeof(*renew));
	}
	_keep_names(s);
	return s->renew_wake;
}

uint32_t agent_idle_renew(uint32_t hold, int64_t *next, uint32_t *expired,
			  uint32_t *listed, bool *cycle)
{
	/* Begin times of job records; partitions only as keys of floors. */
	slurmctld_lock_t job_write = { .job = WRITE_LOCK,
				       .part = READ_LOCK };
	uint32_t n = 0;
	int64_t due;

	*expired = 0;
	*next = INT64_MAX;
	lock_slurmctld(job_write);
	if (nrenew)
		n = agent_apply_renew(renew, nrenew, hold, next, expired);
	*listed = agent_snapshot_renew_due(hold, &due, cycle);
	n += *listed;
	unlock_slurmctld(job_write);
	if (*next == INT64_MAX)
		*next = AGENT_QUIET_NEVER;
	if (due < *next)
		*next = due;
	return n;
}

bool agent_idle_inventory_changed(const char *cache_dir)
{
	uint64_t h = AGENT_FNV_BASIS_SHORT;
	struct stat sb;
	uint32_t i;
	char *path;
	bool changed;

	if (!cache_dir)
		return false;
	for (i = 0; i < nnames; i++) {
		path = agent_model_inventory_path(cache_dir, names[i]);
		if (stat(path, &sb)) {
			h = agent_fnv_word(h, 0);
		} else {
			h = agent_fnv_word(h, (uint64_t)sb.st_ino);
			h = agent_fnv_word(h, (uint64_t)sb.st_size);
			h = agent_fnv_word(h, (uint64_t)sb.st_mtim.tv_sec);
			h = agent_fnv_word(h, (uint64_t)sb.st_mtim.tv_nsec);
		}
		xfree(path);
	}
	changed = !inv_known || h != inv_fp;
	inv_fp = h;
	inv_known = true;
	return changed;
}

void agent_idle_fini(void)
{
	uint32_t i;

	xfree(renew);
	nrenew = 0;
	for (i = 0; i < nnames; i++)
		xfree(names[i]);
	xfree(names);
	nnames = 0;
	inv_known = false;
}
