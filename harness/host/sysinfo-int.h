/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Between the files of the environment fingerprint only (host/sysinfo.h is the interface):
 *   sysinfo.c         the small readers below, the fingerprint and the whole object
 *   sysinfo-cpu.c     CPU, SMT, topology (hwloc), cpufreq, cpuidle, clocksource, mitigations
 *   sysinfo-kernel.c  kernel, virtualization, THP, sysctls, tracefs, memory, load
 *   sysinfo-tools.c   external tools' versions (and systemd-detect-virt), the libraries
 * Every reader takes the collection's state: its root, its flags, and whether an allocation
 * failed somewhere (tb_si_put records it; tb_sysinfo_collect then returns NULL). Included
 * after host/sysinfo.h (UNKNOWN is its TB_SYSINFO_UNKNOWN), which does not include this back.
 */
#ifndef TB_SYSINFO_INT_H
#define TB_SYSINFO_INT_H

#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#define UNKNOWN		TB_SYSINFO_UNKNOWN
#define NOT_INSTALLED	"not installed"
#define NOT_COLLECTED	"not collected"
#define CPU_DIR		"/sys/devices/system/cpu"
#define TOOL_TIMEOUT_NS 3000000000ull

struct si {
	char root[PATH_MAX]; /* prefix for absolute paths: "" for the live system */
	unsigned flags;
	bool nomem; /* a jansson allocation failed somewhere */
};

/* systemd-detect-virt's answers ("kvm", "docker", "none"), or why there is none. */
struct detect_virt {
	char vm[64];
	char container[64];
};

/* ---- sysinfo.c: small readers ---- */

/* rel (an absolute path) under the root, into buf; returns buf. */
const char *tb_si_path(const struct si *s, const char *rel, char *buf, size_t len);
/* p without leading and trailing white space (trailing cut in place). */
char *tb_si_trim(char *p);
/* Whole file under the root, NUL-terminated (caller frees), or NULL when unreadable. */
char *tb_si_read(const struct si *s, const char *rel);
/* First line of a file, trimmed, as a new string; NULL when unreadable. */
char *tb_si_line(const struct si *s, const char *rel);
/* obj[key] = v (the reference is taken); a NULL v or a failure marks s->nomem. */
void tb_si_put(struct si *s, json_t *obj, const char *key, json_t *v);
/* obj[key] = the string v, "unknown" when NULL. */
void tb_si_put_str(struct si *s, json_t *obj, const char *key, const char *v);
/* The first line of rel as a string, "unknown" when unreadable. */
void tb_si_put_file_str(struct si *s, json_t *obj, const char *key, const char *rel);
/* The file's content as an integer, null when unreadable or not a number. */
json_t *tb_si_file_int(const struct si *s, const char *rel);
/* Words of str (space separated) as a JSON array of strings; NULL on ENOMEM. */
json_t *tb_si_words(const char *str);
/* The [bracketed] choice of a sysfs selector file ("always [madvise] never"). */
void tb_si_put_choice(struct si *s, json_t *obj, const char *key, const char *rel);

/* ---- the sections: each a new object (or "unknown"), NULL on ENOMEM ---- */

/* sysinfo-cpu.c; hv_flag: the cpuinfo hypervisor flag (1, 0, -1 unknown) */
json_t *tb_si_cpu(struct si *s, int *hv_flag);
json_t *tb_si_smt(struct si *s);
json_t *tb_si_topology(struct si *s);
json_t *tb_si_cpufreq(struct si *s);
json_t *tb_si_cpuidle(struct si *s);
json_t *tb_si_clocksource(struct si *s);
json_t *tb_si_mitigations(struct si *s);
/* sysinfo-kernel.c */
json_t *tb_si_kernel(struct si *s);
json_t *tb_si_virt(struct si *s, int hv_flag, const struct detect_virt *dv);
json_t *tb_si_thp(struct si *s);
json_t *tb_si_sysctl(struct si *s);
json_t *tb_si_tracefs(struct si *s);
json_t *tb_si_meminfo_total(struct si *s);
json_t *tb_si_load(struct si *s);
/* sysinfo-tools.c; fills dv (the virtualization section reads it) */
json_t *tb_si_tools(struct si *s, struct detect_virt *dv);
json_t *tb_si_libraries(void);

#endif /* TB_SYSINFO_INT_H */
