#!/bin/bash
# The estimates against real runs: for each scenario, the plan's estimate (`--dry-run`, which
# cannot know the tracers' slowdown), the run's re-estimate after its first round (which has
# timed every cell, traced ones included) and the wall time the run took, with their ratios;
# then what the run measured for each part of the plan's estimate. A benchmark, not a test: the
# figures depend on the machine (goal: the re-estimate within 25% on a quiet machine).
# Usage: TB_BIN=./tracebench tools/bench-estimate.sh [SCENARIO.ini [run options...]]
#   without arguments: the demo (scenarios/quick.ini, as `make demo`), real-tools --quick and
#   the explain validation --quick. On a shared machine run it under the machine's run lock
#   (flock /run/tracebench/lock).
#   ESTIMATE_KEEP=DIR keeps each run (DIR/NAME/result.json) and its summary (DIR/NAME.out):
#   tools/figures.py quotes them.
set -eu
TB=${TB_BIN:-./tracebench}
if [ -n "${ESTIMATE_KEEP:-}" ]; then
	out=$ESTIMATE_KEEP
	mkdir -p "$out"
else
	out=$(mktemp -d /tmp/tb-estimate.XXXXXX)
	trap 'rm -rf "$out"' EXIT
fi

one() {
	local name=$1 scn=$2
	shift 2
	local plan start end
	plan=$("$TB" run "$scn" "$@" --dry-run 2>&1 | sed -n 's/^estimated time: \([0-9]*\)m\([0-9]*\)s.*/\1 \2/p')
	start=$(date +%s.%N)
	# stderr is a file, not a terminal: the re-estimate and the progress lines go there
	"$TB" run "$scn" "$@" -o "$out/$name" --no-plots >"$out/$name.out" 2>"$out/$name.err" || {
		echo "$name: the run failed:" >&2
		tail -n 5 "$out/$name.err" >&2
		return 1
	}
	end=$(date +%s.%N)
	python3 - "$name" "$out/$name/result.json" "$out/$name.err" "$start" "$end" "$plan" <<'PY'
import json, re, sys
name, res, err, start, end, plan = sys.argv[1:7]
r = json.load(open(res))
wall = float(end) - float(start)
m, s = plan.split()
plan_s = int(m) * 60 + int(s)
re_s = None
for line in open(err):
    x = re.search(r"re-estimated after the first round: (\d+)m(\d+)s in all", line)
    if x:
        re_s = int(x.group(1)) * 60 + int(x.group(2))
batch = setup = n = 0
for c in r["cells"]:
    for smp in c["samples"]:
        n += 1
        batch += (smp.get("elapsed_ns") or 0) / 1e9
        setup += (smp.get("tracer_setup_s") or 0) + (smp.get("tracer_teardown_s") or 0)
ratio = lambda e: f"{wall / e:.2f}x" if e else "-"
print(f"{name:<12} plan {plan_s:5d} s ({ratio(plan_s)})  re-estimate "
      f"{re_s if re_s is not None else '-':>5} s ({ratio(re_s)})  actual {wall:6.1f} s   "
      f"[{n} samples: batches {batch:.1f} s, tracer setup + teardown {setup:.1f} s, "
      f"the rest {wall - batch - setup:.1f} s]")
PY
}

if [ $# -gt 0 ]; then
	scn=$1
	shift
	one "$(basename "$scn" .ini)" "$scn" "$@"
	exit
fi
"$TB" sysinfo | grep -m1 "^  fingerprint"
one demo scenarios/quick.ini
one real-tools scenarios/real-tools.ini --quick
one explain scenarios/validation/explain.ini --quick
