// SPDX-License-Identifier: GPL-2.0
/*
 * bench-workloads: every registered workload under no tracer, through the same sample API as
 * `tracebench run` (calibrate, then each sample prepared, timed and finished in a fresh forked
 * process), printing median ns/op, ops/s and CV over the samples.
 *
 *   bench-workloads [-d DURATION] [-n SAMPLES] [-c CPU] [-q] [WORKLOAD[:key=val,...]]...
 *
 * -d sample duration (default 200ms), -n samples (default 5), -c pin to CPU (default none),
 * -q print only "name median_ns_per_op" lines (for tools/bench-workloads.sh).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runner/measure.h"
#include "core/tb.h"
#include "workloads/workload.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* One sample in a child process, as the runner does; the result comes back over a pipe. */
static int sample_in_child(const struct tb_measure_req *req, struct tb_measure_res *res)
{
	struct tb_measure_run *run;
	int fd[2], st, ret;
	pid_t pid;

	if (pipe(fd))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		close(fd[0]);
		memset(res, 0, sizeof(*res));
		res->error = tb_measure_prepare(req, &run);
		if (!res->error) {
			tb_measure_go(run, res);
			tb_measure_finish(run);
		}
		_exit(tb_measure_res_write(fd[1], res) ? 1 : 0);
	}
	close(fd[1]);
	ret = tb_measure_res_read(fd[0], res);
	close(fd[0]);
	waitpid(pid, &st, 0);
	return ret ? ret : res->error;
}

/* Apply "key=val,..." to cfg. Returns 0 or -EINVAL, said on stderr. */
static int apply_spec(const struct tb_workload_ops *wl, void *cfg, const char *spec)
{
	char *opts, *kv, *save = NULL, *eq, err[256];
	int ret = 0;

	if (!spec || !(opts = strdup(spec)))
		return 0;
	for (kv = strtok_r(opts, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		eq = strchr(kv, '=');
		ret = eq ? (*eq = '\0', tb_opts_set(wl->opts, cfg, kv, eq + 1, err, sizeof(err)))
			 : -EINVAL;
		if (ret) {
			fprintf(stderr, "%s: bad option '%s': %s\n", wl->name, kv,
				eq ? err : "want key=value");
			break;
		}
	}
	free(opts);
	return ret;
}

/* False (and a line unless quiet) when wl cannot run here or cfg does not validate. */
static bool runnable(const struct tb_workload_ops *wl, const void *cfg, bool quiet)
{
	char why[256];

	if (wl->supported && wl->supported(why, sizeof(why))) {
		if (!quiet)
			printf("%-14s unsupported here: %s\n", wl->name, why);
		return false;
	}
	if (wl->validate && wl->validate(cfg, why, sizeof(why))) {
		if (!quiet)
			printf("%-14s skipped: %s\n", wl->name, why);
		return false;
	}
	return true;
}

/* Calibrate, one warmup sample, then n measured samples' ns/op into v. Returns 0 or -errno. */
static int measure(struct tb_measure_req *req, uint64_t duration, int n, double *v)
{
	struct tb_measure_res *res = malloc(sizeof(*res));
	int i, ret;

	if (!res)
		return -ENOMEM;
	ret = tb_measure_calibrate(req, duration, &req->ops);
	for (i = -1; !ret && i < n; i++) {
		ret = sample_in_child(req, res);
		if (ret)
			fprintf(stderr, "%s: sample failed: %s\n", req->name,
				res->errmsg[0] ? res->errmsg : strerror(-ret));
		else if (i >= 0)
			v[i] = res->ns_per_op;
	}
	free(res);
	return ret;
}

/* Median, ops/s and CV of the n samples in v (sorted here). */
static void print_figures(const char *name, double *v, int n, uint64_t ops, bool quiet)
{
	double mean = 0, sd = 0, med;
	int i;

	for (i = 0; i < n; i++)
		mean += v[i] / n;
	for (i = 0; i < n; i++)
		sd += (v[i] - mean) * (v[i] - mean) / (n > 1 ? n - 1 : 1);
	sd = sqrt(sd);
	qsort(v, (size_t)n, sizeof(double), cmp_double);
	med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	if (quiet)
		printf("%s %.3f\n", name, med);
	else
		printf("%-14s %12.2f %14.0f %7.2f%% %12llu\n", name, med, 1e9 / med,
		       mean > 0 ? 100 * sd / mean : 0, (unsigned long long)ops);
}

static int bench(const struct tb_workload_ops *wl, const char *spec, uint64_t duration,
		 int nsamples, int cpu, bool quiet)
{
	struct tb_measure_req req = {0};
	char tmpdir[] = "/tmp/tb-bench-XXXXXX";
	double *v = calloc((size_t)nsamples, sizeof(double));
	void *cfg = calloc(1, wl->cfg_size ? wl->cfg_size : 1);
	int ret = -ENOMEM;

	if (!v || !cfg)
		goto out;
	if (!mkdtemp(tmpdir)) {
		ret = -errno;
		goto out;
	}
	ret = wl->opts ? tb_opts_defaults(wl->opts, cfg) : 0;
	if (!ret)
		ret = apply_spec(wl, cfg, spec);
	if (ret || !runnable(wl, cfg, quiet))
		goto out_rm;
	req.wl = wl;
	req.name = wl->name;
	req.cfg = cfg;
	req.tmpdir = tmpdir;
	if (cpu >= 0) {
		req.cpus = &cpu;
		req.ncpus = 1;
	}
	ret = measure(&req, duration, nsamples, v);
	if (!ret)
		print_figures(wl->name, v, nsamples, req.ops, quiet);
out_rm:
	tb_rm_rf(tmpdir);
out:
	if (cfg && wl->opts)
		tb_opts_free(wl->opts, cfg);
	free(cfg);
	free(v);
	return ret;
}

int main(int argc, char **argv)
{
	uint64_t duration = 200000000;
	int nsamples = 5, cpu = -1, c, i, st = 0;
	bool quiet = false;
	size_t w;

	while ((c = getopt(argc, argv, "d:n:c:q")) != -1) {
		switch (c) {
		case 'd':
			if (tb_parse_duration(optarg, &duration) || !duration) {
				fprintf(stderr, "bad duration '%s' (%s)\n", optarg,
					TB_DURATION_UNITS);
				return 2;
			}
			break;
		case 'n':
			nsamples = atoi(optarg);
			if (nsamples < 1 || nsamples > 1000) {
				fprintf(stderr, "bad sample count '%s'\n", optarg);
				return 2;
			}
			break;
		case 'c':
			cpu = atoi(optarg);
			break;
		case 'q':
			quiet = true;
			break;
		default:
			fprintf(stderr,
				"usage: %s [-d DURATION] [-n SAMPLES] [-c CPU] [-q] [WORKLOAD[:key=val,...]]...\n",
				argv[0]);
			return 2;
		}
	}
	if (!quiet)
		printf("%-14s %12s %14s %8s %12s\n", "workload", "ns/op", "ops/s", "CV",
		       "ops/sample");
	if (optind == argc) {
		for (w = 0; tb_workloads[w]; w++) {
			if (tb_workloads[w]->flags & TB_WL_ONESHOT)
				continue; /* command needs a program to run */
			if (bench(tb_workloads[w], NULL, duration, nsamples, cpu, quiet))
				st = 1;
		}
		return st;
	}
	for (i = optind; i < argc; i++) {
		char *name = strdup(argv[i]), *colon = strchr(name, ':');
		const struct tb_workload_ops *wl;

		if (colon)
			*colon++ = '\0';
		wl = tb_workload_find(name);
		if (!wl) {
			fprintf(stderr, "unknown workload '%s'\n", name);
			st = 2;
		} else if (bench(wl, colon, duration, nsamples, cpu, quiet)) {
			st = 1;
		}
		free(name);
	}
	return st;
}
