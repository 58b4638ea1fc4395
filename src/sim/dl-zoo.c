/*
 * dl-zoo.c - write one workload of the zoo (zoo.h) in dl-sim's own format,
 * for dl-sim --workload-file.  Only wiring: options -> dl_zoo_gen() ->
 * dl_workload_write().
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dl_state.h"
#include "workload.h"
#include "zoo.h"

static void _usage(FILE *f)
{
	fprintf(f,
		"Usage: dl-zoo --class heavy|zipf|shift|bursty|mixed [--jobs N]\n"
		"              [--seed N] [--nodes P] [--cores C] [--storage S]\n"
		"              [--load X] [--out FILE]\n"
		"Write one workload of the zoo (doc/workloads.md) for\n"
		"dl-sim --workload-file; arrivals follow the load for P nodes\n"
		"of C cores, as dl-sim's biomed workload does.\n");
}

static double _num(const char *opt, const char *s, double lo, double hi)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || !(v >= lo && v <= hi)) {
		fprintf(stderr, "dl-zoo: %s: expected a number in [%g, %g]\n",
			opt, lo, hi);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "class", required_argument, NULL, 'c' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "seed", required_argument, NULL, 's' },
		{ "nodes", required_argument, NULL, 'n' },
		{ "cores", required_argument, NULL, 'C' },
		{ "storage", required_argument, NULL, 'S' },
		{ "load", required_argument, NULL, 'l' },
		{ "out", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	dl_zoo_opts_t o;
	dl_zoo_class_t cls = DL_ZOO_NCLASSES;
	dl_wl_platform_t pf;
	dl_workload_t *wl;
	size_t jobs = 2000;
	double load = 1.0, cores = 1, nodes = 4, storage = 4;
	uint64_t seed = 1;
	const char *out = NULL;
	char comment[256];
	FILE *f = stdout;
	int c, rc;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'c':
			if (dl_zoo_class_from_name(optarg, &cls)) {
				fprintf(stderr, "dl-zoo: unknown class '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'j':
			jobs = (size_t)_num("--jobs", optarg, 1, 1e7);
			break;
		case 's':
			seed = (uint64_t)_num("--seed", optarg, 0, 1e18);
			break;
		case 'n':
			nodes = _num("--nodes", optarg, 1, 65536);
			break;
		case 'C':
			cores = _num("--cores", optarg, 1, 4096);
			break;
		case 'S':
			storage = _num("--storage", optarg, 1, 65536);
			break;
		case 'l':
			load = _num("--load", optarg, 1e-6, 1e6);
			break;
		case 'o':
			out = optarg;
			break;
		case 'h':
			_usage(stdout);
			return 0;
		default:
			_usage(stderr);
			return 2;
		}
	}
	if (cls == DL_ZOO_NCLASSES || optind < argc) {
		_usage(stderr);
		return 2;
	}
	dl_zoo_opts_default(&o, cls);
	o.jobs = jobs;
	o.load = load;
	pf.nodes = (uint32_t)nodes;
	pf.slots = (uint32_t)(nodes * cores);
	dl_params_default(&pf.params);
	pf.params.nstorage = (uint32_t)storage;
	wl = dl_zoo_gen(&o, &pf, seed);
	if (!wl) {
		fprintf(stderr, "dl-zoo: cannot generate class %s\n",
			dl_zoo_class_name(cls));
		return 1;
	}
	if (out && !(f = fopen(out, "w"))) {
		perror(out);
		dl_workload_destroy(wl);
		return 1;
	}
	snprintf(comment, sizeof(comment),
		 "dl-zoo --class %s --jobs %zu --seed %llu --nodes %g --cores %g --storage %g --load %g",
		 dl_zoo_class_name(cls), jobs, (unsigned long long)seed, nodes,
		 cores, storage, load);
	rc = dl_workload_write(wl, f, comment);
	if (out && fclose(f))
		rc = 1;
	dl_workload_destroy(wl);
	return rc ? 1 : 0;
}
