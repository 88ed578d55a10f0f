/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A known, calibrated cost per operation: the validation suite's ground truth. The `delay`
 * tracer switches it on; workloads call tb_inject_point() once per operation. The control page
 * is MAP_SHARED and mapped before any workload process is forked, so the tracer, running in
 * the harness, reaches the workload's process the way a real tracer reaches the kernel.
 */
#ifndef TB_INJECT_H
#define TB_INJECT_H

#include <stdint.h>

struct tb_inject_page {
	volatile uint64_t iters; /* tb_spin's argument per operation; 0 = off */
};

extern struct tb_inject_page *tb_inject;

/*
 * Set in tb_spin's argument: the rest is nanoseconds of CLOCK_MONOTONIC to spin, not loop
 * iterations. One word, so that a workload never reads a count with the other kind's meaning.
 */
#define TB_SPIN_CLOCK (1ull << 63)

/*
 * Spin for iters iterations of a loop the compiler cannot remove, or, with TB_SPIN_CLOCK, until
 * the clock has advanced by the rest: a cost fixed in time whatever the machine's speed.
 */
void tb_spin(uint64_t iters);

/* One operation's injected cost: a load and a branch when off. */
static inline void tb_inject_point(void)
{
	uint64_t n = tb_inject ? tb_inject->iters : 0;

	if (__builtin_expect(n != 0, 0))
		tb_spin(n);
}

/* Map the shared control page (idempotent). Returns 0 or -errno. */
int tb_inject_init(void);
/*
 * Measure what injecting tb_spin(iters) costs, in ns per call, by timing calls in a loop
 * against the same loop with the injection off, the two alternating in short blocks (the median
 * of the blocks' differences): the call into tb_spin is part of the cost, as it is for a
 * workload. Returns the cost (>= 0; 0 for 0 iterations).
 */
double tb_spin_measure_ns(uint64_t iters);
/*
 * The same, in the context the spin runs in: each call follows a getpid syscall, whose return
 * (with the host's speculation mitigations) leaves the branch predictors and caches colder
 * than a tight loop of spins does. This is the ground truth of the known-delta check: it
 * measured 10-20% more than the tight loop here. calls: the calls each of its passes times
 * (at least 200: one block of each loop).
 */
double tb_spin_measure_after_syscall_ns(uint64_t iters, uint64_t calls);
/* Iterations that cost about ns nanoseconds per call (calibrated once per process). */
uint64_t tb_spin_iters_for(double ns);

#endif
