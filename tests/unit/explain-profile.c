// SPDX-License-Identifier: GPL-2.0
/*
 * The explain profiler and its symbols: kallsyms parsing on fixture files (hidden addresses,
 * modules, [bpf] entries, malformed lines), mappings, ELF symbols of this test binary through
 * libdw, BPF program names from bpf_prog_info against the kernel's own, and (as root) a real
 * profile of a getpid loop, a process that exits and execs, and the refusal of kernel samples
 * to an unprivileged process.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/outdir.h"
#include "core/tb.h"
#include "explain/fold.h"
#include "explain/profile.h"
#include "explain/symbols.h"
#include "host/perf.h"
#include "tracers/tracer.h"
#include "tb_test.h"

static int load_fixture(struct tb_ksyms *k, const char *name, bool bpf_only)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/explain/%s", tb_test_data_dir(), name);
	return tb_ksyms_load(k, path, bpf_only);
}

static const char *kname(const struct tb_ksyms *k, uint64_t addr, uint64_t *off)
{
	const struct tb_ksym *s = tb_ksyms_find(k, addr, off);

	return s ? s->name : NULL;
}

static void test_kallsyms(void)
{
	struct tb_ksyms k;
	uint64_t off = 0;
	char frame[128];

	tb_ksyms_init(&k);
	CU_ASSERT_EQUAL_FATAL(load_fixture(&k, "kallsyms", false), 0);
	CU_ASSERT_FALSE(k.hidden);
	CU_ASSERT_EQUAL(k.nbpf, 2);
	CU_ASSERT_EQUAL(k.text_end, 0xffffffff81004000ull);
	CU_ASSERT_STRING_EQUAL(kname(&k, 0xffffffff81001100ull, &off), "do_syscall_64");
	CU_ASSERT_EQUAL(off, 0);
	CU_ASSERT_STRING_EQUAL(kname(&k, 0xffffffff810017ffull, &off), "do_syscall_64");
	CU_ASSERT_EQUAL(off, 0x6ff);
	/* data symbols are not functions: the text symbol before them stays */
	CU_ASSERT_STRING_EQUAL(kname(&k, 0xffffffff81001900ull, &off), "do_syscall_64");
	CU_ASSERT_STRING_EQUAL(kname(&k, 0xffffffff81002010ull, &off), "weak_fn");
	/* past the kernel's text: nothing, not the last symbol */
	CU_ASSERT_PTR_NULL(kname(&k, 0xffffffff81004100ull, &off));
	CU_ASSERT_PTR_NULL(kname(&k, 0xffffffff80000000ull, &off));
	CU_ASSERT_STRING_EQUAL(kname(&k, 0xffffffffc0002040ull, &off), "ext4_file_write_iter");
	CU_ASSERT_STRING_EQUAL(kname(&k, 0xffffffffc0025d60ull, &off),
			       "bpf_prog_17e3f17ef1575a3a_tb_rb_tp_btf");
	/* farther than TB_KSYM_MAX_GAP from the last symbol */
	CU_ASSERT_PTR_NULL(kname(&k, 0xffffffffc0026000ull + TB_KSYM_MAX_GAP, &off));
	tb_ksyms_frame(&k, 0xffffffff81003004ull, frame, sizeof(frame));
	CU_ASSERT_STRING_EQUAL(frame, "syscall_trace_enter_[k]");
	tb_ksyms_frame(&k, 0xffffffff81004100ull, frame, sizeof(frame));
	CU_ASSERT_STRING_EQUAL(frame, "0xffffffff81004100_[k]");
	/* a refresh of the [bpf] entries replaces them and keeps the rest */
	CU_ASSERT_EQUAL(
		tb_ksyms_parse(&k, "ffffffffc0030000 t bpf_prog_aa_new\t[bpf]\n", 41, "x", true),
		0);
	CU_ASSERT_EQUAL(k.nbpf, 1);
	CU_ASSERT_STRING_EQUAL(kname(&k, 0xffffffffc0030008ull, &off), "bpf_prog_aa_new");
	CU_ASSERT_STRING_NOT_EQUAL(kname(&k, 0xffffffffc0025d60ull, &off),
				   "bpf_prog_17e3f17ef1575a3a_tb_rb_tp_btf");
	CU_ASSERT_STRING_EQUAL(kname(&k, 0xffffffff81001100ull, &off), "do_syscall_64");
	tb_ksyms_free(&k);
	/* kptr_restrict: every address 0 */
	CU_ASSERT_EQUAL_FATAL(load_fixture(&k, "kallsyms-hidden", false), 0);
	CU_ASSERT_TRUE(k.hidden);
	CU_ASSERT_EQUAL(k.n, 0);
	tb_ksyms_frame(&k, 0xffffffff81001100ull, frame, sizeof(frame));
	CU_ASSERT_STRING_EQUAL(frame, "0xffffffff81001100_[k]");
	tb_ksyms_free(&k);
	CU_ASSERT_EQUAL(load_fixture(&k, "kallsyms-bad", false), -EINVAL);
	tb_ksyms_free(&k);
	CU_ASSERT_EQUAL(load_fixture(&k, "no-such-file", false), -ENOENT);
	tb_ksyms_free(&k);
}

static void test_maps(void)
{
	const char *text = "55d0c0000000-55d0c0010000 r--p 00000000 08:01 1234 /usr/bin/tb\n"
			   "55d0c0010000-55d0c0050000 r-xp 00010000 08:01 1234 /usr/bin/tb\n"
			   "7f0000000000-7f0000100000 r-xp 00028000 08:01 99 /usr/lib/libc.so.6\n"
			   "7f0000200000-7f0000201000 rwxp 00000000 00:00 0\n"
			   "7ffd00000000-7ffd00002000 r-xp 00000000 00:00 0 [vdso]\n";
	const struct tb_map *m;
	struct tb_maps maps;

	tb_maps_init(&maps);
	CU_ASSERT_EQUAL_FATAL(tb_maps_parse(&maps, text, strlen(text)), 0);
	CU_ASSERT_EQUAL(maps.n, 3); /* executable and named only */
	m = tb_maps_find(&maps, 0x55d0c0010100ull);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	CU_ASSERT_STRING_EQUAL(m->path, "/usr/bin/tb");
	CU_ASSERT_EQUAL(m->pgoff, 0x10000);
	CU_ASSERT_PTR_NULL(tb_maps_find(&maps, 0x55d0c0000100ull)); /* not executable */
	CU_ASSERT_PTR_NULL(tb_maps_find(&maps, 0x7f0000200100ull)); /* anonymous */
	CU_ASSERT_STRING_EQUAL(tb_maps_find(&maps, 0x7ffd00000010ull)->path, "[vdso]");
	/* a new mapping replaces what it overlaps */
	CU_ASSERT_EQUAL(tb_maps_add(&maps, 0x7f0000080000ull, 0x100000, 0, "/opt/new.so"), 0);
	CU_ASSERT_EQUAL(maps.n, 3);
	CU_ASSERT_STRING_EQUAL(tb_maps_find(&maps, 0x7f0000000100ull + 0x80000)->path,
			       "/opt/new.so");
	CU_ASSERT_PTR_NULL(tb_maps_find(&maps, 0x7f0000000100ull));
	CU_ASSERT_EQUAL(tb_maps_parse(&maps, "junk\n", 5), -EINVAL);
	tb_maps_free(&maps);
}

/* A function of this binary to look up (not static, not inlined). */
__attribute__((noinline)) int tb_test_profile_marker(int x)
{
	return x * 3 + 1;
}

static void test_usyms(void)
{
	struct tb_usyms *u = tb_usyms_new();
	struct tb_maps maps;
	char *text = NULL, frame[256];
	size_t len = 0;
	uint64_t addr = (uint64_t)(uintptr_t)&tb_test_profile_marker;

	CU_ASSERT_PTR_NOT_NULL_FATAL(u);
	tb_maps_init(&maps);
	CU_ASSERT_EQUAL_FATAL(tb_read_file("/proc/self/maps", &text, &len), 0);
	CU_ASSERT_EQUAL_FATAL(tb_maps_parse(&maps, text, len), 0);
	free(text);
	tb_usyms_frame(u, &maps, addr + 4, frame, sizeof(frame));
	CU_ASSERT_STRING_EQUAL(frame, "tb_test_profile_marker");
	tb_usyms_frame(u, &maps, (uint64_t)(uintptr_t)&tb_fold_add, frame, sizeof(frame));
	CU_ASSERT_STRING_EQUAL(frame, "tb_fold_add");
	/* libc: named through its dynamic symbols */
	tb_usyms_frame(u, &maps, (uint64_t)(uintptr_t)&getpid, frame, sizeof(frame));
	CU_ASSERT_PTR_NOT_NULL(strstr(frame, "getpid"));
	/* unknowns stay as hex, never dropped */
	tb_usyms_frame(u, &maps, 0x10, frame, sizeof(frame));
	CU_ASSERT_STRING_EQUAL(frame, "0x10");
	tb_usyms_frame(u, NULL, 0xabc, frame, sizeof(frame));
	CU_ASSERT_STRING_EQUAL(frame, "0xabc");
	CU_ASSERT_EQUAL(tb_usyms_lookup(u, "/nonexistent/elf", 0, frame, sizeof(frame)), -ENOENT);
	CU_ASSERT_EQUAL(tb_usyms_lookup(u, "/proc/self/status", 0, frame, sizeof(frame)),
			-ENOENT); /* not ELF */
	tb_maps_free(&maps);
	tb_usyms_free(u);
}

/* Load the bundled syscall-count program (JIT-compiled, not attached). */
static int load_bpf(struct tb_tracer *t, void **cfg)
{
	const struct tb_tracer_ops *ops = tb_tracer_find("bpf");
	char why[256];

	if (!ops || ops->supported(why, sizeof(why)))
		return -ENOTSUP;
	*cfg = calloc(1, ops->cfg_size);
	if (!*cfg || tb_opts_defaults(ops->opts, *cfg))
		return -ENOMEM;
	*t = (struct tb_tracer){.ops = ops,
				.name = "explain-test",
				.cfg = *cfg,
				.target = getpid(),
				.dir = tb_test_tmpdir_open(),
				.consumer_cpu = -1};
	t->outdir = t->dir ? t->dir->path : NULL;
	return ops->setup(t);
}

static void test_bpf_names(void)
{
	struct tb_ksyms kall, info;
	struct tb_tracer t;
	void *cfg = NULL;
	size_t same = 0;
	int ret;

	if (!tb_test_is_root())
		TB_SKIP("needs root (BPF)");
	ret = load_bpf(&t, &cfg);
	if (ret == -ENOTSUP) {
		free(cfg);
		TB_SKIP("BPF is not supported here");
	}
	CU_ASSERT_EQUAL_FATAL(ret, 0);
	tb_ksyms_init(&kall);
	tb_ksyms_init(&info);
	CU_ASSERT_EQUAL(tb_ksyms_load(&kall, NULL, true), 0);
	ret = tb_ksyms_add_bpf_info(&info);
	CU_ASSERT_TRUE(ret > 0);
	/* bpf_prog_info names and sizes agree with the kernel's [bpf] entries (bpf_jit_kallsyms) */
	for (size_t i = 0; i < info.n; i++) {
		uint64_t off;
		const struct tb_ksym *s = tb_ksyms_find(&kall, info.v[i].addr, &off);

		if (!s || strstr(info.v[i].name, "_F")) /* subprograms: perf's own convention */
			continue;
		if (strstr(s->name, "tb_sc_") || strstr(info.v[i].name, "tb_sc_")) {
			CU_ASSERT_STRING_EQUAL(s->name, info.v[i].name);
			CU_ASSERT_EQUAL(off, 0);
			CU_ASSERT_TRUE(info.v[i].size > 0);
			same++;
		}
	}
	if (kall.nbpf)
		CU_ASSERT_TRUE(same > 0);
	t.ops->teardown(&t);
	tb_opts_free(t.ops->opts, cfg);
	free(cfg);
	tb_ksyms_free(&kall);
	tb_ksyms_free(&info);
}

/* A child that waits for a byte, then does its work; returns its pid. */
static pid_t spawn(void (*work)(void), int *go)
{
	int fds[2];
	pid_t pid;
	char c;

	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(fds[1]);
		if (read(fds[0], &c, 1) != 1)
			_exit(2);
		work();
		_exit(0);
	}
	close(fds[0]);
	*go = fds[1];
	return pid;
}

static void getpids(void)
{
	for (int i = 0; i < 2000000; i++)
		syscall(SYS_getpid);
}

/* A fork that execs a static helper (its own image: names from MMAP2 records). */
static void fork_exec(void)
{
	const char *helpers = getenv("TB_HELPERS");
	char path[512];

	snprintf(path, sizeof(path), "%s/tb-exit", helpers ? helpers : "build/helpers");
	for (int i = 0; i < 200; i++) {
		pid_t p = fork();

		if (p == 0) {
			execl(path, path, (char *)NULL);
			_exit(127);
		}
		waitpid(p, NULL, 0);
	}
	getpids();
}

/* Profile work in a child; the folded stacks into f. */
static int profile_child(void (*work)(void), struct tb_fold *f, struct tb_profile_stats *st)
{
	struct tb_profile_opts o = {.period_ns = 100000, .reader_cpu = -1};
	struct tb_ksyms k;
	struct tb_usyms *u = tb_usyms_new();
	struct tb_profile *p = NULL;
	char why[256] = "";
	int go, ret;

	o.pid = spawn(work, &go);
	if (o.pid < 0 || !u)
		return -ENOMEM;
	tb_ksyms_init(&k);
	tb_ksyms_load(&k, NULL, false);
	ret = tb_profile_open(&o, &p, why, sizeof(why));
	if (ret)
		printf("\n    profile_open: %s\n", why);
	if (!ret)
		ret = tb_profile_start(p);
	if (write(go, "g", 1) != 1)
		ret = ret ? ret : -EPIPE;
	close(go);
	waitpid(o.pid, NULL, 0);
	if (!ret) {
		tb_profile_stop(p);
		ret = tb_profile_fold(p, &k, u, f, st);
	}
	tb_profile_close(p);
	tb_ksyms_free(&k);
	tb_usyms_free(u);
	return ret;
}

static bool any_stack(const struct tb_fold *f, const char *a, const char *b)
{
	for (size_t i = 0; i < f->n; i++)
		if (strstr(f->v[i].stack, a) && (!b || strstr(f->v[i].stack, b)))
			return true;
	return false;
}

static void test_profile_live(void)
{
	struct tb_profile_stats st = {0};
	struct tb_fold f;
	double sum = 0;

	if (!tb_test_is_root())
		TB_SKIP("needs root (kernel call chains of another process)");
	tb_fold_init(&f);
	CU_ASSERT_EQUAL_FATAL(profile_child(getpids, &f, &st), 0);
	CU_ASSERT_FALSE(st.user_only);
	CU_ASSERT_FALSE(st.per_task); /* root: CPU-wide events on the child's CPUs */
	CU_ASSERT_TRUE(st.samples > 0);
	CU_ASSERT_TRUE(st.kernel_samples > 0);
	CU_ASSERT_EQUAL(st.lost, 0);
	for (size_t i = 0; i < f.n; i++)
		sum += f.v[i].count;
	CU_ASSERT_DOUBLE_EQUAL(sum, (double)st.samples, 0.5); /* every sample folded */
	/*
	 * The root frame is the process (a fork of this one), then user, then kernel frames. libc's
	 * syscall() keeps no frame pointer, so the walk goes from it to getpids' caller.
	 */
	CU_ASSERT_TRUE(any_stack(&f, ";test_profile_live;", ";syscall;entry_SYSCALL_64"));
	CU_ASSERT_TRUE(any_stack(&f, ";test_profile_live;", "__x64_sys_getpid_[k]"));
	CU_ASSERT_TRUE(any_stack(&f, "run-tests;", NULL));
	tb_fold_free(&f);
	/* no such process */
	{
		struct tb_profile_opts o = {
			.pid = 0x3fffffff, .period_ns = 100000, .reader_cpu = -1};
		struct tb_profile *p = NULL;
		char why[256] = "";

		CU_ASSERT_EQUAL(tb_profile_open(&o, &p, why, sizeof(why)), -ESRCH);
		CU_ASSERT_PTR_NOT_NULL(strstr(why, "no such process"));
		CU_ASSERT_PTR_NULL(p);
	}
}

static void test_profile_exec(void)
{
	struct tb_profile_stats st = {0};
	struct tb_fold f;

	if (!tb_test_is_root())
		TB_SKIP("needs root (kernel call chains of another process)");
	tb_fold_init(&f);
	CU_ASSERT_EQUAL_FATAL(profile_child(fork_exec, &f, &st), 0);
	/* the exec'd children are their own processes, named by their COMM records */
	CU_ASSERT_TRUE(any_stack(&f, "tb-exit;", NULL));
	CU_ASSERT_TRUE(any_stack(&f, ";test_profile_exec;", "__x64_sys_getpid_[k]"));
	tb_fold_free(&f);
}

static void test_profile_unprivileged(void)
{
	int64_t paranoid = tb_perf_paranoid();
	struct tb_profile_stats st = {0};
	int status = 0, pfd[2];
	char why[256] = "", fell[6] = "?????";
	struct tb_fold f;
	pid_t pid;

	if (!tb_test_is_root())
		TB_SKIP("needs root (to drop to an unprivileged user)");
	if (pipe(pfd))
		return;
	pid = fork();
	if (pid == 0) {
		int ret;

		close(pfd[0]);
		/*
		 * Dumpable again: a uid change leaves the process (and its forks) undumpable, and
		 * perf_event_open on an undumpable task needs CAP_SYS_PTRACE, which a user who ran
		 * tracebench as themselves would not meet.
		 */
		if (setgid(65534) || setuid(65534) || prctl(PR_SET_DUMPABLE, 1))
			_exit(3);
		ret = tb_profile_probe(why, sizeof(why));
		if (write(pfd[1], why, sizeof(why)) < 0)
			_exit(4);
		/* its own child: the steps down from CPU-wide events, each said */
		tb_fold_init(&f);
		if (profile_child(getpids, &f, &st) == 0) {
			fell[0] = st.per_task ? 'p' : '-';
			fell[1] = st.user_only ? 'u' : '-';
			fell[2] = st.samples > 0 ? 's' : '-';
			fell[3] = any_stack(&f, ";test_profile_unprivileged;", NULL) ? 'f' : '-';
			fell[4] = strstr(st.per_task_why, "perf_event_paranoid") ? 'w' : '-';
		}
		if (write(pfd[1], fell, sizeof(fell)) < 0)
			_exit(4);
		_exit(ret == 0 ? 0 : ret == -EACCES ? 1 : 2);
	}
	close(pfd[1]);
	if (read(pfd[0], why, sizeof(why)) < 0)
		why[0] = '\0';
	if (read(pfd[0], fell, sizeof(fell)) < 0)
		fell[0] = '\0';
	close(pfd[0]);
	waitpid(pid, &status, 0);
	CU_ASSERT_TRUE(WIFEXITED(status));
	if (paranoid >= 2) {
		/* the kernel refuses kernel samples; the probe says why, naming the sysctl */
		CU_ASSERT_EQUAL(WEXITSTATUS(status), 1);
		CU_ASSERT_PTR_NOT_NULL(strstr(why, "perf_event_paranoid"));
		/* per-task and user space only, with the reason, and still a profile */
		CU_ASSERT_STRING_EQUAL(fell, "pusfw");
	} else {
		CU_ASSERT_EQUAL(WEXITSTATUS(status), 0);
		if (paranoid == 1)
			CU_ASSERT_EQUAL(fell[0], 'p');
	}
}

static CU_TestInfo profile_tests[] = {
	{"kallsyms fixtures: lookup, hidden, bpf, bad", test_kallsyms},
	{"mappings", test_maps},
	{"ELF symbols of this binary (libdw)", test_usyms},
	{"BPF program names from bpf_prog_info", test_bpf_names},
	{"a getpid loop profiled", test_profile_live},
	{"fork and exec profiled", test_profile_exec},
	{"unprivileged: kernel samples refused, per-task user-only profile",
	 test_profile_unprivileged},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("explain-profile", NULL, NULL, profile_tests);
