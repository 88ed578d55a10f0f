/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The environment fingerprint: what the machine, kernel and tool chain looked like when a run
 * was measured, as one jansson object (the "system" member of result.json).
 *
 * Conventions of the object (also in doc/tracebench.1):
 *  - a text field whose source file is missing or unreadable holds the string "unknown";
 *  - a numeric or boolean field whose source is missing holds null;
 *  - a tool that is not on PATH holds "not installed";
 *  - "fingerprint" is 16 hex digits: the first 16 of the digest (core/util.h tb_sha256_json)
 *    of an object mapping every path in "fingerprint_fields" (dot-separated) to its value (null
 *    when the path is absent); "fingerprint_algorithm" says so (TB_SYSINFO_FINGERPRINT_HOW).
 *    Load average, uptime, hostname, capture time and the tracefs mount state are deliberately
 *    left out, so the same machine gives the same fingerprint twice.
 *  - Results written before 2026-12 hashed the same object with FNV-1a 64 instead
 *    (TB_SYSINFO_FINGERPRINT_FNV): a fingerprint is only compared with one of the same
 *    algorithm (model/system.h tb_system_fingerprints_comparable); the fields are compared one
 *    by one whatever the algorithm.
 */
#ifndef TB_SYSINFO_H
#define TB_SYSINFO_H

#include <jansson.h>

#include "core/util.h"

#define TB_SYSINFO_SCHEMA  "tracebench-sysinfo/1"
#define TB_SYSINFO_UNKNOWN "unknown" /* a text field whose source is missing or unreadable */

/* The fingerprint_algorithm of a fingerprint, and the one of results written before 2026-12. */
#define TB_SYSINFO_FINGERPRINT_HOW                                                      \
	"the first 16 hex digits of the " TB_SHA256_JSON_HOW " of {field: value} over " \
	"fingerprint_fields"
#define TB_SYSINFO_FINGERPRINT_FNV \
	"fnv1a-64 of the compact sorted JSON of {field: value} over fingerprint_fields"

enum {
	/* Run no external program (tool --version, systemd-detect-virt): those fields hold
	   "not collected". For fast unit tests. */
	TB_SYSINFO_NO_TOOLS = 1 << 0,
	/* Skip hwloc: topology is "unknown". */
	TB_SYSINFO_NO_TOPOLOGY = 1 << 1,
};

/*
 * Describe the system whose /proc and /sys are under root ("/" normally, a fixture tree in
 * tests). With another root, hwloc reads that tree (HWLOC_FSROOT) when it holds
 * sys/devices/system/cpu/cpu0/topology, else topology is "unknown"; library versions and
 * external tools always describe the running binary and the live PATH. Never fails because
 * a file is missing. Returns a new reference (caller json_decref()s it), NULL on ENOMEM.
 */
json_t *tb_sysinfo_collect(const char *root, unsigned flags);

/*
 * (Re)compute info's "fingerprint" and "fingerprint_fields" from its current content (after
 * a caller edited it, for instance). Returns 0 or -ENOMEM.
 */
int tb_sysinfo_fingerprint(json_t *info);

/* The value at a dot-separated path ("kernel.release"), borrowed, or NULL when absent. */
json_t *tb_sysinfo_get(const json_t *info, const char *path);

#endif /* TB_SYSINFO_H */
