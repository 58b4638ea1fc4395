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
 * IN uid, gid - the user's ids; uid 0 opens as root
 * IN user - the user's name, for its supplementary groups
 *           (getgrouplist()); NULL or unknown: only gid
 * OUT out - the opener, to be stopped with dl_opener_stop()
 * OUT err, errlen - on failure, why
 * \return 0, DL_EPERM if the caller is not root and uid is not its own,
 *         DL_EIO if the helper could not be started or could not drop its
 *         privileges, DL_ENOMEM, DL_EINVAL.
 */
int dl_opener_start(uid_t uid, gid_t gid, const char *user,
		    dl_opener_t **out, char *err, size_t errlen);

/**
 * dl_opener_open - open path read-only as the user.
 * The file is opened with O_NONBLOCK (so that a FIFO cannot block the
 * caller), which is cleared again on the returned descriptor.
 * IN path - an absolute path, shorter than 4096 bytes
 * OUT fd - the descriptor (close-on-exec), owned by the caller
 * OUT sys_errno - the errno of a failed open(), 0 otherwise; may be NULL
 * \return 0, DL_EPERM if the user may not open it (EACCES, EPERM),
 *         DL_ENOENT if it does not exist (ENOENT, ENOTDIR), DL_EINVAL for
 *         other open() failures (ELOOP, ENAMETOOLONG, ...), DL_EIO if the
 *         helper is gone.
 */
int dl_opener_open(dl_opener_t *op, const char *path, int *fd,
		   int *sys_errno);

/* dl_opener_stop - end the helper and free op; NULL is a no-op. */
void dl_opener_stop(dl_opener_t *op);

#endif /* DL_OPENER_H */
