#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make validate-services-delay: is a known per-request delay recovered on a real service? Runs
# scenarios/validation/services-delay.ini once: on getpid (the spin alone), nginx, Redis and
# PostgreSQL (closed loop) and PostgreSQL at a fixed rate (open loop), a BPF probe that spins a
# known time at a syscall made once per request (call), filtered to the server's cgroup, beside
# the same probe with an empty body. The spin's cost per request is the spin cell's median ns
# per request minus the empty cell's (the probe's own dispatch cancels), the truth the spin
# times the spin cell's hits per request; in the open loop the p50 latency delta of the two
# cells against the same truth. getpid's and the open loop's must be within max(10%, 2 us)
# (issue 30); the closed loops' are printed beside the server's CPU per request, not judged: a
# saturated server's CPU per request rose by more than the spin here. Prints one line
# per cell and the machine. Output: results/validation-services-delay-<UTC>/ (result.json,
# delay.txt).
# Exit 0 when every check holds, 1 when one does not, 2 on bad setup (the run failed).
#
# Environment: TB_BIN (default ./tracebench), VALIDATE_OUT (output directory), VALIDATE_QUICK=1
# (--quick: 5 rounds; the services' samples stay a whole second). The run waits for the lock.
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
TB=${TB_BIN:-$root/tracebench}
STAMP=$(date -u +%Y%m%dT%H%M%SZ)
OUT=${VALIDATE_OUT:-$root/results/validation-services-delay-$STAMP}
QFLAG=
[ "${VALIDATE_QUICK:-0}" = 1 ] && QFLAG=--quick

if [ ! -x "$TB" ]; then
	echo "validate-services-delay.sh: $TB is not an executable (build it: make)" >&2
	exit 2
fi
mkdir -p "$(dirname "$OUT")" || exit 2
# shellcheck disable=SC2086 # QFLAG is empty or one word
if ! "$TB" run "$root/scenarios/validation/services-delay.ini" $QFLAG --wait -q --no-plots \
	-o "$OUT" >"$OUT.log" 2>&1; then
	echo "validate-services-delay.sh: the run failed (its output: $OUT.log)" >&2
	tail -n 5 "$OUT.log" >&2
	exit 2
fi
"$TB" sysinfo --json >"$OUT/sysinfo.json" || exit 2
python3 - "$OUT" >"$OUT/delay.txt" <<'PY'
import json, os, sys
out = sys.argv[1]
r = json.load(open(os.path.join(out, "result.json")))
cells = {c["id"]: c for c in r["cells"]}
checks = failed = 0

def spin_ns(c):
    return float(c["tracer_config"]["spin"])

for sid, c in sorted(cells.items()):
    if c["baseline"] or c["tracer_config"].get("body") != "spin":
        continue
    wl = c["workload"]
    empty = [e for e in cells.values() if e["workload"] == wl and not e["baseline"]
             and e["tracer_config"].get("body") == "empty"]
    if not empty or c.get("error") or empty[0].get("error"):
        print("%-14s no spin/empty pair measured (%s)" % (wl, c.get("error") or "no empty cell"))
        failed += 1
        continue
    e = empty[0]
    hits = c["proof"].get("events_per_op") or 0
    truth = spin_ns(c) * hits
    tol = max(0.1 * truth, 2000.0)
    svc = c.get("service")
    open_loop = svc is not None and svc.get("decides") != "throughput"
    if svc is None:  # the spin alone, on getpid
        got = c["summary"]["median"] - e["summary"]["median"]
        what = "ns/call"
    elif open_loop:
        got = c["service"]["p50_ns"] - e["service"]["p50_ns"]
        what = "p50 latency"
    else:
        got = c["summary"]["median"] - e["summary"]["median"]
        what = "ns/request"
    ok = abs(got - truth) <= tol
    if open_loop or svc is None:
        checks += 1
        failed += not ok
        verdict = "ok" if ok else "FAILED"
    else:
        # A saturated server answers what its CPU allows: its CPU per request rose by more
        # than the spin here, which the spin does not predict. Said, not judged
        # (METHODOLOGY.md "A known per-request delay").
        verdict = "(closed loop: the server's CPU per request %+.0f ns beside it; not judged)" % (
            c["service"]["server_cpu_ns_per_request"] - e["service"]["server_cpu_ns_per_request"])
    print("%-14s %-11s spin %5.0f us x %.3f hits/request = %7.0f ns; measured %+8.0f ns (%+.1f%%, "
          "tolerance %.0f ns) %s" % (wl, what, spin_ns(c) / 1e3, hits, truth, got,
                                     100 * (got - truth) / truth if truth else float("nan"), tol,
                                     verdict))
si = json.load(open(os.path.join(out, "sysinfo.json")))
print("machine: %s, kernel %s, load %s (a busy machine's figures are not the machine's)" % (
    si.get("cpu", {}).get("model", "?"), si.get("kernel", {}).get("release", "?"),
    si.get("load", {}).get("loadavg", "?")))
print("known delay on services: %d of %d checks held" % (checks - failed, checks))
sys.exit(0 if checks and not failed else 1)
PY
st=$?
cat "$OUT/delay.txt"
echo "output: $OUT"
exit $st
