// SPDX-License-Identifier: GPL-2.0
/*
 * The service cells in the HTML reports (render/html/report-service.c, and compare --html's
 * service rows in report-compare.c), from the fixtures tests/data/results/svc-*.json.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tb.h"
#include "html-check.h"
#include "render/gnuplot/plot.h"
#include "render/html/report.h"
#include "stats/compare.h"
#include "stats/stats.h"
#include "tb_test.h"

#define EVIL	 "<script>alert(1)</script>&\"'"
#define EVIL_ESC "&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;&#39;"

/*
 * A service result (tests/data/results/svc-a.json): the report's service table with the
 * traced cell's req/s beside its baseline's, its loss and p99 delta with CIs and verdicts,
 * the deciding metric, and the service plot inlined when gnuplot is here.
 */
static void test_service_report(void)
{
	struct tb_result *r = NULL;
	char path[PATH_MAX], *html, *table;

	snprintf(path, sizeof(path), "%s/results/svc-a.json", tb_test_data_dir());
	CU_ASSERT_EQUAL_FATAL(tb_result_load(path, &r), 0);
	CU_ASSERT_EQUAL_FATAL(tb_stats_analyze(r), 0);
	html = tb_test_report(r, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(html);
	CU_ASSERT_PTR_NULL(tb_test_html_check(html));
	table = strstr(html, "<table id=\"service-table\">");
	CU_ASSERT_PTR_NOT_NULL_FATAL(table);
	CU_ASSERT_PTR_NOT_NULL(strstr(table, "<td>bpf-count</td>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(table, "<td>throughput</td>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(table, "v-over"));
	{
		char want[64];

		snprintf(want, sizeof(want), "%+.1f [%+.1f, %+.1f]", r->cells[1].service.loss_pct,
			 r->cells[1].service.loss_lo, r->cells[1].service.loss_hi);
		CU_ASSERT_PTR_NOT_NULL(strstr(table, want));
	}
	if (!tb_plot_find_gnuplot(path, sizeof(path)))
		CU_ASSERT_PTR_NOT_NULL(strstr(html, "Service throughput loss and p99 delta"));
	free(html);
	tb_result_free(r);
}

/* A result file of the fixtures with its traced cell renamed to a hostile name. */
static struct tb_result *load_svc(const char *name)
{
	struct tb_result *r = NULL;
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/results/%s", tb_test_data_dir(), name);
	CU_ASSERT_EQUAL_FATAL(tb_result_load(path, &r), 0);
	CU_ASSERT_FALSE_FATAL(r->cells[1].baseline);
	free(r->cells[1].tracer);
	free(r->cells[1].id);
	r->cells[1].tracer = strdup("bpf-count" EVIL);
	r->cells[1].id = strdup("nginx/bpf-count" EVIL);
	return r;
}

/*
 * compare --html of two service results (svc-a.json, svc-b.json: throughput down 8%, p99 up
 * 30%): a service table with each cell's throughput, p50 and p99 A -> B, the change with its
 * CI, p and the verdict, from the comparison's own figures; the hostile cell name escaped.
 */
static void test_service_comparison(void)
{
	struct tb_result *a = load_svc("svc-a.json"), *b = load_svc("svc-b.json");
	struct tb_comparison *c = NULL;
	const struct tb_cmp_row *w = NULL;
	char path[PATH_MAX], want[128], *html = NULL, *table, *end;

	CU_ASSERT_EQUAL_FATAL(tb_compare_build(a, b, "svc-a.json", "svc-b.json", 0, &c), 0);
	for (size_t i = 0; i < c->nmatched; i++)
		if (c->rows[i].has_svc && !c->rows[i].a->baseline)
			w = &c->rows[i];
	CU_ASSERT_PTR_NOT_NULL_FATAL(w);
	snprintf(path, sizeof(path), "%s/svc.html", tb_test_tmpdir());
	CU_ASSERT_EQUAL_FATAL(
		tb_report_comparison_write((const struct tb_comparison *const *)&c, 1, path), 0);
	CU_ASSERT_EQUAL_FATAL(tb_read_file(path, &html, NULL), 0);
	CU_ASSERT_PTR_NULL(tb_test_html_check(html));
	CU_ASSERT_PTR_NULL(strstr(html, "<script>"));
	table = strstr(html, "<table id=\"compare-services-1\">");
	CU_ASSERT_PTR_NOT_NULL_FATAL(table);
	end = strstr(table, "</table>");
	CU_ASSERT_PTR_NOT_NULL_FATAL(end);
	*end = '\0';
	CU_ASSERT_PTR_NOT_NULL(strstr(table, "<td rowspan=\"3\">nginx/bpf-count" EVIL_ESC "</td>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(table, "<td rowspan=\"3\">nginx/none</td>"));
	/* throughput in req/s, latencies in us, each with its change, CI, p and verdict */
	for (int m = 0; m < TB_STATS_SVC_N; m++) {
		const struct tb_cmp_svc *ch = &w->svc[m];
		double k = m ? 1e3 : 1;

		CU_ASSERT_TRUE(ch->present);
		snprintf(want, sizeof(want), "<td>%s</td><td class=\"n\">%.*f</td>",
			 tb_stats_svc_names[m], m ? 1 : 0, ch->a / k);
		CU_ASSERT_PTR_NOT_NULL(strstr(table, want));
		snprintf(want, sizeof(want), "<td class=\"n\">%.*f</td><td>%s</td>", m ? 1 : 0,
			 ch->b / k, m ? "us" : "req/s");
		CU_ASSERT_PTR_NOT_NULL(strstr(table, want));
		snprintf(want, sizeof(want), "%+.2f%% [%+.2f, %+.2f]</td><td class=\"n\">%.2g</td>",
			 ch->pct, ch->ci_lo, ch->ci_hi, ch->p);
		CU_ASSERT_PTR_NOT_NULL(strstr(table, want));
	}
	CU_ASSERT_EQUAL(w->svc[TB_STATS_SVC_RPS].dir, TB_CMP_WORSE);
	CU_ASSERT_EQUAL(w->svc[TB_STATS_SVC_P99].dir, TB_CMP_WORSE);
	CU_ASSERT_PTR_NOT_NULL(strstr(table, "<td class=\"sig\">worse</td>"));
	free(html);
	tb_compare_free(c);
	tb_result_free(a);
	tb_result_free(b);
}

static CU_TestInfo service_tests[] = {
	{"the run report's service table and plot", test_service_report},
	{"compare --html: the service cells' rows, escaped", test_service_comparison},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("render-html-service", NULL, NULL, service_tests);
