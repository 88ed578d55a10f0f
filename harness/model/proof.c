// SPDX-License-Identifier: GPL-2.0
/* The proof of tracing (proof.h): expectation, judgement, ns/event and the cost driver. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/tb.h"
#include "model/measured.h"
#include "model/proof.h"

/* ---- the expectation -------------------------------------------------------------------- */

/* Syscalls that do the same thing another way: hooking one while the op makes the other is
 * the mistake the proof names ("hook sys_enter_pread64"). */
static const char *const families[][6] = {
	{"read", "pread64", "readv", "preadv", "preadv2"},
	{"write", "pwrite64", "writev", "pwritev", "pwritev2"},
	{"open", "openat", "openat2", "creat"},
	{"stat", "fstat", "lstat", "newfstatat", "statx"},
	{"sendto", "sendmsg", "sendmmsg", "write"},
	{"recvfrom", "recvmsg", "recvmmsg", "read"},
	{"fork", "vfork", "clone", "clone3"},
	{"wait4", "waitid"},
	{"nanosleep", "clock_nanosleep"},
	{"poll", "ppoll", "select", "pselect6", "epoll_wait", "epoll_pwait"},
	{"getpid", "getppid", "gettid"},
	{"dup", "dup2", "dup3"},
	{"pipe", "pipe2"},
	{"exit", "exit_group"},
	{"fsync", "fdatasync", "sync_file_range"},
};

static bool same_family(const char *a, const char *b)
{
	size_t f, i, j;

	for (f = 0; f < TB_ARRAY_SIZE(families); f++)
		for (i = 0; i < 6 && families[f][i]; i++)
			if (!strcmp(families[f][i], a))
				for (j = 0; j < 6 && families[f][j]; j++)
					if (!strcmp(families[f][j], b))
						return true;
	return false;
}

static bool visible(int who, int scope)
{
	return who == TB_EV_SELF || (who == TB_EV_CHILD && scope != TB_SCOPE_PROCESS) ||
	       scope == TB_SCOPE_SYSTEM;
}

/* Every who a scope sees has its syscalls (or sched events) listed completely. */
static bool known(unsigned int bits, int scope)
{
	unsigned int need = scope == TB_SCOPE_PROCESS ? TB_EV_KNOWN(TB_EV_SELF)
			    : scope == TB_SCOPE_TREE
				    ? TB_EV_KNOWN(TB_EV_SELF) | TB_EV_KNOWN(TB_EV_CHILD)
				    : TB_EV_KNOWN_ALL;

	return (bits & need) == need;
}

/* What one counted hook should see per op. */
struct hook_exp {
	double exact, approx;
	bool unknown, at_least, zero_sched;
};

static bool is_sched(const char *name)
{
	return (!strncmp(name, "sched:", 6) || !strncmp(name, "task:", 5)) &&
	       strcmp(name, "task:page-faults");
}

/* Add entry e's count (entries or returns) to x when the hook sees it. */
static void add_entry(const struct tb_op_event *e, bool exits, struct hook_exp *x)
{
	double v = exits ? e->exits : e->per_op;

	if (e->flags & TB_EV_APPROX)
		x->approx += v;
	else
		x->exact += v;
}

static void hook_expect(const struct tb_op_events *ops, const struct tb_hook *hk, int scope,
			struct hook_exp *x)
{
	bool raw = !strncmp(hk->name, "raw_syscalls:sys_", 17);
	bool sys = !strncmp(hk->name, "syscalls:sys_", 13);
	bool exits =
		raw ? !strcmp(hk->name + 17, "exit") : sys && !strncmp(hk->name + 13, "exit_", 5);
	const char *sc = sys ? hk->name + 13 + (exits ? 5 : 6) : NULL; /* the syscall's name */
	bool found = false, counted = false;
	size_t i;

	memset(x, 0, sizeof(*x));
	for (i = 0; i < ops->n; i++) {
		const struct tb_op_event *e = &ops->ev[i];
		bool is_sc = !strncmp(e->name, "syscall:", 8);

		if (!visible(e->who, scope))
			continue;
		if (e->flags & TB_EV_COUNTED) {
			if (strcmp(e->name, hk->name) || (raw && hk->nr >= 0))
				continue;
			add_entry(e, false, x);
			found = counted = true;
			continue;
		}
		if (raw && is_sc && (hk->nr < 0 || hk->nr == e->nr))
			add_entry(e, exits, x);
		else if (sys && is_sc && !strcmp(e->name + 8, sc))
			add_entry(e, exits, x);
		else if (!raw && !sys && !strcmp(e->name, hk->name))
			add_entry(e, false, x);
		else
			continue;
		found = true;
	}
	if (counted) {
		/* Every hit of the target's tasks, counted in their cgroup while they ran: a
		 * system-wide tracer sees other tasks' too, and a pid filter records switches into
		 * them and their wakeups by others, which ran outside it. */
		x->at_least = scope == TB_SCOPE_SYSTEM || is_sched(hk->name);
	} else if (raw || sys) {
		if (!known(ops->syscalls_known, scope))
			x->unknown = !found, x->at_least = found;
	} else if (!found && !tb_hooks_own_site(hk->name)) { /* own sites: a known 0 */
		x->unknown = !(is_sched(hk->name) && known(ops->sched_known, scope));
		x->zero_sched = !x->unknown;
	}
}

static void append(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void append(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strlen(buf);
	va_list ap;

	if (used + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

/* "sys_enter_read" for "syscalls:sys_enter_read": what a user writes after the system. */
static const char *short_name(const char *name)
{
	return !strncmp(name, "syscalls:", 9) ? name + 9 : name;
}

/* The hooks that see nothing of the op while it makes a syscall of the same family. */
static void near_misses(const struct tb_op_events *ops, const struct tb_hooks *h,
			struct tb_expected *out)
{
	size_t i, j, k;

	for (i = 0; i < h->n; i++) {
		const char *n = h->h[i].name, *sc;
		bool exits;

		if (!h->h[i].counted || strncmp(n, "syscalls:sys_", 13))
			continue;
		exits = !strncmp(n + 13, "exit_", 5);
		sc = n + 13 + (exits ? 5 : 6);
		for (j = 0; j < ops->n && out->nnear < TB_NEAR_MISSES; j++) {
			const struct tb_op_event *e = &ops->ev[j];
			struct tb_near_miss *nm;
			char want[TB_EV_NAME_MAX];
			bool hooked = false;

			if (strncmp(e->name, "syscall:", 8) || !visible(e->who, out->scope) ||
			    !strcmp(e->name + 8, sc) || !same_family(sc, e->name + 8) ||
			    !(exits ? e->exits : e->per_op))
				continue;
			snprintf(want, sizeof(want), "syscalls:sys_%s_%s", exits ? "exit" : "enter",
				 e->name + 8);
			for (k = 0; k < h->n; k++)
				hooked |= !strcmp(h->h[k].name, want);
			if (hooked)
				continue;
			nm = &out->near[out->nnear++];
			snprintf(nm->hooked, sizeof(nm->hooked), "%s", n);
			snprintf(nm->does, sizeof(nm->does), "%s", e->name + 8);
			snprintf(nm->hook, sizeof(nm->hook), "%s", want);
			nm->per_op = exits ? e->exits : e->per_op;
		}
	}
}

/* "pread64 x1, partner: read x1" of the syscalls the scope sees, for messages. */
static void describe_op(const struct tb_op_events *ops, int scope, char *buf, size_t len)
{
	static const char *const whos[] = {"", "children: ", "partner: "};
	bool counted = false;
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < ops->n; i++) {
		const struct tb_op_event *e = &ops->ev[i];

		if (e->flags & TB_EV_COUNTED) {
			append(buf, len, "%s%s x%.3g", n++ ? ", " : "", short_name(e->name),
			       e->per_op);
			counted = true;
			continue;
		}
		if (strncmp(e->name, "syscall:", 8) || !visible(e->who, scope) || !e->per_op)
			continue;
		append(buf, len, "%s%s%s x%g", n++ ? ", " : "", whos[e->who], e->name + 8,
		       e->per_op);
	}
	if (counted)
		append(buf, len, " (counted in its cgroup)");
	if (!n)
		snprintf(buf, len, "no syscall");
}

void tb_proof_expect(const struct tb_op_events *ops, const struct tb_hooks *h,
		     const struct tb_op_events *harness, struct tb_expected *out)
{
	size_t i, shown = 0, counted = 0;
	struct hook_exp x;

	memset(out, 0, sizeof(*out));
	out->present = true;
	out->kind = h->kind;
	out->scope = h->scope;
	out->attributes = h->attributes;
	out->filtered = h->filtered;
	for (i = 0; i < h->n; i++) {
		const struct tb_hook *hk = &h->h[i];

		if (!hk->counted)
			continue;
		if (counted++ < 4)
			append(out->hooks, sizeof(out->hooks), "%s%s", shown++ ? ", " : "",
			       short_name(hk->name));
		hook_expect(ops, hk, h->scope, &x);
		out->exact_per_op += x.exact;
		out->approx_per_op += x.approx;
		out->approx_zero += x.zero_sched;
		out->at_least |= x.at_least;
		if (x.unknown && !out->unknown)
			snprintf(out->unknown_hook, sizeof(out->unknown_hook), "%s", hk->name);
		out->unknown |= x.unknown;
		if ((x.exact > 0 || x.approx > 0) && out->nitems < TB_EXPECT_ITEMS) {
			struct tb_hook_expect *it = &out->items[out->nitems++];

			snprintf(it->name, sizeof(it->name), "%s", hk->name);
			it->per_op = x.exact + x.approx;
			it->approx = x.approx > 0;
		}
		if (harness) {
			hook_expect(harness, hk, TB_SCOPE_TREE, &x);
			out->harness_per_sample += x.exact + x.approx;
		}
	}
	if (counted > 4)
		append(out->hooks, sizeof(out->hooks), " and %zu more", counted - 4);
	out->ncounted = (unsigned int)counted;
	if (!counted) {
		snprintf(out->hooks, sizeof(out->hooks), "nothing it counts");
		/* a figure of no known hook (a command that does not say, a time counter) */
		out->unknown = h->kind != TB_HOOK_NONE && h->kind != TB_HOOK_SAMPLING;
	}
	describe_op(ops, h->scope, out->does, sizeof(out->does));
	if (!out->exact_per_op && !out->approx_per_op)
		near_misses(ops, h, out);
}

/* ---- the judgement ---------------------------------------------------------------------- */

static const char *const outcomes[TB_PROOF_NOUTCOMES] = {
	"",	      "match",	    "above",   "control", "missed",    "below",
	"unexpected", "unverified", "nothing", "sampled", "uncounted", "not-counted",
};

const char *tb_proof_outcome_name(enum tb_proof_outcome o)
{
	return o >= 0 && o < TB_PROOF_NOUTCOMES ? outcomes[o] : "";
}

int tb_proof_outcome_parse(const char *s)
{
	int i;

	for (i = 0; s && i < TB_PROOF_NOUTCOMES; i++)
		if (!strcmp(outcomes[i], s))
			return i;
	return -1;
}

static void say(struct tb_proof *p, enum tb_proof_outcome o, bool blocks, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void say(struct tb_proof *p, enum tb_proof_outcome o, bool blocks, const char *fmt, ...)
{
	va_list ap;

	p->outcome = o;
	p->blocks = blocks;
	va_start(ap, fmt);
	vsnprintf(p->message, sizeof(p->message), fmt, ap);
	va_end(ap);
}

/* The ops (of every thread) of the samples that count events. */
static double event_ops(const struct tb_cell *c)
{
	return (double)c->ops_per_sample * (double)(c->threads ? c->threads : 1) *
	       (double)tb_cell_nevent_samples(c);
}

/* The measured events per op and thread (the workload's share when attributed); NAN. */
static double measured_per_op(const struct tb_cell *c, int64_t *events, bool *attributed)
{
	const struct tb_expected *x = &c->expected;
	int64_t wl = tb_cell_workload_events(c);
	double ops = event_ops(c);

	*events = tb_cell_events(c);
	*attributed = x->present && x->attributes && x->scope == TB_SCOPE_SYSTEM && wl >= 0;
	if (*attributed)
		*events = wl;
	return *events >= 0 && ops > 0 ? (double)*events / ops : NAN;
}

/* 0 expected: a control, or the mistake of hooking the wrong syscall of a family. */
static void judge_zero(const struct tb_cell *c, struct tb_proof *p, bool attributed)
{
	const struct tb_expected *x = &c->expected;
	const struct tb_near_miss *nm = &x->near[0];

	if (x->nnear) {
		say(p, TB_PROOF_MISSED, true,
		    "%s hooks %s; %s does %s: %.3f events/op of %g expected — hook %s", c->tracer,
		    x->hooks, c->workload, nm->does, p->events_per_op, nm->per_op,
		    short_name(nm->hook));
		return;
	}
	if (x->scope == TB_SCOPE_SYSTEM && !attributed) {
		say(p, TB_PROOF_CONTROL, false,
		    "control: %s does %s, none of what %s hooks (%s); the %.3f events/op recorded are other tasks'",
		    c->workload, x->does, c->tracer, x->hooks, p->events_per_op);
		return;
	}
	if (p->events_per_op <= p->hi) {
		say(p, TB_PROOF_CONTROL, false,
		    "control: %s does %s, none of what %s hooks (%s); %.3f events/op recorded",
		    c->workload, x->does, c->tracer, x->hooks, p->events_per_op);
		return;
	}
	say(p, TB_PROOF_UNEXPECTED, true,
	    "%s recorded %.3f events/op of %s, whose op makes none of %s: the events are not the workload's (is workloads/%s.c's table complete?)",
	    c->tracer, p->events_per_op, c->workload, x->hooks,
	    c->workload_type ? c->workload_type : "?");
}

static void judge_expected(const struct tb_cell *c, struct tb_proof *p)
{
	const struct tb_expected *x = &c->expected;
	double m = p->events_per_op, e = p->expected_per_op;

	if (m == 0) {
		say(p, TB_PROOF_MISSED, true,
		    "%s hooks %s; %s does %s: 0 events/op of %.3g expected — the tracer did not see the workload's ops%s",
		    c->tracer, x->hooks, c->workload, x->does, e,
		    x->scope == TB_SCOPE_SYSTEM ? "" : " (check its pid filter)");
	} else if (m < p->lo) {
		say(p, TB_PROOF_BELOW, true,
		    "%s hooks %s; %s does %s: %.3f events/op of %.3g expected — it sees %.0f%% of the workload's events%s",
		    c->tracer, x->hooks, c->workload, x->does, m, e, 100 * m / e,
		    x->scope == TB_SCOPE_PROCESS
			    ? " (it filters on the process: children and partners are not counted)"
			    : "");
	} else if (m > p->hi) {
		say(p, TB_PROOF_ABOVE, false, "%.3f events/op, more than the %.3g expected%s", m, e,
		    x->scope == TB_SCOPE_SYSTEM ? " (a system-wide count: other tasks' events too)"
						: " (the workload's table may miss some)");
	} else {
		say(p, TB_PROOF_MATCH, false, "%.3f events/op, %s%.3g expected (%s: %s)", m,
		    x->at_least ? "at least " : "", e, x->hooks, x->does);
	}
}

/* The accepted range of events per op around the expectation. */
static void tolerance(const struct tb_cell *c, double ns_per_op, struct tb_proof *p)
{
	const struct tb_expected *x = &c->expected;
	double ops = (double)c->ops_per_sample * (double)(c->threads ? c->threads : 1);
	double bg = TB_PROOF_BG_PER_OP + TB_PROOF_BG_PER_NS * (isfinite(ns_per_op) ? ns_per_op : 0);

	p->expected_per_op = x->exact_per_op + x->approx_per_op;
	p->lo = x->exact_per_op * (1 - TB_PROOF_EXACT_TOL) +
		x->approx_per_op / TB_PROOF_APPROX_FACTOR;
	p->hi = x->exact_per_op * (1 + TB_PROOF_EXACT_TOL) +
		x->approx_per_op * TB_PROOF_APPROX_FACTOR + x->approx_zero * bg +
		(ops > 0 ? x->harness_per_sample / ops : 0);
	if (x->filtered)
		p->lo = 0;
	if (x->at_least || x->unknown)
		p->hi = INFINITY;
}

/* The events the tracer's hook saw but its buffer lost, per op (0 when none or unknown). */
static double lost_per_op(const struct tb_cell *c)
{
	int64_t lost = tb_cell_lost(c);
	double ops = event_ops(c);

	return lost > 0 && ops > 0 ? (double)lost / ops : 0;
}

void tb_proof_judge(const struct tb_cell *c, double ns_per_op, bool noevents, struct tb_proof *p)
{
	const struct tb_expected *x = &c->expected;
	bool attributed;
	int64_t events;
	double lost;

	tb_proof_init(p);
	p->events_per_op = measured_per_op(c, &events, &attributed);
	if (noevents || (x->present && x->kind == TB_HOOK_NONE)) {
		say(p, TB_PROOF_NOT_COUNTED, false, "%s counts no events by design", c->tracer);
	} else if (events < 0) {
		say(p, TB_PROOF_UNCOUNTED, false,
		    "unproven: %s reports no event count (a command tracer: set events-regex)",
		    c->tracer);
	} else if (x->present && x->kind == TB_HOOK_SAMPLING) {
		if (events > 0)
			say(p, TB_PROOF_SAMPLED, false, "%lld samples%s", (long long)events,
			    attributed ? " of the workload" : "");
		else
			say(p, TB_PROOF_NOTHING, true,
			    "%s took no sample%s: check its event and frequency", c->tracer,
			    attributed ? " of the workload" : "");
	} else if (!x->present || (x->unknown && !x->exact_per_op && !x->approx_per_op)) {
		if (events > 0)
			say(p, TB_PROOF_UNVERIFIED, false,
			    "%.3f events/op; no expected count to check them against (%s)",
			    p->events_per_op,
			    x->present ? "the workload's table is silent on what the tracer hooks"
				       : "a result without expected events");
		else
			say(p, TB_PROOF_NOTHING, true,
			    "the tracer recorded no events: it did not trace this workload");
	} else {
		tolerance(c, ns_per_op, p);
		lost = attributed ? 0 : lost_per_op(c);
		p->events_per_op += lost;
		if (!isfinite(p->events_per_op))
			say(p, TB_PROOF_UNCOUNTED, false, "unproven: no measured sample");
		else if (p->expected_per_op == 0 && !x->unknown)
			judge_zero(c, p, attributed);
		else
			judge_expected(c, p);
		if (lost > 0 && isfinite(p->events_per_op))
			append(p->message, sizeof(p->message),
			       "; %.3f of the events/op were lost (recorded %.3f): the hook saw them, "
			       "the buffer did not keep them (the verdict says what to change)",
			       lost, p->events_per_op - lost);
	}
}

/* ---- what the cost figures mean ---------------------------------------------------------- */

bool tb_proof_ns_per_event_ok(const struct tb_cell *c, const struct tb_proof *p, char *why,
			      size_t len)
{
	const struct tb_expected *x = &c->expected;
	double sw = tb_cell_ctxsw_per_op(c);

	if (x->present && x->kind == TB_HOOK_SAMPLING) {
		snprintf(why, len, "sampling: the cost is per sample, not per event");
	} else if (x->present && x->kind == TB_HOOK_COUNTER && sw >= TB_PROOF_DRIVER_MIN) {
		snprintf(
			why, len,
			"a per-task counter costs on each of the workload's %.2f context switches per op, not per event",
			sw);
	} else if (x->present && x->kind != TB_HOOK_EVENTS && x->kind != TB_HOOK_COUNTER) {
		snprintf(why, len, "the tracer's cost is not known to be per event");
	} else if (p->outcome == TB_PROOF_CONTROL) {
		snprintf(why, len, "control: none of the workload's events were hooked");
	} else if (p->outcome == TB_PROOF_ABOVE) {
		snprintf(why, len, "%.3f events/op is above the expected %.3g: not the op's count",
			 p->events_per_op, p->expected_per_op);
	} else if (p->outcome == TB_PROOF_UNVERIFIED && x->present && !x->ncounted) {
		snprintf(why, len, "what its figure counts is unknown (no counted hook)");
	} else if (p->outcome != TB_PROOF_MATCH && p->outcome != TB_PROOF_UNVERIFIED) {
		snprintf(why, len, "no proof that the events are the workload's (%s)",
			 tb_proof_outcome_name(p->outcome));
	} else if (x->present && x->scope == TB_SCOPE_SYSTEM && p->outcome != TB_PROOF_MATCH &&
		   !(x->attributes && tb_cell_workload_events(c) >= 0)) {
		/* A system-wide count that matched the workload's expected events within the
		 * tolerance is the workload's to that tolerance: its ns/event stands. */
		snprintf(why, len, "a system-wide count: other tasks' events are in it");
	} else if (!(p->events_per_op > 0)) {
		snprintf(why, len, "no events");
	} else {
		return true;
	}
	return false;
}

bool tb_proof_cost_shown(const struct tb_cell *c, const char **why)
{
	const char *w = NULL;

	if (c->baseline)
		w = "the baseline has no tracer cost";
	else if (!c->has_overhead || !c->overhead.verdict)
		w = "not analysed";
	else if (c->overhead.verdict == TB_VERDICT_NO_OVERHEAD)
		w = "no detectable overhead: a cost per event would be noise over a count";
	else if (c->overhead.verdict == TB_VERDICT_FASTER)
		w = "faster than the baseline: suspect the setup, no cost to quote";
	else if (c->overhead.verdict != TB_VERDICT_OVERHEAD)
		w = "untrustworthy: no cost to quote";
	if (why)
		*why = w;
	return !w;
}

bool tb_proof_ns_per_event_shown(const struct tb_cell *c, const char **why)
{
	const struct tb_overhead *o = &c->overhead;
	const char *w = NULL;

	/* not a cost per event whatever the verdict: that reason says more than the verdict's */
	if (!c->baseline && c->has_overhead && o->nse_reason[0])
		w = o->nse_reason;
	else if (tb_proof_cost_shown(c, &w) && !isfinite(o->ns_per_event))
		w = "no events to divide the cost by";
	if (why)
		*why = w;
	return !w;
}

bool tb_proof_driver(const struct tb_cell *c, const struct tb_proof *p, const char **unit,
		     double *per_op, char *why, size_t len)
{
	const struct tb_expected *x = &c->expected;
	double sw = tb_cell_ctxsw_per_op(c), smp = p->events_per_op;
	bool per_task = x->scope != TB_SCOPE_SYSTEM;

	*unit = NULL;
	*per_op = NAN;
	if (!x->present || (x->kind != TB_HOOK_SAMPLING && x->kind != TB_HOOK_COUNTER)) {
		snprintf(why, len, "its cost is per event");
		return false;
	}
	if (per_task && sw >= TB_PROOF_DRIVER_MIN &&
	    (x->kind == TB_HOOK_COUNTER || !(smp > 0) || sw >= TB_PROOF_DRIVER_RATIO * smp)) {
		*unit = "context switch";
		*per_op = sw;
		return true;
	}
	if (x->kind == TB_HOOK_SAMPLING && smp > 0 &&
	    (!per_task || sw < TB_PROOF_DRIVER_MIN || smp >= TB_PROOF_DRIVER_RATIO * sw)) {
		if (x->scope == TB_SCOPE_SYSTEM &&
		    !(x->attributes && tb_cell_workload_events(c) >= 0)) {
			snprintf(why, len, "system-wide samples: the workload's share is unknown");
			return false;
		}
		*unit = "sample";
		*per_op = smp;
		return true;
	}
	if (x->kind == TB_HOOK_SAMPLING && smp > 0)
		snprintf(
			why, len,
			"samples (%.3g per op) and context switches (%.3g per op) both drive its cost",
			smp, sw);
	else
		snprintf(why, len, "no context switches and no samples to carry its cost");
	return false;
}
