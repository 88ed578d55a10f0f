#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The table of make validate-history (tools/validate-history.sh) from its output directory:
false change points on the null history, and the known steps found or not, where, and how
large against the truth. Python standard library only; rerun it on a directory at will.

usage: validate-history-analyze.py OUTDIR RUNS STEP [SECONDS]
"""
import collections
import json
import os
import sys

STEPS = (("delay-5", 5), ("delay-20", 20), ("delay-100", 100))
# Must be found at the step (+-1 run), the estimate agreeing with the truth: the truth is itself
# a measurement (the delay tracer's timing of its spin, averaged over runs) with its own error,
# so "agree" is the difference within 1.96 x the combined standard error; whether the truth
# falls inside the change's own CI is printed beside it.
MUST = ("delay-20", "delay-100")


def load(path):
    with open(path) as f:
        return json.load(f)


def null_table(out, runs):
    det = load(os.path.join(out, "null-detect.json"))
    series = det["series"]
    clean = [s for s in series if not s["change_points"]]
    ncp = sum(len(s["change_points"]) for s in series)
    per_metric = collections.defaultdict(lambda: [0, 0])
    for s in series:
        per_metric[s["metric"]][0] += 1
        per_metric[s["metric"]][1] += bool(s["change_points"])
    share = 100.0 * len(clean) / len(series) if series else 0.0
    print("null history: %d runs of scenarios/validation/history-null.ini, %d series" %
          (runs, len(series)))
    print("  series without a change point: %d of %d (%.1f%%; the target is >= 95%%)" %
          (len(clean), len(series), share))
    print("  false change points: %d, %.2f per 100 runs per series" %
          (ncp, 100.0 * ncp / (len(series) * runs) if series else 0.0))
    print("  by metric (series with a false change point / series): " +
          ", ".join("%s %d/%d" % (m, v[1], v[0]) for m, v in sorted(per_metric.items())))
    for s in series:
        for c in s["change_points"]:
            print("    false: %s at run %d: %+.4g [%+.4g, %+.4g], p %.2g" %
                  (s["name"], c["run"], c["change"], c["ci"][0], c["ci"][1], c["p"]))
    return share >= 95.0


def mean_se(v):
    """Mean and standard error of a list (NaN when empty, 0 se for one value)."""
    if not v:
        return float("nan"), float("nan")
    m = sum(v) / len(v)
    if len(v) < 2:
        return m, 0.0
    sd = (sum((x - m) ** 2 for x in v) / (len(v) - 1)) ** 0.5
    return m, sd / len(v) ** 0.5


def truths(out, runs, step):
    """Per delay cell: the change of its own measurement of the spin (ns) at the step, the mean
    over the runs after minus the mean over the runs before, with its standard error."""
    before, after = collections.defaultdict(list), collections.defaultdict(list)
    for i in range(runs):
        r = load(os.path.join(out, "steps", "run-%02d" % i, "result.json"))
        for c in r["cells"]:
            extra = c.get("tracer_extra") or {}
            if "spin_ns_mean" in extra:
                (after if i >= step else before)[c["tracer"]].append(extra["spin_ns_mean"])
    res = {}
    for t, _ in STEPS:
        ma, sa = mean_se(after[t])
        mb, sb = mean_se(before[t])
        res[t] = (ma - mb, (sa ** 2 + sb ** 2) ** 0.5)
    return res


def step_row(ns, c, truth, se_t):
    """One step's line; returns (truth inside the change's CI, the two agree)."""
    lo, hi = c["ci"]
    inside = lo <= truth <= hi
    se_e = (hi - lo) / (2 * 1.96)
    agree = abs(c["change"] - truth) <= 1.96 * (se_e ** 2 + se_t ** 2) ** 0.5
    print("  %-8s %-6s %-7d %-27s %-20s %-7s %-7s %.2g, %.2g" %
          ("+%d ns" % ns, "yes", c["run"], "%+.2f [%+.2f, %+.2f]" % (c["change"], lo, hi),
           "%.2f [%.2f, %.2f]" % (truth, truth - 1.96 * se_t, truth + 1.96 * se_t),
           "yes" if inside else "no", "yes" if agree else "no", c["p"],
           c["p_samples"] if c["p_samples"] is not None else float("nan")))
    return inside, agree


def step_table(out, runs, step):
    det = load(os.path.join(out, "steps-detect.json"))
    by_name = {s["name"]: s for s in det["series"]}
    truth = truths(out, runs, step)
    ok = True
    print("known steps: %d runs of scenarios/validation/history-steps.ini, delay tracers from "
          "+0 ns to +5, +20, +100 ns at run %d (1-based); series overhead_ns" % (runs, step + 1))
    print("  %-8s %-6s %-7s %-27s %-20s %-7s %-7s %s" %
          ("step", "found", "at run", "change ns [95% CI]", "truth ns [95% CI]", "in CI",
           "agree", "p, samples p"))
    for tracer, ns in STEPS:
        s = by_name.get("history-steps/getpid/%s/overhead_ns" % tracer)
        cps = s["change_points"] if s else []
        hit = [c for c in cps if abs(c["index"] - step) <= 1]
        t, se_t = truth[tracer]
        agree = False
        if hit:
            _, agree = step_row(ns, hit[0], t, se_t)
        else:
            print("  %-8s %-6s %-7s %-27s %-20s %-7s %-7s %s" %
                  ("+%d ns" % ns, "no", "-", "-", "%.2f" % t, "-", "-",
                   "(elsewhere: %s)" % ", ".join("run %d" % c["run"] for c in cps) if cps else ""))
        if tracer in MUST and not (hit and agree):
            ok = False
        others = [c for c in cps if c not in hit]
        if others:
            print("    other change points of this series: " + ", ".join(
                "run %d (%+.3g)" % (c["run"], c["change"]) for c in others))
    extra = sum(len(x["change_points"]) for x in det["series"]
                if not x["tracer"].startswith("delay-"))
    print("  change points in the step history's other series (baseline ns/op and the like): %d"
          % extra)
    print("  truth: the delay tracer's own timing of its spin (tracer_extra.spin_ns_mean), mean "
          "after minus mean before; in CI: the truth inside the change's CI; agree: the change "
          "minus the truth within 1.96 x their combined standard error (the criterion for +20 "
          "and +100 ns, with found at the step +-1 run)")
    return ok


def main():
    out, runs, step = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    secs = int(sys.argv[4]) if len(sys.argv) > 4 else None
    det = load(os.path.join(out, "null-detect.json"))["settings"]
    print("tracebench validate-history (%s): window %d, p < %g, min magnitude %g%%%s" %
          (out, det["window"], det["p_value"], 100 * det["min_magnitude"],
           ", %dm%02ds" % (secs // 60, secs % 60) if secs is not None else ""))
    ok_null = null_table(out, runs)
    ok_steps = step_table(out, runs, step)
    print("PASS" if ok_null and ok_steps else
          "FAIL: %s" % ", ".join(x for x, ok in (("null history", ok_null),
                                                  ("known steps", ok_steps)) if not ok))
    return 0


if __name__ == "__main__":
    sys.exit(main())
