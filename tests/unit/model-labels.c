// SPDX-License-Identifier: GPL-2.0
/* Labels: the syntax run --label accepts, and the reader's check of a result's labels. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/tb.h"
#include "model/labels.h"
#include "model/result.h"
#include "tb_test.h"

static void test_check(void)
{
	char err[256];
	char longval[TB_LABEL_VALUE_MAX + 2];

	CU_ASSERT_EQUAL(tb_label_check("commit", "9f3e1a2", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(tb_label_check("ci.run-id_2", "", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(tb_label_check("host", "r\xc3\xa9seau", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(tb_label_check("", "x", err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(tb_label_check("2nd", "x", err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(tb_label_check("a b", "x", err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "a b"));
	CU_ASSERT_EQUAL(tb_label_check("k", "\x1b[31mred", err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(tb_label_check("k", "\xff", err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(tb_label_check("k", "\xc0\xaf", err, sizeof(err)), -EINVAL); /* overlong */
	CU_ASSERT_EQUAL(tb_label_check("k", "\xed\xa0\x80", err, sizeof(err)), -EINVAL);
	memset(longval, 'v', sizeof(longval) - 1);
	longval[sizeof(longval) - 1] = '\0';
	CU_ASSERT_EQUAL(tb_label_check("k", longval, err, sizeof(err)), -EINVAL);
}

static void test_add(void)
{
	json_t *l = json_object();
	char err[256], kv[32];
	int i;

	CU_ASSERT_EQUAL(tb_labels_add(l, "commit=abc", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(tb_labels_add(l, "commit=def", err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(l, "commit")), "def");
	CU_ASSERT_EQUAL(tb_labels_add(l, "branch=a=b", err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(l, "branch")), "a=b");
	CU_ASSERT_EQUAL(tb_labels_add(l, "novalue", err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "key=value"));
	for (i = 0; i < TB_LABELS_MAX; i++) {
		snprintf(kv, sizeof(kv), "k%d=v", i);
		if (tb_labels_add(l, kv, err, sizeof(err)))
			break;
	}
	CU_ASSERT_EQUAL(json_object_size(l), TB_LABELS_MAX);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "more than"));
	json_decref(l);
}

/* A result's labels survive a round trip; a bad label is refused naming the key. */
static void test_result(void)
{
	struct tb_result *r = tb_result_new(), *back = NULL;
	json_t *doc;

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	json_object_set_new(r->labels, "commit", json_string("abc123"));
	doc = tb_result_to_json(r);
	CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
	CU_ASSERT_EQUAL(tb_result_from_json(doc, "t", &back), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(back);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(back->labels, "commit")),
			       "abc123");
	tb_result_free(back);
	json_object_set_new(json_object_get(doc, "labels"), "bad key", json_string("x"));
	tb_log_set_level(TB_LOG_SILENT);
	CU_ASSERT_EQUAL(tb_result_from_json(doc, "t", &back), -EINVAL);
	tb_log_set_level(TB_LOG_INFO);
	CU_ASSERT_PTR_NOT_NULL(strstr(tb_result_last_error(), "labels"));
	json_object_set_new(doc, "labels", json_string("x"));
	tb_log_set_level(TB_LOG_SILENT);
	CU_ASSERT_EQUAL(tb_result_from_json(doc, "t", &back), -EINVAL);
	tb_log_set_level(TB_LOG_INFO);
	json_decref(doc);
	tb_result_free(r);
}

static CU_TestInfo label_tests[] = {
	{"label syntax", test_check},
	{"labels add", test_add},
	{"labels in result.json", test_result},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("model-labels", NULL, NULL, label_tests);
