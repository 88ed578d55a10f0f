#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Analyse a `make validate` run (tools/validate.sh): read the result.json files and peer
benchmark figures under OUTDIR, decide each check, write OUTDIR/validation.json and
OUTDIR/table.txt, print the table and one PASS/FAIL line per check.

Exit status: 0 when every check passed, 1 when one failed or could not be decided, 2 on bad
input (missing directory).

Layout of OUTDIR (written by validate.sh):
  known-delta/result.json     scenarios/validation/known-delta.ini
  aa/NN/result.json           scenarios/validation/aa.ini with --aa, one per repetition
  proof/result.json           scenarios/validation/proof.ini
  families/result.json        scenarios/validation/proof-families.ini
  bpf/result.json             scenarios/validation/bpf-crosscheck.ini
  peers/NN/result.json        scenarios/validation/peers.ini, one per peer round
  peers/perf-syscall.txt      perf bench syscall basic: one ns/op per line, one per round
  peers/perf-pipe.txt         perf bench sched pipe: one ns/op per line, one per round
  sources/result.json         scenarios/validation/error-sources.ini (figures only)
  floor/result.json           scenarios/validation/floor.ini (figures only)
  explain/result.json         scenarios/validation/explain.ini (run --explain)
  commands.txt                every command validate.sh ran (for METHODOLOGY.md)
Python standard library only.
"""
import json
import math
import os
import re
import statistics
import sys

ALPHA_GOAL = 0.05  # A/A false-positive rate goal at alpha 0.05
PROOF_TOL = 0.01  # events recorded / ops within 1%


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        return {"_error": "%s: %s" % (path, e)}


def measured(cell):
    return [s for s in cell.get("samples", []) if not s.get("warmup") and not s.get("failed")]


def num(x):
    return x if isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) \
        else None


def fmt(x, spec="%.1f"):
    x = num(x)
    return "n/a" if x is None else spec % x


def baseline(res, workload):
    for c in res.get("cells", []):
        if c.get("workload") == workload and c.get("baseline"):
            return c
    return None


def clopper_pearson_upper(k, n, conf=0.95):
    """One-sided upper confidence bound of a binomial proportion (bisection on the CDF)."""
    if n == 0:
        return None
    if k >= n:
        return 1.0
    target = 1 - conf

    def cdf(p):  # P(X <= k | n, p)
        return sum(math.comb(n, i) * p ** i * (1 - p) ** (n - i) for i in range(k + 1))

    lo, hi = k / n, 1.0
    for _ in range(100):
        mid = (lo + hi) / 2
        if cdf(mid) > target:
            lo = mid
        else:
            hi = mid
    return hi


class Report:
    def __init__(self):
        self.checks = []  # dicts: name, figure, expected, ok (True/False/None), detail
        self.rows = []  # table rows (check, item, figure, expected, result)

    def check(self, name, ok, figure, expected, detail=None, item="", data=None):
        c = {"check": name, "item": item, "pass": ok, "figure": figure, "expected": expected}
        if detail:
            c["detail"] = detail
        if data:
            c["data"] = data
        self.checks.append(c)

    def info(self, name, item, figure, detail=None, data=None):
        c = {"check": name, "item": item, "pass": None, "info": True, "figure": figure,
             "expected": "(printed only)"}
        if detail:
            c["detail"] = detail
        if data:
            c["data"] = data
        self.checks.append(c)


def known_delta(out, rep):
    path = os.path.join(out, "known-delta", "result.json")
    res = load(path)
    if "_error" in res:
        rep.check("known-delta", False, "no result", "a result file", res["_error"])
        return
    cells = [c for c in res.get("cells", []) if c.get("tracer_type") == "delay"]
    if not cells:
        rep.check("known-delta", False, "no delay cells", "delay cells", path)
        return
    for c in sorted(cells, key=lambda c: (c.get("tracer_extra") or {}).get("target_ns", 0)):
        ex = c.get("tracer_extra") or {}
        ov = c.get("overhead") or {}
        # The mean of the spin's cost measured at every sample of the run (the loop's cost
        # drifts on a VM); older results only carry the last sample's figure.
        truth = num(ex.get("spin_ns_mean"))
        if truth is None:
            truth = num(ex.get("spin_ns_measured"))
        got = num(ov.get("ns_per_op"))
        ci = ov.get("ns_per_op_ci") or [None, None]
        base = baseline(res, c.get("workload"))
        bmed = num((base or {}).get("summary", {}).get("median"))
        item = "%s +%s ns" % (c.get("workload"), ex.get("target_ns", "?"))
        data = {"cell": c.get("id"), "target_ns": ex.get("target_ns"),
                "spin_ns_truth": truth, "spin_ns_sd": num(ex.get("spin_ns_sd")),
                "spin_measurements": ex.get("spin_measurements"), "iters": ex.get("iters"),
                "reported_ns_per_op": got, "ns_per_op_ci": ci,
                "pct": num(ov.get("pct")), "verdict": ov.get("verdict"),
                "baseline_median_ns": bmed, "samples": len(measured(c))}
        if truth is None or got is None:
            rep.check("known-delta", False, "reported %s ns, truth %s ns" % (fmt(got), fmt(truth)),
                      "both known", c.get("error") or ov.get("reason"), item, data)
            continue
        # Diagnostic only: the same difference on the workload's CPU time (user + system per
        # op), which excludes time the workload spent descheduled by other tenants.
        def cpu_med(cell):
            v = [s["workload_cpu_s"] * 1e9 / s["ops"] for s in measured(cell)
                 if num(s.get("workload_cpu_s")) is not None and s.get("ops")]
            return statistics.median(v) if v else None
        cb, ct = (cpu_med(base) if base else None), cpu_med(c)
        data["cpu_time_ns_per_op_diff"] = ct - cb if cb is not None and ct is not None else None
        data["reason"] = ov.get("reason")
        tol = max(0.10 * truth, 2.0)
        err = got - truth
        data.update({"tolerance_ns": tol, "error_ns": err})
        rep.check("known-delta", abs(err) <= tol,
                  "reported %.1f ns/op [%s, %s], truth %.1f ns (error %+.1f); on CPU time %s ns"
                  % (got, fmt(ci[0]), fmt(ci[1]), truth, err,
                     fmt(data["cpu_time_ns_per_op_diff"])),
                  "|error| <= %.1f ns" % tol,
                  "verdict %s: %s" % (ov.get("verdict"), ov.get("reason"))
                  if ov.get("verdict") == "untrustworthy" else None, item, data)


def aa(out, rep):
    d = os.path.join(out, "aa")
    runs = sorted(x for x in os.listdir(d) if os.path.isfile(os.path.join(d, x, "result.json"))) \
        if os.path.isdir(d) else []
    if not runs:
        rep.check("aa", False, "no A/A results", "A/A runs", d)
        return
    per_wl = {}
    fp = fp_verdict = ci_excl = total = untrust = failed_runs = foreign_runs = 0
    reasons = {}
    for r in runs:
        res = load(os.path.join(d, r, "result.json"))
        if "_error" in res or not res.get("settings", {}).get("aa"):
            failed_runs += 1
            continue
        thr = 100 * (num(res["settings"].get("noise_threshold")) or 0.01)
        if res.get("foreign_instrumentation"):
            foreign_runs += 1
        for c in res.get("cells", []):
            if c.get("baseline"):
                continue
            ov = c.get("overhead") or {}
            v = ov.get("verdict")
            w = per_wl.setdefault(c.get("workload"),
                                  {"pairs": 0, "fp": 0, "untrustworthy": 0, "abs_pct": [],
                                   "ci_half": [], "base_cv": []})
            w["pairs"] += 1
            total += 1
            pct = num(ov.get("pct"))
            ci = ov.get("ci") or [None, None]
            # The statistical rule of the "overhead" verdict (doc/statistics.md, rule 2),
            # applied whatever rule 1 said: an untrustworthy verdict (e.g. another user's
            # tracing seen on a shared machine) must not hide a false positive.
            excl = num(ci[0]) is not None and num(ci[1]) is not None and \
                (ci[0] > 0 or ci[1] < 0)
            if excl:
                ci_excl += 1
            if excl and pct is not None and abs(pct) > thr:
                fp += 1
                w["fp"] += 1
            if v in ("overhead", "faster-than-baseline"):  # a speedup is a false positive too
                fp_verdict += 1
            elif v == "untrustworthy":
                untrust += 1
                w["untrustworthy"] += 1
                why = re.sub(r"[0-9]+(\.[0-9]+)?", "N", ov.get("reason") or "")
                reasons[why] = reasons.get(why, 0) + 1
            if pct is not None:
                w["abs_pct"].append(abs(pct))
            if num(ci[0]) is not None and num(ci[1]) is not None:
                w["ci_half"].append((ci[1] - ci[0]) / 2)
            b = baseline(res, c.get("workload"))
            cv = num((b or {}).get("summary", {}).get("cv"))
            if cv is not None:
                w["base_cv"].append(100 * cv)
    rate = fp / total if total else None
    upper = clopper_pearson_upper(fp, total)
    for wl, w in sorted(per_wl.items()):
        med = lambda v: statistics.median(v) if v else None  # noqa: E731
        data = {"pairs": w["pairs"], "false_positives": w["fp"],
                "untrustworthy": w["untrustworthy"],
                "median_abs_pct": med(w["abs_pct"]),
                "max_abs_pct": max(w["abs_pct"]) if w["abs_pct"] else None,
                "median_ci_half_width_pct": med(w["ci_half"]),
                "max_ci_half_width_pct": max(w["ci_half"]) if w["ci_half"] else None,
                "median_baseline_cv_pct": med(w["base_cv"])}
        rep.info("aa-noise-floor", wl,
                 "median |overhead| %s%% (max %s%%), median CI half-width %s%% (max %s%%), "
                 "baseline CV %s%%; %d/%d false positives, %d untrustworthy"
                 % (fmt(data["median_abs_pct"], "%.2f"), fmt(data["max_abs_pct"], "%.2f"),
                    fmt(data["median_ci_half_width_pct"], "%.2f"),
                    fmt(data["max_ci_half_width_pct"], "%.2f"),
                    fmt(data["median_baseline_cv_pct"], "%.2f"), w["fp"], w["pairs"],
                    w["untrustworthy"]), data=data)
    data = {"runs": len(runs), "runs_unusable": failed_runs, "pairs": total,
            "false_positives": fp, "ci_excludes_zero": ci_excl,
            "overhead_verdicts": fp_verdict, "untrustworthy": untrust,
            "untrustworthy_reasons": reasons, "runs_with_foreign_instrumentation": foreign_runs,
            "rate": rate, "rate_upper95": upper}
    ok = rate is not None and rate <= ALPHA_GOAL and failed_runs == 0
    rep.check("aa-false-positives", ok,
              "%d/%d pairs significant and above the noise threshold = %s%% (one-sided 95%% "
              "upper bound %s%%); CI alone excluded 0 in %d; verdicts: %d overhead, %d "
              "untrustworthy"
              % (fp, total, fmt(None if rate is None else 100 * rate),
                 fmt(None if upper is None else 100 * upper), ci_excl, fp_verdict, untrust),
              "<= %.0f%%" % (100 * ALPHA_GOAL),
              "%d of %d runs unusable" % (failed_runs, len(runs)) if failed_runs else None,
              "%d runs" % len(runs), data)


def proof(out, rep):
    path = os.path.join(out, "proof", "result.json")
    res = load(path)
    if "_error" in res:
        rep.check("proof", False, "no result", "a result file", res["_error"])
        return
    seen = False
    for c in res.get("cells", []):
        if c.get("tracer_type") != "ftrace-events":
            continue
        seen = True
        ov = c.get("overhead") or {}
        cfg = c.get("tracer_config") or {}
        ms = measured(c)
        ops = sum(s.get("ops", 0) for s in ms) * (c.get("threads") or 1)
        ev = c.get("events_recorded")
        lost = c.get("events_lost")
        size = cfg.get("buffer-size", "?")
        if isinstance(size, int):
            size = "%dM" % (size >> 20) if size >= 1 << 20 else "%dK" % (size >> 10)
        item = "%s (buffer %s/CPU, overwrite %s)" % (
            c.get("tracer"), size, str(cfg.get("overwrite", "?")).lower())
        data = {"cell": c.get("id"), "ops": ops, "events_recorded": ev, "events_lost": lost,
                "verdict": ov.get("verdict"), "reason": ov.get("reason"),
                "tracer_config": cfg, "ns_per_event": num(ov.get("ns_per_event")),
                "overhead_ns_per_op": num(ov.get("ns_per_op"))}
        per = [s["events"] / s["ops"] for s in ms
               if num(s.get("events")) is not None and s.get("ops")]
        if per:
            data["per_sample_events_per_op"] = [min(per), max(per)]
        if c.get("error"):
            rep.check("proof", False, "cell failed", "a run", c["error"], item, data)
        elif str(c.get("tracer", "")).startswith("lossy"):
            # a buffer too small, overwrite off: the loss must be counted, the verdict refused
            ok = (lost or 0) > 0 and ov.get("verdict") == "untrustworthy"
            rep.check("proof-lost", ok,
                      "%s recorded, %s lost of %d ops; verdict %s"
                      % (ev, lost, ops, ov.get("verdict")),
                      "lost > 0, untrustworthy", None, item, data)
        elif str(c.get("tracer", "")).startswith("control"):
            # hooks a syscall the workload never makes: the harness's own syscalls stay out
            # of the traced window, so exactly nothing is recorded, and the proof says control
            pr = c.get("proof") or {}
            data["proof"] = pr
            rep.check("proof-window", ev == 0 and pr.get("outcome") == "control",
                      "%s events over %d ops; proof %s; verdict %s"
                      % (ev, ops, pr.get("outcome"), ov.get("verdict")),
                      "0 events, control", None, item, data)
        else:
            # events per op against what the workload's table says one op makes
            pr = c.get("proof") or {}
            want = num(pr.get("expected_per_op"))
            ratio = ev / ops if isinstance(ev, int) and ev >= 0 and ops else None
            data["events_per_op"] = ratio
            data["proof"] = pr
            ok = (ratio is not None and want and abs(ratio / want - 1) <= PROOF_TOL
                  and pr.get("outcome") == "match")
            rep.check("proof-count", ok,
                      "%s events / %d ops = %s of %s expected (proof %s, lost %s); %s ns/event"
                      % (ev, ops, fmt(ratio, "%.5f"), fmt(want), pr.get("outcome"), lost,
                         fmt(data["ns_per_event"])),
                      "expected +- %.0f%%, proof match" % (100 * PROOF_TOL), None, item, data)
    if not seen:
        rep.check("proof", False, "no ftrace-events cells", "cells", path)


# The tracer types whose tracer is kept across a cell's samples and rearmed (METHODOLOGY.md
# 2.4); the others (perf-count, perf-sample, command) are set up for every sample.
REARMS = ("ftrace-events", "ftrace-uprobe", "bpf", "lttng-ust")


def families(out, rep):
    """Every family's proof with reused tracers (proof-families.ini): per traced cell, the
    proof and every measured sample's count, nothing lost, and the rearms where they exist."""
    path = os.path.join(out, "families", "result.json")
    res = load(path)
    if "_error" in res:
        rep.check("families", False, "no result", "a result file", res["_error"])
        return
    for why in res.get("unsupported") or []:
        rep.info("families", "", "not run: %s" % why)
    cells = [c for c in res.get("cells", []) if not c.get("baseline")]
    if not cells:
        rep.check("families", False, "no traced cells", "cells", path)
    for c in cells:
        kind = c.get("tracer_type")
        item = "%s (%s)" % (c.get("tracer"), kind)
        pr = c.get("proof") or {}
        want = num(pr.get("expected_per_op"))
        timed = [s for s in c.get("samples", []) if not s.get("failed")
                 and not s.get("accounting")]
        # the warmup and the accounting samples included: the cell's first sample sets its
        # tracer up, and an accounting sample takes the kept tracer as a timed one does
        every = [s for s in c.get("samples", []) if not s.get("failed")]
        counted = [s for s in measured(c)
                   if num(s.get("events")) is not None and s["events"] >= 0 and s.get("ops")]
        per = [s["events"] / s["ops"] for s in counted]
        lost = sum(s.get("lost") or 0 for s in measured(c))
        data = {"cell": c.get("id"), "proof": pr, "samples": len(timed),
                "counted_samples": len(counted), "events_lost": lost,
                "events_per_op": [min(per), max(per)] if per else None,
                "rearmed": [bool(s.get("rearmed")) for s in sorted(every, key=lambda s:
                                                                    s.get("order", 0))]}
        if c.get("error"):
            rep.check("families", False, "cell failed", "a run", c["error"], item, data)
            continue
        if kind == "perf-sample":
            # a sampler's count is its samples, not the op's events: every sample took some
            ok = pr.get("outcome") == "sampled" and per and min(per) > 0
            expected = "proof sampled, samples in every measured sample"
        elif kind == "command":
            # a system-wide hook (bpftrace's programs run on every task's syscalls): the count
            # is at least the workload's own, from the accounting samples (stats off otherwise)
            ok = (pr.get("outcome") in ("match", "above") and want and per
                  and min(per) >= want * (1 - PROOF_TOL))
            expected = "proof match or above, every counted sample >= expected - 1%"
        else:
            ok = (pr.get("outcome") == "match" and want and per
                  and all(abs(x / want - 1) <= PROOF_TOL for x in per))
            expected = "proof match, every sample's events / ops within 1% of expected"
        ok = bool(ok) and lost == 0
        rep.check("families-proof", ok,
                  "proof %s, %d of %d samples counted, events / op %s..%s of %s expected, lost %d"
                  % (pr.get("outcome"), len(counted), len(measured(c)),
                     fmt(min(per) if per else None, "%.5f"),
                     fmt(max(per) if per else None, "%.5f"), fmt(want, "%g"), lost),
                  expected + ", nothing lost", None, item, data)
        # the first sample sets the kept tracer up; every later one rearms it
        flags = data["rearmed"]
        if kind in REARMS:
            ok = len(flags) >= 2 and not flags[0] and all(flags[1:])
            expected = "every sample after the first rearmed, accounting ones too"
        else:
            ok = bool(flags) and not any(flags)
            expected = "none rearmed: set up for every sample"
        rep.check("families-rearm", ok, "%d of %d samples rearmed (%s)"
                  % (sum(flags), len(flags), "".join("r" if f else "s" for f in flags)),
                  expected, None, item, data)


def bpf(out, rep):
    path = os.path.join(out, "bpf", "result.json")
    res = load(path)
    if "_error" in res:
        rep.check("bpf-crosscheck", False, "no result", "a result file", res["_error"])
        return
    cells = [c for c in res.get("cells", []) if c.get("tracer_type") == "bpf"]
    if not cells:
        rep.check("bpf-crosscheck", False, "no bpf cells", "cells", path)
    for c in cells:
        ov = c.get("overhead") or {}
        nse = num(ov.get("ns_per_event"))
        run = num(ov.get("bpf_ns_per_run"))
        ms = measured(c)
        cnt = sum(s.get("bpf_run_cnt") or 0 for s in ms)
        data = {"cell": c.get("id"), "ns_per_event": nse,
                "ns_per_event_ci": ov.get("ns_per_event_ci"),
                "bpf_ns_per_run": run, "bpf_run_cnt": cnt,
                "events_recorded": c.get("events_recorded"),
                "events_per_op": num(ov.get("events_per_op")),
                "overhead_ns_per_op": num(ov.get("ns_per_op")), "pct": num(ov.get("pct")),
                "verdict": ov.get("verdict")}
        ok = nse is not None and run is not None and nse >= run
        rep.check("bpf-crosscheck", ok,
                  "measured %s ns/event (%s events/op) vs in-kernel %s ns/run; gap %s ns"
                  % (fmt(nse), fmt(data["events_per_op"], "%.4f"), fmt(run),
                     fmt(None if not ok else nse - run)),
                  "measured >= in-kernel", c.get("error"), c.get("id"), data)


def peers(out, rep):
    d = os.path.join(out, "peers")

    def nums(name):
        try:
            with open(os.path.join(d, name)) as f:
                return [float(x) for x in f.read().split()]
        except (OSError, ValueError):
            return []

    ours = {"getpid": [], "getppid": [], "pipe-pingpong": []}
    runs = sorted(x for x in os.listdir(d) if os.path.isfile(os.path.join(d, x, "result.json"))) \
        if os.path.isdir(d) else []
    for r in runs:
        res = load(os.path.join(d, r, "result.json"))
        for wl in ours:
            b = baseline(res, wl)
            m = num((b or {}).get("summary", {}).get("median"))
            if m is not None:
                ours[wl].append(m)
    for wl, peer, f in (("getppid", "perf bench syscall basic (getppid)", "perf-syscall.txt"),
                        ("getpid", "perf bench syscall basic (getppid)", "perf-syscall.txt"),
                        ("pipe-pingpong", "perf bench sched pipe (round trip)", "perf-pipe.txt")):
        p = nums(f)
        o = ours[wl]
        pm = statistics.median(p) if p else None
        om = statistics.median(o) if o else None
        ratio = om / pm if pm and om else None
        data = {"tracebench_ns_per_op": o, "peer_ns_per_op": p, "tracebench_median": om,
                "peer_median": pm, "ratio": ratio}
        rep.info("peers", "%s vs %s" % (wl, peer),
                 "tracebench %s ns/op, peer %s ns/op, ratio %s (%d/%d rounds)"
                 % (fmt(om), fmt(pm), fmt(ratio, "%.3f"), len(o), len(p)), data=data)


def sources(out, rep):
    """Figures only: the sizes of error sources (METHODOLOGY.md section 3.1)."""
    res = load(os.path.join(out, "sources", "result.json"))
    if "_error" not in res:
        ns = {}
        for c in res.get("cells", []):
            if c.get("baseline"):
                continue
            ov = c.get("overhead") or {}
            ns[c.get("tracer")] = num(ov.get("ns_per_op"))
            ci = ov.get("ns_per_op_ci") or [None, None]
            rep.info("sources", c.get("tracer"),
                     "%s ns/op [%s, %s] over getpid (%s%%), %s events/op"
                     % (fmt(ov.get("ns_per_op")), fmt(ci[0]), fmt(ci[1]), fmt(ov.get("pct")),
                        fmt(ov.get("events_per_op"), "%.3f")),
                     data={"ns_per_op": num(ov.get("ns_per_op")), "ns_per_op_ci": ci,
                           "pct": num(ov.get("pct")), "events_per_op":
                           num(ov.get("events_per_op")), "verdict": ov.get("verdict"),
                           "bpf_ns_per_run": num(ov.get("bpf_ns_per_run"))})

        def diff(a, b, what):
            if ns.get(a) is not None and ns.get(b) is not None:
                rep.info("sources", what, "%.1f ns/op (%s - %s)" % (ns[a] - ns[b], a, b),
                         data={"ns_per_op": ns[a] - ns[b]})
        diff("tp-filter", "tp-pid", "filter on an accepted event")
        diff("tp-reject", "flag-only", "filtered-out event")
        diff("bpf-stats", "bpf-nostats", "bpf_stats per run")
    res = load(os.path.join(out, "floor", "result.json"))
    if "_error" not in res:
        for c in res.get("cells", []):
            s = c.get("summary") or {}
            lat = c.get("latency") or {}
            fig = "%s ns/op (CV %s%%)" % (fmt(s.get("median"), "%.2f"),
                                          fmt(100 * (num(s.get("cv")) or float("nan")), "%.1f"))
            if num(lat.get("clock_cost_ns")) is not None:
                fig += "; clock read pair %s ns; p50 %s p99 %s p99.9 %s ns" % (
                    fmt(lat.get("clock_cost_ns")), fmt(lat.get("p50")), fmt(lat.get("p99")),
                    fmt(lat.get("p999")))
            rep.info("floor", c.get("workload"), fig,
                     data={"median": num(s.get("median")), "cv": num(s.get("cv")),
                           "clock_cost_ns": num(lat.get("clock_cost_ns")),
                           "p50": num(lat.get("p50")), "p99": num(lat.get("p99")),
                           "p999": num(lat.get("p999"))})


# Where each explained tracer's added time must land (METHODOLOGY.md 6.7): a pattern one of its
# top functions (by added self or inclusive time) must match.
EXPLAIN_WHERE = [
    ("ftrace-events", r"trace_event|ring_buffer|rb_|syscall_trace_enter|ftrace|tracing_",
     "the tracepoint and ring-buffer path"),
    ("bpf", r"bpf_prog_|bpf_trace|__bpf_|htab_map|bpf_trampoline",
     "the BPF program and its dispatch"),
    ("delay", r"^tb_spin$", "the workload's spin (tb_spin)"),
]


def explain_top(e, n=5):
    fns = e.get("functions") or []

    def added(f, k):
        v = f.get(k) or [0, 0]
        return (num(v[1]) or 0) - (num(v[0]) or 0)
    by_self = sorted(fns, key=lambda f: -added(f, "self_ns_per_op"))[:n]
    by_incl = sorted(fns, key=lambda f: -added(f, "inclusive_ns_per_op"))[:n]
    return by_self, by_incl, added


def explain(out, rep):
    """run --explain: the added time lands where each tracer's work is, and the profiles
    account for the measured overhead within the stated tolerance."""
    path = os.path.join(out, "explain", "result.json")
    if not os.path.exists(path):
        rep.info("explain", "", "not run (VALIDATE_ONLY)")
        return
    res = load(path)
    if "_error" in res:
        rep.check("explain", False, "no result", "a result file", res["_error"])
        return
    seen = 0
    for c in res.get("cells", []):
        e = c.get("explain")
        want = [w for w in EXPLAIN_WHERE if w[0] == c.get("tracer_type")]
        if not e or not want:
            continue
        seen += 1
        _, pattern, where = want[0]
        by_self, by_incl, added = explain_top(e)
        names = [f.get("name", "") for f in by_self + by_incl]
        hit = [n for n in names if re.search(pattern, n)]
        share = num(e.get("explained_share"))
        top3 = ", ".join("%s %+.1f" % (f.get("name"), added(f, "self_ns_per_op"))
                         for f in by_self[:3])
        ok = not e.get("error") and bool(e.get("attributable")) and bool(hit)
        rep.check("explain-where", ok, "%s; top self ns/op: %s" % (hit[0] if hit else "nothing",
                  top3 or "none"), "in " + where, e.get("error") or e.get("statement"),
                  c.get("id"), {"functions": names, "statement": e.get("statement")})
        rep.check("explain-share", bool(e.get("explained")),
                  "%s of %s ns/op measured (the profiles add %s ns/op)"
                  % (fmt(None if share is None else 100 * share, "%.0f%%"),
                     fmt(e.get("overhead_ns_per_op")), fmt(e.get("added_ns_per_op"))),
                  "within +-%s or the CI" % fmt(100 * (num(e.get("tolerance")) or 0), "%.0f%%"),
                  None, c.get("id"), {"share": share, "range": e.get("explained_share_range")})
    if not seen:
        rep.check("explain", False, "no explained cells", "cells", path)


def main():
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        print("usage: validate-analyze.py OUTDIR", file=sys.stderr)
        return 2
    out = sys.argv[1]
    rep = Report()
    # VALIDATE_ONLY (validate.sh): the parts not asked for are said as not run, not failed.
    only = os.environ.get("VALIDATE_ONLY", "").split()
    for f in (known_delta, aa, proof, families, bpf, peers, sources, explain):
        if only and f.__name__.replace("_", "-") not in only:
            rep.info(f.__name__.replace("_", "-"), "", "not run (VALIDATE_ONLY)")
            continue
        try:
            f(out, rep)
        except Exception as e:  # a malformed result must not hide the other checks
            rep.check(f.__name__, False, "analysis failed", "-", repr(e))
    lines = []
    w1 = max(len(c["check"]) for c in rep.checks)
    w2 = max(len(str(c["item"])) for c in rep.checks)
    lines.append("%-*s  %-*s  %-6s  %s" % (w1, "check", w2, "item", "result", "figure (expected)"))
    for c in rep.checks:
        res = "info" if c.get("info") else ("PASS" if c["pass"] else "FAIL")
        lines.append("%-*s  %-*s  %-6s  %s%s" % (w1, c["check"], w2, c["item"], res, c["figure"],
                                                 "" if c.get("info") else
                                                 " (" + c["expected"] + ")"))
        if c.get("detail"):
            lines.append("%-*s  %-*s  %-6s    %s" % (w1, "", w2, "", "", c["detail"]))
    decided = [c for c in rep.checks if not c.get("info")]
    allok = bool(decided) and all(c["pass"] for c in decided)
    try:
        with open(os.path.join(out, "commands.txt")) as f:
            commands = f.read().splitlines()
    except OSError:
        commands = []
    doc = {"schema": "tracebench-validation/1", "outdir": out, "pass": allok,
           "checks": rep.checks, "commands": commands}
    meta = load(os.path.join(out, "meta.json"))
    if "_error" not in meta:
        doc["meta"] = meta
    if "meta" in doc:
        m = doc["meta"]
        lines.append("")
        lines.append("run %s .. %s (%ss), load average %s at start, %s at end%s"
                     % (m.get("started"), m.get("finished"), m.get("wall_s"),
                        m.get("loadavg_start"), m.get("loadavg_end"),
                        "; QUICK: a smoke test, not a validation" if m.get("quick") else ""))
    table = "\n".join(lines) + "\n"
    with open(os.path.join(out, "table.txt"), "w") as f:
        f.write(table)
    tmp = os.path.join(out, ".validation.json.tmp")
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=2, sort_keys=True)
        f.write("\n")
    os.rename(tmp, os.path.join(out, "validation.json"))
    sys.stdout.write(table)
    print()
    for c in decided:
        print("%s: %s%s: %s" % ("PASS" if c["pass"] else "FAIL", c["check"],
                                " [" + c["item"] + "]" if c["item"] else "", c["figure"]))
    print("validation %s: %s" % ("PASSED" if allok else "FAILED",
                                 os.path.join(out, "validation.json")))
    return 0 if allok else 1


if __name__ == "__main__":
    sys.exit(main())
