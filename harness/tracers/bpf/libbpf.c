// SPDX-License-Identifier: GPL-2.0
/*
 * What the bpf tracer's files share beneath them (bpf-tracer.h): libbpf's messages through our
 * log, a loaded program's id, the names of the attach types and probe bodies. It calls none of
 * them, so bpf.c, attach.c, bundled.c and object.c each lean on it and none on another's back.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <jansson.h>
#include "core/tb.h"
#include "host/armed.h"
#include "host/bpf-freeing.h"
#include "tracers/bpf/bpf-tracer.h"
#include "workloads/usercall.h"
#include "tracers/bpf/ringbuf-events.h"

const char *const tb_bpftr_attach_types[] = {
	"auto",	     "tp_btf",	     "raw_tp", "tracepoint", "fentry", "fexit", "kprobe",
	"kretprobe", "kprobe_multi", "uprobe", "uretprobe",  "usdt",   NULL,
};
const char *const tb_bpftr_bodies[] = {"empty", "count", "spin", NULL};

/* ---- libbpf's messages through our log -------------------------------------------------- */

/* While an attach type is tried (attach.c), libbpf's complaints are the expected answer. */
static bool quiet;

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	tb_vlog(level == LIBBPF_WARN && !quiet ? TB_LOG_WARN : TB_LOG_DEBUG, fmt, ap);
	return 0;
}

void tb_bpftr_log_init(void)
{
	static bool done;

	if (!done) {
		libbpf_set_print(libbpf_print);
		done = true;
	}
}

void tb_bpftr_log_quiet(bool on)
{
	quiet = on;
}

__u32 tb_bpftr_prog_id(struct bpf_program *prog)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	return bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len) ? 0 : info.id;
}
