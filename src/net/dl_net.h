/*
 * dl_net.h - libdlnet: the wire of the node cache service (PROTOCOL.md,
 * doc/design.md "Node cache service"): framing, raw socket I/O with
 * deadlines, connecting and accepting.  Authentication is in
 * dl_net_auth.h, message bodies in dl_net_msg.h.
 *
 * libdlnet has no Slurm dependency and never exits or prints: it builds
 * into dl-cached, dl-stage and the slurmctld plugin alike.  Errors follow
 * dl_error.h (0 or a negative DL_E*); functions that can fail for a
 * reason worth logging also write one line into err (errlen bytes, may be
 * NULL/0).  Every timeout is a deadline for the whole call in
 * milliseconds; a negative timeout waits for ever.
 *
 * API stability: helper "ctld" codes against this header since the first
 * commit.  Changes are announced here:
 *   - dl_net_listen(NULL, ...) falls back to IPv4 when the host has no
 *     IPv6 sockets (behaviour only; same signature).
 *   - dl_net_msg.h: user "-" in FETCH/STAGE/PREFETCH means no name known
 *     (names must be non-empty tokens).
 */
#ifndef DL_NET_H
#define DL_NET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define DL_NET_MAGIC "DLM1"
#define DL_NET_HDR_LEN 16
#define DL_NET_CRED_MAX 4096
#define DL_NET_BODY_MAX (8u * 1024u * 1024u)

/* Message types (the frame's type field). */
enum dl_net_type {
	DL_NET_NONCE = 1,
	DL_NET_HELLO = 2,
	DL_NET_INV = 3,
	DL_NET_DELTA = 4,
	DL_NET_PREFETCH = 5,
	DL_NET_CANCEL = 6,
	DL_NET_PREFETCH_DONE = 7,
	DL_NET_LOCATE = 8,
	DL_NET_LOCATED = 9,
	DL_NET_FETCH = 10,
	DL_NET_FETCH_OK = 11,
	DL_NET_FETCH_REFUSED = 12,
	DL_NET_STAGE = 13,
	DL_NET_END = 14,
	DL_NET_REPORT = 15,
	DL_NET_WELCOME = 16,
	DL_NET_STAGING = 17,
	DL_NET_TYPE_MAX = DL_NET_STAGING
};

/* dl_net_type_name - \return "HELLO" etc., "?" for an unknown type. */
const char *dl_net_type_name(uint32_t type);

/*
 * One frame as read.  cred and body are malloc'd with a terminating NUL
 * beyond their lengths (body may itself hold NULs: the codecs refuse
 * them); dl_net_frame_free() frees both and zeroes the struct.
 */
typedef struct dl_net_frame {
	uint32_t type;
	uint32_t cred_len, body_len;
	char *cred;
	char *body;
} dl_net_frame_t;

/* dl_net_frame_free - free what a frame holds; NULL is a no-op. */
void dl_net_frame_free(dl_net_frame_t *f);

/**
 * dl_net_frame_header - check a frame header: magic, a known type, the
 * length limits.  Whether a credential is required is the caller's
 * business (dl_net_auth.h).
 * \return 0, DL_EFORMAT (err says why).
 */
int dl_net_frame_header(const uint8_t hdr[DL_NET_HDR_LEN], uint32_t *type,
			uint32_t *cred_len, uint32_t *body_len, char *err,
			size_t errlen);

/* dl_net_frame_put_header - write a header (no checks). */
void dl_net_frame_put_header(uint8_t hdr[DL_NET_HDR_LEN], uint32_t type,
			     uint32_t cred_len, uint32_t body_len);

/**
 * dl_net_frame_parse - one frame from a buffer (the fuzz target's entry,
 * and what dl_net_frame_read() does on a socket).
 * OUT f - the frame (free with dl_net_frame_free()); untouched on error
 * OUT used - bytes of buf the frame took
 * \return 0, DL_EFORMAT (bad header), DL_EIO (buf ends mid-frame),
 *         DL_ENOMEM.
 */
int dl_net_frame_parse(const void *buf, size_t len, dl_net_frame_t *f,
		       size_t *used, char *err, size_t errlen);

/**
 * dl_net_frame_read - read one frame.
 * IN idle_ms - how long to wait for its first byte (negative: for ever)
 * IN timeout_ms - deadline for the rest of it, once begun
 * OUT f - the frame (free with dl_net_frame_free()); untouched on error
 * \return 0, DL_ENOENT (the peer closed before a new frame: the normal
 *         end), DL_ETIMEDOUT, DL_EFORMAT, DL_EIO (error or close
 *         mid-frame), DL_ENOMEM.
 */
int dl_net_frame_read(int fd, int idle_ms, int timeout_ms,
		      dl_net_frame_t *f, char *err, size_t errlen);

/**
 * dl_net_frame_write - write one frame (header, cred, body) before the
 * deadline.  Never raises SIGPIPE.
 * \return 0, DL_EINVAL (over the limits), DL_ETIMEDOUT, DL_EIO.
 */
int dl_net_frame_write(int fd, int timeout_ms, uint32_t type,
		       const char *cred, size_t cred_len, const void *body,
		       size_t body_len, char *err, size_t errlen);

/**
 * dl_net_read_full, dl_net_write_full - exactly len bytes before the
 * deadline (FETCH_OK's raw content).  Never raise SIGPIPE.
 * \return 0, DL_ETIMEDOUT, DL_EIO (error, or end of stream first).
 */
int dl_net_read_full(int fd, void *buf, size_t len, int timeout_ms);
int dl_net_write_full(int fd, const void *buf, size_t len, int timeout_ms);

/**
 * dl_net_connect - a TCP connection to host:port (name or address),
 * trying each address until the deadline.  The descriptor is blocking,
 * close-on-exec, with TCP_NODELAY; the caller closes it.
 * \return 0, DL_ETIMEDOUT, DL_ENOENT (name unknown), DL_EIO.
 */
int dl_net_connect(const char *host, uint16_t port, int timeout_ms,
		   int *fd, char *err, size_t errlen);

/**
 * dl_net_listen - a TCP listening socket on port (all addresses; addr
 * NULL) or on addr only; SO_REUSEADDR, close-on-exec.  Port 0 picks one:
 * dl_net_local_port() tells which.
 * \return 0, DL_EIO (err says why: typically the port is taken).
 */
int dl_net_listen(const char *addr, uint16_t port, int *fd, char *err,
		  size_t errlen);

/* dl_net_local_port - \return the local port of a socket, 0 on error. */
uint16_t dl_net_local_port(int fd);

/**
 * dl_net_accept - accept one connection, waiting at most timeout_ms.
 * OUT fd - blocking, close-on-exec; the caller closes it
 * OUT who - if not NULL, "address:port" of the peer (who_len bytes)
 * \return 0, DL_ETIMEDOUT (nothing came), DL_EIO.
 */
int dl_net_accept(int lfd, int timeout_ms, int *fd, char *who,
		  size_t who_len);

/**
 * dl_net_listen_unix - a Unix stream socket at path (an old socket there
 * is replaced), mode applied with fchmod before bind()'s file appears
 * usable to others; close-on-exec.
 * \return 0, DL_ERANGE (path too long), DL_EIO.
 */
int dl_net_listen_unix(const char *path, mode_t mode, int *fd, char *err,
		       size_t errlen);

/**
 * dl_net_connect_unix - connect to the Unix socket at path.
 * \return 0, DL_ENOENT (nothing there or nobody listening), DL_ERANGE,
 *         DL_ETIMEDOUT, DL_EIO.
 */
int dl_net_connect_unix(const char *path, int timeout_ms, int *fd,
			char *err, size_t errlen);

/**
 * dl_net_peer_uid - the uid of the process at the other end of a Unix
 * socket (SO_PEERCRED).
 * \return 0, DL_EIO.
 */
int dl_net_peer_uid(int fd, uid_t *uid);

#endif /* DL_NET_H */
