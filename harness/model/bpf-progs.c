// SPDX-License-Identifier: GPL-2.0
/* A cell's BPF programs in tracer_extra (bpf-progs.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tb.h"
#include "model/bpf-progs.h"
#include "model/json-util.h"
#include "model/measured.h"

static const char *const methods[] = {"fdinfo", "new-ids", "none", "mixed"};

/* A string field into buf (size bytes); "" when absent or null. */
static int text(const json_t *o, size_t i, const char *key, char *buf, size_t size, char *err,
		size_t len)
{
	const json_t *v = json_object_get(o, key);

	buf[0] = '\0';
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v)) {
		snprintf(err, len, "bpf_programs[%zu].%s: expected a string", i, key);
		return -EINVAL;
	}
	if (json_string_length(v) >= size) {
		snprintf(err, len, "bpf_programs[%zu].%s: longer than %zu bytes", i, key, size - 1);
		return -EINVAL;
	}
	snprintf(buf, size, "%s", json_string_value(v));
	return 0;
}

/* A count: an integer >= 0, or null / absent for unknown (-1). */
static int count(const json_t *o, size_t i, const char *key, int64_t *out, char *err, size_t len)
{
	const json_t *v = json_object_get(o, key);

	*out = -1;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < 0) {
		snprintf(err, len, "bpf_programs[%zu].%s: expected an integer >= 0 or null", i,
			 key);
		return -EINVAL;
	}
	*out = json_integer_value(v);
	return 0;
}

/* Entry i of a bpf_programs array, checked. */
static int parse(const json_t *o, size_t i, struct tb_cell_prog *p, char *err, size_t len)
{
	int64_t id = -1, n = 1;
	int ret;

	memset(p, 0, sizeof(*p));
	if (!json_is_object(o)) {
		snprintf(err, len, "bpf_programs[%zu]: expected an object", i);
		return -EINVAL;
	}
	if ((ret = count(o, i, "id", &id, err, len)) ||
	    (ret = text(o, i, "name", p->name, sizeof(p->name), err, len)) ||
	    (ret = text(o, i, "type", p->type, sizeof(p->type), err, len)) ||
	    (ret = text(o, i, "attach", p->attach, sizeof(p->attach), err, len)) ||
	    (ret = count(o, i, "runs", &p->runs, err, len)) ||
	    (ret = count(o, i, "run_time_ns", &p->run_time_ns, err, len)) ||
	    (json_object_get(o, "samples") && (ret = count(o, i, "samples", &n, err, len))))
		return ret;
	if (id < 1 || id > UINT32_MAX) {
		snprintf(err, len, "bpf_programs[%zu].id: expected a program id (1 to %u)", i,
			 UINT32_MAX);
		return -EINVAL;
	}
	if (n < 0 || n > TB_RESULT_MAX_SAMPLES) {
		snprintf(err, len, "bpf_programs[%zu].samples: out of range", i);
		return -EINVAL;
	}
	p->id = (uint32_t)id;
	p->samples = (unsigned int)n;
	return 0;
}

/* The bpf_programs array of extra (NULL when absent), checked for its type and length. */
static int programs_of(const json_t *extra, const json_t **arr, char *err, size_t len)
{
	*arr = extra ? json_object_get(extra, "bpf_programs") : NULL;
	if (!*arr)
		return 0;
	if (!json_is_array(*arr)) {
		snprintf(err, len, "bpf_programs: expected an array");
		return -EINVAL;
	}
	if (json_array_size(*arr) > TB_CELL_BPF_PROGS_MAX) {
		snprintf(err, len, "bpf_programs: more than %d programs", TB_CELL_BPF_PROGS_MAX);
		return -EINVAL;
	}
	return 0;
}

/* The method of extra into buf (size bytes): one of methods[], "" when absent. */
static int method_of(const json_t *extra, char *buf, size_t size, char *err, size_t len)
{
	const json_t *v = extra ? json_object_get(extra, "bpf_method") : NULL;

	buf[0] = '\0';
	if (!v || json_is_null(v))
		return 0;
	for (size_t k = 0; json_is_string(v) && k < TB_ARRAY_SIZE(methods); k++) {
		if (!strcmp(json_string_value(v), methods[k])) {
			snprintf(buf, size, "%s", methods[k]);
			return 0;
		}
	}
	snprintf(err, len, "bpf_method: expected one of fdinfo, new-ids, none, mixed");
	return -EINVAL;
}

static bool same(const struct tb_cell_prog *a, const struct tb_cell_prog *b)
{
	return !strcmp(a->name, b->name) && !strcmp(a->type, b->type) &&
	       !strcmp(a->attach, b->attach);
}

static int64_t add(int64_t a, int64_t b)
{
	return a < 0 || b < 0 ? -1 : a + b;
}

/* Join sample program p with the cell's; taken[] marks the cell's already joined this sample. */
static int join(struct tb_cell *c, const struct tb_cell_prog *p, bool *taken)
{
	struct tb_cell_prog *nv;
	size_t k;

	for (k = 0; k < c->nbpf_progs; k++) {
		if (taken[k] || !same(&c->bpf_progs[k], p))
			continue;
		taken[k] = true;
		c->bpf_progs[k].id = p->id;
		c->bpf_progs[k].runs = add(c->bpf_progs[k].runs, p->runs);
		c->bpf_progs[k].run_time_ns = add(c->bpf_progs[k].run_time_ns, p->run_time_ns);
		c->bpf_progs[k].samples++;
		return 0;
	}
	if (c->nbpf_progs >= TB_CELL_BPF_PROGS_MAX)
		return 0; /* keep the first ones: the total runs are in the samples anyway */
	nv = realloc(c->bpf_progs, (c->nbpf_progs + 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	c->bpf_progs = nv;
	taken[c->nbpf_progs] = true; /* a second equal one of this sample is another program */
	nv[c->nbpf_progs] = *p;
	nv[c->nbpf_progs++].samples = 1;
	return 0;
}

int tb_cell_bpf_merge(struct tb_cell *c, const json_t *extra, char *err, size_t len)
{
	char method[sizeof(c->bpf_method)];
	const json_t *arr, *v;
	struct tb_cell_prog p;
	bool *taken;
	size_t i;
	int ret;

	if ((ret = programs_of(extra, &arr, err, len)) ||
	    (ret = method_of(extra, method, sizeof(method), err, len)) || !arr)
		return ret;
	if (!c->bpf_method[0])
		snprintf(c->bpf_method, sizeof(c->bpf_method), "%s", method);
	else if (strcmp(c->bpf_method, method))
		snprintf(c->bpf_method, sizeof(c->bpf_method), "mixed");
	taken = calloc(c->nbpf_progs + json_array_size(arr) + 1, sizeof(*taken));
	if (!taken)
		return -ENOMEM;
	json_array_foreach(arr, i, v)
	{
		ret = parse(v, i, &p, err, len);
		if (!ret)
			ret = join(c, &p, taken);
		if (ret)
			break;
	}
	free(taken);
	return ret;
}

int tb_cell_bpf_load(struct tb_cell *c, const json_t *extra, char *err, size_t len)
{
	const json_t *arr, *v;
	size_t i;
	int ret;

	free(c->bpf_progs);
	c->bpf_progs = NULL;
	c->nbpf_progs = 0;
	if ((ret = programs_of(extra, &arr, err, len)) ||
	    (ret = method_of(extra, c->bpf_method, sizeof(c->bpf_method), err, len)) || !arr)
		return ret;
	c->bpf_progs = calloc(json_array_size(arr) + 1, sizeof(*c->bpf_progs));
	if (!c->bpf_progs)
		return -ENOMEM;
	json_array_foreach(arr, i, v)
	{
		ret = parse(v, i, &c->bpf_progs[i], err, len);
		if (ret)
			return ret;
		c->nbpf_progs = i + 1;
	}
	return 0;
}

static json_t *count_json(int64_t v)
{
	return v >= 0 ? json_integer(v) : json_null();
}

static json_t *programs_json(const struct tb_cell *c)
{
	json_t *arr = json_array();

	for (size_t i = 0; arr && i < c->nbpf_progs; i++) {
		const struct tb_cell_prog *p = &c->bpf_progs[i];
		json_t *o = json_pack("{sIssssss}", "id", (json_int_t)p->id, "name", p->name,
				      "type", p->type, "attach", p->attach);

		if (!o || json_array_append_new(arr, o)) {
			json_decref(arr);
			return NULL;
		}
		json_object_set_new(o, "runs", count_json(p->runs));
		json_object_set_new(o, "run_time_ns", count_json(p->run_time_ns));
		json_object_set_new(o, "ns_per_run", tb_json_num(tb_cell_bpf_ns_per_run(c, p)));
		json_object_set_new(o, "samples", json_integer(p->samples));
		json_object_set_new(o, "runs_per_op", tb_json_num(tb_cell_bpf_runs_per_op(c, p)));
		json_object_set_new(o, "overhead_share", tb_json_num(tb_cell_bpf_share(c, p)));
	}
	return arr;
}

json_t *tb_cell_extra_json(const struct tb_cell *c)
{
	json_t *o;

	if (!c->tracer_extra)
		return json_null();
	if (!c->bpf_method[0] && !c->nbpf_progs)
		return json_incref(c->tracer_extra);
	o = json_copy(c->tracer_extra);
	if (!o || json_object_set_new(o, "bpf_programs", programs_json(c)) ||
	    json_object_set_new(o, "bpf_method",
				json_string(c->bpf_method[0] ? c->bpf_method : "none"))) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* The core/events.h name of a program's attach point into out, or false when it has none. */
static bool attach_event(const char *attach, char *out, size_t len)
{
	static const char *const raw[] = {"raw_tracepoint:", "trace_raw_tp:", "tp_btf:"};
	const char *name = NULL;

	if (!strncmp(attach, "tracepoint:", 11) && strchr(attach + 11, ':') &&
	    !strchr(strchr(attach + 11, ':') + 1, ':'))
		return snprintf(out, len, "%s", attach + 11) < (int)len;
	for (size_t i = 0; i < TB_ARRAY_SIZE(raw) && !name; i++)
		if (!strncmp(attach, raw[i], strlen(raw[i])))
			name = attach + strlen(raw[i]);
	if (name && (!strcmp(name, "sys_enter") || !strcmp(name, "sys_exit")))
		return snprintf(out, len, "raw_syscalls:%s", name) < (int)len;
	if (name && !strncmp(name, "sched_", 6) && !strchr(name, ':'))
		return snprintf(out, len, "sched:%s", name) < (int)len;
	return false;
}

/*
 * A user probe's attach point, "uprobe:PATH+0xOFF" or "uretprobe:PATH+0xOFF", named by namer
 * into out: false when it is not one or namer cannot say what sits there.
 */
static bool attach_user(const char *attach, tb_elf_namer namer, char *out, size_t len)
{
	bool ret = !strncmp(attach, "uretprobe:", 10);
	const char *path = attach + (ret ? 10 : 7), *plus = strrchr(attach, '+');
	char file[sizeof(((struct tb_cell_prog *)0)->attach)];
	unsigned long long off;
	char *end;

	if (!namer || (!ret && strncmp(attach, "uprobe:", 7)) || !plus || plus <= path ||
	    strncmp(plus, "+0x", 3))
		return false;
	errno = 0;
	off = strtoull(plus + 3, &end, 16);
	if (errno || *end || end == plus + 3)
		return false;
	snprintf(file, sizeof(file), "%.*s", (int)(plus - path), path);
	return !namer(file, off, ret, out, len);
}

int tb_cell_bpf_hooks(const struct tb_cell *c, tb_elf_namer namer, struct tb_hooks *h)
{
	char ev[TB_EV_NAME_MAX];
	size_t i, sampling = 0;
	int ret;

	if (!c->nbpf_progs)
		return 0;
	for (i = 0; i < c->nbpf_progs; i++) {
		const struct tb_cell_prog *p = &c->bpf_progs[i];

		if (!strcmp(p->type, "perf_event"))
			sampling++;
		else if (!attach_event(p->attach, ev, sizeof(ev)) &&
			 !attach_user(p->attach, namer, ev, sizeof(ev)))
			return 0;
	}
	/* perf_event programs run on a sample of a perf event: mixed with hooks, no one unit */
	if (sampling && sampling != c->nbpf_progs)
		return 0;
	h->kind = sampling ? TB_HOOK_SAMPLING : TB_HOOK_EVENTS;
	h->scope = TB_SCOPE_SYSTEM;
	if (sampling)
		return tb_hooks_add(h, "perf:event", -1, false) ?: 1;
	for (i = 0; i < c->nbpf_progs; i++) {
		const char *at = c->bpf_progs[i].attach;

		if (!attach_event(at, ev, sizeof(ev)))
			attach_user(at, namer, ev, sizeof(ev));
		ret = tb_hooks_add(h, ev, -1, true);
		if (ret)
			return ret;
	}
	return 1;
}
