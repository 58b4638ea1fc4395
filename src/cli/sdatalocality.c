/*
 * sdatalocality - show what sched/datalocality knows: per-node cache use
 * and contents, hit rates, the last plan, why a job was placed where it
 * is, and the scheduler's counters.  It reads the plugin's state file
 * (dl_persist.h) under StateSaveLocation, so it runs where that directory
 * is visible (the controller, or any host sharing it) and needs no
 * running slurmctld.
 *
 * This file only wires the command line to the views in cli.h.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "dl_error.h"
#include "dl_persist.h"

/* The commands; those with an argument need exactly one. */
static const struct {
	const char *name;
	int has_arg;
	int (*show)(const dl_cli_state_t *s, const char *arg, int json);
} cmds[] = {
	{ "summary", 0, dl_cli_show_summary },
	{ "nodes", 0, dl_cli_show_nodes },
	{ "files", 1, dl_cli_show_files },
	{ "job", 1, dl_cli_show_job },
	{ "plan", 0, dl_cli_show_plan },
	{ "stats", 0, dl_cli_show_stats },
};

/* StateSaveLocation from slurm.conf ($SLURM_CONF or /etc/slurm). */
static char *_default_state(void)
{
	const char *conf = getenv("SLURM_CONF");
	char line[4096], *res = NULL;
	FILE *f;

	f = fopen(conf ? conf : "/etc/slurm/slurm.conf", "r");
	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		char *p = line, *e;

		while (*p == ' ' || *p == '\t')
			p++;
		if (strncasecmp(p, "StateSaveLocation=", 18))
			continue;
		p += 18;
		for (e = p; *e && *e != '\n' && *e != ' ' && *e != '#'; e++)
			;
		*e = '\0';
		free(res);
		if (asprintf(&res, "%s/datalocality_state", p) < 0)
			res = NULL;
	}
	fclose(f);
	return res;
}

static void _usage(FILE *to)
{
	fprintf(to,
		"usage: sdatalocality [--json] [--state FILE] [COMMAND]\n"
		"  (none)        the last plan and every node's cache use and hit rates\n"
		"  nodes         per-node cache use and hit rates\n"
		"  files NODE    what NODE caches\n"
		"  job JOBID     why a pending job is planned where it is\n"
		"  plan          the last plan\n"
		"  stats         the scheduler's counters and the cache hit rate, as sdiag\n"
		"  rates         the copy rates plans use, configured and measured\n"
		"  report [--input FILE] [SACCT_OPTIONS]\n"
		"                what staging found for the jobs, per day, user and\n"
		"                partition, from sacct (their AdminComment)\n"
		"The state is read from StateSaveLocation/datalocality_state\n"
		"(rates: from datalocality_rates in the same directory)\n"
		"(StateSaveLocation from $SLURM_CONF or /etc/slurm/slurm.conf).\n");
}

/*
 * The command in argv (none: the summary) and its argument, if it takes
 * one.  Words after those are ignored, as they always were.
 * \return its index in cmds, or -1.
 */
static int _command(int argc, char **argv)
{
	const char *name = argc ? argv[0] : "summary";
	int nargs = argc ? argc - 1 : 0;
	size_t i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(cmds[i].name, name))
			return nargs >= cmds[i].has_arg ? (int)i : -1;
	return -1;
}

/* Read and show; \return the exit status. */
static int _run(const char *path, int cmd, const char *arg, int json)
{
	char *text = NULL, err[256] = "";
	dl_cli_state_t s = { 0 };
	int rc = dl_persist_read(path, &text, err, sizeof(err));

	if (rc) {
		fprintf(stderr, "sdatalocality: %s: %s\n", path,
			err[0] ? err : dl_strerror(rc));
		return 1;
	}
	dl_cli_state_parse(text, &s);
	rc = cmds[cmd].show(&s, arg, json);
	if (rc == DL_CLI_USAGE)
		_usage(stderr);
	dl_cli_state_free(&s);
	free(text);
	return rc;
}

/*
 * "report" takes sacct's options after it ("-S", "-u", "-j"...), which
 * getopt must not see: \return its index in argv if it is the command
 * (after options of ours only), else 0.  *json: --json before or after.
 */
static int _report_at(int argc, char **argv, int *json)
{
	int i;

	for (i = 1; i < argc && argv[i][0] == '-'; i++)
		if (strcmp(argv[i], "--json") && strcmp(argv[i], "-j"))
			return 0;
	if (i == argc || strcmp(argv[i], "report"))
		return 0;
	*json = i > 1;
	return i;
}

/* Run "report" at argv[at]: its own --json is taken out, the rest is
 * for sacct. */
static int _report(int argc, char **argv, int at, int json)
{
	char **rest = calloc((size_t)argc, sizeof(*rest));
	int n = 0, rc;

	if (!rest)
		return 1;
	for (int i = at + 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = 1;
		else
			rest[n++] = argv[i];
	}
	rc = dl_cli_report(n, rest, json);
	free(rest);
	return rc;
}

/*
 * "rates": the rates file next to the state file (path, --state's or
 * NULL for slurm.conf's).  Takes path.  \return the exit status.
 */
static int _rates(char *path, int json)
{
	char *dir, *rates = NULL, *slash;
	int rc = 1;

	if (!path)
		path = _default_state();
	if (!path) {
		fprintf(stderr, "sdatalocality: cannot find StateSaveLocation in slurm.conf; use --state FILE\n");
		return 1;
	}
	dir = path;
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	if (asprintf(&rates, "%s/datalocality_rates", slash ? dir : ".") >= 0)
		rc = dl_cli_rates(rates, json);
	free(rates);
	free(path);
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "state", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *path = NULL;
	int c, cmd, json = 0, rc, at;

	if ((at = _report_at(argc, argv, &json)))
		return _report(argc, argv, at, json);
	while ((c = getopt_long(argc, argv, "js:h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = 1;
			break;
		case 's':
			free(path);
			path = strdup(optarg);
			break;
		case 'h':
			_usage(stdout);
			return 0;
		default:
			_usage(stderr);
			return DL_CLI_USAGE;
		}
	}
	if (optind < argc && !strcmp(argv[optind], "rates"))
		return _rates(path, json);
	cmd = _command(argc - optind, argv + optind);
	if (cmd < 0) {
		_usage(stderr);
		free(path);
		return DL_CLI_USAGE;
	}
	if (!path)
		path = _default_state();
	if (!path) {
		fprintf(stderr, "sdatalocality: cannot find StateSaveLocation in slurm.conf; use --state FILE\n");
		return 1;
	}
	rc = _run(path, cmd, cmds[cmd].has_arg ? argv[optind + 1] : NULL, json);
	free(path);
	return rc;
}
