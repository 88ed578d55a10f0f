// SPDX-License-Identifier: GPL-2.0
/*
 * sysinfo: parsing against fake /proc and /sys trees (tests/data/sysroot-full: a bare-metal
 * 1-package, 2-core, 4-thread Xeon; sysroot-minimal: a VM without config.gz, cpufreq,
 * vulnerabilities or topology), the "unknown"/null conventions, and the fingerprint.
 */
#include <bpf/libbpf.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/proc.h"
#include "host/sysinfo.h"
#include "model/system.h"
#include "render/sysinfo-text.h"
#include "core/tb.h"
#include "tb_test.h"

#define FAST (TB_SYSINFO_NO_TOOLS)

static json_t *collect(const char *name, unsigned flags)
{
	char root[PATH_MAX];

	snprintf(root, sizeof(root), "%s/%s", tb_test_data_dir(), name);
	return tb_sysinfo_collect(root, flags);
}

static const char *str(const json_t *info, const char *path)
{
	const char *s = json_string_value(tb_sysinfo_get(info, path));

	return s ? s : "(not a string)";
}

static json_int_t num(const json_t *info, const char *path)
{
	json_t *v = tb_sysinfo_get(info, path);

	return json_is_integer(v) ? json_integer_value(v) : -999;
}

static bool is_null(const json_t *info, const char *path)
{
	json_t *v = tb_sysinfo_get(info, path);

	return v && json_is_null(v);
}

static uint64_t fnv1a64(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ull;
	return h;
}

static void test_full_kernel_cpu(void)
{
	json_t *info = collect("sysroot-full", FAST);
	char hash[24];

	CU_ASSERT_PTR_NOT_NULL_FATAL(info);
	CU_ASSERT_STRING_EQUAL(str(info, "schema"), TB_SYSINFO_SCHEMA);
	CU_ASSERT_STRING_EQUAL(str(info, "hostname"), "fixture-full");
	CU_ASSERT_STRING_EQUAL(str(info, "kernel.release"), "6.1.0-99-amd64");
	CU_ASSERT_STRING_EQUAL(str(info, "kernel.version"),
			       "#1 SMP PREEMPT_DYNAMIC Debian 6.1.99-1 (2024-07-15)");
	CU_ASSERT_STRING_EQUAL(
		str(info, "kernel.cmdline"),
		"BOOT_IMAGE=/boot/vmlinuz-6.1.0-99-amd64 root=/dev/sda1 ro quiet isolcpus=3 nohz_full=3");
	/* The hash is over the decompressed text of the fixture's config.gz. */
	snprintf(hash, sizeof(hash), "%016llx",
		 (unsigned long long)fnv1a64("CONFIG_SMP=y\nCONFIG_NR_CPUS=64\nCONFIG_FTRACE=y\n"
					     "CONFIG_BPF_SYSCALL=y\n"));
	CU_ASSERT_STRING_EQUAL(str(info, "kernel.config_hash"), hash);
	CU_ASSERT_STRING_EQUAL(str(info, "kernel.config_source"), "/proc/config.gz");
	/* kallsyms names the uretprobe syscall only; a module's symbol does not count. */
	CU_ASSERT_TRUE(json_is_true(json_object_get(
		json_object_get(json_object_get(info, "kernel"), "uprobes"), "uretprobe_syscall")));
	CU_ASSERT_TRUE(json_is_false(json_object_get(
		json_object_get(json_object_get(info, "kernel"), "uprobes"), "uprobe_syscall")));
	CU_ASSERT_TRUE(json_is_false(
		json_object_get(json_object_get(json_object_get(info, "kernel"), "uprobes"),
				"uprobe_nop5_optimization")));
	CU_ASSERT_STRING_EQUAL(str(info, "cpu.model"), "Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz");
	CU_ASSERT_STRING_EQUAL(str(info, "cpu.vendor"), "GenuineIntel");
	CU_ASSERT_STRING_EQUAL(str(info, "cpu.family"), "6");
	CU_ASSERT_STRING_EQUAL(str(info, "cpu.model_number"), "85");
	CU_ASSERT_STRING_EQUAL(str(info, "cpu.stepping"), "7");
	CU_ASSERT_STRING_EQUAL(str(info, "cpu.microcode"), "0x5003604");
	CU_ASSERT_EQUAL(num(info, "cpu.cpuinfo_processors"), 4);
	CU_ASSERT_STRING_EQUAL(str(info, "cpu.online"), "0-3");
	CU_ASSERT_EQUAL(num(info, "cpu.online_count"), 4);
	CU_ASSERT_STRING_EQUAL(str(info, "cpu.offline"), "");
	CU_ASSERT_STRING_EQUAL(str(info, "cpu.isolated"), "3");
	CU_ASSERT_EQUAL(num(info, "cpu.isolated_count"), 1);
	CU_ASSERT_STRING_EQUAL(str(info, "cpu.nohz_full"), "3");
	CU_ASSERT_STRING_EQUAL(str(info, "smt.control"), "on");
	CU_ASSERT_EQUAL(num(info, "smt.active"), 1);
	CU_ASSERT_STRING_EQUAL(str(info, "smt.state"), "on");
	CU_ASSERT_EQUAL(num(info, "memory.total_kb"), 16318096);
	json_decref(info);
}

static void test_full_topology(void)
{
	json_t *info = collect("sysroot-full", FAST), *caches, *c, *map, *e;
	size_t i;
	int seen = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(info);
	CU_ASSERT_STRING_EQUAL(str(info, "topology.source"), "hwloc");
	CU_ASSERT_EQUAL(num(info, "topology.packages"), 1);
	CU_ASSERT_EQUAL(num(info, "topology.cores"), 2);
	CU_ASSERT_EQUAL(num(info, "topology.pus"), 4);
	CU_ASSERT_EQUAL(num(info, "topology.numa_nodes"), 1);
	caches = tb_sysinfo_get(info, "topology.caches");
	CU_ASSERT_EQUAL(json_array_size(caches), 4);
	json_array_foreach(caches, i, c)
	{
		const char *name = json_string_value(json_object_get(c, "name"));
		json_int_t size = json_integer_value(json_object_get(c, "size"));
		json_int_t count = json_integer_value(json_object_get(c, "count"));
		json_int_t ways = json_integer_value(json_object_get(c, "ways"));

		CU_ASSERT_EQUAL(json_integer_value(json_object_get(c, "line_size")), 64);
		if (!strcmp(name, "L1d")) {
			seen |= 1;
			CU_ASSERT_EQUAL(size, 48 * 1024);
			CU_ASSERT_EQUAL(count, 2);
			CU_ASSERT_EQUAL(ways, 12);
			CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(c, "type")),
					       "data");
		} else if (!strcmp(name, "L1i")) {
			seen |= 2;
			CU_ASSERT_EQUAL(size, 32 * 1024);
			CU_ASSERT_EQUAL(count, 2);
		} else if (!strcmp(name, "L2")) {
			seen |= 4;
			CU_ASSERT_EQUAL(size, 1024 * 1024);
			CU_ASSERT_EQUAL(json_integer_value(json_object_get(c, "level")), 2);
		} else if (!strcmp(name, "L3")) {
			seen |= 8;
			CU_ASSERT_EQUAL(size, 22528 * 1024);
			CU_ASSERT_EQUAL(count, 1);
			CU_ASSERT_EQUAL(ways, 11);
		}
	}
	CU_ASSERT_EQUAL(seen, 15);
	/* Threads 0,2 share core 0 and 1,3 core 1 in the fixture. */
	map = tb_sysinfo_get(info, "topology.pu_map");
	CU_ASSERT_EQUAL(json_array_size(map), 4);
	json_array_foreach(map, i, e)
	{
		json_int_t pu = json_integer_value(json_object_get(e, "pu"));

		CU_ASSERT_EQUAL(json_integer_value(json_object_get(e, "core")), pu % 2);
		CU_ASSERT_EQUAL(json_integer_value(json_object_get(e, "package")), 0);
	}
	json_decref(info);
}

static void test_full_settings(void)
{
	json_t *info = collect("sysroot-full", FAST), *avail, *tracers;

	CU_ASSERT_PTR_NOT_NULL_FATAL(info);
	CU_ASSERT_STRING_EQUAL(str(info, "cpufreq.driver"), "intel_pstate");
	CU_ASSERT_STRING_EQUAL(str(info, "cpufreq.governor"), "mixed");
	CU_ASSERT_STRING_EQUAL(str(info, "cpufreq.governors.performance"), "0-2");
	CU_ASSERT_STRING_EQUAL(str(info, "cpufreq.governors.powersave"), "3");
	CU_ASSERT_STRING_EQUAL(str(info, "cpufreq.max_freq_khz"), "3900000");
	CU_ASSERT_STRING_EQUAL(str(info, "cpufreq.turbo"), "on");
	CU_ASSERT_EQUAL(num(info, "cpufreq.intel_pstate_no_turbo"), 0);
	CU_ASSERT_STRING_EQUAL(str(info, "cpufreq.intel_pstate_status"), "active");
	CU_ASSERT_TRUE(is_null(info, "cpufreq.boost"));
	CU_ASSERT_STRING_EQUAL(str(info, "cpufreq.amd_pstate_status"), "unknown");
	CU_ASSERT_STRING_EQUAL(str(info, "cpuidle.driver"), "intel_idle");
	CU_ASSERT_STRING_EQUAL(str(info, "cpuidle.governor"), "menu");
	CU_ASSERT_STRING_EQUAL(str(info, "clocksource.current"), "tsc");
	avail = tb_sysinfo_get(info, "clocksource.available");
	CU_ASSERT_EQUAL(json_array_size(avail), 3);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_array_get(avail, 2)), "acpi_pm");
	CU_ASSERT_EQUAL(json_object_size(tb_sysinfo_get(info, "mitigations")), 5);
	CU_ASSERT_STRING_EQUAL(str(info, "mitigations.meltdown"), "Not affected");
	CU_ASSERT_STRING_EQUAL(str(info, "mitigations.retbleed"), "Mitigation: Enhanced IBRS");
	CU_ASSERT_PTR_NOT_NULL(strstr(str(info, "mitigations.spectre_v2"), "Automatic IBRS"));
	CU_ASSERT_TRUE(json_is_false(tb_sysinfo_get(info, "virtualization.cpu_hypervisor_flag")));
	CU_ASSERT_TRUE(json_is_false(tb_sysinfo_get(info, "virtualization.virtualized")));
	CU_ASSERT_STRING_EQUAL(str(info, "virtualization.type"), "none");
	CU_ASSERT_STRING_EQUAL(str(info, "virtualization.dmi_sys_vendor"), "Dell Inc.");
	CU_ASSERT_STRING_EQUAL(str(info, "virtualization.dmi_product_name"), "PowerEdge R640");
	CU_ASSERT_STRING_EQUAL(str(info, "virtualization.hypervisor_type"), "unknown");
	CU_ASSERT_STRING_EQUAL(str(info, "thp.enabled"), "always");
	CU_ASSERT_STRING_EQUAL(str(info, "thp.defrag"), "madvise");
	CU_ASSERT_EQUAL(num(info, "sysctl.perf_event_paranoid"), 3);
	CU_ASSERT_EQUAL(num(info, "sysctl.perf_event_max_sample_rate"), 50000);
	CU_ASSERT_EQUAL(num(info, "sysctl.perf_cpu_time_max_percent"), 25);
	CU_ASSERT_EQUAL(num(info, "sysctl.kptr_restrict"), 1);
	CU_ASSERT_EQUAL(num(info, "sysctl.bpf_jit_enable"), 1);
	CU_ASSERT_EQUAL(num(info, "sysctl.bpf_stats_enabled"), 0);
	CU_ASSERT_EQUAL(num(info, "sysctl.unprivileged_bpf_disabled"), 2);
	CU_ASSERT_STRING_EQUAL(str(info, "tracefs.mount"), "/sys/kernel/tracing");
	tracers = tb_sysinfo_get(info, "tracefs.available_tracers");
	CU_ASSERT_EQUAL(json_array_size(tracers), 8);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_array_get(tracers, 2)), "function_graph");
	CU_ASSERT_DOUBLE_EQUAL(
		json_real_value(json_array_get(tb_sysinfo_get(info, "load.loadavg"), 0)), 1.5,
		1e-9);
	CU_ASSERT_DOUBLE_EQUAL(json_real_value(tb_sysinfo_get(info, "load.uptime_s")), 12345.67,
			       1e-6);
	CU_ASSERT_STRING_EQUAL(str(info, "tools.perf"), "not collected");
	json_decref(info);
}

static void test_versions(void)
{
	json_t *info = collect("sysroot-full", FAST);
	char libbpf[32];

	CU_ASSERT_PTR_NOT_NULL_FATAL(info);
	snprintf(libbpf, sizeof(libbpf), "%u.%u", libbpf_major_version(), libbpf_minor_version());
	CU_ASSERT_STRING_EQUAL(str(info, "libraries.libbpf"), libbpf);
	CU_ASSERT_STRING_EQUAL(str(info, "libraries.jansson"), JANSSON_VERSION);
	CU_ASSERT_STRING_EQUAL(str(info, "tool.name"), TB_NAME);
	CU_ASSERT_STRING_EQUAL(str(info, "tool.version"), TB_VERSION);
	/* Build-time versions come from pkg-config through the Makefile. */
	CU_ASSERT_STRING_NOT_EQUAL(str(info, "libraries.libtracefs"), "unknown");
	CU_ASSERT_STRING_NOT_EQUAL(str(info, "libraries.libtraceevent"), "unknown");
	CU_ASSERT_STRING_NOT_EQUAL(str(info, "libraries.gsl"), "unknown");
	CU_ASSERT_STRING_NOT_EQUAL(str(info, "libraries.hwloc"), "unknown");
	json_decref(info);
}

static void test_minimal_unknowns(void)
{
	json_t *info = collect("sysroot-minimal", FAST);

	CU_ASSERT_PTR_NOT_NULL_FATAL(info);
	CU_ASSERT_STRING_EQUAL(str(info, "kernel.release"), "5.10.0-minimal");
	CU_ASSERT_STRING_EQUAL(str(info, "cpu.model"), "AMD EPYC 7763 64-Core Processor");
	CU_ASSERT_EQUAL(num(info, "cpu.online_count"), 2);
	/* No /proc/config.gz, no /boot/config-*. */
	CU_ASSERT_STRING_EQUAL(str(info, "kernel.config_hash"), "unknown");
	CU_ASSERT_STRING_EQUAL(str(info, "kernel.config_source"), "unknown");
	/* No kallsyms: unknown, not "no". */
	CU_ASSERT_TRUE(json_is_null(json_object_get(
		json_object_get(json_object_get(info, "kernel"), "uprobes"), "uprobe_syscall")));
	/* No cpufreq directory. */
	CU_ASSERT_STRING_EQUAL(str(info, "cpufreq.driver"), "unknown");
	CU_ASSERT_STRING_EQUAL(str(info, "cpufreq.governor"), "unknown");
	CU_ASSERT_STRING_EQUAL(str(info, "cpufreq.governors"), "unknown");
	CU_ASSERT_STRING_EQUAL(str(info, "cpufreq.turbo"), "unknown");
	CU_ASSERT_TRUE(is_null(info, "cpufreq.boost"));
	CU_ASSERT_TRUE(is_null(info, "cpufreq.intel_pstate_no_turbo"));
	/* No vulnerabilities directory, no topology: a string instead of an object. */
	CU_ASSERT_STRING_EQUAL(str(info, "mitigations"), "unknown");
	CU_ASSERT_STRING_EQUAL(str(info, "topology"), "unknown");
	CU_ASSERT_STRING_EQUAL(str(info, "smt.control"), "unknown");
	CU_ASSERT_TRUE(is_null(info, "smt.active"));
	CU_ASSERT_STRING_EQUAL(str(info, "smt.state"), "unknown");
	CU_ASSERT_STRING_EQUAL(str(info, "cpu.microcode"), "unknown");
	CU_ASSERT_STRING_EQUAL(str(info, "cpu.isolated"), "unknown");
	CU_ASSERT_TRUE(is_null(info, "cpu.isolated_count"));
	CU_ASSERT_STRING_EQUAL(str(info, "cpuidle.driver"), "unknown");
	CU_ASSERT_STRING_EQUAL(str(info, "thp.enabled"), "unknown");
	CU_ASSERT_TRUE(is_null(info, "sysctl.perf_event_paranoid"));
	CU_ASSERT_TRUE(is_null(info, "memory.total_kb"));
	CU_ASSERT_STRING_EQUAL(str(info, "tracefs.mount"), "not mounted");
	CU_ASSERT_STRING_EQUAL(str(info, "tracefs.available_tracers"), "unknown");
	CU_ASSERT_STRING_EQUAL(str(info, "clocksource.current"), "kvm-clock");
	/* The cpuinfo flag alone says "virtual machine"; nothing says which. */
	CU_ASSERT_TRUE(json_is_true(tb_sysinfo_get(info, "virtualization.virtualized")));
	CU_ASSERT_STRING_EQUAL(str(info, "virtualization.type"), "unknown");
	CU_ASSERT_STRING_EQUAL(str(info, "virtualization.dmi_sys_vendor"), "unknown");
	CU_ASSERT_EQUAL(strlen(str(info, "fingerprint")), 16);
	json_decref(info);
}

/* A root with nothing in it: every field unknown or null, and still a fingerprint. */
static void test_empty_root(void)
{
	const char *dir = tb_test_tmpdir();
	json_t *info;

	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	info = tb_sysinfo_collect(dir, FAST);
	CU_ASSERT_PTR_NOT_NULL_FATAL(info);
	CU_ASSERT_STRING_EQUAL(str(info, "hostname"), "unknown");
	CU_ASSERT_STRING_EQUAL(str(info, "kernel.release"), "unknown");
	CU_ASSERT_STRING_EQUAL(str(info, "cpu.model"), "unknown");
	CU_ASSERT_TRUE(is_null(info, "cpu.cpuinfo_processors"));
	CU_ASSERT_TRUE(is_null(info, "load.loadavg"));
	CU_ASSERT_TRUE(is_null(info, "virtualization.virtualized"));
	CU_ASSERT_STRING_EQUAL(str(info, "tracefs.mount"), "unknown");
	CU_ASSERT_EQUAL(strlen(str(info, "fingerprint")), 16);
	json_decref(info);
}

/* Without /proc/config.gz, the distribution's /boot/config-RELEASE is hashed. */
static void test_boot_config(void)
{
	const char *dir = tb_test_tmpdir();
	char path[PATH_MAX], hash[24];
	json_t *info;
	FILE *f;

	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	snprintf(path, sizeof(path), "%s/proc/sys/kernel", dir);
	CU_ASSERT_EQUAL_FATAL(tb_mkdir_p(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/boot", dir);
	CU_ASSERT_EQUAL_FATAL(tb_mkdir_p(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/proc/sys/kernel/osrelease", dir);
	f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("6.9.9-boot\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/boot/config-6.9.9-boot", dir);
	f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("CONFIG_A=y\n", f);
	fclose(f);
	info = tb_sysinfo_collect(dir, FAST);
	CU_ASSERT_PTR_NOT_NULL_FATAL(info);
	snprintf(hash, sizeof(hash), "%016llx", (unsigned long long)fnv1a64("CONFIG_A=y\n"));
	CU_ASSERT_STRING_EQUAL(str(info, "kernel.config_hash"), hash);
	CU_ASSERT_STRING_EQUAL(str(info, "kernel.config_source"), "/boot/config-6.9.9-boot");
	json_decref(info);
}

static int copy_tree(const char *from, const char *to)
{
	char *argv[] = {"cp", "-a", (char *)from, (char *)to, NULL};
	struct tb_proc p;
	int ret;

	ret = tb_proc_spawn(&p, argv, NULL, TB_PROC_NULLIN);
	if (ret)
		return ret;
	tb_proc_wait(&p, 0);
	ret = WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0 ? 0 : -EIO;
	tb_proc_release(&p);
	return ret;
}

static void rewrite(const char *root, const char *rel, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
}

static char *fingerprint_of(const char *root)
{
	json_t *info = tb_sysinfo_collect(root, FAST);
	char *fp;

	if (!info)
		return NULL;
	fp = strdup(json_string_value(json_object_get(info, "fingerprint")));
	json_decref(info);
	return fp;
}

/* Same tree twice -> same; load/uptime/hostname changes -> same; a mitigation -> different. */
static void test_fingerprint_files(void)
{
	const char *tmp = tb_test_tmpdir();
	char src[PATH_MAX], root[PATH_MAX], *a = NULL, *b = NULL, *c = NULL, *d = NULL;

	CU_ASSERT_PTR_NOT_NULL_FATAL(tmp);
	snprintf(src, sizeof(src), "%s/sysroot-full", tb_test_data_dir());
	snprintf(root, sizeof(root), "%s/root", tmp);
	CU_ASSERT_EQUAL_FATAL(copy_tree(src, root), 0);
	a = fingerprint_of(root);
	b = fingerprint_of(root);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_STRING_EQUAL(a, b);
	CU_ASSERT_EQUAL(strlen(a), 16);
	rewrite(root, "/proc/loadavg", "7.00 6.00 5.00 9/400 54321\n");
	rewrite(root, "/proc/uptime", "99999.00 1.00\n");
	rewrite(root, "/proc/sys/kernel/hostname", "another-name\n");
	c = fingerprint_of(root);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_STRING_EQUAL(a, c);
	rewrite(root, "/sys/devices/system/cpu/vulnerabilities/spectre_v2", "Vulnerable\n");
	d = fingerprint_of(root);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_STRING_NOT_EQUAL(a, d);
	free(a);
	free(b);
	free(c);
	free(d);
}

static void test_fingerprint_fields(void)
{
	json_t *info = collect("sysroot-full", FAST), *fields, *f;
	char before[24];
	size_t i;
	bool has_mitigations = false, has_load = false, has_host = false;

	CU_ASSERT_PTR_NOT_NULL_FATAL(info);
	fields = json_object_get(info, "fingerprint_fields");
	CU_ASSERT_TRUE(json_array_size(fields) > 20);
	json_array_foreach(fields, i, f)
	{
		const char *s = json_string_value(f);

		has_mitigations |= !strcmp(s, "mitigations");
		has_load |= !strncmp(s, "load", 4);
		has_host |= !strcmp(s, "hostname") || !strcmp(s, "captured");
	}
	CU_ASSERT_TRUE(has_mitigations);
	CU_ASSERT_FALSE(has_load);
	CU_ASSERT_FALSE(has_host);
	snprintf(before, sizeof(before), "%s", str(info, "fingerprint"));
	/* Recomputing without a change keeps it; a field outside the list does not matter. */
	CU_ASSERT_EQUAL(tb_sysinfo_fingerprint(info), 0);
	CU_ASSERT_STRING_EQUAL(str(info, "fingerprint"), before);
	json_object_set_new(json_object_get(info, "load"), "uptime_s", json_real(1.0));
	json_object_set_new(info, "captured", json_string("2000-01-01T00:00:00Z"));
	CU_ASSERT_EQUAL(tb_sysinfo_fingerprint(info), 0);
	CU_ASSERT_STRING_EQUAL(str(info, "fingerprint"), before);
	json_object_set_new(json_object_get(info, "sysctl"), "kptr_restrict", json_integer(2));
	CU_ASSERT_EQUAL(tb_sysinfo_fingerprint(info), 0);
	CU_ASSERT_STRING_NOT_EQUAL(str(info, "fingerprint"), before);
	json_decref(info);
}

/* The fingerprint is the digest of its fields' {path: value} object, and says so. */
static void test_fingerprint_method(void)
{
	json_t *info = collect("sysroot-full", FAST), *sel = json_object(), *f;
	char hex[65];
	size_t i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(info);
	CU_ASSERT_PTR_NOT_NULL_FATAL(sel);
	json_array_foreach(json_object_get(info, "fingerprint_fields"), i, f)
	{
		json_t *v = tb_sysinfo_get(info, json_string_value(f));

		json_object_set(sel, json_string_value(f), v ? v : json_null());
	}
	CU_ASSERT_EQUAL(tb_sha256_json(sel, hex), 0);
	hex[16] = '\0';
	CU_ASSERT_STRING_EQUAL(str(info, "fingerprint"), hex);
	CU_ASSERT_STRING_EQUAL(str(info, "fingerprint_algorithm"), TB_SYSINFO_FINGERPRINT_HOW);
	CU_ASSERT_PTR_NOT_NULL(strstr(str(info, "fingerprint_algorithm"), "sha256"));
	/* the digest of a JSON value does not depend on its keys' order or indentation */
	{
		json_t *a = json_loads("{\"b\": [1, 2.5], \"a\": {\"y\": null, \"x\": \"s\"}}", 0,
				       NULL);
		json_t *b = json_loads("{\"a\":{\"x\":\"s\",\"y\":null},\"b\":[1,2.5]}", 0, NULL);
		char ha[65], hb[65];

		CU_ASSERT_EQUAL(tb_sha256_json(a, ha), 0);
		CU_ASSERT_EQUAL(tb_sha256_json(b, hb), 0);
		CU_ASSERT_STRING_EQUAL(ha, hb);
		CU_ASSERT_EQUAL(strlen(ha), 64);
		json_decref(a);
		json_decref(b);
	}
	json_decref(sel);
	json_decref(info);
}

/*
 * A result written before the fingerprint became SHA-256 (FNV-1a) compared with one after:
 * the two fingerprints are not compared (they would always differ), the fields still are.
 */
static void test_fingerprint_old_method(void)
{
	json_t *now = collect("sysroot-full", FAST), *old;
	struct tb_fp_diff *d = NULL;
	size_t n = 9;

	CU_ASSERT_PTR_NOT_NULL_FATAL(now);
	old = json_deep_copy(now);
	CU_ASSERT_PTR_NOT_NULL_FATAL(old);
	json_object_set_new(old, "fingerprint", json_string("0123456789abcdef"));
	json_object_set_new(old, "fingerprint_algorithm", json_string(TB_SYSINFO_FINGERPRINT_FNV));
	CU_ASSERT_FALSE(tb_system_fingerprints_comparable(old, now));
	CU_ASSERT_EQUAL(tb_system_diff(old, now, &d, &n), 0);
	CU_ASSERT_EQUAL(n, 0); /* the same machine: nothing differs */
	tb_fp_diffs_free(d, n);
	/* a field that differs is still found */
	json_object_set_new(json_object_get(old, "kernel"), "release", json_string("6.1.0"));
	CU_ASSERT_EQUAL(tb_system_diff(old, now, &d, &n), 0);
	CU_ASSERT_EQUAL_FATAL(n, 1);
	CU_ASSERT_STRING_EQUAL(d[0].key, "kernel.release");
	tb_fp_diffs_free(d, n);
	/* two fingerprints of one algorithm are compared as before */
	json_object_set_new(old, "fingerprint_algorithm", json_string(TB_SYSINFO_FINGERPRINT_HOW));
	CU_ASSERT_TRUE(tb_system_fingerprints_comparable(old, now));
	CU_ASSERT_EQUAL(tb_system_diff(old, now, &d, &n), 0);
	CU_ASSERT_EQUAL(n, 2); /* kernel.release and fingerprint */
	tb_fp_diffs_free(d, n);
	json_decref(old);
	json_decref(now);
}

static void test_get(void)
{
	json_t *o = json_pack("{s:{s:{s:i}}, s:s}", "a", "b", "c", 3, "d", "x");

	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	CU_ASSERT_EQUAL(json_integer_value(tb_sysinfo_get(o, "a.b.c")), 3);
	CU_ASSERT_PTR_NULL(tb_sysinfo_get(o, "a.x.c"));
	CU_ASSERT_PTR_NULL(tb_sysinfo_get(o, "d.e"));
	CU_ASSERT_PTR_NULL(tb_sysinfo_get(o, "nope"));
	json_decref(o);
}

static void test_print(void)
{
	json_t *info = collect("sysroot-full", FAST), *empty = json_object();
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_PTR_NOT_NULL_FATAL(info);
	tb_render_sysinfo_print(f, info);
	tb_render_sysinfo_print(f, empty); /* nothing in it: must not crash */
	fclose(f);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "intel_pstate"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "1 packages, 2 cores, 4 PUs, 1 NUMA nodes"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "L1d 48 KiB x2"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, str(info, "fingerprint")));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "performance=0-2"));
	free(buf);
	json_decref(info);
	json_decref(empty);
}

/* The live machine, tools included: topology present, the same fingerprint twice. */
static void test_live(void)
{
	json_t *a = tb_sysinfo_collect("/", 0), *b = tb_sysinfo_collect("/", 0);
	long online = sysconf(_SC_NPROCESSORS_ONLN);

	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_PTR_NULL(json_object_get(a, "root"));
	CU_ASSERT_STRING_EQUAL(str(a, "topology.source"), "hwloc");
	CU_ASSERT_TRUE(num(a, "topology.pus") >= 1 && num(a, "topology.pus") <= online);
	CU_ASSERT_TRUE(num(a, "topology.cores") >= 1);
	CU_ASSERT_STRING_NOT_EQUAL(str(a, "kernel.release"), "unknown");
	CU_ASSERT_STRING_NOT_EQUAL(str(a, "tools.perf"), "not collected");
	CU_ASSERT_STRING_NOT_EQUAL(str(a, "virtualization.detect_virt_vm"), "not collected");
	CU_ASSERT_STRING_EQUAL(str(a, "fingerprint"), str(b, "fingerprint"));
	json_decref(a);
	json_decref(b);
}

static CU_TestInfo tests[] = {
	{"full: kernel and cpu", test_full_kernel_cpu},
	{"full: hwloc topology from the fixture", test_full_topology},
	{"full: cpufreq, idle, mitigations, settings", test_full_settings},
	{"library versions", test_versions},
	{"minimal: missing files are unknown", test_minimal_unknowns},
	{"empty root: no crash", test_empty_root},
	{"config from /boot", test_boot_config},
	{"fingerprint from files", test_fingerprint_files},
	{"fingerprint fields", test_fingerprint_fields},
	{"fingerprint: the digest of its fields", test_fingerprint_method},
	{"fingerprint: results of the old method", test_fingerprint_old_method},
	{"dot paths", test_get},
	{"summary", test_print},
	{"live system", test_live},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("host-sysinfo", NULL, NULL, tests);
