// SPDX-License-Identifier: GPL-2.0
/* The counting pass of a counted workload (count.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/events.h"
#include "core/tb.h"
#include "host/cgroup-count.h"
#include "host/tracefs.h"
#include "runner/child.h"
#include "runner/count.h"
#include "tracers/tracer.h"

/* The bracket's state: what is counted, and where. */
struct pass {
	const char *wl;
	char name[TB_OP_EVENTS_MAX][TB_EV_NAME_MAX];
	const char *names[TB_OP_EVENTS_MAX];
	size_t n;
	struct tb_cgroup_count *cc;
	char why[512];
};

static int pass_ready(void *ctx, pid_t target)
{
	struct pass *ps = ctx;

	return tb_cgroup_count_open(target, ps->names, ps->n, &ps->cc, ps->why, sizeof(ps->why));
}

static int pass_begin(void *ctx)
{
	struct pass *ps = ctx;
	int ret = tb_cgroup_count_enable(ps->cc, 1);

	if (ret)
		snprintf(ps->why, sizeof(ps->why), "enabling the counters: %s", strerror(-ret));
	return ret;
}

static void pass_end(void *ctx)
{
	tb_cgroup_count_enable(((struct pass *)ctx)->cc, 0);
}

/* A name the kernel can count: a tracepoint hooked whole (not a raw_syscalls hook of one nr). */
static bool countable(const struct tb_hook *hk)
{
	char err[256];
	uint64_t id;

	if (!hk->counted || (!strncmp(hk->name, "raw_syscalls:", 13) && hk->nr >= 0))
		return false;
	return !tb_tracefs_event_id(hk->name, &id, err, sizeof(err));
}

/* Add name to ps's list once; a list full (more than an op's table holds) keeps the first. */
static void add_name(struct pass *ps, const char *name)
{
	for (size_t i = 0; i < ps->n; i++)
		if (!strcmp(ps->names[i], name))
			return;
	if (ps->n == TB_OP_EVENTS_MAX)
		return;
	snprintf(ps->name[ps->n], sizeof(ps->name[0]), "%s", name);
	ps->names[ps->n] = ps->name[ps->n];
	ps->n++;
}

/* The tracepoints the traced cells of workload wi hook, each once, into ps. */
static void hooked(struct tb_runner *rn, size_t wi, struct pass *ps)
{
	struct tb_plan *p = rn->plan;

	for (size_t i = 0; i < p->ncells; i++) {
		const struct tb_scn_tracer *t = &p->s->tracers[p->cells[i].tr];
		struct tb_hooks h;

		if (p->cells[i].wl != wi || rn->r->cells[p->cells[i].cell].baseline ||
		    !t->ops->hooks)
			continue;
		tb_hooks_init(&h);
		if (!t->ops->hooks(t->cfg, &h))
			for (size_t j = 0; j < h.n; j++)
				if (countable(&h.h[j]))
					add_name(ps, h.h[j].name);
		tb_hooks_free(&h);
	}
}

/* The counts per op into a new table, said in one line; NULL when out of memory. */
static struct tb_op_events *per_op(const struct pass *ps, uint64_t ops)
{
	struct tb_op_events *ev = malloc(sizeof(*ev));
	char line[1024] = "";
	size_t used = 0;

	if (!ev)
		return NULL;
	tb_op_events_init(ev);
	for (size_t i = 0; i < ps->n; i++) {
		int64_t v = tb_cgroup_count_read(ps->cc, i);
		double per = (double)v / (double)ops;

		if (v < 0) {
			tb_warn("[workload %s]: counting pass: reading %s: %s", ps->wl,
				ps->names[i], strerror((int)-v));
			continue;
		}
		tb_op_events_add(ev, ps->names[i], per, TB_EV_SELF, TB_EV_COUNTED | TB_EV_APPROX);
		if (used < sizeof(line))
			used += (size_t)snprintf(line + used, sizeof(line) - used, "%s%s %.3g",
						 used ? ", " : "", ps->names[i], per);
	}
	tb_info("[workload %s]: counting pass over %llu ops, per op: %s", ps->wl,
		(unsigned long long)ops, line);
	return ev;
}

int tb_runner_count(struct tb_runner *rn, size_t wi)
{
	struct tb_plan *p = rn->plan;
	const struct tb_scn_workload *w = &p->s->workloads[wi];
	struct pass *ps = calloc(1, sizeof(*ps));
	struct tb_child_bracket b = {ps, pass_ready, pass_begin, pass_end};
	struct tb_measure_req req;
	uint64_t ops = 0;
	int ret = 0;

	if (!ps)
		return -ENOMEM;
	ps->wl = w->name;
	if (!(w->ops->flags & TB_WL_COUNTED) || (rn->counted && rn->counted[wi]))
		goto out; /* not counted, or counted already (a probe's run on the same runner) */
	hooked(rn, wi, ps);
	if (!ps->n)
		goto out;
	if (!rn->counted) {
		rn->counted = calloc(p->s->nworkloads, sizeof(*rn->counted));
		if (!rn->counted) {
			ret = -ENOMEM;
			goto out;
		}
	}
	tb_debug(
		"[workload %s]: counting pass: %zu tracepoints in the cgroup of the process the tracers follow, over one untimed sample",
		w->name, ps->n);
	tb_runner_fill_req(p, wi, &req);
	ret = tb_child_bracketed(&req, tb_runner_sample_timeout(p->s, w), &b, &ops);
	if (ret == -EINTR)
		goto out;
	if (ret || !ops) {
		tb_warn("[workload %s]: counting pass failed (%s): its cells' proofs have no expected count",
			w->name,
			ps->why[0] ? ps->why
			: ret	   ? strerror(-ret)
				   : "no op completed");
		ret = 0;
		goto out;
	}
	rn->counted[wi] = per_op(ps, ops);
	if (!rn->counted[wi])
		ret = -ENOMEM;
out:
	tb_cgroup_count_close(ps->cc);
	free(ps);
	return ret;
}

void tb_runner_count_free(struct tb_runner *rn)
{
	if (rn->counted && rn->plan)
		for (size_t i = 0; i < rn->plan->s->nworkloads; i++)
			free(rn->counted[i]);
	free(rn->counted);
	rn->counted = NULL;
}
