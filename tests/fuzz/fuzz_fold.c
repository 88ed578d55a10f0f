// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the folded-stacks reader (what `tracebench explain` and the report read
 * from a run directory): bytes -> tb_fold_parse in both forms; what parses must also lay out,
 * draw as SVG and attribute without a crash, a leak or an unbounded loop.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/tb.h"
#include "explain/attribute.h"
#include "explain/flamegraph.h"
#include "explain/fold.h"
#include "target.h"

TB_FUZZ_QUIET_INIT

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tb_fold a, b;
	struct tb_fg_opts o = {.title = "fuzz", .per_ops = 1e6, .period_ns = 250000};
	struct tb_attr at;
	FILE *devnull = fopen("/dev/null", "w");

	tb_fold_init(&a);
	tb_fold_init(&b);
	if (tb_fold_parse((const char *)data, size, "fuzz", &a, size && data[0] & 1 ? &b : NULL) ==
	    0) {
		tb_fold_sort(&a);
		if (devnull)
			tb_fg_svg(devnull, &a, b.n ? &b : NULL, &o);
		if (!tb_attr_build(&b, &a, 1e6, 250000, 10, &at))
			tb_attr_free(&at);
	}
	if (devnull)
		fclose(devnull);
	tb_fold_free(&a);
	tb_fold_free(&b);
	return 0;
}
