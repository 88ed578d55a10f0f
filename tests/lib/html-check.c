// SPDX-License-Identifier: GPL-2.0
/* The HTML reports' tests' helpers (html-check.h). */
#include <ctype.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/outdir.h"
#include "core/tb.h"
#include "html-check.h"
#include "render/html/report.h"
#include "render/summary.h"
#include "tb_test.h"

static const char *const void_tags[] = {"area",	 "base", "br",	 "col",	   "embed", "hr",  "img",
					"input", "link", "meta", "source", "track", "wbr", NULL};

static bool is_void(const char *name)
{
	int i;

	for (i = 0; void_tags[i]; i++)
		if (!strcasecmp(name, void_tags[i]))
			return true;
	return false;
}

/* Attribute values are skipped whole so that a '>' inside quotes does not end the tag. */
const char *tb_test_html_check(const char *html)
{
	static char msg[256];
	char stack[512][32];
	int depth = 0;
	const char *p = html;

	while ((p = strchr(p, '<')) != NULL) {
		char name[32];
		bool closing = false, selfclose = false;
		size_t n = 0;

		if (!strncmp(p, "<!--", 4)) {
			p = strstr(p, "-->");
			if (!p)
				return "unterminated comment";
			continue;
		}
		if (p[1] == '!' || p[1] == '?') {
			p = strchr(p, '>');
			if (!p)
				return "unterminated declaration";
			continue;
		}
		p++;
		if (*p == '/') {
			closing = true;
			p++;
		}
		if (!isalpha((unsigned char)*p)) {
			snprintf(msg, sizeof(msg), "stray '<' before '%.20s'", p);
			return msg;
		}
		while ((isalnum((unsigned char)*p) || *p == '-' || *p == ':') &&
		       n < sizeof(name) - 1)
			name[n++] = (char)tolower((unsigned char)*p++);
		name[n] = '\0';
		/* attributes */
		while (*p && *p != '>') {
			if (*p == '"' || *p == '\'') {
				const char *q = strchr(p + 1, *p);

				if (!q)
					return "unterminated attribute value";
				p = q + 1;
				continue;
			}
			if (*p == '/' && p[1] == '>')
				selfclose = true;
			if (*p == '<')
				return "'<' inside a tag";
			p++;
		}
		if (!*p)
			return "unterminated tag";
		p++;
		if (closing) {
			if (!depth || strcmp(stack[depth - 1], name)) {
				snprintf(msg, sizeof(msg), "</%s> closes <%s>", name,
					 depth ? stack[depth - 1] : "(nothing)");
				return msg;
			}
			depth--;
		} else if (!selfclose && !is_void(name)) {
			if (depth == 512)
				return "nesting too deep";
			snprintf(stack[depth++], sizeof(stack[0]), "%s", name);
			if (!strcmp(name, "style")) {
				p = strstr(p, "</style>");
				if (!p)
					return "unterminated style";
			}
		}
	}
	if (depth) {
		snprintf(msg, sizeof(msg), "<%s> never closed", stack[depth - 1]);
		return msg;
	}
	return NULL;
}

char *tb_test_report(struct tb_result *r, const char *plotdir)
{
	const char *dir = tb_test_tmpdir();
	struct tb_dir plots = TB_DIR_INIT;
	char path[PATH_MAX], *html = NULL;
	int ret;

	if (!dir || (plotdir && tb_dir_open(&plots, plotdir, TB_DIR_PATH, 0)))
		return NULL;
	snprintf(path, sizeof(path), "%s/report.html", dir);
	ret = tb_report_write(r, plotdir ? &plots : NULL, NULL, path);
	tb_dir_close(&plots);
	if (ret)
		return NULL;
	if (tb_read_file(path, &html, NULL))
		return NULL;
	return html;
}

char *tb_test_summary(const struct tb_result *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	tb_render_summary_print(f, r);
	fclose(f);
	return buf;
}
