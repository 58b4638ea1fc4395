/*
 * check_partition_retry.c - a helper that fails for reasons of the moment
 * does not decide a plan (dl_partition.h, issue 30 item 4).
 *
 * dl-sim once fell back to greedy on a loaded host although it sets no
 * deadline: a dl-partitiond died in MPI_Init, because Open MPI 4's
 * isolated singletons share one session directory and two starting (or
 * one starting, one ending) at once race over it.  These tests fake such
 * a helper with a shell script that fails its first start (or its first
 * request) and then runs the real one ($DL_PARTITIOND, or ./dl-partitiond
 * in the build directory), and check that the helper gets a session
 * directory of its own.
 */
#include <check.h>
#include <dirent.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dl_error.h"
#include "dl_partition.h"

/* The real helper's wait: a loaded 2-core host under sanitizers can take
 * tens of seconds (as check_partition.c's HELPER_WAIT_MS). */
#define HELPER_WAIT_MS 120000

/* Two clusters of four jobs, interleaved: A shares nets 0, 1; B 2, 3.
 * Every vertex is free, so a run asks the helper.  Free with _graph_free. */
static dl_hgraph_t *_graph(void)
{
	static const uint32_t xpins[] = { 0, 4, 8, 12, 16 };
	static const uint32_t pins[] = { 0, 2, 4, 6, 0, 2, 4, 6,
					 1, 3, 5, 7, 1, 3, 5, 7 };
	dl_hgraph_t *h = calloc(1, sizeof(*h));

	ck_assert_ptr_nonnull(h);
	h->nvtx = 8;
	h->nnets = 4;
	h->nparts = 2;
	h->vwgt = malloc(8 * sizeof(*h->vwgt));
	h->fixed = malloc(8 * sizeof(*h->fixed));
	h->ncost = malloc(4 * sizeof(*h->ncost));
	h->xpins = malloc(sizeof(xpins));
	h->pins = malloc(sizeof(pins));
	ck_assert(h->vwgt && h->fixed && h->ncost && h->xpins && h->pins);
	for (uint32_t v = 0; v < 8; v++) {
		h->vwgt[v] = 1;
		h->fixed[v] = -1;
	}
	for (uint32_t n = 0; n < 4; n++)
		h->ncost[n] = 1e9;
	memcpy(h->xpins, xpins, sizeof(xpins));
	memcpy(h->pins, pins, sizeof(pins));
	return h;
}

static void _graph_free(dl_hgraph_t *h)
{
	free(h->vwgt);
	free(h->fixed);
	free(h->ncost);
	free(h->xpins);
	free(h->pins);
	free(h);
}

static dl_partitioner_t *_partitioner(const char *helper, unsigned timeout)
{
	dl_partition_opts_t o;
	dl_partitioner_t *p;

	dl_partition_opts_default(&o);
	o.helper = helper;
	o.timeout_ms = timeout;
	p = dl_partitioner_create(&o);
	ck_assert_ptr_nonnull(p);
	return p;
}

/* ---- a private directory for scripts and session directories ---------- */

static char tmpdir[64];

static const char *_tmpdir(void)
{
	if (!tmpdir[0]) {
		snprintf(tmpdir, sizeof(tmpdir), "/tmp/check_retry.XXXXXX");
		ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	}
	return tmpdir;
}

/* Entries of dir whose name starts with prefix. */
static int _entries(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.' &&
		     !strncmp(e->d_name, prefix, strlen(prefix));
	closedir(d);
	return n;
}

/* Remove the test's directory and what is left in it (scripts, counts). */
static void _rm_tmpdir(void)
{
	char cmd[128];

	if (!tmpdir[0])
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
	tmpdir[0] = '\0';
}

/*
 * A fake helper: on its first start it runs first (a shell command), on
 * every later one the real helper.  It counts its starts in <path>.n.
 * \return its path (static).
 */
static const char *_flaky(const char *first)
{
	static char path[128];
	char real[PATH_MAX];
	const char *env = getenv("DL_PARTITIOND");
	FILE *f;

	ck_assert_ptr_nonnull(realpath(env && *env ? env : "./dl-partitiond",
				       real));
	snprintf(path, sizeof(path), "%s/flaky", _tmpdir());
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f,
		"#!/bin/sh\n"
		"echo >>\"$0.n\"\n"
		"if [ \"$(wc -l <\"$0.n\")\" -eq 1 ]; then %s; fi\n"
		"exec '%s'\n",
		first, real);
	fclose(f);
	ck_assert_int_eq(chmod(path, 0700), 0);
	return path;
}

/* Starts counted by _flaky()'s helper. */
static int _starts(void)
{
	char path[160];
	FILE *f;
	int n = 0, c;

	snprintf(path, sizeof(path), "%s/flaky.n", tmpdir);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while ((c = getc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

static void _assert_no_children(void)
{
	int st;

	ck_assert_int_eq(waitpid(-1, &st, WNOHANG), -1);
}

/* ---- tests ------------------------------------------------------------- */

/*
 * A helper that dies before its greeting (as in MPI_Init) is started
 * again within the same call: the helper's parts, no fallback.  So with
 * a deadline too: a start that failed spent little of it.
 */
START_TEST(test_start_retried)
{
	static const unsigned timeouts[] = { DL_PARTITION_NO_TIMEOUT,
					     HELPER_WAIT_MS };
	dl_hgraph_t *h = _graph();
	int32_t part[8];
	dl_partition_stats_t st;

	for (size_t i = 0; i < 2; i++) {
		const char *path = _flaky("echo 'MPI_Init failed' >&2; exit 1");
		dl_partitioner_t *p = _partitioner(path, timeouts[i]);

		ck_assert_int_eq(dl_partitioner_run(p, h, NULL, part, &st), 0);
		ck_assert_int_eq(st.used_fallback, 0);
		ck_assert_int_eq(st.helper_restarts, 1);
		ck_assert_int_eq(_starts(), 2);
		ck_assert(st.cut == 0);
		dl_partitioner_destroy(p);
		_assert_no_children();
		_rm_tmpdir();
	}
	_graph_free(h);
}
END_TEST

/*
 * Without a deadline (dl-sim), a request whose helper is lost after its
 * greeting goes to a new helper: the first one greets and leaves at once
 * (its stdin at EOF).  With a deadline (the plugin) the time is the
 * caller's: one request, the fallback.
 */
START_TEST(test_request_retried_without_deadline)
{
	dl_hgraph_t *h = _graph();
	int32_t part[8];
	dl_partition_stats_t st;
	const char *path;
	dl_partitioner_t *p;

	path = _flaky("exec </dev/null");
	p = _partitioner(path, DL_PARTITION_NO_TIMEOUT);
	ck_assert_int_eq(dl_partitioner_run(p, h, NULL, part, &st), 0);
	ck_assert_int_eq(st.used_fallback, 0);
	ck_assert_int_eq(st.helper_restarts, 1);
	ck_assert_int_eq(_starts(), 2);
	dl_partitioner_destroy(p);
	_assert_no_children();
	_rm_tmpdir();

	path = _flaky("exec </dev/null");
	p = _partitioner(path, HELPER_WAIT_MS);
	ck_assert_int_eq(dl_partitioner_run(p, h, NULL, part, &st), 0);
	ck_assert_int_eq(st.used_fallback, 1);
	ck_assert_int_eq(_starts(), 1);
	dl_partitioner_destroy(p);
	_assert_no_children();
	_rm_tmpdir();
	_graph_free(h);
}
END_TEST

/*
 * The helper's Open MPI session directory is its own, under $TMPDIR
 * (the shared <tmp>/ompi.<host>.<uid> is what concurrent singletons race
 * over), and is removed when the helper is gone: after a clean stop, and
 * after the helper was killed (Open MPI did not clean it then).
 */
START_TEST(test_session_private)
{
	const char *env = getenv("DL_PARTITIOND");
	dl_partitioner_t *p;
	pid_t pid;
	int st;

	ck_assert_int_eq(setenv("TMPDIR", _tmpdir(), 1), 0);
	p = _partitioner(env && *env ? env : "./dl-partitiond",
			 DL_PARTITION_NO_TIMEOUT);
	ck_assert_int_eq(dl_partitioner_start(p), 0);
	ck_assert_int_eq(_entries(tmpdir, "dl-partitiond."), 1);
	ck_assert_int_eq(_entries(tmpdir, "ompi."), 0);
	pid = dl__partitioner_pid(p);
	ck_assert_int_gt(pid, 0);
	ck_assert_int_eq(kill(pid, SIGKILL), 0);
	/* Wait for its death without reaping it: the partitioner reaps. */
	for (int i = 0; i < 3000; i++) {
		siginfo_t si = { 0 };

		ck_assert_int_eq(waitid(P_PID, (id_t)pid, &si,
					WEXITED | WNOWAIT | WNOHANG),
				 0);
		if (si.si_pid == pid)
			break;
		usleep(10000);
	}
	ck_assert_int_eq(dl_partitioner_start(p), 0);
	ck_assert_int_ne(dl__partitioner_pid(p), pid);
	ck_assert_int_eq(_entries(tmpdir, "dl-partitiond."), 1);
	dl_partitioner_destroy(p);
	ck_assert_int_eq(_entries(tmpdir, ""), 0);
	ck_assert_int_eq(waitpid(-1, &st, WNOHANG), -1);
	_rm_tmpdir();
}
END_TEST

Suite *make_partition_retry_suite(void)
{
	Suite *s = suite_create("partition_retry");
	TCase *tc = tcase_create("retry");

	tcase_add_test(tc, test_start_retried);
	tcase_add_test(tc, test_request_retried_without_deadline);
	tcase_add_test(tc, test_session_private);
	suite_add_tcase(s, tc);
	return s;
}
