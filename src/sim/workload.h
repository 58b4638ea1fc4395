/*
 * workload.h - job streams for the simulator: generated (biomed, diffusion),
 * replayed (Standard Workload Format plus a sidecar of input files) or read
 * back from the simulator's own text format.  doc/workloads.md describes
 * every generator, the overlap measure and both file formats.
 *
 * A workload is a table of files (path, size, optional storage node) and a
 * table of jobs (id, arrival, compute seconds or the cost model, slots, the
 * indices of its input files).  The simulator interns the files into its
 * cache tracker in table order, so a file's index is its tracker id and
 * round-robin storage placement (dl_cost_storage_of()) spreads consecutive
 * files over the storage nodes.
 *
 * Errors follow dl_error.h: int functions return 0 or a negative DL_E*
 * code, pointer functions NULL; a failed call leaves its outputs unchanged.
 * Parsers say what was wrong through a dl_wl_diag_t.  Generators draw from
 * GSL's MT19937 seeded by the caller, so one seed gives one workload.
 */
#ifndef DL_SIM_WORKLOAD_H
#define DL_SIM_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dl_state.h"

/* Storage node of a file placed round-robin by id (the default). */
#define DL_WL_STORAGE_RR (-1)

/* Latest arrival and longest compute a trace may state, seconds (about
 * 31 years): beyond, the number is a corrupt record, and a double so far
 * from 0 cannot even hold a run's sub-second response times. */
#define DL_WL_TIME_MAX 1e9

typedef struct dl_wl_file {
	char *path;      /* owned */
	uint64_t size;   /* bytes */
	int32_t storage; /* storage node, or DL_WL_STORAGE_RR */
} dl_wl_file_t;

typedef struct dl_wl_job {
	uint32_t id;    /* unique, > 0 */
	double arrival; /* seconds; jobs are sorted by arrival, then id */
	double compute; /* seconds of CPU; < 0: cost model (cpb * bytes) */
	uint32_t cpus;  /* slots on one node, >= 1 */
	uint32_t nfiles;
	uint32_t *files; /* indices into the file table, no duplicates; owned */
} dl_wl_job_t;

typedef struct dl_workload {
	char name[32]; /* "biomed", "diffusion", "swf", "file" */
	size_t nfiles;
	dl_wl_file_t *files;
	size_t njobs;
	dl_wl_job_t *jobs;
	size_t files_cap, jobs_cap;
	void *index; /* private: path -> file index */
} dl_workload_t;

/* Measured properties of a workload (dl_workload_stats()). */
typedef struct dl_wl_stats {
	size_t jobs;
	size_t files;      /* files of the table */
	size_t files_used; /* files at least one job reads */
	uint64_t accesses; /* sum of nfiles over jobs */
	double files_mean; /* accesses / jobs */
	uint32_t files_min, files_max;
	/* 1 - files_used / accesses: the share of file requests that ask for
	 * a file some other job of the trace asked for first.  This is the
	 * generator's target "overlap" (doc/workloads.md). */
	double overlap;
	/* Share of file requests whose file is read by two jobs or more. */
	double shared;
	uint64_t bytes_used;     /* sum of sizes of the files used */
	uint64_t bytes_accessed; /* sum over requests of the file size */
	double first_arrival, last_arrival;
} dl_wl_stats_t;

/* What the generators and the arrival model need of the platform. */
typedef struct dl_wl_platform {
	uint32_t nodes;     /* P of eq. 5 in online-hps-khanna */
	uint32_t slots;     /* jobs running at once (nodes * cores) */
	dl_params_t params; /* rbw, lbw, cpb for eq. 6 */
} dl_wl_platform_t;

typedef enum dl_wl_pattern {
	DL_WL_PATTERN_UNIFORM = 0, /* uniformly at random */
	DL_WL_PATTERN_SEQUENTIAL,  /* in order, wrapping around */
	DL_WL_PATTERN_GAUSSIAN,    /* Gaussian random walk */
	DL_WL_PATTERN_ZIPF,        /* P(rank i) = K / i^s */
} dl_wl_pattern_t;

typedef enum dl_wl_arrivals {
	DL_WL_ARRIVALS_POISSON = 0, /* exponential gaps, scaled to the load */
	DL_WL_ARRIVALS_LUBLIN,      /* Lublin-Feitelson, scaled to the load */
	DL_WL_ARRIVALS_STEPS, /* diffusion: rate * factor every interval */
	DL_WL_ARRIVALS_BURST, /* every job at time 0 */
} dl_wl_arrivals_t;

/* The access pattern of file (diffusion) or patient (biomed) choices. */
typedef struct dl_wl_access {
	dl_wl_pattern_t pattern;
	double sigma;  /* gaussian step, items; <= 0: n / 100 */
	double zipf_s; /* zipf exponent S (1.0) */
} dl_wl_access_t;

typedef struct dl_wl_biomed_opts {
	size_t jobs;         /* 1000 */
	uint32_t patients;   /* 2000 */
	uint32_t images;     /* images per patient (30) */
	double mri_fraction; /* share of 4 MB MRI images, others 64 MB CT */
	uint64_t mri_size, ct_size;
	uint32_t files_min, files_max; /* 4, 10 */
	double files_mean;             /* 6 */
	double overlap;        /* target, 0..1: high .85, medium .40, low .10 */
	int clustered;         /* 1: a patient's jobs arrive together */
	dl_wl_access_t access; /* which patient comes next */
} dl_wl_biomed_opts_t;

typedef struct dl_wl_diffusion_opts {
	size_t jobs;           /* 250000 */
	uint32_t files;        /* 10000 */
	uint64_t file_size;    /* 10 MB */
	double compute;        /* 0.010 s per task */
	double rate_start;     /* 1 task/s */
	double rate_factor;    /* 1.3 */
	double rate_interval;  /* 60 s */
	double rate_max;       /* 1000 tasks/s */
	int poisson;           /* 0: evenly spaced within an interval */
	dl_wl_access_t access; /* uniform in the paper */
} dl_wl_diffusion_opts_t;

typedef struct dl_wl_arrival_opts {
	dl_wl_arrivals_t model;
	double load; /* eq. 9 target (1.0) */
	/* Lublin-Feitelson: hour of day of the first arrival (0) */
	int lublin_start_hour;
} dl_wl_arrival_opts_t;

/* Parser diagnostics: every problem goes to fn (may be NULL). */
typedef struct dl_wl_diag {
	size_t bad_lines; /* malformed lines skipped */
	size_t warnings;  /* other problems worked around */
	void (*fn)(const char *msg, void *arg);
	void *arg;
} dl_wl_diag_t;

/* dl_workload_create - an empty workload, free with dl_workload_destroy(). */
dl_workload_t *dl_workload_create(const char *name);

/* dl_workload_destroy - free it and what it owns; NULL is a no-op. */
void dl_workload_destroy(dl_workload_t *wl);

/**
 * dl_workload_add_file - append a file.
 * \return its index (>= 0), DL_EINVAL (empty path, whitespace or a comma
 *         in it), DL_EEXIST (the path is already in the table), DL_ENOMEM.
 */
int64_t dl_workload_add_file(dl_workload_t *wl, const char *path, uint64_t size,
			     int32_t storage);

/**
 * dl_workload_add_job - append a copy of *job (files are copied; duplicate
 * indices are dropped).
 * \return 0, DL_EINVAL (file index out of range, cpus 0), DL_ENOMEM.
 */
int dl_workload_add_job(dl_workload_t *wl, const dl_wl_job_t *job);

/* dl_workload_find_file - \return the index of path, or DL_ENOENT. */
int64_t dl_workload_find_file(const dl_workload_t *wl, const char *path);

/* dl_workload_sort - order jobs by arrival, then id (stable). */
void dl_workload_sort(dl_workload_t *wl);

/* dl_workload_stats - measure wl into *st. */
void dl_workload_stats(const dl_workload_t *wl, dl_wl_stats_t *st);

/* Defaults of the papers (online-hps-khanna §6.1, data-diffusion §5.2). */
void dl_wl_biomed_opts_default(dl_wl_biomed_opts_t *o);
void dl_wl_diffusion_opts_default(dl_wl_diffusion_opts_t *o);
void dl_wl_arrival_opts_default(dl_wl_arrival_opts_t *o);

/**
 * dl_workload_gen_biomed - the image-analysis workload of online-hps-khanna
 * §6.1: jobs read 4-10 images of one patient; the share of requests for
 * images already requested is driven to o->overlap.  Arrival times are
 * left at 0; set them with dl_workload_set_arrivals().
 * \return a new workload (dl_workload_destroy()), NULL on bad options
 *         (images < files_max, overlap outside [0, 1), ...) or ENOMEM.
 */
dl_workload_t *dl_workload_gen_biomed(const dl_wl_biomed_opts_t *o,
				      uint64_t seed);

/**
 * dl_workload_gen_diffusion - the workload of data-diffusion-raicu §5.2:
 * one file per task, arrival rate multiplied every interval, capped.
 * \return a new workload with its arrival times, NULL on bad options.
 */
dl_workload_t *dl_workload_gen_diffusion(const dl_wl_diffusion_opts_t *o,
					 uint64_t seed);

/**
 * dl_workload_est_exec - eq. 6 in online-hps-khanna for every job, with
 * s_j = the jobs of the whole trace that read file j and P = pf->nodes.
 * OUT est - wl->njobs seconds, allocated by the caller.
 * \return 0, DL_EINVAL, DL_ENOMEM.
 */
int dl_workload_est_exec(const dl_workload_t *wl, const dl_wl_platform_t *pf,
			 double *est);

/**
 * dl_workload_set_arrivals - arrival times from the load (eqs. 9-11 in
 * online-hps-khanna): TLarrival = AvgExecTime * N / (slots * load), and
 * the arrival process (Poisson or Lublin-Feitelson) is scaled so that its
 * last arrival is TLarrival and its first is 0.  Job ids stay in job
 * order (1, 2, ...), which is then also arrival order.
 * OUT tlast - optional: TLarrival
 * \return 0, DL_EINVAL (load <= 0, no job), DL_ENOMEM.
 */
int dl_workload_set_arrivals(dl_workload_t *wl, const dl_wl_platform_t *pf,
			     const dl_wl_arrival_opts_t *o, uint64_t seed,
			     double *tlast);

/* dl_workload_scale_time - multiply every arrival by factor (> 0). */
void dl_workload_scale_time(dl_workload_t *wl, double factor);

/**
 * dl_workload_read_swf - a Standard Workload Format trace and its sidecar
 * of input files (format in doc/workloads.md).  Malformed lines are
 * counted in diag, reported through diag->fn with their line number and
 * skipped: bad numbers, a job number seen before, a submit time below 0
 * or above DL_WL_TIME_MAX, a run time below 0 other than SWF's -1
 * (unknown: the cost model) or above DL_WL_TIME_MAX.  With a sidecar,
 * a job that no sidecar line names ("JOBID -" names a job without files)
 * is counted as malformed too (its SWF line is given): it would silently
 * read nothing.
 * IN sidecar - may be NULL: jobs without files
 * IN default_size - bytes of a file whose size the sidecar does not give
 * IN max_cpus - slots of a node: larger jobs are cut down (a warning)
 * \return a new workload sorted by submit time, NULL on ENOMEM or when no
 *         job could be read (diag says why).
 */
dl_workload_t *dl_workload_read_swf(FILE *swf, FILE *sidecar,
				    uint64_t default_size, uint32_t max_cpus,
				    dl_wl_diag_t *diag);

/**
 * dl_workload_read - the simulator's own format (dl_workload_write()).
 * Malformed records are counted in diag, reported with their line number
 * and skipped: bad numbers, a job id seen before, an arrival below 0 or
 * above DL_WL_TIME_MAX, a compute time below 0 (the cost model is '-')
 * or above DL_WL_TIME_MAX, unknown file indices.
 * \return a new workload, NULL on error (diag says where).
 */
dl_workload_t *dl_workload_read(FILE *in, dl_wl_diag_t *diag);

/**
 * dl_workload_write - write wl in the format dl_workload_read() reads,
 * with comment lines first (comment may be NULL or hold several lines).
 * \return 0 or DL_EIO.
 */
int dl_workload_write(const dl_workload_t *wl, FILE *out, const char *comment);

/* Name parsers: \return 0 or DL_EINVAL. */
int dl_wl_pattern_from_name(const char *name, dl_wl_pattern_t *out);
const char *dl_wl_pattern_name(dl_wl_pattern_t p);
int dl_wl_arrivals_from_name(const char *name, dl_wl_arrivals_t *out);
const char *dl_wl_arrivals_name(dl_wl_arrivals_t a);

/**
 * dl_wl_parse_size - "64M", "15G", "4096", "1.5T": bytes, with binary
 * suffixes K, M, G, T (optionally followed by "B" or "iB").
 * \return 0 or DL_EINVAL.
 */
int dl_wl_parse_size(const char *s, uint64_t *out);

#endif /* DL_SIM_WORKLOAD_H */
