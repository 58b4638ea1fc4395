/*
 * fuzz_acct.c - libFuzzer target for the staging record of a job's
 * AdminComment (dl_acct.h), which slurmctld parses back before adding a
 * node's report and sdatalocality parses from sacct's output.
 *
 * A comment that parses must format into a record that parses to the same
 * values (to the millisecond); merging any comment with a record must
 * give a comment whose record is that one, text around it kept.
 *
 * Build: see contrib/test.sh (fuzz fuzz_acct ...).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dl_acct.h"
#include "dl_error.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), *m, rec[DL_ACCT_LEN_MAX];
	dl_acct_t a, b;
	int rc;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	rc = dl_acct_parse(s, &a);
	CHECK(rc == 0 || rc == DL_ENOENT || rc == DL_EFORMAT);
	if (!rc) {
		CHECK(!dl_acct_format(&a, rec, sizeof(rec)));
		CHECK(!dl_acct_parse(rec, &b));
		CHECK(!memcmp(&a, &b, sizeof(a)));
	} else {
		memset(&a, 0, sizeof(a));
		a.files = size;
		a.nodes = 1;
	}
	m = dl_acct_merge(s, &a);
	CHECK(m);
	/* the comment's own text before its record is kept */
	CHECK(!dl_acct_parse(m, &b) || strstr(s, DL_ACCT_TAG));
	if (!strstr(s, DL_ACCT_TAG) && !strchr(s, ';') && !strchr(s, '\n'))
		CHECK(!dl_acct_parse(m, &b) && !memcmp(&a, &b, sizeof(a)));
	free(m);
	free(s);
	return 0;
}
