// SPDX-License-Identifier: GPL-2.0
/*
 * The lttng-ust tracer's trace counted from LTTng's packet index (ctf-index.h).
 *
 * Why not babeltrace2 alone: it decodes every event into a message (about 0.2 us each here),
 * and it reads every byte of the trace back, which the consumer daemon has already dropped from
 * the page cache (it writes each packet out and advises POSIX_FADV_DONTNEED): counting a 1-s
 * sample of the usercall workload (12M events, 270 MB) took 2.1-2.7 s; reading the trace back
 * alone, even to step over each event by its header, 0.4-1.2 s. The index (index/<stream>.idx,
 * written by the consumer daemon beside each stream: per packet its offset, sizes, timestamps,
 * discarded-event count) is a few KB and stays cached. It has no event count, but every event
 * of the layout below is 22 bytes, or 30 with an extended header, so a packet's content is
 * 22 c + 8 e bytes beyond its 84-byte header, which fixes e modulo 11 and so c, once e < 11 is
 * known. One writer per buffer writes an extended header only for its buffer's first event and
 * after a gap of 2^32 ns since its last one (the header's u32 timestamp would wrap), so a packet
 * spanning less than 10 x 2^32 ns holds at most 10. Where that does not hold (several writer
 * threads, which can race for one header; a longer packet; a size that does not add up; no
 * index, or one that does not tile its stream file) the trace is refused (-EPROTO) and
 * babeltrace2 counts it. Why it is not a CTF reader: it knows one layout, checked in the
 * metadata first (every declaration it relies on, as LTTng-UST 2.13 writes it, one stream, one
 * clock in ns and one event with the usercall event's two 64-bit fields). tests/unit/
 * tracers-probe-types.c checks the count against babeltrace2's on real traces, one with
 * discarded events among them.
 *
 * The layout, every field little-endian and byte-aligned (each `align = 8`, in bits):
 *   packet header  magic u32, uuid[16], stream_id u32, stream_instance_id u64 (32 bytes)
 *   packet context timestamp_begin u64, timestamp_end u64, content_size u64 and packet_size
 *                  u64 (in bits), packet_seq_num u64, events_discarded u64, cpu_id u32
 *   event header   (event_header_large) id u16 and a u32 timestamp (6 bytes), or, extended,
 *                  id u16 65535, id u32, timestamp u64 (14 bytes)
 *   event payload  _a, _b: two 64-bit integers (16 bytes)
 * and the index (CTF index 1.1, big-endian): magic u32 0xc1f1dcc1, major u32 1, minor u32,
 * entry length u32, then per packet offset (bytes), packet_size, content_size (bits),
 * timestamp_begin, timestamp_end, events_discarded, stream_id, ... u64.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/tb.h"
#include "tracers/ctf-count.h"
#include "tracers/ctf-index.h"

#define META_MAGIC  0x75d11d57u
#define META_HDR    37 /* a metadata packet's header: magic, uuid, checksum, sizes, schemes */
#define META_MAX    (16u << 20)
#define PKT_HDR	    84 /* packet header (32) and context (52) */
#define EVENT_BYTES 22 /* header 6, payload 16 */
#define EXTRA_BYTES 8  /* an extended header's 14 against 6 */
#define IDX_MAGIC   0xc1f1dcc1u
#define IDX_HDR	    16
#define IDX_ENTRY   56 /* the fields read: up to stream_id */
#define IDX_MAX	    (64u << 20)
/* A packet of one writer spanning less than this holds fewer than 11 extended headers. */
#define SPAN_MAX_NS (10ull << 32)

/* The event's fields, as the metadata declares those of tracebench:usercall (tb-usercall-tp.h). */
#define FIELDS                                                                                    \
	"fields := struct { integer { size = 64; align = 8; signed = 1; encoding = none; base = " \
	"10; } _a; integer { size = 64; align = 8; signed = 1; encoding = none; base = 10; } _b; }"

/* What the metadata must declare, whitespace runs collapsed to one space (LTTng-UST 2.13). */
static const char *const declared[] = {
	"byte_order = le;",
	"typealias integer { size = 8; align = 8; signed = false; } := uint8_t;",
	"typealias integer { size = 16; align = 8; signed = false; } := uint16_t;",
	"typealias integer { size = 32; align = 8; signed = false; } := uint32_t;",
	"typealias integer { size = 64; align = 8; signed = false; } := uint64_t;",
	"typealias integer { size = 64; align = 8; signed = false; } := unsigned long;",
	"packet.header := struct { uint32_t magic; uint8_t uuid[16]; uint32_t stream_id; "
	"uint64_t stream_instance_id; };",
	"typealias integer { size = 32; align = 8; signed = false; map = clock.monotonic.value; "
	"} := uint32_clock_monotonic_t;",
	"typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; "
	"} := uint64_clock_monotonic_t;",
	"struct packet_context { uint64_clock_monotonic_t timestamp_begin; "
	"uint64_clock_monotonic_t timestamp_end; uint64_t content_size; uint64_t packet_size; "
	"uint64_t packet_seq_num; unsigned long events_discarded; uint32_t cpu_id; };",
	"struct event_header_large { enum : uint16_t { compact = 0 ... 65534, extended = 65535 } "
	"id; variant <id> { struct { uint32_clock_monotonic_t timestamp; } compact; struct { "
	"uint32_t id; uint64_clock_monotonic_t timestamp; } extended; } v; } align(8);",
	"stream { id = 0; event.header := struct event_header_large; packet.context := struct "
	"packet_context; };",
	"clock { name = \"monotonic\";", /* the one clock, in ns: the span's unit */
	"freq = 1000000000;",
};

/* The event's fields, as the metadata declares those of tracebench:usercall (tb-usercall-tp.h). */
#define FIELDS                                                                                    \
	"fields := struct { integer { size = 64; align = 8; signed = 1; encoding = none; base = " \
	"10; } _a; integer { size = 64; align = 8; signed = 1; encoding = none; base = 10; } _b; }"

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* How many times needle occurs in s as a whole word start (not inside an identifier). */
static size_t count_word(const char *s, const char *needle)
{
	size_t n = 0, len = strlen(needle);
	const char *p;

	for (p = strstr(s, needle); p; p = strstr(p + len, needle))
		n += p == s || !(p[-1] == '_' || p[-1] == '.' || (p[-1] >= 'a' && p[-1] <= 'z') ||
				 (p[-1] >= 'A' && p[-1] <= 'Z') || (p[-1] >= '0' && p[-1] <= '9'));
	return n;
}

/* The metadata's text: packetized (each packet's header skipped) or plain, whitespace runs
 * collapsed to one space, into a new string. 0, -EPROTO (said) or -errno. */
static int metadata_text(const char *trace, char **out, char *err, size_t len)
{
	char path[PATH_MAX + 16], *raw = NULL, *txt;
	size_t n, off = 0, o = 0;
	int ret;

	*out = NULL;
	snprintf(path, sizeof(path), "%s/metadata", trace);
	ret = tb_read_regular(path, META_MAX, &raw, &n);
	if (ret) {
		snprintf(err, len, "%s: %s", path, tb_input_strerror(ret));
		return ret;
	}
	txt = malloc(n + 1);
	if (!txt) {
		free(raw);
		return -ENOMEM;
	}
	while (off < n) {
		const unsigned char *h = (const unsigned char *)raw + off;
		size_t from = off, to = n;

		if (n - off >= META_HDR && le32(h) == META_MAGIC) {
			uint32_t content = le32(h + 24) / 8, size = le32(h + 28) / 8;

			if (content < META_HDR || content > size || size > n - off) {
				snprintf(err, len, "%s: a metadata packet at byte %zu does not fit",
					 path, off);
				ret = -EPROTO;
				break;
			}
			from = off + META_HDR;
			to = off + content;
			off += size;
		} else if (off) {
			snprintf(err, len, "%s: no metadata packet at byte %zu", path, off);
			ret = -EPROTO;
			break;
		} else {
			off = n; /* plain text */
		}
		for (; from < to; from++) {
			char c = raw[from];
			bool space = c == ' ' || c == '\t' || c == '\n' || c == '\r';

			if (!c)
				continue;
			if (space && (!o || txt[o - 1] == ' '))
				continue;
			txt[o++] = space ? ' ' : c;
		}
	}
	txt[o] = '\0';
	free(raw);
	if (ret)
		free(txt);
	else
		*out = txt;
	return ret;
}

/* The metadata declares the layout above, one stream, and event as its only event. */
static int check_metadata(const char *txt, const char *event, char *err, size_t len)
{
	char head[320]; /* the event's name: at most 255 (lttng-ust.c validates it) */
	const char *p;
	int used = 0;
	size_t i;

	for (i = 0; i < TB_ARRAY_SIZE(declared); i++) {
		if (!strstr(txt, declared[i])) {
			snprintf(err, len, "its metadata lacks `%.60s...`", declared[i]);
			return -EPROTO;
		}
	}
	if (count_word(txt, "stream {") != 1 || count_word(txt, "event {") != 1 ||
	    count_word(txt, "clock {") != 1) {
		snprintf(err, len, "its metadata declares other than one stream, event and clock");
		return -EPROTO;
	}
	/* the only event (whatever its id, every record is one of it), and its fields */
	snprintf(head, sizeof(head), "event { name = \"%s\"; id = ", event);
	p = strstr(txt, head);
	if (p)
		sscanf(p + strlen(head), "%*u; stream_id = 0; loglevel = %*d;%n", &used);
	if (!p || !used ||
	    strncmp(p + strlen(head) + used, " " FIELDS "; };", strlen(" " FIELDS "; };"))) {
		snprintf(err, len,
			 "its metadata has no event \"%s\" of stream 0 with the fields "
			 "of tracebench:usercall",
			 event);
		return -EPROTO;
	}
	return 0;
}

static uint64_t be64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

/*
 * A packet's events from its content size (bytes, header included), when it holds at most 10
 * extended headers: 22 c + 8 e bytes of events, e fixed modulo 11. False when none adds up.
 */
static bool sized_count(uint64_t content, uint64_t *events, uint64_t *extended)
{
	uint64_t bytes = content - PKT_HDR, e;

	for (e = 0; e <= 10 && EXTRA_BYTES * e <= bytes; e++) {
		if ((bytes - EXTRA_BYTES * e) % EVENT_BYTES)
			continue;
		*events = (bytes - EXTRA_BYTES * e) / EVENT_BYTES;
		*extended = e;
		return e <= *events;
	}
	return false;
}

/*
 * The packets of a stream file of size bytes as its index (idx, n bytes) lists them, each
 * counted from its size. 0, or -EPROTO with what did not add up in what.
 */
static int index_stream(uint64_t size, const unsigned char *idx, size_t n,
			struct tb_ctf_indexed *out, char *what, size_t len)
{
	uint64_t elen, off = 0, psize, content, c, e;
	const unsigned char *x;
	size_t i;

	if (n < IDX_HDR || be64(idx) != ((uint64_t)IDX_MAGIC << 32 | 1) ||
	    (elen = be64(idx + 8) & 0xffffffffu) < IDX_ENTRY || (n - IDX_HDR) % elen) {
		snprintf(what, len, "not a CTF index 1.x");
		return -EPROTO;
	}
	for (i = 0; i < (n - IDX_HDR) / elen; i++) {
		x = idx + IDX_HDR + i * elen;
		psize = be64(x + 8);
		content = be64(x + 16);
		/* in order, tiling the file, one stream, each packet's size adding up */
		if (be64(x) != off || !psize || psize % 8 || psize / 8 > size - off ||
		    content % 8 || content / 8 < PKT_HDR || content > psize || be64(x + 48) ||
		    be64(x + 32) < be64(x + 24) || be64(x + 32) - be64(x + 24) >= SPAN_MAX_NS ||
		    !sized_count(content / 8, &c, &e)) {
			snprintf(what, len,
				 "the index entry of the packet at byte %llu does not settle its "
				 "count (order, sizes, stream or span)",
				 (unsigned long long)off);
			return -EPROTO;
		}
		out->events += (int64_t)c;
		out->extended += (int64_t)e;
		out->packets++;
		off += psize / 8;
	}
	if (off != size) {
		snprintf(what, len, "its index ends at byte %llu of %llu", (unsigned long long)off,
			 (unsigned long long)size);
		return -EPROTO;
	}
	return 0;
}

/* Every stream file of the trace directory trace (its regular files but the metadata). */
static int index_trace(const char *trace, struct tb_ctf_indexed *out, char *err, size_t len)
{
	char path[PATH_MAX + NAME_MAX + 16], what[128] = "";
	unsigned char *idx = NULL;
	struct dirent *de;
	struct stat st;
	int ret = 0;
	size_t n;
	DIR *d;

	d = opendir(trace);
	if (!d) {
		ret = -errno;
		snprintf(err, len, "%s: %s", trace, strerror(-ret));
		return ret;
	}
	while (!ret && (de = readdir(d))) {
		snprintf(path, sizeof(path), "%s/%s", trace, de->d_name);
		if (de->d_name[0] == '.' || !strcmp(de->d_name, "metadata") || lstat(path, &st) ||
		    S_ISDIR(st.st_mode)) /* index/ */
			continue;
		if (!S_ISREG(st.st_mode)) {
			snprintf(err, len, "%s: not a regular file", path);
			ret = -EPROTO;
			break;
		}
		snprintf(path, sizeof(path), "%s/index/%s.idx", trace, de->d_name);
		ret = tb_read_regular(path, IDX_MAX, (char **)&idx, &n);
		if (ret) {
			snprintf(err, len, "%s: %s", path, tb_input_strerror(ret));
			ret = ret == -ENOENT ? -EPROTO : ret; /* no index: babeltrace2's */
			break;
		}
		ret = index_stream((uint64_t)st.st_size, idx, n, out, what, sizeof(what));
		free(idx);
		if (ret)
			snprintf(err, len, "%s: %s", path, what);
		out->streams++;
	}
	closedir(d);
	return ret;
}

int tb_ctf_index_count(const char *dir, const char *event, bool one_writer,
		       struct tb_ctf_indexed *out, char *err, size_t len)
{
	char(*traces)[PATH_MAX] = NULL, why[256];
	size_t i, n;
	char *txt;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = tb_ctf_find(dir, &traces, &n, err, len);
	if (!ret && !one_writer) {
		snprintf(err, len,
			 "several threads wrote the trace below %s: its sizes do not settle "
			 "its count",
			 dir);
		ret = -EPROTO;
	}
	for (i = 0; !ret && i < n; i++) {
		ret = metadata_text(traces[i], &txt, err, len);
		if (ret)
			break;
		ret = check_metadata(txt, event, why, sizeof(why));
		free(txt);
		if (ret) {
			snprintf(err, len,
				 "the trace %s is not the layout its index count knows: %s",
				 traces[i], why);
			break;
		}
		ret = index_trace(traces[i], out, err, len);
		out->traces++;
	}
	free(traces);
	return ret;
}
