// SPDX-License-Identifier: GPL-2.0
/*
 * The environment fingerprint's CPU sections (sysinfo-int.h): /proc/cpuinfo, the CPU lists,
 * SMT, the topology from hwloc, cpufreq, cpuidle, the clocksource and the vulnerabilities'
 * mitigations.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <hwloc.h>
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/tb.h"
#include "host/sysinfo.h"
#include "host/sysinfo-int.h"

/* ---- cpu: /proc/cpuinfo and the cpu lists ------------------------------------------------ */

/* A cpulist file ("0-3,8") as the list text and its CPU count; "unknown"/null when absent. */
static void put_cpulist(struct si *s, json_t *obj, const char *key, const char *count_key,
			const char *rel)
{
	char *v = tb_si_line(s, rel);
	hwloc_bitmap_t set = hwloc_bitmap_alloc();

	tb_si_put_str(s, obj, key, v);
	if (count_key) {
		if (v && set && hwloc_bitmap_list_sscanf(set, v) == 0)
			tb_si_put(s, obj, count_key, json_integer(hwloc_bitmap_weight(set)));
		else
			tb_si_put(s, obj, count_key, json_null());
	}
	hwloc_bitmap_free(set);
	free(v);
}

json_t *tb_si_cpu(struct si *s, int *hv_flag)
{
	const char *model = NULL, *vendor = NULL, *family = NULL, *modelnr = NULL;
	const char *stepping = NULL, *microcode = NULL, *hardware = NULL, *processor = NULL;
	char *buf = tb_si_read(s, "/proc/cpuinfo"), *line, *save = NULL;
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
		key = tb_si_trim(line);
		val = tb_si_trim(colon + 1);
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
	tb_si_put_str(s, c, "model", model ? model : hardware ? hardware : processor);
	tb_si_put_str(s, c, "vendor", vendor);
	tb_si_put_str(s, c, "family", family);
	tb_si_put_str(s, c, "model_number", modelnr);
	tb_si_put_str(s, c, "stepping", stepping);
	tb_si_put_str(s, c, "microcode", microcode);
	tb_si_put(s, c, "cpuinfo_processors", buf ? json_integer(nproc) : json_null());
	free(buf);
	put_cpulist(s, c, "online", "online_count", CPU_DIR "/online");
	put_cpulist(s, c, "present", NULL, CPU_DIR "/present");
	put_cpulist(s, c, "possible", NULL, CPU_DIR "/possible");
	put_cpulist(s, c, "offline", NULL, CPU_DIR "/offline");
	put_cpulist(s, c, "isolated", "isolated_count", CPU_DIR "/isolated");
	put_cpulist(s, c, "nohz_full", NULL, CPU_DIR "/nohz_full");
	return c;
}

json_t *tb_si_smt(struct si *s)
{
	json_t *o = json_object(), *active;
	char *control;
	const char *state = UNKNOWN;

	if (!o)
		return NULL;
	control = tb_si_line(s, CPU_DIR "/smt/control");
	active = tb_si_file_int(s, CPU_DIR "/smt/active");
	if (json_is_integer(active))
		state = json_integer_value(active) ? "on" : "off";
	else if (control && !strcmp(control, "on"))
		state = "on";
	else if (control &&
		 (!strcmp(control, "off") || !strcmp(control, "forceoff") ||
		  !strcmp(control, "notsupported") || !strcmp(control, "notimplemented")))
		state = "off";
	tb_si_put_str(s, o, "control", control);
	tb_si_put(s, o, "active", active);
	tb_si_put_str(s, o, "state", state);
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
json_t *tb_si_topology(struct si *s)
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
		if (access(tb_si_path(s, CPU_DIR "/cpu0/topology", path, sizeof(path)), F_OK))
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

	n = scandir(tb_si_path(s, CPU_DIR, path, sizeof(path)), &ents, cpu_dir_filter, NULL);
	for (i = 0; i < n; i++) {
		char *v;

		snprintf(rel, sizeof(rel), CPU_DIR "/%s/%s", ents[i]->d_name, file);
		v = tb_si_line(s, rel);
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
			tb_si_put_str(s, map, d[j].val, list);
		hwloc_bitmap_free(d[j].cpus);
	}
	tb_si_put_str(s, obj, key, nd == 1 ? d[0].val : nd ? "mixed" : UNKNOWN);
	for (j = 0; j < nd; j++)
		free(d[j].val);
	if (map_key)
		tb_si_put(s, obj, map_key, nd && map ? json_incref(map) : json_string(UNKNOWN));
	json_decref(map);
}

json_t *tb_si_cpufreq(struct si *s)
{
	json_t *o = json_object(), *boost, *no_turbo;
	const char *turbo = UNKNOWN;

	if (!o)
		return NULL;
	put_per_cpu(s, o, "driver", NULL, "cpufreq/scaling_driver");
	put_per_cpu(s, o, "governor", "governors", "cpufreq/scaling_governor");
	put_per_cpu(s, o, "max_freq_khz", NULL, "cpufreq/scaling_max_freq");
	boost = tb_si_file_int(s, CPU_DIR "/cpufreq/boost");
	no_turbo = tb_si_file_int(s, CPU_DIR "/intel_pstate/no_turbo");
	if (json_is_integer(boost))
		turbo = json_integer_value(boost) ? "on" : "off";
	else if (json_is_integer(no_turbo))
		turbo = json_integer_value(no_turbo) ? "off" : "on";
	tb_si_put_str(s, o, "turbo", turbo);
	tb_si_put(s, o, "boost", boost);
	tb_si_put(s, o, "intel_pstate_no_turbo", no_turbo);
	tb_si_put_file_str(s, o, "intel_pstate_status", CPU_DIR "/intel_pstate/status");
	tb_si_put_file_str(s, o, "amd_pstate_status", CPU_DIR "/amd_pstate/status");
	return o;
}

json_t *tb_si_cpuidle(struct si *s)
{
	json_t *o = json_object();
	char *gov;

	if (!o)
		return NULL;
	tb_si_put_file_str(s, o, "driver", CPU_DIR "/cpuidle/current_driver");
	gov = tb_si_line(s, CPU_DIR "/cpuidle/current_governor");
	if (!gov)
		gov = tb_si_line(s, CPU_DIR "/cpuidle/current_governor_ro");
	tb_si_put_str(s, o, "governor", gov);
	free(gov);
	return o;
}

json_t *tb_si_clocksource(struct si *s)
{
	json_t *o = json_object();
	char *avail;

	if (!o)
		return NULL;
	tb_si_put_file_str(s, o, "current",
			   "/sys/devices/system/clocksource/clocksource0/current_clocksource");
	avail = tb_si_line(s, "/sys/devices/system/clocksource/clocksource0/available_clocksource");
	tb_si_put(s, o, "available", avail ? tb_si_words(avail) : json_string(UNKNOWN));
	free(avail);
	return o;
}

/* Every file of the vulnerabilities directory; "unknown" (a string) when it does not exist. */
json_t *tb_si_mitigations(struct si *s)
{
	char path[PATH_MAX], rel[PATH_MAX];
	struct dirent **ents = NULL;
	json_t *o;
	int i, n;

	n = scandir(tb_si_path(s, CPU_DIR "/vulnerabilities", path, sizeof(path)), &ents, NULL,
		    alphasort);
	if (n < 0)
		return json_string(UNKNOWN);
	o = json_object();
	for (i = 0; i < n; i++) {
		if (o && ents[i]->d_name[0] != '.') {
			snprintf(rel, sizeof(rel), CPU_DIR "/vulnerabilities/%s", ents[i]->d_name);
			tb_si_put_file_str(s, o, ents[i]->d_name, rel);
		}
		free(ents[i]);
	}
	free(ents);
	return o;
}
