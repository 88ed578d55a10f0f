#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make validate-services-delay: is a known per-request delay recovered on a real service? Runs
# scenarios/validation/services-delay.ini once: on getpid (the spin alone), nginx, Redis and
# PostgreSQL (closed loop) and PostgreSQL at a fixed rate (open loop), a BPF probe that spins a
# known time at a syscall made once per request (call), filtered to the server's cgroup. A
# workload's pair is its cell with the largest spin against its reference: the probe with an
# empty body where there is one (the probe's own dispatch cancels), else the smallest spin
# (the closed loops: a 50 us against a 100 us spin, both saturating the server, so that it
# runs the same way in both). The spin's own time per hit at each spin asked is calibrated on
# getpid (spin minus empty ns per call, paired by round, over its hits per call), and must be
# the spin asked within max(10%, 2 us). The truth per request is the pair's difference of those
# times times the probed syscall's entries per request as the counting pass counted them in the
# server's cgroup. In the open loop (far below saturation) the p50 latency must gain the truth;
# in a closed loop its CPU time per request must (both within max(10%, 2 us), issue 30), and
# its throughput must change as that CPU time per request says at the CPU share each cell's
# server had: x share(a)/share(b) x cpu(b)/(cpu(b) + truth), within the 95% bootstrap CI of
# the measured change (paired by round).
# Prints one line per check and the machine. Output:
# results/validation-services-delay-<UTC>/ (result.json, delay.txt).
# Exit 0 when every check holds, 1 when one does not, 2 on bad setup (the run failed).
#
# Environment: TB_BIN (default ./tracebench), VALIDATE_OUT (output directory), VALIDATE_QUICK=1
# (--quick: 5 rounds of 200 ms samples; a sample is still at least 2000 requests, so the open
# loop's last 8 s), VALIDATE_FROM (an earlier run's output directory: judged again, nothing run
# and nothing written). The run waits for the lock.
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
TB=${TB_BIN:-$root/tracebench}
STAMP=$(date -u +%Y%m%dT%H%M%SZ)
OUT=${VALIDATE_OUT:-$root/results/validation-services-delay-$STAMP}
QFLAG=
[ "${VALIDATE_QUICK:-0}" = 1 ] && QFLAG=--quick

if [ -n "${VALIDATE_FROM:-}" ]; then
	OUT=$VALIDATE_FROM
	if [ ! -f "$OUT/result.json" ]; then
		echo "validate-services-delay.sh: VALIDATE_FROM=$OUT: no result.json there" >&2
		exit 2
	fi
else
	if [ ! -x "$TB" ]; then
		echo "validate-services-delay.sh: $TB is not an executable (build it: make)" >&2
		exit 2
	fi
	mkdir -p "$(dirname "$OUT")" || exit 2
	# shellcheck disable=SC2086 # QFLAG is empty or one word
	if ! "$TB" run "$root/scenarios/validation/services-delay.ini" $QFLAG --wait -q \
		--no-plots -o "$OUT" >"$OUT.log" 2>&1; then
		echo "validate-services-delay.sh: the run failed (its output: $OUT.log)" >&2
		tail -n 5 "$OUT.log" >&2
		exit 2
	fi
	"$TB" sysinfo --json >"$OUT/sysinfo.json" || exit 2
	DEST=$OUT/delay.txt
fi
# The judgment of the run in $OUT, on stdout.
judge() {
	python3 - "$OUT" <<'PY'
import json, os, random, statistics, sys
out = sys.argv[1]
RESULT = os.path.join(out, "result.json")


def malformed(kind, e, tb):
    """A result without a key or value the checks read is bad input (exit 2), named; anything
    else is the script's own error."""
    if not issubclass(kind, (OSError, ValueError, KeyError, IndexError, TypeError,
                             AttributeError, ZeroDivisionError)):
        return sys.__excepthook__(kind, e, tb)
    sys.stdout.flush()
    print("validate-services-delay: %s: not a tracebench result with cells (%s: %s)" % (
        RESULT, kind.__name__, e), file=sys.stderr)
    os._exit(2)


sys.excepthook = malformed
r = json.load(open(RESULT))
r["cells"][0]["samples"]
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


def spin_of(c):
    """The spin c's probe asks, in ns (0: an empty body), or None for another cell."""
    tc = c["tracer_config"]
    if c["baseline"] or tc.get("body") not in ("spin", "empty"):
        return None
    return float(tc.get("spin") or 0) if tc.get("body") == "spin" else 0.0


def pair(wl):
    """Workload wl's largest-spin cell and its reference (the empty body, else the smallest
    spin), or (None, None)."""
    cs = sorted((c for c in r["cells"] if c["workload"] == wl and spin_of(c) is not None),
                key=spin_of)
    return (cs[-1], cs[0]) if len(cs) >= 2 and spin_of(cs[-1]) > spin_of(cs[0]) else (None, None)


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


def ctxsw(s):  # the server cgroup's context switches per request, or None (not read)
    n = s["service"].get("server_ctxsw")
    return None if n is None else n / s["ops"]


def rps(s):  # requests per second of the batch's wall time (the clock the share is read on)
    return s["ops"] / (s["elapsed_ns"] / 1e9)


# The spin's own time per hit at each spin asked, calibrated on getpid (the spin alone: spin
# minus empty ns per call, paired by round, over its hits per call), against the spin asked.
cal = {0.0: 0.0}
empty = next((c for c in r["cells"] if c["workload"] == "getpid" and spin_of(c) == 0), None)
for c in sorted((c for c in r["cells"] if c["workload"] == "getpid" and spin_of(c)),
                key=spin_of):
    if empty is None or empty.get("error") or c.get("error"):
        continue  # not calibrated: a service pair that needs it says so
    asked = spin_of(c)
    got = med(paired(c, empty, lambda a, b: a["ns_per_op"] - b["ns_per_op"]))
    got /= c["proof"].get("events_per_op") or 1.0
    cal[asked] = got
    print("%-14s the spin alone: %.0f ns per hit measured for %.0f ns asked (%+.1f%%, "
          "tolerance %.0f ns) %s" % ("getpid", got, asked, 100 * (got - asked) / asked,
                                     tol(asked), judge(abs(got - asked) <= tol(asked))))
if len(cal) < 2:
    print("getpid         no spin/empty pair measured: the spin cannot be calibrated")
    sys.exit(1)

for wl in sorted({c["workload"] for c in r["cells"]} - {"getpid"}):
    spin, ref = pair(wl)
    if spin is None or spin.get("error") or ref.get("error"):
        print("%-14s no spin pair measured (%s)" % (
            wl, (spin or {}).get("error") or (ref or {}).get("error") or "no pair"))
        failed += 1
        continue
    if spin_of(spin) not in cal or spin_of(ref) not in cal:
        print("%-14s a spin of %.0f or %.0f ns has no getpid calibration" % (
            wl, spin_of(spin), spin_of(ref)))
        failed += 1
        continue
    h = per_request(spin)
    if not h:
        print("%-14s the counting pass did not count %s: no truth" % (
            wl, spin["tracer_config"].get("target")))
        failed += 1
        continue
    hit = cal[spin_of(spin)] - cal[spin_of(ref)]
    truth = h * hit
    print("%-14s %s against %s: %.3f hits/request counted (%.3f in the spin cell) x %.0f ns "
          "= %.0f ns per request" % (wl, spin["tracer"], ref["tracer"], h,
                                     spin["proof"].get("events_per_op") or 0, hit, truth))
    if spin["service"].get("decides") != "throughput":
        # An open loop far below saturation: a request's latency gains the spin, no queue.
        got = med(paired(spin, ref, lambda a, b: a["service"]["p50_ns"] -
                         b["service"]["p50_ns"]))
        print("%-14s p50 latency %+.0f ns (%+.1f%%, tolerance %.0f ns) %s" % (
            "", got, 100 * (got - truth) / truth, tol(truth),
            judge(abs(got - truth) <= tol(truth))))
        continue
    # A closed loop: the spin saturates the server, whose time per request is then its CPU
    # time per request. That must gain the truth; and the throughput must change as the CPU
    # per request says at the CPU share each cell's server had (rps = share / CPU per
    # request): x share(a)/share(b) x cpu(b)/(cpu(b) + truth), each round's against its own.
    got = med(paired(spin, ref, lambda a, b: cpu(a) - cpu(b)))
    print("%-14s server CPU per request %+.0f ns (%+.1f%%, tolerance %.0f ns) %s" % (
        "", got, 100 * (got - truth) / truth, tol(truth), judge(abs(got - truth) <= tol(truth))))
    q = paired(spin, ref, lambda a, b: (rps(a) / rps(b)) /
               (share(a) / share(b) * cpu(b) / (cpu(b) + truth)))
    lo, hi = bootstrap(q)
    print("%-14s throughput x%.3f, x%.3f of what the CPU per request says [%.3f, %.3f] (the "
          "server's CPU share %.2f, %.2f in the reference; context switches per request "
          "%.2f, %.2f) %s" % (
              "", med(paired(spin, ref, lambda a, b: rps(a) / rps(b))), med(q), lo, hi,
              med(paired(spin, ref, lambda a, b: share(a))),
              med(paired(spin, ref, lambda a, b: share(b))),
              med([x for x in paired(spin, ref, lambda a, b: ctxsw(a)) if x is not None]),
              med([x for x in paired(spin, ref, lambda a, b: ctxsw(b)) if x is not None]),
              judge(lo <= 1 <= hi)))

try:
    si = json.load(open(os.path.join(out, "sysinfo.json")))
except (OSError, ValueError):
    si = {}  # an earlier run's directory without one (VALIDATE_FROM)
print("machine: %s, kernel %s, load %s (a busy machine's figures are not the machine's)" % (
    si.get("cpu", {}).get("model", "?"), si.get("kernel", {}).get("release", "?"),
    si.get("load", {}).get("loadavg", "?")))
print("known delay on services: %d of %d checks held" % (checks - failed, checks))
sys.exit(0 if checks and not failed else 1)
PY
}

if [ -z "${DEST:-}" ]; then
	judge
	exit
fi
judge >"$DEST"
st=$?
cat "$DEST"
echo "output: $OUT"
exit $st
