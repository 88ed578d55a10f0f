// SPDX-License-Identifier: GPL-2.0
/*
 * Scenario parsing. libinih does the INI syntax; a line-counting reader gives every key and
 * section its line number, so that every error reads "file:line: message".
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <ini.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "core/utf8.h"
#include "parse/scenario.h"
#include "workloads/workload.h"
#include "tracers/tracer.h"

#define MAX_SECTIONS 512
#define MAX_TEXT     (1u << 20)
#define MAX_SHOWN    10 /* errors printed; the rest are counted */

struct parse {
	struct tb_scenario *s;
	const char *what;
	const char *text, *pos;
	int line;	   /* line number of the line inih is handling */
	bool continuation; /* that line continues the previous value */
	char raw[512];	   /* that line as written ("" for a long one), for inline comments */
	const char *cut;   /* the inline comment inih cut from the value being handled, or NULL */
	int errors;
	/* current section */
	char cur[256];
	int cur_line;
	enum { SEC_NONE, SEC_GLOBAL, SEC_WORKLOAD, SEC_TRACER, SEC_MATRIX, SEC_GATE, SEC_BAD } kind;
	ssize_t cur_idx;
	char **seen_keys; /* keys of the current section, for duplicates */
	size_t nseen;
	char *last_key;
	int mx_workloads_line, mx_tracers_line, mx_exclude_line;
	/* libinih reads lines of at most INI_MAX_LINE (200) bytes: longer values (bpftrace
	 * programs, commands) are kept here and handed to inih as a "\001<index>" token. */
	char **long_vals;
	size_t nlong;
	struct tb_strlist mx_w, mx_t, mx_x;
	bool have_matrix, have_global;
	char dir[4096]; /* the scenario file's directory, absolute: relative inputs are there */
};

static void perr(struct parse *p, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void perr(struct parse *p, int line, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	/* 2,000 bad sections would print 2,000 lines: the first few, then a count. */
	if (p->errors++ >= MAX_SHOWN)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	tb_err("%s:%d: %s", p->what, line, msg);
}

/* Trimmed section header of a line "[name]", or NULL. */
static bool header_of(const char *line, char *out, size_t len)
{
	const char *s = line, *e;

	while (isspace((unsigned char)*s))
		s++;
	if (*s != '[')
		return false;
	e = strchr(s, ']');
	if (!e || (size_t)(e - s - 1) >= len)
		return false;
	memcpy(out, s + 1, (size_t)(e - s - 1));
	out[e - s - 1] = '\0';
	return true;
}

static void clear_seen(struct parse *p)
{
	size_t i;

	for (i = 0; i < p->nseen; i++)
		free(p->seen_keys[i]);
	free(p->seen_keys);
	p->seen_keys = NULL;
	p->nseen = 0;
	free(p->last_key);
	p->last_key = NULL;
}

static bool valid_name(const char *n)
{
	if (!*n || strlen(n) > 64)
		return false;
	for (; *n; n++)
		if (!isalnum((unsigned char)*n) && !strchr("-_.+", *n))
			return false;
	return true;
}

static void new_section(struct parse *p, const char *hdr, int line);

/* inih reader: hands out one line at a time and keeps count. */
static char *reader(char *str, int num, void *stream)
{
	struct parse *p = stream;
	const char *nl;
	size_t n;
	char hdr[256];

	if (!*p->pos)
		return NULL;
	nl = strchr(p->pos, '\n');
	n = nl ? (size_t)(nl - p->pos + 1) : strlen(p->pos);
	p->line++;
	if (n >= (size_t)num) {
		const char *eq = memchr(p->pos, '=', n);
		char **nl_vals;
		size_t klen, vlen;
		const char *v;

		if (!eq || (size_t)(eq - p->pos) > (size_t)num / 2 ||
		    !(nl_vals = realloc(p->long_vals, (p->nlong + 1) * sizeof(*nl_vals)))) {
			perr(p, p->line, "line longer than %d characters", num - 2);
			str[0] = ';'; /* hand inih a comment instead of a truncated line */
			str[1] = '\0';
			p->pos += n;
			return str;
		}
		p->long_vals = nl_vals;
		klen = (size_t)(eq - p->pos);
		v = eq + 1;
		vlen = n - klen - 1;
		while (vlen && (*v == ' ' || *v == '\t'))
			v++, vlen--;
		while (vlen && strchr(" \t\r\n", v[vlen - 1]))
			vlen--;
		p->long_vals[p->nlong] = strndup(v, vlen);
		snprintf(str, (size_t)num, "%.*s= \001%zu\n", (int)klen, p->pos, p->nlong);
		p->nlong++;
		p->pos += n;
		p->continuation = false;
		p->raw[0] = '\0';
		return str;
	}
	memcpy(str, p->pos, n);
	str[n] = '\0';
	snprintf(p->raw, sizeof(p->raw), "%s", str);
	p->pos += n;
	p->continuation = p->last_key && n > 0 && (str[0] == ' ' || str[0] == '\t') &&
			  str[strspn(str, " \t\r\n")] != '\0' && str[strspn(str, " \t")] != ';' &&
			  str[strspn(str, " \t")] != '#';
	if (header_of(str, hdr, sizeof(hdr)))
		new_section(p, hdr, p->line);
	return str;
}

static void *add_item(void **arr, size_t *n, size_t size)
{
	void *na;

	if (*n >= MAX_SECTIONS)
		return NULL;
	na = realloc(*arr, (*n + 1) * size);
	if (!na)
		return NULL;
	*arr = na;
	memset((char *)na + *n * size, 0, size);
	return (char *)na + (*n)++ * size;
}

static void new_section(struct parse *p, const char *hdr, int line)
{
	struct tb_scenario *s = p->s;
	char kind[64] = "", name[192] = "";
	int n, end = 0;

	clear_seen(p);
	snprintf(p->cur, sizeof(p->cur), "%s", hdr);
	p->cur_line = line;
	p->cur_idx = -1;
	n = sscanf(hdr, " %63s %191s %n", kind, name, &end);
	if (n == 2 && hdr[end]) {
		p->kind = SEC_BAD;
		perr(p, line, "bad section [%s]: expected [%s NAME] with one name", hdr, kind);
		return;
	}
	if (n == 1 && !strcmp(kind, "global")) {
		if (p->have_global)
			perr(p, line, "duplicate section [global]");
		p->have_global = true;
		p->kind = SEC_GLOBAL;
	} else if (n == 1 && !strcmp(kind, "matrix")) {
		if (p->have_matrix)
			perr(p, line, "duplicate section [matrix]");
		p->have_matrix = true;
		p->kind = SEC_MATRIX;
	} else if (n == 1 && !strcmp(kind, "gate")) {
		p->kind = SEC_GATE;
	} else if (n == 2 && (!strcmp(kind, "workload") || !strcmp(kind, "tracer"))) {
		bool wl = !strcmp(kind, "workload");

		p->kind = SEC_BAD;
		if (!valid_name(name)) {
			perr(p, line,
			     "bad %s name '%s' (letters, digits, - _ . + only, at most 64)", kind,
			     name);
			return;
		}
		if (wl ? tb_scenario_workload(s, name) >= 0 : tb_scenario_tracer(s, name) >= 0) {
			perr(p, line, "duplicate section [%s %s]%s", kind, name,
			     !wl && !strcmp(name, "none") ? " (the baseline 'none' is built in)"
							  : "");
			return;
		}
		if (wl) {
			struct tb_scn_workload *w =
				add_item((void **)&s->workloads, &s->nworkloads, sizeof(*w));
			if (!w || !(w->name = strdup(name))) {
				perr(p, line, "too many sections or out of memory");
				return;
			}
			w->line = line;
			w->threads = 0; /* 0: inherit from [global] */
			w->latency_every = 0;
			p->cur_idx = (ssize_t)s->nworkloads - 1;
			p->kind = SEC_WORKLOAD;
		} else {
			struct tb_scn_tracer *t =
				add_item((void **)&s->tracers, &s->ntracers, sizeof(*t));
			if (!t || !(t->name = strdup(name))) {
				perr(p, line, "too many sections or out of memory");
				return;
			}
			t->line = line;
			t->settle_ns = UINT64_MAX; /* inherit */
			t->explain = -1;
			p->cur_idx = (ssize_t)s->ntracers - 1;
			p->kind = SEC_TRACER;
		}
	} else {
		p->kind = SEC_BAD;
		perr(p, line,
		     "unknown section [%s] (expected [global], [workload NAME], [tracer NAME], [matrix] or [gate])",
		     hdr);
	}
}

/* Keys of [global]. */
enum gkey {
	G_NAME,
	G_DESC,
	G_REPS,
	G_MINR,
	G_MAXR,
	G_WARMUP,
	G_DUR,
	G_MAXT,
	G_SETTLE,
	G_TIMEOUT,
	G_CPUS,
	G_CCPU,
	G_THREADS,
	G_LAT,
	G_LATE,
	G_MLOCK,
	G_PERF,
	G_AA,
	G_SEED,
	G_PREC,
	G_NOISE,
	G_ALPHA,
	G_POWER,
	G_CONF,
	G_RES,
	G_EXPLAIN,
	G_EXPLAIN_SAMPLES,
	G_EXPLAIN_HZ,
	G_EXPLAIN_TOL
};

struct gcfg {
	char *name, *desc;
	int64_t reps, minr, maxr, warmup, threads, late, seed, res, ccpu, xsamples, xhz;
	uint64_t dur, maxt, settle, timeout;
	struct tb_strlist cpus;
	bool lat, mlock, perf, aa, reuse, skipu, explain;
	double prec, noise, alpha, power, conf, maxcv, xtol;
};

#define G(f) offsetof(struct gcfg, f)
static const struct tb_option global_opts[] = {
	{"name", TB_OPT_STRING, G(name), NULL, "scenario name (default: the file name)"},
	{"description", TB_OPT_STRING, G(desc), NULL, "one line on what it measures"},
	{"repetitions", TB_OPT_INT, G(reps), "10", "rounds; each runs every cell once", 1, 100000},
	{"min-rounds", TB_OPT_INT, G(minr), "5", "adaptive stopping: rounds before checking", 1,
	 100000},
	{"max-rounds", TB_OPT_INT, G(maxr), "100", "adaptive stopping: at most this many", 1,
	 100000},
	{"warmup", TB_OPT_INT, G(warmup), "1", "warmup rounds (run, recorded, not analysed)", 0,
	 1000},
	{"duration", TB_OPT_DURATION, G(dur), "1s", "per sample; batch size calibrated to it", 1e6,
	 3600e9},
	{"max-time", TB_OPT_DURATION, G(maxt), "0", "stop adding rounds after this (0: none)"},
	{"settle", TB_OPT_DURATION, G(settle), "20ms", "delay after tracer start and before stop",
	 0, 60e9},
	{"sample-timeout", TB_OPT_DURATION, G(timeout), "0",
	 "kill a sample after this (0: 20 x duration + 60s)"},
	{"cpus", TB_OPT_LIST, G(cpus), "auto",
	 "CPUs for workload threads: ids, 'auto' (the last online CPU) or 'none'"},
	{"consumer-cpu", TB_OPT_INT, G(ccpu), "-1", "CPU for tracer consumer threads (-1: auto)",
	 -1, 4095},
	{"threads", TB_OPT_INT, G(threads), "1", "workload threads (each runs the batch)", 1, 256},
	{"latency", TB_OPT_BOOL, G(lat), "false", "time individual ops into a histogram"},
	{"latency-every", TB_OPT_INT, G(late), "1", "latency mode: time one op in N", 1, 1000000},
	{"mlock", TB_OPT_BOOL, G(mlock), "false", "mlockall the workload process"},
	{"perf-counts", TB_OPT_BOOL, G(perf), "false",
	 "software perf counts per sample (inherited counters slow context switches: off by "
	 "default)"},
	{"aa", TB_OPT_BOOL, G(aa), "false", "A/A calibration: the baseline against itself"},
	{"reuse-tracers", TB_OPT_BOOL, G(reuse), "true",
	 "keep a cell's tracer set up across its samples where the tracer can reset itself "
	 "exactly (rearm); false: set up and tear down around every sample"},
	{"skip-unsupported", TB_OPT_BOOL, G(skipu), "false",
	 "leave out the sections unsupported here, each said with its reason (as run "
	 "--skip-unsupported), instead of refusing the run"},
	{"seed", TB_OPT_INT, G(seed), "-1", "shuffle and bootstrap seed (-1: from the clock)", -1,
	 9.0e18},
	{"precision", TB_OPT_PERCENT, G(prec), "0",
	 "adaptive: add rounds until every CI half-width is below this (0: fixed rounds)", 0, 1},
	{"noise-threshold", TB_OPT_PERCENT, G(noise), "1%", "smallest overhead called an effect", 0,
	 10},
	{"max-cv", TB_OPT_PERCENT, G(maxcv), "10%",
	 "a cell whose samples vary more (CV) is untrustworthy", 0.001, 10},
	{"alpha", TB_OPT_DOUBLE, G(alpha), "0.05", "significance level", 1e-6, 0.5},
	{"power", TB_OPT_DOUBLE, G(power), "0.8", "power for the minimal detectable effect", 0.5,
	 0.999},
	{"confidence", TB_OPT_DOUBLE, G(conf), "0.95", "confidence level of intervals", 0.5,
	 0.9999},
	{"resamples", TB_OPT_INT, G(res), "10000", "bootstrap resamples", 1000, 1000000},
	{"explain", TB_OPT_BOOL, G(explain), "false",
	 "after the rounds, profile every traced cell and its baseline: where the overhead lands"},
	{"explain-samples", TB_OPT_INT, G(xsamples), "3",
	 "explain: profiled samples per cell (baseline and traced interleaved)", 1, 1000},
	{"explain-frequency", TB_OPT_INT, G(xhz), "4000",
	 "explain: cpu-clock samples per second of the workload's CPU time (Hz)", 100, 100000},
	{"explain-tolerance", TB_OPT_PERCENT, G(xtol), "25%",
	 "explain: the profiles account for the measured overhead within this share", 0.01, 1},
	TB_OPT_END,
};
#undef G

/* Keys the harness owns in [workload] sections; the rest belongs to the plugin. */
struct wcfg {
	int64_t threads, late;
	bool lat, sweep;
	uint64_t dur;
};
#define W(f) offsetof(struct wcfg, f)
static const struct tb_option wl_harness_opts[] = {
	{"threads", TB_OPT_INT, W(threads), NULL, "threads for this workload", 1, 256},
	{"latency", TB_OPT_BOOL, W(lat), NULL, "latency mode for this workload"},
	{"latency-every", TB_OPT_INT, W(late), NULL, "time one op in N", 1, 1000000},
	{"duration", TB_OPT_DURATION, W(dur), NULL, "per-sample duration", 1e6, 3600e9},
	{"rate-sweep", TB_OPT_BOOL, W(sweep), NULL, "feed the cost-per-event rate model"},
	TB_OPT_END,
};
#undef W

struct tcfg {
	uint64_t settle;
	struct tb_strlist workloads;
	bool explain;
};
static const struct tb_option tr_harness_opts[] = {
	{"settle", TB_OPT_DURATION, offsetof(struct tcfg, settle), NULL,
	 "delay after start and before stop", 0, 60e9},
	{"workloads", TB_OPT_LIST, offsetof(struct tcfg, workloads), NULL,
	 "the matrix's workloads it runs on (default: every one): a tool against the workload it "
	 "targets"},
	{"explain", TB_OPT_BOOL, offsetof(struct tcfg, explain), NULL,
	 "profile where this tracer's cost lands ([global] explain when unset)"},
	TB_OPT_END,
};

static struct gcfg gdef;

static bool is_dup_key(struct parse *p, const char *name)
{
	size_t i;
	char **nk;

	for (i = 0; i < p->nseen; i++)
		if (!strcmp(p->seen_keys[i], name))
			return true;
	nk = realloc(p->seen_keys, (p->nseen + 1) * sizeof(*nk));
	if (nk) {
		p->seen_keys = nk;
		p->seen_keys[p->nseen] = strdup(name);
		if (p->seen_keys[p->nseen])
			p->nseen++;
	}
	return false;
}

static void set_plugin_key(struct parse *p, const struct tb_option *opts, void *cfg,
			   const char *kind, const char *name, const char *value)
{
	const struct tb_option *o = tb_opts_find(opts, name);
	char err[512];
	int ret;

	/* INI cuts " ; ..." as a comment: "command = /bin/echo a ; rm -rf /" would run
	 * /bin/echo a. A command so cut is refused rather than run as something else. */
	if (o && o->type == TB_OPT_ARGV && p->cut) {
		perr(p, p->line,
		     "[%s]: %s: '%.60s' would be cut as an inline comment (INI: ' ;' starts one); write ';' without the space before it, or quote it",
		     p->cur, name, p->cut);
		return;
	}
	ret = tb_opts_set(opts, cfg, name, value, err, sizeof(err));
	if (ret == -ENOENT)
		perr(p, p->line, "[%s]: unknown key '%s' for %s", p->cur, name, kind);
	else if (ret)
		perr(p, p->line, "[%s]: %s", p->cur, err);
}

/*
 * The `type` key of a workload or tracer section: the plugin's ops (found by find) and a config
 * of cfg_size bytes with its defaults. Returns false (said, section marked bad) when it fails.
 */
static bool section_type(struct parse *p, const char *kind, const char *value, bool found,
			 const struct tb_option *opts, size_t cfg_size, void **cfg)
{
	if (!found) {
		perr(p, p->line, "[%s]: unknown %s type '%s' (see 'tracebench list')", p->cur, kind,
		     value);
		p->kind = SEC_BAD;
		return false;
	}
	*cfg = calloc(1, cfg_size ? cfg_size : 1);
	if (!*cfg || tb_opts_defaults(opts, *cfg)) {
		perr(p, p->line, "[%s]: cannot initialise options", p->cur);
		p->kind = SEC_BAD;
		return false;
	}
	return true;
}

/* A key before `type`: refused, since the type decides which keys exist. */
static bool type_first(struct parse *p, bool have_type)
{
	if (have_type)
		return true;
	perr(p, p->line, "[%s]: 'type' must be the first key of the section", p->cur);
	p->kind = SEC_BAD;
	return false;
}

static void workload_key(struct parse *p, const char *name, const char *value)
{
	struct tb_scn_workload *w = &p->s->workloads[p->cur_idx];
	struct wcfg wc = {0};
	char err[512];

	if (!strcmp(name, "type")) {
		w->ops = tb_workload_find(value);
		if (w->ops)
			section_type(p, "workload", value, true, w->ops->opts, w->ops->cfg_size,
				     &w->cfg);
		else
			section_type(p, "workload", value, false, NULL, 0, NULL);
		return;
	}
	if (!type_first(p, w->ops))
		return;
	/* A plugin's own key wins over the harness's key of the same name. */
	if (tb_opts_find(w->ops->opts, name) || !tb_opts_find(wl_harness_opts, name)) {
		set_plugin_key(p, w->ops->opts, w->cfg, w->ops->name, name, value);
		return;
	}
	if (tb_opts_set(wl_harness_opts, &wc, name, value, err, sizeof(err))) {
		perr(p, p->line, "[%s]: %s", p->cur, err);
		return;
	}
	if (!strcmp(name, "threads"))
		w->threads = (unsigned int)wc.threads;
	else if (!strcmp(name, "latency"))
		w->latency = wc.lat, w->latency_every = w->latency_every ?: 0;
	else if (!strcmp(name, "latency-every"))
		w->latency_every = (unsigned int)wc.late;
	else if (!strcmp(name, "duration"))
		w->duration_ns = wc.dur;
	else
		w->rate_sweep = wc.sweep;
}

static void tracer_key(struct parse *p, const char *name, const char *value)
{
	struct tb_scn_tracer *t = &p->s->tracers[p->cur_idx];
	struct tcfg tc = {0};
	char err[512];

	if (!strcmp(name, "type")) {
		t->ops = tb_tracer_find(value);
		if (t->ops)
			section_type(p, "tracer", value, true, t->ops->opts, t->ops->cfg_size,
				     &t->cfg);
		else
			section_type(p, "tracer", value, false, NULL, 0, NULL);
		return;
	}
	if (!type_first(p, t->ops))
		return;
	if (tb_opts_find(t->ops->opts, name) || !tb_opts_find(tr_harness_opts, name)) {
		set_plugin_key(p, t->ops->opts, t->cfg, t->ops->name, name, value);
		return;
	}
	if (tb_opts_set(tr_harness_opts, &tc, name, value, err, sizeof(err))) {
		perr(p, p->line, "[%s]: %s", p->cur, err);
	} else if (!strcmp(name, "workloads")) {
		tb_strlist_free(&t->only); /* a duplicate key (already an error): no leak */
		t->only = tc.workloads;
		t->only_line = p->line;
	} else if (!strcmp(name, "explain")) {
		t->explain = tc.explain;
	} else {
		t->settle_ns = tc.settle;
	}
}

/*
 * cpus: 'auto', 'none', or CPU ids (0..4095), checked here so that junk is reported at its
 * line; whether the ids are online is the runner's business. Empty means 'auto' (run.c).
 */
static void check_cpus(struct parse *p, const struct tb_strlist *l)
{
	int64_t id;
	size_t i;

	for (i = 0; i < l->n; i++) {
		if ((!strcmp(l->v[i], "auto") || !strcmp(l->v[i], "none")) && l->n == 1)
			continue;
		if (tb_parse_int(l->v[i], &id) || id < 0 || id > 4095) {
			perr(p, p->line,
			     "[global]: key 'cpus': bad CPU '%s' (CPU ids 0-4095, or 'auto' or 'none' alone)",
			     l->v[i]);
			return;
		}
	}
}

static void global_key(struct parse *p, const char *name, const char *value)
{
	char err[512];
	int ret;

	/* The name becomes part of the run directory's name. */
	if (!strcmp(name, "name") && !valid_name(value)) {
		perr(p, p->line,
		     "[global]: name: '%.40s%s' is not a valid name (letters, digits, - _ . + only, at most 64)",
		     value, strlen(value) > 40 ? "..." : "");
		return;
	}
	ret = tb_opts_set(global_opts, &gdef, name, value, err, sizeof(err));
	if (ret == -ENOENT)
		perr(p, p->line, "[global]: unknown key '%s'", name);
	else if (ret)
		perr(p, p->line, "[global]: %s", err);
	else if (!strcmp(name, "cpus"))
		check_cpus(p, &gdef.cpus);
}

static void matrix_key(struct parse *p, const char *name, const char *value)
{
	struct tb_strlist *l;

	if (strcmp(name, "workloads") && strcmp(name, "tracers") && strcmp(name, "exclude")) {
		perr(p, p->line,
		     "[matrix]: unknown key '%s' (expected workloads, tracers, exclude)", name);
		return;
	}
	l = name[0] == 'w' ? &p->mx_w : name[0] == 't' ? &p->mx_t : &p->mx_x;
	/* A second [matrix] (already an error) may set the key again: no leak. */
	tb_strlist_free(l);
	if (tb_split_list(value, l))
		perr(p, p->line, "[matrix]: bad list '%s' for key '%s'", value, name);
	else if (!l->n)
		perr(p, p->line, "[matrix]: '%s' is empty", name);
	if (name[0] == 'w')
		p->mx_workloads_line = p->line;
	else if (name[0] == 't')
		p->mx_tracers_line = p->line;
	else
		p->mx_exclude_line = p->line;
}

/* In this order: gate_key() checks the values by position (percent, percent, alpha, bools). */
const struct tb_scn_gate_key tb_scenario_gate_keys[] = {
	{"max-overhead", "fail a traced cell whose overhead is significantly above this (5%)"},
	{"max-regression", "against --baseline: fail a cell whose ns/op or overhead grew "
			   "significantly by more than this (3%, percentage points for overheads)"},
	{"alpha", "the gate's significance level (0.01)"},
	{"allow-untrustworthy", "report untrustworthy cells as skipped instead of failing (false)"},
	{"require-power", "fail a cell whose minimal detectable effect exceeds a limit it is "
			  "gated against (false: a warning)"},
	{NULL, NULL},
};

const struct tb_option *tb_scenario_keys(enum tb_scn_section section)
{
	return section == TB_SCN_GLOBAL	    ? global_opts
	       : section == TB_SCN_WORKLOAD ? wl_harness_opts
					    : tr_harness_opts;
}

/* [gate] keys are checked here and kept as text; the gate interprets them. */
static void gate_key(struct parse *p, const char *name, const char *value)
{
	const struct tb_scn_gate_key *gate_keys = tb_scenario_gate_keys;
	struct tb_scenario *s = p->s;
	char **nk, **nv;
	size_t k;
	double d;
	bool b;

	for (k = 0; gate_keys[k].name && strcmp(gate_keys[k].name, name); k++)
		;
	if (!gate_keys[k].name) {
		perr(p, p->line,
		     "[gate]: unknown key '%s' (expected max-overhead, max-regression, alpha, allow-untrustworthy, require-power)",
		     name);
		return;
	}
	if ((k <= 1 && tb_parse_percent(value, &d)) ||
	    (k == 2 && (tb_parse_double(value, &d) || d <= 0 || d >= 1)) ||
	    (k >= 3 && tb_parse_bool(value, &b))) {
		perr(p, p->line, "[gate]: bad value '%s' for '%s'", value, name);
		return;
	}
	nk = realloc(s->gate_keys, (s->ngate + 1) * sizeof(*nk));
	nv = nk ? realloc(s->gate_vals, (s->ngate + 1) * sizeof(*nv)) : NULL;
	if (nk)
		s->gate_keys = nk;
	if (!nv) {
		perr(p, p->line, "out of memory");
		return;
	}
	s->gate_vals = nv;
	s->gate_keys[s->ngate] = strdup(name);
	s->gate_vals[s->ngate] = strdup(value);
	s->ngate++;
}

/*
 * The inline comment inih cut from value on the current line (the text from its ';'), or NULL
 * when it cut none: the line as written holds more after the value than blanks.
 */
static const char *inline_cut(const struct parse *p, const char *value)
{
	const char *v = p->raw + strcspn(p->raw, "=:"), *c;
	size_t n = strlen(value);

	if (!p->raw[0] || p->continuation || !*v)
		return NULL;
	v += 1 + strspn(v + 1, " \t");
	if (strncmp(v, value, n))
		return NULL;
	c = v + n + strspn(v + n, " \t");
	return *c == ';' ? c : NULL;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
	struct parse *p = user;

	(void)section;
	p->cut = inline_cut(p, value);
	if (value[0] == '\001') {
		unsigned long k = strtoul(value + 1, NULL, 10);

		if (k < p->nlong && p->long_vals[k])
			value = p->long_vals[k];
	}
	if (p->continuation && p->last_key && !strcmp(p->last_key, name)) {
		/*
		 * inih hands an indented line to us as more of the previous key. Long values are
		 * taken whole instead (see reader()), so a continuation is refused, not guessed at.
		 */
		if (p->kind == SEC_BAD)
			return 1;
		perr(p, p->line,
		     "[%s]: continuation lines are not supported for key '%s'; put the value on one line",
		     p->cur, name);
		return 1;
	}
	free(p->last_key);
	p->last_key = strdup(name);
	if (p->kind == SEC_NONE) {
		perr(p, p->line, "key '%s' outside any section", name);
		return 1;
	}
	if (p->kind == SEC_BAD)
		return 1; /* already reported at the section header */
	if (is_dup_key(p, name)) {
		perr(p, p->line, "[%s]: duplicate key '%s'", p->cur, name);
		return 1;
	}
	switch (p->kind) {
	case SEC_GLOBAL:
		global_key(p, name, value);
		break;
	case SEC_WORKLOAD:
		workload_key(p, name, value);
		break;
	case SEC_TRACER:
		tracer_key(p, name, value);
		break;
	case SEC_MATRIX:
		matrix_key(p, name, value);
		break;
	case SEC_GATE:
		gate_key(p, name, value);
		break;
	default:
		break;
	}
	return 1;
}

int tb_scenario_workload(const struct tb_scenario *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->nworkloads; i++)
		if (!strcmp(s->workloads[i].name, name))
			return (int)i;
	return -1;
}

int tb_scenario_tracer(const struct tb_scenario *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->ntracers; i++)
		if (!strcmp(s->tracers[i].name, name))
			return (int)i;
	return -1;
}

unsigned int tb_scenario_first_rounds(const struct tb_scenario *s)
{
	return s->precision > 0 ? s->min_rounds : s->rounds;
}

bool tb_scenario_excluded(const struct tb_scenario *s, size_t wi, size_t ti)
{
	char pair[512];
	size_t i;

	if (ti == 0)
		return false;
	snprintf(pair, sizeof(pair), "%s/%s", s->workloads[wi].name, s->tracers[ti].name);
	for (i = 0; i < s->mx_exclude.n; i++)
		if (!fnmatch(s->mx_exclude.v[i], pair, 0))
			return true;
	return false;
}

/*
 * [matrix] exclude: WORKLOAD/TRACER glob patterns. Each must have one '/' and leave out at
 * least one traced cell of the matrix (a pattern that matches nothing is a typo).
 */
static int resolve_exclude(struct parse *p)
{
	struct tb_scenario *s = p->s;
	size_t i, w, t;

	s->mx_exclude = p->mx_x;
	p->mx_x = (struct tb_strlist){0};
	for (i = 0; i < s->mx_exclude.n; i++) {
		const char *pat = s->mx_exclude.v[i], *slash = strchr(pat, '/');
		struct tb_strlist one = {.v = &s->mx_exclude.v[i], .n = 1}, all = s->mx_exclude;
		bool hit = false;

		if (!slash || strchr(slash + 1, '/')) {
			perr(p, p->mx_exclude_line,
			     "[matrix]: exclude: '%s' is not WORKLOAD/TRACER (globs allowed)", pat);
			continue;
		}
		s->mx_exclude = one;
		for (w = 0; !hit && w < s->nmx_workloads; w++)
			for (t = 1; !hit && t < s->nmx_tracers; t++)
				hit = tb_scenario_excluded(s, s->mx_workloads[w], s->mx_tracers[t]);
		s->mx_exclude = all;
		if (!hit)
			perr(p, p->mx_exclude_line,
			     "[matrix]: exclude: '%s' matches no traced cell of the matrix", pat);
	}
	return 0;
}

bool tb_scenario_runs_on(const struct tb_scn_tracer *t, const char *workload)
{
	for (size_t k = 0; k < t->only.n; k++)
		if (!strcmp(t->only.v[k], workload))
			return true;
	return !t->only.n;
}

/* Each tracer's 'workloads' names workloads of the matrix, once each. */
static void resolve_only(struct parse *p)
{
	struct tb_scenario *s = p->s;

	for (size_t i = 1; i < s->ntracers; i++) {
		const struct tb_scn_tracer *t = &s->tracers[i];

		for (size_t k = 0; k < t->only.n; k++) {
			int idx = tb_scenario_workload(s, t->only.v[k]);
			bool listed = false;

			for (size_t j = 0; idx >= 0 && j < s->nmx_workloads; j++)
				listed |= s->mx_workloads[j] == (size_t)idx;
			if (!listed)
				perr(p, t->only_line,
				     "[tracer %s]: workloads: '%s' is not a workload of the [matrix]",
				     t->name, t->only.v[k]);
			for (size_t j = 0; j < k; j++)
				if (!strcmp(t->only.v[j], t->only.v[k]))
					perr(p, t->only_line,
					     "[tracer %s]: workloads: '%s' listed twice", t->name,
					     t->only.v[k]);
		}
	}
}

static int resolve_matrix(struct parse *p)
{
	struct tb_scenario *s = p->s;
	size_t i, j;
	int idx;

	if (!p->have_matrix || !p->mx_w.n) {
		/* An empty file has no line 0: point at line 1. */
		perr(p,
		     p->have_matrix ? p->cur_line
		     : p->line	    ? p->line
				    : 1,
		     "no [matrix] with 'workloads = ...' (and 'tracers = ...')");
		return -EINVAL;
	}
	s->mx_workloads = calloc(p->mx_w.n, sizeof(size_t));
	s->mx_tracers = calloc(p->mx_t.n + 1, sizeof(size_t));
	if (!s->mx_workloads || !s->mx_tracers)
		return -ENOMEM;
	for (i = 0; i < p->mx_w.n; i++) {
		idx = tb_scenario_workload(s, p->mx_w.v[i]);
		if (idx < 0) {
			perr(p, p->mx_workloads_line, "[matrix]: workload '%s' is not defined",
			     p->mx_w.v[i]);
			continue;
		}
		for (j = 0; j < s->nmx_workloads; j++)
			if (s->mx_workloads[j] == (size_t)idx)
				perr(p, p->mx_workloads_line,
				     "[matrix]: workload '%s' listed twice", p->mx_w.v[i]);
		s->workloads[idx].used = true;
		s->mx_workloads[s->nmx_workloads++] = (size_t)idx;
	}
	/* The baseline always runs, first in the list. */
	s->mx_tracers[s->nmx_tracers++] = 0;
	s->tracers[0].used = true;
	for (i = 0; i < p->mx_t.n; i++) {
		idx = tb_scenario_tracer(s, p->mx_t.v[i]);
		if (idx < 0) {
			perr(p, p->mx_tracers_line, "[matrix]: tracer '%s' is not defined",
			     p->mx_t.v[i]);
			continue;
		}
		if (idx == 0)
			continue;
		for (j = 0; j < s->nmx_tracers; j++)
			if (s->mx_tracers[j] == (size_t)idx)
				perr(p, p->mx_tracers_line, "[matrix]: tracer '%s' listed twice",
				     p->mx_t.v[i]);
		s->tracers[idx].used = true;
		s->mx_tracers[s->nmx_tracers++] = (size_t)idx;
	}
	resolve_only(p);
	return resolve_exclude(p);
}

/* After parsing: types present, plugin validation, unused sections, global values. */
static void finish(struct parse *p)
{
	struct tb_scenario *s = p->s;
	char err[512];
	size_t i;

	for (i = 0; i < s->nworkloads; i++) {
		struct tb_scn_workload *w = &s->workloads[i];

		if (!w->ops) {
			perr(p, w->line, "[workload %s]: no 'type' key", w->name);
			continue;
		}
		if (w->ops->validate && w->ops->validate(w->cfg, err, sizeof(err)))
			perr(p, w->line, "[workload %s]: %s", w->name, err);
		if (!w->threads)
			w->threads = (unsigned int)gdef.threads;
		if (!w->latency_every)
			w->latency_every = (unsigned int)gdef.late;
		if (!w->duration_ns)
			w->duration_ns = gdef.dur;
		if (gdef.lat)
			w->latency = true;
		if (w->latency && (w->ops->flags & TB_WL_NOLATENCY))
			perr(p, w->line, "[workload %s]: latency mode is not available for %s",
			     w->name, w->ops->name);
	}
	for (i = 1; i < s->ntracers; i++) {
		struct tb_scn_tracer *t = &s->tracers[i];

		if (!t->ops) {
			perr(p, t->line, "[tracer %s]: no 'type' key", t->name);
			continue;
		}
		if (t->ops->resolve && t->ops->resolve(t->cfg, p->dir, err, sizeof(err)))
			perr(p, t->line, "[tracer %s]: %s", t->name, err);
		else if (t->ops->validate && t->ops->validate(t->cfg, err, sizeof(err)))
			perr(p, t->line, "[tracer %s]: %s", t->name, err);
		if (t->settle_ns == UINT64_MAX)
			t->settle_ns = gdef.settle;
		if (t->explain < 0)
			t->explain = gdef.explain;
	}
	s->tracers[0].settle_ns = gdef.settle;
	if (gdef.minr > gdef.maxr)
		perr(p, 1, "[global]: min-rounds (%lld) is above max-rounds (%lld)",
		     (long long)gdef.minr, (long long)gdef.maxr);
}

void tb_scenario_free(struct tb_scenario *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nworkloads; i++) {
		if (s->workloads[i].ops)
			tb_opts_free(s->workloads[i].ops->opts, s->workloads[i].cfg);
		free(s->workloads[i].cfg);
		free(s->workloads[i].name);
	}
	for (i = 0; i < s->ntracers; i++) {
		if (s->tracers[i].ops && s->tracers[i].cfg)
			tb_opts_free(s->tracers[i].ops->opts, s->tracers[i].cfg);
		free(s->tracers[i].cfg);
		free(s->tracers[i].name);
		tb_strlist_free(&s->tracers[i].only);
	}
	for (i = 0; i < s->ngate; i++) {
		free(s->gate_keys[i]);
		free(s->gate_vals[i]);
	}
	free(s->gate_keys);
	free(s->gate_vals);
	free(s->workloads);
	free(s->tracers);
	free(s->mx_workloads);
	free(s->mx_tracers);
	tb_strlist_free(&s->mx_exclude);
	tb_strlist_free(&s->cpus);
	free(s->path);
	free(s->name);
	free(s->description);
	free(s->text);
	free(s);
}

/* Refuse what cannot be a scenario: too large, or binary. Returns 0 or -EINVAL (said). */
static int check_text(const char *text, const char *what)
{
	size_t i, k;
	long bad;

	if (strlen(text) > MAX_TEXT) {
		tb_err("%s: larger than %u bytes: not a scenario file", what, MAX_TEXT);
		return -EINVAL;
	}
	for (i = 0; text[i]; i++) {
		unsigned char c = (unsigned char)text[i];
		int line = 1;

		if (c >= 0x20 || c == '\n' || c == '\t' || c == '\r')
			continue;
		for (k = 0; k < i; k++)
			line += text[k] == '\n';
		tb_err("%s:%d: binary data (byte 0x%02x): not a scenario file", what, line, c);
		return -EINVAL;
	}
	/* A command or a description that is not UTF-8 could not be stored in result.json. */
	bad = tb_utf8_invalid_at(text);
	if (bad >= 0) {
		int line = 1;

		for (k = 0; k < (size_t)bad; k++)
			line += text[k] == '\n';
		tb_err("%s:%d: invalid UTF-8 (byte 0x%02x): scenario files are UTF-8 text", what,
		       line, (unsigned char)text[bad]);
		return -EINVAL;
	}
	return 0;
}

/* tracers[0] is the built-in baseline "none". Returns 0 or -ENOMEM. */
static int add_baseline_tracer(struct tb_scenario *s)
{
	const struct tb_tracer_ops *none = tb_tracer_find("none");

	s->tracers = calloc(1, sizeof(*s->tracers));
	if (!s->tracers || !none) {
		tb_err("bug: the 'none' tracer is not registered");
		return -ENOMEM;
	}
	s->ntracers = 1;
	s->tracers[0].name = strdup("none");
	s->tracers[0].ops = none;
	s->tracers[0].cfg = calloc(1, none->cfg_size ? none->cfg_size : 1);
	return s->tracers[0].name && s->tracers[0].cfg ? 0 : -ENOMEM;
}

/* The parsed [global] keys (gdef) and the file's identity into s. Returns 0 or -ENOMEM. */
static int apply_global(struct tb_scenario *s, const char *text, const char *what)
{
	char *base, *dot;

	s->text = strdup(text);
	s->path = strdup(what);
	if (gdef.name) {
		s->name = strdup(gdef.name);
	} else {
		base = strdup(what);
		s->name = base ? strdup(basename(base)) : NULL;
		free(base);
		dot = s->name ? strrchr(s->name, '.') : NULL;
		if (dot && !strcmp(dot, ".ini"))
			*dot = '\0';
	}
	s->description = gdef.desc ? strdup(gdef.desc) : NULL;
	s->rounds = (unsigned int)gdef.reps;
	s->min_rounds = (unsigned int)gdef.minr;
	s->max_rounds = (unsigned int)gdef.maxr;
	s->warmup = (unsigned int)gdef.warmup;
	s->duration_ns = gdef.dur;
	s->max_time_ns = gdef.maxt;
	s->settle_ns = gdef.settle;
	s->sample_timeout_ns = gdef.timeout;
	s->cpus = gdef.cpus;
	gdef.cpus = (struct tb_strlist){0};
	s->consumer_cpu = (int)gdef.ccpu;
	s->threads = (unsigned int)gdef.threads;
	s->latency = gdef.lat;
	s->latency_every = (unsigned int)gdef.late;
	s->mlock = gdef.mlock;
	s->perf_counts = gdef.perf;
	s->reuse_tracers = gdef.reuse;
	s->aa = gdef.aa;
	s->skip_unsupported = gdef.skipu;
	s->seed_set = gdef.seed >= 0;
	s->seed = s->seed_set ? (uint64_t)gdef.seed : 0;
	s->precision = gdef.prec;
	s->noise_threshold = gdef.noise;
	s->max_cv = gdef.maxcv;
	s->alpha = gdef.alpha;
	s->power = gdef.power;
	s->confidence = gdef.conf;
	s->resamples = (unsigned int)gdef.res;
	s->explain = gdef.explain;
	s->explain_samples = (unsigned int)gdef.xsamples;
	s->explain_hz = (uint64_t)gdef.xhz;
	s->explain_tolerance = gdef.xtol;
	return s->text && s->path && s->name ? 0 : -ENOMEM;
}

/* The absolute directory of the scenario file what (the working directory for a bare name). */
static void scenario_dir(const char *what, char *dir, size_t len)
{
	char copy[4096], *abs;

	snprintf(copy, sizeof(copy), "%s", what);
	abs = realpath(dirname(copy), NULL);
	snprintf(dir, len, "%s", abs ? abs : ".");
	free(abs);
}

int tb_scenario_parse(const char *text, const char *what, struct tb_scenario **out)
{
	struct parse p = {0};
	struct tb_scenario *s;
	int ret;
	size_t i;

	*out = NULL;
	if (!strncmp(text, "\xef\xbb\xbf", 3))
		text += 3; /* a UTF-8 byte order mark, as some editors write */
	if (check_text(text, what))
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	p.s = s;
	p.what = what;
	p.text = p.pos = text;
	scenario_dir(what, p.dir, sizeof(p.dir));
	memset(&gdef, 0, sizeof(gdef));
	if (tb_opts_defaults(global_opts, &gdef)) {
		ret = -EINVAL;
		goto out;
	}
	ret = add_baseline_tracer(s);
	if (ret)
		goto out;
	ret = ini_parse_stream(reader, &p, handler, &p);
	if (ret > 0 && !p.errors)
		perr(&p, ret, "syntax error (expected '[section]', 'key = value' or a comment)");
	else if (ret < 0)
		perr(&p, 1, "cannot parse (out of memory)");
	if (!p.errors || p.have_matrix)
		resolve_matrix(&p);
	if (!p.errors)
		finish(&p);
	if (p.errors > MAX_SHOWN)
		tb_err("%s: %d more errors not shown (%d in all)", what, p.errors - MAX_SHOWN,
		       p.errors);
	ret = p.errors ? -EINVAL : apply_global(s, text, what);
out:
	clear_seen(&p);
	for (i = 0; i < p.nlong; i++)
		free(p.long_vals[i]);
	free(p.long_vals);
	tb_strlist_free(&p.mx_w);
	tb_strlist_free(&p.mx_t);
	tb_strlist_free(&p.mx_x);
	tb_opts_free(global_opts, &gdef);
	if (ret) {
		tb_scenario_free(s);
		return ret;
	}
	*out = s;
	return 0;
}

int tb_scenario_load(const char *path, struct tb_scenario **out)
{
	char *text = NULL, *nul;
	size_t len = 0;
	int ret;

	*out = NULL;
	/* Not waiting on a FIFO for a writer, nor reading a device: a regular file or nothing. */
	ret = tb_read_regular(path, MAX_TEXT + 1, &text, &len);
	if (ret) {
		tb_err("%s: cannot read scenario: %s", path,
		       ret == -EISDIR	? "is a directory"
		       : ret == -ENOTTY ? "not a regular file"
		       : ret == -EFBIG	? "larger than 1 MiB: not a scenario file"
					: strerror(-ret));
		return ret == -ENOTTY || ret == -EFBIG ? -EINVAL : ret;
	}
	nul = memchr(text, '\0', len);
	if (nul) {
		int line = 1;
		char *c;

		for (c = text; c < nul; c++)
			line += *c == '\n';
		tb_err("%s:%d: binary data (byte 0x00): not a scenario file", path, line);
		free(text);
		return -EINVAL;
	}
	ret = tb_scenario_parse(text, path, out);
	free(text);
	return ret;
}
