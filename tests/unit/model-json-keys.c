// SPDX-License-Identifier: GPL-2.0
/*
 * result.json's keys do not drift: the fixture result (tests/lib/fixture.h) written by the
 * field tables (model/json-result.c) has every key path that json-write.c wrote before the
 * tables, tests/data/results/fixture-keys.txt (a [] step is any element of an array), and no
 * other; and what the reader makes of the document writes the same document again.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tb.h"
#include "fixture.h"
#include "model/result.h"
#include "tb_test.h"

#define DUMP_FLAGS (JSON_INDENT(1) | JSON_REAL_PRECISION(17))

/* Every key path of v under prefix into the set paths (an object whose keys are the paths). */
static void collect(json_t *v, const char *prefix, json_t *paths)
{
	char path[512];
	const char *k;
	json_t *x;
	size_t i;

	if (json_is_object(v)) {
		json_object_foreach(v, k, x)
		{
			snprintf(path, sizeof(path), "%s%s%s", prefix, *prefix ? "." : "", k);
			json_object_set_new(paths, path, json_true());
			collect(x, path, paths);
		}
	} else if (json_is_array(v)) {
		snprintf(path, sizeof(path), "%s[]", prefix);
		json_array_foreach(v, i, x)
		collect(x, path, paths);
	}
}

/* The paths of tests/data/results/fixture-keys.txt (# starts a comment line). */
static json_t *expected_paths(void)
{
	char file[512], line[512];
	json_t *paths = json_object();
	FILE *f;

	snprintf(file, sizeof(file), "%s/results/fixture-keys.txt", tb_test_data_dir());
	f = fopen(file, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = '\0';
		if (line[0] && line[0] != '#')
			json_object_set_new(paths, line, json_true());
	}
	fclose(f);
	return paths;
}

/* How many paths of a are not in b, each printed after what ("missing", "new") unless quiet. */
static int not_in(json_t *a, json_t *b, const char *what, bool quiet)
{
	const char *k;
	json_t *v;
	int n = 0;

	json_object_foreach(a, k, v)
	{
		if (!json_object_get(b, k)) {
			if (!quiet)
				printf("\n    %s key: %s", what, k);
			n++;
		}
	}
	return n;
}

/* How many key paths of doc differ from the file's (0: the same set). */
static int differences(json_t *doc, bool quiet)
{
	json_t *want = expected_paths(), *got = json_object();
	int n;

	collect(doc, "", got);
	n = not_in(want, got, "missing", quiet) + not_in(got, want, "new", quiet);
	json_decref(want);
	json_decref(got);
	return n;
}

static json_t *fixture_doc(unsigned int flags)
{
	struct tb_result *r = tb_fixture_result(flags);
	json_t *doc;

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	doc = tb_result_to_json(r);
	tb_result_free(r);
	CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
	return doc;
}

static void test_same_keys(void)
{
	json_t *doc = fixture_doc(0);

	CU_ASSERT_EQUAL(differences(doc, false), 0);
	json_decref(doc);
}

/* The comparison notices a writer that drops a key, or renames one. */
static void test_drift_noticed(void)
{
	json_t *doc = fixture_doc(0), *cells = json_object_get(doc, "cells"), *c, *s;
	size_t i;

	CU_ASSERT_EQUAL_FATAL(differences(doc, true), 0);
	json_array_foreach(cells, i, c)
	{
		json_object_del(json_object_get(c, "summary"), "mad");
	}
	CU_ASSERT_NOT_EQUAL(differences(doc, true), 0); /* dropped */
	json_array_foreach(cells, i, c)
	{
		s = json_object_get(c, "summary");
		json_object_set_new(s, "mad_ns", json_real(1));
	}
	CU_ASSERT_NOT_EQUAL(differences(doc, true), 0); /* renamed */
	json_decref(doc);
}

/* fixture -> JSON -> the model -> JSON: the same document, byte for byte. */
static void test_round_trip(void)
{
	for (unsigned int flags = 0; flags <= TB_FIX_README; flags = flags ? flags << 1 : 1) {
		json_t *doc = fixture_doc(flags), *again;
		struct tb_result *r = NULL;
		char *a, *b;

		CU_ASSERT_EQUAL_FATAL(tb_result_from_json(doc, "fixture", &r), 0);
		again = tb_result_to_json(r);
		CU_ASSERT_PTR_NOT_NULL_FATAL(again);
		a = json_dumps(doc, DUMP_FLAGS);
		b = json_dumps(again, DUMP_FLAGS);
		CU_ASSERT_PTR_NOT_NULL_FATAL(a);
		CU_ASSERT_PTR_NOT_NULL_FATAL(b);
		if (strcmp(a, b))
			printf("\n    fixture %u: read and written again, it differs", flags);
		CU_ASSERT_STRING_EQUAL(a, b);
		free(a);
		free(b);
		json_decref(again);
		json_decref(doc);
		tb_result_free(r);
	}
}

/* A cell's duration_ns is its own; results from before it had settings' for every cell. */
static void test_cell_duration(void)
{
	json_t *doc = fixture_doc(0), *cells = json_object_get(doc, "cells");
	struct tb_result *r = NULL;

	json_object_set_new(json_object_get(doc, "settings"), "duration_ns", json_integer(2000000));
	json_object_set_new(json_array_get(cells, 0), "duration_ns", json_integer(5000000));
	json_object_del(json_array_get(cells, 1), "duration_ns");
	CU_ASSERT_EQUAL_FATAL(tb_result_from_json(doc, "d.json", &r), 0);
	CU_ASSERT_EQUAL(r->duration_ns, 2000000);
	CU_ASSERT_EQUAL(r->cells[0].duration_ns, 5000000);
	CU_ASSERT_EQUAL(r->cells[1].duration_ns, 2000000);
	tb_result_free(r);
	json_object_set_new(json_array_get(cells, 0), "duration_ns", json_string("x"));
	tb_log_set_level(TB_LOG_SILENT);
	CU_ASSERT_EQUAL(tb_result_from_json(doc, "d.json", &r), -EINVAL);
	tb_log_set_level(TB_LOG_INFO);
	CU_ASSERT_PTR_NOT_NULL(strstr(tb_result_last_error(), "cells[0].duration_ns"));
	json_decref(doc);
}

static CU_TestInfo keys_tests[] = {
	{"the fixture's key paths are the file's", test_same_keys},
	{"a dropped or renamed key is noticed", test_drift_noticed},
	{"read and written again, the same document", test_round_trip},
	{"a cell's duration, and settings' for older results", test_cell_duration},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("model-json-keys", NULL, NULL, keys_tests);
