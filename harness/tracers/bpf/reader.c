// SPDX-License-Identifier: GPL-2.0
/*
 * The bpf tracer's reader (bpf-tracer.h): one thread, pinned to the harness's consumer CPU,
 * draining the object's BPF ring buffers or, with output = perfbuf, its per-CPU perf buffers;
 * it counts records, their bytes and the workload's share, and reads its own CPU time at stop.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "core/tb.h"
#include "core/thread.h"
#include "tracers/bpf/bpf-tracer.h"

static int on_record(void *ctx, void *data, size_t size)
{
	struct bpf_priv *p = ctx;
	__u32 tgid;

	p->consumed++;
	p->consumed_bytes += size;
	/* bundled ringbuf-events records carry the tgid first (copied: a perf buffer's raw
	 * record is only 4-byte aligned); a user's object's are its own */
	if (p->b && size >= sizeof(tgid) && p->tgid) {
		memcpy(&tgid, data, sizeof(tgid));
		p->consumed_mine += tgid == p->tgid;
	}
	return 0;
}

/* A perf buffer's sample: the raw record after its header and size (perf pads it to 8). */
static enum bpf_perf_event_ret on_perf_event(void *ctx, int cpu, struct perf_event_header *h)
{
	struct raw {
		struct perf_event_header h;
		__u32 size;
		char data[];
	} *s = (struct raw *)h;

	(void)cpu;
	/* PERF_RECORD_LOST repeats what the program's failed output already counted (drops) */
	if (h->type == PERF_RECORD_SAMPLE)
		on_record(ctx, s->data, s->size);
	return LIBBPF_PERF_EVENT_CONT;
}

/* The reader over the ring buffer or the perf buffer, whichever the object has. */
static int reader_poll(struct bpf_priv *p, int ms)
{
	return p->rb ? ring_buffer__poll(p->rb, ms) : perf_buffer__poll(p->pb, ms);
}

int tb_bpftr_reader_consume(struct bpf_priv *p)
{
	if (p->rb)
		return ring_buffer__consume(p->rb);
	return p->pb ? perf_buffer__consume(p->pb) : 0;
}

static void *reader(void *arg)
{
	struct bpf_priv *p = arg;
	struct timespec ts;
	int r;

	while (!atomic_load(&p->thr_stop)) {
		r = reader_poll(p, p->poll_ms);
		if (r < 0 && r != -EINTR) {
			tb_err("bpf: ring buffer poll: %s", strerror(-r));
			break;
		}
		/* Timed out: without wakeups (ringbuf-wakeup = none) this is how records arrive. */
		if (!r)
			tb_bpftr_reader_consume(p);
	}
	/* Programs are detached by now: whatever is left is the last of the window. */
	tb_bpftr_reader_consume(p);
	if (!clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		p->cpu_s = ts.tv_sec + ts.tv_nsec / 1e9;
	return NULL;
}

int tb_bpftr_reader_start(struct bpf_priv *p)
{
	pthread_attr_t attr;
	cpu_set_t set;
	int err;

	p->consumed = p->consumed_mine = p->consumed_bytes = 0;
	p->cpu_s = 0;
	atomic_store(&p->thr_stop, false);
	pthread_attr_init(&attr);
	if (p->cpu >= 0) {
		CPU_ZERO(&set);
		CPU_SET(p->cpu, &set);
		pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	}
	err = pthread_create(&p->thr, &attr, reader, p);
	pthread_attr_destroy(&attr);
	if (err) {
		tb_err("bpf: starting the ring-buffer reader: %s", strerror(err));
		return -err;
	}
	p->thr_live = true;
	return 0;
}

void tb_bpftr_reader_stop(struct bpf_priv *p)
{
	if (!p->thr_live)
		return;
	tb_thread_stop(p->thr, &p->thr_stop);
	p->thr_live = false;
}

/* One ring_buffer consumer over every ring-buffer map of the object. */
int tb_bpftr_open_ringbufs(struct tb_tracer *t, struct bpf_priv *p)
{
	struct bpf_map *m;
	int r = 0;

	for (m = bpf_object__next_map(p->obj, NULL); m; m = bpf_object__next_map(p->obj, m)) {
		if (bpf_map__type(m) != BPF_MAP_TYPE_RINGBUF)
			continue;
		if (!p->rb)
			p->rb = ring_buffer__new(bpf_map__fd(m), on_record, p, NULL);
		else if (ring_buffer__add(p->rb, bpf_map__fd(m), on_record, p))
			r = -errno;
		if (!p->rb || r) {
			r = r ? r : (errno ? -errno : -ENOMEM);
			tb_err("%s: ring buffer %s: %s", t->name, bpf_map__name(m), strerror(-r));
			return r;
		}
	}
	return 0;
}

/* output = perfbuf: one perf buffer of ringbuf-size per CPU over the `pevents` map, woken each
 * record (perfbuf-watermark = 0) or once that many bytes wait. */
int tb_bpftr_open_perfbuf(struct tb_tracer *t, struct bpf_priv *p, const struct bpf_cfg *cfg)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_BPF_OUTPUT,
		.sample_type = PERF_SAMPLE_RAW,
		.sample_period = 1,
	};
	struct bpf_map *m = bpf_object__find_map_by_name(p->obj, "pevents");
	int r;

	if (!m) {
		tb_err("%s: output = perfbuf: the program has no pevents map", t->name);
		return -ENOENT;
	}
	if (cfg->perf_watermark) {
		attr.watermark = 1;
		attr.wakeup_watermark = (__u32)cfg->perf_watermark;
	} else {
		attr.wakeup_events = 1;
	}
	p->pb = perf_buffer__new_raw(bpf_map__fd(m), cfg->ringbuf_size / getpagesize(), &attr,
				     on_perf_event, p, NULL);
	if (!p->pb) {
		r = errno ? -errno : -ENOMEM;
		tb_err("%s: perf buffer %s: %s", t->name, bpf_map__name(m), strerror(-r));
		return r;
	}
	return 0;
}
