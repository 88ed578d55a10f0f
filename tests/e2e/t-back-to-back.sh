#!/bin/bash
# Two runs back to back never flag each other (issue 15): a closed BPF program stays listed for
# up to ~0.5 s after its last fd closed, and the next run saw it as foreign instrumentation and
# marked every verdict untrustworthy. Six runs of a BPF scenario, each started the moment the
# one before exits; none may report foreign instrumentation, and none may leave a program.
. "$(dirname "$0")/lib.sh"
need_root
[ -d /sys/fs/bpf ] || [ -e /sys/kernel/btf/vmlinux ] || skip "no BPF here"
D=$TB_ROOT/tests/data/run
"$TB" list bpf 2>&1 | grep -q "bpf .*supported" || skip "bpf tracer unsupported here: $("$TB" list bpf | grep why)"
runs=${TB_BACK_TO_BACK_RUNS:-6}
# Did run DIR flag a program an earlier run of this test loaded (names matching RE, or those
# the result PREV recorded)? Another user's instrumentation on this shared machine is foreign
# indeed; only our own runs must never be (issue 28).
flagged_ours() { # flagged_ours DIR RE [PREV]
	python3 - "$1/result.json" "$2" "${3:-}" <<'PY'
import json, re, sys
r = json.load(open(sys.argv[1]))
names = [sys.argv[2]]
if sys.argv[3]:
    for c in json.load(open(sys.argv[3]))["cells"]:
        for p in (c.get("tracer_extra") or {}).get("bpf_programs") or []:
            if p.get("name"):
                names.append(re.escape(p["name"]))
pat = re.compile("'(%s)" % "|".join(names))
ours = [f for f in r.get("foreign_instrumentation", []) if pat.search(f)]
for c in r["cells"]:
    why = (c.get("overhead") or {}).get("reason") or ""
    if "foreign" in why and pat.search(why):
        ours.append(c["id"] + ": " + why)
print("\n".join(ours))
sys.exit(1 if ours else 0)
PY
}
before=$(own_tracing_state '^tb_sc_') # another run's programs are not ours to count (lib.sh)
for i in $(seq 1 "$runs"); do
	timeout 600 "$TB" run --wait "$D/back-to-back.ini" -o "$TMP/r$i" -q --no-plots >"$TMP/out" 2>"$TMP/err" ||
		{ cat "$TMP/out" "$TMP/err"; fail "run $i failed"; }
	flagged_ours "$TMP/r$i" 'tb_sc_' || fail "run $i flagged an earlier run's program as foreign"
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
		timeout 600 "$TB" run --wait "$TMP/bpftrace.ini" -o "$TMP/b$i" -q --no-plots >"$TMP/out" 2>"$TMP/err" ||
			{ cat "$TMP/out" "$TMP/err"; fail "bpftrace run $i failed"; }
		prev=
		[ "$i" -gt 1 ] && prev=$TMP/b$((i - 1))/result.json
		flagged_ours "$TMP/b$i" 'tb_sc_' "$prev" ||
			fail "bpftrace run $i flagged an earlier run's program as foreign"
	done
	echo "3 bpftrace runs back to back, none flagged another"
fi
echo "$runs runs back to back, none flagged another"
exit 0
