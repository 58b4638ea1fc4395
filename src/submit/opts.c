/*
 * opts.c - dl-submit's command line (submit.h, doc/dl-submit.1).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dl_error.h"
#include "grow.h"
#include "submit.h"

static const struct option longopts[] = {
	{ "rate", required_argument, NULL, 'r' },
	{ "jobs", required_argument, NULL, 'n' },
	{ "seed", required_argument, NULL, 's' },
	{ "template", required_argument, NULL, 't' },
	{ "template-file", required_argument, NULL, 'T' },
	{ "burst", no_argument, NULL, 'b' },
	{ "dry-run", no_argument, NULL, 'd' },
	{ "ids", required_argument, NULL, 'i' },
	{ "record", required_argument, NULL, 'R' },
	{ "tolerance", required_argument, NULL, 'l' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

void dl_sub_usage(FILE *f)
{
	fputs("usage: dl-submit [options] STREAM     (a stream file, - stdin)\n"
	      "       dl-submit [options] --rate R --jobs N [--seed S]\n"
	      "                 (--template LINE | --template-file FILE)...\n"
	      "  -r, --rate R           Poisson arrivals, R jobs/s\n"
	      "  -n, --jobs N           N jobs (job i: template i mod T, %i = i)\n"
	      "  -s, --seed S           seed of the arrivals (1)\n"
	      "  -t, --template LINE    a job's fields, without arrival\n"
	      "  -T, --template-file F  one template a line\n"
	      "  -b, --burst            submit as fast as possible; report jobs/s\n"
	      "  -d, --dry-run          print the stream; submit nothing\n"
	      "  -i, --ids FILE         job ids there, one a line (stdout)\n"
	      "  -R, --record FILE      per job: index, id, intended, actual, call\n"
	      "  -l, --tolerance PCT    span lag still VALID (10)\n"
	      "exit: 0 done and valid, 1 a submission failed, 2 usage,\n"
	      "      3 NOT VALID (arrivals lagged beyond the tolerance)\n",
	      f);
}

static int _bad(char *err, size_t errlen, const char *what, const char *v)
{
	snprintf(err, errlen, "bad %s '%s'", what, v);
	return DL_EINVAL;
}

/* Appends the templates of one LINE or of the file at path. */
static int _templates(dl_sub_opts_t *o, int c, const char *arg, char *err,
		      size_t errlen)
{
	dl_sub_stream_t more;
	char msg[256];
	size_t i;
	int rc;

	if (c == 't')
		rc = dl_sub_stream_parse(arg, strlen(arg), 0, &more, msg,
					 sizeof(msg));
	else
		rc = dl_sub_stream_read(arg, 0, &more, msg, sizeof(msg));
	if (!rc && !more.njobs)
		snprintf(msg, sizeof(msg), "no job in it");
	if (rc || !more.njobs) {
		snprintf(err, errlen, "template %s: %s", arg, msg);
		dl_sub_stream_clear(&more);
		return DL_EINVAL;
	}
	if (dl__grow((void **)&o->templ.jobs, o->templ.njobs, more.njobs,
		     &o->templ.cap, sizeof(*more.jobs), 8)) {
		dl_sub_stream_clear(&more);
		return DL_ENOMEM;
	}
	for (i = 0; i < more.njobs; i++)
		o->templ.jobs[o->templ.njobs++] = more.jobs[i];
	free(more.jobs); /* the jobs' strings moved to o->templ */
	return 0;
}

/* One option c with its argument. */
static int _option(dl_sub_opts_t *o, int c, const char *arg, char *err,
		   size_t errlen)
{
	char *end = NULL;

	errno = 0;
	switch (c) {
	case 'r':
		o->rate = strtod(arg, &end);
		return (*end || errno || !(o->rate > 0) || !isfinite(o->rate))
			       ? _bad(err, errlen, "--rate", arg) : 0;
	case 'n':
		o->njobs = strtoul(arg, &end, 10);
		return (*end || errno || !o->njobs || *arg == '-' ||
			o->njobs > 10000000)
			       ? _bad(err, errlen, "--jobs", arg) : 0;
	case 's':
		o->seed = strtoull(arg, &end, 0);
		return (*end || errno || *arg == '-')
			       ? _bad(err, errlen, "--seed", arg) : 0;
	case 'l':
		o->tolerance = strtod(arg, &end);
		return (*end || errno || !(o->tolerance >= 0))
			       ? _bad(err, errlen, "--tolerance", arg) : 0;
	case 't':
	case 'T':
		return _templates(o, c, arg, err, errlen);
	case 'b': o->burst = 1; return 0;
	case 'd': o->dry_run = 1; return 0;
	case 'i': o->ids = arg; return 0;
	case 'R': o->record = arg; return 0;
	case 'h': o->help = 1; return 0;
	default:
		snprintf(err, errlen, "unknown option (see --help)");
		return DL_EINVAL;
	}
}

/* The options together make sense. */
static int _check(dl_sub_opts_t *o, char *err, size_t errlen)
{
	int gen = o->rate > 0 || o->njobs || o->templ.njobs;

	if (o->help)
		return 0;
	if (o->stream && gen) {
		snprintf(err, errlen,
			 "a stream file or --rate/--jobs/--template, not both");
		return DL_EINVAL;
	}
	if (!o->stream && !(o->njobs && o->templ.njobs &&
			    (o->rate > 0 || o->burst))) {
		snprintf(err, errlen, "give a STREAM file, or --jobs and a "
				      "--template with --rate or --burst");
		return DL_EINVAL;
	}
	return 0;
}

int dl_sub_opts_parse(int argc, char **argv, dl_sub_opts_t *o, char *err,
		      size_t errlen)
{
	int c, rc;

	memset(o, 0, sizeof(*o));
	o->seed = 1;
	o->tolerance = 10;
	optind = 0; /* glibc: start afresh, also for a second parse */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "r:n:s:t:T:bdi:R:l:h", longopts,
				NULL)) != -1) {
		if ((rc = _option(o, c, optarg, err, errlen))) {
			dl_sub_opts_clear(o);
			return rc == DL_ENOMEM ? rc : DL_EINVAL;
		}
	}
	if (optind < argc)
		o->stream = argv[optind++];
	if (optind < argc) {
		snprintf(err, errlen, "more than one stream file");
		rc = DL_EINVAL;
	} else {
		rc = _check(o, err, errlen);
	}
	if (rc)
		dl_sub_opts_clear(o);
	return rc;
}

void dl_sub_opts_clear(dl_sub_opts_t *o)
{
	dl_sub_stream_clear(&o->templ);
}
