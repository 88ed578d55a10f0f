// SPDX-License-Identifier: GPL-2.0
/* The armed-state record and the run lock (the cleanup of what dead owners left is cleanup.c). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/outdir.h"
#include "core/proc.h"
#include "core/tb.h"
#include "core/env.h"
#include "host/armed.h"

static const char *const kind_names[TB_ARMED_NKINDS] = {
	[TB_ARMED_INSTANCE] = "instance", [TB_ARMED_PGID] = "pgid",
	[TB_ARMED_BPF_PROG] = "bpf_prog", [TB_ARMED_BPF_LINK] = "bpf_link",
	[TB_ARMED_BPF_PIN] = "bpf_pin",	  [TB_ARMED_SCRATCH] = "scratch",
	[TB_ARMED_CGROUP] = "cgroup",	  [TB_ARMED_DYNEVENT] = "dynevent",
	[TB_ARMED_PLOT_TMP] = "plot_tmp",
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
static pid_t lock_pid;	  /* process that took the lock: a forked child does not hold it */
static bool lock_adopted; /* lock_fd is a wrapper's lock (inherited_holder): never released */
/* The machine's lock beside a private state directory's (0 pid: held to the exit) */
static int machine_fd = -1;
static pid_t machine_pid;
static bool machine_adopted;

const char *tb_armed_kind_name(enum tb_armed_kind kind)
{
	return (unsigned int)kind < TB_ARMED_NKINDS ? kind_names[kind] : NULL;
}

int tb_armed_kind_from_name(const char *s)
{
	int i;

	for (i = 0; i < TB_ARMED_NKINDS; i++)
		if (!strcmp(kind_names[i], s))
			return i;
	return -1;
}

const char *tb_state_dir(void)
{
	const char *d = getenv(TB_ENV_STATE_DIR);

	if (!d || !*d)
		d = getenv(TB_ENV_RUN_DIR_OLD);
	return d && *d ? d : TB_MACHINE_STATE_DIR;
}

uint64_t tb_armed_start_time(pid_t pid)
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

bool tb_armed_owner_alive(pid_t pid, uint64_t start_time)
{
	if (pid <= 0)
		return false;
	if (kill(pid, 0) && errno != EPERM)
		return false;
	/* A zombie (a SIGKILLed run's sample child not reaped yet) arms nothing any more. */
	if (tb_proc_zombie(pid))
		return false;
	return !start_time || tb_armed_start_time(pid) == start_time;
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
			 (json_int_t)tb_armed_start_time(rec.pid), "items");
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
	ret = tb_write_atomic(path, text, strlen(text), 0644); /* says why it failed */
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
	snprintf(buf, len, "%d:%llu", (int)pgid, (unsigned long long)tb_armed_start_time(pgid));
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

/*
 * Another fd of this process on fd's file whose open file holds the lock: one inherited from a
 * wrapper (`flock /run/tracebench/lock CMD` keeps its locked fd open in CMD). Waiting on a new
 * open file of ours would wait for ourselves; the wrapper's lock is ours to measure under.
 * Returns that fd, or -1.
 */
static int inherited_holder(int fd)
{
	struct stat want, st;
	struct dirent *de;
	int n, found = -1;
	DIR *d;

	if (fstat(fd, &want))
		return -1;
	d = opendir("/proc/self/fd");
	while (d && found < 0 && (de = readdir(d))) {
		n = atoi(de->d_name);
		if (de->d_name[0] < '0' || de->d_name[0] > '9' || n == fd || n == dirfd(d) ||
		    n == lock_fd || n == machine_fd)
			continue;
		if (fstat(n, &st) || st.st_dev != want.st_dev || st.st_ino != want.st_ino)
			continue;
		/* Granted at once only to the open file that holds it already. */
		if (!flock(n, LOCK_EX | LOCK_NB))
			found = n;
	}
	if (d)
		closedir(d);
	return found;
}

/*
 * flock dir/lock, then write our pid into it. Returns the fd or -errno (-EBUSY: *holder);
 * *adopted when the lock is a wrapper's that this process inherited (inherited_holder).
 */
static int lock_dir(const char *dir, bool wait, pid_t *holder, bool *adopted)
{
	char path[4096], buf[32];
	int fd, ret, len, inh;
	bool busy;

	ret = tb_mkdir_p(dir, 0755);
	if (ret) {
		tb_err("lock: cannot create %s: %s", dir, strerror(-ret));
		return ret;
	}
	snprintf(path, sizeof(path), "%s/lock", dir);
	fd = tb_open_output(path, O_RDWR | O_CREAT, 0644); /* says why it failed */
	if (fd < 0)
		return fd;
	/*
	 * Said whenever it waits: the holder's pid is in the file only once it wrote it (an
	 * empty file between its flock and its write), so the line cannot depend on reading one.
	 */
	*adopted = false;
	busy = flock(fd, LOCK_EX | LOCK_NB) && errno == EWOULDBLOCK;
	inh = busy ? inherited_holder(fd) : -1;
	if (inh >= 0) {
		tb_info("lock: %s is held by a file this process inherited (fd %d: a wrapper such "
			"as flock(1)); measuring under that lock",
			path, inh);
		close(fd);
		fd = fcntl(inh, F_DUPFD_CLOEXEC, 3);
		if (fd < 0)
			return -errno;
		*adopted = true;
	} else if (busy && wait) {
		pid_t pid = read_pid_fd(fd);

		if (pid > 0)
			tb_info("run: waiting for the run of pid %d to finish", (int)pid);
		else
			tb_info("run: waiting for another tracebench run to finish");
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
	/* A wrapper's file may be open read-only (flock(1) opens it so): its pid stays unsaid. */
	if (*adopted)
		return fd;
	len = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	if (ftruncate(fd, 0) || pwrite(fd, buf, (size_t)len, 0) != len) {
		ret = -errno;
		tb_err("lock: cannot write %s: %s", path, strerror(errno));
		close(fd);
		return ret;
	}
	return fd;
}

/* An adopted lock (inherited_holder) stays the wrapper's: only our copy of it is closed. */
static void unlock_fd(int fd, bool adopted)
{
	if (adopted) {
		close(fd);
		return;
	}
	if (ftruncate(fd, 0))
		tb_debug("lock: truncate failed: %s", strerror(errno));
	flock(fd, LOCK_UN);
	close(fd);
}

/* A state directory of its own (TB_STATE_DIR, as the tests use) is not a machine of its own. */
static bool private_state_dir(void)
{
	return strcmp(tb_state_dir(), TB_MACHINE_STATE_DIR) != 0;
}

int tb_lock_acquire(bool wait, pid_t *holder)
{
	int fd;

	if (holder)
		*holder = 0;
	if (lock_fd >= 0 && lock_pid == getpid())
		return 0;
	if (lock_fd >= 0) {
		/* Inherited across fork: closing our copy leaves the parent's lock alone. */
		close(lock_fd);
		lock_fd = -1;
	}
	/* The machine's lock first (kept when inherited: the parent measures for us too). */
	if (private_state_dir() && machine_fd < 0) {
		machine_fd = lock_dir(TB_MACHINE_STATE_DIR, wait, holder, &machine_adopted);
		if (machine_fd < 0) {
			fd = machine_fd;
			machine_fd = -1;
			return fd;
		}
		machine_pid = getpid();
	}
	fd = lock_dir(tb_state_dir(), wait, holder, &lock_adopted);
	if (fd < 0)
		goto out_machine;
	lock_fd = fd;
	lock_pid = getpid();
	return 0;

out_machine:
	/* Not measuring after all: a machine lock taken here must not block every other run. */
	if (machine_fd >= 0 && machine_pid == getpid()) {
		unlock_fd(machine_fd, machine_adopted);
		machine_fd = -1;
	}
	return fd;
}

int tb_lock_hold_machine(void)
{
	int fd;

	if (machine_fd >= 0)
		return 0;
	fd = lock_dir(TB_MACHINE_STATE_DIR, true, NULL, &machine_adopted);
	if (fd < 0)
		return fd;
	machine_fd = fd;
	machine_pid = 0; /* held to the exit: tb_lock_release leaves it */
	return 0;
}

void tb_lock_release(void)
{
	if (machine_fd >= 0 && machine_pid == getpid()) {
		unlock_fd(machine_fd, machine_adopted);
		machine_fd = -1;
	}
	if (lock_fd < 0)
		return;
	if (lock_pid != getpid()) {
		close(lock_fd);
		lock_fd = -1;
		return;
	}
	unlock_fd(lock_fd, lock_adopted);
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
