/*
 * provision.h - dynamic resource provisioning for dl-sim: a pool of
 * compute nodes that grows and shrinks with the load, as Falkon's dynamic
 * resource provisioner (DRP) does in data-diffusion-raicu §3.1 and §5.2.
 *
 * The pool holds the simulator's P nodes; each is off, booting (asked for,
 * not yet registered) or on.  Only nodes that are on take jobs or serve
 * peers.  The decisions (all here, without the event loop, so that they
 * can be tested on hand-computed cases):
 *
 *   allocation - every `interval` seconds the provisioner looks at the
 *     wait queue (data-diffusion-raicu §5.2.1: "the load metric was the
 *     wait queue length").  The nodes the queue asks for are
 *       need = ceil(queued / cores) - booting,
 *     at most max - (on + booting).  How many of them one decision asks
 *     for is the allocation policy; r is the number of consecutive
 *     decisions so far that asked for nodes (1 for the first), reset to 0
 *     by a decision that needs none:
 *       one-at-a-time  1
 *       additive       step * r
 *       exponential    2^(r-1)
 *       all-at-once    need
 *     each capped by need.  The paper names the four policies (Falkon's
 *     DRP) without formulas; these are the usual readings of the names.
 *   latency - a node asked for registers after a latency drawn uniformly
 *     from [latency_min, latency_max] (data-diffusion-raicu §5.2.5:
 *     "resource allocation takes on the order of 30~60 seconds due to
 *     LRM's overheads"), from the pool's own PRNG.
 *   release - a node that is on and idle (no job, no transfer to or from
 *     it) for `idle` seconds is released, unless that would leave fewer
 *     than min nodes on or booting (the idle-time release policy of
 *     Falkon's DRP, §3.1: "de-allocation policies").  Its cache is lost
 *     (a new allocation starts cold) or kept (a powered-down node whose
 *     disk survives), as configured.
 *   which node - an allocation takes the lowest-index node that is off.
 *
 * Metrics, over the run [first arrival, last completion] (the paper
 * measures inside the experiment: the static 64-node case allocated its
 * nodes "ahead of time outside the experiment measurement"):
 *   CPU time (CPU_T, §5.2.4) = node seconds on * cores, in hours;
 *   speedup SP = WET_base / WET (§5.2.4, base: first-available on the
 *     shared file system);
 *   performance index PI = SP / CPU_T (§5.2.4), normalised over the runs
 *     compared so that the best is 1;
 *   slowdown SL = WET / WET_ideal (§5.2.5); WET_ideal is metrics.h's
 *     ideal WET.
 *
 * Errors follow dl_error.h.  The pool allocates nothing after
 * dl_prov_pool_init(); it is freed with dl_prov_pool_fini().
 */
#ifndef DL_SIM_PROVISION_H
#define DL_SIM_PROVISION_H

#include <stddef.h>
#include <stdint.h>

typedef enum dl_prov_alloc {
	DL_PROV_ONE = 0,     /* one-at-a-time */
	DL_PROV_ADDITIVE,    /* step, 2 step, 3 step, ... */
	DL_PROV_EXPONENTIAL, /* 1, 2, 4, ... */
	DL_PROV_ALL,         /* all the queue needs at once */
} dl_prov_alloc_t;

typedef struct dl_prov_config {
	int enabled;          /* 0: every node is on for the whole run */
	dl_prov_alloc_t alloc; /* DL_PROV_ADDITIVE */
	uint32_t step;        /* additive increment (1) */
	uint32_t min_nodes;   /* never fewer on or booting (0) */
	uint32_t max_nodes;   /* never more on or booting; 0: all (0) */
	double latency_min;   /* seconds (30) */
	double latency_max;   /* seconds (60) */
	double idle;          /* release after this many idle seconds (60) */
	double interval;      /* seconds between allocation decisions (5) */
	int keep_cache;       /* 1: a released node keeps its cache (0) */
} dl_prov_config_t;

/* dl_prov_config_default - the defaults noted above, disabled. */
void dl_prov_config_default(dl_prov_config_t *c);

/**
 * dl_prov_parse - read "key=value,..." into c (starting from its current
 * values) and enable it.  Keys: alloc=one|additive|exponential|all,
 * step=N, min=N, max=N, latency=S or latency=S1:S2 (uniform in [S1, S2]),
 * idle=S, interval=S, cache=lost|kept.  "off" disables provisioning.
 * OUT err - a message on error (may be NULL)
 * \return 0, DL_EINVAL (c unchanged).
 */
int dl_prov_parse(const char *spec, dl_prov_config_t *c, char *err,
		  size_t errlen);

/* dl_prov_alloc_name - "one", "additive", "exponential", "all" or "?". */
const char *dl_prov_alloc_name(dl_prov_alloc_t a);

/* dl_prov_format - the configuration as dl_prov_parse() reads it. */
void dl_prov_format(const dl_prov_config_t *c, char *buf, size_t len);

/**
 * dl_prov_request - how many nodes one allocation decision asks for.
 * IN queued - jobs in the wait queue; cores - slots per node
 * IN on, booting - nodes on and booting now; nodes - the pool's size
 * IN/OUT round - consecutive decisions that asked for nodes (r - 1 on
 *        entry; updated)
 * \return the number of nodes to ask for (0 or more).
 */
uint32_t dl_prov_request(const dl_prov_config_t *c, size_t queued,
			 uint32_t cores, uint32_t on, uint32_t booting,
			 uint32_t nodes, uint32_t *round);

/**
 * dl_prov_release_due - whether a node idle since idle_since (< 0: busy)
 * is released at now, with on + booting nodes in the pool.
 */
int dl_prov_release_due(const dl_prov_config_t *c, double idle_since,
			double now, uint32_t on_or_booting);

enum {
	DL_PROV_OFF = 0,
	DL_PROV_BOOTING,
	DL_PROV_ON
};

/* The pool: state and accounting of every node. */
typedef struct dl_prov_pool {
	dl_prov_config_t cfg;
	uint32_t nodes, on, booting;
	uint8_t *state;      /* per node: DL_PROV_OFF/BOOTING/ON; owned */
	double *since;       /* per node: when it came on; owned */
	double *idle_since;  /* per node: idle since, < 0: busy; owned */
	uint32_t round;      /* dl_prov_request()'s */
	uint64_t rng;        /* splitmix64 state, for the latencies */
	double node_seconds; /* on-time of nodes already released, clipped */
	double t0;           /* start of the measurement */
	uint64_t allocations, releases;
	uint32_t peak;       /* most nodes on at once */
} dl_prov_pool_t;

/**
 * dl_prov_pool_init - a pool of nodes nodes, all off when c->enabled,
 * all on (since t0) otherwise; c->max_nodes 0 becomes nodes, and min and
 * max are clipped to nodes.
 * \return 0, DL_EINVAL (nodes 0, or min > max), DL_ENOMEM.
 */
int dl_prov_pool_init(dl_prov_pool_t *p, const dl_prov_config_t *c,
		      uint32_t nodes, uint64_t seed, double t0);

/* dl_prov_pool_fini - free what the pool owns; the pool is zeroed. */
void dl_prov_pool_fini(dl_prov_pool_t *p);

/**
 * dl_prov_pool_allocate - one allocation decision at now: ask for the
 * nodes dl_prov_request() says, each taken off and made booting.
 * OUT node, ready - per node asked for: its index and when it registers;
 *     both arrays hold p->nodes entries
 * \return how many nodes were asked for.
 */
uint32_t dl_prov_pool_allocate(dl_prov_pool_t *p, double now, size_t queued,
			       uint32_t cores, uint32_t *node, double *ready);

/**
 * dl_prov_pool_ready - booting node n registers at now: it is on and
 * idle.  \return 0, DL_EINVAL (n is not booting).
 */
int dl_prov_pool_ready(dl_prov_pool_t *p, uint32_t n, double now);

/* dl_prov_pool_busy / _idle - node n took work / became idle at now. */
void dl_prov_pool_busy(dl_prov_pool_t *p, uint32_t n);
void dl_prov_pool_idle(dl_prov_pool_t *p, uint32_t n, double now);

/**
 * dl_prov_pool_release - release node n at now if it is on and its idle
 * time is due (dl_prov_release_due()); its on-time is accounted.
 * \return 1 released, 0 not.
 */
int dl_prov_pool_release(dl_prov_pool_t *p, uint32_t n, double now);

/* dl_prov_pool_usable - whether node n takes jobs (it is on). */
int dl_prov_pool_usable(const dl_prov_pool_t *p, uint32_t n);

/**
 * dl_prov_pool_node_seconds - node seconds on within [t0, end]: the
 * released nodes' plus the nodes still on, up to end.
 */
double dl_prov_pool_node_seconds(const dl_prov_pool_t *p, double end);

/* dl_prov_cpu_hours - CPU_T of §5.2.4: node seconds * cores / 3600. */
double dl_prov_cpu_hours(double node_seconds, uint32_t cores);

/* dl_prov_speedup - SP = wet_base / wet (§5.2.4); 0 if wet <= 0. */
double dl_prov_speedup(double wet_base, double wet);

/* dl_prov_perf_index - PI = SP / CPU_T before normalising; 0 if CPU_T <= 0. */
double dl_prov_perf_index(double speedup, double cpu_hours);

/* dl_prov_pi_normalize - divide every pi[i] by the largest (§5.2.4: "normalized
 * for values between 0 and 1"); all zero stays zero. */
void dl_prov_pi_normalize(double *pi, size_t n);

/* Seconds between the samples dl-sim --timeline writes. */
#define DL_PROV_TIMELINE_EVERY 10.0

struct dl_sim_sample;

/**
 * dl_prov_timeline_csv - write samples (sim.h's timeline) to path, one row
 * each: time, nodes on and booting, queue, running, busy slots, and per
 * interval since the previous row: arrivals, completions, local and peer
 * hits, misses.
 * \return 0 or DL_EIO.
 */
int dl_prov_timeline_csv(const char *path, const struct dl_sim_sample *x,
			 size_t n);

#endif /* DL_SIM_PROVISION_H */
