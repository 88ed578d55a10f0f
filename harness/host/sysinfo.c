// SPDX-License-Identifier: GPL-2.0
/*
 * The environment fingerprint. Every value is read from a file under a root directory ("/"
 * normally, a fixture tree in tests), from hwloc, from the libraries we link, or from
 * `tool --version`; nothing is guessed. Conventions are in sysinfo.h; the sections are read by
 * sysinfo-cpu.c, sysinfo-kernel.c and sysinfo-tools.c with the small readers of sysinfo-read.c
 * (sysinfo-int.h). The command is
 * cli/cmd-sysinfo.c, the readable printout render/sysinfo-text.c.
 */
#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/tb.h"
#include "host/sysinfo.h"
#include "host/sysinfo-int.h"

/* The comparability fields: what must match for two runs to be compared. */
static const char *const fingerprint_fields[] = {
	"tool.version",
	"kernel.release",
	"kernel.version",
	"kernel.cmdline",
	"kernel.config_hash",
	"cpu.model",
	"cpu.vendor",
	"cpu.family",
	"cpu.model_number",
	"cpu.stepping",
	"cpu.microcode",
	"cpu.online",
	"cpu.isolated",
	"cpu.nohz_full",
	"topology.packages",
	"topology.cores",
	"topology.pus",
	"topology.numa_nodes",
	"topology.caches",
	"smt.control",
	"smt.active",
	"cpufreq.driver",
	"cpufreq.governor",
	"cpufreq.governors",
	"cpufreq.turbo",
	"cpufreq.boost",
	"cpufreq.intel_pstate_no_turbo",
	"cpufreq.intel_pstate_status",
	"cpufreq.amd_pstate_status",
	"cpuidle.driver",
	"cpuidle.governor",
	"clocksource.current",
	"clocksource.available",
	"mitigations",
	"virtualization.virtualized",
	"virtualization.type",
	"virtualization.hypervisor_type",
	"virtualization.dmi_sys_vendor",
	"virtualization.dmi_product_name",
	"virtualization.container",
	"thp.enabled",
	"thp.defrag",
	"sysctl",
	"libraries",
	"tools",
};

json_t *tb_sysinfo_get(const json_t *info, const char *path)
{
	char key[256];
	const char *dot;
	json_t *v = (json_t *)info;

	while (v && *path) {
		dot = strchr(path, '.');
		snprintf(key, sizeof(key), "%.*s", dot ? (int)(dot - path) : (int)strlen(path),
			 path);
		v = json_object_get(v, key);
		path = dot ? dot + 1 : path + strlen(path);
	}
	return v;
}

int tb_sysinfo_fingerprint(json_t *info)
{
	json_t *sel = json_object(), *fields = json_array();
	char hex[65];
	int ret = -ENOMEM;
	size_t i;

	if (!sel || !fields)
		goto out;
	for (i = 0; i < TB_ARRAY_SIZE(fingerprint_fields); i++) {
		json_t *v = tb_sysinfo_get(info, fingerprint_fields[i]);

		if (json_object_set(sel, fingerprint_fields[i], v ? v : json_null()) ||
		    json_array_append_new(fields, json_string(fingerprint_fields[i])))
			goto out;
	}
	if (tb_sha256_json(sel, hex))
		goto out;
	hex[16] = '\0';
	if (json_object_set_new(info, "fingerprint", json_string(hex)) ||
	    json_object_set(info, "fingerprint_fields", fields) ||
	    json_object_set_new(info, "fingerprint_algorithm",
				json_string(TB_SYSINFO_FINGERPRINT_HOW)))
		goto out;
	ret = 0;
out:
	json_decref(sel);
	json_decref(fields);
	return ret;
}

json_t *tb_sysinfo_collect(const char *root, unsigned flags)
{
	struct si s = {.flags = flags};
	struct detect_virt dv;
	char now[32], *host;
	json_t *info = json_object(), *tools;
	int hv_flag;
	size_t n;

	if (!info)
		return NULL;
	/* "/" reads the live paths as they are; any other root is a prefix without a final '/'. */
	if (root && strcmp(root, "/")) {
		if (!realpath(root, s.root))
			snprintf(s.root, sizeof(s.root), "%s", root);
		n = strlen(s.root);
		while (n > 1 && s.root[n - 1] == '/')
			s.root[--n] = '\0';
		tb_si_put_str(&s, info, "root", s.root);
	}
	tb_utc_iso(now, sizeof(now), time(NULL));
	tb_si_put_str(&s, info, "schema", TB_SYSINFO_SCHEMA);
	tb_si_put(&s, info, "tool",
		  json_pack("{s:s, s:s}", "name", TB_NAME, "version", TB_VERSION));
	tb_si_put_str(&s, info, "captured", now);
	host = tb_si_line(&s, "/proc/sys/kernel/hostname");
	tb_si_put_str(&s, info, "hostname", host);
	free(host);
	tb_si_put(&s, info, "kernel", tb_si_kernel(&s));
	tb_si_put(&s, info, "cpu", tb_si_cpu(&s, &hv_flag));
	tb_si_put(&s, info, "topology", tb_si_topology(&s));
	tb_si_put(&s, info, "smt", tb_si_smt(&s));
	tb_si_put(&s, info, "cpufreq", tb_si_cpufreq(&s));
	tb_si_put(&s, info, "cpuidle", tb_si_cpuidle(&s));
	tb_si_put(&s, info, "clocksource", tb_si_clocksource(&s));
	tb_si_put(&s, info, "mitigations", tb_si_mitigations(&s));
	tools = tb_si_tools(&s, &dv);
	tb_si_put(&s, info, "virtualization", tb_si_virt(&s, hv_flag, &dv));
	tb_si_put(&s, info, "thp", tb_si_thp(&s));
	tb_si_put(&s, info, "sysctl", tb_si_sysctl(&s));
	tb_si_put(&s, info, "tracefs", tb_si_tracefs(&s));
	tb_si_put(&s, info, "memory", json_pack("{s:o}", "total_kb", tb_si_meminfo_total(&s)));
	tb_si_put(&s, info, "load", tb_si_load(&s));
	tb_si_put(&s, info, "libraries", tb_si_libraries());
	tb_si_put(&s, info, "tools", tools);
	if (s.nomem || tb_sysinfo_fingerprint(info)) {
		json_decref(info);
		return NULL;
	}
	return info;
}
