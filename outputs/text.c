// SPDX-License-Identifier: GPL-2.0
/* Short text of numbers and names (text.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "outputs/text.h"

const char *tb_fmt_num(char *buf, size_t len, double v, const char *fmt)
{
	if (isfinite(v))
		snprintf(buf, len, fmt, v);
	else
		snprintf(buf, len, "-");
	return buf;
}

const char *tb_fmt_count(char *buf, size_t len, int64_t v)
{
	if (v < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%lld", (long long)v);
	return buf;
}

const char *tb_fmt_ns(char *buf, size_t len, double ns)
{
	if (!isfinite(ns))
		snprintf(buf, len, "?");
	else if (fabs(ns) < 10)
		snprintf(buf, len, "%.2f ns", ns);
	else if (fabs(ns) < 1000)
		snprintf(buf, len, "%.0f ns", ns);
	else if (fabs(ns) < 1e6)
		snprintf(buf, len, "%.3g us", ns / 1e3);
	else if (fabs(ns) < 1e9)
		snprintf(buf, len, "%.3g ms", ns / 1e6);
	else
		snprintf(buf, len, "%.3g s", ns / 1e9);
	return buf;
}

const char *tb_fmt_bytes(char *buf, size_t len, int64_t bytes)
{
	double b = (double)bytes;

	if (bytes < 0)
		snprintf(buf, len, "-");
	else if (b < 1000)
		snprintf(buf, len, "%lld B", (long long)bytes);
	else if (b < 1e6)
		snprintf(buf, len, "%.3g kB", b / 1e3);
	else if (b < 1e9)
		snprintf(buf, len, "%.3g MB", b / 1e6);
	else
		snprintf(buf, len, "%.3g GB", b / 1e9);
	return buf;
}

const char *tb_shorten(char *buf, size_t len, const char *s, size_t max)
{
	if (!s)
		return "";
	if (strlen(s) <= max || len < 8)
		return s;
	if (max + 4 > len)
		max = len - 4;
	while (max > 0 && ((unsigned char)s[max] & 0xC0) == 0x80)
		max--;
	memcpy(buf, s, max);
	memcpy(buf + max, "...", 4);
	return buf;
}
