#!/bin/bash
# The validation suite's machinery (no timing assertions): tools/validate-analyze.py decides
# each check right on synthetic result files (a passing set, and a set where each check must
# fail, the families' proof and rearms among them), and tools/validate.sh with VALIDATE_QUICK=1
# runs every scenario and writes its JSON and table with one line per check (the error-sources
# figures and every family's run are left out to keep it short).
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "python3 not installed (validate needs it)"
ROOT=${TB_ROOT:?TB_ROOT not set}
AN=$ROOT/tools/validate-analyze.py

# ---- 1. the analysis on synthetic results ----------------------------------------------------
# gen.py DIR good|bad: a fake validation output directory.
cat >"$TMP/gen.py" <<'PY'
import json, os, sys
out, kind = sys.argv[1], sys.argv[2]
bad = kind == "bad"
def samples(med, n=5, ev=-1, cnt=-1, rt=-1):
    s = [{"round": -1, "warmup": True, "ns_per_op": med, "ops": 1000, "events": ev}]
    return s + [{"round": i, "warmup": False, "ns_per_op": med + 0.1 * i, "ops": 1000,
                 "events": ev, "bpf_run_cnt": cnt, "bpf_run_time_ns": rt} for i in range(n)]
def cell(wl, tr, tt, med, **kw):
    c = {"id": wl + "/" + tr, "workload": wl, "tracer": tr, "tracer_type": tt,
         "baseline": tr == "none", "threads": 1, "ops_per_sample": 1000,
         "samples": samples(med, ev=kw.pop("ev", -1), cnt=kw.pop("cnt", -1),
                            rt=kw.pop("rt", -1)),
         "summary": {"median": med, "cv": 0.01}, "events_recorded": -1, "events_lost": -1}
    c.update(kw)
    return c
def save(d, cells, aa=False):
    os.makedirs(os.path.join(out, d), exist_ok=True)
    json.dump({"settings": {"aa": aa, "noise_threshold": 0.01}, "cells": cells},
              open(os.path.join(out, d, "result.json"), "w"))
base = lambda wl, m=200: cell(wl, "none", "none", m)
# known delta: truth 20.0; good reports 21 (within 2 ns), bad reports 25
save("known-delta", [base("getpid"), cell("getpid", "d20", "delay", 220,
     tracer_extra={"target_ns": 20, "iters": 50, "spin_ns_measured": 20.0},
     overhead={"ns_per_op": 25.0 if bad else 21.0, "ns_per_op_ci": [19, 23]})])
# A/A: 10 runs x 2 workloads; bad: every pair significant at +3%
for i in range(10):
    cells = []
    for wl in ("getpid", "read"):
        ov = {"pct": 3.0, "ci": [2.0, 4.0], "verdict": "overhead"} if bad else \
             {"pct": 0.2 * (i % 3 - 1), "ci": [-0.8, 0.9], "verdict": "no-detectable-overhead"}
        cells += [base(wl), cell(wl, "aa", "none", 200, overhead=ov)]
    save("aa/%02d" % i, cells, aa=True)
# proof: 5 measured samples of 1000 ops; good records 5000 (1 per op, as expected), bad 4000
# (a proof that says "below"); tiny: good loses events; control: good records nothing, bad 5
save("proof", [base("getpid"),
     cell("getpid", "tp-getpid", "ftrace-events", 500, events_recorded=4000 if bad else 5000,
          events_lost=0, overhead={"verdict": "overhead", "ns_per_event": 300},
          proof={"outcome": "below" if bad else "match", "expected_per_op": 1.0}),
     cell("getpid", "lossy-tiny", "ftrace-events", 500, events_recorded=300,
          events_lost=0 if bad else 4700,
          overhead={"verdict": "overhead" if bad else "untrustworthy"}),
     cell("getpid", "control-read", "ftrace-events", 500, events_recorded=5 if bad else 0,
          events_lost=0, overhead={"verdict": "no-detectable-overhead"},
          proof={"outcome": "unexpected" if bad else "control", "expected_per_op": 0.0})])
# families: the warmup sets a kept tracer up and every later sample rearms it (r), or every
# sample sets its own up (s); counts of 1000 ops. bad: one ftrace sample 2% short, one not
# rearmed, a perf-count sample rearmed, a command below its expected count, a BPF accounting
# sample set up afresh (acct_flags: the accounting samples' own, each after its round's timed)
def fam(tr, tt, flags, ev, proof, acct=None, acct_flags=""):
    c = cell("getpid", tr, tt, 500, proof=proof, events_lost=0)
    for k, (s, f, e) in enumerate(zip(c["samples"], flags, ev)):
        s.update(events=e, rearmed=f == "r", order=2 * k)
    for i, e in enumerate(acct or []):
        c["samples"].append({"round": i, "warmup": False, "ns_per_op": 600, "ops": 1000,
                             "events": e, "accounting": True, "order": 2 * i + 3,
                             "rearmed": acct_flags[i:i + 1] == "r"})
    return c
save("families", [base("getpid"),
     fam("ftrace-event", "ftrace-events", "srrrsr" if bad else "srrrrr",
         [1000, 1000, 980 if bad else 1000, 1000, 1000, 1000],
         {"outcome": "match", "expected_per_op": 1.0}),
     fam("perf-count", "perf-count", "ssrsss" if bad else "ssssss", [1000] * 6,
         {"outcome": "match", "expected_per_op": 1.0}),
     fam("perf-sample", "perf-sample", "ssssss", [15] * 6, {"outcome": "sampled"}),
     fam("bpftrace", "command", "ssssss", [-1] * 6, {"outcome": "above", "expected_per_op": 1.0},
         [900 if bad else 1050] * 3),
     fam("bpf-tp_btf", "bpf", "srrrrr", [1000] * 6, {"outcome": "match", "expected_per_op": 1.0},
         [1000] * 3, "rsr" if bad else "rrr")])
# bpf: good 300 ns/event vs 150 ns/run; bad 100 vs 150
save("bpf", [base("getpid"), cell("getpid", "bpf-count", "bpf", 500,
     overhead={"ns_per_event": 100.0 if bad else 300.0, "bpf_ns_per_run": 150.0,
               "events_per_op": 1.0})])
save("peers/01", [base("getpid", 210), base("pipe-pingpong", 9000)])
os.makedirs(os.path.join(out, "peers"), exist_ok=True)
open(os.path.join(out, "peers", "perf-syscall.txt"), "w").write("200\n")
open(os.path.join(out, "peers", "perf-pipe.txt"), "w").write("8000\n")
PY
python3 "$TMP/gen.py" "$TMP/good" good || fail "gen good"
python3 "$TMP/gen.py" "$TMP/bad" bad || fail "gen bad"

expect_exit 0 python3 "$AN" "$TMP/good"
for c in known-delta aa-false-positives proof-count proof-lost proof-window bpf-crosscheck; do
	grep -q "^PASS: $c" "$TMP/out" || fail "good set: no 'PASS: $c' line"
done
[ "$(grep -c '^PASS: families-proof' "$TMP/out")" = 5 ] &&
	[ "$(grep -c '^PASS: families-rearm' "$TMP/out")" = 5 ] ||
	fail "good set: not 5 + 5 families passes: $(grep families "$TMP/out")"
grep -q "ratio 1.050" "$TMP/out" || fail "good set: getpid/perf ratio 210/200 not printed"
grep -q "ratio 1.125" "$TMP/out" || fail "good set: pipe/perf ratio 9000/8000 not printed"
python3 - "$TMP/good/validation.json" <<'PY' || fail "good set: validation.json content"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "tracebench-validation/1" and d["pass"] is True, d.get("pass")
kd = [c for c in d["checks"] if c["check"] == "known-delta"][0]
assert abs(kd["data"]["error_ns"] - 1.0) < 1e-9 and kd["data"]["tolerance_ns"] == 2.0, kd
aa = [c for c in d["checks"] if c["check"] == "aa-false-positives"][0]
assert aa["data"]["pairs"] == 20 and aa["data"]["false_positives"] == 0, aa
pc = [c for c in d["checks"] if c["check"] == "proof-count"][0]
assert pc["data"]["ops"] == 5000 and pc["data"]["events_per_op"] == 1.0, pc
PY
[ -s "$TMP/good/table.txt" ] || fail "good set: no table.txt"

expect_exit 1 python3 "$AN" "$TMP/bad"
for c in known-delta aa-false-positives proof-count proof-lost proof-window bpf-crosscheck; do
	grep -q "^FAIL: $c" "$TMP/out" || fail "bad set: no 'FAIL: $c' line"
done
# the short sample, the sample set up anew, the rearmed perf event, the command's short count,
# the BPF accounting sample set up anew
for c in "families-proof \[ftrace-event" "families-rearm \[ftrace-event" \
	"families-rearm \[perf-count" "families-proof \[bpftrace" "families-rearm \[bpf-tp_btf"; do
	grep -q "^FAIL: $c" "$TMP/out" || fail "bad set: no 'FAIL: $c' line: $(grep families "$TMP/out")"
done
grep -q "^PASS: families-proof \[perf-sample" "$TMP/out" || fail "bad set: perf-sample failed"
grep -q "20/20 pairs significant" "$TMP/out" || fail "bad set: A/A count not 20/20"
expect_exit 2 python3 "$AN" "$TMP/nonexistent"

# ---- 1b. the services' known delay judged on synthetic runs ----------------------------------
# sgen.py DIR good|bad: a services-delay output: getpid calibrates 50, 100 and 500 us spins
# (400 ns of dispatch each); nginx's closed loop pairs 50 with 100 us (both saturating), the open
# loop 500 us with the empty probe. bad: nginx's CPU per request gains 60 us, not 50, and the
# open loop's p50 400 us, not 500.
cat >"$TMP/sgen.py" <<'PY'
import json, os, sys
out, bad = sys.argv[1], sys.argv[2] == "bad"
def cell(wl, tr, body, spin, target, f, decides="throughput"):
    c = {"id": wl + "/" + tr, "workload": wl, "tracer": tr, "baseline": False,
         "service": {"decides": decides},
         "tracer_config": {"body": body, "spin": spin, "target": target},
         "proof": {"events_per_op": 1.0},
         "expected_events": {"events": [{"event": target, "per_op": 1.0}]},
         "samples": [dict(round=i, warmup=False, **f(i)) for i in range(8)]}
    return c
def gp(extra):
    return lambda i: {"ns_per_op": 1000 + extra + 30 * (i % 3), "ops": 1000, "elapsed_ns": 1e6}
def closed(cpu_us, share):
    def f(i):
        ops, cpu = 100000, (cpu_us + 0.2 * (i % 3)) * 1e-6 * 100000
        return {"ns_per_op": 1, "ops": ops, "elapsed_ns": cpu / share * 1e9,
                "service": {"server_cpu_s": cpu, "p50_ns": 1, "server_ctxsw": 0}}
    return f
def opened(p50_us):
    return lambda i: {"ns_per_op": 1, "ops": 2000, "elapsed_ns": 8e9,
                      "service": {"server_cpu_s": 0.5, "p50_ns": (p50_us + 20 * (i % 3)) * 1e3,
                                  "server_ctxsw": 2000}}
tp = "syscalls:sys_enter_getpid"
cells = [cell("getpid", "empty", "empty", 0, tp, gp(0))]
for us in (50, 100, 500):
    cells.append(cell("getpid", "spin%d" % us, "spin", us * 1000, tp, gp(us * 1000 + 400)))
wv = "syscalls:sys_enter_writev"
cells.append(cell("nginx", "spin50", "spin", 50000, wv, closed(66.0, 0.99)))
cells.append(cell("nginx", "spin100", "spin", 100000, wv, closed(126.0 if bad else 116.0, 0.99)))
st = "syscalls:sys_enter_sendto"
cells.append(cell("postgres-open", "empty", "empty", 0, st, opened(450), "p99"))
cells.append(cell("postgres-open", "spin500", "spin", 500000, st, opened(850 if bad else 950),
                  "p99"))
os.makedirs(out)
json.dump({"cells": cells}, open(os.path.join(out, "result.json"), "w"))
PY
# refuses_garbled SCRIPT DIR FILE MESSAGE: with FILE of DIR garbled, VALIDATE_FROM=DIR SCRIPT is
# bad input (exit 2) whose message names it (MESSAGE), not a traceback
refuses_garbled() {
	echo '{"cells": 3}' >"$3"
	VALIDATE_FROM=$2 expect_exit 2 "$1"
	grep -q "$4" "$TMP/err" || fail "a garbled $3: $(cat "$TMP/err")"
}
SD=$ROOT/tools/validate-services-delay.sh
python3 "$TMP/sgen.py" "$TMP/sgood" good || fail "sgen good"
python3 "$TMP/sgen.py" "$TMP/sbad" bad || fail "sgen bad"
VALIDATE_FROM=$TMP/sgood expect_exit 0 "$SD"
grep -q "known delay on services: 6 of 6 checks held" "$TMP/out" ||
	fail "good services set: $(cat "$TMP/out")"
grep -q "spin100 against spin50" "$TMP/out" ||
	fail "the closed loop's pair is not 100 us against 50 us"
grep -q "spin500 against empty" "$TMP/out" ||
	fail "the open loop's pair is not 500 us against empty"
VALIDATE_FROM=$TMP/sbad expect_exit 1 "$SD"
[ "$(grep -c FAILED "$TMP/out")" -eq 3 ] ||
	fail "bad services set: not 3 checks failed: $(cat "$TMP/out")"
grep -q "known delay on services: 3 of 6 checks held" "$TMP/out" || fail "bad services set tally"
[ ! -e "$TMP/sgood/delay.txt" ] || fail "VALIDATE_FROM wrote into the directory it judged"
refuses_garbled "$SD" "$TMP/sbad" "$TMP/sbad/result.json" "sbad/result.json: not a tracebench result"
# a cell without the keys the checks read: bad input too, named, not a traceback
echo '{"cells": [{"workload": "getpid", "samples": []}]}' >"$TMP/sbad/result.json"
VALIDATE_FROM=$TMP/sbad expect_exit 2 "$SD"
grep -q "sbad/result.json: not a tracebench result with cells (KeyError" "$TMP/err" ||
	fail "a cell without its keys: $(cat "$TMP/err")"
VALIDATE_FROM=$TMP/none expect_exit 2 "$SD"

# validate-sweeps judges a synthetic set again (VALIDATE_FROM): 20 repeats of the delay's sweep
# (the truth's slope 1 ns per ns) and top's. good: every slope within 10% of the truth, top
# refused; bad: one repeat 1.3 [1.25, 1.35] (outside its tolerance and CI) and three tops with a
# slope (17 of 20 with none, under 95%).
cat >"$TMP/wgen.py" <<'PY'
import json, os, sys
out, kind = sys.argv[1], sys.argv[2]
os.makedirs(out)
json.dump({"cpu": {"vendor": "v", "model": "m"}, "kernel": {"release": "k"},
           "fingerprint": "f"}, open(os.path.join(out, "sysinfo.json"), "w"))
open(os.path.join(out, "load.txt"), "w").write("load average: 0.1\n")
for i in range(1, 21):
    xs = [50, 100, 200, 400, 800]
    cells = [{"id": f"getpid/delay[ns={x}]", "tracer_extra": {"spin_ns_median": x + 3.0}}
             for x in xs]
    slope = 1.3 if kind == "bad" and i == 7 else 1.0 + 0.01 * (i % 5)
    delay = {"section": "delay", "points": [{"cell": c["id"], "x": x} for c, x in zip(cells, xs)],
             "model": {"accepted": True, "slope_ns": slope,
                       "slope_ns_ci": [slope - 0.05, slope + 0.05]}}
    top = {"section": "top", "points": [], "model": {"accepted": False, "why_not": "noise"}}
    if kind == "bad" and i > 17:
        top["model"] = {"accepted": True, "slope_ns": 2.0, "slope_ns_ci": [1.0, 3.0]}
    os.makedirs(os.path.join(out, f"run-{i}"))
    json.dump({"cells": cells, "sweeps": [delay, top]},
              open(os.path.join(out, f"run-{i}", "result.json"), "w"))
PY
VS=$ROOT/tools/validate-sweeps.sh
python3 "$TMP/wgen.py" "$TMP/wgood" good || fail "wgen good"
python3 "$TMP/wgen.py" "$TMP/wbad" bad || fail "wgen bad"
VALIDATE_FROM=$TMP/wgood expect_exit 0 "$VS"
grep -q "delay: accepted in 20/20, its slope within tolerance in 20 of them, the truth in its CI in 20" \
	"$TMP/out" || fail "good sweeps set: $(cat "$TMP/out")"
grep -q "^PASS" "$TMP/out" || fail "good sweeps set: no PASS"
VALIDATE_FROM=$TMP/wbad expect_exit 1 "$VS"
grep -q "repeat  7: delay 1.300 .*WRONG, outside the CI" "$TMP/out" ||
	fail "bad sweeps set: repeat 7 not called wrong: $(cat "$TMP/out")"
grep -q "top: no slope in 17/20" "$TMP/out" || fail "bad sweeps set: top's tally"
[ ! -e "$TMP/wgood/sweeps.txt" ] || fail "VALIDATE_FROM wrote into the directory it judged"
refuses_garbled "$VS" "$TMP/wbad" "$TMP/wbad/run-4/result.json" \
	"wbad/run-4/result.json: not a tracebench result with sweeps and cells"
python3 - "$TMP/wbad/run-4/result.json" <<'PY'
import json, sys
json.dump({"cells": [], "sweeps": [{"section": "delay", "points": [{"cell": "x", "x": 1}]},
                                   {"section": "top"}]}, open(sys.argv[1], "w"))
PY
VALIDATE_FROM=$TMP/wbad expect_exit 2 "$VS"
grep -q "wbad/run-4/result.json: a sweep without the keys the checks read" "$TMP/err" ||
	fail "a sweep without its keys: $(cat "$TMP/err")"
VALIDATE_FROM=$TMP/none expect_exit 2 "$VS"

# ---- 2. validate.sh end to end, quick -----------------------------------------------------------
need_root
"$TB" run --help >/dev/null 2>&1 || skip "tracebench run is not available in this build"
OUT=$TMP/v
ls /sys/kernel/tracing/instances 2>/dev/null | sort >"$TMP/inst-before"
VALIDATE_ONLY="known-delta aa proof bpf peers" VALIDATE_QUICK=1 \
	VALIDATE_LOCK_WAIT=${VALIDATE_LOCK_WAIT:-120} VALIDATE_OUT=$OUT TB_BIN=$TB \
	"$ROOT/tools/validate.sh" >"$TMP/vout" 2>"$TMP/verr"
rc=$?
cat "$TMP/vout"
grep -q "tracebench exited 3" "$OUT/validate.log" 2>/dev/null &&
	grep -q "another tracebench run" "$OUT/validate.log" &&
	skip "another tracebench run held the measuring lock for too long"
[ $rc -eq 0 ] || [ $rc -eq 1 ] || { cat "$TMP/verr" >&2; fail "validate.sh exited $rc"; }
[ -s "$OUT/validation.json" ] || fail "no validation.json"
[ -s "$OUT/table.txt" ] || fail "no table.txt"
[ -s "$OUT/commands.txt" ] || fail "no commands.txt"
for c in known-delta aa-false-positives proof-count proof-lost proof-window bpf-crosscheck; do
	grep -Eq "^(PASS|FAIL): $c" "$TMP/vout" || fail "no pass/fail line for $c"
done
python3 - "$OUT/validation.json" <<'PY' || fail "validation.json content"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["meta"]["quick"] is True, d.get("meta")
names = {c["check"] for c in d["checks"]}
for n in ("known-delta", "aa-false-positives", "aa-noise-floor", "proof-count", "proof-lost",
          "proof-window", "bpf-crosscheck", "peers"):
    assert n in names, (n, sorted(names))
for c in d["checks"]:
    assert c["figure"], c
PY
# validate.sh leaves no tracebench instance behind (others' may come and go meanwhile: only
# new instances whose owner pid is dead count)
ls /sys/kernel/tracing/instances 2>/dev/null | sort >"$TMP/inst-after"
for i in $(comm -13 "$TMP/inst-before" "$TMP/inst-after" | grep '^tracebench-'); do
	pid=$(echo "$i" | cut -d- -f2)
	kill -0 "$pid" 2>/dev/null || fail "instance left behind: $i"
done
exit 0
