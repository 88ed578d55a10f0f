// SPDX-License-Identifier: GPL-2.0
/* The result's header (plan.h): what the plan measures, how to reproduce it, and on what. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/tb.h"
#include "host/sysinfo.h"
#include "host/tracing-state.h"
#include "plan/plan.h"

/* The scenario and its settings into r: what was asked for, and how to reproduce it. */
static int header(struct tb_result *r, const struct tb_scenario *s, const char *command_line,
		  json_t *labels)
{
	size_t i;

	r->rounds = 0;
	r->scenario_name = strdup(s->name);
	r->scenario_path = strdup(s->path);
	r->scenario_text = strdup(s->text);
	r->command_line = strdup(command_line);
	r->seed = (uint64_t)s->seed;
	r->warmup = s->warmup;
	r->duration_ns = s->duration_ns;
	r->noise_threshold = s->noise_threshold;
	r->max_cv = s->max_cv;
	r->contended_share = s->contended_share;
	r->accounting_every = s->accounting_every;
	r->alpha = s->alpha;
	r->power = s->power;
	r->confidence = s->confidence;
	r->resamples = s->resamples;
	r->precision = s->precision;
	r->aa = s->aa;
	if (s->ngate) {
		r->gate = json_object();
		for (i = 0; r->gate && i < s->ngate; i++)
			json_object_set_new(r->gate, s->gate_keys[i], json_string(s->gate_vals[i]));
	}
	if (labels && json_object_update(r->labels, labels))
		return -ENOMEM;
	if (!r->tool_version || !r->scenario_name || !r->scenario_path || !r->scenario_text ||
	    !r->command_line || !r->warnings)
		return -ENOMEM;
	return 0;
}

int tb_plan_result(struct tb_scenario *s, bool skip, const char *command_line, json_t *labels,
		   struct tb_plan *p, struct tb_result **out)
{
	struct tb_result *r = tb_result_new();
	int ret;

	*out = r;
	if (!r)
		return -ENOMEM;
	ret = header(r, s, command_line, labels);
	if (ret)
		return ret;
	ret = tb_plan_check_supported(s, skip, r->unsupported);
	if (ret)
		return ret;
	return tb_plan_build(s, r, p);
}

int tb_plan_result_start(struct tb_result *r)
{
	char ts[32];
	size_t i;

	tb_utc_iso(ts, sizeof(ts), time(NULL));
	free(r->started);
	r->started = strdup(ts);
	r->system = tb_sysinfo_collect("/", 0);
	if (!r->system)
		tb_warn("cannot capture the system fingerprint");
	json_decref(r->foreign);
	r->foreign = tb_foreign_instrumentation();
	for (i = 0; r->foreign && i < json_array_size(r->foreign); i++)
		tb_warn("foreign instrumentation is active and biases the baseline: %s",
			json_string_value(json_array_get(r->foreign, i)));
	return r->started ? 0 : -ENOMEM;
}
