/* check_suites.h - one Check suite per library module. */
#ifndef CHECK_SUITES_H
#define CHECK_SUITES_H

#include <check.h>

Suite *make_files_suite(void);
Suite *make_cache_suite(void);
Suite *make_policy_suite(void);

#endif /* CHECK_SUITES_H */
