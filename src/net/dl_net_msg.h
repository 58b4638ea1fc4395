/*
 * dl_net_msg.h - the bodies of the service messages (PROTOCOL.md
 * "Message bodies"), encoded and decoded through one struct.
 *
 * A body is text: a first line of "key=value" pairs separated by single
 * blanks (unknown keys ignored, known ones checked: numbers are plain
 * decimal without sign, leading zeros or overflow), then per type either
 * file lines, a "msg=<one line>" line, or free text (STAGE).  A body with
 * a NUL or other control byte (but tab and newline in STAGE's text) is
 * refused, so are paths that are not absolute or hold blanks, more than
 * DL_MSG_FILES_MAX file lines (DL_MSG_LOCATE_MAX for LOCATE) or
 * DL_MSG_PEERS_MAX peers on one.  Encoders check the same rules, so a
 * message that encodes also decodes.  Encoders flatten msg= and why=
 * texts to one line (control characters become blanks).
 *
 * Which fields a type uses:
 *   HELLO     node peer_host peer_port capacity (DL_MSG_UNLIMITED) used
 *             storage_bytes peer_bytes
 *   INV       part last files[] (path size)  -- "files=" is nfiles
 *   DELTA     storage_bytes peer_bytes used files[] (op '+' path size |
 *             op '-' path)
 *   PREFETCH  job uid gid user expires files[] (path size peers[])
 *   CANCEL    job
 *   PREFETCH_DONE job count.files count.cached count.from_peers
 *             count.failed count.user_fault text (msg=, may be NULL);
 *             optional count.storage_bytes storage_us peer_bytes peer_us
 *             (the prefetch's copies and their time, as in REPORT)
 *   LOCATE    req files[] (path)
 *   LOCATED   req files[] (path peers[])
 *   FETCH     uid gid user path size ino mtime_ns ctime_ns
 *   FETCH_OK  size sha256 verified_ns (optional: when the copy was last
 *             known to be its source's content; 0 if not sent)
 *   FETCH_REFUSED text (why=)
 *   STAGE     job uid gid user text (the annotation); optional:
 *             patterns task array jobname, the values of Slurm's filename
 *             patterns for the lines of the job's list files (dl_pattern.h;
 *             patterns=1 says they are sent, jobname is left out when not
 *             known, task and array are DL_PATTERN_NONE/UNKNOWN as there)
 *   END       job
 *   REPORT    count.* (dl_stage_report_t's fields plus storage_bytes,
 *             peer_bytes) text (msg=, may be NULL); optional: job and
 *             count.staged_ms, set when dl-cached tells the controller
 *             what a job's staging found (job=0: not for a job);
 *             count.storage_us, count.peer_us, the copies' times
 *   STAGING   job done secs (optional: with done=1, the seconds the
 *             job's staging took on the node, its wait for a prefetch
 *             included)
 */
#ifndef DL_NET_MSG_H
#define DL_NET_MSG_H

#include <stddef.h>
#include <stdint.h>

#include "dl_net.h"

#define DL_MSG_NAME_MAX 256      /* node, host and user names, with NUL */
#define DL_MSG_PATH_MAX 4096     /* with NUL */
#define DL_MSG_PEERS_MAX 16
#define DL_MSG_FILES_MAX 200000
#define DL_MSG_LOCATE_MAX 10000
#define DL_MSG_TEXT_MAX (1024 * 1024) /* msg=, why=, STAGE's annotation */
#define DL_MSG_UNLIMITED UINT64_MAX /* capacity=unlimited */

typedef struct dl_msg_peer {
	char node[DL_MSG_NAME_MAX];
	char host[DL_MSG_NAME_MAX];
	uint16_t port;
} dl_msg_peer_t;

typedef struct dl_msg_file {
	char *path;             /* malloc'd */
	uint64_t size;
	char op;                /* DELTA: '+' or '-'; else 0 */
	size_t npeers;
	dl_msg_peer_t *peers;   /* malloc'd, npeers */
} dl_msg_file_t;

/* Counters of PREFETCH_DONE and REPORT. */
typedef struct dl_msg_count {
	uint64_t files, hits, copied, waited, uncached, nospace, verified;
	uint64_t evicted, bytes_hit, bytes_copied, bytes_uncached;
	uint64_t bytes_evicted, cached, from_peers, failed;
	uint64_t storage_bytes, peer_bytes;
	uint64_t fallbacks; /* read from their sources after a node fault */
	uint64_t bypassed, user_fault; /* 0 or 1 */
	uint64_t staged_ms; /* REPORT to the controller: the staging's time */
	/* REPORT, optional: microseconds the copies of storage_bytes and of
	 * peer_bytes took (0: not known, as from an older service; micro, not
	 * milli: a 16 MiB copy into a tmpfs takes a few ms) */
	uint64_t storage_us, peer_us;
} dl_msg_count_t;

/*
 * A message.  Strings are inline arrays except path, text and files,
 * which are malloc'd: dl_msg_free() frees them.
 */
typedef struct dl_msg {
	uint32_t type;
	uint64_t job, req;
	uint64_t uid, gid;
	char user[DL_MSG_NAME_MAX];
	uint64_t expires;              /* unix seconds */
	char node[DL_MSG_NAME_MAX];
	char peer_host[DL_MSG_NAME_MAX];
	uint16_t peer_port;
	uint64_t capacity, used, storage_bytes, peer_bytes;
	uint64_t part, last;
	char *path;
	uint64_t size, ino;
	int64_t mtime_ns, ctime_ns;
	int64_t verified_ns;
	uint64_t done, secs;           /* STAGING */
	uint64_t patterns, task, array; /* STAGE: values of %a, %A */
	char jobname[DL_MSG_NAME_MAX];  /* STAGE: of %x; "" not known */
	char sha256[65];
	dl_msg_count_t count;
	char *text;
	size_t nfiles;
	dl_msg_file_t *files;
} dl_msg_t;

/* dl_msg_init - an empty message of a type (a plain zeroing). */
void dl_msg_init(dl_msg_t *m, uint32_t type);

/* dl_msg_free - free what m holds and zero it; NULL is a no-op. */
void dl_msg_free(dl_msg_t *m);

/**
 * dl_msg_add_file - append a file line (path copied).
 * \return the new line (valid until the next add), NULL on DL_ENOMEM or
 *         past DL_MSG_FILES_MAX.
 */
dl_msg_file_t *dl_msg_add_file(dl_msg_t *m, const char *path,
			       uint64_t size, char op);

/**
 * dl_msg_file_add_peer - append a peer to a file line.
 * \return 0, DL_ERANGE (too many peers, names too long), DL_ENOMEM.
 */
int dl_msg_file_add_peer(dl_msg_file_t *f, const char *node,
			 const char *host, uint16_t port);

/* dl_msg_set_text, dl_msg_set_path - copy s (NULL clears); 0, DL_ENOMEM. */
int dl_msg_set_text(dl_msg_t *m, const char *s);
int dl_msg_set_path(dl_msg_t *m, const char *s);

/**
 * dl_msg_encode - the body of m.
 * OUT body, len - malloc'd, NUL-terminated (len without the NUL); the
 *                 caller frees body
 * \return 0, DL_EINVAL (a field breaks the rules above; err says which),
 *         DL_ETOOBIG (over DL_NET_BODY_MAX), DL_ENOMEM.
 */
int dl_msg_encode(const dl_msg_t *m, char **body, size_t *len, char *err,
		  size_t errlen);

/**
 * dl_msg_decode - parse a body of a type.
 * OUT m - the message (dl_msg_free()); zeroed on error
 * \return 0, DL_EFORMAT (err says where), DL_ETOOBIG, DL_ENOMEM.
 */
int dl_msg_decode(uint32_t type, const char *body, size_t len, dl_msg_t *m,
		  char *err, size_t errlen);

/**
 * dl_msg_line_bytes - at most the bytes an INV/DELTA file line takes in
 * a body, for splitting an inventory into parts under DL_NET_BODY_MAX.
 */
size_t dl_msg_line_bytes(const dl_msg_file_t *f);

#endif /* DL_NET_MSG_H */
