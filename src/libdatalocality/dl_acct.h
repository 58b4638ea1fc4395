/*
 * dl_acct.h - what staging found for a job, as one short record kept in
 * the job's AdminComment so that slurmdbd stores it and sacct shows it.
 *
 * The record, one line without ';' or '|' (sacct -P separates fields with
 * '|'), keys in this order:
 *
 *   datalocality: files=12 cached=10/1288490188 peer=1/104857600
 *   storage=1/52428800 direct=0/0 staged_s=3.140 nodes=1
 *
 *   files     files the job named, summed over its nodes
 *   cached    files / bytes found in the node's cache
 *   peer      files / bytes copied from another node's cache
 *   storage   files / bytes copied from the shared storage
 *   direct    files / bytes not cached (too large, no room): read in place
 *   staged_s  seconds the slowest node spent staging (three decimals)
 *   nodes     nodes whose staging the record sums
 *
 * Byte counts are exact decimals, not "1.2G": the record is for programs
 * (sdatalocality report) first.  A comment may hold other text: the
 * record runs from "datalocality:" to the next ';' or the end, and
 * dl_acct_merge() keeps what is around it.
 *
 * Errors follow dl_error.h; nothing here allocates except
 * dl_acct_merge().
 */
#ifndef DL_ACCT_H
#define DL_ACCT_H

#include <stddef.h>
#include <stdint.h>

#define DL_ACCT_TAG "datalocality:"
/* A record's longest text, with its NUL. */
#define DL_ACCT_LEN_MAX 384

typedef struct dl_acct {
	uint64_t files;
	uint64_t cached, cached_bytes;
	uint64_t peer, peer_bytes;
	uint64_t storage, storage_bytes;
	uint64_t direct, direct_bytes;
	uint64_t staged_ms;     /* shown as seconds, to the millisecond */
	uint64_t nodes;
} dl_acct_t;

/**
 * dl_acct_format - the record of a.
 * OUT buf - len bytes (DL_ACCT_LEN_MAX always suffices)
 * \return 0, DL_ERANGE (buf too short: buf holds "" then).
 */
int dl_acct_format(const dl_acct_t *a, char *buf, size_t len);

/**
 * dl_acct_parse - the record within a comment (NULL or "" is none).
 * OUT a - the record; zeroed unless 0 is returned
 * \return 0, DL_ENOENT (no record), DL_EFORMAT (a record that breaks the
 *         rules above: a required key missing or a number malformed;
 *         unknown keys are skipped).
 */
int dl_acct_parse(const char *comment, dl_acct_t *a);

/*
 * dl_acct_add - add b to sum: counts and nodes add up, staged_ms is the
 * larger (nodes stage side by side; a job waits for its slowest).
 * Sums saturate at UINT64_MAX.
 */
void dl_acct_add(dl_acct_t *sum, const dl_acct_t *b);

/**
 * dl_acct_merge - comment with its record replaced by a's (or a's
 * appended after "; " when it has none).
 * \return a malloc'd string (the caller frees it), NULL on DL_ENOMEM.
 */
char *dl_acct_merge(const char *comment, const dl_acct_t *a);

#endif /* DL_ACCT_H */
