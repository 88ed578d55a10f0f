// SPDX-License-Identifier: GPL-2.0
/* On fixed inputs with known answers: the flame graph layout (exact rectangles) and its SVG (explain/flamegraph). */
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


/* ---- flame graph ------------------------------------------------------------------------ */

static const struct tb_fg_frame *frame(const struct tb_fg_layout *l, const char *name,
				       unsigned int depth)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].depth == depth && l->v[i].len == strlen(name) &&
		    !memcmp(l->v[i].name, name, l->v[i].len))
			return &l->v[i];
	return NULL;
}

static void test_fg_layout(void)
{
	struct tb_fold t, b;
	struct tb_fg_layout l;
	const struct tb_fg_frame *fr;

	tb_fold_init(&t);
	tb_fold_init(&b);
	add(&t, "d", 10);
	add(&t, "a;c", 4);
	add(&t, "a;b", 6);
	add(&t, "e;deep", 1e-7); /* 6e-6 px: not drawn, nor what it holds */
	CU_ASSERT_EQUAL_FATAL(tb_fg_layout(&t, NULL, 0, &l), 0);
	/* 1200 px, 10 px margins: 1180 px for 20 counts (and a speck) */
	CU_ASSERT_EQUAL(l.n, 5);
	CU_ASSERT_EQUAL(l.max_depth, 2);
	CU_ASSERT_DOUBLE_EQUAL(l.height, 3 * 16 + 36 + 34, 1e-9);
	fr = frame(&l, "all", 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(fr);
	CU_ASSERT_DOUBLE_EQUAL(fr->x, 10, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(fr->w, 1180, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(fr->y, 118 - 34 - 16 + 1, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(fr->h, 15, 1e-9);
	fr = frame(&l, "a", 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(fr);
	CU_ASSERT_DOUBLE_EQUAL(fr->x, 10, 1e-3);
	CU_ASSERT_DOUBLE_EQUAL(fr->w, 590, 1e-2);
	CU_ASSERT_DOUBLE_EQUAL(fr->y, 118 - 34 - 32 + 1, 1e-9);
	fr = frame(&l, "b", 2); /* children in order: b then c */
	CU_ASSERT_PTR_NOT_NULL_FATAL(fr);
	CU_ASSERT_DOUBLE_EQUAL(fr->x, 10, 1e-3);
	CU_ASSERT_DOUBLE_EQUAL(fr->w, 354, 1e-2);
	fr = frame(&l, "c", 2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(fr);
	CU_ASSERT_DOUBLE_EQUAL(fr->x, 364, 1e-2);
	CU_ASSERT_DOUBLE_EQUAL(fr->w, 236, 1e-2);
	fr = frame(&l, "d", 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(fr);
	CU_ASSERT_DOUBLE_EQUAL(fr->x, 600, 1e-2);
	CU_ASSERT_DOUBLE_EQUAL(fr->self_traced, 10, 1e-9);
	CU_ASSERT_PTR_NULL(frame(&l, "e", 1));
	CU_ASSERT_PTR_NULL(frame(&l, "deep", 2));
	tb_fg_layout_free(&l);
	/* against a baseline: widths stay the traced ones, base counts follow the frames */
	add(&b, "a;c", 8);
	add(&b, "a;b", 6);
	add(&b, "x", 5); /* only in the baseline: no width */
	CU_ASSERT_EQUAL_FATAL(tb_fg_layout(&t, &b, 0, &l), 0);
	fr = frame(&l, "a", 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(fr);
	CU_ASSERT_DOUBLE_EQUAL(fr->w, 590, 1e-2);
	CU_ASSERT_DOUBLE_EQUAL(fr->base, 14, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(frame(&l, "all", 0)->base, 19, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(frame(&l, "c", 2)->self_base, 8, 1e-9);
	CU_ASSERT_PTR_NULL(frame(&l, "x", 1));
	CU_ASSERT_DOUBLE_EQUAL(l.max_delta, 10, 1e-9); /* d: 10 - 0 */
	tb_fg_layout_free(&l);
	tb_fold_free(&t);
	tb_fold_free(&b);
}

static char *svg(const struct tb_fold *t, const struct tb_fold *b, bool standalone)
{
	struct tb_fg_opts o = {
		.title = "T <&>", .per_ops = 1e6, .period_ns = 1e6, .standalone = standalone};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(tb_fg_svg(f, t, b, &o), 0);
	fclose(f);
	return buf;
}

static size_t count_of(const char *s, const char *what)
{
	size_t n = 0;

	for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

static void test_fg_svg(void)
{
	struct tb_fold t, b;
	char *s;

	tb_fold_init(&t);
	tb_fold_init(&b);
	add(&t, "d_[k]", 10);
	add(&t, "a;c", 4);
	add(&t, "a;std::vector<int>::push_back", 6);
	add(&b, "a;c", 8);
	s = svg(&t, &b, false);
	/* inline: no prolog, no namespace (HTML puts <svg> in it) */
	CU_ASSERT_PTR_NULL(strstr(s, "<?xml"));
	CU_ASSERT_PTR_NULL(strstr(s, "xmlns"));
	CU_ASSERT_EQUAL(count_of(s, "<g class=\"frame\">"), 5);
	CU_ASSERT_PTR_NOT_NULL(strstr(s, "T &lt;&amp;&gt;"));
	/* c shrank by 4 of the largest change 10 (d's): blue, 210 x 6/10 */
	CU_ASSERT_PTR_NOT_NULL(strstr(s, "<rect x=\"10.00\" y=\"37.0\" width=\"236.00\" "
					 "height=\"15.0\" fill=\"rgb(126,126,255)\""));
	/* d grew by the largest change: full red; its kernel mark is not shown */
	CU_ASSERT_PTR_NOT_NULL(strstr(s, "<rect x=\"600.00\" y=\"53.0\" width=\"590.00\" "
					 "height=\"15.0\" fill=\"rgb(255,0,0)\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(s, "<title>d [kernel]: 10.0 ns/op (50.0%), baseline 0.0 "
					 "ns/op; self +10.0 ns/op</title>"));
	CU_ASSERT_PTR_NULL(strstr(s, "d_[k]"));
	/* names escaped (27 characters fit in 354 px at 7.08 px a character) */
	CU_ASSERT_PTR_NOT_NULL(strstr(s, ">std::vector&lt;int&gt;::push_back<"));
	free(s);
	s = svg(&t, NULL, true);
	CU_ASSERT_PTR_NOT_NULL(strstr(s, "<?xml version=\"1.0\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(s, "xmlns=\"http://www.w3.org/2000/svg\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(s, "fill=\"rgb(200,200,200)\"")); /* the root, grey */
	free(s);
	/* nothing to draw is said, not left blank */
	tb_fold_free(&t);
	tb_fold_init(&t);
	s = svg(&t, NULL, false);
	CU_ASSERT_PTR_NOT_NULL(strstr(s, "no samples"));
	CU_ASSERT_EQUAL(count_of(s, "<g class=\"frame\">"), 0);
	free(s);
	tb_fold_free(&t);
	tb_fold_free(&b);
}

static void test_fg_truncated_names(void)
{
	struct tb_fold t;
	char *s;

	tb_fold_init(&t);
	add(&t, "a_function_name_that_is_long", 1);
	add(&t, "zz", 99); /* a gets 11.8 px: one character fits, so no text */
	add(&t, "medium;x_function_name_longer_than_it_fits_in_forty_px", 1);
	s = svg(&t, NULL, false);
	CU_ASSERT_PTR_NOT_NULL(strstr(s, "<title>a_function_name_that_is_long"));
	CU_ASSERT_PTR_NULL(strstr(s, "\">a_f"));
	free(s);
	tb_fold_free(&t);
	tb_fold_init(&t);
	add(&t, "abcdefghijklmnop", 1);
	add(&t, "zz", 19); /* 59 px: 8 characters fit: 6 and ".." */
	s = svg(&t, NULL, false);
	CU_ASSERT_PTR_NOT_NULL(strstr(s, ">abcdef..<"));
	free(s);
	tb_fold_free(&t);
}

static CU_TestInfo flamegraph_tests[] = {
	{"flame graph: layout (exact rectangles)", test_fg_layout},
	{"flame graph: SVG, colours, titles, escaping", test_fg_svg},
	{"flame graph: names cut to fit", test_fg_truncated_names},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("explain-flamegraph", NULL, NULL, flamegraph_tests);
