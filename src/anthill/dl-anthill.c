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

int main(int argc, char **argv)
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
	const char *path = NULL, *params = NULL;
	dl_anthill_profile_t *prof = NULL;
	dl_anthill_opts_t o;
	uint32_t *copies = NULL, n, j;
	double *bytes = NULL, *secs = NULL, wall = 0;
	unsigned errline = 0;
	int opt, rc, parallel = 0, verbose = 0, have_procs = 0;
	char *end;

	dl_anthill_opts_default(&o);
	while ((opt = getopt_long(argc, argv, "f:p:a:t:m:vh", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'f':
			path = optarg;
			break;
		case 'p':
			if (_uint(optarg, &o.procs)) {
				fprintf(stderr,
					"dl-anthill: bad --procs '%s'\n",
					optarg);
				return 2;
			}
			have_procs = 1;
			break;
		case 'a':
			params = optarg;
			break;
		case 't':
			errno = 0;
			o.threshold = strtod(optarg, &end);
			if (end == optarg || *end || errno ||
			    !(o.threshold >= 0) || !isfinite(o.threshold)) {
				fprintf(stderr,
					"dl-anthill: bad --threshold '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'm':
			if (_uint(optarg, &o.iterations)) {
				fprintf(stderr,
					"dl-anthill: bad --iterations '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'v':
			verbose = 1;
			break;
		case 'h':
			_usage(stdout);
			return 0;
		default:
			_usage(stderr);
			return 2;
		}
	}
	if (optind < argc || !path || !have_procs) {
		_usage(stderr);
		return 2;
	}
	rc = dl_anthill_profile_load(path, &prof, &errline);
	if (rc == DL_EFORMAT && errline) {
		fprintf(stderr, "dl-anthill: %s:%u: malformed profile line\n",
			path, errline);
		return 1;
	}
	if (rc) {
		fprintf(stderr, "dl-anthill: %s: cannot use the profile: %s\n",
			path, dl_strerror(rc));
		return 1;
	}
	n = dl_anthill_filter_count(prof);
	copies = malloc(n * sizeof(*copies));
	bytes = malloc(n * sizeof(*bytes));
	secs = malloc(n * sizeof(*secs));
	if (!copies || !bytes || !secs) {
		rc = DL_ENOMEM;
		goto out;
	}
	if ((rc = dl_anthill_estimate(prof, params, bytes, secs, &wall)) ||
	    (rc = dl_anthill_schedule(prof, params, &o, copies, &parallel)))
		goto out;
	if (verbose) {
		printf("# procs %u, controlled execution %g s, threshold %g s: %s\n",
		       o.procs, wall, o.threshold,
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
	if (rc == DL_EINVAL)
		fprintf(stderr,
			"dl-anthill: --params must give every parameter of the profile once, as numbers\n");
	else if (rc)
		fprintf(stderr, "dl-anthill: %s\n", dl_strerror(rc));
	free(copies);
	free(bytes);
	free(secs);
	dl_anthill_profile_free(prof);
	if (fflush(stdout) && !rc) {
		fprintf(stderr, "dl-anthill: write error\n");
		return 1;
	}
	return rc ? 1 : 0;
}
