/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The vocabulary of the proof of tracing, shared by both kinds of plugin: what one operation of
 * a workload does in kernel terms (struct tb_op_events, from a workload's `events` callback) and
 * what a tracer hooks and counts (struct tb_hooks, from a tracer's `hooks` callback).
 * model/proof.h matches the two into the events a cell should record per op, and judges what
 * it recorded against that.
 *
 * One namespace of event names serves both sides:
 *   syscall:NAME        one system call (the workload side; its number on this architecture
 *                       is in nr). A tracer hooking syscalls:sys_enter_NAME sees its entries,
 *                       syscalls:sys_exit_NAME its returns, raw_syscalls:sys_enter and
 *                       raw_syscalls:sys_exit those of every syscall.
 *   SYSTEM:EVENT        any other tracepoint, counted as a pid-filtered tracepoint
 *                       (set_event_pid with event-fork) records it for the workload:
 *                       sched:sched_switch when a workload task is prev or next,
 *                       sched:sched_wakeup and sched:sched_waking when it wakes or is woken.
 *   task:switches       context switches away from the workload's tasks (perf's
 *                       context-switches counted per task)
 *   task:wakeups        wakeups of the workload's tasks (what a run-queue latency tool times)
 *   task:migrations     perf's cpu-migrations per task
 *   task:page-faults    perf's page-faults per task
 *
 * Who does it: the workload's own threads (TB_EV_SELF), processes it creates during an op
 * (TB_EV_CHILD: a tracer following forks sees them, one filtering on the process id does not),
 * or a partner process created during setup (TB_EV_PARTNER: outside any pid filter, only a
 * system-wide tracer sees it).
 */
#ifndef TB_EVENTS_H
#define TB_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h> /* SYS_<name> for TB_OP_SYSCALL */

/*
 * The names of user-space events in this namespace: a probe
 * on a function's entry ("uprobe:SYMBOL") and return ("uretprobe:SYMBOL"), a USDT probe
 * ("usdt:PROVIDER:NAME") and an LTTng-UST tracepoint ("lttng:PROVIDER:NAME"). The usercall
 * workload declares each once per op, the user-space tracers hook them by these names, and
 * host/elf-sites.h names a probe found attached by them.
 */
#define TB_EV_UPROBE	"uprobe:"
#define TB_EV_URETPROBE "uretprobe:"
#define TB_EV_USDT	"usdt:"
#define TB_EV_LTTNG	"lttng:"

/*
 * tracebench's own probe sites: the usercall workload's functions (their symbols all start
 * with TB_EV_OWN_FUNC_PREFIX) and its USDT and LTTng-UST provider. Only that workload reaches
 * them and its table lists each it does, so for any workload's table a hook on one that the
 * table does not list sees 0 per op (tb_hooks_own_site: a cell of another workload is a control).
 */
#define TB_EV_OWN_FUNC_PREFIX "tb_usercall_"
#define TB_EV_OWN_PROVIDER    "tracebench"
/* Whether event name is on one of tracebench's own probe sites (above). */
bool tb_hooks_own_site(const char *name);

#define TB_EV_NAME_MAX	 64
#define TB_OP_EVENTS_MAX 48

enum tb_ev_who { TB_EV_SELF, TB_EV_CHILD, TB_EV_PARTNER, TB_EV_NWHO };

/* Entry flags. */
enum {
	/* The count depends on scheduling and timing (switches, wakeups, a partner that may skip
	 * a wait): the proof allows a factor of two either way. */
	TB_EV_APPROX = 1 << 0,
	/* Counted, not declared: the named tracepoint's hits per op in the target's cgroup over
	 * a counting pass (runner/count.c), every task of the target's included; it matches the
	 * hook of that exact name (a raw_syscalls hook only without a syscall filter). */
	TB_EV_COUNTED = 1 << 1,
};

/* One kind of event of an op: how often one op causes it, and in whose context. */
struct tb_op_event {
	char name[TB_EV_NAME_MAX]; /* "syscall:pread64", "sched:sched_switch", "task:switches" */
	int nr;			   /* syscall number, -1 for other events */
	double per_op;		   /* occurrences per op (syscalls: entries) */
	double exits;		   /* syscalls: returns per op (exit_group: 0; a fork's child: 1) */
	int who;		   /* enum tb_ev_who */
	unsigned int flags;
};

/* What one op does. Filled by a workload's `events` callback; no allocation. */
struct tb_op_events {
	struct tb_op_event ev[TB_OP_EVENTS_MAX];
	size_t n;
	/*
	 * Which parts the list covers completely, per who (bits 1 << TB_EV_SELF, ...):
	 * syscalls_known: every syscall of the op made in that context is listed (the others are
	 * 0 per op); sched_known: the same for sched:* and task:* events (0 then means none but
	 * preemption). Other tracepoints count only where listed.
	 */
	unsigned int syscalls_known, sched_known;
};

/* What the harness tells a workload when it asks for its op's events. */
struct tb_op_context {
	unsigned int threads; /* instances run in parallel (each does the ops) */
	bool one_cpu;	      /* every thread and partner shares one CPU: a ping-pong switches
				 on each hand-over instead of waking an idle CPU */
};

/* Bits for syscalls_known / sched_known. */
#define TB_EV_KNOWN(who) (1u << (who))
#define TB_EV_KNOWN_ALL \
	(TB_EV_KNOWN(TB_EV_SELF) | TB_EV_KNOWN(TB_EV_CHILD) | TB_EV_KNOWN(TB_EV_PARTNER))

/* An empty list: nothing known. */
void tb_op_events_init(struct tb_op_events *e);
/*
 * Add a syscall made per_op times per op (returning exits times) by who. An entry of the same
 * name and who is added to. Returns 0, or -ENOSPC when the list is full.
 */
int tb_op_events_syscall(struct tb_op_events *e, const char *name, int nr, double per_op,
			 double exits, int who, unsigned int flags);
/* Add any other event (name as above). Returns 0 or -ENOSPC. */
int tb_op_events_add(struct tb_op_events *e, const char *name, double per_op, int who,
		     unsigned int flags);
/* The entry of name and who, or NULL. */
const struct tb_op_event *tb_op_events_find(const struct tb_op_events *e, const char *name,
					    int who);

/* One line of a workload's static table of events (tb_op_events_table). */
struct tb_op_spec {
	const char *name; /* as in struct tb_op_event */
	int nr;		  /* syscall number, -1 for other events */
	double per_op, exits;
	int who;
	unsigned int flags;
};

/* Table lines: a syscall made n times and returning n times; another event. */
#define TB_OP_SC(name, n, who)                                   \
	{                                                        \
		"syscall:" #name, SYS_##name, (n), (n), (who), 0 \
	}
#define TB_OP_EV(name, n, who, flags)              \
	{                                          \
		(name), -1, (n), 0, (who), (flags) \
	}
#define TB_OP_SC_EXITS(name, n, x, who)                          \
	{                                                        \
		"syscall:" #name, SYS_##name, (n), (x), (who), 0 \
	}

/* Add every line of a table. Returns 0 or -ENOSPC. */
int tb_op_events_table(struct tb_op_events *e, const struct tb_op_spec *t, size_t n);

/* A syscall by its name, with its number from <sys/syscall.h>: TB_OP_SYSCALL(e, pread64, 1, SELF). */
#define TB_OP_SYSCALL(e, name, per_op, who) \
	tb_op_events_syscall((e), "syscall:" #name, SYS_##name, (per_op), (per_op), (who), 0)

/* ---- the tracer side -------------------------------------------------------------------- */

/* How a tracer's cost and its events figure relate to the workload. */
enum tb_hook_kind {
	TB_HOOK_NONE,	  /* nothing hooked (the baseline) or nothing counted by design */
	TB_HOOK_EVENTS,	  /* runs on every occurrence of its hooked events: cost per event */
	TB_HOOK_SAMPLING, /* fires on a frequency or period: cost per sample */
	TB_HOOK_COUNTER,  /* perf counters: a per-task one costs on every context switch */
	TB_HOOK_UNKNOWN,  /* cannot say (an external command that does not declare its hooks) */
};

/* Whose events a tracer's figure counts. */
enum tb_hook_scope {
	TB_SCOPE_PROCESS, /* the workload process's threads (a thread-group filter) */
	TB_SCOPE_TREE,	  /* and the processes it creates while traced (set_event_pid + fork) */
	TB_SCOPE_SYSTEM,  /* every task: other processes' events are in the figure too */
};

struct tb_hook {
	char name[TB_EV_NAME_MAX]; /* "syscalls:sys_enter_read", "raw_syscalls:sys_enter", ... */
	int nr;			   /* raw_syscalls: the one syscall a filter keeps, -1: all */
	bool counted; /* its occurrences make up the events figure (else it only runs) */
};

struct tb_hooks {
	int kind;  /* enum tb_hook_kind */
	int scope; /* enum tb_hook_scope */
	struct tb_hook *h;
	size_t n, cap;
	/* A filter the proof cannot read restricts what is recorded: the expected count is then
	 * an upper bound. */
	bool filtered;
	/* The tracer reports the workload's own share of a system-wide count (tracer_extra's
	 * "workload_events"). */
	bool attributes;
};

/*
 * What a cell should record per op on one counted hook of its tracer (model/proof.h works it
 * out from both tables); the runner hands the list to the tracer (struct tb_tracer) so that
 * it can size its buffers.
 */
struct tb_hook_expect {
	char name[TB_EV_NAME_MAX];
	double per_op; /* per op and thread; NAN when the workload's table does not say */
	bool approx;   /* TB_EV_APPROX: a factor of two either way */
};

/* Empty hooks of kind TB_HOOK_NONE, scope process. */
void tb_hooks_init(struct tb_hooks *h);
/* Add a hook; counted false: it runs but does not count. Returns 0 or -ENOMEM. */
int tb_hooks_add(struct tb_hooks *h, const char *name, int nr, bool counted);
void tb_hooks_free(struct tb_hooks *h);

/* "events", "sampling", ... and back (-1 when unknown). */
const char *tb_hook_kind_name(int kind);
int tb_hook_kind_parse(const char *s);
const char *tb_hook_scope_name(int scope);
int tb_hook_scope_parse(const char *s);

#endif /* TB_EVENTS_H */
