#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make bench-history: how fast the history takes runs and finds change points, with figures
# printed (a benchmark, not a test). One real run of scenarios/quick.ini --quick (or
# BENCH_HISTORY_SOURCE=result.json) is turned into BENCH_HISTORY_RUNS (1000) synthetic result
# files by tools/history-synth.py (seed 1: run-to-run noise 2%, one tracer 10% costlier and the
# kernel changed from run 500 on), then timed:
#   add      tracebench history add DIR (every file, one transaction each) into a fresh SQLite
#            database
#   detect   tracebench history detect over every series
# with the peak resident memory of each (getrusage of the child). detect is also timed on a
# quarter of the runs: its memory should not grow with the number of runs (one series is in
# memory at a time). Output: results/bench-history-<UTC>/ (the files, the databases, table.txt).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
TB=${TB_BIN:-$root/tracebench}
RUNS=${BENCH_HISTORY_RUNS:-1000}
OUT=${BENCH_HISTORY_OUT:-$root/results/bench-history-$(date -u +%Y%m%dT%H%M%SZ)}

[ -x "$TB" ] || { echo "bench-history.sh: $TB is not an executable (make)" >&2; exit 2; }
[ ! -e "$OUT" ] || { echo "bench-history.sh: $OUT exists; not overwriting it" >&2; exit 2; }
mkdir -p "$OUT"

# measure NAME CMD...: wall seconds and peak RSS (MiB) of CMD, appended to $OUT/figures
measure() {
	name=$1
	shift
	python3 - "$name" "$OUT/figures" "$@" <<'PY'
import resource, subprocess, sys, time
name, out, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
t = time.monotonic()
with open(out + "." + name + ".log", "w") as log:
    rc = subprocess.call(cmd, stdout=log, stderr=subprocess.STDOUT)
wall = time.monotonic() - t
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
with open(out, "a") as f:
    f.write("%s %.3f %.1f %d\n" % (name, wall, rss, rc))
sys.exit(rc)
PY
}

if [ -n "${BENCH_HISTORY_SOURCE:-}" ]; then
	src=$BENCH_HISTORY_SOURCE
else
	echo "bench-history: one real run of scenarios/quick.ini --quick as the source"
	"$TB" run "$root/scenarios/quick.ini" --quick -o "$OUT/source" -q --no-plots --wait \
		>"$OUT/source.log" 2>&1 || { cat "$OUT/source.log"; exit 1; }
	src=$OUT/source/result.json
fi
step=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(next(c["id"] for c in r["cells"] if not c["baseline"]))' "$src")
half=$((RUNS / 2))
echo "bench-history: $RUNS synthetic results from $src (seed 1; $step +10% from run $half)"
python3 "$here/history-synth.py" "$src" "$OUT/runs" --runs "$RUNS" --seed 1 --noise 0.02 \
	--step "$half:$step:1.10" --env "$half:kernel.release=bench-upgrade"
quarter=$((RUNS / 4))

: >"$OUT/figures"
measure add "$TB" history add "$OUT/runs" --db "$OUT/history.db"
measure detect "$TB" history detect --db "$OUT/history.db"
ls "$OUT/runs" | head -n "$quarter" | sed "s|^|$OUT/runs/|" |
	xargs "$TB" history add --db "$OUT/q.db" >/dev/null
measure detect-quarter "$TB" history detect --db "$OUT/q.db"
"$TB" history list --db "$OUT/history.db" --json >"$OUT/list.json"

python3 - "$OUT" "$RUNS" "$quarter" <<'PY' | tee "$OUT/table.txt"
import json, os, sys
out, runs, quarter = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
fig = {}
for line in open(os.path.join(out, "figures")):
    name, wall, rss, rc = line.split()
    fig[name] = (float(wall), float(rss), int(rc))
lst = json.load(open(os.path.join(out, "list.json")))
det = open(os.path.join(out, "figures.detect.log")).read().splitlines()
summary = det[-1] if det else ""
size = os.path.getsize(os.path.join(out, "history.db")) / 2**20
files = sum(os.path.getsize(os.path.join(out, "runs", d, "result.json"))
            for d in os.listdir(os.path.join(out, "runs"))) / 2**20
print("tracebench history benchmark: %d result files (%.0f MiB), %d runs, %d series, "
      "%d points stored (SQLite %.1f MiB)" % (runs, files, lst["runs"], len(lst["series"]),
                                              lst["points"], size))
print("%-28s %10s %12s %14s %5s" % ("step", "wall s", "per run ms", "peak RSS MiB", "exit"))
for name, what, n in (("add", "history add (%d files)" % runs, runs),
                      ("detect", "history detect (%d runs)" % runs, runs),
                      ("detect-quarter", "history detect (%d runs)" % quarter, quarter)):
    w, r, rc = fig[name]
    print("%-28s %10.2f %12.2f %14.1f %5d" % (what, w, 1000 * w / n, r, rc))
print("detect: " + summary)
print("targets: add < 30 s, detect < 5 s, detect's memory flat in the number of runs")
ok = fig["add"][0] < 30 and fig["detect"][0] < 5 and all(v[2] == 0 for v in fig.values())
print("PASS" if ok else "FAIL")
sys.exit(0 if ok else 1)
PY
