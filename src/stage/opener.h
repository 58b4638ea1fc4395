/*
 * opener.h - open files with a job user's permissions.
 *
 * dl-stage runs as root, but must never copy a file the job's user could
 * not read.  An opener is a helper process forked from the caller that
 * drops to the user's uid, gid and supplementary groups for good (it can
 * never regain root) and then opens paths on request; each opened file
 * descriptor comes back to the caller over a UNIX socket (SCM_RIGHTS).
 * The kernel checks the user's permissions at open(), on every component
 * of the path, following symbolic links as the user would: the caller
 * then reads through the descriptor it was handed and never resolves a
 * user-supplied path itself.
 *
 * Errors follow dl_error.h; the failing errno is reported as well so that
 * messages can say "Permission denied" or "No such file or directory".
 */
#ifndef DL_OPENER_H
#define DL_OPENER_H

#include <sys/types.h>

typedef struct dl_opener dl_opener_t;

/**
 * dl_opener_start - fork the helper for one user.
 * The helper runs with the user's uid, so the user can signal it: kill it,
 * or stop it.  Every request therefore waits at most timeout_s seconds,
 * and a helper that died or did not answer is reported as such
 * (DL_ETIMEDOUT below), which only the user or root can have caused: the
 * caller fails the job, not the node.
 * IN uid, gid - the user's ids; uid 0 opens as root
 * IN user - the user's name, for its supplementary groups
 *           (getgrouplist()); NULL or unknown: only gid
 * IN timeout_s - how long one request may take; 0 for the default (60 s)
 * OUT out - the opener, to be stopped with dl_opener_stop()
 * OUT err, errlen - on failure, why
 * \return 0, DL_EPERM if the caller is not root and uid is not its own,
 *         DL_ETIMEDOUT if the helper was killed or stopped before it
 *         answered, DL_EIO if it could not be started or could not drop
 *         its privileges, DL_ENOMEM, DL_EINVAL.
 */
int dl_opener_start(uid_t uid, gid_t gid, const char *user,
		    unsigned timeout_s, dl_opener_t **out, char *err,
		    size_t errlen);

/**
 * dl_opener_open - open path read-only as the user.
 * The file is opened with O_NONBLOCK (so that a FIFO cannot block the
 * caller), which is cleared again on the returned descriptor.
 * IN path - an absolute path, shorter than 4096 bytes
 * OUT fd - the descriptor (close-on-exec), owned by the caller
 * OUT sys_errno - the errno of a failed open(), 0 otherwise; may be NULL
 * \return 0, DL_EPERM if the user may not open it (EACCES, EPERM),
 *         DL_ENOENT if it does not exist (ENOENT, ENOTDIR), DL_EINVAL for
 *         other open() failures (ELOOP, ENAMETOOLONG, ...), DL_ETIMEDOUT
 *         if the helper is gone or did not answer within the timeout: it
 *         is then killed, every later request fails the same way, and
 *         dl_opener_failure() says what happened.
 */
int dl_opener_open(dl_opener_t *op, const char *path, int *fd,
		   int *sys_errno);

/**
 * dl_opener_failure - what happened to a helper that failed a request
 * ("was killed by signal 9 (Killed)", "did not answer within 60 s").
 * \return a string owned by op, "" while the helper is fine.
 */
const char *dl_opener_failure(const dl_opener_t *op);

/*
 * dl_opener_stop - end the helper (SIGKILL: a stopped helper would not
 * notice its socket closing) and free op; NULL is a no-op.
 */
void dl_opener_stop(dl_opener_t *op);

#endif /* DL_OPENER_H */
