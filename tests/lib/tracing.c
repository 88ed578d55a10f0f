// SPDX-License-Identifier: GPL-2.0
/* What the suites that trace share: a scratch state directory and the tracing-state check. */
#include <bpf/bpf.h>
#include <dirent.h>
#include <jansson.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/tb.h"
#include "host/tracefs.h"
#include "host/tracing-state.h"
#include "tb_test.h"

static json_t *state_before;
static char own_prefix[64];
static char state_dir[4096];

int tb_test_tracing_init(void)
{
	const char *tmp = tb_test_tmpdir();

	if (!tmp)
		return 1;
	/* Our armed records go to a scratch state directory, not the machine's. */
	snprintf(state_dir, sizeof(state_dir), "%s/run", tmp);
	setenv("TB_STATE_DIR", state_dir, 1);
	snprintf(own_prefix, sizeof(own_prefix), TB_INSTANCE_PREFIX "%d-", (int)getpid());
	json_decref(state_before);
	state_before = NULL;
	if (tb_test_is_root() && !tb_tracefs_ensure())
		state_before = tb_tracing_state_capture();
	return 0;
}

int tb_test_tracing_clean(void)
{
	json_decref(state_before);
	state_before = NULL;
	return 0;
}

bool tb_test_tracing_captured(void)
{
	return state_before != NULL;
}

void tb_test_assert_tracing_unchanged(const char *who)
{
	json_t *now;
	char *diff;

	if (!state_before)
		return;
	now = tb_tracing_state_capture();
	CU_ASSERT_PTR_NOT_NULL_FATAL(now);
	diff = tb_tracing_state_diff_filtered(state_before, now, own_prefix, false);
	if (diff)
		printf("\n    %s: tracing state changed:\n%s", who, diff);
	CU_ASSERT_PTR_NULL(diff);
	free(diff);
	json_decref(now);
}

bool tb_test_armed_record_empty(void)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/armed-%d.json", state_dir, (int)getpid());
	return access(path, F_OK) != 0;
}

/*
 * The ids of the BPF programs another process holds an fd of (a program's or a link's
 * fdinfo has its prog_id), from /proc: another tracebench or tracer at work on this shared
 * machine, not what a test left. Up to max into held; returns how many.
 */
static size_t held_elsewhere(uint32_t *held, size_t max)
{
	char path[600], line[128];
	struct dirent *p, *f;
	size_t n = 0;
	DIR *procs = opendir("/proc"), *fds;
	unsigned int id;
	FILE *in;

	while (procs && (p = readdir(procs)) && n < max) {
		if (p->d_name[0] < '1' || p->d_name[0] > '9' || atoi(p->d_name) == getpid())
			continue;
		snprintf(path, sizeof(path), "/proc/%s/fdinfo", p->d_name);
		fds = opendir(path);
		while (fds && (f = readdir(fds)) && n < max) {
			snprintf(path, sizeof(path), "/proc/%s/fdinfo/%s", p->d_name, f->d_name);
			in = f->d_name[0] == '.' ? NULL : fopen(path, "re");
			while (in && fgets(line, sizeof(line), in))
				if (sscanf(line, "prog_id: %u", &id) == 1 && n < max)
					held[n++] = id;
			if (in)
				fclose(in);
		}
		if (fds)
			closedir(fds);
	}
	if (procs)
		closedir(procs);
	return n;
}

size_t tb_test_bpf_progs(uint32_t *ids, size_t max)
{
	static uint32_t held[8192];
	size_t nheld = held_elsewhere(held, TB_ARRAY_SIZE(held)), k;
	struct bpf_prog_info info;
	__u32 id = 0, len;
	size_t n = 0;
	int fd;

	while (!bpf_prog_get_next_id(id, &id) && n < max) {
		fd = bpf_prog_get_fd_by_id(id);
		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		for (k = 0; k < nheld && held[k] != id; k++)
			;
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) && !strncmp(info.name, "tb_", 3) &&
		    k == nheld)
			ids[n++] = id;
		close(fd);
	}
	return n;
}
