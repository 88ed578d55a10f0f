// SPDX-License-Identifier: GPL-2.0
/* The run directory and the scratch directory (rundir.h). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/tb.h"
#include "runner/rundir.h"

int tb_rundir_check(const char *outdir)
{
	struct dirent *de;
	struct stat st;
	bool empty = true;
	DIR *d;

	if (stat(outdir, &st))
		return 0;
	d = opendir(outdir);
	while (d && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			empty = false;
	if (d)
		closedir(d);
	if (!S_ISDIR(st.st_mode) || !empty) {
		tb_err("%s: exists and is not an empty directory; a run directory is never overwritten",
		       outdir);
		return -EEXIST;
	}
	return 0;
}

int tb_rundir_create(const char *outdir, const char *scenario, bool anonymize, char *dir,
		     size_t len)
{
	char host[256] = "unknown", ts[32];
	time_t now = time(NULL);
	struct tm tm;
	int i, ret;

	if (outdir) {
		if (tb_rundir_check(outdir))
			return -EEXIST;
		snprintf(dir, len, "%s", outdir);
		ret = tb_mkdir_p(dir, 0755);
		if (ret)
			tb_err("%s: cannot create the run directory: %s", outdir, strerror(-ret));
		return ret;
	}
	if (anonymize)
		snprintf(host, sizeof(host), "anon");
	else
		gethostname(host, sizeof(host) - 1);
	gmtime_r(&now, &tm);
	strftime(ts, sizeof(ts), "%Y%m%dT%H%M%SZ", &tm);
	for (i = 0; i < 100; i++) {
		snprintf(dir, len, "results/%s-%s-%s%s%.0d", ts, host, scenario, i ? "-" : "", i);
		ret = tb_mkdir_p("results", 0755);
		if (!ret && mkdir(dir, 0755) == 0)
			return 0;
		if (!ret && errno != EEXIST)
			ret = -errno;
		if (ret) {
			tb_err("%s: cannot create the run directory: %s", dir, strerror(-ret));
			return ret;
		}
	}
	return -EEXIST;
}

int tb_scratch_create(struct tb_plan *p, char *root, size_t len)
{
	size_t i;

	snprintf(root, len, "/tmp/tracebench-%d-XXXXXX", (int)getpid());
	if (!mkdtemp(root)) {
		int e = -errno;

		tb_err("%s: cannot create a scratch directory: %s", root, strerror(errno));
		root[0] = '\0';
		return e;
	}
	chmod(root, 0755);
	for (i = 0; i < p->s->nworkloads; i++) {
		snprintf(p->wls[i].tmpdir, sizeof(p->wls[i].tmpdir), "%s/%zu", root, i);
		if (tb_mkdir_p(p->wls[i].tmpdir, 0755))
			return -EIO;
	}
	return 0;
}

void tb_scratch_remove(char *root)
{
	if (root[0])
		tb_rm_rf(root);
	root[0] = '\0';
}
