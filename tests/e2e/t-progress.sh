#!/bin/bash
# A run whose stderr is not a terminal (a CI log) still shows life: a progress line (phase,
# round, sample, ETA) every TB_PROGRESS_INTERVAL seconds, and once, after the first round, the
# estimate again with the traced cells timed (issue 28, item 5). -q and an interval of 0 keep
# the log quiet.
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
exit 0
