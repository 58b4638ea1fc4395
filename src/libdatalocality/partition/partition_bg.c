/*
 * partition_bg.c - a from-scratch partition made on a thread of its own
 * (partition_bg.h).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "dl_error.h"
#include "dl_log.h"
#include "partition_bg.h"

/* A pending job's node in the adopted partition. */
typedef struct {
	uint32_t id;
	int32_t node;
} bg_node_t;

struct dl__bg {
	dl_partitioner_t *part;	/* the thread's while one runs */
	pthread_t thread;
	pthread_mutex_t mu;
	int running;		/* a thread was started and not joined */
	int done;		/* under mu: its result is ready */
	unsigned runs;
	/* The running (or finished) partition: owned here. */
	dl_hgraph_t *g;
	uint32_t *ids;		/* [g->nvtx] job id of a _pending() vertex */
	int32_t *parts;		/* [g->nvtx] the answer */
	dl_partition_stats_t stats;
	int rc;
	/* The adopted one, sorted by id. */
	bg_node_t *nodes;
	size_t nnodes;
};

dl__bg_t *dl__bg_create(const dl_partition_opts_t *o)
{
	dl__bg_t *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->part = dl_partitioner_create(o);
	if (!b->part || pthread_mutex_init(&b->mu, NULL)) {
		dl_partitioner_destroy(b->part);
		free(b);
		return NULL;
	}
	/* Small graphs are never sent here, and an exact answer is the
	 * plan's own business (dl_partitioner_set_exact()). */
	dl_partitioner_set_exact(b->part, 0);
	return b;
}

/* Free the partition handed to the thread. */
static void _drop_job(dl__bg_t *b)
{
	dl_hgraph_free(b->g);
	free(b->ids);
	free(b->parts);
	b->g = NULL;
	b->ids = NULL;
	b->parts = NULL;
}

/* Wait for the thread, if one was started; its result stays. */
static void _join(dl__bg_t *b)
{
	if (!b->running)
		return;
	pthread_join(b->thread, NULL);
	b->running = 0;
}

void dl__bg_destroy(dl__bg_t *b)
{
	if (!b)
		return;
	_join(b);
	_drop_job(b);
	dl__bg_forget(b);
	dl_partitioner_destroy(b->part);
	pthread_mutex_destroy(&b->mu);
	free(b);
}

int dl__bg_busy(const dl__bg_t *b)
{
	return b && b->running;
}

static void *_thread(void *arg)
{
	dl__bg_t *b = arg;
	int rc;

	rc = dl_partitioner_run(b->part, b->g, NULL, b->parts, &b->stats);
	pthread_mutex_lock(&b->mu);
	b->rc = rc;
	b->done = 1;
	pthread_mutex_unlock(&b->mu);
	return NULL;
}

/* Whether vertex v of g is a pending job (not fixed, not an anchor). */
static int _pending(const dl_hgraph_t *g, uint32_t v)
{
	return g->fixed[v] < 0 && g->vjob[v] != DL_HG_ANCHOR;
}

/* The job id in st of each of g's pending vertices (0 for the others). */
static uint32_t *_ids(const dl_hgraph_t *g, const dl_state_t *st)
{
	uint32_t *ids = calloc(g->nvtx ? g->nvtx : 1, sizeof(*ids));

	if (!ids)
		return NULL;
	for (uint32_t v = 0; v < g->nvtx; v++)
		if (_pending(g, v) && g->vjob[v] < st->njobs)
			ids[v] = st->jobs[g->vjob[v]].id;
	return ids;
}

int dl__bg_start(dl__bg_t *b, dl_hgraph_t *g, const dl_state_t *st,
		 double imbalance)
{
	if (!b || !g || !st) {
		dl_hgraph_free(g);
		return DL_EINVAL;
	}
	if (b->running) {
		dl_hgraph_free(g);
		return DL_EBUSY;
	}
	_drop_job(b);
	b->g = g;
	b->ids = _ids(g, st);
	b->parts = malloc((g->nvtx ? g->nvtx : 1) * sizeof(*b->parts));
	if (!b->ids || !b->parts) {
		_drop_job(b);
		return DL_ENOMEM;
	}
	dl_partitioner_set_imbalance(b->part, imbalance);
	b->done = 0;
	if (pthread_create(&b->thread, NULL, _thread, b)) {
		_drop_job(b);
		return DL_ENOMEM;
	}
	b->running = 1;
	return 0;
}

static int _cmp_node(const void *x, const void *y)
{
	const bg_node_t *a = x, *c = y;

	return (a->id > c->id) - (a->id < c->id);
}

/* The finished partition's pending jobs and their nodes into b->nodes. */
static int _take(dl__bg_t *b, dl__bg_adopted_t *a)
{
	const dl_hgraph_t *g = b->g;
	bg_node_t *n = malloc((g->nvtx ? g->nvtx : 1) * sizeof(*n));
	size_t k = 0;

	if (!n)
		return DL_ENOMEM;
	for (uint32_t v = 0; v < g->nvtx; v++)
		if (_pending(g, v)) {
			n[k].id = b->ids[v];
			n[k++].node = (int32_t)g->part_node[b->parts[v]];
		}
	qsort(n, k, sizeof(*n), _cmp_node);
	dl__bg_forget(b);
	b->nodes = n;
	b->nnodes = k;
	a->cut = b->stats.cut;
	a->ratio = dl_hgraph_cut_share(g, b->stats.cut);
	a->jobs = (uint32_t)k;
	a->seconds = b->stats.seconds;
	return 0;
}

int dl__bg_adopt(dl__bg_t *b, int wait, dl__bg_adopted_t *a)
{
	int done, rc;

	if (!b || !b->running)
		return 0;
	pthread_mutex_lock(&b->mu);
	done = b->done;
	pthread_mutex_unlock(&b->mu);
	if (!done && !wait)
		return 0;
	_join(b);
	b->runs++;
	/* Nothing to adopt: plans go on from the last one.  Greedy's
	 * parts (the helper failed) are no better than a refine's. */
	if (b->rc || b->stats.used_fallback) {
		dl__log(DL_LOG_ERROR,
			"partitioner: background partition %s; refines go on from the last plan",
			b->rc ? dl_strerror(b->rc) :
				"by the greedy fallback (the helper failed)");
		_drop_job(b);
		return 0;
	}
	rc = _take(b, a);
	_drop_job(b);
	return rc ? rc : 1;
}

int32_t dl__bg_node(const dl__bg_t *b, uint32_t id)
{
	const bg_node_t key = { .id = id }, *n;

	if (!b || !b->nnodes)
		return -1;
	n = bsearch(&key, b->nodes, b->nnodes, sizeof(*n), _cmp_node);
	return n ? n->node : -1;
}

void dl__bg_forget(dl__bg_t *b)
{
	if (!b)
		return;
	free(b->nodes);
	b->nodes = NULL;
	b->nnodes = 0;
}

unsigned dl__bg_runs(const dl__bg_t *b)
{
	return b ? b->runs : 0;
}
