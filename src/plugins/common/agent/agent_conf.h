/*
 * agent_conf.h - the planning agent's settings: datalocality.conf next to
 * slurm.conf (see datalocality.conf(5)).
 */
#ifndef AGENT_CONF_H
#define AGENT_CONF_H

#include <stdint.h>

#include "dl_cache.h"
#include "dl_place.h"
#include "dl_state.h"
#include "agent_budget.h"
#include "agent_gate.h"
#include "agent_rates.h"

/* The policy when datalocality.conf names none, or one that fails. */
#define AGENT_DEFAULT_POLICY "online-hps"
/* Where node cache services connect (ServicePort). */
#define AGENT_DEFAULT_SERVICE_PORT 6830
/* Bytes/s of a copy between two nodes' caches: a 10 Gb/s network. */
#define AGENT_DEFAULT_PEER_BW 1.0e9
/* StagingCreditMax: at most an hour of staging kept out of a limit. */
#define AGENT_DEFAULT_CREDIT_MAX 3600

/* Seconds a prefetch pin lasts if its job does not start (PrefetchTimeout). */
#define AGENT_DEFAULT_PREFETCH_TIMEOUT 600
/* Files of one job that may enter a plan (MaxFilesPerJob). */
#define AGENT_DEFAULT_MAX_FILES 10000

typedef struct agent_conf {
	char *policy;           /* xmalloc'd */
	char *policy_params;    /* xmalloc'd, may be NULL */
	dl_evict_t evict;
	uint64_t capacity;      /* per node, bytes; UINT64_MAX = unlimited */
	char *cache_dir;        /* dl-stage's CacheDir (%n: node), or NULL */
	dl_params_t params;     /* cost model */
	dl_place_params_t place;/* hysteresis and bounded wait */
	uint32_t max_files;     /* jobs naming more run without placement */
	/* The node channel (agent_channel.h) and prefetching: */
	uint16_t service_port;  /* 0: no channel */
	char *munge_socket;     /* xmalloc'd, NULL: libmunge's default */
	uint64_t prefetch_max;  /* bytes per node; UINT64_MAX = unlimited */
	uint32_t prefetch_timeout; /* seconds */
	/* Power saving (see agent_snapshot.h's power states): */
	int power_kept;         /* PowerDownCache=kept: a powered-down
				 * node's cache survives; 0 (lost): its
				 * model is emptied */
	double credit_max;      /* StagingCreditMax, seconds of staging
				 * not charged to a job's limit; 0: off */
	double resume_cost;     /* ResumeCost, seconds a powered-down node
				 * takes to start a job; < 0: not set,
				 * Slurm's ResumeTimeout of the node */
	/* The submit gate (agent_gate.h) and the window (agent_window.h): */
	uint32_t gate_min;      /* GateMinHold, seconds */
	uint32_t gate_max;      /* GateMaxHold, seconds */
	uint32_t plan_window;   /* PlanWindow, jobs per partition; 0: from
				 * Slurm's SchedulerParameters */
	double test_cycle_delay; /* TestCycleDelay, seconds: for tests only,
				  * every cycle made that much slower */
	agent_budget_conf_t budget; /* CycleBudget, UserMaxFiles,
				     * UserMaxListBytes (agent_budget.h) */
	/* LearnRates, LearnRatesMinBytes, LearnRatesMinReports; its priors
	 * are StorageBandwidth and PeerBandwidth as configured, which
	 * params.rbw and place.peer_bw are until a rate is learned
	 * (agent_rates.h, agent_acct_rates()) */
	agent_rates_conf_t rates;
} agent_conf_t;

/*
 * agent_conf_read - fill *c from datalocality.conf.  A missing file means
 * the defaults; a bad value is logged and replaced by its default, never
 * fatal.  Frees what *c held before (it must be zeroed or read before).
 */
void agent_conf_read(agent_conf_t *c, const char *pfx);

/* agent_conf_free - release what *c owns; *c is zeroed. */
void agent_conf_free(agent_conf_t *c);

#endif /* AGENT_CONF_H */
