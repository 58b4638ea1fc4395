/* stage_conf.c - dl-stage's keys of datalocality.conf (stage_conf.h) */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
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
#define KEY_CHARS \
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_"

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

int dl_stage_conf_keys(const char *path, dl_stage_key_fn fn, void *arg)
{
	FILE *f = fopen(path, "re");
	char line[4096], *p, *eq, *e;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if ((p = strchr(line, '#')))
			*p = '\0';
		for (p = line; isspace((unsigned char)*p); p++)
			;
		if (!(eq = strchr(p, '=')))
			continue;
		*eq = '\0';
		for (e = eq; e > p && isspace((unsigned char)e[-1]); e--)
			e[-1] = '\0';
		for (eq++; isspace((unsigned char)*eq); eq++)
			;
		for (e = eq + strlen(eq); e > eq && isspace((unsigned char)e[-1]);
		     e--)
			e[-1] = '\0';
		/* Slurm allows several Key=value on one line: first only */
		eq[strcspn(eq, " \t")] = '\0';
		fn(p, eq, arg);
	}
	fclose(f);
	return 0;
}

static void _slurm_user_key(const char *k, char *v, void *arg)
{
	if (!strcasecmp(k, "SlurmUser"))
		snprintf(arg, 256, "%s", v);
}

uid_t dl_stage_user_uid(const char *user)
{
	struct passwd *pw;

	if (!user || !user[0])
		return 0;
	if ((pw = getpwnam(user)))
		return pw->pw_uid;
	if (strspn(user, "0123456789") == strlen(user))
		return (uid_t)strtoul(user, NULL, 10);
	return 0;
}

uid_t dl_stage_slurm_user(const char *slurm_conf)
{
	char user[256] = "";

	dl_stage_conf_keys(slurm_conf && *slurm_conf ? slurm_conf
						     : DEFAULT_SLURM_CONF,
			   _slurm_user_key, user);
	return dl_stage_user_uid(user);
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
	conf->max_files = 0;
	conf->user_share = 0;
	conf->open_timeout = DL_STAGE_OPEN_TIMEOUT;
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

/* A decimal fraction in [0, 1], strictly: digits, at most one '.'. */
static int _fraction(const char *val, double *out)
{
	char *end;
	double v;

	if (!*val || strspn(val, "0123456789.") != strlen(val))
		return -1;
	v = strtod(val, &end);
	if (*end || v < 0 || v > 1)
		return -1;
	*out = v;
	return 0;
}

/* The keys that bound what a job may do to the node.  \return 1 if known. */
static int _apply_limits(dl_stage_conf_t *conf, const char *key,
			 const char *val, dl_stage_warn_fn warn, void *arg)
{
	uint64_t v;

	if (!strcasecmp(key, "CacheMaxFiles")) {
		if (dl_files_parse_size(val, strlen(val), &v) || v > UINT32_MAX)
			_warn(warn, arg,
			      "datalocality.conf: CacheMaxFiles=%s is not a number of files, ignored%s",
			      val, "");
		else
			conf->max_files = v;
		return 1;
	}
	if (!strcasecmp(key, "CacheUserShare")) {
		if (_fraction(val, &conf->user_share))
			_warn(warn, arg,
			      "datalocality.conf: CacheUserShare=%s is not a fraction from 0 to 1, using 0 (off)%s",
			      val, "");
		return 1;
	}
	if (!strcasecmp(key, "StageOpenTimeout")) {
		if (dl_files_parse_size(val, strlen(val), &v) || !v ||
		    v > 3600)
			_warn(warn, arg,
			      "datalocality.conf: StageOpenTimeout=%s is not 1-3600 seconds, ignored%s",
			      val, "");
		else
			conf->open_timeout = (unsigned)v;
		return 1;
	}
	return 0;
}

static int _apply(dl_stage_conf_t *conf, const char *key, const char *val,
		  dl_stage_warn_fn warn, void *arg)
{
	uint64_t v;

	if (_apply_limits(conf, key, val, warn, arg))
		return 0;

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

/*
 * Apply the lines of text (modified).  A line that is neither blank, a
 * comment nor Key=value (a key of letters, digits and '_') is reported
 * and ignored, never guessed at.
 */
static int _parse(dl_stage_conf_t *conf, char *text, dl_stage_warn_fn warn,
		  void *warn_arg)
{
	char *line, *next;
	int rc = 0, lineno = 0;

	for (line = text; line && !rc; line = next) {
		char *eq, *hash, *key;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		eq = strchr(line, '=');
		if (eq)
			*eq = '\0';
		key = _trim(line);
		if (!eq && !*key)
			continue; /* blank or comment */
		if (!eq || !*key || strspn(key, KEY_CHARS) != strlen(key)) {
			char where[32];

			snprintf(where, sizeof(where), "%d", lineno);
			_warn(warn, warn_arg,
			      "datalocality.conf: line %s is not Key=value, ignored%s",
			      where, "");
			continue;
		}
		rc = _apply(conf, key, _trim(eq + 1), warn, warn_arg);
	}
	return rc;
}

int dl_stage_conf_read(const char *path, int require_safe,
		       dl_stage_conf_t *conf, dl_stage_warn_fn warn,
		       void *warn_arg, char *err, size_t errlen)
{
	struct stat sb;
	char *text;
	ssize_t n;
	size_t got = 0;
	int fd, rc;

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
	if (memchr(text, '\0', got)) {
		snprintf(err, errlen, "%s is not a text file (a NUL byte)",
			 path);
		free(text);
		return DL_EIO;
	}
	rc = _parse(conf, text, warn, warn_arg);
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

void dl_stage_conf_to_opts(const dl_stage_conf_t *conf,
			   dl_stage_opts_t *opts)
{
	opts->capacity = conf->capacity;
	opts->policy = conf->policy;
	opts->max_files = (uint32_t)conf->max_files;
	opts->user_share = conf->user_share;
	opts->open_timeout = conf->open_timeout;
	opts->emu_bw = conf->emu_bw;
	opts->emu_servers = conf->emu_servers;
	opts->emu_lockdir = conf->emu_lockdir ? strdup(conf->emu_lockdir) :
						NULL;
}
