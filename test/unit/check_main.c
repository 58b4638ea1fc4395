/* check_main.c - runs every module's suite; exit status is the verdict. */
#include <stdlib.h>

#include "check_suites.h"

int main(void)
{
	SRunner *sr = srunner_create(make_files_suite());
	int failed;

	srunner_add_suite(sr, make_pattern_suite());
	srunner_add_suite(sr, make_script_suite());
	srunner_add_suite(sr, make_cache_suite());
	srunner_add_suite(sr, make_policy_suite());
	srunner_add_suite(sr, make_cost_suite());
	srunner_add_suite(sr, make_order_suite());
	srunner_add_suite(sr, make_hgraph_suite());
	srunner_add_suite(sr, make_partition_suite());
	srunner_add_suite(sr, make_baselines_suite());
	srunner_add_suite(sr, make_hjs_suite());
	srunner_add_suite(sr, make_assignment_suite());
	srunner_add_suite(sr, make_anthill_suite());
	srunner_add_suite(sr, make_persist_suite());
	srunner_add_suite(sr, make_sim_suite());
	srunner_add_suite(sr, make_stage_suite());
	srunner_add_suite(sr, make_place_suite());
	srunner_add_suite(sr, make_provision_suite());
	srunner_add_suite(sr, make_net_suite());
	srunner_add_suite(sr, make_cached_suite());
	srunner_add_suite(sr, make_agent_inv_suite());
	srunner_add_suite(sr, make_agent_pfplan_suite());
	srunner_add_suite(sr, make_agent_replica_suite());
	srunner_add_suite(sr, make_agent_gate_suite());
	srunner_add_suite(sr, make_agent_window_suite());
	srunner_add_suite(sr, make_options_suite());
	srunner_add_suite(sr, make_stats_suite());
	srunner_add_suite(sr, make_zoo_suite());
	srunner_add_suite(sr, make_plan_follow_suite());
	srunner_add_suite(sr, make_plan_guard_suite());
	srunner_add_suite(sr, make_submit_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
