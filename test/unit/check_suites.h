/* check_suites.h - one Check suite per library module. */
#ifndef CHECK_SUITES_H
#define CHECK_SUITES_H

#include <check.h>

Suite *make_files_suite(void);
Suite *make_pattern_suite(void);
Suite *make_acct_suite(void);
Suite *make_script_suite(void);
Suite *make_cache_suite(void);
Suite *make_policy_suite(void);
Suite *make_cost_suite(void);
Suite *make_order_suite(void);
Suite *make_hgraph_suite(void);
Suite *make_partition_suite(void);
Suite *make_partition_retry_suite(void);
Suite *make_partition_bg_suite(void);
Suite *make_baselines_suite(void);
Suite *make_hjs_suite(void);
Suite *make_assignment_suite(void);
Suite *make_anthill_suite(void);
Suite *make_persist_suite(void);
Suite *make_sim_suite(void);
Suite *make_stage_suite(void);
Suite *make_place_suite(void);
Suite *make_place_set_suite(void);
Suite *make_provision_suite(void);
Suite *make_net_suite(void);
Suite *make_cached_suite(void);
Suite *make_agent_inv_suite(void);
Suite *make_agent_pfplan_suite(void);
Suite *make_agent_replica_suite(void);
Suite *make_agent_gate_suite(void);
Suite *make_agent_credit_suite(void);
Suite *make_agent_rates_suite(void);
Suite *make_agent_window_suite(void);
Suite *make_agent_due_suite(void);
Suite *make_agent_poll_suite(void);
Suite *make_agent_ended_suite(void);
Suite *make_agent_snapfp_suite(void);
Suite *make_agent_fnv_suite(void);
Suite *make_agent_reconf_suite(void);
Suite *make_options_suite(void);
Suite *make_stats_suite(void);
Suite *make_zoo_suite(void);
Suite *make_plan_follow_suite(void);
Suite *make_plan_guard_suite(void);
Suite *make_simscale_suite(void);
Suite *make_simpace_suite(void);
Suite *make_simkeep_suite(void);
Suite *make_simquota_suite(void);
Suite *make_submit_suite(void);

#endif /* CHECK_SUITES_H */
