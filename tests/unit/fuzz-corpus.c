// SPDX-License-Identifier: GPL-2.0
/*
 * The fuzzers' seed corpora (tests/fuzz/corpus/), which include every input a fuzzer found a
 * problem with (regress-*), go through the same calls as the fuzz targets on every test run, so
 * `make check SAN=1` and `make valgrind` catch a regression without clang or libFuzzer. Also the
 * scenario parser fixes those inputs led to. The folded-stacks corpus goes through the explain
 * reader, the flame graph and the attribution, as fuzz_fold.c does.
 */
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "explain/attribute.h"
#include "explain/flamegraph.h"
#include "explain/fold.h"
#include "model/anonymize.h"
#include "model/result.h"
#include "parse/scenario.h"
#include "fuzz/drive-fleet.h"
#include "fuzz/drive-history.h"
#include "fuzz/drive-placeholders.h"
#include "tb_test.h"

/* Call fn on every file of tests/fuzz/corpus/NAME; returns how many there were. */
static int each_input(const char *name, void (*fn)(const char *path, const char *text, size_t len))
{
	char dir[512], path[1024];
	struct dirent *de;
	int n = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/../fuzz/corpus/%s", tb_test_data_dir(), name);
	d = opendir(dir);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char *text = NULL;
		size_t len = 0;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (tb_read_file(path, &text, &len))
			continue;
		fn(path, text, len);
		free(text);
		n++;
	}
	closedir(d);
	return n;
}

static void one_scenario(const char *path, const char *text, size_t len)
{
	struct tb_scenario *s = NULL;
	int ret = tb_scenario_parse(text, path, &s);

	(void)len;
	CU_ASSERT(ret == 0 || ret == -EINVAL);
	CU_ASSERT((ret == 0) == (s != NULL));
	tb_scenario_free(s);
}

static void one_result(const char *path, const char *text, size_t len)
{
	struct tb_result *r = NULL;
	json_error_t jerr;
	json_t *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	int ret;

	if (!doc)
		return;
	ret = tb_result_from_json(doc, path, &r);
	CU_ASSERT(ret == 0 || ret == -EINVAL);
	if (!ret) {
		json_t *back;

		CU_ASSERT_EQUAL(tb_result_anonymize(r, 0), 0);
		back = tb_result_to_json(r);
		CU_ASSERT_PTR_NOT_NULL(back);
		json_decref(back);
		tb_result_free(r);
	}
	json_decref(doc);
}

/* As fuzz_fold.c: parse in the form the first byte picks; what parses is drawn and attributed. */
static void one_fold(const char *path, const char *text, size_t len)
{
	struct tb_fg_opts o = {.title = "corpus", .per_ops = 1e6, .period_ns = 250000};
	struct tb_fold a, b;
	struct tb_attr at;
	FILE *f = fopen("/dev/null", "w");
	int ret;

	tb_fold_init(&a);
	tb_fold_init(&b);
	ret = tb_fold_parse(text, len, path, &a, len && text[0] & 1 ? &b : NULL);
	CU_ASSERT(ret == 0 || ret == -EINVAL);
	if (!ret) {
		tb_fold_sort(&a);
		CU_ASSERT_EQUAL(f ? tb_fg_svg(f, &a, b.n ? &b : NULL, &o) : 0, 0);
		CU_ASSERT_EQUAL(tb_attr_build(&b, &a, 1e6, 250000, 10, &at), 0);
		tb_attr_free(&at);
	}
	if (f)
		fclose(f);
	tb_fold_free(&a);
	tb_fold_free(&b);
}

/* The newer targets' inputs through their drivers (which abort on a finding). */
static void one_fleet(const char *path, const char *text, size_t len)
{
	(void)path;
	CU_ASSERT_EQUAL(tb_drive_fleet((const uint8_t *)text, len), 0);
}

static void one_placeholders(const char *path, const char *text, size_t len)
{
	(void)path;
	CU_ASSERT_EQUAL(tb_drive_placeholders((const uint8_t *)text, len), 0);
}

static void one_history(const char *path, const char *text, size_t len)
{
	(void)path;
	CU_ASSERT_EQUAL(tb_drive_history((const uint8_t *)text, len), 0);
}

static void test_new_corpora(void)
{
	enum tb_log_level old = tb_log_get_level();
	int nh = 0, nl, np;

	tb_log_set_level(TB_LOG_SILENT);
	nl = each_input("fleet", one_fleet);
	np = each_input("placeholders", one_placeholders);
	if (!tb_drive_history_init(tb_test_data_dir()))
		nh = each_input("history", one_history);
	tb_drive_history_done();
	tb_log_set_level(old);
	if (!nl && !np)
		TB_SKIP("tests/fuzz/corpus not found next to TB_TEST_DATA");
	CU_ASSERT(nl >= 1);
	CU_ASSERT(np >= 3);
	CU_ASSERT(nh >= 5);
}

static void test_corpora(void)
{
	enum tb_log_level old = tb_log_get_level();
	int ns, nr, nf;

	tb_log_set_level(TB_LOG_SILENT); /* most inputs are errors on purpose */
	ns = each_input("scenario", one_scenario);
	nr = each_input("result", one_result);
	nf = each_input("fold", one_fold);
	tb_log_set_level(old);
	if (!ns && !nr)
		TB_SKIP("tests/fuzz/corpus not found next to TB_TEST_DATA");
	CU_ASSERT(ns > 10);
	CU_ASSERT(nr > 3);
	CU_ASSERT(nf >= 3);
}

/* Parse text as a file (NUL bytes and all); return the error output and the result. */
static int load_text(const char *text, size_t len, char *err, size_t errlen)
{
	const char *dir = tb_test_tmpdir();
	struct tb_scenario *s = NULL;
	char path[512];
	FILE *f, *saved;
	int ret, fd;

	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	snprintf(path, sizeof(path), "%s/x.ini", dir);
	f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fwrite(text, 1, len, f);
	fclose(f);
	/* Capture stderr into a file. */
	fflush(stderr);
	saved = tmpfile();
	fd = dup(2);
	dup2(fileno(saved), 2);
	ret = tb_scenario_load(path, &s);
	fflush(stderr);
	dup2(fd, 2);
	close(fd);
	rewind(saved);
	err[fread(err, 1, errlen - 1, saved)] = '\0';
	fclose(saved);
	tb_scenario_free(s);
	return ret;
}

static void test_parser_fixes(void)
{
	static const char nul[] = "[global]\nrepetitions = 3\n\0[bogus\n";
	char err[4096];

	/* A NUL byte used to end the text early: the rest of the file was never looked at. */
	CU_ASSERT_EQUAL(load_text(nul, sizeof(nul) - 1, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "x.ini:3: binary data (byte 0x00)"));
	/* An empty file's missing [matrix] is reported at line 1, not 0. */
	CU_ASSERT_EQUAL(load_text("", 0, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "x.ini:1: no [matrix]"));
	/* cpus: junk, auto mixed with ids, out of range; each at its line. */
	CU_ASSERT_EQUAL(load_text("[global]\ncpus = banana\n", 22, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "x.ini:2: [global]: key 'cpus': bad CPU 'banana'"));
	CU_ASSERT_EQUAL(load_text("\n[global]\ncpus = auto, 1\n", 25, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "x.ini:3: [global]: key 'cpus': bad CPU 'auto'"));
	CU_ASSERT_EQUAL(load_text("[global]\ncpus = 0, 4096\n", 24, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "bad CPU '4096'"));
}

static CU_TestInfo fuzz_corpus_tests[] = {
	{"seed corpora and regressions", test_corpora},
	{"history, fleet and placeholder corpora", test_new_corpora},
	{"parser fixes", test_parser_fixes},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("fuzz-corpus", NULL, NULL, fuzz_corpus_tests);
