// SPDX-License-Identifier: GPL-2.0
/* Kernel and user addresses to function names (symbols.h). */
#include <bpf/bpf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/array.h"
#include "core/tb.h"
#include "explain/fold.h"
#include "explain/symbols.h"

/* ---- kernel ----------------------------------------------------------------------------- */

void tb_ksyms_init(struct tb_ksyms *k)
{
	memset(k, 0, sizeof(*k));
}

static void free_bpf_names(struct tb_ksyms *k)
{
	for (size_t i = 0; i < k->nbpf_names; i++)
		free(k->bpf_names[i]);
	free(k->bpf_names);
	k->bpf_names = NULL;
	k->nbpf_names = 0;
}

void tb_ksyms_free(struct tb_ksyms *k)
{
	free(k->v);
	free(k->text);
	free_bpf_names(k);
	tb_ksyms_init(k);
}

static int push(struct tb_ksyms *k, struct tb_ksym s)
{
	if (tb_array_reserve((void **)&k->v, &k->cap, k->n + 1, sizeof(*k->v), 4096))
		return -ENOMEM;
	k->v[k->n++] = s;
	k->nbpf += s.bpf;
	return 0;
}

static int keep_name(struct tb_ksyms *k, const char *name, const char **out)
{
	char **nv = realloc(k->bpf_names, (k->nbpf_names + 1) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	k->bpf_names = nv;
	nv[k->nbpf_names] = strdup(name);
	if (!nv[k->nbpf_names])
		return -ENOMEM;
	*out = nv[k->nbpf_names++];
	return 0;
}

static int cmp_ksym(const void *a, const void *b)
{
	const struct tb_ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Drop the [bpf] entries (a refresh brings the current ones). */
static void drop_bpf(struct tb_ksyms *k)
{
	size_t m = 0;

	for (size_t i = 0; i < k->n; i++)
		if (!k->v[i].bpf)
			k->v[m++] = k->v[i];
	k->n = m;
	k->nbpf = 0;
	free_bpf_names(k);
}

/* One line "addr type name [module]" (line is NUL-terminated and writable). */
static int parse_ksym_line(struct tb_ksyms *k, char *line, bool bpf_only, bool *zero)
{
	char *end, *type, *name, *mod;
	uint64_t addr;
	const char *nm;

	errno = 0;
	addr = strtoull(line, &end, 16);
	if (end == line || *end != ' ' || errno)
		return -EINVAL;
	type = end + 1;
	if (!type[0] || type[1] != ' ' || !type[2])
		return -EINVAL;
	name = type + 2;
	mod = strpbrk(name, " \t");
	if (mod) {
		*mod++ = '\0';
		mod += strspn(mod, " \t");
	}
	if (!strchr("tTwW", type[0]))
		return 0;
	if (addr)
		*zero = false;
	bool bpf = mod && !strcmp(mod, "[bpf]");
	if ((bpf_only && !bpf) || !addr)
		return 0;
	if (!bpf && !strcmp(name, "_etext")) {
		k->text_end = addr; /* a boundary, not a function */
		return 0;
	}
	nm = name;
	if (bpf && keep_name(k, name, &nm))
		return -ENOMEM;
	return push(k, (struct tb_ksym){.addr = addr, .name = nm, .bpf = bpf});
}

int tb_ksyms_parse(struct tb_ksyms *k, const char *text, size_t len, const char *what,
		   bool bpf_only)
{
	char *copy = malloc(len + 1), *p, *nl;
	size_t line = 0;
	bool zero = true;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	memcpy(copy, text, len);
	copy[len] = '\0';
	if (bpf_only) {
		drop_bpf(k);
	} else {
		tb_ksyms_free(k);
	}
	for (p = copy; *p; p = nl ? nl + 1 : p + strlen(p)) {
		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		line++;
		if (!*p)
			continue;
		ret = parse_ksym_line(k, p, bpf_only, &zero);
		if (ret == -EINVAL)
			tb_err("%s:%zu: not a kallsyms line (expected 'address type name')", what,
			       line);
		if (ret)
			break;
		if (!nl)
			break;
	}
	if (!bpf_only)
		k->hidden = zero && line > 0;
	if (!ret && k->n) /* qsort's base may not be NULL, even for none (hidden kallsyms) */
		qsort(k->v, k->n, sizeof(*k->v), cmp_ksym);
	if (bpf_only || ret)
		free(copy);
	else
		k->text = copy;
	return ret;
}

int tb_ksyms_load(struct tb_ksyms *k, const char *path, bool bpf_only)
{
	char *text = NULL;
	size_t len = 0;
	int ret;

	path = path ? path : "/proc/kallsyms";
	ret = tb_read_file(path, &text, &len);
	if (ret) {
		tb_err("%s: cannot read the kernel's symbols: %s", path, strerror(-ret));
		free(text);
		return ret;
	}
	ret = tb_ksyms_parse(k, text, len, path, bpf_only);
	free(text);
	return ret;
}

/* Images of one program: "bpf_prog_<tag>_<name>" for the main one, "..._F<i>" for the others. */
static int add_prog(struct tb_ksyms *k, int fd)
{
	struct bpf_prog_info info = {0};
	uint64_t addrs[64] = {0};
	uint32_t lens[64] = {0}, len = sizeof(info), n;
	char name[128], tag[17];
	int added = 0, ret;

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	n = info.nr_jited_ksyms < 64 ? info.nr_jited_ksyms : 64;
	if (!n || info.nr_jited_func_lens < n)
		return 0; /* not JIT-compiled: nothing to name */
	memset(&info, 0, sizeof(info));
	info.nr_jited_ksyms = n;
	info.nr_jited_func_lens = n;
	info.jited_ksyms = (uint64_t)(uintptr_t)addrs;
	info.jited_func_lens = (uint64_t)(uintptr_t)lens;
	len = sizeof(info);
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	for (int i = 0; i < 8; i++)
		snprintf(tag + 2 * i, 3, "%02x", info.tag[i]);
	for (uint32_t i = 0; i < n; i++) {
		const char *nm;

		if (i)
			snprintf(name, sizeof(name), "bpf_prog_%s_F%u", tag, i);
		else
			snprintf(name, sizeof(name), "bpf_prog_%s_%s", tag, info.name);
		ret = keep_name(k, name, &nm);
		if (!ret)
			ret = push(k, (struct tb_ksym){addrs[i], lens[i], nm, true});
		if (ret)
			return ret;
		added++;
	}
	return added;
}

int tb_ksyms_add_bpf_info(struct tb_ksyms *k)
{
	uint32_t id = 0;
	int added = 0;

	while (!bpf_prog_get_next_id(id, &id)) {
		int fd = bpf_prog_get_fd_by_id(id), ret;

		if (fd < 0)
			continue; /* freed meanwhile */
		ret = add_prog(k, fd);
		close(fd);
		if (ret == -ENOMEM)
			return ret;
		if (ret > 0)
			added += ret;
	}
	if (errno != ENOENT && !added)
		return -errno;
	qsort(k->v, k->n, sizeof(*k->v), cmp_ksym);
	return added;
}

const struct tb_ksym *tb_ksyms_find(const struct tb_ksyms *k, uint64_t addr, uint64_t *off)
{
	size_t lo = 0, hi = k->n;
	const struct tb_ksym *s;

	while (lo < hi) { /* the first symbol above addr */
		size_t mid = lo + (hi - lo) / 2;

		if (k->v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	s = &k->v[lo - 1];
	*off = addr - s->addr;
	if (s->size)
		return *off < s->size ? s : NULL;
	if (*off >= TB_KSYM_MAX_GAP)
		return NULL;
	/* Past the end of the kernel's text, nearest-below means nothing. */
	if (k->text_end && s->addr < k->text_end && addr >= k->text_end)
		return NULL;
	return s;
}

void tb_ksyms_frame(const struct tb_ksyms *k, uint64_t addr, char *buf, size_t len)
{
	uint64_t off;
	const struct tb_ksym *s = tb_ksyms_find(k, addr, &off);

	if (s)
		snprintf(buf, len, "%s%s", s->name, TB_FOLD_KERNEL);
	else
		snprintf(buf, len, "0x%" PRIx64 "%s", addr, TB_FOLD_KERNEL);
	tb_fold_frame_clean(buf);
}

/* ---- mappings --------------------------------------------------------------------------- */

void tb_maps_init(struct tb_maps *m)
{
	memset(m, 0, sizeof(*m));
}

void tb_maps_free(struct tb_maps *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i].path);
	free(m->v);
	tb_maps_init(m);
}

int tb_maps_add(struct tb_maps *m, uint64_t start, uint64_t len, uint64_t pgoff, const char *path)
{
	uint64_t end = start + len;
	size_t i, k = 0;

	if (!len || end < start)
		return -EINVAL;
	for (i = 0; i < m->n; i++) { /* what the new mapping covers is gone */
		if (m->v[i].start < end && start < m->v[i].end)
			free(m->v[i].path);
		else
			m->v[k++] = m->v[i];
	}
	m->n = k;
	if (tb_array_reserve((void **)&m->v, &m->cap, m->n + 1, sizeof(*m->v), 32))
		return -ENOMEM;
	for (i = m->n; i > 0 && m->v[i - 1].start > start; i--)
		m->v[i] = m->v[i - 1];
	m->v[i] = (struct tb_map){start, end, pgoff, strdup(path)};
	if (!m->v[i].path) {
		memmove(&m->v[i], &m->v[i + 1], (m->n - i) * sizeof(*m->v));
		return -ENOMEM;
	}
	m->n++;
	return 0;
}

int tb_maps_copy(struct tb_maps *dst, const struct tb_maps *src)
{
	for (size_t i = 0; i < src->n; i++) {
		const struct tb_map *s = &src->v[i];
		int ret = tb_maps_add(dst, s->start, s->end - s->start, s->pgoff, s->path);

		if (ret)
			return ret;
	}
	return 0;
}

int tb_maps_parse(struct tb_maps *m, const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char line[4608], perms[8] = "", path[4096] = "";
		unsigned long long s, e, off;
		int ret;

		if (n < sizeof(line)) {
			memcpy(line, p, n);
			line[n] = '\0';
			if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095[^\n]", &s, &e, perms,
				   &off, path) < 4)
				return -EINVAL;
			/* Anonymous executable memory (a JIT) has no name to give. */
			if (strchr(perms, 'x') && path[0] && e > s) {
				ret = tb_maps_add(m, s, e - s, off, path);
				if (ret)
					return ret;
			}
		}
		p += n + 1;
	}
	return 0;
}

const struct tb_map *tb_maps_find(const struct tb_maps *m, uint64_t addr)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && addr < m->v[lo - 1].end ? &m->v[lo - 1] : NULL;
}

/* ---- user symbols (libdw) ---------------------------------------------------------------- */

/* One ELF file: its dwfl session (NULL when it could not be read) and load segments. */
struct ufile {
	char *path;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	GElf_Addr bias;
	struct {
		uint64_t off, filesz, vaddr;
	} seg[16];
	size_t nseg;
};

struct tb_usyms {
	struct ufile *f;
	size_t n, cap;
};

/* Local files only: no debuginfod, so that symbolising never touches the network. */
static char *debuginfo_path;
static const Dwfl_Callbacks offline_cb = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_build_id_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

struct tb_usyms *tb_usyms_new(void)
{
	return calloc(1, sizeof(struct tb_usyms));
}

void tb_usyms_free(struct tb_usyms *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->n; i++) {
		if (u->f[i].dwfl)
			dwfl_end(u->f[i].dwfl);
		free(u->f[i].path);
	}
	free(u->f);
	free(u);
}

/* Report path to a new dwfl and note its PT_LOAD segments. Leaves f->mod NULL on failure. */
static void ufile_open(struct ufile *f)
{
	size_t nph = 0;
	Elf *elf;

	if (access(f->path, R_OK))
		return;
	f->dwfl = dwfl_begin(&offline_cb);
	if (!f->dwfl)
		return;
	f->mod = dwfl_report_offline(f->dwfl, f->path, f->path, -1);
	dwfl_report_end(f->dwfl, NULL, NULL);
	elf = f->mod ? dwfl_module_getelf(f->mod, &f->bias) : NULL;
	if (!elf || elf_getphdrnum(elf, &nph)) {
		f->mod = NULL;
		return;
	}
	for (size_t i = 0; i < nph && f->nseg < TB_ARRAY_SIZE(f->seg); i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
			f->seg[f->nseg++] =
				(typeof(f->seg[0])){ph.p_offset, ph.p_filesz, ph.p_vaddr};
	}
}

static struct ufile *ufile_get(struct tb_usyms *u, const char *path)
{
	struct ufile *nf;

	for (size_t i = 0; i < u->n; i++)
		if (!strcmp(u->f[i].path, path))
			return &u->f[i];
	if (tb_array_reserve((void **)&u->f, &u->cap, u->n + 1, sizeof(*u->f), 16))
		return NULL;
	nf = &u->f[u->n];
	memset(nf, 0, sizeof(*nf));
	nf->path = strdup(path);
	if (!nf->path)
		return NULL;
	u->n++;
	ufile_open(nf);
	return nf;
}

int tb_usyms_lookup(struct tb_usyms *u, const char *path, uint64_t off, char *buf, size_t len)
{
	struct ufile *f = ufile_get(u, path);
	const char *name;

	if (!f || !f->mod)
		return -ENOENT;
	for (size_t i = 0; i < f->nseg; i++) {
		if (off < f->seg[i].off || off - f->seg[i].off >= f->seg[i].filesz)
			continue;
		name = dwfl_module_addrname(f->mod,
					    off - f->seg[i].off + f->seg[i].vaddr + f->bias);
		if (!name)
			return -ENOENT;
		snprintf(buf, len, "%s", name);
		return 0;
	}
	return -ENOENT;
}

void tb_usyms_frame(struct tb_usyms *u, const struct tb_maps *m, uint64_t addr, char *buf,
		    size_t len)
{
	const struct tb_map *map = m ? tb_maps_find(m, addr) : NULL;
	uint64_t off;

	if (!map) {
		snprintf(buf, len, "0x%" PRIx64, addr);
		return;
	}
	off = addr - map->start + map->pgoff;
	if (tb_usyms_lookup(u, map->path, off, buf, len)) {
		const char *base = strrchr(map->path, '/');

		snprintf(buf, len, "%s+0x%" PRIx64, base ? base + 1 : map->path, off);
	}
	tb_fold_frame_clean(buf);
}
