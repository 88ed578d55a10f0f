// SPDX-License-Identifier: GPL-2.0
/*
 * The ns-per-event plot: the cost per traced event of each traced cell whose ns/event the
 * tables quote (a detectable overhead), and BPF's own run time.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/gnuplot/gnuplot.h"
#include "render/text.h"
#include "model/proof.h"
#include "model/result.h"

/* The x axis of the chart and the room its texts need. */
struct axis {
	struct tb_gp_room room;
	double x0; /* the left edge of a log axis, 0 for a linear one */
	bool logx;
};

static double ns_per_event(const struct tb_cell *c)
{
	return c->overhead.ns_per_event;
}

/* The axis of the n rows idx (cells of r), before the room for their texts. */
static void axis_of(const struct tb_result *r, const size_t *idx, size_t n, struct axis *ax)
{
	double hi = 0, lo = INFINITY, neg = 0;

	for (size_t i = 0; i < n; i++) {
		const struct tb_overhead *o = &r->cells[idx[i]].overhead;

		hi = tb_gp_fmax3(hi, o->ns_per_event, o->nse_ci_hi);
		hi = tb_gp_fmax3(hi, o->bpf_ns_per_run, NAN);
		neg = tb_gp_fmin3(neg, o->ns_per_event, o->nse_ci_lo);
		if (o->ns_per_event > 0)
			lo = fmin(lo, o->ns_per_event);
		if (o->bpf_ns_per_run > 0)
			lo = fmin(lo, o->bpf_ns_per_run);
	}
	/*
	 * A sampling tracer's cost per sample can dwarf a tracepoint's per event: log scale. A
	 * noisy cell can come out below its baseline (negative): on a log scale it gets no bar,
	 * only its text at the left edge.
	 */
	ax->logx = n && isfinite(lo) && hi / lo > 30;
	ax->x0 = ax->logx ? pow(10, floor(log10(lo / 2))) : 0;
	ax->room.logx = ax->logx;
	ax->room.xmin = ax->logx ? ax->x0 : neg - 0.04 * (hi - neg);
	ax->room.xmax = ax->logx ? hi * 1.5 : (hi > 0 ? hi * 1.05 : 1);
}

/*
 * Row i: cell c into f, its BPF run time (when it has one) into fb, with room on the axis for
 * their texts (against the longest label so far, *maxlbl). Returns whether the row has a BPF
 * run time. No coordinate is NaN: gnuplot 5.4.4 segfaults on a `with labels` clause whose
 * rows all have a NaN x, so BPF figures get their own file and a row without a CI gets a
 * zero-width error bar at its value.
 */
static bool write_row(FILE *f, FILE *fb, size_t i, const struct tb_cell *c, struct axis *ax,
		      size_t *maxlbl)
{
	const struct tb_overhead *o = &c->overhead;
	char lbl[600], t1[96], t2[64], a[32];
	bool bpf = isfinite(o->bpf_ns_per_run);
	bool ci = isfinite(o->nse_ci_lo) && isfinite(o->nse_ci_hi);
	double tx = tb_gp_fmax3(0, o->ns_per_event, o->nse_ci_hi);

	tb_gp_row_label(c, lbl, sizeof(lbl));
	if (strlen(lbl) > *maxlbl)
		*maxlbl = strlen(lbl);
	if (ax->logx && !(o->ns_per_event > 0)) {
		snprintf(t1, sizeof(t1), "%s/event (not above the baseline)",
			 tb_fmt_ns(a, sizeof(a), o->ns_per_event));
		tx = ax->x0 * 1.05; /* inside the axis: a label on its edge is clipped */
	} else {
		snprintf(t1, sizeof(t1), "%s/event", tb_fmt_ns(a, sizeof(a), o->ns_per_event));
	}
	snprintf(t2, sizeof(t2), "%s/run (BPF)", tb_fmt_ns(a, sizeof(a), o->bpf_ns_per_run));
	tb_gp_row(f, "zsssdddrd", i, c->workload, c->tracer, lbl, o->ns_per_event,
		  ci ? o->nse_ci_lo : o->ns_per_event, ci ? o->nse_ci_hi : o->ns_per_event, t1, tx);
	if (bpf)
		tb_gp_row(fb, "zdrd", i, o->bpf_ns_per_run, t2, o->bpf_ns_per_run);
	ax->room.plot_px = tb_gp_plot_width_px(1000, *maxlbl);
	tb_gp_room_for(&ax->room, tx, strlen(t1));
	if (bpf)
		tb_gp_room_for(&ax->room, o->bpf_ns_per_run, strlen(t2));
	return bpf;
}

int tb_plot_ns_per_event(struct tb_gp *g, const struct tb_result *r)
{
	size_t *idx = calloc(r->ncells + 1, sizeof(*idx)), n = 0, i, maxlbl = 0;
	struct tb_gp_vars v = {0};
	int ret = 0, nbpf = 0;
	struct axis ax;
	FILE *f = NULL, *fb = NULL;

	if (!idx || tb_gp_vars_open(&v)) {
		ret = -ENOMEM;
		goto out;
	}
	/* the cells whose ns/event the tables quote (model/proof.h), no others */
	for (i = 0; i < r->ncells; i++)
		if (tb_proof_ns_per_event_shown(&r->cells[i], NULL))
			idx[n++] = i;
	tb_gp_sort_desc(idx, n, r, ns_per_event);
	f = tb_gp_dat_open(g, "ns-per-event", "one row per traced cell with events, largest first",
			   "row\tworkload\ttracer\tlabel\tns_per_event\tci_lo\tci_hi\ttext\t"
			   "text_x");
	fb = tb_gp_dat_open(g, "ns-per-event-bpf",
			    "the rows of ns-per-event.dat whose tracer has BPF run time figures",
			    "row\tbpf_ns_per_run\tbpf_text\tbpf_text_x");
	if (!f || !fb) {
		ret = -EIO;
		goto out;
	}
	axis_of(r, idx, n, &ax);
	for (i = 0; i < n; i++)
		nbpf += write_row(f, fb, i, &r->cells[idx[i]], &ax, &maxlbl);
	ret = tb_gp_dat_close_both(g, f, "ns-per-event", fb, "ns-per-event-bpf");
	f = fb = NULL;
	if (ret || !n)
		goto out;
	tb_gp_var_dat(&v, g, "datafile", "ns-per-event");
	tb_gp_var_dat(&v, g, "bpffile", "ns-per-event-bpf");
	tb_gp_var_d(&v, "n", (double)n);
	tb_gp_var_d(&v, "nbpf", nbpf);
	tb_gp_var_d(&v, "x0", ax.x0);
	tb_gp_var_d(&v, "xmin", ax.room.xmin);
	tb_gp_var_d(&v, "xmax", ax.room.xmax * (ax.logx ? 1.3 : 1.03));
	tb_gp_var_d(&v, "logx", ax.logx);
	tb_gp_main_title(&v, g, "Cost per traced event");
	ret = tb_gp_run(g, "ns-per-event", &v, 1000, 200 + (nbpf ? 48 : 34) * (int)n);
out:
	if (f)
		fclose(f);
	if (fb)
		fclose(fb);
	tb_gp_vars_free(&v);
	free(idx);
	return ret;
}
