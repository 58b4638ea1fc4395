/* fixture.c - see fixture.h. */
#include <stdio.h>
#include <string.h>

#include <check.h>

#include "fixture.h"

dl_cache_t *fx_cache;
dl_state_t *fx_state;

void fx_setup(uint32_t nnodes, uint32_t cpus, const dl_params_t *params,
	      dl_evict_t evict)
{
	char name[16];
	uint32_t i;

	fx_cache = dl_cache_create(nnodes, evict, 1);
	ck_assert_ptr_nonnull(fx_cache);
	fx_state = dl_state_create(fx_cache, params);
	ck_assert_ptr_nonnull(fx_state);
	for (i = 0; i < nnodes; i++) {
		snprintf(name, sizeof(name), "n%u", i + 1);
		ck_assert_int_eq(dl_state_add_node(fx_state, name, cpus, 1),
				 (int)i);
	}
}

void fx_setup_toy(uint32_t nnodes, dl_evict_t evict)
{
	dl_params_t p;

	dl_params_default(&p);
	p.rbw = 100;
	p.lbw = 500;
	p.cpb = 1e-3;
	p.nstorage = 1;
	fx_setup(nnodes, 1, &p, evict);
}

void fx_plan(dl_plan_t *plan, dl_assign_t *a, const int32_t *nodes)
{
	size_t i, n = fx_state->njobs;

	memset(plan, 0, sizeof(*plan));
	memset(a, 0, n * sizeof(*a));
	plan->n = n;
	plan->a = a;
	for (i = 0; i < n; i++) {
		a[i].job_id = fx_state->jobs[i].id;
		a[i].node = fx_state->jobs[i].state == DL_JOB_PENDING ?
				    nodes[i] :
				    -1;
		a[i].order = (double)i;
	}
}

void fx_teardown(void)
{
	dl_state_destroy(fx_state);
	dl_cache_destroy(fx_cache);
	fx_state = NULL;
	fx_cache = NULL;
}

uint32_t fx_job(uint32_t id, const uint32_t *files, uint32_t n,
		dl_job_state_t state, int32_t node)
{
	dl_job_t j = { 0 };
	int idx;

	j.id = id;
	j.state = state;
	j.files = (uint32_t *)files;
	j.nfiles = n;
	j.cpus = 1;
	j.arrival = id;
	j.compute = -1;
	j.node = node;
	idx = dl_state_add_job(fx_state, &j);
	ck_assert_int_ge(idx, 0);
	return (uint32_t)idx;
}

uint32_t fx_file(const char *path, uint64_t size)
{
	int64_t id = dl_cache_file_intern(fx_cache, path, size);

	ck_assert_int_ge(id, 0);
	return (uint32_t)id;
}
