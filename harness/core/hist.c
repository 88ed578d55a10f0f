// SPDX-License-Identifier: GPL-2.0
/* Log-linear latency histogram (see hist.h for the bucket layout). */
#include <string.h>

#include "core/hist.h"

void tb_hist_init(struct tb_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

unsigned int tb_hist_index(uint64_t ns)
{
	unsigned int e;

	if (ns < TB_HIST_SUB)
		return (unsigned int)ns;
	e = 63u - (unsigned int)__builtin_clzll(ns);
	if (e >= TB_HIST_MAX_EXP)
		return TB_HIST_BUCKETS;
	/* ns >> (e - SUB_BITS) is in [SUB, 2 * SUB): the sub-bucket, offset by SUB. */
	return (e - TB_HIST_SUB_BITS) * TB_HIST_SUB + (unsigned int)(ns >> (e - TB_HIST_SUB_BITS));
}

uint64_t tb_hist_bucket_lo(unsigned int idx)
{
	unsigned int g, s;

	if (idx < 2 * TB_HIST_SUB)
		return idx;
	g = idx / TB_HIST_SUB - 1; /* shift of this group */
	s = idx % TB_HIST_SUB + TB_HIST_SUB;
	return (uint64_t)s << g;
}

uint64_t tb_hist_bucket_hi(unsigned int idx)
{
	if (idx < 2 * TB_HIST_SUB)
		return idx;
	return tb_hist_bucket_lo(idx) + (1ull << (idx / TB_HIST_SUB - 1)) - 1;
}

void tb_hist_add(struct tb_hist *h, uint64_t ns)
{
	unsigned int i = tb_hist_index(ns);

	if (i < TB_HIST_BUCKETS)
		h->bucket[i]++;
	else
		h->overflow++;
	h->count++;
	h->sum += (double)ns;
	if (ns < h->min)
		h->min = ns;
	if (ns > h->max)
		h->max = ns;
}

void tb_hist_merge(struct tb_hist *dst, const struct tb_hist *src)
{
	unsigned int i;

	for (i = 0; i < TB_HIST_BUCKETS; i++)
		dst->bucket[i] += src->bucket[i];
	dst->count += src->count;
	dst->overflow += src->overflow;
	dst->sum += src->sum;
	if (src->count && src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

uint64_t tb_hist_max(const struct tb_hist *h)
{
	return h->count ? h->max : 0;
}

double tb_hist_mean(const struct tb_hist *h)
{
	return h->count ? h->sum / (double)h->count : 0;
}

double tb_hist_quantile(const struct tb_hist *h, double q)
{
	double rank, below = 0, lo, hi, v;
	unsigned int i;

	if (!h->count)
		return 0;
	if (q <= 0)
		return (double)h->min;
	if (q >= 1)
		return (double)h->max;
	/* rank in (0, count]: the value below which a fraction q of the values lie */
	rank = q * (double)h->count;
	for (i = 0; i < TB_HIST_BUCKETS; i++) {
		if (!h->bucket[i])
			continue;
		if (below + (double)h->bucket[i] >= rank) {
			lo = (double)tb_hist_bucket_lo(i);
			hi = (double)tb_hist_bucket_hi(i) + 1;
			v = lo + (hi - lo) * (rank - below) / (double)h->bucket[i];
			if (v < (double)h->min)
				v = (double)h->min;
			if (v > (double)h->max)
				v = (double)h->max;
			return v;
		}
		below += (double)h->bucket[i];
	}
	return (double)h->max;
}

bool tb_hist_next(const struct tb_hist *h, unsigned int *pos, uint64_t *upper_ns, uint64_t *count)
{
	unsigned int i;

	for (i = *pos; i < TB_HIST_BUCKETS; i++) {
		if (h->bucket[i]) {
			*upper_ns = tb_hist_bucket_hi(i);
			*count = h->bucket[i];
			*pos = i + 1;
			return true;
		}
	}
	if (i == TB_HIST_BUCKETS && h->overflow) {
		*upper_ns = h->max;
		*count = h->overflow;
		*pos = i + 1;
		return true;
	}
	*pos = TB_HIST_BUCKETS + 1;
	return false;
}
