#!/bin/bash
# One source for the demo's durations (issue 28: README's demo table, `make demo` and
# quick.ini's own comment said three different things). What the scenario is (cells, rounds,
# seconds per sample) is stated in README and in quick.ini's comment exactly as `run --dry-run`
# prints it, for the full run and --quick; the demo's wall time is stated in README only, once,
# with the command and the fingerprint it comes from; quick.ini and the Makefile state none.
# Every figure the documents quote (issue 29) is a figure of doc/figures.json, quoted as the file
# says, and every fingerprint they print is one of its machines (tools/figures.py check); a
# figure with no entry, a figure quoted otherwise and a hand-written fingerprint each fail it, and
# so do a measured-looking number outside the markers and an exemption of an unknown kind, while
# a number marked as published and a protocol setting pass.
. "$(dirname "$0")/lib.sh"
R=$TB_ROOT/README.md
Q=$TB_ROOT/scenarios/quick.ini
plan() { "$TB" run "$Q" --dry-run "$@" 2>&1 | sed -n 's/^scenario quick ([^)]*): \(.*\)$/\1/p'; }
full=$(plan)
quick=$(plan --quick)
[ -n "$full" ] && [ -n "$quick" ] || fail "no plan line from --dry-run"
quick_s=${quick##*, }
python3 - "$R" "$Q" "$TB_ROOT/Makefile" "$full" "$quick_s" <<'PY' || fail "the demo's figures disagree"
import re, sys
readme, quick, makefile = (open(p).read() for p in sys.argv[1:4])
readme = re.sub(r"<!--/?fig[^>]*-->", "", readme)  # as it renders: figures quoted, markers not
full, quick_s = sys.argv[4], sys.argv[5]
want = f"{full} ({'`--quick`'}: {quick_s})"
flat = lambda t: re.sub(r"\s+", " ", t)
assert flat(f"`make demo` runs `scenarios/quick.ini`: {want}") in flat(readme), \
    f"README does not say: `make demo` runs `scenarios/quick.ini`: {want}"
comment = flat(" ".join(l.lstrip("; ") for l in quick.splitlines() if l.startswith(";")))
assert f"{full} (--quick: {quick_s})" in comment, f"quick.ini's comment does not say: {full} (--quick: {quick_s})"
# wall times: none in quick.ini's comment or at the Makefile's demo target
assert not re.search(r"\b(about|took)\b[^.;]*\b(\d+(\.\d+)? ?(s|seconds?|minutes?))\b", comment, re.I), comment
demo = makefile[makefile.index("\ndemo:") - 300:makefile.index("\ndemo:") + 300]
assert not re.search(r"\d+ ?(s|seconds|minutes)\b", demo), demo
# README: the full demo's wall time once, with its machine and the command it comes from
took = re.findall(r"It took (\d+(?:\.\d+)?) s on .*?fingerprint ([0-9a-f]{16}).*?"
                  r"\(`make figures FIGURES=demo`", flat(readme))
assert len(took) == 1, took
PY
FIG=$TB_ROOT/tools/figures.py
python3 "$FIG" check >"$TMP/check" 2>&1 || { cat "$TMP/check" >&2; fail "figures.py check"; }
# A copy of the documents and the file, spoiled five ways: check names each.
R2=$TMP/root
mkdir -p "$R2/doc" && cp "$TB_ROOT/README.md" "$TB_ROOT/METHODOLOGY.md" "$R2/" &&
	cp "$TB_ROOT"/doc/*.md "$TB_ROOT/doc/figures.json" "$R2/doc/" || fail "copy the documents"
TB_ROOT=$R2 python3 "$FIG" check >"$TMP/out" 2>&1 || { cat "$TMP/out" >&2; fail "the copy fails"; }
python3 - "$R2" <<'PY' || fail "spoiling the copy"
import json, sys
r = sys.argv[1]
d = json.load(open(f"{r}/doc/figures.json"))
d["sections"]["demo"]["figures"]["demo.wall-s"] = "1.0"          # quoted otherwise
json.dump(d, open(f"{r}/doc/figures.json", "w"))
with open(f"{r}/doc/workloads.md", "a") as f:
    f.write("\nIt costs <!--fig workloads.nowhere-->7 ns<!--/fig-->.\n"  # no entry
            "Measured on fingerprint 0123456789abcdef.\n"              # not from the file
            "\nMeasured here: a getpid cost 123.4 ns, +17% over its\n"  # measured, no figure
            "baseline (published: <!--nofig published-->117 ns<!--/nofig-->; a\n"
            "20 ms settle, default 1 s; <!--nofig guess-->4.5 ns<!--/nofig-->).\n")  # unknown kind
PY
TB_ROOT=$R2 python3 "$FIG" check >"$TMP/out" 2>&1 && fail "check passed the spoiled copy"
grep -q "README.md:[0-9]*: figure demo.wall-s quotes .*doc/figures.json says '1.0'" "$TMP/out" ||
	{ cat "$TMP/out" >&2; fail "a figure quoted otherwise not named"; }
grep -q "doc/workloads.md:[0-9]*: figure workloads.nowhere: no entry in doc/figures.json" \
	"$TMP/out" || { cat "$TMP/out" >&2; fail "a figure with no entry not named"; }
grep -q "doc/workloads.md:[0-9]*: fingerprint 0123456789abcdef is not a figure" "$TMP/out" ||
	{ cat "$TMP/out" >&2; fail "a hand-written fingerprint not named"; }
for n in "'123.4 ns'" "'+17%'"; do
	grep -q "doc/workloads.md:[0-9]*: $n looks measured (its paragraph says 'Measured')" \
		"$TMP/out" || { cat "$TMP/out" >&2; fail "a measured number outside the markers ($n)"; }
done
grep -q "doc/workloads.md:[0-9]*: <!--nofig guess-->: the kind is one of" "$TMP/out" ||
	{ cat "$TMP/out" >&2; fail "an exemption of an unknown kind not named"; }
# a published figure, a setting after "settle" and "default", and an exempted text pass
grep -E "'(117 ns|20 ms|1 s|4.5 ns)'" "$TMP/out" && fail "an exempted number named"
# render puts back what the file says, and then check passes
TB_ROOT=$R2 python3 "$FIG" render >/dev/null && grep -q '<!--fig demo.wall-s-->1.0<!--/fig-->' \
	"$R2/README.md" || fail "render did not quote the file"
# A run of a documented scenario says, in one line, which figures were measured on another
# machine; a section of this machine's, or of a scenario not run, says nothing.
T=$TMP/tree
mkdir -p "$T/doc" "$T/scenarios" || fail "mkdir"
printf '[global]\nrepetitions = 2\n\n[workload g]\ntype = getpid\n\n[tracer t]\ntype = none\n\n[matrix]\nworkloads = g\ntracers = t\n' \
	>"$T/scenarios/s.ini"
cp "$T/scenarios/s.ini" "$T/scenarios/other.ini"
"$TB" sysinfo --json >"$TMP/si.json" || fail "sysinfo --json"
python3 - "$TMP/si.json" "$T/doc/figures.json" <<'PY' || fail "the tree's figures file"
import json, sys
si = json.load(open(sys.argv[1]))
here = {"cpu": {k: si["cpu"][k] for k in ("vendor", "family")}, "kernel": si["kernel"]["release"],
        "hardware_class": si["hardware_class"]["id"]}
other = dict(here, kernel="1.2.3", hardware_class="0123456789abcdef")
sec = lambda scn, m, figs: {"command": "x", "scenarios": [scn], "machine": m,
                            "figures": {f: "1" for f in figs}}
json.dump({"schema": 1, "sections": {
    "far": sec("scenarios/s.ini", dict(other, date="2020-01-01"), ["far.a", "far.b"]),
    "near": sec("scenarios/s.ini", here, ["near.a"]),
    "else": sec("scenarios/other.ini", here, ["else.a"])}}, open(sys.argv[2], "w"))
PY
"$TB" run "$T/scenarios/s.ini" --dry-run >/dev/null 2>"$TMP/note" || fail "dry-run"
[ "$(grep -c 'documents this scenario from another machine' "$TMP/note")" = 1 ] ||
	{ cat "$TMP/note" >&2; fail "no single note for a scenario measured elsewhere"; }
grep -q 'the 2 figures far\.\* (measured on 2020-01-01: hardware class 0123456789abcdef, here [0-9a-f]\{16\} (.*); kernel 1\.2\.3, here .*) do not apply here$' \
	"$TMP/note" || { cat "$TMP/note" >&2; fail "the note does not name the figures and what differs"; }
grep -q 'near\.' "$TMP/note" && fail "the note names a section of this machine"
"$TB" run "$T/scenarios/other.ini" --dry-run >/dev/null 2>"$TMP/note" || fail "dry-run"
[ ! -s "$TMP/note" ] || { cat "$TMP/note" >&2; fail "a note for a scenario measured here"; }
exit 0
