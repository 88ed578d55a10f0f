#!/bin/bash
# compare and gate work from result files alone, without root: exit codes, outputs, and bad
# input refused with exit 2 naming the file and the key. Runs as nobody when we are root.
. "$(dirname "$0")/lib.sh"
FIX=${TB_ROOT:?}/tests/data/results
W=$TMP/w
mkdir -p "$W"
cp "$FIX"/*.json "$W"/
AS=()
if [ "$(id -u)" -eq 0 ]; then
	chmod 0711 "$TMP"
	chmod 0777 "$W"
	chmod 0644 "$W"/*.json
	AS=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	"${AS[@]}" sh -c '[ "$(id -u)" -eq 65534 ]' || fail "cannot run as nobody"
fi
run() { expect_exit "$@"; }
cd "$W" || fail "cd $W"

# compare: fingerprint diff, matched cells, cells on one side only
run 0 "${AS[@]}" "$TB" compare a.json b.json
grep -q 'kernel.release .*6.18.0 -> 6.19.0' "$TMP/out" || fail "no kernel diff: $(cat "$TMP/out")"
grep -q '^getpid/none' "$TMP/out" || fail "no baseline row"
grep -q 'environment: 3 environment fields differ' "$TMP/out" || fail "wrong difference count: $(grep environment "$TMP/out")"
grep -q 'loadavg' "$TMP/out" && fail "transient load average listed as a difference"
grep -q 'only in A: read/none, read/bpf' "$TMP/out" || fail "cells only in A not listed"
grep -q 'only in B: pipe/none, pipe/tp' "$TMP/out" || fail "cells only in B not listed"
run 0 "${AS[@]}" "$TB" compare a.json b.json --json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["cells"]) == 2, d' \
	"$TMP/out" || fail "compare --json is not the expected JSON"
run 0 "${AS[@]}" "$TB" compare a.json b.json c-otherhw.json --json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d) == 2' "$TMP/out" ||
	fail "compare of three files is not an array of two comparisons"
run 0 "${AS[@]}" "$TB" compare --markdown a.json b.json
grep -q '^| cell | ns/op A' "$TMP/out" || fail "no Markdown table"
# compare --html: one self-contained page with every matched cell, nothing external
run 0 "${AS[@]}" "$TB" compare a.json b.json --html "$W/cmp.html"
[ -s "$W/cmp.html" ] || fail "compare --html wrote nothing"
grep -qiE '<script|<link|src="http|href="http' "$W/cmp.html" && fail "compare --html references something external"
grep -q '</html>' "$W/cmp.html" || fail "compare --html is not a whole page"
# The text and the page say the same about the environments (one summary, harness/stats/compare.c).
grep -q '3 environment fields differ' "$W/cmp.html" || fail "compare --html and the text disagree on the environment"
run 2 "${AS[@]}" "$TB" compare a.json c-otherhw.json --require-same-host
grep -q 'different hardware: cpu.model' "$TMP/err" || fail "hardware refusal without reason"
run 0 "${AS[@]}" "$TB" compare a.json c-otherhw.json

# bad input: exit 2, the file and the problem named
for f in bad-*.json; do
	run 2 "${AS[@]}" "$TB" compare a.json "$f"
	grep -q "$f" "$TMP/err" || fail "compare: $f not named: $(cat "$TMP/err")"
	run 2 "${AS[@]}" "$TB" gate "$f"
	grep -q "$f" "$TMP/err" || fail "gate: $f not named: $(cat "$TMP/err")"
done
run 2 "${AS[@]}" "$TB" gate bad-type.json
grep -q 'bad-type.json: cells\[1\].samples\[3\].ns_per_op: expected a number' "$TMP/err" ||
	fail "key path not named: $(cat "$TMP/err")"
run 2 "${AS[@]}" "$TB" gate bad-malformed.json
grep -q 'bad-malformed.json:2:[0-9]*: malformed JSON' "$TMP/err" || fail "no line:column"
run 2 "${AS[@]}" "$TB" gate bad-schema.json
grep -q 'unsupported schema' "$TMP/err" || fail "wrong schema not named"
run 2 "${AS[@]}" "$TB" gate bad-huge.json
grep -q 'too many elements' "$TMP/err" || fail "enormous array not refused"
run 2 "${AS[@]}" "$TB" gate missing.json
run 2 "${AS[@]}" "$TB" gate pass.json --max-overhead lots

# gate: exit codes
run 0 "${AS[@]}" "$TB" gate pass.json
run 1 "${AS[@]}" "$TB" gate fail.json
grep -q 'FAIL  getpid/tp .*exceeds max-overhead 5%' "$TMP/out" || fail "no failure reason"
run 0 "${AS[@]}" "$TB" gate fail.json --max-overhead 50%
run 1 "${AS[@]}" "$TB" gate untrustworthy.json
grep -q 'events lost' "$TMP/out" || fail "untrustworthy without reason"
run 0 "${AS[@]}" "$TB" gate untrustworthy.json --allow-untrustworthy
run 1 "${AS[@]}" "$TB" gate regressed.json --baseline pass.json
grep -q 'regressed by more than max-regression 3%' "$TMP/out" || fail "no regression reason"
run 0 "${AS[@]}" "$TB" gate pass.json --baseline pass.json

# CI outputs
run 1 "${AS[@]}" "$TB" gate fail.json --junit j.xml --markdown s.md --benchmark-json b.json
python3 - "$W/j.xml" <<'PY' || fail "JUnit XML is not well-formed or wrong"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
cases = root.findall(".//testcase")
assert root.tag == "testsuites" and len(cases) == 2, root
assert len(root.findall(".//failure")) == 1
assert "max-overhead" in root.find(".//failure").get("message")
PY
grep -q 'tracebench gate: ❌ failed' s.md || fail "no Markdown summary"
python3 - "$W/b.json" <<'PY' || fail "benchmark JSON is wrong"
import json, sys
d = json.load(open(sys.argv[1]))
assert isinstance(d, list) and d
for e in d:
    assert isinstance(e["name"], str) and isinstance(e["unit"], str)
    assert isinstance(e["value"], (int, float)) and isinstance(e["extra"], str)
PY
[ "$(stat -c %a j.xml)" = 644 ] || fail "JUnit file mode $(stat -c %a j.xml)"
exit 0
