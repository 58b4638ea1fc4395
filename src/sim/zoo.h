/*
 * zoo.h - workload classes beyond the papers', to check that a policy is
 * robust across them (issue 11, item 7; doc/workloads.md, "The zoo").
 *
 *   heavy   a few very large files shared by many jobs, while every job
 *           also reads private inputs no other job reads (the class where
 *           Online-HPS used to lose to mct and delay);
 *   zipf    files of mixed sizes drawn with Zipf popularity from a pool;
 *   shift   a working set that slides over the file pool as time goes on:
 *           job i reads files of a window that starts at i * pool / jobs;
 *   bursty  jobs arrive in bursts (all of a burst at one instant), bursts
 *           spaced so that the mean load is the target;
 *   mixed   mixed job sizes: 1 to 32 files of 4 MiB to 4 GiB (log-uniform)
 *           and 1 to cores slots.
 *
 * Every class draws from GSL's MT19937 with the caller's seed (one seed,
 * one workload); arrivals are Poisson scaled to the load as
 * dl_workload_set_arrivals() does (eqs. 9-11 of online-hps-khanna), then
 * grouped into bursts for "bursty".  Compute is the cost model's
 * (compute = -1).  Errors follow dl_error.h.
 */
#ifndef DL_SIM_ZOO_H
#define DL_SIM_ZOO_H

#include <stddef.h>
#include <stdint.h>

#include "workload.h"

typedef enum dl_zoo_class {
	DL_ZOO_HEAVY = 0,
	DL_ZOO_ZIPF,
	DL_ZOO_SHIFT,
	DL_ZOO_BURSTY,
	DL_ZOO_MIXED,
	DL_ZOO_NCLASSES
} dl_zoo_class_t;

typedef struct dl_zoo_opts {
	dl_zoo_class_t cls;
	size_t jobs;          /* 2000 */
	double load;          /* eq. 9 target (1.0) */
	/* heavy */
	uint32_t heavy_files; /* very large shared files (4) */
	uint64_t heavy_size;  /* bytes each (4 GiB) */
	double heavy_share;   /* share of jobs reading one of them (0.9) */
	uint32_t private_min, private_max; /* private inputs per job (2, 4) */
	uint64_t private_size;             /* bytes each (128 MiB) */
	/* zipf, shift, bursty */
	uint32_t pool;        /* files in the pool (jobs / 2, at least 16) */
	double zipf_s;        /* Zipf exponent (1.1) */
	uint32_t window;      /* shift: working-set size (pool / 10) */
	uint32_t burst;       /* bursty: jobs per burst (50) */
} dl_zoo_opts_t;

/* dl_zoo_opts_default - the defaults above for class cls. */
void dl_zoo_opts_default(dl_zoo_opts_t *o, dl_zoo_class_t cls);

/**
 * dl_zoo_gen - generate one workload of class o->cls for platform pf.
 * \return a new workload (dl_workload_destroy()), NULL on bad options
 *         (no job, load <= 0, private_min > private_max, ...) or ENOMEM.
 */
dl_workload_t *dl_zoo_gen(const dl_zoo_opts_t *o, const dl_wl_platform_t *pf,
			  uint64_t seed);

/* Class names ("heavy", ...): \return 0 or DL_EINVAL. */
int dl_zoo_class_from_name(const char *name, dl_zoo_class_t *out);
const char *dl_zoo_class_name(dl_zoo_class_t c);

#endif /* DL_SIM_ZOO_H */
