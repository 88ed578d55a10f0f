#!/bin/bash
# tools/loadgen.py, the CPU load of the loaded studies (issue 32): its stress-ng workers run
# pinned to the CPUs named and none is left once it is stopped; bench-precision's PRECISION_LOAD
# (also outside the families mode) and validate-coverage's COVERAGE_LOAD refuse a bad count
# (exit 2) before anything runs; and a
# loaded bench-precision stopped by SIGTERM while it measures (exit 130) leaves no worker behind.
. "$(dirname "$0")/lib.sh"
need_root
T=$TB_ROOT/tools
# bad input, said with the variable's name, before any measurement
PRECISION_FAMILIES=ftrace-event PRECISION_LOAD=two expect_exit 2 python3 "$T/bench-precision.py"
grep -q "PRECISION_LOAD='two': want a count of busy CPUs" "$TMP/err" || fail "PRECISION_LOAD=two"
PRECISION_FAMILIES=ftrace-event PRECISION_LOAD=999 expect_exit 2 python3 "$T/bench-precision.py"
grep -q "PRECISION_LOAD='999': want a count of busy CPUs, at most" "$TMP/err" || fail "999 CPUs"
PRECISION_LOAD=1 expect_exit 2 python3 "$T/bench-precision.py"
grep -q "PRECISION_LOAD is for the families mode only" "$TMP/err" || fail "PRECISION_LOAD alone"
COVERAGE_OUT=$TMP/cov COVERAGE_LOAD=1,1 expect_exit 2 python3 "$T/validate-coverage.py"
grep -q "COVERAGE_LOAD='1,1': want distinct busy-CPU counts" "$TMP/err" || fail "COVERAGE_LOAD"
[ ! -e "$TMP/cov" ] || fail "a refused COVERAGE_LOAD made its output directory"
workers() { pgrep -x stress-ng; }
[ -z "$(workers)" ] || skip "a stress-ng of someone else's runs here"
command -v stress-ng >/dev/null || skip "stress-ng is not installed (make deps)"
[ "$(nproc)" -ge 2 ] || skip "one CPU: no CPU beside the measured one to load"
# pinned where asked, gone when stopped
python3 - "$T" <<'PY' || fail "loadgen's workers"
import os, subprocess, sys
sys.path.insert(0, sys.argv[1])
import loadgen
spare = loadgen.other_cpus()
assert spare and max(os.sched_getaffinity(0)) not in spare, spare
p = loadgen.start(1, spare, "t-loadgen")
try:
    pids = subprocess.run(["pgrep", "-s", str(p.pid)], capture_output=True,
                          text=True).stdout.split()
    assert len(pids) >= 2, pids  # the parent and its worker
    for pid in pids:
        assert os.sched_getaffinity(int(pid)) == {spare[0]}, (pid, os.sched_getaffinity(int(pid)))
finally:
    loadgen.stop(p)
left = subprocess.run(["pgrep", "-s", str(p.pid)], capture_output=True, text=True).stdout
assert not left.strip(), left
loadgen.stop(p)  # twice: nothing
PY
# SIGTERM while the loaded families measure: 130, and neither stress-ng nor our run is left
PRECISION_FAMILIES=ftrace-event PRECISION_LOAD=1 PRECISION_HYPERFINE=0 PRECISION_TIME=30s \
	PRECISION_OUT=$TMP/fam TB_BIN=$TB setsid python3 "$T/bench-precision.py" >"$TMP/out" 2>"$TMP/err" &
pid=$!
for _ in $(seq 100); do
	grep -q "^load: 1 stress-ng CPU worker(s) on CPUs" "$TMP/out" && [ -n "$(workers)" ] && break
	sleep 0.1
done
[ -n "$(workers)" ] || { cat "$TMP/out" "$TMP/err" >&2; fail "no load while the families ran"; }
sleep 2
kill -TERM "$pid"
wait "$pid"
rc=$?
[ "$rc" -eq 130 ] || { cat "$TMP/out" "$TMP/err" >&2; fail "SIGTERM: exit $rc, not 130"; }
for _ in $(seq 50); do [ -z "$(workers)" ] && break; sleep 0.1; done
[ -z "$(workers)" ] || { pgrep -a stress-ng >&2; fail "stress-ng left behind"; }
expect_exit 0 "$TB" cleanup --dry-run
grep -q "nothing to clean" "$TMP/out" "$TMP/err" || { cat "$TMP/out" >&2; fail "left to clean"; }
exit 0
