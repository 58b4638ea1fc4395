/*
 * agent_rates.h - the copy rates the controller learns from what the
 * nodes measure: bytes per second of a copy from the shared storage and
 * of a copy from another node's cache, each from the REPORTs of the node
 * services (count.storage_bytes/storage_us, count.peer_bytes/peer_us) and
 * from their PREFETCH_DONEs (prefetches and replicas copy too).
 *
 * Why: the plans price copies at StorageBandwidth and PeerBandwidth, which
 * are guesses (PeerBandwidth's default is a 10 Gb/s network, 1e9 B/s,
 * where the bench cluster's peer copies ran at 60-85 MB/s: a 4 GiB file
 * priced at 4 s took about 60 s).
 *
 * How: a rate is the ratio of two decayed sums, bytes and seconds, over
 * the reports that copied at least min_bytes of the kind (a small copy
 * measures latency, not bandwidth) in a known time (0 is "not known",
 * from an older service).  Each report taken multiplies the sums by
 * AGENT_RATES_DECAY first, so the rate follows a change within some ten
 * reports; a ratio of sums is weighted by bytes, so one quick small copy
 * cannot swing it, and it always lies between the slowest and the fastest
 * report's own rate.  A report whose own rate is above AGENT_RATES_MAX is
 * not a copy that touched a disk or a network (a clock or a counting
 * error) and is ignored.  Memory: a few numbers per kind, whatever the
 * number of nodes or reports.
 *
 * The configured rates are the prior: plans use them until min_reports
 * reports of the kind were taken, and, with LearnRates=capped, the learned
 * rate only when it is below them (datalocality.conf(5)).
 *
 * This file needs no Slurm: agent_acct.c feeds it from the reports and
 * applies it to the agent's parameters, and tests drive it directly.
 * Threads: every function may be called from any thread (one mutex).
 */
#ifndef AGENT_RATES_H
#define AGENT_RATES_H

#include <stddef.h>
#include <stdint.h>

typedef enum agent_rate_kind {
	AGENT_RATE_STORAGE,     /* shared storage -> a node's cache */
	AGENT_RATE_PEER,        /* a node's cache -> another's */
	AGENT_RATE_KINDS
} agent_rate_kind_t;

/* LearnRates: what plans do with a learned rate. */
typedef enum agent_rates_mode {
	AGENT_RATES_OFF,        /* nothing learned: the configured rates */
	AGENT_RATES_ON,         /* the learned rate replaces the prior */
	AGENT_RATES_CAPPED      /* ... only where it is below the prior */
} agent_rates_mode_t;

/* Weight a report keeps when a newer one is taken. */
#define AGENT_RATES_DECAY 0.875
/* Bytes per second above which a report is not believed (1 TB/s). */
#define AGENT_RATES_MAX 1e12
/* Defaults of LearnRatesMinBytes and LearnRatesMinReports. */
#define AGENT_RATES_MIN_BYTES ((uint64_t)16 << 20)
#define AGENT_RATES_MIN_REPORTS 3

typedef struct agent_rates_conf {
	agent_rates_mode_t mode;        /* LearnRates */
	uint64_t min_bytes;             /* LearnRatesMinBytes */
	uint32_t min_reports;           /* LearnRatesMinReports, >= 1 */
	double prior[AGENT_RATE_KINDS]; /* StorageBandwidth, PeerBandwidth */
} agent_rates_conf_t;

/* What is known of one kind. */
typedef struct agent_rate {
	double bytes, secs;     /* the decayed sums */
	uint64_t taken;         /* reports taken into them */
	uint64_t small;         /* reports with too few bytes: ignored */
	uint64_t unknown;       /* bytes but no time (0): ignored */
	uint64_t bogus;         /* faster than AGENT_RATES_MAX: ignored */
	double learned;         /* bytes / secs; 0 until a report is taken */
} agent_rate_t;

/* What plans use for one kind, and why. */
typedef enum agent_rate_source {
	AGENT_RATE_PRIOR,       /* the configured rate: too little seen */
	AGENT_RATE_LEARNED,     /* the learned rate */
	AGENT_RATE_CAP,         /* the configured rate, under LearnRates=capped,
				 * the learned one being above it */
	AGENT_RATE_OFF          /* the configured rate: LearnRates=no */
} agent_rate_source_t;

/*
 * agent_rates_note - one report's copies of a kind: bytes copied in us
 * microseconds (0: not known).  bytes 0: nothing copied, not counted at
 * all.  Reports below the minimum of the last agent_rates_apply()
 * (AGENT_RATES_MIN_BYTES before any) are counted as small and ignored.
 * RET 1 if taken into the rate, 0 if not.
 */
int agent_rates_note(agent_rate_kind_t k, uint64_t bytes, uint64_t us);

/* agent_rates_get - a copy of what is known of kind k. */
void agent_rates_get(agent_rate_kind_t k, agent_rate_t *out);

/*
 * agent_rates_pick - the rate plans use for a kind known as r, under c.
 * OUT src - why (may be NULL)
 * RET bytes per second.
 */
double agent_rates_pick(const agent_rate_t *r, agent_rate_kind_t k,
			const agent_rates_conf_t *c, agent_rate_source_t *src);

/*
 * agent_rates_apply - the rates plans use now, under c (whose min_bytes
 * the next notes use).
 * OUT used - bytes per second per kind
 * OUT msg - when a kind's source changed since the last call: one line
 *           saying so for the log ("" otherwise)
 * RET 1 if a source changed, 0 if not.
 */
int agent_rates_apply(const agent_rates_conf_t *c,
		      double used[AGENT_RATE_KINDS], char *msg, size_t len);

/* agent_rates_version - a number that changes with every note taken or
 * ignored (to tell whether there is something new to show). */
uint64_t agent_rates_version(void);

/*
 * agent_rates_write - the rates file sdatalocality reads (sdatalocality(1)
 * "rates"): written to path.tmp, then renamed over path.
 * RET 0 or an errno.
 */
int agent_rates_write(const char *path, const agent_rates_conf_t *c,
		      long long now);

/*
 * agent_rates_load - what a rates file written by agent_rates_write()
 * says was learned (each kind's decayed sums and reports), for a kind
 * that learned nothing yet since the start: so that a restart of
 * slurmctld does not send plans back to the priors.  A line that does not
 * parse, or whose sums are not plausible (negative, not finite, a rate
 * above AGENT_RATES_MAX), restores nothing.
 * RET the kinds restored (0, 1, 2), or -errno (unreadable, or not a rates
 * file of version 1: -EINVAL).
 */
int agent_rates_load(const char *path);

/* agent_rates_kind_name, agent_rates_source_name - "storage", "learned".. */
const char *agent_rates_kind_name(agent_rate_kind_t k);
const char *agent_rates_source_name(agent_rate_source_t s);

/* agent_rates_reset - forget everything learned (tests). */
void agent_rates_reset(void);

#endif /* AGENT_RATES_H */
