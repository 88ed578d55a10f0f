#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Precision per minute (make bench-precision, METHODOLOGY.md section 9).

One invocation, the same question asked two ways for the same wall time: what does a
pid-filtered syscalls:sys_enter_getpid tracepoint cost a getpid loop?

  1. tracebench run scenarios/precision.ini --max-time 60s (start to result, timed);
  2. hyperfine -N of tb-getpid-loop without and with the tracepoint (the target enables it in a
     tracefs instance of ours, filtered to its own pid, and disables it on every path), as many
     runs as fit in tracebench's wall time.

Prints each tool's estimate of the overhead, its 95% half-width in percentage points, the ratio
of half-widths and the wall times. A benchmark: it exits 0 when both tools ran (1 when one
could not run, 2 on bad usage). Run it under the tests' flock on a shared machine.

Environment: TB_BIN (tracebench), TB_LOOP (tb-getpid-loop), PRECISION_TIME (default 60s),
PRECISION_RUN_MS (hyperfine's run length, default 200), PRECISION_SCENARIO, PRECISION_OUT (the
families' runs' directory, kept; default a new one under /tmp).

PRECISION_FAMILIES=1 (or =ftrace-event,bpf-tp_btf,... for a subset) asks instead what the
issue-32 goal asks of every tracer family: one run per family of a scenario that sets only
`precision = 0.1%` and `max-time` (every other key at its default, so the run chooses its
sample length and settle: settings.sample_length), on getpid or, for the user-space probes,
usercall; per family the estimate, its 95% half-width in points and as a share of the
traced/baseline ratio, the share of the run's wall time (result.json's started to finished,
whole seconds: without the wait for the run lock) measuring, the rounds and the chosen sample
length. No hyperfine in this mode: tb-getpid-loop switches the ftrace event alone, so the
default mode (precision.ini, or PRECISION_SCENARIO=<the ftrace-event run's scenario file>) is
the comparison at equal time; the other families' hyperfine figures are not done.
"""
import datetime
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TB = os.environ.get("TB_BIN", os.path.join(HERE, "..", "tracebench"))
LOOP = os.environ.get("TB_LOOP", os.path.join(HERE, "..", "build", "tools", "tb-getpid-loop"))
SCENARIO = os.environ.get("PRECISION_SCENARIO", os.path.join(HERE, "..", "scenarios",
                                                              "precision.ini"))
BUDGET = os.environ.get("PRECISION_TIME", "60s")
RUN_MS = int(os.environ.get("PRECISION_RUN_MS", "200"))
Z95 = 1.959964


def t95(df):
    """Two-sided 95% Student t quantile (Cornish-Fisher; within 1e-3 for df >= 5)."""
    if not math.isfinite(df) or df > 1e6:
        return Z95
    z = Z95
    return (z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2) +
            (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * df**3))


def median(v):
    v = sorted(v)
    n = len(v)
    return (v[n // 2] + v[(n - 1) // 2]) / 2 if n else float("nan")


def run_tracebench(out):
    cmd = [TB, "run", SCENARIO, "--max-time", BUDGET, "-o", out, "--no-plots", "-q", "--wait"]
    print("tracebench:", " ".join(cmd), flush=True)
    t0 = time.monotonic()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL)
    wall = time.monotonic() - t0
    if p.returncode not in (0, 1):
        sys.exit(f"bench-precision: tracebench exited {p.returncode}")
    r = json.load(open(os.path.join(out, "result.json")))
    base = next(c for c in r["cells"] if c["baseline"])
    tr = next(c for c in r["cells"] if not c["baseline"])
    o = tr["overhead"]
    meas = sum(s["elapsed_ns"] or 0 for c in r["cells"] for s in c["samples"]) / 1e9
    setup = [s["tracer_setup_s"] for s in tr["samples"] if s.get("tracer_setup_s") is not None]
    tear = [s["tracer_teardown_s"] for s in tr["samples"] if s.get("tracer_teardown_s") is not None]
    rounds = max((s["round"] for s in tr["samples"]), default=-1) + 1
    # The run's own wall time, started (after the run lock) to finished: on a shared machine
    # the command's time also holds its wait for the lock (--wait), which hyperfine must not get.
    try:
        t0, t1 = (datetime.datetime.strptime(r[k], "%Y-%m-%dT%H:%M:%SZ")
                  for k in ("started", "finished"))
        wall = min(wall, max((t1 - t0).total_seconds(), 1.0))
    except (KeyError, TypeError, ValueError):
        pass
    return {
        "wall": wall, "pct": o["pct"], "lo": o["ci"][0], "hi": o["ci"][1],
        "base_ns": base["summary"]["median"], "tr_ns": tr["summary"]["median"],
        "base_cv": base["summary"]["cv"], "tr_cv": tr["summary"]["cv"],
        "rounds": rounds, "stop": r.get("stop_reason"), "measured_s": meas,
        "setup_ms": 1e3 * median(setup), "teardown_ms": 1e3 * median(tear),
        "verdict": o.get("verdict"), "cpus": r["settings"].get("cpus"),
    }


def pin_cpu():
    """The CPU tracebench's cpus = auto picks: the last one we may run on."""
    return max(os.sched_getaffinity(0))


def run_hyperfine(tb, out, inst):
    cpu = str(pin_cpu())
    iters = int(subprocess.check_output([LOOP, "--cpu", cpu, "--calibrate", str(RUN_MS)]))
    # Size the runs from tracebench's own per-op figures so both tools get the same time:
    # a run is iters ops plus ~6 ms of process start and tracepoint switching, and each run's
    # --prepare (a process, and an RCU grace period after a traced run) ~60 ms more per pair.
    per_pair = iters * (tb["base_ns"] + tb["tr_ns"]) / 1e9 + 0.07
    runs = max(10, int((tb["wall"] - 2 * RUN_MS / 1e3) / per_pair))
    js = os.path.join(out, "hyperfine.json")
    # --prepare once per command, untimed: the traced runs' pid list is emptied between runs
    # (an RCU grace period the traced run would otherwise pay inside its timing).
    cmd = ["hyperfine", "-N", "--style", "basic", "--warmup", "1", "--runs", str(runs),
           "--export-json", js, "--prepare", f"{LOOP} --clear {inst}",
           "--prepare", f"{LOOP} --clear {inst}", f"{LOOP} --cpu {cpu} {iters}",
           f"{LOOP} --cpu {cpu} --trace {inst} {iters}"]
    print("hyperfine:", " ".join(cmd), flush=True)
    t0 = time.monotonic()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL)
    wall = time.monotonic() - t0
    if p.returncode:
        sys.exit(f"bench-precision: hyperfine exited {p.returncode}")
    res = json.load(open(js))["results"]
    a, b = res[0], res[1]
    ma, sa, na = a["mean"], a["stddev"], len(a["times"])
    mb, sb, nb = b["mean"], b["stddev"], len(b["times"])
    r = mb / ma
    # hyperfine's own "x.xx +- y.yy times faster": the two stddevs propagated (1 sigma).
    rel_sd = r * math.sqrt((sa / ma) ** 2 + (sb / mb) ** 2)
    # Welch on the raw run times: the standard errors of both means, Welch-Satterthwaite df.
    va, vb = (sa / ma) ** 2 / na, (sb / mb) ** 2 / nb
    df = (va + vb) ** 2 / (va ** 2 / (na - 1) + vb ** 2 / (nb - 1))
    welch = t95(df) * r * math.sqrt(va + vb)
    return {
        "wall": wall, "runs": runs, "iters": iters, "pct": 100 * (r - 1),
        "hf_half": 100 * Z95 * rel_sd, "hf_sd": 100 * rel_sd, "welch_half": 100 * welch,
        "base_ns": 1e9 * ma / iters, "tr_ns": 1e9 * mb / iters,
    }


# Issue 32's families: (name, workload section, tracer section), each run alone.
FAMILIES = [
    ("ftrace-event", "type = getpid",
     "type = ftrace-events\nevents = syscalls:sys_enter_getpid"),
    ("bpf-tp_btf", "type = getpid", "type = bpf\nprogram = syscall-count\nattach = tp_btf"),
    ("bpf-uprobe", "type = usercall", "type = bpf\nprogram = probe\nattach = uprobe"),
    ("ftrace-uprobe", "type = usercall", "type = ftrace-uprobe"),
    ("perf-count", "type = getpid", "type = perf-count\nevents = syscalls:sys_enter_getpid"),
    ("perf-sample", "type = getpid", "type = perf-sample"),
    ("lttng-ust", "type = usercall\nlttng = true", "type = lttng-ust"),
    ("bpftrace", "type = getpid",
     "type = command\ncommand = /usr/sbin/syscount.bt\nready = Hit Ctrl-C to end\n"
     "hooks = raw_syscalls:sys_enter"),
]


def run_family(name, wl, tr, out):
    """One family's run of a precision-and-max-time-only scenario; its figures."""
    scn = os.path.join(out, f"{name}.ini")
    with open(scn, "w") as f:
        f.write(f"[global]\nprecision = 0.1%\nmax-time = {BUDGET}\n\n[workload w]\n{wl}\n\n"
                f"[tracer t]\n{tr}\n\n[matrix]\nworkloads = w\ntracers = none, t\n")
    global SCENARIO
    SCENARIO = scn
    tb = run_tracebench(os.path.join(out, name))
    r = json.load(open(os.path.join(out, name, "result.json")))
    tb["length"] = r["settings"].get("sample_length") or "(the scenario's)"
    tb["duration_s"] = r["settings"]["duration_ns"] / 1e9
    return tb


def families(which):
    """PRECISION_FAMILIES: every family's run, then the table (hyperfine beside the first)."""
    names = [f[0] for f in FAMILIES]
    want = names if which == "1" else which.split(",")
    bad = [w for w in want if w not in names]
    if bad:
        print(f"bench-precision: PRECISION_FAMILIES: unknown {bad}; known: {names}",
              file=sys.stderr)
        return 2
    out = os.environ.get("PRECISION_OUT") or tempfile.mkdtemp(prefix="tb-precision-families.")
    os.makedirs(out, exist_ok=True)
    rows = []
    print(f"load before: {open('/proc/loadavg').read().strip()}", flush=True)
    for name, wl, tr in FAMILIES:
        if name not in want:
            continue
        try:
            rows.append((name, run_family(name, wl, tr, out)))
        except (SystemExit, OSError, KeyError, StopIteration) as e:
            print(f"{name}: no figures: {e}", flush=True)
    print(f"load after: {open('/proc/loadavg').read().strip()}")
    print(f"results: {out}")
    print()
    print(f"{'family':14} {'estimate':>10} {'95% half-width':>15} {'of ratio':>9} "
          f"{'measuring':>9} {'rounds':>6} {'sample':>7}  stop")
    for name, tb in rows:
        half = (tb["hi"] - tb["lo"]) / 2 if tb["lo"] is not None else float("nan")
        share = half / (100 + tb["pct"]) * 100
        print(f"{name:14} {tb['pct']:+9.2f}% {half:12.2f} pt {share:8.2f}% "
              f"{100 * tb['measured_s'] / tb['wall']:8.0f}% {tb['rounds']:6d} "
              f"{tb['duration_s']:6.2f}s  {tb['stop']}")
    print()
    for name, tb in rows:
        print(f"{name}: sample length and settle {tb['length']}")
    print("goal (quiet machine): half-width <= 0.3% of the ratio, >= 85% of the wall time "
          "measuring")
    return 0


def main():
    which = os.environ.get("PRECISION_FAMILIES")
    if which:
        return families(which)
    if len(sys.argv) > 1:
        print(__doc__, file=sys.stderr)
        return 2
    for exe in (TB, LOOP):
        if not os.access(exe, os.X_OK):
            print(f"bench-precision: {exe}: not built (make all build/tools/tb-getpid-loop)",
                  file=sys.stderr)
            return 1
    if not shutil.which("hyperfine"):
        print("bench-precision: hyperfine is not installed (make deps)", file=sys.stderr)
        return 1
    out = tempfile.mkdtemp(prefix="tb-precision.")
    inst = f"tracebench-{os.getpid()}-hyperfine"
    made = False

    def remove(*_):
        if made:
            subprocess.run([LOOP, "--remove", inst])
        shutil.rmtree(out, ignore_errors=True)
        if _:
            sys.exit(130)

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, remove)
    try:
        print(f"load before: {open('/proc/loadavg').read().strip()}", flush=True)
        tb = run_tracebench(os.path.join(out, "tb"))
        if subprocess.run([LOOP, "--create", inst]).returncode:
            return 1
        made = True
        hf = run_hyperfine(tb, out, inst)
        print(f"load after: {open('/proc/loadavg').read().strip()}")
    finally:
        remove()
        made = False
    half = (tb["hi"] - tb["lo"]) / 2 if tb["lo"] is not None else float("nan")
    print()
    print(f"{'':12} {'estimate':>10} {'95% half-width':>15} {'wall':>8}  detail")
    print(f"{'tracebench':12} {tb['pct']:+9.2f}% {half:12.2f} pt {tb['wall']:7.1f}s  "
          f"[{tb['lo']:+.2f}, {tb['hi']:+.2f}], {tb['rounds']} rounds, stop: {tb['stop']}, "
          f"{tb['base_ns']:.1f} -> {tb['tr_ns']:.1f} ns/op, CV {100 * tb['base_cv']:.1f}% / "
          f"{100 * tb['tr_cv']:.1f}%")
    print(f"{'hyperfine':12} {hf['pct']:+9.2f}% {hf['hf_half']:12.2f} pt {hf['wall']:7.1f}s  "
          f"its +-{hf['hf_sd']:.2f} pt (1 sigma) x 1.96, {hf['runs']} runs of {hf['iters']} "
          f"getpid, {hf['base_ns']:.1f} -> {hf['tr_ns']:.1f} ns/op")
    print(f"{'  Welch':12} {hf['pct']:+9.2f}% {hf['welch_half']:12.2f} pt {'':8}  "
          "a 95% interval on hyperfine's raw run times")
    print()
    print(f"tracebench: {tb['measured_s']:.1f} s of {tb['wall']:.1f} s measuring "
          f"({100 * tb['measured_s'] / tb['wall']:.0f}%); per traced sample a median "
          f"{tb['setup_ms']:.1f} ms setup (rearm, start, settle) and {tb['teardown_ms']:.1f} ms "
          "teardown")
    print(f"half-width ratio: hyperfine / tracebench = {hf['hf_half'] / half:.1f}x, "
          f"Welch / tracebench = {hf['welch_half'] / half:.1f}x")
    print(f"goal (<= 1.0 pt in 60 s; >= 10x hyperfine; narrower than Welch): "
          f"{'met' if half <= 1.0 and hf['hf_half'] >= 10 * half and hf['welch_half'] > half else 'not met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
