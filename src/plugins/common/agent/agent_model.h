/*
 * agent_model.h - the controller's model of what each node caches: the
 * cache tracker, indexed like slurmctld's node table, kept equal to the
 * nodes' dl-stage inventories where the controller can read them, and
 * otherwise updated with "cached where the job ran".  Also the per-node
 * hit counters.  Owned by the agent thread alone.
 */
#ifndef AGENT_MODEL_H
#define AGENT_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "dl_cache.h"
#include "dl_persist.h"
#include "dl_pattern.h"
#include "agent_conf.h"
#include "agent_jobs.h"

/*
 * agent_model_setup - size the model to nnodes nodes.  A changed node
 * count means node indices moved: the model starts empty.
 * RET true if the model was (re)created (the caller restores state then).
 */
bool agent_model_setup(uint32_t nnodes, const agent_conf_t *c);

/* agent_model_fini - free the model. */
void agent_model_fini(void);

/* The tracker (NULL before setup), its node count and hit counters. */
dl_cache_t *agent_model_cache(void);
uint32_t agent_model_nodes(void);
dl_node_stats_t *agent_model_stats(void);

/*
 * agent_model_parse_job - parse a job's annotation once (as its user) and
 * intern its files in the tracker.  A bad annotation, or one naming more
 * than max_files files (then ji->too_many says how many), is logged and
 * leaves the job without files: it runs without placement.  ctx: the
 * job's values for the patterns of its paths (dl_slurm_job_files_max());
 * ji->task_id records the task id they were expanded for.
 */
void agent_model_parse_job(agent_job_t *ji, const char *comment,
			   const char *script_files, const char *bb,
			   uid_t uid, gid_t gid, const dl_pattern_ctx_t *ctx,
			   uint32_t max_files, const char *pfx);

/*
 * agent_model_sync_node - make node's model equal to its dl-stage
 * inventory under the configured CacheDir, if the controller can read it
 * (re-read only when it changed); nothing for a node whose service
 * reports (agent_model_sync_service()).  RET true if the node has an
 * inventory.
 */
bool agent_model_sync_node(uint32_t node, const char *name,
			   const char *cache_dir);

/*
 * agent_model_sync_service - make node's model equal to what its cache
 * service reports, if it is connected and its full inventory arrived
 * (re-read only when it changed).  A node whose service was lost becomes
 * DL_SOURCE_UNKNOWN until the service's next full inventory.  RET true if
 * the service is the node's source now.  Sources are dl_persist.h's
 * dl_source_t: the state file shows them.
 */
bool agent_model_sync_service(uint32_t node, const agent_conf_t *c);

/*
 * agent_model_resets - a count that moves whenever the model undoes what
 * agent_model_sync_service() made (agent_model_setup() sets every store's
 * capacity again; a node powered down or up forgets its service's
 * inventory): with agent_channel_changes(), whether a sync is due.
 */
uint64_t agent_model_resets(void);

/* agent_model_source - where node's model comes from now. */
dl_source_t agent_model_source(uint32_t node);

/*
 * agent_model_peer_sources - per node, 1 if its cache service is connected
 * now, so that other nodes can copy from its cache (dl_place_params_t's
 * peer_src).  RET an array owned by the model, valid until the next call
 * or setup; NULL before setup.
 */
const uint8_t *agent_model_peer_sources(void);

/*
 * agent_model_power - tell the model node's power state (dl_power_t)
 * at this cycle.  With PowerDownCache=lost (kept false), a node that is
 * powering down, powered down or resuming has lost its cache: its model
 * is emptied when it goes, and neither its inventory nor its service is
 * read until the node is up again (only the files of a job Slurm starts
 * on it as it resumes are recorded); then the next full inventory (its
 * service's, re-read even if its connection survived) is the truth.  With kept, the model is left alone.  Transitions
 * are logged.  RET true if the model was emptied now.
 */
bool agent_model_power(uint32_t node, const char *name, int power,
		       bool kept, const char *pfx);

/*
 * agent_model_power_info - what agent_model_power() last saw of node (its
 * state, since when, how many power-downs emptied its model), for the
 * state file; kept as configured.
 */
void agent_model_power_info(uint32_t node, dl_power_stats_t *out);

/* agent_model_has_inventory - whether node reported one at the last read. */
bool agent_model_has_inventory(uint32_t node);

/*
 * agent_model_job_started - a job of ji's files started on node: count its
 * hits and misses against the model, then, unless the node reports an
 * inventory, record the files as cached there.
 */
void agent_model_job_started(agent_job_t *ji, int32_t node, bool has_inv,
			     const char *pfx);

/*
 * agent_model_job_ran_on - a job of ji's files that agent_model_job_started()
 * recorded on its first node runs on node too (a multi-node job stages
 * all its input on each of its nodes): unless the node reports an
 * inventory, record the files as cached there as well.  Its hits are
 * counted on the first node only.
 */
void agent_model_job_ran_on(const agent_job_t *ji, int32_t node, bool has_inv,
			    const char *pfx);

/*
 * agent_model_compact - release the paths no job record and no node's
 * cache refers to any more: the tracker interns paths for good, so one
 * that has grown well beyond what is live is rebuilt with the live files
 * only, and every job record's file ids are translated.  The tracker's
 * file ids (and so any plan, state or policy state made before) are
 * invalid afterwards.  RET true if it compacted.
 */
bool agent_model_compact(const agent_conf_t *c, const char *pfx);

/*
 * agent_model_inventory_path - a node's inventory file, which dl-stage
 * rewrites: CacheDir with %n expanded, then "/.inventory".  RET
 * xmalloc'd; xfree it.
 */
char *agent_model_inventory_path(const char *cache_dir, const char *node);

#endif /* AGENT_MODEL_H */
