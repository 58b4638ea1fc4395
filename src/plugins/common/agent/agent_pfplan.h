/*
 * agent_pfplan.h - which pending jobs get their files prefetched onto
 * their node, and what to send for that (PREFETCH, CANCEL) given what was
 * sent before.  Pure: no Slurm header, malloc()/free(), the cache model
 * read through dl_cache.h only, so that it is unit tested on hand-made
 * cases.  agent_prefetch.h does the Slurm side (inputs, messages, Reasons).
 *
 * Selection, node by node (only nodes whose service is connected with a
 * complete inventory): the pending jobs placed on the node (the plugin's
 * required node) in Slurm's priority order (higher first, then lower job
 * id), at most max_jobs of them (the head of the node's queue: the jobs it
 * takes next), as long as the bytes they miss on the node (per the model;
 * a file two of them need counts once) stay within the node's budget.
 * The first job that does not fit ends the node's list: a job further
 * down the queue never takes the room of one that starts earlier.
 * Files whose size is unknown are not prefetched (they cannot be
 * accounted for).  A file no usable node holds is fetched from storage by
 * one node only: the one the last selection gave it to while a job there
 * still reads it, else that of a staging job reading it, else of the
 * first job by priority, among the heads of the queues, that reads it;
 * the other nodes' picks leave it out until it is cached somewhere, and
 * then copy it from there.
 *
 * Reconciling with the prefetches in force (the table, one entry per job):
 * a selected job without an entry, on another node, on a node that has
 * reconnected since (its pins are gone), with another file list, or whose
 * pins are past half of their lifetime, is sent (again); an entry whose
 * job is no longer selected is cancelled, unless the job now runs on that
 * very node (its Prolog took the pins over) or the node's connection is
 * not the one it was sent on (nothing to cancel).
 */
#ifndef AGENT_PFPLAN_H
#define AGENT_PFPLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "dl_cache.h"

typedef struct pf_job {
	uint32_t job_id;
	int32_t node;           /* pending: its placement; running: its node;
				   -1: neither */
	bool running;
	bool staging;           /* running, started so recently that its
				   Prolog may still be copying its files */
	uint32_t priority;
	const uint32_t *files;  /* tracker ids, the caller's */
	uint32_t nfiles;
} pf_job_t;

typedef struct pf_node {
	bool usable;            /* connected, complete inventory */
	uint64_t epoch;         /* its connection's number (changes at HELLO) */
	uint64_t budget;        /* bytes it may prefetch */
	uint32_t max_jobs;      /* jobs at the head of its queue */
	double load;            /* peer ordering: lower is better */
} pf_node_t;

/* A job selected for prefetch. */
typedef struct pf_pick {
	uint32_t job_id;
	size_t job;             /* its index in the jobs selected from */
	uint32_t node;
	uint32_t nfiles;        /* files to send (known size) */
	uint32_t *files;        /* [nfiles], malloc'd, owned by the pick */
	uint32_t ncached;       /* of them cached on the node now */
	uint64_t missing;       /* bytes missing on the node */
	uint64_t sig;           /* node and file list */
} pf_pick_t;

/* What to do. */
typedef enum { PF_SEND, PF_CANCEL } pf_kind_t;

typedef struct pf_action {
	pf_kind_t kind;
	uint32_t job_id;
	uint32_t node;
	size_t pick;            /* PF_SEND: index into the picks */
} pf_action_t;

/* One prefetch in force. */
typedef struct pf_entry {
	uint32_t job_id;
	uint32_t node;
	uint64_t epoch;
	uint64_t sig;
	time_t sent;
	uint32_t nfiles;
} pf_entry_t;

typedef struct pf_table {
	pf_entry_t *e;          /* sorted by job_id, malloc'd */
	size_t n, cap;
	/*
	 * The last selection's owners of the files cached nowhere (1 + node,
	 * 0: none), by tracker id; malloc'd, [nowner]: a copy given to a
	 * node stays that node's while a job there reads it.
	 */
	uint32_t *owner;
	uint32_t nowner;
} pf_table_t;

/*
 * agent_pfplan_select - the picks.
 * IN/OUT t - the last selection's file owners are read from it and this
 *            one's stored in it (NULL: none, as at the first selection)
 * OUT picks - malloc'd array, free with agent_pfplan_picks_free()
 * RET the number of picks, or DL_ENOMEM (nothing allocated, t unchanged).
 */
int64_t agent_pfplan_select(const dl_cache_t *cache, const pf_job_t *jobs,
			    size_t njobs, const pf_node_t *nodes,
			    uint32_t nnodes, pf_table_t *t, pf_pick_t **picks);

void agent_pfplan_picks_free(pf_pick_t *picks, size_t n);

/*
 * agent_pfplan_reconcile - the actions that bring the table to the picks,
 * applied to the table at once (sends recorded with time now).  jobs are
 * the same as for the selection (for "runs on that node now").
 * OUT acts - malloc'd, free(); CANCELs come before the SENDs.
 * RET the number of actions, or DL_ENOMEM (table unchanged).
 */
int64_t agent_pfplan_reconcile(pf_table_t *t, const pf_pick_t *picks,
			       size_t npicks, const pf_job_t *jobs,
			       size_t njobs, const pf_node_t *nodes,
			       uint32_t nnodes, time_t now, uint32_t timeout,
			       pf_action_t **acts);

/* agent_pfplan_find - the table's entry of a job, or NULL. */
pf_entry_t *agent_pfplan_find(const pf_table_t *t, uint32_t job_id);

/*
 * agent_pfplan_forget - drop a job's entry (its PREFETCH could not be
 * sent: it is tried again at the next reconcile).
 */
void agent_pfplan_forget(pf_table_t *t, uint32_t job_id);

/* agent_pfplan_table_free - empty the table. */
void agent_pfplan_table_free(pf_table_t *t);

/*
 * agent_pfplan_peers - the nodes to copy file from besides storage: the
 * usable nodes other than node whose model holds it, lower load first,
 * then lower index.
 * OUT out - up to max node indices
 * RET how many were written.
 */
uint32_t agent_pfplan_peers(const dl_cache_t *cache, uint32_t file,
			    uint32_t node, const pf_node_t *nodes,
			    uint32_t nnodes, uint32_t *out, uint32_t max);

#endif /* AGENT_PFPLAN_H */
