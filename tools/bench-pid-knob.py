#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The bpf tracer's pid filter, writable global against folded .rodata (make bench-pid-knob,
METHODOLOGY.md section 9).

Runs scenarios/bpf-pid-knob.ini (or reads RESULT.json given as the argument) and, for each
program, compares the cell whose filter is the writable global targ_live (pid-filter =
workload: the tracer kept and re-pointed across samples) with the cell whose filter is the
.rodata constant the verifier folds (pid-filter = workload-rodata). The comparison is paired
within rounds: per measured round, the rodata sample's ns/op minus the global sample's, and the
same for the kernel's own run time per program run (bpf_enable_stats, from the cells' accounting
samples of the same rounds: the program's cost without the workload's noise); each mean with a Student t 95% interval. "same within CI" when that interval holds 0. A benchmark: exit 0
when the comparison could be made (1 when the run failed, 2 on bad usage). On a shared machine
run it under the machine's run lock (`flock /run/tracebench/lock make bench-pid-knob`).

Environment: TB_BIN (tracebench), PID_KNOB_ARGS (extra `tracebench run` arguments, e.g.
"--quick"), PID_KNOB_OUT (the run's directory, which must not exist; default a new one under
/tmp).
"""
import json
import math
import os
import shlex
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TB = os.environ.get("TB_BIN", os.path.join(HERE, "..", "tracebench"))
SCENARIO = os.path.join(HERE, "..", "scenarios", "bpf-pid-knob.ini")
PAIRS = [("syscall-count", "sc-global", "sc-rodata"),
         ("probe tp_btf empty", "empty-global", "empty-rodata")]
Z95 = 1.959964


def t95(df):
    """Two-sided 95% Student t quantile (Cornish-Fisher; within 1e-3 for df >= 5)."""
    z = Z95
    return (z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2) +
            (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * df**3))


def measured(cell, accounting=False):
    """A cell's measured samples (timed, not warmups, failed or cut) by round; accounting: its
    accounting samples instead (stats = true holds bpf_enable_stats in those only)."""
    return {s["round"]: s for s in cell["samples"]
            if s.get("round", -1) >= 0 and not s.get("warmup") and not s.get("failed")
            and bool(s.get("accounting")) == accounting and not s.get("abandoned")
            and not s.get("rerun") and s.get("ns_per_op")}


def ns_per_op(s):
    return s["ns_per_op"]


def ns_per_run(s):
    """The kernel's run time per program run in the sample (bpf_enable_stats), or None."""
    cnt, ns = s.get("bpf_run_cnt") or 0, s.get("bpf_run_time_ns")
    return ns / cnt if cnt > 0 and ns is not None and ns >= 0 else None


def paired(a, b, fig):
    """Mean of fig(b) - fig(a) over the rounds both have, its 95% half-width, the count."""
    d = [fig(b[k]) - fig(a[k]) for k in sorted(a)
         if k in b and fig(a[k]) is not None and fig(b[k]) is not None]
    if len(d) < 3:
        return None
    return statistics.fmean(d), t95(len(d) - 1) * statistics.stdev(d) / math.sqrt(len(d)), len(d)


def main():
    if len(sys.argv) > 2:
        sys.exit("usage: bench-pid-knob.py [RESULT.json]")
    if len(sys.argv) == 2:
        path = sys.argv[1]
    else:
        out = os.environ.get("PID_KNOB_OUT") or tempfile.mkdtemp(prefix="tb-pid-knob-")
        cmd = [TB, "run", SCENARIO, "-o", out, "--no-plots", "-q", "--wait"]
        cmd += shlex.split(os.environ.get("PID_KNOB_ARGS", ""))
        print("tracebench:", " ".join(cmd), flush=True)
        if subprocess.run(cmd, stdout=subprocess.DEVNULL).returncode not in (0, 1):
            sys.exit(1)
        path = os.path.join(out, "result.json")
    r = json.load(open(path))
    cells = {c["tracer"]: c for c in r["cells"]}
    base = next(c for c in r["cells"] if c["baseline"])
    print(f"result: {path}")
    print(f"baseline {base['summary']['median']:.1f} ns/op")
    ok = True
    for name, g, ro in PAIRS:
        if g not in cells or ro not in cells:
            print(f"{name}: cells {g}/{ro} missing")
            ok = False
            continue
        for t in (g, ro):
            o = cells[t].get("overhead") or {}
            ci = o.get("ns_per_op_ci") or [math.nan, math.nan]
            print(f"  {t:14s} +{o.get('ns_per_op', math.nan):.2f} ns/op "
                  f"[{ci[0]:.2f}, {ci[1]:.2f}]  ({o.get('pct', math.nan):+.1f}%)")
        for what, fig, acct in (("ns/op", ns_per_op, False),
                                ("in-kernel ns/run", ns_per_run, True)):
            p = paired(measured(cells[g], acct), measured(cells[ro], acct), fig)
            if not p:
                print(f"{name}: {what}: too few paired rounds")
                ok = False
                continue
            m, hw, n = p
            same = m - hw <= 0 <= m + hw
            print(f"{name}: {what}: rodata - global = {m:+.2f} [{m - hw:+.2f}, {m + hw:+.2f}] "
                  f"over {n} paired rounds: {'same within CI' if same else 'DIFFERENT'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
