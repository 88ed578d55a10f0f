/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Counting what a CTF trace on disk holds (libbabeltrace2), for the lttng-ust tracer: LTTng
 * keeps no count of the events it recorded, only of those it discarded, so the proof of tracing
 * reads the trace back.
 */
#ifndef TB_CTF_COUNT_H
#define TB_CTF_COUNT_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#define TB_CTF_MAX_TRACES 64

struct tb_ctf_counts {
	int64_t events;	   /* event records */
	int64_t discarded; /* events the tracer said it discarded (discarded-events messages) */
	int64_t traces;	   /* CTF traces found (directories with a metadata file) */
};

/*
 * The CTF traces below dir (directories holding a `metadata` file, at most TB_CTF_MAX_TRACES)
 * into a new array *paths (the caller frees it) of *n. Returns 0, or -errno with the reason in
 * err (none below dir: -ENOENT).
 */
int tb_ctf_find(const char *dir, char (**paths)[PATH_MAX], size_t *n, char *err, size_t len);
/*
 * Find every CTF trace below dir (a directory holding a `metadata` file) and count its event
 * and discarded-event messages through babeltrace2's ctf.fs source. Returns 0 and *out, or
 * -errno with the reason in err (no trace below dir is -ENOENT).
 */
int tb_ctf_count(const char *dir, struct tb_ctf_counts *out, char *err, size_t len);

#endif /* TB_CTF_COUNT_H */
