/* persist.c - the scheduler's state on disk; see dl_persist.h. */
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dl_error.h"
#include "dl_files.h"
#include "dl_persist.h"
#include "grow.h"

#define HEADER "slurm-datalocality-state"
/*
 * A state file larger than this is refused before it is read: it would
 * cost seconds of CPU and its size in memory while slurmctld waits.  1M
 * files and 4M cached copies take about 200 MiB.
 */
#define MAX_STATE (512ULL << 20)
/*
 * The longest record, service, has 15 fields (14 before its replica
 * counter): one more tells it is too long.
 */
#define MAX_FIELDS 16

uint32_t dl_crc32(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	int k;

	crc = ~crc;
	while (len--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1)));
	}
	return ~crc;
}

typedef struct {
	FILE *f;
	uint32_t file_no;    /* next file number */
	uint32_t *numbers;   /* tracker id -> file number + 1 (0: unsaved) */
	int rc;
} save_ctx_t;

typedef struct {
	save_ctx_t *ctx;
	const char *node;
	const dl_cache_t *cache;
} node_ctx_t;

static int _write_file(save_ctx_t *c, const dl_cache_t *cache, uint32_t id)
{
	uint64_t size = dl_cache_file_size(cache, id);

	if (c->numbers[id])
		return 0;
	c->numbers[id] = ++c->file_no;
	if (size == DL_SIZE_UNKNOWN)
		fprintf(c->f, "file - %" PRIu64 " %s\n",
			dl_cache_access_count(cache, id),
			dl_cache_file_path(cache, id));
	else
		fprintf(c->f, "file %" PRIu64 " %" PRIu64 " %s\n", size,
			dl_cache_access_count(cache, id),
			dl_cache_file_path(cache, id));
	return 0;
}

static int _save_cached(uint32_t file, void *arg)
{
	node_ctx_t *n = arg;

	_write_file(n->ctx, n->cache, file);
	fprintf(n->ctx->f, "cached %s %u\n", n->node,
		n->ctx->numbers[file] - 1);
	return 0;
}

/*
 * A plan time as text that reads back as exactly the same double, so
 * restarts never drift the counters: 17 significant digits always do,
 * fewer usually do and read better (0.042, not 0.042000000000000003).
 * Anything but a finite number >= 0 would make the whole file unreadable
 * on load, so it is written as 0.
 */
static void _sec_text(double v, char *buf, size_t len)
{
	int prec;

	/* A subnormal does not read back either (strtod: ERANGE). */
	if (!isfinite(v) || v < DBL_MIN)
		v = 0;
	for (prec = 15; prec < 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
	snprintf(buf, len, "%.17g", v);
}

static void _write_sched(FILE *f, const dl_sched_stats_t *s)
{
	char total[32], max[32], last[32];

	_sec_text(s->plan_sec_total, total, sizeof(total));
	_sec_text(s->plan_sec_max, max, sizeof(max));
	_sec_text(s->plan_sec_last, last, sizeof(last));
	fprintf(f,
		"stats %lld %" PRIu64 " %" PRIu64 " %s %s %s %" PRIu64
		" %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
		" %" PRIu32 "\n",
		(long long)s->since, s->cycles, s->plans, total, max, last,
		s->placed, s->moved, s->widened, s->started_planned,
		s->started_widened, s->started_unplaced, s->pending_placed);
}

static const char *const source_names[] = DL_SOURCE_NAMES;

static void _write_service(FILE *f, const char *node,
			   const dl_service_stats_t *v)
{
	char cap[32] = "-";

	if (v->capacity != DL_CACHE_UNLIMITED)
		snprintf(cap, sizeof(cap), "%" PRIu64, v->capacity);
	fprintf(f,
		"service %s %s %d %lld %" PRIu64 " %" PRIu64 " %s %" PRIu64
		" %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
		" %" PRIu64 "\n",
		node, v->source < DL_SOURCE_COUNT ? source_names[v->source] :
						      "unknown",
		v->connected ? 1 : 0, (long long)v->since, v->files, v->used,
		cap, v->storage_bytes, v->peer_bytes, v->prefetch_sent,
		v->prefetch_cancelled, v->prefetch_done, v->prefetch_active,
		v->replicas);
}

static const char *const power_names[] = DL_POWER_NAMES;

static void _write_power(FILE *f, const char *node, const dl_power_stats_t *v)
{
	fprintf(f, "power %s %s %lld %" PRIu64 " %s\n", node,
		v->state < DL_POWER_COUNT ? power_names[v->state] : "up",
		(long long)v->since, v->emptied, v->kept ? "kept" : "lost");
}

/* The whole text, in memory, so its CRC closes it. */
static char *_render(const dl_cache_t *cache, const dl_persist_t *p,
		     size_t *len)
{
	save_ctx_t c = { 0 };
	char *buf = NULL;
	size_t blen = 0, i;
	uint32_t n, nfiles = dl_cache_file_count(cache);

	c.f = open_memstream(&buf, &blen);
	c.numbers = calloc(nfiles ? nfiles : 1, sizeof(*c.numbers));
	if (!c.f || !c.numbers) {
		if (c.f)
			fclose(c.f);
		free(buf);
		free(c.numbers);
		return NULL;
	}
	fprintf(c.f, HEADER " %d\nsaved %lld\n", DL_PERSIST_VERSION,
		(long long)time(NULL));
	if (p->sched)
		_write_sched(c.f, p->sched);
	for (n = 0; n < p->nnodes; n++) {
		uint64_t cap = n < dl_cache_node_count(cache) ?
				       dl_cache_capacity(cache, n) :
				       DL_CACHE_UNLIMITED;
		const dl_node_stats_t *s = p->stats ? &p->stats[n] : NULL;
		char capbuf[32] = "-";

		if (cap != DL_CACHE_UNLIMITED)
			snprintf(capbuf, sizeof(capbuf), "%" PRIu64, cap);
		fprintf(c.f,
			"node %s %s %" PRIu64 " %" PRIu64 " %" PRIu64
			" %" PRIu64 "\n",
			p->node_names[n], capbuf, s ? s->hits : 0,
			s ? s->misses : 0, s ? s->hit_bytes : 0,
			s ? s->miss_bytes : 0);
	}
	for (n = 0; p->service && n < p->nnodes; n++)
		_write_service(c.f, p->node_names[n], &p->service[n]);
	for (n = 0; p->power && n < p->nnodes; n++)
		_write_power(c.f, p->node_names[n], &p->power[n]);
	for (n = 0; n < p->nnodes && n < dl_cache_node_count(cache); n++) {
		node_ctx_t nc = { &c, p->node_names[n], cache };

		dl_cache_foreach(cache, n, _save_cached, &nc);
	}
	if (p->plan) {
		const dl_plan_t *pl = p->plan;

		fprintf(c.f, "plan %s %lld %" PRIu64 " %.6f %.6f %zu\n",
			pl->policy[0] ? pl->policy : "-",
			(long long)p->plan_time, pl->cut_bytes,
			pl->imbalance == pl->imbalance ? pl->imbalance : 0.0,
			pl->seconds, pl->n);
		for (i = 0; i < pl->n; i++) {
			const dl_assign_t *a = &pl->a[i];
			const char *node = "-";

			if (a->node >= 0 && (uint32_t)a->node < p->plan_nnodes)
				node = p->plan_nodes[a->node];
			fprintf(c.f,
				"job %u %s %.6g %u %u %" PRIu64 " %" PRIu64
				"\n",
				a->job_id, node, a->order, a->files_cached,
				a->nfiles, a->bytes_cached, a->bytes_total);
		}
	}
	free(c.numbers);
	if (fclose(c.f)) {
		free(buf);
		return NULL;
	}
	*len = blen;
	return buf;
}

static int _write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t w = write(fd, buf, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		buf += w;
		len -= (size_t)w;
	}
	return 0;
}

int dl_persist_save(const char *path, const dl_cache_t *cache,
		    const dl_persist_t *p)
{
	char *buf, *tmp, *dir, crcline[32];
	size_t len;
	int fd, dfd, rc = DL_EIO;

	if (!path || !cache || !p || (p->nnodes && !p->node_names))
		return DL_EINVAL;
	buf = _render(cache, p, &len);
	if (!buf)
		return DL_ENOMEM;
	snprintf(crcline, sizeof(crcline), "crc %08x\n",
		 dl_crc32(0, buf, len));
	if (asprintf(&tmp, "%s.new", path) < 0) {
		free(buf);
		return DL_ENOMEM;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
		  0600);
	if (fd >= 0) {
		if (!_write_all(fd, buf, len) &&
		    !_write_all(fd, crcline, strlen(crcline)) && !fsync(fd) &&
		    !close(fd)) {
			fd = -1;
			if (!rename(tmp, path))
				rc = 0;
		}
		if (fd >= 0)
			close(fd);
	}
	if (rc)
		unlink(tmp);
	/* The rename is durable only once the directory is on disk. */
	dir = strdup(path);
	if (!rc && dir) {
		dfd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd >= 0) {
			fsync(dfd);
			close(dfd);
		}
	}
	free(dir);
	free(tmp);
	free(buf);
	return rc;
}

/* --- load ----------------------------------------------------------- */

typedef struct {
	char *path;
	uint64_t size, acc;
	int64_t id;       /* in the tracker, once interned */
} lfile_t;

typedef struct {
	int32_t node;     /* index in p->node_names, -1: gone */
	uint32_t file;
} lcached_t;

static int _fail(char *err, size_t errlen, int rc, const char *fmt,
		 unsigned line)
{
	if (err && errlen)
		snprintf(err, errlen, fmt, line);
	return rc;
}

static int32_t _node_index(const dl_persist_t *p, const char *name)
{
	uint32_t n;

	for (n = 0; n < p->nnodes; n++)
		if (!strcmp(p->node_names[n], name))
			return (int32_t)n;
	return -1;
}

static int _read_file(const char *path, char **out, size_t *len)
{
	struct stat sb;
	char *buf;
	size_t got = 0;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return errno == ENOENT ? DL_ENOENT : DL_EIO;
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
		close(fd);
		return DL_EFORMAT;
	}
	if ((uint64_t)sb.st_size > MAX_STATE) {
		close(fd);
		return DL_ETOOBIG;
	}
	buf = malloc((size_t)sb.st_size + 1);
	if (!buf) {
		close(fd);
		return DL_ENOMEM;
	}
	while (got < (size_t)sb.st_size) {
		ssize_t r = read(fd, buf + got, (size_t)sb.st_size - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	buf[got] = '\0';
	*out = buf;
	*len = got;
	return 0;
}

static int _parse_u64(const char *s, uint64_t *v)
{
	char *end;

	/* strtoull() would take blanks and a sign ("\t-1" is UINT64_MAX). */
	if (!s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return (errno || *end) ? -1 : 0;
}

static int _parse_i64(const char *s, int64_t *v)
{
	char *end;
	long long x;

	if (!s || !(isdigit((unsigned char)*s) || *s == '-'))
		return -1;
	errno = 0;
	x = strtoll(s, &end, 10);
	if (errno || *end)
		return -1;
	*v = x;
	return 0;
}

/* Seconds: a finite number >= 0, as _sec_text() writes them. */
static int _parse_sec(const char *s, double *v)
{
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	*v = strtod(s, &end);
	/* What _sec_text() could not write back (subnormals) is no time. */
	return (errno || *end || !isfinite(*v) || *v < 0 ||
		(*v != 0 && *v < DBL_MIN)) ? -1 : 0;
}

/*
 * A service record (tok[0] is "service"): checked, not restored.  14
 * fields, or 15 since the replica counter was added.
 * \return 0, or -1 for a wrong field count, source or number.
 */
static int _check_service(char **tok, int nt)
{
	int64_t since;
	uint64_t v;
	int i, ok = 0;

	if ((nt != 14 && nt != 15) || _parse_i64(tok[4], &since))
		return -1;
	for (i = 0; i < DL_SOURCE_COUNT; i++)
		ok |= !strcmp(tok[2], source_names[i]);
	if (!ok || (strcmp(tok[3], "0") && strcmp(tok[3], "1")))
		return -1;
	for (i = 5; i < nt; i++)
		if ((i != 7 || strcmp(tok[i], "-")) && _parse_u64(tok[i], &v))
			return -1;
	return 0;
}

/*
 * A power record (tok[0] is "power"): checked, not restored.
 * \return 0, or -1 for a wrong field count, state or number.
 */
static int _check_power(char **tok, int nt)
{
	int64_t since;
	uint64_t v;
	int i, ok = 0;

	if (nt != 6 || _parse_i64(tok[3], &since) || _parse_u64(tok[4], &v) ||
	    (strcmp(tok[5], "lost") && strcmp(tok[5], "kept")))
		return -1;
	for (i = 0; i < DL_POWER_COUNT; i++)
		ok |= !strcmp(tok[2], power_names[i]);
	return ok ? 0 : -1;
}

/*
 * The fields of a stats record (tok[0] is "stats"), in the order of
 * dl_persist.h.  Into a copy: the caller applies it once the whole file
 * is verified.
 * \return 0, or -1 for a wrong field count or a bad number.
 */
static int _parse_sched(char **tok, int nt, dl_sched_stats_t *s)
{
	uint64_t *u[] = { &s->placed,          &s->moved,
			  &s->widened,         &s->started_planned,
			  &s->started_widened, &s->started_unplaced };
	uint64_t pending;
	size_t i;

	if (nt != 14 || _parse_i64(tok[1], &s->since) ||
	    _parse_u64(tok[2], &s->cycles) || _parse_u64(tok[3], &s->plans) ||
	    _parse_sec(tok[4], &s->plan_sec_total) ||
	    _parse_sec(tok[5], &s->plan_sec_max) ||
	    _parse_sec(tok[6], &s->plan_sec_last) ||
	    _parse_u64(tok[13], &pending) || pending > UINT32_MAX)
		return -1;
	for (i = 0; i < sizeof(u) / sizeof(u[0]); i++)
		if (_parse_u64(tok[7 + i], u[i]))
			return -1;
	s->pending_placed = (uint32_t)pending;
	return 0;
}

/* \return the version of a header line we read (1 to DL_PERSIST_VERSION),
 * or 0. */
static int _version(const char *line)
{
	uint64_t v;

	if (strncmp(line, HEADER " ", strlen(HEADER " ")) ||
	    _parse_u64(line + strlen(HEADER " "), &v) || v < 1 ||
	    v > DL_PERSIST_VERSION)
		return 0;
	return (int)v;
}

int dl_persist_read(const char *path, char **text, char *err,
		    size_t errlen)
{
	char *buf = NULL, *last;
	size_t len, body;
	uint32_t crc;
	int rc;

	if (!path || !text)
		return DL_EINVAL;
	if ((rc = _read_file(path, &buf, &len))) {
		if (err && errlen)
			snprintf(err, errlen, "%s", rc == DL_ENOENT ?
				 "no state file" : rc == DL_ETOOBIG ?
				 "larger than 512 MiB, not read" :
				 "cannot read the state file");
		return rc;
	}
	/* The last line is the CRC of everything before it. */
	if (len < 2 || buf[len - 1] != '\n' || memchr(buf, '\0', len)) {
		free(buf);
		return _fail(err, errlen, DL_EFORMAT,
			     "truncated or binary state file%.0u", 0);
	}
	buf[len - 1] = '\0';
	last = strrchr(buf, '\n');
	body = last ? (size_t)(last - buf) + 1 : 0;
	if (!last || sscanf(last + 1, "crc %8x", &crc) != 1 ||
	    strlen(last + 1) != 12 || dl_crc32(0, buf, body) != crc) {
		free(buf);
		return _fail(err, errlen, DL_EFORMAT,
			     "checksum mismatch: corrupt or truncated state file%.0u",
			     0);
	}
	*last = '\0';
	if (strncmp(buf, HEADER " ", strlen(HEADER " "))) {
		free(buf);
		return _fail(err, errlen, DL_EFORMAT,
			     "not a slurm-datalocality state file%.0u", 0);
	}
	*text = buf;
	return 0;
}

/* A restored access count stays far from wrapping at the next use. */
#define MAX_ACC (UINT64_MAX >> 2)

/*
 * dl_persist_load()'s records, read and checked before any is applied.
 * files, cached and stats are owned here (_ld_fini()); the paths point
 * into the file's text, which the caller owns.
 */
typedef struct {
	const dl_persist_t *p;
	char *err;
	size_t errlen;
	int version;
	lfile_t *files;
	size_t nfiles, fcap;
	lcached_t *cached;
	size_t ncached, ccap;
	dl_node_stats_t *stats; /* [p->nnodes] or NULL: not wanted */
	dl_sched_stats_t sched;
	int have_sched;
} _load_t;

static void _ld_fini(_load_t *ld)
{
	free(ld->files);
	free(ld->cached);
	free(ld->stats);
}

/* line's fields into tok; a "file" record keeps the rest of the line as
 * its path.  \return the number of fields. */
static int _tokens(char *line, char *tok[MAX_FIELDS])
{
	char *sp;
	int nt = 0;

	for (sp = line; nt < MAX_FIELDS && sp; nt++) {
		tok[nt] = sp;
		if (nt == 3 && !strcmp(tok[0], "file"))
			return nt + 1;
		sp = strchr(sp, ' ');
		if (sp)
			*sp++ = '\0';
	}
	return nt;
}

/* "node NAME - HITS MISSES HIT_BYTES MISS_BYTES": the node's counters. */
static int _ld_node(_load_t *ld, char **tok, unsigned lineno)
{
	int32_t n = _node_index(ld->p, tok[1]);
	uint64_t v[4];
	size_t i;

	for (i = 0; i < 4; i++)
		if (_parse_u64(tok[3 + i], &v[i]))
			return _fail(ld->err, ld->errlen, DL_EFORMAT,
				     "line %u: bad node counter", lineno);
	if (n >= 0 && ld->stats) {
		ld->stats[n].hits = v[0];
		ld->stats[n].misses = v[1];
		ld->stats[n].hit_bytes = v[2];
		ld->stats[n].miss_bytes = v[3];
	}
	return 0;
}

/* "file SIZE|- ACCESSES /PATH". */
static int _ld_file(_load_t *ld, char **tok, unsigned lineno)
{
	lfile_t f = { 0 };
	void *a = ld->files;

	if ((strcmp(tok[1], "-") && _parse_u64(tok[1], &f.size)) ||
	    _parse_u64(tok[2], &f.acc) || tok[3][0] != '/')
		return _fail(ld->err, ld->errlen, DL_EFORMAT,
			     "line %u: bad file record", lineno);
	if (!strcmp(tok[1], "-"))
		f.size = DL_SIZE_UNKNOWN;
	f.path = tok[3];
	if (dl__grow(&a, ld->nfiles, 1, &ld->fcap, sizeof(f), 1024))
		return DL_ENOMEM;
	ld->files = a;
	ld->files[ld->nfiles++] = f;
	return 0;
}

/* "cached NODE FILENO": a copy of an earlier file record on a node. */
static int _ld_cached(_load_t *ld, char **tok, unsigned lineno)
{
	uint64_t fno;
	void *a = ld->cached;

	if (_parse_u64(tok[2], &fno) || fno >= ld->nfiles)
		return _fail(ld->err, ld->errlen, DL_EFORMAT,
			     "line %u: cached entry names no file", lineno);
	if (dl__grow(&a, ld->ncached, 1, &ld->ccap, sizeof(*ld->cached),
		     1024))
		return DL_ENOMEM;
	ld->cached = a;
	ld->cached[ld->ncached].node = _node_index(ld->p, tok[1]);
	ld->cached[ld->ncached++].file = (uint32_t)fno;
	return 0;
}

/* One record (a line after the header).  \return 0, DL_EFORMAT (err
 * says which line) or DL_ENOMEM. */
static int _ld_line(_load_t *ld, char *line, unsigned lineno)
{
	char *tok[MAX_FIELDS];
	int nt = _tokens(line, tok);

	if (!strcmp(tok[0], "saved") || !strcmp(tok[0], "plan") ||
	    !strcmp(tok[0], "job"))
		return 0; /* informational: a new plan comes at once */
	if (!strcmp(tok[0], "stats") && ld->version >= 2) {
		if (ld->have_sched++)
			return _fail(ld->err, ld->errlen, DL_EFORMAT,
				     "line %u: second stats record", lineno);
		if (_parse_sched(tok, nt, &ld->sched))
			return _fail(ld->err, ld->errlen, DL_EFORMAT,
				     "line %u: bad stats record", lineno);
		return 0;
	}
	if (!strcmp(tok[0], "service") && ld->version >= 3)
		return _check_service(tok, nt) ?
			       _fail(ld->err, ld->errlen, DL_EFORMAT,
				     "line %u: bad service record", lineno) :
			       0;
	if (!strcmp(tok[0], "power") && ld->version >= 4)
		return _check_power(tok, nt) ?
			       _fail(ld->err, ld->errlen, DL_EFORMAT,
				     "line %u: bad power record", lineno) :
			       0;
	if (!strcmp(tok[0], "node") && nt == 7)
		return _ld_node(ld, tok, lineno);
	if (!strcmp(tok[0], "file") && nt == 4)
		return _ld_file(ld, tok, lineno);
	if (!strcmp(tok[0], "cached") && nt == 3)
		return _ld_cached(ld, tok, lineno);
	return _fail(ld->err, ld->errlen, DL_EFORMAT,
		     "line %u: unknown record", lineno);
}

/* The verified records into the tracker and p. */
static void _ld_apply(const _load_t *ld, dl_cache_t *cache, dl_persist_t *p)
{
	size_t i;

	for (i = 0; i < ld->nfiles; i++)
		ld->files[i].id = dl_cache_file_intern(cache,
						       ld->files[i].path,
						       ld->files[i].size);
	for (i = 0; i < ld->ncached; i++) {
		const lfile_t *f = &ld->files[ld->cached[i].file];
		int32_t n = ld->cached[i].node;

		if (n < 0 || f->id < 0 ||
		    (uint32_t)n >= dl_cache_node_count(cache) ||
		    f->size == DL_SIZE_UNKNOWN)
			continue; /* node gone, or never accountable */
		/* A node's capacity may have shrunk: skip what no longer fits. */
		dl_cache_insert(cache, (uint32_t)n, (uint32_t)f->id, 0, NULL,
				NULL);
	}
	/*
	 * After the copies, which count a use each: raising to the saved
	 * count then restores it exactly (a restart adds nothing), and it is
	 * capped far from wrapping at the next use.
	 */
	for (i = 0; i < ld->nfiles; i++)
		if (ld->files[i].id >= 0)
			dl_cache_file_raise_access(
				cache, (uint32_t)ld->files[i].id,
				ld->files[i].acc < MAX_ACC ? ld->files[i].acc :
							     MAX_ACC);
	if (ld->stats)
		memcpy(p->stats, ld->stats, p->nnodes * sizeof(*ld->stats));
	if (ld->have_sched && p->sched)
		*p->sched = ld->sched;
}

int dl_persist_load(const char *path, dl_cache_t *cache, dl_persist_t *p,
		    char *err, size_t errlen)
{
	_load_t ld = { .p = p, .err = err, .errlen = errlen };
	char *buf = NULL, *line, *next;
	unsigned lineno = 0;
	int rc;

	if (!path || !cache || !p)
		return DL_EINVAL;
	if ((rc = dl_persist_read(path, &buf, err, errlen)))
		return rc;
	if (p->stats &&
	    !(ld.stats = calloc(p->nnodes ? p->nnodes : 1, sizeof(*ld.stats)))) {
		free(buf);
		return DL_ENOMEM;
	}
	for (line = buf; line && !rc; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (++lineno > 1)
			rc = _ld_line(&ld, line, lineno);
		else if (!(ld.version = _version(line)))
			rc = _fail(err, errlen, DL_EFORMAT,
				   "line %u: not a slurm-datalocality state file of version 1 to 4",
				   lineno);
	}
	if (!rc && lineno < 2)
		rc = _fail(err, errlen, DL_EFORMAT, "empty state file%.0u", 0);
	if (!rc) /* verified: now apply */
		_ld_apply(&ld, cache, p);
	_ld_fini(&ld);
	free(buf);
	return rc;
}
