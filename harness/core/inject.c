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
 * Median per-call cost of calls x (optional getpid, then what tb_inject_point does with iters)
 * minus the same with the injection off (no call at all, as in a workload without the delay).
 * With the syscall the loop is timed like the harness times a batch (wall clock: interrupts
 * and steal inflate both alike); the median of the repetitions drops a preempted one. Nothing
 * is injected for 0 iterations, so that costs 0.
 */
static double measure(uint64_t iters, uint64_t calls, bool with_syscall)
{
	uint64_t (*now)(void) = with_syscall ? tb_now_ns : thread_cpu_ns;
	enum { REPS = 9 };
	double t[REPS], base[REPS];
	uint64_t i, t0, n;
	int r;

	if (!iters)
		return 0.0;
	for (r = 0; r < REPS; r++) {
		for (int pass = 0; pass < 2; pass++) {
			measure_iters = pass ? 0 : iters;
			t0 = now();
			for (i = 0; i < calls; i++) {
				if (with_syscall)
					syscall(SYS_getpid);
				n = measure_iters;
				if (n)
					tb_spin(n);
			}
			(pass ? base : t)[r] = (double)(now() - t0) / (double)calls;
		}
	}
	qsort(t, REPS, sizeof(t[0]), cmp_double);
	qsort(base, REPS, sizeof(base[0]), cmp_double);
	return t[REPS / 2] - base[REPS / 2] > 0 ? t[REPS / 2] - base[REPS / 2] : 0.0;
}

double tb_spin_measure_ns(uint64_t iters)
{
	return measure(iters, 20000, false);
}

double tb_spin_measure_after_syscall_ns(uint64_t iters)
{
	return measure(iters, 10000, true);
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
