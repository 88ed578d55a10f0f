// SPDX-License-Identifier: GPL-2.0
/* samples.csv (csv.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/tb.h"
#include "render/csv.h"

int tb_csv_write(const struct tb_result *r, const struct tb_dir *dir)
{
	char *buf = NULL;
	size_t len = 0, i, j;
	FILE *f;
	int ret;

	f = open_memstream(&buf, &len);
	if (!f)
		return -ENOMEM;
	fprintf(f, "order,round,warmup,cell,workload,tracer,ns_per_op,ops,elapsed_ns,events,lost,"
		   "voluntary_ctxsw,involuntary_ctxsw,minor_faults,tracer_cpu_s,failed,abandoned,"
		   "partial_round,accounting,bpf_stats,rerun\n");
	for (i = 0; i < r->ncells; i++) {
		const struct tb_cell *c = &r->cells[i];

		for (j = 0; j < c->nsamples; j++) {
			const struct tb_sample *s = &c->samples[j];

			/* Section names are restricted to [A-Za-z0-9._+-]: no CSV quoting needed.
			 */
			fprintf(f,
				"%u,%d,%d,%s,%s,%s,%.3f,%llu,%.0f,%lld,%lld,%lld,%lld,%lld,%.6f,%d,%d,%d,%d,%d,%d\n",
				s->order, s->round, s->warmup, c->id, c->workload, c->tracer,
				s->ns_per_op, (unsigned long long)s->ops, s->elapsed_ns,
				(long long)s->events, (long long)s->lost, (long long)s->nvcsw,
				(long long)s->nivcsw, (long long)s->minflt,
				isfinite(s->tracer_cpu_s) ? s->tracer_cpu_s : -1.0, s->failed,
				s->abandoned, s->partial_round, s->accounting, s->bpf_stats,
				s->rerun[0] != '\0');
		}
	}
	if (fclose(f)) {
		free(buf);
		return -ENOMEM;
	}
	ret = tb_dir_write(dir, "samples.csv", buf, len, 0644);
	free(buf);
	return ret;
}
