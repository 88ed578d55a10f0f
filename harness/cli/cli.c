// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/suggest.h"
#include "core/tb.h"
#include "history/store.h"
#include "model/result.h"

/*
 * The command's options with -v/--verbose and -q/--quiet added (those it declares itself
 * stay its own). Kept between calls: a command calls tb_cli_getopt in a loop with the same
 * tables, and only one command runs per process.
 */
static int with_common(const char *optstring, const struct option *longopts, const char **optsout,
		       const struct option **longout)
{
	static const struct option common[] = {
		{"verbose", no_argument, NULL, 'v'},
		{"quiet", no_argument, NULL, 'q'},
	};
	static struct option merged[64];
	static char opts[128];
	static const struct option *cached;
	static const char *cached_os;
	size_t n = 0, i, k;

	*optsout = opts;
	*longout = merged;
	if (cached == longopts && cached_os == optstring && longopts)
		return 0;
	if (strlen(optstring) + 4 > sizeof(opts))
		return -E2BIG;
	/* A leading ':' (after a '+' or '-'): a missing value is ':', told apart from '?'. */
	n = optstring[0] == '+' || optstring[0] == '-';
	snprintf(opts, sizeof(opts), "%.*s:%s%s%s", (int)n, optstring, optstring + n,
		 strchr(optstring, 'v') ? "" : "v", strchr(optstring, 'q') ? "" : "q");
	n = 0;
	for (; longopts && longopts[n].name; n++)
		if (n + TB_ARRAY_SIZE(common) + 1 >= TB_ARRAY_SIZE(merged))
			return -E2BIG;
	memcpy(merged, longopts, n * sizeof(*merged));
	for (k = 0; k < TB_ARRAY_SIZE(common); k++) {
		for (i = 0; i < n && strcmp(merged[i].name, common[k].name); i++)
			;
		if (i == n)
			merged[n++] = common[k];
	}
	merged[n] = (struct option){0};
	cached = longopts;
	cached_os = optstring;
	return 0;
}

/*
 * Say what is wrong with the option getopt_long stopped at (c ':' a missing value, '?' an
 * unknown option): a missing value by the option's long name ("option --rounds needs a
 * value"), an unknown long option with the closest known one.
 */
static void bad_option(char **argv, int optind_now, int c, const struct option *lo)
{
	const char *typed = optind_now > 0 ? argv[optind_now - 1] : "";
	const struct option *o = NULL;
	const char *name;
	char word[64], hint[96];
	struct tb_suggest sg;

	for (const struct option *k = lo; optopt && k->name && !o; k++)
		if (!k->flag && k->val == optopt)
			o = k;
	if (c == ':') {
		if (!strncmp(typed, "--", 2) || !o)
			tb_err("%s: option %.*s needs a value", argv[0], (int)strcspn(typed, "="),
			       typed);
		else
			tb_err("%s: option -%c (--%s) needs a value", argv[0], optopt, o->name);
		return;
	}
	if (optopt && strncmp(typed, "--", 2)) {
		/* -r for --rounds: the long option whose value the letter is */
		if (o)
			tb_err("%s: unknown option -%c; did you mean '--%s'?", argv[0], optopt,
			       o->name);
		else
			tb_err("%s: unknown option -%c", argv[0], optopt);
		return;
	}
	name = strncmp(typed, "--", 2) ? typed : typed + 2;
	snprintf(word, sizeof(word), "%.*s", (int)strcspn(name, "="), name);
	tb_suggest_init(&sg, word);
	for (const struct option *k = lo; k->name; k++)
		tb_suggest_offer(&sg, k->name);
	if (sg.best)
		snprintf(hint, sizeof(hint), "; did you mean '--%s'?", sg.best);
	else
		hint[0] = '\0';
	tb_err("%s: unknown option %.*s%s", argv[0], (int)strcspn(typed, "="), typed, hint);
}

int tb_cli_getopt(int argc, char **argv, const char *optstring, const struct option *longopts,
		  const char *usage)
{
	const struct option *lo;
	const char *os;
	int c;

	if (with_common(optstring, longopts, &os, &lo)) {
		tb_err("%s: option table too large (a bug of this build)", argv[0]);
		return '?';
	}
	opterr = 0;
	for (;;) {
		c = getopt_long(argc, argv, os, lo, NULL);
		if (c != 'v' && c != 'q')
			break;
		/* As perf: -v and -q work after every command; a command's own -q also sees it. */
		tb_log_set_level(c == 'v' ? TB_LOG_DEBUG : TB_LOG_WARN);
		if (strchr(optstring, c))
			return c;
	}
	if (c == '?' || c == ':') {
		bad_option(argv, optind, c, lo);
		fprintf(stderr, "%s", usage);
		return '?';
	}
	return c;
}

int tb_cli_bad_value(const char *cmd, const char *opt, const char *val, const char *why)
{
	tb_err("%s: bad value '%s' for %s%s%s", cmd, val, opt, why ? ": " : "", why ? why : "");
	return TB_EXIT_USAGE;
}

int tb_cli_bad_fraction(const char *cmd, const char *opt, const char *val, int ret, bool factor)
{
	char why[200];

	tb_err("%s: %s", cmd, tb_percent_why(ret, opt, val, factor, why, sizeof(why)));
	return TB_EXIT_USAGE;
}

int tb_cli_one_result(int argc, char **argv, const char *usage, const char **out, const char **file,
		      struct tb_result **r)
{
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;

	*out = NULL;
	*r = NULL;
	while ((c = tb_cli_getopt(argc, argv, "o:h", longopts, usage)) != -1) {
		switch (c) {
		case 'o':
			*out = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return TB_EXIT_OK;
		default:
			return TB_EXIT_USAGE;
		}
	}
	if (optind + 1 != argc) {
		tb_err("%s: expected one result file", argv[0]);
		fputs(usage, stderr);
		return TB_EXIT_USAGE;
	}
	*file = argv[optind];
	return tb_result_load(*file, r) ? TB_EXIT_USAGE : -1;
}

const char *tb_cli_optional_db(int argc, char **argv, const char *optarg_given)
{
	static const char *const ext[] = {".db", ".sqlite", ".sqlite3"};
	const char *a;
	size_t n;

	if (optarg_given)
		return optarg_given;
	if (optind >= argc || !(a = argv[optind]) || a[0] == '-')
		return NULL;
	n = strlen(a);
	if (!strncmp(a, "postgresql://", 13) || !strncmp(a, "postgres://", 11)) {
		optind++;
		return a;
	}
	for (size_t i = 0; i < TB_ARRAY_SIZE(ext); i++) {
		size_t e = strlen(ext[i]);

		if (n > e && !strcmp(a + n - e, ext[i])) {
			optind++;
			return a;
		}
	}
	return NULL;
}

static volatile sig_atomic_t sigcount;

/*
 * The first signal stops after the current step (a run's current sample is abandoned); later
 * ones make the teardown hurry (core/util.h) but never skip it: a run's completed rounds are on
 * disk already (result.json is written after every round), so a 2nd or 3rd Ctrl-C loses
 * nothing, and what is armed is still torn down. SIGKILL remains for a teardown that hangs;
 * `tracebench cleanup` then undoes what it left.
 */
static void on_signal(int sig)
{
	static const char msg[] = "tracebench: still stopping the tracers; what completed is "
				  "on disk (kill -9 and 'tracebench cleanup' if it hangs)\n";

	(void)sig;
	sigcount++;
	if (sigcount == 1) {
		tb_request_stop();
		return;
	}
	tb_request_hurry();
	if (sigcount == 3 && write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
		sigcount = 3; /* nothing to do about a closed stderr */
}

void tb_cli_stop_on_signals(void)
{
	struct sigaction sa = {.sa_handler = on_signal};
	sigset_t stop;
	int sig;

	sigemptyset(&sa.sa_mask);
	tb_stop_sigset(&stop);
	for (sig = 1; sig < NSIG; sig++)
		if (sigismember(&stop, sig) == 1)
			sigaction(sig, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

int tb_cli_signals(void)
{
	return sigcount;
}

const char *tb_cli_next_to(const char *file, const char *name, char *buf, size_t len)
{
	const char *slash = strrchr(file, '/');
	int dirlen = slash ? (int)(slash - file) : 1, n;

	if (name && !slash)
		n = snprintf(buf, len, "%s", name);
	else if (name)
		n = snprintf(buf, len, "%.*s/%s", dirlen, file, name);
	else
		n = snprintf(buf, len, "%.*s", dirlen, slash ? file : ".");
	if (n < 0 || (size_t)n >= len) {
		tb_err("%s: the path next to it is too long", file);
		return NULL;
	}
	return buf;
}
