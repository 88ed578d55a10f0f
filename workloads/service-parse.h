/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The service workloads' client output parsers (service-parse.c): h2load's summary and its
 * per-request log, wrk's report (with --latency), redis-benchmark's full report, pgbench's
 * summary and its per-transaction log.
 * The text is outside input: anything missing, truncated or garbled is -EINVAL with the line or
 * the figure that is wrong in err, never a crash and never a made-up figure.
 */
#ifndef TB_WL_SERVICE_PARSE_H
#define TB_WL_SERVICE_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* One client run's figures; a latency the client does not give is NAN. */
struct tb_wl_svc_figs {
	uint64_t requests; /* completed requests (pgbench: transactions) */
	double duration_s; /* the client's own measuring time, NAN when it gives none */
	double rps;	   /* requests per second as the client computed it */
	double p50_ns, p99_ns, p999_ns;
	int64_t errors; /* failed requests (socket errors, non-2xx, failed or skipped
			   transactions) */
};

/* Figures reset: counts 0, every figure NAN. */
void tb_wl_svc_figs_init(struct tb_wl_svc_figs *f);
/*
 * h2load 1.52 (--h1): "finished in T, R req/s", "requests: N total, N started, N done, N
 * succeeded, N failed, N errored, N timeout" (requests: done; errors: failed, which holds the
 * errored, the timed-out and the non-2xx/3xx ones). Latencies come from its log.
 */
int tb_wl_svc_parse_h2load(const char *text, struct tb_wl_svc_figs *f, char *err, size_t len);
/*
 * h2load --log-file's rows ("start_us<TAB>status<TAB>us", more columns allowed): the
 * percentiles (nearest rank) of the rows whose status is not -1 (a failed stream). With f's
 * requests already set (from the summary), the rows must number as many: a cut log is -EINVAL.
 */
int tb_wl_svc_parse_h2load_log(const char *text, struct tb_wl_svc_figs *f, char *err, size_t len);
/* wrk 4.1 with --latency: "N requests in 2.03s", "Requests/sec:", the 50% and 99% lines
 * (wrk gives no 99.9%), socket errors and non-2xx responses. */
int tb_wl_svc_parse_wrk(const char *text, struct tb_wl_svc_figs *f, char *err, size_t len);
/* redis-benchmark 7 (one test, not -q or --csv): "N requests completed in", the percentile
 * and cumulative tables (a percentile is the smallest bound reaching it: an upper bound),
 * "throughput summary:"; "Error" lines count as errors. */
int tb_wl_svc_parse_redis(const char *text, struct tb_wl_svc_figs *f, char *err, size_t len);
/* pgbench 15's summary: transactions processed, failed and skipped, "tps =" (without the
 * initial connection time), "duration:". Latencies come from the log. */
int tb_wl_svc_parse_pgbench(const char *text, struct tb_wl_svc_figs *f, char *err, size_t len);
/*
 * pgbench -l's per-transaction log ("client tx time_us script epoch epoch_us [lag_us]"): the
 * percentiles of time + lag (with -R the latency from the scheduled start, so that a late
 * server cannot hide its queueing: coordinated omission). A "skipped" transaction counts as an
 * error. Returns -EINVAL naming the line on garbage, -ENODATA without a transaction.
 */
int tb_wl_svc_parse_pgbench_log(const char *text, struct tb_wl_svc_figs *f, char *err, size_t len);

#endif /* TB_WL_SERVICE_PARSE_H */
