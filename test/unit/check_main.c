/* check_main.c - runs every module's suite; exit status is the verdict. */
/* setenv() is POSIX, not C11. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>

#include "check_suites.h"

/*
 * Check bounds every test, from its fork to its exit (fixtures and the
 * sanitizers' leak scan at exit included), by 4 s unless a suite says
 * otherwise.  On a 2-core host at load 30-50, tests that need a few
 * milliseconds took longer than that under ASan (issue 29).  No test here
 * measures speed, so the bound is only there to end a hung test: the same
 * generous one for every test, set here so that make check, make
 * distcheck and a bare run all get it.  CK_DEFAULT_TIMEOUT overrides it;
 * Check multiplies it by CK_TIMEOUT_MULTIPLIER.  It must be set before
 * the first tcase_create(), which reads it.
 */
#define DL_CHECK_TIMEOUT "300"

int main(void)
{
	SRunner *sr;
	int failed;

	setenv("CK_DEFAULT_TIMEOUT", DL_CHECK_TIMEOUT, 0);
	sr = srunner_create(make_files_suite());
	srunner_add_suite(sr, make_pattern_suite());
	srunner_add_suite(sr, make_acct_suite());
	srunner_add_suite(sr, make_script_suite());
	srunner_add_suite(sr, make_cache_suite());
	srunner_add_suite(sr, make_policy_suite());
	srunner_add_suite(sr, make_cost_suite());
	srunner_add_suite(sr, make_order_suite());
	srunner_add_suite(sr, make_hgraph_suite());
	srunner_add_suite(sr, make_partition_suite());
	srunner_add_suite(sr, make_partition_retry_suite());
	srunner_add_suite(sr, make_partition_bg_suite());
	srunner_add_suite(sr, make_baselines_suite());
	srunner_add_suite(sr, make_hjs_suite());
	srunner_add_suite(sr, make_assignment_suite());
	srunner_add_suite(sr, make_anthill_suite());
	srunner_add_suite(sr, make_persist_suite());
	srunner_add_suite(sr, make_sim_suite());
	srunner_add_suite(sr, make_stage_suite());
	srunner_add_suite(sr, make_place_suite());
	srunner_add_suite(sr, make_place_set_suite());
	srunner_add_suite(sr, make_provision_suite());
	srunner_add_suite(sr, make_net_suite());
	srunner_add_suite(sr, make_cached_suite());
	srunner_add_suite(sr, make_agent_inv_suite());
	srunner_add_suite(sr, make_agent_pfplan_suite());
	srunner_add_suite(sr, make_agent_replica_suite());
	srunner_add_suite(sr, make_agent_gate_suite());
	srunner_add_suite(sr, make_agent_credit_suite());
	srunner_add_suite(sr, make_agent_rates_suite());
	srunner_add_suite(sr, make_agent_window_suite());
	srunner_add_suite(sr, make_agent_due_suite());
	srunner_add_suite(sr, make_agent_poll_suite());
	srunner_add_suite(sr, make_agent_ended_suite());
	srunner_add_suite(sr, make_agent_snapfp_suite());
	srunner_add_suite(sr, make_agent_fnv_suite());
	srunner_add_suite(sr, make_agent_reconf_suite());
	srunner_add_suite(sr, make_options_suite());
	srunner_add_suite(sr, make_stats_suite());
	srunner_add_suite(sr, make_zoo_suite());
	srunner_add_suite(sr, make_plan_follow_suite());
	srunner_add_suite(sr, make_plan_guard_suite());
	srunner_add_suite(sr, make_simscale_suite());
	srunner_add_suite(sr, make_simpace_suite());
	srunner_add_suite(sr, make_simkeep_suite());
	srunner_add_suite(sr, make_simquota_suite());
	srunner_add_suite(sr, make_submit_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
