// SPDX-License-Identifier: GPL-2.0
/*
 * The probe-types plot: every tracer ranked by what one event costs the workload (the rate
 * model's cost per event where a sweep fitted one, else the cell's ns/event; tb_result_event_
 * costs), with its CI, and beside each the published figures for the same probe type. Drawn
 * when at least two tracers can be ranked; how many were left out, and why, under the axis.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/tb.h"
#include "render/gnuplot/gnuplot.h"
#include "render/text.h"
#include "model/result.h"
#include "stats/ranking.h"

/*
 * Published per-event costs by probe type (tb_cell_probe_label), each with its source; the
 * same figures and their setups are in METHODOLOGY.md section 7. Theirs are other machines'
 * and other loops' figures: the plot sets ours beside them, it does not expect them.
 */
static const struct published {
	const char *probe;
	const char *workload_type; /* what theirs hooked: getpid's path, or a user function */
	double ns;
	const char *source;
} published[] = {
	/* cloudflare/ebpf_exporter benchmark/README.md: getpid loop, M1 in QEMU, Linux 6.5-rc1
	 * (uprobes: 6.7-rc3, a C function called through cgo); tracepoint = tp_btf/sys_enter */
	{"bpf tp_btf empty", "getpid", 15, "ebpf_exporter, empty"},
	{"bpf tp_btf count", "getpid", 35, "ebpf_exporter, hash map"},
	{"bpf fentry empty", "getpid", 24, "ebpf_exporter, empty"},
	{"bpf fentry count", "getpid", 42, "ebpf_exporter, hash map"},
	{"bpf kprobe empty", "getpid", 137, "ebpf_exporter, empty"},
	{"bpf kprobe count", "getpid", 160, "ebpf_exporter, hash map"},
	{"bpf uprobe empty", "usercall", 1668, "ebpf_exporter, empty"},
	{"bpf uprobe count", "usercall", 1690, "ebpf_exporter, hash map"},
	/* BPF selftests bench (Nakryiko 2020): getpgid loop, a counting program */
	{"bpf tracepoint empty", "getpid", 41, "BPF bench 2020"},
	{"bpf raw_tp empty", "getpid", 8, "BPF bench 2020"},
	{"bpf kprobe empty", "getpid", 47, "BPF bench 2020"},
	{"bpf fentry empty", "getpid", 3, "BPF bench 2020"},
	/* Olsa's USDT trigger bench (Linux commit 0c4fc6bd6105): a counting program */
	{"bpf uprobe empty", "usercall", 313, "BPF bench, uprobe-nop"},
	{"bpf usdt empty", "usercall", 309, "BPF bench, usdt-nop"},
};

/* A published figure is for the same probe type on the same kind of target. */
static bool matches(const struct published *p, const struct tb_event_cost *e)
{
	return !strcmp(p->probe, e->probe) && !strcmp(p->workload_type, e->cell->workload_type);
}

/* The x axis: log when the costs span more than a factor 30 (uprobes beside tracepoints). */
static void axis_of(const struct tb_event_cost *e, size_t n, struct tb_gp_room *room, double *x0)
{
	double hi = 0, lo = INFINITY;
	size_t i, k;

	for (i = 0; i < n; i++) {
		hi = tb_gp_fmax3(hi, e[i].ns, e[i].hi);
		if (e[i].ns > 0)
			lo = fmin(lo, e[i].ns);
		for (k = 0; k < TB_ARRAY_SIZE(published); k++)
			if (matches(&published[k], &e[i])) {
				hi = fmax(hi, published[k].ns);
				lo = fmin(lo, published[k].ns);
			}
	}
	room->logx = n && isfinite(lo) && hi / lo > 30;
	*x0 = room->logx ? pow(10, floor(log10(lo / 2))) : 0;
	room->xmin = *x0;
	room->xmax = room->logx ? hi * 1.5 : (hi > 0 ? hi * 1.05 : 1);
}

/* Row i of the ranking, and its published figures into pub; returns how many it had. */
static int write_row(FILE *f, FILE *pub, size_t i, const struct tb_event_cost *e,
		     struct tb_gp_room *room, double x0, size_t *maxlbl)
{
	char lbl[200], t[160], a[32], b[32], c[32];
	double tx = tb_gp_fmax3(x0, e->ns, e->hi);
	size_t k;
	int np = 0;

	snprintf(lbl, sizeof(lbl), "%s (%.40s on %.24s)", e->probe, e->cell->tracer,
		 e->cell->workload_type);
	if (strlen(lbl) > *maxlbl)
		*maxlbl = strlen(lbl);
	snprintf(t, sizeof(t), "%s [%s, %s]%s", tb_fmt_ns(a, sizeof(a), e->ns),
		 tb_fmt_ns(b, sizeof(b), e->lo), tb_fmt_ns(c, sizeof(c), e->hi),
		 e->npoints ? " (rate model)" : "");
	if (!(tx > x0))
		tx = x0 > 0 ? x0 * 1.05 : 0;
	tb_gp_row(f, "zsddddrd", i, lbl, e->ns, e->lo, e->hi, e->ns, t, tx);
	room->plot_px = tb_gp_plot_width_px(1100, *maxlbl);
	tb_gp_room_for(room, tx, strlen(t));
	for (k = 0; k < TB_ARRAY_SIZE(published); k++) {
		if (!matches(&published[k], e))
			continue;
		snprintf(t, sizeof(t), "%s %s", tb_fmt_ns(a, sizeof(a), published[k].ns),
			 published[k].source);
		/* under the row's bar, one line per figure */
		tb_gp_row(pub, "zdrd", i, published[k].ns, t, (double)i + 0.2 + 0.27 * np);
		tb_gp_room_for(room, published[k].ns, strlen(t));
		np++;
	}
	return np;
}

int tb_plot_probe_types(struct tb_gp *g, const struct tb_result *r)
{
	struct tb_event_cost *e = calloc(r->ncells + 1, sizeof(*e));
	struct tb_gp_vars v = {0};
	struct tb_gp_room room = {0};
	FILE *f = NULL, *pub = NULL;
	size_t n, i, maxlbl = 0, nleft = 0;
	int ret = 0, npub = 0;
	char left[512] = "";
	double x0;

	if (!e || tb_gp_vars_open(&v)) {
		ret = -ENOMEM;
		goto out;
	}
	n = tb_stats_event_costs(r, e, r->ncells, &nleft);
	if (n < 2)
		goto out;
	f = tb_gp_dat_open(g, "probe-types", "tracers ranked by ns/event, cheapest first",
			   "row\tlabel\tns\tci_lo\tci_hi\tbar\ttext\ttext_x");
	pub = tb_gp_dat_open(g, "probe-types-published",
			     "published figures for the probe types of the rows",
			     "row\tns\ttext\ty");
	if (!f || !pub) {
		ret = -EIO;
		goto out;
	}
	axis_of(e, n, &room, &x0);
	for (i = 0; i < n; i++)
		npub += write_row(f, pub, i, &e[i], &room, x0, &maxlbl);
	ret = tb_gp_dat_close_both(g, f, "probe-types", pub, "probe-types-published");
	f = pub = NULL;
	if (ret)
		goto out;
	tb_gp_var_dat(&v, g, "datafile", "probe-types");
	tb_gp_var_dat(&v, g, "pubfile", "probe-types-published");
	tb_gp_var_d(&v, "n", (double)n);
	tb_gp_var_d(&v, "npub", npub);
	tb_gp_var_d(&v, "x0", x0);
	tb_gp_var_d(&v, "xmin", room.xmin);
	tb_gp_var_d(&v, "xmax", room.xmax * (room.logx ? 1.3 : 1.03));
	tb_gp_var_d(&v, "logx", room.logx);
	/* what the ranking leaves out, said under its axis */
	if (nleft)
		tb_fmt_left_out(left, sizeof(left), e + n, nleft);
	tb_gp_var_s(&v, "leftout", left);
	tb_gp_main_title(&v, g, "Probe types ranked by cost per event");
	ret = tb_gp_run(g, "probe-types", &v, 1100, 200 + 50 * (int)n);
out:
	if (f)
		fclose(f);
	if (pub)
		fclose(pub);
	tb_gp_vars_free(&v);
	free(e);
	return ret;
}
