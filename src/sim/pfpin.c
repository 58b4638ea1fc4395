/* pfpin.c - the agent's prefetch pins in dl-sim; see pfpin.h. */
#include <stdlib.h>
#include <string.h>

#include "dl_error.h"
#include "pfpin.h"

/* Per (node, file): the last plan wants the pin, we hold it, scratch. */
enum { WANT = 1, HELD = 2, MARK = 4 };

int dl_pfpin_init(dl_pfpin_t *p, dl_cache_t *cache, uint32_t nnodes,
		  uint32_t nfiles)
{
	memset(p, 0, sizeof(*p));
	p->cache = cache;
	p->nnodes = nnodes;
	p->nfiles = nfiles;
	return 0;
}

void dl_pfpin_fini(dl_pfpin_t *p)
{
	free(p->key);
	free(p->val);
	free(p->pairs);
	memset(p, 0, sizeof(*p));
}

static size_t _slot(const uint64_t *key, size_t cap, uint64_t k)
{
	uint64_t x = k * 0x9e3779b97f4a7c15ULL;
	size_t i = (size_t)(x >> 32) & (cap - 1);

	while (key[i] && key[i] != k)
		i = (i + 1) & (cap - 1);
	return i;
}

/* A table of cap slots (a power of two) holding the non-zero cells of
 * p's; \return 0 or DL_ENOMEM (p unchanged). */
static int _rehash(dl_pfpin_t *p, size_t cap)
{
	uint64_t *key = calloc(cap, sizeof(*key));
	uint8_t *val = malloc(cap);
	size_t i, j, n = 0;

	if (!key || !val) {
		free(key);
		free(val);
		return DL_ENOMEM;
	}
	for (i = 0; i < p->mcap; i++)
		if (p->key[i] && p->val[i]) {
			j = _slot(key, cap, p->key[i]);
			key[j] = p->key[i];
			val[j] = p->val[i];
			n++;
		}
	free(p->key);
	free(p->val);
	p->key = key;
	p->val = val;
	p->mcap = cap;
	p->mcount = n;
	return 0;
}

static uint64_t _key(uint32_t node, uint32_t file)
{
	return (((uint64_t)node << 32) | file) + 1;
}

/* Room for extra more cells without a rehash; \return 0 or DL_ENOMEM. */
static int _reserve(dl_pfpin_t *p, size_t extra)
{
	size_t cap = p->mcap ? p->mcap : 64;

	while ((p->mcount + extra + 1) * 2 > cap)
		cap *= 2;
	return cap == p->mcap ? 0 : _rehash(p, cap);
}

/* The cell of (node, file), added (0) if new: _reserve() made room. */
static uint8_t *_cell(dl_pfpin_t *p, uint32_t node, uint32_t file)
{
	uint64_t k = _key(node, file);
	size_t i = _slot(p->key, p->mcap, k);

	if (!p->key[i]) {
		p->key[i] = k;
		p->val[i] = 0;
		p->mcount++;
	}
	return &p->val[i];
}

/* The cell of (node, file) if it has one, else NULL. */
static uint8_t *_find(const dl_pfpin_t *p, uint32_t node, uint32_t file)
{
	size_t i;

	if (!p->mcap)
		return NULL;
	i = _slot(p->key, p->mcap, _key(node, file));
	return p->key[i] ? &p->val[i] : NULL;
}

static int _valid(const dl_pfpin_t *p, const dl_copy_t *c)
{
	return c->node < p->nnodes && c->file < p->nfiles;
}

/* Keep the valid pairs of pins[0..n) as the ones in force. */
static int _keep(dl_pfpin_t *p, const dl_copy_t *pins, size_t n)
{
	size_t i, k = 0;

	if (n > p->cap) {
		dl_copy_t *np = realloc(p->pairs, n * sizeof(*np));

		if (!np)
			return DL_ENOMEM;
		p->pairs = np;
		p->cap = n;
	}
	for (i = 0; i < n; i++)
		if (_valid(p, &pins[i]))
			p->pairs[k++] = pins[i];
	p->n = k;
	return 0;
}

int dl_pfpin_apply(dl_pfpin_t *p, const dl_copy_t *pins, size_t n)
{
	dl_copy_t *old;
	size_t i, nold;
	int rc;

	/* The old pairs are needed after the new ones are marked. */
	nold = p->n;
	if (_reserve(p, n))
		return DL_ENOMEM;
	old = malloc((nold ? nold : 1) * sizeof(*old));
	if (!old)
		return DL_ENOMEM;
	if (nold)
		memcpy(old, p->pairs, nold * sizeof(*old));
	if ((rc = _keep(p, pins, n))) {
		free(old);
		return rc;
	}
	/* Pin first, unpin after: a pair kept is never released between. */
	for (i = 0; i < p->n; i++) {
		uint8_t *c = _cell(p, p->pairs[i].node, p->pairs[i].file);

		if (!(*c & HELD) && dl_cache_pin(p->cache, p->pairs[i].node,
						 p->pairs[i].file) == 0) {
			*c = HELD;
			p->taken++;
		}
		*c = (*c & HELD ? HELD : WANT) | MARK;
	}
	for (i = 0; i < nold; i++) {
		uint8_t *c = _cell(p, old[i].node, old[i].file);

		if (*c & MARK)
			continue;
		if (*c & HELD)
			dl_cache_unpin(p->cache, old[i].node, old[i].file);
		*c = 0;
	}
	for (i = 0; i < p->n; i++)
		*_cell(p, p->pairs[i].node, p->pairs[i].file) &= ~MARK;
	free(old);
	/* Drop the cells of pairs no longer wanted, now and then; if that
	 * fails, the table only stays larger. */
	if (p->mcount > 4 * p->n + 64)
		(void)_rehash(p, p->mcap);
	return 0;
}

void dl_pfpin_inserted(dl_pfpin_t *p, uint32_t node, uint32_t file)
{
	uint8_t *c;

	if (node >= p->nnodes || file >= p->nfiles ||
	    !(c = _find(p, node, file)))
		return;
	if (*c == WANT && dl_cache_pin(p->cache, node, file) == 0) {
		*c = HELD;
		p->taken++;
	}
}

void dl_pfpin_drop_node(dl_pfpin_t *p, uint32_t node)
{
	size_t i;

	for (i = 0; i < p->n; i++) {
		uint8_t *c;

		if (p->pairs[i].node != node ||
		    !(c = _find(p, node, p->pairs[i].file)))
			continue;
		if (*c & HELD)
			dl_cache_unpin(p->cache, node, p->pairs[i].file);
		*c = 0;
	}
}
