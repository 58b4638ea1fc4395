/*
 * dl-submit - submit a job stream from one process at its arrival times
 * through Slurm's C API (submit.h, doc/dl-submit.1).  main only wires:
 * the options, the stream (read or generated), the run, the report.
 */
#include <stdio.h>
#include <stdlib.h>

#include "dl_error.h"
#include "submit.h"

/* The stream to submit: the file, or Poisson arrivals over the templates.
 * \return 0 or the exit status. */
static int _load(const dl_sub_opts_t *o, dl_sub_stream_t *s)
{
	char err[512];
	int rc;

	if (o->stream) {
		rc = dl_sub_stream_read(o->stream, 1, s, err, sizeof(err));
		if (rc) {
			fprintf(stderr, "dl-submit: %s: %s\n", o->stream,
				rc == DL_ENOMEM ? dl_strerror(rc) : err);
			return DL_SUB_EXIT_USAGE;
		}
		return 0;
	}
	/* A burst without a rate has no times to keep: any rate will do. */
	rc = dl_sub_poisson(o->templ.jobs, o->templ.njobs,
			    o->rate > 0 ? o->rate : 1, o->njobs, o->seed, s);
	if (rc) {
		fprintf(stderr, "dl-submit: %s\n", dl_strerror(rc));
		return DL_SUB_EXIT_USAGE;
	}
	return 0;
}

/* Submits s, writes the ids and records, prints the summary on stderr.
 * \return the exit status. */
static int _submit(const dl_sub_opts_t *o, const dl_sub_stream_t *s)
{
	dl_sub_record_t *rec = calloc(s->njobs ? s->njobs : 1, sizeof(*rec));
	size_t failed;
	int rc;

	if (!rec) {
		fprintf(stderr, "dl-submit: out of memory\n");
		return DL_SUB_EXIT_FAILED;
	}
	dl_sub_slurm_init();
	failed = dl_sub_run(s, o->burst, dl_sub_slurm_submit, NULL, rec);
	rc = dl_sub_report(stderr, rec, s->njobs, failed, o->burst,
			   o->tolerance);
	if (dl_sub_write_ids(o->ids, rec, s->njobs) ||
	    (o->record && dl_sub_write_records(o->record, rec, s->njobs)))
		rc = DL_SUB_EXIT_FAILED;
	dl_sub_slurm_fini();
	free(rec);
	return rc;
}

int main(int argc, char **argv)
{
	dl_sub_stream_t s;
	dl_sub_opts_t o;
	char err[512];
	size_t i;
	int rc;

	if (dl_sub_opts_parse(argc, argv, &o, err, sizeof(err))) {
		fprintf(stderr, "dl-submit: %s\n", err);
		dl_sub_usage(stderr);
		return DL_SUB_EXIT_USAGE;
	}
	if (o.help) {
		dl_sub_usage(stdout);
		dl_sub_opts_clear(&o);
		return 0;
	}
	if ((rc = _load(&o, &s))) {
		dl_sub_opts_clear(&o);
		return rc;
	}
	if (o.dry_run) {
		for (i = 0; i < s.njobs && !rc; i++)
			if (dl_sub_job_write(stdout, &s.jobs[i]))
				rc = DL_SUB_EXIT_FAILED;
	} else {
		rc = _submit(&o, &s);
	}
	dl_sub_stream_clear(&s);
	dl_sub_opts_clear(&o);
	return rc;
}
