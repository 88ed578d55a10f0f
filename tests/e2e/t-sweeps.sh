#!/bin/bash
# Sweeps (METHODOLOGY.md 2.12): bad sweeps are file:line errors at --dry-run (exit 2), so is a
# selectivity knob out of its range; the shipped sweeps.ini expands its filter sweeps; a tiny
# tracer sweep runs, and result.json's sweeps has the model and every point, the summary its
# table, the plots a sweep-1 image and the report its Sweeps table; gate --history on the slope
# passes a like line and fails a tripled one through a real SQLite history. No figure is judged here
# (timings belong in validate*): only that each is there and says what it is.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "python3 not installed"

cat >"$TMP/bad.ini" <<'INI'
[workload w]
type = getpid
[tracer d]
type = delay
sweep = nss: 100ns, 200ns
[matrix]
workloads = w
tracers = none, d
INI
expect_exit 2 "$TB" run "$TMP/bad.ini" --dry-run
grep -q "bad.ini:5: \[tracer d\]: sweep: unknown key 'nss' for delay; did you mean 'ns'?" "$TMP/err" ||
	fail "unknown sweep key: $(cat "$TMP/err")"
sed -i 's/^sweep = .*/sweep = ns: 800ns..100ns x2/' "$TMP/bad.ini"
expect_exit 2 "$TB" run "$TMP/bad.ini" --dry-run
grep -q "bad.ini:5: .*does not rise" "$TMP/err" || fail "falling range: $(cat "$TMP/err")"
sed -i 's/^sweep = .*/sweep = ns:/' "$TMP/bad.ini"
expect_exit 2 "$TB" run "$TMP/bad.ini" --dry-run
grep -q "bad.ini:5: .*an empty list of values" "$TMP/err" || fail "empty list: $(cat "$TMP/err")"
sed -i 's/^sweep = .*/sweep = ns: 1ns..100ns +1ns/' "$TMP/bad.ini"
expect_exit 2 "$TB" run "$TMP/bad.ini" --dry-run
grep -q "bad.ini:5: .*max-cells = 64" "$TMP/err" || fail "too many cells: $(cat "$TMP/err")"
# a selectivity sweep's knob: no more other calls than calls; the BPF filter only where it is
cat >"$TMP/sel.ini" <<'INI'
[workload w]
type = getpid
calls = 4
sweep = other-calls: 0, 2, 5
[tracer b]
type = bpf
program = runq-latency
syscall-nr = 39
[matrix]
workloads = w
tracers = none, b
INI
expect_exit 2 "$TB" run "$TMP/sel.ini" --dry-run
grep -q "sel.ini:1: \[workload w\[other-calls=5\]\]: other-calls: 5 is more than the op's calls (4)" \
	"$TMP/err" || fail "other-calls > calls: $(cat "$TMP/err")"
grep -q "sel.ini:8: \[tracer b\]: syscall-nr: only used with program = syscall-count" "$TMP/err" ||
	fail "syscall-nr off syscall-count: $(cat "$TMP/err")"
# the shipped scenario's filter sweeps expand into their points
expect_exit 0 "$TB" run "$TB_ROOT/scenarios/sweeps.ini" --quick --dry-run
for id in "getpid-mix\[other-calls=99\]/ft-filter" "getpid-mix\[other-calls=100\]/bpf-filter" \
	"getpid-pid\[partner-calls=90\]/ft-pid" "getpid-pid\[partner-calls=0\]/bpf-pid"; do
	grep -q "$id" "$TMP/out" || fail "sweeps.ini: no $id: $(cat "$TMP/out")"
done

need_root
cat >"$TMP/sweep.ini" <<'INI'
[global]
repetitions = 5
warmup = 0
duration = 40ms
max-cv = 50%
[workload w]
type = getpid
[tracer d]
type = delay
sweep = ns: 100ns..800ns x2
[matrix]
workloads = w
tracers = none, d
INI
expect_exit 0 "$TB" run "$TMP/sweep.ini" --dry-run
grep -q "w/d\[ns=800ns\]" "$TMP/out" || fail "dry-run does not list the points: $(cat "$TMP/out")"
expect_exit 0 "$TB" run "$TMP/sweep.ini" -o "$TMP/r" --wait
grep -q "^sweeps: overhead ns/op" "$TMP/out" || fail "no sweep table in the summary: $(cat "$TMP/out")"
grep -q "^tracer d: ns " "$TMP/out" || fail "no row for the sweep: $(cat "$TMP/out")"
python3 - "$TMP/r/result.json" <<'PY' || fail "result.json's sweeps"
import json, sys
r = json.load(open(sys.argv[1]))
sw = r["sweeps"]
assert len(sw) == 1, sw
s = sw[0]
assert (s["kind"], s["section"], s["key"], s["against"], s["unit"]) == \
    ("tracer", "d", "ns", "w", "ns"), s
assert [p["value"] for p in s["points"]] == ["100ns", "200ns", "400ns", "800ns"], s["points"]
assert [p["x"] for p in s["points"]] == [100, 200, 400, 800], s["points"]
cells = {c["id"]: c for c in r["cells"]}
for p in s["points"]:
    c = cells[p["cell"]]
    assert c["tracer_sweep"]["value"] == p["value"], c
    assert p["used"] or p.get("why_not"), p
m = s["model"]
assert m["accepted"] in (True, False)
assert m["accepted"] or m.get("why_not"), m
if m["accepted"]:
    assert m["slope_ns_ci"][0] <= m["slope_ns"] <= m["slope_ns_ci"][1], m
print("    slope %s ns per ns, accepted %s" % (m["slope_ns"], m["accepted"]))
PY
[ -s "$TMP/r/plots/sweep-1.png" ] && [ -s "$TMP/r/plots/sweep-1.svg" ] ||
	fail "no sweep-1 plot: $(ls "$TMP/r/plots")"
grep -q 'id="sweeps-table"' "$TMP/r/report.html" || fail "the report has no Sweeps table"
grep -q 'id="plot-sweep-1"' "$TMP/r/report.html" || fail "the report does not inline sweep-1"
# the strict reader takes what the writer wrote
expect_exit 0 "$TB" report "$TMP/r/result.json" -o "$TMP/again.html"
# gate on the slope: against itself the change is 0 (a pass, or skipped with the reason when
# the line was refused), never silent; JUnit names the sweep; a bare number is refused
expect_exit 0 "$TB" gate "$TMP/r/result.json" --baseline "$TMP/r/result.json" \
	--max-overhead none --max-slope-increase 10% --allow-untrustworthy --allow-faster \
	--junit "$TMP/j.xml"
grep -Eq '^  (PASS|SKIP)  tracer d: ns ' "$TMP/out" || fail "gate: no sweep line: $(cat "$TMP/out")"
grep -q 'classname="tracebench.sweep" name="tracer d: ns against w: slope per ns"' "$TMP/j.xml" ||
	fail "JUnit has no sweep test case"
expect_exit 2 "$TB" gate "$TMP/r/result.json" --baseline "$TMP/r/result.json" \
	--max-slope-increase 10
grep -q -- "--max-slope-increase" "$TMP/err" || fail "a bare slope limit not named: $(cat "$TMP/err")"
# compare: the sweep against itself is "same" (or "refused", naming the side); JSON says so too
expect_exit 0 "$TB" compare "$TMP/r/result.json" "$TMP/r/result.json"
grep -Eq '^  .* -> .*: (same|refused)$' "$TMP/out" || fail "compare: no sweep verdict: $(cat "$TMP/out")"
expect_exit 0 "$TB" compare "$TMP/r/result.json" "$TMP/r/result.json" --json
python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["sweeps"][0]
assert s["verdict"] in ("same", "refused") and "slope_ci_a" in s, s' "$TMP/out" ||
	fail "compare --json: no sweep verdict"
# gate --history on the slope, end to end through a real SQLite history. The runs are this
# run's result with its sweep points made an exact line of k ns per ns over the baseline, round
# by round, and its stored line saying so (the measured line may be refused as noise): three runs of k = 1 (their own start times: three runs to the history) make
# a stable segment; a fourth of k = 1 passes max-slope-increase 10% against it, one of k = 3
# fails it, naming the sweep
python3 - "$TMP" <<'PY' || fail "cannot write the history's runs"
import json, os, sys
t = sys.argv[1]
def copy(name, day, k):
    r = json.load(open(t + "/r/result.json"))
    cells = {c["id"]: c for c in r["cells"]}
    base = {s["round"]: s["ns_per_op"] for c in r["cells"] if c["baseline"]
            for s in c["samples"] if not s["warmup"] and not s["failed"]}
    for p in r["sweeps"][0]["points"]:
        for s in cells[p["cell"]]["samples"]:
            if not s["warmup"] and not s["failed"] and s["round"] in base:
                s["ns_per_op"] = base[s["round"]] + k * p["x"]
    # and the stored line says so (history add keeps a file's own figures; gate refits)
    m = r["sweeps"][0]["model"]
    m.update(accepted=True, slope_ns=float(k), slope_ns_ci=[float(k), float(k)])
    m.pop("why_not", None)
    r["started"] = "2026-11-%02dT00:00:00Z" % day
    os.mkdir("%s/%s" % (t, name))
    json.dump(r, open("%s/%s/result.json" % (t, name), "w"))
for i in range(3):
    copy("h%d" % i, i + 1, 1)
copy("same", 5, 1)
copy("up", 6, 3)
PY
for i in 0 1 2; do
	expect_exit 0 "$TB" history add "$TMP/h$i" --db "$TMP/h.db"
	grep -q "added as run $((i + 1)) " "$TMP/out" || fail "history add h$i: $(cat "$TMP/out")"
done
hgate() { "$TB" gate "$TMP/$1/result.json" --history "$TMP/h.db" --max-overhead none \
	--max-slope-increase 10% --allow-untrustworthy >"$TMP/out" 2>"$TMP/err"; }
hgate same || fail "gate --history of the history's own slope exited $?: $(cat "$TMP/out" "$TMP/err")"
grep -Eq '^  PASS  tracer d: ns against w: slope per ns slope 1 ns per ns, .*last stable segment' \
	"$TMP/out" || fail "gate --history: no passing sweep line: $(cat "$TMP/out")"
hgate up
rc=$?
[ $rc -eq 1 ] || fail "a tripled slope passed gate --history (exit $rc): $(cat "$TMP/out" "$TMP/err")"
grep -Eq '^  FAIL  tracer d: ns .*exceeds max-slope-increase 10% against the history' "$TMP/out" ||
	fail "gate --history: the tripled slope's line: $(cat "$TMP/out")"
"$TB" cleanup >/dev/null 2>&1
exit 0
