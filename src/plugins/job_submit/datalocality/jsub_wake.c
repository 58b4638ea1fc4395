/* jsub_wake.c - wake the planning agent at a gated submit; see jsub_wake.h. */
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "src/common/slurm_xlator.h"

#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "dl_agent.h"
#include "jsub_wake.h"

/* The plugins that run the agent (dl_agent.c), by file name. */
static const char *const hosts[] = {
	"sched_datalocality",
	"slurmctld_datalocality",
	"job_submit_datalocality_agent",
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char *found;             /* path of the plugin found, xmalloc'd */
static time_t next_search;      /* none found: when to look again */

/* The loaded plugin at path, held until dlclose(), or NULL. */
static void *_loaded(const char *path)
{
	return dlopen(path, RTLD_LAZY | RTLD_NOLOAD);
}

/* A loaded plugin of the agent in PluginDir (':'-separated): its path
 * (xmalloc'd, the caller's) or NULL. */
static char *_search(void)
{
	char *dirs = xstrdup(slurm_conf.plugindir), *save = NULL, *d;
	char *path = NULL;
	size_t i;
	void *h;

	for (d = dirs ? strtok_r(dirs, ":", &save) : NULL; d && !path;
	     d = strtok_r(NULL, ":", &save)) {
		for (i = 0; i < sizeof(hosts) / sizeof(hosts[0]) && !path;
		     i++) {
			path = xstrdup_printf("%s/%s.so", d, hosts[i]);
			h = _loaded(path);
			if (!h || !dlsym(h, DL_AGENT_SUBMITTED_SYM))
				xfree(path);
			if (h)
				dlclose(h);
		}
	}
	xfree(dirs);
	return path;
}

/*
 * The agent's plugin, held (the caller dlclose()s it), or NULL: the one
 * found before if still loaded, else searched for at most every
 * JSUB_WAKE_SEARCH_S.  Held, a reconfigure cannot unload it during the
 * call.
 */
static void *_host(void)
{
	void *h = NULL;

	slurm_mutex_lock(&lock);
	if (!found && time(NULL) >= next_search) {
		found = _search();
		if (!found)
			next_search = time(NULL) + JSUB_WAKE_SEARCH_S;
	}
	if (found && !(h = _loaded(found)))
		xfree(found); /* unloaded: searched for at the next call */
	slurm_mutex_unlock(&lock);
	return h;
}

void jsub_wake_agent(void)
{
	void (*wake)(void);
	void *h = _host();

	if (!h)
		return;
	/* POSIX's way to take a function from dlsym(). */
	*(void **)(&wake) = dlsym(h, DL_AGENT_SUBMITTED_SYM);
	if (wake)
		wake();
	dlclose(h);
}

void jsub_wake_fini(void)
{
	slurm_mutex_lock(&lock);
	xfree(found);
	next_search = 0;
	slurm_mutex_unlock(&lock);
}
