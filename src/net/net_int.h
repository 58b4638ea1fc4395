/* net_int.h - private to libdlnet: what its modules share. */
#ifndef DL_NET_INT_H
#define DL_NET_INT_H

#include <stddef.h>
#include <stdint.h>

/* Format one line into err (errlen bytes; NULL/0: nothing). */
void dl__net_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* CLOCK_MONOTONIC in milliseconds. */
int64_t dl__net_now_ms(void);
/* The deadline of a timeout (negative timeout: none, -1). */
int64_t dl__net_deadline(int timeout_ms);
/* poll() fd for events until deadline: 0, DL_ETIMEDOUT, DL_EIO. */
int dl__net_wait(int fd, short events, int64_t deadline);

#endif /* DL_NET_INT_H */
