#!/bin/bash
# The layout cannot drift from doc/architecture.md (issue 26): tools/check-layout.py passes on the
# tree, and fails on a copy of it with a file added without its row, with a row whose file is
# gone, with a file over 1,000 lines, with a circle of calls, with a tracer type named in stats/
# and with a prefix declared in two rooms.
. "$(dirname "$0")/lib.sh"
CHECK=$TB_ROOT/tools/check-layout.py
[ -f "$CHECK" ] && [ -d "$TB_ROOT/harness" ] || skip "no source tree"
python3 "$CHECK" "$TB_ROOT" >"$TMP/out" 2>&1 || { cat "$TMP/out"; fail "the tree breaks its layout rules"; }
# A copy of the sources and the document, broken one way at a time.
copy() {
	rm -rf "$TMP/tree"
	mkdir -p "$TMP/tree/doc"
	cp -r "$TB_ROOT/harness" "$TB_ROOT/workloads" "$TB_ROOT/tools" "$TMP/tree/"
	cp "$TB_ROOT/doc/architecture.md" "$TMP/tree/doc/"
}
breaks() { # breaks WHAT PATTERN: the check fails and says PATTERN
	if python3 "$CHECK" "$TMP/tree" >"$TMP/out" 2>&1; then fail "$1: the check passed"; fi
	grep -qF -- "$2" "$TMP/out" || { cat "$TMP/out"; fail "$1: no '$2' in the check's output"; }
}
copy
printf '/* new */\nint tb_stats_new(void);\n' >"$TMP/tree/harness/stats/new.h"
breaks "a file without its row" "harness/stats/new.h: no row in doc/architecture.md's rooms table"
copy
rm "$TMP/tree/harness/core/strlist.c"
breaks "a row whose file is gone" "names harness/core/strlist.c, which does not exist"
copy
yes '/* x */' | head -n 1001 >>"$TMP/tree/harness/plan/plan.c"
breaks "a file too long" "harness/plan/plan.c: "
copy
printf 'void tb_compare_x(void)\n{\n\ttb_gate_y();\n}\n' >>"$TMP/tree/harness/stats/compare.c"
printf 'void tb_gate_y(void)\n{\n\ttb_compare_x();\n}\n' >>"$TMP/tree/harness/stats/gate.c"
breaks "a circle of calls" "circle between files (includes and calls): harness/stats/compare <-> harness/stats/gate"
copy
echo 'static const char *t = "perf-sample";' >>"$TMP/tree/harness/stats/gate.c"
breaks "a tracer type in stats/" "harness/stats/gate.c:"
copy
printf 'struct tb_gate_new {\n\tint x;\n};\n' >>"$TMP/tree/harness/render/text.h"
breaks "a prefix in two rooms" "prefix tb_gate_ is declared in 2 rooms"
exit 0
