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

/* What the command line asks for. */
typedef struct {
	dl_zoo_class_t cls;
	size_t jobs;
	double load, cores, nodes, storage;
	uint64_t seed;
	const char *out;
} _args_t;

/* The command line into a.  \return -1 to go on, else the exit status
 * (usage, or an unknown class, said on stderr). */
static int _parse(int argc, char **argv, _args_t *a)
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
	int c;

	*a = (_args_t){ .cls = DL_ZOO_NCLASSES, .jobs = 2000, .load = 1.0,
			.cores = 1, .nodes = 4, .storage = 4, .seed = 1 };
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'c':
			if (dl_zoo_class_from_name(optarg, &a->cls)) {
				fprintf(stderr, "dl-zoo: unknown class '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'j':
			a->jobs = (size_t)_num("--jobs", optarg, 1, 1e7);
			break;
		case 's':
			a->seed = (uint64_t)_num("--seed", optarg, 0, 1e18);
			break;
		case 'n':
			a->nodes = _num("--nodes", optarg, 1, 65536);
			break;
		case 'C':
			a->cores = _num("--cores", optarg, 1, 4096);
			break;
		case 'S':
			a->storage = _num("--storage", optarg, 1, 65536);
			break;
		case 'l':
			a->load = _num("--load", optarg, 1e-6, 1e6);
			break;
		case 'o':
			a->out = optarg;
			break;
		case 'h':
			_usage(stdout);
			return 0;
		default:
			_usage(stderr);
			return 2;
		}
	}
	if (a->cls == DL_ZOO_NCLASSES || optind < argc) {
		_usage(stderr);
		return 2;
	}
	return -1;
}

/* The workload a asks for, or NULL (said on stderr). */
static dl_workload_t *_generate(const _args_t *a)
{
	dl_zoo_opts_t o;
	dl_wl_platform_t pf;
	dl_workload_t *wl;

	dl_zoo_opts_default(&o, a->cls);
	o.jobs = a->jobs;
	o.load = a->load;
	pf.nodes = (uint32_t)a->nodes;
	pf.slots = (uint32_t)(a->nodes * a->cores);
	dl_params_default(&pf.params);
	pf.params.nstorage = (uint32_t)a->storage;
	wl = dl_zoo_gen(&o, &pf, a->seed);
	if (!wl)
		fprintf(stderr, "dl-zoo: cannot generate class %s\n",
			dl_zoo_class_name(a->cls));
	return wl;
}

/* wl to a->out (stdout without), headed by the command that made it.
 * \return 0 or 1 (said on stderr). */
static int _write(const _args_t *a, const dl_workload_t *wl)
{
	char comment[256];
	FILE *f = stdout;
	int rc;

	if (a->out && !(f = fopen(a->out, "w"))) {
		perror(a->out);
		return 1;
	}
	snprintf(comment, sizeof(comment),
		 "dl-zoo --class %s --jobs %zu --seed %llu --nodes %g --cores %g --storage %g --load %g",
		 dl_zoo_class_name(a->cls), a->jobs,
		 (unsigned long long)a->seed, a->nodes, a->cores, a->storage,
		 a->load);
	rc = dl_workload_write(wl, f, comment);
	if (a->out && fclose(f))
		rc = 1;
	return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
	dl_workload_t *wl;
	_args_t a;
	int rc = _parse(argc, argv, &a);

	if (rc >= 0)
		return rc;
	if (!(wl = _generate(&a)))
		return 1;
	rc = _write(&a, wl);
	dl_workload_destroy(wl);
	return rc;
}
