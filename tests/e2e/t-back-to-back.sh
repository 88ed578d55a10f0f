#!/bin/bash
# Two runs back to back never flag each other (issue 15): a closed BPF program stays listed for
# up to ~0.5 s after its last fd closed, and the next run saw it as foreign instrumentation and
# marked every verdict untrustworthy. Ten runs of a BPF scenario, each started the moment the
# one before exits; none may report foreign instrumentation, and none may leave a program.
. "$(dirname "$0")/lib.sh"
need_root
[ -d /sys/fs/bpf ] || [ -e /sys/kernel/btf/vmlinux ] || skip "no BPF here"
D=$TB_ROOT/tests/data/run
"$TB" list bpf 2>&1 | grep -q "bpf .*supported" || skip "bpf tracer unsupported here: $("$TB" list bpf | grep why)"
runs=${TB_BACK_TO_BACK_RUNS:-10}
before=$(own_tracing_state '^tb_sc_') # another run's programs are not ours to count (lib.sh)
for i in $(seq 1 "$runs"); do
	timeout 60 "$TB" run --wait "$D/back-to-back.ini" -o "$TMP/r$i" -q --no-plots >"$TMP/out" 2>"$TMP/err" ||
		{ cat "$TMP/out" "$TMP/err"; fail "run $i failed"; }
	grep -i "foreign" "$TMP/err" && fail "run $i flagged foreign instrumentation: $(cat "$TMP/err")"
	python3 - "$TMP/r$i/result.json" <<'PY' || fail "run $i recorded foreign instrumentation"
import json, sys
r = json.load(open(sys.argv[1]))
f = r.get("foreign_instrumentation", [])
assert not f, f
for c in r["cells"]:
    v = c.get("overhead", {}).get("verdict")
    assert v != "untrustworthy" or "foreign" not in c["overhead"].get("reason", ""), c["overhead"]
PY
done
# Teardown waited for the kernel to free them: nothing of ours is listed once the last exits.
d=$(state_unchanged "$before" '^tb_sc_') || fail "BPF programs still listed after the last run: $d"
# An external tracer's programs too (they are the command's, found through its fdinfo).
if command -v bpftrace >/dev/null; then
	cat >"$TMP/bpftrace.ini" <<'EOF2'
[global]
repetitions = 1
warmup = 0
duration = 5ms
settle = 0

[workload getpid]
type = getpid

[tracer bt]
type = command
command = bpftrace -B line -e 'BEGIN { printf("tb-ready\n"); } tracepoint:raw_syscalls:sys_enter { @c = count(); }'
ready = ^tb-ready$
ready-timeout = 60s

[matrix]
workloads = getpid
tracers = none, bt
EOF2
	for i in 1 2 3; do
		timeout 120 "$TB" run --wait "$TMP/bpftrace.ini" -o "$TMP/b$i" -q --no-plots >"$TMP/out" 2>"$TMP/err" ||
			{ cat "$TMP/out" "$TMP/err"; fail "bpftrace run $i failed"; }
		grep -i "foreign" "$TMP/err" && fail "bpftrace run $i flagged foreign instrumentation"
	done
	echo "3 bpftrace runs back to back, none flagged another"
fi
echo "$runs runs back to back, none flagged another"
exit 0
