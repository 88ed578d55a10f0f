// SPDX-License-Identifier: GPL-2.0
/*
 * `tracebench fleet SCENARIO.ini -i INVENTORY`: the same scenario on every host of an Ansible
 * inventory (fleet/tracebench.yml), then one merged answer. parse -> prepare (the scenario, the
 * inventory, ansible-playbook, the playbook, the fleet directory and its variables file) -> play
 * (cli/fleet-playbook.c; after Ctrl-C the abort play stops the hosts' runs) -> load (records and
 * results) -> merge (stats/fleet.c) -> publish (render/fleet-table.c, the compare files, the
 * compare plot, the HTML report) -> history.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/fleet-playbook.h"
#include "core/outdir.h"
#include "core/proc.h"
#include "core/tb.h"
#include "history/store.h"
#include "render/compare-formats.h"
#include "render/fleet-table.h"
#include "render/gnuplot/plot.h"
#include "render/html/report.h"
#include "model/labels.h"
#include "model/result.h"
#include "parse/scenario.h"
#include "stats/fleet.h"
#include "workloads/common.h"

/* The abort play after Ctrl-C: a host or an inventory that hangs does not hold fleet longer. */
#define ABORT_LIMIT_NS (300ull * 1000000000)
/* An inventory is text a person writes: beyond this it is not one. */
#define TB_INVENTORY_MAX_BYTES (16u << 20)

const char tb_usage_fleet[] =
	"usage: tracebench fleet SCENARIO.ini -i INVENTORY [options]\n"
	"  Run the scenario on every host of an Ansible inventory (fleet/tracebench.yml), fetch\n"
	"  each host's run and merge them: the fleet table, compare within hardware classes, the\n"
	"  HTML report. Exit 0 when every host ran, 1 when one failed (per-host table), 3 without\n"
	"  ansible-playbook (Debian's ansible package).\n"
	"  -i, --inventory FILE    the hosts (an Ansible inventory; see fleet/inventory.example)\n"
	"  -l, --limit PATTERN     only these hosts (ansible-playbook --limit)\n"
	"  -o, --output DIR        the fleet directory (must not exist or be empty)\n"
	"                          default: results/fleet-<UTC time>/\n"
	"      --label KEY=VALUE   a label on every host's run (repeatable); host= and fleet= are\n"
	"                          set by the fleet\n"
	"      --history[=DB]      add every host's run to the history\n"
	"      --install MODE      auto (default), binary or source\n"
	"      --timeout D         kill a host's run after D (default: from its estimate)\n"
	"      --poll D            poll a host's run every D (default 10s)\n"
	"      --playbook FILE     another playbook than this tracebench's fleet/tracebench.yml\n"
	"      --json              print the merge as JSON instead of the tables\n"
	"  passed to every host's run: --quick, --rounds N, --duration D, --precision P,\n"
	"  --max-time D, --seed N, --aa, --skip-unsupported, --allow-foreign, --no-plots\n" TB_CLI_COMMON_USAGE;

struct fleet_opts {
	const char *scenario, *inventory, *limit, *outdir, *install, *playbook, *history;
	bool history_set, json, quiet;
	json_t *labels;	  /* --label, checked */
	json_t *run_args; /* the run options, as "--opt=value" */
	uint64_t timeout_ns, poll_ns;
};

struct fleet {
	struct fleet_opts o;
	struct tb_scenario *s;
	/* The fleet directory, opened (or created) once: every file this command writes there
	 * goes through it (core/outdir.h). dir is its absolute path, for Ansible. */
	struct tb_dir d;
	char id[64], dir[PATH_MAX], playbook[PATH_MAX + 64], vars[PATH_MAX + 16],
		log[PATH_MAX + 16];
	int logfd; /* ansible.log, created through d before the playbook starts; -1 without */
	struct tb_fleet f;
	struct tb_cli_fleet_outcome out;
};

/* ---- parse ------------------------------------------------------------------------------- */

/* A run option for every host: checked here, passed on as "--name=value" (or "--name"). */
static int run_arg(struct fleet_opts *o, const char *name, const char *val)
{
	char *arg;
	int64_t n;
	uint64_t ns;
	double d;
	int ret;

	if (!strcmp(name, "rounds") && (tb_parse_int(val, &n) || n < 1 || n > 100000))
		return tb_cli_bad_value("fleet", "--rounds", val, "1 to 100000");
	if (!strcmp(name, "seed") && (tb_parse_int(val, &n) || n < 0))
		return tb_cli_bad_value("fleet", "--seed", val, "a number >= 0");
	if ((!strcmp(name, "duration") || !strcmp(name, "max-time")) &&
	    (tb_parse_duration(val, &ns) || ns < 1000000))
		return tb_cli_bad_value("fleet", name, val, "a duration, e.g. 500ms");
	if (!strcmp(name, "precision") && (ret = tb_parse_percent(val, &d)))
		return tb_cli_bad_fraction("fleet", "--precision", val, ret, false);
	if (!strcmp(name, "precision") && (d <= 0 || d >= 1))
		return tb_cli_bad_value("fleet", "--precision", val, "e.g. 1%");
	if (asprintf(&arg, "--%s%s%s", name, val ? "=" : "", val ? val : "") < 0)
		return TB_EXIT_FAIL;
	if (json_array_append_new(o->run_args, json_string(arg))) {
		free(arg);
		return TB_EXIT_FAIL;
	}
	free(arg);
	return -1;
}

static int add_label(struct fleet_opts *o, const char *kv)
{
	char err[256];
	int ret;

	if (!strncmp(kv, "host=", 5) || !strncmp(kv, "fleet=", 6))
		return tb_cli_bad_value("fleet", "--label", kv, "host= and fleet= are the fleet's");
	ret = tb_labels_add(o->labels, kv, err, sizeof(err));
	if (ret == -ENOMEM)
		return TB_EXIT_FAIL;
	return ret ? tb_cli_bad_value("fleet", "--label", kv, err) : -1;
}

/* The run options passed on to every host, by their getopt code. */
static const struct option run_longopts[] = {
	{"quick", no_argument, NULL, 'Q'},
	{"aa", no_argument, NULL, 'A'},
	{"skip-unsupported", no_argument, NULL, 'S'},
	{"allow-foreign", no_argument, NULL, 'F'},
	{"no-plots", no_argument, NULL, 'N'},
	{"rounds", required_argument, NULL, 'r'},
	{"duration", required_argument, NULL, 'd'},
	{"precision", required_argument, NULL, 'p'},
	{"max-time", required_argument, NULL, 'm'},
	{"seed", required_argument, NULL, 's'},
};

/* One option; returns -1 to go on, else the exit code. */
static int parse_opt(int c, struct fleet_opts *o)
{
	switch (c) {
	case 'i':
		o->inventory = optarg;
		return -1;
	case 'l':
		o->limit = optarg;
		return -1;
	case 'o':
		o->outdir = optarg;
		return -1;
	case 'L':
		return add_label(o, optarg);
	case 'H':
		o->history_set = true;
		o->history = optarg;
		return -1;
	case 'I':
		if (strcmp(optarg, "auto") && strcmp(optarg, "binary") && strcmp(optarg, "source"))
			return tb_cli_bad_value("fleet", "--install", optarg,
						"auto, binary or source");
		o->install = optarg;
		return -1;
	case 'T':
	case 'P':
		if (tb_parse_duration(optarg, c == 'T' ? &o->timeout_ns : &o->poll_ns) ||
		    (c == 'T' ? o->timeout_ns : o->poll_ns) < 1000000000ull)
			return tb_cli_bad_value("fleet", c == 'T' ? "--timeout" : "--poll", optarg,
						"at least 1s");
		return -1;
	case 'B':
		o->playbook = optarg;
		return -1;
	case 'j':
		o->json = true;
		return -1;
	case 'q':
		o->quiet = true;
		return -1;
	case 'h':
		printf("%s", tb_usage_fleet);
		return TB_EXIT_OK;
	}
	for (size_t i = 0; i < TB_ARRAY_SIZE(run_longopts); i++)
		if (c == run_longopts[i].val)
			return run_arg(o, run_longopts[i].name, optarg);
	return TB_EXIT_USAGE;
}

static int parse_args(int argc, char **argv, struct fleet_opts *o)
{
	static const struct option own[] = {
		{"inventory", required_argument, NULL, 'i'},
		{"limit", required_argument, NULL, 'l'},
		{"output", required_argument, NULL, 'o'},
		{"label", required_argument, NULL, 'L'},
		{"history", optional_argument, NULL, 'H'},
		{"install", required_argument, NULL, 'I'},
		{"timeout", required_argument, NULL, 'T'},
		{"poll", required_argument, NULL, 'P'},
		{"playbook", required_argument, NULL, 'B'},
		{"json", no_argument, NULL, 'j'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
	};
	static struct option longopts[TB_ARRAY_SIZE(own) + TB_ARRAY_SIZE(run_longopts) + 1];
	int c, rc;

	memcpy(longopts, own, sizeof(own));
	memcpy(longopts + TB_ARRAY_SIZE(own), run_longopts, sizeof(run_longopts));
	o->labels = json_object();
	o->run_args = json_array();
	if (!o->labels || !o->run_args)
		return TB_EXIT_FAIL;
	while ((c = tb_cli_getopt(argc, argv, "i:l:o:qh", longopts, tb_usage_fleet)) != -1) {
		rc = c == '?' ? TB_EXIT_USAGE : parse_opt(c, o);
		if (c == 'H') /* --history FILE.db or URL, as run takes it */
			o->history = tb_cli_optional_db(argc, argv, optarg);
		if (rc >= 0)
			return rc;
	}
	if (optind != argc - 1 || !o->inventory) {
		tb_err("fleet: %s", optind >= argc	 ? "no scenario file given"
				    : optind != argc - 1 ? "one scenario file only"
							 : "no inventory given (-i INVENTORY)");
		fprintf(stderr, "%s", tb_usage_fleet);
		return TB_EXIT_USAGE;
	}
	o->scenario = argv[optind];
	return -1;
}

/* ---- prepare ----------------------------------------------------------------------------- */

/*
 * The one place the history is called from: every merged host's run (its fetched result.json
 * as read, so that nothing is dropped) added to db in one transaction, each add a savepoint: a
 * host whose add fails is said and left out, the others are committed. Series stay per
 * hardware class (the history keys them by it). Returns 0, -EIO when a host's add failed, or
 * the store's -errno (*exit: tb_history_exit_code's code for it).
 */
static int history_add(const char *db, const struct tb_fleet *f, bool quiet, int *exit)
{
	struct tb_history *h = NULL;
	char shown[512];
	int ret, bad = 0;

	ret = tb_history_open(tb_history_target(db), TB_HISTORY_WRITE, &h);
	if (!ret)
		ret = tb_history_begin(h);
	for (size_t i = 0; !ret && i < f->nhosts; i++) {
		const struct tb_fleet_host *fh = &f->hosts[i];
		struct tb_history_added info;
		struct tb_result *r = NULL;
		json_t *doc = NULL;

		if (!fh->merged)
			continue;
		if (tb_result_load_doc(fh->result_path, &r, &doc) ||
		    tb_history_add_result(h, r, doc, NULL, fh->result_path, &info)) {
			tb_err("fleet: --history: %s: its run was not added", fh->name);
			bad++;
		} else if (!quiet) {
			printf("history: %s: %s: run %lld (%zu points)%s\n", tb_history_name(h),
			       fh->name, (long long)info.run_id, info.npoints,
			       info.existed ? ", already there" : "");
		}
		json_decref(doc);
		tb_result_free(r);
	}
	if (!ret)
		ret = tb_history_commit(h);
	tb_history_mask_buf(tb_history_target(db), shown, sizeof(shown));
	if (ret)
		tb_err("fleet: --history: %s: %s", shown, strerror(-ret));
	tb_history_close(h);
	*exit = ret ? tb_history_exit_code(ret) : bad ? TB_EXIT_FAIL : TB_EXIT_OK;
	return ret ? ret : bad ? -EIO : 0;
}

/* Ansible templates every string of its variables: refuse Jinja in what we hand it, so that a
 * label or a path is data and never code that runs on the controller. */
static const char *jinja_in(json_t *v)
{
	const char *k, *s, *bad;
	json_t *x;
	size_t i;

	if (json_is_string(v)) {
		s = json_string_value(v);
		return strstr(s, "{{") || strstr(s, "{%") || strstr(s, "{#") ? s : NULL;
	}
	json_object_foreach(v, k, x) if ((bad = jinja_in(x))) return bad;
	json_array_foreach(v, i, x) if ((bad = jinja_in(x))) return bad;
	return NULL;
}

/* The playbook: --playbook, else fleet/tracebench.yml beside the binary (the source tree), in
 * the installed tree relative to it, then in TB_DATADIR: as the plot scripts are found. */
static int find_playbook(struct fleet *x, const char *dir)
{
	static const char *const rel[] = {"fleet", TB_DATADIR_REL "/fleet"};

	for (size_t i = 0; !x->o.playbook && i < TB_ARRAY_SIZE(rel); i++) {
		snprintf(x->playbook, sizeof(x->playbook), "%s/%s/tracebench.yml", dir, rel[i]);
		if (!access(x->playbook, R_OK))
			return 0;
	}
	if (x->o.playbook)
		snprintf(x->playbook, sizeof(x->playbook), "%s", x->o.playbook);
	else
		snprintf(x->playbook, sizeof(x->playbook), "%s/fleet/tracebench.yml", TB_DATADIR);
	if (access(x->playbook, R_OK)) {
		tb_err("fleet: %s: cannot read the playbook: %s", x->playbook, strerror(errno));
		return -ENOENT;
	}
	return 0;
}

/* Where this tracebench's files are: the playbook, and for binary and source installs the
 * binary, its plot scripts, its helpers and the git checkout it was built in. */
static int locate(struct fleet *x, json_t *vars)
{
	char exe[PATH_MAX], dir[PATH_MAX], plots[PATH_MAX], helper[PATH_MAX], git[PATH_MAX + 8],
		mk[PATH_MAX + 16];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct stat st;

	if (n <= 0)
		return -errno;
	exe[n] = '\0';
	if (tb_exe_dir(dir, sizeof(dir)))
		return -ENAMETOOLONG;
	if (find_playbook(x, dir))
		return -ENOENT;
	if (tb_plot_find_scripts(plots, sizeof(plots)))
		plots[0] = '\0';
	/* TB_HELPERS first, as the workloads look (build-san/helpers under SAN=1) */
	if (tb_wl_find_helper("tb-exit", helper, sizeof(helper), NULL, 0))
		helper[0] = '\0';
	else
		dirname(helper);
	snprintf(git, sizeof(git), "%s/.git", dir);
	snprintf(mk, sizeof(mk), "%s/Makefile", dir);
	if (stat(git, &st) || access(mk, R_OK))
		dir[0] = '\0'; /* not a checkout: no source install */
	return json_object_update_new(
		       vars, json_pack("{s:s, s:s, s:s, s:s}", "tb_controller_binary", exe,
				       "tb_controller_plots", plots, "tb_controller_helpers",
				       helper, "tb_controller_source", dir))
		       ? -ENOMEM
		       : 0;
}

/* Whether the directory open as d holds nothing. */
static bool dir_empty(const struct tb_dir *d)
{
	int fd = dup(d->fd);
	DIR *dh = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;
	bool empty = dh != NULL;

	while (dh && (de = readdir(dh)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			empty = false;
	if (dh)
		closedir(dh);
	else if (fd >= 0)
		close(fd);
	return empty;
}

/* -o: a directory that is ours to fill: absent (created, with its parents), or an empty
 * directory that is not a link; opened into x->d. Returns 0, -EEXIST, or -errno (said). */
static int own_dir(struct fleet *x, const char *path)
{
	int ret = tb_dir_open(&x->d, path, TB_DIR_CREATE | TB_DIR_PARENTS | TB_DIR_QUIET, 0755);

	if (!ret && dir_empty(&x->d))
		return 0;
	if (!ret || ret == -ENOTDIR) {
		tb_err("fleet: %s: exists and is not an empty directory (a fleet directory is never overwritten)",
		       path);
		ret = -EEXIST;
	} else {
		tb_err("fleet: %s: cannot create the fleet directory: %s", path,
		       tb_dir_strerror(ret));
	}
	tb_dir_close(&x->d);
	return ret;
}

/* Without -o: results/<id>[-N], created new, results/ itself not a link (as a run's). */
static int new_dir(struct fleet *x)
{
	struct tb_dir res = TB_DIR_INIT;
	size_t base = strlen(x->id);
	int ret = tb_dir_open(&res, "results", TB_DIR_CREATE, 0755); /* says why */

	if (ret)
		return ret;
	ret = -EEXIST;
	for (int i = 1; i < 100 && ret == -EEXIST; i++) {
		if (i > 1)
			snprintf(x->id + base, sizeof(x->id) - base, "-%d", i);
		ret = tb_dir_sub(&res, x->id, TB_DIR_NEW | TB_DIR_QUIET, 0755, &x->d);
	}
	if (ret)
		tb_err("fleet: results/%s: cannot create the fleet directory: %s", x->id,
		       tb_dir_strerror(ret));
	tb_dir_close(&res);
	return ret;
}

/* The fleet's id from the time, and its directory (-o, or results/<id>[-N]) opened into x->d;
 * x->dir is where that directory is (the one opened, even if its path changed since). */
static int make_dir(struct fleet *x)
{
	char self[64];
	struct tm tm;
	time_t now = time(NULL);
	int ret;

	gmtime_r(&now, &tm);
	strftime(x->id, sizeof(x->id), "fleet-%Y%m%dT%H%M%SZ", &tm);
	ret = x->o.outdir ? own_dir(x, x->o.outdir) : new_dir(x);
	if (ret)
		return ret;
	snprintf(self, sizeof(self), "/proc/self/fd/%d", x->d.fd);
	if (!realpath(self, x->dir)) {
		ret = -errno;
		tb_err("fleet: %s: %s", x->d.path, strerror(errno));
	}
	return ret;
}

/* The variables file of the role (roles/tracebench/defaults/main.yml), as text into *text
 * (the caller frees it). Returns 0, -EINVAL (said) or -errno. */
static int vars_text(struct fleet *x, char **text)
{
	char scen[PATH_MAX];
	json_t *v = NULL;
	const char *bad;
	int ret = -ENOMEM;

	if (!realpath(x->o.scenario, scen)) {
		tb_err("fleet: %s: %s", x->o.scenario, strerror(errno));
		return -errno;
	}
	v = json_pack("{s:s, s:s, s:s, s:O, s:O}", "tb_fleet_id", x->id, "tb_fleet_dir", x->dir,
		      "tb_scenario", scen, "tb_run_args", x->o.run_args, "tb_labels", x->o.labels);
	if (!v || (ret = locate(x, v)))
		goto out;
	ret = -ENOMEM;
	if ((x->o.install &&
	     json_object_set_new(v, "tb_install_mode", json_string(x->o.install))) ||
	    (x->o.timeout_ns &&
	     json_object_set_new(v, "tb_run_timeout",
				 json_integer((json_int_t)(x->o.timeout_ns / 1000000000)))) ||
	    (x->o.poll_ns &&
	     json_object_set_new(v, "tb_poll_interval",
				 json_integer((json_int_t)(x->o.poll_ns / 1000000000)))))
		goto out;
	if ((bad = jinja_in(v))) {
		tb_err("fleet: '%s': Jinja delimiters ({{, {%%, {#) cannot be passed to Ansible",
		       bad);
		ret = -EINVAL;
		goto out;
	}
	*text = json_dumps(v, JSON_INDENT(2) | JSON_SORT_KEYS);
	ret = *text ? 0 : -ENOMEM;
out:
	json_decref(v);
	return ret;
}

/*
 * The inventory is a regular file we can read, not a link, a FIFO (it would block
 * ansible-playbook, and fleet with it) or a device. Returns 0 or -errno (said).
 */
static int check_inventory(const char *path)
{
	int fd = tb_open_input(AT_FDCWD, path, TB_INVENTORY_MAX_BYTES, 0);

	if (fd < 0) {
		tb_err("fleet: %s: cannot read the inventory: %s", path,
		       fd == -EFBIG ? "larger than 16 MiB: not an inventory"
				    : tb_input_strerror(fd));
		return fd;
	}
	close(fd);
	return 0;
}

/* Returns -1 to go on, else the exit code. */
static int prepare(struct fleet *x)
{
	char path[PATH_MAX], *text = NULL;
	int ret;

	ret = tb_scenario_load(x->o.scenario, &x->s);
	if (ret)
		return ret == -ENOMEM ? TB_EXIT_FAIL : TB_EXIT_USAGE;
	if (check_inventory(x->o.inventory))
		return TB_EXIT_USAGE;
	if (x->o.history_set) { /* a history that cannot take the runs is said before any runs */
		struct tb_history *h = NULL;

		ret = tb_history_open(tb_history_target(x->o.history), TB_HISTORY_WRITE, &h);
		tb_history_close(h);
		if (ret)
			return tb_history_exit_code(ret);
	}
	if (tb_proc_which("ansible-playbook", path, sizeof(path))) {
		tb_err("fleet: ansible-playbook not found: install Debian's ansible package (make deps installs it)");
		return TB_EXIT_UNAVAILABLE;
	}
	ret = make_dir(x);
	if (ret)
		return tb_dir_exit_code(ret);
	ret = vars_text(x, &text);
	if (ret)
		return ret == -ENOMEM ? TB_EXIT_FAIL : TB_EXIT_USAGE;
	ret = tb_dir_write(&x->d, "vars.json", text, strlen(text), 0644); /* says why */
	free(text);
	if (ret)
		return tb_dir_exit_code(ret);
	snprintf(x->vars, sizeof(x->vars), "%s/vars.json", x->dir);
	snprintf(x->log, sizeof(x->log), "%s/ansible.log", x->dir);
	/* New in the new fleet directory, through its handle: never a link planted there. Both
	 * plays append to it. A log that cannot be made loses no result (said). */
	x->logfd = tb_dir_open_output(&x->d, "ansible.log", O_WRONLY | O_CREAT | O_EXCL, 0644);
	x->f.id = x->id;
	x->f.scenario_text = x->s->text;
	return -1;
}

/* ---- play, load ------------------------------------------------------------------------ */

/* The playbook; after a stop request, the abort play (it stops the hosts' runs and cleans up).
 * Returns -1 to go on, else the exit code. */
static int play(struct fleet *x)
{
	struct tb_cli_playbook pb = {
		.playbook = x->playbook,
		.inventory = x->o.inventory,
		.limit = x->o.limit,
		.vars = x->vars,
		.logfd = x->logfd,
		.quiet = x->o.quiet,
	};
	int ret;

	tb_cli_stop_on_signals();
	if (!x->o.quiet)
		fprintf(stderr, "fleet %s: %s on %s%s%s (ansible-playbook %s; its log: %s)\n",
			x->id, x->s->name, x->o.inventory, x->o.limit ? " --limit " : "",
			x->o.limit ? x->o.limit : "", x->playbook, x->log);
	ret = tb_cli_playbook_run(&pb, &x->f, &x->out);
	if (ret)
		return ret == -ENOENT ? TB_EXIT_UNAVAILABLE : TB_EXIT_FAIL;
	if (x->out.interrupted) {
		struct tb_fleet scratch = {0};
		struct tb_cli_fleet_outcome o;

		tb_warn("fleet: stopping the hosts' runs and cleaning up (tb_action=abort)");
		pb.action = "abort";
		pb.no_stop = true;
		pb.limit_ns = ABORT_LIMIT_NS;
		if (tb_cli_playbook_run(&pb, &scratch, &o) || !o.recap || tb_fleet_nbad(&scratch))
			tb_warn("fleet: the abort play did not finish on every host: run `ansible-playbook -i %s %s -e tb_action=cleanup`",
				x->o.inventory, x->playbook);
		tb_fleet_free(&scratch);
	}
	/* the role's staging (tb_stage_dir: the tars copied to the hosts) is not part of the result */
	tb_dir_remove(&x->d, ".stage"); /* says why it failed; the fleet's result is not lost */
	return -1;
}

/* Every host's record and result; a result that does not load leaves the merge. */
static int load(struct fleet *x)
{
	if (tb_cli_fleet_records(&x->f, x->dir))
		return TB_EXIT_FAIL;
	for (size_t i = 0; i < x->f.nhosts; i++) {
		struct tb_fleet_host *h = &x->f.hosts[i];
		int ret;

		if (!h->result_path) {
			/* every step said ok, yet nothing came back: the playbook ended early */
			if (h->state == TB_FLEET_OK &&
			    tb_fleet_host_set(
				    h, TB_FLEET_FAILED, "fetch the run directory",
				    x->out.recap
					    ? "no result.json was fetched"
					    : "no result.json was fetched: the playbook stopped before its end"))
				return TB_EXIT_FAIL;
			continue;
		}
		ret = tb_result_load(h->result_path, &h->r);
		if (ret == -ENOMEM)
			return TB_EXIT_FAIL;
		if (ret && tb_fleet_host_set(h, TB_FLEET_EXCLUDED, "load the result",
					     tb_result_last_error()))
			return TB_EXIT_FAIL;
	}
	if (!x->f.nhosts && strstr(x->out.said, "Invalid callback for stdout")) {
		tb_err("fleet: ansible-playbook has no ansible.posix.jsonl callback (%s): install Debian's ansible package, which has the ansible.posix collection",
		       x->out.said);
		return TB_EXIT_UNAVAILABLE;
	}
	if (!x->f.nhosts) {
		tb_err("fleet: %s: no host ran%s%s%s", x->o.inventory,
		       x->o.limit ? " (--limit matched nothing?)" : "",
		       *x->out.said ? "; ansible said: " : "", x->out.said);
		return x->out.interrupted ? TB_EXIT_INTERRUPTED : TB_EXIT_USAGE;
	}
	return tb_fleet_merge(&x->f, 0) ? TB_EXIT_FAIL : -1;
}

/* ---- publish ----------------------------------------------------------------------------- */

/* What print(f, x) writes, written as name in the fleet directory (atomically, through its
 * handle: never through a link). Returns 0 or -errno (said, naming the file). */
static int write_text(struct fleet *x, const char *name, void (*print)(FILE *, struct fleet *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int ret = -ENOMEM;

	if (f) {
		print(f, x);
		ret = fclose(f) ? -ENOMEM : 0;
	}
	if (ret)
		tb_err("fleet: %s/%s: cannot write: %s", x->d.path, name, strerror(-ret));
	else
		ret = tb_dir_write(&x->d, name, buf, len, 0644); /* says why it failed */
	free(buf);
	return ret;
}

static void print_tables(FILE *f, struct fleet *x)
{
	tb_render_fleet_print(f, &x->f);
	tb_render_fleet_hosts(f, &x->f);
}

static void print_json(FILE *f, struct fleet *x)
{
	json_t *doc = tb_render_fleet_json(&x->f);

	if (doc)
		json_dumpf(doc, f, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
	fputc('\n', f);
	json_decref(doc);
}

/* The comparisons within each hardware class; hosts alone in theirs are named, not compared. */
static void print_compare(FILE *f, struct fleet *x)
{
	for (size_t k = 0; k < x->f.nclasses; k++)
		fprintf(f, "class %c: %s: %zu host%s%s\n", x->f.classes[k].letter,
			x->f.classes[k].name, x->f.classes[k].nhosts,
			x->f.classes[k].nhosts == 1 ? "" : "s",
			x->f.classes[k].nhosts == 1 ? ", compared with no other (absolute figures "
						      "do not compare across classes)"
						    : "");
	for (size_t i = 0; i < x->f.ncmps; i++) {
		fputc('\n', f);
		tb_render_compare_print(f, x->f.cmps[i]);
	}
}

/* The compare plot of the merged hosts (labelled with their inventory names) into DIR/plots,
 * then the report, both through the fleet directory's handle. Returns 0 or -errno (said). */
static int plot_and_report(struct fleet *x)
{
	const struct tb_result **rs = calloc(x->f.nhosts + 1, sizeof(*rs));
	const char **labels = calloc(x->f.nhosts + 1, sizeof(*labels));
	struct tb_dir plots = TB_DIR_INIT;
	size_t n = 0;
	int ret = -ENOMEM;

	if (!rs || !labels)
		goto out;
	for (size_t i = 0; i < x->f.nhosts; i++)
		if (x->f.hosts[i].merged) {
			rs[n] = x->f.hosts[i].r;
			labels[n++] = x->f.hosts[i].name;
		}
	ret = n ? tb_plot_compare_at(rs, labels, n, &x->d, 0) : 0;
	if (ret < 0)
		tb_warn("fleet: no compare plot: %s",
			ret == -ENOENT ? "gnuplot not found" : strerror(-ret));
	if (ret > 0)
		tb_dir_sub(&x->d, "plots", TB_DIR_QUIET, 0, &plots);
	ret = tb_report_fleet_write(&x->f, plots.fd >= 0 ? &plots : NULL, &x->d, "report.html");
	tb_dir_close(&plots);
out:
	if (ret == -ENOMEM) /* a write that failed was said by core/outdir */
		tb_err("fleet: %s/report.html: cannot write the report: %s", x->d.path,
		       strerror(-ret));
	free(rs);
	free(labels);
	return ret;
}

/* The fleet's tables into its directory: each is tried. Returns 0 or the first -errno (said). */
static int write_tables(struct fleet *x)
{
	int err = write_text(x, "fleet.txt", print_tables);
	int ret = write_text(x, "fleet.json", print_json);

	if (!err)
		err = ret;
	if (x->f.nmerged && (ret = write_text(x, "compare.txt", print_compare)) && !err)
		err = ret;
	return err;
}

/* Returns the exit code: tb_dir_exit_code's when a table or the report could not be written (a
 * link planted in the fleet directory: 2), else 1 when a host failed or the history add did. */
static int publish(struct fleet *x)
{
	bool hist_failed = false;
	int err, ret;

	if (x->o.json)
		print_json(stdout, x);
	else
		print_tables(stdout, x);
	err = write_tables(x);
	ret = plot_and_report(x);
	if (!err)
		err = ret;
	if (!x->o.json)
		printf("\nfleet:   %s/\nreport:  %s/report.html\ntables:  %s/fleet.txt, fleet.json%s\n",
		       x->dir, x->dir, x->dir, x->f.nmerged ? ", compare.txt" : "");
	if (x->o.history_set && x->f.nmerged) {
		int hrc;

		if (history_add(x->o.history, &x->f, x->o.json, &hrc) && hrc != TB_EXIT_FAIL)
			return hrc; /* the history itself is wrong or unreachable: 2 or 3 */
		hist_failed = hrc != 0;
	}
	if (err)
		return tb_dir_exit_code(err);
	if (x->out.interrupted)
		return TB_EXIT_INTERRUPTED; /* as run: what it shows is partial */
	if (hist_failed || tb_fleet_nbad(&x->f))
		return TB_EXIT_FAIL;
	return TB_EXIT_OK;
}

int tb_cli_fleet(int argc, char **argv)
{
	struct fleet x = {.d = TB_DIR_INIT, .logfd = -1};
	int rc;

	rc = parse_args(argc, argv, &x.o);
	if (rc < 0)
		rc = prepare(&x);
	if (rc < 0)
		rc = play(&x);
	if (rc < 0)
		rc = load(&x);
	if (rc < 0)
		rc = publish(&x);
	if (x.logfd >= 0)
		close(x.logfd);
	tb_dir_close(&x.d);
	tb_fleet_free(&x.f);
	tb_scenario_free(x.s);
	json_decref(x.o.labels);
	json_decref(x.o.run_args);
	return rc;
}
