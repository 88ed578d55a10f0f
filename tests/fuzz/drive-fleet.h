/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One input of fuzz_fleet (what a fleet run reads from Ansible and the hosts), for the target
 * and for the fuzz-corpus unit suite that replays its corpus: the input's lines up to a line
 * "--record--" are ansible-playbook's output (JSON event lines and talk), the rest is a host
 * record (fleet-host.json) of the host "h". Each host that results is merged and drawn as
 * fleet.txt and fleet.json; every host text must come out bounded (TB_FLEET_TEXT_MAX) and
 * without a raw ESC, or the process aborts (a finding).
 */
#ifndef TB_FUZZ_DRIVE_FLEET_H
#define TB_FUZZ_DRIVE_FLEET_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/fleet-playbook.h"
#include "render/fleet-table.h"
#include "stats/fleet.h"

/* A kept text is bounded and has no ESC: anything else is a finding. */
static void tb_drive_fleet_check(const char *s)
{
	if (s && (strlen(s) > 4 * TB_FLEET_TEXT_MAX + 16 || strchr(s, '\033')))
		abort();
}

static int tb_drive_fleet(const uint8_t *data, size_t size)
{
	struct tb_cli_playbook pb = {.quiet = true, .logfd = -1};
	struct tb_cli_fleet_outcome out = {0};
	struct tb_fleet f = {.id = "fleet-fuzz"};
	char *text = malloc(size + 1), *line, *rec, *save = NULL;
	FILE *devnull = fopen("/dev/null", "w");
	struct tb_fleet_host *h;
	json_t *j;

	if (!text || !devnull)
		goto out;
	memcpy(text, data, size);
	text[size] = '\0';
	rec = strstr(text, "\n--record--\n");
	if (rec) {
		*rec = '\0';
		rec += 12;
	}
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (tb_cli_playbook_line(line, &f, &pb, &out))
			goto out;
	h = rec ? tb_fleet_host_get(&f, "h") : NULL;
	if (h && tb_cli_fleet_record(h, rec, strlen(rec), "h/fleet-host.json"))
		goto out;
	for (size_t i = 0; i < f.nhosts; i++) {
		tb_drive_fleet_check(f.hosts[i].name);
		tb_drive_fleet_check(f.hosts[i].stage);
		tb_drive_fleet_check(f.hosts[i].reason);
		tb_drive_fleet_check(f.hosts[i].install);
	}
	if (tb_fleet_merge(&f, 0.05))
		goto out;
	tb_render_fleet_print(devnull, &f);
	tb_render_fleet_hosts(devnull, &f);
	j = tb_render_fleet_json(&f);
	json_decref(j);
out:
	if (devnull)
		fclose(devnull);
	tb_fleet_free(&f);
	free(text);
	return 0;
}

#endif /* TB_FUZZ_DRIVE_FLEET_H */
