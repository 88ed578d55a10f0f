// SPDX-License-Identifier: GPL-2.0
/*
 * The environment fingerprint's tool chain (sysinfo-int.h): the versions of the external tools
 * (`tool --version`, all at once under one deadline), systemd-detect-virt's answers, and the
 * versions of the libraries tracebench links.
 */
#include <bpf/libbpf.h>
#include <errno.h>
#include <gnu/libc-version.h>
#include <gsl/gsl_version.h>
#include <hwloc.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "core/proc.h"
#include "core/tb.h"
#include "host/sysinfo.h"
#include "host/sysinfo-int.h"

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

/* Tools whose version we report: argv[0], and the key in "tools". */
static const char *const tool_names[] = {
	"perf", "bpftrace", "trace-cmd", "lttng", "bpftool", "gnuplot",
};

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
		l = tb_si_trim(l);
		if (*l) {
			snprintf(line, len, "%s", l);
			break;
		}
	}
	return ret;
}

/* v into the fixed field f of n bytes, cut to fit (a tool's one-line answer; snprintf would
 * warn of the cut where the compiler cannot see the field's size is enough, as at -O0). */
static void put_field(char *f, size_t n, const char *v)
{
	size_t len = strnlen(v, n - 1);

	memcpy(f, v, len);
	f[len] = '\0';
}

json_t *tb_si_tools(struct si *s, struct detect_virt *dv)
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
			tb_si_put_str(s, o, tool_names[i], NOT_COLLECTED);
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
			put_field(dv->vm, sizeof(dv->vm), v);
		else if (i == NT + 1)
			put_field(dv->container, sizeof(dv->container), v);
		else
			tb_si_put_str(s, o, tool_names[i], v);
	}
	return o;
}

json_t *tb_si_libraries(void)
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
