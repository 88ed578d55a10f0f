#!/bin/bash
# tracebench run end to end: a full small run whose result.json honours the contract (its kept
# tracers rearmed after their first sample, accounting ones included), accounting samples every
# other round, the interrupted run (SIGINT -> partial result, nothing left armed), the lock, the
# run directory never overwritten, unsupported plugins, dry runs.
. "$(dirname "$0")/lib.sh"
need_root
D=$TB_ROOT/tests/data/run
T=/sys/kernel/tracing

# only the state this test's runs could make or leave (lib.sh): others may trace meanwhile
before=$(own_tracing_state)

# 1. A full small run: exit 0, every file, the contract's keys.
expect_exit 0 "$TB" run "$D/small.ini" -o "$TMP/r1" --no-plots -q --wait --label commit=9f3e1a2 \
	--label branch=main
for f in result.json samples.csv; do [ -s "$TMP/r1/$f" ] || fail "$f missing"; done
python3 - "$TMP/r1/result.json" <<'PY' || fail "result.json does not honour the contract"
import json, sys
r = json.load(open(sys.argv[1]))
def need(o, keys, where):
    for k in keys:
        assert k in o, f"{where}: missing {k}"
need(r, ["schema", "tool", "scenario", "started", "finished", "partial", "system", "cells"], "result")
assert r["schema"] == "tracebench-result/1"
assert r["partial"] is False
assert r["labels"] == {"commit": "9f3e1a2", "branch": "main"}, r["labels"]
need(r["tool"], ["name", "version"], "tool")
need(r["scenario"], ["name", "path", "text"], "scenario")
assert "[matrix]" in r["scenario"]["text"]
need(r["system"], ["fingerprint", "kernel"], "system")
assert len(r["cells"]) == 6, len(r["cells"])
for c in r["cells"]:
    need(c, ["workload", "tracer", "tracer_config", "samples", "ops_per_sample", "events_recorded",
             "events_lost", "tracer_cpu_s", "summary"], c["id"])
    # a contended round run again keeps its first samples, marked rerun (METHODOLOGY 2.14)
    # and a bpf cell's accounting samples (stats = true) are apart (METHODOLOGY 2.11)
    measured = [s for s in c["samples"]
                if not s["warmup"] and not s.get("rerun") and not s.get("accounting")]
    assert len(measured) == 5, (c["id"], len(measured))
    assert len([s for s in c["samples"] if not s.get("rerun") and not s.get("accounting")]) == 6
    if c["tracer_type"] == "bpf":
        acct = [s for s in c["samples"] if s.get("accounting") and not s.get("rerun")]
        assert len(acct) == 5 and all(s["bpf_stats"] is True for s in acct), (c["id"], acct)
        assert all(s["bpf_stats"] is False for s in measured), (c["id"], "stats in a timed sample")
    assert all(s["ns_per_op"] > 0 for s in measured)
    # reuse-tracers (the default): the cell's first sample sets its tracer up, every later
    # one rearms it, accounting samples too (their stats on only for them: above); a
    # baseline has none
    flags = [bool(s.get("rearmed")) for s in sorted(c["samples"], key=lambda s: s["order"])]
    assert flags == ([False] * len(flags) if c["baseline"] else
                     [False] + [True] * (len(flags) - 1)), (c["id"], flags)
    need(c["summary"], ["median", "mean", "sd", "cv"], c["id"])
    if c["baseline"]:
        assert c["tracer"] == "none"
        continue
    o = c["overhead"]
    need(o, ["pct", "ci", "ns_per_op", "ns_per_event", "p_mannwhitney", "verdict", "reason"], c["id"])
    assert o["verdict"] in ("no-detectable-overhead", "overhead", "untrustworthy",
                            "faster-than-baseline"), o["verdict"]
    assert len(o["ci"]) == 2 and o["ci"][0] <= o["pct"] <= o["ci"][1], o
# Proof of tracing: the getpid tracepoint recorded one event per op.
c = {c["id"]: c for c in r["cells"]}["getpid/tp-getpid"]
ops = c["ops_per_sample"] * 5
assert abs(c["events_recorded"] - ops) <= ops / 100, (c["events_recorded"], ops)
# Shuffled rounds: the order of cells differs between rounds.
orders = {}
for c in r["cells"]:
    for s in c["samples"]:
        orders.setdefault(s["round"], []).append((s["order"], c["id"]))
seqs = [tuple(i for _, i in sorted(v)) for k, v in orders.items() if k >= 0]
assert len(set(seqs)) > 1, "every round ran in the same order"
PY
want=$(python3 -c 'import json,sys; print(1 + sum(len(c["samples"]) for c in json.load(open(sys.argv[1]))["cells"]))' "$TMP/r1/result.json")
[ "$(wc -l < "$TMP/r1/samples.csv")" -eq "$want" ] || fail "samples.csv: $(wc -l < "$TMP/r1/samples.csv") lines, want $want (37 unless a contended round ran again)"
d=$(state_unchanged "$before") || fail "tracing state changed by a run: $d"

# 1b. accounting-every = 2: a bpf cell's accounting samples in measured rounds 1, 3 and 5 only
# (indexes 0, 2, 4), each beside that round's timed sample; the accounting object built from
# those 3 (fewer than its CI needs: the ratio of the means, said); the setting recorded.
sed -e 's/^seed = 7$/seed = 7\naccounting-every = 2/' -e 's/^workloads = getpid, nullw$/workloads = getpid/' \
	-e 's/^tracers = none, tp-getpid, bpf-count$/tracers = none, bpf-count/' "$D/small.ini" >"$TMP/every.ini"
grep -q "^accounting-every = 2" "$TMP/every.ini" || fail "every.ini: $(cat "$TMP/every.ini")"
expect_exit 0 "$TB" run "$TMP/every.ini" -o "$TMP/every" --no-plots -q --wait
python3 - "$TMP/every/result.json" <<'PY' || fail "accounting-every = 2: $(cat "$TMP/out")"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["settings"]["accounting_every"] == 2, r["settings"]
(c,) = [c for c in r["cells"] if c["tracer"] == "bpf-count"]
acct = sorted({s["round"] for s in c["samples"] if s.get("accounting")})
timed = sorted({s["round"] for s in c["samples"] if not s.get("accounting") and not s["warmup"]})
assert timed == [0, 1, 2, 3, 4], timed
assert acct == [0, 2, 4], acct
assert c["accounting"]["samples"] == 3, c["accounting"]
assert "3 accounting" in c["accounting"]["ci_reason"], c["accounting"]
PY

# 2. The run directory is never overwritten.
expect_exit 2 "$TB" run "$D/small.ini" -o "$TMP/r1" -q --wait
grep -q "never overwritten" "$TMP/err" || fail "no reason for refusing an existing directory"
# A run directory another group may write into is refused as one everyone may write into (exit 3,
# as for one of another owner); the group of this user, or root's, is fine.
mkdir "$TMP/gw" && chgrp nogroup "$TMP/gw" && chmod 0775 "$TMP/gw"
expect_exit 3 "$TB" run "$D/small.ini" -o "$TMP/gw" -q --wait
grep -q "writable by group" "$TMP/err" || fail "a group-writable run directory: $(cat "$TMP/err")"
chgrp "$(id -g)" "$TMP/gw"
expect_exit 0 "$TB" run "$D/small.ini" -o "$TMP/gw" -q --dry-run

# An unwritable run directory: a clear error, nothing measured (bad input: exit 2).
expect_exit 2 "$TB" run "$D/small.ini" -o /proc/no-such-dir/run -q --wait
grep -q "cannot create the run directory" "$TMP/err" || fail "no reason for an unwritable directory"

# 3. Dry run: the plan and an estimate, nothing written.
expect_exit 0 "$TB" run "$D/small.ini" --dry-run -o "$TMP/dry"
grep -q "estimated time" "$TMP/out" || fail "dry run prints no estimate"
[ ! -e "$TMP/dry" ] || fail "dry run created its directory"

# 4. Unsupported plugins: exit 3 with the reason, or dropped with --skip-unsupported.
if ! "$TB" list ftrace-function | grep -q UNSUPPORTED; then
	echo "ftrace-function works here: the unsupported case is not exercised"
else
	expect_exit 3 "$TB" run "$D/unsupported.ini" -o "$TMP/u1" -q
	grep -q "unsupported here" "$TMP/err" || fail "no reason for an unsupported tracer"
	expect_exit 0 "$TB" run "$D/unsupported.ini" -o "$TMP/u2" -q --skip-unsupported --no-plots --wait
fi

# 5. SIGINT mid-run: partial result on disk, stop reason, nothing left armed, a second run
#    meanwhile is refused by the lock (exit 3, naming the holder).
"$TB" run "$D/long.ini" -o "$TMP/r2" -q --no-plots --wait >"$TMP/long.out" 2>"$TMP/long.err" &
pid=$!
measuring $pid
# result.json exists from the start (written before the first sample); wait for a round in it.
rounds() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["settings"]["rounds"])' \
	"$TMP/r2/result.json" 2>/dev/null || echo 0; }
for _ in $(seq 1 300); do [ "$(rounds)" -ge 1 ] && break; sleep 0.1; done
# (its stderr said: on a shared machine it may have queued or refused, as it says why)
[ "$(rounds)" -ge 1 ] || {
	kill -9 $pid 2>/dev/null
	fail "no result.json after the first round: $(tail -n 3 "$TMP/long.err")"
}
expect_exit 3 "$TB" run "$D/small.ini" -o "$TMP/r3" -q
grep -q "pid $pid" "$TMP/err" || fail "the lock holder is not named: $(cat "$TMP/err")"
grep -q -- "--wait" "$TMP/err" || fail "the lock message does not say how to wait: $(cat "$TMP/err")"
# make demo queues behind a run that holds the lock (issue 15): its run has --wait.
if [ -f "$TB_ROOT/Makefile" ]; then
	make -s -n -C "$TB_ROOT" demo 2>/dev/null | grep -q 'run scenarios/quick.ini --wait' ||
		fail "make demo does not pass --wait"
fi
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ] || fail "interrupted run exited $rc, expected 130"
python3 - "$TMP/r2/result.json" <<'PY' || fail "interrupted result is not a valid partial result"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["partial"] is True, r["partial"]
assert r["stop_reason"] == "interrupted", r["stop_reason"]
n = sum(1 for c in r["cells"] for s in c["samples"]
        if not s.get("failed") and not s.get("partial_round") and not s.get("warmup"))
assert n >= 2, n
PY
d=$(state_unchanged "$before") || fail "tracing state left behind by an interrupted run: $d"
pgrep -f "tracebench run $D/long.ini" && fail "the interrupted run left processes"
# 5b. --wait says that it waits whenever it does (issue 14, item 7), also while the holder has
#     the lock but has not written its pid yet (an empty lock file): the line was missing then.
ws=$TMP/wait-state
mkdir -p "$ws"
: >"$ws/lock"
flock "$ws/lock" sleep 2 &
fpid=$!
sleep 0.3
expect_exit 0 env TB_STATE_DIR="$ws" "$TB" run "$D/small.ini" -o "$TMP/rw" --no-plots --wait --rounds 1
wait $fpid
grep -q "waiting for another tracebench run to finish" "$TMP/err" ||
	fail "--wait waited without saying so: $(cat "$TMP/err")"
# 5c. A state directory of its own is not a machine of its own: a run with TB_STATE_DIR still
#     queues behind a run that holds the machine's lock (the e2e scripts' private state
#     directories let them measure beside `make demo`, and meet its tracing as foreign).
ws2=$TMP/own-state
mkdir -p "$ws2" /run/tracebench
flock /run/tracebench/lock sh -c 'echo $$ >/run/tracebench/lock; exec sleep 5' &
fpid=$!
holder=
for _ in $(seq 1 3000); do # a run of the machine may hold it first
	holder=$(pgrep -P $fpid -x sleep) && [ "$(cat /run/tracebench/lock 2>/dev/null)" = "$holder" ] && break
	holder=
	sleep 0.05
done
[ -n "$holder" ] || { kill $fpid; fail "the stand-in run never held the machine's lock"; }
expect_exit 3 env TB_STATE_DIR="$ws2" "$TB" run "$D/small.ini" -o "$TMP/rw2" --no-plots --rounds 1
grep -q "another tracebench run (pid $holder)" "$TMP/err" ||
	{ kill $fpid; fail "the machine's lock holder not named: $(cat "$TMP/err")"; }
expect_exit 0 env TB_STATE_DIR="$ws2" "$TB" run "$D/small.ini" -o "$TMP/rw3" --no-plots --wait --rounds 1
kill -0 $holder 2>/dev/null && fail "a run with its own state directory measured while the machine's lock was held"
wait $fpid
# 6. --anonymize: no host name, command line or scenario path in what is written.
expect_exit 0 "$TB" run "$D/small.ini" -o "$TMP/anon" --anonymize --no-plots -q --wait
python3 - "$TMP/anon/result.json" "$(hostname)" <<'PY' || fail "--anonymize left identifying data"
import json, sys
r = json.load(open(sys.argv[1]))
host = sys.argv[2]
def walk(o, path=""):
    if isinstance(o, dict):
        for k, v in o.items():
            assert k not in ("hostname", "nodename"), f"{path}.{k} kept"
            walk(v, f"{path}.{k}")
    elif isinstance(o, list):
        for i, v in enumerate(o):
            walk(v, f"{path}[{i}]")
walk(r)
assert r["command_line"] == "<redacted>", r["command_line"]
assert r["scenario"]["path"] is None
assert "small.ini" not in json.dumps(r)
PY
exit 0
