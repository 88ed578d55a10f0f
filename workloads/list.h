/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The workload registry: one line per workload. TB_WORKLOAD(x) names the ops table
 * `const struct tb_workload tb_workload_x` defined at the end of workloads/<x>.c.
 */
TB_WORKLOAD(null)
TB_WORKLOAD(cpu)
TB_WORKLOAD(getpid)
TB_WORKLOAD(read)
