// SPDX-License-Identifier: GPL-2.0
/* Cgroups for external programs: make, join, account, kill, remove (cgroup.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "core/tb.h"
#include "host/armed.h"
#include "host/cgroup.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif
#ifndef CGROUP_SUPER_MAGIC
#define CGROUP_SUPER_MAGIC 0x27e0eb
#endif

#define KILL_WAIT_NS 2000000000ull /* for a cgroup to empty after SIGKILL */

/* Where this process's cgroups go: its own cgroup2 directory, and its v1 memory one. */
static struct {
	bool probed;
	int err;
	char why[PATH_MAX + 128];
	char v2_root[PATH_MAX], v2_own[PATH_MAX];
	char mem_root[PATH_MAX], mem_own[PATH_MAX]; /* "" without a v1 memory hierarchy */
} where;

/* A comma-separated list holds word. */
static bool has_word(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p = list;

	while ((p = strstr(p, word))) {
		if ((p == list || p[-1] == ',') &&
		    (p[n] == ',' || p[n] == '\0' || p[n] == ' ' || p[n] == '\n'))
			return true;
		p += n;
	}
	return false;
}

/* The mount point of the cgroup2 hierarchy, and of the v1 one holding the memory controller. */
static void find_mounts(void)
{
	char line[4096], root[PATH_MAX], mnt[PATH_MAX], type[64], super[1024];
	FILE *f = tb_fopen_input("/proc/self/mountinfo", TB_INPUT_FOLLOW);

	while (f && fgets(line, sizeof(line), f)) {
		const char *dash = strstr(line, " - ");

		if (!dash || sscanf(line, "%*s %*s %*s %4095s %4095s", root, mnt) != 2 ||
		    sscanf(dash + 3, "%63s %*s %1023s", type, super) != 2 || strcmp(root, "/"))
			continue; /* a bind mount of a subtree: its paths do not map */
		if (!strcmp(type, "cgroup2") && !where.v2_root[0])
			snprintf(where.v2_root, sizeof(where.v2_root), "%s", mnt);
		else if (!strcmp(type, "cgroup") && has_word(super, "memory") && !where.mem_root[0])
			snprintf(where.mem_root, sizeof(where.mem_root), "%s", mnt);
	}
	if (f)
		fclose(f);
}

/*
 * The cgroups of a process from its /proc/<pid>/cgroup ("0::/path", "4:memory:/path"): the
 * cgroup2 directory into v2 and, when mem is not NULL, the v1 memory one into mem ("" when
 * not found). Returns 0 or -errno of the open.
 */
static int read_cgroups(const char *file, char *v2, size_t v2len, char *mem, size_t memlen)
{
	char line[4096], *c1, *c2;
	FILE *f = tb_fopen_input(file, TB_INPUT_FOLLOW);

	v2[0] = '\0';
	if (mem)
		mem[0] = '\0';
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		c1 = strchr(line, ':');
		c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		*c1 = *c2 = '\0'; /* line: the hierarchy id, c1 + 1: its controllers */
		if (!strcmp(line, "0") && c1[1] == '\0' && where.v2_root[0])
			snprintf(v2, v2len, "%s%s", where.v2_root,
				 strcmp(c2 + 1, "/") ? c2 + 1 : "");
		else if (mem && has_word(c1 + 1, "memory") && where.mem_root[0])
			snprintf(mem, memlen, "%s%s", where.mem_root,
				 strcmp(c2 + 1, "/") ? c2 + 1 : "");
	}
	fclose(f);
	return 0;
}

/* This process's cgroups. */
static void find_own(void)
{
	read_cgroups("/proc/self/cgroup", where.v2_own, sizeof(where.v2_own), where.mem_own,
		     sizeof(where.mem_own));
}

static bool file_exists(const char *dir, const char *name)
{
	char p[PATH_MAX + 64];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return access(p, F_OK) == 0;
}

int tb_cgroup_supported(char *why, size_t len)
{
	char probe[PATH_MAX + 64];

	if (!where.probed) {
		where.probed = true;
		find_mounts();
		find_own();
		if (!where.v2_root[0] || !where.v2_own[0]) {
			where.err = -ENOENT;
			snprintf(where.why, sizeof(where.why),
				 "no cgroup2 hierarchy in /proc/self/mountinfo");
		} else {
			snprintf(probe, sizeof(probe), "%s/tracebench-%d-probe", where.v2_own,
				 (int)getpid());
			if (mkdir(probe, 0755) && errno != EEXIST) {
				where.err = -errno;
				snprintf(where.why, sizeof(where.why), "%s: %s", where.v2_own,
					 strerror(errno));
			} else {
				rmdir(probe);
			}
		}
		if (where.mem_own[0] && !file_exists(where.mem_own, "cgroup.procs"))
			where.mem_own[0] = '\0';
	}
	if (why && len)
		snprintf(why, len, "%s", where.err ? where.why : "");
	return where.err;
}

/* A number from a flat file (key NULL: the first number; else the "key N" line). */
static int64_t read_num(const char *dir, const char *file, const char *key)
{
	char p[PATH_MAX + 64], line[256];
	long long v = -1;
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, file);
	f = tb_fopen_input(p, TB_INPUT_FOLLOW);
	while (f && fgets(line, sizeof(line), f)) {
		size_t n = key ? strlen(key) : 0;

		if (!key && sscanf(line, "%lld", &v) == 1)
			break;
		if (key && !strncmp(line, key, n) && line[n] == ' ' &&
		    sscanf(line + n + 1, "%lld", &v) == 1)
			break;
	}
	if (f)
		fclose(f);
	return v;
}

static int open_procs(const char *dir)
{
	char p[PATH_MAX + 64];
	int fd;

	snprintf(p, sizeof(p), "%s/cgroup.procs", dir);
	fd = open(p, O_WRONLY | O_CLOEXEC);
	return fd >= 0 ? fd : -errno;
}

/* mkdir dir and record it; -errno (said). */
static int make_dir(const char *dir)
{
	int ret;

	if (mkdir(dir, 0755)) {
		ret = -errno;
		tb_err("%s: cannot create a cgroup: %s", dir, strerror(errno));
		return ret;
	}
	ret = tb_armed_add(TB_ARMED_CGROUP, dir);
	if (ret)
		rmdir(dir);
	return ret;
}

int tb_cgroup_create(struct tb_cgroup *cg, const char *tag)
{
	static unsigned int seq;
	char why[256];
	int ret;

	*cg = (struct tb_cgroup)TB_CGROUP_INIT;
	ret = tb_cgroup_supported(why, sizeof(why));
	if (ret) {
		tb_err("cannot make a cgroup: %s", why);
		return ret;
	}
	if ((size_t)snprintf(cg->path, sizeof(cg->path), "%s/tracebench-%d-%.64s-%u", where.v2_own,
			     (int)getpid(), tag, seq++) >= sizeof(cg->path)) {
		cg->path[0] = '\0';
		return -ENAMETOOLONG;
	}
	ret = make_dir(cg->path);
	if (ret) {
		cg->path[0] = '\0';
		return ret;
	}
	cg->procs_fd = open_procs(cg->path);
	cg->has_peak = file_exists(cg->path, "memory.peak");
	/* No memory accounting in cgroup2 here (a hybrid machine): a v1 memory twin. */
	if (!file_exists(cg->path, "memory.current") && where.mem_own[0]) {
		if ((size_t)snprintf(cg->mem_path, sizeof(cg->mem_path), "%s/%s", where.mem_own,
				     strrchr(cg->path, '/') + 1) >= sizeof(cg->mem_path) ||
		    make_dir(cg->mem_path))
			cg->mem_path[0] = '\0';
		else
			cg->mem_procs_fd = open_procs(cg->mem_path);
	}
	if (cg->procs_fd < 0) {
		ret = cg->procs_fd;
		tb_err("%s/cgroup.procs: %s", cg->path, strerror(-ret));
		tb_cgroup_destroy(cg);
		return ret;
	}
	return 0;
}

void tb_cgroup_spawn_opts(const struct tb_cgroup *cg, struct tb_proc_opts *o)
{
	o->cgroup_fds[0] = cg->procs_fd;
	o->cgroup_fds[1] = cg->mem_procs_fd;
}

/* The pids in dir/cgroup.procs into pids (at most max); returns how many, or -errno. */
static int read_pids(const char *dir, pid_t *pids, int max)
{
	char p[PATH_MAX + 64];
	int n = 0, pid;
	FILE *f;

	snprintf(p, sizeof(p), "%s/cgroup.procs", dir);
	f = tb_fopen_input(p, TB_INPUT_FOLLOW);
	if (!f)
		return -errno;
	while (fscanf(f, "%d", &pid) == 1)
		if (pids && n < max)
			pids[n++] = pid;
		else
			n++;
	fclose(f);
	return n;
}

int tb_cgroup_nprocs(const struct tb_cgroup *cg)
{
	return cg->path[0] ? read_pids(cg->path, NULL, 0) : 0;
}

int tb_cgroup_wait_empty(const struct tb_cgroup *cg, uint64_t timeout_ns)
{
	uint64_t deadline = tb_now_ns() + timeout_ns;
	int n;

	while ((n = tb_cgroup_nprocs(cg)) > 0 && tb_now_ns() < deadline)
		usleep(5000);
	return n > 0 ? n : 0;
}

void tb_cgroup_sample(struct tb_cgroup *cg)
{
	int64_t v;

	if (!cg->path[0] || cg->has_peak)
		return;
	v = read_num(cg->path, "memory.current", NULL);
	if (v > cg->mem_sampled)
		cg->mem_sampled = v;
}

void tb_cgroup_usage(struct tb_cgroup *cg, double *cpu_s, int64_t *mem_peak)
{
	int64_t usec = cg->path[0] ? read_num(cg->path, "cpu.stat", "usage_usec") : -1;

	*cpu_s = usec >= 0 ? (double)usec / 1e6 : NAN;
	*mem_peak = -1;
	if (!cg->path[0])
		return;
	tb_cgroup_sample(cg);
	if (cg->has_peak)
		*mem_peak = read_num(cg->path, "memory.peak", NULL);
	else if (cg->mem_sampled >= 0)
		*mem_peak = cg->mem_sampled;
	else if (cg->mem_path[0])
		*mem_peak = read_num(cg->mem_path, "memory.max_usage_in_bytes", NULL);
}

/* Kill what is in dir until it is empty (bounded). Returns how many were in it, or -errno. */
static int kill_dir(const char *dir)
{
	char p[PATH_MAX + 64];
	uint64_t deadline = tb_now_ns() + KILL_WAIT_NS;
	pid_t pids[256];
	int n, first = -1, i;

	snprintf(p, sizeof(p), "%s/cgroup.kill", dir);
	for (;;) {
		n = read_pids(dir, pids, (int)TB_ARRAY_SIZE(pids));
		if (n < 0)
			return n == -ENOENT ? 0 : n;
		if (first < 0)
			first = n;
		if (!n)
			return first;
		if (tb_now_ns() >= deadline)
			return -ETIMEDOUT;
		/* cgroup.kill (5.14) also gets processes forking meanwhile; else each pid. */
		if (tb_write_file(p, "1"))
			for (i = 0; i < n && i < (int)TB_ARRAY_SIZE(pids); i++)
				kill(pids[i], SIGKILL);
		usleep(10000);
	}
}

int tb_cgroup_kill(struct tb_cgroup *cg)
{
	return cg->path[0] ? kill_dir(cg->path) : 0;
}

/* rmdir a cgroup directory, retried while the kernel finishes with its last tasks. */
static int remove_dir(const char *dir)
{
	int i;

	for (i = 0; i < 50; i++) {
		if (!rmdir(dir) || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			break;
		usleep(10000);
	}
	return -errno;
}

void tb_cgroup_destroy(struct tb_cgroup *cg)
{
	if (cg->procs_fd >= 0)
		close(cg->procs_fd);
	if (cg->mem_procs_fd >= 0)
		close(cg->mem_procs_fd);
	cg->procs_fd = cg->mem_procs_fd = -1;
	if (cg->path[0]) {
		kill_dir(cg->path);
		if (remove_dir(cg->path))
			tb_warn("%s: cannot remove the cgroup: %s", cg->path, strerror(errno));
		else
			tb_armed_remove(TB_ARMED_CGROUP, cg->path);
		cg->path[0] = '\0';
	}
	if (cg->mem_path[0]) {
		kill_dir(cg->mem_path);
		if (!remove_dir(cg->mem_path))
			tb_armed_remove(TB_ARMED_CGROUP, cg->mem_path);
		cg->mem_path[0] = '\0';
	}
}

int tb_cgroup_remove_path(const char *path)
{
	const char *base = strrchr(path, '/');
	struct statfs fs;
	struct stat st;
	int n, ret;

	if (!base || strncmp(base + 1, "tracebench-", 11) || strstr(path, "/../"))
		return -EINVAL;
	if (lstat(path, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode) || statfs(path, &fs) ||
	    (fs.f_type != CGROUP2_SUPER_MAGIC && fs.f_type != CGROUP_SUPER_MAGIC))
		return -EINVAL;
	n = kill_dir(path);
	if (n < 0)
		return n;
	ret = remove_dir(path);
	return ret ? ret : n;
}

/* Entries tracebench-<pid>-* of dir whose pid is dead. */
static void scan_stale(const char *dir, void (*fn)(void *, const char *, int), void *ctx)
{
	char p[PATH_MAX + 256];
	struct dirent *de;
	DIR *d = dir[0] ? opendir(dir) : NULL;
	int pid;

	while (d && (de = readdir(d))) {
		if (de->d_type != DT_DIR || sscanf(de->d_name, "tracebench-%d-", &pid) != 1 ||
		    pid <= 0 || pid == getpid() || tb_armed_owner_alive(pid, 0))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
		fn(ctx, p, pid);
	}
	if (d)
		closedir(d);
}

void tb_cgroup_foreach_stale(void (*fn)(void *ctx, const char *path, int pid), void *ctx)
{
	tb_cgroup_supported(NULL, 0);
	scan_stale(where.v2_own, fn, ctx);
	if (strcmp(where.v2_own, where.v2_root))
		scan_stale(where.v2_root, fn, ctx);
	scan_stale(where.mem_own, fn, ctx);
	if (strcmp(where.mem_own, where.mem_root))
		scan_stale(where.mem_root, fn, ctx);
}

int tb_cgroup_of_pid(pid_t pid, char *path, size_t len)
{
	char file[64];
	int ret;

	ret = tb_cgroup_supported(NULL, 0);
	if (ret && !where.v2_root[0])
		return ret;
	snprintf(file, sizeof(file), "/proc/%d/cgroup", (int)pid);
	ret = read_cgroups(file, path, len, NULL, 0);
	if (ret)
		return ret;
	/* a path read from the kernel's file still walks nowhere outside the hierarchy */
	if (!path[0] || strstr(path, "/../") || strlen(path) >= len - 1)
		return -ENOENT;
	return 0;
}

int tb_cgroup_id_of_pid(pid_t pid, uint64_t *id)
{
	char dir[PATH_MAX];
	struct stat st;
	int ret = tb_cgroup_of_pid(pid, dir, sizeof(dir));

	if (ret)
		return ret;
	if (stat(dir, &st))
		return -errno;
	*id = (uint64_t)st.st_ino; /* a cgroup2 directory's inode number is its kernfs id */
	return 0;
}
