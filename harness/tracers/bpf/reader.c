// SPDX-License-Identifier: GPL-2.0
/*
 * The bpf tracer's reader (bpf-tracer.h): one thread, pinned to the harness's consumer CPU,
 * draining the object's BPF ring buffers or, with output = perfbuf, its per-CPU perf buffers;
 * it counts records, their bytes and the workload's share, and reads its own CPU time at stop.
 * With consumer = file it also writes every record it consumes, raw, through a buffer, to a
 * file in the tracer's directory (the sink), as ftrace's stream consumer writes raw pages.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "core/io.h"
#include "core/outdir.h"
#include "core/tb.h"
#include "core/thread.h"
#include "tracers/bpf/bpf-tracer.h"
#include "tracers/bpf/ringbuf-events.h"

const char *const tb_bpftr_consumers[] = {"discard", "file", NULL};

/* The sink's buffer: written when full, so a record costs a copy and a write() every 64 KiB
 * (2,730 records of the default 24 bytes), as the stream consumer writes a page at a time. */
#define SINK_BUF (64 * 1024)

/* ---- the file sink (consumer = file) ----------------------------------------------------- */

static void sink_flush(struct bpf_sink *s)
{
	int r;

	if (!s->len || s->err)
		return;
	r = tb_write_full(s->fd, s->buf, s->len);
	if (r)
		s->err = r;
	else
		s->bytes += s->len;
	s->len = 0;
}

/* A record into the buffer; after the first write error nothing more is written. */
static void sink_put(struct bpf_sink *s, const void *data, size_t size)
{
	if (s->fd < 0 || s->err)
		return;
	if (s->len + size > SINK_BUF)
		sink_flush(s);
	if (size > SINK_BUF) { /* never a bundled record (1 KiB at most): written as it is */
		if (!s->err)
			s->err = tb_write_full(s->fd, data, size);
		if (!s->err)
			s->bytes += size;
		return;
	}
	memcpy(s->buf + s->len, data, size);
	s->len += size;
}

/* <dir>/<name>-<sample>.raw, through the tracer's directory and never a link (core/outdir.h):
 * a fresh file per sample, also for a kept tracer (its last one was closed at stop). */
static int sink_open(struct tb_tracer *t, struct bpf_sink *s)
{
	const struct bpf_cfg *cfg = t->cfg;

	s->bytes = 0;
	s->len = 0;
	s->err = 0;
	if (cfg->consumer != CONSUMER_FILE)
		return 0;
	if (!t->dir) {
		tb_err("%s: consumer = file: no directory for its file", t->name);
		return -EINVAL;
	}
	snprintf(s->name, sizeof(s->name), "%.*s-%u.raw", (int)sizeof(s->name) - 16, t->name,
		 t->sample);
	s->dir = t->dir;
	s->keep = cfg->keep_raw;
	s->buf = malloc(SINK_BUF);
	if (!s->buf)
		return -ENOMEM;
	s->fd = tb_dir_open_output(t->dir, s->name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (s->fd >= 0)
		return 0;
	free(s->buf);
	s->buf = NULL;
	return s->fd; /* said, naming the file */
}

/* After the reader's join: the rest written, the file closed, deleted unless keep-raw (a raw
 * file grows to hundreds of MB a run: written, that is the measured cost, and counted). */
static int sink_close(struct bpf_sink *s)
{
	int r;

	if (s->fd < 0)
		return 0;
	sink_flush(s);
	if (close(s->fd) && !s->err)
		s->err = -errno;
	s->fd = -1;
	free(s->buf);
	s->buf = NULL;
	r = s->err;
	if (r)
		tb_err("bpf: consumer = file: writing %s/%s: %s", s->dir->path, s->name,
		       strerror(-r));
	if (!s->keep)
		tb_dir_remove(s->dir, s->name); /* says why it failed, naming the file */
	return r;
}

size_t tb_bpftr_record_bytes(const struct bpf_cfg *cfg)
{
	size_t n = cfg->payload ? (size_t)cfg->payload : sizeof(struct rb_event);

	/* perf pads a raw sample (its u32 size and the data) to 8 bytes: the reader gets both */
	return cfg->output == OUTPUT_PERFBUF ? (n + 4 + 7) / 8 * 8 - 4 : n;
}

void tb_bpftr_sink_figures(const struct bpf_priv *p, const struct bpf_cfg *cfg,
			   struct tb_tracer_stats *st, json_t *extra)
{
	const struct bpf_sink *s = &p->sink;
	char path[PATH_MAX + sizeof(s->name)];

	json_object_set_new(extra, "consumer", json_string(tb_bpftr_consumers[cfg->consumer]));
	if (cfg->consumer != CONSUMER_FILE || !s->dir)
		return;
	st->disk_bytes = (int64_t)s->bytes;
	snprintf(path, sizeof(path), "%s/%s", s->dir->path, s->name);
	json_object_set_new(extra, "file", json_string(path));
	json_object_set_new(extra, "file_kept", json_boolean(s->keep));
	json_object_set_new(extra, "file_bytes", json_integer((json_int_t)s->bytes));
}

uint64_t tb_bpftr_est_write_bytes(const struct tb_tracer *t, bool *kept)
{
	const struct bpf_cfg *cfg = t->cfg;
	double per_op = 0;
	size_t i;

	*kept = cfg->keep_raw;
	if (cfg->consumer != CONSUMER_FILE)
		return 0;
	for (i = 0; i < t->nexpect; i++) {
		/* unknown: nothing claimed, as ftrace's stream does */
		if (!isfinite(t->expect[i].per_op))
			return 0;
		/* An approximate count may be twice the expected (model/proof.h). */
		per_op += t->expect[i].per_op * (t->expect[i].approx ? 2 : 1);
	}
	return (uint64_t)((double)t->sample_ops * (t->threads ? t->threads : 1) * per_op *
			  (double)tb_bpftr_record_bytes(cfg));
}

/* ---- the reader -------------------------------------------------------------------------- */

static int on_record(void *ctx, void *data, size_t size)
{
	struct bpf_priv *p = ctx;
	__u32 tgid;

	p->consumed++;
	p->consumed_bytes += size;
	sink_put(&p->sink, data, size);
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

int tb_bpftr_reader_start(struct tb_tracer *t, struct bpf_priv *p)
{
	pthread_attr_t attr;
	cpu_set_t set;
	int err;

	p->consumed = p->consumed_mine = p->consumed_bytes = 0;
	p->cpu_s = 0;
	err = sink_open(t, &p->sink);
	if (err)
		return err;
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
		sink_close(&p->sink);
		return -err;
	}
	p->thr_live = true;
	return 0;
}

int tb_bpftr_reader_stop(struct bpf_priv *p)
{
	if (p->thr_live)
		tb_thread_stop(p->thr, &p->thr_stop);
	p->thr_live = false;
	return sink_close(&p->sink);
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
