/*
 * dl_error.h - the one error rule of libdatalocality.
 *
 * Every function that returns int returns 0 (DL_OK) on success or one of
 * the negative DL_E* codes below; every function that returns a pointer
 * returns NULL on failure.  A call that fails leaves the objects it was
 * given unchanged.  The library never exits, aborts or prints: messages go
 * through the host's log callback (see dl_log.h).
 */
#ifndef DL_ERROR_H
#define DL_ERROR_H

/* X-macro: name, value, message.  Keep values stable: they appear in logs. */
#define DL_ERRNO_MAP(X)                                                    \
	X(EINVAL, -1, "invalid argument")                                  \
	X(ENOMEM, -2, "out of memory")                                     \
	X(ESYNTAX, -3, "malformed files: annotation")                      \
	X(ERANGE, -4, "value out of range")                                \
	X(ENOENT, -5, "no such entry")                                     \
	X(EEXIST, -6, "entry already exists")                              \
	X(ENOSPC, -7, "not enough cache capacity")                         \
	X(EBUSY, -8, "entry is in use")                                    \
	X(EIO, -9, "input/output error")                                   \
	X(ETOOBIG, -10, "too many entries")                                \
	X(EPERM, -11, "permission denied")                                 \
	X(ETIMEDOUT, -12, "timed out")                                     \
	X(EPARTITION, -13, "partitioner failed")                           \
	X(EFORMAT, -14, "corrupt or foreign data")                         \
	X(ENOPOLICY, -15, "unknown policy")

enum dl_errno {
	DL_OK = 0,
#define DL__ERR_ENUM(name, val, msg) DL_##name = (val),
	DL_ERRNO_MAP(DL__ERR_ENUM)
#undef DL__ERR_ENUM
};

/**
 * dl_strerror - the message of an error code.
 * \return a static string; "unknown error" for a code not listed above.
 */
const char *dl_strerror(int err);

/**
 * dl_err_name - the symbolic name of an error code ("DL_ENOMEM").
 * \return a static string; "DL_UNKNOWN" for a code not listed above.
 */
const char *dl_err_name(int err);

#endif /* DL_ERROR_H */
