/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The bpf tracer's own header, shared by its files only (nothing outside tracers/bpf/ includes
 * it): the configuration, the instance's state, and what each file gives the others.
 *   bpf.c      the options, the ops table, the setup/start/stop/collect/teardown flow and
 *              the crash-safety record
 *   reader.c   the reader thread over the ring buffer or the perf buffer, and its file sink
 *   attach.c   the attach types of program = probe: their targets, support probes, variants,
 *              validation and hooks
 *   bundled.c  the bundled programs: their skeletons, maps and figures, their hooks
 *   object.c   a user's own object: opening, the rodata pid knob, its hooks
 */
#ifndef TB_BPF_TRACER_H
#define TB_BPF_TRACER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <bpf/libbpf.h>
#include <jansson.h>

#include "core/events.h"
#include "core/options.h"
#include "tracers/tracer.h"

enum {
	PROG_SYSCALL_COUNT,
	PROG_READ_LATENCY,
	PROG_RUNQ_LATENCY,
	PROG_RINGBUF_EVENTS,
	PROG_PROBE,
	PROG_OBJECT,
};
/* workload: the writable targ_live, rearmable; workload-rodata: the folded targ_tgid (tb-bpf.h) */
enum { PIDF_WORKLOAD, PIDF_NONE, PIDF_RODATA };
/* auto, tp_btf and raw_tp for every bundled program; the rest with program = probe only. */
enum {
	ATTACH_AUTO,
	ATTACH_TP_BTF,
	ATTACH_RAW_TP,
	ATTACH_TRACEPOINT,
	ATTACH_FENTRY,
	ATTACH_FEXIT,
	ATTACH_KPROBE,
	ATTACH_KRETPROBE,
	ATTACH_KPROBE_MULTI,
	ATTACH_UPROBE,
	ATTACH_URETPROBE,
	ATTACH_USDT,
	ATTACH_N,
};
enum { BODY_EMPTY, BODY_COUNT, BODY_SPIN };
enum { WAKEUP_ADAPTIVE, WAKEUP_NONE, WAKEUP_EACH };
enum { OUTPUT_RINGBUF, OUTPUT_PERFBUF };
enum { CONSUMER_DISCARD, CONSUMER_FILE };

/* The choices' names by the enums above (bpf.c, with the options). */
extern const char *const tb_bpftr_programs[];
extern const char *const tb_bpftr_attach_types[];
extern const char *const tb_bpftr_bodies[];
extern const char *const tb_bpftr_wakeups[];
extern const char *const tb_bpftr_outputs[];
extern const char *const tb_bpftr_consumers[];

struct bpf_cfg {
	int program;
	char *object;
	struct tb_strlist programs;
	int pid_filter;
	uint64_t ringbuf_size;
	bool stats;
	int attach;
	int body;
	uint64_t spin_ns; /* body = spin: the time each hit spins */
	char *target;
	char *binary;
	int64_t top;
	int64_t syscall_nr;
	char *rodata_pid;
	char *syscall;
	int wakeup;
	uint64_t poll_ns;
	int64_t payload;
	int output;
	uint64_t perf_watermark;
	int consumer;  /* ringbuf-events: what the reader does with a record */
	bool keep_raw; /* consumer = file: the file stays after the sample */
};

struct bpf_priv;

/* A bundled program: its skeleton behind three functions, and how its maps become figures. */
struct bundled {
	/* tgid: the folded filter (0: every process); rearm: filter on targ_live instead */
	int (*open)(struct bpf_priv *p, __u32 tgid, bool rearm);
	int (*load)(struct bpf_priv *p); /* and p->live pointed at the loaded targ_live */
	void (*destroy)(void *skel);
	int (*collect)(struct bpf_priv *p, const struct bpf_cfg *cfg, struct tb_tracer_stats *st,
		       json_t *extra);
};

struct prog_stat {
	struct bpf_program *prog;
	__u32 id;      /* kernel program id, in the crash-safety record while loaded */
	__u32 link_id; /* id of its link while attached (0: none or unknown) */
	__u64 cnt0, ns0, cnt1, ns1;
};

/*
 * consumer = file: the records the reader consumes, appended to a buffer and written to
 * <dir>/<name>-<sample>.raw when it fills; opened at start, flushed and closed (deleted
 * unless keep-raw) when the reader stops, so a parked tracer holds no file.
 */
struct bpf_sink {
	int fd; /* -1: none (discard, or between windows) */
	const struct tb_dir *dir;
	char name[256];
	char *buf;
	size_t len;
	uint64_t bytes; /* written to the file in the window */
	int err;	/* the first write error (-errno): the rest is not written */
	bool keep;
};

struct bpf_priv {
	const struct bundled *b; /* NULL: a user's object */
	void *skel;
	struct bpf_object *obj; /* the skeleton's, or ours for a user's object */
	struct bpf_link **links;
	struct prog_stat *ps; /* autoloaded programs */
	size_t nps, nlinks;
	int stats_fd;
	bool use_btf;
	/* program = probe: the attach type in use, its target and (user types) the ELF file */
	int attach;
	char target[256];
	char binary[4096];
	pid_t pid;	      /* user types: the process probed, -1 every process */
	bool windowed;	      /* a start..stop window happened: collect has figures */
	__u32 tgid;	      /* the workload process, whose events are attributed; 0: none */
	volatile __u32 *live; /* a bundled program's targ_live in its mmapped .bss (tb-bpf.h) */
	/* A bundled program's filter is the target's cgroup (targ_cgroup: a server's tree), and
	 * its targ_live_cgid in the .bss */
	bool by_cgroup;
	volatile __u64 *live_cgid;
	/* ring-buffer reader */
	struct ring_buffer *rb;
	struct perf_buffer *pb; /* output = perfbuf, instead of rb */
	pthread_t thr;
	bool thr_live;
	atomic_bool thr_stop;
	int cpu;
	int poll_ms;
	uint64_t consumed;
	uint64_t consumed_mine;	 /* records of p->tgid */
	uint64_t consumed_bytes; /* the records' sizes, summed */
	double cpu_s;
	struct bpf_sink sink;
};

/* ---- bpf.c ---- */

/* libbpf's messages through our log (once per process). */
void tb_bpftr_log_init(void);
/* While an attach type is tried, libbpf's warnings are the expected answer: debug only. */
void tb_bpftr_log_quiet(bool quiet);
/* The kernel id of a loaded program; 0 when the kernel does not say. */
__u32 tb_bpftr_prog_id(struct bpf_program *prog);

/* ---- reader.c ---- */

/* The reader thread over p's ring buffer or perf buffer, counts zeroed, with consumer = file
 * its file opened in t->dir first; stop joins it, leaves its CPU time in p->cpu_s and closes
 * the file (deleted unless keep-raw). 0 or -errno, said (stop: the file's write error). */
int tb_bpftr_reader_start(struct tb_tracer *t, struct bpf_priv *p);
int tb_bpftr_reader_stop(struct bpf_priv *p);
/* What waits in the buffer, consumed now: records, or -errno (0 without a buffer). */
int tb_bpftr_reader_consume(struct bpf_priv *p);
/* One ring_buffer consumer over every ring-buffer map of p's object. 0 or -errno, said. */
int tb_bpftr_open_ringbufs(struct tb_tracer *t, struct bpf_priv *p);
/* output = perfbuf: a perf buffer over the `pevents` map. 0 or -errno, said. */
int tb_bpftr_open_perfbuf(struct tb_tracer *t, struct bpf_priv *p, const struct bpf_cfg *cfg);
/* ringbuf-events: the bytes of one record as the reader gets it (a perf buffer's padded). */
size_t tb_bpftr_record_bytes(const struct bpf_cfg *cfg);
/* consumer = file: the window's file into st->disk_bytes and extra (file, file_kept,
 * file_bytes); every consumer's name into extra. */
void tb_bpftr_sink_figures(const struct bpf_priv *p, const struct bpf_cfg *cfg,
			   struct tb_tracer_stats *st, json_t *extra);
/* est_write_bytes (tracer.h): a sample's records x their bytes with consumer = file, else 0. */
uint64_t tb_bpftr_est_write_bytes(const struct tb_tracer *t, bool *kept);

/* ---- attach.c ---- */

/* Can a BTF-typed raw tracepoint program (tp_btf/<tp>) be loaded here? Loads nothing lasting. */
bool tb_bpftr_tp_btf_usable(const char *tp);
/* The tracer's supported(): kernel BTF and a loadable raw tracepoint program. */
int tb_bpftr_supported(char *why, size_t len);
/* supported_cfg(): supported(), and for program = probe its attach type tried here. */
int tb_bpftr_supported_cfg(const void *vcfg, char *why, size_t len);
/* variants(): every attach type of program = probe, tried here. */
size_t tb_bpftr_variants(struct tb_tracer_variant *v, size_t max);
/* program = probe: a target of the shape its type needs, a binary only for user types. 0 or
 * -EINVAL with the reason in err. */
int tb_bpftr_probe_validate(const struct bpf_cfg *cfg, char *err, size_t len);
/* program = probe, at setup: the attach type, target, file and pid into p, and only the
 * program of (attach, body) set to load. Returns 0 or -errno, said. */
int tb_bpftr_probe_prepare(struct tb_tracer *t, struct bpf_priv *p, const struct bpf_cfg *cfg);
/* program = probe: the process its attachments name (pid, the default binary) from t->target. */
void tb_bpftr_probe_point(const struct tb_tracer *t, struct bpf_priv *p, const struct bpf_cfg *cfg);
/* Attach p's probe program prog as p says (type, target, pid, binary); NULL with errno set. */
struct bpf_link *tb_bpftr_probe_attach(struct bpf_priv *p, struct bpf_program *prog);
/* program = probe: the one event it runs on, by the proof's names (hooks()). */
int tb_bpftr_probe_hooks(const struct bpf_cfg *cfg, struct tb_hooks *h);

/* ---- bundled.c ---- */

/* Open the bundled program of cfg (its skeleton), choose its attach types, size its ring
 * buffers; program = probe goes on to tb_bpftr_probe_prepare. Returns 0 or -errno, said. */
int tb_bpftr_bundled_open(struct tb_tracer *t, struct bpf_priv *p, const struct bpf_cfg *cfg,
			  __u32 tgid);
/* The bundled programs' own checks (read-latency's syscall). 0 or -EINVAL with err. */
int tb_bpftr_bundled_validate(const struct bpf_cfg *cfg, char *err, size_t len);
/* Zero every map of a bundled program (but the ring buffer) so a window starts from nothing. */
int tb_bpftr_bundled_clear(struct bpf_priv *p);
/* Every map of a bundled program (but the ring buffer) empty or zero, as a fresh load's: 0,
 * -ENOTEMPTY naming the map, or -errno. */
int tb_bpftr_bundled_check_clear(struct tb_tracer *t, struct bpf_priv *p);
/* A bundled program's figures of the window: attach, drops as lost, its maps into st/extra. */
int tb_bpftr_bundled_collect(struct bpf_priv *p, const struct bpf_cfg *cfg,
			     struct tb_tracer_stats *st, json_t *extra);
/* What each bundled program but probe runs on and counts (hooks()). */
int tb_bpftr_bundled_hooks(const struct bpf_cfg *cfg, struct tb_hooks *h);

/* ---- object.c ---- */

/* program = object: the file, readable, parsed, and every name of `programs` in it. 0 or
 * -EINVAL with the reason in err. */
int tb_bpftr_object_validate(const struct bpf_cfg *cfg, char *err, size_t len);
/* Open a user's object into p->obj: the chosen programs to load, the pid knob set to tgid
 * (0: none). Returns 0 or -errno, said. */
int tb_bpftr_object_open(struct tb_tracer *t, struct bpf_priv *p, const struct bpf_cfg *cfg,
			 __u32 tgid);
/* A user's object: every autoloaded program's section is a hook, and its runs its events. */
int tb_bpftr_object_hooks(const struct bpf_cfg *cfg, struct tb_hooks *h);

#endif /* TB_BPF_TRACER_H */
