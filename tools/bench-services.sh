#!/bin/bash
# The service workloads' precision (issue 30): for each service, its `none` cell's throughput
# CV across samples (goal <= 2% on a quiet machine) and the half-width of a traced cell's
# throughput-loss CI (the BPF counter's; goal <= 2 points in 60 s of samples per cell). A
# benchmark, not a test: the figures depend on the machine and its load, which it prints.
# Usage: TB_BIN=./tracebench tools/bench-services.sh [SECONDS-PER-CELL [SAMPLE-DURATION]]
#   defaults: 60 s per cell in samples of 5 s (12 rounds).
set -eu
TB=${TB_BIN:-./tracebench}
root=$(cd "$(dirname "$0")/.." && pwd)
per_cell=${1:-60}
dur=${2:-5}
rounds=$(( (per_cell + dur - 1) / dur ))
out=$(mktemp -d /tmp/tb-bench-services.XXXXXX)
trap 'rm -rf "$out"' EXIT
sed -e "s/^repetitions = .*/repetitions = $rounds/" -e "s/^duration = .*/duration = ${dur}s/" \
	-e 's/^tracers = .*/tracers = none, bpf-syscall-count/' \
	"$root/scenarios/services.ini" >"$out/bench.ini"
echo "bench-services: $rounds rounds of ${dur} s per cell; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
"$TB" run "$out/bench.ini" -o "$out/r" --no-plots --wait >"$out/out" 2>"$out/err" || {
	tail -n 5 "$out/err" >&2
	exit 1
}
python3 - "$out/r/result.json" <<'PY'
import json, statistics, sys
r = json.load(open(sys.argv[1]))
print(f"{'cell':34} {'req/s':>10} {'CV %':>6} {'loss % [CI]':>26} {'half-width':>10}")
for c in r["cells"]:
    sv = c.get("service")
    if not sv:
        continue
    x = [s["service"]["requests_per_s"] for s in c["samples"]
         if not s["warmup"] and not s["failed"] and not s.get("rerun") and "service" in s]
    cv = 100 * statistics.stdev(x) / statistics.mean(x) if len(x) > 1 else float("nan")
    loss = hw = ""
    if "throughput_loss_ci" in sv and None not in sv["throughput_loss_ci"]:
        lo, hi = sv["throughput_loss_ci"]
        loss = f"{sv['throughput_loss_pct']:+.2f} [{lo:+.2f}, {hi:+.2f}]"
        hw = f"{(hi - lo) / 2:.2f}"
    print(f"{c['id']:34} {sv['requests_per_s']:10.0f} {cv:6.2f} {loss:>26} {hw:>10}")
print("goals on a quiet machine: CV <= 2% (none cells), half-width <= 2 points in 60 s")
PY
