// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "inject.h"
#include "tb.h"

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

double tb_spin_measure_ns(uint64_t iters)
{
	enum { REPS = 9 };
	double t[REPS], base[REPS];
	uint64_t calls = 200000, i, t0;
	int r;

	/* The loop around the calls costs something too: measure it with zero iterations. */
	for (r = 0; r < REPS; r++) {
		t0 = tb_now_ns();
		for (i = 0; i < calls; i++)
			tb_spin(iters);
		t[r] = (double)(tb_now_ns() - t0) / (double)calls;
		t0 = tb_now_ns();
		for (i = 0; i < calls; i++)
			tb_spin(0);
		base[r] = (double)(tb_now_ns() - t0) / (double)calls;
	}
	qsort(t, REPS, sizeof(t[0]), cmp_double);
	qsort(base, REPS, sizeof(base[0]), cmp_double);
	return t[REPS / 2] - base[REPS / 2] > 0 ? t[REPS / 2] - base[REPS / 2] : 0.0;
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
