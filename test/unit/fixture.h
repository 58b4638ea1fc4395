/*
 * fixture.h - the tracker-and-state fixture most unit suites start from:
 * nnodes usable nodes named n1..nN with cpus slots each.
 */
#ifndef FIXTURE_H
#define FIXTURE_H

#include <stdint.h>

#include "dl_policy.h"
#include "dl_state.h"

extern dl_cache_t *fx_cache;
extern dl_state_t *fx_state;

/* params NULL: dl_params_default(); evict: the tracker's policy. */
void fx_setup(uint32_t nnodes, uint32_t cpus, const dl_params_t *params,
	      dl_evict_t evict);
/*
 * The hand-computable platform of several suites: RBW 100 B/s, LBW 500
 * B/s, cpb 1e-3, one storage node (a missing 1000-B file: 10 s to fetch,
 * 2 s to read, 1 s of compute), nnodes nodes of one slot.
 */
void fx_setup_toy(uint32_t nnodes, dl_evict_t evict);
void fx_teardown(void);
/*
 * A plan of every job of the state, in index order (.order = index):
 * pending job i on nodes[i], the others on -1.  a: njobs entries.
 */
void fx_plan(dl_plan_t *plan, dl_assign_t *a, const int32_t *nodes);
/* Intern a file (asserting success); \return its id. */
uint32_t fx_file(const char *path, uint64_t size);
/*
 * Add a job of one slot reading files[0..n) (copied by the state) in
 * state on node (running; -1 for pending), arriving at id, costed by the
 * model (asserting success); \return its index.
 */
uint32_t fx_job(uint32_t id, const uint32_t *files, uint32_t n,
		dl_job_state_t state, int32_t node);

#endif /* FIXTURE_H */
