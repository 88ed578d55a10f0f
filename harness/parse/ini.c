// SPDX-License-Identifier: GPL-2.0
/*
 * The INI layer of the scenario parser (parse.h). libinih does the syntax; a line-counting
 * reader gives every key and section its line number, so that every error reads
 * "file:line: message". Sections are opened here and each key is handed to its section's
 * reader (keys.c, plugin.c).
 */
#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tb.h"
#include "parse/parse.h"

void tb_scn_perr(struct tb_scn_parse *p, int line, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	/* 2,000 bad sections would print 2,000 lines: the first few, then a count. */
	if (p->errors++ >= TB_SCN_MAX_SHOWN)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	tb_err("%s:%d: %s", p->what, line, msg);
}

bool tb_scn_valid_name(const char *n)
{
	if (!*n || strlen(n) > 64)
		return false;
	for (; *n; n++)
		if (!isalnum((unsigned char)*n) && !strchr("-_.+", *n))
			return false;
	return true;
}

/* ---- keys and their lines ------------------------------------------------------------------ */

/* The first key of the section at line section (keys are in file order), or nkeys. */
static size_t first_key(const struct tb_scn_parse *p, int section)
{
	size_t lo = 0, hi = p->nkeys;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->keys[mid].section < section)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int tb_scenario_workload(const struct tb_scenario *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->nworkloads; i++)
		if (!strcmp(s->workloads[i].name, name))
			return (int)i;
	return -1;
}

int tb_scenario_tracer(const struct tb_scenario *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->ntracers; i++)
		if (!strcmp(s->tracers[i].name, name))
			return (int)i;
	return -1;
}

int tb_scn_key_line(const struct tb_scn_parse *p, int section, const char *name)
{
	for (size_t i = first_key(p, section); i < p->nkeys && p->keys[i].section == section; i++)
		if (!strcmp(p->keys[i].name, name))
			return p->keys[i].line;
	return 0;
}

int tb_scn_msg_line(const struct tb_scn_parse *p, int section, const char *msg)
{
	size_t n = strcspn(msg, ": ");
	char key[128];
	int line;

	if (msg[n] != ':' || !n || n >= sizeof(key))
		return section;
	memcpy(key, msg, n);
	key[n] = '\0';
	line = tb_scn_key_line(p, section, key);
	return line ? line : section;
}

/* Keep name as a key of the current section. Returns 0, -EEXIST when the section has it
 * already, or -ENOMEM. */
static int add_key(struct tb_scn_parse *p, const char *name)
{
	struct tb_scn_key *nk;
	char *copy;

	if (tb_scn_key_line(p, p->cur_line, name))
		return -EEXIST;
	copy = strdup(name);
	nk = copy ? realloc(p->keys, (p->nkeys + 1) * sizeof(*nk)) : NULL;
	if (!nk) {
		free(copy);
		return -ENOMEM;
	}
	p->keys = nk;
	p->keys[p->nkeys++] =
		(struct tb_scn_key){.name = copy, .section = p->cur_line, .line = p->line};
	return 0;
}

/* ---- sections ------------------------------------------------------------------------------ */

/* Trimmed section header of a line "[name]", or NULL. */
static bool header_of(const char *line, char *out, size_t len)
{
	const char *s = line, *e;

	while (isspace((unsigned char)*s))
		s++;
	if (*s != '[')
		return false;
	e = strchr(s, ']');
	if (!e || (size_t)(e - s - 1) >= len)
		return false;
	memcpy(out, s + 1, (size_t)(e - s - 1));
	out[e - s - 1] = '\0';
	return true;
}

static void *add_item(void **arr, size_t *n, size_t size)
{
	void *na;

	if (*n >= TB_SCN_MAX_SECTIONS)
		return NULL;
	na = realloc(*arr, (*n + 1) * size);
	if (!na)
		return NULL;
	*arr = na;
	memset((char *)na + *n * size, 0, size);
	return (char *)na + (*n)++ * size;
}

/* [workload NAME] or [tracer NAME] (wl), its name already checked: a new section of s. */
static void plugin_section(struct tb_scn_parse *p, bool wl, const char *name, int line)
{
	struct tb_scenario *s = p->s;
	char **namep;

	if (wl) {
		struct tb_scn_workload *w =
			add_item((void **)&s->workloads, &s->nworkloads, sizeof(*w));

		namep = w ? &w->name : NULL;
		if (w)
			w->line = line;
		p->cur_idx = (ssize_t)s->nworkloads - 1;
	} else {
		struct tb_scn_tracer *t = add_item((void **)&s->tracers, &s->ntracers, sizeof(*t));

		namep = t ? &t->name : NULL;
		if (t)
			t->line = line;
		p->cur_idx = (ssize_t)s->ntracers - 1;
	}
	if (!namep || !(*namep = strdup(name))) {
		tb_scn_perr(p, line, "too many sections or out of memory");
		return;
	}
	p->kind = wl ? TB_SCN_SEC_WORKLOAD : TB_SCN_SEC_TRACER;
}

/* [global] or [matrix]: one of each (have), its header's line kept. */
static void single_section(struct tb_scn_parse *p, const char *name, enum tb_scn_kind kind,
			   bool *have, int *linep, int line)
{
	if (*have)
		tb_scn_perr(p, line, "duplicate section [%s]", name);
	*have = true;
	*linep = line;
	p->kind = kind;
}

static void new_section(struct tb_scn_parse *p, const char *hdr, int line)
{
	struct tb_scenario *s = p->s;
	char kind[64] = "", name[192] = "";
	int n, end = 0;
	bool wl;

	free(p->last_key);
	p->last_key = NULL;
	snprintf(p->cur, sizeof(p->cur), "%s", hdr);
	p->cur_line = line;
	p->cur_idx = -1;
	p->kind = TB_SCN_SEC_BAD;
	n = sscanf(hdr, " %63s %191s %n", kind, name, &end);
	wl = !strcmp(kind, "workload");
	if (n == 2 && hdr[end]) {
		tb_scn_perr(p, line, "bad section [%s]: expected [%s NAME] with one name", hdr,
			    kind);
	} else if (n == 1 && !strcmp(kind, "global")) {
		single_section(p, kind, TB_SCN_SEC_GLOBAL, &p->have_global, &p->global_line, line);
	} else if (n == 1 && !strcmp(kind, "matrix")) {
		single_section(p, kind, TB_SCN_SEC_MATRIX, &p->have_matrix, &p->matrix_line, line);
	} else if (n == 1 && !strcmp(kind, "gate")) {
		p->kind = TB_SCN_SEC_GATE;
	} else if (n == 1 && !strcmp(kind, "limit")) {
		single_section(p, kind, TB_SCN_SEC_LIMIT, &p->have_limit, &p->limit_line, line);
		s->limit = true;
	} else if (n == 2 && (wl || !strcmp(kind, "tracer"))) {
		if (!tb_scn_valid_name(name))
			tb_scn_perr(p, line,
				    "bad %s name '%s' (letters, digits, - _ . + only, at most 64)",
				    kind, name);
		else if (wl ? tb_scenario_workload(s, name) >= 0 : tb_scenario_tracer(s, name) >= 0)
			tb_scn_perr(p, line, "duplicate section [%s %s]%s", kind, name,
				    !wl && !strcmp(name, "none")
					    ? " (the baseline 'none' is built in)"
					    : "");
		else
			plugin_section(p, wl, name, line);
	} else {
		tb_scn_perr(
			p, line,
			"unknown section [%s] (expected [global], [workload NAME], [tracer NAME], [matrix], [gate] or [limit])",
			hdr);
	}
}

/* ---- lines --------------------------------------------------------------------------------- */

/* A line of n >= num bytes: its value kept whole in long_vals, inih given "key= \001<index>";
 * a line that is not 'key = value' is refused and handed on as a comment. */
static char *long_line(struct tb_scn_parse *p, char *str, int num, size_t n)
{
	const char *eq = memchr(p->pos, '=', n), *v;
	size_t klen, vlen;
	char **nl_vals;

	if (!eq || (size_t)(eq - p->pos) > (size_t)num / 2 ||
	    !(nl_vals = realloc(p->long_vals, (p->nlong + 1) * sizeof(*nl_vals)))) {
		tb_scn_perr(p, p->line, "line longer than %d characters", num - 2);
		str[0] = ';'; /* hand inih a comment instead of a truncated line */
		str[1] = '\0';
		p->pos += n;
		return str;
	}
	p->long_vals = nl_vals;
	klen = (size_t)(eq - p->pos);
	v = eq + 1;
	vlen = n - klen - 1;
	while (vlen && (*v == ' ' || *v == '\t'))
		v++, vlen--;
	while (vlen && strchr(" \t\r\n", v[vlen - 1]))
		vlen--;
	p->long_vals[p->nlong] = strndup(v, vlen);
	snprintf(str, (size_t)num, "%.*s= \001%zu\n", (int)klen, p->pos, p->nlong);
	p->nlong++;
	p->pos += n;
	p->continuation = false;
	p->raw[0] = '\0';
	return str;
}

/* inih reader: hands out one line at a time and keeps count. */
static char *reader(char *str, int num, void *stream)
{
	struct tb_scn_parse *p = stream;
	const char *nl;
	size_t n;
	char hdr[256];

	if (!*p->pos)
		return NULL;
	nl = strchr(p->pos, '\n');
	n = nl ? (size_t)(nl - p->pos + 1) : strlen(p->pos);
	p->line++;
	if (n >= (size_t)num)
		return long_line(p, str, num, n);
	memcpy(str, p->pos, n);
	str[n] = '\0';
	snprintf(p->raw, sizeof(p->raw), "%s", str);
	p->pos += n;
	p->continuation = p->last_key && n > 0 && (str[0] == ' ' || str[0] == '\t') &&
			  str[strspn(str, " \t\r\n")] != '\0' && str[strspn(str, " \t")] != ';' &&
			  str[strspn(str, " \t")] != '#';
	if (header_of(str, hdr, sizeof(hdr)))
		new_section(p, hdr, p->line);
	return str;
}

/*
 * The inline comment inih cut from value on the current line (the text from its ';'), or NULL
 * when it cut none: the line as written holds more after the value than blanks.
 */
static const char *inline_cut(const struct tb_scn_parse *p, const char *value)
{
	const char *v = p->raw + strcspn(p->raw, "=:"), *c;
	size_t n = strlen(value);

	if (!p->raw[0] || p->continuation || !*v)
		return NULL;
	v += 1 + strspn(v + 1, " \t");
	if (strncmp(v, value, n))
		return NULL;
	c = v + n + strspn(v + n, " \t");
	return *c == ';' ? c : NULL;
}

/* Whether key name on this line goes to its section's reader; else it was said (or skipped). */
static bool key_wanted(struct tb_scn_parse *p, const char *name)
{
	if (p->continuation && p->last_key && !strcmp(p->last_key, name)) {
		/*
		 * inih hands an indented line to us as more of the previous key. Long values are
		 * taken whole instead (see reader()), so a continuation is refused, not guessed at.
		 */
		if (p->kind != TB_SCN_SEC_BAD)
			tb_scn_perr(
				p, p->line,
				"[%s]: continuation lines are not supported for key '%s'; put the value on one line",
				p->cur, name);
		return false;
	}
	free(p->last_key);
	p->last_key = strdup(name);
	if (p->kind == TB_SCN_SEC_NONE) {
		tb_scn_perr(p, p->line, "key '%s' outside any section", name);
		return false;
	}
	if (p->kind == TB_SCN_SEC_BAD)
		return false; /* already reported at the section header */
	switch (add_key(p, name)) {
	case 0:
		return true;
	case -EEXIST:
		tb_scn_perr(p, p->line, "[%s]: duplicate key '%s'", p->cur, name);
		return false;
	default:
		tb_scn_perr(p, p->line, "out of memory");
		return false;
	}
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
	static void (*const readers[])(struct tb_scn_parse *, const char *, const char *) = {
		[TB_SCN_SEC_GLOBAL] = tb_scn_global_key,
		[TB_SCN_SEC_WORKLOAD] = tb_scn_workload_key,
		[TB_SCN_SEC_TRACER] = tb_scn_tracer_key,
		[TB_SCN_SEC_MATRIX] = tb_scn_matrix_key,
		[TB_SCN_SEC_GATE] = tb_scn_gate_key,
		[TB_SCN_SEC_LIMIT] = tb_scn_limit_key,
	};
	struct tb_scn_parse *p = user;

	(void)section;
	p->cut = inline_cut(p, value);
	if (value[0] == '\001') {
		unsigned long k = strtoul(value + 1, NULL, 10);

		if (k < p->nlong && p->long_vals[k])
			value = p->long_vals[k];
	}
	if (!key_wanted(p, name))
		return 1;
	p->keys[p->nkeys - 1].value = strdup(value);
	if (!p->keys[p->nkeys - 1].value)
		tb_scn_perr(p, p->line, "out of memory");
	else if ((size_t)p->kind < TB_ARRAY_SIZE(readers) && readers[p->kind])
		readers[p->kind](p, name, value);
	return 1;
}

void tb_scn_read_ini(struct tb_scn_parse *p)
{
	int ret = ini_parse_stream(reader, p, handler, p);

	if (ret > 0 && !p->errors)
		tb_scn_perr(p, ret,
			    "syntax error (expected '[section]', 'key = value' or a comment)");
	else if (ret < 0)
		tb_scn_perr(p, 1, "cannot parse (out of memory)");
}

void tb_scn_parse_free(struct tb_scn_parse *p)
{
	size_t i;

	for (i = 0; i < p->nkeys; i++) {
		free(p->keys[i].name);
		free(p->keys[i].value);
	}
	free(p->keys);
	for (i = 0; i < p->nlong; i++)
		free(p->long_vals[i]);
	free(p->long_vals);
	free(p->last_key);
	tb_strlist_free(&p->mx_w);
	tb_strlist_free(&p->mx_t);
	tb_strlist_free(&p->mx_x);
}
