#!/bin/bash
# An interrupted run keeps exactly what it finished (issue 14, item 3). SIGINT at moments drawn
# from a fixed seed (so a failure can be replayed), and three SIGINTs 10 ms apart: each result
# exits 130 and has partial = true, stop_reason "interrupted", settings.rounds = the rounds that completed,
# one measured sample per cell in each of them, the round in progress marked partial_round, at
# most one sample abandoned (never "failed"), summaries computed from the completed rounds
# only; the tracing state is as before and no armed record is left.
. "$(dirname "$0")/lib.sh"
need_root
command -v python3 >/dev/null || skip "python3 not installed"
"$TB" list ftrace-events | grep -q UNSUPPORTED && skip "ftrace-events unsupported here"
export TB_STATE_DIR=$TMP/state
SEED=${TB_INTERRUPT_SEED:-14}
N=${TB_INTERRUPT_RUNS:-6}
cp "${TB_ROOT:?}/tests/data/run/interrupt.ini" "$TMP/s.ini"
before=$(own_tracing_state) # only what this test's runs could leave (lib.sh)

first_round() { # DIR: wait (up to 3 min: the run may queue behind another) for a completed round
	local end=$((SECONDS + 180))
	while [ $SECONDS -lt $end ]; do
		python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["settings"]["rounds"] < 1)' \
			"$1/result.json" 2>/dev/null && return
		sleep 0.02
	done
}

check() { # DIR CONTEXT
	python3 - "$1/result.json" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
what = sys.argv[2]
def need(c, msg):
    if not c:
        sys.exit("%s: %s" % (what, msg))
need(r["partial"] is True, "partial is %r" % r["partial"])
need(r["stop_reason"] == "interrupted", "stop_reason %r" % r["stop_reason"])
R = r["settings"]["rounds"]
abandoned = 0
for c in r["cells"]:
    done = [s for s in c["samples"] if not s.get("warmup") and not s.get("rerun") and s["round"] < R]
    need(len(done) == R, "%s: %d samples in %d completed rounds" % (c["id"], len(done), R))
    need(sorted(s["round"] for s in done) == list(range(R)), "%s: rounds %r" % (c["id"], [s["round"] for s in done]))
    for s in c["samples"]:
        need(not s.get("failed"), "%s: a sample marked failed: %r" % (c["id"], s))
        need(s["round"] <= R, "%s: a sample of round %d > %d" % (c["id"], s["round"], R))
        if s.get("warmup"):
            continue
        if s["round"] < R:
            need(not s.get("partial_round") and not s.get("abandoned"), "%s: completed round sample marked %r" % (c["id"], s))
        else:
            need(s.get("partial_round"), "%s: sample of the stopped round %d not partial_round" % (c["id"], R))
        abandoned += bool(s.get("abandoned"))
    n = (c.get("summary") or {}).get("n", 0)
    need(n == R, "%s: summary.n %d, completed rounds %d" % (c["id"], n, R))
need(abandoned <= 1, "%d abandoned samples" % abandoned)
print("%s: %d completed rounds kept, %d abandoned" % (what, R, abandoned))
PY
}

# Moments (s) from the seed: spread over calibration, warmup and every round (~2 s of run).
moments=$(awk -v seed="$SEED" -v n="$N" 'BEGIN { srand(seed); for (i = 0; i < n; i++) printf "%.2f ", 0.2 + rand() * 2.2 }')
i=0
pids=
for m in $moments; do
	i=$((i + 1))
	d=$TMP/r$i
	"$TB" run --wait "$TMP/s.ini" -o "$d" -q --no-plots >"$TMP/out" 2>"$TMP/err" &
	pid=$!
	measuring $pid
	pids="$pids $pid"
	sleep "$m"
	kill -INT $pid 2>/dev/null
	wait $pid
	rc=$?
	if [ $rc -eq 0 ]; then
		echo "moment $m s: the run had finished"
		continue
	fi
	[ $rc -eq 130 ] || fail "SIGINT at $m s: exit $rc, expected 130: $(cat "$TMP/err")"
	check "$d" "SIGINT at $m s" || fail "SIGINT at $m s (seed $SEED): $(tail -n 3 "$TMP/err")"
done

# Three SIGINTs 10 ms apart, once a round is done: the completed rounds are never lost.
d=$TMP/triple
"$TB" run --wait "$TMP/s.ini" -o "$d" -q --no-plots >"$TMP/out" 2>"$TMP/err" &
pid=$!
measuring $pid
pids="$pids $pid"
first_round "$d"
kill -INT $pid; sleep 0.01; kill -INT $pid; sleep 0.01; kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ] || fail "three SIGINTs: exit $rc, expected 130: $(cat "$TMP/err")"
check "$d" "three SIGINTs" || fail "three SIGINTs lost what was done: $(tail -n 3 "$TMP/err")"
python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["settings"]["rounds"] < 1)' "$d/result.json" ||
	fail "three SIGINTs: the completed round is gone"

# Ctrl-C once a round is done, plots on (issue 28): exit 130, the partial result drawn and
# reported, its shortfall said last; the gate fails it (JUnit says why) unless --allow-partial.
d=$TMP/drawn
"$TB" run "$TMP/s.ini" -o "$d" -q --wait >"$TMP/out" 2>"$TMP/err" &
pid=$!
measuring $pid
pids="$pids $pid"
first_round "$d"
kill -INT $pid
wait $pid
rc=$?
if [ $rc -eq 0 ]; then
	echo "the drawn run had finished before its SIGINT"
else
	[ $rc -eq 130 ] || fail "SIGINT with plots: exit $rc, expected 130: $(cat "$TMP/err")"
	[ -s "$d/report.html" ] || fail "the partial result has no report.html: $(tail -n 3 "$TMP/err")"
	if command -v gnuplot >/dev/null; then
		ls "$d"/plots/*.png >/dev/null 2>&1 || fail "the partial result has no plots"
	fi
	grep -q "partial result: the run stopped early (interrupted)" "$d/report.html" ||
		fail "the report does not say the result is partial"
	grep -A3 "the run fell short" "$TMP/out" | grep -q "partial result" ||
		fail "the summary does not end with the shortfall: $(tail -n 5 "$TMP/out")"
	python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["shortfalls"]; sys.exit(not any("partial result" in x for x in s))' \
		"$d/result.json" || fail "result.json's shortfalls do not say partial"
	"$TB" gate "$d/result.json" --allow-untrustworthy --max-overhead none --junit "$TMP/j.xml" >"$TMP/gout" 2>&1
	[ $? -eq 1 ] || fail "gate passed a partial result: $(cat "$TMP/gout")"
	grep -q '<failure type="partial"' "$TMP/j.xml" || fail "JUnit does not say why: $(cat "$TMP/j.xml")"
	"$TB" gate "$d/result.json" --allow-untrustworthy --max-overhead none --allow-partial \
		--allow-faster >"$TMP/gout" 2>&1 || fail "gate --allow-partial failed: $(cat "$TMP/gout")"
fi

d=$(state_unchanged "$before") || fail "tracing state changed: $d"
ls /sys/kernel/tracing/instances/ | grep -q "^tracebench-" && fail "a tracebench instance is left"
[ -z "$(ls -A "$TB_STATE_DIR" 2>/dev/null | grep armed-)" ] || fail "armed records left: $(ls "$TB_STATE_DIR")"
for p in $pids; do
	ls -d /tmp/tracebench-"$p"-* 2>/dev/null && fail "run $p left its scratch directory"
done
exit 0
