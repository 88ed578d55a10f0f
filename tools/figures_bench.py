# SPDX-License-Identifier: GPL-2.0
"""tools/figures.py's runners of the sections measured by the validation and benchmark scripts
(make validate and its parts, make bench-*): each measures into OUT (or reads OUT with --from)
and returns its figures {NAME: text}; a reader of a section fed by another's run reads that
run's OUT. See tools/figures.py."""
import json
import os
import re
import sys

from figures_lib import (OPTS, TB, ci_text, code_block, die, measured_samples, median, read_json,
                         read_text, run_cmd, span, table)


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


def script_tally(name, script, txt, tally, key):
    """A validation script's run into OUT/run (its VALIDATE_OUT; read as it is with --from):
    its output file txt as a block figure KEY without the machine line (the section's stamp
    replaces it) and the tally line (the one starting with TALLY) as `tally`."""
    def run(out, from_dir):
        rdir = os.path.join(out, "run")
        if not from_dir and run_cmd([script], {"VALIDATE_OUT": rdir}) == 2:
            die(f"{name}: {script} could not run (its message above)")
        lines = [x.rstrip() for x in read_text(name, rdir, txt).rstrip("\n").splitlines()]
        found = [x for x in lines if x.startswith(tally)]
        if not found:
            die(f"{name}: {rdir}/{txt}: no line starting '{tally}'")
        body = [x for x in lines if not x.startswith(("machine:", tally))]
        return {key: code_block("\n".join(body)), "tally": found[0].split(": ", 1)[1]}
    return run


run_services_delay = script_tally("services-delay", "tools/validate-services-delay.sh",
                                  "delay.txt", "known delay on services:", "checks")
run_services_aa = script_tally("services-aa", "tools/validate-services.sh", "services.txt",
                               "A/A services:", "pairs")


def run_validate_sweeps(out, from_dir):
    """make validate-sweeps into OUT/run (its VALIDATE_OUT; read as it is with --from): each
    repeat's line as a block, the delay's and top's tallies and the script's verdict."""
    rdir = os.path.join(out, "run")
    if not from_dir and run_cmd(["tools/validate-sweeps.sh"], {"VALIDATE_OUT": rdir}) == 2:
        die("validate-sweeps: tools/validate-sweeps.sh could not run (its message above)")
    lines = [x.rstrip() for x in read_text("validate-sweeps", rdir, "sweeps.txt").splitlines()]
    got = {}
    for x in lines:
        for key in ("delay:", "top:", "PASS:", "FAIL:"):
            if x.startswith(key):
                got[key] = x.split(": ", 1)[1]
    if "delay:" not in got or "top:" not in got or not ("PASS:" in got or "FAIL:" in got):
        die(f"validate-sweeps: {rdir}/sweeps.txt: not the script's output (no delay, top or "
            "verdict line)")
    return {"repeats": code_block("\n".join(x for x in lines if x.startswith("repeat"))),
            "delay": got["delay:"], "top": got["top:"],
            "verdict": ("PASS: " + got["PASS:"]) if "PASS:" in got else "FAIL: " + got["FAIL:"]}


def episodes(k):
    """A coverage row's episodes as "run NN z +x.x (baseline +y.y%)", or "" without any."""
    return ", ".join(f"run {e['run']} z {e['z']:+.1f}" +
                     (f" ({100 * e['baseline_shift']:+.1f}%)"
                      if isinstance(e.get("baseline_shift"), (int, float)) else "")
                     for e in k.get("episodes") or [])


def at_speed_q(k):
    """A coverage row's Cochran's Q around the fit on the baseline's ns/op (the machine's speed)
    beside the plain one, or "" for a study that predates it."""
    h, s = k.get("cochran_q"), k.get("cochran_q_at_speed")
    if not h or not s:
        return ""
    return (f" (Cochran's Q {h['q']:.1f} ({h['df']}), run-to-run sd {h['tau']:.2f} "
            f"{k.get('unit', '')}; at the run's speed {s['q']:.1f} ({s['df']}), "
            f"{s['tau']:.2f} {k.get('unit', '')})")


def run_coverage_loaded(out, from_dir):
    """METHODOLOGY 9's coverage under load (make validate-coverage-loaded into OUT/coverage, its
    COVERAGE_LOAD and COVERAGE_RUNS from the environment, 20 runs per level unless set):
    tracebench's own coverage per question and load level, the Wilson interval and mean
    half-width, and the study's check."""
    env = {k: os.environ.get(k, v) for k, v in (("COVERAGE_LOAD", "0,1,2"),
                                                ("COVERAGE_RUNS", "20"))}
    if not from_dir and run_cmd(["sh", "-c", f"COVERAGE_OUT='{out}/coverage' python3 "
                                 f"tools/validate-coverage.py > '{out}/coverage.txt'"],
                                env) == 2:
        die("coverage-loaded: tools/validate-coverage.py could not run (its message above)")
    text = read_text("coverage-loaded", out, "coverage.txt")
    check = re.search(r"^check \(95% unloaded, 90% under load, Wilson upper end\): (\w+)$",
                      text, re.M)
    cdir = os.path.join(out, "coverage")
    levels = sorted(int(d.split("-", 1)[1]) for d in
                    (os.listdir(cdir) if os.path.isdir(cdir) else [])
                    if re.fullmatch(r"load-\d+", d))
    if not check or not levels:
        die(f"coverage-loaded: {out}/coverage.txt: not a loaded study's output")
    rows, speed, comb = [], [], []
    for lv in levels:
        c = read_json("coverage-loaded", cdir, f"load-{lv}", "coverage.json")
        if c.get("combined"):
            comb.append(f"{lv} busy CPU{'' if lv == 1 else 's'}: {combined_text(c, False)}")
        rs = [f"{q} {est[0]['baseline_r']:+.2f}" + at_speed_q(est[0])
              for q, est in (c.get("questions") or {}).items()
              if est and isinstance(est[0].get("baseline_r"), (int, float))]
        if rs:
            speed.append(f"{lv} busy CPU{'' if lv == 1 else 's'}: {', '.join(rs)}")
        for q, est in (c.get("questions") or {}).items():
            k = est[0] if est else {}
            if not k.get("trials"):
                continue
            w = k["wilson95"]
            other = {e.get("estimator"): e for e in est}
            plain = other.get("tracebench vs plain fit") or {}
            fast = other.get("tracebench at the run's speed") or {}
            rows.append([q, str(lv), f"{k['covered']}/{k['trials']} "
                         f"({100 * k['coverage']:.1f}%)", f"{100 * w[0]:.1f}-{100 * w[1]:.1f}%",
                         f"{k['mean_half_width']:.2f} {k.get('unit', '')}".rstrip(),
                         f"{plain['covered']}/{plain['trials']}" if plain.get("trials") else "",
                         f"{fast['covered']}/{fast['trials']}" if fast.get("trials") else "",
                         episodes(k)])
    left = re.findall(r"^load (\d+): left out", text, re.M)
    return {"table": table(["question", "busy CPUs", "covered", "Wilson 95%",
                            "mean half-width", "vs the plain fit", "at the run's speed",
                            "episodes (baseline shift)"], rows),
            "speed": "; ".join(speed) or "not computed",
            "combined": "; ".join(comb) or "not computed",
            "check": check.group(1) + ("" if not left else
                                       f" (load {', '.join(left)} left out: too few CPUs)")}


def run_bench_services(out, from_dir):
    """make bench-services into OUT/bench.txt: its table (each service's none and BPF counter
    cells: throughput, CV, loss with its CI, half-width) as a block."""
    txt = os.path.join(out, "bench.txt")
    if not from_dir and run_cmd(["sh", "-c", f"tools/bench-services.sh >'{txt}'"]):
        die("bench-services: tools/bench-services.sh failed (its message above)")
    lines = [x.rstrip() for x in read_text("bench-services", txt).rstrip("\n").splitlines()]
    if len(lines) < 3 or not lines[0].startswith("bench-services:"):
        die(f"bench-services: {txt}: not the benchmark's output")
    return {"settings": lines[0].split(";")[0].split(": ", 1)[1],
            "table": code_block("\n".join(lines[1:]))}


def vdir(out):
    """Where tools/validate.sh wrote: OUT/validate (it refuses a directory that exists)."""
    return os.path.join(out, "validate")


def checks(out, name):
    """validation.json's checks of one kind (validate-analyze.py), by item."""
    v = read_json("validation", vdir(out), "validation.json")
    return {c.get("item"): c for c in v.get("checks") or [] if c.get("check") == name}


def run_validation(out, from_dir):
    if not from_dir and run_cmd(["tools/validate.sh"], {"VALIDATE_OUT": vdir(out)}) == 2:
        die("validation: tools/validate.sh could not run (its message above)")
    table_txt = read_text("validation", vdir(out), "table.txt")
    v = read_json("validation", vdir(out), "validation.json")
    try:
        decided = [c for c in v["checks"] if not c.get("info")]
        failed = [f"{c['check']} {c['item']}".strip() for c in decided if not c["pass"]]
    except (KeyError, TypeError) as e:
        die(f"validation: {out}: not the output of tools/validate.sh ({e!r})")
    if (v.get("meta") or {}).get("quick"):
        if not OPTS["dry_run"]:
            die(f"validation: {out} is a VALIDATE_QUICK smoke test: its figures are no "
                "validation")
        print("figures: validation: a VALIDATE_QUICK smoke test (--dry-run only)", file=sys.stderr)
    return dict(validation_prose(out), **{
        "output": code_block(table_txt),
        "result": f"{len(decided) - len(failed)} of {len(decided)} checks passed" +
        (f"; failed: {', '.join(failed)}" if failed else "")})


def validation_prose(out):
    """The figures sections 6.1 to 6.5 read out of the validation's table."""
    kd = checks(out, "known-delta")
    deltas = []
    for c in sorted(kd.values(), key=lambda c: (c.get("data") or {}).get("target_ns") or 0):
        d = c.get("data") or {}
        if d.get("reported_ns_per_op") is None or d.get("spin_ns_truth") is None:
            deltas.append(f"{c.get('item')}: no figure")
            continue
        deltas.append(f"{d.get('target_ns')} ns: reported "
                      f"{ci_text(d['reported_ns_per_op'], d.get('ns_per_op_ci'))} ns/op against "
                      f"a truth of {d['spin_ns_truth']:.1f} ns (error {d['error_ns']:+.1f}, "
                      f"allowed {d['tolerance_ns']:.1f}: {'PASS' if c['pass'] else 'FAIL'})")
    aa = checks(out, "aa-false-positives")
    a = next(iter(aa.values()), {}).get("data") or {}
    floor = [(w, c.get("data") or {}) for w, c in sorted(checks(out, "aa-noise-floor").items())]

    def pct(x):
        return "-" if x is None else f"{x:.1f}%"
    proof = {k.split(" ")[0]: c for k, c in dict(checks(out, "proof-count"),
                                                 **checks(out, "proof-lost")).items()}
    tp, lossy = (proof.get(k, {}).get("data") or {} for k in ("tp-getpid", "lossy-tiny"))
    fl = proof.get("flight-tiny", {}).get("data") or {}
    bpf = (next(iter(checks(out, "bpf-crosscheck").values()), {}).get("data") or {})
    peers = checks(out, "peers")
    prow = []
    for item, c in peers.items():
        d = c.get("data") or {}
        ours = ", ".join(f"{x:.0f}" for x in d.get("tracebench_ns_per_op") or [])
        theirs = ", ".join(f"{x:.0f}" for x in d.get("peer_ns_per_op") or [])
        wl, peer = item.split(" vs ", 1)
        prow.append([wl, ours or "-", peer, theirs or "-",
                     "-" if d.get("ratio") is None else f"{d['ratio']:.2f}"])
    rate, up = (None if a.get(k) is None else 100 * a[k] for k in ("rate", "rate_upper95"))
    return {
        "known-delta": "; ".join(deltas) or "not run",
        "aa": (f"{a.get('false_positives')} of {a.get('pairs')} pairs "
               f"({pct(rate)}; one-sided 95% upper bound {pct(up)}); "
               f"verdicts: {a.get('overhead_verdicts')} overhead, {a.get('untrustworthy')} "
               f"untrustworthy, over {a.get('runs')} runs") if a else "not run",
        "noise-floor": table(
            ["workload", "median \\|overhead\\|", "largest \\|overhead\\|",
             "median CI half-width", "largest CI half-width", "median baseline CV",
             "false positives, untrustworthy"],
            [[w, pct(d.get("median_abs_pct")), pct(d.get("max_abs_pct")),
              pct(d.get("median_ci_half_width_pct")), pct(d.get("max_ci_half_width_pct")),
              pct(d.get("median_baseline_cv_pct")),
              f"{d.get('false_positives')} / {d.get('untrustworthy')} of {d.get('pairs')}"]
             for w, d in floor], ["---"] + ["---:"] * 6),
        "proof": (f"{tp.get('events_recorded', 0):,} events for {tp.get('ops', 0):,} getpid "
                  f"calls (lost {tp.get('events_lost')}), "
                  f"{'-' if tp.get('ns_per_event') is None else format(tp['ns_per_event'], '.0f')}"
                  f" ns per event; with the smallest buffer in overwrite mode "
                  f"{fl.get('events_recorded', 0):,} for {fl.get('ops', 0):,}")
        if tp else "not run",
        "lossy": (f"{lossy.get('events_recorded', 0):,} events kept, "
                  f"{lossy.get('events_lost', 0):,} counted as lost, verdict "
                  f"{lossy.get('verdict')}; it looked cheaper: "
                  f"{lossy.get('overhead_ns_per_op') or 0:+.0f} ns per op against "
                  f"{tp.get('overhead_ns_per_op') or 0:+.0f} for the cell that kept everything")
        if lossy else "not run",
        "peers": table(["tracebench", "per round", "perf bench", "per round", "ratio of medians"],
                       prow, ["---", "---", "---", "---", "---:"]),
        "bpf": (f"measured {ci_text(bpf['ns_per_event'], bpf.get('ns_per_event_ci'))} ns per "
                f"event at {bpf.get('events_per_op', 0):.4f} events per op "
                f"({bpf.get('events_recorded', 0):,} events), against the kernel's own "
                f"{bpf['bpf_ns_per_run']:.1f} ns per run over {bpf.get('bpf_run_cnt', 0):,} "
                f"runs: a gap of {bpf['ns_per_event'] - bpf['bpf_ns_per_run']:.0f} ns per event")
        if bpf.get("ns_per_event") is not None and bpf.get("bpf_ns_per_run") is not None
        else "not run",
        "families": families_prose(out)}


def families_prose(out):
    """Section 6.3's families: per tracer, its counted samples' events per op, its losses and
    its rearms, from the families-proof and families-rearm checks."""
    proof, rearm = checks(out, "families-proof"), checks(out, "families-rearm")
    parts = []
    for item, c in proof.items():
        d, r = c.get("data") or {}, (rearm.get(item) or {}).get("data") or {}
        per, flags = d.get("events_per_op"), r.get("rearmed") or []
        per_text = ("no counted sample" if not per else f"{per[0]:.5f}" if per[0] == per[1]
                    else f"{per[0]:.5f}..{per[1]:.5f}")
        ok = c.get("pass") and (rearm.get(item) or {}).get("pass")
        parts.append(f"{item.split(' ')[0]} {per_text} events/op in {d.get('counted_samples')} "
                     f"samples, lost {d.get('events_lost')}, {sum(flags)} of {len(flags)} "
                     f"samples rearmed ({'PASS' if ok else 'FAIL'})")
    return "; ".join(parts) or "not run"


def result_of(out, part):
    """The result.json of one of tools/validate.sh's runs (OUT/validate/PART), or {}."""
    p = os.path.join(vdir(out), part, "result.json")
    try:
        with open(p) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def overlap(a, b):
    return a[0] <= b[1] and b[0] <= a[1]


# METHODOLOGY 3.1's rows: effect, configuration, the tracer section (or floor's workload)
SOURCE_ROWS = [
    ("global syscall flag", "`syscalls:sys_enter_getppid` enabled, never hit (`flag-only`)",
     "flag-only"),
    ("event recorded, set_event_pid", "`sys_enter_getpid`, `pid-filter = workload` (`tp-pid`)",
     "tp-pid"),
    ("event recorded, filter expression",
     "`pid-filter = none`, `filter = common_pid != 0` (`tp-filter`)", "tp-filter"),
    ("event filtered out", "`filter = common_pid == 1` (`tp-reject`)", "tp-reject"),
    ("BPF program, stats on", "`syscall-count`, `stats = true` (`bpf-stats`)", "bpf-stats"),
    ("BPF program, stats off", "`syscall-count`, `stats = false` (`bpf-nostats`)",
     "bpf-nostats"),
]


def source_figures(out):
    """METHODOLOGY 3.1's table and the figures sections 2 and 3 quote from it (validation's
    sources and floor runs)."""
    r, fl = result_of(out, "sources"), result_of(out, "floor")
    o = {c["tracer"]: c.get("overhead") or {} for c in r.get("cells") or []
         if not c.get("baseline")}
    acct = {c["tracer"]: c.get("accounting") or {} for c in r.get("cells") or []}
    if not o:
        die(f"sources: {vdir(out)}/sources/result.json: no traced cells")

    def ns(t):
        x = o.get(t) or {}
        return "-" if x.get("ns_per_op") is None else \
            ci_text(x["ns_per_op"], x.get("ns_per_op_ci"), ".0f", True) + " ns/op"

    def ci(t):
        x = o.get(t) or {}
        c = x.get("ns_per_op_ci") or [None, None]
        return None if None in c else c

    def d(a, b):
        x, y = (o.get(a) or {}).get("ns_per_op"), (o.get(b) or {}).get("ns_per_op")
        return None if x is None or y is None else x - y
    notes = {"flag-only": "every syscall on the host pays it while any syscall tracepoint is on",
             "tp-pid": "includes the flag"}
    if ci("tp-filter") and ci("tp-pid"):
        notes["tp-filter"] = ("not distinguishable from set_event_pid here (CIs overlap)"
                              if overlap(ci("tp-filter"), ci("tp-pid")) else
                              f"{d('tp-filter', 'tp-pid'):+.0f} ns against set_event_pid, CIs "
                              "apart")
    if d("tp-reject", "flag-only") is not None:
        apart = ci("tp-reject") and ci("flag-only") and not overlap(ci("tp-reject"),
                                                                   ci("flag-only"))
        x = d("tp-reject", "flag-only")
        notes["tp-reject"] = (f"{abs(x):.0f} ns {'above' if x >= 0 else 'below'} the flag alone" +
                              (": a rejected event is not free" if apart else ", CIs overlapping"))
    a = acct.get("bpf-stats") or {}
    cost = ("-" if a.get("cost_ns_per_run") is None else f"{a['cost_ns_per_run']:+.0f} ns per run"
            + ("" if a.get("cost_pct") is None else
               f" ({ci_text(a['cost_pct'], a.get('cost_ci'), '.1f', True)}% of the timed ns/op)"))
    if ci("bpf-stats") and ci("bpf-nostats"):
        notes["bpf-nostats"] = ("the timed samples of both run without the stats: CIs " +
                                ("overlap" if overlap(ci("bpf-stats"), ci("bpf-nostats")) else
                                 "apart"))
    run = (o.get("bpf-stats") or {}).get("bpf_ns_per_run")
    rows = [[e, cfg, ns(t) + (f"; in-kernel {run:.0f} ns/run" if t == "bpf-stats" and run
                               else ""), notes.get(t, "")] for e, cfg, t in SOURCE_ROWS]
    rows[4][3] = f"its accounting samples (stats on) cost {cost}"
    floor = {c["workload"]: c for c in fl.get("cells") or []}
    null = (floor.get("null") or {}).get("summary") or {}
    clock = ((floor.get("getpid-latency") or {}).get("latency") or {}).get("clock_cost_ns")
    base = next((c["summary"]["median"] for c in r.get("cells") or [] if c.get("baseline")),
                None)
    floor_t = "-" if null.get("median") is None else \
        f"{null['median']:.2f} ns/op (CV {100 * (null.get('cv') or 0):.1f}%)"
    rows += [["harness floor", "`null` workload", floor_t, "loop overhead per op"],
             ["clock-read pair", "`getpid` in latency mode (`latency.clock_cost_ns`)",
              "-" if clock is None else f"{clock:.1f} ns",
              "subtracted from each timed op in latency mode"]]
    return {"table": table(["effect", "configuration (tracer section)", "measured", "note"],
                           rows),
            "baseline": "-" if base is None else f"{base:.0f} ns",
            "flag-only": ns("flag-only"), "filter-vs-pid": notes.get("tp-filter", "-"),
            "tp-reject": notes.get("tp-reject", "-"), "stats-cost": cost,
            "floor": floor_t, "clock-pair": "-" if clock is None else f"{clock:.1f} ns"}


# doc/workloads.md's names for the workloads at bench-workloads' settings (their defaults)
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
    return dict(rearm_prose(rows["rows"]), settings=settings,
                table="\n| family | mode | setup ms | teardown ms | measuring | overhead [95% CI] "
                "| verdict |\n|---|---|---:|---:|---:|---|---|\n" + "\n".join(lines) + "\n")


def rearm_prose(rows):
    """What METHODOLOGY 9 reads out of the rearm table: whether the two overheads agree, and
    how much of the fixed cost per sample the kept tracer saves."""
    fam = {}
    for r in rows:
        fam.setdefault(r["family"], {})[r["mode"]] = r
    both = {f: m for f, m in fam.items() if "rearm" in m and "full" in m}
    over = [f for f, m in both.items()
            if m["rearm"]["lo"] <= m["full"]["hi"] and m["full"]["lo"] <= m["rearm"]["hi"]]

    def cost(r):
        return r["setup_ms"] + r["teardown_ms"]
    save = [f"{f} {100 * (cost(m['rearm']) / cost(m['full']) - 1):+.0f}%"
            for f, m in both.items() if cost(m["full"]) > 0]
    return {"overlap": ("in every family" if len(over) == len(both) else
                        f"in {len(over)} of {len(both)} families") +
            " the two overheads' intervals overlap",
            "saving": "the kept tracer's setup plus teardown against the full one's: " +
            ", ".join(save)}


def script(name):
    """A tools/ script with a dash in its name, as a module (its functions, not its main)."""
    import importlib.util
    p = os.path.join(os.path.dirname(os.path.abspath(__file__)), name)
    spec = importlib.util.spec_from_file_location(name.replace("-", "_")[:-3], p)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def setup_teardown_ms(c):
    """The median per-sample tracer setup plus teardown of a cell's measured samples, in ms."""
    v = [(s.get("tracer_setup_s") or 0) + (s.get("tracer_teardown_s") or 0)
         for s in measured_samples(c) if s.get("tracer_setup_s") is not None]
    m = median(v)
    return None if m is None else 1e3 * m


def run_pid_knob(out, from_dir):
    """METHODOLOGY 9's writable pid filter: tools/bench-pid-knob.py's run, its pairs again."""
    if not from_dir and run_cmd(["sh", "-c", f"PID_KNOB_OUT='{out}/run' python3 "
                                 f"tools/bench-pid-knob.py > '{out}/bench.txt'"]):
        die("pid-knob: tools/bench-pid-knob.py failed (its output in bench.txt)")
    bp = script("bench-pid-knob.py")
    r = read_json("pid-knob", out, "run", "result.json")
    cells = {c["tracer"]: c for c in r["cells"]}
    base = next((c for c in r["cells"] if c.get("baseline")), None)
    rows, same, half, fixed = [], [], {"ns/op": [], "ns/run": []}, []
    for name, g, ro in bp.PAIRS:
        if g not in cells or ro not in cells:
            die(f"pid-knob: {out}/run/result.json: no cells {g} and {ro}")
        row = [name]
        for what, fig, acct in (("ns/op", bp.ns_per_op, False), ("ns/run", bp.ns_per_run, True)):
            p = bp.paired(bp.measured(cells[g], acct), bp.measured(cells[ro], acct), fig)
            if not p:
                row.append("too few paired rounds")
                continue
            m, hw, _ = p
            row.append(f"{m:+.2f} [{m - hw:+.2f}, {m + hw:+.2f}]")
            half[what].append(hw)
            same.append(m - hw <= 0 <= m + hw)
        med = [median(bp.ns_per_run(s) for s in bp.measured(cells[t], True).values())
               for t in (g, ro)]
        row.append(" / ".join("-" if x is None else f"{x:.1f}" for x in med))
        rows.append(row)
        fixed.append((setup_teardown_ms(cells[ro]), setup_teardown_ms(cells[g])))
    held = sum(same)
    return {
        "baseline": "-" if base is None else f"{base['summary']['median']:.1f}",
        "table": table(["program", "ns/op rodata − global, paired (95%)",
                        "kernel ns/run rodata − global, paired (95%)",
                        "kernel ns/run, medians global / rodata"], rows),
        "verdict": ("all four comparisons hold 0" if held == len(same) else
                    f"{len(same) - held} of the {len(same)} comparisons do not hold 0"),
        "resolution": f"±{span(half['ns/run'], '.1f')} ns per run in the kernel's account, "
        f"±{span(half['ns/op'], '.1f')} ns per op in the workload's",
        "fixed-cost": "per traced sample " + " and ".join(
            "-" if a is None else f"{a:.1f}" for a, _ in fixed) +
        " ms of setup plus teardown for the rodata cells against " + " and ".join(
            "-" if b is None else f"{b:.1f}" for _, b in fixed) + " ms for the kept ones"}


def families_run(name, families, budget, hyperfine=False, load=0):
    """bench-precision's families mode (PRECISION_FAMILIES=families, PRECISION_TIME=budget,
    PRECISION_LOAD=load) into OUT/bench.txt: each family's figures in a sentence, and which
    reached the goal (quiet: 0.3% of the ratio and 85% measuring; loaded: 1% of the ratio);
    with hyperfine, also hyperfine's half-width over tracebench's per family and its goal's
    line."""
    def run(out, from_dir):
        env = {"PRECISION_FAMILIES": families, "PRECISION_TIME": budget,
               "PRECISION_LOAD": str(load), "PRECISION_OUT": os.path.join(out, "families")}
        if load:  # the busy machine's goal asks nothing of hyperfine
            env["PRECISION_HYPERFINE"] = "0"
        if not from_dir and run_cmd(["sh", "-c", f"python3 tools/bench-precision.py > "
                                     f"'{out}/bench.txt'"], env):
            die(f"{name}: tools/bench-precision.py failed (its output in bench.txt)")
        text = read_text(name, out, "bench.txt")
        rows = re.findall(r"^(\S+)\s+([-+][\d.]+)%\s+([\d.]+) pt\s+([\d.]+)%\s+(\d+)%\s+"
                          r"(\d+)\s+([\d.]+)s\s+(\S+)", text, re.M)
        if not rows:
            die(f"{name}: {out}/bench.txt: no family rows (not bench-precision's output)")
        if load and not re.search(r"^load: \d+ stress-ng CPU worker", text, re.M):
            die(f"{name}: {out}/bench.txt: no load line (not a loaded run's output)")
        reached = [f for f, _, _, share, meas, *_ in rows
                   if (float(share) <= 1.0 if load else
                       float(share) <= 0.3 and int(meas) >= 85)]
        figs = {}
        pre = re.findall(r"^(\S+): the workload preempted (\d+) times a second \(baseline\) and "
                         r"(\d+) \(traced\)", text, re.M)
        if pre:
            figs["preemptions"] = "; ".join(f"{f} {b} and {t}" for f, b, t in pre)
        if hyperfine:
            hf = re.findall(r"^(\S+)\s+[-+][\d.]+%\s+([\d.]+) pt\s+Welch\s+([\d.]+) pt\s+"
                            r"([\d.]+)x\s", text, re.M)
            goal = re.search(r"^goal \(quiet machine\): >= 10x narrower than hyperfine in the same "
                             r"time: (.*)$", text, re.M)
            if not hf or not goal:
                die(f"{name}: {out}/bench.txt: no hyperfine table")
            figs["hyperfine"] = "; ".join(f"{f} {r}x (hyperfine {h} pt)" for f, h, _, r in hf)
            figs["hyperfine-goal"] = goal.group(1)
        return figs | {"families": "; ".join(
            f"{f} {pct}%, half-width {hw} pt ({share}% of the ratio), {n} rounds of "
            f"{float(d) * 1e3:.0f} ms samples, {meas}% of its wall time measuring"
            for f, pct, hw, share, meas, n, d, _ in rows),
            "goal": ("every family reached the goal" if len(reached) == len(rows) else
                     "none reached the goal" if not reached else
                     f"{', '.join(reached)} reached the goal, the others did not")}
    return run


# METHODOLOGY 9's try of two families at 30 s, and every family at the issue's 60 s
run_precision_trial = families_run("precision-trial", "ftrace-event,bpf-tp_btf", "30s")
run_precision_families = families_run("precision-families", "1", "60s", hyperfine=True)
# ... and the busy machine's goal: the ftrace event and BPF families with one busy CPU beside
run_precision_loaded = families_run("precision-loaded", "ftrace-event,bpf-tp_btf,bpf-uprobe",
                                    "60s", load=1)


def baselines(out, workload="getpid"):
    """The workload's baseline medians over every run of the validation (ns/op)."""
    v = []
    for part in ("known-delta", "proof", "bpf", "sources"):
        for c in result_of(out, part).get("cells") or []:
            if c.get("baseline") and c.get("workload") == workload:
                v.append((c.get("summary") or {}).get("median"))
    return [x for x in v if x is not None]


def published_figures(out):
    """METHODOLOGY 7's table: our side of each row (the published side is the references')."""
    peers = {k.split(" vs ")[0]: (c.get("data") or {}) for k, c in checks(out, "peers").items()}
    src = {c["tracer"]: c for c in result_of(out, "sources").get("cells") or []}
    proof = {c["tracer"]: c for c in result_of(out, "proof").get("cells") or []}
    bpf = next((c for c in result_of(out, "bpf").get("cells") or [] if not c.get("baseline")), {})
    si = read_json("published", out, "sysinfo.json")
    o = {k: c.get("overhead") or {} for k, c in src.items()}
    ob, op = bpf.get("overhead") or {}, (proof.get("tp-getpid") or {}).get("overhead") or {}
    syscall = [x for x in (peers.get("getppid") or {}).get("peer_ns_per_op") or []]
    pipe = [x / 1e3 for x in (peers.get("pipe-pingpong") or {}).get("peer_ns_per_op") or []]
    ours_pipe = [x / 1e3 for x in (peers.get("pipe-pingpong") or {}).get("tracebench_ns_per_op")
                 or []]
    flag = (o.get("flag-only") or {}).get("ns_per_op")

    def ev(x):
        return "-" if x.get("ns_per_event") is None else \
            ci_text(x["ns_per_event"], x.get("ns_per_event_ci"), ".0f", True) + " ns/event"
    runs = [x for x in (ob.get("bpf_ns_per_run"), (o.get("bpf-stats") or {}).get("bpf_ns_per_run"))
            if x is not None]
    acct = (src.get("bpf-stats") or {}).get("accounting") or {}
    cost, cci = acct.get("cost_ns_per_run"), acct.get("cost_ci") or [None, None]
    sysctl = si.get("sysctl") or {}
    base = baselines(out)
    rows = [
        ["syscall loop, nothing attached",
         "getpid 117 ns (ebpf_exporter); getpgid 108.7 ns (Nakryiko's bench)",
         f"getpid baseline medians {span(base, '.0f', 'ns')}; `perf bench syscall basic` "
         f"(getppid) {span(syscall, '.0f', 'ns')}, same run",
         "the machine and its mitigations (Reference machine; see below)"],
        ["BPF program on `tp_btf/sys_enter` with a hash-map increment",
         "+35 ns (empty program +15 ns) (ebpf_exporter \"tracepoint\")",
         f"`syscall-count`: {ev(ob)} (the cross-check); {ev(o.get('bpf-nostats') or {})} "
         "(sources)", "the syscall slow path alone costs " +
         ("-" if flag is None else f"{flag:.0f} ns") + " here; see below"],
        ["BPF program, other attachments",
         "tracepoint +41, raw_tp +8, kprobe +47, fentry +3 ns (Nakryiko); kprobe +137, fentry "
         "+24 ns (ebpf_exporter)", "every attach type this kernel allows, empty and counting: "
         "[section 7.1](#71-probe-types-side-by-side), which names those it refuses", "see 7.1"],
        ["in-kernel run time of the program", "—",
         f"{span(runs, '.0f', 'ns')} per run (`bpf_ns_per_run`, the cross-check and sources)",
         "the kernel's timing of the program alone: a hash-map lookup and an atomic increment"],
        ["`kernel.bpf_stats_enabled` / `bpf_enable_stats` cost",
         "about 20 ns per run (kernel commit)",
         "-" if cost is None else f"{cost:+.0f} ns per run (sources' accounting samples)",
         "not resolved at this noise" if None in cci or cci[0] <= 0 <= cci[1] else
         "resolved: its CI excludes 0"],
        ["ftrace event written to the ring buffer",
         "about 290 ns per 128-byte event, hot (TRACEPOINT_BENCHMARK)",
         f"`sys_enter_getpid`: {ev(op)} (proof), {ev(o.get('tp-pid') or {})} (sources)",
         "ours includes the syscall slow path (" + ("-" if flag is None else f"{flag:.0f} ns") +
         ") and entry/exit mitigations"],
        ["ftrace_ops nop callback", "about 16 ns per call",
         "not measured: no scenario of `make validate` uses the function tracer", "—"],
        ["`perf bench sched pipe`", "5.9–8.1 µs per op (its documentation)",
         f"{span(pipe, '.1f', 'µs')} per op ({len(pipe)} round{'s' if len(pipe) != 1 else ''}); "
         f"our pipe-pingpong "
         f"{span(ours_pipe, '.1f', 'µs')}", "see section 6.4"],
        ["perf sampling limits", "max sample rate 100 kHz, perf_cpu_time_max_percent 25",
         f"max sample rate {sysctl.get('perf_event_max_sample_rate')} Hz, "
         f"perf_cpu_time_max_percent {sysctl.get('perf_cpu_time_max_percent')} "
         "(`tracebench sysinfo`)", "defaults"],
    ]
    pub = 117.0
    ratios = [x.get("ratio") for x in peers.values() if x.get("ratio") is not None]
    bm, tm = ob.get("ns_per_event"), op.get("ns_per_event")
    bb, tb = (next((c["summary"]["median"] for c in (result_of(out, p).get("cells") or [])
                    if c.get("baseline")), None) for p in ("bpf", "proof"))
    return {"table": table(["quantity", "published", "ours (this VM)", "why they differ"], rows),
            "getpid": span(base, ".0f", "ns"),
            "syscall": "-" if not base else f"{min(base) / pub:.1f}-{max(base) / pub:.1f} times",
            "peer-ratios": span(ratios, ".2f"),
            "bpf-run": "-" if not runs else f"{span(runs, '.0f', 'ns')} per run, "
            f"{min(runs) / 35:.1f} to {max(runs) / 35:.1f} times ebpf_exporter's whole per-event "
            "figure for the same kind of program",
            "ordering": "-" if bm is None or tm is None else
            f"counting getpid calls in a BPF hash map cost {bm:.0f} ns per event, writing each "
            f"call to an ftrace ring buffer {tm:.0f} ns per event (separate scenarios, so "
            f"separate baselines: {bb:.0f} and {tb:.0f} ns): "
            + ("the same ordering" if bm < tm else "not that ordering")}


def run_precision(out, from_dir):
    """METHODOLOGY 9's precision per minute: make bench-precision's table (tracebench against
    hyperfine on the same question for the same wall time)."""
    if not from_dir and run_cmd(["sh", "-c", f"python3 tools/bench-precision.py > "
                                 f"'{out}/bench.txt'"]):
        die("precision: tools/bench-precision.py failed (its output in bench.txt)")
    text = read_text("precision", out, "bench.txt")
    row = {m.group(1).strip(): m.groups()[1:] for m in re.finditer(
        r"^(tracebench|hyperfine|  Welch)\s+([-+][\d.]+)%\s+([\d.]+) pt\s+(?:([\d.]+)s)?\s+(.*)$",
        text, re.M)}
    meas = re.search(r"^tracebench: ([\d.]+) s of ([\d.]+) s measuring \((\d+)%\); per traced "
                     r"sample a median ([\d.]+) ms setup .*? and ([\d.]+) ms teardown", text, re.M)
    goal = re.search(r"^goal .*: (met|not met)$", text, re.M)
    if set(row) != {"tracebench", "hyperfine", "Welch"} or not meas or not goal:
        die(f"precision: {out}/bench.txt: not bench-precision's output")
    (tp, th, tw, td), (hp, hh, hw, hd), (wp, wh, _, _) = (
        row[k] for k in ("tracebench", "hyperfine", "Welch"))
    detail = (f"{td.replace(' -> ', ' → ')}, {meas.group(1)} s ({meas.group(3)}%) of the wall "
              f"time measuring; per traced sample a median {meas.group(4)} ms setup (rearm, "
              f"start) and {meas.group(5)} ms teardown (stop, collect, park)")
    th_, hh_, wh_ = float(th), float(hh), float(wh)
    return {"table": table(["tool", "estimate", "95% half-width", "wall", "detail"], [
        ["tracebench", f"{tp}%", f"**{th} pt**", f"{tw} s", detail],
        ["hyperfine", f"{hp}%", f"{hh} pt", f"{hw} s", hd.replace(" -> ", " → ")],
        ["Welch on hyperfine's run times", f"{wp}%", f"{wh} pt", "", ""]]),
        "half-width": th,
        "ratios": f"hyperfine / tracebench {hh_ / th_:.1f}×, Welch / tracebench "
        f"{wh_ / th_:.1f}×",
        "hyperfine-ratio": f"{hh_ / th_:.0f}" if hh_ >= 10 * th_ else f"{hh_ / th_:.1f}",
        "goal": goal.group(1),
        "agree": f"{hp}% against {tp}%, {abs(float(hp) - float(tp)):.1f} points apart"}


def combined_text(c, missed=True):
    """validate-coverage's windows of runs combined (tracebench combine), per question; with
    missed, each window whose interval missed."""
    comb = c.get("combined") or {}
    span = comb.get("mean_span_s") or {}
    parts = []
    for lab, k in (("A/A", "A/A"), ("tracepoint", "tp-getpid")):
        q = comb.get(k) or {}
        w, d, sp = q.get("windows"), q.get("disjoint"), q.get("spaced")
        if not w:
            continue
        lo, hi = w["wilson95"]
        parts.append(f"{lab} {w['covered']}/{w['trials']} windows ({100 * w['coverage']:.0f}%, "
                     f"Wilson {100 * lo:.1f}-{100 * hi:.1f}%)" +
                     (f", {d['covered']}/{d['trials']} disjoint" if d else "") +
                     f", mean half-width {w['mean_half_width']:.2f} pt" +
                     (f"; runs spaced across the set {sp['covered']}/{sp['trials']}, mean "
                      f"half-width {sp['mean_half_width']:.2f} pt" if sp else "") +
                     "".join(f"{', missed' if i == 0 else ','} runs "
                             f"{m.get('label') or '-'.join(m['runs'])} "
                             f"{m['estimate']:+.1f} [{m['ci'][0]:+.1f}, {m['ci'][1]:+.1f}] "
                             f"against {m['truth']:+.1f} (run-to-run sd {m['tau']:.1f})"
                             for i, m in enumerate((q.get("missed") or []) if missed else [])))
    spans = "; ".join(f"{'consecutive windows' if k == 'windows' else 'spaced runs'} span "
                      f"{v / 60:.1f} min on average" for k, v in span.items())
    return (f"windows of {comb.get('group')} runs" + (f" ({spans})" if spans else "") + ": " +
            "; ".join(parts)) if parts else "-"


def run_coverage(out, from_dir):
    """METHODOLOGY 9's coverage of the intervals on real runs (make validate-coverage)."""
    if not from_dir and run_cmd(["sh", "-c", f"COVERAGE_OUT='{out}/coverage' python3 "
                                 f"tools/validate-coverage.py > '{out}/coverage.txt'"]) == 2:
        die("coverage: tools/validate-coverage.py could not run (its message above)")
    c = read_json("coverage", out, "coverage", "coverage.json")
    q = c.get("questions") or {}

    def own(name, label=None):
        rows = q.get(name) or []
        r = next((x for x in rows if x["estimator"] == (label or "tracebench (result.json)")),
                 None)
        return r or {}

    def pct(r):
        return "-" if not r.get("trials") else \
            f"{r['covered']}/{r['trials']} ({100 * r['coverage']:.1f}%)"

    def wil(r):
        w = r.get("wilson95") or [None, None]
        return "-" if None in w else f"{100 * w[0]:.1f}-{100 * w[1]:.1f}%"

    def het(r, key="cochran_q"):
        h = r.get(key)
        return "" if not h else (f"{h['q']:.1f} ({h['df']}), {h['p']:.2g}; "
                                 f"{h['tau']:.2f} {r.get('unit')}")
    rows = []
    for label, name, est in (("A/A (truth 0)", "A/A", None),
                             ("tracepoint (truth: the other runs)", "tp-getpid", None),
                             ("delay 20 ns (truth: the other runs' fit)", "delay-20ns", None),
                             ("tracepoint at the run's speed (the other runs' fit on their "
                              "baselines' ns/op)", "tp-getpid", "tracebench at the run's speed"),
                             ("delay 20 ns at the run's speed", "delay-20ns",
                              "tracebench at the run's speed"),
                             ("delay 20 ns against the spin timed on its own", "delay-20ns",
                              "tracebench vs spin")):
        r = own(name, est)
        if est and not r:
            continue  # a study that predates the row
        u = r.get("unit", "")
        rows.append([label, pct(r), wil(r),
                     "-" if not r else f"{r['mean_half_width']:.2f} {u}",
                     "-" if not r else f"{r['mean_error']:+.2f} {u}",
                     "" if est or r.get("z_sd") is None else f"{r['z_sd']:.2f}",
                     het(r) if not est else het(own(name), "cochran_q_at_speed")
                     if est == "tracebench at the run's speed" else ""])
    # the candidates as validate-coverage names them (its rows other than tracebench's own),
    # the ratio of medians and its corrections last, beside each other
    names = [x["estimator"] for x in q.get("A/A") or []
             if not x["estimator"].startswith("tracebench")]
    names.sort(key=lambda n: n.startswith("ratio of medians"))

    def cov(name):
        return " / ".join("-" if not own(k, name).get("trials") else
                          f"{100 * own(k, name)['coverage']:.0f}"
                          for k in ("A/A", "tp-getpid", "delay-20ns")) + "%"
    fit = own("delay-20ns").get("fit") or {}
    drift = "; ".join(f"{k}: halves' z sd {own(k).get('halves_z_sd', float('nan')):.2f}, lag-1 "
                      f"of the runs' errors {own(k).get('runs_lag1', float('nan')):+.2f}"
                      for k in ("A/A", "tp-getpid", "delay-20ns"))
    def eps(name):
        k = own(name)
        h = k.get("cochran_q_without_episodes")
        if not k.get("episodes"):
            return f"{name}: none"
        return (f"{name}: {episodes(k)}" +
                (f"; without them Cochran's Q {h['q']:.1f} ({h['df']}), p {h['p']:.2g}"
                 if h else ""))
    return {"runs": str(c.get("runs")),
            "episodes": "; ".join(eps(k) for k in ("tp-getpid", "delay-20ns")),
            "table": table(["question", "tracebench's interval covered", "Wilson 95%",
                            "mean half-width", "mean error", "sd(z)",
                            "Cochran's Q (df), p; run-to-run sd"], rows),
            "candidates": ", ".join(f"{n} {cov(n)}" for n in names),
            "fit": "-" if not fit else
            f"{fit['ns']:.1f} ns {'+' if fit['ns_per_iteration'] >= 0 else '−'} "
            f"{abs(fit['ns_per_iteration']):.3f} ns per iteration",
            "drift": drift,
            "combined": combined_text(c),
            "summary": ", ".join(f"{lab} {100 * own(k)['coverage']:.0f}%" if own(k).get("trials")
                                 else f"{lab} -" for lab, k in (
                                     ("A/A", "A/A"), ("a tracepoint", "tp-getpid"),
                                     ("a known 20 ns delay", "delay-20ns"))) +
            f" over {c.get('runs')} runs"}


def block_of(name, path):
    """A table a script wrote (its table.txt), as a code block figure; the run's directory, a
    temporary one, is named as the script names it by default."""
    text = read_text(name, path).rstrip("\n").replace(os.path.dirname(path),
                                                      f"results/{name}-<UTC time>")
    return code_block(text)


def run_history(out, from_dir):
    """METHODOLOGY 8.4's validation of the change-point detection (make validate-history)."""
    if not from_dir and run_cmd(["tools/validate-history.sh"],
                                {"VALIDATE_HISTORY_OUT": os.path.join(out, "history")}) == 2:
        die("history: tools/validate-history.sh could not run (its message above)")
    return {"output": block_of("validation-history", os.path.join(out, "history", "table.txt"))}


def run_bench_history(out, from_dir):
    """METHODOLOGY 8.4's speed of the history (make bench-history)."""
    if not from_dir and run_cmd(["tools/bench-history.sh"],
                                {"BENCH_HISTORY_OUT": os.path.join(out, "bench")}):
        die("bench-history: tools/bench-history.sh failed (its message above)")
    return {"output": block_of("bench-history", os.path.join(out, "bench", "table.txt"))}



# METHODOLOGY 6.7's cells: what each tracer section of explain.ini is
EXPLAIN_CELLS = {"tp-getpid": "`syscalls:sys_enter_getpid`", "bpf-count": "`syscall-count`, tp_btf",
                 "delay-100ns": "the known spin"}


def added(f, k):
    v = f.get(k) or [0, 0]
    return (v[1] or 0) - (v[0] or 0)


def explain_figures(out):
    """METHODOLOGY 6.7's table and README's example: the validation's explain run."""
    r = result_of(out, "explain")
    where = {k: c for k, c in checks(out, "explain-where").items()}
    rows, shares, top, spin, prof, ok = [], [], [], "-", "-", 0
    cells = [c for c in r.get("cells") or [] if c.get("explain")]
    if not cells:
        die(f"explain: {vdir(out)}/explain/result.json: no explained cells")
    base = {c["workload"]: c for c in r["cells"] if c.get("baseline")}
    for c in cells:
        e, o = c["explain"], c.get("overhead") or {}
        fns = sorted(e.get("functions") or [], key=lambda f: -added(f, "self_ns_per_op"))
        lo, hi = (e.get("explained_share_range") or [None, None])[:2]
        share = e.get("explained_share")
        if share is not None:
            shares.append(100 * share)
        ok += bool(e.get("explained"))
        w = where.get(c["id"]) or {}
        names = ", ".join(f"`{f['name']}` {added(f, 'self_ns_per_op'):+.1f}" +
                          (" (user)" if f.get("where") == "user" else "") +
                          (f" (inclusive {added(f, 'inclusive_ns_per_op'):+.1f})"
                           if added(f, "inclusive_ns_per_op") - added(f, "self_ns_per_op") > 1
                           else "") for f in fns[:4])
        rows.append([f"{c['tracer']} ({EXPLAIN_CELLS.get(c['tracer'], c.get('tracer_type'))})",
                     "-" if e.get("overhead_ns_per_op") is None else
                     f"{e['overhead_ns_per_op']:+.1f} ns/op ({o.get('pct', 0):+.1f}%)",
                     "-" if e.get("added_ns_per_op") is None else
                     f"{e['added_ns_per_op']:+.1f} ± {e.get('added_se_ns_per_op') or 0:.1f}",
                     "-" if share is None else f"{100 * share:.0f}%" + (
                         "" if lo is None else f" ({100 * lo:.0f}–{100 * hi:.0f}%)"),
                     f"{(e.get('base') or {}).get('samples')} / "
                     f"{(e.get('traced') or {}).get('samples')}", names or "-",
                     ("PASS: " if w.get("pass") else "FAIL: ") + str(w.get("figure", "-"))
                     .split(";")[0]])
        if fns and e.get("added_ns_per_op"):
            f0 = fns[0]
            top.append(f"{c['tracer']}: `{f0['name']}` {added(f0, 'self_ns_per_op'):+.1f} of "
                       f"{e['added_ns_per_op']:+.1f} ns/op "
                       f"({100 * added(f0, 'self_ns_per_op') / e['added_ns_per_op']:.0f}%)")
        if c.get("tracer_type") == "delay" and e.get("added_ns_per_op"):
            s_ = next((added(f, "self_ns_per_op") for f in fns if f["name"] == "tb_spin"), None)
            spin = "-" if s_ is None else f"{100 * s_ / e['added_ns_per_op']:.0f}%"
        b = base.get(c["workload"])
        if prof == "-" and b and (e.get("base") or {}).get("ns_per_op") is not None:
            prof = (f"{e['base']['ns_per_op']:.1f} ns/op against {b['summary']['median']:.1f} "
                    "in the measured rounds")
    example = ""
    cell = next((c for c in cells if c["tracer"] == "tp-getpid"), cells[0])
    tmp = os.path.join(out, "explain-redraw")
    txt = os.path.join(out, "explain-example.txt")
    if not os.path.exists(txt) and run_cmd(["sh", "-c", f"'{TB}' explain "
                                            f"'{vdir(out)}/explain/result.json' --cell "
                                            f"'{cell['id']}' --top 3 -o '{tmp}' > '{txt}'"]):
        die("explain: tracebench explain failed (its message above)")
    lines = [x for x in read_text("explain", txt).strip("\n").split("\n")
             if not x.lstrip().startswith("flame graphs:")]  # paths of this machine's files
    example = code_block("\n".join(lines))
    return {"table": table(["cell", "measured overhead", "profiles add", "share (range)",
                            "base / traced samples", "top added self time (ns/op)",
                            "expected path: found"], rows),
            "shares": f"{span(shares, '.0f')}% of the measured ns/op, {ok} of {len(cells)} "
            "cells explained",
            "top": "; ".join(top) or "-", "spin-share": spin, "profiler": prof,
            "example": example}



LENGTHS = ("200ms", "50ms", "20ms")


def run_sample_length(out, from_dir):
    """METHODOLOGY 9's sample length and the noise structure: scenarios/precision.ini for 60 s at
    three sample lengths, described as tools/validate-coverage.py --describe does."""
    for d in LENGTHS if not from_dir else ():
        if run_cmd(["sh", "-c", f"'{TB}' run scenarios/precision.ini --max-time 60s --duration {d} "
                    f"--wait --no-plots -q -o '{out}/{d}' > /dev/null"]) not in (0, 1):
            die(f"sample-length: the run at {d} failed (its message above)")
    vc = script("validate-coverage.py")
    rows, est, hw, base = [], [], [], []
    for d in LENGTHS:
        r = read_json("sample-length", out, d, "result.json")
        try:
            b_ = next(c for c in r["cells"] if c.get("baseline"))
            t_ = next(c for c in r["cells"] if not c.get("baseline"))
            b, t = vc.pairs(b_, t_)
            o = t_["overhead"]
            lo, hi = o["ci"]
            meas = sum(s.get("elapsed_ns") or 0 for c in r["cells"] for s in c["samples"]) / 1e9
            cv = [(vc.statistics.stdev(v) / vc.statistics.mean(v), vc.mad_cv(v)) for v in (b, t)]
            lag = vc.lag1([vc.math.log(y / x) for x, y in zip(b, t)])
        except (KeyError, TypeError, ValueError, StopIteration) as e:
            die(f"sample-length: {out}/{d}/result.json: not a finished two-cell run ({e!r})")
        est.append(o["pct"])
        hw.append((hi - lo) / 2)
        base.append(b_["summary"]["median"])
        rows.append([d.replace("ms", " ms"), f"{len(b)} ({r.get('stop_reason')})", f"{meas:.1f} s",
                     f"{100 * cv[0][0]:.1f}% ({100 * cv[0][1]:.1f}%)",
                     f"{100 * cv[1][0]:.1f}% ({100 * cv[1][1]:.1f}%)", f"{lag:.2f}",
                     f"{o['pct']:+.2f}% [{lo:+.2f}, {hi:+.2f}]", f"{(hi - lo) / 2:.2f} pt"])
    return {"table": table(["samples", "rounds (stop)", "measuring", "baseline CV (MAD)",
                            "traced CV (MAD)", "lag-1 autocorr. of the pairs", "overhead [95% CI]",
                            "half-width"], rows),
            "spread": f"the estimates of the three lengths lie {max(est) - min(est):.1f} points "
            f"apart, their half-widths {' / '.join(f'{x:.2f}' for x in hw)} pt; the baseline "
            f"{base[0]:.1f} → {base[-1]:.1f} ns/op from the longest samples to the shortest"}


def run_noise_components(out, from_dir):
    """METHODOLOGY 9's noise components and the floor they put under a paired run: a
    precision.ini run of 30 s for its fixed cost per sample, then tools/noise-components.py
    (make bench-noise) at that cost and at a bare process's, and again with one busy CPU
    beside the measured one (--load 1; said as not measured where it cannot be)."""
    if not from_dir:
        if run_cmd(["sh", "-c", f"'{TB}' run scenarios/precision.ini --max-time 30s --wait "
                    f"--no-plots -q -o '{out}/run' > /dev/null"]) not in (0, 1):
            die("noise-components: the precision.ini run failed (its message above)")
        if run_cmd(["sh", "-c", f"python3 tools/noise-components.py --save '{out}/noise.json' "
                    f"--fixed-from '{out}/run/result.json' --json '{out}/at-run.json' "
                    f"> '{out}/noise.txt'"]):
            die(f"noise-components: tools/noise-components.py failed (see {out}/noise.txt)")
        if run_cmd(["sh", "-c", f"python3 tools/noise-components.py --from '{out}/noise.json' "
                    f"--json '{out}/bare.json' > /dev/null"]):
            die("noise-components: tools/noise-components.py --from failed")
        # one busy CPU beside the measured one (issue 32's loaded goal), when there is one
        if run_cmd(["sh", "-c", f"python3 tools/noise-components.py --load 1 --fixed-from "
                    f"'{out}/run/result.json' --json '{out}/loaded.json' > '{out}/loaded.txt' "
                    f"2>&1"]):
            with open(os.path.join(out, "loaded.json"), "w") as f:
                json.dump({"not": read_text("noise-components", out, "loaded.txt").strip()}, f)
    run, bare = (read_json("noise-components", out, f) for f in ("at-run.json", "bare.json"))
    ld = read_json("noise-components", out, "loaded.json")

    def at_200(c):  # the floor at the 200 ms samples the run's length rule starts from
        return f"{100 * next(f['half_width'] for f in c['floors'] if f['batches'] == 10):.2f}%"
    try:
        at = [{f["sample_ms"]: f for f in c["floors"]} for c in (run, bare)]
        rows = [[f"{ms:.0f} ms"] + [x for f in (a.get(ms) for a in at) for x in (
                    ("-", "-") if f is None else
                    (f"{f['rounds']:.0f}",
                     f"{100 * f['half_width']:.2f}%" + (" (K&J)" if f["kj"] else "")))]
                for ms in sorted(set(at[0]) | set(at[1]))]
        comp = (f"{run['processes']} processes of {run['batches']} batches of "
                f"{run['batch_ms']:g} ms: within a process {100 * run['within_sd']:.2f}% per "
                f"batch (lag-1 autocorrelation {run['rho']:.2f}); between processes "
                f"{100 * run['per_process_sd']:.2f}%, of which {100 * run['paired_sd']:.2f}% "
                f"stays between consecutive ones (what a paired round keeps); a fresh "
                f"process's first batch {100 * run['first_batch']:+.2f}% from its others")
        fixed = (f"{run['fixed_ms']:.1f} ms per sample in the precision.ini run (its wall time "
                 f"less its samples'), {bare['fixed_ms']:.1f} ms for a bare process")
        best = (f"{100 * run['best']['half_width']:.2f}% of the ratio at the run's fixed cost "
                f"({run['best']['sample_ms']:.0f} ms samples), "
                f"{100 * bare['best']['half_width']:.2f}% at a bare process's "
                f"({bare['best']['sample_ms']:.0f} ms); 200 ms samples {at_200(run)}")
        loaded = (f"not measured: {ld['not']}" if "not" in ld else
                  f"within a process {100 * ld['within_sd']:.2f}% per batch (lag-1 "
                  f"{ld['rho']:.2f}), {100 * ld['paired_sd']:.2f}% between consecutive "
                  f"processes; floor {100 * ld['best']['half_width']:.2f}% of the ratio at the "
                  f"run's fixed cost ({ld['best']['sample_ms']:.0f} ms samples), 200 ms samples "
                  f"{at_200(ld)}")
    except (KeyError, TypeError, StopIteration) as e:
        die(f"noise-components: {out}: not tools/noise-components.py's --json ({e!r})")
    return {"components": comp, "fixed": fixed, "best": best, "loaded": loaded,
            "table": table(["samples", "rounds in 60 s (run's cost)", "floor (run's cost)",
                            "rounds in 60 s (bare process)", "floor (bare process)"], rows)}


RUNNERS = {"accounting": run_accounting, "validation": run_validation, "rearm": run_rearm,
           "pid-knob": run_pid_knob, "precision-trial": run_precision_trial,
           "precision": run_precision, "coverage": run_coverage, "history": run_history,
           "bench-history": run_bench_history, "sample-length": run_sample_length,
           "services-delay": run_services_delay, "bench-services": run_bench_services,
           "services-aa": run_services_aa, "validate-sweeps": run_validate_sweeps,
           "coverage-loaded": run_coverage_loaded, "precision-families": run_precision_families,
           "precision-loaded": run_precision_loaded, "noise-components": run_noise_components}
FED = {"sources": ("validation", source_figures), "published": ("validation", published_figures),
       "explain": ("validation", explain_figures)}
