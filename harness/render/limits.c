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

/* Where the search held and lost: the two ends' settings of the chain's knobs. */
static void ends(char *buf, size_t len, const struct tb_limit *l)
{
	size_t n = 0;

	buf[0] = '\0';
	if (!strcmp(l->kind, "buffer") && l->lost_buffer[0])
		n = (size_t)snprintf(buf, len, "%s lost; ", l->lost_buffer);
	if (l->held_at[0] && n < len)
		n += (size_t)snprintf(buf + n, len - n, "held at %s", l->held_at);
	if (l->lost_at[0] && n < len)
		snprintf(buf + n, len - n, "%slost at %s", n ? "; " : "", l->lost_at);
}

static void row(FILE *f, const struct tb_limit *l, int w)
{
	char held[24], lost[24], cpu[16] = "-", buffer[64], bracket[400];

	if (isfinite(l->held_cpu))
		snprintf(cpu, sizeof(cpu), "%.2f", l->held_cpu);
	if (!strcmp(l->kind, "buffer"))
		snprintf(buffer, sizeof(buffer), "%s = %s", l->buffer_key,
			 l->held_buffer[0] ? l->held_buffer : "-");
	else
		snprintf(buffer, sizeof(buffer), "%s = %s", l->buffer_key, l->buffer);
	ends(bracket, sizeof(bracket), l);
	fprintf(f, "%-*s %-22s %13s %10s %12s %6zu  %s\n", w, l->cell, buffer,
		rate(held, sizeof(held), l->held_rate), cpu, rate(lost, sizeof(lost), l->lost_rate),
		l->nprobes, bracket);
	if (l->note[0])
		fprintf(f, "%-*s   %s\n", w, "", l->note);
	if (l->knob_note[0])
		fprintf(f, "%-*s   knobs: %s\n", w, "", l->knob_note);
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
					"\nlimits (run --find-limit): the highest event rate each buffer held without a loss, bisected to %.0f%% along the workload's knobs (work, then calls, then threads)\n",
					100 * l->resolution);
			fprintf(f, "%-*s %-22s %13s %10s %12s %6s\n", w, "cell", "buffer",
				"held events/s", "tracer CPU", "lost from", "probes");
		}
		row(f, l, w);
	}
}
