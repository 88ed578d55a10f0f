/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Series identity in the history, and the points a result contributes to its series.
 *
 * A series is one metric of one cell, (scenario name, workload, tracer, metric), on one
 * hardware class (model/system.h: CPU identity, topology, virtualization). Software fields
 * (kernel, mitigations, tool and tracer versions) do not split a series: they are what its
 * change points are explained by. Runs whose scenario text differs (its normalised hash, the
 * series' "variant") are kept apart unless the user says they are comparable (--comparable).
 */
#ifndef TB_HISTORY_SERIES_H
#define TB_HISTORY_SERIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/result.h"

/* How the size of a change of a metric is judged against --min-magnitude. */
enum tb_hmag {
	TB_HMAG_RELATIVE, /* |after / before - 1| */
	TB_HMAG_POINTS,	  /* |after - before| / 100: the metric is a percentage already */
	TB_HMAG_SCALED,	  /* |after - before| / scale: the baseline ns/op of the run */
};

struct tb_hmetric {
	const char *name; /* in the database, series names and --json */
	const char *unit; /* for text: "ns", "%", "events" */
	const char *what; /* for titles: "baseline ns/op" */
	enum tb_hmag mag;
	bool gated; /* what gate --history judges: baseline ns/op and overhead % */
};

/* Every metric a cell can contribute, NULL-terminated by name. */
extern const struct tb_hmetric tb_hmetrics[];
/* The metric called name, or NULL. */
const struct tb_hmetric *tb_hmetric_find(const char *name);

/* What a run says about where its points belong. */
struct tb_hrun_id {
	char scenario[256]; /* the scenario's name */
	char variant[13];   /* 12 hex digits of the SHA-256 of its normalised text */
	char hw_class[17];  /* tb_system_hardware_class */
	char hw_desc[160];  /* "Intel(R) Xeon(R) Processor, 2 PUs, kvm" */
	char hash[65];	    /* the run's content hash (tb_hrun_hash) */
	char started[40];   /* ISO 8601 UTC */
};

/*
 * The identity of r, whose JSON document is doc (the result file as read, or
 * tb_result_to_json(r)). Returns 0, -EINVAL when r has no name or start time (printed), or
 * -ENOMEM.
 */
int tb_hrun_identity(const struct tb_result *r, const json_t *doc, struct tb_hrun_id *id);
/*
 * The content hash of a result document: its digest (core/util.h tb_sha256_json) without its
 * labels, so that the same run added twice (with other labels, re-indented) is recognised.
 * Returns 0 or -ENOMEM.
 */
int tb_hrun_hash(const json_t *doc, char hash[65]);
/* The normalised scenario text's hash: comments, blank lines and spaces around '=' and at
 * the ends of lines do not count. 12 hex digits. Returns 0 or -ENOMEM. */
int tb_hscenario_variant(const char *text, char variant[13]);

/* One point: a metric of one cell of one run, with its CI and its per-sample values. */
struct tb_hpoint {
	int64_t run_id;	      /* in the database; 0 for a point not stored */
	char started[40];     /* the run's start */
	const char *cell;     /* "workload/tracer" (borrowed) */
	const char *workload; /* borrowed */
	const char *tracer;
	const struct tb_hmetric *metric;
	double value;	     /* the point: median or the result's estimate */
	double ci_lo, ci_hi; /* its CI at the run's confidence; NAN when unknown */
	double scale;	     /* TB_HMAG_SCALED's denominator (baseline ns/op), else NAN */
	double *samples;     /* per-sample values (owned), NULL when the metric has none */
	size_t nsamples;
	char verdict[32]; /* the cell's verdict, "" for baselines */
};

/* The points of a run. */
struct tb_hpoints {
	struct tb_hpoint *p;
	size_t n;
};

/*
 * Every point r's analysed cells give (tb_stats_analyze must have run, or the figures come
 * from the file): baseline cells their ns/op (and latency percentiles in latency mode), traced
 * cells their overhead %, overhead ns/op, ns/event, events lost, tracer CPU % and latency
 * percentiles, service cells their throughput, p50 and p99, and each sweep whose line was
 * accepted its slope (sweep_slope, named by the swept section). Failed cells and unknown
 * values give no point. Strings are borrowed from r.
 * Returns 0 or -ENOMEM; free with tb_hpoints_free.
 */
int tb_hpoints_of_result(const struct tb_result *r, struct tb_hpoints *out);
void tb_hpoints_free(struct tb_hpoints *pts);
/*
 * The point the slope of sw gives (sweep_slope; no samples), whether its line was accepted or
 * not (the gate judges acceptance itself, at its own alpha): named by the swept section, in
 * the series of that section against the other side (a workload sweep: the workload section
 * and its tracer; a tracer sweep: the workload and the tracer section). Strings borrowed from
 * sw. false (pt untouched) when sw has no finite slope or no section.
 */
bool tb_hpoint_of_sweep(const struct tb_sweep *sw, struct tb_hpoint *pt);

/* Per-sample values as stored: a JSON array text (new string) / parsed back (a new array,
 * NULL with *n 0 for NULL or "[]"). Returns NULL on ENOMEM / 0, -EINVAL, -ENOMEM. */
char *tb_hsamples_text(const double *v, size_t n);
int tb_hsamples_parse(const char *text, double **v, size_t *n);

/* A series: where its points come from, and what the database says of it. */
struct tb_hseries {
	char *scenario, *workload, *tracer, *metric_name;
	char *variant;	/* NULL when scenario texts are joined (--comparable) */
	char *hw_class; /* 16 hex digits */
	char *hw_desc;
	const struct tb_hmetric *metric; /* NULL for a metric this version does not know */
	char id[13];			 /* 12 hex digits: tb_hseries_make_id */
	char *name;			 /* "scenario/workload/tracer/metric" */
	size_t nruns;
	char first[40], last[40]; /* times of its first and last run */
};

/* Fill s->id and s->name from its fields (an id of 12 hex digits of the SHA-256 of the key).
 * Returns 0 or -ENOMEM. */
int tb_hseries_name(struct tb_hseries *s);
void tb_hseries_free_fields(struct tb_hseries *s);
/* s matches a SERIES argument: an id prefix of 4 or more hex digits, or a glob (fnmatch) over
 * its name "scenario/workload/tracer/metric". */
bool tb_hseries_match(const struct tb_hseries *s, const char *pattern);

#endif /* TB_HISTORY_SERIES_H */
