/*
 * squeue.h - which jobs slurmctld knows as alive on this node, for
 * dl-stage to reap what dead jobs left in the cache.
 *
 * dl-stage runs as slurmd's Prolog and Epilog without Slurm's libraries:
 * it asks squeue, with SLURM_CONF from slurmd's environment, and trusts
 * the answer only if it is complete, well-formed and lists the asking job.
 */
#ifndef DL_SQUEUE_H
#define DL_SQUEUE_H

#include <stddef.h>
#include <stdint.h>

/* squeue must answer within this time, in at most this many bytes. */
#define DL_SQUEUE_TIMEOUT_MS 10000
#define DL_SQUEUE_MAX (1 << 20)

/*
 * The squeue of the Slurm dl-stage was built for: a client of another
 * release may not speak slurmctld's protocol (24.11 refuses 22.05's), and
 * the Prolog's environment has no PATH to pick the right one from.
 * configure sets it to the bin/ of --with-slurm-prefix; without Slurm,
 * squeue is looked up in PATH (then /usr/bin).
 */
#ifndef DL_SQUEUE_BIN
#define DL_SQUEUE_BIN "squeue"
#endif

/**
 * dl_squeue_parse - parse squeue's "-h -o '%A %t'" output, strictly:
 * every line "<job id> <state>" (a canonical decimal id, 1-3 capital
 * letters), ending in a newline; one line that is not refuses the whole
 * answer.
 * IN text, len - the output (NUL-terminated at len)
 * OUT alive - the ids of the jobs not over (states other than PD, CD, CA,
 *             F, TO, PR, NF, RV, BF, DL, OOM, RD, RF, RH, RQ, SE: an
 *             unknown state counts as alive); malloc'd, the caller frees
 * \return 0, DL_EFORMAT, DL_ENOMEM.
 */
int dl_squeue_parse(const char *text, size_t len, uint32_t **alive,
		    size_t *n);

/**
 * dl_squeue_alive - run "squeue -h -t all -w node -o '%A %t'" and parse
 * it.  Any doubt (squeue missing, slower than DL_SQUEUE_TIMEOUT_MS,
 * failing, longer than DL_SQUEUE_MAX, garbled, or not listing self alive)
 * is a failure: then nothing must be reaped.
 * OUT alive, n - as for dl_squeue_parse()
 * \return 0, or DL_EIO.
 */
int dl_squeue_alive(const char *node, uint32_t self, uint32_t **alive,
		    size_t *n);

#endif /* DL_SQUEUE_H */
