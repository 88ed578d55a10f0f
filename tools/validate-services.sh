#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make validate-services: does a service cell call "overhead" where there is none? Runs
# scenarios/validation/services-aa.ini with --aa (each server's baseline against itself: two
# `none` cells per service) REPEATS times, each a run of its own, and counts, over every
# service and repeat, the pairs whose throughput or p99 verdict is "overhead" (a false
# positive). Passes when no more than 5% of the judged pairs are; untrustworthy pairs (too
# noisy, too few samples) are not judged and are counted apart; with none judged the check is
# inconclusive and fails. Prints one line per service and repeat, the tallies and the machine.
# The known per-request delay is not run here (METHODOLOGY.md "Services": why).
# Output: results/validation-services-<UTC>/ (each repeat's result.json, services.txt).
# Exit 0 when it holds, 1 when not, 2 on bad setup (a run failed).
#
# Environment: TB_BIN (default ./tracebench), VALIDATE_OUT (output directory),
# VALIDATE_SVC_REPEATS (default 3: a service run takes about a minute under --quick, 5 without),
# VALIDATE_QUICK=1 (every run with --quick). The runs wait for the machine-wide measuring lock.
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
TB=${TB_BIN:-$root/tracebench}
STAMP=$(date -u +%Y%m%dT%H%M%SZ)
OUT=${VALIDATE_OUT:-$root/results/validation-services-$STAMP}
REPEATS=${VALIDATE_SVC_REPEATS:-3}
QFLAG=
[ "${VALIDATE_QUICK:-0}" = 1 ] && QFLAG=--quick

if [ ! -x "$TB" ]; then
	echo "validate-services.sh: $TB is not an executable (build it: make)" >&2
	exit 2
fi
case $REPEATS in
'' | *[!0-9]* | 0)
	echo "validate-services.sh: VALIDATE_SVC_REPEATS=$REPEATS: expected a count >= 1" >&2
	exit 2
	;;
esac
mkdir -p "$OUT" || exit 2
"$TB" sysinfo --json >"$OUT/sysinfo.json" || exit 2
i=1
while [ "$i" -le "$REPEATS" ]; do
	dir=$OUT/$(printf %02d "$i")
	# shellcheck disable=SC2086 # QFLAG is empty or one word
	if ! "$TB" run "$root/scenarios/validation/services-aa.ini" --aa $QFLAG --wait -q \
		--no-plots -o "$dir" >"$dir.log" 2>&1; then
		echo "validate-services.sh: repeat $i failed (its output: $dir.log)" >&2
		tail -n 5 "$dir.log" >&2
		exit 2
	fi
	i=$((i + 1))
done
python3 - "$OUT" >"$OUT/services.txt" <<'PY'
import glob, json, os, sys
out = sys.argv[1]
judged = fp = untrusted = 0
for f in sorted(glob.glob(os.path.join(out, "[0-9]*", "result.json"))):
    r = json.load(open(f))
    rep = os.path.basename(os.path.dirname(f))
    for c in r["cells"]:
        s = c.get("service")
        if c.get("baseline") or not s or "throughput_verdict" not in s:
            continue
        for m in ("throughput", "p99"):
            v = s[m + "_verdict"]
            if v == "untrustworthy":
                untrusted += 1
                continue
            judged += 1
            fp += v == "overhead"
        print("repeat %s %-10s throughput loss %+6.1f%% %-24s p99 delta %+7.0f us %s" % (
            rep, c["workload"], s.get("throughput_loss_pct") or float("nan"),
            s["throughput_verdict"], (s.get("p99_delta_ns") or float("nan")) / 1e3,
            s["p99_verdict"]))
si = json.load(open(os.path.join(out, "sysinfo.json")))
print("machine: %s, kernel %s, load %s (a busy machine's figures are not the machine's)" % (
    si.get("cpu", {}).get("model", "?"), si.get("kernel", {}).get("release", "?"),
    si.get("load", {}).get("loadavg", "?")))
rate = 100.0 * fp / judged if judged else float("nan")
print("A/A services: %d of %d judged pairs called overhead (%.1f%%, limit 5%%); %d untrustworthy, not judged"
      % (fp, judged, rate, untrusted))
if not judged:
    print("inconclusive: every pair was untrustworthy (quiet the machine or run longer)")
    sys.exit(1)
sys.exit(0 if rate <= 5 else 1)
PY
st=$?
cat "$OUT/services.txt"
echo "output: $OUT"
exit $st
