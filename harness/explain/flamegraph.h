/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Flame graphs as SVG, written in C because Debian packages no FlameGraph (flamegraph.pl,
 * inferno) and the layout is small and well defined. It follows flamegraph.pl's: a frame per
 * node of the merged stacks, the root ("all") at the bottom, children left to right in the
 * frame-by-frame order of tb_fold_sort, width proportional to the node's count, 16 px rows in a
 * 1200 px image with 10 px side margins, frames narrower than 0.1 px left out (with what they
 * hold), a frame's name drawn when at least three characters fit (12 px Verdana, 0.59 em per
 * character; longer names cut with ".."), and its figures on hover (<title>).
 *
 * The differential graph is flamegraph.pl's over difffolded.pl output: widths from the traced
 * profile, each frame coloured by the change of its own (self) count against the baseline,
 * red for more and blue for less, white for none, the intensity relative to the largest change.
 * The plain graph colours kernel frames (TB_FOLD_KERNEL) orange and user frames yellow, the
 * shade hashed from the name, as flamegraph.pl's "java" palette does. No script: the graph is
 * inlined in the HTML report, which runs none; zooming is what inferno or speedscope on the
 * folded files are for.
 */
#ifndef TB_EXPLAIN_FLAMEGRAPH_H
#define TB_EXPLAIN_FLAMEGRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "explain/fold.h"

struct tb_dir;

#define TB_FG_WIDTH	   1200.0 /* image width, px */
#define TB_FG_FRAME_HEIGHT 16.0
#define TB_FG_XPAD	   10.0
#define TB_FG_YPAD_TOP	   36.0 /* title area */
#define TB_FG_YPAD_BOTTOM  34.0 /* legend area */
#define TB_FG_MIN_WIDTH	   0.1	/* px: narrower frames are not drawn */

/* One frame as laid out. name points into a stack string of the folds laid out. */
struct tb_fg_frame {
	const char *name; /* not NUL-terminated: len bytes */
	size_t len;
	unsigned int depth;	       /* 0: the root "all" */
	double x, y, w, h;	       /* px, y from the top */
	double traced, base;	       /* inclusive counts in the two profiles */
	double self_traced, self_base; /* counts of the stacks that end in this frame */
};

struct tb_fg_layout {
	struct tb_fg_frame *v; /* drawn frames, each parent before its children */
	size_t n;
	double width, height;
	unsigned int max_depth;
	double total;	  /* the traced profile's total count */
	double max_delta; /* largest |self_traced - self_base| of a drawn frame */
};

/*
 * Lay out the union of traced's and base's stacks (base may be NULL) at width px (0: TB_FG_WIDTH).
 * Widths come from traced only. Returns 0 or -ENOMEM; free with tb_fg_layout_free. The layout
 * borrows the folds' strings.
 */
int tb_fg_layout(const struct tb_fold *traced, const struct tb_fold *base, double width,
		 struct tb_fg_layout *out);
void tb_fg_layout_free(struct tb_fg_layout *l);

struct tb_fg_opts {
	const char *title;    /* top line */
	const char *subtitle; /* a second line under it, or NULL */
	double per_ops;	      /* counts are samples per this many ops (0: raw samples) */
	double period_ns;     /* ns one sample stands for (0: unknown: no ns/op on hover) */
	double width;	      /* px, 0: TB_FG_WIDTH */
	bool standalone;      /* an .svg file: XML prolog and xmlns (inline HTML needs neither) */
};

/*
 * Write the flame graph of traced (differential against base when base is not NULL) to f. An
 * empty traced profile gives a graph that says so. Returns 0 or -ENOMEM.
 */
int tb_fg_svg(FILE *f, const struct tb_fold *traced, const struct tb_fold *base,
	      const struct tb_fg_opts *o);
/*
 * tb_fg_svg (standalone) written as name in d (core/outdir.h: atomically, never through a
 * link). Returns 0 or -errno (said, naming the file).
 */
int tb_fg_write(const struct tb_dir *d, const char *name, const struct tb_fold *traced,
		const struct tb_fold *base, const struct tb_fg_opts *o);

#endif /* TB_EXPLAIN_FLAMEGRAPH_H */
