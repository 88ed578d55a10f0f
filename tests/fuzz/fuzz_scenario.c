// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the scenario parser: any bytes must give 0 or -EINVAL, never a crash,
 * a leak or an unbounded loop; a scenario that parses then goes through what `run --dry-run`
 * does with it before measuring anything (the plan: cells, CPUs, the estimate and its
 * printout). Built by tools/fuzz.sh (make fuzzers CC=clang ...).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tb.h"
#include "plan/plan.h"
#include "model/result.h"
#include "parse/scenario.h"

static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* Every rejected input would print its error: thousands of lines a second. */
	tb_log_set_level(TB_LOG_SILENT);
	devnull = fopen("/dev/null", "w");
	return devnull ? 0 : -1;
}

/* The plan of a parsed scenario and its --dry-run printout. */
static void plan(struct tb_scenario *s)
{
	struct tb_result *r = tb_result_new();
	struct tb_plan p;

	if (!r)
		return;
	if (!tb_plan_build(s, r, &p))
		tb_plan_print(devnull, &p, r);
	tb_plan_free(&p);
	tb_result_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tb_scenario *s = NULL;
	char *text;

	/* tb_scenario_parse takes a C string, as tb_scenario_load hands it the file's text. */
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (tb_scenario_parse(text, "fuzz.ini", &s) == 0) {
		/* Touch what a consumer of a parsed scenario reads, so ASan checks it. */
		for (size_t i = 0; i < s->nmx_workloads; i++)
			if (s->mx_workloads[i] >= s->nworkloads)
				abort();
		for (size_t i = 0; i < s->nmx_tracers; i++)
			if (s->mx_tracers[i] >= s->ntracers)
				abort();
		plan(s);
		tb_scenario_free(s);
	} else if (s) {
		abort(); /* an error must leave *out NULL */
	}
	free(text);
	return 0;
}
