/*
 * check_agent_rates.c - the copy rates learned from the nodes' reports
 * (agent_rates.h): the ratio of decayed sums, small copies and unknown
 * times ignored, implausible reports refused, the prior until enough was
 * seen, LearnRates=no and capped, the log line of a change of source,
 * the REPORT's new keys (an older service omits them: 0) and the queue
 * feeding the rates, and the rates file, written and restored.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_suites.h"
#include "dl_net.h"
#include "dl_net_msg.h"
#include "agent_acct.h"
#include "agent_rates.h"

#define MIB ((uint64_t)1 << 20)

static agent_rates_conf_t _conf(agent_rates_mode_t mode, uint32_t reports)
{
	agent_rates_conf_t c = { .mode = mode, .min_bytes = 16 * MIB,
				 .min_reports = reports };

	c.prior[AGENT_RATE_STORAGE] = 100e6;
	c.prior[AGENT_RATE_PEER] = 1e9;
	return c;
}

/* Apply c once so that its min_bytes is the one the notes use. */
static void _start(const agent_rates_conf_t *c)
{
	double used[AGENT_RATE_KINDS];

	agent_rates_reset();
	agent_rates_apply(c, used, NULL, 0);
}

START_TEST(test_rates_ratio_and_decay)
{
	agent_rates_conf_t c = _conf(AGENT_RATES_ON, 1);
	agent_rate_t r;
	double b, s;

	_start(&c);
	/* One report: exactly its own rate. */
	ck_assert_int_eq(agent_rates_note(AGENT_RATE_PEER, 64 * MIB, 1000000), 1);
	agent_rates_get(AGENT_RATE_PEER, &r);
	ck_assert_uint_eq(r.taken, 1);
	ck_assert(fabs(r.learned - 64.0 * MIB) < 1e-6);
	/* A second, four times slower: the decayed ratio of the sums. */
	ck_assert_int_eq(agent_rates_note(AGENT_RATE_PEER, 64 * MIB, 4000000), 1);
	agent_rates_get(AGENT_RATE_PEER, &r);
	b = 64.0 * MIB * AGENT_RATES_DECAY + 64.0 * MIB;
	s = 1.0 * AGENT_RATES_DECAY + 4.0;
	ck_assert(fabs(r.learned - b / s) < 1e-3);
	ck_assert(r.learned > 16.0 * MIB && r.learned < 64.0 * MIB);
	/* The storage rate is its own. */
	agent_rates_get(AGENT_RATE_STORAGE, &r);
	ck_assert_uint_eq(r.taken, 0);
	ck_assert(r.learned == 0);
}
END_TEST

/* After a change, the rate comes within 5% of the new one. */
START_TEST(test_rates_follow_change)
{
	agent_rates_conf_t c = _conf(AGENT_RATES_ON, 1);
	agent_rate_t r;
	int n = 0;

	_start(&c);
	for (int i = 0; i < 50; i++)
		agent_rates_note(AGENT_RATE_STORAGE, 100 * MIB, 100000); /* 1 GiB/s */
	do {
		agent_rates_note(AGENT_RATE_STORAGE, 100 * MIB, 10000000);
		agent_rates_get(AGENT_RATE_STORAGE, &r);
		n++;
	} while (r.learned > 10.0 * MIB * 1.05 && n < 1000);
	/* Within some tens of reports, as the header says: not never. */
	ck_assert_int_lt(n, 40);
	ck_assert_int_gt(n, 3); /* and not one report's whim */
	/* Bounded: the sums do not grow without end. */
	ck_assert(r.bytes < 100.0 * MIB / (1 - AGENT_RATES_DECAY) + 1);
}
END_TEST

START_TEST(test_rates_ignored)
{
	agent_rates_conf_t c = _conf(AGENT_RATES_ON, 1);
	agent_rate_t r;

	_start(&c);
	/* Nothing copied: not even counted. */
	ck_assert_int_eq(agent_rates_note(AGENT_RATE_PEER, 0, 5), 0);
	/* Small copies measure latency: ignored, counted. */
	ck_assert_int_eq(agent_rates_note(AGENT_RATE_PEER, 16 * MIB - 1, 1),
			 0);
	/* 0 ms: not known (an older service). */
	ck_assert_int_eq(agent_rates_note(AGENT_RATE_PEER, 64 * MIB, 0), 0);
	/* Faster than AGENT_RATES_MAX: refused. */
	ck_assert_int_eq(agent_rates_note(AGENT_RATE_PEER, UINT64_MAX, 1),
			 0);
	/* A kind that does not exist. */
	ck_assert_int_eq(agent_rates_note(AGENT_RATE_KINDS, 64 * MIB, 5), 0);
	agent_rates_get(AGENT_RATE_PEER, &r);
	ck_assert_uint_eq(r.taken, 0);
	ck_assert_uint_eq(r.small, 1);
	ck_assert_uint_eq(r.unknown, 1);
	ck_assert_uint_eq(r.bogus, 1);
	ck_assert(r.learned == 0);
	/* Exactly the minimum is taken; a huge slow one too (no overflow). */
	ck_assert_int_eq(agent_rates_note(AGENT_RATE_PEER, 16 * MIB, 1000000),
			 1);
	ck_assert_int_eq(agent_rates_note(AGENT_RATE_PEER, UINT64_MAX,
					  UINT64_MAX), 1);
	agent_rates_get(AGENT_RATE_PEER, &r);
	ck_assert(isfinite(r.learned) && r.learned > 0);
	ck_assert(r.learned <= AGENT_RATES_MAX);
}
END_TEST

/* Priors until min_reports were taken; then learned; off; capped. */
START_TEST(test_rates_pick)
{
	agent_rates_conf_t c = _conf(AGENT_RATES_ON, 3);
	double used[AGENT_RATE_KINDS];
	char msg[1024];
	agent_rate_source_t src;
	agent_rate_t r;

	_start(&c);
	ck_assert_int_eq(agent_rates_apply(&c, used, msg, sizeof(msg)), 0);
	ck_assert(used[AGENT_RATE_PEER] == 1e9);
	ck_assert(used[AGENT_RATE_STORAGE] == 100e6);
	agent_rates_note(AGENT_RATE_PEER, 70000000, 1000000);
	agent_rates_note(AGENT_RATE_PEER, 70000000, 1000000);
	ck_assert_int_eq(agent_rates_apply(&c, used, msg, sizeof(msg)), 0);
	ck_assert(used[AGENT_RATE_PEER] == 1e9); /* two of three */
	ck_assert_str_eq(msg, "");
	agent_rates_note(AGENT_RATE_PEER, 70000000, 1000000);
	ck_assert_int_eq(agent_rates_apply(&c, used, msg, sizeof(msg)), 1);
	ck_assert(fabs(used[AGENT_RATE_PEER] - 70e6) < 1e-3);
	ck_assert(used[AGENT_RATE_STORAGE] == 100e6);
	ck_assert_msg(strstr(msg, "peer rate for plans: learned 70000000 B/s"
			      " (learned 70000000 B/s from 3 reports, "
			      "configured 1000000000 B/s)"), "%s", msg);
	ck_assert_ptr_null(strstr(msg, "storage"));
	/* No change, no line. */
	ck_assert_int_eq(agent_rates_apply(&c, used, msg, sizeof(msg)), 0);
	ck_assert_str_eq(msg, "");
	/* Off: the configured rate, and the log says so. */
	c.mode = AGENT_RATES_OFF;
	ck_assert_int_eq(agent_rates_apply(&c, used, msg, sizeof(msg)), 1);
	ck_assert(used[AGENT_RATE_PEER] == 1e9);
	ck_assert_msg(strstr(msg, "peer rate for plans: off 1000000000 B/s"),
		      "%s", msg);
	/* Capped: a learned rate above the prior is not used... */
	c.mode = AGENT_RATES_CAPPED;
	c.prior[AGENT_RATE_PEER] = 50e6;
	agent_rates_apply(&c, used, msg, sizeof(msg));
	ck_assert(used[AGENT_RATE_PEER] == 50e6);
	agent_rates_get(AGENT_RATE_PEER, &r);
	ck_assert(agent_rates_pick(&r, AGENT_RATE_PEER, &c, &src) == 50e6);
	ck_assert_int_eq(src, AGENT_RATE_CAP);
	/* ... one below it is. */
	c.prior[AGENT_RATE_PEER] = 1e9;
	agent_rates_apply(&c, used, msg, sizeof(msg));
	ck_assert(fabs(used[AGENT_RATE_PEER] - 70e6) < 1e-3);
	ck_assert_str_eq(agent_rates_source_name(AGENT_RATE_CAP), "cap");
	ck_assert_str_eq(agent_rates_kind_name(AGENT_RATE_STORAGE), "storage");
}
END_TEST

/* The REPORT's new keys decode; a body without them (older service) has
 * them 0 and teaches nothing; the queue feeds the rates. */
START_TEST(test_rates_report)
{
	agent_rates_conf_t c = _conf(AGENT_RATES_ON, 1);
	const char *old = "job=42 files=1 copied=1 bytes_copied=33554432 "
			  "storage_bytes=33554432 peer_bytes=0\n";
	const char *cur = "job=43 files=1 copied=1 bytes_copied=33554432 "
			  "storage_bytes=33554432 peer_bytes=0 storage_us=2000000 "
			  "peer_us=0\n";
	agent_acct_item_t *items;
	uint64_t dropped;
	agent_rate_t r;
	char err[256];
	dl_msg_t m;

	_start(&c);
	ck_assert_int_eq(dl_msg_decode(DL_NET_REPORT, old, strlen(old), &m,
				       err, sizeof(err)), 0);
	ck_assert_uint_eq(m.count.storage_us, 0);
	ck_assert_int_eq(agent_acct_put((uint32_t)m.job, &m.count), 0);
	dl_msg_free(&m);
	agent_rates_get(AGENT_RATE_STORAGE, &r);
	ck_assert_uint_eq(r.taken, 0);
	ck_assert_uint_eq(r.unknown, 1);
	ck_assert_int_eq(dl_msg_decode(DL_NET_REPORT, cur, strlen(cur), &m,
				       err, sizeof(err)), 0);
	ck_assert_uint_eq(m.count.storage_us, 2000000);
	ck_assert_int_eq(agent_acct_put((uint32_t)m.job, &m.count), 0);
	dl_msg_free(&m);
	agent_rates_get(AGENT_RATE_STORAGE, &r);
	ck_assert_uint_eq(r.taken, 1);
	ck_assert(fabs(r.learned - 16.0 * MIB) < 1e-6);
	/* Bounds: a time that overflows is refused, as every number. */
	ck_assert_int_ne(dl_msg_decode(DL_NET_REPORT,
				       "job=1 peer_us=18446744073709551616\n",
				       36, &m, err, sizeof(err)), 0);
	ck_assert_int_ne(dl_msg_decode(DL_NET_REPORT, "job=1 peer_us=-1\n",
				       17, &m, err, sizeof(err)), 0);
	ck_assert_uint_eq(agent_acct_take(&items, &dropped), 2);
	free(items);
}
END_TEST

static int _starts(const char *s, const char *pre)
{
	return !strncmp(s, pre, strlen(pre));
}

/* The file sdatalocality reads. */
START_TEST(test_rates_file)
{
	agent_rates_conf_t c = _conf(AGENT_RATES_ON, 1);
	char path[] = "/tmp/check_rates.XXXXXX", file[64], line[512];
	int fd = mkstemp(path);
	FILE *f;

	ck_assert_int_ge(fd, 0);
	close(fd);
	snprintf(file, sizeof(file), "%s.rates", path);
	_start(&c);
	agent_rates_note(AGENT_RATE_PEER, 80000000, 1000000);
	ck_assert_int_eq(agent_rates_write(file, &c, 1234), 0);
	ck_assert_ptr_nonnull(f = fopen(file, "r"));
	ck_assert_ptr_nonnull(fgets(line, sizeof(line), f));
	ck_assert_str_eq(line, "# datalocality rates 1 time=1234 learn=yes\n");
	ck_assert_ptr_nonnull(fgets(line, sizeof(line), f));
	ck_assert_msg(_starts(line, "rate storage used=100000000 source=prior"
			      " prior=100000000 learned=0 "), "%s", line);
	ck_assert_ptr_nonnull(fgets(line, sizeof(line), f));
	ck_assert_msg(_starts(line, "rate peer used=80000000 source=learned "
			      "prior=1000000000 learned=80000000 bytes="
			      "80000000 secs=1 reports=1 "), "%s", line);
	fclose(f);
	ck_assert_int_eq(agent_rates_write("/nonexistent/dir/x", &c, 1), 2);
	unlink(file);
	unlink(path);
	agent_rates_reset();
}
END_TEST

/* What a rates file says was learned comes back after a restart. */
START_TEST(test_rates_load)
{
	agent_rates_conf_t c = _conf(AGENT_RATES_ON, 2);
	char path[] = "/tmp/check_rates.XXXXXX";
	agent_rate_t before, r;
	int fd = mkstemp(path);
	FILE *f;

	ck_assert_int_ge(fd, 0);
	close(fd);
	_start(&c);
	agent_rates_note(AGENT_RATE_PEER, 80000000, 1000000);
	agent_rates_note(AGENT_RATE_PEER, 40000000, 1000000);
	agent_rates_get(AGENT_RATE_PEER, &before);
	ck_assert_int_eq(agent_rates_write(path, &c, 1), 0);
	agent_rates_reset();
	ck_assert_int_eq(agent_rates_load(path), 1); /* storage: none */
	agent_rates_get(AGENT_RATE_PEER, &r);
	ck_assert_uint_eq(r.taken, 2);
	ck_assert(r.learned == before.learned); /* written exactly */
	ck_assert(r.bytes == before.bytes && r.secs == before.secs);
	agent_rates_get(AGENT_RATE_STORAGE, &r);
	ck_assert_uint_eq(r.taken, 0);
	/* A kind that learned since the start keeps what it learned. */
	agent_rates_reset();
	agent_rates_note(AGENT_RATE_PEER, 16 * MIB, 1000000);
	ck_assert_int_eq(agent_rates_load(path), 0);
	agent_rates_get(AGENT_RATE_PEER, &r);
	ck_assert_uint_eq(r.taken, 1);
	/* Implausible or malformed lines restore nothing. */
	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	fprintf(f, "# datalocality rates 1 time=1 learn=yes\n"
		"rate storage used=1 bytes=-5 secs=1.000 reports=2\n"
		"rate peer used=1 bytes=1e30 secs=1.000 reports=2\n"
		"rate storage bytes=nan secs=1 reports=2\n"
		"rate storage bytes=100 secs=0 reports=2\n"
		"rate storage bytes=100 secs=1x reports=2\n"
		"rate storage bytes=100 secs=1 reports=0\n"
		"rate storagex bytes=100 secs=1 reports=2\n"
		"rate peer bytes=100 secs=1\n");
	fclose(f);
	agent_rates_reset();
	ck_assert_int_eq(agent_rates_load(path), 0);
	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	fprintf(f, "not a rates file\nrate peer bytes=100 secs=1 reports=2\n");
	fclose(f);
	ck_assert_int_eq(agent_rates_load(path), -EINVAL);
	unlink(path);
	ck_assert_int_eq(agent_rates_load(path), -ENOENT);
	agent_rates_get(AGENT_RATE_PEER, &r);
	ck_assert_uint_eq(r.taken, 0);
}
END_TEST

Suite *make_agent_rates_suite(void)
{
	Suite *s = suite_create("agent_rates");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_rates_ratio_and_decay);
	tcase_add_test(tc, test_rates_follow_change);
	tcase_add_test(tc, test_rates_ignored);
	tcase_add_test(tc, test_rates_pick);
	tcase_add_test(tc, test_rates_report);
	tcase_add_test(tc, test_rates_file);
	tcase_add_test(tc, test_rates_load);
	suite_add_tcase(s, tc);
	return s;
}
