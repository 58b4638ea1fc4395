/*
 * agent_place.h - turning a plan into placement operations on job records,
 * in two steps so that slurmctld's write locks are held only to apply:
 * agent_place_decide() runs the library's placement rule (dl_place.h) for
 * every planned job without any lock and lists what to change;
 * agent_place_apply() changes the job records under the job write lock.
 */
#ifndef AGENT_PLACE_H
#define AGENT_PLACE_H

#include <stdint.h>

#include "dl_persist.h"
#include "dl_policy.h"
#include "dl_state.h"
#include "agent_conf.h"
#include "agent_snapshot.h"

typedef enum {
	OP_RESTRICT,    /* set (or move) the plugin's required node */
	OP_WIDEN,       /* lift it: any eligible node */
	OP_REASON,      /* restriction unchanged: refresh Reason */
	OP_UNGATE,      /* no placement for it: just let it go */
	OP_REGATE,      /* gated but cannot run yet: keep it gated */
	OP_RESTORE,     /* it started under the restriction: lift it */
	OP_FORGET,      /* requeued: forget how it was placed last time */
	OP_RELEASED,    /* the gate's clock let it go unplaced: say so */
	OP_NOTE,        /* its list is not the plugin's: say so in its
			 * SystemComment, which claimed a placement */
} op_kind_t;

typedef struct place_op {
	op_kind_t kind;
	uint32_t job_id;
	int32_t node;           /* OP_RESTRICT: the node (the first of
				 * nodes, when set) */
	char *nodes;            /* OP_RESTRICT of a multi-node job: its
				 * nodes as Slurm ranges them, xmalloc'd */
	int32_t *set;           /* and their indices, xmalloc'd */
	uint32_t nset;
	int32_t from;           /* previous restriction, or -1 */
	bool gated;             /* held back at submit: release it */
	time_t release_to;      /* gated: the begin time it gets back */
	uint32_t hold;          /* OP_REGATE: seconds to hold it again */
	char *desc;             /* Reason text, xmalloc'd, may be NULL */
	char *sc;               /* SystemComment, xmalloc'd, may be NULL */
	char *log;              /* info() line, xmalloc'd, may be NULL */
} place_op_t;

typedef struct place_ops {
	place_op_t *op;
	uint32_t n, cap;
} place_ops_t;

/*
 * agent_place_decide - the operations for one cycle.
 * IN s - the snapshot; IN st - the state planned (jobs[k] of it is the
 * snapshot job map[k]); IN plan - its plan (NULL: planning failed)
 * OUT ops - appended to; free with agent_place_ops_free()
 * IN/OUT stats - counters
 */
void agent_place_decide(const snapshot_t *s, const dl_state_t *st,
			const uint32_t *map, const dl_plan_t *plan,
			const agent_conf_t *c, place_ops_t *ops,
			dl_sched_stats_t *stats, const char *pfx);

/*
 * agent_place_apply - apply ops to the job records.  Caller holds the job
 * write lock and node read lock.  RET how many records changed.
 */
uint32_t agent_place_apply(const place_ops_t *ops);

/* agent_place_ops_free - free the operations. */
void agent_place_ops_free(place_ops_t *ops);

/* agent_place_gate_op - the submit gate's part of op on sj (agent_gate.h). */
void agent_place_gate_op(place_op_t *op, const snap_job_t *sj,
			 const agent_conf_t *c);

/* agent_place_add - append an operation; strings are taken over. */
place_op_t *agent_place_add(place_ops_t *ops, op_kind_t kind,
			    uint32_t job_id);

#endif /* AGENT_PLACE_H */
