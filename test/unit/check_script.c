/* check_script.c - #DL directives in batch scripts (dl_script.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_suites.h"
#include "dl_error.h"
#include "dl_files.h"
#include "dl_script.h"

static int _files(const char *script, char **ann, char *err, size_t len)
{
	return dl_script_files(script, strlen(script), ann, err, len);
}

START_TEST(test_directives_joined)
{
	const char *s = "#!/bin/bash\n"
			"#SBATCH -t 10\n"
			"\n"
			"#DL files:/data/a,/data/b=4M\n"
			"#DL\tfiles: /data/c , @/home/u/more.list \n"
			"# a comment\n"
			"#DL files:/data/a\n"
			"srun ./analyse\n"
			"#DL files:/after/the/first/command\n";
	char err[256], *ann = NULL;

	ck_assert_int_eq(_files(s, &ann, err, sizeof(err)), 0);
	ck_assert_str_eq(ann, "files:/data/a,/data/b=4M,/data/c , @/home/u/more.list,/data/a");
	free(ann);
}
END_TEST

START_TEST(test_no_directive)
{
	char err[256], *ann = (char *)1;

	ck_assert_int_eq(_files("#!/bin/sh\n#SBATCH -N1\nhostname\n", &ann,
				err, sizeof(err)), 0);
	ck_assert_ptr_null(ann);
	/* "#DLX" is no directive; nor is one after the first command. */
	ck_assert_int_eq(_files("#DLX files:/a\ntrue\n#DL files:/b\n", &ann,
				err, sizeof(err)), 0);
	ck_assert_ptr_null(ann);
	ck_assert_int_eq(dl_script_files(NULL, 0, &ann, err, sizeof(err)), 0);
	ck_assert_ptr_null(ann);
}
END_TEST

START_TEST(test_errors_name_the_line)
{
	char err[256], *ann = NULL;

	ck_assert_int_eq(_files("#!/bin/sh\n#SBATCH -N1\n#DL files:data/x\n",
				&ann, err, sizeof(err)), DL_ESYNTAX);
	ck_assert_ptr_null(ann);
	ck_assert_ptr_nonnull(strstr(err, "script line 3: "));
	ck_assert_ptr_nonnull(strstr(err, "absolute"));
	ck_assert_int_eq(_files("#DL stage /a\n", &ann, err, sizeof(err)),
			 DL_ESYNTAX);
	ck_assert_ptr_nonnull(strstr(err, "script line 1: a #DL directive"));
	ck_assert_int_eq(_files("#DL files:\n", &ann, err, sizeof(err)),
			 DL_ESYNTAX);
	/* Two lines giving one path two sizes. */
	ck_assert_int_eq(_files("#DL files:/a=1K\n#DL files:/a=2K\n", &ann,
				err, sizeof(err)), DL_ESYNTAX);
	ck_assert_ptr_nonnull(strstr(err, "#DL directives: "));
	ck_assert_int_eq(dl_script_files("x", 1, NULL, err, sizeof(err)),
			 DL_EINVAL);
}
END_TEST

START_TEST(test_too_long)
{
	size_t n = DL_SCRIPT_ANNOTATION_MAX / 20 + 10, i;
	char *s = malloc(n * 40 + 16), *p = s, err[256], *ann = NULL;

	ck_assert_ptr_nonnull(s);
	for (i = 0; i < n; i++)
		p += sprintf(p, "#DL files:/data/file%012zu\n", i);
	ck_assert_int_eq(_files(s, &ann, err, sizeof(err)), DL_ETOOBIG);
	ck_assert_ptr_nonnull(strstr(err, "list file"));
	free(s);
}
END_TEST

/* #BB/#DW lines of the header, as a burst-buffer plugin takes them. */
START_TEST(test_bb_directives)
{
	const char *s = "#!/bin/sh\n"
			"#SBATCH -t 1\n"
			"#BB stage_in source=/data/in1 destination=x type=file\n"
			"#DW stage_in source=/data/in2 \\\n"
			"#DW destination=y type=file\r\n"
			"#BB\n"
			"echo run\n"
			"#BB stage_in source=/after/the/command\n";
	char *spec = NULL;
	dl_filelist_t *list = dl_filelist_new();

	ck_assert_int_eq(dl_script_bb(s, strlen(s), &spec), 0);
	ck_assert_str_eq(spec, "#BB stage_in source=/data/in1 destination=x type=file\n"
			       "#DW stage_in source=/data/in2 destination=y type=file\n"
			       "#BB");
	ck_assert_int_eq(dl_files_bb_stage_in(spec, list), 0);
	ck_assert_uint_eq(list->count, 2);
	ck_assert_str_eq(list->files[0].path, "/data/in1");
	ck_assert_str_eq(list->files[1].path, "/data/in2");
	dl_filelist_free(list);
	free(spec);
	ck_assert_int_eq(dl_script_bb("echo\n#BB x\n", 10, &spec), 0);
	ck_assert_ptr_null(spec);
	ck_assert_int_eq(dl_script_bb(NULL, 1, &spec), DL_EINVAL);
}
END_TEST

Suite *make_script_suite(void)
{
	Suite *s = suite_create("script");
	TCase *tc = tcase_create("directives");

	tcase_add_test(tc, test_directives_joined);
	tcase_add_test(tc, test_no_directive);
	tcase_add_test(tc, test_errors_name_the_line);
	tcase_add_test(tc, test_too_long);
	tcase_add_test(tc, test_bb_directives);
	suite_add_tcase(s, tc);
	return s;
}
