#!/bin/bash
# tracebench sysinfo: valid JSON, hwloc topology matching nproc, a stable fingerprint, the
# readable summary, fixture roots, and exit 2 for bad usage.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "python3 not installed (needed to check the JSON)"

expect_exit 0 "$TB" sysinfo --json
python3 -m json.tool "$TMP/out" >/dev/null || fail "sysinfo --json is not valid JSON"
cp "$TMP/out" "$TMP/a.json"
expect_exit 0 "$TB" sysinfo --json
cp "$TMP/out" "$TMP/b.json"

python3 - "$TMP/a.json" "$TMP/b.json" "$(nproc)" <<'PY' || fail "sysinfo --json content"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
nproc = int(sys.argv[3])
def check(cond, what):
    if not cond:
        print("FAIL:", what, file=sys.stderr)
        sys.exit(1)
t = a["topology"]
check(isinstance(t, dict) and t["source"] == "hwloc", "topology from hwloc: %r" % t)
check(t["pus"] == nproc, "topology.pus %s != nproc %s" % (t["pus"], nproc))
check(len(t["pu_map"]) == nproc, "pu_map has %d entries" % len(t["pu_map"]))
check(1 <= t["cores"] <= t["pus"] and t["packages"] >= 1, "cores/packages %r" % t)
check(a["fingerprint"] == b["fingerprint"], "fingerprint changed: %s %s" % (a["fingerprint"], b["fingerprint"]))
check(len(a["fingerprint"]) == 16, "fingerprint %r" % a["fingerprint"])
check("mitigations" in a["fingerprint_fields"] and "load.loadavg" not in a["fingerprint_fields"],
      "fingerprint_fields")
for k in ("kernel", "cpu", "smt", "cpufreq", "cpuidle", "clocksource", "mitigations",
          "virtualization", "thp", "sysctl", "tracefs", "libraries", "tools", "load"):
    check(k in a, "missing key " + k)
check(a["kernel"]["release"] != "unknown", "kernel.release unknown")
check(a["libraries"]["libbpf"] != "unknown", "libbpf version unknown")
for tool in ("perf", "bpftrace", "trace-cmd", "lttng", "bpftool", "gnuplot"):
    check(tool in a["tools"] and a["tools"][tool], "tool " + tool)
PY

# The summary: grouped key/value lines with the same fingerprint.
expect_exit 0 "$TB" sysinfo
fp=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["fingerprint"])' "$TMP/a.json")
grep -q "^  fingerprint  *$fp" "$TMP/out" || fail "summary lacks fingerprint $fp"
grep -q '^CPU$' "$TMP/out" || fail "summary has no CPU group"
grep -q 'topology (hwloc)  *[0-9]' "$TMP/out" || fail "summary has no topology"

# A fixture root with missing files says unknown.
if [ -d "$TB_ROOT/tests/data/sysroot-minimal" ]; then
	expect_exit 0 "$TB" sysinfo --root "$TB_ROOT/tests/data/sysroot-minimal" --json
	python3 - "$TMP/out" <<'PY' || fail "minimal fixture"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["kernel"]["config_hash"] == "unknown", d["kernel"]
assert d["cpufreq"]["driver"] == "unknown", d["cpufreq"]
assert d["mitigations"] == "unknown"
assert d["hostname"] == "fixture-minimal"
PY
fi

expect_exit 2 "$TB" sysinfo --bogus
grep -q -- "--bogus" "$TMP/err" || fail "--bogus not named: $(cat "$TMP/err")"
expect_exit 2 "$TB" sysinfo extra-argument
expect_exit 2 "$TB" sysinfo --root /nonexistent/dir
expect_exit 0 "$TB" sysinfo --help
grep -q "usage: tracebench sysinfo" "$TMP/out" || fail "--help prints no usage"
exit 0
