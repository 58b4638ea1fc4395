/*
 * check_stage.c - unit tests of node-side staging (src/stage): store
 * names, datalocality.conf keys, atomic copies, eviction under pins, one
 * copy for concurrent jobs, the job user's permissions (also on a hit),
 * planted symbolic links, unsafe cache directories, views.
 *
 * Most tests need root (they switch to uid 65534, "nobody", as a job
 * user would); without root they pass vacuously and say so on stderr.
 * Everything happens in a fresh directory under /tmp.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_suites.h"
#include "dl_error.h"
#include "dl_files.h"
#include "opener.h"
#include "sha256.h"
#include "stage.h"
#include "stage_conf.h"

#define NOBODY 65534
#define OTHER_UID 65533 /* a second unprivileged user */

static char base[64];
static char cdir[128];  /* the cache directory */
static char ddir[128];  /* source files */

static bool _root(void)
{
	if (geteuid() == 0)
		return true;
	fprintf(stderr, "check_stage: not root, test skipped\n");
	return false;
}

static void _setup(void)
{
	snprintf(base, sizeof(base), "/tmp/check_stage.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(base));
	ck_assert_int_eq(chmod(base, 0755), 0);
	snprintf(cdir, sizeof(cdir), "%s/cache/n1", base);
	snprintf(ddir, sizeof(ddir), "%s/data", base);
	ck_assert_int_eq(mkdir(ddir, 0755), 0);
}

static void _teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	if (base[0] && system(cmd))
		fprintf(stderr, "check_stage: cannot remove %s\n", base);
}

/* A source file of n bytes (a pattern seeded by seed), mode. */
static char *_mkfile(const char *name, size_t n, unsigned seed, mode_t mode)
{
	static char path[256];
	char *buf = malloc(n ? n : 1);
	int fd;

	ck_assert_ptr_nonnull(buf);
	for (size_t i = 0; i < n; i++)
		buf[i] = (char)((i * 2654435761u + seed) >> 13);
	snprintf(path, sizeof(path), "%s/%s", ddir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, buf, n), (ssize_t)n);
	ck_assert_int_eq(fchmod(fd, mode), 0);
	close(fd);
	free(buf);
	return path;
}

static bool _same_content(const char *a, const char *b)
{
	FILE *fa = fopen(a, "r"), *fb = fopen(b, "r");
	bool same = fa && fb;
	int ca, cb;

	while (same) {
		ca = getc(fa);
		cb = getc(fb);
		same = ca == cb;
		if (ca == EOF)
			break;
	}
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
	return same;
}

static dl_stage_t *_open(uint64_t capacity, dl_evict_t policy)
{
	dl_stage_opts_t o = {.capacity = capacity, .policy = policy,
			     .node = "n1"};
	dl_stage_t *st = NULL;
	char err[512] = "";
	int rc = dl_stage_open(cdir, &o, 1, &st, err, sizeof(err));

	ck_assert_msg(rc == 0, "dl_stage_open: %s: %s", dl_strerror(rc), err);
	return st;
}

static dl_filelist_t *_files(const char *comment)
{
	dl_filelist_t *l = NULL;
	char err[256];

	ck_assert_int_eq(dl_files_parse(comment, &l, err, sizeof(err)), 0);
	return l;
}

/* Stage comment for job id as uid; \return the rc, report in rep. */
static int _stage(dl_stage_t *st, uint32_t id, uid_t uid, const char *comment,
		  dl_stage_report_t *rep)
{
	dl_stage_job_t job = {.job_id = id, .uid = uid, .gid = uid,
			      .user = NULL};
	dl_filelist_t *l = _files(comment);
	int rc = dl_stage_job(st, &job, l, rep);

	dl_filelist_free(l);
	return rc;
}

static char *_path_in(const char *rel)
{
	static char p[1024];

	snprintf(p, sizeof(p), "%s/%s", cdir, rel);
	return p;
}

static char *_store_path(const char *src)
{
	char name[96];

	ck_assert_int_eq(dl_stage_store_name(src, name, sizeof(name)), 0);
	return _path_in(name);
}

static char *_view_file(uint32_t id, const char *src)
{
	static char p[1024];

	snprintf(p, sizeof(p), "%s/.jobs/%u.view%s", cdir, id, src);
	return p;
}

static int _sum_used(const dl_stage_entry_t *e, void *arg)
{
	(void)e;
	(void)arg;
	return 0;
}

static uint64_t _used(dl_stage_t *st)
{
	uint64_t used = 0;

	ck_assert_int_eq(dl_stage_foreach(st, _sum_used, NULL, &used), 0);
	return used;
}

static int _find_cb(const dl_stage_entry_t *e, void *arg)
{
	return !strcmp(e->path, arg) ? 1 : 0;
}

static bool _cached(dl_stage_t *st, const char *src)
{
	return dl_stage_foreach(st, _find_cb, (void *)src, NULL) == 1;
}

/* Whether uid can open path for reading: errno of open() in a child. */
static int _open_as(uid_t uid, const char *path)
{
	pid_t pid = fork();
	int status;

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int fd;

		if (setgroups(0, NULL) || setgid(uid) || setuid(uid))
			_exit(99);
		fd = open(path, O_RDONLY);
		_exit(fd < 0 ? errno : 0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	return WEXITSTATUS(status);
}

/* ------------------------------------------------------------------ */

START_TEST(test_sha256_vectors)
{
	char hex[DL_SHA256_HEX_LEN];
	static const char *const two_blocks =
		"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";

	dl_sha256_hex("", 0, hex);
	ck_assert_str_eq(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	dl_sha256_hex("abc", 3, hex);
	ck_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	dl_sha256_hex(two_blocks, strlen(two_blocks), hex);
	ck_assert_str_eq(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}
END_TEST

START_TEST(test_store_name)
{
	char name[96], name2[96], hex[DL_SHA256_HEX_LEN], want[96];
	const char *p = "/data/p1/img1.dcm";

	ck_assert_int_eq(dl_stage_store_name(p, name, sizeof(name)), 0);
	dl_sha256_hex(p, strlen(p), hex);
	snprintf(want, sizeof(want), "store/%.2s/%s", hex, hex);
	ck_assert_str_eq(name, want);
	ck_assert_uint_eq(strlen(name), 6 + 3 + 64);
	/* a different path, a different name; the name never holds the path */
	ck_assert_int_eq(dl_stage_store_name("/data/p1/img2.dcm", name2,
					     sizeof(name2)), 0);
	ck_assert_str_ne(name, name2);
	ck_assert_ptr_null(strstr(name, "img1"));
	ck_assert_int_eq(dl_stage_store_name(p, name, 20), DL_ERANGE);
	ck_assert_int_eq(dl_stage_view_path("/c", 17, name, sizeof(name)), 0);
	ck_assert_str_eq(name, "/c/.jobs/17.view");
}
END_TEST

static int nwarn;

static void _count_warn(const char *msg, void *arg)
{
	(void)msg;
	(void)arg;
	nwarn++;
}

START_TEST(test_conf)
{
	dl_stage_conf_t c = {0};
	char path[256], err[256];
	char *d;
	FILE *f;

	_setup();
	snprintf(path, sizeof(path), "%s/datalocality.conf", base);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "# comment\nPolicy=locality\n  cachedir = /var/cache/dl/%%n # here\n"
		   "CACHECAPACITY=2G\nEvictionPolicy=LRU\nUnknownFileSize=64M\n");
	fclose(f);
	chmod(path, 0644);
	ck_assert_int_eq(dl_stage_conf_read(path, 0, &c, _count_warn, NULL,
					    err, sizeof(err)), 0);
	ck_assert_str_eq(c.cache_dir, "/var/cache/dl/%n");
	ck_assert_uint_eq(c.capacity, (uint64_t)2 << 30);
	ck_assert_int_eq(c.policy, DL_EVICT_LRU);
	ck_assert_int_eq(nwarn, 0);
	dl_stage_conf_clear(&c);

	/* bad values: warned, defaults kept */
	f = fopen(path, "w");
	fprintf(f, "CacheDir=relative/dir\nCacheCapacity=lots\nEvictionPolicy=sometimes\n");
	fclose(f);
	ck_assert_int_eq(dl_stage_conf_read(path, 0, &c, _count_warn, NULL,
					    err, sizeof(err)), 0);
	ck_assert_int_eq(nwarn, 3);
	ck_assert_ptr_null(c.cache_dir);
	ck_assert_uint_eq(c.capacity, DL_CACHE_UNLIMITED);
	ck_assert_int_eq(c.policy, DL_EVICT_VALUE);
	dl_stage_conf_clear(&c);

	/* as root, a file others can write is refused */
	if (geteuid() == 0) {
		chmod(path, 0666);
		ck_assert_int_eq(dl_stage_conf_read(path, 1, &c, NULL, NULL,
						    err, sizeof(err)),
				 DL_EPERM);
		ck_assert_ptr_nonnull(strstr(err, "writable"));
	}
	/* a missing file: defaults */
	ck_assert_int_eq(dl_stage_conf_read("/nonexistent/x.conf", 1, &c, NULL,
					    NULL, err, sizeof(err)), 0);
	ck_assert_ptr_null(c.cache_dir);

	ck_assert_int_eq(dl_stage_conf_path("/etc/slurm-x/slurm.conf", path,
					    sizeof(path)), 0);
	ck_assert_str_eq(path, "/etc/slurm-x/datalocality.conf");
	ck_assert_int_eq(dl_stage_conf_path(NULL, path, sizeof(path)), 0);
	ck_assert_str_eq(path, "/etc/slurm/datalocality.conf");

	d = dl_stage_expand_dir("/cache/%n/x%%n", "n3");
	ck_assert_str_eq(d, "/cache/n3/x%n");
	free(d);
	ck_assert_ptr_null(dl_stage_expand_dir("/cache/%n", "../etc"));
	ck_assert_ptr_null(dl_stage_expand_dir("/cache/%n", ".."));
	ck_assert_ptr_null(dl_stage_expand_dir("/cache/%n", NULL));
	ck_assert_ptr_null(dl_stage_expand_dir("cache", "n1"));
	d = dl_stage_expand_dir("/fixed", NULL);
	ck_assert_str_eq(d, "/fixed");
	free(d);
	_teardown();
}
END_TEST

START_TEST(test_copy_atomic_and_view)
{
	dl_stage_report_t rep;
	dl_stage_t *st;
	struct stat sb, vb;
	char src_a[256], src_b[256], inv[2048], want[1200];
	FILE *f;
	size_t n;

	if (!_root())
		return;
	_setup();
	snprintf(src_a, sizeof(src_a), "%s",
		 _mkfile("a.img", 3 << 20, 1, 0644));
	snprintf(src_b, sizeof(src_b), "%s", _mkfile("b.img", 0, 2, 0644));
	st = _open(DL_CACHE_UNLIMITED, DL_EVICT_VALUE);
	snprintf(want, sizeof(want), "files:%s,%s", src_a, src_b);
	ck_assert_int_eq(_stage(st, 7, NOBODY, want, &rep), 0);
	ck_assert_uint_eq(rep.files, 2);
	ck_assert_uint_eq(rep.copied, 2);
	ck_assert_uint_eq(rep.hits, 0);
	ck_assert_uint_eq(rep.bytes_copied, 3 << 20);

	/* the store copy: root's, 0444, same bytes; no temporary file left */
	ck_assert_int_eq(lstat(_store_path(src_a), &sb), 0);
	ck_assert(S_ISREG(sb.st_mode));
	ck_assert_uint_eq(sb.st_uid, 0);
	ck_assert_uint_eq(sb.st_mode & 07777, 0444);
	ck_assert(_same_content(_store_path(src_a), src_a));
	ck_assert_int_eq(lstat(_path_in("store"), &vb), 0);
	ck_assert_uint_eq(vb.st_mode & 07777, 0700);
	snprintf(want, sizeof(want), "test -z \"$(ls -A '%s/.tmp')\"", cdir);
	ck_assert_int_eq(system(want), 0);

	/* the view: a hard link to the store inode, for the job user */
	ck_assert_int_eq(lstat(_view_file(7, src_a), &vb), 0);
	ck_assert_uint_eq(vb.st_ino, sb.st_ino);
	ck_assert_uint_eq(vb.st_nlink, 2);
	ck_assert_int_eq(_open_as(NOBODY, _view_file(7, src_a)), 0);
	ck_assert_int_eq(_open_as(NOBODY, _view_file(7, src_b)), 0);
	/* ...and by nobody else */
	ck_assert_int_eq(_open_as(OTHER_UID, _view_file(7, src_a)), EACCES);
	ck_assert_int_eq(_open_as(NOBODY, _store_path(src_a)), EACCES);

	/* the inventory: a header line, then "path size" sorted by path */
	snprintf(want, sizeof(want), "%s/.inventory", cdir);
	f = fopen(want, "r");
	ck_assert_ptr_nonnull(f);
	n = fread(inv, 1, sizeof(inv) - 1, f);
	inv[n] = '\0';
	fclose(f);
	ck_assert_msg(
		!strncmp(
			inv,
			"# dl-stage inventory 1 node=n1 capacity=unlimited used=3145728 files=2 ",
			70),
		"header: %s", inv);
	snprintf(want, sizeof(want), "\n%s 3145728\n%s 0\n", src_a, src_b);
	ck_assert_ptr_nonnull(strstr(inv, want));

	/* the epilog removes view and pins; the files stay cached */
	ck_assert_int_eq(dl_stage_job_end(st, 7, &rep), 0);
	ck_assert_int_eq(lstat(_path_in(".jobs/7.view"), &vb), -1);
	ck_assert_int_eq(lstat(_path_in(".jobs/7.pins"), &vb), -1);
	ck_assert(_cached(st, src_a));

	/* a second job hits */
	snprintf(want, sizeof(want), "files:%s", src_a);
	ck_assert_int_eq(_stage(st, 8, NOBODY, want, &rep), 0);
	ck_assert_uint_eq(rep.hits, 1);
	ck_assert_uint_eq(rep.copied, 0);
	ck_assert(_same_content(_view_file(8, src_a), src_a));
	dl_stage_close(st);
	_teardown();
}
END_TEST

START_TEST(test_evict_never_pinned)
{
	dl_stage_report_t rep;
	dl_stage_t *st;
	char f[5][256], c[1200];
	struct stat sb;

	if (!_root())
		return;
	_setup();
	for (int i = 0; i < 5; i++) {
		char name[16];

		snprintf(name, sizeof(name), "f%d", i);
		snprintf(f[i], sizeof(f[i]), "%s",
			 _mkfile(name, 1 << 20, i, 0644));
	}
	st = _open(3 << 20, DL_EVICT_LRU);
	/* job 1 uses f0, f1; job 2 uses f2: the cache is full, all pinned */
	snprintf(c, sizeof(c), "files:%s,%s", f[0], f[1]);
	ck_assert_int_eq(_stage(st, 1, NOBODY, c, &rep), 0);
	snprintf(c, sizeof(c), "files:%s", f[2]);
	ck_assert_int_eq(_stage(st, 2, NOBODY, c, &rep), 0);
	ck_assert_uint_eq(_used(st), 3 << 20);
	/* job 3 needs f3: nothing may go, so it reads f3 from its source */
	snprintf(c, sizeof(c), "files:%s", f[3]);
	ck_assert_int_eq(_stage(st, 3, NOBODY, c, &rep), 0);
	ck_assert_uint_eq(rep.uncached, 1);
	ck_assert_uint_eq(rep.evicted, 0);
	ck_assert_int_eq(lstat(_view_file(3, f[3]), &sb), 0);
	ck_assert(S_ISLNK(sb.st_mode));
	ck_assert(_same_content(_view_file(3, f[3]), f[3]));
	for (int i = 0; i < 3; i++)
		ck_assert(_cached(st, f[i]));
	ck_assert(!_cached(st, f[3]));
	/* job 2 ends: f2 may go now, f0 and f1 (job 1) still may not */
	ck_assert_int_eq(dl_stage_job_end(st, 2, &rep), 0);
	ck_assert_int_eq(dl_stage_job_end(st, 3, &rep), 0);
	snprintf(c, sizeof(c), "files:%s", f[4]);
	ck_assert_int_eq(_stage(st, 4, NOBODY, c, &rep), 0);
	ck_assert_uint_eq(rep.copied, 1);
	ck_assert_uint_eq(rep.evicted, 1);
	ck_assert(_cached(st, f[0]));
	ck_assert(_cached(st, f[1]));
	ck_assert(!_cached(st, f[2]));
	ck_assert(_cached(st, f[4]));
	ck_assert_uint_le(_used(st), 3 << 20);
	ck_assert_int_eq(lstat(_store_path(f[2]), &sb), -1);
	/* evict --to 1M: only pinned files (f0, f1 of job 1, f4 of job 4) */
	ck_assert_int_eq(dl_stage_evict_to(st, 1 << 20, &rep), DL_ENOSPC);
	ck_assert_uint_eq(rep.evicted, 0);
	ck_assert_int_eq(dl_stage_job_end(st, 1, &rep), 0);
	ck_assert_int_eq(dl_stage_evict_to(st, 1 << 20, &rep), 0);
	ck_assert_uint_eq(rep.evicted, 2);
	ck_assert(_cached(st, f[4]));
	ck_assert_uint_eq(_used(st), 1 << 20);
	dl_stage_close(st);

	/* a lower capacity takes effect at the next epilog */
	st = _open(0, DL_EVICT_LRU);
	ck_assert_int_eq(dl_stage_job_end(st, 4, &rep), 0);
	ck_assert_uint_eq(rep.evicted, 1);
	ck_assert_uint_eq(_used(st), 0);
	dl_stage_close(st);
	_teardown();
}
END_TEST

/* Each policy keeps the cache within capacity over a random workload. */
START_TEST(test_capacity_random_workload)
{
	static const dl_evict_t pol[] = {DL_EVICT_VALUE, DL_EVICT_LRU,
					 DL_EVICT_LFU, DL_EVICT_FIFO,
					 DL_EVICT_RANDOM};
	char f[8][256], c[1200];
	dl_stage_report_t rep;
	unsigned r = 12345;

	if (!_root())
		return;
	_setup();
	for (int i = 0; i < 8; i++) {
		char name[16];

		snprintf(name, sizeof(name), "w%d", i);
		snprintf(f[i], sizeof(f[i]), "%s",
			 _mkfile(name, (size_t)(i + 1) * 100000, i, 0644));
	}
	for (size_t p = 0; p < 5; p++) {
		dl_stage_t *st = _open(1000000, pol[p]);

		for (uint32_t j = 1; j <= 20; j++) {
			int a = (r = r * 1103515245 + 12345) >> 16 & 7;
			int b = (r = r * 1103515245 + 12345) >> 16 & 7;

			if (a == b)
				snprintf(c, sizeof(c), "files:%s", f[a]);
			else
				snprintf(c, sizeof(c), "files:%s,%s", f[a],
					 f[b]);
			ck_assert_int_eq(_stage(st, j, NOBODY, c, &rep), 0);
			ck_assert(_same_content(_view_file(j, f[a]), f[a]));
			ck_assert_uint_le(_used(st), 1000000);
			ck_assert_int_eq(dl_stage_job_end(st, j, &rep), 0);
		}
		dl_stage_close(st);
		snprintf(c, sizeof(c), "rm -rf '%s'", cdir);
		ck_assert_int_eq(system(c), 0);
	}
	_teardown();
}
END_TEST

START_TEST(test_concurrent_single_copy)
{
	char src[256], c[1200];

	if (!_root())
		return;
	_setup();
	snprintf(src, sizeof(src), "%s", _mkfile("big", 24 << 20, 9, 0644));
	snprintf(c, sizeof(c), "files:%s", src);
	/* cache exists before the race, as on a node */
	dl_stage_close(_open(DL_CACHE_UNLIMITED, DL_EVICT_VALUE));
	for (int round = 0; round < 3; round++) {
		int go[2], res[2];
		pid_t pid[2];
		size_t copied = 0, hits = 0, waited = 0;
		int lk = -1;

		ck_assert_int_eq(pipe(go), 0);
		ck_assert_int_eq(pipe(res), 0);
		for (int k = 0; k < 2; k++) {
			pid[k] = fork();
			ck_assert_int_ge(pid[k], 0);
			if (pid[k] == 0) {
				dl_stage_opts_t o = {
					.capacity = DL_CACHE_UNLIMITED,
					.policy = DL_EVICT_VALUE};
				dl_stage_report_t rep;
				dl_stage_t *st = NULL;
				char err[256], x;
				size_t out[3];
				int rc;

				close(go[1]);
				if (dl_stage_open(cdir, &o, 0, &st, err,
						  sizeof(err)))
					_exit(2);
				/* barrier: both wait for the parent */
				if (read(go[0], &x, 1) != 0)
					_exit(3);
				rc = _stage(st, 100 + 2 * round + k, NOBODY, c,
					    &rep);
				out[0] = rep.copied;
				out[1] = rep.hits;
				out[2] = rep.waited;
				if (write(res[1], out, sizeof(out)) < 0)
					_exit(4);
				_exit(rc ? 1 : 0);
			}
		}
		close(go[0]);
		close(res[1]);
		if (round == 0) {
			/*
			 * Hold the file's lock while both start, so that both
			 * find it taken: a real race, every time.
			 */
			char hex[DL_SHA256_HEX_LEN], lp[400];

			dl_sha256_hex(src, strlen(src), hex);
			snprintf(lp, sizeof(lp), "%s/.locks/%s", cdir, hex);
			lk = open(lp, O_RDWR | O_CREAT, 0600);
			ck_assert_int_ge(lk, 0);
			ck_assert_int_eq(flock(lk, LOCK_EX), 0);
		}
		close(go[1]); /* release both at once */
		if (round == 0) {
			usleep(300000);
			close(lk);
		}
		for (int k = 0; k < 2; k++) {
			size_t out[3];
			int status;

			ck_assert_int_eq(read(res[0], out, sizeof(out)),
					 (ssize_t)sizeof(out));
			copied += out[0];
			hits += out[1];
			waited += out[2];
			ck_assert_int_eq(waitpid(pid[k], &status, 0), pid[k]);
			ck_assert(WIFEXITED(status));
			ck_assert_int_eq(WEXITSTATUS(status), 0);
		}
		close(res[0]);
		/* round 0: one copies, the other waits and hits; later: hits */
		ck_assert_uint_eq(copied, round == 0 ? 1 : 0);
		ck_assert_uint_eq(hits, round == 0 ? 1 : 2);
		/* round 0: the job that did not copy waited for the other */
		if (round == 0)
			ck_assert_uint_eq(waited, 1);
		ck_assert(_same_content(_view_file(100 + 2 * round, src), src));
		ck_assert(_same_content(_view_file(101 + 2 * round, src), src));
	}
	_teardown();
}
END_TEST

START_TEST(test_permission_drop)
{
	char secret[256], pub[256], c[1200], note[512];
	dl_stage_report_t rep;
	dl_stage_t *st;
	struct stat sb;
	int fd;
	ssize_t n;

	if (!_root())
		return;
	_setup();
	snprintf(secret, sizeof(secret), "%s",
		 _mkfile("secret", 4096, 3, 0600));
	snprintf(pub, sizeof(pub), "%s", _mkfile("public", 4096, 4, 0644));
	st = _open(DL_CACHE_UNLIMITED, DL_EVICT_VALUE);

	/* nobody cannot stage root's 0600 file */
	snprintf(c, sizeof(c), "files:%s,%s", pub, secret);
	ck_assert_int_eq(_stage(st, 20, NOBODY, c, &rep), DL_EPERM);
	ck_assert_int_eq(rep.user_fault, 1);
	ck_assert_ptr_nonnull(strstr(rep.msg, secret));
	ck_assert_ptr_nonnull(strstr(rep.msg, "Permission denied"));
	ck_assert(!_cached(st, secret));
	/* nothing of the job is left but the note for its user */
	ck_assert_int_eq(lstat(_path_in(".jobs/20.view"), &sb), -1);
	ck_assert_int_eq(lstat(_path_in(".jobs/20.pins"), &sb), -1);
	ck_assert_int_eq(lstat(_path_in(".jobs/20.failed"), &sb), 0);
	if (dl_stage_probe_acl(st) == 1) {
		/* root's, shown 0440: the group bits are the ACL's mask */
		ck_assert_uint_eq(sb.st_uid, 0);
		ck_assert_uint_eq(sb.st_mode & 07777, 0440);
	} else {
		ck_assert_uint_eq(sb.st_uid, NOBODY);
		ck_assert_uint_eq(sb.st_mode & 07777, 0400);
	}
	ck_assert_int_eq(_open_as(NOBODY, _path_in(".jobs/20.failed")), 0);
	fd = open(_path_in(".jobs/20.failed"), O_RDONLY);
	n = read(fd, note, sizeof(note) - 1);
	close(fd);
	note[n > 0 ? n : 0] = '\0';
	ck_assert_ptr_nonnull(strstr(note, "cannot read"));
	ck_assert_int_eq(_open_as(OTHER_UID, _path_in(".jobs/20.failed")),
			 EACCES);

	/* root's job may; the copy is root's, mode 0444 */
	snprintf(c, sizeof(c), "files:%s", secret);
	ck_assert_int_eq(_stage(st, 21, 0, c, &rep), 0);
	ck_assert_uint_eq(rep.copied, 1);
	ck_assert_int_eq(lstat(_store_path(secret), &sb), 0);
	ck_assert_uint_eq(sb.st_uid, 0);
	ck_assert_uint_eq(sb.st_mode & 07777, 0444);
	/* the view of root's job is root's alone */
	ck_assert_int_eq(_open_as(NOBODY, _view_file(21, secret)), EACCES);

	/* now cached: still refused to nobody, the hit is checked too */
	ck_assert_int_eq(_stage(st, 22, NOBODY, c, &rep), DL_EPERM);
	ck_assert_int_eq(rep.hits, 0);
	ck_assert_int_eq(lstat(_path_in(".jobs/22.view"), &sb), -1);

	/* a public file: fine; a later job of the same id clears the note */
	snprintf(c, sizeof(c), "files:%s", pub);
	ck_assert_int_eq(_stage(st, 20, NOBODY, c, &rep), 0);
	ck_assert_int_eq(lstat(_path_in(".jobs/20.failed"), &sb), -1);
	ck_assert_int_eq(_open_as(NOBODY, _view_file(20, pub)), 0);

	/* a missing file and a directory are the job's fault too */
	snprintf(c, sizeof(c), "files:%s/none", ddir);
	ck_assert_int_eq(_stage(st, 23, NOBODY, c, &rep), DL_ENOENT);
	ck_assert_int_eq(rep.user_fault, 1);
	snprintf(c, sizeof(c), "files:%s", ddir);
	ck_assert_int_eq(_stage(st, 24, NOBODY, c, &rep), DL_EINVAL);
	ck_assert_int_eq(rep.user_fault, 1);
	ck_assert_ptr_nonnull(strstr(rep.msg, "not a regular file"));
	dl_stage_close(st);
	_teardown();
}
END_TEST

START_TEST(test_opener)
{
	char secret[256];
	dl_opener_t *op = NULL;
	char err[256];
	int fd, e;

	if (!_root())
		return;
	_setup();
	snprintf(secret, sizeof(secret), "%s", _mkfile("s", 10, 1, 0640));
	ck_assert_int_eq(chown(secret, 0, NOBODY), 0);
	/* the group counts: gid nobody may read a 0640 root:65534 file */
	ck_assert_int_eq(dl_opener_start(OTHER_UID, NOBODY, NULL, &op, err,
					 sizeof(err)), 0);
	ck_assert_int_eq(dl_opener_open(op, secret, &fd, &e), 0);
	close(fd);
	ck_assert_int_eq(dl_opener_open(op, "/etc/shadow", &fd, &e), DL_EPERM);
	ck_assert_int_eq(e, EACCES);
	ck_assert_int_eq(dl_opener_open(op, "/nonexistent", &fd, &e),
			 DL_ENOENT);
	dl_opener_stop(op);
	ck_assert_int_eq(dl_opener_start(OTHER_UID, OTHER_UID, NULL, &op, err,
					 sizeof(err)), 0);
	ck_assert_int_eq(dl_opener_open(op, secret, &fd, &e), DL_EPERM);
	dl_opener_stop(op);
	_teardown();
}
END_TEST

START_TEST(test_changed_source_recopied)
{
	dl_stage_report_t rep;
	dl_stage_t *st;
	char src[256], c[1200];

	if (!_root())
		return;
	_setup();
	snprintf(src, sizeof(src), "%s", _mkfile("v", 100000, 1, 0644));
	snprintf(c, sizeof(c), "files:%s", src);
	st = _open(DL_CACHE_UNLIMITED, DL_EVICT_LRU);
	ck_assert_int_eq(_stage(st, 1, NOBODY, c, &rep), 0);
	ck_assert_uint_eq(rep.copied, 1);
	/* rewritten in place, same size: ctime moves, so it is copied again */
	_mkfile("v", 100000, 2, 0644);
	ck_assert_int_eq(_stage(st, 2, NOBODY, c, &rep), 0);
	ck_assert_uint_eq(rep.copied, 1);
	ck_assert_uint_eq(rep.hits, 0);
	ck_assert(_same_content(_view_file(2, src), src));
	/* job 1 still sees the version it started with */
	ck_assert(!_same_content(_view_file(1, src), src));
	ck_assert_uint_eq(_used(st), 100000);
	dl_stage_close(st);
	_teardown();
}
END_TEST

START_TEST(test_list_file)
{
	char a[256], b[256], list[256], c[1200];
	dl_stage_report_t rep;
	dl_stage_t *st;
	FILE *f;

	if (!_root())
		return;
	_setup();
	snprintf(a, sizeof(a), "%s", _mkfile("la", 1000, 1, 0644));
	snprintf(b, sizeof(b), "%s", _mkfile("lb", 2000, 2, 0644));
	snprintf(list, sizeof(list), "%s/list.txt", ddir);
	f = fopen(list, "w");
	fprintf(f, "# inputs\n%s\n%s 2000\n", a, b);
	fclose(f);
	chmod(list, 0644);
	st = _open(DL_CACHE_UNLIMITED, DL_EVICT_VALUE);
	snprintf(c, sizeof(c), "files:@%s", list);
	ck_assert_int_eq(_stage(st, 1, NOBODY, c, &rep), 0);
	ck_assert_uint_eq(rep.files, 2);
	ck_assert(_same_content(_view_file(1, b), b));
	/* a list its user cannot read fails the job */
	chmod(list, 0600);
	ck_assert_int_eq(_stage(st, 2, NOBODY, c, &rep), DL_EPERM);
	ck_assert_int_eq(rep.user_fault, 1);
	ck_assert_ptr_nonnull(strstr(rep.msg, "list file"));
	dl_stage_close(st);
	_teardown();
}
END_TEST

START_TEST(test_symlink_planted_in_store)
{
	char src[256], victim[256], c[1200], meta[1200], bucket[1100];
	dl_stage_report_t rep;
	dl_stage_t *st;
	struct stat sb;
	char *sp;
	FILE *f;

	if (!_root())
		return;
	_setup();
	snprintf(src, sizeof(src), "%s", _mkfile("src", 5000, 1, 0644));
	snprintf(victim, sizeof(victim), "%s/victim", base);
	f = fopen(victim, "w");
	fprintf(f, "precious\n");
	fclose(f);
	dl_stage_close(_open(DL_CACHE_UNLIMITED, DL_EVICT_VALUE));
	/* a symlink at the store name, with metadata that makes it a "hit" */
	sp = _store_path(src);
	snprintf(bucket, sizeof(bucket), "%s", sp);
	*strrchr(bucket, '/') = '\0';
	mkdir(bucket, 0700);
	ck_assert_int_eq(symlink(victim, sp), 0);
	ck_assert_int_eq(stat(src, &sb), 0);
	snprintf(meta, sizeof(meta), "%s.meta", sp);
	f = fopen(meta, "w");
	fprintf(f, "1 %lld %llu %llu %lld %lld 1 1 1 %s\n",
		(long long) sb.st_size, (unsigned long long) sb.st_dev,
		(unsigned long long) sb.st_ino,
		(long long) sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec,
		(long long) sb.st_ctim.tv_sec * 1000000000 + sb.st_ctim.tv_nsec,
		src);
	fclose(f);
	st = _open(DL_CACHE_UNLIMITED, DL_EVICT_VALUE);
	snprintf(c, sizeof(c), "files:%s", src);
	ck_assert_int_eq(_stage(st, 1, NOBODY, c, &rep), 0);
	ck_assert_uint_eq(rep.copied, 1); /* not taken for a hit */
	ck_assert_int_eq(lstat(sp, &sb), 0);
	ck_assert(S_ISREG(sb.st_mode));
	ck_assert(_same_content(sp, src));
	ck_assert(_same_content(_view_file(1, src), src));
	/* the victim was neither read into the view nor written */
	ck_assert_int_eq(lstat(victim, &sb), 0);
	ck_assert_uint_eq(sb.st_size, 9);
	ck_assert_uint_eq(sb.st_mode & 0777, 0644);
	dl_stage_close(st);

	/* a symlink without metadata is a left-over: removed, not followed */
	ck_assert_int_eq(unlink(sp), 0);
	ck_assert_int_eq(symlink(victim, sp), 0);
	unlink(meta);
	st = _open(DL_CACHE_UNLIMITED, DL_EVICT_VALUE);
	ck_assert_int_eq(_stage(st, 2, NOBODY, c, &rep), 0);
	ck_assert_uint_eq(rep.copied, 1);
	ck_assert_int_eq(lstat(sp, &sb), 0);
	ck_assert(S_ISREG(sb.st_mode));
	ck_assert_int_eq(lstat(victim, &sb), 0);
	ck_assert_uint_eq(sb.st_size, 9);
	dl_stage_close(st);
	_teardown();
}
END_TEST

START_TEST(test_symlink_planted_view_and_dirs)
{
	char src[256], vdir[256], c[1200], p[1100];
	dl_stage_report_t rep;
	dl_stage_opts_t o = {.capacity = DL_CACHE_UNLIMITED};
	dl_stage_t *st;
	struct stat sb;
	char err[512];
	FILE *f;

	if (!_root())
		return;
	_setup();
	snprintf(src, sizeof(src), "%s", _mkfile("src", 5000, 1, 0644));
	snprintf(vdir, sizeof(vdir), "%s/victimdir", base);
	mkdir(vdir, 0755);
	snprintf(p, sizeof(p), "%s/keep", vdir);
	f = fopen(p, "w");
	fclose(f);
	dl_stage_close(_open(DL_CACHE_UNLIMITED, DL_EVICT_VALUE));
	/* a stale "view" that is a symlink to a directory of someone else's */
	ck_assert_int_eq(symlink(vdir, _path_in(".jobs/5.view")), 0);
	st = _open(DL_CACHE_UNLIMITED, DL_EVICT_VALUE);
	snprintf(c, sizeof(c), "files:%s", src);
	ck_assert_int_eq(_stage(st, 5, NOBODY, c, &rep), 0);
	ck_assert_int_eq(lstat(_path_in(".jobs/5.view"), &sb), 0);
	ck_assert(S_ISDIR(sb.st_mode));
	ck_assert_int_eq(lstat(p, &sb), 0); /* victimdir/keep untouched */
	ck_assert_int_eq(dl_stage_job_end(st, 5, &rep), 0);
	ck_assert_int_eq(lstat(p, &sb), 0);
	dl_stage_close(st);

	/* .tmp replaced by a symlink: the cache is refused */
	snprintf(p, sizeof(p), "rm -rf '%s/.tmp' && ln -s '%s' '%s/.tmp'",
		 cdir, vdir, cdir);
	ck_assert_int_eq(system(p), 0);
	st = NULL;
	ck_assert_int_eq(dl_stage_open(cdir, &o, 1, &st, err, sizeof(err)),
			 DL_EPERM);
	ck_assert_ptr_null(st);
	ck_assert_ptr_nonnull(strstr(err, "symbolic link"));
	/* the cache directory itself a symlink: refused */
	snprintf(p, sizeof(p), "%s/cache/link", base);
	ck_assert_int_eq(symlink(cdir, p), 0);
	ck_assert_int_eq(dl_stage_open(p, &o, 0, &st, err, sizeof(err)),
			 DL_EPERM);
	_teardown();
}
END_TEST

START_TEST(test_unsafe_cache_dir)
{
	dl_stage_opts_t o = {.capacity = DL_CACHE_UNLIMITED};
	dl_stage_t *st = NULL;
	char err[512], p[300];

	if (!_root())
		return;
	_setup();
	dl_stage_close(_open(DL_CACHE_UNLIMITED, DL_EVICT_VALUE));
	/* world-writable: refused, with the reason */
	ck_assert_int_eq(chmod(cdir, 0777), 0);
	ck_assert_int_eq(dl_stage_open(cdir, &o, 1, &st, err, sizeof(err)),
			 DL_EPERM);
	ck_assert_ptr_null(st);
	ck_assert_ptr_nonnull(strstr(err, "writable by group or others"));
	ck_assert_int_eq(chmod(cdir, 0711), 0);
	/* a subdirectory writable by its group */
	snprintf(p, sizeof(p), "%s/store", cdir);
	ck_assert_int_eq(chmod(p, 0770), 0);
	ck_assert_int_eq(dl_stage_open(cdir, &o, 1, &st, err, sizeof(err)),
			 DL_EPERM);
	ck_assert_int_eq(chmod(p, 0755), 0); /* looser but safe: tightened */
	ck_assert_int_eq(dl_stage_open(cdir, &o, 1, &st, err, sizeof(err)), 0);
	dl_stage_close(st);
	ck_assert_int_eq(access(p, F_OK), 0);
	{
		struct stat sb;

		ck_assert_int_eq(stat(p, &sb), 0);
		ck_assert_uint_eq(sb.st_mode & 07777, 0700);
	}
	/* owned by another user */
	ck_assert_int_eq(chown(cdir, NOBODY, NOBODY), 0);
	ck_assert_int_eq(dl_stage_open(cdir, &o, 1, &st, err, sizeof(err)),
			 DL_EPERM);
	ck_assert_ptr_nonnull(strstr(err, "owned by uid 65534"));
	ck_assert_int_eq(chown(cdir, 0, 0), 0);
	/* missing without create */
	snprintf(p, sizeof(p), "%s/cache/n9", base);
	ck_assert_int_eq(dl_stage_open(p, &o, 0, &st, err, sizeof(err)),
			 DL_ENOENT);
	_teardown();
}
END_TEST

START_TEST(test_stale_reservation)
{
	char src[256], c[1200], meta[1200], bucket[1100];
	dl_stage_report_t rep;
	dl_stage_t *st;
	struct stat sb;
	char *sp;
	FILE *f;

	if (!_root())
		return;
	_setup();
	snprintf(src, sizeof(src), "%s", _mkfile("r", 7000, 1, 0644));
	dl_stage_close(_open(DL_CACHE_UNLIMITED, DL_EVICT_VALUE));
	/* a copier died after reserving: metadata, no data, lock free */
	sp = _store_path(src);
	snprintf(bucket, sizeof(bucket), "%s", sp);
	*strrchr(bucket, '/') = '\0';
	mkdir(bucket, 0700);
	snprintf(meta, sizeof(meta), "%s.meta", sp);
	f = fopen(meta, "w");
	fprintf(f, "1 7000 1 2 3 4 5 6 1 %s\n", src);
	fclose(f);
	/* and a temporary file of a dead process */
	snprintf(c, sizeof(c), "%s/.tmp/%s.999999999.0", cdir,
		 strrchr(sp, '/') + 1);
	f = fopen(c, "w");
	fclose(f);
	st = _open(6000, DL_EVICT_VALUE);
	/* listed as a copy in progress?  No: its copier is gone. */
	ck_assert(!_cached(st, src));
	ck_assert_int_eq(dl_stage_write_inventory(st), 0);
	dl_stage_close(st);
	/* the stale entry is gone and the file is copied afresh */
	st = _open(8000, DL_EVICT_VALUE);
	snprintf(c, sizeof(c), "files:%s", src);
	ck_assert_int_eq(_stage(st, 1, NOBODY, c, &rep), 0);
	ck_assert_uint_eq(rep.copied, 1);
	ck_assert_int_eq(lstat(sp, &sb), 0);
	ck_assert_uint_eq(sb.st_size, 7000);
	snprintf(c, sizeof(c), "test -z \"$(ls -A '%s/.tmp')\"", cdir);
	ck_assert_int_eq(system(c), 0);
	dl_stage_close(st);
	_teardown();
}
END_TEST

Suite *make_stage_suite(void)
{
	Suite *s = suite_create("stage");
	TCase *tc = tcase_create("names");

	tcase_add_test(tc, test_sha256_vectors);
	tcase_add_test(tc, test_store_name);
	tcase_add_test(tc, test_conf);
	suite_add_tcase(s, tc);

	tc = tcase_create("staging");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_copy_atomic_and_view);
	tcase_add_test(tc, test_evict_never_pinned);
	tcase_add_test(tc, test_capacity_random_workload);
	tcase_add_test(tc, test_concurrent_single_copy);
	tcase_add_test(tc, test_changed_source_recopied);
	tcase_add_test(tc, test_list_file);
	tcase_add_test(tc, test_stale_reservation);
	suite_add_tcase(s, tc);

	tc = tcase_create("security");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_permission_drop);
	tcase_add_test(tc, test_opener);
	tcase_add_test(tc, test_symlink_planted_in_store);
	tcase_add_test(tc, test_symlink_planted_view_and_dirs);
	tcase_add_test(tc, test_unsafe_cache_dir);
	suite_add_tcase(s, tc);
	return s;
}
