// SPDX-License-Identifier: GPL-2.0
/* `tracebench cleanup`: undo the tracing state that dead (or, with --all, live) runs left. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "host/armed.h"
#include "host/cleanup.h"
#include "cli/cli.h"
#include "core/tb.h"
#include "cli/commands.h"

const char tb_usage_cleanup[] =
	"usage: tracebench cleanup [--dry-run] [--all [--force]]\n"
	"  Remove the tracefs instances, BPF links and child processes that tracebench runs\n"
	"  left behind when they were killed. Records are kept in $TB_STATE_DIR or /run/tracebench.\n"
	"  -n, --dry-run  say what would be removed, remove nothing\n"
	"  -a, --all      also remove what live tracebench processes armed (refused while a run\n"
	"                 holds the lock, unless --force)\n"
	"  -f, --force    with --all: go ahead even though a run holds the lock\n" TB_CLI_COMMON_USAGE;

int tb_cli_cleanup(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"dry-run", no_argument, NULL, 'n'},
		{"all", no_argument, NULL, 'a'},
		{"force", no_argument, NULL, 'f'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	unsigned int flags = 0;
	bool force = false;
	json_t *report = NULL, *v;
	size_t i;
	int c, ret;

	while ((c = tb_cli_getopt(argc, argv, "+nafh", longopts, tb_usage_cleanup)) != -1) {
		switch (c) {
		case 'n':
			flags |= TB_CLEANUP_DRY_RUN;
			break;
		case 'a':
			flags |= TB_CLEANUP_ALL;
			break;
		case 'f':
			force = true;
			break;
		case 'h':
			printf("%s", tb_usage_cleanup);
			return TB_EXIT_OK;
		default:
			return TB_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		tb_err("cleanup: unexpected argument '%s'", argv[optind]);
		fprintf(stderr, "%s", tb_usage_cleanup);
		return TB_EXIT_USAGE;
	}
	if (force && !(flags & TB_CLEANUP_ALL)) {
		tb_err("cleanup: --force only makes sense with --all");
		fprintf(stderr, "%s", tb_usage_cleanup);
		return TB_EXIT_USAGE;
	}
	if (geteuid() != 0) {
		tb_err("cleanup: needs root (tracefs and BPF objects belong to root)");
		return TB_EXIT_UNAVAILABLE;
	}
	if ((flags & TB_CLEANUP_ALL) && !force) {
		pid_t holder = tb_lock_holder();

		if (holder && holder != getpid()) {
			tb_err("cleanup: a run (pid %d) holds the lock %s/lock; --all would break it (use --force to do it anyway)",
			       (int)holder, tb_state_dir());
			return TB_EXIT_UNAVAILABLE;
		}
	}
	ret = tb_cleanup_stale(flags, &report);
	json_array_foreach(report, i, v) printf("%s\n", json_string_value(v));
	if (ret == 0)
		printf("nothing to clean\n");
	json_decref(report);
	if (ret == -EIO)
		return TB_EXIT_FAIL;
	if (ret < 0) {
		tb_err("cleanup: %s", strerror(-ret));
		return TB_EXIT_FAIL;
	}
	return TB_EXIT_OK;
}
