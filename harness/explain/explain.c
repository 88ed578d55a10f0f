// SPDX-License-Identifier: GPL-2.0
/* A traced cell's explanation: files, the result's object, and back (explain.h). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/outdir.h"
#include "core/tb.h"
#include "explain/attribute.h"
#include "explain/explain.h"
#include "explain/flamegraph.h"
#include "model/explain.h"

void tb_explain_run_init(struct tb_explain_run *x)
{
	memset(x, 0, sizeof(*x));
	tb_fold_init(&x->fold);
}

void tb_explain_run_free(struct tb_explain_run *x)
{
	tb_fold_free(&x->fold);
	tb_explain_run_init(x);
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(const double *v, unsigned int n)
{
	double s[TB_EXPLAIN_MAX_RUNS];

	if (!n)
		return NAN;
	memcpy(s, v, n * sizeof(*v));
	qsort(s, n, sizeof(*s), cmp_dbl);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/* "explain/<cell id, '/' as '.', anything else outside [A-Za-z0-9._+-] as '_'>", unique in r. */
static void cell_dir(const struct tb_result *r, const struct tb_cell *c, char *buf, size_t len)
{
	char name[112];
	size_t i;

	snprintf(name, sizeof(name), "%s", c->id ? c->id : "cell");
	for (i = 0; name[i]; i++)
		if (name[i] == '/')
			name[i] = '.';
		else if (!strchr("._+-", name[i]) && !(name[i] >= '0' && name[i] <= '9') &&
			 !((name[i] | 0x20) >= 'a' && (name[i] | 0x20) <= 'z'))
			name[i] = '_';
	if (!name[0] || !strcmp(name, ".") || !strcmp(name, ".."))
		snprintf(name, sizeof(name), "cell");
	for (unsigned int n = 1;; n++) {
		bool taken = false;

		if (n == 1)
			snprintf(buf, len, "explain/%s", name);
		else
			snprintf(buf, len, "explain/%s-%u", name, n);
		for (i = 0; i < r->ncells && !taken; i++)
			taken = &r->cells[i] != c && r->cells[i].explain &&
				r->cells[i].explain->dir && !strcmp(r->cells[i].explain->dir, buf);
		if (!taken)
			return;
	}
}

static void side_figures(struct tb_cell_explain_side *s, const struct tb_explain_run *x,
			 double period)
{
	s->runs = x->runs;
	s->ops = x->ops;
	s->samples = x->st.samples;
	s->kernel = x->st.kernel_samples;
	s->lost = x->st.lost;
	s->truncated = x->st.truncated;
	s->other = x->st.other_samples;
	s->ns_per_op = median(x->ns, x->runs);
	s->cpu_ns_per_op = x->ops ? (double)x->st.samples * period / (double)x->ops : NAN;
}

/* Other tasks' time on the workload's CPUs, ns per op of the workload. */
static double other_ns(const struct tb_explain_run *x, const struct tb_explain_settings *set)
{
	return x->ops ? (double)x->st.other_samples * (double)set->period_ns / (double)x->ops : 0;
}

/* What limited the profiles, in words. */
static int limits(struct tb_cell_explain *e, const struct tb_explain_run *b,
		  const struct tb_explain_run *t, const struct tb_explain_settings *set)
{
	const struct tb_profile_stats *st = &t->st;
	int ret = 0;

	if (st->per_task || b->st.per_task)
		ret |= tb_cell_explain_limit(e, "%s",
					     st->per_task ? st->per_task_why : b->st.per_task_why);
	if (st->user_only || b->st.user_only)
		ret |= tb_cell_explain_limit(e, "user space only: %s",
					     st->user_only ? st->user_only_why
							   : b->st.user_only_why);
	if (set->kallsyms_hidden)
		ret |= tb_cell_explain_limit(e,
					     "kernel symbols are hidden (/proc/kallsyms reads 0, "
					     "kernel.kptr_restrict): kernel frames are addresses");
	if (set->bpf_from_info)
		ret |= tb_cell_explain_limit(
			e, "net.core.bpf_jit_kallsyms = 0: BPF programs named from "
			   "bpf_prog_info; trampolines and dispatchers are addresses");
	if (st->truncated)
		ret |= tb_cell_explain_limit(
			e,
			"%.2f%% of the traced samples hit kernel.perf_event_max_stack "
			"(%u): their stacks are cut at the root ([truncated])",
			100.0 * (double)st->truncated / (double)(st->samples ? st->samples : 1),
			st->max_stack);
	if (st->lost || b->st.lost)
		ret |= tb_cell_explain_limit(e,
					     "%llu traced and %llu baseline samples lost (the "
					     "profiler's ring buffer was full)",
					     (unsigned long long)st->lost,
					     (unsigned long long)b->st.lost);
	if (other_ns(t, set) - other_ns(b, set) > 1)
		ret |= tb_cell_explain_limit(
			e,
			"other tasks ran on the workload's CPU for %.1f ns/op during "
			"the traced samples against %.1f during the baseline's: time "
			"the profiles leave out",
			other_ns(t, set), other_ns(b, set));
	if (st->throttled || b->st.throttled)
		ret |= tb_cell_explain_limit(e,
					     "the kernel throttled sampling %llu times "
					     "(perf_cpu_time_max_percent)",
					     (unsigned long long)(st->throttled + b->st.throttled));
	return ret ? -ENOMEM : 0;
}

/* Why the profiles cannot be attributed, or "" when they can. */
static void attributable(struct tb_cell_explain *e, char *why, size_t len)
{
	uint64_t nb = e->base.samples, nt = e->traced.samples;

	why[0] = '\0';
	e->attributable = false;
	if (nb < TB_EXPLAIN_MIN_SAMPLES || nt < TB_EXPLAIN_MIN_SAMPLES)
		snprintf(
			why, len,
			"too few samples to attribute (%llu traced, %llu baseline; at least %d "
			"each: longer samples, more explain-samples or a higher explain-frequency)",
			(unsigned long long)nt, (unsigned long long)nb, TB_EXPLAIN_MIN_SAMPLES);
	else if (!(fabs(e->added_ns) >= TB_EXPLAIN_NOISE_SE * e->added_se_ns))
		snprintf(why, len,
			 "the profiles cannot tell an added cost from their sampling noise (%+.1f "
			 "+- %.1f ns/op)",
			 e->added_ns, e->added_se_ns);
	else
		e->attributable = true;
}

static int table(struct tb_cell_explain *e, const struct tb_attr *a)
{
	for (size_t i = 0; i < e->nfns; i++)
		free(e->fns[i].name);
	free(e->fns);
	e->fns = NULL;
	e->nfns = 0;
	for (size_t i = 0; i < a->nfns; i++) {
		const struct tb_attr_fn *f = &a->fns[i];
		struct tb_cell_explain_fn *x = tb_cell_explain_add_fn(e, f->name);
		bool ovh = isfinite(e->overhead_ns) && e->overhead_ns > 0;

		if (!x)
			return -ENOMEM;
		x->kernel = f->kernel;
		x->self_base = f->self_base;
		x->self_traced = f->self_traced;
		x->incl_base = f->incl_base;
		x->incl_traced = f->incl_traced;
		x->self_share = ovh ? (f->self_traced - f->self_base) / e->overhead_ns : NAN;
		x->incl_share = ovh ? (f->incl_traced - f->incl_base) / e->overhead_ns : NAN;
	}
	return 0;
}

/* The table, the totals, attributability and the share check from normalised folds. */
static int compute(struct tb_cell_explain *e, const struct tb_cell *c, const struct tb_fold *b,
		   const struct tb_fold *t)
{
	struct tb_attr a;
	struct tb_attr_share sh;
	double ob = (double)e->base.ops, ot = (double)e->traced.ops;
	char why[320], text[700];
	int ret = tb_attr_build(b, t, e->per_ops, e->period_ns, TB_EXPLAIN_TOP, &a);

	if (ret)
		return ret;
	e->base.cpu_ns_per_op = a.base_ns;
	e->traced.cpu_ns_per_op = a.traced_ns;
	e->added_ns = a.traced_ns - a.base_ns;
	e->added_se_ns = ob > 0 && ot > 0
				 ? e->period_ns * sqrt((double)e->traced.samples / (ot * ot) +
						       (double)e->base.samples / (ob * ob))
				 : NAN;
	e->overhead_ns = c->has_overhead ? c->overhead.ns_per_op : NAN;
	ret = table(e, &a);
	tb_attr_free(&a);
	if (ret)
		return ret;
	attributable(e, why, sizeof(why));
	tb_attr_share(e->added_ns, e->added_se_ns, e->overhead_ns,
		      c->has_overhead ? c->overhead.ns_ci_lo : NAN,
		      c->has_overhead ? c->overhead.ns_ci_hi : NAN, e->tolerance, &sh);
	e->share = sh.share;
	e->share_lo = sh.lo;
	e->share_hi = sh.hi;
	e->explained = e->attributable && sh.within;
	snprintf(text, sizeof(text), "%s%s%s", why, why[0] ? "; " : "", sh.text);
	free(e->statement);
	e->statement = strdup(text);
	return e->statement ? 0 : -ENOMEM;
}

static int write_files(const struct tb_dir *d, const struct tb_fold *b, const struct tb_fold *t)
{
	int ret = tb_fold_write(b, d, TB_EXPLAIN_BASE);

	if (!ret)
		ret = tb_fold_write(t, d, TB_EXPLAIN_TRACED);
	if (!ret)
		ret = tb_fold_write_diff(b, t, d, TB_EXPLAIN_DIFF);
	return ret;
}

/* The explanation without profiles: why. */
static int no_profile(struct tb_cell *c, struct tb_cell_explain *e, const struct tb_explain_run *b,
		      const struct tb_explain_run *t)
{
	char msg[600];

	snprintf(msg, sizeof(msg), "%s%s",
		 t->error[0]   ? t->error
		 : b->error[0] ? b->error
			       : "",
		 t->error[0] || b->error[0] ? "" : "no explain sample completed");
	e->error = strdup(msg);
	if (!e->error) {
		tb_cell_explain_free(e);
		return -ENOMEM;
	}
	tb_cell_explain_free(c->explain);
	c->explain = e;
	return 0;
}

/* Normalise both sides to samples per e->per_ops ops. */
static int normalise(struct tb_cell_explain *e, const struct tb_explain_run *b,
		     const struct tb_explain_run *t, struct tb_fold *nb, struct tb_fold *nt)
{
	e->per_ops = tb_fold_unit(b->ops, t->ops);
	if (tb_fold_scale(&b->fold, e->per_ops / (double)b->ops, nb) ||
	    tb_fold_scale(&t->fold, e->per_ops / (double)t->ops, nt))
		return -ENOMEM;
	tb_fold_sort(nb);
	tb_fold_sort(nt);
	return 0;
}

/*
 * rundir's explain/<name> (rel, as cell_dir gives it) into out, both created when absent:
 * through the run directory's handle and never through a link planted in it.
 */
static int open_cell_dir(const struct tb_dir *rundir, const char *rel, struct tb_dir *out)
{
	struct tb_dir explain = TB_DIR_INIT;
	int ret = tb_dir_sub(rundir, "explain", TB_DIR_CREATE, 0755, &explain); /* says why */

	if (!ret)
		ret = tb_dir_sub(&explain, rel + strlen("explain/"), TB_DIR_CREATE, 0755, out);
	tb_dir_close(&explain);
	return ret;
}

int tb_explain_publish(struct tb_result *r, struct tb_cell *c, const struct tb_dir *rundir,
		       const struct tb_explain_run *base, const struct tb_explain_run *traced,
		       const struct tb_explain_settings *set)
{
	struct tb_cell_explain *e = tb_cell_explain_new();
	struct tb_dir dir = TB_DIR_INIT;
	struct tb_fold nb, nt;
	char rel[160];
	int ret;

	if (!e)
		return -ENOMEM;
	e->period_ns = (double)set->period_ns;
	e->frequency_hz = 1e9 / (double)set->period_ns;
	e->tolerance = set->tolerance;
	side_figures(&e->base, base, e->period_ns);
	side_figures(&e->traced, traced, e->period_ns);
	e->profiled_overhead_ns = e->traced.ns_per_op - e->base.ns_per_op;
	if (limits(e, base, traced, set)) {
		tb_cell_explain_free(e);
		return -ENOMEM;
	}
	if (base->error[0] || traced->error[0] || !base->ops || !traced->ops)
		return no_profile(c, e, base, traced);
	tb_fold_init(&nb);
	tb_fold_init(&nt);
	cell_dir(r, c, rel, sizeof(rel));
	ret = normalise(e, base, traced, &nb, &nt);
	if (!ret)
		ret = open_cell_dir(rundir, rel, &dir);
	if (!ret && !(e->dir = strdup(rel)))
		ret = -ENOMEM;
	if (!ret)
		ret = write_files(&dir, &nb, &nt);
	if (!ret)
		ret = compute(e, c, &nb, &nt);
	tb_cell_explain_free(c->explain);
	c->explain = e;
	if (!ret)
		ret = tb_explain_render(c, &nb, &nt, &dir);
	tb_dir_close(&dir);
	tb_fold_free(&nb);
	tb_fold_free(&nt);
	return ret;
}

int tb_explain_load(const struct tb_result *r, const struct tb_cell *c, struct tb_fold *base,
		    struct tb_fold *traced)
{
	const struct tb_cell_explain *e = c->explain;
	char path[4400], rel[320];
	int dfd, ret;

	if (!e || !e->dir)
		return -ENOENT;
	if (!tb_cell_explain_dir_ok(e->dir)) {
		tb_err("%s: explain.dir \"%s\" is not explain/<name>", c->id, e->dir);
		return -EINVAL;
	}
	if (!r->dir) {
		tb_err("%s: the result's directory is not known: cannot find %s/", c->id, e->dir);
		return -ENOENT;
	}
	/* The result's directory as named; beneath it, no link is followed (a crafted result
	 * could point explain/ at any file of the machine). */
	dfd = open(r->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		ret = -errno;
		tb_err("%s: cannot open the result's directory: %s", r->dir, strerror(-ret));
		return ret == -ENOENT ? -ENOENT : -EIO;
	}
	snprintf(rel, sizeof(rel), "%s/%s", e->dir, TB_EXPLAIN_BASE);
	snprintf(path, sizeof(path), "%s/%s", r->dir, rel);
	ret = tb_fold_read_at(dfd, rel, path, base);
	if (!ret) {
		snprintf(rel, sizeof(rel), "%s/%s", e->dir, TB_EXPLAIN_TRACED);
		snprintf(path, sizeof(path), "%s/%s", r->dir, rel);
		ret = tb_fold_read_at(dfd, rel, path, traced);
	}
	close(dfd);
	if (!ret) {
		tb_fold_sort(base);
		tb_fold_sort(traced);
	}
	return ret;
}

int tb_explain_recompute(struct tb_cell *c, const struct tb_fold *base,
			 const struct tb_fold *traced)
{
	if (!c->explain || !(c->explain->per_ops > 0) || !(c->explain->period_ns > 0))
		return -EINVAL;
	return compute(c->explain, c, base, traced);
}

static void graph_opts(const struct tb_cell *c, bool diff, char *title, size_t tlen, char *sub,
		       size_t slen, struct tb_fg_opts *o)
{
	const struct tb_cell_explain *e = c->explain;

	snprintf(title, tlen, "%s under %s: %s", c->workload, c->tracer,
		 diff ? "where the overhead lands (traced vs baseline)" : "the traced profile");
	if (diff)
		snprintf(sub, slen, "%+.1f ns/op of CPU time added (%.1f -> %.1f); %s", e->added_ns,
			 e->base.cpu_ns_per_op, e->traced.cpu_ns_per_op,
			 e->statement ? e->statement : "");
	else
		snprintf(sub, slen,
			 "%.1f ns/op of the workload's CPU time, %.0f Hz cpu-clock, %u runs",
			 e->traced.cpu_ns_per_op, e->frequency_hz, e->traced.runs);
	*o = (struct tb_fg_opts){
		.title = title, .subtitle = sub, .per_ops = e->per_ops, .period_ns = e->period_ns};
}

int tb_explain_render(const struct tb_cell *c, const struct tb_fold *base,
		      const struct tb_fold *traced, const struct tb_dir *dir)
{
	char title[300], sub[900];
	struct tb_fg_opts o;
	int ret;

	graph_opts(c, true, title, sizeof(title), sub, sizeof(sub), &o);
	ret = tb_fg_write(dir, TB_EXPLAIN_DIFF_SVG, traced, base, &o);
	if (ret)
		return ret;
	graph_opts(c, false, title, sizeof(title), sub, sizeof(sub), &o);
	return tb_fg_write(dir, TB_EXPLAIN_TRACED_SVG, traced, NULL, &o);
}

int tb_explain_svg_inline(FILE *f, const struct tb_result *r, const struct tb_cell *c, bool diff)
{
	struct tb_fold b, t;
	char title[300], sub[900];
	struct tb_fg_opts o;
	int ret;

	tb_fold_init(&b);
	tb_fold_init(&t);
	ret = tb_explain_load(r, c, &b, &t);
	if (!ret) {
		graph_opts(c, diff, title, sizeof(title), sub, sizeof(sub), &o);
		ret = tb_fg_svg(f, &t, diff ? &b : NULL, &o);
	}
	tb_fold_free(&b);
	tb_fold_free(&t);
	return ret;
}
