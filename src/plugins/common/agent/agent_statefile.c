/* agent_statefile.c - saving and restoring the agent; see agent_statefile.h. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "src/common/slurm_xlator.h"

#include "src/common/log.h"
#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "dl_error.h"
#include "agent_channel.h"
#include "agent_model.h"
#include "agent_prefetch.h"
#include "agent_statefile.h"

static char *_path(void)
{
	return xstrdup_printf("%s/datalocality_state",
			      slurm_conf.state_save_location);
}

char **agent_statefile_names(uint32_t *n)
{
	node_record_t *node_ptr;
	char **names = xcalloc(node_record_count ? node_record_count : 1,
			       sizeof(char *));
	int i;

	for (i = 0; (node_ptr = next_node(&i)); i++)
		names[i] = xstrdup(node_ptr->name);
	for (i = 0; i < node_record_count; i++)
		if (!names[i])
			names[i] = xstrdup("");
	*n = node_record_count;
	return names;
}

void agent_statefile_load(char **names, uint32_t nn, dl_sched_stats_t *stats,
			  const char *pfx)
{
	char *path = _path(), err[256] = "";
	dl_persist_t p = { .nnodes = nn, .node_names = (const char **)names,
			   .stats = agent_model_stats(), .sched = stats };
	dl_cache_t *cache = agent_model_cache();
	uint32_t i;
	int rc = cache ? dl_persist_load(path, cache, &p, err, sizeof(err)) :
			 DL_EINVAL;

	if (!rc)
		info("%s: restored the cache model from %s: %u files", pfx,
		     path, dl_cache_file_count(cache));
	else if (rc != DL_ENOENT)
		error("%s: ignoring %s: %s (%s); starting with an empty cache model",
		      pfx, path, err[0] ? err : dl_strerror(rc),
		      dl_strerror(rc));
	if (!stats->since)
		stats->since = (int64_t)time(NULL);
	for (i = 0; i < nn; i++)
		xfree(names[i]);
	xfree(names);
	xfree(path);
}

/*
 * A state path that cannot be written (a directory, a full disk) is
 * reported at once, then at most every SAVE_ERROR_EVERY seconds: the
 * agent saves every second and must not flood the log.
 */
#define SAVE_ERROR_EVERY 600
static uint64_t failures;
static time_t last_report;

static void _save_failed(const char *path, int rc, const char *pfx)
{
	int err = errno;
	time_t now = time(NULL);

	if (failures++ && now - last_report < SAVE_ERROR_EVERY)
		return;
	last_report = now;
	error("%s: cannot save %s: %s (%s); %" PRIu64 " failed saves so far, next report in %d s at the earliest",
	      pfx, path, dl_strerror(rc), strerror(err), failures,
	      SAVE_ERROR_EVERY);
}

/* What each node's service reports, for sdatalocality. */
static dl_service_stats_t *_services(uint32_t nnodes)
{
	dl_service_stats_t *sv = xcalloc(nnodes ? nnodes : 1, sizeof(*sv));
	agent_channel_view_t v;
	agent_pf_stats_t pf;
	uint32_t n;

	for (n = 0; n < nnodes; n++) {
		agent_channel_view(n, &v);
		pf = agent_prefetch_stats(n);
		sv[n].source = agent_model_source(n);
		sv[n].connected = v.connected;
		sv[n].since = v.ever ? (int64_t)v.since : 0;
		sv[n].files = v.files;
		sv[n].used = v.c.used;
		sv[n].capacity = v.ever ? v.c.capacity : DL_CACHE_UNLIMITED;
		sv[n].storage_bytes = v.c.storage_bytes;
		sv[n].peer_bytes = v.c.peer_bytes;
		sv[n].prefetch_sent = pf.sent;
		sv[n].prefetch_cancelled = pf.cancelled;
		sv[n].prefetch_done = v.prefetch_done;
		sv[n].prefetch_active = pf.active;
		sv[n].replicas = pf.replicas;
	}
	return sv;
}

/* Each node's power state, for sdatalocality. */
static dl_power_stats_t *_power(uint32_t nnodes)
{
	dl_power_stats_t *pw = xcalloc(nnodes ? nnodes : 1, sizeof(*pw));
	uint32_t n;

	for (n = 0; n < nnodes; n++)
		agent_model_power_info(n, &pw[n]);
	return pw;
}

void agent_statefile_save(const dl_plan_t *plan, const dl_state_t *st,
			  dl_sched_stats_t *stats, const char *pfx)
{
	uint32_t nnodes = agent_model_nodes(), n;
	dl_power_stats_t *pw;
	dl_service_stats_t *sv;
	dl_persist_t p = { 0 };
	const char **names;
	char *path;
	int rc;

	if (!st || st->nnodes != nnodes || !agent_model_cache())
		return;
	path = _path();
	names = xcalloc(nnodes ? nnodes : 1, sizeof(char *));
	for (n = 0; n < nnodes; n++)
		names[n] = st->nodes[n].name;
	p.nnodes = nnodes;
	p.node_names = names;
	p.stats = agent_model_stats();
	p.sched = stats;
	p.plan = plan;
	p.plan_nodes = names;
	p.plan_nnodes = nnodes;
	p.plan_time = (int64_t)time(NULL);
	p.service = sv = _services(nnodes);
	p.power = pw = _power(nnodes);
	if ((rc = dl_persist_save(path, agent_model_cache(), &p)))
		_save_failed(path, rc, pfx);
	else
		failures = 0;
	xfree(sv);
	xfree(pw);
	xfree(names);
	xfree(path);
}
