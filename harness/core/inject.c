// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#include "core/inject.h"
#include "core/tb.h"

struct tb_inject_page *tb_inject;

__attribute__((noinline)) void tb_spin(uint64_t iters)
{
	uint64_t end;

	if (iters & TB_SPIN_CLOCK) {
		end = tb_now_ns() + (iters & ~TB_SPIN_CLOCK);
		while (tb_now_ns() < end)
			__asm__ __volatile__("" ::: "memory");
		return;
	}
	while (iters--)
		__asm__ __volatile__("" ::: "memory");
}

int tb_inject_init(void)
{
	void *p;

	if (tb_inject)
		return 0;
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	tb_inject = p;
	tb_inject->iters = 0;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * The calling thread's CPU time in ns: a spin's cost must not include time the thread spent
 * descheduled. On a busy machine a wall-clock median of these timings ran 2-3x over the true
 * cost (make validate, METHODOLOGY.md 6.1).
 */
static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The iterations the measuring loop spins, read once per call as tb_inject_point reads the
 * control page: the loop then pays what a workload pays, the call into tb_spin included. */
static volatile uint64_t measure_iters;

/*
 * Per-call cost of calls x (optional getpid, then what tb_inject_point does with iters) minus
 * the same with the injection off (no call at all, as in a workload without the delay). With
 * the syscall the loop is timed like the harness times a batch (wall clock). The two loops
 * alternate in blocks of BLOCK calls, off on on off, and each such quad gives a difference;
 * the cost is the median of the quads' differences over REPS passes of calls calls each. A
 * drift of the machine's speed (a VM's host changes its frequency and its other tenants) then
 * falls on both loops alike, and a preemption or an interrupt spoils a quad, which the median
 * drops (two whole loops timed one after the other let a preemption in either decide). What
 * it cannot take out is the machine's own speed changing between samples: on a PVM guest the
 * spin at 800 ns still varied widely between the samples of some make validate-sweeps runs
 * (their spin_ns_sd), as with whole loops (METHODOLOGY.md 6.1). Nothing is injected for 0
 * iterations, so that costs 0.
 */
static double measure(uint64_t iters, uint64_t calls, bool with_syscall)
{
	uint64_t (*now)(void) = with_syscall ? tb_now_ns : thread_cpu_ns;
	enum { REPS = 9, BLOCK = 100, MAXQ = 128 };
	uint64_t quads = calls / (2 * BLOCK), i, t0, n;
	double d[REPS * MAXQ];
	size_t nd = 0;

	if (!iters)
		return 0.0;
	quads = quads < 1 ? 1 : quads > MAXQ ? MAXQ : quads;
	for (int r = 0; r < REPS; r++) {
		for (uint64_t q = 0; q < quads; q++) {
			double on = 0, off = 0;

			for (int b = 0; b < 4; b++) {
				bool spin = b == 1 || b == 2; /* off on on off */

				measure_iters = spin ? iters : 0;
				t0 = now();
				for (i = 0; i < BLOCK; i++) {
					if (with_syscall)
						syscall(SYS_getpid);
					n = measure_iters;
					if (n)
						tb_spin(n);
				}
				*(spin ? &on : &off) += (double)(now() - t0);
			}
			d[nd++] = (on - off) / (2.0 * BLOCK);
		}
	}
	qsort(d, nd, sizeof(d[0]), cmp_double);
	return d[nd / 2] > 0 ? d[nd / 2] : 0.0;
}

double tb_spin_measure_ns(uint64_t iters)
{
	return measure(iters, 20000, false);
}

double tb_spin_measure_after_syscall_ns(uint64_t iters, uint64_t calls)
{
	return measure(iters, calls, true);
}

uint64_t tb_spin_iters_for(double ns)
{
	static double ns_per_iter;

	if (ns <= 0)
		return 0;
	if (ns_per_iter <= 0)
		ns_per_iter = tb_spin_measure_ns(10000) / 10000.0;
	if (ns_per_iter <= 0)
		return 0;
	return (uint64_t)(ns / ns_per_iter + 0.5);
}
