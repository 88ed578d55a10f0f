#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Synthetic histories from one real result.json, for tests/e2e/t-history.sh and
make bench-history (tools/bench-history.sh). Python standard library only.

Run i is the source with its start time i minutes later, a commit label, every sample scaled
by a run-level factor N(1, noise) (the machine's run-to-run variation, the same for every cell
of the run) and a sample-level factor N(1, noise / 2), seeded: the same arguments give the same
files. --step INDEX:CELL:FACTOR multiplies CELL's samples from run INDEX (0-based) on;
--env INDEX:KEY=VALUE sets the dot path KEY of `system` from run INDEX on (a kernel upgrade).

The figures (summary, overhead) are scaled with the samples, which is close enough for a
benchmark; --reanalyse drops them instead, so that tracebench computes them from the samples.
--flatten first sets every sample of a cell to the cell's median, so that the history's noise
is the seeded synthetic noise alone, not the source run's (a loaded machine's source would
otherwise decide whether a test's known step is found).

usage: history-synth.py SOURCE.json OUTDIR --runs N [--seed S] [--noise F] [--step ...]
                        [--env ...] [--reanalyse] [--flatten]
Writes OUTDIR/run-NNNN/result.json; OUTDIR must not exist.
"""
import argparse
import copy
import datetime
import json
import os
import random
import sys


def parse_step(s):
    index, cell, factor = s.split(":", 2)
    return int(index), cell, float(factor)


def parse_env(s):
    index, rest = s.split(":", 1)
    key, value = rest.split("=", 1)
    return int(index), key, value


def set_path(obj, path, value):
    keys = path.split(".")
    for k in keys[:-1]:
        obj = obj.setdefault(k, {})
    obj[keys[-1]] = value


def scale_figures(cell, f):
    """Scale a cell's ns figures by f (its summary); its overhead is redone from medians."""
    s = cell.get("summary")
    if isinstance(s, dict):
        for k in ("median", "mean", "sd", "min", "max", "mad"):
            if isinstance(s.get(k), (int, float)):
                s[k] *= f


def redo_overhead(cell, base):
    o = cell.get("overhead")
    if not isinstance(o, dict) or not base:
        return
    mt, mb = cell["summary"].get("median"), base["summary"].get("median")
    if not isinstance(mt, (int, float)) or not isinstance(mb, (int, float)) or mb <= 0:
        return
    old = o.get("pct")
    pct = 100 * (mt / mb - 1)
    o["pct"] = pct
    if isinstance(old, (int, float)) and isinstance(o.get("ci"), list):
        o["ci"] = [c + pct - old if isinstance(c, (int, float)) else c for c in o["ci"]]
    o["ns_per_op"] = mt - mb


def flatten(src):
    """Every measured sample of a cell at the cell's median ns/op."""
    for cell in src.get("cells", []):
        vals = sorted(s["ns_per_op"] for s in cell.get("samples", [])
                      if isinstance(s.get("ns_per_op"), (int, float)) and not s.get("warmup"))
        if not vals:
            continue
        n = len(vals)
        med = vals[n // 2] if n % 2 else (vals[n // 2 - 1] + vals[n // 2]) / 2
        for s in cell["samples"]:
            if isinstance(s.get("ns_per_op"), (int, float)):
                s["ns_per_op"] = med


def make_run(src, i, args, rng, steps, envs):
    r = copy.deepcopy(src)
    t0 = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
    when = t0 + datetime.timedelta(minutes=i)
    r["started"] = when.strftime("%Y-%m-%dT%H:%M:%SZ")
    r["finished"] = (when + datetime.timedelta(seconds=30)).strftime("%Y-%m-%dT%H:%M:%SZ")
    r["labels"] = {"commit": "%07x" % (0x1000000 + i * 7919), "run": str(i)}
    run_factor = rng.gauss(1.0, args.noise)
    for cell in r["cells"]:
        f = run_factor
        for index, cid, factor in steps:
            if i >= index and cell.get("id") == cid:
                f *= factor
        for smp in cell.get("samples", []):
            if isinstance(smp.get("ns_per_op"), (int, float)):
                smp["ns_per_op"] *= f * rng.gauss(1.0, args.noise / 2)
        if args.reanalyse:
            cell.pop("summary", None)
            cell.pop("overhead", None)
        else:
            scale_figures(cell, f)
    if not args.reanalyse:
        bases = {c["workload"]: c for c in r["cells"] if c.get("baseline")}
        for cell in r["cells"]:
            if not cell.get("baseline"):
                redo_overhead(cell, bases.get(cell["workload"]))
    for index, key, value in envs:
        if i >= index:
            set_path(r["system"], key, value)
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("source")
    ap.add_argument("outdir")
    ap.add_argument("--runs", type=int, required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--noise", type=float, default=0.01)
    ap.add_argument("--step", type=parse_step, action="append", default=[])
    ap.add_argument("--env", type=parse_env, action="append", default=[])
    ap.add_argument("--reanalyse", action="store_true")
    ap.add_argument("--flatten", action="store_true")
    args = ap.parse_args()
    with open(args.source) as f:
        src = json.load(f)
    if args.flatten:
        flatten(src)
    if os.path.exists(args.outdir):
        sys.exit(f"history-synth.py: {args.outdir} exists; not overwriting it")
    rng = random.Random(args.seed)
    for i in range(args.runs):
        d = os.path.join(args.outdir, "run-%04d" % i)
        os.makedirs(d)
        with open(os.path.join(d, "result.json"), "w") as f:
            json.dump(make_run(src, i, args, rng, args.step, args.env), f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
