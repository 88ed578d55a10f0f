#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make validate-sweeps: does a sweep's model say the cost it knows, and no cost where there is
# none? Runs scenarios/validation/sweeps.ini REPEATS times (each a run of its own, so every
# repeat meets its own noise) and checks, over the repeats:
#  - delay: the delay tracer swept over its per-op spin; the fitted slope must be the truth's
#    (the median of the delay tracer's measured spins against the swept value, fitted the same
#    way) within max(10%, 2 ns at the top of the range), in every repeat whose fit was
#    accepted, and the fit accepted in >= 95% of the repeats (how often the truth lay in the
#    slope's CI is said too);
#  - top: syscall-count swept over `top`, which changes nothing on the measured path; the fit
#    must be refused or its slope's CI include 0 in >= 95% of the repeats.
# Prints one line per repeat, the tallies and the machine (CPU model and family, kernel,
# fingerprint, date, load average).
# Output: results/validation-sweeps-<UTC>/ (each repeat's result.json, sweeps.txt).
# Exit 0 when both hold, 1 when not, 2 on bad setup (a run failed).
#
# Environment: TB_BIN (default ./tracebench), VALIDATE_OUT (output directory), VALIDATE_REPEATS
# (default 20), VALIDATE_QUICK=1 (2 repeats with --quick: a smoke test whose verdict means
# nothing). The runs wait for the machine-wide measuring lock (--wait).
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
TB=${TB_BIN:-$root/tracebench}
STAMP=$(date -u +%Y%m%dT%H%M%SZ)
OUT=${VALIDATE_OUT:-$root/results/validation-sweeps-$STAMP}
REPEATS=${VALIDATE_REPEATS:-20}
QFLAG=
if [ "${VALIDATE_QUICK:-0}" = 1 ]; then
	QFLAG=--quick
	REPEATS=2
fi

if [ ! -x "$TB" ]; then
	echo "validate-sweeps.sh: $TB is not an executable (build it: make)" >&2
	exit 2
fi
mkdir -p "$OUT" || exit 2
"$TB" sysinfo --json >"$OUT/sysinfo.json" || exit 2
uptime >"$OUT/load.txt"
i=1
while [ "$i" -le "$REPEATS" ]; do
	"$TB" run "$root/scenarios/validation/sweeps.ini" -o "$OUT/run-$i" $QFLAG \
		--wait >"$OUT/run-$i.log" 2>&1
	rc=$?
	"$TB" cleanup >/dev/null 2>&1
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ]; then
		echo "validate-sweeps.sh: repeat $i exited $rc (log: $OUT/run-$i.log)" >&2
		exit 2
	fi
	i=$((i + 1))
done
uptime >>"$OUT/load.txt"
python3 - "$OUT" "$REPEATS" "$STAMP" >"$OUT/sweeps.txt" <<'PY'
import json, os, sys

out, repeats, stamp = sys.argv[1], int(sys.argv[2]), sys.argv[3]
si = json.load(open(os.path.join(out, "sysinfo.json")))
cpu, kern = si.get("cpu", {}), si.get("kernel", {})
load = " / ".join(l.split("load average:")[-1].strip()
                  for l in open(os.path.join(out, "load.txt")))
print(f"machine: {cpu.get('vendor', '?')} {cpu.get('model', '?')} family {cpu.get('family', '?')} "
      f"model {cpu.get('model_number', '?')}, kernel {kern.get('release', '?')}, "
      f"fingerprint {si.get('fingerprint', '?')}, {stamp}, load average {load}")


def line_slope(xs, ys):
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx > 0 else None


delay_ok = delay_acc = delay_in_ci = null_ok = 0
for i in range(1, repeats + 1):
    r = json.load(open(os.path.join(out, f"run-{i}", "result.json")))
    sweeps = {s["section"]: s for s in r.get("sweeps", [])}
    cells = {c["id"]: c for c in r["cells"]}
    d, t = sweeps.get("delay"), sweeps.get("top")
    if not d or not t:
        sys.exit(f"validate-sweeps: repeat {i}: no delay or top sweep in its result")
    # the truth's slope: the spin the delay tracer measured against the swept value, the
    # median of its measurements (a point's y is a difference of medians over the same samples)
    xs, ys = [], []
    for p in d["points"]:
        ex = cells[p["cell"]].get("tracer_extra") or {}
        truth = ex.get("spin_ns_median", ex.get("spin_ns_mean", ex.get("spin_ns_measured")))
        if truth is not None and p.get("x") is not None:
            xs.append(p["x"])
            ys.append(truth)
    true_slope = line_slope(xs, ys) if len(xs) >= 2 else None
    m = d["model"]
    word = "refused: " + (m.get("why_not") or "?")
    if m["accepted"] and true_slope is not None:
        delay_acc += 1
        tol = max(0.10 * true_slope, 2.0 / max(xs))
        good = abs(m["slope_ns"] - true_slope) <= tol
        delay_ok += good
        in_ci = m["slope_ns_ci"][0] <= true_slope <= m["slope_ns_ci"][1]
        delay_in_ci += in_ci
        word = "%.3f [%.3f, %.3f] ns per ns, truth %.3f (tolerance %.3f): %s%s" % (
            m["slope_ns"], m["slope_ns_ci"][0], m["slope_ns_ci"][1], true_slope, tol,
            "ok" if good else "WRONG", "" if in_ci else ", outside the CI")
    n = t["model"]
    ci = n.get("slope_ns_ci") or [None, None]
    none = not n["accepted"] or (ci[0] is not None and ci[0] <= 0 <= ci[1])
    null_ok += none
    nword = ("no slope (%s)" % ("refused" if not n["accepted"] else "CI includes 0")
             if none else "a slope %.3g [%.3g, %.3g] ns per top" % (n["slope_ns"], ci[0], ci[1]))
    print(f"repeat {i:2d}: delay {word}; top {nword}")
need = 0.95 * repeats
print(f"delay: accepted in {delay_acc}/{repeats}, its slope within tolerance in {delay_ok} of them, "
      f"the truth in its CI in {delay_in_ci}")
print(f"top: no slope in {null_ok}/{repeats} (>= 95% needed)")
passed = delay_ok == delay_acc and delay_acc >= need and null_ok >= need
print("PASS: the known slope is recovered and the null knob gives no slope" if passed else
      "FAIL: see the repeats above")
sys.exit(0 if passed else 1)
PY
st=$?
cat "$OUT/sweeps.txt"
exit "$st"
