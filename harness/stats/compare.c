// SPDX-License-Identifier: GPL-2.0
/*
 * Comparison of two results: environment differences, cells matched by identity, and the change
 * of each matched cell's ns/op and overhead with its CI (compare.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/compare.h"
#include "model/result.h"
#include "model/system.h"
#include "stats/stats.h"
#include "core/tb.h"

/* ---- environment diff ------------------------------------------------------------------------ */

static int diff_systems(struct tb_comparison *c)
{
	int ret = tb_system_diff(c->a->system, c->b->system, &c->diffs, &c->ndiffs);

	c->same_hardware = true;
	for (size_t i = 0; !ret && i < c->ndiffs; i++) {
		c->ntransient += c->diffs[i].transient;
		if (c->diffs[i].hardware)
			c->same_hardware = false;
	}
	return ret;
}

/* ---- cell matching --------------------------------------------------------------------------- */

char *tb_compare_key(const struct tb_cell *c)
{
	json_t *cfg = json_pack("{s:O?, s:O?}", "workload", c->workload_config, "tracer",
				c->tracer_config);
	char *dump, *key = NULL;

	if (!cfg)
		return NULL;
	dump = json_dumps(cfg, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(cfg);
	if (dump && asprintf(&key, "%s\t%s\t%s", c->workload ? c->workload : "",
			     c->tracer ? c->tracer : "", dump) < 0)
		key = NULL;
	free(dump);
	return key;
}

static bool same_names(const struct tb_cell *x, const struct tb_cell *y)
{
	return x->workload && y->workload && x->tracer && y->tracer &&
	       !strcmp(x->workload, y->workload) && !strcmp(x->tracer, y->tracer);
}

static void row_init(struct tb_cmp_row *w)
{
	memset(w, 0, sizeof(*w));
	w->ns_a = w->ns_b = w->ns_pct = w->ns_ci_lo = w->ns_ci_hi = w->p = NAN;
	w->ovh_a = w->ovh_b = w->ovh_change = w->ovh_ci_lo = w->ovh_ci_hi = NAN;
}

/* Median wall time of one measured sample of c, in seconds (NAN without one). */
static double sample_seconds(const struct tb_cell *c)
{
	double *v = malloc((c->nsamples + 1) * sizeof(*v)), m;
	size_t n = 0;

	if (!v)
		return NAN;
	for (size_t i = 0; i < c->nsamples; i++) {
		const struct tb_sample *s = &c->samples[i];
		/* Older results have no elapsed_ns: the batch's ops at its ns/op. */
		double ns = isfinite(s->elapsed_ns) ? s->elapsed_ns : s->ns_per_op * (double)s->ops;

		if (!s->warmup && !s->accounting && !s->failed && isfinite(ns) && ns > 0)
			v[n++] = ns / 1e9;
	}
	m = n ? tb_stats_median(v, n) : NAN;
	free(v);
	return m;
}

static bool untrusted(const struct tb_cell *x)
{
	return x->error ||
	       (!x->baseline && x->has_overhead && x->overhead.verdict == TB_VERDICT_UNTRUSTWORTHY);
}

/* What makes the change of a matched row doubtful: an untrustworthy side, other settings. */
static void row_caveats(const struct tb_comparison *c, struct tb_cmp_row *w)
{
	const struct tb_cell *a = w->a, *b = w->b;
	double r;

	w->caveats |= untrusted(a) ? TB_CMP_A_UNTRUSTED : 0;
	w->caveats |= untrusted(b) ? TB_CMP_B_UNTRUSTED : 0;
	w->sample_s_a = sample_seconds(a);
	w->sample_s_b = sample_seconds(b);
	r = w->sample_s_b / w->sample_s_a;
	if (isfinite(r) && (r > 1.5 || r < 1 / 1.5))
		w->caveats |= TB_CMP_DURATION;
	if (a->threads != b->threads || a->latency_mode != b->latency_mode ||
	    c->a->warmup != c->b->warmup || c->a->noise_threshold != c->b->noise_threshold ||
	    c->a->max_cv != c->b->max_cv)
		w->caveats |= TB_CMP_SETTINGS;
}

const char *tb_cmp_dir_name(enum tb_cmp_dir d)
{
	return d == TB_CMP_WORSE ? "worse" : d == TB_CMP_BETTER ? "better" : "same";
}

/*
 * The change of one figure from A's values va to B's vb, into ch (whose medians a and b the
 * caller set): % change of the medians, its bootstrap CI (independent resampling), the
 * Mann-Whitney p, and its direction when p < alpha and the CI excludes 0 (a rise is worse).
 * The one rule ns/op and the service metrics share. Returns 0 or -ENOMEM.
 */
static int change_of(const struct tb_comparison *c, const double *va, size_t na, const double *vb,
		     size_t nb, uint64_t seed, struct tb_cmp_svc *ch)
{
	unsigned int resamples = c->a->resamples ? c->a->resamples : 10000;
	double pci[2], nci[2];

	ch->pct = ch->ci_lo = ch->ci_hi = ch->p = NAN;
	ch->dir = TB_CMP_SAME;
	ch->present = na >= 2 && nb >= 2;
	if (na && nb && ch->a > 0)
		ch->pct = 100 * (ch->b / ch->a - 1);
	if (!ch->present)
		return 0;
	ch->p = tb_stats_mannwhitney(va, na, vb, nb, NULL);
	if (tb_stats_bootstrap(va, na, vb, nb, false, resamples, 1 - c->alpha, seed, pci, nci) ==
	    -ENOMEM)
		return -ENOMEM;
	ch->ci_lo = pci[0];
	ch->ci_hi = pci[1];
	if (ch->p < c->alpha && (pci[0] > 0 || pci[1] < 0))
		ch->dir = pci[0] > 0 ? TB_CMP_WORSE : TB_CMP_BETTER;
	return 0;
}

/* A service row's throughput, p50 and p99, B against A (a fall of throughput is worse). */
static int svc_changes(const struct tb_comparison *c, struct tb_cmp_row *w, uint64_t seed)
{
	const double *med_a[] = {&w->a->service.rps, &w->a->service.p50_ns, &w->a->service.p99_ns};
	const double *med_b[] = {&w->b->service.rps, &w->b->service.p50_ns, &w->b->service.p99_ns};

	w->has_svc = true;
	for (int m = 0; m < TB_STATS_SVC_N; m++) {
		struct tb_cmp_svc *ch = &w->svc[m];
		double *va = NULL, *vb = NULL;
		size_t na, nb;
		int ret = -ENOMEM;

		if (!tb_stats_service_values(w->a, (enum tb_stats_svc)m, &va, &na) &&
		    !tb_stats_service_values(w->b, (enum tb_stats_svc)m, &vb, &nb)) {
			ch->a = *med_a[m];
			ch->b = *med_b[m];
			ret = change_of(c, va, na, vb, nb, seed + (uint64_t)m, ch);
		}
		free(va);
		free(vb);
		if (ret)
			return ret;
		if (m == TB_STATS_SVC_RPS && ch->dir != TB_CMP_SAME)
			ch->dir = ch->dir == TB_CMP_WORSE ? TB_CMP_BETTER : TB_CMP_WORSE;
	}
	return 0;
}

static int fill_row(struct tb_comparison *c, struct tb_cmp_row *w, size_t idx)
{
	const struct tb_result *ra = c->a, *rb = c->b;
	const struct tb_cell *a = w->a, *b = w->b;
	double *va = NULL, *vb = NULL, pci[2];
	struct tb_cmp_svc ch;
	struct tb_cellpair pa = {0}, pb = {0};
	uint64_t seed = tb_stats_seed(ra->seed ^ rb->seed, 1000003 + idx);
	unsigned int resamples = ra->resamples ? ra->resamples : 10000;
	size_t na, nb;
	int ret = -ENOMEM;

	w->ns_a = a->summary.median;
	w->ns_b = b->summary.median;
	w->verdict_a = a->overhead.verdict;
	w->verdict_b = b->overhead.verdict;
	row_caveats(c, w);
	if (tb_stats_measured(a, &va, &na) || tb_stats_measured(b, &vb, &nb))
		goto out;
	ch.a = w->ns_a;
	ch.b = w->ns_b;
	if (change_of(c, va, na, vb, nb, seed, &ch))
		goto out;
	w->ns_pct = ch.pct;
	w->ns_ci_lo = ch.ci_lo;
	w->ns_ci_hi = ch.ci_hi;
	w->p = ch.p;
	w->ns_significant = ch.dir != TB_CMP_SAME;
	if (a->service.present && b->service.present && svc_changes(c, w, seed + 2))
		goto out;
	w->traced = !a->baseline && !b->baseline;
	if (w->traced) {
		const struct tb_cell *ba = tb_result_baseline(ra, a),
				     *bb = tb_result_baseline(rb, b);

		w->ovh_a = a->overhead.pct;
		w->ovh_b = b->overhead.pct;
		if (isfinite(w->ovh_a) && isfinite(w->ovh_b))
			w->ovh_change = w->ovh_b - w->ovh_a;
		if (ba && bb) {
			if (tb_stats_cellpair(ba, a, &pa) || tb_stats_cellpair(bb, b, &pb))
				goto out;
			ret = tb_stats_bootstrap_pct_change(&pa, &pb, resamples, 1 - c->alpha,
							    seed + 1, pci);
			if (ret == -ENOMEM)
				goto out;
			w->ovh_ci_lo = pci[0];
			w->ovh_ci_hi = pci[1];
			w->ovh_significant = pci[0] > 0 || pci[1] < 0;
		}
	}
	ret = 0;
out:
	tb_stats_cellpair_free(&pa);
	tb_stats_cellpair_free(&pb);
	free(va);
	free(vb);
	return ret;
}

void tb_compare_free(struct tb_comparison *c)
{
	if (!c)
		return;
	tb_fp_diffs_free(c->diffs, c->ndiffs);
	free(c->rows);
	free(c->sweeps);
	free(c);
}

static void keys_free(char **k, size_t n)
{
	for (size_t i = 0; k && i < n; i++)
		free(k[i]);
	free(k);
}

/* The canonical keys of r's cells (tb_compare_key), or NULL on ENOMEM. Free with keys_free. */
static char **cell_keys(const struct tb_result *r)
{
	char **k = calloc(r->ncells + 1, sizeof(*k));

	for (size_t i = 0; k && i < r->ncells; i++) {
		if (!(k[i] = tb_compare_key(&r->cells[i]))) {
			keys_free(k, r->ncells);
			return NULL;
		}
	}
	return k;
}

/* Matched rows first, in A's order: each cell of A with the first unused cell of B whose key
 * is the same. used[j] is set for the cells of B taken. */
static int match_rows(struct tb_comparison *c, char **ka, char **kb, bool *used)
{
	const struct tb_result *a = c->a, *b = c->b;

	for (size_t i = 0; i < a->ncells; i++) {
		for (size_t j = 0; j < b->ncells; j++) {
			struct tb_cmp_row *w;

			if (used[j] || strcmp(ka[i], kb[j]))
				continue;
			used[j] = true;
			w = &c->rows[c->nrows++];
			row_init(w);
			w->a = &a->cells[i];
			w->b = &b->cells[j];
			w->id = w->a->id;
			if (fill_row(c, w, i))
				return -ENOMEM;
			break;
		}
	}
	c->nmatched = c->nrows;
	return 0;
}

/* A row for cell x that only one side has; other is the other side's result. */
static void add_only(struct tb_comparison *c, const struct tb_cell *x, bool in_a,
		     const struct tb_result *other)
{
	struct tb_cmp_row *w = &c->rows[c->nrows++];

	row_init(w);
	if (in_a)
		w->a = x;
	else
		w->b = x;
	w->id = x->id;
	for (size_t k = 0; k < other->ncells; k++)
		if (same_names(x, &other->cells[k]))
			w->config_differs = true;
}

/* Rows for the cells of A that matched nothing, then those of B (used: taken by a match). */
static void add_unmatched(struct tb_comparison *c, const bool *used)
{
	for (size_t i = 0; i < c->a->ncells; i++) {
		bool matched = false;

		for (size_t k = 0; k < c->nmatched && !matched; k++)
			matched = c->rows[k].a == &c->a->cells[i];
		if (!matched)
			add_only(c, &c->a->cells[i], true, c->b);
	}
	for (size_t j = 0; j < c->b->ncells; j++)
		if (!used[j])
			add_only(c, &c->b->cells[j], false, c->a);
}

int tb_compare_build(struct tb_result *a, struct tb_result *b, const char *name_a,
		     const char *name_b, double alpha, struct tb_comparison **out)
{
	struct tb_comparison *c = calloc(1, sizeof(*c));
	char **ka = NULL, **kb = NULL;
	bool *used = NULL;
	int ret = -ENOMEM;

	*out = NULL;
	if (!c)
		return -ENOMEM;
	c->a = a;
	c->b = b;
	c->name_a = name_a;
	c->name_b = name_b;
	c->alpha = alpha > 0 && alpha < 1 ? alpha : a->alpha;
	if ((ret = tb_stats_analyze(a)) || (ret = tb_stats_analyze(b)))
		goto out;
	ret = -ENOMEM;
	if (diff_systems(c))
		goto out;
	ka = cell_keys(a);
	kb = cell_keys(b);
	used = calloc(b->ncells + 1, sizeof(*used));
	c->rows = calloc(a->ncells + b->ncells + 1, sizeof(*c->rows));
	if (!ka || !kb || !used || !c->rows || match_rows(c, ka, kb, used))
		goto out;
	add_unmatched(c, used);
	ret = tb_stats_sweep_changes(a, b, &c->sweeps, &c->nsweeps, &c->nsweeps_both);
out:
	keys_free(ka, a->ncells);
	keys_free(kb, b->ncells);
	free(used);
	if (ret)
		tb_compare_free(c);
	else
		*out = c;
	return ret;
}

/* "name x vs y" for each differing setting, appended at *off. */
static void setting_diff(char *buf, size_t len, size_t *off, const char *name, double x, double y,
			 double scale, const char *unit)
{
	if (x == y || *off >= len)
		return;
	*off += (size_t)snprintf(buf + *off, len - *off, "%s%s %g%s vs %g%s",
				 strstr(buf, "settings differ:") ? ", " : "; settings differ: ",
				 name, x * scale, unit, y * scale, unit);
}

static void untrusted_note(char *buf, size_t len, size_t *off, const char *side,
			   const struct tb_cell *x)
{
	if (*off >= len)
		return;
	*off += (size_t)snprintf(buf + *off, len - *off, "; %s untrustworthy: %s", side,
				 x->error ? x->error : x->overhead.reason);
}

const char *tb_cmp_row_note(const struct tb_comparison *c, const struct tb_cmp_row *w, char *buf,
			    size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	if (!w->caveats || !len)
		return buf;
	if (w->caveats & TB_CMP_A_UNTRUSTED)
		untrusted_note(buf, len, &off, c->name_a, w->a);
	if (w->caveats & TB_CMP_B_UNTRUSTED)
		untrusted_note(buf, len, &off, c->name_b, w->b);
	if ((w->caveats & TB_CMP_DURATION) && off < len)
		off += (size_t)snprintf(buf + off, len - off, "; samples of %.3g s vs %.3g s",
					w->sample_s_a, w->sample_s_b);
	if (w->caveats & TB_CMP_SETTINGS) {
		setting_diff(buf, len, &off, "threads", w->a->threads, w->b->threads, 1, "");
		setting_diff(buf, len, &off, "latency mode", w->a->latency_mode, w->b->latency_mode,
			     1, "");
		setting_diff(buf, len, &off, "warmup", c->a->warmup, c->b->warmup, 1, "");
		setting_diff(buf, len, &off, "noise-threshold", c->a->noise_threshold,
			     c->b->noise_threshold, 100, "%");
		setting_diff(buf, len, &off, "max-cv", c->a->max_cv, c->b->max_cv, 100, "%");
	}
	/* Every piece starts with "; ": drop the first. */
	if (off >= 2 && buf[0] == ';')
		memmove(buf, buf + 2, strlen(buf + 2) + 1);
	return buf;
}

size_t tb_compare_env_summary(const struct tb_comparison *c, char *buf, size_t len)
{
	size_t n = c->ndiffs - c->ntransient;

	if (!n)
		snprintf(buf, len, "identical systems");
	else
		snprintf(buf, len, "%zu environment field%s differ%s%s", n, n == 1 ? "" : "s",
			 n == 1 ? "s" : "",
			 c->same_hardware
				 ? " (same hardware)"
				 : "; the hardware differs, so differences may come from it");
	return n;
}

const struct tb_cmp_row *tb_compare_find(const struct tb_comparison *c, const struct tb_cell *b)
{
	for (size_t i = 0; i < c->nmatched; i++)
		if (c->rows[i].b == b)
			return &c->rows[i];
	return NULL;
}
