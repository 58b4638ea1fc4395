/*
 * u64set.h - internal: an open-addressing set of 64-bit keys.
 *
 * Policies use it for "(node, file) will be cached once the planned jobs
 * ran" overlays; it is private to the library (dl__ prefix, not installed).
 */
#ifndef DL_U64SET_H
#define DL_U64SET_H

#include <stddef.h>
#include <stdint.h>

typedef struct dl__u64set {
	uint64_t *slots; /* key + 1, 0 = empty; owned */
	size_t cap;      /* power of two */
	size_t count;
} dl__u64set_t;

/* The key of (node, file): overlays, the state's running reads. */
static inline uint64_t dl__nf_key(uint32_t node, uint32_t file)
{
	return ((uint64_t)node << 32) | file;
}

/* Initialise an empty set; no allocation until the first add. */
void dl__u64set_init(dl__u64set_t *s);
/* Free the slots; the set is empty and reusable afterwards. */
void dl__u64set_fini(dl__u64set_t *s);
/* dst = a copy of src (dst's old keys are dropped).  \return 0 or
 * DL_ENOMEM (dst unchanged). */
int dl__u64set_copy(dl__u64set_t *dst, const dl__u64set_t *src);
/* Room for n keys in all, so that adding up to n - count new keys cannot
 * fail.  \return 0 or DL_ENOMEM (set unchanged). */
int dl__u64set_reserve(dl__u64set_t *s, size_t n);
/* key must not be UINT64_MAX (stored as key + 1).
 * \return 1 if added, 0 if already present, DL_ENOMEM (set unchanged). */
int dl__u64set_add(dl__u64set_t *s, uint64_t key);
/* \return 1 if present, 0 if not. */
int dl__u64set_has(const dl__u64set_t *s, uint64_t key);
/* Call fn(key, arg) for every key, in no particular order. */
void dl__u64set_foreach(const dl__u64set_t *s,
			void (*fn)(uint64_t key, void *arg), void *arg);

#endif /* DL_U64SET_H */
