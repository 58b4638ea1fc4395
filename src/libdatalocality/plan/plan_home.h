/*
 * plan_home.h - internal: each large shared file gets nodes of its own.
 *
 * Where most jobs read one of a few files that weigh a large share of a
 * node's cache (the zoo's heavy class: 4 GiB files, 15 GiB caches, small
 * private inputs besides), a node whose queue mixes the readers of two
 * such files evicts one for the other and fetches it again, and every
 * fetch queues at the one storage node holding the file.  met, which
 * sends each job to the node caching its file, keeps each node to one
 * large file, fetches each about once per node and beats the partition
 * there (issue 30).  This pass gives each node a home file (the large
 * file it caches, else the one of its running job) and moves a job
 * planned on a node of another home to the least loaded node of its own
 * file's home, or, when those are too busy, makes a homeless node a new
 * replica: hot files spread over more nodes instead of co-locating every
 * reader, and no node mixes them.
 */
#ifndef DL_PLAN_HOME_H
#define DL_PLAN_HOME_H

#include <stddef.h>
#include <stdint.h>

#include "dl_policy.h"
#include "dl_state.h"

/**
 * dl__plan_home - walk the planned pending jobs in plan order (ascending
 * .order, then index).  A job's anchor is its largest input file when
 * that weighs at least large x the mean finite node cache and at least
 * half the job's input; jobs without one are left alone.  A job whose
 * node's home is not its anchor moves to the eligible node of that home
 * with the lowest load (slots taken by running and planned jobs over the
 * node's slots; ties: the lowest index) if that load is below the
 * planned node's plus slack; else to the least loaded eligible homeless
 * node, which takes the anchor as its home; else its planned node takes
 * the anchor as home if it has none; else it stays.
 * IN large - > 0; with unlimited caches (nothing evicts) nothing moves
 * IN slack - in waves of a node's slots (1: one more job per slot)
 * OUT moved - optional: the jobs moved
 * \return 0, DL_EINVAL (plan does not match st, large <= 0) or
 *         DL_ENOMEM (plan unchanged).
 */
int dl__plan_home(const dl_state_t *st, dl_plan_t *plan, double large,
		  double slack, size_t *moved);

/**
 * dl__plan_large_bytes - the bytes from which a file is large: large x
 * the mean capacity of the usable nodes' finite caches.
 * \return that, or 0 when no usable node has a finite cache (or no
 *         cache tracker): nothing is evicted, no file is large.
 */
uint64_t dl__plan_large_bytes(const dl_state_t *st, double large);

#endif /* DL_PLAN_HOME_H */
