// SPDX-License-Identifier: GPL-2.0
/* `tracebench sysinfo`: collect the environment fingerprint, print it as text or JSON. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "core/tb.h"
#include "host/sysinfo.h"
#include "model/system.h"
#include "render/sysinfo-text.h"

const char tb_usage_sysinfo[] = "usage: tracebench sysinfo [--json]\n"
				"  --json  the fingerprint as JSON\n" TB_CLI_COMMON_USAGE;

int tb_cli_sysinfo(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		/* Hidden, for tests: read /proc and /sys under DIR; skip external programs. */
		{"root", required_argument, NULL, 'R'},
		{"no-tools", no_argument, NULL, 'T'},
		{NULL, 0, NULL, 0},
	};
	const char *root = "/";
	unsigned flags = 0;
	bool json = false;
	json_t *info;
	int c;

	while ((c = tb_cli_getopt(argc, argv, "+jh", longopts, tb_usage_sysinfo)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'h':
			printf("%s\n"
			       "Describe this machine: kernel, CPU and topology (hwloc), frequency\n"
			       "and idle settings, mitigations, virtualization, kernel settings,\n"
			       "tracefs, library and tool versions, and a fingerprint hash over the\n"
			       "fields that make two runs comparable. Missing sources read "
			       "\"unknown\".\n\n"
			       "  -j, --json   print the full object as JSON (sorted keys), with\n"
			       "               its hardware class (hardware_class: id, desc)\n"
			       "  -h, --help   this text\n",
			       tb_usage_sysinfo);
			return TB_EXIT_OK;
		case 'R':
			root = optarg;
			break;
		case 'T':
			flags |= TB_SYSINFO_NO_TOOLS;
			break;
		default:
			return TB_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		tb_err("sysinfo: unexpected argument '%s'", argv[optind]);
		fprintf(stderr, "%s", tb_usage_sysinfo);
		return TB_EXIT_USAGE;
	}
	if (strcmp(root, "/")) {
		struct stat st;

		if (stat(root, &st) || !S_ISDIR(st.st_mode))
			return tb_cli_bad_value("sysinfo", "--root", root, "not a directory");
	}
	info = tb_sysinfo_collect(root, flags);
	if (!info) {
		tb_err("sysinfo: out of memory");
		return TB_EXIT_FAIL;
	}
	if (json) {
		/* The hardware class (model/system.h) beside the object, not in it: result.json's
		 * `system` stays what sysinfo collects; make figures stamps its figures with it. */
		char hash[17], desc[256];

		if (tb_system_hardware_class(info, hash, desc, sizeof(desc)) ||
		    json_object_set_new(info, "hardware_class",
					json_pack("{s:s, s:s}", "id", hash, "desc", desc))) {
			tb_err("sysinfo: out of memory");
			json_decref(info);
			return TB_EXIT_FAIL;
		}
		json_dumpf(info, stdout, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(15));
		fputc('\n', stdout);
	} else {
		tb_render_sysinfo_print(stdout, info);
	}
	json_decref(info);
	return fflush(stdout) ? TB_EXIT_FAIL : TB_EXIT_OK;
}
