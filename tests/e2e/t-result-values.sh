#!/bin/bash
# Crafted values in result files through the commands (issue 14, items 2 and 6): a sample's
# ns_per_op of 1e100 or 1e308 is refused by gate, compare, plot and report with exit 2 naming
# the key (it used to abort gate and compare in GSL, exit 134); values at the reader's bound go
# through gnuplot; ESC sequences in a result never reach the terminal, the report or the plot
# data raw. tests/unit/model-json-values.c covers every numeric key in-process.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "python3 not installed"
FIX=${TB_ROOT:?}/tests/data/results
nfail=0
problem() { echo "FAIL: $*" >&2; nfail=$((nfail + 1)); }

# set_value IN OUT PYTHON-ASSIGNMENT (d is the document)
set_value() {
	python3 - "$1" "$2" "$3" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
PY
}

for v in 1e100 1e308 -1e100; do
	set_value "$FIX/a.json" "$TMP/v.json" "d['cells'][1]['samples'][3]['ns_per_op'] = $v"
	for c in "gate $TMP/v.json" "compare $FIX/a.json $TMP/v.json" "compare $TMP/v.json $FIX/b.json" \
		"gate $FIX/a.json --baseline $TMP/v.json" "plot $TMP/v.json -o $TMP/p" \
		"report $TMP/v.json -o $TMP/r.html"; do
		# shellcheck disable=SC2086
		"$TB" $c >"$TMP/out" 2>"$TMP/err"
		rc=$?
		[ $rc -eq 2 ] || problem "ns_per_op = $v: '$c' exited $rc, expected 2: $(head -c 300 "$TMP/err")"
		grep -q 'cells\[1\].samples\[3\].ns_per_op' "$TMP/err" ||
			problem "ns_per_op = $v: '$c' does not name the key: $(head -c 300 "$TMP/err")"
	done
done

# At the bound: accepted, analysed, plotted and reported.
set_value "$FIX/plot-fixture.json" "$TMP/bound.json" \
	"d['cells'][1]['samples'][3]['ns_per_op'] = 1e15; d['cells'][0]['samples'][3]['ns_per_op'] = 1e-3"
expect_exit 1 "$TB" gate "$TMP/bound.json"
expect_exit 0 "$TB" compare "$TMP/bound.json" "$FIX/plot-fixture.json"
expect_exit 0 "$TB" report "$TMP/bound.json" -o "$TMP/bound.html"
if command -v gnuplot >/dev/null; then
	expect_exit 0 "$TB" plot "$TMP/bound.json" -o "$TMP/bp"
	[ -s "$TMP/bp/plots/overhead.svg" ] || problem "no overhead.svg at the bound"
fi

# ESC sequences (and a C1 CSI) in names, warnings, the environment and a cell's error.
set_value "$FIX/plot-fixture.json" "$TMP/esc.json" "
e = '\x1b[2J\x1b]0;owned\x07\u009b31m'
d['cells'][1]['tracer'] = 'tp' + e
d['cells'][1]['id'] = d['cells'][1]['workload'] + '/' + d['cells'][1]['tracer']
d['cells'][2]['error'] = 'failed' + e
d.setdefault('warnings', []).append('warn' + e)
d['system']['hostname'] = 'host' + e
d['scenario']['text'] = '[global]' + e
"
raw_esc() { # FILE...: do any hold a raw ESC, BEL or C1 CSI?
	grep -qP '\x1b|\x07|\xc2\x9b' "$@" 2>/dev/null
}
for c in "gate $TMP/esc.json" "compare $FIX/plot-fixture.json $TMP/esc.json" \
	"report $TMP/esc.json -o $TMP/esc.html" "plot $TMP/esc.json -o $TMP/ep"; do
	# shellcheck disable=SC2086
	"$TB" $c >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ $rc -le 2 ] || problem "'$c' crashed with $rc"
	raw_esc "$TMP/out" "$TMP/err" && problem "'$c' printed a raw control sequence"
done
raw_esc "$TMP/esc.html" && problem "report.html holds a raw control sequence"
grep -q 'tp\\x1b\[2J' "$TMP/esc.html" || problem "report.html does not show the escaped name"
[ -d "$TMP/ep/plots/data" ] && raw_esc "$TMP/ep/plots/data/"*.dat && problem "plot data hold a raw control sequence"

[ $nfail -eq 0 ] || fail "$nfail problems"
exit 0
