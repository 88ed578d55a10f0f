/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The workload registry: one line per workload. TB_WORKLOAD(x) names the ops table
 * `const struct tb_workload_ops tb_workload_x` defined at the end of workloads/<x>.c; the
 * registry (workloads/registry.c) and the tests iterate it.
 */
TB_WORKLOAD(null)
TB_WORKLOAD(cpu)
TB_WORKLOAD(getpid)
TB_WORKLOAD(read)
TB_WORKLOAD(write)
TB_WORKLOAD(open_close)
TB_WORKLOAD(pipe_pingpong)
TB_WORKLOAD(futex)
TB_WORKLOAD(fork_exit)
TB_WORKLOAD(exec)
TB_WORKLOAD(mmap_touch)
TB_WORKLOAD(tcp_rr)
TB_WORKLOAD(udp_rr)
TB_WORKLOAD(nanosleep)
TB_WORKLOAD(usercall)
TB_WORKLOAD(command)
TB_WORKLOAD(nginx)
TB_WORKLOAD(redis)
TB_WORKLOAD(postgres)
