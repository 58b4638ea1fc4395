/*
 * work.c - what dl-cached's children do for dl-stage (STAGE, END) and
 * for the controller (PREFETCH): the stage library's calls, with peers
 * as a source before the storage.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cached.h"
#include "dl_error.h"
#include "dl_files.h"

/* Open the cache with the peers of src as the fetch source. */
static int _open(const cached_conf_t *c, cached_source_t *src,
		 dl_stage_t **st, char *err, size_t errlen)
{
	dl_stage_opts_t o = c->opts;

	o.fetch = cached_peer_fetch;
	o.fetch_arg = src;
	return dl_stage_open(c->cache_dir, &o, 1, st, err, errlen);
}

/*
 * The copies' bytes and time, by source, for REPORT and PREFETCH_DONE
 * alike: the controller learns its copy rates from them (agent_rates.h).
 */
static void _copies(dl_msg_count_t *c, const dl_stage_report_t *r)
{
	c->storage_bytes = r->bytes_copied - r->bytes_peer;
	c->storage_us = r->us_storage;
	c->peer_bytes = r->bytes_peer;
	c->peer_us = r->us_peer;
}

/*
 * Send r as a REPORT on conn.  job and staged_ms are 0 for dl-stage; set
 * for the controller, which keeps them in the job's AdminComment.
 */
static void _report(dl_net_conn_t *conn, const dl_stage_report_t *r,
		    const char *msg, uint64_t job, uint64_t staged_ms)
{
	dl_msg_t m;
	char *body;
	size_t n;

	dl_msg_init(&m, DL_NET_REPORT);
	m.job = job;
	m.count.staged_ms = staged_ms;
	m.count.files = r->files;
	m.count.hits = r->hits;
	m.count.copied = r->copied;
	m.count.waited = r->waited;
	m.count.uncached = r->uncached;
	m.count.nospace = r->nospace;
	m.count.verified = r->verified;
	m.count.evicted = r->evicted;
	m.count.bypassed = r->bypassed ? 1 : 0;
	m.count.bytes_hit = r->bytes_hit;
	m.count.bytes_copied = r->bytes_copied;
	m.count.bytes_uncached = r->bytes_uncached;
	m.count.bytes_evicted = r->bytes_evicted;
	m.count.from_peers = r->from_peers;
	_copies(&m.count, r);
	m.count.fallbacks = r->fallbacks;
	m.count.user_fault = r->user_fault ? 1 : 0;
	if (msg && *msg)
		dl_msg_set_text(&m, msg);
	if (!dl_msg_encode(&m, &body, &n, NULL, 0)) {
		dl_net_conn_send(conn, DL_NET_REPORT, body, n, NULL, 0);
		free(body);
	}
	dl_msg_free(&m);
}

/* STAGE: as dl-stage's Prolog would, with peers. \return 0 staged. */
static int _stage(const cached_conf_t *c, dl_stage_t *st, const dl_msg_t *req,
		  dl_stage_report_t *rep)
{
	dl_stage_job_t job = { .job_id = (uint32_t)req->job,
			       .uid = (uid_t)req->uid,
			       .gid = (gid_t)req->gid,
			       .user = strcmp(req->user, "-") ? req->user :
							       NULL };
	dl_filelist_t *files = NULL;
	dl_pattern_ctx_t pattern;
	char err[1024] = "", more[64];
	int rc;

	(void)c;
	/* The values dl-stage sent for the lines of the job's list files. */
	if (req->patterns) {
		dl_pattern_ctx_init(&pattern);
		pattern.job_id = (uint32_t)req->job;
		pattern.task_id = (uint32_t)req->task;
		pattern.array_job_id = (uint32_t)req->array;
		pattern.user = job.user;
		pattern.name = req->jobname[0] ? req->jobname : NULL;
		job.pattern = &pattern;
	}
	/* What an earlier job with this id left must not touch this one. */
	dl_stage_job_end(st, job.job_id, NULL);
	rc = dl_files_parse(req->text ? req->text : "", &files, err,
			    sizeof(err));
	if (rc) {
		memset(rep, 0, sizeof(*rep));
		snprintf(rep->msg, sizeof(rep->msg), "%s", err);
		rep->user_fault = 1;
		dl_stage_job_fail(st, &job, rep->msg);
	} else {
		rc = dl_stage_job(st, &job, files, rep);
	}
	dl_filelist_free(files);
	snprintf(more, sizeof(more), " (%zu after a fault of this node)",
		 rep->fallbacks);
	cached_log(rc || rep->fallbacks ? 4 : 6, "job %" PRIu64 ": %zu files, "
		   "%zu cached, %zu copied (%zu from peers, %" PRIu64 " bytes), "
		   "%zu from source; copies: storage %" PRIu64 " bytes in %"
		   PRIu64 " us, peers %" PRIu64 " bytes in %" PRIu64 " us%s%s%s",
		   req->job, rep->files, rep->hits,
		   rep->copied, rep->from_peers, rep->bytes_peer,
		   rep->uncached, rep->bytes_copied - rep->bytes_peer,
		   rep->us_storage, rep->bytes_peer, rep->us_peer,
		   rep->fallbacks ? more : "", rc ? ": " : "",
		   rc ? rep->msg : "");
	return rc;
}

/* Milliseconds of CLOCK_MONOTONIC since t0. */
static uint64_t _ms_since(const struct timespec *t0)
{
	struct timespec t;
	int64_t ms;

	clock_gettime(CLOCK_MONOTONIC, &t);
	ms = (int64_t)(t.tv_sec - t0->tv_sec) * 1000 +
	     (t.tv_nsec - t0->tv_nsec) / 1000000;
	return ms > 0 ? (uint64_t)ms : 0;
}

int cached_work_local(const cached_conf_t *c, int fd, const dl_msg_t *req,
		      int relay)
{
	cached_source_t src = { .relay = relay, .conf = c };
	dl_stage_report_t rep;
	dl_net_conn_t conn;
	struct timespec t0;
	dl_stage_t *st = NULL;
	char err[512] = "";
	int rc;

	memset(&rep, 0, sizeof(rep));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	dl_net_conn_init(&conn, fd, NULL, CACHED_NET_TIMEOUT);
	rc = _open(c, &src, &st, err, sizeof(err));
	if (rc) {
		snprintf(rep.msg, sizeof(rep.msg), "cache directory "
			 "refused: %s", err);
		cached_log(3, "%s", rep.msg);
	} else if (req->type == DL_NET_STAGE) {
		rc = _stage(c, st, req, &rep);
	} else {
		rc = dl_stage_job_end(st, (uint32_t)req->job, &rep);
	}
	_report(&conn, &rep, rc ? (rep.msg[0] ? rep.msg : dl_strerror(rc)) :
				  NULL, 0, 0);
	/* After dl-stage has its answer: the job does not wait for this. */
	if (!rc && req->type == DL_NET_STAGE && relay >= 0) {
		dl_net_conn_init(&conn, relay, NULL, CACHED_NET_TIMEOUT);
		_report(&conn, &rep, NULL, req->job, _ms_since(&t0));
	}
	dl_stage_close(st);
	dl_msg_free(&src.cache);
	return rc ? 1 : 0;
}

/*
 * The files of a PREFETCH within PrefetchMaxBytes, as a file list.  A file
 * already complete in this cache is listed (the prefetch pins it for the
 * job) but costs nothing: the budget bounds the bytes a prefetch copies,
 * as the controller counts them.  Counting it made a job's large cached
 * input use up the budget and its small missing ones be skipped every time
 * (bench_cluster.sh STREAM=genomics: a 24 MiB reference against a 24 MiB
 * budget left every private input to the job's Prolog).
 */
int cached_prefetch_list(const cached_conf_t *c, dl_stage_t *st,
			 const dl_msg_t *req, dl_filelist_t **files)
{
	char *spec, *p;
	size_t len = 16;
	uint64_t total = 0;
	char err[256];
	int rc;

	for (size_t i = 0; i < req->nfiles; i++)
		len += strlen(req->files[i].path) + 1;
	if (!(spec = malloc(len)))
		return DL_ENOMEM;
	p = spec + sprintf(spec, "files:");
	for (size_t i = 0; i < req->nfiles; i++) {
		dl_stage_entry_t e;
		int fd;

		if (st && dl_stage_lookup(st, req->files[i].path, &e, &fd) == 0) {
			close(fd); /* cached here: no copy, no budget */
			dl_stage_entry_clear(&e);
		} else if (total + req->files[i].size > c->prefetch_max) {
			continue; /* over the node's prefetch budget */
		} else {
			total += req->files[i].size;
		}
		p += sprintf(p, "%s%s", p[-1] == ':' ? "" : ",",
			     req->files[i].path);
	}
	rc = p[-1] == ':' ? DL_ENOENT : dl_files_parse(spec, files, err,
							sizeof(err));
	free(spec);
	return rc;
}

int cached_work_prefetch(const cached_conf_t *c, const dl_msg_t *req,
			 int relay)
{
	cached_source_t src = { .located = req, .relay = -1, .conf = c };
	dl_stage_job_t job = { .job_id = (uint32_t)req->job,
			       .uid = (uid_t)req->uid,
			       .gid = (gid_t)req->gid,
			       .user = strcmp(req->user, "-") ? req->user :
							       NULL };
	dl_filelist_t *files = NULL;
	dl_stage_report_t rep;
	dl_stage_t *st = NULL;
	dl_net_conn_t conn;
	dl_msg_t done;
	char err[512] = "", more[64], *body;
	size_t n;
	int rc;

	memset(&rep, 0, sizeof(rep));
	rc = _open(c, &src, &st, err, sizeof(err));
	if (!rc)
		rc = cached_prefetch_list(c, st, req, &files);
	if (!rc)
		rc = dl_stage_prefetch(st, &job, files,
				       (int64_t)req->expires, &rep);
	snprintf(more, sizeof(more), ", %zu skipped after a fault of this "
		 "node", rep.fallbacks);
	cached_log(rc || rep.fallbacks ? 4 : 6, "prefetch for job %" PRIu64
		   ": %zu files, %zu copied (%zu from peers); copies: storage %"
		   PRIu64 " bytes in %" PRIu64 " us, peers %" PRIu64
		   " bytes in %" PRIu64 " us%s%s%s", req->job,
		   rep.files, rep.copied, rep.from_peers,
		   rep.bytes_copied - rep.bytes_peer, rep.us_storage,
		   rep.bytes_peer, rep.us_peer,
		   rep.fallbacks ? more : "", rc ? ": " : "",
		   rc ? (rep.msg[0] ? rep.msg : dl_strerror(rc)) : "");
	dl_msg_init(&done, DL_NET_PREFETCH_DONE);
	done.job = req->job;
	done.count.files = req->nfiles;
	done.count.cached = rc ? 0 : rep.hits + rep.copied;
	done.count.from_peers = rep.from_peers;
	done.count.failed = rc ? req->nfiles : rep.uncached;
	done.count.user_fault = rep.user_fault ? 1 : 0;
	_copies(&done.count, &rep);
	if (rc)
		dl_msg_set_text(&done, rep.msg[0] ? rep.msg : dl_strerror(rc));
	dl_net_conn_init(&conn, relay, NULL, CACHED_NET_TIMEOUT);
	if (!dl_msg_encode(&done, &body, &n, NULL, 0)) {
		dl_net_conn_send(&conn, DL_NET_PREFETCH_DONE, body, n, NULL,
				 0);
		free(body);
	}
	dl_msg_free(&done);
	dl_filelist_free(files);
	dl_stage_close(st);
	dl_msg_free(&src.cache);
	return rc ? 1 : 0;
}
