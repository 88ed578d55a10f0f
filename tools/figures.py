#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The figures README.md, METHODOLOGY.md and doc/*.md quote, their source and their machine.

doc/figures.json is the documents' source: per section the command that measures its figures,
the scenarios it runs, the machine it ran on (CPU model and family, kernel, date, fingerprint,
the hardware class of model/system.c, from `tracebench sysinfo --json`) and the figures by id.
A document quotes a figure as <!--fig ID-->TEXT<!--/fig--> (HTML comments: invisible when the
Markdown is rendered); a block figure (a table, a command's output) is a text that starts and
ends with a newline, so that its markers stand on their own lines.

  figures.py check             every marker names a figure of the file and quotes its text;
                               every fingerprint the documents print is a quoted figure; every
                               figure of the file is quoted (the doc-figures test runs this)
  figures.py run [SECTION...]  measure the sections (all that have a runner without names),
                               write their figures and machine to the file, then render
  figures.py run SECTION --from DIR   the same from the output of an earlier run of its command
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

ROOT = os.environ.get("TB_ROOT") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FILE = os.path.join(ROOT, "doc", "figures.json")
TB = os.environ.get("TB_BIN") or os.path.join(ROOT, "tracebench")
DOCS = ["README.md", "METHODOLOGY.md"] + sorted(
    os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "doc", "*.md")))
MARK = re.compile(r"<!--fig ([a-z0-9][a-z0-9._-]*)-->(.*?)<!--/fig-->", re.S)
ID = re.compile(r"^[a-z0-9][a-z0-9-]*\.[a-z0-9][a-z0-9._-]*$")
FPRINT = re.compile(r"\bfingerprint`?\s+`?([0-9a-f]{16})\b")


def die(msg):
    print(f"figures: {msg}", file=sys.stderr)
    sys.exit(2)


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


def run_cmd(argv, env=None):
    print("figures: running " + " ".join(argv), file=sys.stderr)
    e = dict(os.environ, TB_BIN=TB, **(env or {}))
    p = subprocess.run(argv, cwd=ROOT, env=e)
    return p.returncode


# ---- the sections' runners: each measures into DIR (or reads DIR with --from) and returns
# its figures {NAME: text}; the machine is the sysinfo.json the run left in DIR.

def acct_row(r, runcnt):
    """One row of METHODOLOGY 2.11's table from the run's result.json and run-cnt.txt."""
    cells = {c["tracer"]: c for c in r["cells"]}

    def ovh(name):
        o = cells[name].get("overhead") or {}
        lo, hi = (o.get("ci") or [None, None])[:2]
        if o.get("pct") is None or lo is None:
            die(f"accounting: cell {name}: no overhead with a CI")
        return f"{o['pct']:+.1f}% [{lo:+.1f}, {hi:+.1f}], {o.get('ns_per_op'):.1f} ns/op"

    a = cells["bt-acct"].get("accounting") or {}
    ci = a.get("cost_ci") or [None, None]
    cost = (f"{a['cost_pct']:+.1f}% " + (f"[{ci[0]:+.1f}, {ci[1]:+.1f}]" if None not in ci
                                          else f"({a.get('ci_reason')})")
            if a.get("cost_pct") is not None else "-")
    per = (f": {a['cost_ns_per_op']:+.1f} ns/op, {a['cost_ns_per_run']:.1f} ns per run"
           if a.get("cost_ns_per_op") is not None and a.get("cost_ns_per_run") is not None
           else "")
    kern = (f" ({a['bpf_ns_per_run']:.1f} ns/run in-kernel, {a['bpf_runs_per_op']:.2f} runs/op)"
            if a.get("bpf_ns_per_run") is not None and a.get("bpf_runs_per_op") is not None
            else "")
    return {"table": "\n| run | accounting enabled | accounting disabled | accounting samples' "
            "own cost |\n|---|---|---|---|\n"
            f"| {r.get('started', '?')} | {ovh('bt-acct')} | {ovh('bt-noacct')} | "
            f"{cost} of the timed ns/op{per}{kern} |\n",
            "rounds": f"{r['settings'].get('rounds')} rounds, "
            f"{r['settings'].get('warmup')} warmup",
            "run-cnt": runcnt.strip()}


def run_accounting(out, from_dir):
    if not from_dir and run_cmd(["tools/validate-accounting.sh"], {"VALIDATE_OUT": out}) == 2:
        die("accounting: tools/validate-accounting.sh could not run (its message above)")
    try:
        with open(os.path.join(out, "run", "result.json")) as f:
            r = json.load(f)
        with open(os.path.join(out, "run-cnt.txt")) as f:
            runcnt = f.read()
    except (OSError, ValueError) as e:
        die(f"accounting: {e}")
    return acct_row(r, runcnt)


def demo_prose(r):
    """The figures README.md reads out of the demo's table, from its result.json."""
    cells = {(c["workload"], c["tracer"]): c for c in r["cells"]}
    try:
        base, tp = cells[("getpid", "none")], cells[("getpid", "tracepoints")]
        bpf = cells[("getpid", "bpf-syscall-count")]
        o, ob = tp["overhead"], bpf["overhead"]
        lo, hi = o["ci"]
        elo, ehi = o["ns_per_event_ci"]
        return {"getpid-ns": f"{base['summary']['median']:.0f}",
                "getpid-tp-ns": f"{tp['summary']['median']:.0f}",
                "getpid-tp-pct": f"{o['pct']:+.0f}%, CI {lo:+.0f} to {hi:+.0f}%",
                "getpid-tp-ns-event": f"{o['ns_per_event']:.0f} ns per event recorded "
                f"(CI {elo:.0f} to {ehi:.0f})",
                "getpid-bpf-ns-event": f"{ob['ns_per_event']:.0f}",
                "getpid-tp-events": f"{tp['events_recorded']:,} events, "
                f"{o['events_per_op']:.3f} per op"}
    except (KeyError, TypeError, ValueError) as e:
        die(f"demo: result.json: the getpid cells lack a figure ({e!r})")


def run_demo(out, from_dir):
    if not from_dir:
        st = run_cmd(["sh", "-c", "tools/bench-estimate.sh scenarios/quick.ini --wait > "
                      f"'{out}/estimate.txt'"], {"ESTIMATE_KEEP": out})
        if st:
            die("demo: tools/bench-estimate.sh failed (its message above)")
    try:
        est = open(os.path.join(out, "estimate.txt")).read()
        summary = open(os.path.join(out, "quick.out")).read()
        with open(os.path.join(out, "quick", "result.json")) as f:
            r = json.load(f)
    except (OSError, ValueError) as e:
        die(f"demo: {e}")
    m = re.search(r"plan\s+(\d+) s .*?re-estimate\s+(\d+|-) s .*?actual\s+([\d.]+) s", est)
    if not m:
        die(f"demo: {out}/estimate.txt: no 'plan ... re-estimate ... actual' line")
    end = summary.find("\ndisk:")  # the last line of a run with --no-plots
    if end < 0:
        die(f"demo: {out}/quick.out: no disk: line")
    # the run's own directory, as README names it
    table = summary[:summary.index("\n", end + 1)].replace(
        os.path.join(out, "quick"), "results/<UTC time>-<host>-quick").strip("\n")
    disk = re.search(r"^disk:\s+tracers wrote ([\d.]+ [kMGT]?B)", summary, re.M)
    return dict(demo_prose(r), **{
        "plan-s": m.group(1), "reestimate-s": m.group(2), "wall-s": m.group(3),
        "disk": disk.group(1) if disk else "-", "summary": "\n```\n" + table + "\n```\n"})


def tool_row(c):
    """One row of doc/command-tracer.md's table: a command tracer's cell as the kernel saw it."""
    o, te = c.get("overhead") or {}, c.get("tracer_extra") or {}
    tool = te.get("tool") or {}
    lo, hi = (o.get("ci") or [None, None])[:2]
    ovh = (f"{o['ns_per_op']:+.0f} ({o['pct']:+.1f}% [{lo:+.1f}, {hi:+.1f}])"
           if o.get("ns_per_op") is not None and lo is not None else "-")
    epo = o.get("events_per_op")
    src = te.get("events_from") or tool.get("events_from") or "?"
    if src == "none" and any(p.get("runs") for p in te.get("bpf_programs") or []):
        src = "bpf runs, of the accounting samples"  # tracer_extra is the last timed sample's
    ev = f"{epo:.3f} ({src})" if epo is not None else "-"
    lost = f"{c.get('events_lost')} ({tool.get('lost_from') or '-'})"
    progs = sorted(te.get("bpf_programs") or [], key=lambda p: -(p.get("overhead_share") or 0))
    parts = []
    for i, p in enumerate(progs):
        where = (p.get("attach") or p.get("name") or "?").split(":")[-1]
        if p.get("ns_per_run") is None:
            parts.append(f"{where}: no run figures")
        elif i == 0 and p.get("runs_per_op") is not None and p.get("overhead_share") is not None:
            parts.append(f"{where} {p['runs_per_op']:.3f} runs/op x {p['ns_per_run']:.1f} ns/run"
                         f" = {p['overhead_share']:.0%} of the overhead")
        else:
            parts.append(f"{where} {p['ns_per_run']:.1f} ns/run")
    if not parts:
        nse = o.get("ns_per_event")
        parts.append("none: no BPF" + (f"; {nse:.0f} ns per event" if nse is not None else ""))
    return (f"| {c['workload']} / {c['tracer']} | {ovh} | {ev} | {lost} | {'; '.join(parts)} | "
            f"{o.get('verdict') or '-'} |")


def quick_run(name, scenario, out, from_dir):
    """A section's `tracebench run SCENARIO --quick` into OUT/run (unless --from): its result
    and exit status (kept in OUT/exit)."""
    if not from_dir:
        st = run_cmd([TB, "run", scenario, "--quick", "--wait", "--no-plots",
                      "-o", os.path.join(out, "run")])
        with open(os.path.join(out, "exit"), "w") as f:
            f.write(f"{st}\n")
        if st not in (0, 1):
            die(f"{name}: the run exited {st}")
    try:
        with open(os.path.join(out, "run", "result.json")) as f:
            return json.load(f), open(os.path.join(out, "exit")).read().strip()
    except (OSError, ValueError) as e:
        die(f"{name}: {e}")


def run_command_tracer(out, from_dir):
    r, st = quick_run("command-tracer", "scenarios/real-tools.ini", out, from_dir)
    rows = [tool_row(c) for c in r["cells"] if not c.get("baseline")]
    # "line 70: [tracer runqlat.bt]: command is unsupported here: WHY: DETAIL" -> "runqlat.bt (WHY)"
    skipped = "; ".join(
        re.sub(r"^.*?\[tracer ([^]]*)\]: .*? here: (.*?)(?:: | \(|$).*", r"\1 (\2)", u)
        for u in r.get("unsupported") or [] if isinstance(u, str)) or "none"
    return {"exit": st, "skipped": skipped,
            "table": "\n| cell | overhead ns/op [95% CI] | events/op (from) | lost | the programs, "
            "as the kernel counted them | verdict |\n|---|---|---|---|---|---|\n"
            + "\n".join(rows) + "\n"}


def run_validation(out, from_dir):
    if not from_dir and run_cmd(["tools/validate.sh"], {"VALIDATE_OUT": out}) == 2:
        die("validation: tools/validate.sh could not run (its message above)")
    try:
        table = open(os.path.join(out, "table.txt")).read()
        with open(os.path.join(out, "validation.json")) as f:
            v = json.load(f)
        decided = [c for c in v["checks"] if not c.get("info")]
        failed = [f"{c['check']} {c['item']}".strip() for c in decided if not c["pass"]]
    except (OSError, ValueError, KeyError, TypeError) as e:
        die(f"validation: {out}: not the output of tools/validate.sh ({e!r})")
    if (v.get("meta") or {}).get("quick"):
        die(f"validation: {out} is a VALIDATE_QUICK smoke test: its figures are no validation")
    return {"output": "\n```\n" + table.rstrip("\n") + "\n```\n",
            "result": f"{len(decided) - len(failed)} of {len(decided)} checks passed" +
            (f"; failed: {', '.join(failed)}" if failed else "")}


# doc/workloads.md's names for the workloads at bench-workloads' settings (their defaults)
WL_LABEL = {"cpu": "cpu (1000 steps)", "read": "read (4K, page cache)", "write": "write (4K)",
            "open-close": "open-close (depth 3)", "pipe-pingpong": "pipe-pingpong (processes)",
            "mmap-touch": "mmap-touch (256K = 64 faults)", "tcp-rr": "tcp-rr (1 byte)",
            "udp-rr": "udp-rr (1 byte)", "nanosleep": "nanosleep (50 us, default slack)"}


def fmt_rate(x):
    return (f"{x / 1e9:.2f}e9" if x >= 1e9 else f"{x / 1e6:.2f} M" if x >= 1e6 else
            f"{x / 1e3:.0f} k" if x >= 1e5 else f"{x / 1e3:.1f} k" if x >= 1e4 else f"{x:.0f}")


def run_workloads(out, from_dir):
    if not from_dir:
        # make figures builds build/bench-workloads first
        st = run_cmd(["sh", "-c", "TB_BENCH=${TB_BENCH:-build/bench-workloads} "
                      "TB_HELPERS=${TB_HELPERS:-build/helpers} "
                      f"tools/bench-workloads.sh > '{out}/bench.txt'"])
        if st:
            die("workloads: tools/bench-workloads.sh failed")
    try:
        text = open(os.path.join(out, "bench.txt")).read()
    except OSError as e:
        die(f"workloads: {e}")
    rows, perf = [], {}
    for m in re.finditer(r"^(\S+)\s+([\d.]+)\s+(\d+)\s+([\d.]+)%\s+\d+$", text, re.M):
        ns, rate, cv = float(m.group(2)), float(m.group(3)), float(m.group(4))
        label = WL_LABEL.get(m.group(1), m.group(1))
        nsf = f"{ns:.2f}" if ns < 10 else f"{ns:.0f}"
        cvf = f"{cv:.1f}%" if cv < 10 else f"{cv:.0f}%"
        rows.append(f"| {label} | {nsf} | {fmt_rate(rate)} | {cvf} |")
    for m in re.finditer(r"^(perf bench \S+ \S+|tracebench \S+).*?median\s+([\d.]+)\s+min\s+"
                         r"([\d.]+)", text, re.M):
        perf[m.group(1)] = (float(m.group(2)), float(m.group(3)))
    head = re.search(r"^== every workload.*?(\d+) samples of (\S+), pinned to CPU (\d+)", text, re.M)
    if not rows or not head or len(perf) != 4:
        die(f"workloads: {out}/bench.txt: not the output of tools/bench-workloads.sh")

    def pair(bench, ours):
        (bm, bn), (tm, tn) = perf[bench], perf[ours]
        return f"{bm:.1f} / {bn:.1f} | ", f"{tm:.1f} / {tn:.1f} | {tm / bm:.3f} / {tn / bn:.3f} |"

    sb, st_ = pair("perf bench syscall basic", "tracebench getpid")
    pb, pt = pair("perf bench sched pipe", "tracebench pipe-pingpong")
    return {"settings": f"{head.group(1)} samples of {head.group(2)} after a warmup, pinned to "
            f"CPU {head.group(3)}",
            "table": "\n| workload | ns/op | ops/s | CV |\n|---|---:|---:|---:|\n" +
            "\n".join(rows) + "\n",
            "perf": "\n| perf bench | median / min ns/op | tracebench | median / min ns/op | "
            "ratio median / min |\n|---|---:|---:|---:|---:|\n"
            f"| syscall basic (getppid) | {sb}getpid call=getppid | {st_}\n"
            f"| sched pipe (2 processes) | {pb}pipe-pingpong | {pt}\n"}


def backend_row(c):
    """One row of METHODOLOGY's backends table: cost per event, record size, consumer CPU."""
    o, te = c.get("overhead") or {}, c.get("tracer_extra") or {}
    s = [x for x in c["samples"] if not x["warmup"] and not x["failed"] and not x.get("accounting")
         and not x.get("rerun")]
    ops = sum(x["ops"] for x in s) or 1
    cpu = sum(x.get("tracer_cpu_s") or 0 for x in s) / ops * 1e9
    lo, hi = (o.get("ns_per_event_ci") or [None, None])[:2]
    nse = (f"{o['ns_per_event']:.0f} [{lo:.0f}, {hi:.0f}]" if o.get("ns_per_event") is not None
           and lo is not None else "- (" + (o.get("verdict") or "?") + ")")
    rb = te.get("record_bytes") or te.get("bytes_per_event")
    how = te.get("ringbuf_wakeup") or (f"watermark {te['perfbuf_watermark']}"
                                        if "perfbuf_watermark" in te else te.get("consumer") or "-")
    if te.get("consumer") == "file":  # a BPF reader's file sink (consumer = file), beside its wakeups
        how += " / file"
    return (f"| {c['workload']} / {c['tracer']} | {nse} | {f'{rb:.0f}' if rb else '-'} | {how} | "
            f"{cpu:.0f} | {(c.get('proof') or {}).get('outcome', '-')} |")


def run_backends(out, from_dir):
    r, _ = quick_run("backends", "scenarios/backends.ini", out, from_dir)
    rows = [backend_row(c) for c in r["cells"] if not c.get("baseline")]
    sw = [w for w in r.get("sweeps") or [] if w.get("section") == "rb-payload"]
    m = (sw[0].get("model") or {}) if sw else {}
    ci = m.get("slope_ns_ci") or [None, None]
    slope = (f"{m['slope_ns']:.2f} ns per byte [{ci[0]:.2f}, {ci[1]:.2f}] over "
             f"{m.get('points')} points" if m.get("slope_ns") is not None and ci[0] is not None
             else "no fit")
    if m and not m.get("accepted"):
        slope += f" (refused: {m.get('why_not')})"
    return {"table": "\n| cell | ns/event [95% CI] | bytes per record | wakeups / sink | consumer "
            "CPU ns/op | proof |\n|---|---|---|---|---|---|\n" + "\n".join(rows) + "\n",
            "payload-slope": slope}


def run_rearm(out, from_dir):
    if not from_dir:
        st = run_cmd(["sh", "-c", f"REARM_JSON='{out}/rearm.json' python3 tools/bench-rearm.py"])
        if st:
            die("rearm: tools/bench-rearm.py failed")
    try:
        rows = json.load(open(os.path.join(out, "rearm.json")))
        lines = [f"| {r['family']} | {r['mode']} | {r['setup_ms']:.1f} | {r['teardown_ms']:.1f} | "
                 f"{r['measuring']:.0f}% | {r['pct']:+.1f}% [{r['lo']:+.1f}, {r['hi']:+.1f}] | "
                 f"{r['verdict']} |"
                 for r in rows["rows"]]
        settings = f"{rows['rounds']} rounds of {rows['duration']} samples per run"
    except (OSError, ValueError, KeyError, TypeError) as e:
        die(f"rearm: {out}/rearm.json: {e}")
    return {"settings": settings,
            "table": "\n| family | mode | setup ms | teardown ms | measuring | overhead [95% CI] | "
            "verdict |\n|---|---|---:|---:|---:|---|---|\n" + "\n".join(lines) + "\n"}


RUNNERS = {"backends": run_backends, "rearm": run_rearm, "accounting": run_accounting, "demo": run_demo, "command-tracer": run_command_tracer,
           "workloads": run_workloads, "validation": run_validation}


def run(d, names, from_dir):
    for name in names:
        if name not in d["sections"]:
            die(f"no section {name} in doc/figures.json (sections: "
                f"{', '.join(sorted(d['sections']))})")
        if name not in RUNNERS:
            die(f"section {name}: no runner yet; its figures stay as measured on "
                f"{d['sections'][name]['machine']['date']} by: {d['sections'][name]['command']}")
    for name in names:
        sec = d["sections"][name]
        out = from_dir or tempfile.mkdtemp(prefix=f"tb-figures-{name}.")
        if not from_dir:
            with open(os.path.join(out, "sysinfo.json"), "w") as f:
                json.dump(sysinfo_now(), f)
        try:
            with open(os.path.join(out, "sysinfo.json")) as f:
                si = json.load(f)
        except (OSError, ValueError) as e:
            die(f"{name}: {out}/sysinfo.json: {e}")
        figs = RUNNERS[name](out, from_dir)
        end = os.path.join(out, "load-end")
        if not from_dir:
            with open(end, "w") as f:
                f.write(loadavg() + "\n")
        sec["machine"] = machine(si, open(end).read().strip() if os.path.exists(end) else None)
        sec["status"] = "measured by make figures"
        figs["machine"] = machine_text(sec["machine"])
        stale = set(sec["figures"]) - {f"{name}.{k}" for k in figs}
        if stale:
            die(f"section {name}: its runner no longer gives {', '.join(sorted(stale))}")
        sec["figures"] = {f"{name}.{k}": v for k, v in figs.items()}
        save(d)
        print(f"figures: {name}: {len(figs)} figures from {out}", file=sys.stderr)
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
            print(f"{name:<16} {len(s['figures']):3d} figures  {s.get('status')}  "
                  f"({s.get('command')}; {'runner' if name in RUNNERS else 'no runner yet'}; "
                  f"{s['machine'].get('date')})")
        return 0
    if argv[0] == "run":
        args, from_dir = argv[1:], None
        if "--from" in args:
            i = args.index("--from")
            if i + 1 >= len(args):
                die("--from needs a directory")
            from_dir = os.path.abspath(args[i + 1])
            args = args[:i] + args[i + 2:]
            if len(args) != 1:
                die("--from reads one section's run: name one section")
        run(d, args or sorted(RUNNERS), from_dir)
        return 0
    die(f"unknown command {argv[0]} (check, run, render, list)")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
