/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Comparison of two results (e.g. two kernels, two tracer versions), for `tracebench compare`,
 * the gate's --baseline and the HTML report. doc/statistics.md defines every number; its
 * outputs (JSON, table, Markdown) are render/compare-formats.h, its HTML render/html/report.h.
 */
#ifndef TB_COMPARE_H
#define TB_COMPARE_H

#include <jansson.h>
#include <stdbool.h>

#include "model/result.h"
#include "model/system.h"  /* struct tb_fp_diff */
#include "stats/service.h" /* enum tb_stats_svc */
#include "stats/sweep.h"   /* struct tb_cmp_sweep */

/* Which way a service metric of a matched row moved, B against A (tb_cmp_svc). */
enum tb_cmp_dir {
	TB_CMP_SAME,   /* not significant */
	TB_CMP_WORSE,  /* significant: lower throughput or higher latency */
	TB_CMP_BETTER, /* significant, the other way */
};

/*
 * One service metric of a matched service cell, B against A, by ns/op's rules: the medians
 * (requests/s or ns), the % change with a bootstrap CI (independent resampling), the
 * Mann-Whitney p; significant when p < alpha and the CI excludes 0.
 */
struct tb_cmp_svc {
	bool present; /* both sides have 2 or more values */
	double a, b;
	double pct, ci_lo, ci_hi;
	double p;
	enum tb_cmp_dir dir;
};

/* "same", "worse", "better". */
const char *tb_cmp_dir_name(enum tb_cmp_dir d);

/* One cell, matched by (workload, tracer, canonical config) or present on one side only. */
struct tb_cmp_row {
	const struct tb_cell *a, *b; /* borrowed; NULL when the cell is missing on that side */
	const char *id;		     /* a's id, else b's */
	bool config_differs;	     /* unmatched, but the same workload/tracer names exist */
	/* The cell's own ns/op, B against A: medians, % change with a bootstrap CI (independent
	 * resampling of the two sample sets) and the Mann-Whitney p. */
	double ns_a, ns_b;
	double ns_pct, ns_ci_lo, ns_ci_hi;
	double p;
	bool ns_significant; /* p < alpha and the CI excludes 0 */
	/* Traced cells: overhead % in A and B and its change in percentage points with CI. */
	bool traced;
	double ovh_a, ovh_b;
	double ovh_change, ovh_ci_lo, ovh_ci_hi;
	bool ovh_significant; /* the CI excludes 0 */
	enum tb_verdict verdict_a, verdict_b;
	/* Why the row's change may mislead (TB_CMP_*; matched rows only), and the figures that
	 * differ: each output says so beside the row (tb_cmp_row_note). */
	unsigned int caveats;
	double sample_s_a, sample_s_b; /* median wall time of one measured sample, s */
	/* Service cells (both sides): throughput, p50, p99 (enum tb_stats_svc). */
	bool has_svc;
	struct tb_cmp_svc svc[TB_STATS_SVC_N];
};

enum {
	TB_CMP_A_UNTRUSTED = 1 << 0, /* A's cell (the old one) is untrustworthy or failed */
	TB_CMP_B_UNTRUSTED = 1 << 1,
	TB_CMP_DURATION = 1 << 2, /* samples of different lengths (by more than 1.5x) */
	TB_CMP_SETTINGS = 1 << 3, /* threads, latency mode, warmup, noise-threshold or max-cv */
};

struct tb_comparison {
	const struct tb_result *a, *b; /* borrowed */
	const char *name_a, *name_b;   /* borrowed, for messages */
	double alpha;		       /* CIs at 1 - alpha, significance at p < alpha */
	struct tb_fp_diff *diffs;      /* environment differences, sorted by key */
	size_t ndiffs, ntransient;     /* ntransient of the ndiffs are transient */
	bool same_hardware;	       /* no hardware leaf differs */
	struct tb_cmp_row *rows;       /* matched in A's order, then only-in-A, then only-in-B */
	size_t nrows, nmatched;
	struct tb_cmp_sweep *sweeps; /* both (their slopes' change), then only-in-A, only-in-B */
	size_t nsweeps, nsweeps_both;
};

/*
 * Analyse a and b (tb_stats_analyze with their own settings) and compare them. alpha <= 0 means
 * a's setting. Returns 0 and *out (free with tb_compare_free; it borrows a, b and the names,
 * which must outlive it) or -ENOMEM.
 */
int tb_compare_build(struct tb_result *a, struct tb_result *b, const char *name_a,
		     const char *name_b, double alpha, struct tb_comparison **out);
void tb_compare_free(struct tb_comparison *c);
/*
 * The note beside row w when its caveats are not 0, into buf: "A untrustworthy: reason;
 * samples of 200 ms vs 1.00 s; settings differ: threads 1 vs 2". Every output of a comparison
 * and the gate's regression check print this one text. Returns buf ("" without caveats).
 */
const char *tb_cmp_row_note(const struct tb_comparison *c, const struct tb_cmp_row *w, char *buf,
			    size_t len);
/*
 * The environment differences as every output states them: the count of differing fields
 * that are not transient (time of capture, load), and a sentence: "identical systems" or
 * "N environment field(s) differ (same hardware)" / "...; the hardware differs, so differences
 * may come from it". Returns the count.
 */
size_t tb_compare_env_summary(const struct tb_comparison *c, char *buf, size_t len);
/* The row matching cell c of the newer result (b), or NULL. */
const struct tb_cmp_row *tb_compare_find(const struct tb_comparison *c, const struct tb_cell *b);

/* Canonical identity of a cell across results: "workload\ttracer\t{sorted config JSON}". */
char *tb_compare_key(const struct tb_cell *c);

#endif /* TB_COMPARE_H */
