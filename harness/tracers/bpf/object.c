// SPDX-License-Identifier: GPL-2.0
/*
 * The bpf tracer with a user's own object (program = object, the file given by `object`):
 * its programs chosen by `programs`, the pid knob set in its .rodata, every program attached by
 * its section type, its runs counted as its events.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "core/tb.h"
#include "tracers/bpf/bpf-tracer.h"

/* ---- opening ----------------------------------------------------------------------------- */

/* Every name in cfg->programs exists in obj; else "programs: ..." in err. */
static int check_program_names(struct bpf_object *obj, const struct bpf_cfg *cfg, char *err,
			       size_t len)
{
	size_t i;

	for (i = 0; i < cfg->programs.n; i++) {
		if (bpf_object__find_program_by_name(obj, cfg->programs.v[i]))
			continue;
		snprintf(err, len, "programs: no program '%s' in '%s'", cfg->programs.v[i],
			 cfg->object);
		return -EINVAL;
	}
	return 0;
}

int tb_bpftr_object_validate(const struct bpf_cfg *cfg, char *err, size_t len)
{
	struct bpf_object *obj;
	int r;

	if (!cfg->object || !*cfg->object) {
		snprintf(err, len, "object: required with program = object");
		return -EINVAL;
	}
	if (access(cfg->object, R_OK)) {
		snprintf(err, len, "object: cannot read '%s': %s", cfg->object, strerror(errno));
		return -EINVAL;
	}
	tb_bpftr_log_init();
	/* Opening parses the ELF only: nothing reaches the kernel. */
	obj = bpf_object__open_file(cfg->object, NULL);
	if (!obj) {
		snprintf(err, len, "object: '%s' is not a usable BPF object: %s", cfg->object,
			 strerror(errno));
		return -EINVAL;
	}
	r = check_program_names(obj, cfg, err, len);
	bpf_object__close(obj);
	return r;
}

/* Set a `const volatile __u32 <name>` of a user's object's .rodata; -ENOENT when absent. */
static int set_rodata_u32(struct bpf_object *obj, const char *name, __u32 val)
{
	const struct btf_var_secinfo *vs;
	const struct btf_type *sec, *var;
	struct bpf_map *map = NULL, *m;
	struct btf *btf = bpf_object__btf(obj);
	const void *init;
	size_t sz;
	void *copy;
	int id, i, err = -ENOENT;

	for (m = bpf_object__next_map(obj, NULL); m; m = bpf_object__next_map(obj, m)) {
		const char *n = bpf_map__name(m);
		size_t l = strlen(n);

		/* Internal maps are named "<obj prefix>.rodata". */
		if (bpf_map__is_internal(m) && l >= 7 && !strcmp(n + l - 7, ".rodata"))
			map = m;
	}
	if (!btf || !map)
		return -ENOENT;
	id = btf__find_by_name_kind(btf, ".rodata", BTF_KIND_DATASEC);
	if (id < 0)
		return -ENOENT;
	sec = btf__type_by_id(btf, id);
	vs = btf_var_secinfos(sec);
	for (i = 0; i < btf_vlen(sec); i++, vs++) {
		var = btf__type_by_id(btf, vs->type);
		if (strcmp(btf__name_by_offset(btf, var->name_off), name))
			continue;
		if (vs->size != sizeof(__u32))
			return -EINVAL;
		init = bpf_map__initial_value(map, &sz);
		if (!init || vs->offset + sizeof(__u32) > sz)
			return -EINVAL;
		copy = malloc(sz);
		if (!copy)
			return -ENOMEM;
		memcpy(copy, init, sz);
		memcpy((char *)copy + vs->offset, &val, sizeof(val));
		err = bpf_map__set_initial_value(map, copy, sz);
		free(copy);
		return err;
	}
	return err;
}

int tb_bpftr_object_open(struct tb_tracer *t, struct bpf_priv *p, const struct bpf_cfg *cfg,
			 __u32 tgid)
{
	struct bpf_program *prog;
	char err[256];
	size_t i;
	bool want;
	int r;

	p->obj = bpf_object__open_file(cfg->object, NULL);
	if (!p->obj) {
		r = -errno;
		tb_err("%s: object: cannot open '%s': %s", t->name, cfg->object, strerror(-r));
		return r;
	}
	r = check_program_names(p->obj, cfg, err, sizeof(err));
	if (r) {
		tb_err("%s: %s", t->name, err);
		return r;
	}
	for (prog = bpf_object__next_program(p->obj, NULL); prog;
	     prog = bpf_object__next_program(p->obj, prog)) {
		want = !cfg->programs.n;
		for (i = 0; i < cfg->programs.n; i++)
			if (!strcmp(cfg->programs.v[i], bpf_program__name(prog)))
				want = true;
		bpf_program__set_autoload(prog, want);
	}
	if (tgid) {
		r = set_rodata_u32(p->obj, cfg->rodata_pid, tgid);
		if (r == -ENOENT)
			tb_info("%s: '%s' has no rodata '%s': no pid filter", t->name, cfg->object,
				cfg->rodata_pid);
		else if (r) {
			tb_err("%s: rodata-pid: cannot set '%s' in '%s': %s", t->name,
			       cfg->rodata_pid, cfg->object, strerror(-r));
			return r;
		}
	}
	return 0;
}

/* ---- hooks ------------------------------------------------------------------------------- */

/*
 * The hook named by a program's section: "tracepoint/SYS/EV" (or "tp/") is SYS:EV, a raw
 * tracepoint "tp_btf/EV" or "raw_tp/EV" is raw_syscalls:EV for sys_enter and sys_exit and
 * sched:EV for the scheduler's; anything else keeps its section name (no workload counts it).
 */
static void section_hook(const char *sec, char *name, size_t len)
{
	const char *slash = strchr(sec, '/'), *ev = slash ? slash + 1 : sec;
	size_t plen = slash ? (size_t)(slash - sec) : 0;

	if (slash &&
	    ((plen == 10 && !strncmp(sec, "tracepoint", 10)) ||
	     (plen == 2 && !strncmp(sec, "tp", 2))) &&
	    strchr(ev, '/')) {
		snprintf(name, len, "%.*s:%s", (int)(strchr(ev, '/') - ev), ev,
			 strchr(ev, '/') + 1);
	} else if (slash && ((plen == 6 && !strncmp(sec, "tp_btf", 6)) ||
			     (plen == 6 && !strncmp(sec, "raw_tp", 6)) ||
			     (plen == 14 && !strncmp(sec, "raw_tracepoint", 14)))) {
		snprintf(name, len, "%s:%s",
			 !strcmp(ev, "sys_enter") || !strcmp(ev, "sys_exit") ? "raw_syscalls"
			 : !strncmp(ev, "sched_", 6)			     ? "sched"
									     : "raw",
			 ev);
	} else {
		snprintf(name, len, "%s", sec);
	}
}

/* A user's object: every autoloaded program's section is a hook, and its runs its events. */
int tb_bpftr_object_hooks(const struct bpf_cfg *cfg, struct tb_hooks *h)
{
	struct bpf_object *obj = bpf_object__open_file(cfg->object, NULL);
	struct bpf_program *prog;
	char name[TB_EV_NAME_MAX];
	size_t i;
	bool want;
	int ret = 0;

	if (!obj)
		return -errno;
	h->scope = TB_SCOPE_SYSTEM; /* run_cnt counts every process's runs */
	for (prog = bpf_object__next_program(obj, NULL); prog && !ret;
	     prog = bpf_object__next_program(obj, prog)) {
		want = !cfg->programs.n;
		for (i = 0; i < cfg->programs.n; i++)
			want |= !strcmp(cfg->programs.v[i], bpf_program__name(prog));
		if (!want)
			continue;
		section_hook(bpf_program__section_name(prog), name, sizeof(name));
		ret = tb_hooks_add(h, name, -1, true);
	}
	bpf_object__close(obj);
	return ret;
}
