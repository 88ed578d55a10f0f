/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where user probes sit in an ELF file, both ways: a function's file offset (what uprobe_events
 * and a uprobe's perf event take), and what sits at a file offset (a function's entry, a USDT
 * probe of .note.stapsdt), so a probe found attached at "path+0xoff" (host/bpf-account.h)
 * can be named as core/events.h names the workload's events.
 */
#ifndef TB_HOST_ELF_SITES_H
#define TB_HOST_ELF_SITES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The file offset of function sym's code in path: its address (.symtab, else .dynsym) mapped
 * through the executable PT_LOAD segment that holds it. Returns 0, or -errno with the reason,
 * naming path and sym, in err.
 */
int tb_elf_symbol_offset(const char *path, const char *sym, uint64_t *off, char *err, size_t len);

/*
 * The probe site at file offset off of path as core/events.h names it: "usdt:PROVIDER:NAME"
 * for a USDT probe there (entry probes only), else "uprobe:FUNCTION" (ret: "uretprobe:")
 * for a function that starts there. Returns 0, -ENOENT when nothing starts there (an offset
 * inside a function), or -errno when path is not a readable ELF file.
 */
int tb_elf_site_name(const char *path, uint64_t off, bool ret, char *out, size_t len);

#endif /* TB_HOST_ELF_SITES_H */
