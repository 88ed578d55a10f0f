#!/bin/bash
# Real tools measured with no help from them (issue 16): the shipped read-latency.bt given
# {pid} counts exactly the workload's reads, its BPF programs come with the kernel's runs and
# ns/run in the summary, result.json and report.html; real-tools.ini runs each tool on its
# workload and skips a bcc tool without kernel headers with that reason; a bad placeholder is a
# scenario error at its line.
. "$(dirname "$0")/lib.sh"
need_root
command -v bpftrace >/dev/null || skip "bpftrace not installed"
export TB_STATE_DIR=$TMP/run

# 1. An unknown placeholder is refused before anything runs, naming the file and line.
cat >"$TMP/bad.ini" <<'EOF'
[workload getpid]
type = getpid

[tracer t]
type = command
command = bpftrace -e 'BEGIN { exit(); }' {pdi}

[matrix]
workloads = getpid
tracers = t
EOF
expect_exit 2 "$TB" run "$TMP/bad.ini" --dry-run
grep -q "bad.ini:6: \[tracer t\]: key 'command': word 3 ('{pdi}'): unknown placeholder {pdi}" \
	"$TMP/err" || { cat "$TMP/err" >&2; fail "no file:line for the unknown placeholder"; }

# 2. The shipped script, given {pid}, run from another directory (the .bt is found next to
#    the scenario).
cd "$TMP" || fail "no $TMP"
"$TB" run "$TB_ROOT/scenarios/bpftrace/read-latency.ini" --quick --seed 16 -o "$TMP/rl" --wait \
	>"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" -eq 0 ] || { cat "$TMP/out" "$TMP/err" >&2; fail "read-latency.ini exited $rc"; }
grep -q "read-4k / read-latency-bt: events from events-regex" "$TMP/out" ||
	{ cat "$TMP/out" >&2; fail "no command-tracer section in the summary"; }
grep -q "tracepoint:syscalls:sys_enter_pread64" "$TMP/out" ||
	{ cat "$TMP/out" >&2; fail "no per-program row in the summary"; }
python3 - "$TMP/rl/result.json" <<'PY' || fail "read-latency.bt's cell"
import json, sys
r = json.load(open(sys.argv[1]))
c = [c for c in r["cells"] if c["tracer"] == "read-latency-bt"][0]
# the timed samples' ops: events_recorded leaves the accounting samples out (METHODOLOGY 2.11)
ops = sum(s["ops"] for s in c["samples"]
          if not s["warmup"] and not s["failed"] and not s.get("accounting") and not s.get("rerun"))
per_op = c["events_recorded"] / ops
print("events/op", per_op, "proof", c["proof"]["outcome"], c["proof"]["message"])
assert abs(per_op - 1.0) <= 0.01, per_op          # exactly the workload's reads
assert c["proof"]["outcome"] == "match", c["proof"]
x = c["tracer_extra"]
assert x["bpf_method"] == "fdinfo", x["bpf_method"]
assert x["command"][-1].isdigit(), x["command"]   # {pid} was filled in
progs = x["bpf_programs"]
attach = " ".join(p["attach"] for p in progs)
for tp in ("sys_enter_read", "sys_enter_pread64", "sys_exit_read", "sys_exit_pread64"):
    assert "tracepoint:syscalls:" + tp in attach, (tp, attach)
for p in progs:
    assert p["runs"] is not None, p
    assert p["runs"] == 0 or p["ns_per_run"] > 0, p
    assert p["samples"] >= 1, p
pread = [p for p in progs if "sys_exit_pread64" in p["attach"]][0]
assert pread["runs_per_op"] >= 0.99, pread       # every pread64 of the host runs it
assert pread["overhead_share"] is None or pread["overhead_share"] > 0, pread
assert x["bpf_maps_memlock"] > 0 and x["bpf_maps"], x["bpf_maps"]
print("programs:", [(p["name"], p["runs_per_op"], p["ns_per_run"]) for p in progs])
PY
grep -q 'id="command-tracers"' "$TMP/rl/report.html" || fail "no command-tracer section in the report"
grep -q 'class="bpf-programs"' "$TMP/rl/report.html" || fail "no program table in the report"
"$TB" report "$TMP/rl/result.json" -o "$TMP/again.html" >/dev/null 2>&1 || fail "report from the file"
grep -q 'sys_exit_pread64' "$TMP/again.html" || fail "the table is not in the file's report"

# 3. real-tools.ini: each tool on the workload it targets (not the whole matrix); where bcc cannot
#    compile (no kernel headers) its tools are skipped with the reason before anything runs.
"$TB" run "$TB_ROOT/scenarios/real-tools.ini" --dry-run >"$TMP/out" 2>"$TMP/err" ||
	{ cat "$TMP/out" "$TMP/err" >&2; fail "real-tools.ini --dry-run"; }
grep -q "getpid-paced/perf-record" "$TMP/out" || { cat "$TMP/out" >&2; fail "no perf-record cell"; }
grep -q "getpid/opensnoop.bt\|read-4k/syscount.bt" "$TMP/out" &&
	{ cat "$TMP/out" >&2; fail "a tool on a workload it does not target"; }
if command -v execsnoop-bpfcc >/dev/null && [ ! -e "/lib/modules/$(uname -r)/build" ] &&
	[ ! -e /sys/kernel/kheaders.tar.xz ]; then
	grep -q "real-tools.ini:[0-9]*: \[tracer execsnoop-bpfcc\]: command is unsupported here: a bcc tool compiles its BPF programs when it starts, against the running kernel's headers" \
		"$TMP/err" || { cat "$TMP/err" >&2; fail "bcc: no reason"; }
	grep -q "exec/execsnoop-bpfcc" "$TMP/out" && { cat "$TMP/out" >&2; fail "an unsupported cell planned"; }
	grep -q "Traceback\|No child processes" "$TMP/out" "$TMP/err" && fail "bcc: a wrong message"
fi
ls "$TB_STATE_DIR"/armed-*.json >/dev/null 2>&1 && fail "armed records left: $(ls "$TB_STATE_DIR")"
exit 0
