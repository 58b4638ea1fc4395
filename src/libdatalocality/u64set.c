/* u64set.c - open addressing with linear probing; keys stored as key + 1. */
#include <stdlib.h>
#include <string.h>

#include "dl_error.h"
#include "u64set.h"

/* splitmix64's finaliser: (node << 32 | file) keys are far from random. */
static inline uint64_t _mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

void dl__u64set_init(dl__u64set_t *s)
{
	s->slots = NULL;
	s->cap = 0;
	s->count = 0;
}

void dl__u64set_fini(dl__u64set_t *s)
{
	free(s->slots);
	dl__u64set_init(s);
}

static void _put(uint64_t *slots, size_t cap, uint64_t stored)
{
	size_t i = _mix(stored - 1) & (cap - 1);

	while (slots[i])
		i = (i + 1) & (cap - 1);
	slots[i] = stored;
}

int dl__u64set_has(const dl__u64set_t *s, uint64_t key)
{
	size_t i;

	if (!s->cap)
		return 0;
	for (i = _mix(key) & (s->cap - 1); s->slots[i];
	     i = (i + 1) & (s->cap - 1))
		if (s->slots[i] == key + 1)
			return 1;
	return 0;
}

int dl__u64set_copy(dl__u64set_t *dst, const dl__u64set_t *src)
{
	uint64_t *slots = NULL;

	if (src->cap) {
		slots = malloc(src->cap * sizeof(*slots));
		if (!slots)
			return DL_ENOMEM;
		memcpy(slots, src->slots, src->cap * sizeof(*slots));
	}
	free(dst->slots);
	dst->slots = slots;
	dst->cap = src->cap;
	dst->count = src->count;
	return 0;
}

int dl__u64set_reserve(dl__u64set_t *s, size_t n)
{
	size_t ncap = s->cap ? s->cap : 64, i;
	uint64_t *ns;

	/* Keep the load factor under 1/2 so probes stay short. */
	while (n * 2 > ncap)
		ncap *= 2;
	if (ncap == s->cap)
		return 0;
	ns = calloc(ncap, sizeof(*ns));
	if (!ns)
		return DL_ENOMEM;
	for (i = 0; i < s->cap; i++)
		if (s->slots[i])
			_put(ns, ncap, s->slots[i]);
	free(s->slots);
	s->slots = ns;
	s->cap = ncap;
	return 0;
}

int dl__u64set_add(dl__u64set_t *s, uint64_t key)
{
	if (dl__u64set_has(s, key))
		return 0;
	if (dl__u64set_reserve(s, s->count + 1))
		return DL_ENOMEM;
	_put(s->slots, s->cap, key + 1);
	s->count++;
	return 1;
}

void dl__u64set_foreach(const dl__u64set_t *s,
			void (*fn)(uint64_t key, void *arg), void *arg)
{
	size_t i;

	for (i = 0; i < s->cap; i++)
		if (s->slots[i])
			fn(s->slots[i] - 1, arg);
}
