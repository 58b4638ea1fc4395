/*
 * agent_prefetch.c - prefetching through the node channel; see
 * agent_prefetch.h.  Which jobs and files is agent_pfplan.c's (pure and
 * unit tested); this file feeds it from the cycle's snapshot, the cache
 * model and the channel, and turns its actions into messages.
 */
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "src/common/slurm_xlator.h"

#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "dl_error.h"
#include "dl_files.h"
#include "dl_net_msg.h"
#include "agent_channel.h"
#include "agent_jobs.h"
#include "agent_model.h"
#include "agent_pfplan.h"
#include "agent_prefetch.h"
#include "agent_replica.h"

/*
 * A job that started this recently may still be copying its files in its
 * Prolog: no other node prefetches from storage a file it reads and no
 * node holds yet (agent_pfplan.h).  Longer than most stagings; a job
 * whose Prolog read a file from its source (cache full) keeps it from
 * other nodes' prefetches no longer than this.
 */
#define STAGING_SECONDS 60

/* Peers named per file: the node tries them in order, then storage. */
#define PEERS_PER_FILE 4

static pf_table_t table;
static rp_table_t rtable;      /* replicas in force */
static agent_pf_stats_t *pst;   /* [pst_n] */
static uint32_t pst_n;

/* What one cycle works with. */
typedef struct {
	const snapshot_t *s;
	const agent_conf_t *c;
	const dl_plan_t *plan;          /* NULL: no copies to make */
	dl_cache_t *cache;
	agent_channel_view_t *views;    /* [nnodes] */
	pf_node_t *nodes;               /* [nnodes] */
	pf_job_t *jobs;                 /* [s->njobs], as s->jobs */
	pf_pick_t *picks;
	size_t npicks;
	time_t now;
	const char *pfx;
} cyc_t;

agent_pf_stats_t agent_prefetch_stats(uint32_t node)
{
	agent_pf_stats_t z = { 0 };

	return node < pst_n ? pst[node] : z;
}

void agent_prefetch_files_renumbered(void)
{
	agent_replica_table_free(&rtable);
}

void agent_prefetch_fini(void)
{
	agent_pfplan_table_free(&table);
	agent_replica_table_free(&rtable);
	xfree(pst);
	pst_n = 0;
}

/* Bytes of running jobs' files cached on their nodes: not for prefetch. */
static uint64_t *_running_bytes(const cyc_t *y)
{
	uint64_t *b = xcalloc(y->s->nnodes ? y->s->nnodes : 1,
			      sizeof(uint64_t));
	uint32_t i, k;

	for (i = 0; i < y->s->njobs; i++) {
		const pf_job_t *j = &y->jobs[i];

		if (!j->running || j->node < 0 ||
		    (uint32_t)j->node >= y->s->nnodes)
			continue;
		for (k = 0; k < j->nfiles; k++)
			if (dl_cache_contains(y->cache, j->node, j->files[k]))
				b[j->node] += dl_cache_file_size(y->cache,
								 j->files[k]);
	}
	return b;
}

static void _jobs(cyc_t *y)
{
	uint32_t i;

	y->jobs = xcalloc(y->s->njobs ? y->s->njobs : 1, sizeof(pf_job_t));
	for (i = 0; i < y->s->njobs; i++) {
		const snap_job_t *sj = &y->s->jobs[i];
		agent_job_t *ji = agent_jobs_get(sj->job_id, false);
		pf_job_t *j = &y->jobs[i];

		j->job_id = sj->job_id;
		j->priority = sj->priority;
		j->node = -1;
		if (ji) {
			j->files = ji->files;
			j->nfiles = ji->nfiles;
		}
		if (sj->running) {
			j->running = true;
			j->node = sj->node;
			j->staging = !sj->ended && sj->start > 0 &&
				     y->s->now - sj->start <= STAGING_SECONDS;
		} else if (!sj->ended && sj->runnable && ji &&
			   !ji->place.widened) {
			/* Held or waiting jobs are not about to start. */
			j->node = ji->place.node;
		}
	}
}

static void _nodes(cyc_t *y)
{
	const snapshot_t *s = y->s;
	uint64_t *run, cap;
	uint32_t i;

	y->views = xcalloc(s->nnodes ? s->nnodes : 1, sizeof(*y->views));
	y->nodes = xcalloc(s->nnodes ? s->nnodes : 1, sizeof(*y->nodes));
	run = _running_bytes(y);
	for (i = 0; i < s->nnodes; i++) {
		agent_channel_view_t *v = &y->views[i];
		pf_node_t *n = &y->nodes[i];

		agent_channel_view(i, v);
		/* PrefetchMaxBytes=0: no prefetching (LOCATE still works). */
		n->usable = v->complete && s->usable[i] &&
			    agent_model_source(i) == DL_SOURCE_SERVICE &&
			    y->c->prefetch_max > 0;
		n->epoch = v->epoch;
		cap = v->c.capacity != AGENT_INV_UNLIMITED ?
			      v->c.capacity :
			      dl_cache_capacity(y->cache, i);
		cap = cap > run[i] ? cap - run[i] : 0;
		n->budget = cap < y->c->prefetch_max ? cap : y->c->prefetch_max;
		/* The head of its queue: what it may start in two rounds. */
		n->max_jobs = s->cpus[i] ? 2 * s->cpus[i] : 1;
		n->load = s->cpus[i] ? (double)s->busy[i] / s->cpus[i] : 1;
		agent_channel_set_load(i, n->load);
	}
	xfree(run);
}

static int _user(uid_t uid, char *buf, size_t len)
{
	struct passwd pw, *pwp = NULL;
	char tmp[4096];

	if (getpwuid_r(uid, &pw, tmp, sizeof(tmp), &pwp) || !pwp)
		return DL_ENOENT;
	strlcpy(buf, pwp->pw_name, len);
	return strlen(pwp->pw_name) < len ? 0 : DL_ERANGE;
}

/*
 * The PREFETCH of job (index into s->jobs) for files on node: a pick's or
 * a replica's.  RET 0 or DL_E* (err says why).
 */
static int _prefetch_msg(const cyc_t *y, size_t job, uint32_t node,
			 const uint32_t *files, uint32_t nfiles, dl_msg_t *m,
			 char *err, size_t errlen)
{
	const snap_job_t *sj = &y->s->jobs[job];
	uint32_t peers[PEERS_PER_FILE], np, i, k;
	dl_msg_file_t *fl;
	int rc;

	dl_msg_init(m, DL_NET_PREFETCH);
	m->job = sj->job_id;
	m->uid = sj->uid;
	m->gid = sj->gid;
	m->expires = (uint64_t)y->now + y->c->prefetch_timeout;
	if ((rc = _user(sj->uid, m->user, sizeof(m->user)))) {
		snprintf(err, errlen, "no name for uid %u", (unsigned)sj->uid);
		return rc;
	}
	for (i = 0; i < nfiles; i++) {
		uint32_t f = files[i];

		fl = dl_msg_add_file(m, dl_cache_file_path(y->cache, f),
				     dl_cache_file_size(y->cache, f), 0);
		if (!fl) {
			snprintf(err, errlen, "too many files");
			return DL_ETOOBIG;
		}
		np = agent_pfplan_peers(y->cache, f, node, y->nodes,
					y->s->nnodes, peers, PEERS_PER_FILE);
		for (k = 0; k < np; k++)
			if (dl_msg_file_add_peer(fl, y->s->names[peers[k]],
						 y->views[peers[k]].peer_host,
						 y->views[peers[k]].peer_port))
				break; /* a name too long: fewer hints */
	}
	return 0;
}

/*
 * Encode m (unless rc says building it failed already), free it, and queue
 * it for node's connection.  RET 0 or DL_E* (err may say why).
 */
static int _send_msg(const cyc_t *y, uint32_t node, dl_msg_t *m, int rc,
		     char *err, size_t errlen)
{
	char *body = NULL;
	size_t len = 0;

	if (!rc)
		rc = dl_msg_encode(m, &body, &len, err, errlen);
	if (!rc)
		rc = agent_channel_send(node, y->nodes[node].epoch, m->type,
					body, len);
	dl_msg_free(m);
	free(body);
	return rc;
}

/*
 * Build and send the PREFETCH of job (index into s->jobs) for files on
 * node, a pick's (what = "prefetch") or a replica's; a failure is logged.
 * RET 0 or DL_E*.
 */
static int _send_prefetch(const cyc_t *y, size_t job, uint32_t node,
			  const uint32_t *files, uint32_t nfiles,
			  const char *what)
{
	char err[256] = "";
	dl_msg_t m;
	int rc;

	rc = _prefetch_msg(y, job, node, files, nfiles, &m, err, sizeof(err));
	rc = _send_msg(y, node, &m, rc, err, sizeof(err));
	if (rc)
		debug("%s: %s job %u on %s not sent: %s", y->pfx, what,
		      y->s->jobs[job].job_id, y->s->names[node],
		      err[0] ? err : dl_strerror(rc));
	return rc;
}

static void _send(const cyc_t *y, const pf_pick_t *p)
{
	const char *node = y->s->names[p->node];
	char bytes[32];

	if (_send_prefetch(y, p->job, p->node, p->files, p->nfiles,
			   "prefetch")) {
		/* Not in force: tried again at the next cycle. */
		agent_pfplan_forget(&table, p->job_id);
		return;
	}
	pst[p->node].sent++;
	dl_files_format_size(p->missing, 1, bytes, sizeof(bytes));
	info("%s: prefetch job %u: %u files on %s (%u cached, %s missing)",
	     y->pfx, p->job_id, p->nfiles, node, p->ncached, bytes);
}

static void _cancel(const cyc_t *y, const pf_action_t *a)
{
	char err[256] = "";
	dl_msg_t m;
	int rc;

	dl_msg_init(&m, DL_NET_CANCEL);
	m.job = a->job_id;
	rc = _send_msg(y, a->node, &m, 0, err, sizeof(err));
	if (rc) {
		debug("%s: cancel of prefetch job %u on %s not sent: %s",
		      y->pfx, a->job_id, y->s->names[a->node],
		      err[0] ? err : dl_strerror(rc));
		return;
	}
	pst[a->node].cancelled++;
	info("%s: prefetch job %u on %s cancelled", y->pfx, a->job_id,
	     y->s->names[a->node]);
}

static int _cmp_pick(const void *a, const void *b)
{
	uint32_t x = ((const pf_pick_t *)a)->job_id;
	uint32_t y = ((const pf_pick_t *)b)->job_id;

	return x < y ? -1 : x > y;
}

/* "prefetching 3/5 files on n3" for placed jobs still missing files. */
static void _reasons(cyc_t *y, place_ops_t *ops)
{
	pf_pick_t key;
	const pf_pick_t *p;
	uint32_t i;

	qsort(y->picks, y->npicks, sizeof(pf_pick_t), _cmp_pick);
	for (i = 0; i < ops->n; i++) {
		place_op_t *op = &ops->op[i];

		if (!op->desc ||
		    (op->kind != OP_REASON && op->kind != OP_RESTRICT))
			continue;
		key.job_id = op->job_id;
		p = bsearch(&key, y->picks, y->npicks, sizeof(pf_pick_t),
			    _cmp_pick);
		if (!p || p->ncached >= p->nfiles ||
		    !agent_pfplan_find(&table, p->job_id))
			continue;
		xfree(op->desc);
		op->desc = xstrdup_printf("DataLocality: prefetching %u/%u files on %s",
					  p->ncached, p->nfiles,
					  y->s->names[p->node]);
	}
}

/*
 * The nodes as the replica selection sees them: the budget is what the
 * prefetch picks left (picks in force and sent now alike pin their
 * bytes).  xmalloc'd.
 */
static pf_node_t *_replica_nodes(const cyc_t *y)
{
	pf_node_t *n = xcalloc(y->s->nnodes ? y->s->nnodes : 1, sizeof(*n));
	size_t i;

	memcpy(n, y->nodes, y->s->nnodes * sizeof(*n));
	for (i = 0; i < y->npicks; i++) {
		pf_node_t *x = &n[y->picks[i].node];

		x->budget = x->budget > y->picks[i].missing ?
				    x->budget - y->picks[i].missing : 0;
	}
	return n;
}

/* Send one replica message (agent_replica.h), counting and logging it. */
static void _send_replica(const cyc_t *y, const rp_msg_t *r)
{
	const char *node = y->s->names[r->node];
	char bytes[32];
	uint32_t i;

	if (_send_prefetch(y, r->job, r->node, r->files, r->nfiles,
			   "replica for")) {
		agent_replica_forget(&rtable, r); /* tried again next cycle */
		return;
	}
	pst[r->node].replicas += r->nnew;
	for (i = 0; i < r->nnew; i++) {
		dl_files_format_size(dl_cache_file_size(y->cache, r->files[i]),
				     1, bytes, sizeof(bytes));
		info("%s: replica of %s (%s) to %s as job %u's user",
		     y->pfx, dl_cache_file_path(y->cache, r->files[i]), bytes,
		     node, r->job_id);
	}
}

/*
 * The plan's copies (dl_copy_t), made as replicas after the prefetches:
 * they take only the budget the picks left.  The plan was made over a
 * state whose tracker is agent_model_cache() itself (dl_agent.c,
 * _build_state()) with the snapshot's nodes in order, so its copies'
 * file ids are the model's tracker ids, and node indices the snapshot's.
 */
static void _replicas(cyc_t *y)
{
	pf_node_t *nodes;
	rp_msg_t *msgs = NULL;
	int64_t n, i;

	/*
	 * No copies, nothing to do: the entries no longer in force are
	 * dropped by the next selection, before anything reads them.
	 */
	if (!y->plan || !y->plan->ncopies)
		return;
	nodes = _replica_nodes(y);
	n = agent_replica_select(y->cache, y->plan->copies,
				 y->plan->ncopies, y->jobs, y->s->njobs, nodes,
				 y->s->nnodes, &rtable, y->now,
				 y->c->prefetch_timeout, &msgs);
	if (n < 0)
		error("%s: replica selection: %s", y->pfx, dl_strerror((int)n));
	for (i = 0; i < n; i++)
		_send_replica(y, &msgs[i]);
	agent_replica_msgs_free(msgs, n > 0 ? (size_t)n : 0);
	xfree(nodes);
}

static void _count_active(uint32_t nnodes)
{
	size_t i;

	for (i = 0; i < nnodes; i++)
		pst[i].active = 0;
	for (i = 0; i < table.n; i++)
		if (table.e[i].node < nnodes)
			pst[table.e[i].node].active++;
}

static void _act(cyc_t *y)
{
	pf_action_t *acts = NULL;
	int64_t n, i;

	n = agent_pfplan_reconcile(&table, y->picks, y->npicks, y->jobs,
				   y->s->njobs, y->nodes, y->s->nnodes, y->now,
				   y->c->prefetch_timeout, &acts);
	for (i = 0; i < n; i++) {
		if (acts[i].kind == PF_CANCEL)
			_cancel(y, &acts[i]);
		else
			_send(y, &y->picks[acts[i].pick]);
	}
	free(acts);
}

/*
 * Tell the channel which node brings in each file no node holds (the
 * selection's owners: a node asked to prefetch it, or running a job whose
 * Prolog copies it), so that LOCATEs for it name that node.
 */
static void _publish_owners(const dl_cache_t *cache)
{
	const char **paths = NULL;
	uint32_t *nodes = NULL, f, n = 0, cap = 0;

	for (f = 0; f < table.nowner; f++) {
		const char *p;

		if (!table.owner[f] || !(p = dl_cache_file_path(cache, f)))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			xrecalloc(paths, cap, sizeof(*paths));
			xrecalloc(nodes, cap, sizeof(*nodes));
		}
		paths[n] = p;
		nodes[n++] = table.owner[f] - 1;
	}
	agent_channel_set_fetching(paths, nodes, n);
	xfree(paths);
	xfree(nodes);
}

void agent_prefetch_cycle(const snapshot_t *s, const agent_conf_t *c,
			  const dl_plan_t *plan, place_ops_t *ops,
			  const char *pfx)
{
	cyc_t y = { .s = s, .c = c, .plan = plan,
		    .cache = agent_model_cache(), .now = time(NULL),
		    .pfx = pfx };
	int64_t n;

	if (!y.cache || !agent_channel_running() ||
	    s->nnodes != agent_model_nodes()) {
		agent_pfplan_table_free(&table);
		agent_replica_table_free(&rtable);
		return;
	}
	if (pst_n != s->nnodes) {
		xfree(pst);
		pst_n = s->nnodes;
		pst = xcalloc(pst_n ? pst_n : 1, sizeof(*pst));
	}
	_jobs(&y);
	_nodes(&y);
	n = agent_pfplan_select(y.cache, y.jobs, s->njobs, y.nodes, s->nnodes,
				&table, &y.picks);
	if (n >= 0) {
		y.npicks = (size_t)n;
		_publish_owners(y.cache);
		_act(&y);
		_replicas(&y);
		_reasons(&y, ops);
	} else {
		error("%s: prefetch selection: %s", pfx, dl_strerror((int)n));
	}
	_count_active(s->nnodes);
	agent_pfplan_picks_free(y.picks, y.npicks);
	xfree(y.jobs);
	xfree(y.views);
	xfree(y.nodes);
}
