// SPDX-License-Identifier: GPL-2.0
/* Option parsing: units, ranges, argv splitting, defaults and errors. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "core/tb.h"
#include "tb_test.h"

static void test_sizes(void)
{
	uint64_t v;

	CU_ASSERT_EQUAL(tb_parse_size("4096", &v), 0);
	CU_ASSERT_EQUAL(v, 4096);
	CU_ASSERT_EQUAL(tb_parse_size("4K", &v), 0);
	CU_ASSERT_EQUAL(v, 4096);
	CU_ASSERT_EQUAL(tb_parse_size(" 1m ", &v), 0);
	CU_ASSERT_EQUAL(v, 1048576);
	CU_ASSERT_EQUAL(tb_parse_size("2G", &v), 0);
	CU_ASSERT_EQUAL(v, 2147483648ull);
	CU_ASSERT_EQUAL(tb_parse_size("1.5K", &v), 0);
	CU_ASSERT_EQUAL(v, 1536);
	CU_ASSERT_NOT_EQUAL(tb_parse_size("-1", &v), 0);
	CU_ASSERT_NOT_EQUAL(tb_parse_size("4Q", &v), 0);
	CU_ASSERT_NOT_EQUAL(tb_parse_size("", &v), 0);
	CU_ASSERT_NOT_EQUAL(tb_parse_size("0.5", &v), 0);
	CU_ASSERT_NOT_EQUAL(tb_parse_size("99999999999T", &v), 0);
}

static void test_durations(void)
{
	uint64_t v;

	CU_ASSERT_EQUAL(tb_parse_duration("2s", &v), 0);
	CU_ASSERT_EQUAL(v, 2000000000ull);
	/* A number without a unit is refused (500 ms or 500 s?), but 0 is 0 in every unit. */
	CU_ASSERT_EQUAL(tb_parse_duration("2", &v), -EDOM);
	CU_ASSERT_EQUAL(tb_parse_duration("500", &v), -EDOM);
	CU_ASSERT_EQUAL(tb_parse_duration("0", &v), 0);
	CU_ASSERT_EQUAL(v, 0);
	CU_ASSERT_EQUAL(tb_parse_duration("0.0", &v), 0);
	CU_ASSERT_EQUAL(tb_parse_duration("10ms", &v), 0);
	CU_ASSERT_EQUAL(v, 10000000ull);
	CU_ASSERT_EQUAL(tb_parse_duration("5us", &v), 0);
	CU_ASSERT_EQUAL(v, 5000ull);
	CU_ASSERT_EQUAL(tb_parse_duration("1m", &v), 0);
	CU_ASSERT_EQUAL(v, 60000000000ull);
	CU_ASSERT_EQUAL(tb_parse_duration("0.5s", &v), 0);
	CU_ASSERT_EQUAL(v, 500000000ull);
	CU_ASSERT_NOT_EQUAL(tb_parse_duration("2 parsecs", &v), 0);
	CU_ASSERT_NOT_EQUAL(tb_parse_duration("-2s", &v), 0);
	CU_ASSERT_NOT_EQUAL(tb_parse_duration("nan", &v), 0);
}

/* The refusal of a bare number names the fix, either way the user meant it. */
static void test_percent_why(void)
{
	char buf[200];

	CU_ASSERT_STRING_EQUAL(
		tb_percent_why(-EDOM, "max-overhead", "5", true, buf, sizeof(buf)),
		"max-overhead = 5: a bare number is ambiguous; write 5% (or 500% if 5 was meant as a fraction)");
	CU_ASSERT_STRING_EQUAL(
		tb_percent_why(-EDOM, "--max-regression", "0.03", true, buf, sizeof(buf)),
		"--max-regression 0.03: a bare number is ambiguous; write 0.03% (or 3% if 0.03 was meant as a fraction)");
	CU_ASSERT_STRING_EQUAL(tb_percent_why(-EINVAL, "max-cv", "lots", false, buf, sizeof(buf)),
			       "max-cv = lots: expected a percentage like 5%");
}

static void test_percent_bool_int(void)
{
	double d;
	bool b;
	int64_t i;

	CU_ASSERT_EQUAL(tb_parse_percent("1%", &d), 0);
	CU_ASSERT_DOUBLE_EQUAL(d, 0.01, 1e-12);
	CU_ASSERT_EQUAL(tb_parse_percent("0.5 %", &d), 0);
	CU_ASSERT_DOUBLE_EQUAL(d, 0.005, 1e-12);
	CU_ASSERT_EQUAL(tb_parse_percent("0", &d), 0); /* zero alone needs no unit */
	CU_ASSERT_DOUBLE_EQUAL(d, 0, 1e-12);
	/* A bare number is refused: 5 was read as 500% (issue 28); -EDOM says "no unit". */
	CU_ASSERT_EQUAL(tb_parse_percent("5", &d), -EDOM);
	CU_ASSERT_EQUAL(tb_parse_percent("0.05", &d), -EDOM);
	CU_ASSERT_EQUAL(tb_parse_percent("1.05x", &d), -EINVAL); /* a factor only for limits */
	CU_ASSERT_EQUAL(tb_parse_percent("-5%", &d), -ERANGE);
	CU_ASSERT_NOT_EQUAL(tb_parse_percent("5 percent", &d), 0);
	/* Limits: a percentage or a factor over the reference. */
	CU_ASSERT_EQUAL(tb_parse_threshold("5%", &d), 0);
	CU_ASSERT_DOUBLE_EQUAL(d, 0.05, 1e-12);
	CU_ASSERT_EQUAL(tb_parse_threshold("1.05x", &d), 0);
	CU_ASSERT_DOUBLE_EQUAL(d, 0.05, 1e-12);
	CU_ASSERT_EQUAL(tb_parse_threshold("2X", &d), 0);
	CU_ASSERT_DOUBLE_EQUAL(d, 1, 1e-12);
	CU_ASSERT_EQUAL(tb_parse_threshold("0.9x", &d), -ERANGE); /* a speedup is no limit */
	CU_ASSERT_EQUAL(tb_parse_threshold("5", &d), -EDOM);
	CU_ASSERT_EQUAL(tb_parse_threshold("5y", &d), -EINVAL);
	CU_ASSERT_EQUAL(tb_parse_bool("Yes", &b), 0);
	CU_ASSERT_TRUE(b);
	CU_ASSERT_EQUAL(tb_parse_bool("off", &b), 0);
	CU_ASSERT_FALSE(b);
	CU_ASSERT_NOT_EQUAL(tb_parse_bool("maybe", &b), 0);
	/* Decimal only: "0x10" is refused, "010" is ten (not octal eight). */
	CU_ASSERT_EQUAL(tb_parse_int("0x10", &i), -EINVAL);
	CU_ASSERT_EQUAL(tb_parse_int("010", &i), 0);
	CU_ASSERT_EQUAL(i, 10);
	CU_ASSERT_EQUAL(tb_parse_int("-12", &i), 0);
	CU_ASSERT_EQUAL(i, -12);
	CU_ASSERT_NOT_EQUAL(tb_parse_int("12abc", &i), 0);
	CU_ASSERT_EQUAL(tb_parse_int("99999999999999999999", &i), -ERANGE);
}

static void test_argv(void)
{
	struct tb_strlist l;

	CU_ASSERT_EQUAL(tb_split_argv("bpftrace -e 'tracepoint:a { @[tid] = 1; }'", &l), 0);
	CU_ASSERT_EQUAL(l.n, 3);
	if (l.n == 3) {
		CU_ASSERT_STRING_EQUAL(l.v[0], "bpftrace");
		CU_ASSERT_STRING_EQUAL(l.v[2], "tracepoint:a { @[tid] = 1; }");
		CU_ASSERT_PTR_NULL(l.v[3]);
	}
	tb_strlist_free(&l);
	CU_ASSERT_EQUAL(tb_split_argv("a\\ b \"c \\\"d\\\"\" ''", &l), 0);
	CU_ASSERT_EQUAL(l.n, 3);
	if (l.n == 3) {
		CU_ASSERT_STRING_EQUAL(l.v[0], "a b");
		CU_ASSERT_STRING_EQUAL(l.v[1], "c \"d\"");
		CU_ASSERT_STRING_EQUAL(l.v[2], "");
	}
	tb_strlist_free(&l);
	/* No expansion of anything a shell would expand. */
	CU_ASSERT_EQUAL(tb_split_argv("echo $HOME `id` ; rm", &l), 0);
	CU_ASSERT_EQUAL(l.n, 5);
	if (l.n == 5) {
		CU_ASSERT_STRING_EQUAL(l.v[1], "$HOME");
		CU_ASSERT_STRING_EQUAL(l.v[3], ";");
	}
	tb_strlist_free(&l);
	CU_ASSERT_EQUAL(tb_split_argv("echo 'unterminated", &l), -EINVAL);
	CU_ASSERT_EQUAL(l.n, 0);
}

static void test_list(void)
{
	struct tb_strlist l;

	CU_ASSERT_EQUAL(tb_split_list(" a, b ,c", &l), 0);
	CU_ASSERT_EQUAL(l.n, 3);
	if (l.n == 3)
		CU_ASSERT_STRING_EQUAL(l.v[1], "b");
	tb_strlist_free(&l);
	CU_ASSERT_EQUAL(tb_split_list("a,,b", &l), -EINVAL);
	CU_ASSERT_EQUAL(tb_split_list("", &l), 0);
	CU_ASSERT_EQUAL(l.n, 0);
}

struct cfg {
	char *path;
	int64_t count;
	uint64_t size;
	int mode;
	struct tb_strlist cmd;
	double frac;
};

static const char *const modes[] = {"discard", "stream", NULL};
static const struct tb_option opts[] = {
	{"path", TB_OPT_STRING, offsetof(struct cfg, path), "/tmp/x", "a path"},
	{"count", TB_OPT_INT, offsetof(struct cfg, count), "3", "a count", 1, 10},
	{"size", TB_OPT_SIZE, offsetof(struct cfg, size), "4K", "a size", 1, 1 << 20},
	{"mode", TB_OPT_CHOICE, offsetof(struct cfg, mode), "discard", "mode", 0, 0, modes},
	{"command", TB_OPT_ARGV, offsetof(struct cfg, cmd), NULL, "a command"},
	{"frac", TB_OPT_PERCENT, offsetof(struct cfg, frac), "1%", "a fraction"},
	TB_OPT_END,
};

static void test_table(void)
{
	struct cfg c = {0};
	char err[256];

	CU_ASSERT_EQUAL(tb_opts_defaults(opts, &c), 0);
	CU_ASSERT_STRING_EQUAL(c.path, "/tmp/x");
	CU_ASSERT_EQUAL(c.count, 3);
	CU_ASSERT_EQUAL(c.size, 4096);
	CU_ASSERT_EQUAL(c.mode, 0);
	CU_ASSERT_DOUBLE_EQUAL(c.frac, 0.01, 1e-12);
	CU_ASSERT_EQUAL(tb_opts_set(opts, &c, "mode", "stream", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(c.mode, 1);
	CU_ASSERT_EQUAL(tb_opts_set(opts, &c, "mode", "bogus", err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "discard"));
	CU_ASSERT_EQUAL(tb_opts_set(opts, &c, "count", "11", err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "out of range"));
	CU_ASSERT_EQUAL(c.count, 3);
	CU_ASSERT_EQUAL(tb_opts_set(opts, &c, "nosuch", "1", err, sizeof(err)), -ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "nosuch"));
	CU_ASSERT_EQUAL(tb_opts_set(opts, &c, "size", "2G", err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(tb_opts_set(opts, &c, "command", "sleep 1", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(c.cmd.n, 2);
	CU_ASSERT_EQUAL(tb_opts_set(opts, &c, "path", "/y", err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(c.path, "/y");
	tb_opts_free(opts, &c);
	CU_ASSERT_PTR_NULL(c.path);
	CU_ASSERT_EQUAL(c.cmd.n, 0);
}

/* The narrow integer kinds fill an unsigned int or an int exactly, and a table whose range
 * would not fit the field's type is refused. */
struct narrow {
	unsigned int n;
	int cpu;
	unsigned int guard; /* a write wider than the field would land here */
};

static void test_narrow_ints(void)
{
	static const struct tb_option ok[] = {
		{"n", TB_OPT_UINT, offsetof(struct narrow, n), "7", "a count", 1, 4294967295.0},
		{"cpu", TB_OPT_SINT, offsetof(struct narrow, cpu), "-1", "a CPU", -1, 4095},
		TB_OPT_END,
	};
	static const struct tb_option no_range[] = {
		{"n", TB_OPT_UINT, offsetof(struct narrow, n), NULL, "a count"}, TB_OPT_END};
	static const struct tb_option negative[] = {
		{"n", TB_OPT_UINT, offsetof(struct narrow, n), NULL, "a count", -1, 10},
		TB_OPT_END};
	static const struct tb_option too_wide[] = {
		{"cpu", TB_OPT_SINT, offsetof(struct narrow, cpu), NULL, "a CPU", 0, 4294967295.0},
		TB_OPT_END};
	struct narrow c = {.guard = 0xdeadbeef};
	char err[256];
	json_t *j;

	CU_ASSERT_EQUAL(tb_opts_check(ok, sizeof(c), err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(tb_opts_check(no_range, sizeof(c), err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "unsigned int"));
	CU_ASSERT_EQUAL(tb_opts_check(negative, sizeof(c), err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(tb_opts_check(too_wide, sizeof(c), err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(tb_opts_defaults(ok, &c), 0);
	CU_ASSERT_EQUAL(c.n, 7);
	CU_ASSERT_EQUAL(c.cpu, -1);
	CU_ASSERT_EQUAL(tb_opts_set(ok, &c, "n", "4294967295", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(c.n, 4294967295u);
	CU_ASSERT_EQUAL(tb_opts_set(ok, &c, "n", "4294967296", err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "out of range"));
	CU_ASSERT_EQUAL(tb_opts_set(ok, &c, "n", "0", err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(c.n, 4294967295u);
	CU_ASSERT_EQUAL(tb_opts_set(ok, &c, "cpu", "4095", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(c.cpu, 4095);
	CU_ASSERT_EQUAL(tb_opts_set(ok, &c, "cpu", "-2", err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(tb_opts_set(ok, &c, "cpu", "1.5", err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(c.cpu, 4095);
	CU_ASSERT_EQUAL(c.guard, 0xdeadbeef);
	CU_ASSERT_STRING_EQUAL(tb_opt_type_name(TB_OPT_UINT), "int");
	CU_ASSERT_STRING_EQUAL(tb_opt_type_name(TB_OPT_SINT), "int");
	j = tb_opts_to_json(ok, &c);
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(j, "n")), 4294967295ll);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(j, "cpu")), 4095);
	json_decref(j);
}

/* [limit]'s rate and --find-limit's RATE: a number with k/M/G and an optional /s, above 0. */
static void test_rate(void)
{
	static const char *const bad[] = {"", "fast", "0", "-3", "1e5x", "2kk", "1M/min", "k"};
	static const struct {
		const char *s;
		double v;
	} good[] = {{"200000", 2e5}, {"200k", 2e5}, {"1M/s", 1e6}, {" 1.5G ", 1.5e9}};
	double d;

	for (size_t i = 0; i < TB_ARRAY_SIZE(good); i++) {
		CU_ASSERT_EQUAL(tb_parse_rate(good[i].s, &d), 0);
		CU_ASSERT_DOUBLE_EQUAL(d, good[i].v, 1e-6 * good[i].v);
	}
	for (size_t i = 0; i < TB_ARRAY_SIZE(bad); i++) {
		d = 7;
		CU_ASSERT_EQUAL(tb_parse_rate(bad[i], &d), -EINVAL);
		CU_ASSERT_DOUBLE_EQUAL(d, 7, 0);
	}
}

static CU_TestInfo tests[] = {
	{"sizes", test_sizes},
	{"durations", test_durations},
	{"percent, bool, int", test_percent_bool_int},
	{"a bare fraction is refused with its fix", test_percent_why},
	{"argv splitting", test_argv},
	{"comma lists", test_list},
	{"option table", test_table},
	{"unsigned int and int fields", test_narrow_ints},
	{"an event rate", test_rate},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("core-options", NULL, NULL, tests);
