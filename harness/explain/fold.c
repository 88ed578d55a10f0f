// SPDX-License-Identifier: GPL-2.0
/* Folded stacks in memory and in files (fold.h). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/outdir.h"
#include "core/array.h"
#include "core/tb.h"
#include "explain/fold.h"

void tb_fold_init(struct tb_fold *f)
{
	memset(f, 0, sizeof(*f));
}

void tb_fold_free(struct tb_fold *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->v[i].stack);
	free(f->v);
	free(f->slots);
	tb_fold_init(f);
}

static uint64_t hash(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */

	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/* The slot of stack: where it is, or the empty slot where it would go. */
static size_t *slot_of(const struct tb_fold *f, const char *s, size_t len)
{
	size_t i = (size_t)hash(s, len) & (f->nslots - 1);

	for (;; i = (i + 1) & (f->nslots - 1)) {
		size_t *sl = &f->slots[i];
		const char *t;

		if (!*sl)
			return sl;
		t = f->v[*sl - 1].stack;
		if (!strncmp(t, s, len) && !t[len])
			return sl;
	}
}

/* A hash index of twice the next power of two above n (load factor <= 1/2). */
static int reindex(struct tb_fold *f, size_t n)
{
	size_t ns = 16, *old = f->slots;

	while (ns < 2 * n)
		ns *= 2;
	f->slots = calloc(ns, sizeof(*f->slots));
	if (!f->slots) {
		f->slots = old;
		return -ENOMEM;
	}
	free(old);
	f->nslots = ns;
	for (size_t i = 0; i < f->n; i++)
		*slot_of(f, f->v[i].stack, strlen(f->v[i].stack)) = i + 1;
	return 0;
}

int tb_fold_add(struct tb_fold *f, const char *stack, size_t len, double count)
{
	size_t *sl;

	if ((f->n + 1) * 2 > f->nslots && reindex(f, f->n + 1))
		return -ENOMEM;
	sl = slot_of(f, stack, len);
	if (*sl) {
		f->v[*sl - 1].count += count;
		f->total += count;
		return 0;
	}
	if (tb_array_reserve((void **)&f->v, &f->cap, f->n + 1, sizeof(*f->v), 64))
		return -ENOMEM;
	f->v[f->n].stack = strndup(stack, len);
	if (!f->v[f->n].stack)
		return -ENOMEM;
	f->v[f->n].count = count;
	*sl = ++f->n;
	f->total += count;
	return 0;
}

bool tb_fold_has(const struct tb_fold *f, const char *stack)
{
	return f->n && *slot_of(f, stack, strlen(stack));
}

double tb_fold_count(const struct tb_fold *f, const char *stack)
{
	size_t *sl;

	if (!f->n)
		return 0;
	sl = slot_of(f, stack, strlen(stack));
	return *sl ? f->v[*sl - 1].count : 0;
}

/* End of string lowest, then the separator, then every other byte: frame by frame. */
static int rank(unsigned char c)
{
	return c == '\0' ? 0 : c == ';' ? 1 : c + 1;
}

int tb_fold_stack_cmp(const char *a, const char *b)
{
	const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;

	while (*x && *x == *y) {
		x++;
		y++;
	}
	return rank(*x) - rank(*y);
}

static int cmp_stack(const void *a, const void *b)
{
	return tb_fold_stack_cmp(((const struct tb_fold_stack *)a)->stack,
				 ((const struct tb_fold_stack *)b)->stack);
}

void tb_fold_sort(struct tb_fold *f)
{
	if (f->n < 2)
		return;
	qsort(f->v, f->n, sizeof(*f->v), cmp_stack);
	memset(f->slots, 0, f->nslots * sizeof(*f->slots));
	for (size_t i = 0; i < f->n; i++)
		*slot_of(f, f->v[i].stack, strlen(f->v[i].stack)) = i + 1;
}

double tb_fold_unit(uint64_t ops_a, uint64_t ops_b)
{
	double ops = (double)(ops_a > ops_b ? ops_a : ops_b), unit = 1e6;

	while (unit / ops < TB_FOLD_MIN_WEIGHT && unit < 1e18)
		unit *= 10;
	return unit;
}

int tb_fold_scale(const struct tb_fold *in, double factor, struct tb_fold *out)
{
	for (size_t i = 0; i < in->n; i++) {
		double c = round(in->v[i].count * factor);

		if (c > 0 && tb_fold_add(out, in->v[i].stack, strlen(in->v[i].stack), c))
			return -ENOMEM;
	}
	return 0;
}

bool tb_fold_frame_is_kernel(const char *frame, size_t len)
{
	size_t k = sizeof(TB_FOLD_KERNEL) - 1;

	return len >= k && !memcmp(frame + len - k, TB_FOLD_KERNEL, k);
}

void tb_fold_frame_clean(char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == ';')
			*s = '_';
		else if (c < 0x20 || c > 0x7e)
			*s = '?';
	}
}

/* ---- writing ---------------------------------------------------------------------------- */

static int cmp_ptr(const void *a, const void *b)
{
	return tb_fold_stack_cmp(*(char *const *)a, *(char *const *)b);
}

/* The stacks of a and (when given) b, sorted, each once; borrowed strings. */
static int union_sorted(const struct tb_fold *a, const struct tb_fold *b, char ***out, size_t *n)
{
	size_t m = 0, cap = a->n + (b ? b->n : 0);
	char **v = malloc((cap ? cap : 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < a->n; i++)
		v[m++] = a->v[i].stack;
	for (size_t i = 0; b && i < b->n; i++)
		if (!tb_fold_has(a, b->v[i].stack))
			v[m++] = b->v[i].stack;
	qsort(v, m, sizeof(*v), cmp_ptr);
	*out = v;
	*n = m;
	return 0;
}

static int format_any(const struct tb_fold *a, const struct tb_fold *b, char **out, size_t *len)
{
	char **v = NULL;
	size_t n = 0;
	FILE *f;
	int ret;

	*out = NULL;
	*len = 0;
	ret = union_sorted(a, b, &v, &n);
	if (ret)
		return ret;
	f = open_memstream(out, len);
	if (!f) {
		free(v);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		if (b)
			fprintf(f, "%s %.0f %.0f\n", v[i], tb_fold_count(a, v[i]),
				tb_fold_count(b, v[i]));
		else
			fprintf(f, "%s %.0f\n", v[i], tb_fold_count(a, v[i]));
	}
	ret = ferror(f) ? -ENOMEM : 0;
	if (fclose(f))
		ret = -ENOMEM;
	free(v);
	if (ret) {
		free(*out);
		*out = NULL;
	}
	return ret;
}

int tb_fold_format(const struct tb_fold *f, char **out, size_t *len)
{
	return format_any(f, NULL, out, len);
}

int tb_fold_format_diff(const struct tb_fold *base, const struct tb_fold *traced, char **out,
			size_t *len)
{
	return format_any(base, traced, out, len);
}

static int write_text(const struct tb_dir *d, const char *name, int ret, char *text, size_t len)
{
	if (ret)
		tb_err("%s/%s: cannot format the folded stacks: %s", d->path, name, strerror(-ret));
	else
		ret = tb_dir_write(d, name, text, len, 0644); /* says why it failed */
	free(text);
	return ret;
}

int tb_fold_write(const struct tb_fold *f, const struct tb_dir *d, const char *name)
{
	char *text;
	size_t len;
	int ret = tb_fold_format(f, &text, &len);

	return write_text(d, name, ret, text, len);
}

int tb_fold_write_diff(const struct tb_fold *base, const struct tb_fold *traced,
		       const struct tb_dir *d, const char *name)
{
	char *text;
	size_t len;
	int ret = tb_fold_format_diff(base, traced, &text, &len);

	return write_text(d, name, ret, text, len);
}

/* ---- reading ---------------------------------------------------------------------------- */

/* Where a parse is, for messages. */
struct pos {
	const char *what;
	size_t line;
};

static int __attribute__((format(printf, 2, 3))) bad(const struct pos *p, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	tb_err("%s:%zu: %s", p->what, p->line, msg);
	return -EINVAL;
}

/* The count that ends s[0..*len): digits, optionally a fraction; *len shrinks to before it. */
static int take_count(const struct pos *p, const char *s, size_t *len, double *out)
{
	size_t end = *len, i = end, digits = 0;
	char buf[64];

	while (i > 0 && s[i - 1] != ' ')
		i--;
	if (i == 0 || end - i >= sizeof(buf))
		return bad(p, "expected 'stack count'%s",
			   i == 0 ? " (no space before the count)" : "");
	for (size_t k = i; k < end; k++) {
		if (s[k] >= '0' && s[k] <= '9')
			digits++;
		else if (s[k] != '.' || k == i || memchr(s + i, '.', k - i))
			return bad(p, "bad count '%.*s' (expected a number of samples)",
				   (int)(end - i), s + i);
	}
	memcpy(buf, s + i, end - i);
	buf[end - i] = '\0';
	*out = strtod(buf, NULL);
	if (!digits || !(*out <= TB_FOLD_MAX_COUNT))
		return bad(p, "bad count '%s' (0 to %.0e)", buf, TB_FOLD_MAX_COUNT);
	*len = i - 1;
	return 0;
}

/* Frames: non-empty, at most TB_FOLD_MAX_FRAME bytes of printable ASCII, at most ..._FRAMES. */
static int check_stack(const struct pos *p, const char *s, size_t len)
{
	size_t frames = 1, flen = 0;

	if (!len)
		return bad(p, "empty stack");
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == ';') {
			if (!flen)
				return bad(p, "empty frame %zu", frames);
			if (++frames > TB_FOLD_MAX_FRAMES)
				return bad(p, "more than %d frames", TB_FOLD_MAX_FRAMES);
			flen = 0;
			continue;
		}
		if (c < 0x20 || c > 0x7e)
			return bad(p, "byte 0x%02x in frame %zu (frames are printable ASCII)", c,
				   frames);
		if (++flen > TB_FOLD_MAX_FRAME)
			return bad(p, "frame %zu is longer than %d bytes", frames,
				   TB_FOLD_MAX_FRAME);
	}
	if (!flen)
		return bad(p, "empty frame %zu", frames);
	return 0;
}

static int parse_line(const struct pos *p, const char *s, size_t len, struct tb_fold *a,
		      struct tb_fold *b)
{
	double ca, cb = 0;
	int ret;

	if (b && (ret = take_count(p, s, &len, &cb)))
		return ret;
	if ((ret = take_count(p, s, &len, &ca)) || (ret = check_stack(p, s, len)))
		return ret;
	if (tb_fold_add(a, s, len, ca) || (b && tb_fold_add(b, s, len, cb)))
		return -ENOMEM;
	return 0;
}

int tb_fold_parse(const char *text, size_t len, const char *what, struct tb_fold *a,
		  struct tb_fold *b)
{
	struct pos p = {.what = what, .line = 0};
	size_t off = 0, stacks = 0;
	int ret;

	while (off < len) {
		const char *s = text + off, *nl = memchr(s, '\n', len - off);
		size_t n = nl ? (size_t)(nl - s) : len - off;

		p.line++;
		off += n + (nl ? 1 : 0);
		if (n && s[n - 1] == '\r')
			n--;
		if (memchr(s, '\0', n))
			return bad(&p, "NUL byte: not a folded-stacks file");
		if (n > TB_FOLD_MAX_LINE)
			return bad(&p, "line longer than %d bytes", TB_FOLD_MAX_LINE);
		if (!n)
			continue;
		if (++stacks > TB_FOLD_MAX_STACKS)
			return bad(&p, "more than %d stacks", TB_FOLD_MAX_STACKS);
		ret = parse_line(&p, s, n, a, b);
		if (ret)
			return ret;
	}
	return 0;
}

/* path beneath dirfd (AT_FDCWD: as named) through the one opener: no link, FIFO or device. */
static int read_any(int dirfd, const char *path, const char *shown, struct tb_fold *a,
		    struct tb_fold *b)
{
	char *text = NULL;
	size_t len = 0;
	int ret = tb_read_regular_at(dirfd, path, TB_FOLD_MAX_BYTES, &text, &len);

	if (ret) {
		tb_err("%s: cannot read the folded stacks: %s", shown,
		       ret == -EFBIG ? "larger than 64 MiB" : tb_input_strerror(ret));
		free(text);
		return ret == -ENOENT ? -ENOENT : ret == -EIO || ret == -ENOMEM ? ret : -EINVAL;
	}
	ret = tb_fold_parse(text, len, shown, a, b);
	free(text);
	return ret;
}

int tb_fold_read(const char *path, struct tb_fold *f)
{
	return read_any(AT_FDCWD, path, path, f, NULL);
}

int tb_fold_read_at(int dirfd, const char *path, const char *shown, struct tb_fold *f)
{
	return read_any(dirfd, path, shown, f, NULL);
}

int tb_fold_read_diff(const char *path, struct tb_fold *base, struct tb_fold *traced)
{
	return read_any(AT_FDCWD, path, path, base, traced);
}
