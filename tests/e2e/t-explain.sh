#!/bin/bash
# Where the overhead lands: `tracebench explain` re-renders a result's stored profiles without
# root (known answers from a fixture), refuses bad folded files, bad directories and links;
# the report carries the table and the flame graph, which a headless chromium lays out
# (tests/e2e/browser-check.js's DOM check of the SVG); and as root a real `run --explain` puts
# a tracepoint's, a BPF program's and a known spin's costs where they belong.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "python3 not installed"
FIX=$TB_ROOT/tests/data/explain/run
cp -r "$FIX" "$TMP/run"

# 1. Re-rendered from the folded files: the table, the share, the graphs.
expect_exit 0 "$TB" explain "$TMP/run/result.json"
grep -q "^getpid/tp: the profile explains 100% of the measured overhead (+60.0 of +60.0 ns/op" \
	"$TMP/out" || { cat "$TMP/out"; fail "no explained share"; }
grep -q "+60.0 ( 100%)     +60.0 ( 100%) trace_event_raw_event_sys_enter \[kernel\]" \
	"$TMP/out" || { cat "$TMP/out"; fail "the added function is not first"; }
grep -q "limit: a limit the run met" "$TMP/out" || fail "the run's limits are not said"
for f in diff.svg traced.svg; do
	[ -s "$TMP/run/explain/getpid.tp/$f" ] || fail "$f not written"
done
grep -q "<title>trace_event_raw_event_sys_enter \[kernel\]: 60.0 ns/op" \
	"$TMP/run/explain/getpid.tp/diff.svg" || fail "diff.svg lacks the frame's figures"
expect_exit 0 "$TB" explain "$TMP/run/result.json" --json --top 3
python3 - "$TMP/out" <<'PY' || fail "--json: wrong recomputed object"
import json, sys
e = json.load(open(sys.argv[1]))["getpid/tp"]
assert abs(e["added_ns_per_op"] - 60) < 1e-9, e["added_ns_per_op"]
assert e["explained"] and e["attributable"]
assert e["functions"][0]["name"] == "trace_event_raw_event_sys_enter"
assert e["functions"][0]["where"] == "kernel"
assert e["files"]["diff_svg"] == "explain/getpid.tp/diff.svg"
PY
expect_exit 0 "$TB" explain "$TMP/run/result.json" -o "$TMP/graphs"
[ -s "$TMP/graphs/getpid.tp/diff.svg" ] || fail "-o DIR not honoured"
expect_exit 2 "$TB" explain "$TMP/run/result.json" --cell getpid/none
grep -q "no explained cell of that id" "$TMP/err" || fail "unknown cell not said"
expect_exit 2 "$TB" explain "$TMP/run/result.json" --top 0
expect_exit 2 "$TB" explain
expect_exit 2 "$TB" explain "$TMP/nope.json"

# 2. Bad input: a folded file (file:line), a directory outside the run, a link.
cp -r "$FIX" "$TMP/bad"
echo 'tracebench;main;;x 3' >>"$TMP/bad/explain/getpid.tp/traced.folded"
expect_exit 2 "$TB" explain "$TMP/bad/result.json"
grep -q "traced.folded:4: empty frame 3" "$TMP/err" || { cat "$TMP/err"; fail "no file:line"; }
cp -r "$FIX" "$TMP/esc"
sed -i 's#"explain/getpid.tp"#"explain/../../etc"#' "$TMP/esc/result.json"
expect_exit 2 "$TB" explain "$TMP/esc/result.json"
grep -q "cells\[1\].explain: dir" "$TMP/err" || { cat "$TMP/err"; fail "escaping dir accepted"; }
cp -r "$FIX" "$TMP/lnk"
mv "$TMP/lnk/explain/getpid.tp" "$TMP/elsewhere"
ln -s "$TMP/elsewhere" "$TMP/lnk/explain/getpid.tp"
expect_exit 2 "$TB" explain "$TMP/lnk/result.json"
grep -q "is a symbolic link" "$TMP/err" || { cat "$TMP/err"; fail "wrote through a link"; }
[ ! -e "$TMP/elsewhere/diff.svg" ] || fail "a graph was written through the link"
# The folded files themselves: a link to a file outside the run is not read (not even parsed),
# a FIFO does not block explain (timeout 20: the old reader waited for a writer for ever).
cp -r "$FIX" "$TMP/flnk"
ln -sf /etc/passwd "$TMP/flnk/explain/getpid.tp/base.folded"
expect_exit 2 timeout 20 "$TB" explain "$TMP/flnk/result.json"
grep -q "base.folded: cannot read the folded stacks: is a symbolic link" "$TMP/err" ||
	{ cat "$TMP/err"; fail "a linked folded file was read"; }
grep -q "root" "$TMP/err" && fail "the linked file's text was echoed"
cp -r "$FIX" "$TMP/ffifo"
rm "$TMP/ffifo/explain/getpid.tp/traced.folded"
mkfifo "$TMP/ffifo/explain/getpid.tp/traced.folded"
expect_exit 2 timeout 20 "$TB" explain "$TMP/ffifo/result.json"
grep -q "traced.folded: cannot read the folded stacks: not a regular file" "$TMP/err" ||
	{ cat "$TMP/err"; fail "a FIFO as a folded file: $(cat "$TMP/err")"; }
python3 - "$FIX/result.json" "$TMP/noexp.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
del d["cells"][1]["explain"]
json.dump(d, open(sys.argv[2], "w"))
PY
expect_exit 2 "$TB" explain "$TMP/noexp.json"
grep -q "no explained cell (run it with" "$TMP/err" || fail "nothing to explain not said"

# The validation's analysis of an explain run (make validate): where and how much, decided right.
mkdir -p "$TMP/val/explain"
python3 - "$TMP/val/explain/result.json" <<'PY'
import json, sys
def cell(tr, tt, fns, explained):
    return {"id": "getpid/" + tr, "workload": "getpid", "tracer": tr, "tracer_type": tt,
            "baseline": False, "samples": [],
            "explain": {"attributable": True, "explained": explained, "explained_share": 0.5,
                        "overhead_ns_per_op": 100, "added_ns_per_op": 50, "tolerance": 0.25,
                        "functions": [{"name": n, "self_ns_per_op": [0, a],
                                       "inclusive_ns_per_op": [0, a]} for n, a in fns]}}
json.dump({"cells": [cell("tp", "ftrace-events", [("x", 9), ("ring_buffer_lock_reserve", 5)], True),
                     cell("delay", "delay", [("getpid_run_batch", 9)], False)]},
          open(sys.argv[1], "w"))
PY
python3 "$TB_ROOT/tools/validate-analyze.py" "$TMP/val" >/dev/null
python3 - "$TMP/val/validation.json" <<'PY' || fail "the validation's explain checks decide wrong"
import json, sys
got = {(c["check"], c["item"]): c["pass"] for c in json.load(open(sys.argv[1]))["checks"]
       if c["check"].startswith("explain")}
assert got == {("explain-where", "getpid/tp"): True, ("explain-share", "getpid/tp"): True,
               ("explain-where", "getpid/delay"): False,
               ("explain-share", "getpid/delay"): False}, got
PY

# 3. The report: section, table, the inline flame graph drawn from the folded files.
expect_exit 0 "$TB" report "$TMP/run/result.json" -o "$TMP/report.html"
for k in 'id="explain"' 'id="explain-table-1"' '<svg class="flamegraph diff"' \
	'trace_event_raw_event_sys_enter'; do
	grep -q "$k" "$TMP/report.html" || fail "report lacks $k"
done
if grep -q "http:" "$TMP/report.html"; then fail "the inline SVG references a namespace URL"; fi

# 4. The browser: chromium parses the inline SVG as SVG and lays out every frame
# (tests/e2e/browser-check.js, as t-browser uses it).
if have_chromium; then
	browser_check explain "$TMP/report.html"
	python3 - "$TMP/explain.json" <<'PY' || fail "the browser did not lay the flame graph out"
import json, sys
svgs = json.load(open(sys.argv[1]))["flamegraphs"]
assert len(svgs) == 2, svgs
d = svgs[0]
assert d["cls"] == "flamegraph diff" and d["ns"] == "http://www.w3.org/2000/svg", d
assert d["w"] > 500 and d["h"] > 50, d
# all, tracebench, main, run, syscall, do_syscall_64, trace_event_raw_event_sys_enter
assert len(d["frames"]) == 7, len(d["frames"])
assert all(f["w"] > 0 and f["h"] > 0 for f in d["frames"]), d["frames"]
grown = [f for f in d["frames"] if f["title"].startswith("trace_event_raw_event_sys_enter")]
assert grown and grown[0]["fill"] == "rgb(255,0,0)", grown
PY
else
	echo "SKIPPED browser check: chromium is not installed"
fi

# 5. As root: a real run --explain, and the costs where they belong. 200 ms samples: at 100 ms
# the BPF cell's profiled cost fell once within twice its sampling noise (a sanitizer build's
# make check), and the cell was not attributable.
if [ "$(id -u)" -ne 0 ]; then
	echo "SKIPPED run --explain: needs root"
	exit 0
fi
expect_exit 0 "$TB" run "$TB_ROOT/scenarios/validation/explain.ini" --rounds 3 \
	--duration 200ms -o "$TMP/live" --no-plots -q --wait
grep -q "^getpid/tp-getpid: the profile .* of the measured overhead" "$TMP/out" ||
	{ cat "$TMP/out"; fail "no explained share in the summary"; }
for c in getpid.tp-getpid getpid.bpf-count getpid.delay-100ns; do
	for f in base.folded traced.folded diff.folded diff.svg traced.svg; do
		[ -s "$TMP/live/explain/$c/$f" ] || fail "$c/$f missing"
	done
done
python3 - "$TMP/live/result.json" <<'PY' || { cat "$TMP/out"; fail "costs not where they belong"; }
import json, re, sys
cells = {c["tracer"]: c for c in json.load(open(sys.argv[1]))["cells"]}
assert "explain" not in cells["none"]
def top(c, n=5):
    fns = c["explain"]["functions"]
    add = lambda f, k: f[k][1] - f[k][0]
    return ([f["name"] for f in sorted(fns, key=lambda f: -add(f, "self_ns_per_op"))[:n]] +
            [f["name"] for f in sorted(fns, key=lambda f: -add(f, "inclusive_ns_per_op"))[:n]])
for tracer, pattern in [("tp-getpid", r"trace_event|ring_buffer|rb_|syscall_trace_enter|ftrace"),
                        ("bpf-count", r"bpf_prog_|bpf_trace|__bpf_|htab_map")]:
    e = cells[tracer]["explain"]
    assert e["error"] is None and e["attributable"], (tracer, e["statement"])
    assert any(re.search(pattern, n) for n in top(cells[tracer])), (tracer, top(cells[tracer]))
    assert e["traced"]["samples"] > e["base"]["samples"] > 0
d = cells["delay-100ns"]["explain"]
assert d["functions"][0]["name"] == "tb_spin" and d["functions"][0]["where"] == "user", d["functions"][0]
PY
