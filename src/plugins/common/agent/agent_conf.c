/* agent_conf.c - datalocality.conf for the planning agent; see agent_conf.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "src/common/slurm_xlator.h"

#include "slurm/slurm_errno.h"
#include "src/common/log.h"
#include "src/common/parse_config.h"
#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "dl_files.h"
#include "agent_conf.h"

static void _defaults(agent_conf_t *c)
{
	agent_conf_free(c);
	c->policy = xstrdup(AGENT_DEFAULT_POLICY);
	c->evict = DL_EVICT_VALUE;
	c->capacity = UINT64_MAX;
	dl_params_default(&c->params);
	dl_place_params_default(&c->place);
	c->place.peer_bw = AGENT_DEFAULT_PEER_BW;
	c->max_files = AGENT_DEFAULT_MAX_FILES;
	c->service_port = AGENT_DEFAULT_SERVICE_PORT;
	c->prefetch_max = UINT64_MAX - 1; /* not set: from CacheCapacity */
	c->prefetch_timeout = AGENT_DEFAULT_PREFETCH_TIMEOUT;
	c->power_kept = 0;
	c->resume_cost = -1;
	c->credit_max = AGENT_DEFAULT_CREDIT_MAX;
	c->gate_min = AGENT_GATE_MIN_DEFAULT;
	c->gate_max = AGENT_GATE_MAX_DEFAULT;
	c->budget.cycle_ms = AGENT_BUDGET_CYCLE_MS;
	c->budget.user_files = AGENT_BUDGET_USER_FILES;
	c->budget.user_list = AGENT_BUDGET_USER_LIST_BYTES;
	c->rates.mode = AGENT_RATES_ON;
	c->rates.min_bytes = AGENT_RATES_MIN_BYTES;
	c->rates.min_reports = AGENT_RATES_MIN_REPORTS;
}

/* A size setting; bad values are logged and leave *out unchanged. */
static void _size(s_p_hashtbl_t *tbl, const char *pfx, const char *key,
		  uint64_t *out)
{
	char *val = NULL;
	uint64_t v;

	if (!s_p_get_string(&val, key, tbl))
		return;
	if (!xstrcasecmp(val, "unlimited"))
		*out = UINT64_MAX;
	else if (dl_files_parse_size(val, strlen(val), &v))
		error("%s: datalocality.conf: %s=%s is not a size, keeping the default",
		      pfx, key, val);
	else
		*out = v;
	xfree(val);
}

/*
 * A number above min; bad values are logged and leave *out unchanged.
 * Read as a string: a value Slurm's parser cannot take as a number would
 * otherwise make the whole file unreadable.  Rates may carry a binary
 * unit (StorageBandwidth=20M is 20 MiB/s), as dl-stage's settings do.
 */
static void _double(s_p_hashtbl_t *tbl, const char *pfx, const char *key,
		    double min, double *out)
{
	char *val = NULL, *end = NULL;
	uint64_t sz;
	double v;

	if (!s_p_get_string(&val, key, tbl))
		return;
	v = strtod(val, &end);
	if (end == val || *end) {
		if (!dl_files_parse_size(val, strlen(val), &sz))
			v = (double)sz;
		else
			v = NAN;
	}
	if (!(v > min) || v > 1e18)
		error("%s: datalocality.conf: %s=%s must be a number above %g, keeping %g",
		      pfx, key, val, min, *out);
	else
		*out = v;
	xfree(val);
}

static void _bool(s_p_hashtbl_t *tbl, const char *pfx, const char *key,
		  int *out)
{
	char *val = NULL;

	if (!s_p_get_string(&val, key, tbl))
		return;
	if (!xstrcasecmp(val, "yes") || !xstrcasecmp(val, "true") ||
	    !xstrcmp(val, "1"))
		*out = 1;
	else if (!xstrcasecmp(val, "no") || !xstrcasecmp(val, "false") ||
		 !xstrcmp(val, "0"))
		*out = 0;
	else
		error("%s: datalocality.conf: %s=%s is not yes or no, keeping %s",
		      pfx, key, val, *out ? "yes" : "no");
	xfree(val);
}

static const s_p_options_t options[] = {
	{.key = "Policy", .type = S_P_STRING},
	{.key = "PolicyParameters", .type = S_P_STRING},
	{.key = "EvictionPolicy", .type = S_P_STRING},
	{.key = "CacheCapacity", .type = S_P_STRING},
	{.key = "UnknownFileSize", .type = S_P_STRING},
	{.key = "StorageBandwidth", .type = S_P_STRING},
	{.key = "LocalDiskBandwidth", .type = S_P_STRING},
	{.key = "ComputeCostPerByte", .type = S_P_STRING},
	{.key = "CacheDir", .type = S_P_STRING},
	{.key = "WaitFactor", .type = S_P_STRING},
	{.key = "MinWait", .type = S_P_STRING},
	{.key = "MaxWait", .type = S_P_STRING},
	{.key = "Hysteresis", .type = S_P_STRING},
	{.key = "StrictPlacement", .type = S_P_STRING},
	{.key = "MaxFilesPerJob", .type = S_P_STRING},
	{.key = "ServicePort", .type = S_P_STRING},
	{.key = "MungeSocket", .type = S_P_STRING},
	{.key = "PrefetchMaxBytes", .type = S_P_STRING},
	{.key = "PrefetchTimeout", .type = S_P_STRING},
	{.key = "PeerBandwidth", .type = S_P_STRING},
	{.key = "PowerDownCache", .type = S_P_STRING},
	{.key = "ResumeCost", .type = S_P_STRING},
	{.key = "StagingCreditMax", .type = S_P_STRING},
	{.key = "GateMinHold", .type = S_P_STRING},
	{.key = "GateMaxHold", .type = S_P_STRING},
	{.key = "PlanWindow", .type = S_P_STRING},
	{.key = "TestCycleDelay", .type = S_P_STRING},
	{.key = "CycleBudget", .type = S_P_STRING},
	{.key = "UserMaxFiles", .type = S_P_STRING},
	{.key = "UserMaxListBytes", .type = S_P_STRING},
	{.key = "LearnRates", .type = S_P_STRING},
	{.key = "LearnRatesMinBytes", .type = S_P_STRING},
	{.key = "LearnRatesMinReports", .type = S_P_STRING},
	/* the node cache service's own settings */
	{.key = "ServiceController", .type = S_P_STRING},
	{.key = "PeerPort", .type = S_P_STRING},
	{.key = "PeerAddr", .type = S_P_STRING},
	{.key = "PrefetchParallel", .type = S_P_STRING},
	/* dl-stage's own settings: known here so they are not typos */
	{.key = "EmulateStorageBandwidth", .type = S_P_STRING},
	{.key = "EmulateStorageServers", .type = S_P_STRING},
	{.key = "EmulateStorageLockDir", .type = S_P_STRING},
	{.key = "CacheMaxFiles", .type = S_P_STRING},
	{.key = "CacheUserShare", .type = S_P_STRING},
	{.key = "StageOpenTimeout", .type = S_P_STRING},
	{.key = NULL}
};

/*
 * Strict first, so that a typo in a key is reported; then lenient, so that
 * one bad line does not throw away the good ones.  RET NULL if unreadable.
 */
static s_p_hashtbl_t *_parse(const char *path, const char *pfx)
{
	s_p_hashtbl_t *tbl = s_p_hashtbl_create(options);

	if (s_p_parse_file(tbl, NULL, (char *)path, false, NULL) ==
	    SLURM_SUCCESS)
		return tbl;
	s_p_hashtbl_destroy(tbl);
	tbl = s_p_hashtbl_create(options);
	if (s_p_parse_file(tbl, NULL, (char *)path, true, NULL) !=
	    SLURM_SUCCESS) {
		error("%s: cannot parse %s, using defaults", pfx, path);
		s_p_hashtbl_destroy(tbl);
		return NULL;
	}
	error("%s: cannot parse %s fully (see the error above), using the settings that could be read",
	      pfx, path);
	return tbl;
}

static void _place(s_p_hashtbl_t *tbl, const char *pfx, dl_place_params_t *p)
{
	_double(tbl, pfx, "WaitFactor", 0, &p->wait_factor);
	_double(tbl, pfx, "MinWait", -1e-300, &p->min_wait);
	_double(tbl, pfx, "MaxWait", -1e-300, &p->max_wait);
	_double(tbl, pfx, "Hysteresis", -1e-300, &p->hysteresis);
	_bool(tbl, pfx, "StrictPlacement", &p->strict);
	_double(tbl, pfx, "PeerBandwidth", 0, &p->peer_bw);
	if (p->min_wait > p->max_wait) {
		error("%s: datalocality.conf: MinWait=%g is above MaxWait=%g, using MinWait=MaxWait",
		      pfx, p->min_wait, p->max_wait);
		p->min_wait = p->max_wait;
	}
}

/*
 * The node channel's settings.  PrefetchMaxBytes defaults to half of
 * CacheCapacity: the other half stays for the running jobs' files.
 */
static void _service(s_p_hashtbl_t *tbl, const char *pfx, agent_conf_t *c)
{
	double port = c->service_port, timeout = c->prefetch_timeout;

	_double(tbl, pfx, "ServicePort", -1e-300, &port);
	if (port > 65535 || port != (double)(uint32_t)port) {
		error("%s: datalocality.conf: ServicePort=%g is no port, using %d",
		      pfx, port, AGENT_DEFAULT_SERVICE_PORT);
		port = AGENT_DEFAULT_SERVICE_PORT;
	}
	c->service_port = (uint16_t)port;
	s_p_get_string(&c->munge_socket, "MungeSocket", tbl);
	_size(tbl, pfx, "PrefetchMaxBytes", &c->prefetch_max);
	/* Renewed at half of it: shorter would resend at every cycle. */
	_double(tbl, pfx, "PrefetchTimeout", 9.999, &timeout);
	c->prefetch_timeout = timeout < 86400 * 30 ? (uint32_t)timeout :
						     86400 * 30;
}

/*
 * Power saving: what a powered-down node's cache is (lost by default: a
 * node whose disk survives a power cycle is the exception) and what a
 * resume costs (Slurm's ResumeTimeout of the node unless set).
 */
static void _power(s_p_hashtbl_t *tbl, const char *pfx, agent_conf_t *c)
{
	char *val = NULL;

	if (s_p_get_string(&val, "PowerDownCache", tbl)) {
		if (!xstrcasecmp(val, "kept"))
			c->power_kept = 1;
		else if (!xstrcasecmp(val, "lost"))
			c->power_kept = 0;
		else
			error("%s: datalocality.conf: PowerDownCache=%s is not lost or kept, using lost",
			      pfx, val);
		xfree(val);
	}
	_double(tbl, pfx, "ResumeCost", -1e-300, &c->resume_cost);
	if (c->resume_cost > 86400 * 7) {
		error("%s: datalocality.conf: ResumeCost=%g is above a week, using a week",
		      pfx, c->resume_cost);
		c->resume_cost = 86400 * 7;
	}
}

/*
 * The submit gate's floor and ceiling (no hold beyond AGENT_GATE_HOLD_MAX,
 * see agent_gate.h), the planning window, and the test-only slowdown.
 */
static void _window(s_p_hashtbl_t *tbl, const char *pfx, agent_conf_t *c)
{
	double lo = c->gate_min, hi = c->gate_max, w = 0;

	_double(tbl, pfx, "GateMinHold", 0.999, &lo);
	_double(tbl, pfx, "GateMaxHold", 0.999, &hi);
	if (hi > AGENT_GATE_HOLD_MAX) {
		error("%s: datalocality.conf: GateMaxHold=%g is above %d s, using %d",
		      pfx, hi, AGENT_GATE_HOLD_MAX, AGENT_GATE_HOLD_MAX);
		hi = AGENT_GATE_HOLD_MAX;
	}
	if (lo > hi) {
		error("%s: datalocality.conf: GateMinHold=%g is above GateMaxHold=%g, using GateMinHold=GateMaxHold",
		      pfx, lo, hi);
		lo = hi;
	}
	c->gate_min = (uint32_t)lo;
	c->gate_max = (uint32_t)hi;
	_double(tbl, pfx, "PlanWindow", 0.999, &w);
	c->plan_window = w < UINT32_MAX ? (uint32_t)w : UINT32_MAX;
	_double(tbl, pfx, "TestCycleDelay", -1e-300, &c->test_cycle_delay);
	if (c->test_cycle_delay > 60)
		c->test_cycle_delay = 60;
	if (c->test_cycle_delay > 0)
		info("%s: datalocality.conf: TestCycleDelay=%g: every planning cycle is made %g s slower (for tests only)",
		     pfx, c->test_cycle_delay, c->test_cycle_delay);
}

/*
 * What a cycle may spend reading jobs' files (agent_budget.h): its time
 * budget in ms, and per user the files its jobs in the window may name
 * and the bytes of names read per cycle; "unlimited" or 0 turns one off.
 */
static void _budget(s_p_hashtbl_t *tbl, const char *pfx, agent_conf_t *c)
{
	double ms = c->budget.cycle_ms, files = (double)c->budget.user_files;
	uint64_t list = c->budget.user_list;
	char *val = NULL;

	if (s_p_get_string(&val, "CycleBudget", tbl) &&
	    !xstrcasecmp(val, "unlimited"))
		ms = 0;
	else
		_double(tbl, pfx, "CycleBudget", -1e-300, &ms);
	xfree(val);
	if (ms > 3600e3) {
		error("%s: datalocality.conf: CycleBudget=%g ms is above an hour, using an hour",
		      pfx, ms);
		ms = 3600e3;
	}
	c->budget.cycle_ms = ms > 0 && ms < 1 ? 1 : (uint32_t)ms;
	if (s_p_get_string(&val, "UserMaxFiles", tbl) &&
	    !xstrcasecmp(val, "unlimited"))
		files = 0;
	else
		_double(tbl, pfx, "UserMaxFiles", -1e-300, &files);
	xfree(val);
	c->budget.user_files = (uint64_t)files;
	_size(tbl, pfx, "UserMaxListBytes", &list);
	c->budget.user_list = list == UINT64_MAX ? 0 : list;
}

/*
 * Learning the copy rates (agent_rates.h): on unless LearnRates=no,
 * "capped" keeps the configured rates as the ceilings.  The priors are
 * the configured rates, taken after they were read.
 */
static void _rates(s_p_hashtbl_t *tbl, const char *pfx, agent_conf_t *c)
{
	agent_rates_conf_t *r = &c->rates;
	double n = r->min_reports;
	char *val = NULL;

	if (s_p_get_string(&val, "LearnRates", tbl)) {
		if (!xstrcasecmp(val, "capped"))
			r->mode = AGENT_RATES_CAPPED;
		else if (!xstrcasecmp(val, "yes") || !xstrcmp(val, "1"))
			r->mode = AGENT_RATES_ON;
		else if (!xstrcasecmp(val, "no") || !xstrcmp(val, "0"))
			r->mode = AGENT_RATES_OFF;
		else
			error("%s: datalocality.conf: LearnRates=%s is not yes, no or capped, using yes",
			      pfx, val);
		xfree(val);
	}
	_size(tbl, pfx, "LearnRatesMinBytes", &r->min_bytes);
	if (!r->min_bytes)
		r->min_bytes = 1; /* a report with no bytes says nothing */
	_double(tbl, pfx, "LearnRatesMinReports", 0.999, &n);
	r->min_reports = n < 1e6 ? (uint32_t)n : 1000000;
}

static void _prefetch_default(agent_conf_t *c)
{
	if (c->prefetch_max != UINT64_MAX - 1)
		return;
	c->prefetch_max = c->capacity == UINT64_MAX ? UINT64_MAX :
						      c->capacity / 2;
}

void agent_conf_read(agent_conf_t *c, const char *pfx)
{
	char *path = get_extra_conf_path("datalocality.conf");
	s_p_hashtbl_t *tbl;
	struct stat sb;
	char *val = NULL;
	double mf;

	_defaults(c);
	if (stat(path, &sb) || !(tbl = _parse(path, pfx))) {
		debug("%s: no usable %s, using defaults", pfx, path);
		xfree(path);
		_prefetch_default(c);
		c->rates.prior[AGENT_RATE_STORAGE] = c->params.rbw;
		c->rates.prior[AGENT_RATE_PEER] = c->place.peer_bw;
		return;
	}
	if (s_p_get_string(&val, "Policy", tbl)) {
		xfree(c->policy);
		c->policy = val;
		val = NULL;
	}
	s_p_get_string(&c->policy_params, "PolicyParameters", tbl);
	s_p_get_string(&c->cache_dir, "CacheDir", tbl);
	if (s_p_get_string(&val, "EvictionPolicy", tbl)) {
		if (dl_evict_from_name(val, &c->evict))
			error("%s: datalocality.conf: unknown EvictionPolicy=%s, using value",
			      pfx, val);
		xfree(val);
	}
	_size(tbl, pfx, "CacheCapacity", &c->capacity);
	_size(tbl, pfx, "UnknownFileSize", &c->params.unknown_size);
	_double(tbl, pfx, "StorageBandwidth", 0, &c->params.rbw);
	_double(tbl, pfx, "LocalDiskBandwidth", 0, &c->params.lbw);
	_double(tbl, pfx, "ComputeCostPerByte", -1e-300, &c->params.cpb);
	_place(tbl, pfx, &c->place);
	mf = c->max_files;
	_double(tbl, pfx, "MaxFilesPerJob", 0, &mf);
	c->max_files = mf < DL_FILES_MAX ? (uint32_t)mf : DL_FILES_MAX;
	_service(tbl, pfx, c);
	_power(tbl, pfx, c);
	/* Seconds of staging a running job's end time may gain; 0: none. */
	_double(tbl, pfx, "StagingCreditMax", -1e-300, &c->credit_max);
	_window(tbl, pfx, c);
	_budget(tbl, pfx, c);
	_rates(tbl, pfx, c);
	s_p_hashtbl_destroy(tbl);
	xfree(path);
	_prefetch_default(c);
	c->rates.prior[AGENT_RATE_STORAGE] = c->params.rbw;
	c->rates.prior[AGENT_RATE_PEER] = c->place.peer_bw;
}

void agent_conf_free(agent_conf_t *c)
{
	xfree(c->policy);
	xfree(c->policy_params);
	xfree(c->cache_dir);
	xfree(c->munge_socket);
	memset(c, 0, sizeof(*c));
}
