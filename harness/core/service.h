/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A service sample's figures, one type from the workload that measures them (workloads/
 * service.c fills struct tb_workload's svc) through the runner to the result (model/result.h's
 * tb_sample.svc, result.json's sample `service`, METHODOLOGY.md "Services"): the keys in
 * brackets are its JSON names. From the client's output and the server's cgroup; a latency the
 * client does not give is NAN, a count it does not know -1; flat, so that it crosses the
 * sample pipe as it is. The sample's ops are its completed requests.
 */
#ifndef TB_CORE_SERVICE_H
#define TB_CORE_SERVICE_H

#include <stdbool.h>
#include <stdint.h>

struct tb_svc_figures {
	bool present;			/* set by a service workload's run_batch */
	double rps;			/* [requests_per_s] as the client computed it */
	double p50_ns, p99_ns, p999_ns; /* [p50_ns] [p99_ns] [p999_ns] the client's; NAN */
	int64_t errors;			/* [errors] failed requests, -1 unknown */
	double server_cpu_s;		/* [server_cpu_s] the server's cgroup over the client run */
	int64_t server_ctxsw;		/* [server_ctxsw] its context switches (every thread of
					   it), -1 unknown */
	char decides[16];		/* [decides] the metric whose verdict is the cell's:
					   "throughput" (closed loop), "p99" (open loop), "p50" */
};

#endif /* TB_CORE_SERVICE_H */
