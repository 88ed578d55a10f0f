#!/bin/bash
# README's "A scenario" runs and plots cleanly (issue 15: gnuplot 5.4.4 segfaulted on its
# ns-per-event plot, the run exited 0 with a 0-byte PNG and an empty figure in the report).
# The scenario is taken from README.md itself, run with --quick.
. "$(dirname "$0")/lib.sh"
need_root
command -v gnuplot >/dev/null || skip "gnuplot not installed"
[ -f "$TB_ROOT/README.md" ] || skip "no source tree"
export TB_STATE_DIR=$TMP/state
awk '/^### A scenario/ {s = 1} s && /^```ini/ {i = 1; next} i && /^```/ {exit} i' \
	"$TB_ROOT/README.md" >"$TMP/readme.ini"
grep -q '^\[matrix\]' "$TMP/readme.ini" || fail "no scenario found in README.md"
"$TB" run "$TMP/readme.ini" --quick -o "$TMP/r" >"$TMP/out" 2>"$TMP/err" ||
	{ cat "$TMP/out" "$TMP/err"; fail "README's scenario: run failed"; }
grep -qi "plot.*failed\|gnuplot" "$TMP/err" && { cat "$TMP/err"; fail "plots failed"; }
ls "$TMP/r/plots/"*.failed >/dev/null 2>&1 && fail "a plot failed: $(cat "$TMP/r/plots/"*.failed)"
for f in "$TMP/r/plots/"*.png "$TMP/r/plots/"*.svg; do
	[ -s "$f" ] && [ "$(stat -c %s "$f")" -gt 1000 ] || fail "$(basename "$f") is empty"
done
[ "$(ls "$TMP/r/plots/"*.png | wc -l)" -ge 4 ] || fail "fewer than 4 plots: $(ls "$TMP/r/plots")"
grep -q "plot failed" "$TMP/r/report.html" && fail "the report shows a failed plot"
grep -q '<figure id="plot-ns-per-event">' "$TMP/r/report.html" || fail "no ns-per-event figure in the report"
exit 0
