#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What rearm saves per sample, per tracer family (make bench-rearm, METHODOLOGY.md section 9).

For each of bench-precision's families (the same workload and tracer sections: one owner, that
file's FAMILIES), two runs of one scenario that differ only in `reuse-tracers`: true (a traced
cell's tracer is set up once and rearmed between its samples, where the family can) and false
(a full setup and teardown per sample). Fixed rounds and sample length (REARM_ROUNDS, default
10; REARM_DURATION, default 1s), so that the two runs are the same measurement. Each scenario
also sets a max-time (REARM_MAX_TIME, default 15m), so that a slow cell (a uprobe's traced
batch at the baseline's op count took minutes here) gets an op count of its own, sized to its
slowdown (runner/budget.c, which a max-time turns on); it is far above the time the rounds
take, so it does not cut them, and the run says so if it ever does.

Prints per family and mode the median per-sample tracer setup (or rearm) and teardown time from
result.json's samples, the share of the run's wall time spent measuring, and the overhead with
its 95% CI: the two overheads should agree within their CIs (rearm keeps the measured program
identical; a family that cannot rearm shows the same setup time twice). A benchmark: no figure
is judged; it exits 0 when every run ran, 1 when one could not, 2 on bad usage.

Environment: TB_BIN (tracebench), REARM_FAMILIES (a comma list, default every family),
REARM_ROUNDS, REARM_DURATION, REARM_MAX_TIME, REARM_JSON (a file for the rows:
tools/figures.py's rearm). On a shared machine run it under the machine's run lock
(flock /run/tracebench/lock).
"""
import datetime
import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TB = os.environ.get("TB_BIN", os.path.join(HERE, "..", "tracebench"))
ROUNDS = os.environ.get("REARM_ROUNDS", "10")
DURATION = os.environ.get("REARM_DURATION", "1s")
MAX_TIME = os.environ.get("REARM_MAX_TIME", "15m")


def families():
    spec = importlib.util.spec_from_file_location("bench_precision",
                                                  os.path.join(HERE, "bench-precision.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.FAMILIES


def median_ms(samples, key):
    v = [s[key] for s in samples if s.get(key) is not None]
    return 1e3 * statistics.median(v) if v else float("nan")


def run(name, wl, tr, reuse, out):
    """One run of the family with reuse-tracers = reuse; its figures, or None (said)."""
    tag = f"{name}-{'rearm' if reuse else 'full'}"
    scn = os.path.join(out, f"{tag}.ini")
    with open(scn, "w") as f:
        f.write(f"[global]\nrepetitions = {ROUNDS}\nduration = {DURATION}\n"
                f"max-time = {MAX_TIME}\n"
                f"reuse-tracers = {'true' if reuse else 'false'}\n\n[workload w]\n{wl}\n\n"
                f"[tracer t]\n{tr}\n\n[matrix]\nworkloads = w\ntracers = none, t\n")
    rdir = os.path.join(out, tag)
    p = subprocess.run([TB, "run", scn, "-o", rdir, "--no-plots", "-q", "--wait"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if p.returncode not in (0, 1):
        last = p.stderr.strip().splitlines()[-1:] or ["(no message)"]
        print(f"{tag}: tracebench exited {p.returncode}: {last[0]}", flush=True)
        return None
    r = json.load(open(os.path.join(rdir, "result.json")))
    if r.get("stop_reason") == "max-time":
        print(f"{tag}: max-time {MAX_TIME} cut its rounds (REARM_MAX_TIME): the two runs of "
              f"{name} are not the same measurement", flush=True)
    tr_cell = next(c for c in r["cells"] if not c["baseline"])
    o = tr_cell.get("overhead") or {}
    meas = sum(s["elapsed_ns"] or 0 for c in r["cells"] for s in c["samples"]) / 1e9
    try:
        t0, t1 = (datetime.datetime.strptime(r[k], "%Y-%m-%dT%H:%M:%SZ")
                  for k in ("started", "finished"))
        wall = max((t1 - t0).total_seconds(), 1.0)
    except (KeyError, TypeError, ValueError):
        wall = float("nan")
    ci = o.get("ci") or [float("nan"), float("nan")]
    return {
        "setup_ms": median_ms(tr_cell["samples"], "tracer_setup_s"),
        "teardown_ms": median_ms(tr_cell["samples"], "tracer_teardown_s"),
        "measuring": 100 * meas / wall, "wall": wall,
        "pct": o.get("pct", float("nan")), "lo": ci[0] if ci[0] is not None else float("nan"),
        "hi": ci[1] if ci[1] is not None else float("nan"), "verdict": o.get("verdict"),
    }


def main():
    if len(sys.argv) > 1:
        print(__doc__, file=sys.stderr)
        return 2
    if not os.access(TB, os.X_OK):
        print(f"bench-rearm: {TB}: not built (make all)", file=sys.stderr)
        return 1
    # checked before the runs: a bad value would otherwise fail every run, or the JSON at the end
    if not ROUNDS.isdigit() or int(ROUNDS) < 2:
        print(f"bench-rearm: REARM_ROUNDS={ROUNDS!r}: not a whole number of rounds >= 2",
              file=sys.stderr)
        return 2
    fams = families()
    names = [f[0] for f in fams]
    want = os.environ.get("REARM_FAMILIES")
    want = want.split(",") if want else names
    bad = [w for w in want if w not in names]
    if bad:
        print(f"bench-rearm: REARM_FAMILIES: unknown {bad}; known: {names}", file=sys.stderr)
        return 2
    out = tempfile.mkdtemp(prefix="tb-rearm.")
    rows, st = [], 0
    try:
        print(f"load before: {open('/proc/loadavg').read().strip()}", flush=True)
        for name, wl, tr in fams:
            if name not in want:
                continue
            for reuse in (True, False):
                fig = run(name, wl, tr, reuse, out)
                if fig is None:
                    st = 1
                    continue
                rows.append((name, "rearm" if reuse else "full", fig))
        print(f"load after: {open('/proc/loadavg').read().strip()}")
    finally:
        shutil.rmtree(out, ignore_errors=True)
    print(f"\n{ROUNDS} rounds of {DURATION} samples per run; per-sample medians\n")
    print(f"{'family':14} {'mode':6} {'setup':>10} {'teardown':>10} {'measuring':>9}  "
          f"overhead [95% CI]")
    for name, mode, f in rows:
        print(f"{name:14} {mode:6} {f['setup_ms']:7.1f} ms {f['teardown_ms']:7.1f} ms "
              f"{f['measuring']:8.0f}%  {f['pct']:+.2f}% [{f['lo']:+.2f}, {f['hi']:+.2f}] "
              f"{f['verdict']}")
    dump = os.environ.get("REARM_JSON")
    if dump:
        with open(dump, "w") as f:
            json.dump({"rounds": int(ROUNDS), "duration": DURATION,
                       "rows": [dict(f, family=n, mode=m) for n, m, f in rows]}, f)
    return st


if __name__ == "__main__":
    sys.exit(main())
