/*
 * dl-anthill - how many copies of each filter of a filter-stream job to
 * run on P processors, by Optimized AnthillSched (anthillsched-goes §4;
 * the work is done by dl_anthill.h, this is its command line).
 *
 * Prints one line per filter, in pipeline order: its name and its number
 * of copies.  See dl-anthill(1).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dl_anthill.h"
#include "dl_error.h"

static void _usage(FILE *f)
{
	fprintf(f,
		"Usage: dl-anthill --profile FILE --procs P [--params k=v,...]\n"
		"                  [--threshold SECONDS] [--iterations M] [--verbose]\n"
		"Print the copies of each filter (AnthillSched, OAS rule).\n"
		"  -f, --profile FILE      controlled executions (see dl-anthill(1))\n"
		"  -p, --procs P           available processors (>= 1)\n"
		"  -a, --params k=v,...    the job's input parameters\n"
		"  -t, --threshold S       sequential below S seconds (%g; 0: never)\n"
		"  -m, --iterations M      iterations of the algorithm (%d)\n"
		"  -v, --verbose           also print the estimated measurements\n"
		"  -h, --help              this help\n",
		DL_ANTHILL_THRESHOLD, DL_ANTHILL_ITERATIONS);
}

/* A whole decimal number in [1, UINT32_MAX]. */
static int _uint(const char *s, uint32_t *out)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (end == s || *end || errno || !v || v > UINT32_MAX || *s == '-')
		return -1;
	*out = (uint32_t) v;
	return 0;
}

/* What the command line asks for. */
typedef struct {
	const char *path, *params;
	dl_anthill_opts_t o;
	int verbose;
} _args_t;

/* One option into a; \return 0, or an exit status (usage or a bad
 * value said on stderr; 0 after --help is -1). */
static int _option(_args_t *a, int opt, int *have_procs)
{
	char *end;

	switch (opt) {
	case 'f':
		a->path = optarg;
		return 0;
	case 'p':
		if (_uint(optarg, &a->o.procs))
			break;
		*have_procs = 1;
		return 0;
	case 'a':
		a->params = optarg;
		return 0;
	case 't':
		errno = 0;
		a->o.threshold = strtod(optarg, &end);
		if (end == optarg || *end || errno || !(a->o.threshold >= 0) ||
		    !isfinite(a->o.threshold))
			break;
		return 0;
	case 'm':
		if (_uint(optarg, &a->o.iterations))
			break;
		return 0;
	case 'v':
		a->verbose = 1;
		return 0;
	case 'h':
		_usage(stdout);
		return -1;
	default:
		_usage(stderr);
		return 2;
	}
	fprintf(stderr, "dl-anthill: bad --%s '%s'\n",
		opt == 'p' ? "procs" : opt == 't' ? "threshold" : "iterations",
		optarg);
	return 2;
}

/* The command line into a.  \return -2 to go on, else the exit status. */
static int _parse(int argc, char **argv, _args_t *a)
{
	static const struct option longopts[] = {
		{ "profile", required_argument, NULL, 'f' },
		{ "procs", required_argument, NULL, 'p' },
		{ "params", required_argument, NULL, 'a' },
		{ "threshold", required_argument, NULL, 't' },
		{ "iterations", required_argument, NULL, 'm' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt, rc, have_procs = 0;

	memset(a, 0, sizeof(*a));
	dl_anthill_opts_default(&a->o);
	while ((opt = getopt_long(argc, argv, "f:p:a:t:m:vh", longopts,
				  NULL)) != -1)
		if ((rc = _option(a, opt, &have_procs)))
			return rc < 0 ? 0 : rc;
	if (optind < argc || !a->path || !have_procs) {
		_usage(stderr);
		return 2;
	}
	return -2;
}

/* The profile at path, or NULL (said on stderr). */
static dl_anthill_profile_t *_load(const char *path)
{
	dl_anthill_profile_t *prof = NULL;
	unsigned errline = 0;
	int rc = dl_anthill_profile_load(path, &prof, &errline);

	if (rc == DL_EFORMAT && errline)
		fprintf(stderr, "dl-anthill: %s:%u: malformed profile line\n",
			path, errline);
	else if (rc)
		fprintf(stderr, "dl-anthill: %s: cannot use the profile: %s\n",
			path, dl_strerror(rc));
	return rc ? NULL : prof;
}

/* Each filter's copies (and with --verbose the estimates behind them). */
static int _run(const _args_t *a, const dl_anthill_profile_t *prof)
{
	uint32_t n = dl_anthill_filter_count(prof), j;
	uint32_t *copies = malloc((n ? n : 1) * sizeof(*copies));
	double *bytes = malloc((n ? n : 1) * sizeof(*bytes));
	double *secs = malloc((n ? n : 1) * sizeof(*secs)), wall = 0;
	int rc = DL_ENOMEM, parallel = 0;

	if (!copies || !bytes || !secs ||
	    (rc = dl_anthill_estimate(prof, a->params, bytes, secs, &wall)) ||
	    (rc = dl_anthill_schedule(prof, a->params, &a->o, copies,
				      &parallel)))
		goto out;
	if (a->verbose) {
		printf("# procs %u, controlled execution %g s, threshold %g s: %s\n",
		       a->o.procs, wall, a->o.threshold,
		       parallel ? "parallel" : "sequential");
		printf("# filter bytes seconds copies\n");
		for (j = 0; j < n; j++)
			printf("# %s %g %g %u\n",
			       dl_anthill_filter_name(prof, j), bytes[j],
			       secs[j], copies[j]);
	}
	for (j = 0; j < n; j++)
		printf("%s %u\n", dl_anthill_filter_name(prof, j), copies[j]);
out:
	free(copies);
	free(bytes);
	free(secs);
	return rc;
}

int main(int argc, char **argv)
{
	dl_anthill_profile_t *prof;
	_args_t a;
	int rc = _parse(argc, argv, &a);

	if (rc != -2)
		return rc;
	if (!(prof = _load(a.path)))
		return 1;
	rc = _run(&a, prof);
	if (rc == DL_EINVAL)
		fprintf(stderr,
			"dl-anthill: --params must give every parameter of the profile once, as numbers\n");
	else if (rc)
		fprintf(stderr, "dl-anthill: %s\n", dl_strerror(rc));
	dl_anthill_profile_free(prof);
	if (fflush(stdout) && !rc) {
		fprintf(stderr, "dl-anthill: write error\n");
		return 1;
	}
	return rc ? 1 : 0;
}
