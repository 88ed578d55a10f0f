// SPDX-License-Identifier: GPL-2.0
/*
 * The client output parsers of the service workloads (service-parse.h). Line by line, each
 * line copied into a bounded buffer (a line longer than it is cut, never overrun); a carriage
 * return ends a line too (redis-benchmark redraws its progress line with \r). Numbers go
 * through strtod/strtoull with their end checked; every figure must be finite and in range.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/service-parse.h"

#define LINE_MAX_LEN 512
#define MAX_POINTS   512 /* redis-benchmark's two tables hold ~40 lines */

void tb_wl_svc_figs_init(struct tb_wl_svc_figs *f)
{
	f->requests = 0;
	f->errors = 0;
	f->duration_s = f->rps = f->p50_ns = f->p99_ns = f->p999_ns = NAN;
}

/* The next line of *p into buf (cut to len - 1), leading blanks skipped; false at the end. */
static bool next_line(const char **p, char *buf, size_t len)
{
	const char *s = *p, *e;
	size_t n;

	if (!*s)
		return false;
	e = s + strcspn(s, "\r\n");
	n = (size_t)(e - s) < len - 1 ? (size_t)(e - s) : len - 1;
	while (n && (*s == ' ' || *s == '\t')) {
		s++;
		n--;
	}
	memcpy(buf, s, n);
	buf[n] = '\0';
	*p = *e ? e + 1 : e;
	return true;
}

/* A finite number at s (no sign), its end in *end; false when there is none. */
static bool number(const char *s, double *v, char **end)
{
	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	*v = strtod(s, end);
	return !errno && *end != s && isfinite(*v) && *v >= 0;
}

static bool count(const char *s, uint64_t *v, char **end)
{
	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	*v = strtoull(s, end, 10);
	return !errno && *end != s;
}

/* wrk's time "80.00us", "2.28ms", "2.03s", "1.00m", "1.00h" in ns; false on anything else. */
static bool wrk_time(const char *s, double *ns)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = {{"us", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"m", 60e9}, {"h", 3600e9}};
	char *end;
	double v;

	if (!number(s, &v, &end))
		return false;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		size_t n = strlen(units[i].unit);

		if (!strncmp(end, units[i].unit, n) &&
		    (!end[n] || end[n] == ' ' || end[n] == ',')) {
			*ns = v * units[i].ns;
			return true;
		}
	}
	return false;
}

/* "What: reason" into err; -EINVAL. */
static int bad(char *err, size_t len, const char *client, const char *what, const char *line)
{
	if (line)
		snprintf(err, len, "%s: %s in line '%.80s'", client, what, line);
	else
		snprintf(err, len, "%s: %s (truncated or not its output?)", client, what);
	return -EINVAL;
}

/* h2load's "requests: ..." line's seven counts, in its order; false when it is not one. */
static bool h2load_requests(const char *line, uint64_t v[7])
{
	static const char *const words[] = {" total, ",	 " started, ", " done, ", " succeeded, ",
					    " failed, ", " errored, ", " timeout"};
	char *end;

	line += 10; /* "requests: " */
	for (size_t i = 0; i < 7; i++) {
		size_t n = strlen(words[i]);

		if (!count(line, &v[i], &end) || strncmp(end, words[i], n))
			return false;
		line = end + n;
	}
	return true;
}

int tb_wl_svc_parse_h2load(const char *text, struct tb_wl_svc_figs *f, char *err, size_t len)
{
	char line[LINE_MAX_LEN], *end;
	uint64_t v[7];
	bool counted = false;
	double ns;

	tb_wl_svc_figs_init(f);
	while (next_line(&text, line, sizeof(line))) {
		if (!strncmp(line, "finished in ", 12)) {
			/* "finished in 915.48ms, 21846.49 req/s, 3.19MB/s" */
			const char *r = strchr(line + 12, ',');

			if (!wrk_time(line + 12, &ns) || !r ||
			    !number(r + 1 + strspn(r + 1, " "), &f->rps, &end) ||
			    strncmp(end, " req/s", 6))
				return bad(err, len, "h2load", "a duration or rate that is not one",
					   line);
			f->duration_s = ns / 1e9;
		} else if (!strncmp(line, "requests: ", 10)) {
			if (!h2load_requests(line, v) || v[2] > v[1] || v[4] > v[2])
				return bad(err, len, "h2load", "counts that are not h2load's",
					   line);
			f->requests = v[2];
			f->errors = (int64_t)v[4];
			counted = true;
		}
	}
	if (isnan(f->rps))
		return bad(err, len, "h2load", "no 'finished in T, R req/s' line", NULL);
	if (!counted)
		return bad(err, len, "h2load", "no 'requests: N total, ...' line", NULL);
	return 0;
}

/* "50%   80.00us" of wrk's latency distribution: 1 taken, 0 not such a line, -EINVAL. */
static int wrk_percentile(const char *line, struct tb_wl_svc_figs *f)
{
	char *end;
	double pct, ns;

	if (!number(line, &pct, &end) || *end != '%')
		return 0;
	end++;
	while (*end == ' ')
		end++;
	if (!wrk_time(end, &ns))
		return -EINVAL;
	if (pct == 50)
		f->p50_ns = ns;
	else if (pct == 99)
		f->p99_ns = ns;
	return 1;
}

int tb_wl_svc_parse_wrk(const char *text, struct tb_wl_svc_figs *f, char *err, size_t len)
{
	char line[LINE_MAX_LEN], *end;
	uint64_t a[4];
	double ns;
	int ret;

	tb_wl_svc_figs_init(f);
	while (next_line(&text, line, sizeof(line))) {
		if (count(line, &a[0], &end) && !strncmp(end, " requests in ", 13)) {
			if (!wrk_time(end + 13, &ns))
				return bad(err, len, "wrk", "a duration that is not one", line);
			f->requests = a[0];
			f->duration_s = ns / 1e9;
		} else if (!strncmp(line, "Requests/sec:", 13)) {
			const char *s = line + 13 + strspn(line + 13, " ");

			if (!number(s, &f->rps, &end))
				return bad(err, len, "wrk", "a rate that is not a number", line);
		} else if (sscanf(line,
				  "Socket errors: connect %lu, read %lu, write %lu, timeout %lu",
				  &a[0], &a[1], &a[2], &a[3]) == 4) {
			f->errors += (int64_t)(a[0] + a[1] + a[2] + a[3]);
		} else if (!strncmp(line, "Non-2xx or 3xx responses:", 25)) {
			const char *s = line + 25 + strspn(line + 25, " ");

			if (!count(s, &a[0], &end))
				return bad(err, len, "wrk", "a count that is not a number", line);
			f->errors += (int64_t)a[0];
		} else if ((ret = wrk_percentile(line, f)) < 0) {
			return bad(err, len, "wrk", "a latency that is not one", line);
		}
	}
	if (!f->requests && isnan(f->duration_s))
		return bad(err, len, "wrk", "no 'N requests in T' line", NULL);
	if (isnan(f->rps))
		return bad(err, len, "wrk", "no 'Requests/sec:' line", NULL);
	if (isnan(f->p50_ns) || isnan(f->p99_ns))
		return bad(err, len, "wrk", "no 50% and 99% latency lines (run with --latency)",
			   NULL);
	return 0;
}

struct point {
	double pct, ns;
};

/* The smallest bound of pts whose cumulative share reaches pct: an upper bound; NAN. */
static double reaching(const struct point *pts, size_t n, double pct)
{
	double best = NAN;

	for (size_t i = 0; i < n; i++)
		if (pts[i].pct >= pct && (isnan(best) || pts[i].ns < best))
			best = pts[i].ns;
	return best;
}

/* "99.902% <= 3.199 milliseconds (cumulative count 19981)": 1 taken, 0 other, -EINVAL. */
static int redis_point(const char *line, struct point *pt)
{
	char *end;

	if (!number(line, &pt->pct, &end) || strncmp(end, "% <= ", 5))
		return 0;
	if (!number(end + 5, &pt->ns, &end) || strncmp(end, " milliseconds", 13) || pt->pct > 100)
		return -EINVAL;
	pt->ns *= 1e6;
	return 1;
}

int tb_wl_svc_parse_redis(const char *text, struct tb_wl_svc_figs *f, char *err, size_t len)
{
	static struct point pts[MAX_POINTS]; /* one parse at a time in a workload process */
	char line[LINE_MAX_LEN], *end;
	size_t n = 0;
	uint64_t req;
	double v;
	int ret;

	tb_wl_svc_figs_init(f);
	while (next_line(&text, line, sizeof(line))) {
		if (count(line, &req, &end) && !strncmp(end, " requests completed in ", 23)) {
			f->requests = req;
			if (!number(end + 23, &v, &end) || strncmp(end, " seconds", 8))
				return bad(err, len, "redis-benchmark",
					   "a duration that is not one", line);
			f->duration_s = v;
		} else if (!strncmp(line, "throughput summary: ", 20)) {
			if (!number(line + 20, &f->rps, &end) ||
			    strncmp(end, " requests per second", 20))
				return bad(err, len, "redis-benchmark", "a rate that is not one",
					   line);
		} else if (!strncmp(line, "Error", 5) || !strncmp(line, "ERR", 3)) {
			f->errors++;
		} else if (n < MAX_POINTS && (ret = redis_point(line, &pts[n])) != 0) {
			if (ret < 0)
				return bad(err, len, "redis-benchmark",
					   "a percentile that is not one", line);
			n++;
		}
	}
	if (isnan(f->duration_s))
		return bad(err, len, "redis-benchmark", "no 'N requests completed in' line", NULL);
	if (isnan(f->rps))
		return bad(err, len, "redis-benchmark", "no 'throughput summary:' line", NULL);
	f->p50_ns = reaching(pts, n, 50);
	f->p99_ns = reaching(pts, n, 99);
	f->p999_ns = reaching(pts, n, 99.9);
	if (isnan(f->p50_ns) || isnan(f->p99_ns) || isnan(f->p999_ns))
		return bad(err, len, "redis-benchmark", "no latency table reaching 99.9%", NULL);
	return 0;
}

/* The count after prefix in line ("number of failed transactions: 0 (0.000%)"): 1, 0, -EINVAL */
static int prefixed_count(const char *line, const char *prefix, uint64_t *v)
{
	size_t n = strlen(prefix);
	char *end;

	if (strncmp(line, prefix, n))
		return 0;
	return count(line + n, v, &end) ? 1 : -EINVAL;
}

int tb_wl_svc_parse_pgbench(const char *text, struct tb_wl_svc_figs *f, char *err, size_t len)
{
	char line[LINE_MAX_LEN], *end;
	uint64_t v;
	bool processed = false;
	int r;

	tb_wl_svc_figs_init(f);
	while (next_line(&text, line, sizeof(line))) {
		if ((r = prefixed_count(
			     line, "number of transactions actually processed: ", &f->requests))) {
			if (r < 0)
				return bad(err, len, "pgbench", "a count that is not one", line);
			processed = true;
		} else if ((r = prefixed_count(line, "number of failed transactions: ", &v)) ||
			   (r = prefixed_count(line, "number of transactions skipped: ", &v))) {
			if (r < 0)
				return bad(err, len, "pgbench", "a count that is not one", line);
			f->errors += (int64_t)v;
		} else if ((r = prefixed_count(line, "duration: ", &v))) {
			if (r < 0)
				return bad(err, len, "pgbench", "a duration that is not one", line);
			f->duration_s = (double)v;
		} else if (!strncmp(line, "tps = ", 6)) {
			if (!number(line + 6, &f->rps, &end))
				return bad(err, len, "pgbench", "a rate that is not a number",
					   line);
		}
	}
	if (!processed)
		return bad(err, len, "pgbench",
			   "no 'number of transactions actually processed' line", NULL);
	if (isnan(f->rps))
		return bad(err, len, "pgbench", "no 'tps =' line", NULL);
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Nearest rank: the smallest value with at least q of the values at or below it. */
static double rank(const double *x, size_t n, double q)
{
	size_t i = (size_t)ceil(q * (double)n);

	return x[i ? i - 1 : 0];
}

/* One log line's latency in us (time + lag) into *us: 1, 0 (skipped or failed), -EINVAL. */
static int pgbench_log_line(char *line, double *us)
{
	char *field[9], *save = NULL, *tok, *end;
	size_t n = 0;
	double t, lag = 0;

	for (tok = strtok_r(line, " ", &save); tok && n < 9; tok = strtok_r(NULL, " ", &save))
		field[n++] = tok;
	if (n < 6 || n > 8)
		return -EINVAL;
	if (!strcmp(field[2], "skipped") || !strcmp(field[2], "failed"))
		return 0;
	if (!number(field[2], &t, &end) || *end)
		return -EINVAL;
	if (n >= 7 && (!number(field[6], &lag, &end) || *end))
		return -EINVAL;
	*us = t + lag;
	return 1;
}

/* One h2load log row's latency in us into *us: 1, 0 (a failed stream: status -1), -EINVAL. */
static int h2load_log_line(char *line, double *us)
{
	char *field[3], *save = NULL, *tok, *end;
	size_t n = 0;
	double start, status;

	for (tok = strtok_r(line, "\t", &save); tok && n < 3; tok = strtok_r(NULL, "\t", &save))
		field[n++] = tok;
	if (n < 3 || !number(field[0], &start, &end) || *end)
		return -EINVAL;
	if (!strcmp(field[1], "-1"))
		return 0;
	if (!number(field[1], &status, &end) || *end || status < 100 || status > 599)
		return -EINVAL;
	return number(field[2], us, &end) && !*end ? 1 : -EINVAL;
}

/*
 * A per-request log of client (one request a line, one(line, &us) reading each) into f's
 * percentiles (nearest rank, us to ns); its lines, blank ones left out, into *rows.
 */
static int latency_log(const char *text, const char *client, int (*one)(char *, double *),
		       struct tb_wl_svc_figs *f, size_t *rows, char *err, size_t len)
{
	char line[LINE_MAX_LEN];
	double *lat = NULL, us;
	size_t n = 0, cap = 0, lineno = 0;
	int ret = 0;

	*rows = 0;
	while (next_line(&text, line, sizeof(line))) {
		char copy[LINE_MAX_LEN];

		lineno++;
		if (!*line)
			continue;
		(*rows)++;
		memcpy(copy, line, sizeof(copy));
		ret = one(line, &us);
		if (ret < 0) {
			snprintf(err, len, "%s log: line %zu is not a request: '%.80s'", client,
				 lineno, copy);
			goto out;
		}
		if (!ret)
			continue;
		if (n == cap) {
			double *g = realloc(lat, (cap ? cap * 2 : 4096) * sizeof(*lat));

			if (!g) {
				ret = -ENOMEM;
				snprintf(err, len, "%s log: out of memory", client);
				goto out;
			}
			lat = g;
			cap = cap ? cap * 2 : 4096;
		}
		lat[n++] = us;
	}
	ret = -ENODATA;
	if (!n) {
		snprintf(err, len, "%s log: no completed request in it", client);
		goto out;
	}
	qsort(lat, n, sizeof(*lat), cmp_double);
	f->p50_ns = rank(lat, n, 0.50) * 1e3;
	f->p99_ns = rank(lat, n, 0.99) * 1e3;
	f->p999_ns = rank(lat, n, 0.999) * 1e3;
	ret = 0;
out:
	free(lat);
	return ret;
}

int tb_wl_svc_parse_pgbench_log(const char *text, struct tb_wl_svc_figs *f, char *err, size_t len)
{
	size_t rows;

	return latency_log(text, "pgbench", pgbench_log_line, f, &rows, err, len);
}

int tb_wl_svc_parse_h2load_log(const char *text, struct tb_wl_svc_figs *f, char *err, size_t len)
{
	size_t rows;
	int ret = latency_log(text, "h2load", h2load_log_line, f, &rows, err, len);

	if (!ret && f->requests && rows != f->requests) {
		snprintf(err, len,
			 "h2load log: %zu rows, but its summary says %llu requests done "
			 "(cut short?)",
			 rows, (unsigned long long)f->requests);
		return -EINVAL;
	}
	return ret;
}
