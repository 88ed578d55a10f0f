#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Coverage of tracebench's 95% intervals on real runs (make validate-coverage, METHODOLOGY.md 9).

A narrower interval that does not contain the truth is a defect, not a gain. This runs
scenarios/validation/coverage.ini COVERAGE_RUNS times (the precision protocol: 200 ms samples,
settle 0, reused tracers, 30 rounds) and counts, for three questions of known truth, how often
the interval of each run contains it:

  A/A          none-again against none: truth exactly 0%
  tp-getpid    a pid-filtered syscall tracepoint: truth the *other* runs' estimates combined
               by inverse-variance weights, robustly (Huber's M-estimator: a run far outside
               its own interval keeps only part of its weight), leave-one-out, so a run is not
               judged against itself
  delay-20ns   the delay tracer's calibrated spin, in ns/op (tracebench's ns_per_op_ci): truth
               the other runs' estimates fitted (weighted, robustly) on their spin iterations
               (calibrated per run), at this run's count; beside it, how often the interval holds the
               spin's cost timed on its own during the run ("vs spin")

Beside tracebench's coverage against that truth it prints its coverage against the plain
(non-robust) weighted fit, the yardstick until 2026-12-07: one run taken while the machine was
in another state (slower, its tracer dearer), with a narrow interval, moved that truth for every
other run. Such runs, more than 4 of their standard errors from the robust truth, are listed
as episodes with their baseline's shift on the runs' median (the machine's speed), and Cochran's
Q is given again without them. And the correlation of the runs' estimates with their
baselines' ns/op: a run-to-run shift that goes with the machine's speed.

And "at the run's speed": the same leave-one-out truth fitted on the other runs' baseline
ns/op too (the machine's speed; for the delay beside its count), at this run's. It asks whether
a run's interval holds the truth for the machine as it was during the run, where the rows
above ask for the truth across the runs' states; Cochran's Q around that fit says how much of
the run-to-run component the speed carries. Reported, not checked: the check stays on the
truth across runs.

It also computes, from the same paired rounds, candidate estimators with a percentile bootstrap
over rounds (COVERAGE_RESAMPLES, fixed seed): the ratio of medians (tracebench's own, recomputed
as a check of the pairing), the median, a 10% trimmed mean and the Hodges-Lehmann estimate of
the paired log ratios (paired differences in ns for delay-20ns), and a Student t interval on
their mean; and the ratio of medians' interval corrected two ways: Efron's BCa (for a percentile
interval lopsided by the resamples' skew and bias) and a moving-block bootstrap of 3 rounds (for
correlated neighbouring rounds). For each: coverage with its 95% Wilson interval, the mean
half-width, the bias.

For tracebench's own intervals it also prints the spread of z = (estimate - truth) / (half-width
/ 1.96): about 1 when the interval is as wide as the scatter it must cover.

For the two questions whose truth comes from the other runs it prints Cochran's Q of the runs
around their weighted fit: about its degrees of freedom when runs scatter as their own intervals
say; larger when there is a run-to-run component one run cannot see (its size printed).

Check: tracebench's own intervals must not be shown to under-cover: the Wilson interval's upper
end must reach 95% on every question. Exit 0 if so, 1 if not, 2 on bad setup.

And the interval across runs (tracebench combine, doc/statistics.md): every window of 5
consecutive runs combined, A/A and tracepoint, its coverage of the truth the runs outside the
window give (the windows overlap; the disjoint ones are counted apart); and 5 runs spaced
across the whole set (every len/5-th), repeats further apart than a state may last.

It also prints, per question, the spread of z between each run's two halves (drift within a
run), the lag-1 autocorrelation of the runs' errors in run order (drift across runs) and, for
the delay, the weighted fit of its cost on the spin count.

Under load (make validate-coverage-loaded, COVERAGE_LOAD=0,1,2): the same study once per load
level, each with that many stress-ng CPU workers (Debian's stress-ng, `--cpu N --taskset`)
pinned to CPUs other than the measured one (the scenario's `cpus = auto`: the last online CPU),
started before the level's runs and killed after them whatever happens; a level that needs more
CPUs than the machine has besides the measured one is left out, said with why. Then a table of
tracebench's own coverage per question and level, with the Wilson interval and the mean
half-width. Check under load: the Wilson upper end must reach 90% on every question (issue 32's
goal for one busy CPU), 95% unloaded as above.

Usage: validate-coverage.py            run and analyse
       validate-coverage.py --analyze DIR   analyse an earlier run directory again
       validate-coverage.py --describe RESULT.json...   the noise structure of two-cell runs
                                            (CVs, lag-1 autocorrelation of the pairs)
Environment: TB_BIN, COVERAGE_RUNS (25), COVERAGE_OUT (results/coverage-<UTC>),
COVERAGE_RESAMPLES (2000), COVERAGE_SCENARIO, COVERAGE_LOAD (busy CPUs per level, e.g. 0,1,2).
"""
import datetime
import json
import math
import os
import random
import signal
import statistics
import subprocess
import sys
import time

import loadgen

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TB = os.environ.get("TB_BIN", os.path.join(ROOT, "tracebench"))
SCENARIO = os.environ.get("COVERAGE_SCENARIO",
                          os.path.join(ROOT, "scenarios", "validation", "coverage.ini"))
Z95 = 1.959964
SEED = 20261201
HUBER_K = 1.345  # Huber's tuning constant: 95% efficiency when every run is as its interval says
EPISODE_Z = 4.0  # |z| against the robust truth above which a run is listed as an episode


def env_int(name, default, lo):
    v = os.environ.get(name, str(default))
    try:
        n = int(v)
    except ValueError:
        n = lo - 1
    if n < lo:
        print(f"validate-coverage: {name}={v!r}: want an integer >= {lo}", file=sys.stderr)
        sys.exit(2)
    return n


def t95(df):
    """Two-sided 95% Student t quantile (Cornish-Fisher; within 1e-3 for df >= 5)."""
    z = Z95
    return (z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2) +
            (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * df**3))


def quantile(s, q):
    """GSL's quantile_from_sorted_data (linear interpolation), as tracebench's bootstrap."""
    d = (len(s) - 1) * q
    i = int(math.floor(d))
    return s[i] if i + 1 >= len(s) else s[i] + (d - i) * (s[i + 1] - s[i])


def trimmed(v, frac=0.10):
    s = sorted(v)
    k = int(len(s) * frac)
    s = s[k:len(s) - k] if len(s) > 2 * k else s
    return sum(s) / len(s)


def hodges_lehmann(v):
    n = len(v)
    return statistics.median((v[i] + v[j]) / 2 for i in range(n) for j in range(i, n))


def wilson(k, n):
    if not n:
        return (float("nan"), float("nan"))
    p = k / n
    d = 1 + Z95**2 / n
    c = (p + Z95**2 / (2 * n)) / d
    h = Z95 * math.sqrt(p * (1 - p) / n + Z95**2 / (4 * n * n)) / d
    return (c - h, c + h)


def measured(cell):
    """tb_sample_measured: not a warmup, not failed, a finite ns/op; keyed by round."""
    return {s["round"]: s["ns_per_op"] for s in cell.get("samples", [])
            if isinstance(s, dict) and isinstance(s.get("round"), int) and s["round"] >= 0 and
            not s.get("warmup") and not s.get("failed") and not s.get("rerun") and
            isinstance(s.get("ns_per_op"), (int, float)) and math.isfinite(s["ns_per_op"]) and
            s["ns_per_op"] > 0}


def load_run(path):
    with open(path) as f:
        r = json.load(f)
    if not isinstance(r, dict) or not isinstance(r.get("cells"), list) or \
            not all(isinstance(c, dict) and isinstance(c.get("samples", []), list)
                    for c in r["cells"]):
        raise ValueError(f"{path}: not a tracebench result (cells: a list of objects)")
    cells = {c.get("tracer"): c for c in r["cells"]}
    for need in ("none", "none-again", "tp-getpid", "delay-20ns"):
        if need not in cells:
            raise ValueError(f"{path}: no cell for tracer {need}")
    return r, cells


def pairs(base, cell):
    b, t = measured(base), measured(cell)
    rounds = sorted(set(b) & set(t))
    return [b[k] for k in rounds], [t[k] for k in rounds]


# Each estimator maps paired (baseline, traced) per-op times to a figure: pct for ratios, ns for
# differences. The bootstrap resamples rounds (pairs), as tracebench's does.
def ratio_of_medians(b, t, ns):
    mb, mt = statistics.median(b), statistics.median(t)
    return mt - mb if ns else 100 * (mt / mb - 1)


def on_pairs(f):
    def est(b, t, ns):
        v = [y - x for x, y in zip(b, t)] if ns else [math.log(y / x) for x, y in zip(b, t)]
        e = f(v)
        return e if ns else 100 * math.expm1(e)
    return est


ESTIMATORS = [
    ("ratio of medians", ratio_of_medians),
    ("median of pairs", on_pairs(statistics.median)),
    ("10% trimmed mean", on_pairs(trimmed)),
    ("Hodges-Lehmann", on_pairs(hodges_lehmann)),
]
BLOCK = 3  # rounds per block of the moving-block bootstrap: about n^(1/3) at 30 rounds
# Beside the percentile intervals: Student's t on the mean of the pairs, and the ratio of
# medians' own bootstrap corrected two ways, for skew (BCa) and for neighbouring rounds' correlation
T_MEAN = "t on mean of pairs"
BCA = "ratio of medians, BCa"
BLOCKS = f"ratio of medians, blocks of {BLOCK}"
OTHER_CANDIDATES = (T_MEAN, BCA, BLOCKS)


def boot_vals(est, b, t, ns, rng, resamples, block=1):
    """The estimator over resamples of the rounds, sorted: single rounds drawn with replacement,
    or (block > 1) a moving-block bootstrap, runs of block consecutive rounds, which keeps the
    correlation of neighbouring rounds that single draws lose."""
    n = len(b)
    vals = []
    for _ in range(resamples):
        if block > 1:
            idx = []
            while len(idx) < n:
                s = rng.randrange(n - block + 1)
                idx.extend(range(s, s + block))
            idx = idx[:n]
        else:
            idx = [rng.randrange(n) for _ in range(n)]
        vals.append(est([b[i] for i in idx], [t[i] for i in idx], ns))
    vals.sort()
    return vals


def boot_ci(est, b, t, ns, rng, resamples):
    vals = boot_vals(est, b, t, ns, rng, resamples)
    return quantile(vals, 0.025), quantile(vals, 0.975)


def bca_ci(vals, est, b, t, ns):
    """
    Efron's bias-corrected and accelerated interval from the sorted bootstrap values vals of
    est: the percentiles moved by the share of resamples below the estimate (the bias, z0) and
    by the skewness of the round-deleted jackknife estimates (the acceleration, a). The
    correction for a percentile interval that is lopsided without reason.
    """
    nd = statistics.NormalDist()
    e = est(b, t, ns)
    below = sum(v < e for v in vals) + 0.5 * sum(v == e for v in vals)
    z0 = nd.inv_cdf(min(max(below / len(vals), 1e-6), 1 - 1e-6))
    jk = [est(b[:i] + b[i + 1:], t[:i] + t[i + 1:], ns) for i in range(len(b))]
    m = statistics.mean(jk)
    ss = sum((m - x) ** 2 for x in jk)
    a = sum((m - x) ** 3 for x in jk) / (6 * ss ** 1.5) if ss else 0.0
    out = []
    for q in (0.025, 0.975):
        zq = z0 + nd.inv_cdf(q)
        # an acceleration this large has no BCa interval: the percentile one then
        out.append(quantile(vals, nd.cdf(z0 + zq / (1 - a * zq)) if a * zq < 0.5 else q))
    return out[0], out[1]


def t_interval(b, t, ns):
    v = [y - x for x, y in zip(b, t)] if ns else [math.log(y / x) for x, y in zip(b, t)]
    m, se = statistics.mean(v), statistics.stdev(v) / math.sqrt(len(v))
    h = t95(len(v) - 1) * se
    f = (lambda x: x) if ns else (lambda x: 100 * math.expm1(x))
    return f(m), f(m - h), f(m + h)


class Tally:
    def __init__(self):
        self.hit = self.n = 0
        self.half, self.err = [], []

    def add(self, est, lo, hi, truth):
        self.n += 1
        self.hit += lo <= truth <= hi
        self.half.append((hi - lo) / 2)
        self.err.append(est - truth)

    def z_sd(self):
        z = [Z95 * e / h for e, h in zip(self.err, self.half) if h > 0]
        return statistics.stdev(z) if len(z) > 1 else float("nan")

    def row(self, name, unit):
        lo, hi = wilson(self.hit, self.n)
        return {"estimator": name, "covered": self.hit, "trials": self.n,
                "coverage": self.hit / self.n if self.n else None,
                "wilson95": [lo, hi], "mean_half_width": statistics.mean(self.half),
                "mean_error": statistics.mean(self.err), "unit": unit}


def own_figure(cells, tracer, ns):
    """A run's own estimate and its standard error (its 95% half-width / 1.96), or None."""
    o = cells[tracer].get("overhead") or {}
    est = o.get("ns_per_op" if ns else "pct")
    ci = o.get("ns_per_op_ci" if ns else "ci") or [None, None]
    if not isinstance(est, (int, float)) or None in ci or ci[1] <= ci[0]:
        return None
    return est, (ci[1] - ci[0]) / 2 / Z95


def solve(m, v):
    """m x = v by Gaussian elimination with partial pivoting (m square, small); None if
    singular."""
    n = len(v)
    a = [row[:] + [v[i]] for i, row in enumerate(m)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(a[r][c]))
        if abs(a[p][c]) < 1e-300:
            return None
        a[c], a[p] = a[p], a[c]
        for r in range(c + 1, n):
            f = a[r][c] / a[c][c]
            for k in range(c, n + 1):
                a[r][k] -= f * a[c][k]
    x = [0.0] * n
    for c in reversed(range(n)):
        x[c] = (a[c][n] - sum(a[c][k] * x[k] for k in range(c + 1, n))) / a[c][c]
    return x


def design(pts):
    """
    The weights of (xs, y, se) points, their weighted means of the regressors, the regressors
    centred on these, and which regressors vary over the points (compared as given: a mean
    of equal values can miss them by a rounding, which would make a shared regressor a free one
    with a slope of noise).
    """
    w = [1 / se ** 2 for _, _, se in pts]
    sw = sum(w)
    nx = len(pts[0][0]) if pts else 0
    free = [j for j in range(nx) if len({xs[j] for xs, _, _ in pts}) > 1]
    mx = [sum(wi * xs[j] for wi, (xs, _, _) in zip(w, pts)) / sw if j in free else pts[0][0][j]
          for j in range(nx)]
    d = [[xs[j] - mx[j] if j in free else 0.0 for j in range(nx)] for xs, _, _ in pts]
    return w, mx, d, free


def wls(pts):
    """
    Weighted least squares of (xs, y, se) points, xs a tuple of regressors (maybe empty):
    (intercept, slopes); a regressor fixed over the points gets slope 0 (the fit is then the
    weighted mean over it).
    """
    w, mx, d, free = design(pts)
    my = sum(wi * y for wi, (_, y, _) in zip(w, pts)) / sum(w)
    m = [[sum(wi * r[j] * r[k] for wi, r in zip(w, d)) for k in free] for j in free]
    v = [sum(wi * r[j] * (y - my) for wi, r, (_, y, _) in zip(w, d, pts)) for j in free]
    sol = (solve(m, v) if free else []) or [0.0] * len(free)
    b = [0.0] * len(mx)
    for j, bj in zip(free, sol):
        b[j] = bj
    return my - sum(bj * mj for bj, mj in zip(b, mx)), tuple(b)


def predict(fit, xs):
    a, b = fit
    return a + sum(bj * x for bj, x in zip(b, xs))


def base_ns(cells):
    """The run's baseline ns/op (the none cell's median), or None: the machine's speed."""
    v = list(measured(cells["none"]).values())
    return statistics.median(v) if v else None


def iters(cells):
    n = (cells["delay-20ns"].get("tracer_extra") or {}).get("iters")
    return n if isinstance(n, int) and n > 0 else None


def regressors(cells, ns, speed):
    """What a question's truth is fitted on, as a tuple, or None when the run lacks it: the
    delay's iteration count (ns), and the run's baseline ns/op (speed: the truth at the
    machine's speed during the run)."""
    xs = []
    if ns:
        xs.append(iters(cells))
    if speed:
        xs.append(base_ns(cells))
    return None if None in xs else tuple(xs)


def points(runs, tracer, ns, skip=None, speed=False):
    """(regressors, estimate, se) of every run but skip (an index or a set of them)."""
    skip = skip if isinstance(skip, set) else {skip}
    pts = []
    for i, (_, cells) in enumerate(runs):
        f = own_figure(cells, tracer, ns)
        xs = regressors(cells, ns, speed)
        if i not in skip and f and xs is not None:
            pts.append((xs, f[0], f[1]))
    return pts


def huber_wls(pts, k=HUBER_K):
    """
    The weighted fit made robust (Huber's M-estimator by iterated reweighting): a point whose
    residual, in its own standard errors and over the points' spread of these (their MAD, never
    taken below 1: runs scattering as their intervals say keep full weight), exceeds k keeps
    only k / |residual| of its weight. One run taken in another state of the machine, with a
    narrow interval, otherwise moves an inverse-variance truth for every other run (section 9).
    """
    fit = wls(pts)
    for _ in range(50):
        r = [(y - predict(fit, xs)) / se for xs, y, se in pts]
        s = max(1.0, 1.4826 * statistics.median(abs(v) for v in r))
        h = [min(1.0, k / (abs(v) / s)) if v else 1.0 for v in r]
        fit2 = wls([(xs, y, se / math.sqrt(hi)) for (xs, y, se), hi in zip(pts, h)])
        if all(abs(u - v) < 1e-9 * (1 + abs(v)) for u, v in zip((fit2[0], *fit2[1]),
                                                                (fit[0], *fit[1]))):
            return fit2
        fit = fit2
    return fit


def loo_truth(runs, skip, tracer, ns, fit=huber_wls, speed=False):
    """
    Leave-one-out: the other runs' estimates combined by inverse-variance weights (a precise
    yardstick: an unweighted one is as uncertain as the narrowest intervals it must judge),
    robustly by default (huber_wls; fit=wls is the plain weighted fit, printed beside).
    The delay tracer calibrates its spin's iteration count per run (78-83 for 20 ns here), and
    the cost is affine in it (the call plus its iterations; the analysis prints the fit), so for
    it the combination is a weighted fit on the count, at this run's. With speed, the fit is
    also on the runs' baseline ns/op, at this run's: the truth for the machine as it was.
    """
    pts = points(runs, tracer, ns, skip, speed)
    xs = regressors(runs[skip][1], ns, speed)
    if len(pts) < 2 + len(xs or ()) or xs is None:
        return None
    # a regressor the other runs all share cannot carry the fit to another value of it
    if any(len({p[0][j] for p in pts}) < 2 and pts[0][0][j] != xs[j] for j in range(len(xs))):
        return None
    return predict(fit(pts), xs)


def heterogeneity(runs, tracer, ns, skip=None, speed=False):
    """
    Cochran's Q of every run's estimate (but skip's) around the weighted fit (with speed, also
    on the runs' baseline ns/op), with its degrees of freedom: about df when the runs scatter
    as their own intervals say, larger with a run-to-run component; and that component's size
    (DerSimonian-Laird).
    """
    pts = points(runs, tracer, ns, skip, speed)
    if len(pts) < 3 + len(pts[0][0] if pts else ()):
        return None
    fit = wls(pts)
    w, _, _, free = design(pts)
    q = sum(wi * (y - predict(fit, xs)) ** 2 for wi, (xs, y, _) in zip(w, pts))
    df = len(pts) - 1 - len(free)
    tau2 = max(0.0, (q - df) / dl_scale(pts))
    return q, df, chi2_sf(q, df), math.sqrt(tau2)


def dl_scale(pts):
    """
    DerSimonian-Laird's denominator for a weighted fit: tr(W) - tr((X'WX)^-1 X'W^2X), X the
    intercept and the regressors that vary (centred by weight, so X'WX splits into the sum of
    the weights and their cross-products): sum w - sum w^2 / sum w with no regressor, the
    meta-regression form (Raudenbush 2009) with some.
    """
    w, _, d, free = design(pts)
    sw = sum(w)
    m = [[sum(wi * r[j] * r[k] for wi, r in zip(w, d)) for k in free] for j in free]
    tr = 0.0
    for a, j in enumerate(free):
        col = solve(m, [sum(wi * wi * r[i] * r[j] for wi, r in zip(w, d)) for i in free])
        tr += col[a] if col else 0.0
    return sw - sum(wi * wi for wi in w) / sw - tr


def halves_z(runs, tracer, ns, rng, resamples):
    """
    Drift within a run: each run's first and second half of its rounds estimated apart, their
    difference over its bootstrap standard error; the spread of these z is about 1 without
    drift, more with it.
    """
    z = []
    for _, cells in runs:
        b, t = pairs(cells["none"], cells[tracer])
        h = len(b) // 2
        if h < 5:
            continue
        est, se = [], []
        for lo, hi in ((0, h), (h, len(b))):
            bb, tt = b[lo:hi], t[lo:hi]
            ci = boot_ci(ratio_of_medians, bb, tt, ns, rng, resamples)
            est.append(ratio_of_medians(bb, tt, ns))
            se.append((ci[1] - ci[0]) / 2 / Z95)
        if se[0] > 0 or se[1] > 0:
            z.append((est[0] - est[1]) / math.hypot(se[0], se[1]))
    return statistics.stdev(z) if len(z) > 1 else float("nan")


def lag1(v):
    """Lag-1 autocorrelation of a series (runs in order, or paired rounds)."""
    if len(v) < 3:
        return float("nan")
    m = statistics.mean(v)
    d = sum((x - m) ** 2 for x in v)
    return sum((v[i] - m) * (v[i + 1] - m) for i in range(len(v) - 1)) / d if d else float("nan")


def pearson(x, y):
    """Pearson's r of two series, or nan when either is constant or too short."""
    if len(x) < 3:
        return float("nan")
    mx, my = statistics.mean(x), statistics.mean(y)
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    sxx, syy = sum((a - mx) ** 2 for a in x), sum((b - my) ** 2 for b in y)
    return sxy / math.sqrt(sxx * syy) if sxx and syy else float("nan")


def chi2_sf(q, k):
    """Upper tail of chi-square with k degrees of freedom (Wilson-Hilferty, ample here)."""
    z = ((q / k) ** (1 / 3) - (1 - 2 / (9 * k))) / math.sqrt(2 / (9 * k))
    return 0.5 * math.erfc(z / math.sqrt(2))


GROUP = 5  # runs per combined figure: "run it five times, then tracebench combine"


def span_s(runs, window):
    """Seconds from the window's first run's start to its last run's end (None if unknown)."""
    try:
        t = [datetime.datetime.strptime(runs[i][0][k], "%Y-%m-%dT%H:%M:%SZ")
             for i in window for k in ("started", "finished")]
    except (KeyError, TypeError, ValueError):
        return None
    return (max(t) - min(t)).total_seconds()


def combined(rdir, names, runs):
    """
    The interval across runs (tracebench combine, doc/statistics.md) judged like one run's:
    every window of GROUP consecutive runs combined (overlapping windows, so not independent
    trials; the disjoint ones counted apart), and GROUP runs spaced across the whole set (every
    len // GROUP-th run: repeats further apart than a state of the machine may last), each
    interval against the truth the runs outside the window give (the robust weighted fit, as
    for one run; 0 for the A/A). Not the delay: its runs spin different iteration counts, so a
    mean over a window has no one truth. Returns ({question: {"windows", "disjoint", "spaced":
    Tally; "missed": the windows whose interval missed, each with its kind, runs, label,
    estimate, interval, truth and run-to-run sd}}, {kind: [the windows' spans in seconds]}),
    or None when the command refused the runs (said why).
    """
    questions = (("A/A", "none-again"), ("tp-getpid", "tp-getpid"))
    res = {q: {"windows": Tally(), "disjoint": Tally(), "spaced": Tally(), "missed": []}
           for q, _ in questions}
    spans = {"windows": [], "spaced": []}
    stride = len(runs) // GROUP
    consecutive = [(list(range(s, s + GROUP)), ("windows", "disjoint") if s % GROUP == 0
                    else ("windows",)) for s in range(len(runs) - GROUP + 1)]
    spaced = [([s + j * stride for j in range(GROUP)], ("spaced",)) for s in range(stride)] \
        if stride > 1 else []
    for window, kinds in consecutive + spaced:
        files = [os.path.join(rdir, names[i], "result.json") for i in window]
        label = f"{names[window[0]]}-{names[window[-1]]}" if kinds[0] == "windows" \
            else " ".join(names[i] for i in window)
        p = subprocess.run([TB, "combine", "--json", *files], capture_output=True, text=True)
        if p.returncode != 0:
            print(f"validate-coverage: tracebench combine of runs {label} exited "
                  f"{p.returncode}: {p.stderr.strip()}", file=sys.stderr)
            return None
        if span_s(runs, window) is not None:
            spans[kinds[0]].append(span_s(runs, window))
        cells = {c["id"].rsplit("/", 1)[-1]: c for c in json.loads(p.stdout)["cells"]}
        for q, tr in questions:
            o = (cells.get(tr) or {}).get("overhead_pct") or {}
            if q == "A/A":
                truth = 0.0
            else:
                pts = points(runs, tr, False, set(window))
                truth = huber_wls(pts)[0] if len(pts) >= 3 else None
            if not o.get("present") or truth is None:
                continue
            for kind in kinds:
                res[q][kind].add(o["estimate"], o["ci"][0], o["ci"][1], truth)
            if not o["ci"][0] <= truth <= o["ci"][1]:
                res[q]["missed"].append({"kind": kinds[0], "runs": [names[i] for i in window],
                                         "label": label, "estimate": o["estimate"],
                                         "ci": o["ci"], "truth": truth, "tau": o["tau"]})
    return res, spans


def analyze(out, resamples, need=0.95):
    rdir = os.path.join(out, "runs")
    names = sorted(x for x in os.listdir(rdir)
                   if os.path.isfile(os.path.join(rdir, x, "result.json"))) \
        if os.path.isdir(rdir) else []
    runs, kept = [], []
    for x in names:
        try:
            runs.append(load_run(os.path.join(rdir, x, "result.json")))
            kept.append(x)
        except (OSError, ValueError, KeyError) as e:
            print(f"validate-coverage: skipping run {x}: {e}", file=sys.stderr)
    names = kept
    if len(runs) < 3:
        print(f"validate-coverage: {len(runs)} usable runs in {rdir}; need 3", file=sys.stderr)
        return 2
    rng = random.Random(SEED)
    # delay-20ns is judged against the other runs too: the spin's cost timed on its own
    # differs from its cost between syscalls by up to about 1 ns (make validate's known-delta
    # tolerance), more than one run's interval is wide, so against the spin the count measures
    # that offset, not the interval; it is printed beside ("vs spin").
    questions = [("A/A", "none-again", False), ("tp-getpid", "tp-getpid", False),
                 ("delay-20ns", "delay-20ns", True)]
    tallies = {q: {name: Tally() for name in [n for n, _ in ESTIMATORS] + list(OTHER_CANDIDATES)}
               for q, _, _ in questions}
    # the corrected intervals draw from an rng of their own: the candidates above keep the
    # draws (and the figures) they had before these were added
    rng2 = random.Random(SEED + 1)
    own = {q: Tally() for q, _, _ in questions}
    vs_plain = {q: Tally() for q, _, _ in questions}
    at_speed = {q: Tally() for q, _, _ in questions}
    episodes = {q: [] for q, _, _ in questions}
    vs_spin = Tally()
    bases = [base_ns(cells) for _, cells in runs]
    base_mid = statistics.median(v for v in bases if v) if any(bases) else None
    for i, (r, cells) in enumerate(runs):
        base = cells["none"]
        for q, tr, ns in questions:
            c = cells[tr]
            truth = 0.0 if q == "A/A" else loo_truth(runs, i, tr, ns)
            if truth is None:
                continue
            o = c.get("overhead") or {}
            ci = o.get("ns_per_op_ci" if ns else "ci") or [None, None]
            est = o.get("ns_per_op" if ns else "pct")
            if None not in ci and est is not None:
                own[q].add(est, ci[0], ci[1], truth)
                if q != "A/A":
                    vs_plain[q].add(est, ci[0], ci[1], loo_truth(runs, i, tr, ns, wls))
                    fast = loo_truth(runs, i, tr, ns, speed=True)
                    if fast is not None:
                        at_speed[q].add(est, ci[0], ci[1], fast)
                z = Z95 * (est - truth) / ((ci[1] - ci[0]) / 2) if ci[1] > ci[0] else 0.0
                if abs(z) > EPISODE_Z:
                    episodes[q].append((i, names[i], z, est, truth,
                                        bases[i] / base_mid - 1 if bases[i] and base_mid else None))
                spin = (c.get("tracer_extra") or {}).get("spin_ns_mean")
                if q == "delay-20ns" and isinstance(spin, (int, float)):
                    vs_spin.add(est, ci[0], ci[1], spin)
            b, t = pairs(base, c)
            if len(b) < 5:
                continue
            draws = {}
            for name, f in ESTIMATORS:
                draws[name] = vals = boot_vals(f, b, t, ns, rng, resamples)
                tallies[q][name].add(f(b, t, ns), quantile(vals, 0.025), quantile(vals, 0.975),
                                     truth)
            tallies[q][T_MEAN].add(*t_interval(b, t, ns), truth)
            e = ratio_of_medians(b, t, ns)
            tallies[q][BCA].add(e, *bca_ci(draws["ratio of medians"], ratio_of_medians, b, t, ns),
                                truth)
            vals = boot_vals(ratio_of_medians, b, t, ns, rng2, resamples, BLOCK)
            tallies[q][BLOCKS].add(e, quantile(vals, 0.025), quantile(vals, 0.975), truth)
    report = {"runs": len(runs), "resamples": resamples, "seed": SEED, "questions": {}}
    ok = True
    print(f"\ncoverage of 95% intervals over {len(runs)} runs of {os.path.basename(SCENARIO)}"
          f" ({out})\n")
    print(f"{'question':11} {'estimator':30} {'covered':>9} {'coverage [Wilson 95%]':>24} "
          f"{'mean half-width':>16} {'mean error':>11}")
    for q, tr, ns in questions:
        unit = "ns" if ns else "pt"
        rows = [own[q].row("tracebench (result.json)", unit)]
        if vs_plain[q].n:
            rows.append(vs_plain[q].row("tracebench vs plain fit", unit))
        if at_speed[q].n:
            rows.append(at_speed[q].row("tracebench at the run's speed", unit))
        rows += [tallies[q][name].row(name, unit) for name in tallies[q]]
        if q == "delay-20ns" and vs_spin.n:
            rows.append(vs_spin.row("tracebench vs spin", unit))
        report["questions"][q] = rows
        for k in rows:
            if not k["trials"]:
                continue
            w = k["wilson95"]
            print(f"{q:11} {k['estimator']:30} {k['covered']:4}/{k['trials']:<4} "
                  f"{100 * k['coverage']:6.1f}% [{100 * w[0]:4.1f}, {100 * w[1]:5.1f}] "
                  f"{k['mean_half_width']:13.3f} {unit} {k['mean_error']:+9.3f} {unit}")
        head = rows[0]
        head["z_sd"] = own[q].z_sd()
        head["halves_z_sd"] = halves_z(runs, tr, ns, rng, resamples)
        head["runs_lag1"] = lag1(own[q].err)
        print(f"  {q}: drift within runs: sd of the halves' z {head['halves_z_sd']:.2f}; across "
              f"runs: lag-1 autocorrelation of the errors {head['runs_lag1']:+.2f}")
        head["episodes"] = [{"run": n, "z": z, "estimate": e, "truth": t, "baseline_shift": b}
                            for _, n, z, e, t, b in episodes[q]]
        for _, n, z, e, t, b in episodes[q]:
            shift = f"; its baseline {100 * b:+.1f}% on the runs' median" if b is not None else ""
            print(f"  {q}: episode: run {n} {e:+.2f} {unit} against {t:+.2f} (z {z:+.1f}){shift}")
        if q != "A/A":
            xy = [(bases[i], f[0]) for i, (_, cells) in enumerate(runs)
                  if bases[i] and (f := own_figure(cells, tr, ns))]
            head["baseline_r"] = pearson([x for x, _ in xy], [y for _, y in xy])
            print(f"  {q}: the runs' estimates against their baselines (the machine's speed): "
                  f"Pearson r {head['baseline_r']:+.2f} over {len(xy)} runs")
        if q != "A/A":
            eps = {i for i, *_ in episodes[q]}
            for key, what, het in (
                    ("cochran_q", "runs around their weighted fit", heterogeneity(runs, tr, ns)),
                    ("cochran_q_without_episodes", f"without the {len(eps)} episode(s)",
                     heterogeneity(runs, tr, ns, eps) if eps else None),
                    ("cochran_q_at_speed", "runs around their weighted fit on the baseline's "
                     "ns/op too", heterogeneity(runs, tr, ns, speed=True))):
                if het:
                    head[key] = {"q": het[0], "df": het[1], "p": het[2], "tau": het[3]}
                    print(f"  {q}: {what}: Cochran's Q {het[0]:.1f} on {het[1]} df "
                          f"(p {het[2]:.2g}); run-to-run component {het[3]:.3f} {unit}")
            if ns:
                a, (b,) = wls(points(runs, tr, ns))
                head["fit"] = {"ns": a, "ns_per_iteration": b}
                print(f"  {q}: the delay's cost, weighted fit: {a:.2f} ns + {b:.3f} ns per "
                      "spin iteration")
        checked = True
        under = not head["trials"] or head["wilson95"][1] < need
        print(f"  {q}: sd of z {head['z_sd']:.2f}; "
              f"{'checked' if checked else 'reported, not checked'}: "
              f"{'UNDER-COVERS' if under else 'not shown to under-cover'}")
        if checked and under:
            ok = False
    comb = combined(rdir, names, runs) if len(runs) >= GROUP + 3 else None
    if comb:
        comb, spans = comb
        report["combined"] = {"group": GROUP, "mean_span_s": {
            k: statistics.mean(v) for k, v in spans.items() if v}}
        print(f"\ncombined over {GROUP} runs (tracebench combine; consecutive windows, and runs "
              f"spaced every {len(runs) // GROUP}), against the runs outside the window:")
        for k, v in report["combined"]["mean_span_s"].items():
            print(f"  {k}: {v / 60:.1f} min on average from the first run's start to the last's "
                  "end")
        for q, kinds in comb.items():
            report["combined"][q] = {k: kinds[k].row(f"combine, {k}", "pt")
                                     for k in ("windows", "disjoint", "spaced") if kinds[k].n}
            for k, r in report["combined"][q].items():
                w = r["wilson95"]
                print(f"  {q:11} {k:8} {r['covered']:3}/{r['trials']:<3} "
                      f"{100 * r['coverage']:6.1f}% [{100 * w[0]:4.1f}, {100 * w[1]:5.1f}] "
                      f"mean half-width {r['mean_half_width']:.2f} pt")
            report["combined"][q]["missed"] = kinds["missed"]
            for m in kinds["missed"]:
                print(f"  {q:11} missed: runs {m['label']} {m['estimate']:+.2f} "
                      f"[{m['ci'][0]:+.2f}, {m['ci'][1]:+.2f}] against {m['truth']:+.2f} "
                      f"(run-to-run sd {m['tau']:.2f} pt)")
    with open(os.path.join(out, "coverage.json"), "w") as f:
        json.dump(report, f, indent=1)
    print(f"\ncheck (tracebench's Wilson upper end >= {100 * need:.0f}% on every question): "
          f"{'passed' if ok else 'FAILED'}; figures in {os.path.join(out, 'coverage.json')}")
    return 0 if ok else 1


def run_all(out, n):
    rdir = os.path.join(out, "runs")
    os.makedirs(rdir)
    log = open(os.path.join(out, "commands.txt"), "w")
    t0 = time.monotonic()
    for i in range(1, n + 1):
        d = os.path.join(rdir, f"{i:02d}")
        cmd = [TB, "run", SCENARIO, "-o", d, "--no-plots", "-q", "--wait"]
        load = open("/proc/loadavg").read().split()[:3]
        print(f"{time.strftime('%H:%M:%S')} [{time.monotonic() - t0:5.0f}s] run {i}/{n} "
              f"(load average {' '.join(load)})", flush=True)
        log.write(" ".join(cmd) + "\n")
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL)
        if p.returncode not in (0, 1):
            print(f"validate-coverage: run {i} exited {p.returncode}", file=sys.stderr)
            if p.returncode >= 128 or p.returncode == 2:
                return p.returncode
    log.close()
    return 0


def mad_cv(v):
    m = statistics.median(v)
    return 1.4826 * statistics.median(abs(x - m) for x in v) / m


def describe(paths):
    """
    The noise structure of runs of a two-cell scenario (baseline and one traced cell, e.g.
    scenarios/precision.ini at several durations): rounds, time measuring, each cell's CV and
    MAD-based CV, the lag-1 autocorrelation of the paired log ratios (what the paired bootstrap
    takes as independent) and the overhead with its half-width.
    """
    print(f"{'result':40} {'rounds':>6} {'measuring':>9} {'base CV (MAD)':>15} "
          f"{'traced CV (MAD)':>16} {'lag-1 pairs':>11}  overhead [95% CI], half-width")
    for path in paths:
        try:
            with open(path) as f:
                r = json.load(f)
            cells = r["cells"] if isinstance(r, dict) else None
            base = next(c for c in cells if c.get("baseline"))
            tr = next(c for c in cells if not c.get("baseline"))
            b, t = pairs(base, tr)
            o = tr["overhead"]
            lo, hi = o["ci"]
            meas = sum(s.get("elapsed_ns") or 0 for c in cells for s in c["samples"]) / 1e9
            cv = [(statistics.stdev(v) / statistics.mean(v), mad_cv(v)) for v in (b, t)]
            lr = lag1([math.log(y / x) for x, y in zip(b, t)])
            print(f"{path[-40:]:40} {len(b):6} {meas:8.1f}s {100 * cv[0][0]:6.1f}% "
                  f"({100 * cv[0][1]:.1f}%) {100 * cv[1][0]:7.1f}% ({100 * cv[1][1]:.1f}%) "
                  f"{lr:+11.2f}  {o['pct']:+.2f}% [{lo:+.2f}, {hi:+.2f}], {(hi - lo) / 2:.2f} pt")
        except (OSError, ValueError, KeyError, TypeError, StopIteration,
                statistics.StatisticsError) as e:
            print(f"validate-coverage: {path}: not a finished two-cell result: {e!r}",
                  file=sys.stderr)
            return 2
    return 0


def load_levels():
    """COVERAGE_LOAD as a list of busy-CPU counts, or None when unset."""
    v = os.environ.get("COVERAGE_LOAD", "").strip()
    if not v:
        return None
    try:
        levels = [int(x) for x in v.split(",")]
    except ValueError:
        levels = [-1]
    if not levels or min(levels) < 0 or max(levels) > 64 or len(set(levels)) != len(levels):
        print(f"validate-coverage: COVERAGE_LOAD={v!r}: want distinct busy-CPU counts, "
              "e.g. 0,1,2", file=sys.stderr)
        sys.exit(2)
    return levels


def loaded(out, n, levels, resamples):
    """The study at each load level into out/load-N, then tracebench's coverage side by side."""
    spare = loadgen.other_cpus()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # the finally below kills the load
    if any(levels) and loadgen.missing():
        print(f"validate-coverage: {loadgen.missing()}", file=sys.stderr)
        return 2
    done, ok = [], True
    for lv in levels:
        if lv > len(spare):
            print(f"load {lv}: left out: {len(spare)} CPU(s) here besides the measured one",
                  flush=True)
            continue
        d = os.path.join(out, f"load-{lv}")
        os.makedirs(d)
        print(f"\n== load {lv}: {lv} stress-ng CPU worker(s) on CPUs "
              f"{spare[:lv] if lv else 'none'}, the measured CPU left alone", flush=True)
        p = loadgen.start(lv, spare, "validate-coverage")
        try:
            rc = run_all(d, n)
        finally:
            loadgen.stop(p)
        if rc:
            return rc
        ok &= analyze(d, resamples, 0.95 if lv == 0 else 0.90) == 0
        done.append(lv)
    print(f"\ntracebench's own 95% intervals by load ({n} runs per level)\n")
    print(f"{'question':11} {'busy CPUs':>9} {'covered':>9} {'coverage [Wilson 95%]':>24} "
          f"{'mean half-width':>16} {'episodes':>9}")
    for lv in done:
        with open(os.path.join(out, f"load-{lv}", "coverage.json")) as f:
            rep = json.load(f)
        for q, rows in rep["questions"].items():
            k = rows[0]
            if not k["trials"]:
                continue
            w = k["wilson95"]
            print(f"{q:11} {lv:9} {k['covered']:4}/{k['trials']:<4} {100 * k['coverage']:6.1f}% "
                  f"[{100 * w[0]:4.1f}, {100 * w[1]:5.1f}] {k['mean_half_width']:13.3f} "
                  f"{len(k.get('episodes') or []):9}")
    print(f"\ncheck (95% unloaded, 90% under load, Wilson upper end): "
          f"{'passed' if ok else 'FAILED'}")
    return 0 if ok else 1


def main():
    resamples = env_int("COVERAGE_RESAMPLES", 2000, 100)
    if len(sys.argv) == 3 and sys.argv[1] == "--analyze":
        return analyze(sys.argv[2], resamples)
    if len(sys.argv) >= 3 and sys.argv[1] == "--describe":
        return describe(sys.argv[2:])
    if len(sys.argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    n = env_int("COVERAGE_RUNS", 25, 3)
    if not os.access(TB, os.X_OK):
        print(f"validate-coverage: {TB} is not an executable (make)", file=sys.stderr)
        return 2
    out = os.environ.get("COVERAGE_OUT") or os.path.join(
        ROOT, "results", "coverage-" + time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()))
    if os.path.lexists(out):
        print(f"validate-coverage: {out} exists; not overwriting it", file=sys.stderr)
        return 2
    levels = load_levels()  # refused before anything is made
    os.makedirs(out)
    print(f"tracebench coverage -> {out}: {n} runs of {SCENARIO}"
          f"{'' if levels is None else f' at each load of {levels}'}", flush=True)
    if levels is not None:
        return loaded(out, n, levels, resamples)
    rc = run_all(out, n)
    return rc if rc else analyze(out, resamples)


if __name__ == "__main__":
    sys.exit(main())
