// SPDX-License-Identifier: GPL-2.0
/* BPF objects being freed: teardown's bounded wait and the record the next run reads. */
#include <bpf/bpf.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/outdir.h"
#include "core/tb.h"
#include "core/proctree.h"
#include "host/armed.h"
#include "host/bpf-account.h"
#include "host/bpf-freeing.h"

int tb_bpf_obj_of_prog_fd(int fd, struct tb_bpf_obj *o)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	*o = (struct tb_bpf_obj){.id = info.id, .load_time = info.load_time};
	return 0;
}

int tb_bpf_obj_of_link_fd(int fd, struct tb_bpf_obj *o)
{
	struct bpf_link_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	*o = (struct tb_bpf_obj){.id = info.id, .link = true};
	return 0;
}

bool tb_bpf_obj_exists(const struct tb_bpf_obj *o)
{
	struct tb_bpf_obj now;
	bool same;
	int fd;

	fd = o->link ? bpf_link_get_fd_by_id(o->id) : bpf_prog_get_fd_by_id(o->id);
	if (fd < 0)
		return errno != ENOENT; /* EPERM and the like: cannot tell, assume it is there */
	same = o->link || !o->load_time || tb_bpf_obj_of_prog_fd(fd, &now) ||
	       now.load_time == o->load_time;
	close(fd);
	return same;
}

int tb_bpf_wait_gone(const struct tb_bpf_obj *o, size_t n, uint64_t timeout_ns, size_t *left)
{
	uint64_t deadline = tb_now_ns() + timeout_ns;
	size_t i, there;

	for (;;) {
		for (i = 0, there = 0; i < n; i++)
			there += o[i].id && tb_bpf_obj_exists(&o[i]);
		if (left)
			*left = there;
		if (!there)
			return 0;
		if (tb_now_ns() >= deadline)
			return -ETIMEDOUT;
		tb_sleep_ns(5000000);
	}
}

/* ---- what a command holds ------------------------------------------------------------- */

int tb_bpf_objs_of_pgrp(pid_t pgid, struct tb_bpf_obj **out, size_t *n)
{
	struct tb_bpf_held h = {0};
	pid_t *pids = NULL;
	size_t npids = 0;
	int ret;

	*out = NULL;
	*n = 0;
	ret = tb_proc_group_tree(pgid, &pids, &npids);
	if (!ret)
		ret = tb_bpf_held_by(pids, npids, false, &h);
	free(pids);
	if (!ret) {
		*out = calloc(h.nprogs + h.nlinks + 1, sizeof(**out));
		ret = *out ? 0 : -ENOMEM;
	}
	for (size_t i = 0; !ret && i < h.nprogs; i++) {
		int fd = bpf_prog_get_fd_by_id(h.progs[i].id);
		struct tb_bpf_obj *o = &(*out)[(*n)++];

		*o = (struct tb_bpf_obj){.id = h.progs[i].id};
		if (fd >= 0) {
			tb_bpf_obj_of_prog_fd(fd, o);
			close(fd);
		}
	}
	for (size_t i = 0; !ret && i < h.nlinks; i++)
		(*out)[(*n)++] = (struct tb_bpf_obj){.id = h.links[i], .link = true};
	tb_bpf_held_free(&h);
	return ret;
}

/* ---- the record ------------------------------------------------------------------------- */

static void record_path(char *buf, size_t len)
{
	snprintf(buf, len, "%s/bpf-freeing", tb_state_dir());
}

int tb_bpf_freeing_note(const struct tb_bpf_obj *o, size_t n)
{
	char path[4200], line[128];
	int fd, ret = 0;

	if (!n)
		return 0;
	ret = tb_mkdir_p(tb_state_dir(), 0755);
	if (ret)
		return ret;
	record_path(path, sizeof(path));
	/* Never through a link someone else planted: O_NOFOLLOW; one write per line appends
	 * atomically beside other tracebench processes. */
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	for (size_t i = 0; i < n && !ret; i++) {
		int len = snprintf(line, sizeof(line), "%s %u %llu %lld %d\n",
				   o[i].link ? "link" : "prog", o[i].id,
				   (unsigned long long)o[i].load_time, (long long)time(NULL),
				   (int)getpid());

		if (o[i].id && write(fd, line, (size_t)len) != len)
			ret = -EIO;
	}
	close(fd);
	return ret;
}

/* One line of the record; false when malformed (said once per file by the caller). */
static bool parse_line(const char *line, struct tb_bpf_obj *o, long long *when)
{
	char kind[8];
	unsigned long long id, lt;
	int pid;

	if (sscanf(line, "%7s %llu %llu %lld %d", kind, &id, &lt, when, &pid) != 5 ||
	    (strcmp(kind, "prog") && strcmp(kind, "link")) || !id || id > UINT32_MAX)
		return false;
	*o = (struct tb_bpf_obj){.id = (uint32_t)id, .link = kind[0] == 'l', .load_time = lt};
	return true;
}

/* The record's entries into *v (caller frees): all of them, or those still fresh. */
static size_t read_record(struct tb_bpf_obj **v, long long **when)
{
	char path[4200], *text = NULL, *line, *save = NULL;
	size_t n = 0, lineno = 0;
	bool said = false;

	*v = NULL;
	*when = NULL;
	record_path(path, sizeof(path));
	if (tb_read_file(path, &text, NULL))
		return 0;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct tb_bpf_obj o, *nv;
		long long w, *nw;

		lineno++;
		if (!parse_line(line, &o, &w)) {
			if (!said)
				tb_warn("%s:%zu: malformed line ignored", path, lineno);
			said = true;
			continue;
		}
		nv = realloc(*v, (n + 1) * sizeof(**v));
		nw = nv ? realloc(*when, (n + 1) * sizeof(**when)) : NULL;
		if (nv)
			*v = nv;
		if (!nw)
			break;
		*when = nw;
		nv[n] = o;
		nw[n++] = w;
	}
	free(text);
	return n;
}

bool tb_bpf_freeing_has(uint32_t id, uint64_t load_time)
{
	struct tb_bpf_obj *v;
	long long *when, now = (long long)time(NULL);
	size_t n = read_record(&v, &when);
	bool found = false;

	for (size_t i = 0; i < n && !found; i++)
		found = !v[i].link && v[i].id == id &&
			(!v[i].load_time || v[i].load_time == load_time) &&
			now - when[i] < TB_BPF_FREEING_MAX_AGE_S;
	free(v);
	free(when);
	return found;
}

size_t tb_bpf_freeing_settle(uint64_t timeout_ns)
{
	struct tb_bpf_obj *v;
	long long *when, now = (long long)time(NULL);
	size_t n = read_record(&v, &when), keep = 0, left = 0;
	char path[4200], *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (!n) {
		free(v);
		free(when);
		return 0;
	}
	tb_bpf_wait_gone(v, n, timeout_ns, &left);
	record_path(path, sizeof(path));
	f = open_memstream(&buf, &len);
	for (size_t i = 0; f && i < n; i++) {
		if (now - when[i] >= TB_BPF_FREEING_MAX_AGE_S || !tb_bpf_obj_exists(&v[i]))
			continue;
		fprintf(f, "%s %u %llu %lld 0\n", v[i].link ? "link" : "prog", v[i].id,
			(unsigned long long)v[i].load_time, when[i]);
		keep++;
	}
	if (f && !fclose(f)) {
		if (keep)
			tb_write_atomic(path, buf, len, 0644);
		else
			unlink(path);
	}
	free(buf);
	free(v);
	free(when);
	return left;
}

int tb_bpf_release_and_wait(const char *what, const struct tb_bpf_obj *o, size_t n,
			    void (*release)(void *), void *arg)
{
	uint64_t t0;
	size_t left = 0;
	int ret;

	if (tb_bpf_freeing_note(o, n))
		tb_debug("%s: cannot note its BPF objects in the freeing record", what);
	release(arg);
	t0 = tb_now_ns();
	ret = tb_bpf_wait_gone(o, n, TB_BPF_GONE_TIMEOUT_NS, &left);
	tb_debug("%s: %zu BPF objects freed by the kernel in %.1f ms", what, n - left,
		 (double)(tb_now_ns() - t0) / 1e6);
	if (ret)
		tb_warn("%s: %zu of its %zu BPF objects still listed %.1f s after teardown; "
			"runs ignore them for %d s (they are in %s/bpf-freeing)",
			what, left, n, TB_BPF_GONE_TIMEOUT_NS / 1e9, TB_BPF_FREEING_MAX_AGE_S,
			tb_state_dir());
	return ret;
}
