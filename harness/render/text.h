/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Numbers and names as short text for the terminal tables, Markdown and plot labels, one rule
 * each: an unknown value is "-", a long name is cut at a UTF-8 boundary. Each writes into the
 * caller's buffer and returns the text to print (the buffer, or the string itself).
 */
#ifndef TB_TEXT_H
#define TB_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* v printed with fmt (one double conversion) into buf, or "-" when v is not finite. */
const char *tb_fmt_num(char *buf, size_t len, double v, const char *fmt);
/* v in decimal into buf, or "-" when negative (the result's "unknown"). */
const char *tb_fmt_count(char *buf, size_t len, int64_t v);
/* A duration of ns nanoseconds with a unit: "5.20 ns", "580 ns", "2.1 us", "3.4 ms", "1.2 s";
 * "?" when not finite. */
const char *tb_fmt_ns(char *buf, size_t len, double ns);
struct tb_cell;
/*
 * What a traced cell's cost column shows: "-" where its cost figures are not to be quoted
 * (tb_proof_cost_shown: no detectable overhead, untrustworthy, baseline); else its ns/event
 * with its CI ("514.2 [509.1, 520.0]"; "514.2" without one), or where its cost is not per
 * event the cost per context switch ("834/cs") or per sample ("18k/smp") when the statistics
 * found one (model/proof.h), else "-". TB_COST_LEGEND explains the suffixes.
 */
const char *tb_fmt_cost(char *buf, size_t len, const struct tb_cell *c);
#define TB_COST_LEGEND                                                                          \
	"/cs: ns per context switch of the workload (a per-task perf event's cost follows its " \
	"switches); /smp: ns per sample of the workload"

struct tb_event_cost;
/*
 * The line under an ns/event ranking for the n entries left out of it (stats/ranking.h
 * tb_stats_event_costs): how many, and each reason once with how many share it: "2 left out,
 * without a cost per event to rank: sampling: the cost is per sample, not per event (2)".
 */
const char *tb_fmt_left_out(char *buf, size_t len, const struct tb_event_cost *e, size_t n);

struct tb_rate_model;
/*
 * A fitted rate model as every output states it (the terminal, the rate plot's key):
 * "overhead ns/op = 34.6 [20.1, 49.0] + 95.2 [93.0, 97.4] ns x events/op, R^2 0.999".
 */
const char *tb_fmt_rate_model(char *buf, size_t len, const struct tb_rate_model *m);

/*
 * A cell's accounting samples as every output states them (result.h, struct tb_accounting):
 * "accounting: 10 samples with bpf_enable_stats on, never in the overhead: 112.9 ns/run, 1.00
 * runs/op; the stats cost +71.6% [65.2, 78.0] of the timed ns/op (+85.3 ns/op, 85.3 ns per
 * run)", the CI replaced by the reason when there is none. "" for a cell without them.
 */
const char *tb_fmt_accounting(char *buf, size_t len, const struct tb_cell *c);

/*
 * What a traced cell shows in the BPF cells' block of the summary and the report (METHODOLOGY.md
 * 6.5): split when its in-kernel ns/run (overhead.bpf_ns_per_run) and a quoted ns/event are
 * both known, with dispatch_ns = ns/event - ns/run (what is not the program's body: the hook's
 * dispatch and the slow path it enables); acct when it is the bpf tracer's and has accounting
 * samples (tb_fmt_accounting; a command tracer's are in its own block). Returns split || acct.
 */
struct tb_render_bpf_row {
	bool split, acct;
	double dispatch_ns; /* NAN without split */
};
bool tb_render_bpf_split(const struct tb_cell *c, struct tb_render_bpf_row *s);

/* A size in bytes with a unit (powers of 1000): "512 B", "1.4 kB", "197 MB", "2.1 GB";
 * "-" when negative (unknown). */
const char *tb_fmt_bytes(char *buf, size_t len, int64_t bytes);
/*
 * s itself when it has at most max bytes; else its first max bytes (fewer to end at a UTF-8
 * boundary, and at most len - 4) followed by "..." in buf. NULL gives "". With len < 8 s is
 * returned whole.
 */
const char *tb_shorten(char *buf, size_t len, const char *s, size_t max);

#endif /* TB_TEXT_H */
