/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Folded stacks: one line per distinct stack, its frames root first joined by ';', a space and
 * a count ("tracebench;main;getpid_batch;entry_SYSCALL_64_[k] 12"), as FlameGraph's
 * stackcollapse-*.pl write them and flamegraph.pl, inferno and speedscope read them; and the
 * differential form "stack base traced" of difffolded.pl. A struct tb_fold is such a set in
 * memory: distinct stacks with their counts, indexed by a hash table.
 *
 * Kernel frames end in "_[k]" (the annotation of stackcollapse-perf.pl --kernel), so a folded
 * file alone tells kernel from user frames.
 *
 * Normalisation: the baseline and traced profiles of a cell cover different numbers of
 * operations, so their files count samples per `per_ops` operations: per million ops, or per
 * the next power of ten when a million would make one raw sample weigh less than
 * TB_FOLD_MIN_WEIGHT counts (cheap operations: a getpid profile covers tens of millions of ops).
 * Counts are rounded to integers, because speedscope and inferno read integer counts only; the
 * weight rule bounds the rounding to 5% of one raw sample.
 *
 * Folded files read back (tb_fold_read*) are input from outside: lines, frames and counts are
 * bounded and checked, and every error names file:line.
 */
#ifndef TB_EXPLAIN_FOLD_H
#define TB_EXPLAIN_FOLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TB_FOLD_MAX_LINE   65536       /* bytes per line, newline excluded */
#define TB_FOLD_MAX_FRAMES 1024	       /* frames per stack */
#define TB_FOLD_MAX_FRAME  1024	       /* bytes per frame name */
#define TB_FOLD_MAX_STACKS 1000000     /* lines per file */
#define TB_FOLD_MAX_COUNT  1e15	       /* per line */
#define TB_FOLD_MAX_BYTES  (64u << 20) /* per file */
#define TB_FOLD_MIN_WEIGHT 10	  /* counts one raw sample weighs at least, after normalising */
#define TB_FOLD_KERNEL	   "_[k]" /* suffix of a kernel frame */
#define TB_FOLD_TRUNCATED  "[truncated]" /* the frame under a stack cut at its root */

struct tb_dir;

struct tb_fold_stack {
	char *stack; /* frames joined by ';', NUL-terminated */
	double count;
};

struct tb_fold {
	struct tb_fold_stack *v; /* in insertion order until tb_fold_sort */
	size_t n, cap;
	size_t *slots; /* hash index: position + 1 in v, 0 for an empty slot */
	size_t nslots;
	double total; /* sum of the counts */
};

void tb_fold_init(struct tb_fold *f);
void tb_fold_free(struct tb_fold *f);
/* Add count to stack (len bytes, no NUL needed), creating it. Returns 0 or -ENOMEM. */
int tb_fold_add(struct tb_fold *f, const char *stack, size_t len, double count);
/* Whether stack is in f (with any count, 0 included). */
bool tb_fold_has(const struct tb_fold *f, const char *stack);
/* The count of stack, 0 when absent. */
double tb_fold_count(const struct tb_fold *f, const char *stack);
/*
 * Sort by stack, frame by frame (a stack before its extensions, then the frames' bytes), so that
 * the stacks through one frame are adjacent: the order the flame graph layout sweeps.
 */
void tb_fold_sort(struct tb_fold *f);
/* The frame-by-frame order of tb_fold_sort, for two stacks. */
int tb_fold_stack_cmp(const char *a, const char *b);

/*
 * per_ops for profiles of ops_a and ops_b operations: 10^k ops, k >= 6 the smallest with
 * 10^k / max(ops_a, ops_b) >= TB_FOLD_MIN_WEIGHT.
 */
double tb_fold_unit(uint64_t ops_a, uint64_t ops_b);
/* out = in with every count x factor rounded to an integer (zeros dropped). Returns 0/-ENOMEM. */
int tb_fold_scale(const struct tb_fold *in, double factor, struct tb_fold *out);

/* True when a frame (len bytes) is a kernel frame (ends in TB_FOLD_KERNEL). */
bool tb_fold_frame_is_kernel(const char *frame, size_t len);
/* Make s a valid frame in place: ';' and bytes outside printable ASCII become '_' and '?'. */
void tb_fold_frame_clean(char *s);

/*
 * The folded text of f (sorted order) / of "stack base traced" over the union of both, into a
 * new buffer (*out, *len; the caller frees). Returns 0 or -ENOMEM.
 */
int tb_fold_format(const struct tb_fold *f, char **out, size_t *len);
int tb_fold_format_diff(const struct tb_fold *base, const struct tb_fold *traced, char **out,
			size_t *len);
/*
 * The same written as name in d (core/outdir.h: atomically, mode 0644, never through a link).
 * Returns 0 or -errno (said, naming the file).
 */
int tb_fold_write(const struct tb_fold *f, const struct tb_dir *d, const char *name);
int tb_fold_write_diff(const struct tb_fold *base, const struct tb_fold *traced,
		       const struct tb_dir *d, const char *name);

/*
 * Parse folded text (len bytes; what names it in messages) into a (and, with two columns of
 * counts, b: the differential form; b NULL for the one-count form). Blank lines are skipped,
 * repeated stacks add up (as flamegraph.pl does). Returns 0, -EINVAL after tb_err("what:line:
 * why"), or -ENOMEM. a and b must be initialised; on error they hold what was read so far.
 */
int tb_fold_parse(const char *text, size_t len, const char *what, struct tb_fold *a,
		  struct tb_fold *b);
/* Read and parse a file as tb_fold_parse. -ENOENT/-EIO when unreadable (said). */
int tb_fold_read(const char *path, struct tb_fold *f);
/* The same for path beneath the directory dirfd, no link on the way; shown names it. */
int tb_fold_read_at(int dirfd, const char *path, const char *shown, struct tb_fold *f);
int tb_fold_read_diff(const char *path, struct tb_fold *base, struct tb_fold *traced);

#endif /* TB_EXPLAIN_FOLD_H */
