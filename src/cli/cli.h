/*
 * cli.h - the parts of sdatalocality, private to it: the state file's
 * text split into records for display (cli_state.c), the views of the
 * cache and the last plan (cli_show.c) and the scheduler's counters
 * (cli_stats.c).  sdatalocality.c only wires them to the command line.
 *
 * The records point into the text they were split from: it must outlive
 * them.  Every view prints to stdout, as text or, with json set, as one
 * JSON value followed by a newline.  Being a program, not a library, the
 * CLI exits on out of memory rather than report it.
 */
#ifndef DL_CLI_H
#define DL_CLI_H

#include <stddef.h>
#include <stdint.h>

#include "dl_persist.h"

/* The exit status of bad usage (a view may find its argument bad). */
#define DL_CLI_USAGE 2

typedef struct dl_cli_node {
	char *name, *cap;
	uint64_t hits, misses, hit_bytes, miss_bytes;
	uint64_t used, nfiles;
	int have_svc;           /* its service line was read */
	dl_service_stats_t svc;
	int have_power;         /* its power line was read */
	dl_power_stats_t power;
} dl_cli_node_t;

typedef struct dl_cli_file {
	char *size, *path;
	uint64_t acc, copies;
} dl_cli_file_t;

typedef struct dl_cli_job {
	char *id, *node, *order, *cached, *nfiles, *bcached, *btotal;
} dl_cli_job_t;

typedef struct dl_cli_state {
	dl_cli_node_t *nodes;
	size_t nnodes;
	dl_cli_file_t *files;
	size_t nfiles;
	uint32_t (*cached)[2]; /* node index, file index */
	size_t ncached;
	char *plan[6];         /* policy time cut imbalance seconds jobs */
	int have_plan;
	dl_cli_job_t *jobs;
	size_t njobs;
	char *saved;           /* NULL: no saved line */
	dl_sched_stats_t sched;
	int have_sched;        /* 1 read, 0 no stats line, -1 unreadable */
	int have_svc;          /* service lines: 1 read, 0 none, -1 bad */
	int have_power;        /* power lines: 1 read, 0 none, -1 bad */
} dl_cli_state_t;

/*
 * dl_cli_state_parse - split the text of dl_persist_read() into s, which
 * must be zeroed.  text is modified in place and must outlive s.  Lines
 * this program does not know are skipped.  Free with dl_cli_state_free().
 */
void dl_cli_state_parse(char *text, dl_cli_state_t *s);

/* dl_cli_state_free - free the arrays of s (not the text). */
void dl_cli_state_free(dl_cli_state_t *s);

/* \return the index of the node called name in s, or -1. */
int64_t dl_cli_node_index(const dl_cli_state_t *s, const char *name);

/* dl_cli_source_name - "service" etc. for a node's model source. */
const char *dl_cli_source_name(dl_source_t src);

/* dl_cli_power_name - "powered_down" etc. for a node's power state. */
const char *dl_cli_power_name(dl_power_t p);

/* Formatting shared by the views. */
void dl_cli_bytes(uint64_t b, char *buf, size_t len); /* "1.5G" */
double dl_cli_pct(uint64_t a, uint64_t b);            /* a / (a + b) in % */
void dl_cli_jstr(const char *s);                      /* a JSON string */
void dl_cli_time(int64_t t, char *buf, size_t len);   /* local, ISO 8601 */

/*
 * The views, one per command.  arg is the command's argument (NULL for
 * those that take none).
 * \return the exit status: 0, 1 when arg names nothing in the state,
 *         DL_CLI_USAGE when arg is malformed (nothing printed).
 */
int dl_cli_show_summary(const dl_cli_state_t *s, const char *arg, int json);
int dl_cli_show_nodes(const dl_cli_state_t *s, const char *arg, int json);
int dl_cli_show_plan(const dl_cli_state_t *s, const char *arg, int json);
int dl_cli_show_files(const dl_cli_state_t *s, const char *node, int json);
int dl_cli_show_job(const dl_cli_state_t *s, const char *id, int json);
int dl_cli_show_stats(const dl_cli_state_t *s, const char *arg, int json);

/*
 * dl_cli_report - "sdatalocality report": argv are sacct's options, or
 * "--input FILE" (cli_report.c says the format).
 * \return the exit status (sacct's when it failed).
 */
int dl_cli_report(int argc, char **argv, int json);

/*
 * dl_cli_rates - "sdatalocality rates": the copy rates of the rates file
 * at path (cli_rates.c).  \return the exit status (1: unreadable).
 */
int dl_cli_rates(const char *path, int json);

#endif /* DL_CLI_H */
