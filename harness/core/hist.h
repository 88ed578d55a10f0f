/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A log-linear latency histogram in one fixed-size, pointer-free struct (so a sample process
 * can write() it to its parent as is). HDR-like: values below 32 ns have their own 1 ns
 * buckets; above that every power of two [2^e, 2^(e+1)) is split into 32 linear sub-buckets
 * of width 2^(e-5), so a bucket is at most 1/32 (3.1%) of its values wide. Values from 0 ns
 * to 2^TB_HIST_MAX_EXP ns (137 s) are bucketed; larger ones are counted in `overflow` (and
 * still count in `count`, `max` and the quantiles, which then return max).
 */
#ifndef TB_HIST_H
#define TB_HIST_H

#include <stdbool.h>
#include <stdint.h>

#define TB_HIST_SUB_BITS 5
#define TB_HIST_SUB	 (1u << TB_HIST_SUB_BITS)
#define TB_HIST_MAX_EXP	 37 /* 2^37 ns = 137 s */
#define TB_HIST_BUCKETS	 ((TB_HIST_MAX_EXP - TB_HIST_SUB_BITS + 1) * TB_HIST_SUB)

struct tb_hist {
	uint64_t count;	   /* every value added, overflow included */
	uint64_t overflow; /* values >= 2^TB_HIST_MAX_EXP ns */
	uint64_t min, max; /* exact; min is UINT64_MAX while empty */
	double sum;	   /* of the values, for the mean */
	uint64_t bucket[TB_HIST_BUCKETS];
};

/* Empty the histogram. */
void tb_hist_init(struct tb_hist *h);
/* Count one value of ns nanoseconds. */
void tb_hist_add(struct tb_hist *h, uint64_t ns);
/* Add every count of src into dst. */
void tb_hist_merge(struct tb_hist *dst, const struct tb_hist *src);
/*
 * The value at quantile q (0..1), linearly interpolated inside its bucket and clamped to
 * [min, max]; so it is within one bucket width (<= 3.1%, or 1 ns below 64 ns) of the exact
 * order statistic. Returns 0 for an empty histogram, max for q >= 1 or in the overflow.
 */
double tb_hist_quantile(const struct tb_hist *h, double q);
/* The largest value added (exact), 0 when empty. */
uint64_t tb_hist_max(const struct tb_hist *h);
/* Mean of the values added, 0 when empty. */
double tb_hist_mean(const struct tb_hist *h);
/* Bucket index of a value (TB_HIST_BUCKETS for the overflow), and a bucket's value range. */
unsigned int tb_hist_index(uint64_t ns);
uint64_t tb_hist_bucket_lo(unsigned int idx);
/* Largest value that falls in bucket idx (inclusive upper bound). */
uint64_t tb_hist_bucket_hi(unsigned int idx);
/*
 * Iterate the non-empty buckets in increasing order: start with *pos = 0; each call returning
 * true sets *upper_ns (inclusive upper bound of the bucket) and *count. The overflow comes
 * last, reported with upper_ns = max. Returns false when there are no more.
 */
bool tb_hist_next(const struct tb_hist *h, unsigned int *pos, uint64_t *upper_ns, uint64_t *count);

#endif /* TB_HIST_H */
