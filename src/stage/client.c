/* client.c - dl-stage's requests to dl-cached (client.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client.h"
#include "dl_error.h"
#include "dl_net_auth.h"
#include "dl_net_msg.h"

/* Connecting and sending must be quick; staging takes what it takes. */
#define CONNECT_MS 1000
#define FRAME_MS 10000

static void _from_report(const dl_msg_t *m, dl_stage_report_t *r)
{
	memset(r, 0, sizeof(*r));
	r->files = m->count.files;
	r->hits = m->count.hits;
	r->copied = m->count.copied;
	r->waited = m->count.waited;
	r->uncached = m->count.uncached;
	r->nospace = m->count.nospace;
	r->verified = m->count.verified;
	r->evicted = m->count.evicted;
	r->bypassed = (int)m->count.bypassed;
	r->bytes_hit = m->count.bytes_hit;
	r->bytes_copied = m->count.bytes_copied;
	r->bytes_uncached = m->count.bytes_uncached;
	r->bytes_evicted = m->count.bytes_evicted;
	r->from_peers = m->count.from_peers;
	r->bytes_peer = m->count.peer_bytes;
	r->fallbacks = m->count.fallbacks;
	r->user_fault = (int)m->count.user_fault;
	if (m->text)
		snprintf(r->msg, sizeof(r->msg), "%s", m->text);
}

static int _encode(const dl_stage_job_t *job, const char *files,
		   char **body, size_t *len)
{
	dl_msg_t m;
	int rc;

	dl_msg_init(&m, files ? DL_NET_STAGE : DL_NET_END);
	m.job = job->job_id;
	m.uid = job->uid;
	m.gid = job->gid;
	snprintf(m.user, sizeof(m.user), "%s",
		 job->user && *job->user ? job->user : "-");
	if (files && job->pattern) {
		m.patterns = 1;
		m.task = job->pattern->task_id;
		m.array = job->pattern->array_job_id;
		/* a name the message cannot carry cannot fill %x either */
		if (job->pattern->name &&
		    strlen(job->pattern->name) < sizeof(m.jobname) &&
		    !strpbrk(job->pattern->name, " \t\n@"))
			snprintf(m.jobname, sizeof(m.jobname), "%s",
				 job->pattern->name);
	}
	if (files && (rc = dl_msg_set_text(&m, files))) {
		dl_msg_free(&m);
		return rc;
	}
	rc = dl_msg_encode(&m, body, len, NULL, 0);
	dl_msg_free(&m);
	return rc;
}

int dl_stage_client_request(const char *dir, const dl_stage_job_t *job,
			    const char *files, dl_stage_report_t *rep,
			    int *failed, char *why, size_t whylen)
{
	char sock[4200], err[256] = "", *body = NULL;
	dl_net_frame_t f = { 0 };
	dl_net_conn_t c;
	dl_msg_t m;
	size_t len;
	int fd, rc;

	snprintf(sock, sizeof(sock), "%s/.sock", dir);
	if (access(sock, F_OK)) {
		snprintf(why, whylen, "no service socket %s", sock);
		return DL_ENOENT;
	}
	if ((rc = _encode(job, files, &body, &len))) {
		snprintf(why, whylen, "request too large for the service");
		return DL_EIO;
	}
	rc = dl_net_connect_unix(sock, CONNECT_MS, &fd, err, sizeof(err));
	if (rc) {
		free(body);
		snprintf(why, whylen, "dl-cached does not answer: %s", err);
		return rc == DL_ETIMEDOUT ? rc : DL_ENOENT;
	}
	dl_net_conn_init(&c, fd, NULL, FRAME_MS);
	rc = dl_net_conn_send(&c, files ? DL_NET_STAGE : DL_NET_END, body,
			      len, err, sizeof(err));
	free(body);
	/* the service stages as long as it takes; its death ends the wait */
	if (!rc)
		rc = dl_net_conn_recv(&c, -1, &f, err, sizeof(err));
	close(fd);
	if (!rc && (f.type != DL_NET_REPORT ||
		    dl_msg_decode(f.type, f.body, f.body_len, &m, err,
				  sizeof(err))))
		rc = DL_EFORMAT;
	dl_net_frame_free(&f);
	if (rc) {
		snprintf(why, whylen, "dl-cached failed the request: %s",
			 err[0] ? err : dl_strerror(rc));
		return DL_EIO;
	}
	_from_report(&m, rep);
	*failed = m.text != NULL;
	dl_msg_free(&m);
	return 0;
}
