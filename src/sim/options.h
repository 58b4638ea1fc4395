/*
 * options.h - dl-sim's command line: one table of options (name, argument,
 * help text, setter), parsed with getopt_long, from which --help is
 * generated.  See doc/dl-sim.1.
 *
 * Adding an option: one entry in the table of options.c (a field of
 * dl_sim_args_t it sets, or a setter function for anything else), and its
 * line in doc/dl-sim.1.  Entries that name a workload kind are refused for
 * the other kinds; entries marked as placement options are refused under
 * --dispatch plan.
 *
 * Parsing never exits and never prints except what --help, --version and
 * --list-policies ask for: errors come back as a message, so that the
 * caller decides the exit status (dl-sim: 2) and the tests can look at it.
 */
#ifndef DL_SIM_OPTIONS_H
#define DL_SIM_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sim.h"
#include "workload.h"

#define DL_SIM_VERSION "0.1.0"

/* Workload kinds, as --workload names them. */
typedef enum dl_sim_wl {
	DL_SIM_WL_BIOMED,
	DL_SIM_WL_DIFFUSION,
	DL_SIM_WL_SWF,
	DL_SIM_WL_FILE,
	DL_SIM_WL_COUNT
} dl_sim_wl_t;

/* Options the table may hold; the parser records which were given. */
#define DL_SIM_OPTS_MAX 128

/* Everything the command line decides. */
typedef struct dl_sim_args {
	const char *policy, *policy_params;
	dl_sim_wl_t kind;
	int kind_set; /* --workload given */
	const char *wl_file, *swf, *swf_files, *save;
	uint64_t seed;
	double time_scale;
	dl_wl_biomed_opts_t bio;
	dl_wl_diffusion_opts_t dif;
	dl_wl_arrival_opts_t arr;
	int arrivals_set;
	dl_wl_access_t access;
	dl_sim_config_t cfg;
	double agent_cycle; /* --agent-cycle: sets cfg.replan_min_interval */
	const char *csv, *json, *jobs_csv;
	const char *timeline; /* --timeline: the samples' CSV, or NULL */
	int progress, quiet;
	int tolerate_fallback; /* a run whose policy fell back exits 0 */
	int skip_bad_lines;    /* a trace that lost records still runs */
	uint8_t given[DL_SIM_OPTS_MAX]; /* by index in the table */
} dl_sim_args_t;

/* What dl_sim_args_parse() asks of its caller, besides an error. */
enum {
	DL_SIM_ARGS_RUN = 0, /* run the simulation */
	DL_SIM_ARGS_DONE = 1 /* --help, --version, --list-policies: exit 0 */
};

/**
 * dl_sim_args_parse - parse argv into *a (defaults first), then check that
 * the options make sense together and apply the policy's defaults.
 * Resets getopt (optind = 0), so it may be called more than once.
 * IN out - where --help, --version and --list-policies print (stdout)
 * OUT err - on error, one line saying which option and why (no newline)
 * \return DL_SIM_ARGS_RUN, DL_SIM_ARGS_DONE, or DL_EINVAL (err says why).
 */
int dl_sim_args_parse(int argc, char **argv, dl_sim_args_t *a, FILE *out,
		      char *err, size_t errlen);

/* dl_sim_args_usage - the --help text, generated from the table. */
void dl_sim_args_usage(FILE *out, const char *prog);

/* dl_sim_wl_name - "biomed", "diffusion", "swf", "file". */
const char *dl_sim_wl_name(dl_sim_wl_t kind);

/**
 * dl_sim_args_given - whether the long option name was on the command
 * line of the last parse into a.  \return 1 or 0 (also for unknown names).
 */
int dl_sim_args_given(const dl_sim_args_t *a, const char *name);

/* The table, for tests and documentation: its length, and the long name
 * of entry i (NULL for a heading of --help, or i out of range). */
size_t dl_sim_args_count(void);
const char *dl_sim_args_name(size_t i);

#endif /* DL_SIM_OPTIONS_H */
