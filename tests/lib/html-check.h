/* SPDX-License-Identifier: GPL-2.0 */
/* What the HTML report tests share (tests/lib/html-check.c): the tag checker, a report and the
 * terminal summary of a result as text. */
#ifndef TB_TEST_HTML_CHECK_H
#define TB_TEST_HTML_CHECK_H

#include "model/result.h"

/*
 * Check that tags balance: every start tag (not void, not self-closed) is closed in order.
 * Returns NULL when well-formed, else a static message.
 */
const char *tb_test_html_check(const char *html);
/* r's report (tb_report_write into the test's scratch directory; plotdir: the plots directory
 * to inline, NULL: drawn afresh) as a string to free, or NULL. */
char *tb_test_report(struct tb_result *r, const char *plotdir);
/* r's terminal summary (tb_render_summary_print) as a string to free, or NULL. */
char *tb_test_summary(const struct tb_result *r);

#endif
