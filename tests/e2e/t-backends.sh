#!/bin/bash
# A tiny scenarios/backends.ini: the BPF ring buffer and perf buffer with an equal payload, the
# ftrace event and an empty program on the same syscall entry, each cell traced (proof match),
# the payload and the bytes the reader got per record in result.json; a bad payload is refused
# naming file:line.
. "$(dirname "$0")/lib.sh"
need_root
cat >"$TMP/bad.ini" <<'EOF'
[workload g]
type = getpid

[tracer rb]
type = bpf
program = ringbuf-events
payload = 2

[matrix]
workloads = g
tracers = rb
EOF
expect_exit 2 "$TB" run "$TMP/bad.ini" --dry-run
grep -q "bad.ini:.*\[tracer rb\].*payload: 2 is below 4 bytes" "$TMP/err" ||
	{ cat "$TMP/err" >&2; fail "no file:line for the bad payload"; }

cat >"$TMP/tiny.ini" <<'EOF'
[global]
repetitions = 2
warmup = 0
duration = 100ms
max-cv = 50%

[workload getpid]
type = getpid
work = 200

[tracer ft]
type = ftrace-events
events = syscalls:sys_enter_getpid
pid-filter = workload

[tracer rb]
type = bpf
program = ringbuf-events
payload = 64
ringbuf-size = 16M
stats = false

[tracer pb]
type = bpf
program = ringbuf-events
output = perfbuf
payload = 64
perfbuf-watermark = 16K
ringbuf-size = 1M
stats = false

[tracer empty]
type = bpf
program = probe
attach = tp_btf
body = empty
stats = false

[matrix]
workloads = getpid
tracers = ft, rb, pb, empty
EOF
"$TB" run "$TMP/tiny.ini" --seed 29 -o "$TMP/run" --wait >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" -eq 0 ] || { cat "$TMP/out" "$TMP/err" >&2; fail "the tiny backends scenario exited $rc"; }
python3 - "$TMP/run/result.json" <<'PY' || fail "the backends' cells"
import json, sys
r = json.load(open(sys.argv[1]))
cells = {c["tracer"]: c for c in r["cells"] if c["tracer"] != "none"}
assert set(cells) == {"ft", "rb", "pb", "empty"}, sorted(cells)
for name, c in sorted(cells.items()):
    print(name, c["proof"]["outcome"], c["proof"]["message"])
    assert c["proof"]["outcome"] == "match", (name, c["proof"])
for name in ("rb", "pb"):
    x = cells[name]["tracer_extra"]
    print(name, "payload", x["payload"], "record_bytes", x["record_bytes"], "output", x["output"])
    assert x["payload"] == 64, x
    # the ring buffer hands over exactly the payload; perf pads its raw record to 8 bytes
    assert 64 <= x["record_bytes"] < 72, x
assert cells["rb"]["tracer_extra"]["record_bytes"] == 64
assert cells["pb"]["tracer_extra"]["output"] == "perfbuf"
assert cells["ft"]["tracer_extra"]["bytes_per_event"] > 0
# each reader's own CPU per event it read: > 0 for the cell and every measured sample with events
for name in ("rb", "pb"):
    c = cells[name]
    print(name, "tracer_cpu_s", c["tracer_cpu_s"], "consumer_ns_per_event", c["consumer_ns_per_event"])
    assert c["tracer_cpu_s"] > 0 and c["consumer_ns_per_event"] > 0, c["tracer_cpu_s"]
    for s in c["samples"]:
        if not s["warmup"] and not s["failed"] and (s["events"] or 0) > 0:
            assert s["consumer_ns_per_event"] > 0, s
# an empty program has no consumer: no CPU of its own
assert cells["empty"].get("consumer_ns_per_event", 0) == 0, cells["empty"]
PY
sed -n "/^consumers: /,/^$/p" "$TMP/out"
grep -q "^consumers: " "$TMP/out" || { cat "$TMP/out" >&2; fail "no consumers table in the summary"; }
expect_exit 0 "$TB" cleanup --dry-run
exit 0
