/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libperf plumbing that is not a tracer's: libperf's initialisation and log, the evlist
 * deletion that does not leak maps, close-on-exec of perf fds, the can-we-open probe, the
 * kernel's perf limits and the accounting of ring-buffer records. The perf tracers
 * (tracers/perf-common.h includes this) and the explain profiler (explain/profile.c) share it;
 * it lives in host/ because both stages may include host/ without an arrow running up.
 */
#ifndef TB_HOST_PERF_H
#define TB_HOST_PERF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct perf_evlist;

/*
 * libperf 6.1 (what tools/build-libperf.sh builds) has perf_evsel__delete() forget the map
 * references perf_evlist__set_maps() gave each evsel; later versions drop them themselves.
 * Build with -DTB_LIBPERF_EVSEL_PUTS_MAPS=1 against such a version.
 */
#ifndef TB_LIBPERF_EVSEL_PUTS_MAPS
#define TB_LIBPERF_EVSEL_PUTS_MAPS 0
#endif

/* perf_evlist__delete() (unmap, close, delete the evsels) without leaking their maps. */
void tb_perf_evlist_delete(struct perf_evlist *evlist);

/* Call libperf_init() once per process (it also sets libperf's page size, needed by mmap). */
void tb_perf_init(void);

/*
 * Mark every perf_event fd of this process close-on-exec. libperf opens them without
 * PERF_FLAG_FD_CLOEXEC, and a program the harness executes later must not keep them alive.
 */
void tb_perf_cloexec_all(void);
/* Number of perf_event fds open in this process (for leak checks), or -errno. */
int tb_perf_count_fds(void);

/*
 * Can this process open perf events here? Tries a task-clock counter on itself. Returns 0, or
 * -errno with the reason (and kernel.perf_event_paranoid) in why.
 */
int tb_perf_probe(char *why, size_t len);

/* kernel.perf_event_max_sample_rate and kernel.perf_cpu_time_max_percent, or -errno. */
int64_t tb_perf_max_sample_rate(void);
int64_t tb_perf_cpu_time_max_percent(void);
/* kernel.perf_event_max_stack (deepest call chain a sample may carry), or -errno. */
int64_t tb_perf_max_stack(void);
/* kernel.perf_event_paranoid, or -errno (a negative setting reads as itself: -1 is "all"). */
int64_t tb_perf_paranoid(void);

/* What a consumer saw in the ring buffers, by record type. */
struct tb_perf_rec_stats {
	uint64_t samples;      /* PERF_RECORD_SAMPLE */
	uint64_t lost;	       /* sum of PERF_RECORD_LOST's lost: records the kernel dropped */
	uint64_t lost_records; /* number of PERF_RECORD_LOST records */
	uint64_t lost_samples; /* sum of PERF_RECORD_LOST_SAMPLES's lost */
	uint64_t throttle;     /* PERF_RECORD_THROTTLE: the kernel lowered the sample rate */
	uint64_t unthrottle;   /* PERF_RECORD_UNTHROTTLE */
	uint64_t other;	       /* any other record type */
	uint64_t bytes;	       /* sum of header.size */
};

/*
 * Read every record available in every ring buffer of evlist, handing each to fn (in each
 * buffer's order) before it is consumed.
 */
void tb_perf_evlist_drain(struct perf_evlist *evlist, void (*fn)(void *ctx, const void *rec),
			  void *ctx);

/*
 * Account one record (starting with a struct perf_event_header, header.size bytes readable).
 * Returns 0, or -EINVAL for a record too short for its type (it is then counted in other).
 */
int tb_perf_rec_account(struct tb_perf_rec_stats *s, const void *rec);

#endif /* TB_HOST_PERF_H */
