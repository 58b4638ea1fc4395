/*
 * fuzz_persist.c - libFuzzer target for the state file reader of
 * persist.c: dl_persist_read() and dl_persist_load().
 *
 * The input is written to a file in a scratch directory (on tmpfs when
 * there is one) twice: as it is, and as a body closed by the crc line
 * dl_persist_save() would write for it, so that the fuzzer gets past the
 * checksum and reaches the records.  Each file is read with
 * dl_persist_read() and loaded into a fresh tracker of three nodes
 * ("n0" unlimited, "n1" 64 KiB, "n2" unlimited; the eviction policy
 * follows the input's checksum, so every policy gets its share).
 *
 * Checked:
 *   - read and load agree on what they both verify, and a failed load
 *     leaves the tracker, the node counters and the scheduler counters
 *     exactly as they were, with a message saying why;
 *   - a file cached on a node has been used at least once (a restored
 *     access count must not wrap around);
 *   - round trip: whatever loads is saved and loaded again into another
 *     fresh tracker, which must succeed and give the same nodes' contents
 *     (paths, sizes), node counters and scheduler counters.  Access counts
 *     must come back at least as high as they were; restoring a copy
 *     today counts one more use of the file, so a round trip may add up
 *     to one per copy.  Build with -DFUZZ_STRICT_ACCESS to require them
 *     unchanged.
 *
 * Build: clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE \
 *	-I src/libdatalocality \
 *	src/libdatalocality/{persist,cache,files,error,log}.c \
 *	test/fuzz/fuzz_persist.c -o fuzz_persist -lm
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dl_cache.h"
#include "dl_error.h"
#include "dl_files.h"
#include "dl_persist.h"
#include "fuzz.h"

#define NNODES 3
#define SMALL_NODE 1
#define SMALL_CAP (64 * 1024)

static const char *const names[NNODES] = { "n0", "n1", "n2" };

static char in_path[512], out_path[512];

static dl_cache_t *_tracker(dl_evict_t policy)
{
	dl_cache_t *c = dl_cache_create(NNODES, policy, 42);

	CHECK(c);
	CHECK(!dl_cache_set_capacity(c, SMALL_NODE, SMALL_CAP));
	return c;
}

/* Recognisable values that a failed load must leave alone. */
static void _poison(dl_node_stats_t *st, dl_sched_stats_t *sc, int salt)
{
	uint32_t n;

	for (n = 0; n < NNODES; n++) {
		st[n].hits = 1000 + n + salt;
		st[n].misses = 2000 + n + salt;
		st[n].hit_bytes = 3000 + n + salt;
		st[n].miss_bytes = 4000 + n + salt;
	}
	memset(sc, 0, sizeof(*sc));
	sc->since = 1700000000 + salt;
	sc->cycles = 7 + salt;
	sc->plans = 5;
	sc->plan_sec_total = 1.25;
	sc->plan_sec_max = 0.5;
	sc->plan_sec_last = 0.125;
	sc->placed = 3;
	sc->moved = 2;
	sc->widened = 1;
	sc->started_planned = 9;
	sc->started_widened = 8;
	sc->started_unplaced = 6;
	sc->pending_placed = 4;
}

static void _same_sched(const dl_sched_stats_t *a, const dl_sched_stats_t *b)
{
	CHECK(a->since == b->since);
	CHECK(a->cycles == b->cycles);
	CHECK(a->plans == b->plans);
	/* Bit for bit: the writer promises exact doubles. */
	CHECK(!memcmp(&a->plan_sec_total, &b->plan_sec_total, sizeof(double)));
	CHECK(!memcmp(&a->plan_sec_max, &b->plan_sec_max, sizeof(double)));
	CHECK(!memcmp(&a->plan_sec_last, &b->plan_sec_last, sizeof(double)));
	CHECK(a->placed == b->placed);
	CHECK(a->moved == b->moved);
	CHECK(a->widened == b->widened);
	CHECK(a->started_planned == b->started_planned);
	CHECK(a->started_widened == b->started_widened);
	CHECK(a->started_unplaced == b->started_unplaced);
	CHECK(a->pending_placed == b->pending_placed);
}

static void _same_stats(const dl_node_stats_t *a, const dl_node_stats_t *b)
{
	uint32_t n;

	for (n = 0; n < NNODES; n++) {
		CHECK(a[n].hits == b[n].hits);
		CHECK(a[n].misses == b[n].misses);
		CHECK(a[n].hit_bytes == b[n].hit_bytes);
		CHECK(a[n].miss_bytes == b[n].miss_bytes);
	}
}

static void _check_empty(const dl_cache_t *c)
{
	uint32_t n;

	CHECK(dl_cache_file_count(c) == 0);
	for (n = 0; n < NNODES; n++) {
		CHECK(dl_cache_node_files(c, n) == 0);
		CHECK(dl_cache_used(c, n) == 0);
	}
}

typedef struct {
	const dl_cache_t *a, *b;
	uint32_t node;
	uint8_t *seen; /* [file count of a]: cached somewhere */
} cmp_ctx_t;

/* A file of a's node must be on b's node, with the same size. */
static int _cmp_file(uint32_t file, void *arg)
{
	cmp_ctx_t *x = arg;
	const char *path = dl_cache_file_path(x->a, file);
	uint64_t size = dl_cache_file_size(x->a, file);
	uint64_t acc = dl_cache_access_count(x->a, file);
	uint64_t acc2, copies = dl_cache_copies(x->a, file);
	int64_t id;

	CHECK(path);
	CHECK(size != DL_SIZE_UNKNOWN);
	CHECK(acc >= 1);
	id = dl_cache_file_lookup(x->b, path);
	CHECK(id >= 0);
	CHECK(dl_cache_contains(x->b, x->node, (uint32_t)id));
	CHECK(dl_cache_file_size(x->b, (uint32_t)id) == size);
	CHECK(dl_cache_copies(x->b, (uint32_t)id) == copies);
	acc2 = dl_cache_access_count(x->b, (uint32_t)id);
#ifdef FUZZ_STRICT_ACCESS
	CHECK(acc2 == acc);
#else
	CHECK(acc2 >= acc && acc2 - acc <= copies);
#endif
	x->seen[file] = 1;
	return 0;
}

static int _count_acc(uint32_t file, void *arg)
{
	const dl_cache_t *c = ((const cmp_ctx_t *)arg)->a;

	CHECK(dl_cache_access_count(c, file) >= 1);
	return 0;
}

static void _check_same(const dl_cache_t *a, const dl_cache_t *b)
{
	uint32_t nfiles = dl_cache_file_count(a), f, n, cached = 0;
	cmp_ctx_t x = { a, b, 0, calloc(nfiles + 1, 1) };

	CHECK(x.seen);
	for (n = 0; n < NNODES; n++) {
		CHECK(dl_cache_node_files(a, n) == dl_cache_node_files(b, n));
		CHECK(dl_cache_used(a, n) == dl_cache_used(b, n));
		x.node = n;
		CHECK(!dl_cache_foreach(a, n, _cmp_file, &x));
	}
	for (f = 0; f < nfiles; f++)
		cached += x.seen[f];
	/* Only files cached somewhere are saved. */
	CHECK(dl_cache_file_count(b) == cached);
	free(x.seen);
}

/* Load path into a fresh tracker; on success, round-trip it. */
static void _load(const char *path, dl_evict_t policy, int expect_read_rc)
{
	dl_node_stats_t st[NNODES], st0[NNODES], st2[NNODES];
	dl_sched_stats_t sc, sc0, sc2;
	dl_persist_t p = { .nnodes = NNODES, .node_names = names };
	dl_cache_t *c = _tracker(policy), *d;
	char err[256];
	uint32_t n;
	int rc;

	_poison(st, &sc, 0);
	_poison(st0, &sc0, 0);
	p.stats = st;
	p.sched = &sc;
	memset(err, 'Z', sizeof(err));
	rc = dl_persist_load(path, c, &p, err, sizeof(err));
	CHECK(rc == 0 || rc == DL_EFORMAT || rc == DL_ENOMEM ||
	      rc == DL_EIO || rc == DL_ETOOBIG);
	/* Whatever the reader refuses, the loader refuses too. */
	if (expect_read_rc)
		CHECK(rc == expect_read_rc);
	if (rc) {
		CHECK(memchr(err, '\0', sizeof(err)));
		CHECK(err[0] || rc == DL_ENOMEM);
		_check_empty(c);
		_same_stats(st, st0);
		_same_sched(&sc, &sc0);
		dl_cache_destroy(c);
		return;
	}
	for (n = 0; n < NNODES; n++) {
		cmp_ctx_t x = { c, NULL, n, NULL };

		CHECK(!dl_cache_foreach(c, n, _count_acc, &x));
		if (dl_cache_capacity(c, n) != DL_CACHE_UNLIMITED)
			CHECK(dl_cache_used(c, n) <= dl_cache_capacity(c, n));
	}

	/* Round trip: save what was loaded, load it again. */
	CHECK(!dl_persist_save(out_path, c, &p));
	d = _tracker(policy);
	_poison(st2, &sc2, 1);
	p.stats = st2;
	p.sched = &sc2;
	rc = dl_persist_load(out_path, d, &p, err, sizeof(err));
	CHECK(rc == 0);
	_same_stats(st, st2);
	_same_sched(&sc, &sc2);
	_check_same(c, d);
	dl_cache_destroy(c);
	dl_cache_destroy(d);
}

static int _read(const char *path, size_t body_len)
{
	char err[256], *text = (char *)1;
	int rc;

	memset(err, 'Z', sizeof(err));
	rc = dl_persist_read(path, &text, err, sizeof(err));
	CHECK(rc == 0 || rc == DL_EFORMAT || rc == DL_ENOMEM || rc == DL_EIO ||
	      rc == DL_ETOOBIG);
	if (rc) {
		CHECK(memchr(err, '\0', sizeof(err)));
		CHECK(err[0] || rc == DL_ENOMEM);
		CHECK(text == (char *)1);
		return rc;
	}
	/* The text is the body without its crc line. */
	CHECK(text && !strncmp(text, "slurm-datalocality-state ", 25));
	CHECK(strlen(text) < body_len || !body_len);
	free(text);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char line[32], *buf;
	uint32_t crc;
	dl_evict_t policy;
	size_t len;
	int rc;

	if (!in_path[0]) {
		const char *dir = fuzz_scratch_dir();

		snprintf(in_path, sizeof(in_path), "%s/state", dir);
		snprintf(out_path, sizeof(out_path), "%s/state.out", dir);
	}
	crc = dl_crc32(0, data, size);
	policy = (dl_evict_t)(crc % 5);

	/* As it is: mostly a test of the checksum. */
	fuzz_write_file(in_path, data, size);
	rc = _read(in_path, 0);
	_load(in_path, policy, rc);

	/* As a body closed by its own crc line. */
	buf = malloc(size + 2 + sizeof(line));
	CHECK(buf);
	memcpy(buf, data, size);
	len = size;
	if (!len || buf[len - 1] != '\n')
		buf[len++] = '\n';
	snprintf(line, sizeof(line), "crc %08x\n", dl_crc32(0, buf, len));
	memcpy(buf + len, line, strlen(line));
	fuzz_write_file(in_path, buf, len + strlen(line));
	rc = _read(in_path, len);
	_load(in_path, policy, rc);
	free(buf);
	return 0;
}
