// SPDX-License-Identifier: GPL-2.0
/* "did you mean" (core/suggest.h): the distance, the typo threshold, the text. */
#include <CUnit/CUnit.h>
#include <stdint.h>
#include <string.h>

#include "core/options.h"
#include "core/suggest.h"
#include "tb_test.h"

static void test_distance(void)
{
	CU_ASSERT_EQUAL(tb_edit_distance("", ""), 0);
	CU_ASSERT_EQUAL(tb_edit_distance("rounds", "rounds"), 0);
	CU_ASSERT_EQUAL(tb_edit_distance("abc", ""), 3);
	CU_ASSERT_EQUAL(tb_edit_distance("kitten", "sitting"), 3);
	/* a swap of neighbours is one edit */
	CU_ASSERT_EQUAL(tb_edit_distance("reptitions", "repetitions"), 1);
	CU_ASSERT_EQUAL(tb_edit_distance("roudns", "rounds"), 1);
	CU_ASSERT_EQUAL(tb_edit_distance("Duration", "duration"), 0);
	CU_ASSERT_EQUAL(tb_edit_distance("getpdi", "getpid"), 1);
	{
		char longw[100];

		memset(longw, 'a', sizeof(longw) - 1);
		longw[sizeof(longw) - 1] = '\0';
		CU_ASSERT_EQUAL(tb_edit_distance(longw, "a"), SIZE_MAX);
	}
}

static void test_best_and_threshold(void)
{
	static const char *const keys[] = {"repetitions", "warmup", "duration", "settle", "seed"};
	struct tb_suggest s;
	char buf[96];

	tb_suggest_init(&s, "reptitions");
	for (size_t i = 0; i < 5; i++)
		tb_suggest_offer(&s, keys[i]);
	CU_ASSERT_STRING_EQUAL(tb_suggest_text(&s, buf, sizeof(buf)),
			       "; did you mean 'repetitions'?");
	/* "sed" is 1 from "seed" (and 3 from "settle"): the closest wins */
	tb_suggest_init(&s, "sed");
	for (size_t i = 0; i < 5; i++)
		tb_suggest_offer(&s, keys[i]);
	CU_ASSERT_STRING_EQUAL(s.best, "seed");
	/* nothing close: no suggestion, an empty string to append */
	tb_suggest_init(&s, "frobnicate");
	for (size_t i = 0; i < 5; i++)
		tb_suggest_offer(&s, keys[i]);
	CU_ASSERT_PTR_NULL(s.best);
	CU_ASSERT_STRING_EQUAL(tb_suggest_text(&s, buf, sizeof(buf)), "");
	/* short words allow one edit only */
	tb_suggest_init(&s, "xy");
	tb_suggest_offer(&s, "cv");
	CU_ASSERT_PTR_NULL(s.best);
	tb_suggest_offer(&s, NULL);
	tb_suggest_offer(&s, "");
	CU_ASSERT_PTR_NULL(s.best);
	/* the word itself is no suggestion */
	tb_suggest_init(&s, "seed");
	tb_suggest_offer(&s, "seed");
	CU_ASSERT_PTR_NULL(s.best);
}

static void test_options_table(void)
{
	static const struct tb_option opts[] = {
		{"buffer-size", TB_OPT_UINT, 0, "1", "x", 1, 10},
		{"pid-filter", TB_OPT_UINT, 0, "1", "y", 1, 10},
		TB_OPT_END,
	};
	struct tb_suggest s;

	tb_suggest_init(&s, "bufer-size");
	tb_opts_suggest(opts, &s);
	CU_ASSERT_STRING_EQUAL(s.best, "buffer-size");
}

static CU_TestInfo tests[] = {
	{"edit distance", test_distance},
	{"the closest within the typo threshold", test_best_and_threshold},
	{"an option table's names", test_options_table},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("core-suggest", NULL, NULL, tests);
