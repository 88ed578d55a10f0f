// SPDX-License-Identifier: GPL-2.0
/*
 * --anonymize (see anonymize.h for exactly what goes). Two passes over everything a result
 * holds: the first drops identifying fields and redacts command lines, collecting the host and
 * user names it saw; the second rewrites every remaining string (home paths, those names).
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/anonymize.h"
#include "core/tb.h"
#include "workloads/workload.h"
#include "tracers/tracer.h"

enum mode {
	M_SYSTEM, /* sysinfo: kernel command lines are filtered, not redacted */
	M_CONFIG, /* plugin configs, tracer extras, gate: command keys are redacted */
	M_TEXT,	  /* arrays of free text (warnings, foreign instrumentation) */
};

#define MAX_NAMES 256

struct anon {
	struct tb_strlist hosts, users; /* names to replace wherever they appear as words */
	int err;
};

static const char *const host_keys[] = {"hostname", "nodename", "fqdn", "domainname", NULL};
static const char *const user_keys[] = {"user", "username", "login", "logname", NULL};
static const char *const cmd_keys[] = {"command", "argv",	  "args",	  "cmd",
				       "cmdline", "command_line", "command-line", NULL};
/* Kernel parameters naming a disk, a network identity or the host. */
static const char *const kparam_keys[] = {"root",	 "resume",    "ip",
					  "nfsroot",	 "nfsaddrs",  "hostname",
					  "cryptdevice", "cryptroot", NULL};
/* Names too generic to scrub as words: replacing them would mangle unrelated text. */
static const char *const generic_names[] = {"root",	 "user",   "home", "none",
					    "localhost", "nobody", NULL};

static bool in_list(const char *const *list, const char *s)
{
	for (; *list; list++)
		if (!strcasecmp(*list, s))
			return true;
	return false;
}

static bool drop_key(const char *key)
{
	return in_list(host_keys, key) || in_list(user_keys, key) ||
	       !strcasecmp(key, "machine_id") || !strcasecmp(key, "machine-id") ||
	       strcasestr(key, "uuid") || strcasestr(key, "serial");
}

static bool word_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-';
}

/* Remember a name to scrub later (once; generic and tiny names are skipped). */
static void remember(struct anon *a, struct tb_strlist *l, const char *name, size_t len)
{
	char **nv, *dup;
	size_t i;

	/* The cap bounds the word scrub (names x string length) for crafted files; names past
	 * it still lose their home paths. */
	if (len < 3 || len > 255 || l->n >= MAX_NAMES)
		return;
	dup = strndup(name, len);
	if (!dup) {
		a->err = -ENOMEM;
		return;
	}
	if (in_list(generic_names, dup) || !strcmp(dup, TB_ANON_REDACTED))
		goto skip;
	for (i = 0; i < l->n; i++)
		if (!strcasecmp(l->v[i], dup))
			goto skip;
	nv = realloc(l->v, (l->n + 1) * sizeof(*nv));
	if (!nv) {
		a->err = -ENOMEM;
		goto skip;
	}
	l->v = nv;
	l->v[l->n++] = dup;
	return;
skip:
	free(dup);
}

/* Length of the user-name segment at s (after "/home/"). */
static size_t name_len(const char *s)
{
	size_t n = 0;

	while (s[n] && s[n] != '/' && !isspace((unsigned char)s[n]) && !strchr("'\":,;)]}", s[n]))
		n++;
	return n;
}

static bool path_start(const char *s, size_t i)
{
	return i == 0 || isspace((unsigned char)s[i - 1]) || strchr("='\":,;([{", s[i - 1]);
}

/* Pass 1 on a string: the user names in its home paths. */
static void collect_users(struct anon *a, const char *s)
{
	const char *p = s;

	while (s && (p = strstr(p, "/home/"))) {
		p += 6;
		remember(a, &a->users, p, name_len(p));
	}
}

/* Pass 2 on a string: a new string with home paths and remembered names replaced. */
static char *scrub(struct anon *a, const char *s)
{
	char *out = NULL;
	size_t len = 0, i = 0, k, n;
	FILE *f;

	f = open_memstream(&out, &len);
	if (!f)
		goto nomem;
	while (s[i]) {
		if (!strncmp(s + i, "/home/", 6) && (n = name_len(s + i + 6))) {
			fputs(path_start(s, i) ? "~" : "/home/<user>", f);
			i += 6 + n;
			continue;
		}
		if (!strncmp(s + i, "/root", 5) && path_start(s, i) &&
		    (!s[i + 5] || s[i + 5] == '/' || !word_char(s[i + 5]))) {
			fputc('~', f);
			i += 5;
			continue;
		}
		if (i == 0 || !word_char(s[i - 1])) {
			const struct tb_strlist *lists[] = {&a->hosts, &a->users};
			const char *repl[] = {"<host>", "<user>"};
			bool hit = false;

			for (k = 0; k < 2 && !hit; k++) {
				for (n = 0; n < lists[k]->n; n++) {
					size_t wl = strlen(lists[k]->v[n]);

					if (!strncasecmp(s + i, lists[k]->v[n], wl) &&
					    !word_char(s[i + wl])) {
						fputs(repl[k], f);
						i += wl;
						hit = true;
						break;
					}
				}
			}
			if (hit)
				continue;
		}
		fputc(s[i++], f);
	}
	if (fclose(f))
		goto nomem;
	return out;
nomem:
	free(out);
	a->err = -ENOMEM;
	return NULL;
}

/* Kernel command line without the parameters that identify the machine. */
static char *filter_kcmdline(struct anon *a, const char *s)
{
	char *copy = strdup(s), *tok, *save = NULL, *out = NULL, *eq;
	size_t len = 0;
	bool first = true;
	FILE *f = NULL;

	if (!copy || !(f = open_memstream(&out, &len)))
		goto nomem;
	for (tok = strtok_r(copy, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
		eq = strchr(tok, '=');
		if (eq)
			*eq = '\0';
		if (!first)
			fputc(' ', f);
		first = false;
		if (in_list(kparam_keys, tok) || strcasestr(tok, "uuid") ||
		    (eq && (strcasestr(eq + 1, "uuid") || strcasestr(eq + 1, "label="))))
			fprintf(f, "%s=%s", tok, TB_ANON_REDACTED);
		else if (eq)
			fprintf(f, "%s=%s", tok, eq + 1);
		else
			fputs(tok, f);
	}
	if (fclose(f))
		goto nomem;
	free(copy);
	return out;
nomem:
	free(copy);
	free(out);
	a->err = -ENOMEM;
	return NULL;
}

static void set_redacted(struct anon *a, json_t *obj, const char *key)
{
	if (json_object_set_new(obj, key, json_string(TB_ANON_REDACTED)))
		a->err = -ENOMEM;
}

/* A dropped field's value: a user name, or a host name (and its short form). */
static void remember_name(struct anon *a, const char *key, const char *val)
{
	const char *dot = strchr(val, '.');

	if (in_list(user_keys, key)) {
		remember(a, &a->users, val, strlen(val));
	} else if (in_list(host_keys, key)) {
		remember(a, &a->hosts, val, strlen(val));
		if (dot)
			remember(a, &a->hosts, val, (size_t)(dot - val));
	}
}

/* Pass 1: drop identifying keys (remembering their names), redact commands, filter cmdlines. */
static void strip(struct anon *a, json_t *j, enum mode mode)
{
	const char *key;
	json_t *v;
	void *tmp;
	size_t i;

	if (json_is_string(j)) {
		collect_users(a, json_string_value(j));
	} else if (json_is_array(j)) {
		json_array_foreach(j, i, v) strip(a, v, mode);
	} else if (json_is_object(j)) {
		json_object_foreach_safe(j, tmp, key, v)
		{
			if (drop_key(key)) {
				if (json_is_string(v))
					remember_name(a, key, json_string_value(v));
				json_object_del(j, key);
			} else if (mode == M_SYSTEM && strcasestr(key, "cmdline") &&
				   json_is_string(v)) {
				char *f = filter_kcmdline(a, json_string_value(v));

				if (f && json_string_set(v, f))
					a->err = -ENOMEM;
				free(f);
			} else if (mode != M_SYSTEM && in_list(cmd_keys, key)) {
				set_redacted(a, j, key);
			} else {
				strip(a, v, mode);
			}
		}
	}
}

/* Pass 2: rewrite every string left. */
static void rewrite(struct anon *a, json_t *j)
{
	const char *key;
	json_t *v;
	size_t i;

	if (json_is_string(j)) {
		char *s = scrub(a, json_string_value(j));

		if (s && strcmp(s, json_string_value(j)) && json_string_set(j, s))
			a->err = -ENOMEM;
		free(s);
	} else if (json_is_array(j)) {
		json_array_foreach(j, i, v) rewrite(a, v);
	} else if (json_is_object(j)) {
		json_object_foreach(j, key, v) rewrite(a, v);
	}
}

/*
 * Absolute paths a tracer reported (its log, its output file): where the run was written on
 * this machine. A path inside the run directory keeps its part from tracers/ on (what the
 * result's readers look for), another keeps only its file name, as "<path>/NAME".
 */
static void relative_paths(struct anon *a, json_t *j)
{
	const char *key, *s, *t;
	char buf[PATH_MAX + 16];
	json_t *v;
	size_t i;

	if (json_is_array(j)) {
		json_array_foreach(j, i, v) relative_paths(a, v);
		return;
	}
	json_object_foreach(j, key, v)
	{
		if (!json_is_string(v)) {
			relative_paths(a, v);
			continue;
		}
		s = json_string_value(v);
		if (s[0] != '/')
			continue;
		t = strstr(s, "/tracers/");
		if (t)
			snprintf(buf, sizeof(buf), "%s", t + 1);
		else
			snprintf(buf, sizeof(buf), "<path>/%s", strrchr(s, '/') + 1);
		if (json_string_set(v, buf))
			a->err = -ENOMEM;
	}
}

/* Work on a private copy: the loaded document may share these objects. */
static void own_copy(struct anon *a, json_t **j)
{
	json_t *copy;

	if (!*j)
		return;
	copy = json_deep_copy(*j);
	if (!copy) {
		a->err = -ENOMEM;
		return;
	}
	json_decref(*j);
	*j = copy;
}

/* A registered plugin's argv options are commands whatever their name. */
static void redact_argv_opts(struct anon *a, json_t *cfg, const struct tb_option *opts)
{
	for (; cfg && opts && opts->name; opts++)
		if (opts->type == TB_OPT_ARGV && json_object_get(cfg, opts->name))
			set_redacted(a, cfg, opts->name);
}

static void rewrite_str(struct anon *a, char **s)
{
	char *n;

	if (!*s)
		return;
	n = scrub(a, *s);
	if (n) {
		free(*s);
		*s = n;
	}
}

/* A BPF program's attach point can name a file (uprobe:/home/x/bin/app+0x10). */
static void rewrite_attach(struct anon *a, struct tb_cell *c)
{
	for (size_t k = 0; k < c->nbpf_progs; k++) {
		char *n = scrub(a, c->bpf_progs[k].attach);

		if (n)
			snprintf(c->bpf_progs[k].attach, sizeof(c->bpf_progs[k].attach), "%s", n);
		free(n);
	}
}

int tb_result_anonymize(struct tb_result *r, unsigned int flags)
{
	struct anon a = {.err = 0};
	char **strs[] = {&r->scenario_name, &r->scenario_path, &r->scenario_text, &r->command_line,
			 &r->stop_reason};
	size_t i, k;

	own_copy(&a, &r->system);
	own_copy(&a, &r->gate);
	own_copy(&a, &r->foreign);
	own_copy(&a, &r->shortfalls);
	own_copy(&a, &r->warnings);
	own_copy(&a, &r->unsupported);
	strip(&a, r->system, M_SYSTEM);
	strip(&a, r->gate, M_CONFIG);
	strip(&a, r->foreign, M_TEXT);
	strip(&a, r->shortfalls, M_TEXT);
	strip(&a, r->warnings, M_TEXT);
	strip(&a, r->unsupported, M_TEXT);
	for (k = 0; k < TB_ARRAY_SIZE(strs); k++)
		collect_users(&a, *strs[k]);
	for (i = 0; i < r->ncells; i++) {
		struct tb_cell *c = &r->cells[i];
		const struct tb_workload_ops *w =
			c->workload_type ? tb_workload_find(c->workload_type) : NULL;
		const struct tb_tracer_ops *t =
			c->tracer_type ? tb_tracer_find(c->tracer_type) : NULL;

		own_copy(&a, &c->workload_config);
		own_copy(&a, &c->tracer_config);
		own_copy(&a, &c->tracer_extra);
		strip(&a, c->workload_config, M_CONFIG);
		strip(&a, c->tracer_config, M_CONFIG);
		strip(&a, c->tracer_extra, M_CONFIG);
		relative_paths(&a, c->tracer_extra);
		redact_argv_opts(&a, c->workload_config, w ? w->opts : NULL);
		redact_argv_opts(&a, c->tracer_config, t ? t->opts : NULL);
		collect_users(&a, c->error);
	}

	free(r->scenario_path);
	r->scenario_path = NULL;
	if (r->command_line) {
		free(r->command_line);
		r->command_line = strdup(TB_ANON_REDACTED);
		if (!r->command_line)
			a.err = -ENOMEM;
	}
	if (!(flags & TB_ANON_KEEP_SCENARIO) && r->scenario_text) {
		free(r->scenario_text);
		r->scenario_text = strdup(TB_ANON_SCENARIO_NOTE);
		if (!r->scenario_text)
			a.err = -ENOMEM;
	}

	rewrite(&a, r->system);
	rewrite(&a, r->gate);
	rewrite(&a, r->foreign);
	rewrite(&a, r->shortfalls);
	rewrite(&a, r->warnings);
	rewrite(&a, r->unsupported);
	for (k = 0; k < TB_ARRAY_SIZE(strs); k++)
		rewrite_str(&a, strs[k]);
	for (i = 0; i < r->ncells; i++) {
		rewrite(&a, r->cells[i].workload_config);
		rewrite(&a, r->cells[i].tracer_config);
		rewrite(&a, r->cells[i].tracer_extra);
		rewrite_str(&a, &r->cells[i].error);
		rewrite_attach(&a, &r->cells[i]);
	}
	tb_strlist_free(&a.hosts);
	tb_strlist_free(&a.users);
	if (a.err)
		tb_err("anonymize: out of memory");
	return a.err;
}
