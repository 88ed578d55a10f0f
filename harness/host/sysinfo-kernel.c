// SPDX-License-Identifier: GPL-2.0
/*
 * The environment fingerprint's kernel and tracing sections (sysinfo-int.h): the kernel
 * (release, command line, config hash, what it offers uprobes), virtualization, THP, the
 * sysctls that matter to tracing, tracefs, memory and load.
 */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "core/tb.h"
#include "host/sysinfo.h"
#include "host/sysinfo-int.h"

/* kernel tunables under /proc/sys reported in "sysctl" (key = file name). */
static const char *const sysctls[] = {
	"/proc/sys/kernel/perf_event_paranoid",	      "/proc/sys/kernel/perf_event_max_sample_rate",
	"/proc/sys/kernel/perf_cpu_time_max_percent", "/proc/sys/kernel/kptr_restrict",
	"/proc/sys/net/core/bpf_jit_enable",	      "/proc/sys/kernel/bpf_stats_enabled",
	"/proc/sys/kernel/unprivileged_bpf_disabled",
};

static uint64_t fnv1a64(uint64_t h, const void *data, size_t len)
{
	const unsigned char *p = data;

	while (len--)
		h = (h ^ *p++) * 0x100000001b3ull;
	return h;
}

#define FNV_OFFSET 0xcbf29ce484222325ull

/* ---- kernel ------------------------------------------------------------------------------ */

/* FNV-1a 64 of the decompressed kernel config (gzopen also reads plain files as they are). */
static int config_hash(const char *path, char *out, size_t len)
{
	unsigned char buf[65536];
	uint64_t h = FNV_OFFSET;
	gzFile gz;
	int n;

	if (access(path, R_OK))
		return -errno;
	gz = gzopen(path, "rb");
	if (!gz)
		return -EIO;
	while ((n = gzread(gz, buf, sizeof(buf))) > 0)
		h = fnv1a64(h, buf, (size_t)n);
	gzclose(gz);
	if (n < 0)
		return -EIO;
	snprintf(out, len, "%016llx", (unsigned long long)h);
	return 0;
}

/*
 * What the kernel offers user-space probes (kallsyms names, visible whatever kptr_restrict
 * hides): the uretprobe syscall (6.11: a uretprobe's trampoline returns through a syscall
 * instead of an int3 trap), the uprobe syscall and the nop5 optimisation (6.18: a uprobe on a
 * 5-byte nop becomes a call into a trampoline). Figures of uprobe, uretprobe and USDT costs
 * from kernels with and without them do not compare. null: kallsyms unreadable.
 */
static json_t *uprobe_features(struct si *s)
{
	static const struct {
		const char *key, *suffix; /* a symbol ending so: "__x64_sys_uprobe" */
	} want[] = {
		{"uretprobe_syscall", "_sys_uretprobe"},
		{"uprobe_syscall", "_sys_uprobe"},
		{"uprobe_nop5_optimization", " arch_uprobe_optimize"},
	};
	bool found[TB_ARRAY_SIZE(want)] = {false};
	char path[PATH_MAX], *line = NULL;
	size_t cap = 0, i, left = TB_ARRAY_SIZE(want);
	json_t *o = json_object();
	FILE *f;

	if (!o)
		return NULL;
	f = fopen(tb_si_path(s, "/proc/kallsyms", path, sizeof(path)), "re");
	while (f && left && getline(&line, &cap, f) > 0) {
		size_t n = strcspn(line, "\t\n"); /* a module's symbols carry "\t[module]" */

		line[n] = '\0';
		for (i = 0; i < TB_ARRAY_SIZE(want); i++) {
			size_t k = strlen(want[i].suffix);

			if (!found[i] && n >= k && !strcmp(line + n - k, want[i].suffix)) {
				found[i] = true;
				left--;
			}
		}
	}
	for (i = 0; i < TB_ARRAY_SIZE(want); i++)
		tb_si_put(s, o, want[i].key, f ? json_boolean(found[i]) : json_null());
	if (f)
		fclose(f);
	free(line);
	return o;
}

json_t *tb_si_kernel(struct si *s)
{
	json_t *k = json_object();
	char *release, path[PATH_MAX], rel[PATH_MAX], hash[32];
	int ret;

	if (!k)
		return NULL;
	release = tb_si_line(s, "/proc/sys/kernel/osrelease");
	tb_si_put_str(s, k, "release", release);
	tb_si_put_file_str(s, k, "version", "/proc/sys/kernel/version");
	tb_si_put_file_str(s, k, "cmdline", "/proc/cmdline");
	/* /proc/config.gz (CONFIG_IKCONFIG_PROC) first, else the distribution's /boot copy. */
	snprintf(rel, sizeof(rel), "/proc/config.gz");
	ret = config_hash(tb_si_path(s, rel, path, sizeof(path)), hash, sizeof(hash));
	if (ret && release) {
		snprintf(rel, sizeof(rel), "/boot/config-%s", release);
		ret = config_hash(tb_si_path(s, rel, path, sizeof(path)), hash, sizeof(hash));
	}
	if (ret)
		rel[0] = '\0';
	tb_si_put_str(s, k, "config_hash", rel[0] ? hash : NULL);
	tb_si_put_str(s, k, "config_source", rel[0] ? rel : NULL);
	tb_si_put(s, k, "uprobes", uprobe_features(s));
	free(release);
	return k;
}

/* ---- virtualization, THP, sysctls, tracefs, memory, load ----------------------------------- */

static bool answer_known(const char *v)
{
	return strcmp(v, UNKNOWN) && strcmp(v, NOT_INSTALLED) && strcmp(v, NOT_COLLECTED);
}

/*
 * Virtual machine evidence, files first: the cpuinfo hypervisor flag, /sys/hypervisor/type,
 * DMI; then systemd-detect-virt --vm (live root only). Containers are reported apart.
 */
json_t *tb_si_virt(struct si *s, int hv_flag, const struct detect_virt *dv)
{
	json_t *o = json_object(), *virtualized;
	char *hv_type;
	const char *type;
	bool vm_known = answer_known(dv->vm);

	if (!o)
		return NULL;
	hv_type = tb_si_line(s, "/sys/hypervisor/type");
	if (hv_flag == 1 || hv_type || (vm_known && strcmp(dv->vm, "none")))
		virtualized = json_true();
	else if (hv_flag == 0 || (vm_known && !strcmp(dv->vm, "none")))
		virtualized = json_false();
	else
		virtualized = json_null();
	if (vm_known)
		type = dv->vm;
	else if (hv_type)
		type = hv_type;
	else
		type = json_is_false(virtualized) ? "none" : UNKNOWN;
	tb_si_put(s, o, "cpu_hypervisor_flag", hv_flag < 0 ? json_null() : json_boolean(hv_flag));
	tb_si_put_str(s, o, "hypervisor_type", hv_type);
	tb_si_put_file_str(s, o, "dmi_sys_vendor", "/sys/class/dmi/id/sys_vendor");
	tb_si_put_file_str(s, o, "dmi_product_name", "/sys/class/dmi/id/product_name");
	tb_si_put_str(s, o, "detect_virt_vm", dv->vm);
	tb_si_put_str(s, o, "container", dv->container);
	tb_si_put(s, o, "virtualized", virtualized);
	tb_si_put_str(s, o, "type", type);
	free(hv_type);
	return o;
}

json_t *tb_si_thp(struct si *s)
{
	json_t *o = json_object();

	if (o) {
		tb_si_put_choice(s, o, "enabled", "/sys/kernel/mm/transparent_hugepage/enabled");
		tb_si_put_choice(s, o, "defrag", "/sys/kernel/mm/transparent_hugepage/defrag");
	}
	return o;
}

json_t *tb_si_sysctl(struct si *s)
{
	json_t *o = json_object();
	size_t i;

	for (i = 0; o && i < TB_ARRAY_SIZE(sysctls); i++)
		tb_si_put(s, o, strrchr(sysctls[i], '/') + 1, tb_si_file_int(s, sysctls[i]));
	return o;
}

/* Where tracefs is mounted (from mounts; never mounted here) and what tracers it offers. */
json_t *tb_si_tracefs(struct si *s)
{
	char *mounts = tb_si_read(s, "/proc/mounts"), *line, *save = NULL, mnt[PATH_MAX] = "";
	char rel[PATH_MAX + 32], *tracers;
	json_t *o = json_object();

	if (!o) {
		free(mounts);
		return NULL;
	}
	for (line = mounts ? strtok_r(mounts, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		char dev[256], dir[PATH_MAX], type[64];

		if (sscanf(line, "%255s %4095s %63s", dev, dir, type) != 3 ||
		    strcmp(type, "tracefs"))
			continue;
		/* The canonical place wins over the debugfs automount. */
		if (!mnt[0] || !strcmp(dir, "/sys/kernel/tracing"))
			snprintf(mnt, sizeof(mnt), "%s", dir);
	}
	tb_si_put_str(s, o, "mount", mnt[0] ? mnt : mounts ? "not mounted" : UNKNOWN);
	snprintf(rel, sizeof(rel), "%s/available_tracers", mnt);
	tracers = mnt[0] ? tb_si_line(s, rel) : NULL;
	tb_si_put(s, o, "available_tracers", tracers ? tb_si_words(tracers) : json_string(UNKNOWN));
	free(tracers);
	free(mounts);
	return o;
}

json_t *tb_si_meminfo_total(struct si *s)
{
	char *buf = tb_si_read(s, "/proc/meminfo"), *p;
	long long kb;
	json_t *j = json_null();

	if (buf && (p = strstr(buf, "MemTotal:")) && sscanf(p, "MemTotal: %lld", &kb) == 1)
		j = json_integer(kb);
	free(buf);
	return j;
}

json_t *tb_si_load(struct si *s)
{
	char *la = tb_si_line(s, "/proc/loadavg"), *up = tb_si_line(s, "/proc/uptime");
	double l1, l5, l15, u;
	json_t *o = json_object();

	if (o) {
		tb_si_put(s, o, "loadavg",
			  la && sscanf(la, "%lf %lf %lf", &l1, &l5, &l15) == 3
				  ? json_pack("[f, f, f]", l1, l5, l15)
				  : json_null());
		tb_si_put(s, o, "uptime_s",
			  up && sscanf(up, "%lf", &u) == 1 ? json_real(u) : json_null());
	}
	free(la);
	free(up);
	return o;
}
