/*
 * agent_mark.h - telling the plugin's required node list of a job from one
 * an admin or user set equal to it (issue 26, item 3).
 *
 * The SystemComment names the node the plugin restricted a job to, but
 * `scontrol update jobid=N ReqNodeList=n3` on a job the plugin placed on n3
 * leaves the same list and the same SystemComment.  The bitmap cannot
 * tell: Slurm's scheduler swaps a job's req_node_bitmap for a copy at
 * every attempt (_pick_best_nodes()).  The list's text can: Slurm sets
 * details->req_nodes only at submission, by update_job() and from saved
 * state, each an exact-size copy, while the plugin allocates its own
 * AGENT_MARK_SIZE bytes (xsize() reads it back).  This module remembers
 * which jobs the plugin restricted since slurmctld started: for those, a
 * list of another size is an update's; for the others (a restart lost the
 * memory), the SystemComment alone judges, as before.  Not persistent,
 * locked by its own mutex.
 */
#ifndef AGENT_MARK_H
#define AGENT_MARK_H

#include <stdbool.h>
#include <stdint.h>

/* Bytes the plugin allocates for a req_nodes string it sets. */
#define AGENT_MARK_SIZE 1021

/* agent_mark_set - the plugin just set the job's list (AGENT_MARK_SIZE). */
void agent_mark_set(uint32_t job_id);

/* agent_mark_forget - the job's list is no longer the plugin's. */
void agent_mark_forget(uint32_t job_id);

/* agent_mark_known - whether the plugin set the job's list since
 * slurmctld started (and did not lift it since). */
bool agent_mark_known(uint32_t job_id);

#endif /* AGENT_MARK_H */
