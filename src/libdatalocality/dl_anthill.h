/*
 * dl_anthill.h - AnthillSched: how many copies of each filter of a
 * filter-stream job to run on p processors (anthillsched-goes §4).
 *
 * A job is a cyclic pipeline of n filters; filter j streams to filter
 * (j + 1) mod n, by point-to-point or by broadcast.  Its profile holds
 * controlled executions, one copy per filter, for some combinations of the
 * job's input parameters; each gives, per filter, the input bytes B_j and
 * the execution time E_j, and the run's wall time.  For a new job:
 *
 *   1. its B, E and wall time are those of the profile run with the same
 *      parameter values, else interpolated between the nearest runs
 *      (dl_anthill_estimate());
 *   2. with Optimized AnthillSched (OAS), a job whose controlled
 *      execution took less than a threshold (5 s in the paper) runs
 *      sequentially, one copy per filter;
 *   3. otherwise the copies come from Fig. 2 (dl_anthill_copies()):
 *        C_j = p * (B_j / sum B + E_j / sum E) / 2
 *      then, for each broadcast stream j -> q, B_q = B_q * C_q (a broadcast
 *      delivers everything to every copy), repeated m times.
 *
 * Errors follow dl_error.h: int functions return 0 or a negative DL_E*
 * code, pointer functions NULL, and a failed call leaves its outputs
 * unchanged.  A profile is immutable once parsed: any number of threads
 * may use one concurrently.
 */
#ifndef DL_ANTHILL_H
#define DL_ANTHILL_H

#include <stddef.h>
#include <stdint.h>

/* OAS: controlled executions shorter than this (seconds) stay sequential. */
#define DL_ANTHILL_THRESHOLD 5.0
/* Iterations of Fig. 2 (m) unless told otherwise. */
#define DL_ANTHILL_ITERATIONS 10
/* Limits of a profile. */
#define DL_ANTHILL_MAX_FILTERS 1024
#define DL_ANTHILL_MAX_PARAMS 64
#define DL_ANTHILL_NAME_MAX 64

typedef struct dl_anthill_profile dl_anthill_profile_t;

/**
 * dl_anthill_profile_parse - read a profile from text (the format is in
 * dl-anthill(1)):
 *   filter <name> [broadcast]        one per filter, in pipeline order
 *   run [<param>=<number> ...]       starts a controlled execution
 *   <name> <bytes> <seconds>         inside a run, once per filter
 *   wall <seconds>                   inside a run, optional (default:
 *                                    the sum of its filters' seconds)
 * '#' starts a comment; blank lines are ignored.
 * IN text, len - the text (need not be NUL-terminated)
 * OUT out - the profile, to free with dl_anthill_profile_free()
 * OUT errline - optional: on DL_EFORMAT, the 1-based line at fault, or 0
 *               when the profile as a whole is wrong (no filter, no run)
 * \return 0, DL_EFORMAT for a malformed profile, DL_EINVAL for a NULL
 *         text or out, DL_ENOMEM.
 */
int dl_anthill_profile_parse(const char *text, size_t len,
			     dl_anthill_profile_t **out, unsigned *errline);

/**
 * dl_anthill_profile_load - dl_anthill_profile_parse() of a file.
 * \return as dl_anthill_profile_parse(), and DL_EIO if the file cannot be
 *         read, DL_ETOOBIG above 64 MiB.
 */
int dl_anthill_profile_load(const char *path, dl_anthill_profile_t **out,
			    unsigned *errline);

/* dl_anthill_profile_free - free a profile; NULL is a no-op. */
void dl_anthill_profile_free(dl_anthill_profile_t *p);

/* dl_anthill_filter_count - \return n, 0 for NULL. */
uint32_t dl_anthill_filter_count(const dl_anthill_profile_t *p);

/**
 * dl_anthill_filter_name - the name of filter j.
 * \return the profile's string (valid until it is freed), NULL for NULL
 *         or j out of range.
 */
const char *dl_anthill_filter_name(const dl_anthill_profile_t *p, uint32_t j);

/**
 * dl_anthill_estimate - B, E and the wall time of a controlled execution
 * with the given parameter values.  The profile run with exactly those
 * values is used as it is.  Otherwise, with every parameter scaled by its
 * range over the runs (max - min, 1 when 0), let a be the run nearest to
 * x and b the nearest of the runs lying beyond x as seen from a
 * ((x - a).(b - a) > 0): the values are (1 - t) * a + t * b with t the
 * projection of x on the segment a-b, clamped to [0, 1].  Without such a
 * b (x outside the profile), a's values are used: no extrapolation.  The
 * first run in the file wins ties.
 * IN params - "name=number,..." naming every parameter of the profile
 *             exactly once (NULL or "" for a profile without parameters)
 * OUT bytes, secs - n entries each; OUT wall - optional
 * \return 0, DL_EINVAL for NULL arguments, an unknown, missing, repeated
 *         or non-numeric parameter, DL_ENOMEM.
 */
int dl_anthill_estimate(const dl_anthill_profile_t *p, const char *params,
			double *bytes, double *secs, double *wall);

/**
 * dl_anthill_copies - Fig. 2 of anthillsched-goes, on given measurements.
 * Each iteration computes C_j = p * (B'_j / sum B' + E_j / sum E) / 2 and
 * rounds it to whole copies, then sets B'_q = B_q * C_q for every filter q
 * fed by a broadcast stream (the measured B_q, not the previous B'_q).
 * The first iteration uses B' = B.  It stops after iterations rounds, or
 * earlier once the copies repeat (a fixed point: further rounds would not
 * change them).  A sum of 0 drops its term (sum B = 0: C_j = p * E_j /
 * sum E), and both 0 give every filter p / n.
 * Rounding: every filter gets max(1, floor(C_j)), then the remaining
 * processors go one by one to the largest C_j - copies (the lowest index
 * on ties); if the floor of 1 took too many, they are taken back one by
 * one from the filter most above its C_j that has more than one copy.
 * With p < n every filter gets one copy: filters then share processors.
 * IN n - filters, >= 1; IN bytes, secs - n values each, finite and >= 0
 * IN broadcast - n flags or NULL: broadcast[j] makes the stream
 *                j -> (j + 1) mod n a broadcast
 * IN procs - p >= 1; IN iterations - m >= 1
 * OUT copies - n entries
 * \return 0, DL_EINVAL for a NULL array, n or procs or iterations of 0, a
 *         negative or non-finite value, DL_ENOMEM.
 */
int dl_anthill_copies(uint32_t n, const double *bytes, const double *secs,
		      const uint8_t *broadcast, uint32_t procs,
		      uint32_t iterations, uint32_t *copies);

typedef struct dl_anthill_opts {
	uint32_t procs; /* p, available processors (>= 1) */
	double threshold; /* OAS threshold, seconds; 0: never sequential */
	uint32_t iterations; /* m of Fig. 2 (>= 1) */
} dl_anthill_opts_t;

/* dl_anthill_opts_default - 1 processor, DL_ANTHILL_THRESHOLD, 10. */
void dl_anthill_opts_default(dl_anthill_opts_t *o);

/**
 * dl_anthill_schedule - Optimized AnthillSched for a job: estimate its
 * controlled execution, then one copy per filter if its wall time is
 * below the threshold, else dl_anthill_copies() with the profile's
 * broadcast streams.
 * OUT copies - n entries
 * OUT parallel - optional: 1 if Fig. 2 was applied, 0 if sequential
 * \return 0, or the error of dl_anthill_estimate() or dl_anthill_copies()
 *         (DL_EINVAL also for bad options).
 */
int dl_anthill_schedule(const dl_anthill_profile_t *p, const char *params,
			const dl_anthill_opts_t *o, uint32_t *copies,
			int *parallel);

#endif /* DL_ANTHILL_H */
