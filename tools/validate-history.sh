#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make validate-history: does the history's change-point detection find what changed, and only
# that, on real runs of this machine? (METHODOLOGY.md, section 8). A benchmark that prints one
# table, not a pass/fail test of the build:
#   null    VALIDATE_HISTORY_RUNS (30) runs of scenarios/validation/history-null.ini, nothing
#           changed: every change point is a false one (per series, per 100 runs)
#   steps   VALIDATE_HISTORY_RUNS runs of scenarios/validation/history-steps.ini whose delay
#           tracers switch from +0 to +5, +20 and +100 ns per getpid at run VALIDATE_HISTORY_STEP
#           (15, 0-based): found or not, at which run, the estimated size against the delay
#           tracer's own measurement of its spin
# The criteria (tools/validate-history-analyze.py): no change point in >= 95% of the null
# series; the +20 and +100 ns steps found at their run (+-1) with the truth inside the change's
# CI; the 5 ns step reported as it came out. Exit 0 when they hold, 1 when not, 2 on bad setup.
# Output: results/validation-history-<UTC>/ (every run, both histories, their detect --json,
# HTML pages, table.txt). Runs wait for the machine's measuring lock (run --wait).
# VALIDATE_HISTORY_RUN_ARGS: options added to every run (the e2e smoke test's `--rounds 3`:
# its figures mean nothing, only that the table comes out).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
TB=${TB_BIN:-$root/tracebench}
RUNS=${VALIDATE_HISTORY_RUNS:-30}
STEP=${VALIDATE_HISTORY_STEP:-15}
SCN=$root/scenarios/validation
RUN_ARGS=${VALIDATE_HISTORY_RUN_ARGS:-}
OUT=${VALIDATE_HISTORY_OUT:-$root/results/validation-history-$(date -u +%Y%m%dT%H%M%SZ)}

[ -x "$TB" ] || { echo "validate-history.sh: $TB is not an executable (make)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "validate-history.sh: python3 is needed" >&2; exit 2; }
[ ! -e "$OUT" ] || { echo "validate-history.sh: $OUT exists; not overwriting it" >&2; exit 2; }
# options the run refuses are bad setup (exit 2), said before the first run, not a failed run
# shellcheck disable=SC2086 # RUN_ARGS: options, split at spaces
if [ -n "$RUN_ARGS" ] && ! err=$("$TB" run "$SCN/history-null.ini" --dry-run $RUN_ARGS 2>&1 >/dev/null); then
	echo "validate-history.sh: VALIDATE_HISTORY_RUN_ARGS='$RUN_ARGS': $err" >&2
	exit 2
fi
[ "$STEP" -ge 2 ] && [ "$STEP" -le $((RUNS - 2)) ] ||
	{ echo "validate-history.sh: the step must leave 2 runs on each side" >&2; exit 2; }
mkdir -p "$OUT/after" || exit 2
t0=$(date +%s)
echo "$(date -u +%FT%TZ) start, load average $(cut -d' ' -f1-3 /proc/loadavg)" >"$OUT/log"
# The step scenario after the step: each "ns = 0ns ; step: X" line set to X.
sed 's/^ns = 0ns *; step: \([0-9]*ns\)$/ns = \1/' "$SCN/history-steps.ini" \
	>"$OUT/after/history-steps.ini"

# one HISTORY SCENARIO INDEX: a run added to OUT/HISTORY.db
one() {
	echo "$TB run $2 -o $OUT/$1/run-$3 --label run=$3 --history=$OUT/$1.db" >>"$OUT/log"
	# shellcheck disable=SC2086 # RUN_ARGS: options, split at spaces
	"$TB" run "$2" -o "$OUT/$1/run-$3" -q --no-plots --wait --label "run=$3" \
		--history="$OUT/$1.db" $RUN_ARGS >>"$OUT/log" 2>&1 ||
		{ echo "validate-history: run $3 of $1 failed (see $OUT/log)" >&2; return 1; }
}

mkdir -p "$OUT/null" "$OUT/steps"
i=0
while [ "$i" -lt "$RUNS" ]; do
	printf '\r  run %d of %d (null history, then the steps)  [%ds]' $((i + 1)) "$RUNS" \
		$(($(date +%s) - t0)) >&2
	one null "$SCN/history-null.ini" "$(printf %02d "$i")" || exit 1
	i=$((i + 1))
done
i=0
while [ "$i" -lt "$RUNS" ]; do
	printf '\r  run %d of %d (steps)                           [%ds]' $((i + 1)) "$RUNS" \
		$(($(date +%s) - t0)) >&2
	if [ "$i" -lt "$STEP" ]; then scn=$SCN/history-steps.ini; else scn=$OUT/after/history-steps.ini; fi
	one steps "$scn" "$(printf %02d "$i")" || exit 1
	i=$((i + 1))
done
printf '\n' >&2
"$TB" history detect --db "$OUT/null.db" --all --json >"$OUT/null-detect.json" || exit 1
"$TB" history detect --db "$OUT/steps.db" --all --json --comparable >"$OUT/steps-detect.json" ||
	exit 1
"$TB" history report --db "$OUT/null.db" -o "$OUT/null.html" >/dev/null
"$TB" history report --db "$OUT/steps.db" --comparable -o "$OUT/steps.html" >/dev/null
echo "$(date -u +%FT%TZ) end, load average $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/log"
python3 "$here/validate-history-analyze.py" "$OUT" "$RUNS" "$STEP" "$(($(date +%s) - t0))" |
	tee "$OUT/table.txt"
exit "$(tail -n 1 "$OUT/table.txt" | grep -q '^PASS' && echo 0 || echo 1)"
