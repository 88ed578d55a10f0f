#!/bin/bash
# A command tracer that does not say what it hooks (no `hooks`): the attach points of the BPF
# programs tracebench finds running for it (host/bpf-account.h) give the proof its expected
# events (issue 29). A pid-filtered bpftrace one-liner on sys_enter_getpid over getpid matches,
# hook named, and its system-wide count has a ns/event; over pipe-pingpong, which makes no
# getpid, the cell is a control, not "the tracer recorded no events". User-space probes and a
# perf event too: a uprobe and a USDT probe on tracebench's usercall site match over usercall
# and are a control over getpid; a profile probe is a sampling hook. One run holds every cell;
# usercall's samples are short (a uprobe hit costs microseconds, and a traced sample runs the
# baseline's op count).
. "$(dirname "$0")/lib.sh"
need_root
command -v bpftrace >/dev/null || skip "no bpftrace"
[ -d /sys/kernel/tracing/events/syscalls ] || skip "no syscall tracepoints"
bin=$(readlink -f "$TB")
# bt_tracer NAME PROBE: a section for a pid-filtered bpftrace one-liner counting PROBE
bt_tracer() {
	cat <<EOF
[tracer $1]
type = command
command = bpftrace -B line -e 'BEGIN { printf("tb-ready\\n"); } $2 /pid == {pid}/ { @c = count(); }'
ready = ^tb-ready\$
ready-timeout = 60s

EOF
}
# --quick: 5 rounds (with fewer every traced cell is untrustworthy, and the ns/event check
# needs a cell with an overhead verdict); no warm-up: each sample of a command cell starts a
# bpftrace.
{
	cat <<EOF
[global]
warmup = 0
duration = 100ms

[workload getpid]
type = getpid

[workload pipe]
type = pipe-pingpong

[workload usercall]
type = usercall
duration = 10ms

EOF
	bt_tracer bt tracepoint:syscalls:sys_enter_getpid
	bt_tracer up "uprobe:$bin:tb_usercall_target"
	bt_tracer usdt "usdt:$bin:tracebench:usercall"
	bt_tracer prof profile:hz:99
	cat <<EOF
[matrix]
workloads = getpid, pipe, usercall
tracers = bt, up, usdt, prof
exclude = pipe/up, pipe/usdt, pipe/prof, usercall/bt, getpid/usdt, getpid/prof
EOF
} >"$TMP/attach.ini"
"$TB" run "$TMP/attach.ini" --quick --wait --no-plots -o "$TMP/run" >"$TMP/out" 2>"$TMP/err" ||
	{ tail -n 20 "$TMP/err" >&2; fail "the run failed"; }
python3 - "$TMP/run/result.json" <<'PY' || fail "the proof from the attach points"
import json, sys
cells = {c["id"]: c for c in json.load(open(sys.argv[1]))["cells"]}
g, p = cells["getpid/bt"], cells["pipe/bt"]
for c in (g, p):
    x = c["expected_events"]
    assert x["kind"] == "events" and x["scope"] == "system", x
    assert x["hooks"] == "sys_enter_getpid (found attached)", x["hooks"]
assert g["proof"]["outcome"] == "match", g["proof"]
assert g["expected_events"]["per_op"] == 1.0, g["expected_events"]
o = g["overhead"]
if o["verdict"] == "overhead":  # the cost figures are shown only then
    assert o["ns_per_event"] is not None, o
    assert abs(o["ns_per_event"] - o["ns_per_op"] / o["events_per_op"]) < 1e-6, o
assert p["proof"]["outcome"] == "control", p["proof"]
assert "sys_enter_getpid" in p["proof"]["message"], p["proof"]
assert "did not trace" not in p["overhead"].get("reason", ""), p["overhead"]
PY

# user-space probes and a perf event, on usercall (which calls tb_usercall_target) and getpid
python3 - "$TMP/run/result.json" <<'PY' || fail "the proof from user-space attach points"
import json, sys
cells = {c["id"]: c for c in json.load(open(sys.argv[1]))["cells"]}
for t, hook in (("up", "uprobe:tb_usercall_target"), ("usdt", "usdt:tracebench:usercall")):
    u, g = cells["usercall/" + t], cells.get("getpid/" + t)
    for c in (u, g) if g else (u,):
        x = c["expected_events"]
        assert x["kind"] == "events", (t, x)
        assert x["hooks"] == hook + " (found attached)", (t, x["hooks"])
    assert u["proof"]["outcome"] == "match", (t, u["proof"])
    assert u["expected_events"]["per_op"] == 1.0, (t, u["expected_events"])
    if g:  # tracebench's own function, which getpid never calls: a control
        assert g["proof"]["outcome"] == "control", (t, g["proof"])
c = cells["usercall/prof"]
x = c["expected_events"]
assert x["kind"] == "sampling" and x["hooks"] == "nothing it counts (found attached)", x
assert c["proof"]["outcome"] == "sampled", c["proof"]
PY
exit 0
