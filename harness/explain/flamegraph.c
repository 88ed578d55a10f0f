// SPDX-License-Identifier: GPL-2.0
/* Flame graph layout and SVG (flamegraph.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/outdir.h"
#include "core/array.h"
#include "core/tb.h"
#include "explain/flamegraph.h"
#include "core/markup.h"

#define FONT_SIZE  12.0
#define FONT_WIDTH 0.59 /* average character width in em (flamegraph.pl's) */

/* One stack of the union, with its counts on both sides. */
struct row {
	const char *s;
	double t, b;
};

struct span {
	const char *p;
	size_t len;
};

static int cmp_row(const void *a, const void *b)
{
	return tb_fold_stack_cmp(((const struct row *)a)->s, ((const struct row *)b)->s);
}

/* The union of both folds' stacks, sorted frame by frame. */
static struct row *rows_of(const struct tb_fold *t, const struct tb_fold *b, size_t *n)
{
	struct row *r = malloc((t->n + (b ? b->n : 0) + 1) * sizeof(*r));
	size_t m = 0;

	if (!r)
		return NULL;
	for (size_t i = 0; i < t->n; i++)
		r[m++] = (struct row){t->v[i].stack, t->v[i].count,
				      b ? tb_fold_count(b, t->v[i].stack) : 0};
	/* Stacks only the baseline has: no width, but their counts are their ancestors' too. */
	for (size_t i = 0; b && i < b->n; i++)
		if (!tb_fold_has(t, b->v[i].stack))
			r[m++] = (struct row){b->v[i].stack, 0, b->v[i].count};
	qsort(r, m, sizeof(*r), cmp_row);
	*n = m;
	return r;
}

static size_t split(const char *s, struct span *f)
{
	size_t n = 0;
	const char *p = s;

	for (;;) {
		const char *semi = strchr(p, ';');
		size_t len = semi ? (size_t)(semi - p) : strlen(p);

		if (n < TB_FOLD_MAX_FRAMES)
			f[n++] = (struct span){p, len};
		if (!semi)
			return n;
		p = semi + 1;
	}
}

/* The sweep over sorted stacks: a frame opens where a stack leaves its predecessor's path. */
struct sweep {
	struct tb_fg_frame *v;
	size_t n, cap;
	size_t open[TB_FOLD_MAX_FRAMES + 1]; /* index in v of the open frame at each depth */
	struct span prev[TB_FOLD_MAX_FRAMES];
	size_t nprev;
	double at, ab; /* counts swept so far */
};

static int open_frame(struct sweep *w, const char *p, size_t len, unsigned int depth)
{
	if (tb_array_reserve((void **)&w->v, &w->cap, w->n + 1, sizeof(*w->v), 256))
		return -ENOMEM;
	/* x and w hold the start counts until the frame closes */
	w->v[w->n] =
		(struct tb_fg_frame){.name = p, .len = len, .depth = depth, .x = w->at, .w = w->ab};
	w->open[depth] = w->n++;
	return 0;
}

static void close_frame(struct sweep *w, unsigned int depth)
{
	struct tb_fg_frame *f = &w->v[w->open[depth]];

	f->traced = w->at - f->x;
	f->base = w->ab - f->w;
}

static int sweep_row(struct sweep *w, const struct row *r, struct span *cur)
{
	size_t n = split(r->s, cur), same = 0, d;

	while (same < n && same < w->nprev && cur[same].len == w->prev[same].len &&
	       !memcmp(cur[same].p, w->prev[same].p, cur[same].len))
		same++;
	for (d = w->nprev; d > same; d--)
		close_frame(w, (unsigned int)d);
	for (d = same; d < n; d++)
		if (open_frame(w, cur[d].p, cur[d].len, (unsigned int)d + 1))
			return -ENOMEM;
	w->v[w->open[n]].self_traced += r->t;
	w->v[w->open[n]].self_base += r->b;
	w->at += r->t;
	w->ab += r->b;
	memcpy(w->prev, cur, n * sizeof(*cur));
	w->nprev = n;
	return 0;
}

/* Counts to pixels; frames too narrow to see are dropped, and so are those inside them. */
static void place(struct tb_fg_layout *l, struct sweep *w, double width)
{
	double wpt = l->total > 0 ? (width - 2 * TB_FG_XPAD) / l->total : 0;
	unsigned int hidden_below = UINT32_MAX;
	size_t k = 0;

	for (size_t i = 0; i < w->n; i++) {
		struct tb_fg_frame f = w->v[i];

		if (f.depth > hidden_below)
			continue;
		hidden_below = UINT32_MAX;
		f.x = TB_FG_XPAD + f.x * wpt;
		f.w = f.traced * wpt;
		if (f.w < TB_FG_MIN_WIDTH) {
			hidden_below = f.depth;
			continue;
		}
		if (f.depth > l->max_depth)
			l->max_depth = f.depth;
		if (fabs(f.self_traced - f.self_base) > l->max_delta)
			l->max_delta = fabs(f.self_traced - f.self_base);
		w->v[k++] = f;
	}
	l->n = k;
	l->v = w->v;
	l->height = (l->max_depth + 1) * TB_FG_FRAME_HEIGHT + TB_FG_YPAD_TOP + TB_FG_YPAD_BOTTOM;
	for (size_t i = 0; i < l->n; i++) {
		l->v[i].y = l->height - TB_FG_YPAD_BOTTOM -
			    (l->v[i].depth + 1) * TB_FG_FRAME_HEIGHT + 1;
		l->v[i].h = TB_FG_FRAME_HEIGHT - 1;
	}
}

int tb_fg_layout(const struct tb_fold *traced, const struct tb_fold *base, double width,
		 struct tb_fg_layout *out)
{
	struct sweep *w = calloc(1, sizeof(*w));
	struct span *cur = malloc(TB_FOLD_MAX_FRAMES * sizeof(*cur));
	struct row *rows = NULL;
	size_t n = 0;
	int ret = -ENOMEM;

	memset(out, 0, sizeof(*out));
	out->width = width > 0 ? width : TB_FG_WIDTH;
	if (!w || !cur || !(rows = rows_of(traced, base, &n)) || open_frame(w, "all", 3, 0))
		goto out;
	for (size_t i = 0; i < n; i++)
		if (sweep_row(w, &rows[i], cur))
			goto out;
	for (size_t d = w->nprev; d > 0; d--)
		close_frame(w, (unsigned int)d);
	close_frame(w, 0);
	out->total = w->at;
	place(out, w, out->width);
	w->v = NULL;
	ret = 0;
out:
	if (w)
		free(w->v);
	free(w);
	free(cur);
	free(rows);
	return ret;
}

void tb_fg_layout_free(struct tb_fg_layout *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* ---- SVG -------------------------------------------------------------------------------- */

/* The displayed name: without the kernel mark. */
static size_t shown_len(const struct tb_fg_frame *f, bool *kernel)
{
	*kernel = tb_fold_frame_is_kernel(f->name, f->len);
	return *kernel ? f->len - (sizeof(TB_FOLD_KERNEL) - 1) : f->len;
}

/* flamegraph.pl's colour_scale: red for growth, blue for shrinkage, white for none. */
static void diff_colour(const struct tb_fg_layout *l, const struct tb_fg_frame *f, int rgb[3])
{
	double d = f->self_traced - f->self_base, m = l->max_delta;

	rgb[0] = rgb[1] = rgb[2] = 255;
	if (m <= 0 || d == 0)
		return;
	if (d > 0)
		rgb[1] = rgb[2] = (int)(210 * (m - d) / m);
	else
		rgb[0] = rgb[1] = (int)(210 * (m + d) / m);
}

/* A shade in [0, 1) from the name, so a function keeps its colour across graphs. */
static double name_shade(const char *p, size_t len)
{
	unsigned int h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)p[i]) * 16777619u;
	return (double)(h % 1000) / 1000.0;
}

static void plain_colour(const struct tb_fg_frame *f, int rgb[3])
{
	bool kernel;
	size_t len = shown_len(f, &kernel);
	double v = name_shade(f->name, len);

	if (f->depth == 0) {
		rgb[0] = rgb[1] = rgb[2] = 200;
	} else if (kernel) {
		rgb[0] = 190 + (int)(65 * v);
		rgb[1] = 90 + (int)(65 * v);
		rgb[2] = 0;
	} else {
		rgb[0] = rgb[1] = 175 + (int)(55 * v);
		rgb[2] = 50 + (int)(20 * v);
	}
}

/* "12.3 ns/op", or samples when no period is known. */
static void amount(char *buf, size_t len, double count, const struct tb_fg_opts *o)
{
	if (o->period_ns > 0 && o->per_ops > 0)
		snprintf(buf, len, "%.1f ns/op", count * o->period_ns / o->per_ops);
	else if (o->per_ops > 0)
		snprintf(buf, len, "%.0f samples per %.0f ops", count, o->per_ops);
	else
		snprintf(buf, len, "%.0f samples", count);
}

static void title_of(FILE *f, const struct tb_fg_layout *l, const struct tb_fg_frame *fr,
		     const struct tb_fg_opts *o, bool diff)
{
	char t[64], b[64], d[64];
	bool kernel;
	size_t len = shown_len(fr, &kernel);

	amount(t, sizeof(t), fr->traced, o);
	fputs("<title>", f);
	tb_fput_markup(f, fr->name, len);
	fprintf(f, "%s: %s (%.1f%%)", kernel ? " [kernel]" : "", t,
		l->total > 0 ? 100.0 * fr->traced / l->total : 0.0);
	if (diff) {
		amount(b, sizeof(b), fr->base, o);
		amount(d, sizeof(d), fr->self_traced - fr->self_base, o);
		fprintf(f, ", baseline %s; self %s%s", b,
			fr->self_traced >= fr->self_base ? "+" : "", d);
	}
	fputs("</title>", f);
}

static void frame_svg(FILE *f, const struct tb_fg_layout *l, const struct tb_fg_frame *fr,
		      const struct tb_fg_opts *o, bool diff)
{
	int rgb[3];
	bool kernel;
	size_t len = shown_len(fr, &kernel), fit = (size_t)(fr->w / (FONT_SIZE * FONT_WIDTH));

	if (diff)
		diff_colour(l, fr, rgb);
	else
		plain_colour(fr, rgb);
	fputs("<g class=\"frame\">", f);
	title_of(f, l, fr, o, diff);
	fprintf(f,
		"<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"rgb(%d,%d,%d)\" "
		"rx=\"2\" ry=\"2\"/>",
		fr->x, fr->y, fr->w, fr->h, rgb[0], rgb[1], rgb[2]);
	if (fit >= 3) {
		fprintf(f, "<text x=\"%.2f\" y=\"%.1f\">", fr->x + 3, fr->y + 10.5);
		if (len <= fit) {
			tb_fput_markup(f, fr->name, len);
		} else {
			tb_fput_markup(f, fr->name, fit - 2);
			fputs("..", f);
		}
		fputs("</text>", f);
	}
	fputs("</g>\n", f);
}

static void header(FILE *f, const struct tb_fg_layout *l, const struct tb_fg_opts *o, bool diff)
{
	if (o->standalone)
		fputs("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n", f);
	fprintf(f,
		"<svg %sclass=\"flamegraph%s\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f "
		"%.0f\" font-family=\"Verdana, sans-serif\" font-size=\"%.0f\">\n",
		o->standalone ? "xmlns=\"http://www.w3.org/2000/svg\" " : "", diff ? " diff" : "",
		l->width, l->height, l->width, l->height, FONT_SIZE);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#f8f8f0\"/>\n",
		l->width, l->height);
	fprintf(f, "<text x=\"%.1f\" y=\"20\" text-anchor=\"middle\" font-size=\"15\">",
		l->width / 2);
	tb_fput_markup(f, o->title ? o->title : "Flame graph", SIZE_MAX);
	fputs("</text>\n", f);
	if (o->subtitle) {
		fprintf(f, "<text x=\"%.1f\" y=\"33\" text-anchor=\"middle\" fill=\"#555\">",
			l->width / 2);
		tb_fput_markup(f, o->subtitle, SIZE_MAX);
		fputs("</text>\n", f);
	}
}

static void legend(FILE *f, const struct tb_fg_layout *l, const struct tb_fg_opts *o, bool diff)
{
	char tot[64];

	amount(tot, sizeof(tot), l->total, o);
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#555\">", TB_FG_XPAD, l->height - 12);
	if (!l->total)
		fputs("The traced profile has no samples: nothing to draw.", f);
	else if (diff)
		fprintf(f,
			"Width: the traced profile (%s in all). Colour: each frame's own samples per "
			"op against the baseline, red more, blue less. Hover for figures.",
			tot);
	else
		fprintf(f,
			"Width: share of the profile (%s in all); kernel frames orange, user "
			"yellow. Hover for figures.",
			tot);
	fputs("</text>\n", f);
}

int tb_fg_svg(FILE *f, const struct tb_fold *traced, const struct tb_fold *base,
	      const struct tb_fg_opts *o)
{
	struct tb_fg_layout l;
	bool diff = base != NULL;

	if (tb_fg_layout(traced, base, o->width, &l))
		return -ENOMEM;
	header(f, &l, o, diff);
	fputs("<g class=\"frames\">\n", f);
	for (size_t i = 0; l.total > 0 && i < l.n; i++)
		frame_svg(f, &l, &l.v[i], o, diff);
	fputs("</g>\n", f);
	legend(f, &l, o, diff);
	fputs("</svg>\n", f);
	tb_fg_layout_free(&l);
	return ferror(f) ? -EIO : 0;
}

int tb_fg_write(const struct tb_dir *d, const char *name, const struct tb_fold *traced,
		const struct tb_fold *base, const struct tb_fg_opts *o)
{
	struct tb_fg_opts so = *o;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int ret = -ENOMEM;

	if (f) {
		so.standalone = true;
		ret = tb_fg_svg(f, traced, base, &so);
		if (fclose(f) && !ret)
			ret = -ENOMEM;
	}
	if (ret)
		tb_err("%s/%s: cannot render the flame graph: %s", d->path, name, strerror(-ret));
	else
		ret = tb_dir_write(d, name, buf, len, 0644); /* says why it failed */
	free(buf);
	return ret;
}
