// SPDX-License-Identifier: GPL-2.0
/* Well-known external tracers: which one, can it work here, what its output says (command-tools.h). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/placeholders.h"
#include "core/proc.h"
#include "core/tb.h"
#include "tracers/command-tools.h"

/* At most this much of a script is read to tell what it is and what it probes. */
#define SCRIPT_MAX (256 * 1024)

const char *tb_tool_name(int tool)
{
	static const char *const names[] = {"",		  "bpftrace", "perf record",
					    "perf trace", "perf",     "bcc"};

	return tool >= 0 && tool < (int)TB_ARRAY_SIZE(names) ? names[tool] : "";
}

/* The first SCRIPT_MAX bytes of a file (NUL-terminated; caller frees), or NULL. */
static char *head_of(const char *path)
{
	char *head;

	return tb_read_part(path, 0, SCRIPT_MAX, false, &head) ? NULL : head;
}

/* A Python script that uses bcc. */
static bool imports_bcc(const char *text)
{
	return text && !strncmp(text, "#!", 2) && strstr(text, "python") &&
	       (strstr(text, "\nfrom bcc import") || strstr(text, "\nimport bcc"));
}

/* bpftrace's options that take a value (0.17). */
static bool bpftrace_opt_has_arg(const char *o)
{
	static const char *const with[] = {"-B", "-f", "-o",	    "-e",	  "-I",
					   "-p", "-c", "--include", "--emit-elf", "--emit-llvm"};

	for (size_t i = 0; i < TB_ARRAY_SIZE(with); i++)
		if (!strcmp(o, with[i]))
			return true;
	return false;
}

/* bpftrace [options] FILE|-e PROG [args]: where its program is. */
static void bpftrace_args(const struct tb_strlist *argv, struct tb_tool_info *ti)
{
	for (size_t i = 1; i < argv->n; i++) {
		const char *a = argv->v[i];

		if (!strcmp(a, "--")) {
			if (ti->inline_w < 0 && i + 1 < argv->n)
				ti->file = (int)i + 1;
			return;
		}
		if (a[0] == '-' && a[1]) {
			if (!strcmp(a, "-e") && i + 1 < argv->n)
				ti->inline_w = (int)i + 1;
			if (bpftrace_opt_has_arg(a))
				i++;
			continue;
		}
		if (ti->inline_w < 0)
			ti->file =
				(int)i; /* the program file; the words after it are $1, $2, ... */
		return;
	}
}

void tb_tool_identify(const struct tb_strlist *argv, struct tb_tool_info *ti)
{
	char exe[PATH_MAX], name[PATH_MAX], *text = NULL;
	const char *base;

	*ti = (struct tb_tool_info){.tool = TB_TOOL_OTHER, .file = -1, .inline_w = -1};
	if (!argv->n)
		return;
	snprintf(name, sizeof(name), "%s", argv->v[0]);
	base = basename(name);
	if (!strcmp(base, "bpftrace")) {
		ti->tool = TB_TOOL_BPFTRACE;
		bpftrace_args(argv, ti);
		return;
	}
	if (!strcmp(base, "perf") || !strncmp(base, "perf_", 5)) {
		ti->tool = TB_TOOL_PERF;
		for (size_t i = 1; i < argv->n; i++) {
			if (argv->v[i][0] == '-')
				continue;
			ti->tool = !strcmp(argv->v[i], "record")  ? TB_TOOL_PERF_RECORD
				   : !strcmp(argv->v[i], "trace") ? TB_TOOL_PERF_TRACE
								  : TB_TOOL_PERF;
			break;
		}
		return;
	}
	if (strlen(base) > 6 && !strcmp(base + strlen(base) - 6, "-bpfcc")) {
		ti->tool = TB_TOOL_BCC;
		return;
	}
	if (!strncmp(base, "python", 6) && argv->n > 1) {
		text = head_of(argv->v[1]);
	} else if (!tb_proc_which(argv->v[0], exe, sizeof(exe))) {
		const char *bt;

		text = head_of(exe);
		bt = text && !strncmp(text, "#!", 2) ? strstr(text, "bpftrace") : NULL;
		if (bt && (size_t)(bt - text) < strcspn(text, "\n")) { /* #! ... bpftrace */
			ti->tool = TB_TOOL_BPFTRACE;
			ti->script = true;
		}
	}
	if (imports_bcc(text))
		ti->tool = TB_TOOL_BCC;
	free(text);
}

/* ---- can it work here ------------------------------------------------------------------- */

static bool exists(const char *path)
{
	struct stat st;

	return !stat(path, &st);
}

/* Where bcc looks for the running kernel's headers (its kbuild helper and kheaders). */
static int bcc_supported(char *why, size_t len)
{
	const char *env = getenv("BCC_KERNEL_SOURCE");
	char build[PATH_MAX], source[PATH_MAX], ko[PATH_MAX];
	struct utsname u;

	if (env && *env && exists(env))
		return 0;
	if (uname(&u))
		return 0; /* cannot tell: let it try */
	snprintf(build, sizeof(build), "/lib/modules/%s/build/include", u.release);
	snprintf(source, sizeof(source), "/lib/modules/%s/source/include", u.release);
	snprintf(ko, sizeof(ko), "/lib/modules/%s/kernel/kernel/kheaders.ko", u.release);
	if (exists(build) || exists(source) || exists("/sys/kernel/kheaders.tar.xz") || exists(ko))
		return 0;
	snprintf(
		why, len,
		"a bcc tool compiles its BPF programs when it starts, against the running kernel's headers, and there are none for %s here (no /lib/modules/%s/build, no /sys/kernel/kheaders.tar.xz: CONFIG_IKHEADERS is off); install that kernel's headers, or use a bpftrace or libbpf tool",
		u.release, u.release);
	return -EOPNOTSUPP;
}

/*
 * The first kprobe or kretprobe of a bpftrace program ("kprobe:vfs_read*") into out: a probe
 * is at brace depth 0, outside comments and strings. Returns whether there is one.
 */
static bool kprobe_spec(const char *s, char *out, size_t len)
{
	static const char *const kinds[] = {"kprobe", "kretprobe", "kr", "k"};
	int depth = 0;
	bool bol = true;

	for (; *s; s++) {
		if (bol && *s == '#') { /* a preprocessor line */
			s += strcspn(s, "\n");
			if (!*s)
				break;
			continue;
		}
		bol = *s == '\n';
		if (s[0] == '/' && s[1] == '/') {
			s += strcspn(s, "\n");
			if (!*s)
				break;
			bol = true;
		} else if (s[0] == '/' && s[1] == '*') {
			const char *e = strstr(s + 2, "*/");

			if (!e)
				break;
			s = e + 1;
		} else if (*s == '"') {
			for (s++; *s && *s != '"'; s++)
				if (*s == '\\' && s[1])
					s++;
			if (!*s)
				break;
		} else if (*s == '{') {
			depth++;
		} else if (*s == '}') {
			depth -= depth > 0;
		} else if (!depth && isalpha((unsigned char)*s)) {
			size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyz_");

			for (size_t k = 0; k < TB_ARRAY_SIZE(kinds); k++) {
				if (n == strlen(kinds[k]) && !strncmp(s, kinds[k], n) &&
				    s[n] == ':') {
					snprintf(out, len, "%.*s", (int)strcspn(s, " \t\n,{/"), s);
					return true;
				}
			}
			s += n ? n - 1 : 0;
		}
	}
	return false;
}

/* The bpftrace program of argv (its -e text or its file), or NULL. */
static char *bpftrace_program(const struct tb_strlist *argv, const struct tb_tool_info *ti)
{
	char exe[PATH_MAX];

	if (ti->inline_w >= 0)
		return strdup(argv->v[ti->inline_w]);
	if (ti->file >= 0)
		return head_of(argv->v[ti->file]);
	if (ti->script && !tb_proc_which(argv->v[0], exe, sizeof(exe)))
		return head_of(exe);
	return NULL;
}

int tb_tool_supported(const struct tb_strlist *argv, const struct tb_tool_info *ti, char *why,
		      size_t len)
{
	char spec[128];
	char *prog;
	bool kp;

	if (ti->tool == TB_TOOL_BCC)
		return bcc_supported(why, len);
	if (ti->tool != TB_TOOL_BPFTRACE || exists("/sys/bus/event_source/devices/kprobe"))
		return 0;
	prog = bpftrace_program(argv, ti);
	kp = prog && kprobe_spec(prog, spec, sizeof(spec));
	free(prog);
	if (!kp)
		return 0;
	snprintf(
		why, len,
		"its program uses kprobes (%s) and this kernel has none (no kprobe PMU in /sys/bus/event_source/devices: CONFIG_KPROBE_EVENTS is off); bpftrace would skip those probes and count nothing there",
		spec);
	return -EOPNOTSUPP;
}

/* Whether "needle" is in the line at l (up to its newline). */
static bool in_line(const char *l, const char *needle)
{
	const char *f = strstr(l, needle);

	return f && f < l + strcspn(l, "\n");
}

/*
 * The reason in bpftrace's output: clang's first "error:" line, then bpftrace's last "ERROR:"
 * line ("stdin:1:14-24: ERROR: Unknown function: x"), not its harmless RLIMIT_MEMLOCK one.
 */
static void bpftrace_error(const char *out, char *why, size_t len)
{
	const char *first = NULL, *last = NULL;

	for (const char *l = out; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		if (!first && in_line(l, "error:"))
			first = l;
		if (in_line(l, "ERROR:") && !in_line(l, "RLIMIT_MEMLOCK"))
			last = l;
	}
	if (!first && !last) {
		snprintf(why, len,
			 "bpftrace cannot compile its program here (it printed no reason)");
		return;
	}
	snprintf(why, len, "bpftrace cannot compile its program here: %.*s%s%.*s%s",
		 first ? (int)strcspn(first, "\n") : 0, first ? first : "",
		 first && last ? " (" : "", last ? (int)strcspn(last, "\n") : 0, last ? last : "",
		 first && last ? ")" : "");
}

/*
 * Whether bpftrace compiles the program here: `bpftrace --emit-elf FILE PROGRAM ARGS` parses,
 * checks and generates it, #includes too, without loading or attaching anything (0.1-0.2 s).
 * runqlat.bt's <linux/sched.h> does not compile on a machine whose headers lack the kernel's
 * types. Placeholders are given values of this process. Returns 0 (also when it cannot tell),
 * or -EOPNOTSUPP with the reason in why.
 */
static int bpftrace_compiles(const struct tb_strlist *argv, const struct tb_tool_info *ti,
			     char *why, size_t len)
{
	char dir[] = "/tmp/tb-bpftrace-XXXXXX", elf[64], log[64], pid[24], exe[PATH_MAX],
	     *out = NULL;
	struct tb_placeholder_values vals = {{pid, "0", dir, "0"}};
	struct tb_strlist words = {0};
	char **v = NULL, err[256];
	struct tb_proc p;
	size_t n = 0;
	int ret = 0;

	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	if (!mkdtemp(dir))
		return 0;
	snprintf(elf, sizeof(elf), "%s/prog.elf", dir);
	snprintf(log, sizeof(log), "%s/out", dir);
	if (tb_placeholders_expand(argv, &vals, &words, err, sizeof(err)))
		goto out;
	v = calloc(words.n + 5, sizeof(*v));
	if (!v || (ti->script && tb_proc_which(words.v[0], exe, sizeof(exe))))
		goto out;
	v[n++] = ti->script ? "bpftrace" : words.v[0];
	v[n++] = "--emit-elf";
	v[n++] = elf;
	if (ti->script)
		v[n++] = exe;
	for (size_t i = 1; i < words.n; i++)
		v[n++] = words.v[i];
	if (tb_proc_spawn(&p, v, log, TB_PROC_NULLIN))
		goto out;
	if (tb_proc_wait(&p, 30000000000ull)) {
		tb_proc_release(&p); /* it did not finish: cannot tell */
		goto out;
	}
	if (!WIFEXITED(p.status) || WEXITSTATUS(p.status)) {
		tb_read_part(log, 0, 1 << 16, false, &out);
		bpftrace_error(out, why, len);
		ret = -EOPNOTSUPP;
	}
	tb_proc_release(&p);
out:
	free(out);
	free(v);
	tb_strlist_free(&words);
	tb_rm_rf(dir);
	return ret;
}

int tb_tool_usable(const struct tb_strlist *argv, const struct tb_tool_info *ti, char *why,
		   size_t len)
{
	int ret = tb_tool_supported(argv, ti, why, len);

	if (ret || ti->tool != TB_TOOL_BPFTRACE)
		return ret;
	return bpftrace_compiles(argv, ti, why, len);
}

int tb_tool_resolve(struct tb_strlist *argv, const char *dir, char *err, size_t len)
{
	struct tb_tool_info ti;
	char path[PATH_MAX], *abs;
	const char *f;

	tb_tool_identify(argv, &ti);
	if (ti.tool != TB_TOOL_BPFTRACE || ti.file < 0)
		return 0;
	f = argv->v[ti.file];
	if (f[0] == '/' || !strcmp(f, "-") || !dir)
		return 0;
	snprintf(path, sizeof(path), "%s/%s", dir, f);
	if (!exists(path)) {
		snprintf(
			err, len,
			"bpftrace program file '%s' not found in the scenario's directory (%s); give an absolute path",
			f, dir);
		return -ENOENT;
	}
	abs = realpath(path, NULL);
	if (!abs)
		return -errno == -ENOMEM ? -ENOMEM : 0;
	free(argv->v[ti.file]);
	argv->v[ti.file] = abs;
	return 0;
}

/* ---- what the output says --------------------------------------------------------------- */

/* Append an item to a ", "-separated list held in buf. */
static void list_add(char *buf, size_t len, const char *item, size_t n)
{
	size_t used = strlen(buf);

	if (used + 1 < len)
		snprintf(buf + used, len - used, "%s%.*s", used ? ", " : "", (int)n, item);
}

static void bpftrace_line(const char *l, struct tb_tool_scan *sc)
{
	static const char warn[] = "WARNING: could not attach probe ";
	unsigned long long n;
	const char *e;

	if (!strncmp(l, "Lost ", 5) && sscanf(l, "Lost %llu events", &n) == 1) {
		sc->lost_sum += (int64_t)n;
	} else if (!strncmp(l, warn, sizeof(warn) - 1)) {
		l += sizeof(warn) - 1;
		e = strstr(l, ", skipping");
		list_add(sc->f.not_attached, sizeof(sc->f.not_attached), l,
			 e ? (size_t)(e - l) : strcspn(l, "\n"));
	}
}

static void perf_record_line(const char *l, struct tb_tool_scan *sc)
{
	unsigned long long a, b;
	const char *p;
	double pct;

	if (!strncmp(l, "[ perf record: Captured and wrote ", 34)) {
		p = strrchr(l, '(');
		if (p && sscanf(p, "(%llu samples)", &a) == 1)
			sc->captured = (int64_t)a;
		else if (sc->captured < 0)
			sc->captured = 0; /* it wrote nothing it calls a sample */
	} else if (sscanf(l, "Processed %llu samples and lost %lf%%", &a, &pct) == 2) {
		sc->processed = (int64_t)a;
	} else if (sscanf(l, "Processed %llu events and lost %llu chunks", &a, &b) == 2) {
		sc->chunks = (int64_t)b;
	}
}

static void perf_trace_line(const char *l, struct tb_tool_scan *sc)
{
	unsigned long long n;
	const char *p;

	if (!strncmp(l, "LOST ", 5) && sscanf(l, "LOST %llu events!", &n) == 1) {
		sc->lost_sum += (int64_t)n;
	} else if (strstr(l, "Summary of events:")) {
		sc->summary = true;
	} else if (sc->summary && l[0] == ' ' && (p = strstr(l, "), ")) &&
		   sscanf(p, "), %llu events,", &n) == 1) {
		sc->events_sum += (int64_t)n; /* " comm (pid), N events, P%" */
		sc->any_events = true;
	}
}

/* perf record's figures from its lines (doc/command-tracer.md says how exact each is). */
static void perf_record_figures(const struct tb_tool_scan *sc, struct tb_tool_figures *f)
{
	if (sc->captured < 0)
		return; /* it did not finish writing: it says nothing */
	f->events = sc->captured;
	snprintf(f->events_from, sizeof(f->events_from), "perf record: (N samples)");
	f->lost = 0;
	snprintf(f->lost_from, sizeof(f->lost_from), "perf record: no loss reported");
	if (sc->processed >= 0 && sc->processed >= sc->captured) {
		f->lost = sc->processed - sc->captured;
		snprintf(f->lost_from, sizeof(f->lost_from), "perf record: Processed N samples");
	} else if (sc->chunks > 0) {
		f->lost = sc->chunks;
		f->lost_at_least = true;
		snprintf(f->lost_from, sizeof(f->lost_from), "perf record: lost N chunks");
	}
}

void tb_tool_scan_init(struct tb_tool_scan *s, int tool)
{
	memset(s, 0, sizeof(*s));
	s->tool = tool;
	s->captured = s->processed = s->chunks = -1;
	s->f.events = s->f.lost = -1;
}

void tb_tool_scan_line(struct tb_tool_scan *s, const char *l)
{
	switch (s->tool) {
	case TB_TOOL_BPFTRACE:
		bpftrace_line(l, s);
		break;
	case TB_TOOL_PERF_RECORD:
		perf_record_line(l, s);
		break;
	case TB_TOOL_PERF_TRACE:
		perf_trace_line(l, s);
		break;
	case TB_TOOL_BCC:
		if (!strncmp(l, "Possibly lost ", 14))
			s->lost_sum += strtoll(l + 14, NULL, 10);
		break;
	default:
		break;
	}
}

void tb_tool_scan_end(struct tb_tool_scan *s, struct tb_tool_figures *f)
{
	*f = s->f;
	if (s->tool == TB_TOOL_OTHER || s->tool == TB_TOOL_PERF)
		return;
	if (s->tool == TB_TOOL_PERF_RECORD) {
		perf_record_figures(s, f);
		return;
	}
	/* bpftrace, perf trace and bcc print a line for every loss: none printed is none lost. */
	f->lost = s->lost_sum;
	snprintf(f->lost_from, sizeof(f->lost_from), "%s",
		 s->tool == TB_TOOL_BPFTRACE	 ? "bpftrace: Lost N events"
		 : s->tool == TB_TOOL_PERF_TRACE ? "perf trace: LOST N events!"
						 : "bcc: Possibly lost N samples");
	if (s->tool == TB_TOOL_PERF_TRACE && s->any_events) {
		f->events = s->events_sum;
		snprintf(f->events_from, sizeof(f->events_from), "perf trace -s: N events");
	}
}

void tb_tool_parse_output(int tool, const char *out, struct tb_tool_figures *f)
{
	struct tb_tool_scan s;

	char line[4096];
	size_t n;

	tb_tool_scan_init(&s, tool);
	for (const char *l = out; l && *l; l += n, l += *l == '\n') {
		n = strcspn(l, "\n");
		/* one line at a time, as a stream gives them: nothing may look past its end */
		snprintf(line, sizeof(line), "%.*s", (int)(n < sizeof(line) ? n : sizeof(line) - 1),
			 l);
		tb_tool_scan_line(&s, line);
	}
	tb_tool_scan_end(&s, f);
}
