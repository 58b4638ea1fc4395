/*
 * sha256_x86.h - SHA-256's compression function on the x86 SHA extensions
 * (SHA-NI), chosen at run time by sha256.c.
 *
 * Peer copies and first stagings hash every byte they copy: the portable
 * code does about 170 MB/s, a 12 MiB job's worth of files costs ~75 ms
 * of its start-up; the SHA instructions do over 1 GB/s.
 */
#ifndef DL_SHA256_X86_H
#define DL_SHA256_X86_H

#include <stddef.h>
#include <stdint.h>

/* The round constants of FIPS 180-4 4.2.2 (sha256.c). */
extern const uint32_t dl__sha256_k[64];

/* dl__sha256_x86_ok - 1 when this CPU (and build) can run the code below. */
int dl__sha256_x86_ok(void);

/**
 * dl__sha256_x86_blocks - fold n 64-byte blocks at p into the state h;
 * only when dl__sha256_x86_ok().
 */
void dl__sha256_x86_blocks(uint32_t h[8], const uint8_t *p, size_t n);

#endif
