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
# nothing), VALIDATE_FROM (an earlier run's output directory: its run-N judged again, nothing
# run and nothing written; a result that is not one exits 2 naming it). The runs wait for the
# machine-wide measuring lock (--wait).
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

if [ -n "${VALIDATE_FROM:-}" ]; then
	OUT=$VALIDATE_FROM
	REPEATS=0
	while [ -d "$OUT/run-$((REPEATS + 1))" ]; do
		REPEATS=$((REPEATS + 1))
	done
	if [ "$REPEATS" -eq 0 ]; then
		echo "validate-sweeps.sh: $OUT: no run-1 (not this script's output)" >&2
		exit 2
	fi
else
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
fi
# the judgement: into sweeps.txt beside the runs, or a file of our own when judging again
TXT=$OUT/sweeps.txt
if [ -n "${VALIDATE_FROM:-}" ]; then
	TXT=$(mktemp) || exit 2
	trap 'rm -f "$TXT"' EXIT
fi
python3 - "$OUT" "$REPEATS" "$STAMP" >"$TXT" <<'PY'
import json, os, sys

out, repeats, stamp = sys.argv[1], int(sys.argv[2]), sys.argv[3]


def bad(path, why):
    print(f"validate-sweeps.sh: {path}: {why}", file=sys.stderr)
    sys.exit(2)


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        bad(path, f"not readable JSON ({e})")


def text(path):
    try:
        with open(path) as f:
            return f.read().splitlines()
    except OSError:
        return ["?"]


si = load_json(os.path.join(out, "sysinfo.json"))
if not isinstance(si, dict):
    bad(os.path.join(out, "sysinfo.json"), "not tracebench sysinfo --json's output")
cpu, kern = si.get("cpu") or {}, si.get("kernel") or {}
load = " / ".join(l.split("load average:")[-1].strip()
                  for l in text(os.path.join(out, "load.txt")))
print(f"machine: {cpu.get('vendor', '?')} {cpu.get('model', '?')} family {cpu.get('family', '?')} "
      f"model {cpu.get('model_number', '?')}, kernel {kern.get('release', '?')}, "
      f"fingerprint {si.get('fingerprint', '?')}, {stamp}, load average {load}")


def line_slope(xs, ys):
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx > 0 else None


def judge_repeat(i, d, t, cells):
    """One repeat's line; returns (delay accepted, within tolerance, truth in CI, top none)."""
    # the truth's slope: the spin the delay tracer measured against the swept value, the
    # median of its measurements (a point's y is a difference of medians over the same samples)
    xs, ys = [], []
    for p in d["points"]:
        ex = cells[p["cell"]].get("tracer_extra") or {}
        truth = ex.get("spin_ns_median", ex.get("spin_ns_mean", ex.get("spin_ns_measured")))
        if truth is not None and p.get("x") is not None:
            xs.append(float(p["x"]))
            ys.append(float(truth))
    true_slope = line_slope(xs, ys) if len(xs) >= 2 else None
    m = d["model"]
    word = "refused: " + (m.get("why_not") or "?")
    acc = good = in_ci = False
    if m["accepted"] and true_slope is not None:
        acc = True
        tol = max(0.10 * true_slope, 2.0 / max(xs))
        good = abs(m["slope_ns"] - true_slope) <= tol
        in_ci = m["slope_ns_ci"][0] <= true_slope <= m["slope_ns_ci"][1]
        word = "%.3f [%.3f, %.3f] ns per ns, truth %.3f (tolerance %.3f): %s%s" % (
            m["slope_ns"], m["slope_ns_ci"][0], m["slope_ns_ci"][1], true_slope, tol,
            "ok" if good else "WRONG", "" if in_ci else ", outside the CI")
    n = t["model"]
    ci = n.get("slope_ns_ci") or [None, None]
    none = not n["accepted"] or (ci[0] is not None and ci[0] <= 0 <= ci[1])
    nword = ("no slope (%s)" % ("refused" if not n["accepted"] else "CI includes 0")
             if none else "a slope %.3g [%.3g, %.3g] ns per top" % (n["slope_ns"], ci[0], ci[1]))
    print(f"repeat {i:2d}: delay {word}; top {nword}")
    return acc, good, in_ci, none


delay_ok = delay_acc = delay_in_ci = null_ok = 0
for i in range(1, repeats + 1):
    path = os.path.join(out, f"run-{i}", "result.json")
    r = load_json(path)
    try:
        sweeps = {s["section"]: s for s in r.get("sweeps", [])}
        cells = {c["id"]: c for c in r["cells"]}
    except (AttributeError, KeyError, TypeError) as e:
        bad(path, f"not a tracebench result with sweeps and cells ({e!r})")
    d, t = sweeps.get("delay"), sweeps.get("top")
    if not d or not t:
        bad(path, "no delay or top sweep in it (not scenarios/validation/sweeps.ini's run)")
    try:
        acc, good, in_ci, none = judge_repeat(i, d, t, cells)
    except (AttributeError, KeyError, TypeError, ValueError, IndexError) as e:
        bad(path, f"a sweep without the keys the checks read ({e!r})")
    delay_acc += acc
    delay_ok += good
    delay_in_ci += in_ci
    null_ok += none
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
cat "$TXT"
exit "$st"

