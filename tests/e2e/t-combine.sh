#!/bin/bash
# tracebench combine on synthetic result files (fixed seed, nothing measured): five runs of one
# scenario whose traced cell's overhead shifts from run to run by more than each run's interval
# (a machine whose state moves between runs) are combined into one figure whose interval holds
# the runs' spread, said as such, with the run-to-run sd near the shifts'; five runs of one
# state agree, and their combined interval is about their own; a cell missing from a run is
# counted; JSON and text say the same; bad input (one file, a file that is not a result, a bad
# --alpha, different hardware under --require-same-host) exits 2 naming it, with nothing on
# stdout.
. "$(dirname "$0")/lib.sh"
D=$TB_ROOT/tests/data/results
# mkruns DIR SHIFT_SD: run1..run5.json from a.json, the getpid/tp cell's samples redrawn around
# a +20% overhead shifted per run by a draw of sd SHIFT_SD points; 40 rounds, CV 1%
mkruns() {
	python3 - "$D/a.json" "$1" "$2" <<'PY' || fail "the synthetic runs"
import copy, json, os, random, sys
src, out, sd = sys.argv[1], sys.argv[2], float(sys.argv[3])
rng = random.Random(20261207)
a = json.load(open(src))
os.makedirs(out, exist_ok=True)
shifts = [0.0, 1.0, -1.0, 2.0, -2.0] if sd else [0.0] * 5
for i in range(5):
    r = copy.deepcopy(a)
    pct = 20.0 + sd * shifts[i]
    for c in r["cells"]:
        if not c["id"].startswith("getpid/"):
            continue
        mean = 200.0 * (1 + (0 if c["baseline"] else pct / 100))
        c["samples"] = [{"round": k, "warmup": False, "ops": 1000000,
                         "ns_per_op": rng.gauss(mean, mean * 0.01)} for k in range(40)]
    r["settings"]["rounds"] = 40
    if i == 4:  # the last run lacks the read/bpf cell
        r["cells"] = [c for c in r["cells"] if not c["id"].startswith("read/")]
    json.dump(r, open(f"{out}/run{i + 1}.json", "w"))
PY
}
mkruns "$TMP/shift" 3
mkruns "$TMP/calm" 0
cd "$TMP" || fail "cd"
"$TB_BIN" combine shift/run*.json >out.txt 2>err.txt || { cat err.txt; fail "combine of the shifted runs"; }
grep -q "^combine: 5 runs, intervals at 95%" out.txt || { cat out.txt; fail "the header"; }
grep -q "^getpid/tp: in 5 of 5 runs" out.txt || { cat out.txt; fail "the traced cell"; }
grep -q "^read/bpf: in 4 of 5 runs" out.txt || { cat out.txt; fail "a cell missing from a run"; }
grep -q "the runs differ by more than their intervals (run-to-run sd" out.txt ||
	{ cat out.txt; fail "the shifted runs' disagreement said"; }
"$TB_BIN" combine shift/run*.json --json >shift.json || fail "combine --json"
"$TB_BIN" combine calm/run*.json --json >calm.json || fail "combine --json of the calm runs"
python3 - shift.json calm.json <<'PY' || fail "the combined figures"
import json, sys
sh = {c["id"]: c for c in json.load(open(sys.argv[1]))["cells"]}
ca = {c["id"]: c for c in json.load(open(sys.argv[2]))["cells"]}
s, c = sh["getpid/tp"], ca["getpid/tp"]
assert s["runs"] == 5 and len(s["per_run"]) == 5, s
o = s["overhead_pct"]
runs = [r["overhead_pct"] for r in s["per_run"]]
run_hw = sorted(1.96 * r["overhead_se"] for r in s["per_run"])[2]
# the shifts (sd 3 * sd of [0, 1, -1, 2, -2] = 4.7 pt) dwarf each run's interval
assert o["q_p"] < 1e-6 and o["i2"] > 0.9, o
assert 2.5 < o["tau"] < 8, o
assert o["ci"][0] < min(runs) + 2 and o["ci"][1] > max(runs) - 2, (o, runs)
assert (o["ci"][1] - o["ci"][0]) / 2 > 4 * run_hw, (o, run_hw)
assert "differ by more than" in o["agreement"], o
# the fixed-effect mean's interval would not have held the spread
assert 1.96 * o["fixed_effect_se"] < run_hw, o
# the calm runs (one truth; each run's bootstrap interval of a median is itself noisy, so
# their Q may exceed its df by chance): a small run-to-run sd, an interval near their own
k = c["overhead_pct"]
assert k["tau"] < 1 and k["tau"] < o["tau"] / 4, (k, o)
calm_hw = sorted(1.96 * r["overhead_se"] for r in c["per_run"])[2]
assert 0.2 * calm_hw < (k["ci"][1] - k["ci"][0]) / 2 < 3 * calm_hw, (k, calm_hw)
assert 19 < k["estimate"] < 21, k
# read/bpf is the same file's cell in every run: Q 0, no run-to-run sd, they agree, and the
# interval is their common one on t(3) (the factor at 1): t(3) / z = 3.182 / 1.960 of it
b = ca["read/bpf"]["overhead_pct"]
assert b["q"] < 1e-9 and b["tau"] == 0 and "agree within" in b["agreement"], b
se = ca["read/bpf"]["per_run"][0]["overhead_se"]
assert abs((b["ci"][1] - b["ci"][0]) / 2 - 3.182446 * se / 2) < 1e-3 * se, (b, se)
# ns/op added too, in ns
assert s["ns_per_op"]["present"] and s["ns_per_op"]["tau"] > 3, s["ns_per_op"]
assert sh["read/bpf"]["runs"] == 4, sh["read/bpf"]
PY
# bad input: exit 2, the reason named, nothing on stdout
expect2() {
	local what=$1
	shift
	"$TB_BIN" combine "$@" >bad.out 2>bad.err
	[ $? -eq 2 ] || { cat bad.err; fail "$what: exit 2"; }
	[ ! -s bad.out ] || fail "$what: something on stdout"
}
expect2 "one file" shift/run1.json
grep -q "needs at least two result files" bad.err || fail "one file: said"
expect2 "a malformed file" shift/run1.json "$D/bad-malformed.json"
grep -q "bad-malformed.json" bad.err || { cat bad.err; fail "the malformed file named"; }
expect2 "a missing file" shift/run1.json nosuch.json
grep -q "nosuch.json" bad.err || { cat bad.err; fail "the missing file named"; }
expect2 "--alpha" shift/run1.json shift/run2.json --alpha 2
grep -q -- "--alpha" bad.err || fail "--alpha: named"
expect2 "--require-same-host" "$D/a.json" "$D/c-otherhw.json" --require-same-host
grep -q "different hardware" bad.err && grep -q "c-otherhw.json" bad.err ||
	{ cat bad.err; fail "--require-same-host: the files named"; }
# without it, the runs on two machines are combined with a warning
"$TB_BIN" combine "$D/a.json" "$D/c-otherhw.json" >two.txt || fail "two hardware classes"
grep -q "ran on 2 hardware classes" two.txt || { cat two.txt; fail "the hardware warning"; }
grep -q "Two runs leave one degree of freedom" two.txt || fail "the two-run note"
echo "PASS: combine: the runs' spread in the interval, their agreement said, bad input"
