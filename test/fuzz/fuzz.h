/*
 * fuzz.h - what the libFuzzer targets of test/fuzz share.
 *
 * A broken invariant traps, so that libFuzzer reports it as a crash with
 * the input that caused it.  Targets that have to hand their input to a
 * function taking a path write it into one scratch directory per process,
 * preferably on tmpfs: a state file or a cache directory is then cheap to
 * rewrite thousands of times a second.
 */
#ifndef DL_FUZZ_H
#define DL_FUZZ_H

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHECK(cond)                       \
	do {                              \
		if (!(cond))              \
			__builtin_trap(); \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a NUL-terminated string (ending at its first NUL byte). */
static inline char *fuzz_strdup(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (s) {
		memcpy(s, data, size);
		s[size] = '\0';
	}
	return s;
}

static char fuzz__dir[256];

static inline int fuzz__rm(const char *path, const struct stat *sb, int flag,
		   struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static inline void fuzz__rm_scratch(void)
{
	if (fuzz__dir[0])
		nftw(fuzz__dir, fuzz__rm, 16, FTW_DEPTH | FTW_PHYS);
}

/*
 * A new private directory for this process, removed at exit (but left
 * behind by a crash, when libFuzzer ends with _exit()).  Under TMPDIR if
 * set, else /dev/shm, else /tmp.
 * \return a static string; traps if no directory can be made.
 */
static inline const char *fuzz_scratch_dir(void)
{
	const char *bases[] = { getenv("TMPDIR"), "/dev/shm", "/tmp" };
	size_t i;

	if (fuzz__dir[0])
		return fuzz__dir;
	for (i = 0; i < sizeof(bases) / sizeof(bases[0]); i++) {
		if (!bases[i] || !bases[i][0] || access(bases[i], W_OK))
			continue;
		snprintf(fuzz__dir, sizeof(fuzz__dir), "%s/dl-fuzz.XXXXXX",
			 bases[i]);
		if (mkdtemp(fuzz__dir)) {
			atexit(fuzz__rm_scratch);
			return fuzz__dir;
		}
	}
	fuzz__dir[0] = '\0';
	__builtin_trap();
}

/* Replace path's contents with len bytes; traps on a system error. */
static inline void fuzz_write_file(const char *path, const void *buf,
				   size_t len)
{
	const char *p = buf;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	CHECK(fd >= 0);
	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		CHECK(w > 0);
		p += w;
		len -= (size_t)w;
	}
	CHECK(!close(fd));
}

/* The whole of a file, NUL-terminated; NULL if it cannot be read. */
static inline char *fuzz_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t cap = 0, n = 0, r;

	if (!f)
		return NULL;
	do {
		if (cap - n < 4096) {
			char *nb = realloc(buf, cap + 65536);

			CHECK(nb);
			buf = nb;
			cap += 65536;
		}
		r = fread(buf + n, 1, cap - n - 1, f);
		n += r;
	} while (r);
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

#endif /* DL_FUZZ_H */
