#!/bin/bash
# External tracers through `tracebench run`: a bpftrace script and `perf record`, around the
# getpid workload. Each must record events, leave no process, armed item or instance behind.
# (The command tracer itself is also tested without the runner in tests/unit/tracers-command.c.)
. "$(dirname "$0")/lib.sh"
need_root
command -v bpftrace >/dev/null || skip "bpftrace not installed"
command -v perf >/dev/null || skip "perf not installed"
export TB_STATE_DIR=$TMP/run

cat >"$TMP/cmd.ini" <<EOF
[global]
repetitions = 1
warmup = 0
duration = 0.3s

[workload getpid]
type = getpid

; BEGIN runs once every probe is attached: the exact readiness signal (-B line flushes it).
[tracer bpftrace-getpid]
type = command
command = bpftrace -B line -e 'BEGIN { printf("tb-ready\\n"); } tracepoint:syscalls:sys_enter_getpid { @c = count(); }'
ready = ^tb-ready\$
ready-timeout = 60s
events-regex = @c: ([0-9]+)

[tracer perf-record]
type = command
command = perf record -F 99 -a -o $TMP/perf.data
ready-settle = 300ms
events-regex = \\(([0-9]+) samples\\)

[matrix]
workloads = getpid
tracers = bpftrace-getpid, perf-record
EOF

"$TB" run "$TMP/cmd.ini" -o "$TMP/out-run" --wait >"$TMP/out" 2>"$TMP/err"
rc=$?
if grep -q "not implemented" "$TMP/err"; then
	skip "tracebench run is not implemented yet"
fi
if grep -qi "unknown workload.*getpid\|workload type 'getpid'" "$TMP/err"; then
	skip "the getpid workload is not built in yet"
fi
[ "$rc" -eq 0 ] || { cat "$TMP/out" "$TMP/err" >&2; fail "run exited $rc"; }
res=$TMP/out-run/result.json
[ -s "$res" ] || fail "no result.json"
python3 - "$res" <<'PY' || fail "events not recorded"
import json, sys
r = json.load(open(sys.argv[1]))
cells = {c["tracer"]: c for c in r["cells"]}
for name in ("bpftrace-getpid", "perf-record"):
    c = cells.get(name)
    assert c is not None, f"no cell for {name}"
    ev = c.get("events_recorded")
    ev = sum(ev) if isinstance(ev, list) else ev
    assert ev and ev > 0, f"{name}: events_recorded {ev}"
    print(name, "events", ev)
PY
[ -s "$TMP/perf.data" ] || fail "perf record wrote nothing"
ls "$TB_STATE_DIR"/armed-*.json >/dev/null 2>&1 && fail "armed records left: $(ls "$TB_STATE_DIR")"
for i in $(ls /sys/kernel/tracing/instances | grep "^tracebench-"); do
	owner=${i#tracebench-}
	owner=${owner%%-*}
	kill -0 "$owner" 2>/dev/null || fail "instance $i of a dead owner left behind"
done
exit 0
