/* snapkeep.c - a snapshot's leading jobs kept; see snapkeep.h. */
#include <stdlib.h>

#include "dl_error.h"
#include "snapkeep.h"

void dl_snapkeep_mark(dl_snapkeep_t *k, const dl_state_t *st)
{
	k->st = st;
	k->njobs = st->njobs;
	k->fblock = st->fblock;
	k->fblock_used = st->fblock_used;
	k->fblock_cap = st->fblock_cap;
}

void dl_snapkeep_forget(dl_snapkeep_t *k)
{
	k->st = NULL;
	k->njobs = 0;
	k->fblock = NULL;
	k->fblock_used = k->fblock_cap = 0;
}

int dl_snapkeep_holds(const dl_snapkeep_t *k, const dl_state_t *st)
{
	return st && k->st == st;
}

/* Whether block b is in st's chain (NULL: the chain's end is). */
static int _chained(const dl_state_t *st, const void *b)
{
	const void *p;

	for (p = st->fblock; p; p = *(void *const *)p)
		if (p == b)
			return 1;
	return !b;
}

int dl_snapkeep_truncate(dl_snapkeep_t *k, dl_state_t *st)
{
	size_t i;

	if (!dl_snapkeep_holds(k, st))
		return DL_EINVAL;
	if (st->njobs < k->njobs || !_chained(st, k->fblock))
		goto bad;
	for (i = k->njobs; i < st->njobs; i++)
		if (st->jobs[i].state == DL_JOB_RUNNING)
			goto bad;
	for (i = k->njobs; i < st->njobs; i++) {
		free(st->jobs[i].eligible);
		st->jobs[i].eligible = NULL;
	}
	st->njobs = k->njobs;
	/*
	 * The blocks are chained newest first (dl_state.h), so those taken
	 * since the mark are in front of its block; the mark's block goes
	 * back to what it held then (a later job may have used its rest).
	 */
	while (st->fblock != k->fblock) {
		void *prev = *(void **)st->fblock;

		free(st->fblock);
		st->fblock = prev;
	}
	st->fblock_used = k->fblock_used;
	st->fblock_cap = k->fblock_cap;
	st->now = 0;
	st->wide_waiting = 0;
	st->wide_priority = 0;
	st->remaining = NULL;
	return 0;
bad:
	dl_snapkeep_forget(k);
	return DL_EINVAL;
}
