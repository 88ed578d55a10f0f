// SPDX-License-Identifier: GPL-2.0
/* On fixed inputs with known answers: the added cost by function and the explained share (explain/attribute). */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "core/outdir.h"
#include "core/tb.h"
#include "explain/attribute.h"
#include "explain/explain.h"
#include "explain/flamegraph.h"
#include "explain/fold.h"
#include "plan/plan.h"
#include "model/explain.h"
#include "model/result.h"
#include "parse/scenario.h"
#include "tb_test.h"

static void add(struct tb_fold *f, const char *stack, double n)
{
	CU_ASSERT_EQUAL_FATAL(tb_fold_add(f, stack, strlen(stack), n), 0);
}


/* ---- attribution ------------------------------------------------------------------------ */

static const struct tb_attr_fn *fn(const struct tb_attr *a, const char *name)
{
	for (size_t i = 0; i < a->nfns; i++)
		if (!strcmp(a->fns[i].name, name))
			return &a->fns[i];
	return NULL;
}

static void test_attribute(void)
{
	struct tb_fold b, t;
	struct tb_attr a;
	const struct tb_attr_fn *f;

	tb_fold_init(&b);
	tb_fold_init(&t);
	add(&b, "p;main;f", 10);
	add(&b, "p;main;g;f", 10);
	add(&t, "p;main;f", 10);
	add(&t, "p;main;g;f", 30);
	add(&t, "p;main;h_[k]", 20);
	add(&t, "p;[truncated];f;x;f", 5); /* recursion counts once inclusive */
	/* one count = 1e6 ns / 1e6 ops = 1 ns per op */
	CU_ASSERT_EQUAL_FATAL(tb_attr_build(&b, &t, 1e6, 1e6, 10, &a), 0);
	CU_ASSERT_DOUBLE_EQUAL(a.base_ns, 20, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(a.traced_ns, 65, 1e-9);
	CU_ASSERT_PTR_NULL(fn(&a, "p"));	   /* the process is not a function */
	CU_ASSERT_PTR_NULL(fn(&a, "[truncated]")); /* nor is the mark */
	f = fn(&a, "f");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_FALSE(f->kernel);
	CU_ASSERT_DOUBLE_EQUAL(f->self_base, 20, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(f->self_traced, 45, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(f->incl_traced, 45, 1e-9);
	f = fn(&a, "h");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_TRUE(f->kernel);
	CU_ASSERT_DOUBLE_EQUAL(f->self_traced - f->self_base, 20, 1e-9);
	f = fn(&a, "g");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_DOUBLE_EQUAL(f->self_traced, 0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(f->incl_base, 10, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(f->incl_traced, 30, 1e-9);
	/* order: added self, largest first; ties by name */
	CU_ASSERT_STRING_EQUAL(a.fns[0].name, "f");
	CU_ASSERT_STRING_EQUAL(a.fns[1].name, "h");
	tb_attr_free(&a);
	/* top 1 by self (f) and top 1 by inclusive (main: +40) */
	CU_ASSERT_EQUAL_FATAL(tb_attr_build(&b, &t, 1e6, 1e6, 1, &a), 0);
	CU_ASSERT_EQUAL(a.nfns, 2);
	CU_ASSERT_PTR_NOT_NULL(fn(&a, "f"));
	CU_ASSERT_PTR_NOT_NULL(fn(&a, "main"));
	tb_attr_free(&a);
	tb_fold_free(&b);
	tb_fold_free(&t);
}

static void test_share(void)
{
	struct tb_attr_share s;

	tb_attr_share(97, 2, 100, 90, 110, 0.25, &s);
	CU_ASSERT_DOUBLE_EQUAL(s.share, 0.97, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(s.lo, 93.0 / 110, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(s.hi, 101.0 / 90, 1e-12);
	CU_ASSERT_TRUE(s.within);
	CU_ASSERT_PTR_NOT_NULL(strstr(s.text, "the profile explains 97% of the measured overhead"));
	tb_attr_share(62, 1, 100, 95, 105, 0.25, &s);
	CU_ASSERT_FALSE(s.within);
	CU_ASSERT_PTR_NOT_NULL(strstr(s.text, "the profile explains only 62%"));
	tb_attr_share(160, 1, 100, 95, 105, 0.25, &s);
	CU_ASSERT_FALSE(s.within);
	CU_ASSERT_PTR_NOT_NULL(strstr(s.text, "shows 160%"));
	/* a wide CI reaching 100% is within */
	tb_attr_share(62, 1, 100, 60, 140, 0.25, &s);
	CU_ASSERT_TRUE(s.within);
	tb_attr_share(5, 1, NAN, NAN, NAN, 0.25, &s);
	CU_ASSERT_TRUE(isnan(s.share));
	CU_ASSERT_FALSE(s.within);
	CU_ASSERT_PTR_NOT_NULL(strstr(s.text, "no measured overhead to explain"));
	tb_attr_share(5, 1, -3, -6, 0, 0.25, &s);
	CU_ASSERT_TRUE(isnan(s.share));
}

static CU_TestInfo attribute_tests[] = {
	{"attribution: self, inclusive, top", test_attribute},
	{"attribution: explained share", test_share},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("explain-attribute", NULL, NULL, attribute_tests);
