/*
 * fuzz_workload.c - libFuzzer target for dl-sim's trace readers
 * (src/sim/workload.c): the simulator's own workload format
 * (dl_workload_read()), Standard Workload Format traces with their
 * sidecar of input files (dl_workload_read_swf()) and sizes
 * (dl_wl_parse_size(), against dl_files_parse_size()).
 *
 * Every input is read both ways.  For dl_workload_read_swf() the input is
 * cut at its first form feed: the trace before it, the sidecar after it
 * (no form feed: no sidecar).  Checked for every workload read:
 *   - the tables are consistent: paths non-empty, without blanks or
 *     commas, unique and found by dl_workload_find_file(); jobs with
 *     cpus >= 1, finite arrivals, valid file indices without repeats,
 *     sorted by arrival, then id; for SWF, unique ids, the first arrival
 *     at 0 and cpus cut down to the node's slots;
 *   - round trip: dl_workload_write() and dl_workload_read() give the
 *     same workload without a single bad line (a negative compute time
 *     means "cost model" and comes back as -1);
 *   - every diagnostic is a non-empty line, and a NULL result has one.
 * Sizes: every word of the input that both size parsers accept must get
 * the same number of bytes from both (to double precision).  Build with
 * -DFUZZ_NO_SIZE_AGREEMENT to leave that out while looking for other bugs
 * (test/fuzz/crashes/workload-* holds what it found).
 *
 * Build: clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE \
 *	-I src/libdatalocality -I src/sim src/sim/workload.c \
 *	src/libdatalocality/{cache,cost,files,error,log}.c \
 *	test/fuzz/fuzz_workload.c -o fuzz_workload -lgsl -lgslcblas -lm
 */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dl_error.h"
#include "dl_files.h"
#include "fuzz.h"
#include "workload.h"

#define MAX_CPUS 8
#define DEFAULT_SIZE (1ULL << 20)

static void _diag_fn(const char *msg, void *arg)
{
	(void)arg;
	CHECK(msg && msg[0]);
	CHECK(!strchr(msg, '\n'));
}

static void _check_wl(const dl_workload_t *wl, int swf)
{
	size_t i, k;

	CHECK(wl);
	CHECK(!wl->nfiles || wl->files);
	CHECK(!wl->njobs || wl->jobs);
	for (i = 0; i < wl->nfiles; i++) {
		const dl_wl_file_t *f = &wl->files[i];
		const char *p;

		CHECK(f->path && f->path[0]);
		for (p = f->path; *p; p++)
			CHECK(!isspace((unsigned char)*p) && *p != ',');
		CHECK(dl_workload_find_file(wl, f->path) == (int64_t)i);
		CHECK(f->storage >= DL_WL_STORAGE_RR);
	}
	for (i = 0; i < wl->njobs; i++) {
		const dl_wl_job_t *j = &wl->jobs[i];

		CHECK(j->cpus >= 1);
		CHECK(isfinite(j->arrival));
		CHECK(!isnan(j->compute));
		/* Both readers refuse what no run can mean (workload.h). */
		CHECK(j->arrival >= 0 && j->arrival <= DL_WL_TIME_MAX);
		CHECK(j->compute == -1.0 ||
		      (j->compute >= 0 && j->compute <= DL_WL_TIME_MAX));
		for (k = 0; k < i; k++)
			CHECK(wl->jobs[k].id != j->id);
		CHECK(!j->nfiles || j->files);
		for (k = 0; k < j->nfiles; k++) {
			size_t m;

			CHECK(j->files[k] < wl->nfiles);
			for (m = 0; m < k; m++)
				CHECK(j->files[m] != j->files[k]);
		}
		if (i) {
			const dl_wl_job_t *p = &wl->jobs[i - 1];

			CHECK(p->arrival < j->arrival ||
			      (p->arrival == j->arrival && p->id < j->id));
		}
		if (swf) {
			CHECK(j->id >= 1);
			CHECK(j->arrival >= 0);
			CHECK(j->cpus <= MAX_CPUS);
			CHECK(j->compute >= 0 || j->compute == -1.0);
		}
	}
	if (swf) {
		CHECK(wl->njobs >= 1);
		CHECK(wl->jobs[0].arrival == 0);
	}
}

static void _check_same(const dl_workload_t *a, const dl_workload_t *b)
{
	size_t i;

	CHECK(a->nfiles == b->nfiles);
	CHECK(a->njobs == b->njobs);
	for (i = 0; i < a->nfiles; i++) {
		CHECK(!strcmp(a->files[i].path, b->files[i].path));
		CHECK(a->files[i].size == b->files[i].size);
		CHECK(a->files[i].storage == b->files[i].storage);
	}
	for (i = 0; i < a->njobs; i++) {
		const dl_wl_job_t *x = &a->jobs[i], *y = &b->jobs[i];

		CHECK(x->id == y->id);
		CHECK(!memcmp(&x->arrival, &y->arrival, sizeof(double)));
		if (x->compute < 0)
			CHECK(y->compute == -1.0);
		else
			CHECK(!memcmp(&x->compute, &y->compute,
				      sizeof(double)));
		CHECK(x->cpus == y->cpus);
		CHECK(x->nfiles == y->nfiles);
		CHECK(!x->nfiles || !memcmp(x->files, y->files,
					     x->nfiles * sizeof(uint32_t)));
	}
}

/* Write wl, read it back: the same workload, every line good. */
static void _round_trip(const dl_workload_t *wl)
{
	dl_wl_diag_t diag = { .fn = _diag_fn };
	dl_workload_t *back;
	dl_wl_stats_t st;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	CHECK(f);
	CHECK(!dl_workload_write(wl, f, "fuzz\nround trip"));
	CHECK(!fclose(f));
	f = fmemopen(text, len, "r");
	CHECK(f);
	back = dl_workload_read(f, &diag);
	fclose(f);
	CHECK(back);
	CHECK(diag.bad_lines == 0 && diag.warnings == 0);
	_check_wl(back, 0);
	_check_same(wl, back);
	dl_workload_stats(back, &st);
	CHECK(st.jobs == wl->njobs && st.files == wl->nfiles);
	dl_workload_destroy(back);
	free(text);
}

static void _fuzz_own(const uint8_t *data, size_t size)
{
	dl_wl_diag_t diag = { .fn = _diag_fn };
	dl_workload_t *wl;
	char *copy = fuzz_strdup(data, size);
	FILE *f;

	CHECK(copy);
	/* fmemopen() refuses an empty buffer: one NUL byte reads alike. */
	f = fmemopen(copy, size ? size : 1, "r");
	CHECK(f);
	wl = dl_workload_read(f, &diag);
	fclose(f);
	CHECK(wl);
	_check_wl(wl, 0);
	_round_trip(wl);
	dl_workload_destroy(wl);
	free(copy);
}

static void _fuzz_swf(const uint8_t *data, size_t size)
{
	dl_wl_diag_t diag = { .fn = _diag_fn };
	const uint8_t *ff = memchr(data, '\f', size);
	size_t swf_len = ff ? (size_t)(ff - data) : size;
	char *copy = fuzz_strdup(data, size);
	FILE *swf, *side = NULL;
	dl_workload_t *wl;

	CHECK(copy);
	swf = fmemopen(copy, swf_len ? swf_len : 1, "r");
	CHECK(swf);
	if (ff && size - swf_len > 1) {
		side = fmemopen(copy + swf_len + 1, size - swf_len - 1, "r");
		CHECK(side);
	}
	wl = dl_workload_read_swf(swf, side, DEFAULT_SIZE, MAX_CPUS, &diag);
	fclose(swf);
	if (side)
		fclose(side);
	if (!wl) {
		/* Not out of memory: no job, and diag says so. */
		CHECK(diag.warnings + diag.bad_lines > 0);
	} else {
		_check_wl(wl, 1);
		_round_trip(wl);
		dl_workload_destroy(wl);
	}
	free(copy);
}

/* Both size grammars accept "4096", "64M", "2GiB": they must agree. */
static void _fuzz_sizes(const uint8_t *data, size_t size)
{
	char *copy = fuzz_strdup(data, size), *save = NULL, *w;
	int nwords = 0;

	CHECK(copy);
	for (w = strtok_r(copy, " \t\n\f", &save); w && nwords < 64;
	     w = strtok_r(NULL, " \t\n\f", &save), nwords++) {
		uint64_t a = 7, b;
		int rc = dl_wl_parse_size(w, &a);

		CHECK(rc == 0 || rc == DL_EINVAL);
		if (rc) {
			CHECK(a == 7);
			continue;
		}
		if (dl_files_parse_size(w, strlen(w), &b))
			continue;
#ifndef FUZZ_NO_SIZE_AGREEMENT
		/* dl_wl_parse_size() computes in double precision. */
		CHECK(fabs((double)a - (double)b) <= (double)b * 0x1p-52);
#endif
	}
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	_fuzz_own(data, size);
	_fuzz_swf(data, size);
	_fuzz_sizes(data, size);
	return 0;
}
