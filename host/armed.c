// SPDX-License-Identifier: GPL-2.0
/* The armed-state record, the run lock and the cleanup of what dead owners left behind. */
#include <bpf/bpf.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <tracefs/tracefs.h>
#include <unistd.h>

#include "host/armed.h"
#include "core/tb.h"
#include "host/tracefs.h"

static const char *const kind_names[TB_ARMED_NKINDS] = {
	[TB_ARMED_INSTANCE] = "instance", [TB_ARMED_PGID] = "pgid",
	[TB_ARMED_BPF_PROG] = "bpf_prog", [TB_ARMED_BPF_LINK] = "bpf_link",
	[TB_ARMED_BPF_PIN] = "bpf_pin",
};

struct item {
	enum tb_armed_kind kind;
	char *value;
};

static struct {
	pthread_mutex_t lock;
	pid_t pid; /* owner of items; a forked child sees a different getpid() and starts afresh */
	struct item *items;
	size_t n, cap;
} rec = {.lock = PTHREAD_MUTEX_INITIALIZER};

static int lock_fd = -1;
static pid_t lock_pid; /* process that took the lock: a forked child does not hold it */

const char *tb_armed_kind_name(enum tb_armed_kind kind)
{
	return (unsigned int)kind < TB_ARMED_NKINDS ? kind_names[kind] : NULL;
}

static int kind_from_name(const char *s)
{
	int i;

	for (i = 0; i < TB_ARMED_NKINDS; i++)
		if (!strcmp(kind_names[i], s))
			return i;
	return -1;
}

const char *tb_state_dir(void)
{
	const char *d = getenv("TB_STATE_DIR");

	if (!d || !*d)
		d = getenv("TB_RUN_DIR"); /* its name before 0.2 */
	return d && *d ? d : "/run/tracebench";
}

uint64_t tb_proc_start_time(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long st = 0;
	int field;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (tb_read_line(path, buf, sizeof(buf)))
		return 0;
	/* comm (field 2) may hold spaces and parentheses: count fields after the last ')'. */
	p = strrchr(buf, ')');
	if (!p)
		return 0;
	for (field = 2; *p && field < 22; p++)
		if (*p == ' ')
			field++;
	if (sscanf(p, "%llu", &st) != 1)
		return 0;
	return st;
}

static bool owner_alive(pid_t pid, uint64_t start_time)
{
	if (pid <= 0)
		return false;
	if (kill(pid, 0) && errno != EPERM)
		return false;
	return !start_time || tb_proc_start_time(pid) == start_time;
}

static void record_path(char *buf, size_t len, pid_t pid)
{
	snprintf(buf, len, "%s/armed-%d.json", tb_state_dir(), (int)pid);
}

/* Called with rec.lock held. */
static int record_write(void)
{
	json_t *root = NULL, *items;
	char path[4096], *text = NULL;
	size_t i;
	int ret;

	record_path(path, sizeof(path), rec.pid);
	if (!rec.n) {
		if (unlink(path) && errno != ENOENT)
			return -errno;
		return 0;
	}
	ret = tb_mkdir_p(tb_state_dir(), 0755);
	if (ret) {
		tb_err("armed record: cannot create %s: %s", tb_state_dir(), strerror(-ret));
		return ret;
	}
	root = json_pack("{s:i, s:I, s:[]}", "pid", (int)rec.pid, "start_time",
			 (json_int_t)tb_proc_start_time(rec.pid), "items");
	if (!root)
		return -ENOMEM;
	items = json_object_get(root, "items");
	for (i = 0; i < rec.n; i++) {
		if (json_array_append_new(items, json_pack("{s:s, s:s}", "kind",
							   kind_names[rec.items[i].kind], "value",
							   rec.items[i].value))) {
			ret = -ENOMEM;
			goto out;
		}
	}
	text = json_dumps(root, JSON_INDENT(1));
	if (!text) {
		ret = -ENOMEM;
		goto out;
	}
	ret = tb_write_atomic(path, text, strlen(text), 0644);
	if (ret)
		tb_err("armed record: cannot write %s: %s", path, strerror(-ret));
out:
	free(text);
	json_decref(root);
	return ret;
}

/* Called with rec.lock held: a forked child must not rewrite its parent's record. */
static void record_own(void)
{
	size_t i;

	if (rec.pid == getpid())
		return;
	for (i = 0; i < rec.n; i++)
		free(rec.items[i].value);
	rec.n = 0;
	rec.pid = getpid();
}

static ssize_t record_find(enum tb_armed_kind kind, const char *value)
{
	size_t i;

	for (i = 0; i < rec.n; i++)
		if (rec.items[i].kind == kind && !strcmp(rec.items[i].value, value))
			return (ssize_t)i;
	return -1;
}

int tb_armed_add(enum tb_armed_kind kind, const char *value)
{
	int ret = 0;

	if (!tb_armed_kind_name(kind) || !value || !*value)
		return -EINVAL;
	pthread_mutex_lock(&rec.lock);
	record_own();
	if (record_find(kind, value) >= 0)
		goto out;
	if (rec.n == rec.cap) {
		size_t cap = rec.cap ? rec.cap * 2 : 16;
		struct item *n = realloc(rec.items, cap * sizeof(*n));

		if (!n) {
			ret = -ENOMEM;
			goto out;
		}
		rec.items = n;
		rec.cap = cap;
	}
	rec.items[rec.n].kind = kind;
	rec.items[rec.n].value = strdup(value);
	if (!rec.items[rec.n].value) {
		ret = -ENOMEM;
		goto out;
	}
	rec.n++;
	ret = record_write();
	if (ret) {
		rec.n--;
		free(rec.items[rec.n].value);
	}
out:
	pthread_mutex_unlock(&rec.lock);
	return ret;
}

int tb_armed_remove(enum tb_armed_kind kind, const char *value)
{
	ssize_t i;
	int ret = 0;

	if (!tb_armed_kind_name(kind) || !value)
		return -EINVAL;
	pthread_mutex_lock(&rec.lock);
	record_own();
	i = record_find(kind, value);
	if (i >= 0) {
		free(rec.items[i].value);
		rec.items[i] = rec.items[--rec.n];
		ret = record_write();
	}
	pthread_mutex_unlock(&rec.lock);
	return ret;
}

static void pgid_value(char *buf, size_t len, pid_t pgid)
{
	snprintf(buf, len, "%d:%llu", (int)pgid, (unsigned long long)tb_proc_start_time(pgid));
}

int tb_armed_add_pgid(pid_t pgid)
{
	char v[64];

	pgid_value(v, sizeof(v), pgid);
	return tb_armed_add(TB_ARMED_PGID, v);
}

int tb_armed_remove_pgid(pid_t pgid)
{
	char prefix[32];
	size_t i, plen;
	int ret = 0;

	/* The leader may be reaped already (start time unreadable): match on the pgid. */
	plen = (size_t)snprintf(prefix, sizeof(prefix), "%d:", (int)pgid);
	pthread_mutex_lock(&rec.lock);
	record_own();
	for (i = 0; i < rec.n; i++) {
		if (rec.items[i].kind == TB_ARMED_PGID &&
		    !strncmp(rec.items[i].value, prefix, plen)) {
			free(rec.items[i].value);
			rec.items[i] = rec.items[--rec.n];
			ret = record_write();
			break;
		}
	}
	pthread_mutex_unlock(&rec.lock);
	return ret;
}

bool tb_armed_has(enum tb_armed_kind kind, const char *value)
{
	bool has;

	pthread_mutex_lock(&rec.lock);
	has = rec.pid == getpid() && record_find(kind, value) >= 0;
	pthread_mutex_unlock(&rec.lock);
	return has;
}

void tb_armed_clear(void)
{
	pthread_mutex_lock(&rec.lock);
	record_own();
	while (rec.n)
		free(rec.items[--rec.n].value);
	record_write();
	pthread_mutex_unlock(&rec.lock);
}

/* ---- lock ------------------------------------------------------------------------------- */

static pid_t read_pid_fd(int fd)
{
	char buf[32] = "";
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return (pid_t)atoi(buf);
}

int tb_lock_acquire(bool wait, pid_t *holder)
{
	char path[4096], buf[32];
	int fd, ret, len;

	if (holder)
		*holder = 0;
	if (lock_fd >= 0 && lock_pid == getpid())
		return 0;
	if (lock_fd >= 0) {
		/* Inherited across fork: closing our copy leaves the parent's lock alone. */
		close(lock_fd);
		lock_fd = -1;
	}
	ret = tb_mkdir_p(tb_state_dir(), 0755);
	if (ret) {
		tb_err("lock: cannot create %s: %s", tb_state_dir(), strerror(-ret));
		return ret;
	}
	snprintf(path, sizeof(path), "%s/lock", tb_state_dir());
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		ret = -errno;
		tb_err("lock: cannot open %s: %s", path, strerror(errno));
		return ret;
	}
	while (flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB))) {
		if (errno == EINTR && !tb_stop_requested())
			continue;
		ret = errno == EWOULDBLOCK ? -EBUSY : -errno;
		if (holder)
			*holder = read_pid_fd(fd);
		close(fd);
		return ret;
	}
	len = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	if (ftruncate(fd, 0) || pwrite(fd, buf, (size_t)len, 0) != len) {
		ret = -errno;
		tb_err("lock: cannot write %s: %s", path, strerror(errno));
		close(fd);
		return ret;
	}
	lock_fd = fd;
	lock_pid = getpid();
	return 0;
}

void tb_lock_release(void)
{
	if (lock_fd < 0)
		return;
	if (lock_pid != getpid()) {
		close(lock_fd);
		lock_fd = -1;
		return;
	}
	if (ftruncate(lock_fd, 0))
		tb_debug("lock: truncate failed: %s", strerror(errno));
	flock(lock_fd, LOCK_UN);
	close(lock_fd);
	lock_fd = -1;
}

pid_t tb_lock_holder(void)
{
	char path[4096];
	pid_t pid = 0;
	int fd;

	if (lock_fd >= 0 && lock_pid == getpid())
		return getpid();
	snprintf(path, sizeof(path), "%s/lock", tb_state_dir());
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (flock(fd, LOCK_SH | LOCK_NB))
		pid = read_pid_fd(fd);
	else
		flock(fd, LOCK_UN);
	close(fd);
	return pid;
}

/* ---- cleanup ---------------------------------------------------------------------------- */

struct cleanup_ctx {
	unsigned int flags;
	json_t *report;
	int actions, failures;
};

static void note(struct cleanup_ctx *c, bool action, bool failed, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void note(struct cleanup_ctx *c, bool action, bool failed, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	json_array_append_new(c->report, json_string(buf));
	if (action)
		c->actions++;
	if (failed)
		c->failures++;
}

static void clean_instance(struct cleanup_ctx *c, const char *name, const char *why)
{
	bool dry = c->flags & TB_CLEANUP_DRY_RUN;
	int ret;

	if (!tracefs_instance_exists(name))
		return;
	if (dry) {
		note(c, true, false, "would destroy tracefs instance %s (%s)", name, why);
		return;
	}
	ret = tb_tracefs_instance_destroy_name(name);
	if (ret)
		note(c, true, true, "failed to destroy tracefs instance %s (%s): %s", name, why,
		     strerror(-ret));
	else
		note(c, true, false, "destroyed tracefs instance %s (%s)", name, why);
}

static pid_t proc_pgrp(pid_t pid)
{
	char path[64], buf[1024], *p;
	int pgrp = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (tb_read_line(path, buf, sizeof(buf)))
		return 0;
	p = strrchr(buf, ')');
	/* ") S ppid pgrp" */
	if (!p || sscanf(p + 1, " %*c %*d %d", &pgrp) != 1)
		return 0;
	return pgrp;
}

static void clean_pgid(struct cleanup_ctx *c, const char *value, const char *why)
{
	bool dry = c->flags & TB_CLEANUP_DRY_RUN;
	unsigned long long st = 0;
	struct dirent *de;
	int pgid = 0, n = 0;
	DIR *d;

	if (sscanf(value, "%d:%llu", &pgid, &st) < 1 || pgid <= 1) {
		note(c, false, false, "ignored malformed process group entry '%s'", value);
		return;
	}
	/* Every process still in the group that is not younger than the recorded leader. */
	d = opendir("/proc");
	if (!d)
		return;
	while ((de = readdir(d))) {
		pid_t pid = (pid_t)atoi(de->d_name);
		uint64_t pst;

		if (pid <= 0 || proc_pgrp(pid) != pgid)
			continue;
		pst = tb_proc_start_time(pid);
		if (pid == pgid ? pst != st : pst < st)
			continue;
		n++;
		if (!dry)
			kill(pid, SIGKILL);
	}
	closedir(d);
	if (n)
		note(c, true, false, "%s process group %d (%d process%s) (%s)",
		     dry ? "would kill" : "killed", pgid, n, n > 1 ? "es" : "", why);
}

static void clean_bpf(struct cleanup_ctx *c, enum tb_armed_kind kind, const char *value,
		      const char *why)
{
	bool dry = c->flags & TB_CLEANUP_DRY_RUN;
	unsigned long id = strtoul(value, NULL, 10);
	int fd;

	if (kind == TB_ARMED_BPF_PIN) {
		if (access(value, F_OK))
			return;
		if (dry)
			note(c, true, false, "would unlink pinned BPF object %s (%s)", value, why);
		else if (unlink(value))
			note(c, true, true, "failed to unlink pinned BPF object %s: %s", value,
			     strerror(errno));
		else
			note(c, true, false, "unlinked pinned BPF object %s (%s)", value, why);
		return;
	}
	if (kind == TB_ARMED_BPF_PROG) {
		fd = bpf_prog_get_fd_by_id((__u32)id);
		if (fd >= 0) {
			/* Only its holders can unload it; say so rather than pretend. */
			note(c, false, false,
			     "BPF program %lu is still loaded, held by another process or a pin (%s)",
			     id, why);
			close(fd);
		}
		return;
	}
	fd = bpf_link_get_fd_by_id((__u32)id);
	if (fd < 0)
		return;
	if (dry)
		note(c, true, false, "would detach BPF link %lu (%s)", id, why);
	else if (bpf_link_detach(fd))
		note(c, true, true, "failed to detach BPF link %lu: %s", id, strerror(errno));
	else
		note(c, true, false, "detached BPF link %lu (%s)", id, why);
	close(fd);
}

static void clean_record(struct cleanup_ctx *c, const char *path, bool *tracefs_ok)
{
	json_error_t jerr;
	json_t *root, *items, *it;
	json_int_t pid, st;
	char why[96];
	bool alive;
	size_t i;

	root = json_load_file(path, 0, &jerr);
	if (!root ||
	    json_unpack(root, "{s:I, s:I, s:o}", "pid", &pid, "start_time", &st, "items", &items) ||
	    !json_is_array(items)) {
		/* Torn or foreign: drop it once the pid in its name is gone, else leave it. */
		const char *base = strrchr(path, '/');
		pid_t fpid = (pid_t)atoi(base ? base + 7 : "0");

		json_decref(root);
		if (fpid > 0 && owner_alive(fpid, 0)) {
			note(c, false, false, "ignored unreadable armed record %s", path);
		} else if (c->flags & TB_CLEANUP_DRY_RUN) {
			note(c, true, false, "would remove unreadable armed record %s", path);
		} else if (unlink(path) && errno != ENOENT) {
			note(c, true, true, "failed to remove unreadable armed record %s: %s", path,
			     strerror(errno));
		} else {
			note(c, true, false, "removed unreadable armed record %s (%s)", path,
			     jerr.text[0] ? jerr.text : "wrong fields");
		}
		return;
	}
	if ((pid_t)pid == getpid())
		goto out;
	alive = owner_alive((pid_t)pid, (uint64_t)st);
	if (alive && !(c->flags & TB_CLEANUP_ALL))
		goto out;
	snprintf(why, sizeof(why), "owner pid %lld %s", (long long)pid, alive ? "alive" : "dead");
	json_array_foreach(items, i, it)
	{
		const char *k = json_string_value(json_object_get(it, "kind"));
		const char *v = json_string_value(json_object_get(it, "value"));
		int kind = k ? kind_from_name(k) : -1;

		if (kind < 0 || !v)
			continue;
		switch (kind) {
		case TB_ARMED_INSTANCE:
			if (*tracefs_ok)
				clean_instance(c, v, why);
			break;
		case TB_ARMED_PGID:
			clean_pgid(c, v, why);
			break;
		default:
			clean_bpf(c, (enum tb_armed_kind)kind, v, why);
			break;
		}
	}
	if (!alive && !(c->flags & TB_CLEANUP_DRY_RUN)) {
		if (unlink(path) && errno != ENOENT)
			note(c, false, true, "failed to remove armed record %s: %s", path,
			     strerror(errno));
		else
			note(c, false, false, "removed armed record %s", path);
	}
out:
	json_decref(root);
}

int tb_cleanup_stale(unsigned int flags, json_t **report)
{
	struct cleanup_ctx c = {.flags = flags};
	bool tracefs_ok = !tb_tracefs_ensure();
	struct dirent *de;
	char **names, path[4096];
	DIR *d;
	int i;

	c.report = report && *report ? *report : json_array();
	if (!c.report)
		return -ENOMEM;
	d = opendir(tb_state_dir());
	if (d) {
		while ((de = readdir(d))) {
			if (strncmp(de->d_name, "armed-", 6) || !strstr(de->d_name, ".json") ||
			    strstr(de->d_name, ".tmp"))
				continue;
			snprintf(path, sizeof(path), "%s/%s", tb_state_dir(), de->d_name);
			clean_record(&c, path, &tracefs_ok);
		}
		closedir(d);
	}
	/* Instances of dead owners that no record names (killed between mkdir and record). */
	names = tracefs_ok ? tracefs_instances(NULL) : NULL;
	for (i = 0; names && names[i]; i++) {
		pid_t owner = tb_tracefs_instance_owner(names[i]);
		char why[96];
		bool alive;

		if (!owner || owner == getpid())
			continue;
		alive = owner_alive(owner, 0);
		if (alive && !(flags & TB_CLEANUP_ALL))
			continue;
		snprintf(why, sizeof(why), "owner pid %d %s", (int)owner, alive ? "alive" : "dead");
		clean_instance(&c, names[i], why);
	}
	tracefs_list_free(names);
	if (report)
		*report = c.report;
	else
		json_decref(c.report);
	return c.failures ? -EIO : c.actions;
}
