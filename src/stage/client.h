/*
 * client.h - dl-stage as a client of the node cache service dl-cached
 * (doc/dl-cached.8): the Prolog's STAGE and the Epilog's END go to
 * CacheDir/.sock when the service answers there; when it does not (not
 * running, not listening within a second, gone mid-request) the caller
 * does the work itself, so the job runs either way.
 */
#ifndef DL_STAGE_CLIENT_H
#define DL_STAGE_CLIENT_H

#include <stdint.h>

#include "stage.h"

/**
 * dl_stage_client_request - ask the service of cache directory dir.
 * IN job - the job (STAGE), or only its id (END: files NULL)
 * IN files - the job's annotation as one "files:" text (STAGE), NULL for
 *            END
 * OUT rep - the service's report
 * OUT failed - whether the service says the operation failed (rep->msg)
 * OUT why - on fallback, why the service was not used (one line)
 * \return 0 served, or DL_ENOENT / DL_ETIMEDOUT / DL_EIO: the caller does
 *         the work itself.
 */
int dl_stage_client_request(const char *dir, const dl_stage_job_t *job,
			    const char *files, dl_stage_report_t *rep,
			    int *failed, char *why, size_t whylen);

#endif /* DL_STAGE_CLIENT_H */
