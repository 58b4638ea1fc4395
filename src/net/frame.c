/*
 * frame.c - the frames of the service protocol (PROTOCOL.md "Framing")
 * and raw reads and writes with a deadline.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "dl_error.h"
#include "dl_net.h"
#include "net_int.h"

static const char *const _names[] = {
	"?",	 "NONCE",	  "HELLO",    "INV",     "DELTA",
	"PREFETCH", "CANCEL",	  "PREFETCH_DONE", "LOCATE", "LOCATED",
	"FETCH", "FETCH_OK",	  "FETCH_REFUSED", "STAGE", "END",
	"REPORT", "WELCOME", "STAGING",
};

const char *dl_net_type_name(uint32_t type)
{
	return type <= DL_NET_TYPE_MAX ? _names[type] : "?";
}

void dl__net_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

int64_t dl__net_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Milliseconds left until deadline (-1: none) for poll(). */
static int _left(int64_t deadline)
{
	int64_t left;

	if (deadline < 0)
		return -1;
	left = deadline - dl__net_now_ms();
	if (left < 0)
		return 0;
	return left > 0x7fffffff ? 0x7fffffff : (int)left;
}

int64_t dl__net_deadline(int timeout_ms)
{
	return timeout_ms < 0 ? -1 : dl__net_now_ms() + timeout_ms;
}

int dl__net_wait(int fd, short events, int64_t deadline)
{
	struct pollfd p = { .fd = fd, .events = events };
	int n;

	for (;;) {
		n = poll(&p, 1, _left(deadline));
		if (n > 0)
			return 0;
		if (n == 0)
			return DL_ETIMEDOUT;
		if (errno != EINTR)
			return DL_EIO;
	}
}

/*
 * Read len bytes before deadline.  *got says how many came, so that the
 * caller can tell a clean end (nothing) from a short frame.
 */
static int _read(int fd, void *buf, size_t len, int64_t deadline,
		 size_t *got)
{
	char *p = buf;
	ssize_t n;
	int rc;

	*got = 0;
	while (*got < len) {
		n = recv(fd, p + *got, len - *got, MSG_DONTWAIT);
		if (n > 0) {
			*got += (size_t)n;
			continue;
		}
		if (n == 0)
			return DL_EIO;
		if (errno == ENOTSOCK)
			n = read(fd, p + *got, len - *got);
		if (n > 0) {
			*got += (size_t)n;
			continue;
		}
		if (n == 0)
			return DL_EIO;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return DL_EIO;
		if ((rc = dl__net_wait(fd, POLLIN, deadline)))
			return rc;
	}
	return 0;
}

static int _write(int fd, const void *buf, size_t len, int64_t deadline)
{
	const char *p = buf;
	size_t done = 0;
	ssize_t n;
	int rc;

	while (done < len) {
		n = send(fd, p + done, len - done,
			 MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0 && errno == ENOTSOCK)
			n = write(fd, p + done, len - done);
		if (n > 0) {
			done += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
			return DL_EIO;
		if ((rc = dl__net_wait(fd, POLLOUT, deadline)))
			return rc;
	}
	return 0;
}

int dl_net_read_full(int fd, void *buf, size_t len, int timeout_ms)
{
	size_t got;

	return _read(fd, buf, len, dl__net_deadline(timeout_ms), &got);
}

int dl_net_write_full(int fd, const void *buf, size_t len, int timeout_ms)
{
	return _write(fd, buf, len, dl__net_deadline(timeout_ms));
}

static uint32_t _get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static void _put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

void dl_net_frame_put_header(uint8_t hdr[DL_NET_HDR_LEN], uint32_t type,
			     uint32_t cred_len, uint32_t body_len)
{
	memcpy(hdr, DL_NET_MAGIC, 4);
	_put32(hdr + 4, type);
	_put32(hdr + 8, cred_len);
	_put32(hdr + 12, body_len);
}

int dl_net_frame_header(const uint8_t hdr[DL_NET_HDR_LEN], uint32_t *type,
			uint32_t *cred_len, uint32_t *body_len, char *err,
			size_t errlen)
{
	uint32_t t = _get32(hdr + 4), c = _get32(hdr + 8), b = _get32(hdr + 12);

	if (memcmp(hdr, DL_NET_MAGIC, 4)) {
		dl__net_err(err, errlen, "bad magic");
		return DL_EFORMAT;
	}
	if (t < 1 || t > DL_NET_TYPE_MAX) {
		dl__net_err(err, errlen, "unknown message type %u", t);
		return DL_EFORMAT;
	}
	if (c > DL_NET_CRED_MAX || b > DL_NET_BODY_MAX) {
		dl__net_err(err, errlen,
			    "%s: credential of %u or body of %u bytes over "
			    "the limit", dl_net_type_name(t), c, b);
		return DL_EFORMAT;
	}
	*type = t;
	*cred_len = c;
	*body_len = b;
	return 0;
}

void dl_net_frame_free(dl_net_frame_t *f)
{
	if (!f)
		return;
	free(f->cred);
	free(f->body);
	memset(f, 0, sizeof(*f));
}

/* Allocate a frame's buffers for the lengths in the header. */
static int _alloc(dl_net_frame_t *f, uint32_t type, uint32_t c, uint32_t b)
{
	memset(f, 0, sizeof(*f));
	f->type = type;
	f->cred_len = c;
	f->body_len = b;
	f->cred = calloc(1, (size_t)c + 1);
	f->body = calloc(1, (size_t)b + 1);
	if (!f->cred || !f->body) {
		dl_net_frame_free(f);
		return DL_ENOMEM;
	}
	return 0;
}

int dl_net_frame_parse(const void *buf, size_t len, dl_net_frame_t *f,
		       size_t *used, char *err, size_t errlen)
{
	const uint8_t *p = buf;
	uint32_t t, c, b;
	dl_net_frame_t nf;
	int rc;

	if (len < DL_NET_HDR_LEN) {
		dl__net_err(err, errlen, "short frame header");
		return DL_EIO;
	}
	if ((rc = dl_net_frame_header(p, &t, &c, &b, err, errlen)))
		return rc;
	if (len - DL_NET_HDR_LEN < (size_t)c + b) {
		dl__net_err(err, errlen, "%s: short frame",
			    dl_net_type_name(t));
		return DL_EIO;
	}
	if ((rc = _alloc(&nf, t, c, b)))
		return rc;
	memcpy(nf.cred, p + DL_NET_HDR_LEN, c);
	memcpy(nf.body, p + DL_NET_HDR_LEN + c, b);
	*f = nf;
	*used = DL_NET_HDR_LEN + (size_t)c + b;
	return 0;
}

int dl_net_frame_read(int fd, int idle_ms, int timeout_ms,
		      dl_net_frame_t *f, char *err, size_t errlen)
{
	uint8_t hdr[DL_NET_HDR_LEN];
	int64_t deadline;
	dl_net_frame_t nf;
	uint32_t t, c, b;
	size_t got;
	int rc;

	rc = dl__net_wait(fd, POLLIN, dl__net_deadline(idle_ms));
	if (rc) {
		dl__net_err(err, errlen, rc == DL_ETIMEDOUT ?
			    "no frame came in time" : "poll failed");
		return rc;
	}
	deadline = dl__net_deadline(timeout_ms);
	rc = _read(fd, hdr, sizeof(hdr), deadline, &got);
	if (rc) {
		if (rc == DL_EIO && got == 0) {
			dl__net_err(err, errlen, "connection closed");
			return DL_ENOENT;
		}
		dl__net_err(err, errlen, "%s in a frame header",
			    rc == DL_ETIMEDOUT ? "timeout" : "short read");
		return rc;
	}
	if ((rc = dl_net_frame_header(hdr, &t, &c, &b, err, errlen)))
		return rc;
	if ((rc = _alloc(&nf, t, c, b)))
		return rc;
	rc = _read(fd, nf.cred, c, deadline, &got);
	if (!rc)
		rc = _read(fd, nf.body, b, deadline, &got);
	if (rc) {
		dl__net_err(err, errlen, "%s: %s in the frame",
			    dl_net_type_name(t),
			    rc == DL_ETIMEDOUT ? "timeout" : "short read");
		dl_net_frame_free(&nf);
		return rc;
	}
	*f = nf;
	return 0;
}

int dl_net_frame_write(int fd, int timeout_ms, uint32_t type,
		       const char *cred, size_t cred_len, const void *body,
		       size_t body_len, char *err, size_t errlen)
{
	uint8_t hdr[DL_NET_HDR_LEN];
	int64_t deadline = dl__net_deadline(timeout_ms);
	int rc;

	if (type < 1 || type > DL_NET_TYPE_MAX || cred_len > DL_NET_CRED_MAX ||
	    body_len > DL_NET_BODY_MAX) {
		dl__net_err(err, errlen, "%s: frame over the limits",
			    dl_net_type_name(type));
		return DL_EINVAL;
	}
	dl_net_frame_put_header(hdr, type, (uint32_t)cred_len,
				(uint32_t)body_len);
	rc = _write(fd, hdr, sizeof(hdr), deadline);
	if (!rc && cred_len)
		rc = _write(fd, cred, cred_len, deadline);
	if (!rc && body_len)
		rc = _write(fd, body, body_len, deadline);
	if (rc)
		dl__net_err(err, errlen, "%s: %s while sending",
			    dl_net_type_name(type),
			    rc == DL_ETIMEDOUT ? "timeout" : "write error");
	return rc;
}
