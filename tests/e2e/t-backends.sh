#!/bin/bash
# A tiny scenarios/backends.ini: the BPF ring buffer and perf buffer with an equal payload, the
# ftrace event and an empty program on the same syscall entry, each cell traced (proof match),
# the payload and the bytes the reader got per record in result.json; the ring buffer's reader
# with its file sink (consumer = file) beside them, whose file bytes per event are its records';
# a bad payload and a file sink on a program without a reader are refused naming file:line.
. "$(dirname "$0")/lib.sh"
need_root
# refused NAME PROGRAM KEY=VALUE PATTERN: a scenario of one bpf section [tracer NAME] of that
# program and key (its line 7) on getpid is refused (exit 2) with PATTERN on stderr.
refused() {
	printf '[workload g]\ntype = getpid\n\n[tracer %s]\ntype = bpf\nprogram = %s\n%s\n\n' \
		"$1" "$2" "${3/=/ = }" >"$TMP/$1.ini"
	printf '[matrix]\nworkloads = g\ntracers = %s\n' "$1" >>"$TMP/$1.ini"
	expect_exit 2 "$TB" run "$TMP/$1.ini" --dry-run
	grep -q "$1.ini:7: \[tracer $1\]: $4" "$TMP/err" ||
		{ cat "$TMP/err" >&2; fail "no file:line for [tracer $1]'s $3"; }
}
refused rb ringbuf-events payload=2 "payload: 2 is below 4 bytes"
refused agg syscall-count consumer=file "consumer: file only with program = ringbuf-events"

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

[tracer rbf]
type = bpf
program = ringbuf-events
payload = 64
ringbuf-size = 16M
consumer = file
stats = false

[tracer empty]
type = bpf
program = probe
attach = tp_btf
body = empty
stats = false

[matrix]
workloads = getpid
tracers = ft, rb, pb, rbf, empty
EOF
"$TB" run "$TMP/tiny.ini" --seed 29 -o "$TMP/run" --wait >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" -eq 0 ] || { cat "$TMP/out" "$TMP/err" >&2; fail "the tiny backends scenario exited $rc"; }
python3 - "$TMP/run/result.json" <<'PY' || fail "the backends' cells"
import json, sys
r = json.load(open(sys.argv[1]))
cells = {c["tracer"]: c for c in r["cells"] if c["tracer"] != "none"}
assert set(cells) == {"ft", "rb", "pb", "rbf", "empty"}, sorted(cells)
for name, c in sorted(cells.items()):
    print(name, c["proof"]["outcome"], c["proof"]["message"])
    # on a failure, every sample's counts: a flake once saw 0.737 events/op in the pb cell
    assert c["proof"]["outcome"] == "match", (name, c["proof"], c["ops_per_sample"], [
        {k: s.get(k) for k in ("round", "warmup", "failed", "rerun", "ops", "events", "lost")}
        for s in c["samples"]])
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
# the file sink: every record the reader got is in its file, 64 bytes each; discard writes none
x = cells["rbf"]["tracer_extra"]
print("rbf consumer", x["consumer"], "file_bytes", x["file_bytes"], "disk_bytes_per_event",
      cells["rbf"].get("disk_bytes_per_event"))
assert x["consumer"] == "file" and x["record_bytes"] == 64 and not x["file_kept"], x
assert cells["rbf"]["disk_bytes_per_event"] == 64, cells["rbf"].get("disk_bytes_per_event")
for s in cells["rbf"]["samples"]:
    if not s["failed"] and (s["events"] or 0) > 0:
        assert s["tracer_disk_bytes"] == 64 * s["events"], s
assert cells["rb"]["tracer_extra"]["consumer"] == "discard"
assert not cells["rb"].get("disk_bytes_per_event"), cells["rb"]
# an empty program has no consumer: no CPU of its own
assert cells["empty"].get("consumer_ns_per_event", 0) == 0, cells["empty"]
PY
sed -n "/^consumers: /,/^$/p" "$TMP/out"
grep -q "^consumers: " "$TMP/out" || { cat "$TMP/out" >&2; fail "no consumers table in the summary"; }
# deleted after each sample (keep-raw = false): nothing left in its directory
[ -z "$(ls -A "$TMP/run/tracers/rbf" 2>/dev/null)" ] ||
	{ ls -la "$TMP/run/tracers/rbf" >&2; fail "the file sink left files without keep-raw"; }
expect_exit 0 "$TB" cleanup --dry-run
exit 0
