/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Addresses to function names, for the explain profiler.
 *
 * Kernel: /proc/kallsyms (text symbols; the kernel lists no sizes, so an address belongs to the
 * nearest symbol below it when that is closer than TB_KSYM_MAX_GAP). With kptr_restrict in
 * force every address reads 0: the table is then `hidden` and kernel frames stay hex. BPF
 * programs are the kernel's [bpf] entries, named bpf_prog_<tag>_<name> as perf shows them; they
 * come and go with the tracer, so they are read again for every profiled sample. When
 * net.core.bpf_jit_kallsyms is 0 the kernel lists none, and tb_ksyms_add_bpf_info names them
 * from bpf_prog_info (jited_ksyms and jited_func_lens) the way perf's bpf-event.c does.
 *
 * User: a process's executable mappings (/proc/<pid>/maps, or PERF_RECORD_MMAP2) take an
 * address to a file and offset, and the file's symbols (libdw's dwfl: .symtab, else .dynsym
 * and MiniDebugInfo, and a local /usr/lib/debug file when installed; never debuginfod) take
 * the offset to a function. What cannot be named is kept as hex by the caller, never dropped.
 */
#ifndef TB_EXPLAIN_SYMBOLS_H
#define TB_EXPLAIN_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TB_KSYM_MAX_GAP (1u << 20) /* bytes past a symbol still taken as inside it */

struct tb_ksym {
	uint64_t addr;
	uint64_t size; /* 0: unknown (kallsyms) */
	const char *name;
	bool bpf; /* a [bpf] entry (program, trampoline, dispatcher) */
};

struct tb_ksyms {
	struct tb_ksym *v; /* sorted by address */
	size_t n, cap;
	char *text;	  /* the last full kallsyms text: non-BPF names point into it */
	char **bpf_names; /* the [bpf] entries' names */
	size_t nbpf_names;
	bool hidden;	   /* every address read 0 (kptr_restrict) */
	size_t nbpf;	   /* [bpf] entries in v */
	uint64_t text_end; /* _etext, or 0 */
};

void tb_ksyms_init(struct tb_ksyms *k);
void tb_ksyms_free(struct tb_ksyms *k);
/*
 * Parse kallsyms text (what names it in messages; "addr type name [module]" per line) into k,
 * keeping text symbols (types t, T, w, W). With bpf_only, only the [bpf] entries are taken and
 * those k had are replaced. Returns 0, -EINVAL for a malformed line (said, what:line), or
 * -ENOMEM.
 */
int tb_ksyms_parse(struct tb_ksyms *k, const char *text, size_t len, const char *what,
		   bool bpf_only);
/* The same from a file (NULL: /proc/kallsyms). -errno when unreadable (said). */
int tb_ksyms_load(struct tb_ksyms *k, const char *path, bool bpf_only);
/*
 * Add every loaded BPF program's JIT images from bpf_prog_info (needs CAP_SYS_ADMIN or
 * CAP_BPF). Returns how many images were added, or -errno.
 */
int tb_ksyms_add_bpf_info(struct tb_ksyms *k);
/* The symbol addr is in, or NULL. *off is addr's offset into it. */
const struct tb_ksym *tb_ksyms_find(const struct tb_ksyms *k, uint64_t addr, uint64_t *off);
/*
 * The frame of a kernel address: its symbol with TB_FOLD_KERNEL appended (explain/fold.h),
 * else "0x<address>_[k]".
 */
void tb_ksyms_frame(const struct tb_ksyms *k, uint64_t addr, char *buf, size_t len);

/* One executable mapping of a process. */
struct tb_map {
	uint64_t start, end, pgoff;
	char *path; /* "[vdso]" and other pseudo names as the kernel gives them */
};

struct tb_maps {
	struct tb_map *v; /* sorted by start, not overlapping */
	size_t n, cap;
};

void tb_maps_init(struct tb_maps *m);
void tb_maps_free(struct tb_maps *m);
/* /proc/<pid>/maps text: its executable, file-backed or named mappings. 0, -EINVAL, -ENOMEM. */
int tb_maps_parse(struct tb_maps *m, const char *text, size_t len);
/* Add a mapping (a later one replaces what it overlaps, as mmap does). 0 or -ENOMEM. */
int tb_maps_add(struct tb_maps *m, uint64_t start, uint64_t len, uint64_t pgoff, const char *path);
int tb_maps_copy(struct tb_maps *dst, const struct tb_maps *src);
const struct tb_map *tb_maps_find(const struct tb_maps *m, uint64_t addr);

struct tb_usyms;
/* A cache of ELF symbol tables by path. NULL on ENOMEM. */
struct tb_usyms *tb_usyms_new(void);
void tb_usyms_free(struct tb_usyms *u);
/*
 * The function at file offset off of the ELF file path, into buf. Returns 0, or -ENOENT when
 * the file cannot be read as ELF or has no symbol there.
 */
int tb_usyms_lookup(struct tb_usyms *u, const char *path, uint64_t off, char *buf, size_t len);
/*
 * The frame of a user address in a process mapped as m: its function, else "<file
 * name>+0x<offset>" inside a mapping, else "0x<address>". A valid frame (tb_fold_frame_clean).
 */
void tb_usyms_frame(struct tb_usyms *u, const struct tb_maps *m, uint64_t addr, char *buf,
		    size_t len);

#endif /* TB_EXPLAIN_SYMBOLS_H */
