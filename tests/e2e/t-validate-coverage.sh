#!/bin/bash
# tools/validate-coverage.py's analysis (METHODOLOGY.md 9) on synthetic runs of known truth,
# fixed seed, nothing measured: the truth a run is judged against is the other runs' robust
# weighted fit, so one run taken in another state of the machine (an episode: far off, with a
# narrow interval) is listed as such, with its baseline's shift, and does not move every other
# run's truth (the plain weighted fit, printed beside, does: its coverage falls); Cochran's Q is
# given with and without the episodes, and the estimates' correlation with the baselines; a
# set without an episode lists none; METHODOLOGY 9's figure renders every candidate by the
# analysis's own names; and a directory with too few usable runs is refused (exit 2), a run
# that is not a result skipped by name.
. "$(dirname "$0")/lib.sh"
VC=$TB_ROOT/tools/validate-coverage.py
# mkset DIR EPISODE [SPEED]: 12 runs, the tracepoint's truth +25% and the delay's 30 ns, each
# run's estimate drawn around them well within its own interval (se 1 pt and 8 ns, drawn with
# half that sd: every such run covers); run EPISODE (0: none)
# has both far off with narrow intervals and a baseline 9% slower, as an episode did on a VM.
# SPEED (default 0): the machine's speed moves from run to run, each run's baseline ns/op
# 1 - SPEED .. 1 + SPEED times 900 in four steps, and both truths with it (+100 pt and +200 ns
# per unit of the ratio): every run covers the truth of its own speed, not the runs' mean.
mkset() {
	python3 - "$1" "$2" "$TB_ROOT/tests/data/results/a.json" "${3:-0}" <<'PY' || fail "the synthetic runs"
import json, os, random, sys
out, ep, amp = sys.argv[1], int(sys.argv[2]), float(sys.argv[4])
# a result file's frame around the cells, so that tracebench combine reads them too
frame = {k: v for k, v in json.load(open(sys.argv[3])).items() if k != "cells"}
rng = random.Random(20261207)
for i in range(1, 13):
    speed = 1 + amp * ((i % 4) - 1.5) / 1.5
    base = 900.0 * (1.09 if i == ep else speed)
    tp_se, tp = (0.5, 35.0) if i == ep else (1.0, 25.0 + 100 * (speed - 1) + rng.gauss(0, 0.5))
    d_se, d = (3.0, 64.0) if i == ep else (8.0, 30.0 + 200 * (speed - 1) + rng.gauss(0, 4.0))
    def cell(name, pct=None, se=None, ns=None, ns_se=None, extra=None):
        samples = [{"round": r, "ns_per_op": base * (1 + (pct or 0) / 100) *
                    (1 + rng.gauss(0, 0.03)) + (ns or 0)} for r in range(30)]
        for s in samples:
            s.update(warmup=False, ops=1000000)
        c = {"id": "getpid/" + name, "workload": "getpid", "workload_type": "getpid",
             "workload_config": {}, "tracer": name,
             "tracer_type": {"none": "none", "delay-20ns": "delay"}.get(name, "ftrace-events"),
             "tracer_config": {}, "baseline": name == "none", "threads": 1,
             "ops_per_sample": 1000000, "samples": samples}
        if pct is not None:
            c["overhead"] = {"pct": pct, "ci": [pct - 1.96 * se, pct + 1.96 * se]}
        if ns is not None:
            c["overhead"] = {"pct": 100 * ns / base, "ci": [0, 1], "ns_per_op": ns,
                             "ns_per_op_ci": [ns - 1.96 * ns_se, ns + 1.96 * ns_se]}
        if extra:
            c["tracer_extra"] = extra
        return c
    r = dict(frame, cells=[cell("none"), cell("none-again", 0.0, 1.2),
                   cell("tp-getpid", tp, tp_se),
                   cell("delay-20ns", ns=d, ns_se=d_se, extra={"iters": 80, "spin_ns_mean": 30})])
    os.makedirs(f"{out}/runs/{i:02d}")
    json.dump(r, open(f"{out}/runs/{i:02d}/result.json", "w"))
PY
}
mkset "$TMP/ep" 7
COVERAGE_RESAMPLES=200 python3 "$VC" --analyze "$TMP/ep" >"$TMP/out" 2>"$TMP/err"
[ $? -le 1 ] || { cat "$TMP/err"; fail "--analyze of the episode set"; }
grep -q "tp-getpid: episode: run 07 +35.00 pt against" "$TMP/out" || { cat "$TMP/out"; fail "the tracepoint's episode"; }
grep -q "delay-20ns: episode: run 07 +64.00 ns .* its baseline +[89].[0-9]% on the runs' median" "$TMP/out" ||
	{ cat "$TMP/out"; fail "the delay's episode and its baseline shift"; }
[ "$(grep -c "episode: run" "$TMP/out")" -eq 2 ] || { cat "$TMP/out"; fail "a run listed that is not an episode"; }
grep -q "tp-getpid: without the 1 episode(s): Cochran's Q" "$TMP/out" || fail "Q without the episode"
python3 - "$TMP/ep/coverage.json" <<'PY' || { cat "$TMP/out"; fail "coverage against the robust and the plain truth"; }
import json, sys
q = json.load(open(sys.argv[1]))["questions"]
for name in ("tp-getpid", "delay-20ns"):
    own, plain = q[name][0], q[name][1]
    assert own["estimator"] == "tracebench (result.json)", own
    assert plain["estimator"] == "tracebench vs plain fit", plain
    # every run but the episode covers the robust truth; the episode drags the plain one
    assert own["covered"] == 11 and own["trials"] == 12, (name, own)
    assert plain["covered"] < own["covered"], (name, plain, own)
    h = q[name][0]
    assert h["cochran_q"]["q"] > 5 * h["cochran_q"]["df"], h["cochran_q"]
    assert h["cochran_q_without_episodes"]["q"] < 2.5 * h["cochran_q_without_episodes"]["df"], h
    assert [e["run"] for e in h["episodes"]] == ["07"], h["episodes"]
    # the episode's slower baseline goes with its higher estimate
    assert h["baseline_r"] > 0.7, h["baseline_r"]
# tracebench combine over every window of 5 consecutive runs (8 of 12; 2 disjoint), judged
# against the runs outside it: the windows holding the episode get its spread in their
# intervals, so every window covers, where one run's interval missed once
comb = json.load(open(sys.argv[1]))["combined"]
assert comb["group"] == 5, comb
for name in ("A/A", "tp-getpid"):
    w, d = comb[name]["windows"], comb[name]["disjoint"]
    assert w["trials"] == 8 and d["trials"] == 2, (name, w, d)
    assert w["covered"] == 8, (name, w)
assert comb["tp-getpid"]["windows"]["mean_half_width"] > 2 * q["tp-getpid"][0]["mean_half_width"], comb
# five runs spaced every 2nd (12 // 5): two windows, the episode's (run 07) in the first
for name in ("A/A", "tp-getpid"):
    sp = comb[name]["spaced"]
    assert sp["trials"] == 2 and sp["covered"] == 2, (name, sp)
    assert [m for m in comb[name]["missed"] if m["kind"] == "spaced"] == [], comb[name]
# the windows' spans, first start to last end (every synthetic run is dated 10:00-10:05)
assert comb["mean_span_s"] == {"windows": 300.0, "spaced": 300.0}, comb["mean_span_s"]
PY
grep -q "combined over 5 runs (tracebench combine; consecutive windows, and runs spaced every 2)" "$TMP/out" ||
	{ cat "$TMP/out"; fail "the combined windows printed"; }
# without an episode: none listed, the robust and the plain truth agree on every run
mkset "$TMP/calm" 0
COVERAGE_RESAMPLES=200 python3 "$VC" --analyze "$TMP/calm" >"$TMP/out" 2>"$TMP/err"
[ $? -le 1 ] || { cat "$TMP/err"; fail "--analyze of the calm set"; }
! grep -q "episode" "$TMP/out" || { cat "$TMP/out"; fail "an episode in a set without one"; }
python3 -c '
import json, sys
q = json.load(open(sys.argv[1]))["questions"]["tp-getpid"]
assert q[0]["covered"] == q[1]["covered"] >= 10, q[:2]' "$TMP/calm/coverage.json" ||
	fail "the calm set's coverage"
# the machine's speed moving from run to run (baselines 0.9-1.1 x), the truths with it: one
# run's interval misses the other runs' mean at the ends, and covers the other runs' fit on
# their baselines' ns/op at its own (the truth for the machine as it was); Cochran's Q around
# that fit is about its df where the plain one is far above it
mkset "$TMP/speed" 0 0.1
COVERAGE_RESAMPLES=200 python3 "$VC" --analyze "$TMP/speed" >"$TMP/out" 2>"$TMP/err"
[ $? -le 1 ] || { cat "$TMP/err"; fail "--analyze of the set whose speed moves"; }
grep -q "tp-getpid: runs around their weighted fit on the baseline's ns/op too: Cochran's Q" "$TMP/out" ||
	{ cat "$TMP/out"; fail "Q at the run's speed printed"; }
python3 - "$TMP/speed/coverage.json" "$TB_ROOT/tools" "$TMP" <<'PY' || { cat "$TMP/out"; fail "coverage at the run's speed"; }
import json, os, shutil, sys
q = json.load(open(sys.argv[1]))["questions"]
for name in ("tp-getpid", "delay-20ns"):
    rows = {r["estimator"]: r for r in q[name]}
    own, fast = rows["tracebench (result.json)"], rows["tracebench at the run's speed"]
    assert fast["trials"] == 12 and fast["covered"] >= 11, (name, fast)
    assert own["covered"] <= 8, (name, own)
    h = q[name][0]
    assert h["cochran_q"]["q"] > 4 * h["cochran_q"]["df"], (name, h["cochran_q"])
    s = h["cochran_q_at_speed"]
    # the delay's count is the same in every run: one regressor, the speed
    assert s["q"] < 2.5 * s["df"] and s["df"] == 10, (name, s)
assert "tracebench at the run's speed" not in [r["estimator"] for r in q["A/A"]], q["A/A"]
# METHODOLOGY 9's figures show it: a row per question unloaded, a column under load
sys.path.insert(0, sys.argv[2])
import figures_bench
d = os.path.join(sys.argv[3], "figspeed")
os.makedirs(os.path.join(d, "coverage", "load-1"))
shutil.copy(sys.argv[1], os.path.join(d, "coverage"))
t = figures_bench.run_coverage(d, d)["table"]
row = [x for x in t.splitlines() if x.startswith("| tracepoint at the run's speed")]
assert len(row) == 1 and f"| {q['tp-getpid'][2]['covered']}/12 (" in row[0], t
assert f"({q['tp-getpid'][0]['cochran_q_at_speed']['df']})" in row[0], row
shutil.copy(sys.argv[1], os.path.join(d, "coverage", "load-1"))
with open(os.path.join(d, "coverage.txt"), "w") as f:
    f.write("check (95% unloaded, 90% under load, Wilson upper end): FAILED\n")
fig = figures_bench.run_coverage_loaded(d, d)
assert "| at the run's speed |" in fig["table"], fig["table"]
row = [x for x in fig["table"].splitlines() if x.startswith("| delay-20ns | 1 |")]
assert len(row) == 1 and f"| {q['delay-20ns'][2]['covered']}/12 |" in row[0], fig["table"]
assert "; at the run's speed " in fig["speed"], fig["speed"]
# and the level's runs combined, windows and spaced, without the windows' misses listed
assert fig["combined"].startswith("1 busy CPU: windows of 5 runs"), fig["combined"]
assert "runs spaced across the set 2/2" in fig["combined"], fig["combined"]
assert "missed" not in fig["combined"], fig["combined"]
PY
# METHODOLOGY 9's coverage figure (tools/figures_bench.py) renders every candidate the analysis
# reported, by the analysis's own names: a renamed or added one is not shown as "-" or left out
mkdir -p "$TMP/fig/coverage" && cp "$TMP/calm/coverage.json" "$TMP/fig/coverage/" || fail "the figure's copy"
python3 - "$TB_ROOT/tools" "$TMP/fig" <<'PY' || fail "the coverage figure's candidates"
import sys
sys.path.insert(0, sys.argv[1])
import json, figures_bench
rows = json.load(open(sys.argv[2] + "/coverage/coverage.json"))["questions"]["A/A"]
names = [r["estimator"] for r in rows if not r["estimator"].startswith("tracebench")]
line = figures_bench.run_coverage(sys.argv[2], sys.argv[2])["candidates"]
assert len(names) >= 7 and all(n + " " in line for n in names), (names, line)
import re
assert " -" not in line and len(re.findall(r"\d+ / \d+ / \d+%", line)) == len(names), line
# the ratio of medians and its corrections last, beside each other
assert line.index("ratio of medians") > max(line.index(n) for n in names
                                            if not n.startswith("ratio of medians")), line
PY
# the corrected intervals: rows for every question; a moving-block bootstrap widens the interval
# of pairs whose neighbours move together (a drift of the paired ratio across rounds) and not
# that of independent pairs; BCa is the percentile interval when the resamples are unbiased and
# unskewed (z0 = a = 0), and moves it towards the side where the resamples are short
python3 - "$VC" "$TMP/calm/coverage.json" <<'PY' || fail "the corrected intervals"
import importlib.util, json, math, random, statistics, sys, os
sys.path.insert(0, os.path.dirname(sys.argv[1]))
spec = importlib.util.spec_from_file_location("vc", sys.argv[1])
vc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(vc)
q = json.load(open(sys.argv[2]))["questions"]
for name in ("A/A", "tp-getpid", "delay-20ns"):
    rows = {r["estimator"]: r for r in q[name]}
    for est in vc.OTHER_CANDIDATES:
        assert rows[est]["trials"] == 12, (name, est, rows.get(est))
rng = random.Random(7)
b = [1000.0 * (1 + rng.gauss(0, 0.01)) for _ in range(60)]
drift, ar = [], 0.0
for _ in range(60):
    ar = 0.95 * ar + rng.gauss(0, 0.01)
    drift.append(ar)
indep = [x * 1.2 * (1 + rng.gauss(0, 0.01)) for x in b]
walk = [x * 1.2 * math.exp(d) for x, d in zip(b, drift)]
def half(t, block):
    v = vc.boot_vals(vc.ratio_of_medians, b, t, False, random.Random(1), 400, block)
    return vc.quantile(v, 0.975) - vc.quantile(v, 0.025)
assert half(walk, 3) > 1.15 * half(walk, 1), (half(walk, 3), half(walk, 1))
assert half(indep, 3) < 1.15 * half(indep, 1), (half(indep, 3), half(indep, 1))
base = [0.0] * 40
sym = sorted(float(k) for k in range(-500, 501))
pl, ph = vc.quantile(sym, 0.025), vc.quantile(sym, 0.975)
flat = [float((-1) ** k) for k in range(40)]
lo, hi = vc.bca_ci(sym, lambda x, y, ns: 0.0, base, flat, True)
assert abs(lo - pl) < 1e-9 and abs(hi - ph) < 1e-9, (lo, hi, pl, ph)
# more resamples below the estimate than above (z0 > 0): both ends move up from the percentiles
lo, hi = vc.bca_ci([v - 20 for v in sym], lambda x, y, ns: 0.0, base, flat, True)
assert lo > pl - 20 + 5 and hi > ph - 20 + 5, (lo, hi, pl - 20, ph - 20)
# the fit on regressors: one every point shares (the delay's count when the runs calibrated
# alike) gets slope 0 exactly, though its weighted mean misses it by a rounding; and
# DerSimonian-Laird's denominator is tr(W) - tr((X'WX)^-1 X'W^2X) over the intercept and
# the regressors that vary, computed here from the uncentred matrices
def dl_ref(pts, cols):
    x = [[1.0] + [p[0][j] for j in cols] for p in pts]
    w = [1 / p[2] ** 2 for p in pts]
    n = len(x[0])
    a = [[sum(wi * r[i] * r[k] for wi, r in zip(w, x)) for k in range(n)] for i in range(n)]
    b = [[sum(wi * wi * r[i] * r[k] for wi, r in zip(w, x)) for k in range(n)] for i in range(n)]
    return sum(w) - sum(vc.solve(a, [b[i][c] for i in range(n)])[c] for c in range(n))
for t in range(50):
    pts = [((80, 900 + 10 * rng.random()), rng.gauss(30, 4), rng.uniform(4, 12)) for _ in range(12)]
    fit = vc.wls(pts)
    assert fit[1][0] == 0.0, fit
    assert abs(vc.dl_scale(pts) - dl_ref(pts, [1])) < 1e-9 * dl_ref(pts, [1]), t
    pts = [((), y, se) for _, y, se in pts]
    w = [1 / se ** 2 for _, _, se in pts]
    assert abs(vc.dl_scale(pts) - (sum(w) - sum(v * v for v in w) / sum(w))) < 1e-12 * sum(w)
PY
# bad input: a run that is not a result is skipped by name; too few usable runs is exit 2
mkdir -p "$TMP/few/runs/01" "$TMP/few/runs/02"
echo '{"cells": 3}' >"$TMP/few/runs/01/result.json"
cp "$TMP/calm/runs/01/result.json" "$TMP/few/runs/02/"
expect_exit 2 python3 "$VC" --analyze "$TMP/few"
grep -q "skipping run 01: .*not a tracebench result" "$TMP/err" || { cat "$TMP/err"; fail "the bad run by name"; }
grep -q "1 usable runs in $TMP/few/runs; need 3" "$TMP/err" || { cat "$TMP/err"; fail "too few runs"; }
echo "PASS: validate-coverage's analysis: episodes, the robust truth, the corrected intervals, bad runs"
