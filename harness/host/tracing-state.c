// SPDX-License-Identifier: GPL-2.0
/* The machine's tracing state: BPF programs, the snapshot and its diff, foreign instrumentation. */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracefs/tracefs.h>
#include <unistd.h>

#include "core/tb.h"
#include "host/armed.h"
#include "host/bpf-freeing.h"
#include "host/tracefs.h"
#include "host/tracing-state.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* ---- BPF programs ----------------------------------------------------------------------- */

int tb_bpf_prog_count(void)
{
	__u32 id = 0;
	int n = 0;

	while (!bpf_prog_get_next_id(id, &id))
		n++;
	if (errno != ENOENT)
		return -errno;
	return n;
}

/* Array of {id, type, name} of every loaded program; NULL on ENOMEM. */
static json_t *bpf_progs_json(void)
{
	json_t *arr = json_array();
	__u32 id = 0;

	while (arr && !bpf_prog_get_next_id(id, &id)) {
		struct bpf_prog_info info = {0};
		__u32 ilen = sizeof(info);
		const char *type = "unknown";
		int fd = bpf_prog_get_fd_by_id(id);

		if (fd < 0)
			continue; /* unloaded meanwhile */
		if (!bpf_obj_get_info_by_fd(fd, &info, &ilen)) {
			const char *t = libbpf_bpf_prog_type_str(info.type);

			if (t)
				type = t;
		}
		close(fd);
		json_array_append_new(arr, json_pack("{s:I, s:s, s:s}", "id", (json_int_t)id,
						     "type", type, "name", info.name));
	}
	return arr;
}

/* ---- tracing state ---------------------------------------------------------------------- */

/* The top-level file's content, trimmed; "error: <reason>" when unreadable. */
static json_t *top_file(const char *file)
{
	char *path = tracefs_get_tracing_file(file), *text = NULL;
	size_t n = 0;
	json_t *v;
	int ret;

	ret = path ? tb_read_file(path, &text, &n) : -ENOMEM;
	tracefs_put_tracing_file(path);
	if (ret) {
		char buf[128];

		snprintf(buf, sizeof(buf), "error: %s", strerror(-ret));
		return json_string(buf);
	}
	while (n && isspace((unsigned char)text[n - 1]))
		text[--n] = '\0';
	v = json_string(text);
	free(text);
	return v;
}

static json_t *lines_json(const char *file)
{
	char *text = tracefs_instance_file_read(NULL, file, NULL), *line, *save = NULL;
	json_t *arr = json_array();

	for (line = text ? strtok_r(text, "\n", &save) : NULL; line && arr;
	     line = strtok_r(NULL, "\n", &save))
		if (*line && *line != '#')
			json_array_append_new(arr, json_string(line));
	free(text);
	return arr;
}

static json_t *instances_json(void)
{
	char **names = tracefs_instances(NULL);
	json_t *arr = json_array();
	int i, n = names ? tracefs_list_size(names) : 0;

	if (n > 0)
		qsort(names, (size_t)n, sizeof(*names), cmp_str);
	for (i = 0; i < n && arr; i++)
		json_array_append_new(arr, json_string(names[i]));
	tracefs_list_free(names);
	return arr;
}

json_t *tb_tracing_state_capture(void)
{
	json_t *st;

	if (tb_tracefs_ensure())
		return NULL;
	st = json_object();
	if (!st)
		return NULL;
	if (json_object_set_new(st, "current_tracer", top_file("current_tracer")) ||
	    json_object_set_new(st, "tracing_on", top_file("tracing_on")) ||
	    json_object_set_new(st, "set_event", lines_json("set_event")) ||
	    json_object_set_new(st, "set_event_pid", top_file("set_event_pid")) ||
	    json_object_set_new(st, "set_ftrace_pid", top_file("set_ftrace_pid")) ||
	    json_object_set_new(st, "instances", instances_json()) ||
	    json_object_set_new(st, "dynamic_events", lines_json("dynamic_events")) ||
	    json_object_set_new(st, "bpf_progs", bpf_progs_json())) {
		json_decref(st);
		tb_err("tracing state: out of memory");
		return NULL;
	}
	return st;
}

static bool array_has_string(const json_t *arr, const char *s)
{
	size_t i;
	json_t *v;

	json_array_foreach(arr, i, v) if (json_is_string(v) &&
					  !strcmp(json_string_value(v), s)) return true;
	return false;
}

static const json_t *prog_by_id(const json_t *arr, json_int_t id)
{
	size_t i;
	json_t *v;

	json_array_foreach(arr, i,
			   v) if (json_integer_value(json_object_get(v, "id")) == id) return v;
	return NULL;
}

/* Does s pass the filter: it starts with prefix, or (in_line) holds it anywhere. */
static bool selected(const char *s, const char *prefix, bool in_line)
{
	if (!prefix)
		return true;
	return in_line ? strstr(s, prefix) != NULL : !strncmp(s, prefix, strlen(prefix));
}

static void diff_set(FILE *m, const char *key, const json_t *a, const json_t *b, const char *prefix,
		     bool in_line)
{
	size_t i;
	json_t *v;

	json_array_foreach(a, i, v)
	{
		const char *s = json_string_value(v);

		if (s && selected(s, prefix, in_line) && !array_has_string(b, s))
			fprintf(m, "%s: -%s\n", key, s);
	}
	json_array_foreach(b, i, v)
	{
		const char *s = json_string_value(v);

		if (s && selected(s, prefix, in_line) && !array_has_string(a, s))
			fprintf(m, "%s: +%s\n", key, s);
	}
}

static void diff_progs(FILE *m, const json_t *a, const json_t *b)
{
	const json_t *pairs[2][2] = {{a, b}, {b, a}};
	int k;

	for (k = 0; k < 2; k++) {
		size_t i;
		json_t *v;

		json_array_foreach(pairs[k][0], i, v)
		{
			json_int_t id = json_integer_value(json_object_get(v, "id"));

			if (!prog_by_id(pairs[k][1], id))
				fprintf(m, "bpf_progs: %c%lld (%s %s)\n", k ? '+' : '-',
					(long long)id,
					json_string_value(json_object_get(v, "type")),
					json_string_value(json_object_get(v, "name")));
		}
	}
}

char *tb_tracing_state_diff_filtered(const json_t *a, const json_t *b, const char *instance_prefix,
				     bool with_bpf)
{
	static const char *const scalars[] = {"current_tracer", "tracing_on", "set_event_pid",
					      "set_ftrace_pid"};
	char *buf = NULL, dyn[64];
	size_t len = 0, i;
	FILE *m = open_memstream(&buf, &len);
	pid_t owner;

	if (!m)
		return NULL;
	for (i = 0; i < TB_ARRAY_SIZE(scalars); i++) {
		const char *x = json_string_value(json_object_get(a, scalars[i]));
		const char *y = json_string_value(json_object_get(b, scalars[i]));

		if (!x || !y || strcmp(x, y))
			fprintf(m, "%s: '%s' -> '%s'\n", scalars[i], x ? x : "?", y ? y : "?");
	}
	diff_set(m, "set_event", json_object_get(a, "set_event"), json_object_get(b, "set_event"),
		 NULL, false);
	diff_set(m, "instances", json_object_get(a, "instances"), json_object_get(b, "instances"),
		 instance_prefix, false);
	/* Dynamic events are global: restricted to the same owner's (":tracebench/tb_<pid>_"). */
	owner = instance_prefix ? tb_tracefs_instance_owner(instance_prefix) : 0;
	if (owner)
		snprintf(dyn, sizeof(dyn), ":" TB_DYNEVENT_SYSTEM "/" TB_DYNEVENT_PREFIX "%d_",
			 (int)owner);
	diff_set(m, "dynamic_events", json_object_get(a, "dynamic_events"),
		 json_object_get(b, "dynamic_events"), owner ? dyn : NULL, true);
	if (with_bpf)
		diff_progs(m, json_object_get(a, "bpf_progs"), json_object_get(b, "bpf_progs"));
	if (fclose(m))
		return NULL;
	if (!len) {
		free(buf);
		return NULL;
	}
	return buf;
}

char *tb_tracing_state_diff(const json_t *a, const json_t *b)
{
	return tb_tracing_state_diff_filtered(a, b, NULL, true);
}

/* ---- foreign instrumentation ------------------------------------------------------------ */

static bool tracing_prog_type(const char *t)
{
	static const char *const types[] = {"tracepoint", "raw_tracepoint",
					    "kprobe",	  "perf_event",
					    "tracing",	  "raw_tracepoint_writable"};
	size_t i;

	for (i = 0; i < TB_ARRAY_SIZE(types); i++)
		if (!strcmp(t, types[i]))
			return true;
	return false;
}

static void foreign_add(json_t *arr, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void foreign_add(json_t *arr, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	json_array_append_new(arr, json_vsprintf(fmt, ap));
	va_end(ap);
}

/* Program id is one a tracebench run closed and the kernel has not freed yet. */
static bool freeing(json_int_t id)
{
	struct tb_bpf_obj o = {0};
	int fd = bpf_prog_get_fd_by_id((__u32)id);
	bool ours;

	if (fd < 0)
		return true; /* freed since the snapshot */
	ours = !tb_bpf_obj_of_prog_fd(fd, &o) && tb_bpf_freeing_has(o.id, o.load_time);
	close(fd);
	return ours;
}

/*
 * Instance name, not ours, into arr when it instruments: an event enabled or a tracer set. An
 * idle one (left behind, or set up and not yet started) costs the workload nothing, and
 * refusing a run for it (run exits 3 on foreign instrumentation) would block every run.
 */
static void foreign_instance(json_t *arr, const char *name)
{
	char file[512], *text, *tracer;
	int nev = 0;

	snprintf(file, sizeof(file), "instances/%s/set_event", name);
	text = tracefs_instance_file_read(NULL, file, NULL);
	for (char *p = text; p && *p; p++)
		nev += *p == '\n';
	free(text);
	snprintf(file, sizeof(file), "instances/%s/current_tracer", name);
	tracer = tracefs_instance_file_read(NULL, file, NULL);
	if (tracer)
		tracer[strcspn(tracer, "\n")] = '\0';
	if (nev || (tracer && *tracer && strcmp(tracer, "nop")))
		foreign_add(arr, "tracefs instance '%s' (%d events enabled%s%s)", name, nev,
			    tracer && *tracer && strcmp(tracer, "nop") ? ", tracer " : "",
			    tracer && *tracer && strcmp(tracer, "nop") ? tracer : "");
	free(tracer);
}

json_t *tb_foreign_instrumentation(void)
{
	json_t *arr = json_array(), *st, *v;
	char own[64];
	size_t i;

	if (!arr)
		return NULL;
	st = tb_tracing_state_capture();
	if (!st)
		return arr;
	v = json_object_get(st, "set_event");
	if (json_array_size(v))
		foreign_add(arr, "%zu top-level events enabled (first: %s)", json_array_size(v),
			    json_string_value(json_array_get(v, 0)));
	if (strcmp(json_string_value(json_object_get(st, "current_tracer")), "nop"))
		foreign_add(arr, "top-level current_tracer is '%s'",
			    json_string_value(json_object_get(st, "current_tracer")));
	snprintf(own, sizeof(own), TB_INSTANCE_PREFIX "%d-", (int)getpid());
	json_array_foreach(json_object_get(st, "instances"), i, v)
	{
		const char *name = json_string_value(v);

		if (strncmp(name, own, strlen(own)))
			foreign_instance(arr, name);
	}
	json_array_foreach(json_object_get(st, "bpf_progs"), i, v)
	{
		const char *type = json_string_value(json_object_get(v, "type"));
		json_int_t id = json_integer_value(json_object_get(v, "id"));
		char ids[32];

		snprintf(ids, sizeof(ids), "%lld", (long long)id);
		if (!tracing_prog_type(type) || tb_armed_has(TB_ARMED_BPF_PROG, ids) || freeing(id))
			continue;
		foreign_add(arr, "BPF program %lld '%s' (%s)", (long long)id,
			    json_string_value(json_object_get(v, "name")), type);
	}
	json_decref(st);
	return arr;
}
