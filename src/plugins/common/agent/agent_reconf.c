/* agent_reconf.c - what a reconfiguration reads, fingerprinted
 * (agent_reconf.h). */
#include "agent_reconf.h"

#include <stdio.h>
#include <string.h>

#include "agent_fnv.h"

/* Apart from every length a string or a file can have. */
#define RECONF_MISSING UINT64_MAX

uint64_t agent_reconf_file(uint64_t h, const char *path)
{
	unsigned char buf[4096];
	uint64_t n = 0;
	size_t got;
	FILE *f = path ? fopen(path, "rb") : NULL;

	if (!f)
		return agent_fnv_u64(h, RECONF_MISSING);
	while ((got = fread(buf, 1, sizeof(buf), f)) > 0) {
		h = agent_fnv_bytes(h, buf, got);
		n += got;
	}
	/* A read that failed half way is not the file's content. */
	if (ferror(f))
		n = RECONF_MISSING;
	fclose(f);
	return agent_fnv_u64(h, n);
}

uint64_t agent_reconf_str(uint64_t h, const char *s)
{
	if (!s)
		return agent_fnv_u64(h, RECONF_MISSING);
	return agent_fnv_u64(agent_fnv_str(h, s), strlen(s));
}

bool agent_reconf_look(const agent_reconf_t *r, bool asked, int64_t stamp,
		       int64_t now)
{
	return !r->known || asked || stamp != r->seen ||
	       (r->recheck && now > r->seen);
}

agent_reconf_what_t agent_reconf_seen(agent_reconf_t *r, bool asked,
				      int64_t stamp, int64_t now,
				      uint64_t fp)
{
	bool first = !r->known, moved = first || stamp != r->seen;
	bool changed = first || fp != r->fp;

	r->known = true;
	r->seen = stamp;
	r->recheck = now <= stamp;
	r->fp = fp;
	if (changed)
		return AGENT_RECONF_APPLY;
	return asked || moved ? AGENT_RECONF_SAME : AGENT_RECONF_NONE;
}
