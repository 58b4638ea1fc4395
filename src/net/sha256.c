/*
 * sha256.c - SHA-256 as specified in FIPS 180-4, section 6.2; the blocks
 * go through the CPU's SHA instructions where it has them (sha256_x86.c),
 * through the portable code below elsewhere.
 */
#include <stdatomic.h>
#include <string.h>

#include "sha256.h"
#include "sha256_x86.h"

const uint32_t dl__sha256_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void _block(uint32_t h[8], const uint8_t *p)
{
	uint32_t w[64], a, b, c, d, e, f, g, hh;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (; i < 64; i++) {
		uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^
			      (w[i - 15] >> 3);
		uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^
			      (w[i - 2] >> 10);

		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	a = h[0], b = h[1], c = h[2], d = h[3];
	e = h[4], f = h[5], g = h[6], hh = h[7];
	for (i = 0; i < 64; i++) {
		uint32_t t1 = hh + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) +
			      ((e & f) ^ (~e & g)) + dl__sha256_k[i] + w[i];
		uint32_t t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) +
			      ((a & b) ^ (a & c) ^ (b & c));

		hh = g, g = f, f = e, e = d + t1;
		d = c, c = b, b = a, a = t1 + t2;
	}
	h[0] += a, h[1] += b, h[2] += c, h[3] += d;
	h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
}

/* 0: not chosen yet, 1: portable, 2: SHA-NI.  Threads may race to choose;
 * they all choose the same. */
static atomic_int impl;

static int _impl(void)
{
	int i = atomic_load_explicit(&impl, memory_order_relaxed);

	if (!i) {
		i = dl__sha256_x86_ok() ? 2 : 1;
		atomic_store_explicit(&impl, i, memory_order_relaxed);
	}
	return i;
}

int dl__sha256_portable(int on)
{
	int was = _impl() == 1;

	if (on >= 0)
		atomic_store_explicit(&impl,
				      on || !dl__sha256_x86_ok() ? 1 : 2,
				      memory_order_relaxed);
	return was;
}

static void _blocks(uint32_t h[8], const uint8_t *p, size_t n)
{
	if (_impl() == 2) {
		dl__sha256_x86_blocks(h, p, n);
		return;
	}
	for (; n; n--, p += 64)
		_block(h, p);
}

void dl_sha256_init(dl_sha256_ctx_t *c)
{
	static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372,
				       0xa54ff53a, 0x510e527f, 0x9b05688c,
				       0x1f83d9ab, 0x5be0cd19};

	memcpy(c->h, h0, sizeof(h0));
	c->len = 0;
	c->nbuf = 0;
}

void dl_sha256_update(dl_sha256_ctx_t *c, const void *data, size_t len)
{
	const uint8_t *p = data;

	c->len += len;
	if (c->nbuf) {
		size_t take = 64 - c->nbuf < len ? 64 - c->nbuf : len;

		memcpy(c->buf + c->nbuf, p, take);
		c->nbuf += take;
		p += take;
		len -= take;
		if (c->nbuf < 64)
			return;
		_blocks(c->h, c->buf, 1);
		c->nbuf = 0;
	}
	_blocks(c->h, p, len / 64);
	p += len / 64 * 64;
	len %= 64;
	memcpy(c->buf, p, len);
	c->nbuf = len;
}

static void _final(dl_sha256_ctx_t *c, uint8_t out[DL_SHA256_LEN])
{
	uint64_t bits = c->len * 8;
	uint8_t tail[128];
	size_t padded;

	memset(tail, 0, sizeof(tail));
	memcpy(tail, c->buf, c->nbuf);
	tail[c->nbuf] = 0x80;
	padded = c->nbuf + 1 + 8 <= 64 ? 64 : 128;
	for (int i = 0; i < 8; i++)
		tail[padded - 1 - i] = (uint8_t)(bits >> (8 * i));
	_blocks(c->h, tail, padded / 64);
	for (int i = 0; i < 8; i++) {
		out[4 * i] = (uint8_t)(c->h[i] >> 24);
		out[4 * i + 1] = (uint8_t)(c->h[i] >> 16);
		out[4 * i + 2] = (uint8_t)(c->h[i] >> 8);
		out[4 * i + 3] = (uint8_t)c->h[i];
	}
}

static void _hex(const uint8_t d[DL_SHA256_LEN], char hex[DL_SHA256_HEX_LEN])
{
	static const char digits[] = "0123456789abcdef";

	for (int i = 0; i < DL_SHA256_LEN; i++) {
		hex[2 * i] = digits[d[i] >> 4];
		hex[2 * i + 1] = digits[d[i] & 15];
	}
	hex[2 * DL_SHA256_LEN] = '\0';
}

void dl_sha256_final_hex(dl_sha256_ctx_t *c, char hex[DL_SHA256_HEX_LEN])
{
	uint8_t d[DL_SHA256_LEN];

	_final(c, d);
	_hex(d, hex);
}

void dl_sha256(const void *data, size_t len, uint8_t out[DL_SHA256_LEN])
{
	dl_sha256_ctx_t c;

	dl_sha256_init(&c);
	dl_sha256_update(&c, data, len);
	_final(&c, out);
}

void dl_sha256_hex(const void *data, size_t len, char hex[DL_SHA256_HEX_LEN])
{
	uint8_t d[DL_SHA256_LEN];

	dl_sha256(data, len, d);
	_hex(d, hex);
}
