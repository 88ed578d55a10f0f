// SPDX-License-Identifier: GPL-2.0
/*
 * `tracebench run`: parse the command line -> prepare (scenario, plan, lock, run directory) ->
 * measure (runner/runner.h) -> publish (result.json, samples.csv, the summary, plots, report,
 * and the gate when asked).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "core/env.h"
#include "core/inject.h"
#include "core/tb.h"
#include "explain/explain.h"
#include "host/armed.h"
#include "host/bpf-freeing.h"
#include "host/cleanup.h"
#include "host/tracing-state.h"
#include "history/store.h"
#include "render/csv.h"
#include "render/gnuplot/plot.h"
#include "render/html/report.h"
#include "render/summary.h"
#include "render/text.h"
#include "plan/plan.h"
#include "host/sysinfo.h"
#include "model/anonymize.h"
#include "model/figures.h"
#include "model/labels.h"
#include "model/measured.h"
#include "model/result.h"
#include "runner/rundir.h"
#include "runner/runner.h"
#include "parse/scenario.h"
#include "cli/gate-run.h"
#include "cli/run-limit.h"
#include "cli/run-repeat.h"
#include "runner/limit.h"
#include "stats/gate.h"
#include "stats/stats.h"

const char tb_usage_run[] =
	"usage: tracebench run SCENARIO.ini [options]\n"
	"  -o, --output DIR        write the run here (must not exist or be empty)\n"
	"                          default: results/<UTC time>-<host>-<scenario>/\n"
	"      --quick             5 rounds of 200 ms samples (a fast look, still with CIs)\n"
	"      --rounds N          override [global] repetitions\n"
	"      --warmup N          override [global] warmup (rounds run but not analysed)\n"
	"      --duration D        override [global] duration (e.g. 500ms)\n"
	"      --precision P       adaptive stopping at CI half-width P (e.g. 1%)\n"
	"      --max-time D        the run's time budget: no round starts that would not end\n"
	"                          within D (traced cells' samples sized to their slowdown)\n"
	"      --seed N            shuffle and bootstrap seed\n"
	"      --repeat N          the run N times (2 to 100) into DIR/repeat-K, then combined\n"
	"                          (DIR/combined.txt, .json): a CI holding the runs' spread\n"
	"      --spacing D         with --repeat: wait D between repeats (e.g. 10m; no lock held)\n"
	"      --aa                A/A calibration: the baseline against itself\n"
	"      --dry-run           print the plan and the estimated time, run nothing\n"
	"      --json              print result.json to stdout instead of the table\n"
	"      --no-plots          skip plots and the HTML report\n"
	"      --gate              gate the result afterwards (exit 1 when it fails)\n"
	"      --skip-unsupported  drop cells whose plugin is unsupported here (else exit 3)\n"
	"      --allow-foreign     measure although another tracer is active (else exit 3);\n"
	"                          its baseline is biased and every result says so\n"
	"      --wait              wait for another run to finish (else exit 3 at once)\n"
	"      --anonymize         no host, user, path or command line in what is written\n"
	"      --label KEY=VALUE   attach a label to the result (repeatable; e.g. commit=abc123)\n"
	"      --history[=DB]      add the run to the history (default $TRACEBENCH_DB, else\n"
	"                          results/history.db; also --history FILE.db or URL); with\n"
	"                          --gate, gate against the history first\n"
	"      --explain           afterwards, profile every traced cell and its baseline: where\n"
	"                          the overhead lands (folded stacks, flame graphs, a table)\n"
	"      --find-limit[=RATE] afterwards, for each cell that can lose events: the highest\n"
	"                          event rate its buffer holds (bisection along the workload's\n"
	"                          work, then calls per op, then threads); with RATE (events/s,\n"
	"                          e.g. 200k): the smallest buffer that holds it\n"
	"  -h, --help\n" TB_CLI_COMMON_USAGE
	"                          (run -q: no plan or progress line either)\n";

/* The command line. */
struct run_opts {
	const char *scenario, *outdir;
	bool quick, aa, skip, wait_lock, dry_run, json_out, no_plots, gate, anonymize, quiet;
	bool allow_foreign;  /* --allow-foreign */
	bool history;	     /* --history */
	const char *hist_db; /* its database, NULL for the default */
	bool explain;
	bool find_limit;	      /* --find-limit */
	double limit_rate;	      /* its RATE, NAN: none */
	int64_t rounds, warmup, seed; /* -1: not given */
	uint64_t dur, maxt;	      /* 0: not given */
	unsigned int repeat;	      /* --repeat N, 0: not given */
	uint64_t spacing;	      /* --spacing D */
	bool spacing_given;
	double prec;	/* -1: not given */
	json_t *labels; /* --label KEY=VALUE, checked */
};

/* One invocation. */
struct run {
	struct run_opts o;
	int argc; /* the command's words as given (getopt reorders argv), for --repeat */
	char **words;
	char *repeat_dir; /* a repeat's own directory (TB_ENV_REPEAT), its -o */
	struct tb_scenario *s;
	struct tb_result *r;
	struct tb_plan plan;
	struct tb_runner rn;
	struct tb_dir rundir; /* the run directory (core/outdir.h); its path names it */
	char scratch[64];     /* the workloads' scratch root */
	char *cmdline;	      /* how it was started, for the result */
	bool locked, progress, interrupted;
	bool disk_refused;  /* check_disk stopped the run before its first sample */
	double log_every_s; /* no terminal: a progress line this often (0: none) */
	double logged_s;    /* when the last one was printed (runner's elapsed time) */
	int write_err; /* the first failed write of result.json or samples.csv: the run stops */
};

/* ---- parse ----------------------------------------------------------------------------- */

/* An option with a value to check into o; returns -1 to go on, else the exit code. */
static int parse_value(int c, struct run_opts *o)
{
	char err[256];
	int ret;

	switch (c) {
	case 'r':
		if (tb_parse_int(optarg, &o->rounds) || o->rounds < 1 || o->rounds > 100000)
			return tb_cli_bad_value("run", "--rounds", optarg, "1 to 100000");
		break;
	case 'R': {
		int64_t n;

		if (tb_parse_int(optarg, &n) || n < 2 || n > 100)
			return tb_cli_bad_value("run", "--repeat", optarg, "2 to 100");
		o->repeat = (unsigned int)n;
		break;
	}
	case 'D':
		ret = tb_parse_duration(optarg, &o->spacing);
		if (ret || o->spacing > 86400000000000ull)
			return tb_cli_bad_value("run", "--spacing", optarg,
						ret == -EDOM ? TB_DURATION_UNITS : "0 to 24h");
		o->spacing_given = true;
		break;
	case 'w':
		if (tb_parse_int(optarg, &o->warmup) || o->warmup < 0 || o->warmup > 1000)
			return tb_cli_bad_value("run", "--warmup", optarg, "0 to 1000");
		break;
	case 'd':
		ret = tb_parse_duration(optarg, &o->dur);
		if (ret || o->dur < 1000000)
			return tb_cli_bad_value("run", "--duration", optarg,
						ret == -EDOM ? TB_DURATION_UNITS : "at least 1ms");
		break;
	case 'p':
		ret = tb_parse_percent(optarg, &o->prec);
		if (ret)
			return tb_cli_bad_fraction("run", "--precision", optarg, ret, false);
		if (o->prec <= 0 || o->prec >= 1)
			return tb_cli_bad_value("run", "--precision", optarg, "e.g. 1%");
		break;
	case 'm':
		ret = tb_parse_duration(optarg, &o->maxt);
		if (ret || !o->maxt)
			return tb_cli_bad_value("run", "--max-time", optarg,
						ret == -EDOM ? TB_DURATION_UNITS : "e.g. 10m");
		break;
	case 's':
		if (tb_parse_int(optarg, &o->seed) || o->seed < 0)
			return tb_cli_bad_value("run", "--seed", optarg, "a number >= 0");
		break;
	default: /* 'L' */
		if (!o->labels)
			o->labels = json_object();
		ret = o->labels ? tb_labels_add(o->labels, optarg, err, sizeof(err)) : -ENOMEM;
		if (ret == -ENOMEM)
			return TB_EXIT_FAIL;
		if (ret)
			return tb_cli_bad_value("run", "--label", optarg, err);
		break;
	}
	return -1;
}

/* One option into o; returns -1 to go on, else the exit code. */
static int parse_opt(int c, struct run_opts *o, int argc, char **argv)
{
	bool *flag = c == 'Q'	? &o->quick
		     : c == 'A' ? &o->aa
		     : c == 'n' ? &o->dry_run
		     : c == 'j' ? &o->json_out
		     : c == 'P' ? &o->no_plots
		     : c == 'g' ? &o->gate
		     : c == 'S' ? &o->skip
		     : c == 'W' ? &o->wait_lock
		     : c == 'Z' ? &o->anonymize
		     : c == 'q' ? &o->quiet
		     : c == 'X' ? &o->explain
		     : c == 'f' ? &o->allow_foreign
				: NULL;

	if (flag) {
		*flag = true;
		return -1;
	}
	switch (c) {
	case 'o':
		o->outdir = optarg;
		return -1;
	case 'F':
		o->find_limit = true;
		return tb_cli_limit_arg(optarg, argc, argv, &o->limit_rate);
	case 'H':
		o->history = true;
		o->hist_db = tb_cli_optional_db(argc, argv, optarg);
		return -1;
	case 'r':
	case 'w':
	case 'd':
	case 'p':
	case 'm':
	case 's':
	case 'L':
	case 'R':
	case 'D':
		return parse_value(c, o);
	case 'h':
		printf("%s", tb_usage_run);
		return TB_EXIT_OK;
	default:
		return TB_EXIT_USAGE;
	}
}

/* Returns -1 to go on, else the exit code. */
static int parse_args(int argc, char **argv, struct run_opts *o)
{
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'},
		{"quick", no_argument, NULL, 'Q'},
		{"rounds", required_argument, NULL, 'r'},
		{"warmup", required_argument, NULL, 'w'},
		{"duration", required_argument, NULL, 'd'},
		{"precision", required_argument, NULL, 'p'},
		{"max-time", required_argument, NULL, 'm'},
		{"seed", required_argument, NULL, 's'},
		{"repeat", required_argument, NULL, 'R'},
		{"spacing", required_argument, NULL, 'D'},
		{"aa", no_argument, NULL, 'A'},
		{"dry-run", no_argument, NULL, 'n'},
		{"json", no_argument, NULL, 'j'},
		{"no-plots", no_argument, NULL, 'P'},
		{"gate", no_argument, NULL, 'g'},
		{"skip-unsupported", no_argument, NULL, 'S'},
		{"allow-foreign", no_argument, NULL, 'f'},
		{"wait", no_argument, NULL, 'W'},
		{"anonymize", no_argument, NULL, 'Z'},
		{"label", required_argument, NULL, 'L'},
		{"history", optional_argument, NULL, 'H'},
		{"explain", no_argument, NULL, 'X'},
		{"find-limit", optional_argument, NULL, 'F'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c, rc;

	*o = (struct run_opts){
		.rounds = -1, .warmup = -1, .seed = -1, .prec = -1, .limit_rate = NAN};
	while ((c = tb_cli_getopt(argc, argv, "o:qh", longopts, tb_usage_run)) != -1) {
		rc = parse_opt(c, o, argc, argv);
		if (rc >= 0)
			return rc;
	}
	if (optind != argc - 1) {
		tb_err("run: %s",
		       optind >= argc ? "no scenario file given" : "one scenario file only");
		fprintf(stderr, "%s", tb_usage_run);
		return TB_EXIT_USAGE;
	}
	o->scenario = argv[optind];
	if (o->spacing_given && !o->repeat) {
		tb_err("run: --spacing is the wait between repeats: it needs --repeat N");
		return TB_EXIT_USAGE;
	}
	if (o->repeat && (o->json_out || o->gate)) {
		tb_err("run: --repeat writes run directories and their combination, not with %s",
		       o->json_out ? "--json" : "--gate (add them to a --history and gate on it)");
		return TB_EXIT_USAGE;
	}
	return -1;
}

/* The command line's settings over the scenario's. */
static void apply_overrides(struct tb_scenario *s, const struct run_opts *o)
{
	size_t i;

	if (o->quick) {
		s->rounds = 5;
		s->min_rounds = 5;
		s->warmup = s->warmup > 1 ? 1 : s->warmup;
		/* its own short samples and few rounds, never the plan's choice */
		s->duration_set = s->min_rounds_set = s->max_rounds_set = true;
		s->accounting_every_set = true;
		if (s->duration_ns > 200000000)
			s->duration_ns = 200000000;
		for (i = 0; i < s->nworkloads; i++)
			if (s->workloads[i].duration_ns > 200000000)
				s->workloads[i].duration_ns = 200000000;
	}
	if (o->rounds > 0)
		s->rounds = (unsigned int)o->rounds;
	if (o->warmup >= 0)
		s->warmup = (unsigned int)o->warmup;
	if (o->dur) {
		s->duration_set = true;
		s->duration_ns = o->dur;
		for (i = 0; i < s->nworkloads; i++)
			s->workloads[i].duration_ns = o->dur;
	}
	if (o->prec >= 0)
		s->precision = o->prec;
	if (o->seed >= 0)
		s->seed = o->seed;
	if (o->maxt)
		s->max_time_ns = o->maxt;
	if (o->aa)
		s->aa = true;
	if (o->explain) { /* every traced cell, whatever the sections say */
		s->explain = true;
		for (i = 1; i < s->ntracers; i++)
			s->tracers[i].explain = true;
	}
	if (s->seed < 0) /* below 2^43: an int64_t */
		s->seed = (int64_t)((uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20));
}

/* ---- prepare ------------------------------------------------------------------------------ */

/* How to reproduce the run, for result.json: a history URL's password never goes in it. */
static char *command_line(int argc, char **argv)
{
	char **w = calloc((size_t)argc + 1, sizeof(*w)), *line = NULL;
	struct tb_strlist l = {.v = w, .n = (size_t)argc};
	int i;

	for (i = 0; w && i < argc && (w[i] = tb_history_mask(argv[i])); i++)
		;
	if (w && i == argc)
		line = tb_strlist_join(&l, " ");
	for (i = 0; w && i < argc; i++)
		free(w[i]);
	free(w);
	return line;
}

/* One line when doc/figures.json documents this scenario from another machine (figures.h). */
static void figures_note(const char *scenario, const json_t *system)
{
	char *note = NULL;

	if (system && !tb_figures_note(scenario, system, &note) && note)
		tb_warn("%s", note);
	free(note);
}

/* --find-limit's part of the plan's text. */
static void print_limits_plan(FILE *f, const struct run *x)
{
	size_t n;
	double s = tb_runner_limit_estimate_s(&x->plan, x->r, !isnan(x->o.limit_rate), &n);

	fprintf(f,
		"find-limit: %zu cells searched after the rounds, about %.0f s more (%d probes of a calibration and %d rounds each, typically)\n",
		n, s, TB_LIMIT_TYPICAL_PROBES * (isnan(x->o.limit_rate) ? 1 : 2), TB_LIMIT_ROUNDS);
}

/* The scenario and its plan, checked before anything waits or measures. */
static int load_plan(struct run *x)
{
	int ret;

	ret = tb_scenario_load(x->o.scenario, &x->s);
	if (ret)
		return ret == -ENOMEM ? TB_EXIT_FAIL : TB_EXIT_USAGE;
	apply_overrides(x->s, &x->o);
	/* [limit] asks for --find-limit; the command line's --find-limit (and its RATE) wins */
	if (!x->o.find_limit && x->s->limit) {
		x->o.find_limit = true;
		x->o.limit_rate = x->s->limit_rate;
	}
	ret = tb_plan_result(x->s, x->o.skip, x->cmdline, x->o.labels, &x->plan, &x->r);
	if (ret == -EOPNOTSUPP) {
		tb_err("run: unsupported plugins here (--skip-unsupported drops their cells)");
		return TB_EXIT_UNAVAILABLE;
	}
	if (ret)
		return ret == -ENOMEM ? TB_EXIT_FAIL : TB_EXIT_USAGE;
	if (x->o.find_limit && tb_runner_limit_check(&x->plan, x->r))
		return TB_EXIT_USAGE;
	if (x->o.dry_run) {
		json_t *system = tb_sysinfo_collect("/", 0);

		tb_plan_print(stdout, &x->plan, x->r);
		if (x->o.repeat)
			printf("repeated %u times, %.0f s apart, then combined (--repeat)\n",
			       x->o.repeat, x->o.spacing / 1e9);
		if (x->o.find_limit)
			print_limits_plan(stdout, x);
		figures_note(x->o.scenario, system);
		json_decref(system);
		return TB_EXIT_OK;
	}
	if (geteuid() != 0 && tb_plan_needs_root(&x->plan, x->r)) {
		tb_err("run: tracers need root (CAP_SYS_ADMIN, CAP_BPF, CAP_PERFMON)");
		return TB_EXIT_UNAVAILABLE;
	}
	/* Bad input before waiting for anything. */
	if ((ret = tb_rundir_check(x->o.outdir)))
		return tb_dir_exit_code(ret);
	return -1;
}

/* The run lock, then undo what a killed run left, before measuring anything. */
static int lock_machine(struct run *x)
{
	json_t *report = NULL;
	pid_t holder = 0;
	size_t i;
	int ret;

	ret = tb_lock_acquire(x->o.wait_lock, &holder);
	if (ret == -EBUSY) {
		tb_err("run: another tracebench run (pid %d) is measuring on this machine; add --wait to queue behind it (make demo waits), or stop it",
		       (int)holder);
		return TB_EXIT_UNAVAILABLE;
	} else if (ret) {
		tb_err("run: cannot take the run lock: %s", strerror(-ret));
		return TB_EXIT_UNAVAILABLE;
	}
	x->locked = true;
	if (tb_cleanup_stale(0, &report) > 0) {
		for (i = 0; i < json_array_size(report); i++)
			tb_warn("cleaned up after a dead run: %s",
				json_string_value(json_array_get(report, i)));
	}
	json_decref(report);
	/* What the run before this one closed may still be freed by the kernel: let it go. */
	tb_bpf_freeing_settle(TB_BPF_GONE_TIMEOUT_NS);
	return -1;
}

static int save(struct run *x, bool final, bool analyzed);

/*
 * Before the first sample: the run directory takes result.json and samples.csv (written now,
 * with no rounds yet) and has room for what the plan will measure. Returns -1 to go on, else
 * the exit code.
 */
static int check_writable(struct run *x)
{
	const struct tb_scenario *s = x->s;
	size_t rounds = s->precision > 0 ? s->max_rounds : s->rounds, now = 0;
	struct stat st;
	int ret;

	ret = save(x, false, false);
	if (!ret && !fstatat(x->rundir.fd, "result.json", &st, AT_SYMLINK_NOFOLLOW))
		now = (size_t)st.st_size;
	if (!ret)
		ret = tb_rundir_check_room(&x->rundir, (rounds + s->warmup) * x->plan.ncells, now);
	return ret ? tb_dir_exit_code(ret) : -1;
}

/*
 * Another tracer active before round 1 biases every baseline (a syscall tracepoint slows every
 * syscall of the host): refused, with what was found, unless the user allows it. Runs under
 * the run lock, after the stale state of a dead run of ours was undone. Returns -1 to go on.
 */
static int check_foreign(struct run *x)
{
	json_t *found = tb_foreign_instrumentation();
	size_t n = found ? json_array_size(found) : 0;

	if (n && !x->o.allow_foreign) {
		for (size_t i = 0; i < n; i++)
			tb_err("run: foreign instrumentation is active: %s",
			       json_string_value(json_array_get(found, i)));
		tb_err("run: it would bias every baseline: stop it and run again, or measure anyway with --allow-foreign (every result then says so)");
	}
	json_decref(found);
	x->r->allow_foreign = x->o.allow_foreign;
	return n && !x->o.allow_foreign ? TB_EXIT_UNAVAILABLE : -1;
}

/*
 * Without a terminal (CI logs), a progress line every TB_PROGRESS_INTERVAL seconds (default
 * 15: a CI log shows life well inside its usual 10-minute silence limit); 0 turns it off.
 */
static double progress_interval(void)
{
	const char *v = getenv(TB_ENV_PROGRESS);
	char *end;
	double d;

	if (!v || !*v)
		return 15;
	d = strtod(v, &end);
	if (*end || !isfinite(d) || d < 0) {
		tb_warn("%s=%s is not a number of seconds: using 15", TB_ENV_PROGRESS, v);
		return 15;
	}
	return d;
}

/* Returns -1 to go on to measure, else the exit code. */
static int prepare(struct run *x)
{
	int ret;

	ret = load_plan(x);
	if (ret >= 0)
		return ret;
	if (x->o.repeat) /* the whole run again per repeat (cli/run-repeat.h) */
		return tb_run_repeat(&(struct tb_repeat){.outdir = x->o.outdir,
							 .scenario = x->s->name,
							 .anonymize = x->o.anonymize,
							 .quiet = x->o.quiet,
							 .n = x->o.repeat,
							 .spacing_ns = x->o.spacing,
							 .argc = x->argc,
							 .argv = x->words});
	ret = lock_machine(x);
	if (ret >= 0)
		return ret;
	ret = check_foreign(x);
	if (ret >= 0)
		return ret;
	ret = tb_inject_init();
	if (ret) {
		tb_err("run: cannot map the shared control page: %s", strerror(-ret));
		return TB_EXIT_FAIL;
	}
	x->progress = !x->o.quiet && isatty(STDERR_FILENO) && tb_log_get_level() >= TB_LOG_INFO;
	if (!x->progress && !x->o.quiet && tb_log_get_level() >= TB_LOG_INFO)
		x->log_every_s = progress_interval();
	ret = tb_rundir_create(x->o.outdir, x->s->name, x->o.anonymize, &x->rundir);
	if (ret)
		return tb_dir_exit_code(ret);
	ret = tb_scratch_create(&x->plan, x->scratch, sizeof(x->scratch));
	if (ret)
		return tb_dir_exit_code(ret);
	x->r->dir = strdup(x->rundir.path); /* where the files it names (explain/) are */
	if (!x->r->dir)
		return TB_EXIT_FAIL;
	tb_cli_stop_on_signals();
	if (!x->o.quiet)
		tb_plan_print(stderr, &x->plan, x->r);
	if (!x->o.quiet && x->o.find_limit)
		print_limits_plan(stderr, x);
	if (tb_plan_result_start(x->r))
		return TB_EXIT_FAIL;
	figures_note(x->o.scenario, x->r->system);
	if (x->o.anonymize && tb_result_anonymize(x->r, 0))
		return TB_EXIT_FAIL;
	return check_writable(x);
}

/* ---- measure ------------------------------------------------------------------------------ */

static void fmt_min_s(char *buf, size_t n, double s)
{
	if (!isfinite(s) || s < 0) {
		snprintf(buf, n, "--");
		return;
	}
	snprintf(buf, n, "%um%02us", (unsigned int)(s / 60), (unsigned int)fmod(s, 60));
}

static void show_progress(void *ctx, const struct tb_runner_progress *p)
{
	struct run *x = ctx;
	const struct tb_sample *last =
		p->cell && p->cell->nsamples ? &p->cell->samples[p->cell->nsamples - 1] : NULL;
	char ns[32] = "-", left[32], elapsed[32];

	fmt_min_s(left, sizeof(left), p->eta_s);
	if (!x->progress) {
		if (x->log_every_s <= 0 || p->elapsed_s - x->logged_s < x->log_every_s)
			return;
		x->logged_s = p->elapsed_s;
		fmt_min_s(elapsed, sizeof(elapsed), p->elapsed_s);
		fprintf(stderr,
			"progress: %s %u/%u, sample %zu of %zu, next %s, elapsed %s, ETA %s\n",
			p->phase, p->round, p->rounds, p->done + 1,
			p->planned > p->done ? p->planned : p->done + 1,
			p->cell ? p->cell->id : "-", elapsed, left);
		return;
	}
	if (last && !last->failed && isfinite(last->ns_per_op))
		snprintf(ns, sizeof(ns), "%.1f", last->ns_per_op);
	fprintf(stderr, "\r\033[K%s %u/%u  %-36.36s  %9s ns/op  ETA %s", p->phase, p->round,
		p->rounds, p->cell ? p->cell->id : "", ns, left);
}

/*
 * After calibration: the peak the tracers will write at once, against what the run
 * directory's file system has free. Short of it, the run is refused before it measures
 * (exit 3, as for a full file system), with the two ways out.
 */
static int check_disk(void *ctx, const struct tb_runner_disk *d)
{
	struct run *x = ctx;
	char need[32], avail[32], largest[32];
	struct statvfs vfs;
	double free_b;

	if (d->peak_bytes <= 0 || fstatvfs(x->rundir.fd, &vfs))
		return 0;
	free_b = (double)vfs.f_bavail * (double)vfs.f_frsize;
	tb_fmt_bytes(need, sizeof(need), (int64_t)d->peak_bytes);
	tb_fmt_bytes(avail, sizeof(avail), (int64_t)free_b);
	tb_fmt_bytes(largest, sizeof(largest), (int64_t)d->largest_bytes);
	/* a margin for result.json, samples.csv, plots and the tracers' logs */
	if (free_b >= d->peak_bytes * 1.1 + 64e6) {
		if (!x->o.quiet && tb_log_get_level() >= TB_LOG_INFO)
			fprintf(stderr,
				"disk: the tracers write up to %s at once (a sample of %s: %s, "
				"deleted after it%s); %s free in %s\n",
				need, d->largest ? d->largest->id : "-", largest,
				d->kept_bytes > 0 ? ", plus what keep-raw keeps" : "", avail,
				x->rundir.path);
		return 0;
	}
	tb_err("disk: the tracers need up to %s free at once in %s (a sample of %s writes %s%s), "
	       "but only %s is free: write the run to a larger or a tmpfs file system (-o "
	       "/dev/shm/DIR), or set consumer = discard in the tracer's section (the same "
	       "kernel-side cost, no file: README.md, Disk)",
	       need, x->rundir.path, d->largest ? d->largest->id : "-", largest,
	       d->kept_bytes > 0 ? " and keep-raw keeps every sample's stream" : "", avail);
	x->disk_refused = true;
	return -ENOSPC;
}

/* After the first round: the estimate again, now with what the traced cells take. */
static void show_estimate(void *ctx, double total_s, double elapsed_s)
{
	struct run *x = ctx;
	char total[32], planned[32], left[32];

	if (x->o.quiet || tb_log_get_level() < TB_LOG_INFO)
		return;
	fmt_min_s(total, sizeof(total), total_s);
	fmt_min_s(planned, sizeof(planned), tb_plan_estimate_s(&x->plan));
	fmt_min_s(left, sizeof(left), total_s - elapsed_s);
	fprintf(stderr,
		"%sre-estimated after the first round: %s in all, %s left (the plan said %s"
		" before the tracers' slowdown was measured)\n",
		x->progress ? "\r\033[K" : "", total, left, planned);
}

/* Under a max-time, before the warmups: the traced cells' slowdown and the rounds that fit. */
static void show_budget(void *ctx, const struct tb_runner_budget *b)
{
	struct run *x = ctx;
	char slow[256] = "";
	size_t n = 0;

	if (x->o.quiet || tb_log_get_level() < TB_LOG_INFO)
		return;
	for (size_t i = 0; i < x->plan.ncells && n < sizeof(slow); i++) {
		const struct tb_cell *c = &x->r->cells[x->plan.cells[i].cell];

		if (!c->baseline && isfinite(c->slowdown))
			n += (size_t)snprintf(slow + n, sizeof(slow) - n, "%s%s %.3gx%s",
					      n ? ", " : "", c->id, c->slowdown,
					      x->plan.cells[i].ops ? " (sized)" : "");
	}
	fprintf(stderr,
		"%smax-time %.3g s: %s%s; samples of %.3g s%s, a round about %.2g s: %u measured "
		"round%s fit (%u asked)%s\n",
		x->progress ? "\r\033[K" : "", b->max_time_s,
		n ? "slowdown " : "no slowdown measured", slow, (double)b->duration_ns / 1e9,
		b->shortened ? " (shortened to fit)" : "", b->round_s, b->fit,
		b->fit == 1 ? "" : "s", b->asked,
		b->nsized ? "; a sized cell runs its own op count, its samples about as long" : "");
}

/*
 * result.json and samples.csv as they stand (partial until final), each replaced atomically.
 * analyzed: the result's analysis is current (the runner's after a round), so it is not
 * repeated unless the partial flag it saw changes. The first failure is said (once, by
 * core/outdir) and kept in write_err: nothing is written after it, and the run stops; the file
 * on disk is the last complete write.
 */
static int save(struct run *x, bool final, bool analyzed)
{
	char ts[32];
	int ret;

	if (x->write_err)
		return x->write_err;
	if (!analyzed || x->r->partial != !final) {
		tb_result_update_totals(x->r);
		x->r->partial = !final; /* before the analysis: its shortfalls say it */
		tb_stats_analyze(x->r);
	}
	tb_utc_iso(ts, sizeof(ts), time(NULL));
	free(x->r->finished);
	x->r->finished = strdup(ts);
	ret = tb_result_save_at(x->r, &x->rundir, "result.json");
	if (!ret)
		ret = tb_csv_write(x->r, &x->rundir);
	x->write_err = ret;
	return ret;
}

static int save_round(void *ctx, struct tb_result *r)
{
	(void)r;
	return save(ctx, false, true); /* a failed write stops the run */
}

/* A cell's profiles into its files and its [explain] object, and the result saved. */
static int save_explained(void *ctx, struct tb_result *r, size_t cell,
			  const struct tb_explain_run *base, const struct tb_explain_run *traced,
			  const struct tb_explain_settings *set)
{
	struct run *x = ctx;
	int ret = tb_explain_publish(r, &r->cells[cell], &x->rundir, base, traced, set);

	if (ret == -ENOMEM)
		return ret;
	if (ret)
		tb_warn("%s: the explanation is incomplete (see above)", r->cells[cell].id);
	save(x, false, false);
	return 0;
}

/* --find-limit after the rounds (cli/run-limit.h). Returns the exit code. */
static int find_limits(struct run *x)
{
	int rc = tb_cli_run_limits(&x->rn, x->o.limit_rate, x->o.quiet, &x->interrupted);

	if (x->interrupted) {
		free(x->r->stop_reason);
		x->r->stop_reason = strdup("interrupted");
	}
	return rc;
}

/* Returns the exit code so far (TB_EXIT_OK unless the run failed). */
static int measure(struct run *x)
{
	int ret;

	x->rn.plan = &x->plan;
	x->rn.r = x->r;
	x->rn.dir = &x->rundir;
	x->rn.ctx = x;
	x->rn.on_progress = show_progress;
	x->rn.on_estimate = show_estimate;
	x->rn.on_disk = check_disk;
	x->rn.on_budget = show_budget;
	x->rn.on_round = save_round;
	x->rn.on_explained = save_explained;
	ret = tb_runner_run(&x->rn, x->s->seed);
	if (x->progress)
		fprintf(stderr, "\r\033[K");
	if (x->write_err) {
		/* Said once where it failed; what was written before stays on disk. */
		tb_err("run: stopped after %u completed rounds: the run directory %s cannot be written",
		       x->r->rounds, x->rundir.path);
		return tb_dir_exit_code(x->write_err);
	}
	if (ret == -EINTR || tb_stop_requested()) {
		x->interrupted = true;
		free(x->r->stop_reason);
		x->r->stop_reason = strdup("interrupted");
		tb_warn("interrupted: tracers torn down, writing the %u completed rounds as a partial result",
			x->r->rounds);
	} else if (x->disk_refused) {
		return TB_EXIT_UNAVAILABLE; /* check_disk said why */
	} else if (ret) {
		tb_err("run: %s", strerror(-ret));
		return TB_EXIT_FAIL;
	}
	return x->o.find_limit ? find_limits(x) : TB_EXIT_OK;
}

/* ---- publish ------------------------------------------------------------------------------ */

/* Plots and the report, through the run directory's handle (never by its path, which may be a
 * link by now). Returns 0, or the errno of what failed (said; the last line says it again). A
 * missing gnuplot is a warning, not a failure. */
static int plots_and_report(struct run *x, const char **what)
{
	struct tb_dir plots = TB_DIR_INIT;
	int ret, err = 0;

	ret = tb_plot_result_at(x->r, &x->rundir, 0);
	if (ret == -ENOENT) {
		tb_warn("no plots: gnuplot or the plot scripts were not found (install gnuplot-nox)");
	} else if (ret == -ENOSPC || ret == -EDQUOT || ret == -EROFS) {
		/* Said once by the plots; the report would fail the same way and say it again. */
		*what = "plots and the report";
		return ret;
	} else if (ret < 0) {
		err = ret;
		*what = "plots";
	} else {
		printf("plots:   %s/plots/ (%d plots, PNG and SVG)\n", x->rundir.path, ret);
	}
	/* The plots just drawn, inlined from where they were drawn (else drawn again). */
	if (ret >= 0)
		tb_dir_sub(&x->rundir, "plots", TB_DIR_QUIET, 0, &plots);
	ret = tb_report_write(x->r, plots.fd >= 0 ? &plots : NULL, &x->rundir, "report.html");
	tb_dir_close(&plots);
	if (ret && !err) {
		err = ret;
		*what = "report";
	} else if (!ret) {
		printf("report:  %s/report.html\n", x->rundir.path);
	}
	return err;
}

/*
 * --history: the run as written (its result.json read back, as `history add` would read it),
 * in one transaction. A failed add is said and makes the exit code that of the history's
 * error, unless the run had failed already.
 */
static int add_to_history(struct run *x, int rc)
{
	const char *db = tb_history_target(x->o.hist_db);
	char shown[512];
	struct tb_history_added info;
	struct tb_history *h = NULL;
	struct tb_result *saved = NULL;
	json_t *doc = NULL;
	char path[4200];
	int ret;

	snprintf(path, sizeof(path), "%s/result.json", x->rundir.path);
	ret = tb_result_load_doc(path, &saved, &doc) ? -EINVAL : 0;
	if (!ret)
		ret = tb_history_open(db, TB_HISTORY_WRITE, &h);
	if (!ret)
		ret = tb_history_add_result(h, saved, doc, NULL, path, &info);
	if (!ret && x->o.json_out)
		tb_info("history: %s: run %lld (%zu points)", tb_history_name(h),
			(long long)info.run_id, info.npoints);
	else if (!ret)
		printf("history: %s: run %lld (%zu points)\n", tb_history_name(h),
		       (long long)info.run_id, info.npoints);
	else
		tb_err("run: the run was not added to the history %s",
		       (tb_history_mask_buf(db, shown, sizeof(shown)), shown));
	tb_history_close(h);
	json_decref(doc);
	tb_result_free(saved);
	return ret && rc == TB_EXIT_OK ? tb_history_exit_code(ret) : rc;
}

/* How much the run wrote: the tracers' files (raw streams, perf.data), kept or not, and what
 * the run directory holds now. */
static void print_disk(const struct run *x)
{
	int64_t wrote = tb_result_disk_bytes(x->r), holds = tb_dir_bytes(x->rundir.path);
	char a[32], b[32];

	if (wrote > 0)
		printf("disk:    tracers wrote %s (raw streams and output files are deleted after "
		       "each sample unless keep-raw = true); the run directory holds %s\n",
		       tb_fmt_bytes(a, sizeof(a), wrote), tb_fmt_bytes(b, sizeof(b), holds));
	else
		printf("disk:    the run directory holds %s\n", tb_fmt_bytes(b, sizeof(b), holds));
}

static int publish(struct run *x, int rc)
{
	const char *what = NULL;
	int err = 0;
	size_t i;

	if (x->write_err)
		return rc;
	if (x->disk_refused) /* nothing measured: the header only, no table, plots or report */
		return save(x, false, false) ? tb_dir_exit_code(x->write_err) : rc;
	if (save(x, !x->interrupted && rc == TB_EXIT_OK, false))
		return tb_dir_exit_code(x->write_err);
	if (x->o.json_out) {
		json_t *doc = tb_result_to_json(x->r);

		if (doc)
			json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
		printf("\n");
		json_decref(doc);
	} else {
		tb_render_summary_print(stdout, x->r);
		printf("\nresult:  %s/result.json\n", x->rundir.path);
		print_disk(x);
	}
	/* A partial result is drawn too (what it shows is what it finished); a second signal
	 * says the user wants out now. */
	if (tb_cli_signals() <= 1 && !x->o.no_plots)
		err = plots_and_report(x, &what);
	for (i = 0; i < x->r->ncells; i++)
		if (x->r->cells[i].error)
			rc = TB_EXIT_FAIL;
	if (x->interrupted)
		rc = TB_EXIT_INTERRUPTED;
	if (x->o.gate && !x->interrupted && rc == TB_EXIT_OK) {
		struct tb_gate_opts go;

		tb_gate_opts_init(&go);
		go.name = x->rundir.path;
		go.allow_foreign = x->o.allow_foreign ? 1 : -1; /* the user said so for this run */
		rc = x->o.history
			     ? tb_cli_gate_history(x->r, NULL, x->o.hist_db, false, &go, stdout)
			     : tb_cli_gate_result(x->r, NULL, &go, stdout);
	}
	if (err) {
		/* The last line, so that a script or a person sees what is missing. */
		fflush(stdout);
		tb_err("run: the result is complete, but the %s could not be written: %s ('tracebench %s %s/result.json' tries again)",
		       what, tb_dir_strerror(err), strncmp(what, "plots", 5) ? "report" : "plot",
		       x->rundir.path);
		if (rc == TB_EXIT_OK)
			rc = tb_exit_code(err) == TB_EXIT_OK ? TB_EXIT_FAIL : tb_exit_code(err);
	}
	if (x->o.history && !x->interrupted && (rc == TB_EXIT_OK || rc == TB_EXIT_FAIL))
		rc = add_to_history(x, rc);
	return rc;
}

int tb_cli_run(int argc, char **argv)
{
	struct run x = {.rundir = TB_DIR_INIT, .argc = argc};
	int rc;

	x.words = calloc((size_t)argc + 1, sizeof(*x.words));
	if (!x.words) {
		tb_err("run: out of memory");
		return TB_EXIT_FAIL;
	}
	memcpy(x.words, argv, (size_t)argc * sizeof(*argv));
	rc = parse_args(argc, argv, &x.o);
	if (rc >= 0) {
		json_decref(x.o.labels);
		free(x.words);
		return rc;
	}
	/* One of the repeats of a --repeat run: a plain run into its directory (run-repeat.h). */
	rc = x.o.repeat ? tb_repeat_child_dir(&x.repeat_dir) : 0;
	if (rc > 0) {
		x.o.outdir = x.repeat_dir;
		x.o.repeat = 0;
	} else if (rc < 0) {
		tb_err("run: out of memory");
	}
	x.cmdline = rc < 0 ? NULL : command_line(argc, argv);
	rc = x.cmdline ? prepare(&x) : TB_EXIT_FAIL;
	if (rc < 0)
		rc = publish(&x, measure(&x));
	tb_scratch_remove(x.scratch);
	tb_dir_close(&x.rundir);
	if (x.locked)
		tb_lock_release();
	tb_runner_free(&x.rn);
	tb_plan_free(&x.plan);
	tb_result_free(x.r);
	tb_scenario_free(x.s);
	json_decref(x.o.labels);
	free(x.cmdline);
	free(x.words);
	free(x.repeat_dir);
	return rc;
}
