// SPDX-License-Identifier: GPL-2.0
/*
 * Probe sites of an ELF file (host/elf-sites.h), through libelf: the symbol tables, the
 * program headers and the .note.stapsdt notes that sys/sdt.h writes (one per USDT probe: its
 * address, the prelink base, the semaphore, then "provider\0name\0arguments\0").
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "host/elf-sites.h"
#include "core/events.h"

#define STAPSDT_NOTE_TYPE 3

/* An opened ELF file: 0, or -errno with the reason in err. */
static int elf_open(const char *path, int *fd, Elf **e, char *err, size_t len)
{
	if (elf_version(EV_CURRENT) == EV_NONE) {
		snprintf(err, len, "libelf: %s", elf_errmsg(-1));
		return -EINVAL;
	}
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0) {
		int ret = -errno;

		snprintf(err, len, "cannot open '%s': %s", path, strerror(-ret));
		return ret;
	}
	*e = elf_begin(*fd, ELF_C_READ, NULL);
	if (!*e || elf_kind(*e) != ELF_K_ELF) {
		snprintf(err, len, "'%s' is not an ELF file: %s", path, elf_errmsg(-1));
		elf_end(*e);
		close(*fd);
		return -EINVAL;
	}
	return 0;
}

/* The file offset of address addr through the PT_LOAD segment holding it (exec only). */
static bool addr_offset(Elf *e, GElf_Addr addr, bool exec, uint64_t *off)
{
	GElf_Phdr ph;
	size_t n;

	if (elf_getphdrnum(e, &n))
		return false;
	for (size_t i = 0; i < n; i++) {
		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    (exec && !(ph.p_flags & PF_X)) || addr < ph.p_vaddr ||
		    addr >= ph.p_vaddr + ph.p_memsz)
			continue;
		*off = addr - ph.p_vaddr + ph.p_offset;
		return true;
	}
	return false;
}

/*
 * Walk the function symbols of .symtab and .dynsym: fn(name, value, arg) until it returns
 * true. Returns whether one did.
 */
static bool each_function(Elf *e, bool (*fn)(const char *, GElf_Addr, void *), void *arg)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym s;
	Elf_Data *d;
	const char *name;

	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		d = elf_getdata(scn, NULL);
		size_t n = d && sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;

		for (size_t i = 0; i < n; i++) {
			if (!gelf_getsym(d, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC ||
			    !s.st_value)
				continue;
			name = elf_strptr(e, sh.sh_link, s.st_name);
			if (name && fn(name, s.st_value, arg))
				return true;
		}
	}
	return false;
}

struct by_name {
	const char *sym;
	GElf_Addr addr;
};

static bool match_name(const char *name, GElf_Addr value, void *arg)
{
	struct by_name *b = arg;

	if (strcmp(name, b->sym))
		return false;
	b->addr = value;
	return true;
}

int tb_elf_symbol_offset(const char *path, const char *sym, uint64_t *off, char *err, size_t len)
{
	struct by_name b = {.sym = sym};
	int fd, ret;
	Elf *e;

	ret = elf_open(path, &fd, &e, err, len);
	if (ret)
		return ret;
	ret = -ENOENT;
	if (!each_function(e, match_name, &b))
		snprintf(err, len, "no function '%s' in '%s'", sym, path);
	else if (!addr_offset(e, b.addr, true, off))
		snprintf(err, len, "'%s' at 0x%llx in '%s' lies in no executable segment", sym,
			 (unsigned long long)b.addr, path);
	else
		ret = 0;
	elf_end(e);
	close(fd);
	return ret;
}

struct by_offset {
	Elf *e;
	uint64_t off;
	const char *name;
};

static bool match_offset(const char *name, GElf_Addr value, void *arg)
{
	struct by_offset *b = arg;
	uint64_t off;

	if (!addr_offset(b->e, value, true, &off) || off != b->off)
		return false;
	b->name = name;
	return true;
}

/* The .stapsdt.base section's address (prelink moves it and the notes record the old), or 0. */
static GElf_Addr sdt_base(Elf *e)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t shstr;
	const char *name;

	if (elf_getshdrstrndx(e, &shstr))
		return 0;
	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(e, shstr, sh.sh_name);
		if (name && !strcmp(name, ".stapsdt.base"))
			return sh.sh_addr;
	}
	return 0;
}

/* The USDT probe at file offset off, as "usdt:provider:name" into out. */
static bool usdt_at(Elf *e, uint64_t off, char *out, size_t len)
{
	GElf_Addr base = sdt_base(e);
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Nhdr nh;
	size_t pos, name_off, desc_off;
	Elf_Data *d;

	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		for (pos = 0; (pos = gelf_getnote(d, pos, &nh, &name_off, &desc_off)) > 0;) {
			const char *desc = (const char *)d->d_buf + desc_off, *prov, *probe;
			uint64_t v[3], at;
			size_t plen;

			if (nh.n_type != STAPSDT_NOTE_TYPE || nh.n_namesz != 8 ||
			    memcmp((const char *)d->d_buf + name_off, "stapsdt", 8) ||
			    nh.n_descsz < sizeof(v) + 2 || desc[nh.n_descsz - 1] != '\0')
				continue;
			memcpy(v, desc, sizeof(v));
			prov = desc + sizeof(v);
			plen = strlen(prov);
			if (sizeof(v) + plen + 1 >= nh.n_descsz)
				continue;
			probe = prov + plen + 1;
			/* v[0] the probe's address, v[1] .stapsdt.base's when it was linked */
			if (!addr_offset(e, v[0] + (base && v[1] ? base - v[1] : 0), true, &at) ||
			    at != off)
				continue;
			return snprintf(out, len, "%s%s:%s", TB_EV_USDT, prov, probe) < (int)len;
		}
	}
	return false;
}

int tb_elf_site_name(const char *path, uint64_t off, bool ret, char *out, size_t len)
{
	struct by_offset b = {.off = off};
	char err[256];
	int fd, r;
	Elf *e;

	r = elf_open(path, &fd, &e, err, sizeof(err));
	if (r)
		return r;
	b.e = e;
	r = -ENOENT;
	if (!ret && usdt_at(e, off, out, len))
		r = 0;
	else if (each_function(e, match_offset, &b) &&
		 snprintf(out, len, "%s%s", ret ? TB_EV_URETPROBE : TB_EV_UPROBE, b.name) <
			 (int)len)
		r = 0;
	elf_end(e);
	close(fd);
	return r;
}
