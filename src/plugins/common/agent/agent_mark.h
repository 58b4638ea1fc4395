/*
 * agent_mark.h - telling the plugin's required node list of a job from one
 * an admin or user set equal to it (issue 26, item 3).
 *
 * The SystemComment names the node the plugin restricted a job to, but
 * `scontrol update jobid=N ReqNodeList=n3` on a job the plugin placed on n3
 * leaves the same list and the same SystemComment.  What differs is the
 * bitmap: Slurm's update_job() allocates the new req_node_bitmap before it
 * frees the old one, so an update always leaves a bitmap at another
 * address than the one the plugin allocated.  This module remembers, per
 * job, the bitmap the plugin set and the configuration's time then: a
 * reconfiguration (which rebuilds every job's bitmaps) or a restart (this
 * memory is gone) makes the SystemComment the judge again.  Not
 * persistent, locked by its own mutex.
 */
#ifndef AGENT_MARK_H
#define AGENT_MARK_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* agent_mark_set - the plugin just set the job's list to bitmap (address
 * only, never dereferenced); conf_time: slurm_conf.last_update. */
void agent_mark_set(uint32_t job_id, const void *bitmap, time_t conf_time);

/* agent_mark_forget - the job's list is no longer the plugin's. */
void agent_mark_forget(uint32_t job_id);

/*
 * agent_mark_replaced - whether the job's list (bitmap) was replaced since
 * the plugin set it: a mark exists, the configuration was not read again
 * since (conf_time), and the address differs.  With no mark, or after a
 * reconfiguration: false (and a mark for bitmap is taken).
 */
bool agent_mark_replaced(uint32_t job_id, const void *bitmap,
			 time_t conf_time);

#endif /* AGENT_MARK_H */
