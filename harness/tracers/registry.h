/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tracer registry: one line per tracer backend. TB_TRACER(x) names the ops table
 * `const struct tb_tracer_ops tb_tracer_x` defined at the end of tracers/<x>.c (of
 * tracers/<x>/<x>.c for a tracer in a folder of its own, as bpf); the registry
 * (tracers/registry.c) and the tests iterate it.
 */
TB_TRACER(none)
TB_TRACER(ftrace_events)
TB_TRACER(ftrace_function)
TB_TRACER(ftrace_uprobe)
TB_TRACER(bpf)
TB_TRACER(perf_count)
TB_TRACER(perf_sample)
TB_TRACER(lttng_ust)
TB_TRACER(command)
TB_TRACER(delay)
