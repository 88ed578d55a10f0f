// SPDX-License-Identifier: GPL-2.0
/*
 * The repeats of `tracebench run --repeat N` (run-repeat.h): this program run again per repeat,
 * spaced, then the repeats combined.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/run-repeat.h"
#include "core/env.h"
#include "core/outdir.h"
#include "core/proc.h"
#include "core/tb.h"
#include "core/util.h"
#include "model/result.h"
#include "render/combine-formats.h"
#include "runner/rundir.h"
#include "stats/combine.h"

/* How often the driver looks at its repeat and at the stops it was asked for. */
#define POLL_NS 100000000ull

int tb_repeat_child_dir(char **dir)
{
	const char *v = getenv(TB_ENV_REPEAT);
	char *end;
	long ppid;
	int ret = 0;

	*dir = NULL;
	if (!v || !*v)
		return 0;
	ppid = strtol(v, &end, 10);
	if (end != v && *end == ':' && end[1] && ppid == (long)getppid()) {
		*dir = strdup(end + 1);
		ret = *dir ? 1 : -ENOMEM;
	} else {
		tb_warn("run: %s is set, not by a `run --repeat` that started this run: ignored",
			TB_ENV_REPEAT);
	}
	unsetenv(TB_ENV_REPEAT);
	return ret;
}

/*
 * Repeat i into dir: this program again (core/proc.h: a process group of its own, so that the
 * driver passes a stop on once per signal where the terminal would add its own; stdin from
 * /dev/null; its output the driver's; SIGTERM, which lets it tear down, should the driver
 * die) with the command's words (after the first repeat with --wait: a run that took the lock
 * in the spacing is waited for). Each stop the driver is asked for (Ctrl-C, SIGTERM) goes on
 * as a SIGINT of its own, one per poll so that two do not merge into one pending signal: the
 * first stops the repeat after its current sample, a second makes it hurry. Returns its exit
 * code (128 + the signal that killed it), or -errno when it could not start.
 */
static int repeat_once(const struct tb_repeat *r, unsigned int i, const char *dir)
{
	struct tb_proc_opts o = TB_PROC_OPTS_INIT;
	enum tb_log_level lv = tb_log_get_level();
	char **argv = calloc((size_t)r->argc + 4, sizeof(*argv)), env[PATH_MAX + 32];
	struct tb_proc p;
	int k, n = 0, ret, passed = 0;

	if (!argv)
		return -ENOMEM;
	argv[n++] = "/proc/self/exe";
	if (lv != TB_LOG_INFO)
		argv[n++] = lv > TB_LOG_INFO ? "-v" : "-q";
	argv[n++] = r->argv[0]; /* the command's name, then its options */
	if (i)
		argv[n++] = "--wait";
	for (k = 1; k < r->argc; k++)
		argv[n++] = r->argv[k];
	o.flags = TB_PROC_INHERIT | TB_PROC_NULLIN;
	o.death_sig = SIGTERM;
	snprintf(env, sizeof(env), "%ld:%s", (long)getpid(), dir);
	ret = setenv(TB_ENV_REPEAT, env, 1) ? -errno : tb_proc_spawn_opts(&p, argv, &o);
	unsetenv(TB_ENV_REPEAT);
	free(argv);
	if (ret)
		return ret;
	while (!tb_proc_poll(&p)) {
		if (tb_cli_signals() > passed) {
			kill(-p.pid, SIGINT);
			passed++;
		}
		tb_sleep_ns(POLL_NS);
	}
	tb_proc_release(&p);
	if (WIFSIGNALED(p.status))
		return 128 + WTERMSIG(p.status);
	return WIFEXITED(p.status) ? WEXITSTATUS(p.status) : TB_EXIT_FAIL;
}

/* The repeats' results combined: printed, and written as combined.txt and combined.json in d.
 * Returns 0, or an exit code. */
static int combine(const struct tb_dir *d, struct tb_result **res, const char **names, size_t n)
{
	struct tb_combination *c = NULL;
	char *text = NULL, *js = NULL;
	json_t *doc = NULL;
	size_t len = 0;
	FILE *f;
	int ret;

	ret = tb_combine_build(res, names, n, 0.0, &c);
	if (ret) {
		tb_err("run: the repeats in %s cannot be combined: %s", d->path, strerror(-ret));
		return TB_EXIT_FAIL;
	}
	f = open_memstream(&text, &len);
	if (!f) {
		ret = -ENOMEM;
		goto out;
	}
	tb_render_combine_print(f, c);
	if (fclose(f)) {
		ret = -ENOMEM;
		goto out;
	}
	doc = tb_render_combine_json(c);
	js = doc ? json_dumps(doc, JSON_INDENT(1)) : NULL;
	if (!js) {
		ret = -ENOMEM;
		goto out;
	}
	printf("\n%s", text);
	ret = tb_dir_write(d, "combined.txt", text, len, 0644);
	if (!ret)
		ret = tb_dir_write(d, "combined.json", js, strlen(js), 0644);
	if (!ret)
		tb_info("run: the repeats combined: %s/combined.txt, combined.json", d->path);
out:
	if (ret == -ENOMEM)
		tb_err("run: combining the repeats: out of memory");
	free(js);
	json_decref(doc);
	free(text);
	tb_combine_free(c);
	return ret ? tb_dir_exit_code(ret) : 0;
}

/* A --repeat run in progress. */
struct repeats {
	const struct tb_repeat *r;
	struct tb_dir d;	   /* the directory of the repeats */
	char (*dirs)[PATH_MAX];	   /* each repeat's run directory */
	unsigned int done, failed; /* repeats that ended, not stopped; of those, failed */
};

/*
 * Repeat i: its directory made through the driver's handle (a new directory, no link
 * followed), the repeat run into it, its exit weighed. Returns -1 to go on, else the command's
 * exit code.
 */
static int run_one(struct repeats *x, unsigned int i)
{
	const struct tb_repeat *r = x->r;
	int ret, width = snprintf(NULL, 0, "%u", r->n);
	struct tb_dir sub = TB_DIR_INIT;
	char name[32];

	snprintf(name, sizeof(name), "repeat-%0*u", width, i + 1);
	if (snprintf(x->dirs[i], sizeof(x->dirs[i]), "%s/%s", x->d.path, name) >=
	    (int)sizeof(x->dirs[i])) {
		tb_err("run: %s: the repeats' paths are too long", x->d.path);
		return TB_EXIT_USAGE;
	}
	ret = tb_dir_sub(&x->d, name, TB_DIR_CREATE | TB_DIR_NEW, 0755, &sub);
	tb_dir_close(&sub);
	if (ret)
		return tb_dir_exit_code(ret);
	if (!r->quiet)
		tb_info("run: repeat %u of %u -> %s", i + 1, r->n, x->dirs[i]);
	ret = repeat_once(r, i, x->dirs[i]);
	if (ret < 0) {
		tb_err("run: cannot start repeat %u: %s", i + 1, strerror(-ret));
		return TB_EXIT_FAIL;
	}
	if (ret == TB_EXIT_INTERRUPTED || tb_stop_requested())
		return TB_EXIT_INTERRUPTED; /* stopped through the driver, or by a SIGINT of its own */
	x->done++;
	if (ret == TB_EXIT_USAGE || ret == TB_EXIT_UNAVAILABLE) {
		tb_err("run: repeat %u exited %d, which the others would too: stopped (the repeats "
		       "that completed can be combined: tracebench combine %s/repeat-*/result.json)",
		       i + 1, ret, x->d.path);
		return ret;
	}
	if (ret > 128)
		tb_warn("run: repeat %u was killed by signal %d", i + 1, ret - 128);
	else if (ret != TB_EXIT_OK)
		tb_warn("run: repeat %u exited %d (its run directory says why)", i + 1, ret);
	x->failed += ret != TB_EXIT_OK;
	return -1;
}

/* Every repeat, spaced. Returns -1 when all ran, else the command's exit code. */
static int run_all(struct repeats *x)
{
	const struct tb_repeat *r = x->r;
	unsigned int i;
	int rc = -1;

	for (i = 0; i < r->n && rc < 0; i++) {
		if (i && r->spacing_ns) {
			if (!r->quiet)
				tb_info("run: repeat %u of %u in %.3g s (--spacing)", i + 1, r->n,
					r->spacing_ns / 1e9);
			tb_sleep_until_stop_ns(r->spacing_ns);
		}
		if (tb_stop_requested())
			rc = TB_EXIT_INTERRUPTED;
		else
			rc = run_one(x, i);
	}
	if (rc == TB_EXIT_INTERRUPTED)
		tb_err("run: interrupted after %u of %u repeats completed; what completed is in %s",
		       x->done, r->n, x->d.path);
	return rc;
}

/* The repeats that wrote a result, combined. Returns the command's exit code. */
static int combine_all(struct repeats *x)
{
	struct tb_result **res = calloc(x->r->n, sizeof(*res));
	const char **names = calloc(x->r->n, sizeof(*names));
	char(*files)[PATH_MAX + 16] = calloc(x->r->n, sizeof(*files));
	size_t i, n = 0;
	int rc;

	if (!res || !names || !files) {
		tb_err("run: --repeat: out of memory");
		rc = TB_EXIT_FAIL;
		goto out;
	}
	for (i = 0; i < x->r->n; i++) {
		snprintf(files[i], sizeof(files[i]), "%s/result.json", x->dirs[i]);
		if (access(files[i], F_OK) || tb_result_load(files[i], &res[n]))
			continue; /* said by its run, or by the load */
		names[n++] = files[i];
	}
	if (n < 2) {
		tb_err("run: %zu of %u repeats wrote a result: nothing to combine (%s)", n, x->r->n,
		       x->d.path);
		rc = TB_EXIT_FAIL;
		goto out;
	}
	rc = combine(&x->d, res, names, n);
	if (!rc && x->failed)
		rc = TB_EXIT_FAIL;
out:
	for (i = 0; res && i < n; i++)
		tb_result_free(res[i]);
	free(res);
	free(names);
	free(files);
	return rc;
}

int tb_run_repeat(const struct tb_repeat *r)
{
	struct repeats x = {.r = r, .d = TB_DIR_INIT};
	int ret, rc;

	x.dirs = calloc(r->n, sizeof(*x.dirs));
	if (!x.dirs) {
		tb_err("run: --repeat: out of memory");
		return TB_EXIT_FAIL;
	}
	ret = tb_rundir_create(r->outdir, r->scenario, r->anonymize, &x.d);
	if (ret) {
		rc = tb_dir_exit_code(ret);
		goto out;
	}
	tb_cli_stop_on_signals();
	rc = run_all(&x);
	if (rc < 0)
		rc = combine_all(&x);
out:
	free(x.dirs);
	tb_dir_close(&x.d);
	return rc;
}
