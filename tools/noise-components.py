#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Where a getpid's noise comes from, and the half-width it allows per minute (make bench-noise,
METHODOLOGY.md section 9).

tracebench times every sample in a fresh process. Its paired rounds cancel what drifts slower
than a round, not what differs from one process to the next (its pages, its kernel stack, where
the scheduler put it: Mytkowicz et al., ASPLOS 2009). This splits the noise of a getpid loop on
the measured CPU the way Kalibera & Jones ("Rigorous Benchmarking in Reasonable Time", ISMM 2013)
split a benchmark's: PROCESSES fresh processes one after another (tb-getpid-loop --batches),
each timing BATCHES back-to-back batches of BATCH_MS; the first batch of each is kept apart (a
fresh process's first batch is what a tracebench sample times; its mean difference from the
others is printed).

On log(ns/op), so that every figure is a share of the cost:
  T1^2  the variance of one batch within a process (the mean of the processes' sample
        variances, corrected for rho)
  rho   the pooled lag-1 autocorrelation of a process's batches, corrected for a short
        series' bias (Kalibera & Jones assume 0; a positive one means longer batches average
        less than 1/n suggests)
  T2^2  the processes' means' variance less V(n), V(m) the variance of a mean of m batches
        under an AR(1) rho: what differs between processes
  Tp^2  what of T2 a paired round keeps: var(consecutive processes' means differ) / 2 - V(n);
        the rest of T2 drifts slower than a process, which pairing cancels
Kalibera & Jones's batches per process, r = ceil(sqrt(c2 / c1 * T1^2 / Tp^2)), with c1 the
batch's time and c2 a sample's fixed cost (measured: this driver's fork, exec and reap beside
the batches; or --fixed-ms, or --fixed-from a tracebench run: what it pays per sample). And the floor: the 95% half-width
of a paired A/A mean an ideal run of this machine could reach in SECONDS with samples of m
batches, 1.96 sqrt(2 (Tp^2 + V(m)) / N), N = SECONDS / (2 (m c1 + c2)) rounds, as a share of the
ratio. Any tracer only adds its own noise and fixed costs to it. A benchmark: no figure is
judged.

usage: noise-components.py [--processes N] [--batches B] [--batch-ms MS] [--cpu C]
                           [--load N] [--seconds S] [--fixed-ms F | --fixed-from RESULT]
                           [--save FILE] [--json FILE]
       noise-components.py --from FILE [--seconds S] [--fixed-ms F | --fixed-from RESULT]
                           [--json FILE]
  --load N     N stress-ng CPU workers on CPUs other than the measured one while it measures
               (tools/loadgen.py, as bench-precision's PRECISION_LOAD)
  --fixed-from RESULT  c2 from a tracebench result.json: its wall time less what its samples
               measured, over its samples (what a run of that scenario pays per sample)
  --from FILE  analyse a --save file instead of measuring (tests/e2e/t-noise-components.sh)
Environment: TB_TOOLS (the directory of tb-getpid-loop, default build/tools). Exit 0, 1 when a
measurement failed (or --load without stress-ng), 2 on bad usage or a bad --from file (named,
with the key), 130 on a signal (the load stopped). It takes no lock: on a shared machine run it
under the machine's run lock (`flock /run/tracebench/lock make bench-noise`), as tracebench's
runs would otherwise share the measured CPU with it.
"""
import argparse
import datetime
import json
import math
import os
import signal
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import loadgen  # noqa: E402  (tools/loadgen.py: the busy CPUs of --load)

TOOLS = os.environ.get("TB_TOOLS", os.path.join(HERE, "..", "build", "tools"))
LOOP = os.path.join(TOOLS, "tb-getpid-loop")
SCHEMA = "tracebench-noise/1"
LENGTHS = (1, 2, 5, 10)  # batches per sample the floor is given for, beside K&J's


class BadInput(Exception):
    pass


class Interrupted(Exception):
    pass


def on_signal(sig, _frame):
    raise Interrupted(sig)


def measure(a, cpu):
    """The batches' ns/op per process, and each process's wall time beside its batches (s)."""
    cpu = str(cpu)
    iters = int(subprocess.check_output([LOOP, "--cpu", cpu, "--calibrate", str(a.batch_ms)]))
    procs, fixed = [], []
    for _ in range(a.processes):
        t0 = time.perf_counter()
        out = subprocess.run([LOOP, "--cpu", cpu, "--batches", str(a.batches), str(iters)],
                             check=True, capture_output=True, text=True).stdout
        wall = time.perf_counter() - t0
        ns = [float(x) for x in out.split()]
        if len(ns) != a.batches:
            raise subprocess.SubprocessError(f"{LOOP} printed {len(ns)} of {a.batches} batches")
        procs.append(ns)
        fixed.append(wall - sum(ns) * iters / 1e9)
    return {"schema": SCHEMA, "cpu": int(cpu), "load": a.load, "iters": iters,
            "batch_ms": a.batch_ms, "fixed_ms": 1e3 * statistics.median(fixed),
            "processes": procs}


def load(path):
    """A --save file, checked: BadInput naming the file and the key."""
    try:
        with open(path) as f:
            d = json.load(f)
    except (OSError, ValueError) as e:
        raise BadInput(f"{path}: {e}")

    def num(v, key, pos=True):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or \
           (pos and not v > 0):
            raise BadInput(f"{path}: {key}: not a positive number ({v!r})")
        return float(v)
    if not isinstance(d, dict) or d.get("schema") != SCHEMA:
        raise BadInput(f"{path}: schema: not {SCHEMA}")
    num(d.get("batch_ms"), "batch_ms")
    num(d.get("fixed_ms"), "fixed_ms")
    if not isinstance(d.get("load", 0), int) or isinstance(d.get("load"), bool) or \
       d.get("load", 0) < 0:
        raise BadInput(f"{path}: load: not a count of busy CPUs ({d.get('load')!r})")
    p = d.get("processes")
    if not isinstance(p, list) or len(p) < 4:
        raise BadInput(f"{path}: processes: a list of at least 4 processes needed")
    want = len(p[0]) if isinstance(p[0], list) else 3
    for i, ns in enumerate(p):
        if not isinstance(ns, list) or len(ns) < 3 or len(ns) != want:
            raise BadInput(f"{path}: processes[{i}]: a list of {max(want, 3)} batches (at "
                           f"least 3, as many as the first process's) needed")
        for j, v in enumerate(ns):
            num(v, f"processes[{i}][{j}]")
    return d


def run_fixed_ms(path):
    """A tracebench run's fixed cost per sample, in ms: its wall time less what its samples
    measured, over its samples (warm-ups too). BadInput naming the file and the key."""
    try:
        with open(path) as f:
            r = json.load(f)
        wall = (datetime.datetime.fromisoformat(r["finished"].replace("Z", "+00:00")) -
                datetime.datetime.fromisoformat(r["started"].replace("Z", "+00:00")))
        samples = [s_ for c in r["cells"] for s_ in c["samples"]]
        measured = sum(float(s_["elapsed_ns"]) for s_ in samples) / 1e9
    except OSError as e:
        raise BadInput(f"{path}: {e.strerror}")
    except ValueError as e:
        raise BadInput(f"{path}: {e}")
    except (KeyError, TypeError, AttributeError) as e:
        raise BadInput(f"{path}: started, finished, cells[].samples[].elapsed_ns: not a "
                       f"finished run ({e!r})")
    if not samples or wall.total_seconds() <= measured:
        raise BadInput(f"{path}: finished - started ({wall.total_seconds():g} s) not above "
                       f"its {len(samples)} samples' elapsed_ns ({measured:g} s)")
    return 1e3 * (wall.total_seconds() - measured) / len(samples)


def v_mean(t1sq, rho, m):
    """The variance of a mean of m consecutive batches whose lag-k correlation is rho^k."""
    s = sum((1 - k / m) * rho ** k for k in range(1, m))
    return max(t1sq / m * (1 + 2 * s), 0.0)


def analyse(d, seconds, fixed_ms=None):
    """The components, K&J's batches per process and the floors: a dict (log scale shares)."""
    logs = [[math.log(v) for v in ns] for ns in d["processes"]]
    first = [ns[0] for ns in logs]
    rest = [ns[1:] for ns in logs]
    n = len(rest[0])
    means = [statistics.fmean(x) for x in rest]
    s1sq = statistics.fmean(statistics.variance(x) for x in rest)
    s2sq = statistics.variance(means)
    num = sum((x[i] - statistics.fmean(x)) * (x[i + 1] - statistics.fmean(x))
              for x in rest for i in range(n - 1))
    den = sum((v - statistics.fmean(x)) ** 2 for x in rest for v in x)
    # a short series' lag-1 estimate is biased low by about (1 + 3 rho) / n (Kendall), and its
    # variance about its own mean low by the correlated terms: both undone
    r1 = num / den if den > 0 else 0.0
    rho = min(max((r1 * n + 1) / (n - 3) if n > 3 else r1, 0.0), 0.99)
    s1sq /= 1 - 2 / (n - 1) * sum((1 - k / n) * rho ** k for k in range(1, n))
    t2sq = max(s2sq - v_mean(s1sq, rho, n), 0.0)
    # what a paired round sees: consecutive processes, the drift between them cancelled
    diffs = [means[i + 1] - means[i] for i in range(len(means) - 1)]
    tpsq = max(statistics.variance(diffs) / 2 - v_mean(s1sq, rho, n), 0.0)
    c1, c2 = d["batch_ms"] / 1e3, (fixed_ms if fixed_ms is not None else d["fixed_ms"]) / 1e3
    r = max(1, math.ceil(math.sqrt(c2 / c1 * s1sq / tpsq))) if tpsq > 0 else None
    floors = []
    for m in sorted(set(LENGTHS + ((r,) if r and r <= 1000 else ()))):
        rounds = seconds / (2 * (m * c1 + c2))
        floors.append({"batches": m, "sample_ms": 1e3 * m * c1, "rounds": rounds,
                       "half_width": 1.96 * math.sqrt(2 * (tpsq + v_mean(s1sq, rho, m)) / rounds),
                       "kj": m == r})
    return {"processes": len(logs), "batches": n + 1, "load": d.get("load", 0), "batch_ms": d["batch_ms"],
            "fixed_ms": 1e3 * c2, "measured_fixed_ms": d["fixed_ms"],
            "within_sd": math.sqrt(s1sq), "between_sd": math.sqrt(s2sq),
            "per_process_sd": math.sqrt(t2sq), "paired_sd": math.sqrt(tpsq), "rho": rho,
            "first_batch": statistics.fmean(f - mu for f, mu in zip(first, means)),
            "pair_sd": statistics.stdev(diffs),
            "kj_batches": r, "seconds": seconds, "floors": floors,
            "best": min(floors, key=lambda f: f["half_width"])}


def pct(x):
    return f"{100 * x:.2f}%"


def report(a, c):
    print(f"{c['processes']} processes x {c['batches']} batches of {c['batch_ms']:g} ms "
          f"(the first of each apart), {c['load']} busy CPU(s) beside the measured one")
    print(f"  within a process, one batch     sd {pct(c['within_sd'])} (T1), lag-1 "
          f"autocorrelation {c['rho']:.2f}")
    print(f"  between processes               sd {pct(c['per_process_sd'])} (T2; their means "
          f"sd {pct(c['between_sd'])})")
    print(f"  between consecutive processes   sd {pct(c['paired_sd'])} (what a paired round "
          f"keeps: their means differ by sd {pct(c['pair_sd'])}; the rest of T2 drifts)")
    print(f"  a fresh process's first batch   {c['first_batch'] * 100:+.2f}% from its others")
    fx = f"{c['fixed_ms']:.1f} ms a process" + (
        f" ({a.fixed_from}'s wall time less its samples')" if a.fixed_from else
        " (--fixed-ms)" if a.fixed_ms is not None else " (measured: fork, exec, reap)")
    r = c["kj_batches"]
    if r:
        print(f"Kalibera & Jones: {r} batches per process, samples of {r * c['batch_ms']:g} ms, "
              f"at {fx}")
    else:
        print(f"Kalibera & Jones: no per-process part measured, samples as long as fit, at {fx}")
    print(f"The floor of an ideal paired A/A in {c['seconds']:g} s (95% half-width, share of "
          f"the ratio):")
    for f in c["floors"]:
        print(f"  samples of {f['sample_ms']:6.0f} ms: {f['rounds']:6.0f} rounds, "
              f"{pct(f['half_width'])}{'  (K&J)' if f['kj'] else ''}")
    b = c["best"]
    print(f"best: {pct(b['half_width'])} with {b['sample_ms']:.0f} ms samples")


def write_new(path, text):
    """text into path, never through a link (O_NOFOLLOW) nor over a directory."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
    with os.fdopen(fd, "w") as f:
        f.write(text)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--processes", type=int, default=60)
    p.add_argument("--batches", type=int, default=10)
    p.add_argument("--batch-ms", type=int, default=20)
    p.add_argument("--cpu", type=int)
    p.add_argument("--seconds", type=float, default=60.0)
    p.add_argument("--fixed-ms", type=float)
    p.add_argument("--fixed-from")
    p.add_argument("--save")
    p.add_argument("--json")
    p.add_argument("--load", type=int, default=0)
    p.add_argument("--from", dest="src")
    a = p.parse_args()
    if a.processes < 4 or a.batches < 3 or not a.batch_ms > 0 or not a.seconds > 0 or \
       (a.fixed_ms is not None and not a.fixed_ms > 0):
        p.error("--processes >= 4, --batches >= 3, --batch-ms, --seconds and --fixed-ms > 0")
    cpu = a.cpu if a.cpu is not None else max(os.sched_getaffinity(0))
    spare = sorted(os.sched_getaffinity(0) - {cpu})
    if a.src and a.load:
        p.error("--load is for a measurement, not --from (the file says its load)")
    if not 0 <= a.load <= len(spare):
        p.error(f"--load {a.load}: want a count of busy CPUs, at most {len(spare)} here besides "
                f"the measured CPU {cpu}")
    if a.load and loadgen.missing():
        print(f"noise-components: {loadgen.missing()}", file=sys.stderr)
        return 1
    try:
        if a.src:
            d = load(a.src)
        else:
            for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                signal.signal(sig, on_signal)
            try:
                with loadgen.running(a.load, spare, "noise-components"):
                    d = measure(a, cpu)
            except (OSError, ValueError, subprocess.SubprocessError) as e:
                err = getattr(e, "stderr", None)
                print(f"noise-components: {LOOP}: {(err or '').strip() or e}", file=sys.stderr)
                return 1
            except Interrupted as e:
                print(f"noise-components: interrupted (signal {e.args[0]}); the load stopped",
                      file=sys.stderr)
                return 130
            if a.save:
                write_new(a.save, json.dumps(d) + "\n")
        if a.fixed_from:
            a.fixed_ms = run_fixed_ms(a.fixed_from)
        c = analyse(d, a.seconds, a.fixed_ms)
        report(a, c)
        if a.json:
            write_new(a.json, json.dumps(c, indent=1) + "\n")
    except BadInput as e:
        print(f"noise-components: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"noise-components: {e.filename}: {e.strerror}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
