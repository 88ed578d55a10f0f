#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make validate-services-delay: is a known per-request delay recovered on a real service? Runs
# scenarios/validation/services-delay.ini once: on getpid (the spin alone), nginx, Redis and
# PostgreSQL (closed loop) and PostgreSQL at a fixed rate (open loop), a BPF probe that spins a
# known time at a syscall made once per request (call), filtered to the server's cgroup, beside
# the same probe with an empty body (the probe's own dispatch cancels in the difference). The
# spin's own time per hit is calibrated on getpid (spin minus empty ns per call), and must be
# the spin asked within max(10%, 2 us). The truth per request is that time times the probed
# syscall's entries per request as the counting pass counted them in the server's cgroup. In
# the open loop (far below saturation) the p50 latency must gain the truth; in a closed loop
# the spin saturates the server, so its CPU time per request must gain the truth (both within
# max(10%, 2 us), issue 30), and its throughput must change as that CPU time per request says
# at the CPU share each cell's server had: x share(spin)/share(empty) x cpu/(cpu + truth),
# within the 95% bootstrap CI of the measured change (spin over empty, paired by round).
# Prints one line per check and the machine. Output:
# results/validation-services-delay-<UTC>/ (result.json, delay.txt).
# Exit 0 when every check holds, 1 when one does not, 2 on bad setup (the run failed).
#
# Environment: TB_BIN (default ./tracebench), VALIDATE_OUT (output directory), VALIDATE_QUICK=1
# (--quick: 5 rounds of 200 ms samples; a sample is still at least 2000 requests, so the open
# loop's last 8 s). The run waits for the lock.
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
import json, os, random, statistics, sys
out = sys.argv[1]
r = json.load(open(os.path.join(out, "result.json")))
checks = failed = 0
NAN = float("nan")


def counted(s):
    """A sample in the statistics: measured, complete, not an accounting or run-again one."""
    return not (s.get("warmup") or s.get("failed") or s.get("abandoned") or
                s.get("partial_round") or s.get("accounting") or s.get("rerun"))


def paired(spin, empty, f):
    """f(spin sample, empty sample) for each round both measured (cells of one round run
    minutes apart at most, under the same load)."""
    a = {s["round"]: s for s in spin["samples"] if counted(s)}
    b = {s["round"]: s for s in empty["samples"] if counted(s)}
    return [f(a[k], b[k]) for k in sorted(set(a) & set(b))]


def med(xs):
    return statistics.median(xs) if xs else NAN


def bootstrap(xs, n=4000, seed=30):
    """95% percentile bootstrap CI of the median of xs."""
    if len(xs) < 2:
        return NAN, NAN
    rng = random.Random(seed)
    meds = sorted(med([rng.choice(xs) for _ in xs]) for _ in range(n))
    return meds[int(0.025 * n)], meds[int(0.975 * n) - 1]


def judge(ok):
    global checks, failed
    checks += 1
    failed += not ok
    return "ok" if ok else "FAILED"


def tol(truth):
    return max(0.1 * truth, 2000.0)


def pair(wl):
    """The spin cell of workload wl and its empty twin (same probe, body = empty)."""
    cs = [c for c in r["cells"] if c["workload"] == wl and not c["baseline"]]
    spin = [c for c in cs if c["tracer_config"].get("body") == "spin"]
    empty = [c for c in cs if c["tracer_config"].get("body") == "empty"]
    return (spin[0], empty[0]) if spin and empty else (None, None)


def per_request(c):
    """The probed syscall's entries per request as the counting pass counted them in the
    server's cgroup (the spin cell's expected events), or None."""
    target = c["tracer_config"].get("target", "")
    for e in (c.get("expected_events") or {}).get("events", []):
        if e.get("event") == target:
            return e.get("per_op")
    return None


def cpu(s):  # the server cgroup's CPU time per request (ns)
    return s["service"]["server_cpu_s"] / s["ops"] * 1e9


def share(s):  # the server's CPU share of the batch's wall time
    return s["service"]["server_cpu_s"] / (s["elapsed_ns"] / 1e9)


def rps(s):  # requests per second of the batch's wall time (the clock the share is read on)
    return s["ops"] / (s["elapsed_ns"] / 1e9)


# The spin's own time per hit, calibrated on getpid (the spin alone: spin minus empty ns per
# call, paired by round, over its hits per call), against the spin asked.
spin, empty = pair("getpid")
if spin is None or spin.get("error") or empty.get("error"):
    print("getpid         no spin/empty pair measured: the spin cannot be calibrated")
    sys.exit(1)
asked = float(spin["tracer_config"]["spin"])
cal = med(paired(spin, empty, lambda a, b: a["ns_per_op"] - b["ns_per_op"]))
cal /= spin["proof"].get("events_per_op") or 1.0
print("%-14s the spin alone: %.0f ns per hit measured for %.0f ns asked (%+.1f%%, tolerance "
      "%.0f ns) %s" % ("getpid", cal, asked, 100 * (cal - asked) / asked, tol(asked),
                       judge(abs(cal - asked) <= tol(asked))))

for wl in sorted({c["workload"] for c in r["cells"]} - {"getpid"}):
    spin, empty = pair(wl)
    if spin is None or spin.get("error") or empty.get("error"):
        print("%-14s no spin/empty pair measured (%s)" % (
            wl, (spin or {}).get("error") or (empty or {}).get("error") or "no pair"))
        failed += 1
        continue
    h = per_request(spin)
    if not h:
        print("%-14s the counting pass did not count %s: no truth" % (
            wl, spin["tracer_config"].get("target")))
        failed += 1
        continue
    truth = h * cal
    print("%-14s %.3f hits/request counted (%.3f in the spin cell) x %.0f ns = %.0f ns per "
          "request" % (wl, h, spin["proof"].get("events_per_op") or 0, cal, truth))
    if spin["service"].get("decides") != "throughput":
        # An open loop far below saturation: a request's latency gains the spin, no queue.
        got = med(paired(spin, empty, lambda a, b: a["service"]["p50_ns"] -
                         b["service"]["p50_ns"]))
        print("%-14s p50 latency %+.0f ns (%+.1f%%, tolerance %.0f ns) %s" % (
            "", got, 100 * (got - truth) / truth, tol(truth),
            judge(abs(got - truth) <= tol(truth))))
        continue
    # A closed loop: the spin saturates the server, whose time per request is then its CPU
    # time per request. That must gain the truth; and the throughput must change as the CPU
    # per request says at the CPU share each cell's server had (rps = share / CPU per
    # request): x share(spin)/share(empty) x cpu/(cpu + truth), each round's against its own.
    got = med(paired(spin, empty, lambda a, b: cpu(a) - cpu(b)))
    print("%-14s server CPU per request %+.0f ns (%+.1f%%, tolerance %.0f ns) %s" % (
        "", got, 100 * (got - truth) / truth, tol(truth), judge(abs(got - truth) <= tol(truth))))
    q = paired(spin, empty, lambda a, b: (rps(a) / rps(b)) /
               (share(a) / share(b) * cpu(b) / (cpu(b) + truth)))
    lo, hi = bootstrap(q)
    print("%-14s throughput x%.3f, x%.3f of what the CPU per request says [%.3f, %.3f] (the "
          "server's CPU share %.2f, %.2f without the spin) %s" % (
              "", med(paired(spin, empty, lambda a, b: rps(a) / rps(b))), med(q), lo, hi,
              med(paired(spin, empty, lambda a, b: share(a))),
              med(paired(spin, empty, lambda a, b: share(b))), judge(lo <= 1 <= hi)))

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
