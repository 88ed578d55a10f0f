/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A cell's BPF programs (struct tb_cell_prog, result.h) to and from tracer_extra: the runner
 * adds up its measured samples' programs, the reader validates a result file's, the writer
 * puts them back with their derived figures (model/measured.h).
 */
#ifndef TB_BPF_PROGS_H
#define TB_BPF_PROGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/events.h"
#include "model/result.h"

/*
 * A measured sample's tracer_extra (bpf_programs, bpf_method) added to c: a program joins the
 * cell's of the same name, type and attach point (the second of a sample's equal ones joins
 * the second of the cell's), others are appended; the method becomes "mixed" when samples
 * differ. extra without bpf_programs adds nothing. Returns 0, -EINVAL with the reason in err
 * (a malformed entry), or -ENOMEM.
 */
int tb_cell_bpf_merge(struct tb_cell *c, const json_t *extra, char *err, size_t len);
/*
 * A result file's tracer_extra into c's programs and method (replacing them), every field
 * checked: ids, names within their sizes, counts >= 0 or null, at most TB_CELL_BPF_PROGS_MAX.
 * Returns 0, -EINVAL with "bpf_programs[i].key: why" in err, or -ENOMEM.
 */
int tb_cell_bpf_load(struct tb_cell *c, const json_t *extra, char *err, size_t len);
/*
 * c's tracer_extra as written: a copy of it with bpf_programs (the cell's, with ns_per_run,
 * runs_per_op and overhead_share) and bpf_method set when the cell has them. A new reference
 * (null for a cell without tracer_extra), or NULL on ENOMEM.
 */
json_t *tb_cell_extra_json(const struct tb_cell *c);

/*
 * What sits at file offset off of the ELF file path, as core/events.h names it ("uprobe:FN",
 * "uretprobe:FN" with ret, "usdt:PROVIDER:NAME"), into out: 0, or -errno when it cannot say
 * (host/elf-sites.h's tb_elf_site_name is one; the model itself reads no files).
 */
typedef int (*tb_elf_namer)(const char *path, uint64_t off, bool ret, char *out, size_t len);

/*
 * What c's tracer hooks, from where its BPF programs were found attached (host/bpf-account.h):
 * a tracepoint ("tracepoint:syscalls:sys_enter_getpid") or a raw one on the syscall or
 * scheduler tracepoints ("raw_tracepoint:sys_enter", tp_btf's "trace_raw_tp:sched_switch")
 * as core/events.h names it, and a uprobe or uretprobe ("uprobe:/path+0x1a0") as namer (may be
 * NULL: then none) names what sits there; one counted hook per program (each runs once per
 * occurrence), kind events, scope system (a program runs for every task; a pid filter is
 * inside it). Programs of type perf_event (all of them) are one sampling hook, "perf:event".
 * Returns 1 with h filled, 0 when c has no program or one attached elsewhere (an offset
 * namer cannot name, a kprobe, unknown: then nothing is added), or -ENOMEM.
 */
int tb_cell_bpf_hooks(const struct tb_cell *c, tb_elf_namer namer, struct tb_hooks *h);

#endif /* TB_BPF_PROGS_H */
