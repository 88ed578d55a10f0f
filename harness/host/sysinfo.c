// SPDX-License-Identifier: GPL-2.0
/*
 * The environment fingerprint. Every value is read from a file under a root directory ("/"
 * normally, a fixture tree in tests), from hwloc, from the libraries we link, or from
 * `tool --version`; nothing is guessed. Conventions are in sysinfo.h. The command is
 * cli/cmd-sysinfo.c, the readable printout render/sysinfo-text.c.
 */
#include <bpf/libbpf.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <gnu/libc-version.h>
#include <gsl/gsl_version.h>
#include <hwloc.h>
#include <jansson.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "core/proc.h"
#include "host/sysinfo.h"
#include "core/tb.h"

/* Versions of libraries without a run-time version call, from pkg-config at build time. */
#ifndef TB_LIBTRACEFS_VERSION
#define TB_LIBTRACEFS_VERSION "unknown"
#endif
#ifndef TB_LIBTRACEEVENT_VERSION
#define TB_LIBTRACEEVENT_VERSION "unknown"
#endif
#ifndef TB_LIBPERF_VERSION
#define TB_LIBPERF_VERSION "unknown"
#endif
#ifndef TB_INIH_VERSION
#define TB_INIH_VERSION "unknown"
#endif
#ifndef TB_HWLOC_VERSION
#define TB_HWLOC_VERSION "unknown"
#endif

#define UNKNOWN		TB_SYSINFO_UNKNOWN
#define NOT_INSTALLED	"not installed"
#define NOT_COLLECTED	"not collected"
#define CPU_DIR		"/sys/devices/system/cpu"
#define TOOL_TIMEOUT_NS 3000000000ull

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

/* Tools whose version we report: argv[0], and the key in "tools". */
static const char *const tool_names[] = {
	"perf", "bpftrace", "trace-cmd", "lttng", "bpftool", "gnuplot",
};

/* kernel tunables under /proc/sys reported in "sysctl" (key = file name). */
static const char *const sysctls[] = {
	"/proc/sys/kernel/perf_event_paranoid",	      "/proc/sys/kernel/perf_event_max_sample_rate",
	"/proc/sys/kernel/perf_cpu_time_max_percent", "/proc/sys/kernel/kptr_restrict",
	"/proc/sys/net/core/bpf_jit_enable",	      "/proc/sys/kernel/bpf_stats_enabled",
	"/proc/sys/kernel/unprivileged_bpf_disabled",
};

struct si {
	char root[PATH_MAX]; /* prefix for absolute paths: "" for the live system */
	unsigned flags;
	bool nomem; /* a jansson allocation failed somewhere */
};

/* ---- small helpers --------------------------------------------------------------------- */

static const char *si_path(const struct si *s, const char *rel, char *buf, size_t len)
{
	/* A path too long for PATH_MAX cannot exist: make it one that does not. */
	if ((size_t)snprintf(buf, len, "%s%s", s->root, rel) >= len)
		snprintf(buf, len, "/nonexistent");
	return buf;
}

static char *trim(char *p)
{
	char *e;

	while (isspace((unsigned char)*p))
		p++;
	e = p + strlen(p);
	while (e > p && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return p;
}

/* Whole file under the root, NUL-terminated (caller frees), or NULL when unreadable. */
static char *si_read(const struct si *s, const char *rel)
{
	char path[PATH_MAX], *buf = NULL;

	if (tb_read_file(si_path(s, rel, path, sizeof(path)), &buf, NULL))
		return NULL;
	return buf;
}

/* First line of a file, trimmed, as a new string; NULL when unreadable. */
static char *si_line(const struct si *s, const char *rel)
{
	char *buf = si_read(s, rel), *t;

	if (!buf)
		return NULL;
	buf[strcspn(buf, "\n")] = '\0';
	t = trim(buf);
	memmove(buf, t, strlen(t) + 1);
	return buf;
}

static void put(struct si *s, json_t *obj, const char *key, json_t *v)
{
	if (!v || json_object_set_new(obj, key, v))
		s->nomem = true;
}

static void put_str(struct si *s, json_t *obj, const char *key, const char *v)
{
	put(s, obj, key, json_string(v ? v : UNKNOWN));
}

/* The first line of rel as a string, "unknown" when unreadable. */
static void put_file_str(struct si *s, json_t *obj, const char *key, const char *rel)
{
	char *v = si_line(s, rel);

	put_str(s, obj, key, v);
	free(v);
}

/* The file's content as an integer, null when unreadable or not a number. */
static json_t *file_int(const struct si *s, const char *rel)
{
	char *v = si_line(s, rel);
	int64_t n;
	json_t *j;

	j = v && !tb_parse_int(v, &n) ? json_integer(n) : json_null();
	free(v);
	return j;
}

/* Words of s (space separated) as a JSON array of strings. */
static json_t *words(const char *str)
{
	json_t *a = json_array();
	char *dup = strdup(str), *w, *save = NULL;

	if (!a || !dup) {
		json_decref(a);
		free(dup);
		return NULL;
	}
	for (w = strtok_r(dup, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
		if (json_array_append_new(a, json_string(w))) {
			json_decref(a);
			a = NULL;
			break;
		}
	}
	free(dup);
	return a;
}

/* The [bracketed] choice of a sysfs selector file ("always [madvise] never"). */
static void put_choice(struct si *s, json_t *obj, const char *key, const char *rel)
{
	char *v = si_line(s, rel), *b, *e;

	if (v && (b = strchr(v, '[')) && (e = strchr(b, ']'))) {
		*e = '\0';
		put_str(s, obj, key, b + 1);
	} else {
		put_str(s, obj, key, v);
	}
	free(v);
}

/* A cpulist file ("0-3,8") as the list text and its CPU count; "unknown"/null when absent. */
static void put_cpulist(struct si *s, json_t *obj, const char *key, const char *count_key,
			const char *rel)
{
	char *v = si_line(s, rel);
	hwloc_bitmap_t set = hwloc_bitmap_alloc();

	put_str(s, obj, key, v);
	if (count_key) {
		if (v && set && hwloc_bitmap_list_sscanf(set, v) == 0)
			put(s, obj, count_key, json_integer(hwloc_bitmap_weight(set)));
		else
			put(s, obj, count_key, json_null());
	}
	hwloc_bitmap_free(set);
	free(v);
}

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

static json_t *kernel_info(struct si *s)
{
	json_t *k = json_object();
	char *release, path[PATH_MAX], rel[PATH_MAX], hash[32];
	int ret;

	if (!k)
		return NULL;
	release = si_line(s, "/proc/sys/kernel/osrelease");
	put_str(s, k, "release", release);
	put_file_str(s, k, "version", "/proc/sys/kernel/version");
	put_file_str(s, k, "cmdline", "/proc/cmdline");
	/* /proc/config.gz (CONFIG_IKCONFIG_PROC) first, else the distribution's /boot copy. */
	snprintf(rel, sizeof(rel), "/proc/config.gz");
	ret = config_hash(si_path(s, rel, path, sizeof(path)), hash, sizeof(hash));
	if (ret && release) {
		snprintf(rel, sizeof(rel), "/boot/config-%s", release);
		ret = config_hash(si_path(s, rel, path, sizeof(path)), hash, sizeof(hash));
	}
	if (ret)
		rel[0] = '\0';
	put_str(s, k, "config_hash", rel[0] ? hash : NULL);
	put_str(s, k, "config_source", rel[0] ? rel : NULL);
	free(release);
	return k;
}

/* ---- cpu: /proc/cpuinfo and the cpu lists ------------------------------------------------ */

static json_t *cpu_info(struct si *s, int *hv_flag)
{
	const char *model = NULL, *vendor = NULL, *family = NULL, *modelnr = NULL;
	const char *stepping = NULL, *microcode = NULL, *hardware = NULL, *processor = NULL;
	char *buf = si_read(s, "/proc/cpuinfo"), *line, *save = NULL;
	json_t *c = json_object();
	bool first_block = true;
	int nproc = 0;

	*hv_flag = -1;
	if (!c) {
		free(buf);
		return NULL;
	}
	for (line = buf ? strtok_r(buf, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':'), *key, *val;

		if (!colon)
			continue;
		*colon = '\0';
		key = trim(line);
		val = trim(colon + 1);
		if (!strcmp(key, "processor") && isdigit((unsigned char)*val)) {
			if (nproc++)
				first_block = false;
			continue;
		}
		/* Arm's "Hardware" line follows the last processor block. */
		if (!strcmp(key, "Hardware")) {
			hardware = val;
			continue;
		}
		/* Only the first processor's block describes the model (all are alike on x86). */
		if (!first_block && nproc)
			continue;
		if (!strcmp(key, "model name") && !model)
			model = val;
		else if (!strcmp(key, "vendor_id") || !strcmp(key, "CPU implementer"))
			vendor = val;
		else if (!strcmp(key, "cpu family") || !strcmp(key, "CPU architecture"))
			family = val;
		else if (!strcmp(key, "model") || !strcmp(key, "CPU part"))
			modelnr = val;
		else if (!strcmp(key, "stepping") || !strcmp(key, "CPU revision"))
			stepping = val;
		else if (!strcmp(key, "microcode"))
			microcode = val;
		else if (!strcmp(key, "Processor") || !strcmp(key, "cpu model"))
			processor = val;
		else if (!strcmp(key, "flags") || !strcmp(key, "Features"))
			*hv_flag = strstr(val, " hypervisor") || !strncmp(val, "hypervisor", 10);
	}
	put_str(s, c, "model", model ? model : hardware ? hardware : processor);
	put_str(s, c, "vendor", vendor);
	put_str(s, c, "family", family);
	put_str(s, c, "model_number", modelnr);
	put_str(s, c, "stepping", stepping);
	put_str(s, c, "microcode", microcode);
	put(s, c, "cpuinfo_processors", buf ? json_integer(nproc) : json_null());
	free(buf);
	put_cpulist(s, c, "online", "online_count", CPU_DIR "/online");
	put_cpulist(s, c, "present", NULL, CPU_DIR "/present");
	put_cpulist(s, c, "possible", NULL, CPU_DIR "/possible");
	put_cpulist(s, c, "offline", NULL, CPU_DIR "/offline");
	put_cpulist(s, c, "isolated", "isolated_count", CPU_DIR "/isolated");
	put_cpulist(s, c, "nohz_full", NULL, CPU_DIR "/nohz_full");
	return c;
}

static json_t *smt_info(struct si *s)
{
	json_t *o = json_object(), *active;
	char *control;
	const char *state = UNKNOWN;

	if (!o)
		return NULL;
	control = si_line(s, CPU_DIR "/smt/control");
	active = file_int(s, CPU_DIR "/smt/active");
	if (json_is_integer(active))
		state = json_integer_value(active) ? "on" : "off";
	else if (control && !strcmp(control, "on"))
		state = "on";
	else if (control &&
		 (!strcmp(control, "off") || !strcmp(control, "forceoff") ||
		  !strcmp(control, "notsupported") || !strcmp(control, "notimplemented")))
		state = "off";
	put_str(s, o, "control", control);
	put(s, o, "active", active);
	put_str(s, o, "state", state);
	free(control);
	return o;
}

/* ---- topology (hwloc) --------------------------------------------------------------------- */

static const char *cache_type_name(hwloc_obj_cache_type_t t)
{
	return t == HWLOC_OBJ_CACHE_DATA	  ? "data"
	       : t == HWLOC_OBJ_CACHE_INSTRUCTION ? "instruction"
						  : "unified";
}

/* One entry per distinct (level, type, size, line, ways), with how many such caches exist. */
static json_t *topo_caches(hwloc_topology_t topo)
{
	static const hwloc_obj_type_t types[] = {
		HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L1ICACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L2ICACHE,
		HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L3ICACHE, HWLOC_OBJ_L4CACHE, HWLOC_OBJ_L5CACHE,
	};
	json_t *arr = json_array();
	size_t i, j;

	if (!arr)
		return NULL;
	for (i = 0; i < TB_ARRAY_SIZE(types); i++) {
		hwloc_obj_t o = NULL;
		size_t first = json_array_size(arr);

		while ((o = hwloc_get_next_obj_by_type(topo, types[i], o))) {
			const struct hwloc_cache_attr_s *ca = &o->attr->cache;
			json_t *e = NULL;
			char name[16];

			for (j = first; j < json_array_size(arr); j++) {
				json_t *x = json_array_get(arr, j);

				if (json_integer_value(json_object_get(x, "size")) ==
					    (json_int_t)ca->size &&
				    json_integer_value(json_object_get(x, "line_size")) ==
					    ca->linesize &&
				    json_integer_value(json_object_get(x, "ways")) ==
					    ca->associativity) {
					e = x;
					break;
				}
			}
			if (e) {
				json_object_set_new(e, "count",
						    json_integer(json_integer_value(json_object_get(
									 e, "count")) +
								 1));
				continue;
			}
			snprintf(name, sizeof(name), "L%u%s", ca->depth,
				 ca->type == HWLOC_OBJ_CACHE_DATA	   ? "d"
				 : ca->type == HWLOC_OBJ_CACHE_INSTRUCTION ? "i"
									   : "");
			e = json_pack("{s:s, s:i, s:s, s:I, s:i, s:i, s:i}", "name", name, "level",
				      (int)ca->depth, "type", cache_type_name(ca->type), "size",
				      (json_int_t)ca->size, "line_size", (int)ca->linesize, "ways",
				      ca->associativity, "count", 1);
			if (json_array_append_new(arr, e)) {
				json_decref(arr);
				return NULL;
			}
		}
	}
	return arr;
}

static json_t *topo_pu_map(hwloc_topology_t topo)
{
	int i, n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
	json_t *arr = json_array();

	for (i = 0; arr && i < n; i++) {
		hwloc_obj_t pu = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, (unsigned)i);
		hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, pu);
		hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE, pu);
		json_t *e =
			json_pack("{s:i, s:o, s:o}", "pu", (int)pu->os_index, "core",
				  core ? json_integer(core->logical_index) : json_null(), "package",
				  pkg ? json_integer(pkg->logical_index) : json_null());

		if (json_array_append_new(arr, e)) {
			json_decref(arr);
			arr = NULL;
		}
	}
	return arr;
}

/*
 * hwloc's view of the machine. For a fixture root, hwloc's Linux backend reads the tree named
 * by HWLOC_FSROOT (its documented test hook) and the x86 CPUID backend, which would describe
 * the live CPU, is excluded.
 */
static json_t *topology_info(struct si *s)
{
	char path[PATH_MAX], *saved = NULL;
	hwloc_topology_t topo = NULL;
	bool fsroot = s->root[0] != '\0';
	const char *env;
	json_t *t = NULL;
	int ret;

	if (s->flags & TB_SYSINFO_NO_TOPOLOGY)
		return json_string(UNKNOWN);
	if (fsroot) {
		if (access(si_path(s, CPU_DIR "/cpu0/topology", path, sizeof(path)), F_OK))
			return json_string(UNKNOWN);
		env = getenv("HWLOC_FSROOT");
		if (env && !(saved = strdup(env)))
			return NULL;
		setenv("HWLOC_FSROOT", s->root, 1);
	}
	if (hwloc_topology_init(&topo)) {
		tb_warn("sysinfo: hwloc_topology_init: %s", strerror(errno));
		goto out;
	}
	if (fsroot)
		hwloc_topology_set_components(topo, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST,
					      "x86");
	/* Instruction caches are filtered out by default; they are part of the machine. */
	hwloc_topology_set_icache_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_ALL);
	ret = hwloc_topology_load(topo);
	if (ret) {
		tb_warn("sysinfo: hwloc_topology_load: %s", strerror(errno));
		goto out;
	}
	t = json_pack("{s:s, s:i, s:i, s:i, s:i, s:o, s:o}", "source", "hwloc", "packages",
		      hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE), "cores",
		      hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE), "pus",
		      hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU), "numa_nodes",
		      hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE), "caches",
		      topo_caches(topo), "pu_map", topo_pu_map(topo));
out:
	if (topo)
		hwloc_topology_destroy(topo);
	if (fsroot) {
		if (saved)
			setenv("HWLOC_FSROOT", saved, 1);
		else
			unsetenv("HWLOC_FSROOT");
	}
	free(saved);
	return t ? t : s->nomem ? NULL : json_string(UNKNOWN);
}

/* ---- cpufreq, cpuidle, clocksource --------------------------------------------------------- */

static int cpu_dir_filter(const struct dirent *d)
{
	const char *p = d->d_name;

	if (strncmp(p, "cpu", 3) || !p[3])
		return 0;
	for (p += 3; *p; p++)
		if (!isdigit((unsigned char)*p))
			return 0;
	return 1;
}

#define MAX_DISTINCT 16

/*
 * Per-CPU values of cpuN/<file> summarised: key is the common value, "mixed" when they
 * differ, "unknown" when no CPU has the file; map_key maps each value to its CPU list.
 */
static void put_per_cpu(struct si *s, json_t *obj, const char *key, const char *map_key,
			const char *file)
{
	char path[PATH_MAX], rel[PATH_MAX], list[1024];
	struct {
		char *val;
		hwloc_bitmap_t cpus;
	} d[MAX_DISTINCT] = {0};
	struct dirent **ents = NULL;
	json_t *map = json_object();
	size_t nd = 0, j;
	int i, n;

	n = scandir(si_path(s, CPU_DIR, path, sizeof(path)), &ents, cpu_dir_filter, NULL);
	for (i = 0; i < n; i++) {
		char *v;

		snprintf(rel, sizeof(rel), CPU_DIR "/%s/%s", ents[i]->d_name, file);
		v = si_line(s, rel);
		for (j = 0; v && j < nd && strcmp(d[j].val, v); j++)
			;
		if (v && j == nd && nd < MAX_DISTINCT) {
			d[nd].cpus = hwloc_bitmap_alloc();
			d[nd++].val = v;
			v = NULL;
		}
		if (j < nd && d[j].cpus)
			hwloc_bitmap_set(d[j].cpus, (unsigned)atoi(ents[i]->d_name + 3));
		free(v);
		free(ents[i]);
	}
	free(ents);
	for (j = 0; j < nd; j++) {
		if (!d[j].cpus || hwloc_bitmap_list_snprintf(list, sizeof(list), d[j].cpus) < 0)
			s->nomem = true;
		else if (map)
			put_str(s, map, d[j].val, list);
		hwloc_bitmap_free(d[j].cpus);
	}
	put_str(s, obj, key, nd == 1 ? d[0].val : nd ? "mixed" : UNKNOWN);
	for (j = 0; j < nd; j++)
		free(d[j].val);
	if (map_key)
		put(s, obj, map_key, nd && map ? json_incref(map) : json_string(UNKNOWN));
	json_decref(map);
}

static json_t *cpufreq_info(struct si *s)
{
	json_t *o = json_object(), *boost, *no_turbo;
	const char *turbo = UNKNOWN;

	if (!o)
		return NULL;
	put_per_cpu(s, o, "driver", NULL, "cpufreq/scaling_driver");
	put_per_cpu(s, o, "governor", "governors", "cpufreq/scaling_governor");
	put_per_cpu(s, o, "max_freq_khz", NULL, "cpufreq/scaling_max_freq");
	boost = file_int(s, CPU_DIR "/cpufreq/boost");
	no_turbo = file_int(s, CPU_DIR "/intel_pstate/no_turbo");
	if (json_is_integer(boost))
		turbo = json_integer_value(boost) ? "on" : "off";
	else if (json_is_integer(no_turbo))
		turbo = json_integer_value(no_turbo) ? "off" : "on";
	put_str(s, o, "turbo", turbo);
	put(s, o, "boost", boost);
	put(s, o, "intel_pstate_no_turbo", no_turbo);
	put_file_str(s, o, "intel_pstate_status", CPU_DIR "/intel_pstate/status");
	put_file_str(s, o, "amd_pstate_status", CPU_DIR "/amd_pstate/status");
	return o;
}

static json_t *cpuidle_info(struct si *s)
{
	json_t *o = json_object();
	char *gov;

	if (!o)
		return NULL;
	put_file_str(s, o, "driver", CPU_DIR "/cpuidle/current_driver");
	gov = si_line(s, CPU_DIR "/cpuidle/current_governor");
	if (!gov)
		gov = si_line(s, CPU_DIR "/cpuidle/current_governor_ro");
	put_str(s, o, "governor", gov);
	free(gov);
	return o;
}

static json_t *clocksource_info(struct si *s)
{
	json_t *o = json_object();
	char *avail;

	if (!o)
		return NULL;
	put_file_str(s, o, "current",
		     "/sys/devices/system/clocksource/clocksource0/current_clocksource");
	avail = si_line(s, "/sys/devices/system/clocksource/clocksource0/available_clocksource");
	put(s, o, "available", avail ? words(avail) : json_string(UNKNOWN));
	free(avail);
	return o;
}

/* Every file of the vulnerabilities directory; "unknown" (a string) when it does not exist. */
static json_t *mitigations_info(struct si *s)
{
	char path[PATH_MAX], rel[PATH_MAX];
	struct dirent **ents = NULL;
	json_t *o;
	int i, n;

	n = scandir(si_path(s, CPU_DIR "/vulnerabilities", path, sizeof(path)), &ents, NULL,
		    alphasort);
	if (n < 0)
		return json_string(UNKNOWN);
	o = json_object();
	for (i = 0; i < n; i++) {
		if (o && ents[i]->d_name[0] != '.') {
			snprintf(rel, sizeof(rel), CPU_DIR "/vulnerabilities/%s", ents[i]->d_name);
			put_file_str(s, o, ents[i]->d_name, rel);
		}
		free(ents[i]);
	}
	free(ents);
	return o;
}

/* ---- external programs ------------------------------------------------------------------- */

struct tool_run {
	struct tb_proc p;
	bool started;
	char out[4096];
	size_t len;
};

/* Start argv with its output captured. Returns 0, -ENOENT when not installed. */
static int tool_start(struct tool_run *r, const char *prog, const char *arg)
{
	char *argv[] = {(char *)prog, (char *)arg, NULL};
	int ret;

	memset(r, 0, sizeof(*r));
	ret = tb_proc_spawn(&r->p, argv, NULL, TB_PROC_CAPTURE | TB_PROC_NULLIN);
	r->started = ret == 0;
	return ret;
}

/* Read the output until EOF or deadline, reap; the first non-empty line into line. */
static int tool_finish(struct tool_run *r, uint64_t deadline, char *line, size_t len)
{
	char *l, *save = NULL;
	int ret = 0;

	line[0] = '\0';
	while (r->started && r->p.out_fd >= 0) {
		struct pollfd pfd = {.fd = r->p.out_fd, .events = POLLIN};
		uint64_t now = tb_now_ns();
		ssize_t n;

		if (now >= deadline) {
			ret = -ETIMEDOUT;
			break;
		}
		if (poll(&pfd, 1, (int)((deadline - now) / 1000000 + 1)) <= 0)
			continue;
		if (r->len + 1 >= sizeof(r->out)) {
			char sink[4096];

			n = read(r->p.out_fd, sink, sizeof(sink));
		} else {
			n = read(r->p.out_fd, r->out + r->len, sizeof(r->out) - 1 - r->len);
			if (n > 0)
				r->len += (size_t)n;
		}
		if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
			break;
	}
	if (r->started) {
		if (ret || tb_proc_wait(&r->p, 500000000ull))
			tb_proc_stop(&r->p, SIGKILL, 100000000ull);
		tb_proc_release(&r->p);
	}
	r->out[r->len] = '\0';
	for (l = strtok_r(r->out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		l = trim(l);
		if (*l) {
			snprintf(line, len, "%s", l);
			break;
		}
	}
	return ret;
}

/* systemd-detect-virt's answers ("kvm", "docker", "none"), or why there is none. */
struct detect_virt {
	char vm[64];
	char container[64];
};

static json_t *tools_info(struct si *s, struct detect_virt *dv)
{
	enum { NT = TB_ARRAY_SIZE(tool_names) };
	struct tool_run runs[NT + 2];
	int started[NT + 2];
	uint64_t deadline;
	json_t *o = json_object();
	char line[256];
	size_t i;

	snprintf(dv->vm, sizeof(dv->vm), "%s", NOT_COLLECTED);
	snprintf(dv->container, sizeof(dv->container), "%s", NOT_COLLECTED);
	if (!o)
		return NULL;
	if (s->flags & TB_SYSINFO_NO_TOOLS) {
		for (i = 0; i < NT; i++)
			put_str(s, o, tool_names[i], NOT_COLLECTED);
		return o;
	}
	/* All at once, so the slowest (bpftrace, ~0.3 s) sets the time taken. */
	for (i = 0; i < NT; i++)
		started[i] = tool_start(&runs[i], tool_names[i], "--version");
	/* systemd-detect-virt inspects the live system: meaningless for a fixture root. */
	started[NT] = s->root[0] ? -EINVAL : tool_start(&runs[NT], "systemd-detect-virt", "--vm");
	started[NT + 1] = s->root[0]
				  ? -EINVAL
				  : tool_start(&runs[NT + 1], "systemd-detect-virt", "--container");
	deadline = tb_now_ns() + TOOL_TIMEOUT_NS;
	for (i = 0; i < NT + 2; i++) {
		const char *v;
		int ret = 0;

		line[0] = '\0';
		if (started[i] == 0)
			ret = tool_finish(&runs[i], deadline, line, sizeof(line));
		if (started[i] == -ENOENT)
			v = NOT_INSTALLED;
		else if (started[i] == -EINVAL)
			v = NOT_COLLECTED;
		else if (started[i] || ret || !line[0])
			v = UNKNOWN;
		else
			v = line;
		if (i == NT)
			snprintf(dv->vm, sizeof(dv->vm), "%s", v);
		else if (i == NT + 1)
			snprintf(dv->container, sizeof(dv->container), "%s", v);
		else
			put_str(s, o, tool_names[i], v);
	}
	return o;
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
static json_t *virt_info(struct si *s, int hv_flag, const struct detect_virt *dv)
{
	json_t *o = json_object(), *virtualized;
	char *hv_type;
	const char *type;
	bool vm_known = answer_known(dv->vm);

	if (!o)
		return NULL;
	hv_type = si_line(s, "/sys/hypervisor/type");
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
	put(s, o, "cpu_hypervisor_flag", hv_flag < 0 ? json_null() : json_boolean(hv_flag));
	put_str(s, o, "hypervisor_type", hv_type);
	put_file_str(s, o, "dmi_sys_vendor", "/sys/class/dmi/id/sys_vendor");
	put_file_str(s, o, "dmi_product_name", "/sys/class/dmi/id/product_name");
	put_str(s, o, "detect_virt_vm", dv->vm);
	put_str(s, o, "container", dv->container);
	put(s, o, "virtualized", virtualized);
	put_str(s, o, "type", type);
	free(hv_type);
	return o;
}

static json_t *thp_info(struct si *s)
{
	json_t *o = json_object();

	if (o) {
		put_choice(s, o, "enabled", "/sys/kernel/mm/transparent_hugepage/enabled");
		put_choice(s, o, "defrag", "/sys/kernel/mm/transparent_hugepage/defrag");
	}
	return o;
}

static json_t *sysctl_info(struct si *s)
{
	json_t *o = json_object();
	size_t i;

	for (i = 0; o && i < TB_ARRAY_SIZE(sysctls); i++)
		put(s, o, strrchr(sysctls[i], '/') + 1, file_int(s, sysctls[i]));
	return o;
}

/* Where tracefs is mounted (from mounts; never mounted here) and what tracers it offers. */
static json_t *tracefs_info(struct si *s)
{
	char *mounts = si_read(s, "/proc/mounts"), *line, *save = NULL, mnt[PATH_MAX] = "";
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
	put_str(s, o, "mount", mnt[0] ? mnt : mounts ? "not mounted" : UNKNOWN);
	snprintf(rel, sizeof(rel), "%s/available_tracers", mnt);
	tracers = mnt[0] ? si_line(s, rel) : NULL;
	put(s, o, "available_tracers", tracers ? words(tracers) : json_string(UNKNOWN));
	free(tracers);
	free(mounts);
	return o;
}

static json_t *meminfo_total(struct si *s)
{
	char *buf = si_read(s, "/proc/meminfo"), *p;
	long long kb;
	json_t *j = json_null();

	if (buf && (p = strstr(buf, "MemTotal:")) && sscanf(p, "MemTotal: %lld", &kb) == 1)
		j = json_integer(kb);
	free(buf);
	return j;
}

static json_t *load_info(struct si *s)
{
	char *la = si_line(s, "/proc/loadavg"), *up = si_line(s, "/proc/uptime");
	double l1, l5, l15, u;
	json_t *o = json_object();

	if (o) {
		put(s, o, "loadavg",
		    la && sscanf(la, "%lf %lf %lf", &l1, &l5, &l15) == 3
			    ? json_pack("[f, f, f]", l1, l5, l15)
			    : json_null());
		put(s, o, "uptime_s",
		    up && sscanf(up, "%lf", &u) == 1 ? json_real(u) : json_null());
	}
	free(la);
	free(up);
	return o;
}

static json_t *libraries_info(void)
{
	unsigned api = hwloc_get_api_version();
	char libbpf[32], hwloc_api[32];

	snprintf(libbpf, sizeof(libbpf), "%u.%u", libbpf_major_version(), libbpf_minor_version());
	snprintf(hwloc_api, sizeof(hwloc_api), "%u.%u.%u", api >> 16, (api >> 8) & 0xff,
		 api & 0xff);
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "libbpf",
			 libbpf, "libtracefs", TB_LIBTRACEFS_VERSION, "libtraceevent",
			 TB_LIBTRACEEVENT_VERSION, "libperf", TB_LIBPERF_VERSION, "gsl",
			 gsl_version, "jansson", jansson_version_str(), "hwloc", TB_HWLOC_VERSION,
			 "hwloc_api", hwloc_api, "inih", TB_INIH_VERSION, "zlib", zlibVersion(),
			 "glibc", gnu_get_libc_version());
}

/* ---- fingerprint and the whole object ----------------------------------------------------- */

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
	char *dump = NULL, hex[24];
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
	dump = json_dumps(sel, JSON_SORT_KEYS | JSON_COMPACT);
	if (!dump)
		goto out;
	snprintf(hex, sizeof(hex), "%016llx",
		 (unsigned long long)fnv1a64(FNV_OFFSET, dump, strlen(dump)));
	if (json_object_set_new(info, "fingerprint", json_string(hex)) ||
	    json_object_set(info, "fingerprint_fields", fields) ||
	    json_object_set_new(info, "fingerprint_algorithm",
				json_string("fnv1a-64 of the compact sorted JSON of "
					    "{field: value} over fingerprint_fields")))
		goto out;
	ret = 0;
out:
	free(dump);
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
		put_str(&s, info, "root", s.root);
	}
	tb_utc_iso(now, sizeof(now), time(NULL));
	put_str(&s, info, "schema", TB_SYSINFO_SCHEMA);
	put(&s, info, "tool", json_pack("{s:s, s:s}", "name", TB_NAME, "version", TB_VERSION));
	put_str(&s, info, "captured", now);
	host = si_line(&s, "/proc/sys/kernel/hostname");
	put_str(&s, info, "hostname", host);
	free(host);
	put(&s, info, "kernel", kernel_info(&s));
	put(&s, info, "cpu", cpu_info(&s, &hv_flag));
	put(&s, info, "topology", topology_info(&s));
	put(&s, info, "smt", smt_info(&s));
	put(&s, info, "cpufreq", cpufreq_info(&s));
	put(&s, info, "cpuidle", cpuidle_info(&s));
	put(&s, info, "clocksource", clocksource_info(&s));
	put(&s, info, "mitigations", mitigations_info(&s));
	tools = tools_info(&s, &dv);
	put(&s, info, "virtualization", virt_info(&s, hv_flag, &dv));
	put(&s, info, "thp", thp_info(&s));
	put(&s, info, "sysctl", sysctl_info(&s));
	put(&s, info, "tracefs", tracefs_info(&s));
	put(&s, info, "memory", json_pack("{s:o}", "total_kb", meminfo_total(&s)));
	put(&s, info, "load", load_info(&s));
	put(&s, info, "libraries", libraries_info());
	put(&s, info, "tools", tools);
	if (s.nomem || tb_sysinfo_fingerprint(info)) {
		json_decref(info);
		return NULL;
	}
	return info;
}
