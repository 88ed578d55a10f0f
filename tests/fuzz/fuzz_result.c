// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the result reader: bytes -> jansson -> tb_result_from_json. Any input
 * must give 0 or an error, never a crash, a leak or an unbounded loop; a result that loads must
 * also survive --anonymize and being written back to JSON (what compare/report do with it).
 */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>

#include "result/anonymize.h"
#include "result/result.h"
#include "core/tb.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	tb_log_set_level(TB_LOG_SILENT);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tb_result *r = NULL;
	json_error_t jerr;
	json_t *doc, *back;

	doc = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, &jerr);
	if (!doc)
		return 0;
	if (tb_result_from_json(doc, "fuzz.json", &r) == 0) {
		if (size && tb_result_anonymize(r, data[0] & 1 ? TB_ANON_KEEP_SCENARIO : 0))
			abort(); /* only ENOMEM can fail, and ASan does not return NULL here */
		back = tb_result_to_json(r);
		json_decref(back);
		tb_result_free(r);
	} else if (r) {
		abort(); /* an error must leave *out NULL */
	}
	json_decref(doc);
	return 0;
}
