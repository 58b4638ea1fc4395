/*
 * dl_asuser.h - run a piece of work with a user's identity, from inside
 * slurmctld (root), and get its output back.
 *
 * slurmctld may not read a file on a user's behalf with its own rights:
 * directory permissions, ACLs, and symlinks into places the user cannot
 * reach are only judged right by the kernel, as that user.  The work runs
 * in a forked child that takes the user's uid, gid and groups; it writes
 * its result to a file descriptor, which the parent reads up to a limit
 * and within a time limit.  The child must not take locks another thread
 * of slurmctld may hold (no Slurm logging); glibc keeps malloc usable
 * after fork().
 */
#ifndef DL_ASUSER_H
#define DL_ASUSER_H

#include <stddef.h>
#include <sys/types.h>

/* The work: write the result to fd; its return value is the exit code. */
typedef int (*dl_asuser_fn)(void *arg, int fd);

/**
 * dl_asuser_run - run fn(arg, fd) as uid/gid (with uid's groups).
 * IN max - the most bytes accepted; IN timeout - seconds
 * OUT out, len - the bytes written, xmalloc'd (xfree), NUL-terminated
 * \return 0; DL_EPERM (slurmctld is not root: cannot take the identity),
 *         DL_ETOOBIG, DL_ETIMEDOUT (the child is killed), DL_EIO (the
 *         child failed), DL_ENOMEM.
 */
int dl_asuser_run(uid_t uid, gid_t gid, dl_asuser_fn fn, void *arg,
		  size_t max, int timeout, char **out, size_t *len);

#endif /* DL_ASUSER_H */
