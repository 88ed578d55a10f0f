// SPDX-License-Identifier: GPL-2.0
/* Process groups and their descendants from /proc (proctree.h). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/proctree.h"
#include "core/util.h"

struct ps {
	pid_t pid, ppid, pgrp;
	bool in;
};

/* ppid and pgrp of pid from /proc/pid/stat (fields 4 and 5, after the parenthesised comm). */
static int stat_of(pid_t pid, pid_t *ppid, pid_t *pgrp)
{
	char path[64], buf[1024], *p;
	int pp, pg, ret = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = tb_fopen_input(path, TB_INPUT_FOLLOW);
	if (!f)
		return -errno;
	p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
	if (p && sscanf(p + 1, " %*c %d %d", &pp, &pg) == 2) {
		*ppid = pp;
		*pgrp = pg;
		ret = 0;
	}
	fclose(f);
	return ret;
}

/* Every process of /proc with its parent and group. */
static int list_all(struct ps **out, size_t *n)
{
	struct ps *v = NULL, *nv;
	size_t cap = 0;
	struct dirent *e;
	DIR *d;

	*n = 0;
	d = opendir("/proc");
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		pid_t pid, ppid, pgrp;

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		pid = (pid_t)strtol(e->d_name, NULL, 10);
		if (stat_of(pid, &ppid, &pgrp))
			continue; /* gone meanwhile */
		if (*n == cap) {
			cap = cap ? 2 * cap : 256;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				free(v);
				closedir(d);
				return -ENOMEM;
			}
			v = nv;
		}
		v[(*n)++] = (struct ps){.pid = pid, .ppid = ppid, .pgrp = pgrp};
	}
	closedir(d);
	*out = v;
	return 0;
}

/* The pids of the entries marked in, into a new array. */
static int collect(const struct ps *v, size_t nv, bool want, pid_t **pids, size_t *n)
{
	*pids = calloc(nv + 1, sizeof(**pids));
	*n = 0;
	if (!*pids)
		return -ENOMEM;
	for (size_t i = 0; i < nv; i++)
		if (v[i].in == want)
			(*pids)[(*n)++] = v[i].pid;
	return 0;
}

/* The processes of group pgid (by_group) or process pgid, and their descendants. */
static int tree_of(pid_t pgid, bool by_group, pid_t **pids, size_t *n)
{
	struct ps *v = NULL;
	size_t nv, i, j;
	bool grew = true;
	int ret;

	*pids = NULL;
	*n = 0;
	ret = list_all(&v, &nv);
	if (ret)
		return ret;
	for (i = 0; i < nv; i++)
		v[i].in = pgid > 0 && (by_group ? v[i].pgrp == pgid : v[i].pid == pgid);
	/* Descendants: whoever's parent is in, until nothing changes (the tree is shallow). */
	while (grew) {
		grew = false;
		for (i = 0; i < nv; i++)
			for (j = 0; !v[i].in && j < nv; j++)
				if (v[j].in && v[j].pid == v[i].ppid)
					v[i].in = grew = true;
	}
	ret = collect(v, nv, true, pids, n);
	free(v);
	return ret;
}

int tb_proc_group_tree(pid_t pgid, pid_t **pids, size_t *n)
{
	return tree_of(pgid, true, pids, n);
}

int tb_proc_tree(pid_t pid, pid_t **pids, size_t *n)
{
	return tree_of(pid, false, pids, n);
}

int tb_proc_all_except(const pid_t *skip, size_t n_skip, pid_t **pids, size_t *n)
{
	struct ps *v = NULL;
	size_t nv;
	int ret;

	*pids = NULL;
	*n = 0;
	ret = list_all(&v, &nv);
	if (ret)
		return ret;
	for (size_t i = 0; i < nv; i++)
		for (size_t k = 0; k < n_skip && !v[i].in; k++)
			v[i].in = v[i].pid == skip[k];
	ret = collect(v, nv, false, pids, n);
	free(v);
	return ret;
}
