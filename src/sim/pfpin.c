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
	size_t cells = (size_t)nnodes * nfiles;

	memset(p, 0, sizeof(*p));
	p->st = calloc(cells ? cells : 1, 1);
	if (!p->st)
		return DL_ENOMEM;
	p->cache = cache;
	p->nnodes = nnodes;
	p->nfiles = nfiles;
	return 0;
}

void dl_pfpin_fini(dl_pfpin_t *p)
{
	free(p->st);
	free(p->pairs);
	memset(p, 0, sizeof(*p));
}

static uint8_t *_cell(dl_pfpin_t *p, uint32_t node, uint32_t file)
{
	return &p->st[(size_t)node * p->nfiles + file];
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
	return 0;
}

void dl_pfpin_inserted(dl_pfpin_t *p, uint32_t node, uint32_t file)
{
	uint8_t *c;

	if (!p->st || node >= p->nnodes || file >= p->nfiles)
		return;
	c = _cell(p, node, file);
	if (*c == WANT && dl_cache_pin(p->cache, node, file) == 0) {
		*c = HELD;
		p->taken++;
	}
}

void dl_pfpin_drop_node(dl_pfpin_t *p, uint32_t node)
{
	size_t i;

	for (i = 0; p->st && i < p->n; i++) {
		uint8_t *c;

		if (p->pairs[i].node != node)
			continue;
		c = _cell(p, node, p->pairs[i].file);
		if (*c & HELD)
			dl_cache_unpin(p->cache, node, p->pairs[i].file);
		*c = 0;
	}
}
