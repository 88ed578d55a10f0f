/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Contended rounds ([global] contended-share, METHODOLOGY.md "Contended rounds"): a measured
 * round in which a sample lost more than that share of its batch to other tasks on its CPU or
 * to the hypervisor (model/measured.h, tb_sample_contended_share) is run again, the whole
 * round, so that every pair of baseline and traced samples still comes from one round and the
 * shuffled order holds. Once per round, and at most tb_contended_cap rounds per run, so that a
 * machine that is always busy still ends; each decision is kept in the result (the samples'
 * rerun, the cells' contention).
 */
#ifndef TB_RUNNER_CONTENDED_H
#define TB_RUNNER_CONTENDED_H

#include <stdbool.h>
#include <stddef.h>

#include "model/result.h"

/* The most rounds a run of `rounds` rounds (its maximum, adaptive) runs again: a quarter, >= 1. */
unsigned int tb_contended_cap(unsigned int rounds);

/*
 * After measured round `round` of r: its most contended sample above r->contended_share (the
 * samples' cells pinned to ncpus[cell] CPUs, 0: none named). With one and `allowed` (the round
 * was not run again already, the cap not reached): every sample of the round is marked rerun
 * with the reason, every cell counts the round, and it returns true: run the round again.
 * The decision is said (info). Without `allowed`: the cells with a contended sample in the round
 * count it as kept, false.
 * Nothing contended, or contended-share 0: false, nothing changed.
 */
bool tb_contended_round(struct tb_result *r, const unsigned int *ncpus, unsigned int round,
			bool allowed);

/* The cells' contention on: r's cells get a contention object (zeros) when the rule is on. */
void tb_contended_start(struct tb_result *r);

#endif /* TB_RUNNER_CONTENDED_H */
