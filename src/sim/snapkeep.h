/*
 * snapkeep.h - a snapshot's leading jobs kept from one event to the next.
 *
 * dl-sim builds the state a plan and Slurm's pass see at every event: the
 * running jobs, then the pending ones.  At 1,024 nodes the ~850 running
 * jobs' entries (their files copied, each (node, file) they read put in
 * the state's reads set) were a third of a paced run's CPU, and four
 * snapshots in five have the same running jobs as the one before.  A mark
 * records how far the running jobs go; dl_snapkeep_truncate() takes the
 * state back there (the pending jobs dropped, as dl_state_clear_jobs()
 * drops them), so that the next snapshot adds the pending jobs only.
 *
 * Whether the kept jobs are still what the host would add (the same jobs,
 * file sizes and estimates) is the host's to know: this module only keeps
 * the state's own bookkeeping right.
 */
#ifndef DL_SIM_SNAPKEEP_H
#define DL_SIM_SNAPKEEP_H

#include <stddef.h>

#include "dl_state.h"

typedef struct dl_snapkeep {
	const dl_state_t *st; /* the state marked, NULL: none; borrowed */
	size_t njobs;         /* its jobs kept */
	/* Its block of file ids then, and how much of it was used. */
	void *fblock;
	size_t fblock_used, fblock_cap;
} dl_snapkeep_t;

/* dl_snapkeep_mark - keep st's jobs as they are now (a mark replaces the
 * last one).  None of them may be changed until st is truncated. */
void dl_snapkeep_mark(dl_snapkeep_t *k, const dl_state_t *st);

/* dl_snapkeep_forget - no mark (st is going, or its jobs changed). */
void dl_snapkeep_forget(dl_snapkeep_t *k);

/* dl_snapkeep_holds - 1 if st is the state marked, 0 if not. */
int dl_snapkeep_holds(const dl_snapkeep_t *k, const dl_state_t *st);

/*
 * dl_snapkeep_truncate - st back to its marked jobs: the later ones are
 * dropped with their eligibility arrays and the blocks of file ids taken
 * since, and the per-instant fields (now, wide_*, remaining) reset, as
 * dl_state_clear_jobs() leaves them.  The reads set stays: only running
 * jobs add to it, and none may follow the mark.  The mark stays.
 * \return 0; DL_EINVAL if st is not the state marked (the mark stays), or
 * is but has fewer jobs than the mark, lost its block or has a running job
 * after it (the mark is forgotten); st is then unchanged: clear it
 * instead.
 */
int dl_snapkeep_truncate(dl_snapkeep_t *k, dl_state_t *st);

#endif /* DL_SIM_SNAPKEEP_H */
