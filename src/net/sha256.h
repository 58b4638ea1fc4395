/*
 * sha256.h - SHA-256 (FIPS 180-4), for naming cached files after their
 * source path and for recording what a cached copy holds.  A
 * cryptographic hash keeps a user from choosing a path whose store name
 * collides with another user's file; the store also records the full path
 * and checks it, so a collision would only cost a cache miss.
 */
#ifndef DL_SHA256_H
#define DL_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define DL_SHA256_LEN 32
/* Hex digest plus the terminating NUL. */
#define DL_SHA256_HEX_LEN (2 * DL_SHA256_LEN + 1)

/* A digest being computed piece by piece; a plain value, nothing to free. */
typedef struct dl_sha256_ctx {
	uint32_t h[8];
	uint64_t len;     /* bytes so far */
	uint8_t buf[64];  /* the incomplete block */
	size_t nbuf;
} dl_sha256_ctx_t;

/* dl_sha256_init - start a digest. */
void dl_sha256_init(dl_sha256_ctx_t *c);

/* dl_sha256_update - add len bytes at data. */
void dl_sha256_update(dl_sha256_ctx_t *c, const void *data, size_t len);

/**
 * dl_sha256_final_hex - finish the digest as 64 lower-case hex digits;
 * c must be started again before further use.
 * OUT hex - DL_SHA256_HEX_LEN bytes, NUL-terminated
 */
void dl_sha256_final_hex(dl_sha256_ctx_t *c, char hex[DL_SHA256_HEX_LEN]);

/**
 * dl_sha256 - the digest of len bytes at data.
 * OUT out - DL_SHA256_LEN bytes
 */
void dl_sha256(const void *data, size_t len, uint8_t out[DL_SHA256_LEN]);

/**
 * dl_sha256_hex - the digest as 64 lower-case hex digits.
 * OUT hex - DL_SHA256_HEX_LEN bytes, NUL-terminated
 */
void dl_sha256_hex(const void *data, size_t len, char hex[DL_SHA256_HEX_LEN]);

/**
 * dl__sha256_portable - for tests: on 1, use the portable code even on a
 * CPU with SHA instructions; on 0, the fastest code there is; on -1, no
 * change.  RET 1 when the portable code was in use before the call.
 */
int dl__sha256_portable(int on);

#endif /* DL_SHA256_H */
