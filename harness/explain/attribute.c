// SPDX-License-Identifier: GPL-2.0
/* The added cost by function and the explained share (attribute.h). */
#include <errno.h>
#include <stdio.h>
#include <sys/types.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "explain/attribute.h"

/* Per function name, counts on one side; tb_fold serves as the string -> count map. */
struct side {
	struct tb_fold self, incl;
};

static bool is_function(const char *p, size_t len, size_t idx)
{
	return idx > 0 && !(len == strlen(TB_FOLD_TRUNCATED) && !memcmp(p, TB_FOLD_TRUNCATED, len));
}

/* Each function of one stack once into incl, its leaf into self. */
static int add_stack(struct side *s, const char *stack, double count)
{
	const char *seen[TB_FOLD_MAX_FRAMES];
	size_t seen_len[TB_FOLD_MAX_FRAMES], nseen = 0, idx = 0;
	const char *p = stack, *leaf = NULL;
	size_t leaf_len = 0;

	for (;; idx++) {
		const char *semi = strchr(p, ';');
		size_t len = semi ? (size_t)(semi - p) : strlen(p), k;

		if (is_function(p, len, idx) && nseen < TB_FOLD_MAX_FRAMES) {
			for (k = 0; k < nseen; k++)
				if (seen_len[k] == len && !memcmp(seen[k], p, len))
					break;
			if (k == nseen) {
				seen[nseen] = p;
				seen_len[nseen++] = len;
				if (tb_fold_add(&s->incl, p, len, count))
					return -ENOMEM;
			}
			leaf = p;
			leaf_len = len;
		} else if (!semi) {
			leaf = NULL; /* the leaf is not a function (a bare process name) */
		}
		if (!semi)
			break;
		p = semi + 1;
	}
	return leaf && tb_fold_add(&s->self, leaf, leaf_len, count) ? -ENOMEM : 0;
}

static int side_build(struct side *s, const struct tb_fold *f)
{
	tb_fold_init(&s->self);
	tb_fold_init(&s->incl);
	for (size_t i = 0; i < f->n; i++)
		if (add_stack(s, f->v[i].stack, f->v[i].count))
			return -ENOMEM;
	return 0;
}

static void side_free(struct side *s)
{
	tb_fold_free(&s->self);
	tb_fold_free(&s->incl);
}

static double added_self(const struct tb_attr_fn *f)
{
	return f->self_traced - f->self_base;
}

static double added_incl(const struct tb_attr_fn *f)
{
	return f->incl_traced - f->incl_base;
}

static int by_self(const void *a, const void *b)
{
	double x = added_self(a), y = added_self(b);

	if (x != y)
		return x < y ? 1 : -1;
	return strcmp(((const struct tb_attr_fn *)a)->name, ((const struct tb_attr_fn *)b)->name);
}

static int by_incl_idx(const void *a, const void *b, void *arg)
{
	const struct tb_attr_fn *v = arg, *x = &v[*(const size_t *)a], *y = &v[*(const size_t *)b];

	if (added_incl(x) != added_incl(y))
		return added_incl(x) < added_incl(y) ? 1 : -1;
	return by_self(x, y);
}

/* Every function of either side (the inclusive maps hold them all), with its four figures. */
static int all_functions(const struct side *b, const struct side *t, double ns,
			 struct tb_attr_fn **out, size_t *n)
{
	size_t cap = b->incl.n + t->incl.n, m = 0;
	struct tb_attr_fn *v = calloc(cap ? cap : 1, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (int pass = 0; pass < 2; pass++) {
		const struct tb_fold *names = pass ? &b->incl : &t->incl;

		for (size_t i = 0; i < names->n; i++) {
			const char *name = names->v[i].stack;
			size_t len = strlen(name);

			if (pass && tb_fold_has(&t->incl, name))
				continue;
			v[m].kernel = tb_fold_frame_is_kernel(name, len);
			v[m].name = strndup(name, v[m].kernel ? len - strlen(TB_FOLD_KERNEL) : len);
			if (!v[m].name) {
				*out = v;
				*n = m;
				return -ENOMEM;
			}
			v[m].self_base = tb_fold_count(&b->self, name) * ns;
			v[m].self_traced = tb_fold_count(&t->self, name) * ns;
			v[m].incl_base = tb_fold_count(&b->incl, name) * ns;
			v[m].incl_traced = tb_fold_count(&t->incl, name) * ns;
			m++;
		}
	}
	*out = v;
	*n = m;
	return 0;
}

/*
 * Keep the first `top` by added self time and the first `top` by added inclusive time, in self
 * order; the others are freed. Returns how many are left (or -ENOMEM).
 */
static ssize_t pick_top(struct tb_attr_fn *v, size_t n, size_t top)
{
	size_t *idx = malloc((n ? n : 1) * sizeof(*idx)), k = 0;
	bool *keep = calloc(n ? n : 1, sizeof(*keep));

	if (!idx || !keep) {
		free(idx);
		free(keep);
		return -ENOMEM;
	}
	qsort(v, n, sizeof(*v), by_self);
	for (size_t i = 0; i < n; i++) {
		idx[i] = i;
		keep[i] = i < top;
	}
	qsort_r(idx, n, sizeof(*idx), by_incl_idx, v);
	for (size_t i = 0; i < n && i < top; i++)
		keep[idx[i]] = true;
	for (size_t i = 0; i < n; i++) {
		if (keep[i])
			v[k++] = v[i];
		else
			free(v[i].name);
	}
	free(idx);
	free(keep);
	return (ssize_t)k;
}

int tb_attr_build(const struct tb_fold *base, const struct tb_fold *traced, double per_ops,
		  double period_ns, size_t top, struct tb_attr *out)
{
	double ns = per_ops > 0 ? period_ns / per_ops : 0; /* ns per op of one count */
	struct side b, t;
	ssize_t kept;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = side_build(&b, base);
	if (!ret)
		ret = side_build(&t, traced);
	else
		tb_fold_init(&t.self), tb_fold_init(&t.incl);
	if (!ret)
		ret = all_functions(&b, &t, ns, &out->fns, &out->nfns);
	side_free(&b);
	side_free(&t);
	if (!ret) {
		kept = pick_top(out->fns, out->nfns, top);
		if (kept < 0)
			ret = -ENOMEM;
		else
			out->nfns = (size_t)kept;
	}
	if (ret) {
		tb_attr_free(out);
		return ret;
	}
	out->base_ns = base->total * ns;
	out->traced_ns = traced->total * ns;
	return 0;
}

void tb_attr_free(struct tb_attr *a)
{
	for (size_t i = 0; i < a->nfns; i++)
		free(a->fns[i].name);
	free(a->fns);
	memset(a, 0, sizeof(*a));
}

void tb_attr_share(double added_ns, double se_ns, double ovh_ns, double ovh_lo, double ovh_hi,
		   double tolerance, struct tb_attr_share *out)
{
	double lo_ovh = isfinite(ovh_lo) && ovh_lo > 0 ? ovh_lo : ovh_ns;
	double hi_ovh = isfinite(ovh_hi) && ovh_hi > ovh_ns ? ovh_hi : ovh_ns;
	double se = isfinite(se_ns) && se_ns > 0 ? se_ns : 0;

	memset(out, 0, sizeof(*out));
	out->share = out->lo = out->hi = NAN;
	if (!isfinite(ovh_ns) || ovh_ns <= 0 || !isfinite(added_ns)) {
		snprintf(out->text, sizeof(out->text),
			 "no measured overhead to explain (%+.1f ns/op measured; the profiles "
			 "add %+.1f ns/op)",
			 ovh_ns, added_ns);
		return;
	}
	out->share = added_ns / ovh_ns;
	out->lo = (added_ns - 2 * se) / hi_ovh;
	out->hi = (added_ns + 2 * se) / lo_ovh;
	out->within = fabs(out->share - 1) <= tolerance || (out->lo <= 1 && out->hi >= 1);
	snprintf(
		out->text, sizeof(out->text),
		"the profile %s %.0f%% of the measured overhead (%+.1f of %+.1f ns/op; %.0f-%.0f%% "
		"over its CI)%s",
		out->within	 ? "explains"
		: out->share < 1 ? "explains only"
				 : "shows",
		100 * out->share, added_ns, ovh_ns, 100 * out->lo, 100 * out->hi,
		out->within	 ? ""
		: out->share < 1 ? ": the rest is not on the workload's CPU time, or the machine "
				   "changed between the measured and the profiled samples"
				 : ": more than measured; the machine changed between the "
				   "measured and the profiled samples");
}
