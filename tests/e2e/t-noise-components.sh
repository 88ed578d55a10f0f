#!/bin/bash
# tools/noise-components.py (make bench-noise): on synthetic batches of known components (fixed
# seed) it recovers the within-process sd, the per-process part a paired round keeps and the
# autocorrelation, and gives Kalibera & Jones's batches per process by their formula; a drift
# shared by consecutive processes is not counted as per-process noise; --fixed-from takes a run's
# cost per sample from its result.json; bad input exits 2 naming the file and the key, and it
# never writes through a link; a real measurement with tb-getpid-loop --batches works, also
# with a busy CPU (--load), whose stress-ng goes with it, on SIGTERM too (exit 130).
. "$(dirname "$0")/lib.sh"
NC="python3 $TB_ROOT/tools/noise-components.py"
LOOPDIR=${TB_TOOLS:-$(dirname "$TB_HELPERS")/tools}

# batches of log sd 3% within a process (AR(1), rho 0.3), 2% per process, and (second file) a
# slow drift of 10% over the processes on top: pairing must see 2% in both
python3 - "$TMP" <<'PY'
import json, math, random, sys
rnd = random.Random(7)
for name, drift in (("syn", 0.0), ("drift", 0.10)):
    procs = []
    for p in range(400):
        mu = math.log(1000) + rnd.gauss(0, 0.02) + drift * math.sin(p / 400 * math.pi)
        e, ns = rnd.gauss(0, 0.03), []
        for b in range(10):
            e = 0.3 * e + math.sqrt(1 - 0.09) * rnd.gauss(0, 0.03) if b else e
            ns.append(math.exp(mu + e))
        procs.append(ns)
    json.dump({"schema": "tracebench-noise/1", "cpu": 0, "iters": 1, "batch_ms": 20,
               "fixed_ms": 40, "processes": procs}, open(f"{sys.argv[1]}/{name}.json", "w"))
PY
for f in syn drift; do
	$NC --from "$TMP/$f.json" --json "$TMP/$f-c.json" >"$TMP/$f.txt" || fail "--from $f: exit $?"
done
grep -q "^Kalibera & Jones: " "$TMP/syn.txt" || { cat "$TMP/syn.txt"; fail "no K&J line"; }
grep -q "^best: " "$TMP/syn.txt" || fail "no best floor"
python3 - "$TMP" <<'PY' || fail "the components of known synthetic batches"
import json, math, sys
t = sys.argv[1]
for name in ("syn", "drift"):
    c = json.load(open(f"{t}/{name}-c.json"))
    assert abs(c["within_sd"] - 0.03) < 0.003, (name, c["within_sd"])
    assert abs(c["rho"] - 0.3) < 0.06, (name, c["rho"])
    assert abs(c["paired_sd"] - 0.02) < 0.004, (name, c["paired_sd"])
    # K&J: ceil(sqrt(c2 / c1 * T1^2 / Tp^2)) with c2 = 40 ms, c1 = 20 ms
    assert c["kj_batches"] == math.ceil(math.sqrt(2 * c["within_sd"] ** 2 / c["paired_sd"] ** 2))
    f1 = next(f for f in c["floors"] if f["batches"] == 1)
    want = 1.96 * math.sqrt(2 * (c["paired_sd"] ** 2 + c["within_sd"] ** 2) / (60 / (2 * 0.06)))
    assert abs(f1["half_width"] - want) < 1e-9, (f1, want)
    assert c["best"]["half_width"] == min(f["half_width"] for f in c["floors"])
syn, drift = (json.load(open(f"{t}/{n}-c.json")) for n in ("syn", "drift"))
# the drift is in T2 (between processes) but not in what a paired round keeps
assert drift["per_process_sd"] > 1.5 * syn["per_process_sd"], (drift["per_process_sd"], syn["per_process_sd"])
PY

# --fixed-ms and --fixed-from: the floor at that cost
$NC --from "$TMP/syn.json" --fixed-ms 100 --json "$TMP/f100.json" >/dev/null || fail "--fixed-ms"
cat >"$TMP/run.json" <<'EOF'
{"started": "2026-12-06T10:00:00Z", "finished": "2026-12-06T10:00:10Z",
 "cells": [{"samples": [{"elapsed_ns": 2e9}, {"elapsed_ns": 2e9}]},
           {"samples": [{"elapsed_ns": 2e9}, {"elapsed_ns": 2e9}]}]}
EOF
$NC --from "$TMP/syn.json" --fixed-from "$TMP/run.json" --json "$TMP/ff.json" >"$TMP/out" ||
	fail "--fixed-from"
python3 -c "import json,sys; c=json.load(open(sys.argv[1])); assert abs(c['fixed_ms'] - 500) < 1e-6, c['fixed_ms']" "$TMP/ff.json" ||
	fail "--fixed-from: (10 s - 8 s) / 4 samples is 500 ms a sample"

# bad input: exit 2, the file and the key named, nothing written
H='"schema": "tracebench-noise/1", "batch_ms": 20, "fixed_ms": 3'
P3='[[1,2,3],[1,2,3],[1,2,3]'
refused() { # NAME CONTENT MESSAGE: --from NAME.json exits 2 naming it with MESSAGE, no --json
	printf '%s' "$2" >"$TMP/$1.json"
	rm -f "$TMP/no.json"
	expect_exit 2 $NC --from "$TMP/$1.json" --json "$TMP/no.json"
	grep -qF "$1.json: $3" "$TMP/err" || { cat "$TMP/err"; fail "$1: '$3' not said"; }
	[ ! -e "$TMP/no.json" ] || fail "$1: a refused input wrote its --json"
}
refused bad-batch "{$H, \"processes\": $P3,[1,\"x\",3]]}" 'processes[3][1]: not a positive number'
refused bad-schema '{"schema": "other"}' 'schema: not tracebench-noise/1'
refused few "{$H, \"processes\": [[1,2,3]]}" 'processes: a list of at least 4'
refused no-list "{$H, \"processes\": [1,2,3,4]}" 'processes[0]: a list of 3 batches'
refused bad-load "{$H, \"load\": \"x\", \"processes\": $P3,[1,2,3]]}" 'load: not a count of busy CPUs'
refused not-json 'not json' 'Expecting value'
expect_exit 2 $NC --from "$TMP/no-such.json"
expect_exit 2 $NC --from "$TMP/syn.json" --fixed-from "$TMP/bad-schema.json"
grep -q 'bad-schema.json: started, finished' "$TMP/err" || fail "--fixed-from on a non-run"
printf '{"started": "2026-12-06T10:00:00Z", "finished": "2026-12-06T10:00:01Z", "cells": [{"samples": [{"elapsed_ns": 2e9}]}]}' >"$TMP/short.json"
expect_exit 2 $NC --from "$TMP/syn.json" --fixed-from "$TMP/short.json"
grep -q 'short.json: finished - started' "$TMP/err" || fail "a run shorter than its samples"
expect_exit 2 $NC --processes 2
expect_exit 2 $NC --batch-ms 0
expect_exit 2 $NC --load 999
grep -q -- '--load 999: want a count of busy CPUs' "$TMP/err" || fail "--load 999 not refused"
expect_exit 2 $NC --from "$TMP/syn.json" --load 1
# never through a link
ln -s "$TMP/victim" "$TMP/link.json"
expect_exit 2 $NC --from "$TMP/syn.json" --json "$TMP/link.json"
[ ! -e "$TMP/victim" ] || fail "--json wrote through a symbolic link"

# a real measurement, small: the helper's batches, saved and read back
[ -x "$LOOPDIR/tb-getpid-loop" ] || skip "SKIPPED t-noise-components (real run): $LOOPDIR/tb-getpid-loop not built (make check builds it)"
TB_TOOLS=$LOOPDIR $NC --processes 4 --batches 3 --batch-ms 2 --save "$TMP/real.json" >"$TMP/out" ||
	{ cat "$TMP/out" "$TMP/err" 2>/dev/null; fail "a real measurement failed"; }
grep -q "^4 processes x 3 batches of 2 ms" "$TMP/out" || { cat "$TMP/out"; fail "real run's header"; }
$NC --from "$TMP/real.json" >/dev/null || fail "the saved measurement does not read back"

# with a busy CPU: the load runs beside the measurement and goes with it, also on SIGTERM
command -v stress-ng >/dev/null || skip "SKIPPED t-noise-components (--load): stress-ng is not installed (make deps)"
[ "$(nproc)" -ge 2 ] || skip "SKIPPED t-noise-components (--load): one CPU, none to load beside the measured one"
[ -z "$(pgrep -x stress-ng)" ] || skip "SKIPPED t-noise-components (--load): a stress-ng of someone else's runs here"
TB_TOOLS=$LOOPDIR $NC --processes 4 --batches 3 --batch-ms 2 --load 1 >"$TMP/out" ||
	fail "a loaded measurement failed"
grep -q "1 busy CPU(s) beside the measured one" "$TMP/out" || { cat "$TMP/out"; fail "load not said"; }
[ -z "$(pgrep -x stress-ng)" ] || fail "the load outlived the measurement"
TB_TOOLS=$LOOPDIR $NC --processes 100000 --batches 3 --batch-ms 2 --load 1 >"$TMP/out" 2>"$TMP/err" &
pid=$!
for _ in $(seq 100); do [ -n "$(pgrep -x stress-ng)" ] && break; sleep 0.1; done
[ -n "$(pgrep -x stress-ng)" ] || { kill $pid; fail "the load never started"; }
sleep 1.5 # past loadgen's start
kill -TERM $pid
rc=0; wait $pid || rc=$?
[ $rc -eq 130 ] || { cat "$TMP/err"; fail "SIGTERM: exit $rc, expected 130"; }
for _ in $(seq 50); do [ -z "$(pgrep -x stress-ng)" ] && break; sleep 0.1; done
[ -z "$(pgrep -x stress-ng)" ] || { pkill -x stress-ng; fail "SIGTERM left the load running"; }
pgrep -f "tb-getpid-loop.*--batches" >/dev/null && fail "SIGTERM left a tb-getpid-loop running"
echo "t-noise-components: ok"
