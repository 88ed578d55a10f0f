#!/bin/bash
# Contended rounds for real (issue 32): a busy loop pinned to the workload's CPU during a short
# run makes its samples wait for the CPU; the run re-runs one whole round (the bound for 4
# rounds), keeps the later contended samples and says both; result.json records the re-run per
# sample and per cell. Without the loop and with the rule off, nothing is re-run. Bad values of
# the key are refused at their line.
. "$(dirname "$0")/lib.sh"
need_root
[ -r /proc/self/schedstat ] || skip "no schedstats here (/proc/PID/schedstat): waits unknown"
command -v taskset >/dev/null || skip "no taskset"
cpu=$(($(getconf _NPROCESSORS_ONLN) - 1))

cat >"$TMP/bad.ini" <<'INI'
[global]
contended-share = 5
[workload w]
type = getpid
[matrix]
workloads = w
tracers = none
INI
expect_exit 2 "$TB" run "$TMP/bad.ini" --dry-run
grep -q "bad.ini:2: .*contended-share" "$TMP/err" || fail "a bare number: $(cat "$TMP/err")"
sed -i 's/^contended-share = 5$/contended-share = 150%/' "$TMP/bad.ini"
expect_exit 2 "$TB" run "$TMP/bad.ini" --dry-run
grep -q "bad.ini:2: .*contended-share" "$TMP/err" || fail "150%: $(cat "$TMP/err")"

cat >"$TMP/c.ini" <<INI
[global]
repetitions = 4
warmup = 0
duration = 200ms
settle = 0
max-cv = 100%
cpus = $cpu
contended-share = 5%
[workload w]
type = getpid
[tracer t]
type = delay
ns = 100ns
[matrix]
workloads = w
tracers = none, t
INI
spin=
trap '[ -n "$spin" ] && kill "$spin" 2>/dev/null; rm -rf "$TMP"' EXIT
"$TB" run --wait "$TMP/c.ini" -o "$TMP/busy" --no-plots >"$TMP/out" 2>"$TMP/err" &
run=$!
measuring "$run" || { wait "$run"; cat "$TMP/out" "$TMP/err"; fail "the run never started"; }
taskset -c "$cpu" bash -c 'while :; do :; done' &
spin=$!
wait "$run" || { cat "$TMP/out" "$TMP/err"; fail "the busy run failed"; }
kill "$spin"
wait "$spin" 2>/dev/null
spin=
grep -q "1 round run again, contended (the first: another task ran on the workload's CPU" \
	"$TMP/out" || fail "the summary does not say the round run again: $(cat "$TMP/out")"
python3 - "$TMP/busy/result.json" <<'PY' || fail "result.json (busy)"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["settings"]["contended_share"] == 0.05, r["settings"]
kept = 0
for c in r["cells"]:
    ct = c["contention"]
    assert ct["rounds_rerun"] == 1, (c["id"], ct)  # the bound: a quarter of 4 rounds
    kept += ct["rounds_kept_contended"]
    again = [s for s in c["samples"] if s.get("rerun")]
    assert len(again) == 1 and "another task ran on the workload's CPU" in again[0]["rerun"], again
    rounds = sorted(s["round"] for s in c["samples"] if not s.get("rerun"))
    assert rounds == [0, 1, 2, 3], (c["id"], rounds)  # the round run again, once, both sides
    assert c["summary"]["n"] == 4, c["summary"]
assert kept >= 1, "no contended sample kept although every later round was contended"
assert any("contended sample" in f for f in r["shortfalls"]), r["shortfalls"]
PY

sed -i 's/^contended-share = 5%$/contended-share = 0%/' "$TMP/c.ini"
expect_exit 0 "$TB" run --wait "$TMP/c.ini" -o "$TMP/off" --no-plots
grep -q "run again" "$TMP/out" && fail "the rule off, yet: $(cat "$TMP/out")"
python3 - "$TMP/off/result.json" <<'PY' || fail "result.json (off)"
import json, sys
r = json.load(open(sys.argv[1]))
for c in r["cells"]:
    assert "contention" not in c, c["contention"]
    assert not any(s.get("rerun") for s in c["samples"])
PY
exit 0
