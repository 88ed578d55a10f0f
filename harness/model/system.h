/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The facts of a result's `system` object (host/sysinfo.h builds it) that more than one stage
 * needs: which leaves describe the hardware and which change between any two runs, the
 * differences between two environments (compare, and the history's change points), and the
 * hardware class a history series belongs to.
 */
#ifndef TB_SYSTEM_H
#define TB_SYSTEM_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* One leaf of `system` that differs; values as display text, NULL when absent on that side. */
struct tb_fp_diff {
	char *key; /* "kernel.release" */
	char *a, *b;
	bool hardware;	/* CPU model/topology/virtualization: refused by --require-same-host */
	bool transient; /* differs between any two runs (capture time, load): not printed */
};

/* The leaf at dot path key describes the hardware: CPU identity, topology, virtualization. */
bool tb_system_key_is_hardware(const char *key);
/* The leaf differs between any two runs of the same machine (capture time, load, uptime). */
bool tb_system_key_is_transient(const char *key);

/*
 * The fingerprints of a and b were computed the same way: the same fingerprint_algorithm, or
 * one of them does not say (host/sysinfo.h: results before 2026-12 used FNV-1a, later ones
 * SHA-256). Two fingerprints of different algorithms say nothing about each other.
 */
bool tb_system_fingerprints_comparable(const json_t *a, const json_t *b);
/*
 * The leaves of a and b (either may be NULL) that differ, sorted by key, into *out (free with
 * tb_fp_diffs_free) and their number into *n; the fingerprint and its algorithm only when the
 * fingerprints are comparable (tb_system_fingerprints_comparable), as every field they cover
 * is compared anyway. Returns 0 or -ENOMEM.
 */
int tb_system_diff(const json_t *a, const json_t *b, struct tb_fp_diff **out, size_t *n);
void tb_fp_diffs_free(struct tb_fp_diff *d, size_t n);

/*
 * The hardware class of a system object: hash is the first 16 hex digits of the digest
 * (core/util.h tb_sha256_json) of its hardware leaves (tb_system_key_is_hardware); desc a
 * short text such as "Intel(R) Xeon(R) Processor, 2 PUs, kvm". Two runs of one machine (or of
 * two identical ones) share a class whatever their kernel and tools. Returns 0 or -ENOMEM.
 */
int tb_system_hardware_class(const json_t *system, char hash[17], char *desc, size_t desclen);

#endif /* TB_SYSTEM_H */
