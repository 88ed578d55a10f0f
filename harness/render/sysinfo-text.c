// SPDX-License-Identifier: GPL-2.0
/* The readable summary of the environment fingerprint that `tracebench sysinfo` prints. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "core/tb.h"
#include "host/sysinfo.h"
#include "render/sysinfo-text.h"

#define UNKNOWN TB_SYSINFO_UNKNOWN
#define KEYW	28

static void line_str(FILE *f, const char *key, const char *val)
{
	fprintf(f, "  %-*s %s\n", KEYW, key, val);
}

/* A value as text: strings as they are, arrays joined by spaces, null as "unknown". */
static void value_text(const json_t *v, char *buf, size_t len)
{
	size_t i, off = 0;
	json_t *e;

	buf[0] = '\0';
	if (!v || json_is_null(v)) {
		snprintf(buf, len, "%s", UNKNOWN);
	} else if (json_is_string(v)) {
		/* Empty cpulists (isolated, offline) mean "no CPU". */
		snprintf(buf, len, "%s", *json_string_value(v) ? json_string_value(v) : "none");
	} else if (json_is_integer(v)) {
		snprintf(buf, len, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
	} else if (json_is_real(v)) {
		snprintf(buf, len, "%.2f", json_real_value(v));
	} else if (json_is_boolean(v)) {
		snprintf(buf, len, "%s", json_is_true(v) ? "yes" : "no");
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, e)
		{
			char item[256];

			value_text(e, item, sizeof(item));
			off += (size_t)snprintf(buf + off, off < len ? len - off : 0, "%s%s",
						i ? " " : "", item);
			if (off >= len)
				break;
		}
	} else if (json_is_object(v)) {
		const char *k;

		json_object_foreach((json_t *)v, k, e)
		{
			char item[256];

			value_text(e, item, sizeof(item));
			off += (size_t)snprintf(buf + off, off < len ? len - off : 0, "%s%s=%s",
						off ? " " : "", k, item);
			if (off >= len)
				break;
		}
	}
}

static void line_path(FILE *f, const json_t *info, const char *key, const char *path)
{
	char buf[8192];

	value_text(tb_sysinfo_get(info, path), buf, sizeof(buf));
	line_str(f, key, buf);
}

static void print_topology(FILE *f, const json_t *info)
{
	const json_t *t = json_object_get(info, "topology"), *c;
	char buf[1024];
	size_t i, off = 0;

	if (!json_is_object(t)) {
		line_str(f, "topology", UNKNOWN);
		return;
	}
	snprintf(buf, sizeof(buf),
		 "%" JSON_INTEGER_FORMAT " packages, %" JSON_INTEGER_FORMAT
		 " cores, %" JSON_INTEGER_FORMAT " PUs, %" JSON_INTEGER_FORMAT " NUMA nodes",
		 json_integer_value(json_object_get(t, "packages")),
		 json_integer_value(json_object_get(t, "cores")),
		 json_integer_value(json_object_get(t, "pus")),
		 json_integer_value(json_object_get(t, "numa_nodes")));
	line_str(f, "topology (hwloc)", buf);
	buf[0] = '\0';
	json_array_foreach(json_object_get(t, "caches"), i, c)
	{
		json_int_t size = json_integer_value(json_object_get(c, "size"));

		off += (size_t)snprintf(buf + off, off < sizeof(buf) ? sizeof(buf) - off : 0,
					"%s%s %" JSON_INTEGER_FORMAT " KiB x%" JSON_INTEGER_FORMAT,
					i ? ", " : "",
					json_string_value(json_object_get(c, "name")), size / 1024,
					json_integer_value(json_object_get(c, "count")));
		if (off >= sizeof(buf))
			break;
	}
	line_str(f, "caches", buf[0] ? buf : "none reported");
}

/* The summary's rows, in order: a row with a group starts that group. */
static const struct row {
	const char *group;
	const char *key;
	const char *path; /* dot path in the object; NULL: composed by print_row */
} rows[] = {
	{"System", "hostname", "hostname"},
	{NULL, "captured", "captured"},
	{NULL, "kernel release", "kernel.release"},
	{NULL, "kernel version", "kernel.version"},
	{NULL, "kernel cmdline", "kernel.cmdline"},
	{NULL, "kernel config hash", "kernel.config_hash"},
	{NULL, "kernel config source", "kernel.config_source"},
	{NULL, "uretprobe syscall", "kernel.uprobes.uretprobe_syscall"},
	{NULL, "uprobe syscall", "kernel.uprobes.uprobe_syscall"},
	{NULL, "uprobe nop5 optimization", "kernel.uprobes.uprobe_nop5_optimization"},
	{NULL, "memory (kB)", "memory.total_kb"},
	{"CPU", "model", "cpu.model"},
	{NULL, "vendor/family/model/step", NULL},
	{NULL, "microcode", "cpu.microcode"},
	{NULL, "topology", NULL},
	{NULL, "SMT", "smt.state"},
	{NULL, "SMT control", "smt.control"},
	{NULL, "online CPUs", "cpu.online"},
	{NULL, "isolated CPUs", "cpu.isolated"},
	{NULL, "nohz_full CPUs", "cpu.nohz_full"},
	{"Frequency and idle", "cpufreq driver", "cpufreq.driver"},
	{NULL, "cpufreq governor", "cpufreq.governor"},
	{NULL, "governors by CPU", "cpufreq.governors"},
	{NULL, "turbo/boost", "cpufreq.turbo"},
	{NULL, "intel_pstate status", "cpufreq.intel_pstate_status"},
	{NULL, "amd_pstate status", "cpufreq.amd_pstate_status"},
	{NULL, "cpuidle driver", "cpuidle.driver"},
	{NULL, "cpuidle governor", "cpuidle.governor"},
	{NULL, "clocksource", "clocksource.current"},
	{NULL, "clocksources available", "clocksource.available"},
	{"Virtualization", "virtualized", "virtualization.virtualized"},
	{NULL, "type", "virtualization.type"},
	{NULL, "cpuinfo hypervisor flag", "virtualization.cpu_hypervisor_flag"},
	{NULL, "/sys/hypervisor/type", "virtualization.hypervisor_type"},
	{NULL, "DMI vendor", "virtualization.dmi_sys_vendor"},
	{NULL, "DMI product", "virtualization.dmi_product_name"},
	{NULL, "systemd-detect-virt --vm", "virtualization.detect_virt_vm"},
	{NULL, "container", "virtualization.container"},
	{"Memory and kernel settings", "THP enabled", "thp.enabled"},
	{NULL, "THP defrag", "thp.defrag"},
	{NULL, "perf_event_paranoid", "sysctl.perf_event_paranoid"},
	{NULL, "perf_event_max_sample_rate", "sysctl.perf_event_max_sample_rate"},
	{NULL, "perf_cpu_time_max_percent", "sysctl.perf_cpu_time_max_percent"},
	{NULL, "kptr_restrict", "sysctl.kptr_restrict"},
	{NULL, "bpf_jit_enable", "sysctl.bpf_jit_enable"},
	{NULL, "bpf_stats_enabled", "sysctl.bpf_stats_enabled"},
	{NULL, "unprivileged_bpf_disabled", "sysctl.unprivileged_bpf_disabled"},
	{"Tracing", "tracefs mount", "tracefs.mount"},
	{NULL, "available tracers", "tracefs.available_tracers"},
	{"Load at capture", "load average", "load.loadavg"},
	{NULL, "uptime (s)", "load.uptime_s"},
};

static void print_row(FILE *f, const json_t *info, const struct row *r)
{
	char a[64], b[64], c[64], d[64], buf[512];

	if (!strcmp(r->key, "topology")) {
		print_topology(f, info);
		return;
	}
	if (r->path) {
		line_path(f, info, r->key, r->path);
		return;
	}
	/* "vendor/family/model/step", the one composed row */
	value_text(tb_sysinfo_get(info, "cpu.vendor"), a, sizeof(a));
	value_text(tb_sysinfo_get(info, "cpu.family"), b, sizeof(b));
	value_text(tb_sysinfo_get(info, "cpu.model_number"), c, sizeof(c));
	value_text(tb_sysinfo_get(info, "cpu.stepping"), d, sizeof(d));
	snprintf(buf, sizeof(buf), "%s / %s / %s / %s", a, b, c, d);
	line_str(f, r->key, buf);
}

/* A group of its own for each member of obj (libraries, tools, mitigations). */
static void print_members(FILE *f, const char *title, const json_t *obj)
{
	const char *name;
	json_t *v;

	fprintf(f, "\n%s\n", title);
	json_object_foreach((json_t *)obj, name, v) line_path(f, v, name, "");
}

void tb_render_sysinfo_print(FILE *f, const json_t *info)
{
	const json_t *m = json_object_get(info, "mitigations");
	char buf[512];
	size_t i;

	for (i = 0; i < TB_ARRAY_SIZE(rows); i++) {
		if (rows[i].group)
			fprintf(f, "%s%s\n", i ? "\n" : "", rows[i].group);
		print_row(f, info, &rows[i]);
	}
	print_members(f, "Mitigations (/sys/devices/system/cpu/vulnerabilities)",
		      json_is_object(m) ? m : NULL);
	if (!json_is_object(m))
		line_str(f, "vulnerabilities", UNKNOWN);
	print_members(f, "Libraries", json_object_get(info, "libraries"));
	print_members(f, "Tools", json_object_get(info, "tools"));
	fprintf(f, "\nFingerprint\n");
	value_text(json_object_get(info, "fingerprint"), buf, sizeof(buf));
	snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), " (over %zu fields; see --json)",
		 json_array_size(json_object_get(info, "fingerprint_fields")));
	line_str(f, "fingerprint", buf);
}
