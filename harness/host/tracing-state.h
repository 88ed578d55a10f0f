/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The machine's tracing state as the harness sees it around every run and the tests around
 * every tracer: loaded BPF programs, a snapshot of tracefs's top-level files, instances and BPF
 * programs with a diff of two snapshots, and the instrumentation not ours that biases a baseline.
 */
#ifndef TB_TRACING_STATE_H
#define TB_TRACING_STATE_H

#include <stdbool.h>

struct json_t;

/* ---- BPF programs (libbpf) ---- */

/* Number of loaded BPF programs (bpf_prog_get_next_id walk), or -errno. */
int tb_bpf_prog_count(void);

/* ---- tracing state ---- */

/*
 * Snapshot of the machine's tracing state as a new JSON object (caller owns):
 *   current_tracer, tracing_on, set_event (array), set_event_pid, set_ftrace_pid (string, or
 *   "error: <reason>" when unreadable), instances (sorted array of names), bpf_progs (array of
 *   {id, type, name}). NULL on failure (logged).
 */
struct json_t *tb_tracing_state_capture(void);
/*
 * Differences between two snapshots as text, one "key: before -> after" (or "instances: +x",
 * "bpf_progs: -12 (tracepoint name)") line each; NULL when equal. Caller frees.
 */
char *tb_tracing_state_diff(const struct json_t *a, const struct json_t *b);
/*
 * The same, restricted: only instances whose names start with instance_prefix (NULL: all),
 * and BPF programs only when with_bpf. For tests on a machine where others trace meanwhile.
 */
char *tb_tracing_state_diff_filtered(const struct json_t *a, const struct json_t *b,
				     const char *instance_prefix, bool with_bpf);

/*
 * Instrumentation not ours that biases a baseline, as a new JSON array of strings (caller
 * owns): top-level events enabled, top-level current_tracer not nop, instances not made by this
 * process with an event enabled or a tracer set (an idle instance biases nothing), BPF programs of tracing types (tracepoint, raw_tracepoint, kprobe, perf_event,
 * tracing) not registered in our armed record and not being freed by a tracebench run
 * (host/bpf-freeing.h: the same id and load time, noted less than 10 s ago). Empty array when
 * clean; NULL on ENOMEM.
 */
struct json_t *tb_foreign_instrumentation(void);

#endif /* TB_TRACING_STATE_H */
