# SPDX-License-Identifier: GPL-2.0
"""tools/figures.py's runners of the sections measured by `tracebench run` of a scenario (and by
`tracebench sysinfo`, bench-estimate and bench-workloads): each measures into OUT (or reads OUT
with --from) and returns its figures {NAME: text}; figures.py stamps the machine from the
sysinfo.json it left in OUT. See tools/figures.py."""
import json
import os
import re

from figures_lib import (TB, cells_of, ci_text, code_block, die, median, read_json, read_text,
                         run_cmd, span, table)


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
        "disk": disk.group(1) if disk else "-", "summary": code_block(table)})


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


def quick_run(name, scenario, out, from_dir, quick=True):
    """A section's `tracebench run SCENARIO --quick` (quick: else the full run) into OUT/run
    (unless --from): its result and exit status (kept in OUT/exit)."""
    if not from_dir:
        st = run_cmd([TB, "run", scenario] + (["--quick"] if quick else []) +
                     ["--wait", "--no-plots", "-o", os.path.join(out, "run")])
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
    head = re.search(r"^== every workload.*?(\d+) samples of (\S+), pinned to CPU (\d+)", text,
                     re.M)
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


def unsupported(r):
    """{section: why} of the sections a run left out as unsupported here ("line N: [tracer X]:
    ... is unsupported here: WHY")."""
    out = {}
    for u in r.get("unsupported") or []:
        m = re.match(r"^.*?\[(?:tracer|workload) ([^]]*)\]: .*?unsupported here: (.*)$", str(u))
        if m:
            out[m.group(1)] = m.group(2)
    return out


# METHODOLOGY 7.1's rows: label, the tracer sections, the published figure and its source
# (../shared/REFERENCES.md; published, not measured: written here once).
PROBE_ROWS = [
    ("BPF tp_btf on sys_enter, empty (`k-tp_btf-empty`)", ["k-tp_btf-empty"], "15",
     "ebpf_exporter, \"tracepoint\" (tp_btf/sys_enter), no map"),
    ("BPF raw_tp on sys_enter, empty (`k-raw_tp-empty`)", ["k-raw_tp-empty"], "8",
     "BPF selftests bench, 2020 (trig-rawtp)"),
    ("BPF tp_btf, hash-map count (`k-tp_btf-count`)", ["k-tp_btf-count"], "35",
     "ebpf_exporter, \"tracepoint\" simple map"),
    ("BPF raw_tp, hash-map count (`k-raw_tp-count`)", ["k-raw_tp-count"], "—", ""),
    ("BPF tracepoint syscalls:sys_enter_getpid, empty (`k-tracepoint-empty`)",
     ["k-tracepoint-empty"], "41", "BPF selftests bench, 2020 (trig-tp)"),
    ("BPF tracepoint, hash-map count (`k-tracepoint-count`)", ["k-tracepoint-count"], "—", ""),
    ("BPF fentry, empty / count (`k-fentry-*`)", ["k-fentry-empty", "k-fentry-count"],
     "+3 (2020 bench); +24 / +42 (ebpf_exporter)", "BPF selftests bench, 2020; ebpf_exporter"),
    ("BPF fexit, empty / count (`k-fexit-*`)", ["k-fexit-empty", "k-fexit-count"], "—", ""),
    ("BPF kprobe, empty / count (`k-kprobe-*`)", ["k-kprobe-empty", "k-kprobe-count"],
     "+47 (2020 bench); +137 / +160 (ebpf_exporter)", "BPF selftests bench, 2020; ebpf_exporter"),
    ("BPF kretprobe, empty / count (`k-kretprobe-*`)", ["k-kretprobe-empty", "k-kretprobe-count"],
     "—", ""),
    ("BPF kprobe_multi, empty / count (`k-kprobe_multi-*`)",
     ["k-kprobe_multi-empty", "k-kprobe_multi-count"], "—", ""),
    ("ftrace event syscalls:sys_enter_getpid, written to the ring buffer (`k-ftrace-event`)",
     ["k-ftrace-event"], "about 290 (a 128-byte event)", "TRACEPOINT_BENCHMARK"),
    ("BPF tp_btf on sched_switch, count (`s-bpf-switch`, per switch away from the workload; it "
     "also runs on the switch back)", ["s-bpf-switch"], "—", ""),
    ("ftrace event sched:sched_switch (`s-ftrace-switch`, two per round trip)",
     ["s-ftrace-switch"], "—", ""),
    ("LTTng-UST tracepoint, per-user buffers to disk (`l-lttng-ust`)", ["l-lttng-ust"], "—",
     "none confirmed (Gebai & Dagenais 2018 measure LTTng-UST on older machines; not re-read "
     "here)"),
    ("BPF USDT, empty / count (`u-usdt-*`)", ["u-usdt-empty", "u-usdt-count"], "309",
     "Olsa's USDT rows of the BPF selftests' uprobe bench (usdt-nop), Linux commit 0c4fc6bd6105"),
    ("BPF uprobe, empty / count (`u-uprobe-*`)", ["u-uprobe-empty", "u-uprobe-count"],
     "313; about 1670", "the same commit (uprobe-nop); ebpf_exporter (a C function through cgo, "
     "M1 in QEMU)"),
    ("ftrace uprobe event (`u-ftrace-uprobe`)", ["u-ftrace-uprobe"], "—", ""),
    ("BPF uretprobe, empty / count (`u-uretprobe-*`)", ["u-uretprobe-empty", "u-uretprobe-count"],
     "—", ""),
    ("ftrace uretprobe event (`u-ftrace-uretprobe`)", ["u-ftrace-uretprobe"], "—", ""),
]
# The probe sites of METHODOLOGY 7.1: label, (workload, tracer), the kernel selftests' row.
SITE_ROWS = [("nop (`p-uprobe-nop`)", ("site-nop", "p-uprobe-nop"), "uprobe-nop"),
             ("push (`p-uprobe-push`)", ("site-push", "p-uprobe-push"), "uprobe-push"),
             ("ret (`p-uprobe-ret`)", ("site-ret", "p-uprobe-ret"), "uprobe-ret"),
             ("5-byte nop (`p-uprobe-nop5`)", ("site-nop5", "p-uprobe-nop5"), "uprobe-nop5"),
             ("USDT on a 5-byte nop (`p-usdt-nop5`)", ("site-usdt5", "p-usdt-nop5"), "usdt-nop5"),
             ("USDT on sys/sdt.h's nop, same run (`u-usdt-empty` on `usercall-c1`)",
              ("usercall-c1", "u-usdt-empty"), "usdt-nop")]


def probe_cost(r, tracer):
    """A probe type's ns/event: its rate model's cost per event where one was fitted (the
    cells' own beside it when the model was refused), else its one cell's, else its cells'
    (their median is the value); (text, value)."""
    m = {x["tracer"]: x for x in r.get("rate_models") or []}.get(tracer)
    cells = [c for c in r["cells"] if c["tracer"] == tracer]
    own = [(c.get("overhead") or {}).get("ns_per_event") for c in cells]
    if m and m.get("cost_ns_per_event") is not None:
        t = ci_text(m["cost_ns_per_event"], m.get("cost_ns_per_event_ci"))
        if not m.get("accepted"):
            t += f" (cells: {span(own, '.0f')})"
        return t, m["cost_ns_per_event"]
    if len(cells) == 1 and own[0] is not None:
        o = cells[0]["overhead"]
        return ci_text(own[0], o.get("ns_per_event_ci")), own[0]
    if any(x is not None for x in own):
        return f"no rate model (cells: {span(own, '.0f')})", median(own)
    return "-", None


def claim_bands(rows):
    """The seed documents' claim ("low double-digit nanoseconds") read off the table."""
    bands = [("under 40 ns", []), ("40 to 99 ns", []), ("100 ns or more", [])]
    for label, v in rows:
        bands[0 if v < 40 else 1 if v < 100 else 2][1].append(f"{label} {v:.0f}")
    return "; ".join(f"{b}: {', '.join(x) if x else 'none'}" for b, x in bands)


def run_probe_types(out, from_dir):
    r, _ = quick_run("probe-types", "scenarios/probe-types.ini", out, from_dir, quick=False)
    skipped, rows, refused, val = unsupported(r), [], [], {}
    for label, tracers, pub, src in PROBE_ROWS:
        if all(t in skipped for t in tracers):
            refused.append((label, tracers, pub, skipped[tracers[0]]))
            continue
        costs = [probe_cost(r, t) for t in tracers]
        val.update({t: c[1] for t, c in zip(tracers, costs)})
        rows.append([label, " / ".join(c[0] for c in costs), pub, src])
    if refused:
        kinds = [(re.sub(r"^BPF (\S+),.*", r"\1", x[0]), x[2]) for x in refused]
        pub = "; ".join(f"{k} {p}" for k, p in kinds if p != "—")
        by_why = {}
        for (k, _), x in zip(kinds, refused):
            by_why.setdefault(x[3], []).append(k)
        why = "; ".join(f"{', '.join(ks)}: {w}" for w, ks in by_why.items())
        rows.append([f"BPF {', '.join(k for k, _ in kinds)}", "refused here", pub or "—", why])
    models = {m["tracer"]: m for m in r.get("rate_models") or []}
    fixed = [f"`{t}` ({ci_text(m['fixed_ns'], m.get('fixed_ns_ci'), '.0f', True)} ns)"
             for t, m in sorted(models.items()) if m.get("fixed_ns") is not None and
             None not in (m.get("fixed_ns_ci") or [None, None]) and
             (m["fixed_ns_ci"][0] > 0 or m["fixed_ns_ci"][1] < 0)]

    def diff(kinds):
        return span([val[f"{k}-count"] - val[f"{k}-empty"] for k in kinds
                     if val.get(f"{k}-count") is not None and val.get(f"{k}-empty") is not None],
                     ".0f", "ns")

    def rng(*ts):
        return span([val.get(t) for t in ts], ".0f", "ns")

    base = cells_of(r)
    plain = (base.get(("usercall-c1", "none")) or {}).get("summary", {}).get("median")
    lt = (base.get(("lttng-c1", "none")) or {}).get("summary", {}).get("median")
    kept = [(f"`{t}`", v) for t, v in val.items() if v is not None]
    return {"table": table(["probe type (tracer section)", "ns/event here [95% CI]", "published",
                            "source of the published figure"], rows),
            "intercepts": ("all contain 0" if not fixed else
                           "all contain 0 except " + ", ".join(fixed)),
            "count-cost": f"{diff(['k-tracepoint', 'k-raw_tp', 'k-tp_btf'])} on the kernel types "
            f"and {diff(['u-uprobe', 'u-uretprobe', 'u-usdt'])} on the user types",
            "user-ns": f"a BPF uprobe costs {rng('u-uprobe-empty', 'u-uprobe-count')} here and a "
            f"uretprobe {rng('u-uretprobe-empty', 'u-uretprobe-count')}",
            "claim": claim_bands(sorted(kept, key=lambda x: x[1])),
            "lttng-baseline": "-" if not plain or not lt else
            f"{lt:.1f} against {plain:.1f} ns per op, {100 * abs(lt / plain - 1):.1f}% apart"}


def site_figures(out):
    """METHODOLOGY 7.1's probe sites, from the probe-types run."""
    r = read_json("probe-sites", out, "run", "result.json")
    cells, rows, ns = cells_of(r), [], {}
    for label, key, row in SITE_ROWS:
        o = (cells.get(key) or {}).get("overhead") or {}
        ns[key[1] if key[0] != "usercall-c1" else "usdt"] = o.get("ns_per_event")
        rows.append([label, "-" if o.get("ns_per_event") is None else
                     ci_text(o["ns_per_event"], o.get("ns_per_event_ci"), ",.0f"), row])

    def ratio(a, b):
        x, y = ns.get(a), ns.get(b)
        return "-" if not x or not y else f"{x:,.0f} against {y:,.0f} ns, {x / y:.2f} times"
    ret, nop = ns.get("p-uprobe-ret"), ns.get("p-uprobe-nop")
    return {"table": table(["site (tracer section)", "ns/event here [95% CI]",
                            "kernel selftests' row"], rows),
            "nop5": ratio("p-uprobe-nop5", "p-uprobe-nop"),
            "usdt5": ratio("p-usdt-nop5", "usdt"),
            "ret": "-" if not ret or not nop else f"{ret / nop:.0f} times"}


def kib(n):
    return f"{n >> 20} MiB" if n >= 1 << 20 and not n % (1 << 20) else f"{n >> 10} KiB"


def run_reference(out, from_dir):
    """The machine `make figures` ran on, as `tracebench sysinfo` and `tracebench list` see it
    (METHODOLOGY.md, "Reference machine")."""
    if not from_dir:
        if run_cmd(["sh", "-c", f"'{TB}' list > '{out}/list.txt' 2>&1"]):
            die("reference: tracebench list failed")
    si = read_json("reference", out, "sysinfo.json")
    listed = read_text("reference", out, "list.txt")
    cpu, k, v = si.get("cpu") or {}, si.get("kernel") or {}, si.get("virtualization") or {}
    topo, mit = si.get("topology") or {}, si.get("mitigations") or {}
    caches = {c.get("name"): c for c in topo.get("caches") or []}
    cache = ", ".join(f"{n} {kib(c['size'])}" + (f" x{c['count']}" if c.get("count", 1) > 1 else "")
                      for n, c in sorted(caches.items())
                      if n in ("L2", "L3") and isinstance(c.get("size"), int))
    freq, idle, clk = si.get("cpufreq") or {}, si.get("cpuidle") or {}, si.get("clocksource") or {}
    smt = (si.get("smt") or {}).get("control")
    # the plugins and attach types this kernel refuses, as `tracebench list` says
    refused = sorted({re.sub(r"\s+.*", "", m.group(1)) for m in re.finditer(
        r"^  (\S+)\s+UNSUPPORTED", listed, re.M)} | {m.group(1) for m in re.finditer(
            r"attach = (\S+)\s+unsupported here", listed)})
    tools = si.get("tools") or {}
    up = k.get("uprobes") or {}
    lines = [
        f"a {v.get('type') or 'bare-metal'} guest" if v.get("virtualized") else "bare metal",
        f"kernel {k.get('release')} ({k.get('version')})",
        f"{cpu.get('online_count')} CPUs of an {cpu.get('model')} ({cpu.get('vendor')} family "
        f"{cpu.get('family')} model {cpu.get('model_number')}), SMT control {smt}, "
        f"{topo.get('numa_nodes')} NUMA node(s)" + (f", {cache}" if cache else "") +
        f"; {round((si.get('memory') or {}).get('total_kb', 0) / 2**20)} GiB RAM",
        f"cpufreq driver {freq.get('driver')}, governor {freq.get('governor')}; cpuidle driver "
        f"{idle.get('driver')}; clocksource {clk.get('current')}",
        "mitigations: " + ", ".join(f"{n} ({mit[n]})" for n in (
            "spectre_v2", "spec_rstack_overflow", "spec_store_bypass", "meltdown") if n in mit),
        "refused by this kernel (`tracebench list`): " + (", ".join(refused) or "nothing") +
        "; uprobe syscall " + ("yes" if up.get("uprobe_syscall") else "no") +
        ", uretprobe syscall " + ("yes" if up.get("uretprobe_syscall") else "no") +
        ", uprobe nop5 optimisation " + ("yes" if up.get("uprobe_nop5_optimization") else "no"),
        "; ".join(str(tools[t]) for t in ("perf", "bpftool", "bpftrace", "lttng") if t in tools),
    ]
    return {"fingerprint": str(si.get("fingerprint")),
            "description": "\n" + "".join(f"- {x};\n" for x in lines[:-1]) + f"- {lines[-1]}.\n"}



def sweep_name(w):
    return f"{w['kind']} `{w['section']}`: {w['key']} against `{w.get('against')}`"


def slope_text(w):
    """A sweep's line: its slope with the CI, or why it was refused."""
    m = w.get("model") or {}
    if m.get("accepted"):
        t = ci_text(m["slope_ns"], m.get("slope_ns_ci"), ".2f") + f" ns per {w.get('unit')}"
    else:
        t = f"refused: {m.get('why_not') or 'no fit'}"
    k = w.get("knee") or {}
    if k.get("accepted"):
        t += f"; a knee at {k.get('knee_x'):g}" + (" (saturating)" if k.get("saturating") else "")
    return t


def filter_text(w, short=False):
    """A selectivity sweep's kept and rejected event, in ns (short: for the table, whose line
    column says why a line was refused)."""
    acc, rej = w.get("accepted_ns_per_event"), w.get("rejected_ns_per_event")
    if acc is None:
        return "-"
    t = f"the kept event cost {acc:.1f} ns"
    m = w.get("model") or {}
    if rej is None and m.get("nonlinear"):
        return t + (f", the rejected one unknown: the line bends (a quadratic term, p "
                    f"{m.get('p_quadratic', float('nan')):.2g})")
    if rej is None:
        return t + (", the rejected one unknown (no line)" if short else
                    f", the rejected one unknown (the line was {slope_text(w)})")
    if w.get("rejected_from_point"):
        why = (f"the line bends, quadratic p {m.get('p_quadratic', float('nan')):.2g}"
               if m.get("nonlinear") else "the line giving none")
        t += (f", a rejected one {ci_text(rej, w.get('rejected_ns_per_event_ci'))} ns read off "
              f"the point that rejects every event ({why})")
        if w.get("rejected_within_noise"):
            t += ": not told apart from a kept one"
        return t
    t += (f", a rejected one {ci_text(rej, w.get('rejected_ns_per_event_ci'))} ns "
          f"(slope {ci_text(m['slope_ns'], m.get('slope_ns_ci'), '.0f')} ns per {w.get('unit')})")
    if w.get("rejected_within_noise"):
        t += ": not told apart from a kept one (the slope's CI includes 0)"
    elif not m.get("accepted"):
        t += f" (r2 {m.get('r2', float('nan')):.3f}: a small saving against the scatter)"
    return t


def run_sweeps(out, from_dir):
    r, _ = quick_run("sweeps-quick", "scenarios/sweeps.ini", out, from_dir)
    sw = r.get("sweeps") or []
    rows = []
    for w in sw:
        held = w.get("held_events_per_s")
        rate = "-" if held is None else \
            f"held {fmt_rate(held)}/s at {w['key']} = {w.get('held_value')}" + (
            "" if w.get("lost_events_per_s") is None else
            f", lost from {fmt_rate(w['lost_events_per_s'])}/s")
        rows.append([sweep_name(w), slope_text(w), filter_text(w, True), rate])

    def of(section, against):
        w = next((x for x in sw if x["section"] == section and x.get("against") == against), None)
        return "not in the run" if w is None else filter_text(w)
    return {"table": table(["sweep", "line (ns per unit, 95% CI)", "kept and rejected event",
                            "event rate"], rows),
            "ft-filter": of("getpid-mix", "ft-filter"),
            "bpf-filter": of("getpid-mix", "bpf-filter"),
            "ft-pid": of("getpid-pid", "ft-pid"), "bpf-pid": of("getpid-pid", "bpf-pid")}


RUNNERS = {"demo": run_demo, "command-tracer": run_command_tracer, "workloads": run_workloads,
           "backends": run_backends, "probe-types": run_probe_types, "reference": run_reference,
           "sweeps-quick": run_sweeps}
FED = {"probe-sites": ("probe-types", site_figures)}
