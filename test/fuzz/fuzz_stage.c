/*
 * fuzz_stage.c - libFuzzer target for what dl-stage reads back from disk:
 * the metadata of a cached file (DIR/store/xx/<hash>.meta), a job's pins
 * (DIR/.jobs/<job>.pins), a job's failure note (DIR/.jobs/<job>.failed)
 * and datalocality.conf.
 *
 * Through the public functions, on a real cache directory made once per
 * process in a scratch directory (on tmpfs when there is one):
 *   - the input becomes one .meta file, named after the SHA-256 of the
 *     last blank-separated word of its first line (where every version of
 *     the format puts the source path), so that the reader gets past its
 *     name check; its data file is made when the input's length is even;
 *   - the input, after a line naming that entry, is also a job's pins;
 *   - dl_stage_foreach() lists the store (the reader without cleaning),
 *     dl_stage_write_inventory() writes .inventory from it, and
 *     dl_stage_evict_to() rebuilds the tracker from the store (the reader
 *     with cleaning: a corrupt entry is removed) and evicts;
 *   - the input is also datalocality.conf for dl_stage_conf_read(), and
 *     what it sets as CacheDir goes through dl_stage_expand_dir().
 * Where src/stage has its private header stage_int.h (the store split
 * into modules), the pure parsers are called directly too: dl__meta_parse()
 * and dl_stage_note_parse().  Before that split they were static.
 *
 * Checked: every listed entry is one whose metadata names a path whose
 * hash is its name; pins add up; .inventory lists the complete entries,
 * one line each; an eviction returns what stage.h promises; afterwards
 * the store holds nothing, so every run starts from an empty cache.
 *
 * Build: clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE \
 *	-I src/libdatalocality -I src/stage \
 *	<the .c files of src/stage but dl-stage.c> \
 *	src/libdatalocality/{cache,files,error,log}.c \
 *	test/fuzz/fuzz_stage.c -o fuzz_stage
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dl_error.h"
#include "dl_files.h"
#include "fuzz.h"
#include "sha256.h"
#include "stage.h"
#include "stage_conf.h"
#if __has_include("stage_int.h")
#include "stage_int.h"
#define HAVE_STAGE_INT 1
#endif

static dl_stage_t *st;
static char cache_dir[512], conf_path[512];

/*
 * A cache opened afresh for every input, with an eviction policy that
 * follows the input: a store that kept the buckets of earlier inputs
 * would make every scan walk up to 256 directories.
 */
static void _open_cache(dl_evict_t policy)
{
	dl_stage_opts_t o = { .capacity = DL_CACHE_UNLIMITED,
			      .policy = policy,
			      .node = "fuzz" };
	char err[512];

	if (!cache_dir[0]) {
		const char *dir = fuzz_scratch_dir();

		snprintf(cache_dir, sizeof(cache_dir), "%s/cache", dir);
		snprintf(conf_path, sizeof(conf_path), "%s/datalocality.conf",
			 dir);
	}
	CHECK(!dl_stage_open(cache_dir, &o, 1, &st, err, sizeof(err)));
}

/*
 * The path a .meta text claims: the last blank-separated word of its
 * first line.  A path with blanks (version 1 allowed them) is named after
 * its last word, and then the reader finds a name that does not match.
 */
static void _claimed_path(const char *text, char *path, size_t len)
{
	size_t n = strcspn(text, "\n"), w = n;

	while (w && text[w - 1] != ' ')
		w--;
	snprintf(path, len, "%.*s", (int)(n - w), text + w);
}

typedef struct {
	const char *hash;  /* the entry this input made */
	size_t n, complete;
	uint32_t pins;
	int seen;
} list_ctx_t;

static int _entry(const dl_stage_entry_t *e, void *arg)
{
	list_ctx_t *x = arg;
	char check[DL_SHA256_HEX_LEN];

	CHECK(e->path && e->path[0] == '/');
	CHECK(strlen(e->hash) == DL_SHA256_HEX_LEN - 1);
	dl_sha256_hex(e->path, strlen(e->path), check);
	CHECK(!strcmp(check, e->hash));
	CHECK(!strchr(e->path, '\n'));
	CHECK(e->complete == 0 || e->complete == 1);
	x->n++;
	x->complete += e->complete;
	if (!strcmp(e->hash, x->hash)) {
		x->seen = 1;
		x->pins = e->pins;
	}
	return 0;
}

/* .inventory: a header line, then one line per complete entry. */
static void _check_inventory(size_t complete)
{
	char path[600], *text, *p;
	size_t lines = 0, files;

	snprintf(path, sizeof(path), "%s/.inventory", cache_dir);
	text = fuzz_read_file(path, NULL);
	CHECK(text);
	CHECK(!strncmp(text, "# dl-stage inventory 1 node=fuzz ", 33));
	p = strstr(text, " files=");
	CHECK(p && sscanf(p, " files=%zu", &files) == 1);
	CHECK(files == complete);
	for (p = text; (p = strchr(p, '\n')); p++)
		lines++;
	CHECK(lines == complete + 1);
	free(text);
}

static void _unlink_at(const char *fmt, const char *a, const char *b)
{
	char path[1024];

	snprintf(path, sizeof(path), fmt, cache_dir, a, b);
	if (unlink(path))
		CHECK(errno == ENOENT);
}

/* The store must hold no file this target did not write. */
static void _check_store_empty(void)
{
	char path[600];
	DIR *d;
	struct dirent *de;

	snprintf(path, sizeof(path), "%s/store", cache_dir);
	d = opendir(path);
	CHECK(d);
	while ((de = readdir(d))) {
		char sub[700];
		DIR *b;
		struct dirent *be;

		if (de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
		b = opendir(sub);
		CHECK(b);
		while ((be = readdir(b)))
			CHECK(be->d_name[0] == '.');
		closedir(b);
	}
	closedir(d);
}

static void _fuzz_cache(const uint8_t *data, size_t size, const char *text)
{
	char hash[DL_SHA256_HEX_LEN], path[1024], *claimed;
	char bucket[3];
	list_ctx_t x = { 0 };
	dl_stage_report_t rep;
	uint64_t used = 1;
	int rc;

	claimed = malloc(size + 1);
	CHECK(claimed);
	_claimed_path(text, claimed, size + 1);
	dl_sha256_hex(claimed, strlen(claimed), hash);
	free(claimed);
	x.hash = hash;
	memcpy(bucket, hash, 2);
	bucket[2] = '\0';
	snprintf(path, sizeof(path), "%s/store/%s", cache_dir, bucket);
	if (mkdir(path, 0700))
		CHECK(errno == EEXIST);
	snprintf(path, sizeof(path), "%s/store/%s/%s.meta", cache_dir, bucket,
		 hash);
	fuzz_write_file(path, data, size);
	if (!(size % 2)) {
		snprintf(path, sizeof(path), "%s/store/%s/%s", cache_dir,
			 bucket, hash);
		fuzz_write_file(path, data, size / 2);
	}
	/* Pin it once, then whatever the input's lines name. */
	{
		char *pins = malloc(size + 80);

		CHECK(pins);
		snprintf(pins, 80, "%s\n", hash);
		memcpy(pins + 65, data, size);
		snprintf(path, sizeof(path), "%s/.jobs/7.pins", cache_dir);
		fuzz_write_file(path, pins, size + 65);
		free(pins);
	}

	rc = dl_stage_foreach(st, _entry, &x, &used);
	CHECK(rc == 0);
	CHECK(x.complete || used == 0);
	if (x.seen)
		CHECK(x.pins >= 1);
	CHECK(x.n <= 1);
	CHECK(!dl_stage_write_inventory(st));
	_check_inventory(x.complete);

	/* Rebuild from the store and evict what is not pinned. */
	rc = dl_stage_evict_to(st, 0, &rep);
	CHECK(rc == 0 || rc == DL_ENOSPC);
	CHECK(memchr(rep.msg, '\0', sizeof(rep.msg)));
	CHECK(!dl_stage_write_inventory(st));

	_unlink_at("%s/.jobs/%s.pins%s", "7", "");
	_unlink_at("%s/store/%s/%s", bucket, hash);
	_unlink_at("%s/store/%s/%s.meta", bucket, hash);
	_unlink_at("%s/.locks/%s%s", hash, "");
	_check_store_empty();
	dl_stage_close(st);
	st = NULL;
	snprintf(path, sizeof(path), "%s/store/%s", cache_dir, bucket);
	if (rmdir(path))
		CHECK(errno == ENOENT);
	_open_cache(DL_EVICT_LRU);

	/* Nothing left: the next run starts from an empty cache. */
	x = (list_ctx_t){ .hash = hash };
	CHECK(!dl_stage_foreach(st, _entry, &x, &used));
	CHECK(x.n == 0 && used == 0);
	dl_stage_close(st);
	st = NULL;
}

#ifdef HAVE_STAGE_INT
/* The .meta parser alone, named after the path the text claims. */
static void _fuzz_meta_parse(const char *text, size_t size)
{
	char hash[DL_SHA256_HEX_LEN], check[DL_SHA256_HEX_LEN], *claimed;
	dl_stage_entry_t e;
	size_t i;
	int rc;

	claimed = malloc(size + 1);
	CHECK(claimed);
	_claimed_path(text, claimed, size + 1);
	dl_sha256_hex(claimed, strlen(claimed), hash);
	free(claimed);
	rc = dl__meta_parse(text, size, hash, &e);
	CHECK(rc == 0 || rc == DL_EFORMAT || rc == DL_ENOMEM);
	if (rc) {
		CHECK(!e.path);
		return;
	}
	CHECK(e.path && e.path[0] == '/');
	for (i = 0; e.path[i]; i++)
		CHECK((unsigned char)e.path[i] > ' ' && e.path[i] != 0x7f);
	dl_sha256_hex(e.path, strlen(e.path), check);
	CHECK(!strcmp(check, hash) && !strcmp(e.hash, hash));
	CHECK(!e.sha[0] || strlen(e.sha) == DL_SHA256_HEX_LEN - 1);
	/* One line, ending with the path. */
	CHECK(text[size - 1] == '\n' && strchr(text, '\n') == text + size - 1);
	dl__entry_free(&e);
}

/* A failure note, for the job and user its header names and others. */
static void _fuzz_note(const char *text, size_t size)
{
	const char *msg = NULL;
	unsigned job = 0, uid = 0;
	int rc;

	rc = dl_stage_note_parse(text, size, 7, 1000, &msg);
	CHECK(rc == 0 || rc == DL_EFORMAT || rc == DL_ENOENT);
	if (!rc)
		CHECK(msg == strchr(text, '\n') + 1);
	if (sscanf(text, "# dl-stage note 1 job=%u uid=%u", &job, &uid) != 2)
		return;
	msg = NULL;
	rc = dl_stage_note_parse(text, size, job, (uid_t)uid, &msg);
	CHECK(rc == 0 || rc == DL_EFORMAT);
	if (!rc) {
		CHECK(msg == strchr(text, '\n') + 1);
		CHECK(dl_stage_note_parse(text, size, job + 1, (uid_t)uid,
					  NULL) == DL_ENOENT);
	}
}
#endif

static void _warn(const char *msg, void *arg)
{
	(void)arg;
	CHECK(msg && msg[0]);
}

static void _fuzz_conf(const uint8_t *data, size_t size)
{
	dl_stage_conf_t conf = { 0 };
	char err[256], *dir;
	int rc;

	fuzz_write_file(conf_path, data, size);
	memset(err, 'Z', sizeof(err));
	rc = dl_stage_conf_read(conf_path, 0, &conf, _warn, NULL, err,
				sizeof(err));
	/* DL_EIO: not a text file, say NUL bytes. */
	CHECK(rc == 0 || rc == DL_ENOMEM || rc == DL_EIO);
	if (rc) {
		CHECK(memchr(err, '\0', sizeof(err)));
		CHECK(err[0] || rc == DL_ENOMEM);
		/* On error conf holds the defaults. */
		CHECK(!conf.cache_dir && !conf.emu_lockdir);
		CHECK(conf.capacity == DL_CACHE_UNLIMITED);
		CHECK(conf.policy == DL_EVICT_VALUE);
	}
	CHECK(!conf.cache_dir || conf.cache_dir[0] == '/');
	CHECK(!conf.emu_lockdir || conf.emu_lockdir[0] == '/');
	CHECK(conf.emu_servers >= 1 && conf.emu_servers <= 4096);
	CHECK((unsigned)conf.policy <= DL_EVICT_RANDOM);
	if (conf.cache_dir) {
		dir = dl_stage_expand_dir(conf.cache_dir, "node-1");
		if (dir) {
			CHECK(dir[0] == '/' && strlen(dir) < DL_PATH_MAX);
			free(dir);
		}
		dir = dl_stage_expand_dir(conf.cache_dir, "..");
		CHECK(!dir || !strstr(conf.cache_dir, "%n"));
		free(dir);
	}
	dl_stage_conf_clear(&conf);
	CHECK(!conf.cache_dir && !conf.emu_lockdir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_strdup(data, size);

	CHECK(text);
	_open_cache((dl_evict_t)(size % 5));
	_fuzz_cache(data, size, text);
	_fuzz_conf(data, size);
#ifdef HAVE_STAGE_INT
	_fuzz_meta_parse(text, size);
	_fuzz_note(text, size);
#endif
	free(text);
	return 0;
}
