/*
 * check_stage.c - unit tests of node-side staging (src/stage): store
 * names, datalocality.conf keys, atomic copies, eviction under pins, one
 * copy for concurrent jobs, the job user's permissions (also on a hit),
 * planted symbolic links, unsafe cache directories, views; and hostile
 * input: the opener killed or stopped by the job's user, metadata charged
 * against the capacity, a full cache file system (a tmpfs in the test's
 * own mount namespace), same-second rewrites, per-user shares, strict
 * readers, leftovers of jobs whose Epilog never ran.
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
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check_suites.h"
#include "dl_error.h"
#include "dl_files.h"
#include "opener.h"
#include "sha256.h"
#include "squeue.h"
#include "stage.h"
#include "stage_conf.h"
#include "stage_int.h"

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

/* A file of fmt's text at path, readable by all (jobs read lists as
 * nobody). */
static void _mklist(const char *path, const char *fmt, ...)
{
	FILE *f = fopen(path, "w");
	va_list ap;

	ck_assert_ptr_nonnull(f);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
	ck_assert_int_eq(chmod(path, 0644), 0);
}

/*
 * The source file in_7 (its path in a) and, in line, the same path with
 * in_%a for the name: one list line for every task of an array.
 */
static void _mk_task_input(char a[256], char line[300])
{
	snprintf(a, 256, "%s", _mkfile("in_7", 3000, 3, 0644));
	snprintf(line, 300, "%s", a);
	strcpy(strrchr(line, '/') + 1, "in_%a");
}

static bool _same_content(const char *a, const char *b)
{
	static char ba[65536], bb[65536];
	FILE *fa = fopen(a, "r"), *fb = fopen(b, "r");
	bool same = fa && fb;

	while (same) {
		size_t na = fread(ba, 1, sizeof(ba), fa);
		size_t nb = fread(bb, 1, sizeof(bb), fb);

		same = na == nb && !memcmp(ba, bb, na);
		if (na < sizeof(ba))
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

/* The cache opened (made) with the options o, which a test chose. */
static dl_stage_t *_open_opts(const dl_stage_opts_t *o)
{
	dl_stage_t *st = NULL;
	char err[512] = "";
	int rc = dl_stage_open(cdir, o, 1, &st, err, sizeof(err));

	ck_assert_msg(rc == 0, "dl_stage_open: %s: %s", dl_strerror(rc), err);
	return st;
}

/* A new empty cache with the options o: the old one removed. */
static dl_stage_t *_reopen_empty(dl_stage_t *st, const dl_stage_opts_t *o)
{
	char cmd[300];

	dl_stage_close(st);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", cdir);
	ck_assert_int_eq(system(cmd), 0);
	return _open_opts(o);
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

/*
 * What a file of size bytes costs the cache under /tmp: its blocks, a
 * block for its .meta, 160 bytes of directory entries.
 */
static uint64_t _charge(uint64_t size)
{
	struct statvfs v;
	uint64_t bs;

	ck_assert_int_eq(statvfs(base, &v), 0);
	bs = v.f_frsize;
	return (size + bs - 1) / bs * bs + bs + 160;
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
	static char p[1536];

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

/* Fails the test unless the entry has exactly one pin. */
static int _pins_of(const dl_stage_entry_t *e, void *arg)
{
	(void)arg;
	ck_assert_uint_eq(e->pins, 1);
	return 0;
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

	/* the limits; a line that is not Key=value is reported, not used */
	f = fopen(path, "w");
	fprintf(f, "CacheMaxFiles=100k\nCacheUserShare=0.5\nStageOpenTimeout=7\n"
		   "CacheDir /etc\nbad key=1\n=x\n\n  # fine\n");
	fclose(f);
	nwarn = 0;
	ck_assert_int_eq(dl_stage_conf_read(path, 0, &c, _count_warn, NULL,
					    err, sizeof(err)), 0);
	ck_assert_int_eq(nwarn, 3);
	ck_assert_ptr_null(c.cache_dir);
	ck_assert_uint_eq(c.max_files, 100 << 10);
	ck_assert(c.user_share == 0.5);
	ck_assert_uint_eq(c.open_timeout, 7);
	dl_stage_conf_clear(&c);
	f = fopen(path, "w");
	fprintf(f, "CacheUserShare=1.5\nStageOpenTimeout=0\nCacheUserShare=-1\n");
	fclose(f);
	nwarn = 0;
	ck_assert_int_eq(dl_stage_conf_read(path, 0, &c, _count_warn, NULL,
					    err, sizeof(err)), 0);
	ck_assert_int_eq(nwarn, 3);
	ck_assert(c.user_share == 0);
	ck_assert_uint_eq(c.open_timeout, DL_STAGE_OPEN_TIMEOUT);
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
	snprintf(want, sizeof(want),
		 "# dl-stage inventory 1 node=n1 capacity=unlimited used=%" PRIu64
		 " files=2 ",
		 _charge(3 << 20) + _charge(0));
	ck_assert_msg(!strncmp(inv, want, strlen(want)), "header: %s", inv);
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
	st = _open(3 * _charge(1 << 20), DL_EVICT_LRU);
	/* job 1 uses f0, f1; job 2 uses f2: the cache is full, all pinned */
	snprintf(c, sizeof(c), "files:%s,%s", f[0], f[1]);
	ck_assert_int_eq(_stage(st, 1, NOBODY, c, &rep), 0);
	snprintf(c, sizeof(c), "files:%s", f[2]);
	ck_assert_int_eq(_stage(st, 2, NOBODY, c, &rep), 0);
	ck_assert_uint_eq(_used(st), 3 * _charge(1 << 20));
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
	ck_assert_uint_le(_used(st), 3 * _charge(1 << 20));
	ck_assert_int_eq(lstat(_store_path(f[2]), &sb), -1);
	/* evict --to 1M: only pinned files (f0, f1 of job 1, f4 of job 4) */
	ck_assert_int_eq(dl_stage_evict_to(st, _charge(1 << 20), &rep),
			 DL_ENOSPC);
	ck_assert_uint_eq(rep.evicted, 0);
	ck_assert_int_eq(dl_stage_job_end(st, 1, &rep), 0);
	ck_assert_int_eq(dl_stage_evict_to(st, _charge(1 << 20), &rep), 0);
	ck_assert_uint_eq(rep.evicted, 2);
	ck_assert(_cached(st, f[4]));
	ck_assert_uint_eq(_used(st), _charge(1 << 20));
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

/* Processes blocked on the flock of fd's file, from /proc/locks. */
static int _lock_waiters(int fd)
{
	char line[512], ino[32];
	struct stat sb;
	int n = 0;
	FILE *f;

	ck_assert_int_eq(fstat(fd, &sb), 0);
	snprintf(ino, sizeof(ino), ":%llu ", (unsigned long long)sb.st_ino);
	f = fopen("/proc/locks", "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		n += strstr(line, "->") && strstr(line, "FLOCK") &&
		     strstr(line, ino);
	fclose(f);
	return n;
}

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
			/* both wait for the lock: a condition, not a delay */
			while (_lock_waiters(lk) < 2)
				usleep(10000);
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
	ck_assert_int_eq(dl_opener_start(OTHER_UID, NOBODY, NULL, 0, &op, err,
					 sizeof(err)), 0);
	ck_assert_int_eq(dl_opener_open(op, secret, &fd, &e), 0);
	close(fd);
	ck_assert_int_eq(dl_opener_open(op, "/etc/shadow", &fd, &e), DL_EPERM);
	ck_assert_int_eq(e, EACCES);
	ck_assert_int_eq(dl_opener_open(op, "/nonexistent", &fd, &e),
			 DL_ENOENT);
	dl_opener_stop(op);
	ck_assert_int_eq(dl_opener_start(OTHER_UID, OTHER_UID, NULL, 0, &op,
					 err, sizeof(err)), 0);
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
	ck_assert_uint_eq(_used(st), _charge(100000));
	dl_stage_close(st);
	_teardown();
}
END_TEST

START_TEST(test_list_file)
{
	char a[256], b[256], list[256], c[1200];
	dl_stage_report_t rep;
	dl_stage_t *st;

	if (!_root())
		return;
	_setup();
	snprintf(a, sizeof(a), "%s", _mkfile("la", 1000, 1, 0644));
	snprintf(b, sizeof(b), "%s", _mkfile("lb", 2000, 2, 0644));
	snprintf(list, sizeof(list), "%s/list.txt", ddir);
	_mklist(list, "# inputs\n%s\n%s 2000\n", a, b);
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

/*
 * A list file's lines expanded with the job's pattern values (one list
 * for a whole array: line in_%a), and taken as written without them.
 */
START_TEST(test_list_file_patterns)
{
	char a[256], list[256], c[1200], line[300];
	dl_pattern_ctx_t ctx;
	dl_stage_report_t rep;
	dl_stage_job_t job = { .job_id = 11, .uid = NOBODY, .gid = NOBODY };
	dl_filelist_t *l;
	dl_stage_t *st;

	if (!_root())
		return;
	_setup();
	_mk_task_input(a, line);
	snprintf(list, sizeof(list), "%s/list_in", ddir);
	_mklist(list, "%s\n", line);
	st = _open(DL_CACHE_UNLIMITED, DL_EVICT_VALUE);
	snprintf(c, sizeof(c), "files:@%s", list);
	dl_pattern_ctx_init(&ctx);
	ctx.job_id = 11;
	ctx.task_id = 7;
	ctx.array_job_id = 10;
	job.pattern = &ctx;
	l = _files(c);
	ck_assert_int_eq(dl_stage_job(st, &job, l, &rep), 0);
	dl_filelist_free(l);
	ck_assert_uint_eq(rep.files, 1);
	ck_assert(_same_content(_view_file(11, a), a));
	/* another task's line names a file that is not there: its fault */
	ctx.task_id = 8;
	job.job_id = 12;
	l = _files(c);
	ck_assert_int_ne(dl_stage_job(st, &job, l, &rep), 0);
	dl_filelist_free(l);
	ck_assert_int_eq(rep.user_fault, 1);
	ck_assert_ptr_nonnull(strstr(rep.msg, "in_8"));
	/* without values the line is a path as written ("in_%a"), missing */
	ck_assert_int_ne(_stage(st, 13, NOBODY, c, &rep), 0);
	ck_assert_ptr_nonnull(strstr(rep.msg, "in_%a"));
	dl_stage_close(st);
	_teardown();
}
END_TEST

/*
 * The values of a list's lines are looked up lazily (issue 25): the
 * pattern_need callback is called only for a list whose lines use a
 * value that is not known, with just those values, and what it fills in
 * is used; dl_stage_list_fields() tells the same from the lists read as
 * the user, for dl-stage's path through dl-cached.
 */
static int need_calls;
static unsigned need_seen;
static dl_pattern_ctx_t need_ctx;

static void _need_cb(const dl_stage_job_t *job, unsigned need)
{
	(void)job;
	need_calls++;
	need_seen |= need;
	need_ctx.task_id = 7;
	need_ctx.array_job_id = 10;
}

START_TEST(test_list_patterns_lazy)
{
	char a[256], plain[256], pat[256], c[1200], line[300];
	dl_stage_job_t job = { .job_id = 21, .uid = NOBODY, .gid = NOBODY };
	dl_stage_report_t rep;
	dl_filelist_t *l;
	dl_stage_t *st;
	unsigned need;

	if (!_root())
		return;
	_setup();
	_mk_task_input(a, line);
	snprintf(plain, sizeof(plain), "%s/list_plain", ddir);
	snprintf(pat, sizeof(pat), "%s/list_pat", ddir);
	/* a '%' in a comment line is no pattern */
	_mklist(plain, "# 100%% plain, no %%a here\n%s\n", a);
	_mklist(pat, "%s\n", line);
	st = _open(DL_CACHE_UNLIMITED, DL_EVICT_VALUE);
	dl_pattern_ctx_init(&need_ctx);
	need_ctx.job_id = 21;
	job.pattern = &need_ctx;
	job.pattern_need = _need_cb;
	snprintf(c, sizeof(c), "files:@%s", plain);
	l = _files(c);
	ck_assert_int_eq(dl_stage_list_fields(&job, l, ~0u, 0, &need), 0);
	ck_assert_uint_eq(need, 0);
	ck_assert_int_eq(dl_stage_job(st, &job, l, &rep), 0);
	dl_filelist_free(l);
	ck_assert_int_eq(need_calls, 0);
	ck_assert(_same_content(_view_file(21, a), a));
	/* a line with %a: asked once, for %a only, and the value is used */
	job.job_id = 22;
	need_ctx.job_id = 22;
	snprintf(c, sizeof(c), "files:@%s,@%s", plain, pat);
	l = _files(c);
	ck_assert_int_eq(dl_stage_list_fields(&job, l, ~0u, 0, &need), 0);
	ck_assert_uint_eq(need, DL_PATTERN_TASK);
	ck_assert_int_eq(dl_stage_list_fields(&job, l, DL_PATTERN_NAME, 0,
					      &need), 0);
	ck_assert_uint_eq(need, 0);
	ck_assert_int_eq(dl_stage_job(st, &job, l, &rep), 0);
	dl_filelist_free(l);
	ck_assert_int_eq(need_calls, 1);
	ck_assert_uint_eq(need_seen, DL_PATTERN_TASK);
	ck_assert_uint_eq(rep.files, 1);
	ck_assert(_same_content(_view_file(22, a), a));
	/* known values need no call */
	job.job_id = 23;
	need_ctx.job_id = 23;
	l = _files(c);
	ck_assert_int_eq(dl_stage_job(st, &job, l, &rep), 0);
	dl_filelist_free(l);
	ck_assert_int_eq(need_calls, 1);
	/* a list the user cannot read needs nothing (its reader says why) */
	chmod(pat, 0600);
	l = _files(c);
	ck_assert_int_eq(dl_stage_list_fields(&job, l, ~0u, 0, &need), 0);
	ck_assert_uint_eq(need, 0);
	dl_filelist_free(l);
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
	st = _open(_charge(7000), DL_EVICT_VALUE);
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

/* ------------------------------------------------------------------ */
/* hostile input (node side)                                           */

/* The uid of a process, from /proc/<pid>/status; -1 if unknown. */
static long _proc_uid(const char *pid)
{
	char p[300], line[256];
	long uid = -1;
	FILE *f;

	snprintf(p, sizeof(p), "/proc/%s/status", pid);
	f = fopen(p, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "Uid:", 4))
			uid = strtol(line + 4, NULL, 10);
	fclose(f);
	return uid;
}

/* The parent of a process, from /proc/<pid>/stat; -1 if unknown. */
static long _proc_ppid(const char *pid)
{
	char p[300], buf[512], *rp;
	long ppid = -1;
	FILE *f;

	snprintf(p, sizeof(p), "/proc/%s/stat", pid);
	f = fopen(p, "r");
	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f) && (rp = strrchr(buf, ')')))
		sscanf(rp + 2, "%*c %ld", &ppid);
	fclose(f);
	return ppid;
}

/*
 * A process of user uid that sends sig to the first child of parent
 * running as uid (the opener), as the job's user can from another job.
 */
static pid_t _attacker(uid_t uid, pid_t parent, int sig)
{
	pid_t pid = fork();
	char self[32];

	ck_assert_int_ge(pid, 0);
	if (pid)
		return pid;
	if (setgroups(0, NULL) || setgid(uid) || setuid(uid))
		_exit(99);
	snprintf(self, sizeof(self), "%ld", (long)getpid());
	for (int round = 0; round < 2000; round++) {
		char cmd[64];
		FILE *ls = popen("ls /proc", "r");

		while (ls && fgets(cmd, sizeof(cmd), ls)) {
			cmd[strcspn(cmd, "\n")] = '\0';
			if (strspn(cmd, "0123456789") != strlen(cmd) ||
			    !strcmp(cmd, self) || _proc_ppid(cmd) != parent ||
			    _proc_uid(cmd) != (long)uid)
				continue;
			pclose(ls);
			_exit(kill((pid_t)atol(cmd), sig) ? 2 : 0);
		}
		if (ls)
			pclose(ls);
		usleep(5000);
	}
	_exit(1);
}

START_TEST(test_opener_killed_or_stopped)
{
	static const int sig[] = {SIGKILL, SIGSTOP};
	dl_opener_t *op = NULL;
	char err[256], path[300];
	struct timespec t0, t1;
	int fd, e, status;

	if (!_root())
		return;
	_setup();
	snprintf(path, sizeof(path), "%s", _mkfile("o", 10, 1, 0644));
	for (int k = 0; k < 2; k++) {
		pid_t atk;

		ck_assert_int_eq(dl_opener_start(NOBODY, NOBODY, NULL, 1, &op,
						 err, sizeof(err)), 0);
		ck_assert_str_eq(dl_opener_failure(op), "");
		/* the job's own user can signal it: it runs as that user */
		atk = _attacker(NOBODY, getpid(), sig[k]);
		ck_assert_int_eq(waitpid(atk, &status, 0), atk);
		ck_assert(WIFEXITED(status));
		ck_assert_int_eq(WEXITSTATUS(status), 0);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		ck_assert_int_eq(dl_opener_open(op, path, &fd, &e),
				 DL_ETIMEDOUT);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		/* not hung (the answer limit is 1 s; a busy host is slow) */
		ck_assert_int_le(t1.tv_sec - t0.tv_sec, 60);
		ck_assert_ptr_nonnull(strstr(dl_opener_failure(op),
					     k ? "did not answer within 1 s"
					       : "was killed by signal 9"));
		/* later requests fail at once; stopping never hangs */
		ck_assert_int_eq(dl_opener_open(op, path, &fd, &e),
				 DL_ETIMEDOUT);
		dl_opener_stop(op);
	}
	_teardown();
}
END_TEST

/* Finding 1: the opener's death or silence is the job's fault. */
START_TEST(test_opener_attack_fails_job)
{
	static const int sig[] = {SIGKILL, SIGSTOP};
	char c[4096], note[1024];
	dl_stage_report_t rep;
	struct stat sb;

	if (!_root())
		return;
	_setup();
	/* five files paced at 200 KB/s: the opener lives for 2.5 s */
	snprintf(c, sizeof(c), "files:");
	for (int i = 0; i < 5; i++) {
		char name[16];

		snprintf(name, sizeof(name), "slow%d", i);
		snprintf(c + strlen(c), sizeof(c) - strlen(c), "%s%s",
			 i ? "," : "", _mkfile(name, 100000, i, 0644));
	}
	for (int k = 0; k < 2; k++) {
		dl_stage_opts_t o = {.capacity = DL_CACHE_UNLIMITED,
				     .node = "n1", .open_timeout = 1,
				     .emu_bw = 200000, .emu_servers = 1,
				     .emu_lockdir = base};
		dl_stage_t *st = NULL;
		char err[256], cmd[300];
		pid_t atk;
		int status, fd;
		ssize_t n;

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", cdir);
		ck_assert_int_eq(system(cmd), 0);
		ck_assert_int_eq(dl_stage_open(cdir, &o, 1, &st, err,
					       sizeof(err)), 0);
		atk = _attacker(NOBODY, getpid(), sig[k]);
		ck_assert_int_eq(_stage(st, 30, NOBODY, c, &rep),
				 DL_ETIMEDOUT);
		ck_assert_int_eq(waitpid(atk, &status, 0), atk);
		ck_assert_int_eq(WEXITSTATUS(status), 0);
		ck_assert_int_eq(rep.user_fault, 1);
		ck_assert_ptr_nonnull(strstr(rep.msg,
					     "the helper opening files as user"));
		ck_assert_ptr_nonnull(strstr(rep.msg,
					     k ? "did not answer" : "killed"));
		/* the job fails with a note; nothing else of it is left */
		fd = open(_path_in(".jobs/30.failed"), O_RDONLY);
		ck_assert_int_ge(fd, 0);
		n = read(fd, note, sizeof(note) - 1);
		close(fd);
		note[n > 0 ? n : 0] = '\0';
		ck_assert_ptr_nonnull(strstr(note, "the helper opening files"));
		ck_assert_int_eq(lstat(_path_in(".jobs/30.view"), &sb), -1);
		ck_assert_int_eq(lstat(_path_in(".jobs/30.pins"), &sb), -1);
		dl_stage_close(st);
	}
	_teardown();
}
END_TEST

/* Finding 2: metadata counts, and CacheMaxFiles bounds the inodes. */
START_TEST(test_charge_and_max_files)
{
	dl_stage_opts_t o = {.capacity = 0, .node = "n1",
			     .policy = DL_EVICT_LRU};
	dl_stage_report_t rep;
	dl_stage_t *st = NULL;
	char c[8192], err[256];
	struct stat sb;
	size_t files = 0;

	if (!_root())
		return;
	_setup();
	snprintf(c, sizeof(c), "files:");
	for (int i = 0; i < 40; i++) {
		char name[16];

		snprintf(name, sizeof(name), "t%02d", i);
		snprintf(c + strlen(c), sizeof(c) - strlen(c), "%s%s",
			 i ? "," : "", _mkfile(name, 100, i, 0644));
	}
	/* 40 files of 100 bytes: 4,000 bytes of data, 40 charges */
	o.capacity = 10 * _charge(100);
	ck_assert_int_eq(dl_stage_open(cdir, &o, 1, &st, err, sizeof(err)),
			 0);
	ck_assert_int_eq(_stage(st, 1, NOBODY, c, &rep), 0);
	ck_assert_uint_eq(rep.copied, 10);
	ck_assert_uint_eq(rep.uncached, 30);
	ck_assert_uint_eq(_used(st), 10 * _charge(100));
	/* no lock file is kept for a cached file (the store's lock and its
	 * byte counters stay) */
	snprintf(err, sizeof(err), "test -z \"$(ls -A '%s/.locks' | grep -vx -e global -e bytes)\"",
		 cdir);
	ck_assert_int_eq(system(err), 0);
	ck_assert_int_eq(dl_stage_job_end(st, 1, &rep), 0);
	dl_stage_close(st);
	/* CacheMaxFiles: at most 4 files, whatever the bytes; the job's
	 * ten other files evict the ten cached, keep four, read six from
	 * their sources */
	o.capacity = DL_CACHE_UNLIMITED;
	o.max_files = 4;
	ck_assert_int_eq(dl_stage_open(cdir, &o, 1, &st, err, sizeof(err)),
			 0);
	snprintf(c, sizeof(c), "files:");
	for (int i = 30; i < 40; i++)
		snprintf(c + strlen(c), sizeof(c) - strlen(c), "%s%s/t%02d",
			 i > 30 ? "," : "", ddir, i);
	ck_assert_int_eq(_stage(st, 2, NOBODY, c, &rep), 0);
	ck_assert_uint_eq(rep.evicted, 10);
	ck_assert_uint_eq(rep.copied, 4);
	ck_assert_uint_eq(rep.uncached, 6);
	ck_assert_int_eq(dl_stage_job_end(st, 2, &rep), 0);
	for (int i = 0; i < 40; i++) {
		char name[256], *p;

		snprintf(name, sizeof(name), "%s/t%02d", ddir, i);
		p = _store_path(name);
		files += !lstat(p, &sb);
	}
	ck_assert_uint_le(files, 4);
	dl_stage_close(st);
	_teardown();
}
END_TEST

/* A tmpfs of size bytes and inodes at dir, in a mount namespace of this
 * test's own (it vanishes with the test).  \return false if impossible. */
static bool _small_fs(const char *dir, const char *opts)
{
	if (unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mkdir(dir, 0755) ||
	    mount("tmpfs", dir, "tmpfs", 0, opts)) {
		fprintf(stderr, "check_stage: no tmpfs (%s), test skipped\n",
			strerror(errno));
		return false;
	}
	return true;
}

/* Fill the file system of dir: blocks, or with inodes also every inode. */
static void _fill(const char *dir, bool inodes)
{
	char p[300], buf[65536] = {0};
	int fd;

	snprintf(p, sizeof(p), "%s/filler", dir);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	while (write(fd, buf, sizeof(buf)) > 0)
		;
	while (write(fd, buf, 1) > 0)
		;
	close(fd);
	for (int i = 0; inodes; i++) {
		snprintf(p, sizeof(p), "%s/i%d", dir, i);
		fd = open(p, O_WRONLY | O_CREAT, 0600);
		if (fd < 0)
			break;
		close(fd);
	}
}

/* Finding 2: a full cache file system fails neither job nor node. */
START_TEST(test_full_file_system)
{
	char small[100], list[300], c[400], hits[2048], v[1200];
	dl_stage_report_t rep;
	dl_stage_t *st;
	struct statvfs vfs;
	FILE *f;

	if (!_root())
		return;
	_setup();
	snprintf(small, sizeof(small), "%s/small", base);
	if (!_small_fs(small, "size=1m,nr_inodes=2500")) {
		_teardown();
		return;
	}
	snprintf(cdir, sizeof(cdir), "%s/n1", small);
	snprintf(list, sizeof(list), "%s/list", ddir);
	f = fopen(list, "w");
	for (int i = 0; i < 1000; i++) {
		char name[16];

		snprintf(name, sizeof(name), "t%04d", i);
		fprintf(f, "%s\n", _mkfile(name, 100, i, 0644));
	}
	fclose(f);
	chmod(list, 0644);
	/* no CacheCapacity at all: the file system is the only limit */
	st = _open(DL_CACHE_UNLIMITED, DL_EVICT_LRU);
	snprintf(c, sizeof(c), "files:@%s", list);
	ck_assert_int_eq(_stage(st, 1, NOBODY, c, &rep), 0);
	ck_assert_uint_eq(rep.copied + rep.uncached, 1000);
	ck_assert_uint_gt(rep.copied, 0);
	ck_assert_uint_gt(rep.uncached, 0);
	for (int i = 0; i < 1000; i += 37) {
		char src[256];

		snprintf(src, sizeof(src), "%s/t%04d", ddir, i);
		ck_assert(_same_content(_view_file(1, src), src));
	}
	ck_assert_int_eq(statvfs(small, &vfs), 0);
	ck_assert_uint_gt(vfs.f_bavail, 0);
	ck_assert_uint_gt(vfs.f_favail, 0);
	ck_assert_int_eq(dl_stage_job_end(st, 1, &rep), 0);
	/* the file system full: pure hits still serve the job */
	snprintf(hits, sizeof(hits), "files:");
	for (int i = 0; i < 1000 && strlen(hits) < sizeof(hits) - 300; i++) {
		snprintf(v, sizeof(v), "%s/t%04d", ddir, i);
		if (_cached(st, v))
			snprintf(hits + strlen(hits),
				 sizeof(hits) - strlen(hits), "%s%s",
				 hits[6] ? "," : "", v);
	}
	ck_assert_int_gt(strlen(hits), 6);
	for (int inodes = 0; inodes < 2; inodes++) {
		_fill(small, inodes);
		ck_assert_int_eq(_stage(st, 2 + inodes, NOBODY, hits, &rep),
				 0);
		ck_assert_uint_eq(rep.hits + rep.uncached + rep.copied,
				  rep.bypassed ? 0 : rep.files);
		if (!rep.bypassed) {
			snprintf(v, sizeof(v), "%s", strchr(hits, ':') + 1);
			*strchrnul(v, ',') = '\0';
			ck_assert(_same_content(_view_file(2 + inodes, v), v));
		}
		ck_assert_int_eq(dl_stage_job_end(st, 2 + inodes, &rep), 0);
	}
	dl_stage_close(st);
	umount(small);
	_teardown();
}
END_TEST

/* Set the ctime field (the sixth) of a .meta to ctime_ns. */
static void _meta_set_ctime(const char *meta, int64_t ctime_ns)
{
	char buf[8192], out[8192], *fld[16], *save = NULL;
	int n = 0, len = 0;
	FILE *f = fopen(meta, "r");

	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(buf, sizeof(buf), f));
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	for (char *t = strtok_r(buf, " ", &save); t && n < 16;
	     t = strtok_r(NULL, " ", &save))
		fld[n++] = t;
	ck_assert_int_ge(n, 10);
	for (int i = 0; i < n; i++) {
		if (i == 5)
			len += snprintf(out + len, sizeof(out) - len,
					"%s%" PRId64, i ? " " : "", ctime_ns);
		else
			len += snprintf(out + len, sizeof(out) - len, "%s%s",
					i ? " " : "", fld[i]);
	}
	f = fopen(meta, "w");
	fprintf(f, "%s\n", out);
	fclose(f);
}

/* Finding 3: a same-size rewrite within the same second is noticed. */
START_TEST(test_same_second_rewrite)
{
	char src[256], old[256], c[1200], meta[1200];
	struct timespec t[2], made, now;
	dl_stage_report_t rep;
	dl_stage_t *st;
	struct stat sb;

	if (!_root())
		return;
	_setup();
	/* last changed over 2 s before it is staged (below) */
	clock_gettime(CLOCK_MONOTONIC, &made);
	snprintf(old, sizeof(old), "%s", _mkfile("old", 10000, 3, 0644));
	snprintf(src, sizeof(src), "%s", _mkfile("s", 10000, 1, 0644));
	/*
	 * Whole seconds, as a file system with 1-second timestamps keeps,
	 * and in the future: every copy and hit below falls within the
	 * granularity of the last change however slow the host is.
	 */
	clock_gettime(CLOCK_REALTIME, &t[0]);
	t[0].tv_sec += 3600;
	t[0].tv_nsec = 0;
	t[1] = t[0];
	ck_assert_int_eq(utimensat(AT_FDCWD, src, t, 0), 0);
	st = _open(DL_CACHE_UNLIMITED, DL_EVICT_LRU);
	snprintf(c, sizeof(c), "files:%s", src);
	ck_assert_int_eq(_stage(st, 1, NOBODY, c, &rep), 0);
	ck_assert_uint_eq(rep.copied, 1);
	/* rewritten in the same second, same size: mtime and ctime too
	 * would stay (the ctime the store recorded is set to the new one,
	 * as a 1-second file system would show it) */
	_mkfile("s", 10000, 2, 0644);
	ck_assert_int_eq(utimensat(AT_FDCWD, src, t, 0), 0);
	ck_assert_int_eq(stat(src, &sb), 0);
	snprintf(meta, sizeof(meta), "%s.meta", _store_path(src));
	_meta_set_ctime(meta, (int64_t)sb.st_ctim.tv_sec * 1000000000 +
				      sb.st_ctim.tv_nsec);
	ck_assert_int_eq(_stage(st, 2, NOBODY, c, &rep), 0);
	ck_assert_uint_eq(rep.hits, 0);
	ck_assert_uint_eq(rep.copied, 1);
	ck_assert(_same_content(_view_file(2, src), src));
	/* unchanged: a hit, checked by content while the times are recent */
	ck_assert_int_eq(_stage(st, 3, NOBODY, c, &rep), 0);
	ck_assert_uint_eq(rep.hits, 1);
	ck_assert_uint_eq(rep.verified, 1);
	ck_assert(_same_content(_view_file(3, src), src));
	/* changed long before it was copied: times vouch for the copy */
	do
		clock_gettime(CLOCK_MONOTONIC, &now);
	while ((now.tv_sec - made.tv_sec) * 1000000000L +
		       (now.tv_nsec - made.tv_nsec) <
		       2100000000L &&
	       !usleep(50000));
	snprintf(c, sizeof(c), "files:%s", old);
	ck_assert_int_eq(_stage(st, 4, NOBODY, c, &rep), 0);
	ck_assert_uint_eq(rep.copied, 1);
	ck_assert_int_eq(_stage(st, 5, NOBODY, c, &rep), 0);
	ck_assert_uint_eq(rep.hits, 1);
	ck_assert_uint_eq(rep.verified, 0);
	dl_stage_close(st);
	_teardown();
}
END_TEST

/* A tracker of n files (LRU, used in this order) with owners. */
static dl_cache_t *_trk(const uint64_t *size, int n, uint64_t cap)
{
	dl_cache_t *c = dl_cache_create(1, DL_EVICT_LRU, 1);

	ck_assert_ptr_nonnull(c);
	for (int i = 0; i < n; i++) {
		char p[16];
		int64_t id;

		snprintf(p, sizeof(p), "/f%d", i);
		id = dl_cache_file_intern(c, p, size[i]);
		ck_assert_int_eq(id, i);
		ck_assert_int_eq(dl_cache_insert(c, 0, (uint32_t)id,
						 (uint64_t)i + 1, NULL, NULL),
				 0);
	}
	ck_assert_int_eq(dl_cache_set_capacity(c, 0, cap), 0);
	return c;
}

/* dl__room_evict's victims as "f0 f1"; "ENOSPC" when it fails. */
static const char *_room(const uint64_t *size, const uid_t *owner, int n,
			 dl__room_t r)
{
	static char out[128];
	dl_cache_t *c = _trk(size, n, r.capacity);
	uint32_t *v = NULL;
	size_t nv = 0;
	bool touched;
	int rc;

	r.owner = owner;
	r.nowner = (size_t)n;
	if (!r.fs_free)
		r.fs_free = UINT64_MAX;
	r.fs_ifree = UINT64_MAX;
	rc = dl__room_evict(c, &r, &v, &nv, &touched);
	out[0] = '\0';
	if (rc)
		snprintf(out, sizeof(out), "%s", dl_err_name(rc));
	for (size_t i = 0; !rc && i < nv; i++)
		snprintf(out + strlen(out), sizeof(out) - strlen(out), "%sf%u",
			 i ? " " : "", v[i]);
	/* no temporary pin is left behind */
	ck_assert_uint_eq(dl_cache_pinned(c, 0), 0);
	free(v);
	dl_cache_destroy(c);
	return out;
}

/* Finding 5: CacheUserShare, on hand-computed cases. */
START_TEST(test_user_share_rules)
{
	enum { A = 1000, B = 2000, C = 3000 };
	/* used in this order (LRU): f0 B 20, f1 A 30, f2 B 10, f3 A 30 */
	static const uint64_t size[] = {20, 30, 10, 30};
	static const uid_t owner[] = {B, A, B, A};
	static const uint64_t size2[] = {30, 40, 20};
	static const uid_t owner2[] = {B, B, A};
	dl__room_t r = {.capacity = 100, .share = 0.5};

	/* C needs 40 of 100 (90 used): A holds 60 > 50, B 30 <= 50 is
	 * spared; A's f1 goes, A is down to 30: it fits (60 + 40) */
	r.uid = C, r.need = 40;
	ck_assert_str_eq(_room(size, owner, 4, r), "f1");
	/* C needs 60: after f1 both are within their share: no room */
	r.need = 60;
	ck_assert_str_eq(_room(size, owner, 4, r), "DL_ENOSPC");
	/* A needs 40: its own files go first, B is spared */
	r.uid = A, r.need = 40;
	ck_assert_str_eq(_room(size, owner, 4, r), "f1");
	/* A needs 70: both of A's files (30 left + 70 fit), B is spared */
	r.need = 70;
	ck_assert_str_eq(_room(size, owner, 4, r), "f1 f3");
	/* A needs 80: no room without B's files */
	r.need = 80;
	ck_assert_str_eq(_room(size, owner, 4, r), "DL_ENOSPC");
	/* without a share, plain LRU: f0 (20) then f1 (30) */
	r.uid = C, r.need = 40, r.share = 0;
	ck_assert_str_eq(_room(size, owner, 4, r), "f0 f1");
	/* B holds 70 of 100: its f0 (30) goes, then B is at 40 <= 50 */
	r.share = 0.5;
	ck_assert_str_eq(_room(size2, owner2, 3, r), "f0");
	/* C needs 50: f0, then B is spared and A (20) too: no room */
	r.need = 50;
	ck_assert_str_eq(_room(size2, owner2, 3, r), "DL_ENOSPC");
	/* share 1: everyone is within it, only the user's own files go */
	r.share = 1, r.need = 40, r.uid = B;
	ck_assert_str_eq(_room(size2, owner2, 3, r), "f0");
	/* CacheMaxFiles: 3 files at most, unlimited bytes: the oldest goes */
	r = (dl__room_t){.capacity = DL_CACHE_UNLIMITED, .max_files = 3,
			 .uid = C, .need = 1};
	ck_assert_str_eq(_room(size2, owner2, 3, r), "f0");
	/* the file system has 15 free: 40 needs f0 and f1 (20 + 30) */
	r = (dl__room_t){.capacity = DL_CACHE_UNLIMITED, .fs_free = 15,
			 .uid = C, .need = 40};
	ck_assert_str_eq(_room(size, owner, 4, r), "f0 f1");
}
END_TEST

/* Finding 5, end to end: one user's jobs cannot flush another's files. */
START_TEST(test_user_share_stage)
{
	dl_stage_opts_t o = {.node = "n1", .policy = DL_EVICT_LRU,
			     .user_share = 0.5};
	char n[2][256], x[6][256], c[2048], err[256];
	dl_stage_report_t rep;
	dl_stage_t *st = NULL;

	if (!_root())
		return;
	_setup();
	for (int i = 0; i < 2; i++) {
		char name[16];

		snprintf(name, sizeof(name), "n%d", i);
		snprintf(n[i], sizeof(n[i]), "%s",
			 _mkfile(name, 10000, i, 0644));
	}
	for (int i = 0; i < 6; i++) {
		char name[16];

		snprintf(name, sizeof(name), "x%d", i);
		snprintf(x[i], sizeof(x[i]), "%s",
			 _mkfile(name, 10000, 10 + i, 0644));
	}
	o.capacity = 4 * _charge(10000);
	ck_assert_int_eq(dl_stage_open(cdir, &o, 1, &st, err, sizeof(err)),
			 0);
	/* nobody caches 2 files: half the cache, its share */
	snprintf(c, sizeof(c), "files:%s,%s", n[0], n[1]);
	ck_assert_int_eq(_stage(st, 1, NOBODY, c, &rep), 0);
	ck_assert_int_eq(dl_stage_job_end(st, 1, &rep), 0);
	/*
	 * another user's jobs, one file each, evict only their own (counting
	 * sizes alone, as before charges, six files of 10,000 bytes fit: so
	 * six jobs, for the last two to need room either way)
	 */
	for (int i = 0; i < 6; i++) {
		snprintf(c, sizeof(c), "files:%s", x[i]);
		ck_assert_int_eq(_stage(st, 10 + i, OTHER_UID, c, &rep), 0);
		ck_assert_uint_eq(rep.copied, 1);
		ck_assert_int_eq(dl_stage_job_end(st, 10 + i, &rep), 0);
	}
	ck_assert(_cached(st, n[0]));
	ck_assert(_cached(st, n[1]));
	for (int i = 0; i < 4; i++)
		ck_assert(!_cached(st, x[i]));
	ck_assert(_cached(st, x[4]));
	ck_assert(_cached(st, x[5]));
	dl_stage_close(st);
	_teardown();
}
END_TEST

/* Finding 6: what dl-stage reads back is read strictly. */
START_TEST(test_strict_readers)
{
	static const char *const bad[] = {
		"2 010 1 2 3 4 5 6 1 0 5 - /a\n", /* leading zero */
		"2 +10 1 2 3 4 5 6 1 0 5 - /a\n", /* sign */
		"2 10  1 2 3 4 5 6 1 0 5 - /a\n", /* two blanks */
		"2 10 1 2 3 4 5 6 1 0 5 - /a",    /* no newline */
		"2 10 1 2 3 4 5 6 1 0 5 - /a\nx\n", /* a second line */
		"2 10 1 2 3 4 5 6 1 0 5 - /a b\n", /* a blank in the path */
		"2 10 1 2 3 4 5 6 1 0 5 ABC /a\n", /* not a digest */
		"2 -10 1 2 3 4 5 6 1 0 5 - /a\n",  /* negative size */
		"2 10 1 2 3 4 5 6 1 99999999999 5 - /a\n", /* uid > 32 bits */
		"2 10 1 2 3 4 5 6 1 0 5 - a\n",    /* relative path */
		"3 10 1 2 3 4 5 6 1 0 5 - /a\n",   /* unknown version */
		"2 123456789012345678901 1 2 3 4 5 6 1 0 5 - /a\n",
	};
	char hash[DL_SHA256_HEX_LEN], buf[256], pins[1200], src[256], c[400];
	dl_stage_entry_t e;
	const char *msg;
	dl_stage_report_t rep;
	dl_stage_t *st;
	FILE *f;

	dl_sha256_hex("/a", 2, hash);
	snprintf(buf, sizeof(buf), "2 10 1 2 -3 4 5 6 1 65534 5 %s /a\n",
		 hash);
	ck_assert_int_eq(dl__meta_parse(buf, strlen(buf), hash, &e), 0);
	ck_assert_uint_eq(e.size, 10);
	ck_assert_int_eq(e.mtime_ns, -3);
	ck_assert_uint_eq(e.owner, 65534);
	ck_assert_str_eq(e.sha, hash);
	ck_assert_str_eq(e.path, "/a");
	dl__entry_free(&e);
	snprintf(buf, sizeof(buf), "1 10 1 2 3 4 5 6 1 /a\n");
	ck_assert_int_eq(dl__meta_parse(buf, strlen(buf), hash, &e), 0);
	ck_assert_uint_eq(e.owner, (uid_t)-1);
	dl__entry_free(&e);
	/* another path than the name says */
	snprintf(buf, sizeof(buf), "1 10 1 2 3 4 5 6 1 /b\n");
	ck_assert_int_eq(dl__meta_parse(buf, strlen(buf), hash, &e),
			 DL_EFORMAT);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(dl__meta_parse(bad[i], strlen(bad[i]), hash,
					     &e) == DL_EFORMAT,
			      "accepted: %s", bad[i]);

	/* notes: only this job's and user's */
	snprintf(buf, sizeof(buf), "# dl-stage note 1 job=8 uid=65534\nwhy\n");
	ck_assert_int_eq(dl_stage_note_parse(buf, strlen(buf), 8, NOBODY,
					     &msg), 0);
	ck_assert_str_eq(msg, "why\n");
	ck_assert_int_eq(dl_stage_note_parse(buf, strlen(buf), 9, NOBODY,
					     &msg), DL_ENOENT);
	ck_assert_int_eq(dl_stage_note_parse(buf, strlen(buf), 8, OTHER_UID,
					     &msg), DL_ENOENT);
	snprintf(buf, sizeof(buf), "user nobody cannot read /x\n");
	ck_assert_int_eq(dl_stage_note_parse(buf, strlen(buf), 8, NOBODY,
					     &msg), DL_EFORMAT);
	snprintf(buf, sizeof(buf), "# dl-stage note 1 job=08 uid=65534\n");
	ck_assert_int_eq(dl_stage_note_parse(buf, strlen(buf), 8, NOBODY,
					     &msg), DL_EFORMAT);

	if (!_root())
		return;
	_setup();
	/* pins: garbage lines are not pins */
	snprintf(src, sizeof(src), "%s", _mkfile("p", 1000, 1, 0644));
	st = _open(DL_CACHE_UNLIMITED, DL_EVICT_LRU);
	snprintf(c, sizeof(c), "files:%s", src);
	ck_assert_int_eq(_stage(st, 1, NOBODY, c, &rep), 0);
	ck_assert_int_eq(dl_stage_job_end(st, 1, &rep), 0);
	dl_sha256_hex(src, strlen(src), hash);
	snprintf(pins, sizeof(pins), "%s/.jobs/77.pins", cdir);
	f = fopen(pins, "w");
	fprintf(f, "%s\n%s junk\n/etc/passwd\n%.40s\n%s%s\n", hash, hash,
		hash, hash, hash);
	fclose(f);
	ck_assert_int_eq(dl_stage_foreach(st, _pins_of, NULL, NULL), 0);
	/* a corrupt .meta: the entry is removed, not used */
	snprintf(pins, sizeof(pins), "%s.meta", _store_path(src));
	f = fopen(pins, "w");
	fprintf(f, "2 1000 1 2 3 4 5 6 1 0 5 - %s\ngarbage\n", src);
	fclose(f);
	unlink(_path_in(".jobs/77.pins"));
	ck_assert_int_eq(_stage(st, 2, NOBODY, c, &rep), 0);
	ck_assert_uint_eq(rep.copied, 1);
	dl_stage_close(st);
	_teardown();
}
END_TEST

/* Finding 4: leftovers of jobs whose Epilog never ran. */
START_TEST(test_leftovers)
{
	dl_stage_job_t job = {.job_id = 6, .uid = NOBODY, .gid = NOBODY};
	char src[256], c[400], p[1200];
	struct timespec old[2];
	dl_stage_report_t rep;
	uint32_t *ids = NULL;
	size_t n = 0;
	dl_stage_t *st;

	if (!_root())
		return;
	_setup();
	snprintf(src, sizeof(src), "%s", _mkfile("l", 1000, 1, 0644));
	st = _open(DL_CACHE_UNLIMITED, DL_EVICT_LRU);
	snprintf(c, sizeof(c), "files:%s", src);
	ck_assert_int_eq(_stage(st, 5, NOBODY, c, &rep), 0);
	ck_assert_int_eq(dl_stage_job_fail(st, &job, "why"), 0);
	ck_assert_int_eq(_stage(st, 7, NOBODY, c, &rep), 0);
	/* recent: nothing is old enough to be a leftover */
	ck_assert_int_eq(dl_stage_leftovers(st, 60, &ids, &n), 0);
	ck_assert_uint_eq(n, 0);
	/* jobs 5 and 6 an hour old, job 7 still recent */
	clock_gettime(CLOCK_REALTIME, &old[0]);
	old[0].tv_sec -= 3600;
	old[1] = old[0];
	for (int i = 0; i < 3; i++) {
		static const char *const name[] = {"5.view", "5.pins",
						   "6.failed"};

		snprintf(p, sizeof(p), "%s/.jobs/%s", cdir, name[i]);
		ck_assert_int_eq(utimensat(AT_FDCWD, p, old,
					   AT_SYMLINK_NOFOLLOW), 0);
	}
	ck_assert_int_eq(dl_stage_leftovers(st, 60, &ids, &n), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(ids[0], 5);
	ck_assert_uint_eq(ids[1], 6);
	free(ids);
	/* reaping is what an Epilog does */
	ck_assert_int_eq(dl_stage_job_end(st, 5, &rep), 0);
	ck_assert_int_eq(dl_stage_job_end(st, 6, &rep), 0);
	ck_assert_int_eq(dl_stage_leftovers(st, 0, &ids, &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(ids[0], 7);
	free(ids);
	/*
	 * A record stamped a second ahead of time(NULL) (a file's time is
	 * finer than time()'s coarse clock, across a second's edge): no
	 * minimum age still lists it, a minimum age does not.
	 */
	clock_gettime(CLOCK_REALTIME, &old[0]);
	old[0].tv_sec += 1;
	old[1] = old[0];
	for (int i = 0; i < 2; i++) {
		static const char *const name[] = {"7.view", "7.pins"};

		snprintf(p, sizeof(p), "%s/.jobs/%s", cdir, name[i]);
		ck_assert_int_eq(utimensat(AT_FDCWD, p, old,
					   AT_SYMLINK_NOFOLLOW), 0);
	}
	ck_assert_int_eq(dl_stage_leftovers(st, 0, &ids, &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(ids[0], 7);
	free(ids);
	ck_assert_int_eq(dl_stage_leftovers(st, 60, &ids, &n), 0);
	ck_assert_uint_eq(n, 0);
	free(ids);
	/* what slurmctld says is alive, strictly parsed */
	{
		static const char *const bad[] = {
			"12 R", "12  R\n", "012 R\n", "12 r\n",
			"12 RUNNING\n", "12\n", "a R\n", "12 R\njunk\n",
			"4294967296 R\n", " 12 R\n", "12 R \n",
		};
		const char *ok = "12 R\n13 CG\n14 CD\n15 PD\n16 XYZ\n";

		ck_assert_int_eq(dl_squeue_parse(ok, strlen(ok), &ids, &n),
				 0);
		ck_assert_uint_eq(n, 3);
		ck_assert_uint_eq(ids[0], 12);
		ck_assert_uint_eq(ids[1], 13);
		ck_assert_uint_eq(ids[2], 16); /* unknown: kept alive */
		free(ids);
		ck_assert_int_eq(dl_squeue_parse("", 0, &ids, &n), 0);
		ck_assert_uint_eq(n, 0);
		free(ids);
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
			ck_assert_msg(dl_squeue_parse(bad[i], strlen(bad[i]),
						      &ids, &n) == DL_EFORMAT,
				      "accepted: %s", bad[i]);
	}
	/* the first look is due, the next not before the interval */
	ck_assert_int_eq(dl_stage_reap_due(st, 300), 1);
	ck_assert_int_eq(dl_stage_reap_due(st, 300), 0);
	snprintf(p, sizeof(p), "%s/.locks/reaped", cdir);
	ck_assert_int_eq(utimensat(AT_FDCWD, p, old, 0), 0);
	ck_assert_int_eq(dl_stage_reap_due(st, 300), 1);
	dl_stage_close(st);
	_teardown();
}
END_TEST

/* ------------------------------------------------------------------ */
/* the prefetch of a job and its own staging, at the same time          */

/* What the fetch hook of test_prefetch_prolog_race needs. */
typedef struct race {
	const char *comment; /* the job's annotation, for its Prolog */
	const char *trigger; /* the file whose copy lets the Prolog in */
	const char *seen;    /* the Prolog's view holds it: it is waiting */
	uint32_t job_id;
	pid_t prolog;        /* the Prolog's process, once started */
} race_t;

/*
 * The job's Prolog, in a process of its own, as dl-cached's STAGE child
 * or dl-stage would run it: what an earlier job left is removed, then the
 * job is staged.  Exits 0 if it staged, 1 if not, 2+ on a test fault.
 */
static void _race_prolog(const race_t *r)
{
	dl_stage_opts_t o = {.capacity = DL_CACHE_UNLIMITED,
			     .policy = DL_EVICT_LRU, .node = "n1"};
	dl_stage_report_t rep;
	dl_stage_t *st = NULL;
	char err[256];
	int rc;

	/* The prefetch's locks stay the prefetch's: no inherited ones. */
	for (int fd = 3; fd < 1024; fd++)
		close(fd);
	if (dl_stage_open(cdir, &o, 0, &st, err, sizeof(err)))
		_exit(2);
	dl_stage_job_end(st, r->job_id, NULL);
	rc = _stage(st, r->job_id, NOBODY, r->comment, &rep);
	if (rc)
		fprintf(stderr, "check_stage: the Prolog failed: %s\n",
			rep.msg);
	dl_stage_close(st);
	_exit(rc ? 1 : 0);
}

/*
 * dl_stage_fetch_fn: while the prefetch holds the trigger's entry lock,
 * start the job's Prolog and wait (on a condition, not a clock) until it
 * has linked its first file and so waits for the trigger's lock.  Then
 * let the prefetch copy from storage.
 */
static int _race_fetch(void *arg, const dl_stage_job_t *job, const char *path,
		       const struct stat *sb, int out,
		       char sha[DL_SHA256_HEX_LEN], int64_t *ver)
{
	race_t *r = arg;
	struct stat vs;
	int status;

	(void)job, (void)sb, (void)out, (void)sha, (void)ver;
	if (strcmp(path, r->trigger) || r->prolog)
		return DL_ENOENT;
	r->prolog = fork();
	ck_assert_int_ge(r->prolog, 0);
	if (r->prolog == 0)
		_race_prolog(r);
	while (stat(_view_file(r->job_id, r->seen), &vs)) {
		/* the Prolog may not end before the trigger is copied */
		ck_assert_int_eq(waitpid(r->prolog, &status, WNOHANG), 0);
		usleep(2000);
	}
	return DL_ENOENT;
}

/*
 * A job starts while its prefetch is still copying its files (issue 29:
 * nodes drained with "view of ...: mkdir: No such file or directory").
 * The prefetch is held in the middle, on its second file, while the
 * job's Prolog starts and links the first: both must succeed, the job
 * keeps its view and pins, and the prefetch leaves no pins behind.
 */
START_TEST(test_prefetch_prolog_race)
{
	dl_stage_job_t job = {.job_id = 40, .uid = NOBODY, .gid = NOBODY};
	char a[256], b[256], c[600];
	dl_stage_opts_t o = {.capacity = DL_CACHE_UNLIMITED,
			     .policy = DL_EVICT_LRU, .node = "n1"};
	race_t r = {.job_id = 40};
	dl_stage_report_t rep;
	dl_filelist_t *l;
	dl_stage_t *st = NULL;
	int status, rc;

	if (!_root())
		return;
	_setup();
	/* in a directory of their own, as the view mirrors it */
	snprintf(c, sizeof(c), "%s/ref", ddir);
	ck_assert_int_eq(mkdir(c, 0755), 0);
	snprintf(a, sizeof(a), "%s", _mkfile("ref/a.fa", 300000, 1, 0644));
	snprintf(b, sizeof(b), "%s", _mkfile("ref/b.fa", 500000, 2, 0644));
	snprintf(c, sizeof(c), "files:%s,%s", a, b);
	r.comment = c;
	r.trigger = b;
	r.seen = a;
	o.fetch = _race_fetch;
	o.fetch_arg = &r;
	st = _open_opts(&o);
	l = _files(c);
	rc = dl_stage_prefetch(st, &job, l, time(NULL) + 600, &rep);
	dl_filelist_free(l);
	ck_assert_msg(rc == 0, "the prefetch failed: %s", rep.msg);
	ck_assert_int_gt(r.prolog, 0);
	ck_assert_int_eq(waitpid(r.prolog, &status, 0), r.prolog);
	ck_assert(WIFEXITED(status));
	ck_assert_msg(WEXITSTATUS(status) == 0, "the Prolog failed (%d)",
		      WEXITSTATUS(status));
	/* the job's view and pins are whole, the prefetch's are gone */
	ck_assert(_same_content(_view_file(40, a), a));
	ck_assert(_same_content(_view_file(40, b), b));
	ck_assert_int_eq(access(_path_in(".jobs/40.pins"), F_OK), 0);
	ck_assert_int_ne(access(_path_in(".jobs/40.prefetch"), F_OK), 0);
	ck_assert_int_ne(access(_path_in(".jobs/40.pf.pins"), F_OK), 0);
	ck_assert_int_eq(dl_stage_foreach(st, _pins_of, NULL, NULL), 0);
	/* the job ends: nothing of it pins anything */
	ck_assert_int_eq(dl_stage_job_end(st, 40, &rep), 0);
	ck_assert_int_ne(access(_view_file(40, a), F_OK), 0);
	dl_stage_close(st);
	_teardown();
}
END_TEST

/* Fails the test unless the entry is pinned by nothing. */
static int _unpinned(const dl_stage_entry_t *e, void *arg)
{
	(void)arg;
	ck_assert_uint_eq(e->pins, 0);
	return 0;
}

/*
 * A prefetch that arrives after the job started on this node (the
 * controller's message was slower than the job) leaves the running job's
 * view, pins and failure note alone.
 */
START_TEST(test_prefetch_after_start)
{
	dl_stage_job_t job = {.job_id = 41, .uid = NOBODY, .gid = NOBODY};
	char a[256], c[400];
	dl_stage_report_t rep;
	dl_filelist_t *l;
	dl_stage_t *st;

	if (!_root())
		return;
	_setup();
	snprintf(a, sizeof(a), "%s", _mkfile("a", 100000, 3, 0644));
	snprintf(c, sizeof(c), "files:%s", a);
	st = _open(DL_CACHE_UNLIMITED, DL_EVICT_LRU);
	ck_assert_int_eq(_stage(st, 41, NOBODY, c, &rep), 0);
	l = _files(c);
	ck_assert_int_eq(dl_stage_prefetch(st, &job, l, time(NULL) + 600,
					   &rep), 0);
	ck_assert(_same_content(_view_file(41, a), a));
	ck_assert_int_eq(access(_path_in(".jobs/41.pins"), F_OK), 0);
	ck_assert_int_ne(access(_path_in(".jobs/41.prefetch"), F_OK), 0);
	ck_assert_int_eq(dl_stage_foreach(st, _pins_of, NULL, NULL), 0);
	/* a job that failed here keeps its note for its TaskProlog */
	ck_assert_int_eq(dl_stage_job_fail(st, &job, "why"), 0);
	ck_assert_int_eq(dl_stage_prefetch(st, &job, l, time(NULL) + 600,
					   &rep), 0);
	ck_assert_int_eq(access(_path_in(".jobs/41.failed"), F_OK), 0);
	dl_filelist_free(l);
	ck_assert_int_eq(dl_stage_job_end(st, 41, &rep), 0);
	ck_assert_int_eq(dl_stage_foreach(st, _unpinned, NULL, NULL), 0);
	dl_stage_close(st);
	_teardown();
}
END_TEST

/* What the fetch hook of test_node_fault_fallback breaks, and when. */
typedef struct fault {
	const char *trigger; /* on this file's copy */
	int what;            /* 1: block its store name, 2: remove the view */
	uint32_t job_id;
} fault_t;

/*
 * dl_stage_fetch_fn: a fault of the node in the middle of a copy.  The
 * store name taken by a directory makes storing the copy fail; the view
 * removed is what a concurrent stager did before issue 29's fix.
 */
static int _fault_fetch(void *arg, const dl_stage_job_t *job,
			const char *path, const struct stat *sb, int out,
			char sha[DL_SHA256_HEX_LEN], int64_t *ver)
{
	const fault_t *f = arg;
	char cmd[1200];

	(void)job, (void)sb, (void)out, (void)sha, (void)ver;
	if (strcmp(path, f->trigger))
		return DL_ENOENT;
	if (f->what == 1) {
		ck_assert_int_eq(mkdir(_store_path(path), 0700), 0);
	} else {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'",
			 _path_in(".jobs/50.view"));
		ck_assert_int_eq(system(cmd), 0);
	}
	return DL_ENOENT;
}

/*
 * A staging failure of the node's never fails the job (nor drains the
 * node): the file is read from its source, or with no view left at all
 * the job reads all its sources.  Each fallback is counted.
 */
START_TEST(test_node_fault_fallback)
{
	dl_stage_opts_t o = {.capacity = DL_CACHE_UNLIMITED,
			     .policy = DL_EVICT_LRU, .node = "n1"};
	char a[256], b[256], c[600], link[600];
	fault_t f = {.job_id = 50, .what = 1};
	dl_stage_report_t rep;
	dl_stage_t *st = NULL;
	struct stat sb;
	char err[256];
	ssize_t n;

	if (!_root())
		return;
	_setup();
	snprintf(a, sizeof(a), "%s", _mkfile("a", 200000, 4, 0644));
	snprintf(c, sizeof(c), "%s/sub", ddir);
	ck_assert_int_eq(mkdir(c, 0755), 0);
	snprintf(b, sizeof(b), "%s", _mkfile("sub/b", 300000, 5, 0644));
	snprintf(c, sizeof(c), "files:%s,%s", a, b);
	f.trigger = b;
	o.fetch = _fault_fetch;
	o.fetch_arg = &f;
	st = _open_opts(&o);
	/* b cannot be stored: it is read from its source through the view */
	ck_assert_int_eq(_stage(st, 50, NOBODY, c, &rep), 0);
	ck_assert_uint_eq(rep.fallbacks, 1);
	ck_assert_uint_eq(rep.copied, 1);
	ck_assert_uint_eq(rep.uncached, 1);
	ck_assert_int_eq(rep.bypassed, 0);
	ck_assert(_same_content(_view_file(50, a), a));
	n = readlink(_view_file(50, b), link, sizeof(link) - 1);
	ck_assert_int_gt(n, 0);
	link[n] = '\0';
	ck_assert_str_eq(link, b);
	ck_assert_int_ne(access(_path_in(".jobs/50.failed"), F_OK), 0);
	ck_assert_int_eq(dl_stage_job_end(st, 50, &rep), 0);
	/* the view vanishes midway: the job gets none, and runs */
	snprintf(err, sizeof(err), "rm -rf '%s'", _store_path(b));
	ck_assert_int_eq(system(err), 0);
	f.what = 2;
	ck_assert_int_eq(_stage(st, 50, NOBODY, c, &rep), 0);
	ck_assert_int_eq(rep.bypassed, 1);
	ck_assert_uint_ge(rep.fallbacks, 1);
	ck_assert_int_ne(stat(_path_in(".jobs/50.view"), &sb), 0);
	ck_assert_int_ne(access(_path_in(".jobs/50.pins"), F_OK), 0);
	ck_assert_int_ne(access(_path_in(".jobs/50.failed"), F_OK), 0);
	ck_assert_int_eq(dl_stage_foreach(st, _unpinned, NULL, NULL), 0);
	dl_stage_close(st);
	_teardown();
}
END_TEST

/* A peer's answer, as test_stale_peer_copy's fetch hook gives it. */
typedef struct peer_copy {
	const char *content; /* what the peer sends */
	size_t len;
	int64_t verified_ns; /* when the peer last knew it current */
	int calls;
} peer_copy_t;

static int _peer_fetch(void *arg, const dl_stage_job_t *job,
		       const char *path, const struct stat *sb, int out,
		       char sha[DL_SHA256_HEX_LEN], int64_t *ver)
{
	peer_copy_t *p = arg;

	(void)job, (void)path, (void)sb;
	p->calls++;
	ck_assert_int_eq(write(out, p->content, p->len), (ssize_t)p->len);
	dl_sha256_hex(p->content, p->len, sha);
	*ver = p->verified_ns;
	return 0;
}

/*
 * Issue 27: a same-size rewrite of a source within its timestamp tick,
 * right after a peer copied it, left the peer's copy looking current; it
 * was served, kept, and passed on.  The requester now judges a peer's
 * copy as a local hit: a copy not known current long enough after the
 * source's last change is compared with the source's content first.
 */
START_TEST(test_stale_peer_copy)
{
	dl_stage_opts_t o = {.capacity = DL_CACHE_UNLIMITED,
			     .policy = DL_EVICT_LRU, .node = "n1"};
	static char oldc[4096], newc[4096];
	peer_copy_t p = {.content = oldc, .len = sizeof(oldc)};
	char src[256], c[400];
	dl_stage_report_t rep;
	dl_stage_t *st = NULL;
	struct stat sb;
	int fd;

	if (!_root())
		return;
	_setup();
	memset(oldc, 'o', sizeof(oldc));
	memset(newc, 'n', sizeof(newc));
	snprintf(src, sizeof(src), "%s/in", ddir);
	fd = open(src, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, newc, sizeof(newc)), (ssize_t)sizeof(newc));
	close(fd);
	ck_assert_int_eq(stat(src, &sb), 0);
	snprintf(c, sizeof(c), "files:%s", src);
	o.fetch = _peer_fetch;
	o.fetch_arg = &p;
	st = _open_opts(&o);
	/* the peer knew its (old) copy current in the source's last tick */
	p.verified_ns = dl__ts_ns(&sb.st_mtim);
	ck_assert_int_eq(_stage(st, 60, NOBODY, c, &rep), 0);
	ck_assert_int_eq(p.calls, 1);
	ck_assert_uint_eq(rep.from_peers, 0);
	ck_assert_uint_eq(rep.copied, 1);
	ck_assert(_same_content(_view_file(60, src), src));
	ck_assert_int_eq(dl_stage_job_end(st, 60, &rep), 0);
	/* the same content, not known current for long: checked, taken */
	st = _reopen_empty(st, &o);
	p.content = newc;
	ck_assert_int_eq(_stage(st, 61, NOBODY, c, &rep), 0);
	ck_assert_uint_eq(rep.from_peers, 1);
	ck_assert_uint_ge(rep.verified, 1);
	ck_assert(_same_content(_view_file(61, src), src));
	ck_assert_int_eq(dl_stage_job_end(st, 61, &rep), 0);
	/* known current long after the change: the times vouch, no hashing */
	st = _reopen_empty(st, &o);
	p.verified_ns = dl__ts_ns(&sb.st_mtim) + 3 * DL__GRANULARITY_NS;
	ck_assert_int_eq(_stage(st, 62, NOBODY, c, &rep), 0);
	ck_assert_uint_eq(rep.from_peers, 1);
	ck_assert_uint_eq(rep.verified, 0);
	dl_stage_close(st);
	_teardown();
}
END_TEST

/*
 * Issue 27, finding 7: .inventory lists every user's cached paths; it is
 * root's, and SlurmUser's to read (an ACL) when slurmctld reads caches
 * itself, never anyone else's.
 */
/*
 * The cache's .log gets whole lines from jobs staging at once on a node:
 * each dl-stage appends its summary with one write.  Threads here (one
 * process per job on a node): 4 writers of 3,000 lines each, every line
 * read back whole and once.
 */
#define LOG_WRITERS 4
#define LOG_LINES 3000

static void *_log_writer(void *arg)
{
	dl_stage_t *st = *(dl_stage_t **)arg;
	char line[64];

	/* The address of line tells the writers apart. */
	for (int i = 0; i < LOG_LINES; i++) {
		snprintf(line, sizeof(line), "writer %p line %05d xxxxxxxxxx",
			 (void *)&line, i);
		if (dl_stage_log_line(st, line))
			return (void *)1;
	}
	return NULL;
}

START_TEST(test_log_lines_whole)
{
	dl_stage_t *st;
	pthread_t t[LOG_WRITERS];
	char path[256], buf[256];
	FILE *f;
	int n = 0, bad = 0;

	_setup();
	st = _open(DL_CACHE_UNLIMITED, DL_EVICT_LRU);
	for (int k = 0; k < LOG_WRITERS; k++)
		ck_assert_int_eq(pthread_create(&t[k], NULL, _log_writer, &st),
				 0);
	for (int k = 0; k < LOG_WRITERS; k++) {
		void *r;

		ck_assert_int_eq(pthread_join(t[k], &r), 0);
		ck_assert_ptr_null(r);
	}
	snprintf(path, sizeof(path), "%s/.log", cdir);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(buf, sizeof(buf), f)) {
		unsigned long long p;
		int i;
		char tail[32];

		n++;
		if (sscanf(buf, "writer 0x%llx line %d %31s", &p, &i,
			   tail) != 3 || strcmp(tail, "xxxxxxxxxx") ||
		    strchr(buf, '\n') != buf + strlen(buf) - 1)
			bad++;
	}
	fclose(f);
	ck_assert_int_eq(bad, 0);
	ck_assert_int_eq(n, LOG_WRITERS * LOG_LINES);
	dl_stage_close(st);
	_teardown();
}
END_TEST

START_TEST(test_inventory_private)
{
	dl_stage_opts_t o = {.capacity = DL_CACHE_UNLIMITED,
			     .policy = DL_EVICT_LRU, .node = "n1",
			     .inventory_reader = NOBODY};
	char a[256], c[400];
	dl_stage_report_t rep;
	dl_stage_t *st = NULL;
	struct stat sb;
	int acl;

	if (!_root())
		return;
	_setup();
	snprintf(a, sizeof(a), "%s", _mkfile("secret", 1000, 6, 0600));
	ck_assert_int_eq(chown(a, OTHER_UID, OTHER_UID), 0);
	snprintf(c, sizeof(c), "files:%s", a);
	st = _open_opts(&o);
	ck_assert_int_eq(_stage(st, 70, OTHER_UID, c, &rep), 0);
	ck_assert_int_eq(stat(_path_in(".inventory"), &sb), 0);
	ck_assert_uint_eq(sb.st_mode & 0077 & ~0070, 0); /* no "other" bits */
	ck_assert_uint_eq(sb.st_mode & 0700, 0600);
	acl = dl_stage_probe_acl(st);
	ck_assert_int_ge(acl, 0);
	/* SlurmUser reads it where ACLs work; nobody else ever does */
	ck_assert_int_eq(_open_as(NOBODY, _path_in(".inventory")),
			 acl ? 0 : EACCES);
	ck_assert_int_eq(_open_as(OTHER_UID - 1, _path_in(".inventory")),
			 EACCES);
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
	tcase_add_test(tc, test_copy_atomic_and_view);
	tcase_add_test(tc, test_evict_never_pinned);
	tcase_add_test(tc, test_capacity_random_workload);
	tcase_add_test(tc, test_concurrent_single_copy);
	tcase_add_test(tc, test_changed_source_recopied);
	tcase_add_test(tc, test_list_file);
	tcase_add_test(tc, test_list_file_patterns);
	tcase_add_test(tc, test_list_patterns_lazy);
	tcase_add_test(tc, test_stale_reservation);
	suite_add_tcase(s, tc);

	tc = tcase_create("security");
	tcase_add_test(tc, test_permission_drop);
	tcase_add_test(tc, test_opener);
	tcase_add_test(tc, test_symlink_planted_in_store);
	tcase_add_test(tc, test_symlink_planted_view_and_dirs);
	tcase_add_test(tc, test_unsafe_cache_dir);
	suite_add_tcase(s, tc);

	tc = tcase_create("hostile");
	tcase_add_test(tc, test_opener_killed_or_stopped);
	tcase_add_test(tc, test_opener_attack_fails_job);
	tcase_add_test(tc, test_charge_and_max_files);
	tcase_add_test(tc, test_full_file_system);
	tcase_add_test(tc, test_same_second_rewrite);
	tcase_add_test(tc, test_user_share_rules);
	tcase_add_test(tc, test_user_share_stage);
	tcase_add_test(tc, test_strict_readers);
	tcase_add_test(tc, test_leftovers);
	suite_add_tcase(s, tc);

	tc = tcase_create("prefetch");
	tcase_add_test(tc, test_prefetch_prolog_race);
	tcase_add_test(tc, test_prefetch_after_start);
	tcase_add_test(tc, test_node_fault_fallback);
	tcase_add_test(tc, test_stale_peer_copy);
	tcase_add_test(tc, test_inventory_private);
	tcase_add_test(tc, test_log_lines_whole);
	suite_add_tcase(s, tc);
	return s;
}
