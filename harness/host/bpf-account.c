// SPDX-License-Identifier: GPL-2.0
/* The BPF programs and maps of another process, and their run figures (bpf-account.h). */
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <ctype.h>
#include <stdarg.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/proctree.h"
#include "core/tb.h"
#include "host/bpf-account.h"
#include "host/tracefs.h"

static __u64 ptr_to_u64(const void *p)
{
	return (__u64)(unsigned long)p;
}

/* snprintf into a fixed field: a long kernel name or path is cut, which is fine here. */
static void put(char *out, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void put(char *out, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(out, len, fmt, ap);
	va_end(ap);
}

/* ---- growing arrays ---------------------------------------------------------------------- */

static struct tb_bpf_acct_prog *prog_find(struct tb_bpf_acct_prog *v, size_t n, uint32_t id)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].id == id)
			return &v[i];
	return NULL;
}

/* The entry of id, appended (zeroed) when new; NULL on ENOMEM. */
static struct tb_bpf_acct_prog *prog_get(struct tb_bpf_acct_prog **v, size_t *n, uint32_t id)
{
	struct tb_bpf_acct_prog *p = prog_find(*v, *n, id), *nv;

	if (p)
		return p;
	nv = realloc(*v, (*n + 1) * sizeof(**v));
	if (!nv)
		return NULL;
	*v = nv;
	p = &nv[(*n)++];
	memset(p, 0, sizeof(*p));
	p->id = id;
	return p;
}

static struct tb_bpf_acct_map *map_get(struct tb_bpf_acct_map **v, size_t *n, uint32_t id)
{
	struct tb_bpf_acct_map *nv;

	for (size_t i = 0; i < *n; i++)
		if ((*v)[i].id == id)
			return &(*v)[i];
	nv = realloc(*v, (*n + 1) * sizeof(**v));
	if (!nv)
		return NULL;
	*v = nv;
	memset(&nv[*n], 0, sizeof(nv[*n]));
	nv[*n].id = id;
	nv[*n].memlock = -1;
	return &nv[(*n)++];
}

/* Add one attach point to a program's list ("a, b"), once. */
static void attach_add(struct tb_bpf_acct_prog *p, const char *what)
{
	size_t used = strlen(p->attach);

	if (!*what || strstr(p->attach, what))
		return;
	snprintf(p->attach + used, sizeof(p->attach) - used, "%s%s", used ? ", " : "", what);
}

/* ---- /proc/PID/fd and fdinfo ------------------------------------------------------------- */

/* The value of "key:" in an fdinfo text, or -1. */
static long long fdinfo_num(const char *text, const char *key)
{
	size_t klen = strlen(key);

	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (!strncmp(l, key, klen) && l[klen] == ':')
			return strtoll(l + klen + 1, NULL, 0);
	return -1;
}

static int fdinfo_read(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

/* "tracepoint:syscalls:sys_enter_read" for the tracepoint name the kernel gives. */
static void tracepoint_name(const char *tp, char *out, size_t len)
{
	struct tb_strlist spec = {0}, got = {0};
	char pattern[160], err[128], *v[1];

	put(pattern, sizeof(pattern), "*:%s", tp);
	v[0] = pattern;
	spec.v = v;
	spec.n = 1;
	if (!tb_tracefs_events_expand(&spec, &got, err, sizeof(err)) && got.n == 1)
		put(out, len, "tracepoint:%s", got.v[0]);
	else
		put(out, len, "tracepoint:%s", tp);
	tb_strlist_free(&got);
}

/*
 * Where a perf event or link fd of pid attaches its program (BPF_TASK_FD_QUERY): the program's
 * id into *id and (with name) the place into out. Returns 0, or -errno (not a tracing
 * attachment).
 */
static int task_fd_attach(pid_t pid, int fd, bool name, uint32_t *id, char *out, size_t len)
{
	__u32 buflen = 256, type = 0, prog = 0;
	__u64 off = 0, addr = 0;
	char buf[256];

	if (bpf_task_fd_query(pid, fd, 0, buf, &buflen, &prog, &type, &off, &addr))
		return -errno;
	buf[sizeof(buf) - 1] = '\0';
	*id = prog;
	if (!name)
		return 0;
	switch (type) {
	case BPF_FD_TYPE_TRACEPOINT:
		tracepoint_name(buf, out, len);
		break;
	case BPF_FD_TYPE_RAW_TRACEPOINT:
		put(out, len, "raw_tracepoint:%s", buf);
		break;
	case BPF_FD_TYPE_KPROBE:
	case BPF_FD_TYPE_KRETPROBE:
		if (*buf)
			put(out, len, "%s:%s+%llu",
			    type == BPF_FD_TYPE_KPROBE ? "kprobe" : "kretprobe", buf,
			    (unsigned long long)off);
		else
			put(out, len, "%s:0x%llx",
			    type == BPF_FD_TYPE_KPROBE ? "kprobe" : "kretprobe",
			    (unsigned long long)addr);
		break;
	case BPF_FD_TYPE_UPROBE:
	case BPF_FD_TYPE_URETPROBE:
		put(out, len, "%s:%s+0x%llx", type == BPF_FD_TYPE_UPROBE ? "uprobe" : "uretprobe",
		    buf, (unsigned long long)off);
		break;
	default:
		put(out, len, "fd type %u", type);
	}
	return 0;
}

/* The name of BTF type id of BTF object obj_id (vmlinux or a module), or "". */
static void btf_name(uint32_t obj_id, uint32_t type_id, char *out, size_t len)
{
	struct btf *btf = obj_id ? btf__load_from_kernel_by_id(obj_id) : NULL;
	const struct btf_type *t = btf ? btf__type_by_id(btf, type_id) : NULL;

	snprintf(out, len, "%s", t ? btf__name_by_offset(btf, t->name_off) : "");
	btf__free(btf);
}

/* Where a link attaches, from its info, when BPF_TASK_FD_QUERY cannot say (fentry, cgroup). */
static void link_attach(uint32_t link_id, char *out, size_t len)
{
	struct bpf_link_info info;
	__u32 ilen = sizeof(info);
	const char *s;
	char name[128];
	int fd;

	out[0] = '\0';
	fd = bpf_link_get_fd_by_id(link_id);
	if (fd < 0)
		return;
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &ilen)) {
		close(fd);
		return;
	}
	close(fd);
	switch (info.type) {
	case BPF_LINK_TYPE_TRACING:
		btf_name(info.tracing.target_obj_id, info.tracing.target_btf_id, name,
			 sizeof(name));
		s = libbpf_bpf_attach_type_str(info.tracing.attach_type);
		put(out, len, "%s:%s", s ? s : "tracing", name);
		break;
	case BPF_LINK_TYPE_CGROUP:
		s = libbpf_bpf_attach_type_str(info.cgroup.attach_type);
		put(out, len, "cgroup %llu:%s", (unsigned long long)info.cgroup.cgroup_id,
		    s ? s : "?");
		break;
	case BPF_LINK_TYPE_XDP:
		put(out, len, "xdp:ifindex %u", info.xdp.ifindex);
		break;
	default:
		s = libbpf_bpf_link_type_str(info.type);
		put(out, len, "%s link", s ? s : "unknown");
	}
}

static int link_add(struct tb_bpf_held *h, uint32_t id)
{
	uint32_t *nv;

	for (size_t i = 0; i < h->nlinks; i++)
		if (h->links[i] == id)
			return 0;
	nv = realloc(h->links, (h->nlinks + 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	h->links = nv;
	nv[h->nlinks++] = id;
	return 0;
}

/* A map fd of pid, from its fdinfo (map_id, memlock). */
static int scan_map(const char *text, struct tb_bpf_held *h)
{
	long long v = fdinfo_num(text, "map_id");
	struct tb_bpf_acct_map *m;

	if (v <= 0)
		return 0;
	m = map_get(&h->maps, &h->nmaps, (uint32_t)v);
	if (!m)
		return -ENOMEM;
	m->memlock = fdinfo_num(text, "memlock");
	return 0;
}

/*
 * One fd of pid: a program, link, map or perf event with a program (with attach, where its
 * program is attached). Returns 0 or -ENOMEM.
 */
static int scan_fd(pid_t pid, int fd, const char *target, bool attach, struct tb_bpf_held *h)
{
	bool link = !strcmp(target, "anon_inode:bpf-link");
	bool perf = !strcmp(target, "anon_inode:[perf_event]");
	char path[96], text[1024], where[TB_BPF_ATTACH_MAX] = "";
	struct tb_bpf_acct_prog *p;
	uint32_t id = 0;
	long long v;

	if (!link && !perf && strcmp(target, "anon_inode:bpf-prog") &&
	    strcmp(target, "anon_inode:bpf-map"))
		return 0;
	if (perf) {
		/* a perf event without a program (counting, sampling) says nothing */
		if (task_fd_attach(pid, fd, attach, &id, where, sizeof(where)))
			return 0;
	} else {
		snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", (int)pid, fd);
		if (fdinfo_read(path, text, sizeof(text)))
			return 0; /* closed meanwhile */
		if (!strcmp(target, "anon_inode:bpf-map"))
			return scan_map(text, h);
		v = fdinfo_num(text, "prog_id");
		id = v > 0 ? (uint32_t)v : 0;
	}
	if (link && (v = fdinfo_num(text, "link_id")) > 0) {
		if (link_add(h, (uint32_t)v))
			return -ENOMEM;
		if (attach && task_fd_attach(pid, fd, true, &id, where, sizeof(where)))
			link_attach((uint32_t)v, where, sizeof(where));
	}
	if (!id)
		return 0;
	p = prog_get(&h->progs, &h->nprogs, id);
	if (!p)
		return -ENOMEM;
	attach_add(p, where);
	return 0;
}

static int scan_pid(pid_t pid, bool attach, struct tb_bpf_held *h)
{
	char dir[64], target[128];
	struct dirent *e;
	int ret = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	d = opendir(dir);
	if (!d)
		return 0; /* exited */
	while (!ret && (e = readdir(d))) {
		ssize_t n;

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		n = readlinkat(dirfd(d), e->d_name, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		ret = scan_fd(pid, atoi(e->d_name), target, attach, h);
	}
	closedir(d);
	return ret;
}

int tb_bpf_held_by(const pid_t *pids, size_t npids, bool attach, struct tb_bpf_held *h)
{
	int ret = 0;

	memset(h, 0, sizeof(*h));
	for (size_t i = 0; !ret && i < npids; i++)
		ret = scan_pid(pids[i], attach, h);
	if (ret)
		tb_bpf_held_free(h);
	return ret;
}

void tb_bpf_held_free(struct tb_bpf_held *h)
{
	free(h->progs);
	free(h->maps);
	free(h->links);
	memset(h, 0, sizeof(*h));
}

/* ---- programs and maps by id --------------------------------------------------------------- */

/* The program's full name: BTF's name of its main function when the kernel's 15 are cut. */
static void full_name(int fd, const struct bpf_prog_info *info, char *out, size_t len)
{
	struct bpf_func_info fn = {0};
	struct bpf_prog_info fi;
	__u32 flen = sizeof(fi);

	snprintf(out, len, "%s", info->name);
	if (!info->btf_id || !info->nr_func_info || strlen(info->name) < BPF_OBJ_NAME_LEN - 1)
		return;
	memset(&fi, 0, sizeof(fi));
	fi.nr_func_info = 1;
	fi.func_info_rec_size = sizeof(fn);
	fi.func_info = ptr_to_u64(&fn);
	if (!bpf_obj_get_info_by_fd(fd, &fi, &flen) && fn.type_id)
		btf_name(info->btf_id, fn.type_id, out, len);
	if (!*out)
		snprintf(out, len, "%s", info->name);
}

/*
 * Name, type, load time and run figures of program p->id (the first time: everything; after:
 * only the figures, and whether it is still the same program). -ENOENT when it is gone.
 */
static int prog_read(struct tb_bpf_acct_prog *p, bool first, uint64_t *cnt, uint64_t *ns)
{
	struct bpf_prog_info info;
	__u32 ilen = sizeof(info);
	const char *t;
	int fd, ret = 0;

	fd = bpf_prog_get_fd_by_id(p->id);
	if (fd < 0)
		return -errno;
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &ilen)) {
		ret = -errno;
		goto out;
	}
	if (first) {
		p->load_time = info.load_time;
		full_name(fd, &info, p->name, sizeof(p->name));
		t = libbpf_bpf_prog_type_str(info.type);
		if (t)
			snprintf(p->type, sizeof(p->type), "%s", t);
		else
			snprintf(p->type, sizeof(p->type), "type %u", info.type);
	} else if (info.load_time != p->load_time) {
		ret = -ENOENT; /* the id was reused */
		goto out;
	}
	*cnt = info.run_cnt;
	*ns = info.run_time_ns;
out:
	close(fd);
	return ret;
}

/* The maps a program uses (bpf_prog_info.map_ids) into the account's maps. */
static int prog_maps(uint32_t id, struct tb_bpf_acct_map **maps, size_t *nmaps)
{
	struct bpf_prog_info info;
	__u32 ilen = sizeof(info), ids[64];
	int fd, ret = 0;

	fd = bpf_prog_get_fd_by_id(id);
	if (fd < 0)
		return 0;
	memset(&info, 0, sizeof(info));
	info.nr_map_ids = TB_ARRAY_SIZE(ids);
	info.map_ids = ptr_to_u64(ids);
	if (!bpf_obj_get_info_by_fd(fd, &info, &ilen)) {
		__u32 n =
			info.nr_map_ids < TB_ARRAY_SIZE(ids) ? info.nr_map_ids : TB_ARRAY_SIZE(ids);

		for (__u32 i = 0; i < n && !ret; i++)
			if (!map_get(maps, nmaps, ids[i]))
				ret = -ENOMEM;
	}
	close(fd);
	return ret;
}

/* Sizes, name and type of a map, and its memlock from our own fd's fdinfo when not known. */
static void map_read(struct tb_bpf_acct_map *m)
{
	struct bpf_map_info info;
	__u32 ilen = sizeof(info);
	char path[64], text[1024];
	const char *t;
	int fd;

	fd = bpf_map_get_fd_by_id(m->id);
	if (fd < 0)
		return;
	memset(&info, 0, sizeof(info));
	if (!bpf_obj_get_info_by_fd(fd, &info, &ilen)) {
		snprintf(m->name, sizeof(m->name), "%s", info.name);
		t = libbpf_bpf_map_type_str(info.type);
		if (t)
			snprintf(m->type, sizeof(m->type), "%s", t);
		else
			snprintf(m->type, sizeof(m->type), "type %u", info.type);
		m->key_size = info.key_size;
		m->value_size = info.value_size;
		m->max_entries = info.max_entries;
	}
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	if (m->memlock < 0 && !fdinfo_read(path, text, sizeof(text)))
		m->memlock = fdinfo_num(text, "memlock");
	close(fd);
}

/* ---- ids that appeared -------------------------------------------------------------------- */

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Every loaded program's id, sorted. */
static int all_ids(uint32_t **ids, size_t *n)
{
	uint32_t id = 0, *v = NULL, *nv;
	size_t cap = 0;

	*n = 0;
	while (!bpf_prog_get_next_id(id, &id)) {
		if (*n == cap) {
			cap = cap ? 2 * cap : 64;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				free(v);
				return -ENOMEM;
			}
			v = nv;
		}
		v[(*n)++] = id;
	}
	if (*n) /* v is NULL when there is no program at all */
		qsort(v, *n, sizeof(*v), cmp_u32);
	*ids = v;
	return 0;
}

/*
 * The tracer holds no BPF fd: the programs loaded since begin that no other process holds
 * (tracebench itself included) go into progs.
 */
static int new_ids(struct tb_bpf_account *a, const pid_t *mine, size_t nmine,
		   struct tb_bpf_acct_prog **progs, size_t *nprogs)
{
	struct tb_bpf_held held = {0};
	size_t n, nothers = 0;
	uint32_t *ids = NULL;
	pid_t *others = NULL;
	int ret;

	ret = all_ids(&ids, &n);
	if (!ret)
		ret = tb_proc_all_except(mine, nmine, &others, &nothers);
	if (!ret)
		ret = tb_bpf_held_by(others, nothers, false, &held);
	for (size_t i = 0; !ret && i < n; i++) {
		if (bsearch(&ids[i], a->before, a->nbefore, sizeof(*ids), cmp_u32) ||
		    prog_find(held.progs, held.nprogs, ids[i]))
			continue;
		if (!prog_get(progs, nprogs, ids[i]))
			ret = -ENOMEM;
	}
	free(ids);
	free(others);
	tb_bpf_held_free(&held);
	return ret;
}

/* ---- the account -------------------------------------------------------------------------- */

void tb_bpf_account_init(struct tb_bpf_account *a)
{
	memset(a, 0, sizeof(*a));
	a->stats_fd = -1;
}

int tb_bpf_account_begin(struct tb_bpf_account *a, bool stats)
{
	tb_bpf_account_init(a);
	if (stats) {
		a->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
		if (a->stats_fd < 0)
			a->stats_err = -errno;
		a->stats = a->stats_fd >= 0;
	}
	return all_ids(&a->before, &a->nbefore);
}

/*
 * The programs (and the maps its fds hold) of the tracer's processes now, and by which method:
 * its fds when it holds any BPF fd, else (unless the fds told before) the ids that appeared.
 */
static int find(struct tb_bpf_account *a, pid_t pgid, struct tb_bpf_held *h, int *method)
{
	pid_t *pids = NULL;
	size_t npids = 0;
	int ret;

	*method = TB_BPF_METHOD_NONE;
	memset(h, 0, sizeof(*h));
	ret = tb_proc_group_tree(pgid, &pids, &npids);
	if (!ret)
		ret = tb_bpf_held_by(pids, npids, true, h);
	a->nprocs = npids;
	if (!ret && (h->nprogs || h->nmaps || h->nlinks))
		*method = TB_BPF_METHOD_FDINFO;
	else if (!ret && a->method != TB_BPF_METHOD_FDINFO)
		ret = new_ids(a, pids, npids, &h->progs, &h->nprogs);
	if (!ret && *method == TB_BPF_METHOD_NONE && h->nprogs)
		*method = TB_BPF_METHOD_NEW_IDS;
	free(pids);
	if (ret)
		tb_bpf_held_free(h);
	return ret;
}

int tb_bpf_account_start(struct tb_bpf_account *a, pid_t pgid)
{
	struct tb_bpf_held h;
	int ret;

	ret = find(a, pgid, &h, &a->method);
	if (ret)
		return ret;
	a->progs = h.progs; /* the maps are listed at stop, when they are complete */
	a->nprogs = h.nprogs;
	h.progs = NULL;
	tb_bpf_held_free(&h);
	for (size_t i = 0; i < a->nprogs; i++) {
		struct tb_bpf_acct_prog *p = &a->progs[i];

		if (prog_read(p, true, &p->cnt0, &p->ns0))
			p->gone = true;
		p->cnt1 = p->cnt0;
		p->ns1 = p->ns0;
	}
	a->started = true;
	return 0;
}

/* A program found at stop: read it (a new one counts from 0: it was loaded in the window). */
static int stop_prog(struct tb_bpf_account *a, const struct tb_bpf_acct_prog *now)
{
	struct tb_bpf_acct_prog *p = prog_find(a->progs, a->nprogs, now->id);
	bool fresh = !p;

	if (fresh) {
		p = prog_get(&a->progs, &a->nprogs, now->id);
		if (!p)
			return -ENOMEM;
	}
	attach_add(p, now->attach);
	if (!p->gone && prog_read(p, fresh, &p->cnt1, &p->ns1))
		p->gone = true;
	return 0;
}

int tb_bpf_account_stop(struct tb_bpf_account *a, pid_t pgid)
{
	struct tb_bpf_acct_prog *now;
	struct tb_bpf_acct_map *maps;
	size_t nnow, nmaps, i, k;
	struct tb_bpf_held h;
	int ret, method;

	if (!a->started || a->stopped)
		return 0;
	a->stopped = true;
	ret = find(a, pgid, &h, &method);
	if (ret)
		return ret;
	now = h.progs;
	nnow = h.nprogs;
	maps = h.maps;
	nmaps = h.nmaps;
	if (method == TB_BPF_METHOD_FDINFO && a->method == TB_BPF_METHOD_NEW_IDS) {
		/* Its fds tell now: only what they refer to is its own. */
		for (i = k = 0; i < a->nprogs; i++)
			if (prog_find(now, nnow, a->progs[i].id))
				a->progs[k++] = a->progs[i];
		a->nprogs = k;
	}
	if (method != TB_BPF_METHOD_NONE)
		a->method = method;
	for (i = 0; !ret && i < nnow; i++)
		ret = stop_prog(a, &now[i]);
	/* Programs no longer referenced (closed early): they keep the figures of their last read. */
	for (i = 0; !ret && i < a->nprogs; i++)
		if (!prog_find(now, nnow, a->progs[i].id) && !a->progs[i].gone &&
		    prog_read(&a->progs[i], false, &a->progs[i].cnt1, &a->progs[i].ns1))
			a->progs[i].gone = true;
	for (i = 0; !ret && i < a->nprogs; i++)
		ret = prog_maps(a->progs[i].id, &maps, &nmaps);
	free(now);
	free(h.links);
	if (ret) {
		free(maps);
		return ret;
	}
	for (i = 0; i < nmaps; i++)
		map_read(&maps[i]);
	free(a->maps);
	a->maps = maps;
	a->nmaps = nmaps;
	/* The window is over: the tracer's teardown runs without the statistics' cost. */
	if (a->stats_fd >= 0)
		close(a->stats_fd);
	a->stats_fd = -1;
	return 0;
}

void tb_bpf_account_end(struct tb_bpf_account *a)
{
	if (a->stats_fd >= 0)
		close(a->stats_fd);
	a->stats_fd = -1;
	free(a->before);
	free(a->progs);
	free(a->maps);
	a->before = NULL;
	a->progs = NULL;
	a->maps = NULL;
	a->nbefore = a->nprogs = a->nmaps = 0;
}

static int64_t delta(uint64_t a, uint64_t b)
{
	return b >= a ? (int64_t)(b - a) : 0;
}

void tb_bpf_account_totals(const struct tb_bpf_account *a, int64_t *runs, int64_t *ns)
{
	*runs = *ns = a->stats ? 0 : -1;
	for (size_t i = 0; a->stats && i < a->nprogs; i++) {
		*runs += delta(a->progs[i].cnt0, a->progs[i].cnt1);
		*ns += delta(a->progs[i].ns0, a->progs[i].ns1);
	}
}

void tb_bpf_account_map_bytes(const struct tb_bpf_account *a, int64_t *memlock, int64_t *bytes)
{
	*memlock = *bytes = 0;
	for (size_t i = 0; i < a->nmaps; i++) {
		const struct tb_bpf_acct_map *m = &a->maps[i];

		if (m->memlock > 0)
			*memlock += m->memlock;
		*bytes += ((int64_t)m->key_size + m->value_size) * m->max_entries;
	}
}

const char *tb_bpf_method_name(int method)
{
	return method == TB_BPF_METHOD_FDINFO	 ? "fdinfo"
	       : method == TB_BPF_METHOD_NEW_IDS ? "new-ids"
						 : "none";
}

static json_t *progs_json(const struct tb_bpf_account *a)
{
	json_t *arr = json_array();

	for (size_t i = 0; arr && i < a->nprogs; i++) {
		const struct tb_bpf_acct_prog *p = &a->progs[i];
		int64_t runs = delta(p->cnt0, p->cnt1), ns = delta(p->ns0, p->ns1);
		bool stats = a->stats;
		json_t *o = json_pack("{sIssssss}", "id", (json_int_t)p->id, "name", p->name,
				      "type", p->type, "attach", p->attach);

		if (!o || json_array_append_new(arr, o)) {
			json_decref(arr);
			return NULL;
		}
		json_object_set_new(o, "runs", stats ? json_integer(runs) : json_null());
		json_object_set_new(o, "run_time_ns", stats ? json_integer(ns) : json_null());
		json_object_set_new(o, "ns_per_run",
				    stats && runs > 0 ? json_real((double)ns / (double)runs)
						      : json_null());
		if (p->gone)
			json_object_set_new(o, "gone", json_true());
	}
	return arr;
}

static json_t *maps_json(const struct tb_bpf_account *a)
{
	json_t *arr = json_array();

	for (size_t i = 0; arr && i < a->nmaps; i++) {
		const struct tb_bpf_acct_map *m = &a->maps[i];
		json_t *o = json_pack(
			"{sIsssssIsIsIsI}", "id", (json_int_t)m->id, "name", m->name, "type",
			m->type, "key_size", (json_int_t)m->key_size, "value_size",
			(json_int_t)m->value_size, "max_entries", (json_int_t)m->max_entries,
			"bytes",
			(json_int_t)(((int64_t)m->key_size + m->value_size) * m->max_entries));

		if (!o || json_array_append_new(arr, o)) {
			json_decref(arr);
			return NULL;
		}
		json_object_set_new(o, "memlock",
				    m->memlock >= 0 ? json_integer(m->memlock) : json_null());
	}
	return arr;
}

int tb_bpf_account_to_json(const struct tb_bpf_account *a, json_t *obj)
{
	json_t *progs = progs_json(a), *maps = maps_json(a);
	int64_t memlock, bytes;

	if (!progs || !maps) {
		json_decref(progs);
		json_decref(maps);
		return -ENOMEM;
	}
	tb_bpf_account_map_bytes(a, &memlock, &bytes);
	json_object_set_new(obj, "bpf_method", json_string(tb_bpf_method_name(a->method)));
	json_object_set_new(
		obj, "bpf_stats",
		a->stats       ? json_true()
		: a->stats_err ? json_sprintf("off: bpf_enable_stats: %s", strerror(-a->stats_err))
			       : json_string("off: bpf-stats = false"));
	json_object_set_new(obj, "bpf_programs", progs);
	json_object_set_new(obj, "bpf_maps", maps);
	json_object_set_new(obj, "bpf_maps_memlock", json_integer(memlock));
	json_object_set_new(obj, "bpf_maps_bytes", json_integer(bytes));
	json_object_set_new(obj, "bpf_processes", json_integer((json_int_t)a->nprocs));
	return 0;
}
