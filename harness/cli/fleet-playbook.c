// SPDX-License-Identifier: GPL-2.0
/*
 * ansible-playbook under `tracebench fleet` (fleet-playbook.h): started with an argv, its output
 * read line by line from a pipe (events are JSON lines; anything else is ansible talking and is
 * passed on), a stop request passed on as SIGINT.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/fleet-playbook.h"
#include "core/io.h"
#include "core/proc.h"
#include "core/tb.h"
#include "core/utf8.h"
#include "stats/fleet.h"

#define LINE_MAX_BYTES (64u << 20) /* a longer line (a huge module result) is skipped */
#define STOP_GRACE_NS  (60ull * 1000000000)

/* ---- events -------------------------------------------------------------------------------- */

static const char *jstr(json_t *o, const char *key)
{
	json_t *v = json_is_object(o) ? json_object_get(o, key) : NULL;

	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* The event's task name, without the role's "tracebench : " (no news in a fleet run). */
static const char *task_name(json_t *ev)
{
	const char *task = jstr(json_object_get(ev, "task"), "name");

	if (task && !strncmp(task, "tracebench : ", 13))
		task += 13;
	return task && *task ? task : NULL;
}

/*
 * Why a task failed, from its result: the message, and for a command that exited non-zero the
 * last line of its stderr (what the program said). Into buf.
 */
static const char *failure_text(json_t *res, char *buf, size_t len)
{
	const char *msg = jstr(res, "msg");
	json_t *err = json_object_get(res, "stderr_lines");
	const char *last = NULL;

	if (json_is_array(err) && json_array_size(err))
		last = json_string_value(json_array_get(err, json_array_size(err) - 1));
	if (msg && last && !strcmp(msg, "non-zero return code"))
		snprintf(buf, len, "%s: %s", msg, last);
	else
		snprintf(buf, len, "%s", msg ? msg : last ? last : "failed");
	return buf; /* cut and escaped where the host keeps it (TB_FLEET_TEXT_MAX) */
}

/* A task's result for each host it names. */
static int on_result(const char *event, json_t *ev, struct tb_fleet *f, bool quiet)
{
	const char *task = task_name(ev), *name;
	json_t *hosts = json_object_get(ev, "hosts"), *res;
	bool unreachable = !strcmp(event, "v2_runner_on_unreachable");
	bool failed = !strcmp(event, "v2_runner_on_failed");
	char why[TB_FLEET_TEXT_MAX + 64];

	json_object_foreach(hosts, name, res)
	{
		struct tb_fleet_host *h = tb_fleet_host_get(f, name);

		if (!h)
			return -ENOMEM;
		if (!unreachable && !failed)
			continue;
		failure_text(res, why, sizeof(why));
		if (tb_fleet_host_set(h, unreachable ? TB_FLEET_UNREACHABLE : TB_FLEET_FAILED,
				      task ? task : "?", why))
			return -ENOMEM;
		if (!quiet) /* the host's own copies: cut and escaped */
			fprintf(stderr, "fleet: %s: %s at '%s': %s\n", h->name,
				unreachable ? "UNREACHABLE" : "FAILED", h->stage, h->reason);
	}
	return 0;
}

/* The recap: a host with failures or unreachable tasks ends in that state. */
static int on_stats(json_t *ev, struct tb_fleet *f)
{
	json_t *stats = json_object_get(ev, "stats"), *s;
	const char *name;

	json_object_foreach(stats, name, s)
	{
		struct tb_fleet_host *h = tb_fleet_host_get(f, name);
		json_int_t unreachable = json_integer_value(json_object_get(s, "unreachable"));
		json_int_t failures = json_integer_value(json_object_get(s, "failures"));

		if (!h)
			return -ENOMEM;
		if (unreachable > 0 && h->state != TB_FLEET_UNREACHABLE &&
		    tb_fleet_host_set(h, TB_FLEET_UNREACHABLE, NULL,
				      h->reason ? NULL : "unreachable"))
			return -ENOMEM;
		if (failures > 0 && h->state == TB_FLEET_OK &&
		    tb_fleet_host_set(h, TB_FLEET_FAILED, NULL, h->reason ? NULL : "failed"))
			return -ENOMEM;
	}
	return 0;
}

/* A line of ansible's or a task's name on stderr, bounded and escaped as a host's text is. */
static void say(const char *who, const char *text)
{
	char *kept = tb_escape_cut(text, false, TB_FLEET_TEXT_MAX);

	fprintf(stderr, "%s: %s\n", who, kept ? kept : "(out of memory)");
	free(kept);
}

int tb_cli_playbook_line(char *line, struct tb_fleet *f, const struct tb_cli_playbook *pb,
			 struct tb_cli_fleet_outcome *out)
{
	json_t *ev = line[0] == '{' ? json_loads(line, JSON_REJECT_DUPLICATES, NULL) : NULL;
	const char *event = jstr(ev, "_event");
	int ret = 0;

	if (!event) {
		/* ansible talking: keep its last warning or error, with its continuation lines */
		size_t n = strlen(out->said);
		bool start = !strncmp(line, "[WARNING]", 9) || !strncmp(line, "[ERROR]", 7) ||
			     !strncmp(line, "ERROR!", 6) || !n;

		if (*line && start)
			snprintf(out->said, sizeof(out->said), "%s", line);
		else if (*line)
			snprintf(out->said + n, sizeof(out->said) - n, " %s", line);
		if (*line && !pb->quiet)
			say("ansible", line);
	} else if (!strncmp(event, "v2_runner_on_", 13)) {
		ret = on_result(event, ev, f, pb->quiet);
	} else if (!strcmp(event, "v2_playbook_on_stats")) {
		out->recap = true;
		ret = on_stats(ev, f);
	} else if (!strcmp(event, "v2_playbook_on_task_start") && !pb->quiet) {
		const char *task = task_name(ev);

		if (task)
			say("fleet", task);
	}
	json_decref(ev);
	return ret;
}

/* ---- the process ---------------------------------------------------------------------------- */

/* The lines accumulated from the pipe; one longer than LINE_MAX_BYTES is skipped. */
struct lines {
	char *buf;
	size_t len, cap;
	bool skipping;
};

/* Append n bytes and hand every complete line to on_line. Returns 0 or -ENOMEM. */
static int feed(struct lines *l, const char *data, size_t n, struct tb_fleet *f,
		const struct tb_cli_playbook *pb, struct tb_cli_fleet_outcome *out)
{
	for (size_t i = 0; i < n; i++) {
		if (data[i] == '\n') {
			int ret = 0;

			if (!l->skipping && l->buf) {
				l->buf[l->len] = '\0';
				ret = tb_cli_playbook_line(l->buf, f, pb, out);
			}
			l->len = 0;
			l->skipping = false;
			if (ret)
				return ret;
			continue;
		}
		if (l->skipping)
			continue;
		if (l->len + 2 > l->cap) {
			size_t cap = l->cap ? 2 * l->cap : 65536;
			char *nb;

			if (cap > LINE_MAX_BYTES) {
				l->skipping = true;
				tb_warn("fleet: ansible printed a line of more than %u MiB; skipped",
					LINE_MAX_BYTES >> 20);
				continue;
			}
			nb = realloc(l->buf, cap);
			if (!nb)
				return -ENOMEM;
			l->buf = nb;
			l->cap = cap;
		}
		l->buf[l->len++] = data[i];
	}
	return 0;
}

/* The argv of ansible-playbook into av (room for 12). */
static void build_argv(const struct tb_cli_playbook *pb, char *vars_arg, char *action_arg,
		       char **av)
{
	size_t n = 0;

	av[n++] = "ansible-playbook";
	av[n++] = "-i";
	av[n++] = (char *)pb->inventory;
	if (pb->limit) {
		av[n++] = "--limit";
		av[n++] = (char *)pb->limit;
	}
	av[n++] = "-e";
	av[n++] = vars_arg;
	if (pb->action) {
		av[n++] = "-e";
		av[n++] = action_arg;
	}
	av[n++] = (char *)pb->playbook;
	av[n] = NULL;
}

/* Read the pipe until it closes, passing a stop request on. Returns 0 or -errno. */
static int follow(struct tb_proc *p, struct tb_fleet *f, const struct tb_cli_playbook *pb,
		  struct tb_cli_fleet_outcome *out)
{
	struct lines l = {0};
	uint64_t deadline = 0;
	bool hurried = false;
	char buf[65536];
	int ret = 0, logfd = pb->logfd;

	if (pb->limit_ns)
		deadline = tb_now_ns() + (tb_stop_hurried() && pb->limit_ns > TB_FLEET_HURRY_NS
						  ? TB_FLEET_HURRY_NS
						  : pb->limit_ns);
	for (;;) {
		struct pollfd pfd = {.fd = p->out_fd, .events = POLLIN};
		ssize_t n;

		if (!pb->no_stop && tb_stop_requested() && !out->interrupted) {
			out->interrupted = true;
			deadline = tb_now_ns() + STOP_GRACE_NS;
			kill(-p->pid, SIGINT);
			tb_warn("fleet: interrupted: stopping ansible-playbook");
		}
		if (!hurried && tb_stop_hurried()) {
			/* A second Ctrl-C: this play gets seconds, not minutes. */
			hurried = true;
			if (pb->no_stop) {
				uint64_t d = tb_now_ns() + TB_FLEET_HURRY_NS;

				deadline = deadline && deadline < d ? deadline : d;
			} else {
				deadline = tb_now_ns();
			}
		}
		if (deadline && tb_now_ns() > deadline) {
			tb_warn("fleet: ansible-playbook did not stop %s; killing it",
				hurried ? "after the second interrupt" : "in time");
			tb_proc_stop(p, SIGTERM, hurried ? TB_HURRY_GRACE_NS : 5000000000ull);
			out->interrupted = true;
			break;
		}
		if (poll(&pfd, 1, 200) <= 0)
			continue;
		n = read(p->out_fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = n < 0 ? -errno : 0;
			break;
		}
		if (logfd >= 0 && tb_write_full(logfd, buf, (size_t)n))
			logfd = -1; /* the log is a copy: losing it loses no result */
		if ((ret = feed(&l, buf, (size_t)n, f, pb, out)))
			break;
	}
	free(l.buf);
	return ret;
}

int tb_cli_playbook_run(const struct tb_cli_playbook *pb, struct tb_fleet *f,
			struct tb_cli_fleet_outcome *out)
{
	char *vars_arg = NULL, *action_arg = NULL, *av[16];
	struct tb_proc p = {0};
	int ret = -ENOMEM;

	memset(out, 0, sizeof(*out));
	out->status = -1;
	if (asprintf(&vars_arg, "@%s", pb->vars) < 0 ||
	    asprintf(&action_arg, "tb_action=%s", pb->action ? pb->action : "run") < 0)
		goto out;
	build_argv(pb, vars_arg, action_arg, av);
	/* Events as JSON lines on stdout; no colours in them; no .retry files next to the
	 * playbook; the interpreter discovery's notice is noise here. */
	setenv("ANSIBLE_STDOUT_CALLBACK", "ansible.posix.jsonl", 1);
	setenv("ANSIBLE_NOCOLOR", "1", 1);
	setenv("ANSIBLE_RETRY_FILES_ENABLED", "false", 1);
	setenv("ANSIBLE_PYTHON_INTERPRETER", "auto_silent", 0);
	ret = tb_proc_spawn(&p, av, NULL, TB_PROC_CAPTURE | TB_PROC_NULLIN);
	if (ret) {
		tb_err("fleet: cannot start ansible-playbook: %s", strerror(-ret));
		goto out;
	}
	ret = follow(&p, f, pb, out);
	if (ret && ret != -ENOMEM)
		tb_err("fleet: reading ansible-playbook's output: %s", strerror(-ret));
	tb_proc_wait(&p, 0);
	if (p.reaped && WIFEXITED(p.status))
		out->status = WEXITSTATUS(p.status);
out:
	tb_proc_release(&p);
	free(vars_arg);
	free(action_arg);
	return ret;
}

/* ---- the hosts' records --------------------------------------------------------------------- */

/* A name the role accepts as a directory name (its tasks/main.yml asserts the same). */
static bool usable_name(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > 64 ||
	    !((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9')))
		return false;
	return strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") == n;
}

/* path is a regular file (not a link, which the controller never writes there). */
static bool regular(const char *path)
{
	struct stat st;

	return !lstat(path, &st) && S_ISREG(st.st_mode);
}

/* The record's text through the one opener, bounded. 0, 1 when there is none, or -ENOMEM. */
static int read_record(struct tb_fleet_host *h, const char *path, char **text, size_t *len)
{
	int ret = tb_read_regular(path, TB_FLEET_RECORD_MAX, text, len);
	char bad[600];

	if (ret == -ENOENT)
		return 1;
	if (!ret || ret == -ENOMEM)
		return ret;
	snprintf(bad, sizeof(bad), "%s: %s", path,
		 ret == -EFBIG ? "larger than a host's record can be (1 MiB)"
			       : tb_input_strerror(ret));
	return tb_fleet_host_set(h, TB_FLEET_FAILED, "read the host's record", bad) ? -ENOMEM : 1;
}

/* Check the record of h (doc: templates/fleet-host.json.j2) and take what it says. */
static int take_record(struct tb_fleet_host *h, json_t *rec, const char *path)
{
	const char *schema = jstr(rec, "schema"), *host = jstr(rec, "host");
	const char *status = jstr(rec, "status"), *stage = jstr(rec, "stage");
	const char *reason = jstr(rec, "reason");
	json_t *inst = json_object_get(rec, "install");
	const char *mode = jstr(inst, "mode"), *why = jstr(inst, "why");
	char bad[512];

	if (!schema || strcmp(schema, "tracebench-fleet-host/1"))
		snprintf(bad, sizeof(bad), "%s: schema: expected \"tracebench-fleet-host/1\"",
			 path);
	else if (!host || strcmp(host, h->name))
		snprintf(bad, sizeof(bad), "%s: host: expected \"%s\"", path, h->name);
	else if (!status || (strcmp(status, "ok") && strcmp(status, "failed")))
		snprintf(bad, sizeof(bad), "%s: status: expected \"ok\" or \"failed\"", path);
	else if (!stage || !reason || (inst && !json_is_object(inst)))
		snprintf(bad, sizeof(bad),
			 "%s: stage, reason, install: expected strings, an object", path);
	else
		bad[0] = '\0';
	if (*bad)
		return tb_fleet_host_set(h, TB_FLEET_FAILED, "read the host's record", bad);
	if (mode && *mode && tb_fleet_host_install(h, mode, why))
		return -ENOMEM;
	/* The record says why in the role's words; events only know the last failed task. */
	if (!strcmp(status, "failed"))
		return tb_fleet_host_set(
			h, h->state == TB_FLEET_UNREACHABLE ? h->state : TB_FLEET_FAILED,
			*stage ? stage : NULL, *reason ? reason : NULL);
	return 0;
}

int tb_cli_fleet_record(struct tb_fleet_host *h, const char *text, size_t len, const char *path)
{
	json_t *rec = json_loadb(text, len, JSON_REJECT_DUPLICATES, NULL);
	int ret = rec ? take_record(h, rec, path)
		      : tb_fleet_host_set(h, TB_FLEET_FAILED, "read the host's record",
					  "fleet-host.json is not JSON");

	json_decref(rec);
	return ret;
}

int tb_cli_fleet_records(struct tb_fleet *f, const char *dir)
{
	for (size_t i = 0; i < f->nhosts; i++) {
		struct tb_fleet_host *h = &f->hosts[i];
		char *path = NULL, *text = NULL;
		size_t len;
		int ret = 0;

		if (!usable_name(h->name))
			continue;
		if (asprintf(&path, "%s/%s/fleet-host.json", dir, h->name) < 0)
			return -ENOMEM;
		ret = read_record(h, path, &text, &len);
		if (!ret)
			ret = tb_cli_fleet_record(h, text, len, path);
		free(text);
		free(path);
		if (ret < 0)
			return ret;
		if (asprintf(&path, "%s/%s/result.json", dir, h->name) < 0)
			return -ENOMEM;
		if (regular(path)) {
			free(h->result_path);
			h->result_path = path;
		} else {
			free(path);
		}
	}
	return 0;
}
