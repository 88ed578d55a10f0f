#!/bin/bash
# A run whose stderr is not a terminal (a CI log) still shows life: a progress line (phase,
# round, sample, ETA) every TB_PROGRESS_INTERVAL seconds, and once, after the first round, the
# estimate again with the traced cells timed (issue 28, item 5). -q and an interval of 0 keep
# the log quiet. Under a max-time: the slowdown the run measured and the rounds that fit.
. "$(dirname "$0")/lib.sh"
need_root
D=$TB_ROOT/tests/data/run

# 1. A short interval: several progress lines, in order, and the re-estimate.
TB_PROGRESS_INTERVAL=0.05 expect_exit 0 "$TB" run "$D/small.ini" -o "$TMP/r1" --no-plots --wait
python3 - "$TMP/err" <<'PY' || { cat "$TMP/err" >&2; fail "no usable progress lines in a non-terminal stderr"; }
import re, sys
lines = open(sys.argv[1]).read().splitlines()
assert not any("\r" in l or "\033" in l for l in lines), "terminal control codes in a log"
pat = re.compile(r"^progress: (warmup|round) (\d+)/(\d+), sample (\d+) of (\d+), next (\S+), "
                 r"elapsed \d+m\d\ds, ETA (\d+m\d\ds|--)$")
prog = [pat.match(l) for l in lines if l.startswith("progress:")]
assert len(prog) >= 3, f"{len(prog)} progress lines"
assert all(prog), [l for l in lines if l.startswith("progress:") and not pat.match(l)]
nums = [int(m.group(4)) for m in prog]
assert nums == sorted(nums) and len(set(nums)) == len(nums), nums
# 6 cells x (1 warmup + 5 rounds), one accounting sample per measured round of each of the 2
# bpf cells (stats = true), and 6 + 2 more for each contended round run again (said)
again = sum(1 for l in lines if "the round is run again" in l)
tot = [int(m.group(5)) for m in prog]
assert tot == sorted(tot) and tot[-1] == 46 + 8 * again and {(t - 46) % 8 for t in tot} == {0}, tot
re_est = [l for l in lines if l.startswith("re-estimated after the first round: ")]
assert len(re_est) == 1, re_est
assert re.search(r"\d+m\d\ds in all, \d+m\d\ds left \(the plan said \d+m\d\ds", re_est[0]), re_est
PY

# 2. Interval 0: no progress lines, still the re-estimate; -q: neither.
TB_PROGRESS_INTERVAL=0 expect_exit 0 "$TB" run "$D/small.ini" -o "$TMP/r2" --no-plots --wait \
	--rounds 1 --warmup 0
grep -q '^progress:' "$TMP/err" && fail "TB_PROGRESS_INTERVAL=0 still printed progress lines"
grep -q '^re-estimated after the first round' "$TMP/err" || fail "no re-estimate with interval 0"
TB_PROGRESS_INTERVAL=0.01 expect_exit 0 "$TB" run "$D/small.ini" -o "$TMP/r3" --no-plots --wait \
	-q --rounds 1 --warmup 0
grep -q -e '^progress:' -e '^re-estimated' "$TMP/err" && fail "-q printed progress"

# 3. A bad interval is said, not fatal.
TB_PROGRESS_INTERVAL=soon expect_exit 0 "$TB" run "$D/small.ini" -o "$TMP/r4" --no-plots --wait \
	--rounds 1 --warmup 0
grep -q 'TB_PROGRESS_INTERVAL=soon is not a number of seconds' "$TMP/err" ||
	fail "a bad TB_PROGRESS_INTERVAL was not said"
# 4. A max-time (issues 28, 32): the traced cell's slowdown is probed and said, a cell many
# times slower than its baseline (the delay tracer's 5 us a getpid) gets its own op count, the
# run stops for max-time, and --dry-run says what max-time does, and when it cannot hold the
# rounds asked even before the slowdown, the max-time they need.
printf '[global]\nprecision = 0.1%%\nmax-time = 6s\n[workload g]\ntype = getpid\n[tracer d]\ntype = delay\nns = 5us\n[matrix]\nworkloads = g\ntracers = none, d\n' >"$TMP/budget.ini"
expect_exit 0 "$TB" run "$TMP/budget.ini" --dry-run
grep -q "^max-time 6 s: after calibration each traced cell's slowdown is measured" "$TMP/out" ||
	fail "--dry-run did not say what max-time does"
# min-rounds left unset: the run chose 30 and says it lowers them to what fits
grep -q "^  rounds chosen for precision = 0.1% within max-time = 6 s: min-rounds 30," "$TMP/out" ||
	fail "--dry-run did not say the rounds it chose"
grep -q "^max-time 6 s holds fewer than the 30 minimum rounds the run chose" "$TMP/out" ||
	fail "--dry-run did not say the chosen minimum comes down to fit"
sed 's/^precision = .*/repetitions = 200/' "$TMP/budget.ini" >"$TMP/budget-200.ini"
expect_exit 0 "$TB" run "$TMP/budget-200.ini" --dry-run
grep -q "^max-time 6 s is too short: the warmup and the 200 rounds asked need about" "$TMP/out" ||
	fail "--dry-run did not say the rounds asked cannot fit"
TB_PROGRESS_INTERVAL=0 expect_exit 0 "$TB" run "$TMP/budget.ini" -o "$TMP/r5" --no-plots --wait
grep -q '^max-time 6 s: slowdown g/d [0-9.]*x (sized); samples of 0.2 s' "$TMP/err" ||
	fail "the run did not say the slowdown it measured"
python3 - "$TMP/r5/result.json" <<'PY' || fail "the budget's figures are not in result.json"
import json, sys
r = json.load(open(sys.argv[1]))
base, tr = r["cells"]
assert r["stop_reason"] == "max-time", r["stop_reason"]
assert tr["slowdown"] >= 2 and "slowdown" not in base, (tr.get("slowdown"), base.get("slowdown"))
assert abs(tr["ops_per_sample"] - base["ops_per_sample"] / tr["slowdown"]) <= 1
s = r["settings"]
assert s["max_time_s"] == 6 and s["rounds_asked"] == 5 and s["max_time_needed_s"] > 0, s
assert "min-rounds lowered to 5 once" in s["rounds_chosen"], s["rounds_chosen"]
cut = [x for x in r["shortfalls"] if x.startswith("max-time (6 s) cut the run")]
assert bool(cut) == (s["rounds"] < 5), (s["rounds"], r["shortfalls"])
PY
exit 0
