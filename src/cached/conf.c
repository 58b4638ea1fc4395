/*
 * conf.c - dl-cached's settings: the cache keys dl-stage reads
 * (stage_conf.h), the service keys of datalocality.conf (ServicePort,
 * PeerPort, PeerAddr, ServiceController, MungeSocket, PrefetchMaxBytes,
 * PrefetchTimeout) and, from slurm.conf, SlurmUser (whose credentials
 * are trusted besides root's) and the first SlurmctldHost (the default
 * controller).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cached.h"
#include "dl_files.h"
#include "stage_conf.h"

static int _port(const char *key, const char *v, uint16_t *out)
{
	char *end;
	long n = strtol(v, &end, 10);

	if (!*v || *end || n < 1 || n > 65535) {
		cached_log(3, "datalocality.conf: %s=%s is not a port, "
			   "ignored", key, v);
		return -1;
	}
	*out = (uint16_t)n;
	return 0;
}

/* An integer setting within [lo, hi]; a bad value is logged and ignored. */
static void _uint_key(const char *k, const char *v, long lo, long hi,
		      unsigned *out)
{
	char *end;
	long t = strtol(v, &end, 10);

	if (!*v || *end || t < lo || t > hi)
		cached_log(3, "datalocality.conf: %s=%s is not %ld-%ld, "
			   "ignored", k, v, lo, hi);
	else
		*out = (unsigned)t;
}

static void _service_key(const char *k, char *v, void *arg)
{
	cached_conf_t *c = arg;
	uint64_t n;

	if (!strcasecmp(k, "ServicePort"))
		_port(k, v, &c->service_port);
	else if (!strcasecmp(k, "PeerPort") && !c->peer_port)
		_port(k, v, &c->peer_port);
	else if (!strcasecmp(k, "PeerAddr") && !c->peer_host[0])
		snprintf(c->peer_host, sizeof(c->peer_host), "%s", v);
	else if (!strcasecmp(k, "ServiceController") && !c->controller[0])
		snprintf(c->controller, sizeof(c->controller), "%s", v);
	else if (!strcasecmp(k, "MungeSocket"))
		snprintf(c->munge_socket, sizeof(c->munge_socket), "%s", v);
	else if (!strcasecmp(k, "PrefetchMaxBytes")) {
		if (dl_files_parse_size(v, strlen(v), &n))
			cached_log(3, "datalocality.conf: PrefetchMaxBytes=%s "
				   "is not a size, ignored", v);
		else
			c->prefetch_max = n;
	} else if (!strcasecmp(k, "PrefetchTimeout")) {
		_uint_key(k, v, 1, 86400, &c->prefetch_timeout);
	} else if (!strcasecmp(k, "PrefetchParallel")) {
		_uint_key(k, v, 0, 64, &c->prefetch_parallel);
	}
}

typedef struct slurm_keys {
	char user[256];
	char ctld[256];
} slurm_keys_t;

static void _slurm_key(const char *k, char *v, void *arg)
{
	slurm_keys_t *s = arg;
	char *paren;

	if (!strcasecmp(k, "SlurmUser"))
		snprintf(s->user, sizeof(s->user), "%s", v);
	else if ((!strcasecmp(k, "SlurmctldHost") ||
		  !strcasecmp(k, "ControlMachine")) && !s->ctld[0]) {
		/* "name(addr)": the address if given */
		if ((paren = strchr(v, '('))) {
			v = paren + 1;
			v[strcspn(v, ")")] = '\0';
		}
		snprintf(s->ctld, sizeof(s->ctld), "%s", v);
	}
}

static void _warn_cb(const char *msg, void *arg)
{
	(void)arg;
	cached_log(3, "%s", msg);
}

/* The cache keys, as dl-stage reads them. */
static int _stage_keys(cached_conf_t *c, const char *path, char *err,
		       size_t errlen)
{
	dl_stage_conf_t sc = { 0 };
	char e[512] = "";

	if (dl_stage_conf_read(path, geteuid() == 0, &sc, _warn_cb, NULL, e,
			       sizeof(e))) {
		snprintf(err, errlen, "%s", e);
		return -1;
	}
	if (!sc.cache_dir) {
		snprintf(err, errlen, "%s: no CacheDir", path);
		dl_stage_conf_clear(&sc);
		return -1;
	}
	c->cache_dir = dl_stage_expand_dir(sc.cache_dir, c->node);
	if (!c->cache_dir) {
		snprintf(err, errlen, "CacheDir=%s: not an absolute path, or "
			 "bad node name '%s'", sc.cache_dir, c->node);
		dl_stage_conf_clear(&sc);
		return -1;
	}
	dl_stage_conf_to_opts(&sc, &c->opts);
	dl_stage_conf_clear(&sc);
	return 0;
}

int cached_conf_load(cached_conf_t *c, const char *conf_path, char *err,
		     size_t errlen)
{
	char path[4096], spath[4096];
	const char *slurm_conf = getenv("SLURM_CONF");
	slurm_keys_t sk = { "", "" };

	if (!c->node[0] && !gethostname(c->node, sizeof(c->node) - 1))
		c->node[strcspn(c->node, ".")] = '\0';
	if (conf_path)
		snprintf(path, sizeof(path), "%s", conf_path);
	else if (dl_stage_conf_path(slurm_conf, path, sizeof(path))) {
		snprintf(err, errlen, "$SLURM_CONF too long");
		return -1;
	}
	c->service_port = CACHED_SERVICE_PORT;
	c->prefetch_timeout = CACHED_PREFETCH_TIMEOUT;
	c->prefetch_parallel = CACHED_PREFETCH_PARALLEL;
	if (_stage_keys(c, path, err, errlen))
		return -1;
	dl_stage_conf_keys(path, _service_key, c);
	if (!c->peer_port)
		c->peer_port = CACHED_PEER_PORT;
	snprintf(spath, sizeof(spath), "%s",
		 slurm_conf && *slurm_conf ? slurm_conf :
					     "/etc/slurm/slurm.conf");
	dl_stage_conf_keys(spath, _slurm_key, &sk);
	if (!c->controller[0])
		snprintf(c->controller, sizeof(c->controller), "%s",
			 sk.ctld[0] ? sk.ctld : "127.0.0.1");
	if (!c->peer_host[0] && gethostname(c->peer_host,
					    sizeof(c->peer_host) - 1))
		snprintf(c->peer_host, sizeof(c->peer_host), "127.0.0.1");
	c->slurm_uid = dl_stage_user_uid(sk.user);
	if (!c->prefetch_max)
		c->prefetch_max = c->opts.capacity == DL_CACHE_UNLIMITED ?
					  UINT64_MAX :
					  c->opts.capacity / 2;
	c->opts.node = c->node;
	c->opts.log = cached_log_cb;
	c->opts.inventory_reader = c->slurm_uid;
	c->auth.munge_socket = c->munge_socket[0] ? c->munge_socket : NULL;
	c->auth.slurm_uid = c->slurm_uid;
	return 0;
}
