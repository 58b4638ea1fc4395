/*
 * setup.h - what dl-sim's arguments turn into: the workload (generated, or
 * read with every problem of the trace reported by line) and the columns
 * that describe the run in the summary, the CSV row and the JSON object.
 *
 * Errors follow dl_error.h; nothing here exits.
 */
#ifndef DL_SIM_SETUP_H
#define DL_SIM_SETUP_H

#include <stddef.h>

#include "metrics.h"
#include "options.h"
#include "workload.h"

/**
 * dl_sim_setup_workload - build or read the workload a asks for, scaled
 * by --time-scale.  A trace (--swf, --workload-file) from which malformed
 * records were dropped is refused unless a->skip_bad_lines: a run on what
 * is left would silently answer another question.
 * IN diag - the readers' diagnostics: diag->fn sees every problem, with
 *           its line number; the counts are filled in
 * OUT out - a new workload (dl_workload_destroy()); unchanged on error
 * OUT err - on error, one line saying why
 * \return 0, DL_ENOENT (a file cannot be opened), DL_EINVAL (generator
 *         options that cannot be met, a trace with malformed records or
 *         with no usable job), DL_EIO, DL_ENOMEM.
 */
int dl_sim_setup_workload(const dl_sim_args_t *a, dl_wl_diag_t *diag,
			  dl_workload_t **out, char *err, size_t errlen);

/* The most columns dl_sim_setup_describe() writes. */
#define DL_SIM_DESC_MAX 48

/**
 * dl_sim_setup_describe - the columns describing the run: policy,
 * workload, platform (peer fetch on or off stated), dispatch, the agent's
 * prefetch.
 * OUT kv - DL_SIM_DESC_MAX entries, caller's
 * \return how many were written.
 */
size_t dl_sim_setup_describe(const dl_sim_args_t *a, const dl_workload_t *wl,
			     dl_kv_t *kv);

/**
 * dl_sim_setup_status - dl-sim's exit status for a run that went through:
 * 1 if jobs never completed, the cache overflowed, or the policy fell
 * back to a simpler method in some plan (unless a->tolerate_fallback:
 * the run stays labelled, see metrics.h); else 0.  Each reason is said
 * on err (may be NULL), one line each.
 */
int dl_sim_setup_status(const dl_sim_args_t *a, const dl_sim_result_t *r,
			const dl_metrics_t *m, FILE *err);

#endif /* DL_SIM_SETUP_H */
