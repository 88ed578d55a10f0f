// SPDX-License-Identifier: GPL-2.0
/* Short text of numbers and names (text.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/tb.h"
#include "render/text.h"
#include "model/proof.h"
#include "model/result.h"
#include "stats/ranking.h"

const char *tb_fmt_num(char *buf, size_t len, double v, const char *fmt)
{
	if (isfinite(v))
		snprintf(buf, len, fmt, v);
	else
		snprintf(buf, len, "-");
	return buf;
}

const char *tb_fmt_count(char *buf, size_t len, int64_t v)
{
	if (v < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%lld", (long long)v);
	return buf;
}

const char *tb_fmt_cost(char *buf, size_t len, const struct tb_cell *c)
{
	const struct tb_overhead *o = &c->overhead;
	double v = o->ns_per_driver;

	if (!tb_proof_cost_shown(c, NULL))
		snprintf(buf, len, "-");
	else if (isfinite(o->ns_per_event) && isfinite(o->nse_ci_lo) && isfinite(o->nse_ci_hi))
		snprintf(buf, len, "%.1f [%.1f, %.1f]", o->ns_per_event, o->nse_ci_lo,
			 o->nse_ci_hi);
	else if (isfinite(o->ns_per_event))
		snprintf(buf, len, "%.1f", o->ns_per_event);
	else if (o->driver[0] && isfinite(v))
		snprintf(buf, len, fabs(v) >= 1e5 ? "%.0fk/%s" : "%.0f/%s",
			 fabs(v) >= 1e5 ? v / 1000 : v, strcmp(o->driver, "sample") ? "cs" : "smp");
	else
		snprintf(buf, len, "-");
	return buf;
}

const char *tb_fmt_left_out(char *buf, size_t len, const struct tb_event_cost *e, size_t n)
{
	size_t used, i, k, same;

	used = (size_t)snprintf(buf, len, "%zu left out, without a cost per event to rank:", n);
	for (i = 0; i < n && used < len; i++) {
		/* each reason once, with how many share it */
		for (k = 0; k < i && !tb_streq(e[k].why, e[i].why); k++)
			;
		if (k < i)
			continue;
		for (same = 0, k = i; k < n; k++)
			same += tb_streq(e[k].why, e[i].why);
		used += (size_t)snprintf(buf + used, len - used, "%s %s (%zu)", i ? ";" : "",
					 e[i].why ? e[i].why : "no figure", same);
	}
	return buf;
}

const char *tb_fmt_ns(char *buf, size_t len, double ns)
{
	if (!isfinite(ns))
		snprintf(buf, len, "?");
	else if (fabs(ns) < 10)
		snprintf(buf, len, "%.2f ns", ns);
	else if (fabs(ns) < 1000)
		snprintf(buf, len, "%.0f ns", ns);
	else if (fabs(ns) < 1e6)
		snprintf(buf, len, "%.3g us", ns / 1e3);
	else if (fabs(ns) < 1e9)
		snprintf(buf, len, "%.3g ms", ns / 1e6);
	else
		snprintf(buf, len, "%.3g s", ns / 1e9);
	return buf;
}

const char *tb_fmt_accounting(char *buf, size_t len, const struct tb_cell *c)
{
	const struct tb_accounting *a = &c->accounting;
	char ci[160] = "", per[32], runs[32], cost[32], nsop[32], nsrun[32];

	buf[0] = '\0';
	if (!a->present)
		return buf;
	if (isfinite(a->ci_lo) && isfinite(a->ci_hi))
		snprintf(ci, sizeof(ci), " [%+.1f, %+.1f]", a->ci_lo, a->ci_hi);
	else if (a->ci_reason[0])
		snprintf(ci, sizeof(ci), " (%s)", a->ci_reason);
	snprintf(buf, len,
		 "accounting: %u samples with bpf_enable_stats on, never in the overhead: %s "
		 "ns/run, %s runs/op; the stats cost %s%%%s of the timed ns/op (%s ns/op, %s ns "
		 "per run)",
		 a->samples, tb_fmt_num(per, sizeof(per), a->bpf_ns_per_run, "%.1f"),
		 tb_fmt_num(runs, sizeof(runs), a->bpf_runs_per_op, "%.2f"),
		 tb_fmt_num(cost, sizeof(cost), a->cost_pct, "%+.1f"), ci,
		 tb_fmt_num(nsop, sizeof(nsop), a->cost_ns_per_op, "%+.1f"),
		 tb_fmt_num(nsrun, sizeof(nsrun), a->cost_ns_per_run, "%+.1f"));
	return buf;
}

bool tb_render_bpf_split(const struct tb_cell *c, struct tb_render_bpf_row *s)
{
	const struct tb_overhead *o = &c->overhead;

	s->split = s->acct = false;
	s->dispatch_ns = NAN;
	if (c->baseline || !c->has_overhead)
		return false;
	s->split = isfinite(o->bpf_ns_per_run) && tb_proof_ns_per_event_shown(c, NULL);
	s->acct = c->accounting.present && tb_streq(c->tracer_type, "bpf");
	if (s->split)
		s->dispatch_ns = o->ns_per_event - o->bpf_ns_per_run;
	return s->split || s->acct;
}

const char *tb_fmt_bytes(char *buf, size_t len, int64_t bytes)
{
	double b = (double)bytes;

	if (bytes < 0)
		snprintf(buf, len, "-");
	else if (b < 1000)
		snprintf(buf, len, "%lld B", (long long)bytes);
	else if (b < 1e6)
		snprintf(buf, len, "%.3g kB", b / 1e3);
	else if (b < 1e9)
		snprintf(buf, len, "%.3g MB", b / 1e6);
	else
		snprintf(buf, len, "%.3g GB", b / 1e9);
	return buf;
}

const char *tb_shorten(char *buf, size_t len, const char *s, size_t max)
{
	if (!s)
		return "";
	if (strlen(s) <= max || len < 8)
		return s;
	if (max + 4 > len)
		max = len - 4;
	while (max > 0 && ((unsigned char)s[max] & 0xC0) == 0x80)
		max--;
	memcpy(buf, s, max);
	memcpy(buf + max, "...", 4);
	return buf;
}

const char *tb_fmt_rate_model(char *buf, size_t len, const struct tb_rate_model *m)
{
	snprintf(buf, len,
		 "overhead ns/op = %.1f [%.1f, %.1f] + %.1f [%.1f, %.1f] ns x events/op, R^2 %.3f",
		 m->fixed_ns, m->fixed_ci_lo, m->fixed_ci_hi, m->cost_ns, m->cost_ci_lo,
		 m->cost_ci_hi, m->r2);
	return buf;
}
