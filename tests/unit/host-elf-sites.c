// SPDX-License-Identifier: GPL-2.0
/*
 * host/elf-sites.h on this test binary, which links the usercall workload: a function's file
 * offset and back, its USDT probes found where sys/sdt.h put them (inside the function, not at
 * its entry), an offset inside a function names nothing, and a file that is not ELF is refused.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/tb.h"
#include "host/elf-sites.h"
#include "tb_test.h"
#include "workloads/usercall.h"

static char self[PATH_MAX];

static int setup(void)
{
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		return -1;
	self[n] = '\0';
	return 0;
}

static void test_function(void)
{
	char err[256], name[128];
	uint64_t off = 0;

	CU_ASSERT_EQUAL_FATAL(
		tb_elf_symbol_offset(self, TB_USERCALL_SYMBOL, &off, err, sizeof(err)), 0);
	CU_ASSERT(off > 0);
	CU_ASSERT_EQUAL(tb_elf_site_name(self, off, false, name, sizeof(name)), 0);
	CU_ASSERT_STRING_EQUAL(name, TB_EV_UPROBE TB_USERCALL_SYMBOL);
	CU_ASSERT_EQUAL(tb_elf_site_name(self, off, true, name, sizeof(name)), 0);
	CU_ASSERT_STRING_EQUAL(name, TB_EV_URETPROBE TB_USERCALL_SYMBOL);
	/* a name that does not fit is not cut into another one */
	CU_ASSERT_EQUAL(tb_elf_site_name(self, off, false, name, 8), -ENOENT);

	CU_ASSERT_EQUAL(tb_elf_symbol_offset(self, "tb_no_such_function", &off, err, sizeof(err)),
			-ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "no function 'tb_no_such_function'"));
	CU_ASSERT_EQUAL(tb_elf_symbol_offset("/proc/self/status", "x", &off, err, sizeof(err)),
			-EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "not an ELF file"));
	CU_ASSERT_EQUAL(tb_elf_symbol_offset("/nonexistent/elf", "x", &off, err, sizeof(err)),
			-ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "cannot open '/nonexistent/elf'"));
	CU_ASSERT_EQUAL(tb_elf_site_name("/nonexistent/elf", 0, false, name, sizeof(name)),
			-ENOENT);
}

/*
 * The one offset in the first bytes from fn's entry (the next function's probes may follow)
 * that names want, or 0 (none, or more than one).
 */
static uint64_t usdt_in(const char *fn, const char *want)
{
	uint64_t off = 0, found = 0;
	char err[256], name[128];
	int n = 0;

	if (tb_elf_symbol_offset(self, fn, &off, err, sizeof(err)))
		return 0;
	for (uint64_t o = off; o < off + 512; o++) {
		if (tb_elf_site_name(self, o, false, name, sizeof(name)) || strcmp(name, want))
			continue;
		found = o;
		n++;
	}
	return n == 1 ? found : 0;
}

static void test_usdt(void)
{
	char name[128];
	uint64_t at;

	at = usdt_in(TB_USERCALL_SYMBOL,
		     TB_EV_USDT TB_USERCALL_USDT_PROVIDER ":" TB_USERCALL_USDT_NAME);
	CU_ASSERT(at > 0);
	/* a return probe is never a USDT: what starts there is not a function either */
	CU_ASSERT_EQUAL(tb_elf_site_name(self, at, true, name, sizeof(name)), -ENOENT);
	CU_ASSERT(usdt_in(TB_USERCALL_USDT5_SYMBOL,
			  TB_EV_USDT TB_USERCALL_USDT_PROVIDER ":" TB_USERCALL_USDT5_NAME) > 0);
	/* an offset past the file's executable code names nothing */
	CU_ASSERT_EQUAL(tb_elf_site_name(self, UINT64_MAX / 2, false, name, sizeof(name)), -ENOENT);
}

static CU_TestInfo elf_sites_tests[] = {
	{"a function's offset and back", test_function},
	{"USDT probes where sys/sdt.h put them", test_usdt},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("host-elf-sites", setup, NULL, elf_sites_tests);
