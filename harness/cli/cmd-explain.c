// SPDX-License-Identifier: GPL-2.0
/*
 * `tracebench explain RESULT.json [-o DIR] [--cell ID] [--top N] [--json]`: the explained
 * cells of a result again, from their stored folded files (validated) alone: the added cost by
 * function, the explained share and the two flame graphs, re-rendered. Needs no root and
 * measures nothing; the result file is not changed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "core/outdir.h"
#include "core/tb.h"
#include "explain/explain.h"
#include "render/summary.h"
#include "model/explain.h"
#include "model/result.h"

const char tb_usage_explain[] =
	"usage: tracebench explain RESULT.json [options]\n"
	"  -o, --output DIR  write the flame graphs to DIR/<cell>/ (default: each cell's\n"
	"                    explain/<cell>/ next to the result)\n"
	"      --cell ID     only this cell (e.g. getpid/tp-getpid)\n"
	"      --top N       functions per cell (default 10, at most 256)\n"
	"      --json        print the recomputed explain objects as JSON\n" TB_CLI_COMMON_USAGE;

struct opts {
	const char *file, *outdir, *cell;
	int64_t top;
	bool json;
};

/* Returns -1 to go on, else the exit code. */
static int parse(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'}, {"cell", required_argument, NULL, 'c'},
		{"top", required_argument, NULL, 't'},	  {"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},	  {NULL, 0, NULL, 0},
	};
	int c;

	*o = (struct opts){.top = 10};
	while ((c = tb_cli_getopt(argc, argv, "o:h", longopts, tb_usage_explain)) != -1) {
		switch (c) {
		case 'o':
			o->outdir = optarg;
			break;
		case 'c':
			o->cell = optarg;
			break;
		case 't':
			if (tb_parse_int(optarg, &o->top) || o->top < 1 || o->top > 256)
				return tb_cli_bad_value("explain", "--top", optarg, "1 to 256");
			break;
		case 'j':
			o->json = true;
			break;
		case 'h':
			fputs(tb_usage_explain, stdout);
			return TB_EXIT_OK;
		default:
			return TB_EXIT_USAGE;
		}
	}
	if (optind + 1 != argc) {
		tb_err("explain: expected one result file");
		fputs(tb_usage_explain, stderr);
		return TB_EXIT_USAGE;
	}
	o->file = argv[optind];
	return -1;
}

/*
 * Where the graphs go, opened once, at the first cell that has them: -o DIR (the user's path,
 * links in it followed, created when absent), else the result's directory (the user's) and its
 * explain/ (tracebench's: a link there is refused). Returns 0 or -errno (said).
 */
static int open_base(const struct opts *o, const struct tb_result *r, struct tb_dir *base)
{
	struct tb_dir top = TB_DIR_INIT;
	int ret;

	if (o->outdir)
		return tb_dir_open(base, o->outdir, TB_DIR_PATH | TB_DIR_CREATE | TB_DIR_PARENTS,
				   0755);
	ret = tb_dir_open(&top, r->dir, TB_DIR_PATH, 0);
	if (!ret)
		ret = tb_dir_sub(&top, "explain", TB_DIR_CREATE, 0755, base);
	tb_dir_close(&top);
	return ret;
}

/* One cell: re-read, recompute, re-render into base/<cell>, print. Returns the exit code. */
static int one_cell(const struct opts *o, struct tb_result *r, struct tb_cell *c,
		    struct tb_dir *base, json_t *out)
{
	struct tb_dir dir = TB_DIR_INIT;
	struct tb_fold b, t;
	int ret, rc = TB_EXIT_OK;

	tb_fold_init(&b);
	tb_fold_init(&t);
	ret = tb_explain_load(r, c, &b, &t);
	if (!ret)
		ret = tb_explain_recompute(c, &b, &t);
	if (ret) {
		rc = ret == -ENOMEM ? TB_EXIT_FAIL : TB_EXIT_USAGE; /* said: the stored files */
		goto out;
	}
	if (base->fd < 0)
		ret = open_base(o, r, base);
	if (!ret) /* explain.dir is explain/<name> (tb_cell_explain_dir_ok) */
		ret = tb_dir_sub(base, c->explain->dir + strlen("explain/"), TB_DIR_CREATE, 0755,
				 &dir);
	if (!ret)
		ret = tb_explain_render(c, &b, &t, &dir);
	if (ret) {
		rc = tb_dir_exit_code(ret); /* said: the directory or the file, and why */
		goto out;
	}
	if (out) {
		if (json_object_set_new(out, c->id, tb_cell_explain_to_json(c->explain)))
			rc = TB_EXIT_FAIL;
		goto out;
	}
	tb_render_summary_explained(stdout, c, (size_t)o->top, true);
	printf("    flame graphs: %s/%s, %s/%s\n", dir.path, TB_EXPLAIN_DIFF_SVG, dir.path,
	       TB_EXPLAIN_TRACED_SVG);
out:
	tb_dir_close(&dir);
	tb_fold_free(&b);
	tb_fold_free(&t);
	return rc;
}

static int explain_all(const struct opts *o, struct tb_result *r)
{
	json_t *out = o->json ? json_object() : NULL;
	struct tb_dir base = TB_DIR_INIT;
	size_t done = 0;
	int rc = TB_EXIT_OK;

	if (o->json && !out)
		return TB_EXIT_FAIL;
	for (size_t i = 0; rc == TB_EXIT_OK && i < r->ncells; i++) {
		struct tb_cell *c = &r->cells[i];

		if (!c->explain || (o->cell && strcmp(o->cell, c->id)))
			continue;
		done++;
		if (c->explain->error) { /* the run could not profile it: say so again */
			if (!out)
				tb_render_summary_explained(stdout, c, 0, false);
			continue;
		}
		rc = one_cell(o, r, c, &base, out);
	}
	tb_dir_close(&base);
	if (rc == TB_EXIT_OK && out)
		json_dumpf(out, stdout, JSON_INDENT(2) | JSON_SORT_KEYS), printf("\n");
	json_decref(out);
	if (rc != TB_EXIT_OK)
		return rc;
	if (!done) {
		tb_err("explain: %s: %s", o->file,
		       o->cell ? "no explained cell of that id"
			       : "no explained cell (run it with `tracebench run --explain`)");
		return TB_EXIT_USAGE;
	}
	return TB_EXIT_OK;
}

int tb_cli_explain(int argc, char **argv)
{
	struct tb_result *r = NULL;
	struct opts o;
	int rc = parse(argc, argv, &o);

	if (rc >= 0)
		return rc;
	if (tb_result_load(o.file, &r))
		return TB_EXIT_USAGE;
	rc = explain_all(&o, r);
	tb_result_free(r);
	return rc;
}
