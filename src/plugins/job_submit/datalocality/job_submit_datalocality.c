/*
 * job_submit_datalocality.c - reject a malformed files: annotation at
 * submit time, with a message that says what is wrong (sbatch prints it),
 * and hold a new annotated single-node job back until the planning agent
 * has placed it: Slurm may try a job the moment it is submitted, or when
 * any other job ends, and a job started before it has its node would lose
 * its data.  The hold is a begin time a bound ahead that the agent derives
 * from its measured cycle time (agent_gate.h); the agent lifts it as soon
 * as it placed the job, and if it is slow or not running, Slurm's clock
 * lets the job go at the bound.
 *
 * The same parser as sched/datalocality reads the annotation, so a job
 * that gets past this plugin is one the scheduler understands.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "src/common/slurm_xlator.h"

#include "slurm/slurm_errno.h"
#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "dl_error.h"
#include "dl_files.h"
#include "dl_script.h"
#include "dl_compat.h"
#include "dl_slurm.h"
#include "jsub_pattern.h"
#include "jsub_wake.h"
#include "agent_gate.h"

/*
 * Slurm 22.05 refuses a comment over 1,024 bytes before job_submit plugins
 * see it ("Pathname ... too long"); jobs with many files use #DL
 * directives in the script or list files.
 */

const char plugin_name[] = "Data locality: validate files: annotations";
const char plugin_type[] = "job_submit/datalocality";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

int init(void)
{
	dl_slurm_log_init();
	return SLURM_SUCCESS;
}

void fini(void)
{
	jsub_wake_fini();
}

/*
 * IN comment, bb - the job's (new) comment and burst-buffer spec
 * IN uid, gid - whose permissions list files are read with
 * OUT err_msg - set on rejection
 * RET SLURM_SUCCESS or an error that makes slurmctld refuse the request
 */
static int _validate(const char *comment, const char *bb, uid_t uid,
		     gid_t gid, uint32_t job_id, char **err_msg, bool *files_out)
{
	char *msg = NULL;

	/* Validation only: the agent learns sizes when the job may run. */
	if (dl_slurm_job_files(comment, NULL, bb, uid, gid, NULL, &msg)) {
		info("%s: rejecting job %u of uid %u: %s", plugin_type,
		     job_id, (unsigned)uid, msg);
		*err_msg = msg;
		return SLURM_ERROR;
	}
	if (files_out)
		*files_out = dl_files_has_annotation(comment) ||
			     (bb && strstr(bb, "stage_in"));
	return SLURM_SUCCESS;
}

/*
 * The environment entries that carry a script's #DL files: (dl_slurm.h)
 * and the gate's mark (agent_gate.h): never the user's own.
 */
static void _drop_env(job_desc_msg_t *d)
{
	uint32_t i, k = 0;

	for (i = 0; i < d->spank_job_env_size; i++) {
		if (!xstrncmp(d->spank_job_env[i], DL_ENV_FILES "=",
			      strlen(DL_ENV_FILES) + 1) ||
		    !xstrncmp(d->spank_job_env[i], "SPANK_" DL_ENV_FILES "=",
			      strlen(DL_ENV_FILES) + 7) ||
		    !xstrncmp(d->spank_job_env[i], AGENT_GATE_ENV "=",
			      strlen(AGENT_GATE_ENV) + 1) ||
		    !xstrncmp(d->spank_job_env[i], "SPANK_" AGENT_GATE_ENV "=",
			      strlen(AGENT_GATE_ENV) + 7)) {
			xfree(d->spank_job_env[i]);
			continue;
		}
		d->spank_job_env[k++] = d->spank_job_env[i];
	}
	d->spank_job_env_size = k;
}

/*
 * #DL directives of a batch script and the stage_in files of its
 * burst-buffer spec: checked like a comment's annotation, then handed to
 * the agent and to dl-stage as DL_FILES in the job's SPANK environment
 * (the Prolog sees SPANK_DL_FILES).  A user's own DL_FILES
 * entry never survives: only what the directives say counts.
 * OUT files - set when the script names files
 */
/*
 * The burst-buffer stage_in files join the script's: slurmd gives the
 * Prolog no burst-buffer spec, and asking slurmctld from every Prolog
 * would cost a round trip per job.  \return a malloc'd annotation (ann
 * freed), or ann itself when the spec names no files.
 */
static char *_with_bb(char *ann, const char *bb)
{
	dl_filelist_t *list = NULL;
	char *out;

	if (!bb || !strstr(bb, "stage_in"))
		return ann;
	if (ann ? dl_files_parse(ann, &list, NULL, 0) :
		  !(list = dl_filelist_new()))
		return ann;
	if (dl_files_bb_stage_in(bb, list) || !list->count ||
	    !(out = dl_files_format(list))) {
		dl_filelist_free(list);
		return ann;
	}
	dl_filelist_free(list);
	free(ann);
	return out;
}

/*
 * The script's own #BB/#DW lines: Slurm turns them into the job's
 * burst-buffer spec only in a burst-buffer plugin, after job_submit (and
 * without one, never), so a --bb option is all d->burst_buffer holds yet.
 */
static char *_with_script_bb(char *ann, const job_desc_msg_t *d)
{
	char *bb = NULL;

	if (!d->script ||
	    (d->burst_buffer && strstr(d->burst_buffer, "stage_in")) ||
	    dl_script_bb(d->script, strlen(d->script), &bb))
		return ann;
	ann = _with_bb(ann, bb);
	free(bb);
	return ann;
}

/*
 * IN pat - the values of the job's patterns (jsub_pattern.h): the files
 *	are read as the first task names them, NULL if no '%' anywhere
 */
static int _script(job_desc_msg_t *d, const jsub_pattern_t *pat,
		   char **err_msg, bool *files)
{
	char err[512], *ann = NULL, *msg = NULL, *first = NULL;
	int rc;

	_drop_env(d);
	err[0] = '\0';
	if (d->script && strstr(d->script, "#DL") &&
	    (rc = dl_script_files(d->script, strlen(d->script), &ann, err,
				  sizeof(err)))) {
		*err_msg = xstrdup(err[0] ? err : dl_strerror(rc));
		return SLURM_ERROR;
	}
	ann = _with_bb(ann, d->burst_buffer);
	ann = _with_script_bb(ann, d);
	if (!ann)
		return SLURM_SUCCESS;
	if (jsub_pattern_first(pat, ann, &first, err_msg) ||
	    dl_slurm_job_files(NULL, first ? first : ann, NULL, d->user_id,
			       d->group_id, NULL, &msg)) {
		free(first);
		free(ann);
		if (msg)
			*err_msg = msg;
		return SLURM_ERROR;
	}
	free(first);
	xrecalloc(d->spank_job_env, d->spank_job_env_size + 1,
		  sizeof(char *));
	d->spank_job_env[d->spank_job_env_size++] =
		xstrdup_printf("%s=%s", DL_ENV_FILES, ann);
	free(ann);
	*files = true;
	return SLURM_SUCCESS;
}

/* Whether a planning agent runs to place (and release) gated jobs. */
static bool _agent_configured(void)
{
	return !xstrcmp(slurm_conf.schedtype, "sched/datalocality") ||
	       dl_compat_agent_beside();
}

/*
 * What the agent may restrict to one node, or to a set of a fixed number
 * of nodes (agent_multi.h): see agent_snapshot.c.  A hetjob's components
 * alike, whatever their node counts: the agent releases them together
 * once all are placed (agent_het.h).  An array's tasks are placed one by
 * one as the agent splits them off its own record (agent_array.h), each
 * inheriting this hold until placed.
 */
static bool _placeable(const job_desc_msg_t *d)
{
	if (d->req_nodes)
		return false;
	if (d->min_nodes != NO_VAL && d->min_nodes > 1)
		return d->max_nodes == NO_VAL || d->max_nodes == d->min_nodes;
	if (d->max_nodes != NO_VAL && d->max_nodes > 1)
		return false;
	return true;
}

/*
 * The gate's bound: what the agent publishes from its measured cycle time
 * (agent_gate.h), re-read when the file changed, DL_GATE_SECONDS until it
 * wrote one.  job_submit may run in several RPC threads at once.
 */
static uint32_t _gate_bound(void)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static struct stat seen;
	static uint32_t bound = DL_GATE_SECONDS;
	char *path = xstrdup_printf("%s/%s", slurm_conf.state_save_location,
				    DL_GATE_FILE);
	unsigned long b;
	struct stat sb;
	uint32_t out;
	FILE *f;

	slurm_mutex_lock(&lock);
	if (!stat(path, &sb) &&
	    (sb.st_mtim.tv_sec != seen.st_mtim.tv_sec ||
	     sb.st_mtim.tv_nsec != seen.st_mtim.tv_nsec ||
	     sb.st_ino != seen.st_ino) &&
	    (f = fopen(path, "re"))) {
		if (fscanf(f, "%lu", &b) == 1 && b >= 1 &&
		    b <= AGENT_GATE_HOLD_MAX)
			bound = (uint32_t)b;
		fclose(f);
		seen = sb;
	}
	out = bound;
	slurm_mutex_unlock(&lock);
	xfree(path);
	return out;
}

/*
 * Hold the job back a bound ahead, and note the bound and the user's own
 * begin time in its SPANK environment (agent_gate.h): the agent tells
 * from them that the gate holds it, and what to give back on release.
 * RET whether it holds the job (the agent is then woken, jsub_wake.h).
 */
static bool _gate(job_desc_msg_t *d)
{
	uint32_t bound = _gate_bound();
	time_t now = time(NULL);
	char mark[48];

	/* A job that begins later anyway is placed before then. */
	if (d->begin_time > now + bound ||
	    !agent_gate_mark_format(mark, sizeof(mark), bound, d->begin_time))
		return false;
	d->begin_time = now + bound;
	xrecalloc(d->spank_job_env, d->spank_job_env_size + 1,
		  sizeof(char *));
	d->spank_job_env[d->spank_job_env_size++] =
		xstrdup_printf("%s=%s", AGENT_GATE_ENV, mark);
	return true;
}

extern int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid,
		      char **err_msg)
{
	bool files = false;
	int rc;

	jsub_pattern_t *pat = jsub_pattern_new(job_desc);
	char *first = NULL;

	(void)submit_uid;
	/* Files named by patterns: as the first task sees them, then all. */
	rc = jsub_pattern_first(pat, job_desc->comment, &first, err_msg);
	if (rc == SLURM_SUCCESS)
		rc = _validate(first ? first : job_desc->comment,
			       job_desc->burst_buffer, job_desc->user_id,
			       job_desc->group_id, 0, err_msg, &files);
	files = files || dl_files_has_annotation(job_desc->comment);
	if (rc == SLURM_SUCCESS)
		rc = _script(job_desc, pat, err_msg, &files);
	if (rc == SLURM_SUCCESS)
		rc = jsub_pattern_check(pat, job_desc, err_msg);
	free(first);
	jsub_pattern_free(pat);
	if (rc == SLURM_SUCCESS && files && _agent_configured() &&
	    _placeable(job_desc) && _gate(job_desc))
		jsub_wake_agent();
	return rc;
}

/*
 * A node list given to an update (scontrol update ReqNodeList=..., even the
 * node the plugin chose, or empty) is the admin's or user's from now on:
 * the SystemComment stops claiming the plugin's placement, which is what
 * the agent reads (agent_snapshot_ours()), so the list is never moved or
 * widened (issue 26, item 3).  Slurm 24.11 ignores an update to an
 * identical list, leaving nothing else in the job record to tell by.
 */
static void _admin_list(job_desc_msg_t *job_desc, job_record_t *job_ptr)
{
	const char *sc = job_ptr->system_comment;
	/* Cleared (ReqNodeList=): the job may run anywhere, as it says. */
	const char *how = job_desc->req_nodes && !job_desc->req_nodes[0] ?
				  "cleared" : "set";

	if (!job_desc->req_nodes || !sc ||
	    strncmp(sc, DL_SC_PLACED, strlen(DL_SC_PLACED)))
		return;
	xfree(job_ptr->system_comment);
	job_ptr->system_comment = xstrdup_printf("%snode list %s by an update since the plugin's placement: left alone",
						 DL_SC_PREFIX, how);
	info("job_submit/datalocality: JobId=%u: its node list was %s by an update: left alone",
	     job_ptr->job_id, how);
}

extern int job_modify(job_desc_msg_t *job_desc, job_record_t *job_ptr,
		      uint32_t submit_uid, char **err_msg)
{
	jsub_pattern_t *pat;
	char *first = NULL;
	int rc;

	(void)submit_uid;
	_admin_list(job_desc, job_ptr);
	/* Only a changed comment can make the annotation invalid. */
	if (!job_desc->comment)
		return SLURM_SUCCESS;
	/* Its patterns as this job (or its first pending task) sees them. */
	pat = strchr(job_desc->comment, '%') ? jsub_pattern_job(job_ptr) : NULL;
	rc = jsub_pattern_first(pat, job_desc->comment, &first, err_msg);
	if (rc == SLURM_SUCCESS)
		rc = _validate(first ? first : job_desc->comment,
			       job_ptr->burst_buffer, job_ptr->user_id,
			       job_ptr->group_id, job_ptr->job_id, err_msg,
			       NULL);
	free(first);
	jsub_pattern_free(pat);
	return rc;
}
