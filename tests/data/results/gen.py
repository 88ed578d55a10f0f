#!/usr/bin/env python3
# Generates the result fixtures in this directory (deterministic; rerun after schema changes):
#   python3 tests/data/results/gen.py
# Samples are normal with a fixed seed; the true effects are what the names say.
import json, os, random

here = os.path.dirname(os.path.abspath(__file__))

captures = [0]

def system(kernel="6.18.0", cpu="Intel(R) Xeon(R) CPU @ 2.20GHz", cmdline="quiet", gov="performance"):
    # captured and load differ between any two runs: compare keeps them out of its listing
    captures[0] += 1
    return {"captured": "2026-11-29T10:%02d:00Z" % captures[0],
            "load": {"loadavg": [0.1 * captures[0], 0.2, 0.3], "uptime_s": 1000.0 + captures[0]},
            "hostname": "ci-1", "kernel": {"release": kernel, "cmdline": cmdline},
            "cpu": {"model": cpu, "cores": 2, "threads": 2, "smt": False},
            "governor": gov, "mitigations": {"spectre_v2": "Mitigation: Retpolines"},
            "tools": {"bpftrace": "0.17.0"}, "fingerprint": "f-%s-%s" % (kernel, cpu[:5]),
            "fingerprint_fields": ["kernel.release", "cpu.model"]}

def samples(rng, mean, cv, rounds, events_per_op=None, lost=0, warmup=1):
    out = []
    for i in range(warmup):
        out.append({"round": -1, "warmup": True, "ns_per_op": rng.gauss(mean * 1.1, mean * cv),
                    "ops": 1000000})
    for r in range(rounds):
        s = {"round": r, "warmup": False, "ns_per_op": rng.gauss(mean, mean * cv), "ops": 1000000}
        if events_per_op is not None:
            s["events"] = int(events_per_op * 1000000)
            s["lost"] = lost
        out.append(s)
    return out

def cell(wl, tr, ttype, base, ss, events=None, lost=None, cfg=None):
    c = {"id": "%s/%s" % (wl, tr), "workload": wl, "workload_type": wl,
         "workload_config": {"iterations": 0}, "tracer": tr, "tracer_type": ttype,
         "tracer_config": cfg or {}, "baseline": base, "threads": 1, "ops_per_sample": 1000000,
         "samples": ss, "events_recorded": events, "events_lost": lost}
    return c

def result(cells, sysobj=None, gate=None, rounds=10, foreign=None):
    r = {"schema": "tracebench-result/1", "tool": {"name": "tracebench", "version": "0.1.0"},
         "scenario": {"name": "fixture", "path": "fixture.ini", "text": "[global]\n"},
         "started": "2026-11-29T10:00:00Z", "finished": "2026-11-29T10:05:00Z", "partial": False,
         "system": sysobj or system(),
         "settings": {"seed": 42, "rounds": rounds, "warmup": 1, "duration_ns": 100000000,
                      "noise_threshold": 0.01, "alpha": 0.05, "power": 0.8,
                      "bootstrap_resamples": 10000, "confidence": 0.95, "precision": 0},
         "foreign_instrumentation": foreign or [], "warnings": [], "cells": cells}
    if gate is not None:
        r["gate"] = gate
    return r

def pair(rng, wl, base_ns, pct, cv=0.01, rounds=10, lost=0, events=True, tr="tp", ttype="ftrace-events"):
    b = cell(wl, "none", "none", True, samples(rng, base_ns, cv, rounds), -1, -1)
    n = rounds * 1000000 if events else 0
    t = cell(wl, tr, ttype, False, samples(rng, base_ns * (1 + pct / 100), cv, rounds,
             1.0 if events else 0.0, lost), n, lost * rounds, {"events": "syscalls:sys_enter_getpid"})
    return [b, t]

def dump(name, obj):
    with open(os.path.join(here, name), "w") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")

rng = random.Random(6)
# a.json: clear overhead (about +150%); b.json: same cells on a newer kernel, baseline +5%.
dump("a.json", result(pair(rng, "getpid", 200, 150) + pair(rng, "read", 400, 20, tr="bpf", ttype="bpf")))
bb = pair(rng, "getpid", 210, 140) + pair(rng, "pipe", 5000, 3)
dump("b.json", result(bb, system(kernel="6.19.0", cmdline="quiet mitigations=off")))
dump("c-otherhw.json", result(pair(rng, "getpid", 200, 150), system(cpu="AMD EPYC 7B13")))
# Gate fixtures: tiny overhead (pass at 5%), big overhead (fail), lost events (untrustworthy).
dump("pass.json", result(pair(rng, "getpid", 200, 0.2), gate={"max-overhead": "5%"}))
dump("fail.json", result(pair(rng, "getpid", 200, 20), gate={"max-overhead": "5%"}))
dump("untrustworthy.json", result(pair(rng, "getpid", 200, 0.5, lost=10), gate={"max-overhead": "5%"}))
# regressed.json: pass.json's workload with the baseline 10% slower (for --baseline pass.json).
dump("regressed.json", result(pair(rng, "getpid", 220, 0.2)))

# Malformed and invalid files: each must be refused with exit 2 naming the key.
with open(os.path.join(here, "bad-malformed.json"), "w") as f:
    f.write('{"schema": "tracebench-result/1",\n "cells": [ {"id": "x",, } ]\n}\n')
dump("bad-schema.json", dict(result([]), schema="tracebench-result/99"))
bt = result(pair(random.Random(1), "getpid", 200, 10))
bt["cells"][1]["samples"][3]["ns_per_op"] = "fast"
dump("bad-type.json", bt)
bm = result(pair(random.Random(1), "getpid", 200, 10))
del bm["cells"][0]["workload"]
dump("bad-missing.json", bm)
bn = result(pair(random.Random(1), "getpid", 200, 10))
bn["cells"][1]["samples"][2]["ns_per_op"] = -5.0
dump("bad-negative.json", bn)
bd = result(pair(random.Random(1), "getpid", 200, 10))
bd["cells"][1]["id"] = bd["cells"][0]["id"]
dump("bad-duplicate.json", bd)
with open(os.path.join(here, "bad-huge.json"), "w") as f:
    f.write('{"schema": "tracebench-result/1", "cells": [' + ",".join(["{}"] * 4097) + "]}\n")

# Service fixtures (METHODOLOGY.md "Services"): svc-a.json, nginx under the BPF counter with a
# ~10% throughput loss and a ~20% p99 rise; svc-b.json the same cells with throughput down 8% and
# p99 up 30% in both (for compare, gate and the report's service table).
def svc_samples(rng, rps, p50, p99, rounds=10):
    out = []
    for r in range(rounds):
        q = rng.gauss(rps, rps * 0.01)
        out.append({"round": r, "warmup": False, "ns_per_op": 1e9 / q, "ops": int(q),
                    "elapsed_ns": 1e9,
                    "service": {"requests_per_s": q, "p50_ns": rng.gauss(p50, p50 * 0.01),
                                "p99_ns": rng.gauss(p99, p99 * 0.01),
                                "p999_ns": rng.gauss(2 * p99, p99 * 0.02), "errors": 0,
                                "server_cpu_s": 0.4, "server_ctxsw": int(q),
                                "decides": "throughput"}})
    return out

def svc_pair(rng, rps, p50, p99, loss, rise):
    b = cell("nginx", "none", "none", True, svc_samples(rng, rps, p50, p99), -1, -1)
    ts = svc_samples(rng, rps * (1 - loss / 100), p50, p99 * (1 + rise / 100))
    for s in ts:
        s["events"] = 5 * s["ops"]
        s["lost"] = 0
    t = cell("nginx", "bpf-count", "bpf", False, ts, sum(s["events"] for s in ts), 0)
    b["ops_per_sample"] = t["ops_per_sample"] = int(rps)
    return [b, t]

srng = random.Random(30)
dump("svc-a.json", result(svc_pair(srng, 20000, 100e3, 400e3, 10, 20)))
dump("svc-b.json", result(svc_pair(srng, 18400, 100e3, 520e3, 10, 20)))
