// SPDX-License-Identifier: GPL-2.0
/* Contended rounds: the rule, the bound, the record (contended.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/tb.h"
#include "model/measured.h"
#include "runner/contended.h"

unsigned int tb_contended_cap(unsigned int rounds)
{
	return rounds / 4 > 1 ? rounds / 4 : 1;
}

void tb_contended_start(struct tb_result *r)
{
	for (size_t i = 0; r->contended_share > 0 && i < r->ncells; i++)
		r->cells[i].contention.present = true;
}

/* A timed sample of round `round` not yet set aside: what the rule looks at and marks. */
static bool of_round(const struct tb_sample *s, unsigned int round)
{
	return !s->warmup && s->round == (int)round && !s->rerun[0];
}

/* The share of s the machine took, when s is a completed timed sample; else NAN. */
static double share_of(const struct tb_cell *c, const struct tb_sample *s, unsigned int ncpus,
		       const char **why)
{
	if (s->accounting || s->failed || s->abandoned || s->partial_round)
		return NAN;
	return tb_sample_contended_share(c, s, ncpus, why);
}

bool tb_contended_round(struct tb_result *r, const unsigned int *ncpus, unsigned int round,
			bool allowed)
{
	const double limit = r->contended_share;
	const char *why = NULL, *w;
	size_t worst = 0, i, j;
	double top = NAN, x;
	char reason[sizeof(r->cells[0].samples[0].rerun)];

	if (!(limit > 0))
		return false;
	for (i = 0; i < r->ncells; i++)
		for (j = 0; j < r->cells[i].nsamples; j++) {
			const struct tb_sample *s = &r->cells[i].samples[j];

			if (!of_round(s, round))
				continue;
			x = share_of(&r->cells[i], s, ncpus[i], &w);
			if (x > limit && !(x <= top)) {
				top = x;
				worst = i;
				why = w;
			}
		}
	if (isnan(top))
		return false;
	if (!allowed) {
		for (i = 0; i < r->ncells; i++)
			for (j = 0; j < r->cells[i].nsamples; j++) {
				const struct tb_sample *s = &r->cells[i].samples[j];

				if (of_round(s, round) &&
				    share_of(&r->cells[i], s, ncpus[i], NULL) > limit) {
					r->cells[i].contention.kept++;
					break;
				}
			}
		return false;
	}
	snprintf(reason, sizeof(reason), "%s: %.1f%% of %s's sample in round %u (above %g%%)",
		 !strcmp(why, "steal") ? "the hypervisor stole the workload's CPU"
				       : "another task ran on the workload's CPU",
		 100 * top, r->cells[worst].id, round + 1, 100 * limit);
	for (i = 0; i < r->ncells; i++) {
		bool marked = false;

		for (j = 0; j < r->cells[i].nsamples; j++)
			if (of_round(&r->cells[i].samples[j], round)) {
				memcpy(r->cells[i].samples[j].rerun, reason, sizeof(reason));
				marked = true;
			}
		r->cells[i].contention.rerun += marked;
	}
	tb_info("%s; the round is run again", reason);
	return true;
}
