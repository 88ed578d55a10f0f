// SPDX-License-Identifier: GPL-2.0
/* The documented figures against this machine (model/figures.h), on synthetic environments. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/tb.h"
#include "model/figures.h"
#include "model/system.h"
#include "tb_test.h"

/* A sysinfo-shaped object: the leaves the comparison and the hardware class read. */
static json_t *system_of(const char *vendor, const char *family, const char *release)
{
	return json_pack("{s:{s:s, s:s, s:s, s:s, s:s}, s:{s:s}, s:{s:i}, s:{s:s}}", "cpu",
			 "vendor", vendor, "model", "Test CPU", "family", family, "model_number",
			 "17", "present", "0-1", "kernel", "release", release, "topology", "pus", 2,
			 "virtualization", "type", "kvm");
}

static void test_diff(void)
{
	json_t *here = system_of("GenuineIntel", "6", "6.18.44-fc-v1045");
	json_t *doc = json_pack("{s:{s:s, s:s, s:n}, s:s, s:n}", "cpu", "vendor", "AuthenticAMD",
				"family", "25", "model", "kernel", "6.18.44", "hardware_class");
	char what[512], hash[17], desc[128];

	CU_ASSERT_PTR_NOT_NULL_FATAL(here);
	CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
	/* the vendor and the family differ; the unknown model and the release's prefix do not */
	CU_ASSERT_EQUAL(tb_figures_machine_diff(doc, here, what, sizeof(what)), 1);
	CU_ASSERT_STRING_EQUAL(what, "CPU vendor AuthenticAMD, here GenuineIntel; "
				     "CPU family 25, here 6");
	/* the same CPU: nothing known differs */
	json_object_set_new(json_object_get(doc, "cpu"), "vendor", json_string("GenuineIntel"));
	json_object_set_new(json_object_get(doc, "cpu"), "family", json_string("6"));
	CU_ASSERT_EQUAL(tb_figures_machine_diff(doc, here, what, sizeof(what)), 0);
	CU_ASSERT_STRING_EQUAL(what, "");
	/* "6.1" is not a prefix release of 6.18.44 */
	json_object_set_new(doc, "kernel", json_string("6.1"));
	CU_ASSERT_EQUAL(tb_figures_machine_diff(doc, here, what, sizeof(what)), 1);
	CU_ASSERT_STRING_EQUAL(what, "kernel 6.1, here 6.18.44-fc-v1045");
	json_object_set_new(doc, "kernel", json_string("6.18"));
	CU_ASSERT_EQUAL(tb_figures_machine_diff(doc, here, what, sizeof(what)), 0);
	/* the hardware class: this system's own is the same machine, another is not */
	CU_ASSERT_EQUAL_FATAL(tb_system_hardware_class(here, hash, desc, sizeof(desc)), 0);
	json_object_set_new(doc, "hardware_class", json_string(hash));
	CU_ASSERT_EQUAL(tb_figures_machine_diff(doc, here, what, sizeof(what)), 0);
	json_object_set_new(doc, "hardware_class", json_string("0123456789abcdef"));
	CU_ASSERT_EQUAL(tb_figures_machine_diff(doc, here, what, sizeof(what)), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(what, "hardware class 0123456789abcdef, here "));
	CU_ASSERT_PTR_NOT_NULL(strstr(what, hash));
	/* a small buffer is cut, never overrun */
	CU_ASSERT_EQUAL(tb_figures_machine_diff(doc, here, what, 8), 1);
	CU_ASSERT_EQUAL(strlen(what), 7);
	json_decref(doc);
	/* not an object: refused (the caller owns and frees it) */
	doc = json_string("x");
	CU_ASSERT_EQUAL(tb_figures_machine_diff(doc, here, what, sizeof(what)), -EINVAL);
	json_decref(doc);
	json_decref(here);
}

/* root/doc/figures.json with text; root/scenarios/a.ini and b.ini. */
static void tree(const char *root, const char *text)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/doc", root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/scenarios", root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/scenarios/a.ini", root);
	fclose(fopen(p, "w"));
	snprintf(p, sizeof(p), "%s/scenarios/b.ini", root);
	fclose(fopen(p, "w"));
	snprintf(p, sizeof(p), "%s/doc/figures.json", root);
	f = fopen(p, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
}

static void test_note(void)
{
	const char *tmp = tb_test_tmpdir();
	json_t *here = system_of("GenuineIntel", "6", "6.18.44");
	char root[256], a[512], b[512], *note = NULL, *err;

	CU_ASSERT_PTR_NOT_NULL_FATAL(tmp);
	snprintf(root, sizeof(root), "%s", tmp); /* the next tb_test_tmpdir() reuses its buffer */
	snprintf(a, sizeof(a), "%s/scenarios/a.ini", root);
	snprintf(b, sizeof(b), "%s/scenarios/b.ini", root);
	/* no figures file anywhere above: nothing to say */
	tree(root, "");
	CU_ASSERT_EQUAL(tb_figures_note("/nonexistent/x.ini", here, &note), 0);
	CU_ASSERT_PTR_NULL(note);
	tree(root,
	     "{\"schema\": 1, \"sections\": {"
	     "\"amd\": {\"scenarios\": [\"scenarios/a.ini\"], \"machine\": {\"date\": "
	     "\"2026-11-29\", \"cpu\": {\"family\": \"25\"}}, \"figures\": {\"amd.x\": \"1\", "
	     "\"amd.y\": \"2\"}},"
	     "\"here\": {\"scenarios\": [\"scenarios/a.ini\", \"scenarios/b.ini\"], "
	     "\"machine\": {\"cpu\": {\"family\": \"6\"}}, \"figures\": {\"here.z\": \"3\"}},"
	     "\"\\u001b[31mevil\": {\"scenarios\": [\"scenarios/b.ini\"], \"machine\": "
	     "{\"kernel\": \"5.10\"}, \"figures\": {\"x.q\": \"4\"}}}}");
	/* a.ini: the section measured elsewhere is named with its figures, the other is not */
	CU_ASSERT_EQUAL(tb_figures_note(a, here, &note), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(note);
	CU_ASSERT_PTR_NOT_NULL(strstr(note, "the 2 figures amd.* (measured on 2026-11-29: "
					    "CPU family 25, here 6) do not apply here"));
	CU_ASSERT_PTR_NULL(strstr(note, "here.*"));
	CU_ASSERT_PTR_NULL(strchr(note, '\n'));
	free(note);
	/* b.ini: the file's own text reaches the terminal escaped */
	CU_ASSERT_EQUAL(tb_figures_note(b, here, &note), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(note);
	CU_ASSERT_PTR_NULL(strchr(note, '\x1b'));
	CU_ASSERT_PTR_NOT_NULL(strstr(note, "kernel 5.10, here 6.18.44"));
	free(note);
	/* the same machine for every section: nothing to say */
	json_object_set_new(json_object_get(here, "kernel"), "release", json_string("5.10.1"));
	json_object_set_new(json_object_get(here, "cpu"), "family", json_string("25"));
	CU_ASSERT_EQUAL(tb_figures_note(b, here, &note), 0);
	CU_ASSERT_PTR_NOT_NULL(note); /* here.* says family 6 */
	free(note);
	json_object_set_new(json_object_get(here, "cpu"), "family", json_string("6"));
	CU_ASSERT_EQUAL(tb_figures_note(b, here, &note), 0);
	CU_ASSERT_PTR_NULL(note);
	/* a figures file that is not one: a warning naming it, -EINVAL, no note */
	tree(root, "{\"schema\": 1, \"sections\": [");
	tb_test_stderr_begin();
	CU_ASSERT_EQUAL(tb_figures_note(a, here, &note), -EINVAL);
	err = tb_test_stderr_end();
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "/doc/figures.json:1: "));
	free(err);
	CU_ASSERT_PTR_NULL(note);
	tree(root, "{\"schema\": 1, \"sections\": {\"s\": {\"scenarios\": 7, \"machine\": 1}}}");
	CU_ASSERT_EQUAL(tb_figures_note(a, here, &note), 0);
	CU_ASSERT_PTR_NULL(note);
	json_decref(here);
}

static CU_TestInfo figures_tests[] = {
	{"machine diff", test_diff},
	{"note for a scenario", test_note},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("model-figures", NULL, NULL, figures_tests);
