// SPDX-License-Identifier: GPL-2.0
/* The documented figures (doc/figures.json) against this machine: figures.h. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/tb.h"
#include "core/utf8.h"
#include "model/figures.h"
#include "model/system.h"

#define FIGURES_MAX (4u << 20) /* the file is text the documents quote: a few hundred kB */
#define PARENTS_MAX 6	       /* scenarios/validation/x.ini lies two below the tree's root */

static const char *str_at(const json_t *o, const char *a, const char *b)
{
	const json_t *v = json_object_get(o, a);

	return json_string_value(b ? json_object_get(v, b) : v);
}

/* Append "; " and the formatted text to what (len bytes, always terminated). */
static void __attribute__((format(printf, 3, 4))) add(char *what, size_t len, const char *fmt, ...)
{
	size_t n = strlen(what);
	va_list ap;

	if (n && n + 2 < len) {
		memcpy(what + n, "; ", 3);
		n += 2;
	}
	if (n + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(what + n, len - n, fmt, ap);
	va_end(ap);
}

/* A documented release "6.18" or "6.18.44" names "6.18.44-fc-v1045"; "6.1" does not name "6.18". */
static bool release_matches(const char *doc, const char *here)
{
	size_t n = strlen(doc);

	return here && !strncmp(doc, here, n) && (here[n] < '0' || here[n] > '9');
}

int tb_figures_machine_diff(const json_t *documented, const json_t *system, char *what, size_t len)
{
	static const char *const cpu[][2] = {
		{"vendor", "CPU vendor"},
		{"model", "CPU model"},
		{"family", "CPU family"},
		{"model_number", "CPU model number"},
	};
	const char *d, *s;
	char hash[17], desc[256];

	if (len)
		what[0] = '\0';
	if (!json_is_object(documented))
		return -EINVAL;
	d = str_at(documented, "hardware_class", NULL);
	if (d && !tb_system_hardware_class(system, hash, desc, sizeof(desc)) && strcmp(d, hash))
		add(what, len, "hardware class %s, here %s (%s)", d, hash, desc);
	for (size_t i = 0; i < TB_ARRAY_SIZE(cpu); i++) {
		d = str_at(documented, "cpu", cpu[i][0]);
		s = str_at(system, "cpu", cpu[i][0]);
		if (d && (!s || strcmp(d, s)))
			add(what, len, "%s %s, here %s", cpu[i][1], d, s ? s : "unknown");
	}
	d = str_at(documented, "kernel", NULL);
	s = str_at(system, "kernel", "release");
	if (d && !release_matches(d, s))
		add(what, len, "kernel %s, here %s", d, s ? s : "unknown");
	return len && what[0] ? 1 : 0;
}

/* The figures file of the tree scenario (a resolved path) lies in: its root into root. */
static int find_file(const char *scenario, char root[PATH_MAX], char file[PATH_MAX])
{
	char *slash;

	snprintf(root, PATH_MAX, "%s", scenario);
	for (int i = 0; i < PARENTS_MAX && (slash = strrchr(root, '/')); i++) {
		*slash = '\0';
		if (snprintf(file, PATH_MAX, "%s/doc/figures.json", root) < PATH_MAX &&
		    !access(file, F_OK))
			return 0;
	}
	return -ENOENT;
}

/* Does one of the section's scenarios (paths from root) name the file scenario? */
static bool documents(const json_t *sec, const char *root, const char *scenario)
{
	const json_t *v;
	char p[PATH_MAX], real[PATH_MAX];
	size_t i;

	json_array_foreach(json_object_get(sec, "scenarios"), i, v)
	{
		if (json_is_string(v) &&
		    snprintf(p, sizeof(p), "%s/%s", root, json_string_value(v)) < (int)sizeof(p) &&
		    realpath(p, real) && !strcmp(real, scenario))
			return true;
	}
	return false;
}

/* One section's part of the note: "the 4 figures accounting.* (measured DATE: WHAT)". */
static void note_section(char *parts, size_t len, const char *name, const json_t *sec,
			 const json_t *system)
{
	const json_t *m = json_object_get(sec, "machine");
	size_t n = json_object_size(json_object_get(sec, "figures"));
	const char *date = str_at(m, "date", NULL);
	char what[768];

	if (n && tb_figures_machine_diff(m, system, what, sizeof(what)) == 1)
		add(parts, len, "the %zu figure%s %s.* (measured %s%s: %s)", n, n == 1 ? "" : "s",
		    name, date ? "on " : "on a date not recorded", date ? date : "", what);
}

int tb_figures_note(const char *scenario, const json_t *system, char **note)
{
	char real[PATH_MAX], root[PATH_MAX], file[PATH_MAX], parts[2048] = "", *text = NULL;
	char *line = NULL;
	json_error_t jerr;
	json_t *doc = NULL, *sec;
	const char *name;
	size_t len;
	int ret;

	*note = NULL;
	if (!realpath(scenario, real) || find_file(real, root, file))
		return 0;
	ret = tb_read_regular(file, FIGURES_MAX, &text, &len);
	if (ret) {
		tb_warn("%s: %s: the documented figures are not compared with this machine", file,
			ret == -EFBIG ? "too large" : tb_input_strerror(-ret));
		ret = ret == -ENOMEM ? ret : -EINVAL;
		goto out;
	}
	doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!doc || !json_is_object(json_object_get(doc, "sections"))) {
		tb_warn("%s:%d: %s: the documented figures are not compared with this machine",
			file, doc ? 1 : jerr.line, doc ? "no sections object" : jerr.text);
		ret = -EINVAL;
		goto out;
	}
	ret = 0;
	json_object_foreach(json_object_get(doc, "sections"), name, sec)
	{
		if (json_is_object(sec) && documents(sec, root, real))
			note_section(parts, sizeof(parts), name, sec, system);
	}
	if (!parts[0])
		goto out;
	if (asprintf(&line, "%s documents this scenario from another machine: %s do not apply here",
		     file, parts) < 0) {
		line = NULL;
		ret = -ENOMEM;
		goto out;
	}
	/* names and values are the file's: no control character reaches the terminal */
	*note = tb_escape_cut(line, false, 4096);
	ret = *note ? 0 : -ENOMEM;
out:
	free(line);
	json_decref(doc);
	free(text);
	return ret;
}
