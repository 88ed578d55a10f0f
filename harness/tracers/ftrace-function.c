// SPDX-License-Identifier: GPL-2.0
/*
 * The ftrace function tracer (libtracefs) in a private instance made fresh for every sample.
 *
 * filter:  functions to trace (set_ftrace_filter; globs like "vfs_*" allowed); empty: every
 *          traceable function, which is the costliest configuration there is.
 * pid-filter = workload: set_ftrace_pid holds the workload's threads, function-fork follows
 *          threads and children created later.
 * consumer, buffer-size, overwrite: as for ftrace-events.
 *
 * Some kernels list "function" in available_tracers yet refuse it (EPERM even for root, e.g.
 * under lockdown); supported() finds out by trying in a scratch instance.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/tb.h"
#include "host/tracefs.h"
#include "tracers/ftrace-common.h"
#include "tracers/tracer.h"

struct cfg {
	struct tb_strlist filter;
	struct tb_ftrace_cfg ft;
};

struct priv {
	struct tb_ftrace ft;
	bool live;
};

static const struct tb_option fn_opts[] = {
	{"filter", TB_OPT_LIST, offsetof(struct cfg, filter), NULL,
	 "functions to trace (set_ftrace_filter, globs allowed); empty: all functions"},
	{"pid-filter", TB_OPT_CHOICE, offsetof(struct cfg, ft.pid_filter), "workload",
	 "workload: only the workload's threads (set_ftrace_pid + function-fork); none: all", 0, 0,
	 tb_ftrace_pid_choices},
	TB_FTRACE_BUFFER_OPTS(struct cfg, ft),
	TB_OPT_END,
};

static int fn_supported(char *why, size_t len)
{
	return tb_ftrace_function_probe(why, len);
}

static int fn_validate(const void *vcfg, char *err, size_t len)
{
	const struct cfg *c = vcfg;
	char msg[256], *text;

	text = tb_ftrace_filter_compose(&c->filter, msg, sizeof(msg));
	if (!text) {
		snprintf(err, len, "filter: %s", msg);
		return -EINVAL;
	}
	free(text);
	return 0;
}

static int write_file(struct tb_tracer *t, const char *file, const char *val)
{
	struct priv *p = t->priv;
	int ret;

	if (tracefs_instance_file_write(p->ft.inst, file, val) >= 0)
		return 0;
	ret = errno ? -errno : -EIO;
	tb_err("[tracer %s] writing '%s' to %s: %s", t->name, val, file, strerror(-ret));
	return ret;
}

static void fn_teardown(struct tb_tracer *t);

static int fn_setup(struct tb_tracer *t)
{
	const struct cfg *c = t->cfg;
	char why[256], *text = NULL;
	struct priv *p;
	int ret;

	/* Refuse before creating anything, with the reason the probe found. */
	ret = tb_ftrace_function_probe(why, sizeof(why));
	if (ret) {
		tb_err("[tracer %s] unsupported here: %s", t->name, why);
		return ret;
	}
	text = tb_ftrace_filter_compose(&c->filter, why, sizeof(why));
	if (!text) {
		tb_err("[tracer %s] filter: %s", t->name, why);
		return -EINVAL;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		free(text);
		return -ENOMEM;
	}
	t->priv = p;
	ret = tb_ftrace_open(&p->ft, t, &c->ft, TRACEFS_OPTION_FUNCTION_FORK, "set_ftrace_pid");
	if (ret)
		goto err;
	if (*text) {
		ret = write_file(t, "set_ftrace_filter", text);
		if (ret)
			goto err;
	}
	free(text);
	return 0;
err:
	free(text);
	fn_teardown(t);
	return ret;
}

static int fn_start(struct tb_tracer *t)
{
	struct priv *p = t->priv;
	int ret;

	ret = tb_ftrace_consumer_start(&p->ft.cons, p->ft.inst, t);
	if (ret)
		return ret;
	p->live = true;
	ret = write_file(t, "current_tracer", "function");
	if (ret)
		return ret;
	return write_file(t, "tracing_on", "1");
}

static int fn_stop(struct tb_tracer *t)
{
	struct priv *p = t->priv;
	int ret = 0, r;

	if (!p || !p->ft.inst)
		return 0;
	if (p->live) {
		ret = write_file(t, "tracing_on", "0");
		r = write_file(t, "current_tracer", "nop");
		if (r && !ret)
			ret = r;
		p->live = false;
	}
	r = tb_ftrace_consumer_stop(&p->ft.cons);
	if (r && !ret)
		ret = r;
	return ret;
}

static int fn_collect(struct tb_tracer *t, struct tb_tracer_stats *st)
{
	const struct cfg *c = t->cfg;
	struct priv *p = t->priv;

	if (!p)
		return -EINVAL;
	return tb_ftrace_collect(&p->ft, st, "functions", (int64_t)c->filter.n);
}

static void fn_teardown(struct tb_tracer *t)
{
	struct priv *p = t->priv;

	if (!p)
		return;
	tb_ftrace_close(&p->ft);
	free(p);
	t->priv = NULL;
}

static uint64_t fn_est_write_bytes(const struct tb_tracer *t, bool *kept)
{
	return tb_ftrace_est_write_bytes(t, &((const struct cfg *)t->cfg)->ft, kept);
}

static uint64_t fn_est_cost_ns(const void *cfg)
{
	return tb_ftrace_est_cost_ns(&((const struct cfg *)cfg)->ft);
}

/*
 * Every call of a filtered kernel function runs the tracer: per event, but no workload table
 * says how many calls an op makes, so the proof can only check that something was recorded.
 */
static int fn_hooks(const void *vcfg, struct tb_hooks *h)
{
	const struct cfg *c = vcfg;
	char name[TB_EV_NAME_MAX];
	size_t i;
	int ret = 0;

	h->kind = TB_HOOK_EVENTS;
	h->scope = tb_ftrace_scope(&c->ft);
	for (i = 0; !ret && i < c->filter.n; i++) {
		snprintf(name, sizeof(name), "function:%s", c->filter.v[i]);
		ret = tb_hooks_add(h, name, -1, true);
	}
	return ret ? ret : (c->filter.n ? 0 : tb_hooks_add(h, "function:*", -1, true));
}

const struct tb_tracer_ops tb_tracer_ftrace_function = {
	.name = "ftrace-function",
	.help = "ftrace function tracer with a filter list, in a private tracefs instance",
	.opts = fn_opts,
	.cfg_size = sizeof(struct cfg),
	.supported = fn_supported,
	.validate = fn_validate,
	.setup = fn_setup,
	.start = fn_start,
	.stop = fn_stop,
	.collect = fn_collect,
	.teardown = fn_teardown,
	.est_cost_ns = fn_est_cost_ns,
	.est_write_bytes = fn_est_write_bytes,
	.hooks = fn_hooks,
	.lost_remedy = tb_ftrace_lost_remedy,
	.buffer_key = tb_ftrace_buffer_key,
};
