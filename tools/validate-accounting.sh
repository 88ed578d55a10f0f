#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make validate-accounting: does a command tracer's accounting stay out of its overhead?
# Runs scenarios/validation/accounting.ini (a bpftrace one-liner on sys_enter_getpid over
# getpid, once with the default accounting, once with bpf-stats = false) and checks that the
# two overheads agree within their CIs: each point estimate inside the other's CI. Prints both
# with their CIs, the accounting samples' own cost (the stats' price, which the timed samples
# no longer pay) and the machine: CPU model and family, kernel, date.
# Output: results/validation-accounting-<UTC>/ (the run's result.json and accounting.txt).
# Exit 0 when they agree, 1 when not, 2 on bad setup (no bpftrace, the run failed).
#
# Environment: TB_BIN (default ./tracebench), VALIDATE_OUT (output directory), VALIDATE_QUICK=1
# (--quick: a smoke test whose figures mean nothing). The run waits for the machine-wide
# measuring lock (--wait).
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
TB=${TB_BIN:-$root/tracebench}
STAMP=$(date -u +%Y%m%dT%H%M%SZ)
OUT=${VALIDATE_OUT:-$root/results/validation-accounting-$STAMP}
QFLAG=
[ "${VALIDATE_QUICK:-0}" = 1 ] && QFLAG=--quick

if [ ! -x "$TB" ]; then
	echo "validate-accounting.sh: $TB is not an executable (build it: make)" >&2
	exit 2
fi
if ! command -v bpftrace >/dev/null 2>&1; then
	echo "validate-accounting.sh: bpftrace is not installed: nothing to check" >&2
	exit 2
fi
mkdir -p "$OUT" || exit 2
"$TB" sysinfo --json >"$OUT/sysinfo.json" || exit 2
"$TB" run "$root/scenarios/validation/accounting.ini" -o "$OUT/run" $QFLAG \
	--wait >"$OUT/run.log" 2>&1
rc=$?
"$TB" cleanup >/dev/null 2>&1
# doc/figures.json's figures of this scenario measured on another machine (model/figures.h)
sed -n 's/^tracebench: warning: .*documents this scenario from another machine: /validate-accounting: documented figures from another machine: /p' "$OUT/run.log"
if [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ]; then
	echo "validate-accounting.sh: the run exited $rc (log: $OUT/run.log)" >&2
	exit 2
fi
# Is run_cnt counted with the stats off? A bpftrace program on sys_enter_getpid, 1,000,000
# getpids, its fdinfo read before and after (run_cnt and run_time_ns). Another process holding
# the stats meanwhile shows as runs with run time; the figure is printed, not judged.
run_cnt_off() {
	bpftrace -e 'tracepoint:syscalls:sys_enter_getpid { @c = count(); }' >"$OUT/bt-runcnt.log" 2>&1 &
	bt=$!
	sleep 4
	python3 - "$bt" <<'PY'
import glob, os, sys

def figures(pid):
    for fd in glob.glob(f"/proc/{pid}/fdinfo/*"):
        try:
            d = dict(l.split(":", 1) for l in open(fd) if ":" in l)
        except OSError:
            continue
        if "prog_id" in d and "run_cnt" in d:
            return int(d["run_cnt"]), int(d["run_time_ns"])
    return None

pid = int(sys.argv[1])
before = figures(pid)
stats = open("/proc/sys/kernel/bpf_stats_enabled").read().strip()
for _ in range(1000000):
    os.getpid()
after = figures(pid)
if not before or not after:
    print("run_cnt with the stats off: bpftrace's program not found")
else:
    print(f"run_cnt with the stats off (kernel.bpf_stats_enabled {stats}): "
          f"{after[0] - before[0]} runs, {after[1] - before[1]} ns run time, "
          f"over 1000000 getpids")
PY
	kill -INT "$bt" 2>/dev/null
	wait "$bt" 2>/dev/null
}
run_cnt_off | tee "$OUT/run-cnt.txt"
python3 - "$OUT/run/result.json" "$OUT/sysinfo.json" "$STAMP" <<'PY' | tee "$OUT/accounting.txt"
import json, sys

r = json.load(open(sys.argv[1]))
si = json.load(open(sys.argv[2]))
cells = {c["tracer"]: c for c in r["cells"]}
cpu, kern = si.get("cpu", {}), si.get("kernel", {})
print(f"machine: {cpu.get('vendor', '?')} {cpu.get('model', '?')} family {cpu.get('family', '?')} "
      f"model {cpu.get('model_number', '?')}, kernel {kern.get('release', '?')}, "
      f"fingerprint {si.get('fingerprint', '?')}, {sys.argv[3]}")


def overhead(name):
    o = cells[name].get("overhead") or {}
    ci = o.get("ci") or [None, None]
    if o.get("pct") is None or None in ci:
        sys.exit(f"validate-accounting: {name}: no overhead with a CI (verdict "
                 f"{o.get('verdict')}: {o.get('reason')})")
    return o["pct"], ci[0], ci[1], o.get("ns_per_op")


a, n = overhead("bt-acct"), overhead("bt-noacct")
for name, (pct, lo, hi, ns) in (("accounting enabled ", a), ("accounting disabled", n)):
    print(f"{name}: overhead {pct:+.1f}% [{lo:+.1f}, {hi:+.1f}], {ns:.1f} ns/op")
acct = cells["bt-acct"].get("accounting") or {}
ci = acct.get("cost_ci") or [None, None]
print("accounting samples: %s, %s ns/run, %s runs/op; their own cost %s%% %s (%s ns/op, %s ns per run)"
      % (acct.get("samples"), acct.get("bpf_ns_per_run"), acct.get("bpf_runs_per_op"),
         None if acct.get("cost_pct") is None else round(acct["cost_pct"], 1),
         "[%.1f, %.1f]" % tuple(ci) if None not in ci else "(%s)" % acct.get("ci_reason"),
         None if acct.get("cost_ns_per_op") is None else round(acct["cost_ns_per_op"], 1),
         None if acct.get("cost_ns_per_run") is None else round(acct["cost_ns_per_run"], 1)))
timed = [s for s in cells["bt-acct"]["samples"] if not s.get("accounting")]
if any(s.get("bpf_stats") is not False for s in timed if not s["warmup"]):
    print("FAIL: a timed sample of bt-acct ran with bpf_stats on")
    sys.exit(1)
agree = a[1] <= n[0] <= a[2] and n[1] <= a[0] <= n[2]
print("PASS: the two overheads agree within their CIs" if agree else
      "FAIL: the overheads differ beyond their CIs: the accounting reaches the timed samples")
sys.exit(0 if agree else 1)
PY
