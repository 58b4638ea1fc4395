/* policy.c - the policy registry, plan bookkeeping and parameter parsing. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dl_cost.h"
#include "dl_error.h"
#include "dl_place.h"
#include "dl_policy.h"
#include "policy/policy_util.h"
#include "u64set.h"

extern const dl_policy_ops_t dl__policy_locality;
extern const dl_policy_ops_t dl__policy_online_hps;
extern const dl_policy_ops_t dl__policy_met;
extern const dl_policy_ops_t dl__policy_mct;
extern const dl_policy_ops_t dl__policy_sa;
extern const dl_policy_ops_t dl__policy_jdpdll;
extern const dl_policy_ops_t dl__policy_first_available;
extern const dl_policy_ops_t dl__policy_max_cache_hit;
extern const dl_policy_ops_t dl__policy_max_compute_util;
extern const dl_policy_ops_t dl__policy_good_cache_compute;
extern const dl_policy_ops_t dl__policy_delay;
extern const dl_policy_ops_t dl__policy_hjs;
extern const dl_policy_ops_t dl__policy_assignment;

/* The registry: one line per policy, the default first. */
static const dl_policy_ops_t *const policies[] = {
	&dl__policy_online_hps,
	&dl__policy_locality,
	&dl__policy_met,
	&dl__policy_mct,
	&dl__policy_sa,
	&dl__policy_jdpdll,
	&dl__policy_first_available,
	&dl__policy_max_cache_hit,
	&dl__policy_max_compute_util,
	&dl__policy_good_cache_compute,
	&dl__policy_delay,
	&dl__policy_hjs,
	&dl__policy_assignment,
	NULL,
};

struct dl_policy {
	const dl_policy_ops_t *ops;
	void *priv;
	int bare; /* dl_policy_set_annotate(p, 0): no per-plan figures */
};

const dl_policy_ops_t *const *dl_policy_list(void)
{
	return policies;
}

/* Append ",key=value" to out (room: end) unless params sets key. */
static void _put_param(char *out, size_t len, const char *params,
		       const char *key, double value)
{
	char v[32];
	size_t used = strlen(out);

	if (dl_params_get(params, key, v, sizeof(v)))
		return;
	snprintf(out + used, len - used, "%s%s=%.17g", used ? "," : "", key,
		 value);
}

char *dl_policy_mapping_params(const char *policy, const char *params,
			       const struct dl_place_params *pp)
{
	const char *pre = params ? params : "";
	size_t n = strlen(pre) + 256; /* 6 keys of at most 40 bytes */
	char v[32], *out = malloc(n);
	dl_place_params_t def;

	if (!out)
		return NULL;
	snprintf(out, n, "%s", pre);
	if (!policy || strcmp(policy, "online-hps"))
		return out;
	if (dl_params_get(params, "order", v, sizeof(v))) {
		if (!strcmp(v, "ect"))
			return out; /* the paper's model: no placement rule */
	} else {
		snprintf(out + strlen(out), n - strlen(out), "%sorder=priority",
			 *pre ? "," : "");
	}
	if (!pp) {
		dl_place_params_default(&def);
		pp = &def;
	}
	_put_param(out, n, params, "hysteresis", pp->hysteresis);
	_put_param(out, n, params, "wait_factor", pp->wait_factor);
	_put_param(out, n, params, "min_wait", pp->min_wait);
	_put_param(out, n, params, "max_wait", pp->max_wait);
	_put_param(out, n, params, "strict", pp->strict ? 1 : 0);
	return out;
}

dl_policy_t *dl_policy_create(const char *name, const char *params, int *err)
{
	const dl_policy_ops_t *const *o;
	dl_policy_t *p;
	int rc;

	for (o = policies; *o; o++)
		if (name && !strcmp((*o)->name, name))
			break;
	if (!*o) {
		if (err)
			*err = DL_ENOPOLICY;
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		if (err)
			*err = DL_ENOMEM;
		return NULL;
	}
	p->ops = *o;
	if (p->ops->create && (rc = p->ops->create(params, &p->priv))) {
		free(p);
		if (err)
			*err = rc;
		return NULL;
	}
	if (err)
		*err = DL_OK;
	return p;
}

void dl_policy_destroy(dl_policy_t *p)
{
	if (!p)
		return;
	if (p->ops->destroy)
		p->ops->destroy(p->priv);
	free(p);
}

void dl_policy_set_annotate(dl_policy_t *p, int on)
{
	if (p)
		p->bare = !on;
}

void dl_policy_warm(dl_policy_t *p)
{
	if (p && p->ops->warm)
		p->ops->warm(p->priv);
}

const char *dl_policy_name(const dl_policy_t *p)
{
	return p->ops->name;
}

void dl_plan_free(dl_plan_t *plan)
{
	if (!plan)
		return;
	free(plan->a);
	free(plan->copies);
	free(plan->pins);
	free(plan);
}

/* Append (file, node) to a plan's array of pairs (copies or pins). */
static int _pair_push(dl_copy_t **a, size_t *n, size_t *cap, uint32_t file,
		      uint32_t node)
{
	if (*n >= DL_PLAN_COPIES_MAX)
		return DL_ETOOBIG;
	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;
		dl_copy_t *nc = realloc(*a, ncap * sizeof(*nc));

		if (!nc)
			return DL_ENOMEM;
		*a = nc;
		*cap = ncap;
	}
	(*a)[*n].file = file;
	(*a)[(*n)++].node = node;
	return 0;
}

int dl_plan_add_copy(dl_plan_t *plan, uint32_t file, uint32_t node)
{
	size_t i;

	if (!plan)
		return DL_EINVAL;
	/* Linear: copies per plan are few (a handful per node). */
	for (i = 0; i < plan->ncopies; i++)
		if (plan->copies[i].file == file && plan->copies[i].node == node)
			return 0;
	return _pair_push(&plan->copies, &plan->ncopies, &plan->copies_cap,
			  file, node);
}

int dl__plan_add_pin(dl_plan_t *plan, uint32_t file, uint32_t node)
{
	return _pair_push(&plan->pins, &plan->npins, &plan->pins_cap, file,
			  node);
}

int dl_plan_prefetch(const dl_state_t *st, dl_plan_t *plan, uint32_t per_node,
		     uint64_t budget)
{
	size_t had, had_pins;
	int rc;

	if (!st || !plan || plan->n != st->njobs)
		return DL_EINVAL;
	had = plan->ncopies;
	had_pins = plan->npins;
	rc = dl__plan_prefetch(st, plan, per_node, budget, DL__PF_AGENT);
	if (rc) {
		/* the copies and pins added are forgotten */
		plan->ncopies = had;
		plan->npins = had_pins;
	}
	return rc;
}

/*
 * Connectivity-1 cut (online-hps-khanna §4.1): a file needed on lambda
 * distinct nodes costs (lambda - 1) * size.  Nodes already caching the file
 * count as parts it is connected to, the way the hypergraph ties cached
 * files to their nodes.
 */
static int _plan_cut(const dl_state_t *st, const dl_plan_t *plan,
		     uint64_t *cut)
{
	dl__u64set_t seen;
	uint64_t total = 0;
	size_t i;
	uint32_t k;
	int rc = 0;

	dl__u64set_init(&seen);
	for (i = 0; i < st->njobs && rc >= 0; i++) {
		const dl_job_t *j = &st->jobs[i];
		int32_t node = j->state == DL_JOB_RUNNING ? j->node :
							     plan->a[i].node;

		if (node < 0)
			continue;
		for (k = 0; k < j->nfiles; k++) {
			uint64_t key = ((uint64_t)node << 32) | j->files[k];

			rc = dl__u64set_add(&seen, key);
			if (rc < 0)
				break;
			/*
			 * A new (node, file) pair adds a transfer unless the
			 * node caches the file already; the first transfer of
			 * every file is free under connectivity-1, settled
			 * below.
			 */
			if (rc == 1 &&
			    !dl_cache_contains(st->cache, (uint32_t)node,
					       j->files[k]))
				total += dl_file_bytes(st, j->files[k]);
		}
	}
	if (rc >= 0) {
		/* Subtract one transfer for files on no node yet. */
		dl__u64set_t files;

		dl__u64set_init(&files);
		for (i = 0; i < st->njobs && rc >= 0; i++) {
			const dl_job_t *j = &st->jobs[i];
			int32_t node = j->state == DL_JOB_RUNNING ?
					       j->node : plan->a[i].node;

			if (node < 0)
				continue;
			for (k = 0; k < j->nfiles; k++) {
				uint32_t f = j->files[k];

				if (dl_cache_copies(st->cache, f))
					continue;
				rc = dl__u64set_add(&files, f);
				if (rc == 1)
					total -= dl_file_bytes(st, f);
			}
		}
		dl__u64set_fini(&files);
	}
	dl__u64set_fini(&seen);
	if (rc < 0)
		return rc;
	*cut = total;
	return 0;
}

/*
 * Imbalance: max load / mean load - 1 over the usable nodes, load = the
 * estimated seconds of work per CPU (eq. 6 for pending jobs, remaining
 * time for running ones): the quantity the partitioner balances.
 */
static double _plan_imbalance(const dl_state_t *st, const dl_plan_t *plan)
{
	double *load, sum = 0, max = 0, res;
	uint32_t *sharers = NULL, n, usable = 0;
	size_t i;

	if (!st->nnodes)
		return 0;
	for (n = 0; n < st->nnodes; n++)
		usable += st->nodes[n].usable != 0;
	load = calloc(st->nnodes, sizeof(*load));
	if (!load || dl_cost_sharers(st, &sharers)) {
		free(load);
		return NAN;
	}
	for (i = 0; i < st->njobs; i++) {
		const dl_job_t *j = &st->jobs[i];
		int32_t node = j->state == DL_JOB_RUNNING ? j->node :
							     plan->a[i].node;

		if (node < 0)
			continue;
		load[node] += j->state == DL_JOB_RUNNING ?
				      dl_cost_job_remaining(st, j) :
				      dl_cost_job_estimate(st, j, sharers,
							   usable ? usable : 1);
	}
	for (n = 0; n < st->nnodes; n++) {
		if (!st->nodes[n].usable)
			continue;
		load[n] /= st->nodes[n].cpus;
		sum += load[n];
		if (load[n] > max)
			max = load[n];
	}
	res = (usable && sum > 0) ? max / (sum / usable) - 1.0 : 0.0;
	free(sharers);
	free(load);
	return res;
}

/*
 * A view of st carrying the running jobs' remaining times
 * (dl_state_t.remaining) in *view, *rem owning them; st itself when it
 * has them already (a plan within a plan: the guard's greedy plans) or
 * on ENOMEM (each is then computed where it is needed, as before).
 */
static const dl_state_t *_with_remaining(const dl_state_t *st,
					 dl_state_t *view, double **rem)
{
	size_t i;

	*rem = NULL;
	if (st->remaining ||
	    !(*rem = malloc((st->njobs ? st->njobs : 1) * sizeof(**rem))))
		return st;
	*view = *st;
	view->remaining = NULL; /* computed here, not read */
	for (i = 0; i < st->njobs; i++)
		(*rem)[i] = st->jobs[i].state == DL_JOB_RUNNING ?
				    dl_cost_job_remaining(view, &st->jobs[i]) :
				    0.0;
	view->remaining = *rem;
	return view;
}

int dl_policy_plan(dl_policy_t *p, const dl_state_t *st, dl_plan_t **out)
{
	struct timespec t0, t1;
	const dl_state_t *ps;
	dl_state_t view;
	double *rem;
	dl_plan_t *plan;
	size_t i, nprio, *prio;
	int rc;

	if (!p || !st || !out)
		return DL_EINVAL;
	*out = NULL;
	plan = calloc(1, sizeof(*plan));
	if (!plan)
		return DL_ENOMEM;
	plan->n = st->njobs;
	plan->a = calloc(st->njobs ? st->njobs : 1, sizeof(*plan->a));
	if (!plan->a) {
		free(plan);
		return DL_ENOMEM;
	}
	for (i = 0; i < st->njobs; i++) {
		plan->a[i].job_id = st->jobs[i].id;
		plan->a[i].node = st->jobs[i].state == DL_JOB_RUNNING ?
					  st->jobs[i].node : -1;
	}
	/* Priority order unless the policy orders the queues itself. */
	if (dl_state_priority_order(st, &prio, &nprio)) {
		dl_plan_free(plan);
		return DL_ENOMEM;
	}
	for (i = 0; i < nprio; i++)
		plan->a[prio[i]].order = (double)i;
	free(prio);
	snprintf(plan->policy, sizeof(plan->policy), "%s", p->ops->name);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ps = _with_remaining(st, &view, &rem);
	rc = p->ops->plan(p->priv, ps, plan);
	free(rem);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (rc) {
		dl_plan_free(plan);
		return rc;
	}
	plan->seconds = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	for (i = 0; i < st->njobs; i++) {
		const dl_job_t *j = &st->jobs[i];
		dl_assign_t *a = &plan->a[i];
		uint32_t k;

		if (j->state == DL_JOB_RUNNING)
			a->node = j->node; /* a policy cannot move a running job */
		if (p->bare)
			continue;
		a->nfiles = j->nfiles;
		a->bytes_total = dl_job_bytes(st, j);
		if (a->node < 0)
			continue;
		for (k = 0; k < j->nfiles; k++) {
			if (!dl_cache_contains(st->cache, (uint32_t)a->node,
					       j->files[k]))
				continue;
			a->files_cached++;
			a->bytes_cached += dl_file_bytes(st, j->files[k]);
		}
	}
	if (p->bare) {
		plan->imbalance = NAN;
		*out = plan;
		return 0;
	}
	if ((rc = _plan_cut(st, plan, &plan->cut_bytes))) {
		dl_plan_free(plan);
		return rc;
	}
	plan->imbalance = _plan_imbalance(st, plan);
	*out = plan;
	return 0;
}

int dl_params_get(const char *params, const char *key, char *val,
		  size_t vallen)
{
	size_t klen = strlen(key);
	const char *p = params;

	while (p && *p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len > klen && !strncmp(p, key, klen) && p[klen] == '=') {
			size_t vl = len - klen - 1;

			if (vallen) {
				if (vl >= vallen)
					vl = vallen - 1;
				memcpy(val, p + klen + 1, vl);
				val[vl] = '\0';
			}
			return 1;
		}
		p = end ? end + 1 : NULL;
	}
	return 0;
}

int dl_params_double(const char *params, const char *key, double min,
		     double max, double *out)
{
	char buf[64], *end;
	double v;

	if (!dl_params_get(params, key, buf, sizeof(buf)))
		return 0;
	v = strtod(buf, &end);
	if (end == buf || *end || !(v >= min && v <= max))
		return DL_EINVAL;
	*out = v;
	return 0;
}

/* Planned jobs by node, then plan order, then index. */
static int _cmp_planned(const void *a, const void *b, void *arg)
{
	const dl_plan_t *plan = arg;
	const dl_assign_t *x = &plan->a[*(const size_t *)a];
	const dl_assign_t *y = &plan->a[*(const size_t *)b];

	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	if (x->order != y->order)
		return x->order < y->order ? -1 : 1;
	return (*(const size_t *)a > *(const size_t *)b) -
	       (*(const size_t *)a < *(const size_t *)b);
}

int dl_plan_starts(const dl_state_t *st, const dl_plan_t *plan,
		   dl_start_t **out, size_t *n)
{
	size_t *idx = NULL, *prio = NULL, nidx = 0, nprio, i, k = 0;
	uint32_t *room = NULL, node;
	dl_start_t *starts = NULL;
	uint8_t *blocked = NULL;

	if (!st || !plan || !out || !n || plan->n != st->njobs)
		return DL_EINVAL;
	idx = malloc((st->njobs ? st->njobs : 1) * sizeof(*idx));
	room = calloc(st->nnodes ? st->nnodes : 1, sizeof(*room));
	blocked = calloc(st->nnodes ? st->nnodes : 1, 1);
	starts = malloc((st->njobs ? st->njobs : 1) * sizeof(*starts));
	if (!idx || !room || !blocked || !starts ||
	    dl_state_priority_order(st, &prio, &nprio)) {
		free(idx);
		free(room);
		free(blocked);
		free(starts);
		return DL_ENOMEM;
	}
	for (node = 0; node < st->nnodes; node++)
		if (st->nodes[node].usable &&
		    st->nodes[node].cpus > st->nodes[node].busy)
			room[node] = st->nodes[node].cpus - st->nodes[node].busy;
	for (i = 0; i < st->njobs; i++)
		if (st->jobs[i].state == DL_JOB_PENDING && plan->a[i].node >= 0 &&
		    (uint32_t)plan->a[i].node < st->nnodes)
			idx[nidx++] = i;
	qsort_r(idx, nidx, sizeof(*idx), _cmp_planned, (void *)plan);
	for (i = 0; i < nidx; i++) {
		const dl_job_t *j = &st->jobs[idx[i]];

		node = (uint32_t)plan->a[idx[i]].node;
		/* A node's queue is served in order: no overtaking. */
		if (blocked[node] || room[node] < j->cpus) {
			blocked[node] = 1;
			continue;
		}
		room[node] -= j->cpus;
		starts[k].job = (uint32_t)idx[i];
		starts[k++].node = node;
	}
	for (i = 0; i < nprio; i++) {
		const dl_job_t *j = &st->jobs[prio[i]];

		if (plan->a[prio[i]].node >= 0)
			continue;
		for (node = 0; node < st->nnodes; node++)
			if (room[node] >= j->cpus &&
			    dl_state_job_eligible(st, j, node))
				break;
		if (node == st->nnodes)
			continue;
		room[node] -= j->cpus;
		starts[k].job = (uint32_t)prio[i];
		starts[k++].node = node;
	}
	free(idx);
	free(prio);
	free(room);
	free(blocked);
	*out = starts;
	*n = k;
	return 0;
}
