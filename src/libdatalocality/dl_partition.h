/*
 * dl_partition.h - K-way partitioning of the job/file hypergraph
 * (online-hps-khanna §4.1-4.2): connectivity-1 cut, balanced vertex
 * weights, running jobs and cache anchors fixed to their node's part.
 *
 * The multilevel partitioner is Zoltan's PHG, which needs MPI.  MPI must
 * not run inside slurmctld (Open MPI's singleton init forks an orted, and
 * MPI cannot be initialised again after MPI_Finalize, which a plugin reload
 * would need), so Zoltan runs in a helper program, dl-partitiond, that the
 * partitioner starts on first use and keeps alive across requests.  They
 * talk over pipes with a small binary protocol (below).  Whenever the
 * helper is missing, crashes, answers garbage or misses its deadline, the
 * partitioner kills it, answers with the greedy partitioner of this
 * library instead (dl_partition_greedy(), then refined) and starts a new
 * helper on a later call.  A caller therefore always gets a valid
 * partition unless its arguments are wrong or memory runs out.
 *
 * On request (opts.exact_free) a graph with one or two vertices to place,
 * partitioned from scratch, is solved here, exactly (partition_exact.h:
 * the lowest cut within the balance tolerance the helper would be given,
 * the lighter parts on a tie).  PHG would spend nparts - 1 bisections of
 * ten tries each on that choice, and such graphs are most of the requests
 * of a short queue (a plan per arrival and completion); but the lowest
 * cut is not always the better plan (policy_online_hps.c).
 *
 * Zoltan's recursive bisection handles heavy nets that span many parts
 * (popular files) poorly, and greedy handles them well; by default the
 * partitioner refines both answers with single-vertex k-way moves and
 * keeps the lower cut (opts.polish; contrib/bench_partition.c measures).
 *
 * Errors follow dl_error.h: int functions return 0 or a negative DL_E*
 * code, pointer functions NULL; a failed call leaves its outputs unchanged.
 *
 * Threads: a dl_partitioner_t is thread-compatible: use one object from one
 * thread at a time.  It blocks SIGPIPE in the calling thread only while it
 * writes to the helper, and never touches signal dispositions.  It reaps
 * its own helper with waitpid(pid) and nothing else; a host that reaps
 * every child (waitpid(-1)) or ignores SIGCHLD still works, but then the
 * helper's exit status is not logged.
 */
#ifndef DL_PARTITION_H
#define DL_PARTITION_H

#include <stdint.h>
#include <sys/types.h>

#include "dl_hgraph.h"

/* Values of dl_partition_opts_t.refine. */
enum dl_partition_refine {
	DL_REFINE_NONE = 0,	/* partition from scratch, ignore prev */
	DL_REFINE_REPART = 1,	/* Zoltan LB_APPROACH=REPARTITION from prev */
	DL_REFINE_LOCAL = 2,	/* Zoltan LB_APPROACH=REFINE: local moves */
	DL_REFINE_LIBRARY = 3,	/* no helper: prev, new vertices placed
				 * greedily, then the library's k-way
				 * refinement; fastest, keeps most of prev */
};

/* dl_partition_opts_t.timeout_ms: wait for the helper as long as it takes. */
#define DL_PARTITION_NO_TIMEOUT 0xffffffffu

typedef struct dl_partition_opts {
	/* Path of dl-partitiond.  NULL: $DL_PARTITIOND if set, else
	 * DL_PARTITIOND_PATH as compiled in (a bare name is looked up in
	 * PATH).  Copied by dl_partitioner_create(). */
	const char *helper;
	/* > 1: run the helper as "mpirun -np nprocs helper". */
	unsigned nprocs;
	/* Deadline of the helper's start-up (until it greets) and, separately,
	 * of each request; 0 means the default, 30000.  A safety limit for a
	 * hung or starved helper, not a budget: what is sent to the helper is
	 * bounded by work_budget (below), about 2 CPU s, so that under load
	 * a request takes longer rather than failing (a 5-s limit failed
	 * 100,000 jobs on 256 and on 1,024 nodes on a busy 2-core host).
	 * DL_PARTITION_NO_TIMEOUT: no wall-clock deadline at all, so that the
	 * answer never depends on the host's load (dl-sim); a helper that
	 * dies is still noticed (EOF on its pipes) and its request asked of
	 * a new helper (3 in all), one that hangs blocks the caller. */
	unsigned timeout_ms;
	/* Largest part weight over the mean part weight, >= 1.0 (Zoltan's
	 * IMBALANCE_TOL); default 1.1. */
	double imbalance;
	/* Seed of Zoltan's random generator, reset before every request so
	 * that the same input gives the same parts; default 1. */
	unsigned seed;
	/* One of enum dl_partition_refine; used only when the caller passes
	 * a previous partition to dl_partitioner_run().  Default NONE. */
	int refine;
	/* 1 (default): improve the helper's parts with the library's k-way
	 * refinement, do the same from the greedy partition (or, in refine
	 * mode, from the previous plan), and return the lower cut.  0: return
	 * the helper's parts as they are (the fallback is then plain
	 * greedy). */
	int polish;
	/* A graph with at most this many free vertices (1 or 2; 0, the
	 * default: none), partitioned from scratch, is solved exactly in
	 * the library (above) without a helper request. */
	unsigned exact_free;
	/* Largest from-scratch request sent to the helper, in work units:
	 * pins x ceil(log2(nparts)) (PHG's recursive bisection goes over
	 * every pin once per level).  A larger graph is not sent as it is:
	 * its free vertices with the same shared nets are merged
	 * (partition_coarse.h, same cuts), and that graph is sent if it is
	 * within the budget (stats.coarse); if not, the library answers
	 * with its own initial partition (partition_fill.h) or greedy's,
	 * each refined, whichever cuts less (stats.over_budget).
	 * Counted in work, not seconds, so that the answer does not depend
	 * on the host's load.  0: no limit.  Default DL_PARTITION_BUDGET. */
	double work_budget;
} dl_partition_opts_t;

/* The default work budget: 1e7 units.  100,000 jobs of 6 files on 1,024
 * nodes are 6.0M units, 3.5-7 CPU s of PHG on a 2-core VM, so the helper
 * partitions them (on a host loaded 38 deep, 9 s wall: within the 30-s
 * safety limit).  At 5e6 the library's partition answered them with a
 * cut 1.46x PHG's, and Online-HPS's guard (order=priority) then preferred
 * locality's plan; with identical jobs merged (3.5M units) the helper
 * answers them at 0.99x, and 200,000 such jobs at 0.94x
 * (doc/benchmarks.md). */
#define DL_PARTITION_BUDGET 1e7

typedef struct dl_partition_stats {
	double cut;		/* connectivity-1 cut, in net-cost units */
	double imbalance;	/* max part weight / mean part weight - 1 */
	double seconds;		/* wall time of the call */
	int used_fallback;	/* 1: the helper failed; greedy answered */
	int exact;		/* 1: one or two free vertices, solved here */
	int greedy_won;		/* 1: polish found greedy's parts better */
	int helper_restarts;	/* helpers started after the first, so far */
	int over_budget;	/* 1: from scratch over opts.work_budget: the
				 * library's partition answered */
	int coarse;		/* 1: from scratch over opts.work_budget, but
				 * within it once identical vertices were
				 * merged: the helper partitioned that graph
				 * (partition_coarse.h) */
} dl_partition_stats_t;

typedef struct dl_partitioner dl_partitioner_t;

/* dl_partition_opts_default - fill o with the defaults documented above. */
void dl_partition_opts_default(dl_partition_opts_t *o);

/**
 * dl_partitioner_create - a partitioner; the helper is not started yet.
 * IN o - options, NULL for the defaults; copied
 * \return a partitioner to free with dl_partitioner_destroy(); NULL on
 * ENOMEM or invalid options (imbalance < 1, refine out of range).
 */
dl_partitioner_t *dl_partitioner_create(const dl_partition_opts_t *o);

/**
 * dl_partitioner_destroy - stop the helper (close its input, wait up to
 * one second for it to exit; under mpirun SIGTERM mpirun and wait another
 * second; then SIGKILL its process group), reap it and free the
 * partitioner.  NULL is a no-op.
 */
void dl_partitioner_destroy(dl_partitioner_t *p);

/**
 * dl_partitioner_set_exact - opts.exact_free from the next run on (a
 * policy decides plan by plan whether small graphs are solved exactly).
 * Values above 2 count as 2.  NULL is a no-op.
 */
void dl_partitioner_set_exact(dl_partitioner_t *p, unsigned max_free);

/**
 * dl_partitioner_set_imbalance - opts.imbalance from the next run on (a
 * policy decides plan by plan how much balance it asks for).  A value
 * below 1 or not finite is ignored.  NULL is a no-op.
 */
void dl_partitioner_set_imbalance(dl_partitioner_t *p, double imbalance);

/**
 * dl_partitioner_start - start the helper now, if none runs, so that the
 * first dl_partitioner_run() does not pay its start (fork, exec, Zoltan's
 * and MPI's initialisation: a quarter of a second).  A failure counts as
 * one of dl_partitioner_run()'s; the next run tries again or falls back.
 * \return 0 (running, or skipped while backing off after failures);
 * DL_EINVAL (NULL), DL_EIO, DL_ETIMEDOUT, DL_ENOMEM.
 */
int dl_partitioner_start(dl_partitioner_t *p);

/**
 * dl_partitioner_run - partition a hypergraph into h->nparts parts.
 *
 * Fixed vertices (h->fixed[v] >= 0) keep their part.  Parts may be left
 * empty.  With opts.refine != DL_REFINE_NONE and prev != NULL, vertices
 * with a previous part start there (new ones are first placed greedily)
 * and Zoltan (or, for DL_REFINE_LIBRARY, the library alone) improves that
 * partition instead of starting afresh; prev values outside [0, nparts)
 * count as "no previous part".  Incremental plans drift: a host should
 * still partition from scratch (prev = NULL) now and then.
 *
 * A helper that dies before its greeting is started again, 3 times in
 * all, within the call; a singleton helper runs with an Open MPI session
 * directory of its own (under orte_tmpdir_base, $TMPDIR or /tmp),
 * removed once it is reaped.
 * If the helper fails (cannot start, dies, times out, answers an invalid
 * partition), it is killed and reaped, the greedy partitioner answers
 * (stats->used_fallback = 1) and a new helper is started on a later call.
 * Without a deadline (DL_PARTITION_NO_TIMEOUT) a request whose helper
 * died is first asked of a new helper, 3 in all.
 * After repeated failures the partitioner skips the helper for a growing
 * number of calls (1, 3, 7, ... up to 63) to avoid paying the timeout on
 * every call; those calls also report used_fallback.
 *
 * IN h - the hypergraph; every pin < nvtx, no pin twice in a net, weights
 *        and costs finite and >= 0, fixed parts < nparts, nparts >= 1
 * IN prev - NULL or [nvtx] previous part of every vertex, or -1
 * OUT part - [nvtx] the part of every vertex; unchanged on error
 * OUT stats - NULL or filled on success
 * \return 0; DL_EINVAL (NULL argument or invalid graph); DL_ENOMEM.
 */
int dl_partitioner_run(dl_partitioner_t *p, const dl_hgraph_t *h,
		       const int32_t *prev, int32_t *part,
		       dl_partition_stats_t *stats);

/**
 * dl_partition_greedy - the fallback partitioner.  Fixed vertices stay.
 * Free vertices, heaviest first (ties: lower index), go to the part that
 * adds the least connectivity-1 cost among the parts whose weight stays
 * <= imbalance * mean part weight; ties go to the lighter part, then the
 * lower part number.  If no part has room, the candidates are the parts
 * that end up no heavier than the lightest one would.  Deterministic;
 * O(nparts * nvtx + sum of net connectivities over pins).
 * IN imbalance - >= 1.0
 * OUT part - [nvtx]; unchanged on error
 * \return 0, DL_EINVAL, DL_ENOMEM.
 */
int dl_partition_greedy(const dl_hgraph_t *h, double imbalance,
			int32_t *part);

/*
 * ---- Internal: for tests and for dl-partitiond only ----------------------
 */

/* The helper's pid, or -1 when none runs. */
pid_t dl__partitioner_pid(const dl_partitioner_t *p);

/*
 * The wire protocol between partition.c and dl-partitiond.  Both ends run
 * on one host, so integers and doubles travel in host order.  Every message
 * starts with a magic and the protocol version; a peer that sees another
 * magic or version gives up on the connection.
 *
 *   helper -> library, once after start-up:  dl__proto_hello_t
 *   library -> helper, per request:          dl__proto_req_t, then
 *	double   vwgt[nvtx]
 *	int32_t  fixed[nvtx]
 *	int32_t  init[nvtx]           only if flags & DL__PROTO_F_INIT
 *	double   ncost[nnets]         bytes; the helper scales them
 *	uint32_t xpins[nnets + 1]
 *	uint32_t pins[npins]
 *   helper -> library, per request:          dl__proto_resp_t, then
 *	int32_t  part[nvtx]           only if status == DL__PROTO_OK
 *
 * EOF on the helper's input ends it (MPI_Finalize, exit 0).  After a
 * request it cannot parse, the helper answers DL__PROTO_EBADREQ and exits.
 */
#define DL__PROTO_VERSION 1u
#define DL__PROTO_HELLO 0x48504c44u	/* "DLPH" */
#define DL__PROTO_REQ 0x51504c44u	/* "DLPQ" */
#define DL__PROTO_RESP 0x52504c44u	/* "DLPR" */
#define DL__PROTO_F_INIT 1u		/* init[] follows fixed[] */

/* Request approaches: Zoltan LB_APPROACH values. */
enum {
	DL__PROTO_PARTITION = 0,
	DL__PROTO_REPARTITION = 1,
	DL__PROTO_REFINE = 2,
};

/* Response status. */
enum {
	DL__PROTO_OK = 0,
	DL__PROTO_EBADREQ = 1,	/* malformed request; the helper exits */
	DL__PROTO_ENOMEM = 2,
	DL__PROTO_EZOLTAN = 3,	/* Zoltan failed; the helper stays */
	DL__PROTO_EINVAL = 4,	/* well-framed but invalid graph */
};

typedef struct dl__proto_hello {
	uint32_t magic;
	uint32_t version;
	uint32_t nprocs;	/* MPI ranks of the helper */
	uint32_t reserved;
} dl__proto_hello_t;

typedef struct dl__proto_req {
	uint32_t magic;
	uint32_t version;
	uint32_t nvtx;
	uint32_t nnets;
	uint32_t npins;
	uint32_t nparts;
	uint32_t approach;	/* DL__PROTO_PARTITION, ... */
	uint32_t seed;
	uint32_t flags;		/* DL__PROTO_F_* */
	uint32_t reserved;
	double imbalance;
	double repart_multiplier;
} dl__proto_req_t;

typedef struct dl__proto_resp {
	uint32_t magic;
	uint32_t version;
	int32_t status;		/* DL__PROTO_OK, ... */
	uint32_t nvtx;
	double seconds;		/* time spent in Zoltan */
} dl__proto_resp_t;

#endif /* DL_PARTITION_H */
