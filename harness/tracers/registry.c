// SPDX-License-Identifier: GPL-2.0
/* The tracer registry, expanded from the one-line-per-tracer list in tracers/registry.h. */
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/registry.h"
#include "core/tb.h"
#include "tracers/tracer.h"

#define TB_TRACER(x) extern const struct tb_tracer_ops tb_tracer_##x;
#include "tracers/registry.h"
#undef TB_TRACER

const struct tb_tracer_ops *const tb_tracers[] = {
#define TB_TRACER(x) &tb_tracer_##x,
#include "tracers/registry.h"
#undef TB_TRACER
	NULL,
};

void tb_tracer_fail(struct tb_tracer *t, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	tb_err("[tracer %s] %s", t->name, msg);
}

const struct tb_tracer_ops *tb_tracer_find(const char *name)
{
	size_t i;

	for (i = 0; tb_tracers[i]; i++)
		if (!strcmp(tb_tracers[i]->name, name))
			return tb_tracers[i];
	return NULL;
}

bool tb_tracer_rearms(const struct tb_tracer_ops *ops, const void *cfg)
{
	return ops->rearm && (!ops->can_rearm || ops->can_rearm(cfg));
}

const char *tb_tracer_label(const char *type, const struct tb_tracer_record *rec, char *buf,
			    size_t len)
{
	const struct tb_tracer_ops *ops = type ? tb_tracer_find(type) : NULL;

	if (!len)
		return buf;
	buf[0] = '\0';
	if (ops && ops->label)
		ops->label(rec, buf, len);
	buf[len - 1] = '\0'; /* a callback that wrote to the end */
	if (!buf[0])
		snprintf(buf, len, "%s", type ? type : "?");
	return buf;
}

bool tb_tracer_lost_remedy(const char *type, const struct tb_tracer_record *rec, int64_t per_sample,
			   char *buf, size_t len)
{
	const struct tb_tracer_ops *ops = type ? tb_tracer_find(type) : NULL;

	if (!len)
		return false;
	buf[0] = '\0';
	if (ops && ops->lost_remedy)
		ops->lost_remedy(rec, per_sample, buf, len);
	buf[len - 1] = '\0';
	return buf[0] != '\0';
}

const char *tb_tracer_rec_str(const struct json_t *o, const char *key)
{
	json_t *v = o ? json_object_get(o, key) : NULL;

	return json_is_string(v) ? json_string_value(v) : NULL;
}

double tb_tracer_rec_num(const struct json_t *o, const char *key)
{
	json_t *v = o ? json_object_get(o, key) : NULL;

	return json_is_number(v) ? json_number_value(v) : NAN;
}

const char *tb_tracer_size_text(char *buf, size_t len, double bytes)
{
	const double mib = 1024.0 * 1024.0;

	if (bytes >= 1024 * mib)
		snprintf(buf, len, "%.0fG", ceil(bytes / (1024 * mib)));
	else if (bytes >= mib)
		snprintf(buf, len, "%.0fM", ceil(bytes / mib));
	else
		snprintf(buf, len, "%.0fK", ceil(bytes / 1024));
	return buf;
}

/* What is wrong with ops's callbacks, or NULL. */
static const char *callbacks_defect(const struct tb_tracer_ops *ops)
{
	if (!(ops->setup && ops->start && ops->stop && ops->collect && ops->teardown))
		return "setup, start, stop, collect and teardown are all needed";
	if (!ops->hooks)
		return "no hooks (what it hooks and counts)";
	if (ops->est_rearm_ns && !ops->rearm)
		return "est_rearm_ns is the cost of a rearm, but there is no rearm";
	if (ops->can_rearm && !ops->rearm)
		return "can_rearm says which configurations rearm, but there is no rearm";
	if ((ops->flags & TB_TR_BASELINE) && (ops->label || ops->lost_remedy))
		return "label or lost_remedy on the baseline, which hooks nothing and loses nothing";
	if ((ops->flags & TB_TR_NOEVENTS) && ops->lost_remedy)
		return "lost_remedy, but it counts no events (TB_TR_NOEVENTS), so it loses none";
	if (ops->buffer_key && !ops->lost_remedy)
		return "buffer_key names the buffer it loses events in, but there is no lost_remedy";
	return NULL;
}

static bool describe(const void *ctx, size_t i, struct tb_plugin_desc *d)
{
	const struct tb_tracer_ops *const *list = ctx, *ops = list[i];

	if (!ops)
		return false;
	*d = TB_PLUGIN_DESC(ops, callbacks_defect(ops));
	return true;
}

int tb_tracer_ops_check(const struct tb_tracer_ops *const *list)
{
	return tb_plugins_check("tracer", list, describe);
}
