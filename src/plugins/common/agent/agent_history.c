/* agent_history.c - run times of similar jobs; see agent_history.h. */
#include <stdio.h>
#include <string.h>

#include "src/common/slurm_xlator.h"

#include "src/common/xhash.h"
#include "src/common/xmalloc.h"

#include "dl_cost.h"

#include "agent_history.h"

/*
 * Bounded: a user submitting jobs under ever new names must not grow the
 * controller's memory; past this many keys new ones are not learnt.
 */
#define HISTORY_MAX 65536

typedef struct {
	char key[40];           /* "uid:name hash" */
	double mean;
} hist_t;

static xhash_t *hist;

static void _id(void *item, const char **key, uint32_t *len)
{
	hist_t *h = item;

	*key = h->key;
	*len = strlen(h->key);
}

static void _free(void *item)
{
	xfree(item);
}

static void _key(char *buf, size_t len, uid_t uid, uint64_t name)
{
	snprintf(buf, len, "%u:%016llx", (unsigned)uid,
		 (unsigned long long)name);
}

void agent_history_add(uid_t uid, uint64_t name, double seconds)
{
	char key[40];
	hist_t *h;

	if (!(seconds >= 0))
		return;
	if (!hist)
		hist = xhash_init(_id, _free);
	_key(key, sizeof(key), uid, name);
	if ((h = xhash_get_str(hist, key))) {
		dl_runtime_learn(&h->mean, seconds); /* dl-sim's rule too */
		return;
	}
	if (xhash_count(hist) >= HISTORY_MAX)
		return;
	h = xmalloc(sizeof(*h));
	memcpy(h->key, key, sizeof(key));
	h->mean = -1;
	dl_runtime_learn(&h->mean, seconds);
	xhash_add(hist, h);
}

double agent_history_estimate(uid_t uid, uint64_t name, double limit)
{
	char key[40];
	hist_t *h;

	if (!hist)
		return limit;
	_key(key, sizeof(key), uid, name);
	if (!(h = xhash_get_str(hist, key)))
		return limit;
	return dl_runtime_estimate(h->mean, limit);
}

void agent_history_fini(void)
{
	if (hist)
		xhash_free_ptr(&hist);
}
