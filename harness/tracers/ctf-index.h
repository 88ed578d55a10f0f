/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The lttng-ust tracer's own trace counted from LTTng's packet index (each packet's sizes and
 * span), never read back: exact for one layout only, the one LTTng-UST 2.13 writes for a
 * channel holding the usercall workload's event (workloads/helpers/ust/: two 64-bit integers),
 * checked against the trace's metadata first, when one thread wrote it. Anything else is left
 * to babeltrace2 (ctf-count.h).
 */
#ifndef TB_CTF_INDEX_H
#define TB_CTF_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tb_ctf_indexed {
	int64_t events;	  /* event records */
	int64_t packets;  /* packets */
	int64_t extended; /* of the events, those with an extended header (a full timestamp) */
	int64_t streams;  /* stream files */
	int64_t traces;	  /* traces (directories with a metadata file) */
};

/*
 * Count the records of event (its provider:name) in every CTF trace below dir from the
 * streams' indexes. one_writer: one thread wrote all of them (a single-threaded workload, the
 * only process tracked); without it the sizes cannot settle the count. Returns 0 and *out;
 * -ENOENT when there is no trace below dir; -EPROTO when a trace is not the layout this count
 * knows, has no usable index, or a packet's size does not settle its count (count it with
 * tb_ctf_count then); another -errno when a file cannot be read. err holds the reason.
 */
int tb_ctf_index_count(const char *dir, const char *event, bool one_writer,
		       struct tb_ctf_indexed *out, char *err, size_t len);

#endif /* TB_CTF_INDEX_H */
