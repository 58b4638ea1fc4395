/* stage_conf.c - CacheDir, CacheCapacity, EvictionPolicy of datalocality.conf */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dl_error.h"
#include "dl_files.h"
#include "stage_conf.h"

#define DEFAULT_SLURM_CONF "/etc/slurm/slurm.conf"
/* A configuration file is small; anything larger is not ours. */
#define CONF_MAX (1 << 20)

int dl_stage_conf_path(const char *slurm_conf, char *buf, size_t len)
{
	const char *sc = slurm_conf && *slurm_conf ? slurm_conf
						   : DEFAULT_SLURM_CONF;
	const char *slash = strrchr(sc, '/');
	int n;

	if (!buf)
		return DL_EINVAL;
	if (!slash)
		n = snprintf(buf, len, "datalocality.conf");
	else
		n = snprintf(buf, len, "%.*s/datalocality.conf",
			     (int)(slash - sc), sc);
	return n < 0 || (size_t)n >= len ? DL_ERANGE : 0;
}

void dl_stage_conf_clear(dl_stage_conf_t *conf)
{
	if (!conf)
		return;
	free(conf->cache_dir);
	conf->cache_dir = NULL;
	conf->capacity = DL_CACHE_UNLIMITED;
	conf->policy = DL_EVICT_VALUE;
	free(conf->emu_lockdir);
	conf->emu_lockdir = NULL;
	conf->emu_bw = 0;
	conf->emu_servers = 1;
}

static void _warn(dl_stage_warn_fn warn, void *arg, const char *fmt,
		  const char *a, const char *b)
{
	char msg[512];

	if (!warn)
		return;
	snprintf(msg, sizeof(msg), fmt, a, b);
	warn(msg, arg);
}

/* Strip blanks, and one pair of quotes as Slurm's parser does. */
static char *_trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	if (e - s >= 2 && *s == '"' && e[-1] == '"') {
		e[-1] = '\0';
		s++;
	}
	return s;
}

static int _apply(dl_stage_conf_t *conf, const char *key, const char *val,
		  dl_stage_warn_fn warn, void *arg)
{
	uint64_t v;

	if (!strcasecmp(key, "CacheDir")) {
		if (val[0] != '/') {
			_warn(warn, arg,
			      "datalocality.conf: CacheDir=%s is not an absolute path, ignored%s",
			      val, "");
			return 0;
		}
		free(conf->cache_dir);
		conf->cache_dir = strdup(val);
		return conf->cache_dir ? 0 : DL_ENOMEM;
	}
	if (!strcasecmp(key, "CacheCapacity")) {
		if (!strcasecmp(val, "unlimited"))
			conf->capacity = DL_CACHE_UNLIMITED;
		else if (dl_files_parse_size(val, strlen(val), &v))
			_warn(warn, arg,
			      "datalocality.conf: CacheCapacity=%s is not a size, using unlimited%s",
			      val, "");
		else
			conf->capacity = v;
		return 0;
	}
	if (!strcasecmp(key, "EmulateStorageBandwidth")) {
		if (dl_files_parse_size(val, strlen(val), &v))
			_warn(warn, arg,
			      "datalocality.conf: EmulateStorageBandwidth=%s is not a rate in bytes/s, ignored%s",
			      val, "");
		else
			conf->emu_bw = v;
		return 0;
	}
	if (!strcasecmp(key, "EmulateStorageServers")) {
		if (dl_files_parse_size(val, strlen(val), &v) || !v || v > 4096)
			_warn(warn, arg,
			      "datalocality.conf: EmulateStorageServers=%s is not 1-4096, ignored%s",
			      val, "");
		else
			conf->emu_servers = (unsigned)v;
		return 0;
	}
	if (!strcasecmp(key, "EmulateStorageLockDir")) {
		if (val[0] != '/') {
			_warn(warn, arg,
			      "datalocality.conf: EmulateStorageLockDir=%s is not an absolute path, ignored%s",
			      val, "");
			return 0;
		}
		free(conf->emu_lockdir);
		conf->emu_lockdir = strdup(val);
		return conf->emu_lockdir ? 0 : DL_ENOMEM;
	}
	if (!strcasecmp(key, "EvictionPolicy")) {
		if (dl_evict_from_name(val, &conf->policy))
			_warn(warn, arg,
			      "datalocality.conf: unknown EvictionPolicy=%s, using value%s",
			      val, "");
	}
	return 0;
}

int dl_stage_conf_read(const char *path, int require_safe,
		       dl_stage_conf_t *conf, dl_stage_warn_fn warn,
		       void *warn_arg, char *err, size_t errlen)
{
	struct stat sb;
	char *text, *line, *next;
	ssize_t n;
	size_t got = 0;
	int fd, rc = 0;

	if (!path || !conf)
		return DL_EINVAL;
	conf->cache_dir = NULL;
	dl_stage_conf_clear(conf);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, errlen, "cannot open %s: %s", path,
			 strerror(errno));
		return DL_EIO;
	}
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
		snprintf(err, errlen, "%s is not a regular file", path);
		close(fd);
		return DL_EIO;
	}
	/*
	 * dl-stage runs as root and writes where CacheDir says: a file that
	 * a user could edit would hand them root.
	 */
	if (require_safe && (sb.st_uid != 0 || (sb.st_mode & 022))) {
		snprintf(err, errlen,
			 "%s must be owned by root and not writable by group or others (owner uid %u, mode %04o)",
			 path, (unsigned)sb.st_uid,
			 (unsigned)(sb.st_mode & 07777));
		close(fd);
		return DL_EPERM;
	}
	if (sb.st_size > CONF_MAX) {
		snprintf(err, errlen, "%s is larger than 1 MiB", path);
		close(fd);
		return DL_EIO;
	}
	text = malloc((size_t)sb.st_size + 1);
	if (!text) {
		close(fd);
		return DL_ENOMEM;
	}
	while (got < (size_t)sb.st_size &&
	       (n = read(fd, text + got, (size_t)sb.st_size - got)) > 0)
		got += (size_t)n;
	close(fd);
	text[got] = '\0';
	for (line = text; line && !rc; line = next) {
		char *eq, *hash;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		eq = strchr(line, '=');
		if (!eq)
			continue;
		*eq = '\0';
		rc = _apply(conf, _trim(line), _trim(eq + 1), warn, warn_arg);
	}
	free(text);
	if (rc)
		dl_stage_conf_clear(conf);
	return rc;
}

char *dl_stage_expand_dir(const char *pattern, const char *node)
{
	size_t cap, n = 0;
	char *out;

	if (!pattern || pattern[0] != '/')
		return NULL;
	if (strstr(pattern, "%n") &&
	    (!node || !*node || strchr(node, '/') || !strcmp(node, ".") ||
	     !strcmp(node, "..")))
		return NULL;
	cap = strlen(pattern) + 1;
	if (node)
		cap += strlen(node) * (strlen(pattern) / 2);
	out = malloc(cap);
	if (!out)
		return NULL;
	for (const char *p = pattern; *p; p++) {
		if (p[0] == '%' && p[1] == 'n') {
			memcpy(out + n, node, strlen(node));
			n += strlen(node);
			p++;
		} else if (p[0] == '%' && p[1] == '%') {
			out[n++] = '%';
			p++;
		} else {
			out[n++] = *p;
		}
	}
	out[n] = '\0';
	if (n >= DL_PATH_MAX) {
		free(out);
		return NULL;
	}
	return out;
}
