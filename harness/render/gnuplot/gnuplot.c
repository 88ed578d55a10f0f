// SPDX-License-Identifier: GPL-2.0
/*
 * Plots: write each plot's data as tab-separated files, then run plots/<name>.gp through
 * gnuplot once per output format. The scripts only draw; every number (quartiles, sort order,
 * axis ranges) is computed here so that the data files can be checked by tests. This file is
 * the session, the data files and the gnuplot runs every plot uses (gnuplot.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/env.h"
#include "core/proc.h"
#include "core/tb.h"
#include "host/armed.h"
#include "render/gnuplot/plot.h"
#include "render/gnuplot/gnuplot.h"
#include "render/text.h"
#include "model/result.h"
#include "model/measured.h"

/* ---- sessions -------------------------------------------------------------------------------- */

int tb_plot_find_gnuplot(char *path, size_t len)
{
	const char *env = getenv(TB_ENV_GNUPLOT);

	return tb_proc_which(env && *env ? env : "gnuplot", path, len) ? -ENOENT : 0;
}

static bool has_scripts(const char *dir)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/common.gp", dir);
	return access(p, R_OK) == 0;
}

int tb_plot_find_scripts(char *dir, size_t len)
{
	/* The source tree (./tracebench), build/run-tests's parent, an installed tree. */
	static const char *const rel[] = {"plots", "../plots", TB_DATADIR_REL "/plots"};
	const char *env = getenv(TB_ENV_PLOTS_DIR);
	char exe[PATH_MAX];
	size_t i;

	if (env && *env) {
		snprintf(dir, len, "%s", env);
		return has_scripts(dir) ? 0 : -ENOENT;
	}
	for (i = 0; !tb_exe_dir(exe, sizeof(exe)) && i < TB_ARRAY_SIZE(rel); i++) {
		snprintf(dir, len, "%s/%s", exe, rel[i]);
		if (has_scripts(dir))
			return 0;
	}
	snprintf(dir, len, "%s/plots", TB_DATADIR);
	return has_scripts(dir) ? 0 : -ENOENT;
}

int tb_gp_remove_images(struct tb_gp *g, const char *name)
{
	static const char *const exts[] = {"png", "svg", TB_PLOT_FAILED_EXT + 1};
	char file[NAME_MAX + 1];
	size_t k;
	int ret;

	for (k = 0; k < TB_ARRAY_SIZE(exts); k++) {
		snprintf(file, sizeof(file), "%s.%s", name, exts[k]);
		ret = tb_dir_check_name(&g->plots, file);
		if (ret)
			return ret;
		if (unlinkat(g->plots.fd, file, 0) && errno != ENOENT) {
			ret = -errno;
			tb_err("plot: %s/%s: cannot remove the earlier image: %s", g->plotdir, file,
			       strerror(errno));
			return ret;
		}
	}
	return 0;
}

int tb_gp_outdir(struct tb_dir *d, const char *outdir)
{
	return tb_dir_open(d, outdir, TB_DIR_PATH | TB_DIR_CREATE | TB_DIR_PARENTS, 0755);
}

/*
 * The plot session's private directory is plots/.tracebench-<pid>-XXXXXX: the owner's pid in
 * its name (cleanup and the next plot find a killed owner's by it) and in the owner's armed
 * record (host/armed.h: `tracebench cleanup` removes it once its owner is dead).
 */
static void remove_stale_work(const struct tb_dir *plots)
{
	int fd = openat(plots->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), pid;
	struct dirent *de;
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d))) {
		if (de->d_type != DT_DIR || sscanf(de->d_name, ".tracebench-%d-", &pid) != 1 ||
		    pid <= 0 || pid == getpid() || tb_armed_owner_alive(pid, 0))
			continue;
		if (!tb_dir_remove(plots, de->d_name))
			tb_info("plot: removed %s/%s (its owner, pid %d, is gone)", plots->path,
				de->d_name, pid);
	}
	closedir(d);
}

/* In the armed record where one can be kept (plot and report run without root, and need none:
 * the next plot removes what a killed one left). */
static void record_work(struct tb_gp *g, bool add)
{
	char path[PATH_MAX + NAME_MAX + 2], abs[PATH_MAX];

	if (add && access(tb_state_dir(), W_OK) && (errno != ENOENT || geteuid()))
		return;
	if (!realpath(g->plotdir, abs) || (size_t)snprintf(path, sizeof(path), "%s/%s", abs,
							   tb_dir_name(&g->work)) >= sizeof(path))
		return;
	if (add)
		tb_armed_add(TB_ARMED_PLOT_TMP, path);
	else if (tb_armed_has(TB_ARMED_PLOT_TMP, path))
		tb_armed_remove(TB_ARMED_PLOT_TMP, path);
}

int tb_gp_open(struct tb_gp *g, const struct tb_dir *out, unsigned flags, const char *host,
	       const char *scenario)
{
	char prefix[32];

	int ret;

	memset(g, 0, sizeof(*g));
	g->plots.fd = g->data.fd = g->work.fd = -1;
	g->flags = flags;
	g->host = tb_shorten(g->hostbuf, sizeof(g->hostbuf), host ? host : "", TB_GP_NAME_MAX);
	g->scenario = tb_shorten(g->scenbuf, sizeof(g->scenbuf),
				 scenario && *scenario ? scenario : "scenario", TB_GP_NAME_MAX);
	if ((size_t)snprintf(g->plotdir, sizeof(g->plotdir), "%s/plots", out->path) >=
		    sizeof(g->plotdir) ||
	    (size_t)snprintf(g->datadir, sizeof(g->datadir), "%s/plots/data", out->path) >=
		    sizeof(g->datadir)) {
		tb_err("plot: output directory name too long: %s", out->path);
		return -ENAMETOOLONG;
	}
	/* plots/ and plots/data/ beneath out are ours: made and opened through its handle. */
	ret = tb_dir_sub(out, "plots", TB_DIR_CREATE, 0755, &g->plots);
	if (!ret)
		ret = tb_dir_sub(&g->plots, "data", TB_DIR_CREATE, 0755, &g->data);
	if (!ret) {
		remove_stale_work(&g->plots);
		snprintf(prefix, sizeof(prefix), ".tracebench-%d-", (int)getpid());
		ret = tb_dir_mktemp(&g->plots, prefix, &g->work);
	}
	if (ret)
		return ret;
	record_work(g, true);
	if (flags & TB_PLOT_DATA_ONLY)
		return 0;
	if (tb_plot_find_scripts(g->scripts, sizeof(g->scripts))) {
		tb_err("plot: gnuplot scripts not found (looked in $TB_PLOTS_DIR, next to the binary and in %s/plots); plots skipped",
		       TB_DATADIR);
		return -ENOENT;
	}
	return 0;
}

int tb_gp_init(struct tb_gp *g, const struct tb_dir *out, unsigned flags, const struct tb_result *r,
	       bool compare)
{
	int ret = tb_gp_open(g, out, flags, tb_result_host(r), r->scenario_name), r2 = 0;

	/* Earlier images go first (also when the scripts are missing): none is left stale. */
	for (int i = 0; (!ret || ret == -ENOENT) && !r2 && tb_plot_names[i]; i++)
		if (compare == !strcmp(tb_plot_names[i], "compare"))
			r2 = tb_gp_remove_images(g, tb_plot_names[i]);
	return r2 ? r2 : ret;
}

int tb_gp_finish(struct tb_gp *g)
{
	char name[TB_GP_NAME_MAX + 16];
	int ret = 0, r;
	size_t i;

	for (i = 0; i < g->ndats && g->work.fd >= 0; i++) {
		snprintf(name, sizeof(name), "%s.dat", g->dats[i]);
		r = tb_dir_rename(&g->work, name, &g->data, name);
		if (r && !ret)
			ret = r;
	}
	g->ndats = 0;
	if (g->work.fd >= 0) {
		tb_dir_close(&g->work);
		tb_dir_remove(&g->plots, tb_dir_name(&g->work));
		record_work(g, false);
	}
	tb_dir_close(&g->data);
	tb_dir_close(&g->plots);
	return ret;
}

int tb_gp_need_gnuplot(struct tb_gp *g)
{
	if (g->flags & TB_PLOT_DATA_ONLY)
		return 0;
	if (tb_plot_find_gnuplot(g->gnuplot, sizeof(g->gnuplot))) {
		tb_err("plot: gnuplot not found (%s): no plots drawn; install gnuplot (Debian: gnuplot-nox) to get them",
		       getenv(TB_ENV_GNUPLOT) ? getenv(TB_ENV_GNUPLOT) : "not in PATH");
		g->flags |= TB_PLOT_DATA_ONLY;
		return -ENOENT;
	}
	return 0;
}

/* ---- data files ------------------------------------------------------------------------------ */

/* A string as one field gnuplot reads back whole: no tabs, newlines or '"'. */
static void put_s(FILE *f, const char *s)
{
	if (!s || !*s) {
		fputs("-", f);
		return;
	}
	for (; *s; s++) {
		if (*s == '\t' || *s == '\n' || *s == '\r')
			fputc(' ', f);
		else if (*s == '"')
			fputc('\'', f);
		else
			fputc(*s, f);
	}
}

static void put_d(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.6g", v);
	else
		fputs("NaN", f);
}

void tb_gp_row(FILE *f, const char *cols, ...)
{
	va_list ap;

	va_start(ap, cols);
	for (const char *c = cols; *c; c++) {
		if (c != cols)
			fputc('\t', f);
		switch (*c) {
		case 's':
			put_s(f, va_arg(ap, const char *));
			break;
		case 'r':
			fputs(va_arg(ap, const char *), f);
			break;
		case 'd':
			put_d(f, va_arg(ap, double));
			break;
		case 'f':
			fprintf(f, "%.4f", va_arg(ap, double));
			break;
		case 'i':
			fprintf(f, "%d", va_arg(ap, int));
			break;
		case 'z':
			fprintf(f, "%zu", va_arg(ap, size_t));
			break;
		}
	}
	va_end(ap);
	fputc('\n', f);
}

/*
 * The plot directory cannot take more (a full disk, a quota, read-only): said once where it
 * happened; every later plot and data file is skipped silently instead of failing the same way.
 */
static bool no_room(const struct tb_gp *g)
{
	return g->err == -ENOSPC || g->err == -EDQUOT || g->err == -EROFS;
}

/* After a failed image: a full file system is the reason (gnuplot does not say it). */
static int full_disk(struct tb_gp *g)
{
	struct statvfs vfs;

	if (fstatvfs(g->work.fd, &vfs) || vfs.f_bavail > 2)
		return 0;
	g->err = -ENOSPC;
	tb_err("plot: %s: %s; the plots that would follow are not drawn", g->plotdir,
	       strerror(ENOSPC));
	return -ENOSPC;
}

FILE *tb_gp_dat_open(struct tb_gp *g, const char *name, const char *what, const char *cols)
{
	char file[TB_GP_NAME_MAX + 16];
	FILE *f;
	int fd;

	if (no_room(g))
		return NULL;

	if (g->ndats >= TB_GP_MAX_DATS || strlen(name) > TB_GP_NAME_MAX) {
		tb_err("plot: bug: data file %s: too many or too long a name", name);
		return NULL;
	}
	snprintf(file, sizeof(file), "%s.dat", name);
	/* Refused now rather than after drawing: a link or a directory where it goes. */
	fd = tb_dir_check_name(&g->data, file);
	if (fd) {
		g->err = g->err ?: fd;
		return NULL;
	}
	fd = openat(g->work.fd, file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		g->err = -errno;
		tb_err("plot: cannot write %s/%s: %s", g->datadir, file, strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	snprintf(g->dats[g->ndats++], sizeof(g->dats[0]), "%s", name);
	fprintf(f, "# tracebench %s: %s\n# %s\n", name, what, cols);
	return f;
}

int tb_gp_dat_close(struct tb_gp *g, FILE *f, const char *name)
{
	int ret = 0;

	/* fflush and fsync say why a write failed (ENOSPC); ferror alone would not. */
	if (fflush(f) || ferror(f) || fsync(fileno(f)))
		ret = errno ? -errno : -EIO;
	if (fclose(f) && !ret)
		ret = -errno;
	if (ret) {
		char file[TB_GP_NAME_MAX + 16];
		size_t i;

		/* Not moved into place half-written: the file goes, and its name from the list. */
		snprintf(file, sizeof(file), "%s.dat", name);
		unlinkat(g->work.fd, file, 0);
		for (i = 0; i < g->ndats; i++)
			if (!strcmp(g->dats[i], name))
				memmove(g->dats[i], g->dats[--g->ndats], sizeof(g->dats[0]));
		if (!no_room(g))
			tb_err("plot: writing %s/%s.dat failed: %s", g->datadir, name,
			       strerror(-ret));
		g->err = g->err && !no_room(g) ? g->err : ret;
	}
	return ret;
}

int tb_gp_dat_close_both(struct tb_gp *g, FILE *f1, const char *name1, FILE *f2, const char *name2)
{
	int ret = tb_gp_dat_close(g, f1, name1), ret2 = tb_gp_dat_close(g, f2, name2);

	return ret ? ret : ret2;
}

/* ---- gnuplot variables and runs -------------------------------------------------------------- */

int tb_gp_vars_open(struct tb_gp_vars *v)
{
	v->buf = NULL;
	v->len = 0;
	v->f = open_memstream(&v->buf, &v->len);
	return v->f ? 0 : -ENOMEM;
}

void tb_gp_vars_free(struct tb_gp_vars *v)
{
	if (v->f)
		fclose(v->f);
	v->f = NULL;
	free(v->buf);
	v->buf = NULL;
}

/* 'value' with gnuplot's single-quote rule ('' is a quote) and no newlines. */
static void gp_quote(FILE *f, const char *val)
{
	fputc('\'', f);
	for (; val && *val; val++) {
		if (*val == '\'')
			fputs("''", f);
		else if (*val == '\n' || *val == '\r' || *val == '\t')
			fputc(' ', f);
		else
			fputc(*val, f);
	}
	fputc('\'', f);
}

void tb_gp_var_s(struct tb_gp_vars *v, const char *name, const char *val)
{
	fprintf(v->f, "%s=", name);
	gp_quote(v->f, val);
	fputs("; ", v->f);
}

void tb_gp_var_d(struct tb_gp_vars *v, const char *name, double val)
{
	fprintf(v->f, "%s=%.9g; ", name, isfinite(val) ? val : 0.0);
}

void tb_gp_var_si(struct tb_gp_vars *v, const char *fmt, int i, const char *val)
{
	char name[32];

	snprintf(name, sizeof(name), fmt, i);
	tb_gp_var_s(v, name, val);
}

void tb_gp_var_di(struct tb_gp_vars *v, const char *fmt, int i, double val)
{
	char name[32];

	snprintf(name, sizeof(name), fmt, i);
	tb_gp_var_d(v, name, val);
}

void tb_gp_var_dat(struct tb_gp_vars *v, struct tb_gp *g, const char *name, const char *dat)
{
	char p[TB_GP_NAME_MAX + 16];

	(void)g;
	snprintf(p, sizeof(p), "%s.dat", dat);
	tb_gp_var_s(v, name, p);
}

void tb_gp_main_title(struct tb_gp_vars *v, struct tb_gp *g, const char *what)
{
	char t[512];

	snprintf(t, sizeof(t), "%s - %s on %s", what, g->scenario, g->host);
	tb_gp_var_s(v, "title", t);
}

void tb_gp_panel_title(struct tb_gp_vars *v, struct tb_gp *g, int i, const struct tb_result *r,
		       const char *wl)
{
	const char *type = NULL;
	char t[512], s[TB_GP_NAME_MAX + 8], s2[TB_GP_NAME_MAX + 8];
	size_t k;

	for (k = 0; k < r->ncells; k++)
		if (!strcmp(r->cells[k].workload, wl) && r->cells[k].workload_type)
			type = r->cells[k].workload_type;
	if (type && strcmp(type, wl))
		snprintf(t, sizeof(t), "workload %s (%s), host %s",
			 tb_shorten(s, sizeof(s), wl, TB_GP_NAME_MAX),
			 tb_shorten(s2, sizeof(s2), type, TB_GP_NAME_MAX), g->host);
	else
		snprintf(t, sizeof(t), "workload %s, host %s",
			 tb_shorten(s, sizeof(s), wl, TB_GP_NAME_MAX), g->host);
	tb_gp_var_si(v, "t%d", i, t);
}

/* Read everything a child writes (bounded) until EOF. */
static char *slurp_fd(int fd)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap + 1), *nb;
	ssize_t r;

	if (!buf)
		return NULL;
	for (;;) {
		if (n == cap) {
			if (cap >= (1u << 20)) {
				char sink[4096];

				while (read(fd, sink, sizeof(sink)) > 0)
					;
				break;
			}
			nb = realloc(buf, cap * 2 + 1);
			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	return buf;
}

/*
 * gnuplot -e "vars" script. A result with thousands of cells can exceed the kernel's limit on
 * one argument (128 KiB), so long variable lists go through a file that -e loads.
 */
static int spawn_gnuplot(struct tb_gp *g, const char *name, struct tb_gp_vars *all,
			 const char *script, struct tb_proc *p)
{
	const char *env = getenv(TB_ENV_GNUPLOT_ARG_MAX); /* tests lower it */
	size_t max = env && atol(env) > 0 ? (size_t)atol(env) : 64 * 1024;
	struct tb_proc_opts o = TB_PROC_OPTS_INIT;
	char file[TB_GP_NAME_MAX + 16];
	char *argv[] = {g->gnuplot, "-e", all->buf, (char *)script, NULL};
	struct tb_gp_vars l;
	int ret;

	/* gnuplot writes by name: it runs in our private directory, which only it sees. */
	o.flags = TB_PROC_CAPTURE;
	o.cwd_fd = g->work.fd;
	if (all->len < max)
		return tb_proc_spawn_opts(p, argv, &o);
	snprintf(file, sizeof(file), "%s-vars.gp", name);
	ret = tb_dir_write(&g->work, file, all->buf, all->len, 0600);
	if (ret)
		return ret;
	if (tb_gp_vars_open(&l))
		return -ENOMEM;
	fputs("load ", l.f);
	gp_quote(l.f, file);
	if (fflush(l.f)) {
		tb_gp_vars_free(&l);
		return -ENOMEM;
	}
	argv[2] = l.buf;
	ret = tb_proc_spawn_opts(p, argv, &o);
	tb_gp_vars_free(&l);
	return ret;
}

/*
 * spawn_gnuplot in a UTF-8 locale: common.gp sets `encoding utf8`, which under the C locale
 * (sudo, cron, `env -i`, a CI container) warns "iconv failed to convert degree sign" on every
 * plot. Only gnuplot's environment changes: the variable is restored once it has started.
 */
static int spawn_utf8(struct tb_gp *g, const char *name, struct tb_gp_vars *all, const char *script,
		      struct tb_proc *p)
{
	const char *old = getenv("LC_ALL");
	char *saved = old ? strdup(old) : NULL;
	int ret;

	if (old && !saved)
		return -ENOMEM;
	setenv("LC_ALL", "C.UTF-8", 1);
	ret = spawn_gnuplot(g, name, all, script, p);
	if (saved)
		setenv("LC_ALL", saved, 1);
	else
		unsetenv("LC_ALL");
	free(saved);
	return ret;
}

/*
 * A plot that failed leaves plots/<name>.failed, one line saying why, so that the report
 * shows "plot failed: why" in the plot's place instead of an empty figure (TB_PLOT_FAILED_EXT).
 */
static void record_failure(struct tb_gp *g, const char *name, const char *fmt, const char *what,
			   const char *msg)
{
	char file[TB_GP_NAME_MAX + 16], line[512];
	size_t n;

	n = (size_t)snprintf(line, sizeof(line), "gnuplot (%s) %s%s%.*s", fmt, what,
			     msg && *msg ? ": " : "", (int)strcspn(msg ? msg : "", "\n"),
			     msg ? msg : "");
	if (n >= sizeof(line))
		n = sizeof(line) - 1;
	if (no_room(g))
		return; /* it would not fit either */
	snprintf(file, sizeof(file), "%s%s", name, TB_PLOT_FAILED_EXT);
	if (tb_dir_write(&g->plots, file, line, n, 0644))
		tb_warn("plot: cannot record the failure in %s/%s", g->plotdir, file);
}

/*
 * gnuplot may exit 0 after a short write (a full disk): an image counts when it is complete,
 * a PNG ending with its IEND chunk, an SVG with its closing tag.
 */
static bool image_complete(struct tb_gp *g, const char *file, const char *fmt)
{
	static const unsigned char iend[] = {0,	  0,   0,    0,	   'I',	 'E',
					     'N', 'D', 0xae, 0x42, 0x60, 0x82};
	char *buf = NULL, *end;
	size_t len = 0;
	bool ok;

	if (tb_dir_read(&g->work, file, 64u << 20, &buf, &len))
		return false;
	if (!strcmp(fmt, "png")) {
		ok = len > sizeof(iend) && !memcmp(buf + len - sizeof(iend), iend, sizeof(iend));
	} else {
		while (len && strchr(" \t\r\n", buf[len - 1]))
			buf[--len] = '\0';
		end = len >= 6 ? buf + len - 6 : NULL;
		ok = end && !strcmp(end, "</svg>");
	}
	free(buf);
	return ok;
}

/*
 * Draw one format of plots/<script>.gp as the image <name>.<fmt> and move it into place.
 * Returns 0 or -errno.
 */
static int run_format(struct tb_gp *g, const char *script_name, const char *name,
		      struct tb_gp_vars *v, int w, int h, const char *fmt)
{
	char script[PATH_MAX + 64], file[TB_GP_NAME_MAX + 16], status[128], *msg;
	struct tb_gp_vars all;
	struct tb_proc p;
	int ret = 0;

	snprintf(script, sizeof(script), "%s/%s.gp", g->scripts, script_name);
	snprintf(file, sizeof(file), "%s.%s", name, fmt);
	if (tb_gp_vars_open(&all))
		return -ENOMEM;
	tb_gp_var_s(&all, "plotsdir", g->scripts);
	tb_gp_var_s(&all, "fmt", fmt);
	tb_gp_var_s(&all, "outfile", file);
	tb_gp_var_d(&all, "w", w);
	tb_gp_var_d(&all, "h", h);
	tb_gp_var_s(&all, "host", g->host);
	fwrite(v->buf, 1, v->len, all.f);
	ret = fflush(all.f) ? -ENOMEM : spawn_utf8(g, name, &all, script, &p);
	tb_gp_vars_free(&all);
	if (ret) {
		tb_err("plot: cannot run %s: %s", g->gnuplot, strerror(-ret));
		return ret;
	}
	msg = slurp_fd(p.out_fd);
	tb_proc_wait(&p, 0);
	if (!WIFEXITED(p.status) || WEXITSTATUS(p.status)) {
		tb_err("plot: gnuplot %s (%s) %s: %s", script, fmt,
		       tb_proc_status_str(p.status, status, sizeof(status)),
		       msg && *msg ? msg : "no output");
		ret = full_disk(g);
		if (!ret) {
			record_failure(g, name, fmt, status, msg);
			ret = -EIO;
		}
	} else if (msg && *msg && (g->flags & TB_PLOT_STRICT)) {
		tb_err("plot: gnuplot %s (%s) warned: %s", script, fmt, msg);
		record_failure(g, name, fmt, "warned", msg);
		ret = -EIO;
	} else if (msg && *msg) {
		tb_warn("plot: gnuplot %s (%s): %s", script, fmt, msg);
	}
	if (!ret && !image_complete(g, file, fmt)) {
		ret = full_disk(g); /* before the partial image goes and frees its room */
		unlinkat(g->work.fd, file, 0);
		if (!ret) {
			tb_err("plot: gnuplot wrote no complete %s/%s; nothing kept", g->plotdir,
			       file);
			record_failure(g, name, fmt, "wrote an incomplete image", NULL);
			ret = -EIO;
		}
	}
	if (!ret)
		ret = tb_dir_rename(&g->work, file, &g->plots, file);
	else
		unlinkat(g->work.fd, file, 0);
	if (ret && ret != -EIO)
		g->err = g->err ?: ret;
	free(msg);
	tb_proc_release(&p);
	return ret;
}

/* Run plots/<script>.gp for each wanted format into <name>.<fmt>. Returns 0 or -errno. */
static int run_script(struct tb_gp *g, const char *script_name, const char *name,
		      struct tb_gp_vars *v, int w, int h)
{
	int ret = 0;

	if (g->flags & TB_PLOT_DATA_ONLY)
		return 0;
	if (no_room(g))
		return g->err;
	if (fflush(v->f))
		return -ENOMEM;
	if (!(g->flags & TB_PLOT_NO_PNG))
		ret = run_format(g, script_name, name, v, w, h, "png");
	if (!ret && !(g->flags & TB_PLOT_NO_SVG))
		ret = run_format(g, script_name, name, v, w, h, "svg");
	return ret;
}

int tb_gp_run(struct tb_gp *g, const char *name, struct tb_gp_vars *v, int w, int h)
{
	return tb_gp_run_as(g, name, name, v, w, h);
}

int tb_gp_run_as(struct tb_gp *g, const char *script, const char *name, struct tb_gp_vars *v, int w,
		 int h)
{
	int ret = run_script(g, script, name, v, w, h);

	return ret ? ret : 1;
}

/* ---- shared helpers -------------------------------------------------------------------------- */

size_t tb_gp_workloads(const struct tb_result *r, const char ***out)
{
	const char **w = calloc(r->ncells ? r->ncells : 1, sizeof(*w));
	size_t n = 0, i, j;

	*out = w;
	if (!w)
		return 0;
	for (i = 0; i < r->ncells; i++) {
		for (j = 0; j < n; j++)
			if (!strcmp(w[j], r->cells[i].workload))
				break;
		if (j == n)
			w[n++] = r->cells[i].workload;
	}
	return n;
}

size_t tb_gp_cells_of(const struct tb_result *r, const char *wl, size_t *idx)
{
	size_t n = 0, i, pass;

	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < r->ncells; i++)
			if (!strcmp(r->cells[i].workload, wl) && r->cells[i].baseline == !pass)
				idx[n++] = i;
	return n;
}

struct sort_by {
	const struct tb_result *r;
	double (*key)(const struct tb_cell *);
};

static int by_key_desc(const void *a, const void *b, void *arg)
{
	const struct sort_by *s = arg;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	double x = s->key(&s->r->cells[i]), y = s->key(&s->r->cells[j]);

	return x < y ? 1 : x > y ? -1 : (i > j) - (i < j);
}

void tb_gp_sort_desc(size_t *idx, size_t n, const struct tb_result *r,
		     double (*key)(const struct tb_cell *))
{
	struct sort_by s = {r, key};

	qsort_r(idx, n, sizeof(*idx), by_key_desc, &s);
}

int tb_gp_series_panels(struct tb_gp *g, const struct tb_result *r, struct tb_gp_vars *v,
			const struct tb_gp_series *s)
{
	size_t *idx = calloc(r->ncells + 1, sizeof(*idx)), nw, w, i, nidx;
	const char **wls = NULL;
	int block = 0, npanels = 0;
	char title[600];

	nw = tb_gp_workloads(r, &wls);
	if (!idx || !wls) {
		free(idx);
		free(wls);
		return -ENOMEM;
	}
	for (w = 0; w < nw; w++) {
		int first = block, style = 2;

		nidx = tb_gp_cells_of(r, wls[w], idx);
		for (i = 0; i < nidx; i++) {
			const struct tb_cell *c = &r->cells[idx[i]];

			if (!s->write(s->ctx, c, block, nidx, title, sizeof(title)))
				continue;
			tb_gp_var_si(v, "c%d", block, title);
			tb_gp_var_di(v, "s%d", block, c->baseline ? 1 : style++);
			block++;
		}
		if (block == first)
			continue;
		tb_gp_panel_title(v, g, npanels, r, wls[w]);
		tb_gp_var_di(v, "b%d", npanels, first);
		tb_gp_var_di(v, "e%d", npanels, block - 1);
		if (s->panel)
			s->panel(s->ctx, v, npanels, wls[w], nidx);
		npanels++;
	}
	free(wls);
	free(idx);
	return npanels;
}

const char *tb_gp_cell_label(const struct tb_cell *c, char *buf, size_t len)
{
	char s[TB_GP_NAME_MAX + 8];

	snprintf(buf, len, "%s%s", tb_shorten(s, sizeof(s), c->tracer, TB_GP_NAME_MAX),
		 c->baseline ? " (baseline)" : "");
	return buf;
}

const char *tb_gp_row_label(const struct tb_cell *c, char *buf, size_t len)
{
	char a[TB_GP_NAME_MAX + 8], b[TB_GP_NAME_MAX + 8];

	snprintf(buf, len, "%s / %s", tb_shorten(a, sizeof(a), c->workload, TB_GP_NAME_MAX),
		 tb_shorten(b, sizeof(b), c->tracer, TB_GP_NAME_MAX));
	return buf;
}

void tb_gp_room_for(struct tb_gp_room *tr, double x, size_t len)
{
	double frac = 1.0 - ((double)len * 7.0 + 16.0) / tr->plot_px, need;

	if (!isfinite(x))
		return;
	if (frac < 0.25)
		frac = 0.25;
	if (tr->logx) {
		if (!(x > 0) || !(tr->xmin > 0))
			return;
		need = exp(log(tr->xmin) + (log(x) - log(tr->xmin)) / frac);
	} else {
		need = tr->xmin + (x - tr->xmin) / frac;
	}
	if (need > tr->xmax)
		tr->xmax = need;
}

double tb_gp_plot_width_px(int w, size_t label_chars)
{
	double px = w - (double)label_chars * 7.5 - 60.0;

	return px < 200 ? 200 : px;
}
