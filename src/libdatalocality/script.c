/* script.c - #DL directives in a batch script; see dl_script.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dl_error.h"
#include "dl_files.h"
#include "dl_script.h"

#define DL_TAG "#DL"
#define FILES_TAG "files:"

static int _blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* Append "sep text" to the growing annotation; RET 0 or DL_E*. */
static int _append(char **ann, size_t *alen, const char *text, size_t len)
{
	size_t need = *alen + len + 2;
	char *n;

	if (need > DL_SCRIPT_ANNOTATION_MAX)
		return DL_ETOOBIG;
	if (!(n = realloc(*ann, need)))
		return DL_ENOMEM;
	if (*alen > strlen(FILES_TAG))
		n[(*alen)++] = ',';
	memcpy(n + *alen, text, len);
	*alen += len;
	n[*alen] = '\0';
	*ann = n;
	return 0;
}

/* One "#DL ..." line, s..e without the tag: check it, add its entries. */
static int _directive(const char *s, const char *e, size_t lineno,
		      char **ann, size_t *alen, char *err, size_t errlen)
{
	dl_filelist_t *one = NULL;
	char *text, msg[384];
	int rc;

	while (s < e && _blank(*s))
		s++;
	while (e > s && _blank(e[-1]))
		e--;
	if ((size_t)(e - s) <= strlen(FILES_TAG) ||
	    memcmp(s, FILES_TAG, strlen(FILES_TAG))) {
		snprintf(err, errlen,
			 "script line %zu: a #DL directive must be \"#DL files:<paths>\"",
			 lineno);
		return DL_ESYNTAX;
	}
	if (!(text = strndup(s, e - s)))
		return DL_ENOMEM;
	msg[0] = '\0';
	rc = dl_files_parse(text, &one, msg, sizeof(msg));
	dl_filelist_free(one);
	free(text);
	if (rc) {
		snprintf(err, errlen, "script line %zu: %s", lineno, msg);
		return rc;
	}
	for (s += strlen(FILES_TAG); s < e && _blank(*s); s++)
		;
	if ((rc = _append(ann, alen, s, e - s)) == DL_ETOOBIG)
		snprintf(err, errlen,
			 "#DL directives longer than %d bytes: name the files in a list file (#DL files:@/path/to/list)",
			 DL_SCRIPT_ANNOTATION_MAX);
	return rc;
}

static int _check_joined(const char *ann, char *err, size_t errlen)
{
	dl_filelist_t *all = NULL;
	char msg[384];
	int rc;

	msg[0] = '\0';
	rc = dl_files_parse(ann, &all, msg, sizeof(msg));
	dl_filelist_free(all);
	if (rc)
		snprintf(err, errlen, "#DL directives: %s", msg);
	return rc;
}

/* The next line of the script: [*s, *e) and the start of the one after. */
static const char *_line(const char *p, const char *end, const char **e)
{
	const char *nl = memchr(p, '\n', end - p);

	*e = nl ? nl : end;
	return nl ? nl + 1 : end;
}

int dl_script_files(const char *script, size_t len, char **annotation,
		    char *err, size_t errlen)
{
	const char *p = script, *end = script + len, *s, *e;
	char *ann = NULL;
	size_t alen, lineno = 0;
	int rc = 0;

	if (err && errlen)
		err[0] = '\0';
	if (!annotation || (!script && len))
		return DL_EINVAL;
	*annotation = NULL;
	if (!(ann = strdup(FILES_TAG)))
		return DL_ENOMEM;
	alen = strlen(FILES_TAG);
	for (; p < end && !rc; p = _line(p, end, &e)) {
		_line(p, end, &e);
		lineno++;
		for (s = p; s < e && _blank(*s); s++)
			;
		if (s == e || (lineno == 1 && e - s >= 2 && !memcmp(s, "#!", 2)))
			continue;
		if (*s != '#')
			break; /* the first command: no directive after it */
		if (e - s > 3 && !memcmp(s, DL_TAG, 3) && _blank(s[3]))
			rc = _directive(s + 3, e, lineno, &ann, &alen, err,
					errlen);
	}
	if (rc || alen == strlen(FILES_TAG)) {
		free(ann);
		return rc;
	}
	/* Across lines: a path given twice with two sizes. */
	if ((rc = _check_joined(ann, err, errlen))) {
		free(ann);
		return rc;
	}
	*annotation = ann;
	return 0;
}

/* Append line [s, e) to the spec, after a newline unless cont. */
static int _bb_append(char **spec, size_t *slen, const char *s,
		      const char *e, int cont)
{
	size_t need = *slen + (size_t)(e - s) + 2;
	char *n;

	if (need > DL_SCRIPT_ANNOTATION_MAX)
		return DL_ETOOBIG;
	if (!(n = realloc(*spec, need)))
		return DL_ENOMEM;
	if (*slen && !cont)
		n[(*slen)++] = '\n';
	memcpy(n + *slen, s, e - s);
	*slen += e - s;
	n[*slen] = '\0';
	*spec = n;
	return 0;
}

int dl_script_bb(const char *script, size_t len, char **spec)
{
	const char *p = script, *end = script + len, *s, *e;
	size_t slen = 0;
	int rc = 0, cont = 0;

	if (!spec || (!script && len))
		return DL_EINVAL;
	*spec = NULL;
	for (; p < end && !rc; p = _line(p, end, &e)) {
		_line(p, end, &e);
		for (s = p; s < e && _blank(*s); s++)
			;
		if (s == e)
			continue;
		if (*s != '#')
			break; /* the first command: no directive after it */
		while (e > s && (e[-1] == '\r'))
			e--;
		if (e - s < 3 || (memcmp(s, "#BB", 3) && memcmp(s, "#DW", 3))) {
			cont = 0;
			continue;
		}
		if (cont) /* a continuation: without its own tag */
			for (s += 3; s < e && _blank(*s); s++)
				;
		rc = _bb_append(spec, &slen, s,
				e - (e > s && e[-1] == '\\'), cont);
		cont = e > s && e[-1] == '\\';
	}
	if (rc) {
		free(*spec);
		*spec = NULL;
	}
	return rc;
}
