/*
 * datalocality.h - umbrella header of libdatalocality.
 *
 * The library has no Slurm dependency: the Slurm plugins, the simulator
 * and the CLI all drive it.  Error rule: see dl_error.h.
 */
#ifndef DATALOCALITY_H
#define DATALOCALITY_H

#include "dl_error.h"
#include "dl_log.h"
#include "dl_files.h"
#include "dl_pattern.h"
#include "dl_script.h"
#include "dl_cache.h"
#include "dl_state.h"
#include "dl_place.h"
#include "dl_policy.h"
#include "dl_cost.h"
#include "dl_order.h"
#include "dl_hgraph.h"
#include "dl_partition.h"
#include "dl_hungarian.h"
#include "dl_anthill.h"
#include "dl_persist.h"

#endif /* DATALOCALITY_H */
