// SPDX-License-Identifier: GPL-2.0
/* --anonymize: a result full of identifying details goes in, none of them comes out. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/anonymize.h"
#include "model/result.h"
#include "core/tb.h"
#include "tb_test.h"

/* Load the fixture, anonymize it with flags, and return the result as JSON text. */
static char *anonymized(unsigned int flags, struct tb_result **keep)
{
	struct tb_result *r = NULL;
	char path[512], *text;
	json_t *doc;

	snprintf(path, sizeof(path), "%s/anonymize/identifying.json", tb_test_data_dir());
	if (tb_result_load(path, &r))
		return NULL;
	if (tb_result_anonymize(r, flags)) {
		tb_result_free(r);
		return NULL;
	}
	doc = tb_result_to_json(r);
	text = doc ? json_dumps(doc, JSON_INDENT(1) | JSON_SORT_KEYS) : NULL;
	json_decref(doc);
	if (keep)
		*keep = r;
	else
		tb_result_free(r);
	return text;
}

static void test_nothing_identifying_left(void)
{
	static const char *const gone[] = {
		"box-17",	    /* hostname, nodename, in warnings, errors, kernel ip= */
		"corp.example",	    /* the FQDN's domain */
		"alice",	    /* user field and /home/alice paths */
		"bob",		    /* a user seen only in a path of foreign instrumentation */
		"/root/",	    /* root's home */
		"1f2e3d4c",	    /* root=UUID= */
		"10.1.2.3",	    /* ip= */
		"luks-77aa",	    /* rd.luks.uuid= */
		"/dev/sda2",	    /* resume= */
		"SERIAL123",	    /* *serial* keys */
		"BOARD42",	    /* board_serial */
		"99887766",	    /* product_uuid */
		"deadbeefcafef00d", /* machine_id */
		"secret-token",	    /* the workload's command (argv option) */
		"secret-argv",	    /* an argv key */
		"secret-extra",	    /* a cmdline key in tracer_extra */
		"sys_enter_read",   /* the tracer's command */
		"agents.ini",	    /* the scenario path */
		"/srv/bench",	    /* where the run was written: tracer_extra.log */
		"run-0042",	    /* an absolute path outside the run directory */
		"\"hostname\"",
		"\"nodename\"",
		"\"machine_id\"",
	};
	static const char *const kept[] = {
		"6.18.0",		      /* kernel release */
		"BOOT_IMAGE=/vmlinuz-6.18.0", /* non-identifying kernel parameters */
		" ro quiet ",
		"mitigations=off",
		"console=ttyS0,115200",
		"root=<redacted>",
		"ip=<redacted>",
		"resume=<redacted>",
		"rd.luks.uuid=<redacted>",
		"Intel(R) Xeon(R) CPU", /* the CPU model makes results comparable */
		"abc123",		/* the fingerprint */
		"\"w/bt\"",		/* cell ids key comparisons */
		"Attaching",		/* a non-command tracer option */
		"~/work",		/* /home/alice/work */
		"~/bin/perf 6.1",	/* /root/bin/perf */
		"governor is powersave on <host>",
		"loaded by ~/agent/run.sh",
		TB_ANON_SCENARIO_NOTE,
		"\"tracers/bt/bt.log\"", /* the log, relative to the run directory */
		"\"<path>/perf.data\"",
	};
	struct tb_result *r = NULL;
	char *text = anonymized(0, &r);
	size_t i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	for (i = 0; i < TB_ARRAY_SIZE(gone); i++) {
		if (strstr(text, gone[i]))
			printf("\n    still present: %s\n", gone[i]);
		CU_ASSERT_PTR_NULL(strstr(text, gone[i]));
	}
	for (i = 0; i < TB_ARRAY_SIZE(kept); i++) {
		if (!strstr(text, kept[i]))
			printf("\n    missing: %s\n", kept[i]);
		CU_ASSERT_PTR_NOT_NULL(strstr(text, kept[i]));
	}
	/* The measurements themselves are untouched. */
	CU_ASSERT_EQUAL(r->ncells, 2);
	CU_ASSERT_EQUAL(r->cells[1].nsamples, 2);
	CU_ASSERT_DOUBLE_EQUAL(r->cells[1].samples[1].ns_per_op, 106.0, 1e-9);
	CU_ASSERT_EQUAL(r->cells[1].events_recorded, 20);
	CU_ASSERT_PTR_NULL(r->scenario_path);
	CU_ASSERT_STRING_EQUAL(r->command_line, TB_ANON_REDACTED);
	CU_ASSERT_STRING_EQUAL(
		json_string_value(json_object_get(r->cells[0].workload_config, "command")),
		TB_ANON_REDACTED);
	CU_ASSERT_STRING_EQUAL(r->cells[1].error, "exited 1 on <host>: ~/bin/load: not found");
	free(text);
	tb_result_free(r);
}

static void test_keep_scenario(void)
{
	struct tb_result *r = NULL;
	char *text = anonymized(TB_ANON_KEEP_SCENARIO, &r);

	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r->scenario_text);
	/* The text stays, with home paths and names replaced. */
	CU_ASSERT_PTR_NOT_NULL(strstr(r->scenario_text, "repetitions = 3"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r->scenario_text, "command = ~/bin/load"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r->scenario_text, "written by <user> on <host>"));
	CU_ASSERT_PTR_NULL(strstr(text, "alice"));
	CU_ASSERT_PTR_NULL(strstr(text, "box-17"));
	free(text);
	tb_result_free(r);
}

/* Running it twice changes nothing more; an empty result is fine. */
static void test_idempotent_and_empty(void)
{
	struct tb_result *r = NULL, *e;
	char *once, *twice;
	json_t *doc;

	once = anonymized(0, &r);
	CU_ASSERT_PTR_NOT_NULL_FATAL(once);
	CU_ASSERT_EQUAL(tb_result_anonymize(r, 0), 0);
	doc = tb_result_to_json(r);
	twice = json_dumps(doc, JSON_INDENT(1) | JSON_SORT_KEYS);
	CU_ASSERT_STRING_EQUAL(once, twice);
	free(once);
	free(twice);
	json_decref(doc);
	tb_result_free(r);

	e = tb_result_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT_EQUAL(tb_result_anonymize(e, 0), 0);
	tb_result_free(e);
}

/* Names shorter than 3 characters or generic ones ("root") are not scrubbed as words. */
static void test_generic_names_left_alone(void)
{
	struct tb_result *r = tb_result_new();

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	r->system = json_pack("{s:s, s:s, s:s}", "hostname", "localhost", "user", "root", "note",
			      "localhost root ok /var/home/carol/x /rootfs");
	CU_ASSERT_PTR_NOT_NULL_FATAL(r->system);
	CU_ASSERT_EQUAL(tb_result_anonymize(r, 0), 0);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(r->system, "note")),
			       "localhost root ok /var/home/<user>/x /rootfs");
	CU_ASSERT_PTR_NULL(json_object_get(r->system, "hostname"));
	CU_ASSERT_PTR_NULL(json_object_get(r->system, "user"));
	tb_result_free(r);
}

static CU_TestInfo anonymize_tests[] = {
	{"nothing identifying left", test_nothing_identifying_left},
	{"keep scenario text", test_keep_scenario},
	{"idempotent, empty result", test_idempotent_and_empty},
	{"generic names left alone", test_generic_names_left_alone},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("model-anonymize", NULL, NULL, anonymize_tests);
