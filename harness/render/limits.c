// SPDX-License-Identifier: GPL-2.0
/* `run --find-limit`'s table (limits.h): one row per search, its note under it. */
#include <math.h>
#include <string.h>

#include "render/limits.h"

/* "1.23e+05" or "-" for what is unknown. */
static const char *rate(char *buf, size_t len, double v)
{
	if (isfinite(v))
		snprintf(buf, len, "%.3g", v);
	else
		snprintf(buf, len, "-");
	return buf;
}

static void row(FILE *f, const struct tb_limit *l, int w)
{
	char held[24], lost[24], cpu[16] = "-", buffer[64], bracket[64] = "";

	if (isfinite(l->held_cpu))
		snprintf(cpu, sizeof(cpu), "%.2f", l->held_cpu);
	if (!strcmp(l->kind, "buffer")) {
		snprintf(buffer, sizeof(buffer), "%s = %s", l->buffer_key,
			 l->held_buffer[0] ? l->held_buffer : "-");
		if (l->lost_buffer[0])
			snprintf(bracket, sizeof(bracket), "%s lost", l->lost_buffer);
	} else {
		snprintf(buffer, sizeof(buffer), "%s = %s", l->buffer_key, l->buffer);
		if (l->held_knob[0])
			snprintf(bracket, sizeof(bracket), "at %s = %s", l->knob, l->held_knob);
	}
	fprintf(f, "%-*s %-22s %13s %10s %12s %6zu  %s\n", w, l->cell, buffer,
		rate(held, sizeof(held), l->held_rate), cpu, rate(lost, sizeof(lost), l->lost_rate),
		l->nprobes, bracket);
	if (l->note[0])
		fprintf(f, "%-*s   %s\n", w, "", l->note);
}

void tb_render_limits_print(FILE *f, const struct tb_result *r)
{
	int w = 24;

	for (size_t i = 0; i < r->nlimits; i++)
		if ((int)strlen(r->limits[i].cell) > w)
			w = (int)strlen(r->limits[i].cell);
	for (size_t i = 0; i < r->nlimits; i++) {
		const struct tb_limit *l = &r->limits[i];

		if (!i || strcmp(l->kind, r->limits[i - 1].kind)) {
			if (!strcmp(l->kind, "buffer"))
				fprintf(f,
					"\nlimits (run --find-limit %.3g): the smallest buffer (a power of two) that held %.3g events/s without a loss\n",
					l->target, l->target);
			else
				fprintf(f,
					"\nlimits (run --find-limit): the highest event rate each buffer held without a loss, bisected to %.0f%%\n",
					100 * l->resolution);
			fprintf(f, "%-*s %-22s %13s %10s %12s %6s\n", w, "cell", "buffer",
				"held events/s", "tracer CPU", "lost from", "probes");
		}
		row(f, l, w);
	}
}
