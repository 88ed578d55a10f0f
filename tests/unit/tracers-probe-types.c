// SPDX-License-Identifier: GPL-2.0
/*
 * Every probe type, live: a forked child runs N ops of a workload (usercall, or getpid for the
 * kernel types) after a go byte, a tracer attached to that child must count exactly its calls
 * (and read the right argument), refused types must say why, and nothing may be left attached
 * or registered afterwards (tracing state, dynamic events, armed record, BPF programs, session
 * daemons). Also: liblttng-ust is loaded only by a usercall process with lttng = true.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/outdir.h"
#include "core/tb.h"
#include "model/proof.h"
#include "tb_test.h"
#include "tracers/ctf-count.h"
#include "tracers/ctf-index.h"
#include "tracers/tracer.h"
#include "workloads/usercall.h"
#include "workloads/workload.h"

#define OPS 20000ull

/* usercall's calls per op in the next spawn (1 but in the test of calls). */
static int calls_per_op = 1;
/* usercall's site in the next spawn (function but in the test of sites). */
static const char *site_kv = "site=function";

struct child {
	pid_t pid;
	int go;	  /* a byte: run the batch; closed: exit */
	int done; /* a byte once the batch ran (the process still lives, as in a sample) */
};

/* Options as "key=value" strings into a fresh config of ops; NULL (a failed assertion) if one
 * does not apply. */
static void *make_cfg(const struct tb_option *opts, size_t size, const char *const *kv)
{
	void *cfg = calloc(1, size ? size : 1);
	char key[64], err[256];
	const char *eq;

	CU_ASSERT_PTR_NOT_NULL_FATAL(cfg);
	CU_ASSERT_EQUAL_FATAL(tb_opts_defaults(opts, cfg), 0);
	for (; kv && *kv; kv++) {
		eq = strchr(*kv, '=');
		snprintf(key, sizeof(key), "%.*s", (int)(eq - *kv), *kv);
		if (tb_opts_set(opts, cfg, key, eq + 1, err, sizeof(err))) {
			printf("\n    %s: %s", *kv, err);
			CU_FAIL("a bad option");
		}
	}
	return cfg;
}

/*
 * A usercall (getpid = false) or getpid workload process: setup, then after the go byte n ops,
 * a done byte, and once go is closed its teardown; it exits 0, or 3 when setup failed.
 */
static int spawn(bool getpid_wl, bool lttng, uint64_t n, struct child *c)
{
	const struct tb_workload_ops *ops = tb_workload_find(getpid_wl ? "getpid" : "usercall");
	char calls[32];
	const char *kv[] = {lttng ? "lttng=true" : "lttng=false", "work=0", calls, site_kv, NULL};
	struct tb_workload w = {.ops = ops, .name = "probe-test", .cpu = -1};
	int fds[2], up[2];
	char go;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ops);
	snprintf(calls, sizeof(calls), "calls=%d", calls_per_op);
	w.cfg = make_cfg(ops->opts, ops->cfg_size, getpid_wl ? NULL : kv);
	w.tmpdir = tb_test_tmpdir();
	/* close-on-exec: a session daemon a tracer starts later must not hold them open */
	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	if (pipe2(up, O_CLOEXEC)) {
		close(fds[0]);
		close(fds[1]);
		return -errno;
	}
	c->pid = fork();
	if (c->pid == 0) {
		close(fds[1]);
		close(up[0]);
		if (ops->setup && ops->setup(&w))
			_exit(3);
		if (read(fds[0], &go, 1) != 1)
			_exit(2);
		ops->run_batch(&w, n);
		if (write(up[1], "d", 1) != 1 || read(fds[0], &go, 1) != 0)
			_exit(2);
		if (ops->teardown)
			ops->teardown(&w);
		_exit(0);
	}
	close(fds[0]);
	close(up[1]);
	tb_opts_free(ops->opts, w.cfg);
	free(w.cfg);
	c->go = fds[1];
	c->done = up[0];
	return c->pid > 0 ? 0 : -errno;
}

/* Wait until the child ran its batch (it lives on until finish); 0 or -1. */
static int batch_done(struct child *c)
{
	char d;

	return read(c->done, &d, 1) == 1 ? 0 : -1;
}

static int finish(struct child *c)
{
	int status = -1;

	close(c->go);
	if (c->pid > 0 && waitpid(c->pid, &status, 0) != c->pid)
		status = -1;
	close(c->done); /* after: its done byte must not meet a closed pipe */
	return status;
}

/* Nothing of ours left: tracing state, armed record, and (freed asynchronously) programs. */
static void assert_clean(const char *who, size_t progs_before)
{
	uint32_t ids[256];
	size_t n = 0;
	int i;

	tb_test_assert_tracing_unchanged(who);
	CU_ASSERT(tb_test_armed_record_empty());
	for (i = 0; i < 150; i++) {
		n = tb_test_bpf_progs(ids, TB_ARRAY_SIZE(ids));
		if (n <= progs_before)
			break;
		tb_sleep_ns(20000000);
	}
	if (n > progs_before)
		printf("\n    %s: %zu BPF programs of ours still loaded", who, n - progs_before);
	CU_ASSERT(n <= progs_before);
}

struct run {
	struct tb_tracer_stats st;
	int status;
	bool skipped;
	char outdir[PATH_MAX]; /* the tracer's directory (a kept trace is below it) */
};

/*
 * One traced window of n ops of the workload under tracer type with options kv. A tracer or
 * configuration unsupported here is skipped, with its reason printed.
 */
static void traced(const char *type, const char *const *kv, bool getpid_wl, bool lttng, uint64_t n,
		   struct run *r)
{
	const struct tb_tracer_ops *ops = tb_tracer_find(type);
	struct tb_tracer t = {.ops = ops, .name = "probe-test", .consumer_cpu = -1};
	char why[512] = "";
	struct child c;
	int ret;

	memset(r, 0, sizeof(*r));
	r->st = (struct tb_tracer_stats){-1, -1, -1, -1, -1, -1, NULL};
	CU_ASSERT_PTR_NOT_NULL_FATAL(ops);
	t.cfg = make_cfg(ops->opts, ops->cfg_size, kv);
	t.dir = tb_test_tmpdir_open();
	t.outdir = t.dir ? t.dir->path : NULL;
	snprintf(r->outdir, sizeof(r->outdir), "%s", t.outdir ? t.outdir : "");
	CU_ASSERT_EQUAL(ops->validate ? ops->validate(t.cfg, why, sizeof(why)) : 0, 0);
	if ((ops->supported && ops->supported(why, sizeof(why))) ||
	    (ops->supported_cfg && ops->supported_cfg(t.cfg, why, sizeof(why)))) {
		printf("\n    %s %s: unsupported here: %s", type, kv && kv[0] ? kv[0] : "", why);
		CU_ASSERT(why[0] != '\0');
		r->skipped = true;
		goto out;
	}
	CU_ASSERT_EQUAL_FATAL(spawn(getpid_wl, lttng, n, &c), 0);
	t.target = c.pid;
	ret = ops->setup(&t);
	CU_ASSERT_EQUAL(ret, 0);
	if (!ret) {
		ret = ops->start(&t);
		CU_ASSERT_EQUAL(ret, 0);
	}
	CU_ASSERT_EQUAL(write(c.go, "g", 1), 1);
	CU_ASSERT_EQUAL(batch_done(&c), 0);
	if (!ret) { /* stopped while the process lives, as the runner does */
		CU_ASSERT_EQUAL(ops->stop(&t), 0);
		CU_ASSERT_EQUAL(ops->collect(&t, &r->st), 0);
	}
	r->status = finish(&c);
	CU_ASSERT(WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0);
	ops->teardown(&t);
	ops->teardown(&t);
out:
	tb_opts_free(ops->opts, t.cfg);
	free(t.cfg);
}

static int64_t extra_int(const struct run *r, const char *key)
{
	json_t *v = r->st.extra ? json_object_get(r->st.extra, key) : NULL;

	return json_is_integer(v) ? (int64_t)json_integer_value(v) : -1;
}

static const char *extra_str(const struct run *r, const char *key)
{
	json_t *v = r->st.extra ? json_object_get(r->st.extra, key) : NULL;

	return json_is_string(v) ? json_string_value(v) : "";
}

/* sum over a < n of a, and of a + (a >> 3): the uprobe's first argument, the return value. */
static int64_t sum_args(uint64_t n)
{
	return (int64_t)(n * (n - 1) / 2);
}

static int64_t sum_returns(uint64_t n)
{
	int64_t s = 0;
	uint64_t a;

	for (a = 0; a < n; a++)
		s += (int64_t)(a + (a >> 3));
	return s;
}

/* BPF uprobe, uretprobe and USDT, both bodies: exactly OPS hits, and the argument read. */
static void test_bpf_user(void)
{
	static const char *const types[] = {"uprobe", "uretprobe", "usdt"};
	static const char *const bodies[] = {"empty", "count"};
	char a[64], b[64];
	uint32_t ids[256];
	size_t i, j, before;
	struct run r;

	TB_NEED_TRACING();
	before = tb_test_bpf_progs(ids, TB_ARRAY_SIZE(ids));
	for (i = 0; i < TB_ARRAY_SIZE(types); i++) {
		for (j = 0; j < TB_ARRAY_SIZE(bodies); j++) {
			const char *kv[] = {a, b, "program=probe", "stats=false", NULL};

			snprintf(a, sizeof(a), "attach=%s", types[i]);
			snprintf(b, sizeof(b), "body=%s", bodies[j]);
			traced("bpf", kv, false, false, OPS, &r);
			if (r.skipped)
				continue;
			printf("\n    bpf %s %s: %lld hits for %llu calls", types[i], bodies[j],
			       (long long)r.st.events, OPS);
			CU_ASSERT_EQUAL(r.st.events, (int64_t)OPS);
			CU_ASSERT_EQUAL(r.st.lost, 0);
			if (j == 1) {
				CU_ASSERT_EQUAL(extra_int(&r, "arg_sum"),
						i == 1 ? sum_returns(OPS) : sum_args(OPS));
			}
			json_decref(r.st.extra);
			assert_clean(types[i], before);
		}
	}
}

/*
 * The probe sites (usercall site =): each function starts with the instruction it is named
 * after, a BPF uprobe (usdt-nop5: USDT) on it counts exactly its calls, and lttng = true is
 * refused beside a site without the tracepoint.
 */
static void test_sites(void)
{
	static const struct {
		const char *site, *attach, *target;
		void *fn;
		unsigned char first[5];
		size_t len;
	} sites[] = {
		{"nop", "uprobe", TB_USERCALL_SITE_NOP, (void *)tb_usercall_site_nop, {0x90}, 1},
		{"push", "uprobe", TB_USERCALL_SITE_PUSH, (void *)tb_usercall_site_push, {0x55}, 1},
		{"ret", "uprobe", TB_USERCALL_SITE_RET, (void *)tb_usercall_site_ret, {0xc3}, 1},
		{"nop5",
		 "uprobe",
		 TB_USERCALL_SITE_NOP5,
		 (void *)tb_usercall_site_nop5,
		 {0x0f, 0x1f, 0x44, 0x00, 0x00},
		 5},
		{"usdt-nop5",
		 "usdt",
		 TB_USERCALL_USDT_PROVIDER ":" TB_USERCALL_USDT5_NAME,
		 (void *)tb_usercall_usdt5,
		 {0x0f, 0x1f, 0x44, 0x00, 0x00},
		 5},
	};
	const struct tb_workload_ops *wl = tb_workload_find("usercall");
	const char *bad[] = {"lttng=true", "site=nop", NULL};
	char a[64], t[128], site[64], err[256] = "";
	uint32_t ids[256];
	size_t i, before;
	struct run r;
	void *cfg;

	cfg = make_cfg(wl->opts, wl->cfg_size, bad);
	CU_ASSERT_NOT_EQUAL(wl->validate(cfg, err, sizeof(err)), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "site = function"));
	tb_opts_free(wl->opts, cfg);
	free(cfg);
#if defined(__x86_64__)
	/* The asm sites start so; the USDT site lies where the compiler put the probe (after a
	 * sanitizer's prologue, say): within the function's first bytes. */
	for (i = 0; i < TB_ARRAY_SIZE(sites) - 1; i++)
		CU_ASSERT_EQUAL(memcmp(sites[i].fn, sites[i].first, sites[i].len), 0);
	CU_ASSERT_PTR_NOT_NULL(memmem(sites[i].fn, 256, sites[i].first, sites[i].len));
#endif
	TB_NEED_TRACING();
	before = tb_test_bpf_progs(ids, TB_ARRAY_SIZE(ids));
	for (i = 0; i < TB_ARRAY_SIZE(sites); i++) {
		const char *kv[] = {a, t, "program=probe", "stats=false", "body=count", NULL};

		snprintf(a, sizeof(a), "attach=%s", sites[i].attach);
		snprintf(t, sizeof(t), "target=%s", sites[i].target);
		snprintf(site, sizeof(site), "site=%s", sites[i].site);
		site_kv = site;
		traced("bpf", kv, false, false, OPS, &r);
		site_kv = "site=function";
		if (r.skipped)
			continue;
		printf("\n    bpf %s on site %s: %lld hits for %llu calls", sites[i].attach,
		       sites[i].site, (long long)r.st.events, OPS);
		CU_ASSERT_EQUAL(r.st.events, (int64_t)OPS);
		CU_ASSERT_EQUAL(r.st.lost, 0);
		json_decref(r.st.extra);
		assert_clean(sites[i].site, before);
	}
}

/*
 * Every kernel attach type on getpid: exact counts where the hook is getpid's own, OPS plus the
 * child's few other syscalls on sys_enter; a refused type says why and is never attached.
 */
static void test_bpf_kernel(void)
{
	static const char *const types[] = {"tracepoint", "raw_tp", "tp_btf",	 "fentry",
					    "fexit",	  "kprobe", "kretprobe", "kprobe_multi"};
	struct tb_tracer_variant v[32];
	const struct tb_tracer_ops *bpf = tb_tracer_find("bpf");
	size_t i, k, nv, before, refused = 0;
	uint32_t ids[256];
	char a[64];
	struct run r;

	TB_NEED_TRACING();
	before = tb_test_bpf_progs(ids, TB_ARRAY_SIZE(ids));
	nv = bpf->variants(v, TB_ARRAY_SIZE(v));
	CU_ASSERT(nv >= TB_ARRAY_SIZE(types) + 3);
	for (i = 0; i < TB_ARRAY_SIZE(types); i++) {
		const char *kv[] = {a, "program=probe", "stats=false", "body=count", NULL};
		bool raw = !strcmp(types[i], "raw_tp") || !strcmp(types[i], "tp_btf");

		snprintf(a, sizeof(a), "attach=%s", types[i]);
		traced("bpf", kv, true, false, OPS, &r);
		/* list says the same as the run */
		for (k = 0; k < nv; k++) {
			const char *eq = strrchr(v[k].name, '=');

			if (eq && !strcmp(eq + 2, types[i]))
				CU_ASSERT_EQUAL(v[k].err != 0, r.skipped);
		}
		if (r.skipped) {
			refused++;
			continue;
		}
		printf("\n    bpf %s: %lld hits for %llu getpid", types[i], (long long)r.st.events,
		       OPS);
		if (raw) {
			CU_ASSERT(r.st.events >= (int64_t)OPS && r.st.events <= (int64_t)OPS + 8);
		} else {
			CU_ASSERT_EQUAL(r.st.events, (int64_t)OPS);
		}
		json_decref(r.st.extra);
		assert_clean(types[i], before);
	}
	printf("\n    %zu of %zu kernel types refused here", refused, TB_ARRAY_SIZE(types));
	assert_clean("refused types", before);
}

/* body = spin (the services' known delay): its hits counted as empty's, exactly the calls. */
static void test_bpf_spin(void)
{
	const char *kv[] = {"attach=tracepoint", "program=probe", "stats=false",
			    "body=spin",	 "spin=1us",	  NULL};
	uint32_t ids[256];
	size_t before;
	struct run r;

	TB_NEED_TRACING();
	before = tb_test_bpf_progs(ids, TB_ARRAY_SIZE(ids));
	traced("bpf", kv, true, false, OPS, &r);
	if (r.skipped)
		return;
	printf("\n    bpf tracepoint spin: %lld hits for %llu getpid", (long long)r.st.events, OPS);
	CU_ASSERT_EQUAL(r.st.events, (int64_t)OPS);
	CU_ASSERT_EQUAL(r.st.lost, 0);
	json_decref(r.st.extra);
	assert_clean("spin", before);
}

/* ftrace uprobe and uretprobe events: exact counts, the dynamic event gone afterwards. */
static void test_ftrace_uprobe(void)
{
	static const char *const probes[] = {"probe=uprobe", "probe=uretprobe"};
	size_t i;
	struct run r;

	TB_NEED_TRACING();
	for (i = 0; i < TB_ARRAY_SIZE(probes); i++) {
		const char *kv[] = {probes[i], "buffer-size=8M", "overwrite=false", NULL};

		traced("ftrace-uprobe", kv, false, false, OPS, &r);
		if (r.skipped)
			continue;
		printf("\n    ftrace %s: %lld events for %llu calls, %lld lost", probes[i] + 6,
		       (long long)r.st.events, OPS, (long long)r.st.lost);
		CU_ASSERT_EQUAL(r.st.events, (int64_t)OPS);
		CU_ASSERT_EQUAL(r.st.lost, 0);
		json_decref(r.st.extra);
		assert_clean(probes[i], SIZE_MAX);
	}
}

/* No lttng-sessiond of ours may outlive a sample. */
static bool sessiond_running(void)
{
	FILE *f = popen("pgrep -x lttng-sessiond", "r");
	char line[64];
	bool any = f && fgets(line, sizeof(line), f);

	if (f)
		pclose(f);
	return any;
}

/* One window of t (set up, or rearmed when rearm) around n usercall calls of a new child. */
static void rearm_window(struct tb_tracer *t, bool rearm, uint64_t n, struct run *r)
{
	struct child c;
	int ret;

	memset(r, 0, sizeof(*r));
	r->st = (struct tb_tracer_stats){-1, -1, -1, -1, -1, -1, NULL};
	CU_ASSERT_EQUAL_FATAL(spawn(false, !strcmp(t->ops->name, "lttng-ust"), n, &c), 0);
	t->target = c.pid;
	ret = rearm ? t->ops->rearm(t) : t->ops->setup(t);
	CU_ASSERT_EQUAL(ret, 0);
	if (!ret) {
		ret = t->ops->start(t);
		CU_ASSERT_EQUAL(ret, 0);
	}
	CU_ASSERT_EQUAL(write(c.go, "g", 1), 1);
	CU_ASSERT_EQUAL(batch_done(&c), 0);
	if (!ret) { /* stopped while the process lives, as the runner does */
		CU_ASSERT_EQUAL(t->ops->stop(t), 0);
		CU_ASSERT_EQUAL(t->ops->collect(t, &r->st), 0);
	}
	r->status = finish(&c);
	CU_ASSERT(WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0);
}

/*
 * reuse-tracers for the user-space probes: set up for one child, parked, rearmed for another
 * that makes a different number of calls; the second window counts exactly the second child's
 * calls (the BPF probe also reads exactly its arguments; LTTng's cleared session holds none of
 * the first child's events), and nothing is left afterwards (no session daemon of ours).
 */
static void test_rearm_user(void)
{
	static const struct {
		const char *type;
		const char *kv[4];
	} cases[] = {
		{"ftrace-uprobe", {"probe=uprobe", "buffer-size=8M", "overwrite=false", NULL}},
		{"bpf", {"program=probe", "attach=uprobe", "body=count", NULL}},
		{"lttng-ust", {"register-timeout=10s", NULL}},
	};
	bool daemon_before = sessiond_running();
	uint32_t ids[256];
	size_t i, before;
	struct run r;

	TB_NEED_TRACING();
	before = tb_test_bpf_progs(ids, TB_ARRAY_SIZE(ids));
	for (i = 0; i < TB_ARRAY_SIZE(cases); i++) {
		const struct tb_tracer_ops *ops = tb_tracer_find(cases[i].type);
		struct tb_tracer t = {.ops = ops, .name = "rearm-test", .consumer_cpu = -1};
		char why[512] = "";

		CU_ASSERT_PTR_NOT_NULL_FATAL(ops);
		t.cfg = make_cfg(ops->opts, ops->cfg_size, cases[i].kv);
		CU_ASSERT_FATAL(tb_tracer_rearms(ops, t.cfg));
		if ((ops->supported && ops->supported(why, sizeof(why))) ||
		    (ops->supported_cfg && ops->supported_cfg(t.cfg, why, sizeof(why)))) {
			printf("\n    %s: unsupported here: %s", cases[i].type, why);
			goto next;
		}
		t.dir = tb_test_tmpdir_open();
		t.outdir = t.dir ? t.dir->path : NULL;
		rearm_window(&t, false, OPS, &r);
		CU_ASSERT_EQUAL(r.st.events, (int64_t)OPS);
		json_decref(r.st.extra);
		t.target = 0; /* park */
		CU_ASSERT_EQUAL(ops->rearm(&t), 0);
		rearm_window(&t, true, OPS / 4, &r);
		printf("\n    %s %s rearmed: %lld events for %llu calls", cases[i].type,
		       cases[i].kv[0], (long long)r.st.events, OPS / 4);
		CU_ASSERT_EQUAL(r.st.events, (int64_t)(OPS / 4));
		CU_ASSERT_EQUAL(r.st.lost, 0);
		if (!strcmp(cases[i].type, "bpf"))
			CU_ASSERT_EQUAL(extra_int(&r, "arg_sum"), sum_args(OPS / 4));
		json_decref(r.st.extra);
		ops->teardown(&t);
next:
		tb_opts_free(ops->opts, t.cfg);
		free(t.cfg);
		assert_clean(cases[i].type, before);
	}
	if (!daemon_before) {
		CU_ASSERT(!sessiond_running());
	}
}

/*
 * A kept LTTng session's losses are its window's own: LTTng's channel counts add up over the
 * session's life, clears included. With tiny sub-buffers a first window of 50 x OPS calls
 * discards most of them; rearmed twice, windows of OPS / 4 calls (the second on the kept
 * tracer's other session, the third on the first again): in each, events and lost add up to
 * its own calls (the first window's losses carried over would not).
 */
static void test_rearm_lttng_lost(void)
{
	const char *kv[] = {"register-timeout=10s", "subbuf-size=4K", "subbuf-count=2", NULL};
	const struct tb_tracer_ops *ops = tb_tracer_find("lttng-ust");
	struct tb_tracer t = {.ops = ops, .name = "rearm-lost", .consumer_cpu = -1};
	bool daemon_before = sessiond_running();
	char why[512] = "";
	struct run r;

	TB_NEED_TRACING();
	CU_ASSERT_PTR_NOT_NULL_FATAL(ops);
	t.cfg = make_cfg(ops->opts, ops->cfg_size, kv);
	if (ops->supported(why, sizeof(why))) {
		printf("\n    lttng-ust: unsupported here: %s", why);
		goto out;
	}
	t.dir = tb_test_tmpdir_open();
	t.outdir = t.dir ? t.dir->path : NULL;
	rearm_window(&t, false, 50 * OPS, &r);
	printf("\n    first window: %lld events, %lld lost for %llu calls", (long long)r.st.events,
	       (long long)r.st.lost, 50 * OPS);
	CU_ASSERT(r.st.lost > 0);
	CU_ASSERT_EQUAL(r.st.events + r.st.lost, (int64_t)(50 * OPS));
	json_decref(r.st.extra);
	t.target = 0; /* park */
	CU_ASSERT_EQUAL(ops->rearm(&t), 0);
	for (int i = 0; i < 2; i++) {
		if (i) {
			t.target = 0;
			CU_ASSERT_EQUAL(ops->rearm(&t), 0);
		}
		rearm_window(&t, true, OPS / 4, &r);
		printf("\n    rearmed: %lld events, %lld lost for %llu calls",
		       (long long)r.st.events, (long long)r.st.lost, OPS / 4);
		CU_ASSERT_EQUAL(r.st.events + r.st.lost, (int64_t)(OPS / 4));
		json_decref(r.st.extra);
	}
	ops->teardown(&t);
out:
	tb_opts_free(ops->opts, t.cfg);
	free(t.cfg);
	assert_clean("lttng-ust", SIZE_MAX);
	if (!daemon_before) {
		CU_ASSERT(!sessiond_running());
	}
}

/* LTTng-UST: the usercall workload with lttng = true, every call recorded, nothing lost. */
static void test_lttng(void)
{
	const char *kv[] = {"register-timeout=10s", NULL};
	bool daemon_before;
	struct run r;

	TB_NEED_TRACING();
	daemon_before = sessiond_running();
	traced("lttng-ust", kv, false, true, OPS, &r);
	if (r.skipped)
		return;
	printf("\n    lttng-ust: %lld events for %llu calls, %lld lost", (long long)r.st.events,
	       OPS, (long long)r.st.lost);
	CU_ASSERT_EQUAL(r.st.events, (int64_t)OPS);
	CU_ASSERT_EQUAL(r.st.lost, 0);
	/* the trace's own layout, one writer: counted from its packets' sizes, not read back */
	CU_ASSERT_STRING_EQUAL(extra_str(&r, "counted_by"), "packet sizes");
	json_decref(r.st.extra);
	assert_clean("lttng-ust", SIZE_MAX);
	if (!daemon_before) {
		CU_ASSERT(!sessiond_running());
	}
}

/* A kept LTTng trace of n usercall calls below r->outdir (keep-trace), with options kv. */
static bool kept_trace(const char *const *kv, uint64_t n, struct run *r, char *trace, size_t len)
{
	char(*paths)[PATH_MAX] = NULL, err[512];
	size_t np = 0;

	traced("lttng-ust", kv, false, true, n, r);
	json_decref(r->st.extra);
	if (r->skipped)
		return false;
	CU_ASSERT_EQUAL_FATAL(tb_ctf_find(r->outdir, &paths, &np, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(np, 1);
	snprintf(trace, len, "%s", paths[0]);
	free(paths);
	return true;
}

/* The count of the trace below dir from its index (tb_ctf_index_count); 0 or -errno, said. */
static int by_index(const char *dir, const char *event, bool one_writer, struct tb_ctf_indexed *x,
		    const char *what)
{
	char err[PATH_MAX + 256] = "";
	int ret = tb_ctf_index_count(dir, event, one_writer, x, err, sizeof(err));

	printf("\n    %s: ", what);
	if (ret)
		printf("%s", err);
	else
		printf("%lld events in %lld packets (%lld extended headers)", (long long)x->events,
		       (long long)x->packets, (long long)x->extended);
	CU_ASSERT(!ret || err[0] != '\0');
	return ret;
}

/* The count from the index of the trace below dir and babeltrace2's, the same (returned). */
static int64_t both_counts(const char *dir, struct tb_ctf_counts *n)
{
	char err[PATH_MAX + 256] = "";
	struct tb_ctf_indexed x;

	CU_ASSERT_EQUAL(by_index(dir, TB_USERCALL_UST_EVENT, true, &x, "by packet sizes"), 0);
	CU_ASSERT_EQUAL(tb_ctf_count(dir, n, err, sizeof(err)), 0);
	printf("\n    babeltrace2: %lld events, %lld discarded", (long long)n->events,
	       (long long)n->discarded);
	CU_ASSERT_EQUAL(x.events, n->events);
	CU_ASSERT(x.extended >= 1); /* the buffer's first event carries the full timestamp */
	return n->events;
}

/* Overwrite len bytes at off of path with buf (NULL: none), the old bytes into old if given. */
static void poke(const char *path, off_t off, const void *buf, size_t len, void *old)
{
	int fd = open(path, O_RDWR);

	CU_ASSERT_FATAL(fd >= 0);
	if (old)
		CU_ASSERT_EQUAL(pread(fd, old, len, off), (ssize_t)len);
	if (buf)
		CU_ASSERT_EQUAL(pwrite(fd, buf, len, off), (ssize_t)len);
	close(fd);
}

/* The largest stream file of the trace directory trace into path, its name into name. */
static void largest_stream(const char *trace, char *path, size_t len, char *name, size_t nlen)
{
	char p[PATH_MAX + 300];
	off_t best = -1;
	struct dirent *de;
	struct stat st;
	DIR *d = opendir(trace);

	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	while ((de = readdir(d))) {
		snprintf(p, sizeof(p), "%s/%s", trace, de->d_name);
		if (de->d_name[0] == '.' || !strcmp(de->d_name, "metadata") || stat(p, &st) ||
		    !S_ISREG(st.st_mode) || st.st_size <= best)
			continue;
		best = st.st_size;
		snprintf(path, len, "%s", p);
		snprintf(name, nlen, "%s", de->d_name);
	}
	closedir(d);
	CU_ASSERT(best > 0);
}

/*
 * The lttng-ust tracer's own count from LTTng's packet index (ctf-index.h) is babeltrace2's on
 * real traces: one that lost nothing, one whose tiny sub-buffers discarded most events (every
 * call then recorded or discarded, and the tracer's lost the trace's discarded). It refuses
 * (-EPROTO, said), for babeltrace2 to count, a trace of several writers, of another event or
 * fields, an index entry whose size adds up to no count, a stream without its index, and one
 * its index no longer tiles.
 */
static void test_ctf_index(void)
{
	const char *kv[] = {"register-timeout=10s", "keep-trace=true", NULL};
	const char *tiny[] = {"register-timeout=10s", "keep-trace=true", "subbuf-size=4K",
			      "subbuf-count=2", NULL};
	char trace[PATH_MAX], stream[PATH_MAX + 300], name[NAME_MAX + 1], path[PATH_MAX + 300];
	char moved[PATH_MAX + 310], *text = NULL, *at;
	unsigned char old[8], odd[8];
	struct tb_ctf_indexed x;
	struct tb_ctf_counts n;
	uint64_t bits;
	struct run r;
	size_t len;

	TB_NEED_TRACING();
	if (!kept_trace(tiny, 50 * OPS, &r, trace, sizeof(trace)))
		return;
	both_counts(trace, &n);
	printf("\n    the tracer: %lld events, %lld lost", (long long)r.st.events,
	       (long long)r.st.lost);
	CU_ASSERT(n.discarded > 0);
	CU_ASSERT_EQUAL(n.events + n.discarded, (int64_t)(50 * OPS));
	CU_ASSERT_EQUAL(r.st.events, n.events);
	CU_ASSERT_EQUAL(r.st.lost, n.discarded);

	CU_ASSERT_FATAL(kept_trace(kv, OPS, &r, trace, sizeof(trace)));
	CU_ASSERT_EQUAL(both_counts(trace, &n), (int64_t)OPS);
	CU_ASSERT_EQUAL(by_index(trace, TB_USERCALL_UST_EVENT, false, &x, "several writers"),
			-EPROTO);
	CU_ASSERT_EQUAL(by_index(trace, "tracebench:other", true, &x, "another event"), -EPROTO);

	/* the event's second field renamed in the metadata: same length, other fields */
	snprintf(path, sizeof(path), "%s/metadata", trace);
	CU_ASSERT_EQUAL_FATAL(tb_read_regular(path, 1 << 24, &text, &len), 0);
	at = memmem(text, len, "} _b;", 5);
	CU_ASSERT_PTR_NOT_NULL_FATAL(at);
	poke(path, at - text + 3, "c", 1, NULL);
	CU_ASSERT_EQUAL(by_index(trace, TB_USERCALL_UST_EVENT, true, &x, "a field renamed"),
			-EPROTO);
	poke(path, at - text + 3, "b", 1, NULL);
	free(text);

	/* the first index entry's content size one byte larger (big-endian, in bits): no count of
	 * 22- and 30-byte events adds up to it */
	largest_stream(trace, stream, sizeof(stream), name, sizeof(name));
	snprintf(path, sizeof(path), "%s/index/%s.idx", trace, name);
	poke(path, 16 + 16, NULL, 8, old);
	bits = 0;
	for (int i = 0; i < 8; i++)
		bits = bits << 8 | old[i];
	bits += 8;
	for (int i = 7; i >= 0; i--, bits >>= 8)
		odd[i] = (unsigned char)bits;
	poke(path, 16 + 16, odd, 8, NULL);
	CU_ASSERT_EQUAL(by_index(trace, TB_USERCALL_UST_EVENT, true, &x, "a size of no count"),
			-EPROTO);
	poke(path, 16 + 16, old, 8, NULL);
	CU_ASSERT_EQUAL(by_index(trace, TB_USERCALL_UST_EVENT, true, &x, "restored"), 0);
	CU_ASSERT_EQUAL(x.events, (int64_t)OPS);

	/* no index, then a stream its index no longer tiles */
	snprintf(moved, sizeof(moved), "%s.moved", path);
	CU_ASSERT_EQUAL_FATAL(rename(path, moved), 0);
	CU_ASSERT_EQUAL(by_index(trace, TB_USERCALL_UST_EVENT, true, &x, "no index"), -EPROTO);
	CU_ASSERT_EQUAL_FATAL(rename(moved, path), 0);
	CU_ASSERT_EQUAL(truncate(stream, 100), 0);
	CU_ASSERT_EQUAL(by_index(trace, TB_USERCALL_UST_EVENT, true, &x, "a stream cut short"),
			-EPROTO);
	CU_ASSERT_EQUAL(tb_ctf_index_count(tb_test_tmpdir(), TB_USERCALL_UST_EVENT, true, &x, path,
					   sizeof(path)),
			-ENOENT);
}

/* liblttng-ust is in the maps of pid. */
static bool maps_lttng(pid_t pid)
{
	char path[64], *text = NULL;
	bool has;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if (tb_read_file(path, &text, NULL))
		return false;
	has = strstr(text, "liblttng-ust.so") != NULL;
	free(text);
	return has;
}

/* Only a usercall process with lttng = true loads liblttng-ust; this binary does not. */
static void test_lttng_isolated(void)
{
	struct child c;
	int status;

	CU_ASSERT(!maps_lttng(getpid()));
	CU_ASSERT_EQUAL_FATAL(spawn(false, true, 10, &c), 0);
	/* setup has run once the child blocks for its go byte */
	for (int i = 0; i < 500 && !maps_lttng(c.pid); i++)
		tb_sleep_ns(2000000);
	CU_ASSERT(maps_lttng(c.pid));
	CU_ASSERT_EQUAL(write(c.go, "g", 1), 1);
	status = finish(&c);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CU_ASSERT_EQUAL_FATAL(spawn(false, false, 10, &c), 0);
	tb_sleep_ns(20000000);
	CU_ASSERT(!maps_lttng(c.pid));
	CU_ASSERT_EQUAL(write(c.go, "g", 1), 1);
	finish(&c);
	CU_ASSERT(!maps_lttng(getpid()));
}

/* The bpf tracer's probe options: shapes checked before anything loads. */
static void test_bad_probe_configs(void)
{
	static const char *const bad[][4] = {
		{"attach=kprobe", NULL, NULL},	      /* only with program = probe */
		{"program=probe", "body=spin", NULL}, /* no time */
		{"program=probe", "spin=5us", NULL},  /* a time without the body */
		{"program=probe", "body=spin", "spin=5us", "attach=uprobe"},
		{"program=probe", "attach=tracepoint", "target=sys_enter_getpid"},
		{"program=probe", "attach=usdt", "target=usercall"},
		{"program=probe", "attach=kprobe", "target=a:b"},
		{"program=probe", "attach=tracepoint", "binary=/bin/true"},
		{"program=probe", "attach=uprobe", "binary=/no/such/file"},
		{"target=x", NULL, NULL},
	};
	const struct tb_tracer_ops *bpf = tb_tracer_find("bpf");
	char err[512];
	size_t i;

	for (i = 0; i < TB_ARRAY_SIZE(bad); i++) {
		const char *kv[] = {bad[i][0], bad[i][1], bad[i][2], bad[i][3], NULL};
		void *cfg = make_cfg(bpf->opts, bpf->cfg_size, kv);

		err[0] = '\0';
		CU_ASSERT_EQUAL(bpf->validate(cfg, err, sizeof(err)), -EINVAL);
		CU_ASSERT(err[0] != '\0');
		printf("\n    %s %s: %s", bad[i][0], bad[i][1] ? bad[i][1] : "", err);
		tb_opts_free(bpf->opts, cfg);
		free(cfg);
	}
}

/* calls per op multiply the hits: 3 calls per op, 3 x OPS uprobe hits, arguments 0 .. 3 OPS - 1. */
static void test_calls_per_op(void)
{
	const char *kv[] = {"attach=uprobe", "program=probe", "stats=false", "body=count", NULL};
	struct tb_op_events ev;
	const struct tb_workload_ops *wl = tb_workload_find("usercall");
	const char *wkv[] = {"calls=3", NULL};
	void *cfg = make_cfg(wl->opts, wl->cfg_size, wkv);
	struct tb_op_context ctx = {.threads = 1};
	struct run r;

	/* the workload's own account of one op */
	tb_op_events_init(&ev);
	CU_ASSERT_EQUAL(wl->events(cfg, &ctx, &ev), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(
		tb_op_events_find(&ev, "uprobe:" TB_USERCALL_SYMBOL, TB_EV_SELF));
	CU_ASSERT_DOUBLE_EQUAL(
		tb_op_events_find(&ev, "uprobe:" TB_USERCALL_SYMBOL, TB_EV_SELF)->per_op, 3, 1e-12);
	CU_ASSERT_PTR_NULL(tb_op_events_find(&ev, "lttng:" TB_USERCALL_UST_EVENT, TB_EV_SELF));
	tb_opts_free(wl->opts, cfg);
	free(cfg);
	TB_NEED_TRACING();
	calls_per_op = 3;
	traced("bpf", kv, false, false, OPS, &r);
	calls_per_op = 1;
	if (r.skipped)
		return;
	CU_ASSERT_EQUAL(r.st.events, (int64_t)(3 * OPS));
	CU_ASSERT_EQUAL(extra_int(&r, "arg_sum"), sum_args(3 * OPS));
	json_decref(r.st.extra);
}

/*
 * The proof's expectation for each probe tracer on its workload (core/events.h names on both
 * sides): one event per op for entry, return, USDT and LTTng-UST probes, and for the kernel
 * types on getpid's syscall path; exact, not unknown.
 */
static void test_expected_per_op(void)
{
	static const struct {
		const char *wl, *wkv, *tracer, *kv[4];
	} cases[] = {
		{"usercall", "lttng=false", "bpf", {"program=probe", "attach=uprobe", NULL}},
		{"usercall", "lttng=false", "bpf", {"program=probe", "attach=uretprobe", NULL}},
		{"usercall", "lttng=false", "bpf", {"program=probe", "attach=usdt", NULL}},
		{"usercall", "lttng=false", "ftrace-uprobe", {"probe=uprobe", NULL}},
		{"usercall", "lttng=false", "ftrace-uprobe", {"probe=uretprobe", NULL}},
		{"usercall", "lttng=true", "lttng-ust", {NULL}},
		{"getpid", NULL, "bpf", {"program=probe", "attach=tracepoint", NULL}},
		{"getpid", NULL, "bpf", {"program=probe", "attach=tp_btf", NULL}},
		{"getpid", NULL, "bpf", {"program=probe", "attach=raw_tp", NULL}},
		{"getpid", NULL, "bpf", {"program=probe", "attach=fentry", NULL}},
		{"getpid", NULL, "bpf", {"program=probe", "attach=kretprobe", NULL}},
		{"pipe-pingpong",
		 NULL,
		 "bpf",
		 {"program=probe", "attach=tp_btf", "target=sched_switch", NULL}},
	};
	struct tb_op_context ctx = {.threads = 1, .one_cpu = true};
	size_t i;

	for (i = 0; i < TB_ARRAY_SIZE(cases); i++) {
		const struct tb_workload_ops *wl = tb_workload_find(cases[i].wl);
		const struct tb_tracer_ops *tr = tb_tracer_find(cases[i].tracer);
		const char *wkv[] = {cases[i].wkv, NULL};
		void *wcfg = make_cfg(wl->opts, wl->cfg_size, wkv);
		void *tcfg = make_cfg(tr->opts, tr->cfg_size, cases[i].kv);
		struct tb_op_events ev;
		struct tb_expected x;
		struct tb_hooks h;
		bool approx = !strcmp(cases[i].wl, "pipe-pingpong");

		tb_op_events_init(&ev);
		tb_hooks_init(&h);
		CU_ASSERT_EQUAL(wl->events(wcfg, &ctx, &ev), 0);
		CU_ASSERT_EQUAL(tr->hooks(tcfg, &h), 0);
		tb_proof_expect(&ev, &h, NULL, &x);
		printf("\n    %s / %s %s: hooks %s, %.3g (+%.3g approx) per op%s", cases[i].wl,
		       cases[i].tracer, cases[i].kv[1] ? cases[i].kv[1] : cases[i].kv[0] ?: "",
		       x.hooks, x.exact_per_op, x.approx_per_op, x.unknown ? ", unknown" : "");
		CU_ASSERT(!x.unknown);
		CU_ASSERT_EQUAL(h.kind, TB_HOOK_EVENTS);
		CU_ASSERT_DOUBLE_EQUAL(approx ? x.approx_per_op : x.exact_per_op, 1, 1e-12);
		tb_hooks_free(&h);
		tb_opts_free(wl->opts, wcfg);
		tb_opts_free(tr->opts, tcfg);
		free(wcfg);
		free(tcfg);
	}
}

static CU_TestInfo probe_tests[] = {
	{"bpf uprobe, uretprobe, usdt count every call", test_bpf_user},
	{"bpf kernel types count getpid or say why not", test_bpf_kernel},
	{"bpf body = spin counts its hits", test_bpf_spin},
	{"usercall probe sites start so and count every call", test_sites},
	{"ftrace uprobe and uretprobe count every call", test_ftrace_uprobe},
	{"rearm: uprobes and an LTTng session re-pointed count the new process only",
	 test_rearm_user},
	{"rearm: a kept LTTng session's losses are each window's own", test_rearm_lttng_lost},
	{"lttng-ust records every call", test_lttng},
	{"lttng-ust's count from the packet index is babeltrace2's, or it refuses", test_ctf_index},
	{"only an lttng usercall process loads liblttng-ust", test_lttng_isolated},
	{"bad probe configurations", test_bad_probe_configs},
	{"calls per op multiply the hits", test_calls_per_op},
	{"expected events per op for every probe type", test_expected_per_op},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("tracers-probe-types", tb_test_tracing_init, tb_test_tracing_clean, probe_tests);
