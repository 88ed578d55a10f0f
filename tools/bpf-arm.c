// SPDX-License-Identifier: GPL-2.0
/*
 * tb-bpf-arm: the --setup and --cleanup of `make bench-precision`'s hyperfine runs for the
 * bundled BPF families. It loads the program tracebench's bpf tracer loads, from the same
 * skeleton, with the same rearmable pid filter (targ_rearm set in .rodata, the filter the
 * writable global targ_live, tb-bpf.h), attaches it, pins the link and the .bss map under DIR
 * and exits: the pins keep both alive between hyperfine's runs, each of which points targ_live at
 * itself (tb-getpid-loop or tb-usercall-loop --bpf DIR/bss) and back at 0. Nothing here is
 * timed.
 *
 *	tb-bpf-arm syscall-count DIR           syscall-count's tp_btf program on sys_enter
 *	tb-bpf-arm uprobe DIR BINARY SYMBOL    probe's count body as a uprobe at SYMBOL in BINARY,
 *	                                       for every process (the runs' pids are not known yet;
 *	                                       targ_live filters)
 *	tb-bpf-arm --remove DIR                unpin both (the kernel frees them) and remove DIR
 *
 * Debian 12's bpftool (7.1) cannot attach a tp_btf or a bare uprobe program (no autoattach) and
 * cannot set .rodata, and bpftrace 0.17 has neither tp_btf nor raw tracepoints: hence this
 * helper. DIR, named tracebench-<owner pid>-..., is in a BPF file system (bench-precision mounts
 * one of its own for the run: unmounting it frees whatever is left); the link and the map go to
 * DIR/link and DIR/bss. Exit: 0, 1 on a failure (said on stderr, DIR removed), 2 on bad usage.
 */
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bpf/probe.skel.h"
#include "bpf/syscall-count.skel.h"

#define PROG   "tb-bpf-arm"
#define PREFIX "tracebench-"

static int remove_dir(const char *dir)
{
	char path[512];
	int e = 0;

	snprintf(path, sizeof(path), "%s/link", dir);
	if (unlink(path) && errno != ENOENT)
		e = -errno;
	snprintf(path, sizeof(path), "%s/bss", dir);
	if (unlink(path) && errno != ENOENT)
		e = -errno;
	if (rmdir(dir) && errno != ENOENT)
		e = -errno;
	if (e)
		fprintf(stderr, PROG ": cannot remove %s: %s\n", dir, strerror(-e));
	return e ? 1 : 0;
}

/* The link and the map pinned; targ_live must open the .bss (what the loops write). */
static int pin(const char *dir, struct bpf_link *link, struct bpf_map *bss, const void *base,
	       const void *live)
{
	char path[512];
	int e;

	if (!link) {
		e = -errno;
		fprintf(stderr, PROG ": cannot attach: %s\n", strerror(-e));
		return e;
	}
	if (base != live) {
		fprintf(stderr, PROG ": targ_live is not at the start of .bss\n");
		return -EINVAL;
	}
	snprintf(path, sizeof(path), "%s/link", dir);
	e = bpf_link__pin(link, path);
	if (!e) {
		snprintf(path, sizeof(path), "%s/bss", dir);
		e = bpf_map__pin(bss, path);
	}
	if (e)
		fprintf(stderr, PROG ": cannot pin %s: %s\n", path, strerror(-e));
	return e;
}

static int arm_syscall_count(const char *dir)
{
	struct syscall_count_bpf *s = syscall_count_bpf__open();
	int e;

	if (!s)
		return -errno;
	s->rodata->targ_rearm = true;
	bpf_program__set_autoload(s->progs.tb_sc_raw_tp, false);
	e = syscall_count_bpf__load(s);
	if (!e)
		e = pin(dir, bpf_program__attach_trace(s->progs.tb_sc_tp_btf), s->maps.bss, s->bss,
			&s->bss->targ_live);
	syscall_count_bpf__destroy(s);
	return e;
}

static int arm_uprobe(const char *dir, const char *binary, const char *symbol)
{
	LIBBPF_OPTS(bpf_uprobe_opts, uo, .func_name = symbol);
	struct probe_bpf *s = probe_bpf__open();
	struct bpf_program *prog;
	int e;

	if (!s)
		return -errno;
	s->rodata->targ_rearm = true;
	bpf_object__for_each_program(prog, s->obj)
		bpf_program__set_autoload(prog, prog == s->progs.tb_count_uprobe);
	e = probe_bpf__load(s);
	if (!e)
		e = pin(dir,
			bpf_program__attach_uprobe_opts(s->progs.tb_count_uprobe, -1, binary, 0,
							&uo),
			s->maps.bss, s->bss, &s->bss->targ_live);
	probe_bpf__destroy(s);
	return e;
}

static int usage(void)
{
	fprintf(stderr, "usage: tb-bpf-arm syscall-count DIR | uprobe DIR BINARY SYMBOL | --remove "
			"DIR\n"
			"       (DIR: a directory in a BPF file system named " PREFIX "...)\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *dir = argc > 2 ? argv[2] : "";
	int e;

	const char *base = strrchr(dir, '/');

	if (!base || strncmp(base + 1, PREFIX, strlen(PREFIX)) || strstr(dir, "..") ||
	    strlen(dir) > 300)
		return usage();
	if (argc == 3 && !strcmp(argv[1], "--remove"))
		return remove_dir(dir);
	if (!(argc == 3 && !strcmp(argv[1], "syscall-count")) &&
	    !(argc == 5 && !strcmp(argv[1], "uprobe")))
		return usage();
	if (mkdir(dir, 0700)) {
		fprintf(stderr, PROG ": cannot create %s: %s\n", dir, strerror(errno));
		return 1;
	}
	e = argc == 3 ? arm_syscall_count(dir) : arm_uprobe(dir, argv[3], argv[4]);
	if (e) {
		fprintf(stderr, PROG ": %s: cannot arm it: %s\n", argv[1], strerror(-e));
		remove_dir(dir);
		return 1;
	}
	return 0;
}
