#!/bin/bash
# What a run starts or makes does not outlive it (issue 14, item 4): a tracer command and a
# command workload that daemonise (setsid and fork, escaping their process group) leave no
# process behind, and a run killed with SIGKILL leaves nothing that `tracebench cleanup` does
# not remove: its scratch directory in /tmp, its cgroups, the daemon still running in one.
. "$(dirname "$0")/lib.sh"
need_root
export TB_STATE_DIR=$TMP/state
mark=tb-leak-$$
# A daemon that escapes its process group: setsid, a fork, output closed. The marker is its
# sleep's duration, so that pgrep finds exactly this test's daemons.
secs=$((3000 + $$ % 1000))
daemon="setsid sh -c \"exec sleep $secs\" </dev/null >/dev/null 2>&1 &"
cat >"$TMP/d.ini" <<EOF
[global]
repetitions = 2
warmup = 0
duration = 20ms

[workload getpid]
type = getpid

[workload cmd]
type = command
command = sh -c '$daemon true'

[tracer daemonising]
type = command
command = sh -c '$daemon echo ready; exec sleep 600'
ready = ^ready\$

[matrix]
workloads = getpid, cmd
tracers = daemonising
EOF
left() { pgrep -f "^sleep $secs\$" | tr '\n' ' '; }
cgroups() { find /sys/fs/cgroup -maxdepth 6 -type d -name "tracebench-$1-*" 2>/dev/null; }

"$TB" run --wait "$TMP/d.ini" -o "$TMP/r1" -q --no-plots >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 0 ] || { cat "$TMP/err"; fail "run exited $rc"; }
sleep 0.2
l=$(left)
[ -z "$l" ] || { kill -9 $l; fail "daemons left running after the run: $l"; }
python3 - "$TMP/r1/result.json" <<'PY' || fail "the result does not say what the cgroup found"
import json, sys
r = json.load(open(sys.argv[1]))
for c in r["cells"]:
    if c["tracer"] != "daemonising":
        continue
    x = c.get("tracer_extra") or {}
    if x.get("cgroup") is False:
        print("no cgroup here: skipping the accounting check"); break
    assert x.get("leftover_processes") == 1, x
    assert not x.get("log", "").startswith("/"), x  # relative to the run directory
PY

# SIGKILL mid-run: cleanup finds the daemon in the dead run's cgroup, the cgroup, the scratch.
"$TB" run --wait "$TMP/d.ini" -o "$TMP/r2" -q --no-plots >"$TMP/out" 2>"$TMP/err" &
pid=$!
measuring $pid
for _ in $(seq 1 100); do [ -n "$(left)" ] && break; sleep 0.05; done
sleep 0.1
kill -9 $pid
wait $pid 2>/dev/null
# Its sample child dies of PDEATHSIG a moment later: cleanup leaves a live owner's record alone.
for _ in $(seq 1 100); do pgrep -f "run $TMP/d.ini -o $TMP/r2" >/dev/null || break; sleep 0.05; done
[ -n "$(ls -d /tmp/tracebench-$pid-* 2>/dev/null)" ] || echo "note: no scratch directory was left to clean"
"$TB" cleanup >"$TMP/out" 2>"$TMP/err" || { cat "$TMP/out" "$TMP/err"; fail "cleanup failed"; }
cat "$TMP/out"
sleep 0.2
l=$(left)
[ -z "$l" ] || { kill -9 $l; fail "cleanup left daemons of the killed run: $l"; }
[ -z "$(ls -d /tmp/tracebench-$pid-* 2>/dev/null)" ] || fail "cleanup left the scratch directory"
[ -z "$(cgroups $pid)" ] || fail "cleanup left cgroups: $(cgroups $pid)"
[ -z "$(ls "$TB_STATE_DIR" | grep armed-)" ] || fail "armed records left: $(ls "$TB_STATE_DIR")"
# A second cleanup has nothing left to do.
"$TB" cleanup >"$TMP/out" 2>&1
grep -q "nothing to clean" "$TMP/out" || fail "a second cleanup still found: $(cat "$TMP/out")"
exit 0
