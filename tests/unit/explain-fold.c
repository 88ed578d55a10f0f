// SPDX-License-Identifier: GPL-2.0
/* On fixed inputs with known answers: folding, normalisation, differencing, parsing and files of folded stacks (explain/fold). */
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

static char *format(const struct tb_fold *f, const struct tb_fold *g)
{
	char *text = NULL;
	size_t len = 0;

	CU_ASSERT_EQUAL(g ? tb_fold_format_diff(f, g, &text, &len) : tb_fold_format(f, &text, &len),
			0);
	return text;
}


/* ---- fold ------------------------------------------------------------------------------- */

static void test_fold_basics(void)
{
	struct tb_fold f, s;
	char *text;

	tb_fold_init(&f);
	add(&f, "p;main;b", 2);
	add(&f, "p;main;a", 1);
	add(&f, "p;main-x;z", 4);
	add(&f, "p;main", 3);
	add(&f, "p;main;a", 5); /* merged */
	CU_ASSERT_EQUAL(f.n, 4);
	CU_ASSERT_EQUAL(tb_fold_count(&f, "p;main;a"), 6);
	CU_ASSERT_EQUAL(tb_fold_count(&f, "p;main;c"), 0);
	CU_ASSERT_TRUE(tb_fold_has(&f, "p;main"));
	CU_ASSERT_FALSE(tb_fold_has(&f, "p;mai"));
	CU_ASSERT_EQUAL(f.total, 15);
	/* frame by frame: a stack before its extensions, "main" before "main-x" */
	text = format(&f, NULL);
	CU_ASSERT_STRING_EQUAL(text, "p;main 3\np;main;a 6\np;main;b 2\np;main-x;z 4\n");
	free(text);
	CU_ASSERT_TRUE(tb_fold_stack_cmp("a;b", "a-b") < 0);
	CU_ASSERT_TRUE(tb_fold_stack_cmp("a", "a;b") < 0);
	CU_ASSERT_EQUAL(tb_fold_stack_cmp("x;y", "x;y"), 0);
	/* per million ops unless one raw sample would weigh less than 10 counts */
	CU_ASSERT_EQUAL(tb_fold_unit(1000, 50000), 1e6);
	CU_ASSERT_EQUAL(tb_fold_unit(100000, 100001), 1e7);
	CU_ASSERT_EQUAL(tb_fold_unit(8219757, 10), 1e8);
	/* normalising: counts x factor, rounded, zeros dropped */
	tb_fold_init(&s);
	CU_ASSERT_EQUAL(tb_fold_scale(&f, 0.25, &s), 0); /* 0.75, 1.5, 0.5, 1 */
	text = format(&s, NULL);
	CU_ASSERT_STRING_EQUAL(text, "p;main 1\np;main;a 2\np;main;b 1\np;main-x;z 1\n");
	free(text);
	tb_fold_free(&s);
	tb_fold_free(&f);
	/* frames made valid */
	char frame[] = "a;b\tc\x80";
	tb_fold_frame_clean(frame);
	CU_ASSERT_STRING_EQUAL(frame, "a_b?c?");
	CU_ASSERT_TRUE(tb_fold_frame_is_kernel("x_[k]", 5));
	CU_ASSERT_FALSE(tb_fold_frame_is_kernel("x[k]", 4));
}

static void test_fold_diff(void)
{
	struct tb_fold b, t, rb, rt;
	char *text;

	tb_fold_init(&b);
	tb_fold_init(&t);
	add(&b, "p;x", 5);
	add(&b, "p;y", 2);
	add(&t, "p;y", 7);
	add(&t, "p;z", 1);
	text = format(&b, &t);
	CU_ASSERT_STRING_EQUAL(text, "p;x 5 0\np;y 2 7\np;z 0 1\n");
	/* and back */
	tb_fold_init(&rb);
	tb_fold_init(&rt);
	CU_ASSERT_EQUAL(tb_fold_parse(text, strlen(text), "diff", &rb, &rt), 0);
	CU_ASSERT_EQUAL(rb.n, 3);
	CU_ASSERT_EQUAL(tb_fold_count(&rb, "p;x"), 5);
	CU_ASSERT_EQUAL(tb_fold_count(&rt, "p;y"), 7);
	CU_ASSERT_EQUAL(tb_fold_count(&rt, "p;z"), 1);
	free(text);
	tb_fold_free(&b);
	tb_fold_free(&t);
	tb_fold_free(&rb);
	tb_fold_free(&rt);
}

/* One bad input: parse fails with -EINVAL (the message names what:line). */
static void bad_fold(const char *text, bool diff)
{
	struct tb_fold a, b;
	int ret;

	tb_fold_init(&a);
	tb_fold_init(&b);
	ret = tb_fold_parse(text, strlen(text), "bad.folded", &a, diff ? &b : NULL);
	if (ret != -EINVAL)
		printf("\n    accepted: \"%s\"\n", text);
	CU_ASSERT_EQUAL(ret, -EINVAL);
	tb_fold_free(&a);
	tb_fold_free(&b);
}

static void test_fold_parse(void)
{
	const char *ok = "main;f 10\n\nmain;f 2\r\nmain;g 1.5\nmain;with space 3";
	struct tb_fold f;
	char line[TB_FOLD_MAX_LINE + 16];

	tb_fold_init(&f);
	CU_ASSERT_EQUAL(tb_fold_parse(ok, strlen(ok), "ok", &f, NULL), 0);
	CU_ASSERT_EQUAL(f.n, 3);
	CU_ASSERT_EQUAL(tb_fold_count(&f, "main;f"), 12); /* repeated stacks add up */
	CU_ASSERT_EQUAL(tb_fold_count(&f, "main;g"), 1.5);
	CU_ASSERT_EQUAL(tb_fold_count(&f, "main;with space"), 3);
	tb_fold_free(&f);
	bad_fold("main;f\n", false);		 /* no count */
	bad_fold("main;f x\n", false);		 /* not a number */
	bad_fold("main;f -3\n", false);		 /* negative */
	bad_fold("main;f 1.2.3\n", false);	 /* two points */
	bad_fold("main;f 1e99\n", false);	 /* exponent */
	bad_fold("main;;f 1\n", false);		 /* empty frame */
	bad_fold(";f 1\n", false);		 /* empty first frame */
	bad_fold(" 1\n", false);		 /* empty stack */
	bad_fold("main;f\x01 1\n", false);	 /* control byte */
	bad_fold("main;\xc3\xa9 1\n", false);	 /* not ASCII */
	bad_fold("main;f 1\n", true);		 /* the diff form needs two counts */
	bad_fold("f 9999999999999999\n", false); /* above the bound */
	memset(line, 'a', sizeof(line));
	memcpy(line + sizeof(line) - 3, " 1", 3);
	bad_fold(line, false); /* line too long */
	memcpy(line + TB_FOLD_MAX_FRAME + 1, " 1", 3);
	bad_fold(line, false); /* a frame of 1025 bytes */
	{
		const char nul[] = "a 1\nb\0 2\n";

		tb_fold_init(&f);
		CU_ASSERT_EQUAL(tb_fold_parse(nul, sizeof(nul) - 1, "nul", &f, NULL), -EINVAL);
		tb_fold_free(&f);
	}
}

static void test_fold_files(void)
{
	const char *dir = tb_test_tmpdir();
	struct tb_dir d;
	struct tb_fold f, g;
	char path[256];

	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	tb_fold_init(&f);
	tb_fold_init(&g);
	add(&f, "tracebench;main;spin", 40);
	add(&f, "tracebench;main;syscall;entry_SYSCALL_64_[k]", 60);
	CU_ASSERT_EQUAL_FATAL(tb_dir_open(&d, dir, TB_DIR_PATH, 0), 0);
	CU_ASSERT_EQUAL(tb_fold_write(&f, &d, "x.folded"), 0);
	tb_dir_close(&d);
	snprintf(path, sizeof(path), "%s/x.folded", dir);
	CU_ASSERT_EQUAL(tb_fold_read(path, &g), 0);
	CU_ASSERT_EQUAL(g.n, 2);
	CU_ASSERT_EQUAL(g.total, 100);
	CU_ASSERT_EQUAL(tb_fold_count(&g, "tracebench;main;spin"), 40);
	snprintf(path, sizeof(path), "%s/missing.folded", dir);
	CU_ASSERT_EQUAL(tb_fold_read(path, &g), -ENOENT);
	tb_fold_free(&f);
	tb_fold_free(&g);
}

static CU_TestInfo fold_tests[] = {
	{"fold: add, merge, order, unit, scale", test_fold_basics},
	{"fold: differential form and back", test_fold_diff},
	{"fold: parsing and its refusals", test_fold_parse},
	{"fold: files", test_fold_files},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("explain-fold", NULL, NULL, fold_tests);
