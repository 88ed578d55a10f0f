# SPDX-License-Identifier: GPL-2.0
"""What tools/figures.py's runners share: where things are, how a command runs, how a figure is
written. See tools/figures.py."""
import json
import os
import subprocess
import sys

ROOT = os.environ.get("TB_ROOT") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TB = os.environ.get("TB_BIN") or os.path.join(ROOT, "tracebench")
# figures.py run --dry-run: nothing is written, so a smoke test's output may be read (said)
OPTS = {"dry_run": False}


def die(msg):
    print(f"figures: {msg}", file=sys.stderr)
    sys.exit(2)


def run_cmd(argv, env=None):
    print("figures: running " + " ".join(argv), file=sys.stderr)
    e = dict(os.environ, TB_BIN=TB, **(env or {}))
    p = subprocess.run(argv, cwd=ROOT, env=e)
    return p.returncode


def read_json(name, *path):
    """A JSON file of a run, or die naming the section and the file."""
    p = os.path.join(*path)
    try:
        with open(p) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        die(f"{name}: {p}: {e}")


def read_text(name, *path):
    p = os.path.join(*path)
    try:
        with open(p) as f:
            return f.read()
    except OSError as e:
        die(f"{name}: {p}: {e}")


def ci_text(v, ci, spec=".1f", sign=False):
    """'V [LO, HI]' with the CI, or 'V' when there is none."""
    f = ("+" if sign else "") + spec
    lo, hi = (ci or [None, None])[:2]
    return f"{v:{f}}" + (f" [{lo:{f}}, {hi:{f}}]" if lo is not None and hi is not None else "")


def span(values, spec=".0f", unit=""):
    """'A-B UNIT' over values (their smallest and largest), 'A UNIT' when they agree."""
    v = [x for x in values if x is not None]
    if not v:
        return "-"
    lo, hi = f"{min(v):{spec}}", f"{max(v):{spec}}"
    sep = " to " if min(v) < 0 else "-"
    return (lo if lo == hi else f"{lo}{sep}{hi}") + (f" {unit}" if unit else "")


def table(head, rows, align=None):
    """A Markdown table as a block figure (it starts and ends with a newline)."""
    sep = align or ["---"] * len(head)
    return ("\n| " + " | ".join(head) + " |\n|" + "|".join(sep) + "|\n" +
            "".join("| " + " | ".join(str(c) for c in r) + " |\n" for r in rows))


def code_block(text):
    """Text (a command's output) as a block figure: a code block that starts and ends with a
    newline."""
    return "\n```\n" + text.rstrip("\n") + "\n```\n"


def cells_of(r):
    """A result's cells by (workload, tracer)."""
    return {(c["workload"], c["tracer"]): c for c in r.get("cells") or []}


def measured_samples(c, accounting=False):
    """A cell's measured samples (not warmups, failed, cut or run again); accounting: its
    accounting samples instead."""
    return [s for s in c.get("samples") or []
            if not s.get("warmup") and not s.get("failed") and not s.get("abandoned")
            and not s.get("rerun") and bool(s.get("accounting")) == accounting]


def median(v):
    v = sorted(x for x in v if x is not None)
    n = len(v)
    return (v[n // 2] + v[(n - 1) // 2]) / 2 if n else None
