#!/bin/bash
# The dry-run estimate against a real run of the same scenario: prints the estimate's parts
# and what the run measured for each (batches, tracer setup + teardown, the rest), and the
# ratio of wall time to estimate. A benchmark, not a test: the figures depend on the machine.
# Usage: TB_BIN=./tracebench tools/bench-estimate.sh [SCENARIO.ini] [run options...]
set -eu
TB=${TB_BIN:-./tracebench}
scn=${1:-scenarios/quick.ini}
shift || true
out=$(mktemp -d /tmp/tb-estimate.XXXXXX)
trap 'rm -rf "$out"' EXIT
"$TB" run "$scn" "$@" --dry-run | tail -n 2
start=$(date +%s.%N)
"$TB" run "$scn" "$@" -o "$out/r" -q --no-plots >/dev/null
end=$(date +%s.%N)
python3 - "$out/r/result.json" "$start" "$end" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
wall = float(sys.argv[3]) - float(sys.argv[2])
batch = setup = n = 0
for c in r["cells"]:
    for s in c["samples"]:
        n += 1
        batch += (s.get("elapsed_ns") or 0) / 1e9
        setup += (s.get("tracer_setup_s") or 0) + (s.get("tracer_teardown_s") or 0)
print(f"measured: {n} samples: batches {batch:.1f} s, tracer setup + settle + teardown "
      f"{setup:.1f} s, the rest (processes, calibration, analysis) {wall - batch - setup:.1f} s; "
      f"wall {wall:.1f} s")
PY
