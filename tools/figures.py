#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The figures README.md, METHODOLOGY.md and doc/*.md quote, their source and their machine.

doc/figures.json is the documents' source: per section the command that measures its figures,
the scenarios it runs, the machine it ran on (CPU model and family, kernel, date, fingerprint,
the hardware class of model/system.c, from `tracebench sysinfo --json`) and the figures by id.
A document quotes a figure as <!--fig ID-->TEXT<!--/fig--> (HTML comments: invisible when the
Markdown is rendered); a block figure (a table, a command's output) is a text that starts and
ends with a newline, so that its markers stand on their own lines. Every section has a runner
(tools/figures_runs.py, tools/figures_bench.py): it runs the section's command and reads the
figures out of what the command wrote. Where one command's run gives several sections their
figures (make validate: validation, sources, published, explain), one section owns the run and
the others are fed from it: naming any of them runs the command once and writes all of them.

A number that looks measured (a number with ns, us, ms, s, %, pt, or x for a ratio) in a
paragraph that says where it was measured ("measured" but not the protocol's terms "measured
samples", "measured rounds", "measured overhead" and the like, "measurement", "here", "this
machine", "this VM", "this run", "today", "UTC", "load average" or a date; a table or a code
block counts with the paragraph before it) must be a figure. Inline code, link targets, numbers
right after inline code or after "=", "<", ">", "default", "at least", "at most", "up to",
"within", "above", "below", "max", "min", "threshold", "tolerance", "goal", "target", "rounds
of" or "every", and numbers followed by "samples", "settle", "CI", "confidence", "interval",
"Student", "Wilson", "ticks" or "by default" are protocol settings and are not looked at. What
is not a measurement of ours is said so with an exemption marker,
<!--nofig KIND-->TEXT<!--/nofig-->, KIND one of
  published   a published figure (METHODOLOGY.md, References; cited where it is quoted)
  setting     a protocol constant, a default, a threshold or a scenario's setting
  derived     arithmetic on settings or on other figures, not a measurement
  example     what committed test data or a fixed-seed simulation gives (tests/unit, tests/data):
              the same on every machine

  figures.py check             every marker names a figure of the file and quotes its text;
                               every fingerprint the documents print is a quoted figure; every
                               figure of the file is quoted; no measured-looking number stands
                               outside the markers (the doc-figures test runs this)
  figures.py run [SECTION...]  measure the sections (all without names), write their figures
                               and machine to the file, then render
  figures.py run SECTION --from DIR   the same from the output of an earlier run of its
                               command (the runner's directory: sysinfo.json, the command's
                               output as the runner keeps it)
  figures.py run ... --dry-run print the figures a run would write (JSON), write nothing; with
                               --from a saved run is read, not measured
  figures.py render            rewrite every marker's text from the file
  figures.py list              the sections: command, status, machine

Environment: TB_BIN (default ./tracebench), TB_ROOT (default: this file's parent directory).
Exit 0, 1 when check finds a problem, 2 on bad input (file and key named).
"""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

from figures_lib import OPTS, ROOT, TB, die
import figures_bench
import figures_runs

FILE = os.path.join(ROOT, "doc", "figures.json")
DOCS = ["README.md", "METHODOLOGY.md"] + sorted(
    os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "doc", "*.md")))
MARK = re.compile(r"<!--fig ([a-z0-9][a-z0-9._-]*)-->(.*?)<!--/fig-->", re.S)
ID = re.compile(r"^[a-z0-9][a-z0-9-]*\.[a-z0-9][a-z0-9._-]*$")
FPRINT = re.compile(r"\bfingerprint`?\s+`?([0-9a-f]{16})\b")
# Sections whose command runs: SECTION -> runner(out, from_dir) -> {NAME: text}; sections fed
# from another's run: SECTION -> (owner, reader(out) -> {NAME: text}).
RUNNERS = dict(figures_runs.RUNNERS, **figures_bench.RUNNERS)
FED = dict(figures_runs.FED, **figures_bench.FED)
# The measured-number rule (see above).
NOFIG = re.compile(r"<!--nofig ([a-z]+)-->(.*?)<!--/nofig-->", re.S)
KINDS = ("published", "setting", "derived", "example")
NUMBER = re.compile(r"(?<![\w.\-/#+−])[-+−]?\d[\d,]*(?:\.\d+)?"
                    r"(?:\s?(?:-|–|to)\s?[-+−]?\d[\d,]*(?:\.\d+)?)?"
                    r"(?:\s?(?:ns|µs|us|ms|s)(?:/[a-z]+)?|\s?(?:%|pt)|[x×])(?![\w/])")
WHERE = re.compile(r"\b(?:measured(?!\s+(?:samples?|rounds?|overheads?|windows?|cells?|batch|"
                   r"phase|ns/op|figures?|values?|rates?|time|one|by|and|or|in\b))|measurements?|"
                   r"here|this (?:machine|VM|host|run)|that (?:run|host|machine)|today|UTC|"
                   r"load average)\b|\b20\d\d-\d\d-\d\d\b", re.I)
SETTING_BEFORE = re.compile(r"(?:default|=|<|>|≤|≥|at\s+least|at\s+most|up\s+to|within|above|"
                            r"below|max|min|threshold|tolerance|goal|target|rounds\s+of|every|`)"
                            r"\s*[(,]?\s*$", re.I)
SETTING_AFTER = re.compile(r"\s*(?:samples?|settles?|CIs?|confidence|intervals?|Student|Wilson|"
                           r"ticks|by\s+default)\b", re.I)


def load():
    try:
        with open(FILE) as f:
            d = json.load(f)
    except (OSError, ValueError) as e:
        die(f"{FILE}: {e}")
    secs = d.get("sections") if isinstance(d, dict) else None
    if d.get("schema") != 1 or not isinstance(secs, dict):
        die(f"{FILE}: not a figures file (schema 1 with a sections object)")
    for name, s in secs.items():
        figs = s.get("figures") if isinstance(s, dict) else None
        if not isinstance(figs, dict) or not all(isinstance(v, str) for v in figs.values()):
            die(f"{FILE}: sections.{name}.figures: not an object of texts")
        for fid in figs:
            if not ID.match(fid) or fid.split(".")[0] != name:
                die(f"{FILE}: sections.{name}.figures.{fid}: an id is SECTION.NAME")
        if not isinstance(s.get("machine"), dict) or not isinstance(s.get("command"), str):
            die(f"{FILE}: sections.{name}: no machine object or no command")
    return d


def save(d):
    tmp = FILE + ".tmp"
    with open(tmp, "w") as f:
        json.dump(d, f, indent=2, ensure_ascii=False)
        f.write("\n")
    os.replace(tmp, FILE)


def all_figures(d):
    return {fid: t for s in d["sections"].values() for fid, t in s["figures"].items()}


def read_doc(rel):
    with open(os.path.join(ROOT, rel)) as f:
        return f.read()


def line_of(text, pos):
    return text.count("\n", 0, pos) + 1


def strip(text):
    """text without the markers, and the spans of the figures' texts in it."""
    out, spans, pos = [], [], 0
    for m in MARK.finditer(text):
        out.append(text[pos:m.start()])
        start = sum(map(len, out))
        out.append(m.group(2))
        spans.append((start, start + len(m.group(2))))
        pos = m.end()
    out.append(text[pos:])
    return "".join(out), spans


def blocks(text):
    """The paragraphs of a Markdown text: (offset, text); a fenced code block is one."""
    out, pos, fence = [], 0, None
    for m in re.finditer(r"[^\n]*(?:\n|$)", text):
        line = m.group(0)
        if not line:
            break
        if fence is not None:
            if line.startswith("```"):
                out.append((fence, text[fence:m.end()]))
                fence, pos = None, m.end()
            continue
        if line.startswith("```") or not line.strip():
            if text[pos:m.start()].strip():
                out.append((pos, text[pos:m.start()]))
            if line.startswith("```"):
                fence = m.start()
            pos = m.end()
    if fence is None and text[pos:].strip():
        out.append((pos, text[pos:]))
    return out


def blank(m):
    """What a match leaves: spaces, its newlines kept (so that offsets and lines stay)."""
    return re.sub(r"[^\n]", " ", m.group(0))


def measured_numbers(rel, text):
    """The measured-looking numbers of a document that stand outside the markers."""
    bad = []
    for m in NOFIG.finditer(text):
        if m.group(1) not in KINDS:
            bad.append(f"{rel}:{line_of(text, m.start())}: <!--nofig {m.group(1)}-->: the kind "
                       f"is one of {', '.join(KINDS)}")
    t = MARK.sub(blank, NOFIG.sub(blank, text))
    if "<!--nofig" in t or "<!--/nofig-->" in t:
        bad.append(f"{rel}: an exemption marker without its pair "
                   f"(<!--nofig KIND-->TEXT<!--/nofig-->)")
    t = re.sub(r"<!--.*?-->", blank, t, flags=re.S)
    t = re.sub(r"`[^`\n]*`|\]\([^)\s]*\)", blank, t)
    before = ""
    for off, b in blocks(t):
        tabular = b.startswith(("|", "```"))
        where = WHERE.search(b) or (tabular and WHERE.search(before))
        if not tabular:
            before = b
        if not where:
            continue
        for m in NUMBER.finditer(b):
            at = off + m.start()  # the raw text keeps the code spans the rule blanked
            if SETTING_BEFORE.search(text[max(0, at - 14):at]) or \
                    SETTING_AFTER.match(b[m.end():]):
                continue
            bad.append(f"{rel}:{line_of(t, off + m.start())}: {m.group(0)!r} looks measured "
                       f"(its paragraph says {where.group(0)!r}) and is no figure: quote it "
                       f"from doc/figures.json (<!--fig ID-->), say what it is "
                       f"(<!--nofig {'|'.join(KINDS)}-->TEXT<!--/nofig-->) or drop it")
    return bad


def check(d):
    figs, used, bad = all_figures(d), set(), []
    for rel in DOCS:
        text = read_doc(rel)
        for m in MARK.finditer(text):
            fid, quoted = m.group(1), m.group(2)
            used.add(fid)
            if fid not in figs:
                bad.append(f"{rel}:{line_of(text, m.start())}: figure {fid}: no entry in "
                           f"doc/figures.json")
            elif quoted != figs[fid]:
                bad.append(f"{rel}:{line_of(text, m.start())}: figure {fid} quotes "
                           f"{quoted!r}, doc/figures.json says {figs[fid]!r} "
                           f"(tools/figures.py render)")
        if "<!--fig" in MARK.sub("", text) or "<!--/fig-->" in MARK.sub("", text):
            bad.append(f"{rel}: a figure marker without its pair (<!--fig ID-->TEXT<!--/fig-->)")
        plain, spans = strip(text)
        for m in FPRINT.finditer(plain):
            if not any(a <= m.start(1) < b for a, b in spans):
                bad.append(f"{rel}:{line_of(plain, m.start())}: fingerprint {m.group(1)} is not "
                           f"a figure of doc/figures.json: quote the section's machine")
        bad += measured_numbers(rel, text)
    for fid in sorted(set(figs) - used):
        bad.append(f"doc/figures.json: figure {fid} is quoted by no document")
    for b in bad:
        print(b)
    return 1 if bad else 0


def render(d):
    figs = all_figures(d)
    for rel in DOCS:
        text = read_doc(rel)

        def sub(m):
            fid = m.group(1)
            return m.group(0) if fid not in figs else f"<!--fig {fid}-->{figs[fid]}<!--/fig-->"

        new = MARK.sub(sub, text)
        if new != text:
            with open(os.path.join(ROOT, rel), "w") as f:
                f.write(new)
            print(f"figures: rendered {rel}")


def machine(sysinfo, load_at_end=None):
    """The stamp of a section from `tracebench sysinfo --json` taken when its run started."""
    cpu, kern = sysinfo.get("cpu", {}), sysinfo.get("kernel", {})
    hw = sysinfo.get("hardware_class") or {}
    la = (sysinfo.get("load") or {}).get("loadavg")
    la = " ".join(str(x) for x in la) if isinstance(la, list) else None
    return {"date": sysinfo.get("captured"), "cpu": {k: cpu.get(k) for k in (
        "vendor", "model", "family", "model_number")}, "kernel": kern.get("release"),
        "fingerprint": sysinfo.get("fingerprint"), "hardware_class": hw.get("id"),
        "hardware": hw.get("desc"), "load_at_start": la, "load_at_end": load_at_end}


def machine_text(m):
    cpu = m["cpu"]
    load = "" if not m.get("load_at_start") else f", load average {m['load_at_start']} at the start"
    if load and m.get("load_at_end"):
        load += f" and {m['load_at_end']} at the end"
    return (f"{cpu.get('model')} (family {cpu.get('family')} model {cpu.get('model_number')}), "
            f"kernel {m.get('kernel')}, fingerprint {m.get('fingerprint')}, hardware class "
            f"{m.get('hardware_class')} ({m.get('hardware')}), {m.get('date')}{load}")


def sysinfo_now():
    try:
        out = subprocess.run([TB, "sysinfo", "--json"], check=True, capture_output=True,
                             text=True).stdout
        return json.loads(out)
    except (OSError, subprocess.CalledProcessError, ValueError) as e:
        die(f"{TB} sysinfo --json: {e}")


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def owner(name):
    return FED[name][0] if name in FED else name


def measure(own, from_dir):
    """The run of section OWN's command (or the saved one in FROM_DIR): the figures of OWN and
    of every section fed from its run, {section: {NAME: text}}, and its machine stamp."""
    out = from_dir or tempfile.mkdtemp(prefix=f"tb-figures-{own}.")
    if not from_dir:
        with open(os.path.join(out, "sysinfo.json"), "w") as f:
            json.dump(sysinfo_now(), f)
    try:
        with open(os.path.join(out, "sysinfo.json")) as f:
            si = json.load(f)
    except (OSError, ValueError) as e:
        die(f"{own}: {out}/sysinfo.json: {e}")
    figs = {own: RUNNERS[own](out, from_dir)}
    for name, (o, reader) in sorted(FED.items()):
        if o == own:
            figs[name] = reader(out)
    end = os.path.join(out, "load-end")
    if not from_dir:
        with open(end, "w") as f:
            f.write(loadavg() + "\n")
    m = machine(si, open(end).read().strip() if os.path.exists(end) else None)
    figs[own]["machine"] = machine_text(m)  # the fed sections' documents quote the owner's
    print(f"figures: {', '.join(figs)}: figures from {out}", file=sys.stderr)
    return figs, m


def run(d, names, from_dir, dry_run=False):
    for name in names:
        if name not in d["sections"]:
            die(f"no section {name} in doc/figures.json (sections: "
                f"{', '.join(sorted(d['sections']))})")
        if owner(name) not in RUNNERS:
            die(f"section {name}: no runner; its figures stay as measured on "
                f"{d['sections'][name]['machine']['date']} by: {d['sections'][name]['command']}")
    owners = sorted({owner(n) for n in names})
    if from_dir and len(owners) != 1:
        die("--from reads one command's run: name one section (or the sections it feeds)")
    shown = {}
    for own in owners:
        figs, m = measure(own, from_dir)
        for name, f in figs.items():
            sec = d["sections"].get(name)
            if sec is None:
                die(f"section {name}: fed by {own}'s run but not in doc/figures.json")
            stale = set(sec["figures"]) - {f"{name}.{k}" for k in f}
            if stale:
                die(f"section {name}: its runner no longer gives {', '.join(sorted(stale))}")
            shown[name] = {f"{name}.{k}": v for k, v in f.items()}
            if dry_run:
                continue
            sec["machine"] = m
            sec["status"] = "measured by make figures"
            sec["figures"] = shown[name]
        if not dry_run:
            save(d)
    if dry_run:
        json.dump(shown, sys.stdout, indent=2, ensure_ascii=False)
        print()
    else:
        render(d)


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    d = load()
    if argv[0] == "check":
        return check(d)
    if argv[0] == "render":
        render(d)
        return 0
    if argv[0] == "list":
        for name, s in sorted(d["sections"].items()):
            how = ("runner" if name in RUNNERS else f"runner: {FED[name][0]}'s run"
                   if name in FED else "no runner")
            print(f"{name:<16} {len(s['figures']):3d} figures  {s.get('status')}  "
                  f"({s.get('command')}; {how}; {s['machine'].get('date')})")
        return 0
    if argv[0] == "run":
        args, from_dir = argv[1:], None
        dry_run = OPTS["dry_run"] = "--dry-run" in args
        args = [a for a in args if a != "--dry-run"]
        if "--from" in args:
            i = args.index("--from")
            if i + 1 >= len(args):
                die("--from needs a directory")
            from_dir = os.path.abspath(args[i + 1])
            args = args[:i] + args[i + 2:]
            if not args:
                die("--from reads one command's run: name its section")
        run(d, args or sorted(RUNNERS), from_dir, dry_run)
        return 0
    die(f"unknown command {argv[0]} (check, run, render, list)")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
