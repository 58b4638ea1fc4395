/*
 * agent_fnv.h - FNV-1a, 64 bits (Fowler, Noll, Vo; the IETF draft
 * draft-eastlake-fnv), the one hash the agent keys and fingerprints with:
 * job names as history keys, comments, inventory paths, the prefetch
 * file lists, and the fingerprints a cycle compares with the last one's
 * (nodes, snapshot, cache inventories).
 *
 * Why one header: the same two lines had been written out by hand across
 * the agent, with two different starting values (below) and three ways
 * of feeding a number in.  Every call site keeps exactly the arithmetic
 * it had, so that no hash value changes: hence the variants.
 *
 * Pure: no Slurm header, static inline only, unit tested in
 * check_agent_fnv.c.
 */
#ifndef AGENT_FNV_H
#define AGENT_FNV_H

#include <stddef.h>
#include <stdint.h>

/* The FNV-1a 64-bit prime, 2^40 + 2^8 + 0xb3. */
#define AGENT_FNV_PRIME 1099511628211ULL

/* The standard FNV-1a 64-bit offset basis, 0xcbf29ce484222325. */
#define AGENT_FNV_BASIS 14695981039346656037ULL

/*
 * The standard basis less its last digit (0x14650fb0739d0383): where the
 * job name and comment hashes and the node, snapshot, inventory and
 * service fingerprints started when they were written by hand.  Kept so
 * that their values stay what they were; any nonzero start does as well.
 */
#define AGENT_FNV_BASIS_SHORT 1469598103934665603ULL

/*
 * agent_fnv_word - one FNV-1a step with v whole: (h ^ v) * prime.  Given
 * a byte, this is the byte-wise step of the standard hash; given a wider
 * value, it is a cheaper (weaker) mix of all of v at once.
 */
static inline uint64_t agent_fnv_word(uint64_t h, uint64_t v)
{
	return (h ^ v) * AGENT_FNV_PRIME;
}

/* agent_fnv_u64 - the 8 bytes of v, low byte first, one step each. */
static inline uint64_t agent_fnv_u64(uint64_t h, uint64_t v)
{
	int k;

	for (k = 0; k < 8; k++, v >>= 8)
		h = agent_fnv_word(h, v & 0xff);
	return h;
}

/* agent_fnv_u32 - the 4 bytes of v, low byte first, one step each. */
static inline uint64_t agent_fnv_u32(uint64_t h, uint32_t v)
{
	int k;

	for (k = 0; k < 4; k++, v >>= 8)
		h = agent_fnv_word(h, v & 0xff);
	return h;
}

/* agent_fnv_bytes - p[0..n) into h, one step a byte; p may be NULL if !n. */
static inline uint64_t agent_fnv_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		h = agent_fnv_word(h, b[i]);
	return h;
}

/*
 * agent_fnv_str - the bytes of s up to its NUL into h; NULL hashes as "".
 * agent_fnv_str(AGENT_FNV_BASIS, s) is the standard FNV-1a 64 of s.
 */
static inline uint64_t agent_fnv_str(uint64_t h, const char *s)
{
	for (; s && *s; s++)
		h = agent_fnv_word(h, (unsigned char)*s);
	return h;
}

#endif /* AGENT_FNV_H */
