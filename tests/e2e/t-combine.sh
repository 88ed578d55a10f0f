#!/bin/bash
# tracebench combine on synthetic result files (fixed seed, nothing measured): five runs of one
# scenario whose traced cell's overhead shifts from run to run by more than each run's interval
# (a machine whose state moves between runs) are combined into one figure whose interval holds
# the runs' spread, said as such, with the run-to-run sd near the shifts'; five runs of one
# state agree, and their combined interval is about their own; a cell missing from a run is
# counted; JSON and text say the same; bad input (one file, a file that is not a result, a bad
# --alpha, different hardware under --require-same-host) exits 2 naming it, with nothing on
# stdout; two groups (--against) are each combined and differenced, and a second group of one
# state with the first shows no change.
. "$(dirname "$0")/lib.sh"
D=$TB_ROOT/tests/data/results
# mkruns DIR SHIFT_SD [PCT]: run1..run5.json from a.json, the getpid/tp cell's samples redrawn
# around a +PCT% overhead (20) shifted per run by SHIFT_SD points times 0, 1, -1, 2, -2; 40
# rounds, CV 1%
mkruns() {
	python3 - "$D/a.json" "$1" "$2" "${3:-20}" <<'PY' || fail "the synthetic runs"
import copy, json, os, random, sys
src, out, sd, base = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
rng = random.Random(20261207 + int(base))
a = json.load(open(src))
os.makedirs(out, exist_ok=True)
shifts = [0.0, 1.0, -1.0, 2.0, -2.0] if sd else [0.0] * 5
for i in range(5):
    r = copy.deepcopy(a)
    pct = base + sd * shifts[i]
    for c in r["cells"]:
        if not c["id"].startswith("getpid/"):
            continue
        mean = 200.0 * (1 + (0 if c["baseline"] else pct / 100))
        c["samples"] = [{"round": k, "warmup": False, "ops": 1000000,
                         "ns_per_op": rng.gauss(mean, mean * 0.01)} for k in range(40)]
    r["settings"]["rounds"] = 40
    r["started"], r["finished"] = (f"2026-11-29T1{i}:{m:02d}:00Z" for m in (0, 5))
    if i == 4:  # the last run lacks the read/bpf cell
        r["cells"] = [c for c in r["cells"] if not c["id"].startswith("read/")]
    json.dump(r, open(f"{out}/run{i + 1}.json", "w"))
PY
}
expect2() {
	local what=$1
	shift
	"$TB_BIN" combine "$@" >bad.out 2>bad.err
	[ $? -eq 2 ] || { cat bad.err; fail "$what: exit 2"; }
	[ ! -s bad.out ] || fail "$what: something on stdout"
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
# two groups (e.g. two kernels): each combined, then B against A. Runs 10 points dearer with a
# run-to-run spread of about 1.6 points: a significant change near +10; A against runs of its
# own state: no change
mkruns "$TMP/dear" 1 30
mkruns "$TMP/calm2" 0.3
"$TB_BIN" combine calm/run*.json --against dear/run*.json >ab.txt || { cat ab.txt; fail "--against"; }
grep -q "^== B against A" ab.txt && grep -q "^getpid/tp: 5 runs in A, 5 in B" ab.txt ||
	{ cat ab.txt; fail "the change table"; }
grep -q "read/bpf: 4 runs in A, 4 in B" ab.txt || { cat ab.txt; fail "the cell in 4 runs each"; }
"$TB_BIN" combine calm/run*.json --json --against dear/run*.json >ab.json || fail "--against --json"
"$TB_BIN" combine calm/run*.json --against calm2/run*.json --json >aa.json || fail "--against, one state"
python3 - ab.json aa.json <<'PY' || fail "the change's figures"
import json, sys
ab, aa = (json.load(open(f)) for f in sys.argv[1:3])
ch = {c["id"]: c for c in ab["changes"]}
d = ch["getpid/tp"]["overhead_pct"]
assert d["significant"] and 8 < d["diff"] < 12 and d["ci"][0] > 5 and d["ci"][1] < 15, d
assert d["p"] < 0.001 and 3 < d["df"] <= 8, d
assert len(ab["a"]["cells"]) == 2 and len(ab["b"]["cells"]) == 2, ab
e = {c["id"]: c for c in aa["changes"]}["getpid/tp"]["overhead_pct"]
assert not e["significant"] and e["ci"][0] < 0 < e["ci"][1], e
PY
# every word after --against that is not an option is B's, also after an option
"$TB_BIN" combine calm/run1.json calm/run2.json --against dear/run1.json dear/run2.json --json \
	dear/run3.json >grp.json || fail "B's files around an option"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["a"]["files"]) == 2 and len(d["b"]["files"]) == 3, (d["a"]["files"], d["b"]["files"])' grp.json ||
	fail "a file after an option is B's"
"$TB_BIN" combine calm/run1.json calm/run2.json --against=dear/run1.json dear/run2.json >/dev/null ||
	fail "--against=FILE"
"$TB_BIN" combine calm/run1.json --against dear/run1.json --help >help.txt && grep -q "usage: tracebench combine" help.txt ||
	fail "--help beside --against"
# cells in one group only are listed (read/bpf is in none of B's runs)
python3 - dear nobpf <<'PY' || fail "B without read/bpf"
import json, os, sys
os.makedirs(sys.argv[2], exist_ok=True)
for i in range(1, 4):
    r = json.load(open(f"{sys.argv[1]}/run{i}.json"))
    r["cells"] = [c for c in r["cells"] if not c["id"].startswith("read/")]
    json.dump(r, open(f"{sys.argv[2]}/run{i}.json", "w"))
PY
"$TB_BIN" combine calm/run*.json --against nobpf/run*.json >only.txt || fail "a cell in A only"
grep -q "^only in A: read/bpf" only.txt || { cat only.txt; fail "only in A said"; }
"$TB_BIN" combine calm/run*.json --against nobpf/run*.json --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["only_in_a"] == ["read/bpf"] and d["only_in_b"] == [] and len(d["changes"]) == 1, d["only_in_a"]' ||
	fail "only_in_a in the JSON"
# a run in both groups is said
"$TB_BIN" combine calm/run1.json calm/run2.json --against calm/run2.json dear/run1.json --json |
	python3 -c 'import json, sys; w = json.load(sys.stdin)["warnings"]; assert any("repeat one of A" in x for x in w), w' ||
	fail "a run in both groups"
expect2 "--against first" --against dear/run1.json dear/run2.json calm/run1.json
grep -q "A's come before it" bad.err || { cat bad.err; fail "--against first: said"; }
expect2 "--against with one file" calm/run1.json calm/run2.json --against dear/run1.json
grep -q -- "--against needs at least two result files" bad.err || { cat bad.err; fail "--against one file: said"; }
expect2 "--against twice" calm/run1.json calm/run2.json --against dear/run1.json dear/run2.json --against dear/run3.json dear/run4.json
grep -q -- "--against given twice" bad.err || { cat bad.err; fail "--against twice: said"; }
expect2 "--against a bad file" calm/run1.json calm/run2.json --against dear/run1.json "$D/bad-malformed.json"
grep -q "bad-malformed.json" bad.err || { cat bad.err; fail "B's bad file named"; }
expect2 "--against, other hardware" "$D/a.json" "$D/a.json" --against "$D/c-otherhw.json" "$D/c-otherhw.json" --require-same-host
grep -q "c-otherhw.json" bad.err || { cat bad.err; fail "B's hardware named"; }
"$TB_BIN" combine "$D/a.json" "$D/a.json" --against "$D/c-otherhw.json" "$D/c-otherhw.json" >hw.txt ||
	fail "--against, other hardware, without --require-same-host"
grep -q "A and B ran on different hardware" hw.txt || { cat hw.txt; fail "the groups' hardware warning"; }
# bad input: exit 2, the reason named, nothing on stdout
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
grep -q "two runs leave one degree of freedom" two.txt || fail "the two-run note"
# the runs' standard errors do not depend on the level asked (each result re-analysed at it)
"$TB_BIN" combine shift/run*.json --json --alpha 0.1 >a10.json || fail "--alpha 0.1"
python3 - shift.json a10.json <<'PY' || fail "the standard errors at another level"
import json, sys
a, b = (json.load(open(f))["cells"][0]["per_run"] for f in sys.argv[1:3])
for x, y in zip(a, b):
    assert 0.85 < y["overhead_se"] / x["overhead_se"] < 1.15, (x, y)
PY
# one run given twice is said; two cells of one configuration in one file count once
"$TB_BIN" combine shift/run1.json shift/run1.json shift/run2.json >rep.txt || fail "a run given twice"
grep -q "1 of the results repeat an earlier one" rep.txt || { cat rep.txt; fail "the repeated run"; }
python3 - shift/run1.json dup.json <<'PY' || fail "the file with a duplicate"
import copy, json, sys
r = json.load(open(sys.argv[1]))
c = copy.deepcopy(next(c for c in r["cells"] if c["id"] == "getpid/tp"))
c["id"] = "getpid/tp-again"
r["cells"].append(c)
json.dump(r, open(sys.argv[2], "w"))
PY
"$TB_BIN" combine dup.json shift/run2.json >dup.txt || { cat dup.txt; fail "a file with two cells of one configuration"; }
grep -q "^getpid/tp: in 2 of 2 runs; 1 further cell of the same configuration in one file left out" dup.txt ||
	{ cat dup.txt; fail "the duplicate counted once"; }
echo "PASS: combine: the runs' spread in the interval, their agreement said, bad input"
