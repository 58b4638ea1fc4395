/*
 * check_simpace.c - dl-sim's paced plans (src/sim/pace.h; the carried
 * passes of sim.c).  Paced uniformly (--replan-min-interval S under the
 * slurm dispatch): a job with input that comes between plans starts only
 * once a plan placed it, a job without input is not held, no two full
 * plans come closer than S.  Paced as the plugin's agent (--agent-cycle
 * S): an arrival plans one agent poll later (0.01 s), a job's start or
 * end within 0.1 s, the rest at S; the option is refused where it would
 * not model the agent.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check_suites.h"
#include "dl_error.h"
#include "agent_window.h"
#include "options.h"
#include "pace.h"
#include "sim.h"
#include "sim_fx.h"
#include "workload.h"

#define EPS 1e-9

/*
 * Parse "dl-sim --policy locality --workload biomed ARGS..." into *a;
 * RET what dl_sim_args_parse() returns, err its message.
 */
static int _parse(dl_sim_args_t *a, char *err, size_t len,
		  const char *const *args)
{
	char *argv[16] = { "dl-sim", "--policy", "locality", "--workload",
			   "biomed" };
	int n = 5;

	while (*args && n < 15)
		argv[n++] = (char *)*args++;
	argv[n] = NULL;
	err[0] = '\0';
	return dl_sim_args_parse(n, argv, a, stdout, err, len);
}

#define ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })

/*
 * The sim_fx platform under the slurm dispatch, full plans at most every
 * cycle s (NULL: at every event): as --agent-cycle cycle sets it if
 * agent, else uniformly (--replan-min-interval).
 */
static void _cfg(dl_sim_config_t *c, uint32_t nodes, const char *cycle,
		 int agent)
{
	dl_sim_args_t a;
	char err[256];

	fx_sim_config(c, nodes, 1, 1);
	c->policy = "locality";
	if (!cycle)
		return;
	ck_assert_int_eq(_parse(&a, err, sizeof(err),
				agent ? ARGS("--agent-cycle", cycle) :
					ARGS("--dispatch", "slurm",
					     "--replan-min-interval", cycle)),
			 DL_SIM_ARGS_RUN);
	ck_assert_int_eq(a.cfg.agent_pace, agent);
	c->dispatch = a.cfg.dispatch;
	c->replan_min_interval = a.cfg.replan_min_interval;
	c->agent_pace = a.cfg.agent_pace;
}

/*
 * 3 nodes of 1 slot.  Job 1 (file A) comes at 0: the first plan places it
 * on n0, where it runs 100 s.  Job 2 (file B) comes at 0.5, job 3 (no
 * file) at 0.6, with n1 and n2 idle.  At every event, each is planned
 * and starts when it comes.  Paced uniformly at 1 s, the next plan is due
 * at 1: job 2 waits for it, as at the plugin's submit gate; job 3 has
 * nothing to place, is not gated, and starts at 0.6.  Paced as the agent
 * (--agent-cycle 1), a plan is due when job 2 comes: no plan has seen
 * job 1's start at 0 yet, and the node pace (0.1 s) is over, as the
 * agent's cycle would be due for the node's state: it starts at 0.5.
 * (The arrival rule on its own: below.)
 */
START_TEST(test_gate_between_plans)
{
	dl_workload_t *wl = dl_workload_create("test");
	dl_sim_config_t c;
	dl_sim_result_t *r;
	uint32_t fa = 0, fb = 1;

	ck_assert_int_eq(dl_workload_add_file(wl, "/a", 100000000, -1), 0);
	ck_assert_int_eq(dl_workload_add_file(wl, "/b", 1000000, -1), 1);
	fx_sim_job(wl, 1, 0.0, 100.0, &fa, 1);
	fx_sim_job(wl, 2, 0.5, 1.0, &fb, 1);
	fx_sim_job(wl, 3, 0.6, 1.0, NULL, 0);

	_cfg(&c, 3, NULL, 0);
	r = fx_sim_run(&c, wl);
	ck_assert_uint_eq(r->completed, 3);
	ck_assert_double_eq_tol(r->jobs[1].dispatch, 0.5, EPS);
	ck_assert_double_eq_tol(r->jobs[2].dispatch, 0.6, EPS);
	ck_assert_uint_eq(r->carried, 0);
	dl_sim_result_free(r);

	_cfg(&c, 3, "1", 0);
	ck_assert_int_eq(c.dispatch, DL_DISPATCH_SLURM);
	r = fx_sim_run(&c, wl);
	ck_assert_uint_eq(r->completed, 3);
	ck_assert_int_eq(r->jobs[0].node, 0);
	ck_assert_double_eq_tol(r->jobs[0].dispatch, 0.0, EPS);
	ck_assert_double_eq_tol(r->jobs[1].dispatch, 1.0, EPS);
	ck_assert_int_ne(r->jobs[1].node, 0);
	ck_assert_double_eq_tol(r->jobs[2].dispatch, 0.6, EPS);
	/* The plans at 0 and 1; the passes at 0.5 and 0.6 carried. */
	ck_assert_uint_eq(r->plans, 2);
	ck_assert_uint_eq(r->carried, 2);
	dl_sim_result_free(r);

	_cfg(&c, 3, "1", 1);
	r = fx_sim_run(&c, wl);
	ck_assert_uint_eq(r->completed, 3);
	ck_assert_int_eq(r->jobs[0].node, 0);
	ck_assert_double_eq_tol(r->jobs[1].dispatch, 0.5, EPS);
	ck_assert_int_ne(r->jobs[1].node, 0);
	ck_assert_double_eq_tol(r->jobs[2].dispatch, 0.6, EPS);
	dl_sim_result_free(r);
	dl_workload_destroy(wl);

	/*
	 * Job 2 at 0.05, before the node pace (0.1) after job 1's start
	 * would make a plan due: its own arrival does, one agent poll
	 * (DL_SIM_PACE_POLL_S) later.
	 */
	wl = dl_workload_create("test");
	ck_assert_int_eq(dl_workload_add_file(wl, "/a", 100000000, -1), 0);
	ck_assert_int_eq(dl_workload_add_file(wl, "/b", 1000000, -1), 1);
	fx_sim_job(wl, 1, 0.0, 100.0, &fa, 1);
	fx_sim_job(wl, 2, 0.05, 1.0, &fb, 1);
	r = fx_sim_run(&c, wl);
	ck_assert_uint_eq(r->completed, 2);
	ck_assert_double_eq_tol(r->jobs[1].dispatch,
				0.05 + DL_SIM_PACE_POLL_S, EPS);
	dl_sim_result_free(r);
	dl_workload_destroy(wl);
}

END_TEST

/*
 * A biomed trace busy enough that dl-sim plans more than once a second at
 * every event: paced uniformly at 1 s, at most one full plan per
 * simulated second (from the first arrival to the last end, plus the
 * first plan), every job still done, and the per-event run unchanged by
 * the option's existence (it plans more than the bound).  Paced as the
 * agent (--agent-cycle 1): more plans than uniformly (each arrival with a
 * slot free plans), fewer than at every event (a file staged or a wait
 * run out waits for the second), and at most one per arrival and per
 * tenth of a second besides.
 */
START_TEST(test_plans_bounded)
{
	dl_wl_biomed_opts_t o;
	dl_wl_arrival_opts_t ao;
	dl_wl_platform_t pf;
	dl_workload_t *wl;
	dl_sim_config_t c;
	dl_sim_result_t *r;
	double first = INFINITY, last = 0, bound;
	size_t i, uniform, agent;

	dl_wl_biomed_opts_default(&o);
	o.jobs = 300;
	wl = dl_workload_gen_biomed(&o, 3);
	ck_assert_ptr_nonnull(wl);
	dl_wl_arrival_opts_default(&ao);
	ao.load = 2;
	pf.nodes = 16;
	pf.slots = 16;
	dl_params_default(&pf.params);
	ck_assert_int_eq(dl_workload_set_arrivals(wl, &pf, &ao, 11, NULL), 0);
	/* Arrivals 10x closer: several events a simulated second. */
	dl_workload_scale_time(wl, 0.1);

	_cfg(&c, 16, "1", 0);
	r = fx_sim_run(&c, wl);
	ck_assert_uint_eq(r->completed, 300);
	for (i = 0; i < r->njobs; i++) {
		first = fmin(first, r->jobs[i].arrival);
		last = fmax(last, r->jobs[i].end);
	}
	bound = floor(last - first) + 1;
	ck_assert_msg((double)r->plans <= bound, "%zu plans over %.1f s",
		      r->plans, last - first);
	ck_assert_uint_gt(r->carried, 0);
	uniform = r->plans;
	ck_assert_uint_eq(r->plans_why[DL_SIM_PACE_ARRIVAL], 0);
	ck_assert_uint_eq(r->plans_why[DL_SIM_PACE_NODE], 0);
	ck_assert_uint_eq(r->plans_why[DL_SIM_PACE_EVENT] +
			  r->plans_why[DL_SIM_PACE_INTERVAL], uniform);
	dl_sim_result_free(r);

	_cfg(&c, 16, "1", 1);
	r = fx_sim_run(&c, wl);
	ck_assert_uint_eq(r->completed, 300);
	agent = r->plans;
	ck_assert_msg(agent > uniform, "agent %zu, uniform %zu", agent,
		      uniform);
	ck_assert_msg((double)agent <= 300 + floor((last - first) / 0.1) + 1,
		      "agent: %zu plans over %.1f s", agent, last - first);
	/* Each rule woke some plans, and every plan is counted once. */
	ck_assert_uint_gt(r->plans_why[DL_SIM_PACE_ARRIVAL], 0);
	ck_assert_uint_gt(r->plans_why[DL_SIM_PACE_NODE], 0);
	ck_assert_uint_gt(r->plans_why[DL_SIM_PACE_INTERVAL], 0);
	ck_assert_uint_eq(r->plans_why[DL_SIM_PACE_EVENT] +
			  r->plans_why[DL_SIM_PACE_INTERVAL] +
			  r->plans_why[DL_SIM_PACE_ARRIVAL] +
			  r->plans_why[DL_SIM_PACE_NODE], agent);
	ck_assert_uint_gt(r->carried, 0);
	dl_sim_result_free(r);

	_cfg(&c, 16, NULL, 0);
	r = fx_sim_run(&c, wl);
	ck_assert_uint_eq(r->completed, 300);
	ck_assert_msg((double)r->plans > bound,
		      "per event: %zu plans, not above %.0f: the trace is too slow to test the bound",
		      r->plans, bound);
	ck_assert_msg(r->plans > agent, "per event %zu, agent %zu", r->plans,
		      agent);
	dl_sim_result_free(r);
	dl_workload_destroy(wl);
}

END_TEST

/*
 * pace.h on its own: every event plans with no interval; uniformly, only
 * S after the last plan; as the agent, an arrival one poll later
 * (DL_SIM_PACE_POLL_S), a start or end DL_SIM_PACE_NODE_S after the last
 * plan (never later than S), and the wake-up asked for accordingly.
 */
START_TEST(test_pace_rules)
{
	dl_sim_pace_t p;

	dl_sim_pace_init(&p, 0, 1);
	ck_assert_int_eq(p.agent, 0);
	ck_assert(dl_sim_pace_due(&p, 0, 0));
	dl_sim_pace_planned(&p, 5);
	ck_assert(dl_sim_pace_due(&p, 5, 0));

	dl_sim_pace_init(&p, 1, 0);
	ck_assert(dl_sim_pace_due(&p, 3, 0)); /* no plan yet */
	dl_sim_pace_planned(&p, 3);
	dl_sim_pace_arrival(&p, 3.1);
	dl_sim_pace_moved(&p);
	ck_assert(!dl_sim_pace_due(&p, 3.5, 0));
	ck_assert(dl_sim_pace_due(&p, 3.5, 1));
	ck_assert_double_eq(dl_sim_pace_next(&p), 4);
	ck_assert(dl_sim_pace_due(&p, 4, 0));

	dl_sim_pace_init(&p, 1, 1);
	dl_sim_pace_planned(&p, 3);
	ck_assert(!dl_sim_pace_due(&p, 3.05, 0));
	ck_assert_double_eq(dl_sim_pace_next(&p), 4);
	dl_sim_pace_moved(&p);
	ck_assert(!dl_sim_pace_due(&p, 3.05, 0));
	ck_assert_double_eq(dl_sim_pace_next(&p), 3 + DL_SIM_PACE_NODE_S);
	ck_assert(dl_sim_pace_due(&p, 3 + DL_SIM_PACE_NODE_S, 0));
	dl_sim_pace_planned(&p, 3.2);
	ck_assert(!dl_sim_pace_due(&p, 3.21, 0));
	/*
	 * Arrivals: the first since the plan makes one due a poll after
	 * it, and the ones in between join that plan.
	 */
	dl_sim_pace_arrival(&p, 3.21);
	ck_assert(!dl_sim_pace_due(&p, 3.21, 0));
	dl_sim_pace_arrival(&p, 3.215);
	ck_assert_double_eq(dl_sim_pace_next(&p), 3.21 + DL_SIM_PACE_POLL_S);
	ck_assert(dl_sim_pace_due(&p, 3.21 + DL_SIM_PACE_POLL_S, 0));
	ck_assert_int_eq(dl_sim_pace_why(&p, 3.21 + DL_SIM_PACE_POLL_S),
			 DL_SIM_PACE_ARRIVAL);
	dl_sim_pace_planned(&p, 3.22);
	ck_assert(!dl_sim_pace_due(&p, 3.23, 0));
	ck_assert(dl_sim_pace_due(&p, 4.25, 0));

	/* A cycle shorter than the node pace bounds it. */
	dl_sim_pace_init(&p, 0.05, 1);
	dl_sim_pace_planned(&p, 1);
	dl_sim_pace_moved(&p);
	ck_assert_double_eq(dl_sim_pace_next(&p), 1.05);
}

END_TEST

/*
 * The agent's window: 700 jobs with input queued at once on 4 one-slot
 * nodes.  Paced as the agent, no plan sees more than the window of
 * agent_window.h with Slurm's defaults (agent_window_size(): 500 plus a
 * job per free CPU), and --window overrides it; at
 * every event a plan sees the whole queue.
 */
START_TEST(test_agent_window)
{
	dl_workload_t *wl = dl_workload_create("test");
	agent_window_sched_t sched;
	dl_sim_config_t c;
	dl_sim_result_t *r;
	uint32_t f = 0;

	agent_window_sched_parse(NULL, &sched);
	ck_assert_uint_eq(DL_SIM_PACE_WINDOW + 4,
			  agent_window_size(&sched, 0, 4));
	ck_assert_int_eq(dl_workload_add_file(wl, "/a", 1000000, -1), 0);
	for (uint32_t i = 0; i < 700; i++)
		fx_sim_job(wl, i + 1, 0.001 * i, 5.0, &f, 1);

	_cfg(&c, 4, "1", 1);
	r = fx_sim_run(&c, wl);
	ck_assert_uint_eq(r->completed, 700);
	/* A plan comes only while a slot is free: 1 to 4 of them. */
	ck_assert_uint_ge(r->max_shown, DL_SIM_PACE_WINDOW + 1);
	ck_assert_uint_le(r->max_shown, DL_SIM_PACE_WINDOW + 4);
	dl_sim_result_free(r);

	c.window = 50;
	r = fx_sim_run(&c, wl);
	ck_assert_uint_eq(r->completed, 700);
	ck_assert_uint_eq(r->max_shown, 50);
	dl_sim_result_free(r);

	_cfg(&c, 4, NULL, 0);
	r = fx_sim_run(&c, wl);
	ck_assert_uint_eq(r->completed, 700);
	ck_assert_uint_gt(r->max_shown, DL_SIM_PACE_WINDOW + 4);
	dl_sim_result_free(r);
	dl_workload_destroy(wl);
}

END_TEST

/* Where --agent-cycle would not model the agent, it is refused. */
START_TEST(test_option_refused)
{
	dl_sim_args_t a;
	char err[256];

	ck_assert_int_eq(_parse(&a, err, sizeof(err),
				ARGS("--agent-cycle", "0.5")),
			 DL_SIM_ARGS_RUN);
	ck_assert_double_eq(a.cfg.replan_min_interval, 0.5);
	ck_assert_int_eq(a.cfg.agent_pace, 1);
	ck_assert_int_eq(_parse(&a, err, sizeof(err), ARGS("--dispatch",
							    "slurm")),
			 DL_SIM_ARGS_RUN);
	ck_assert_double_eq(a.cfg.replan_min_interval, 0);
	ck_assert_int_eq(a.cfg.agent_pace, 0);

	ck_assert_int_eq(_parse(&a, err, sizeof(err),
				ARGS("--agent-cycle", "1", "--dispatch",
				     "plan")),
			 DL_EINVAL);
	ck_assert_msg(strstr(err, "--dispatch slurm"), "%s", err);
	ck_assert_int_eq(_parse(&a, err, sizeof(err),
				ARGS("--dispatch", "plan", "--agent-cycle",
				     "1")),
			 DL_EINVAL);
	ck_assert_int_eq(_parse(&a, err, sizeof(err),
				ARGS("--agent-cycle", "1",
				     "--replan-min-interval", "2")),
			 DL_EINVAL);
	ck_assert_msg(strstr(err, "--replan-min-interval"), "%s", err);
	/* Longer than the gate's least bound, or no pacing at all. */
	ck_assert_int_eq(_parse(&a, err, sizeof(err),
				ARGS("--agent-cycle", "4")),
			 DL_EINVAL);
	ck_assert_int_eq(_parse(&a, err, sizeof(err),
				ARGS("--agent-cycle", "0")),
			 DL_EINVAL);
}

END_TEST

Suite *make_simpace_suite(void)
{
	Suite *s = suite_create("simpace");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_gate_between_plans);
	tcase_add_test(tc, test_plans_bounded);
	tcase_add_test(tc, test_pace_rules);
	tcase_add_test(tc, test_agent_window);
	tcase_add_test(tc, test_option_refused);
	suite_add_tcase(s, tc);
	return s;
}
