// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for result files: bytes -> jansson -> tb_result_from_json, and for a result
 * that loads, everything compare, gate, plot and report do with it (tests/fuzz/drive.h: the
 * statistics, a comparison with itself, the gate and its formats, the reports, the plot data
 * files), then --anonymize and the JSON writer. Any input must give 0 or an error, never a
 * crash, an abort (GSL's handler is off, as in main), a leak or an unbounded loop.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/tb.h"
#include "drive.h"
#include "model/anonymize.h"
#include "model/result.h"
#include "stats/stats.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char scratch[64];

static void remove_scratch(void)
{
	tb_rm_rf(scratch);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	tb_log_set_level(TB_LOG_SILENT);
	tb_stats_init();
	/* Reports without gnuplot: the plots' data files are driven through TB_PLOT_DATA_ONLY. */
	setenv("TB_GNUPLOT", "/nonexistent/gnuplot", 1);
	/* Outputs of each input go to a private directory, on tmpfs when there is one. */
	snprintf(scratch, sizeof(scratch), "%s/tb-fuzz-%d-XXXXXX",
		 access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm", (int)getpid());
	if (!mkdtemp(scratch))
		abort();
	atexit(remove_scratch);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tb_result *r = NULL, *b = NULL;
	json_error_t jerr;
	json_t *doc, *back;

	doc = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, &jerr);
	if (!doc)
		return 0;
	if (tb_result_from_json(doc, "fuzz.json", &r) == 0) {
		if (tb_result_from_json(doc, "copy.json", &b))
			abort(); /* the same document loaded once: it must load twice */
		if (tb_drive_result(r, b, scratch))
			abort();
		if (size && tb_result_anonymize(r, data[0] & 1 ? TB_ANON_KEEP_SCENARIO : 0))
			abort(); /* only ENOMEM can fail, and ASan does not return NULL here */
		back = tb_result_to_json(r);
		json_decref(back);
		tb_result_free(r);
		tb_result_free(b);
	} else if (r) {
		abort(); /* an error must leave *out NULL */
	}
	json_decref(doc);
	return 0;
}
