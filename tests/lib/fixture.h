/* SPDX-License-Identifier: GPL-2.0 */
/* A realistic in-memory result for the plot and report tests (tests/lib/fixture.c). */
#ifndef TB_FIXTURE_RESULT_H
#define TB_FIXTURE_RESULT_H

#include "model/result.h"

enum {
	TB_FIX_HOSTILE = 1 << 0, /* names with <script>, quotes, ampersands, underscores */
	TB_FIX_NO_LATENCY = 1 << 1,
	TB_FIX_NO_RATE = 1 << 2,
	/* Only getpid x none and tp-getpid: README's "A scenario", one traced cell without BPF */
	TB_FIX_README = 1 << 3,
};

/*
 * Workloads getpid and pipe-pingpong x tracers none, tp-getpid, bpf-raw-syscalls, perf-99hz
 * (10 rounds, 1 warmup, figures like this machine's), a latency-mode getpid pair and a rate
 * sweep of three cells. Summaries, overheads and the sweep's rate model are filled as stats.c
 * would. NULL on ENOMEM.
 */
struct tb_result *tb_fixture_result(unsigned flags);
/* Measured samples of cell c (what the ns-per-op plot shows) and their median. */
size_t tb_fixture_measured(const struct tb_cell *c, double *median);

#endif
