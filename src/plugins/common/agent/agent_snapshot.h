/*
 * agent_snapshot.h - what one planning cycle copies from slurmctld under
 * read locks: nodes, running jobs, and the pending jobs that may get a
 * placement.  Everything is xmalloc'd and freed by agent_snapshot_free().
 */
#ifndef AGENT_SNAPSHOT_H
#define AGENT_SNAPSHOT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "agent_gate.h"
#include "dl_persist.h"

typedef struct snap_job {
	uint32_t job_id;
	bool running;           /* running, or ended since the last cycle */
	bool ended;             /* ended before the agent saw it running */
	bool runnable;          /* pending and could start now */
	bool placeable;         /* pending single-node job we may restrict */
	uint32_t set_k;         /* pending job of k > 1 nodes we may restrict
				 * to k nodes (agent_multi.h), else 0 */
	uint8_t *req;           /* set_k, restricted by us: per node 0/1 */
	int32_t *ran;           /* running on several nodes: all of them */
	uint32_t nran;
	bool gated;             /* held back by job_submit until placed */
	bool gate_expired;      /* the gate's clock let it go unplaced */
	bool gate_noted;        /* its SystemComment says so already */
	uint32_t gate_bound;    /* gated: the bound it was given, seconds */
	time_t ubegin;          /* gated: the user's own begin time, or 0 */
	bool outside;           /* pending, outside the planning window (or
				 * not queued by Slurm): copied only for what
				 * the gate and a rescue need, never read */
	int32_t ours;           /* node of the plugin's restriction, or -1 */
	bool widened;           /* its SystemComment says it was widened */
	bool sc_stale;          /* its SystemComment claims a placement its
				 * list no longer is (an update changed,
				 * cleared or set it again) */
	bool failed;            /* Slurm found it never runnable */
	int32_t node;           /* running: first node */
	uint32_t cpus;
	uint32_t min_nodes;     /* pending: nodes it needs at least */
	uint32_t node_need;     /* set_k: CPUs a node must have free for it
				 * (agent_fit_node_cpus()) */
	uint32_t node_take;     /* set_k: CPUs Slurm gives it on each node,
				 * at most node_need (agent_fit_node_take()) */
	bool for_resources;     /* pending: Reason Resources or None, not
				 * a limit, a hold or a dependency */
	uint32_t priority;
	time_t submit;
	time_t start;           /* running: when it started */
	time_t end;             /* ended: when */
	uint64_t name;          /* hash of the job name (history key) */
	double limit;           /* time limit in seconds, < 0: none */
	uid_t uid;
	gid_t gid;
	char *comment;          /* only for jobs the agent has not parsed */
	char *jname;            /* its name (%x), with comment */
	uint32_t task_id;       /* %a: array task id; DL_PATTERN_NONE (not a
				 * task), DL_PATTERN_UNKNOWN (a pending
				 * array's own record, many tasks) */
	uint32_t array_job_id;  /* %A: 0 or NO_VAL when not an array task */
	uint32_t het_job_id;    /* its hetjob's id (agent_het.h), or 0 */
	char *bb;
	char *script_files;     /* its script's #DL files (DL_ENV_FILES) */
	uint8_t *eligible;      /* placeable: per node 0/1 */
	uint8_t *fits;          /* placeable: per node 1 where Slurm could
				 * start it now (agent_fit_now()) */
	const char *leave_why;  /* placed: why its node cannot take it
				 * (agent_fit_leave_why()), or NULL */
} snap_job_t;

typedef struct snapshot {
	time_t now;
	double clock;           /* now, to the nanosecond: placement waits
				 * are measured in it */
	uint32_t nnodes;
	char **names;
	uint32_t *cpus;
	uint32_t *busy;         /* CPUs allocated to running jobs */
	uint8_t *usable;
	/*
	 * dl_power_t (dl_persist.h) from Slurm's power saving flags
	 * (power_save.c): POWERING_DOWN after SuspendProgram ran (Slurm
	 * allocates nothing to it until SuspendTimeout passed), then
	 * POWERED_DOWN (Slurm may allocate it, which resumes it; it
	 * avoids that while it can), POWERING_UP until its slurmd
	 * registers.  A node only asked to power down (POWER_DOWN) is up.
	 */
	uint8_t *power;
	time_t *boot_req;       /* POWERING_UP: when the resume began */
	uint16_t *resume_timeout; /* Slurm's ResumeTimeout of the node */
	uint64_t *mem_alloc;    /* MB of memory running jobs hold */
	const char **unserving; /* agent_fit_cannot_serve() of the node:
				 * "drained", "down", ... or NULL */
	uint32_t njobs;
	snap_job_t *jobs;
	/* The planning window (agent_window.h) of this snapshot: */
	uint32_t pending;       /* pending jobs Slurm queues */
	uint32_t window;        /* jobs per partition in the window */
	uint32_t in_window;     /* pending jobs in it, copied in full */
	uint32_t skipped;       /* pending jobs below the floors, not read
				 * (agent_window.h; counted in pending) */
	bool full;              /* the walk read every job */
	uint32_t *arrays;       /* job ids of the pending arrays' own records
				 * in it, whose tasks are to be split off
				 * (agent_array.h); they are not copied */
	uint32_t narrays;
	uint32_t array_room;    /* pending tasks split off at a time, all
				 * arrays (agent_window_array_room()) */
	double agent_cycle;     /* the agent's cycle time (agent_gate.h),
				 * set by the agent for its messages */
	double took_ms;         /* the snapshot's own time, wall */
	int64_t wake;           /* when time alone may change the plan
				 * (agent_quiet.h): AGENT_QUIET_LIVE (a
				 * node has free CPUs, a job is held at its
				 * gate, a node powers up or down), the
				 * earliest begin time or reservation edge
				 * ahead, or AGENT_QUIET_NEVER */
	/*
	 * Gated jobs outside the window whose holds the agent renews
	 * between cycles (agent_gate.h; xmalloc, SNAPSHOT_RENEW_MAX at
	 * most, the others' renewals are in wake), and the earliest due.
	 */
	agent_gate_renew_t *renew;
	uint32_t nrenew;
	int64_t renew_wake;
	/*
	 * Gated jobs outside the window whose hold this cycle renews and
	 * that need nothing else (agent_apply_renew() under the cycle's
	 * write lock): not copied into jobs, so a renewal costs a look-up,
	 * not a job's way through the cycle (xmalloc, grows; nregate).
	 */
	agent_gate_renew_t *regate;
	uint32_t nregate;
	/*
	 * Gated jobs of the window whose holds would run out before this
	 * cycle places them (agent_gate_hurry_to()): moved under a write
	 * lock before the cycle plans (xmalloc, grows; nhurry).
	 */
	agent_gate_hurry_t *hurry;
	uint32_t nhurry;
	uint32_t due_taken;     /* jobs this snapshot took off the due list
				 * (agent_window.h): the cycle is to act on
				 * them */
	/*
	 * agent_snapshot_peek() of the job records as this walk read them,
	 * if it skipped by the floors (peeked), for a peek to come to
	 * compare with (agent_peek.h).
	 */
	uint64_t peek;
	bool peeked;
} snapshot_t;

/* Renewals listed in a snapshot at most (snapshot_t.renew). */
#define SNAPSHOT_RENEW_MAX 256

/* What a snapshot needs of datalocality.conf. */
typedef struct snapshot_conf {
	uint32_t plan_window;   /* PlanWindow, 0: from SchedulerParameters */
	uint32_t gate_hold;     /* seconds a gated job outside the window is
				 * held at a time (GateMaxHold) */
	double gate_cycle;      /* the agent's cycle time (agent_gate_cycle()),
				 * for agent_gate_hurry_to() */
} snapshot_conf_t;

/*
 * agent_snapshot_take - fill *s: nodes, running jobs and jobs ended since
 * the last cycle, the pending jobs of the planning window in full, and of
 * the others only those the gate or a rescue must act on.  Caller holds
 * config, job, node and partition read locks.
 */
void agent_snapshot_take(snapshot_t *s, const snapshot_conf_t *c);

/*
 * agent_snapshot_renew_due - between cycles: renew the holds of up to a
 * step's worth of the gated jobs outside the window that the due list
 * brings due by now, by id (the list is kept by the snapshots' walks;
 * agent_window.h).  A job that needs more than its renewal (above a floor
 * now, let go unnoted, restricted by us) goes back to the list due now
 * and sets *cycle: a cycle is to take it.  *next: when the list next
 * brings one due (now if more are due), AGENT_QUIET_NEVER if empty.
 * Nothing while the floors are stale (a partition changed: the next walk
 * is full).  Caller holds the job write lock and the partition read lock.
 * RET the holds renewed.
 */
uint32_t agent_snapshot_renew_due(uint32_t hold, int64_t *next, bool *cycle);

/* agent_snapshot_free - free what *s holds. */
void agent_snapshot_free(snapshot_t *s);

/*
 * agent_snapshot_nodes_fp - a hash of what a snapshot reads of the nodes
 * (states, CPUs, memory, features, GRES, boot and resume times, whether
 * Slurm may use them), so that the agent cycles when that changed rather
 * than at every move of last_node_update (Slurm moves it for node pings
 * and registrations that change none of it).  Caller holds the node read
 * lock.
 */
uint64_t agent_snapshot_nodes_fp(void);

/*
 * agent_snapshot_peek - agent_peek_job() of every job record the next walk
 * would read (those it skips below the floors counted, not read), in list
 * order: snapshot_t.peek if no record changed since that walk.  Caller
 * holds the job and partition read locks.  RET false (*fp unset) if the
 * next walk reads every job (agent_window.h: the floors are stale or a
 * full walk is due): no walk that skips is there to compare with.
 */
bool agent_snapshot_peek(uint64_t *fp);

/* agent_snapshot_fini - forget what the walks kept between cycles. */
void agent_snapshot_fini(void);

/*
 * agent_snapshot_ours - the node of the plugin's restriction of a job
 * record (its SystemComment names the node its required list is), or -1.
 * Caller holds the job and node read locks.
 */
struct job_record;
int32_t agent_snapshot_ours(struct job_record *job_ptr);

/*
 * agent_snapshot_task_id - the task id of a job record for its %a
 * patterns (dl_pattern.h): DL_PATTERN_UNKNOWN for a pending array's own
 * record, DL_PATTERN_NONE outside an array.  Caller holds the job lock.
 */
uint32_t agent_snapshot_task_id(struct job_record *job_ptr);

#endif /* AGENT_SNAPSHOT_H */
