/*
 * sim_fx.h - fixtures for the unit tests that run dl-sim's event loop
 * (check_sim.c, check_provision.c): one platform with easy arithmetic,
 * a run that must succeed, and hand-made jobs.
 */
#ifndef SIM_FX_H
#define SIM_FX_H

#include <stdint.h>

#include "sim.h"
#include "workload.h"

/* fx_sim_config - dl_sim_config_default() with nodes x cores, storage
 * storage nodes, unlimited caches, 100 MB/s from storage, 500 MB/s local
 * disk, no compute per byte, and checks on. */
void fx_sim_config(dl_sim_config_t *c, uint32_t nodes, uint32_t cores,
		   uint32_t storage);

/* fx_sim_run - dl_sim_run() that must succeed; free the result with
 * dl_sim_result_free(). */
dl_sim_result_t *fx_sim_run(const dl_sim_config_t *c, const dl_workload_t *wl);

/* fx_sim_job - add a one-slot job of n files (borrowed, copied by the
 * workload) arriving at arrival with compute seconds of work. */
void fx_sim_job(dl_workload_t *wl, uint32_t id, double arrival,
		double compute, const uint32_t *files, uint32_t n);

#endif /* SIM_FX_H */
