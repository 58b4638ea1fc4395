/*
 * locks.c - the cache's locks: the global lock on the store's metadata,
 * with the change counter it holds, and one lock per entry being staged.
 * Lock order: an entry's lock, then the global lock.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dl_error.h"
#include "stage_int.h"

int dl__glock(dl_stage_t *st)
{
	uint64_t g = 0;

	while (flock(st->gfd, LOCK_EX))
		if (errno != EINTR)
			return DL_EIO;
	st->glocked = true;
	if (pread(st->gfd, &g, sizeof(g), 0) != sizeof(g))
		g = 0;
	st->gen = g;
	return 0;
}

/*
 * Every change of the store bumps the counter, so that a process finding
 * it where it left it knows its tracker is still exact.  applied: this
 * process made the same change to its tracker.
 */
void dl__gbump(dl_stage_t *st, bool applied)
{
	bool exact = st->trk_ok && st->trk_gen == st->gen;

	st->gen++;
	if (pwrite(st->gfd, &st->gen, sizeof(st->gen), 0) != sizeof(st->gen))
		st->trk_ok = false; /* others will rebuild: so must we */
	if (exact && applied)
		st->trk_gen = st->gen;
}

void dl__gunlock(dl_stage_t *st)
{
	flock(st->gfd, LOCK_UN);
	st->glocked = false;
}

/*
 * Lock a file's entry.  A lock file may be unlinked by its holder (after
 * an eviction, or when a copy is done), so after the lock is granted the
 * name must still lead to the locked inode; if not, start again.
 * IN nonblock - fail with -EWOULDBLOCK instead of waiting
 * IN create - without it, a missing lock file gives -ENOENT
 */
int dl__lock_entry(dl_stage_t *st, const char *hash, bool nonblock,
		   bool create)
{
	for (;;) {
		struct stat a, b;
		int fd = openat(st->locks, hash,
				O_RDWR | O_NOFOLLOW | O_CLOEXEC |
					(create ? O_CREAT : 0),
				0600);

		if (fd < 0)
			return -errno;
		while (flock(fd, LOCK_EX | (nonblock ? LOCK_NB : 0))) {
			int e = errno;

			if (e == EINTR)
				continue;
			close(fd);
			return -e;
		}
		if (!fstat(fd, &a) &&
		    !fstatat(st->locks, hash, &b, AT_SYMLINK_NOFOLLOW) &&
		    a.st_ino == b.st_ino && a.st_dev == b.st_dev)
			return fd;
		close(fd);
		if (!create)
			return -ENOENT;
	}
}

/* Release an entry lock; with drop, remove the lock file first. */
void dl__unlock_entry(dl_stage_t *st, const char *hash, int fd, bool drop)
{
	if (fd < 0)
		return;
	if (drop)
		unlinkat(st->locks, hash, 0);
	close(fd);
}

/* Whether a copy of hash is in progress: someone holds its lock. */
bool dl__entry_busy(dl_stage_t *st, const char *hash, bool drop_if_free)
{
	int fd = dl__lock_entry(st, hash, true, false);

	if (fd == -EWOULDBLOCK)
		return true;
	if (fd >= 0)
		dl__unlock_entry(st, hash, fd, drop_if_free);
	return false;
}

/*
 * .locks/bytes: "storage=<n> peer=<n>\n", the bytes copied into the store
 * from each source since the cache was made (dl-cached reports them, the
 * inventory shows them).  Written in place under the global lock.
 */
static int _bytes_fd(dl_stage_t *st)
{
	return openat(st->locks, "bytes",
		      O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
}

static void _bytes_parse(int fd, uint64_t *storage, uint64_t *peer)
{
	char buf[96];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	unsigned long long s, p;

	*storage = *peer = 0;
	if (n <= 0)
		return;
	buf[n] = '\0';
	if (sscanf(buf, "storage=%llu peer=%llu", &s, &p) == 2) {
		*storage = s;
		*peer = p;
	}
}

void dl__bytes_read(dl_stage_t *st, uint64_t *storage, uint64_t *peer)
{
	int fd = _bytes_fd(st);

	*storage = *peer = 0;
	if (fd < 0)
		return;
	_bytes_parse(fd, storage, peer);
	close(fd);
}

void dl__bytes_add(dl_stage_t *st, uint64_t storage, uint64_t peer)
{
	uint64_t s, p;
	char buf[96];
	int fd = _bytes_fd(st), n;

	if (fd < 0)
		return;
	_bytes_parse(fd, &s, &p);
	n = snprintf(buf, sizeof(buf), "storage=%llu peer=%llu\n",
		     (unsigned long long)(s + storage),
		     (unsigned long long)(p + peer));
	if (pwrite(fd, buf, (size_t)n, 0) == n)
		(void)!ftruncate(fd, n);
	close(fd);
}
