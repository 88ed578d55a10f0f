#!/bin/bash
# The measurer never inflates the measured: a bpftrace one-liner on sys_enter_getpid over the
# getpid workload. Every timed sample runs with BPF_STATS_RUN_TIME off (bpf_stats false), every
# measured round adds one accounting sample with them on (accounting true, bpf_stats true), the
# cell's [accounting] object carries the programs' ns/run, the per-program table has its runs,
# and the host's kernel.bpf_stats_enabled is what it was before the run.
. "$(dirname "$0")/lib.sh"
need_root
command -v bpftrace >/dev/null || skip "bpftrace not installed"
export TB_STATE_DIR=$TMP/run
stats_before=$(cat /proc/sys/kernel/bpf_stats_enabled)

cat >"$TMP/acct.ini" <<EOF
[global]
repetitions = 3
warmup = 0
duration = 0.2s

[workload getpid]
type = getpid

[tracer bt-getpid]
type = command
command = bpftrace -B line -e 'BEGIN { printf("tb-ready\\n"); } tracepoint:syscalls:sys_enter_getpid { @c = count(); }'
ready = ^tb-ready\$
ready-timeout = 60s
hooks = syscalls:sys_enter_getpid

[matrix]
workloads = getpid
tracers = bt-getpid
EOF

"$TB" run "$TMP/acct.ini" -o "$TMP/out-run" --wait >"$TMP/out" 2>"$TMP/err"
rc=$?
"$TB" cleanup >/dev/null 2>&1
[ "$rc" -eq 0 ] || { cat "$TMP/out" "$TMP/err" >&2; fail "run exited $rc"; }
res=$TMP/out-run/result.json
[ -s "$res" ] || fail "no result.json"
python3 - "$res" <<'PY' || fail "the accounting is not apart from the timed samples"
import json, sys
r = json.load(open(sys.argv[1]))
c = [c for c in r["cells"] if c["tracer"] == "bt-getpid"][0]
timed = [s for s in c["samples"] if not s.get("accounting") and not s["warmup"]]
acct = [s for s in c["samples"] if s.get("accounting") and not s.get("rerun")]
assert timed, "no timed sample"
for s in timed:
    assert s.get("bpf_stats") is False, f"timed sample {s['order']}: bpf_stats {s.get('bpf_stats')}"
assert len(acct) == 3, f"{len(acct)} accounting samples, one per round expected"
for s in acct:
    assert s.get("bpf_stats") is True, f"accounting sample {s['order']}: bpf_stats {s.get('bpf_stats')}"
    assert s["bpf_run_cnt"] and s["bpf_run_cnt"] > 0, f"accounting sample {s['order']}: no runs"
# every accounting sample is listed, those of a contended round run again (rerun) too
assert sorted(c.get("accounting_samples", [])) == \
    sorted(s["order"] for s in c["samples"] if s.get("accounting")), \
    f"accounting_samples {c.get('accounting_samples')}"
a = c.get("accounting")
assert a and a["samples"] == 3, f"accounting object: {a}"
assert a["bpf_ns_per_run"] and a["bpf_ns_per_run"] > 0, f"no ns/run: {a}"
assert a["bpf_runs_per_op"] and a["bpf_runs_per_op"] >= 1, f"runs/op: {a}"
assert a["cost_pct"] is not None and a["cost_ci"] == [None, None] and a.get("ci_reason"), a
progs = c["tracer_extra"]["bpf_programs"]
assert progs and all(p["runs"] is not None and p["ns_per_run"] for p in progs), progs
print("timed", len(timed), "accounting", len(acct), "ns/run", round(a["bpf_ns_per_run"], 1),
      "cost", round(a["cost_pct"], 1), "%")
PY
[ "$(cat /proc/sys/kernel/bpf_stats_enabled)" = "$stats_before" ] ||
	fail "kernel.bpf_stats_enabled was $stats_before before the run, $(cat /proc/sys/kernel/bpf_stats_enabled) after"
ls "$TB_STATE_DIR"/armed-*.json >/dev/null 2>&1 && fail "armed records left: $(ls "$TB_STATE_DIR")"
exit 0
