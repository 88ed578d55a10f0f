#!/bin/bash
# A tracer command that fails before it is ready (as a bcc tool that cannot compile here):
# one message that says so, recorded as the cell's error; no second "start failed: No child
# processes" made of errno alone (issue 15).
. "$(dirname "$0")/lib.sh"
need_root
export TB_STATE_DIR=$TMP/state
cat >"$TMP/fails.ini" <<'EOF2'
[global]
repetitions = 1
warmup = 0
duration = 5ms

[workload getpid]
type = getpid

[tracer fake-bcc]
type = command
command = sh -c "echo 'fake-bcc: cannot compile the BPF program' >&2; exit 1"
ready = ^Tracing
ready-timeout = 10s

[matrix]
workloads = getpid
tracers = none, fake-bcc
EOF2
"$TB" run --wait "$TMP/fails.ini" -o "$TMP/r" -q --no-plots >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" -eq 1 ] || { cat "$TMP/out" "$TMP/err"; fail "a failing tracer: run exited $rc, expected 1"; }
cat "$TMP/out" "$TMP/err" "$TMP/r/result.json" | grep -q "No child processes" &&
	{ cat "$TMP/out" "$TMP/err"; fail "the errno of the tracer's failure was reported as a second message"; }
n=$(grep -c "before it was ready" "$TMP/err")
[ "$n" -eq 1 ] || { cat "$TMP/err"; fail "$n messages about the tracer exiting, expected 1"; }
python3 - "$TMP/r/result.json" <<'PY' || fail "the cell's error is not the tracer's message"
import json, sys
r = json.load(open(sys.argv[1]))
c = [c for c in r["cells"] if c["tracer"] == "fake-bcc"][0]
assert "exited with status 1 before it was ready" in c["error"], c["error"]
PY
exit 0
