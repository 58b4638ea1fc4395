/* sim_fx.c - fixtures for dl-sim's unit tests; see sim_fx.h. */
#include <check.h>

#include "sim_fx.h"

void fx_sim_config(dl_sim_config_t *c, uint32_t nodes, uint32_t cores,
		   uint32_t storage)
{
	dl_sim_config_default(c);
	c->nodes = nodes;
	c->cores = cores;
	c->storage = storage;
	c->cache_bytes = DL_CACHE_UNLIMITED;
	c->params.rbw = 1e8;
	c->params.lbw = 5e8;
	c->params.cpb = 0;
	c->check = 1;
}

dl_sim_result_t *fx_sim_run(const dl_sim_config_t *c, const dl_workload_t *wl)
{
	dl_sim_result_t *r = NULL;
	char err[256];
	int rc = dl_sim_run(c, wl, &r, err, sizeof(err));

	ck_assert_msg(rc == 0, "dl_sim_run: %d %s", rc, err);
	ck_assert_ptr_nonnull(r);
	return r;
}

void fx_sim_job(dl_workload_t *wl, uint32_t id, double arrival,
		double compute, const uint32_t *files, uint32_t n)
{
	dl_wl_job_t j = { 0 };

	j.id = id;
	j.arrival = arrival;
	j.compute = compute;
	j.cpus = 1;
	j.files = (uint32_t *)files;
	j.nfiles = n;
	ck_assert_int_eq(dl_workload_add_job(wl, &j), 0);
}
